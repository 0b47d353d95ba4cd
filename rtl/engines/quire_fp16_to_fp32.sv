// SPDX-License-Identifier: MIT
//
// One lane of the fp16 decoder: IEEE binary16 to binary32, always exact
// (quire_fp16_to_fp32 in hls/quant.c): Inf and NaN keep sign and payload, a
// subnormal half becomes a normal fp32. Combinational.
module quire_fp16_to_fp32
(
  input  logic [15:0] h_i,
  output logic [31:0] y_o
);

  always_comb begin : convert
    logic [3:0] lead;
    logic [9:0] frac;

    frac = h_i[9:0];
    lead = 4'd0;
    for (int bit_index = 0; bit_index < 10; bit_index++) begin
      if (frac[bit_index]) lead = 4'(bit_index);
    end
    if (h_i[14:10] == 5'h1f) begin
      y_o = {h_i[15], 8'hff, frac, 13'd0};
    end else if (h_i[14:10] != 5'd0) begin
      y_o = {h_i[15], 3'd0, h_i[14:10], frac, 13'd0} + {1'b0, 8'd112, 23'd0};  // rebias 15 -> 127
    end else if (frac == 10'd0) begin
      y_o = {h_i[15], 31'd0};
    end else begin
      // frac * 2^-24 with its leading one at bit `lead`: exponent lead - 24.
      y_o = {h_i[15], 8'd103 + {4'd0, lead}, 23'({13'd0, frac} << (5'd23 - {1'b0, lead}))};
    end
  end

endmodule
