// SPDX-License-Identifier: MIT
// quire-bench-rtl --ring N: a bfp8 all-reduce on N RTL cards in lockstep (card_ring.h), timed
// in card cycles from the doorbell to the last completion, every rank's result checked
// against the golden model (hls/allreduce_golden.h).
#ifndef QUIRE_SIM_RTL_RING_BENCH_H
#define QUIRE_SIM_RTL_RING_BENCH_H

#include <cstdint>

#include "card_ring.h"

namespace quire_rtl
{

// A driver's start: waits (at most 10 M cycles) for the firmware to be RUNNING, then enables
// the command and completion queues at those DMA addresses, 2^log2 entries each. False if
// the firmware never got there.
bool start_host_queues(CardHarness &card, uint64_t cmd_ring, uint64_t cpl_ring, unsigned log2);

// Runs the all-reduce of `bytes` of fp32 per rank on `cards` cards booting `elf`, prints
// its figures; 0 when every completion was QUIRE_OK and every result byte the golden
// model's, 1 otherwise (the reason printed).
int ring_allreduce_bench(const char *elf, unsigned cards, uint64_t bytes,
			 const CardRing::Link &link);

} // namespace quire_rtl

#endif
