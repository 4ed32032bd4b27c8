/*
 * camera: md5camera tracks built by hand, imported, and evaluated: cuts
 * (never interpolated across; just before and after), several frame rates
 * (60 fps interpolated too), looping over the playable length, a one-frame
 * camera, the orientation convention and the import's checks.
 *
 * Frame i of every track: position (i, 2i, 10), fov 60 + i, and a turn of
 * 10 i degrees about Z.  So position.x is the (fractional) frame shown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "daemon/import/md5_import.h"

#define MS 1000000LL

static void assert_near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.9g, want %.9g (tolerance %g)", got, want, tol);
}

static int make_camera(uint32_t n, uint32_t rate, const uint32_t *cuts, uint32_t ncuts,
		       struct camera_track **out)
{
	struct md5_camera src = { .num_frames = n, .frame_rate = rate, .num_cuts = ncuts };
	int rc;

	src.frames = calloc(n ? n : 1, sizeof *src.frames);
	src.cuts = (uint32_t *)cuts;
	assert_non_null(src.frames);
	for (uint32_t i = 0; i < n; i++) {
		double half = (double)i * 10.0 * M_PI / 180.0 / 2.0;

		src.frames[i].pos[0] = (float)i;
		src.frames[i].pos[1] = 2.0f * (float)i;
		src.frames[i].pos[2] = 10.0f;
		/* MD5 rotates by R(q*): a +10i deg turn is stored with z < 0,
		 * and w is Doom's positive root. */
		src.frames[i].orient[2] = (float)-sin(half);
		src.frames[i].orient[3] = md5_quat_w(0, 0, src.frames[i].orient[2]);
		src.frames[i].fov = 60.0f + (float)i;
	}
	rc = md5_import_camera(&src, out);
	free(src.frames);
	return rc;
}

static struct camera_track *camera(uint32_t n, uint32_t rate, const uint32_t *cuts,
				   uint32_t ncuts)
{
	struct camera_track *c = NULL;

	assert_int_equal(make_camera(n, rate, cuts, ncuts, &c), 0);
	return c;
}

/* The frame shown at t, checked for consistency across all channels. */
static double shown(const struct camera_track *c, int64_t t)
{
	struct camera_frame f;
	double x, angle;

	camera_sample(c, t, &f);
	x = f.pos.x;
	assert_near(f.pos.y, 2 * x, 1e-5);
	assert_near(f.pos.z, 10, 0);
	assert_near(f.fov, 60 + x, 1e-4);
	assert_near(f.rot.x, 0, 1e-7);
	assert_near(f.rot.y, 0, 1e-7);
	angle = 2 * atan2(f.rot.z, f.rot.w) * 180 / M_PI;
	assert_near(angle, 10 * x, 1e-3);
	return x;
}

static void test_rates(void **state)
{
	static const uint32_t rates[] = { 1, 24, 30, 60, 120 };

	(void)state;
	for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
		uint32_t rate = rates[r];
		struct camera_track *c = camera(5, rate, NULL, 0);

		assert_int_equal(c->duration_ns, clip_frames_duration(4, rate));
		/* Every half frame, at every rate (Doom skips this at 60). */
		for (int k = 0; k <= 8; k++) {
			int64_t t = ((int64_t)k * NS_PER_SEC + 2 * rate - 1) / (2 * rate);

			assert_near(shown(c, t), k / 2.0, 1e-5);
		}
		assert_near(shown(c, c->duration_ns + NS_PER_SEC), 4, 0);
		assert_near(shown(c, -NS_PER_SEC), 0, 0);
		camera_track_free(c);
	}
}

static void test_cut(void **state)
{
	static const uint32_t cuts[] = { 2 };
	struct camera_track *c = camera(6, 1, cuts, 1);

	(void)state;
	/* Six frames, one cut: four playable intervals, 0-1, 1-2, 3-4, 4-5. */
	assert_int_equal(c->duration_ns, 4 * NS_PER_SEC);
	assert_near(shown(c, 1500 * MS), 1.5, 1e-5);
	assert_near(shown(c, 2500 * MS), 3.5, 1e-5);
	/* Just before the cut: the end of shot one.  At it: shot two. */
	assert_near(shown(c, 2 * NS_PER_SEC - 1), 2, 1e-5);
	assert_near(shown(c, 2 * NS_PER_SEC), 3, 0);
	/* The end: the last frame, held. */
	assert_near(shown(c, 4 * NS_PER_SEC - 1), 5, 1e-5);
	assert_near(shown(c, 4 * NS_PER_SEC), 5, 0);
	/* Nothing is ever shown between frames 2 and 3. */
	for (int64_t t = 0; t <= c->duration_ns; t += 7 * MS) {
		double x = shown(c, t);

		assert_false(x > 2 + 1e-4 && x < 3 - 1e-4);
	}
	camera_track_free(c);
}

