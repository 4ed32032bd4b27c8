/* glTF files from C (gltf_writer.h). */
#include "tests/support/gltf_writer.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GLTFW_ARRAYS 12

struct gltfw_text {
	char *s;
	size_t len, cap;
};

struct gltfw {
	unsigned char *bin;
	size_t bin_len, bin_cap;
	struct gltfw_text accessors, views;
	uint32_t accessor_count, view_count;
	struct {
		char name[32];
		struct gltfw_text items;
		int count;
	} arrays[GLTFW_ARRAYS];
	struct gltfw_text extra;        /* "key": value, pairs of gltfw_set */
};

static void *gltfw_need(void *p)
{
	if (p == NULL) {
		fprintf(stderr, "gltf_writer: out of memory\n");
		abort();
	}
	return p;
}

static void text_vadd(struct gltfw_text *t, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (t->len + (size_t)n + 1 > t->cap) {
		t->cap = (t->len + (size_t)n + 1) * 2;
		t->s = gltfw_need(realloc(t->s, t->cap));
	}
	vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	t->len += (size_t)n;
}

static void text_add(struct gltfw_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void text_add(struct gltfw_text *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_vadd(t, fmt, ap);
	va_end(ap);
}

struct gltfw *gltfw_new(void)
{
	return gltfw_need(calloc(1, sizeof(struct gltfw)));
}

void gltfw_free(struct gltfw *w)
{
	if (w == NULL)
		return;
	free(w->bin);
	free(w->accessors.s);
	free(w->views.s);
	free(w->extra.s);
	for (int i = 0; i < GLTFW_ARRAYS; i++)
		free(w->arrays[i].items.s);
	free(w);
}

static unsigned type_components(const char *type, unsigned *rows)
{
	static const struct { const char *name; unsigned n, rows; } t[] = {
		{ "SCALAR", 1, 1 }, { "VEC2", 2, 2 }, { "VEC3", 3, 3 }, { "VEC4", 4, 4 },
		{ "MAT2", 4, 2 }, { "MAT3", 9, 3 }, { "MAT4", 16, 4 },
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(type, t[i].name) == 0) {
			*rows = t[i].rows;
			return t[i].n;
		}
	*rows = 1;
	return 1;
}

static unsigned component_size(uint32_t component)
{
	return component == 5120 || component == 5121 ? 1 : component == 5122 || component == 5123 ? 2
											: 4;
}

/* Room for n more bytes, 4-aligned first; the offset they start at. */
static size_t bin_take(struct gltfw *w, size_t n)
{
	size_t at = (w->bin_len + 3) & ~(size_t)3;

	if (at + n > w->bin_cap) {
		w->bin_cap = (at + n) * 2 + 64;
		w->bin = gltfw_need(realloc(w->bin, w->bin_cap));
	}
	memset(w->bin + w->bin_len, 0, at + n - w->bin_len);
	w->bin_len = at + n;
	return at;
}

/* The value `v` is stored as in `component`: what the buffer holds. */
static double stored_value(uint32_t component, bool normalized, float v)
{
	double m = component == 5120 ? 127 : component == 5121 ? 255 : component == 5122 ? 32767
		   : component == 5123 ? 65535 : 4294967295.0;

	if (component == 5126)
		return v;
	return normalized ? round((double)v * m) : round((double)v);
}

static void put_component(unsigned char *p, uint32_t component, bool normalized, float v)
{
	double x = stored_value(component, normalized, v);

	switch (component) {
	case 5120: { int8_t c = (int8_t)x; memcpy(p, &c, 1); break; }
	case 5121: { uint8_t c = (uint8_t)x; memcpy(p, &c, 1); break; }
	case 5122: { int16_t c = (int16_t)x; memcpy(p, &c, 2); break; }
	case 5123: { uint16_t c = (uint16_t)x; memcpy(p, &c, 2); break; }
	case 5125: { uint32_t c = (uint32_t)x; memcpy(p, &c, 4); break; }
	default: memcpy(p, &v, 4); break;
	}
}

/* Element bytes of `type` in `component` (matrix columns 4-aligned). */
static unsigned element_size(const char *type, uint32_t component, unsigned *col_bytes)
{
	unsigned rows, n = type_components(type, &rows), cs = component_size(component);

	if (strncmp(type, "MAT", 3) == 0) {
		*col_bytes = (rows * cs + 3) & ~3u;
		return *col_bytes * (n / rows);
	}
	*col_bytes = n * cs;
	return n * cs;
}

/* Encode count elements at a fresh view; its index. */
static int encode_view(struct gltfw *w, const float *v, uint32_t count, const char *type,
		       uint32_t component, bool normalized, uint32_t stride, bool write_stride)
{
	unsigned rows, n = type_components(type, &rows), col, esize = element_size(type, component, &col);
	unsigned cs = component_size(component);
	size_t step = stride ? stride : esize;
	/* A strided view holds whole strides: its length is never below its
	 * stride (what the validator asks, and readers may assume). */
	size_t len = stride ? step * (count ? count : 1) : step * (count ? count - 1 : 0) + esize;
	size_t at = bin_take(w, len);

	for (uint32_t i = 0; i < count; i++)
		for (unsigned k = 0; k < n; k++) {
			size_t off = strncmp(type, "MAT", 3) == 0 ? (k / rows) * col + (k % rows) * cs
								  : (size_t)k * cs;

			put_component(w->bin + at + (size_t)i * step + off, component, normalized,
				      v[(size_t)i * n + k]);
		}
	text_add(&w->views, "%s{\"buffer\": 0, \"byteOffset\": %zu, \"byteLength\": %zu%s",
		 w->view_count ? ", " : "", at, len,
		 write_stride && stride ? "" : "}");
	if (write_stride && stride)
		text_add(&w->views, ", \"byteStride\": %u}", stride);
	return (int)w->view_count++;
}

/* ", "min": [...], "max": [...]" of count elements of n components as
 * stored (the specification's bounds are of the stored values, normalised
 * integers included); every accessor gets them, as POSITION and animation
 * inputs must. */
static void bounds(struct gltfw_text *t, const float *v, uint32_t count, unsigned n,
		   uint32_t component, bool normalized)
{
	for (int pass = 0; pass < 2 && count > 0; pass++) {
		text_add(t, pass == 0 ? ", \"min\": [" : "], \"max\": [");
		for (unsigned k = 0; k < n; k++) {
			double b = stored_value(component, normalized, v[k]);

			for (uint32_t i = 1; i < count; i++) {
				double x = stored_value(component, normalized, v[(size_t)i * n + k]);

				b = pass == 0 ? fmin(b, x) : fmax(b, x);
			}
			text_add(t, component == 5126 ? "%s%.9g" : "%s%.0f", k ? ", " : "", b);
		}
	}
	if (count > 0)
		text_add(t, "]");
}

int gltfw_accessor(struct gltfw *w, const float *v, uint32_t count, const char *type,
		   uint32_t component, bool normalized, uint32_t stride)
{
	int view = encode_view(w, v, count, type, component, normalized, stride, true);
	unsigned rows, n = type_components(type, &rows);

	text_add(&w->accessors, "%s{\"bufferView\": %d, \"componentType\": %u, \"count\": %u, "
		 "\"type\": \"%s\"%s", w->accessor_count ? ", " : "", view, component, count, type,
		 normalized ? ", \"normalized\": true" : "");
	bounds(&w->accessors, v, count, n, component, normalized);
	text_add(&w->accessors, "}");
	return (int)w->accessor_count++;
}

int gltfw_floats(struct gltfw *w, const float *v, uint32_t count, const char *type)
{
	return gltfw_accessor(w, v, count, type, 5126, false, 0);
}

int gltfw_uints(struct gltfw *w, const uint32_t *v, uint32_t count, const char *type,
		uint32_t component)
{
	unsigned rows, n = type_components(type, &rows);
	float *f = gltfw_need(malloc(((size_t)count * n + 1) * sizeof *f));
	int a;

	for (size_t i = 0; i < (size_t)count * n; i++)
		f[i] = (float)v[i];
	a = gltfw_accessor(w, f, count, type, component, false, 0);
	free(f);
	return a;
}

int gltfw_sparse(struct gltfw *w, const float *base, uint32_t count, const char *type,
		 uint32_t n, const uint32_t *indices, uint32_t index_component,
		 const float *values)
{
	float *fi = gltfw_need(malloc(((size_t)n + 1) * sizeof *fi));
	unsigned rows, k = type_components(type, &rows);
	float *whole = gltfw_need(calloc((size_t)count * k + 1, sizeof *whole));
	int base_view = -1, iv, vv;

	if (base != NULL)
		base_view = encode_view(w, base, count, type, 5126, false, 0, false);
	for (uint32_t i = 0; i < n; i++)
		fi[i] = (float)indices[i];
	iv = encode_view(w, fi, n, "SCALAR", index_component, false, 0, false);
	vv = encode_view(w, values, n, type, 5126, false, 0, false);
	free(fi);
	text_add(&w->accessors, "%s{", w->accessor_count ? ", " : "");
	if (base_view >= 0)
		text_add(&w->accessors, "\"bufferView\": %d, ", base_view);
	text_add(&w->accessors, "\"componentType\": 5126, \"count\": %u, \"type\": \"%s\", "
		 "\"sparse\": {\"count\": %u, \"indices\": {\"bufferView\": %d, \"componentType\": "
		 "%u}, \"values\": {\"bufferView\": %d}}", count, type, n, iv, index_component, vv);
	/* Bounds of the values after substitution (the specification's rule). */
	if (base != NULL)
		memcpy(whole, base, (size_t)count * k * sizeof *whole);
	for (uint32_t i = 0; i < n; i++)
		if (indices[i] < count)
			memcpy(whole + (size_t)indices[i] * k, values + (size_t)i * k, k * sizeof *whole);
	bounds(&w->accessors, whole, count, k, 5126, false);
	free(whole);
	text_add(&w->accessors, "}");
	return (int)w->accessor_count++;
}

int gltfw_add(struct gltfw *w, const char *array, const char *fmt, ...)
{
	va_list ap;
	int i;

	for (i = 0; i < GLTFW_ARRAYS && w->arrays[i].name[0] != '\0'; i++)
		if (strcmp(w->arrays[i].name, array) == 0)
			break;
	if (i == GLTFW_ARRAYS) {
		fprintf(stderr, "gltf_writer: too many arrays\n");
		abort();
	}
	snprintf(w->arrays[i].name, sizeof w->arrays[i].name, "%s", array);
	if (w->arrays[i].count > 0)
		text_add(&w->arrays[i].items, ", ");
	va_start(ap, fmt);
	text_vadd(&w->arrays[i].items, fmt, ap);
	va_end(ap);
	return w->arrays[i].count++;
}

void gltfw_set(struct gltfw *w, const char *key, const char *fmt, ...)
{
	va_list ap;

	text_add(&w->extra, ", \"%s\": ", key);
	va_start(ap, fmt);
	text_vadd(&w->extra, fmt, ap);
	va_end(ap);
}

static void base64(struct gltfw_text *t, const unsigned char *p, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);

		text_add(t, "%c%c%c%c", a[v >> 18 & 63], a[v >> 12 & 63],
			 i + 1 < n ? a[v >> 6 & 63] : '=', i + 2 < n ? a[v & 63] : '=');
	}
}

