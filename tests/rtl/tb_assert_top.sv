// SPDX-License-Identifier: MIT
// The checkers of rtl/assert/, alone, for tests/rtl/tb_assert.cpp: a stream of one byte and
// a request/response port, driven by the testbench with sequences that keep the rules and
// sequences that break them.
module tb_assert_top (
  input logic       clk_i,
  input logic       rst_ni,
  input logic       valid_i,
  input logic       ready_i,
  input logic [7:0] data_i,
  input logic       done_i,
  input logic       req_i,
  input logic       rvalid_i
);

  quire_assert_stream #(.Width(8), .Name("tb stream")) u_stream (
    .clk_i, .rst_ni, .valid_i, .ready_i, .data_i, .done_i
  );

  // A port that takes every request and lets one wait for its answer at a time.
  quire_assert_req_rsp #(.Name("tb port"), .MaxOutstanding(1)) u_port (
    .clk_i, .rst_ni, .req_i, .ready_i(1'b1), .rvalid_i
  );

endmodule
