/*
 * pose.c - local transforms to model and skinning matrices.
 *
 * These loops are the hot path after sampling.  On x86-64 they use SSE2
 * (part of the base ISA, so no -march is needed), or AVX2 + FMA versions
 * when math3d_simd_level() says the CPU has them; elsewhere the portable
 * math3d functions compute the same values.
 *
 * local -> model in two passes:
 *  1. the local transforms become matrices, four joints at a time with one
 *     joint per lane (no shuffles inside the quaternion math), written
 *     straight into `model`;
 *  2. each is multiplied by its parent, in place (parents[i] < i, so
 *     model[parent] is final and model[i] still holds the local matrix),
 *     optionally followed by the skinning product (see forward_pass).
 * pose_local_matrices and pose_matrices_to_model_still are the two passes
 * apart, for clip_sample_matrices, which makes pass 1's matrices from a
 * uniform clip's frames itself (avx2.h holds the kernel both use).
 * A row of a * b is  a[r][0] b0 + a[r][1] b1 + a[r][2] b2 + (0,0,0,a[r][3])
 * with b0..b2 the rows of b: one register per row.
 */
#include "daemon/anim/pose.h"

#include <math.h>

/* Joints whose local matrix is the skeleton's exact rest matrix. */
struct still {
	uint32_t count;
	const uint32_t *joints;
};

/* After the local matrices are made, before the hierarchy: the still
 * joints get their exact matrices (when the skeleton has any). */
static inline void place_still(const struct skeleton *s, const struct still *st, mat34 *model)
{
	if (st == NULL || s->rest_matrix == NULL)
		return;
	for (uint32_t k = 0; k < st->count; k++)
		if (st->joints[k] < s->joint_count)
			model[st->joints[k]] = s->rest_matrix[st->joints[k]];
}

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

/* Pass 1 for joints [i, n). */
static inline __attribute__((always_inline)) void
local_matrices_from(const struct transform *local, uint32_t i, uint32_t n, mat34 *model)
{
	for (; i + 4 <= n; i += 4)
		local_matrices4(local + i, model + i);
	for (; i < n; i++)
		model[i] = mat34_from_transform(&local[i]);
}

/*
 * Pass 2 on `model` holding the local matrices: the forward pass of parent
 * products and, with `with_skin`, the skinning matrices.  The pass holds
 * joint i's model rows in registers; when joint i + 1 is its child
 * (chains: spines, limbs, fingers) the child's product and joint i's
 * skinning product share the broadcasts of those rows, and no
 * store-to-load round trip sits on the chain's critical path.
 */
