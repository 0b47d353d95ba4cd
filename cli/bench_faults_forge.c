// SPDX-License-Identifier: MIT
/*
 * quire bench faults: the forged frame, what a sender outside the job can put on the cards'
 * network. It has seen one real frame of the collective (the network is not private) and
 * sends its own copy of it first: the frame's header as the real one (the same collective,
 * step, offset and the sender the receiver expects), its own payload, and both CRCs valid,
 * from its own port at an address no card of the job has. The frame and link layouts are
 * the contract's (include/quire/frame.h); the CRC is zlib's CRC-32, the frames' polynomial.
 * A job key and a tag over header and payload, if the network has them, is what this
 * forger cannot make: the campaign then shows the frame refused.
 */
#include <string.h>
#include <zlib.h>

#include "bench_faults.h"
#include "quire/frame.h"

static void st32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

size_t faults_link_bytes(const uint8_t *d, size_t len)
{
	return QUIRE_LINK_HDR_BYTES +
	       (len && d[0] == QUIRE_LINK_VERSION_TAGGED ? QUIRE_LINK_TAG_BYTES : 0);
}

size_t faults_forge(const uint8_t *real, size_t len, uint64_t seed, uint8_t *out, size_t cap)
{
	size_t link = faults_link_bytes(real, len);
	if (len < link + QUIRE_FRAME_HDR_BYTES || len > cap)
		return 0;
	memcpy(out, real, len);
	/* The link: a new session of the foreign port, its first frame, of the real one's
	 * version, naming the receiver's incarnation as the real one does; a tag, if the real
	 * one has one, stays the real frame's (the forger has no key to make its own). */
	st32(out, real[0] | QUIRE_LINK_DATA << 8 | FAULTS_FOREIGN_ADDR << 16);
	st32(out + QUIRE_LINK_OFF_SESSION, (uint32_t)(seed | 1));
	st32(out + QUIRE_LINK_OFF_SEQ, 1);
	st32(out + QUIRE_LINK_OFF_CRC, (uint32_t)crc32(0, out, QUIRE_LINK_OFF_CRC));
	/* The frame: the real header, a payload of the forger's choosing, a valid CRC. */
	uint8_t *f = out + link;
	size_t flen = len - link;
	uint64_t s = seed * 0x9e3779b97f4a7c15ull | 1;
	for (size_t i = QUIRE_FRAME_HDR_BYTES; i < flen; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		f[i] = (uint8_t)(s >> 56);
	}
	static const uint8_t zero[4];
	uLong crc = crc32(0, f, QUIRE_FRAME_OFF_CRC);
	crc = crc32(crc, zero, 4);
	crc = crc32(crc, f + QUIRE_FRAME_HDR_BYTES, (uInt)(flen - QUIRE_FRAME_HDR_BYTES));
	st32(f + QUIRE_FRAME_OFF_CRC, (uint32_t)crc);
	return len;
}
