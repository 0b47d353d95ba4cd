// SPDX-License-Identifier: MIT
//
// The MLP engine's MAC array: 64 int8 x int8 products of one weight row chunk
// and one activation chunk, summed (the inner loop of dense() in hls/mlp.c,
// 64 iterations at once). Lanes whose keep bit is clear (inputs at or past the
// layer's width) contribute 0. Each product is within [-16256, 16384] and the
// sum of 64 within 2^20 in magnitude: 22 bits, sign-extended to 32, exact.
// Besides the sum, the sums of three segments of lanes: [0, SegLanes),
// [SegLanes, 2 SegLanes) and the rest, for a row that packs three outputs of a
// narrow layer (quire_mlp.sv); the sum is theirs, so it is the same number.
// Two stages: the 64 products registered, then their sums registered; one
// chunk enters every cycle.
module quire_mlp_dot #(
  parameter int unsigned Lanes = 64,
  parameter int unsigned SegLanes = 21  // 3 * SegLanes <= Lanes
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 in_valid_i,
  input  logic [8*Lanes-1:0]   in_w_i,     // int8 weights, lane i at [8i+7:8i]
  input  logic [8*Lanes-1:0]   in_x_i,     // int8 activations
  input  logic [Lanes-1:0]     in_keep_i,
  output logic                 out_valid_o,
  output logic [31:0]          out_sum_o,  // int32
  output logic [2:0][31:0]     out_seg_o   // int32: lanes of segment 0, 1, 2
);

  logic [16*Lanes-1:0] prod_d, prod_q;
  logic                prod_valid_q;
  always_comb begin : multiply
    for (int unsigned i = 0; i < Lanes; i++) begin
      prod_d[16*i +: 16] = in_keep_i[i]
          ? 16'($signed(in_w_i[8*i +: 8]) * $signed(in_x_i[8*i +: 8])) : 16'd0;
    end
  end

  logic [2:0][31:0] seg_d;
  always_comb begin : add
    seg_d = '0;
    for (int unsigned i = 0; i < SegLanes; i++) begin
      seg_d[0] = seg_d[0] + {{16{prod_q[16*i+15]}}, prod_q[16*i +: 16]};
    end
    for (int unsigned i = SegLanes; i < 2 * SegLanes; i++) begin
      seg_d[1] = seg_d[1] + {{16{prod_q[16*i+15]}}, prod_q[16*i +: 16]};
    end
    for (int unsigned i = 2 * SegLanes; i < Lanes; i++) begin
      seg_d[2] = seg_d[2] + {{16{prod_q[16*i+15]}}, prod_q[16*i +: 16]};
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : stages
    if (!rst_ni) begin
      prod_q       <= '0;
      prod_valid_q <= 1'b0;
      out_sum_o    <= 32'd0;
      out_seg_o    <= '0;
      out_valid_o  <= 1'b0;
    end else begin
      // The stages hold when no chunk comes: idle cycles move nothing.
      if (in_valid_i) prod_q <= prod_d;
      prod_valid_q <= in_valid_i;
      if (prod_valid_q) begin
        out_sum_o <= seg_d[0] + seg_d[1] + seg_d[2];
        out_seg_o <= seg_d;
      end
      out_valid_o  <= prod_valid_q;
    end
  end

endmodule
