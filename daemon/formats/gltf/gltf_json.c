/*
 * gltf_json.c - typed reads of the document, each located: a member of the
 * wrong kind, out of range or missing is an error at that member (or at
 * its object when missing); the arena the model's arrays live in.
 */
#include "daemon/formats/gltf/gltf_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GLTF_BLOCK_BYTES (64u << 10)

void *gltf_alloc(struct gltf_ctx *c, size_t n, size_t size)
{
	void *p = gltf_alloc_raw(c, n, size);

	return p != NULL ? memset(p, 0, n * size) : NULL;
}

void *gltf_alloc_raw(struct gltf_ctx *c, size_t n, size_t size)
{
	struct gltf_block *b = c->p->arena;
	size_t bytes;

	if (size != 0 && n > SIZE_MAX / size / 2)
		return NULL;
	bytes = (n * size + 15) & ~(size_t)15;
	if (bytes == 0)
		bytes = 16;
	if (b == NULL || b->size - b->used < bytes) {
		size_t cap = bytes > GLTF_BLOCK_BYTES / 2 ? bytes : GLTF_BLOCK_BYTES;
		struct gltf_block *nb = malloc(sizeof *nb + cap);

		if (nb == NULL)
			return NULL;
		nb->size = cap;
		nb->used = 0;
		/* A big block goes behind the current one, which keeps its room. */
		if (b != NULL && cap == bytes) {
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			c->p->arena = nb;
		}
		b = nb;
	}
	b->used += bytes;
	return b->data + b->used - bytes;
}

const char *gj_kind(const struct gltf_ctx *c, gv v)
{
	switch (gv_kind_of(c, v)) {
	case GV_OBJECT: return "an object";
	case GV_ARRAY:  return "an array";
	case GV_STRING: return "a string";
	case GV_NUMBER: return gv_is_integer(c, v) ? "an integer" : "a number";
	case GV_TRUE:
	case GV_FALSE:  return "a boolean";
	case GV_NULL:   return "null";
	default:        return "nothing";
	}
}

static int gj_missing(struct gltf_ctx *c, const struct gltf_where *w, const char *key)
{
	return gltf_error(c, w, "\"%s\" is required", key);
}

int gj_index(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
	     uint32_t limit, const char *what, bool required, int32_t *out)
{
	gv v = gv_get(c, o, key);
	struct gltf_where at = gw_key(*w, key);
	int64_t i;

	*out = -1;
	if (v == GV_NONE)
		return required ? gj_missing(c, w, key) : 0;
	if (!gv_integer(c, v, &i))
		return gltf_error(c, &at, gv_is_integer(c, v) ? "an index out of range"
				  : "must be an index, not %s", gj_kind(c, v));
	if (i < 0 || (uint64_t)i >= limit)
		return gltf_error(c, &at, "%" PRId64 " names no %s (the file has %" PRIu32 ")", i,
				  what, limit);
	*out = (int32_t)i;
	return 0;
}

int gj_uint(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
	    uint64_t min, uint64_t max, bool required, uint64_t def, uint64_t *out)
{
	gv v = gv_get(c, o, key);
	struct gltf_where at = gw_key(*w, key);
	int64_t i;

	*out = def;
	if (v == GV_NONE)
		return required ? gj_missing(c, w, key) : 0;
	if (!gv_integer(c, v, &i))
		return gltf_error(c, &at, gv_is_integer(c, v) ? "an integer out of range"
				  : "must be an integer, not %s", gj_kind(c, v));
	if (i < 0 || (uint64_t)i < min || (uint64_t)i > max)
		return gltf_error(c, &at, "%" PRId64 " is not in %" PRIu64 "..%" PRIu64, i, min, max);
	*out = (uint64_t)i;
	return 0;
}

int gj_bool(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key, bool *out)
{
	gv v = gv_get(c, o, key);
	struct gltf_where at = gw_key(*w, key);
	enum gv_kind k = gv_kind_of(c, v);

	*out = false;
	if (v == GV_NONE)
		return 0;
	if (k != GV_TRUE && k != GV_FALSE)
		return gltf_error(c, &at, "must be true or false, not %s", gj_kind(c, v));
	*out = k == GV_TRUE;
	return 0;
}

