// SPDX-License-Identifier: MIT
/*
 * quire_mlp (rtl/engines/) against quire_mlp_load and quire_mlp_score
 * (hls/mlp.c): model images checked with the same statuses (every header
 * field broken in turn, the CRC, values out of range, a load that fails after
 * a good one leaving no model), and candidates scored with the same scores,
 * status and choice, bit for bit: seeded random networks of 1 to 4 layers and
 * widths 1 to 256, and edge cases (saturating and zero requantization, the
 * largest biases and weights, shifts 0 and 62, M = 0, ties in the argmax, all
 * candidates infeasible, c = 1 and 1024, c = 0 and 1025). Prints the measured
 * MACs per cycle of the scoring (the MAC array: 8 candidates x 64 lanes).
 */
#include "Vquire_mlp.h"
#include "tb_common.h"

extern "C" {
#include "crc32.h"
#include "mlp.h"
}

namespace
{

// A network as an image is built from it.
struct Net {
	uint32_t layers = 0;
	uint32_t width[QUIRE_MLP_MAX_LAYERS + 1] = {0};
	std::vector<std::vector<int8_t>> w;  // [l][o * in + i]
	std::vector<std::vector<int32_t>> b; // [l][o]
	std::vector<std::vector<int32_t>> m; // [l][o]
	std::vector<std::vector<uint8_t>> s; // [l][o]
};

// How a random network's values are drawn.
enum Kind { ANY, SATURATE, ZERO, EXTREME };

void put16(std::vector<uint8_t> &v, size_t at, uint32_t x)
{
	v[at] = uint8_t(x);
	v[at + 1] = uint8_t(x >> 8);
}
void put32(std::vector<uint8_t> &v, size_t at, uint32_t x)
{
	for (int k = 0; k < 4; k++)
		v[at + k] = uint8_t(x >> 8 * k);
}

Net random_net(tb::Rng &rng, uint32_t layers, const uint32_t *widths, Kind kind)
{
	Net n;
	n.layers = layers;
	for (uint32_t l = 0; l <= layers; l++)
		n.width[l] = widths[l];
	const int32_t lim = QUIRE_MLP_BIAS_LIMIT - 1;
	for (uint32_t l = 0; l < layers; l++) {
		uint32_t in = n.width[l], out = n.width[l + 1];
		std::vector<int8_t> w(in * out);
		std::vector<int32_t> b(out), m(out);
		std::vector<uint8_t> s(out);
		for (int8_t &x : w)
			x = kind == ZERO      ? 0
			    : kind == EXTREME ? (rng.chance(50) ? -128 : 127)
					      : int8_t(rng.next());
		for (uint32_t o = 0; o < out; o++) {
			switch (kind) {
			case SATURATE: // large M, small s: most outputs clamp at 0 or 127
				b[o] = int32_t(rng.next() % 200001) - 100000;
				m[o] = int32_t(0x40000000u + rng.below(0x3fffffff));
				s[o] = uint8_t(rng.below(4));
				break;
			case ZERO:
				b[o] = 0;
				m[o] = rng.chance(50) ? 0 : int32_t(rng.next() & 0x7fffffffu);
				s[o] = uint8_t(rng.chance(50) ? 0 : 62);
				break;
			case EXTREME:
				b[o] = rng.chance(50) ? lim : -lim;
				m[o] = rng.chance(50) ? 0x7fffffff : 0;
				s[o] = uint8_t(rng.chance(50) ? 62 : rng.below(63));
				break;
			default: // values of a trained model: M in [2^30, 2^31), s near 38
				b[o] = int32_t(rng.next() % 2000001) - 1000000;
				m[o] = int32_t(0x40000000u + rng.below(0x40000000u));
				s[o] = uint8_t(30 + rng.below(16));
				if (rng.chance(5))
					s[o] = uint8_t(rng.below(63));
				break;
			}
		}
		n.w.push_back(w);
		n.b.push_back(b);
		n.m.push_back(m);
		n.s.push_back(s);
	}
	return n;
}

std::vector<uint8_t> image_of(const Net &n)
{
	uint32_t bytes = quire_mlp_image_bytes(n.layers, n.width);
	std::vector<uint8_t> v(bytes, 0);
	size_t p = QUIRE_MLP_HEADER_BYTES;
	for (uint32_t l = 0; l < n.layers; l++) {
		uint32_t in = n.width[l], out = n.width[l + 1];
		for (uint32_t k = 0; k < in * out; k++)
			v[p + k] = uint8_t(n.w[l][k]);
		p += (in * out + 3) & ~3u;
		for (uint32_t o = 0; o < out; o++)
			put32(v, p + 4 * o, uint32_t(n.b[l][o]));
		p += 4 * out;
		if (l + 1 < n.layers) {
			for (uint32_t o = 0; o < out; o++)
				put32(v, p + 4 * o, uint32_t(n.m[l][o]));
			p += 4 * out;
			for (uint32_t o = 0; o < out; o++)
				v[p + o] = n.s[l][o];
			p += (out + 3) & ~3u;
		}
	}
	put32(v, QUIRE_MLP_HDR_MAGIC, QUIRE_MLP_MAGIC);
	put16(v, QUIRE_MLP_HDR_VERSION, QUIRE_MLP_VERSION);
	put16(v, QUIRE_MLP_HDR_LAYERS, n.layers);
	for (uint32_t l = 0; l <= QUIRE_MLP_MAX_LAYERS; l++)
		put16(v, QUIRE_MLP_HDR_WIDTH + 2 * l, n.width[l]);
	put32(v, QUIRE_MLP_HDR_PAYLOAD_BYTES, bytes - QUIRE_MLP_HEADER_BYTES);
	put32(v, QUIRE_MLP_HDR_PAYLOAD_CRC,
	      quire_crc32(0, v.data() + QUIRE_MLP_HEADER_BYTES, bytes - QUIRE_MLP_HEADER_BYTES));
	return v;
}

void reseal(std::vector<uint8_t> &v)
{
	put32(v, QUIRE_MLP_HDR_PAYLOAD_CRC,
	      quire_crc32(0, v.data() + QUIRE_MLP_HEADER_BYTES,
			  uint32_t(v.size()) - QUIRE_MLP_HEADER_BYTES));
}

// The engine under test, with the golden model's state beside it.
struct Bench {
	Vquire_mlp m;
	struct quire_mlp_net *net = new quire_mlp_net();
	uint64_t cycle = 0;
	tb::Rng stalls{77};
	bool stall = false; // drop the handshakes at random

