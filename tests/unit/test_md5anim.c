/*
 * The .md5anim parser: every strict rule has an input that breaks it and
 * an exact line:col and message; the hand-written fixtures (a walk, its
 * CRLF twin, a pose with no animated components) parse to the values they
 * hold; every prefix of a valid file fails cleanly.  Inputs are copied
 * into buffers of their exact length so ASan catches any over-read.
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
#include "daemon/import/md5_import.h"

#define MD5X_TYPE struct md5_anim
#define MD5X_PARSER md5_anim_parse
#define MD5X_FREE md5_anim_free
#include "tests/unit/md5_expect.h"

#include "tests/support/testdata.h"

#define FIXTURES "tests/fixtures/md5/"

/* ---- a small valid anim, one rule broken at a time ---- */

static const char anim_base[] =
	"MD5Version 10\n"                       /* 1 */
	"commandline \"x\"\n"                   /* 2 */
	"numFrames 2\n"                         /* 3 */
	"numJoints 2\n"                         /* 4 */
	"frameRate 24\n"                        /* 5 */
	"numAnimatedComponents 4\n"             /* 6 */
	"hierarchy {\n"                         /* 7 */
	"\"root\" -1 1 0\n"                     /* 8 */
	"\"arm\" 0 56 1\n"                      /* 9 */
	"}\n"                                   /* 10 */
	"bounds {\n"                            /* 11 */
	"( -1 -1 -1 ) ( 1 1 1 )\n"              /* 12 */
	"( -2 -2 -2 ) ( 2 2 2 )\n"              /* 13 */
	"}\n"                                   /* 14 */
	"baseframe {\n"                         /* 15 */
	"( 0 0 0 ) ( 0 0 0 )\n"                 /* 16 */
	"( 1 0 0 ) ( 0.5 0 0 )\n"               /* 17 */
	"}\n"                                   /* 18 */
	"frame 0 {\n"                           /* 19 */
	"0.5 0 0 0\n"                           /* 20 */
	"}\n"                                   /* 21 */
	"frame 1 {\n"                           /* 22 */
	"1 0.1 0.2 0.3\n"                       /* 23 */
	"}\n";                                  /* 24 */

static void test_base_parses(void **state)
{
	struct md5_anim *a;

	(void)state;
	a = parse_ok(anim_base, strlen(anim_base));
	assert_int_equal(a->num_frames, 2);
	assert_int_equal(a->num_joints, 2);
	assert_int_equal(a->frame_rate, 24);
	assert_int_equal(a->num_components, 4);
	assert_int_equal(a->joints[1].flags, 56);
	assert_int_equal(a->joints[1].start_index, 1);
	assert_true(a->components[7] == 0.3f);
	md5_anim_free(a);
}

static void test_header_rules(void **state)
{
	(void)state;
	expect_subst_fail(anim_base, "MD5Version 10", "MD5Version 9", 1, 12,
			  "unsupported MD5Version 9, expected 10");
	expect_subst_fail(anim_base, "numFrames 2", "numFrames 0", 3, 11,
			  "numFrames 0 is out of range (1..16777216)");
	expect_subst_fail(anim_base, "numJoints 2", "numJoints 0", 4, 11,
			  "numJoints 0 is out of range (1..65535)");
	expect_subst_fail(anim_base, "frameRate 24", "frameRate 0", 5, 11,
			  "frameRate 0 is out of range (1..2147483647)");
	expect_subst_fail(anim_base, "frameRate 24", "frameRate -24", 5, 11,
			  "frameRate -24 is out of range");
	expect_subst_fail(anim_base, "frameRate 24", "frameRate 24.5", 5, 11,
			  "expected an integer frameRate, found \"24.5\"");
	expect_subst_fail(anim_base, "numAnimatedComponents 4", "numAnimatedComponents 13", 6, 23,
			  "numAnimatedComponents 13 is out of range (0..12)");
	expect_subst_fail(anim_base, "numAnimatedComponents 4", "numAnimatedComponents -1", 6, 23,
			  "numAnimatedComponents -1 is out of range (0..12)");
	expect_subst_fail(anim_base, "numFrames 2\nnumJoints 2", "numJoints 2\nnumFrames 2", 3, 1,
			  "expected \"numFrames\", found \"numJoints\"");
	expect_subst_fail(anim_base, "frameRate 24\n", "", 5, 1,
			  "expected \"frameRate\", found \"numAnimatedComponents\"");
}

