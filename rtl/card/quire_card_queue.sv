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
  input  logic [31:0] cplq_producer_i,   // the BAR's completion queue indices
  input  logic [31:0] cplq_consumer_i,
  input  logic [31:0] cycles_i,          // the card's cycle counter, low word
  input  logic        mover_busy_i,      // the DMA mover has the host port
  output logic        busy_o,            // this engine has it

  // MLP_SCORE served here (QE_SERVE): the MLP engine (quire_card_mlp) runs it on the
  // descriptor's host buffers through this engine's port, and the BAR's bookkeeping follows:
  // at the run's end the command queue's CONSUMER, CMDS_OK or CMDS_ERR and DMA_BYTES
  // (served_o), once the record is written the completion queue's PRODUCER and
  // QUIRE_IRQ_CPL (posted_o).
  input  logic         mlp_ready_i,      // idle, with a model
  input  logic [8:0]   mlp_width0_i,
  output logic         mlp_start_o,
  output logic [31:0]  mlp_c_o,
  output logic [63:0]  mlp_feat_o,
  output logic [63:0]  mlp_feas_o,
  output logic [63:0]  mlp_scores_o,
  input  logic         mlp_done_i,
  input  logic [31:0]  mlp_status_i,
  input  logic [31:0]  mlp_choice_i,
  input  logic         mlp_host_req_i,
  input  logic         mlp_host_we_i,
  input  logic [63:0]  mlp_host_be_i,
  input  logic [63:0]  mlp_host_addr_i,
  input  logic [511:0] mlp_host_wdata_i,
  output logic         served_o,
  output logic         served_ok_o,
  output logic [31:0]  served_bytes_o,
  output logic         posted_o,

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

  typedef enum logic [2:0] {
    IDLE,
    FETCH,  // DESC from the command ring
    POST,   // CPL to the completion ring
    CLAIM,  // a fetched descriptor: served here, or held for the firmware
    SERVE,  // the MLP engine runs it
    RECORD  // its record to the completion ring
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
  logic        serve_q, hw_post_q;    // QE_SERVE; the post under way is a served command's
  logic        owned_q;              // the firmware has the held descriptor (see claim)
  logic        reclaim_q;            // the post under way interrupted a CLAIM: back to it
  logic        unseen_q;             // served a command since the last DESC_STATE read
  logic        mlp_start_q;
  logic [31:0] served_q, t0_q;       // QE_SERVED; the cycle the fetch began

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

  // ---- an MLP_SCORE served here: the firmware's quick-path checks (firmware/ops.c), all of
  // them, on the held descriptor; one that fails any is the firmware's, as any other. And
  // the rings: the completion ring has room, no post of the firmware's waits, and the
  // record's slot passes the post's checks. And the firmware has nothing in hand: a read of
  // DESC_STATE that answers HELD gives it the held descriptor, any other read says it has
  // finished with the last one (it reads DESC_STATE only between commands: in its fetch, and
  // before it sleeps); a descriptor fetched while it still has one waits here (BUSY) until it
  // reads DESC_STATE again.
  localparam logic [31:0] ZeroWords = (32'd1 << CMD_W_FORMATS) | (32'd3 << CMD_W_EXP) |
                                      (32'd3 << CMD_W_STRIDE) | (32'd3 << CMD_W_RESERVED);
  function automatic logic buffer_ok(logic [63:0] addr, logic [63:0] bytes, logic [63:0] most,
                                     logic aligned4, logic [63:0] base, logic [63:0] size);
    logic wraps;  // addr + most past 2^64
    wraps = addr > ~most;
    return addr != 64'd0 && (!aligned4 || addr[1:0] == 2'b00) && !wraps &&
           addr >= base && bytes <= size && addr - base <= size - bytes;
  endfunction

  logic [31:0] d_count;
  logic [63:0] d_src, d_dst, d_aux, d_c, next_cpl_slot;
  logic        claim;
  assign d_count       = desc_q[CMD_W_COUNT];
  assign d_src         = {desc_q[CMD_W_SRC + 1], desc_q[CMD_W_SRC]};
  assign d_dst         = {desc_q[CMD_W_DST + 1], desc_q[CMD_W_DST]};
  assign d_aux         = {desc_q[CMD_W_AUX + 1], desc_q[CMD_W_AUX]};
  assign d_c           = {32'd0, d_count};
  assign next_cpl_slot = cpl_base_q + {27'd0, cplq_producer_i & ring_mask(cpl_log2_q[4:0]), 5'd0};
  assign claim = held && !setup_write && desc_status_q == OK && serve_q &&
                 (ctrl_q & QE_ARM) != 32'd0 &&
                 desc_q[CMD_W_OPCODE] == OPC_MLP_SCORE && (32'(nonzero_q) & ZeroWords) == 32'd0 &&
                 d_count != 32'd0 && d_count <= quire_mlp_pkg::MLP_MAX_CANDIDATES &&
                 mlp_ready_i && mlp_width0_i != 9'd0 && mlp_width0_i <= 9'd64 &&
                 buffer_ok(d_src, d_c * {55'd0, mlp_width0_i},
                           d_c * 64'(quire_mlp_pkg::MLP_MAX_WIDTH), 1'b0,
                           host_win_base_i, host_win_size_i) &&
                 buffer_ok(d_dst, d_c << 2, d_c << 2, 1'b1, host_win_base_i, host_win_size_i) &&
                 buffer_ok(d_aux, d_c, d_c, 1'b0, host_win_base_i, host_win_size_i) &&
                 cplq_producer_i - cplq_consumer_i < (32'd1 << cpl_log2_q[4:0]) &&
                 !post_pending_q &&
                 host_check(epoch_q, queue_epoch_i, host_win_base_i, host_win_size_i,
                            next_cpl_slot, 64'(CPL_BYTES)) == OK;

  assign mlp_start_o  = mlp_start_q;
  assign mlp_c_o      = d_count;
  assign mlp_feat_o   = d_src;
  assign mlp_feas_o   = d_aux;
  assign mlp_scores_o = d_dst;
  // The bookkeeping, for the epoch the command came in.
  logic same_epoch;
  assign same_epoch     = held_epoch_q == queue_epoch_i;
  assign served_o       = state_q == SERVE && mlp_done_i && same_epoch;
  assign served_ok_o    = mlp_status_i == OK;
  assign served_bytes_o = CMD_BYTES + CPL_BYTES + d_count * (32'(mlp_width0_i) + 32'd5);
  assign posted_o       = state_q == POST && hw_post_q && last_answer && same_epoch;

  // ---- the host port: the next request as soon as the last one is answered. A
  // descriptor is one line; a record is its words but the phase word, then the phase word.
  logic [4:0]   words;
  logic         ask, take, last_answer;
  logic [255:0] record;
  logic [31:0]  record_be, phase_be;
  logic         moving;  // FETCH or POST: this engine's own requests
  logic         start_post;  // the firmware's CPL_POST taken in this cycle
  assign start_post  = post_pending_q && !mover_busy_i && (state_q == IDLE || state_q == CLAIM);
  assign moving      = state_q == FETCH || state_q == POST;
  assign words       = state_q == FETCH ? 5'd1 : 5'd2;
  // the phase word follows the record without waiting: the link keeps writes in order
  assign ask         = moving && sent_q != words &&
                       (!inflight_q || host_rvalid_i || state_q == POST);
  assign take        = ask && host_ready_i;
  assign last_answer = moving && host_rvalid_i && got_q == words - 5'd1;
  always_comb begin : record_words
    for (int unsigned w = 0; w < CplWords; w++) begin
      record[32*w +: 32] = w == CPL_W_FLAGS ? phase : cpl_q[w];
    end
    phase_be  = 32'hf << (4 * CPL_W_FLAGS);
    record_be = 32'hffff_ffff & ~phase_be;
  end

  // While SERVE, the port is the MLP engine's.
  logic serving;
  assign serving      = state_q == SERVE;
  assign host_req_o   = serving ? mlp_host_req_i : ask;
  assign host_we_o    = serving ? mlp_host_we_i : state_q == POST;
  assign host_addr_o  = serving ? mlp_host_addr_i : {at_q[63:6], 6'd0};
  assign host_be_o    = serving ? mlp_host_be_i
                      : state_q == FETCH ? 64'hffff_ffff_ffff_ffff
                      : {32'd0, sent_q == 5'd0 ? record_be : phase_be} << at_q[5:0];
  assign host_wdata_o = serving ? mlp_host_wdata_i : {256'd0, record} << {at_q[5:0], 3'b000};
  assign busy_o       = state_q != IDLE;

  // ---- registers
  logic [31:0] offset;
  logic        write, setup_write, state_read;
  assign offset      = {24'd0, addr_i};
  assign write       = req_i && we_i;
  assign state_read  = req_i && !we_i && offset == QE_DESC_STATE;
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
      serve_q        <= 1'b0;
      owned_q        <= 1'b0;
      unseen_q       <= 1'b0;
      hw_post_q      <= 1'b0;
      reclaim_q      <= 1'b0;
      mlp_start_q    <= 1'b0;
      served_q       <= 32'd0;
      t0_q           <= 32'd0;
    end else begin
      mlp_start_q <= 1'b0;
      if (state_read) begin
        owned_q  <= rdata_o == QE_HELD;
        unseen_q <= 1'b0;
      end
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
          QE_SERVE:       serve_q <= (wdata_i & QE_SERVE_SCORE) != 32'd0;
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
      end else if (host_rvalid_i && moving) begin
        inflight_q <= 1'b0;
      end
      if (moving && host_rvalid_i) begin
        got_q <= got_q + 5'd1;
        if (state_q == FETCH) begin
          for (int unsigned w = 0; w < DescWords; w++) begin
            desc_q[w]    <= host_rdata_i[32*w +: 32];
            nonzero_q[w] <= host_rdata_i[32*w +: 32] != 32'd0;
          end
        end
      end

      // The firmware's post, from IDLE or from a CLAIM it then returns to (below).
      if (start_post) begin
        post_pending_q <= 1'b0;
        if (post_status != OK) begin
          cpl_status_q <= post_status;
          cpl_state_q  <= QE_DONE;
        end else begin
          at_q      <= cpl_slot;
          reclaim_q <= state_q == CLAIM;
        end
      end

      unique case (state_q)
        IDLE: begin
          sent_q <= 5'd0;
          got_q  <= 5'd0;
          if (start_post) begin
            if (post_status == OK) state_q <= POST;
          end else if (mover_busy_i || post_pending_q) begin
            // the mover has the port
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
              t0_q    <= cycles_i;
              state_q <= FETCH;
            end
          end
        end
        FETCH: begin
          if (last_answer) begin
            desc_status_q <= OK;
            held_q        <= !stale_q && !setup_write;
            state_q       <= serve_q ? CLAIM : IDLE;
          end
        end
        // Served here, or held for the firmware (which waits while this reads BUSY).
        // The firmware may still post its last command's completion (it wrote CONSUMER,
        // which let this fetch, before CPL_POST): that post goes first, so the ring keeps
        // the commands' order and the firmware, waiting on CPL_POST, gets to DESC_STATE.
        CLAIM: begin
          sent_q <= 5'd0;
          got_q  <= 5'd0;
          if (start_post) begin
            if (post_status == OK) state_q <= POST;
          end else if (post_pending_q) begin
            // the mover has the port; the post goes first
          end else if (owned_q && !state_read) begin
            // the firmware is still at its last command
          end else if (claim) begin
            mlp_start_q <= 1'b1;
            state_q     <= SERVE;
          end else begin
            state_q <= IDLE;
          end
        end
        SERVE: begin
          if (mlp_done_i) begin
            cpl_q[CPL_W_SEQ]    <= desc_q[CMD_W_SEQ];
            cpl_q[CPL_W_STATUS] <= mlp_status_i | (OPC_MLP_SCORE << 16);
            cpl_q[CPL_W_RESULT] <= mlp_status_i == OK ? mlp_choice_i : 32'd0;
            cpl_q[CPL_W_CYCLES] <= cycles_i - t0_q;
            cpl_q[CPL_W_DETAIL] <= mlp_status_i == OK ? DETAIL_NONE : DETAIL_ENGINE;
            post_index_q        <= cplq_producer_i;
            state_q             <= RECORD;
          end
        end
        RECORD: begin
          sent_q <= 5'd0;
          got_q  <= 5'd0;
          if (post_status != OK) begin
            served_q <= served_q + 32'd1;  // the host of that epoch has gone: no record
            unseen_q <= 1'b1;
            state_q  <= IDLE;
          end else begin
            at_q      <= cpl_slot;
            hw_post_q <= 1'b1;
            state_q   <= POST;
          end
        end
        POST: begin
          if (last_answer) begin
            if (hw_post_q) begin
              hw_post_q <= 1'b0;
              served_q  <= served_q + 32'd1;
              unseen_q  <= 1'b1;
            end else begin
              cpl_status_q <= OK;
              cpl_state_q  <= QE_DONE;
            end
            reclaim_q <= 1'b0;
            state_q   <= reclaim_q ? CLAIM : IDLE;
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
        // (BUSY from the fetch until a served command's record is written and counted;
        // SERVED_SINCE once one is, until the firmware has read it)
        QE_DESC_STATE:   rdata_o = ((state_q == CLAIM || state_q == SERVE || state_q == RECORD ||
                                     hw_post_q || reclaim_q) ? QE_BUSY :
                                    held ? QE_HELD :
                                    (state_q == FETCH || want_fetch) ? QE_BUSY : QE_IDLE) |
                                   (unseen_q ? QE_SERVED_SINCE : 32'd0);
        QE_DESC_STATUS:  rdata_o = desc_status_q;
        QE_DESC_NONZERO: rdata_o = 32'(nonzero_q);
        QE_SERVE:        rdata_o = serve_q ? QE_SERVE_SCORE : 32'd0;
        QE_SERVED:       rdata_o = served_q;
        QE_CPL_POST:     rdata_o = cpl_state_q;
        QE_CPL_STATUS:   rdata_o = cpl_status_q;
        default:         rdata_o = 32'd0;  // NEXT: the last block
      endcase
    end
  end

endmodule