static void test_two_cuts_and_rate(void **state)
{
	static const uint32_t cuts[] = { 1, 3 };
	static const uint32_t cut2[] = { 2 };
	struct camera_track *c = camera(6, 1, cuts, 2);

	(void)state;
	/* Shots 0-1, 2-3, 4-5. */
	assert_int_equal(c->duration_ns, 3 * NS_PER_SEC);
	assert_near(shown(c, 500 * MS), 0.5, 1e-5);
	assert_near(shown(c, 1500 * MS), 2.5, 1e-5);
	assert_near(shown(c, 2500 * MS), 4.5, 1e-5);
	assert_near(shown(c, 3 * NS_PER_SEC), 5, 0);
	camera_track_free(c);

	/* 24 fps: the cut after frame 2 is at 2/24 s = 83333333.3 ns. */
	c = camera(6, 24, cut2, 1);
	assert_near(shown(c, 83333333), 2, 1e-5);
	assert_near(shown(c, 83333334), 3, 1e-5);
	assert_near(shown(c, 83333333 + 20833333), 3.5, 1e-5);
	camera_track_free(c);
}

static void test_loop(void **state)
{
	static const uint32_t cuts[] = { 2 };
	struct camera_track *c = camera(6, 1, cuts, 1);
	struct clip_time ct;

	(void)state;
	/* Loops over the playable length (4 s), not the frame count. */
	ct = camera_map_time(c, 4500 * MS, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 500 * MS);
	assert_int_equal(ct.cycles, 1);
	ct = camera_map_time(c, 4 * NS_PER_SEC, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 0);
	assert_int_equal(ct.cycles, 1);
	assert_near(shown(c, ct.t_ns), 0, 0);
	ct = camera_map_time(c, -500 * MS, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 3500 * MS);
	assert_int_equal(ct.cycles, -1);
	assert_near(shown(c, ct.t_ns), 4.5, 1e-5);
	ct = camera_map_time(c, 10 * NS_PER_SEC, LOOP_ONCE);
	assert_int_equal(ct.t_ns, 4 * NS_PER_SEC);
	assert_int_equal(ct.ended, 1);
	ct = camera_map_time(c, 5 * NS_PER_SEC, LOOP_PINGPONG);
	assert_int_equal(ct.t_ns, 3 * NS_PER_SEC);
	camera_track_free(c);
}

static void test_one_frame(void **state)
{
	static const uint32_t cut_last[] = { 3 };
	struct camera_track *c = camera(1, 24, NULL, 0);
	struct clip_time ct;

	(void)state;
	assert_int_equal(c->duration_ns, 0);
	assert_near(shown(c, 0), 0, 0);
	assert_near(shown(c, 5 * NS_PER_SEC), 0, 0);
	ct = camera_map_time(c, 5 * NS_PER_SEC, LOOP_LOOP);
	assert_int_equal(ct.t_ns, 0);
	assert_int_equal(ct.cycles, 0);
	camera_track_free(c);

	/* A cut on the last frame leaves shot 0-3 one interval short. */
	c = camera(4, 1, cut_last, 1);
	assert_int_equal(c->duration_ns, 2 * NS_PER_SEC);
	assert_near(shown(c, 1500 * MS), 1.5, 1e-5);
	assert_near(shown(c, 2 * NS_PER_SEC), 2, 1e-5);
	camera_track_free(c);
}

static void test_orientation(void **state)
{
	struct md5_camera_frame fr = { { 0, 0, 0 }, { 0, 0, 0.7071068f, 0 }, 90 };
	struct md5_camera src = { .num_frames = 1, .frame_rate = 30, .frames = &fr };
	struct camera_track *c = NULL;
	struct camera_frame f;
	vec3 fwd;

	(void)state;
	fr.orient[3] = md5_quat_w(0, 0, 0.7071068f);
	assert_int_equal(md5_import_camera(&src, &c), 0);
	camera_sample(c, 0, &f);
	/* Stored conjugated; Doom's forward (+X) turns to -Y. */
	assert_near(f.rot.z, -0.7071068, 1e-6);
	assert_near(f.rot.w, 0.7071068, 1e-6);
	fwd = quat_rotate(f.rot, vec3_make(1, 0, 0));
	assert_near(fwd.x, 0, 1e-6);
	assert_near(fwd.y, -1, 1e-6);
	camera_track_free(c);
	camera_track_free(NULL);
}

static void test_import_checks(void **state)
{
	static const uint32_t unordered[] = { 3, 2 };
	static const uint32_t zero[] = { 0 };
	static const uint32_t past[] = { 5 };
	struct camera_track *c = NULL;

	(void)state;
	assert_int_equal(make_camera(5, 24, unordered, 2, &c), -EINVAL);
	assert_int_equal(make_camera(5, 24, zero, 1, &c), -EINVAL);
	assert_int_equal(make_camera(5, 24, past, 1, &c), -EINVAL);
	assert_int_equal(make_camera(5, 0, NULL, 0, &c), -EINVAL);
	assert_int_equal(make_camera(0, 24, NULL, 0, &c), -EINVAL);
	assert_null(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_two_cuts_and_rate),
		cmocka_unit_test(test_loop),
		cmocka_unit_test(test_one_frame),
		cmocka_unit_test(test_orientation),
		cmocka_unit_test(test_import_checks),
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