static void test_count_limits(void **state)
{
	static const char head[] =
		"MD5Version 10 commandline \"\"\n"
		"numFrames 1000 numJoints 1000 frameRate 24 numAnimatedComponents 6000\n";
	size_t pad = 50000, n = strlen(head);
	char *s = malloc(n + pad + 1);

	(void)state;
	expect_subst_fail(anim_base, "numFrames 2", "numFrames 16777216", 3, 11,
			  "numFrames 16777216 is more than the file can hold");
	expect_subst_fail(anim_base, "numJoints 2", "numJoints 65535", 4, 11,
			  "numJoints 65535 is more than the file can hold");
	/* Enough bytes for the frames and joints but not for 6 million
	 * values: a comment pads the file. */
	assert_non_null(s);
	memcpy(s, head, n);
	memset(s + n, ' ', pad);
	memcpy(s + n, "/*", 2);
	memcpy(s + n + pad - 2, "*/", 2);
	s[n + pad] = '\0';
	expect_fail(s, 2, 66,
		    "numAnimatedComponents 6000 in each of 1000 frames is more than the file can hold");
	free(s);
}

static void test_hierarchy_rules(void **state)
{
	(void)state;
	expect_subst_fail(anim_base, "\"root\" -1", "\"root\" 0", 8, 8,
			  "joint 0 \"root\" has parent 0; the first joint must be the root (-1)");
	expect_subst_fail(anim_base, "\"arm\" 0", "\"arm\" -1", 9, 7,
			  "joint 1 \"arm\" is a second root; only joint 0 may have parent -1");
	expect_subst_fail(anim_base, "\"arm\" 0", "\"arm\" 1", 9, 7,
			  "joint 1 \"arm\" has parent 1; a parent must be an earlier joint");
	expect_subst_fail(anim_base, "\"arm\" 0", "\"arm\" -7", 9, 7,
			  "joint 1 \"arm\" has parent -7; a parent must be an earlier joint");
	expect_subst_fail(anim_base, "\"arm\" 0 56", "\"arm\" 0 64", 9, 9,
			  "joint \"arm\" has flags 64; only the six bits of 63 are allowed");
	expect_subst_fail(anim_base, "\"arm\" 0 56", "\"arm\" 0 -1", 9, 9,
			  "joint \"arm\" has flags -1;");
	expect_subst_fail(anim_base, "\"arm\" 0 56 1", "\"arm\" 0 56 2", 9, 12,
			  "joint \"arm\" reads components 2..4 but frames hold 4");
	expect_subst_fail(anim_base, "\"arm\" 0 56 1", "\"arm\" 0 63 1", 9, 12,
			  "joint \"arm\" reads components 1..6 but frames hold 4");
	expect_subst_fail(anim_base, "\"arm\" 0 56 1", "\"arm\" 0 56 -1", 9, 12,
			  "joint startIndex -1 is out of range");
	expect_subst_fail(anim_base, "\"arm\" 0 56 1\n", "", 9, 1,
			  "the block ends after 1 joints but numJoints is 2");
	expect_subst_fail(anim_base, "\"arm\" 0 56 1\n", "\"arm\" 0 56 1\n\"x\" 1 0 0\n", 10, 1,
			  "expected '}' (numJoints is 2), found string \"x\"");
	expect_subst_fail(anim_base, "\"arm\"", "arm", 9, 1,
			  "expected a quoted joint name, found \"arm\"");
}

static void test_block_rules(void **state)
{
	(void)state;
	expect_subst_fail(anim_base, "( -2 -2 -2 ) ( 2 2 2 )\n", "", 13, 1,
			  "the block ends after 1 bounds but numFrames is 2");
	expect_subst_fail(anim_base, "( -2 -2 -2 )", "( -2 -2 )", 13, 9,
			  "expected a finite number for bounds minimum, found ')'");
	expect_subst_fail(anim_base, "( 1 0 0 ) ( 0.5 0 0 )\n}",
			  "( 1 0 0 ) ( 0.5 0 0 )\n( 0 0 0 ) ( 0 0 0 )\n}", 18, 1,
			  "expected '}' (numJoints is 2), found '('");
	expect_subst_fail(anim_base, "( 0.5 0 0 )", "( 0.5 0 -inf )", 17, 19,
			  "expected a finite number for baseframe orientation, found \"-inf\"");
	expect_subst_fail(anim_base, "bounds {", "baseframe {", 11, 1,
			  "expected \"bounds\", found \"baseframe\"");
	expect_subst_fail(anim_base, "hierarchy {", "hierarchy", 8, 1,
			  "expected '{', found string \"root\"");
}

