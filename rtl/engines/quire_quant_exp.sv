// SPDX-License-Identifier: MIT
//
// QUANT exponent pass (quire_quant_exponents in hls/quant.c): one int8 block
// exponent per 64-element block, from beats of 16 fp32 lanes (512 bits), 4
// beats a block. With error feedback the lanes are v = fp32(x + resid) first.
// The largest |v| bit pattern of a block (sign cleared) orders like the values
// and decides the exponent: >= 0x7f800000 NONFINITE, 0 ZERO, else its biased
// exponent - 126, clamped to [-125, 126] (docs/contract-bfp.md).
//
// A short last block ends with in_last_i on its last beat; lanes whose
// in_keep_i bit is clear are not elements and do not count. Pipeline: add,
// 16-lane maximum, block maximum; one beat a cycle while out_ready_i is high.
// The whole pipeline holds while an exponent waits at the output.
module quire_quant_exp
  import quire_format_pkg::*;
#(
  parameter int unsigned Lanes = 16
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   ef_i,          // error feedback: v = fp32(x + resid)
  input  logic                   in_valid_i,
  output logic                   in_ready_o,
  input  logic [Lanes-1:0][31:0] in_x_i,
  input  logic [Lanes-1:0][31:0] in_resid_i,
  input  logic [Lanes-1:0]       in_keep_i,
  input  logic                   in_last_i,     // last beat of a block
  output logic                   out_valid_o,
  input  logic                   out_ready_i,
  output logic signed [7:0]      out_exp_o
);

  logic advance;
  assign advance = !out_valid_o || out_ready_i;
  assign in_ready_o = advance;

  // Stage 1: v per lane, its magnitude bits, and nothing for a lane that is no element.
  logic [Lanes-1:0][31:0] v_sum;
  quire_fp32_add_lanes #(.Lanes(Lanes)) u_ef_add (
    .a_i  (in_x_i),
    .b_i  (in_resid_i),
    .sum_o(v_sum)
  );

  logic                   s1_valid, s1_last;
  logic [Lanes-1:0][30:0] s1_abs;
  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_abs
    if (!rst_ni) begin
      s1_valid <= 1'b0;
      s1_last <= 1'b0;
      s1_abs <= '0;
    end else if (advance) begin
      s1_valid <= in_valid_i;
      s1_last <= in_last_i;
      for (int lane = 0; lane < Lanes; lane++) begin
        s1_abs[lane] <= !in_keep_i[lane] ? 31'd0 : ef_i ? v_sum[lane][30:0] : in_x_i[lane][30:0];
      end
    end
  end

  // Stage 2: the largest magnitude of the beat.
  logic [30:0] beat_max;
  always_comb begin : lane_max
    beat_max = 31'd0;
    for (int lane = 0; lane < Lanes; lane++) begin
      if (s1_abs[lane] > beat_max) beat_max = s1_abs[lane];
    end
  end

  logic        s2_valid, s2_last;
  logic [30:0] s2_max;
  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_beat_max
    if (!rst_ni) begin
      s2_valid <= 1'b0;
      s2_last <= 1'b0;
      s2_max <= '0;
    end else if (advance) begin
      s2_valid <= s1_valid;
      s2_last <= s1_last;
      s2_max <= beat_max;
    end
  end

  // Stage 3: the block's maximum over its beats, and its exponent on the last one.
  logic [30:0] block_max_q, block_max;
  logic signed [9:0] unclamped;
  logic signed [7:0] block_exp;
  assign block_max = (s2_max > block_max_q) ? s2_max : block_max_q;
  assign unclamped = $signed({2'd0, block_max[30:23]}) - 10'sd126;
  always_comb begin : exponent_of_max
    if (block_max >= 31'h7f800000) begin
      block_exp = 8'(QUIRE_BFP_EXP_NONFINITE);
    end else if (block_max == 31'd0) begin
      block_exp = 8'(QUIRE_BFP_EXP_ZERO);
    end else if (unclamped < 10'(QUIRE_BFP_EXP_MIN)) begin
      block_exp = 8'(QUIRE_BFP_EXP_MIN);
    end else if (unclamped > 10'(QUIRE_BFP_EXP_MAX)) begin
      block_exp = 8'(QUIRE_BFP_EXP_MAX);
    end else begin
      block_exp = 8'(unclamped);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_block
    if (!rst_ni) begin
      block_max_q <= '0;
      out_valid_o <= 1'b0;
      out_exp_o <= '0;
    end else if (advance) begin
      out_valid_o <= s2_valid && s2_last;
      if (s2_valid) begin
        block_max_q <= s2_last ? 31'd0 : block_max;
        if (s2_last) out_exp_o <= block_exp;
      end
    end
  end

endmodule
