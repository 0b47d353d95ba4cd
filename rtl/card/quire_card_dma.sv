// SPDX-License-Identifier: MIT
// The DMA mover: host memory <-> card memory (docs/registers/dma.md, registers
// QUIRE_DMA_* of include/quire/card.h). A START runs the page's checks in its order:
// the transfer's epoch against the queue epoch (QUIRE_ERR_PEER), the host
// window and card memory bounds in 64-bit arithmetic (QUIRE_ERR_RANGE), the
// direction (QUIRE_ERR_INVALID). A refused transfer is DONE at once and moves
// nothing; an accepted one reads CTRL 0 until the last byte is written.
//
// Host memory is reached through a request/response port: one request at a
// time (a word address, byte enables, write data), answered by rvalid (with
// read data for a read) in a later cycle; whoever holds host memory (the
// harness under Verilator, later a PCIe bridge) decides the latency. A transfer
// moves a word per step where both cursors are word aligned and 4 bytes are
// left, a byte otherwise. The next step's host read (to the card) or card
// read (to the host) is asked for in the cycle the last step's host answer
// comes, so that with host memory answering in the next cycle a step takes 1
// cycle to the card and 2 to the host (the first 2 and 3).
// The queue engine (quire_card_queue) shares the port: a START while it holds
// the port (hold_i) waits until it is done, CTRL reading 0 meanwhile, and busy_o
// keeps the engine from starting while the mover has the port or is told to.
module quire_card_dma
  import quire_card_pkg::*;
