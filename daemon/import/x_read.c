/*
 * x_read.c - typed, located reads of a .x object's member values, and the
 * row-vector matrix conversion every part of the import needs.
 */
#include "daemon/import/x_import_internal.h"

#include <errno.h>
#include <math.h>
#include <string.h>

bool x_is(const struct x_object *o, const char *type)
{
	return o->type != NULL && strcmp(o->type, type) == 0;
}

void x_reader_init(struct x_reader *r, const struct x_tree *t, const struct x_object *o,
		   struct diag *d)
{
	r->t = t;
	r->o = o;
	r->next = 0;
	r->d = d;
}

uint32_t x_reader_left(const struct x_reader *r)
{
	return r->o->value_count - r->next;
}

uint32_t x_reader_pos(const struct x_reader *r)
{
	return r->next < r->o->value_count ? r->o->values[r->next].pos : r->o->pos;
}

static const struct x_value *x_take(struct x_reader *r, const char *what)
{
	if (r->next >= r->o->value_count) {
		x_tree_error(r->t, r->d, r->o->pos, "%s%s%s has too few values: %s is missing",
			      r->o->type, r->o->name ? " " : "", r->o->name ? r->o->name : "", what);
		return NULL;
	}
	return &r->o->values[r->next++];
}

static const char *x_kind_name(enum x_value_kind k)
{
	switch (k) {
	case X_VALUE_INT:    return "an integer";
	case X_VALUE_FLOAT:  return "a float";
	default:             return "a string";
	}
}

int x_read_uint(struct x_reader *r, const char *what, uint32_t max, uint32_t *out)
{
	const struct x_value *v = x_take(r, what);

	if (v == NULL)
		return -EINVAL;
	if (v->kind != X_VALUE_INT)
		return x_tree_error(r->t, r->d, v->pos, "%s must be an integer, found %s", what,
				     x_kind_name(v->kind));
	if (v->v.i < 0 || (uint64_t)v->v.i > max)
		return x_tree_error(r->t, r->d, v->pos, "%s is %lld, outside 0..%u", what,
				     (long long)v->v.i, max);
	*out = (uint32_t)v->v.i;
	return 0;
}

int x_read_count(struct x_reader *r, const char *what, uint32_t per_item, uint32_t *out)
{
	uint32_t pos = x_reader_pos(r);
	uint32_t n;
	int rc = x_read_uint(r, what, UINT32_MAX, &n);

	if (rc < 0)
		return rc;
	if ((uint64_t)n * per_item > x_reader_left(r))
		return x_tree_error(r->t, r->d, pos,
				     "%s is %u, but only %u values follow (%u needed)", what, n,
				     x_reader_left(r), (unsigned)((uint64_t)n * per_item > UINT32_MAX
								  ? UINT32_MAX
								  : (uint64_t)n * per_item));
	*out = n;
	return 0;
}

static int x_read_number(struct x_reader *r, const char *what, double *out)
{
	const struct x_value *v = x_take(r, what);

	if (v == NULL)
		return -EINVAL;
	if (v->kind == X_VALUE_FLOAT) {
		*out = v->v.f;
		return 0;
	}
	/* Text exporters write "0;" for 0.0; a binary integer list is never
	 * a float list. */
	if (v->kind == X_VALUE_INT && r->t->header.encoding == X_TEXT) {
		*out = (double)v->v.i;
		return 0;
	}
	return x_tree_error(r->t, r->d, v->pos, "%s must be a float, found %s", what,
			     x_kind_name(v->kind));
}

int x_read_float_any(struct x_reader *r, const char *what, float *out)
{
	double v = 0;
	int rc = x_read_number(r, what, &v);

	if (rc == 0)
		*out = (float)v;
	return rc;
}

int x_read_float(struct x_reader *r, const char *what, float *out)
{
	uint32_t pos = x_reader_pos(r);
	double v = 0;
	int rc = x_read_number(r, what, &v);

	if (rc < 0)
		return rc;
	if (!isfinite(v) || fabs(v) > 3.4e38)
		return x_tree_error(r->t, r->d, pos, "%s is not a finite float (%g)", what, v);
	*out = (float)v;
	return 0;
}

