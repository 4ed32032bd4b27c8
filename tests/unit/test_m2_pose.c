/*
 * M2 poses against values worked out by hand from docs/formats/m2.md: every
 * interpolation (step, linear, hermite, bezier; slerp for rotations), the
 * sequence's window on the shared timeline (ranges that span every key),
 * global sequences on their own clock, zero-length sequences, classic 0x40
 * variations with windows of their own, every sequence looping (clamped
 * when asked), pivots through a hierarchy listed child first,
 * skinned vertices (weights / 255), emitters (bone matrix x position, the
 * animated parameters, the enabled track), and clips named by animation id.
 *
 * Files come from tests/support/m2_writer.c and go through the whole load
 * (parse, import) and animd's sampling, as the tools and the daemon use it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "daemon/assets/asset.h"
#include "daemon/assets/sampling.h"
#include "tests/support/m2_writer.h"
#include "tests/unit/m2_expect.h"

#define EPS 1e-5

static struct asset *load(const struct m2w_model *m)
{
	struct m2w_file f;
	struct asset *a = NULL;
	char err[512];

	m2w_build(m, &f);
	if (asset_load_buffer("t.m2", f.buf, f.len, &a, err, sizeof err) != 0)
		fail_msg("%s", err);
	m2w_file_free(&f);
	return a;
}

static void assert_near(double got, double want)
{
	if (fabs(got - want) > EPS)
		fail_msg("got %.9g, want %.9g", got, want);
}

/* Joint j's local translation x at time t. */
static double local_tx(const struct asset *a, const char *clip, double t, uint32_t j)
{
	struct sample_result r;
	double x;

	m2x_sample(a, clip, t, SPACE_LOCAL, &r);
	x = r.local[j].t.x;
	sample_result_free(&r);
	return x;
}

static const struct m2w_sequence one_second[] = {
	{ .id = 4, .end_ms = 1000, .flags = M2_SEQ_IN_MODEL, .next_variation = -1 },
};

/* Two seconds, so that 1 s is inside the clip (a looping clip's end is
 * its next cycle's start). */
static const struct m2w_sequence two_seconds[] = {
	{ .id = 4, .end_ms = 2000, .flags = M2_SEQ_IN_MODEL, .next_variation = -1 },
};

/* One bone whose translation runs 0 -> 1 -> 3 along x at 0, 500, 1000 ms. */
static struct asset *translation_model(uint16_t interp, const float *values)
{
	static const uint32_t t[] = { 0, 500, 1000 };
	struct m2w_bone b = { .key_bone_id = -1, .parent = -1,
			      .t = { .interpolation = interp, .count = 3, .times = t, .values = values } };
	struct m2w_model m = { .sequence_count = 1, .sequences = one_second, .bone_count = 1,
			       .bones = &b };

	return load(&m);
}

static void test_step_and_linear(void **state)
{
	static const float v[] = { 0, 0, 0, 1, 0, 0, 3, 0, 0 };
	struct asset *step = translation_model(M2_INTERP_STEP, v);
	struct asset *lin = translation_model(M2_INTERP_LINEAR, v);

	(void)state;
	assert_near(local_tx(step, NULL, 0.25, 0), 0);
	assert_near(local_tx(step, NULL, 0.5, 0), 1);
	assert_near(local_tx(step, NULL, 0.75, 0), 1);
	assert_near(local_tx(lin, NULL, 0.25, 0), 0.5);
	assert_near(local_tx(lin, NULL, 0.75, 0), 2);
	/* Looping: 1.25 s is 0.25 s into the second cycle. */
	assert_near(local_tx(lin, NULL, 1.25, 0), 0.5);
	asset_free(step);
	asset_free(lin);
}

