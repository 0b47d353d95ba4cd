// SPDX-License-Identifier: MIT
/*
 * quire-bench-rtl's network program (`--net-elf`), bare metal on the RTL card, linked
 * like the firmware: the largest frame (a header and QUIRE_FRAME_MAX_PAYLOAD bytes of
 * whatever card memory holds) queued QUIRE_NET_RATE_FRAMES times at once in the port's
 * transmit ring, to the card's own address, with as many receive buffers posted: the
 * bench's wire brings each frame back while the next goes out. The bench times the
 * streams; this program only keeps them busy. Ends through sim-exit with 0, or 1 when
 * a send or an arrival is not as asked.
 */
#include <stdint.h>

#include "quire/card.h"
#include "quire/frame.h"
#include "quire/status.h"

#define QUIRE_NET_RATE_FRAMES 4u
#define TX_RING               0x00200000u /* card memory: the rings, then the buffers */
#define RX_RING               0x00200100u
#define RX_BUFS               0x00300000u
#define FRAME_BYTES           (QUIRE_FRAME_HDR_BYTES + QUIRE_FRAME_MAX_PAYLOAD)
#define BUF_STEP              0x00010040u

int main(void);

static volatile uint32_t *port_reg(uint32_t reg)
{
	return (volatile uint32_t *)(uintptr_t)(QUIRE_CARD_NET + reg);
}

static volatile uint32_t *mem_word(uint32_t offset)
{
	return (volatile uint32_t *)(uintptr_t)(QUIRE_CARD_MEM + offset);
}

static void stop(uint32_t code)
{
	*(volatile uint32_t *)(uintptr_t)(QUIRE_CARD_SIM_IO + QUIRE_SIM_IO_EXIT) = code;
	for (;;)
		;
}

static void put_desc(uint32_t at, uint32_t card, uint32_t len)
{
	*mem_word(at + QUIRE_NET_DESC_CARD) = card;
	*mem_word(at + QUIRE_NET_DESC_LEN) = len;
	*mem_word(at + QUIRE_NET_DESC_STATUS) = 0;
	*mem_word(at + QUIRE_NET_DESC_PAD) = 0;
}

int main(void)
{
	uint32_t self = *port_reg(QUIRE_NET_PORT_ADDR);
	*mem_word(0) = QUIRE_FRAME_VERSION | QUIRE_FRAME_DATA << 8;
	*mem_word(QUIRE_FRAME_OFF_ADDRS) = self << 16;
	*mem_word(QUIRE_FRAME_OFF_LEN) = QUIRE_FRAME_MAX_PAYLOAD;
	*port_reg(QUIRE_NET_TX_BASE) = TX_RING;
	*port_reg(QUIRE_NET_TX_LOG2) = 2;
	*port_reg(QUIRE_NET_RX_BASE) = RX_RING;
	*port_reg(QUIRE_NET_RX_LOG2) = 2;
	for (uint32_t i = 0; i < QUIRE_NET_RATE_FRAMES; i++) {
		put_desc(TX_RING + QUIRE_NET_DESC_BYTES * i, 0, FRAME_BYTES);
		put_desc(RX_RING + QUIRE_NET_DESC_BYTES * i, RX_BUFS + i * BUF_STEP, FRAME_BYTES);
	}
	*port_reg(QUIRE_NET_RX_PROD) = QUIRE_NET_RATE_FRAMES;
	*port_reg(QUIRE_NET_TX_PROD) = QUIRE_NET_RATE_FRAMES;
	for (uint32_t spin = 0; *port_reg(QUIRE_NET_RX_CONS) != QUIRE_NET_RATE_FRAMES ||
				*port_reg(QUIRE_NET_TX_CONS) != QUIRE_NET_RATE_FRAMES;
	     spin++)
		if (spin > 100000)
			stop(1);
	uint32_t done = (uint32_t)QUIRE_NET_DESC_F_DONE << 16 | QUIRE_OK;
	for (uint32_t i = 0; i < QUIRE_NET_RATE_FRAMES; i++)
		if (*mem_word(TX_RING + QUIRE_NET_DESC_BYTES * i + QUIRE_NET_DESC_STATUS) != done ||
		    *mem_word(RX_RING + QUIRE_NET_DESC_BYTES * i + QUIRE_NET_DESC_STATUS) != done ||
		    *mem_word(RX_RING + QUIRE_NET_DESC_BYTES * i + QUIRE_NET_DESC_LEN) !=
			FRAME_BYTES)
			stop(1);
	stop(0);
	return 0;
}
