/*
 * clip_compress and the compressed sampler (clip_pack.c, clip_unpack.c):
 *
 *  - round trip: random clips of every joint count from 1 to 40 (whole
 *    blocks of eight and every padded one) and several frame counts
 *    (one frame, one segment, segments and a short last one), with still
 *    joints, still channels, quaternions whose sign flips from frame to
 *    frame, rotations through w = 0, huge and tiny ranges, scales, stay
 *    within the precision on the metric, measured here at every frame in
 *    model space, and the builder reports what is measured here;
 *  - the same input gives the same bytes and the same poses; random
 *    access gives what playback gives;
 *  - clip_sample_matrices gives the bits of clip_sample_at, root motion
 *    and pose_local_matrices on every joint count, at each SIMD level; the
 *    portable decoder agrees with the AVX2 one within float rounding;
 *  - a still clip costs next to nothing; clip_bytes counts the codec's
 *    one allocation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/pose.h"
#include "daemon/anim/skeleton.h"

#include "tests/support/shell_error.h"

static uint32_t rng = 2024;

static float rndf(void)
{
	rng = rng * 1664525u + 1013904223u;
	return (float)(rng >> 8) / 16777216.0f;
}

enum flavour { SMOOTH, SIGN_FLIPS, HUGE_RANGE, TINY_RANGE, SCALED, THROUGH_W0, FLAVOURS };

struct fixture {
	struct skeleton *skel;
	struct clip *raw, *packed;
};

static quat axis_angle(float ax, float ay, float az, float angle)
{
	float n = sqrtf(ax * ax + ay * ay + az * az), s = sinf(angle / 2) / (n > 0 ? n : 1);

	return quat_make(ax * s, ay * s, az * s, cosf(angle / 2));
}

/* A raw clip of n joints and f frames of the flavour, and its skeleton. */
static struct clip *make_raw(uint32_t n, uint32_t frames, enum flavour fl, struct skeleton **skel)
{
	struct clip *c = calloc(1, sizeof *c);
	struct skeleton *s = skeleton_new(n);

	assert_non_null(c);
	assert_non_null(s);
	for (uint32_t j = 1; j < n; j++)
		s->parents[j] = (int32_t)(rndf() * (float)j);
	c->joint_count = n;
	c->frame_count = frames;
	c->frame_rate = 30;
	c->duration_ns = clip_frames_duration(frames - 1, 30);
	c->frames = calloc((size_t)n * frames, sizeof *c->frames);
	assert_non_null(c->frames);
	for (uint32_t j = 0; j < n; j++) {
		int still = rndf() < 0.2f, still_r = rndf() < 0.2f, moves_t = j == 0 || rndf() < 0.2f;
		float ax = rndf() - 0.5f, ay = rndf() - 0.5f, az = rndf() - 0.5f;
		float a0 = 6.2831853f * rndf(), speed = 0.2f * rndf();
		float bone = fl == HUGE_RANGE ? 500.0f : fl == TINY_RANGE ? 0.01f : 10.0f;
		vec3 t0 = vec3_make(bone * (rndf() - 0.5f), bone * (rndf() - 0.5f), bone * (rndf() - 0.5f));

		for (uint32_t f = 0; f < frames; f++) {
			struct transform *x = &c->frames[(size_t)f * n + j];
			float k = still ? 0.0f : (float)f;

			x->t = t0;
			if (moves_t && !still)
				x->t = vec3_add(t0, vec3_make(bone * 0.1f * sinf(0.3f * k),
							      fl == HUGE_RANGE ? 20.0f * k : bone * 0.05f * k,
							      bone * 0.05f * cosf(0.2f * k)));
			if (fl == THROUGH_W0)
				x->r = axis_angle(ax, ay, az, 3.14159265f + 0.1f * k - 0.8f);
			else
				x->r = axis_angle(ax, ay, az, a0 + (still_r ? 0.0f : speed * k));
			if (fl == SIGN_FLIPS && (f + j) % 3 == 0)
				x->r = quat_make(-x->r.x, -x->r.y, -x->r.z, -x->r.w);
			x->s = fl == SCALED && !still ? vec3_make(1.0f + 0.1f * sinf(k), 1, 0.5f)
						       : vec3_make(1, 1, 1);
		}
	}
	memcpy(s->rest, c->frames, n * sizeof *s->rest);
	*skel = s;
	return c;
}

