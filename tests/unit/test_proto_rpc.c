/*
 * The msgpack-RPC wire layer (proto/rpc.h): the bounded streaming decoder
 * under every way bytes can arrive or misbehave, request validation, the
 * typed argument getters with their exact messages, and the encoders
 * (the client's on msgpack-c's packer, the daemon's own writer) checked
 * against msgpack-c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/animd_proto.h"
#include "proto/rpc.h"

/* ---------------------------------------------------------------------
 * Helpers: build messages with msgpack-c's packer.
 * ------------------------------------------------------------------- */

struct out {
	msgpack_sbuffer sb;
	msgpack_packer pk;
};

static void out_init(struct out *o)
{
	msgpack_sbuffer_init(&o->sb);
	msgpack_packer_init(&o->pk, &o->sb, msgpack_sbuffer_write);
}

static void out_free(struct out *o)
{
	msgpack_sbuffer_destroy(&o->sb);
}

static void put_str(struct out *o, const char *s)
{
	assert_int_equal(rpc_pack_cstr(&o->pk, s), 0);
}

/* [0, msgid, method, [{args}]] header; nargs pairs follow. */
static void put_request(struct out *o, uint32_t msgid, const char *method, uint32_t nargs)
{
	assert_int_equal(rpc_pack_request(&o->pk, msgid, method, nargs), 0);
}

static struct rpc_decoder *decoder_new(const struct rpc_limits *lim)
{
	struct rpc_decoder *d = malloc(sizeof *d);

	assert_non_null(d);
	assert_int_equal(rpc_decoder_init(d, lim), 0);
	return d;
}

static void decoder_free(struct rpc_decoder *d)
{
	rpc_decoder_close(d);
	free(d);
}

/* Feed all bytes at once and expect exactly one message. */
static void decode_one(struct rpc_decoder *d, const void *data, size_t len, struct rpc_message *m)
{
	struct rpc_error err;

	assert_int_equal(rpc_decoder_feed(d, data, len), 0);
	assert_int_equal(rpc_decoder_next(d, m, &err), 1);
	assert_int_equal(m->size, len);
}

/* Decode `data` as one message and validate it as a request.  The decoder
 * is gone on return, so only req's scalars and err may be used. */
static int parse_bytes(const void *data, size_t len, struct rpc_request *req,
		       struct rpc_error *err)
{
	struct rpc_decoder *d = decoder_new(NULL);
	struct rpc_message m;
	int rc;

	decode_one(d, data, len, &m);
	rc = rpc_request_parse(&m.obj, req, err);
	decoder_free(d);
	return rc;
}

static int parse_out(struct out *o, struct rpc_request *req, struct rpc_error *err)
{
	return parse_bytes(o->sb.data, o->sb.size, req, err);
}

/* ---------------------------------------------------------------------
 * Names and tables.
 * ------------------------------------------------------------------- */

static void test_tables(void **state)
{
	(void)state;
	for (int m = 0; m < PROTO_METHOD_COUNT; m++) {
		const char *n = proto_method_name((enum proto_method)m);

		assert_non_null(n);
		assert_int_equal(proto_method_lookup(n, strlen(n)), m);
	}
	assert_int_equal(proto_method_lookup("assets.list", 11), PROTO_METHOD_ASSETS_LIST);
	assert_int_equal(proto_method_lookup("hell", 4), -ENOENT);
	assert_int_equal(proto_method_lookup("hello!", 6), -ENOENT);
	assert_int_equal(proto_method_lookup("HELLO", 5), -ENOENT);
	assert_int_equal(proto_method_lookup("hello", 4), -ENOENT);
	assert_int_equal(proto_method_lookup(NULL, 0), -ENOENT);
	assert_null(proto_method_name(PROTO_METHOD_COUNT));

	assert_null(proto_error_name(PROTO_ERR_NONE));
	assert_null(proto_error_name(PROTO_ERR_COUNT));
	assert_string_equal(proto_error_name(PROTO_ERR_BAD_REQUEST), "bad_request");
	assert_string_equal(proto_error_name(PROTO_ERR_NOT_FOUND), "not_found");
	assert_string_equal(proto_error_name(PROTO_ERR_LIMIT), "limit");
	assert_string_equal(proto_error_name(PROTO_ERR_ASSET_ERROR), "asset_error");
	for (int e = 1; e < PROTO_ERR_COUNT; e++) {
		const char *n = proto_error_name((enum proto_error)e);

		assert_non_null(n);
		assert_int_equal(proto_error_lookup(n, strlen(n)), e);
	}
	assert_int_equal(proto_error_lookup("nope", 4), -ENOENT);

	for (int e = 0; e < PROTO_EVENT_COUNT; e++) {
		const char *n = proto_event_name((enum proto_event)e);

		assert_non_null(n);
		assert_int_equal(proto_event_lookup(n, strlen(n)), e);
	}
	assert_string_equal(proto_event_name(PROTO_EVENT_INSTANCE_STOPPED), "instance.stopped");
	assert_null(proto_event_name(PROTO_EVENT_COUNT));
}

/* ---------------------------------------------------------------------
 * Valid requests.
 * ------------------------------------------------------------------- */

static void test_request_no_params(void **state)
{
	struct rpc_request req;
	struct rpc_error err;
	struct out o;

	(void)state;
	out_init(&o);
	put_request(&o, 7, "hello", 0);
	assert_int_equal(parse_out(&o, &req, &err), 0);
	assert_int_equal(req.msgid, 7);
	assert_int_equal(req.method, PROTO_METHOD_HELLO);
	assert_null(req.args);
	out_free(&o);
}

static void test_request_named_params(void **state)
{
	struct rpc_decoder *d = decoder_new(NULL);
	struct rpc_message m;
	struct rpc_request req;
	struct rpc_error err;
	struct rpc_args a;
	struct rpc_str asset, clip;
	double speed = 1;
	bool loop = false;
	struct out o;

	(void)state;
	out_init(&o);
	put_request(&o, UINT32_MAX, "play", 4);
	put_str(&o, "asset");
	put_str(&o, "walker.md5anim");
	put_str(&o, "clip");
	put_str(&o, "walk");
	put_str(&o, "speed");
	msgpack_pack_double(&o.pk, -0.5);
	put_str(&o, "loop");
	msgpack_pack_true(&o.pk);
	decode_one(d, o.sb.data, o.sb.size, &m);
	assert_int_equal(rpc_request_parse(&m.obj, &req, &err), 0);
	assert_int_equal(req.msgid, UINT32_MAX);
	assert_int_equal(req.method, PROTO_METHOD_PLAY);
	assert_non_null(req.args);
	assert_int_equal(req.args->size, 4);

	rpc_args_init(&a, &req, &err);
	assert_int_equal(rpc_args_string(&a, "asset", RPC_REQUIRED, 4096, &asset), 1);
	assert_int_equal(rpc_args_string(&a, "clip", RPC_REQUIRED, 4096, &clip), 1);
	assert_int_equal(rpc_args_double(&a, "speed", RPC_OPTIONAL, &speed), 1);
	assert_int_equal(rpc_args_bool(&a, "loop", RPC_OPTIONAL, &loop), 1);
	assert_int_equal(rpc_args_finish(&a), 0);
	assert_int_equal(asset.len, 14);
	assert_memory_equal(asset.ptr, "walker.md5anim", 14);
	assert_memory_equal(clip.ptr, "walk", 4);
	assert_true(speed == -0.5);
	assert_true(loop);
	out_free(&o);
	decoder_free(d);
}

static void test_request_empty_map(void **state)
{
	static const unsigned char msg[] = { 0x94, 0x00, 0x05, 0xa6, 's', 't', 'a', 't', 'u', 's',
					     0x91, 0x80 };
	struct rpc_decoder *d = decoder_new(NULL);
	struct rpc_message m;
	struct rpc_request req;
	struct rpc_error err;
	struct rpc_args a;

	(void)state;
	decode_one(d, msg, sizeof msg, &m);
	assert_int_equal(rpc_request_parse(&m.obj, &req, &err), 0);
	assert_int_equal(req.method, PROTO_METHOD_STATUS);
	assert_non_null(req.args);
	assert_int_equal(req.args->size, 0);
	rpc_args_init(&a, &req, &err);
	assert_int_equal(rpc_args_finish(&a), 0);
	decoder_free(d);
}

/* Non-canonical but valid encodings: array16 envelope, uint32 type 0,
 * str8 method. */
static void test_request_wide_encodings(void **state)
{
	static const unsigned char msg[] = { 0xdc, 0x00, 0x04, 0xce, 0, 0, 0, 0, 0xcd, 0x01, 0x00,
					     0xd9, 0x04, 's', 't', 'o', 'p', 0xdc, 0x00, 0x00 };
	struct rpc_request req;
	struct rpc_error err;

	(void)state;
	assert_int_equal(parse_bytes(msg, sizeof msg, &req, &err), 0);
	assert_int_equal(req.msgid, 256);
	assert_int_equal(req.method, PROTO_METHOD_STOP);
}

/* Issue 8, D8: a bin method name is a str one, for requests and client
 * notifications alike (Neovim's Python client sends its first
 * notification so), under the same rules. */