static inline __attribute__((always_inline)) void
forward_pass(const struct skeleton *s, const struct still *st, mat34 *model, mat34 *skin,
	     int with_skin)
{
	const int32_t *parents = s->parents;
	const mat34 *inv = s->inv_bind;
	uint32_t n = s->joint_count, i;
	struct rows cur;

	place_still(s, st, model);
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

static inline __attribute__((always_inline)) void
pose_forward(const struct skeleton *s, const struct transform *local, const struct still *st,
	     mat34 *model, mat34 *skin, int with_skin)
{
	local_matrices_from(local, 0, s->joint_count, model);
	forward_pass(s, st, model, skin, with_skin);
}

#if defined(MATH3D_AVX2_DISPATCH)
/*
 * AVX2 + FMA versions: the local matrices eight joints at a time (joint j
 * in the low half of a 256-bit register, joint j + 4 in the high half; the
 * 4x4 transposes work within each half), and the products with fused
 * multiply-adds.  The chain's latency stays that of the SSE2 form: the
 * dependent broadcast feeds plain multiplies, the fused one is off the
 * critical path.
 */
#include "daemon/anim/avx2.h"

#define PERMUTE(v, k) _mm_permute_ps((v), (k) * 0x55)

/*
 * The products hold rows 0 and 1 of a matrix in one 256-bit register (row
 * 2 in a 128-bit one): vpermilps broadcasts within each half, and each row
 * of b is broadcast to both halves straight from memory, so a product is
 * 18 operations where three 128-bit rows take 27.  Per element the
 * operations are those of row_mul with the third product fused.
 */
struct rows8 {
	__m256 r01;
	__m128 r2;
};

static inline AVX2_FMA struct rows8 rows8_load(const mat34 *m)
{
	struct rows8 r = { _mm256_loadu_ps(m->m[0]), _mm_loadu_ps(m->m[2]) };

	return r;
}

static inline AVX2_FMA void rows8_store(mat34 *m, struct rows8 r)
{
	_mm256_storeu_ps(m->m[0], r.r01);
	_mm_storeu_ps(m->m[2], r.r2);
}

#define BCAST_ROW(b, k) _mm256_broadcast_ps((const __m128 *)(const void *)(b)->m[k])
#define PERMUTE8(v, k) _mm256_permute_ps((v), (k) * 0x55)
#define LO(v) _mm256_castps256_ps128(v)

static inline AVX2_FMA struct rows8 rows8_mul(struct rows8 a, const mat34 *b)
{
	const __m256 lane3 = _mm256_castsi256_ps(_mm256_set_epi32(-1, 0, 0, 0, -1, 0, 0, 0));
	__m256 b0 = BCAST_ROW(b, 0), b1 = BCAST_ROW(b, 1), b2 = BCAST_ROW(b, 2);
	__m256 x = _mm256_add_ps(_mm256_mul_ps(PERMUTE8(a.r01, 0), b0),
				 _mm256_mul_ps(PERMUTE8(a.r01, 1), b1));
	__m128 y = _mm_add_ps(_mm_mul_ps(PERMUTE(a.r2, 0), LO(b0)), _mm_mul_ps(PERMUTE(a.r2, 1), LO(b1)));
	struct rows8 c;

	c.r01 = _mm256_add_ps(x, _mm256_fmadd_ps(PERMUTE8(a.r01, 2), b2, _mm256_and_ps(a.r01, lane3)));
	c.r2 = _mm_add_ps(y, _mm_fmadd_ps(PERMUTE(a.r2, 2), LO(b2), _mm_and_ps(a.r2, LO(lane3))));
	return c;
}

/* a * b and a * c, sharing the broadcasts of a's elements. */
static inline AVX2_FMA void rows8_mul2(struct rows8 a, const mat34 *b, const mat34 *c,
				       struct rows8 *ab, struct rows8 *ac)
{
	const __m256 lane3 = _mm256_castsi256_ps(_mm256_set_epi32(-1, 0, 0, 0, -1, 0, 0, 0));
	__m256 p0 = PERMUTE8(a.r01, 0), p1 = PERMUTE8(a.r01, 1), p2 = PERMUTE8(a.r01, 2);
	__m128 q0 = PERMUTE(a.r2, 0), q1 = PERMUTE(a.r2, 1), q2 = PERMUTE(a.r2, 2);
	__m256 t = _mm256_and_ps(a.r01, lane3);
	__m128 u = _mm_and_ps(a.r2, LO(lane3));
	__m256 b0 = BCAST_ROW(b, 0), b1 = BCAST_ROW(b, 1), b2 = BCAST_ROW(b, 2);
	__m256 c0 = BCAST_ROW(c, 0), c1 = BCAST_ROW(c, 1), c2 = BCAST_ROW(c, 2);

	ab->r01 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(p0, b0), _mm256_mul_ps(p1, b1)),
				_mm256_fmadd_ps(p2, b2, t));
	ab->r2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(q0, LO(b0)), _mm_mul_ps(q1, LO(b1))),
			    _mm_fmadd_ps(q2, LO(b2), u));
	ac->r01 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(p0, c0), _mm256_mul_ps(p1, c1)),
				_mm256_fmadd_ps(p2, c2, t));
	ac->r2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(q0, LO(c0)), _mm_mul_ps(q1, LO(c1))),
			    _mm_fmadd_ps(q2, LO(c2), u));
}

