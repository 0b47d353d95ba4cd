// SPDX-License-Identifier: MIT
// The bare-metal test machine around the rv32im core: one RAM both ports
// reach, and the simulation I/O page (console, sim-exit, an interrupt line,
// mtime/mtimecmp). The map is include/quire/rv32_sim.h, read through the
// generated quire_rv32_sim_map_pkg. quire-rv32-run (sim/rtl/run_main.cpp)
// fills the RAM through the load port while reset is held, then prints the
// console bytes and ends the run on a sim-exit store.
module quire_rv32_sim_top
  import quire_rv32_sim_map_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,

  // Backdoor for the ELF loader: one RAM word a cycle, used under reset.
  input  logic        load_we_i,
  input  logic [31:0] load_addr_i,
  input  logic [31:0] load_data_i,

  output logic        console_valid_o,
  output logic [7:0]  console_byte_o,
  output logic        exit_valid_o,
  output logic [31:0] exit_code_o,

  // The core's per-cycle report, for tracing and statistics.
  output logic        retire_o,
  output logic        trap_o,
  output logic [31:0] trap_cause_o,
  output logic [31:0] trap_pc_o,
  output logic [31:0] trap_value_o
);

  localparam int unsigned RamWords     = RAM_BYTES / 4;
  localparam int unsigned RamIndexBits = $clog2(RamWords);

  // ---- the core
  logic        instr_req, instr_rvalid_q, instr_err_q;
  logic [31:0] instr_addr, instr_rdata_q;
  logic        data_req, data_we, data_rvalid_q, data_err_q;
  logic [3:0]  data_be;
  logic [31:0] data_addr, data_wdata, data_rdata_q;
  logic        irq_external_q, irq_timer;
  logic        core_wfi;  // the test machine's lines are software's: nothing to clear on a wait

  quire_rv32_core #(
    .ResetAddr (RESET_ADDR),
    .HartId    (32'd0)
  ) u_core (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .instr_req_o    (instr_req),
    .instr_addr_o   (instr_addr),
    .instr_rvalid_i (instr_rvalid_q),
    .instr_rdata_i  (instr_rdata_q),
    .instr_err_i    (instr_err_q),
    .data_req_o     (data_req),
    .data_we_o      (data_we),
    .data_be_o      (data_be),
    .data_addr_o    (data_addr),
    .data_wdata_o   (data_wdata),
    .data_rvalid_i  (data_rvalid_q),
    .data_rdata_i   (data_rdata_q),
    .data_err_i     (data_err_q),
    .irq_external_i (irq_external_q),
    .irq_timer_i    (irq_timer),
    .retire_o       (retire_o),
    .trap_o         (trap_o),
    .trap_cause_o   (trap_cause_o),
    .trap_pc_o      (trap_pc_o),
    .trap_value_o   (trap_value_o),
    .wfi_o          (core_wfi)
  );

  // ---- address decoding (offsets wrap, so a base of 0 needs no special case)
  logic [31:0] instr_ram_offset, data_ram_offset, data_io_offset, load_ram_offset;
  assign instr_ram_offset = instr_addr - RAM_BASE;
  assign data_ram_offset  = data_addr - RAM_BASE;
  assign data_io_offset   = data_addr - IO_BASE;
  assign load_ram_offset  = load_addr_i - RAM_BASE;

  logic instr_in_ram, data_in_ram, data_in_io;
  assign instr_in_ram = instr_ram_offset < RAM_BYTES;
  assign data_in_ram  = data_ram_offset < RAM_BYTES;
  assign data_in_io   = data_io_offset < IO_BYTES;

  logic [RamIndexBits-1:0] instr_index, data_index, load_index;
  assign instr_index = instr_ram_offset[RamIndexBits+1:2];
  assign data_index  = data_ram_offset[RamIndexBits+1:2];
  assign load_index  = load_ram_offset[RamIndexBits+1:2];

  // ---- RAM: a read port for fetches, a read/write port for data (and the loader)
  logic [31:0] ram [RamWords];

  always_ff @(posedge clk_i) begin : ram_data_port
    if (load_we_i) begin
      ram[load_index] <= load_data_i;
    end else if (data_req && data_we && data_in_ram) begin
      for (int unsigned lane = 0; lane < 4; lane++) begin
        if (data_be[lane]) ram[data_index][8*lane +: 8] <= data_wdata[8*lane +: 8];
      end
    end
  end

  // ---- simulation I/O
  logic [63:0] mtime_q, mtimecmp_q;
  assign irq_timer = mtime_q >= mtimecmp_q;

  logic io_write;
  assign io_write = data_req && data_we && data_in_io;

  always_ff @(posedge clk_i or negedge rst_ni) begin : io_registers
    if (!rst_ni) begin
      mtime_q        <= '0;
      mtimecmp_q     <= '1;  // no timer interrupt until software sets one
      irq_external_q <= 1'b0;
    end else begin
      mtime_q <= mtime_q + 64'd1;
      if (io_write) begin
        unique case (data_addr)
          IRQ:         irq_external_q     <= data_wdata[0];
          MTIMECMP_LO: mtimecmp_q[31:0]  <= data_wdata;
          MTIMECMP_HI: mtimecmp_q[63:32] <= data_wdata;
          default: ;  // console and sim-exit are outputs; the rest ignores stores
        endcase
      end
    end
  end

  assign console_valid_o = io_write && data_addr == CONSOLE;
  assign console_byte_o  = data_wdata[7:0];
  assign exit_valid_o    = io_write && data_addr == EXIT;
  assign exit_code_o     = data_wdata;

  logic [31:0] io_rdata;
  always_comb begin : read_io
    unique case (data_addr)
      IRQ:         io_rdata = {31'b0, irq_external_q};
      MTIME_LO:    io_rdata = mtime_q[31:0];
      MTIME_HI:    io_rdata = mtime_q[63:32];
      MTIMECMP_LO: io_rdata = mtimecmp_q[31:0];
      MTIMECMP_HI: io_rdata = mtimecmp_q[63:32];
      default:     io_rdata = 32'd0;
    endcase
  end

  // ---- answers, one cycle after the request
  always_ff @(posedge clk_i or negedge rst_ni) begin : answer_ports
    if (!rst_ni) begin
      instr_rvalid_q <= 1'b0;
      instr_err_q    <= 1'b0;
      instr_rdata_q  <= '0;
      data_rvalid_q  <= 1'b0;
      data_err_q     <= 1'b0;
      data_rdata_q   <= '0;
    end else begin
      instr_rvalid_q <= instr_req;
      instr_err_q    <= instr_req && !instr_in_ram;
      if (instr_req) instr_rdata_q <= ram[instr_index];
      data_rvalid_q  <= data_req;
      data_err_q     <= data_req && !data_in_ram && !data_in_io;
      if (data_req && !data_we) data_rdata_q <= data_in_ram ? ram[data_index] : io_rdata;
    end
  end

  // Only the offsets' index bits and range checks are used.
  logic unused_offset_bits;
  assign unused_offset_bits = ^{core_wfi, instr_ram_offset[1:0], data_ram_offset[1:0],
                                load_ram_offset[1:0], load_ram_offset[31:RamIndexBits+2]};

endmodule
