// SPDX-License-Identifier: MIT
// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320: zlib's crc32 and
// hls/crc32.c) over a 64-byte beat of a frame, as a MAC computes it at line
// rate: the running value (initially 0xffff_ffff) updated by the first
// `bytes` bytes of the beat, byte 0 first, each byte's bit 0 first; the CRC
// is its complement at the end. A function, so the network port evaluates it
// only in the cycles that carry a beat.
//
// Built for hardware, not as 64 byte steps one after the other (a 64-deep
// chain of XORs and muxes): the CRC is linear over GF(2), so each bit of the
// next running value is the XOR of a constant set of the beat's 512 bits and
// the running value's 32. That set is Crc32BeatRows, a constant function of
// the polynomial evaluated at elaboration (bit j of row i: bit i of the
// running value after a beat whose bit j alone is 1, from 0).
//
// A partial beat (the last of a frame, 1 to 63 bytes) goes through the same
// matrix, shifted in: its n bytes are moved to the end of the beat (64 - n
// zero bytes before them, which leave a running value of 0 at 0), and the
// running value is XORed into the 4 bytes from 64 - n on, where a byte step
// would XOR it into the first 4 bytes taken; with n < 4, its bytes that reach
// past the beat are the part not yet shifted out, XORed into the result. So a
// beat of any length is two shifters (the data by 64 - n bytes, the running
// value by n) before one XOR tree of depth log6(~290) LUTs: one matrix, not
// one per byte count (64 of them, about 64 times the XOR trees and a 64-way
// select behind them). tests/rtl/tb_crc32.cpp checks it against hls/crc32.c.
package quire_crc32_pkg;

  localparam logic [31:0] Crc32Poly = 32'hedb8_8320;
  localparam logic [31:0] Crc32Init = 32'hffff_ffff;

  // Row i (bits 512*i +: 512) selects the beat bits bit i of the next running
  // value depends on, from a running value of 0. Column j is the running value
  // after bit j alone is 1 and the 511 - j bits after it 0: the last bit alone
  // leaves the polynomial, and each earlier bit one more bit step of it. Built
  // a row at a time (the columns walked again for each), so that an evaluator
  // copying the whole value at each assignment copies 512 bits, not 16,384.
  function automatic logic [32*512-1:0] crc32_beat_rows();
    logic [31:0]        col;
    logic [511:0]       row;
    logic [32*512-1:0]  rows;  // every row written below
    for (int unsigned i = 0; i < 32; i++) begin
      col = Crc32Poly;
      for (int j = 511; j >= 0; j--) begin
        row[j] = col[i];
        col    = (col >> 1) ^ (col[0] ? Crc32Poly : 32'd0);
      end
      rows[512*i +: 512] = row;
    end
    crc32_beat_rows = rows;
  endfunction

  localparam logic [32*512-1:0] Crc32BeatRows = crc32_beat_rows();

  // `bytes` above 64 counts as 64, and 0 leaves crc as it is.
  function automatic logic [31:0] crc32_beat(logic [31:0] crc, logic [511:0] data,
                                             logic [6:0] bytes);
    logic [6:0]   n;
    logic [511:0] in;      // the beat's first n bytes, moved to its end
    logic [543:0] state;   // crc at bytes 64 - n to 67 - n of a 68-byte field
    n     = bytes[6] ? 7'd64 : bytes;
    in    = data << {7'd64 - n, 3'b000};
    state = {crc, 512'd0} >> {n, 3'b000};
    in    = in ^ state[511:0];
    for (int unsigned i = 0; i < 32; i++)
      crc32_beat[i] = (^(in & Crc32BeatRows[512*i +: 512])) ^ state[512 + i];
  endfunction

endpackage
