/*
 * libFuzzer harness for the msgpack-RPC wire layer (proto/rpc.h).
 *
 * The input is a byte stream from a client.  It is fed to the streaming
 * decoder whole and in chunks of several sizes, under the default limits
 * and under small ones (so the limit paths are reached), and:
 *  - every complete message must be one msgpack object that msgpack-c
 *    agrees ends exactly where the decoder says;
 *  - every chunking must give the same messages and the same final outcome;
 *  - every message is validated as a request, its arguments run through the
 *    typed getters, and the reply (result echoing the arguments, or the
 *    error) is written with the daemon's writer (compared byte for byte
 *    with msgpack-c's packer) and unpacked again.
 * A disagreement is a bug and aborts; ASan and UBSan catch the rest.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/animd_proto.h"
#include "proto/rpc.h"
#include "tests/support/rpc_put_object.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_MESSAGES 4096

/* What one pass over the input saw: enough to compare passes. */
struct fuzz_outcome {
	size_t count;
	size_t sizes[FUZZ_MAX_MESSAGES];
	int final_rc;                   /* 0, or the decoder's fatal error */
	int finish_rc;
};

static void fuzz_check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_rpc: %s\n", what);
		abort();
	}
}

/* Scratch space reused across runs: allocation under ASan is what would
 * otherwise dominate the harness's time. */
static msgpack_sbuffer fuzz_sb;
static msgpack_zone *fuzz_zone;

static void fuzz_scratch(msgpack_packer *pk)
{
	if (fuzz_zone == NULL) {
		msgpack_sbuffer_init(&fuzz_sb);
		fuzz_zone = msgpack_zone_new(MSGPACK_ZONE_CHUNK_SIZE);
		if (fuzz_zone == NULL)
			abort();
	}
	msgpack_sbuffer_clear(&fuzz_sb);
	msgpack_zone_clear(fuzz_zone);
	msgpack_packer_init(pk, &fuzz_sb, msgpack_sbuffer_write);
}

/* Unpack one object from data at *off with msgpack-c into the scratch zone. */
static bool fuzz_unpack(const char *data, size_t size, size_t *off, msgpack_object *obj)
{
	msgpack_unpack_return r = msgpack_unpack(data, size, off, fuzz_zone, obj);

	return r == MSGPACK_UNPACK_SUCCESS || r == MSGPACK_UNPACK_EXTRA_BYTES;
}

/* Structural equality, floats compared bit for bit: msgpack_object_equal
 * compares them with ==, which a NaN from the input would fail. */
static bool fuzz_equal(const msgpack_object *x, const msgpack_object *y)
{
	if (x->type != y->type)
		return false;
	switch (x->type) {
	case MSGPACK_OBJECT_NIL:
		return true;
	case MSGPACK_OBJECT_BOOLEAN:
		return x->via.boolean == y->via.boolean;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		return x->via.u64 == y->via.u64;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		return memcmp(&x->via.f64, &y->via.f64, sizeof x->via.f64) == 0;
	case MSGPACK_OBJECT_STR:
	case MSGPACK_OBJECT_BIN:
		return x->via.str.size == y->via.str.size &&
		       (x->via.str.size == 0 ||
			memcmp(x->via.str.ptr, y->via.str.ptr, x->via.str.size) == 0);
	case MSGPACK_OBJECT_EXT:
		return x->via.ext.type == y->via.ext.type && x->via.ext.size == y->via.ext.size &&
		       (x->via.ext.size == 0 ||
			memcmp(x->via.ext.ptr, y->via.ext.ptr, x->via.ext.size) == 0);
	case MSGPACK_OBJECT_ARRAY:
		if (x->via.array.size != y->via.array.size)
			return false;
		for (uint32_t i = 0; i < x->via.array.size; i++)
			if (!fuzz_equal(&x->via.array.ptr[i], &y->via.array.ptr[i]))
				return false;
		return true;
	case MSGPACK_OBJECT_MAP:
		if (x->via.map.size != y->via.map.size)
			return false;
		for (uint32_t i = 0; i < x->via.map.size; i++)
			if (!fuzz_equal(&x->via.map.ptr[i].key, &y->via.map.ptr[i].key) ||
			    !fuzz_equal(&x->via.map.ptr[i].val, &y->via.map.ptr[i].val))
				return false;
		return true;
	}
	return false;
}

/* The daemon's writer, reused like the scratch buffer above. */
static struct rpc_out fuzz_out = RPC_OUT_INIT;