static void test_bin_method_names(void **state)
{
	static const unsigned char request[] = { 0x94, 0x00, 0x07, 0xc4, 0x06, 's', 't', 'a',
						 't', 'u', 's', 0x90 };
	static const unsigned char note[] = { 0x93, 0x02, 0xc4, 0x14, 'n', 'v', 'i', 'm', '_',
					      's', 'e', 't', '_', 'c', 'l', 'i', 'e', 'n', 't',
					      '_', 'i', 'n', 'f', 'o', 0x92, 0xa1, 'c', 0x80 };
	static const unsigned char not_text[] = { 0x94, 0x00, 0x08, 0xc4, 0x02, 'a', 0xff, 0x90 };
	static const unsigned char bad_note[] = { 0x93, 0x02, 0xc0, 0x90 };
	struct rpc_request req;
	struct rpc_error err;

	(void)state;
	assert_int_equal(parse_bytes(request, sizeof request, &req, &err), 0);
	assert_int_equal(req.method, PROTO_METHOD_STATUS);
	assert_int_equal(req.msgid, 7);
	assert_int_equal(parse_bytes(note, sizeof note, &req, &err), 1);
	/* An unknown one is quoted and escaped as a str one would be. */
	assert_int_equal(parse_bytes(not_text, sizeof not_text, &req, &err), -EBADMSG);
	assert_false(err.fatal);
	assert_int_equal(err.code, PROTO_ERR_UNKNOWN_METHOD);
	assert_int_equal(err.msgid, 8);
	assert_string_equal(err.message, "unknown method \"a\\xff\"");
	/* Neither str nor bin: a notification that is none. */
	assert_int_equal(parse_bytes(bad_note, sizeof bad_note, &req, &err), -EBADMSG);
	assert_true(err.fatal);
	assert_non_null(strstr(err.message, "its method is nil"));
}

static void test_client_notification_ignored(void **state)
{
	static const unsigned char ok[] = { 0x93, 0x02, 0xa3, 'f', 'o', 'o', 0x90 };
	static const unsigned char bad[] = { 0x92, 0x02, 0x05 };
	struct rpc_request req;
	struct rpc_error err;

	(void)state;
	assert_int_equal(parse_bytes(ok, sizeof ok, &req, &err), 1);
	assert_int_equal(parse_bytes(bad, sizeof bad, &req, &err), -EBADMSG);
	assert_true(err.fatal);
	assert_false(err.has_msgid);
	assert_int_equal(err.code, PROTO_ERR_BAD_REQUEST);
}

/* ---------------------------------------------------------------------
 * Streaming.
 * ------------------------------------------------------------------- */

/* Three requests back to back, as a client pipelining them sends them. */
static void make_stream(struct out *o)
{
	out_init(o);
	put_request(o, 1, "hello", 0);
	put_request(o, 2, "assets.info", 1);
	put_str(o, "asset");
	put_str(o, "dir/a b.md5mesh");
	put_request(o, 3, "seek", 2);
	put_str(o, "instance");
	msgpack_pack_uint32(&o->pk, 99);
	put_str(o, "time");
	msgpack_pack_float(&o->pk, 2.25f);
}

/* Take every message out, checking the request sequence 1, 2, 3. */
static int drain(struct rpc_decoder *d, uint32_t *next_id)
{
	struct rpc_message m;
	struct rpc_request req;
	struct rpc_error err;
	int rc;

	while ((rc = rpc_decoder_next(d, &m, &err)) == 1) {
		assert_int_equal(rpc_request_parse(&m.obj, &req, &err), 0);
		assert_int_equal(req.msgid, *next_id);
		(*next_id)++;
	}
	return rc;
}

static void test_pipelined(void **state)
{
	struct rpc_decoder *d = decoder_new(NULL);
	struct rpc_message m;
	struct rpc_error err;
	uint32_t id = 1;
	struct out o;

	(void)state;
	make_stream(&o);
	assert_int_equal(rpc_decoder_feed(d, o.sb.data, o.sb.size), 0);
	assert_int_equal(rpc_decoder_next(d, &m, &err), 1);
	/* Complete messages wait: feeding more now is refused, which is what
	 * keeps a server that stopped draining from buffering. */
	assert_int_equal(rpc_decoder_feed(d, "x", 1), -EBUSY);
	id = 2;
	assert_int_equal(drain(d, &id), 0);
	assert_int_equal(id, 4);
	assert_int_equal(rpc_decoder_pending(d), 0);
	assert_int_equal(rpc_decoder_finish(d, &err), 0);
	out_free(&o);
	decoder_free(d);
}

static void test_byte_at_a_time(void **state)
{
	struct rpc_decoder *d = decoder_new(NULL);
	uint32_t id = 1;
	struct out o;

	(void)state;
	make_stream(&o);
	for (size_t i = 0; i < o.sb.size; i++) {
		assert_int_equal(rpc_decoder_feed(d, o.sb.data + i, 1), 0);
		assert_int_equal(drain(d, &id), 0);
	}
	assert_int_equal(id, 4);
	out_free(&o);
	decoder_free(d);
}

/* Every split point of the stream gives the same messages. */
static void test_every_split(void **state)
{
	struct out o;

	(void)state;
	make_stream(&o);
	for (size_t k = 0; k <= o.sb.size; k++) {
		struct rpc_decoder *d = decoder_new(NULL);
		uint32_t id = 1;

		assert_int_equal(rpc_decoder_feed(d, o.sb.data, k), 0);
		assert_int_equal(drain(d, &id), 0);
		assert_int_equal(rpc_decoder_feed(d, o.sb.data + k, o.sb.size - k), 0);
		assert_int_equal(drain(d, &id), 0);
		assert_int_equal(id, 4);
		decoder_free(d);
	}
	out_free(&o);
}

static void test_truncated_then_completed(void **state)
{
	struct rpc_decoder *d = decoder_new(NULL);
	struct rpc_message m;
	struct rpc_request req;
	struct rpc_error err;
	struct out o;
	size_t half;

	(void)state;
	out_init(&o);
	put_request(&o, 42, "assets.reload", 1);
	put_str(&o, "asset");
	put_str(&o, "walker.md5mesh");
	half = o.sb.size / 2;
	assert_int_equal(rpc_decoder_feed(d, o.sb.data, half), 0);
	assert_int_equal(rpc_decoder_next(d, &m, &err), 0);
	assert_int_equal(rpc_decoder_pending(d), half);
	assert_int_equal(rpc_decoder_next(d, &m, &err), 0);     /* still pending */
	assert_int_equal(rpc_decoder_feed(d, o.sb.data + half, o.sb.size - half), 0);
	assert_int_equal(rpc_decoder_next(d, &m, &err), 1);
	assert_int_equal(m.size, o.sb.size);
	assert_memory_equal(m.data, o.sb.data, o.sb.size);
	assert_int_equal(rpc_request_parse(&m.obj, &req, &err), 0);
	assert_int_equal(req.msgid, 42);
	assert_int_equal(rpc_decoder_next(d, &m, &err), 0);
	out_free(&o);
	decoder_free(d);
}

/* The peer closes mid-message: a fatal error that still names the msgid. */
static void test_finish_truncated(void **state)
{
	struct rpc_decoder *d = decoder_new(NULL);
	struct rpc_message m;
	struct rpc_error err;
	struct out o;

	(void)state;
	out_init(&o);
	put_request(&o, 300, "assets.info", 1);
	put_str(&o, "asset");
	put_str(&o, "x");
	assert_int_equal(rpc_decoder_feed(d, o.sb.data, o.sb.size - 1), 0);
	assert_int_equal(rpc_decoder_finish(d, &err), -EBUSY);  /* not drained yet */
	assert_int_equal(rpc_decoder_next(d, &m, &err), 0);
	assert_int_equal(rpc_decoder_finish(d, &err), -EPROTO);
	assert_true(err.fatal);
	assert_int_equal(err.code, PROTO_ERR_BAD_REQUEST);
	assert_true(err.has_msgid);
	assert_int_equal(err.msgid, 300);
	assert_non_null(strstr(err.message, "closed inside a message"));
	out_free(&o);
	decoder_free(d);
}

static void test_reserve_commit(void **state)
{
	struct rpc_limits lim = RPC_LIMITS_DEFAULT;
	struct rpc_decoder *d;
	struct rpc_message m;
	struct rpc_error err;
	uint32_t id = 1;
	struct out o;
	size_t off = 0;

	(void)state;
	lim.max_message_bytes = 64;
	d = decoder_new(&lim);
	make_stream(&o);
	while (off < o.sb.size) {
		char *p;
		size_t room, n;

		assert_int_equal(rpc_decoder_reserve(d, 1 << 20, &p, &room), 0);
		assert_true(room >= 1 && room <= 64);           /* clamped to the cap */
		n = o.sb.size - off < 5 ? o.sb.size - off : 5;
		memcpy(p, o.sb.data + off, n);
		assert_int_equal(rpc_decoder_commit(d, n), 0);
		off += n;
		assert_int_equal(drain(d, &id), 0);
	}
	assert_int_equal(id, 4);
	{
		char *p;
		size_t room;

		assert_int_equal(rpc_decoder_reserve(d, 8, &p, &room), 0);
		assert_int_equal(room, 8);
		assert_int_equal(rpc_decoder_commit(d, 9), -EINVAL);
		assert_int_equal(rpc_decoder_commit(d, 0), 0);
		assert_int_equal(rpc_decoder_next(d, &m, &err), 0);
	}
	out_free(&o);
	decoder_free(d);
}

/* A big message grows the buffer; once consumed the memory goes back. */
static void test_buffer_released(void **state)
{
	struct rpc_decoder *d = decoder_new(NULL);
	struct rpc_message m;
	struct rpc_error err;
	size_t n = 300000;
	char *big = malloc(n);
	struct out o;

	(void)state;
	assert_non_null(big);
	memset(big, 'a', n);
	out_init(&o);
	put_request(&o, 1, "assets.info", 1);
	put_str(&o, "asset");
	assert_int_equal(rpc_pack_str(&o.pk, big, n), 0);
	decode_one(d, o.sb.data, o.sb.size, &m);
	assert_true(d->cap >= n);
	assert_int_equal(rpc_decoder_next(d, &m, &err), 0);
	assert_int_equal(d->cap, 0);
	free(big);
	out_free(&o);
	decoder_free(d);
}

/* ---------------------------------------------------------------------
 * Fatal stream errors.
 * ------------------------------------------------------------------- */

