// SPDX-License-Identifier: MIT
//
// One lane of the fp16 encoder: IEEE binary32 to binary16, round to nearest
// even with the full IEEE rules, as x86 F16C's vcvtps2ph (quire_fp16_from_fp32
// in hls/quant.c): overflow to Inf, fp16 subnormals rounded in units of 2^-24,
// fp32 subnormals to a zero of their sign, NaN quiet with its top 10 payload
// bits. Combinational.
module quire_fp16_from_fp32
(
  input  logic [31:0] x_i,
  output logic [15:0] h_o
);

  always_comb begin : convert
    logic [7:0]  biased;
    logic [23:0] sig;
    logic signed [9:0] half_exp;
    logic [4:0]  sub_shift;
    logic [48:0] shifted;
    // A half subnormal has 10 bits: the shift (14 or more) leaves the top of kept zero.
    /* verilator lint_off UNUSEDSIGNAL */
    logic [23:0] kept;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [24:0] dropped;
    logic [14:0] rounded;

    biased = x_i[30:23];
    sig = {1'b1, x_i[22:0]};
    half_exp = $signed({2'd0, biased}) - 10'sd112;  // 127 - 15
    kept = 24'd0;
    dropped = 25'd0;
    rounded = 15'd0;
    sub_shift = 5'd0;
    shifted = 49'd0;

    if (biased == 8'hff) begin
      // Inf stays Inf; a NaN gets the quiet bit and keeps its payload's top bits.
      h_o = {x_i[31], 5'h1f, x_i[22:0] != 23'd0, x_i[21:13]};
    end else if (biased == 8'd0) begin
      h_o = {x_i[31], 15'd0};
    end else if (half_exp >= 10'sd31) begin
      h_o = {x_i[31], 15'h7c00};
    end else if (half_exp >= 10'sd1) begin
      // 11 significant bits; a carry out of them moves into the exponent, even to Inf.
      rounded = 15'(x_i[22:13]) + {half_exp[4:0], 10'd0} +
                15'(x_i[12] && (x_i[11:0] != 12'd0 || x_i[13]));
      h_o = {x_i[31], rounded};
    end else begin
      // Subnormal half: units of 2^-24, a right shift of 126 - biased (14 to 24,
      // more gives 0). A carry to 0x400 is the smallest normal, rightly.
      sub_shift = (biased < 8'd101) ? 5'd25 : 5'(8'd126 - biased);
      shifted = {sig, 25'd0} >> sub_shift;
      kept = shifted[48:25];
      dropped = shifted[24:0];
      rounded = 15'(kept) + 15'(dropped[24] && (dropped[23:0] != 24'd0 || kept[0]));
      h_o = {x_i[31], rounded};
    end
  end

endmodule
