// SPDX-License-Identifier: MIT
// Checks a request/response port with one request in flight at a time, as the card's host
// memory port works (rtl/card/quire_card_dma.sv): a request is a one-cycle req, answered
// by rvalid in a later cycle; no new request until the answer came, and no answer without
// a request. The first rule is the card's side of the port, the second the host's (the
// harness under Verilator, later a PCIe bridge).
// Not part of the design: bound in rtl/assert/quire_binds.sv, checked with --assert.
module quire_assert_req_rsp #(
  parameter string Name = "port"
) (
  input logic clk_i,
  input logic rst_ni,
  input logic req_i,
  input logic rvalid_i
);

  logic in_flight_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin : track
    if (!rst_ni)       in_flight_q <= 1'b0;
    else if (req_i)    in_flight_q <= 1'b1;
    else if (rvalid_i) in_flight_q <= 1'b0;
  end

  // Immediate assertions at each edge (in_flight_q is 0 while reset is held).
  always_ff @(posedge clk_i) begin : check
    a_one_in_flight : assert (!req_i || !in_flight_q || rvalid_i)
    else $error("%s: a request while another waits for its answer", Name);
    a_answer_asked : assert (!rvalid_i || in_flight_q)
    else $error("%s: an answer to no request", Name);
  end

endmodule
