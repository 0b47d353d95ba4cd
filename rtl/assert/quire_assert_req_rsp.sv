// SPDX-License-Identifier: MIT
// Checks a request/response port whose requests are answered in order, as the card's
// host memory port works (rtl/card/quire_card_dma.sv, quire_card_queue.sv): a request is
// taken in a cycle of req and ready, answered by rvalid in a later cycle; at most
// MaxOutstanding requests wait for their answers, and no answer comes without a request.
// The first rule is the card's side of the port, the second the host's (the harness
// under Verilator, a PCIe bridge).
// Not part of the design: bound in rtl/assert/quire_binds.sv, checked with --assert.
module quire_assert_req_rsp #(
  parameter string       Name           = "port",
  parameter int unsigned MaxOutstanding = 256
) (
  input logic clk_i,
  input logic rst_ni,
  input logic req_i,
  input logic ready_i,
  input logic rvalid_i
);

  logic [15:0] waiting_q;
  logic        take;
  assign take = req_i && ready_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin : track
    if (!rst_ni) waiting_q <= 16'd0;
    else         waiting_q <= waiting_q + 16'(take) - 16'(rvalid_i);
  end

  // Immediate assertions at each edge (waiting_q is 0 while reset is held).
  always_ff @(posedge clk_i) begin : check
    a_outstanding : assert (!take || waiting_q < 16'(MaxOutstanding) || rvalid_i)
    else $error("%s: more than %0d requests wait for their answers", Name, MaxOutstanding);
    a_answer_asked : assert (!rvalid_i || waiting_q != 16'd0)
    else $error("%s: an answer to no request", Name);
  end

endmodule
