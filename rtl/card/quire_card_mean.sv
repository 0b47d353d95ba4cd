// SPDX-License-Identifier: MIT
// DECODE's mean (hls/quant.c mean_of): each of 16 fp32 lanes divided by
// (float)mean_w, as C computes y / (float)w on x86 (IEEE division, round to
// nearest even, subnormals kept; a NaN comes back quieted, its payload kept;
// Inf stays Inf, a zero stays a zero of its sign). mean_w is an integer >= 2,
// rounded to fp32 as C's conversion does (exact below 2^24).
//
// Pipelined: a restoring divider per lane unrolled into 52 stages, one quotient
// bit a stage, so that a beat goes in every cycle and comes out 54 cycles
// later (an unpacking stage, 52 quotient stages, a rounding stage), in order.
// Each beat carries its divisor along. The dividend is the lane's 24-bit
// significand (normalized, for a subnormal too) followed by 28 zero bits, so
// the quotient has 28 to 51 significant bits: enough for the 24 kept, a guard
// bit and a sticky bit (with the remainder).
module quire_card_mean (
  input  logic         clk_i,
  input  logic         rst_ni,

  input  logic         in_valid_i, // y_i and w_i taken now
  input  logic [31:0]  w_i,        // the divisor, >= 2
  input  logic [511:0] y_i,        // 16 fp32
  output logic         out_valid_o, // y_o holds a beat's quotients in this cycle
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

  // ---- the stages: 0 unpacked, 1..NumBits a quotient bit each
  localparam int unsigned Stages = NumBits + 1;
  logic [Stages-1:0]                          v_q;
  logic [Stages-1:0][23:0]                    wm_q;
  logic [Stages-1:0][5:0]                     wk_q;
  logic [Stages-1:0][Lanes-1:0]               special_q, sign_q;
  logic [Stages-1:0][Lanes-1:0][31:0]         special_val_q;
  logic [Stages-1:0][Lanes-1:0][9:0]          ey_q;  // the dividend's biased exponent
  logic [Stages-1:0][Lanes-1:0][NumBits-1:0]  num_q, quo_q;
  logic [Stages-1:0][Lanes-1:0][24:0]         rem_q;

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

  always_ff @(posedge clk_i or negedge rst_ni) begin : unpack
    if (!rst_ni) begin
      v_q[0] <= 1'b0;
    end else begin
      v_q[0] <= in_valid_i;
      if (in_valid_i) begin
        // a carry of the divisor's rounding: 2^24 = 2^23 * 2
        wm_q[0] <= wm_rounded[24] ? 24'h80_0000 : wm_rounded[23:0];
        wk_q[0] <= 6'(wk_raw) + 6'(wm_rounded[24]);
        for (int unsigned l = 0; l < Lanes; l++) begin
          logic [31:0] y;
          y = y_i[32*l +: 32];
          sign_q[0][l]        <= y[31];
          special_q[0][l]     <= y[30:23] == 8'hff || y[30:0] == 31'd0;
          special_val_q[0][l] <= (y[30:23] == 8'hff && y[22:0] != 23'd0) ? (y | 32'h0040_0000) : y;
          ey_q[0][l]          <= exponent(y[30:0]);
          num_q[0][l]         <= {significand(y[30:0]), 28'd0};
          quo_q[0][l]         <= '0;
          rem_q[0][l]         <= 25'd0;
        end
      end
    end
  end

  // Stage s takes stage s - 1's partial remainder one dividend bit further.
  for (genvar s = 1; s < Stages; s++) begin : gen_stage
    always_ff @(posedge clk_i or negedge rst_ni) begin : divide
      if (!rst_ni) begin
        v_q[s] <= 1'b0;
      end else begin
        v_q[s] <= v_q[s-1];
        if (v_q[s-1]) begin
          wm_q[s]          <= wm_q[s-1];
          wk_q[s]          <= wk_q[s-1];
          sign_q[s]        <= sign_q[s-1];
          special_q[s]     <= special_q[s-1];
          special_val_q[s] <= special_val_q[s-1];
          ey_q[s]          <= ey_q[s-1];
          for (int unsigned l = 0; l < Lanes; l++) begin
            logic [24:0] r;
            r = {rem_q[s-1][l][23:0], num_q[s-1][l][NumBits-1]};
            if (r >= 25'(wm_q[s-1])) begin
              rem_q[s][l] <= r - 25'(wm_q[s-1]);
              quo_q[s][l] <= {quo_q[s-1][l][NumBits-2:0], 1'b1};
            end else begin
              rem_q[s][l] <= r;
              quo_q[s][l] <= {quo_q[s-1][l][NumBits-2:0], 1'b0};
            end
            num_q[s][l] <= num_q[s-1][l] << 1;
          end
        end
      end
    end
  end

  // The last stage needs no divisor and no dividend bits any more.
  logic unused_last;
  assign unused_last = ^{wm_q[Stages-1], num_q[Stages-1]};

  // The last stage's quotients rounded, every lane.
  always_ff @(posedge clk_i or negedge rst_ni) begin : round
    if (!rst_ni) begin
      out_valid_o <= 1'b0;
      y_o         <= '0;
    end else begin
      out_valid_o <= v_q[Stages-1];
      if (v_q[Stages-1]) begin
        for (int unsigned l = 0; l < Lanes; l++) begin
          y_o[32*l +: 32] <= special_q[Stages-1][l] ? special_val_q[Stages-1][l]
                           : round_quotient(sign_q[Stages-1][l], ey_q[Stages-1][l],
                                            wk_q[Stages-1], quo_q[Stages-1][l],
                                            rem_q[Stages-1][l]);
        end
      end
    end
  end

endmodule