static void test_frame_rules(void **state)
{
	(void)state;
	expect_subst_fail(anim_base, "frame 1 {", "frame 2 {", 22, 7, "frame 1 is numbered 2");
	expect_subst_fail(anim_base, "frame 0 {", "frame 1 {", 19, 7, "frame 0 is numbered 1");
	expect_subst_fail(anim_base, "frame 1 {", "frame -1 {", 22, 7, "frame 1 is numbered -1");
	expect_subst_fail(anim_base, "1 0.1 0.2 0.3", "1 0.1 0.2", 24, 1,
			  "frame 1 ends after 3 values but numAnimatedComponents is 4");
	expect_subst_fail(anim_base, "1 0.1 0.2 0.3", "1 0.1 0.2 0.3 0.4", 23, 15,
			  "expected '}' (numAnimatedComponents is 4), found \"0.4\"");
	expect_subst_fail(anim_base, "1 0.1 0.2 0.3", "1 nan 0.2 0.3", 23, 3,
			  "expected a finite number for frame 1 value 1, found \"nan\"");
	expect_subst_fail(anim_base, "1 0.1 0.2 0.3", "1 0x1p3 0.2 0.3", 23, 3,
			  "found \"0x1p3\"");
	expect_subst_fail(anim_base, "frame 1 {\n1 0.1 0.2 0.3\n}\n", "", 22, 1,
			  "expected frame 1 (numFrames is 2), found end of file");
	expect_subst_fail(anim_base, "frame 1 {", "frame 1", 23, 1, "expected '{', found \"1\"");
}

/* ---- fixtures ---- */

static void assert_near(float got, float want)
{
	if (fabsf(got - want) > 1e-6f)
		fail_msg("got %.9g, want %.9g", (double)got, (double)want);
}

static struct md5_anim *load(const char *name)
{
	char path[256];
	struct md5_anim *a;
	size_t len;
	char *buf;

	snprintf(path, sizeof path, FIXTURES "%s", name);
	buf = read_file(path, &len);
	a = parse_ok(buf, len);
	free(buf);
	return a;
}

static void test_walk_fixture(void **state)
{
	struct md5_anim *a = load("walk.md5anim");
	uint32_t i;

	(void)state;
	assert_string_equal(a->commandline, "hand-written fixture: 4 frames of 3 joints");
	assert_int_equal(a->num_frames, 4);
	assert_int_equal(a->num_joints, 3);
	assert_int_equal(a->frame_rate, 24);
	assert_int_equal(a->num_components, 9);
	assert_string_equal(a->joints[0].name, "root");
	assert_string_equal(a->joints[1].name, "spine");
	assert_string_equal(a->joints[2].name, "head");
	assert_int_equal(a->joints[0].parent, -1);
	assert_int_equal(a->joints[1].parent, 0);
	assert_int_equal(a->joints[2].parent, 1);
	assert_int_equal(a->joints[0].flags, MD5_ANIM_ALL);
	assert_int_equal(a->joints[1].flags, MD5_ANIM_QX | MD5_ANIM_QY | MD5_ANIM_QZ);
	assert_int_equal(a->joints[2].flags, 0);
	assert_int_equal(a->joints[1].start_index, 6);
	assert_int_equal(a->joints[2].start_index, 9);
	/* base frame: names shared with the hierarchy, w computed */
	for (i = 0; i < 3; i++) {
		assert_ptr_equal(a->base[i].name, a->joints[i].name);
		assert_int_equal(a->base[i].parent, a->joints[i].parent);
	}
	assert_near(a->base[0].orient[3], 1.0f);
	assert_near(a->base[1].orient[3], sqrtf(1.0f - 0.7071067691f * 0.7071067691f));
	assert_near(a->base[2].orient[3], 0.5f);
	assert_near(a->base[2].pos[2], 10.25f);
	/* bounds: min x y z, max x y z */
	assert_near(a->bounds[2][0], -2.0f);
	assert_near(a->bounds[2][4], 2.0f);
	assert_near(a->bounds[2][5], 22.5f);
	/* frame f value k is components[f * 9 + k] */
	assert_near(a->components[1 * 9 + 0], 0.5f);
	assert_near(a->components[1 * 9 + 5], 0.1f);
	assert_near(a->components[2 * 9 + 8], 0.6f);
	assert_near(a->components[3 * 9 + 8], 0.7071067691f);
	md5_anim_free(a);
}

