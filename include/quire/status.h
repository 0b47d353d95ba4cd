/* SPDX-License-Identifier: MIT */
/*
 * Status codes, shared by completion records, firmware and the C API.
 *
 * The list is written once, as an X-macro, so the enum and the strings of
 * quire_strerror() cannot drift apart. Codes are small non-negative integers:
 * they travel in 16-bit completion fields.
 */
#ifndef QUIRE_STATUS_H
#define QUIRE_STATUS_H

#define QUIRE_STATUS_LIST(X)                                                                       \
	X(QUIRE_OK, 0, "success")                                                                  \
	X(QUIRE_ERR_INVALID, 1, "invalid argument")                                                \
	X(QUIRE_ERR_FORMAT, 2, "unknown or unsupported format")                                    \
	X(QUIRE_ERR_SIZE, 3, "invalid size or length")                                             \
	X(QUIRE_ERR_ALIGN, 4, "misaligned address or length")                                      \
	X(QUIRE_ERR_RANGE, 5, "address or value out of range")                                     \
	X(QUIRE_ERR_OPCODE, 6, "unknown opcode")                                                   \
	X(QUIRE_ERR_NOMEM, 7, "out of memory")                                                     \
	X(QUIRE_ERR_IO, 8, "input/output error")                                                   \
	X(QUIRE_ERR_CORRUPT, 9, "corrupt or malformed data")                                       \
	X(QUIRE_ERR_SHAPE, 10, "invalid model shape")                                              \
	X(QUIRE_ERR_NO_FEASIBLE, 11, "no feasible candidate")                                      \
	X(QUIRE_ERR_TIMEOUT, 12, "timed out")                                                      \
	X(QUIRE_ERR_NO_DEVICE, 13, "no device found")                                              \
	X(QUIRE_ERR_NOT_SUPPORTED, 14, "operation not supported by this backend")                  \
	X(QUIRE_ERR_BUSY, 15, "device or queue busy")                                              \
	X(QUIRE_ERR_VERSION, 16, "interface version mismatch")                                     \
	X(QUIRE_ERR_PEER, 17, "peer lost")                                                         \
	X(QUIRE_ERR_OVERFLOW, 18, "partial sum would overflow its integer type")                   \
	X(QUIRE_ERR_INTERNAL, 19, "internal error")                                                \
	X(QUIRE_ERR_OVERRUN, 20, "command ring overrun: descriptors were lost")                    \
	X(QUIRE_ERR_LINK, 21, "frame lost or corrupted on the card network")                       \
	X(QUIRE_ERR_UNRESPONSIVE, 22,                                                              \
	  "card unresponsive: an earlier wait timed out; reopen the context")                      \
	X(QUIRE_ERR_MISMATCH, 23, "the members of a communicator set its options differently")

enum quire_status {
#define QUIRE_STATUS_ENUM(name, value, text) name = value,
	QUIRE_STATUS_LIST(QUIRE_STATUS_ENUM)
#undef QUIRE_STATUS_ENUM
};

#define QUIRE_STATUS_COUNT 24 /* one past the largest code */

#ifdef __cplusplus
extern "C" {
#endif

/* A short English description of a status code; never NULL. */
const char *quire_strerror(int status);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_STATUS_H */
