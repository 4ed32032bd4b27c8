/*
 * gltf_buffers.c - buffers and buffer views (spec 3.6.1, 3.6.2).
 *
 * A buffer is the GLB's BIN chunk (buffer 0 of a GLB, without a uri), a
 * base64 `data:` URI decoded here, or a file named by a relative URI
 * (RFC 3986: percent-decoded, "." and "x/.." folded; the caller reads
 * it).  A URI with another scheme, an absolute path or none at all gives
 * no data: an error only if something animd reads needs it (gltf_finish).
 * A view lies inside its buffer's declared byteLength; byteStride is 4 to
 * 252 in steps of 4 (0, which old converters write, means packed: noted).
 */
#include "daemon/formats/gltf/gltf_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int b64_value(unsigned char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	if (ch == '+' || ch == '-')
		return 62;
	if (ch == '/' || ch == '_')
		return 63;
	return -1;
}

long gltf_base64_decode(const char *s, size_t len, unsigned char *out, size_t *bad)
{
	uint32_t acc = 0;
	unsigned bits = 0;
	size_t o = 0, end = len;

	while (end > 0 && s[end - 1] == '=')
		end--;
	if (len - end > 2) {
		*bad = end;
		return -1;
	}
	for (size_t i = 0; i < end; i++) {
		int v = b64_value((unsigned char)s[i]);

		if (v < 0) {
			*bad = i;
			return -1;
		}
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
		}
	}
	return (long)o;
}

static int hex_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* "scheme:" (RFC 3986 3.1) at the start of uri: its length, or 0. */
static size_t uri_scheme(const char *uri)
{
	size_t i = 0;

	if (!((uri[0] >= 'a' && uri[0] <= 'z') || (uri[0] >= 'A' && uri[0] <= 'Z')))
		return 0;
	while ((uri[i] >= 'a' && uri[i] <= 'z') || (uri[i] >= 'A' && uri[i] <= 'Z') ||
	       (uri[i] >= '0' && uri[i] <= '9') || uri[i] == '+' || uri[i] == '-' || uri[i] == '.')
		i++;
	return uri[i] == ':' ? i : 0;
}

/*
 * A relative URI's path, percent-decoded, "." segments dropped and "x/.."
 * folded (leading ".." kept: the caller resolves them against the file's
 * folder and keeps them inside the asset root).  A query or fragment ends
 * it.  NULL with *why on a path animd will not follow.
 */
static char *uri_path(struct gltf_ctx *c, const char *uri, const char **why)
{
	size_t n = strcspn(uri, "?#");
	char *dec = gltf_alloc(c, n + 1, 1), *out;
	size_t d = 0, o = 0;

	if (dec == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (uri[i] == '%' && i + 2 < n && hex_value(uri[i + 1]) >= 0 &&
		    hex_value(uri[i + 2]) >= 0) {
			dec[d++] = (char)(hex_value(uri[i + 1]) * 16 + hex_value(uri[i + 2]));
			i += 2;
		} else {
			dec[d++] = uri[i];
		}
	}
	dec[d] = '\0';
	if (d == 0 || memchr(dec, '\0', d) != NULL) {
		*why = d == 0 ? "an empty path" : "a path with a NUL byte";
		return NULL;
	}
	if (dec[0] == '/') {
		*why = "an absolute path";
		return NULL;
	}
	out = gltf_alloc(c, d + 1, 1);
	if (out == NULL)
		return NULL;
	/* Segment by segment: "." dropped, ".." pops a named segment. */
	for (size_t i = 0; i <= d;) {
		size_t e = i;

		while (e < d && dec[e] != '/')
			e++;
		if (e == i || (e - i == 1 && dec[i] == '.')) {
			/* empty or "." */
		} else if (e - i == 2 && dec[i] == '.' && dec[i + 1] == '.' && o > 0 &&
			   !(o >= 2 && out[o - 1] == '.' && out[o - 2] == '.' &&
			     (o == 2 || out[o - 3] == '/'))) {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			if (o > 0)
				out[o++] = '/';
			memcpy(out + o, dec + i, e - i);
			o += e - i;
		}
		i = e + 1;
	}
	out[o] = '\0';
	if (o == 0) {
		*why = "a path that names the file's own folder";
		return NULL;
	}
	return out;
}

/* A data: URI's bytes ("data:[<media type>][;base64],<data>"). */
static int buffer_data_uri(struct gltf_ctx *c, struct gltf_buffer *b, const struct gltf_where *w,
			   const char *uri)
{
	const char *comma = strchr(uri, ',');
	size_t len, bad = 0;
	long got;

	if (comma == NULL || comma - uri < 12 || memcmp(comma - 7, ";base64", 7) != 0) {
		b->kind = GLTF_BUFFER_NONE;
		b->why_none = "a data: URI that is not base64";
		return 0;
	}
	len = strlen(comma + 1);
	b->owned = gltf_alloc(c, len / 4 * 3 + 4, 1);
	if (b->owned == NULL)
		return -ENOMEM;
	got = gltf_base64_decode(comma + 1, len, b->owned, &bad);
	if (got < 0)
		return gltf_error(c, w, "character %zu of the URI is not base64",
				  (size_t)(comma + 1 - uri) + bad);
	if ((uint64_t)got < b->byte_length)
		return gltf_error(c, w, "the data: URI holds %ld bytes, fewer than the buffer's "
				  "byteLength %" PRIu64, got, b->byte_length);
	b->kind = GLTF_BUFFER_DATA_URI;
	b->data = b->owned;
	b->size = (size_t)got;
	b->attached = true;
	return 0;
}

