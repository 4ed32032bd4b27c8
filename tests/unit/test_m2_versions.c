/*
 * M2 beyond the classic layout: The Burning Crusade (260..263: name
 * hashes in 112-byte bones, compressed rotations) and Wrath of the Lich
 * King (264: per-sequence key arrays, views in NAMEnn.skin, keys of
 * sequences without flag 0x20 in NAMEaaaa-vv.anim), against values worked
 * out by hand, through the whole load (parse, companions, import,
 * sampling).  One description is written in every version: the poses
 * must not depend on the layout.
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

#include "daemon/assets/asset.h"
#include "daemon/assets/sampling.h"
#include "tests/unit/m2_expect.h"

#define EPS 1e-5

static void assert_near(double got, double want)
{
	if (fabs(got - want) > EPS)
		fail_msg("got %.9g, want %.9g", got, want);
}

/* Companions from a writer's file: "t" + suffix; names in `drop` are
 * reported missing. */
struct mem_companions {
	struct m2w_file *f;
	const char *drop;
};

static int read_mem(void *ctx, const char *name, char **buf, size_t *len, char *err, size_t errlen)
{
	struct mem_companions *mc = ctx;
	struct m2w_companion *c;

	(void)err;
	(void)errlen;
	if (name[0] != 't' || (mc->drop != NULL && strcmp(name, mc->drop) == 0))
		return -ENOENT;
	c = m2w_companion(mc->f, name + 1);
	if (c == NULL)
		return -ENOENT;
	*buf = malloc(c->len ? c->len : 1);
	assert_non_null(*buf);
	memcpy(*buf, c->buf, c->len);
	*len = c->len;
	return 0;
}

static struct asset *load_file(struct m2w_file *f, const char *drop)
{
	struct mem_companions mc = { f, drop };
	struct asset_options o = { .read_companion = read_mem, .companion_ctx = &mc };
	struct asset *a = NULL;
	char err[512];

	if (asset_load_buffer_with("t.m2", f->buf, f->len, &o, &a, err, sizeof err) != 0)
		fail_msg("%s", err);
	return a;
}

static struct asset *load_version(const struct m2w_model *desc, uint32_t version, const char *drop)
{
	struct m2w_model m = *desc;
	struct m2w_file f;
	struct asset *a;

	m.version = version;
	m2w_build(&m, &f);
	a = load_file(&f, drop);
	m2w_file_free(&f);
	return a;
}

/* ---- the compressed quaternion ------------------------------------------ */

static void test_quat16_boundaries(void **state)
{
	(void)state;
	/* The two ends of the int16 range both decode to 0; 0 is -1 and -1 is
	 * +1 (WMV's Quat16ToQuat32). */
	assert_true(m2_quat16_decode(-32768) == 0.0f);
	assert_true(m2_quat16_decode(32767) == 0.0f);
	assert_true(m2_quat16_decode(0) == -1.0f);
	assert_true(m2_quat16_decode(-1) == 1.0f);
	assert_near(m2_quat16_decode(16384), -16383.0 / 32767.0);
	assert_near(m2_quat16_decode(-16384), 16384.0 / 32767.0);
	/* The writer's inverse. */
	assert_int_equal(m2w_quat16_encode(0.0f), -32768);
	assert_int_equal(m2w_quat16_encode(1.0f), -1);
	assert_int_equal(m2w_quat16_encode(-1.0f), 0);
	for (float f = -1.0f; f <= 1.0f; f += 0.125f)
		assert_true(fabs(m2_quat16_decode(m2w_quat16_encode(f)) - f) <= 0.5 / 32767 + 1e-7);
}

/* ---- one description, three layouts -------------------------------------- */

/* Two sequences on the shared timeline: 0 is [0, 1000], 1 is [2000, 3000]
 * (flag 0x20: looping up to 263, keys in the model in 264, where every
 * sequence loops).
 * Bone 0's translation x: 0, 2 at 0, 1000 ms; 10, 20 at 2000, 3000 ms.
 * Bone 1 (child, pivot (1, 0, 0)): a rotation about z from identity to
 * 180 degrees over each sequence, stored packed from 260 on. */
