// SPDX-License-Identifier: MIT
//
// QUANT decode (quire_quant_decode in hls/quant.c, mean_w = 1) on beats of 16
// lanes out (16 fp32, 512 bits):
//   bfp8 / bfp16: y = fp32(S * 2^(E - P)) rounded once, S an INT8, INT16 or
//     INT32 value (one encoding or an exact sum), E the exponent of the beat's
//     block; a NONFINITE block gives QUIRE_NAN_BITS, a ZERO block (or any
//     exponent below -125) +0.0;
//   fp16: the exact fp32 of each binary16 value.
// Input lanes are packed as memory holds them: lane i of an INT8 beat in
// in_vals_i[8i+7:8i], of INT16 and FP16 in [16i+15:16i], of INT32 in [32i+31:32i].
//
// Pipeline: unpack, then scale: 2 stages, one beat a cycle while out_ready_i is
// high; the whole pipeline holds while the output waits.
module quire_quant_decode
  import quire_format_pkg::*;
#(
  parameter int unsigned Lanes = 16
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic [3:0]             fmt_i,         // QUIRE_FMT_BFP8, _BFP16 or _FP16
  input  logic [3:0]             val_fmt_i,     // QUIRE_FMT_INT8, _INT16, _INT32 or _FP16
  input  logic                   in_valid_i,
  output logic                   in_ready_o,
  input  logic [Lanes*32-1:0]    in_vals_i,
  input  logic signed [7:0]      in_exp_i,
  output logic                   out_valid_o,
  input  logic                   out_ready_i,
  output logic [Lanes-1:0][31:0] out_y_o
);

  logic advance;
  assign advance = !out_valid_o || out_ready_i;
  assign in_ready_o = advance;

  // Stage 1: the lanes of the beat, sign-extended, and the scale 2^(E - P).
  logic                          s1_valid;
  logic signed [7:0]             s1_exp;
  logic signed [8:0]             s1_scale_exp;
  logic [Lanes-1:0][31:0]        s1_vals;
  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_unpack
    if (!rst_ni) begin
      s1_valid <= 1'b0;
      s1_exp <= '0;
      s1_scale_exp <= '0;
      s1_vals <= '0;
    end else if (advance) begin
      s1_valid <= in_valid_i;
      s1_exp <= in_exp_i;
      s1_scale_exp <= 9'(in_exp_i) - ((fmt_i == 4'(QUIRE_FMT_BFP16)) ?
                                      9'(QUIRE_BFP16_MANT_BITS) : 9'(QUIRE_BFP8_MANT_BITS));
      for (int lane = 0; lane < Lanes; lane++) begin
        if (val_fmt_i == 4'(QUIRE_FMT_INT8)) begin
          s1_vals[lane] <= 32'(signed'(in_vals_i[8*lane +: 8]));
        end else if (val_fmt_i == 4'(QUIRE_FMT_INT32)) begin
          s1_vals[lane] <= in_vals_i[32*lane +: 32];
        end else if (val_fmt_i == 4'(QUIRE_FMT_FP16)) begin
          s1_vals[lane] <= {16'd0, in_vals_i[16*lane +: 16]};
        end else begin
          s1_vals[lane] <= 32'(signed'(in_vals_i[16*lane +: 16]));
        end
      end
    end
  end

  // Stage 2: scale (or widen fp16), and the block's special cases.
  logic [Lanes-1:0][31:0] scaled, widened;
  for (genvar lane = 0; lane < Lanes; lane++) begin : gen_lane
    quire_bfp_scale u_scale (
      .s_i(s1_vals[lane]),
      .k_i(s1_scale_exp),
      .y_o(scaled[lane])
    );
    quire_fp16_to_fp32 u_fp16 (
      .h_i(s1_vals[lane][15:0]),
      .y_o(widened[lane])
    );
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_scale
    if (!rst_ni) begin
      out_valid_o <= 1'b0;
      out_y_o <= '0;
    end else if (advance) begin
      out_valid_o <= s1_valid;
      for (int lane = 0; lane < Lanes; lane++) begin
        if (fmt_i == 4'(QUIRE_FMT_FP16)) begin
          out_y_o[lane] <= widened[lane];
        end else if (s1_exp == 8'(QUIRE_BFP_EXP_NONFINITE)) begin
          out_y_o[lane] <= QUIRE_NAN_BITS;
        end else if (s1_exp < 8'(QUIRE_BFP_EXP_MIN)) begin
          out_y_o[lane] <= 32'd0;
        end else begin
          out_y_o[lane] <= scaled[lane];
        end
      end
    end
  end

endmodule