/* A copy of the raw clip's frames, compressed. */
static struct clip *packed_copy(const struct clip *raw, const struct skeleton *s,
				const struct clip_codec_params *p)
{
	struct clip *c = calloc(1, sizeof *c);
	size_t bytes = (size_t)raw->frame_count * raw->joint_count * sizeof *raw->frames;

	assert_non_null(c);
	*c = *raw;
	c->frames = malloc(bytes);
	assert_non_null(c->frames);
	memcpy(c->frames, raw->frames, bytes);
	assert_int_equal(clip_compress(c, s->parents, p), 0);
	assert_non_null(c->packed);
	assert_null(c->frames);
	return c;
}

static void free_pair(struct clip *raw, struct clip *packed, struct skeleton *s)
{
	clip_free(raw);
	clip_free(packed);
	skeleton_free(s);
}

static void test_round_trip_within_precision(void **state)
{
	static const uint32_t frame_counts[] = { 1, 2, 17, 33, 50 };

	(void)state;
	for (uint32_t n = 1; n <= 40; n++)
		for (size_t fi = 0; fi < sizeof frame_counts / sizeof *frame_counts; fi++)
			for (int fl = 0; fl < FLAVOURS; fl++) {
				/* A precision float can hold at the clip's size:
				 * coordinates of thousands of units round at 1e-4
				 * and more; bones of 0.01 need a finer one. */
				const struct clip_codec_params prm = {
					fl == HUGE_RANGE ? 0.05f : fl == TINY_RANGE ? 1e-5f : 0.004f,
					fl == TINY_RANGE ? 0.003f : 1.2f
				};
				struct skeleton *s;
				struct clip *raw = make_raw(n, frame_counts[fi], (enum flavour)fl, &s);
				struct clip *pk = packed_copy(raw, s, &prm);
				float built, precision, shell;
				double e = shell_error(s, raw, pk, prm.shell_distance);

				assert_true(clip_packed_error(pk, &built, &precision, &shell));
				assert_true(precision == prm.precision && shell == prm.shell_distance);
				if (!(e <= prm.precision * 1.001 && built <= prm.precision))
					fail_msg("%u joints, %u frames, flavour %d: error %g (builder %g)", n,
						 frame_counts[fi], fl, e, built);
				/* The builder measures what the sampler gives (in
				 * float; here in double, through the raw sampler's
				 * blend at fraction 0, whose slerp weights round:
				 * 2e-6 at the tiny flavour's scale). */
				if (!(fabs(e - built) <= fmax(0.05 * prm.precision, 2e-6)))
					fail_msg("%u joints, %u frames, flavour %d: measured %g, builder %g",
						 n, frame_counts[fi], fl, e, built);
				free_pair(raw, pk, s);
			}
}

static void test_same_input_same_bytes(void **state)
{
	struct skeleton *s;
	struct clip *raw = make_raw(23, 40, SIGN_FLIPS, &s);
	struct clip *a = packed_copy(raw, s, NULL), *b = packed_copy(raw, s, NULL);
	struct transform pa[23], pb[23], pc[23];

	(void)state;
	assert_int_equal(clip_packed_bytes(a), clip_packed_bytes(b));
	assert_int_equal(clip_bytes(a), clip_bytes(b));
	for (int64_t t = 0; t <= raw->duration_ns; t += raw->duration_ns / 97) {
		clip_sample(a, t, pa);
		/* Elsewhere first: random access has no state to disturb. */
		clip_sample(b, raw->duration_ns - t, pc);
		clip_sample(b, t, pb);
		assert_memory_equal(pa, pb, sizeof pa);
	}
	clip_free(b);
	free_pair(raw, a, s);
}

/* Two-step local matrices of clip c at playback time e. */
static void two_step(const struct clip *c, int64_t e, enum root_motion rm, struct transform *local,
		     mat34 *out)
{
	struct clip_time ct = clip_map_time(c, e, LOOP_LOOP);

	clip_sample_at(c, ct.t_ns, ct.t_ns, local);
	clip_apply_root_motion(c, rm, &ct, local);
	pose_local_matrices(local, c->joint_count, out);
}

