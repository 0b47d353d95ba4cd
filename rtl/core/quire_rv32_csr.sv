// SPDX-License-Identifier: MIT
// Machine-mode CSRs of the rv32im core: status and interrupt enables, trap
// state (mtvec, mepc, mcause, mtval, mscratch), the cycle and retired-
// instruction counters, and the read-only identity registers. It also keeps
// the trap bookkeeping: entering a trap saves the cause and the pc and
// disables interrupts; mret restores them.
module quire_rv32_csr
  import quire_rv32_pkg::*;
#(
  parameter logic [31:0] ResetAddr = 32'h0,
  parameter logic [31:0] HartId    = 32'h0
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // A CSR instruction being executed: its address, operation and operand.
  // `writes` is low for CSRRS/CSRRC with rs1 = x0 (or a zero immediate),
  // which only read. `commit` performs the write.
  input  logic [11:0] csr_addr_i,
  input  csr_op_e     csr_op_i,
  input  logic [31:0] csr_operand_i,
  input  logic        csr_writes_i,
  input  logic        csr_commit_i,
  output logic [31:0] csr_rdata_o,
  output logic        csr_illegal_o,  // no such CSR, or a write to a read-only one

  // Traps and returns.
  input  logic        trap_i,
  input  logic [31:0] trap_cause_i,
  input  logic [31:0] trap_pc_i,
  input  logic [31:0] trap_value_i,
  input  logic        mret_i,
  input  logic        retire_i,       // one instruction completed (minstret)
  output logic [31:0] mtvec_o,
  output logic [31:0] mepc_o,

  // Interrupts: the lines, whether any enabled one is pending (WFI wakes on
  // that), and whether to take one now with its cause.
  input  logic        irq_external_i,
  input  logic        irq_timer_i,
  output logic        irq_pending_o,
  output logic        irq_take_o,
  output logic [31:0] irq_cause_o
);

  logic        mstatus_mie_q, mstatus_mpie_q;
  logic        mie_meie_q, mie_mtie_q;
  logic [31:0] mtvec_q, mscratch_q, mepc_q, mcause_q, mtval_q;
  logic [63:0] mcycle_q, minstret_q;

  logic [31:0] mstatus_value, mie_value, mip_value;
  // MPP (bits 12:11) reads 3: machine mode is the only mode.
  assign mstatus_value = {19'b0, 2'b11, 3'b0, mstatus_mpie_q, 3'b0, mstatus_mie_q, 3'b0};
  assign mie_value     = {20'b0, mie_meie_q, 3'b0, mie_mtie_q, 7'b0};
  assign mip_value     = {20'b0, irq_external_i, 3'b0, irq_timer_i, 7'b0};

  // ---- read, and the legality of the access
  logic known;
  always_comb begin : read_csr
    known       = 1'b1;
    csr_rdata_o = 32'd0;
    unique case (csr_addr_i)
      CSR_MSTATUS:                csr_rdata_o = mstatus_value;
      CSR_MISA:                   csr_rdata_o = MISA_VALUE;
      CSR_MIE:                    csr_rdata_o = mie_value;
      CSR_MTVEC:                  csr_rdata_o = mtvec_q;
      CSR_MSTATUSH:               csr_rdata_o = 32'd0;
      CSR_MSCRATCH:               csr_rdata_o = mscratch_q;
      CSR_MEPC:                   csr_rdata_o = mepc_q;
      CSR_MCAUSE:                 csr_rdata_o = mcause_q;
      CSR_MTVAL:                  csr_rdata_o = mtval_q;
      CSR_MIP:                    csr_rdata_o = mip_value;
      CSR_MCYCLE, CSR_CYCLE:      csr_rdata_o = mcycle_q[31:0];
      CSR_MCYCLEH, CSR_CYCLEH:    csr_rdata_o = mcycle_q[63:32];
      CSR_MINSTRET, CSR_INSTRET:  csr_rdata_o = minstret_q[31:0];
      CSR_MINSTRETH, CSR_INSTRETH: csr_rdata_o = minstret_q[63:32];
      CSR_MVENDORID, CSR_MARCHID, CSR_MIMPID, CSR_MCONFIGPTR: csr_rdata_o = 32'd0;
      CSR_MHARTID:                csr_rdata_o = HartId;
      default:                    known = 1'b0;
    endcase
  end

  // Addresses 0xC00-0xFFF are read-only by the privileged spec's convention.
  assign csr_illegal_o = !known || (csr_writes_i && csr_addr_i[11:10] == 2'b11);

  logic [31:0] csr_wdata;
  always_comb begin : write_value
    unique case (csr_op_i)
      CSR_OP_SET:   csr_wdata = csr_rdata_o | csr_operand_i;
      CSR_OP_CLEAR: csr_wdata = csr_rdata_o & ~csr_operand_i;
      default:      csr_wdata = csr_operand_i;
    endcase
  end

  logic write;
  assign write = csr_commit_i && csr_writes_i && !csr_illegal_o;

  // ---- interrupts: external first, then timer (the privileged spec's order)
  logic external_pending, timer_pending;
  assign external_pending = irq_external_i && mie_meie_q;
  assign timer_pending    = irq_timer_i && mie_mtie_q;
  assign irq_pending_o    = external_pending || timer_pending;
  assign irq_take_o       = mstatus_mie_q && irq_pending_o;
  assign irq_cause_o      = external_pending ? CAUSE_IRQ_EXTERNAL : CAUSE_IRQ_TIMER;

  // ---- state
  always_ff @(posedge clk_i or negedge rst_ni) begin : update_csrs
    if (!rst_ni) begin
      mstatus_mie_q  <= 1'b0;
      mstatus_mpie_q <= 1'b0;
      mie_meie_q     <= 1'b0;
      mie_mtie_q     <= 1'b0;
      mtvec_q        <= ResetAddr;
      mscratch_q     <= '0;
      mepc_q         <= '0;
      mcause_q       <= '0;
      mtval_q        <= '0;
      mcycle_q       <= '0;
      minstret_q     <= '0;
    end else begin
      // Counters first: a CSR write in the same cycle wins over the count.
      mcycle_q <= mcycle_q + 64'd1;
      if (retire_i) minstret_q <= minstret_q + 64'd1;

      if (trap_i) begin
        mepc_q         <= trap_pc_i;  // always a multiple of 4: misaligned targets trap first
        mcause_q       <= trap_cause_i;
        mtval_q        <= trap_value_i;
        mstatus_mpie_q <= mstatus_mie_q;
        mstatus_mie_q  <= 1'b0;
      end else if (mret_i) begin
        mstatus_mie_q  <= mstatus_mpie_q;
        mstatus_mpie_q <= 1'b1;
      end else if (write) begin
        unique case (csr_addr_i)
          CSR_MSTATUS: begin
            mstatus_mie_q  <= csr_wdata[MSTATUS_MIE];
            mstatus_mpie_q <= csr_wdata[MSTATUS_MPIE];
          end
          CSR_MIE: begin
            mie_meie_q <= csr_wdata[IRQ_EXTERNAL];
            mie_mtie_q <= csr_wdata[IRQ_TIMER];
          end
          // Direct mode only: MODE (bits 1:0) reads 0.
          CSR_MTVEC:     mtvec_q    <= {csr_wdata[31:2], 2'b00};
          CSR_MSCRATCH:  mscratch_q <= csr_wdata;
          // No compressed instructions: mepc is a multiple of 4.
          CSR_MEPC:      mepc_q     <= {csr_wdata[31:2], 2'b00};
          CSR_MCAUSE:    mcause_q   <= csr_wdata;
          CSR_MTVAL:     mtval_q    <= csr_wdata;
          CSR_MCYCLE:    mcycle_q[31:0]    <= csr_wdata;
          CSR_MCYCLEH:   mcycle_q[63:32]   <= csr_wdata;
          CSR_MINSTRET:  minstret_q[31:0]  <= csr_wdata;
          CSR_MINSTRETH: minstret_q[63:32] <= csr_wdata;
          // misa, mstatush and mip: writable addresses whose bits are fixed here.
          default: ;
        endcase
      end
    end
  end

  assign mtvec_o = mtvec_q;
  assign mepc_o  = mepc_q;

endmodule
