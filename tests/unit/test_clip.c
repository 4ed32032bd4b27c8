/*
 * clip: time mapping (loop, once, pingpong, negative and huge times, zero
 * length), the uniform sampler (exact frames, blends, the SSE2 path
 * against a double reference), keyed tracks in every interpolation, root
 * motion, bounds and the seconds <-> nanoseconds conversions.
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

#define S2 0.70710678f
#define MS 1000000LL                    /* ns per millisecond */

static void assert_near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.9g, want %.9g (tolerance %g)", got, want, tol);
}

static void assert_vec(vec3 v, float x, float y, float z, double tol)
{
	assert_near(v.x, x, tol);
	assert_near(v.y, y, tol);
	assert_near(v.z, z, tol);
}

static void assert_quat(quat q, float x, float y, float z, float w, double tol)
{
	assert_near(q.x, x, tol);
	assert_near(q.y, y, tol);
	assert_near(q.z, z, tol);
	assert_near(q.w, w, tol);
}

/* A uniform clip of identity frames; frame f, joint j is FR(c, f, j). */
static struct clip *make_uniform(uint32_t joints, uint32_t frames, uint32_t rate)
{
	struct clip *c = calloc(1, sizeof *c);

	assert_non_null(c);
	c->joint_count = joints;
	c->frame_count = frames;
	c->frame_rate = rate;
	c->duration_ns = clip_frames_duration(frames - 1, rate);
	c->loop = LOOP_LOOP;
	c->frames = calloc((size_t)frames * joints, sizeof *c->frames);
	assert_non_null(c->frames);
	for (uint32_t i = 0; i < frames * joints; i++)
		c->frames[i] = transform_identity();
	return c;
}

#define FR(c, f, j) ((c)->frames[(size_t)(f) * (c)->joint_count + (j)])

/* Frame k of joint 0 sits at x = k: the sampled x is the frame position. */
static struct clip *make_counter(uint32_t frames, uint32_t rate)
{
	struct clip *c = make_uniform(1, frames, rate);

	for (uint32_t f = 0; f < frames; f++)
		FR(c, f, 0).t.x = (float)f;
	return c;
}

static float sample_x(const struct clip *c, int64_t t)
{
	struct transform out[1];

	clip_sample(c, t, out);
	return out[0].t.x;
}

static void test_durations(void **state)
{
	(void)state;
	assert_int_equal(clip_frames_duration(4, 10), 400 * MS);
	/* 11 frames at 24 fps = 458333333.33 ns, rounded up. */
	assert_int_equal(clip_frames_duration(11, 24), 458333334);
	assert_int_equal(clip_frames_duration(0, 24), 0);
	assert_int_equal(clip_frames_duration(5, 0), 0);
	assert_int_equal(clip_frames_duration(UINT64_MAX, 1), INT64_MAX);
}

static void test_identity_pose(void **state)
{
	struct clip *c = make_uniform(3, 4, 24);
	struct transform out[3];

	(void)state;
	for (int64_t t = -MS; t < 200 * MS; t += 7 * MS) {
		clip_sample(c, t, out);
		for (int j = 0; j < 3; j++) {
			assert_vec(out[j].t, 0, 0, 0, 0);
			assert_quat(out[j].r, 0, 0, 0, 1, 1e-7);
			assert_vec(out[j].s, 1, 1, 1, 0);
		}
	}
	clip_free(c);
}

static void test_one_joint_z90(void **state)
{
	struct clip *c = make_uniform(1, 3, 24);
	struct skeleton *s = skeleton_new(1);
	struct transform out[1];
	mat34 model[1];

	(void)state;
	assert_non_null(s);
	for (int f = 0; f < 3; f++)
		FR(c, f, 0).r = quat_make(0, 0, S2, S2);
	clip_sample(c, 30 * MS, out);
	pose_local_to_model(s, out, model);
	/* 90 deg about Z: the joint's +X is the model's +Y, its +Y the -X. */
	assert_vec(mat34_apply(&model[0], vec3_make(1, 0, 0)), 0, 1, 0, 1e-6);
	assert_vec(mat34_apply(&model[0], vec3_make(0, 2, 3)), -2, 0, 3, 1e-6);
	skeleton_free(s);
	clip_free(c);
}