/* Write the error reply and check it unpacks as [1, msgid, {code, message}, nil]. */
static void fuzz_error_reply(const struct rpc_error *err)
{
	msgpack_packer pk;
	msgpack_object o;
	size_t off = 0;

	fuzz_check(err->code != PROTO_ERR_NONE, "an error without a code");
	fuzz_check(memchr(err->message, '\0', sizeof err->message) != NULL, "message unterminated");
	fuzz_check(err->has_msgid || err->msgid == 0, "msgid without has_msgid");
	fuzz_scratch(&pk);
	rpc_out_truncate(&fuzz_out, 0);
	rpc_put_error_reply(&fuzz_out, err);
	fuzz_check(!rpc_out_failed(&fuzz_out), "write error");
	fuzz_check(fuzz_unpack(fuzz_out.data, fuzz_out.len, &off, &o) && off == fuzz_out.len,
		   "error reply does not unpack");
	fuzz_check(o.type == MSGPACK_OBJECT_ARRAY && o.via.array.size == 4 &&
			   o.via.array.ptr[1].via.u64 == err->msgid &&
			   o.via.array.ptr[2].type == MSGPACK_OBJECT_MAP,
		   "error reply shape");
}

/*
 * A response whose result echoes the arguments must unpack to an equal map,
 * and the daemon's writer must encode the arguments byte for byte as
 * msgpack-c's packer does.
 */
static void fuzz_echo(const struct rpc_request *req)
{
	msgpack_packer pk;
	msgpack_object args, o;
	size_t off = 0, head;

	fuzz_scratch(&pk);
	args.type = MSGPACK_OBJECT_MAP;
	args.via.map = *req->args;
	fuzz_check(msgpack_pack_object(&pk, args) == 0, "pack result");
	rpc_out_truncate(&fuzz_out, 0);
	rpc_put_response(&fuzz_out, req->msgid);
	head = fuzz_out.len;
	rpc_put_object(&fuzz_out, &args);
	rpc_put_event(&fuzz_out, (enum proto_event)(req->msgid % PROTO_EVENT_COUNT), 0);
	fuzz_check(!rpc_out_failed(&fuzz_out), "write response");
	fuzz_check(fuzz_out.len - head >= fuzz_sb.size &&
			   memcmp(fuzz_out.data + head, fuzz_sb.data, fuzz_sb.size) == 0,
		   "the writer and msgpack-c encode the arguments differently");
	fuzz_check(fuzz_unpack(fuzz_out.data, fuzz_out.len, &off, &o), "response does not unpack");
	fuzz_check(o.type == MSGPACK_OBJECT_ARRAY && o.via.array.size == 4 &&
			   fuzz_equal(&o.via.array.ptr[3], &args),
		   "echoed arguments differ");
	fuzz_check(off == head + fuzz_sb.size, "the response ends elsewhere");
	fuzz_check(fuzz_unpack(fuzz_out.data, fuzz_out.len, &off, &o) && off == fuzz_out.len,
		   "event does not unpack");
}

static const char *const fuzz_loop_names[] = { "loop", "once", "pingpong" };
static const char *const fuzz_space_names[] = { "local", "model", "skin", "vertices", "camera" };

/* Ask for `key` with one of the getters, chosen by `which`. */
static void fuzz_getter(struct rpc_args *a, const char *key, unsigned which)
{
	enum rpc_presence p = which & 16 ? RPC_REQUIRED : RPC_OPTIONAL;
	struct rpc_str s, list[8];
	char buf[32];
	uint32_t u32;
	uint64_t u64, mask;
	int64_t i64;
	double d;
	bool b;
	size_t n;
	int e;

	switch (which % 10) {
	case 0: rpc_args_string(a, key, p, PROTO_MAX_ASSET_NAME_BYTES, &s); break;
	case 1: rpc_args_cstring(a, key, p, buf, sizeof buf); break;
	case 2: rpc_args_uint32(a, key, p, &u32); break;
	case 3: rpc_args_uint64(a, key, p, &u64); break;
	case 4: rpc_args_int64(a, key, p, &i64); break;
	case 5: rpc_args_double(a, key, p, &d); break;
	case 6: rpc_args_bool(a, key, p, &b); break;
	case 7: rpc_args_enum(a, key, p, fuzz_loop_names, 3, &e); break;
	case 8: rpc_args_strings(a, key, p, list, 8, 16, &n); break;
	default:
		rpc_args_enum_mask(a, key, p, proto_event_names, PROTO_EVENT_COUNT, &mask);
		break;
	}
}

static void fuzz_request(const struct rpc_request *req)
{
	struct rpc_error err;
	struct rpc_args a;
	int space = 0;

	rpc_args_init(&a, req, &err);
	/* The documented arguments first, as a handler would ask. */
	rpc_args_enum(&a, "space", RPC_OPTIONAL, fuzz_space_names, 5, &space);
	fuzz_getter(&a, "asset", 0);
	fuzz_getter(&a, "speed", 5);
	fuzz_getter(&a, "instance", 2);
	fuzz_getter(&a, "events", 9);
	if (req->args != NULL) {
		/* Then every key the client sent, with a getter picked from it. */
		for (uint32_t i = 0; i < req->args->size; i++) {
			const msgpack_object *k = &req->args->ptr[i].key;
			char key[PROTO_MAX_NAME_BYTES + 1];

			fuzz_check(k->type == MSGPACK_OBJECT_STR && k->via.str.size < sizeof key,
				   "validated key is not a short string");
			memcpy(key, k->via.str.ptr, k->via.str.size);
			key[k->via.str.size] = '\0';
			fuzz_getter(&a, key, k->via.str.size + req->msgid + i);
		}
		fuzz_echo(req);
	}
	if (rpc_args_finish(&a) < 0) {
		fuzz_check(a.failed && err.has_msgid && err.msgid == req->msgid && !err.fatal,
			   "argument error not tied to its request");
		fuzz_error_reply(&err);
	}
}

