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
	return memset(b->data + b->used - bytes, 0, bytes);
}

static const char *gj_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:  return "an object";
	case JSON_ARRAY:   return "an array";
	case JSON_STRING:  return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL:    return "a number";
	case JSON_TRUE:
	case JSON_FALSE:   return "a boolean";
	default:           return "null";
	}
}

static int gj_missing(struct gltf_ctx *c, const struct gltf_where *w, const char *key)
{
	return gltf_error(c, w, "\"%s\" is required", key);
}

int gj_index(struct gltf_ctx *c, const struct gltf_where *w, json_t *o, const char *key,
	     uint32_t limit, const char *what, bool required, int32_t *out)
{
	json_t *v = json_object_get(o, key);
	struct gltf_where at = gw_key(*w, key);
	json_int_t i;

	*out = -1;
	if (v == NULL)
		return required ? gj_missing(c, w, key) : 0;
	if (!json_is_integer(v))
		return gltf_error(c, &at, "must be an index, not %s", gj_kind(v));
	i = json_integer_value(v);
	if (i < 0 || (uint64_t)i >= limit)
		return gltf_error(c, &at, "%" JSON_INTEGER_FORMAT " names no %s (the file has %" PRIu32
				  ")", i, what, limit);
	*out = (int32_t)i;
	return 0;
}

int gj_uint(struct gltf_ctx *c, const struct gltf_where *w, json_t *o, const char *key,
	    uint64_t min, uint64_t max, bool required, uint64_t def, uint64_t *out)
{
	json_t *v = json_object_get(o, key);
	struct gltf_where at = gw_key(*w, key);
	json_int_t i;

	*out = def;
	if (v == NULL)
		return required ? gj_missing(c, w, key) : 0;
	if (!json_is_integer(v))
		return gltf_error(c, &at, "must be an integer, not %s", gj_kind(v));
	i = json_integer_value(v);
	if (i < 0 || (uint64_t)i < min || (uint64_t)i > max)
		return gltf_error(c, &at, "%" JSON_INTEGER_FORMAT " is not in %" PRIu64 "..%" PRIu64,
				  i, min, max);
	*out = (uint64_t)i;
	return 0;
}

int gj_bool(struct gltf_ctx *c, const struct gltf_where *w, json_t *o, const char *key, bool *out)
{
	json_t *v = json_object_get(o, key);
	struct gltf_where at = gw_key(*w, key);

	*out = false;
	if (v == NULL)
		return 0;
	if (!json_is_boolean(v))
		return gltf_error(c, &at, "must be true or false, not %s", gj_kind(v));
	*out = json_is_true(v);
	return 0;
}

int gj_string(struct gltf_ctx *c, const struct gltf_where *w, json_t *o, const char *key,
	      bool required, const char **out)
{
	json_t *v = json_object_get(o, key);
	struct gltf_where at = gw_key(*w, key);

	*out = NULL;
	if (v == NULL)
		return required ? gj_missing(c, w, key) : 0;
	if (!json_is_string(v))
		return gltf_error(c, &at, "must be a string, not %s", gj_kind(v));
	*out = json_string_value(v);
	return 0;
}

/* Element k of array v as a finite float. */
static int gj_element_float(struct gltf_ctx *c, const struct gltf_where *at, json_t *v, size_t k,
			    float *out)
{
	json_t *e = json_array_get(v, k);
	struct gltf_where ek = gw_at(*at, (uint32_t)k);
	double d;

	if (!json_is_number(e))
		return gltf_error(c, &ek, "must be a number, not %s", gj_kind(e));
	d = json_number_value(e);
	if (!isfinite((float)d))
		return gltf_error(c, &ek, "%g is not a finite float", d);
	*out = (float)d;
	return 0;
}

int gj_floats(struct gltf_ctx *c, const struct gltf_where *w, json_t *o, const char *key,
	      unsigned n, float *out, bool *present)
{
	json_t *v = json_object_get(o, key);
	struct gltf_where at = gw_key(*w, key);

	*present = false;
	if (v == NULL)
		return 0;
	if (!json_is_array(v) || json_array_size(v) != n)
		return gltf_error(c, &at, "must be an array of %u numbers", n);
	for (unsigned k = 0; k < n; k++)
		if (gj_element_float(c, &at, v, k, &out[k]) < 0)
			return -EINVAL;
	*present = true;
	return 0;
}

int gj_float_list(struct gltf_ctx *c, const struct gltf_where *w, json_t *o, const char *key,
		  uint32_t *count, const float **out)
{
	json_t *v = json_object_get(o, key);
	struct gltf_where at = gw_key(*w, key);
	float *f;
	size_t n;

	*count = 0;
	*out = NULL;
	if (v == NULL)
		return 0;
	if (!json_is_array(v))
		return gltf_error(c, &at, "must be an array of numbers, not %s", gj_kind(v));
	n = json_array_size(v);
	f = gltf_alloc(c, n, sizeof *f);
	if (f == NULL)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++)
		if (gj_element_float(c, &at, v, k, &f[k]) < 0)
			return -EINVAL;
	*count = (uint32_t)n;
	*out = f;
	return 0;
}

int gj_array(struct gltf_ctx *c, const struct gltf_where *w, json_t *o, const char *key,
	     bool required, json_t **out)
{
	json_t *v = json_object_get(o, key);
	struct gltf_where at = gw_key(*w, key);

	*out = NULL;
	if (v == NULL)
		return required ? gj_missing(c, w, key) : 0;
	if (!json_is_array(v))
		return gltf_error(c, &at, "must be an array, not %s", gj_kind(v));
	*out = v;
	return 0;
}

int gj_object(struct gltf_ctx *c, const struct gltf_where *w, json_t *o, const char *key,
	      bool required, json_t **out)
{
	json_t *v = json_object_get(o, key);
	struct gltf_where at = gw_key(*w, key);

	*out = NULL;
	if (v == NULL)
		return required ? gj_missing(c, w, key) : 0;
	if (!json_is_object(v))
		return gltf_error(c, &at, "must be an object, not %s", gj_kind(v));
	*out = v;
	return 0;
}

int gj_item(struct gltf_ctx *c, json_t *array, const char *name, uint32_t i, json_t **out)
{
	struct gltf_where w = gw_item(name, i);

	*out = json_array_get(array, i);
	if (!json_is_object(*out))
		return gltf_error(c, &w, "must be an object, not %s", gj_kind(*out));
	return 0;
}
