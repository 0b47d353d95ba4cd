// SPDX-License-Identifier: MIT
// quire-rv32-run: runs a bare-metal rv32im ELF on the core (the Verilator model
// of sim/rtl/quire_rv32_sim_top.sv), forwards its console to stdout and exits
// with the value it stores to the sim-exit register (docs/rtl-core.md).
//
// Usage: quire-rv32-run [--max-cycles N] [--trace FILE.fst] [--traps] [--stats] ELF
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "Vquire_rv32_sim_top.h"
#include "verilated.h"
#include "verilated_fst_c.h"

#include "elf_image.h"

#include "quire/rv32_sim.h"

namespace {

const char *const kProgram = "quire-rv32-run";
// Exit statuses of the runner itself, apart from the program's sim-exit value.
const int kExitUsage = 125;
const int kExitCycleLimit = 124;

struct Options {
	uint64_t max_cycles = 100000000; // about a minute of simulation at worst
	const char *trace_path = nullptr;
	bool show_traps = false;
	bool show_stats = false;
	const char *elf_path = nullptr;
};

void usage(FILE *out)
{
	std::fprintf(out,
		     "usage: %s [--max-cycles N] [--trace FILE.fst] [--traps] [--stats] ELF\n"
		     "  runs a bare-metal rv32im ELF linked for the core's test machine\n"
		     "  (tests/rtl/link.ld.S); exits with the value stored to sim-exit.\n"
		     "  --max-cycles N  stop after N cycles (exit %d); default 100000000\n"
		     "  --trace FILE    write the waveforms to FILE (FST, for gtkwave)\n"
		     "  --traps         print each trap (cause, pc, mtval) to stderr\n"
		     "  --stats         print cycles, instructions and CPI to stderr\n",
		     kProgram, kExitCycleLimit);
}

// The program's words in the test machine's RAM, and its entry, which must be the reset address.
struct Image {
	std::vector<std::pair<uint32_t, uint32_t>> words; // (address, value)
};

bool fail(const char *path, const std::string &why)
{
	std::fprintf(stderr, "%s: %s: %s\n", kProgram, path, why.c_str());
	return false;
}

bool load_elf(const char *path, Image &image)
{
	quire_rtl::ElfImage elf;
	std::string error;
	if (!quire_rtl::read_elf(path, elf, error))
		return fail(path, error);
	if (!quire_rtl::elf_words(elf, QUIRE_RV32_SIM_RAM_BASE, QUIRE_RV32_SIM_RAM_BYTES, image.words,
				  error))
		return fail(path, error + " (the RAM; link with tests/rtl/link.ld.S)");
	if (elf.entry != QUIRE_RV32_SIM_RESET_ADDR) {
		char why[128];
		std::snprintf(why, sizeof why,
			      "entry 0x%08" PRIx32 " is not the reset address 0x%08x "
			      "(link with tests/rtl/link.ld.S)",
			      elf.entry, QUIRE_RV32_SIM_RESET_ADDR);
		return fail(path, why);
	}
	return true;
}

bool parse_options(int argc, char **argv, Options &opt)
{
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--max-cycles" && i + 1 < argc) {
			char *end;
			opt.max_cycles = std::strtoull(argv[++i], &end, 0);
			if (*end || opt.max_cycles == 0) {
				std::fprintf(stderr, "%s: --max-cycles wants a positive number\n", kProgram);
				return false;
			}
		} else if (a == "--trace" && i + 1 < argc) {
			opt.trace_path = argv[++i];
		} else if (a == "--traps") {
			opt.show_traps = true;
		} else if (a == "--stats") {
			opt.show_stats = true;
		} else if (a == "-h" || a == "--help") {
			usage(stdout);
			std::exit(0);
		} else if (a[0] != '-' && !opt.elf_path) {
			opt.elf_path = argv[i];
		} else {
			usage(stderr);
			return false;
		}
	}
	if (!opt.elf_path) {
		usage(stderr);
		return false;
	}
	return true;
}

} // namespace

int main(int argc, char **argv)
{
	Options opt;
	if (!parse_options(argc, argv, opt))
		return kExitUsage;
	Image image;
	if (!load_elf(opt.elf_path, image))
		return kExitUsage;

	auto context = std::make_unique<VerilatedContext>();
	context->traceEverOn(opt.trace_path != nullptr);
	auto top = std::make_unique<Vquire_rv32_sim_top>(context.get());
	std::unique_ptr<VerilatedFstC> trace;
	if (opt.trace_path) {
		trace = std::make_unique<VerilatedFstC>();
		top->trace(trace.get(), 99);
		trace->open(opt.trace_path);
	}
	uint64_t time = 0;
	auto tick = [&]() {
		top->clk_i = 0;
		top->eval();
		if (trace)
			trace->dump(time);
		time++;
		top->clk_i = 1;
		top->eval();
		if (trace)
			trace->dump(time);
		time++;
	};

	// Reset held while the loader writes the image, one word a cycle.
	top->rst_ni = 0;
	top->clk_i = 0;
	top->eval();
	top->load_we_i = 1;
	for (const auto &w : image.words) {
		top->load_addr_i = w.first;
		top->load_data_i = w.second;
		tick();
	}
	top->load_we_i = 0;
	tick();
	top->rst_ni = 1;

	uint64_t cycles = 0, instructions = 0;
	int status = kExitCycleLimit;
	bool exited = false;
	while (cycles < opt.max_cycles) {
		// Outputs settle on the falling edge half; sample before the rising edge.
		top->clk_i = 0;
		top->eval();
		if (trace)
			trace->dump(time);
		time++;
		if (top->console_valid_o) {
			std::putchar(top->console_byte_o);
			if (top->console_byte_o == '\n')
				std::fflush(stdout);
		}
		instructions += top->retire_o;
		if (opt.show_traps && top->trap_o)
			std::fprintf(stderr,
				     "%s: cycle %" PRIu64 ": trap mcause 0x%08" PRIx32 " mepc 0x%08" PRIx32
				     " mtval 0x%08" PRIx32 "\n",
				     kProgram, cycles, uint32_t(top->trap_cause_o), uint32_t(top->trap_pc_o),
				     uint32_t(top->trap_value_o));
		bool exit_now = top->exit_valid_o;
		uint32_t exit_code = top->exit_code_o;
		top->clk_i = 1;
		top->eval();
		if (trace)
			trace->dump(time);
		time++;
		cycles++;
		if (exit_now) {
			// A process keeps 8 bits of its status: a failure stays a failure.
			status = exit_code == 0 ? 0 : (exit_code & 0xff) ? int(exit_code & 0xff) : 1;
			exited = true;
			if (exit_code != 0)
				std::fprintf(stderr, "%s: sim-exit 0x%08" PRIx32 "\n", kProgram, exit_code);
			break;
		}
	}
	std::fflush(stdout);
	if (!exited)
		std::fprintf(stderr, "%s: %s: no sim-exit after %" PRIu64 " cycles (--max-cycles)\n",
			     kProgram, opt.elf_path, cycles);
	if (opt.show_stats)
		std::fprintf(stderr, "%s: %" PRIu64 " cycles, %" PRIu64 " instructions, CPI %.2f\n",
			     kProgram, cycles, instructions,
			     instructions ? double(cycles) / double(instructions) : 0.0);
	if (trace)
		trace->close();
	top->final();
	return status;
}
