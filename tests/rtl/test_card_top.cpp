// SPDX-License-Identifier: MIT
// The RTL card top runs the card firmware: boot to RUNNING, rings set up as
// host/src/backend/sim.c sets them up, then descriptors posted by hand (a
// NOP, INFO, and malformed ones). Every descriptor also goes through the emu
// (sim/emu, the native build of the same firmware) in this process, and the
// RTL card's completion must equal the emu's, field for field: the statuses
// and details expected are the emu's, computed now, not written here.
// Prints the cycles of the boot and of the NOP round trip, and
// "rtl card: N passed, N failed".
// With a second ELF (tests/rtl/card_dma.c), it also runs that bare-metal program on a
// fresh card: the DMA mover's checks, unaligned moves and queues, driven directly, and the
// cycles of 16 transfers queued back to back each way against the link's; with a third
// (tests/rtl/card_mlp.c), the MLP engine's window and checks, driven directly; with a
// fourth (tests/rtl/card_net.c), the network port driven directly over a wire looped
// back to itself.
// Usage: test_card_top FIRMWARE.elf [CARD_DMA.elf [CARD_MLP.elf [CARD_NET.elf]]]
#include <chrono>
#include <deque>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sim/rtl/card_harness.h"
#include "tests/rtl/card_dma.h"

extern "C" {
#include "hls/crc32.h"
#include "sim/emu/emu.h"
#include "quire/cmd.h"
#include "quire/format.h"
#include "quire/frame.h"
#include "quire/mlp.h"
#include "quire/regblock.h"
#include "quire/regs.h"
#include "quire/status.h"
}

namespace
{

const uint64_t kIova = 0x200000000ull; // above 4 GiB: the high address words matter
const uint32_t kHostBytes = 1u << 20;
const uint32_t kCmdRing = 0x0, kCplRing = 0x1000, kData = 0x2000;
const uint32_t kRingLog2 = 4;
const uint64_t kRtlCycleLimit = 20000000;

int passed, failed;

void check(bool ok, const std::string &what)
{
	std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
	(ok ? passed : failed)++;
}

// A card as a host reaches it: BAR0, host memory, and time.
class Card
{
      public:
	virtual ~Card() = default;
	virtual uint32_t rd(uint32_t offset) = 0;
	virtual void wr(uint32_t offset, uint32_t value) = 0;
	virtual uint8_t *host() = 0;
	// Let the card work a little; false once it has had all the time it gets.
	virtual bool wait() = 0;
};

class RtlCard : public Card
{
      public:
	quire_rtl::CardHarness harness{kIova, kHostBytes};
	uint32_t rd(uint32_t offset) override
	{
		return harness.bar_read(offset);
	}
	void wr(uint32_t offset, uint32_t value) override
	{
		harness.bar_write(offset, value);
	}
	uint8_t *host() override
	{
		return harness.host();
	}
	bool wait() override
	{
		harness.run(1);
		return harness.cycles() < kRtlCycleLimit;
	}
};

class EmuCard : public Card
{
      public:
	// caps_off: the engines the RTL card does not have, so that the emu's firmware refuses
	// their commands as the RTL card's does.
	explicit EmuCard(uint32_t caps_off)
	    : mem_(static_cast<uint8_t *>(std::calloc(1, kHostBytes)))
	{
		quire_emu_config cfg{};
		cfg.caps_off = caps_off;
		dev_ = quire_emu_create(&cfg);
		if (dev_ && mem_)
			dev_->ops->attach_host(dev_, mem_, kIova, kHostBytes);
	}
	~EmuCard() override
	{
		if (dev_) {
			dev_->ops->detach_host(dev_);
			dev_->ops->destroy(dev_);
		}
		std::free(mem_);
	}
	bool ok() const
	{
		return dev_ && mem_;
	}
	uint32_t rd(uint32_t offset) override
	{
		return dev_->ops->mmio_read(dev_, offset);
	}
	void wr(uint32_t offset, uint32_t value) override
	{
		dev_->ops->mmio_write(dev_, offset, value);
	}
	uint8_t *host() override
	{
		return mem_;
	}
	bool wait() override
	{
		std::this_thread::sleep_for(std::chrono::microseconds(100));
		return ++waits_ < 50000; // 5 s
	}

      private:
	uint8_t *mem_;
	struct quire_device *dev_ = nullptr;
	unsigned waits_ = 0;
};

// The host side of one card: its blocks, its rings, and the indices sim.c keeps.
struct Host {
	Card &card;
	uint32_t id = 0, cmdq = 0, cplq = 0, irq = 0, engines = 0, counters = 0;
	uint32_t prod = 0, cpl_cons = 0, cpl_phase = 1;

	explicit Host(Card &c) : card(c)
	{
	}

	// The contract's walk (quire/regblock.h) reads the card through this.
	static uint32_t card_read(void *c, uint32_t offset)
	{
		return static_cast<Card *>(c)->rd(offset);
	}

	bool walk()
	{
		const quire_regblock_need need[] = {
		    {QUIRE_RB_TYPE_ID, QUIRE_RB_ID_VERSION, &id},
		    {QUIRE_RB_TYPE_CMDQ, QUIRE_RB_CMDQ_VERSION, &cmdq},
		    {QUIRE_RB_TYPE_CPLQ, QUIRE_RB_CPLQ_VERSION, &cplq},
		    {QUIRE_RB_TYPE_IRQ, QUIRE_RB_IRQ_VERSION, &irq},
		    {QUIRE_RB_TYPE_ENGINES, QUIRE_RB_ENGINES_VERSION, &engines},
		    {QUIRE_RB_TYPE_COUNTERS, QUIRE_RB_COUNTERS_VERSION, &counters},
		};
		quire_regblock_chain chain;
		return quire_regblock_walk(card_read, &card, &chain) == QUIRE_OK &&
		       quire_regblock_find_all(&chain, need, sizeof(need) / sizeof(need[0]),
					       nullptr) == QUIRE_OK &&
		       card.rd(id + QUIRE_ID_MAGIC) == QUIRE_ID_MAGIC_VALUE;
	}

	bool wait_running()
	{
		while (card.rd(id + QUIRE_ID_FW_STATE) != QUIRE_FW_STATE_RUNNING)
			if (!card.wait())
				return false;
		return true;
	}

	// sim.c setup_queue, completion queue first.
	bool setup_queue(uint32_t block, uint64_t dma)
	{
		card.wr(block + QUIRE_Q_BASE_LO, uint32_t(dma));
		card.wr(block + QUIRE_Q_BASE_HI, uint32_t(dma >> 32));
		card.wr(block + QUIRE_Q_SIZE_LOG2, kRingLog2);
		card.wr(block + QUIRE_Q_CTRL, QUIRE_Q_CTRL_ENABLE);
		return card.rd(block + QUIRE_Q_STATUS) & QUIRE_Q_STATUS_ENABLED;
	}

	bool start_queues()
	{
		std::memset(card.host() + kCmdRing, 0, QUIRE_CMD_BYTES << kRingLog2);
		std::memset(card.host() + kCplRing, 0, QUIRE_CPL_BYTES << kRingLog2);
		prod = cpl_cons = 0;
		cpl_phase = 1;
		bool ok =
		    setup_queue(cplq, kIova + kCplRing) && setup_queue(cmdq, kIova + kCmdRing);
		card.wr(irq + QUIRE_IRQ_MASK, QUIRE_IRQ_CPL | QUIRE_IRQ_ERROR);
		return ok;
	}

	// sim.c submit: the descriptor into its slot, then the doorbell.
	void submit(const quire_cmd &cmd)
	{
		uint32_t slot = prod & ((1u << kRingLog2) - 1);
		std::memcpy(card.host() + kCmdRing + slot * QUIRE_CMD_BYTES, &cmd, sizeof cmd);
		card.wr(cmdq + QUIRE_Q_PRODUCER, ++prod);
	}

