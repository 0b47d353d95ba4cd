// SPDX-License-Identifier: MIT
// The control block, private to the firmware (docs/registers/ctl.md,
// include/quire/card.h QUIRE_CTL_*): the queue epoch
// (kept by the BAR blocks, which bump it), the free-running cycle counter
// (reading LO latches HI, so a 64-bit read is consistent), the host memory
// window the DMA mover reaches (set from outside the card, as an address
// translation table would be), the firmware's wake-up time, and IRQ_RAISE.
// The wake-up time drives the core's timer line: the firmware's WFI ends at
// the latest when the counter reaches it (0: no limit).
module quire_card_ctl
  import quire_card_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,

  input  logic        req_i,
  input  logic        we_i,
  input  logic [7:0]  addr_i,   // offset in the block
  input  logic [31:0] wdata_i,
  output logic [31:0] rdata_o,

  input  logic [31:0] queue_epoch_i,
  input  logic [63:0] host_win_base_i,
  input  logic [63:0] host_win_size_i,

  output logic [63:0] cycles_o,
  output logic        irq_raise_o,
  output logic [31:0] irq_causes_o,
  output logic        timer_o
);

  logic [63:0] cycles_q, wake_at_q;
  logic [31:0] cycles_hi_latch_q;

  logic [31:0] reg_offset;
  assign reg_offset = {24'd0, addr_i};

  logic write, read;
  assign write = req_i && we_i;
  assign read  = req_i && !we_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin : registers
    if (!rst_ni) begin
      cycles_q          <= 64'd0;
      wake_at_q         <= 64'd0;
      cycles_hi_latch_q <= 32'd0;
    end else begin
      cycles_q <= cycles_q + 64'd1;
      if (read && reg_offset == CTL_CYCLES_LO) cycles_hi_latch_q <= cycles_q[63:32];
      if (write && reg_offset == CTL_WAKE_AT_LO) wake_at_q[31:0] <= wdata_i;
      if (write && reg_offset == CTL_WAKE_AT_HI) wake_at_q[63:32] <= wdata_i;
    end
  end

  always_comb begin : read_mux
    unique case (reg_offset)
      CTL_QUEUE_EPOCH:        rdata_o = queue_epoch_i;
      CTL_CYCLES_LO:          rdata_o = cycles_q[31:0];
      CTL_CYCLES_HI:          rdata_o = cycles_hi_latch_q;
      CTL_HOST_WIN_BASE_LO:   rdata_o = host_win_base_i[31:0];
      CTL_HOST_WIN_BASE_HI:   rdata_o = host_win_base_i[63:32];
      CTL_HOST_WIN_SIZE_LO:   rdata_o = host_win_size_i[31:0];
      CTL_HOST_WIN_SIZE_HI:   rdata_o = host_win_size_i[63:32];
      CTL_WAKE_AT_LO:         rdata_o = wake_at_q[31:0];
      CTL_WAKE_AT_HI:         rdata_o = wake_at_q[63:32];
      default:                rdata_o = 32'd0;
    endcase
  end

  assign cycles_o     = cycles_q;
  assign irq_raise_o  = write && reg_offset == CTL_IRQ_RAISE;
  assign irq_causes_o = wdata_i;
  assign timer_o      = wake_at_q != 64'd0 && cycles_q >= wake_at_q;

endmodule
