// SPDX-License-Identifier: MIT
// The card: the rv32im control core, its IMEM and DMEM (placed and sized as
// firmware/link.ld declares: the build passes them as parameters), card
// memory, the BAR0 register blocks the host sees, the firmware's control
// block, the DMA mover to host memory, the QUANT, REDUCE and MLP engines
// (quire_card_quant, quire_card_reduce, quire_card_mlp: QUANT and MLP share a wide port of
// card memory, REDUCE has its own), the network port (quire_card_net: frames in and out as beat streams; the
// harness carries them),
// the queue engine (quire_card_queue: descriptors in, completions out, sharing the
// mover's host-memory port), the interrupt line to the host, and a simulation I/O page
// (console, sim-exit). The core's data port reaches everything at the addresses of
// include/quire/card.h; any other address, a store to IMEM or a fetch outside
// it is an access fault. Register reads and writes are 32-bit (the HAL never
// does less); the memories honour byte enables.
//
// The core sleeps in WFI until an event: a host write to BAR0 (a doorbell, a
// queue change) raises its external line until a wait takes it, and the
// control block's wake-up time drives its timer line; the firmware's crt0
// enables both in mie and leaves mstatus.MIE clear, so they wake WFI without
// a trap. An event pending before the wait ends it at once (the firmware's
// hal_wait_event, firmware/hal.h, asks no more).
module quire_card_top
  import quire_card_pkg::*;