/*
 * Hermite from key i to key i+1 uses key i's out-tangent and key i+1's
 * in-tangent: at u = 1/2 the basis is h00 = 1/2, h10 = 1/8, h01 = 1/2,
 * h11 = -1/8.  Bezier's control points are value_i, out_i, in_{i+1},
 * value_{i+1}: at u = 1/2 the weights are 1/8, 3/8, 3/8, 1/8.
 */
static void test_hermite_and_bezier(void **state)
{
	/* value, in, out per key (x only). */
	static const float v[] = {
		0, 0, 0,  9, 0, 0,  2, 0, 0,     /* key 0: value 0, in 9, out 2 */
		1, 0, 0,  4, 0, 0,  7, 0, 0,     /* key 1: value 1, in 4, out 7 */
		3, 0, 0,  5, 0, 0,  6, 0, 0,     /* key 2: value 3, in 5, out 6 */
	};
	struct asset *h = translation_model(M2_INTERP_HERMITE, v);
	struct asset *b = translation_model(M2_INTERP_BEZIER, v);

	(void)state;
	assert_near(local_tx(h, NULL, 0.25, 0), 0.5 * 0 + 0.125 * 2 + 0.5 * 1 - 0.125 * 4);
	assert_near(local_tx(h, NULL, 0.75, 0), 0.5 * 1 + 0.125 * 7 + 0.5 * 3 - 0.125 * 5);
	assert_near(local_tx(b, NULL, 0.25, 0), 0.125 * 0 + 0.375 * 2 + 0.375 * 4 + 0.125 * 1);
	assert_near(local_tx(b, NULL, 0.75, 0), 0.125 * 1 + 0.375 * 7 + 0.375 * 5 + 0.125 * 3);
	/* The keys themselves. */
	assert_near(local_tx(h, NULL, 0.5, 0), 1);
	assert_near(local_tx(b, NULL, 0.5, 0), 1);
	asset_free(h);
	asset_free(b);
}

/*
 * A bone's pivot moves its translation keys into the runtime's frame
 * (T(pivot) T(t) ... in the file's bone matrix); bezier control points are
 * points and move with them, hermite tangents are directions and do not.
 * The bone at pivot x = 5 must sit at 5 + the curve of the file's keys.
 */
static void test_splines_with_a_pivot(void **state)
{
	static const uint32_t t[] = { 0, 500, 1000 };
	static const float v[] = {
		0, 0, 0,  9, 0, 0,  2, 0, 0,
		1, 0, 0,  4, 0, 0,  7, 0, 0,
		3, 0, 0,  5, 0, 0,  6, 0, 0,
	};
	static const uint16_t kinds[] = { M2_INTERP_HERMITE, M2_INTERP_BEZIER };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct m2w_bone b = { .key_bone_id = -1, .parent = -1, .pivot = { 5, 0, 0 },
				      .t = { .interpolation = kinds[i], .count = 3, .times = t,
					     .values = v } };
		struct m2w_model m = { .sequence_count = 1, .sequences = one_second, .bone_count = 1,
				       .bones = &b };
		struct asset *a = load(&m);
		double curve = kinds[i] == M2_INTERP_HERMITE
				       ? 0.5 * 0 + 0.125 * 2 + 0.5 * 1 - 0.125 * 4
				       : 0.125 * 0 + 0.375 * 2 + 0.375 * 4 + 0.125 * 1;

		assert_near(local_tx(a, NULL, 0.25, 0), 5 + curve);
		assert_near(local_tx(a, NULL, 0.5, 0), 5 + 1);
		asset_free(a);
	}
}