static void test_half_way(void **state)
{
	struct clip *c = make_uniform(1, 2, 10);
	struct transform out[1];
	float s = sinf((float)M_PI / 8), co = cosf((float)M_PI / 8);

	(void)state;
	FR(c, 1, 0).t = vec3_make(2, 4, 6);
	FR(c, 1, 0).r = quat_make(0, 0, S2, S2);
	FR(c, 1, 0).s = vec3_make(3, 3, 3);
	/* 50 ms at 10 fps: exactly half way.  Translation and scale at the
	 * midpoints, rotation at half the angle (45 deg about Z). */
	clip_sample(c, 50 * MS, out);
	assert_vec(out[0].t, 1, 2, 3, 1e-6);
	assert_quat(out[0].r, 0, 0, s, co, 1e-6);
	assert_vec(out[0].s, 2, 2, 2, 1e-6);
	/* A quarter: 22.5 deg. */
	clip_sample(c, 25 * MS, out);
	assert_vec(out[0].t, 0.5f, 1, 1.5f, 1e-6);
	assert_quat(out[0].r, 0, 0, sinf((float)M_PI / 16), cosf((float)M_PI / 16), 1e-6);
	clip_free(c);
}

static void test_exact_frames(void **state)
{
	struct clip *c = make_counter(5, 10);

	(void)state;
	for (int k = 0; k <= 4; k++)
		assert_near(sample_x(c, k * 100 * MS), k, 1e-6);
	assert_near(sample_x(c, 150 * MS), 1.5, 1e-6);
	/* Clamped at both ends. */
	assert_near(sample_x(c, -5 * MS), 0, 0);
	assert_near(sample_x(c, 10000 * MS), 4, 0);
	clip_free(c);

	/* 24 fps: frames are not whole nanoseconds; time rounded up to the
	 * nanosecond still lands on the frame. */
	c = make_counter(12, 24);
	for (int k = 0; k <= 11; k++) {
		struct clip_time ct = clip_map_time(c, (int64_t)k * NS_PER_SEC / 24 + (k % 3 != 0),
						    LOOP_ONCE);
		float frac;

		assert_int_equal(clip_frame_at(ct.t_ns, 24, &frac), k);
		assert_near(sample_x(c, ct.t_ns), k, 1e-6);
	}
	clip_free(c);
}

static void test_loop_seam(void **state)
{
	struct clip *c = make_counter(5, 10);
	struct clip_time ct;
	float frac;

	(void)state;
	assert_int_equal(c->duration_ns, 400 * MS);
	/* The last frame is the seam: at time == duration a loop is back at
	 * frame 0, one cycle done. */
	ct = clip_map_time(c, 400 * MS, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 0);
	assert_int_equal(ct.cycles, 1);
	assert_int_equal(ct.ended, 0);
	ct = clip_map_time(c, 400 * MS - 1, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 400 * MS - 1);
	assert_int_equal(ct.cycles, 0);
	ct = clip_map_time(c, 2 * 400 * MS + 100 * MS, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 100 * MS);
	assert_int_equal(ct.cycles, 2);
	/* Played once: the last frame, held, and ended. */
	ct = clip_map_time(c, 400 * MS, LOOP_ONCE);
	assert_int_equal(ct.t_ns, 400 * MS);
	assert_int_equal(ct.ended, 1);
	assert_int_equal(ct.cycles, 0);
	assert_near(sample_x(c, ct.t_ns), 4, 0);
	ct = clip_map_time(c, 400 * MS - 1, LOOP_ONCE);
	assert_int_equal(ct.ended, 0);
	ct = clip_map_time(c, 99 * NS_PER_SEC, LOOP_ONCE);
	assert_int_equal(ct.t_ns, 400 * MS);
	assert_int_equal(ct.ended, 1);
	ct = clip_map_time(c, -NS_PER_SEC, LOOP_ONCE);
	assert_int_equal(ct.t_ns, 0);
	assert_int_equal(ct.ended, 0);
	clip_free(c);

	/* 24 fps: the duration is rounded up, so it is a hair past the seam:
	 * still frame 0 of cycle 1. */
	c = make_counter(12, 24);
	ct = clip_map_time(c, c->duration_ns, LOOP_LOOP);
	assert_int_equal(ct.cycles, 1);
	assert_int_equal(clip_frame_at(ct.t_ns, 24, &frac), 0);
	assert_true(frac < 1e-7f);
	assert_near(sample_x(c, ct.t_ns), 0, 1e-6);
	clip_free(c);
}

