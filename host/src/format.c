// SPDX-License-Identifier: MIT
/* Names and element sizes of libquire's formats, and its version. */
#include <string.h>

#include "quire.h"

static const struct {
	enum quire_format fmt;
	const char *name;
	size_t bytes;
} formats[] = {
    {QUIRE_FMT_FP32, "fp32", 4},   {QUIRE_FMT_FP16, "fp16", 2}, {QUIRE_FMT_BFP8, "bfp8", 1},
    {QUIRE_FMT_BFP16, "bfp16", 2}, {QUIRE_FMT_INT8, "int8", 1}, {QUIRE_FMT_INT16, "int16", 2},
    {QUIRE_FMT_INT32, "int32", 4},
};

const char *quire_format_name(enum quire_format fmt)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].fmt == fmt)
			return formats[i].name;
	return NULL;
}

enum quire_format quire_format_parse(const char *name)
{
	for (size_t i = 0; name && i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0)
			return formats[i].fmt;
	return 0;
}

size_t quire_format_bytes(enum quire_format fmt, size_t n)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].fmt == fmt)
			return formats[i].bytes * n;
	return 0;
}

const char *quire_version(void)
{
#define QUIRE_STR2(x) #x
#define QUIRE_STR(x)  QUIRE_STR2(x)
	return QUIRE_STR(QUIRE_VERSION_MAJOR) "." QUIRE_STR(QUIRE_VERSION_MINOR) "." QUIRE_STR(
	    QUIRE_VERSION_PATCH);
}
