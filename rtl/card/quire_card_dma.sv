// SPDX-License-Identifier: MIT
// A channel of the DMA mover: host memory <-> card memory (docs/registers/dma.md, registers
// QUIRE_DMA_* of include/quire/card.h). A START posts a copy of the channel's registers to
// a queue of QUIRE_DMA_QUEUE_DEPTH transfers (a START with the queue full is refused at
// once, QUIRE_ERR_BUSY); the queue runs in order, and each transfer is checked when it
// begins, in the page's order: its epoch against the queue epoch (QUIRE_ERR_PEER), the
// host window and card memory bounds in 64-bit arithmetic (QUIRE_ERR_RANGE), the
// direction (QUIRE_ERR_INVALID). A refused transfer moves nothing and finishes in its
// turn. DONE_COUNT, FAILED_COUNT, FAILED_STATUS, BYTES_DONE and STATUS move as each one
// finishes; CTRL reads 0 from a START until the queue is empty.
//
// Host memory is reached through a port of 64-byte lines, as a PCIe bridge offers it: a
// request (line address, byte enables, write data) is taken in a cycle where host_ready_i
// is high, and every request is answered by rvalid (with the line for a read, an
// acknowledgement for a write) in request order, some cycles later; whoever holds host
// memory (the harness under Verilator, a PCIe bridge) decides the latency and the rate.
// Card memory is a 512-bit port too (a line, read data in the next cycle, held until the
// next read).
//
// Where host and card addresses sit at the same offset in their lines (the firmware's
// transfers of data), a transfer moves whole lines, the first and last with byte enables:
// to the card, a line read asked for in every cycle the port takes one, each answer
// written to card memory as it comes; to the host, a card line read a cycle ahead and sent
// as a host write. Two sides work at once so that the link does not idle between queued
// transfers: the issue side asks for one transfer's lines and takes the next from the
// queue in the cycle its last request is taken, while the answer side follows the
// transfers in flight (a FIFO of their card lines, line counts and edge offsets) and
// finishes each on its last answer. At most MaxOutstanding requests are in flight, across
// transfers. A transfer to the host waits for the transfers to the card before it to
// finish (it may read what they write). Otherwise (different offsets) a transfer moves a
// word per step where both cursors are aligned and 4 bytes are left, a byte otherwise, one
// request at a time, and it begins, as a refused or empty one does, once nothing is in
// flight.
//
// A transfer to the card with its exponents (DIR QUIRE_DMA_TO_CARD_EXPS: host and card on a
// line, whole fp32) runs on the whole-line path alone: it begins once nothing is in flight,
// and nothing begins until it has finished. Each answer's 16 lanes go through the exponent
// pass of the QUANT engine (quire_quant_exp, without error feedback), and each block's
// exponent is written as it comes out, on a write port of card memory of its own; the
// transfer finishes once the last one is written.
//
// A transfer to the host decoded on the way (DIR QUIRE_DMA_TO_HOST_DECODE, a channel built
// with Decode) is a whole-line transfer to the host whose lines come from
// quire_card_dma_decode rather than from card memory: it begins as a plain one does, its
// exponents are checked (a bad one: it finishes QUIRE_ERR_RANGE after those before it,
// having sent nothing), then its lines are sent as the unit makes them.
//
// The queue engine (quire_card_queue) shares the port: no transfer begins while it holds
// the port (hold_i), and busy_o, high while anything is queued or in flight, keeps the
// engine from starting.
module quire_card_dma
  import quire_card_pkg::*;
  import quire_format_pkg::*;
