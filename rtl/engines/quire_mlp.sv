// SPDX-License-Identifier: MIT
//
// The MLP engine (quire_mlp_load and quire_mlp_score in hls/mlp.c, the
// contract of docs/contract-mlp.md): the model held on chip between calls,
// and the scoring of candidates through Cands MAC arrays of 64 int8 lanes.
//
// On chip, as the C kernel's static struct quire_mlp_net: weight rows of 64
// int8 (row {l, o, i/64}: 4 layers x 256 outputs x 4 chunks, 512 bits each,
// written a byte at a time by the loader, read a row a cycle), and per output
// {l, o} the bias, multiplier and shift. LOAD (quire_mlp_load.sv) forgets the
// model first and keeps the new one only when it checks out.
//
// SCORE of c candidates: quire_mlp_score's checks (no model: SHAPE; c outside
// 1..1024: SIZE), then the candidates in groups of Cands (the last group may be
// smaller): each candidate's features arrive in ceil(n_0 / 64) beats of 64 int8
// (lanes past n_0 are ignored) with its feasibility bit on the last beat, a
// group's candidates one after the other; then the group is scored together:
// each layer issues one weight row chunk a cycle (output o, chunk j, for every
// o, j), read once and shared by Cands MAC arrays of 64 lanes (quire_mlp_dot),
// one a candidate of the group; each array accumulates the chunks of an output
// from its bias, and hidden outputs are requantized (quire_mlp_requant, one per
// candidate) into that candidate's next activations; the output layer's single
// accumulator is the score. A hidden layer of at most SegLanes (21) inputs
// packs Pack (3) outputs into a row: output o's weights in lanes 0..20, o+1's
// in 21..41, o+2's in 42..62 (read from their three rows at once), the
// candidate's inputs repeated in each segment, and the array's three segment
// sums (quire_mlp_dot) are the three outputs' dot products: ceil(n_{l+1} / 3)
// rows instead of n_{l+1}, three requantizers a candidate. Every output's sum
// is the same number either way (int32, exact). A layer waits 4 cycles for the
// previous one to drain. The group's scores leave on score_valid_o one a cycle, in candidate
// order; the choice (the feasible candidate of the largest score, ties to the
// lowest index) and the status (OK or NO_FEASIBLE) at done. Slots of a short
// last group compute on stale activations and are never given out.
// Cycles per group of g candidates: g * ceil(n_0/64) + sum over layers of
// (rows_l + 4) + g, with the features and scores taken at once, where rows_l
// is ceil(n_{l+1} / 3) for a hidden layer of n_l <= 21, else n_{l+1} * ceil(n_l/64).
module quire_mlp
  import quire_mlp_pkg::*;
