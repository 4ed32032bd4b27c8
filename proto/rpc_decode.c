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
 */
#include "rpc.h"

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
 */
static int rpc_head_parse(const uint8_t *p, size_t avail, struct rpc_head *h)
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
 * Walk the message at d->start as far as the bytes go.  1 with *len set when
 * it is complete; 0 when more bytes are needed; negative (via
 * rpc_decoder_fail) when it breaks a limit or is not msgpack.
 *
 * Invariants between calls: d->scan is the offset of the first object not
 * yet walked; remaining[0..depth) count the elements still due in each open
 * container; announced - parsed objects are due and not yet walked, and since
 * every object takes at least one byte, scan + (announced - parsed) is a
 * lower bound on the message's length.
 */
static int rpc_scan(struct rpc_decoder *d, size_t *len, struct rpc_error *err)
{
	const struct rpc_limits *lim = &d->limits;
	const uint8_t *p;
	size_t avail = d->end - d->start;

	if (avail == 0)
		return 0;               /* and d->buf may still be NULL */
	p = (const uint8_t *)d->buf + d->start;
	for (;;) {
		size_t pos = d->scan;
		struct rpc_head h;
		uint64_t item_end, min_end, announced;
		int rc = rpc_head_parse(p + pos, avail - pos, &h);

		if (rc < 0)
			return rpc_decoder_fail(d, -EPROTO, PROTO_ERR_BAD_REQUEST, err,
						"not msgpack: byte 0x%02x at offset %zu is never used",
						p[pos], pos);
		if (rc == 0)
			break;
		/* Judge the header before waiting for what it announces. */
		item_end = pos + h.head + h.payload;
		min_end = item_end + (d->announced - d->parsed - 1) + h.children;
		if (min_end > lim->max_message_bytes)
			return rpc_decoder_fail(d, -EMSGSIZE, PROTO_ERR_LIMIT, err,
						"message longer than the limit of %zu bytes",
						lim->max_message_bytes);
		announced = d->announced + h.children;
		if (announced > lim->max_items)
			return rpc_decoder_fail(d, -EMSGSIZE, PROTO_ERR_LIMIT, err,
						"message holds more than the limit of %u objects",
						lim->max_items);
		/* Empty containers count too: the limit is on nesting as written. */
		if (h.container && d->depth >= lim->max_depth)
			return rpc_decoder_fail(d, -EMSGSIZE, PROTO_ERR_LIMIT, err,
						"message nests deeper than the limit of %u levels",
						lim->max_depth);
		if (item_end > avail)
			break;
		d->scan = (size_t)item_end;
		d->parsed++;
		d->announced = announced;
		if (h.children > 0) {
			/* <= max_items <= UINT32_MAX, checked above */
			d->remaining[d->depth++] = (uint32_t)h.children;
			continue;
		}
		/* An object ended: close every container it completes. */
		while (d->depth > 0 && --d->remaining[d->depth - 1] == 0)
			d->depth--;
		if (d->depth == 0) {
			*len = d->scan;
			return 1;
		}
	}
	if (avail > lim->max_message_bytes)
		return rpc_decoder_fail(d, -EMSGSIZE, PROTO_ERR_LIMIT, err,
					"message longer than the limit of %zu bytes",
					lim->max_message_bytes);
	return 0;
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
static void rpc_decoder_consume(struct rpc_decoder *d)
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
	rpc_decoder_consume(d);
	/* The previous message's objects die here, as documented. */
	msgpack_zone_clear(&d->zone);
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