#(
  parameter logic [63:0] MemBytes       = 64'h0800_0000,
  parameter int unsigned MaxOutstanding = 256,
  parameter bit          Decode         = 1'b0  // takes QUIRE_DMA_TO_HOST_DECODE
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // Registers (the core's data port): the offset in the channel's registers.
  input  logic        req_i,
  input  logic        we_i,
  input  logic [$clog2(DMA_CHANNEL_BYTES)-1:0] addr_i,
  input  logic [31:0] wdata_i,
  output logic [31:0] rdata_o,

  input  logic [31:0] queue_epoch_i,
  input  logic [63:0] host_win_base_i,
  input  logic [63:0] host_win_size_i,   // 0: no host attached
  input  logic        hold_i,            // the queue engine has the host port
  output logic        busy_o,            // the mover has it, or has been told to start

  // Card memory: a line (the byte offset of a line), read data in the next cycle.
  output logic         mem_req_o,
  output logic         mem_we_o,
  output logic [63:0]  mem_be_o,
  output logic [31:0]  mem_addr_o,
  output logic [511:0] mem_wdata_o,
  input  logic [511:0] mem_rdata_i,

  // Card memory, writes only: the block exponents of a transfer to the card that has them.
  output logic         exp_req_o,
  output logic [63:0]  exp_be_o,
  output logic [31:0]  exp_addr_o,
  output logic [511:0] exp_wdata_o,

  // Host memory: lines, requests taken while host_ready_i, answered in order.
  output logic         host_req_o,
  output logic         host_we_o,
  output logic [63:0]  host_be_o,
  output logic [63:0]  host_addr_o,
  output logic [511:0] host_wdata_o,
  input  logic         host_ready_i,
  input  logic         host_rvalid_i,
  input  logic [511:0] host_rdata_i
);

  localparam int unsigned AddrBits  = $clog2(DMA_CHANNEL_BYTES);
  localparam int unsigned Depth     = DMA_QUEUE_DEPTH;
  localparam int unsigned PtrBits   = $clog2(Depth);
  localparam int unsigned CountBits = $clog2(Depth + 1);
  localparam int unsigned OutBits   = $clog2(MaxOutstanding + 1);
  localparam int unsigned LineBits  = 26;  // the lines of a 32-bit card offset

  typedef enum logic [3:0] {
    IDLE,
    LINES_TO_CARD,    // whole lines to the card: the line reads asked for
    LINES_TO_HOST,    // whole lines to the host: the line writes sent
    HOST_READ,        // word/byte path to the card: ask host memory for the next word
    HOST_READ_WAIT,   // its answer, written to card memory as it comes
    CARD_READ,        // word/byte path to the host: read card memory
    CARD_READ_WAIT,   // its word, sent as a host write when the port takes it
    HOST_WRITE_WAIT,  // the write's acknowledgement
    DECODE_CHECK,     // to the host, decoded: its exponents checked (quire_card_dma_decode)
    DECODE_REFUSED,   // one of them bad: the transfer finishes once those before it have
    LINES_DECODE      // its lines sent as they are decoded
  } state_e;

  // A posted transfer: the registers as they were at its START.
  typedef struct packed {
    logic [63:0] host;
    logic [31:0] card;
    logic [31:0] len;
    logic [31:0] epoch;
    logic [31:0] exp;
    logic [31:0] decode;   // the DECODE register
    logic        to_card;  // DIR is QUIRE_DMA_TO_CARD or QUIRE_DMA_TO_CARD_EXPS
    logic        to_host;  // DIR is QUIRE_DMA_TO_HOST
    logic        exps;     // DIR is QUIRE_DMA_TO_CARD_EXPS
    logic        decodes;  // DIR is QUIRE_DMA_TO_HOST_DECODE, on a channel that decodes
  } xfer_t;

  // A whole-line transfer in flight: where its answers go and when it is finished.
  typedef struct packed {
    logic                to_host;
    logic                exps;
    logic [31:0]         exp;
    logic [LineBits-1:0] card_line;
    logic [LineBits-1:0] lines;
    logic [5:0]          first_off;
    logic [5:0]          last_off;
    logic [31:0]         len;
  } flight_t;

  function automatic logic [PtrBits-1:0] next_ptr(logic [PtrBits-1:0] p);
    return p == PtrBits'(Depth - 1) ? '0 : p + 1'b1;
  endfunction

  // The bytes of line k of a transfer of n lines inside it.
  function automatic logic [63:0] line_be(logic [LineBits-1:0] k, logic [LineBits-1:0] n,
                                          logic [5:0] first, logic [5:0] last);
    logic [63:0] be;
    be = 64'hffff_ffff_ffff_ffff;
    if (k == '0)     be = be & ~((64'd1 << first) - 64'd1);
    if (k == n - 1'b1) be = be & (last == 6'd63 ? 64'hffff_ffff_ffff_ffff : (64'd1 << (last + 6'd1)) - 64'd1);
    return be;
  endfunction

  // ---- the registers the firmware writes, and the counts it reads
  logic [AddrBits-1:0] reg_at;
  assign reg_at = {addr_i[AddrBits-1:2], 2'b00};

  logic [63:0]          host_q;
  logic [31:0]          card_q, len_q, dir_q, epoch_q, exp_q, decode_q;
  logic [31:0]          status_q, done_count_q, failed_count_q, failed_status_q, bytes_done_q;
  logic                 ctrl_done_q;
  logic [CountBits-1:0] queued_q;  // posted and not finished

  logic write, start_write, refuse_busy, post;
  assign write       = req_i && we_i;
  assign start_write = write && reg_at == AddrBits'(DMA_CTRL) && (wdata_i & DMA_START) != 32'd0;
  assign refuse_busy = start_write && queued_q == CountBits'(Depth);
  assign post        = start_write && !refuse_busy;
  assign busy_o      = queued_q != '0 || start_write;

  // ---- the queue of posted transfers; a START into an empty queue is its head at once.
  // Its entries (and flight_q's) are plain vectors of the struct's width: Yosys 0.23 makes
  // an unpacked array of a struct type one register, and takes $bits of a signal only.
  xfer_t                regs_xfer, head;
  logic [$bits(head)-1:0] posted_q [Depth];
  logic [PtrBits-1:0]   post_wr_q, post_rd_q;
  logic [CountBits-1:0] post_count_q;
  logic                 have_head;
  always_comb begin : head_of_queue
    regs_xfer.host    = host_q;
    regs_xfer.card    = card_q;
    regs_xfer.len     = len_q;
    regs_xfer.epoch   = epoch_q;
    regs_xfer.exp     = exp_q;
    regs_xfer.decode  = decode_q;
    regs_xfer.to_card = dir_q == DMA_TO_CARD || dir_q == DMA_TO_CARD_EXPS;
    regs_xfer.to_host = dir_q == DMA_TO_HOST;
    regs_xfer.exps    = dir_q == DMA_TO_CARD_EXPS;
    regs_xfer.decodes = Decode && dir_q == DMA_TO_HOST_DECODE;
    head              = post_count_q != '0 ? posted_q[post_rd_q] : regs_xfer;
  end
  assign have_head = post_count_q != '0 || post;

  // ---- the head's checks, against the epoch and window of the cycle it begins in
  logic [63:0] window_offset, head_len, head_card, head_end;
  assign window_offset = head.host - host_win_base_i;
  assign head_len      = {32'd0, head.len};
  assign head_card     = {32'd0, head.card};
  assign head_end      = head.host + head_len - 64'd1;

  // A decoding transfer's card range is its values': LEN / 4 of VAL_FORMAT (0 bytes for a
  // format it cannot decode, refused INVALID below).
  logic [7:0]  dec_fmt, dec_vf;
  logic [63:0] head_card_len;
  logic        dec_pair_ok, dec_bfp;
  assign dec_fmt = head.decode[7:0];
  assign dec_vf  = head.decode[15:8];
  assign dec_bfp = dec_fmt == 8'(QUIRE_FMT_BFP8) || dec_fmt == 8'(QUIRE_FMT_BFP16);
  assign dec_pair_ok = (dec_bfp && (dec_vf == 8'(QUIRE_FMT_INT8) || dec_vf == 8'(QUIRE_FMT_INT16) ||
                                    dec_vf == 8'(QUIRE_FMT_INT32))) ||
                       (dec_fmt == 8'(QUIRE_FMT_FP16) && dec_vf == 8'(QUIRE_FMT_FP16));
  always_comb begin : card_length
    head_card_len = head_len;
    if (head.decodes) begin
      unique case (dec_vf)
        8'(QUIRE_FMT_INT8):                      head_card_len = head_len >> 2;
        8'(QUIRE_FMT_INT16), 8'(QUIRE_FMT_FP16): head_card_len = head_len >> 1;
        8'(QUIRE_FMT_INT32):                     head_card_len = head_len;
        default:                                 head_card_len = 64'd0;
      endcase
    end
  end

  logic card_ok, host_ok, exps_whole, exp_ok;
  logic [63:0] head_exp, head_blocks;
  assign card_ok = head_card <= MemBytes && head_card_len <= MemBytes - head_card;
  assign head_exp    = {32'd0, head.exp};
  assign head_blocks = (head_len + 64'd255) >> 8;  // a block: 64 fp32, 256 bytes
  assign exps_whole  = head.host[5:0] == 6'd0 && head.card[5:0] == 6'd0 && head.len[1:0] == 2'd0;
  assign exp_ok      = head_exp <= MemBytes && head_blocks <= MemBytes - head_exp;
  assign host_ok = host_win_size_i != 64'd0 && head.host >= host_win_base_i &&
                   window_offset <= host_win_size_i && head_len <= host_win_size_i - window_offset;

  logic [31:0] head_status;
  always_comb begin : checks
    if (head.epoch != queue_epoch_i) begin
      head_status = ERR_PEER;  // the host of its command has gone or reset the queues
    end else if (!host_ok || !card_ok) begin
      head_status = ERR_RANGE;
    end else if (!head.to_card && !head.to_host && !head.decodes) begin
      head_status = ERR_INVALID;
    end else if ((head.exps || head.decodes) && !exps_whole) begin
      head_status = ERR_INVALID;
    end else if (head.decodes && !dec_pair_ok) begin
      head_status = ERR_INVALID;
    end else if ((head.exps || (head.decodes && dec_bfp)) && !exp_ok) begin
      head_status = ERR_RANGE;
    end else begin
      head_status = OK;
    end
  end

  logic                head_empty, head_whole;
  logic [LineBits-1:0] head_lines;
  assign head_empty = head_status != OK || head.len == 32'd0;  // moves nothing
  assign head_whole = head.host[5:0] == head.card[5:0];
  assign head_lines = LineBits'(head_end[63:6] - head.host[63:6]) + 1'b1;

  // ---- the transfers in flight on the whole-line path, oldest first
  flight_t              flight;  // the oldest: the next answer is its
  logic [$bits(flight)-1:0] flight_q [Depth];
  logic [PtrBits-1:0]   flight_wr_q, flight_rd_q;
  logic [CountBits-1:0] flight_count_q, to_card_flying_q;
  logic [LineBits-1:0]  got_q;   // its answers so far
  logic                 answer, last_answer, finish_answer, exps_done;
  assign flight        = flight_q[flight_rd_q];
  assign answer        = host_rvalid_i && flight_count_q != '0;
  assign last_answer   = answer && got_q == flight.lines - 1'b1;
  // a transfer with exponents finishes once its last one is written (below)
  assign finish_answer = flight.exps ? exps_done : last_answer;

  // ---- a decoding transfer (Decode): quire_card_dma_decode reads card memory and checks its
  // exponents (DECODE_CHECK), then makes its lines (LINES_DECODE); it enters the flight FIFO
  // once they are found valid, or finishes refused (RANGE) having moved nothing, after the
  // transfers before it (DECODE_REFUSED).
  logic         dec_start, dec_checked, dec_exps_ok, dec_go, dec_refused, dec_free;
  // The next decoding transfer, begun while this one's lines still go (the same DECODE
  // word, every beat of this one in the decoder): where its lines go, and its check.
  logic         next_q, next_ok_q, next_bad_q, next_checked, next_go;
  logic [63:0]  next_host_q;
  logic [LineBits-1:0] next_lines_q;
  logic [5:0]   next_last_q;
  logic [31:0]  next_len_q, dec_word_q;
  logic         dec_mem_req, dec_out_valid, dec_out_ready;
  logic [31:0]  dec_mem_addr, dec_len_q;
  logic [511:0] dec_line;
  assign next_checked = next_q && dec_checked;
  assign next_go      = next_checked && dec_exps_ok;
  assign dec_go       = (state_q == DECODE_CHECK && dec_checked && dec_exps_ok) || next_go;
  assign dec_refused = flight_count_q == '0 && (state_q == DECODE_REFUSED ||
                                               (state_q == DECODE_CHECK && dec_checked &&
                                                !dec_exps_ok));

  // ---- the issue side: the lines of the transfer being asked for (line k is host line
  // (host >> 6) + k and card line (card >> 6) + k), or the word/byte path's cursors
  state_e              state_q;
  logic [63:0]         host_cur_q;
  logic [31:0]         card_cur_q, left_q, word_len_q;
  logic [LineBits-1:0] sent_q, lines_q;
  logic [5:0]          first_off_q, last_off_q;
  logic                have_q;  // to the host: the card line of sent_q is in mem_rdata_i
  logic [OutBits-1:0]  out_q;   // requests of the whole-line path not answered

  logic line_ask, line_take, last_take;
  assign line_ask  = out_q != OutBits'(MaxOutstanding) &&
                     (state_q == LINES_TO_CARD || (state_q == LINES_TO_HOST && have_q) ||
                      (state_q == LINES_DECODE && dec_out_valid));
  assign line_take = line_ask && host_ready_i;
  assign last_take = line_take && sent_q == lines_q - 1'b1;

  // Which transfer begins: a whole-line one (or a decoding one) as soon as the issue side
  // is free (a transfer to the host once no transfer to the card is in flight), the others
  // once nothing is. A transfer with exponents in flight is the only one (it begins when
  // nothing is).
  logic drained, pop, pop_lines, pop_word, pop_decode, exps_flying, early;
  assign drained     = state_q == IDLE && flight_count_q == '0;
  assign exps_flying = flight_count_q != '0 && flight.exps;
  always_comb begin : begins
    pop = 1'b0;
    if (have_head && !hold_i) begin
      if (head_empty || !head_whole || head.exps) begin
        pop = drained;
      end else begin
        pop = ((state_q == IDLE || last_take) && !exps_flying && !next_q &&
               !((head.to_host || head.decodes) && to_card_flying_q != '0)) || early;
      end
    end
  end
  // A decoding transfer behind one whose lines still go, with its DECODE word: begun early,
  // so that the decoder and the mean fill with its beats while the last lines before go out.
  assign early = state_q == LINES_DECODE && !last_take && !next_q && head.decodes &&
                 head.decode == dec_word_q && dec_free;
  assign pop_lines  = pop && !head_empty && head_whole && !head.decodes;
  assign pop_decode = pop && !head_empty && head.decodes;
  assign dec_start  = pop_decode;
  assign pop_word  = pop && !head_empty && !head_whole;

  // The queue's storage: a START is stored unless it begins in its own cycle.
  logic store, unstore;
  assign store   = post && (!pop || post_count_q != '0);
  assign unstore = pop && post_count_q != '0;

  // ---- the word/byte path's step: a word where both cursors are aligned and 4 bytes are
  // left, else a byte
  logic        word_step;
  logic [31:0] step_bytes;
  assign word_step  = host_cur_q[1:0] == 2'd0 && card_cur_q[1:0] == 2'd0 && left_q >= 32'd4;
  assign step_bytes = word_step ? 32'd4 : 32'd1;

  logic [31:0] host_word, card_word;
  logic [7:0]  host_byte, card_byte;
  logic [3:0]  host_word_be, card_word_be;
  assign host_word    = host_rdata_i[32*host_cur_q[5:2] +: 32];
  assign card_word    = mem_rdata_i[32*card_cur_q[5:2] +: 32];
  assign host_byte    = host_word[8*host_cur_q[1:0] +: 8];
  assign card_byte    = card_word[8*card_cur_q[1:0] +: 8];
  assign host_word_be = word_step ? 4'hf : 4'b0001 << host_cur_q[1:0];
  assign card_word_be = word_step ? 4'hf : 4'b0001 << card_cur_q[1:0];

  logic step_done, finish_word;
  assign step_done   = (state_q == HOST_READ_WAIT || state_q == HOST_WRITE_WAIT) && host_rvalid_i;
  assign finish_word = step_done && left_q == step_bytes;

  // ---- what finishes in this cycle (one at most: a refused or empty transfer and the
  // word/byte path begin only when nothing is in flight)
  logic                 finish;
  logic [31:0]          finish_status, finish_bytes;
  logic [CountBits-1:0] queued_next;
  assign finish        = finish_answer || finish_word || (pop && head_empty) || dec_refused;
  assign finish_status = finish_answer || finish_word ? OK : dec_refused ? ERR_RANGE : head_status;
  assign finish_bytes  = finish_answer ? flight.len : finish_word ? word_len_q : 32'd0;
  assign queued_next   = queued_q + CountBits'(post) - CountBits'(finish);

  always_comb begin : ports
    mem_req_o    = 1'b0;
    mem_we_o     = 1'b0;
    mem_be_o     = 64'd0;
    mem_addr_o   = {card_cur_q[31:6], 6'd0};
    mem_wdata_o  = {16{word_step ? host_word : {4{host_byte}}}};
    host_req_o   = 1'b0;
    host_we_o    = 1'b0;
    host_be_o    = 64'(host_word_be) << {host_cur_q[5:2], 2'b00};
    host_addr_o  = {host_cur_q[63:6], 6'd0};
    host_wdata_o = {16{word_step ? card_word : {4{card_byte}}}};
    unique case (state_q)
      HOST_READ: host_req_o = 1'b1;
      HOST_READ_WAIT: begin
        mem_req_o = host_rvalid_i;
        mem_we_o  = 1'b1;
        mem_be_o  = 64'(card_word_be) << {card_cur_q[5:2], 2'b00};
      end
      CARD_READ: mem_req_o = 1'b1;
      CARD_READ_WAIT: begin
        host_req_o = 1'b1;
        host_we_o  = 1'b1;
      end
      LINES_TO_CARD, LINES_TO_HOST, LINES_DECODE: begin
        host_req_o   = line_ask;
        host_we_o    = state_q != LINES_TO_CARD;
        host_addr_o  = {host_cur_q[63:6] + 58'(sent_q), 6'd0};
        host_be_o    = line_be(sent_q, lines_q, first_off_q, last_off_q);
        host_wdata_o = state_q == LINES_DECODE ? dec_line : mem_rdata_i;
        // to the host: the next card line read as this one is taken
        if (state_q == LINES_TO_HOST && line_take && !last_take) begin
          mem_req_o  = 1'b1;
          mem_addr_o = {card_cur_q[31:6] + 26'(sent_q) + 26'd1, 6'd0};
        end
      end
      default: ;
    endcase
    // A transfer to the host beginning: its first card line, read as it is taken. (No
    // transfer to the card is in flight, so no answer below wants the port.)
    if (pop_lines && head.to_host) begin
      mem_req_o  = 1'b1;
      mem_we_o   = 1'b0;
      mem_addr_o = {head.card[31:6], 6'd0};
    end
    // An answer to the card goes to its line as it comes.
    if (answer && !flight.to_host) begin
      mem_req_o   = 1'b1;
      mem_we_o    = 1'b1;
      mem_addr_o  = {flight.card_line + got_q, 6'd0};
      mem_be_o    = line_be(got_q, flight.lines, flight.first_off, flight.last_off);
      mem_wdata_o = host_rdata_i;
    end
    // A decoding transfer's reads: nothing else reads or writes card memory then (it begins
    // with no transfer to the card in flight, and nothing begins until its last line is
    // sent, when its reads are over).
    if (dec_mem_req) begin
      mem_req_o  = dec_mem_req;
      mem_we_o   = 1'b0;
      mem_addr_o = dec_mem_addr;
    end
  end

  assign dec_out_ready = state_q == LINES_DECODE && line_take;

  // The next transfer's place in the flight FIFO comes at its check, in order after this
  // one's (in flight since its own).
  logic [LineBits-1:0] go_lines;
  logic [5:0]          go_last;
  logic [31:0]         go_len;
  assign go_lines = next_q ? next_lines_q : lines_q;
  assign go_last  = next_q ? next_last_q : last_off_q;
  assign go_len   = next_q ? next_len_q : dec_len_q;
  if (Decode) begin : gen_decode
    quire_card_dma_decode u_decode (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .start_i     (dec_start),
      .card_i      (head.card),
      .exp_i       (head.exp),
      .n_i         (head.len >> 2),
      .fmt_i       (head.decode[3:0]),
      .val_fmt_i   (head.decode[11:8]),
      .mean_i      (head.decode[31:16]),
      .checked_o   (dec_checked),
      .exps_ok_o   (dec_exps_ok),
      .free_o      (dec_free),
      .mem_req_o   (dec_mem_req),
      .mem_addr_o  (dec_mem_addr),
      .mem_rdata_i (mem_rdata_i),
      .out_valid_o (dec_out_valid),
      .out_ready_i (dec_out_ready),
      .out_line_o  (dec_line)
    );
  end else begin : gen_no_decode
    logic unused_decode;
    assign unused_decode = ^{dec_start, dec_out_ready};
    assign dec_checked   = 1'b0;
    assign dec_free      = 1'b0;
    assign dec_exps_ok   = 1'b0;
    assign dec_mem_req   = 1'b0;
    assign dec_mem_addr  = 32'd0;
    assign dec_out_valid = 1'b0;
    assign dec_line      = '0;
  end

  // ---- the block exponents of a transfer that has them: its answers' lanes (the last line's
  // up to the transfer's end), 4 lines a block, each block's exponent written at EXP + k
  logic [15:0]         exp_keep;
  logic                exp_out_valid, exp_in_ready;
  logic signed [7:0]   exp_out;
  logic [LineBits-1:0] exp_blk_q;  // blocks of the transfer written so far
  logic [LineBits-1:0] flight_blocks;
  logic [31:0]         exp_at;
  always_comb begin : lanes_kept
    exp_keep = 16'hffff;
    if (got_q == flight.lines - 1'b1) begin
      for (int lane = 0; lane < 16; lane++) begin
        exp_keep[lane] = 6'(4 * lane + 3) <= flight.last_off;
      end
    end
  end
  assign flight_blocks = (flight.lines + LineBits'(3)) >> 2;
  assign exps_done     = exp_out_valid && exp_blk_q == flight_blocks - 1'b1;
  assign exp_at        = flight.exp + 32'(exp_blk_q);

  quire_quant_exp #(.Lanes(16)) u_exp (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .ef_i        (1'b0),
    .in_valid_i  (answer && flight.exps),
    .in_ready_o  (exp_in_ready),
    .in_x_i      (host_rdata_i),
    .in_resid_i  ('0),
    .in_keep_i   (exp_keep),
    .in_last_i   (got_q[1:0] == 2'd3 || last_answer),
    .out_valid_o (exp_out_valid),
    .out_ready_i (1'b1),
    .out_exp_o   (exp_out)
  );

  assign exp_req_o   = exp_out_valid;
  assign exp_addr_o  = {exp_at[31:6], 6'd0};
  assign exp_be_o    = 64'd1 << exp_at[5:0];
  assign exp_wdata_o = {64{exp_out}};

  always_ff @(posedge clk_i or negedge rst_ni) begin : exponents_written
    if (!rst_ni) begin
      exp_blk_q <= '0;
    end else if (exps_done) begin
      exp_blk_q <= '0;
    end else if (exp_out_valid) begin
      exp_blk_q <= exp_blk_q + 1'b1;
    end
  end

  always_comb begin : read
    unique case (reg_at)
      AddrBits'(DMA_HOST_LO):       rdata_o = host_q[31:0];
      AddrBits'(DMA_HOST_HI):       rdata_o = host_q[63:32];
      AddrBits'(DMA_CARD):          rdata_o = card_q;
      AddrBits'(DMA_LEN):           rdata_o = len_q;
      AddrBits'(DMA_DIR):           rdata_o = dir_q;
      AddrBits'(DMA_CTRL):          rdata_o = ctrl_done_q ? DMA_DONE : 32'd0;
      AddrBits'(DMA_STATUS):        rdata_o = status_q;
      AddrBits'(DMA_EPOCH):         rdata_o = epoch_q;
      AddrBits'(DMA_DONE_COUNT):    rdata_o = done_count_q;
      AddrBits'(DMA_FAILED_COUNT):  rdata_o = failed_count_q;
      AddrBits'(DMA_FAILED_STATUS): rdata_o = failed_status_q;
      AddrBits'(DMA_QUEUED):        rdata_o = 32'(queued_q);
      AddrBits'(DMA_BYTES_DONE):    rdata_o = bytes_done_q;
      AddrBits'(DMA_EXP):           rdata_o = exp_q;
      AddrBits'(DMA_DECODE):        rdata_o = decode_q;
      default:                      rdata_o = 32'd0;
    endcase
  end

  // The queues' contents: data only, no reset (what the pointers do not cover is not read).
  always_ff @(posedge clk_i) begin : queues
    if (store) posted_q[post_wr_q] <= regs_xfer;
    if (pop_lines) begin
      // flight_t's fields in their order (Yosys 0.23 reads no assignment pattern)
      flight_q[flight_wr_q] <= {head.to_host, head.exps, head.exp, head.card[31:6],
                                head_lines, head.host[5:0], head_end[5:0], head.len};
    end else if (dec_go) begin  // only answers to count: no card line, no exponents
      flight_q[flight_wr_q] <= {1'b1, 1'b0, 32'd0, 26'd0, go_lines, 6'd0, go_last, go_len};
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : mover
    if (!rst_ni) begin
      host_q           <= 64'd0;
      card_q           <= 32'd0;
      len_q            <= 32'd0;
      dir_q            <= 32'd0;
      epoch_q          <= 32'd0;
      exp_q            <= 32'd0;
      decode_q         <= 32'd0;
      dec_len_q        <= 32'd0;
      dec_word_q       <= 32'd0;
      next_q           <= 1'b0;
      next_ok_q        <= 1'b0;
      next_bad_q       <= 1'b0;
      next_host_q      <= 64'd0;
      next_lines_q     <= '0;
      next_last_q      <= 6'd0;
      next_len_q       <= 32'd0;
      status_q         <= 32'd0;
      done_count_q     <= 32'd0;
      failed_count_q   <= 32'd0;
      failed_status_q  <= OK;
      bytes_done_q     <= 32'd0;
      ctrl_done_q      <= 1'b0;
      queued_q         <= '0;
      post_wr_q        <= '0;
      post_rd_q        <= '0;
      post_count_q     <= '0;
      flight_wr_q      <= '0;
      flight_rd_q      <= '0;
      flight_count_q   <= '0;
      to_card_flying_q <= '0;
      got_q            <= '0;
      state_q          <= IDLE;
      host_cur_q       <= 64'd0;
      card_cur_q       <= 32'd0;
      left_q           <= 32'd0;
      word_len_q       <= 32'd0;
      sent_q           <= '0;
      lines_q          <= '0;
      first_off_q      <= 6'd0;
      last_off_q       <= 6'd0;
      have_q           <= 1'b0;
      out_q            <= '0;
    end else begin
      if (write) begin
        unique case (reg_at)
          AddrBits'(DMA_HOST_LO): host_q[31:0]  <= wdata_i;
          AddrBits'(DMA_HOST_HI): host_q[63:32] <= wdata_i;
          AddrBits'(DMA_CARD):    card_q        <= wdata_i;
          AddrBits'(DMA_LEN):     len_q         <= wdata_i;
          AddrBits'(DMA_DIR):     dir_q         <= wdata_i;
          AddrBits'(DMA_EPOCH):   epoch_q       <= wdata_i;
          AddrBits'(DMA_EXP):     exp_q         <= wdata_i;
          AddrBits'(DMA_DECODE):  decode_q      <= wdata_i;
          default: ;  // CTRL (START is taken above) and the read-only ones
        endcase
      end

      // The queue of posted transfers, and the count of those not finished.
      if (store)    post_wr_q <= next_ptr(post_wr_q);
      if (unstore)  post_rd_q <= next_ptr(post_rd_q);
      post_count_q <= post_count_q + CountBits'(store) - CountBits'(unstore);
      queued_q     <= queued_next;

      // The counts, the status of the last finished, CTRL.
      done_count_q   <= done_count_q + 32'(finish) + 32'(refuse_busy);
      failed_count_q <= failed_count_q + 32'(finish && finish_status != OK) + 32'(refuse_busy);
      bytes_done_q   <= bytes_done_q + finish_bytes;
      if (refuse_busy) begin
        status_q        <= ERR_BUSY;
        failed_status_q <= ERR_BUSY;
      end else if (finish) begin
        status_q <= finish_status;
        if (finish_status != OK) failed_status_q <= finish_status;
      end
      if (start_write || finish) ctrl_done_q <= queued_next == '0;

      // The transfers in flight: one enters as it begins, the oldest leaves on its last answer.
      if (pop_lines || dec_go) flight_wr_q <= next_ptr(flight_wr_q);
      if (finish_answer)       flight_rd_q <= next_ptr(flight_rd_q);
      flight_count_q   <= flight_count_q + CountBits'(pop_lines || dec_go)
                                         - CountBits'(finish_answer);
      to_card_flying_q <= to_card_flying_q + CountBits'(pop_lines && head.to_card)
                                           - CountBits'(finish_answer && !flight.to_host);
      if (finish_answer)  got_q <= '0;
      else if (answer)    got_q <= got_q + 1'b1;
      out_q <= out_q + OutBits'(line_take) - OutBits'(answer);

      // The issue side.
      unique case (state_q)
        HOST_READ:      if (host_ready_i) state_q <= HOST_READ_WAIT;
        CARD_READ:      state_q <= CARD_READ_WAIT;
        CARD_READ_WAIT: if (host_ready_i) state_q <= HOST_WRITE_WAIT;
        DECODE_CHECK: begin
          if (dec_go)      state_q <= LINES_DECODE;
          else if (dec_refused) state_q <= IDLE;
          else if (dec_checked) state_q <= DECODE_REFUSED;
        end
        DECODE_REFUSED: if (dec_refused) state_q <= IDLE;
        LINES_TO_CARD, LINES_TO_HOST, LINES_DECODE: begin
          if (line_take) sent_q <= sent_q + 1'b1;
          // this decoding transfer's last line sent: on to the next one begun early, as
          // its check says (passed, refused, or not yet known: DECODE_CHECK)
          if (state_q == LINES_DECODE && last_take && next_q) begin
            host_cur_q  <= next_host_q;
            dec_len_q   <= next_len_q;
            sent_q      <= '0;
            lines_q     <= next_lines_q;
            last_off_q  <= next_last_q;
            next_q      <= 1'b0;
            next_ok_q   <= 1'b0;
            next_bad_q  <= 1'b0;
          end
          if (state_q == LINES_TO_HOST) begin
            if (line_take && !last_take) have_q <= 1'b1;  // the next line, read above
            else if (line_take)          have_q <= 1'b0;
          end
          if (last_take) begin
            if (state_q == LINES_DECODE && next_q)
              state_q <= next_ok_q || next_go ? LINES_DECODE
                       : next_bad_q || next_checked ? DECODE_REFUSED : DECODE_CHECK;
            else
              state_q <= IDLE;
          end
        end
        default: ;
      endcase
      if (step_done) begin
        host_cur_q <= host_cur_q + {32'd0, step_bytes};
        card_cur_q <= card_cur_q + step_bytes;
        left_q     <= left_q - step_bytes;
        if (finish_word) state_q <= IDLE;
        else             state_q <= state_q == HOST_READ_WAIT ? HOST_READ : CARD_READ;
      end
      if (pop_lines || pop_word) begin
        host_cur_q  <= head.host;
        card_cur_q  <= head.card;
        left_q      <= head.len;
        word_len_q  <= head.len;
        sent_q      <= '0;
        lines_q     <= head_lines;
        first_off_q <= head.host[5:0];
        last_off_q  <= head_end[5:0];
        have_q      <= head.to_host;  // its first card line, read above
        if (pop_lines) state_q <= head.to_card ? LINES_TO_CARD : LINES_TO_HOST;
        else           state_q <= head.to_card ? HOST_READ : CARD_READ;
      end
      if (next_checked && !(state_q == LINES_DECODE && last_take)) begin
        next_ok_q  <= dec_exps_ok;
        next_bad_q <= !dec_exps_ok;
      end
      if (pop_decode && early) begin
        next_q       <= 1'b1;
        next_host_q  <= head.host;
        next_lines_q <= head_lines;
        next_last_q  <= head_end[5:0];
        next_len_q   <= head.len;
      end else if (pop_decode) begin
        dec_word_q  <= head.decode;
        host_cur_q  <= head.host;
        dec_len_q   <= head.len;
        sent_q      <= '0;
        lines_q     <= head_lines;
        first_off_q <= 6'd0;  // HOST is on a line
        last_off_q  <= head_end[5:0];
        have_q      <= 1'b0;
        state_q     <= DECODE_CHECK;
      end
    end
  end

  logic unused_bits;
  assign unused_bits = ^{addr_i[1:0], exp_in_ready};

endmodule
