/*
 * rpc_decode.c - the bounded streaming decoder: finds where each msgpack
 * message ends by walking its raw bytes under the limits, then lets
 * msgpack-c unpack exactly those bytes into a zone the decoder reuses.
 *
 * Why walk first: msgpack-c trusts headers.  It allocates an array's
 * elements from the count in the header before a single element has
 * arrived, and its streaming unpacker buffers whatever it is given.  The
 * walk needs no allocation, checks every length against the cap before
 * more bytes are buffered, and is resumable, so a message fed one byte at a
 * time is walked once, not once per byte.
 *
 * The walk is on the path of every request, and requests are small: a
 * pipelined [0, 1, "hello", []] is ten bytes, five objects.  So it is built
 * to cost per object a fraction of what msgpack-c's unpacking does: a table
 * says what each first byte means on its own, which covers every object
 * requests are made of, the state stays in registers while walking, and
 * each object pays only for the checks it can fail.  The other headers
 * (lengths and counts that follow the type byte) take the general parser.
 */
#include "proto/rpc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first buffer, and the size above which an emptied buffer is freed
 * rather than kept for the next message. */
#define RPC_BUF_MIN 4096u
#define RPC_BUF_KEEP (64u * 1024u)
/* The zone's first chunk, kept across messages: a typical request fits. */
#define RPC_ZONE_CHUNK 4096u

/* One object's header: header bytes, payload bytes after the header
 * (string, binary, extension or number data), and elements that follow
 * (a map counts keys and values). */
struct rpc_head {
	size_t head;
	uint64_t payload;
	uint64_t children;
	bool container;
};

static uint64_t rpc_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * Read the header of the object at p (avail bytes available).  1 with *h
 * filled; 0 if the header itself is incomplete; -1 for the byte 0xc1, which
 * msgpack never uses.  Every other first byte is defined by the spec.
 *
 * Always inlined: a call inside rpc_scan's loop, even one rarely taken,
 * makes the compiler keep the walk's state in callee-saved registers and on
 * the stack (about 10 instructions more per small request).
 */
static inline __attribute__((always_inline)) int rpc_head_parse(const uint8_t *p, size_t avail,
								struct rpc_head *h)
{
	unsigned lenbytes = 0;          /* big-endian length/count after the type byte */
	unsigned extra = 0;             /* header bytes after the length (ext type) */
	unsigned kind = 0;              /* 0 payload, 1 array, 2 map */
	uint8_t b;

	if (avail == 0)
		return 0;
	b = p[0];
	h->head = 1;
	h->payload = 0;
	h->children = 0;
	h->container = false;
	if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
		return 1;                               /* fixint, nil, bool */
	if (b <= 0x8f) {
		h->children = 2u * (b & 0x0fu);         /* fixmap */
		h->container = true;
		return 1;
	}
	if (b <= 0x9f) {
		h->children = b & 0x0fu;                /* fixarray */
		h->container = true;
		return 1;
	}
	if (b <= 0xbf) {
		h->payload = b & 0x1fu;                 /* fixstr */
		return 1;
	}
	switch (b) {
	case 0xc1:
		return -1;
	case 0xc4: lenbytes = 1; break;                 /* bin 8/16/32 */
	case 0xc5: lenbytes = 2; break;
	case 0xc6: lenbytes = 4; break;
	case 0xc7: lenbytes = 1; extra = 1; break;      /* ext 8/16/32: length, type */
	case 0xc8: lenbytes = 2; extra = 1; break;
	case 0xc9: lenbytes = 4; extra = 1; break;
	case 0xca: h->payload = 4; return 1;            /* float 32/64 */
	case 0xcb: h->payload = 8; return 1;
	case 0xcc: case 0xd0: h->payload = 1; return 1; /* (u)int 8..64 */
	case 0xcd: case 0xd1: h->payload = 2; return 1;
	case 0xce: case 0xd2: h->payload = 4; return 1;
	case 0xcf: case 0xd3: h->payload = 8; return 1;
	case 0xd4: h->head = 2; h->payload = 1; return 1;       /* fixext: type, data */
	case 0xd5: h->head = 2; h->payload = 2; return 1;
	case 0xd6: h->head = 2; h->payload = 4; return 1;
	case 0xd7: h->head = 2; h->payload = 8; return 1;
	case 0xd8: h->head = 2; h->payload = 16; return 1;
	case 0xd9: lenbytes = 1; break;                 /* str 8/16/32 */
	case 0xda: lenbytes = 2; break;
	case 0xdb: lenbytes = 4; break;
	case 0xdc: lenbytes = 2; kind = 1; break;       /* array 16/32 */
	case 0xdd: lenbytes = 4; kind = 1; break;
	case 0xde: lenbytes = 2; kind = 2; break;       /* map 16/32 */
	case 0xdf: lenbytes = 4; kind = 2; break;
	default:
		return -1;                              /* unreachable: all bytes covered */
	}
	h->head = 1u + lenbytes + extra;
	if (avail < h->head)
		return 0;
	if (kind == 0) {
		h->payload = rpc_be(p + 1, lenbytes);
	} else {
		h->children = rpc_be(p + 1, lenbytes) * kind;
		h->container = true;
	}
	return 1;
}

