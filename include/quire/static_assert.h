/* SPDX-License-Identifier: MIT */
/*
 * QUIRE_STATIC_ASSERT(cond, msg): a compile-time check that the contract's headers can
 * make in C11 and in C++11 or later alike. g++ knows no _Static_assert, and C11 spells
 * static_assert only as a macro of <assert.h>, a header the contract does without.
 */
#ifndef QUIRE_STATIC_ASSERT_H
#define QUIRE_STATIC_ASSERT_H

#ifdef __cplusplus
#define QUIRE_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define QUIRE_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#endif /* QUIRE_STATIC_ASSERT_H */
