// SPDX-License-Identifier: MIT
// DECODE's mean (hls/quant.c mean_of): each of 16 fp32 lanes divided by
// (float)mean_w, as C computes y / (float)w on x86 (IEEE division, round to
// nearest even, subnormals kept; a NaN comes back quieted, its payload kept;
// Inf stays Inf, a zero stays a zero of its sign). mean_w is an integer >= 2,
// rounded to fp32 as C's conversion does (exact below 2^24).
//
// Sequential: a restoring divider per lane, one quotient bit a cycle, 52
// cycles a beat; every lane in step. The dividend is the lane's 24-bit
// significand (normalized, for a subnormal too) followed by 28 zero bits, so
// the quotient has 28 to 51 significant bits: enough for the 24 kept, a guard
// bit and a sticky bit (with the remainder).
module quire_card_mean (
  input  logic         clk_i,
  input  logic         rst_ni,

  input  logic         start_i,   // y_i and w_i taken now
  input  logic [31:0]  w_i,       // the divisor, >= 2
  input  logic [511:0] y_i,       // 16 fp32
  output logic         done_o,    // a pulse: y_o holds the quotients from now on
  output logic [511:0] y_o
);

  localparam int unsigned Lanes    = 16;
  localparam int unsigned NumBits  = 52;  // dividend: 24 significand bits, 28 zeros
  localparam int unsigned Shift    = 28;

  // ---- the divisor: (float)w = wm * 2^wk, wm < 2^24 (round to nearest even above)
  logic [4:0]  w_lead;      // index of w's leading one
  logic        unused_w;
  logic [4:0]  wk_raw;
  logic [31:0] w_kept;
  logic        w_round;
  logic [24:0] wm_rounded;
  always_comb begin : divisor
    w_lead = 5'd0;
    for (int unsigned b = 0; b < 32; b++) if (w_i[b]) w_lead = 5'(b);
    wk_raw  = w_lead > 5'd23 ? w_lead - 5'd23 : 5'd0;
    w_kept  = w_i >> wk_raw;
    w_round = 1'b0;
    if (wk_raw != 5'd0) begin
      // guard w[wk-1], sticky below it, round to even
      w_round = w_i[wk_raw - 5'd1] &&
                ((w_i & ((32'd1 << (wk_raw - 5'd1)) - 32'd1)) != 32'd0 || w_kept[0]);
    end
    wm_rounded = 25'(w_kept[23:0]) + 25'(w_round);
    unused_w   = ^w_kept[31:24];  // 0: at most 24 bits are kept
  end

  logic [23:0] wm_q;
  logic [5:0]  wk_q;
  logic [5:0]  count_q;
  logic        busy_q;

  // ---- per lane: the special values, the significand and exponent of the rest
  logic [Lanes-1:0]              special_q, sign_q;
  logic [Lanes-1:0][31:0]        special_val_q;
  logic [Lanes-1:0][9:0]         ey_q;      // the dividend's biased exponent (<= 0 for subnormals)
  logic [Lanes-1:0][NumBits-1:0] num_q, quo_q;
  logic [Lanes-1:0][24:0]        rem_q;

  // One lane, unpacked at start: a subnormal's significand is shifted up to its leading
  // one, and its exponent down by as much (a zero is a special value, never divided).
  function automatic logic [4:0] lead23(logic [22:0] f);
    logic [4:0] p;
    p = 5'd0;
    for (int unsigned b = 0; b < 23; b++) if (f[b]) p = 5'(b);
    return p;
  endfunction

  function automatic logic [23:0] significand(logic [30:0] y);
    logic [23:0] m;
    if (y[30:23] != 8'd0) m = {1'b1, y[22:0]};
    else                  m = {1'b0, y[22:0]} << (5'd23 - lead23(y[22:0]));
    return m;
  endfunction

  function automatic logic [9:0] exponent(logic [30:0] y);
    logic [9:0] e;
    logic [4:0] shift;
    shift = 5'd23 - lead23(y[22:0]);
    if (y[30:23] != 8'd0) e = {2'b00, y[30:23]};
    else                  e = 10'd1 - {5'd0, shift};
    return e;
  endfunction

  // The quotient rounded into an fp32 (lane's sign, exponent, quotient, remainder).
  function automatic logic [31:0] round_quotient(logic sign, logic [9:0] ey, logic [5:0] wk,
                                                 logic [NumBits-1:0] quo, logic [24:0] rem);
    int          lead, eb, drop;
    logic [63:0] q64, kept, below;
    logic        unused_kept;
    logic        guard, sticky, up;
    logic [30:0] field;
    lead = 0;
    for (int b = 0; b < int'(NumBits); b++) if (quo[b]) lead = b;
    // value = quo * 2^(ey - 127 - 23 - Shift - wk); normalized: 1.f * 2^(that + lead)
    eb   = int'($signed(ey)) - 127 - 23 - int'(Shift) - int'(wk) + lead + 127;
    drop = eb >= 1 ? lead - 23 : lead - 23 + (1 - eb);
    if (drop > 63) drop = 63;
    q64    = 64'(quo);
    kept   = q64 >> drop;
    guard  = q64[drop - 1];
    below  = q64 & ((64'd1 << (drop - 1)) - 64'd1);
    sticky = below != 64'd0 || rem != 25'd0;
    up     = guard && (sticky || kept[0]);
    unused_kept = ^kept[63:23];  // 0 by construction: at most 24 bits are kept
    field  = eb >= 1 ? {8'(eb), kept[22:0]} : {8'd0, kept[22:0]};
    field  = field + 31'(up);  // a carry moves into the exponent, as it should
    return {sign, field};
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin : run
    if (!rst_ni) begin
      wm_q          <= 24'd0;
      wk_q          <= 6'd0;
      count_q       <= 6'd0;
      busy_q        <= 1'b0;
      done_o        <= 1'b0;
      special_q     <= '0;
      sign_q        <= '0;
      special_val_q <= '0;
      ey_q          <= '0;
      num_q         <= '0;
      quo_q         <= '0;
      rem_q         <= '0;
      y_o           <= '0;
    end else begin
      done_o <= 1'b0;
      if (start_i) begin
        // a carry of the divisor's rounding: 2^24 = 2^23 * 2
        wm_q    <= wm_rounded[24] ? 24'h80_0000 : wm_rounded[23:0];
        wk_q    <= 6'(wk_raw) + 6'(wm_rounded[24]);
        count_q <= 6'd0;
        busy_q  <= 1'b1;
        for (int unsigned l = 0; l < Lanes; l++) begin
          logic [31:0] y;
          y = y_i[32*l +: 32];
          sign_q[l]        <= y[31];
          special_q[l]     <= y[30:23] == 8'hff || y[30:0] == 31'd0;
          special_val_q[l] <= (y[30:23] == 8'hff && y[22:0] != 23'd0) ? (y | 32'h0040_0000) : y;
          ey_q[l]          <= exponent(y[30:0]);
          num_q[l]         <= {significand(y[30:0]), 28'd0};
          quo_q[l]         <= '0;
          rem_q[l]         <= 25'd0;
        end
      end else if (busy_q) begin
        for (int unsigned l = 0; l < Lanes; l++) begin
          logic [24:0] r;
          r = {rem_q[l][23:0], num_q[l][NumBits-1]};
          if (r >= 25'(wm_q)) begin
            rem_q[l] <= r - 25'(wm_q);
            quo_q[l] <= {quo_q[l][NumBits-2:0], 1'b1};
          end else begin
            rem_q[l] <= r;
            quo_q[l] <= {quo_q[l][NumBits-2:0], 1'b0};
          end
          num_q[l] <= num_q[l] << 1;
        end
        count_q <= count_q + 6'd1;
        if (count_q == 6'(NumBits - 1)) busy_q <= 1'b0;
      end
      // The cycle after the last quotient bit: round every lane.
      if (!busy_q && !start_i && count_q == 6'(NumBits)) begin
        for (int unsigned l = 0; l < Lanes; l++) begin
          y_o[32*l +: 32] <= special_q[l] ? special_val_q[l]
                                          : round_quotient(sign_q[l], ey_q[l], wk_q,
                                                           quo_q[l], rem_q[l]);
        end
        done_o  <= 1'b1;
        count_q <= 6'd0;
      end
    end
  end

endmodule