static void assert_anims_equal(const struct md5_anim *a, const struct md5_anim *b)
{
	uint32_t i;

	assert_string_equal(a->commandline, b->commandline);
	assert_int_equal(a->num_frames, b->num_frames);
	assert_int_equal(a->num_joints, b->num_joints);
	assert_int_equal(a->frame_rate, b->frame_rate);
	assert_int_equal(a->num_components, b->num_components);
	for (i = 0; i < a->num_joints; i++) {
		assert_string_equal(a->joints[i].name, b->joints[i].name);
		assert_int_equal(a->joints[i].parent, b->joints[i].parent);
		assert_int_equal(a->joints[i].flags, b->joints[i].flags);
		assert_int_equal(a->joints[i].start_index, b->joints[i].start_index);
		assert_memory_equal(a->base[i].pos, b->base[i].pos, sizeof a->base[i].pos);
		assert_memory_equal(a->base[i].orient, b->base[i].orient, sizeof a->base[i].orient);
	}
	assert_memory_equal(a->bounds, b->bounds, a->num_frames * sizeof *a->bounds);
	assert_memory_equal(a->components, b->components,
			    (size_t)a->num_frames * a->num_components * sizeof *a->components);
}

static void test_crlf_twin(void **state)
{
	struct md5_anim *a = load("walk.md5anim"), *b = load("walk_crlf.md5anim");

	(void)state;
	assert_anims_equal(a, b);
	md5_anim_free(a);
	md5_anim_free(b);
}

/* What a clip publishes of an anim: every joint of every frame, bounds. */
static void assert_same_clip(const struct md5_anim *a, const struct md5_anim *b)
{
	struct clip *x = NULL, *y = NULL;

	assert_int_equal(md5_import_clip(a, "a", &x), 0);
	assert_int_equal(md5_import_clip(b, "b", &y), 0);
	assert_int_equal(x->frame_count, y->frame_count);
	assert_int_equal(x->joint_count, y->joint_count);
	assert_int_equal(x->duration_ns, y->duration_ns);
	assert_memory_equal(x->frames, y->frames,
			    (size_t)x->frame_count * x->joint_count * sizeof *x->frames);
	assert_memory_equal(x->bounds, y->bounds, x->frame_count * sizeof *x->bounds);
	clip_free(x);
	clip_free(y);
}

/* What neither Doom nor animd reads loads, with a located note, and
 * publishes what the file without it does. */
static void test_notes(void **state)
{
	struct md5_anim *base, *a, *b;
	char *s;

	(void)state;
	base = parse_ok(anim_base, strlen(anim_base));
	assert_int_equal(base->notes.count, 0);
	/* Doom reads numFrames frames and stops. */
	a = expect_subst_note(anim_base, "1 0.1 0.2 0.3\n}\n",
			      "1 0.1 0.2 0.3\n}\nframe 2 {\n1 2 3 4\n}\n", 25, 1,
			      "\"frame\" after the last block: what follows is not read");
	assert_anims_equal(a, base);
	assert_same_clip(a, base);
	md5_anim_free(a);
	a = expect_subst_note(anim_base, "1 0.1 0.2 0.3\n}\n", "1 0.1 0.2 0.3\n}\n}\n/* x", 25, 1,
			      "'}' after the last block");
	assert_anims_equal(a, base);
	md5_anim_free(a);
	/* A joint without flags reads no component: where its startIndex
	 * points does not matter (kept within the frame). */
	s = subst(anim_base, "\"root\" -1 1 0", "\"root\" -1 0 0");
	b = parse_ok(s, strlen(s));
	assert_int_equal(b->notes.count, 0);
	free(s);
	a = expect_subst_note(anim_base, "\"root\" -1 1 0", "\"root\" -1 0 5", 8, 13,
			      "joint \"root\" has flags 0 and reads no component: its startIndex 5, "
			      "past the 4 components of a frame, is not used");
	assert_int_equal(a->joints[0].flags, 0);
	assert_int_equal(a->joints[0].start_index, 4);
	assert_same_clip(a, b);
	md5_anim_free(a);
	a = expect_subst_note(anim_base, "\"root\" -1 1 0", "\"root\" -1 0 4294967296", 8, 13,
			      "its startIndex 4294967296, past the 4 components");
	assert_same_clip(a, b);
	md5_anim_free(a);
	/* startIndex at the end of the frame reads nothing and is fine. */
	s = subst(anim_base, "\"root\" -1 1 0", "\"root\" -1 0 4");
	a = parse_ok(s, strlen(s));
	assert_int_equal(a->notes.count, 0);
	free(s);
	md5_anim_free(a);
	md5_anim_free(b);
	md5_anim_free(base);
}

