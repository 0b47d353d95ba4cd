// SPDX-License-Identifier: MIT
//
// QUANT encode pass (quire_quant_encode in hls/quant.c) on beats of 16 fp32
// lanes (512 bits) with the exponent of the beat's block beside them:
//   bfp8 / bfp16: q = sat(rne(v * 2^(P - E))), v = x, or fp32(x + resid) with
//     error feedback; then resid' = fp32(v - q * 2^(E - P)), except in a
//     NONFINITE block, which keeps its residual. A ZERO or NONFINITE block
//     encodes as 0.
//   fp16: IEEE binary16 of x (resid and the exponent are not used).
// Output lanes are packed as memory holds them: bfp8 lane i in out_q_o[8i+7:8i]
// (the low 128 bits), bfp16 and fp16 lane i in out_q_o[16i+15:16i].
// out_resid_o is the updated residual (the input one where it does not change).
//
// Pipeline: add, quantize, scale back, subtract: 4 stages, one beat a cycle
// while out_ready_i is high; the whole pipeline holds while the output waits.
module quire_quant_encode
  import quire_format_pkg::*;
#(
  parameter int unsigned Lanes = 16
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic [3:0]             fmt_i,         // QUIRE_FMT_BFP8, _BFP16 or _FP16
  input  logic                   ef_i,          // error feedback (bfp8, bfp16)
  input  logic                   in_valid_i,
  output logic                   in_ready_o,
  input  logic [Lanes-1:0][31:0] in_x_i,
  input  logic [Lanes-1:0][31:0] in_resid_i,
  input  logic signed [7:0]      in_exp_i,      // the (shared) exponent of the beat's block
  output logic                   out_valid_o,
  input  logic                   out_ready_i,
  output logic [Lanes*16-1:0]    out_q_o,
  output logic [Lanes-1:0][31:0] out_resid_o
);

  logic advance;
  assign advance = !out_valid_o || out_ready_i;
  assign in_ready_o = advance;

  logic bfp16, use_ef;
  assign bfp16 = fmt_i == 4'(QUIRE_FMT_BFP16);
  assign use_ef = ef_i && fmt_i != 4'(QUIRE_FMT_FP16);

  // Stage 1: v = x or fp32(x + resid).
  logic [Lanes-1:0][31:0] v_sum;
  quire_fp32_add_lanes #(.Lanes(Lanes)) u_ef_add (
    .a_i  (in_x_i),
    .b_i  (in_resid_i),
    .sum_o(v_sum)
  );

  logic                   s1_valid;
  logic signed [7:0]      s1_exp;
  logic [Lanes-1:0][31:0] s1_v, s1_resid;
  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_add
    if (!rst_ni) begin
      s1_valid <= 1'b0;
      s1_exp <= '0;
      s1_v <= '0;
      s1_resid <= '0;
    end else if (advance) begin
      s1_valid <= in_valid_i;
      s1_exp <= in_exp_i;
      s1_v <= use_ef ? v_sum : in_x_i;
      s1_resid <= in_resid_i;
    end
  end

  // Stage 2: quantize (or fp16).
  logic finite_block;
  assign finite_block = s1_exp >= 8'(QUIRE_BFP_EXP_MIN) && s1_exp <= 8'(QUIRE_BFP_EXP_MAX);
  logic [Lanes-1:0][15:0] q_lane, h_lane;
  for (genvar lane = 0; lane < Lanes; lane++) begin : gen_quantize
    quire_bfp_quantize u_quantize (
      .x_i    (s1_v[lane]),
      .exp_i  (s1_exp),
      .bfp16_i(bfp16),
      .q_o    (q_lane[lane])
    );
    quire_fp16_from_fp32 u_fp16 (
      .x_i(s1_v[lane]),
      .h_o(h_lane[lane])
    );
  end

  logic                   s2_valid;
  logic signed [7:0]      s2_exp;
  logic [Lanes-1:0][31:0] s2_v, s2_resid;
  logic [Lanes-1:0][15:0] s2_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_quantize
    if (!rst_ni) begin
      s2_valid <= 1'b0;
      s2_exp <= '0;
      s2_v <= '0;
      s2_resid <= '0;
      s2_q <= '0;
    end else if (advance) begin
      s2_valid <= s1_valid;
      s2_exp <= s1_exp;
      s2_v <= s1_v;
      s2_resid <= s1_resid;
      for (int lane = 0; lane < Lanes; lane++) begin
        s2_q[lane] <= (fmt_i == 4'(QUIRE_FMT_FP16)) ? h_lane[lane] :
                      finite_block ? q_lane[lane] : 16'd0;
      end
    end
  end

  // Stage 3: what q stands for, q * 2^(E - P), exact (a multiple of 2^-149 below 2^31).
  logic signed [8:0] scale_exp;
  assign scale_exp = 9'(s2_exp) - (bfp16 ? 9'(QUIRE_BFP16_MANT_BITS) : 9'(QUIRE_BFP8_MANT_BITS));
  logic [Lanes-1:0][31:0] back_lane;
  for (genvar lane = 0; lane < Lanes; lane++) begin : gen_scale
    quire_bfp_scale u_scale (
      .s_i(32'(signed'(s2_q[lane]))),
      .k_i(scale_exp),
      .y_o(back_lane[lane])
    );
  end

  logic                   s3_valid, s3_keep_resid;
  logic [Lanes-1:0][31:0] s3_v, s3_resid, s3_back;
  logic [Lanes-1:0][15:0] s3_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_scale
    if (!rst_ni) begin
      s3_valid <= 1'b0;
      s3_keep_resid <= 1'b1;
      s3_v <= '0;
      s3_resid <= '0;
      s3_back <= '0;
      s3_q <= '0;
    end else if (advance) begin
      s3_valid <= s2_valid;
      // Without error feedback, or in a NONFINITE block, the residual stays.
      s3_keep_resid <= !use_ef || s2_exp == 8'(QUIRE_BFP_EXP_NONFINITE);
      s3_v <= s2_v;
      s3_resid <= s2_resid;
      s3_back <= back_lane;
      s3_q <= s2_q;
    end
  end

  // Stage 4: resid' = fp32(v - back), the one rounding error feedback defines.
  logic [Lanes-1:0][31:0] resid_new;
  quire_fp32_add_lanes #(.Lanes(Lanes), .Subtract(1'b1)) u_ef_sub (
    .a_i  (s3_v),
    .b_i  (s3_back),
    .sum_o(resid_new)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_out
    if (!rst_ni) begin
      out_valid_o <= 1'b0;
      out_q_o <= '0;
      out_resid_o <= '0;
    end else if (advance) begin
      out_valid_o <= s3_valid;
      out_resid_o <= s3_keep_resid ? s3_resid : resid_new;
      out_q_o <= '0;
      for (int lane = 0; lane < Lanes; lane++) begin
        if (fmt_i == 4'(QUIRE_FMT_BFP8)) begin
          out_q_o[8*lane +: 8] <= s3_q[lane][7:0];
        end else begin
          out_q_o[16*lane +: 16] <= s3_q[lane];
        end
      end
    end
  end

endmodule
