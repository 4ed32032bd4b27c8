/*
 * x_reencode.h - one .x file in every encoding, for tests that must hold
 * whatever the encoding: a text file is parsed and written again as
 * binary (32- or 64-bit floats), and either body MSZIP-compressed.  The
 * text must write floats with a point (1.0, not 1): the binary form keeps
 * integers and floats apart, as the parser then does.  Allocation
 * failure aborts: this is test support.
 */
#ifndef ANIMD_TEST_X_REENCODE_H
#define ANIMD_TEST_X_REENCODE_H

#include <stddef.h>

enum x_encoding_kind {
	XENC_TEXT,
	XENC_BINARY32,
	XENC_BINARY64,
	XENC_TEXT_MSZIP,        /* tzip */
	XENC_BINARY32_MSZIP,    /* bzip */
	XENC_COUNT
};

extern const char *const x_encoding_names[XENC_COUNT];

/* The text file `text` in encoding `e`: a whole file, header included, in
 * *out (malloc'd), or -1 if the text does not parse. */
int x_reencode(const char *text, enum x_encoding_kind e, unsigned char **out, size_t *out_len);

#endif