#(
  parameter logic [31:0] ImemBase  = 32'h0000_0000,
  parameter int unsigned ImemBytes = 1024,  // the build passes firmware/link.ld's
  parameter logic [31:0] DmemBase  = 32'h0001_0000,
  parameter int unsigned DmemBytes = 1024,  // the build passes firmware/link.ld's
  parameter int unsigned MemBytes  = quire_board_pkg::MEM_BYTES,  // boards/sim-rtl.toml
  parameter logic [31:0] ClockHz   = quire_board_pkg::CLOCK_HZ,
  parameter logic [63:0] HwBuildId = 64'd0
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // The ELF loader's backdoor into IMEM and DMEM, one word a cycle, under reset.
  input  logic        load_we_i,
  input  logic [31:0] load_addr_i,
  input  logic [31:0] load_data_i,
  output logic        load_miss_o,    // the word is in neither memory: the ELF does not fit

  // The host's BAR0 accesses: read data in the same cycle, writes at its end.
  input  logic        bar_req_i,
  input  logic        bar_we_i,
  input  logic [31:0] bar_addr_i,
  input  logic [31:0] bar_wdata_i,
  output logic [31:0] bar_rdata_o,

  // The host memory window the DMA mover may reach (size 0: no host attached).
  input  logic [63:0] host_win_base_i,
  input  logic [63:0] host_win_size_i,

  // Host memory (quire_card_dma, quire_card_queue).
  output logic         host_req_o,
  output logic         host_we_o,
  output logic [63:0]  host_be_o,
  output logic [63:0]  host_addr_o,
  output logic [511:0] host_wdata_o,
  input  logic         host_ready_i,
  input  logic         host_rvalid_i,
  input  logic [511:0] host_rdata_i,

  // Host memory, the second port: the DMA mover's channel 1 (the same rules as the first).
  output logic         host1_req_o,
  output logic         host1_we_o,
  output logic [63:0]  host1_be_o,
  output logic [63:0]  host1_addr_o,
  output logic [511:0] host1_wdata_o,
  input  logic         host1_ready_i,
  input  logic         host1_rvalid_i,
  input  logic [511:0] host1_rdata_i,

  // The interrupt to the host: a one-cycle pulse per raise of an enabled cause.
  output logic        irq_o,

  // The network: attached (link up) at this address; frames out and in, a beat a cycle
  // (quire_card_net).
  input  logic         net_link_i,
  input  logic [15:0]  net_addr_i,
  output logic         net_tx_valid_o,
  input  logic         net_tx_ready_i,
  output logic [511:0] net_tx_data_o,
  output logic [6:0]   net_tx_bytes_o,
  output logic         net_tx_last_o,
  output logic [31:0]  net_tx_crc_o,
  input  logic         net_tx_done_i,
  input  logic [31:0]  net_tx_status_i,
  input  logic         net_tx_nobody_i,
  input  logic         net_rx_valid_i,
  output logic         net_rx_ready_o,
  input  logic [511:0] net_rx_data_i,
  input  logic [6:0]   net_rx_bytes_i,
  input  logic         net_rx_last_i,

  // Simulation I/O.
  output logic        console_valid_o,
  output logic [7:0]  console_byte_o,
  output logic        exit_valid_o,
  output logic [31:0] exit_code_o,

  // The core's per-cycle report, for tracing and statistics.
  output logic        retire_o,
  output logic        trap_o,
  output logic [31:0] trap_cause_o,
  output logic [31:0] trap_pc_o,
  output logic [31:0] trap_value_o
);

  localparam int unsigned ImemWords = ImemBytes / 4;
  localparam int unsigned DmemWords = DmemBytes / 4;
  localparam int unsigned MemWords  = MemBytes / 4;
  localparam int unsigned ImemBits  = $clog2(ImemWords);
  localparam int unsigned DmemBits  = $clog2(DmemWords);
  localparam int unsigned MemBits   = $clog2(MemWords);
  localparam int unsigned MemLines  = MemBytes / 64;
  localparam int unsigned LineBits  = $clog2(MemLines);
  localparam int unsigned NumEngines = 3;  // QUANT (kind 1), REDUCE (kind 2), MLP (kind 3)

  localparam logic [31:0] CtlBytes   = 32'h100;
  localparam logic [31:0] DmaBytes   = DMA_CHANNEL_BYTES * DMA_CHANNELS;
  localparam int unsigned DmaRegBits = $clog2(DMA_CHANNEL_BYTES);
  localparam logic [31:0] NetBytes   = 32'h100;
  localparam logic [31:0] SimIoBytes = 32'h100;
  localparam logic [31:0] QueueBytes = QE_BYTES;

  // ---- the core
  logic        instr_req, instr_rvalid_q, instr_err_q;
  logic [31:0] instr_addr, instr_rdata;
  logic        data_req, data_we, data_rvalid_q, data_err_q;
  logic [3:0]  data_be;
  logic [31:0] data_addr, data_wdata, data_rdata;
  logic        event_q, timer, core_wfi;

  quire_rv32_core #(
    .ResetAddr (ImemBase),
    .HartId    (32'd0)
  ) u_core (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .instr_req_o    (instr_req),
    .instr_addr_o   (instr_addr),
    .instr_rvalid_i (instr_rvalid_q),
    .instr_rdata_i  (instr_rdata),
    .instr_err_i    (instr_err_q),
    .data_req_o     (data_req),
    .data_we_o      (data_we),
    .data_be_o      (data_be),
    .data_addr_o    (data_addr),
    .data_wdata_o   (data_wdata),
    .data_rvalid_i  (data_rvalid_q || net_rvalid),
    .data_rdata_i   (data_rdata),
    .data_err_i     (data_err_q),
    .irq_external_i (event_q),
    .irq_timer_i    (timer),
    .retire_o       (retire_o),
    .trap_o         (trap_o),
    .trap_cause_o   (trap_cause_o),
    .trap_pc_o      (trap_pc_o),
    .trap_value_o   (trap_value_o),
    .wfi_o          (core_wfi)
  );

  // ---- the data port's address map (offsets wrap, so a base of 0 needs no special case)
  logic [31:0] imem_offset, dmem_offset, bar_offset, ctl_offset, dma_offset, net_offset, qe_offset;
  logic [31:0] eng_offset, sim_offset, mem_offset, fetch_offset, load_imem_offset, load_dmem_offset;
  assign imem_offset      = data_addr - ImemBase;
  assign dmem_offset      = data_addr - DmemBase;
  assign bar_offset       = data_addr - CARD_BAR;
  assign ctl_offset       = data_addr - CARD_CTL;
  assign dma_offset       = data_addr - CARD_DMA;
  assign net_offset       = data_addr - CARD_NET;
  assign qe_offset        = data_addr - CARD_QUEUE;
  assign eng_offset       = data_addr - CARD_ENGINES;
  assign sim_offset       = data_addr - CARD_SIM_IO;
  assign mem_offset       = data_addr - CARD_MEM;
  assign fetch_offset     = instr_addr - ImemBase;
  assign load_imem_offset = load_addr_i - ImemBase;
  assign load_dmem_offset = load_addr_i - DmemBase;

  typedef enum logic [3:0] {
    REGION_NONE,
    REGION_IMEM,
    REGION_DMEM,
    REGION_BAR,
    REGION_CTL,
    REGION_DMA,
    REGION_NET,
    REGION_QUANT,
    REGION_REDUCE,
    REGION_MLP,
    REGION_SIM_IO,
    REGION_QUEUE,
    REGION_MEM
  } region_e;

  region_e region, region_q;
  always_comb begin : decode
    if (imem_offset < ImemBytes)             region = REGION_IMEM;
    else if (dmem_offset < DmemBytes)        region = REGION_DMEM;
    else if (bar_offset < BAR0_BYTES)        region = REGION_BAR;
    else if (ctl_offset < CtlBytes)          region = REGION_CTL;
    else if (dma_offset < DmaBytes)          region = REGION_DMA;
    else if (net_offset < NetBytes)          region = REGION_NET;
    else if (eng_offset < CARD_ENGINE_BYTES) region = REGION_QUANT;
    else if (eng_offset < CARD_ENGINE_BYTES * 2) region = REGION_REDUCE;
    else if (eng_offset < CARD_ENGINE_BYTES * 3) region = REGION_MLP;
    else if (sim_offset < SimIoBytes)        region = REGION_SIM_IO;
    else if (qe_offset < QueueBytes)         region = REGION_QUEUE;
    else if (mem_offset < MemBytes)          region = REGION_MEM;
    else                                     region = REGION_NONE;
  end

  logic data_fault;
  assign data_fault = region == REGION_NONE || (region == REGION_IMEM && data_we);

  logic imem_req, dmem_req, bar_req, ctl_req, dma_req, net_req, quant_req, reduce_req, mlp_req;
  logic sim_write, mem_req, qe_req;
  assign imem_req  = data_req && region == REGION_IMEM && !data_we;
  assign dmem_req  = data_req && region == REGION_DMEM;
  assign bar_req   = data_req && region == REGION_BAR;
  assign ctl_req   = data_req && region == REGION_CTL;
  assign dma_req   = data_req && region == REGION_DMA;
  assign net_req   = data_req && region == REGION_NET;
  assign quant_req = data_req && region == REGION_QUANT;
  assign reduce_req = data_req && region == REGION_REDUCE;
  assign mlp_req    = data_req && region == REGION_MLP;
  assign sim_write = data_req && data_we && region == REGION_SIM_IO;
  assign mem_req   = data_req && region == REGION_MEM;
  assign qe_req    = data_req && region == REGION_QUEUE;

  // ---- IMEM: the fetch port, and the data port's reads (constants, .data's image) or the loader
  logic        fetch_in_imem;
  logic [31:0] imem_rdata;
  assign fetch_in_imem = fetch_offset < ImemBytes;

  logic load_imem, load_dmem;
  assign load_imem = load_we_i && load_imem_offset < ImemBytes;
  assign load_dmem = load_we_i && load_dmem_offset < DmemBytes;
  assign load_miss_o = load_we_i && !load_imem && !load_dmem;

  quire_card_ram #(.Words(ImemWords)) u_imem (
    .clk_i     (clk_i),
    .a_req_i   (imem_req || load_imem),
    .a_we_i    (load_imem),
    .a_be_i    (4'hf),
    .a_index_i (load_imem ? load_imem_offset[ImemBits+1:2] : imem_offset[ImemBits+1:2]),
    .a_wdata_i (load_data_i),
    .a_rdata_o (imem_rdata),
    .b_req_i   (instr_req && fetch_in_imem),
    .b_we_i    (1'b0),
    .b_be_i    (4'h0),
    .b_index_i (fetch_offset[ImemBits+1:2]),
    .b_wdata_i (32'd0),
    .b_rdata_o (instr_rdata)
  );

  logic [31:0] dmem_rdata, dmem_unused_rdata;
  quire_card_ram #(.Words(DmemWords)) u_dmem (
    .clk_i     (clk_i),
    .a_req_i   (dmem_req),
    .a_we_i    (data_we),
    .a_be_i    (data_be),
    .a_index_i (dmem_offset[DmemBits+1:2]),
    .a_wdata_i (data_wdata),
    .a_rdata_o (dmem_rdata),
    .b_req_i   (load_dmem),
    .b_we_i    (1'b1),
    .b_be_i    (4'hf),
    .b_index_i (load_dmem_offset[DmemBits+1:2]),
    .b_wdata_i (load_data_i),
    .b_rdata_o (dmem_unused_rdata)
  );

  // ---- BAR blocks, control block, DMA mover
  logic [31:0] bar_fw_rdata, ctl_rdata, dma_rdata, quant_rdata, reduce_rdata, mlp_rdata, queue_epoch, irq_causes;
  logic [31:0] qe_rdata, cmdq_producer, cmdq_consumer, cplq_producer, cplq_consumer;
  // The MLP_SCOREs the queue engine serves: its bookkeeping in the BAR, the MLP engine's run.
  logic        qe_served, qe_served_ok, qe_posted, ctl_irq_raise;
  logic [31:0] qe_served_bytes, ctl_irq_causes;
  logic        qmlp_start, qmlp_done, qmlp_ready, qmlp_host_req, qmlp_host_we;
  logic [31:0] qmlp_c, qmlp_status, qmlp_choice;
  logic [63:0] qmlp_feat, qmlp_feas, qmlp_scores, qmlp_host_be, qmlp_host_addr;
  logic [511:0] qmlp_host_wdata;
  logic [8:0]  qmlp_width0;
  // The network port's answers, events and counters (its instance is below).
  logic [31:0] net_rdata, net_tx_frames, net_rx_frames, net_rx_errors, net_tx_drops;
  logic [63:0] net_tx_bytes;
  logic        net_rvalid, net_event;
  logic [NumEngines-1:0]       eng_done;
  logic [NumEngines-1:0][31:0] eng_ops, eng_cycles;
  logic [63:0] cycles;
  logic        host_event, irq_raise;

  quire_card_bar #(
    .MemBytes  (64'(MemBytes)),
    .ClockHz   (ClockHz),
    .Caps       (CAP_CODEC | CAP_REDUCE | CAP_MLP),  // QUANT, REDUCE, MLP; CAP_NET while on a network
    .HwBuildId  (HwBuildId),
    .NumEngines (NumEngines)
  ) u_bar (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .host_req_i    (bar_req_i),
    .host_we_i     (bar_we_i),
    .host_addr_i   (bar_addr_i),
    .host_wdata_i  (bar_wdata_i),
    .host_rdata_o  (bar_rdata_o),
    .host_event_o  (host_event),
    .fw_req_i      (bar_req),
    .fw_we_i       (data_we),
    .fw_addr_i     (bar_offset[15:0]),
    .fw_wdata_i    (data_wdata),
    .fw_rdata_o    (bar_fw_rdata),
    .irq_raise_i   (irq_raise),
    .irq_causes_i  (irq_causes),
    .cycles_i      (cycles),
    .eng_done_i    (eng_done),
    .eng_ops_i     (eng_ops),
    .eng_cycles_i  (eng_cycles),
    .net_link_i      (net_link_i),
    .net_addr_i      (net_addr_i),
    .net_tx_frames_i (net_tx_frames),
    .net_rx_frames_i (net_rx_frames),
    .net_rx_errors_i (net_rx_errors),
    .net_tx_bytes_i  (net_tx_bytes),
    .net_tx_drops_i  (net_tx_drops),
    .served_i        (qe_served),
    .served_ok_i     (qe_served_ok),
    .served_bytes_i  (qe_served_bytes),
    .posted_i        (qe_posted),
    .queue_epoch_o (queue_epoch),
    .cmdq_producer_o (cmdq_producer),
    .cmdq_consumer_o (cmdq_consumer),
    .cplq_producer_o (cplq_producer),
    .cplq_consumer_o (cplq_consumer),
    .irq_o         (irq_o)
  );

  quire_card_ctl u_ctl (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .req_i           (ctl_req),
    .we_i            (data_we),
    .addr_i          (ctl_offset[7:0]),
    .wdata_i         (data_wdata),
    .rdata_o         (ctl_rdata),
    .queue_epoch_i   (queue_epoch),
    .host_win_base_i (host_win_base_i),
    .host_win_size_i (host_win_size_i),
    .cycles_o        (cycles),
    .irq_raise_o     (ctl_irq_raise),
    .irq_causes_o    (ctl_irq_causes),
    .timer_o         (timer)
  );
  // The firmware's raises, and QUIRE_IRQ_CPL for each record the queue engine posts itself.
  assign irq_raise  = ctl_irq_raise || qe_posted;
  assign irq_causes = (ctl_irq_raise ? ctl_irq_causes : 32'd0) | (qe_posted ? IRQ_CPL : 32'd0);

  logic         dma_mem_req, dma_mem_we, dma_busy, dma_host_req, dma_host_we;
  logic [63:0]  dma_host_be;
  logic [63:0]  dma_host_addr;
  logic [511:0] dma_host_wdata;
  logic [63:0]  dma_mem_be;
  logic [31:0]  dma_mem_addr;
  logic [511:0] dma_mem_wdata, dma_mem_rdata;
  // the block exponents a transfer to the card computes on its way (card memory port J)
  logic         dma_exp_req;
  logic [63:0]  dma_exp_be;
  logic [31:0]  dma_exp_addr;
  logic [511:0] dma_exp_wdata;

  // The offset's bits below DmaRegBits pick a DMA channel's register, the next one the channel.
  logic        dma_channel;
  logic [31:0] dma0_rdata, dma1_rdata;
  assign dma_channel = dma_offset[DmaRegBits];
  assign dma_rdata   = dma_channel ? dma1_rdata : dma0_rdata;

  quire_card_dma #(
    .MemBytes (64'(MemBytes))
  ) u_dma (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .req_i           (dma_req && !dma_channel),
    .we_i            (data_we),
    .addr_i          (dma_offset[DmaRegBits-1:0]),
    .wdata_i         (data_wdata),
    .rdata_o         (dma0_rdata),
    .queue_epoch_i   (queue_epoch),
    .host_win_base_i (host_win_base_i),
    .host_win_size_i (host_win_size_i),
    .mem_req_o       (dma_mem_req),
    .mem_we_o        (dma_mem_we),
    .mem_be_o        (dma_mem_be),
    .mem_addr_o      (dma_mem_addr),
    .mem_wdata_o     (dma_mem_wdata),
    .mem_rdata_i     (dma_mem_rdata),
    .exp_req_o       (dma_exp_req),
    .exp_be_o        (dma_exp_be),
    .exp_addr_o      (dma_exp_addr),
    .exp_wdata_o     (dma_exp_wdata),
    .hold_i          (qe_busy),
    .busy_o          (dma_busy),
    .host_req_o      (dma_host_req),
    .host_we_o       (dma_host_we),
    .host_be_o       (dma_host_be),
    .host_addr_o     (dma_host_addr),
    .host_wdata_o    (dma_host_wdata),
    .host_ready_i    (host_ready_i),
    .host_rvalid_i   (host_rvalid_i),
    .host_rdata_i    (host_rdata_i)
  );

  // DMA channel 1: its own host port and card memory port, never held by the queue engine
  // (which uses channel 0's port); the firmware runs a transfer each way at once on them.
  logic         dma1_mem_req, dma1_mem_we, dma1_busy;
  logic [63:0]  dma1_mem_be;
  logic [31:0]  dma1_mem_addr;
  logic [511:0] dma1_mem_wdata, dma1_mem_rdata;
  logic         dma1_exp_req;  // (card memory port K)
  logic [63:0]  dma1_exp_be;
  logic [31:0]  dma1_exp_addr;
  logic [511:0] dma1_exp_wdata;

  quire_card_dma #(
    .MemBytes (64'(MemBytes)),
    .Decode   (1'b1)  // QUIRE_DMA_DECODE_CHANNEL
  ) u_dma1 (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .req_i           (dma_req && dma_channel),
    .we_i            (data_we),
    .addr_i          (dma_offset[DmaRegBits-1:0]),
    .wdata_i         (data_wdata),
    .rdata_o         (dma1_rdata),
    .queue_epoch_i   (queue_epoch),
    .host_win_base_i (host_win_base_i),
    .host_win_size_i (host_win_size_i),
    .mem_req_o       (dma1_mem_req),
    .mem_we_o        (dma1_mem_we),
    .mem_be_o        (dma1_mem_be),
    .mem_addr_o      (dma1_mem_addr),
    .mem_wdata_o     (dma1_mem_wdata),
    .mem_rdata_i     (dma1_mem_rdata),
    .exp_req_o       (dma1_exp_req),
    .exp_be_o        (dma1_exp_be),
    .exp_addr_o      (dma1_exp_addr),
    .exp_wdata_o     (dma1_exp_wdata),
    .hold_i          (1'b0),
    .busy_o          (dma1_busy),
    .host_req_o      (host1_req_o),
    .host_we_o       (host1_we_o),
    .host_be_o       (host1_be_o),
    .host_addr_o     (host1_addr_o),
    .host_wdata_o    (host1_wdata_o),
    .host_ready_i    (host1_ready_i),
    .host_rvalid_i   (host1_rvalid_i),
    .host_rdata_i    (host1_rdata_i)
  );

  // ---- the queue engine: descriptors in and completions out over the mover's host port
  logic         qe_busy, qe_host_req, qe_host_we;
  logic [63:0]  qe_host_addr, qe_host_be;
  logic [511:0] qe_host_wdata;

  quire_card_queue u_queue (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .req_i           (qe_req),
    .we_i            (data_we),
    .addr_i          (qe_offset[7:0]),
    .wdata_i         (data_wdata),
    .rdata_o         (qe_rdata),
    .queue_epoch_i   (queue_epoch),
    .host_win_base_i (host_win_base_i),
    .host_win_size_i (host_win_size_i),
    .cmdq_producer_i (cmdq_producer),
    .cmdq_consumer_i (cmdq_consumer),
    .cplq_producer_i (cplq_producer),
    .cplq_consumer_i (cplq_consumer),
    .cycles_i        (cycles[31:0]),
    .mover_busy_i    (dma_busy),
    .busy_o          (qe_busy),
    .host_req_o      (qe_host_req),
    .host_we_o       (qe_host_we),
    .host_addr_o     (qe_host_addr),
    .host_wdata_o    (qe_host_wdata),
    .host_be_o       (qe_host_be),
    .host_ready_i    (host_ready_i),
    .host_rvalid_i   (host_rvalid_i),
    .host_rdata_i    (host_rdata_i),
    .mlp_ready_i      (qmlp_ready),
    .mlp_width0_i     (qmlp_width0),
    .mlp_start_o      (qmlp_start),
    .mlp_c_o          (qmlp_c),
    .mlp_feat_o       (qmlp_feat),
    .mlp_feas_o       (qmlp_feas),
    .mlp_scores_o     (qmlp_scores),
    .mlp_done_i       (qmlp_done),
    .mlp_status_i     (qmlp_status),
    .mlp_choice_i     (qmlp_choice),
    .mlp_host_req_i   (qmlp_host_req),
    .mlp_host_we_i    (qmlp_host_we),
    .mlp_host_be_i    (qmlp_host_be),
    .mlp_host_addr_i  (qmlp_host_addr),
    .mlp_host_wdata_i (qmlp_host_wdata),
    .served_o         (qe_served),
    .served_ok_o      (qe_served_ok),
    .served_bytes_o   (qe_served_bytes),
    .posted_o         (qe_posted)
  );

  // One of the two has the port at a time (busy_o / hold_i); each takes only the answers
  // to its own requests.
  assign host_req_o   = qe_busy ? qe_host_req : dma_host_req;
  assign host_we_o    = qe_busy ? qe_host_we : dma_host_we;
  assign host_be_o    = qe_busy ? qe_host_be : dma_host_be;
  assign host_addr_o  = qe_busy ? qe_host_addr : dma_host_addr;
  assign host_wdata_o = qe_busy ? qe_host_wdata : dma_host_wdata;

  // ---- the QUANT engine: its register window and a line-wide port of card memory
  logic                qmem_req, qmem_we;
  logic [63:0]         qmem_be;
  logic [LineBits-1:0] qmem_line;
  logic [511:0]        qmem_wdata, qmem_rdata;
  logic                qwr_req;
  logic [63:0]         qwr_be;
  logic [LineBits-1:0] qwr_line;
  logic [511:0]        qwr_wdata;

  quire_card_quant #(
    .MemBytes (64'(MemBytes)),
    .LineBits (LineBits)
  ) u_quant (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_i       (quant_req),
    .we_i        (data_we),
    .addr_i      (eng_offset[11:0]),
    .wdata_i     (data_wdata),
    .rdata_o     (quant_rdata),
    .mem_req_o   (qmem_req),
    .mem_we_o    (qmem_we),
    .mem_be_o    (qmem_be),
    .mem_line_o  (qmem_line),
    .mem_wdata_o (qmem_wdata),
    .mem_rdata_i (qmem_rdata),
    .wr_req_o    (qwr_req),
    .wr_be_o     (qwr_be),
    .wr_line_o   (qwr_line),
    .wr_wdata_o  (qwr_wdata),
    .done_o      (eng_done[0]),
    .ops_o       (eng_ops[0]),
    .cycles_o    (eng_cycles[0])
  );

  // ---- the REDUCE engine: its register window and line-wide ports of its own, so that it
  // runs while QUANT does
  logic                rmem_req, rmem_we;
  logic [63:0]         rmem_be;
  logic [LineBits-1:0] rmem_line;
  logic [511:0]        rmem_wdata, rmem_rdata;
  logic                rwr_req;
  logic [63:0]         rwr_be;
  logic [LineBits-1:0] rwr_line;
  logic [511:0]        rwr_wdata;

  quire_card_reduce #(
    .MemBytes (64'(MemBytes)),
    .LineBits (LineBits)
  ) u_reduce (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_i       (reduce_req),
    .we_i        (data_we),
    .addr_i      (eng_offset[11:0]),
    .wdata_i     (data_wdata),
    .rdata_o     (reduce_rdata),
    .mem_req_o   (rmem_req),
    .mem_we_o    (rmem_we),
    .mem_be_o    (rmem_be),
    .mem_line_o  (rmem_line),
    .mem_wdata_o (rmem_wdata),
    .mem_rdata_i (rmem_rdata),
    .wr_req_o    (rwr_req),
    .wr_be_o     (rwr_be),
    .wr_line_o   (rwr_line),
    .wr_wdata_o  (rwr_wdata),
    .done_o      (eng_done[1]),
    .ops_o       (eng_ops[1]),
    .cycles_o    (eng_cycles[1])
  );

  // ---- the MLP engine: its register window and QUANT's line-wide port (the firmware runs
  // one of the two at a time: the port goes to the one that asks)
  logic                mmem_req, mmem_we;
  logic [63:0]         mmem_be;
  logic [LineBits-1:0] mmem_line;
  logic [511:0]        mmem_wdata;

  quire_card_mlp #(
    .MemBytes (64'(MemBytes)),
    .LineBits (LineBits)
  ) u_mlp (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_i       (mlp_req),
    .we_i        (data_we),
    .addr_i      (eng_offset[11:0]),
    .wdata_i     (data_wdata),
    .rdata_o     (mlp_rdata),
    .mem_req_o   (mmem_req),
    .mem_we_o    (mmem_we),
    .mem_be_o    (mmem_be),
    .mem_line_o  (mmem_line),
    .mem_wdata_o (mmem_wdata),
    .mem_rdata_i (qmem_rdata),
    .done_o      (eng_done[2]),
    .ops_o       (eng_ops[2]),
    .cycles_o    (eng_cycles[2]),
    .hw_start_i   (qmlp_start),
    .hw_c_i       (qmlp_c),
    .hw_feat_i    (qmlp_feat),
    .hw_feas_i    (qmlp_feas),
    .hw_scores_i  (qmlp_scores),
    .hw_done_o    (qmlp_done),
    .hw_status_o  (qmlp_status),
    .hw_choice_o  (qmlp_choice),
    .ready_o      (qmlp_ready),
    .width0_o     (qmlp_width0),
    .host_req_o   (qmlp_host_req),
    .host_we_o    (qmlp_host_we),
    .host_be_o    (qmlp_host_be),
    .host_addr_o  (qmlp_host_addr),
    .host_wdata_o (qmlp_host_wdata),
    .host_ready_i (host_ready_i),
    .host_rvalid_i (host_rvalid_i),
    .host_rdata_i (host_rdata_i)
  );

  logic                emem_req, emem_we;
  logic [63:0]         emem_be;
  logic [LineBits-1:0] emem_line;
  logic [511:0]        emem_wdata;
  assign emem_req   = qmem_req || mmem_req;
  assign emem_we    = mmem_req ? mmem_we : qmem_we;
  assign emem_be    = mmem_req ? mmem_be : qmem_be;
  assign emem_line  = mmem_req ? mmem_line : qmem_line;
  assign emem_wdata = mmem_req ? mmem_wdata : qmem_wdata;

  // ---- the network port: its register window, a line-wide port of card memory for each
  // direction (D transmit, G receive), and the frame streams
  logic                nmem_req, nmem_we, gmem_req, gmem_we;
  logic [63:0]         nmem_be, gmem_be;
  logic [LineBits-1:0] nmem_line, gmem_line;
  logic [511:0]        nmem_wdata, nmem_rdata, gmem_wdata, gmem_rdata;

  quire_card_net #(
    .MemBytes (64'(MemBytes)),
    .LineBits (LineBits)
  ) u_net (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .req_i            (net_req),
    .we_i             (data_we),
    .addr_i           (net_offset[7:0]),
    .wdata_i          (data_wdata),
    .rdata_o          (net_rdata),
    .rvalid_o         (net_rvalid),
    .link_i           (net_link_i),
    .port_addr_i      (net_addr_i),
    .mem_req_o        (nmem_req),
    .mem_we_o         (nmem_we),
    .mem_be_o         (nmem_be),
    .mem_line_o       (nmem_line),
    .mem_wdata_o      (nmem_wdata),
    .mem_rdata_i      (nmem_rdata),
    .rmem_req_o       (gmem_req),
    .rmem_we_o        (gmem_we),
    .rmem_be_o        (gmem_be),
    .rmem_line_o      (gmem_line),
    .rmem_wdata_o     (gmem_wdata),
    .rmem_rdata_i     (gmem_rdata),
    .tx_valid_o       (net_tx_valid_o),
    .tx_ready_i       (net_tx_ready_i),
    .tx_data_o        (net_tx_data_o),
    .tx_bytes_o       (net_tx_bytes_o),
    .tx_last_o        (net_tx_last_o),
    .tx_crc_o         (net_tx_crc_o),
    .tx_done_i        (net_tx_done_i),
    .tx_status_i      (net_tx_status_i),
    .tx_nobody_i      (net_tx_nobody_i),
    .rx_valid_i       (net_rx_valid_i),
    .rx_ready_o       (net_rx_ready_o),
    .rx_data_i        (net_rx_data_i),
    .rx_bytes_i       (net_rx_bytes_i),
    .rx_last_i        (net_rx_last_i),
    .rx_event_o       (net_event),
    .tx_frames_o      (net_tx_frames),
    .rx_frames_o      (net_rx_frames),
    .rx_errors_o      (net_rx_errors),
    .tx_bytes_total_o (net_tx_bytes),
    .tx_drops_o       (net_tx_drops)
  );

  // ---- card memory: the core's data port, the DMA mover, the engines and the network port
  logic [31:0] mem_rdata;
  quire_card_mem #(.Lines(MemLines)) u_mem (
    .clk_i     (clk_i),
    .a_req_i   (mem_req),
    .a_we_i    (data_we),
    .a_be_i    (data_be),
    .a_index_i (mem_offset[MemBits+1:2]),
    .a_wdata_i (data_wdata),
    .a_rdata_o (mem_rdata),
    .b_req_i   (dma_mem_req),
    .b_we_i    (dma_mem_we),
    .b_be_i    (dma_mem_be),
    .b_line_i  (dma_mem_addr[MemBits+1:6]),
    .b_wdata_i (dma_mem_wdata),
    .b_rdata_o (dma_mem_rdata),
    .c_req_i   (emem_req),
    .c_we_i    (emem_we),
    .c_be_i    (emem_be),
    .c_line_i  (emem_line),
    .c_wdata_i (emem_wdata),
    .c_rdata_o (qmem_rdata),
    .d_req_i   (nmem_req),
    .d_we_i    (nmem_we),
    .d_be_i    (nmem_be),
    .d_line_i  (nmem_line),
    .d_wdata_i (nmem_wdata),
    .d_rdata_o (nmem_rdata),
    .e_req_i   (qwr_req),
    .e_be_i    (qwr_be),
    .e_line_i  (qwr_line),
    .e_wdata_i (qwr_wdata),
    .f_req_i   (dma1_mem_req),
    .f_we_i    (dma1_mem_we),
    .f_be_i    (dma1_mem_be),
    .f_line_i  (dma1_mem_addr[MemBits+1:6]),
    .f_wdata_i (dma1_mem_wdata),
    .f_rdata_o (dma1_mem_rdata),
    .g_req_i   (gmem_req),
    .g_we_i    (gmem_we),
    .g_be_i    (gmem_be),
    .g_line_i  (gmem_line),
    .g_wdata_i (gmem_wdata),
    .g_rdata_o (gmem_rdata),
    .h_req_i   (rmem_req),
    .h_we_i    (rmem_we),
    .h_be_i    (rmem_be),
    .h_line_i  (rmem_line),
    .h_wdata_i (rmem_wdata),
    .h_rdata_o (rmem_rdata),
    .i_req_i   (rwr_req),
    .i_be_i    (rwr_be),
    .i_line_i  (rwr_line),
    .i_wdata_i (rwr_wdata),
    .j_req_i   (dma_exp_req),
    .j_be_i    (dma_exp_be),
    .j_line_i  (dma_exp_addr[MemBits+1:6]),
    .j_wdata_i (dma_exp_wdata),
    .k_req_i   (dma1_exp_req),
    .k_be_i    (dma1_exp_be),
    .k_line_i  (dma1_exp_addr[MemBits+1:6]),
    .k_wdata_i (dma1_exp_wdata)
  );

  // ---- the core's wake-up: a host write or a frame's arrival is an event until a wait takes it
  always_ff @(posedge clk_i or negedge rst_ni) begin : wake_event
    if (!rst_ni) begin
      event_q <= 1'b0;
    end else if (host_event || net_event) begin
      event_q <= 1'b1;
    end else if (core_wfi) begin
      event_q <= 1'b0;
    end
  end

  // ---- simulation I/O
  assign console_valid_o = sim_write && sim_offset == SIM_IO_CONSOLE;
  assign console_byte_o  = data_wdata[7:0];
  assign exit_valid_o    = sim_write && sim_offset == SIM_IO_EXIT;
  assign exit_code_o     = data_wdata;

  // ---- answers, one cycle after the request; registers are read now, memories answer then
  logic [31:0] reg_rdata_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin : answer_ports
    if (!rst_ni) begin
      instr_rvalid_q <= 1'b0;
      instr_err_q    <= 1'b0;
      data_rvalid_q  <= 1'b0;
      data_err_q     <= 1'b0;
      region_q       <= REGION_NONE;
      reg_rdata_q    <= 32'd0;
    end else begin
      instr_rvalid_q <= instr_req;
      instr_err_q    <= instr_req && !fetch_in_imem;
      data_rvalid_q  <= data_req && region != REGION_NET;  // the port answers for itself
      data_err_q     <= data_req && data_fault;
      if (data_req) region_q <= region;
      if (data_req && !data_we) begin
        unique case (region)
          REGION_BAR: reg_rdata_q <= bar_fw_rdata;
          REGION_CTL: reg_rdata_q <= ctl_rdata;
          REGION_DMA: reg_rdata_q <= dma_rdata;
          REGION_NET: reg_rdata_q <= net_rdata;
          REGION_QUANT: reg_rdata_q <= quant_rdata;
          REGION_REDUCE: reg_rdata_q <= reduce_rdata;
          REGION_MLP: reg_rdata_q <= mlp_rdata;
          REGION_QUEUE: reg_rdata_q <= qe_rdata;
          default:    reg_rdata_q <= 32'd0;
        endcase
      end
    end
  end

  always_comb begin : data_answer
    unique case (region_q)
      REGION_IMEM: data_rdata = imem_rdata;
      REGION_DMEM: data_rdata = dmem_rdata;
      REGION_MEM:  data_rdata = mem_rdata;
      default:     data_rdata = reg_rdata_q;
    endcase
  end

  // Only the offsets' index bits and range checks are used.
  logic unused_bits;
  assign unused_bits = ^{imem_offset, dmem_offset, bar_offset[31:16], ctl_offset[31:8],
                         dma_offset[31:DmaRegBits+1], net_offset[31:8], qe_offset[31:8], eng_offset[31:12], sim_offset, mem_offset, fetch_offset,
                         load_imem_offset, load_dmem_offset, dmem_unused_rdata, dma_mem_addr, dma1_mem_addr, dma1_busy,
                         dma_exp_addr, dma1_exp_addr};

endmodule
