/*
 * attachment: an attachment point's model-space transform is its joint's
 * skin matrix times T(position) (rotation and translation of the joint
 * both count, and the point's own joint is the one used), and its
 * "animate" value is its track's at the clip's time or a global
 * sequence's, reported as 0 or 1; 1 without keys, without a track, or
 * without a clip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "daemon/anim/attachment.h"

#define S2 0.70710678f
#define MS 1000000LL                    /* ns per millisecond */

static void assert_near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.9g, want %.9g (tolerance %g)", got, want, tol);
}

static void assert_mat(const mat34 *m, const float want[3][4], double tol)
{
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 4; c++)
			assert_near(m->m[r][c], want[r][c], tol);
}

/* Joint 0 a plain offset (a point on it must not take joint 1's matrix),
 * joint 1 90 degrees about Z at (1, 2, 3). */
static void skin_pair(mat34 skin[2])
{
	skin[0] = mat34_from_rt(quat_identity(), vec3_make(10, 0, 0));
	skin[1] = mat34_from_rt(quat_make(0, 0, S2, S2), vec3_make(1, 2, 3));
}

static void test_transform_is_skin_times_position(void **state)
{
	const struct attachment defs[2] = {
		{ .id = 11, .joint = 1, .position = { 2, 0, 0.5f } },
		{ .id = 1, .joint = 0, .position = { 0, 1, 0 } },
	};
	/* Rz(90) (2, 0, 0.5) = (0, 2, 0.5), plus (1, 2, 3). */
	const float m0[3][4] = { { 0, -1, 0, 1 }, { 1, 0, 0, 4 }, { 0, 0, 1, 3.5f } };
	const float m1[3][4] = { { 1, 0, 0, 10 }, { 0, 1, 0, 1 }, { 0, 0, 1, 0 } };
	struct attachment_state out[2];
	mat34 skin[2];

	(void)state;
	skin_pair(skin);
	memset(out, 0xff, sizeof out);
	attachments_sample(defs, 2, NULL, 0, 0, skin, out);
	assert_mat(&out[0].m, m0, 1e-6);
	assert_mat(&out[1].m, m1, 1e-6);
	/* No clip: every point animates. */
	assert_true(out[0].animate == 1.0f && out[1].animate == 1.0f);
}

/* Point 0's track goes from 1 at 0 ms to 0 at 1000 ms (linear: the value
 * crosses 0.5 half-way); point 1's track has no keys; point 2 has no
 * track in the clip at all. */
static void test_animate_track(void **state)
{
	static const int64_t times[2] = { 0, 1000 * MS };
	static const float values[2] = { 1, 0 };
	struct track tracks[2] = {
		{ .count = 2, .interp = INTERP_LINEAR, .width = 1, .times = times, .values = values },
		{ .count = 0, .interp = INTERP_LINEAR, .width = 1 },
	};
	struct clip c = { .duration_ns = 1000 * MS, .attachment_count = 2, .attachments = tracks };
	const struct attachment defs[3] = {
		{ .id = 1, .joint = 1 }, { .id = 2, .joint = 1 }, { .id = 3, .joint = 0 },
	};
	struct attachment_state out[3];
	mat34 skin[2];

	(void)state;
	skin_pair(skin);
	attachments_sample(defs, 3, &c, 0, 0, skin, out);
	assert_true(out[0].animate == 1.0f && out[1].animate == 1.0f && out[2].animate == 1.0f);
	attachments_sample(defs, 3, &c, 400 * MS, 0, skin, out);
	assert_true(out[0].animate == 1.0f);
	attachments_sample(defs, 3, &c, 600 * MS, 0, skin, out);
	assert_true(out[0].animate == 0.0f);
	assert_true(out[1].animate == 1.0f && out[2].animate == 1.0f);
	/* Past the end the clip's time is clamped: the last key holds. */
	attachments_sample(defs, 3, &c, 5000 * MS, 0, skin, out);
	assert_true(out[0].animate == 0.0f);
	/* The transform does not depend on the value. */
	assert_near(out[0].m.m[0][3], 1, 1e-6);
	assert_near(out[0].m.m[1][3], 2, 1e-6);
}

/* A track on a global sequence (800 ms long) runs on the global time,
 * wrapped, whatever the clip's time. */
static void test_animate_on_global_sequence(void **state)
{
	static const int64_t times[2] = { 0, 400 * MS };
	static const float values[2] = { 1, 0 };
	int64_t globals[1] = { 800 * MS };
	struct track tracks[1] = {
		{ .count = 2, .interp = INTERP_STEP, .width = 1, .times = times, .values = values,
		  .global = 1 },
	};
	struct clip c = { .duration_ns = 1000 * MS, .global_count = 1, .global_ns = globals,
			  .attachment_count = 1, .attachments = tracks };
	const struct attachment defs[1] = { { .id = 5, .joint = 0 } };
	struct attachment_state out[1];
	mat34 skin[2];

	(void)state;
	skin_pair(skin);
	attachments_sample(defs, 1, &c, 0, 900 * MS, skin, out);      /* global 100 ms */
	assert_true(out[0].animate == 1.0f);
	attachments_sample(defs, 1, &c, 0, 1300 * MS, skin, out);     /* global 500 ms */
	assert_true(out[0].animate == 0.0f);
	attachments_sample(defs, 1, &c, 500 * MS, 1650 * MS, skin, out);      /* 50 ms */
	assert_true(out[0].animate == 1.0f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transform_is_skin_times_position),
		cmocka_unit_test(test_animate_track),
		cmocka_unit_test(test_animate_on_global_sequence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