static const uint32_t tt[] = { 0, 1000, 2000, 3000 };
static const float tv[] = { 0, 0, 0, 2, 0, 0, 10, 0, 0, 20, 0, 0 };
static const float rv[] = { 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0 };

static struct m2w_sequence seqs[2] = {
	{ .id = 4, .end_ms = 1000, .flags = M2_SEQ_IN_MODEL, .next_variation = -1 },
	{ .id = 5, .variation = 1, .start_ms = 2000, .end_ms = 3000, .flags = M2_SEQ_IN_MODEL,
	  .next_variation = -1 },
};

static struct m2w_bone bones[2] = {
	{ .key_bone_id = -1, .parent = -1,
	  .t = { .interpolation = M2_INTERP_LINEAR, .count = 4, .times = tt, .values = tv } },
	{ .key_bone_id = -1, .parent = 0, .pivot = { 1, 0, 0 },
	  .r = { .interpolation = M2_INTERP_LINEAR, .count = 4, .times = tt, .values = rv } },
};

static const struct m2w_vertex verts[3] = {
	{ .position = { 2, 0, 0 }, .weights = { 255 }, .bones = { 1 } },
	{ .position = { 0, 1, 0 }, .weights = { 255 }, .bones = { 0 } },
	{ .position = { 1, 1, 0 }, .weights = { 128, 127 }, .bones = { 0, 1 } },
};
static const uint16_t view_vertices[] = { 0, 1, 2 };
static const uint16_t view_corners[] = { 0, 1, 2 };
static const struct m2w_view views[] = {
	{ .vertex_count = 3, .vertices = view_vertices, .corner_count = 3, .corners = view_corners },
};

static struct m2w_model two_sequences(void)
{
	struct m2w_model m = { .sequence_count = 2, .sequences = seqs, .bone_count = 2,
			       .bones = bones, .vertex_count = 3, .vertices = verts,
			       .view_count = 1, .views = views };

	return m;
}

/* Bone 1 at t in sequence `clip`: rotation half way is 90 degrees about
 * z (slerp), and vertex 0 = (2, 0, 0) on bone 1 turns about the pivot
 * (1, 0, 0) to (1, 1, 0), then moves with bone 0's translation. */
static void check_pose(const struct asset *a)
{
	struct sample_result r;

	m2x_sample(a, "0", 0.5, SPACE_LOCAL, &r);
	assert_near(r.local[0].t.x, 1);
	assert_near(r.local[1].r.z, sqrt(0.5));
	assert_near(r.local[1].r.w, sqrt(0.5));
	sample_result_free(&r);
	m2x_sample(a, "1", 0.25, SPACE_LOCAL, &r);
	assert_near(r.local[0].t.x, 12.5);
	assert_near(r.local[1].r.z, sin(M_PI / 8));
	assert_near(r.local[1].r.w, cos(M_PI / 8));
	sample_result_free(&r);
	m2x_sample(a, "1", 0.5, SPACE_VERTICES, &r);
	assert_int_equal(r.mesh_count, 1);
	assert_near(r.positions[0][0].x, 15 + 1);
	assert_near(r.positions[0][0].y, 1);
	assert_near(r.positions[0][1].x, 15);
	assert_near(r.positions[0][1].y, 1);
	sample_result_free(&r);
	m2x_sample(a, "1", 0.5, SPACE_SKIN, &r);
	/* Bone 1's skin matrix: T(15) T(pivot) Rz(90) T(-pivot): x' = 15 + 1 - y. */
	assert_near(r.mats[1].m[0][0], 0);
	assert_near(r.mats[1].m[0][1], -1);
	assert_near(r.mats[1].m[0][3], 16);
	assert_near(r.mats[1].m[1][3], -1);
	sample_result_free(&r);
}

