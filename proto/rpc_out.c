/*
 * rpc_out.c - the out-of-line half of the msgpack writer: growing the
 * buffer, and the envelopes of the daemon's messages.
 */
#include "proto/rpc_out.h"

#include <errno.h>
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/rpc.h"

/* The first buffer: a typical reply, or a batch of small ones, fits. */
#define RPC_OUT_MIN 4096u

void rpc_out_free(struct rpc_out *o)
{
	free(o->data);
	*o = (struct rpc_out)RPC_OUT_INIT;
}

char *rpc_out_grow(struct rpc_out *o, size_t n)
{
	size_t cap = o->cap < RPC_OUT_MIN ? RPC_OUT_MIN : o->cap;
	char *p;

	if (n > SIZE_MAX / 4 - o->len) {
		o->failed = true;
		return NULL;
	}
	while (cap - o->len < n)
		cap *= 2;
	p = realloc(o->data, cap);
	if (p == NULL) {
		o->failed = true;
		return NULL;
	}
	o->data = p;
	o->cap = cap;
	return p + o->len;
}

void rpc_put_response(struct rpc_out *o, uint32_t msgid)
{
	/* Every successful reply starts so: one check for room, not four. */
	char *p = rpc_out_room(o, 8);
	size_t n;

	if (p == NULL)
		return;
	p[0] = (char)0x94;              /* fixarray of 4 */
	p[1] = RPC_TYPE_RESPONSE;
	n = 2 + rpc_out_uint_at(p + 2, msgid);
	p[n++] = (char)0xc0;            /* no error */
	o->len += n;
}

void rpc_put_error(struct rpc_out *o, uint32_t msgid, enum proto_error code,
		   const char *message)
{
	const char *name = proto_error_name(code);

	if (name == NULL)
		name = proto_error_name(PROTO_ERR_INTERNAL);
	rpc_put_array(o, 4);
	rpc_put_uint(o, RPC_TYPE_RESPONSE);
	rpc_put_uint(o, msgid);
	rpc_put_map(o, 2);
	rpc_put_lit(o, "code");
	rpc_put_cstr(o, name);
	rpc_put_lit(o, "message");
	rpc_put_cstr(o, message);
	rpc_put_nil(o);
}

void rpc_put_event(struct rpc_out *o, enum proto_event type, uint32_t nfields)
{
	const char *name = proto_event_name(type);

	if (name == NULL || nfields == UINT32_MAX) {
		o->failed = true;
		return;
	}
	rpc_put_array(o, 3);
	rpc_put_uint(o, RPC_TYPE_NOTIFICATION);
	rpc_put_cstr(o, PROTO_EVENT_METHOD);
	rpc_put_array(o, 1);
	rpc_put_map(o, 1 + nfields);
	rpc_put_lit(o, "type");
	rpc_put_cstr(o, name);
}

void rpc_put_error_reply(struct rpc_out *o, const struct rpc_error *err)
{
	rpc_put_error(o, err->msgid, err->code, err->message);
}

static bool rpc_check_is_str(const msgpack_object *o)
{
	return o->type == MSGPACK_OBJECT_STR;
}

/* The map value of key in m, or NULL. */
static const msgpack_object *rpc_check_get(const msgpack_object *m, const char *key)
{
	size_t n = strlen(key);

	if (m->type != MSGPACK_OBJECT_MAP)
		return NULL;
	for (uint32_t i = 0; i < m->via.map.size; i++) {
		const msgpack_object *k = &m->via.map.ptr[i].key;

		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
		    memcmp(k->via.str.ptr, key, n) == 0)
			return &m->via.map.ptr[i].val;
	}
	return NULL;
}

/* Why one top-level object is not a message the daemon may send, or NULL. */
static const char *rpc_check_message(const msgpack_object *o)
{
	const msgpack_object *a, *e;

	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size < 3)
		return "a top-level object that is not a message array";
	a = o->via.array.ptr;
	if (a[0].type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return "a message whose type is not an integer";
	if (a[0].via.u64 == RPC_TYPE_RESPONSE) {
		if (o->via.array.size != 4 || a[1].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
		    a[1].via.u64 > UINT32_MAX)
			return "a response that is not [1, msgid, error, result]";
		if (a[2].type == MSGPACK_OBJECT_NIL)
			return NULL;
		e = rpc_check_get(&a[2], "code");
		if (a[2].via.map.size != 2 || e == NULL || !rpc_check_is_str(e) ||
		    (e = rpc_check_get(&a[2], "message")) == NULL || !rpc_check_is_str(e) ||
		    a[3].type != MSGPACK_OBJECT_NIL)
			return "an error response that is not [1, msgid, {code, message}, nil]";
		return NULL;
	}
	if (a[0].via.u64 == RPC_TYPE_NOTIFICATION) {
		if (o->via.array.size != 3 || !rpc_check_is_str(&a[1]) ||
		    a[2].type != MSGPACK_OBJECT_ARRAY || a[2].via.array.size != 1 ||
		    (e = rpc_check_get(&a[2].via.array.ptr[0], "type")) == NULL ||
		    !rpc_check_is_str(e))
			return "an event that is not [2, \"event\", [{type, ...}]]";
		return NULL;
	}
	return "a message of a type the daemon never sends";
}

int rpc_out_check(const char *data, size_t len, char *why, size_t whylen)
{
	msgpack_unpacked msg;
	size_t off = 0;
	int rc = 0;

	msgpack_unpacked_init(&msg);
	while (off < len && rc == 0) {
		size_t at = off;
		msgpack_unpack_return r = msgpack_unpack_next(&msg, data, len, &off);
		const char *bad;

		if (r != MSGPACK_UNPACK_SUCCESS) {
			snprintf(why, whylen, "offset %zu: %s", at,
				 r == MSGPACK_UNPACK_CONTINUE ? "a message cut short"
							      : "bytes that are not msgpack");
			rc = -EPROTO;
		} else if ((bad = rpc_check_message(&msg.data)) != NULL) {
			snprintf(why, whylen, "offset %zu: %s", at, bad);
			rc = -EPROTO;
		}
	}
	msgpack_unpacked_destroy(&msg);
	return rc;
}

/* The length of the UTF-8 sequence at s (of at most n bytes), or 0 when it
 * is not one: RFC 3629's table, so no overlong form, surrogate or code
 * point past U+10FFFF. */
static size_t rpc_utf8_one(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp, min;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

size_t rpc_utf8_valid_prefix(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		size_t k = rpc_utf8_one(u + i, n - i);

		if (k == 0)
			break;
		i += k;
	}
	return i;
}

void rpc_put_str_escaped(struct rpc_out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t need = 0;
	char *text, *p;

	for (size_t i = 0; i < n;) {
		size_t k = rpc_utf8_one(u + i, n - i);

		need += k > 0 ? k : 4;
		i += k > 0 ? k : 1;
	}
	text = malloc(need + 1);
	if (text == NULL) {
		o->failed = true;
		return;
	}
	p = text;
	for (size_t i = 0; i < n;) {
		size_t k = rpc_utf8_one(u + i, n - i);

		if (k > 0) {
			memcpy(p, u + i, k);
			p += k;
			i += k;
			continue;
		}
		*p++ = '\\';
		*p++ = 'x';
		*p++ = hex[u[i] >> 4];
		*p++ = hex[u[i] & 15];
		i++;
	}
	rpc_out_head_body(o, 0xa0, 32, 0xd9, 0xda, 0xdb, text, (size_t)(p - text));
	free(text);
}
