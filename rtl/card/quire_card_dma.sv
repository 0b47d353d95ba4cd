// SPDX-License-Identifier: MIT
// The DMA mover: host memory <-> card memory (docs/registers/dma.md, registers
// QUIRE_DMA_* of include/quire/card.h). A START runs the page's checks in its order:
// the transfer's epoch against the queue epoch (QUIRE_ERR_PEER), the host
// window and card memory bounds in 64-bit arithmetic (QUIRE_ERR_RANGE), the
// direction (QUIRE_ERR_INVALID). A refused transfer is DONE at once and moves
// nothing; an accepted one reads CTRL 0 until the last byte is written.
//
// Host memory is reached through a port of 64-byte lines, as a PCIe bridge
// offers it: a request (line address, byte enables, write data) is taken in a
// cycle where host_ready_i is high, and every request is answered by rvalid (with
// the line for a read, an acknowledgement for a write) in request order, some
// cycles later; whoever holds host memory (the harness under Verilator, a PCIe
// bridge) decides the latency and the rate. Card memory is a 512-bit port too
// (a line, read data in the next cycle).
//
// Where host and card addresses sit at the same offset in their lines (the
// firmware's transfers of data), a transfer moves whole lines: to the card, up
// to MaxOutstanding line reads in flight, each answer written to card memory as
// it comes; to the host, a card line read a cycle and sent as a host write,
// MaxOutstanding writes unacknowledged at most, DONE once the last is
// acknowledged. The first and last lines carry byte enables. Otherwise a
// transfer moves a word per step where both cursors are aligned and 4 bytes
// are left, a byte otherwise, one request at a time.
// The queue engine (quire_card_queue) shares the port: a START while it holds
// the port (hold_i) waits until it is done, CTRL reading 0 meanwhile, and busy_o
// keeps the engine from starting while the mover has the port or is told to.
// A transfer takes its registers at START (a START that waits takes a copy of them):
// the firmware may write the next transfer's registers while one moves.
module quire_card_dma
  import quire_card_pkg::*;