static void test_same_pose_every_version(void **state)
{
	static const uint32_t versions[] = { 256, 260, 263, 264, 265, 272 };
	struct m2w_model m = two_sequences();

	(void)state;
	for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
		struct asset *a = load_version(&m, versions[i], NULL);

		assert_int_equal(a->version, (int)versions[i]);
		assert_int_equal(a->meshes[0]->triangle_count, 1);
		check_pose(a);
		assert_int_equal(a->companion_count, versions[i] >= 264 ? 1 : 0);
		asset_free(a);
	}
}

/* The parsed 260 and 264 records: sizes, the name hash, packed values,
 * per-sequence arrays. */
static void test_layouts(void **state)
{
	struct m2w_model m = two_sequences();
	struct m2w_file f;
	unsigned char *copy;
	struct m2_model *p;
	struct m2_keys k;

	(void)state;
	m.version = 260;
	m2w_build(&m, &f);
	p = m2x_ok(&f, &copy);
	assert_int_equal(p->layout->bone_bytes, 112);
	assert_int_equal(p->bones[1].name_hash, 0x9e370001u);
	assert_int_equal(p->bones[1].rotation.value_type, M2_VALUE_QUAT16);
	assert_int_equal(p->bones[1].rotation.key_bytes, 8);
	/* Key 1 is (0, 0, 1, 0): z stored -1, w stored -32768. */
	assert_int_equal(bin_les16(p->bones[1].rotation.values + 8 + 4), -1);
	assert_int_equal(bin_les16(p->bones[1].rotation.values + 8 + 6), -32768);
	m2_model_free(p);
	free(copy);
	m2w_file_free(&f);

	m.version = 264;
	m2w_build(&m, &f);
	assert_int_equal(m2w_get32(&f, M2_V264_VIEW_COUNT), 1);
	p = m2x_ok(&f, &copy);
	assert_int_equal(p->layout->header_bytes, 0x130);
	assert_int_equal(p->sequences[1].start_ms, 0);
	assert_int_equal(p->sequences[1].end_ms, 1000);
	assert_int_equal(p->bones[0].translation.seq_count, 2);
	assert_int_equal(p->bones[0].translation.key_count, 0);
	m2_track_sequence_keys(p, &p->bones[0].translation, 1, &k);
	assert_int_equal(k.count, 2);
	assert_int_equal(m2_keys_time(&k, 0), 0);
	assert_int_equal(m2_keys_time(&k, 1), 1000);
	assert_false(p->views[0].loaded);
	m2_model_free(p);
	free(copy);
	m2w_file_free(&f);
}

/* ---- .anim files --------------------------------------------------------- */

static struct m2w_model external_second(void)
{
	struct m2w_model m = two_sequences();
	static struct m2w_sequence s[2];

	memcpy(s, seqs, sizeof s);
	s[1].flags = 0;                 /* keys in t0005-01.anim; plays once */
	m.sequences = s;
	m.version = 264;
	return m;
}

static void test_external_anim(void **state)
{
	struct m2w_model m = external_second();
	struct m2w_file f;
	struct asset *a;

	(void)state;
	m2w_build(&m, &f);
	assert_non_null(m2w_companion(&f, "0005-01.anim"));
	a = load_file(&f, NULL);
	assert_int_equal(a->companion_count, 2);
	assert_string_equal(a->companions[1].name, "t0005-01.anim");
	assert_int_equal(a->companions[1].status, ASSET_COMPANION_FOUND);
	assert_true(a->sequences[1].loaded);
	assert_int_equal(a->sequences[1].data, M2_SEQ_DATA_ANIM);
	assert_null(a->note);
	/* 264 has no looping bit (0x20 says where the keys are): both loop. */
	assert_int_equal(asset_find_clip(a, "0")->loop, LOOP_LOOP);
	assert_int_equal(asset_find_clip(a, "1")->loop, LOOP_LOOP);
	check_pose(a);
	asset_free(a);
	m2w_file_free(&f);
}