	// sim.c reap, for one record: new when its phase is the pass the host is on.
	bool reap(quire_cpl &cpl)
	{
		uint32_t slot = cpl_cons & ((1u << kRingLog2) - 1);
		const uint8_t *rec = card.host() + kCplRing + slot * QUIRE_CPL_BYTES;
		for (;;) {
			quire_cpl c;
			std::memcpy(&c, rec, sizeof c);
			if ((c.flags & QUIRE_CPL_F_PHASE) == cpl_phase) {
				cpl = c;
				break;
			}
			if (!card.wait())
				return false;
		}
		if ((++cpl_cons & ((1u << kRingLog2) - 1)) == 0)
			cpl_phase ^= 1;
		card.wr(cplq + QUIRE_Q_CONSUMER, cpl_cons);
		return true;
	}
};

std::string describe(const quire_cpl &c)
{
	char s[160];
	std::snprintf(s, sizeof s,
		      "seq %" PRIu32 " status %u (%s) opcode %u result %" PRIu32 " detail %" PRIu32
		      " phase %" PRIu32,
		      c.seq, c.status, quire_strerror(c.status), c.opcode, c.result, c.detail,
		      c.flags & QUIRE_CPL_F_PHASE);
	return s;
}

bool same(const quire_cpl &a, const quire_cpl &b)
{
	return a.seq == b.seq && a.status == b.status && a.opcode == b.opcode &&
	       a.result == b.result && a.detail == b.detail && a.flags == b.flags;
}

quire_cmd nop(uint32_t seq)
{
	quire_cmd c;
	std::memset(&c, 0, sizeof c);
	c.opcode = QUIRE_OPC_NOP;
	c.seq = seq;
	return c;
}

quire_cmd info(uint32_t seq, uint64_t dst)
{
	quire_cmd c = nop(seq);
	c.opcode = QUIRE_OPC_INFO;
	c.dst = dst;
	return c;
}

// ---- commands for an engine the card's caps do not name: QUIRE_ERR_NOT_SUPPORTED (detail
// ENGINE) at once, the card going on with the next command; before, the firmware reached
// the engine's window, the core faulted and the card stopped answering.
quire_cmd engine_cmd(uint32_t seq, uint8_t opcode, uint32_t count)
{
	const uint64_t at = kIova + 0x10000;
	quire_cmd c = nop(seq);
	c.opcode = opcode;
	c.count = count;
	c.src = at;
	c.dst = opcode == QUIRE_OPC_MLP_LOAD ? 0 : at + 0x8000;
	return c;
}

// Returns how many of the four commands it tried (those whose engine rtl_caps lacks).
int missing_engines(Host &rh, Host &eh, uint32_t rtl_caps)
{
	quire_cmd load = engine_cmd(40, QUIRE_OPC_MLP_LOAD, QUIRE_MLP_HEADER_BYTES);
	quire_cmd score = engine_cmd(41, QUIRE_OPC_MLP_SCORE, 4);
	quire_cmd reduce = engine_cmd(42, QUIRE_OPC_REDUCE, 64);
	quire_cmd encode = engine_cmd(43, QUIRE_OPC_ENCODE, 64);
	score.aux = encode.exp = kIova + 0x19000;
	reduce.format = reduce.val_format = QUIRE_FMT_INT32;
	reduce.workers = 1;
	encode.format = QUIRE_FMT_BFP8;
	const struct {
		const char *what;
		uint32_t cap;
		quire_cmd cmd;
	} cases[] = {{"MLP_LOAD", QUIRE_CAP_MLP, load},
		     {"MLP_SCORE", QUIRE_CAP_MLP, score},
		     {"REDUCE", QUIRE_CAP_REDUCE, reduce},
		     {"ENCODE", QUIRE_CAP_CODEC, encode}};
	int tried = 0;
	for (const auto &c : cases) {
		if (rtl_caps & c.cap)
			continue;
		tried++;
		quire_cpl rc, ec, rn, en;
		rh.submit(c.cmd);
		eh.submit(c.cmd);
		bool got = rh.reap(rc) && eh.reap(ec);
		rh.submit(nop(44));
		eh.submit(nop(44));
		got = got && rh.reap(rn) && eh.reap(en);
		check(got && rc.status == QUIRE_ERR_NOT_SUPPORTED &&
			  rc.detail == QUIRE_DETAIL_ENGINE && same(rc, ec) &&
			  rn.status == QUIRE_OK && same(rn, en),
		      std::string(c.what) + " without its engine in the caps: rtl " + describe(rc) +
			  "; emu " + describe(ec) + "; a NOP after it: " + describe(rn));
	}
	return tried;
}

// The RTL card names every engine, so the refusals above run on a second card whose ID
// block names none (CardHarness::keep_caps, before its firmware starts), beside an emu
// without them: all four commands refused as the emu refuses them, the card going on.
void no_engine_card(const char *firmware)
{
	const uint32_t engines = QUIRE_CAP_CODEC | QUIRE_CAP_REDUCE | QUIRE_CAP_MLP;
	auto rtl = std::make_unique<RtlCard>();
	std::string error;
	bool booted = rtl->harness.boot(firmware, error);
	rtl->harness.keep_caps(~engines);
	EmuCard emu(engines);
	Host rh(*rtl), eh(emu);
	bool up = booted && emu.ok() && rh.walk() && eh.walk() && rh.wait_running() &&
		  eh.wait_running() && rh.start_queues() && eh.start_queues();
	uint32_t caps = up ? rh.card.rd(rh.id + QUIRE_ID_CAPS) : 0;
	check(up && (caps & engines) == 0 && caps == eh.card.rd(eh.id + QUIRE_ID_CAPS),
	      "a second RTL card whose caps name no engine boots, its caps as the emu's" +
		  (booted ? std::string() : ": " + error));
	if (!up)
		return;
	int tried = missing_engines(rh, eh, caps);
	check(tried == 4,
	      "on it, all " + std::to_string(tried) + " of 4 commands for a missing engine tried");
	check(rtl->harness.traps() == 0, "its firmware never trapped");
}

// ---- the codec commands (EXPONENTS, ENCODE, DECODE) on the QUANT engine
const uint32_t kSrc = 0x10000, kAux = 0x50000, kDst = 0x90000, kExp = 0xe0000;
const uint32_t kDataEnd = kHostBytes;

uint32_t rng_state = 12345;
uint32_t rnd()
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return rng_state >> 1 ^ rng_state << 7;
}

// fp32 bits with the edges: zeros, -0.0, subnormals, NaN, Inf, >= 2^126, and whole
// blocks of one kind (all zero, all subnormal, one NaN among normals).
uint32_t edgy(uint32_t i, bool small)
{
	uint32_t blk = i / 64, r = rnd();
	if (blk % 7 == 3)
		return i % 2 ? 0x80000000u : 0; // a block of zeros (and -0.0)
	if (blk % 7 == 5)
		return (r & 0x807fffffu) | 1; // a block of subnormals
	switch (r % 23) {
	case 0:
		return 0;
	case 1:
		return 0x80000000u;
	case 2:
		return r & 0x807fffffu; // subnormal
	case 3:
		return blk % 3 == 1 ? 0x7fc00000u | (r & 0x3fffffu)
				    : 0x3f800000u; // NaN in some blocks
	case 4:
		return blk % 4 == 2 ? 0xff800000u : 0xbf000000u; // -Inf in some blocks
	case 5:
		return (r & 0x80000000u) | (0x7e800000u + (r & 0xffffffu)); // >= 2^126
	default:
		break;
	}
	uint32_t e = small ? 100 + r % 20 : 90 + r % 60;
	return (r & 0x80000000u) | e << 23 | (rnd() & 0x7fffffu);
}

quire_cmd codec(uint32_t seq, uint8_t opcode, uint16_t fmt, uint32_t n)
{
	quire_cmd c = nop(seq);
	c.opcode = opcode;
	c.format = fmt;
	c.count = n;
	c.src = kIova + kSrc;
	c.dst = kIova + kDst;
	c.exp = kIova + kExp;
	return c;
}

// One engine descriptor on both cards from the same host memory image (at kSrc): the two
// completions, the engine's cycles on the RTL card (its ENGINES record), and the bytes of the
// data area that differ between the cards afterwards.
struct Both {
	bool got;
	quire_cpl rc, ec;
	uint64_t cycles;
	uint32_t diff, first;
};

Both run_on_both(Host &rh, Host &eh, const quire_cmd &cmd, const std::vector<uint8_t> &image,
		 uint32_t engine)
{
	for (Host *h : {&rh, &eh})
		std::memcpy(h->card.host() + kSrc, image.data(), image.size());
	uint32_t rec = rh.engines + QUIRE_ENG_RECORD(engine - 1) + QUIRE_ENG_CYCLES;
	uint32_t c0 = rh.card.rd(rec);
	Both r{};
	rh.submit(cmd);
	eh.submit(cmd);
	r.got = rh.reap(r.rc) && eh.reap(r.ec);
	r.cycles = rh.card.rd(rec) - c0;
	for (uint32_t i = kSrc; i < kDataEnd; i++) {
		if (rh.card.host()[i] != eh.card.host()[i] && !r.diff++)
			r.first = i;
	}
	return r;
}