char *gltfw_json(const struct gltfw *w, enum gltfw_mode mode, const char *bin_uri)
{
	struct gltfw_text t = { 0 };

	text_add(&t, "{\"asset\": {\"version\": \"2.0\", \"generator\": \"animd gltf_writer\"}");
	if (w->bin_len > 0) {
		text_add(&t, ", \"buffers\": [{\"byteLength\": %zu", w->bin_len);
		if (mode == GLTFW_EXTERNAL) {
			text_add(&t, ", \"uri\": \"%s\"", bin_uri);
		} else if (mode == GLTFW_EMBEDDED) {
			text_add(&t, ", \"uri\": \"data:application/octet-stream;base64,");
			base64(&t, w->bin, w->bin_len);
			text_add(&t, "\"");
		}
		text_add(&t, "}]");
	}
	if (w->view_count > 0)
		text_add(&t, ", \"bufferViews\": [%s]", w->views.s);
	if (w->accessor_count > 0)
		text_add(&t, ", \"accessors\": [%s]", w->accessors.s);
	for (int i = 0; i < GLTFW_ARRAYS && w->arrays[i].name[0] != '\0'; i++)
		text_add(&t, ", \"%s\": [%s]", w->arrays[i].name,
			 w->arrays[i].items.s ? w->arrays[i].items.s : "");
	if (w->extra.s != NULL)
		text_add(&t, "%s", w->extra.s);
	text_add(&t, "}\n");
	return t.s;
}

