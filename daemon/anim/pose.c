/*
 * pose.c - local transforms to model and skinning matrices.
 *
 * These loops are the hot path after sampling.  On x86-64 they use SSE2
 * (part of the base ISA, so no -march is needed); elsewhere the portable
 * math3d functions compute the same values.
 *
 * local -> model in two passes:
 *  1. the local transforms become matrices, four joints at a time with one
 *     joint per lane (no shuffles inside the quaternion math), written
 *     straight into `model`;
 *  2. each is multiplied by its parent, in place (parents[i] < i, so
 *     model[parent] is final and model[i] still holds the local matrix),
 *     optionally followed by the skinning product (see pose_forward).
 * A row of a * b is  a[r][0] b0 + a[r][1] b1 + a[r][2] b2 + (0,0,0,a[r][3])
 * with b0..b2 the rows of b: one register per row.
 */
#include "pose.h"

#if defined(__SSE2__)
#include <emmintrin.h>

/* Element k of v in every lane (pshufd: one instruction, source kept). */
#define BCAST(v, k) _mm_castsi128_ps(_mm_shuffle_epi32(_mm_castps_si128(v), (k) * 0x55))

struct rows {
	__m128 r0, r1, r2;
};

static inline struct rows rows_load(const mat34 *m)
{
	struct rows r = { _mm_loadu_ps(m->m[0]), _mm_loadu_ps(m->m[1]), _mm_loadu_ps(m->m[2]) };

	return r;
}

static inline void rows_store(mat34 *m, struct rows r)
{
	_mm_storeu_ps(m->m[0], r.r0);
	_mm_storeu_ps(m->m[1], r.r1);
	_mm_storeu_ps(m->m[2], r.r2);
}

static inline __m128 row_mul(__m128 ar, struct rows b, __m128 lane3)
{
	__m128 x = _mm_add_ps(_mm_mul_ps(BCAST(ar, 0), b.r0), _mm_mul_ps(BCAST(ar, 1), b.r1));
	__m128 y = _mm_add_ps(_mm_mul_ps(BCAST(ar, 2), b.r2), _mm_and_ps(ar, lane3));

	return _mm_add_ps(x, y);
}

/* a * b */
static inline struct rows rows_mul(struct rows a, struct rows b)
{
	const __m128 lane3 = _mm_castsi128_ps(_mm_set_epi32(-1, 0, 0, 0));
	struct rows c = { row_mul(a.r0, b, lane3), row_mul(a.r1, b, lane3), row_mul(a.r2, b, lane3) };

	return c;
}

/* a * b and a * c, sharing the broadcasts of a's elements.  The rows of b
 * and c are loaded for each row of the result: loads are cheap, and
 * holding them would spill. */
static inline __m128 row_mul2(__m128 ar, const mat34 *b, const mat34 *c, __m128 lane3, __m128 *rc)
{
	__m128 a0 = BCAST(ar, 0), a1 = BCAST(ar, 1), a2 = BCAST(ar, 2), t = _mm_and_ps(ar, lane3);
	__m128 x = _mm_add_ps(_mm_mul_ps(a0, _mm_loadu_ps(b->m[0])),
			      _mm_mul_ps(a1, _mm_loadu_ps(b->m[1])));
	__m128 y = _mm_add_ps(_mm_mul_ps(a0, _mm_loadu_ps(c->m[0])),
			      _mm_mul_ps(a1, _mm_loadu_ps(c->m[1])));

	*rc = _mm_add_ps(y, _mm_add_ps(_mm_mul_ps(a2, _mm_loadu_ps(c->m[2])), t));
	return _mm_add_ps(x, _mm_add_ps(_mm_mul_ps(a2, _mm_loadu_ps(b->m[2])), t));
}

static inline void rows_mul2(struct rows a, const mat34 *b, const mat34 *c, struct rows *ab,
			     struct rows *ac)
{
	const __m128 lane3 = _mm_castsi128_ps(_mm_set_epi32(-1, 0, 0, 0));

	ab->r0 = row_mul2(a.r0, b, c, lane3, &ac->r0);
	ab->r1 = row_mul2(a.r1, b, c, lane3, &ac->r1);
	ab->r2 = row_mul2(a.r2, b, c, lane3, &ac->r2);
}

