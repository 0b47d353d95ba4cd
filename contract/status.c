// SPDX-License-Identifier: MIT
/* The status strings: quire_strerror over the X-macro list of quire/status.h. */
#include "quire/status.h"

const char *quire_strerror(int status)
{
	switch (status) {
#define QUIRE_STATUS_CASE(name, value, text)                                                       \
	case value:                                                                                \
		return text;
		QUIRE_STATUS_LIST(QUIRE_STATUS_CASE)
#undef QUIRE_STATUS_CASE
	default:
		return "unknown status code";
	}
}
