// SPDX-License-Identifier: MIT
// The integer ALU of the rv32im core: the ten operations of OP and OP-IMM.
// Addresses (loads, stores, JALR) and LUI/AUIPC go through its adder too.
module quire_rv32_alu
  import quire_rv32_pkg::*;
(
  input  alu_op_e     op_i,
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] result_o
);

  logic [4:0] shift_amount;
  assign shift_amount = b_i[4:0];

  always_comb begin : compute
    unique case (op_i)
      ALU_ADD:  result_o = a_i + b_i;
      ALU_SUB:  result_o = a_i - b_i;
      ALU_SLL:  result_o = a_i << shift_amount;
      ALU_SLT:  result_o = {31'b0, $signed(a_i) < $signed(b_i)};
      ALU_SLTU: result_o = {31'b0, a_i < b_i};
      ALU_XOR:  result_o = a_i ^ b_i;
      ALU_SRL:  result_o = a_i >> shift_amount;
      ALU_SRA:  result_o = $unsigned($signed(a_i) >>> shift_amount);
      ALU_OR:   result_o = a_i | b_i;
      ALU_AND:  result_o = a_i & b_i;
      default:  result_o = a_i + b_i;
    endcase
  end

endmodule
