/*
 * blend_simd.h - the wider blend kernels blend.c dispatches to (inside
 * daemon/anim only).  Each blends the first joints of n it can take in its
 * width and returns how many; blend.c finishes the rest.
 */
#ifndef ANIMD_BLEND_SIMD_H
#define ANIMD_BLEND_SIMD_H

#include <stdint.h>

#include "daemon/anim/math3d.h"

#if defined(MATH3D_AVX2_DISPATCH)
/* Override (blend_override's formulas), n & ~7 joints. */
uint32_t blend_override_avx2(struct transform *pose, const struct transform *layer, uint32_t n,
			     float weight, const float *mask);
#endif

#endif
