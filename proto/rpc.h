/*
 * rpc.h - the msgpack-RPC wire layer: a bounded streaming decoder, request
 * validation, typed access to named arguments, and encoders for requests,
 * replies and events.  proto/PROTOCOL.md is the specification this
 * implements.
 *
 * Depends on libc and msgpack-c only; no I/O, no event loop.  Every function
 * returns 0 (or a documented non-negative value) on success and a negative
 * errno on failure; nothing prints, exits or keeps global state.
 *
 * A server uses it like this:
 *
 *	rpc_decoder_feed(&conn->dec, bytes, n);          (or reserve + commit)
 *	while ((rc = rpc_decoder_next(&conn->dec, &msg, &err)) == 1) {
 *		rc = rpc_request_parse(&msg.obj, &req, &err);
 *		if (rc == 0)
 *			dispatch(&req);                  (handlers use rpc_args_*)
 *		else if (rc < 0)
 *			reply with rpc_put_error_reply(&out, &err), close if err.fatal
 *	}
 *	if (rc < 0)
 *		reply with rpc_put_error_reply(&out, &err), then close
 */
#ifndef ANIMD_PROTO_RPC_H
#define ANIMD_PROTO_RPC_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/animd_proto.h"
#include "proto/rpc_out.h"

/* The deepest nesting msgpack-c itself can unpack (its fixed parse stack). */
#define RPC_DEPTH_CEILING 32

_Static_assert(PROTO_DEFAULT_MAX_DEPTH <= RPC_DEPTH_CEILING, "msgpack-c cannot go deeper");
_Static_assert(PROTO_MAX_ARGS <= 64, "struct rpc_args tracks used keys in 64 bits");

#define RPC_ERROR_MESSAGE_MAX 256

/*
 * What to answer when a message cannot be served: an error reply
 * [1, msgid, {"code", "message"}, nil], after which the connection is closed
 * if `fatal` is set.
 *
 * `fatal` is set when the byte stream cannot be trusted any more (not
 * msgpack, over a limit, cut short), and when the message could not be tied
 * to a request: without a msgid the peer cannot match the reply, and a peer
 * that sends such messages is not speaking the protocol.  Then `msgid` is 0
 * unless one could be read from the message's first bytes.
 */
struct rpc_error {
	enum proto_error code;
	bool fatal;
	bool has_msgid;                 /* msgid came from the request */
	uint32_t msgid;                 /* the msgid to reply with (0 when unknown) */
	char message[RPC_ERROR_MESSAGE_MAX];    /* one human-readable line */
};

/* Reset to "no error, msgid 0, not fatal". */
void rpc_error_init(struct rpc_error *err);
/* Set the code and a printf-formatted message, keeping msgid and fatal.
 * The message is truncated to fit. */
