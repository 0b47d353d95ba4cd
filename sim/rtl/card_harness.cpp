// SPDX-License-Identifier: MIT
// The RTL card under Verilator (card_harness.h).
#include "card_harness.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "Vquire_card_top.h"
#include "Vquire_card_top___024root.h"
#include "verilated.h"

#include "elf_image.h"
#include "quire/frame.h"
#include "quire/status.h"

namespace quire_rtl
{

CardHarness::CardHarness(uint64_t iova, uint32_t host_bytes)
    : context_(std::make_unique<VerilatedContext>()), host_(host_bytes, 0), host_mem_(host_.data()),
      host_size_(host_bytes), iova_(iova)
{
	top_ = std::make_unique<Vquire_card_top>(context_.get());
	top_->host_win_base_i = iova;
	top_->host_win_size_i = host_bytes;
	top_->net_tx_ready_i = 1; // the harness takes a beat every cycle
	// The host link: QUIRE_RTL_HOST_LATENCY cycles, QUIRE_RTL_HOST_GBS GB/s each way.
	const char *lat = std::getenv("QUIRE_RTL_HOST_LATENCY");
	const char *gbs = std::getenv("QUIRE_RTL_HOST_GBS");
	char *end = nullptr;
	if (lat && *lat) {
		unsigned long v = std::strtoul(lat, &end, 10);
		if (*end == 0 && v >= 1 && v <= 100000)
			link_latency_ = unsigned(v);
		else
			std::fprintf(stderr,
				     "QUIRE_RTL_HOST_LATENCY=%s: not 1..100000 cycles, %u kept\n",
				     lat, link_latency_);
	}
	if (gbs && *gbs) {
		double v = std::strtod(gbs, &end);
		if (*end == 0 && v >= 0.1 && v <= 1000)
			link_gbs_ = v;
		else
			std::fprintf(stderr, "QUIRE_RTL_HOST_GBS=%s: not 0.1..1000 GB/s, %g kept\n",
				     gbs, link_gbs_);
	}
}

void CardHarness::set_host_link(unsigned latency_cycles, double gbs)
{
	link_latency_ = latency_cycles ? latency_cycles : 1;
	link_gbs_ = gbs > 0 ? gbs : link_gbs_;
}

// Is [addr, addr + 64) of a request, the bytes of `be`, inside the host window?
bool CardHarness::host_line_ok(uint64_t addr, uint64_t be) const
{
	for (unsigned b = 0; b < 64; b++) {
		if (!(be >> b & 1))
			continue;
		uint64_t a = addr + b;
		if (!host_mem_ || a < iova_ || a - iova_ >= host_size_)
			return false;
	}
	return true;
}

// The card's two host ports (the first: DMA channel 0 and the queue engine; the second:
// DMA channel 1): a request and an answer of a line each.
struct CardHarness::HostPins {
	CData &req, &we;
	QData &be, &addr;
	VlWide<16> &wdata;
	CData &ready, &rvalid;
	VlWide<16> &rdata;
};

CardHarness::HostPins CardHarness::host_pins(unsigned port)
{
	Vquire_card_top &t = *top_;
	if (port == 0)
		return {t.host_req_o,   t.host_we_o,    t.host_be_o,     t.host_addr_o,
			t.host_wdata_o, t.host_ready_i, t.host_rvalid_i, t.host_rdata_i};
	return {t.host1_req_o,   t.host1_we_o,    t.host1_be_o,     t.host1_addr_o,
		t.host1_wdata_o, t.host1_ready_i, t.host1_rvalid_i, t.host1_rdata_i};
}

// A port's request is taken when its direction has a line's worth of credit (the rate):
// the two ports share the link, each direction's credit between them.
bool CardHarness::host_port_take(const HostPins &pins)
{
	pins.ready = 0;
	if (!pins.req)
		return false;
	double &credit = pins.we ? credit_write_ : credit_read_;
	if (credit < 64.0)
		return false;
	credit -= 64.0;
	pins.ready = 1;
	return true;
}

void CardHarness::host_port_record(const HostPins &pins, std::deque<HostRequest> &pending)
{
	(pins.we ? traffic_.host_written : traffic_.host_read) += 64;
	HostRequest r;
	r.due = cycles_ + link_latency_;
	r.write = pins.we;
	r.addr = pins.addr;
	r.be = pins.be;
	for (unsigned w = 0; w < 16; w++)
		r.wdata[w] = pins.wdata[w];
	pending.push_back(r);
}

// The host link's side of a cycle, before the edge: each port's request taken or not, and
// answered link_latency_ cycles later, in order on its port (a write lands in host memory
// then).
void CardHarness::host_link_request()
{
	double per_cycle = link_gbs_ * 1e9 / kClockHz;
	credit_read_ = std::min(credit_read_ + per_cycle, 128.0);
	credit_write_ = std::min(credit_write_ + per_cycle, 128.0);
	HostPins p0 = host_pins(0), p1 = host_pins(1);
	bool took0 = host_port_take(p0);
	bool took1 = host_port_take(p1);
	if (!took0 && !took1)
		return;
	top_->eval(); // what the card does with the requests taken
	if (took0)
		host_port_record(p0, host_pending_);
	if (took1)
		host_port_record(p1, host1_pending_);
}

// After the edge: on each port, the oldest request whose time has come is answered.
void CardHarness::host_port_answer(const HostPins &pins, std::deque<HostRequest> &pending)
{
	pins.rvalid = 0;
	if (pending.empty() || pending.front().due > cycles_)
		return;
	HostRequest r = pending.front();
	pending.pop_front();
	pins.rvalid = 1;
	uint8_t line[64] = {0};
	if (!host_line_ok(r.addr, r.be)) {
		stray_++;
	} else {
		for (unsigned b = 0; b < 64; b++) {
			uint64_t a = r.addr + b;
			if (a < iova_ || a - iova_ >= host_size_)
				continue;
			uint8_t &m = host_mem_[a - iova_];
			if (r.write && (r.be >> b & 1))
				m = uint8_t(r.wdata[b / 4] >> (8 * (b % 4)));
			line[b] = m;
		}
	}
	for (unsigned w = 0; w < 16; w++) {
		uint32_t v;
		std::memcpy(&v, line + 4 * w, 4);
		pins.rdata[w] = v;
	}
}

void CardHarness::host_link_answer()
{
	host_port_answer(host_pins(0), host_pending_);
	host_port_answer(host_pins(1), host1_pending_);
}

CardHarness::~CardHarness()
{
	// The model's scopes unregister from the thread's current context: make it ours (with
	// several harnesses, the last one made current may be gone already).
	Verilated::threadContextp(context_.get());
	top_->final();
	top_.reset();
}

// The network port's receive stream: the frame's next beat, when the port has room.
void CardHarness::net_rx_present()
{
	rx_presented_ = 0;
	top_->net_rx_valid_i = 0;
	if (!net_feeding() || !top_->net_rx_ready_o)
		return;
	size_t left = rx_frame_.size() - rx_off_;
	unsigned n = unsigned(std::min<size_t>(left, 64));
	uint8_t beat[64] = {0};
	if (n)
		std::memcpy(beat, &rx_frame_[rx_off_], n);
	for (unsigned w = 0; w < 16; w++) {
		uint32_t v;
		std::memcpy(&v, beat + 4 * w, 4);
		top_->net_rx_data_i[w] = v;
	}
	top_->net_rx_valid_i = 1;
	top_->net_rx_bytes_i = uint8_t(n);
	top_->net_rx_last_i = left <= 64;
	rx_presented_ = n + 1;
}

// The network port's transmit stream: a beat, and at the frame's end the send.
void CardHarness::net_tx_take()
{
	traffic_.tx_offered = top_->net_tx_valid_o;
	if (!top_->net_tx_valid_o || !top_->net_tx_ready_i)
		return;
	tx_beat_ = true;
	traffic_.tx_taken = top_->net_tx_bytes_o;
	if (tx_beats_++ == 0)
		tx_first_ = cycles_;
	for (unsigned i = 0; i < top_->net_tx_bytes_o; i++)
		tx_frame_.push_back(uint8_t(top_->net_tx_data_o[i / 4] >> (8 * (i % 4))));
	if (!top_->net_tx_last_o)
		return;
	if (tx_beats_ >= pace_.tx.beats)
		pace_.tx = NetSpan{tx_beats_, cycles_ - tx_first_ + 1};
	tx_beats_ = 0;
	uint32_t crc = top_->net_tx_crc_o;
	for (unsigned i = 0; i < 4 && QUIRE_FRAME_OFF_CRC + i < tx_frame_.size(); i++)
		tx_frame_[QUIRE_FRAME_OFF_CRC + i] = uint8_t(crc >> (8 * i));
	bool nobody = false;
	tx_status_ = net_send_ ? net_send_(tx_frame_.data(), uint32_t(tx_frame_.size()), nobody)
			       : uint32_t(QUIRE_ERR_IO);
	tx_nobody_ = nobody;
	tx_done_ = true;
	tx_frame_.clear();
}

// One clock cycle: the inputs as they are, the outputs of this cycle looked at, the edge.
void CardHarness::cycle()
{
	net_rx_present();
	tx_beat_ = false;
	traffic_.tx_taken = 0;
	top_->clk_i = 0;
	top_->eval();
	net_tx_take();
	host_link_request();
	if (top_->console_valid_o)
		console_.push_back(char(top_->console_byte_o));
	if (top_->exit_valid_o) {
		exited_ = true;
		exit_code_ = top_->exit_code_o;
	}
	instructions_ += top_->retire_o;
	irqs_ += top_->irq_o;
	traps_ += top_->trap_o;
	top_->clk_i = 1;
	top_->eval();
	cycles_++;
	host_link_answer();
	// The network's answer to a frame sent, in the cycle after its last beat.
	top_->net_tx_done_i = tx_done_;
	top_->net_tx_status_i = tx_status_;
	top_->net_tx_nobody_i = tx_nobody_;
	tx_done_ = false;
	if (rx_presented_) { // taken at this edge (the port had room)
		pace_.both_ways += tx_beat_;
		if (rx_beats_++ == 0)
			rx_first_ = cycles_ - 1;
		rx_off_ += rx_presented_ - 1;
		rx_empty_ = false;
		if (rx_off_ >= rx_frame_.size()) {
			if (rx_beats_ >= pace_.rx.beats)
				pace_.rx = NetSpan{rx_beats_, cycles_ - rx_first_};
			rx_beats_ = 0;
			rx_frame_.clear();
			rx_off_ = 0;
		}
	}
}

void CardHarness::attach_net(uint16_t addr, NetSend send)
{
	net_send_ = std::move(send);
	top_->net_addr_i = addr;
	top_->net_link_i = 1;
}

void CardHarness::set_net_tx_ready(bool ready)
{
	top_->net_tx_ready_i = ready;
}

bool CardHarness::net_feed(std::vector<uint8_t> &frame)
{
	if (net_feeding())
		return false;
	rx_frame_.swap(frame);
	rx_off_ = 0;
	rx_empty_ = rx_frame_.empty();
	return true;
}

bool CardHarness::boot(const char *elf_path, std::string &error)
{
	ElfImage elf;
	if (!read_elf(elf_path, elf, error))
		return false;
	// Only a segment's file bytes are loaded, at its load address: the rest of its memory
	// (.bss, the stack) is in DMEM, where crt0 clears it; its load address follows the
	// image in IMEM and may lie past IMEM's end.
	for (size_t i = 0; i < elf.segments.size();) {
		ElfSegment &seg = elf.segments[i];
		seg.memsz = uint32_t(seg.bytes.size());
		if (seg.memsz == 0)
			elf.segments.erase(elf.segments.begin() + long(i));
		else
			i++;
	}
	uint64_t lo = UINT64_MAX, hi = 0;
	for (const ElfSegment &seg : elf.segments) {
		lo = std::min<uint64_t>(lo, seg.paddr & ~3u);
		hi = std::max<uint64_t>(hi, uint64_t(seg.paddr) + seg.memsz);
	}
	std::vector<std::pair<uint32_t, uint32_t>> words;
	if (!elf_words(elf, uint32_t(lo), uint32_t((hi - lo + 3) & ~uint64_t(3)), words, error))
		return false;
	top_->rst_ni = 0;
	top_->load_we_i = 1;
	for (const auto &w : words) {
		top_->load_addr_i = w.first;
		top_->load_data_i = w.second;
		top_->clk_i = 0;
		top_->eval();
		if (top_->load_miss_o) {
			char why[96];
			std::snprintf(why, sizeof why, "word 0x%08x is in neither IMEM nor DMEM",
				      w.first);
			error = why;
			return false;
		}
		cycle();
	}
	top_->load_we_i = 0;
	cycle();
	top_->rst_ni = 1;
	cycles_ = 0;
	return true;
}

uint32_t CardHarness::bar_read(uint32_t offset)
{
	top_->bar_req_i = 1;
	top_->bar_we_i = 0;
	top_->bar_addr_i = offset;
	top_->clk_i = 0;
	top_->eval();
	uint32_t value = top_->bar_rdata_o;
	cycle();
	top_->bar_req_i = 0;
	return value;
}

void CardHarness::bar_write(uint32_t offset, uint32_t value)
{
	top_->bar_req_i = 1;
	top_->bar_we_i = 1;
	top_->bar_addr_i = offset;
	top_->bar_wdata_i = value;
	cycle();
	top_->bar_req_i = 0;
	top_->bar_we_i = 0;
}

void CardHarness::attach_host(uint8_t *mem, uint64_t iova, uint64_t size)
{
	if (!mem)
		size = 0;
	host_mem_ = size ? mem : nullptr;
	host_size_ = size;
	iova_ = iova;
	top_->host_win_base_i = iova;
	top_->host_win_size_i = size;
}

// The signals below are made public by sim/rtl/card_public.vlt (read-only, but for the
// cycle counter and the caps' mask); their names are Verilator's flattened hierarchy.
bool CardHarness::idle() const
{
	const auto *r = top_->rootp;
	return r->quire_card_top__DOT__core_wfi && !r->quire_card_top__DOT__event_q &&
	       !r->quire_card_top__DOT__host_event && !r->quire_card_top__DOT__qe_busy &&
	       !top_->host_req_o && host_pending_.empty() && !top_->host1_req_o &&
	       host1_pending_.empty() && !net_feeding() && !r->quire_card_top__DOT__net_event &&
	       !top_->net_tx_valid_o &&
	       // a received frame's last half line or completion still to be written
	       !r->quire_card_top__DOT__u_net__DOT__flush_q &&
	       !r->quire_card_top__DOT__u_net__DOT__wb_q;
}

uint64_t CardHarness::wake_at() const
{
	return top_->rootp->quire_card_top__DOT__u_ctl__DOT__wake_at_q;
}

uint64_t CardHarness::card_cycles() const
{
	return top_->rootp->quire_card_top__DOT__u_ctl__DOT__cycles_q;
}

void CardHarness::keep_caps(uint32_t keep)
{
	top_->rootp->quire_card_top__DOT__u_bar__DOT__caps_keep_q = keep;
}

void CardHarness::advance_idle(uint64_t cycles)
{
	uint64_t now = card_cycles(), wake = wake_at();
	if (wake && wake > now && cycles > wake - now)
		cycles = wake - now;
	else if (wake && wake <= now)
		cycles = 0;
	top_->rootp->quire_card_top__DOT__u_ctl__DOT__cycles_q = now + cycles;
}

void CardHarness::run(uint64_t cycles)
{
	for (uint64_t i = 0; i < cycles; i++)
		cycle();
}

} // namespace quire_rtl

namespace quire_rtl
{

bool CardHarness::run_to_exit(uint64_t max_cycles, uint32_t &code)
{
	for (uint64_t i = 0; i < max_cycles && !exited_; i++)
		cycle();
	code = exit_code_;
	return exited_;
}

} // namespace quire_rtl
