// SPDX-License-Identifier: MIT
// quire-rv32-run: runs a bare-metal rv32im ELF on the core (the Verilator model
// of sim/rtl/quire_rv32_sim_top.sv), forwards its console to stdout and exits
// with the value it stores to the sim-exit register (docs/rtl-core.md).
//
// Usage: quire-rv32-run [--max-cycles N] [--trace FILE.fst] [--traps] [--stats] ELF
#include <cerrno>
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

// An ELF32 little-endian RISC-V executable: its loadable segments, at their
// physical (load) addresses, as word writes into the RAM.
struct Image {
	uint32_t entry = 0;
	std::vector<std::pair<uint32_t, uint32_t>> words; // (address, value)
};

uint32_t read_u32(const std::vector<uint8_t> &b, size_t at)
{
	return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 |
	       uint32_t(b[at + 3]) << 24;
}

uint16_t read_u16(const std::vector<uint8_t> &b, size_t at)
{
	return uint16_t(b[at] | b[at + 1] << 8);
}

bool fail(const char *path, const std::string &why)
{
	std::fprintf(stderr, "%s: %s: %s\n", kProgram, path, why.c_str());
	return false;
}

bool load_elf(const char *path, Image &image)
{
	FILE *f = std::fopen(path, "rb");
	if (!f)
		return fail(path, std::strerror(errno));
	std::vector<uint8_t> bytes;
	uint8_t chunk[65536];
	size_t n;
	while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
		bytes.insert(bytes.end(), chunk, chunk + n);
	std::fclose(f);

	const size_t ehdr_size = 52, phdr_size = 32;
	if (bytes.size() < ehdr_size || std::memcmp(bytes.data(), "\x7f"
							       "ELF",
						    4) != 0)
		return fail(path, "not an ELF file");
	if (bytes[4] != 1 || bytes[5] != 1)
		return fail(path, "not a 32-bit little-endian ELF (build with -march=rv32im -mabi=ilp32)");
	if (read_u16(bytes, 16) != 2)
		return fail(path, "not an executable (ELF type EXEC)");
	if (read_u16(bytes, 18) != 243)
		return fail(path, "not a RISC-V ELF");
	image.entry = read_u32(bytes, 24);
	uint32_t phoff = read_u32(bytes, 28);
	uint16_t phentsize = read_u16(bytes, 42), phnum = read_u16(bytes, 44);
	if (phentsize < phdr_size || uint64_t(phoff) + uint64_t(phnum) * phentsize > bytes.size())
		return fail(path, "program headers out of the file");

	const uint32_t ram_end = QUIRE_RV32_SIM_RAM_BASE + QUIRE_RV32_SIM_RAM_BYTES;
	std::vector<uint8_t> ram(QUIRE_RV32_SIM_RAM_BYTES, 0);
	std::vector<bool> touched(QUIRE_RV32_SIM_RAM_BYTES / 4, false);
	unsigned loaded = 0;
	for (unsigned i = 0; i < phnum; i++) {
		size_t ph = phoff + size_t(i) * phentsize;
		if (read_u32(bytes, ph) != 1) // PT_LOAD
			continue;
		uint32_t offset = read_u32(bytes, ph + 4), paddr = read_u32(bytes, ph + 12);
		uint32_t filesz = read_u32(bytes, ph + 16), memsz = read_u32(bytes, ph + 20);
		if (memsz == 0)
			continue;
		char where[160];
		std::snprintf(where, sizeof where,
			      "segment %u (0x%08" PRIx32 "..0x%08" PRIx64 ") is outside the RAM "
			      "0x%08x..0x%08x (link with tests/rtl/link.ld.S)",
			      i, paddr, uint64_t(paddr) + memsz, QUIRE_RV32_SIM_RAM_BASE, ram_end);
		if (filesz > memsz || uint64_t(offset) + filesz > bytes.size())
			return fail(path, "a segment lies outside the file");
		// An offset that wraps below the base is huge: one test covers both ends.
		uint32_t base = paddr - QUIRE_RV32_SIM_RAM_BASE;
		if (uint64_t(base) + memsz > QUIRE_RV32_SIM_RAM_BYTES)
			return fail(path, where);
		std::memcpy(&ram[base], &bytes[offset], filesz);
		for (uint64_t a = base & ~3u; a < uint64_t(base) + memsz; a += 4)
			touched[a / 4] = true;
		loaded++;
	}
	if (loaded == 0)
		return fail(path, "no loadable segment");
	if (image.entry != QUIRE_RV32_SIM_RESET_ADDR) {
		char why[128];
		std::snprintf(why, sizeof why,
			      "entry 0x%08" PRIx32 " is not the reset address 0x%08x "
			      "(link with tests/rtl/link.ld.S)",
			      image.entry, QUIRE_RV32_SIM_RESET_ADDR);
		return fail(path, why);
	}
	for (size_t w = 0; w < touched.size(); w++)
		if (touched[w])
			image.words.emplace_back(QUIRE_RV32_SIM_RAM_BASE + 4 * w, read_u32(ram, 4 * w));
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