static void test_pingpong(void **state)
{
	struct clip *c = make_counter(5, 10);
	static const struct { int64_t e, t; } cases[] = {
		{ 0, 0 }, { 100 * MS, 100 * MS }, { 400 * MS, 400 * MS },
		{ 500 * MS, 300 * MS }, { 800 * MS, 0 }, { 1000 * MS, 200 * MS },
		{ -100 * MS, 100 * MS }, { -500 * MS, 300 * MS },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct clip_time ct = clip_map_time(c, cases[i].e, LOOP_PINGPONG);

		assert_int_equal(ct.t_ns, cases[i].t);
		assert_int_equal(ct.ended, 0);
	}
	/* Going back: at 0.55 s the pose is frame 2.5. */
	assert_near(sample_x(c, clip_map_time(c, 550 * MS, LOOP_PINGPONG).t_ns), 2.5, 1e-6);
	clip_free(c);
}

static void test_negative_elapsed(void **state)
{
	struct clip *c = make_counter(5, 10);
	struct clip_time ct;

	(void)state;
	/* Floor division: a loop played backwards before its start. */
	ct = clip_map_time(c, -100 * MS, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 300 * MS);
	assert_int_equal(ct.cycles, -1);
	ct = clip_map_time(c, -400 * MS, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 0);
	assert_int_equal(ct.cycles, -1);
	ct = clip_map_time(c, -450 * MS, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 350 * MS);
	assert_int_equal(ct.cycles, -2);
	ct = clip_map_time(c, -1, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 400 * MS - 1);
	assert_int_equal(ct.cycles, -1);
	clip_free(c);
}

static void test_huge_elapsed(void **state)
{
	struct clip *c = make_counter(12, 24);  /* 11 intervals per loop */
	struct clip_time ct;
	float frac;
	int64_t weeks3 = 1814400LL * NS_PER_SEC; /* 43,545,600 frames at 24 fps */
	int64_t years100 = 100LL * 365 * 86400 * NS_PER_SEC;

	(void)state;
	/* 43545600 = 11 * 3958690 + 10. */
	ct = clip_map_time(c, weeks3, LOOP_LOOP);
	assert_int_equal(ct.cycles, 3958690);
	assert_int_equal(clip_frame_at(ct.t_ns, 24, &frac), 10);
	assert_true(frac < 1e-7f);
	assert_near(sample_x(c, ct.t_ns), 10, 1e-6);
	/* Half a frame later (1/48 s, rounded up to the ns). */
	ct = clip_map_time(c, weeks3 + 20833334, LOOP_LOOP);
	assert_int_equal(clip_frame_at(ct.t_ns, 24, &frac), 10);
	assert_near(sample_x(c, ct.t_ns), 10.5, 1e-6);
	/* One nanosecond before three weeks: still frame 9, nearly 10. */
	ct = clip_map_time(c, weeks3 - 1, LOOP_LOOP);
	assert_int_equal(clip_frame_at(ct.t_ns, 24, &frac), 9);
	assert_true(frac > 0.999999f);
	/* 100 years: 75,686,400,000 frames = 11 * 6880581818 + 2. */
	ct = clip_map_time(c, years100, LOOP_LOOP);
	assert_int_equal(ct.cycles, 6880581818LL);
	assert_int_equal(clip_frame_at(ct.t_ns, 24, &frac), 2);
	assert_near(sample_x(c, ct.t_ns), 2, 1e-6);
	ct = clip_map_time(c, -years100, LOOP_LOOP);
	assert_int_equal(ct.cycles, -6880581819LL);
	assert_int_equal(clip_frame_at(ct.t_ns, 24, &frac), 9);
	/* The extremes do not overflow. */
	ct = clip_map_time(c, INT64_MAX, LOOP_LOOP);
	assert_true(ct.t_ns >= 0 && ct.t_ns <= c->duration_ns);
	ct = clip_map_time(c, INT64_MIN, LOOP_LOOP);
	assert_true(ct.t_ns >= 0 && ct.t_ns <= c->duration_ns && ct.cycles < 0);
	ct = clip_map_time(c, INT64_MIN, LOOP_PINGPONG);
	assert_true(ct.t_ns >= 0 && ct.t_ns <= c->duration_ns);
	ct = clip_map_time(c, INT64_MAX, LOOP_ONCE);
	assert_int_equal(ct.t_ns, c->duration_ns);
	assert_int_equal(ct.ended, 1);
	assert_near(sample_x(c, INT64_MAX), 11, 0);
	clip_free(c);
}

