/*
 * blend.c - override and additive layers, per joint (blend.h).
 *
 * The portable functions say what is computed; the SSE2 ones compute the
 * same formulas four joints at a time and finish the last n % 4 joints
 * with the portable code.  SSE2 is part of the x86-64 base ISA; the
 * override also has an AVX2 + FMA kernel (blend_avx2.c), chosen when
 * math3d_simd_level() says so, because a cross-fade runs it on every joint
 * of every fading instance.
 */
#include "daemon/anim/blend.h"
#include "daemon/anim/blend_simd.h"

#include <errno.h>
#include <string.h>

#include "daemon/anim/sse2.h"

_Static_assert(sizeof(struct transform) == 10 * sizeof(float), "transform is ten packed floats");

int blend_mask_build(const struct skeleton *s, uint32_t root_count, const uint32_t *roots,
		     const float *weights, float *out)
{
	uint32_t n = s->joint_count;

	for (uint32_t k = 0; k < root_count; k++) {
		if (roots[k] >= n)
			return -EINVAL;
		if (weights && !(weights[k] >= 0.0f && weights[k] <= 1.0f))
			return -EINVAL;
	}
	/* -1 marks "no root here yet"; parents come first (skeleton.h), so
	 * one forward pass hands each root's weight down its subtree. */
	for (uint32_t j = 0; j < n; j++)
		out[j] = -1.0f;
	for (uint32_t k = 0; k < root_count; k++)
		out[roots[k]] = weights ? weights[k] : 1.0f;
	for (uint32_t j = 0; j < n; j++) {
		int32_t p = s->parents[j];

		if (out[j] < 0.0f)
			out[j] = p >= 0 ? out[p] : -1.0f;
	}
	for (uint32_t j = 0; j < n; j++)
		if (out[j] < 0.0f)
			out[j] = 0.0f;
	return 0;
}

/* weight * mask[j] in [0, 1]; NaN becomes 0 (as _mm_max_ps(w, 0) does). */
static inline float joint_weight(float weight, const float *mask, uint32_t j)
{
	float w = mask ? weight * mask[j] : weight;

	if (!(w > 0.0f))
		return 0.0f;
	return w < 1.0f ? w : 1.0f;
}

static void override_one(struct transform *p, const struct transform *l, float w)
{
	float u = 1.0f - w;
	float s = quat_dot(p->r, l->r) < 0.0f ? -w : w;

	if (w <= 0.0f)
		return;
	if (w >= 1.0f) {
		*p = *l;
		return;
	}
	p->t = vec3_add(vec3_scale(p->t, u), vec3_scale(l->t, w));
	p->s = vec3_add(vec3_scale(p->s, u), vec3_scale(l->s, w));
	p->r = quat_normalize(quat_make(u * p->r.x + s * l->r.x, u * p->r.y + s * l->r.y,
					u * p->r.z + s * l->r.z, u * p->r.w + s * l->r.w));
}

static inline float scale_ratio(float layer, float ref)
{
	return ref != 0.0f ? layer / ref : 1.0f;
}

static void additive_one(struct transform *p, const struct transform *l, const struct transform *ref,
			 float w)
{
	quat d = quat_mul(l->r, quat_conj(ref->r));
	quat e;

	if (d.w < 0.0f)
		d = quat_make(-d.x, -d.y, -d.z, -d.w);
	/* nlerp(identity, d, w): exactly the identity at w = 0. */
	e = quat_make(w * d.x, w * d.y, w * d.z, (1.0f - w) + w * d.w);
	e = quat_normalize(e);
	p->r = quat_mul(e, p->r);
	p->t = vec3_make(p->t.x + w * (l->t.x - ref->t.x), p->t.y + w * (l->t.y - ref->t.y),
			 p->t.z + w * (l->t.z - ref->t.z));
	p->s = vec3_make(p->s.x * (1.0f + w * (scale_ratio(l->s.x, ref->s.x) - 1.0f)),
			 p->s.y * (1.0f + w * (scale_ratio(l->s.y, ref->s.y) - 1.0f)),
			 p->s.z * (1.0f + w * (scale_ratio(l->s.z, ref->s.z) - 1.0f)));
}

void blend_override_portable(struct transform *pose, const struct transform *layer, uint32_t n,
			     float weight, const float *mask)
{
	for (uint32_t j = 0; j < n; j++)
		override_one(pose + j, layer + j, joint_weight(weight, mask, j));
}

void blend_additive_portable(struct transform *pose, const struct transform *layer,
			     const struct transform *ref, uint32_t n, float weight,
			     const float *mask)
{
	for (uint32_t j = 0; j < n; j++)
		additive_one(pose + j, layer + j, ref + j, joint_weight(weight, mask, j));
}

#if defined(__SSE2__)
/*
 * Four joints, lanes = joints.  A joint's ten floats are read (and
 * written) as three overlapping groups of four: t.x..r.x at &t, the
 * rotation at &r, r.w..s.z at &r.w, so nothing outside the joint is
 * touched.  Stores go t-group, s-group, rotation: the rotation's store
 * overwrites the two lanes the others fill with something else.  A joint's
 * loads come before its stores and no group reaches into the next joint, so
 * pose may be written in place.
 */