static void expect_fatal(struct rpc_decoder *d, int rc_want, enum proto_error code,
			 const char *needle)
{
	struct rpc_message m;
	struct rpc_error err;

	assert_int_equal(rpc_decoder_next(d, &m, &err), rc_want);
	assert_true(err.fatal);
	assert_int_equal(err.code, code);
	if (strstr(err.message, needle) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", err.message, needle);
	/* Dead for good, feeding included. */
	assert_int_equal(rpc_decoder_next(d, &m, &err), rc_want);
	assert_int_equal(rpc_decoder_feed(d, "\x90", 1), rc_want);
}

static void test_garbage_byte(void **state)
{
	struct rpc_decoder *d = decoder_new(NULL);

	(void)state;
	assert_int_equal(rpc_decoder_feed(d, "\xc1", 1), 0);
	expect_fatal(d, -EPROTO, PROTO_ERR_BAD_REQUEST, "byte 0xc1 at offset 0");
	decoder_free(d);
}

/* 0xc1 deep inside an otherwise valid request; the reply can name it. */
static void test_garbage_inside(void **state)
{
	static const unsigned char msg[] = { 0x94, 0x00, 0x09, 0xa5, 'h', 'e', 'l', 'l', 'o',
					     0x91, 0xc1 };
	struct rpc_decoder *d = decoder_new(NULL);
	struct rpc_message m;
	struct rpc_error err;

	(void)state;
	assert_int_equal(rpc_decoder_feed(d, msg, sizeof msg), 0);
	assert_int_equal(rpc_decoder_next(d, &m, &err), -EPROTO);
	assert_true(err.has_msgid);
	assert_int_equal(err.msgid, 9);
	assert_non_null(strstr(err.message, "offset 10"));
	decoder_free(d);
}

/* A string that announces more than the cap fails on its header, before
 * any of it is buffered; fed in chunks, the error comes with the first. */
static void test_oversize_announced(void **state)
{
	struct rpc_limits lim = RPC_LIMITS_DEFAULT;
	struct rpc_decoder *d;
	struct rpc_message m;
	struct rpc_error err;
	char body[2000];
	struct out o;

	(void)state;
	lim.max_message_bytes = 1024;
	d = decoder_new(&lim);
	memset(body, 'x', sizeof body);
	out_init(&o);
	put_request(&o, 5, "assets.info", 1);
	put_str(&o, "asset");
	assert_int_equal(rpc_pack_str(&o.pk, body, sizeof body), 0);
	assert_int_equal(rpc_decoder_feed(d, o.sb.data, 100), 0);
	assert_int_equal(rpc_decoder_next(d, &m, &err), -EMSGSIZE);
	assert_int_equal(err.code, PROTO_ERR_LIMIT);
	assert_true(err.fatal);
	assert_true(err.has_msgid);
	assert_int_equal(err.msgid, 5);
	assert_non_null(strstr(err.message, "1024 bytes"));
	assert_true(d->cap <= 4096);
	out_free(&o);
	decoder_free(d);
}

/* Many small strings: no single header is too long, but every announced
 * object takes at least a byte, so the walk knows the message cannot fit
 * as soon as the bytes walked plus the objects still due pass the cap.
 * Fed 100 bytes at a time, the error comes no later than the feed that
 * crosses the cap (here well before it). */
static void test_oversize_accumulated(void **state)
{
	struct rpc_limits lim = RPC_LIMITS_DEFAULT;
	struct rpc_decoder *d;
	struct rpc_message m;
	struct rpc_error err;
	struct out o;
	size_t off = 0;
	int rc = 0;

	(void)state;
	lim.max_message_bytes = 1024;
	d = decoder_new(&lim);
	out_init(&o);
	put_request(&o, 6, "subscribe", 1);
	put_str(&o, "events");
	msgpack_pack_array(&o.pk, 300);
	for (int i = 0; i < 300; i++)
		put_str(&o, "asset.loaded");
	assert_true(o.sb.size > 2048);
	while (off < o.sb.size) {
		assert_int_equal(rpc_decoder_feed(d, o.sb.data + off, 100), 0);
		off += 100;
		rc = rpc_decoder_next(d, &m, &err);
		if (rc != 0)
			break;
		assert_true(off <= 1024);
	}
	assert_int_equal(rc, -EMSGSIZE);
	assert_true(off <= 1024 + 100);
	assert_int_equal(err.code, PROTO_ERR_LIMIT);
	assert_int_equal(err.msgid, 6);
	out_free(&o);
	decoder_free(d);
}

/* The backstop: the walk stops inside an object header one byte short of
 * the cap, and the bytes buffered (1025) pass the cap while the message is
 * incomplete. */
static void test_oversize_backstop(void **state)
{
	struct rpc_limits lim = RPC_LIMITS_DEFAULT;
	unsigned char msg[1025];
	struct rpc_decoder *d;

	(void)state;
	lim.max_message_bytes = 1024;
	d = decoder_new(&lim);
	msg[0] = 0x92;                          /* [str16 of 1019 bytes, str32 ...] */
	msg[1] = 0xda;
	msg[2] = 1019 >> 8;
	msg[3] = 1019 & 0xff;
	memset(msg + 4, 'y', 1019);             /* ends at offset 1023 */
	msg[1023] = 0xdb;                       /* a str32 header, 2 of its 5 bytes */
	msg[1024] = 0x00;
	assert_int_equal(rpc_decoder_feed(d, msg, 1024), 0);
	assert_int_equal(rpc_decoder_next(d, &(struct rpc_message){ 0 },
					  &(struct rpc_error){ 0 }), 0);
	assert_int_equal(rpc_decoder_feed(d, msg + 1024, 1), 0);
	expect_fatal(d, -EMSGSIZE, PROTO_ERR_LIMIT, "longer than the limit of 1024 bytes");
	decoder_free(d);
}

/* An array announcing more elements than bytes could ever hold under the
 * cap: rejected on its 5-byte header. */
static void test_count_exceeds_cap(void **state)
{
	static const unsigned char msg[] = { 0x94, 0x00, 0x01, 0xa5, 'h', 'e', 'l', 'l', 'o',
					     0xdd, 0x00, 0x00, 0x10, 0x00 };   /* 4096 elements */
	struct rpc_limits lim = RPC_LIMITS_DEFAULT;
	struct rpc_decoder *d;

	(void)state;
	lim.max_message_bytes = 1024;
	d = decoder_new(&lim);
	assert_int_equal(rpc_decoder_feed(d, msg, sizeof msg), 0);
	expect_fatal(d, -EMSGSIZE, PROTO_ERR_LIMIT, "longer than the limit of 1024 bytes");
	decoder_free(d);
}

/*
 * A 10-byte message whose map claims 2^32 - 1 entries (2^33 - 2 objects).
 * msgpack-c would ask for ~100 GiB for it (and under ASan abort the test);
 * the decoder must refuse it without calling msgpack-c or growing.
 */
static void test_huge_map_claim(void **state)
{
	static const unsigned char msg[10] = { 0x94, 0x00, 0x01, 0xa1, 'x', 0xdf,
					       0xff, 0xff, 0xff, 0xff };
	static const unsigned char arr[5] = { 0xdd, 0xff, 0xff, 0xff, 0xff };
	struct rpc_decoder *d = decoder_new(NULL);

	(void)state;
	assert_int_equal(rpc_decoder_feed(d, msg, sizeof msg), 0);
	expect_fatal(d, -EMSGSIZE, PROTO_ERR_LIMIT, "limit");
	assert_true(d->cap <= 4096);
	decoder_free(d);

	d = decoder_new(NULL);
	assert_int_equal(rpc_decoder_feed(d, arr, sizeof arr), 0);
	expect_fatal(d, -EMSGSIZE, PROTO_ERR_LIMIT, "limit");
	decoder_free(d);
}

/* Under the byte cap but over the object count: refused on the header. */
static void test_items_limit(void **state)
{
	static const unsigned char msg[] = { 0xdd, 0x00, 0x01, 0x11, 0x70 };  /* 70000 */
	struct rpc_decoder *d = decoder_new(NULL);

	(void)state;
	assert_int_equal(rpc_decoder_feed(d, msg, sizeof msg), 0);
	expect_fatal(d, -EMSGSIZE, PROTO_ERR_LIMIT, "65536 objects");
	decoder_free(d);
}

/* depth nested fixarrays around a nil. */
static size_t make_nest(unsigned char *buf, unsigned depth, unsigned char inner)
{
	memset(buf, 0x91, depth);
	buf[depth] = inner;
	return depth + 1;
}

static void test_depth(void **state)
{
	struct rpc_limits lim = RPC_LIMITS_DEFAULT;
	unsigned char buf[64];
	struct rpc_decoder *d;
	struct rpc_message m;
	size_t n;

	(void)state;
	d = decoder_new(NULL);
	n = make_nest(buf, PROTO_DEFAULT_MAX_DEPTH, 0xc0);
	decode_one(d, buf, n, &m);
	assert_int_equal(m.obj.type, MSGPACK_OBJECT_ARRAY);
	decoder_free(d);

	d = decoder_new(NULL);
	n = make_nest(buf, PROTO_DEFAULT_MAX_DEPTH + 1, 0xc0);
	assert_int_equal(rpc_decoder_feed(d, buf, n), 0);
	expect_fatal(d, -EMSGSIZE, PROTO_ERR_LIMIT, "deeper than the limit of 16");
	decoder_free(d);

	/* An empty container one level too deep is too deep as well. */
	d = decoder_new(NULL);
	n = make_nest(buf, PROTO_DEFAULT_MAX_DEPTH, 0x90);
	assert_int_equal(rpc_decoder_feed(d, buf, n), 0);
	expect_fatal(d, -EMSGSIZE, PROTO_ERR_LIMIT, "deeper");
	decoder_free(d);

	/* At the ceiling msgpack-c still unpacks it. */
	lim.max_depth = RPC_DEPTH_CEILING;
	d = decoder_new(&lim);
	n = make_nest(buf, RPC_DEPTH_CEILING, 0xc0);
	decode_one(d, buf, n, &m);
	decoder_free(d);
	d = decoder_new(&lim);
	n = make_nest(buf, RPC_DEPTH_CEILING + 1, 0xc0);
	assert_int_equal(rpc_decoder_feed(d, buf, n), 0);
	expect_fatal(d, -EMSGSIZE, PROTO_ERR_LIMIT, "deeper");
	decoder_free(d);

	/* The same deep message, but announced in the first bytes: the header
	 * of level 17 fails while the rest has not arrived. */
	d = decoder_new(NULL);
	n = make_nest(buf, 40, 0xc0);
	assert_int_equal(rpc_decoder_feed(d, buf, 17), 0);
	expect_fatal(d, -EMSGSIZE, PROTO_ERR_LIMIT, "deeper");
	decoder_free(d);
}

static void test_bad_limits(void **state)
{
	struct rpc_limits lim = RPC_LIMITS_DEFAULT;
	struct rpc_decoder d;

	(void)state;
	lim.max_depth = RPC_DEPTH_CEILING + 1;
	assert_int_equal(rpc_decoder_init(&d, &lim), -EINVAL);
	lim.max_depth = 0;
	assert_int_equal(rpc_decoder_init(&d, &lim), -EINVAL);
	lim = (struct rpc_limits)RPC_LIMITS_DEFAULT;
	lim.max_message_bytes = 0;
	assert_int_equal(rpc_decoder_init(&d, &lim), -EINVAL);
	lim = (struct rpc_limits)RPC_LIMITS_DEFAULT;
	lim.max_items = 0;
	assert_int_equal(rpc_decoder_init(&d, &lim), -EINVAL);
	rpc_decoder_close(&d);          /* harmless after a failed init */
	rpc_decoder_close(NULL);
}

/* ---------------------------------------------------------------------
 * Well-formed msgpack that is not a valid request.
 * ------------------------------------------------------------------- */

static void expect_bad(const void *msg, size_t len, enum proto_error code, bool has_msgid,
		       uint32_t msgid, const char *needle)
{
	struct rpc_request req;
	struct rpc_error err;

	assert_int_equal(parse_bytes(msg, len, &req, &err), -EBADMSG);
	assert_int_equal(err.code, code);
	assert_int_equal(err.has_msgid, has_msgid);
	assert_int_equal(err.msgid, msgid);
	/* Without a msgid the peer cannot match the reply: fatal. */
	assert_int_equal(err.fatal, !has_msgid);
	if (strstr(err.message, needle) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", err.message, needle);
}

#define BAD(bytes, code, has, id, needle)                                              \
	do {                                                                           \
		static const unsigned char m_[] = bytes;                               \
		expect_bad(m_, sizeof m_, code, has, id, needle);                      \
	} while (0)
#define B(...) { __VA_ARGS__ }

static void test_wrong_types(void **state)
{
	(void)state;
	/* msgid a string */
	BAD(B(0x94, 0x00, 0xa1, '1', 0xa5, 'h', 'e', 'l', 'l', 'o', 0x90), PROTO_ERR_BAD_REQUEST,
	    false, 0, "msgid must be an unsigned 32-bit integer, got a string");
	/* msgid negative, and too large */
	BAD(B(0x94, 0x00, 0xff, 0xa5, 'h', 'e', 'l', 'l', 'o', 0x90), PROTO_ERR_BAD_REQUEST,
	    false, 0, "got an integer");
	BAD(B(0x94, 0x00, 0xcf, 0, 0, 0, 1, 0, 0, 0, 0, 0xa5, 'h', 'e', 'l', 'l', 'o', 0x90),
	    PROTO_ERR_BAD_REQUEST, false, 0, "msgid");
	/* method an int */
	BAD(B(0x94, 0x00, 0x03, 0x07, 0x90), PROTO_ERR_BAD_REQUEST, true, 3,
	    "method must be a string, got an integer");
	/* params a map instead of an array */
	BAD(B(0x94, 0x00, 0x04, 0xa5, 'h', 'e', 'l', 'l', 'o', 0x80), PROTO_ERR_BAD_REQUEST, true,
	    4, "params must be an array, got a map");
	/* params with two elements */
	BAD(B(0x94, 0x00, 0x05, 0xa5, 'h', 'e', 'l', 'l', 'o', 0x92, 0x80, 0x80),
	    PROTO_ERR_BAD_REQUEST, true, 5, "got 2 elements");
	/* params[0] not a map */
	BAD(B(0x94, 0x00, 0x06, 0xa5, 'h', 'e', 'l', 'l', 'o', 0x91, 0x90), PROTO_ERR_BAD_REQUEST,
	    true, 6, "params[0] must be a map of named arguments, got an array");
	/* argument name not a string */
	BAD(B(0x94, 0x00, 0x07, 0xa5, 'h', 'e', 'l', 'l', 'o', 0x91, 0x81, 0x01, 0x02),
	    PROTO_ERR_BAD_REQUEST, true, 7, "argument names must be strings, got an integer");
	/* argument given twice */
	BAD(B(0x94, 0x00, 0x08, 0xa4, 's', 't', 'o', 'p', 0x91, 0x82, 0xa1, 'i', 0x01, 0xa1, 'i',
	      0x02),
	    PROTO_ERR_BAD_REQUEST, true, 8, "argument \"i\" given twice");
	/* argument name with a NUL */
	BAD(B(0x94, 0x00, 0x08, 0xa4, 's', 't', 'o', 'p', 0x91, 0x81, 0xa2, 'a', 0x00, 0x01),
	    PROTO_ERR_BAD_REQUEST, true, 8, "bad argument name \"a\\x00\"");
	/* too few and too many elements, msgid readable */
	BAD(B(0x93, 0x00, 0x09, 0xa5, 'h', 'e', 'l', 'l', 'o'), PROTO_ERR_BAD_REQUEST, true, 9,
	    "got 3 elements");
	BAD(B(0x95, 0x00, 0x0a, 0xa5, 'h', 'e', 'l', 'l', 'o', 0x90, 0xc0), PROTO_ERR_BAD_REQUEST,
	    true, 10, "got 5 elements");
	BAD(B(0x91, 0x00), PROTO_ERR_BAD_REQUEST, false, 0, "got nothing");
	/* not an array; empty array; bad type; a response */
	BAD(B(0x80), PROTO_ERR_BAD_REQUEST, false, 0, "must be an array [type, ...], got a map");
	BAD(B(0x2a), PROTO_ERR_BAD_REQUEST, false, 0, "got an integer");
	BAD(B(0x90), PROTO_ERR_BAD_REQUEST, false, 0, "got []");
	BAD(B(0x94, 0x03, 0x01, 0xa1, 'x', 0x90), PROTO_ERR_BAD_REQUEST, false, 0,
	    "type must be 0");
	BAD(B(0x94, 0xa1, '0', 0x01, 0xa1, 'x', 0x90), PROTO_ERR_BAD_REQUEST, false, 0,
	    "type must be 0");
	BAD(B(0x94, 0x01, 0x01, 0xc0, 0xc0), PROTO_ERR_BAD_REQUEST, false, 0, "no responses");
}

static void test_too_many_args(void **state)
{
	struct rpc_request req;
	struct rpc_error err;
	struct out o;
	char key[16];

	(void)state;
	out_init(&o);
	put_request(&o, 11, "play", PROTO_MAX_ARGS + 1);
	for (int i = 0; i <= PROTO_MAX_ARGS; i++) {
		snprintf(key, sizeof key, "k%d", i);
		put_str(&o, key);
		msgpack_pack_nil(&o.pk);
	}
	assert_int_equal(parse_out(&o, &req, &err), -EBADMSG);
	assert_int_equal(err.msgid, 11);
	assert_false(err.fatal);
	assert_non_null(strstr(err.message, "too many arguments (65, at most 64)"));
	out_free(&o);
}

static void test_unknown_method(void **state)
{
	struct rpc_request req;
	struct rpc_error err;
	struct out o;

	(void)state;
	out_init(&o);
	put_request(&o, 12, "assets.delete", 0);
	assert_int_equal(parse_out(&o, &req, &err), -EBADMSG);
	assert_int_equal(err.code, PROTO_ERR_UNKNOWN_METHOD);
	assert_true(err.has_msgid);
	assert_int_equal(err.msgid, 12);
	assert_false(err.fatal);
	assert_string_equal(err.message, "unknown method \"assets.delete\"");
	out_free(&o);

	/* A hostile name is quoted, escaped and cut. */
	out_init(&o);
	put_request(&o, 13, "\x1b[2J\"\xff", 0);
	assert_int_equal(parse_out(&o, &req, &err), -EBADMSG);
	assert_string_equal(err.message, "unknown method \"\\x1b[2J\\\"\\xff\"");
	out_free(&o);
}

static void test_quote(void **state)
{
	char big[200], out[128];
	size_t n;

	(void)state;
	assert_string_equal(rpc_quote(out, sizeof out, "a\\b", 3), "\"a\\\\b\"");
	assert_string_equal(rpc_quote(out, sizeof out, "h\xc3\xa9", 3), "\"h\xc3\xa9\"");
	assert_string_equal(rpc_quote(out, sizeof out, "\xc3", 1), "\"\\xc3\"");
	assert_string_equal(rpc_quote(out, sizeof out, "\xed\xa0\x80", 3),
			    "\"\\xed\\xa0\\x80\"");  /* a surrogate */
	assert_string_equal(rpc_quote(out, sizeof out, "", 0), "\"\"");
	memset(big, 'z', sizeof big);
	rpc_quote(out, sizeof out, big, sizeof big);
	n = strlen(out);
	assert_int_equal(n, 1 + 64 + 4);
	assert_string_equal(out + n - 4, "\"...");
	/* Tiny buffers: always terminated, never overrun (ASan watches). */
	for (size_t size = 1; size < 12; size++) {
		char *t = malloc(size);

		assert_non_null(t);
		rpc_quote(t, size, "\x01\x02\x03\x04\x05\x06", 6);
		assert_true(strlen(t) < size);
		free(t);
	}
}

/* ---------------------------------------------------------------------
 * Named arguments.
 * ------------------------------------------------------------------- */

/* A request "play" whose params map is written by fill(); the getters run
 * over it. */
struct argfix {
	struct rpc_decoder *d;
	struct rpc_message m;
	struct rpc_request req;
	struct rpc_error err;
	struct rpc_args a;
	struct out o;
};

static void argfix_start(struct argfix *f, uint32_t nargs)
{
	out_init(&f->o);
	put_request(&f->o, 77, "play", nargs);
}

static void argfix_parse(struct argfix *f)
{
	f->d = decoder_new(NULL);
	decode_one(f->d, f->o.sb.data, f->o.sb.size, &f->m);
	assert_int_equal(rpc_request_parse(&f->m.obj, &f->req, &f->err), 0);
	rpc_args_init(&f->a, &f->req, &f->err);
}

static void argfix_end(struct argfix *f)
{
	out_free(&f->o);
	decoder_free(f->d);
}

static void expect_arg_error(struct argfix *f, const char *message)
{
	assert_true(f->a.failed);
	assert_int_equal(f->err.code, PROTO_ERR_BAD_REQUEST);
	assert_true(f->err.has_msgid);
	assert_int_equal(f->err.msgid, 77);
	assert_false(f->err.fatal);
	assert_string_equal(f->err.message, message);
	assert_int_equal(rpc_args_finish(&f->a), -EINVAL);
}

/* One argument `key` = the object packed by `pack`, then a getter. */
#define ARG1(f, key, pack)                              \
	do {                                            \
		argfix_start((f), 1);                   \
		put_str(&(f)->o, (key));                \
		pack;                                   \
		argfix_parse(f);                        \
	} while (0)

static void test_arg_string(void **state)
{
	struct argfix f;
	struct rpc_str s = { NULL, 0 };
	char buf[8];

	(void)state;
	ARG1(&f, "asset", put_str(&f.o, "a.md5mesh"));
	assert_int_equal(rpc_args_string(&f.a, "asset", RPC_REQUIRED, 64, &s), 1);
	assert_int_equal(s.len, 9);
	assert_memory_equal(s.ptr, "a.md5mesh", 9);
	assert_int_equal(rpc_args_finish(&f.a), 0);
	argfix_end(&f);

	ARG1(&f, "asset", put_str(&f.o, "a.md5mesh"));
	assert_int_equal(rpc_args_string(&f.a, "asset", RPC_REQUIRED, 8, &s), -EINVAL);
	expect_arg_error(&f, "play: \"asset\" is too long (9 bytes, at most 8)");
	argfix_end(&f);

	ARG1(&f, "asset", msgpack_pack_int(&f.o.pk, 3));
	assert_int_equal(rpc_args_string(&f.a, "asset", RPC_REQUIRED, 64, &s), -EINVAL);
	expect_arg_error(&f, "play: \"asset\" must be a string, got an integer");
	argfix_end(&f);

	ARG1(&f, "asset", rpc_pack_str(&f.o.pk, "a\0b", 3));
	assert_int_equal(rpc_args_string(&f.a, "asset", RPC_REQUIRED, 64, &s), -EINVAL);
	expect_arg_error(&f, "play: \"asset\" must be UTF-8 text without NUL bytes");
	argfix_end(&f);

	ARG1(&f, "asset", rpc_pack_str(&f.o.pk, "\xc0\xaf", 2));      /* overlong '/' */
	assert_int_equal(rpc_args_string(&f.a, "asset", RPC_REQUIRED, 64, &s), -EINVAL);
	expect_arg_error(&f, "play: \"asset\" must be UTF-8 text without NUL bytes");
	argfix_end(&f);

	/* binary is not text */
	ARG1(&f, "asset", (msgpack_pack_bin(&f.o.pk, 1), msgpack_pack_bin_body(&f.o.pk, "a", 1)));
	assert_int_equal(rpc_args_string(&f.a, "asset", RPC_REQUIRED, 64, &s), -EINVAL);
	expect_arg_error(&f, "play: \"asset\" must be a string, got binary data");
	argfix_end(&f);

	/* cstring: copied and terminated; size - 1 is the limit */
	ARG1(&f, "clip", put_str(&f.o, "walk"));
	memset(buf, 'q', sizeof buf);
	assert_int_equal(rpc_args_cstring(&f.a, "clip", RPC_REQUIRED, buf, 5), 1);
	assert_string_equal(buf, "walk");
	argfix_end(&f);
	ARG1(&f, "clip", put_str(&f.o, "walk"));
	assert_int_equal(rpc_args_cstring(&f.a, "clip", RPC_REQUIRED, buf, 4), -EINVAL);
	expect_arg_error(&f, "play: \"clip\" is too long (4 bytes, at most 3)");
	argfix_end(&f);
}

static void test_arg_presence(void **state)
{
	struct argfix f;
	struct rpc_str s = { "default", 7 };
	uint32_t u = 123;

	(void)state;
	/* absent and optional: 0, output untouched */
	argfix_start(&f, 0);
	argfix_parse(&f);
	assert_null(f.req.args);
	assert_int_equal(rpc_args_string(&f.a, "mesh", RPC_OPTIONAL, 64, &s), 0);
	assert_int_equal(rpc_args_uint32(&f.a, "start", RPC_OPTIONAL, &u), 0);
	assert_string_equal(s.ptr, "default");
	assert_int_equal(u, 123);
	assert_int_equal(rpc_args_finish(&f.a), 0);
	/* absent and required */
	assert_int_equal(rpc_args_string(&f.a, "asset", RPC_REQUIRED, 64, &s), -EINVAL);
	expect_arg_error(&f, "play: missing required argument \"asset\"");
	argfix_end(&f);

	/* nil counts as absent */
	ARG1(&f, "mesh", msgpack_pack_nil(&f.o.pk));
	assert_int_equal(rpc_args_string(&f.a, "mesh", RPC_OPTIONAL, 64, &s), 0);
	assert_int_equal(rpc_args_finish(&f.a), 0);
	argfix_end(&f);
	ARG1(&f, "asset", msgpack_pack_nil(&f.o.pk));
	assert_int_equal(rpc_args_string(&f.a, "asset", RPC_REQUIRED, 64, &s), -EINVAL);
	expect_arg_error(&f, "play: missing required argument \"asset\"");
	argfix_end(&f);

	/* an argument nobody asked for */
	argfix_start(&f, 2);
	put_str(&f.o, "asset");
	put_str(&f.o, "a");
	put_str(&f.o, "colour");
	put_str(&f.o, "blue");
	argfix_parse(&f);
	assert_int_equal(rpc_args_string(&f.a, "asset", RPC_REQUIRED, 64, &s), 1);
	assert_int_equal(rpc_args_finish(&f.a), -EINVAL);
	assert_string_equal(f.err.message, "play: unknown argument \"colour\"");
	assert_int_equal(f.err.msgid, 77);
	argfix_end(&f);

	/* errors are sticky: the first stays, later getters leave outputs alone */
	argfix_start(&f, 2);
	put_str(&f.o, "speed");
	put_str(&f.o, "fast");
	put_str(&f.o, "start");
	msgpack_pack_uint32(&f.o.pk, 5);
	argfix_parse(&f);
	{
		double speed = 1;

		assert_int_equal(rpc_args_double(&f.a, "speed", RPC_OPTIONAL, &speed), -EINVAL);
		assert_int_equal(rpc_args_uint32(&f.a, "start", RPC_OPTIONAL, &u), -EINVAL);
		assert_int_equal(u, 123);
		assert_true(speed == 1);
		expect_arg_error(&f, "play: \"speed\" must be a number, got a string");
	}
	argfix_end(&f);
}

static void test_arg_integers(void **state)
{
	struct argfix f;
	uint32_t u32 = 0;
	uint64_t u64 = 0;
	int64_t i64 = 0;

	(void)state;
	ARG1(&f, "instance", msgpack_pack_uint32(&f.o.pk, UINT32_MAX));
	assert_int_equal(rpc_args_uint32(&f.a, "instance", RPC_REQUIRED, &u32), 1);
	assert_int_equal(u32, UINT32_MAX);
	argfix_end(&f);

	ARG1(&f, "instance", msgpack_pack_uint64(&f.o.pk, (uint64_t)UINT32_MAX + 1));
	assert_int_equal(rpc_args_uint32(&f.a, "instance", RPC_REQUIRED, &u32), -EINVAL);
	expect_arg_error(&f, "play: \"instance\" must be an integer in 0..4294967295, got 4294967296");
	argfix_end(&f);

	ARG1(&f, "instance", msgpack_pack_int(&f.o.pk, -1));
	assert_int_equal(rpc_args_uint32(&f.a, "instance", RPC_REQUIRED, &u32), -EINVAL);
	expect_arg_error(&f, "play: \"instance\" must be an integer in 0..4294967295, got -1");
	argfix_end(&f);

	ARG1(&f, "instance", msgpack_pack_double(&f.o.pk, 3.0));
	assert_int_equal(rpc_args_uint32(&f.a, "instance", RPC_REQUIRED, &u32), -EINVAL);
	expect_arg_error(&f, "play: \"instance\" must be an integer in 0..4294967295, got a float");
	argfix_end(&f);

	ARG1(&f, "n", msgpack_pack_uint64(&f.o.pk, UINT64_MAX));
	assert_int_equal(rpc_args_uint64(&f.a, "n", RPC_REQUIRED, &u64), 1);
	assert_true(u64 == UINT64_MAX);
	argfix_end(&f);

	ARG1(&f, "n", msgpack_pack_int64(&f.o.pk, -5));
	assert_int_equal(rpc_args_uint64(&f.a, "n", RPC_REQUIRED, &u64), -EINVAL);
	expect_arg_error(&f, "play: \"n\" must be an integer in 0..18446744073709551615, got -5");
	argfix_end(&f);

	ARG1(&f, "n", msgpack_pack_int64(&f.o.pk, INT64_MIN));
	assert_int_equal(rpc_args_int64(&f.a, "n", RPC_REQUIRED, &i64), 1);
	assert_true(i64 == INT64_MIN);
	argfix_end(&f);

	ARG1(&f, "n", msgpack_pack_int64(&f.o.pk, INT64_MAX));
	assert_int_equal(rpc_args_int64(&f.a, "n", RPC_REQUIRED, &i64), 1);
	assert_true(i64 == INT64_MAX);
	argfix_end(&f);

	ARG1(&f, "n", msgpack_pack_uint64(&f.o.pk, (uint64_t)INT64_MAX + 1));
	assert_int_equal(rpc_args_int64(&f.a, "n", RPC_REQUIRED, &i64), -EINVAL);
	expect_arg_error(&f, "play: \"n\" must be an integer in "
			     "-9223372036854775808..9223372036854775807, got 9223372036854775808");
	argfix_end(&f);

	ARG1(&f, "n", msgpack_pack_true(&f.o.pk));
	assert_int_equal(rpc_args_int64(&f.a, "n", RPC_REQUIRED, &i64), -EINVAL);
	expect_arg_error(&f, "play: \"n\" must be an integer in "
			     "-9223372036854775808..9223372036854775807, got a boolean");
	argfix_end(&f);
}

static void test_arg_double(void **state)
{
	struct argfix f;
	double d = 0;

	(void)state;
	ARG1(&f, "speed", msgpack_pack_int(&f.o.pk, -3));
	assert_int_equal(rpc_args_double(&f.a, "speed", RPC_REQUIRED, &d), 1);
	assert_true(d == -3.0);
	argfix_end(&f);

	ARG1(&f, "speed", msgpack_pack_uint64(&f.o.pk, 7));
	assert_int_equal(rpc_args_double(&f.a, "speed", RPC_REQUIRED, &d), 1);
	assert_true(d == 7.0);
	argfix_end(&f);

	ARG1(&f, "speed", msgpack_pack_float(&f.o.pk, 0.25f));
	assert_int_equal(rpc_args_double(&f.a, "speed", RPC_REQUIRED, &d), 1);
	assert_true(d == 0.25);
	argfix_end(&f);

	ARG1(&f, "time", msgpack_pack_double(&f.o.pk, 1e-9));
	assert_int_equal(rpc_args_double(&f.a, "time", RPC_REQUIRED, &d), 1);
	assert_true(d == 1e-9);
	argfix_end(&f);

	ARG1(&f, "speed", msgpack_pack_double(&f.o.pk, NAN));
	assert_int_equal(rpc_args_double(&f.a, "speed", RPC_REQUIRED, &d), -EINVAL);
	expect_arg_error(&f, "play: \"speed\" must be a finite number");
	argfix_end(&f);

	ARG1(&f, "speed", msgpack_pack_float(&f.o.pk, -INFINITY));
	assert_int_equal(rpc_args_double(&f.a, "speed", RPC_REQUIRED, &d), -EINVAL);
	expect_arg_error(&f, "play: \"speed\" must be a finite number");
	argfix_end(&f);

	ARG1(&f, "speed", put_str(&f.o, "2"));
	assert_int_equal(rpc_args_double(&f.a, "speed", RPC_REQUIRED, &d), -EINVAL);
	expect_arg_error(&f, "play: \"speed\" must be a number, got a string");
	argfix_end(&f);
}

static void test_arg_bool(void **state)
{
	struct argfix f;
	bool b = true;

	(void)state;
	ARG1(&f, "loop", msgpack_pack_false(&f.o.pk));
	assert_int_equal(rpc_args_bool(&f.a, "loop", RPC_REQUIRED, &b), 1);
	assert_false(b);
	argfix_end(&f);

	ARG1(&f, "loop", msgpack_pack_int(&f.o.pk, 1));
	assert_int_equal(rpc_args_bool(&f.a, "loop", RPC_REQUIRED, &b), -EINVAL);
	expect_arg_error(&f, "play: \"loop\" must be true or false, got an integer");
	argfix_end(&f);
}

static const char *const loop_names[] = { "loop", "once", "pingpong" };

static void test_arg_enum(void **state)
{
	struct argfix f;
	int v = -1;

	(void)state;
	ARG1(&f, "loop", put_str(&f.o, "pingpong"));
	assert_int_equal(rpc_args_enum(&f.a, "loop", RPC_REQUIRED, loop_names, 3, &v), 1);
	assert_int_equal(v, 2);
	argfix_end(&f);

	ARG1(&f, "loop", put_str(&f.o, "Once"));
	assert_int_equal(rpc_args_enum(&f.a, "loop", RPC_REQUIRED, loop_names, 3, &v), -EINVAL);
	expect_arg_error(&f, "play: \"loop\" must be one of \"loop\", \"once\", \"pingpong\", "
			     "got \"Once\"");
	argfix_end(&f);

	ARG1(&f, "loop", msgpack_pack_true(&f.o.pk));
	assert_int_equal(rpc_args_enum(&f.a, "loop", RPC_REQUIRED, loop_names, 3, &v), -EINVAL);
	expect_arg_error(&f, "play: \"loop\" must be one of \"loop\", \"once\", \"pingpong\", "
			     "got a boolean");
	argfix_end(&f);
}

static void test_arg_strings(void **state)
{
	struct argfix f;
	struct rpc_str s[4];
	size_t n = 99;

	(void)state;
	ARG1(&f, "events", (msgpack_pack_array(&f.o.pk, 2), put_str(&f.o, "a"), put_str(&f.o, "bc")));
	assert_int_equal(rpc_args_strings(&f.a, "events", RPC_REQUIRED, s, 4, 8, &n), 1);
	assert_int_equal(n, 2);
	assert_memory_equal(s[1].ptr, "bc", 2);
	assert_int_equal(s[1].len, 2);
	argfix_end(&f);

	ARG1(&f, "events", msgpack_pack_array(&f.o.pk, 0));
	assert_int_equal(rpc_args_strings(&f.a, "events", RPC_REQUIRED, s, 4, 8, &n), 1);
	assert_int_equal(n, 0);
	argfix_end(&f);

	ARG1(&f, "events", (msgpack_pack_array(&f.o.pk, 5), put_str(&f.o, "a"), put_str(&f.o, "b"),
			    put_str(&f.o, "c"), put_str(&f.o, "d"), put_str(&f.o, "e")));
	assert_int_equal(rpc_args_strings(&f.a, "events", RPC_REQUIRED, s, 4, 8, &n), -EINVAL);
	expect_arg_error(&f, "play: \"events\" has too many elements (5, at most 4)");
	argfix_end(&f);

	ARG1(&f, "events", (msgpack_pack_array(&f.o.pk, 2), put_str(&f.o, "a"),
			    msgpack_pack_int(&f.o.pk, 1)));
	n = 99;
	assert_int_equal(rpc_args_strings(&f.a, "events", RPC_REQUIRED, s, 4, 8, &n), -EINVAL);
	assert_int_equal(n, 99);
	expect_arg_error(&f, "play: \"events\"[1] must be a string, got an integer");
	argfix_end(&f);

	ARG1(&f, "events", put_str(&f.o, "asset.loaded"));
	assert_int_equal(rpc_args_strings(&f.a, "events", RPC_REQUIRED, s, 4, 8, &n), -EINVAL);
	expect_arg_error(&f, "play: \"events\" must be an array of strings, got a string");
	argfix_end(&f);
}

/* Nested maps: bound for their own getters and finish, their errors named
 * by place; an array of them; bad keys refused as at the top level. */
static void test_arg_maps(void **state)
{
	struct argfix f;
	struct rpc_args sub, subs[3];
	double w = 0;
	size_t n = 99;

	(void)state;
	ARG1(&f, "reference", (msgpack_pack_map(&f.o.pk, 2), put_str(&f.o, "clip"),
			       put_str(&f.o, "idle"), put_str(&f.o, "time"),
			       msgpack_pack_double(&f.o.pk, 0.5)));
	assert_int_equal(rpc_args_map(&f.a, "reference", RPC_OPTIONAL, &sub), 1);
	assert_int_equal(rpc_args_double(&sub, "time", RPC_REQUIRED, &w), 1);
	assert_true(w == 0.5);
	/* "clip" not asked for: the sub's finish names it and where it is. */
	assert_int_equal(rpc_args_finish(&sub), -EINVAL);
	assert_string_equal(f.err.message, "play: reference: unknown argument \"clip\"");
	assert_int_equal(rpc_args_finish(&f.a), 0);
	argfix_end(&f);

	ARG1(&f, "mask", (msgpack_pack_array(&f.o.pk, 2),
			  msgpack_pack_map(&f.o.pk, 1), put_str(&f.o, "weight"), msgpack_pack_double(&f.o.pk, 1),
			  msgpack_pack_map(&f.o.pk, 1), put_str(&f.o, "weight"), put_str(&f.o, "heavy")));
	assert_int_equal(rpc_args_maps(&f.a, "mask", RPC_REQUIRED, subs, 3, &n), 1);
	assert_int_equal(n, 2);
	assert_int_equal(rpc_args_double(&subs[0], "weight", RPC_REQUIRED, &w), 1);
	assert_int_equal(rpc_args_finish(&subs[0]), 0);
	assert_int_equal(rpc_args_double(&subs[1], "weight", RPC_REQUIRED, &w), -EINVAL);
	assert_string_equal(f.err.message,
			    "play: mask[1]: \"weight\" must be a number, got a string");
	argfix_end(&f);

	ARG1(&f, "mask", (msgpack_pack_array(&f.o.pk, 1), msgpack_pack_int(&f.o.pk, 3)));
	n = 99;
	assert_int_equal(rpc_args_maps(&f.a, "mask", RPC_REQUIRED, subs, 3, &n), -EINVAL);
	assert_int_equal(n, 99);
	expect_arg_error(&f, "play: \"mask\"[0] must be a map, got an integer");
	argfix_end(&f);

	ARG1(&f, "mask", (msgpack_pack_array(&f.o.pk, 4), msgpack_pack_map(&f.o.pk, 0),
			  msgpack_pack_map(&f.o.pk, 0), msgpack_pack_map(&f.o.pk, 0),
			  msgpack_pack_map(&f.o.pk, 0)));
	assert_int_equal(rpc_args_maps(&f.a, "mask", RPC_REQUIRED, subs, 3, &n), -EINVAL);
	expect_arg_error(&f, "play: \"mask\" has too many elements (4, at most 3)");
	argfix_end(&f);

	ARG1(&f, "reference", (msgpack_pack_map(&f.o.pk, 1), msgpack_pack_int(&f.o.pk, 1),
			       msgpack_pack_int(&f.o.pk, 2)));
	assert_int_equal(rpc_args_map(&f.a, "reference", RPC_REQUIRED, &sub), -EINVAL);
	expect_arg_error(&f, "play: \"reference\": keys must be strings, got an integer");
	argfix_end(&f);

	ARG1(&f, "reference", (msgpack_pack_map(&f.o.pk, 2), put_str(&f.o, "t"),
			       msgpack_pack_int(&f.o.pk, 1), put_str(&f.o, "t"),
			       msgpack_pack_int(&f.o.pk, 2)));
	assert_int_equal(rpc_args_map(&f.a, "reference", RPC_REQUIRED, &sub), -EINVAL);
	expect_arg_error(&f, "play: \"reference\": key \"t\" given twice");
	argfix_end(&f);

	ARG1(&f, "reference", put_str(&f.o, "idle"));
	assert_int_equal(rpc_args_map(&f.a, "reference", RPC_REQUIRED, &sub), -EINVAL);
	expect_arg_error(&f, "play: \"reference\" must be a map, got a string");
	argfix_end(&f);
}

static void test_arg_enum_mask(void **state)
{
	struct argfix f;
	uint64_t mask = 0;

	(void)state;
	ARG1(&f, "events", (msgpack_pack_array(&f.o.pk, 3), put_str(&f.o, "instance.ended"),
			    put_str(&f.o, "asset.loaded"), put_str(&f.o, "asset.loaded")));
	assert_int_equal(rpc_args_enum_mask(&f.a, "events", RPC_REQUIRED, proto_event_names,
					    PROTO_EVENT_COUNT, &mask), 1);
	assert_true(mask == ((1u << PROTO_EVENT_INSTANCE_ENDED) | (1u << PROTO_EVENT_ASSET_LOADED)));
	assert_int_equal(rpc_args_finish(&f.a), 0);
	argfix_end(&f);

	ARG1(&f, "events", (msgpack_pack_array(&f.o.pk, 1), put_str(&f.o, "asset.exploded")));
	assert_int_equal(rpc_args_enum_mask(&f.a, "events", RPC_REQUIRED, loop_names, 3, &mask),
			 -EINVAL);
	expect_arg_error(&f, "play: \"events\"[0] must be one of \"loop\", \"once\", "
			     "\"pingpong\", got \"asset.exploded\"");
	argfix_end(&f);
}

/* ---------------------------------------------------------------------
 * Encoders, round-tripped through msgpack-c.
 * ------------------------------------------------------------------- */

static const msgpack_object *map_get(const msgpack_object *map, const char *key)
{
	assert_int_equal(map->type, MSGPACK_OBJECT_MAP);
	for (uint32_t i = 0; i < map->via.map.size; i++) {
		const msgpack_object *k = &map->via.map.ptr[i].key;

		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == strlen(key) &&
		    memcmp(k->via.str.ptr, key, k->via.str.size) == 0)
			return &map->via.map.ptr[i].val;
	}
	return NULL;
}

static void assert_str(const msgpack_object *o, const char *s)
{
	assert_non_null(o);
	assert_int_equal(o->type, MSGPACK_OBJECT_STR);
	assert_int_equal(o->via.str.size, strlen(s));
	assert_memory_equal(o->via.str.ptr, s, strlen(s));
}

static void test_encode_response(void **state)
{
	struct rpc_out o = RPC_OUT_INIT;
	msgpack_unpacked u;
	size_t off = 0;
	const msgpack_object *a;

	(void)state;
	rpc_put_response(&o, 4000000000u);
	rpc_put_map(&o, 1);
	rpc_put_lit(&o, "instance");
	rpc_put_uint(&o, 17);
	assert_false(rpc_out_failed(&o));
	msgpack_unpacked_init(&u);
	assert_int_equal(msgpack_unpack_next(&u, o.data, o.len, &off), MSGPACK_UNPACK_SUCCESS);
	assert_int_equal(off, o.len);
	assert_int_equal(u.data.type, MSGPACK_OBJECT_ARRAY);
	assert_int_equal(u.data.via.array.size, 4);
	a = u.data.via.array.ptr;
	assert_int_equal(a[0].via.u64, 1);
	assert_true(a[1].via.u64 == 4000000000u);
	assert_int_equal(a[2].type, MSGPACK_OBJECT_NIL);
	assert_int_equal(map_get(&a[3], "instance")->via.u64, 17);
	msgpack_unpacked_destroy(&u);
	rpc_out_free(&o);
}

static void test_encode_error(void **state)
{
	struct rpc_out o = RPC_OUT_INIT;
	msgpack_unpacked u;
	size_t off = 0;
	struct rpc_error err;
	const msgpack_object *a;

	(void)state;
	rpc_error_init(&err);
	err.msgid = 9;
	rpc_error_format(&err, PROTO_ERR_NOT_FOUND, "no asset %s", "\"x\"");
	rpc_put_error_reply(&o, &err);
	/* A code with no wire name goes out as internal. */
	rpc_put_error(&o, 10, PROTO_ERR_NONE, NULL);
	assert_false(rpc_out_failed(&o));

	msgpack_unpacked_init(&u);
	assert_int_equal(msgpack_unpack_next(&u, o.data, o.len, &off), MSGPACK_UNPACK_SUCCESS);
	assert_true(off < o.len);               /* the second reply follows */
	a = u.data.via.array.ptr;
	assert_int_equal(u.data.via.array.size, 4);
	assert_int_equal(a[0].via.u64, 1);
	assert_int_equal(a[1].via.u64, 9);
	assert_str(map_get(&a[2], "code"), "not_found");
	assert_str(map_get(&a[2], "message"), "no asset \"x\"");
	assert_int_equal(a[3].type, MSGPACK_OBJECT_NIL);

	assert_int_equal(msgpack_unpack_next(&u, o.data, o.len, &off), MSGPACK_UNPACK_SUCCESS);
	assert_int_equal(off, o.len);
	a = u.data.via.array.ptr;
	assert_int_equal(a[1].via.u64, 10);
	assert_str(map_get(&a[2], "code"), "internal");
	assert_str(map_get(&a[2], "message"), "");
	msgpack_unpacked_destroy(&u);
	rpc_out_free(&o);
}

static void test_encode_event(void **state)
{
	struct rpc_out o = RPC_OUT_INIT;
	msgpack_unpacked u;
	size_t off = 0;
	const msgpack_object *a, *ev;

	(void)state;
	rpc_put_event(&o, PROTO_EVENT_ASSET_RELOADED, 2);
	rpc_put_lit(&o, "asset");
	rpc_put_cstr(&o, "walker.md5mesh");
	rpc_put_lit(&o, "generation");
	rpc_put_uint(&o, 3);
	assert_false(rpc_out_failed(&o));
	msgpack_unpacked_init(&u);
	assert_int_equal(msgpack_unpack_next(&u, o.data, o.len, &off), MSGPACK_UNPACK_SUCCESS);
	assert_int_equal(off, o.len);
	a = u.data.via.array.ptr;
	assert_int_equal(u.data.via.array.size, 3);
	assert_int_equal(a[0].via.u64, 2);
	assert_str(&a[1], "event");
	assert_int_equal(a[2].type, MSGPACK_OBJECT_ARRAY);
	assert_int_equal(a[2].via.array.size, 1);
	ev = &a[2].via.array.ptr[0];
	assert_int_equal(ev->via.map.size, 3);
	assert_str(map_get(ev, "type"), "asset.reloaded");
	assert_str(map_get(ev, "asset"), "walker.md5mesh");
	assert_int_equal(map_get(ev, "generation")->via.u64, 3);
	msgpack_unpacked_destroy(&u);

	/* An event with no name is refused, not sent half-written. */
	rpc_put_event(&o, PROTO_EVENT_COUNT, 0);
	assert_true(rpc_out_failed(&o));
	rpc_out_free(&o);
}

/*
 * The writer encodes every value exactly as msgpack-c's packer does: the
 * same (smallest) form at each size boundary, so a client cannot tell the
 * daemon's replies from msgpack-c's.
 */
static void test_writer_matches_msgpack_c(void **state)
{
	static const uint64_t uints[] = { 0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000,
					  0xffffffffu, 0x100000000u, UINT64_MAX };
	static const int64_t ints[] = { -1, -31, -32, -33, -127, -128, -129, -32767, -32768,
					-32769, INT32_MIN + 1LL, INT32_MIN, INT32_MIN - 1LL,
					INT64_MIN, 5, 300 };
	static const uint32_t sizes[] = { 0, 1, 15, 16, 31, 32, 255, 256, 65535, 65536, 70000 };
	static const double doubles[] = { 0.0, -0.0, 1.5, -2.25e300, 1e-310 };
	char *bytes = calloc(70000, 1);
	struct rpc_out o = RPC_OUT_INIT;
	struct out ref;

	(void)state;
	assert_non_null(bytes);
	memset(bytes, 'a', 70000);
	out_init(&ref);
	for (size_t i = 0; i < sizeof uints / sizeof uints[0]; i++) {
		rpc_put_uint(&o, uints[i]);
		msgpack_pack_uint64(&ref.pk, uints[i]);
	}
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
		rpc_put_int(&o, ints[i]);
		msgpack_pack_int64(&ref.pk, ints[i]);
	}
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		rpc_put_str(&o, bytes, sizes[i]);
		msgpack_pack_str_with_body(&ref.pk, bytes, sizes[i]);
		rpc_put_bin(&o, bytes, sizes[i]);
		msgpack_pack_bin_with_body(&ref.pk, bytes, sizes[i]);
		rpc_put_array(&o, sizes[i]);
		msgpack_pack_array(&ref.pk, sizes[i]);
		rpc_put_map(&o, sizes[i]);
		msgpack_pack_map(&ref.pk, sizes[i]);
	}
	for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; i++) {
		rpc_put_double(&o, doubles[i]);
		msgpack_pack_double(&ref.pk, doubles[i]);
		rpc_put_float(&o, (float)doubles[i]);
		msgpack_pack_float(&ref.pk, (float)doubles[i]);
	}
	for (size_t n = 0; n <= 17; n += 17) {
		float f[17];

		for (size_t i = 0; i < n; i++)
			f[i] = (float)i * 0.5f - 3.0f;
		rpc_put_float_array(&o, f, n);
		msgpack_pack_array(&ref.pk, (size_t)n);
		for (size_t i = 0; i < n; i++)
			msgpack_pack_float(&ref.pk, f[i]);
	}
	rpc_put_nil(&o);
	msgpack_pack_nil(&ref.pk);
	rpc_put_bool(&o, true);
	msgpack_pack_true(&ref.pk);
	rpc_put_bool(&o, false);
	msgpack_pack_false(&ref.pk);
	rpc_put_cstr(&o, NULL);
	msgpack_pack_str_with_body(&ref.pk, "", 0);
	rpc_put_lit(&o, "protocol");
	msgpack_pack_str_with_body(&ref.pk, "protocol", 8);

	assert_false(rpc_out_failed(&o));
	assert_int_equal(o.len, ref.sb.size);
	assert_memory_equal(o.data, ref.sb.data, o.len);
	out_free(&ref);
	rpc_out_free(&o);
	free(bytes);
}

