/*
 * clip_matrices.c - a clip's sampled pose as local matrices, without the
 * pose in between for uniform clips.
 *
 * Sampling a uniform clip (clip_sample.c) writes the blended pose, and
 * pose.c's first pass reads it back to make each joint's matrix.  On an
 * AVX2 CPU both run eight joints at a time, so here they are one kernel
 * after the rotations' slerp weights: each component of eight joints is
 * loaded from the frames' blocks (clip_block_frames) with one load, blended
 * in its register and turned into matrices without the pose going through
 * memory (the store and reload of 40 bytes a joint, and every transpose of
 * the frames' joints, are saved).  Each value goes through the same
 * operations in the same order as on the two-step path, so the matrices
 * are the same to the bit: a stream and a `sample` of one pose agree
 * whichever path each took.
 */
#include "daemon/anim/clip.h"
#include "daemon/anim/clip_sampler.h"
#include "daemon/anim/pose.h"

#include <errno.h>
#include <stdlib.h>

/* Floats in one group's block of one frame (clip.h: frame_blocks). */
#define BLOCK_FLOATS 80

#if defined(MATH3D_AVX2_DISPATCH)
#include "daemon/anim/avx2.h"

/* (b - a) * frac + a, as clip_sample.c's lerps compute it. */
#define LERP(a, b, f) _mm256_fmadd_ps(_mm256_sub_ps((b), (a)), (f), (a))

/* Row i of a group's block: component i of its eight joints. */
#define ROW(block, i) _mm256_load_ps((block) + 8 * (i))

/* The local matrices of eight joints blended from their blocks in frames
 * a and b, with the slerp weights W0, W1 of their rotations
 * (blend_matrices_avx2 makes them first). */
static inline AVX2_FMA void blend_matrices8(const float *a, const float *b, __m256 frac,
					    __m256 W0, __m256 W1, mat34 *out)
{
	const __m256 one = _mm256_set1_ps(1.0f);
	__m256 qx = _mm256_fmadd_ps(W0, ROW(a, 3), _mm256_mul_ps(W1, ROW(b, 3)));
	__m256 qy = _mm256_fmadd_ps(W0, ROW(a, 4), _mm256_mul_ps(W1, ROW(b, 4)));
	__m256 qz = _mm256_fmadd_ps(W0, ROW(a, 5), _mm256_mul_ps(W1, ROW(b, 5)));
	__m256 qw = _mm256_fmadd_ps(W0, ROW(a, 6), _mm256_mul_ps(W1, ROW(b, 6)));
	__m256 sx = one, sy = one, sz = one;
	/* When both frames' scales are all 1, so is every blend of them. */
	__m256 unit = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(ROW(a, 7), one, _CMP_EQ_OQ),
						  _mm256_cmp_ps(ROW(a, 8), one, _CMP_EQ_OQ)),
				    _mm256_cmp_ps(ROW(a, 9), one, _CMP_EQ_OQ));
	int scaled;

	unit = _mm256_and_ps(unit, _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(ROW(b, 7), one, _CMP_EQ_OQ),
							      _mm256_cmp_ps(ROW(b, 8), one, _CMP_EQ_OQ)),
						_mm256_cmp_ps(ROW(b, 9), one, _CMP_EQ_OQ)));
	scaled = _mm256_movemask_ps(unit) != 0xff;
	if (scaled) {
		sx = LERP(ROW(a, 7), ROW(b, 7), frac);
		sy = LERP(ROW(a, 8), ROW(b, 8), frac);
		sz = LERP(ROW(a, 9), ROW(b, 9), frac);
	}
	avx2_local_matrices8_store(qx, qy, qz, qw, scaled, sx, sy, sz,
				   LERP(ROW(a, 0), ROW(b, 0), frac), LERP(ROW(a, 1), ROW(b, 1), frac),
				   LERP(ROW(a, 2), ROW(b, 2), frac), out);
}

/* Groups of eight a pass covers: the weights of 64 joints stay in L1. */
#define GROUPS_A_PASS 8

/*
 * Frame f blended with frame f + 1 at frac, as local matrices; `local`
 * holds the pose of the joints past the last whole group of eight.  In two
 * passes over up to 64 joints, as clip_blend_frames does: the slerp
 * weights first (a chain of some 140 cycles a group through two square
 * roots and a division, short loop bodies that the CPU overlaps), then the
 * matrices.
 */
static AVX2_FMA void blend_matrices_avx2(const struct clip *c, uint64_t f, float frac,
					 struct transform *local, mat34 *out)
{
	__m256 k0[QUAT_SLERP_DEGREE + 1], k1[QUAT_SLERP_DEGREE + 1];
	__m256 W0[GROUPS_A_PASS], W1[GROUPS_A_PASS];
	__m256 fr = _mm256_set1_ps(frac);
	uint32_t n = c->joint_count, groups = n / 8, g = 0;
	const float *a = c->frame_blocks + (size_t)f * groups * BLOCK_FLOATS;
	const float *b = a + (size_t)groups * BLOCK_FLOATS;
	const struct transform *ta = c->frames + (size_t)f * n, *tb = ta + n;
	struct quat_slerp_coef k;

