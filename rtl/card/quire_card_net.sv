// SPDX-License-Identifier: MIT
// The card's network port (QUIRE_NET_* of include/quire/card.h, the frames of
// docs/network.md; its counters are the NETPORT block, docs/registers/netport.md):
//   transmit: GO reads the frame (header and payload, TX_LEN bytes) from card
//     memory at TX_CARD, stamps this port's address as its source, computes
//     the CRC-32 of the header (crc32 field zero) and payload, and streams it
//     out a 64-byte beat a cycle with the CRC beside the last beat (the MAC
//     puts it into the header's crc32 field, as a MAC appends its FCS): a line
//     read is asked for every cycle, its beat made and its CRC folded in the
//     cycle its data comes, and a two-beat buffer in front of the stream keeps
//     the reads going while the MAC takes a beat a cycle; the
//     MAC's answer (sent, peer busy, no such port) becomes TX_STATUS. The
//     firmware's GO write completes only then.
//   receive: frames stream in a beat a cycle into a buffer of Slots frames of
//     at most a header and QUIRE_FRAME_MAX_PAYLOAD bytes (one more byte marks a
//     frame too long); the CRC and length are checked on arrival and failures
//     flagged (QUIRE_NET_RX_F_*). RX_COMM filters by communicator; the first
//     frame in arrival order that the filter passes is the head: RX_FLAGS and
//     RX_HDR show it, POP copies its payload to card memory at RX_DEST (any
//     byte address) and DROP discards it; the POP write completes when the copy
//     is done. A full buffer stops taking frames (rx_ready_o low): the network
//     pushes back on the senders.
// Card memory is reached a line (64 bytes) a cycle through a port of its own.
// The counters of the NETPORT BAR record leave as outputs; link and address
// come from outside (the harness attaches the card to a network).
module quire_card_net
  import quire_card_pkg::*;
  import quire_crc32_pkg::*;