static void test_rotation_slerp(void **state)
{
	static const uint32_t t[] = { 0, 1000 };
	static const float q[] = { 0, 0, 0, 1, 0, 0, 1, 0 };    /* identity, 180 about z */
	struct m2w_bone b = { .key_bone_id = -1, .parent = -1,
			      .r = { .interpolation = M2_INTERP_LINEAR, .count = 2, .times = t,
				     .values = q } };
	struct m2w_model m = { .sequence_count = 1, .sequences = one_second, .bone_count = 1,
			       .bones = &b };
	struct asset *a = load(&m);
	struct sample_result r;

	(void)state;
	m2x_sample(a, NULL, 0.25, SPACE_LOCAL, &r);
	/* A quarter of the way: 45 degrees about z. */
	assert_near(r.local[0].r.z, sin(M_PI / 8));
	assert_near(r.local[0].r.w, cos(M_PI / 8));
	sample_result_free(&r);
	asset_free(a);
}

/* Two sequences on one timeline, ranges spanning every key: each plays
 * the keys in its own window, at its own clip time; a zero-length one
 * holds its key; an alias plays its target. */
static void test_windows_zero_length_and_variation(void **state)
{
	static const uint32_t t[] = { 0, 1000, 2000, 3000, 5000 };
	static const float v[] = { 0, 0, 0, 1, 0, 0, 5, 0, 0, 7, 0, 0, 42, 0, 0 };
	/* As in real classic files: sequence 3, flagged 0x40 (no alias before
	 * 264) with alias_next naming sequence 1, has its own window and keys;
	 * 0x20 is set on some sequences and not others, and says nothing of
	 * looping. */
	static const struct m2w_sequence seq[] = {
		{ .id = 0, .end_ms = 1000, .flags = M2_SEQ_IN_MODEL, .next_variation = -1 },
		{ .id = 1, .start_ms = 2000, .end_ms = 3000, .next_variation = -1 },
		{ .id = 2, .start_ms = 5000, .end_ms = 5000, .next_variation = -1 },
		{ .id = 1, .variation = 1, .start_ms = 3000, .end_ms = 5000,
		  .flags = M2_SEQ_ALIAS | M2_SEQ_IN_MODEL, .alias_next = 1, .next_variation = -1 },
	};
	struct m2w_bone b = { .key_bone_id = -1, .parent = -1,
			      .t = { .interpolation = M2_INTERP_LINEAR, .count = 5, .times = t,
				     .values = v, .ranges = M2W_RANGES_ALL } };
	struct m2w_model m = { .sequence_count = 4, .sequences = seq, .bone_count = 1,
			       .bones = &b };
	struct asset *a = load(&m);
	struct sample_result r;

	(void)state;
	assert_near(local_tx(a, "0", 0.5, 0), 0.5);
	assert_near(local_tx(a, "1", 0.5, 0), 6);
	/* Every sequence loops (no flag says otherwise, with or without 0x20):
	 * 7.25 s is 0.25 s into sequence 1's eighth cycle; played once it
	 * holds its last key. */
	assert_near(local_tx(a, "1", 7.25, 0), 5.5);
	assert_int_equal(a->clips[0]->loop, LOOP_LOOP);
	assert_int_equal(a->clips[1]->loop, LOOP_LOOP);
	{
		struct sample_request q = { .asset = a, .clip = "1", .time = 7.0,
					    .space = SPACE_LOCAL, .loop_set = 1, .loop = LOOP_ONCE };
		char err[128];

		assert_int_equal(sample_evaluate(&q, &r, err, sizeof err), 0);
		assert_near(r.local[0].t.x, 7);
		sample_result_free(&r);
	}
	/* Zero length: always its one key, never a division by zero. */
	m2x_sample(a, "2", 3.7, SPACE_LOCAL, &r);
	assert_int_equal(r.clip_time.t_ns, 0);
	assert_near(r.local[0].t.x, 42);
	sample_result_free(&r);
	/* The 0x40 variation plays its own window, 3000..5000: 7 to 42. */
	assert_near(local_tx(a, "3", 0.5, 0), 7 + 35 * 0.25);
	assert_near(local_tx(a, "3", 2.5, 0), 7 + 35 * 0.25);
	assert_int_equal(a->sequences[3].alias_of, -1);
	assert_int_equal(a->sequences[3].flags, M2_SEQ_ALIAS | M2_SEQ_IN_MODEL);
	/* By animation id: the first of id 1 is sequence 1, variation 1 the alias. */
	assert_ptr_equal(asset_find_clip(a, "id=1"), a->clips[1]);
	assert_ptr_equal(asset_find_clip(a, "id=1.1"), a->clips[3]);
	assert_ptr_equal(asset_find_clip(a, "id=2.0"), a->clips[2]);
	assert_null(asset_find_clip(a, "id=9"));
	assert_null(asset_find_clip(a, "id=1.x"));
	asset_free(a);
}

