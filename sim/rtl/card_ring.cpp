// SPDX-License-Identifier: MIT
// RTL cards in lockstep on links of a given rate and latency (card_ring.h).
#include "card_ring.h"

#include <cstring>

#include "quire/frame.h"
#include "quire/status.h"

namespace quire_rtl
{

namespace
{
constexpr double kClockHz = 250e6;
constexpr double kBeatBytes = 64.0;
} // namespace

CardRing::CardRing(unsigned cards, uint64_t iova, uint32_t host_bytes, const Link &link,
		   uint16_t first_addr)
    : link_(link), first_addr_(first_addr), bytes_per_cycle_(link.gbps * 1e9 / 8.0 / kClockHz)
{
	for (unsigned i = 0; i < cards; i++) {
		auto c = std::make_unique<Card>();
		c->harness = std::make_unique<CardHarness>(iova, host_bytes);
		c->harness->attach_net(addr(i),
				       [this, i](uint8_t *frame, uint32_t len, bool &nobody) {
					       return send(i, frame, len, nobody);
				       });
		cards_.push_back(std::move(c));
	}
}

bool CardRing::boot(const char *elf, std::string &error)
{
	for (auto &c : cards_)
		if (!c->harness->boot(elf, error))
			return false;
	return true;
}

// A frame whose last beat just left card `from`: to the card its header names, through the
// switch, `latency` cycles from now. The link itself never refuses one (the stream was held
// instead while the switch was full).
uint32_t CardRing::send(unsigned from, uint8_t *frame, uint32_t len, bool &nobody)
{
	Card &c = *cards_[from];
	c.counts.frames++;
	c.counts.bytes += len;
	uint16_t dst = 0;
	if (len >= QUIRE_FRAME_OFF_ADDRS + 4)
		dst = uint16_t(frame[QUIRE_FRAME_OFF_ADDRS + 2] | frame[QUIRE_FRAME_OFF_ADDRS + 3]
								      << 8);
	unsigned to = unsigned(dst - first_addr_);
	if (dst < first_addr_ || to >= cards_.size()) {
		nobody = true; // no port has the address: the frame is lost
		return QUIRE_OK;
	}
	c.held_bytes += len;
	cards_[to]->inbox.push_back(Arriving{now_ + link_.latency, from, {frame, frame + len}});
	return QUIRE_OK;
}

void CardRing::cycle()
{
	unsigned held = 0;
	for (auto &cp : cards_) {
		Card &c = *cp;
		CardHarness &h = *c.harness;
		// The link's credit: a beat may go when a whole beat's worth has come in and the
		// switch has room for the sender's frames.
		c.credit += bytes_per_cycle_;
		bool full = c.held_bytes >= link_.buffer_bytes;
		h.set_net_tx_ready(c.credit >= kBeatBytes && !full);
		// The oldest frame arrived whole, into the port (a beat a cycle while it has room).
		if (!c.inbox.empty() && c.inbox.front().due <= now_ && !h.net_feeding()) {
			Arriving &a = c.inbox.front();
			cards_[a.from]->held_bytes -= a.frame.size();
			h.net_feed(a.frame);
			c.inbox.pop_front();
		}
		uint64_t wake = h.wake_at();
		if (c.writes.empty() && h.idle() && (!wake || wake > h.card_cycles())) {
			h.advance_idle(1);
			c.counts.idle++;
			if (c.credit > kBeatBytes)
				c.credit = kBeatBytes;
			continue;
		}
		if (!c.writes.empty()) { // the write is this cycle of the card
			h.bar_write(c.writes.front().first, c.writes.front().second);
			c.writes.pop_front();
		} else {
			h.run(1);
		}
		unsigned b = h.traffic().tx_taken;
		if (b) {
			c.credit -= b; // the beat's own bytes: a short last beat costs less
			c.counts.beats++;
			continue;
		}
		if (h.traffic().tx_offered)
			(full ? c.counts.held_full : c.counts.held_rate)++;
		held += h.traffic().tx_offered && full;
		if (c.credit > kBeatBytes) // an idle link banks no more than a beat
			c.credit = kBeatBytes;
	}
	held_all_ = held == cards_.size() ? held_all_ + 1 : 0;
	now_++;
}

void CardRing::bar_write(unsigned i, uint32_t offset, uint32_t value)
{
	cards_[i]->writes.emplace_back(offset, value);
}

void CardRing::reset_counts()
{
	for (auto &c : cards_)
		c->counts = Counts{};
}

} // namespace quire_rtl
