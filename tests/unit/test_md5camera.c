/*
 * The .md5camera parser: every strict rule has an input that breaks it and
 * an exact line:col and message; the hand-written fixture with cuts parses
 * to the values it holds; every prefix of it fails cleanly.  Inputs are
 * copied into buffers of their exact length so ASan catches any over-read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/md5/md5.h"

#define MD5X_TYPE struct md5_camera
#define MD5X_PARSER md5_camera_parse
#define MD5X_FREE md5_camera_free
#include "tests/unit/md5_expect.h"

#include "tests/support/testdata.h"

#define FIXTURES "tests/fixtures/md5/"

/* ---- a small valid camera, one rule broken at a time ---- */

static const char camera_base[] =
	"MD5Version 10\n"                       /* 1 */
	"commandline \"\"\n"                    /* 2 */
	"numFrames 4\n"                         /* 3 */
	"frameRate 30\n"                        /* 4 */
	"numCuts 2\n"                           /* 5 */
	"cuts {\n"                              /* 6 */
	"1\n"                                   /* 7 */
	"3\n"                                   /* 8 */
	"}\n"                                   /* 9 */
	"camera {\n"                            /* 10 */
	"( 0 0 0 ) ( 0 0 0 ) 90\n"              /* 11 */
	"( 1 0 0 ) ( 0 0 0 ) 90\n"              /* 12 */
	"( 2 0 0 ) ( 0 0 0.5 ) 80\n"            /* 13 */
	"( 3 0 0 ) ( 0 0 0 ) 70\n"              /* 14 */
	"}\n";                                  /* 15 */

static void test_base_parses(void **state)
{
	struct md5_camera *c;

	(void)state;
	c = parse_ok(camera_base, strlen(camera_base));
	assert_int_equal(c->num_frames, 4);
	assert_int_equal(c->frame_rate, 30);
	assert_int_equal(c->num_cuts, 2);
	assert_int_equal(c->cuts[0], 1);
	assert_int_equal(c->cuts[1], 3);
	assert_true(c->frames[2].fov == 80.0f);
	assert_true(c->frames[2].orient[2] == 0.5f);
	md5_camera_free(c);
}

static void test_header_rules(void **state)
{
	(void)state;
	expect_subst_fail(camera_base, "MD5Version 10", "MD5Version -10", 1, 12,
			  "unsupported MD5Version -10, expected 10");
	expect_subst_fail(camera_base, "numFrames 4", "numFrames 0", 3, 11,
			  "numFrames 0 is out of range (1..16777216)");
	expect_subst_fail(camera_base, "numFrames 4", "numFrames 16777216", 3, 11,
			  "numFrames 16777216 is more than the file can hold");
	expect_subst_fail(camera_base, "frameRate 30", "frameRate 0", 4, 11,
			  "frameRate 0 is out of range (1..2147483647)");
	expect_subst_fail(camera_base, "frameRate 30", "frameRate 0x1e", 4, 11,
			  "expected an integer frameRate, found \"0x1e\"");
	expect_subst_fail(camera_base, "numCuts 2", "numCuts 5", 5, 9,
			  "numCuts 5 is out of range (0..4)");
	expect_subst_fail(camera_base, "numCuts 2", "numCuts -1", 5, 9,
			  "numCuts -1 is out of range (0..4)");
	expect_subst_fail(camera_base, "frameRate 30\nnumCuts 2", "numCuts 2\nframeRate 30", 4, 1,
			  "expected \"frameRate\", found \"numCuts\"");
}

static void test_cut_rules(void **state)
{
	(void)state;
	expect_subst_fail(camera_base, "{\n1\n", "{\n0\n", 7, 1,
			  "cut 0 is out of range: cuts must be within 1..numFrames-1 and numFrames is 4");
	expect_subst_fail(camera_base, "1\n3\n", "1\n4\n", 8, 1,
			  "cut 4 is out of range: cuts must be within 1..numFrames-1 and numFrames is 4");
	expect_subst_fail(camera_base, "1\n3\n", "1\n1\n", 8, 1,
			  "cuts must be strictly ascending: 1 follows 1");
	expect_subst_fail(camera_base, "1\n3\n", "2\n1\n", 8, 1,
			  "cuts must be strictly ascending: 1 follows 2");
	expect_subst_fail(camera_base, "numCuts 2", "numCuts 3", 9, 1,
			  "the block ends after 2 cuts but numCuts is 3");
	expect_subst_fail(camera_base, "numCuts 2", "numCuts 1", 8, 1,
			  "expected '}' (numCuts is 1), found \"3\"");
	expect_subst_fail(camera_base, "1\n3\n", "1\n2.5\n", 8, 1,
			  "expected an integer cut, found \"2.5\"");
	expect_subst_fail(camera_base, "cuts {", "cut {", 6, 1, "expected \"cuts\", found \"cut\"");
	/* The same as assimp's InvalidCameraCut: one frame leaves no room
	 * for any cut. */
	expect_fail("MD5Version 10\ncommandline \"\"\nnumFrames 1\nframeRate 24\nnumCuts 1\n"
		    "cuts {\n8\n}\ncamera {\n( 0 0 0 ) ( 0 0 0 ) 45\n}\n", 7, 1,
		    "cut 8 is out of range: cuts must be within 1..numFrames-1 and numFrames is 1");
}