/* Without its .anim only that sequence is not loaded; the others play. */
static void test_missing_anim(void **state)
{
	struct m2w_model m = external_second();
	struct m2w_file f;
	struct asset *a;
	struct sample_result r;

	(void)state;
	m2w_build(&m, &f);
	a = load_file(&f, "t0005-01.anim");
	assert_int_equal(a->companions[1].status, ASSET_COMPANION_MISSING);
	assert_false(a->sequences[1].loaded);
	assert_int_equal(a->sequences[1].data, M2_SEQ_DATA_ANIM_MISSING);
	assert_true(a->sequences[0].loaded);
	assert_null(asset_find_clip(a, "1"));
	assert_null(asset_find_clip(a, "id=5.1"));
	assert_non_null(asset_find_clip(a, "0"));
	assert_non_null(strstr(a->note, "t0005-01.anim missing (sequence 1 not loaded)"));
	m2x_sample(a, "0", 0.5, SPACE_LOCAL, &r);
	assert_near(r.local[0].t.x, 1);
	sample_result_free(&r);
	asset_free(a);
	m2w_file_free(&f);
}

/* A broken .anim is rejected with its name and an offset in it; the rest
 * of the model loads. */
static void test_broken_anim(void **state)
{
	struct m2w_model m = external_second();
	struct m2w_file f;
	struct m2w_companion *c;
	struct asset *a;

	(void)state;
	m2w_build(&m, &f);
	c = m2w_companion(&f, "0005-01.anim");
	c->len -= 4;                    /* the last value ends past the file */
	a = load_file(&f, NULL);
	assert_int_equal(a->companions[1].status, ASSET_COMPANION_BROKEN);
	assert_false(a->sequences[1].loaded);
	assert_non_null(a->companions[1].error);
	if (strncmp(a->companions[1].error, "t0005-01.anim: offset 0x", 24) != 0 ||
	    strstr(a->companions[1].error, "sequence 1 values") == NULL)
		fail_msg("%s", a->companions[1].error);
	assert_true(a->sequences[0].loaded);
	asset_free(a);
	/* Timestamps that go back, inside the .anim. */
	c->len += 4;
	{
		/* Bone 0's translation keys for sequence 1 are the .anim's first
		 * array: its second timestamp goes below the first. */
		c->buf[4] = 0;
		c->buf[5] = 0;
		c->buf[0] = 0xe8;
		c->buf[1] = 0x03;
	}
	a = load_file(&f, NULL);
	assert_int_equal(a->companions[1].status, ASSET_COMPANION_BROKEN);
	if (strstr(a->companions[1].error, "t0005-01.anim: offset 0x4: error: bone 0 "
		   "translation, sequence 1: key 1 at 0 ms comes before key 0 at 1000 ms") == NULL)
		fail_msg("%s", a->companions[1].error);
	asset_free(a);
	/* A Legion chunked .anim. */
	memcpy(c->buf, "AFM2", 4);
	a = load_file(&f, NULL);
	assert_non_null(strstr(a->companions[1].error, "t0005-01.anim: offset 0x0: error: a chunked"));
	asset_free(a);
	m2w_file_free(&f);
}

/* ---- .skin files --------------------------------------------------------- */

