// SPDX-License-Identifier: MIT
// The MLP engine as the firmware drives it (firmware/ops.c mlp()): the
// register window of include/quire/card.h (quire_card_engine_regs,
// docs/registers/engine-window.md), the argument checks below in their order,
// with the statuses of docs/commands.md's MLP opcodes, and a mover between card memory and the datapath of
// rtl/engines/quire_mlp.sv (quire_card_line_mover):
//   LOAD:  the image [image, image + len) in card memory, 4-byte aligned, else
//          QUIRE_ERR_RANGE (the model held is kept); then the engine forgets
//          its model and reads the image 64 bytes at a time until it answers:
//          quire_mlp_load's statuses (CORRUPT, VERSION, SHAPE, RANGE, OK).
//   SCORE: an opcode other than LOAD or SCORE: QUIRE_ERR_OPCODE; no model:
//          QUIRE_ERR_SHAPE; then c * n_0 feature bytes, c feasibility bytes,
//          4c score bytes (4-aligned) and the choice word (4-aligned) in card
//          memory, in 64-bit arithmetic, else QUIRE_ERR_RANGE; then the
//          engine (c outside 1..1024: QUIRE_ERR_SIZE). The feasibility bytes
//          of 64 candidates read at once (one 64-byte read at any byte
//          address); per candidate its features in beats of 64 bytes at any
//          byte address (with n_0 <= 64 from a window of two 64-byte lines
//          of the feature array that slides along it: a line read every
//          64 / n_0 candidates and a candidate fed a cycle, not a 64-byte
//          read each); the engine scores the candidates in groups of Cands
//          (quire_mlp.sv) and a group's scores are written at once (4 bytes
//          each, up to 64); at the end the choice word with OK, none with
//          NO_FEASIBLE (the scores are written either way), as quire_mlp_score.
// One thing at a time (read, feed, compute, write), not overlapped. The cycles
// reported (ENGINES record, CYCLES) are the cycles from START to DONE; buffers
// that overlap each other are not modelled (the firmware's never do).
// The queue engine (quire_card_queue) starts a SCORE of its own (hw_start_i) on
// an MLP_SCORE it serves without the firmware: the same walk with the
// descriptor's host buffers instead of card memory, through the queue engine's
// host port (checked by it: no window registers, no range checks here, no choice
// word; the choice and status go back to it), the features streamed in ahead.
// It counts in the ENGINES record like a START.
module quire_card_mlp
  import quire_card_pkg::*;
