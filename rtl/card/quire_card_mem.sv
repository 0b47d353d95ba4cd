// SPDX-License-Identifier: MIT
// Card memory: lines of 64 bytes (one 512-bit engine beat), eleven ports, read
// data one cycle after the request, byte enables on every port.
//   port A, 32-bit: the core's data port;
//   port B, 512-bit: the DMA mover;
//   port C, 512-bit: the QUANT and MLP engines (a line a cycle);
//   port D, 512-bit: the network port's transmit side (descriptors, frames sent);
//   port E, 512-bit, writes only: QUANT's results while it streams (the write
//     channel beside port C's reads, as AXI has);
//   port F, 512-bit: the DMA mover's channel 1 (a transfer each way at once);
//   port G, 512-bit: the network port's receive side (descriptors, frames received);
//   port H, 512-bit: the REDUCE engine, so that it runs beside QUANT;
//   port I, 512-bit, writes only: REDUCE's results while it streams;
//   ports J and K, 512-bit, writes only: the block exponents DMA channels 0 and 1
//     compute on their way in.
// The narrow port addresses 32-bit words and reaches its word of a line. On an
// FPGA card memory is DDR or HBM behind an AXI interconnect that arbitrates
// its masters; here each master has a port of its own, and writes of two
// ports to one byte in the same cycle do not happen (the firmware waits for
// the DMA mover, an engine or the network port's descriptor before it touches
// what they move, the two DMA channels move different buffers, and QUANT and
// REDUCE, running at once, write different buffers): port G's, then D's, K's,
// J's, I's, E's, F's, H's, C's, B's and A's bytes win.
module quire_card_mem #(
  parameter int unsigned Lines = 1024
) (
  input  logic                       clk_i,

  input  logic                       a_req_i,
  input  logic                       a_we_i,
  input  logic [3:0]                 a_be_i,
  input  logic [$clog2(Lines)+3:0]   a_index_i,  // a 32-bit word
  input  logic [31:0]                a_wdata_i,
  output logic [31:0]                a_rdata_o,

  input  logic                       b_req_i,
  input  logic                       b_we_i,
  input  logic [63:0]                b_be_i,
  input  logic [$clog2(Lines)-1:0]   b_line_i,
  input  logic [511:0]               b_wdata_i,
  output logic [511:0]               b_rdata_o,

  input  logic                       c_req_i,
  input  logic                       c_we_i,
  input  logic [63:0]                c_be_i,
  input  logic [$clog2(Lines)-1:0]   c_line_i,
  input  logic [511:0]               c_wdata_i,
  output logic [511:0]               c_rdata_o,

  input  logic                       d_req_i,
  input  logic                       d_we_i,
  input  logic [63:0]                d_be_i,
  input  logic [$clog2(Lines)-1:0]   d_line_i,
  input  logic [511:0]               d_wdata_i,
  output logic [511:0]               d_rdata_o,

  input  logic                       e_req_i,
  input  logic [63:0]                e_be_i,
  input  logic [$clog2(Lines)-1:0]   e_line_i,
  input  logic [511:0]               e_wdata_i,

  input  logic                       f_req_i,
  input  logic                       f_we_i,
  input  logic [63:0]                f_be_i,
  input  logic [$clog2(Lines)-1:0]   f_line_i,
  input  logic [511:0]               f_wdata_i,
  output logic [511:0]               f_rdata_o,

  input  logic                       g_req_i,
  input  logic                       g_we_i,
  input  logic [63:0]                g_be_i,
  input  logic [$clog2(Lines)-1:0]   g_line_i,
  input  logic [511:0]               g_wdata_i,
  output logic [511:0]               g_rdata_o,

  input  logic                       h_req_i,
  input  logic                       h_we_i,
  input  logic [63:0]                h_be_i,
  input  logic [$clog2(Lines)-1:0]   h_line_i,
  input  logic [511:0]               h_wdata_i,
  output logic [511:0]               h_rdata_o,

  input  logic                       i_req_i,
  input  logic [63:0]                i_be_i,
  input  logic [$clog2(Lines)-1:0]   i_line_i,
  input  logic [511:0]               i_wdata_i,

  input  logic                       j_req_i,
  input  logic [63:0]                j_be_i,
  input  logic [$clog2(Lines)-1:0]   j_line_i,
  input  logic [511:0]               j_wdata_i,

  input  logic                       k_req_i,
  input  logic [63:0]                k_be_i,
  input  logic [$clog2(Lines)-1:0]   k_line_i,
  input  logic [511:0]               k_wdata_i
);

  localparam int unsigned LineBits = $clog2(Lines);

  logic [511:0] mem [Lines];

  logic [LineBits-1:0] a_line;
  logic [3:0]          a_word;
  assign a_line = a_index_i[LineBits+3:4];
  assign a_word = a_index_i[3:0];

  always_ff @(posedge clk_i) begin : ports
    if (a_req_i) begin
      if (a_we_i) begin
        for (int unsigned lane = 0; lane < 4; lane++) begin
          if (a_be_i[lane]) mem[a_line][32*a_word + 8*lane +: 8] <= a_wdata_i[8*lane +: 8];
        end
      end else begin
        a_rdata_o <= mem[a_line][32*a_word +: 32];
      end
    end
    if (b_req_i) begin
      if (b_we_i) begin
        for (int unsigned lane = 0; lane < 64; lane++) begin
          if (b_be_i[lane]) mem[b_line_i][8*lane +: 8] <= b_wdata_i[8*lane +: 8];
        end
      end else begin
        b_rdata_o <= mem[b_line_i];
      end
    end
    if (c_req_i) begin
      if (c_we_i) begin
        for (int unsigned lane = 0; lane < 64; lane++) begin
          if (c_be_i[lane]) mem[c_line_i][8*lane +: 8] <= c_wdata_i[8*lane +: 8];
        end
      end else begin
        c_rdata_o <= mem[c_line_i];
      end
    end
    if (h_req_i) begin
      if (h_we_i) begin
        for (int unsigned lane = 0; lane < 64; lane++) begin
          if (h_be_i[lane]) mem[h_line_i][8*lane +: 8] <= h_wdata_i[8*lane +: 8];
        end
      end else begin
        h_rdata_o <= mem[h_line_i];
      end
    end
    if (f_req_i) begin
      if (f_we_i) begin
        for (int unsigned lane = 0; lane < 64; lane++) begin
          if (f_be_i[lane]) mem[f_line_i][8*lane +: 8] <= f_wdata_i[8*lane +: 8];
        end
      end else begin
        f_rdata_o <= mem[f_line_i];
      end
    end
    if (e_req_i) begin
      for (int unsigned lane = 0; lane < 64; lane++) begin
        if (e_be_i[lane]) mem[e_line_i][8*lane +: 8] <= e_wdata_i[8*lane +: 8];
      end
    end
    if (i_req_i) begin
      for (int unsigned lane = 0; lane < 64; lane++) begin
        if (i_be_i[lane]) mem[i_line_i][8*lane +: 8] <= i_wdata_i[8*lane +: 8];
      end
    end
    if (j_req_i) begin
      for (int unsigned lane = 0; lane < 64; lane++) begin
        if (j_be_i[lane]) mem[j_line_i][8*lane +: 8] <= j_wdata_i[8*lane +: 8];
      end
    end
    if (k_req_i) begin
      for (int unsigned lane = 0; lane < 64; lane++) begin
        if (k_be_i[lane]) mem[k_line_i][8*lane +: 8] <= k_wdata_i[8*lane +: 8];
      end
    end
    if (d_req_i) begin
      if (d_we_i) begin
        for (int unsigned lane = 0; lane < 64; lane++) begin
          if (d_be_i[lane]) mem[d_line_i][8*lane +: 8] <= d_wdata_i[8*lane +: 8];
        end
      end else begin
        d_rdata_o <= mem[d_line_i];
      end
    end
    if (g_req_i) begin
      if (g_we_i) begin
        for (int unsigned lane = 0; lane < 64; lane++) begin
          if (g_be_i[lane]) mem[g_line_i][8*lane +: 8] <= g_wdata_i[8*lane +: 8];
        end
      end else begin
        g_rdata_o <= mem[g_line_i];
      end
    end
  end

endmodule
