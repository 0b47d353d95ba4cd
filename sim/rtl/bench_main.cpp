// SPDX-License-Identifier: MIT
// quire-bench-rtl: the RTL card's figures in card cycles, what `quire bench card --model rtl`
// prints. The card (card_harness.h) runs in this process, clocked only by this program, so
// every cycle is counted exactly: the descriptors go through rings in the harness's host
// memory as a driver posts them, and each figure is from the doorbell (the PRODUCER write)
// to the completion record's phase word in host memory.
//   NOP round trip    median and minimum over --nops NOPs posted one at a time
//   firmware CPI      cycles / instructions retired over those round trips (the command loop)
//   ENCODE bfp8       cycles per MiB of fp32 input, a --size tensor (firmware, DMA and engine)
//   REDUCE int8       cycles per MiB of input, W 4 inputs of --size / 4 bytes into int16
//   DECODE bfp8       cycles per MiB of fp32 output, the ENCODE's bfp8 (int8 values) decoded
//                     with the mean of 4 (y / 4.0f)
//   host link         the harness's PCIe-like link (QUIRE_RTL_HOST_LATENCY, _GBS)
//   network port      with --net-elf, or quire-net-rate.elf beside the firmware (the program
//                     of sim/rtl/net_rate.c): the cycles of a 64 KiB frame's 1025 beats each
//                     way, its first beat to its last, on a fresh card
//                     whose frames come back while the next goes out, and the cycles with a
//                     beat each way at once
//   simulation speed  card cycles clocked per second of wall time over the whole run
// With --ring N, instead: a bfp8 all-reduce of --size bytes of fp32 on N cards in lockstep,
// their ports on 100 Gb/s links of --link-latency cycles (ring_bench.h).
// Usage: quire-bench-rtl [--fw ELF] [--nops N] [--size BYTES] [--net-elf ELF]
//        quire-bench-rtl --ring N [--fw ELF] [--size BYTES] [--link-latency CYCLES]
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "card_harness.h"
#include "ring_bench.h"

extern "C" {
#include "sim/locate.h"
#include "quire/cmd.h"
#include "quire/format.h"
#include "quire/regs.h"
#include "quire/status.h"
}

namespace
{

const uint64_t kIova = 0x200000000ull;
const uint32_t kCmdRing = 0x0, kCplRing = 0x1000, kData = 0x10000;
const uint32_t kRingLog2 = 4, kSlots = 1u << kRingLog2;
// The RTL card's blocks sit at the emu's offsets (docs/rtl-card.md).
const uint32_t kCmdq = 0x100, kCplq = 0x200, kEngines = 0x400;
const uint64_t kCycleLimit = 2000000000ull;

struct Bench {
	quire_rtl::CardHarness card;
	uint32_t prod = 0;

	explicit Bench(uint32_t host_bytes) : card(kIova, host_bytes)
	{
	}

	bool start()
	{
		return quire_rtl::start_host_queues(card, kIova + kCmdRing, kIova + kCplRing,
						    kRingLog2);
	}

	// One descriptor, from the doorbell to its completion's phase word: the cycles, and
	// the completion (status 0xffff if none came).
	uint64_t run(quire_cmd cmd, quire_cpl &cpl, uint64_t *instructions = nullptr)
	{
		uint32_t slot = prod % kSlots, phase = ((prod / kSlots) & 1) ^ 1;
		cmd.seq = prod;
		std::memcpy(card.host() + kCmdRing + slot * QUIRE_CMD_BYTES, &cmd, sizeof cmd);
		card.run(2000); // the card back in its wait: no work of the last command counted
		uint64_t t0 = card.cycles(), i0 = card.instructions();
		card.bar_write(kCmdq + QUIRE_Q_PRODUCER, ++prod);
		const uint8_t *rec = card.host() + kCplRing + slot * QUIRE_CPL_BYTES;
		for (;;) {
			std::memcpy(&cpl, rec, sizeof cpl);
			if ((cpl.flags & QUIRE_CPL_F_PHASE) == phase && cpl.seq == cmd.seq)
				break;
			if (card.cycles() - t0 > kCycleLimit) {
				cpl.status = 0xffff;
				break;
			}
			card.run(1);
		}
		if (instructions)
			*instructions = card.instructions() - i0;
		uint64_t cycles = card.cycles() - t0;
		card.bar_write(kCplq + QUIRE_Q_CONSUMER, prod);
		return cycles;
	}

