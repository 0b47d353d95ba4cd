// SPDX-License-Identifier: MIT
//
// One lane of the bfp encoder: q = sign(x) * min(rne(|x| * 2^(P - E)), L) with
// one rounding of the exact product (quire_bfp_quantize in hls/quant.c).
// |x| = sig * 2^(e - 150), so the product is sig * 2^-sh with
// sh = 150 + E - P - e: a right shift of the 24-bit significand with round to
// nearest even on the bits shifted out. sh <= 0 only for a normal x, whose
// product is then >= 2^23 > L: saturation. sh >= 25 leaves less than a half:
// 0. Combinational. exp_i must be a finite block exponent (-125 to 126).
module quire_bfp_quantize
(
  input  logic [31:0] x_i,
  input  logic signed [7:0] exp_i,
  input  logic        bfp16_i,  // 0: bfp8 (P = 7, L = 127), 1: bfp16 (P = 15, L = 32767)
  output logic signed [15:0] q_o
);

  always_comb begin : quantize
    logic [7:0]  biased;
    logic [23:0] sig;
    logic signed [10:0] shift_amount;
    logic [48:0] shifted;
    logic [23:0] kept;
    logic [24:0] dropped;
    logic [24:0] rounded;
    logic [15:0] limit;
    logic [15:0] magnitude;

    biased = (x_i[30:23] == 8'd0) ? 8'd1 : x_i[30:23];
    sig = {x_i[30:23] != 8'd0, x_i[22:0]};
    limit = bfp16_i ? 16'd32767 : 16'd127;
    shift_amount = 11'sd150 + 11'(exp_i) - (bfp16_i ? 11'sd15 : 11'sd7) - $signed({3'd0, biased});

    // Right shift by 1 to 25 with all the dropped bits kept for rounding.
    shifted = {sig, 25'd0} >> ((shift_amount > 11'sd25) ? 5'd25 : shift_amount[4:0]);
    kept = shifted[48:25];
    dropped = shifted[24:0];
    rounded = {1'b0, kept} +
              {24'd0, dropped[24] && (dropped[23:0] != 24'd0 || kept[0])};

    if (sig == 24'd0) begin
      magnitude = 16'd0;
    end else if (shift_amount <= 11'sd0) begin
      magnitude = limit;
    end else if (shift_amount > 11'sd25) begin
      magnitude = 16'd0;
    end else if (rounded > {9'd0, limit}) begin
      magnitude = limit;
    end else begin
      magnitude = rounded[15:0];
    end
    q_o = x_i[31] ? -$signed(magnitude) : $signed(magnitude);
  end

endmodule