/* A track on a global sequence runs on its own clock: at playback time T
 * it is at T mod the sequence's length, whatever the clip does. */
static void test_global_sequence(void **state)
{
	static const uint32_t gl[] = { 400 };
	static const uint32_t t[] = { 0, 400 };
	static const float v[] = { 0, 0, 0, 8, 0, 0 };
	struct m2w_bone b = { .key_bone_id = -1, .parent = -1,
			      .t = { .interpolation = M2_INTERP_LINEAR, .global = 1, .count = 2,
				     .times = t, .values = v } };
	struct m2w_model m = { .global_sequence_count = 1, .global_sequences = gl,
			       .sequence_count = 1, .sequences = one_second, .bone_count = 1,
			       .bones = &b };
	struct asset *a = load(&m);

	(void)state;
	/* 0.1 s: 0.1 into the global sequence; 0.5 s: 0.1 into its second
	 * turn; 1.3 s: the clip has looped (clip time 0.3), the global
	 * sequence is at 1.3 mod 0.4 = 0.1. */
	assert_near(local_tx(a, NULL, 0.1, 0), 2);
	assert_near(local_tx(a, NULL, 0.5, 0), 2);
	assert_near(local_tx(a, NULL, 1.3, 0), 2);
	assert_near(local_tx(a, NULL, 0.3, 0), 6);
	assert_int_equal(a->global_count, 1);
	asset_free(a);
	/* fuzz_m2's finding: a track on a global sequence with no keys (and
	 * so no values) holds the bone's rest value; nothing reads through a
	 * null pointer. */
	b.t.count = 0;
	b.t.times = NULL;
	b.t.values = NULL;
	a = load(&m);
	assert_near(local_tx(a, NULL, 0.1, 0), 0);
	asset_free(a);
}

/*
 * Pivots: the bone matrix is B = B_parent T(p) T(t) R S T(-p).  Bone 1
 * (listed first, its parent bone 0 after it) has pivot (1, 2, 3) and turns
 * 90 degrees about z at t = 1 s; bone 0 is still, pivot (0, 0, 1).
 */
