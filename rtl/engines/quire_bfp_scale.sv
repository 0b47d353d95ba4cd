// SPDX-License-Identifier: MIT
//
// One lane of the bfp decoder: the bits of fp32(s * 2^k), rounded once to
// nearest even (quire_bfp_scale in hls/quant.c). |s| is normalised by its
// leading one and rounded to 24 significant bits; a result beyond the fp32
// range is Inf. With k = E - P >= -140 every result below 2^-126 is a multiple
// of 2^-149, so a subnormal result is an exact left shift, never rounded.
// Combinational.
module quire_bfp_scale
(
  input  logic signed [31:0] s_i,
  input  logic signed [8:0]  k_i,   // E - P: -140 to 119
  output logic [31:0]        y_o
);

  always_comb begin : scale
    logic [31:0] magnitude;
    logic [4:0]  lead;
    logic signed [10:0] result_exp;
    logic [3:0]  drop;
    logic [31:0] aligned;
    logic [24:0] rounded;
    logic [30:0] packed_mag;
    logic [4:0]  sub_shift;

    magnitude = s_i[31] ? 32'(-s_i) : s_i;
    lead = 5'd0;
    for (int bit_index = 0; bit_index < 32; bit_index++) begin
      if (magnitude[bit_index]) lead = 5'(bit_index);
    end
    result_exp = 11'(lead) + 11'(k_i);  // the value is in [2^result_exp, 2^(result_exp + 1))
    packed_mag = 31'd0;
    rounded = 25'd0;
    aligned = 32'd0;
    drop = 4'd0;
    sub_shift = 5'd0;

    if (result_exp >= -11'sd126) begin
      if (lead > 5'd23) begin
        // Keep 24 bits from the leading one; up to 8 bits go to rounding.
        drop = 4'(lead - 5'd23);
        aligned = 32'({magnitude, 8'd0} >> drop);  // at most 31 significant bits are left
        rounded = {1'b0, aligned[31:8]} +
                  {24'd0, aligned[7] && (aligned[6:0] != 7'd0 || aligned[8])};
      end else begin
        rounded = {1'b0, magnitude[23:0] << (5'd23 - lead)};
      end
      // Exponent field plus significand minus the hidden bit: a rounding carry
      // (rounded = 2^24) lands in the exponent field by itself.
      packed_mag = {8'(result_exp + 11'sd127), 23'd0} + {6'd0, rounded} - 31'h00800000;
      if (result_exp + 11'sd127 >= 11'sd255 || packed_mag[30:23] == 8'hff) begin
        packed_mag = 31'h7f800000;
      end
    end else begin
      sub_shift = 5'(k_i + 9'sd149);
      packed_mag = 31'(magnitude << sub_shift);
    end

    y_o = (s_i == 32'sd0) ? 32'd0 : {s_i[31], packed_mag};
  end

endmodule
