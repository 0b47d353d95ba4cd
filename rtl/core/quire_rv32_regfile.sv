// SPDX-License-Identifier: MIT
// The 31 general registers of the rv32im core (x0 reads zero): two
// asynchronous read ports, one write port. Asynchronous reads keep the
// core's state machine simple; on an FPGA they map to distributed RAM.
module quire_rv32_regfile (
  input  logic        clk_i,
  input  logic [4:0]  rs1_i,
  input  logic [4:0]  rs2_i,
  output logic [31:0] rs1_value_o,
  output logic [31:0] rs2_value_o,
  input  logic        write_i,
  input  logic [4:0]  rd_i,
  input  logic [31:0] rd_value_i
);

  logic [31:0] registers [1:31];

  always_ff @(posedge clk_i) begin : write_port
    if (write_i && rd_i != 5'd0) registers[rd_i] <= rd_value_i;
  end

  assign rs1_value_o = (rs1_i == 5'd0) ? 32'd0 : registers[rs1_i];
  assign rs2_value_o = (rs2_i == 5'd0) ? 32'd0 : registers[rs2_i];

endmodule
