/*
 * x_file.c - a whole .x file: the 16-byte header, decompression when the
 * header says so, then the text or binary reader.
 */
#include "daemon/formats/x/x.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/x/x_syntax.h"

/* Four bytes for a message: printable as is, the rest as \xNN. */
static const char *x_show4(const char *p, char *buf, size_t size)
{
	size_t o = 0;

	for (int i = 0; i < 4 && o + 5 < size; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
	}
	buf[o] = '\0';
	return buf;
}

int x_header_parse(const char *data, size_t len, struct x_header *h, struct diag *d)
{
	char shown[24];

	memset(h, 0, sizeof *h);
	if (len < X_HEADER_BYTES) {
		diag_at_offset(d, 0, "%zu bytes: shorter than the 16-byte .x header", len);
		return -EINVAL;
	}
	if (memcmp(data, "xof ", 4) != 0) {
		diag_at_offset(d, 0, "not a .x file: it starts \"%s\", not \"xof \"",
			       x_show4(data, shown, sizeof shown));
		return -EINVAL;
	}
	if (memcmp(data + 4, "0302", 4) == 0) {
		h->major = 3;
		h->minor = 2;
	} else if (memcmp(data + 4, "0303", 4) == 0) {
		h->major = 3;
		h->minor = 3;
	} else {
		diag_at_offset(d, 4, "version \"%s\" is not supported (0302 and 0303 are)",
			       x_show4(data + 4, shown, sizeof shown));
		return -EINVAL;
	}
	if (memcmp(data + 8, "txt ", 4) == 0) {
		h->encoding = X_TEXT;
	} else if (memcmp(data + 8, "bin ", 4) == 0) {
		h->encoding = X_BINARY;
	} else if (memcmp(data + 8, "tzip", 4) == 0) {
		h->encoding = X_TEXT;
		h->compressed = true;
	} else if (memcmp(data + 8, "bzip", 4) == 0) {
		h->encoding = X_BINARY;
		h->compressed = true;
	} else if (memcmp(data + 8, "cmp ", 4) == 0) {
		diag_at_offset(d, 8, "format \"cmp \" (the old LZ compression) is not supported; "
				     "save the file as text, binary or MSZIP-compressed");
		return -EINVAL;
	} else {
		diag_at_offset(d, 8, "unknown format \"%s\" (txt, bin, tzip and bzip are known)",
			       x_show4(data + 8, shown, sizeof shown));
		return -EINVAL;
	}
	if (memcmp(data + 12, "0032", 4) == 0) {
		h->float_bits = 32;
	} else if (memcmp(data + 12, "0064", 4) == 0) {
		h->float_bits = 64;
	} else {
		diag_at_offset(d, 12, "float size \"%s\" is neither 0032 nor 0064",
			       x_show4(data + 12, shown, sizeof shown));
		return -EINVAL;
	}
	return 0;
}

int x_parse(const char *data, size_t len, struct x_tree *out, struct diag *d)
{
	struct x_tree t;
	int rc;

	memset(out, 0, sizeof *out);
	memset(&t, 0, sizeof t);
	if (len > X_MAX_BYTES) {
		diag_at_offset(d, 0, "%zu bytes: larger than the %u-byte limit for .x files", len,
			       X_MAX_BYTES);
		return -EINVAL;
	}
	rc = x_header_parse(data, len, &t.header, d);
	if (rc < 0)
		return rc;
	if (t.header.compressed) {
		/* Inflated straight into the tree's arena: its memory is kept
		 * for the next load (x_tree.c). */
		char *body;

		rc = x_mszip_size(data + X_HEADER_BYTES, len - X_HEADER_BYTES, &t.body_len, d);
		if (rc < 0)
			return rc;
		body = x_tree_alloc(&t, t.body_len > 0 ? t.body_len : 1);
		if (body == NULL) {
			x_tree_free(&t);
			return -ENOMEM;
		}
		rc = x_mszip_inflate_into(data + X_HEADER_BYTES, len - X_HEADER_BYTES, body,
					  t.body_len, d);
		if (rc < 0) {
			x_tree_free(&t);
			return rc;
		}
		t.body = body;
	} else {
		t.body = data + X_HEADER_BYTES;
		t.body_len = len - X_HEADER_BYTES;
	}
	rc = t.header.encoding == X_TEXT ? x_text_read(&t, d) : x_binary_read(&t, d);
	if (rc < 0) {
		x_tree_free(&t);
		return rc;
	}
	*out = t;
	return 0;
}