static void test_pivots_hierarchy_and_vertices(void **state)
{
	static const uint32_t t[] = { 0, 1000 };
	static const float q[] = { 0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f };
	struct m2w_bone b[2] = {
		{ .key_bone_id = -1, .parent = 1, .pivot = { 1, 2, 3 },
		  .r = { .interpolation = M2_INTERP_LINEAR, .count = 2, .times = t, .values = q } },
		{ .key_bone_id = -1, .parent = -1, .pivot = { 0, 0, 1 } },
	};
	/* One vertex on bone 0 (file index: the child), one shared 128/127. */
	struct m2w_vertex v[2] = {
		{ .position = { 2, 2, 3 }, .weights = { 255 }, .bones = { 0 } },
		{ .position = { 2, 2, 3 }, .weights = { 128, 127 }, .bones = { 0, 1 } },
	};
	struct m2w_model m = { .sequence_count = 1, .sequences = two_seconds, .bone_count = 2,
			       .bones = b, .vertex_count = 2, .vertices = v };
	struct asset *a = load(&m);
	struct sample_result r;
	const mat34 *k;

	(void)state;
	/* Parents first: joint 0 is file bone 1, joint 1 file bone 0. */
	assert_string_equal(a->skeleton->names[0], "bone1");
	assert_string_equal(a->skeleton->names[1], "bone0");
	assert_int_equal(a->skeleton->parents[1], 0);
	assert_int_equal(a->joint_info[1].file_index, 0);
	m2x_sample(a, NULL, 1.0, SPACE_SKIN, &r);
	/* skin of the child: rotation about z through (1, 2, 3):
	 * x' = 1 - (y - 2), y' = 2 + (x - 1). */
	k = &r.mats[1];
	assert_near(k->m[0][0], 0);
	assert_near(k->m[0][1], -1);
	assert_near(k->m[1][0], 1);
	assert_near(k->m[0][3], 1 + 2);
	assert_near(k->m[1][3], 2 - 1);
	assert_near(k->m[2][3], 0);
	/* The still parent's skin matrix is the identity. */
	assert_near(r.mats[0].m[0][3], 0);
	assert_near(r.mats[0].m[0][0], 1);
	sample_result_free(&r);
	/* model = B * T(pivot): the joint's frame sits at its pivot. */
	m2x_sample(a, NULL, 1.0, SPACE_MODEL, &r);
	assert_near(r.mats[1].m[0][3], 1);
	assert_near(r.mats[1].m[1][3], 2);
	assert_near(r.mats[1].m[2][3], 3);
	sample_result_free(&r);
	/* (2, 2, 3) turned about (1, 2, 3): (1, 3, 3); the shared vertex is
	 * 128/255 of that and 127/255 of where it was. */
	m2x_sample(a, NULL, 1.0, SPACE_VERTICES, &r);
	assert_near(r.positions[0][0].x, 1);
	assert_near(r.positions[0][0].y, 3);
	assert_near(r.positions[0][0].z, 3);
	assert_near(r.positions[0][1].x, (128 * 1.0 + 127 * 2.0) / 255);
	assert_near(r.positions[0][1].y, (128 * 3.0 + 127 * 2.0) / 255);
	sample_result_free(&r);
	asset_free(a);
}

/* The demo lantern's attachment point, event, billboard and notes as the
 * runtime has them: the event's moments per clip at their times in the
 * sequence, ordered (the file stores them out of order, one far past its
 * window, as real files do). */
static void test_demo_runtime_extras(void **state)
{
	struct asset *a = load(m2w_demo_description());
	uint32_t post, arm;

	(void)state;
	post = (uint32_t)skeleton_find(a->skeleton, "bone2");
	arm = (uint32_t)skeleton_find(a->skeleton, "bone1");
	assert_string_equal(m2_bone_billboard(a->joint_info[post].flags), "cylindrical_z");
	assert_null(m2_bone_billboard(a->joint_info[arm].flags));
	assert_int_equal(a->attachment_count, 1);
	assert_int_equal(a->attachments[0].id, 11);
	assert_int_equal(a->attachments[0].joint, (uint32_t)skeleton_find(a->skeleton, "bone0"));
	assert_true(a->attachments[0].position.z == 1.4f);
	assert_int_equal(a->clips[0]->attachment_count, 1);
	assert_int_equal(a->clips[0]->attachments[0].count, 1);
	assert_int_equal(a->event_count, 1);
	assert_memory_equal(a->events[0].id, "$CSD", 4);
	assert_int_equal(a->events[0].data, 7);
	assert_int_equal(a->events[0].joint, (int32_t)arm);
	assert_int_equal(a->clips[0]->event_count, 2);
	assert_true(a->clips[0]->events[0].t_ns == 500000000 &&
		    a->clips[0]->events[1].t_ns == 1500000000);
	assert_int_equal(a->clips[1]->event_count, 0);
	assert_int_equal(a->clips[2]->event_count, 2);
	assert_true(a->clips[2]->events[0].t_ns == 500000000 &&
		    a->clips[2]->events[1].t_ns == 32767000000);
	/* The junk playable lookup, noted and located. */
	assert_int_equal(a->note_count, 1);
	assert_non_null(strstr(a->notes[0], "t.m2: offset 0x"));
	assert_non_null(strstr(a->notes[0], ": note: the playable animation lookup entry 1 is "
			       "-404"));
	asset_free(a);
}

