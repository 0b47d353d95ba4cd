// SPDX-License-Identifier: MIT
// The queue engine (include/quire/card.h QUIRE_QE_*, docs/registers/queue-engine.md):
// the host's rings in hardware, so that a command's way in and out costs the firmware
// a few register accesses instead of two DMA transfers it drives word by word.
//
// The descriptor fetcher: armed with the epoch's rings, whenever the command queue's
// PRODUCER (the host's doorbell) is ahead of its CONSUMER and DESC does not hold the
// descriptor at CONSUMER, it reads those 64 bytes from host memory into DESC, while the
// core wakes up. A new CONSUMER or a new queue epoch makes what it holds stale, and it
// fetches again; a new setup drops it. The completion writer: the firmware writes a
// record's words to CPL and the ring index to CPL_POST; the engine writes the 32 bytes
// at that slot, the phase word (from the index) last: the record's other words as one
// write, then the phase word. DESC_NONZERO marks the words of DESC that are not 0.
//
// Both run the DMA mover's checks (docs/registers/dma.md): the programmed epoch
// against the queue epoch (QUIRE_ERR_PEER), then the host window in 64-bit arithmetic
// (QUIRE_ERR_RANGE); a refused fetch holds a descriptor of zeros with its status, a
// refused post writes nothing. The engine shares the mover's host-memory port: it starts
// only while the mover is idle, and holds the mover's START while it runs (busy_o). The
// port moves 64-byte lines (a slot of the command ring is one, a completion slot half of
// one): a descriptor is one line read, a record two writes, the phase word's asked for
// in the cycle after the record's (the link keeps them in order).
module quire_card_queue
  import quire_card_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,

  // Registers (the core's data port).
  input  logic        req_i,
  input  logic        we_i,
  input  logic [7:0]  addr_i,
  input  logic [31:0] wdata_i,
  output logic [31:0] rdata_o,

  input  logic [31:0] queue_epoch_i,
  input  logic [63:0] host_win_base_i,
  input  logic [63:0] host_win_size_i,   // 0: no host attached
  input  logic [31:0] cmdq_producer_i,   // the BAR's command queue indices
  input  logic [31:0] cmdq_consumer_i,
  input  logic        mover_busy_i,      // the DMA mover has the host port
  output logic        busy_o,            // this engine has it

  // Host memory: line requests (taken while host_ready_i), one outstanding.
  output logic         host_req_o,
  output logic         host_we_o,
  output logic [63:0]  host_be_o,
  output logic [63:0]  host_addr_o,
  output logic [511:0] host_wdata_o,
  input  logic         host_ready_i,
  input  logic         host_rvalid_i,
  input  logic [511:0] host_rdata_i
);

  typedef enum logic [1:0] {
    IDLE,
    FETCH,  // DESC from the command ring
    POST    // CPL to the completion ring
  } state_e;

  localparam int unsigned DescWords = CMD_WORDS;
  localparam int unsigned CplWords  = CPL_WORDS;

  state_e      state_q;
  logic [31:0] ctrl_q, epoch_q, cmd_log2_q, cpl_log2_q;
  logic [63:0] cmd_base_q, cpl_base_q;
  logic [DescWords-1:0][31:0] desc_q;
  logic [DescWords-1:0]       nonzero_q;  // DESC words that are not 0
  logic [CplWords-1:0][31:0]  cpl_q;
  logic        held_q, stale_q;
  logic [31:0] held_index_q, held_epoch_q, desc_status_q;
  logic        post_pending_q;
  logic [31:0] post_index_q, cpl_state_q, cpl_status_q;
  logic [63:0] at_q;                 // the slot in host memory
  logic [4:0]  sent_q, got_q;        // words asked for, words answered
  logic        inflight_q;

  // ---- the rings' slots, phases and checks
  function automatic logic [31:0] ring_mask(logic [4:0] log2);
    return 32'((33'd1 << log2) - 33'd1);
  endfunction

  function automatic logic [31:0] host_check(logic [31:0] epoch, logic [31:0] queue_epoch,
                                             logic [63:0] win_base, logic [63:0] win_size,
                                             logic [63:0] host, logic [63:0] len);
    logic [63:0] off;
    off = host - win_base;
    if (epoch != queue_epoch) return ERR_PEER;  // the host of this epoch has gone
    if (win_size == 64'd0 || host < win_base || off > win_size || len > win_size - off) begin
      return ERR_RANGE;
    end
    return OK;
  endfunction

  logic [63:0] cmd_slot, cpl_slot;
  logic [31:0] fetch_status, post_status, phase;
  assign cmd_slot = cmd_base_q + {26'd0, cmdq_consumer_i & ring_mask(cmd_log2_q[4:0]), 6'd0};
  assign cpl_slot = cpl_base_q + {27'd0, post_index_q & ring_mask(cpl_log2_q[4:0]), 5'd0};
  assign phase    = {31'd0, ~post_index_q[cpl_log2_q[4:0]]};
  assign fetch_status = host_check(epoch_q, queue_epoch_i, host_win_base_i, host_win_size_i,
                                   cmd_slot, 64'(CMD_BYTES));
  assign post_status  = host_check(epoch_q, queue_epoch_i, host_win_base_i, host_win_size_i,
                                   cpl_slot, 64'(CPL_BYTES));

  logic held, want_fetch;
  assign held       = held_q && held_index_q == cmdq_consumer_i && held_epoch_q == queue_epoch_i;
  assign want_fetch = (ctrl_q & QE_ARM) != 32'd0 && !held && cmdq_producer_i != cmdq_consumer_i;

  // ---- the host port: the next request as soon as the last one is answered. A
  // descriptor is one line; a record is its words but the phase word, then the phase word.
  logic [4:0]   words;
  logic         ask, take, last_answer;
  logic [255:0] record;
  logic [31:0]  record_be, phase_be;
  assign words       = state_q == FETCH ? 5'd1 : 5'd2;
  // the phase word follows the record without waiting: the link keeps writes in order
  assign ask         = state_q != IDLE && sent_q != words &&
                       (!inflight_q || host_rvalid_i || state_q == POST);
  assign take        = ask && host_ready_i;
  assign last_answer = state_q != IDLE && host_rvalid_i && got_q == words - 5'd1;
  always_comb begin : record_words
    for (int unsigned w = 0; w < CplWords; w++) begin
      record[32*w +: 32] = w == CPL_W_FLAGS ? phase : cpl_q[w];
    end
    phase_be  = 32'hf << (4 * CPL_W_FLAGS);
    record_be = 32'hffff_ffff & ~phase_be;
  end

  assign host_req_o   = ask;
  assign host_we_o    = state_q == POST;
  assign host_addr_o  = {at_q[63:6], 6'd0};
  assign host_be_o    = state_q == FETCH ? 64'hffff_ffff_ffff_ffff
                      : {32'd0, sent_q == 5'd0 ? record_be : phase_be} << at_q[5:0];
  assign host_wdata_o = {256'd0, record} << {at_q[5:0], 3'b000};
  assign busy_o       = state_q != IDLE;

  // ---- registers
  logic [31:0] offset;
  logic        write, setup_write;
  assign offset      = {24'd0, addr_i};
  assign write       = req_i && we_i;
  assign setup_write = write && (offset == QE_CTRL || offset == QE_EPOCH ||
                                 offset == QE_CMD_BASE_LO || offset == QE_CMD_BASE_HI ||
                                 offset == QE_CMD_LOG2);

  always_ff @(posedge clk_i or negedge rst_ni) begin : engine
    if (!rst_ni) begin
      state_q        <= IDLE;
      ctrl_q         <= 32'd0;
      epoch_q        <= 32'd0;
      cmd_log2_q     <= 32'd0;
      cpl_log2_q     <= 32'd0;
      cmd_base_q     <= 64'd0;
      cpl_base_q     <= 64'd0;
      desc_q         <= '0;
      nonzero_q      <= '0;
      cpl_q          <= '0;
      held_q         <= 1'b0;
      stale_q        <= 1'b0;
      held_index_q   <= 32'd0;
      held_epoch_q   <= 32'd0;
      desc_status_q  <= 32'd0;
      post_pending_q <= 1'b0;
      post_index_q   <= 32'd0;
      cpl_state_q    <= QE_IDLE;
      cpl_status_q   <= 32'd0;
      at_q           <= 64'd0;
      sent_q         <= 5'd0;
      got_q          <= 5'd0;
      inflight_q     <= 1'b0;
    end else begin
      // The firmware's writes.
      if (write) begin
        unique case (offset)
          QE_CTRL:        ctrl_q <= wdata_i & QE_ARM;
          QE_EPOCH:       epoch_q <= wdata_i;
          QE_CMD_BASE_LO: cmd_base_q[31:0] <= wdata_i;
          QE_CMD_BASE_HI: cmd_base_q[63:32] <= wdata_i;
          QE_CMD_LOG2:    cmd_log2_q <= wdata_i;
          QE_CPL_BASE_LO: cpl_base_q[31:0] <= wdata_i;
          QE_CPL_BASE_HI: cpl_base_q[63:32] <= wdata_i;
          QE_CPL_LOG2:    cpl_log2_q <= wdata_i;
          QE_CPL_POST: begin
            post_pending_q <= 1'b1;
            post_index_q   <= wdata_i;
            cpl_state_q    <= QE_BUSY;
          end
          default: begin
            if (offset >= QE_CPL0 && offset < QE_CPL0 + CPL_BYTES) begin
              cpl_q[offset[4:2]] <= wdata_i;
            end
          end
        endcase
      end
      // A new setup of the command ring: what is held, or on its way, is not its.
      if (setup_write) begin
        held_q  <= 1'b0;
        stale_q <= state_q == FETCH;
      end

      // The host port's requests and answers.
      if (take) sent_q <= sent_q + 5'd1;
      if (take) begin
        inflight_q <= 1'b1;
      end else if (host_rvalid_i) begin
        inflight_q <= 1'b0;
      end
      if (state_q != IDLE && host_rvalid_i) begin
        got_q <= got_q + 5'd1;
        if (state_q == FETCH) begin
          for (int unsigned w = 0; w < DescWords; w++) begin
            desc_q[w]    <= host_rdata_i[32*w +: 32];
            nonzero_q[w] <= host_rdata_i[32*w +: 32] != 32'd0;
          end
        end
      end

      unique case (state_q)
        IDLE: begin
          sent_q <= 5'd0;
          got_q  <= 5'd0;
          if (mover_busy_i) begin
            // the mover has the port
          end else if (post_pending_q) begin
            post_pending_q <= 1'b0;
            if (post_status != OK) begin
              cpl_status_q <= post_status;
              cpl_state_q  <= QE_DONE;
            end else begin
              at_q    <= cpl_slot;
              state_q <= POST;
            end
          end else if (want_fetch && !setup_write) begin
            held_index_q <= cmdq_consumer_i;
            held_epoch_q <= queue_epoch_i;
            stale_q      <= 1'b0;
            if (fetch_status != OK) begin
              desc_q        <= '0;
              nonzero_q     <= '0;
              desc_status_q <= fetch_status;
              held_q        <= 1'b1;
            end else begin
              held_q  <= 1'b0;
              at_q    <= cmd_slot;
              state_q <= FETCH;
            end
          end
        end
        FETCH: begin
          if (last_answer) begin
            desc_status_q <= OK;
            held_q        <= !stale_q && !setup_write;
            state_q       <= IDLE;
          end
        end
        POST: begin
          if (last_answer) begin
            cpl_status_q <= OK;
            cpl_state_q  <= QE_DONE;
            state_q      <= IDLE;
          end
        end
        default: state_q <= IDLE;
      endcase
    end
  end

  // ---- reads
  always_comb begin : read_mux
    rdata_o = 32'd0;
    if (offset >= QE_CPL0 && offset < QE_CPL0 + CPL_BYTES) begin
      rdata_o = cpl_q[offset[4:2]];
    end else if (offset >= QE_DESC0 && offset < QE_DESC0 + CMD_BYTES) begin
      rdata_o = desc_q[offset[5:2]];
    end else begin
      unique case (offset)
        RB_TYPE:         rdata_o = QE_TYPE;
        RB_VERSION:      rdata_o = QE_VERSION;
        QE_CTRL:         rdata_o = ctrl_q;
        QE_EPOCH:        rdata_o = epoch_q;
        QE_CMD_BASE_LO:  rdata_o = cmd_base_q[31:0];
        QE_CMD_BASE_HI:  rdata_o = cmd_base_q[63:32];
        QE_CMD_LOG2:     rdata_o = cmd_log2_q;
        QE_CPL_BASE_LO:  rdata_o = cpl_base_q[31:0];
        QE_CPL_BASE_HI:  rdata_o = cpl_base_q[63:32];
        QE_CPL_LOG2:     rdata_o = cpl_log2_q;
        QE_DESC_STATE:   rdata_o = held ? QE_HELD :
                                   (state_q == FETCH || want_fetch) ? QE_BUSY : QE_IDLE;
        QE_DESC_STATUS:  rdata_o = desc_status_q;
        QE_DESC_NONZERO: rdata_o = 32'(nonzero_q);
        QE_CPL_POST:     rdata_o = cpl_state_q;
        QE_CPL_STATUS:   rdata_o = cpl_status_q;
        default:         rdata_o = 32'd0;  // NEXT: the last block
      endcase
    end
  end

endmodule
