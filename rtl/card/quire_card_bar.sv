// SPDX-License-Identifier: MIT
// The BAR0 register blocks, as the host and the firmware see them: the chain
// ID, CMDQ, CPLQ, IRQ, ENGINES, NETPORT, COUNTERS of include/quire/regs.h, at
// the offsets sim/emu/emu.c uses (consumers walk the chain, so only the order
// is a choice). The behaviour is emu.c's, register for register:
//   - the host writes only what emu_mmio_write lets it (queue base, size,
//     CTRL, its own index; IRQ status write-1-to-clear and mask); any other
//     host write is dropped, but still counts as an event for the firmware;
//   - a queue CTRL write resets both indices, sets STATUS (ENABLED, BAD_RING
//     for an unusable base or size, 0 when disabled) and bumps the queue
//     epoch, exactly as emu.c queue_ctrl;
//   - the firmware writes any word of the blocks (its FW_STATE, indices,
//     counters), as the emu's HAL does;
//   - a raise from the control block sets IRQ STATUS bits, counts in IRQ
//     COUNT, and sends an interrupt (one-cycle pulse, like an MSI) when a
//     raised cause is enabled in MASK.
// The words are one array, so that the firmware-writable words need no list;
// the header and ID words are set at reset from quire_card_pkg.
module quire_card_bar
  import quire_card_pkg::*;