	// A descriptor run as run() does, and the cycles engine `kind` counted meanwhile (the
	// CYCLES of its ENGINES record).
	struct Timed {
		uint64_t cycles;
		uint32_t engine;
		int status;
	};
	Timed run_engine(const quire_cmd &cmd, uint32_t kind)
	{
		uint32_t rec = kEngines + QUIRE_ENG_RECORD(kind - 1) + QUIRE_ENG_CYCLES;
		quire_cpl cpl;
		uint32_t e0 = card.bar_read(rec);
		Timed t;
		t.cycles = run(cmd, cpl);
		t.engine = card.bar_read(rec) - e0;
		t.status = cpl.status;
		return t;
	}
};

// The network port at line rate: a fresh card running `elf` (sim/rtl/net_rate.c, frames sent
// back to back to the card's own address) on a wire that brings every frame back the cycle
// after it was sent; the streams' pace the harness counted. False when the program failed.
bool net_rate(const char *elf, quire_rtl::CardHarness::NetPace &pace, std::string &error)
{
	quire_rtl::CardHarness card(kIova, 0x1000);
	std::vector<std::vector<uint8_t>> wire;
	size_t next = 0;
	card.attach_net(1, [&wire](uint8_t *f, uint32_t len, bool &) -> uint32_t {
		wire.emplace_back(f, f + len);
		return QUIRE_OK;
	});
	if (!card.boot(elf, error))
		return false;
	uint32_t code = 1;
	bool exited = false;
	while (!exited && card.cycles() < 10000000) {
		exited = card.run_to_exit(1, code);
		if (next < wire.size() && card.net_feed(wire[next]))
			next++;
	}
	pace = card.net_pace();
	if (!exited || code != 0)
		error = std::string(elf) + ": the program did not end with 0";
	return exited && code == 0;
}

double per_mib(uint64_t cycles, uint64_t bytes)
{
	return double(cycles) * double(1u << 20) / double(bytes);
}

} // namespace