#(
  parameter logic [63:0] MemBytes = 64'h0800_0000,
  parameter int unsigned LineBits = 21,
  parameter int unsigned Slots    = 16
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  // The firmware's register window: read data in the cycle of the request; the answer
  // (rvalid_o) a cycle later, or when a GO or POP is done.
  input  logic                req_i,
  input  logic                we_i,
  input  logic [7:0]          addr_i,
  input  logic [31:0]         wdata_i,
  output logic [31:0]         rdata_o,
  output logic                rvalid_o,

  // Attached to a network, at this address.
  input  logic                link_i,
  input  logic [15:0]         port_addr_i,

  // Card memory, a line a cycle, read data a cycle later.
  output logic                mem_req_o,
  output logic                mem_we_o,
  output logic [63:0]         mem_be_o,
  output logic [LineBits-1:0] mem_line_o,
  output logic [511:0]        mem_wdata_o,
  input  logic [511:0]        mem_rdata_i,

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

  // A frame arrived (a pulse: it wakes the core), and the NETPORT record's counters.
  output logic                rx_event_o,
  output logic [31:0]         tx_frames_o,
  output logic [31:0]         rx_frames_o,
  output logic [31:0]         rx_errors_o,
  output logic [63:0]         tx_bytes_total_o,
  output logic [31:0]         tx_drops_o
);

  localparam int unsigned FrameMax  = FRAME_HDR_BYTES + FRAME_MAX_PAYLOAD;
  localparam int unsigned SlotLines = (FrameMax + 1 + 63) / 64;  // one byte more: "too long"
  localparam int unsigned SlotBits  = $clog2(Slots);
  localparam int unsigned SlotLineBits = $clog2(SlotLines);
  localparam int unsigned SlotAddrBits = $clog2(Slots * SlotLines);

  typedef logic [SlotBits-1:0] slot_t;

  // ---- the receive buffer: frames in slots, their headers, lengths and flags in registers,
  // and the order of arrival (order_q[0] the oldest of count_q). The slots are a block RAM
  // (1 MiB: one write port, the receiver; one read port, POP, data a cycle after the
  // address; no reset), so that a synthesis tool maps them to BRAM or URAM, not registers.
  logic [511:0]  slot_mem [Slots * SlotLines];
  logic [255:0]  hdr_q    [Slots];
  logic [31:0]   len_q    [Slots];
  logic [31:0]   flags_q  [Slots];
  logic [Slots-1:0] used_q;
  slot_t         order_q  [Slots];
  logic [SlotBits:0] count_q;

  logic [31:0] tx_card_q, tx_len_q, tx_status_q, rx_dest_q, rx_status_q, rx_comm_q;

  // Does a frame pass the filter? Failed frames always do: their header is not to be trusted.
  function automatic logic selected(logic [31:0] comm, logic [31:0] flags, logic [15:0] hdr_comm);
    return comm == 32'd0 || flags != 32'd0 || {16'd0, hdr_comm} == comm;
  endfunction

  // The head (the first frame in arrival order the filter passes) and the frames it passes.
  logic              head_found;
  logic [SlotBits:0] head_pos;
  slot_t             head;
  logic [31:0]       pending;
  always_comb begin : find_head
    head_found = 1'b0;
    head_pos   = '0;
    head       = '0;
    pending    = 32'd0;
    for (int unsigned i = 0; i < Slots; i++) begin
      if ((SlotBits+1)'(i) < count_q && selected(rx_comm_q, flags_q[order_q[i]],
                                                   hdr_q[order_q[i]][8 * FRAME_OFF_COMM +: 16])) begin
        pending = pending + 32'd1;
        if (!head_found) begin
          head_found = 1'b1;
          head_pos   = (SlotBits+1)'(i);
          head       = order_q[i];
        end
      end
    end
  end

  // ---- registers: reads now
  logic [7:0] hdr_word;
  assign hdr_word = addr_i - 8'(NET_RX_HDR0);
  always_comb begin : read_regs
    rdata_o = 32'd0;
    if (link_i) unique case ({24'd0, addr_i})
      NET_PORT_ADDR:  rdata_o = {16'd0, port_addr_i};
      NET_PORT_LINK:  rdata_o = 32'd1;
      NET_TX_CARD:    rdata_o = tx_card_q;
      NET_TX_LEN:     rdata_o = tx_len_q;
      NET_TX_STATUS:  rdata_o = tx_status_q;
      NET_RX_PENDING: rdata_o = pending;
      NET_RX_FLAGS:   rdata_o = head_found ? flags_q[head] : 32'd0;
      NET_RX_COMM:    rdata_o = rx_comm_q;
      NET_RX_DEST:    rdata_o = rx_dest_q;
      NET_RX_STATUS:  rdata_o = rx_status_q;
      default: begin
        if ({24'd0, addr_i} >= NET_RX_HDR0 && {24'd0, addr_i} < NET_RX_HDR0 + FRAME_HDR_BYTES &&
            head_found && len_q[head] >= FRAME_HDR_BYTES) begin
          rdata_o = hdr_q[head][8 * hdr_word +: 32];
        end
      end
    endcase
  end

  // Without a network the window reads 0 and ignores writes: the firmware sees no port.
  logic go, pop;
  assign go  = link_i && req_i && we_i && {24'd0, addr_i} == NET_TX_CTRL &&
               (wdata_i & NET_GO) != 0;
  assign pop = link_i && req_i && we_i && {24'd0, addr_i} == NET_RX_CTRL &&
               (wdata_i == NET_RX_POP || wdata_i == NET_RX_DROP);

  // Was the CTRL write a DROP? (Held from the write's cycle: wdata_i is gone by S_POP.)
  logic drop_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin : drop_flag
    if (!rst_ni)  drop_q <= 1'b0;
    else if (pop) drop_q <= wdata_i == NET_RX_DROP;
  end

  // ---- transmit and POP: one operation at a time, the core waiting for its answer
  typedef enum logic [3:0] {
    S_IDLE, S_ANSWER, S_TX_PRIME, S_TX_STREAM, S_TX_WAIT,
    S_POP, S_POP_RD, S_POP_LINE, S_POP_DONE
  } state_e;
  state_e state_q;

  // TX_CARD's byte offset in its line; the frame's beats; the next line to read and the reads
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
  assign tx_take  = state_q == S_TX_STREAM && txq_count_q != 2'd0 && tx_ready_i;
  assign rd_issue = state_q == S_TX_STREAM && rd_left_q != 32'd0 &&
                    {1'b0, txq_count_q} + {2'd0, rd_pend_q} < 3'd2 + {2'd0, tx_take};

  // The checks of GO: length, then alignment and card memory bounds.
  logic [31:0] tx_check;
  always_comb begin : tx_checks
    if (tx_len_q < FRAME_HDR_BYTES || tx_len_q > FrameMax)
      tx_check = ERR_SIZE;
    else if (tx_card_q[1:0] != 2'd0 || 64'(tx_card_q) > MemBytes ||
             64'(tx_len_q) > MemBytes - 64'(tx_card_q))
      tx_check = ERR_RANGE;
    else
      tx_check = OK;
  end

  // POP's copy: the head's payload (slot bytes from FRAME_HDR_BYTES) to card memory at
  // RX_DEST, a line of card memory a cycle.
  slot_t       pop_slot_q;
  logic [31:0] pop_line_q, pop_end_q;    // card memory line, one past the last line
  logic [31:0] pop_len, pop_first_line, pop_last_line;
  assign pop_len        = len_q[head] - FRAME_HDR_BYTES;
  assign pop_first_line = rx_dest_q >> 6;
  assign pop_last_line  = (rx_dest_q + pop_len - 32'd1) >> 6;

  // The slot line whose bytes land on card memory line `line` of a POP: the line holds slot
  // bytes [src - 64, src) from this one and the one before it (bytes before the slot's
  // first line and past its last read 0).
  function automatic logic [31:0] pop_src_line(logic [31:0] line, logic [31:0] dest);
    pop_src_line = (FRAME_HDR_BYTES + (line << 6) - dest + 32'd64) >> 6;
  endfunction

  // The slot memory's read port: S_POP asks for the first source line's predecessor,
  // S_POP_RD for the first source line (keeping the predecessor in prev_q), and each
  // S_POP_LINE for the next one, so that a line of card memory is written a cycle.
  logic [31:0]             slot_rline;
  slot_t                   slot_rslot;
  logic                    slot_rok, slot_rok_q;
  logic [SlotAddrBits-1:0] slot_raddr;
  logic [511:0]            slot_rdata_q, slot_line_now;
  always_comb begin : slot_read_addr
    slot_rslot = pop_slot_q;
    unique case (state_q)
      S_POP: begin
        slot_rslot = head;
        slot_rline = pop_src_line(pop_first_line, rx_dest_q) - 32'd1;
      end
      S_POP_RD: slot_rline = pop_src_line(pop_line_q, rx_dest_q);
      default:  slot_rline = pop_src_line(pop_line_q, rx_dest_q) + 32'd1;
    endcase
    slot_rok   = !slot_rline[31] && slot_rline < SlotLines;
    slot_raddr = slot_rok ? SlotAddrBits'(32'(slot_rslot) * SlotLines + slot_rline) : '0;
  end
  always_ff @(posedge clk_i) begin : slot_read
    slot_rdata_q <= slot_mem[slot_raddr];
    slot_rok_q   <= slot_rok;
  end
  assign slot_line_now = slot_rok_q ? slot_rdata_q : 512'd0;

  // ---- the receiver
  logic              rx_busy_q;
  (* fsm_encoding = "none" *) slot_t rx_slot_q;  // a slot, not a state (synthesis: no FSM)
  logic [31:0]       rx_len_q, rx_crc_q;
  logic [SlotLineBits:0] rx_line_q;
  logic              have_free;
  slot_t             free_slot;
  always_comb begin : find_free
    have_free = 1'b0;
    free_slot = '0;
    for (int i = Slots - 1; i >= 0; i--) begin
      if (!used_q[i]) begin
        have_free = 1'b1;
        free_slot = SlotBits'(i);
      end
    end
  end
  assign rx_ready_o = rx_busy_q || have_free;

  // A POP's or DROP's removal, which the receiver makes a cycle later: the frame's place in
  // the arrival order, and its slot.
  logic              remove;
  (* fsm_encoding = "none" *) logic [SlotBits:0] remove_pos;  // a position, not a state
  slot_t             remove_slot;

  always_ff @(posedge clk_i or negedge rst_ni) begin : port
    if (!rst_ni) begin
      state_q     <= S_IDLE;
      rvalid_o    <= 1'b0;
      tx_card_q   <= 32'd0;
      tx_len_q    <= 32'd0;
      tx_status_q <= 32'd0;
      rx_dest_q   <= 32'd0;
      rx_status_q <= 32'd0;
      rx_comm_q   <= 32'd0;
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
      pop_slot_q  <= '0;
      pop_line_q  <= 32'd0;
      pop_end_q   <= 32'd0;
      tx_frames_o <= 32'd0;
      tx_bytes_total_o <= 64'd0;
      tx_drops_o  <= 32'd0;
      remove      <= 1'b0;
      remove_pos  <= '0;
      remove_slot <= '0;
    end else begin
      rvalid_o <= 1'b0;
      remove   <= 1'b0;
      unique case (state_q)
        S_IDLE: if (req_i) begin
          if (we_i && link_i) begin
            unique case ({24'd0, addr_i})
              NET_TX_CARD: tx_card_q <= wdata_i;
              NET_TX_LEN:  tx_len_q  <= wdata_i;
              NET_RX_DEST: rx_dest_q <= wdata_i;
              NET_RX_COMM: rx_comm_q <= wdata_i & 32'h0000_ffff;
              default: ;
            endcase
          end
          if (go) begin
            state_q <= S_TX_PRIME;
          end else if (pop) begin
            state_q <= S_POP;
          end else begin
            rvalid_o <= 1'b1;
          end
        end
        // GO: the checks, then the lines of the frame streamed: a read asked for every cycle
        // there is room, each line's data made into a beat with the line before it (an
        // unaligned frame's first line is only kept), its CRC folded in, into the buffer.
        S_TX_PRIME: begin
          tx_sent_q   <= 32'd0;
          tx_made_q   <= 32'd0;
          rd_line_q   <= tx_card_q >> 6;
          rd_left_q   <= tx_beats + (tx_off != 6'd0 ? 32'd1 : 32'd0);
          rd_pend_q   <= 1'b0;
          rd_keep_q   <= tx_off != 6'd0;
          txq_head_q  <= 1'b0;
          txq_count_q <= '0;
          crc_q       <= Crc32Init;
          if (tx_check != OK) begin
            tx_status_q <= tx_check;
            state_q     <= S_ANSWER;
          end else begin
            state_q <= S_TX_STREAM;
          end
        end
        S_TX_STREAM: begin
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
            if (tx_sent_q + 32'd1 == tx_beats) state_q <= S_TX_WAIT;
          end
          txq_count_q <= txq_count_q + {1'b0, made} - {1'b0, tx_take};
        end
        S_TX_WAIT: if (tx_done_i) begin
          tx_status_q <= tx_status_i;
          if (tx_status_i == OK) begin
            tx_frames_o      <= tx_frames_o + 32'd1;
            tx_bytes_total_o <= tx_bytes_total_o + 64'(tx_len_q);
            if (tx_nobody_i) tx_drops_o <= tx_drops_o + 32'd1;
          end
          state_q <= S_ANSWER;
        end
        // POP / DROP of the head.
        S_POP: begin
          pop_slot_q <= head;
          pop_line_q <= pop_first_line;
          pop_end_q  <= pop_last_line + 32'd1;
          if (!head_found) begin
            rx_status_q <= ERR_INVALID;
            state_q     <= S_ANSWER;
          end else if (drop_q) begin
            rx_status_q <= OK;
            remove      <= 1'b1;
            remove_pos  <= head_pos;
            remove_slot <= head;
            state_q     <= S_POP_DONE;
          end else if (flags_q[head] != 32'd0) begin
            rx_status_q <= ERR_CORRUPT;  // nothing of a bad frame reaches card memory
            remove      <= 1'b1;
            remove_pos  <= head_pos;
            remove_slot <= head;
            state_q     <= S_POP_DONE;
          end else if (64'(rx_dest_q) > MemBytes || 64'(pop_len) > MemBytes - 64'(rx_dest_q)) begin
            rx_status_q <= ERR_RANGE;    // the frame stays for another try
            state_q     <= S_ANSWER;
          end else if (pop_len == 32'd0) begin
            rx_status_q <= OK;
            remove      <= 1'b1;
            remove_pos  <= head_pos;
            remove_slot <= head;
            state_q     <= S_POP_DONE;
          end else begin
            rx_status_q <= OK;
            state_q     <= S_POP_RD;
          end
        end
        // The copy's source lines come a cycle after their address; prev_q (idle outside a
        // GO) keeps the one before.
        S_POP_RD: begin
          prev_q  <= slot_line_now;
          state_q <= S_POP_LINE;
        end
        S_POP_LINE: begin
          prev_q     <= slot_line_now;
          pop_line_q <= pop_line_q + 32'd1;
          if (pop_line_q + 32'd1 == pop_end_q) begin
            remove      <= 1'b1;
            remove_pos  <= head_pos;
            remove_slot <= pop_slot_q;
            state_q     <= S_POP_DONE;
          end
        end
        S_POP_DONE: state_q <= S_ANSWER;  // the removal takes effect
        S_ANSWER: begin
          rvalid_o <= 1'b1;
          state_q  <= S_IDLE;
        end
        default: state_q <= S_IDLE;
      endcase
    end
  end


  // ---- card memory: TX reads lines, POP writes them
  logic [5:0]    pop_shift;     // the byte of slot line pop_src_line - 1 on byte 0 of the line
  logic [31:0]   pop_lo, pop_hi; // the line's bytes [lo, hi) that are payload
  logic [1023:0] pop_pair;
  logic [63:0]   pop_be;
  assign pop_shift = 6'(FRAME_HDR_BYTES - rx_dest_q);  // the same for every line
  assign pop_lo  = pop_line_q == pop_first_line ? {26'd0, rx_dest_q[5:0]} : 32'd0;
  assign pop_hi  = pop_line_q == pop_last_line ? (rx_dest_q + pop_len - (pop_line_q << 6))
                                               : 32'd64;
  always_comb begin : pop_data
    pop_pair = {slot_line_now, prev_q} >> (10'd8 * 10'(pop_shift));
    pop_be   = ((64'd1 << pop_hi[6:0]) - 64'd1) & ~((64'd1 << pop_lo[5:0]) - 64'd1);
    if (pop_hi == 32'd64) pop_be = ~((64'd1 << pop_lo[5:0]) - 64'd1);
  end

  always_comb begin : mem_port
    mem_req_o   = 1'b0;
    mem_we_o    = 1'b0;
    mem_be_o    = 64'd0;
    mem_line_o  = rd_line_q[LineBits-1:0];
    mem_wdata_o = pop_pair[511:0];
    unique case (state_q)
      S_TX_STREAM: mem_req_o = rd_issue;
      S_POP_LINE: begin
        mem_req_o  = 1'b1;
        mem_we_o   = 1'b1;
        mem_be_o   = pop_be;
        mem_line_o = pop_line_q[LineBits-1:0];
      end
      default: ;
    endcase
  end

  // The buffer's head; the CRC is whole once the last beat is in the buffer.
  assign tx_valid_o = state_q == S_TX_STREAM && txq_count_q != 2'd0;
  assign tx_data_o  = txq_data_q[txq_head_q];
  assign tx_bytes_o = txq_bytes_q[txq_head_q];
  assign tx_last_o  = txq_last_q[txq_head_q];
  assign tx_crc_o   = ~crc_q;

  // ---- the receiver: a frame into a free slot, its CRC and length checked on the last beat;
  // the arrival order, with the head removed after a POP or DROP. The beat's slot and line:
  logic                  rx_take;
  slot_t                 rx_s;
  logic [SlotLineBits:0] rx_line;
  assign rx_take = rx_valid_i && rx_ready_o;
  assign rx_s    = rx_busy_q ? rx_slot_q : free_slot;
  assign rx_line = rx_busy_q ? rx_line_q : '0;

  // The slot memory's write port (its own process: a block RAM has no reset).
  always_ff @(posedge clk_i) begin : slot_write
    if (rx_take && 32'(rx_line) < SlotLines) begin
      slot_mem[SlotAddrBits'(32'(rx_s) * SlotLines + 32'(rx_line))] <= rx_data_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : receive
    if (!rst_ni) begin
      rx_busy_q   <= 1'b0;
      rx_slot_q   <= '0;
      rx_len_q    <= 32'd0;
      rx_crc_q    <= 32'd0;
      rx_line_q   <= '0;
      used_q      <= '0;
      count_q     <= '0;
      rx_event_o  <= 1'b0;
      rx_frames_o <= 32'd0;
      rx_errors_o <= 32'd0;
      for (int unsigned i = 0; i < Slots; i++) begin
        hdr_q[i]   <= '0;
        len_q[i]   <= 32'd0;
        flags_q[i] <= 32'd0;
        order_q[i] <= '0;
      end
    end else begin
      logic [SlotBits:0] count;
      count = count_q;
      rx_event_o <= 1'b0;
      if (remove) begin
        for (int unsigned i = 0; i + 1 < Slots; i++) begin
          if ((SlotBits+1)'(i) >= remove_pos) order_q[i] <= order_q[i + 1];
        end
        used_q[remove_slot] <= 1'b0;
        count = count - 1'b1;
      end
      if (rx_take) begin
        logic [511:0] beat;
        logic [31:0]  crc, len;
        slot_t        s;
        s    = rx_s;
        beat = rx_data_i;
        crc  = rx_busy_q ? rx_crc_q : Crc32Init;
        len  = (rx_busy_q ? rx_len_q : 32'd0) + {25'd0, rx_bytes_i};
        if (!rx_busy_q) begin
          // the header as it came (bytes past the frame's end 0), then the CRC with crc32 zero
          hdr_q[s] <= beat[255:0] & ((rx_bytes_i >= 7'd32) ? {256{1'b1}}
                                     : ((256'd1 << (9'd8 * 9'(rx_bytes_i))) - 256'd1));
          beat[224 +: 32] = 32'd0;
          used_q[s] <= 1'b1;
        end
        crc = crc32_beat(crc, beat, rx_bytes_i);
        rx_slot_q <= s;
        rx_crc_q  <= crc;
        rx_len_q  <= len;
        rx_line_q <= rx_line + 1'b1;
        rx_busy_q <= !rx_last_i;
        if (rx_last_i) begin
          logic [31:0] flags, hdr_len, hdr_crc;
          hdr_len = rx_busy_q ? hdr_q[s][8 * FRAME_OFF_LEN +: 32] : beat[8 * FRAME_OFF_LEN +: 32];
          hdr_crc = rx_busy_q ? hdr_q[s][8 * FRAME_OFF_CRC +: 32] : rx_data_i[8 * FRAME_OFF_CRC +: 32];
          if (len < FRAME_HDR_BYTES || len > FrameMax || hdr_len != len - FRAME_HDR_BYTES)
            flags = NET_RX_F_BAD_LEN;
          else if (hdr_crc != ~crc)
            flags = NET_RX_F_BAD_CRC;
          else
            flags = 32'd0;
          flags_q[s] <= flags;
          len_q[s]   <= len;
          order_q[count[SlotBits-1:0]] <= s;
          count = count + 1'b1;
          if (flags != 32'd0) rx_errors_o <= rx_errors_o + 32'd1;
          else                rx_frames_o <= rx_frames_o + 32'd1;
          rx_event_o <= 1'b1;
        end
      end
      count_q <= count;
    end
  end

  logic unused_bits;
  assign unused_bits = ^{hdr_word[1:0], rd_line_q[31:LineBits], pop_line_q[31:LineBits], pop_lo[31:6],
                         pop_hi[31:7], pop_pair[1023:512]};

endmodule