// One codec command on both cards from the same host memory: the completions and every
// byte of the data area (outputs, residuals, exponents, and nothing else written) equal.
void codec_case(Host &rh, Host &eh, const char *what, quire_cmd cmd, uint64_t &quant_cycles)
{
	std::vector<uint8_t> image(kDataEnd - kSrc);
	uint32_t n = cmd.count;
	for (uint32_t i = 0; i < image.size(); i++)
		image[i] = 0xa5;
	auto put32 = [&](uint32_t off, uint32_t v) { std::memcpy(&image[off - kSrc], &v, 4); };
	if (cmd.opcode == QUIRE_OPC_DECODE) {
		for (uint32_t i = 0; i < 4 * n && kSrc + i < kAux; i += 4)
			put32(kSrc + i,
			      rnd() % 5 == 0 ? edgy(i, false) : rnd() % 9 - 4 + (rnd() & 0x1ff));
	} else {
		// NaNs with payloads in x and in the residuals: with a finite shared exponent
		// over them (a host's bad exponent) the residual is a NaN, whose bits the RTL
		// adder gives as x86 does (the first NaN operand quieted; Inf - Inf 0xffc00000).
		for (uint32_t i = 0; i < n; i++)
			put32(kSrc + 4 * i, edgy(i, false));
		for (uint32_t i = 0; i < n; i++)
			put32(kAux + 4 * i,
			      i % 97 == 5 ? edgy(i, true) : edgy(i, true) & 0xbfffffffu);
	}
	for (uint32_t b = 0; b < (n + 63) / 64 + 64; b++) { // exponents: valid, ZERO, NONFINITE
		int8_t e =
		    int8_t(rnd() % 8 == 0 ? (rnd() % 2 ? -126 : 127) : int(rnd() % 252) - 125);
		image[kExp - kSrc + b] = uint8_t(e);
	}
	if (cmd.reserved[0]) { // a bad exponent (below ZERO) for the engine to refuse
		image[kExp - kSrc + cmd.reserved[0] - 1] = 0x81;
		cmd.reserved[0] = 0;
	}
	Both r = run_on_both(rh, eh, cmd, image, QUIRE_ENGINE_QUANT);
	quant_cycles = r.cycles;
	if (r.diff && std::getenv("QUIRE_TEST_DEBUG")) {
		uint32_t w = r.first & ~3u, x, rv, e, xs;
		std::memcpy(&rv, rh.card.host() + w, 4);
		std::memcpy(&e, eh.card.host() + w, 4);
		std::memcpy(&xs, &image[w - kSrc], 4);
		std::memcpy(&x, &image[kSrc - kSrc + (w - kAux)], 4);
		std::printf("     at 0x%" PRIx32 ": rtl 0x%08" PRIx32 " emu 0x%08" PRIx32
			    " (before 0x%08" PRIx32 ", x 0x%08" PRIx32 ", exp %d)\n",
			    w, rv, e, xs, x, int(int8_t(image[kExp - kSrc + (w - kAux) / 256])));
	}
	char line[512];
	std::snprintf(line, sizeof line,
		      "%s (n %" PRIu32 "): rtl %s; %" PRIu32 " bytes differ (first 0x%" PRIx32 ")",
		      what, n, describe(r.rc).c_str(), r.diff, r.first);
	check(r.got && same(r.rc, r.ec) && r.diff == 0,
	      r.diff || !same(r.rc, r.ec) ? std::string(line) + "; emu " + describe(r.ec) : line);
}

void codec_tests(Host &rh, Host &eh)
{
	uint64_t qc = 0;
	uint32_t seq = 100;
	quire_cmd c;
	c = codec(seq++, QUIRE_OPC_EXPONENTS, QUIRE_FMT_BFP8, 1000);
	c.dst = 0;
	codec_case(rh, eh, "EXPONENTS bfp8", c, qc);
	c = codec(seq++, QUIRE_OPC_EXPONENTS, QUIRE_FMT_BFP16, 777);
	c.dst = 0;
	c.flags = QUIRE_CMD_F_EF;
	c.aux = kIova + kAux;
	codec_case(rh, eh, "EXPONENTS bfp16 with error feedback", c, qc);
	for (uint16_t fmt : {uint16_t(QUIRE_FMT_BFP8), uint16_t(QUIRE_FMT_BFP16)}) {
		const char *name = fmt == QUIRE_FMT_BFP8 ? "bfp8" : "bfp16";
		c = codec(seq++, QUIRE_OPC_ENCODE, fmt, 1001);
		codec_case(rh, eh, (std::string("ENCODE ") + name).c_str(), c, qc);
		c = codec(seq++, QUIRE_OPC_ENCODE, fmt, 999);
		c.flags = QUIRE_CMD_F_EF;
		c.aux = kIova + kAux;
		codec_case(rh, eh, (std::string("ENCODE ") + name + " with error feedback").c_str(),
			   c, qc);
		c = codec(seq++, QUIRE_OPC_ENCODE, fmt, 640);
		c.flags = QUIRE_CMD_F_EF | QUIRE_CMD_F_SHARED_EXP;
		c.aux = kIova + kAux;
		codec_case(
		    rh, eh,
		    (std::string("ENCODE ") + name + " with shared exponents and error feedback")
			.c_str(),
		    c, qc);
	}
	c = codec(seq++, QUIRE_OPC_ENCODE, QUIRE_FMT_FP16, 1003);
	c.exp = 0;
	codec_case(rh, eh, "ENCODE fp16", c, qc);
	const struct {
		uint16_t fmt, vf, workers;
		const char *what;
	} dec[] = {
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 0, "DECODE bfp8 of int8"},
	    {QUIRE_FMT_BFP16, QUIRE_FMT_INT16, 1, "DECODE bfp16 of int16"},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT32, 1, "DECODE bfp8 of int32 sums"},
	    {QUIRE_FMT_FP16, QUIRE_FMT_FP16, 0, "DECODE fp16"},
	    // The mean (y / (float)workers, quire_card_mean.sv): divisors even, odd,
	    // a power of two and the largest, results down in the subnormals.
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT32, 8, "DECODE bfp8 of int32 sums, mean of 8"},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT16, 3, "DECODE bfp8 of int16 sums, mean of 3"},
	    {QUIRE_FMT_BFP16, QUIRE_FMT_INT32, 7, "DECODE bfp16 of int32 sums, mean of 7"},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT32, 1000, "DECODE bfp8 of int32 sums, mean of 1000"},
	    {QUIRE_FMT_BFP16, QUIRE_FMT_INT32, QUIRE_CMD_MAX_WORKERS,
	     "DECODE bfp16 of int32 sums, mean of QUIRE_CMD_MAX_WORKERS"},
	    {QUIRE_FMT_FP16, QUIRE_FMT_FP16, 6, "DECODE fp16, mean of 6"}};
	for (const auto &d : dec) {
		c = codec(seq++, QUIRE_OPC_DECODE, d.fmt, 1005);
		c.val_format = d.vf;
		c.workers = d.workers;
		if (d.fmt == QUIRE_FMT_FP16)
			c.exp = 0;
		codec_case(rh, eh, d.what, c, qc);
	}
	// Malformed engine arguments: an exponent below ZERO, refused by the engine.
	c = codec(seq++, QUIRE_OPC_ENCODE, QUIRE_FMT_BFP8, 500);
	c.flags = QUIRE_CMD_F_SHARED_EXP;
	c.reserved[0] = 1 + 6;
	codec_case(rh, eh, "ENCODE with a shared exponent below ZERO (engine: RANGE)", c, qc);
	c = codec(seq++, QUIRE_OPC_DECODE, QUIRE_FMT_BFP16, 300);
	c.val_format = QUIRE_FMT_INT16;
	c.reserved[0] = 1 + 4;
	codec_case(rh, eh, "DECODE with an exponent below ZERO (engine: RANGE)", c, qc);
	// Throughput: 40 Ki elements (160 KiB of fp32), two chunks of the firmware's pipeline: the
	// second run's arguments are written while the first runs (the engine takes them at its
	// START).
	const uint32_t big = 40960;
	c = codec(seq++, QUIRE_OPC_ENCODE, QUIRE_FMT_BFP8, big);
	c.flags = QUIRE_CMD_F_EF;
	c.aux = kIova + kAux;
	codec_case(rh, eh, "ENCODE bfp8 with error feedback, 160 KiB", c, qc);
	std::printf("     QUANT engine, ENCODE bfp8 with EF (exponents + encode): %" PRIu64
		    " cycles, %" PRIu64 " cycles per MiB of fp32 input\n",
		    qc, uint64_t(qc * (1u << 20) / (4ull * big)));
}

// ---- REDUCE on the REDUCE engine: the firmware's descriptors (fw_op_reduce in firmware/pipe.c)
uint32_t fmt_bytes(uint32_t fmt)
{
	return fmt == QUIRE_FMT_INT8 ? 1 : fmt == QUIRE_FMT_INT16 || fmt == QUIRE_FMT_FP16 ? 2 : 4;
}

// An fp32 edge value: zeros of both signs, subnormals, the smallest and largest normals,
// +-Inf, NaNs with payloads (quiet and signalling), values whose sums overflow to Inf.
uint32_t fp32_edge()
{
	static const uint32_t edges[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu,
					 0x00400000u, 0x00800000u, 0x80800000u, 0x7f7fffffu,
					 0xff7fffffu, 0x7f000000u, 0x7f800000u, 0xff800000u,
					 0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xffbfffffu,
					 0x3f800000u, 0xbf800000u, 0x33800000u, 0x4b800000u};
	return edges[rnd() % (sizeof(edges) / sizeof(edges[0]))];
}

