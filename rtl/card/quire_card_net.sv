// SPDX-License-Identifier: MIT
// The card's network port (QUIRE_NET_* of include/quire/card.h, the frames of
// docs/network.md, its rings in docs/registers/net-rings.md; its counters are the
// NETPORT block, docs/registers/netport.md). Frames move between card memory and the
// wire through two rings of 16-byte descriptors in card memory, each direction on a
// line-wide port of card memory of its own, so both run at a beat a cycle at once:
//   transmit (port D): while TX_CONS is behind TX_PROD, the descriptor at TX_CONS is
//     read, its frame checked (length, alignment, card memory bounds), then streamed
//     out a 64-byte beat a cycle: a line read is asked for every cycle, its beat made
//     (this port's address stamped as the source) and its CRC-32 folded in the cycle
//     its data comes, a two-beat buffer in front of the stream keeping the reads going
//     while the MAC takes a beat a cycle, and the CRC beside the last beat (the MAC
//     puts it into the header's crc32 field, as a MAC appends its FCS). The MAC's
//     answer (sent, peer busy, no such port) is written into the descriptor's STATUS
//     and TX_CONS moves on.
//   receive (port G): the buffer of the descriptor at RX_CONS is read ahead (a buffer
//     outside card memory, or neither on a line nor half a line in, is given back at
//     once with QUIRE_ERR_RANGE); a frame streams into it a beat a line a cycle (bytes
//     past the buffer's end are not written), its CRC and length checked on its last
//     beat. Into a buffer half a line in (where a frame's payload, after its 32-byte
//     header, starts on a line, as the engines stream it) each cycle writes a line of
//     the beat's first half and the last beat's second half, and a frame that passes
//     takes one cycle more for its last half line. A frame that passes completes the
//     descriptor (LEN, STATUS written, RX_CONS moves on, the core woken); one that fails
//     is counted and its buffer takes the next frame. With no buffer in hand the port takes no frame (rx_ready_o low: the
//     network pushes back on the senders); a frame that takes the last buffer posted is
//     counted (RX_NOBUF).
// The counters of the NETPORT BAR record leave as outputs; link and address come from
// outside (the harness attaches the card to a network).
module quire_card_net
  import quire_card_pkg::*;
  import quire_crc32_pkg::*;