static void fuzz_message(const struct rpc_message *m)
{
	struct rpc_request req;
	struct rpc_error err;
	msgpack_packer pk;
	msgpack_object o;
	size_t off = 0;
	int rc;

	/* msgpack-c must agree on where the message ends, and on what it is. */
	fuzz_scratch(&pk);
	fuzz_check(fuzz_unpack(m->data, m->size, &off, &o) && off == m->size,
		   "msgpack-c disagrees on a message's extent");
	fuzz_check(fuzz_equal(&o, &m->obj), "msgpack-c unpacks differently");

	rc = rpc_request_parse(&m->obj, &req, &err);
	if (rc == 0) {
		fuzz_check(req.method < PROTO_METHOD_COUNT, "method out of range");
		fuzz_request(&req);
	} else if (rc < 0) {
		fuzz_check(rc == -EBADMSG, "unexpected parse error");
		fuzz_check(err.fatal == !err.has_msgid, "fatal iff no msgid");
		fuzz_error_reply(&err);
	} else {
		fuzz_check(rc == 1, "unexpected parse result");
	}
}

/* One pass: feed `chunk` bytes at a time (0: all at once), draining after each. */
static void fuzz_pass(const uint8_t *data, size_t size, size_t chunk,
		      const struct rpc_limits *lim, bool deep, struct fuzz_outcome *out)
{
	struct rpc_decoder d;
	struct rpc_message m;
	struct rpc_error err;
	size_t off = 0;
	int rc = 0;

	memset(out, 0, sizeof *out);
	fuzz_check(rpc_decoder_init(&d, lim) == 0, "init");
	while (off < size && rc >= 0) {
		size_t n = chunk == 0 || chunk > size - off ? size - off : chunk;

		/* Alternate the two ways bytes get in. */
		if ((off / (chunk ? chunk : 1)) % 2 == 0) {
			fuzz_check(rpc_decoder_feed(&d, data + off, n) == 0, "feed refused");
		} else {
			char *p;
			size_t room;

			fuzz_check(rpc_decoder_reserve(&d, n, &p, &room) == 0, "reserve refused");
			if (room < n)
				n = room;
			memcpy(p, data + off, n);
			fuzz_check(rpc_decoder_commit(&d, n) == 0, "commit refused");
		}
		off += n;
		while ((rc = rpc_decoder_next(&d, &m, &err)) == 1) {
			fuzz_check(m.size > 0 && m.size <= lim->max_message_bytes, "message size");
			if (out->count < FUZZ_MAX_MESSAGES)
				out->sizes[out->count] = m.size;
			out->count++;
			if (deep)
				fuzz_message(&m);
		}
		if (rc < 0) {
			fuzz_check(err.fatal && err.code != PROTO_ERR_NONE, "fatal error shape");
			fuzz_check(rc == -EPROTO || rc == -EMSGSIZE, "unexpected decoder error");
			if (deep)
				fuzz_error_reply(&err);
			/* The buffer never holds more than the cap plus one feed. */
			fuzz_check(rpc_decoder_pending(&d) <= lim->max_message_bytes + n,
				   "buffered past the cap");
		} else {
			fuzz_check(rpc_decoder_pending(&d) <= lim->max_message_bytes,
				   "an incomplete message over the cap");
		}
	}
	out->final_rc = rc;
	out->finish_rc = rpc_decoder_finish(&d, &err);
	if (out->finish_rc < 0)
		fuzz_check(err.fatal, "finish error not fatal");
	rpc_decoder_close(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t chunks[] = { 0, 1, 3, 61 };
	static const struct rpc_limits limits[] = {
		RPC_LIMITS_DEFAULT,
		{ .max_message_bytes = 300, .max_depth = 5, .max_items = 40 },
	};
	static struct fuzz_outcome first, other;

	for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
		for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
			struct fuzz_outcome *o = c == 0 ? &first : &other;

			/* Byte at a time is slow on long inputs and adds little there. */
			if (chunks[c] == 1 && size > 8192)
				continue;
			/* Messages are checked in depth once per limit set; the
			 * other chunkings must merely find the same ones. */
			fuzz_pass(data, size, chunks[c], &limits[l], c == 0, o);
			if (c == 0)
				continue;
			fuzz_check(o->count == first.count, "chunking changed the message count");
			fuzz_check(memcmp(o->sizes, first.sizes,
					  (first.count < FUZZ_MAX_MESSAGES ? first.count
									   : FUZZ_MAX_MESSAGES) *
						  sizeof first.sizes[0]) == 0,
				   "chunking changed the messages");
			fuzz_check(o->final_rc == first.final_rc, "chunking changed the outcome");
			fuzz_check(o->finish_rc == first.finish_rc, "chunking changed the ending");
		}
	}
	return 0;
}
