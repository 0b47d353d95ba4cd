// SPDX-License-Identifier: MIT
// An engine's register window (docs/registers/engine-window.md):
// CTRL (a write with START starts an idle engine; reads 0 while it runs and
// DONE|IDLE once done), RETURN (the last run's status), one 64-bit register
// per argument (QUIRE_ENGINE_ARG(i), low word then high word, read back as
// written, written at any time: a run takes them as they are at its START, so
// the next run's arguments are written while one runs); any other offset reads
// 0xffff_ffff. It also keeps the engine's record for the ENGINES block:
// operations done, and cycles from START to DONE summed over them.
// Every engine controller of the card (quire_card_quant, quire_card_reduce, quire_card_mlp)
// has one; the controller says when it is idle and when a run finishes.
module quire_card_engine_regs
  import quire_card_pkg::*;
#(
  parameter int unsigned NumArgs = ENGINE_MAX_ARGS
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,

  // The window (an offset in it): read data in the cycle of the request.
  input  logic                    req_i,
  input  logic                    we_i,
  input  logic [11:0]             addr_i,
  input  logic [31:0]             wdata_i,
  output logic [31:0]             rdata_o,

  // The controller: idle (START taken), the last cycle of a run and its status;
  // the arguments of the run (those written, in the cycle of its START).
  input  logic                    idle_i,
  input  logic                    finish_i,
  input  logic [31:0]             status_i,
  output logic                    start_o,
  output logic [NumArgs-1:0][63:0] args_o,

  // The ENGINES record: a pulse at DONE, operations and busy cycles so far.
  output logic                    done_o,
  output logic [31:0]             ops_o,
  output logic [31:0]             cycles_o
);

  logic [31:0] ctrl_q, ret_q, busy_q;
  logic [NumArgs-1:0][63:0] written_q, run_q;
  assign args_o = start_o ? written_q : run_q;
  logic [11:0] arg_off;
  logic [3:0]  arg_idx;
  logic        arg_hit;
  assign arg_off = addr_i - 12'(ENGINE_ARG0);
  assign arg_idx = 4'(arg_off / 12'(ENGINE_ARG_STEP));
  assign arg_hit = {20'd0, addr_i} >= ENGINE_ARG0 &&
                   {20'd0, addr_i} < ENGINE_ARG0 + ENGINE_ARG_STEP * NumArgs;
  assign start_o = req_i && we_i && idle_i && {20'd0, addr_i} == ENGINE_CTRL &&
                   (wdata_i & ENGINE_START) != 0;

  always_comb begin : read_regs
    if ({20'd0, addr_i} == ENGINE_CTRL)        rdata_o = ctrl_q;
    else if ({20'd0, addr_i} == ENGINE_RETURN) rdata_o = ret_q;
    else if (arg_hit)                          rdata_o = addr_i[2] ? written_q[arg_idx][63:32]
                                                                   : written_q[arg_idx][31:0];
    else                                       rdata_o = 32'hffff_ffff;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : regs
    if (!rst_ni) begin
      written_q <= '0;
      run_q     <= '0;
      ctrl_q   <= 32'd0;
      ret_q    <= 32'd0;
      busy_q   <= 32'd0;
      ops_o    <= 32'd0;
      cycles_o <= 32'd0;
      done_o   <= 1'b0;
    end else begin
      done_o <= 1'b0;
      if (req_i && we_i && arg_hit) begin
        if (addr_i[2]) written_q[arg_idx][63:32] <= wdata_i;
        else           written_q[arg_idx][31:0]  <= wdata_i;
      end
      if (start_o) begin
        run_q  <= written_q;
        ctrl_q <= 32'd0;
        busy_q <= 32'd1;
      end else if (!idle_i) begin
        busy_q <= busy_q + 32'd1;
      end
      if (finish_i) begin
        ret_q    <= status_i;
        ctrl_q   <= ENGINE_DONE | ENGINE_IDLE;
        ops_o    <= ops_o + 32'd1;
        cycles_o <= cycles_o + busy_q;
        done_o   <= 1'b1;
      end
    end
  end

  logic unused_bits;
  assign unused_bits = ^arg_off[2:0];

endmodule