#(
  parameter logic [63:0] MemBytes  = 64'h0800_0000,
  parameter logic [31:0] ClockHz   = 32'd250_000_000,
  parameter logic [31:0] Caps      = 32'd0,
  parameter logic [63:0] HwBuildId = 64'd0,
  parameter int unsigned NumEngines = 1  // engines of kinds 1..NumEngines (ENGINES records)
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // The host's port: a BAR0 offset; read data in the same cycle, writes at its end.
  input  logic        host_req_i,
  input  logic        host_we_i,
  input  logic [31:0] host_addr_i,
  input  logic [31:0] host_wdata_i,
  output logic [31:0] host_rdata_o,
  output logic        host_event_o,   // a host write: something the firmware may look at

  // The firmware's port: a BAR0 offset (the top decodes the window).
  input  logic        fw_req_i,
  input  logic        fw_we_i,
  input  logic [15:0] fw_addr_i,
  input  logic [31:0] fw_wdata_i,
  output logic [31:0] fw_rdata_o,

  input  logic        irq_raise_i,
  input  logic [31:0] irq_causes_i,
  input  logic [63:0] cycles_i,
  // Each engine's statistics, written into its ENGINES record when it is done.
  input  logic [NumEngines-1:0]       eng_done_i,
  input  logic [NumEngines-1:0][31:0] eng_ops_i,
  input  logic [NumEngines-1:0][31:0] eng_cycles_i,
  // The network port (quire_card_net): its NETPORT record, kept current every cycle as the
  // emu's is on every read, and QUIRE_CAP_NET in the caps while it is on a network.
  input  logic        net_link_i,
  input  logic [15:0] net_addr_i,
  input  logic [31:0] net_tx_frames_i,
  input  logic [31:0] net_rx_frames_i,
  input  logic [31:0] net_rx_errors_i,
  input  logic [63:0] net_tx_bytes_i,
  input  logic [31:0] net_tx_drops_i,
  output logic [31:0] queue_epoch_o,
  output logic [31:0] cmdq_producer_o,   // for the queue engine's descriptor fetcher
  output logic [31:0] cmdq_consumer_o,
  output logic        irq_o
);

  // Where this card puts its blocks, 0x100 apart as in emu.c.
  localparam logic [31:0] RbId       = 32'h000;
  localparam logic [31:0] RbCmdq     = 32'h100;
  localparam logic [31:0] RbCplq     = 32'h200;
  localparam logic [31:0] RbIrq      = 32'h300;
  localparam logic [31:0] RbEngines  = 32'h400;
  localparam logic [31:0] RbNetport  = 32'h500;
  localparam logic [31:0] RbCounters = 32'h600;
  localparam logic [31:0] BlockBytes = 32'h700;
  localparam int unsigned Words      = 32'h700 / 4;

  typedef logic [8:0] index_t;

  function automatic index_t word(logic [31:0] block, logic [31:0] register);
    return index_t'((block + register) >> 2);
  endfunction

  // The words as a packed array: Yosys 0.23 copies no whole unpacked array.
  logic [Words-1:0][31:0] bar_q;
  logic [31:0] epoch_q;
  logic        irq_q;

  // ---- the host's accesses (emu.c emu_mmio_read/write)
  logic        host_ok;
  logic [31:0] host_block, host_reg;
  assign host_ok    = host_addr_i[1:0] == 2'b00 && host_addr_i < BAR0_BYTES;
  assign host_block = host_addr_i & ~32'hff;
  assign host_reg   = host_addr_i & 32'hff;

  logic host_write, host_queue, host_queue_ctrl, host_queue_store, host_irq_clear, host_irq_mask;
  assign host_write       = host_req_i && host_we_i && host_ok;
  assign host_queue       = host_block == RbCmdq || host_block == RbCplq;
  assign host_queue_ctrl  = host_write && host_queue && host_reg == Q_CTRL;
  assign host_queue_store = host_write && host_queue &&
      (host_reg == Q_BASE_LO || host_reg == Q_BASE_HI || host_reg == Q_SIZE_LOG2 ||
       (host_block == RbCmdq && host_reg == Q_PRODUCER) ||
       (host_block == RbCplq && host_reg == Q_CONSUMER));
  assign host_irq_clear   = host_write && host_block == RbIrq && host_reg == IRQ_STATUS;
  assign host_irq_mask    = host_write && host_block == RbIrq && host_reg == IRQ_MASK;
  assign host_event_o     = host_write;

  always_comb begin : host_read
    if (!host_ok) begin
      host_rdata_o = 32'hffff_ffff;  // as a PCIe read of nothing
    end else if (host_addr_i == RbCounters + CNT_CYCLES_LO) begin
      host_rdata_o = cycles_i[31:0];
    end else if (host_addr_i == RbCounters + CNT_CYCLES_HI) begin
      host_rdata_o = cycles_i[63:32];
    end else if (host_addr_i < BlockBytes) begin
      host_rdata_o = bar_q[host_addr_i[10:2]];
    end else begin
      host_rdata_o = 32'd0;
    end
  end

  // A queue CTRL write: the queue's new STATUS, from the base and size it has now.
  logic [63:0] ctrl_base;
  logic [31:0] ctrl_log2, ctrl_status;
  assign ctrl_base = {bar_q[word(host_block, Q_BASE_HI)], bar_q[word(host_block, Q_BASE_LO)]};
  assign ctrl_log2 = bar_q[word(host_block, Q_SIZE_LOG2)];
  always_comb begin : queue_status
    if ((host_wdata_i & Q_CTRL_ENABLE) == 32'd0) begin
      ctrl_status = 32'd0;
    end else if (ctrl_base == 64'd0 || ctrl_base[5:0] != 6'd0 || ctrl_log2 < Q_MIN_LOG2 ||
                 ctrl_log2 > Q_MAX_LOG2) begin
      ctrl_status = Q_STATUS_BAD_RING;
    end else begin
      ctrl_status = Q_STATUS_ENABLED;
    end
  end

  // ---- the firmware's accesses: any word of the blocks (the emu's HAL reaches all of BAR0)
  logic fw_in_blocks, fw_write;
  assign fw_in_blocks = {16'd0, fw_addr_i} < BlockBytes;
  assign fw_write     = fw_req_i && fw_we_i && fw_in_blocks;
  assign fw_rdata_o   = fw_in_blocks ? bar_q[fw_addr_i[10:2]] : 32'd0;

  // IRQ STATUS: raised bits set, then the host's write-1-to-clear, both in one cycle.
  logic [31:0] irq_status_d, irq_mask;
  assign irq_mask     = bar_q[word(RbIrq, IRQ_MASK)];
  assign irq_status_d = (bar_q[word(RbIrq, IRQ_STATUS)] | (irq_raise_i ? irq_causes_i : 32'd0)) &
                        ~(host_irq_clear ? host_wdata_i : 32'd0);

  // The words at reset: headers and ID from quire_card_pkg, everything else 0.
  function automatic logic [Words-1:0][31:0] reset_words();
    logic [Words-1:0][31:0] w;
    for (int unsigned i = 0; i < Words; i++) w[i] = 32'd0;
    w[word(RbId, RB_TYPE)]          = RB_TYPE_ID;
    w[word(RbId, RB_VERSION)]       = RB_ID_VERSION;
    w[word(RbId, RB_NEXT)]          = RbCmdq;
    w[word(RbCmdq, RB_TYPE)]        = RB_TYPE_CMDQ;
    w[word(RbCmdq, RB_VERSION)]     = RB_CMDQ_VERSION;
    w[word(RbCmdq, RB_NEXT)]        = RbCplq;
    w[word(RbCplq, RB_TYPE)]        = RB_TYPE_CPLQ;
    w[word(RbCplq, RB_VERSION)]     = RB_CPLQ_VERSION;
    w[word(RbCplq, RB_NEXT)]        = RbIrq;
    w[word(RbIrq, RB_TYPE)]         = RB_TYPE_IRQ;
    w[word(RbIrq, RB_VERSION)]      = RB_IRQ_VERSION;
    w[word(RbIrq, RB_NEXT)]         = RbEngines;
    w[word(RbEngines, RB_TYPE)]     = RB_TYPE_ENGINES;
    w[word(RbEngines, RB_VERSION)]  = RB_ENGINES_VERSION;
    w[word(RbEngines, RB_NEXT)]     = RbNetport;
    w[word(RbNetport, RB_TYPE)]     = RB_TYPE_NETPORT;
    w[word(RbNetport, RB_VERSION)]  = RB_NETPORT_VERSION;
    w[word(RbNetport, RB_NEXT)]     = RbCounters;
    w[word(RbCounters, RB_TYPE)]    = RB_TYPE_COUNTERS;
    w[word(RbCounters, RB_VERSION)] = RB_COUNTERS_VERSION;
    w[word(RbId, ID_MAGIC)]         = ID_MAGIC_VALUE;
    w[word(RbId, ID_IF_VERSION)]    = INTERFACE_VERSION;
    w[word(RbId, ID_BOARD)]         = BOARD_SIM_RTL;
    w[word(RbId, ID_CAPS)]          = Caps;
    w[word(RbId, ID_BUILD_LO)]      = HwBuildId[31:0];
    w[word(RbId, ID_BUILD_HI)]      = HwBuildId[63:32];
    w[word(RbId, ID_FW_STATE)]      = FW_STATE_BOOTING;
    w[word(RbId, ID_MEM_LO)]        = MemBytes[31:0];
    w[word(RbId, ID_MEM_HI)]        = MemBytes[63:32];
    w[word(RbId, ID_CLOCK_HZ)]      = ClockHz;
    // The engines of kinds 1..NumEngines, and the one network port (its record: next_words).
    w[word(RbEngines, ENG_COUNT)]   = NumEngines;
    for (int unsigned i = 0; i < NumEngines; i++) begin
      w[word(RbEngines, ENG_RECORD0 + ENG_RECORD_STEP * i + ENG_KIND)] = i + 1;
    end
    w[word(RbNetport, NET_COUNT)]   = 32'd1;
    reset_words = w;
  endfunction

  // The next words: the firmware first, the host last, so in one cycle the host's write wins.
  // Word by word against indices computed once (each word its own decoder), not writes of
  // the whole array at a variable index: Yosys makes those a shift of all 14336 bits.
  localparam int unsigned WIrqCount  = 32'(word(RbIrq, IRQ_COUNT));
  localparam int unsigned WIrqStatus = 32'(word(RbIrq, IRQ_STATUS));
  localparam int unsigned WIrqMask   = 32'(word(RbIrq, IRQ_MASK));
  localparam int unsigned WCaps      = 32'(word(RbId, ID_CAPS));
  localparam int unsigned WNet       = 32'(word(RbNetport, NET_RECORD0));
  localparam int unsigned WEng       = 32'(word(RbEngines, ENG_RECORD0));
  localparam int unsigned EngStep   = ENG_RECORD_STEP / 4;
  localparam int unsigned EngOps    = ENG_OPS / 4;
  localparam int unsigned EngCycles = ENG_CYCLES / 4;
  index_t fw_at, host_at, q_ctrl, q_producer, q_consumer, q_status;
  assign fw_at      = fw_addr_i[10:2];
  assign host_at    = host_addr_i[10:2];
  assign q_ctrl     = word(host_block, Q_CTRL);
  assign q_producer = word(host_block, Q_PRODUCER);
  assign q_consumer = word(host_block, Q_CONSUMER);
  assign q_status   = word(host_block, Q_STATUS);
  logic [Words-1:0][31:0] bar_d;
  always_comb begin : next_words
    for (int unsigned i = 0; i < Words; i++) begin
      bar_d[i] = bar_q[i];
      if (fw_write && fw_at == index_t'(i)) bar_d[i] = fw_wdata_i;
      if (irq_raise_i && i == WIrqCount) bar_d[i] = bar_q[i] + 32'd1;
      if ((irq_raise_i || host_irq_clear) && i == WIrqStatus) bar_d[i] = irq_status_d;
      if (host_irq_mask && i == WIrqMask) bar_d[i] = host_wdata_i;
      for (int unsigned e = 0; e < NumEngines; e++) begin
        if (eng_done_i[e] && i == WEng + EngStep * e + EngOps)    bar_d[i] = eng_ops_i[e];
        if (eng_done_i[e] && i == WEng + EngStep * e + EngCycles) bar_d[i] = eng_cycles_i[e];
      end
      if (i == WCaps) bar_d[i] = Caps | (net_link_i ? CAP_NET : 32'd0);
      if (net_link_i) begin
        if (i == WNet + NET_LINK / 4)        bar_d[i] = 32'd1;
        if (i == WNet + NET_ADDR / 4)        bar_d[i] = {16'd0, net_addr_i};
        if (i == WNet + NET_TX_FRAMES / 4)   bar_d[i] = net_tx_frames_i;
        if (i == WNet + NET_RX_FRAMES / 4)   bar_d[i] = net_rx_frames_i;
        if (i == WNet + NET_RX_ERRORS / 4)   bar_d[i] = net_rx_errors_i;
        if (i == WNet + NET_TX_BYTES_LO / 4) bar_d[i] = net_tx_bytes_i[31:0];
        if (i == WNet + NET_TX_BYTES_HI / 4) bar_d[i] = net_tx_bytes_i[63:32];
        if (i == WNet + NET_TX_DROPS / 4)    bar_d[i] = net_tx_drops_i;
      end
      if (host_queue_store && host_at == index_t'(i)) bar_d[i] = host_wdata_i;
      if (host_queue_ctrl) begin
        if (q_ctrl == index_t'(i))     bar_d[i] = host_wdata_i & Q_CTRL_ENABLE;
        if (q_producer == index_t'(i)) bar_d[i] = 32'd0;
        if (q_consumer == index_t'(i)) bar_d[i] = 32'd0;
        if (q_status == index_t'(i))   bar_d[i] = ctrl_status;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : registers
    if (!rst_ni) begin
      bar_q   <= reset_words();
      epoch_q <= 32'd0;
      irq_q   <= 1'b0;
    end else begin
      bar_q <= bar_d;
      if (host_queue_ctrl) epoch_q <= epoch_q + 32'd1;
      irq_q <= irq_raise_i && (irq_causes_i & irq_mask) != 32'd0;
    end
  end

  assign queue_epoch_o = epoch_q;
  assign cmdq_producer_o = bar_q[word(RbCmdq, Q_PRODUCER)];
  assign cmdq_consumer_o = bar_q[word(RbCmdq, Q_CONSUMER)];
  assign irq_o         = irq_q;

  logic unused_bits;
  assign unused_bits = ^{host_block[31:11], host_reg[31:8], fw_addr_i[1:0], fw_addr_i[15:11]};

endmodule
