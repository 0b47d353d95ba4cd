// SPDX-License-Identifier: MIT
// Constants and types shared by the modules of the rv32im core: opcodes,
// CSR addresses, trap causes, and the decoder's output.
package quire_rv32_pkg;

  // Major opcodes (instruction bits 6:0) of RV32I + M, machine mode only.
  typedef enum logic [6:0] {
    OPC_LOAD     = 7'b0000011,
    OPC_MISC_MEM = 7'b0001111,
    OPC_OP_IMM   = 7'b0010011,
    OPC_AUIPC    = 7'b0010111,
    OPC_STORE    = 7'b0100011,
    OPC_OP       = 7'b0110011,
    OPC_LUI      = 7'b0110111,
    OPC_BRANCH   = 7'b1100011,
    OPC_JALR     = 7'b1100111,
    OPC_JAL      = 7'b1101111,
    OPC_SYSTEM   = 7'b1110011
  } opcode_e;

  // What the core does with an instruction after decoding: one class per path
  // through its state machine.
  typedef enum logic [3:0] {
    CLASS_ALU,      // rd = alu(a, b): OP, OP-IMM, LUI, AUIPC
    CLASS_BRANCH,
    CLASS_JAL,
    CLASS_JALR,
    CLASS_LOAD,
    CLASS_STORE,
    CLASS_MULDIV,
    CLASS_CSR,
    CLASS_ECALL,
    CLASS_EBREAK,
    CLASS_MRET,
    CLASS_WFI,
    CLASS_FENCE,    // FENCE and FENCE.I: no caches, no buffers, so nothing to order
    CLASS_ILLEGAL
  } instr_class_e;

  typedef enum logic [3:0] {
    ALU_ADD,
    ALU_SUB,
    ALU_SLL,
    ALU_SLT,
    ALU_SLTU,
    ALU_XOR,
    ALU_SRL,
    ALU_SRA,
    ALU_OR,
    ALU_AND
  } alu_op_e;

  typedef enum logic [1:0] {
    OP_A_RS1,
    OP_A_PC,
    OP_A_ZERO
  } op_a_sel_e;

  typedef struct packed {
    instr_class_e instr_class;
    alu_op_e      alu_op;
    op_a_sel_e    op_a_sel;
    logic         op_b_is_imm;
    logic [31:0]  imm;
    logic         writes_rd;
  } decoded_instr_t;

  // CSR instructions' funct3 (bits 1:0 after dropping the immediate bit 2).
  typedef enum logic [1:0] {
    CSR_OP_WRITE = 2'b01,
    CSR_OP_SET   = 2'b10,
    CSR_OP_CLEAR = 2'b11
  } csr_op_e;

  // CSR addresses implemented (machine mode, and the user counters' read-only aliases).
  localparam logic [11:0] CSR_MSTATUS    = 12'h300;
  localparam logic [11:0] CSR_MISA       = 12'h301;
  localparam logic [11:0] CSR_MIE        = 12'h304;
  localparam logic [11:0] CSR_MTVEC      = 12'h305;
  localparam logic [11:0] CSR_MSTATUSH   = 12'h310;
  localparam logic [11:0] CSR_MSCRATCH   = 12'h340;
  localparam logic [11:0] CSR_MEPC       = 12'h341;
  localparam logic [11:0] CSR_MCAUSE     = 12'h342;
  localparam logic [11:0] CSR_MTVAL      = 12'h343;
  localparam logic [11:0] CSR_MIP        = 12'h344;
  localparam logic [11:0] CSR_MCYCLE     = 12'hB00;
  localparam logic [11:0] CSR_MINSTRET   = 12'hB02;
  localparam logic [11:0] CSR_MCYCLEH    = 12'hB80;
  localparam logic [11:0] CSR_MINSTRETH  = 12'hB82;
  localparam logic [11:0] CSR_CYCLE      = 12'hC00;
  localparam logic [11:0] CSR_INSTRET    = 12'hC02;
  localparam logic [11:0] CSR_CYCLEH     = 12'hC80;
  localparam logic [11:0] CSR_INSTRETH   = 12'hC82;
  localparam logic [11:0] CSR_MVENDORID  = 12'hF11;
  localparam logic [11:0] CSR_MARCHID    = 12'hF12;
  localparam logic [11:0] CSR_MIMPID     = 12'hF13;
  localparam logic [11:0] CSR_MHARTID    = 12'hF14;
  localparam logic [11:0] CSR_MCONFIGPTR = 12'hF15;

  // misa: MXL = 1 (32 bits), extensions I and M.
  localparam logic [31:0] MISA_VALUE = 32'h4000_1100;

  // Bit positions in mstatus, mie and mip.
  localparam int unsigned MSTATUS_MIE  = 3;
  localparam int unsigned MSTATUS_MPIE = 7;
  localparam int unsigned IRQ_TIMER    = 7;   // MTIE / MTIP
  localparam int unsigned IRQ_EXTERNAL = 11;  // MEIE / MEIP

  // mcause values; interrupts have bit 31 set.
  localparam logic [31:0] CAUSE_INSTR_MISALIGNED = 32'd0;
  localparam logic [31:0] CAUSE_INSTR_ACCESS     = 32'd1;
  localparam logic [31:0] CAUSE_ILLEGAL_INSTR    = 32'd2;
  localparam logic [31:0] CAUSE_BREAKPOINT       = 32'd3;
  localparam logic [31:0] CAUSE_LOAD_MISALIGNED  = 32'd4;
  localparam logic [31:0] CAUSE_LOAD_ACCESS      = 32'd5;
  localparam logic [31:0] CAUSE_STORE_MISALIGNED = 32'd6;
  localparam logic [31:0] CAUSE_STORE_ACCESS     = 32'd7;
  localparam logic [31:0] CAUSE_ECALL_M          = 32'd11;
  localparam logic [31:0] CAUSE_IRQ_TIMER        = 32'h8000_0007;
  localparam logic [31:0] CAUSE_IRQ_EXTERNAL     = 32'h8000_000B;

endpackage
