/* SPDX-License-Identifier: MIT */
/*
 * The kdrv backend's URI (what follows "kdrv:"), parsed apart from any device so
 * that the parsing is tested where no quire card is.
 */
#ifndef QUIRE_KDRV_H
#define QUIRE_KDRV_H

#include <stdint.h>

enum kdrv_where_kind {
	KDRV_FIRST, /* "kdrv": the first render node whose driver is quire */
	KDRV_NODE,  /* "kdrv:/dev/dri/renderD128": that node (any absolute path) */
	KDRV_PCI,   /* "kdrv:pci:0000:03:00.0" (or "pci:03:00.0", domain 0): by PCI slot */
};

struct kdrv_where {
	enum kdrv_where_kind kind;
	const char *path; /* KDRV_NODE: points into the argument */
	uint16_t domain;
	uint8_t bus, dev, func;
};

/* arg: what follows "kdrv:", NULL for a bare "kdrv". QUIRE_OK or QUIRE_ERR_INVALID. */
int kdrv_parse_where(const char *arg, struct kdrv_where *w);

#endif /* QUIRE_KDRV_H */
