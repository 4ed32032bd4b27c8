/*
 * x_bin_writer.h - binary .x bodies, token by token, and their MSZIP
 * compression, for tests that need exact bytes: valid files to read back
 * and files broken at a known offset.  The prefix is xbw_ (x binary
 * writer).  Allocation failure aborts: this is test support.
 *
 *	struct xbw w;
 *	xbw_init(&w, 32);
 *	xbw_open(&w, "Frame", "Root");          Frame Root {
 *	xbw_floats(&w, 3, (double[]){ 1, 2, 3 });       1.0, 2.0, 3.0
 *	xbw_ref(&w, "Other", NULL);                     { Other }
 *	xbw_close(&w);                          }
 *	... w.buf, w.len ...
 *	xbw_free(&w);
 */
#ifndef ANIMD_TEST_X_BIN_WRITER_H
#define ANIMD_TEST_X_BIN_WRITER_H

#include <stddef.h>
#include <stdint.h>

/* Token ids of the binary format. */
enum {
	XBW_NAME = 1,
	XBW_STRING = 2,
	XBW_INTEGER = 3,
	XBW_GUID = 5,
	XBW_INT_LIST = 6,
	XBW_FLOAT_LIST = 7,
	XBW_OBRACE = 10,
	XBW_CBRACE = 11,
	XBW_OPAREN = 12,
	XBW_CPAREN = 13,
	XBW_OBRACKET = 14,
	XBW_CBRACKET = 15,
	XBW_OANGLE = 16,
	XBW_CANGLE = 17,
	XBW_DOT = 18,
	XBW_COMMA = 19,
	XBW_SEMICOLON = 20,
	XBW_TEMPLATE = 31,
	XBW_WORD = 40,
	XBW_DWORD = 41,
	XBW_FLOAT = 42,
	XBW_DOUBLE = 43,
	XBW_CHAR = 44,
	XBW_UCHAR = 45,
	XBW_SWORD = 46,
	XBW_SDWORD = 47,
	XBW_VOID = 48,
	XBW_LPSTR = 49,
	XBW_UNICODE = 50,
	XBW_CSTRING = 51,
	XBW_ARRAY = 52,
};

struct xbw {
	unsigned char *buf;
	size_t len, cap;
	unsigned float_bits;    /* 32 or 64: how xbw_floats writes */
};

void xbw_init(struct xbw *w, unsigned float_bits);
void xbw_free(struct xbw *w);

/* Raw little-endian pieces, for bodies broken on purpose. */
void xbw_u16(struct xbw *w, uint16_t v);
void xbw_u32(struct xbw *w, uint32_t v);
void xbw_bytes(struct xbw *w, const void *p, size_t n);

/* One token each.  xbw_tok writes a bare id (punctuation, keywords). */
void xbw_tok(struct xbw *w, unsigned id);
void xbw_name(struct xbw *w, const char *s);
void xbw_string(struct xbw *w, const char *s, unsigned terminator);
void xbw_int(struct xbw *w, uint32_t v);
void xbw_guid(struct xbw *w, const uint8_t guid[16]);
void xbw_ints(struct xbw *w, size_t n, const uint32_t *v);
void xbw_floats(struct xbw *w, size_t n, const double *v);

/* `TYPE [NAME] {` (name NULL: none), `}`, and `{ NAME GUID }` (either may
 * be NULL). */
void xbw_open(struct xbw *w, const char *type, const char *name);
void xbw_close(struct xbw *w);
void xbw_ref(struct xbw *w, const char *name, const uint8_t *guid);

/* A template as D3DX writes one: GUID, members of every shape (scalar,
 * array with a named and a numeric dimension, a member of a template
 * type), and an open restriction `[ ... ]`. */
void xbw_template(struct xbw *w, const char *name, const uint8_t guid[16]);

/*
 * What follows the 16-byte header of a compressed file: the DWORD total
 * (len + 16) and chunks of at most `chunk` (<= 32768) input bytes, each raw
 * DEFLATE with the input before it as its dictionary, as D3DX writes them.
 * *out is malloc'd.  The compressed size of chunk i goes to
 * chunk_sizes[i] when chunk_sizes is not NULL (room for enough entries).
 */
void xbw_mszip(const void *body, size_t len, size_t chunk, unsigned char **out, size_t *out_len,
	       size_t *chunk_sizes);

#endif