	quat_slerp_prepare(&k, frac);
	for (int i = 0; i <= QUAT_SLERP_DEGREE; i++) {
		k0[i] = _mm256_set1_ps(k.k0[i]);
		k1[i] = _mm256_set1_ps(k.k1[i]);
	}
	while (g < groups) {
		uint32_t m = groups - g < GROUPS_A_PASS ? groups - g : GROUPS_A_PASS;

		const float *pa = a + (size_t)g * BLOCK_FLOATS, *pb = b + (size_t)g * BLOCK_FLOATS;

		for (uint32_t i = 0; i < m; i++) {
			const float *ga = pa + i * BLOCK_FLOATS, *gb = pb + i * BLOCK_FLOATS;
			/* The sums in avx2_rotation_dots8's order: (x + z) + (y + w). */
			__m256 dot = _mm256_add_ps(
				_mm256_add_ps(_mm256_mul_ps(ROW(ga, 3), ROW(gb, 3)),
					      _mm256_mul_ps(ROW(ga, 5), ROW(gb, 5))),
				_mm256_add_ps(_mm256_mul_ps(ROW(ga, 4), ROW(gb, 4)),
					      _mm256_mul_ps(ROW(ga, 6), ROW(gb, 6))));

			avx2_slerp_weights8(dot, k0, k1, &W0[i], &W1[i]);
		}
		for (uint32_t i = 0; i < m; i++)
			blend_matrices8(pa + i * BLOCK_FLOATS, pb + i * BLOCK_FLOATS, fr, W0[i], W1[i],
					out + 8 * (g + i));
		g += m;
	}
	if (8 * groups < n) {
		/* The two-step path's own tail: its blend and its matrices
		 * run their narrower kernels from this joint on. */
		uint32_t j = 8 * groups;

		clip_blend_frames(ta + j, tb + j, n - j, frac, local + j);
		pose_local_matrices(local + j, n - j, out + j);
	}
}

/* The frame the uniform clip blends with the next at t, or frame_count
 * when sampling it copies a frame or has none. */
static uint64_t uniform_blend_at(const struct clip *c, int64_t t_ns, float *frac)
{
	uint64_t f;

	if (c->frame_count == 0)
		return 0;
	f = clip_frame_at(t_ns > c->duration_ns ? c->duration_ns : t_ns, c->frame_rate, frac);
	return f >= (uint64_t)c->frame_count - 1 ? c->frame_count : f;
}
#endif

/* Root motion on matrices made without the pose: joint 0's translation is
 * its matrix's last column, exactly, moved as the pose's would be. */
static void clip_matrices_root_motion(const struct clip *c, enum root_motion rm,
				      const struct clip_time *ct, mat34 *out)
{
	struct transform root;

	if (rm == ROOT_RAW || c->joint_count == 0)
		return;
	root.t = vec3_make(out[0].m[0][3], out[0].m[1][3], out[0].m[2][3]);
	clip_apply_root_motion(c, rm, ct, &root);
	out[0].m[0][3] = root.t.x;
	out[0].m[1][3] = root.t.y;
	out[0].m[2][3] = root.t.z;
}

void clip_sample_matrices(const struct clip *c, int64_t t_ns, int64_t g_ns, enum root_motion rm,
			  const struct clip_time *ct, struct transform *local, mat34 *out)
{
	uint32_t n = c->joint_count;

	if (c->packed != NULL && c->frame_count > 0 && clip_packed_matrices(c, t_ns, out)) {
		clip_matrices_root_motion(c, rm, ct, out);
		return;
	}
#if defined(MATH3D_AVX2_DISPATCH)
	if (c->frame_blocks != NULL && math3d_simd_level() == MATH3D_SIMD_AVX2) {
		float frac;
		uint64_t f = uniform_blend_at(c, t_ns, &frac);

		if (f < c->frame_count) {
			blend_matrices_avx2(c, f, frac, local, out);
			clip_matrices_root_motion(c, rm, ct, out);
			return;
		}
	}
#endif
	clip_sample_at(c, t_ns, g_ns, local);
	clip_apply_root_motion(c, rm, ct, local);
	pose_local_matrices(local, n, out);
}

int clip_block_frames(struct clip *c)
{
	size_t groups = c->joint_count / 8, bytes;
	float *blocks;

	if (c->frames == NULL || groups == 0 || c->frame_blocks != NULL)
		return 0;
	/* frame_count * joint_count transforms are already allocated, so
	 * this product of smaller factors fits. */
	bytes = (size_t)c->frame_count * groups * BLOCK_FLOATS * sizeof(float) + 32;
	c->block_storage = malloc(bytes);
	if (c->block_storage == NULL)
		return -ENOMEM;
	c->block_storage_bytes = bytes;
	blocks = (float *)(((uintptr_t)c->block_storage + 31) & ~(uintptr_t)31);
	for (size_t f = 0; f < c->frame_count; f++)
		for (size_t g = 0; g < groups; g++)
			for (size_t l = 0; l < 8; l++) {
				const struct transform *x = &c->frames[f * c->joint_count + 8 * g + l];
				float *o = blocks + (f * groups + g) * BLOCK_FLOATS + l;
				const float v[10] = { x->t.x, x->t.y, x->t.z, x->r.x, x->r.y,
						      x->r.z, x->r.w, x->s.x, x->s.y, x->s.z };

				for (size_t i = 0; i < 10; i++)
					o[8 * i] = v[i];
			}
	c->frame_blocks = blocks;
	return 0;
}
