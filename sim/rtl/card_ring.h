// SPDX-License-Identifier: MIT
// Several RTL cards (card_harness.h, one Verilated model each) in one process, clocked in
// lockstep by one counter, each with its own host memory and host link, their network
// ports cabled to a switch by links of a given rate and latency. A card's transmit stream
// is paced beat by beat at the link's rate (`gbps` at the cards' 250 MHz: 100 Gb/s is 50
// bytes a cycle, each beat taking its bytes of credit), and a frame is handed to the card
// it names `latency` cycles after its last beat left; its receiving port takes it a beat a
// cycle while it has room. Only then: the frame's CRC travels in its header (include/quire/
// frame.h), and the sending port knows it only as the last beat leaves. Frames the
// receiving port cannot take yet wait in the switch; past `buffer_bytes` per sender, the
// sender's stream is held (as a pause frame would).
// A card whose core waits in WFI with nothing under way is not clocked: its cycle counter
// moves instead (CardHarness::advance_idle), which changes nothing it could see.
#ifndef QUIRE_SIM_RTL_CARD_RING_H
#define QUIRE_SIM_RTL_CARD_RING_H

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "card_harness.h"

namespace quire_rtl
{

class CardRing
{
      public:
	struct Link {
		unsigned latency = 250; // cycles: 1 us of cable and switch
		double gbps = 100.0;    // line rate, each way
		// A sender's frames held in the switch: a port's share of a switch's buffer. The
		// firmware's rounds (FW_RING_WINDOW) need none of it: a card sends at most 16
		// frames ahead of those it received, which the neighbour's receive ring takes.
		uint64_t buffer_bytes = 1u << 20;
	};
	// `cards` cards at network addresses first_addr, first_addr + 1, ..., each with
	// `host_bytes` of host memory at DMA address `iova`.
	CardRing(unsigned cards, uint64_t iova, uint32_t host_bytes, const Link &link,
		 uint16_t first_addr = 1);

	// Every card boots `elf`; false with `error` if one cannot.
	bool boot(const char *elf, std::string &error);

	unsigned size() const
	{
		return unsigned(cards_.size());
	}
	CardHarness &card(unsigned i)
	{
		return *cards_[i]->harness;
	}
	uint16_t addr(unsigned i) const
	{
		return uint16_t(first_addr_ + i);
	}
	const Link &link() const
	{
		return link_;
	}
	// Cycles of the lockstep clock since the ring was made.
	uint64_t now() const
	{
		return now_;
	}
	// One cycle of every card and link.
	void cycle();
	// A BAR write to card i as that card's part of the next cycle (a doorbell at a known
	// cycle: CardHarness::bar_write itself is a cycle of that card alone).
	void bar_write(unsigned i, uint32_t offset, uint32_t value);

	// What each card's link did since the last reset_counts(): frames and bytes sent,
	// cycles a beat left, cycles the port offered a beat the link held back (no credit
	// yet, or the switch full), and cycles the card was not clocked (its core in WFI).
	struct Counts {
		uint64_t frames = 0, bytes = 0, beats = 0;
		uint64_t held_rate = 0, held_full = 0;
		uint64_t idle = 0;
	};
	const Counts &counts(unsigned i) const
	{
		return cards_[i]->counts;
	}
	void reset_counts();
	// Every card's port has been held by a full switch for a million cycles on end: each
	// waits for a neighbour that waits too, and nothing will move again.
	bool deadlocked() const
	{
		return held_all_ >= 1000000;
	}

      private:
	struct Arriving {
		uint64_t due; // the cycle its last beat reaches the switch
		unsigned from;
		std::vector<uint8_t> frame;
	};
	struct Card {
		std::unique_ptr<CardHarness> harness;
		double credit = 0;          // bytes the link may carry now
		uint64_t held_bytes = 0;    // sent, not yet taken by the receiving port
		std::deque<Arriving> inbox; // frames to this card, in order of arrival
		std::deque<std::pair<uint32_t, uint32_t>> writes; // BAR writes, one a cycle
		Counts counts;
	};
	uint32_t send(unsigned from, uint8_t *frame, uint32_t len, bool &nobody);

	std::vector<std::unique_ptr<Card>> cards_;
	Link link_;
	uint16_t first_addr_;
	double bytes_per_cycle_;
	uint64_t now_ = 0;
	uint64_t held_all_ = 0; // cycles on end in which every port was held by a full switch
};

} // namespace quire_rtl

#endif
