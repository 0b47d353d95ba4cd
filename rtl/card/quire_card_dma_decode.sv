// SPDX-License-Identifier: MIT
// The decoding side of a DMA channel (DIR QUIRE_DMA_TO_HOST_DECODE, docs/registers/dma.md):
// the lines of fp32 a transfer sends to the host, decoded from card memory as
// quire_quant_decode (hls/quant.c) decodes them, with its mean.
//
// A transfer begins with start_i (the channel has checked its registers: CARD on a line,
// a decodable format pair, the exponents inside card memory). First its block exponents
// are read, a line at a time, and checked as quire_bfp_exponents_valid checks them
// (checked_o, and exps_ok_o: none below QUIRE_BFP_EXP_ZERO), so that a transfer with a
// bad one sends nothing. Then its elements stream: card lines of values are read ahead
// into a small FIFO, each with its block's exponent (a line of values never spans two
// blocks: 64, 32 or 16 of them, a block 64), cut into beats of 16 lanes, decoded by
// quire_quant_decode, divided by (float)mean by quire_card_mean when mean > 1, and queued
// for the host port (out_*), one 64-byte line of fp32 a beat. The mean's pipeline cannot
// be held, so a beat enters the decoder only while the output FIFO has room for every
// beat ahead of it: OutDepth covers the decoder's and the mean's latency, so that the
// stream keeps a beat a cycle.
//
// The unit reads card memory through the channel's port whenever mem_req_o is high: from
// start_i until its last line of values is read. It takes the next transfer's start_i
// (free_o) once every beat of the one before is in the decoder: its beats still in the
// decoder, the mean and the output FIFO go out first, and the next one's follow them.
// The decoder's formats and the mean apply to every beat in flight, so the caller starts a
// transfer early only with the same format, value format and mean as the one before; with
// others, once the last beat is taken (free_o then too).
module quire_card_dma_decode
  import quire_format_pkg::*;
