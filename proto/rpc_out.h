/*
 * rpc_out.h - msgpack written straight into a growable byte buffer: what
 * the daemon packs its replies and events with.
 *
 * Why not msgpack-c's packer here: it hands every element, even a one-byte
 * header, to a write callback through a function pointer.  On the request
 * path (a reply of a dozen elements) those calls were a third of all the
 * daemon's instructions.  These writers are inline and check for room once
 * per element.  They produce the smallest encoding of each value, exactly
 * as msgpack-c's packer does (a unit test decodes everything they write
 * with msgpack-c), and the client side keeps using msgpack-c.
 *
 * Errors are sticky: when the buffer cannot grow, `failed` is set and the
 * element is dropped.  Pack a whole message, then check rpc_out_failed()
 * once and discard the message if it is set.
 */
#ifndef ANIMD_PROTO_RPC_OUT_H
#define ANIMD_PROTO_RPC_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proto/animd_proto.h"

struct rpc_out {
	char *data;
	size_t len;
	size_t cap;
	bool failed;                    /* an element was dropped for want of memory */
};

#define RPC_OUT_INIT { NULL, 0, 0, false }

/* msgpack-RPC message types: the first element of every message. */
enum rpc_type {
	RPC_TYPE_REQUEST = 0,
	RPC_TYPE_RESPONSE = 1,
	RPC_TYPE_NOTIFICATION = 2,
};

/* Free the buffer; the writer is empty and usable again. */
void rpc_out_free(struct rpc_out *o);
/* Room for n more bytes (the buffer grows), or NULL with `failed` set. */
char *rpc_out_grow(struct rpc_out *o, size_t n);

static inline bool rpc_out_failed(const struct rpc_out *o)
{
	return o->failed;
}

/* Roll back to `len` bytes written (a mark taken earlier), forgetting any
 * failure after it. */
static inline void rpc_out_truncate(struct rpc_out *o, size_t len)
{
	if (len < o->len)
		o->len = len;
	o->failed = false;
}

static inline char *rpc_out_room(struct rpc_out *o, size_t n)
{
	if (__builtin_expect(o->cap - o->len >= n, 1))
		return o->data + o->len;
	return rpc_out_grow(o, n);
}

static inline void rpc_out_be16(char *p, uint16_t v)
{
	p[0] = (char)(v >> 8);
	p[1] = (char)v;
}

