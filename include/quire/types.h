/* SPDX-License-Identifier: MIT */
/*
 * The fixed-size integers of the headers that declare the contract's code (contract/):
 * the kernel's <linux/types.h>, which has uint32_t and uint64_t, in a kernel build, and
 * <stdint.h> everywhere else (user space and the card's bare-metal firmware).
 */
#ifndef QUIRE_TYPES_H
#define QUIRE_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#endif /* QUIRE_TYPES_H */