// An fp16 edge value, the same kinds.
uint32_t fp16_edge()
{
	static const uint16_t edges[] = {0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x7bff,
					 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01,
					 0x3c00, 0xbc00, 0x1400, 0x6800};
	return edges[rnd() % (sizeof(edges) / sizeof(edges[0]))];
}

// One input value of `fmt`: small (sums that fit), near the format's limits (sums that
// saturate), or any; fp inputs are ordinary floats (kind 0), edge values one in four
// (kind 1) or any bits (kind 2).
uint32_t reduce_value(uint32_t fmt, int kind)
{
	uint32_t r = rnd();
	if (fmt == QUIRE_FMT_FP32) {
		if (kind == 2)
			return rnd();
		if (kind == 1 && r % 4 == 0)
			return fp32_edge();
		return (r & 0x80000000u) | (110 + r % 30) << 23 | (rnd() & 0x7fffffu);
	}
	if (fmt == QUIRE_FMT_FP16) {
		if (kind == 2)
			return rnd() & 0xffffu;
		if (kind == 1 && r % 4 == 0)
			return fp16_edge();
		return (r & 0x8000u) | (5 + r % 20) << 10 | (rnd() & 0x3ffu);
	}
	uint32_t bits = 8 * fmt_bytes(fmt);
	uint32_t mask = bits == 32 ? ~0u : (1u << bits) - 1;
	int64_t top = (int64_t(1) << (bits - 1)) - 1;
	int64_t v;
	if (kind == 1) // near the limit, mostly of one sign
		v = r % 8 ? top - int64_t(rnd() % 64) : -top - 1 + int64_t(rnd() % 64);
	else if (kind == 2 || r % 16 == 0) // anything, the limits included
		v = r % 5 == 0 ? (r % 2 ? top : -top - 1)
			       : int64_t(int32_t(rnd()) & int32_t(mask)) -
				     (int64_t(rnd() & 1) << (bits - 1));
	else
		v = int64_t(rnd() % 201) - 100;
	return uint32_t(v) & mask;
}

// One REDUCE on both cards from the same host memory: W vectors `stride` bytes apart at
// src, the sums at dst. The completions and every byte of the data area equal.
void reduce_case(Host &rh, Host &eh, const char *what, uint16_t in_fmt, uint16_t acc_fmt,
		 uint32_t w, uint32_t n, uint32_t gap, int kind, uint64_t *cycles_out = nullptr)
{
	static uint32_t seq = 200;
	uint32_t in_b = fmt_bytes(in_fmt);
	quire_cmd cmd = nop(seq++);
	cmd.opcode = QUIRE_OPC_REDUCE;
	cmd.val_format = in_fmt;
	cmd.format = acc_fmt;
	cmd.count = n;
	cmd.workers = uint16_t(w);
	cmd.stride = w > 1 ? uint64_t(n) * in_b + gap * in_b : 0;
	cmd.src = kIova + kSrc;
	cmd.dst = kIova + kDst;
	std::vector<uint8_t> image(kDataEnd - kSrc, 0x5a);
	uint64_t span = w > 1 ? cmd.stride * (w - 1) + uint64_t(n) * in_b : uint64_t(n) * in_b;
	for (uint64_t off = 0; off < span; off += in_b) {
		uint32_t v = reduce_value(in_fmt, kind);
		std::memcpy(&image[off], &v, in_b);
	}
	Both r = run_on_both(rh, eh, cmd, image, QUIRE_ENGINE_REDUCE);
	if (cycles_out)
		*cycles_out = r.cycles;
	bool ok = r.got && same(r.rc, r.ec) && r.diff == 0;
	char line[512];
	std::snprintf(line, sizeof line,
		      "%s (W %" PRIu32 ", n %" PRIu32 "): rtl %s; %" PRIu32
		      " bytes differ (first 0x%" PRIx32 "), %" PRIu64 " engine cycles",
		      what, w, n, describe(r.rc).c_str(), r.diff, r.first, r.cycles);
	check(ok, ok ? std::string(line) : std::string(line) + "; emu " + describe(r.ec));
}

void reduce_tests(Host &rh, Host &eh)
{
	const uint16_t I8 = QUIRE_FMT_INT8, I16 = QUIRE_FMT_INT16, I32 = QUIRE_FMT_INT32;
	reduce_case(rh, eh, "REDUCE int8 -> int16", I8, I16, 4, 1000, 0, 0);
	reduce_case(rh, eh, "REDUCE int8 -> int32, inputs apart", I8, I32, 8, 777, 13, 2);
	reduce_case(rh, eh, "REDUCE int8 -> int16, one worker", I8, I16, 1, 613, 0, 2);
	reduce_case(rh, eh, "REDUCE int16 -> int32", I16, I32, 3, 1001, 5, 2);
	reduce_case(rh, eh, "REDUCE int16 -> int16", I16, I16, 2, 64, 0, 0);
	reduce_case(rh, eh, "REDUCE int32 -> int32", I32, I32, 5, 500, 1, 0);
	reduce_case(rh, eh, "REDUCE int16 -> int16 that saturates (OVERFLOW)", I16, I16, 8, 999, 0,
		    1);
	reduce_case(rh, eh, "REDUCE int32 -> int32 that saturates (OVERFLOW)", I32, I32, 7, 129, 3,
		    1);
	reduce_case(rh, eh, "REDUCE int8 -> int16 of any int8, W 8", I8, I16, 8, 4099, 0, 2);
	// The fixed-order fp sums: seeded floats, then edge values (zeros, subnormals, NaN
	// payloads, Inf, overflow to Inf, Inf - Inf), then any bits; partial last beats.
	const uint16_t F16 = QUIRE_FMT_FP16, F32 = QUIRE_FMT_FP32;
	reduce_case(rh, eh, "REDUCE fp32 -> fp32", F32, F32, 2, 300, 0, 0);
	reduce_case(rh, eh, "REDUCE fp32 -> fp32, edge values, inputs apart", F32, F32, 8, 1001, 7,
		    1);
	reduce_case(rh, eh, "REDUCE fp32 -> fp32, any bits", F32, F32, 5, 517, 0, 2);
	reduce_case(rh, eh, "REDUCE fp16 -> fp32", F16, F32, 3, 999, 2, 0);
	reduce_case(rh, eh, "REDUCE fp16 -> fp32, edge values", F16, F32, 8, 1025, 0, 1);
	reduce_case(rh, eh, "REDUCE fp16 -> fp32, any bits, one worker", F16, F32, 1, 95, 0, 2);
	// An fp16 accumulator is the engine's, but the firmware refuses it (both cards alike).
	reduce_case(rh, eh, "REDUCE fp32 -> fp16 (FORMAT)", F32, F16, 4, 333, 0, 1);
	// Throughput: 4 workers of 64 Ki int8 (256 KiB of input) into int16.
	const uint32_t big = 65536;
	uint64_t rc = 0;
	reduce_case(rh, eh, "REDUCE int8 -> int16, 256 KiB of input", I8, I16, 4, big, 0, 0, &rc);
	std::printf("     REDUCE engine, int8 -> int16, W 4: %" PRIu64 " cycles, %" PRIu64
		    " cycles per MiB of input\n",
		    rc, uint64_t(rc * (1u << 20) / (4ull * big)));
}

// ---- MLP on the MLP engine: the firmware's descriptors (op_mlp_load, op_mlp_score)

// A model image of random values (include/quire/mlp.h), sealed with its CRC.
std::vector<uint8_t> mlp_image(uint32_t layers, const uint32_t *width)
{
	std::vector<uint8_t> v(QUIRE_MLP_HEADER_BYTES);
	auto put = [&](uint32_t x, unsigned bytes) {
		for (unsigned k = 0; k < bytes; k++)
			v.push_back(uint8_t(x >> 8 * k));
	};
	auto pad = [&]() {
		while (v.size() % 4)
			v.push_back(0);
	};
	for (uint32_t l = 0; l < layers; l++) {
		uint32_t in = width[l], out = width[l + 1];
		for (uint32_t k = 0; k < in * out; k++)
			v.push_back(uint8_t(rnd()));
		pad();
		for (uint32_t o = 0; o < out; o++)
			put(uint32_t(int32_t(rnd() % 2000001) - 1000000), 4);
		if (l + 1 < layers) {
			for (uint32_t o = 0; o < out; o++)
				put(0x40000000u + rnd() % 0x40000000u, 4);
			for (uint32_t o = 0; o < out; o++)
				put(rnd() % 8 == 0 ? rnd() % 63 : 30 + rnd() % 16, 1);
			pad();
		}
	}
	auto at = [&](uint32_t off, uint32_t x, unsigned bytes) {
		for (unsigned k = 0; k < bytes; k++)
			v[off + k] = uint8_t(x >> 8 * k);
	};
	uint32_t payload = uint32_t(v.size()) - QUIRE_MLP_HEADER_BYTES;
	at(QUIRE_MLP_HDR_MAGIC, QUIRE_MLP_MAGIC, 4);
	at(QUIRE_MLP_HDR_VERSION, QUIRE_MLP_VERSION, 2);
	at(QUIRE_MLP_HDR_LAYERS, layers, 2);
	for (uint32_t l = 0; l <= layers; l++)
		at(QUIRE_MLP_HDR_WIDTH + 2 * l, width[l], 2);
	at(QUIRE_MLP_HDR_PAYLOAD_BYTES, payload, 4);
	at(QUIRE_MLP_HDR_PAYLOAD_CRC, quire_crc32(0, v.data() + QUIRE_MLP_HEADER_BYTES, payload),
	   4);
	return v;
}