/* local_matrices4 for eight joints. */
static inline AVX2_FMA void local_matrices8(const struct transform *x, mat34 *out)
{
	__m256 qx = avx2_load2(&x[0].r.x, &x[4].r.x), qy = avx2_load2(&x[1].r.x, &x[5].r.x);
	__m256 qz = avx2_load2(&x[2].r.x, &x[6].r.x), qw = avx2_load2(&x[3].r.x, &x[7].r.x);
	__m256 s0 = avx2_load2(&x[0].r.w, &x[4].r.w), sx = avx2_load2(&x[1].r.w, &x[5].r.w);
	__m256 sy = avx2_load2(&x[2].r.w, &x[6].r.w), sz = avx2_load2(&x[3].r.w, &x[7].r.w);
	__m256 tx = avx2_load2(&x[0].t.x, &x[4].t.x), ty = avx2_load2(&x[1].t.x, &x[5].t.x);
	__m256 tz = avx2_load2(&x[2].t.x, &x[6].t.x), t3 = avx2_load2(&x[3].t.x, &x[7].t.x);
	int scaled = !(avx2_unit_scale8(s0) && avx2_unit_scale8(sx) && avx2_unit_scale8(sy) &&
		       avx2_unit_scale8(sz));

	TRANSPOSE4X2(qx, qy, qz, qw);
	if (scaled)
		TRANSPOSE4X2(s0, sx, sy, sz);
	TRANSPOSE4X2(tx, ty, tz, t3);
	avx2_local_matrices8_store(qx, qy, qz, qw, scaled, sx, sy, sz, tx, ty, tz, out);
}

static inline __attribute__((always_inline)) AVX2_FMA void
local_matrices_avx2(const struct transform *local, uint32_t n, mat34 *model)
{
	uint32_t i = 0;

	for (; i + 8 <= n; i += 8)
		local_matrices8(local + i, model + i);
	local_matrices_from(local, i, n, model);
}

/* forward_pass with the AVX2 + FMA kernels. */
static inline __attribute__((always_inline)) AVX2_FMA void
forward_pass_avx2(const struct skeleton *s, const struct still *st, mat34 *model, mat34 *skin,
		  int with_skin)
{
	const int32_t *parents = s->parents;
	const mat34 *inv = s->inv_bind;
	uint32_t n = s->joint_count, i;
	struct rows8 cur;

	place_still(s, st, model);
	if (n == 0)
		return;
	if (!with_skin) {
		/* Model matrices only: each joint's parent is the joint
		 * before it (its rows still in registers) or one stored
		 * earlier; a joint without a valid parent keeps its local
		 * matrix. */
		cur = rows8_load(&model[0]);
		for (uint32_t j = 1; j < n; j++) {
			int32_t p = parents[j];

			if (p == (int32_t)j - 1)
				cur = rows8_mul(cur, &model[j]);
			else if (p >= 0 && (uint32_t)p < j)
				cur = rows8_mul(rows8_load(&model[p]), &model[j]);
			else {
				cur = rows8_load(&model[j]);
				continue;
			}
			rows8_store(&model[j], cur);
		}
		return;
	}
	cur = rows8_load(&model[0]);
	for (i = 0;; i++) {
		uint32_t j = i + 1;
		int chained = j < n && parents[j] == (int32_t)i;
		struct rows8 next, sk;

		if (with_skin && inv) {
			if (chained)
				rows8_mul2(cur, &inv[i], &model[j], &sk, &next);
			else
				sk = rows8_mul(cur, &inv[i]);
			rows8_store(&skin[i], sk);
		} else {
			if (with_skin)
				rows8_store(&skin[i], cur);
			if (chained)
				next = rows8_mul(cur, &model[j]);
		}
		if (j >= n)
			break;
		if (!chained) {
			int32_t p = parents[j];

			if (p >= 0 && (uint32_t)p < j)
				next = rows8_mul(rows8_load(&model[p]), &model[j]);
			else
				next = rows8_load(&model[j]);
		}
		rows8_store(&model[j], next);
		cur = next;
	}
}

static AVX2_FMA void pose_local_to_model_avx2(const struct skeleton *s,
					      const struct transform *local, const struct still *st,
					      mat34 *model)
{
	local_matrices_avx2(local, s->joint_count, model);
	forward_pass_avx2(s, st, model, NULL, 0);
}

static AVX2_FMA void pose_local_to_skin_avx2(const struct skeleton *s,
					     const struct transform *local, const struct still *st,
					     mat34 *model, mat34 *skin)
{
	local_matrices_avx2(local, s->joint_count, model);
	forward_pass_avx2(s, st, model, skin, 1);
}

static AVX2_FMA void pose_local_matrices_avx2(const struct transform *local, uint32_t n,
					      mat34 *model)
{
	local_matrices_avx2(local, n, model);
}

static AVX2_FMA void pose_matrices_to_model_avx2(const struct skeleton *s, const struct still *st,
						 mat34 *model)
{
	forward_pass_avx2(s, st, model, NULL, 0);
}