static void test_skin(void **state)
{
	struct m2w_model m = two_sequences();
	struct m2w_file f;
	struct m2w_companion *c;
	struct asset *a;
	struct sample_result r;

	(void)state;
	m.version = 264;
	m2w_build(&m, &f);
	c = m2w_companion(&f, "00.skin");
	assert_non_null(c);
	assert_memory_equal(c->buf, "SKIN", 4);
	/* Missing: the vertices are there, without triangles. */
	a = load_file(&f, "t00.skin");
	assert_int_equal(a->companions[0].status, ASSET_COMPANION_MISSING);
	assert_int_equal(a->meshes[0]->vertex_count, 3);
	assert_int_equal(a->meshes[0]->triangle_count, 0);
	m2x_sample(a, "1", 0.5, SPACE_VERTICES, &r);
	assert_near(r.positions[0][0].x, 16);
	sample_result_free(&r);
	asset_free(a);
	/* Broken: the vertex list names vertex 7 of 3. */
	{
		uint32_t list = (uint32_t)c->buf[8] | (uint32_t)c->buf[9] << 8;

		c->buf[list] = 7;
		c->buf[list + 1] = 0;
		a = load_file(&f, NULL);
		assert_int_equal(a->companions[0].status, ASSET_COMPANION_BROKEN);
		{
			char want[160];

			snprintf(want, sizeof want, "t00.skin: offset 0x%x: error: view 0: vertex list "
				 "entry 0 names vertex 7, but the model has 3 vertices", list);
			if (strcmp(a->companions[0].error, want) != 0)
				fail_msg("%s", a->companions[0].error);
		}
		/* The skeleton and clips load all the same. */
		assert_int_equal(a->clip_count, 2);
		assert_int_equal(a->meshes[0]->triangle_count, 0);
		asset_free(a);
	}
	/* Not a .skin. */
	memcpy(c->buf, "NIKS", 4);
	a = load_file(&f, NULL);
	assert_string_equal(a->companions[0].error,
			    "t00.skin: offset 0x0: error: not a .skin file: it does not start with "
			    "\"SKIN\"");
	asset_free(a);
	m2w_file_free(&f);
}

/* ---- 264 structure errors in the model ----------------------------------- */

static void test_v264_errors(void **state)
{
	struct m2w_model m = two_sequences();
	struct m2w_file f;
	uint32_t at;

	(void)state;
	m.version = 264;
	m2w_build(&m, &f);
	at = m2w_bone_track(&f, 0, 0);
	assert_int_equal(at, f.bones + 16);
	/* More pairs than sequences: the extra one is never read (it must
	 * still be inside the file). */
	m2w_put32(&f, at + 4, 3);
	m2w_put32(&f, at + 12, 3);
	{
		unsigned char *copy;
		struct m2_model *p = m2x_ok(&f, &copy);

		assert_int_equal(p->bones[0].translation.seq_count, 2);
		m2_model_free(p);
		free(copy);
	}
	m2w_put32(&f, at + 4, 0x20000000u);
	m2x_fails(&f, at + 4, "bone 0 translation timestamps: 536870912 x 8 bytes");
	m2w_put32(&f, at + 4, 2);
	m2w_put32(&f, at + 12, 1);
	m2x_fails(&f, at + 12, "bone 0 translation: 2 arrays of timestamps but 1 of values");
	m2w_put32(&f, at + 12, 2);
	/* Sequence 0's timestamps past the end of the model. */
	{
		uint32_t outer = m2w_get32(&f, at + 8);

		m2w_put32(&f, outer + 4, (uint32_t)f.len);
		m2x_fails(&f, outer, "bone 0 translation, sequence 0 timestamps: 2 x 4 bytes");
	}
	m2w_file_free(&f);
	m2w_build(&m, &f);
	m2w_put32(&f, M2_V264_VIEW_COUNT, 101);
	m2x_fails(&f, M2_V264_VIEW_COUNT, "101 views: their .skin files are numbered with two digits");
	m2w_file_free(&f);
	/* Global flag 0x200 gives a 264 model the 492-byte emitters of 265 and
	 * later (the wowdev wiki); the parameters are where they are in 476. */
	{
		struct m2w_model d = *m2w_demo_description();
		struct m2w_emitter e = d.emitters[0];
		unsigned char *copy;
		struct m2_model *p;

		d.version = 264;
		d.global_flags = 0x200;
		e.multi_texture[0] = 0.25f;
		e.multi_texture[3] = -2;
		d.emitters = &e;
		m2w_build(&d, &f);
		p = m2x_ok(&f, &copy);
		assert_int_equal(p->emitters[0].params[M2_EMIT_RATE].seq_count, 3);
		assert_true(p->emitters[0].multi_texture[0] == 0.25f);
		assert_true(p->emitters[0].multi_texture[3] == -2);
		m2_model_free(p);
		free(copy);
		m2w_file_free(&f);
	}
}