/* ---- bones that ignore part of their parent ---------------------------- */

/* 4x4 column-vector matrices for the expected values, worked out apart
 * from the runtime's 3x4 code. */
struct m4 {
	double m[4][4];
};

static struct m4 m4_id(void)
{
	struct m4 r = { { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 } } };

	return r;
}

static struct m4 m4_mul(struct m4 a, struct m4 b)
{
	struct m4 r;

	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			r.m[i][j] = 0;
			for (int k = 0; k < 4; k++)
				r.m[i][j] += a.m[i][k] * b.m[k][j];
		}
	return r;
}

static struct m4 m4_t(double x, double y, double z)
{
	struct m4 r = m4_id();

	r.m[0][3] = x, r.m[1][3] = y, r.m[2][3] = z;
	return r;
}

/* A rotation by angle a about axis 0 (x) or 2 (z). */
static struct m4 m4_r(int axis, double a)
{
	struct m4 r = m4_id();
	int u = axis == 2 ? 0 : 1, v = axis == 2 ? 1 : 2;

	r.m[u][u] = cos(a), r.m[u][v] = -sin(a);
	r.m[v][u] = sin(a), r.m[v][v] = cos(a);
	return r;
}

static struct m4 m4_s(double x, double y, double z)
{
	struct m4 r = m4_id();

	r.m[0][0] = x, r.m[1][1] = y, r.m[2][2] = z;
	return r;
}

/* T(p) T(t) R S T(-p): an M2 bone's own part. */
static struct m4 m4_bone(const float p[3], struct m4 trs)
{
	return m4_mul(m4_mul(m4_t(p[0], p[1], p[2]), trs), m4_t(-p[0], -p[1], -p[2]));
}

/* The parent's bone matrix with what `flags` ignores taken out
 * (WebWowViewerCpp's AnimationManager::calcBoneMatrix, in model space:
 * the root's axes and origin stand in for what is ignored; 0x2 alone keeps
 * the parent's rotation at unit scale), and the pivot kept where the
 * parent carries it unless 0x1 is set. */
static struct m4 m4_kept_parent(struct m4 par, uint32_t flags, const float pivot[3])
{
	struct m4 k = par;
	double at[3];

	for (int c = 0; c < 3; c++) {
		double len = sqrt(par.m[0][c] * par.m[0][c] + par.m[1][c] * par.m[1][c] +
				  par.m[2][c] * par.m[2][c]);

		for (int r = 0; r < 3; r++) {
			if ((flags & 6) == 6)
				k.m[r][c] = r == c;
			else if (flags & 4)
				k.m[r][c] = r == c ? len : 0;
			else if (flags & 2)
				k.m[r][c] = par.m[r][c] / len;
		}
	}
	for (int r = 0; r < 3; r++) {
		at[r] = par.m[r][3];
		for (int c = 0; c < 3; c++)
			at[r] += par.m[r][c] * pivot[c];
	}
	for (int r = 0; r < 3; r++) {
		k.m[r][3] = 0;
		if (!(flags & 1)) {
			k.m[r][3] = at[r];
			for (int c = 0; c < 3; c++)
				k.m[r][3] -= k.m[r][c] * pivot[c];
		}
	}
	return k;
}

/*
 * Bone flags 0x1, 0x2, 0x4 (ignore the parent's translation, scale,
 * rotation) in every combination: a child under a moved, turned and
 * stretched parent, and a grandchild without flags, which follows the
 * child as composed.  Skin matrices (M2's bone matrices) against the
 * formula worked out with 4x4 matrices; a billboard flag changes nothing.
 */
