/*
 * clip_matrices.c - a clip's sampled pose as local matrices, without the
 * pose in between for uniform clips.
 *
 * Sampling a uniform clip (clip_sample.c) writes the blended pose, and
 * pose.c's first pass reads it back to make each joint's matrix.  On an
 * AVX2 CPU both run eight joints at a time, so here they are one kernel
 * after the rotations' slerp weights: the two frames' joints are
 * transposed to one component per register once, blended there, and
 * turned into matrices without the pose going through memory (the store
 * and reload of 40 bytes a joint, and the blend's own transposes, are
 * saved).  Each value goes through the same operations in the same order
 * as on the two-step path, so the matrices are the same to the bit: a
 * stream and a `sample` of one pose agree whichever path each took.
 */
#include "daemon/anim/clip.h"
#include "daemon/anim/clip_sampler.h"
#include "daemon/anim/pose.h"

#if defined(MATH3D_AVX2_DISPATCH)
#include "daemon/anim/avx2.h"

/* (b - a) * frac + a, as clip_sample.c's lerps compute it. */
#define LERP(a, b, f) _mm256_fmadd_ps(_mm256_sub_ps((b), (a)), (f), (a))

/* Four floats from `member` on of joints 0-7 of x, joint j and j + 4 in
 * one register: TRANSPOSE4X2 then gives one float per register, joint j
 * in lane j. */
#define LOAD_T8(x, member, v0, v1, v2, v3) do { \
	(v0) = avx2_load2(&(x)[0].member, &(x)[4].member); \
	(v1) = avx2_load2(&(x)[1].member, &(x)[5].member); \
	(v2) = avx2_load2(&(x)[2].member, &(x)[6].member); \
	(v3) = avx2_load2(&(x)[3].member, &(x)[7].member); \
} while (0)

/* The local matrices of eight joints blended from frames a and b, with
 * the slerp weights W0, W1 of their rotations (blend_matrices_avx2 makes
 * them first). */
static inline AVX2_FMA void blend_matrices8(const struct transform *a, const struct transform *b,
					    __m256 frac, __m256 W0, __m256 W1, mat34 *out)
{
	__m256 ax, ay, az, aw, bx, by, bz, bw, qx, qy, qz, qw;
	__m256 at0, at1, at2, at3, bt0, bt1, bt2, bt3;
	__m256 as0, as1, as2, as3, bs0, bs1, bs2, bs3;
	__m256 sx = _mm256_set1_ps(1.0f), sy = sx, sz = sx;
	int scaled;

	LOAD_T8(a, r.x, ax, ay, az, aw);
	LOAD_T8(b, r.x, bx, by, bz, bw);
	TRANSPOSE4X2(ax, ay, az, aw);
	TRANSPOSE4X2(bx, by, bz, bw);
	qx = _mm256_fmadd_ps(W0, ax, _mm256_mul_ps(W1, bx));
	qy = _mm256_fmadd_ps(W0, ay, _mm256_mul_ps(W1, by));
	qz = _mm256_fmadd_ps(W0, az, _mm256_mul_ps(W1, bz));
	qw = _mm256_fmadd_ps(W0, aw, _mm256_mul_ps(W1, bw));

	/* Scales: when both frames' are all 1, so is every blend of them. */
	LOAD_T8(a, r.w, as0, as1, as2, as3);
	LOAD_T8(b, r.w, bs0, bs1, bs2, bs3);
	scaled = !(avx2_unit_scale8(as0) && avx2_unit_scale8(as1) && avx2_unit_scale8(as2) &&
		   avx2_unit_scale8(as3) && avx2_unit_scale8(bs0) && avx2_unit_scale8(bs1) &&
		   avx2_unit_scale8(bs2) && avx2_unit_scale8(bs3));
	if (scaled) {
		TRANSPOSE4X2(as0, as1, as2, as3);
		TRANSPOSE4X2(bs0, bs1, bs2, bs3);
		sx = LERP(as1, bs1, frac);
		sy = LERP(as2, bs2, frac);
		sz = LERP(as3, bs3, frac);
	}

	LOAD_T8(a, t.x, at0, at1, at2, at3);
	LOAD_T8(b, t.x, bt0, bt1, bt2, bt3);
	TRANSPOSE4X2(at0, at1, at2, at3);
	TRANSPOSE4X2(bt0, bt1, bt2, bt3);
	avx2_local_matrices8_store(qx, qy, qz, qw, scaled, sx, sy, sz, LERP(at0, bt0, frac),
				   LERP(at1, bt1, frac), LERP(at2, bt2, frac), out);
}

