// SPDX-License-Identifier: MIT
//
// REDUCE floating-point sum (quire_reduce_sum in hls/reduce.c, FP16 / FP32
// inputs): per element, s = the accumulator input (or -0.0 without one), then
// s += worker k's element for k = 0 .. W - 1 in that fixed order, each
// addition one fp32 addition rounded to nearest even (quire_fp32_add), and
// any NaN sum replaced by the one quiet NaN QUIRE_NAN_BITS (which NaN two
// NaNs give is the hardware's choice, so the contract names one). The sum
// leaves as fp32 or, for an FP16 accumulator, rounded once to fp16 at the end.
//
// Beats are 512 bits: 16 FP32 or 32 FP16 input lanes. The W beats of a chunk
// arrive worker 0 first (in_first_i) to worker W - 1 (in_last_i); in_acc_i
// holds the chunk's accumulator input as memory has it (32-bit or 16-bit
// lanes, by acc_fmt_i), read with the first beat when acc_in_i is set. The
// sums leave packed the same way in out_acc_o.
//
// Pipeline: unpack (fp16 to fp32), accumulate (one beat a cycle, the
// loop-carried add), pack: out_valid_o 3 cycles after a chunk's last beat.
// The whole pipeline holds while a result waits at the output.
module quire_reduce_fp_sum
  import quire_format_pkg::*;
#(
  parameter int unsigned Lanes = 32  // the lanes of a beat of FP16; FP32 uses the first 16
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic [3:0]             in_fmt_i,   // QUIRE_FMT_FP32 or _FP16
  input  logic [3:0]             acc_fmt_i,  // QUIRE_FMT_FP32 or _FP16
  input  logic                   acc_in_i,   // start from in_acc_i (QUIRE_REDUCE_F_ACC_IN)
  input  logic                   in_valid_i,
  output logic                   in_ready_o,
  input  logic [Lanes*16-1:0]    in_beat_i,
  input  logic                   in_first_i,
  input  logic                   in_last_i,
  input  logic [Lanes*32-1:0]    in_acc_i,
  output logic                   out_valid_o,
  input  logic                   out_ready_i,
  output logic [Lanes*32-1:0]    out_acc_o
);

  localparam logic [31:0] NegZero = 32'h8000_0000;

  logic in_fp16, acc_fp16;
  assign in_fp16  = in_fmt_i == 4'(QUIRE_FMT_FP16);
  assign acc_fp16 = acc_fmt_i == 4'(QUIRE_FMT_FP16);

  logic advance;
  assign advance    = !out_valid_o || out_ready_i;
  assign in_ready_o = advance;

  // Stage 1: the beat's and the accumulator input's lanes as fp32.
  logic [Lanes-1:0][31:0] in_f16, acc_f16;
  for (genvar lane = 0; lane < Lanes; lane++) begin : gen_unpack
    quire_fp16_to_fp32 u_in (
      .h_i (in_beat_i[16*lane +: 16]),
      .y_o (in_f16[lane])
    );
    quire_fp16_to_fp32 u_acc (
      .h_i (in_acc_i[16*lane +: 16]),
      .y_o (acc_f16[lane])
    );
  end

  logic                   s1_valid, s1_first, s1_last;
  logic [Lanes-1:0][31:0] s1_vals, s1_init;
  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_unpack
    if (!rst_ni) begin
      s1_valid <= 1'b0;
      s1_first <= 1'b0;
      s1_last  <= 1'b0;
      s1_vals  <= '0;
      s1_init  <= '0;
    end else if (advance) begin
      s1_valid <= in_valid_i;
      if (in_valid_i) begin
        s1_first <= in_first_i;
        s1_last  <= in_last_i;
        for (int unsigned lane = 0; lane < Lanes; lane++) begin
          if (in_fp16)            s1_vals[lane] <= in_f16[lane];
          else if (lane < Lanes / 2) s1_vals[lane] <= in_beat_i[32*lane +: 32];
          else                    s1_vals[lane] <= 32'd0;
          if (!acc_in_i)          s1_init[lane] <= NegZero;
          else if (acc_fp16)      s1_init[lane] <= acc_f16[lane];
          else                    s1_init[lane] <= in_acc_i[32*lane +: 32];
        end
      end
    end
  end

  // Stage 2: the running sums, one addition a beat.
  logic [Lanes-1:0][31:0] base, added, sums_q;
  for (genvar lane = 0; lane < Lanes; lane++) begin : gen_add
    assign base[lane] = s1_first ? s1_init[lane] : sums_q[lane];
    quire_fp32_add u_add (
      .a_i   (base[lane]),
      .b_i   (s1_vals[lane]),
      .sum_o (added[lane])
    );
  end

  logic s2_done;
  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_accumulate
    if (!rst_ni) begin
      sums_q  <= '0;
      s2_done <= 1'b0;
    end else if (advance) begin
      s2_done <= s1_valid && s1_last;
      if (s1_valid) begin
        for (int unsigned lane = 0; lane < Lanes; lane++) begin
          // A NaN is all ones in the exponent with a fraction that is not 0.
          sums_q[lane] <= (added[lane][30:23] == 8'hff && added[lane][22:0] != 23'd0)
                          ? QUIRE_NAN_BITS : added[lane];
        end
      end
    end
  end

  // Stage 3: the sums in the accumulator format.
  logic [Lanes-1:0][15:0] sums_f16;
  for (genvar lane = 0; lane < Lanes; lane++) begin : gen_pack
    quire_fp16_from_fp32 u_out (
      .x_i (sums_q[lane]),
      .h_o (sums_f16[lane])
    );
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_pack
    if (!rst_ni) begin
      out_valid_o <= 1'b0;
      out_acc_o   <= '0;
    end else if (advance) begin
      out_valid_o <= s2_done;
      if (s2_done) begin
        out_acc_o <= '0;
        for (int unsigned lane = 0; lane < Lanes; lane++) begin
          if (acc_fp16) out_acc_o[16*lane +: 16] <= sums_f16[lane];
          else          out_acc_o[32*lane +: 32] <= sums_q[lane];
        end
      end
    end
  end

endmodule
