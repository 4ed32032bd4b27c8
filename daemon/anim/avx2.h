/*
 * avx2.h - the AVX2 + FMA pieces the hot loops of daemon/anim share (and
 * only they: everything here needs the CPU check of math3d_simd_level()):
 * the function attribute, a load of two joints' four floats into one
 * register (pose.c), the dot products of eight pairs of rotations, which
 * the uniform sampler (clip_sample.c, slerp between frames) and the override
 * layer (blend_avx2.c, nlerp between poses) both start from, the slerp
 * weights of eight joints, and eight joints' local matrices from their
 * components (pose.c from a local pose, clip_matrices.c straight from a
 * uniform clip's two frames: the same operations, so the same bits).
 */
#ifndef ANIMD_AVX2_H
#define ANIMD_AVX2_H

#include "daemon/anim/math3d.h"

#if defined(MATH3D_AVX2_DISPATCH)
#include <immintrin.h>

#define AVX2_FMA __attribute__((target("avx2,fma")))

/* Four floats at lo in the low half, four at hi in the high half. */
static inline AVX2_FMA __m256 avx2_load2(const float *lo, const float *hi)
{
	return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi), 1);
}

/*
 * a[j].r . b[j].r for j = 0..7, lane j.  Joint j and j + 4 share a
 * register, so each 128-bit half sums four dot products with two
 * unpacks, two shuffles and three adds.
 */
static inline AVX2_FMA __m256 avx2_rotation_dots8(const struct transform *a,
						   const struct transform *b)
{
	__m256 p04 = _mm256_mul_ps(avx2_load2(&a[0].r.x, &a[4].r.x), avx2_load2(&b[0].r.x, &b[4].r.x));
	__m256 p15 = _mm256_mul_ps(avx2_load2(&a[1].r.x, &a[5].r.x), avx2_load2(&b[1].r.x, &b[5].r.x));
	__m256 p26 = _mm256_mul_ps(avx2_load2(&a[2].r.x, &a[6].r.x), avx2_load2(&b[2].r.x, &b[6].r.x));
	__m256 p37 = _mm256_mul_ps(avx2_load2(&a[3].r.x, &a[7].r.x), avx2_load2(&b[3].r.x, &b[7].r.x));
	__m256 s01 = _mm256_add_ps(_mm256_unpacklo_ps(p04, p15), _mm256_unpackhi_ps(p04, p15));
	__m256 s23 = _mm256_add_ps(_mm256_unpacklo_ps(p26, p37), _mm256_unpackhi_ps(p26, p37));

	return _mm256_add_ps(_mm256_shuffle_ps(s01, s23, 0x44), _mm256_shuffle_ps(s01, s23, 0xee));
}

/* _MM_TRANSPOSE4_PS within each 128-bit half: four joints' (x, y, z, w)
 * loaded with avx2_load2 (joint j low, j + 4 high) become one component
 * per register, joint j in lane j. */
#define TRANSPOSE4X2(a, b, c, d) do { \
	__m256 t0_ = _mm256_unpacklo_ps(a, b), t1_ = _mm256_unpacklo_ps(c, d); \
	__m256 t2_ = _mm256_unpackhi_ps(a, b), t3_ = _mm256_unpackhi_ps(c, d); \
	(a) = _mm256_shuffle_ps(t0_, t1_, 0x44); \
	(b) = _mm256_shuffle_ps(t0_, t1_, 0xee); \
	(c) = _mm256_shuffle_ps(t2_, t3_, 0x44); \
	(d) = _mm256_shuffle_ps(t2_, t3_, 0xee); \
} while (0)

/* Lanes 1-3 of each half all 1: joints' scales loaded with avx2_load2
 * from r.w on (lane 0 is the rotation's w). */
static inline AVX2_FMA int avx2_unit_scale8(__m256 v)
{
	return (_mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_set1_ps(1.0f), _CMP_EQ_OQ)) & 0xee) == 0xee;
}

static inline AVX2_FMA void avx2_store2(float *lo, float *hi, __m256 v)
{
	_mm_storeu_ps(lo, _mm256_castps256_ps128(v));
	_mm_storeu_ps(hi, _mm256_extractf128_ps(v, 1));
}

#define AVX2_HORNER(w, y, k, i) ((w) = _mm256_fmadd_ps((w), (y), (k)[i]))

/*
 * The normalised slerp weights of eight pairs of unit quaternions whose
 * dot products are `dot` (k0, k1: quat_slerp_prepare's coefficients, one
 * per lane): q = W0 a + W1 b, the shortest path's sign folded into W1.
 * |w0 a + w1 b|^2 = w0^2 + w1^2 + 2 w0 w1 |a.b| for unit a, b, so the
 * normalisation needs no pass over the result.
 */
