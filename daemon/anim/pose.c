/*
 * pose.c - local transforms to model and skinning matrices.
 *
 * The matrix products are the hot path after sampling; on x86-64 they use
 * SSE2 (part of the base ISA, so no -march is needed): one matrix row is
 * one register, and row i of a * b is  a[i][0] b0 + a[i][1] b1 +
 * a[i][2] b2 + (0, 0, 0, a[i][3]).  Elsewhere the portable mat34_mul runs.
 */
#include "pose.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static inline void pose_mul(const mat34 *a, const mat34 *b, mat34 *c)
{
#if defined(__SSE2__)
	const __m128 lane3 = _mm_castsi128_ps(_mm_set_epi32(-1, 0, 0, 0));
	__m128 b0 = _mm_loadu_ps(b->m[0]);
	__m128 b1 = _mm_loadu_ps(b->m[1]);
	__m128 b2 = _mm_loadu_ps(b->m[2]);

	for (int i = 0; i < 3; i++) {
		__m128 ai = _mm_loadu_ps(a->m[i]);
		__m128 r = _mm_mul_ps(_mm_shuffle_ps(ai, ai, 0x00), b0);

		r = _mm_add_ps(r, _mm_mul_ps(_mm_shuffle_ps(ai, ai, 0x55), b1));
		r = _mm_add_ps(r, _mm_mul_ps(_mm_shuffle_ps(ai, ai, 0xaa), b2));
		r = _mm_add_ps(r, _mm_and_ps(ai, lane3));
		_mm_storeu_ps(c->m[i], r);
	}
#else
	*c = mat34_mul(a, b);
#endif
}

void pose_local_to_model(const struct skeleton *s, const struct transform *local, mat34 *model)
{
	const int32_t *parents = s->parents;
	uint32_t n = s->joint_count;

	for (uint32_t i = 0; i < n; i++) {
		int32_t p = parents[i];
		mat34 m = mat34_from_transform(&local[i]);

		/* parents[i] < i is the loaders' invariant; anything else is
		 * treated as a root rather than read before it is written. */
		if (p >= 0 && (uint32_t)p < i)
			pose_mul(&model[p], &m, &model[i]);
		else
			model[i] = m;
	}
}

void pose_model_to_skin(const struct skeleton *s, const mat34 *model, mat34 *skin)
{
	const mat34 *inv = s->inv_bind;
	uint32_t n = s->joint_count;

	if (!inv) {
		for (uint32_t i = 0; i < n; i++)
			skin[i] = model[i];
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		pose_mul(&model[i], &inv[i], &skin[i]);
}

void pose_model_to_local(const struct skeleton *s, const mat34 *model, struct transform *local)
{
	uint32_t n = s->joint_count;

	for (uint32_t i = 0; i < n; i++) {
		int32_t p = s->parents[i];
		mat34 rel;

		if (p >= 0 && (uint32_t)p < i) {
			mat34 inv = mat34_inverse(&model[p]);

			rel = mat34_mul(&inv, &model[i]);
		} else {
			rel = model[i];
		}
		local[i].t = vec3_make(rel.m[0][3], rel.m[1][3], rel.m[2][3]);
		local[i].r = quat_from_mat34(&rel);
		local[i].s = vec3_make(1.0f, 1.0f, 1.0f);
	}
}