#define LANE(v, i) _mm_castsi128_ps(_mm_shuffle_epi32(_mm_castps_si128(v), (i) * 0x55))

static inline __m128 weights4(float weight, const float *mask, uint32_t j)
{
	__m128 w = mask ? _mm_mul_ps(_mm_set1_ps(weight), _mm_loadu_ps(mask + j))
			: _mm_set1_ps(weight);

	return _mm_min_ps(_mm_max_ps(w, _mm_setzero_ps()), _mm_set1_ps(1.0f));
}

/* Rotations of x[0..3] as lanes: q[0] = the four x, ... q[3] = the four w. */
static inline void load_rot4(const struct transform *x, __m128 q[4])
{
	q[0] = _mm_loadu_ps(&x[0].r.x);
	q[1] = _mm_loadu_ps(&x[1].r.x);
	q[2] = _mm_loadu_ps(&x[2].r.x);
	q[3] = _mm_loadu_ps(&x[3].r.x);
	_MM_TRANSPOSE4_PS(q[0], q[1], q[2], q[3]);
}

static inline __m128 select4(__m128 m, __m128 yes, __m128 no)
{
	return _mm_or_ps(_mm_and_ps(m, yes), _mm_andnot_ps(m, no));
}

static inline __m128 rsqrt_exact(__m128 n2)
{
	n2 = _mm_max_ps(n2, _mm_set1_ps(1e-30f));
	return _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(n2));
}

/*
 * Override: each rotation is U a + S b with U = (1 - w) / |.|, S = ±w / |.|
 * (the sign picks b's hemisphere).  a, b are unit, so |(1 - w) a ± w b|^2 =
 * (1 - w)^2 + w^2 + 2 w (1 - w) |a.b| needs no pass over the result.  At
 * w = 0 the weights become exactly (1, 0), at w = 1 exactly (0, 1), so
 * those joints are copied bit for bit.
 */
static void override4(struct transform *p, const struct transform *l, __m128 w)
{
	const __m128 one = _mm_set1_ps(1.0f), zero = _mm_setzero_ps();
	const __m128 signbit = _mm_set1_ps(-0.0f);
	__m128 dot = sse2_rotation_dots4(p, l);
	__m128 sign = _mm_and_ps(dot, signbit);
	__m128 u = _mm_sub_ps(one, w);
	__m128 x = _mm_andnot_ps(signbit, dot);
	__m128 n2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(u, u), _mm_mul_ps(w, w)),
			       _mm_mul_ps(_mm_add_ps(u, u), _mm_mul_ps(w, x)));
	__m128 inv = rsqrt_exact(n2);
	__m128 at0 = _mm_cmple_ps(w, zero), at1 = _mm_cmpge_ps(w, one);
	__m128 U = select4(at0, one, select4(at1, zero, _mm_mul_ps(u, inv)));
	__m128 S = select4(at0, zero, select4(at1, one, _mm_xor_ps(_mm_mul_ps(w, inv), sign)));

#define OVERRIDE_JOINT(i) do { \
		__m128 ui = LANE(u, i), wi = LANE(w, i); \
		__m128 pt = _mm_loadu_ps(&p[i].t.x), ps = _mm_loadu_ps(&p[i].r.w); \
		__m128 pr = _mm_loadu_ps(&p[i].r.x); \
		_mm_storeu_ps(&p[i].t.x, _mm_add_ps(_mm_mul_ps(pt, ui), \
						    _mm_mul_ps(_mm_loadu_ps(&l[i].t.x), wi))); \
		_mm_storeu_ps(&p[i].r.w, _mm_add_ps(_mm_mul_ps(ps, ui), \
						    _mm_mul_ps(_mm_loadu_ps(&l[i].r.w), wi))); \
		_mm_storeu_ps(&p[i].r.x, _mm_add_ps(_mm_mul_ps(pr, LANE(U, i)), \
						    _mm_mul_ps(_mm_loadu_ps(&l[i].r.x), LANE(S, i)))); \
	} while (0)
	OVERRIDE_JOINT(0);
	OVERRIDE_JOINT(1);
	OVERRIDE_JOINT(2);
	OVERRIDE_JOINT(3);
#undef OVERRIDE_JOINT
}

/* Hamilton product of lane quaternions a * b (q[0..3] = x, y, z, w). */
static inline void qmul4(const __m128 a[4], const __m128 b[4], __m128 o[4])
{
	o[0] = _mm_sub_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(a[3], b[0]), _mm_mul_ps(a[0], b[3])),
				     _mm_mul_ps(a[1], b[2])), _mm_mul_ps(a[2], b[1]));
	o[1] = _mm_add_ps(_mm_add_ps(_mm_sub_ps(_mm_mul_ps(a[3], b[1]), _mm_mul_ps(a[0], b[2])),
				     _mm_mul_ps(a[1], b[3])), _mm_mul_ps(a[2], b[0]));
	o[2] = _mm_add_ps(_mm_sub_ps(_mm_add_ps(_mm_mul_ps(a[3], b[2]), _mm_mul_ps(a[0], b[1])),
				     _mm_mul_ps(a[1], b[0])), _mm_mul_ps(a[2], b[3]));
	o[3] = _mm_sub_ps(_mm_sub_ps(_mm_sub_ps(_mm_mul_ps(a[3], b[3]), _mm_mul_ps(a[0], b[0])),
				     _mm_mul_ps(a[1], b[1])), _mm_mul_ps(a[2], b[2]));
}

