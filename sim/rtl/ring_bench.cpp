// SPDX-License-Identifier: MIT
// quire-bench-rtl --ring N (ring_bench.h): each card's host posts what libquire posts for a
// card communicator's bfp8 all-reduce (host/src/comm/card.c): COMM_INIT with the members'
// addresses in rank order, then ALLREDUCE of format BFP8, the sum, no error feedback, src
// and dst fp32 in that card's own host memory. The doorbells of the all-reduce ring in one
// cycle of the lockstep clock; the figure is from there to the last completion's phase word.
#include "ring_bench.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "hls/allreduce_golden.h"
#include "quire/cmd.h"
#include "quire/format.h"
#include "quire/regs.h"
#include "quire/status.h"
}

namespace quire_rtl
{

namespace
{

const uint64_t kIova = 0x200000000ull;
// Each host's memory: its command and completion rings, the communicator's descriptor,
// then the vector and the result.
const uint32_t kCmdRing = 0x0, kCplRing = 0x1000, kCommDesc = 0x2000, kData = 0x10000;
const uint32_t kRingLog2 = 4, kSlots = 1u << kRingLog2;
const uint32_t kId = 0x000, kCmdq = 0x100, kCplq = 0x200, kEngines = 0x400;
const uint16_t kCommId = 7;
const uint64_t kCycleLimit = 400000000ull; // 1.6 s of card time: far past any size here

// One card's host: its rings, as a driver keeps them.
struct Host {
	uint32_t prod = 0;
	uint64_t done_at = 0;
	quire_cpl cpl{};
};

// Every card gets cmd (seq filled in) with its doorbell in the same cycle; the ring runs
// until each has completed it. False if one has not within kCycleLimit.
bool run_all(CardRing &ring, std::vector<Host> &hosts, std::vector<quire_cmd> cmds)
{
	unsigned n = ring.size();
	std::vector<bool> done(n, false);
	for (unsigned i = 0; i < n; i++) {
		Host &h = hosts[i];
		uint32_t slot = h.prod % kSlots;
		cmds[i].seq = h.prod;
		std::memcpy(ring.card(i).host() + kCmdRing + slot * QUIRE_CMD_BYTES, &cmds[i],
			    sizeof cmds[i]);
		ring.bar_write(i, kCmdq + QUIRE_Q_PRODUCER, ++h.prod);
	}
	uint64_t t0 = ring.now();
	for (unsigned left = n; left;) {
		if (ring.now() - t0 > kCycleLimit)
			return false;
		if (ring.deadlocked()) {
			std::fprintf(stderr,
				     "quire-bench-rtl: every card's port has been held by a "
				     "full switch for a million cycles: deadlocked\n");
			return false;
		}
		ring.cycle();
		for (unsigned i = 0; i < n; i++) {
			if (done[i])
				continue;
			Host &h = hosts[i];
			uint32_t slot = (h.prod - 1) % kSlots,
				 phase = (((h.prod - 1) / kSlots) & 1) ^ 1;
			const uint8_t *rec =
			    ring.card(i).host() + kCplRing + slot * QUIRE_CPL_BYTES;
			std::memcpy(&h.cpl, rec, sizeof h.cpl);
			if ((h.cpl.flags & QUIRE_CPL_F_PHASE) != phase || h.cpl.seq != cmds[i].seq)
				continue;
			done[i] = true;
			left--;
			h.done_at = ring.now() - t0;
			ring.bar_write(i, kCplq + QUIRE_Q_CONSUMER, h.prod);
		}
	}
	return true;
}

float gradient(uint32_t rank, uint32_t i)
{
	// values of every scale and sign, a few zeros, different on every rank
	uint32_t h = (i + 7919u * rank) * 2654435761u;
	float v = float(h % 20011u) / 997.0f - 10.0f;
	return (h >> 20) % 5 == 0 ? v * 0.001f : v;
}

double gb(double bytes, double cycles)
{
	return cycles > 0 ? bytes / (cycles / 250e6) / 1e9 : 0;
}

} // namespace

bool start_host_queues(CardHarness &card, uint64_t cmd_ring, uint64_t cpl_ring, unsigned log2)
{
	while (card.bar_read(kId + QUIRE_ID_FW_STATE) != QUIRE_FW_STATE_RUNNING) {
		if (card.cycles() > 10000000)
			return false;
		card.run(100);
	}
	const uint32_t blocks[2] = {kCplq, kCmdq};
	const uint64_t bases[2] = {cpl_ring, cmd_ring};
	for (int i = 0; i < 2; i++) {
		card.bar_write(blocks[i] + QUIRE_Q_BASE_LO, uint32_t(bases[i]));
		card.bar_write(blocks[i] + QUIRE_Q_BASE_HI, uint32_t(bases[i] >> 32));
		card.bar_write(blocks[i] + QUIRE_Q_SIZE_LOG2, log2);
		card.bar_write(blocks[i] + QUIRE_Q_CTRL, QUIRE_Q_CTRL_ENABLE);
	}
	return true;
}

int ring_allreduce_bench(const char *elf, unsigned cards, uint64_t bytes,
			 const CardRing::Link &link)
{
	auto wall0 = std::chrono::steady_clock::now();
	const uint32_t n = uint32_t(bytes / 4);
	const uint32_t x = kData, y = x + uint32_t(bytes);
	CardRing ring(cards, kIova, y + uint32_t(bytes) + 0x1000, link);
	std::string error;
	if (!ring.boot(elf, error)) {
		std::fprintf(stderr, "quire-bench-rtl: %s: %s\n", elf, error.c_str());
		return 1;
	}
	std::vector<Host> hosts(cards);
	for (unsigned i = 0; i < cards; i++)
		if (!start_host_queues(ring.card(i), kIova + kCmdRing, kIova + kCplRing,
				       kRingLog2)) {
			std::fprintf(
			    stderr,
			    "quire-bench-rtl: card %u: the firmware did not reach RUNNING\n", i);
			return 1;
		}

	// COMM_INIT: the communicator of all the cards, rank i the card at address i + 1.
	std::vector<quire_cmd> cmds(cards);
	for (unsigned i = 0; i < cards; i++) {
		std::vector<uint8_t> desc(QUIRE_COMM_DESC_BYTES(cards), 0);
		quire_comm_desc d{};
		d.comm = kCommId;
		d.rank = uint16_t(i);
		d.size = uint16_t(cards);
		std::memcpy(desc.data(), &d, sizeof d);
		for (unsigned r = 0; r < cards; r++) {
			uint16_t a = ring.addr(r);
			std::memcpy(desc.data() + sizeof d + 2 * r, &a, 2);
		}
		std::memcpy(ring.card(i).host() + kCommDesc, desc.data(), desc.size());
		cmds[i] = quire_cmd{};
		cmds[i].opcode = QUIRE_OPC_COMM_INIT;
		cmds[i].count = uint32_t(desc.size());
		cmds[i].src = kIova + kCommDesc;
	}
	if (!run_all(ring, hosts, cmds)) {
		std::fprintf(stderr, "quire-bench-rtl: COMM_INIT did not complete\n");
		return 1;
	}
	for (unsigned i = 0; i < cards; i++)
		if (hosts[i].cpl.status != QUIRE_OK) {
			std::fprintf(stderr, "quire-bench-rtl: card %u: COMM_INIT: status %u\n", i,
				     hosts[i].cpl.status);
			return 1;
		}

	// The vectors, and the golden model's all-reduce of them.
	std::vector<std::vector<float>> xs(cards, std::vector<float>(n));
	std::vector<const float *> xp(cards);
	for (unsigned r = 0; r < cards; r++) {
		for (uint32_t i = 0; i < n; i++)
			xs[r][i] = gradient(r, i);
		std::memcpy(ring.card(r).host() + x, xs[r].data(), bytes);
		std::memset(ring.card(r).host() + y, 0xa5, bytes); // nothing left to pass for it
		xp[r] = xs[r].data();
	}
	std::vector<float> want(n);
	std::vector<uint64_t> scratch((quire_golden_scratch_bytes(cards, n) + 7) / 8);
	int gst = quire_golden_allreduce(QUIRE_FMT_BFP8, 0, cards, n, 0, xp.data(), nullptr,
					 nullptr, want.data(), scratch.data());
	if (gst != QUIRE_OK) {
		std::fprintf(stderr, "quire-bench-rtl: the golden model: status %d\n", gst);
		return 1;
	}

	// The all-reduce, the cards back in their wait first.
	for (unsigned k = 0; k < 2000; k++)
		ring.cycle();
	std::vector<uint64_t> hr(cards), hw(cards), quant0(cards), reduce0(cards);
	const uint32_t quant_rec =
	    kEngines + QUIRE_ENG_RECORD(QUIRE_ENGINE_QUANT - 1) + QUIRE_ENG_CYCLES;
	const uint32_t reduce_rec =
	    kEngines + QUIRE_ENG_RECORD(QUIRE_ENGINE_REDUCE - 1) + QUIRE_ENG_CYCLES;
	for (unsigned i = 0; i < cards; i++) {
		CardHarness &c = ring.card(i);
		quant0[i] = c.bar_read(quant_rec);
		reduce0[i] = c.bar_read(reduce_rec);
		hr[i] = c.traffic().host_read;
		hw[i] = c.traffic().host_written;
		cmds[i] = quire_cmd{};
		cmds[i].opcode = QUIRE_OPC_ALLREDUCE;
		cmds[i].format = QUIRE_FMT_BFP8;
		cmds[i].count = n;
		cmds[i].workers = kCommId;
		cmds[i].src = kIova + x;
		cmds[i].dst = kIova + y;
	}
	ring.reset_counts();
	if (!run_all(ring, hosts, cmds)) {
		std::fprintf(stderr,
			     "quire-bench-rtl: the all-reduce did not complete in %" PRIu64
			     " cycles\n",
			     kCycleLimit);
		return 1;
	}
	uint64_t cycles = 0, first = UINT64_MAX;
	bool ok = true;
	for (unsigned i = 0; i < cards; i++) {
		cycles = std::max(cycles, hosts[i].done_at);
		first = std::min(first, hosts[i].done_at);
		if (hosts[i].cpl.status != QUIRE_OK) {
			std::fprintf(stderr,
				     "quire-bench-rtl: card %u: ALLREDUCE: status %u, detail %u\n",
				     i, hosts[i].cpl.status, hosts[i].cpl.detail);
			ok = false;
		}
	}
	// Every rank's result, byte for byte.
	uint64_t wrong = 0;
	for (unsigned r = 0; r < cards && ok; r++) {
		const uint8_t *got = ring.card(r).host() + y;
		const uint8_t *w = reinterpret_cast<const uint8_t *>(want.data());
		for (uint32_t i = 0; i < n; i++) {
			if (std::memcmp(got + 4 * i, w + 4 * i, 4) == 0)
				continue;
			if (wrong++ == 0) {
				float g;
				std::memcpy(&g, got + 4 * i, 4);
				std::fprintf(stderr,
					     "quire-bench-rtl: rank %u, element %u: %a, the golden "
					     "model's %a\n",
					     r, i, double(g), double(want[i]));
			}
		}
	}
	if (wrong) {
		std::fprintf(stderr, "quire-bench-rtl: %" PRIu64 " result elements differ\n",
			     wrong);
		ok = false;
	}

	// Where the cycles went, per card (read after the figure: these reads are cycles too).
	struct Per {
		uint64_t quant, reduce, rd, wr;
	};
	std::vector<Per> per(cards);
	for (unsigned i = 0; i < cards; i++) {
		CardHarness &c = ring.card(i);
		per[i] = Per{uint32_t(c.bar_read(quant_rec) - uint32_t(quant0[i])),
			     uint32_t(c.bar_read(reduce_rec) - uint32_t(reduce0[i])),
			     c.traffic().host_read - hr[i], c.traffic().host_written - hw[i]};
	}
	double wall =
	    std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

	const double link_gbs = link.gbps / 8.0, factor = 2.0 * (cards - 1) / cards;
	const double bfp_bytes = double(n) + double(QUIRE_BFP_BLOCKS(n));
	const double host_per_cycle = ring.card(0).host_link_gbs() * 1e9 / 250e6;
	std::printf("quire bench card --model rtl --ring %u: a bfp8 all-reduce (sum) on %u RTL "
		    "cards in lockstep (Verilator), in card cycles (250 MHz)\n",
		    cards, cards);
	std::printf("links    %.0f Gb/s each way (%.2f bytes a cycle), %u cycles (%.2f us) of "
		    "cable and switch, %" PRIu64 " KiB of switch buffer per sender\n",
		    link.gbps, link.gbps * 1e9 / 8.0 / 250e6, link.latency, link.latency / 250.0,
		    link.buffer_bytes >> 10);
	std::printf("host     each card its own PCIe-like link: %u cycles latency, %.1f GB/s "
		    "each way\n",
		    ring.card(0).host_link_latency(), ring.card(0).host_link_gbs());
	std::printf("vector   %" PRIu64 " bytes of fp32 per rank (%u elements); in bfp8 %.0f "
		    "bytes (int8 values, an exponent byte per 64)\n",
		    bytes, n, bfp_bytes);
	if (!ok) {
		std::printf("all-reduce: FAILED (above)\n");
		return 1;
	}
	std::printf("all-reduce, doorbell to last completion %12" PRIu64
		    " cycles (%.1f us); the first completion at %" PRIu64 "\n",
		    cycles, cycles / 250.0, first);
	double alg = gb(double(bytes), double(cycles)), algb = gb(bfp_bytes, double(cycles));
	std::printf("busbw of the fp32 vector %10.2f GB/s = %.1f%% of the %.0f Gb/s link "
		    "(algbw %.2f GB/s x 2(n-1)/n = %.2f)\n",
		    alg * factor, 100.0 * alg * factor / link_gbs, link.gbps, alg, factor);
	std::printf("busbw of the bfp8 vector %10.2f GB/s = %.1f%% of the link (algbw %.2f GB/s)\n",
		    algb * factor, 100.0 * algb * factor / link_gbs, algb);
	std::printf("results  every byte of every rank's result is the golden model's "
		    "(hls/allreduce_golden.c), %u ranks x %u fp32\n",
		    cards, n);
	std::printf("where each card's %" PRIu64 " cycles go (busy cycles of each, which overlap "
		    "in a card):\n",
		    cycles);
	std::printf("  card  on the wire (frames, bytes: %% of the link)  core waiting (WFI)  "
		    "host reads   host writes  QUANT      REDUCE     port held: rate, switch\n");
	for (unsigned i = 0; i < cards; i++) {
		const CardRing::Counts &k = ring.counts(i);
		std::printf("  %-4u  %5" PRIu64 " %10" PRIu64 ": %5.1f%%            %10" PRIu64
			    "          %10.0f  %10.0f  %9" PRIu64 "  %9" PRIu64 "  %9" PRIu64
			    " %9" PRIu64 "\n",
			    i, k.frames, k.bytes,
			    100.0 * gb(double(k.bytes), double(cycles)) / link_gbs, k.idle,
			    double(per[i].rd) / host_per_cycle, double(per[i].wr) / host_per_cycle,
			    per[i].quant, per[i].reduce, k.held_rate, k.held_full);
	}
	std::printf("simulation speed  %.0f lockstep cycles per wall second (%u cards, %.1f s)\n",
		    double(ring.now()) / wall, cards, wall);
	return 0;
}

} // namespace quire_rtl