/* Every str animd writes is valid UTF-8: bytes of a name taken from a
 * file that are not (a lone 0xff, an overlong form, a surrogate, a code
 * point past U+10FFFF, a sequence cut short) go out as "\xNN"; valid text,
 * any script, goes out as it is. */
static void test_strings_are_utf8(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "walker", "walker" },
		{ "gr\xc3\xbc\xc3\x9f" "e \xe6\xad\xa9 \xf0\x9f\xa6\xb4",
		  "gr\xc3\xbc\xc3\x9f" "e \xe6\xad\xa9 \xf0\x9f\xa6\xb4" },
		{ "a\xff" "b", "a\\xffb" },
		{ "\xc0\xaf", "\\xc0\\xaf" },                 /* overlong '/' */
		{ "\xed\xa0\x80x", "\\xed\\xa0\\x80x" },    /* a surrogate */
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" }, /* past U+10FFFF */
		{ "end\xe2\x82", "end\\xe2\\x82" },           /* cut short */
		{ "\xc3\xa9\x80", "\xc3\xa9\\x80" },         /* a stray continuation */
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rpc_out o = RPC_OUT_INIT;
		msgpack_unpacked u;
		size_t off = 0;

		rpc_put_cstr(&o, cases[i].in);
		assert_false(rpc_out_failed(&o));
		msgpack_unpacked_init(&u);
		assert_int_equal(msgpack_unpack_next(&u, o.data, o.len, &off), MSGPACK_UNPACK_SUCCESS);
		assert_int_equal(u.data.type, MSGPACK_OBJECT_STR);
		if (u.data.via.str.size != strlen(cases[i].out) ||
		    memcmp(u.data.via.str.ptr, cases[i].out, u.data.via.str.size) != 0)
			fail_msg("case %zu: got \"%.*s\", want \"%s\"", i, (int)u.data.via.str.size,
				 u.data.via.str.ptr, cases[i].out);
		assert_int_equal(rpc_utf8_valid_prefix(u.data.via.str.ptr, u.data.via.str.size),
				 u.data.via.str.size);
		msgpack_unpacked_destroy(&u);
		rpc_out_free(&o);
	}
}

