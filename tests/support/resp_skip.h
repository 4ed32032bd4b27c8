/*
 * resp_skip.h - the length of the first Redis (RESP) reply in a buffer,
 * without decoding it: what bench_rpc's load generator needs to count a
 * Redis server's replies the way msgpack_skip counts the daemon's.
 */
#ifndef ANIMD_TEST_RESP_SKIP_H
#define ANIMD_TEST_RESP_SKIP_H

#include <stddef.h>
#include <stdint.h>

/*
 * Bytes of the first complete reply at p (n bytes available), or 0 when it
 * is incomplete, malformed, or nested deeper than 32.  Knows RESP2 (simple
 * string, error, integer, bulk string, array, the -1 nulls) and the RESP3
 * types built the same way (null, double, boolean, big number, verbatim
 * and blob error, map, set, push); not RESP3 attributes.
 */
size_t resp_skip(const uint8_t *p, size_t n);

#endif