/* numAnimatedComponents 0 with several frames is a valid pose file
 * (assimp rejects it). */
static void test_pose_fixture(void **state)
{
	struct md5_anim *a = load("pose.md5anim");

	(void)state;
	assert_int_equal(a->num_frames, 3);
	assert_int_equal(a->num_components, 0);
	assert_int_equal(a->frame_rate, 30);
	assert_int_equal(a->joints[2].flags, 0);
	assert_near(a->base[1].orient[0], 0.25f);
	assert_near(a->base[1].orient[3], sqrtf(1.0f - 0.0625f));
	assert_near(a->base[2].orient[3], 0.8f);
	md5_anim_free(a);
}

/* Doom's w takes the absolute value: a slightly long (x, y, z) still
 * gets a small positive w, never NaN. */
static void test_quat_w(void **state)
{
	(void)state;
	assert_near(md5_quat_w(0, 0, 0), 1.0f);
	assert_near(md5_quat_w(1, 0, 0), 0.0f);
	/* 0.6^2 + 0.8^2 is not exactly 1 in floats: w is small, not NaN. */
	assert_true(md5_quat_w(0.6f, 0, 0.8f) < 1e-3f);
	assert_near(md5_quat_w(0.5f, 0.5f, 0.5f), 0.5f);
	assert_true(md5_quat_w(-1.0f, 0.0000003041f, 0.0000000894f) < 1e-3f);
	assert_near(md5_quat_w(1.5f, 0, 0), sqrtf(1.25f));
	assert_false(isnan(md5_quat_w(1.0000001f, 0, 0)));
}

static void test_truncations(void **state)
{
	(void)state;
	check_file_prefixes(FIXTURES "walk.md5anim");
	check_file_prefixes(FIXTURES "walk_crlf.md5anim");
	check_file_prefixes(FIXTURES "pose.md5anim");
}

static void test_empty(void **state)
{
	(void)state;
	expect_fail("", 1, 1, "expected \"MD5Version\", found end of file");
	expect_fail("\r\n\r\n", 3, 1, "expected \"MD5Version\", found end of file");
	expect_fail("\r\r", 3, 1, "expected \"MD5Version\", found end of file");
}

/* ---- other people's files (skipped when ../shared/testdata is absent) ---- */

static void test_real_files(void **state)
{
	static const struct {
		const char *file;
		uint32_t frames, rate;
	} files[] = {
		{ "md5/mgl/bob.md5anim", 32, 24 },
		{ "md5/mgl/mech_warrior_jump.md5anim", 60, 60 },
		{ "md5/mgl/mech_warrior_spin.md5anim", 60, 60 },
		{ "md5/mgl/mech_warrior_stand.md5anim", 60, 60 },
		{ "md5/mgl/mech_warrior_walk.md5anim", 60, 60 },
	};
	size_t i, len;

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *buf = read_file(testdata_path(files[i].file), &len);
		struct md5_anim *a = parse_ok(buf, len);

		assert_int_equal(a->num_frames, files[i].frames);
		assert_int_equal(a->frame_rate, files[i].rate);
		assert_int_equal(a->num_joints, 15);
		assert_int_equal(a->num_components, 90);
		md5_anim_free(a);
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_parses),
		cmocka_unit_test(test_header_rules),
		cmocka_unit_test(test_count_limits),
		cmocka_unit_test(test_hierarchy_rules),
		cmocka_unit_test(test_block_rules),
		cmocka_unit_test(test_frame_rules),
		cmocka_unit_test(test_walk_fixture),
		cmocka_unit_test(test_crlf_twin),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_pose_fixture),
		cmocka_unit_test(test_quat_w),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_real_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