static inline void rpc_out_be32(char *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static inline void rpc_out_be64(char *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

/* A type byte followed by an n-byte big-endian length (n = 0, 1, 2 or 4):
 * the header of strings, binaries, arrays and maps, at p (5 bytes of room).
 * Returns the header's length. */
static inline size_t rpc_out_head_at(char *p, uint8_t fix, uint32_t fix_limit, uint8_t t8,
				     uint8_t t16, uint8_t t32, uint32_t n)
{
	if (n < fix_limit) {
		p[0] = (char)(fix | n);
		return 1;
	}
	if (t8 != 0 && n <= 0xff) {
		p[0] = (char)t8;
		p[1] = (char)n;
		return 2;
	}
	if (n <= 0xffff) {
		p[0] = (char)t16;
		rpc_out_be16(p + 1, (uint16_t)n);
		return 3;
	}
	p[0] = (char)t32;
	rpc_out_be32(p + 1, n);
	return 5;
}

static inline void rpc_out_head(struct rpc_out *o, uint8_t fix, uint32_t fix_limit,
				uint8_t t8, uint8_t t16, uint8_t t32, uint32_t n)
{
	char *p = rpc_out_room(o, 5);

	if (p != NULL)
		o->len += rpc_out_head_at(p, fix, fix_limit, t8, t16, t32, n);
}

/* A header and its n bytes of body, with one check for room. */
static inline void rpc_out_head_body(struct rpc_out *o, uint8_t fix, uint32_t fix_limit,
				     uint8_t t8, uint8_t t16, uint8_t t32, const void *body,
				     size_t n)
{
	char *p;

	if (n > UINT32_MAX || (p = rpc_out_room(o, 5 + n)) == NULL) {
		o->failed = true;
		return;
	}
	p += rpc_out_head_at(p, fix, fix_limit, t8, t16, t32, (uint32_t)n);
	if (n > 0)
		memcpy(p, body, n);
	o->len = (size_t)(p + n - o->data);
}

static inline void rpc_put_array(struct rpc_out *o, uint32_t n)
{
	rpc_out_head(o, 0x90, 16, 0, 0xdc, 0xdd, n);
}

static inline void rpc_put_map(struct rpc_out *o, uint32_t n)
{
	rpc_out_head(o, 0x80, 16, 0, 0xde, 0xdf, n);
}

static inline void rpc_put_nil(struct rpc_out *o)
{
	char *p = rpc_out_room(o, 1);

	if (p != NULL) {
		p[0] = (char)0xc0;
		o->len++;
	}
}

static inline void rpc_put_bool(struct rpc_out *o, bool v)
{
	char *p = rpc_out_room(o, 1);

	if (p != NULL) {
		p[0] = (char)(v ? 0xc3 : 0xc2);
		o->len++;
	}
}

/* An unsigned integer at p (9 bytes of room); returns its length. */
static inline size_t rpc_out_uint_at(char *p, uint64_t v)
{
	if (v <= 0x7f) {
		p[0] = (char)v;
		return 1;
	}
	if (v <= 0xff) {
		p[0] = (char)0xcc;
		p[1] = (char)v;
		return 2;
	}
	if (v <= 0xffff) {
		p[0] = (char)0xcd;
		rpc_out_be16(p + 1, (uint16_t)v);
		return 3;
	}
	if (v <= 0xffffffffu) {
		p[0] = (char)0xce;
		rpc_out_be32(p + 1, (uint32_t)v);
		return 5;
	}
	p[0] = (char)0xcf;
	rpc_out_be64(p + 1, v);
	return 9;
}

static inline void rpc_put_uint(struct rpc_out *o, uint64_t v)
{
	char *p = rpc_out_room(o, 9);

	if (p != NULL)
		o->len += rpc_out_uint_at(p, v);
}

static inline void rpc_put_int(struct rpc_out *o, int64_t v)
{
	char *p;

	if (v >= 0) {
		rpc_put_uint(o, (uint64_t)v);
		return;
	}
	p = rpc_out_room(o, 9);
	if (p == NULL)
		return;
	if (v >= -32) {
		p[0] = (char)(int8_t)v;                 /* negative fixint */
		o->len += 1;
	} else if (v >= INT8_MIN) {
		p[0] = (char)0xd0;
		p[1] = (char)(int8_t)v;
		o->len += 2;
	} else if (v >= INT16_MIN) {
		p[0] = (char)0xd1;
		rpc_out_be16(p + 1, (uint16_t)(int16_t)v);
		o->len += 3;
	} else if (v >= INT32_MIN) {
		p[0] = (char)0xd2;
		rpc_out_be32(p + 1, (uint32_t)(int32_t)v);
		o->len += 5;
	} else {
		p[0] = (char)0xd3;
		rpc_out_be64(p + 1, (uint64_t)v);
		o->len += 9;
	}
}

static inline void rpc_put_double(struct rpc_out *o, double v)
{
	char *p = rpc_out_room(o, 9);
	uint64_t bits;

	if (p == NULL)
		return;
	memcpy(&bits, &v, sizeof bits);
	p[0] = (char)0xcb;
	rpc_out_be64(p + 1, bits);
	o->len += 9;
}

static inline void rpc_put_float(struct rpc_out *o, float v)
{
	char *p = rpc_out_room(o, 5);
	uint32_t bits;

	if (p == NULL)
		return;
	memcpy(&bits, &v, sizeof bits);
	p[0] = (char)0xca;
	rpc_out_be32(p + 1, bits);
	o->len += 5;
}

/* An array of n floats: poses are mostly this, so one check for room. */
static inline void rpc_put_float_array(struct rpc_out *o, const float *v, size_t n)
{
	char *p;

	if (n > UINT32_MAX || n > (SIZE_MAX - 5) / 5 || (p = rpc_out_room(o, 5 + 5 * n)) == NULL) {
		o->failed = true;
		return;
	}
	p += rpc_out_head_at(p, 0x90, 16, 0, 0xdc, 0xdd, (uint32_t)n);
	for (size_t i = 0; i < n; i++, p += 5) {
		uint32_t bits;

		memcpy(&bits, &v[i], sizeof bits);
		p[0] = (char)0xca;
		rpc_out_be32(p + 1, bits);
	}
	o->len = (size_t)(p - o->data);
}

/* Raw bytes that are already msgpack. */
static inline void rpc_put_raw(struct rpc_out *o, const void *bytes, size_t n)
{
	char *p = rpc_out_room(o, n);

	if (p != NULL && n > 0) {
		memcpy(p, bytes, n);
		o->len += n;
	}
}

/* The length of the valid UTF-8 that starts s (n when all of it is):
 * overlong forms, surrogates and code points past U+10FFFF are not. */
size_t rpc_utf8_valid_prefix(const char *s, size_t n);
/* rpc_put_str of bytes that are not all valid UTF-8: each byte of an
 * invalid sequence written as "\xNN". */
void rpc_put_str_escaped(struct rpc_out *o, const char *s, size_t n);

/*
 * A msgpack str is UTF-8 by the specification, and strict clients (Python's
 * msgpack, JSON bridges) refuse anything else, so every str animd sends is
 * valid UTF-8 whatever a file held: names that come from file contents
 * (joints, clips, meshes, materials) with bytes that are not UTF-8 go out
 * with those bytes escaped as "\xNN" (asset names never need it: the cache
 * does not serve names that are not text).  Strings longer than 4 GiB
 * cannot be encoded; the daemon never has one, but such a call marks the
 * writer failed rather than truncating.
 */
static inline void rpc_put_str(struct rpc_out *o, const char *s, size_t n)
{
	size_t ascii = 0;

	if (n > UINT32_MAX) {
		o->failed = true;
		return;
	}
	while (ascii < n && (unsigned char)s[ascii] < 0x80)
		ascii++;
	if (ascii < n && rpc_utf8_valid_prefix(s, n) < n) {
		rpc_put_str_escaped(o, s, n);
		return;
	}
	rpc_out_head_body(o, 0xa0, 32, 0xd9, 0xda, 0xdb, s, n);
}

/* A NUL-terminated string; NULL is packed as "". */
static inline void rpc_put_cstr(struct rpc_out *o, const char *s)
{
	if (s == NULL)
		s = "";
	rpc_put_str(o, s, strlen(s));
}

/* A string literal (its length known at compile time): map keys mostly. */
#define rpc_put_lit(o, lit) rpc_put_str((o), "" lit, sizeof(lit) - 1)

static inline void rpc_put_bin(struct rpc_out *o, const void *bytes, size_t n)
{
	rpc_out_head_body(o, 0, 0, 0xc4, 0xc5, 0xc6, bytes, n);
}

/* ---------------------------------------------------------------------
 * The daemon's messages (PROTOCOL.md §2).
 * ------------------------------------------------------------------- */

/* [1, msgid, nil, result]: the caller writes exactly one object, the
 * result, next. */
void rpc_put_response(struct rpc_out *o, uint32_t msgid);
/* [1, msgid, {"code": ..., "message": ...}, nil], complete.  A code with no
 * wire name is sent as "internal"; message NULL as "". */
void rpc_put_error(struct rpc_out *o, uint32_t msgid, enum proto_error code,
		   const char *message);
/* [2, "event", [{"type": <type>, ...}]]: the map holds 1 + nfields entries;
 * the caller writes exactly nfields key/value pairs next.  An event type
 * with no name marks the writer failed. */
void rpc_put_event(struct rpc_out *o, enum proto_event type, uint32_t nfields);

/* Is data (len bytes) a sequence of whole messages the daemon may send:
 * responses [1, msgid, nil, result] or [1, msgid, {code, message}, nil],
 * events [2, name, [{type, ...}]], and no stray object between them?  0, or
 * -EPROTO with the first problem and its offset in why.  A debug check of
 * everything the writers produce (a map header that counts one pair too
 * few leaves its last pair as stray top-level objects); it unpacks every
 * byte, so release builds (NDEBUG) do not run it. */
int rpc_out_check(const char *data, size_t len, char *why, size_t whylen);

#endif