static void test_zero_length(void **state)
{
	struct clip *c = make_counter(1, 24);
	static const int64_t times[] = { 0, 1, -1, NS_PER_SEC, INT64_MAX, INT64_MIN };
	struct clip_time ct;

	(void)state;
	FR(c, 0, 0).t.x = 7;
	assert_int_equal(c->duration_ns, 0);
	for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
		for (int m = LOOP_LOOP; m <= LOOP_PINGPONG; m++) {
			ct = clip_map_time(c, times[i], (enum loop_mode)m);
			assert_int_equal(ct.t_ns, 0);
			assert_int_equal(ct.cycles, 0);
		}
		assert_near(sample_x(c, times[i]), 7, 0);
	}
	ct = clip_map_time(c, NS_PER_SEC, LOOP_ONCE);
	assert_int_equal(ct.ended, 1);
	ct = clip_map_time(c, -1, LOOP_ONCE);
	assert_int_equal(ct.ended, 0);
	clip_free(c);
}

/* ---- keyed ----------------------------------------------------------- */

/* One joint; the caller fills the tracks (static arrays: no key_storage). */
static struct clip *make_keyed(int64_t duration)
{
	struct clip *c = calloc(1, sizeof *c);

	assert_non_null(c);
	c->joint_count = 1;
	c->duration_ns = duration;
	c->tracks = calloc(1, sizeof *c->tracks);
	c->rest = calloc(1, sizeof *c->rest);
	assert_non_null(c->tracks);
	assert_non_null(c->rest);
	c->rest[0] = transform_identity();
	return c;
}

static struct transform sample1(const struct clip *c, int64_t t)
{
	struct transform out[1];

	clip_sample(c, t, out);
	return out[0];
}

static const int64_t key_t4[] = { 0, NS_PER_SEC, 2 * NS_PER_SEC, 3 * NS_PER_SEC };
static const float key_x4[] = { 0, 0, 0, 1, 0, 0, 3, 0, 0, 6, 0, 0 };

static void test_keyed_step_linear(void **state)
{
	struct clip *c = make_keyed(3 * NS_PER_SEC);
	struct track *tr = &c->tracks[0].t;

	(void)state;
	*tr = (struct track){ .count = 4, .interp = INTERP_STEP, .width = 3,
				.times = key_t4, .values = key_x4 };
	assert_near(sample1(c, 1500 * MS).t.x, 1, 0);
	assert_near(sample1(c, 2000 * MS).t.x, 3, 0);
	assert_near(sample1(c, 1999 * MS).t.x, 1, 0);
	tr->interp = INTERP_LINEAR;
	assert_near(sample1(c, 1500 * MS).t.x, 2, 1e-6);
	assert_near(sample1(c, 2250 * MS).t.x, 3.75, 1e-6);
	assert_near(sample1(c, 0).t.x, 0, 0);
	/* Clip time is clamped to the duration; the last key holds. */
	assert_near(sample1(c, 3 * NS_PER_SEC).t.x, 6, 0);
	assert_near(sample1(c, 9 * NS_PER_SEC).t.x, 6, 0);
	/* Untouched channels come from rest. */
	c->rest[0].s = vec3_make(2, 2, 2);
	assert_vec(sample1(c, 500 * MS).s, 2, 2, 2, 0);
	assert_quat(sample1(c, 500 * MS).r, 0, 0, 0, 1, 0);
	free(c->tracks);
	c->tracks = NULL;
	clip_free(c);
}

static void test_keyed_before_after_and_steps(void **state)
{
	static const int64_t times[] = { 500 * MS, NS_PER_SEC, NS_PER_SEC, 1500 * MS };
	static const float xs[] = { 1, 0, 0, 2, 0, 0, 5, 0, 0, 6, 0, 0 };
	struct clip *c = make_keyed(2 * NS_PER_SEC);

	(void)state;
	c->tracks[0].t = (struct track){ .count = 4, .interp = INTERP_LINEAR, .width = 3,
				.times = times, .values = xs };
	/* Before the first key: hold it.  After the last: hold it. */
	assert_near(sample1(c, 0).t.x, 1, 0);
	assert_near(sample1(c, 200 * MS).t.x, 1, 0);
	assert_near(sample1(c, 1800 * MS).t.x, 6, 0);
	/* Two keys at one time are a step: the later one wins from then. */
	assert_near(sample1(c, 750 * MS).t.x, 1.5, 1e-6);
	assert_near(sample1(c, NS_PER_SEC).t.x, 5, 0);
	assert_near(sample1(c, 1250 * MS).t.x, 5.5, 1e-6);
	free(c->tracks);
	c->tracks = NULL;
	clip_free(c);
}