// One MLP descriptor on both cards from the same host memory (filled by `fill`): the
// completions (status, detail, the choice in result) and every byte of the data area equal.
uint64_t mlp_case(Host &rh, Host &eh, const char *what, const quire_cmd &cmd,
		  const std::vector<uint8_t> &image, uint32_t *cmd_cycles = nullptr)
{
	Both r = run_on_both(rh, eh, cmd, image, QUIRE_ENGINE_MLP);
	if (cmd_cycles)
		*cmd_cycles = r.rc.cycles;
	char line[512];
	std::snprintf(line, sizeof line,
		      "%s: rtl %s; %" PRIu32 " bytes differ (first 0x%" PRIx32 "), %" PRIu64
		      " engine cycles",
		      what, describe(r.rc).c_str(), r.diff, r.first, r.cycles);
	bool ok = r.got && same(r.rc, r.ec) && r.diff == 0;
	check(ok, ok ? std::string(line) : std::string(line) + "; emu " + describe(r.ec));
	return r.cycles;
}

quire_cmd mlp_load(uint32_t seq, uint32_t len)
{
	quire_cmd c = nop(seq);
	c.opcode = QUIRE_OPC_MLP_LOAD;
	c.count = len;
	c.src = kIova + kSrc;
	return c;
}

// SCORE of c candidates: features at src, feasibility bytes at aux (`feasible_pct` of
// them nonzero), scores at dst; the rest of the area holds 0x3c.
uint64_t mlp_score(Host &rh, Host &eh, const char *what, uint32_t seq, uint32_t n0, uint32_t c,
		   uint32_t feasible_pct, uint32_t *cmd_cycles = nullptr)
{
	std::vector<uint8_t> area(kDataEnd - kSrc, 0x3c);
	for (uint32_t i = 0; i < c * n0; i++)
		area[i] = uint8_t(rnd() % 9 == 0 ? (rnd() % 2 ? 0x80 : 0x7f) : rnd());
	for (uint32_t k = 0; k < c; k++)
		area[kAux - kSrc + k] = rnd() % 100 < feasible_pct ? uint8_t(1 + rnd() % 255) : 0;
	quire_cmd cmd = nop(seq);
	cmd.opcode = QUIRE_OPC_MLP_SCORE;
	cmd.count = c;
	cmd.src = kIova + kSrc;
	cmd.aux = kIova + kAux;
	cmd.dst = kIova + kDst;
	return mlp_case(rh, eh, what, cmd, area, cmd_cycles);
}

// What a command moves in the BAR besides its completion: the counters, the interrupts
// raised, the queues' indices (once the last command's PRODUCER and IRQ, which follow its
// record, have come).
std::vector<uint32_t> bookkeeping(Host &h)
{
	for (int i = 0; i < 500; i++)
		h.card.wait();
	return {h.card.rd(h.counters + QUIRE_CNT_CMDS_OK),
		h.card.rd(h.counters + QUIRE_CNT_CMDS_ERR),
		h.card.rd(h.counters + QUIRE_CNT_DMA_BYTES_LO),
		h.card.rd(h.counters + QUIRE_CNT_DMA_BYTES_HI),
		h.card.rd(h.irq + QUIRE_IRQ_COUNT),
		h.card.rd(h.cmdq + QUIRE_Q_CONSUMER),
		h.card.rd(h.cplq + QUIRE_Q_PRODUCER)};
}

// A backlog of NOPs (the firmware's) and SCOREs (the queue engine's, with a 16-input model
// loaded) posted at once, so a descriptor is fetched while the firmware still posts the
// completion of the one before: every completion in order and as the emu's, and every
// score written where the emu writes it.
void score_backlog(Host &rh, Host &eh, uint32_t &seq)
{
	const char pattern[] = "NSNNSSNSNNSSSN"; // 14 of the ring's 16 slots
	std::vector<uint8_t> area(kDataEnd - kSrc, 0x3c);
	for (uint32_t i = 0; i < 8 * 16; i++)
		area[i] = uint8_t(rnd());
	for (uint32_t k = 0; k < 8; k++)
		area[kAux - kSrc + k] = uint8_t(k % 3 ? 1 : 0);
	for (Host *h : {&rh, &eh})
		std::memcpy(h->card.host() + kSrc, area.data(), area.size());
	std::vector<quire_cmd> cmds;
	for (uint32_t i = 0; pattern[i]; i++) {
		quire_cmd c = nop(seq++);
		if (pattern[i] == 'S') {
			c.opcode = QUIRE_OPC_MLP_SCORE;
			c.count = 8;
			c.src = kIova + kSrc;
			c.aux = kIova + kAux;
			c.dst = kIova + kDst + 64 * i; // each its own scores
		}
		cmds.push_back(c);
	}
	for (Host *h : {&rh, &eh})
		for (const quire_cmd &c : cmds)
			h->submit(c);
	bool ok = true;
	std::string first;
	for (size_t i = 0; i < cmds.size(); i++) {
		quire_cpl rc, ec;
		bool got = rh.reap(rc) && eh.reap(ec);
		bool good = got && same(rc, ec) && rc.seq == cmds[i].seq && rc.status == QUIRE_OK;
		if (!good && ok)
			first = "; first wrong: #" + std::to_string(i) + " rtl " + describe(rc) +
				"; emu " + describe(ec);
		ok = ok && good;
		if (!got)
			break;
	}
	uint32_t diff = 0;
	for (uint32_t i = kSrc; i < kDataEnd; i++)
		diff += rh.card.host()[i] != eh.card.host()[i];
	check(ok && diff == 0, "MLP SCOREs and NOPs posted at once (" + std::string(pattern) +
				   "): completions in order as the emu's, " + std::to_string(diff) +
				   " bytes of scores differ" + first);
}