#(
  parameter logic [63:0] MemBytes       = 64'h0800_0000,
  parameter int unsigned MaxOutstanding = 256
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // Registers (the core's data port).
  input  logic        req_i,
  input  logic        we_i,
  input  logic [4:0]  addr_i,
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

  typedef enum logic [2:0] {
    IDLE,
    HOST_READ,        // to card: ask host memory for the next word
    HOST_READ_WAIT,   // to card: its answer, written to card memory as it comes
    CARD_READ,        // to host: read card memory
    CARD_READ_WAIT,   // to host: its word, sent as a host write when the port takes it
    HOST_WRITE_WAIT,  // to host: the write's acknowledgement
    LINES_TO_CARD,    // whole lines to the card
    LINES_TO_HOST     // whole lines to the host
  } state_e;

  localparam int unsigned Regs = 8;
  localparam logic [2:0] RegHostLo = 3'(DMA_HOST_LO >> 2);
  localparam logic [2:0] RegHostHi = 3'(DMA_HOST_HI >> 2);
  localparam logic [2:0] RegCard   = 3'(DMA_CARD >> 2);
  localparam logic [2:0] RegLen    = 3'(DMA_LEN >> 2);
  localparam logic [2:0] RegDir    = 3'(DMA_DIR >> 2);
  localparam logic [2:0] RegCtrl   = 3'(DMA_CTRL >> 2);
  localparam logic [2:0] RegStatus = 3'(DMA_STATUS >> 2);
  localparam logic [2:0] RegEpoch  = 3'(DMA_EPOCH >> 2);

  logic [Regs-1:0][31:0] regs_q;
  state_e      state_q;
  logic [63:0] host_cur_q;
  logic [31:0] card_cur_q, left_q;
  logic        start_pending_q;  // a START that waits for the queue engine
  logic [Regs-1:0][31:0] snap_q; // its registers as they were at the START
  logic [Regs-1:0][31:0] sregs;  // the registers a START takes
  assign sregs = start_pending_q ? snap_q : regs_q;

  // ---- the checks of a START, from the registers as they are (docs/registers/dma.md)
  logic [63:0] host, len, card, window_offset;
  assign host          = {sregs[RegHostHi], sregs[RegHostLo]};
  assign len           = {32'd0, sregs[RegLen]};
  assign card          = {32'd0, sregs[RegCard]};
  assign window_offset = host - host_win_base_i;

  logic card_ok, host_ok;
  assign card_ok = card <= MemBytes && len <= MemBytes - card;
  assign host_ok = host_win_size_i != 64'd0 && host >= host_win_base_i &&
                   window_offset <= host_win_size_i && len <= host_win_size_i - window_offset;

  logic [31:0] start_status;
  always_comb begin : checks
    if (sregs[RegEpoch] != queue_epoch_i) begin
      start_status = ERR_PEER;  // the host of its command has gone or reset the queues
    end else if (!host_ok || !card_ok) begin
      start_status = ERR_RANGE;
    end else if (sregs[RegDir] != DMA_TO_CARD && sregs[RegDir] != DMA_TO_HOST) begin
      start_status = ERR_INVALID;
    end else begin
      start_status = OK;
    end
  end

  // ---- one step: a word where both cursors are aligned and 4 bytes are left, else a byte
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

  logic start_write, start, step_done;
  assign start_write = req_i && we_i && addr_i[4:2] == RegCtrl &&
                       (wdata_i & DMA_START) != 32'd0 && state_q == IDLE;
  assign start       = (start_write || start_pending_q) && !hold_i;
  assign busy_o      = state_q != IDLE || start_pending_q || start_write;
  assign step_done = (state_q == HOST_READ_WAIT || state_q == HOST_WRITE_WAIT) && host_rvalid_i;

  // The cursors after this step, and whether another step follows it.
  logic [63:0] host_next;
  logic [31:0] card_next;
  logic        more;
  assign host_next = host_cur_q + {32'd0, step_bytes};
  assign card_next = card_cur_q + step_bytes;
  assign more      = left_q != step_bytes;

  // ---- whole lines: line k of the transfer is host line (host >> 6) + k and card line
  // (card >> 6) + k; sent_q lines asked for (to the card) or sent (to the host), got_q
  // answered, out_q in flight.
  localparam int unsigned OutBits = $clog2(MaxOutstanding + 1);
  logic [63:0] host_end;
  logic [25:0] lines;
  logic        same_offset;
  assign host_end    = host + len - 64'd1;
  assign lines       = 26'(host_end[63:6] - host[63:6]) + 26'd1;
  assign same_offset = host[5:0] == card[5:0];

  logic [25:0]        sent_q, got_q;
  logic [OutBits-1:0] out_q;
  logic [5:0]         first_off_q, last_off_q;
  logic [25:0]        lines_q;
  logic               have_q;       // to the host: the card line of sent_q is in mem_rdata_i
  logic               line_ask, line_take;
  assign line_ask  = state_q == LINES_TO_CARD ? sent_q != lines_q && out_q != OutBits'(MaxOutstanding)
                   : state_q == LINES_TO_HOST && have_q && out_q != OutBits'(MaxOutstanding);
  assign line_take = line_ask && host_ready_i;

  // The bytes of line k inside the transfer.
  function automatic logic [63:0] line_be(logic [25:0] k, logic [25:0] n, logic [5:0] first,
                                          logic [5:0] last);
    logic [63:0] be;
    be = 64'hffff_ffff_ffff_ffff;
    if (k == 26'd0)     be = be & ~((64'd1 << first) - 64'd1);
    if (k == n - 26'd1) be = be & (last == 6'd63 ? 64'hffff_ffff_ffff_ffff : (64'd1 << (last + 6'd1)) - 64'd1);
    return be;
  endfunction

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
      LINES_TO_CARD: begin
        host_req_o  = line_ask;
        host_addr_o = {host_cur_q[63:6] + 58'(sent_q), 6'd0};
        host_be_o   = line_be(sent_q, lines_q, first_off_q, last_off_q);
        // an answer goes to its card line as it comes
        mem_req_o   = host_rvalid_i;
        mem_we_o    = 1'b1;
        mem_addr_o  = {card_cur_q[31:6] + 26'(got_q), 6'd0};
        mem_be_o    = line_be(got_q, lines_q, first_off_q, last_off_q);
        mem_wdata_o = host_rdata_i;
      end
      LINES_TO_HOST: begin
        host_req_o   = line_ask;
        host_we_o    = 1'b1;
        host_addr_o  = {host_cur_q[63:6] + 58'(sent_q), 6'd0};
        host_be_o    = line_be(sent_q, lines_q, first_off_q, last_off_q);
        host_wdata_o = mem_rdata_i;
        // the next card line read as this one is taken (or the first, at the start)
        mem_req_o    = (line_take || !have_q) && sent_q + 26'(line_take) != lines_q &&
                       !(have_q && !line_take);
        mem_addr_o   = {card_cur_q[31:6] + 26'(sent_q) + 26'(line_take), 6'd0};
      end
      default: ;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : mover
    if (!rst_ni) begin
      regs_q     <= '0;
      state_q    <= IDLE;
      host_cur_q <= 64'd0;
      card_cur_q <= 32'd0;
      left_q     <= 32'd0;
      start_pending_q <= 1'b0;
      snap_q          <= '0;
      sent_q      <= 26'd0;
      got_q       <= 26'd0;
      out_q       <= '0;
      first_off_q <= 6'd0;
      last_off_q  <= 6'd0;
      lines_q     <= 26'd0;
      have_q      <= 1'b0;
    end else begin
      if (start_write && hold_i) begin
        start_pending_q <= 1'b1;
        snap_q          <= regs_q;
        regs_q[RegCtrl] <= 32'd0;
      end
      if (start) start_pending_q <= 1'b0;
      if (req_i && we_i && addr_i[4:2] != RegCtrl && addr_i[4:2] != RegStatus) begin
        regs_q[addr_i[4:2]] <= wdata_i;
      end
      if (start) begin
        if (start_status != OK || sregs[RegLen] == 32'd0) begin
          regs_q[RegStatus] <= start_status;
          regs_q[RegCtrl]   <= DMA_DONE;
        end else begin
          regs_q[RegCtrl] <= 32'd0;
          host_cur_q      <= host;
          card_cur_q      <= sregs[RegCard];
          left_q          <= sregs[RegLen];
          sent_q          <= 26'd0;
          got_q           <= 26'd0;
          out_q           <= '0;
          have_q          <= 1'b0;
          first_off_q     <= host[5:0];
          last_off_q      <= host_end[5:0];
          lines_q         <= lines;
          if (same_offset) begin
            state_q <= sregs[RegDir] == DMA_TO_CARD ? LINES_TO_CARD : LINES_TO_HOST;
          end else begin
            state_q <= sregs[RegDir] == DMA_TO_CARD ? HOST_READ : CARD_READ;
          end
        end
      end
      unique case (state_q)
        HOST_READ:      if (host_ready_i) state_q <= HOST_READ_WAIT;
        CARD_READ:      state_q <= CARD_READ_WAIT;
        CARD_READ_WAIT: if (host_ready_i) state_q <= HOST_WRITE_WAIT;
        LINES_TO_CARD, LINES_TO_HOST: begin
          if (line_take) sent_q <= sent_q + 26'd1;
          if (host_rvalid_i) got_q <= got_q + 26'd1;
          out_q <= out_q + OutBits'(line_take) - OutBits'(host_rvalid_i);
          if (state_q == LINES_TO_HOST) begin
            if (mem_req_o) have_q <= 1'b1;
            else if (line_take) have_q <= 1'b0;
          end
          if (host_rvalid_i && got_q == lines_q - 26'd1) begin
            state_q           <= IDLE;
            regs_q[RegStatus] <= OK;
            regs_q[RegCtrl]   <= DMA_DONE;
          end
        end
        default: ;
      endcase
      if (step_done) begin
        host_cur_q <= host_next;
        card_cur_q <= card_next;
        left_q     <= left_q - step_bytes;
        if (!more) begin
          state_q           <= IDLE;
          regs_q[RegStatus] <= OK;
          regs_q[RegCtrl]   <= DMA_DONE;
        end else begin
          state_q <= state_q == HOST_READ_WAIT ? HOST_READ : CARD_READ;
        end
      end
    end
  end

  assign rdata_o = regs_q[addr_i[4:2]];

  logic unused_bits;
  assign unused_bits = ^{addr_i[1:0]};

endmodule