/* Transpose four registers in place. */
#define TRANSPOSE4(a, b, c, d) _MM_TRANSPOSE4_PS(a, b, c, d)

/* Lanes 1-3 of v (a scale loaded with the r.w before it) all equal 1. */
static inline int unit_scale(__m128 v)
{
	return (_mm_movemask_ps(_mm_cmpeq_ps(v, _mm_set1_ps(1.0f))) & 0xe) == 0xe;
}

/* Matrices of four local transforms, one joint per lane.  Loads happen
 * where their values are needed: holding all twelve would spill. */
static inline void local_matrices4(const struct transform *x, mat34 *out)
{
	const __m128 one = _mm_set1_ps(1.0f);
	__m128 qx = _mm_loadu_ps(&x[0].r.x), qy = _mm_loadu_ps(&x[1].r.x);
	__m128 qz = _mm_loadu_ps(&x[2].r.x), qw = _mm_loadu_ps(&x[3].r.x);
	__m128 x2, y2, z2, xx, yy, zz, xy, xz, yz, wx, wy, wz, tx, ty, tz, t3;
	__m128 m00, m01, m02, m10, m11, m12, m20, m21, m22;

	TRANSPOSE4(qx, qy, qz, qw);
	x2 = _mm_add_ps(qx, qx);
	y2 = _mm_add_ps(qy, qy);
	z2 = _mm_add_ps(qz, qz);
	xx = _mm_mul_ps(qx, x2);
	yy = _mm_mul_ps(qy, y2);
	zz = _mm_mul_ps(qz, z2);
	xy = _mm_mul_ps(qx, y2);
	xz = _mm_mul_ps(qx, z2);
	yz = _mm_mul_ps(qy, z2);
	wx = _mm_mul_ps(qw, x2);
	wy = _mm_mul_ps(qw, y2);
	wz = _mm_mul_ps(qw, z2);
	/* R(q), as in mat34_from_transform... */
	m00 = _mm_sub_ps(one, _mm_add_ps(yy, zz));
	m01 = _mm_sub_ps(xy, wz);
	m02 = _mm_add_ps(xz, wy);
	m10 = _mm_add_ps(xy, wz);
	m11 = _mm_sub_ps(one, _mm_add_ps(xx, zz));
	m12 = _mm_sub_ps(yz, wx);
	m20 = _mm_sub_ps(xz, wy);
	m21 = _mm_add_ps(yz, wx);
	m22 = _mm_sub_ps(one, _mm_add_ps(xx, yy));
	/* ...times diag(s), skipped when every scale is 1 (MD5, most rigs).
	 * Loaded from r.w on, so lanes 1-3 hold s. */
	{
		__m128 s0 = _mm_loadu_ps(&x[0].r.w), sx = _mm_loadu_ps(&x[1].r.w);
		__m128 sy = _mm_loadu_ps(&x[2].r.w), sz = _mm_loadu_ps(&x[3].r.w);

		if (!(unit_scale(s0) && unit_scale(sx) && unit_scale(sy) && unit_scale(sz))) {
			TRANSPOSE4(s0, sx, sy, sz);
			m00 = _mm_mul_ps(m00, sx);
			m10 = _mm_mul_ps(m10, sx);
			m20 = _mm_mul_ps(m20, sx);
			m01 = _mm_mul_ps(m01, sy);
			m11 = _mm_mul_ps(m11, sy);
			m21 = _mm_mul_ps(m21, sy);
			m02 = _mm_mul_ps(m02, sz);
			m12 = _mm_mul_ps(m12, sz);
			m22 = _mm_mul_ps(m22, sz);
		}
	}
	/* Back to one matrix row per register: joint j's row r is lane j of
	 * (m_r0, m_r1, m_r2, t_r).  Translation loads from t.x on. */
	tx = _mm_loadu_ps(&x[0].t.x);
	ty = _mm_loadu_ps(&x[1].t.x);
	tz = _mm_loadu_ps(&x[2].t.x);
	t3 = _mm_loadu_ps(&x[3].t.x);
	TRANSPOSE4(tx, ty, tz, t3);
	TRANSPOSE4(m00, m01, m02, tx);
	_mm_storeu_ps(out[0].m[0], m00);
	_mm_storeu_ps(out[1].m[0], m01);
	_mm_storeu_ps(out[2].m[0], m02);
	_mm_storeu_ps(out[3].m[0], tx);
	TRANSPOSE4(m10, m11, m12, ty);
	_mm_storeu_ps(out[0].m[1], m10);
	_mm_storeu_ps(out[1].m[1], m11);
	_mm_storeu_ps(out[2].m[1], m12);
	_mm_storeu_ps(out[3].m[1], ty);
	TRANSPOSE4(m20, m21, m22, tz);
	_mm_storeu_ps(out[0].m[2], m20);
	_mm_storeu_ps(out[1].m[2], m21);
	_mm_storeu_ps(out[2].m[2], m22);
	_mm_storeu_ps(out[3].m[2], tz);
}