#(
  // Candidates scored at once, each on its own 64-lane MAC array (the weight row
  // shared): 64 * Cands int8 multipliers. 1..16.
  parameter int unsigned Cands = 8
) (
  input  logic         clk_i,
  input  logic         rst_ni,

  // LOAD: the image's bytes in 512-bit beats (quire_mlp_load.sv).
  input  logic         load_start_i,
  input  logic [31:0]  load_len_i,
  input  logic         img_valid_i,
  input  logic [511:0] img_data_i,
  output logic         img_ready_o,

  // SCORE: c candidates, their feature beats and feasibility.
  input  logic         score_start_i,
  input  logic [31:0]  score_c_i,
  input  logic         feat_valid_i,
  input  logic [511:0] feat_data_i,
  input  logic         feat_feasible_i,  // with a candidate's last beat
  output logic         feat_ready_o,
  output logic         score_valid_o,
  output logic [31:0]  score_o,
  input  logic         score_ready_i,

  // The end of either: a pulse, the status, the choice (with OK after SCORE).
  output logic         done_o,
  output logic [31:0]  status_o,
  output logic [31:0]  choice_o,
  output logic         idle_o,

  // The model held: layers (0: none) and the input width.
  output logic [2:0]   layers_o,
  output logic [8:0]   width0_o
);

  // ---- the model's memories and shape
  logic [511:0] wmem_q [4096];
  logic [31:0]  bias_q [1024];
  logic [31:0]  mult_q [1024];
  logic [5:0]   shift_q [1024];
  logic [2:0]   layers_q;
  logic [8:0]   width_q [5];

  logic        ld_start, ld_done, w_we, b_we, m_we, s_we;
  logic [11:0] w_row;
  logic [5:0]  w_lane;
  logic [7:0]  w_byte;
  logic [9:0]  p_addr;
  logic [31:0] p_data, ld_status;
  logic [2:0]  ld_layers;
  logic [44:0] ld_widths;

  typedef enum logic [2:0] { E_IDLE, E_LOAD, E_FEAT, E_LAYER, E_DRAIN, E_SCORE, E_DONE } state_e;
  state_e state_q;

  assign ld_start = state_q == E_IDLE && load_start_i;

  quire_mlp_load u_load (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .start_i    (ld_start),
    .len_i      (load_len_i),
    .in_valid_i (img_valid_i && state_q == E_LOAD),
    .in_data_i  (img_data_i),
    .in_ready_o (img_ready_o),
    .w_we_o     (w_we),
    .w_row_o    (w_row),
    .w_lane_o   (w_lane),
    .w_byte_o   (w_byte),
    .b_we_o     (b_we),
    .m_we_o     (m_we),
    .s_we_o     (s_we),
    .p_addr_o   (p_addr),
    .p_data_o   (p_data),
    .done_o     (ld_done),
    .status_o   (ld_status),
    .layers_o   (ld_layers),
    .widths_o   (ld_widths)
  );

  // ---- the scoring walk: group from candidate base_q, layer l, output o, chunk j
  localparam int unsigned SlotBits = Cands > 1 ? $clog2(Cands) : 1;
  // A narrow hidden layer's row: Pack outputs of SegLanes inputs each.
  localparam int unsigned Pack = 3;
  localparam int unsigned SegLanes = 21;
  localparam int unsigned SegBits = 8 * SegLanes;
  logic [31:0]  c_q, base_q, best_q, status_q;
  logic signed [31:0] best_score_q;
  logic         found_q;
  logic [Cands-1:0] feasible_q;
  logic [1:0]   l_q, j_q, fj_q;
  logic [8:0]   o_q;
  logic [2:0]   drain_q;
  logic [SlotBits-1:0] fs_q, es_q;  // the slot being fed, the slot being given out
  logic [SlotBits:0]   n_q;          // candidates in the group: 1..Cands
  logic [2047:0] act_q [Cands][2];
  logic [31:0]  score_q [Cands];

  logic [8:0] in_w, out_w, o_step, o1, o2;
  logic [2:0] nch, nch0;         // chunks of 64 inputs: 1..4
  logic       hidden, last_chunk, last_out, pack;
  assign in_w       = width_q[{1'b0, l_q}];
  assign out_w      = width_q[{1'b0, l_q} + 3'd1];
  assign nch        = 3'((in_w + 9'd63) >> 6);
  assign nch0       = 3'((width_q[0] + 9'd63) >> 6);
  assign hidden     = 3'(l_q) + 3'd1 < layers_q;
  assign last_chunk = 3'(j_q) + 3'd1 == nch;
  // A hidden layer of at most SegLanes inputs: Pack outputs a row (o, o1, o2).
  assign pack       = hidden && in_w <= 9'(SegLanes);
  assign o_step     = pack ? 9'(Pack) : 9'd1;
  assign o1         = o_q + 9'd1;
  assign o2         = o_q + 9'd2;
  assign last_out   = o_q + o_step >= out_w;

  // The size of the group that starts at candidate `base` of c.
  function automatic logic [SlotBits:0] group_size(logic [31:0] c, logic [31:0] base);
    return c - base < 32'(Cands) ? (SlotBits+1)'(c - base) : (SlotBits+1)'(Cands);
  endfunction

  // Lanes of chunk j that are inputs of the layer.
  logic [9:0]  lanes_left;
  logic [63:0] keep;
  assign lanes_left = 10'(in_w) - {2'd0, j_q, 6'd0};
  assign keep = lanes_left >= 10'd64 ? {64{1'b1}} : (64'd1 << lanes_left) - 64'd1;

  // Stage 1: the row, each candidate's activation chunk and the output's parameters, read.
  logic         issue;
  logic         s1_valid_q, s1_first_q, s1_last_q, s1_hidden_q, s1_buf_q, s1_pack_q;
  logic [1:0]   s1_more_q;  // a packed row's outputs o + 1, o + 2 exist
  logic [7:0]   s1_o_q;
  logic [511:0] s1_w_q, s1_row;
  logic [SegBits-1:0] s1_w1_q, s1_w2_q;  // a packed row's outputs o + 1, o + 2
  logic [511:0] s1_x_q [Cands];
  logic [63:0]  s1_keep_q;
  logic [Pack-1:0][31:0] s1_bias_q, s1_mult_q;
  logic [Pack-1:0][5:0]  s1_shift_q;
  assign issue  = state_q == E_LAYER;
  assign s1_row = s1_pack_q ? {8'd0, s1_w2_q, s1_w1_q, s1_w_q[SegBits-1:0]} : s1_w_q;

  // Stages 2, 3: the MAC arrays, one a candidate; the tags follow them.
  logic [Cands-1:0] dot_valid;
  logic [31:0]  dot_sum [Cands];
  logic [2:0][31:0] dot_seg [Cands];
  for (genvar g = 0; g < Cands; g++) begin : gen_dot
    quire_mlp_dot u_dot (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .in_valid_i  (s1_valid_q),
      .in_w_i      (s1_row),
      .in_x_i      (s1_x_q[g]),
      .in_keep_i   (s1_keep_q),
      .out_valid_o (dot_valid[g]),
      .out_sum_o   (dot_sum[g]),
      .out_seg_o   (dot_seg[g])
    );
  end
  // The arrays run in lock step: array 0's valid speaks for all.
  logic unused_valid;
  assign unused_valid = ^dot_valid;
  logic         s2_first_q, s2_last_q, s2_hidden_q, s2_buf_q, s2_pack_q;
  logic         s3_first_q, s3_last_q, s3_hidden_q, s3_buf_q, s3_pack_q;
  logic [1:0]   s2_more_q, s3_more_q;
  logic [7:0]   s2_o_q, s3_o_q;
  logic [Pack-1:0][31:0] s2_bias_q, s2_mult_q, s3_bias_q, s3_mult_q;
  logic [Pack-1:0][5:0]  s2_shift_q, s3_shift_q;

  // Stage 4: the accumulators; an output's last chunk makes them final.
  logic [31:0]  acc_q [Cands];
  logic [31:0]  acc_next [Cands];
  logic         fin_valid_q, fin_hidden_q, fin_buf_q;
  logic [1:0]   fin_more_q;
  logic [7:0]   fin_o_q;
  logic [Pack-1:0][31:0] fin_acc_q [Cands];
  logic [Pack-1:0][31:0] fin_mult_q;
  logic [Pack-1:0][5:0]  fin_shift_q;
  // A packed row is its outputs' only chunk: each segment's sum from its bias.
  always_comb begin : accumulate
    for (int unsigned g = 0; g < Cands; g++) begin
      acc_next[g] = (s3_first_q ? s3_bias_q[0] : acc_q[g])
                    + (s3_pack_q ? dot_seg[g][0] : dot_sum[g]);
    end
  end

  // Stage 5: requantized into each candidate's next activations (Pack of them from
  // a packed row), or its score.
  logic [Pack-1:0][7:0] y [Cands];
  for (genvar g = 0; g < Cands; g++) begin : gen_requant
    for (genvar k = 0; k < Pack; k++) begin : gen_out
      quire_mlp_requant u_requant (
        .acc_i   (fin_acc_q[g][k]),
        .mult_i  (fin_mult_q[k]),
        .shift_i (fin_shift_q[k]),
        .y_o     (y[g][k])
      );
    end
  end

  logic [31:0] k_out, score_out;
  logic        better, feasible_out;
  assign k_out        = base_q + 32'(es_q);
  assign score_out    = score_q[es_q];
  assign feasible_out = feasible_q[es_q];
  assign better = feasible_out && (!found_q || $signed(score_out) > best_score_q);

  assign feat_ready_o  = state_q == E_FEAT;
  assign score_valid_o = state_q == E_SCORE;
  assign score_o       = score_out;
  assign idle_o        = state_q == E_IDLE;
  assign layers_o      = layers_q;
  assign width0_o      = width_q[0];

  always_ff @(posedge clk_i) begin : memories
    if (w_we) wmem_q[w_row][8*w_lane +: 8] <= w_byte;
    if (b_we) bias_q[p_addr] <= p_data;
    if (m_we) mult_q[p_addr] <= p_data;
    if (s_we) shift_q[p_addr] <= p_data[5:0];
    // Read only when a row is issued: idle cycles move nothing (a simulator's cost too).
    if (issue) s1_w_q <= wmem_q[{l_q, o_q[7:0], j_q}];
    // A packed row's other outputs (past the layer's last one: read, never written).
    if (issue && pack) begin
      s1_w1_q <= wmem_q[{l_q, o1[7:0], 2'd0}][SegBits-1:0];
      s1_w2_q <= wmem_q[{l_q, o2[7:0], 2'd0}][SegBits-1:0];
    end
    s1_bias_q  <= {bias_q[{l_q, o2[7:0]}], bias_q[{l_q, o1[7:0]}], bias_q[{l_q, o_q[7:0]}]};
    s1_mult_q  <= {mult_q[{l_q, o2[7:0]}], mult_q[{l_q, o1[7:0]}], mult_q[{l_q, o_q[7:0]}]};
    s1_shift_q <= {shift_q[{l_q, o2[7:0]}], shift_q[{l_q, o1[7:0]}],
                   shift_q[{l_q, o_q[7:0]}]};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : pipeline
    if (!rst_ni) begin
      s1_valid_q  <= 1'b0;
      s1_first_q  <= 1'b0;
      s1_last_q   <= 1'b0;
      s1_hidden_q <= 1'b0;
      s1_buf_q    <= 1'b0;
      s1_pack_q   <= 1'b0;
      s1_more_q   <= 2'd0;
      s1_o_q      <= 8'd0;
      for (int unsigned g = 0; g < Cands; g++) begin
        s1_x_q[g]     <= '0;
        acc_q[g]      <= 32'd0;
        fin_acc_q[g]  <= '0;
      end
      s1_keep_q   <= 64'd0;
      s2_first_q  <= 1'b0;
      s2_last_q   <= 1'b0;
      s2_hidden_q <= 1'b0;
      s2_buf_q    <= 1'b0;
      s2_pack_q   <= 1'b0;
      s2_more_q   <= 2'd0;
      s2_o_q      <= 8'd0;
      s2_bias_q   <= '0;
      s2_mult_q   <= '0;
      s2_shift_q  <= '0;
      s3_first_q  <= 1'b0;
      s3_last_q   <= 1'b0;
      s3_hidden_q <= 1'b0;
      s3_buf_q    <= 1'b0;
      s3_pack_q   <= 1'b0;
      s3_more_q   <= 2'd0;
      s3_o_q      <= 8'd0;
      s3_bias_q   <= '0;
      s3_mult_q   <= '0;
      s3_shift_q  <= '0;
      fin_valid_q <= 1'b0;
      fin_hidden_q <= 1'b0;
      fin_buf_q   <= 1'b0;
      fin_more_q  <= 2'd0;
      fin_o_q     <= 8'd0;
      fin_mult_q  <= '0;
      fin_shift_q <= '0;
    end else begin
      s1_valid_q  <= issue;
      s1_first_q  <= j_q == 2'd0;
      s1_last_q   <= last_chunk;
      s1_hidden_q <= hidden;
      s1_buf_q    <= ~l_q[0];
      s1_pack_q   <= pack;
      s1_more_q   <= {pack && o2 < out_w, pack && o1 < out_w};
      s1_o_q      <= o_q[7:0];
      for (int unsigned g = 0; g < Cands; g++) begin
        // A packed row: the inputs (chunk 0) once in each segment.
        if (issue) begin
          s1_x_q[g] <= pack ? {8'd0, {Pack{act_q[g][l_q[0]][SegBits-1:0]}}}
                            : act_q[g][l_q[0]][512*j_q +: 512];
        end
        if (dot_valid[0]) begin
          acc_q[g]        <= acc_next[g];
          fin_acc_q[g][0] <= acc_next[g];
          fin_acc_q[g][1] <= s3_bias_q[1] + dot_seg[g][1];
          fin_acc_q[g][2] <= s3_bias_q[2] + dot_seg[g][2];
        end
      end
      s1_keep_q   <= pack ? {1'b0, {Pack{keep[SegLanes-1:0]}}} : keep;
      // The MAC arrays' two stages.
      s2_first_q  <= s1_first_q;
      s2_last_q   <= s1_last_q && s1_valid_q;
      s2_hidden_q <= s1_hidden_q;
      s2_buf_q    <= s1_buf_q;
      s2_pack_q   <= s1_pack_q;
      s2_more_q   <= s1_more_q;
      s2_o_q      <= s1_o_q;
      s2_bias_q   <= s1_bias_q;
      s2_mult_q   <= s1_mult_q;
      s2_shift_q  <= s1_shift_q;
      s3_first_q  <= s2_first_q;
      s3_last_q   <= s2_last_q;
      s3_hidden_q <= s2_hidden_q;
      s3_buf_q    <= s2_buf_q;
      s3_pack_q   <= s2_pack_q;
      s3_more_q   <= s2_more_q;
      s3_o_q      <= s2_o_q;
      s3_bias_q   <= s2_bias_q;
      s3_mult_q   <= s2_mult_q;
      s3_shift_q  <= s2_shift_q;
      fin_valid_q  <= dot_valid[0] && s3_last_q;
      fin_hidden_q <= s3_hidden_q;
      fin_buf_q    <= s3_buf_q;
      fin_more_q   <= s3_more_q;
      fin_o_q      <= s3_o_q;
      fin_mult_q   <= s3_mult_q;
      fin_shift_q  <= s3_shift_q;
    end
  end

  // The activations, a line (64 int8) at a time: a group's features into buffer 0,
  // a hidden layer's outputs into the buffer the next layer reads. No reset and no
  // variable part-select on the left: every line has its own compare, so Yosys does
  // not expand each write into a case over every offset of 16 x 2048 bits (that
  // kept its proc passes busy for hours) and Verilator tests a few indices a cycle.
  // Nothing observable reads an activation before it is written: lanes past a
  // layer's inputs are cleared by keep, and slots past the group's size are scored
  // but never given out.
  // A row's outputs fin_o + k (k < Pack; those of a packed row that exist), each a byte
  // of the line its bits 7:6 name: per line the bytes written and, per candidate, their values.
  logic         feat_we, hid_we;
  logic [Pack-1:0]       hid_out;
  logic [Pack-1:0][7:0]  hid_o;
  logic [Pack-1:0][63:0] hid_byte;  // the byte of its line output k lands in, one-hot
  logic [3:0][Pack-1:0][511:0] hid_mask;  // per line, output k's byte there (or none)
  logic [3:0][511:0] line_mask;
  logic [511:0] line_data [Cands][4];
  assign feat_we  = state_q == E_FEAT && feat_valid_i;
  assign hid_we   = fin_valid_q && fin_hidden_q;
  assign hid_out  = {fin_more_q, 1'b1};
  for (genvar k = 0; k < Pack; k++) begin : gen_hid_out
    assign hid_o[k]    = fin_o_q + 8'(k);
    assign hid_byte[k] = 64'd1 << hid_o[k][5:0];
    for (genvar l = 0; l < 4; l++) begin : gen_line
      for (genvar i = 0; i < 64; i++) begin : gen_byte
        assign hid_mask[l][k][8*i +: 8] =
            {8{hid_out[k] && 32'(hid_o[k][7:6]) == l && hid_byte[k][i]}};
      end
    end
  end
  always_comb begin : hid_lines
    for (int unsigned l = 0; l < 4; l++) begin
      line_mask[l] = '0;
      for (int unsigned k = 0; k < Pack; k++) line_mask[l] = line_mask[l] | hid_mask[l][k];
      for (int unsigned g = 0; g < Cands; g++) begin
        line_data[g][l] = '0;
        for (int unsigned k = 0; k < Pack; k++) begin
          line_data[g][l] = line_data[g][l] | ({64{y[g][k]}} & hid_mask[l][k]);
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin : activations
    for (int unsigned g = 0; g < Cands; g++) begin
      for (int unsigned b = 0; b < 2; b++) begin
        for (int unsigned l = 0; l < 4; l++) begin
          // A feature line wins over an output in the same line, as the walk's
          // last assignment did when both were in one process.
          if (b == 0 && feat_we && 32'(fs_q) == g && 32'(fj_q) == l) begin
            act_q[g][b][512*l +: 512] <= feat_data_i;
          end else if (hid_we && 32'(fin_buf_q) == b && |line_mask[l]) begin
            act_q[g][b][512*l +: 512] <= (act_q[g][b][512*l +: 512] & ~line_mask[l])
                                         | line_data[g][l];
          end
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : walk
    if (!rst_ni) begin
      state_q      <= E_IDLE;
      layers_q     <= 3'd0;
      for (int unsigned l = 0; l < 5; l++) width_q[l] <= 9'd0;
      c_q          <= 32'd0;
      base_q       <= 32'd0;
      best_q       <= 32'd0;
      best_score_q <= 32'sd0;
      found_q      <= 1'b0;
      feasible_q   <= '0;
      status_q     <= 32'd0;
      l_q          <= 2'd0;
      j_q          <= 2'd0;
      fj_q         <= 2'd0;
      o_q          <= 9'd0;
      drain_q      <= 3'd0;
      fs_q         <= '0;
      es_q         <= '0;
      n_q          <= '0;
      for (int unsigned g = 0; g < Cands; g++) score_q[g] <= 32'd0;
      done_o       <= 1'b0;
      status_o     <= 32'd0;
      choice_o     <= 32'd0;
    end else begin
      done_o <= 1'b0;
      if (fin_valid_q) begin
        for (int unsigned g = 0; g < Cands; g++) begin
          if (!fin_hidden_q) score_q[g] <= fin_acc_q[g][0];
        end
      end
      unique case (state_q)
        E_IDLE: begin
          if (load_start_i) begin
            layers_q <= 3'd0;  // quire_mlp_load: a failed load leaves no model
            state_q  <= E_LOAD;
          end else if (score_start_i) begin
            c_q     <= score_c_i;
            base_q  <= 32'd0;
            n_q     <= group_size(score_c_i, 32'd0);
            found_q <= 1'b0;
            best_q  <= 32'd0;
            fj_q    <= 2'd0;
            fs_q    <= '0;
            if (layers_q == 3'd0) begin
              status_q <= ERR_SHAPE;
              state_q  <= E_DONE;
            end else if (score_c_i < 32'd1 || score_c_i > MLP_MAX_CANDIDATES) begin
              status_q <= ERR_SIZE;
              state_q  <= E_DONE;
            end else begin
              state_q <= E_FEAT;
            end
          end
        end
        E_LOAD: if (ld_done) begin
          status_q <= ld_status;
          if (ld_status == OK) begin
            layers_q <= ld_layers;
            for (int unsigned l = 0; l < 5; l++) width_q[l] <= ld_widths[9*l +: 9];
          end
          state_q <= E_DONE;
        end
        E_FEAT: if (feat_valid_i) begin
          if (3'(fj_q) + 3'd1 == nch0) begin
            fj_q             <= 2'd0;
            feasible_q[fs_q] <= feat_feasible_i;
            if ((SlotBits+1)'(fs_q) + 1'b1 == n_q) begin
              fs_q    <= '0;
              l_q     <= 2'd0;
              o_q     <= 9'd0;
              j_q     <= 2'd0;
              state_q <= E_LAYER;
            end else begin
              fs_q <= fs_q + 1'b1;
            end
          end else begin
            fj_q <= fj_q + 2'd1;
          end
        end
        E_LAYER: begin
          if (!last_chunk) begin
            j_q <= j_q + 2'd1;
          end else begin
            j_q <= 2'd0;
            o_q <= o_q + o_step;
            if (last_out) begin
              drain_q <= 3'd0;
              state_q <= E_DRAIN;
            end
          end
        end
        E_DRAIN: begin
          // The last row reaches the activations (or the scores) 5 cycles after its issue.
          drain_q <= drain_q + 3'd1;
          if (drain_q == 3'd3) begin
            if (hidden) begin
              l_q     <= l_q + 2'd1;
              o_q     <= 9'd0;
              state_q <= E_LAYER;
            end else begin
              es_q    <= '0;
              state_q <= E_SCORE;
            end
          end
        end
        E_SCORE: if (score_ready_i) begin
          if (better) begin
            found_q      <= 1'b1;
            best_q       <= k_out;
            best_score_q <= $signed(score_out);
          end
          if (k_out + 32'd1 == c_q) begin
            status_q <= (found_q || better) ? OK : ERR_NO_FEASIBLE;
            state_q  <= E_DONE;
          end else if ((SlotBits+1)'(es_q) + 1'b1 == n_q) begin
            base_q  <= k_out + 32'd1;
            n_q     <= group_size(c_q, k_out + 32'd1);
            state_q <= E_FEAT;
          end else begin
            es_q <= es_q + 1'b1;
          end
        end
        E_DONE: begin
          done_o   <= 1'b1;
          status_o <= status_q;
          choice_o <= best_q;
          state_q  <= E_IDLE;
        end
        default: state_q <= E_IDLE;
      endcase
    end
  end

endmodule
