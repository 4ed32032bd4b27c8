/*
 * md5camera end to end: generated files (tests/support/md5_camera_gen)
 * with cuts and several frame rates go through the parser, the import and
 * the evaluator; every sample is checked against the closed form.  A cut
 * is never interpolated across, and looping runs over the playable length
 * (numFrames - 1 - numCuts intervals).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/assets/asset.h"
#include "daemon/assets/sampling.h"
#include "tests/support/md5_camera_gen.h"

static struct asset *load_generated(const struct camera_gen *g)
{
	struct asset *a = NULL;
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(camera_gen_write(f, g), 0);
	fclose(f);
	if (asset_load_buffer("gen.md5camera", text, len, &a, err, sizeof err) != 0)
		fail_msg("%s", err);
	free(text);
	return a;
}

/* The fractional frame the camera should show at playback time t. */
static double expected_frame(const struct camera_gen *g, double t, int loop)
{
	double intervals = (double)(g->frames - 1 - g->cut_count);
	double p = t * g->rate, f, frac;

	if (intervals <= 0)
		return 0;
	if (loop)
		p = fmod(p, intervals) + (fmod(p, intervals) < 0 ? intervals : 0);
	else if (p > intervals)
		p = intervals;
	else if (p < 0)
		p = 0;
	f = floor(p);
	frac = p - f;
	for (uint32_t i = 0; i < g->cut_count; i++)
		if (f >= g->cuts[i])
			f += 1;
	if (f >= g->frames - 1)
		return g->frames - 1;
	return f + frac;
}

static void check_camera(const struct camera_gen *g)
{
	struct asset *a = load_generated(g);
	double length = (double)(g->frames - 1 - g->cut_count) / g->rate;

	assert_non_null(a->camera);
	assert_int_equal(a->camera->cut_count, g->cut_count);
	assert_true(fabs((double)a->camera->duration_ns / 1e9 - length) < 1e-9);
	for (int loop = 0; loop < 2; loop++) {
		for (double t = -0.25; t < 3 * length + 0.5; t += 0.0173) {
			struct sample_request q = { .asset = a, .time = t, .space = SPACE_CAMERA,
						    .loop_set = 1, .loop = loop ? LOOP_LOOP : LOOP_ONCE };
			struct sample_result r;
			double want = expected_frame(g, t, loop);
			double angle;
			char err[256];

			assert_int_equal(sample_evaluate(&q, &r, err, sizeof err), 0);
			angle = 2.0 * atan2(r.camera.rot.z, r.camera.rot.w) * 180.0 / M_PI;
			if (fabs(r.camera.pos.x - want) > 2e-4)
				fail_msg("rate %u t=%.4f loop=%d: frame %.6f, expected %.6f", g->rate,
					 t, loop, r.camera.pos.x, want);
			assert_true(fabs(r.camera.pos.y - want * 0.5) < 2e-4);
			assert_true(fabs(r.camera.pos.z - 10.0) < 1e-6);
			assert_true(fabs(r.camera.fov - (60.0 + want * 0.25)) < 1e-4);
			assert_true(fabs(angle - want) < 1e-3);
			assert_true(fabs(r.camera.rot.x) < 1e-6 && fabs(r.camera.rot.y) < 1e-6);
			/* Never between the two frames of a cut. */
			for (uint32_t c = 0; c < g->cut_count; c++)
				assert_false(r.camera.pos.x > g->cuts[c] + 1e-3 &&
					     r.camera.pos.x < g->cuts[c] + 1 - 1e-3);
			sample_result_free(&r);
		}
	}
	asset_free(a);
}

static void test_no_cuts_several_rates(void **state)
{
	static const uint32_t rates[] = { 1, 24, 30, 60, 120 };

	(void)state;
	for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
		struct camera_gen g = { .frames = 40, .rate = rates[i] };

		check_camera(&g);
	}
}

static void test_cuts(void **state)
{
	static const uint32_t one[] = { 10 };
	static const uint32_t two[] = { 5, 20 };
	static const uint32_t adjacent[] = { 7, 8, 9 };
	static const uint32_t edges[] = { 1, 38 };
	const struct camera_gen cases[] = {
		{ .frames = 40, .rate = 24, .cut_count = 1, .cuts = one },
		{ .frames = 40, .rate = 30, .cut_count = 2, .cuts = two },
		{ .frames = 40, .rate = 60, .cut_count = 3, .cuts = adjacent },
		{ .frames = 40, .rate = 25, .cut_count = 2, .cuts = edges },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_camera(&cases[i]);
}

/* One frame, or every interval cut: nothing to play, never a division by
 * zero, always the first frame. */
static void test_degenerate_lengths(void **state)
{
	static const uint32_t all[] = { 1, 2 };
	const struct camera_gen cases[] = {
		{ .frames = 1, .rate = 24 },
		{ .frames = 3, .rate = 24, .cut_count = 2, .cuts = all },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct asset *a = load_generated(&cases[i]);
		struct sample_request q = { .asset = a, .time = 5.0, .space = SPACE_CAMERA };
		struct sample_result r;
		char err[256];

		assert_int_equal(a->camera->duration_ns, 0);
		assert_int_equal(sample_evaluate(&q, &r, err, sizeof err), 0);
		assert_true(fabs(r.camera.pos.x) < 1e-6 || fabs(r.camera.pos.x - 2) < 1e-6);
		sample_result_free(&r);
		asset_free(a);
	}
}

/* Cameras refuse the joint spaces with a message, not a crash. */
static void test_camera_rejects_joint_spaces(void **state)
{
	struct camera_gen g = { .frames = 4, .rate = 24 };
	struct asset *a = load_generated(&g);
	struct sample_request q = { .asset = a, .time = 0, .space = SPACE_MODEL };
	struct sample_result r;
	char err[256] = "";

	(void)state;
	assert_true(sample_evaluate(&q, &r, err, sizeof err) < 0);
	assert_non_null(strstr(err, "camera"));
	asset_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_cuts_several_rates),
		cmocka_unit_test(test_cuts),
		cmocka_unit_test(test_degenerate_lengths),
		cmocka_unit_test(test_camera_rejects_joint_spaces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
