// SPDX-License-Identifier: MIT
// The BAR0 register blocks, as the host and the firmware see them: the chain
// ID, CMDQ, CPLQ, IRQ, ENGINES, NETPORT, COUNTERS of include/quire/regs.h, one
// page each in docs/registers/ (consumers walk the chain, so only the order is
// a choice; every quire card puts them 0x100 apart):
//   - the host writes only what the pages let it (queue base, size, CTRL, its
//     own index; IRQ status write-1-to-clear and mask); any other host write is
//     dropped, but still counts as an event for the firmware;
//   - a queue CTRL write resets both indices, sets STATUS (ENABLED, BAD_RING
//     for an unusable base or size, 0 when disabled) and bumps the queue
//     epoch (docs/registers/cmdq.md);
//   - the firmware writes any word of the blocks (its FW_STATE, indices,
//     counters);
//   - a raise from the control block sets IRQ STATUS bits, counts in IRQ
//     COUNT, and sends an interrupt (one-cycle pulse, like an MSI) when a
//     raised cause is enabled in MASK.
// The command counters (CMDS_OK, CMDS_ERR, DMA_BYTES) and the queue indices also move when
// the queue engine serves a command itself.
// The words the firmware alone writes are a RAM (a word not yet written reads its reset
// value: headers and ID from quire_card_pkg, else 0), so that they need no list; the few
// that the host or the card's blocks write are registers.
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
  // The network port (quire_card_net): its NETPORT record (docs/registers/netport.md), kept
  // current every cycle, and QUIRE_CAP_NET in the caps while it is on a network.
  input  logic        net_link_i,
  input  logic [15:0] net_addr_i,
  input  logic [31:0] net_tx_frames_i,
  input  logic [31:0] net_rx_frames_i,
  input  logic [31:0] net_rx_errors_i,
  input  logic [63:0] net_tx_bytes_i,
  input  logic [31:0] net_tx_drops_i,
  // A command the queue engine served itself (quire_card_queue): at its end the command
  // queue's CONSUMER and CMDS_OK or CMDS_ERR advance and DMA_BYTES grows by its bytes;
  // once its record is written the completion queue's PRODUCER advances.
  input  logic        served_i,
  input  logic        served_ok_i,
  input  logic [31:0] served_bytes_i,
  input  logic        posted_i,
  output logic [31:0] queue_epoch_o,
  output logic [31:0] cmdq_producer_o,   // for the queue engine's descriptor fetcher
  output logic [31:0] cmdq_consumer_o,
  output logic [31:0] cplq_producer_o,   // and for the commands it serves
  output logic [31:0] cplq_consumer_o,
  output logic        irq_o
);

  // Where this card puts its blocks, 0x100 apart (any placement the walk of docs/registers.md
  // accepts would do; every card of quire uses this one).
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

  // The words in two parts. The live words, those that something other than the firmware
  // writes (the host, the IRQ raise, the engines, the network port) or that the port reads
  // every cycle, are registers, a few dozen of them; every other word is only ever written by
  // the firmware, one at a time, so it is a RAM with one write port (no reset), beside a
  // written bit per word (reset 0): a word not written since reset reads its reset value.
  // Reads are in the cycle of the request, as before; a synthesis tool maps the RAM to LUT
  // RAM, and neither a simulator nor a synthesis tool handles a 14336-bit register whole.
  localparam int unsigned QWords   = (Q_STATUS - Q_BASE_LO) / 4 + 1;       // 0x10..0x28
  localparam int unsigned IrqWords = (IRQ_COUNT - IRQ_STATUS) / 4 + 1;     // 0x10..0x18
  localparam int unsigned NetWords = (NET_TX_DROPS - NET_LINK) / 4 + 1;   // the record
  // The live words' places: CMDQ's and CPLQ's queue registers, IRQ's, CAPS, the NETPORT
  // record, and each engine's OPS and CYCLES.
  localparam int unsigned LCmdq  = 0;
  localparam int unsigned LCplq  = LCmdq + QWords;
  localparam int unsigned LIrq   = LCplq + QWords;
  localparam int unsigned LCaps  = LIrq + IrqWords;
  localparam int unsigned LNet   = LCaps + 1;
  localparam int unsigned LEng   = LNet + NetWords;
  localparam int unsigned LCnt   = LEng + 2 * NumEngines;  // CMDS_OK .. DMA_BYTES_HI
  localparam int unsigned CntWords = (CNT_DMA_BYTES_HI - CNT_CMDS_OK) / 4 + 1;
  localparam int unsigned NumLive = LCnt + CntWords;


  // The word each live register stands for.
  function automatic logic [NumLive-1:0][8:0] live_words();
    logic [NumLive-1:0][8:0] w;
    for (int unsigned i = 0; i < QWords; i++) begin
      w[LCmdq + i] = word(RbCmdq, Q_BASE_LO + 4 * i);
      w[LCplq + i] = word(RbCplq, Q_BASE_LO + 4 * i);
    end
    for (int unsigned i = 0; i < IrqWords; i++) w[LIrq + i] = word(RbIrq, IRQ_STATUS + 4 * i);
    w[LCaps] = word(RbId, ID_CAPS);
    for (int unsigned i = 0; i < NetWords; i++) begin
      w[LNet + i] = word(RbNetport, NET_RECORD0 + NET_LINK + 4 * i);
    end
    for (int unsigned i = 0; i < NumEngines; i++) begin
      w[LEng + 2 * i]     = word(RbEngines, ENG_RECORD0 + ENG_RECORD_STEP * i + ENG_OPS);
      w[LEng + 2 * i + 1] = word(RbEngines, ENG_RECORD0 + ENG_RECORD_STEP * i + ENG_CYCLES);
    end
    for (int unsigned i = 0; i < CntWords; i++) w[LCnt + i] = word(RbCounters, CNT_CMDS_OK + 4 * i);
    live_words = w;
  endfunction
  localparam logic [NumLive-1:0][8:0] LiveAt = live_words();

  // A word's value at reset: headers and ID from quire_card_pkg, the engines' kinds
  // 1..NumEngines and the one network port, everything else 0.
  localparam int unsigned WEng      = 32'(word(RbEngines, ENG_RECORD0));
  localparam int unsigned EngStep   = ENG_RECORD_STEP / 4;
  function automatic logic [31:0] reset_word(index_t i);
    reset_word = 32'd0;
    if (i == word(RbId, RB_TYPE))          reset_word = RB_TYPE_ID;
    if (i == word(RbId, RB_VERSION))       reset_word = RB_ID_VERSION;
    if (i == word(RbId, RB_NEXT))          reset_word = RbCmdq;
    if (i == word(RbCmdq, RB_TYPE))        reset_word = RB_TYPE_CMDQ;
    if (i == word(RbCmdq, RB_VERSION))     reset_word = RB_CMDQ_VERSION;
    if (i == word(RbCmdq, RB_NEXT))        reset_word = RbCplq;
    if (i == word(RbCplq, RB_TYPE))        reset_word = RB_TYPE_CPLQ;
    if (i == word(RbCplq, RB_VERSION))     reset_word = RB_CPLQ_VERSION;
    if (i == word(RbCplq, RB_NEXT))        reset_word = RbIrq;
    if (i == word(RbIrq, RB_TYPE))         reset_word = RB_TYPE_IRQ;
    if (i == word(RbIrq, RB_VERSION))      reset_word = RB_IRQ_VERSION;
    if (i == word(RbIrq, RB_NEXT))         reset_word = RbEngines;
    if (i == word(RbEngines, RB_TYPE))     reset_word = RB_TYPE_ENGINES;
    if (i == word(RbEngines, RB_VERSION))  reset_word = RB_ENGINES_VERSION;
    if (i == word(RbEngines, RB_NEXT))     reset_word = RbNetport;
    if (i == word(RbNetport, RB_TYPE))     reset_word = RB_TYPE_NETPORT;
    if (i == word(RbNetport, RB_VERSION))  reset_word = RB_NETPORT_VERSION;
    if (i == word(RbNetport, RB_NEXT))     reset_word = RbCounters;
    if (i == word(RbCounters, RB_TYPE))    reset_word = RB_TYPE_COUNTERS;
    if (i == word(RbCounters, RB_VERSION)) reset_word = RB_COUNTERS_VERSION;
    if (i == word(RbId, ID_MAGIC))         reset_word = ID_MAGIC_VALUE;
    if (i == word(RbId, ID_IF_VERSION))    reset_word = INTERFACE_VERSION;
    if (i == word(RbId, ID_BOARD))         reset_word = BOARD_SIM_RTL;
    if (i == word(RbId, ID_CAPS))          reset_word = Caps;
    if (i == word(RbId, ID_BUILD_LO))      reset_word = HwBuildId[31:0];
    if (i == word(RbId, ID_BUILD_HI))      reset_word = HwBuildId[63:32];
    if (i == word(RbId, ID_FW_STATE))      reset_word = FW_STATE_BOOTING;
    if (i == word(RbId, ID_MEM_LO))        reset_word = MemBytes[31:0];
    if (i == word(RbId, ID_MEM_HI))        reset_word = MemBytes[63:32];
    if (i == word(RbId, ID_CLOCK_HZ))      reset_word = ClockHz;
    if (i == word(RbEngines, ENG_COUNT))   reset_word = NumEngines;
    if (32'(i) >= WEng && 32'(i) < WEng + EngStep * NumEngines &&
        (32'(i) - WEng) % EngStep == ENG_KIND / 4) begin
      reset_word = (32'(i) - WEng) / EngStep + 32'd1;
    end
    if (i == word(RbNetport, NET_COUNT))   reset_word = 32'd1;
  endfunction

  logic [NumLive-1:0][31:0] live_q;
  logic [31:0]              ram_q [Words];
  logic [Words-1:0]         written_q;
  logic [31:0] epoch_q;
  logic        irq_q;

  // ---- the host's accesses (docs/registers.md: aligned 32-bit words inside BAR0)
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

  // The two read ports, the host's and the firmware's: a live word from its register, any
  // other from the RAM once written, its reset value before.
  index_t      fw_at, host_at;
  logic [31:0] host_word, fw_word;
  assign fw_at   = fw_addr_i[10:2];
  assign host_at = host_addr_i[10:2];
  always_comb begin : read_ports
    host_word = written_q[host_at] ? ram_q[host_at] : reset_word(host_at);
    fw_word   = written_q[fw_at] ? ram_q[fw_at] : reset_word(fw_at);
    for (int unsigned k = 0; k < NumLive; k++) begin
      if (host_at == LiveAt[k]) host_word = live_q[k];
      if (fw_at == LiveAt[k])   fw_word   = live_q[k];
    end
  end

  always_comb begin : host_read
    if (!host_ok) begin
      host_rdata_o = 32'hffff_ffff;  // as a PCIe read of nothing
    end else if (host_addr_i == RbCounters + CNT_CYCLES_LO) begin
      host_rdata_o = cycles_i[31:0];
    end else if (host_addr_i == RbCounters + CNT_CYCLES_HI) begin
      host_rdata_o = cycles_i[63:32];
    end else if (host_addr_i < BlockBytes) begin
      host_rdata_o = host_word;
    end else begin
      host_rdata_o = 32'd0;
    end
  end

  // A queue CTRL write: the queue's new STATUS, from the base and size it has now.
  localparam int unsigned QBaseLo = (Q_BASE_LO - Q_BASE_LO) / 4;
  localparam int unsigned QBaseHi = (Q_BASE_HI - Q_BASE_LO) / 4;
  localparam int unsigned QLog2   = (Q_SIZE_LOG2 - Q_BASE_LO) / 4;
  logic        host_cmdq;
  logic [63:0] ctrl_base;
  logic [31:0] ctrl_log2, ctrl_status;
  assign host_cmdq = host_block == RbCmdq;  // else CPLQ, when it matters
  assign ctrl_base = host_cmdq ? {live_q[LCmdq + QBaseHi], live_q[LCmdq + QBaseLo]}
                               : {live_q[LCplq + QBaseHi], live_q[LCplq + QBaseLo]};
  assign ctrl_log2 = host_cmdq ? live_q[LCmdq + QLog2] : live_q[LCplq + QLog2];
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

  // ---- the firmware's accesses: any word of the blocks (the firmware's HAL reaches all of BAR0)
  logic fw_in_blocks, fw_write;
  assign fw_in_blocks = {16'd0, fw_addr_i} < BlockBytes;
  assign fw_write     = fw_req_i && fw_we_i && fw_in_blocks;
  assign fw_rdata_o   = fw_in_blocks ? fw_word : 32'd0;

  // IRQ STATUS: raised bits set, then the host's write-1-to-clear, both in one cycle.
  localparam int unsigned LIrqStatus = LIrq + (IRQ_STATUS - IRQ_STATUS) / 4;
  localparam int unsigned LIrqMask   = LIrq + (IRQ_MASK - IRQ_STATUS) / 4;
  localparam int unsigned LIrqCount  = LIrq + (IRQ_COUNT - IRQ_STATUS) / 4;
  logic [31:0] irq_status_d, irq_mask;
  assign irq_mask     = live_q[LIrqMask];
  assign irq_status_d = (live_q[LIrqStatus] | (irq_raise_i ? irq_causes_i : 32'd0)) &
                        ~(host_irq_clear ? host_wdata_i : 32'd0);

  // The live words' next values: the firmware first, the host last, so in one cycle the
  // host's write wins. Word by word against constant indices (each word its own decoder).
  index_t q_ctrl, q_producer, q_consumer, q_status;
  assign q_ctrl     = word(host_block, Q_CTRL);
  assign q_producer = word(host_block, Q_PRODUCER);
  assign q_consumer = word(host_block, Q_CONSUMER);
  assign q_status   = word(host_block, Q_STATUS);
  logic [NumLive-1:0][31:0] live_d;
  logic [NetWords-1:0][31:0] net_record;
  localparam int unsigned QProducer = (Q_PRODUCER - Q_BASE_LO) / 4;
  localparam int unsigned QConsumer = (Q_CONSUMER - Q_BASE_LO) / 4;
  localparam int unsigned COk       = (CNT_CMDS_OK - CNT_CMDS_OK) / 4;
  localparam int unsigned CErr      = (CNT_CMDS_ERR - CNT_CMDS_OK) / 4;
  localparam int unsigned CBytesLo  = (CNT_DMA_BYTES_LO - CNT_CMDS_OK) / 4;
  localparam int unsigned CBytesHi  = (CNT_DMA_BYTES_HI - CNT_CMDS_OK) / 4;
  logic [63:0] bytes_sum;
  assign bytes_sum = {live_q[LCnt + CBytesHi], live_q[LCnt + CBytesLo]} + {32'd0, served_bytes_i};
  always_comb begin : next_live
    net_record = '0;
    net_record[(NET_LINK - NET_LINK) / 4]        = 32'd1;
    net_record[(NET_ADDR - NET_LINK) / 4]        = {16'd0, net_addr_i};
    net_record[(NET_TX_FRAMES - NET_LINK) / 4]   = net_tx_frames_i;
    net_record[(NET_RX_FRAMES - NET_LINK) / 4]   = net_rx_frames_i;
    net_record[(NET_RX_ERRORS - NET_LINK) / 4]   = net_rx_errors_i;
    net_record[(NET_TX_BYTES_LO - NET_LINK) / 4] = net_tx_bytes_i[31:0];
    net_record[(NET_TX_BYTES_HI - NET_LINK) / 4] = net_tx_bytes_i[63:32];
    net_record[(NET_TX_DROPS - NET_LINK) / 4]    = net_tx_drops_i;
    for (int unsigned k = 0; k < NumLive; k++) begin
      live_d[k] = live_q[k];
      if (fw_write && fw_at == LiveAt[k]) live_d[k] = fw_wdata_i;
      if (irq_raise_i && k == LIrqCount) live_d[k] = live_q[k] + 32'd1;
      if ((irq_raise_i || host_irq_clear) && k == LIrqStatus) live_d[k] = irq_status_d;
      if (host_irq_mask && k == LIrqMask) live_d[k] = host_wdata_i;
      for (int unsigned e = 0; e < NumEngines; e++) begin
        if (eng_done_i[e] && k == LEng + 2 * e)     live_d[k] = eng_ops_i[e];
        if (eng_done_i[e] && k == LEng + 2 * e + 1) live_d[k] = eng_cycles_i[e];
      end
      if (k == LCaps) live_d[k] = (Caps & caps_keep_q) | (net_link_i ? CAP_NET : 32'd0);
      for (int unsigned n = 0; n < NetWords; n++) begin
        if (net_link_i && k == LNet + n) live_d[k] = net_record[n];
      end
      if (served_i && k == LCmdq + QConsumer) live_d[k] = live_q[k] + 32'd1;
      if (posted_i && k == LCplq + QProducer) live_d[k] = live_q[k] + 32'd1;
      if (served_i && served_ok_i && k == LCnt + COk) live_d[k] = live_q[k] + 32'd1;
      if (served_i && !served_ok_i && k == LCnt + CErr) live_d[k] = live_q[k] + 32'd1;
      if (served_i && k == LCnt + CBytesLo) live_d[k] = bytes_sum[31:0];
      if (served_i && k == LCnt + CBytesHi) live_d[k] = bytes_sum[63:32];
      if (host_queue_store && host_at == LiveAt[k]) live_d[k] = host_wdata_i;
      if (host_queue_ctrl) begin
        if (q_ctrl == LiveAt[k])     live_d[k] = host_wdata_i & Q_CTRL_ENABLE;
        if (q_producer == LiveAt[k]) live_d[k] = 32'd0;
        if (q_consumer == LiveAt[k]) live_d[k] = 32'd0;
        if (q_status == LiveAt[k])   live_d[k] = ctrl_status;
      end
    end
  end

  // The engines of Caps the card names: all of them. Nothing in the card writes caps_keep_q
  // after reset (in hardware a constant); sim/rtl/card_public.vlt lets the test harness
  // clear an engine's bit before the firmware reads the caps, so that the firmware's refusal
  // of commands for an engine the card lacks runs on this card (tests/rtl/test_card_top.cpp).
  logic [31:0] caps_keep_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin : caps_keep
    if (!rst_ni) caps_keep_q <= '1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : registers
    if (!rst_ni) begin
      for (int unsigned k = 0; k < NumLive; k++) live_q[k] <= reset_word(LiveAt[k]);
      written_q <= '0;
      epoch_q   <= 32'd0;
      irq_q     <= 1'b0;
    end else begin
      live_q <= live_d;
      if (fw_write) written_q[fw_at] <= 1'b1;
      if (host_queue_ctrl) epoch_q <= epoch_q + 32'd1;
      irq_q <= irq_raise_i && (irq_causes_i & irq_mask) != 32'd0;
    end
  end

  // The RAM's one write port, the firmware's (its own process: a RAM has no reset). A write
  // to a live word lands here too, unread.
  always_ff @(posedge clk_i) begin : ram_write
    if (fw_write) ram_q[fw_at] <= fw_wdata_i;
  end

  assign queue_epoch_o   = epoch_q;
  assign cmdq_producer_o = live_q[LCmdq + QProducer];
  assign cmdq_consumer_o = live_q[LCmdq + QConsumer];
  assign cplq_producer_o = live_q[LCplq + QProducer];
  assign cplq_consumer_o = live_q[LCplq + QConsumer];
  assign irq_o           = irq_q;

  logic unused_bits;
  assign unused_bits = ^{host_block[31:11], host_reg[31:8], fw_addr_i[1:0], fw_addr_i[15:11]};

endmodule
