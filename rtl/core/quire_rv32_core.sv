// SPDX-License-Identifier: MIT
// quire's rv32im core: machine mode only, multi-cycle, one instruction at a
// time. Simple first: every instruction ends by fetching the next, so the CPI
// of each class is a fixed count (docs/rtl-core.md). An instruction that ends
// with its next pc known and nothing to look at between instructions (an ALU
// op, a branch or jump, a load's or store's answer, a multiply or divide)
// sends the next pc to the instruction port in its own last cycle and goes
// straight to EXECUTE; the others (CSR instructions, mret, WFI, traps, and any
// instruction while an interrupt is to be taken) go through FETCH:
//
//   FETCH    take a pending enabled interrupt, or send pc to the instruction port
//   EXECUTE  the instruction word arrives: decode, read registers, compute,
//            write rd and the next pc, or trap; loads, stores and M go on
//   MEMORY   the data port's answer: write a load's rd, or trap on a fault
//   MULDIV   wait for the multiplier/divider
//   WFI      wait for an enabled interrupt to be pending
//
// Both ports take a request in one cycle and answer (rvalid, with err for an
// access fault) in a later one; the core waits for the answer.
module quire_rv32_core
  import quire_rv32_pkg::*;
#(
  parameter logic [31:0] ResetAddr = 32'h0,
  parameter logic [31:0] HartId    = 32'h0
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // Instruction port (read only).
  output logic        instr_req_o,
  output logic [31:0] instr_addr_o,
  input  logic        instr_rvalid_i,
  input  logic [31:0] instr_rdata_i,
  input  logic        instr_err_i,

  // Data port: word address, byte enables, data on its byte lanes.
  output logic        data_req_o,
  output logic        data_we_o,
  output logic [3:0]  data_be_o,
  output logic [31:0] data_addr_o,
  output logic [31:0] data_wdata_o,
  input  logic        data_rvalid_i,
  input  logic [31:0] data_rdata_i,
  input  logic        data_err_i,

  // Interrupt lines (level): mip.MEIP and mip.MTIP.
  input  logic        irq_external_i,
  input  logic        irq_timer_i,

  // What happened this cycle, for the simulation's tracing and counting.
  output logic        retire_o,
  output logic        trap_o,
  output logic [31:0] trap_cause_o,
  output logic [31:0] trap_pc_o,
  output logic [31:0] trap_value_o,

  // The core sleeps in WFI: a card uses it to tell that a wait took its event.
  output logic        wfi_o
);

  typedef enum logic [2:0] {
    FETCH,
    EXECUTE,
    MEMORY,
    MULDIV,
    WFI
  } state_e;

  state_e      state_q, state_d;
  logic [31:0] pc_q, pc_d;
  logic [31:0] instr_q;

  // The instruction word: straight from the port in EXECUTE, held afterwards.
  logic [31:0] instr;
  assign instr = (state_q == EXECUTE) ? instr_rdata_i : instr_q;

  logic [4:0] rd, rs1, rs2;
  logic [2:0] funct3;
  assign rd     = instr[11:7];
  assign funct3 = instr[14:12];
  assign rs1    = instr[19:15];
  assign rs2    = instr[24:20];

  decoded_instr_t decoded;
  quire_rv32_decoder u_decoder (
    .instr_i   (instr),
    .decoded_o (decoded)
  );

  // ---- registers and operands
  logic        rd_write;
  logic [31:0] rd_value;
  logic [31:0] rs1_value, rs2_value;
  quire_rv32_regfile u_regfile (
    .clk_i       (clk_i),
    .rs1_i       (rs1),
    .rs2_i       (rs2),
    .rs1_value_o (rs1_value),
    .rs2_value_o (rs2_value),
    .write_i     (rd_write),
    .rd_i        (rd),
    .rd_value_i  (rd_value)
  );

  logic [31:0] alu_a, alu_b, alu_result;
  always_comb begin : select_operands
    unique case (decoded.op_a_sel)
      OP_A_PC:   alu_a = pc_q;
      OP_A_ZERO: alu_a = 32'd0;
      default:   alu_a = rs1_value;
    endcase
    alu_b = decoded.op_b_is_imm ? decoded.imm : rs2_value;
  end

  quire_rv32_alu u_alu (
    .op_i     (decoded.alu_op),
    .a_i      (alu_a),
    .b_i      (alu_b),
    .result_o (alu_result)
  );

  // ---- control flow
  logic branch_taken;
  always_comb begin : compare_branch
    unique case (funct3)
      3'b000:  branch_taken = rs1_value == rs2_value;                    // BEQ
      3'b001:  branch_taken = rs1_value != rs2_value;                    // BNE
      3'b100:  branch_taken = $signed(rs1_value) < $signed(rs2_value);   // BLT
      3'b101:  branch_taken = $signed(rs1_value) >= $signed(rs2_value);  // BGE
      3'b110:  branch_taken = rs1_value < rs2_value;                     // BLTU
      default: branch_taken = rs1_value >= rs2_value;                    // BGEU
    endcase
  end

  logic [31:0] pc_plus_4, pc_relative_target, jump_target;
  assign pc_plus_4          = pc_q + 32'd4;
  assign pc_relative_target = pc_q + decoded.imm;
  always_comb begin : choose_jump_target
    unique case (decoded.instr_class)
      CLASS_JALR:   jump_target = {alu_result[31:1], 1'b0};
      CLASS_JAL:    jump_target = pc_relative_target;
      CLASS_BRANCH: jump_target = branch_taken ? pc_relative_target : pc_plus_4;
      default:      jump_target = pc_plus_4;
    endcase
  end

  // ---- loads and stores: the address is the ALU's rs1 + imm
  logic [31:0] mem_addr;
  logic [1:0]  byte_offset;
  logic        mem_misaligned;
  assign mem_addr    = alu_result;
  assign byte_offset = mem_addr[1:0];
  always_comb begin : check_alignment
    unique case (funct3[1:0])
      2'b00:   mem_misaligned = 1'b0;              // byte
      2'b01:   mem_misaligned = byte_offset[0];    // half
      default: mem_misaligned = byte_offset != 2'b00;  // word
    endcase
  end

  logic [3:0]  store_be;
  logic [31:0] store_data;
  always_comb begin : place_store
    unique case (funct3[1:0])
      2'b00: begin
        store_be   = 4'b0001 << byte_offset;
        store_data = {4{rs2_value[7:0]}};
      end
      2'b01: begin
        store_be   = 4'b0011 << byte_offset;
        store_data = {2{rs2_value[15:0]}};
      end
      default: begin
        store_be   = 4'b1111;
        store_data = rs2_value;
      end
    endcase
  end

  logic [31:0] load_shifted, load_value;
  assign load_shifted = data_rdata_i >> {byte_offset, 3'b000};
  always_comb begin : extend_load
    unique case (funct3)
      3'b000:  load_value = {{24{load_shifted[7]}}, load_shifted[7:0]};    // LB
      3'b001:  load_value = {{16{load_shifted[15]}}, load_shifted[15:0]};  // LH
      3'b100:  load_value = {24'b0, load_shifted[7:0]};                    // LBU
      3'b101:  load_value = {16'b0, load_shifted[15:0]};                   // LHU
      default: load_value = load_shifted;                                  // LW
    endcase
  end

  // ---- M extension
  logic        muldiv_start, muldiv_done;
  logic [31:0] muldiv_result;
  quire_rv32_muldiv u_muldiv (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .start_i  (muldiv_start),
    .funct3_i (funct3),
    .a_i      (rs1_value),
    .b_i      (rs2_value),
    .done_o   (muldiv_done),
    .result_o (muldiv_result)
  );

  // ---- CSRs and traps
  logic        csr_commit, csr_writes, csr_illegal;
  logic [31:0] csr_rdata, csr_operand;
  logic        trap, mret, retire;
  logic [31:0] trap_cause, trap_value;
  logic [31:0] mtvec, mepc;
  logic        irq_pending, irq_take;
  logic [31:0] irq_cause;

  // CSRRxI take the rs1 field as a 5-bit immediate; CSRRS/C with x0 or 0 only read.
  assign csr_operand = funct3[2] ? {27'b0, rs1} : rs1_value;
  assign csr_writes  = (funct3[1:0] == CSR_OP_WRITE) || (rs1 != 5'd0);

  quire_rv32_csr #(
    .ResetAddr (ResetAddr),
    .HartId    (HartId)
  ) u_csr (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .csr_addr_i     (instr[31:20]),
    .csr_op_i       (csr_op_e'(funct3[1:0])),
    .csr_operand_i  (csr_operand),
    .csr_writes_i   (csr_writes),
    .csr_commit_i   (csr_commit),
    .csr_rdata_o    (csr_rdata),
    .csr_illegal_o  (csr_illegal),
    .trap_i         (trap),
    .trap_cause_i   (trap_cause),
    .trap_pc_i      (pc_q),
    .trap_value_i   (trap_value),
    .mret_i         (mret),
    .retire_i       (retire),
    .mtvec_o        (mtvec),
    .mepc_o         (mepc),
    .irq_external_i (irq_external_i),
    .irq_timer_i    (irq_timer_i),
    .irq_pending_o  (irq_pending),
    .irq_take_o     (irq_take),
    .irq_cause_o    (irq_cause)
  );

  // ---- the state machine
  logic fetch_next;  // this cycle ends an instruction and fetches the next at pc_d
  always_comb begin : step
    state_d      = state_q;
    pc_d         = pc_q;
    instr_req_o  = 1'b0;
    data_req_o   = 1'b0;
    data_we_o    = 1'b0;
    rd_write     = 1'b0;
    rd_value     = alu_result;
    muldiv_start = 1'b0;
    csr_commit   = 1'b0;
    trap         = 1'b0;
    trap_cause   = 32'd0;
    trap_value   = 32'd0;
    mret         = 1'b0;
    retire       = 1'b0;
    fetch_next   = 1'b0;

    unique case (state_q)
      FETCH: begin
        // Interrupts are taken between instructions: mepc is the one not yet run.
        if (irq_take) begin
          trap       = 1'b1;
          trap_cause = irq_cause;
        end else begin
          instr_req_o = 1'b1;
          state_d     = EXECUTE;
        end
      end

      EXECUTE: begin
        if (instr_rvalid_i) begin
          state_d = FETCH;
          pc_d    = pc_plus_4;
          if (instr_err_i) begin
            trap       = 1'b1;
            trap_cause = CAUSE_INSTR_ACCESS;
            trap_value = pc_q;
          end else begin
            unique case (decoded.instr_class)
              CLASS_ALU: begin
                rd_write = decoded.writes_rd;
                retire   = 1'b1;
              end
              CLASS_BRANCH, CLASS_JAL, CLASS_JALR: begin
                // No compressed instructions: a target not on 4 bytes traps
                // at the jump, with the target in mtval.
                if (jump_target[1]) begin
                  trap       = 1'b1;
                  trap_cause = CAUSE_INSTR_MISALIGNED;
                  trap_value = jump_target;
                end else begin
                  rd_write = decoded.writes_rd;
                  rd_value = pc_plus_4;
                  pc_d     = jump_target;
                  retire   = 1'b1;
                end
              end
              CLASS_LOAD, CLASS_STORE: begin
                if (mem_misaligned) begin
                  trap       = 1'b1;
                  trap_cause = (decoded.instr_class == CLASS_LOAD) ? CAUSE_LOAD_MISALIGNED
                                                                   : CAUSE_STORE_MISALIGNED;
                  trap_value = mem_addr;
                end else begin
                  data_req_o = 1'b1;
                  data_we_o  = decoded.instr_class == CLASS_STORE;
                  state_d    = MEMORY;
                  pc_d       = pc_q;
                end
              end
              CLASS_MULDIV: begin
                muldiv_start = 1'b1;
                state_d      = MULDIV;
                pc_d         = pc_q;
              end
              CLASS_CSR: begin
                if (csr_illegal) begin
                  trap       = 1'b1;
                  trap_cause = CAUSE_ILLEGAL_INSTR;
                  trap_value = instr;
                end else begin
                  csr_commit = 1'b1;
                  rd_write   = decoded.writes_rd;
                  rd_value   = csr_rdata;
                  retire     = 1'b1;
                end
              end
              CLASS_ECALL: begin
                trap       = 1'b1;
                trap_cause = CAUSE_ECALL_M;
              end
              CLASS_EBREAK: begin
                trap       = 1'b1;
                trap_cause = CAUSE_BREAKPOINT;
                trap_value = pc_q;
              end
              CLASS_MRET: begin
                mret   = 1'b1;
                pc_d   = mepc;
                retire = 1'b1;
              end
              CLASS_WFI: begin
                state_d = WFI;
                pc_d    = pc_q;
              end
              CLASS_FENCE: retire = 1'b1;
              default: begin
                trap       = 1'b1;
                trap_cause = CAUSE_ILLEGAL_INSTR;
                trap_value = instr;
              end
            endcase
          end
        end
      end

      MEMORY: begin
        if (data_rvalid_i) begin
          state_d = FETCH;
          if (data_err_i) begin
            trap       = 1'b1;
            trap_cause = (decoded.instr_class == CLASS_LOAD) ? CAUSE_LOAD_ACCESS
                                                             : CAUSE_STORE_ACCESS;
            trap_value = mem_addr;
          end else begin
            rd_write = decoded.writes_rd && decoded.instr_class == CLASS_LOAD;
            rd_value = load_value;
            pc_d     = pc_plus_4;
            retire   = 1'b1;
          end
        end
      end

      MULDIV: begin
        if (muldiv_done) begin
          rd_write = decoded.writes_rd;
          rd_value = muldiv_result;
          pc_d     = pc_plus_4;
          retire   = 1'b1;
          state_d  = FETCH;
        end
      end

      WFI: begin
        // Wakes on an enabled pending interrupt even with mstatus.MIE clear;
        // FETCH then takes it if MIE is set.
        if (irq_pending) begin
          pc_d    = pc_plus_4;
          retire  = 1'b1;
          state_d = FETCH;
        end
      end

      default: state_d = FETCH;
    endcase

    // A trap replaces whatever the instruction would have done.
    if (trap) begin
      pc_d    = mtvec;
      state_d = FETCH;
    end

    // The next fetch overlaps the end of this instruction, unless FETCH has something to
    // do (an interrupt to take) or the instruction may have changed what it would look at
    // (CSRs, mret) or waits (WFI).
    if (retire && !trap && state_d == FETCH && !irq_take &&
        !(state_q == EXECUTE &&
          (decoded.instr_class == CLASS_CSR || decoded.instr_class == CLASS_MRET)) &&
        state_q != WFI) begin
      fetch_next  = 1'b1;
      instr_req_o = 1'b1;
      state_d     = EXECUTE;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : advance
    if (!rst_ni) begin
      state_q <= FETCH;
      pc_q    <= ResetAddr;
      instr_q <= 32'd0;
    end else begin
      state_q <= state_d;
      pc_q    <= pc_d;
      if (state_q == EXECUTE && instr_rvalid_i) instr_q <= instr_rdata_i;
    end
  end

  assign instr_addr_o = fetch_next ? pc_d : pc_q;
  assign data_addr_o  = {mem_addr[31:2], 2'b00};
  assign data_be_o    = data_we_o ? store_be : 4'b1111;
  assign data_wdata_o = store_data;

  assign retire_o     = retire;
  assign trap_o       = trap;
  assign trap_cause_o = trap_cause;
  assign trap_pc_o    = pc_q;
  assign trap_value_o = trap_value;
  assign wfi_o        = state_q == WFI;

endmodule
