// SPDX-License-Identifier: MIT
// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320: zlib's crc32 and
// hls/crc32.c) over a 64-byte beat of a frame, as a MAC computes it at line
// rate: the running value (initially 0xffff_ffff) updated by the first
// `bytes` bytes of the beat, byte 0 first; the CRC is its complement at the
// end. A function, so the network port evaluates it only in the cycles that
// carry a beat.
package quire_crc32_pkg;

  localparam logic [31:0] Crc32Poly = 32'hedb8_8320;
  localparam logic [31:0] Crc32Init = 32'hffff_ffff;

  function automatic logic [31:0] crc32_beat(logic [31:0] crc, logic [511:0] data,
                                             logic [6:0] bytes);
    logic [31:0] c;
    c = crc;
    for (int unsigned i = 0; i < 64; i++) begin
      if (7'(i) < bytes) begin
        c = c ^ {24'd0, data[8*i +: 8]};
        for (int unsigned b = 0; b < 8; b++) c = (c >> 1) ^ (c[0] ? Crc32Poly : 32'd0);
      end
    end
    crc32_beat = c;
  endfunction

endpackage
