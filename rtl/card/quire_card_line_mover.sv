// SPDX-License-Identifier: MIT
// An engine's mover over the line-wide port of card memory (64-byte lines,
// read data a cycle after the request): a read of 64 bytes at any byte
// address takes its line and, when the address is not line-aligned, the next
// one; a write of 1 to 64 bytes at any byte address writes its line and,
// when it crosses, the next, with byte enables. The controller holds rd_i or
// wr_i (and the address, data and byte count) until done_o, which is given
// in the cycle the last line moves: a read's data is in rd_data_o from the
// next cycle on. Three cycles for an aligned read, four otherwise; one for a
// write within a line, two across. The engine controllers of the card
// (quire_card_quant, quire_card_reduce, quire_card_mlp) each have one.
module quire_card_line_mover #(
  parameter int unsigned LineBits = 21
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                rd_i,
  input  logic [31:0]         rd_addr_i,
  input  logic                wr_i,
  input  logic [31:0]         wr_addr_i,
  input  logic [511:0]        wr_data_i,
  input  logic [6:0]          wr_bytes_i,   // 1..64
  output logic                done_o,
  output logic [511:0]        rd_data_o,

  output logic                mem_req_o,
  output logic                mem_we_o,
  output logic [63:0]         mem_be_o,
  output logic [LineBits-1:0] mem_line_o,
  output logic [511:0]        mem_wdata_o,
  input  logic [511:0]        mem_rdata_i
);

  typedef enum logic [1:0] { M_IDLE, M_RD1, M_RD2, M_WR1 } state_e;
  state_e       state_q;
  logic [511:0] lo_q;

  logic [5:0]    rd_off, wr_off;
  logic [1023:0] rd_pair, wr_pair;
  logic [127:0]  wr_mask;
  assign rd_off  = rd_addr_i[5:0];
  assign wr_off  = wr_addr_i[5:0];
  assign rd_pair = {mem_rdata_i, lo_q} >> (10'd8 * 10'(rd_off));
  assign wr_pair = {512'd0, wr_data_i} << (10'd8 * 10'(wr_off));
  assign wr_mask = ((128'd1 << wr_bytes_i) - 128'd1) << wr_off;

  always_comb begin : mem_port
    mem_req_o   = 1'b0;
    mem_we_o    = 1'b0;
    mem_be_o    = 64'd0;
    mem_line_o  = rd_addr_i[LineBits+5:6];
    mem_wdata_o = wr_pair[511:0];
    done_o      = 1'b0;
    unique case (state_q)
      M_IDLE: begin
        if (rd_i) begin
          mem_req_o = 1'b1;
        end else if (wr_i) begin
          mem_req_o  = 1'b1;
          mem_we_o   = 1'b1;
          mem_be_o   = wr_mask[63:0];
          mem_line_o = wr_addr_i[LineBits+5:6];
          done_o     = wr_mask[127:64] == 64'd0;
        end
      end
      M_RD1: begin
        mem_req_o  = rd_off != 6'd0;
        mem_line_o = rd_addr_i[LineBits+5:6] + 1'b1;
        done_o     = rd_off == 6'd0;
      end
      M_RD2: done_o = 1'b1;
      M_WR1: begin
        mem_req_o   = 1'b1;
        mem_we_o    = 1'b1;
        mem_be_o    = wr_mask[127:64];
        mem_line_o  = wr_addr_i[LineBits+5:6] + 1'b1;
        mem_wdata_o = wr_pair[1023:512];
        done_o      = 1'b1;
      end
      default: ;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : moves
    if (!rst_ni) begin
      state_q   <= M_IDLE;
      lo_q      <= '0;
      rd_data_o <= '0;
    end else begin
      unique case (state_q)
        M_IDLE: begin
          if (rd_i)                               state_q <= M_RD1;
          else if (wr_i && wr_mask[127:64] != 0)  state_q <= M_WR1;
        end
        M_RD1: begin
          lo_q <= mem_rdata_i;
          if (rd_off == 6'd0) begin
            rd_data_o <= mem_rdata_i;
            state_q   <= M_IDLE;
          end else begin
            state_q <= M_RD2;
          end
        end
        M_RD2: begin
          rd_data_o <= rd_pair[511:0];
          state_q   <= M_IDLE;
        end
        default: state_q <= M_IDLE;
      endcase
    end
  end

  logic unused_bits;
  assign unused_bits = ^{rd_pair[1023:512], rd_addr_i[31:LineBits+6], wr_addr_i[31:LineBits+6]};

endmodule
