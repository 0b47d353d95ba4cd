/* SPDX-License-Identifier: GPL-2.0 */
/*
 * firmware/validate.c, the descriptor rules the card's firmware applies, is built
 * into the driver unchanged. Its header firmware/fw.h includes <stdint.h>, which a
 * kernel build does not have: the kernel's own uint32_t and uint64_t serve.
 */
#ifndef QUIRE_FW_SHIM_STDINT_H
#define QUIRE_FW_SHIM_STDINT_H

#include <linux/types.h>

#endif /* QUIRE_FW_SHIM_STDINT_H */