static void test_frame_rules(void **state)
{
	(void)state;
	expect_subst_fail(camera_base, "numFrames 4", "numFrames 5", 15, 1,
			  "the block ends after 4 frames but numFrames is 5");
	expect_subst_fail(camera_base, "numFrames 4\nframeRate 30\nnumCuts 2\ncuts {\n1\n3",
			  "numFrames 3\nframeRate 30\nnumCuts 2\ncuts {\n1\n2", 14, 1,
			  "expected '}' (numFrames is 3), found '('");
	expect_subst_fail(camera_base, "( 0 0 0 ) 70", "( 0 0 0 )", 15, 1,
			  "expected a finite number for camera fov, found '}'");
	expect_subst_fail(camera_base, "( 0 0 0 ) 70", "( 0 0 0 ) inf", 14, 21,
			  "expected a finite number for camera fov, found \"inf\"");
	expect_subst_fail(camera_base, "( 2 0 0 )", "( 2 0 0 0 )", 13, 9,
			  "expected ')', found \"0\"");
	expect_subst_fail(camera_base, "( 0 0 0.5 )", "( 0 0 NaN )", 13, 17,
			  "expected a finite number for camera orientation, found \"NaN\"");
	expect_subst_fail(camera_base, "70\n}\n", "70\n", 15, 1,
			  "expected '}' (numFrames is 4), found end of file");
}

/* Doom reads the camera block and stops: a second one is not read, by
 * Doom or by animd.  The file loads, the same camera, with a note. */
static void test_after_last_block_is_a_note(void **state)
{
	struct md5_camera *base, *c;

	(void)state;
	base = parse_ok(camera_base, strlen(camera_base));
	assert_int_equal(base->notes.count, 0);
	c = expect_subst_note(camera_base, "70\n}\n", "70\n}\ncamera {\n( 9 9 9 ) ( 0 0 0 ) 1\n}\n",
			      16, 1, "\"camera\" after the last block: what follows is not read");
	assert_int_equal(c->num_frames, base->num_frames);
	assert_int_equal(c->frame_rate, base->frame_rate);
	assert_int_equal(c->num_cuts, base->num_cuts);
	assert_memory_equal(c->cuts, base->cuts, base->num_cuts * sizeof *c->cuts);
	assert_memory_equal(c->frames, base->frames, base->num_frames * sizeof *c->frames);
	md5_camera_free(c);
	md5_camera_free(base);
}

/* ---- fixtures ---- */

static void assert_near(float got, float want)
{
	if (fabsf(got - want) > 1e-6f)
		fail_msg("got %.9g, want %.9g", (double)got, (double)want);
}

static void test_cuts_fixture(void **state)
{
	struct md5_camera *c;
	size_t len;
	char *buf;

	(void)state;
	buf = read_file(FIXTURES "cuts.md5camera", &len);
	c = parse_ok(buf, len);
	assert_int_equal(c->num_frames, 6);
	assert_int_equal(c->frame_rate, 30);
	assert_int_equal(c->num_cuts, 2);
	assert_int_equal(c->cuts[0], 2);
	assert_int_equal(c->cuts[1], 4);
	assert_near(c->frames[1].pos[0], 8.0f);
	assert_near(c->frames[2].fov, 85.5f);
	assert_near(c->frames[3].pos[0], -100.0f);
	assert_near(c->frames[3].orient[1], 0.7071067691f);
	assert_near(c->frames[3].orient[3], sqrtf(1.0f - 0.7071067691f * 0.7071067691f));
	assert_near(c->frames[5].orient[3], 0.5f);
	assert_near(c->frames[0].orient[3], 1.0f);
	assert_near(c->frames[5].fov, 45.0f);
	md5_camera_free(c);
	free(buf);
}

static void test_no_cuts(void **state)
{
	struct md5_camera *c;
	char *s;

	(void)state;
	s = subst(camera_base, "numCuts 2\ncuts {\n1\n3\n}", "numCuts 0\ncuts {\n}");
	c = parse_ok(s, strlen(s));
	assert_int_equal(c->num_cuts, 0);
	assert_int_equal(c->num_frames, 4);
	md5_camera_free(c);
	free(s);
	/* One frame and no cuts is a still camera. */
	s = subst(camera_base, "numFrames 4\nframeRate 30\nnumCuts 2\ncuts {\n1\n3\n}",
		  "numFrames 1\nframeRate 30\nnumCuts 0\ncuts {}");
	{
		char *t = subst(s, "( 1 0 0 ) ( 0 0 0 ) 90\n( 2 0 0 ) ( 0 0 0.5 ) 80\n"
				"( 3 0 0 ) ( 0 0 0 ) 70\n", "");

		c = parse_ok(t, strlen(t));
		assert_int_equal(c->num_frames, 1);
		md5_camera_free(c);
		free(t);
	}
	free(s);
}

static void test_truncations(void **state)
{
	(void)state;
	check_file_prefixes(FIXTURES "cuts.md5camera");
	check_prefixes(camera_base, strlen(camera_base));
}

static void test_empty(void **state)
{
	(void)state;
	expect_fail("", 1, 1, "expected \"MD5Version\", found end of file");
	expect_fail("/**/", 1, 5, "expected \"MD5Version\", found end of file");
}

/* ---- other people's files (skipped when ../shared/testdata is absent) ---- */

static void test_real_files(void **state)
{
	size_t len;
	char *buf;

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	buf = read_file(testdata_path("md5/assimp-invalid/InvalidCameraCut.md5camera"), &len);
	expect_fail_len(buf, len, 9, 1,
			"cut 8 is out of range: cuts must be within 1..numFrames-1 and numFrames is 1");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_parses),
		cmocka_unit_test(test_header_rules),
		cmocka_unit_test(test_cut_rules),
		cmocka_unit_test(test_frame_rules),
		cmocka_unit_test(test_after_last_block_is_a_note),
		cmocka_unit_test(test_cuts_fixture),
		cmocka_unit_test(test_no_cuts),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_real_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