/* ---- 265 to 272 ----------------------------------------------------------- */

/* 264's layout, but 492-byte emitters whatever flag 0x200 says, and .skin
 * files of 64 bytes before their data (an array of shadow batches after
 * the bone count). */
static void test_cataclysm_to_mists(void **state)
{
	static const uint32_t versions[] = { 265, 268, 272 };
	struct m2w_model d = *m2w_demo_description();
	struct m2w_emitter e = d.emitters[0];

	(void)state;
	e.multi_texture[1] = 0.5f;
	d.emitters = &e;
	for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
		struct m2w_file f;
		unsigned char *copy;
		struct m2_model *p;
		struct m2w_companion *skin;
		struct asset *a;

		d.version = versions[i];
		m2w_build(&d, &f);
		assert_int_equal(m2w_get32(&f, m2_layout_field(m2_layout_of(versions[i]),
							  M2_HDR_PARTICLE_EMITTERS)), 1);
		p = m2x_ok(&f, &copy);
		assert_int_equal(p->version, versions[i]);
		assert_int_equal(p->layout->header_bytes, 0x130);
		assert_true(p->emitters[0].multi_texture[1] == 0.5f);
		assert_int_equal(p->emitters[0].params[M2_EMIT_RATE].seq_count, 3);
		m2_model_free(p);
		free(copy);
		skin = m2w_companion(&f, "00.skin");
		assert_non_null(skin);
		assert_int_equal(m2w_get32(&(struct m2w_file){ .buf = skin->buf }, 8), 64);
		m2w_file_free(&f);
		a = load_version(&d, versions[i], NULL);
		assert_int_equal(a->meshes[0]->triangle_count, 24);
		assert_int_equal(a->emitter_count, 1);
		asset_free(a);
	}
}

/* A 264+ track with one pair of arrays against several sequences is the
 * same for every sequence (as the client plays it: a sequence past the
 * pairs plays pair 0); emitter parameters are written so. */
static void test_single_pair(void **state)
{
	static const uint32_t t[] = { 0, 500 };
	static const float v[] = { 0, 0, 0, 4, 0, 0 };
	static const struct m2w_sequence s[3] = {
		{ .id = 0, .end_ms = 1000, .flags = M2_SEQ_IN_MODEL, .next_variation = -1 },
		{ .id = 1, .start_ms = 1000, .end_ms = 3000, .flags = M2_SEQ_IN_MODEL,
		  .next_variation = -1 },
		{ .id = 2, .start_ms = 3000, .end_ms = 3500, .flags = M2_SEQ_IN_MODEL,
		  .next_variation = -1 },
	};
	struct m2w_bone b = { .key_bone_id = -1, .parent = -1,
			      .t = { .interpolation = M2_INTERP_LINEAR, .count = 2, .times = t,
				     .values = v, .single = 1 } };
	struct m2w_model m = { .version = 264, .sequence_count = 3, .sequences = s,
			       .bone_count = 1, .bones = &b };
	struct asset *a = load_version(&m, 264, NULL);

	(void)state;
	for (uint32_t c = 0; c < 3; c++) {
		struct sample_result r;

		m2x_sample(a, a->clips[c]->name, 0.25, SPACE_LOCAL, &r);
		assert_near(r.local[0].t.x, 2);
		sample_result_free(&r);
	}
	asset_free(a);
}

/* The demo lantern (emitter, attachment, event, alias, global sequence,
 * hermite and bezier tracks) in 260, 263 and 264: every part the parser
 * reads comes out as 256's, the 264 emitter's parameters included. */
