// SPDX-License-Identifier: MIT
/*
 * quire-bench-rtl's network program (`--net-elf`), bare metal on the RTL card, linked
 * like the firmware: the largest frame (a header and QUIRE_FRAME_MAX_PAYLOAD bytes of
 * whatever card memory holds) sent to the card's own address QUIRE_NET_RATE_FRAMES
 * times back to back, the bench's wire bringing each back while the next goes out, then
 * every one dropped. The bench times the streams; this program only keeps them busy.
 * Ends through sim-exit with 0, or 1 when a send, an arrival or a drop is not as asked.
 */
#include <stdint.h>

#include "quire/card.h"
#include "quire/frame.h"
#include "quire/status.h"

#define QUIRE_NET_RATE_FRAMES 4u

int main(void);

static volatile uint32_t *port_reg(uint32_t reg)
{
	return (volatile uint32_t *)(uintptr_t)(QUIRE_CARD_NET + reg);
}

static void stop(uint32_t code)
{
	*(volatile uint32_t *)(uintptr_t)(QUIRE_CARD_SIM_IO + QUIRE_SIM_IO_EXIT) = code;
	for (;;)
		;
}

int main(void)
{
	volatile uint32_t *hdr = (volatile uint32_t *)(uintptr_t)QUIRE_CARD_MEM;
	uint32_t self = *port_reg(QUIRE_NET_PORT_ADDR);
	hdr[0] = QUIRE_FRAME_VERSION | QUIRE_FRAME_DATA << 8;
	hdr[QUIRE_FRAME_OFF_ADDRS / 4] = self << 16;
	hdr[QUIRE_FRAME_OFF_LEN / 4] = QUIRE_FRAME_MAX_PAYLOAD;
	*port_reg(QUIRE_NET_TX_CARD) = 0;
	*port_reg(QUIRE_NET_TX_LEN) = QUIRE_FRAME_HDR_BYTES + QUIRE_FRAME_MAX_PAYLOAD;
	for (uint32_t i = 0; i < QUIRE_NET_RATE_FRAMES; i++) {
		*port_reg(QUIRE_NET_TX_CTRL) = QUIRE_NET_GO;
		if (*port_reg(QUIRE_NET_TX_STATUS) != QUIRE_OK)
			stop(1);
	}
	for (uint32_t spin = 0; *port_reg(QUIRE_NET_RX_PENDING) != QUIRE_NET_RATE_FRAMES; spin++)
		if (spin > 100000)
			stop(1);
	for (uint32_t i = 0; i < QUIRE_NET_RATE_FRAMES; i++) {
		if (*port_reg(QUIRE_NET_RX_FLAGS) != 0)
			stop(1);
		*port_reg(QUIRE_NET_RX_CTRL) = QUIRE_NET_RX_DROP;
		if (*port_reg(QUIRE_NET_RX_STATUS) != QUIRE_OK)
			stop(1);
	}
	stop(0);
	return 0;
}
