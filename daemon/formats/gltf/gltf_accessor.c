/*
 * gltf_accessor.c - accessors (spec 3.6.2, 5.1): their layout checked
 * against their view at parse time, from the declared sizes (so a bound
 * is checked whether or not the bytes are there), and their values read.
 *
 * Layout: an element is ncomp components of comp_bytes; a matrix's
 * columns each start on a 4-byte boundary (MAT2 and MAT3 of bytes, MAT3
 * of shorts: 3.6.2.4).  Elements lie byteStride apart when the view has
 * one, else packed.  An accessor without a view is zeros.  A sparse one
 * (3.6.2.3) then has `count` values substituted at strictly increasing
 * indices (checked in gltf_finish, where the bytes are), values packed.
 * Normalised integers decode as 3.11's table says: max(c / 127, -1),
 * c / 255, max(c / 32767, -1), c / 65535 (and c / 4294967295 for an
 * unsigned int, which the specification does not allow: noted).
 */
#include "daemon/formats/gltf/gltf_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

static const struct {
	const char *name;
	uint8_t ncomp, rows;
} accessor_types[] = {
	[GLTF_SCALAR] = { "SCALAR", 1, 1 }, [GLTF_VEC2] = { "VEC2", 2, 2 },
	[GLTF_VEC3] = { "VEC3", 3, 3 },     [GLTF_VEC4] = { "VEC4", 4, 4 },
	[GLTF_MAT2] = { "MAT2", 4, 2 },     [GLTF_MAT3] = { "MAT3", 9, 3 },
	[GLTF_MAT4] = { "MAT4", 16, 4 },
};

static unsigned component_bytes(uint32_t component)
{
	switch (component) {
	case GLTF_BYTE:
	case GLTF_UNSIGNED_BYTE:
		return 1;
	case GLTF_SHORT:
	case GLTF_UNSIGNED_SHORT:
		return 2;
	case GLTF_UNSIGNED_INT:
	case GLTF_FLOAT:
		return 4;
	default:
		return 0;
	}
}

/* Bytes between a matrix's columns (each starts 4-aligned). */
static unsigned column_bytes(const struct gltf_accessor *a)
{
	return (accessor_types[a->type].rows * a->comp_bytes + 3u) & ~3u;
}

static unsigned component_offset(const struct gltf_accessor *a, unsigned k)
{
	unsigned rows = accessor_types[a->type].rows;

	if (a->type < GLTF_MAT2)
		return k * a->comp_bytes;
	return (k / rows) * column_bytes(a) + (k % rows) * a->comp_bytes;
}