/* Groups of eight a pass covers: the weights of 64 joints stay in L1. */
#define GROUPS_A_PASS 8

/*
 * Frames a and b blended at frac, as local matrices; `local` holds the
 * pose of the joints past the last whole group of eight.  In two passes
 * over up to 64 joints, as clip_blend_frames does: the slerp weights
 * first (a chain of some 140 cycles a group through two square roots and
 * a division, short loop bodies that the CPU overlaps), then the matrices.
 */
static AVX2_FMA void blend_matrices_avx2(const struct transform *a, const struct transform *b,
					 uint32_t n, float frac, struct transform *local,
					 mat34 *out)
{
	__m256 k0[QUAT_SLERP_DEGREE + 1], k1[QUAT_SLERP_DEGREE + 1];
	__m256 W0[GROUPS_A_PASS], W1[GROUPS_A_PASS];
	__m256 f = _mm256_set1_ps(frac);
	struct quat_slerp_coef k;
	uint32_t j = 0;

	quat_slerp_prepare(&k, frac);
	for (int i = 0; i <= QUAT_SLERP_DEGREE; i++) {
		k0[i] = _mm256_set1_ps(k.k0[i]);
		k1[i] = _mm256_set1_ps(k.k1[i]);
	}
	while (n - j >= 8) {
		uint32_t groups = (n - j) / 8 < GROUPS_A_PASS ? (n - j) / 8 : GROUPS_A_PASS;

		for (uint32_t g = 0; g < groups; g++)
			avx2_slerp_weights8(avx2_rotation_dots8(a + j + 8 * g, b + j + 8 * g), k0, k1,
					    &W0[g], &W1[g]);
		for (uint32_t g = 0; g < groups; g++)
			blend_matrices8(a + j + 8 * g, b + j + 8 * g, f, W0[g], W1[g],
					out + j + 8 * g);
		j += 8 * groups;
	}
	if (j < n) {
		/* The two-step path's own tail: its blend and its matrices
		 * run their narrower kernels from this joint on. */
		clip_blend_frames(a + j, b + j, n - j, frac, local + j);
		pose_local_matrices(local + j, n - j, out + j);
	}
}

/* The frames the uniform clip blends at t (a, and b right after it), or
 * NULL when sampling it copies a frame or has none. */
static const struct transform *uniform_blend_at(const struct clip *c, int64_t t_ns, float *frac)
{
	uint64_t f;

	if (c->frame_count == 0)
		return NULL;
	f = clip_frame_at(t_ns > c->duration_ns ? c->duration_ns : t_ns, c->frame_rate, frac);
	if (f >= (uint64_t)c->frame_count - 1)
		return NULL;
	return c->frames + (size_t)f * c->joint_count;
}
#endif

void clip_sample_matrices(const struct clip *c, int64_t t_ns, int64_t g_ns, enum root_motion rm,
			  const struct clip_time *ct, struct transform *local, mat34 *out)
{
	uint32_t n = c->joint_count;

#if defined(MATH3D_AVX2_DISPATCH)
	if (c->frames != NULL && n >= 8 && math3d_simd_level() == MATH3D_SIMD_AVX2) {
		float frac;
		const struct transform *a = uniform_blend_at(c, t_ns, &frac);

		if (a != NULL) {
			blend_matrices_avx2(a, a + n, n, frac, local, out);
			if (rm != ROOT_RAW) {
				/* Joint 0's translation is its matrix's last
				 * column, exactly: moved as the pose's would be. */
				struct transform root = { .t = vec3_make(out[0].m[0][3], out[0].m[1][3],
									 out[0].m[2][3]) };

				clip_apply_root_motion(c, rm, ct, &root);
				out[0].m[0][3] = root.t.x;
				out[0].m[1][3] = root.t.y;
				out[0].m[2][3] = root.t.z;
			}
			return;
		}
	}
#endif
	clip_sample_at(c, t_ns, g_ns, local);
	clip_apply_root_motion(c, rm, ct, local);
	pose_local_matrices(local, n, out);
}