void mlp_tests(Host &rh, Host &eh)
{
	uint32_t seq = 300;
	uint32_t refused = 0;
	// The RTL card's queue engine serves the SCOREs it can itself; the counters, interrupts
	// and indices move on both cards by the same amounts (checked at the end).
	std::vector<uint32_t> r0 = bookkeeping(rh), e0 = bookkeeping(eh);
	mlp_score(rh, eh, "MLP SCORE before any LOAD (firmware: SHAPE)", seq++, 16, 4, 50,
		  &refused);
	// The command path alone: fetched, unpacked, validated, refused before anything moves.
	std::printf("     MLP SCORE refused by the firmware (SHAPE): %" PRIu32
		    " command cycles (fetch to completion)\n",
		    refused);
	const uint32_t w3[] = {40, 24, 12, 1};
	std::vector<uint8_t> img = mlp_image(3, w3);
	mlp_case(rh, eh, "MLP LOAD 40-24-12-1", mlp_load(seq++, uint32_t(img.size())), img);
	mlp_score(rh, eh, "MLP SCORE 40-24-12-1, 100 candidates", seq++, 40, 100, 40);
	mlp_score(rh, eh, "MLP SCORE 40-24-12-1, all infeasible (NO_FEASIBLE, scores written)",
		  seq++, 40, 37, 0);
	mlp_score(rh, eh, "MLP SCORE 40-24-12-1, one candidate", seq++, 40, 1, 100);
	// Corrupt images: the engine's statuses, and no model left behind.
	struct Bad {
		const char *what;
		uint32_t at, xor_mask;
		bool reseal;
	} bad[] = {
	    {"MLP LOAD of a corrupt image: a weight flipped (CRC: CORRUPT)", 100, 0x04, false},
	    {"MLP LOAD of a corrupt image: bad magic (CORRUPT)", 0, 0xff, false},
	    {"MLP LOAD of a corrupt image: version 3 (VERSION)", QUIRE_MLP_HDR_VERSION, 2, false},
	    {"MLP LOAD of a corrupt image: 6 layers (SHAPE)", QUIRE_MLP_HDR_LAYERS, 5, false},
	    {"MLP LOAD of a corrupt image: a shift of 63 (RANGE)", 0, 0, true},
	};
	for (const Bad &b : bad) {
		std::vector<uint8_t> v = img;
		if (b.reseal) { // layer 0's first shift: after its weights, biases and multipliers
			uint32_t at = QUIRE_MLP_HEADER_BYTES + 40 * 24 + 4 * 24 + 4 * 24;
			v[at] = 63;
			uint32_t crc = quire_crc32(0, v.data() + QUIRE_MLP_HEADER_BYTES,
						   uint32_t(v.size()) - QUIRE_MLP_HEADER_BYTES);
			std::memcpy(&v[QUIRE_MLP_HDR_PAYLOAD_CRC], &crc, 4);
		} else {
			v[b.at] ^= uint8_t(b.xor_mask);
		}
		mlp_case(rh, eh, b.what, mlp_load(seq++, uint32_t(v.size())), v);
	}
	mlp_score(rh, eh, "MLP SCORE after a failed LOAD (firmware: SHAPE)", seq++, 40, 10, 50);
	// Throughput: 256-256-256-1 (131328 MACs a score) on 64 candidates, and 1024 small ones.
	const uint32_t wb[] = {256, 256, 256, 1};
	img = mlp_image(3, wb);
	mlp_case(rh, eh, "MLP LOAD 256-256-256-1", mlp_load(seq++, uint32_t(img.size())), img);
	uint64_t cyc =
	    mlp_score(rh, eh, "MLP SCORE 256-256-256-1, 64 candidates", seq++, 256, 64, 50);
	std::printf("     MLP engine, 256-256-256-1: %" PRIu64 " cycles for 64 scores, %" PRIu64
		    " cycles a score, %.1f MACs a cycle\n",
		    cyc, cyc / 64, 64.0 * 131328 / double(cyc ? cyc : 1));
	// The scheduler's shape (docs/sched-api.md): the engine's part of a decision's cycles
	// (START to DONE) and the command's (descriptor fetch to completion, the firmware's
	// count), for 1, 32 and 1024 candidates: what is fixed and what grows with c.
	// 17-64-32-1 and 17-128-1, the shapes the scheduler has shipped and considers.
	struct Sched {
		const char *name;
		uint32_t layers;
		uint32_t w[4];
	} sched[] = {{"17-64-32-1", 3, {17, 64, 32, 1}}, {"17-128-1", 2, {17, 128, 1, 0}}};
	for (const Sched &sh : sched) {
		img = mlp_image(sh.layers, sh.w);
		mlp_case(rh, eh, (std::string("MLP LOAD ") + sh.name).c_str(),
			 mlp_load(seq++, uint32_t(img.size())), img);
		for (uint32_t c : {1u, 32u, 1024u}) {
			uint32_t total = 0;
			std::string what = std::string("MLP SCORE ") + sh.name + ", " +
					   std::to_string(c) + " candidates";
			cyc = mlp_score(rh, eh, what.c_str(), seq++, 17, c, 60, &total);
			std::printf("     MLP %s, %" PRIu32 " candidates: %" PRIu32
				    " command cycles (fetch to completion), %" PRIu64
				    " of them the engine's (START to DONE)\n",
				    sh.name, c, total, cyc);
		}
		// Every GPU node of nodes-gpu.csv, 1,213 candidates: a decision of two commands,
		// 1,024 and 189 candidates (quire sched bench's), their cycles summed.
		uint32_t part[2] = {0, 0};
		uint64_t eng = 0;
		const uint32_t parts[2] = {1024, 189};
		for (int i = 0; i < 2; i++) {
			std::string what = std::string("MLP SCORE ") + sh.name + ", " +
					   std::to_string(parts[i]) + " of 1213 candidates";
			eng += mlp_score(rh, eh, what.c_str(), seq++, 17, parts[i], 60, &part[i]);
		}
		std::printf("     MLP %s, 1213 candidates: %" PRIu32
			    " command cycles (fetch to completion), %" PRIu64
			    " of them the engine's (START to DONE)\n",
			    sh.name, part[0] + part[1], eng);
	}
	// With a model loaded, an MLP_SCORE that breaks a rule is refused as the general path
	// refuses it (the firmware's quick path for scores passes it on): the status, the field
	// at fault, and nothing written.
	struct Refusal {
		const char *what;
		void (*spoil)(quire_cmd &);
		uint16_t status;
		uint32_t detail;
	} refusals[] = {
	    {"dst misaligned", [](quire_cmd &c) { c.dst += 2; }, QUIRE_ERR_ALIGN, QUIRE_DETAIL_DST},
	    {"src 0", [](quire_cmd &c) { c.src = 0; }, QUIRE_ERR_INVALID, QUIRE_DETAIL_SRC},
	    {"aux 0", [](quire_cmd &c) { c.aux = 0; }, QUIRE_ERR_INVALID, QUIRE_DETAIL_AUX},
	    {"no candidates", [](quire_cmd &c) { c.count = 0; }, QUIRE_ERR_SIZE,
	     QUIRE_DETAIL_COUNT},
	    {"too many candidates", [](quire_cmd &c) { c.count = QUIRE_MLP_MAX_CANDIDATES + 1; },
	     QUIRE_ERR_SIZE, QUIRE_DETAIL_COUNT},
	    {"a reserved word", [](quire_cmd &c) { c.reserved[1] = 1; }, QUIRE_ERR_INVALID,
	     QUIRE_DETAIL_RESERVED},
	    {"flags", [](quire_cmd &c) { c.flags = QUIRE_CMD_F_EF; }, QUIRE_ERR_INVALID,
	     QUIRE_DETAIL_FLAGS},
	    {"a format", [](quire_cmd &c) { c.format = QUIRE_FMT_INT8; }, QUIRE_ERR_INVALID,
	     QUIRE_DETAIL_FORMAT},
	    {"workers", [](quire_cmd &c) { c.workers = 2; }, QUIRE_ERR_INVALID,
	     QUIRE_DETAIL_WORKERS},
	    {"exp", [](quire_cmd &c) { c.exp = c.src; }, QUIRE_ERR_INVALID, QUIRE_DETAIL_EXP},
	    {"stride", [](quire_cmd &c) { c.stride = 8; }, QUIRE_ERR_INVALID, QUIRE_DETAIL_STRIDE},
	    {"dst wrapping around", [](quire_cmd &c) { c.dst = ~0ull - 3; }, QUIRE_ERR_RANGE,
	     QUIRE_DETAIL_DST},
	    {"aux past the host window", [](quire_cmd &c) { c.aux = kIova + kHostBytes - 4; },
	     QUIRE_ERR_RANGE, QUIRE_DETAIL_AUX},
	    {"dst below the host window", [](quire_cmd &c) { c.dst = kIova - 64; }, QUIRE_ERR_RANGE,
	     QUIRE_DETAIL_DST},
	    {"features past the host window",
	     [](quire_cmd &c) { c.src = kIova + kHostBytes - 17 * c.count + 1; }, QUIRE_ERR_RANGE,
	     QUIRE_DETAIL_SRC},
	};
	for (const Refusal &f : refusals) {
		std::vector<uint8_t> area(kDataEnd - kSrc, 0x3c);
		quire_cmd cmd = nop(seq++);
		cmd.opcode = QUIRE_OPC_MLP_SCORE;
		cmd.count = 8;
		cmd.src = kIova + kSrc;
		cmd.aux = kIova + kAux;
		cmd.dst = kIova + kDst;
		f.spoil(cmd);
		Both r = run_on_both(rh, eh, cmd, area, QUIRE_ENGINE_MLP);
		bool ok = r.got && same(r.rc, r.ec) && r.diff == 0 && r.rc.status == f.status &&
			  r.rc.detail == f.detail && r.cycles == 0;
		check(ok, std::string("MLP SCORE refused with a model loaded, ") + f.what +
			      ": rtl " + describe(r.rc) + "; emu " + describe(r.ec));
	}
	const uint32_t ws[] = {16, 8, 1};
	img = mlp_image(2, ws);
	mlp_case(rh, eh, "MLP LOAD 16-8-1", mlp_load(seq++, uint32_t(img.size())), img);
	cyc = mlp_score(rh, eh, "MLP SCORE 16-8-1, 1024 candidates", seq++, 16, 1024, 30);
	std::printf("     MLP engine, 16-8-1: %" PRIu64 " cycles a score\n", cyc / 1024);
	score_backlog(rh, eh, seq);
	std::vector<uint32_t> r1 = bookkeeping(rh), e1 = bookkeeping(eh);
	std::string moved;
	bool alike = true;
	for (size_t i = 0; i < r1.size(); i++) {
		alike = alike && r1[i] - r0[i] == e1[i] - e0[i];
		moved += (i ? " " : "") + std::to_string(r1[i] - r0[i]) + "/" +
			 std::to_string(e1[i] - e0[i]);
	}
	check(alike, "MLP commands: CMDS_OK, CMDS_ERR, DMA_BYTES lo and hi, IRQ COUNT, CONSUMER, "
		     "PRODUCER moved alike on both cards (rtl/emu): " +
			 moved);
}

