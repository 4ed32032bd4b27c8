/*
 * sse2.h - the SSE2 piece the hot loops of daemon/anim share (SSE2 is
 * part of x86-64's base ISA: no CPU check): the dot products of four pairs
 * of joint rotations, which the uniform sampler (clip_sample.c) and the
 * layer blends (blend.c) both start from.  avx2.h has the eight-wide one.
 */
#ifndef ANIMD_SSE2_H
#define ANIMD_SSE2_H

#include "daemon/anim/math3d.h"

#if defined(__SSE2__)
#include <emmintrin.h>

/* a[j].r . b[j].r for j = 0..3, lane j: four products, then four
 * horizontal sums at once (s01 = p0x+p0z, p1x+p1z, p0y+p0w, p1y+p1w). */
static inline __m128 sse2_rotation_dots4(const struct transform *a, const struct transform *b)
{
	__m128 p0 = _mm_mul_ps(_mm_loadu_ps(&a[0].r.x), _mm_loadu_ps(&b[0].r.x));
	__m128 p1 = _mm_mul_ps(_mm_loadu_ps(&a[1].r.x), _mm_loadu_ps(&b[1].r.x));
	__m128 p2 = _mm_mul_ps(_mm_loadu_ps(&a[2].r.x), _mm_loadu_ps(&b[2].r.x));
	__m128 p3 = _mm_mul_ps(_mm_loadu_ps(&a[3].r.x), _mm_loadu_ps(&b[3].r.x));
	__m128 s01 = _mm_add_ps(_mm_unpacklo_ps(p0, p1), _mm_unpackhi_ps(p0, p1));
	__m128 s23 = _mm_add_ps(_mm_unpacklo_ps(p2, p3), _mm_unpackhi_ps(p2, p3));

	return _mm_add_ps(_mm_movelh_ps(s01, s23), _mm_movehl_ps(s23, s01));
}
#endif

#endif