#(
  parameter logic [63:0] MemBytes = 64'h0800_0000,
  parameter int unsigned LineBits = 21
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  // The firmware's register window: read data in the cycle of the request, the answer
  // (rvalid_o) a cycle later.
  input  logic                req_i,
  input  logic                we_i,
  input  logic [7:0]          addr_i,
  input  logic [31:0]         wdata_i,
  output logic [31:0]         rdata_o,
  output logic                rvalid_o,

  // Attached to a network, at this address.
  input  logic                link_i,
  input  logic [15:0]         port_addr_i,

  // Card memory port D, the transmit side's: descriptors and frames read, STATUS written
  // back; read data a cycle later.
  output logic                mem_req_o,
  output logic                mem_we_o,
  output logic [63:0]         mem_be_o,
  output logic [LineBits-1:0] mem_line_o,
  output logic [511:0]        mem_wdata_o,
  input  logic [511:0]        mem_rdata_i,

  // Card memory port G, the receive side's: descriptors read, frames and LEN and STATUS
  // written; read data a cycle later.
  output logic                rmem_req_o,
  output logic                rmem_we_o,
  output logic [63:0]         rmem_be_o,
  output logic [LineBits-1:0] rmem_line_o,
  output logic [511:0]        rmem_wdata_o,
  input  logic [511:0]        rmem_rdata_i,

  // Transmit stream: beats of a frame, `tx_bytes_o` (1..64) of each valid, the CRC with the
  // last; then the MAC's answer, tx_done_i with QUIRE_OK, QUIRE_ERR_BUSY or another status,
  // and tx_nobody_i when no port had the address (the frame is lost, counted in TX_DROPS).
  output logic                tx_valid_o,
  input  logic                tx_ready_i,
  output logic [511:0]        tx_data_o,
  output logic [6:0]          tx_bytes_o,
  output logic                tx_last_o,
  output logic [31:0]         tx_crc_o,
  input  logic                tx_done_i,
  input  logic [31:0]         tx_status_i,
  input  logic                tx_nobody_i,

  // Receive stream: beats of a frame, rx_bytes_i (1..64) of each valid, rx_last_i with the last.
  input  logic                rx_valid_i,
  output logic                rx_ready_o,
  input  logic [511:0]        rx_data_i,
  input  logic [6:0]          rx_bytes_i,
  input  logic                rx_last_i,

  // A receive descriptor completes (a pulse, in the cycle it is written: it wakes the core,
  // and a harness that lets an idle card sleep sees the port busy), and the NETPORT record's
  // counters.
  output logic                rx_event_o,
  output logic [31:0]         tx_frames_o,
  output logic [31:0]         rx_frames_o,
  output logic [31:0]         rx_errors_o,
  output logic [63:0]         tx_bytes_total_o,
  output logic [31:0]         tx_drops_o
);

  localparam int unsigned FrameMax = FRAME_HDR_BYTES + FRAME_MAX_PAYLOAD;

  // ---- the rings' registers
  logic [31:0] tx_base_q, tx_log2_q, tx_prod_q, tx_cons_q;
  logic [31:0] rx_base_q, rx_log2_q, rx_prod_q, rx_cons_q, rx_nobuf_q;

  // A ring is usable when its 2^log2 descriptors lie whole in card memory.
  function automatic logic [31:0] ring_state(logic [31:0] base, logic [31:0] log2);
    if (log2 > NET_RING_LOG2_MAX || base[3:0] != 4'd0 ||
        64'(base) + (64'(NET_DESC_BYTES) << log2[3:0]) > MemBytes)
      return ERR_RANGE;
    return OK;
  endfunction

  // The byte address of descriptor `idx` of a ring.
  function automatic logic [31:0] desc_addr(logic [31:0] base, logic [3:0] log2,
                                            logic [31:0] idx);
    return base + NET_DESC_BYTES * (idx & ((32'd1 << log2) - 32'd1));
  endfunction

  logic [31:0] tx_state, rx_state;
  assign tx_state = ring_state(tx_base_q, tx_log2_q);
  assign rx_state = ring_state(rx_base_q, rx_log2_q);

  // ---- registers: reads now
  always_comb begin : read_regs
    rdata_o = 32'd0;
    if (link_i) unique case ({24'd0, addr_i})
      NET_PORT_ADDR: rdata_o = {16'd0, port_addr_i};
      NET_PORT_LINK: rdata_o = 32'd1;
      NET_TX_BASE:   rdata_o = tx_base_q;
      NET_TX_LOG2:   rdata_o = tx_log2_q;
      NET_TX_PROD:   rdata_o = tx_prod_q;
      NET_TX_CONS:   rdata_o = tx_cons_q;
      NET_TX_STATE:  rdata_o = tx_state;
      NET_RX_BASE:   rdata_o = rx_base_q;
      NET_RX_LOG2:   rdata_o = rx_log2_q;
      NET_RX_PROD:   rdata_o = rx_prod_q;
      NET_RX_CONS:   rdata_o = rx_cons_q;
      NET_RX_STATE:  rdata_o = rx_state;
      NET_RX_NOBUF:  rdata_o = rx_nobuf_q;
      NET_RX_BAD:    rdata_o = rx_errors_o;
      default: ;
    endcase
  end

  // Without a network the window reads 0 and ignores writes: the firmware sees no port.
  logic wr;
  assign wr = link_i && req_i && we_i;

  // ---- transmit
  typedef enum logic [2:0] {
    T_IDLE, T_CHECK, T_PRIME, T_STREAM, T_WAIT, T_WB
  } tx_state_e;
  tx_state_e tx_q;

  // The descriptor in hand: its address, frame and length, and the status to write back.
  logic [31:0] td_addr_q, tx_card_q, tx_len_q, tx_status_q;
  logic        tx_nobody_q;

  // The frame's byte offset in its line; its beats; the next line to read and the reads
  // left (an unaligned frame reads one line more: each beat is made of two lines); a read
  // whose data comes this cycle; is it the unaligned frame's first line, kept for the next?
  // The beats made (CRC folded in) and sent so far.
  logic [5:0]          tx_off;
  logic [31:0]         tx_beats, tx_sent_q, tx_made_q, rd_line_q, rd_left_q;
  logic                rd_pend_q, rd_keep_q;
  logic [511:0]        prev_q;
  logic [31:0]         crc_q;
  assign tx_off   = tx_card_q[5:0];
  assign tx_beats = (tx_len_q + 32'd63) >> 6;

  logic [31:0] tx_left;
  logic [6:0]  beat_bytes;
  assign tx_left    = tx_len_q - (tx_made_q << 6);
  assign beat_bytes = tx_left >= 32'd64 ? 7'd64 : tx_left[6:0];

  // The two-beat buffer in front of the transmit stream (its head is the stream's beat), and
  // this cycle's moves: a beat leaves when the MAC takes it; a read is asked for when its
  // beat will find room a cycle later even if the MAC takes nothing then.
  logic [511:0] txq_data_q  [2];
  logic [6:0]   txq_bytes_q [2];
  logic [1:0]   txq_last_q;
  logic         txq_head_q;
  logic [1:0]   txq_count_q;
  logic         tx_take, rd_issue;
  assign tx_take  = tx_q == T_STREAM && txq_count_q != 2'd0 && tx_ready_i;
  assign rd_issue = tx_q == T_STREAM && rd_left_q != 32'd0 &&
                    {1'b0, txq_count_q} + {2'd0, rd_pend_q} < 3'd2 + {2'd0, tx_take};

  // The descriptor's words as read (T_CHECK: port D's data of its line), and its checks:
  // length, then alignment and card memory bounds.
  logic [63:0]  td_words;  // CARD and LEN, the descriptor's first two words
  logic [31:0]  td_card, td_len, tx_check;
  logic tx_fetch;
  assign tx_fetch = tx_state == OK && tx_cons_q != tx_prod_q &&
                    !(wr && {24'd0, addr_i} == NET_TX_LOG2);
  assign td_words = mem_rdata_i[128 * td_addr_q[5:4] +: 64];
  assign td_card  = td_words[32 * (NET_DESC_CARD / 4) +: 32];
  assign td_len   = td_words[32 * (NET_DESC_LEN / 4) +: 32];
  always_comb begin : tx_checks
    if (td_len < FRAME_HDR_BYTES || td_len > FrameMax)
      tx_check = ERR_SIZE;
    else if (td_card[1:0] != 2'd0 || 64'(td_card) > MemBytes ||
             64'(td_len) > MemBytes - 64'(td_card))
      tx_check = ERR_RANGE;
    else
      tx_check = OK;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : transmit
    if (!rst_ni) begin
      tx_q        <= T_IDLE;
      rvalid_o    <= 1'b0;
      tx_base_q   <= 32'd0;
      tx_log2_q   <= 32'd0;
      tx_prod_q   <= 32'd0;
      tx_cons_q   <= 32'd0;
      td_addr_q   <= 32'd0;
      tx_card_q   <= 32'd0;
      tx_len_q    <= 32'd0;
      tx_status_q <= 32'd0;
      tx_nobody_q <= 1'b0;
      tx_sent_q   <= 32'd0;
      tx_made_q   <= 32'd0;
      rd_line_q   <= 32'd0;
      rd_left_q   <= 32'd0;
      rd_pend_q   <= 1'b0;
      rd_keep_q   <= 1'b0;
      txq_data_q  <= '{default: '0};
      txq_bytes_q <= '{default: '0};
      txq_last_q  <= '0;
      txq_head_q  <= 1'b0;
      txq_count_q <= '0;
      prev_q      <= '0;
      crc_q       <= 32'd0;
      tx_frames_o <= 32'd0;
      tx_bytes_total_o <= 64'd0;
      tx_drops_o  <= 32'd0;
    end else begin
      rvalid_o <= req_i;
      if (wr) begin
        unique case ({24'd0, addr_i})
          NET_TX_BASE: tx_base_q <= wdata_i;
          NET_TX_LOG2: begin
            tx_log2_q <= wdata_i;
            tx_prod_q <= 32'd0;
          end
          NET_TX_PROD: tx_prod_q <= wdata_i;
          default: ;
        endcase
      end
      unique case (tx_q)
        // The next descriptor: its line asked for (mem_port), its words here a cycle later.
        T_IDLE: if (tx_fetch) begin
          td_addr_q <= desc_addr(tx_base_q, tx_log2_q[3:0], tx_cons_q);
          tx_q      <= T_CHECK;
        end
        T_CHECK: begin
          tx_card_q   <= td_card;
          tx_len_q    <= td_len;
          tx_nobody_q <= 1'b0;
          if (tx_check != OK) begin
            tx_status_q <= tx_check;
            tx_q        <= T_WB;
          end else begin
            tx_q <= T_PRIME;
          end
        end
        T_PRIME: begin
          tx_sent_q   <= 32'd0;
          tx_made_q   <= 32'd0;
          rd_line_q   <= tx_card_q >> 6;
          rd_left_q   <= tx_beats + (tx_off != 6'd0 ? 32'd1 : 32'd0);
          rd_pend_q   <= 1'b0;
          rd_keep_q   <= tx_off != 6'd0;
          txq_head_q  <= 1'b0;
          txq_count_q <= '0;
          crc_q       <= Crc32Init;
          tx_q        <= T_STREAM;
        end
        // The lines of the frame streamed: a read asked for every cycle there is room, each
        // line's data made into a beat with the line before it (an unaligned frame's first
        // line is only kept), its CRC folded in, into the buffer.
        T_STREAM: begin
          // The next line's top half is beyond the beat.
          /* verilator lint_off UNUSEDSIGNAL */
          logic [1023:0] pair;
          /* verilator lint_on UNUSEDSIGNAL */
          logic [511:0]  beat;
          logic          made;
          made      = rd_pend_q && !rd_keep_q;
          rd_pend_q <= rd_issue;
          if (rd_issue) begin
            rd_line_q <= rd_line_q + 32'd1;
            rd_left_q <= rd_left_q - 32'd1;
          end
          if (rd_pend_q) begin
            prev_q    <= mem_rdata_i;
            rd_keep_q <= 1'b0;
          end
          if (made) begin
            pair = {mem_rdata_i, prev_q} >> (10'd8 * 10'(tx_off));
            beat = tx_off != 6'd0 ? pair[511:0] : mem_rdata_i;
            if (tx_made_q == 32'd0) begin
              beat[32 +: 16]  = port_addr_i;  // the port stamps its own address
              beat[224 +: 32] = 32'd0;        // crc32 is computed with the field zero
            end
            txq_data_q[txq_head_q ^ txq_count_q[0]]  <= beat;
            txq_bytes_q[txq_head_q ^ txq_count_q[0]] <= beat_bytes;
            txq_last_q[txq_head_q ^ txq_count_q[0]]  <= tx_made_q + 32'd1 == tx_beats;
            tx_made_q <= tx_made_q + 32'd1;
            crc_q     <= crc32_beat(crc_q, beat, beat_bytes);
          end
          if (tx_take) begin
            txq_head_q <= !txq_head_q;
            tx_sent_q  <= tx_sent_q + 32'd1;
            if (tx_sent_q + 32'd1 == tx_beats) tx_q <= T_WAIT;
          end
          txq_count_q <= txq_count_q + {1'b0, made} - {1'b0, tx_take};
        end
        T_WAIT: if (tx_done_i) begin
          tx_status_q <= tx_status_i;
          tx_nobody_q <= tx_status_i == OK && tx_nobody_i;
          if (tx_status_i == OK) begin
            tx_frames_o      <= tx_frames_o + 32'd1;
            tx_bytes_total_o <= tx_bytes_total_o + 64'(tx_len_q);
            if (tx_nobody_i) tx_drops_o <= tx_drops_o + 32'd1;
          end
          tx_q <= T_WB;
        end
        // STATUS written back (mem_port); the descriptor is done.
        T_WB: begin
          tx_cons_q <= tx_cons_q + 32'd1;
          tx_q      <= T_IDLE;
        end
        default: tx_q <= T_IDLE;
      endcase
      // A new ring: its indices from 0 (set up while it is idle).
      if (wr && {24'd0, addr_i} == NET_TX_LOG2) tx_cons_q <= 32'd0;
    end
  end

  // The STATUS word of a completed descriptor, in its place in the line.
  logic [31:0] tx_status_word;
  assign tx_status_word = {16'(NET_DESC_F_DONE | (tx_nobody_q ? NET_DESC_F_NOBODY : 32'd0)),
                           tx_status_q[15:0]};

  always_comb begin : mem_port
    mem_req_o   = 1'b0;
    mem_we_o    = 1'b0;
    mem_be_o    = 64'd0;
    mem_line_o  = rd_line_q[LineBits-1:0];
    mem_wdata_o = 512'd0;
    unique case (tx_q)
      T_IDLE: begin
        mem_req_o  = tx_fetch;
        mem_line_o = LineBits'(desc_addr(tx_base_q, tx_log2_q[3:0], tx_cons_q) >> 6);
      end
      T_STREAM: mem_req_o = rd_issue;
      T_WB: begin
        mem_req_o   = 1'b1;
        mem_we_o    = 1'b1;
        mem_line_o  = LineBits'(td_addr_q >> 6);
        mem_be_o    = 64'hf << (td_addr_q[5:0] + 6'(NET_DESC_STATUS));
        mem_wdata_o = 512'(tx_status_word) << (9'd8 * (9'(td_addr_q[5:0]) + 9'(NET_DESC_STATUS)));
      end
      default: ;
    endcase
  end

  // The buffer's head; the CRC is whole once the last beat is in the buffer.
  assign tx_valid_o = tx_q == T_STREAM && txq_count_q != 2'd0;
  assign tx_data_o  = txq_data_q[txq_head_q];
  assign tx_bytes_o = txq_bytes_q[txq_head_q];
  assign tx_last_o  = txq_last_q[txq_head_q];
  assign tx_crc_o   = ~crc_q;

  // ---- receive
  // The buffer in hand (from the descriptor at RX_CONS): ready for a frame; its descriptor's
  // address, card address and bytes. A descriptor's line asked for (its data next cycle).
  // A completion to write back next: its LEN and STATUS words.
  logic        rb_valid_q, rb_fetch_q, wb_q;
  logic [31:0] rb_addr_q, rb_card_q, rb_size_q, wb_len_q, wb_status_q;

  // The frame coming in: busy between its first and last beats; its bytes and lines so far,
  // its CRC, and the header's length and crc32 fields.
  logic        rx_busy_q, wb_frame_q;
  logic [31:0] rx_len_q, rx_crc_q, rx_line_q, rx_hdr_len_q, rx_hdr_crc_q;
  // A buffer half a line in: the last beat's second half, written with the next beat's
  // first half (its bytes to keep), or alone after the frame's last beat (flush_q).
  logic         flush_q;
  logic [255:0] half_q;
  logic [31:0]  half_be_q;

  logic rx_take, rx_fetch, rx_log2_wr;
  assign rx_ready_o = rx_busy_q || rb_valid_q;
  assign rx_take    = rx_valid_i && rx_ready_o;
  assign rx_log2_wr = wr && {24'd0, addr_i} == NET_RX_LOG2;
  assign rx_fetch   = !rb_valid_q && !rb_fetch_q && !wb_q && rx_state == OK &&
                      rx_cons_q != rx_prod_q && !rx_log2_wr;

  // The fetched descriptor's words, and its buffer's checks.
  logic [63:0]  rd_words;  // CARD and LEN
  logic [31:0]  rd_card, rd_size;
  assign rd_words = rmem_rdata_i[128 * rb_addr_q[5:4] +: 64];
  assign rd_card  = rd_words[32 * (NET_DESC_CARD / 4) +: 32];
  assign rd_size  = rd_words[32 * (NET_DESC_LEN / 4) +: 32];

  // This beat's bytes that fit in the buffer (its byte offset in the frame: the bytes so far).
  logic [31:0] beat_at, beat_room;
  logic [6:0]  beat_keep;
  logic [63:0] beat_be;
  logic        half;  // the buffer is half a line in
  assign beat_at   = rx_busy_q ? rx_len_q : 32'd0;
  assign beat_room = beat_at < rb_size_q ? rb_size_q - beat_at : 32'd0;
  assign beat_keep = beat_room < 32'(rx_bytes_i) ? beat_room[6:0] : rx_bytes_i;
  assign beat_be   = beat_keep[6] ? ~64'd0 : (64'd1 << beat_keep[5:0]) - 64'd1;
  assign half      = rb_card_q[5];

  always_ff @(posedge clk_i or negedge rst_ni) begin : receive
    if (!rst_ni) begin
      rx_base_q    <= 32'd0;
      rx_log2_q    <= 32'd0;
      rx_prod_q    <= 32'd0;
      rx_cons_q    <= 32'd0;
      rx_nobuf_q   <= 32'd0;
      rb_valid_q   <= 1'b0;
      rb_fetch_q   <= 1'b0;
      wb_q         <= 1'b0;
      rb_addr_q    <= 32'd0;
      rb_card_q    <= 32'd0;
      rb_size_q    <= 32'd0;
      wb_len_q     <= 32'd0;
      wb_status_q  <= 32'd0;
      rx_busy_q    <= 1'b0;
      wb_frame_q   <= 1'b0;
      rx_len_q     <= 32'd0;
      rx_crc_q     <= 32'd0;
      rx_line_q    <= 32'd0;
      rx_hdr_len_q <= 32'd0;
      rx_hdr_crc_q <= 32'd0;
      flush_q      <= 1'b0;
      half_q       <= 256'd0;
      half_be_q    <= 32'd0;
      rx_event_o   <= 1'b0;
      rx_frames_o  <= 32'd0;
      rx_errors_o  <= 32'd0;
    end else begin
      rx_event_o <= 1'b0;
      if (wr) begin
        unique case ({24'd0, addr_i})
          NET_RX_BASE: rx_base_q <= wdata_i;
          NET_RX_PROD: rx_prod_q <= wdata_i;
          default: ;
        endcase
      end
      // The next buffer: its descriptor read, its buffer checked; one outside card memory,
      // not on a line, or shorter than a header goes back at once.
      rb_fetch_q <= rx_fetch;
      if (rx_fetch) rb_addr_q <= desc_addr(rx_base_q, rx_log2_q[3:0], rx_cons_q);
      if (rb_fetch_q) begin
        rb_card_q <= rd_card;
        rb_size_q <= rd_size;
        if (rd_card[4:0] != 5'd0 || 64'(rd_card) > MemBytes ||
            64'(rd_size) > MemBytes - 64'(rd_card)) begin
          wb_q        <= 1'b1;
          wb_frame_q  <= 1'b0;
          wb_len_q    <= rd_size;
          wb_status_q <= {16'(NET_DESC_F_DONE), 16'(ERR_RANGE)};
        end else if (rd_size < FRAME_HDR_BYTES) begin
          wb_q        <= 1'b1;
          wb_frame_q  <= 1'b0;
          wb_len_q    <= rd_size;
          wb_status_q <= {16'(NET_DESC_F_DONE), 16'(ERR_SIZE)};
        end else begin
          rb_valid_q <= 1'b1;
        end
      end
      // A completion written (rmem_port, after a last half line): the descriptor is the
      // firmware's again. A frame that took the last buffer posted leaves the port taking
      // no frames: counted.
      flush_q <= 1'b0;
      if (wb_q && !flush_q) begin
        wb_q       <= 1'b0;
        rx_cons_q  <= rx_cons_q + 32'd1;
        if (!wb_frame_q || half) rx_event_o <= 1'b1;
        if (wb_frame_q && rx_cons_q + 32'd1 == rx_prod_q) rx_nobuf_q <= rx_nobuf_q + 32'd1;
      end
      if (rx_take) begin
        logic [511:0] beat;
        logic [31:0]  crc, len;
        beat = rx_data_i;
        crc  = rx_busy_q ? rx_crc_q : Crc32Init;
        len  = (rx_busy_q ? rx_len_q : 32'd0) + {25'd0, rx_bytes_i};
        if (!rx_busy_q) beat[224 +: 32] = 32'd0;  // the CRC is computed with crc32 zero
        crc = crc32_beat(crc, beat, rx_bytes_i);
        rx_crc_q  <= crc;
        rx_len_q  <= len;
        rx_line_q <= (rx_busy_q ? rx_line_q : 32'd0) + 32'd1;
        rx_busy_q <= !rx_last_i;
        half_q    <= rx_data_i[256 +: 256];
        half_be_q <= beat_be[63:32];
        if (!rx_busy_q) begin
          rx_hdr_len_q <= rx_data_i[8 * FRAME_OFF_LEN +: 32];
          rx_hdr_crc_q <= rx_data_i[8 * FRAME_OFF_CRC +: 32];
        end
        if (rx_last_i) begin
          logic [31:0] hdr_len, hdr_crc;
          hdr_len = rx_busy_q ? rx_hdr_len_q : rx_data_i[8 * FRAME_OFF_LEN +: 32];
          hdr_crc = rx_busy_q ? rx_hdr_crc_q : rx_data_i[8 * FRAME_OFF_CRC +: 32];
          if (len < FRAME_HDR_BYTES || len > FrameMax || hdr_len != len - FRAME_HDR_BYTES ||
              hdr_crc != ~crc) begin
            rx_errors_o <= rx_errors_o + 32'd1;  // dropped: the buffer takes the next frame
          end else begin
            rx_frames_o <= rx_frames_o + 32'd1;
            // In the completion's cycle (a cycle later after a last half line): the core
            // wakes to it written.
            if (!half) rx_event_o <= 1'b1;
            flush_q     <= half && beat_be[32];
            rb_valid_q  <= 1'b0;
            wb_q        <= 1'b1;
            wb_frame_q  <= 1'b1;
            wb_len_q    <= len;
            wb_status_q <= len > rb_size_q
                           ? {16'(NET_DESC_F_DONE | NET_DESC_F_TRUNC), 16'(ERR_SIZE)}
                           : {16'(NET_DESC_F_DONE), 16'(OK)};
          end
        end
      end
      // A new ring: its indices from 0, the buffer in hand given up (set up while idle).
      if (rx_log2_wr) begin
        rx_log2_q  <= wdata_i;
        rx_prod_q  <= 32'd0;
        rx_cons_q  <= 32'd0;
        rb_valid_q <= 1'b0;
        wb_q       <= 1'b0;
        flush_q    <= 1'b0;
      end
    end
  end

  // Port G: a descriptor's line read, a beat's bytes that fit written at its line of the
  // buffer (half a line in: with the last beat's second half), a last half line, or a
  // completion's LEN and STATUS written back.
  logic [5:0] rb_off;
  assign rb_off = rb_addr_q[5:0];
  always_comb begin : rmem_port
    rmem_req_o   = 1'b0;
    rmem_we_o    = 1'b0;
    rmem_be_o    = 64'd0;
    rmem_line_o  = LineBits'(desc_addr(rx_base_q, rx_log2_q[3:0], rx_cons_q) >> 6);
    rmem_wdata_o = rx_data_i;
    if (rx_take) begin
      rmem_we_o   = 1'b1;
      rmem_line_o = LineBits'((rb_card_q >> 6) + (rx_busy_q ? rx_line_q : 32'd0));
      if (half) begin
        rmem_be_o    = {beat_be[31:0], rx_busy_q ? half_be_q : 32'd0};
        rmem_wdata_o = {rx_data_i[0 +: 256], half_q};
      end else begin
        rmem_be_o = beat_be;
      end
      rmem_req_o = rmem_be_o != 64'd0;
    end else if (flush_q) begin
      rmem_req_o   = 1'b1;
      rmem_we_o    = 1'b1;
      rmem_line_o  = LineBits'((rb_card_q >> 6) + rx_line_q);
      rmem_be_o    = {32'd0, half_be_q};
      rmem_wdata_o = {256'd0, half_q};
    end else if (wb_q) begin
      rmem_req_o   = 1'b1;
      rmem_we_o    = 1'b1;
      rmem_line_o  = LineBits'(rb_addr_q >> 6);
      rmem_be_o    = 64'hff << (rb_off + 6'(NET_DESC_LEN));
      rmem_wdata_o = 512'({wb_status_q, wb_len_q}) << (10'd8 * (10'(rb_off) + 10'(NET_DESC_LEN)));
    end else begin
      rmem_req_o = rx_fetch;
    end
  end

  logic unused_bits;
  assign unused_bits = ^{rd_line_q[31:LineBits], tx_status_q[31:16], rx_line_q[31:LineBits],
                         rb_addr_q[3:0], td_addr_q[3:0]};

endmodule