#(
  parameter logic [63:0] MemBytes = 64'h0800_0000,
  parameter int unsigned LineBits = 21,
  // Candidates the MLP engine scores at once (its MAC arrays: 64 int8 lanes each). 1..16:
  // a group's scores are one write of at most 64 bytes.
  parameter int unsigned Cands = 8
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  // The register window (an offset in it): read data in the cycle of the request.
  input  logic                req_i,
  input  logic                we_i,
  input  logic [11:0]         addr_i,
  input  logic [31:0]         wdata_i,
  output logic [31:0]         rdata_o,

  // Card memory, a line a cycle, read data a cycle later.
  output logic                mem_req_o,
  output logic                mem_we_o,
  output logic [63:0]         mem_be_o,
  output logic [LineBits-1:0] mem_line_o,
  output logic [511:0]        mem_wdata_o,
  input  logic [511:0]        mem_rdata_i,

  // Statistics for the ENGINES record: a pulse at DONE, operations and busy cycles so far.
  output logic                done_o,
  output logic [31:0]         ops_o,
  output logic [31:0]         cycles_o,

  // An MLP_SCORE the queue engine serves itself (quire_card_queue): c candidates, the
  // descriptor's host addresses of the features, the feasibility bytes and the scores. Taken
  // while the engine is idle; done_o pulses with its status and choice once every host
  // request has been answered. The model held: its input width, and whether there is one.
  input  logic                hw_start_i,
  input  logic [31:0]         hw_c_i,
  input  logic [63:0]         hw_feat_i,
  input  logic [63:0]         hw_feas_i,
  input  logic [63:0]         hw_scores_i,
  output logic                hw_done_o,
  output logic [31:0]         hw_status_o,
  output logic [31:0]         hw_choice_o,
  output logic                ready_o,      // idle, with a model
  output logic [8:0]          width0_o,

  // Host memory for such a run (the queue engine passes it through while it serves):
  // line requests taken while host_ready_i, answered in order.
  output logic                host_req_o,
  output logic                host_we_o,
  output logic [63:0]         host_be_o,
  output logic [63:0]         host_addr_o,
  output logic [511:0]        host_wdata_o,
  input  logic                host_ready_i,
  input  logic                host_rvalid_i,
  input  logic [511:0]        host_rdata_i
);

  typedef enum logic [3:0] {
    S_IDLE, S_CHECK, S_LOAD, S_LOAD_FEED, S_FEAS, S_FEAS_GOT, S_BEAT, S_BEAT_FEED,
    S_SCORE, S_NEXT, S_FINISH, S_DONE, S_RD, S_WR, S_WIN_GOT
  } state_e;
  state_e state_q, ret_state_q;

  // ---- the register window
  logic                             start, idle, finish;
  logic [ENGINE_MAX_ARGS-1:0][63:0] args;
  logic [31:0]                      status_q;
  logic                             regs_done, hw_q, hw_start;
  logic [31:0]                      regs_ops, regs_cycles;
  assign idle     = state_q == S_IDLE;
  assign finish   = state_q == S_DONE;
  assign hw_start = idle && !start && hw_start_i;

  quire_card_engine_regs u_regs (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .req_i    (req_i),
    .we_i     (we_i),
    .addr_i   (addr_i),
    .wdata_i  (wdata_i),
    .rdata_o  (rdata_o),
    .idle_i   (idle),
    .finish_i (finish),
    .status_i (status_q),
    .start_o  (start),
    .args_o   (args),
    .done_o   (regs_done),
    .ops_o    (regs_ops),
    .cycles_o (regs_cycles)
  );

  // The ENGINES record counts the runs of both starts: the window's and the queue engine's.
  logic [31:0] busy_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin : record
    if (!rst_ni) begin
      busy_q   <= 32'd0;
      ops_o    <= 32'd0;
      cycles_o <= 32'd0;
      done_o   <= 1'b0;
    end else begin
      done_o <= finish;
      if (start || hw_start) busy_q <= 32'd1;
      else if (!idle)        busy_q <= busy_q + 32'd1;
      if (finish) begin
        ops_o    <= ops_o + 32'd1;
        cycles_o <= cycles_o + busy_q;
      end
    end
  end

  // ---- the arguments, as run_mlp reads them
  // (or the queue engine's, kept while it runs: hw_q)
  logic [31:0] op, len, c, hw_c_q;
  logic [63:0] a_image, a_feat, a_feas, a_scores, a_choice, hw_feat_q, hw_feas_q, hw_scores_q;
  assign op       = args[MLP_ARG_OP][31:0];
  assign len      = args[MLP_ARG_LEN][31:0];
  assign c        = hw_q ? hw_c_q : args[MLP_ARG_C][31:0];
  assign a_image  = args[MLP_ARG_IMAGE];
  assign a_feat   = hw_q ? hw_feat_q : args[MLP_ARG_FEATURES];
  assign a_feas   = hw_q ? hw_feas_q : args[MLP_ARG_FEASIBLE];
  assign a_scores = hw_q ? hw_scores_q : args[MLP_ARG_SCORES];
  assign a_choice = args[MLP_ARG_CHOICE];

  // [off, off + bytes) inside card memory, off aligned.
  function automatic logic in_mem(logic [63:0] off, logic [63:0] bytes, logic [63:0] align);
    return !(off > MemBytes || bytes > MemBytes - off || (off & (align - 64'd1)) != 64'd0);
  endfunction

  // ---- the datapath
  logic         eng_load_start, eng_score_start, img_valid, img_ready;
  logic         feat_valid, feat_ready, score_valid, score_ready;
  logic         eng_done, eng_idle;
  logic [31:0]  eng_status, eng_choice, score;
  logic [2:0]   eng_layers;
  logic [8:0]   width0;
  logic [511:0] rd_buf, rd_any;  // the card memory mover's read, or host memory's
  logic         feas_bit;

  logic is_load, is_score;
  assign is_load  = !hw_q && op == MLP_OP_LOAD;
  assign is_score = hw_q || op == MLP_OP_SCORE;

  logic [31:0] check_status;
  always_comb begin : check
    check_status = OK;
    if (is_load) begin
      if (!in_mem(a_image, {32'd0, len}, 64'd4))            check_status = ERR_RANGE;
    end else if (!is_score) begin
      check_status = ERR_OPCODE;
    end else if (eng_layers == 3'd0) begin
      check_status = ERR_SHAPE;
    end else if (hw_q) begin
      check_status = OK;  // the queue engine checked the host buffers
    end else if (!in_mem(a_feat, {32'd0, c} * {55'd0, width0}, 64'd1) ||
                 !in_mem(a_feas, {32'd0, c}, 64'd1) ||
                 !in_mem(a_scores, {30'd0, c, 2'd0}, 64'd4) ||
                 !in_mem(a_choice, 64'd4, 64'd4)) begin
      check_status = ERR_RANGE;
    end
  end

  assign eng_load_start  = state_q == S_CHECK && check_status == OK && is_load;
  assign eng_score_start = state_q == S_CHECK && check_status == OK && !is_load;
  assign img_valid       = state_q == S_LOAD_FEED;
  assign feat_valid      = state_q == S_BEAT_FEED || (state_q == S_BEAT && win_hit && !eng_done_q);
  assign score_ready     = state_q == S_SCORE;

  quire_mlp #(.Cands (Cands)) u_mlp (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .load_start_i    (eng_load_start),
    .load_len_i      (len),
    .img_valid_i     (img_valid),
    .img_data_i      (rd_any),
    .img_ready_o     (img_ready),
    .score_start_i   (eng_score_start),
    .score_c_i       (c),
    .feat_valid_i    (feat_valid),
    .feat_data_i     (win_mode ? win_beat : rd_any),
    .feat_feasible_i (feas_bit),
    .feat_ready_o    (feat_ready),
    .score_valid_o   (score_valid),
    .score_o         (score),
    .score_ready_i   (score_ready),
    .done_o          (eng_done),
    .status_o        (eng_status),
    .choice_o        (eng_choice),
    .idle_o          (eng_idle),
    .layers_o        (eng_layers),
    .width0_o        (width0)
  );

  // ---- card memory (quire_card_line_mover), while the state is S_RD or S_WR
  logic         mv_done;
  logic [63:0]  rd_addr_q, wr_addr_q;
  logic [511:0] wr_data_q;
  logic [6:0]   wr_bytes_q;

  quire_card_line_mover #(.LineBits (LineBits)) u_mover (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .rd_i        (state_q == S_RD && !hw_q),
    .rd_addr_i   (rd_addr_q[31:0]),
    .wr_i        (state_q == S_WR && !hw_q),
    .wr_addr_i   (wr_addr_q[31:0]),
    .wr_data_i   (wr_data_q),
    .wr_bytes_i  (wr_bytes_q),
    .done_o      (mv_done),
    .rd_data_o   (rd_buf),
    .mem_req_o   (mem_req_o),
    .mem_we_o    (mem_we_o),
    .mem_be_o    (mem_be_o),
    .mem_line_o  (mem_line_o),
    .mem_wdata_o (mem_wdata_o),
    .mem_rdata_i (mem_rdata_i)
  );

  // ---- the walk: LOAD's beats; SCORE's candidate k being fed (its beat j), the group
  // that starts at candidate base, the score s of it being taken
  logic [31:0]  beat_q, k_q, base_q, s_q, eng_status_q, eng_choice_q;
  logic [1:0]   j_q;
  logic         eng_done_q;   // the engine has answered (its done pulse, kept)
  logic [511:0] feas_line_q;  // the feasibility bytes of candidates 64m .. 64m + 63
  logic [2:0]   chunks;
  logic         last_beat, group_fed;
  logic [31:0]  k_next;
  assign chunks    = 3'((width0 + 9'd63) >> 6);
  assign last_beat = 3'(j_q) + 3'd1 == chunks;
  assign k_next    = k_q + 32'd1;
  assign group_fed = k_next == c || k_next - base_q == 32'(Cands);
  assign feas_bit  = feas_line_q[8*k_q[5:0] +: 8] != 8'd0;

  // The feature window (one beat a candidate, n_0 <= 64): lines win_line_q (lo) and
  // win_line_q + 1 (hi) of card memory, each with a flag that it holds them. Candidate
  // k's features start at byte feat_at; they are in the window when their line is lo.
  logic          win_mode, win_lo_q, win_hi_q, win_hit;
  logic [1023:0] win_q;
  logic [57:0]   win_line_q, feat_line;
  logic [63:0]   feat_at;
  logic [511:0]  win_beat;
  assign win_mode  = chunks == 3'd1;
  assign feat_at   = a_feat + {32'd0, k_q * {23'd0, width0}};
  assign feat_line = feat_at[63:6];
  assign win_hit   = win_mode && win_lo_q && win_hi_q && feat_line == win_line_q;
  assign win_beat  = 512'(win_q >> {feat_at[5:0], 3'd0});
  logic [3:0] slot;            // score s's place in the group's write (base is a multiple of Cands)
  assign slot = s_q[3:0] - base_q[3:0];

  always_ff @(posedge clk_i or negedge rst_ni) begin : walk
    if (!rst_ni) begin
      state_q      <= S_IDLE;
      ret_state_q  <= S_IDLE;
      status_q     <= 32'd0;
      beat_q       <= 32'd0;
      k_q          <= 32'd0;
      base_q       <= 32'd0;
      s_q          <= 32'd0;
      j_q          <= 2'd0;
      feas_line_q  <= '0;
      win_q        <= '0;
      win_line_q   <= 58'd0;
      win_lo_q     <= 1'b0;
      win_hi_q     <= 1'b0;
      eng_done_q   <= 1'b0;
      eng_status_q <= 32'd0;
      eng_choice_q <= 32'd0;
      rd_addr_q    <= 64'd0;
      wr_addr_q    <= 64'd0;
      hw_q         <= 1'b0;
      hw_c_q       <= 32'd0;
      hw_feat_q    <= 64'd0;
      hw_feas_q    <= 64'd0;
      hw_scores_q  <= 64'd0;
      wr_data_q    <= '0;
      wr_bytes_q   <= 7'd4;
    end else begin
      if (eng_done) begin
        eng_done_q   <= 1'b1;
        eng_status_q <= eng_status;
        eng_choice_q <= eng_choice;
      end
      unique case (state_q)
        S_IDLE: begin
          if (start) begin
            state_q <= S_CHECK;
          end else if (hw_start) begin
            hw_q        <= 1'b1;
            hw_c_q      <= hw_c_i;
            hw_feat_q   <= hw_feat_i;
            hw_feas_q   <= hw_feas_i;
            hw_scores_q <= hw_scores_i;
            state_q     <= S_CHECK;
          end
        end
        S_CHECK: begin
          status_q   <= check_status;
          eng_done_q <= 1'b0;
          beat_q     <= 32'd0;
          k_q        <= 32'd0;
          base_q     <= 32'd0;
          j_q        <= 2'd0;
          win_lo_q   <= 1'b0;
          win_hi_q   <= 1'b0;
          if (check_status != OK) state_q <= S_DONE;
          else if (is_load)       state_q <= S_LOAD;
          else                    state_q <= S_FEAS;
        end
        // LOAD: beat after beat of the image until the engine answers.
        S_LOAD: begin
          if (eng_done_q) begin
            state_q <= S_FINISH;
          end else begin
            rd_addr_q   <= a_image + {26'd0, beat_q, 6'd0};
            ret_state_q <= S_LOAD_FEED;
            state_q     <= S_RD;
          end
        end
        S_LOAD_FEED: begin
          if (eng_done_q) begin
            state_q <= S_FINISH;
          end else if (img_ready) begin
            beat_q  <= beat_q + 32'd1;
            state_q <= S_LOAD;
          end
        end
        // SCORE: the feasibility bytes of 64 candidates from k on, then candidate after
        // candidate its feature beats; at a group's end its scores, then one write of them.
        S_FEAS: begin
          if (eng_done_q) begin
            state_q <= S_FINISH;
          end else begin
            rd_addr_q   <= a_feas + {32'd0, k_q};
            ret_state_q <= S_FEAS_GOT;
            state_q     <= S_RD;
          end
        end
        S_FEAS_GOT: begin
          feas_line_q <= rd_any;
          j_q         <= 2'd0;
          state_q     <= S_BEAT;
        end
        S_BEAT: begin
          if (eng_done_q) begin
            state_q <= S_FINISH;
          end else if (!win_mode) begin
            rd_addr_q   <= feat_at + {56'd0, j_q, 6'd0};
            ret_state_q <= S_BEAT_FEED;
            state_q     <= S_RD;
          end else if (win_hit) begin
            // Fed from the window in this cycle (feat_valid).
            if (feat_ready) begin
              k_q <= k_next;
              if (group_fed) begin
                s_q     <= base_q;
                state_q <= S_SCORE;
              end else if (k_next[5:0] == 6'd0) begin
                state_q <= S_FEAS;
              end
            end
          end else begin
            // Slide the window on by a line, fill its hi line, or start it afresh at the
            // candidate's line.
            ret_state_q <= S_WIN_GOT;
            state_q     <= S_RD;
            if (win_hi_q && feat_line == win_line_q + 58'd1) begin
              win_q[511:0] <= win_q[1023:512];
              win_line_q   <= feat_line;
              win_hi_q     <= 1'b0;
              rd_addr_q    <= {feat_line + 58'd1, 6'd0};
            end else if (win_lo_q && feat_line == win_line_q) begin
              rd_addr_q    <= {feat_line + 58'd1, 6'd0};
            end else begin
              win_line_q   <= feat_line;
              win_lo_q     <= 1'b0;
              win_hi_q     <= 1'b0;
              rd_addr_q    <= {feat_line, 6'd0};
            end
          end
        end
        S_WIN_GOT: begin
          if (!win_lo_q) begin
            win_q[511:0] <= rd_any;
            win_lo_q     <= 1'b1;
          end else begin
            win_q[1023:512] <= rd_any;
            win_hi_q        <= 1'b1;
          end
          state_q <= S_BEAT;
        end
        S_BEAT_FEED: begin
          if (eng_done_q) begin
            state_q <= S_FINISH;
          end else if (feat_ready) begin
            j_q <= last_beat ? 2'd0 : j_q + 2'd1;
            if (!last_beat) begin
              state_q <= S_BEAT;
            end else begin
              k_q <= k_next;
              if (group_fed) begin
                s_q     <= base_q;
                state_q <= S_SCORE;
              end else begin
                state_q <= k_next[5:0] == 6'd0 ? S_FEAS : S_BEAT;
              end
            end
          end
        end
        S_SCORE: begin
          if (eng_done_q) begin
            state_q <= S_FINISH;
          end else if (score_valid) begin
            wr_data_q[32*slot +: 32] <= score;
            s_q <= s_q + 32'd1;
            if (s_q + 32'd1 == k_q) begin
              wr_addr_q   <= a_scores + {30'd0, base_q, 2'd0};
              wr_bytes_q  <= 7'((k_q - base_q) << 2);
              ret_state_q <= S_NEXT;
              state_q     <= S_WR;
            end
          end
        end
        S_NEXT: begin
          base_q  <= k_q;
          state_q <= k_q == c ? S_FINISH : k_q[5:0] == 6'd0 ? S_FEAS : S_BEAT;
        end
        // The engine's answer; after SCORE with OK, the choice word.
        // (The queue engine's run: no choice word, and done once every host request of it
        // has been answered.)
        S_FINISH: if (eng_done_q && (!hw_q || h_quiet)) begin
          status_q <= eng_status_q;
          if (!is_load && !hw_q && eng_status_q == OK) begin
            wr_addr_q   <= a_choice;
            wr_data_q   <= {480'd0, eng_choice_q};
            wr_bytes_q  <= 7'd4;
            ret_state_q <= S_DONE;
            state_q     <= S_WR;
          end else begin
            state_q <= S_DONE;
          end
        end
        S_DONE: begin
          hw_q    <= 1'b0;
          state_q <= S_IDLE;
        end
        S_RD, S_WR: if (hw_q ? h_done : mv_done) state_q <= ret_state_q;
        default: state_q <= S_IDLE;
      endcase
    end
  end


  // ---- host memory, for the queue engine's runs (hw_q): S_RD and S_WR go here instead of
  // to card memory. The feature array's lines stream in ahead of the window (at most
  // StreamLines asked for or waiting), in order, and the window's reads take them in turn
  // (with n_0 <= 64, which the queue engine requires, it asks for each line of the array
  // once, in order; a line past the array reads as zeros). The feasibility read (64 bytes at
  // any byte address) asks for its line and, when it crosses, the next, and waits for both;
  // a group's scores are one or two line writes, not waited for. Each request's byte
  // enables cover only the buffer's own bytes; the answers come in request order, each
  // request's kind kept in a queue of tags.
  localparam int unsigned StreamLines = 4;
  localparam int unsigned TagDepth    = 8;
  typedef enum logic [1:0] { T_ACK, T_STREAM, T_LO, T_HI } tag_e;
  tag_e          tag_q [TagDepth];
  logic [2:0]    tag_head_q, tag_tail_q;
  logic [3:0]    tag_n_q;
  logic [511:0]  st_line_q [StreamLines];
  logic [1:0]    st_head_q, st_tail_q;
  logic [2:0]    st_n_q, st_fly_q;     // lines waiting, lines asked for
  logic [57:0]   st_next_q, st_last_q; // the next line to ask for, the array's last
  logic [63:0]   st_end_q;             // the array's end (byte)
  logic [1:0]    hd_q;                 // direct request: 0 its first line, 1 the second, 2 answers
  logic [1:0]    hd_pend_q;            // its lines asked for, not answered
  logic [511:0]  hd_lo_q, hd_hi_q, h_rd_q;
  logic          h_quiet, h_done, h_stream_rd, h_direct, h_past;
  logic          ask_direct, ask_stream, h_take, h_answer;
  tag_e          ask_tag, ans_tag;
  logic [63:0]   h_addr, d_lo, d_hi, st_addr, feas_end;
  logic [5:0]    h_off;
  logic [127:0]  d_mask;
  logic [63:0]   st_mask;
  logic [6:0]    d_bytes;
  logic          need_hi;
  logic [1023:0] wr_pair, rd_pair;

  // (the bytes of the line at `line` inside [lo, hi))
  function automatic logic [63:0] span(logic [63:0] line, logic [63:0] lo, logic [63:0] hi);
    logic [63:0] m;
    for (int unsigned b = 0; b < 64; b++) m[b] = line + 64'(b) >= lo && line + 64'(b) < hi;
    return m;
  endfunction

  assign h_quiet     = tag_n_q == 4'd0;
  assign h_stream_rd = state_q == S_RD && ret_state_q == S_WIN_GOT;
  assign h_past      = rd_addr_q[63:6] > st_last_q;
  assign h_direct    = hw_q && (state_q == S_WR || (state_q == S_RD && !h_stream_rd));
  assign h_addr      = state_q == S_WR ? wr_addr_q : rd_addr_q;
  assign h_off       = h_addr[5:0];
  assign d_lo        = {h_addr[63:6], 6'd0};
  assign d_hi        = d_lo + 64'd64;
  assign feas_end    = a_feas + {32'd0, c};
  assign d_bytes     = feas_end - rd_addr_q >= 64'd64 ? 7'd64 : 7'(feas_end - rd_addr_q);
  assign d_mask      = state_q == S_WR ? ((128'd1 << wr_bytes_q) - 128'd1) << h_off
                                       : ((128'd1 << d_bytes) - 128'd1) << h_off;
  assign need_hi     = d_mask[127:64] != 64'd0;
  assign st_addr     = {st_next_q, 6'd0};
  assign st_mask     = span(st_addr, a_feat, st_end_q);
  assign wr_pair     = {512'd0, wr_data_q} << {h_off, 3'd0};
  assign rd_pair     = {hd_hi_q, hd_lo_q} >> {h_off, 3'd0};

  assign ask_direct = h_direct && hd_q != 2'd2 && 32'(tag_n_q) < TagDepth;
  assign ask_stream = hw_q && !ask_direct && st_next_q <= st_last_q &&
                      32'(st_n_q) + 32'(st_fly_q) < StreamLines && 32'(tag_n_q) < TagDepth;
  assign host_req_o   = ask_direct || ask_stream;
  assign host_we_o    = ask_direct && state_q == S_WR;
  assign host_addr_o  = ask_direct ? (hd_q == 2'd0 ? d_lo : d_hi) : st_addr;
  assign host_be_o    = ask_direct ? (hd_q == 2'd0 ? d_mask[63:0] : d_mask[127:64])
                                   : st_mask;
  assign host_wdata_o = hd_q == 2'd0 ? wr_pair[511:0] : wr_pair[1023:512];
  assign h_take       = host_req_o && host_ready_i;
  assign ask_tag      = !ask_direct ? T_STREAM : state_q == S_WR ? T_ACK
                      : hd_q == 2'd0 ? T_LO : T_HI;
  assign h_answer     = host_rvalid_i && !h_quiet;
  assign ans_tag      = tag_q[tag_head_q];

  // S_RD and S_WR end: a stream read when its line is there (or past the array), a direct
  // read when both its lines are in, a write when its last line is asked for.
  always_comb begin : host_done
    h_done = 1'b0;
    if (h_stream_rd)         h_done = h_past || st_n_q != 3'd0;
    else if (state_q == S_WR) h_done = ask_direct && host_ready_i && (hd_q == 2'd1 || !need_hi);
    else if (state_q == S_RD) h_done = hd_q == 2'd2 && hd_pend_q == 2'd0;
  end
  assign rd_any = hw_q ? h_rd_q : rd_buf;

  always_ff @(posedge clk_i or negedge rst_ni) begin : host
    if (!rst_ni) begin
      for (int unsigned t = 0; t < TagDepth; t++) tag_q[t] <= T_ACK;
      tag_head_q <= 3'd0;
      tag_tail_q <= 3'd0;
      tag_n_q    <= 4'd0;
      st_head_q  <= 2'd0;
      st_tail_q  <= 2'd0;
      st_n_q     <= 3'd0;
      st_fly_q   <= 3'd0;
      st_next_q  <= 58'd0;
      st_last_q  <= 58'd0;
      st_end_q   <= 64'd0;
      hd_q       <= 2'd0;
      hd_pend_q  <= 2'd0;
      hd_lo_q    <= '0;
      hd_hi_q    <= '0;
      h_rd_q     <= '0;
    end else begin
      if (hw_start) begin
        // The array's lines: from the first features' to the last's (n_0 <= 64, c >= 1).
        st_next_q <= hw_feat_i[63:6];
        st_end_q  <= hw_feat_i + {32'd0, hw_c_i * {23'd0, width0}};
        st_last_q <= 58'((hw_feat_i + {32'd0, hw_c_i * {23'd0, width0}} - 64'd1) >> 6);
        st_head_q <= 2'd0;
        st_tail_q <= 2'd0;
        st_n_q    <= 3'd0;
        st_fly_q  <= 3'd0;
        hd_q      <= 2'd0;
        hd_pend_q <= 2'd0;
      end else begin
        // Requests: the tag queued; a direct one moves its step on.
        if (h_take) begin
          tag_q[tag_tail_q] <= ask_tag;
          tag_tail_q        <= tag_tail_q + 3'd1;
        end
        if (h_take && ask_direct) begin
          if (state_q == S_WR) hd_q <= (hd_q == 2'd0 && need_hi) ? 2'd1 : 2'd0;
          else                 hd_q <= (hd_q == 2'd0 && need_hi) ? 2'd1 : 2'd2;
        end
        if (h_take && !ask_direct) st_next_q <= st_next_q + 58'd1;
        // Answers, in order.
        if (h_answer) begin
          tag_head_q <= tag_head_q + 3'd1;
          if (ans_tag == T_STREAM) begin
            st_line_q[st_tail_q] <= host_rdata_i;
            st_tail_q            <= st_tail_q + 2'd1;
          end
          if (ans_tag == T_LO) hd_lo_q <= host_rdata_i;
          if (ans_tag == T_HI) hd_hi_q <= host_rdata_i;
        end
        tag_n_q <= tag_n_q + {3'd0, h_take} - {3'd0, h_answer};
        st_fly_q <= st_fly_q + {2'd0, h_take && !ask_direct}
                             - {2'd0, h_answer && ans_tag == T_STREAM};
        hd_pend_q <= hd_pend_q + {1'd0, h_take && ask_direct && state_q == S_RD}
                               - {1'd0, h_answer && (ans_tag == T_LO || ans_tag == T_HI)};
        // The window takes the next line of the stream (or zeros past the array).
        if (h_stream_rd && hw_q && h_done) begin
          h_rd_q <= h_past ? 512'd0 : st_line_q[st_head_q];
          if (!h_past) st_head_q <= st_head_q + 2'd1;
        end
        st_n_q <= st_n_q + {2'd0, h_answer && ans_tag == T_STREAM}
                         - {2'd0, h_stream_rd && hw_q && h_done && !h_past};
        if (state_q == S_RD && !h_stream_rd && hw_q && h_done) begin
          h_rd_q <= rd_pair[511:0];
          hd_q   <= 2'd0;
        end
      end
    end
  end

  // The queue engine's run ends with its status and choice (S_DONE).
  assign hw_done_o   = finish && hw_q;
  assign hw_status_o = status_q;
  assign hw_choice_o = eng_choice_q;
  assign ready_o     = idle && eng_layers != 3'd0;
  assign width0_o    = width0;

  logic unused_bits;
  assign unused_bits = ^{a_image[63:32], a_choice[63:32], eng_idle, regs_done, regs_ops,
                         regs_cycles, rd_pair[1023:512]};

endmodule
