# SPDX-License-Identifier: MIT
# The CPU codec (codec.h): objects that go into libquire (host/build.mk) and into libquire_sim
# (sim/build.mk), whose emu engines call it; with the hls/ objects, which it needs for block
# tails and as its scalar implementation. The SIMD files get their instruction sets; codec.c
# calls them only where this CPU has them.
CODEC_SRCS := codec/codec.c codec/simd_avx2.c codec/simd_avx512.c
CODEC_OBJS := $(CODEC_SRCS:%.c=$(BUILD)/%.o)
EXTRA_CFLAGS_codec/simd_avx2.c := -mavx2 -mf16c
EXTRA_CFLAGS_codec/simd_avx512.c := -mavx512f
