// SPDX-License-Identifier: MIT
/* The card build's entry point (crt0.S calls main), and what a fatal trap does. */
#include <stdint.h>

#include "fw.h"
#include "hal.h"
#include "quire/regs.h"

int main(void);
void fw_fatal_trap(uint32_t mcause, uint32_t mtval);

static struct quire_fw fw;

int main(void)
{
	quire_fw_run(&fw);
	return 0;
}

/*
 * crt0.S's trap handler, for an exception the firmware cannot go on from (anything but an
 * access fault): the host sees FW_STATE HALTED and an error interrupt, as for a firmware
 * that cannot start, instead of a card that silently stops answering.
 */
void fw_fatal_trap(uint32_t mcause, uint32_t mtval)
{
	(void)mcause;
	(void)mtval;
	hal_bar_write(&fw, fw.bar.id, QUIRE_ID_FW_STATE, QUIRE_FW_STATE_HALTED);
	hal_write32(&fw, QUIRE_CARD_CTL + QUIRE_CTL_IRQ_RAISE, QUIRE_IRQ_ERROR);
}