static void test_keyed_catmull_rom(void **state)
{
	struct clip *c = make_keyed(3 * NS_PER_SEC);

	(void)state;
	c->tracks[0].t = (struct track){ .count = 4, .interp = INTERP_CATMULL_ROM, .width = 3,
				.times = key_t4, .values = key_x4 };
	/* Through the keys. */
	for (int k = 0; k < 4; k++)
		assert_near(sample1(c, k * NS_PER_SEC).t.x, key_x4[3 * k], 1e-6);
	/* Between keys 1 and 2 (p0..p3 = 0, 1, 3, 6), u = 0.5:
	 * 0.5 * (2*1 + (3-0)*0.5 + (0-5+12-6)*0.25 + (3*(1-3)+6-0)*0.125)
	 * = 0.5 * (2 + 1.5 + 0.25 + 0) = 1.875. */
	assert_near(sample1(c, 1500 * MS).t.x, 1.875, 1e-6);
	/* First interval (p0 = p1 = 0, p2 = 1, p3 = 3), u = 0.5:
	 * 0.5 * (0 + 0.5 + (0-0+4-3)*0.25 + (0-3+3-0)*0.125) = 0.375. */
	assert_near(sample1(c, 500 * MS).t.x, 0.375, 1e-6);
	free(c->tracks);
	c->tracks = NULL;
	clip_free(c);
}

static void test_keyed_hermite_bezier(void **state)
{
	static const int64_t times[] = { 0, NS_PER_SEC };
	/* Per key: value, in, out (x only matters). */
	static const float herm[] = { 0, 0, 0, 9, 9, 9, 2, 0, 0,
				      1, 0, 0, 0, 0, 0, 7, 7, 7 };
	static const float bez[] = { 0, 0, 0, 9, 9, 9, 0.5f, 0, 0,
				     1, 0, 0, 2, 0, 0, 7, 7, 7 };
	struct clip *c = make_keyed(NS_PER_SEC);

	(void)state;
	/* Hermite from 0 (out-tangent 2) to 1 (in-tangent 0), u = 0.5:
	 * h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125
	 * -> 0.125 * 2 + 0.5 * 1 = 0.75. */
	c->tracks[0].t = (struct track){ .count = 2, .interp = INTERP_HERMITE, .width = 3,
				.times = times, .values = herm };
	assert_near(sample1(c, 500 * MS).t.x, 0.75, 1e-6);
	assert_near(sample1(c, 0).t.x, 0, 0);
	assert_near(sample1(c, NS_PER_SEC).t.x, 1, 0);
	/* u = 0.25: h10 = 0.140625, h01 = 0.15625 -> 0.28125 + 0.15625. */
	assert_near(sample1(c, 250 * MS).t.x, 0.4375, 1e-6);
	/* Bezier 0, control 0.5, control 2, 1 at u = 0.5:
	 * 0.125*0 + 0.375*0.5 + 0.375*2 + 0.125*1 = 1.0625. */
	c->tracks[0].t = (struct track){ .count = 2, .interp = INTERP_BEZIER, .width = 3,
				.times = times, .values = bez };
	assert_near(sample1(c, 500 * MS).t.x, 1.0625, 1e-6);
	assert_near(sample1(c, NS_PER_SEC).t.x, 1, 0);
	free(c->tracks);
	c->tracks = NULL;
	clip_free(c);
}