static void check_matrices(void)
{
	for (uint32_t n = 1; n <= 40; n++) {
		struct skeleton *s;
		struct clip *raw = make_raw(n, 35, n % 2 ? SCALED : SMOOTH, &s);
		struct clip *pk = packed_copy(raw, s, NULL);
		struct transform local[40];
		mat34 one[40], two[40];
		const int64_t d = pk->duration_ns;
		const int64_t times[] = { 0, 1, d / 3, clip_frames_duration(16, 30),
					  clip_frames_duration(17, 30) - 1, d - 1, d, d + 5, 7 * d / 2,
					  -d / 5 };

		pk->root_base = vec3_make(1, 2, 3);
		pk->root_delta = vec3_make(4, 0, -1);
		for (size_t i = 0; i < sizeof times / sizeof *times; i++)
			for (int rm = ROOT_RAW; rm <= ROOT_IN_PLACE; rm++) {
				struct clip_time ct = clip_map_time(pk, times[i], LOOP_LOOP);

				clip_sample_matrices(pk, ct.t_ns, ct.t_ns, (enum root_motion)rm, &ct, local,
						     one);
				two_step(pk, times[i], (enum root_motion)rm, local, two);
				assert_memory_equal(one, two, n * sizeof *one);
			}
		free_pair(raw, pk, s);
	}
}

static void test_matrices_same_bits_at_every_level(void **state)
{
	enum math3d_simd best = math3d_simd_level();

	(void)state;
	check_matrices();
	if (best != MATH3D_SIMD_BASE) {
		math3d_simd_limit(MATH3D_SIMD_BASE);
		check_matrices();
		math3d_simd_limit(best);
	}
}

/* The portable decoder and blend agree with the AVX2 kernel but for
 * float rounding. */
static void test_levels_agree(void **state)
{
	enum math3d_simd best = math3d_simd_level();
	struct skeleton *s;
	struct clip *raw = make_raw(37, 50, SCALED, &s), *pk = packed_copy(raw, s, NULL);
	struct transform a[37], b[37];

	(void)state;
	if (best == MATH3D_SIMD_BASE) {
		free_pair(raw, pk, s);
		skip();
	}
	for (int64_t t = 0; t <= pk->duration_ns; t += pk->duration_ns / 61) {
		clip_sample(pk, t, a);
		math3d_simd_limit(MATH3D_SIMD_BASE);
		clip_sample(pk, t, b);
		math3d_simd_limit(best);
		for (uint32_t j = 0; j < 37; j++) {
			const float *x = &a[j].t.x, *y = &b[j].t.x;

			for (int k = 0; k < 10; k++)
				assert_true(fabsf(x[k] - y[k]) <= 1e-5f * (1.0f + fabsf(x[k])));
		}
	}
	free_pair(raw, pk, s);
}

/* A pose clip that never moves: a few bytes a joint, exact. */
static void test_still_clip(void **state)
{
	struct skeleton *s;
	struct clip *raw = make_raw(110, 31, SMOOTH, &s), *pk;

	(void)state;
	for (uint32_t f = 1; f < 31; f++)
		memcpy(raw->frames + (size_t)f * 110, raw->frames, 110 * sizeof *raw->frames);
	pk = packed_copy(raw, s, NULL);
	assert_true(clip_packed_bytes(pk) < 110 * 40);
	assert_true(shell_error(s, raw, pk, 1.2f) < 1e-4);
	free_pair(raw, pk, s);
}

/* The rig's size over every frame, as the codec takes it (clip.h):
 * the largest diagonal of the box around the joints in model space. */