void rpc_error_format(struct rpc_error *err, enum proto_error code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Write `s` (len bytes, from the wire) into out as a double-quoted, printable
 * string for an error message: quotes, backslashes and control characters
 * escaped, bytes that are not UTF-8 as \xNN, cut after 64 input bytes with
 * "...".  Always NUL-terminates when size > 0.  Returns out.
 */
char *rpc_quote(char *out, size_t size, const char *s, size_t len);

/* ---------------------------------------------------------------------
 * Streaming decoder.
 *
 * Bytes go in as they arrive; whole msgpack objects come out, one per
 * message.  Messages are concatenated msgpack objects with no framing of
 * their own, so the decoder finds each one's end by walking the raw bytes
 * itself, bounded, before msgpack-c unpacks it:
 *  - a message longer than max_message_bytes is refused as soon as that is
 *    certain: when a header announces a string or a count of elements that
 *    cannot fit, or when the bytes buffered for an incomplete message pass
 *    the cap.  It never waits to buffer the rest;
 *  - nesting deeper than max_depth and more than max_items objects are
 *    refused before msgpack-c allocates anything for them (msgpack-c sizes
 *    an array by its header, so a 5-byte header claiming 4 billion elements
 *    would otherwise ask for ~100 GiB);
 *  - a byte that is not msgpack (0xc1) is refused.
 * Each of these is fatal: the stream cannot be resynchronised.
 *
 * Memory: the buffer holds at most the incomplete message (< the cap) plus
 * one feed, because feeding is refused until the caller has drained every
 * complete message (rpc_decoder_next returned 0).  A server that stops
 * draining (its peer is not reading replies) must stop reading the socket
 * too; then nothing grows.  Buffers above 64 KiB are released when they
 * empty.
 * ------------------------------------------------------------------- */

struct rpc_limits {
	size_t max_message_bytes;       /* >= 1 */
	uint32_t max_depth;             /* 1..RPC_DEPTH_CEILING */
	uint32_t max_items;             /* >= 1 */
};

#define RPC_LIMITS_DEFAULT                                                  \
	{ .max_message_bytes = PROTO_DEFAULT_MAX_MESSAGE_BYTES,             \
	  .max_depth = PROTO_DEFAULT_MAX_DEPTH,                             \
	  .max_items = PROTO_DEFAULT_MAX_ITEMS }

/* Caller-owned storage; the fields are private to rpc_decode.c. */
struct rpc_decoder {
	struct rpc_limits limits;
	char *buf;
	size_t cap;                     /* bytes allocated */
	size_t start;                   /* first byte not yet returned */
	size_t end;                     /* one past the last byte received */
	size_t taken;                   /* bytes of the message last returned */
	size_t reserved;                /* bytes handed out by reserve */
	bool drained;                   /* next() said "need more" since the last feed */
	int dead;                       /* 0, or the fatal negative errno */
	struct rpc_error fatal;         /* why, when dead */
	/* Walk of the message starting at `start`, resumable across feeds. */
	size_t scan;                    /* offset of the next object header */
	uint64_t announced;             /* objects known to exist so far */
	uint64_t parsed;                /* objects fully walked */
	uint32_t depth;                 /* containers open */
	uint32_t remaining[RPC_DEPTH_CEILING];  /* elements left in each */
	msgpack_zone zone;              /* the unpacked message lives here */
	bool zone_live;                 /* zone initialised (init succeeded) */
};

/* One complete message, owned by the decoder: `obj`, and `data`/`size`
 * (its raw bytes), stay valid until the next call on the decoder.  Strings
 * inside obj point into the decoder's buffer. */
struct rpc_message {
	msgpack_object obj;
	const char *data;
	size_t size;
};

/* limits NULL means RPC_LIMITS_DEFAULT.  0, -EINVAL (a limit out of range),
 * -ENOMEM.  Allocates no buffer until bytes arrive.  Closing a decoder whose
 * init failed is allowed and does nothing. */
int rpc_decoder_init(struct rpc_decoder *d, const struct rpc_limits *limits);
/* Free everything; the decoder must be initialised again before reuse. */
void rpc_decoder_close(struct rpc_decoder *d);

/*
 * Append len bytes.  0; -EBUSY if complete messages are still waiting to be
 * taken with rpc_decoder_next (drain first); -ENOMEM; or the decoder's fatal
 * error if it has failed.
 */
int rpc_decoder_feed(struct rpc_decoder *d, const void *data, size_t len);

/*
 * Zero-copy alternative to feed, for a reader that wants a buffer to read
 * into (libuv's alloc callback): *buf gets room for *len bytes, at least one
 * and at most min(want, max_message_bytes); then rpc_decoder_commit says how
 * many were written.  Same errors as feed.  Only the last reservation counts.
 */
int rpc_decoder_reserve(struct rpc_decoder *d, size_t want, char **buf, size_t *len);
/* n bytes of the last reservation were filled.  0, or -EINVAL if n exceeds it. */
int rpc_decoder_commit(struct rpc_decoder *d, size_t n);

/*
 * Take the next complete message.
 * Returns 1 with *msg filled; 0 when more bytes are needed (the decoder is now
 * drained and accepts a feed); or a negative errno with *err saying what to
 * reply before disconnecting (err->fatal is set):
 *   -EMSGSIZE  over max_message_bytes, max_depth or max_items (code limit)
 *   -EPROTO    not msgpack (code bad_request)
 *   -ENOMEM    out of memory (code internal)
 * After a failure every call returns the same error.
 */
int rpc_decoder_next(struct rpc_decoder *d, struct rpc_message *msg, struct rpc_error *err);

/*
 * The peer closed its end.  0 if nothing is left over; -EPROTO with *err filled
 * (fatal) if a message was cut short; -EBUSY if complete messages remain to be
 * taken; or the decoder's fatal error.
 */
int rpc_decoder_finish(struct rpc_decoder *d, struct rpc_error *err);

/* Bytes received and not yet returned in a message. */
size_t rpc_decoder_pending(const struct rpc_decoder *d);

/* ---------------------------------------------------------------------
 * Requests: [0, msgid, method, params].
 * ------------------------------------------------------------------- */

struct rpc_request {
	uint32_t msgid;
	enum proto_method method;
	/* The named arguments: NULL when params is [], else the map params[0].
	 * Its keys are distinct strings, at most PROTO_MAX_ARGS of them.
	 * Borrowed from the message. */
	const msgpack_object_map *args;
};

/*
 * Validate one message as a request.
 *   0        *req is a request for a known method, ready to dispatch.
 *   1        a well-formed notification [2, method, params] from the client.
 *            The daemon defines none; the protocol sends nothing back, so the
 *            caller ignores it (and may log it).
 *   -EBADMSG not a valid request: *err holds the reply.  With the request's
 *            msgid when one could be read (bad_request or unknown_method; the
 *            connection carries on); otherwise msgid 0 and err->fatal.
 */
int rpc_request_parse(const msgpack_object *obj, struct rpc_request *req, struct rpc_error *err);

/* ---------------------------------------------------------------------
 * Named arguments.
 *
 * Each getter looks up one key of the request's params map, checks its type
 * and range, and marks the key as used.  Errors are sticky: the first one is
 * written to the rpc_error given to rpc_args_init (code bad_request, with
 * the request's msgid, not fatal, a message such as
 * `play: "speed" must be a number, got a string`), and every later getter
 * returns -EINVAL without touching its output.  rpc_args_finish then reports
 * any key that no getter asked for (`play: unknown argument "foo"`), so a
 * handler can call all its getters and check once.
 *
 * Getters return 1 when the key was present and *out was set; 0 when it was
 * absent (or nil) and optional, leaving *out untouched so the caller can
 * pre-set a default; -EINVAL on any error (missing when required included).
 * ------------------------------------------------------------------- */

enum rpc_presence {
	RPC_OPTIONAL = 0,
	RPC_REQUIRED = 1,
};

struct rpc_args {
	const msgpack_object_map *map;  /* NULL: no arguments */
	enum proto_method method;
	uint64_t used;                  /* bit i: key i was asked for */
	bool failed;
	struct rpc_error *err;
	char where[48];                 /* a nested map's place ("mask[1]: "), or "" */
};

/* A string borrowed from the message: valid UTF-8 without NUL bytes, not
 * NUL-terminated. */
struct rpc_str {
	const char *ptr;
	size_t len;
};

/* Bind to a parsed request; err (caller-owned, must outlive a) is reset with
 * the request's msgid. */
void rpc_args_init(struct rpc_args *a, const struct rpc_request *req, struct rpc_error *err);
/* 0 if every getter succeeded and every key was asked for; else -EINVAL. */
int rpc_args_finish(struct rpc_args *a);

/* A string of at most max_len bytes, valid UTF-8 without NUL, borrowed. */
int rpc_args_string(struct rpc_args *a, const char *key, enum rpc_presence presence,
		    size_t max_len, struct rpc_str *out);
/* The same, copied NUL-terminated into buf (size - 1 bytes at most). */
int rpc_args_cstring(struct rpc_args *a, const char *key, enum rpc_presence presence,
		     char *buf, size_t size);
/* Integers: msgpack integers only, within the type's range. */
int rpc_args_uint32(struct rpc_args *a, const char *key, enum rpc_presence presence,
		    uint32_t *out);
int rpc_args_uint64(struct rpc_args *a, const char *key, enum rpc_presence presence,
		    uint64_t *out);
int rpc_args_int64(struct rpc_args *a, const char *key, enum rpc_presence presence,
		   int64_t *out);
/* A finite number: a float, or an integer converted to double. */
int rpc_args_double(struct rpc_args *a, const char *key, enum rpc_presence presence,
		    double *out);
int rpc_args_bool(struct rpc_args *a, const char *key, enum rpc_presence presence, bool *out);
/* A string that must equal one of names[0..count); *out is its index. */
int rpc_args_enum(struct rpc_args *a, const char *key, enum rpc_presence presence,
		  const char *const *names, size_t count, int *out);
/* An array of at most max_count strings of at most max_len bytes each,
 * borrowed into out[]; *count is how many. */
int rpc_args_strings(struct rpc_args *a, const char *key, enum rpc_presence presence,
		     struct rpc_str *out, size_t max_count, size_t max_len, size_t *count);
/* A map of named arguments nested in an argument, bound to *sub for its own
 * getters and rpc_args_finish (errors go to a's rpc_error, the message
 * naming where the map is): string keys, distinct, at most PROTO_MAX_ARGS
 * of them.  rpc_args_maps is the same for an array of at most max_count
 * maps, into subs[0..*count). */
int rpc_args_map(struct rpc_args *a, const char *key, enum rpc_presence presence,
		 struct rpc_args *sub);
int rpc_args_maps(struct rpc_args *a, const char *key, enum rpc_presence presence,
		  struct rpc_args *subs, size_t max_count, size_t *count);
/* An array of names from names[0..count) (count <= 64), as a bit mask; a
 * name may repeat; [] gives 0. */
int rpc_args_enum_mask(struct rpc_args *a, const char *key, enum rpc_presence presence,
		       const char *const *names, size_t count, uint64_t *out);

/* ---------------------------------------------------------------------
 * Encoders for clients, on msgpack-c's packer.  Each appends to whatever
 * the packer writes to (an sbuffer, usually) and returns 0 or -ENOMEM (the
 * packer's write failed).  The daemon writes its replies and events with
 * rpc_out.h instead.
 * ------------------------------------------------------------------- */

int rpc_pack_str(msgpack_packer *pk, const char *s, size_t len);
int rpc_pack_cstr(msgpack_packer *pk, const char *s);
int rpc_pack_bool(msgpack_packer *pk, bool v);

/* [0, msgid, method, params]: with nargs 0, params is [] and the request is
 * complete; otherwise params is [{...}] and the caller packs exactly nargs
 * key/value pairs next. */
int rpc_pack_request(msgpack_packer *pk, uint32_t msgid, const char *method, uint32_t nargs);

/* rpc_put_error (rpc_out.h) with err's msgid, code and message. */
void rpc_put_error_reply(struct rpc_out *o, const struct rpc_error *err);

#endif