static void test_ignore_parent(void **state)
{
	static const uint32_t t0[] = { 0 };
	static const float tr0[] = { 0, 0, 2 }, ro0[] = { 0, 0, 0.70710678f, 0.70710678f };
	static const float sc0[] = { 2, 1, 1 }, tr1[] = { 0, 1, 0 };
	static const float ro1[] = { 0.38268343f, 0, 0, 0.92387953f };   /* 45 deg about x */
	struct m2w_bone b[3] = {
		{ .key_bone_id = -1, .parent = -1, .pivot = { 1, 0, 0 },
		  .t = { .count = 1, .times = t0, .values = tr0, .ranges = M2W_RANGES_ALL },
		  .r = { .count = 1, .times = t0, .values = ro0, .ranges = M2W_RANGES_ALL },
		  .s = { .count = 1, .times = t0, .values = sc0, .ranges = M2W_RANGES_ALL } },
		{ .key_bone_id = -1, .parent = 0, .pivot = { 3, 0, 1 },
		  .t = { .count = 1, .times = t0, .values = tr1, .ranges = M2W_RANGES_ALL },
		  .r = { .count = 1, .times = t0, .values = ro1, .ranges = M2W_RANGES_ALL } },
		{ .key_bone_id = -1, .parent = 1, .pivot = { 4, 0, 1 },
		  .flags = M2_BONE_SPHERICAL_BILLBOARD },
	};
	struct m2w_model m = { .sequence_count = 1, .sequences = one_second, .bone_count = 3,
			       .bones = b, .extra_ranges = 1 };
	struct m4 b0 = m4_bone(b[0].pivot, m4_mul(m4_mul(m4_t(0, 0, 2), m4_r(2, M_PI / 2)),
						  m4_s(2, 1, 1)));
	struct m4 own1 = m4_bone(b[1].pivot, m4_mul(m4_t(0, 1, 0), m4_r(0, M_PI / 4)));

	(void)state;
	for (uint32_t flags = 0; flags < 8; flags++) {
		struct m4 b1 = m4_mul(m4_kept_parent(b0, flags, b[1].pivot), own1);
		struct m4 want[3] = { b0, b1, b1 };
		struct sample_result r;
		struct asset *a;

		b[1].flags = flags;
		a = load(&m);
		assert_int_equal(a->skeleton->ignore_parent != NULL, flags != 0);
		m2x_sample(a, NULL, 0.5, SPACE_SKIN, &r);
		for (uint32_t j = 0; j < 3; j++)
			for (int row = 0; row < 3; row++)
				for (int col = 0; col < 4; col++)
					if (fabs(r.mats[j].m[row][col] - want[j].m[row][col]) > 1e-5)
						fail_msg("flags 0x%x bone %u [%d][%d]: got %.7g, want "
							 "%.7g", flags, j, row, col,
							 r.mats[j].m[row][col], want[j].m[row][col]);
		sample_result_free(&r);
		/* The model space agrees: model = skin * T(pivot). */
		m2x_sample(a, NULL, 0.5, SPACE_MODEL, &r);
		assert_near(r.mats[1].m[0][3], want[1].m[0][3] + want[1].m[0][0] * 3 +
			    want[1].m[0][2] * 1);
		sample_result_free(&r);
		asset_free(a);
	}
}

/* An emitter: its transform is its bone's matrix times its position; its
 * parameters follow their tracks (bezier, step, a global sequence); the
 * enabled track switches it. */
