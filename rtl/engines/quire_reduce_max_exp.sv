// SPDX-License-Identifier: MIT
//
// REDUCE exponent maximum (quire_reduce_max_exp in hls/reduce.c): the shared
// block exponents Eg = max over workers (and the accumulator input) of their
// block exponents. An integer maximum, so NONFINITE (127) wins and ZERO (-126)
// only stays when every worker has it.
//
// Beats are 512 bits: 64 int8 exponents. The W beats of one chunk of blocks
// arrive one after the other, worker 0 first (in_first_i) to worker W - 1
// (in_last_i); in_acc_i is read with the first beat when acc_in_i is set.
// Pipeline: register, maximum: out_valid_o 2 cycles after a chunk's last beat.
module quire_reduce_max_exp
#(
  parameter int unsigned Lanes = 64
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  acc_in_i,
  input  logic                  in_valid_i,
  output logic                  in_ready_o,
  input  logic [Lanes-1:0][7:0] in_exps_i,
  input  logic                  in_first_i,
  input  logic                  in_last_i,
  input  logic [Lanes-1:0][7:0] in_acc_i,
  output logic                  out_valid_o,
  input  logic                  out_ready_i,
  output logic [Lanes-1:0][7:0] out_exps_o
);

  logic advance;
  assign advance = !out_valid_o || out_ready_i;
  assign in_ready_o = advance;

  logic                  s1_valid, s1_first, s1_last;
  logic [Lanes-1:0][7:0] s1_exps, s1_acc;
  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_in
    if (!rst_ni) begin
      s1_valid <= 1'b0;
      s1_first <= 1'b0;
      s1_last <= 1'b0;
      s1_exps <= '0;
      s1_acc <= '0;
    end else if (advance) begin
      s1_valid <= in_valid_i;
      s1_first <= in_first_i;
      s1_last <= in_last_i;
      s1_exps <= in_exps_i;
      s1_acc <= in_acc_i;
    end
  end

  // The running maximum; the golden model starts from INT8_MIN without an accumulator.
  logic [Lanes-1:0][7:0] max_q, max_next;
  always_comb begin : running_max
    for (int lane = 0; lane < Lanes; lane++) begin
      logic signed [7:0] start;
      start = s1_first ? (acc_in_i ? s1_acc[lane] : 8'sh80) : max_q[lane];
      max_next[lane] = ($signed(s1_exps[lane]) > start) ? s1_exps[lane] : start;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : stage_max
    if (!rst_ni) begin
      max_q <= '0;
      out_valid_o <= 1'b0;
      out_exps_o <= '0;
    end else if (advance) begin
      out_valid_o <= s1_valid && s1_last;
      if (s1_valid) begin
        max_q <= max_next;
        if (s1_last) out_exps_o <= max_next;
      end
    end
  end

endmodule