	Bench()
	{
		m.rst_ni = 0;
		m.clk_i = 0;
		m.eval();
		m.rst_ni = 1;
		m.eval();
	}
	~Bench()
	{
		delete net;
	}
	void tick()
	{
		m.eval();
		m.clk_i = 1;
		m.eval();
		m.clk_i = 0;
		m.eval();
		cycle++;
	}
	// Wait for done; false if it never comes.
	bool wait_done(uint64_t limit)
	{
		for (uint64_t t = 0; t < limit; t++) {
			m.eval();
			if (m.done_o)
				return true;
			tick();
		}
		return false;
	}

	// LOAD on both; the statuses (and the RTL's model size) compared.
	bool load(const std::vector<uint8_t> &img, uint32_t len, int &rtl, int &hls)
	{
		hls = quire_mlp_load(img.data(), len, net);
		m.load_len_i = len;
		m.load_start_i = 1;
		tick();
		m.load_start_i = 0;
		uint32_t beat = 0;
		uint64_t guard = 0;
		bool waiting = false; /* a beat offered stays offered until taken */
		for (;;) {
			bool offer = waiting || !stall || stalls.chance(70);
			for (unsigned k = 0; k < 64; k++) {
				size_t at = size_t(beat) * 64 + k;
				tb::put_bits(m.img_data_i, k, 8, at < img.size() ? img[at] : 0xee);
			}
			m.img_valid_i = offer;
			m.eval();
			if (m.done_o)
				break;
			bool took = offer && m.img_ready_o;
			waiting = offer && !took;
			tick();
			if (took)
				beat++;
			if (++guard > 4ull * len + 1000)
				return false;
		}
		m.img_valid_i = 0;
		rtl = int(m.status_o);
		tick();
		return true;
	}