static double rig_size(const struct skeleton *s, const struct clip *c)
{
	uint32_t n = c->joint_count;
	mat34 *m = calloc(n, sizeof *m);
	double size = 0;

	assert_non_null(m);
	for (uint32_t f = 0; f < c->frame_count; f++) {
		double lo[3], hi[3], d2 = 0;

		pose_local_to_model(s, c->frames + (size_t)f * n, m);
		for (int a = 0; a < 3; a++)
			lo[a] = hi[a] = m[0].m[a][3];
		for (uint32_t j = 1; j < n; j++)
			for (int a = 0; a < 3; a++) {
				lo[a] = fmin(lo[a], m[j].m[a][3]);
				hi[a] = fmax(hi[a], m[j].m[a][3]);
			}
		for (int a = 0; a < 3; a++)
			d2 += (hi[a] - lo[a]) * (hi[a] - lo[a]);
		size = fmax(size, sqrt(d2));
	}
	free(m);
	return size;
}

/* Without params, precision and shell follow the rig's size: the same
 * motion in units 100 times smaller (inches and meters, nearly) gets a
 * precision 100 times finer, about as many bytes, and keeps it; a rig
 * that is a point gets the inch defaults. */
static void test_auto_params_follow_size(void **state)
{
	struct skeleton *s;
	struct clip *raw = make_raw(24, 40, SMOOTH, &s), *small, *pk, *pk_small;
	size_t bytes = (size_t)raw->frame_count * raw->joint_count * sizeof *raw->frames;
	float built, precision, shell, built_s, precision_s, shell_s;
	double size = rig_size(s, raw);

	(void)state;
	small = calloc(1, sizeof *small);
	assert_non_null(small);
	*small = *raw;
	small->frames = malloc(bytes);
	assert_non_null(small->frames);
	for (size_t i = 0; i < (size_t)raw->frame_count * raw->joint_count; i++) {
		small->frames[i] = raw->frames[i];
		small->frames[i].t = vec3_scale(raw->frames[i].t, 0.01f);
	}
	pk = packed_copy(raw, s, NULL);
	pk_small = packed_copy(small, s, NULL);
	assert_true(clip_packed_error(pk, &built, &precision, &shell));
	assert_true(clip_packed_error(pk_small, &built_s, &precision_s, &shell_s));
	assert_true(fabs(precision - CLIP_CODEC_AUTO_PRECISION * size) <= 1e-3 * precision);
	assert_true(fabs(shell - CLIP_CODEC_AUTO_SHELL_DISTANCE * size) <= 1e-3 * shell);
	assert_true(fabs(precision_s / precision - 0.01) < 1e-4);
	assert_true(fabs(shell_s / shell - 0.01) < 1e-4);
	assert_true(shell_error(s, raw, pk, shell) <= precision * 1.001);
	assert_true(shell_error(s, small, pk_small, shell_s) <= precision_s * 1.001);
	assert_true(clip_packed_bytes(pk_small) < clip_packed_bytes(pk) * 5 / 4 &&
		    clip_packed_bytes(pk) < clip_packed_bytes(pk_small) * 5 / 4);
	clip_free(small);
	clip_free(pk_small);
	free_pair(raw, pk, s);

	raw = make_raw(1, 10, SMOOTH, &s);
	for (uint32_t f = 0; f < 10; f++)
		raw->frames[f].t = vec3_make(0, 0, 0);
	pk = packed_copy(raw, s, NULL);
	assert_true(clip_packed_error(pk, &built, &precision, &shell));
	assert_true(precision == CLIP_CODEC_DEFAULT_PRECISION &&
		    shell == CLIP_CODEC_DEFAULT_SHELL_DISTANCE);
	free_pair(raw, pk, s);
}

/* clip_bytes: the struct and the codec's allocation, nothing of the
 * frames left. */
static void test_bytes(void **state)
{
	struct skeleton *s;
	struct clip *raw = make_raw(19, 20, SMOOTH, &s), *pk = packed_copy(raw, s, NULL);

	(void)state;
	assert_int_equal(clip_bytes(pk), sizeof *pk + clip_packed_bytes(pk));
	assert_int_equal(clip_bytes(raw), sizeof *raw + 19 * 20 * sizeof(struct transform));
	assert_int_equal(clip_compress(pk, s->parents, NULL), 0);     /* already done */
	free_pair(raw, pk, s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_within_precision),
		cmocka_unit_test(test_same_input_same_bytes),
		cmocka_unit_test(test_matrices_same_bits_at_every_level),
		cmocka_unit_test(test_levels_agree),
		cmocka_unit_test(test_still_clip),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_auto_params_follow_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