static AVX2_FMA void pose_model_to_skin_avx2(const struct skeleton *s, const mat34 *model,
					     mat34 *skin)
{
	const mat34 *inv = s->inv_bind;
	uint32_t n = s->joint_count;

	for (uint32_t i = 0; i < n; i++)
		rows8_store(&skin[i], rows8_mul(rows8_load(&model[i]), &inv[i]));
}

#define USE_AVX2() (math3d_simd_level() == MATH3D_SIMD_AVX2)
#else
#define USE_AVX2() 0
#define pose_local_to_model_avx2(s, l, st, m) ((void)0)
#define pose_local_to_skin_avx2(s, l, st, m, k) ((void)0)
#define pose_model_to_skin_avx2(s, m, k) ((void)0)
#define pose_local_matrices_avx2(l, n, m) ((void)0)
#define pose_matrices_to_model_avx2(s, st, m) ((void)0)
#endif

static void local_matrices(const struct transform *local, uint32_t n, mat34 *model)
{
	if (USE_AVX2())
		pose_local_matrices_avx2(local, n, model);
	else
		local_matrices_from(local, 0, n, model);
}

static void matrices_to_model(const struct skeleton *s, const struct still *st, mat34 *model)
{
	if (USE_AVX2())
		pose_matrices_to_model_avx2(s, st, model);
	else
		forward_pass(s, st, model, NULL, 0);
}

static void local_to_model(const struct skeleton *s, const struct transform *local,
			   const struct still *st, mat34 *model)
{
	if (USE_AVX2())
		pose_local_to_model_avx2(s, local, st, model);
	else
		pose_forward(s, local, st, model, NULL, 0);
}

