// SPDX-License-Identifier: MIT
// The REDUCE engine as the firmware drives it (firmware/engines.c): the
// register window of include/quire/card.h (CTRL start/done/idle, RETURN, one
// 64-bit register per argument, QUIRE_REDUCE_ARG_*), the argument checks of
// sim/emu/emu.c run_reduce and quire_reduce_top (hls/reduce.c) in their
// order, with the same statuses, and a mover that streams card memory through
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
// Card memory is reached a line (64 bytes) a cycle through the wide port: a
// read of 64 bytes at any byte address takes its line and the next, a write
// its line and, when it crosses, the next, with byte enables; a chunk's sums
// (up to 512 bytes) are written 64 bytes at a time. One beat at a time (read,
// compute, write), not yet overlapped.
// Where the emu differs: the cycles reported (ENGINES record, CYCLES)
// are the cycles from START to DONE, not the emu's estimate.
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

  // Statistics for the ENGINES record: a pulse at DONE, operations and busy cycles so far.
  output logic                done_o,
  output logic [31:0]         ops_o,
  output logic [31:0]         cycles_o
);

  localparam int unsigned NumArgs = ENGINE_MAX_ARGS;

  // ---- the register window (emu.c hal_read / hal_write of an engine)
  logic [63:0] args_q [NumArgs];
  logic [31:0] ctrl_q, ret_q;
  logic        start;
  logic [11:0] arg_off;
  logic [3:0]  arg_idx;
  logic        arg_hit;
  assign arg_off = addr_i - 12'(ENGINE_ARG0);
  assign arg_idx = 4'(arg_off / 12'(ENGINE_ARG_STEP));
  assign arg_hit = {20'd0, addr_i} >= ENGINE_ARG0 &&
                   {20'd0, addr_i} < ENGINE_ARG0 + ENGINE_ARG_STEP * ENGINE_MAX_ARGS;
  assign start   = req_i && we_i && {20'd0, addr_i} == ENGINE_CTRL && (wdata_i & ENGINE_START) != 0;

  always_comb begin : read_regs
    if ({20'd0, addr_i} == ENGINE_CTRL)        rdata_o = ctrl_q;
    else if ({20'd0, addr_i} == ENGINE_RETURN) rdata_o = ret_q;
    else if (arg_hit)                          rdata_o = addr_i[2] ? args_q[arg_idx][63:32]
                                                                   : args_q[arg_idx][31:0];
    else                                       rdata_o = 32'hffff_ffff;
  end

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

  // quire_fw_format_bytes (firmware/validate.c)
  function automatic logic [63:0] fw_format_bytes(logic [31:0] f);
    case (f)
      QUIRE_FMT_INT64:                                    return 64'd8;
      QUIRE_FMT_FP32, QUIRE_FMT_INT32:                    return 64'd4;
      QUIRE_FMT_FP16, QUIRE_FMT_BFP16, QUIRE_FMT_INT16:   return 64'd2;
      QUIRE_FMT_BFP8, QUIRE_FMT_INT8:                     return 64'd1;
      default:                                            return 64'd0;
    endcase
  endfunction

  // emu.c card_ptr: [off, off + bytes) inside card memory (alignment 1 here).
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
    S_DONE, S_RD0, S_RD1, S_RD2, S_WR0, S_WR1
  } state_e;

  state_e       state_q, ret_state_q;
  logic [31:0]  status_q, cycles_q, ops_q, busy_q;
  logic [31:0]  i0_q, k_q, in_off_q;
  logic [2:0]   piece_q;
  logic         overflow_q;
  logic [31:0]  rd_addr_q, wr_addr_q;
  logic [6:0]   wr_bytes_q;
  logic [511:0] rd_buf_q, lo_q, wr_data_q;
  logic [4095:0] acc_raw_q, out_buf_q;

  logic [31:0] left, lanes, total, piece_off;
  assign left      = n - i0_q;
  assign lanes     = left > per_beat ? per_beat : left;
  assign total     = lanes << acc_sh;       // bytes of the chunk's sums (and of its acc_in)
  assign piece_off = {23'd0, piece_q, 6'd0};

  logic [63:0] keep;
  assign keep = lanes >= 32'd64 ? {64{1'b1}} : (64'd1 << lanes) - 64'd1;

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
  assign first        = k_q == 32'd0;
  assign last         = k_q == w - 32'd1;
  assign sum_in_valid = state_q == S_FEED && sum_int;
  assign max_in_valid = state_q == S_FEED && is_max;

  quire_reduce_sum u_sum (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .in_fmt_i       (in_fmt[3:0]),
    .acc_fmt_i      (acc_fmt[3:0]),
    .acc_in_i       (acc_in),
    .in_valid_i     (sum_in_valid),
    .in_ready_o     (sum_in_ready),
    .in_beat_i      (rd_buf_q),
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
    .in_exps_i   (rd_buf_q),
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
  assign fp_in_valid = state_q == S_FEED && is_sum && in_fp;

  quire_reduce_fp_sum u_fp_sum (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_fmt_i    (in_fmt[3:0]),
    .acc_fmt_i   (acc_fmt[3:0]),
    .acc_in_i    (acc_in),
    .in_valid_i  (fp_in_valid),
    .in_ready_o  (fp_in_ready),
    .in_beat_i   (rd_buf_q),
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

  // A read of 64 bytes at any byte address: its line, then the next.
  logic [5:0]    rd_off, wr_off;
  logic [1023:0] rd_pair, wr_pair;
  logic [127:0]  wr_mask;
  assign rd_off  = rd_addr_q[5:0];
  assign wr_off  = wr_addr_q[5:0];
  assign rd_pair = {mem_rdata_i, lo_q} >> (10'd8 * 10'(rd_off));
  assign wr_pair = {512'd0, wr_data_q} << (10'd8 * 10'(wr_off));
  assign wr_mask = ((128'd1 << wr_bytes_q) - 128'd1) << wr_off;

  always_comb begin : mem_port
    mem_req_o   = 1'b0;
    mem_we_o    = 1'b0;
    mem_be_o    = 64'd0;
    mem_line_o  = rd_addr_q[LineBits+5:6];
    mem_wdata_o = wr_pair[511:0];
    unique case (state_q)
      S_RD0: mem_req_o = 1'b1;
      S_RD1: begin
        mem_req_o  = rd_off != 6'd0;
        mem_line_o = rd_addr_q[LineBits+5:6] + 1'b1;
      end
      S_WR0: begin
        mem_req_o  = 1'b1;
        mem_we_o   = 1'b1;
        mem_be_o   = wr_mask[63:0];
        mem_line_o = wr_addr_q[LineBits+5:6];
      end
      S_WR1: begin
        mem_req_o   = 1'b1;
        mem_we_o    = 1'b1;
        mem_be_o    = wr_mask[127:64];
        mem_line_o  = wr_addr_q[LineBits+5:6] + 1'b1;
        mem_wdata_o = wr_pair[1023:512];
      end
      default: ;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : regs
    if (!rst_ni) begin
      for (int unsigned i = 0; i < NumArgs; i++) args_q[i] <= 64'd0;
      ctrl_q      <= 32'd0;
      ret_q       <= 32'd0;
      state_q     <= S_IDLE;
      ret_state_q <= S_IDLE;
      status_q    <= 32'd0;
      cycles_q    <= 32'd0;
      ops_q       <= 32'd0;
      busy_q      <= 32'd0;
      i0_q        <= 32'd0;
      k_q         <= 32'd0;
      in_off_q    <= 32'd0;
      piece_q     <= 3'd0;
      overflow_q  <= 1'b0;
      rd_addr_q   <= 32'd0;
      wr_addr_q   <= 32'd0;
      wr_bytes_q  <= 7'd0;
      rd_buf_q    <= '0;
      lo_q        <= '0;
      wr_data_q   <= '0;
      acc_raw_q   <= '0;
      out_buf_q   <= '0;
      done_o      <= 1'b0;
    end else begin
      done_o <= 1'b0;
      if (req_i && we_i && arg_hit && state_q == S_IDLE) begin
        if (addr_i[2]) args_q[arg_idx][63:32] <= wdata_i;
        else           args_q[arg_idx][31:0]  <= wdata_i;
      end
      if (state_q != S_IDLE) busy_q <= busy_q + 32'd1;
      unique case (state_q)
        S_IDLE: if (start) begin
          ctrl_q     <= 32'd0;
          busy_q     <= 32'd1;
          i0_q       <= 32'd0;
          overflow_q <= 1'b0;
          state_q    <= S_CHECK;
        end
        S_CHECK: begin
          status_q <= check_status;
          state_q  <= check_status != OK ? S_DONE : S_CHUNK;
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
          state_q     <= S_RD0;
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
          state_q     <= S_RD0;
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
          state_q     <= S_WR0;
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
        S_DONE: begin
          ret_q    <= status_q;
          ctrl_q   <= ENGINE_DONE | ENGINE_IDLE;
          ops_q    <= ops_q + 32'd1;
          cycles_q <= cycles_q + busy_q;
          done_o   <= 1'b1;
          state_q  <= S_IDLE;
        end
        S_RD0: state_q <= S_RD1;
        S_RD1: begin
          lo_q <= mem_rdata_i;
          if (rd_off == 6'd0) begin
            rd_buf_q <= mem_rdata_i;
            state_q  <= ret_state_q;
          end else begin
            state_q <= S_RD2;
          end
        end
        S_RD2: begin
          rd_buf_q <= rd_pair[511:0];
          state_q  <= ret_state_q;
        end
        S_WR0: state_q <= wr_mask[127:64] != 64'd0 ? S_WR1 : ret_state_q;
        S_WR1: state_q <= ret_state_q;
        default: state_q <= S_IDLE;
      endcase
    end
  end

  assign ops_o    = ops_q;
  assign cycles_o = cycles_q;

  logic unused_bits;
  assign unused_bits = ^{arg_off[2:0], rd_pair[1023:512], a_in[63:32], a_acc_in[63:32],
                         a_out[63:32], rd_addr_q[31:LineBits+6], wr_addr_q[31:LineBits+6],
                         in_fmt[31:4], acc_fmt[31:4], in_int};

endmodule
