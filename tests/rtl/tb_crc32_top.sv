// SPDX-License-Identifier: MIT
// quire_crc32_pkg's crc32_beat alone, as a module with ports, for tests/rtl/tb_crc32.cpp: the
// running value, a 64-byte beat and its byte count in, the next running value out.
module tb_crc32_top
  import quire_crc32_pkg::*;
(
  input  logic [31:0]  crc_i,
  input  logic [511:0] data_i,
  input  logic [6:0]   bytes_i,
  output logic [31:0]  crc_o
);

  assign crc_o = crc32_beat(crc_i, data_i, bytes_i);

endmodule