/* A value that cannot be written marks the writer failed until it is
 * rolled back to a mark; what came before the mark is kept. */
static void test_writer_failure_is_sticky(void **state)
{
	struct rpc_out o = RPC_OUT_INIT;
	size_t mark;

	(void)state;
	rpc_put_uint(&o, 7);
	mark = o.len;
	/* Longer than msgpack can say: refused before a byte is read. */
	rpc_put_str(&o, "x", (size_t)UINT32_MAX + 1);
	assert_true(rpc_out_failed(&o));
	rpc_put_nil(&o);
	assert_true(rpc_out_failed(&o));
	rpc_out_truncate(&o, mark);
	assert_false(rpc_out_failed(&o));
	assert_int_equal(o.len, 1);
	assert_int_equal((uint8_t)o.data[0], 7);
	rpc_put_bin(&o, "x", (size_t)UINT32_MAX + 1);
	assert_true(rpc_out_failed(&o));
	rpc_out_free(&o);
	assert_false(rpc_out_failed(&o));
	assert_int_equal(o.len, 0);
}

/* What rpc_pack_request writes, the decoder and parser accept. */
static void test_encode_request(void **state)
{
	struct rpc_request req;
	struct rpc_error err;
	struct rpc_args a;
	struct out o;
	uint32_t inst = 0;
	double t = 0;

	(void)state;
	out_init(&o);
	put_request(&o, 21, "seek", 2);
	put_str(&o, "instance");
	msgpack_pack_uint32(&o.pk, 4);
	put_str(&o, "time");
	msgpack_pack_double(&o.pk, 1.5);
	assert_int_equal(parse_out(&o, &req, &err), 0);
	out_free(&o);
	/* (the message is gone with the decoder, so only the scalars are checked) */
	assert_int_equal(req.msgid, 21);
	assert_int_equal(req.method, PROTO_METHOD_SEEK);

	out_init(&o);
	put_request(&o, 22, "seek", 2);
	put_str(&o, "instance");
	msgpack_pack_uint32(&o.pk, 4);
	put_str(&o, "time");
	msgpack_pack_double(&o.pk, 1.5);
	{
		struct rpc_decoder *d = decoder_new(NULL);
		struct rpc_message m;

		decode_one(d, o.sb.data, o.sb.size, &m);
		assert_int_equal(rpc_request_parse(&m.obj, &req, &err), 0);
		rpc_args_init(&a, &req, &err);
		assert_int_equal(rpc_args_uint32(&a, "instance", RPC_REQUIRED, &inst), 1);
		assert_int_equal(rpc_args_double(&a, "time", RPC_REQUIRED, &t), 1);
		assert_int_equal(rpc_args_finish(&a), 0);
		assert_int_equal(inst, 4);
		assert_true(t == 1.5);
		decoder_free(d);
	}
	out_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_request_no_params),
		cmocka_unit_test(test_request_named_params),
		cmocka_unit_test(test_request_empty_map),
		cmocka_unit_test(test_request_wide_encodings),
		cmocka_unit_test(test_bin_method_names),
		cmocka_unit_test(test_client_notification_ignored),
		cmocka_unit_test(test_pipelined),
		cmocka_unit_test(test_byte_at_a_time),
		cmocka_unit_test(test_every_split),
		cmocka_unit_test(test_truncated_then_completed),
		cmocka_unit_test(test_finish_truncated),
		cmocka_unit_test(test_reserve_commit),
		cmocka_unit_test(test_buffer_released),
		cmocka_unit_test(test_garbage_byte),
		cmocka_unit_test(test_garbage_inside),
		cmocka_unit_test(test_oversize_announced),
		cmocka_unit_test(test_oversize_accumulated),
		cmocka_unit_test(test_oversize_backstop),
		cmocka_unit_test(test_count_exceeds_cap),
		cmocka_unit_test(test_huge_map_claim),
		cmocka_unit_test(test_items_limit),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_bad_limits),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_too_many_args),
		cmocka_unit_test(test_unknown_method),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_arg_string),
		cmocka_unit_test(test_arg_presence),
		cmocka_unit_test(test_arg_integers),
		cmocka_unit_test(test_arg_double),
		cmocka_unit_test(test_arg_bool),
		cmocka_unit_test(test_arg_enum),
		cmocka_unit_test(test_arg_strings),
		cmocka_unit_test(test_arg_maps),
		cmocka_unit_test(test_arg_enum_mask),
		cmocka_unit_test(test_encode_response),
		cmocka_unit_test(test_encode_error),
		cmocka_unit_test(test_encode_event),
		cmocka_unit_test(test_writer_matches_msgpack_c),
		cmocka_unit_test(test_writer_failure_is_sticky),
		cmocka_unit_test(test_strings_are_utf8),
		cmocka_unit_test(test_encode_request),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