// The bare-metal DMA program: host memory holds byte i = (i * 7 + 3) & 0xff. When it asks
// (CARD_DMA_ASK_EPOCH on the console), the host moves the queue epoch on, by a write of the
// command queue's CTRL. Then the rate of its queue: the cycles it counted, against the
// cycles the link needs for the bytes at its rate.
void dma_program(const char *elf)
{
	quire_rtl::CardHarness card(kIova, CARD_DMA_HOST_BYTES);
	uint8_t *host = card.host();
	for (uint32_t i = 0; i < CARD_DMA_HOST_BYTES; i++)
		host[i] = uint8_t(i * 7 + 3);
	std::string error;
	uint32_t code = 0;
	bool ran = card.boot(elf, error), exited = false, epoch_moved = false;
	while (ran && !exited && card.cycles() < kRtlCycleLimit) {
		exited = card.run_to_exit(epoch_moved ? kRtlCycleLimit : 1, code);
		if (!epoch_moved && card.console().find(CARD_DMA_ASK_EPOCH) != std::string::npos) {
			auto read = [](void *c, uint32_t offset) {
				return static_cast<quire_rtl::CardHarness *>(c)->bar_read(offset);
			};
			quire_regblock_chain chain;
			uint32_t cmdq = 0;
			if (quire_regblock_walk(read, &card, &chain) != QUIRE_OK ||
			    quire_regblock_find(&chain, QUIRE_RB_TYPE_CMDQ, QUIRE_RB_CMDQ_VERSION,
						&cmdq) != QUIRE_OK)
				break; /* no CMDQ block: the program waits in vain */
			card.bar_write(cmdq + QUIRE_Q_CTRL, 0);
			epoch_moved = true;
		}
	}
	bool host_ok = true; // its unaligned transfer to host +0x1002 of host bytes 1..37
	for (uint32_t i = 0; i < 37; i++)
		host_ok = host_ok && host[0x1002 + i] == uint8_t((1 + i) * 7 + 3);
	char line[512];
	std::snprintf(line, sizeof line,
		      "the DMA mover driven directly (%s): check order, window and memory edges, "
		      "unaligned moves, two channels, queues of posted transfers and their counts, "
		      "a refused one among them, a full queue, an epoch moved on; block exponents "
		      "on the way in against the golden model's, and their refusals; crt0.S's "
		      "handler of its 2 access faults: sim-exit %" PRIu32 " after %" PRIu64
		      " cycles, %" PRIu64 " traps",
		      elf, code, card.cycles(), card.traps());
	bool ok = ran && exited && code == 0;
	check(ok && host_ok && card.traps() == 2 && card.stray_host_accesses() == 0,
	      ran ? line : "the DMA program did not run: " + error);
	if (!ok)
		return;
	// The rate: the copy back to the host byte for byte, and the cycles of each direction
	// against the link's least for the bytes. A queue that keeps the link busy pays the
	// link's latency about once for all its transfers; one transfer at a time pays it (and
	// the core's turn-around) for each, so less than half a latency a transfer is allowed.
	const uint32_t bytes = CARD_DMA_RATE_COUNT * CARD_DMA_RATE_BYTES;
	bool copied = std::memcmp(host + CARD_DMA_RATE_TO_HOST, host, bytes) == 0;
	uint32_t figures[2];
	std::memcpy(figures, host + CARD_DMA_FIGURES, sizeof figures);
	const double per_cycle = card.host_link_gbs() * 1e9 / card.bar_read(QUIRE_ID_CLOCK_HZ);
	const double least = bytes / per_cycle;
	const double allowed = least + CARD_DMA_RATE_COUNT * card.host_link_latency() / 2.0;
	std::snprintf(
	    line, sizeof line,
	    "DMA channel 0, %u transfers of %u KiB queued back to back: to the card %" PRIu32
	    " cycles, to the host %" PRIu32 " cycles; the link's least %.0f at %.1f GB/s "
	    "(%u cycles latency); copied back whole: %s",
	    CARD_DMA_RATE_COUNT, CARD_DMA_RATE_BYTES >> 10, figures[0], figures[1], least,
	    card.host_link_gbs(), card.host_link_latency(), copied ? "yes" : "no");
	check(copied && figures[0] < allowed && figures[1] < allowed, line);
}

// The bare-metal MLP program: its checks end in sim-exit 0, or the number of the one failed.
void mlp_program(const char *elf)
{
	quire_rtl::CardHarness card(kIova, kHostBytes);
	std::string error;
	uint32_t code = 0;
	bool ran = card.boot(elf, error) && card.run_to_exit(kRtlCycleLimit, code);
	char line[200];
	std::snprintf(
	    line, sizeof line,
	    "the MLP engine driven directly (%s): window, check order, ranges, a kept and "
	    "a dropped model, a scored network: sim-exit %" PRIu32 " after %" PRIu64 " cycles",
	    elf, code, card.cycles());
	check(ran && code == 0 && card.traps() == 0,
	      ran ? line : "the MLP program did not run: " + error);
}