int main(int argc, char **argv)
{
	const char *fw = nullptr, *net_elf = nullptr;
	int nops = 200, ring = 0;
	uint64_t size = 1u << 20;
	quire_rtl::CardRing::Link link;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--ring" && i + 1 < argc) {
			ring = std::atoi(argv[++i]);
			if (ring < 2 || ring > 8) {
				std::fprintf(stderr, "quire-bench-rtl: --ring: 2 to 8 cards\n");
				return 2;
			}
		} else if (a == "--link-latency" && i + 1 < argc) {
			char *end = nullptr;
			unsigned long v = std::strtoul(argv[++i], &end, 10);
			if (*end || v < 1 || v > 1000000) {
				std::fprintf(stderr,
					     "quire-bench-rtl: --link-latency: 1 to 1000000 "
					     "cycles\n");
				return 2;
			}
			link.latency = unsigned(v);
		} else if (a == "--fw" && i + 1 < argc) {
			fw = argv[++i];
		} else if (a == "--nops" && i + 1 < argc) {
			nops = std::atoi(argv[++i]);
		} else if (a == "--net-elf" && i + 1 < argc) {
			net_elf = argv[++i];
		} else if (a == "--size" && i + 1 < argc) {
			size = std::strtoull(argv[++i], nullptr, 0);
		} else {
			std::fprintf(
			    stderr,
			    "usage: quire-bench-rtl [--fw ELF] [--nops N] [--size BYTES] "
			    "[--net-elf ELF]\n"
			    "       quire-bench-rtl --ring N [--fw ELF] [--size BYTES] "
			    "[--link-latency CYCLES]\n"
			    "  --size: fp32 bytes of the ENCODE tensor and bytes of the REDUCE "
			    "input, a multiple of 256 from 256 to 16MiB\n"
			    "  --ring N: a bfp8 all-reduce of --size bytes of fp32 on N cards "
			    "(2 to 8), on\n"
			    "    100 Gb/s links of --link-latency cycles (default 250: 1 us)\n");
			return 2;
		}
	}
	if (nops < 1 || nops > 100000 || size < 256 || size > (16u << 20) || size % 256) {
		std::fprintf(stderr,
			     "quire-bench-rtl: --nops 1 to 100000, --size a multiple of 256 "
			     "from 256 to 16MiB\n");
		return 2;
	}
	char elf[4096], why[8192];
	if (fw) {
		std::snprintf(elf, sizeof elf, "%s", fw);
	} else if (quire_fw_locate(elf, sizeof elf, why, sizeof why) != 0) {
		std::fprintf(stderr, "quire-bench-rtl: %s\n", why);
		return 1;
	}
	if (ring)
		return quire_rtl::ring_allreduce_bench(elf, unsigned(ring), size, link);
	// The network program beside the firmware (make install puts both in share/quire).
	std::string net_beside(elf);
	if (!net_elf) {
		size_t slash = net_beside.rfind('/');
		net_beside =
		    (slash == std::string::npos ? std::string(".") : net_beside.substr(0, slash)) +
		    "/quire-net-rate.elf";
		if (access(net_beside.c_str(), R_OK) == 0)
			net_elf = net_beside.c_str();
	}
	auto wall0 = std::chrono::steady_clock::now();
	// Host memory: the rings, then each tensor and its outputs.
	const uint32_t n = uint32_t(size / 4);
	const uint32_t x = kData, q = x + uint32_t(size), e = q + n, y = e + n / 64 + 64;
	Bench b(y + uint32_t(size) + 0x1000);
	std::string error;
	if (!b.card.boot(elf, error)) {
		std::fprintf(stderr, "quire-bench-rtl: %s: %s\n", elf, error.c_str());
		return 1;
	}
	uint64_t boot = 0;
	if (!b.start()) {
		std::fprintf(stderr, "quire-bench-rtl: the firmware did not reach RUNNING\n");
		return 1;
	}
	boot = b.card.cycles();
	for (uint32_t i = 0; i < n; i++) { // gradients: values of every scale, a few zeros
		float v = float((i * 2654435761u) % 20011) / 997.0f - 10.0f;
		std::memcpy(b.card.host() + x + 4 * i, &v, 4);
	}

	quire_cpl cpl;
	quire_cmd nop{};
	nop.opcode = QUIRE_OPC_NOP;
	std::vector<uint64_t> rt;
	uint64_t ins = 0, cyc = 0;
	for (int i = 0; i < nops; i++) {
		uint64_t k = 0;
		rt.push_back(b.run(nop, cpl, &k));
		if (cpl.status != QUIRE_OK) {
			std::fprintf(stderr, "quire-bench-rtl: NOP: status %u\n", cpl.status);
			return 1;
		}
		ins += k;
		cyc += rt.back();
	}
	std::sort(rt.begin(), rt.end());

	quire_cmd enc{};
	enc.opcode = QUIRE_OPC_ENCODE;
	enc.format = QUIRE_FMT_BFP8;
	enc.count = n;
	enc.src = kIova + x;
	enc.dst = kIova + q;
	enc.exp = kIova + e;
	auto enc_run = b.run_engine(enc, QUIRE_ENGINE_QUANT);

	quire_cmd red{};
	red.opcode = QUIRE_OPC_REDUCE;
	red.format = QUIRE_FMT_INT16;
	red.val_format = QUIRE_FMT_INT8;
	red.workers = 4;
	red.count = uint32_t(size / 4);
	red.stride = size / 4;
	red.src = kIova + x;
	red.dst = kIova + y;
	auto red_run = b.run_engine(red, QUIRE_ENGINE_REDUCE);

	quire_cmd dec{};
	dec.opcode = QUIRE_OPC_DECODE;
	dec.format = QUIRE_FMT_BFP8;
	dec.val_format = QUIRE_FMT_INT8;
	dec.workers = 4; // the mean of 4
	dec.count = n;
	dec.src = kIova + q;
	dec.exp = kIova + e;
	dec.dst = kIova + y;
	auto dec_run = b.run_engine(dec, QUIRE_ENGINE_QUANT);
	double wall =
	    std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

	std::printf("quire bench card --model rtl: the RTL card (Verilator) running %s, in card "
		    "cycles (250 MHz)\n",
		    elf);
	std::printf("host link (PCIe-like)                        %10u cycles latency, %.1f GB/s "
		    "each way\n",
		    b.card.host_link_latency(), b.card.host_link_gbs());
	std::printf("boot to RUNNING                              %10" PRIu64 " cycles\n", boot);
	std::printf("nop round trip (doorbell to completion)      %10" PRIu64
		    " cycles median, %" PRIu64 " min, %" PRIu64 " max over %d\n",
		    rt[rt.size() / 2], rt.front(), rt.back(), nops);
	std::printf(
	    "firmware CPI on the command loop (nops)      %10.2f (%.0f instructions per nop)\n",
	    ins ? double(cyc) / double(ins) : 0.0, double(ins) / nops);
	if (enc_run.status == QUIRE_OK)
		std::printf(
		    "encode bfp8, per MiB of fp32                 %10.0f cycles (QUANT engine "
		    "%.0f), %.1f MiB\n",
		    per_mib(enc_run.cycles, size), per_mib(enc_run.engine, size),
		    double(size) / (1 << 20));
	else
		std::printf("encode bfp8: status %d\n", enc_run.status);
	if (red_run.status == QUIRE_OK)
		std::printf(
		    "reduce int8 -> int16, W 4, per MiB of input  %10.0f cycles (REDUCE engine "
		    "%.0f)\n",
		    per_mib(red_run.cycles, size), per_mib(red_run.engine, size));
	else
		std::printf("reduce int8 -> int16, W 4: status %d\n", red_run.status);
	if (dec_run.status == QUIRE_OK)
		std::printf(
		    "decode bfp8, mean of 4, per MiB of fp32      %10.0f cycles (QUANT engine "
		    "%.0f)\n",
		    per_mib(dec_run.cycles, size), per_mib(dec_run.engine, size));
	else
		std::printf("decode bfp8, mean of 4: status %d\n", dec_run.status);
	bool net_ok = true;
	if (net_elf) {
		quire_rtl::CardHarness::NetPace pace;
		std::string why_net;
		net_ok = net_rate(net_elf, pace, why_net);
		if (net_ok && pace.tx.beats && pace.rx.beats) {
			std::printf("network port out, a 64 KiB frame (%4" PRIu64
				    " beats) %8" PRIu64 " cycles, first beat to last\n",
				    pace.tx.beats, pace.tx.cycles);
			std::printf("network port in, a 64 KiB frame (%4" PRIu64
				    " beats)  %8" PRIu64 " cycles, first beat to last; %" PRIu64
				    " cycles with a beat each way at once\n",
				    pace.rx.beats, pace.rx.cycles, pace.both_ways);
		} else {
			std::printf("network port: %s\n",
				    net_ok ? "no frame went each way" : why_net.c_str());
		}
		net_ok = net_ok && pace.tx.beats && pace.rx.beats;
	}
	std::printf("simulation speed                             %10.0f cycles per wall second "
		    "(%" PRIu64 " cycles in %.2f s)\n",
		    double(b.card.cycles()) / wall, b.card.cycles(), wall);
	return enc_run.status == QUIRE_OK && red_run.status == QUIRE_OK &&
		       dec_run.status == QUIRE_OK && net_ok
		   ? 0
		   : 1;
}
