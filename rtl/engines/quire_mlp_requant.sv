// SPDX-License-Identifier: MIT
//
// MLP requantization of one hidden accumulator (quire_mlp_requantize in
// hls/mlp.c, docs/contract-mlp.md): y = (acc * M + (s > 0 ? 2^(s-1) : 0)) >> s
// in 64-bit arithmetic, the shift arithmetic (floor: round half toward +Inf),
// then clamped to [0, 127] (ReLU and saturation in one step).
// With |acc| < 2^31 and 0 <= M < 2^31 the product is below 2^62 in magnitude
// and the rounding term below 2^61, so nothing overflows 64 bits. The shift
// is at most 62 (the loader refuses more). Combinational: the engine registers
// around it.
module quire_mlp_requant (
  input  logic [31:0] acc_i,    // int32
  input  logic [31:0] mult_i,   // 0 <= M < 2^31
  input  logic [5:0]  shift_i,  // 0 <= s <= 62
  output logic [7:0]  y_o       // 0..127
);

  logic signed [63:0] prod, round, sum, shifted;
  always_comb begin : requant
    prod    = $signed({{32{acc_i[31]}}, acc_i}) * $signed({32'd0, mult_i});
    round   = shift_i == 6'd0 ? 64'sd0 : $signed(64'd1 << (shift_i - 6'd1));
    sum     = prod + round;
    shifted = sum >>> shift_i;
    if (shifted < 64'sd0)        y_o = 8'd0;
    else if (shifted > 64'sd127) y_o = 8'd127;
    else                         y_o = shifted[7:0];
  end

endmodule