	// SCORE on both: scores, status and choice compared; the RTL's cycles returned.
	uint64_t score(uint32_t c, const std::vector<int8_t> &feat,
		       const std::vector<uint8_t> &feas, uint64_t &mismatches, std::string &first)
	{
		std::vector<int32_t> want(c ? c : 1), got;
		uint32_t want_choice = ~0u;
		int want_st =
		    quire_mlp_score(net, c, feat.data(), feas.data(), want.data(), &want_choice);
		uint32_t n0 = m.width0_o, chunks = (n0 + 63) / 64;
		m.score_c_i = c;
		m.score_start_i = 1;
		uint64_t t0 = cycle;
		tick();
		m.score_start_i = 0;
		uint32_t k = 0, j = 0;
		bool waiting = false; /* a beat offered stays offered, the same, until taken */
		for (uint64_t guard = 0;; guard++) {
			if (guard > 4000000) {
				mismatches++;
				first = "stuck";
				return 0;
			}
			tb::Rng garbage((uint64_t(k) << 16 | j) + 5); /* past the candidates: per beat */
			for (unsigned lane = 0; lane < 64; lane++) {
				uint32_t i = 64 * j + lane;
				uint8_t v = k < c && i < n0 ? uint8_t(feat[size_t(k) * n0 + i])
							    : uint8_t(garbage.next());
				tb::put_bits(m.feat_data_i, lane, 8, v);
			}
			m.feat_feasible_i = k < c && feas[k] != 0;
			m.feat_valid_i = waiting || !stall || stalls.chance(70);
			m.score_ready_i = !stall || stalls.chance(70);
			m.eval();
			if (m.done_o)
				break;
			bool fed = m.feat_valid_i && m.feat_ready_o;
			waiting = m.feat_valid_i && !fed;
			if (m.score_valid_o && m.score_ready_i)
				got.push_back(int32_t(m.score_o));
			tick();
			if (fed && ++j == chunks) {
				j = 0;
				k++;
			}
		}
		uint64_t cycles = cycle - t0;
		int st = int(m.status_o);
		uint32_t choice = m.choice_o;
		m.feat_valid_i = 0;
		m.score_ready_i = 0;
		tick();
		char line[200];
		if (st != want_st) {
			std::snprintf(line, sizeof line, "status rtl %d, hls %d", st, want_st);
			mismatches++;
			first = line;
		}
		if (want_st == QUIRE_OK && choice != want_choice) {
			std::snprintf(line, sizeof line, "choice rtl %u, hls %u", choice,
				      want_choice);
			mismatches++;
			first = line;
		}
		if (want_st == QUIRE_OK || want_st == QUIRE_ERR_NO_FEASIBLE) {
			if (got.size() != c) {
				std::snprintf(line, sizeof line, "%zu scores, want %u", got.size(),
					      c);
				mismatches++;
				first = line;
			}
			for (uint32_t i = 0; i < c && i < got.size(); i++) {
				if (got[i] == want[i])
					continue;
				if (!mismatches++) {
					std::snprintf(line, sizeof line, "score %u: rtl %d, hls %d",
						      i, got[i], want[i]);
					first = line;
				}
			}
		} else if (!got.empty()) {
			mismatches++;
			first = "scores from a refused SCORE";
		}
		return cycles;
	}
};

uint64_t macs_of(const Net &n)
{
	uint64_t macs = 0;
	for (uint32_t l = 0; l < n.layers; l++)
		macs += uint64_t(n.width[l]) * n.width[l + 1];
	return macs;
}

// Features: random int8, the extremes, or zeros; feasibility at a given percent.
void candidates(tb::Rng &rng, const Net &n, uint32_t c, Kind kind, uint32_t feasible_pct,
		std::vector<int8_t> &feat, std::vector<uint8_t> &feas)
{
	feat.assign(size_t(c) * n.width[0] + 64, 0);
	feas.assign(c + 64, 0);
	for (size_t i = 0; i < size_t(c) * n.width[0]; i++)
		feat[i] = kind == ZERO      ? 0
			  : kind == EXTREME ? (rng.chance(50) ? -128 : 127)
					    : int8_t(rng.next());
	for (uint32_t k = 0; k < c; k++)
		feas[k] = rng.chance(feasible_pct) ? uint8_t(1 + rng.below(255)) : 0;
}

void load_check(tb::Tally &tally, Bench &b, const char *name, const std::vector<uint8_t> &img,
		uint32_t len)
{
	int rtl = -1, hls = -2;
	bool ran = b.load(img, len, rtl, hls);
	char line[200];
	std::snprintf(line, sizeof line, "%s (rtl status %d, hls %d)", name, rtl, hls);
	bool model_same = (b.m.layers_o != 0) == (b.net->layers != 0);
	tally.report(line, len, 0, (ran && rtl == hls && model_same) ? 0 : 1);
}

void score_check(tb::Tally &tally, Bench &b, const char *name, const Net &n, uint32_t c, Kind kind,
		 uint32_t feasible_pct, tb::Rng &rng, bool print_rate = false)
{
	std::vector<int8_t> feat;
	std::vector<uint8_t> feas;
	candidates(rng, n, c, kind, feasible_pct, feat, feas);
	uint64_t mismatches = 0;
	std::string first;
	uint64_t cycles = b.score(c, feat, feas, mismatches, first);
	if (mismatches)
		std::printf("  %s: %s\n", name, first.c_str());
	uint64_t macs = macs_of(n) * c;
	if (print_rate)
		std::printf("rtl mlp MACs: %s: %" PRIu64 " MACs in %" PRIu64
			    " cycles, %.2f MACs/cycle, %.1f cycles per score\n",
			    name, macs, cycles, double(macs) / double(cycles),
			    double(cycles) / double(c));
	tally.report(name, c, 0, mismatches);
}

// Load a network on both and score candidates of it.
void net_case(tb::Tally &tally, Bench &b, tb::Rng &rng, const char *name, uint32_t layers,
	      const uint32_t *widths, Kind kind, uint32_t c, Kind feat_kind, uint32_t feasible_pct,
	      bool print_rate = false)
{
	Net n = random_net(rng, layers, widths, kind);
	std::vector<uint8_t> img = image_of(n);
	std::string load_name = std::string(name) + ": LOAD";
	load_check(tally, b, load_name.c_str(), img, uint32_t(img.size()));
	score_check(tally, b, name, n, c, feat_kind, feasible_pct, rng, print_rate);
}

} // namespace

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	tb::Tally tally;
	tb::Rng rng(8);
	Bench b;

	// No model yet: SCORE is SHAPE; c is checked after.
	{
		Net none;
		score_check(tally, b, "mlp SCORE with no model (SHAPE)", none, 4, ANY, 50, rng);
	}

	const uint32_t w_big[] = {256, 256, 256, 1};
	const uint32_t w_small[] = {16, 8, 1};
	const uint32_t w_four[] = {100, 70, 130, 65, 1};
	const uint32_t w_one[] = {1, 1};
	const uint32_t w_wide1[] = {256, 1};
	const uint32_t w_odd[] = {3, 257 - 2, 5, 1};
	net_case(tally, b, rng, "mlp 16-8-1, c 100, random", 2, w_small, ANY, 100, ANY, 60);
	net_case(tally, b, rng, "mlp 100-70-130-65-1, c 50, random", 4, w_four, ANY, 50, ANY, 50);
	net_case(tally, b, rng, "mlp 1-1 (one weight), c 1024", 1, w_one, ANY, 1024, ANY, 50);
	net_case(tally, b, rng, "mlp 256-1, c 33, extreme weights and features", 1, w_wide1,
		 EXTREME, 33, EXTREME, 90);
	net_case(tally, b, rng, "mlp 3-255-5-1, c 77, saturating requantization", 3, w_odd,
		 SATURATE, 77, ANY, 50);
	net_case(tally, b, rng, "mlp 100-70-130-65-1, extreme biases, M, shifts 0..62", 4, w_four,
		 EXTREME, 40, EXTREME, 50);
	net_case(tally, b, rng, "mlp 16-8-1, zero weights (every score a bias: ties)", 2, w_small,
		 ZERO, 200, ANY, 50);
	net_case(tally, b, rng, "mlp 16-8-1, zero features, c 1", 2, w_small, ANY, 1, ZERO, 100);
	net_case(tally, b, rng, "mlp 16-8-1, all infeasible (NO_FEASIBLE)", 2, w_small, ANY, 64,
		 ANY, 0);
	net_case(tally, b, rng, "mlp 100-70-130-65-1, one feasible in 1024", 4, w_four, ANY, 1024,
		 ANY, 0);
	{
		// Ties: the same candidate repeated, some feasible; the lowest feasible index wins.
		Net n = random_net(rng, 2, w_small, ANY);
		std::vector<uint8_t> img = image_of(n);
		load_check(tally, b, "mlp 16-8-1 for ties: LOAD", img, uint32_t(img.size()));
		std::vector<int8_t> feat(16 * 40 + 64);
		std::vector<uint8_t> feas(40 + 64, 0);
		for (uint32_t k = 0; k < 40; k++)
			for (uint32_t i = 0; i < 16; i++)
				feat[16 * k + i] = int8_t((k % 4 == 1 ? 7 : 3) * (int(i) - 8));
		for (uint32_t k = 0; k < 40; k++)
			feas[k] = k >= 5 && k % 3 != 0;
		uint64_t mismatches = 0;
		std::string first;
		b.score(40, feat, feas, mismatches, first);
		if (mismatches)
			std::printf("  ties: %s\n", first.c_str());
		tally.report("mlp ties in the argmax (equal scores: the lowest feasible index)", 40,
			     0, mismatches);
		// c outside 1..1024 with a model: SIZE.
		for (uint32_t c : {0u, 1025u}) {
			mismatches = 0;
			b.score(c, feat, feas, mismatches, first);
			tally.report(c ? "mlp SCORE c 1025 (SIZE)" : "mlp SCORE c 0 (SIZE)", 0, 0,
				     mismatches);
		}
	}
	// Handshakes dropped at random: the same bits.
	b.stall = true;
	net_case(tally, b, rng, "mlp 100-70-130-65-1, c 30, stalls", 4, w_four, ANY, 30, ANY, 50);
	b.stall = false;
	// Seeded random shapes.
	for (int t = 0; t < 12; t++) {
		uint32_t layers = 1 + rng.below(4), widths[5] = {0};
		for (uint32_t l = 0; l < layers; l++)
			widths[l] = rng.chance(20) ? 256 : 1 + rng.below(256);
		widths[layers] = 1;
		char name[120];
		std::snprintf(name, sizeof name, "mlp random shape %d (L %u, n0 %u)", t, layers,
			      widths[0]);
		net_case(tally, b, rng, name, layers, widths, ANY, 1 + rng.below(60), ANY, 50);
	}

	// Narrow hidden layers (at most 21 inputs) pack 3 outputs into a row: the scheduler's
	// 17-128-1 and 17-64-32-1, outputs not a multiple of 3 (the row's last outputs absent),
	// 21 inputs (every segment full) and 256 outputs (the last row's o + 1 past the
	// memory's 256), 22 inputs (not packed), and a packed second hidden layer.
	{
		struct Packed {
			const char *name;
			uint32_t layers;
			uint32_t w[5];
			uint32_t c;
		} packed[] = {
		    {"mlp packed 17-128-1, c 32", 2, {17, 128, 1}, 32},
		    {"mlp packed 17-64-32-1, c 33", 3, {17, 64, 32, 1}, 33},
		    {"mlp packed 21-256-1, c 9", 2, {21, 256, 1}, 9},
		    {"mlp packed 21-254-1, c 17", 2, {21, 254, 1}, 17},
		    {"mlp packed 1-1-1, c 3", 2, {1, 1, 1}, 3},
		    {"mlp packed 5-7-2-20-1, c 20", 4, {5, 7, 2, 20, 1}, 20},
		    {"mlp not packed 22-5-1, c 10", 2, {22, 5, 1}, 10},
		};
		for (const Packed &p : packed)
			net_case(tally, b, rng, p.name, p.layers, p.w, ANY, p.c, ANY, 50);
	}

	// Corrupt images, each after a good load: the status, and no model left behind.
	// The image of 3-255-5-1: layer 0's weights at 32 (768 bytes), biases at 800,
	// multipliers at 1820, shifts at 2840; layer 1's weights at 3096, biases at 4372,
	// multipliers at 4392, shifts at 4412; layer 2 at 4420; 4432 bytes in all.
	{
		Net n = random_net(rng, 3, w_odd, ANY);
		const std::vector<uint8_t> good = image_of(n);
		tally.require("mlp 3-255-5-1 image layout", good.size() == 4432, "image size");
		struct Bad {
			const char *name;
			std::function<void(std::vector<uint8_t> &, uint32_t &)> spoil;
		} bad[] = {
		    {"bad magic", [](auto &v, auto &) { v[0] ^= 1; }},
		    {"version 2", [](auto &v, auto &) { put16(v, QUIRE_MLP_HDR_VERSION, 2); }},
		    {"flags set", [](auto &v, auto &) { put16(v, QUIRE_MLP_HDR_FLAGS, 1); }},
		    {"reserved set",
		     [](auto &v, auto &) { put32(v, QUIRE_MLP_HDR_RESERVED, 1u << 31); }},
		    {"0 layers", [](auto &v, auto &) { put16(v, QUIRE_MLP_HDR_LAYERS, 0); }},
		    {"5 layers", [](auto &v, auto &) { put16(v, QUIRE_MLP_HDR_LAYERS, 5); }},
		    {"65535 layers",
		     [](auto &v, auto &) { put16(v, QUIRE_MLP_HDR_LAYERS, 0xffff); }},
		    {"width 0", [](auto &v, auto &) { put16(v, QUIRE_MLP_HDR_WIDTH + 2, 0); }},
		    {"width 257", [](auto &v, auto &) { put16(v, QUIRE_MLP_HDR_WIDTH, 257); }},
		    {"last width 2", [](auto &v, auto &) { put16(v, QUIRE_MLP_HDR_WIDTH + 6, 2); }},
		    {"a width past the last layer",
		     [](auto &v, auto &) { put16(v, QUIRE_MLP_HDR_WIDTH + 8, 3); }},
		    {"payload_bytes off by 4",
		     [](auto &v, auto &) {
			     put32(v, QUIRE_MLP_HDR_PAYLOAD_BYTES, uint32_t(v.size()) - 28);
		     }},
		    {"len 4 short", [](auto &, auto &len) { len -= 4; }},
		    {"len 4 long", [](auto &, auto &len) { len += 4; }},
		    {"len 31 (below the header)", [](auto &, auto &len) { len = 31; }},
		    {"len 32 (the header only)", [](auto &, auto &len) { len = 32; }},
		    {"a weight flipped (CRC)", [](auto &v, auto &) { v[40] ^= 0x10; }},
		    {"the CRC flipped",
		     [](auto &v, auto &) { v[QUIRE_MLP_HDR_PAYLOAD_CRC + 3] ^= 0x80; }},
		    {"the last byte flipped (CRC)", [](auto &v, auto &) { v[v.size() - 1] ^= 1; }},
		    {"a bias of 2^30 (RANGE)",
		     [](auto &v, auto &) {
			     put32(v, 800 + 4 * 254, 1u << 30);
			     reseal(v);
		     }},
		    {"a bias of -2^30 (RANGE)",
		     [](auto &v, auto &) {
			     put32(v, 4372 + 4 * 2, uint32_t(-(1 << 30)));
			     reseal(v);
		     }},
		    {"a negative multiplier (RANGE)",
		     [](auto &v, auto &) {
			     put32(v, 1820 + 4 * 7, 0x80000000u);
			     reseal(v);
		     }},
		    {"a shift of 63 (RANGE)",
		     [](auto &v, auto &) {
			     v[2840 + 200] = 63;
			     reseal(v);
		     }},
		    {"a shift of 63 in the last hidden layer, bad CRC (CORRUPT first)",
		     [](auto &v, auto &) { v[4412 + 2] = 63; }},
		};
		for (const Bad &x : bad) {
			int rtl = 0, hls = 0;
			b.load(good, uint32_t(good.size()), rtl, hls);
			std::vector<uint8_t> img = good;
			uint32_t len = uint32_t(img.size());
			x.spoil(img, len);
			img.resize(std::max<size_t>(img.size(), len) + 64, 0);
			std::string name = std::string("mlp corrupt image: ") + x.name;
			load_check(tally, b, name.c_str(), img, len);
		}
		// After the last failed load no model is left: SCORE is SHAPE on both.
		score_check(tally, b, "mlp SCORE after a failed LOAD (SHAPE)", n, 3, ANY, 50, rng);
	}

	// Rates: the MAC array (8 candidates x 64 lanes) on large layers, and on a small network.
	net_case(tally, b, rng, "mlp 256-256-256-1, c 64", 3, w_big, ANY, 64, ANY, 50, true);
	const uint32_t w_mid[] = {64, 32, 1};
	net_case(tally, b, rng, "mlp 64-32-1, c 256", 2, w_mid, ANY, 256, ANY, 50, true);
	return tally.finish("rtl mlp");
}
