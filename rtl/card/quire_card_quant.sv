// SPDX-License-Identifier: MIT
// The QUANT engine as the firmware drives it (firmware/engines.c): the
// register window of include/quire/card.h (CTRL start/done/idle, RETURN, one
// 64-bit register per argument, QUIRE_QUANT_ARG_*; docs/registers/engine-window.md),
// the argument checks of quire_quant_top (hls/quant.c, the golden model) in
// their order, with the same statuses, and a mover that streams card memory through the
// datapaths of rtl/engines/ in beats of 16 elements (512 bits):
//   EXPONENTS: x (and resid) -> quire_quant_exp -> one exponent byte a block;
//   ENCODE:    x (and resid), the block's exponent -> quire_quant_encode -> q
//              (16 bytes a beat for bfp8, 32 for bfp16 and fp16), resid;
//              with QUIRE_QUANT_F_EXPS (bfp), the exponents too: streaming, each beat
//              goes to quire_quant_exp and into a block buffer, and leaves the buffer
//              for quire_quant_encode once its block's exponent is out (one read of x);
//              otherwise the exponent pass over every beat, then the encode pass;
//   DECODE:    q, the block's exponent -> quire_quant_decode -> y (64 bytes);
//              fp32 values are copied; with mean_w > 1 each beat then goes
//              through quire_card_mean (y / (float)mean_w, pipelined: a beat a
//              cycle, 54 cycles late).
// Before ENCODE and DECODE of bfp, every block exponent is checked (>= -126,
// else QUIRE_ERR_RANGE with nothing written), as quire_bfp_exponents_valid.
// Where the buffers are line-aligned and no output overlaps an input, the beats
// stream (the section "the stream" below): reads, datapath and writes
// overlapped, a beat a cycle. Otherwise card memory is reached a line (64
// bytes) a cycle through the read port: a read at any byte address takes its
// line and the next, a write its line and, when it crosses, the next, with byte
// enables; a short last beat writes only its elements; one beat at a time.
// EXPONENTS of a format without exponents (the firmware never asks):
// QUIRE_ERR_FORMAT. The cycles reported (ENGINES record, CYCLES) are the
// cycles from START to DONE.
module quire_card_quant
  import quire_card_pkg::*;
  import quire_format_pkg::*;