static void test_keyed_rotations(void **state)
{
	static const int64_t times[] = { 0, NS_PER_SEC };
	static const float lin[] = { 0, 0, 0, 1, 0, 0, S2, S2 };
	/* value, in, out per key: hermite with zero tangents, bezier with
	 * controls on the values. */
	static const float herm[] = { 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
				      0, 0, S2, S2, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const float bez[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
				     0, 0, S2, S2, 0, 0, S2, S2, 0, 0, S2, S2 };
	float s = sinf((float)M_PI / 8), co = cosf((float)M_PI / 8);
	struct clip *c = make_keyed(NS_PER_SEC);
	struct track *tr = &c->tracks[0].r;

	(void)state;
	/* Half way from identity to 90 deg about Z is 45 deg in every mode
	 * (the component-wise ones are symmetric at u = 0.5). */
	*tr = (struct track){ .count = 2, .interp = INTERP_LINEAR, .width = 4,
				.times = times, .values = lin };
	assert_quat(sample1(c, 500 * MS).r, 0, 0, s, co, 1e-6);
	/* Slerp, not nlerp: a quarter of the way is 22.5 deg. */
	assert_quat(sample1(c, 250 * MS).r, 0, 0, sinf((float)M_PI / 16),
		    cosf((float)M_PI / 16), 1e-6);
	tr->interp = INTERP_CATMULL_ROM;
	assert_quat(sample1(c, 250 * MS).r, 0, 0, sinf((float)M_PI / 16),
		    cosf((float)M_PI / 16), 1e-6);
	tr->interp = INTERP_STEP;
	assert_quat(sample1(c, 999 * MS).r, 0, 0, 0, 1, 0);
	*tr = (struct track){ .count = 2, .interp = INTERP_HERMITE, .width = 4,
				.times = times, .values = herm };
	assert_quat(sample1(c, 500 * MS).r, 0, 0, s, co, 1e-6);
	*tr = (struct track){ .count = 2, .interp = INTERP_BEZIER, .width = 4,
				.times = times, .values = bez };
	assert_quat(sample1(c, 500 * MS).r, 0, 0, s, co, 1e-6);
	/* Always normalised. */
	{
		quat q = sample1(c, 300 * MS).r;

		assert_near(quat_dot(q, q), 1, 1e-6);
	}
	free(c->tracks);
	c->tracks = NULL;
	clip_free(c);
}

static void test_keyed_zero_length_and_loop(void **state)
{
	static const int64_t times[] = { 0, 0 };
	static const float xs[] = { 1, 0, 0, 2, 0, 0 };
	struct clip *c = make_keyed(0);
	struct clip_time ct;

	(void)state;
	c->tracks[0].t = (struct track){ .count = 2, .interp = INTERP_LINEAR, .width = 3,
				.times = times, .values = xs };
	ct = clip_map_time(c, 5 * NS_PER_SEC, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 0);
	assert_int_equal(ct.cycles, 0);
	assert_near(sample1(c, ct.t_ns).t.x, 2, 0);
	/* A keyed clip loops over its duration in nanoseconds. */
	c->duration_ns = NS_PER_SEC;
	ct = clip_map_time(c, 2500 * MS, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 500 * MS);
	assert_int_equal(ct.cycles, 2);
	ct = clip_map_time(c, -250 * MS, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 750 * MS);
	assert_int_equal(ct.cycles, -1);
	ct = clip_map_time(c, 1500 * MS, LOOP_PINGPONG);
	assert_int_equal(ct.t_ns, 500 * MS);
	ct = clip_map_time(c, 1500 * MS, LOOP_ONCE);
	assert_int_equal(ct.t_ns, NS_PER_SEC);
	assert_int_equal(ct.ended, 1);
	free(c->tracks);
	c->tracks = NULL;
	clip_free(c);
}

/* ---- root motion, bounds --------------------------------------------- */

static void test_root_motion(void **state)
{
	struct clip *c = make_uniform(2, 3, 1);
	struct transform pose[2];
	struct clip_time ct;

	(void)state;
	/* The root walks x = 10, 11, 12 over two seconds; Doom's loop delta
	 * is the last frame minus the base: 2. */
	for (int f = 0; f < 3; f++) {
		FR(c, f, 0).t = vec3_make(10.0f + (float)f, 5, 0);
		FR(c, f, 1).t = vec3_make(0, 0, 1);
	}
	c->root_base = vec3_make(10, 5, 0);
	c->root_delta = vec3_make(2, 0, 0);
	/* In place: continuous across loops, relative to the base. */
	static const struct { int64_t e; float x; } cases[] = {
		{ 0, 0 }, { 500 * MS, 0.5f }, { 2500 * MS, 2.5f }, { 4000 * MS, 4 },
		{ 7250 * MS, 7.25f }, { -500 * MS, -0.5f }, { -4500 * MS, -4.5f },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ct = clip_map_time(c, cases[i].e, LOOP_LOOP);
		clip_sample(c, ct.t_ns, pose);
		clip_apply_root_motion(c, ROOT_IN_PLACE, &ct, pose);
		assert_vec(pose[0].t, cases[i].x, 0, 0, 1e-5);
		assert_vec(pose[1].t, 0, 0, 1, 0);      /* only joint 0 moves */
	}
	/* Raw: as authored. */
	ct = clip_map_time(c, 2500 * MS, LOOP_LOOP);
	clip_sample(c, ct.t_ns, pose);
	clip_apply_root_motion(c, ROOT_RAW, &ct, pose);
	assert_vec(pose[0].t, 10.5f, 5, 0, 1e-6);
	/* Once, past the end: the last frame relative to the base. */
	ct = clip_map_time(c, 9 * NS_PER_SEC, LOOP_ONCE);
	clip_sample(c, ct.t_ns, pose);
	clip_apply_root_motion(c, ROOT_IN_PLACE, &ct, pose);
	assert_vec(pose[0].t, 2, 0, 0, 1e-6);
	clip_free(c);
}

static void test_bounds(void **state)
{
	struct clip *c = make_uniform(1, 3, 10);
	float b[6];

	(void)state;
	assert_int_equal(clip_bounds(c, 0, b), -1);
	c->bounds = calloc(3, sizeof *c->bounds);
	assert_non_null(c->bounds);
	for (int f = 0; f < 3; f++)
		for (int i = 0; i < 3; i++) {
			c->bounds[f][i] = -1.0f - (float)f;
			c->bounds[f][3 + i] = 1.0f + 2.0f * (float)f;
		}
	/* Between frames 1 and 2 at 0.25: min -2.25, max 3.5. */
	assert_int_equal(clip_bounds(c, 125 * MS, b), 0);
	for (int i = 0; i < 3; i++) {
		assert_near(b[i], -2.25, 1e-6);
		assert_near(b[3 + i], 3.5, 1e-6);
	}
	assert_int_equal(clip_bounds(c, 200 * MS, b), 0);
	assert_near(b[0], -3, 0);
	assert_near(b[3], 5, 0);
	assert_int_equal(clip_bounds(c, -MS, b), 0);
	assert_near(b[0], -1, 0);
	clip_free(c);
}

/* ---- the fast path against a double reference ------------------------ */

static uint64_t rng = 88172645463325252ull;

static float rndf(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (float)((double)(rng >> 11) / 9007199254740992.0);
}

static quat rnd_quat(void)
{
	for (;;) {
		quat q = quat_make(2 * rndf() - 1, 2 * rndf() - 1, 2 * rndf() - 1, 2 * rndf() - 1);
		float n = quat_dot(q, q);

		if (n > 1e-3f && n <= 1.0f)
			return quat_normalize(q);
	}
}

static void ref_slerp(quat qa, quat qb, double t, double out[4])
{
	double a[4] = { qa.x, qa.y, qa.z, qa.w }, b[4] = { qb.x, qb.y, qb.z, qb.w };
	double dot = 0, dn = 0, sn = 0, w0, w1, n = 0, th;

	for (int i = 0; i < 4; i++)
		dot += a[i] * b[i];
	for (int i = 0; i < 4; i++) {
		if (dot < 0)
			b[i] = -b[i];
		dn += (a[i] - b[i]) * (a[i] - b[i]);
		sn += (a[i] + b[i]) * (a[i] + b[i]);
	}
	th = 2.0 * atan2(sqrt(dn), sqrt(sn));
	w0 = th < 1e-12 ? 1 - t : sin((1 - t) * th) / sin(th);
	w1 = th < 1e-12 ? t : sin(t * th) / sin(th);
	for (int i = 0; i < 4; i++) {
		out[i] = w0 * a[i] + w1 * b[i];
		n += out[i] * out[i];
	}
	for (int i = 0; i < 4; i++)
		out[i] /= sqrt(n);
}

static void test_sampler_vs_reference(void **state)
{
	/* 4k + 3 joints: the four-wide path and the scalar tail. */
	static const uint32_t counts[] = { 1, 3, 4, 7, 64, 67 };
	double worst = 0;

	(void)state;
	for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
		uint32_t n = counts[ci];
		struct clip *c = make_uniform(n, 3, 30);
		struct transform *out = calloc(n, sizeof *out);

		assert_non_null(out);
		for (uint32_t f = 0; f < 3; f++)
			for (uint32_t j = 0; j < n; j++) {
				struct transform *x = &FR(c, f, j);

				x->t = vec3_make(10 * rndf() - 5, 10 * rndf() - 5, 10 * rndf() - 5);
				x->s = vec3_make(rndf() + 0.5f, rndf() + 0.5f, rndf() + 0.5f);
				/* Mix of big, small and sign-flipped steps. */
				if (f > 0 && j % 3 == 1)
					x->r = quat_normalize(quat_make(-FR(c, f - 1, j).r.x + 0.01f * rndf(),
									-FR(c, f - 1, j).r.y, -FR(c, f - 1, j).r.z,
									-FR(c, f - 1, j).r.w));
				else
					x->r = rnd_quat();
			}
		for (int64_t t = 0; t <= c->duration_ns; t += 1234567) {
			uint64_t f;
			float frac;

			clip_sample(c, t, out);
			f = clip_frame_at(t, 30, &frac);
			for (uint32_t j = 0; j < n; j++) {
				const struct transform *a, *b;
				double want[4];

				if (f >= 2) {
					a = b = &FR(c, 2, j);
					frac = 0;
				} else {
					a = &FR(c, f, j);
					b = &FR(c, f + 1, j);
				}
				ref_slerp(a->r, b->r, frac, want);
				worst = fmax(worst, fabs(out[j].r.x - want[0]));
				worst = fmax(worst, fabs(out[j].r.y - want[1]));
				worst = fmax(worst, fabs(out[j].r.z - want[2]));
				worst = fmax(worst, fabs(out[j].r.w - want[3]));
				assert_near(quat_dot(out[j].r, out[j].r), 1, 1e-6);
				assert_near(out[j].t.x, a->t.x + (b->t.x - a->t.x) * (double)frac, 1e-5);
				assert_near(out[j].t.z, a->t.z + (b->t.z - a->t.z) * (double)frac, 1e-5);
				assert_near(out[j].s.y, a->s.y + (b->s.y - a->s.y) * (double)frac, 1e-6);
			}
		}
		free(out);
		clip_free(c);
	}
	print_message("sampler rotation max component error: %.3g\n", worst);
	assert_true(worst < 1e-6);
}

