/*
 * avx2.h - the AVX2 + FMA pieces the hot loops of daemon/anim share (and
 * only they: everything here needs the CPU check of math3d_simd_level()):
 * the function attribute, a load of two joints' four floats into one
 * register (pose.c), and the dot products of eight pairs of rotations, which
 * the uniform sampler (clip_sample.c, slerp between frames) and the override
 * layer (blend_avx2.c, nlerp between poses) both start from.
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
#endif

#endif