static void additive4(struct transform *p, const struct transform *l, const struct transform *ref,
		      __m128 w)
{
	const __m128 one = _mm_set1_ps(1.0f), zero = _mm_setzero_ps();
	const __m128 signbit = _mm_set1_ps(-0.0f);
	__m128 lr[4], rr[4], pr[4], d[4], e[4], o[4], sign, n2, inv;

	load_rot4(l, lr);
	load_rot4(ref, rr);
	load_rot4(p, pr);
	for (int i = 0; i < 3; i++)
		rr[i] = _mm_xor_ps(rr[i], signbit);     /* ref^-1 = conj(ref) */
	qmul4(lr, rr, d);
	sign = _mm_and_ps(d[3], signbit);               /* the identity's hemisphere */
	for (int i = 0; i < 4; i++)
		d[i] = _mm_xor_ps(d[i], sign);
	e[0] = _mm_mul_ps(w, d[0]);
	e[1] = _mm_mul_ps(w, d[1]);
	e[2] = _mm_mul_ps(w, d[2]);
	e[3] = _mm_add_ps(_mm_sub_ps(one, w), _mm_mul_ps(w, d[3]));
	n2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(e[0], e[0]), _mm_mul_ps(e[1], e[1])),
			_mm_add_ps(_mm_mul_ps(e[2], e[2]), _mm_mul_ps(e[3], e[3])));
	inv = rsqrt_exact(n2);
	for (int i = 0; i < 4; i++)
		e[i] = _mm_mul_ps(e[i], inv);
	qmul4(e, pr, o);
	_MM_TRANSPOSE4_PS(o[0], o[1], o[2], o[3]);

	/* The scale ratio needs no division where the reference scale is 1
	 * (lanes 1..3 of the s-group; lane 0 is r.w, overwritten). */
#define ADDITIVE_JOINT(i) do { \
		__m128 wi = LANE(w, i), rs = _mm_loadu_ps(&ref[i].r.w); \
		__m128 ls = _mm_loadu_ps(&l[i].r.w); \
		__m128 ratio = (_mm_movemask_ps(_mm_cmpeq_ps(rs, one)) & 0xe) == 0xe ? ls : \
			select4(_mm_cmpeq_ps(rs, zero), one, _mm_div_ps(ls, rs)); \
		__m128 pt = _mm_loadu_ps(&p[i].t.x), ps = _mm_loadu_ps(&p[i].r.w); \
		_mm_storeu_ps(&p[i].t.x, _mm_add_ps(pt, _mm_mul_ps(wi, _mm_sub_ps( \
			_mm_loadu_ps(&l[i].t.x), _mm_loadu_ps(&ref[i].t.x))))); \
		_mm_storeu_ps(&p[i].r.w, _mm_mul_ps(ps, _mm_add_ps(one, \
						    _mm_mul_ps(wi, _mm_sub_ps(ratio, one))))); \
		_mm_storeu_ps(&p[i].r.x, o[i]); \
	} while (0)
	ADDITIVE_JOINT(0);
	ADDITIVE_JOINT(1);
	ADDITIVE_JOINT(2);
	ADDITIVE_JOINT(3);
#undef ADDITIVE_JOINT
}
#endif

void blend_override(struct transform *pose, const struct transform *layer, uint32_t n,
		    float weight, const float *mask)
{
	uint32_t j = 0;

	if (!mask && !(weight > 0.0f))
		return;
	if (!mask && weight >= 1.0f) {
		memcpy(pose, layer, n * sizeof *pose);
		return;
	}
#if defined(MATH3D_AVX2_DISPATCH)
	if (math3d_simd_level() == MATH3D_SIMD_AVX2)
		j = blend_override_avx2(pose, layer, n, weight, mask);
#endif
#if defined(__SSE2__)
	for (; n - j >= 4; j += 4)
		override4(pose + j, layer + j, weights4(weight, mask, j));
#endif
	for (; j < n; j++)
		override_one(pose + j, layer + j, joint_weight(weight, mask, j));
}

void blend_additive(struct transform *pose, const struct transform *layer,
		    const struct transform *ref, uint32_t n, float weight, const float *mask)
{
	uint32_t j = 0;

	if (!mask && !(weight > 0.0f))
		return;
#if defined(__SSE2__)
	for (; n - j >= 4; j += 4)
		additive4(pose + j, layer + j, ref + j, weights4(weight, mask, j));
#endif
	for (; j < n; j++)
		additive_one(pose + j, layer + j, ref + j, joint_weight(weight, mask, j));
}
