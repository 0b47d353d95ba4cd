// SPDX-License-Identifier: MIT
//
// MLP model loader (quire_mlp_load in hls/mlp.c): checks a model image
// (include/quire/mlp.h) and writes its weights, biases, multipliers and
// shifts into the engine's memories, with the C function's statuses:
//   len below the header, magic            QUIRE_ERR_CORRUPT
//   version                                 QUIRE_ERR_VERSION
//   flags or reserved not 0                 QUIRE_ERR_CORRUPT
//   layers, widths (quire_mlp_image_bytes)  QUIRE_ERR_SHAPE
//   a width past the last layer not 0       QUIRE_ERR_SHAPE
//   payload_bytes or len not the shape's    QUIRE_ERR_CORRUPT
//   the payload's CRC-32                    QUIRE_ERR_CORRUPT
//   a bias, multiplier or shift out of range QUIRE_ERR_RANGE
// The header comes whole with the first beat and is checked at once; the
// payload then streams one byte a cycle through the CRC and into the
// memories. Range errors are remembered and reported after the CRC, as the C
// function, which checks the CRC before it parses. Values are written as they
// come even when the image turns out bad: the engine then keeps no model.
// The image arrives in 512-bit beats (bytes 64j..64j+63 of it in beat j,
// byte 0 in the low bits), each held until in_ready_o, which is given with
// the beat's last byte taken (or the image's).
module quire_mlp_load
  import quire_mlp_pkg::*;