static void local_to_skin(const struct skeleton *s, const struct transform *local,
			  const struct still *st, mat34 *model, mat34 *skin)
{
	if (USE_AVX2())
		pose_local_to_skin_avx2(s, local, st, model, skin);
	else
		pose_forward(s, local, st, model, skin, 1);
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
	if (USE_AVX2()) {
		pose_model_to_skin_avx2(s, model, skin);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		rows_store(&skin[i], rows_mul(rows_load(&model[i]), rows_load(&inv[i])));
}

#else

static void local_matrices(const struct transform *local, uint32_t n, mat34 *model)
{
	for (uint32_t i = 0; i < n; i++)
		model[i] = mat34_from_transform(&local[i]);
}

static void matrices_to_model(const struct skeleton *s, const struct still *st, mat34 *model)
{
	const int32_t *parents = s->parents;

	place_still(s, st, model);
	for (uint32_t i = 0; i < s->joint_count; i++) {
		int32_t p = parents[i];

		/* parents[i] < i is the loaders' invariant; anything else is
		 * treated as a root rather than read before it is written. */
		if (p >= 0 && (uint32_t)p < i)
			model[i] = mat34_mul(&model[p], &model[i]);
	}
}

static void local_to_model(const struct skeleton *s, const struct transform *local,
			   const struct still *st, mat34 *model)
{
	local_matrices(local, s->joint_count, model);
	matrices_to_model(s, st, model);
}

void pose_model_to_skin(const struct skeleton *s, const mat34 *model, mat34 *skin)
{
	for (uint32_t i = 0; i < s->joint_count; i++)
		skin[i] = s->inv_bind ? mat34_mul(&model[i], &s->inv_bind[i]) : model[i];
}

static void local_to_skin(const struct skeleton *s, const struct transform *local,
			  const struct still *st, mat34 *model, mat34 *skin)
{
	local_to_model(s, local, st, model);
	pose_model_to_skin(s, model, skin);
}

#endif

/*
 * Joints that leave out part of their parent (skeleton.h, ignore_parent:
 * M2's bone flags 0x1, 0x2, 0x4): a scalar pass over matrices that hold
 * the local ones, as the other passes take them.  Rare enough (a few bones
 * of a few models) that it keeps no SIMD path of its own.
 */
static vec3 pose_column(const mat34 *m, int c)
{
	return vec3_make(m->m[0][c], m->m[1][c], m->m[2][c]);
}

static float pose_length(vec3 v)
{
	return sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
}

/* The parent's matrix with what joint i ignores taken out: [A' | o]
 * (skeleton.h). */
static mat34 pose_kept_parent(const struct skeleton *s, uint32_t i, const mat34 *parent,
			      uint8_t bits)
{
	mat34 k = *parent;
	vec3 o;

	for (int c = 0; c < 3; c++) {
		vec3 col = pose_column(parent, c);
		float len = pose_length(col);

		for (int r = 0; r < 3; r++) {
			float v = k.m[r][c];

			if ((bits & SKELETON_IGNORE_PARENT_ROTATION) &&
			    (bits & SKELETON_IGNORE_PARENT_SCALE))
				v = r == c ? 1.0f : 0.0f;
			else if (bits & SKELETON_IGNORE_PARENT_ROTATION)
				v = r == c ? len : 0.0f;
			else if ((bits & SKELETON_IGNORE_PARENT_SCALE) && len > 1e-20f)
				v /= len;
			k.m[r][c] = v;
		}
	}
	if (bits & SKELETON_IGNORE_PARENT_TRANSLATION) {
		vec3 b = s->bind_model != NULL ? vec3_make(s->bind_model[i].m[0][3],
							   s->bind_model[i].m[1][3],
							   s->bind_model[i].m[2][3])
					       : s->rest[i].t;

		k.m[0][3] = k.m[1][3] = k.m[2][3] = 0.0f;
		o = mat34_apply(&k, b);
	} else {
		o = mat34_apply(parent, s->rest[i].t);
	}
	k.m[0][3] = o.x;
	k.m[1][3] = o.y;
	k.m[2][3] = o.z;
	return k;
}

static void pose_forward_ignoring(const struct skeleton *s, const struct still *st, mat34 *model,
				  mat34 *skin)
{
	place_still(s, st, model);
	for (uint32_t i = 0; i < s->joint_count; i++) {
		int32_t p = s->parents[i];
		uint8_t bits = s->ignore_parent[i] & SKELETON_IGNORE_PARENT_ALL;

		if (p < 0 || (uint32_t)p >= i) {
			/* A root (or a broken parent, treated as one). */
		} else if (bits == 0) {
			model[i] = mat34_mul(&model[p], &model[i]);
		} else {
			mat34 kept = pose_kept_parent(s, i, &model[p], bits);

			model[i].m[0][3] -= s->rest[i].t.x;
			model[i].m[1][3] -= s->rest[i].t.y;
			model[i].m[2][3] -= s->rest[i].t.z;
			model[i] = mat34_mul(&kept, &model[i]);
		}
		if (skin != NULL)
			skin[i] = s->inv_bind ? mat34_mul(&model[i], &s->inv_bind[i]) : model[i];
	}
}

void pose_local_to_model(const struct skeleton *s, const struct transform *local, mat34 *model)
{
	if (s->ignore_parent != NULL) {
		local_matrices(local, s->joint_count, model);
		pose_forward_ignoring(s, NULL, model, NULL);
		return;
	}
	local_to_model(s, local, NULL, model);
}

void pose_local_to_skin(const struct skeleton *s, const struct transform *local, mat34 *model,
			mat34 *skin)
{
	if (s->ignore_parent != NULL) {
		local_matrices(local, s->joint_count, model);
		pose_forward_ignoring(s, NULL, model, skin);
		return;
	}
	local_to_skin(s, local, NULL, model, skin);
}

void pose_local_to_model_still(const struct skeleton *s, const struct transform *local,
			       uint32_t still_count, const uint32_t *still, mat34 *model)
{
	struct still st = { still_count, still };

	if (s->ignore_parent != NULL) {
		local_matrices(local, s->joint_count, model);
		pose_forward_ignoring(s, &st, model, NULL);
		return;
	}
	local_to_model(s, local, &st, model);
}

void pose_local_to_skin_still(const struct skeleton *s, const struct transform *local,
			      uint32_t still_count, const uint32_t *still, mat34 *model, mat34 *skin)
{
	struct still st = { still_count, still };

	if (s->ignore_parent != NULL) {
		local_matrices(local, s->joint_count, model);
		pose_forward_ignoring(s, &st, model, skin);
		return;
	}
	local_to_skin(s, local, &st, model, skin);
}

void pose_local_matrices(const struct transform *local, uint32_t n, mat34 *out)
{
	local_matrices(local, n, out);
}

void pose_matrices_to_model_still(const struct skeleton *s, uint32_t still_count,
				  const uint32_t *still, mat34 *model)
{
	struct still st = { still_count, still };

	if (s->ignore_parent != NULL) {
		pose_forward_ignoring(s, &st, model, NULL);
		return;
	}
	matrices_to_model(s, &st, model);
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