static void test_demo_every_version(void **state)
{
	static const uint32_t versions[] = { 260, 263, 264, 272 };
	struct m2w_model d = *m2w_demo_description();
	struct asset *base;

	(void)state;
	base = load_version(&d, 256, NULL);
	for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
		struct asset *a = load_version(&d, versions[i], NULL);

		assert_int_equal(a->clip_count, base->clip_count);
		assert_int_equal(a->emitter_count, 1);
		assert_int_equal(a->emitters[0].emitter_type, base->emitters[0].emitter_type);
		assert_int_equal(a->emitters[0].blend_mode, base->emitters[0].blend_mode);
		/* 264's colour, alpha and scale tracks give the classic statics. */
		for (int k = 0; k < 3; k++) {
			assert_int_equal(a->emitters[0].colors[k], base->emitters[0].colors[k]);
			assert_near(a->emitters[0].sizes[k], base->emitters[0].sizes[k]);
		}
		assert_true(fabs(a->emitters[0].midpoint - base->emitters[0].midpoint) < 1e-4);
		for (uint32_t c = 0; c < a->clip_count; c++) {
			static const double times[] = { 0, 0.3, 0.7, 1.9 };

			assert_true(a->sequences[c].loaded);
			for (size_t t = 0; t < 4; t++) {
				struct sample_result r, rb;

				m2x_sample(a, a->clips[c]->name, times[t], SPACE_EMITTERS, &r);
				m2x_sample(base, base->clips[c]->name, times[t], SPACE_EMITTERS, &rb);
				for (int p = 0; p < EMITTER_PARAMS; p++)
					assert_near(r.emitter_states[0].param[p], rb.emitter_states[0].param[p]);
				assert_near(r.emitter_states[0].enabled, rb.emitter_states[0].enabled);
				for (int row = 0; row < 3; row++)
					for (int col = 0; col < 4; col++)
						if (fabs(r.emitter_states[0].m.m[row][col] -
							 rb.emitter_states[0].m.m[row][col]) > 1e-4)
							fail_msg("version %u clip %u t %g: emitter matrix",
								 versions[i], c, times[t]);
				sample_result_free(&r);
				sample_result_free(&rb);
			}
		}
		asset_free(a);
	}
	asset_free(base);
}

static void test_companion_names(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(m2_skin_name("dir/HumanMale.m2", 3, out, sizeof out), 0);
	assert_string_equal(out, "dir/HumanMale03.skin");
	assert_int_equal(m2_anim_name("dir/HumanMale.M2", 60, 2, out, sizeof out), 0);
	assert_string_equal(out, "dir/HumanMale0060-02.anim");
	assert_int_equal(m2_companion_stem("dir/HumanMale03.skin", out, sizeof out), 0);
	assert_string_equal(out, "dir/HumanMale");
	assert_int_equal(m2_companion_stem("HumanMale0060-02.anim", out, sizeof out), 0);
	assert_string_equal(out, "HumanMale");
	assert_int_equal(m2_companion_stem("dir/Human.skin", out, sizeof out), -EINVAL);
	assert_int_equal(m2_companion_stem("dir/00.skin", out, sizeof out), -EINVAL);
	assert_int_equal(m2_companion_stem("walk.md5anim", out, sizeof out), -EINVAL);
	assert_int_equal(asset_detect("a00.skin", "MD20", 4), ASSET_FORMAT_UNKNOWN);
	assert_int_equal(asset_detect("a0000-00.anim", "MD20", 4), ASSET_FORMAT_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quat16_boundaries),
		cmocka_unit_test(test_same_pose_every_version),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_external_anim),
		cmocka_unit_test(test_missing_anim),
		cmocka_unit_test(test_broken_anim),
		cmocka_unit_test(test_skin),
		cmocka_unit_test(test_v264_errors),
		cmocka_unit_test(test_cataclysm_to_mists),
		cmocka_unit_test(test_single_pair),
		cmocka_unit_test(test_companion_names),
		cmocka_unit_test(test_demo_every_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