(
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         start_i,
  input  logic [31:0]  len_i,
  input  logic         in_valid_i,
  input  logic [511:0] in_data_i,
  output logic         in_ready_o,
  // A weight byte: weight[l][o][i] at row {l, o, i[7:6]}, lane i[5:0].
  output logic         w_we_o,
  output logic [11:0]  w_row_o,
  output logic [5:0]   w_lane_o,
  output logic [7:0]   w_byte_o,
  // A per-output parameter of {l, o}: bias, multiplier (32 bits), shift (its low 6).
  output logic         b_we_o,
  output logic         m_we_o,
  output logic         s_we_o,
  output logic [9:0]   p_addr_o,
  output logic [31:0]  p_data_o,
  // The end: a pulse, the status, and the shape (meaningful with OK).
  output logic         done_o,
  output logic [31:0]  status_o,
  output logic [2:0]   layers_o,
  output logic [44:0]  widths_o   // width[l] (1..256) at [9l+8:9l]
);

  typedef enum logic [2:0] { L_IDLE, L_HDR, L_CHECK, L_PAY, L_END } state_e;
  typedef enum logic [1:0] { SEC_W, SEC_B, SEC_M, SEC_S } sec_e;

  state_e       state_q;
  sec_e         sec_q;
  logic [255:0] hdr_q;
  logic [31:0]  len_q, pos_q, crc_q, word_q;
  logic [16:0]  k_q;                 // byte within the section
  logic [1:0]   l_q;
  logic [8:0]   o_q, i_q;
  logic         bad_q;

  // ---- the header's fields
  logic [31:0] magic, payload, crc_want, reserved;
  logic [15:0] version, layers, flags;
  logic [15:0] width [5];
  assign magic    = hdr_q[8*MLP_HDR_MAGIC +: 32];
  assign version  = hdr_q[8*MLP_HDR_VERSION +: 16];
  assign layers   = hdr_q[8*MLP_HDR_LAYERS +: 16];
  assign flags    = hdr_q[8*MLP_HDR_FLAGS +: 16];
  assign payload  = hdr_q[8*MLP_HDR_PAYLOAD_BYTES +: 32];
  assign crc_want = hdr_q[8*MLP_HDR_PAYLOAD_CRC +: 32];
  assign reserved = hdr_q[8*MLP_HDR_RESERVED +: 32];
  always_comb begin : widths
    for (int unsigned l = 0; l < 5; l++) width[l] = hdr_q[8*MLP_HDR_WIDTH + 16*l +: 16];
  end

  // quire_mlp_image_bytes: the image's size for this shape, 0 if the shape is invalid.
  logic [31:0] bytes;
  logic        tail_zero;
  always_comb begin : image_bytes
    logic [31:0] in, out;
    bytes = MLP_HEADER_BYTES;
    if (layers < 16'd1 || 32'(layers) > MLP_MAX_LAYERS) bytes = 32'd0;
    else if (width[layers[2:0]] != 16'd1)                bytes = 32'd0;
    for (int unsigned l = 0; l < 4; l++) begin
      in  = 32'(width[l]);
      out = 32'(width[l+1]);
      if (bytes != 32'd0 && 16'(l) < layers) begin
        if (in < 32'd1 || in > MLP_MAX_WIDTH) begin
          bytes = 32'd0;
        end else begin
          bytes = bytes + ((in * out + 32'd3) & ~32'd3) + 32'd4 * out;
          if (16'(l + 1) < layers) bytes = bytes + 32'd4 * out + ((out + 32'd3) & ~32'd3);
        end
      end
    end
    tail_zero = 1'b1;
    for (int unsigned l = 1; l < 5; l++) begin
      if (16'(l) > layers && width[l] != 16'd0) tail_zero = 1'b0;
    end
  end

  logic [31:0] hdr_status;
  always_comb begin : check
    if (magic != MLP_MAGIC)                          hdr_status = ERR_CORRUPT;
    else if (32'(version) != MLP_VERSION)            hdr_status = ERR_VERSION;
    else if (flags != 16'd0 || reserved != 32'd0)    hdr_status = ERR_CORRUPT;
    else if (bytes == 32'd0 || !tail_zero)           hdr_status = ERR_SHAPE;
    else if (payload != bytes - MLP_HEADER_BYTES || len_q != bytes) hdr_status = ERR_CORRUPT;
    else                                             hdr_status = OK;
  end

  // ---- the payload walk: layer l_q, section sec_q, byte k_q of it
  logic [8:0]  in_w, out_w;
  logic        hidden;
  logic [16:0] w_bytes, sec_len;
  assign in_w    = width[{1'b0, l_q}][8:0];
  assign out_w   = width[{1'b0, l_q} + 3'd1][8:0];
  assign hidden  = {14'd0, l_q} + 16'd1 < layers;
  assign w_bytes = 17'(in_w) * 17'(out_w);
  always_comb begin : section_length
    unique case (sec_q)
      SEC_W:   sec_len = (w_bytes + 17'd3) & ~17'd3;
      SEC_B,
      SEC_M:   sec_len = 17'(out_w) << 2;
      default: sec_len = (17'(out_w) + 17'd3) & ~17'd3;
    endcase
  end

  logic [7:0]  byte_in;
  logic [31:0] word, crc_next;
  logic        taking, last_of_sec, word_done;
  assign byte_in     = in_data_i[8*pos_q[5:0] +: 8];
  assign taking      = state_q == L_PAY && in_valid_i;
  assign last_of_sec = k_q + 17'd1 == sec_len;
  assign word        = {byte_in, word_q[31:8]};
  assign word_done   = k_q[1:0] == 2'd3;

  always_comb begin : crc32
    crc_next = crc_q ^ {24'd0, byte_in};
    for (int unsigned b = 0; b < 8; b++) begin
      crc_next = (crc_next >> 1) ^ (32'hedb88320 & {32{crc_next[0]}});
    end
  end

  assign in_ready_o = (state_q == L_HDR && in_valid_i && len_q == MLP_HEADER_BYTES)
                   || (taking && (pos_q[5:0] == 6'd63 || pos_q + 32'd1 == len_q));

  assign w_we_o   = taking && sec_q == SEC_W && 32'(k_q) < 32'(w_bytes);
  assign w_row_o  = {l_q, o_q[7:0], i_q[7:6]};
  assign w_lane_o = i_q[5:0];
  assign w_byte_o = byte_in;
  assign b_we_o   = taking && sec_q == SEC_B && word_done;
  assign m_we_o   = taking && sec_q == SEC_M && word_done;
  assign s_we_o   = taking && sec_q == SEC_S && 32'(k_q) < 32'(out_w);
  assign p_addr_o = {l_q, sec_q == SEC_S ? k_q[7:0] : k_q[9:2]};
  assign p_data_o = sec_q == SEC_S ? {24'd0, byte_in} : word;

  logic range_bad;
  assign range_bad = (b_we_o && ($signed(word) <= -$signed(MLP_BIAS_LIMIT) ||
                                 $signed(word) >= $signed(MLP_BIAS_LIMIT)))
                  || (m_we_o && word[31])
                  || (s_we_o && 32'(byte_in) > MLP_MAX_SHIFT);

  assign layers_o = layers[2:0];
  always_comb begin : shape
    for (int unsigned l = 0; l < 5; l++) widths_o[9*l +: 9] = width[l][8:0];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : walk
    if (!rst_ni) begin
      state_q  <= L_IDLE;
      sec_q    <= SEC_W;
      hdr_q    <= '0;
      len_q    <= 32'd0;
      pos_q    <= 32'd0;
      crc_q    <= 32'd0;
      word_q   <= 32'd0;
      k_q      <= 17'd0;
      l_q      <= 2'd0;
      o_q      <= 9'd0;
      i_q      <= 9'd0;
      bad_q    <= 1'b0;
      done_o   <= 1'b0;
      status_o <= 32'd0;
    end else begin
      done_o <= 1'b0;
      unique case (state_q)
        L_IDLE: if (start_i) begin
          len_q   <= len_i;
          pos_q   <= 32'd0;
          hdr_q   <= '0;
          if (len_i < MLP_HEADER_BYTES) begin
            status_o <= ERR_CORRUPT;
            done_o   <= 1'b1;
          end else begin
            state_q <= L_HDR;
          end
        end
        L_HDR: if (in_valid_i) begin
          hdr_q   <= in_data_i[255:0];
          pos_q   <= MLP_HEADER_BYTES;
          state_q <= L_CHECK;
        end
        L_CHECK: begin
          sec_q  <= SEC_W;
          k_q    <= 17'd0;
          l_q    <= 2'd0;
          o_q    <= 9'd0;
          i_q    <= 9'd0;
          bad_q  <= 1'b0;
          crc_q  <= 32'hffff_ffff;
          if (hdr_status != OK) begin
            status_o <= hdr_status;
            done_o   <= 1'b1;
            state_q  <= L_IDLE;
          end else begin
            state_q <= L_PAY;
          end
        end
        L_PAY: if (taking) begin
          pos_q  <= pos_q + 32'd1;
          crc_q  <= crc_next;
          word_q <= word;
          if (range_bad) bad_q <= 1'b1;
          if (w_we_o) begin
            if (i_q + 9'd1 == in_w) begin
              i_q <= 9'd0;
              o_q <= o_q + 9'd1;
            end else begin
              i_q <= i_q + 9'd1;
            end
          end
          if (!last_of_sec) begin
            k_q <= k_q + 17'd1;
          end else begin
            k_q <= 17'd0;
            unique case (sec_q)
              SEC_W: sec_q <= SEC_B;
              SEC_B: sec_q <= hidden ? SEC_M : SEC_W;
              SEC_M: sec_q <= SEC_S;
              default: sec_q <= SEC_W;
            endcase
            if (sec_q == SEC_S || (sec_q == SEC_B && !hidden)) begin
              l_q <= l_q + 2'd1;
              o_q <= 9'd0;
              i_q <= 9'd0;
              if (!hidden) state_q <= L_END;
            end
          end
        end
        L_END: begin
          status_o <= ~crc_q != crc_want ? ERR_CORRUPT : bad_q ? ERR_RANGE : OK;
          done_o   <= 1'b1;
          state_q  <= L_IDLE;
        end
        default: state_q <= L_IDLE;
      endcase
    end
  end

  logic unused_bits;
  assign unused_bits = ^{width[0][15:9], width[1][15:9], width[2][15:9], width[3][15:9],
                         width[4][15:9], pos_q[31:6], k_q[16:10], word_q[7:0], o_q[8], i_q[8]};

endmodule