#(
  parameter logic [63:0] MemBytes = 64'h0800_0000
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // Registers (the core's data port).
  input  logic        req_i,
  input  logic        we_i,
  input  logic [4:0]  addr_i,
  input  logic [31:0] wdata_i,
  output logic [31:0] rdata_o,

  input  logic [31:0] queue_epoch_i,
  input  logic [63:0] host_win_base_i,
  input  logic [63:0] host_win_size_i,   // 0: no host attached
  input  logic        hold_i,            // the queue engine has the host port
  output logic        busy_o,            // the mover has it, or has been told to start

  // Card memory: a byte offset, read data in the next cycle.
  output logic        mem_req_o,
  output logic        mem_we_o,
  output logic [3:0]  mem_be_o,
  output logic [31:0] mem_addr_o,
  output logic [31:0] mem_wdata_o,
  input  logic [31:0] mem_rdata_i,

  // Host memory.
  output logic        host_req_o,
  output logic        host_we_o,
  output logic [3:0]  host_be_o,
  output logic [63:0] host_addr_o,
  output logic [31:0] host_wdata_o,
  input  logic        host_rvalid_i,
  input  logic [31:0] host_rdata_i
);

  typedef enum logic [2:0] {
    IDLE,
    HOST_READ,        // to card: ask host memory for the next word
    HOST_READ_WAIT,   // to card: its answer, written to card memory as it comes
    CARD_READ,        // to host: read card memory
    CARD_READ_WAIT,   // to host: its word, sent as a host write
    HOST_WRITE_WAIT   // to host: the write's acknowledgement
  } state_e;

  localparam int unsigned Regs = 8;
  localparam logic [2:0] RegHostLo = 3'(DMA_HOST_LO >> 2);
  localparam logic [2:0] RegHostHi = 3'(DMA_HOST_HI >> 2);
  localparam logic [2:0] RegCard   = 3'(DMA_CARD >> 2);
  localparam logic [2:0] RegLen    = 3'(DMA_LEN >> 2);
  localparam logic [2:0] RegDir    = 3'(DMA_DIR >> 2);
  localparam logic [2:0] RegCtrl   = 3'(DMA_CTRL >> 2);
  localparam logic [2:0] RegStatus = 3'(DMA_STATUS >> 2);
  localparam logic [2:0] RegEpoch  = 3'(DMA_EPOCH >> 2);

  logic [Regs-1:0][31:0] regs_q;
  state_e      state_q;
  logic [63:0] host_cur_q;
  logic [31:0] card_cur_q, left_q;
  logic        start_pending_q;  // a START that waits for the queue engine

  // ---- the checks of a START, from the registers as they are (docs/registers/dma.md)
  logic [63:0] host, len, card, window_offset;
  assign host          = {regs_q[RegHostHi], regs_q[RegHostLo]};
  assign len           = {32'd0, regs_q[RegLen]};
  assign card          = {32'd0, regs_q[RegCard]};
  assign window_offset = host - host_win_base_i;

  logic card_ok, host_ok;
  assign card_ok = card <= MemBytes && len <= MemBytes - card;
  assign host_ok = host_win_size_i != 64'd0 && host >= host_win_base_i &&
                   window_offset <= host_win_size_i && len <= host_win_size_i - window_offset;

  logic [31:0] start_status;
  always_comb begin : checks
    if (regs_q[RegEpoch] != queue_epoch_i) begin
      start_status = ERR_PEER;  // the host of its command has gone or reset the queues
    end else if (!host_ok || !card_ok) begin
      start_status = ERR_RANGE;
    end else if (regs_q[RegDir] != DMA_TO_CARD && regs_q[RegDir] != DMA_TO_HOST) begin
      start_status = ERR_INVALID;
    end else begin
      start_status = OK;
    end
  end

  // ---- one step: a word where both cursors are aligned and 4 bytes are left, else a byte
  logic        word_step;
  logic [31:0] step_bytes;
  assign word_step  = host_cur_q[1:0] == 2'd0 && card_cur_q[1:0] == 2'd0 && left_q >= 32'd4;
  assign step_bytes = word_step ? 32'd4 : 32'd1;

  logic [7:0] host_byte, card_byte;
  assign host_byte = host_rdata_i[8*host_cur_q[1:0] +: 8];
  assign card_byte = mem_rdata_i[8*card_cur_q[1:0] +: 8];

  logic start_write, start, step_done;
  assign start_write = req_i && we_i && addr_i[4:2] == RegCtrl &&
                       (wdata_i & DMA_START) != 32'd0 && state_q == IDLE;
  assign start       = (start_write || start_pending_q) && !hold_i;
  assign busy_o      = state_q != IDLE || start_pending_q || start_write;
  assign step_done = (state_q == HOST_READ_WAIT || state_q == HOST_WRITE_WAIT) && host_rvalid_i;

  // The cursors after this step, and whether another step follows it.
  logic [63:0] host_next;
  logic [31:0] card_next;
  logic        more;
  assign host_next = host_cur_q + {32'd0, step_bytes};
  assign card_next = card_cur_q + step_bytes;
  assign more      = left_q != step_bytes;

  always_comb begin : ports
    mem_req_o    = 1'b0;
    mem_we_o     = 1'b0;
    mem_be_o     = 4'h0;
    mem_addr_o   = {card_cur_q[31:2], 2'b00};
    mem_wdata_o  = word_step ? host_rdata_i : {4{host_byte}};
    host_req_o   = 1'b0;
    host_we_o    = 1'b0;
    host_be_o    = 4'hf;
    host_addr_o  = {host_cur_q[63:2], 2'b00};
    host_wdata_o = word_step ? mem_rdata_i : {4{card_byte}};
    unique case (state_q)
      HOST_READ: host_req_o = 1'b1;
      HOST_READ_WAIT: begin
        mem_req_o = host_rvalid_i;
        mem_we_o  = 1'b1;
        mem_be_o  = word_step ? 4'hf : 4'b0001 << card_cur_q[1:0];
        // The next word asked for as this one comes.
        host_req_o  = host_rvalid_i && more;
        host_addr_o = {host_next[63:2], 2'b00};
      end
      CARD_READ: mem_req_o = 1'b1;
      CARD_READ_WAIT: begin
        host_req_o = 1'b1;
        host_we_o  = 1'b1;
        host_be_o  = word_step ? 4'hf : 4'b0001 << host_cur_q[1:0];
      end
      // The next card word read while the write is acknowledged: the read of the cycle of
      // the answer is the one CARD_READ_WAIT uses.
      HOST_WRITE_WAIT: begin
        mem_req_o  = more;
        mem_addr_o = {card_next[31:2], 2'b00};
      end
      default: ;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : mover
    if (!rst_ni) begin
      regs_q     <= '0;
      state_q    <= IDLE;
      host_cur_q <= 64'd0;
      card_cur_q <= 32'd0;
      left_q     <= 32'd0;
      start_pending_q <= 1'b0;
    end else begin
      if (start_write && hold_i) begin
        start_pending_q <= 1'b1;
        regs_q[RegCtrl] <= 32'd0;
      end
      if (start) start_pending_q <= 1'b0;
      if (req_i && we_i && addr_i[4:2] != RegCtrl && addr_i[4:2] != RegStatus) begin
        regs_q[addr_i[4:2]] <= wdata_i;
      end
      if (start) begin
        if (start_status != OK || regs_q[RegLen] == 32'd0) begin
          regs_q[RegStatus] <= start_status;
          regs_q[RegCtrl]   <= DMA_DONE;
        end else begin
          regs_q[RegCtrl] <= 32'd0;
          host_cur_q      <= host;
          card_cur_q      <= regs_q[RegCard];
          left_q          <= regs_q[RegLen];
          state_q         <= regs_q[RegDir] == DMA_TO_CARD ? HOST_READ : CARD_READ;
        end
      end
      unique case (state_q)
        HOST_READ:      state_q <= HOST_READ_WAIT;
        CARD_READ:      state_q <= CARD_READ_WAIT;
        CARD_READ_WAIT: state_q <= HOST_WRITE_WAIT;
        default: ;
      endcase
      if (step_done) begin
        host_cur_q <= host_next;
        card_cur_q <= card_next;
        left_q     <= left_q - step_bytes;
        if (!more) begin
          state_q           <= IDLE;
          regs_q[RegStatus] <= OK;
          regs_q[RegCtrl]   <= DMA_DONE;
        end else begin
          state_q <= state_q == HOST_READ_WAIT ? HOST_READ_WAIT : CARD_READ_WAIT;
        end
      end
    end
  end

  assign rdata_o = regs_q[addr_i[4:2]];

  logic unused_bits;
  assign unused_bits = ^{addr_i[1:0]};

endmodule