#(
  parameter int unsigned OutDepth = 64
) (
  input  logic         clk_i,
  input  logic         rst_ni,

  input  logic         start_i,
  input  logic [31:0]  card_i,     // the values, on a 64-byte line
  input  logic [31:0]  exp_i,      // the block exponents (a byte each)
  input  logic [31:0]  n_i,        // elements, at least 1
  input  logic [3:0]   fmt_i,      // QUIRE_FMT_BFP8, _BFP16 or _FP16
  input  logic [3:0]   val_fmt_i,  // QUIRE_FMT_INT8, _INT16, _INT32 (bfp) or _FP16 (fp16)
  input  logic [15:0]  mean_i,     // divide by it when above 1
  output logic         checked_o,  // a pulse: the exponents are checked
  output logic         exps_ok_o,  // with it: all of them valid
  output logic         free_o,     // start_i is taken (see above)

  output logic         mem_req_o,
  output logic [31:0]  mem_addr_o,
  input  logic [511:0] mem_rdata_i,

  output logic         out_valid_o,
  input  logic         out_ready_i,
  output logic [511:0] out_line_o
);

  localparam int unsigned LineFifo = 4;
  localparam int unsigned OutBits  = $clog2(OutDepth + 1);

  typedef enum logic [1:0] { IDLE, CHECK_READ, CHECK_GOT, STREAM } phase_e;
  phase_e phase_q;

  // ---- the transfer
  logic [25:0] card_line_q;
  logic [32:0] exp_q, exp_end_q;  // [exp, exp + blocks): its exponents' bytes
  logic [31:0] beats_q;           // 16 elements a beat: ceil(n / 16)
  logic [31:0] vlines_q;          // lines of values
  logic [1:0]  vb_lg_q;           // log2 of a value's bytes
  logic [3:0]  fmt_q, vf_q;
  logic [15:0] mean_q;
  logic        bfp_q;

  logic [1:0]  vb_lg;
  logic [32:0] n_bytes;
  always_comb begin : sizes
    unique case (val_fmt_i)
      4'(QUIRE_FMT_INT8):  vb_lg = 2'd0;
      4'(QUIRE_FMT_INT32): vb_lg = 2'd2;
      default:             vb_lg = 2'd1;  // INT16, FP16
    endcase
    n_bytes = 33'(n_i) << vb_lg;
  end

  // ---- the exponent check: each line of [exp, exp_end)
  logic [26:0] eline_q;  // the line read (card byte offset >> 6)
  logic        exps_bad, check_last;
  always_comb begin : exp_check
    exps_bad = 1'b0;
    for (int unsigned j = 0; j < 64; j++) begin
      if (bfp_q && {eline_q, 6'(j)} >= exp_q && {eline_q, 6'(j)} < exp_end_q &&
          $signed(mem_rdata_i[8*j +: 8]) < 8'(QUIRE_BFP_EXP_ZERO)) exps_bad = 1'b1;
    end
    check_last = !bfp_q || {eline_q, 6'd0} + 33'd64 >= exp_end_q;
  end

  // ---- the stream: value lines read into the line FIFO, each with its block's exponent
  logic [31:0]  vline_q;                 // the next value line to read
  logic [26:0]  held_eline_q;            // the exponent line in ebuf_q
  logic         held_q;
  logic [511:0] ebuf_q;
  logic         exp_arrives_q, val_arrives_q;
  logic [5:0]   val_eoff_q;              // its exponent's byte in ebuf_q
  logic [32:0]  need_exp;                // the exponent byte of line vline_q
  logic         line_room, read_exp, read_val;

  logic [511:0] lf_data_q [LineFifo];
  logic [7:0]   lf_exp_q [LineFifo];
  logic [1:0]   lf_wr_q, lf_rd_q;
  logic [2:0]   lf_count_q;

  assign need_exp  = exp_q + (33'(vline_q) >> vb_lg_q);
  assign line_room = 3'(lf_count_q) + 3'(val_arrives_q) < 3'(LineFifo);
  assign read_exp  = phase_q == STREAM && bfp_q && vline_q != vlines_q && !exp_arrives_q &&
                     (!held_q || held_eline_q != need_exp[32:6]);
  assign read_val  = phase_q == STREAM && vline_q != vlines_q && !read_exp && line_room;

  always_comb begin : port
    mem_req_o  = phase_q == CHECK_READ || read_exp || read_val;
    mem_addr_o = {card_line_q + 26'(vline_q), 6'd0};
    if (phase_q == CHECK_READ) mem_addr_o = {eline_q[25:0], 6'd0};
    else if (read_exp)         mem_addr_o = {need_exp[31:6], 6'd0};
  end

  // ---- beats: the line FIFO's head cut into 16 lanes, 64 / 16 >> vb_lg beats a line
  logic [31:0]  fed_q;     // beats into the decoder
  logic [1:0]   sub_q;     // the beat of the head line
  logic [OutBits-1:0] ahead_q;  // beats fed and not yet taken from the output FIFO
  logic         feed, head_done;
  logic [511:0] beat_vals;
  assign feed      = phase_q == STREAM && lf_count_q != '0 && fed_q != beats_q &&
                     ahead_q != OutBits'(OutDepth);
  assign head_done = sub_q == 2'(2'd3 >> vb_lg_q) || fed_q + 32'd1 == beats_q;
  assign beat_vals = lf_data_q[lf_rd_q] >> ({1'b0, sub_q, 7'd0} << vb_lg_q);

  logic               dec_ready, dec_valid, mean_valid;
  logic [15:0][31:0]  dec_y;
  logic [511:0]       mean_y;
  quire_quant_decode u_dec (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .fmt_i       (fmt_q),
    .val_fmt_i   (vf_q),
    .in_valid_i  (feed),
    .in_ready_o  (dec_ready),
    .in_vals_i   (beat_vals),
    .in_exp_i    (lf_exp_q[lf_rd_q]),
    .out_valid_o (dec_valid),
    .out_ready_i (1'b1),
    .out_y_o     (dec_y)
  );

  quire_card_mean u_mean (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (dec_valid && mean_q > 16'd1),
    .w_i         (32'(mean_q)),
    .y_i         (dec_y),
    .out_valid_o (mean_valid),
    .y_o         (mean_y)
  );

  // ---- the output FIFO
  localparam int unsigned OutPtr = $clog2(OutDepth);
  logic [511:0]       of_q [OutDepth];
  logic [OutPtr-1:0]  of_wr_q, of_rd_q;
  logic [OutBits-1:0] of_count_q;
  logic               push, pop;
  logic [511:0]       push_line;
  assign push        = mean_q > 16'd1 ? mean_valid : dec_valid;
  assign push_line   = mean_q > 16'd1 ? mean_y : dec_y;
  assign pop         = out_valid_o && out_ready_i;
  assign out_valid_o = of_count_q != '0;
  assign out_line_o  = of_q[of_rd_q];

  logic stream_over, fed_all;
  assign stream_over = phase_q == STREAM && fed_q == beats_q && ahead_q == OutBits'(pop);
  assign fed_all     = phase_q == STREAM && fed_q == beats_q;
  assign free_o      = phase_q == IDLE || fed_all;
  assign checked_o = phase_q == CHECK_GOT && (exps_bad || check_last);
  assign exps_ok_o = !(phase_q == CHECK_GOT && exps_bad);

  always_ff @(posedge clk_i) begin : storage
    if (val_arrives_q) begin
      lf_data_q[lf_wr_q] <= mem_rdata_i;
      lf_exp_q[lf_wr_q]  <= ebuf_q[8*val_eoff_q +: 8];
    end
    if (exp_arrives_q) ebuf_q <= mem_rdata_i;
    if (push) of_q[of_wr_q] <= push_line;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : control
    if (!rst_ni) begin
      phase_q       <= IDLE;
      card_line_q   <= '0;
      exp_q         <= '0;
      exp_end_q     <= '0;
      beats_q       <= '0;
      vlines_q      <= '0;
      vb_lg_q       <= '0;
      fmt_q         <= '0;
      vf_q          <= '0;
      mean_q        <= '0;
      bfp_q         <= 1'b0;
      eline_q       <= '0;
      vline_q       <= '0;
      held_eline_q  <= '0;
      held_q        <= 1'b0;
      exp_arrives_q <= 1'b0;
      val_arrives_q <= 1'b0;
      val_eoff_q    <= '0;
      lf_wr_q       <= '0;
      lf_rd_q       <= '0;
      lf_count_q    <= '0;
      fed_q         <= '0;
      sub_q         <= '0;
      ahead_q       <= '0;
      of_wr_q       <= '0;
      of_rd_q       <= '0;
      of_count_q    <= '0;
    end else begin
      exp_arrives_q <= read_exp;
      val_arrives_q <= read_val;
      if (read_exp) begin
        held_eline_q <= need_exp[32:6];
        held_q       <= 1'b1;
      end
      if (read_val) begin
        vline_q    <= vline_q + 32'd1;
        val_eoff_q <= need_exp[5:0];
      end
      if (val_arrives_q) lf_wr_q <= lf_wr_q + 2'd1;
      if (feed) begin
        fed_q <= fed_q + 32'd1;
        sub_q <= head_done ? 2'd0 : sub_q + 2'd1;
        if (head_done) lf_rd_q <= lf_rd_q + 2'd1;
      end
      lf_count_q <= lf_count_q + 3'(val_arrives_q) - 3'(feed && head_done);
      ahead_q    <= ahead_q + OutBits'(feed) - OutBits'(pop);
      if (push) of_wr_q <= of_wr_q + 1'b1;
      if (pop)  of_rd_q <= of_rd_q + 1'b1;
      of_count_q <= of_count_q + OutBits'(push) - OutBits'(pop);

      unique case (phase_q)
        IDLE: ;
        CHECK_READ: phase_q <= CHECK_GOT;
        CHECK_GOT: begin
          if (exps_bad)        phase_q <= IDLE;
          else if (check_last) phase_q <= STREAM;
          else begin
            eline_q <= eline_q + 27'd1;
            phase_q <= CHECK_READ;
          end
        end
        STREAM: begin
          // over once every beat is fed and taken (nothing read ahead is left: the reads
          // stop at the last value line, every line's beats are fed)
          if (stream_over) phase_q <= IDLE;
        end
        default: phase_q <= IDLE;
      endcase
      // the next transfer: once idle, or once every beat of the one before is fed
      if (start_i && free_o) begin
        card_line_q <= card_i[31:6];
        exp_q       <= 33'(exp_i);
        exp_end_q   <= 33'(exp_i) + ((33'(n_i) + 33'd63) >> 6);
        eline_q     <= 27'(exp_i >> 6);
        beats_q     <= 32'((33'(n_i) + 33'd15) >> 4);
        vlines_q    <= 32'((n_bytes + 33'd63) >> 6);
        vb_lg_q     <= vb_lg;
        fmt_q       <= fmt_i;
        vf_q        <= val_fmt_i;
        mean_q      <= mean_i;
        bfp_q       <= fmt_i == 4'(QUIRE_FMT_BFP8) || fmt_i == 4'(QUIRE_FMT_BFP16);
        vline_q     <= '0;
        held_q      <= 1'b0;
        fed_q       <= '0;
        sub_q       <= '0;
        // a format without exponents has nothing to check (CHECK_GOT at once)
        phase_q     <= fmt_i == 4'(QUIRE_FMT_BFP8) || fmt_i == 4'(QUIRE_FMT_BFP16)
                       ? CHECK_READ : CHECK_GOT;
      end
    end
  end

  logic unused;
  assign unused = ^{dec_ready, n_bytes[32], card_i[5:0]};

endmodule