/*
 * If the bytes begin like a request, [0, msgid, ...] with a fixarray of 4
 * and an unsigned msgid, read the msgid so that even a fatal error reply can
 * name the request it kills.
 */
static bool rpc_peek_msgid(const uint8_t *p, size_t avail, uint32_t *msgid)
{
	struct rpc_head h;

	if (avail < 3 || p[0] != 0x94 || p[1] != 0x00)
		return false;
	if (p[2] <= 0x7f) {
		*msgid = p[2];
		return true;
	}
	if (p[2] < 0xcc || p[2] > 0xce || rpc_head_parse(p + 2, avail - 2, &h) != 1 ||
	    avail - 2 < h.head + h.payload)
		return false;
	*msgid = (uint32_t)rpc_be(p + 3, (unsigned)h.payload);
	return true;
}

static void rpc_scan_reset(struct rpc_decoder *d)
{
	d->scan = 0;
	d->announced = 1;               /* the message itself */
	d->parsed = 0;
	d->depth = 0;
}

/* Record a fatal error: the decoder answers every later call with it. */
static int rpc_decoder_fail(struct rpc_decoder *d, int rc, enum proto_error code,
			    struct rpc_error *err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int rpc_decoder_fail(struct rpc_decoder *d, int rc, enum proto_error code,
			    struct rpc_error *err, const char *fmt, ...)
{
	struct rpc_error *e = &d->fatal;
	va_list ap;

	rpc_error_init(e);
	e->code = code;
	e->fatal = true;
	if (d->buf != NULL &&
	    rpc_peek_msgid((const uint8_t *)d->buf + d->start, d->end - d->start, &e->msgid))
		e->has_msgid = true;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
	d->dead = rc;
	if (err != NULL)
		*err = *e;
	return rc;
}

/*
 * What the first byte of an object says on its own, for rpc_scan's fast
 * path.  For an object that holds nothing and whose size that byte fixes
 * (fixint, nil, bool, fixstr, number, fixext): the size, 1..32.  For a
 * fixmap or fixarray: RPC_FIX_CONTAINER plus its elements (a map counts keys
 * and values).  0 for the rest, which rpc_head_parse reads: the types whose
 * length or count follows the type byte, and 0xc1.
 */
#define RPC_FIX_CONTAINER 0x80u
#define RPC_X16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
#define RPC_M(n) (RPC_FIX_CONTAINER + 2 * (n))
#define RPC_A(n) (RPC_FIX_CONTAINER + (n))
static const uint8_t rpc_first_byte[] = {
	RPC_X16(1), RPC_X16(1), RPC_X16(1), RPC_X16(1),         /* 0x00 positive fixint */
	RPC_X16(1), RPC_X16(1), RPC_X16(1), RPC_X16(1),
	RPC_M(0), RPC_M(1), RPC_M(2), RPC_M(3), RPC_M(4), RPC_M(5), RPC_M(6), RPC_M(7),
	RPC_M(8), RPC_M(9), RPC_M(10), RPC_M(11), RPC_M(12), RPC_M(13), RPC_M(14), RPC_M(15),
	RPC_A(0), RPC_A(1), RPC_A(2), RPC_A(3), RPC_A(4), RPC_A(5), RPC_A(6), RPC_A(7),
	RPC_A(8), RPC_A(9), RPC_A(10), RPC_A(11), RPC_A(12), RPC_A(13), RPC_A(14), RPC_A(15),
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,  /* 0xa0 fixstr */
	17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
	1, 0, 1, 1,                                             /* 0xc0 nil, (0xc1), false, true */
	0, 0, 0, 0, 0, 0,                                       /* 0xc4 bin 8/16/32, ext 8/16/32 */
	5, 9,                                                   /* 0xca float 32/64 */
	2, 3, 5, 9, 2, 3, 5, 9,                                 /* 0xcc uint, int 8..64 */
	3, 4, 6, 10, 18,                                        /* 0xd4 fixext 1..16 */
	0, 0, 0, 0, 0, 0, 0,                                    /* 0xd9 str, array, map */
	RPC_X16(1), RPC_X16(1),                                 /* 0xe0 negative fixint */
};
#undef RPC_A
#undef RPC_M
#undef RPC_X16

_Static_assert(sizeof rpc_first_byte == 256, "one entry per byte");

/*
 * Walk the message at d->start as far as the bytes go.  1 with *len set when
 * it is complete; 0 when more bytes are needed; negative (via
 * rpc_decoder_fail) when it breaks a limit or is not msgpack.
 *
 * Invariants between calls: d->scan is the offset of the first object not
 * yet walked; remaining[0..depth) count the elements still due in each open
 * container; announced - parsed objects are due and not yet walked, and since
 * every object takes at least one byte, scan + (announced - parsed) is a
 * lower bound on the message's length, one the checks keep within the cap.
 *
 * While walking, that state lives in locals and d is written once, on the
 * way out (with -fno-strict-aliasing every store through d would otherwise
 * make the compiler reload all of it).  The limits become budgets: `room`,
 * how far the lower bound may still grow; `spare`, how many more objects may
 * be announced; `top` caches remaining[depth - 1].  Each object is checked
 * against what it adds, in the order of the general rule (bytes, objects,
 * depth, then arrival), skipping only the checks it cannot fail: an object
 * of one byte that holds nothing adds nothing to the lower bound, so a
 * fixint, nil or bool is walked without any.
 *
 * A complete message leaves d's walk state behind unwritten:
 * rpc_decoder_consume resets it when next() takes the message, and nothing
 * reads it before (feeding is refused until next() has returned 0).
 */
static int rpc_scan(struct rpc_decoder *d, size_t *len, struct rpc_error *err)
{
	const uint32_t max_depth = d->limits.max_depth;
	uint32_t *rem = d->remaining;
	uint32_t depth = d->depth;
	uint64_t due = d->announced - d->parsed;
	uint64_t room = d->limits.max_message_bytes - (d->scan + due);
	uint64_t spare = d->limits.max_items - d->announced;
	uint32_t top;
	const uint8_t *p, *q, *e;
	struct rpc_head h;
	uint64_t n, size;

	if (d->end == d->start)
		return 0;               /* and d->buf may still be NULL */
	p = (const uint8_t *)d->buf + d->start;
	q = p + d->scan;
	e = (const uint8_t *)d->buf + d->end;
	/* At depth 0 the one object due is the message itself. */
	top = depth > 0 ? rem[depth - 1] : 1;
	while (q < e) {
		unsigned t = rpc_first_byte[*q];

		if (t == 1) {
			q++;                    /* fixint, nil, bool */
			goto leaf;
		}
		if (t >= RPC_FIX_CONTAINER) {
			n = t - RPC_FIX_CONTAINER;      /* fixmap, fixarray */
			if (n > room)
				goto too_long;
			if (n > spare)
				goto too_many;
			if (depth >= max_depth)
				goto too_deep;
			q++;
			room -= n;
			spare -= n;
			if (n == 0)
				goto leaf;
			goto push;
		}
		if (t > 1) {
			size = t;                       /* fixstr, number, fixext */
			if (size - 1 > room)
				goto too_long;
			if (size > (size_t)(e - q))
				break;
			q += size;
			room -= size - 1;
			goto leaf;
		}

		/* A length or count follows the type byte, or it is 0xc1. */
		switch (rpc_head_parse(q, (size_t)(e - q), &h)) {
		case -1:
			goto not_msgpack;
		case 0:
			goto more;
		}
		size = h.head + h.payload;
		n = h.children;
		/* Judge the header before waiting for what it announces. */
		if (size - 1 + n > room)
			goto too_long;
		if (n > spare)
			goto too_many;
		/* Empty containers count too: the limit is on nesting as written. */
		if (h.container && depth >= max_depth)
			goto too_deep;
		if (size > (size_t)(e - q))
			break;
		q += size;
		room -= size - 1 + n;
		spare -= n;
		if (n == 0)
			goto leaf;
push:
		/* n <= max_items <= UINT32_MAX, checked above */
		if (depth > 0)
			rem[depth - 1] = top;
		top = (uint32_t)n;
		depth++;
		continue;
leaf:
		/* An object ended: close every container it completes.  The
		 * message is complete when the outermost one is. */
		while (--top == 0) {
			if (depth <= 1)
				goto done;
			depth--;
			top = rem[depth - 1];
		}
	}
more:
	d->scan = (size_t)(q - p);
	d->announced = d->limits.max_items - spare;
	due = d->limits.max_message_bytes - room - d->scan;
	d->parsed = d->announced - due;
	d->depth = depth;
	if (depth > 0)
		rem[depth - 1] = top;
	if (d->end - d->start > d->limits.max_message_bytes)
		goto too_long;
	return 0;

done:
	*len = (size_t)(q - p);
	return 1;
not_msgpack:
	return rpc_decoder_fail(d, -EPROTO, PROTO_ERR_BAD_REQUEST, err,
				"not msgpack: byte 0x%02x at offset %zu is never used",
				*q, (size_t)(q - p));
too_long:
	return rpc_decoder_fail(d, -EMSGSIZE, PROTO_ERR_LIMIT, err,
				"message longer than the limit of %zu bytes",
				d->limits.max_message_bytes);
too_many:
	return rpc_decoder_fail(d, -EMSGSIZE, PROTO_ERR_LIMIT, err,
				"message holds more than the limit of %u objects",
				d->limits.max_items);
too_deep:
	return rpc_decoder_fail(d, -EMSGSIZE, PROTO_ERR_LIMIT, err,
				"message nests deeper than the limit of %u levels",
				d->limits.max_depth);
}

int rpc_decoder_init(struct rpc_decoder *d, const struct rpc_limits *limits)
{
	static const struct rpc_limits defaults = RPC_LIMITS_DEFAULT;

	memset(d, 0, sizeof *d);
	d->limits = limits != NULL ? *limits : defaults;
	if (d->limits.max_message_bytes == 0 || d->limits.max_message_bytes > SIZE_MAX / 4 ||
	    d->limits.max_depth == 0 || d->limits.max_depth > RPC_DEPTH_CEILING ||
	    d->limits.max_items == 0)
		return -EINVAL;
	if (!msgpack_zone_init(&d->zone, RPC_ZONE_CHUNK))
		return -ENOMEM;
	d->zone_live = true;
	d->drained = true;
	rpc_scan_reset(d);
	return 0;
}

void rpc_decoder_close(struct rpc_decoder *d)
{
	if (d == NULL)
		return;
	free(d->buf);
	if (d->zone_live)
		msgpack_zone_destroy(&d->zone);
	memset(d, 0, sizeof *d);
}

/* Drop the message last returned; release a large buffer once empty. */
static inline void rpc_decoder_consume(struct rpc_decoder *d)
{
	if (d->taken > 0) {
		d->start += d->taken;
		d->taken = 0;
		rpc_scan_reset(d);
	}
	if (d->start == d->end) {
		d->start = d->end = 0;
		if (d->cap > RPC_BUF_KEEP) {
			free(d->buf);
			d->buf = NULL;
			d->cap = 0;
		}
	}
}

/* Make room for `want` more bytes after the buffered ones; the shared part
 * of reserve and feed. */
static int rpc_decoder_room(struct rpc_decoder *d, size_t want, char **buf)
{
	size_t need;

	if (d->dead)
		return d->dead;
	if (!d->drained)
		return -EBUSY;
	rpc_decoder_consume(d);
	if (d->start > 0) {
		/* Only an incomplete message remains: move it to the front. */
		memmove(d->buf, d->buf + d->start, d->end - d->start);
		d->end -= d->start;
		d->start = 0;
	}
	if (want > SIZE_MAX / 2 - d->end)
		return -ENOMEM;
	need = d->end + want;
	if (need > d->cap) {
		size_t cap = d->cap < RPC_BUF_MIN ? RPC_BUF_MIN : d->cap;
		char *p;

		while (cap < need)
			cap *= 2;
		p = realloc(d->buf, cap);
		if (p == NULL)
			return -ENOMEM;
		d->buf = p;
		d->cap = cap;
	}
	*buf = d->buf + d->end;
	return 0;
}

int rpc_decoder_reserve(struct rpc_decoder *d, size_t want, char **buf, size_t *len)
{
	int rc;

	/* Reading more than one message's worth at a time buys nothing. */
	if (want == 0)
		want = 1;
	if (want > d->limits.max_message_bytes)
		want = d->limits.max_message_bytes;
	rc = rpc_decoder_room(d, want, buf);
	if (rc < 0)
		return rc;
	d->reserved = want;
	*len = want;
	return 0;
}

int rpc_decoder_commit(struct rpc_decoder *d, size_t n)
{
	if (n > d->reserved)
		return -EINVAL;
	d->reserved = 0;
	if (n > 0) {
		d->end += n;
		d->drained = false;
	}
	return 0;
}

int rpc_decoder_feed(struct rpc_decoder *d, const void *data, size_t len)
{
	char *buf;
	int rc;

	if (len == 0)
		return d->dead;
	rc = rpc_decoder_room(d, len, &buf);
	if (rc < 0)
		return rc;
	memcpy(buf, data, len);
	d->reserved = 0;
	d->end += len;
	d->drained = false;
	return 0;
}

int rpc_decoder_next(struct rpc_decoder *d, struct rpc_message *msg, struct rpc_error *err)
{
	size_t len = 0, off = 0;
	msgpack_unpack_return ur;
	int rc;

	if (d->dead) {
		*err = d->fatal;
		return d->dead;
	}
	/* The previous message's objects die here, as documented.  Only a
	 * message taken put any in the zone. */
	if (d->taken > 0)
		msgpack_zone_clear(&d->zone);
	rpc_decoder_consume(d);
	rc = rpc_scan(d, &len, err);
	if (rc <= 0) {
		if (rc == 0)
			d->drained = true;
		return rc;
	}
	/* The walk has proved these len bytes one well-formed object within the
	 * limits, so msgpack-c can only fail for memory.  (msgpack_unpack is the
	 * entry point that unpacks into a zone of the caller's; it is marked
	 * obsolete but is the one that lets the zone be reused.) */
	ur = msgpack_unpack(d->buf + d->start, len, &off, &d->zone, &msg->obj);
	if (ur == MSGPACK_UNPACK_NOMEM_ERROR)
		return rpc_decoder_fail(d, -ENOMEM, PROTO_ERR_INTERNAL, err,
					"out of memory unpacking a %zu-byte message", len);
	if (ur != MSGPACK_UNPACK_SUCCESS || off != len)
		return rpc_decoder_fail(d, -EPROTO, PROTO_ERR_INTERNAL, err,
					"msgpack-c rejected a %zu-byte message the decoder accepted",
					len);
	msg->data = d->buf + d->start;
	msg->size = len;
	d->taken = len;
	return 1;
}

int rpc_decoder_finish(struct rpc_decoder *d, struct rpc_error *err)
{
	size_t left;

	if (d->dead) {
		*err = d->fatal;
		return d->dead;
	}
	if (!d->drained)
		return -EBUSY;
	left = rpc_decoder_pending(d);
	if (left == 0)
		return 0;
	return rpc_decoder_fail(d, -EPROTO, PROTO_ERR_BAD_REQUEST, err,
				"connection closed inside a message (%zu bytes of it received)",
				left);
}

size_t rpc_decoder_pending(const struct rpc_decoder *d)
{
	return d->end - d->start - d->taken;
}