#(
  parameter logic [63:0] MemBytes = 64'h0800_0000,
  parameter int unsigned LineBits = 21
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  // The register window (an offset in it): read data in the cycle of the request.
  input  logic                req_i,
  input  logic                we_i,
  input  logic [11:0]         addr_i,
  input  logic [31:0]         wdata_i,
  output logic [31:0]         rdata_o,

  // Card memory, a line a cycle, read data a cycle later.
  output logic                mem_req_o,
  output logic                mem_we_o,
  output logic [63:0]         mem_be_o,
  output logic [LineBits-1:0] mem_line_o,
  output logic [511:0]        mem_wdata_o,
  input  logic [511:0]        mem_rdata_i,

  // Card memory's engine write port: a line a cycle, byte enables (the stream's results).
  output logic                wr_req_o,
  output logic [63:0]         wr_be_o,
  output logic [LineBits-1:0] wr_line_o,
  output logic [511:0]        wr_wdata_o,

  // Statistics for the ENGINES record: a pulse at DONE, operations and busy cycles so far.
  output logic                done_o,
  output logic [31:0]         ops_o,
  output logic [31:0]         cycles_o
);

  // ---- the register window (quire_card_engine_regs: CTRL, RETURN, the arguments, the record)
  logic                         start;
  logic [ENGINE_MAX_ARGS-1:0][63:0] args_q;
  logic                         idle, finish;
  logic [31:0]                  status_q;

  quire_card_engine_regs u_regs (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .req_i    (req_i),
    .we_i     (we_i),
    .addr_i   (addr_i),
    .wdata_i  (wdata_i),
    .rdata_o  (rdata_o),
    .idle_i   (idle),
    .finish_i (finish),
    .status_i (status_q),
    .start_o  (start),
    .args_o   (args_q),
    .done_o   (done_o),
    .ops_o    (ops_o),
    .cycles_o (cycles_o)
  );

  // ---- the arguments, as run_quant reads them
  logic [31:0] op, fmt, vf, flags, n, mean_w;
  logic [63:0] a_x, a_resid, a_exp, a_q, a_y;
  assign op      = args_q[QUANT_ARG_OP][31:0];
  assign fmt     = args_q[QUANT_ARG_FMT][31:0];
  assign vf      = args_q[QUANT_ARG_VAL_FMT][31:0];
  assign flags   = args_q[QUANT_ARG_FLAGS][31:0];
  assign n       = args_q[QUANT_ARG_N][31:0];
  assign mean_w  = args_q[QUANT_ARG_MEAN_W][31:0];
  assign a_x     = args_q[QUANT_ARG_X];
  assign a_resid = args_q[QUANT_ARG_RESID];
  assign a_exp   = args_q[QUANT_ARG_EXP];
  assign a_q     = args_q[QUANT_ARG_Q];
  assign a_y     = args_q[QUANT_ARG_Y];

  // quire_format_elem_bytes (contract/validate.c)
  function automatic logic [63:0] format_bytes(logic [31:0] f);
    case (f)
      QUIRE_FMT_INT64:                                    return 64'd8;
      QUIRE_FMT_FP32, QUIRE_FMT_INT32:                    return 64'd4;
      QUIRE_FMT_FP16, QUIRE_FMT_BFP16, QUIRE_FMT_INT16:   return 64'd2;
      QUIRE_FMT_BFP8, QUIRE_FMT_INT8:                     return 64'd1;
      default:                                            return 64'd0;
    endcase
  endfunction

  // [off, off + bytes) inside card memory, off aligned.
  function automatic logic in_mem(logic [63:0] off, logic [63:0] bytes, logic [63:0] align);
    return !(off > MemBytes || bytes > MemBytes - off || (off & (align - 64'd1)) != 64'd0);
  endfunction

  // The pass being run: an ENCODE with QUIRE_QUANT_F_EXPS that cannot stream runs the
  // exponent pass first (exp_first_q), as EXPONENTS.
  logic        is_exp, is_enc, is_dec, bfp, ef, fmt_fp16, fmt_fp32, vf_int, enc_exps, exp_first_q;
  logic [63:0] n64, blocks;
  assign is_exp   = op == QUANT_OP_EXPONENTS || exp_first_q;
  assign is_enc   = op == QUANT_OP_ENCODE && !exp_first_q;
  assign is_dec   = op == QUANT_OP_DECODE;
  assign bfp      = fmt == QUIRE_FMT_BFP8 || fmt == QUIRE_FMT_BFP16;
  assign ef       = (flags & QUANT_F_EF) != 0;
  assign enc_exps = op == QUANT_OP_ENCODE && bfp && (flags & QUANT_F_EXPS) != 0;
  assign fmt_fp16 = fmt == QUIRE_FMT_FP16;
  assign fmt_fp32 = fmt == QUIRE_FMT_FP32;
  assign vf_int   = vf == QUIRE_FMT_INT8 || vf == QUIRE_FMT_INT16 || vf == QUIRE_FMT_INT32;
  assign n64      = {32'd0, n};
  assign blocks   = (n64 + 64'd63) >> 6;

  // The status before any data moves, and whether the exponents are checked first.
  logic [31:0] check_status;
  always_comb begin : check
    check_status = OK;
    if (!is_dec && !in_mem(a_x, 64'd4 * n64, 64'd4))                      check_status = ERR_RANGE;
    else if (!is_dec && ef && !in_mem(a_resid, 64'd4 * n64, 64'd4))       check_status = ERR_RANGE;
    else if (bfp && !in_mem(a_exp, blocks, 64'd1))                        check_status = ERR_RANGE;
    else if (is_enc && !in_mem(a_q, n64 * format_bytes(fmt), 64'd1))      check_status = ERR_RANGE;
    else if (is_dec && (!in_mem(a_q, n64 * format_bytes(vf), 64'd1) ||
                        !in_mem(a_y, 64'd4 * n64, 64'd4)))                check_status = ERR_RANGE;
    else if (is_exp && !bfp)                                              check_status = ERR_FORMAT;
    else if (is_enc && !bfp && !fmt_fp16)                                 check_status = ERR_FORMAT;
    else if (is_dec && fmt_fp16 && vf != QUIRE_FMT_FP16)                  check_status = ERR_FORMAT;
    else if (is_dec && fmt_fp32 && vf != QUIRE_FMT_FP32)                  check_status = ERR_FORMAT;
    else if (is_dec && !fmt_fp16 && !fmt_fp32 && !(bfp && vf_int))        check_status = ERR_FORMAT;
    else if (!is_exp && !is_enc && !is_dec)                               check_status = ERR_OPCODE;
  end

  // ---- the mover
  typedef enum logic [4:0] {
    S_IDLE, S_CHECK, S_VALID, S_VALID_CHK, S_BEAT, S_GOT_A, S_GOT_R, S_NEED_E, S_GOT_E,
    S_FEED, S_WAIT, S_OUT1, S_OUT2, S_NEXT, S_DONE, S_RD, S_WR, S_MEAN, S_MEAN_WAIT, S_STREAM
  } state_e;

  state_e      state_q, ret_state_q;
  logic [31:0] beat_q, vblock_q;           // beat index; exponent-check cursor
  logic [31:0] rd_addr_q, wr_addr_q;
  logic [6:0]  wr_bytes_q;
  logic [511:0] rd_buf_q, a_buf_q, r_buf_q, wr_data_q, o_buf_q, o_resid_q;
  logic signed [7:0] e_q, o_exp_q;

  // The beat the datapaths are fed: the one-beat mover's, or the stream's (two cycles
  // after its reads were asked for).
  logic        streaming, f2_valid_q;
  logic [31:0] f2_beat_q, cur_beat;
  assign streaming = state_q == S_STREAM;
  assign cur_beat  = streaming ? f2_beat_q : beat_q;

  logic [31:0] i0, lanes, left;
  logic [31:0] eb, vb;                     // bytes of a q element (encode), of a value (decode)
  assign i0    = cur_beat << 4;
  assign left  = n - i0;
  assign lanes = left > 32'd16 ? 32'd16 : left;
  assign eb    = 32'(format_bytes(fmt));
  assign vb    = 32'(format_bytes(vf));

  logic block_last;
  assign block_last = cur_beat[1:0] == 2'd3 || left <= 32'd16;

  logic [15:0] keep;
  assign keep = lanes >= 32'd16 ? 16'hffff : 16'((32'd1 << lanes) - 32'd1);

  // The datapaths.
  logic              exp_in_valid, exp_in_ready, exp_out_valid;
  logic signed [7:0] exp_out;
  logic              enc_in_valid, enc_in_ready, enc_out_valid;
  logic [255:0]      enc_q;
  logic [511:0]      enc_resid;
  logic              dec_in_valid, dec_in_ready, dec_out_valid;
  logic [511:0]      dec_y;

  logic              feeding;
  logic signed [7:0] in_exp;
  logic [511:0]      in_vals, ex_line_q;
  logic [9:0]        vals_shift;            // the beat's values in a line of the stream, in bits
  logic [1:0]        lpb_log;               // log2 of a decode stream's beats per value line
  logic [31:0]       f_exp_addr;
  assign feeding    = streaming ? f2_valid_q : state_q == S_FEED;
  assign lpb_log    = vb == 32'd1 ? 2'd2 : vb == 32'd2 ? 2'd1 : 2'd0;
  assign f_exp_addr = a_exp[31:0] + (cur_beat >> 2);
  assign in_exp     = streaming ? $signed(ex_line_q[8 * f_exp_addr[5:0] +: 8]) : e_q;
  assign vals_shift = streaming ? 10'(cur_beat & ((32'd1 << lpb_log) - 32'd1)) * 10'(vb) * 10'd128
                                : 10'd0;
  assign in_vals    = a_buf_q >> vals_shift;
  // The one-pass ENCODE's stream: beats to the exponent datapath as they come, and to the
  // encoder from the block buffer (the stream section below).
  logic              one_pass, bb_feed;
  logic [511:0]      bb_x_head, bb_r_head;
  logic signed [7:0] xf_head;
  assign one_pass     = streaming && enc_exps;
  assign exp_in_valid = feeding && (is_exp || one_pass);
  assign enc_in_valid = one_pass ? bb_feed : feeding && is_enc;
  assign dec_in_valid = feeding && is_dec && !fmt_fp32;

  quire_quant_exp u_exp (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .ef_i        (ef),
    .in_valid_i  (exp_in_valid),
    .in_ready_o  (exp_in_ready),
    .in_x_i      (a_buf_q),
    .in_resid_i  (r_buf_q),
    .in_keep_i   (keep),
    .in_last_i   (block_last),
    .out_valid_o (exp_out_valid),
    .out_ready_i (1'b1),
    .out_exp_o   (exp_out)
  );

  quire_quant_encode u_enc (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .fmt_i       (fmt[3:0]),
    .ef_i        (ef && bfp),
    .in_valid_i  (enc_in_valid),
    .in_ready_o  (enc_in_ready),
    .in_x_i      (one_pass ? bb_x_head : a_buf_q),
    .in_resid_i  (one_pass ? bb_r_head : r_buf_q),
    .in_exp_i    (one_pass ? xf_head : in_exp),
    .out_valid_o (enc_out_valid),
    .out_ready_i (1'b1),
    .out_q_o     (enc_q),
    .out_resid_o (enc_resid)
  );

  quire_quant_decode u_dec (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .fmt_i       (fmt[3:0]),
    .val_fmt_i   (vf[3:0]),
    .in_valid_i  (dec_in_valid),
    .in_ready_o  (dec_in_ready),
    .in_vals_i   (in_vals),
    .in_exp_i    (in_exp),
    .out_valid_o (dec_out_valid),
    .out_ready_i (1'b1),
    .out_y_o     (dec_y)
  );

  // DECODE's mean: a decoded beat divided by (float)mean_w before it is written (in the
  // stream, each decoded beat, or fp32 beat as read, as it comes).
  logic         use_mean, mean_done, mean_in;
  logic [511:0] mean_y, mean_x;
  assign use_mean = is_dec && mean_w > 32'd1;
  assign mean_in  = state_q == S_MEAN ||
                    (state_q == S_STREAM && use_mean && (fmt_fp32 ? f2_valid_q : dec_out_valid));
  assign mean_x   = state_q == S_MEAN ? o_buf_q : fmt_fp32 ? a_buf_q : dec_y;

  quire_card_mean u_mean (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (mean_in),
    .w_i         (mean_w),
    .y_i         (mean_x),
    .out_valid_o (mean_done),
    .y_o         (mean_y)
  );

  logic fed;
  assign fed = is_exp ? exp_in_ready : is_enc ? enc_in_ready : (fmt_fp32 || dec_in_ready);

  // Card memory: a read of 64 bytes at any byte address, a write of up to 64
  // (quire_card_line_mover), while the state is S_RD or S_WR.
  logic                mv_done, mv_req, mv_we;
  logic [63:0]         mv_be;
  logic [LineBits-1:0] mv_line;
  assign idle   = state_q == S_IDLE;
  assign finish = state_q == S_DONE;

  quire_card_line_mover #(.LineBits (LineBits)) u_mover (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .rd_i        (state_q == S_RD),
    .rd_addr_i   (rd_addr_q),
    .wr_i        (state_q == S_WR),
    .wr_addr_i   (wr_addr_q),
    .wr_data_i   (wr_data_q),
    .wr_bytes_i  (wr_bytes_q),
    .done_o      (mv_done),
    .rd_data_o   (rd_buf_q),
    .mem_req_o   (mv_req),
    .mem_we_o    (mv_we),
    .mem_be_o    (mv_be),
    .mem_line_o  (mv_line),
    .mem_wdata_o (mem_wdata_o),
    .mem_rdata_i (mem_rdata_i)
  );

  // ---- the stream: where every buffer is line-aligned and no result overwrites an
  // input, a beat is read, computed and written in step with the next ones. The reads
  // of a beat (its block's exponent line when it changes, its value line, its residual
  // line) go out a line a cycle on the read port, the beat is fed two cycles after its
  // last read, and the datapath's results go to a queue of line writes (q and exponent
  // bytes gathered into whole lines) that the write port drains a line a cycle. A beat
  // starts only when the queue has room for every write it can make (credits), so the
  // datapaths never wait: a beat a cycle where a beat needs one read.
  // Room for every beat in flight through the mean's 54 stages at a beat a cycle.
  localparam int unsigned WrDepth = 64;

  function automatic logic apart(logic [63:0] a, logic [63:0] alen, logic [63:0] b,
                                 logic [63:0] blen);
    return alen == 64'd0 || blen == 64'd0 || a + alen <= b || b + blen <= a;
  endfunction

  logic        ef_enc, rd_resid, stream_ok;
  logic [63:0] x_len, q_len, v_len;
  assign ef_enc   = is_enc && ef && bfp;
  assign rd_resid = !is_dec && ef && (is_exp || bfp);
  assign x_len    = 64'd4 * n64;
  assign q_len    = n64 * format_bytes(fmt);
  assign v_len    = n64 * format_bytes(vf);
  always_comb begin : stream_check
    if (is_exp) begin
      stream_ok = a_x[5:0] == 6'd0 && (!ef || a_resid[5:0] == 6'd0) &&
                  apart(a_exp, blocks, a_x, x_len) && (!ef || apart(a_exp, blocks, a_resid, x_len));
    end else if (is_enc) begin
      stream_ok = a_x[5:0] == 6'd0 && a_q[5:0] == 6'd0 && apart(a_q, q_len, a_x, x_len) &&
                  (!ef_enc || (a_resid[5:0] == 6'd0 && apart(a_q, q_len, a_resid, x_len) &&
                               apart(a_resid, x_len, a_x, x_len))) &&
                  (!bfp || (apart(a_q, q_len, a_exp, blocks) &&
                            (!ef_enc || apart(a_resid, x_len, a_exp, blocks)))) &&
                  (!enc_exps || apart(a_exp, blocks, a_x, x_len));
    end else begin
      stream_ok = a_q[5:0] == 6'd0 && a_y[5:0] == 6'd0 && apart(a_y, x_len, a_q, v_len) &&
                  (!bfp || apart(a_y, x_len, a_exp, blocks));
    end
  end

  // The read side: the beat whose reads go out, which of them have.
  typedef enum logic [1:0] { RD_NONE, RD_EXP, RD_VALS, RD_RESID } rd_kind_e;
  logic [31:0] nbeats, sb_q, s_exp_addr;
  logic [2:0]  sdone_q, sneed, stodo, spick;
  logic        etag_valid_q, s_active, s_rd, s_beat_done, credit_ok;
  logic [25:0] etag_q;
  logic [6:0]  res_q, res_next;
  logic [1:0]  w_beat;                       // the writes a beat can make
  rd_kind_e    rk_q, s_kind;
  logic [LineBits-1:0] s_line;
  logic        f1_valid_q;
  logic [31:0] f1_beat_q;
  assign nbeats     = (n + 32'd15) >> 4;
  assign s_exp_addr = a_exp[31:0] + (sb_q >> 2);
  // A beat's writes: q (a gathered line), its residual line with EF, and in one pass its
  // block's exponent byte (its credit back at once for a beat that ends no block).
  logic [1:0] w_enc;
  assign w_enc      = ef_enc ? 2'd2 : 2'd1;
  assign w_beat     = enc_exps ? w_enc + 2'd1 : w_enc;
  assign credit_ok  = res_q + 7'(w_beat) <= 7'(WrDepth) && (!enc_exps || bb_room);
  always_comb begin : stream_reads
    sneed[0] = bfp && !is_exp && !enc_exps && !(etag_valid_q && etag_q == s_exp_addr[31:6]);
    sneed[1] = is_dec ? (sb_q & ((32'd1 << lpb_log) - 32'd1)) == 32'd0 : 1'b1;
    sneed[2] = rd_resid;
    stodo    = sneed & ~sdone_q;
    spick    = stodo[0] ? 3'b001 : stodo[1] ? 3'b010 : stodo[2] ? 3'b100 : 3'b000;
    s_active = streaming && sb_q < nbeats && (sdone_q != 3'd0 || credit_ok);
    s_rd     = s_active && stodo != 3'd0;
    s_beat_done = s_active && (stodo & ~spick) == 3'd0;
    s_kind   = RD_NONE;
    s_line   = '0;
    if (spick[0]) begin
      s_kind = RD_EXP;
      s_line = s_exp_addr[LineBits+5:6];
    end else if (spick[1]) begin
      s_kind = RD_VALS;
      s_line = is_dec ? LineBits'(32'(a_q[31:6]) + (sb_q >> lpb_log)) : LineBits'(32'(a_x[31:6]) + sb_q);
    end else if (spick[2]) begin
      s_kind = RD_RESID;
      s_line = LineBits'(32'(a_resid[31:6]) + sb_q);
    end
  end

  assign mem_req_o  = streaming ? s_rd : mv_req;
  assign mem_we_o   = !streaming && mv_we;
  assign mem_be_o   = streaming ? 64'd0 : mv_be;
  assign mem_line_o = streaming ? s_line : mv_line;

  // The write side: the results of the datapaths (or an fp32 beat as read), in order.
  logic [31:0] ob_q, o_left, o_lanes, o_last;
  logic [63:0] o_be4;
  logic        out_event;
  logic [1:0]  pushes;
  logic        exp_push, exp_release;        // one pass: a block's exponent out; a beat fed
  logic [31:0] xo_q, xo_byte;                // one pass: exponents written; the next's byte
  logic [31:0] o_byte;                       // q's or the exponent's byte address
  logic [LineBits-1:0] push_line [3];
  logic [63:0]         push_be   [3];
  logic [511:0]        push_data [3];
  logic                wb_keep;              // the gathered line stays for the next result
  logic [63:0]         wb_be_q, wb_be_next, chunk_be;
  logic [511:0]        wb_data_q, wb_data_next, chunk_data;
  logic [LineBits-1:0] fifo_line [WrDepth];
  logic [63:0]         fifo_be   [WrDepth];
  logic [511:0]        fifo_data [WrDepth];
  logic [5:0]          fifo_wp_q, fifo_rp_q;
  logic [6:0]          fifo_cnt_q;
  logic                pop, release_fed;

  assign o_left  = n - (ob_q << 4);
  assign o_lanes = o_left > 32'd16 ? 32'd16 : o_left;
  assign o_be4   = o_lanes >= 32'd16 ? 64'hffff_ffff_ffff_ffff : (64'd1 << (o_lanes << 2)) - 64'd1;
  assign o_last  = is_exp ? 32'(blocks) - 32'd1 : nbeats - 32'd1;
  assign out_event = streaming && (is_exp ? exp_out_valid : is_enc ? enc_out_valid :
                                   use_mean ? mean_done : fmt_fp32 ? f2_valid_q : dec_out_valid);
  assign o_byte  = is_exp ? a_exp[31:0] + ob_q : a_q[31:0] + ob_q * 32'd16 * eb;
  // An exponent pass's beat that ends no block has no result: its credit comes back at once.
  assign release_fed = streaming && f2_valid_q && is_exp && !block_last;
  assign exp_push    = one_pass && exp_out_valid;
  assign exp_release = one_pass && f2_valid_q && !block_last;
  assign xo_byte     = a_exp[31:0] + xo_q;

  always_comb begin : stream_writes
    chunk_be   = '0;
    chunk_data = '0;
    if (is_exp) begin
      chunk_be   = 64'd1 << o_byte[5:0];
      chunk_data = {504'd0, exp_out} << (10'd8 * 10'(o_byte[5:0]));
    end else begin
      chunk_be   = ((64'd1 << 6'(o_lanes * eb)) - 64'd1) << o_byte[5:0];
      if (o_lanes * eb == 32'd64) chunk_be = 64'hffff_ffff_ffff_ffff;
      chunk_data = {256'd0, enc_q} << (10'd8 * 10'(o_byte[5:0]));
    end
    for (int unsigned b = 0; b < 64; b++) begin
      wb_data_next[8*b +: 8] = chunk_be[b] ? chunk_data[8*b +: 8] : wb_data_q[8*b +: 8];
    end
    wb_be_next = wb_be_q | chunk_be;
    wb_keep    = o_byte[5:0] != 6'd63 && !(is_enc && 7'(o_byte[5:0]) + 7'(eb * 32'd16) == 7'd64) &&
                 ob_q != o_last;
    pushes       = 2'd0;
    push_line[0] = LineBits'(o_byte[31:6]);
    push_be[0]   = wb_be_next;
    push_data[0] = wb_data_next;
    push_line[1] = LineBits'(32'(a_resid[31:6]) + ob_q);
    push_be[1]   = o_be4;
    push_data[1] = enc_resid;
    push_line[2] = '0;
    push_be[2]   = '0;
    push_data[2] = '0;
    if (out_event) begin
      if (is_dec) begin
        pushes       = 2'd1;
        push_line[0] = LineBits'(32'(a_y[31:6]) + ob_q);
        push_be[0]   = o_be4;
        push_data[0] = use_mean ? mean_y : fmt_fp32 ? a_buf_q : dec_y;
      end else if (!wb_keep) begin
        pushes = 2'd1;
      end
      if (ef_enc) begin
        if (pushes == 2'd0) begin
          push_line[0] = push_line[1];
          push_be[0]   = push_be[1];
          push_data[0] = push_data[1];
        end
        pushes = pushes + 2'd1;
      end
    end
    if (exp_push) begin  // the exponent byte, a line write of one byte
      push_line[pushes] = LineBits'(xo_byte[31:6]);
      push_be[pushes]   = 64'd1 << xo_byte[5:0];
      push_data[pushes] = {504'd0, exp_out} << (10'd8 * 10'(xo_byte[5:0]));
      pushes            = pushes + 2'd1;
    end
  end

  assign pop        = fifo_cnt_q != 7'd0;
  assign wr_req_o   = pop;
  assign wr_be_o    = fifo_be[fifo_rp_q];
  assign wr_line_o  = fifo_line[fifo_rp_q];
  assign wr_wdata_o = fifo_data[fifo_rp_q];

  always_comb begin : credits
    res_next = res_q;
    if (s_beat_done) res_next = res_next + 7'(w_beat);
    if (pop)         res_next = res_next - 7'd1;
    if (out_event)   res_next = res_next - (enc_exps ? 7'(w_enc) : 7'(w_beat)) + 7'(pushes) -
                                7'(exp_push);
    if (release_fed) res_next = res_next - 7'(w_beat);
    if (exp_release) res_next = res_next - 7'd1;
  end

  // ---- the one-pass ENCODE's block buffer: the beats (x and residual) between their read
  // and the encoder, which takes the head beat once its block's exponent is out (the
  // exponents in order in a small queue). A beat starts only when the buffer will have its
  // place (bb_room), counted from the start of its reads.
  localparam int unsigned BbDepth = 16;  // 4 blocks: one filling while three wait or drain
  localparam int unsigned XfDepth = 8;
  logic [511:0]      bb_x [BbDepth];
  logic [511:0]      bb_r [BbDepth];
  logic [31:0]       bb_beat [BbDepth];
  logic [3:0]        bb_wp_q, bb_rp_q;
  logic [4:0]        bb_used_q, bb_held_q;     // beats started and not fed; beats in the buffer
  logic signed [7:0] xf [XfDepth];
  logic [2:0]        xf_wp_q, xf_rp_q;
  logic [3:0]        xf_cnt_q;
  logic              bb_room, bb_head_last;
  logic [31:0]       bb_head_beat;
  assign bb_room      = bb_used_q < 5'(BbDepth);
  assign bb_x_head    = bb_x[bb_rp_q];
  assign bb_r_head    = bb_r[bb_rp_q];
  assign bb_head_beat = bb_beat[bb_rp_q];
  assign bb_head_last = bb_head_beat[1:0] == 2'd3 || bb_head_beat == nbeats - 32'd1;
  assign xf_head      = xf[xf_rp_q];
  assign bb_feed      = one_pass && bb_held_q != 5'd0 && xf_cnt_q != 4'd0;

  always_ff @(posedge clk_i or negedge rst_ni) begin : block_buffer
    if (!rst_ni) begin
      bb_wp_q   <= 4'd0;
      bb_rp_q   <= 4'd0;
      bb_used_q <= 5'd0;
      bb_held_q <= 5'd0;
      xf_wp_q   <= 3'd0;
      xf_rp_q   <= 3'd0;
      xf_cnt_q  <= 4'd0;
      xo_q      <= 32'd0;
    end else if (!one_pass) begin
      xo_q <= 32'd0;  // a stream ends with its buffers empty, their pointers level
    end else begin
      if (f2_valid_q) begin
        bb_x[bb_wp_q]    <= a_buf_q;
        bb_r[bb_wp_q]    <= r_buf_q;
        bb_beat[bb_wp_q] <= f2_beat_q;
        bb_wp_q          <= bb_wp_q + 4'd1;
      end
      if (bb_feed) bb_rp_q <= bb_rp_q + 4'd1;
      bb_used_q <= bb_used_q + 5'(s_beat_done) - 5'(bb_feed);
      bb_held_q <= bb_held_q + 5'(f2_valid_q) - 5'(bb_feed);
      if (exp_out_valid) begin
        xf[xf_wp_q] <= exp_out;
        xf_wp_q     <= xf_wp_q + 3'd1;
        xo_q        <= xo_q + 32'd1;
      end
      if (bb_feed && bb_head_last) xf_rp_q <= xf_rp_q + 3'd1;
      xf_cnt_q <= xf_cnt_q + 4'(exp_out_valid) - 4'(bb_feed && bb_head_last);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : stream
    if (!rst_ni) begin
      sb_q         <= 32'd0;
      sdone_q      <= 3'd0;
      etag_valid_q <= 1'b0;
      etag_q       <= '0;
      res_q        <= 7'd0;
      rk_q         <= RD_NONE;
      f1_valid_q   <= 1'b0;
      f1_beat_q    <= 32'd0;
      f2_valid_q   <= 1'b0;
      f2_beat_q    <= 32'd0;
      ex_line_q    <= '0;
      ob_q         <= 32'd0;
      wb_be_q      <= 64'd0;
      wb_data_q    <= '0;
      fifo_wp_q    <= 6'd0;
      fifo_rp_q    <= 6'd0;
      fifo_cnt_q   <= 7'd0;
    end else if (state_q == S_IDLE) begin
      sb_q         <= 32'd0;
      sdone_q      <= 3'd0;
      etag_valid_q <= 1'b0;
      res_q        <= 7'd0;
      rk_q         <= RD_NONE;
      f1_valid_q   <= 1'b0;
      f2_valid_q   <= 1'b0;
      ob_q         <= 32'd0;
      wb_be_q      <= 64'd0;
      fifo_wp_q    <= 6'd0;
      fifo_rp_q    <= 6'd0;
      fifo_cnt_q   <= 7'd0;
    end else begin
      rk_q <= s_rd ? s_kind : RD_NONE;
      if (rk_q == RD_EXP) ex_line_q <= mem_rdata_i;
      if (s_rd && s_kind == RD_EXP) begin
        etag_valid_q <= 1'b1;
        etag_q       <= s_exp_addr[31:6];
      end
      if (s_beat_done) begin
        sb_q    <= sb_q + 32'd1;
        sdone_q <= 3'd0;
      end else if (s_rd) begin
        sdone_q <= sdone_q | spick;
      end
      f1_valid_q <= s_beat_done;
      f1_beat_q  <= sb_q;
      f2_valid_q <= f1_valid_q;
      f2_beat_q  <= f1_beat_q;
      res_q      <= res_next;
      if (out_event) begin
        ob_q <= ob_q + 32'd1;
        if (!is_dec) begin
          wb_be_q   <= wb_keep ? wb_be_next : 64'd0;
          wb_data_q <= wb_data_next;
        end
      end
      for (int unsigned k = 0; k < 3; k++) begin
        if (2'(k) < pushes) begin
          fifo_line[fifo_wp_q + 6'(k)] <= push_line[k];
          fifo_be[fifo_wp_q + 6'(k)]   <= push_be[k];
          fifo_data[fifo_wp_q + 6'(k)] <= push_data[k];
        end
      end
      fifo_wp_q  <= fifo_wp_q + 6'(pushes);
      fifo_rp_q  <= fifo_rp_q + 6'(pop);
      fifo_cnt_q <= fifo_cnt_q + 7'(pushes) - 7'(pop);
    end
  end

  // The bytes of the exponent check: a byte below ZERO among the first `count`.
  logic        exps_bad;
  logic [63:0] vleft;
  assign vleft = blocks - {32'd0, vblock_q};
  always_comb begin : exp_check
    exps_bad = 1'b0;
    for (int unsigned j = 0; j < 64; j++) begin
      if (64'(j) < vleft && $signed(rd_buf_q[8*j +: 8]) < 8'(QUIRE_BFP_EXP_ZERO)) exps_bad = 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : regs
    if (!rst_ni) begin
      state_q     <= S_IDLE;
      ret_state_q <= S_IDLE;
      status_q    <= 32'd0;
      beat_q      <= 32'd0;
      vblock_q    <= 32'd0;
      rd_addr_q   <= 32'd0;
      wr_addr_q   <= 32'd0;
      wr_bytes_q  <= 7'd0;
      a_buf_q     <= '0;
      r_buf_q     <= '0;
      wr_data_q   <= '0;
      o_buf_q     <= '0;
      o_resid_q   <= '0;
      e_q         <= 8'sd0;
      o_exp_q     <= 8'sd0;
      exp_first_q <= 1'b0;
    end else begin
      unique case (state_q)
        S_IDLE: if (start) begin
          beat_q      <= 32'd0;
          vblock_q    <= 32'd0;
          exp_first_q <= 1'b0;
          state_q     <= S_CHECK;
        end
        S_CHECK: begin
          status_q <= check_status;
          if (check_status != OK) state_q <= S_DONE;
          else if (enc_exps && stream_ok) state_q <= S_STREAM;  // its exponents are its own
          else if (enc_exps) begin
            exp_first_q <= 1'b1;  // the exponent pass, then the encode pass
            state_q     <= S_BEAT;
          end
          else if (bfp && !is_exp && blocks != 64'd0) state_q <= S_VALID;
          else state_q <= stream_ok ? S_STREAM : S_BEAT;
        end
        S_VALID: begin
          rd_addr_q   <= a_exp[31:0] + vblock_q;
          ret_state_q <= S_VALID_CHK;
          state_q     <= S_RD;
        end
        S_VALID_CHK: begin
          if (exps_bad) begin
            status_q <= ERR_RANGE;
            state_q  <= S_DONE;
          end else if (vleft <= 64'd64) begin
            state_q <= stream_ok ? S_STREAM : S_BEAT;
          end else begin
            vblock_q <= vblock_q + 32'd64;
            state_q  <= S_VALID;
          end
        end
        S_BEAT: begin
          if ((i0 >= n || beat_q[31:28] != 4'd0) && exp_first_q) begin
            exp_first_q <= 1'b0;  // the exponents written: the encode pass, checked as ever
            beat_q      <= 32'd0;
            state_q     <= blocks != 64'd0 ? S_VALID : S_BEAT;
          end else if (i0 >= n || beat_q[31:28] != 4'd0) begin
            state_q <= S_DONE;
          end else begin
            rd_addr_q   <= is_dec ? a_q[31:0] + i0 * vb : a_x[31:0] + (i0 << 2);
            ret_state_q <= S_GOT_A;
            state_q     <= S_RD;
          end
        end
        S_GOT_A: begin
          a_buf_q <= rd_buf_q;
          if (!is_dec && ef && (is_exp || bfp)) begin
            rd_addr_q   <= a_resid[31:0] + (i0 << 2);
            ret_state_q <= S_GOT_R;
            state_q     <= S_RD;
          end else begin
            state_q <= S_NEED_E;
          end
        end
        S_GOT_R: begin
          r_buf_q <= rd_buf_q;
          state_q <= S_NEED_E;
        end
        S_NEED_E: begin
          if (bfp && !is_exp) begin
            rd_addr_q   <= a_exp[31:0] + (beat_q >> 2);
            ret_state_q <= S_GOT_E;
            state_q     <= S_RD;
          end else begin
            state_q <= S_FEED;
          end
        end
        S_GOT_E: begin
          e_q     <= $signed(rd_buf_q[7:0]);
          state_q <= S_FEED;
        end
        S_FEED: if (fed) begin
          if (is_dec && fmt_fp32) begin
            o_buf_q <= a_buf_q;
            state_q <= use_mean ? S_MEAN : S_OUT1;
          end else if (is_exp && !block_last) begin
            state_q <= S_NEXT;
          end else begin
            state_q <= S_WAIT;
          end
        end
        S_WAIT: begin
          if (exp_out_valid) begin
            o_exp_q <= exp_out;
            state_q <= S_OUT1;
          end else if (enc_out_valid) begin
            o_buf_q   <= {256'd0, enc_q};
            o_resid_q <= enc_resid;
            state_q   <= S_OUT1;
          end else if (dec_out_valid) begin
            o_buf_q <= dec_y;
            state_q <= use_mean ? S_MEAN : S_OUT1;
          end
        end
        S_MEAN: state_q <= S_MEAN_WAIT;
        S_MEAN_WAIT: if (mean_done) begin
          o_buf_q <= mean_y;
          state_q <= S_OUT1;
        end
        S_OUT1: begin
          ret_state_q <= S_OUT2;
          state_q     <= S_WR;
          if (is_exp) begin
            wr_addr_q  <= a_exp[31:0] + (beat_q >> 2);
            wr_data_q  <= {504'd0, o_exp_q};
            wr_bytes_q <= 7'd1;
          end else if (is_enc) begin
            wr_addr_q  <= a_q[31:0] + i0 * eb;
            wr_data_q  <= o_buf_q;
            wr_bytes_q <= 7'(lanes * eb);
          end else begin
            wr_addr_q  <= a_y[31:0] + (i0 << 2);
            wr_data_q  <= o_buf_q;
            wr_bytes_q <= 7'(lanes << 2);
          end
        end
        S_OUT2: begin
          if (is_enc && ef && bfp) begin
            wr_addr_q   <= a_resid[31:0] + (i0 << 2);
            wr_data_q   <= o_resid_q;
            wr_bytes_q  <= 7'(lanes << 2);
            ret_state_q <= S_NEXT;
            state_q     <= S_WR;
          end else begin
            state_q <= S_NEXT;
          end
        end
        S_NEXT: begin
          beat_q  <= beat_q + 32'd1;
          state_q <= S_BEAT;
        end
        S_STREAM: begin
          unique case (rk_q)
            RD_VALS:  a_buf_q <= mem_rdata_i;
            RD_RESID: r_buf_q <= mem_rdata_i;
            default: ;
          endcase
          if (sb_q >= nbeats && res_q == 7'd0) state_q <= S_DONE;
        end
        S_DONE: state_q <= S_IDLE;
        S_RD, S_WR: if (mv_done) state_q <= ret_state_q;
        default: state_q <= S_IDLE;
      endcase
    end
  end

  logic unused_bits;
  assign unused_bits = ^{f_exp_addr[31:6], s_exp_addr[5:0], a_x[63:32], a_resid[63:32], a_exp[63:32], a_q[63:32], a_y[63:32],
                         vf[31:4], fmt[31:4], eb, vb};

endmodule
