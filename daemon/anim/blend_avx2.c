/*
 * blend_avx2.c - the override layer (blend.h) in AVX2 + FMA, eight joints
 * at a time, for CPUs that math3d_simd_level() says have them.
 *
 * The SSE2 kernel in blend.c is one dependency chain per four joints
 * (dot products, a square root and a division, then the joints) with three
 * overlapping stores per joint; it costs more than sampling a clip.  This
 * one splits the work in two passes over a chunk of joints, as the uniform
 * sampler does (clip_sample.c), so each loop body is short and independent:
 *
 * Pass 1, one joint per lane: the joint's weight w (mask and clamp), u =
 * 1 - w, and the rotation's two nlerp coefficients U, S with the
 * normalisation and the hemisphere folded in (as blend.c's override4).
 *
 * Pass 2, the transforms as a flat array of floats: every float becomes
 * pose * A + layer * B, where (A, B) is (u, w) for a translation or scale
 * float and (U, S) for a rotation float.  Four transforms are exactly
 * five registers, and each register's coefficients are one permutation of
 * the four joints' (u, U) pairs, so no store overlaps another and a joint
 * is read and written once.
 */
#include "daemon/anim/blend_simd.h"

#if defined(MATH3D_AVX2_DISPATCH)
#include "daemon/anim/avx2.h"

#define CHUNK 64

/*
 * For float f of four transforms (40 floats, joint k = f / 10, component
 * c = f % 10), the lane of the interleaved pairs [a0, R0, a1, R1, ...]
 * that scales it: 2k for a translation or scale (c < 3 or c > 6), 2k + 1
 * for a rotation.  Row v is the register of floats 8v .. 8v + 7.
 */
static const int32_t pair_lane[5][8] = {
	{ 0, 0, 0, 1, 1, 1, 1, 0 },
	{ 0, 0, 2, 2, 2, 3, 3, 3 },
	{ 3, 2, 2, 2, 4, 4, 4, 5 },
	{ 5, 5, 5, 4, 4, 4, 6, 6 },
	{ 6, 7, 7, 7, 7, 6, 6, 6 },
};

/* Pass 1 for joints 0..7 of p and l; writes lane j of each coefficient. */
static inline AVX2_FMA void override_coef8(const struct transform *p, const struct transform *l,
					   __m256 w, float *cu, float *cw, float *cU, float *cS)
{
	const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
	const __m256 signbit = _mm256_set1_ps(-0.0f);
	__m256 dot = avx2_rotation_dots8(p, l);
	__m256 sign = _mm256_and_ps(dot, signbit);
	__m256 x = _mm256_andnot_ps(signbit, dot);
	__m256 u = _mm256_sub_ps(one, w);
	/* |u a +- w b|^2 for unit a, b: u^2 + w (w + 2 u |a.b|). */
	__m256 n2 = _mm256_fmadd_ps(u, u, _mm256_mul_ps(w, _mm256_fmadd_ps(_mm256_add_ps(u, u), x, w)));
	__m256 inv = _mm256_div_ps(one, _mm256_sqrt_ps(_mm256_max_ps(n2, _mm256_set1_ps(1e-30f))));
	__m256 at0 = _mm256_cmp_ps(w, zero, _CMP_LE_OQ), at1 = _mm256_cmp_ps(w, one, _CMP_GE_OQ);
	/* Exactly (1, 0) at w = 0 and (0, 1) at w = 1: those joints copy. */
	__m256 U = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_mul_ps(u, inv), zero, at1), one, at0);
	__m256 S = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_xor_ps(_mm256_mul_ps(w, inv), sign),
						     one, at1), zero, at0);

	_mm256_storeu_ps(cu, u);
	_mm256_storeu_ps(cw, w);
	_mm256_storeu_ps(cU, U);
	_mm256_storeu_ps(cS, S);
}

/* The joints' (a, R) pairs interleaved: lo = joints 0..3, hi = 4..7. */
static inline AVX2_FMA void interleave8(const float *a, const float *r, __m256 *lo, __m256 *hi)
{
	__m256 va = _mm256_loadu_ps(a), vr = _mm256_loadu_ps(r);
	__m256 l = _mm256_unpacklo_ps(va, vr), h = _mm256_unpackhi_ps(va, vr);

	*lo = _mm256_permute2f128_ps(l, h, 0x20);
	*hi = _mm256_permute2f128_ps(l, h, 0x31);
}

#define APPLY(v, A, B, k) do { \
		__m256 pv = _mm256_loadu_ps(fp + 8 * (v)); \
		__m256 lv = _mm256_loadu_ps(fl + 8 * (v)); \
		_mm256_storeu_ps(fp + 8 * (v), _mm256_fmadd_ps(lv, _mm256_permutevar8x32_ps(B, k), \
			_mm256_mul_ps(pv, _mm256_permutevar8x32_ps(A, k)))); \
	} while (0)

/* Pass 2 for joints 0..7. */
static inline AVX2_FMA void override_apply8(struct transform *p, const struct transform *l,
					    const float *cu, const float *cw, const float *cU,
					    const float *cS, const __m256i *k)
{
	float *fp = (float *)p;
	const float *fl = (const float *)l;
	__m256 a_lo, a_hi, b_lo, b_hi;

	interleave8(cu, cU, &a_lo, &a_hi);
	interleave8(cw, cS, &b_lo, &b_hi);
	APPLY(0, a_lo, b_lo, k[0]);
	APPLY(1, a_lo, b_lo, k[1]);
	APPLY(2, a_lo, b_lo, k[2]);
	APPLY(3, a_lo, b_lo, k[3]);
	APPLY(4, a_lo, b_lo, k[4]);
	APPLY(5, a_hi, b_hi, k[0]);
	APPLY(6, a_hi, b_hi, k[1]);
	APPLY(7, a_hi, b_hi, k[2]);
	APPLY(8, a_hi, b_hi, k[3]);
	APPLY(9, a_hi, b_hi, k[4]);
}

AVX2_FMA uint32_t blend_override_avx2(struct transform *pose, const struct transform *layer,
				      uint32_t n, float weight, const float *mask)
{
	float cu[CHUNK], cw[CHUNK], cU[CHUNK], cS[CHUNK];
	__m256i k[5];
	__m256 wb = _mm256_set1_ps(weight);
	const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
	uint32_t j = 0;

	for (int v = 0; v < 5; v++)
		k[v] = _mm256_loadu_si256((const __m256i *)pair_lane[v]);
	while (n - j >= 8) {
		uint32_t m = n - j < CHUNK ? (n - j) & ~7u : CHUNK;

		for (uint32_t i = 0; i < m; i += 8) {
			/* max(w, 0) first: a NaN weight becomes 0. */
			__m256 w = mask ? _mm256_mul_ps(wb, _mm256_loadu_ps(mask + j + i)) : wb;

			w = _mm256_min_ps(_mm256_max_ps(w, zero), one);
			override_coef8(pose + j + i, layer + j + i, w, cu + i, cw + i, cU + i, cS + i);
		}
		for (uint32_t i = 0; i < m; i += 8)
			override_apply8(pose + j + i, layer + j + i, cu + i, cw + i, cU + i, cS + i, k);
		j += m;
	}
	return j;
}
#endif
