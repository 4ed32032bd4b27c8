/*
 * msgpack_skip.h - the length of the first msgpack object in a buffer,
 * without decoding it: what a load generator needs to count replies at
 * the speed the daemon sends them.
 */
#ifndef ANIMD_TEST_MSGPACK_SKIP_H
#define ANIMD_TEST_MSGPACK_SKIP_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of the first complete object at p (n bytes available), or 0 when
 * it is incomplete (or nested deeper than 32). */
size_t msgpack_skip(const uint8_t *p, size_t n);

#endif