// The bare-metal network program: the port's wire comes back to it, but for the
// destinations it uses to see a busy peer, no peer, a flipped bit and a short frame.
void net_program(const char *elf)
{
	quire_rtl::CardHarness card(kIova, kHostBytes);
	std::deque<std::vector<uint8_t>> wire;
	card.attach_net(7, [&wire](uint8_t *f, uint32_t len, bool &nobody) -> uint32_t {
		uint32_t dst = f[QUIRE_FRAME_OFF_ADDRS + 2] | uint32_t(f[QUIRE_FRAME_OFF_ADDRS + 3])
								  << 8;
		if (dst == 0xbeef)
			return QUIRE_ERR_BUSY;
		if (dst == 0xdead) {
			nobody = true;
			return QUIRE_OK;
		}
		std::vector<uint8_t> frame(f, f + len);
		if (dst == 0xc0de && len > QUIRE_FRAME_HDR_BYTES + 3)
			frame[QUIRE_FRAME_HDR_BYTES + 3] ^= 0x10;
		if (dst == 0x00b1)
			frame.pop_back();
		wire.push_back(std::move(frame));
		return QUIRE_OK;
	});
	std::string error;
	uint32_t code = 0;
	bool ran = card.boot(elf, error);
	bool exited = false;
	// A frame sent comes back the cycle after its send (the wire fed every cycle), so that
	// the program's back-to-back sends have a frame going each way at once.
	while (ran && !exited && card.cycles() < kRtlCycleLimit) {
		exited = card.run_to_exit(1, code);
		if (!wire.empty() && card.net_feed(wire.front()))
			wire.pop_front();
	}
	char line[300];
	std::snprintf(line, sizeof line,
		      "the network port's rings driven directly (%s): checks, CRC, wrap-around, a "
		      "full ring, bad frames dropped, truncation, counters: sim-exit %" PRIu32
		      " after %" PRIu64 " cycles",
		      elf, code, card.cycles());
	check(ran && exited && code == 0 && card.traps() == 0,
	      ran ? line : "the network program did not run: " + error);
	// Line rate: the largest frame (64 KiB of payload, 1025 beats) out and in a beat a
	// cycle, and, while the port sends it again, the copy before it coming in: a beat each
	// way in every cycle of the two but the few between the two frames.
	const quire_rtl::CardHarness::NetPace &pace = card.net_pace();
	const quire_rtl::CardHarness::NetSpan &tx = pace.tx, &rx = pace.rx;
	std::snprintf(line, sizeof line,
		      "the network port at a beat a cycle: the longest frame out %" PRIu64
		      " beats in %" PRIu64 " cycles, in %" PRIu64 " beats in %" PRIu64
		      " cycles; %" PRIu64 " cycles with a beat each way at once",
		      tx.beats, tx.cycles, rx.beats, rx.cycles, pace.both_ways);
	check(ran && exited && tx.beats == 1025 && tx.cycles == tx.beats && rx.beats == tx.beats &&
		  rx.cycles == rx.beats && pace.both_ways + 40 >= tx.beats,
	      line);
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 5) {
		std::fprintf(
		    stderr, "usage: %s FIRMWARE.elf [CARD_DMA.elf [CARD_MLP.elf [CARD_NET.elf]]]\n",
		    argv[0]);
		return 2;
	}
	auto rtl = std::make_unique<RtlCard>();
	std::string error;
	bool booted = rtl->harness.boot(argv[1], error);
	check(booted,
	      std::string("the firmware ELF loads into IMEM/DMEM") + (booted ? "" : ": " + error));
	if (!booted)
		return 1;
	// The ID block is at BAR offset 0 on both cards.
	const uint32_t rtl_caps = rtl->harness.bar_read(QUIRE_ID_CAPS);
	const uint32_t all_engines = QUIRE_CAP_CODEC | QUIRE_CAP_REDUCE | QUIRE_CAP_MLP;
	EmuCard emu(all_engines & ~rtl_caps);
	check(emu.ok(),
	      "the emu card starts (the reference), without the engines the RTL card lacks");
	if (!emu.ok())
		return 1;
	Host rh(*rtl), eh(emu);

	check(rh.walk() && eh.walk(), "the BAR chain walks: ID (magic), CMDQ, CPLQ, IRQ, COUNTERS");
	bool running = rh.wait_running();
	uint64_t boot_cycles = rtl->harness.cycles();
	char line[200];
	std::snprintf(line, sizeof line, "the firmware boots to RUNNING in %" PRIu64 " cycles",
		      boot_cycles);
	check(running, line);
	if (!running) {
		std::printf("    console: %s\n", rtl->harness.console().c_str());
		return 1;
	}
	check(eh.wait_running(), "the emu's firmware boots to RUNNING");
	const uint32_t id_regs[] = {QUIRE_ID_MAGIC, QUIRE_ID_IF_VERSION, QUIRE_ID_MEM_LO,
				    QUIRE_ID_MEM_HI, QUIRE_ID_CLOCK_HZ};
	bool id_same = true;
	for (uint32_t r : id_regs)
		id_same = id_same && rh.card.rd(rh.id + r) == eh.card.rd(eh.id + r);
	check(id_same, "ID magic, if_version, memory size and clock as the emu's");
	check(rh.card.rd(rh.id + QUIRE_ID_BOARD) == QUIRE_BOARD_SIM_RTL &&
		  eh.card.rd(eh.id + QUIRE_ID_BOARD) == QUIRE_BOARD_SIM,
	      "ID board: the RTL card's own (boards/sim-rtl.toml), the emu's the sim board");
	std::snprintf(line, sizeof line,
		      "ID caps: rtl 0x%" PRIx32 ", emu 0x%" PRIx32
		      " (the emu names no engine the RTL card lacks)",
		      rh.card.rd(rh.id + QUIRE_ID_CAPS), eh.card.rd(eh.id + QUIRE_ID_CAPS));
	check(rh.card.rd(rh.id + QUIRE_ID_CAPS) == eh.card.rd(eh.id + QUIRE_ID_CAPS), line);
	check(rh.start_queues() && eh.start_queues(), "both rings enabled (sim.c setup_queue)");

	// The NOP, timed from the doorbell to the completion record's phase word in host memory.
	quire_cpl rc, ec;
	uint64_t t0 = rtl->harness.cycles(), irqs0 = rtl->harness.irqs();
	uint64_t i0 = rtl->harness.instructions();
	rh.submit(nop(1));
	bool got = rh.reap(rc);
	uint64_t nop_cycles = rtl->harness.cycles() - t0;
	uint64_t nop_instructions = rtl->harness.instructions() - i0;
	eh.submit(nop(1));
	got = got && eh.reap(ec);
	check(got && rc.status == QUIRE_OK && rc.seq == 1 && rc.opcode == QUIRE_OPC_NOP &&
		  (rc.flags & QUIRE_CPL_F_PHASE) == 1 && same(rc, ec),
	      "NOP completes: " + describe(rc));
	std::snprintf(line, sizeof line,
		      "NOP round trip: %" PRIu64 " cycles, %" PRIu64
		      " instructions from doorbell to "
		      "completion, the first after the queues' setup; the firmware counts %" PRIu32
		      " from fetch on",
		      nop_cycles, nop_instructions, rc.cycles);
	check(got, line);
	rtl->harness.run(200); // the raise follows the record
	check(rtl->harness.irqs() > irqs0 && rh.card.rd(rh.irq + QUIRE_IRQ_STATUS) & QUIRE_IRQ_CPL,
	      "the completion raised IRQ_CPL, and the interrupt line pulsed");

	// INFO: the card's description into host memory.
	rh.submit(info(2, kIova + kData));
	eh.submit(info(2, kIova + kData));
	got = rh.reap(rc) && eh.reap(ec);
	quire_card_info ri, ei;
	std::memcpy(&ri, rh.card.host() + kData, sizeof ri);
	std::memcpy(&ei, eh.card.host() + kData, sizeof ei);
	check(got && rc.status == QUIRE_OK && same(rc, ec) && ri.magic == QUIRE_ID_MAGIC_VALUE &&
		  ri.if_version == ei.if_version && ri.mem_bytes == ei.mem_bytes &&
		  ri.clock_hz == ei.clock_hz && ri.cmds_ok == ei.cmds_ok &&
		  ri.cmds_err == ei.cmds_err,
	      "INFO completes and writes the card's description: " + describe(rc));

	// Malformed descriptors: the same status and detail as the emu's.
	struct Bad {
		const char *what;
		quire_cmd cmd;
	} bad[] = {
	    {"bad opcode", nop(3)},
	    {"INFO's dst outside the host window", info(4, kIova + kHostBytes)},
	    {"INFO's dst below the host window", info(5, kIova - 0x1000)},
	    {"a reserved word set", nop(6)},
	};
	bad[0].cmd.opcode = 0x7f;
	bad[3].cmd.reserved[1] = 1;
	for (const Bad &b : bad) {
		rh.submit(b.cmd);
		eh.submit(b.cmd);
		got = rh.reap(rc) && eh.reap(ec);
		check(got && rc.status != QUIRE_OK && same(rc, ec),
		      std::string(b.what) + ": rtl " + describe(rc) + "; emu " + describe(ec));
	}

	// Past the end of the rings: the records of the second pass carry phase 0.
	bool wrapped_same = true;
	uint32_t last_phase = 1;
	for (uint32_t seq = 10; seq < 10 + (1u << kRingLog2); seq++) {
		rh.submit(nop(seq));
		eh.submit(nop(seq));
		got = rh.reap(rc) && eh.reap(ec);
		wrapped_same =
		    wrapped_same && got && rc.status == QUIRE_OK && rc.seq == seq && same(rc, ec);
		last_phase = rc.flags & QUIRE_CPL_F_PHASE;
	}
	check(
	    wrapped_same && last_phase == 0,
	    "16 more NOPs wrap both rings: the second pass's records carry phase 0, as the emu's");

	check(missing_engines(rh, eh, rtl_caps) == 0,
	      "the RTL card names every engine: no command refused for one");
	codec_tests(rh, eh);
	reduce_tests(rh, eh);
	mlp_tests(rh, eh);

	// A completion ring outside the window: the DMA mover refuses the record (its own
	// window check), the firmware marks the queue BAD_RING and raises IRQ_ERROR.
	for (Host *h : {&rh, &eh}) {
		// The last completion's IRQ_CPL follows its record: let it come before clearing.
		for (int i = 0; i < 500; i++)
			h->card.wait();
		h->card.wr(h->irq + QUIRE_IRQ_STATUS, ~0u);
		h->setup_queue(h->cplq, kIova + kHostBytes + 0x1000);
		h->setup_queue(h->cmdq, kIova + kCmdRing);
		h->prod = 0;
		h->submit(nop(7));
		// BAD_RING first, then the raise: wait for both.
		for (int i = 0;
		     i < 5000 && !(h->card.rd(h->irq + QUIRE_IRQ_STATUS) & QUIRE_IRQ_ERROR); i++)
			h->card.wait();
	}
	uint32_t rs = rh.card.rd(rh.cplq + QUIRE_Q_STATUS),
		 es = eh.card.rd(eh.cplq + QUIRE_Q_STATUS);
	uint32_t ri_st = rh.card.rd(rh.irq + QUIRE_IRQ_STATUS),
		 ei_st = eh.card.rd(eh.irq + QUIRE_IRQ_STATUS);
	std::snprintf(line, sizeof line,
		      "a completion ring outside the window: CPLQ status 0x%" PRIx32
		      " IRQ status 0x%" PRIx32 " (emu 0x%" PRIx32 ", 0x%" PRIx32 ")",
		      rs, ri_st, es, ei_st);
	check((rs & QUIRE_Q_STATUS_BAD_RING) && rs == es && ri_st == ei_st, line);

	check(rtl->harness.traps() == 0, "the firmware never trapped");
	no_engine_card(argv[1]);
	if (argc >= 3)
		dma_program(argv[2]);
	if (argc >= 4)
		mlp_program(argv[3]);
	if (argc >= 5)
		net_program(argv[4]);
	check(rtl->harness.stray_host_accesses() == 0,
	      "the DMA mover never reached outside the window");
	std::printf("rtl card: boot %" PRIu64 " cycles, NOP round trip %" PRIu64 " cycles, %" PRIu64
		    " cycles in all\n",
		    boot_cycles, nop_cycles, rtl->harness.cycles());
	std::printf("rtl card: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
