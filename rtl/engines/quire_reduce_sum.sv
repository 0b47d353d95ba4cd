// SPDX-License-Identifier: MIT
//
// REDUCE integer sum (quire_reduce_sum in hls/reduce.c, INT formats): the
// exact sum of W workers' vectors, plus an optional accumulator input (a
// partial sum from the ring), stored in the accumulator format (INT16, INT32
// or INT64) and saturated there, with the overflow reported, never wrapped.
//
// Beats are 512 bits: 64 INT8, 32 INT16, 16 INT32 or 8 INT64 lanes. The W
// beats of one chunk of elements arrive one after the other, worker 0 first
// (in_first_i) to worker W - 1 (in_last_i); in_acc_i (sign-extended lanes) is
// read with the first beat when acc_in_i is set. The chunk's sums leave as
// sign-extended lanes of out_acc_o; out_overflow_o says some lane whose
// in_keep_i bit (read with the last beat) is set did not fit. Sums are
// carried in 64 bits as the golden model does: a sum that leaves int64 sticks
// at the int64 limit of that first wrap, and counts as an overflow.
//
// Pipeline: unpack, accumulate (one beat a cycle, the loop-carried add),
// saturate: out_valid_o 3 cycles after a chunk's last beat. The whole
// pipeline holds while a result waits at the output.
module quire_reduce_sum
  import quire_format_pkg::*;
#(
  parameter int unsigned Lanes = 64
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic [3:0]             in_fmt_i,      // QUIRE_FMT_INT8, _INT16, _INT32 or _INT64
  input  logic [3:0]             acc_fmt_i,     // QUIRE_FMT_INT16, _INT32 or _INT64
  input  logic                   acc_in_i,      // add in_acc_i first (QUIRE_REDUCE_F_ACC_IN)
  input  logic                   in_valid_i,
  output logic                   in_ready_o,
  input  logic [Lanes*8-1:0]     in_beat_i,
  input  logic                   in_first_i,
  input  logic                   in_last_i,
  input  logic [Lanes-1:0]       in_keep_i,
  input  logic [Lanes-1:0][63:0] in_acc_i,
  output logic                   out_valid_o,
  input  logic                   out_ready_i,
  output logic [Lanes-1:0][63:0] out_acc_o,
  output logic                   out_overflow_o
);

  localparam logic signed [63:0] Int64Max = 64'sh7fffffffffffffff;
  localparam logic signed [63:0] Int64Min = 64'sh8000000000000000;

  logic advance;
  assign advance = !out_valid_o || out_ready_i;
  assign in_ready_o = advance;

  // Stage 1: the beat's lanes, sign-extended to 64 bits; lanes the format lacks are 0.
  logic                   s1_valid, s1_first, s1_last;
  logic [Lanes-1:0]       s1_keep;
  logic [Lanes-1:0][63:0] s1_vals, s1_acc;
  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_unpack
    if (!rst_ni) begin
      s1_valid <= 1'b0;
      s1_first <= 1'b0;
      s1_last <= 1'b0;
      s1_keep <= '0;
      s1_vals <= '0;
      s1_acc <= '0;
    end else if (advance) begin
      s1_valid <= in_valid_i;
      s1_first <= in_first_i;
      s1_last <= in_last_i;
      s1_keep <= in_keep_i;
      s1_acc <= in_acc_i;
      for (int lane = 0; lane < Lanes; lane++) begin
        if (in_fmt_i == 4'(QUIRE_FMT_INT8)) begin
          s1_vals[lane] <= 64'(signed'(in_beat_i[8*lane +: 8]));
        end else if (in_fmt_i == 4'(QUIRE_FMT_INT16) && lane < Lanes / 2) begin
          s1_vals[lane] <= 64'(signed'(in_beat_i[16*lane +: 16]));
        end else if (in_fmt_i == 4'(QUIRE_FMT_INT32) && lane < Lanes / 4) begin
          s1_vals[lane] <= 64'(signed'(in_beat_i[32*lane +: 32]));
        end else if (in_fmt_i == 4'(QUIRE_FMT_INT64) && lane < Lanes / 8) begin
          s1_vals[lane] <= in_beat_i[64*lane +: 64];
        end else begin
          s1_vals[lane] <= 64'd0;
        end
      end
    end
  end

  // Stage 2: the running sum per lane, exact in 64 bits, with int64's wrap made sticky.
  logic [Lanes-1:0][63:0] sum_q;
  logic [Lanes-1:0]       wrapped_q;
  logic                   s2_done;
  logic [Lanes-1:0]       s2_keep;
  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_accumulate
    if (!rst_ni) begin
      sum_q <= '0;
      wrapped_q <= '0;
      s2_done <= 1'b0;
      s2_keep <= '0;
    end else if (advance) begin
      s2_done <= s1_valid && s1_last;
      s2_keep <= s1_keep;
      if (s1_valid) begin
        for (int lane = 0; lane < Lanes; lane++) begin
          logic signed [63:0] start, value;
          logic signed [64:0] wide;
          logic               wrapped_before;
          start = s1_first ? (acc_in_i ? s1_acc[lane] : 64'sd0) : sum_q[lane];
          wrapped_before = !s1_first && wrapped_q[lane];
          value = s1_vals[lane];
          wide = 65'(start) + 65'(value);
          if (wide[64] != wide[63]) begin
            wrapped_q[lane] <= 1'b1;
            sum_q[lane] <= value > 0 ? Int64Max : Int64Min;
          end else begin
            wrapped_q[lane] <= wrapped_before;
            sum_q[lane] <= wrapped_before ? start : wide[63:0];
          end
        end
      end
    end
  end

  // Stage 3: saturate the finished sums to the accumulator format.
  logic signed [63:0] acc_max, acc_min;
  always_comb begin : acc_limits
    if (acc_fmt_i == 4'(QUIRE_FMT_INT16)) begin
      acc_max = 64'sd32767;
      acc_min = -64'sd32768;
    end else if (acc_fmt_i == 4'(QUIRE_FMT_INT32)) begin
      acc_max = 64'sd2147483647;
      acc_min = -64'sd2147483648;
    end else begin
      acc_max = Int64Max;
      acc_min = Int64Min;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_saturate
    if (!rst_ni) begin
      out_valid_o <= 1'b0;
      out_acc_o <= '0;
      out_overflow_o <= 1'b0;
    end else if (advance) begin
      out_valid_o <= s2_done;
      if (s2_done) begin
        logic overflow;
        overflow = 1'b0;
        for (int lane = 0; lane < Lanes; lane++) begin
          logic signed [63:0] sum;
          sum = sum_q[lane];
          if (sum > acc_max) begin
            out_acc_o[lane] <= acc_max;
          end else if (sum < acc_min) begin
            out_acc_o[lane] <= acc_min;
          end else begin
            out_acc_o[lane] <= sum;
          end
          if (s2_keep[lane] && (wrapped_q[lane] || sum > acc_max || sum < acc_min)) begin
            overflow = 1'b1;
          end
        end
        out_overflow_o <= overflow;
      end
    end
  end

endmodule
