// SPDX-License-Identifier: MIT
/*
 * Liveness: what lets others tell a slow card from a stopped one.
 *
 * The heartbeat (QUIRE_CNT_HEARTBEAT) is for the host: it advances at every
 * data transfer (DMA, or a collective's frame sent or received), every command
 * and every wake-up, and a card that waits wakes at
 * least every QUIRE_HEARTBEAT_MS, so it never stands still while the card has
 * work. Keepalive frames are for the other cards: each member tells the next
 * one in the ring, which waits for its frames, that it is alive, every quarter
 * of the communicator's timeout, idle or not. A peer's timeout therefore
 * measures silence, not how late a live member's host is.
 */
#include "hal.h"
#include "internal.h"
#include "layout.h"
#include "quire/frame.h"
#include "quire/regs.h"

void fw_heartbeat(struct quire_fw *fw)
{
	hal_bar_write(fw, fw->bar.counters, QUIRE_CNT_HEARTBEAT, ++fw->heartbeat);
}

static uint64_t keepalive_cycles(struct quire_fw *fw, const struct quire_fw_comm *c)
{
	return (uint64_t)(c->timeout_ms / 4u) * fw->cycles_per_ms;
}

static int needs_keepalive(const struct quire_fw *fw, const struct quire_fw_comm *c)
{
	return fw->net_up && c->id && c->size > 1 && !c->failed;
}

void fw_keepalive_start(struct quire_fw *fw, struct quire_fw_comm *c)
{
	c->keepalive_at = hal_cycles(fw); /* at once: the next member may be waiting already */
}

/* Send the keepalives that are due; the earliest next one, or 0 when none is. */
static uint64_t keepalives(struct quire_fw *fw)
{
	uint64_t now = hal_cycles(fw), next = 0;
	for (uint32_t i = 0; i < QUIRE_FW_MAX_COMMS; i++) {
		struct quire_fw_comm *c = &fw->comm[i];
		if (!needs_keepalive(fw, c))
			continue;
		if (now >= c->keepalive_at) {
			/* Due again before sending: a send that waits comes back here. */
			c->keepalive_at = now + keepalive_cycles(fw, c);
			fw_net_keepalive(fw, c);
		}
		if (!next || c->keepalive_at < next)
			next = c->keepalive_at;
	}
	return next;
}

int fw_wait_until(struct quire_fw *fw, uint64_t deadline)
{
	uint64_t beat = hal_cycles(fw) + (uint64_t)QUIRE_HEARTBEAT_MS * fw->cycles_per_ms;
	uint64_t keep = keepalives(fw);
	uint64_t until = deadline < beat ? deadline : beat;
	if (keep && keep < until)
		until = keep;
	hal_write32(fw, QUIRE_CARD_CTL + QUIRE_CTL_WAKE_AT_HI, (uint32_t)(until >> 32));
	hal_write32(fw, QUIRE_CARD_CTL + QUIRE_CTL_WAKE_AT_LO, (uint32_t)until);
	int stop = hal_wait_event(fw);
	hal_write32(fw, QUIRE_CARD_CTL + QUIRE_CTL_WAKE_AT_LO, 0);
	hal_write32(fw, QUIRE_CARD_CTL + QUIRE_CTL_WAKE_AT_HI, 0);
	fw_heartbeat(fw);
	if (stop)
		fw->stopping = 1;
	return stop ? -1 : 0;
}

int fw_idle(struct quire_fw *fw)
{
	uint64_t keep = keepalives(fw);
	if (!keep)
		return hal_wait_event(fw); /* nothing to keep alive: sleep until told */
	int stop = fw_wait_until(fw, keep);
	/* Keepalives queue up in the port while no collective reads them. */
	for (uint32_t i = 0; i < QUIRE_FW_MAX_COMMS && !stop; i++)
		if (needs_keepalive(fw, &fw->comm[i]))
			fw_net_drop_keepalives(fw, fw->comm[i].id);
	return stop;
}