int gltf_parse_buffers(struct gltf_ctx *c, const unsigned char *bin, size_t bin_len,
		       uint64_t bin_offset, bool has_bin)
{
	struct gltf_model *m = c->m;
	gv arr = gv_get(c, 0, "buffers");

	m->buffer_count = (uint32_t)gv_size(c, arr);
	m->buffers = gltf_alloc(c, m->buffer_count, sizeof *m->buffers);
	if (m->buffers == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->buffer_count; i++) {
		struct gltf_buffer *b = &m->buffers[i];
		struct gltf_where w = gw_item("buffers", i), wu = gw_key(w, "uri");
		const char *uri;
		gv o;
		uint64_t len;
		size_t scheme;

		if (gj_item(c, arr, "buffers", i, &o) < 0 ||
		    gj_uint(c, &w, o, "byteLength", 1, GLTF_MAX_BYTES, true, 0, &len) < 0 ||
		    gj_string(c, &w, o, "uri", false, &uri) < 0)
			return -EINVAL;
		b->byte_length = len;
		if (uri == NULL) {
			if (i == 0 && m->glb && has_bin) {
				if (bin_len < len)
					return gltf_error(c, &w, "byteLength %" PRIu64 " is more than the "
							  "GLB's BIN chunk (%zu bytes)", len, bin_len);
				if (bin_len - len > 3)
					gltf_note(c, &w, "the BIN chunk holds %zu bytes, more than byteLength "
						  "%" PRIu64 " and its padding", bin_len, len);
				b->kind = GLTF_BUFFER_GLB;
				b->data = bin;
				b->size = bin_len;
				b->file_offset = bin_offset;
				b->attached = true;
			} else {
				b->kind = GLTF_BUFFER_NONE;
				b->why_none = m->glb && i == 0 ? "the GLB has no BIN chunk" : "it has no uri";
			}
			continue;
		}
		scheme = uri_scheme(uri);
		if (scheme == 4 && strncmp(uri, "data", 4) == 0) {
			int rc = buffer_data_uri(c, b, &wu, uri);

			if (rc < 0)
				return rc;
			continue;
		}
		if (scheme > 0) {
			b->kind = GLTF_BUFFER_NONE;
			b->why_none = "a URI with a scheme (animd reads files beside the asset only)";
			continue;
		}
		b->path = uri_path(c, uri, &b->why_none);
		if (b->path == NULL && b->why_none == NULL)
			return -ENOMEM;
		b->kind = b->path != NULL ? GLTF_BUFFER_FILE : GLTF_BUFFER_NONE;
	}
	return 0;
}

int gltf_parse_views(struct gltf_ctx *c)
{
	struct gltf_model *m = c->m;
	gv arr = gv_get(c, 0, "bufferViews");

	m->view_count = (uint32_t)gv_size(c, arr);
	m->views = gltf_alloc(c, m->view_count, sizeof *m->views);
	if (m->views == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->view_count; i++) {
		struct gltf_view *v = &m->views[i];
		struct gltf_where w = gw_item("bufferViews", i);
		uint64_t offset, length, stride;
		int32_t buffer;
		gv o;

		if (gj_item(c, arr, "bufferViews", i, &o) < 0 ||
		    gj_index(c, &w, o, "buffer", m->buffer_count, "buffer", true, &buffer) < 0 ||
		    gj_uint(c, &w, o, "byteOffset", 0, UINT64_MAX >> 2, false, 0, &offset) < 0 ||
		    gj_uint(c, &w, o, "byteLength", 1, UINT64_MAX >> 2, true, 0, &length) < 0 ||
		    gj_uint(c, &w, o, "byteStride", 0, 252, false, 0, &stride) < 0)
			return -EINVAL;
		if (offset + length > m->buffers[buffer].byte_length) {
			struct gltf_where at = gw_key(w, offset > 0 ? "byteOffset" : "byteLength");

			return gltf_error(c, &at, "bytes %" PRIu64 "..%" PRIu64 " lie past the end of "
					  "buffer %d (byteLength %" PRIu64 ")", offset,
					  offset + length, buffer, m->buffers[buffer].byte_length);
		}
		if (gv_get(c, o, "byteStride") != GV_NONE && stride == 0) {
			struct gltf_where at = gw_key(w, "byteStride");

			gltf_note(c, &at, "byteStride 0 (old converters' way of saying packed): "
				  "read as packed");
		} else if (stride % 4 != 0 || (stride > 0 && stride < 4)) {
			struct gltf_where at = gw_key(w, "byteStride");

			return gltf_error(c, &at, "%" PRIu64 " is not a multiple of 4 in 4..252",
					  stride);
		}
		v->buffer = (uint32_t)buffer;
		v->offset = offset;
		v->length = length;
		v->stride = (uint32_t)stride;
	}
	return 0;
}