/* ---- conversions ------------------------------------------------------ */

static void test_time_conversions(void **state)
{
	(void)state;
	assert_int_equal(time_from_seconds(1.5), 1500000000);
	assert_int_equal(time_from_seconds(0.1), 100000000);
	assert_int_equal(time_from_seconds(-2.25), -2250000000LL);
	assert_int_equal(time_from_seconds(0.4e-9), 0);
	assert_int_equal(time_from_seconds(0.6e-9), 1);
	assert_int_equal(time_from_seconds(-0.6e-9), -1);
	assert_int_equal(time_from_seconds(NAN), 0);
	assert_int_equal(time_from_seconds(1e300), INT64_MAX);
	assert_int_equal(time_from_seconds(INFINITY), INT64_MAX);
	assert_int_equal(time_from_seconds(-1e300), INT64_MIN);
	assert_int_equal(time_from_seconds(-INFINITY), INT64_MIN);
	assert_int_equal(time_from_seconds(9.3e9), INT64_MAX);
	assert_near(time_to_seconds(1500000000), 1.5, 0);
	assert_near(time_to_seconds(-2250000000LL), -2.25, 0);
	assert_near(time_to_seconds(INT64_MAX), 9223372036.854775807, 1e-5);
	/* Twenty minutes in ns and back, to the nanosecond. */
	assert_int_equal(time_from_seconds(time_to_seconds(1234567891234LL)), 1234567891234LL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_identity_pose),
		cmocka_unit_test(test_one_joint_z90),
		cmocka_unit_test(test_half_way),
		cmocka_unit_test(test_exact_frames),
		cmocka_unit_test(test_loop_seam),
		cmocka_unit_test(test_pingpong),
		cmocka_unit_test(test_negative_elapsed),
		cmocka_unit_test(test_huge_elapsed),
		cmocka_unit_test(test_zero_length),
		cmocka_unit_test(test_keyed_step_linear),
		cmocka_unit_test(test_keyed_before_after_and_steps),
		cmocka_unit_test(test_keyed_catmull_rom),
		cmocka_unit_test(test_keyed_hermite_bezier),
		cmocka_unit_test(test_keyed_rotations),
		cmocka_unit_test(test_keyed_zero_length_and_loop),
		cmocka_unit_test(test_root_motion),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_sampler_vs_reference),
		cmocka_unit_test(test_time_conversions),
	};

	/* Everything twice: with the widest SIMD level this CPU has, then
	 * with the baseline kernels. */
	int failed;

	print_message("SIMD level %d\n", (int)math3d_simd_level());
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	if (math3d_simd_level() != MATH3D_SIMD_BASE) {
		math3d_simd_limit(MATH3D_SIMD_BASE);
		print_message("SIMD level %d\n", (int)math3d_simd_level());
		failed += cmocka_run_group_tests(tests, NULL, NULL);
	}
	return failed != 0;
}
