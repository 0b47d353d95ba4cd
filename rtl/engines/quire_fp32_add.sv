// SPDX-License-Identifier: MIT
//
// One IEEE binary32 addition, round to nearest even, subnormals kept (no
// flush-to-zero): what C's `float + float` gives on the host, as error feedback
// needs it (v = x + r, r' = v - back; docs/contract-bfp.md). Integer logic only:
// the smaller operand is aligned onto 3 extra bits (guard, round, sticky), which
// is enough for one correctly rounded result. Combinational; the engines put
// registers around it.
//
// Subtract = 1 gives a - b instead (C's `a - b`).
//
// NaN results are those of x86 SSE (addss, subss), which is how hls/quant.c is
// compiled for the host: a NaN a is returned quieted (bit 22 set), else a NaN b
// quieted (its sign as given, even when subtracting), and an invalid operation
// (Inf - Inf) gives the default NaN 0xffc00000. The C model's `x + resid` and
// `v - back` put x and v first.
module quire_fp32_add #(
  parameter bit Subtract = 1'b0
) (
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] sum_o
);

  localparam logic [31:0] DefaultNaN = 32'hffc0_0000;
  localparam logic [31:0] QuietBit = 32'h0040_0000;

  logic [31:0] b_signed;
  assign b_signed = {b_i[31] ^ Subtract, b_i[30:0]};

  always_comb begin : add
    logic [31:0] larger, smaller;
    logic [7:0]  larger_exp, smaller_exp;
    logic [23:0] larger_sig, smaller_sig;
    logic [8:0]  exp_diff;
    logic [26:0] larger_ext, smaller_ext, smaller_mask;
    logic        smaller_sticky, subtract;
    logic [27:0] raw;
    logic [4:0]  lead_zeros, shift;
    logic [8:0]  exp_out;
    logic [26:0] norm;
    logic        round_up;
    logic [30:0] packed_mag;

    smaller_mask = '0;
    shift = '0;
    norm = '0;
    exp_out = '0;
    // Order by magnitude: the bit patterns without sign order like the values.
    if (a_i[30:0] >= b_i[30:0]) begin
      larger = a_i;
      smaller = b_signed;
    end else begin
      larger = b_signed;
      smaller = a_i;
    end
    // A subnormal has the scale of the smallest normal, without the hidden bit.
    larger_exp = (larger[30:23] == 8'd0) ? 8'd1 : larger[30:23];
    smaller_exp = (smaller[30:23] == 8'd0) ? 8'd1 : smaller[30:23];
    larger_sig = {larger[30:23] != 8'd0, larger[22:0]};
    smaller_sig = {smaller[30:23] != 8'd0, smaller[22:0]};
    exp_diff = {1'b0, larger_exp} - {1'b0, smaller_exp};
    subtract = larger[31] ^ smaller[31];

    larger_ext = {larger_sig, 3'b000};
    if (exp_diff >= 9'd27) begin
      smaller_ext = 27'd0;
      smaller_sticky = smaller_sig != 24'd0;
    end else begin
      smaller_mask = (27'd1 << exp_diff[4:0]) - 27'd1;
      smaller_ext = {smaller_sig, 3'b000} >> exp_diff[4:0];
      smaller_sticky = ({smaller_sig, 3'b000} & smaller_mask) != 27'd0;
    end
    smaller_ext[0] = smaller_ext[0] | smaller_sticky;

    raw = subtract ? {1'b0, larger_ext} - {1'b0, smaller_ext} : {1'b0, larger_ext} + {1'b0, smaller_ext};

    // Normalise: the hidden bit goes to bit 26 of norm, unless the exponent
    // would drop below 1 (a subnormal result keeps the scale of exponent 1).
    lead_zeros = 5'd27;
    for (int bit_index = 0; bit_index < 27; bit_index++) begin
      if (raw[bit_index]) lead_zeros = 5'(26 - bit_index);
    end
    if (raw[27]) begin
      norm = {raw[27:2], raw[1] | raw[0]};
      exp_out = {1'b0, larger_exp} + 9'd1;
    end else begin
      // larger_exp - 1 < lead_zeros <= 27 here, so the narrowing keeps every bit.
      shift = ({3'd0, lead_zeros} > larger_exp - 8'd1) ? 5'(larger_exp - 8'd1) : lead_zeros;
      norm = raw[26:0] << shift;
      exp_out = {1'b0, larger_exp} - {4'd0, shift};
      if (!norm[26]) exp_out = 9'd0;
    end

    // Round to nearest even on guard and round|sticky; a carry out of the
    // significand moves into the exponent field by itself, up to Inf.
    round_up = norm[2] && (norm[1] || norm[0] || norm[3]);
    packed_mag = {exp_out[7:0], norm[25:3]} + {30'd0, round_up};

    if (a_i[30:0] > 31'h7f80_0000) begin
      sum_o = a_i | QuietBit;
    end else if (b_i[30:0] > 31'h7f80_0000) begin
      sum_o = b_i | QuietBit;
    end else if (larger[30:23] == 8'hff) begin
      // Inf - Inf is invalid; otherwise the larger is an Inf and wins.
      sum_o = (smaller[30:0] == 31'h7f80_0000 && subtract) ? DefaultNaN : larger;
    end else if (exp_out >= 9'd255) begin
      sum_o = {larger[31], 31'h7f800000};
    end else if (raw == 28'd0) begin
      // An exact zero is +0.0 unless both operands are -0.0.
      sum_o = {larger[31] & smaller[31], 31'd0};
    end else begin
      sum_o = {larger[31], packed_mag};
    end
  end

endmodule
