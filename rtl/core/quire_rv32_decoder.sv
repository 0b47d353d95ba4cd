// SPDX-License-Identifier: MIT
// Instruction decoder of the rv32im core: sorts a 32-bit instruction into its
// class, picks the ALU operation and operands, and builds the immediate.
// Every encoding RV32IM + Zicsr + mret/wfi does not define is CLASS_ILLEGAL,
// checked field by field, so that the core traps on it instead of guessing.
module quire_rv32_decoder
  import quire_rv32_pkg::*;
(
  input  logic [31:0]    instr_i,
  output decoded_instr_t decoded_o
);

  logic [6:0] opcode;
  logic [2:0] funct3;
  logic [6:0] funct7;
  logic [4:0] rd;
  assign opcode = instr_i[6:0];
  assign funct3 = instr_i[14:12];
  assign funct7 = instr_i[31:25];
  assign rd     = instr_i[11:7];

  // The five immediate formats of the base ISA, sign-extended.
  logic [31:0] imm_i, imm_s, imm_b, imm_u, imm_j;
  assign imm_i = {{21{instr_i[31]}}, instr_i[30:20]};
  assign imm_s = {{21{instr_i[31]}}, instr_i[30:25], instr_i[11:7]};
  assign imm_b = {{20{instr_i[31]}}, instr_i[7], instr_i[30:25], instr_i[11:8], 1'b0};
  assign imm_u = {instr_i[31:12], 12'b0};
  assign imm_j = {{12{instr_i[31]}}, instr_i[19:12], instr_i[20], instr_i[30:21], 1'b0};

  // OP and OP-IMM share funct3's meaning; funct7 bit 5 picks SUB and SRA.
  function automatic alu_op_e alu_op_of(input logic [2:0] f3, input logic alt);
    unique case (f3)
      3'b000:  return alt ? ALU_SUB : ALU_ADD;
      3'b001:  return ALU_SLL;
      3'b010:  return ALU_SLT;
      3'b011:  return ALU_SLTU;
      3'b100:  return ALU_XOR;
      3'b101:  return alt ? ALU_SRA : ALU_SRL;
      3'b110:  return ALU_OR;
      default: return ALU_AND;
    endcase
  endfunction

  always_comb begin : decode
    decoded_o = '{
      instr_class: CLASS_ILLEGAL,
      alu_op:      ALU_ADD,
      op_a_sel:    OP_A_RS1,
      op_b_is_imm: 1'b1,
      imm:         imm_i,
      writes_rd:   1'b0
    };

    if (instr_i[1:0] == 2'b11) begin
      unique case (opcode)
        // rd = 0 + imm, or pc + imm.
        OPC_LUI, OPC_AUIPC: begin
          decoded_o.instr_class = CLASS_ALU;
          decoded_o.op_a_sel    = (opcode == OPC_AUIPC) ? OP_A_PC : OP_A_ZERO;
          decoded_o.imm         = imm_u;
          decoded_o.writes_rd   = 1'b1;
        end
        OPC_JAL: begin
          decoded_o.instr_class = CLASS_JAL;
          decoded_o.imm         = imm_j;
          decoded_o.writes_rd   = 1'b1;
        end
        OPC_JALR: begin
          if (funct3 == 3'b000) begin
            decoded_o.instr_class = CLASS_JALR;
            decoded_o.writes_rd   = 1'b1;
          end
        end
        OPC_BRANCH: begin
          // funct3 010 and 011 are not branches.
          if (funct3[2:1] != 2'b01) begin
            decoded_o.instr_class = CLASS_BRANCH;
            decoded_o.imm         = imm_b;
          end
        end
        OPC_LOAD: begin
          // LB LH LW LBU LHU; no LD, no LWU in RV32.
          if (funct3 inside {3'b000, 3'b001, 3'b010, 3'b100, 3'b101}) begin
            decoded_o.instr_class = CLASS_LOAD;
            decoded_o.writes_rd   = 1'b1;
          end
        end
        OPC_STORE: begin
          if (funct3 inside {3'b000, 3'b001, 3'b010}) begin
            decoded_o.instr_class = CLASS_STORE;
            decoded_o.imm         = imm_s;
          end
        end
        OPC_OP_IMM: begin
          decoded_o.alu_op    = alu_op_of(funct3, funct7[5]);
          decoded_o.writes_rd = 1'b1;
          unique case (funct3)
            // SLLI takes funct7 0; SRLI 0 and SRAI 0100000 (shamt is 5 bits in RV32).
            3'b001:  if (funct7 == 7'b0000000) decoded_o.instr_class = CLASS_ALU;
            3'b101:  if (funct7 == 7'b0000000 || funct7 == 7'b0100000) begin
              decoded_o.instr_class = CLASS_ALU;
            end
            default: begin
              decoded_o.instr_class = CLASS_ALU;
              decoded_o.alu_op      = alu_op_of(funct3, 1'b0);
            end
          endcase
        end
        OPC_OP: begin
          decoded_o.op_b_is_imm = 1'b0;
          decoded_o.writes_rd   = 1'b1;
          if (funct7 == 7'b0000001) begin
            decoded_o.instr_class = CLASS_MULDIV;
          end else if (funct7 == 7'b0000000 ||
                       (funct7 == 7'b0100000 && (funct3 == 3'b000 || funct3 == 3'b101))) begin
            decoded_o.instr_class = CLASS_ALU;
            decoded_o.alu_op      = alu_op_of(funct3, funct7[5]);
          end
        end
        OPC_MISC_MEM: begin
          // FENCE (any pred/succ) and FENCE.I.
          if (funct3 == 3'b000 || funct3 == 3'b001) decoded_o.instr_class = CLASS_FENCE;
        end
        OPC_SYSTEM: begin
          if (funct3 == 3'b000) begin
            // The privileged instructions are whole fixed words.
            unique case (instr_i)
              32'h0000_0073: decoded_o.instr_class = CLASS_ECALL;
              32'h0010_0073: decoded_o.instr_class = CLASS_EBREAK;
              32'h3020_0073: decoded_o.instr_class = CLASS_MRET;
              32'h1050_0073: decoded_o.instr_class = CLASS_WFI;
              default:       decoded_o.instr_class = CLASS_ILLEGAL;
            endcase
          end else if (funct3 != 3'b100) begin
            // CSRRW CSRRS CSRRC and their immediate forms (the CSR module
            // checks the address and the write to a read-only CSR).
            decoded_o.instr_class = CLASS_CSR;
            decoded_o.writes_rd   = 1'b1;
          end
        end
        default: decoded_o.instr_class = CLASS_ILLEGAL;
      endcase
    end

    // rd = x0 is dropped by the register file; the fields below are only read
    // for their own classes, so nothing else depends on them.
    if (rd == 5'd0) decoded_o.writes_rd = 1'b0;
  end

endmodule
