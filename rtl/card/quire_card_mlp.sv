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
  output logic [31:0]         cycles_o
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
  assign idle   = state_q == S_IDLE;
  assign finish = state_q == S_DONE;

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
    .done_o   (done_o),
    .ops_o    (ops_o),
    .cycles_o (cycles_o)
  );

  // ---- the arguments, as run_mlp reads them
  logic [31:0] op, len, c;
  logic [63:0] a_image, a_feat, a_feas, a_scores, a_choice;
  assign op       = args[MLP_ARG_OP][31:0];
  assign len      = args[MLP_ARG_LEN][31:0];
  assign c        = args[MLP_ARG_C][31:0];
  assign a_image  = args[MLP_ARG_IMAGE];
  assign a_feat   = args[MLP_ARG_FEATURES];
  assign a_feas   = args[MLP_ARG_FEASIBLE];
  assign a_scores = args[MLP_ARG_SCORES];
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
  logic [511:0] rd_buf;
  logic         feas_bit;

  logic is_load, is_score;
  assign is_load  = op == MLP_OP_LOAD;
  assign is_score = op == MLP_OP_SCORE;

  logic [31:0] check_status;
  always_comb begin : check
    check_status = OK;
    if (is_load) begin
      if (!in_mem(a_image, {32'd0, len}, 64'd4))            check_status = ERR_RANGE;
    end else if (!is_score) begin
      check_status = ERR_OPCODE;
    end else if (eng_layers == 3'd0) begin
      check_status = ERR_SHAPE;
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
    .img_data_i      (rd_buf),
    .img_ready_o     (img_ready),
    .score_start_i   (eng_score_start),
    .score_c_i       (c),
    .feat_valid_i    (feat_valid),
    .feat_data_i     (win_mode ? win_beat : rd_buf),
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
  logic [31:0]  rd_addr_q, wr_addr_q;
  logic [511:0] wr_data_q;
  logic [6:0]   wr_bytes_q;

  quire_card_line_mover #(.LineBits (LineBits)) u_mover (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .rd_i        (state_q == S_RD),
    .rd_addr_i   (rd_addr_q),
    .wr_i        (state_q == S_WR),
    .wr_addr_i   (wr_addr_q),
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
  logic [25:0]   win_line_q, feat_line;
  logic [31:0]   feat_at;
  logic [511:0]  win_beat;
  assign win_mode  = chunks == 3'd1;
  assign feat_at   = a_feat[31:0] + k_q * {23'd0, width0};
  assign feat_line = feat_at[31:6];
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
      win_line_q   <= 26'd0;
      win_lo_q     <= 1'b0;
      win_hi_q     <= 1'b0;
      eng_done_q   <= 1'b0;
      eng_status_q <= 32'd0;
      eng_choice_q <= 32'd0;
      rd_addr_q    <= 32'd0;
      wr_addr_q    <= 32'd0;
      wr_data_q    <= '0;
      wr_bytes_q   <= 7'd4;
    end else begin
      if (eng_done) begin
        eng_done_q   <= 1'b1;
        eng_status_q <= eng_status;
        eng_choice_q <= eng_choice;
      end
      unique case (state_q)
        S_IDLE: if (start) state_q <= S_CHECK;
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
            rd_addr_q   <= a_image[31:0] + (beat_q << 6);
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
            rd_addr_q   <= a_feas[31:0] + k_q;
            ret_state_q <= S_FEAS_GOT;
            state_q     <= S_RD;
          end
        end
        S_FEAS_GOT: begin
          feas_line_q <= rd_buf;
          j_q         <= 2'd0;
          state_q     <= S_BEAT;
        end
        S_BEAT: begin
          if (eng_done_q) begin
            state_q <= S_FINISH;
          end else if (!win_mode) begin
            rd_addr_q   <= feat_at + {24'd0, j_q, 6'd0};
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
            if (win_hi_q && feat_line == win_line_q + 26'd1) begin
              win_q[511:0] <= win_q[1023:512];
              win_line_q   <= feat_line;
              win_hi_q     <= 1'b0;
              rd_addr_q    <= {feat_line + 26'd1, 6'd0};
            end else if (win_lo_q && feat_line == win_line_q) begin
              rd_addr_q    <= {feat_line + 26'd1, 6'd0};
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
            win_q[511:0] <= rd_buf;
            win_lo_q     <= 1'b1;
          end else begin
            win_q[1023:512] <= rd_buf;
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
              wr_addr_q   <= a_scores[31:0] + (base_q << 2);
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
        S_FINISH: if (eng_done_q) begin
          status_q <= eng_status_q;
          if (!is_load && eng_status_q == OK) begin
            wr_addr_q   <= a_choice[31:0];
            wr_data_q   <= {480'd0, eng_choice_q};
            wr_bytes_q  <= 7'd4;
            ret_state_q <= S_DONE;
            state_q     <= S_WR;
          end else begin
            state_q <= S_DONE;
          end
        end
        S_DONE: state_q <= S_IDLE;
        S_RD, S_WR: if (mv_done) state_q <= ret_state_q;
        default: state_q <= S_IDLE;
      endcase
    end
  end

  logic unused_bits;
  assign unused_bits = ^{a_image[63:32], a_feat[63:32], a_feas[63:32], a_scores[63:32],
                         a_choice[63:32], eng_idle};

endmodule