static void test_emitters(void **state)
{
	static const uint32_t gl[] = { 1000 };
	static const uint32_t t2[] = { 0, 1000 }, t3[] = { 0, 500, 1000 };
	static const float q[] = { 0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f };
	static const float rate[] = { 10, 20, 30 };
	static const float speed[] = { 0, 0, 2,  1, 4, 0 };      /* bezier: value, in, out */
	static const float life[] = { 1, 3 };
	static const uint8_t on[] = { 1, 0 };
	struct m2w_bone b = { .key_bone_id = -1, .parent = -1, .pivot = { 1, 0, 0 },
			      .r = { .interpolation = M2_INTERP_LINEAR, .count = 2, .times = t2,
				     .values = q } };
	struct m2w_emitter e = { .id = -1, .bone = 0, .position = { 2, 0, 0 },
				 .emitter_type = 1, .rows = 2, .columns = 3,
				 .colors = { 0xff102030u }, .sizes = { 1, 2, 3 } };
	struct m2w_model m = { .global_sequence_count = 1, .global_sequences = gl,
			       .sequence_count = 1, .sequences = two_seconds, .bone_count = 1,
			       .bones = &b, .emitter_count = 1, .emitters = &e };
	struct asset *a;
	struct sample_result r;

	(void)state;
	e.params[M2_EMIT_RATE] = (struct m2w_track){ .interpolation = M2_INTERP_STEP, .count = 3,
						      .times = t3, .values = rate };
	e.params[M2_EMIT_SPEED] = (struct m2w_track){ .interpolation = M2_INTERP_BEZIER,
						       .count = 2, .times = t2, .values = speed };
	e.params[M2_EMIT_LIFESPAN] = (struct m2w_track){ .interpolation = M2_INTERP_LINEAR,
							  .global = 1, .count = 2, .times = t2,
							  .values = life };
	e.enabled = (struct m2w_track){ .interpolation = M2_INTERP_STEP, .count = 2, .times = t3,
					.bytes = on };
	a = load(&m);
	assert_int_equal(a->emitter_count, 1);
	assert_int_equal(a->emitters[0].rows, 2);
	assert_int_equal(a->emitters[0].colors[0], 0xff102030u);
	m2x_sample(a, NULL, 0.25, SPACE_EMITTERS, &r);
	assert_int_equal(r.emitter_count, 1);
	assert_near(r.emitter_states[0].param[EMITTER_EMISSION_RATE], 10);
	/* bezier at u = 1/4: (27 * 0 + 27 * 2 + 9 * 4 + 1 * 1) / 64 */
	assert_near(r.emitter_states[0].param[EMITTER_EMISSION_SPEED], (27 * 2 + 9 * 4 + 1) / 64.0);
	assert_near(r.emitter_states[0].param[EMITTER_LIFESPAN], 1.5);
	assert_true(r.emitter_states[0].enabled == 1);
	/* Parameters without keys are 0. */
	assert_near(r.emitter_states[0].param[EMITTER_GRAVITY], 0);
	sample_result_free(&r);
	/* At 1 s the bone has turned 90 degrees about z around (1, 0, 0): the
	 * emitter at (2, 0, 0) in its space lands at (1, 1, 0). */
	m2x_sample(a, NULL, 1.0, SPACE_EMITTERS, &r);
	assert_near(r.emitter_states[0].m.m[0][3], 1);
	assert_near(r.emitter_states[0].m.m[1][3], 1);
	assert_near(r.emitter_states[0].param[EMITTER_EMISSION_RATE], 30);
	assert_true(r.emitter_states[0].enabled == 0);
	sample_result_free(&r);
	asset_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_and_linear),
		cmocka_unit_test(test_hermite_and_bezier),
		cmocka_unit_test(test_splines_with_a_pivot),
		cmocka_unit_test(test_rotation_slerp),
		cmocka_unit_test(test_windows_zero_length_and_variation),
		cmocka_unit_test(test_global_sequence),
		cmocka_unit_test(test_pivots_hierarchy_and_vertices),
		cmocka_unit_test(test_emitters),
		cmocka_unit_test(test_ignore_parent),
		cmocka_unit_test(test_demo_runtime_extras),
	};

	return cmocka_run_group_tests_name("m2 poses", tests, NULL, NULL);
}
