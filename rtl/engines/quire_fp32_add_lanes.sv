// SPDX-License-Identifier: MIT
//
// A beat's worth of fp32 adders (quire_fp32_add), one a lane: the error
// feedback add (x + resid) and subtract (v - back, Subtract = 1) of the QUANT
// engines. Combinational.
module quire_fp32_add_lanes #(
  parameter int unsigned Lanes = 16,
  parameter bit Subtract = 1'b0
) (
  input  logic [Lanes-1:0][31:0] a_i,
  input  logic [Lanes-1:0][31:0] b_i,
  output logic [Lanes-1:0][31:0] sum_o
);

  for (genvar lane = 0; lane < Lanes; lane++) begin : gen_lane
    quire_fp32_add #(.Subtract(Subtract)) u_add (
      .a_i  (a_i[lane]),
      .b_i  (b_i[lane]),
      .sum_o(sum_o[lane])
    );
  end

endmodule