const unsigned char *gltfw_bin(const struct gltfw *w, size_t *len)
{
	*len = w->bin_len;
	return w->bin;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

void gltfw_glb(const struct gltfw *w, unsigned char **out, size_t *len)
{
	char *json = gltfw_json(w, GLTFW_GLB, NULL);
	size_t jl = strlen(json), jp = (jl + 3) & ~(size_t)3, bp = (w->bin_len + 3) & ~(size_t)3;
	size_t total = 12 + 8 + jp + (w->bin_len > 0 ? 8 + bp : 0);
	unsigned char *b = gltfw_need(calloc(1, total));

	memcpy(b, "glTF", 4);
	put32(b + 4, 2);
	put32(b + 8, (uint32_t)total);
	put32(b + 12, (uint32_t)jp);
	memcpy(b + 16, "JSON", 4);
	memset(b + 20, ' ', jp);
	memcpy(b + 20, json, jl);
	if (w->bin_len > 0) {
		put32(b + 20 + jp, (uint32_t)bp);
		memcpy(b + 24 + jp, "BIN\0", 4);
		memcpy(b + 28 + jp, w->bin, w->bin_len);
	}
	free(json);
	*out = b;
	*len = total;
}

static int write_all(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int rc = 0;

	if (f == NULL)
		return -errno;
	if (fwrite(p, 1, n, f) != n)
		rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -EIO;
	return rc;
}

int gltfw_write(const struct gltfw *w, enum gltfw_mode mode, const char *dir, const char *name)
{
	char path[4096], uri[1024];
	int rc;

	if (mode == GLTFW_GLB) {
		unsigned char *b;
		size_t n;

		gltfw_glb(w, &b, &n);
		snprintf(path, sizeof path, "%s/%s.glb", dir, name);
		rc = write_all(path, b, n);
		free(b);
		return rc;
	}
	snprintf(uri, sizeof uri, "%s.bin", name);
	{
		char *json = gltfw_json(w, mode, uri);

		snprintf(path, sizeof path, "%s/%s.gltf", dir, name);
		rc = write_all(path, json, strlen(json));
		free(json);
	}
	if (rc == 0 && mode == GLTFW_EXTERNAL) {
		snprintf(path, sizeof path, "%s/%s.bin", dir, name);
		rc = write_all(path, w->bin, w->bin_len);
	}
	return rc;
}

void gltfw_keep(const struct gltfw *w, bool conforming)
{
	static unsigned serial;
	const char *dir = getenv("ANIMD_GLTF_KEEP");
	char name[512];

	if (dir == NULL || dir[0] == '\0')
		return;
	/* The program's name and a serial: test programs share the folder. */
	snprintf(name, sizeof name, "%s-%u.%s", program_invocation_short_name, serial++,
		 conforming ? "conforming" : "nonconforming");
	if (gltfw_write(w, GLTFW_GLB, dir, name) < 0 || gltfw_write(w, GLTFW_EXTERNAL, dir, name) < 0)
		fprintf(stderr, "gltfw_keep: cannot write %s/%s\n", dir, name);
}