int gj_string(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
	      bool required, const char **out)
{
	gv v = gv_get(c, o, key);
	struct gltf_where at = gw_key(*w, key);

	*out = NULL;
	if (v == GV_NONE)
		return required ? gj_missing(c, w, key) : 0;
	if (gv_kind_of(c, v) != GV_STRING)
		return gltf_error(c, &at, "must be a string, not %s", gj_kind(c, v));
	*out = gv_string(c, v);
	return *out != NULL ? 0 : -ENOMEM;
}

/* Element k of array v as a finite float. */
static int gj_element_float(struct gltf_ctx *c, const struct gltf_where *at, gv v, uint32_t k,
			    float *out)
{
	gv e = gv_at(c, v, k);
	struct gltf_where ek = gw_at(*at, k);
	double d;

	if (gv_kind_of(c, e) != GV_NUMBER)
		return gltf_error(c, &ek, "must be a number, not %s", gj_kind(c, e));
	if (!gv_number(c, e, &d) || !isfinite((float)d))
		return gltf_error(c, &ek, "a number beyond a float's range");
	*out = (float)d;
	return 0;
}

int gj_floats(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
	      unsigned n, float *out, bool *present)
{
	gv v = gv_get(c, o, key);
	struct gltf_where at = gw_key(*w, key);

	*present = false;
	if (v == GV_NONE)
		return 0;
	if (gv_kind_of(c, v) != GV_ARRAY || gv_size(c, v) != n)
		return gltf_error(c, &at, "must be an array of %u numbers", n);
	for (unsigned k = 0; k < n; k++)
		if (gj_element_float(c, &at, v, k, &out[k]) < 0)
			return -EINVAL;
	*present = true;
	return 0;
}

int gj_float_list(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
		  uint32_t *count, const float **out)
{
	gv v = gv_get(c, o, key);
	struct gltf_where at = gw_key(*w, key);
	uint32_t n;
	float *f;

	*count = 0;
	*out = NULL;
	if (v == GV_NONE)
		return 0;
	if (gv_kind_of(c, v) != GV_ARRAY)
		return gltf_error(c, &at, "must be an array of numbers, not %s", gj_kind(c, v));
	n = gv_size(c, v);
	f = gltf_alloc(c, n, sizeof *f);
	if (f == NULL)
		return -ENOMEM;
	for (uint32_t k = 0; k < n; k++)
		if (gj_element_float(c, &at, v, k, &f[k]) < 0)
			return -EINVAL;
	*count = n;
	*out = f;
	return 0;
}

int gj_array(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
	     bool required, gv *out)
{
	gv v = gv_get(c, o, key);
	struct gltf_where at = gw_key(*w, key);

	*out = GV_NONE;
	if (v == GV_NONE)
		return required ? gj_missing(c, w, key) : 0;
	if (gv_kind_of(c, v) != GV_ARRAY)
		return gltf_error(c, &at, "must be an array, not %s", gj_kind(c, v));
	*out = v;
	return 0;
}

int gj_object(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
	      bool required, gv *out)
{
	gv v = gv_get(c, o, key);
	struct gltf_where at = gw_key(*w, key);

	*out = GV_NONE;
	if (v == GV_NONE)
		return required ? gj_missing(c, w, key) : 0;
	if (gv_kind_of(c, v) != GV_OBJECT)
		return gltf_error(c, &at, "must be an object, not %s", gj_kind(c, v));
	*out = v;
	return 0;
}

int gj_item(struct gltf_ctx *c, gv array, const char *name, uint32_t i, gv *out)
{
	struct gltf_where w = gw_item(name, i);

	*out = gv_at(c, array, i);
	if (gv_kind_of(c, *out) != GV_OBJECT)
		return gltf_error(c, &w, "must be an object, not %s", gj_kind(c, *out));
	return 0;
}