static inline AVX2_FMA void avx2_slerp_weights8(__m256 dot, const __m256 *k0, const __m256 *k1,
						__m256 *W0, __m256 *W1)
{
	const __m256 one = _mm256_set1_ps(1.0f);
	const __m256 half = _mm256_set1_ps(0.5f);
	const __m256 signbit = _mm256_set1_ps(-0.0f);
	__m256 sign = _mm256_and_ps(dot, signbit);
	__m256 x = _mm256_min_ps(_mm256_andnot_ps(signbit, dot), one);
	__m256 y = _mm256_sub_ps(_mm256_sqrt_ps(_mm256_fmadd_ps(x, half, half)), one);
	__m256 w0 = k0[5], w1 = k1[5], n2, inv;

	_Static_assert(QUAT_SLERP_DEGREE == 5, "five Horner steps below");
	AVX2_HORNER(w0, y, k0, 4);
	AVX2_HORNER(w1, y, k1, 4);
	AVX2_HORNER(w0, y, k0, 3);
	AVX2_HORNER(w1, y, k1, 3);
	AVX2_HORNER(w0, y, k0, 2);
	AVX2_HORNER(w1, y, k1, 2);
	AVX2_HORNER(w0, y, k0, 1);
	AVX2_HORNER(w1, y, k1, 1);
	AVX2_HORNER(w0, y, k0, 0);
	AVX2_HORNER(w1, y, k1, 0);
	/* w0^2 + w1 (w1 + 2 w0 x) */
	n2 = _mm256_fmadd_ps(w0, w0,
			     _mm256_mul_ps(w1, _mm256_fmadd_ps(_mm256_add_ps(w0, w0), x, w1)));
	n2 = _mm256_max_ps(n2, _mm256_set1_ps(1e-30f));
	inv = _mm256_div_ps(one, _mm256_sqrt_ps(n2));
	*W0 = _mm256_mul_ps(w0, inv);
	*W1 = _mm256_xor_ps(_mm256_mul_ps(w1, inv), sign);
}

/*
 * Eight joints' local matrices, R(q) diag(s) with t in the last column,
 * from their components with joint j in lane j (as TRANSPOSE4X2 leaves
 * them), stored as out[0..7].  `scaled` 0 skips the scale (every one is 1:
 * MD5, most rigs); multiplying by an exact 1 would change no bit either.
 */
static inline AVX2_FMA void avx2_local_matrices8_store(__m256 qx, __m256 qy, __m256 qz, __m256 qw,
						       int scaled, __m256 sx, __m256 sy, __m256 sz,
						       __m256 tx, __m256 ty, __m256 tz, mat34 *out)
{
	const __m256 one = _mm256_set1_ps(1.0f);
	__m256 x2 = _mm256_add_ps(qx, qx), y2 = _mm256_add_ps(qy, qy), z2 = _mm256_add_ps(qz, qz);
	__m256 xx = _mm256_mul_ps(qx, x2), yy = _mm256_mul_ps(qy, y2), zz = _mm256_mul_ps(qz, z2);
	__m256 xy = _mm256_mul_ps(qx, y2), xz = _mm256_mul_ps(qx, z2), yz = _mm256_mul_ps(qy, z2);
	__m256 wx = _mm256_mul_ps(qw, x2), wy = _mm256_mul_ps(qw, y2), wz = _mm256_mul_ps(qw, z2);
	__m256 m00 = _mm256_sub_ps(one, _mm256_add_ps(yy, zz));
	__m256 m01 = _mm256_sub_ps(xy, wz);
	__m256 m02 = _mm256_add_ps(xz, wy);
	__m256 m10 = _mm256_add_ps(xy, wz);
	__m256 m11 = _mm256_sub_ps(one, _mm256_add_ps(xx, zz));
	__m256 m12 = _mm256_sub_ps(yz, wx);
	__m256 m20 = _mm256_sub_ps(xz, wy);
	__m256 m21 = _mm256_add_ps(yz, wx);
	__m256 m22 = _mm256_sub_ps(one, _mm256_add_ps(xx, yy));

	if (scaled) {
		m00 = _mm256_mul_ps(m00, sx);
		m10 = _mm256_mul_ps(m10, sx);
		m20 = _mm256_mul_ps(m20, sx);
		m01 = _mm256_mul_ps(m01, sy);
		m11 = _mm256_mul_ps(m11, sy);
		m21 = _mm256_mul_ps(m21, sy);
		m02 = _mm256_mul_ps(m02, sz);
		m12 = _mm256_mul_ps(m12, sz);
		m22 = _mm256_mul_ps(m22, sz);
	}
	/* Back to one matrix row per register: joint j's row r is lane j of
	 * (m_r0, m_r1, m_r2, t_r). */
	TRANSPOSE4X2(m00, m01, m02, tx);
	avx2_store2(out[0].m[0], out[4].m[0], m00);
	avx2_store2(out[1].m[0], out[5].m[0], m01);
	avx2_store2(out[2].m[0], out[6].m[0], m02);
	avx2_store2(out[3].m[0], out[7].m[0], tx);
	TRANSPOSE4X2(m10, m11, m12, ty);
	avx2_store2(out[0].m[1], out[4].m[1], m10);
	avx2_store2(out[1].m[1], out[5].m[1], m11);
	avx2_store2(out[2].m[1], out[6].m[1], m12);
	avx2_store2(out[3].m[1], out[7].m[1], ty);
	TRANSPOSE4X2(m20, m21, m22, tz);
	avx2_store2(out[0].m[2], out[4].m[2], m20);
	avx2_store2(out[1].m[2], out[5].m[2], m21);
	avx2_store2(out[2].m[2], out[6].m[2], m22);
	avx2_store2(out[3].m[2], out[7].m[2], tz);
}
#endif

#endif
