// SPDX-License-Identifier: MIT
// Checks one valid/ready stream by the rule every stream of the card keeps (AXI4-Stream's):
// once valid is high it stays high, with the same data, until the cycle in which ready is
// high too. A producer that drops or changes a beat before it was taken loses or corrupts
// it in a way no bit-exact comparison downstream would point at. The one exception: a
// consumer that is not in an operation, or has just finished one (done_i), while a beat
// waits lets the producer withdraw that beat, however many cycles the producer takes to
// learn of it: the MLP engine ends SCORE and LOAD on its own count, and beats after that are
// not part of the operation.
// Not part of the design: rtl/assert/quire_binds.sv binds it to the RTL's ports in every
// build of a Verilator model, which checks it (--assert); a failure stops the simulation
// with the stream's name. Yosys never reads this folder.
module quire_assert_stream #(
  parameter int unsigned Width = 1,
  parameter string       Name  = "stream"
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             valid_i,
  input logic             ready_i,
  input logic [Width-1:0] data_i,
  input logic             done_i  // the consumer is in no operation: an offer may end
);

  // The beat that waited at the last edge; checked at the next with immediate assertions in
  // a clocked block (the values before the edge, as a concurrent property samples them):
  // for a wide vector in a concurrent property, the C++ that Verilator 5.006 generates does
  // not compile.
  logic             waiting_q, done_seen_q;
  logic [Width-1:0] data_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin : last_beat
    if (!rst_ni) begin
      waiting_q   <= 1'b0;
      done_seen_q <= 1'b0;
      data_q      <= '0;
    end else begin
      waiting_q   <= valid_i && !ready_i;
      done_seen_q <= valid_i && !ready_i && (done_seen_q || done_i);
      data_q      <= data_i;
    end
  end

  always_ff @(posedge clk_i) begin : check
    if (waiting_q && !done_seen_q && !done_i) begin  // waiting_q is 0 while reset is held
      a_valid_held : assert (valid_i)
      else $error("%s: valid dropped before the beat was taken", Name);
      a_data_stable : assert (data_i == data_q)
      else $error("%s: the beat changed while it waited to be taken", Name);
    end
  end

endmodule
