// SPDX-License-Identifier: MIT
// The M extension of the rv32im core. Multiplications take one cycle (a
// 33 x 33 signed product covers MUL, MULH, MULHSU and MULHU at once; an FPGA
// maps it to DSP blocks). Divisions are restoring, one quotient bit a cycle:
// 32 cycles, then the result. Division by zero answers at once as the
// unprivileged spec requires (quotient all ones, remainder the dividend);
// the signed overflow INT_MIN / -1 falls out of the magnitudes (quotient
// INT_MIN, remainder 0) with no special case. done_o is high for the one
// cycle result_o holds the answer.
module quire_rv32_muldiv (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic [2:0]  funct3_i,   // MUL MULH MULHSU MULHU DIV DIVU REM REMU
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic        done_o,
  output logic [31:0] result_o
);

  typedef enum logic [1:0] {
    IDLE,
    DIVIDE,
    DONE
  } state_e;

  state_e      state_q;
  logic [31:0] result_q;

  // Operation decode: funct3[2] is division; then bit 0 unsigned (DIVU, REMU),
  // bit 1 remainder. For the multiplications, which operands are signed.
  logic is_div, div_signed, wants_remainder;
  logic a_signed, b_signed;
  assign is_div          = funct3_i[2];
  assign div_signed      = !funct3_i[0];
  assign wants_remainder = funct3_i[1];
  assign a_signed        = (funct3_i[1:0] == 2'b01) || (funct3_i[1:0] == 2'b10);  // MULH, MULHSU
  assign b_signed        = (funct3_i[1:0] == 2'b01);                              // MULH

  // ---- multiplication
  logic signed [32:0] mul_a, mul_b;
  logic signed [65:0] product;
  assign mul_a   = {a_signed && a_i[31], a_i};
  assign mul_b   = {b_signed && b_i[31], b_i};
  assign product = mul_a * mul_b;

  logic [31:0] mul_result;
  assign mul_result = (funct3_i[1:0] == 2'b00) ? product[31:0] : product[63:32];

  // ---- division, on magnitudes
  logic a_negative, b_negative;
  assign a_negative = div_signed && a_i[31];
  assign b_negative = div_signed && b_i[31];

  logic [31:0] a_magnitude, b_magnitude;
  assign a_magnitude = a_negative ? -a_i : a_i;
  assign b_magnitude = b_negative ? -b_i : b_i;

  // The state of the long division: partial remainder, then the dividend's
  // bits still to bring down, shifted out of the top of `quotient` as the
  // quotient's bits come in at the bottom.
  logic [31:0] remainder_q, quotient_q, divisor_q;
  logic [5:0]  bits_left_q;
  logic        negate_quotient_q, negate_remainder_q, wants_remainder_q;

  logic [32:0] trial;           // the partial remainder with the next bit brought down
  logic [32:0] difference;
  logic        subtracts;
  logic [31:0] remainder_next, quotient_next;
  assign trial          = {remainder_q, quotient_q[31]};
  assign difference     = trial - {1'b0, divisor_q};
  assign subtracts      = !difference[32];
  assign remainder_next = subtracts ? difference[31:0] : trial[31:0];
  assign quotient_next  = {quotient_q[30:0], subtracts};

  logic [31:0] quotient_signed, remainder_signed;
  assign quotient_signed  = negate_quotient_q ? -quotient_next : quotient_next;
  assign remainder_signed = negate_remainder_q ? -remainder_next : remainder_next;

  always_ff @(posedge clk_i or negedge rst_ni) begin : sequence_operation
    if (!rst_ni) begin
      state_q            <= IDLE;
      result_q           <= '0;
      remainder_q        <= '0;
      quotient_q         <= '0;
      divisor_q          <= '0;
      bits_left_q        <= '0;
      negate_quotient_q  <= 1'b0;
      negate_remainder_q <= 1'b0;
      wants_remainder_q  <= 1'b0;
    end else begin
      unique case (state_q)
        IDLE: begin
          if (start_i) begin
            if (!is_div) begin
              result_q <= mul_result;
              state_q  <= DONE;
            end else if (b_i == 32'd0) begin
              result_q <= wants_remainder ? a_i : 32'hFFFF_FFFF;
              state_q  <= DONE;
            end else begin
              remainder_q        <= '0;
              quotient_q         <= a_magnitude;
              divisor_q          <= b_magnitude;
              bits_left_q        <= 6'd32;
              negate_quotient_q  <= a_negative != b_negative;
              negate_remainder_q <= a_negative;
              wants_remainder_q  <= wants_remainder;
              state_q            <= DIVIDE;
            end
          end
        end
        DIVIDE: begin
          remainder_q <= remainder_next;
          quotient_q  <= quotient_next;
          bits_left_q <= bits_left_q - 6'd1;
          if (bits_left_q == 6'd1) begin
            result_q <= wants_remainder_q ? remainder_signed : quotient_signed;
            state_q  <= DONE;
          end
        end
        default: state_q <= IDLE;  // DONE: the core takes result_o this cycle
      endcase
    end
  end

  assign done_o   = (state_q == DONE);
  assign result_o = result_q;

  // The top bits of the 66-bit product are only sign extension.
  logic unused_product_top;
  assign unused_product_top = ^product[65:64];

endmodule