/* n floats: the common case (float values, finite ones in float's range
 * unless `any`) read in place, the rest -- integers in text, anything
 * wrong -- through x_read_float(_any), so values and messages are theirs. */
static int x_read_floats_as(struct x_reader *r, const char *what, float *out, uint32_t n,
			    bool any)
{
	uint32_t i = 0;

	/* n > 0: an object without values has no array to point into. */
	if (n > 0 && n <= x_reader_left(r)) {
		const struct x_value *v = r->o->values + r->next;

		for (; i < n && v[i].kind == X_VALUE_FLOAT; i++) {
			double f = v[i].v.f;

			/* The comparison is also false for NaN. */
			if (!any && !(fabs(f) <= 3.4e38))
				break;
			out[i] = (float)f;
		}
		r->next += i;
	}
	for (; i < n; i++)
		if ((any ? x_read_float_any(r, what, &out[i]) : x_read_float(r, what, &out[i])) < 0)
			return -EINVAL;
	return 0;
}

int x_read_floats(struct x_reader *r, const char *what, float *out, uint32_t n)
{
	return x_read_floats_as(r, what, out, n, false);
}

int x_read_floats_any(struct x_reader *r, const char *what, float *out, uint32_t n)
{
	return x_read_floats_as(r, what, out, n, true);
}

int x_read_string(struct x_reader *r, const char *what, const char **out)
{
	const struct x_value *v = x_take(r, what);

	if (v == NULL)
		return -EINVAL;
	if (v->kind != X_VALUE_STRING)
		return x_tree_error(r->t, r->d, v->pos, "%s must be a string, found %s", what,
				     x_kind_name(v->kind));
	*out = v->v.s.ptr;
	return 0;
}

/* A row-vector 4x4 matrix as the column-vector mat34 it means (its
 * transpose; the last column of the file's matrix is 0 0 0 1). */
mat34 x_row_to_mat34(const float m[16])
{
	mat34 r;

	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++)
			r.m[i][j] = m[4 * j + i];
		r.m[i][3] = m[12 + i];
	}
	return r;
}

struct transform x_matrix_to_transform(const float m[16])
{
	struct transform x;
	mat34 rot = mat34_identity();
	vec3 axis[3];
	float s[3], det;

	/* Row i of the row-vector matrix is column i of the column-vector one:
	 * the image of axis i, scaled. */
	for (int i = 0; i < 3; i++) {
		axis[i] = vec3_make(m[4 * i], m[4 * i + 1], m[4 * i + 2]);
		s[i] = sqrtf(axis[i].x * axis[i].x + axis[i].y * axis[i].y + axis[i].z * axis[i].z);
	}
	det = axis[0].x * (axis[1].y * axis[2].z - axis[1].z * axis[2].y) -
	      axis[0].y * (axis[1].x * axis[2].z - axis[1].z * axis[2].x) +
	      axis[0].z * (axis[1].x * axis[2].y - axis[1].y * axis[2].x);
	/* A mirror is a negative scale on one axis, so the rest is a rotation. */
	if (det < 0)
		s[0] = -s[0];
	for (int i = 0; i < 3; i++) {
		if (s[i] != 0) {
			rot.m[0][i] = axis[i].x / s[i];
			rot.m[1][i] = axis[i].y / s[i];
			rot.m[2][i] = axis[i].z / s[i];
		}
	}
	x.t = vec3_make(m[12], m[13], m[14]);
	x.r = quat_normalize(quat_from_mat34(&rot));
	x.s = vec3_make(s[0], s[1], s[2]);
	return x;
}

bool x_matrix_is_trs(const mat34 *exact, const struct transform *split)
{
	mat34 back = mat34_from_transform(split);
	float size = 0.0f, worst = 0.0f;

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++) {
			float e = fabsf(exact->m[i][j]);

			if (j < 3 && e > size)
				size = e;
			if (fabsf(back.m[i][j] - exact->m[i][j]) > worst)
				worst = fabsf(back.m[i][j] - exact->m[i][j]);
		}
	/* Splitting and rebuilding costs a few float roundings. */
	return worst <= 1e-5f * (size > 1.0f ? size : 1.0f);
}
