/*
 * x_bin_writer.c - binary .x token writer and MSZIP compressor for tests
 * (see x_bin_writer.h).
 */
#include "tests/support/x_bin_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZLIB_CONST
#include <zlib.h>

static void xbw_die(const char *what)
{
	fprintf(stderr, "x_bin_writer: %s\n", what);
	abort();
}

void xbw_init(struct xbw *w, unsigned float_bits)
{
	memset(w, 0, sizeof *w);
	w->float_bits = float_bits;
}

void xbw_free(struct xbw *w)
{
	free(w->buf);
	memset(w, 0, sizeof *w);
}

void xbw_bytes(struct xbw *w, const void *p, size_t n)
{
	if (w->cap - w->len < n) {
		size_t cap = w->cap ? w->cap : 256;

		while (cap - w->len < n)
			cap *= 2;
		w->buf = realloc(w->buf, cap);
		if (w->buf == NULL)
			xbw_die("out of memory");
		w->cap = cap;
	}
	if (n > 0)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

void xbw_u16(struct xbw *w, uint16_t v)
{
	unsigned char b[2] = { (unsigned char)v, (unsigned char)(v >> 8) };

	xbw_bytes(w, b, 2);
}

void xbw_u32(struct xbw *w, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 24) };

	xbw_bytes(w, b, 4);
}

void xbw_tok(struct xbw *w, unsigned id)
{
	xbw_u16(w, (uint16_t)id);
}

void xbw_name(struct xbw *w, const char *s)
{
	xbw_tok(w, XBW_NAME);
	xbw_u32(w, (uint32_t)strlen(s));
	xbw_bytes(w, s, strlen(s));
}

void xbw_string(struct xbw *w, const char *s, unsigned terminator)
{
	xbw_tok(w, XBW_STRING);
	xbw_u32(w, (uint32_t)strlen(s));
	xbw_bytes(w, s, strlen(s));
	xbw_tok(w, terminator);
}

void xbw_int(struct xbw *w, uint32_t v)
{
	xbw_tok(w, XBW_INTEGER);
	xbw_u32(w, v);
}

void xbw_guid(struct xbw *w, const uint8_t guid[16])
{
	xbw_tok(w, XBW_GUID);
	xbw_bytes(w, guid, 16);
}

void xbw_ints(struct xbw *w, size_t n, const uint32_t *v)
{
	xbw_tok(w, XBW_INT_LIST);
	xbw_u32(w, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		xbw_u32(w, v[i]);
}

void xbw_floats(struct xbw *w, size_t n, const double *v)
{
	xbw_tok(w, XBW_FLOAT_LIST);
	xbw_u32(w, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		if (w->float_bits == 64) {
			uint64_t u;

			memcpy(&u, &v[i], 8);
			xbw_u32(w, (uint32_t)u);
			xbw_u32(w, (uint32_t)(u >> 32));
		} else {
			float f = (float)v[i];
			uint32_t u;

			memcpy(&u, &f, 4);
			xbw_u32(w, u);
		}
	}
}

void xbw_open(struct xbw *w, const char *type, const char *name)
{
	xbw_name(w, type);
	if (name != NULL)
		xbw_name(w, name);
	xbw_tok(w, XBW_OBRACE);
}

void xbw_close(struct xbw *w)
{
	xbw_tok(w, XBW_CBRACE);
}

void xbw_ref(struct xbw *w, const char *name, const uint8_t *guid)
{
	xbw_tok(w, XBW_OBRACE);
	if (name != NULL)
		xbw_name(w, name);
	if (guid != NULL)
		xbw_guid(w, guid);
	xbw_tok(w, XBW_CBRACE);
}

void xbw_template(struct xbw *w, const char *name, const uint8_t guid[16])
{
	xbw_tok(w, XBW_TEMPLATE);
	xbw_name(w, name);
	xbw_tok(w, XBW_OBRACE);
	xbw_guid(w, guid);
	/* DWORD nValues; */
	xbw_tok(w, XBW_DWORD);
	xbw_name(w, "nValues");
	xbw_tok(w, XBW_SEMICOLON);
	/* array FLOAT values[nValues]; */
	xbw_tok(w, XBW_ARRAY);
	xbw_tok(w, XBW_FLOAT);
	xbw_name(w, "values");
	xbw_tok(w, XBW_OBRACKET);
	xbw_name(w, "nValues");
	xbw_tok(w, XBW_CBRACKET);
	xbw_tok(w, XBW_SEMICOLON);
	/* array WORD pair[2]; */
	xbw_tok(w, XBW_ARRAY);
	xbw_tok(w, XBW_WORD);
	xbw_name(w, "pair");
	xbw_tok(w, XBW_OBRACKET);
	xbw_int(w, 2);
	xbw_tok(w, XBW_CBRACKET);
	xbw_tok(w, XBW_SEMICOLON);
	/* Vector offset; LPSTR label; */
	xbw_name(w, "Vector");
	xbw_name(w, "offset");
	xbw_tok(w, XBW_SEMICOLON);
	xbw_tok(w, XBW_LPSTR);
	xbw_name(w, "label");
	xbw_tok(w, XBW_SEMICOLON);
	/* [ ... ] */
	xbw_tok(w, XBW_OBRACKET);
	xbw_tok(w, XBW_DOT);
	xbw_tok(w, XBW_DOT);
	xbw_tok(w, XBW_DOT);
	xbw_tok(w, XBW_CBRACKET);
	xbw_tok(w, XBW_CBRACE);
}

void xbw_mszip(const void *body, size_t len, size_t chunk, unsigned char **out, size_t *out_len,
	       size_t *chunk_sizes)
{
	const unsigned char *in = body;
	struct xbw w;
	z_stream zs;
	size_t done = 0, n = 0;

	if (chunk == 0 || chunk > 32768)
		xbw_die("chunks hold 1 to 32768 bytes");
	xbw_init(&w, 32);
	xbw_u32(&w, (uint32_t)(len + 16));
	memset(&zs, 0, sizeof zs);
	if (deflateInit2(&zs, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		xbw_die("deflateInit2");
	while (done < len) {
		size_t take = len - done < chunk ? len - done : chunk;
		size_t hist = done < 32768 ? done : 32768;
		unsigned char tmp[40000];      /* deflateBound of 32 KiB is well under */
		size_t comp;

		if (deflateReset(&zs) != Z_OK)
			xbw_die("deflateReset");
		if (hist > 0 && deflateSetDictionary(&zs, in + done - hist, (uInt)hist) != Z_OK)
			xbw_die("deflateSetDictionary");
		zs.next_in = in + done;
		zs.avail_in = (uInt)take;
		zs.next_out = tmp;
		zs.avail_out = sizeof tmp;
		if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
			xbw_die("deflate");
		comp = sizeof tmp - zs.avail_out;
		if (chunk_sizes != NULL)
			chunk_sizes[n] = comp;
		xbw_u16(&w, (uint16_t)take);
		xbw_u16(&w, (uint16_t)(comp + 2));
		xbw_bytes(&w, "CK", 2);
		xbw_bytes(&w, tmp, comp);
		done += take;
		n++;
	}
	deflateEnd(&zs);
	*out = w.buf;
	*out_len = w.len;
}
