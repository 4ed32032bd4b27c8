/*
 * x_syntax.h - the parts of the .x syntax layer, internal to formats/:
 * the header, MSZIP decompression, and the two readers that turn a body
 * into a tree through the builder (x_tree.h).
 */
#ifndef ANIMD_X_SYNTAX_H
#define ANIMD_X_SYNTAX_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/formats/diag.h"
#include "daemon/formats/x/x_tree.h"

#define X_HEADER_BYTES 16

/* The 16-byte header.  0, or -EINVAL with d set at the offending field
 * ("cmp " and unknown formats, versions other than 0302/0303, float sizes
 * other than 0032/0064). */
int x_header_parse(const char *data, size_t len, struct x_header *h, struct diag *d);

/*
 * The body of a compressed file (everything after the header) inflated:
 * a DWORD total size (decompressed, header included), then chunks
 * `WORD uncompressed, WORD compressed, "CK", raw DEFLATE` whose 32 KiB
 * history carries over.  Every declared size is checked.  On success *out
 * (malloc'd, the caller frees) holds total size - 16 bytes.  Errors are
 * located by offset in the file.
 */
int x_mszip_inflate(const char *data, size_t len, char **out, size_t *out_len, struct diag *d);
/* The same in two steps, for a caller that owns the memory: the declared
 * size (checked as above), then the chunks inflated into exactly that
 * many bytes at buf. */
int x_mszip_size(const char *data, size_t len, size_t *size, struct diag *d);
int x_mszip_inflate_into(const char *data, size_t len, char *buf, size_t size, struct diag *d);
/*
 * One chunk's fast path (libdeflate), which x_mszip_inflate_into tries
 * before zlib: 1 when the chunk's DEFLATE bytes `in` (in_len of them)
 * inflated to exactly `want` bytes at out + done, every input byte used,
 * the done bytes before being its history; else 0, the history intact.
 * `scratch` holds X_MSZIP_SCRATCH bytes.  Exposed for the tests that prove
 * it against zlib's output on random data.
 */
struct libdeflate_decompressor;
#define X_MSZIP_SCRATCH (5u + 32768u + 65535u)
int x_mszip_chunk_fast(struct libdeflate_decompressor *dd, unsigned char *scratch,
		       const unsigned char *in, uint32_t in_len, char *out, size_t done,
		       uint32_t want);

/* Read t->body (t->header says the encoding and float size) into t. */
int x_text_read(struct x_tree *t, struct diag *d);
int x_binary_read(struct x_tree *t, struct diag *d);
/* x_text_read without its fast path over runs of plain numbers, every
 * number read as a token: the same tree and the same errors, slower; what
 * the tests hold the fast path to. */
int x_text_read_tokens(struct x_tree *t, struct diag *d);

#endif