static int parse_sparse(struct gltf_ctx *c, struct gltf_accessor *a, const struct gltf_where *w,
			gv sparse)
{
	const struct gltf_model *m = c->m;
	struct gltf_where ws = gw_key(*w, "sparse"), wi = gw_key(ws, "indices"),
			  wv = gw_key(ws, "values");
	uint64_t count, ioff, voff, icomp;
	int32_t iview, vview;
	gv ind, val;
	unsigned isize;

	if (!(gv_kind_of(c, sparse) == GV_OBJECT))
		return gltf_error(c, &ws, "must be an object");
	if (gj_uint(c, &ws, sparse, "count", 1, a->count, true, 0, &count) < 0 ||
	    gj_object(c, &ws, sparse, "indices", true, &ind) < 0 ||
	    gj_object(c, &ws, sparse, "values", true, &val) < 0 ||
	    gj_index(c, &wi, ind, "bufferView", m->view_count, "buffer view", true, &iview) < 0 ||
	    gj_uint(c, &wi, ind, "byteOffset", 0, UINT64_MAX >> 2, false, 0, &ioff) < 0 ||
	    gj_uint(c, &wi, ind, "componentType", 0, 65535, true, 0, &icomp) < 0 ||
	    gj_index(c, &wv, val, "bufferView", m->view_count, "buffer view", true, &vview) < 0 ||
	    gj_uint(c, &wv, val, "byteOffset", 0, UINT64_MAX >> 2, false, 0, &voff) < 0)
		return -EINVAL;
	if (icomp != GLTF_UNSIGNED_BYTE && icomp != GLTF_UNSIGNED_SHORT &&
	    icomp != GLTF_UNSIGNED_INT) {
		struct gltf_where at = gw_key(wi, "componentType");

		return gltf_error(c, &at, "%" PRIu64 " is not an unsigned integer type (5121, 5123, "
				  "5125)", icomp);
	}
	isize = component_bytes((uint32_t)icomp);
	if (ioff + count * isize > m->views[iview].length) {
		struct gltf_where at = gw_key(ws, "count");

		return gltf_error(c, &at, "%" PRIu64 " indices of %u bytes from byte %" PRIu64
				  " lie past the end of buffer view %d (%" PRIu64 " bytes)", count,
				  isize, ioff, iview, m->views[iview].length);
	}
	if (voff + count * a->elem_bytes > m->views[vview].length) {
		struct gltf_where at = gw_key(ws, "count");

		return gltf_error(c, &at, "%" PRIu64 " values of %u bytes from byte %" PRIu64
				  " lie past the end of buffer view %d (%" PRIu64 " bytes)", count,
				  a->elem_bytes, voff, vview, m->views[vview].length);
	}
	a->sparse_count = (uint32_t)count;
	a->sparse_index_view = (uint32_t)iview;
	a->sparse_index_offset = ioff;
	a->sparse_index_component = (uint32_t)icomp;
	a->sparse_value_view = (uint32_t)vview;
	a->sparse_value_offset = voff;
	return 0;
}

static int parse_accessor(struct gltf_ctx *c, gv o, uint32_t i)
{
	struct gltf_model *m = c->m;
	struct gltf_accessor *a = &m->accessors[i];
	struct gltf_where w = gw_item("accessors", i);
	uint64_t offset, component, count;
	const char *type;
	gv sparse;
	int32_t view;
	unsigned t;

	if (gj_index(c, &w, o, "bufferView", m->view_count, "buffer view", false, &view) < 0 ||
	    gj_uint(c, &w, o, "byteOffset", 0, UINT64_MAX >> 2, false, 0, &offset) < 0 ||
	    gj_uint(c, &w, o, "componentType", 0, 65535, true, 0, &component) < 0 ||
	    gj_bool(c, &w, o, "normalized", &a->normalized) < 0 ||
	    gj_uint(c, &w, o, "count", 0, UINT32_MAX, true, 0, &count) < 0 ||
	    gj_string(c, &w, o, "type", true, &type) < 0)
		return -EINVAL;
	a->comp_bytes = (uint8_t)component_bytes((uint32_t)component);
	if (a->comp_bytes == 0) {
		struct gltf_where at = gw_key(w, "componentType");

		return gltf_error(c, &at, "%" PRIu64 " is no component type (5120, 5121, 5122, "
				  "5123, 5125 or 5126)", component);
	}
	for (t = 0; t < sizeof accessor_types / sizeof accessor_types[0]; t++)
		if (strcmp(type, accessor_types[t].name) == 0)
			break;
	if (t == sizeof accessor_types / sizeof accessor_types[0]) {
		struct gltf_where at = gw_key(w, "type");

		return gltf_error(c, &at, "\"%s\" is no accessor type (SCALAR, VEC2, VEC3, VEC4, "
				  "MAT2, MAT3, MAT4)", type);
	}
	a->view = view;
	a->offset = offset;
	a->component = (uint32_t)component;
	a->type = (uint8_t)t;
	a->ncomp = accessor_types[t].ncomp;
	a->count = (uint32_t)count;
	a->elem_bytes = t >= GLTF_MAT2 ? accessor_types[t].rows * column_bytes(a)
				       : (uint32_t)a->ncomp * a->comp_bytes;
	if (a->normalized && component == GLTF_FLOAT) {
		struct gltf_where at = gw_key(w, "normalized");

		gltf_note(c, &at, "floats are not normalised: ignored");
		a->normalized = false;
	} else if (a->normalized && component == GLTF_UNSIGNED_INT) {
		struct gltf_where at = gw_key(w, "normalized");

		gltf_note(c, &at, "normalised unsigned ints are not glTF's: read as c / 4294967295");
	}
	a->stride = a->elem_bytes;
	if (view < 0) {
		if (offset != 0) {
			struct gltf_where at = gw_key(w, "byteOffset");

			gltf_note(c, &at, "a byteOffset without a bufferView: ignored");
		}
		a->offset = 0;
	} else {
		const struct gltf_view *v = &m->views[view];

		if (v->stride != 0) {
			if (v->stride < a->elem_bytes) {
				struct gltf_where at = gw_key(w, "bufferView");

				return gltf_error(c, &at, "buffer view %d's byteStride %" PRIu32 " is less "
						  "than an element (%" PRIu32 " bytes)", view, v->stride,
						  a->elem_bytes);
			}
			a->stride = v->stride;
		}
		if (count > 0 && offset + (count - 1) * a->stride + a->elem_bytes > v->length) {
			struct gltf_where at = gw_key(w, "count");

			return gltf_error(c, &at, "%" PRIu64 " elements of %" PRIu32 " bytes, %" PRIu32
					  " apart from byte %" PRIu64 ", need %" PRIu64 " bytes; buffer "
					  "view %d has %" PRIu64, count, a->elem_bytes, a->stride, offset,
					  offset + (count - 1) * a->stride + a->elem_bytes, view,
					  v->length);
		}
	}
	sparse = gv_get(c, o, "sparse");
	return sparse != GV_NONE ? parse_sparse(c, a, &w, sparse) : 0;
}

