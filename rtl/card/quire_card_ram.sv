// SPDX-License-Identifier: MIT
// A word-wide RAM with two read/write ports and byte enables, read data one
// cycle after the request: the card's IMEM, DMEM and card memory are each one.
// Two full ports, so that a second master (the ELF loader, the fetch port, the
// DMA mover) never waits for the core's data port. Writes of both ports to one
// word in the same cycle: port B's bytes win (callers never do it).
module quire_card_ram #(
  parameter int unsigned Words = 1024
) (
  input  logic                     clk_i,

  input  logic                     a_req_i,
  input  logic                     a_we_i,
  input  logic [3:0]               a_be_i,
  input  logic [$clog2(Words)-1:0] a_index_i,
  input  logic [31:0]              a_wdata_i,
  output logic [31:0]              a_rdata_o,

  input  logic                     b_req_i,
  input  logic                     b_we_i,
  input  logic [3:0]               b_be_i,
  input  logic [$clog2(Words)-1:0] b_index_i,
  input  logic [31:0]              b_wdata_i,
  output logic [31:0]              b_rdata_o
);

  logic [31:0] mem [Words];

  always_ff @(posedge clk_i) begin : ports
    if (a_req_i) begin
      if (a_we_i) begin
        for (int unsigned lane = 0; lane < 4; lane++) begin
          if (a_be_i[lane]) mem[a_index_i][8*lane +: 8] <= a_wdata_i[8*lane +: 8];
        end
      end else begin
        a_rdata_o <= mem[a_index_i];
      end
    end
    if (b_req_i) begin
      if (b_we_i) begin
        for (int unsigned lane = 0; lane < 4; lane++) begin
          if (b_be_i[lane]) mem[b_index_i][8*lane +: 8] <= b_wdata_i[8*lane +: 8];
        end
      end else begin
        b_rdata_o <= mem[b_index_i];
      end
    end
  end

endmodule