/*
 * Pass 1 over every joint, then the forward pass of parent products and,
 * with `with_skin`, the skinning matrices.  The pass holds joint i's model
 * rows in registers; when joint i + 1 is its child (chains: spines, limbs,
 * fingers) the child's product and joint i's skinning product share the
 * broadcasts of those rows, and no store-to-load round trip sits on the
 * chain's critical path.
 */
static inline __attribute__((always_inline)) void
pose_forward(const struct skeleton *s, const struct transform *local, mat34 *model, mat34 *skin,
	     int with_skin)
{
	const int32_t *parents = s->parents;
	const mat34 *inv = s->inv_bind;
	uint32_t n = s->joint_count, i = 0;
	struct rows cur;

	for (; i + 4 <= n; i += 4)
		local_matrices4(local + i, model + i);
	for (; i < n; i++)
		model[i] = mat34_from_transform(&local[i]);
	if (n == 0)
		return;
	/* Joint 0 is a root: its model matrix is its local one. */
	cur = rows_load(&model[0]);
	for (i = 0;; i++) {
		uint32_t j = i + 1;
		int chained = j < n && parents[j] == (int32_t)i;
		struct rows next, sk;

		if (with_skin && inv) {
			if (chained)
				rows_mul2(cur, &inv[i], &model[j], &sk, &next);
			else
				sk = rows_mul(cur, rows_load(&inv[i]));
			rows_store(&skin[i], sk);
		} else {
			if (with_skin)
				rows_store(&skin[i], cur);
			if (chained)
				next = rows_mul(cur, rows_load(&model[j]));
		}
		if (j >= n)
			break;
		if (!chained) {
			int32_t p = parents[j];

			/* parents[j] < j is the loaders' invariant; anything
			 * else is treated as a root rather than read before it
			 * is written. */
			if (p >= 0 && (uint32_t)p < j)
				next = rows_mul(rows_load(&model[p]), rows_load(&model[j]));
			else
				next = rows_load(&model[j]);
		}
		rows_store(&model[j], next);
		cur = next;
	}
}

void pose_local_to_model(const struct skeleton *s, const struct transform *local, mat34 *model)
{
	pose_forward(s, local, model, NULL, 0);
}

void pose_local_to_skin(const struct skeleton *s, const struct transform *local, mat34 *model,
			mat34 *skin)
{
	pose_forward(s, local, model, skin, 1);
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
		rows_store(&skin[i], rows_mul(rows_load(&model[i]), rows_load(&inv[i])));
}

#else

void pose_local_to_model(const struct skeleton *s, const struct transform *local, mat34 *model)
{
	const int32_t *parents = s->parents;

	for (uint32_t i = 0; i < s->joint_count; i++) {
		int32_t p = parents[i];
		mat34 m = mat34_from_transform(&local[i]);

		/* parents[i] < i is the loaders' invariant; anything else is
		 * treated as a root rather than read before it is written. */
		model[i] = p >= 0 && (uint32_t)p < i ? mat34_mul(&model[p], &m) : m;
	}
}

void pose_model_to_skin(const struct skeleton *s, const mat34 *model, mat34 *skin)
{
	for (uint32_t i = 0; i < s->joint_count; i++)
		skin[i] = s->inv_bind ? mat34_mul(&model[i], &s->inv_bind[i]) : model[i];
}

void pose_local_to_skin(const struct skeleton *s, const struct transform *local, mat34 *model,
			mat34 *skin)
{
	pose_local_to_model(s, local, model);
	pose_model_to_skin(s, model, skin);
}

#endif

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