int gltf_parse_accessors(struct gltf_ctx *c)
{
	struct gltf_model *m = c->m;
	gv arr = gv_get(c, 0, "accessors");

	m->accessor_count = (uint32_t)gv_size(c, arr);
	m->accessors = gltf_alloc(c, m->accessor_count, sizeof *m->accessors);
	c->p->roles = gltf_alloc(c, m->accessor_count, sizeof *c->p->roles);
	c->p->where = gltf_alloc(c, m->accessor_count, sizeof *c->p->where);
	c->p->floats = gltf_alloc(c, m->accessor_count, sizeof *c->p->floats);
	c->p->uints = gltf_alloc(c, m->accessor_count, sizeof *c->p->uints);
	if (m->accessors == NULL || c->p->roles == NULL || c->p->where == NULL ||
	    c->p->floats == NULL || c->p->uints == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->accessor_count; i++) {
		gv o;
		int rc = gj_item(c, arr, "accessors", i, &o);

		if (rc == 0)
			rc = parse_accessor(c, o, i);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void gltf_use(struct gltf_ctx *c, uint32_t a, uint32_t role, const struct gltf_where *w)
{
	struct gltf_accessor *acc = &c->m->accessors[a];

	if (c->p->roles[a] == 0)
		c->p->where[a] = *w;
	c->p->roles[a] |= role;
	acc->used = true;
	if (acc->view >= 0)
		c->m->buffers[c->m->views[acc->view].buffer].needed = true;
	if (acc->sparse_count > 0) {
		c->m->buffers[c->m->views[acc->sparse_index_view].buffer].needed = true;
		c->m->buffers[c->m->views[acc->sparse_value_view].buffer].needed = true;
	}
}

const unsigned char *gltf_element(const struct gltf_model *m, const struct gltf_accessor *a,
				  uint32_t i)
{
	const struct gltf_view *v = &m->views[a->view];

	return m->buffers[v->buffer].data + v->offset + a->offset + (uint64_t)i * a->stride;
}

void gltf_element_at(const struct gltf_model *m, const struct gltf_accessor *a, uint32_t i,
		     uint32_t *buffer, uint64_t *offset)
{
	const struct gltf_view *v = &m->views[a->view];

	*buffer = v->buffer;
	*offset = v->offset + a->offset + (uint64_t)i * a->stride;
}

static float load_f32(const unsigned char *p)
{
	uint32_t u = bin_le32(p);
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

float gltf_component_float(const struct gltf_accessor *a, const unsigned char *p, unsigned k)
{
	const unsigned char *q = p + component_offset(a, k);
	float f;

	switch (a->component) {
	case GLTF_FLOAT:
		return load_f32(q);
	case GLTF_BYTE:
		f = (float)(int8_t)q[0];
		return a->normalized ? (f / 127.0f < -1.0f ? -1.0f : f / 127.0f) : f;
	case GLTF_UNSIGNED_BYTE:
		f = (float)q[0];
		return a->normalized ? f / 255.0f : f;
	case GLTF_SHORT:
		f = (float)(int16_t)bin_le16(q);
		return a->normalized ? (f / 32767.0f < -1.0f ? -1.0f : f / 32767.0f) : f;
	case GLTF_UNSIGNED_SHORT:
		f = (float)bin_le16(q);
		return a->normalized ? f / 65535.0f : f;
	default:
		return a->normalized ? (float)((double)bin_le32(q) / 4294967295.0)
				     : (float)bin_le32(q);
	}
}

uint32_t gltf_component_uint(const struct gltf_accessor *a, const unsigned char *p, unsigned k)
{
	const unsigned char *q = p + component_offset(a, k);

	switch (a->comp_bytes) {
	case 1:
		return q[0];
	case 2:
		return bin_le16(q);
	default:
		return bin_le32(q);
	}
}

/* Sparse entry k's index. */
static uint32_t sparse_index(const struct gltf_model *m, const struct gltf_accessor *a, uint32_t k)
{
	const struct gltf_view *v = &m->views[a->sparse_index_view];
	const unsigned char *p = m->buffers[v->buffer].data + v->offset + a->sparse_index_offset;

	switch (a->sparse_index_component) {
	case GLTF_UNSIGNED_BYTE:
		return p[k];
	case GLTF_UNSIGNED_SHORT:
		return bin_le16(p + 2 * (size_t)k);
	default:
		return bin_le32(p + 4 * (size_t)k);
	}
}

static const unsigned char *sparse_value(const struct gltf_model *m, const struct gltf_accessor *a,
					 uint32_t k)
{
	const struct gltf_view *v = &m->views[a->sparse_value_view];

	return m->buffers[v->buffer].data + v->offset + a->sparse_value_offset +
	       (uint64_t)k * a->elem_bytes;
}

void gltf_accessor_floats(const struct gltf_model *m, uint32_t accessor, float *out)
{
	const struct gltf_accessor *a = &m->accessors[accessor];
	size_t n = a->ncomp;

	if (a->view < 0) {
		memset(out, 0, (size_t)a->count * n * sizeof *out);
	} else if (a->component == GLTF_FLOAT && a->stride == a->elem_bytes &&
		   __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
		memcpy(out, gltf_element(m, a, 0), (size_t)a->count * a->elem_bytes);
	} else {
		for (uint32_t i = 0; i < a->count; i++) {
			const unsigned char *p = gltf_element(m, a, i);

			for (unsigned k = 0; k < n; k++)
				out[i * n + k] = gltf_component_float(a, p, k);
		}
	}
	for (uint32_t k = 0; k < a->sparse_count; k++) {
		uint32_t i = sparse_index(m, a, k);
		const unsigned char *p = sparse_value(m, a, k);

		for (unsigned e = 0; e < n; e++)
			out[i * n + e] = gltf_component_float(a, p, e);
	}
}

void gltf_accessor_uints(const struct gltf_model *m, uint32_t accessor, uint32_t *out)
{
	const struct gltf_accessor *a = &m->accessors[accessor];
	size_t n = a->ncomp;

	if (a->view < 0) {
		memset(out, 0, (size_t)a->count * n * sizeof *out);
	} else {
		for (uint32_t i = 0; i < a->count; i++) {
			const unsigned char *p = gltf_element(m, a, i);

			for (unsigned k = 0; k < n; k++)
				out[i * n + k] = gltf_component_uint(a, p, k);
		}
	}
	for (uint32_t k = 0; k < a->sparse_count; k++) {
		uint32_t i = sparse_index(m, a, k);
		const unsigned char *p = sparse_value(m, a, k);

		for (unsigned e = 0; e < n; e++)
			out[i * n + e] = gltf_component_uint(a, p, e);
	}
}

const float *gltf_floats(const struct gltf_model *m, uint32_t accessor)
{
	struct gltf_ctx c = { (struct gltf_model *)m, m->priv, NULL };
	const struct gltf_accessor *a = &m->accessors[accessor];
	float *v = c.p->floats[accessor];

	/* Packed floats, aligned, nothing substituted: they are the values
	 * already, where they lie (the buffer outlives the model). */
	if (v == NULL && a->view >= 0 && a->component == GLTF_FLOAT &&
	    a->stride == a->elem_bytes && a->sparse_count == 0 && a->count > 0 &&
	    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
	    ((uintptr_t)gltf_element(m, a, 0) & (_Alignof(float) - 1)) == 0)
		return (const float *)(const void *)gltf_element(m, a, 0);
	if (v == NULL) {
		v = gltf_alloc_raw(&c, (size_t)a->count * a->ncomp + 1, sizeof *v);
		if (v == NULL)
			return NULL;
		gltf_accessor_floats(m, accessor, v);
		c.p->floats[accessor] = v;
	}
	return v;
}

const uint32_t *gltf_uints(const struct gltf_model *m, uint32_t accessor)
{
	struct gltf_ctx c = { (struct gltf_model *)m, m->priv, NULL };
	const struct gltf_accessor *a = &m->accessors[accessor];
	uint32_t *v = c.p->uints[accessor];

	if (v == NULL) {
		v = gltf_alloc_raw(&c, (size_t)a->count * a->ncomp + 1, sizeof *v);
		if (v == NULL)
			return NULL;
		gltf_accessor_uints(m, accessor, v);
		c.p->uints[accessor] = v;
	}
	return v;
}

float gltf_accessor_last(const struct gltf_model *m, uint32_t accessor)
{
	const struct gltf_accessor *a = &m->accessors[accessor];

	if (a->count == 0)
		return 0.0f;
	for (uint32_t k = a->sparse_count; k-- > 0;)
		if (sparse_index(m, a, k) == a->count - 1)
			return gltf_component_float(a, sparse_value(m, a, k), 0);
	return a->view >= 0 ? gltf_component_float(a, gltf_element(m, a, a->count - 1), 0) : 0.0f;
}

int gltf_check_sparse(struct gltf_ctx *c, uint32_t accessor)
{
	const struct gltf_accessor *a = &c->m->accessors[accessor];
	const struct gltf_view *v = &c->m->views[a->sparse_index_view];
	unsigned isize = component_bytes(a->sparse_index_component);
	uint32_t prev = 0;

	for (uint32_t k = 0; k < a->sparse_count; k++) {
		uint32_t i = sparse_index(c->m, a, k);
		uint64_t at = v->offset + a->sparse_index_offset + (uint64_t)k * isize;

		if (i >= a->count)
			return gltf_data_error(c, v->buffer, at, "accessor %" PRIu32 ": sparse index %"
					       PRIu32 " is %" PRIu32 ", past its %" PRIu32 " elements",
					       accessor, k, i, a->count);
		if (k > 0 && i <= prev)
			return gltf_data_error(c, v->buffer, at, "accessor %" PRIu32 ": sparse index %"
					       PRIu32 " is %" PRIu32 ", not above the one before (%"
					       PRIu32 ")", accessor, k, i, prev);
		prev = i;
	}
	return 0;
}
