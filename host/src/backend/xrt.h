/* SPDX-License-Identifier: MIT */
/*
 * The xrt backend's URI (what follows "xrt:") and its check of XILINX_XRT, apart from any
 * device, so that both are tested where no XRT card is.
 */
#ifndef QUIRE_XRT_H
#define QUIRE_XRT_H

struct xrt_where {
	int by_bdf;     /* 0: by index */
	unsigned index; /* "xrt" is index 0, "xrt:N" index N */
	char bdf[16];   /* "xrt:DDDD:BB:DD.F", as lspci -D spells it */
};

/* arg: what follows "xrt:", NULL for a bare "xrt". QUIRE_OK or QUIRE_ERR_INVALID. */
int xrt_parse_where(const char *arg, struct xrt_where *w);

/*
 * Whether XRT may be called into: XILINX_XRT (xilinx_xrt, NULL when unset) names a
 * directory whose lib/libxrt_core.so.2 loads. Debian's XRT 2.13 throws from inside
 * xrtDeviceOpen otherwise, which ends the process. QUIRE_OK or QUIRE_ERR_NO_DEVICE.
 */
int xrt_check_root(const char *xilinx_xrt);

#endif /* QUIRE_XRT_H */
