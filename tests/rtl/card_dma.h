/* SPDX-License-Identifier: MIT */
/*
 * Where the bare-metal DMA program (tests/rtl/card_dma.c) and test_card_top.cpp, which
 * runs it, meet: the host memory the harness gives it, the measurement of the queue's
 * rate (its transfers, where their copy lands in host memory, where the program leaves
 * the cycles it counted) and the console byte by which the program asks the host to move
 * the queue epoch on (a host's write of a queue's CTRL does it).
 */
#ifndef QUIRE_TESTS_RTL_CARD_DMA_H
#define QUIRE_TESTS_RTL_CARD_DMA_H

#define CARD_DMA_HOST_BYTES (2u << 20)
/* The rate: CARD_DMA_RATE_COUNT transfers of CARD_DMA_RATE_BYTES posted back to back to
 * the card from host offset 0 on, then as many from there back to the host at offset
 * CARD_DMA_RATE_TO_HOST (a line further than a whole number of the pattern's 256 bytes, so
 * that the copy differs from what was there). */
#define CARD_DMA_RATE_COUNT   16u
#define CARD_DMA_RATE_BYTES   (32u << 10)
#define CARD_DMA_RATE_TO_HOST 0x100040u
/* Two words at this host offset: the cycles from the first START to CTRL DONE, to the
 * card, then to the host. */
#define CARD_DMA_FIGURES   0x1ff000u
#define CARD_DMA_ASK_EPOCH '^'

#endif /* QUIRE_TESTS_RTL_CARD_DMA_H */
