// SPDX-License-Identifier: MIT
// The REDUCE engine as the firmware drives it (firmware/engines.c): the
// register window of include/quire/card.h (CTRL start/done/idle, RETURN, one
// 64-bit register per argument, QUIRE_REDUCE_ARG_*; docs/registers/engine-window.md),
// the argument checks of quire_reduce_top (hls/reduce.c, the golden model) in
// their order, with the same statuses, and a mover that streams card memory through
// the datapaths of rtl/engines/ a 512-bit beat at a time:
//   SUM (integer formats): for each chunk of one beat of input elements (64
//     int8, 32 int16, 16 int32 or 8 int64), the accumulator input (with
//     QUIRE_REDUCE_F_ACC_IN), then the W workers' beats, worker 0 first, at
//     in + (k * stride + i) elements -> quire_reduce_sum -> the chunk's sums in
//     the accumulator format (INT16, INT32, INT64), written at acc_out;
//     QUIRE_ERR_OVERFLOW when any sum saturated (every sum still written);
//   SUM (fp16 / fp32 inputs): the same chunks of 32 fp16 or 16 fp32 elements
//     -> quire_reduce_fp_sum, the fixed-order fp32 sums, stored as fp32 or
//     fp16 (the accumulator input read in that format too);
//   MAX_EXP: the same over int8 block exponents -> quire_reduce_max_exp.
// The register window is quire_card_engine_regs and card memory is reached
// through quire_card_line_mover (a line, 64 bytes, a cycle; a read at any byte
// address takes its line and the next, a write its line and, when it crosses,
// the next); a chunk's sums (up to 512 bytes) are written 64 bytes at a time.
// Where every buffer is line-aligned (and the workers a whole number of lines apart)
// and the sums overwrite no input but their own accumulator input, the chunks stream:
// a line read a cycle on the read port (a chunk's accumulator lines, then its W
// input beats, each fed to the datapath as it comes), and the chunks' sums queued
// and written a line a cycle on the write port while the next chunks are read.
// Elsewhere one beat at a time (read, compute, write).
// The cycles reported (ENGINES record, CYCLES) are the cycles from START
// to DONE.
module quire_card_reduce
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

  // Card memory's engine write port: a line a cycle, byte enables (the stream's sums).
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
  logic                             start;
  logic [ENGINE_MAX_ARGS-1:0][63:0] args_q;
  logic                             idle, finish;
  logic [31:0]                      status_q;

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

  // ---- the arguments, as run_reduce reads them
  logic [31:0] op, in_fmt, acc_fmt, w, n, stride, flags;
  logic [63:0] a_in, a_acc_in, a_out;
  assign op       = args_q[REDUCE_ARG_OP][31:0];
  assign in_fmt   = args_q[REDUCE_ARG_IN_FMT][31:0];
  assign acc_fmt  = args_q[REDUCE_ARG_ACC_FMT][31:0];
  assign w        = args_q[REDUCE_ARG_W][31:0];
  assign n        = args_q[REDUCE_ARG_N][31:0];
  assign stride   = args_q[REDUCE_ARG_STRIDE][31:0];
  assign flags    = args_q[REDUCE_ARG_FLAGS][31:0];
  assign a_in     = args_q[REDUCE_ARG_IN];
  assign a_acc_in = args_q[REDUCE_ARG_ACC_IN];
  assign a_out    = args_q[REDUCE_ARG_ACC_OUT];

  // quire_format_elem_bytes (contract/validate.c)
  function automatic logic [63:0] fw_format_bytes(logic [31:0] f);
    case (f)
      QUIRE_FMT_INT64:                                    return 64'd8;
      QUIRE_FMT_FP32, QUIRE_FMT_INT32:                    return 64'd4;
      QUIRE_FMT_FP16, QUIRE_FMT_BFP16, QUIRE_FMT_INT16:   return 64'd2;
      QUIRE_FMT_BFP8, QUIRE_FMT_INT8:                     return 64'd1;
      default:                                            return 64'd0;
    endcase
  endfunction

  // [off, off + bytes) inside card memory (alignment 1 here).
  function automatic logic in_mem(logic [63:0] off, logic [63:0] bytes);
    return !(off > MemBytes || bytes > MemBytes - off);
  endfunction

  logic        is_sum, is_max, acc_in, in_int, in_fp, acc_int, acc_fp, in_bfp;
  logic [63:0] in_b, acc_b, w64, n64, stride64;
  assign is_sum   = op == REDUCE_OP_SUM;
  assign is_max   = op == REDUCE_OP_MAX_EXP;
  logic  sum_int;  // an integer SUM (quire_reduce_sum), else an fp one (quire_reduce_fp_sum)
  assign sum_int  = is_sum && !in_fp;
  assign acc_in   = (flags & REDUCE_F_ACC_IN) != 0;
  assign in_b     = is_sum ? fw_format_bytes(in_fmt) : 64'd1;
  assign acc_b    = is_sum ? fw_format_bytes(acc_fmt) : 64'd1;
  assign w64      = {32'd0, w};
  assign n64      = {32'd0, n};
  assign stride64 = {32'd0, stride};
  assign in_int   = in_fmt == QUIRE_FMT_INT8 || in_fmt == QUIRE_FMT_INT16 ||
                    in_fmt == QUIRE_FMT_INT32 || in_fmt == QUIRE_FMT_INT64;
  assign in_fp    = in_fmt == QUIRE_FMT_FP16 || in_fmt == QUIRE_FMT_FP32;
  assign in_bfp   = in_fmt == QUIRE_FMT_BFP8 || in_fmt == QUIRE_FMT_BFP16;
  assign acc_int  = acc_fmt == QUIRE_FMT_INT16 || acc_fmt == QUIRE_FMT_INT32 ||
                    acc_fmt == QUIRE_FMT_INT64;
  assign acc_fp   = acc_fmt == QUIRE_FMT_FP16 || acc_fmt == QUIRE_FMT_FP32;

  // The status before any data moves: run_reduce, then quire_reduce_top / quire_reduce_sum.
  logic [31:0] check_status;
  always_comb begin : check
    check_status = OK;
    if (in_b == 64'd0 || acc_b == 64'd0 || w64 < 64'd1 || w64 > 64'(CMD_MAX_WORKERS))
      check_status = ERR_FORMAT;
    else if (!in_mem(a_in, ((w64 - 64'd1) * stride64 + n64) * in_b))      check_status = ERR_RANGE;
    else if (acc_in && !in_mem(a_acc_in, n64 * acc_b))                     check_status = ERR_RANGE;
    else if (!in_mem(a_out, n64 * acc_b))                                  check_status = ERR_RANGE;
    else if (!is_sum && !is_max)                                           check_status = ERR_OPCODE;
    // quire_reduce_format_bytes has no bfp formats
    else if (is_sum && (in_bfp || acc_fmt == QUIRE_FMT_BFP8 || acc_fmt == QUIRE_FMT_BFP16))
      check_status = ERR_FORMAT;
    else if (w64 > 64'd1 && stride64 < n64)                                check_status = ERR_SIZE;
    else if (is_sum && in_fp && !acc_fp)                                   check_status = ERR_FORMAT;
    else if (is_sum && !in_fp && !acc_int)                                 check_status = ERR_FORMAT;
  end

  // log2 of the element sizes (1, 2, 4, 8 bytes), and a beat's elements.
  function automatic logic [1:0] size_log2(logic [63:0] bytes);
    case (bytes)
      64'd8:   return 2'd3;
      64'd4:   return 2'd2;
      64'd2:   return 2'd1;
      default: return 2'd0;
    endcase
  endfunction

  logic [1:0]  in_sh, acc_sh;
  logic [31:0] per_beat;
  assign in_sh    = size_log2(in_b);
  assign acc_sh   = size_log2(acc_b);
  assign per_beat = 32'd64 >> in_sh;

  // ---- the mover
  typedef enum logic [3:0] {
    S_IDLE, S_CHECK, S_CHUNK, S_ACC_RD, S_ACC_GOT, S_IN_RD, S_FEED, S_WAIT, S_OUT, S_OUT_NEXT,
    S_DONE, S_RD, S_WR, S_STREAM
  } state_e;

  state_e       state_q, ret_state_q;
  logic [31:0]  i0_q, k_q, in_off_q;
  logic [2:0]   piece_q;
  logic         overflow_q;
  logic [31:0]  rd_addr_q, wr_addr_q;
  logic [6:0]   wr_bytes_q;
  logic [511:0] rd_buf_q, wr_data_q;
  logic [4095:0] acc_raw_q, out_buf_q;

  logic [31:0] left, lanes, total, piece_off;
  assign left      = n - i0_q;
  assign lanes     = left > per_beat ? per_beat : left;
  assign total     = lanes << acc_sh;       // bytes of the chunk's sums (and of its acc_in)
  assign piece_off = {23'd0, piece_q, 6'd0};

  // The lanes of a chunk starting at element i (all of a beat but in the last chunk).
  function automatic logic [63:0] keep_of(logic [31:0] i, logic [31:0] n_, logic [31:0] pb);
    logic [31:0] l;
    l = n_ - i > pb ? pb : n_ - i;
    return l >= 32'd64 ? {64{1'b1}} : (64'd1 << l) - 64'd1;
  endfunction

  logic        streaming;
  logic        f_valid_q, f_first_q, f_last_q;
  logic [31:0] f_i0_q;
  logic [63:0] keep;
  assign streaming = state_q == S_STREAM;
  assign keep = keep_of(streaming ? f_i0_q : i0_q, n, per_beat);

  // The accumulator input's lanes, sign-extended from the accumulator format.
  logic [63:0][63:0] acc_lanes;
  always_comb begin : unpack_acc
    for (int unsigned j = 0; j < 64; j++) begin
      unique case (acc_sh)
        2'd1:    acc_lanes[j] = 64'(signed'(acc_raw_q[16*j +: 16]));
        2'd2:    acc_lanes[j] = 64'(signed'(acc_raw_q[32*j +: 32]));
        2'd3:    acc_lanes[j] = acc_raw_q[64*j +: 64];
        default: acc_lanes[j] = 64'(signed'(acc_raw_q[8*j +: 8]));
      endcase
    end
  end

  // The datapaths.
  logic              sum_in_valid, sum_in_ready, sum_out_valid, sum_overflow;
  logic [63:0][63:0] sum_out;
  logic              max_in_valid, max_in_ready, max_out_valid;
  logic [63:0][7:0]  max_out;
  logic              first, last;
  logic         feeding;
  logic [511:0] in_beat;
  assign feeding      = streaming ? f_valid_q : state_q == S_FEED;
  assign in_beat      = streaming ? mem_rdata_i : rd_buf_q;
  assign first        = streaming ? f_first_q : k_q == 32'd0;
  assign last         = streaming ? f_last_q : k_q == w - 32'd1;
  assign sum_in_valid = feeding && sum_int;
  assign max_in_valid = feeding && is_max;

  quire_reduce_sum u_sum (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .in_fmt_i       (in_fmt[3:0]),
    .acc_fmt_i      (acc_fmt[3:0]),
    .acc_in_i       (acc_in),
    .in_valid_i     (sum_in_valid),
    .in_ready_o     (sum_in_ready),
    .in_beat_i      (in_beat),
    .in_first_i     (first),
    .in_last_i      (last),
    .in_keep_i      (keep),
    .in_acc_i       (acc_lanes),
    .out_valid_o    (sum_out_valid),
    .out_ready_i    (1'b1),
    .out_acc_o      (sum_out),
    .out_overflow_o (sum_overflow)
  );

  quire_reduce_max_exp u_max (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .acc_in_i    (acc_in),
    .in_valid_i  (max_in_valid),
    .in_ready_o  (max_in_ready),
    .in_exps_i   (in_beat),
    .in_first_i  (first),
    .in_last_i   (last),
    .in_acc_i    (acc_raw_q[511:0]),
    .out_valid_o (max_out_valid),
    .out_ready_i (1'b1),
    .out_exps_o  (max_out)
  );

  // The fp16 / fp32 sums (fp inputs: 16 or 32 lanes a beat, sums of 2 or 4 bytes).
  logic             fp_in_valid, fp_in_ready, fp_out_valid;
  logic [1023:0]    fp_out;
  assign fp_in_valid = feeding && is_sum && in_fp;

  quire_reduce_fp_sum u_fp_sum (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_fmt_i    (in_fmt[3:0]),
    .acc_fmt_i   (acc_fmt[3:0]),
    .acc_in_i    (acc_in),
    .in_valid_i  (fp_in_valid),
    .in_ready_o  (fp_in_ready),
    .in_beat_i   (in_beat),
    .in_first_i  (first),
    .in_last_i   (last),
    .in_acc_i    (acc_raw_q[1023:0]),
    .out_valid_o (fp_out_valid),
    .out_ready_i (1'b1),
    .out_acc_o   (fp_out)
  );

  logic fed;
  assign fed = is_max ? max_in_ready : in_fp ? fp_in_ready : sum_in_ready;

  // A chunk's results packed as memory holds them.
  logic [4095:0] packed_out;
  always_comb begin : pack_out
    packed_out = '0;
    if (is_max) begin
      packed_out[511:0] = max_out;
    end else if (in_fp) begin
      packed_out[1023:0] = fp_out;
    end else begin
      for (int unsigned j = 0; j < 64; j++) begin
        unique case (acc_sh)
          2'd1:    packed_out[16*j +: 16] = sum_out[j][15:0];
          2'd2:    packed_out[32*j +: 32] = sum_out[j][31:0];
          2'd3:    packed_out[64*j +: 64] = sum_out[j];
          default: packed_out[8*j +: 8]   = sum_out[j][7:0];
        endcase
      end
    end
  end

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

  // ---- the stream: chunk c's reads (its accumulator lines, then worker 0 to W - 1) go
  // out a line a cycle; an input line is fed to the datapath in the cycle it comes; each
  // chunk's sums go to a queue of OutDepth chunks, written a line a cycle. A chunk starts
  // only when the queue has room for its sums (credits), so the datapaths never wait.
  localparam int unsigned OutDepth = 4;

  function automatic logic apart(logic [63:0] a, logic [63:0] alen, logic [63:0] b,
                                 logic [63:0] blen);
    return alen == 64'd0 || blen == 64'd0 || a + alen <= b || b + blen <= a;
  endfunction

  logic        stream_ok;
  logic [63:0] in_len, acc_len;
  assign in_len  = ((w64 - 64'd1) * stride64 + n64) * in_b;
  assign acc_len = n64 * acc_b;
  assign stream_ok = ((per_beat << acc_sh) & 32'd63) == 32'd0 && a_in[5:0] == 6'd0 && (w == 32'd1 || (stride64 * in_b) % 64'd64 == 64'd0) &&
                     (!acc_in || a_acc_in[5:0] == 6'd0) && a_out[5:0] == 6'd0 &&
                     apart(a_out, acc_len, a_in, in_len) &&
                     (!acc_in || a_out == a_acc_in || apart(a_out, acc_len, a_acc_in, acc_len));

  // The read side: chunk si0_q, step sstep_q (accumulator pieces, then workers).
  logic [31:0] si0_q, sk_q, s_in_off_q, s_total;
  logic [2:0]  spiece_q;
  logic        s_in_acc_q;      // the chunk is reading its accumulator input
  logic        s_active, s_last_read, s_chunk_start;
  logic [2:0]  res_q, res_next;
  logic        rk_acc_q;
  logic [2:0]  rk_piece_q;
  logic [LineBits-1:0] s_line;
  assign s_total  = (n - si0_q > per_beat ? per_beat : n - si0_q) << acc_sh;
  assign s_chunk_start = s_in_acc_q ? spiece_q == 3'd0 : !acc_in && sk_q == 32'd0;
  assign s_active = streaming && si0_q < n && (!s_chunk_start || res_q != 3'(OutDepth));
  assign s_last_read = !s_in_acc_q && sk_q == w - 32'd1;
  assign s_line   = s_in_acc_q ? LineBits'(32'(a_acc_in[31:6]) + ((si0_q << acc_sh) >> 6) + 32'(spiece_q))
                               : LineBits'(32'(a_in[31:6]) + (s_in_off_q >> 6));
  assign mem_req_o  = streaming ? s_active : mv_req;
  assign mem_we_o   = !streaming && mv_we;
  assign mem_be_o   = streaming ? 64'd0 : mv_be;
  assign mem_line_o = streaming ? s_line : mv_line;

  // The write side: OutDepth chunks' sums, the oldest written a line a cycle.
  logic [4095:0]       oq_data [OutDepth];
  logic [31:0]         oq_i0   [OutDepth];
  logic [1:0]          oq_wp_q, oq_rp_q;
  logic [2:0]          oq_cnt_q, dpiece_q;
  logic [31:0]         o_i0_q, d_total, d_off;
  logic                out_event, drain, drain_last;
  assign out_event  = streaming && (sum_out_valid || max_out_valid || fp_out_valid);
  assign d_total    = (n - oq_i0[oq_rp_q] > per_beat ? per_beat : n - oq_i0[oq_rp_q]) << acc_sh;
  assign d_off      = {23'd0, dpiece_q, 6'd0};
  assign drain      = oq_cnt_q != 3'd0;
  assign drain_last = drain && d_off + 32'd64 >= d_total;
  assign wr_req_o   = drain;
  assign wr_line_o  = LineBits'(32'(a_out[31:6]) + ((oq_i0[oq_rp_q] << acc_sh) >> 6) + 32'(dpiece_q));
  assign wr_be_o    = d_total - d_off >= 32'd64 ? 64'hffff_ffff_ffff_ffff
                                                : (64'd1 << 6'(d_total - d_off)) - 64'd1;
  assign wr_wdata_o = oq_data[oq_rp_q][512*dpiece_q +: 512];

  always_comb begin : credits
    res_next = res_q;
    if (s_active && s_chunk_start) res_next = res_next + 3'd1;
    if (drain_last)                res_next = res_next - 3'd1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : stream
    if (!rst_ni) begin
      si0_q      <= 32'd0;
      sk_q       <= 32'd0;
      s_in_off_q <= 32'd0;
      spiece_q   <= 3'd0;
      s_in_acc_q <= 1'b0;
      res_q      <= 3'd0;
      rk_acc_q   <= 1'b0;
      rk_piece_q <= 3'd0;
      f_valid_q  <= 1'b0;
      f_first_q  <= 1'b0;
      f_last_q   <= 1'b0;
      f_i0_q     <= 32'd0;
      oq_wp_q    <= 2'd0;
      oq_rp_q    <= 2'd0;
      oq_cnt_q   <= 3'd0;
      dpiece_q   <= 3'd0;
      o_i0_q     <= 32'd0;
    end else if (!streaming) begin
      si0_q      <= 32'd0;
      sk_q       <= 32'd0;
      s_in_off_q <= 32'd0;
      spiece_q   <= 3'd0;
      s_in_acc_q <= acc_in;
      res_q      <= 3'd0;
      rk_acc_q   <= 1'b0;
      f_valid_q  <= 1'b0;
      oq_wp_q    <= 2'd0;
      oq_rp_q    <= 2'd0;
      oq_cnt_q   <= 3'd0;
      dpiece_q   <= 3'd0;
      o_i0_q     <= 32'd0;
    end else begin
      // the read of this cycle, and where the next one goes
      rk_acc_q   <= s_active && s_in_acc_q;
      rk_piece_q <= spiece_q;
      f_valid_q  <= s_active && !s_in_acc_q;
      f_first_q  <= sk_q == 32'd0;
      f_last_q   <= s_last_read;
      f_i0_q     <= si0_q;
      if (s_active) begin
        if (s_in_acc_q) begin
          if (32'({spiece_q, 6'd0}) + 32'd64 >= s_total) begin
            spiece_q   <= 3'd0;
            s_in_acc_q <= 1'b0;
          end else begin
            spiece_q <= spiece_q + 3'd1;
          end
        end else if (s_last_read) begin
          si0_q      <= si0_q + per_beat;
          sk_q       <= 32'd0;
          s_in_off_q <= (si0_q + per_beat) << in_sh;
          s_in_acc_q <= acc_in;
        end else begin
          sk_q       <= sk_q + 32'd1;
          s_in_off_q <= s_in_off_q + (stride << in_sh);
        end
      end
      res_q <= res_next;
      if (out_event) begin
        oq_data[oq_wp_q] <= packed_out;
        oq_i0[oq_wp_q]   <= o_i0_q;
        o_i0_q           <= o_i0_q + per_beat;
      end
      if (drain) dpiece_q <= drain_last ? 3'd0 : dpiece_q + 3'd1;
      oq_wp_q  <= oq_wp_q + 2'(out_event);
      oq_rp_q  <= oq_rp_q + 2'(drain_last);
      oq_cnt_q <= oq_cnt_q + 3'(out_event) - 3'(drain_last);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : regs
    if (!rst_ni) begin
      state_q     <= S_IDLE;
      ret_state_q <= S_IDLE;
      status_q    <= 32'd0;
      i0_q        <= 32'd0;
      k_q         <= 32'd0;
      in_off_q    <= 32'd0;
      piece_q     <= 3'd0;
      overflow_q  <= 1'b0;
      rd_addr_q   <= 32'd0;
      wr_addr_q   <= 32'd0;
      wr_bytes_q  <= 7'd0;
      wr_data_q   <= '0;
      acc_raw_q   <= '0;
      out_buf_q   <= '0;
    end else begin
      unique case (state_q)
        S_IDLE: if (start) begin
          i0_q       <= 32'd0;
          overflow_q <= 1'b0;
          state_q    <= S_CHECK;
        end
        S_CHECK: begin
          status_q <= check_status;
          state_q  <= check_status != OK ? S_DONE : stream_ok ? S_STREAM : S_CHUNK;
        end
        S_CHUNK: begin
          piece_q  <= 3'd0;
          k_q      <= 32'd0;
          in_off_q <= i0_q << in_sh;
          if (i0_q >= n) begin
            if (overflow_q) status_q <= ERR_OVERFLOW;
            state_q <= S_DONE;
          end else begin
            state_q <= acc_in ? S_ACC_RD : S_IN_RD;
          end
        end
        S_ACC_RD: begin
          rd_addr_q   <= a_acc_in[31:0] + (i0_q << acc_sh) + piece_off;
          ret_state_q <= S_ACC_GOT;
          state_q     <= S_RD;
        end
        S_ACC_GOT: begin
          acc_raw_q[512*piece_q +: 512] <= rd_buf_q;
          if (piece_off + 32'd64 < total) begin
            piece_q <= piece_q + 3'd1;
            state_q <= S_ACC_RD;
          end else begin
            piece_q <= 3'd0;
            state_q <= S_IN_RD;
          end
        end
        S_IN_RD: begin
          rd_addr_q   <= a_in[31:0] + in_off_q;
          ret_state_q <= S_FEED;
          state_q     <= S_RD;
        end
        S_FEED: if (fed) begin
          if (last) begin
            state_q <= S_WAIT;
          end else begin
            k_q      <= k_q + 32'd1;
            in_off_q <= in_off_q + (stride << in_sh);
            state_q  <= S_IN_RD;
          end
        end
        S_WAIT: begin
          if (sum_out_valid || max_out_valid || fp_out_valid) begin
            out_buf_q <= packed_out;
            if (sum_out_valid && sum_overflow) overflow_q <= 1'b1;
            state_q <= S_OUT;
          end
        end
        S_OUT: begin
          wr_addr_q   <= a_out[31:0] + (i0_q << acc_sh) + piece_off;
          wr_data_q   <= out_buf_q[512*piece_q +: 512];
          wr_bytes_q  <= total - piece_off >= 32'd64 ? 7'd64 : 7'(total - piece_off);
          ret_state_q <= S_OUT_NEXT;
          state_q     <= S_WR;
        end
        S_OUT_NEXT: begin
          if (piece_off + 32'd64 < total) begin
            piece_q <= piece_q + 3'd1;
            state_q <= S_OUT;
          end else begin
            i0_q    <= i0_q + per_beat;
            state_q <= S_CHUNK;
          end
        end
        S_STREAM: begin
          if (rk_acc_q) acc_raw_q[512*rk_piece_q +: 512] <= mem_rdata_i;
          if (sum_out_valid && sum_overflow) overflow_q <= 1'b1;
          if (si0_q >= n && res_q == 3'd0) begin
            if (overflow_q) status_q <= ERR_OVERFLOW;
            state_q <= S_DONE;
          end
        end
        S_DONE: state_q <= S_IDLE;
        S_RD, S_WR: if (mv_done) state_q <= ret_state_q;
        default: state_q <= S_IDLE;
      endcase
    end
  end

  logic unused_bits;
  assign unused_bits = ^{a_in[63:32], a_acc_in[63:32], a_out[63:32], in_fmt[31:4],
                         acc_fmt[31:4], in_int};

endmodule
