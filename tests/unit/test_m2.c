/*
 * The M2 parser on valid files from the tests' writer (support/
 * m2_writer.h): every field of the demo model comes back as described
 * (header, sequences and aliases, bones and their order, tracks of every
 * interpolation with their tangents, global-sequence tracks, ranges,
 * lookups, vertices, the view's triangles through its vertex list,
 * attachments, events, the emitter field by field); the same file laid
 * out off every natural alignment reads the same; the edge cases that are
 * valid stay valid (a header alone, zero-length sequences, unweighted
 * vertices, names without a NUL, version 257, ranges over all keys,
 * several sequences on one timeline, children before parents at scale);
 * and every prefix of a valid file fails cleanly.  (Errors:
 * test_m2_errors.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "tests/unit/m2_expect.h"

static void expect_floats(const float *got, const float *want, int n)
{
	for (int i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("float %d: got %.9g, want %.9g", i, got[i], want[i]);
}

/* A parsed track against the description it was written from. */
static void expect_track(const struct m2_model *m, const struct m2_track *t,
			 const struct m2w_track *w, enum m2_value_type type, int width)
{
	int parts = w->interpolation >= M2_INTERP_HERMITE ? 3 : 1;

	assert_int_equal(t->interpolation, w->interpolation);
	assert_int_equal(t->global_sequence, w->global - 1);
	assert_int_equal(t->value_type, type);
	assert_int_equal(t->key_count, w->count);
	if (type == M2_VALUE_U8)
		assert_int_equal(t->key_bytes, parts);
	else if (type != M2_VALUE_NONE)
		assert_int_equal(t->key_bytes, parts * width * 4);
	for (uint32_t k = 0; k < w->count; k++) {
		assert_int_equal(m2_track_time(t, k), w->times[k]);
		for (int part = 0; part < parts; part++) {
			if (type == M2_VALUE_U8) {
				assert_int_equal(m2_track_u8(t, k, part), w->bytes[k * parts + part]);
			} else if (type != M2_VALUE_NONE) {
				float v[4];

				m2_track_floats(t, k, part, v);
				expect_floats(v, w->values + (k * parts + part) * width, width);
			}
		}
	}
	if (w->global) {
		assert_int_equal(t->range_count, 0);
	} else if (w->ranges == M2W_RANGES_ALL) {
		/* One per sequence, then the writer's trailing {0, 0}s. */
		assert_true(t->range_count >= m->sequence_count);
		for (uint32_t s = 0; s < t->range_count; s++) {
			uint32_t first, last;

			m2_track_range(t, s, &first, &last);
			assert_int_equal(first, 0);
			assert_int_equal(last, w->count && s < m->sequence_count ? w->count - 1 : 0);
		}
	}
}

/* The demo, field by field. */
static void check_demo(const struct m2_model *m)
{
	const struct m2w_model *w = m2w_demo_description();
	const float bounds[14] = { -1, -1, 0, 1, 1, 3, 3.2f, -0.7f, -0.3f, 0, 0.7f, 0.3f, 2, 2.1f };
	uint32_t first, last, tri[3];
	struct m2_submesh sub;

	assert_int_equal(m->version, 256);
	assert_string_equal(m->name, "Lantern");
	assert_int_equal(m->global_flags, 0);
	expect_floats(m->bounds_min, bounds, 3);
	expect_floats(m->bounds_max, bounds + 3, 3);
	assert_true(m->bounds_radius == bounds[6]);
	expect_floats(m->collision_min, bounds + 7, 3);
	expect_floats(m->collision_max, bounds + 10, 3);
	assert_true(m->collision_radius == bounds[13]);
	assert_int_equal(m->global_sequence_count, 1);
	assert_int_equal(m->global_sequences[0], 1200);

	assert_int_equal(m->sequence_count, 3);
	for (uint32_t i = 0; i < 3; i++) {
		const struct m2_sequence *s = &m->sequences[i];
		const struct m2w_sequence *ws = &w->sequences[i];

		assert_int_equal(s->id, ws->id);
		assert_int_equal(s->variation, ws->variation);
		assert_int_equal(s->start_ms, ws->start_ms);
		assert_int_equal(s->end_ms, ws->end_ms);
		assert_true(s->movespeed == ws->movespeed);
		assert_int_equal(s->flags, ws->flags);
		assert_int_equal(s->frequency, ws->frequency);
		assert_int_equal(s->replay_min, ws->replay_min);
		assert_int_equal(s->replay_max, ws->replay_max);
		assert_int_equal(s->blend_ms, ws->blend_ms);
		expect_floats(s->box_min, ws->box_min, 3);
		expect_floats(s->box_max, ws->box_max, 3);
		assert_true(s->radius == ws->radius);
		assert_int_equal(s->next_variation, ws->next_variation);
		assert_int_equal(s->alias_next, ws->alias_next);
	}
	/* Flag 0x40 makes no alias before 264: the variation plays its own
	 * window. */
	assert_int_equal(m->sequences[0].alias_target, 0);
	assert_int_equal(m->sequences[1].alias_target, 1);
	assert_int_equal(m->sequences[2].alias_target, 2);
	assert_int_equal(m->sequences[1].start_ms, m->sequences[1].end_ms);

	assert_int_equal(m->bone_count, 3);
	for (uint32_t i = 0; i < 3; i++) {
		const struct m2_bone *b = &m->bones[i];
		const struct m2w_bone *wb = &w->bones[i];

		assert_int_equal(b->key_bone_id, wb->key_bone_id);
		assert_int_equal(b->flags, wb->flags);
		assert_int_equal(b->parent, wb->parent);
		assert_int_equal(b->submesh, wb->submesh);
		expect_floats(b->pivot, wb->pivot, 3);
		expect_track(m, &b->translation, &wb->t, M2_VALUE_VEC3, 3);
		expect_track(m, &b->rotation, &wb->r, M2_VALUE_QUAT, 4);
		expect_track(m, &b->scale, &wb->s, M2_VALUE_VEC3, 3);
	}
	/* Stored child first: the order is post, arm, lantern. */
	assert_int_equal(m->bone_order[0], 2);
	assert_int_equal(m->bone_order[1], 1);
	assert_int_equal(m->bone_order[2], 0);
	assert_int_equal(m->bones[2].depth, 0);
	assert_int_equal(m->bones[1].depth, 1);
	assert_int_equal(m->bones[0].depth, 2);
	/* The arm's ranges from the windows: Stand keys 0..2, Closed key 3,
	 * the variation (no key in 2200..3200) key 3, the one before it; and
	 * a trailing {0, 0}, as real files have. */
	assert_int_equal(m->bones[1].rotation.range_count, 4);
	m2_track_range(&m->bones[1].rotation, 0, &first, &last);
	assert_true(first == 0 && last == 2);
	m2_track_range(&m->bones[1].rotation, 1, &first, &last);
	assert_true(first == 3 && last == 3);
	m2_track_range(&m->bones[1].rotation, 2, &first, &last);
	assert_true(first == 3 && last == 3);
	m2_track_range(&m->bones[1].rotation, 3, &first, &last);
	assert_true(first == 0 && last == 0);
	/* The keys each plays: Stand 0..2, Closed 3, the variation 3; the
	 * swing's variation its own three keys; the flicker (global) all
	 * three; a keyless track none. */
	{
		const struct m2_track *arm = &m->bones[1].rotation;
		uint32_t f, e;

		m2_track_keys(m, arm, 0, &f, &e);
		assert_true(f == 0 && e == 3);
		m2_track_keys(m, arm, 1, &f, &e);
		assert_true(f == 3 && e == 4);
		m2_track_keys(m, arm, 2, &f, &e);
		assert_true(f == 3 && e == 4);
		m2_track_keys(m, &m->bones[0].rotation, 2, &f, &e);
		assert_true(f == 5 && e == 8);
		m2_track_keys(m, &m->bones[0].scale, 1, &f, &e);
		assert_true(f == 0 && e == 3);
		m2_track_keys(m, &m->bones[2].rotation, 0, &f, &e);
		assert_true(f == 0 && e == 0);
		/* The step translation (keys 0 and 1000, ranges from the windows:
		 * Closed has none, so it holds key 1, the last before it). */
		m2_track_keys(m, &m->bones[0].translation, 1, &f, &e);
		assert_true(f == 1 && e == 2);
	}
	/* A track without keys still has a {0, 0} range per sequence (and
	 * the trailing one). */
	assert_int_equal(m->bones[2].rotation.key_count, 0);
	assert_int_equal(m->bones[2].rotation.range_count, 4);
	/* The flicker runs on global sequence 0, hermite with tangents. */
	assert_int_equal(m->bones[0].scale.global_sequence, 0);
	assert_int_equal(m->bones[0].scale.key_bytes, 36);
	assert_int_equal(m->bones[0].rotation.offset, m->bones[0].offset + 40);

	assert_int_equal(m->animation_lookup.count, 2);
	assert_int_equal(bin_les16(m->animation_lookup.data + 2), 1);
	/* Junk in the playable lookup (as real classic files hold) is kept and
	 * noted, not refused. */
	assert_int_equal(m->playable_lookup.count, 2);
	assert_int_equal(bin_les16(m->playable_lookup.data + 4), -404);
	assert_int_equal(m->notes.count, 1);
	assert_non_null(strstr(m->notes.note[0].msg, "the playable animation lookup entry 1 is "
			       "-404, which names no fallback entry"));
	assert_int_equal(m->notes.note[0].offset, m->playable_lookup.offset + 4);
	assert_int_equal(m->key_bone_lookup.count, 1);
	assert_int_equal(bin_les16(m->key_bone_lookup.data), 2);
	assert_int_equal(m->bone_lookup.count, 3);
	assert_int_equal(bin_le16(m->bone_lookup.data + 4), 0);
	assert_int_equal(m->attachment_lookup.count, 12);
	assert_int_equal(bin_les16(m->attachment_lookup.data + 22), 0);

	assert_int_equal(m->vertex_count, 16);
	assert_int_equal(m->unweighted_vertex_count, 0);
	for (uint32_t i = 0; i < 16; i++) {
		const struct m2_vertex *v = &m->vertices[i];
		const struct m2w_vertex *wv = &w->vertices[i];

		expect_floats(v->position, wv->position, 3);
		expect_floats(v->normal, wv->normal, 3);
		expect_floats(v->uv[0], wv->uv[0], 2);
		expect_floats(v->uv[1], wv->uv[1], 2);
		assert_memory_equal(v->weights, wv->weights, 4);
		assert_memory_equal(v->bones, wv->bones, 4);
	}

	assert_int_equal(m->view_count, 1);
	assert_int_equal(m->views[0].vertex_count, 16);
	assert_int_equal(m->views[0].triangle_count, 24);
	assert_int_equal(m->views[0].property_count, 16);
	assert_int_equal(m->views[0].submesh_count, 1);
	assert_int_equal(m->views[0].texture_unit_count, 1);
	assert_int_equal(m->views[0].bone_count_max, 3);
	assert_int_equal(m2_view_vertex(&m->views[0], 0), 15);
	/* Triangle 12 is the post's first: view vertices 8, 10, 9, which the
	 * reversed list maps to model vertices 7, 5, 6. */
	m2_view_triangle(&m->views[0], 12, tri);
	assert_true(tri[0] == 7 && tri[1] == 5 && tri[2] == 6);
	m2_view_submesh(&m->views[0], 0, &sub);
	assert_int_equal(sub.vertex_count, 16);
	assert_int_equal(sub.corner_count, 72);
	assert_int_equal(sub.bone_count, 3);
	assert_int_equal(sub.bone_influences, 2);
	assert_int_equal(sub.root_bone, 2);
	assert_true(sub.center[0] == 0.25f && sub.center[2] == 1);

	assert_int_equal(m->attachment_count, 1);
	assert_int_equal(m->attachments[0].id, 11);
	assert_int_equal(m->attachments[0].bone, 0);
	expect_floats(m->attachments[0].position, w->attachments[0].position, 3);
	expect_track(m, &m->attachments[0].animate, &w->attachments[0].animate, M2_VALUE_U8, 1);

	assert_int_equal(m->event_count, 1);
	assert_memory_equal(m->events[0].id, "$CSD", 4);
	assert_int_equal(m->events[0].data, 7);
	assert_int_equal(m->events[0].bone, 1);
	expect_floats(m->events[0].position, w->events[0].position, 3);
	expect_track(m, &m->events[0].enabled, &w->events[0].enabled, M2_VALUE_NONE, 0);
	assert_null(m->events[0].enabled.values);
	assert_int_equal(m->events[0].enabled.range_count, 4);
	/* Half-open ranges over unordered times, one 32767 ms past its
	 * window: read as stored. */
	{
		struct m2_keys k;

		m2_event_keys(m, &m->events[0].enabled, 0, &k);
		assert_int_equal(k.count, 2);
		assert_int_equal(k.start_ms, 0);
		assert_int_equal(m2_keys_time(&k, 0), 1500);
		assert_int_equal(m2_keys_time(&k, 1), 500);
		m2_event_keys(m, &m->events[0].enabled, 1, &k);
		assert_int_equal(k.count, 0);
		m2_event_keys(m, &m->events[0].enabled, 2, &k);
		assert_int_equal(k.count, 2);
		assert_int_equal(k.start_ms, 2200);
		assert_int_equal(m2_keys_time(&k, 0), 2700);
		assert_int_equal(m2_keys_time(&k, 1), 2200 + 32767);
	}

	assert_int_equal(m->emitter_count, 1);
	{
		const struct m2_emitter *e = &m->emitters[0];
		const struct m2w_emitter *we = &w->emitters[0];

		assert_int_equal(e->id, -1);
		assert_int_equal(e->flags, 0x1000);
		expect_floats(e->position, we->position, 3);
		assert_int_equal(e->bone, 0);
		assert_int_equal(e->texture, 0);
		assert_int_equal(e->model_name_bytes, 0);
		assert_null(e->model_name);
		assert_int_equal(e->recursion_name_bytes, 0);
		assert_int_equal(e->blend_mode, 4);
		assert_int_equal(e->emitter_type, 1);
		assert_int_equal(e->particle_type, 0);
		assert_int_equal(e->tile_rotation, 1);
		assert_int_equal(e->rows, 2);
		assert_int_equal(e->columns, 2);
		for (int k = 0; k < M2_EMIT_PARAMS; k++)
			expect_track(m, &e->params[k], &we->params[k], M2_VALUE_FLOAT, 1);
		assert_int_equal(e->params[M2_EMIT_SPEED].interpolation, M2_INTERP_BEZIER);
		assert_int_equal(e->params[M2_EMIT_SPEED].key_bytes, 12);
		assert_int_equal(e->params[M2_EMIT_RATE].key_count, 3);
		assert_int_equal(e->params[M2_EMIT_Z_SOURCE].key_count, 0);
		assert_true(e->midpoint == 0.4f);
		assert_int_equal(e->colors[0], 0xffffcc44u);
		assert_int_equal(e->colors[2], 0x00ff2200u);
		expect_floats(e->sizes, we->sizes, 3);
		for (int k = 0; k < 10; k++)
			assert_int_equal(e->tiles[k], we->tiles[k]);
		assert_true(e->tail_length == 0.5f && e->twinkle_speed == 0.25f &&
			    e->twinkle_percent == 0.1f);
		assert_true(e->twinkle_scale_min == 0.9f && e->twinkle_scale_max == 1.1f &&
			    e->burst_multiplier == 1);
		assert_true(e->slowdown == 0.5f && e->rotation == 1);
		expect_floats(e->tumble_min, we->tumble_min, 3);
		expect_floats(e->tumble_max, we->tumble_max, 3);
		expect_floats(e->wind_vector, we->wind_vector, 3);
		assert_true(e->wind_time == 1);
		assert_true(e->follow_speed1 == 2.5f && e->follow_scale1 == 0.7f &&
			    e->follow_speed2 == 7 && e->follow_scale2 == 0.9f);
		assert_int_equal(e->spline_point_count, 0);
		expect_track(m, &e->enabled, &we->enabled, M2_VALUE_U8, 1);
	}
	assert_int_equal(m->textures.count, 1);
	assert_non_null(m->textures.data);
	assert_int_equal(m->render_flags.count, 1);
	assert_int_equal(m->texture_lookup.count, 1);
	assert_int_equal(m->lights.count, 0);
	assert_null(m->lights.data);
}

static void test_demo(void **state)
{
	struct m2w_file f;
	unsigned char *copy;
	struct m2_model *m;

	(void)state;
	m2w_demo_model(&f);
	m = m2x_ok(&f, &copy);
	check_demo(m);
	/* Zero-copy: the keys are in the buffer parsed. */
	assert_true(m->bones[0].rotation.times >= copy &&
		    m->bones[0].rotation.times < copy + f.len);
	m2_model_free(m);
	free(copy);
	m2w_file_free(&f);
}

/* Every array off its natural alignment: the same model. */
static void test_misaligned(void **state)
{
	struct m2w_model w = *m2w_demo_description();
	struct m2w_file f;
	unsigned char *copy;
	struct m2_model *m;

	(void)state;
	for (unsigned mis = 1; mis < 4; mis++) {
		w.misalign = mis;
		m2w_build(&w, &f);
		assert_int_equal(f.bones % 4, mis);
		m = m2x_ok(&f, &copy);
		check_demo(m);
		m2_model_free(m);
		free(copy);
		m2w_file_free(&f);
	}
}

/* A header and nothing else is a model: no bones, no sequences. */
static void test_header_only(void **state)
{
	struct m2w_model w = { 0 };
	struct m2w_file f;
	unsigned char *copy;
	struct m2_model *m;

	(void)state;
	m2w_build(&w, &f);
	assert_int_equal(f.len, M2_HEADER_BYTES);
	m = m2x_ok(&f, &copy);
	assert_string_equal(m->name, "");
	assert_int_equal(m->bone_count, 0);
	assert_int_equal(m->sequence_count, 0);
	assert_null(m->textures.data);
	m2_model_free(m);
	free(copy);
	/* Version 257 is read the same way. */
	w.version = 257;
	m2w_file_free(&f);
	m2w_build(&w, &f);
	m = m2x_ok(&f, &copy);
	assert_int_equal(m->version, 257);
	m2_model_free(m);
	free(copy);
	m2w_file_free(&f);
}

/* The stored length counts the NUL; without one the name is taken whole,
 * with bytes after it the name ends at the NUL. */
static void test_name(void **state)
{
	struct m2w_model w = { .name = "Crate" };
	struct m2w_file f;
	unsigned char *copy;
	struct m2_model *m;

	(void)state;
	m2w_build(&w, &f);
	m2w_put32(&f, M2_HDR_NAME, 5);  /* no NUL */
	m = m2x_ok(&f, &copy);
	assert_string_equal(m->name, "Crate");
	m2_model_free(m);
	free(copy);
	f.buf[m2w_get32(&f, M2_HDR_NAME + 4) + 2] = '\0';
	m = m2x_ok(&f, &copy);
	assert_string_equal(m->name, "Cr");
	m2_model_free(m);
	free(copy);
	m2w_file_free(&f);
}

/* Every interpolation on one bone's tracks, the spline ones with their
 * tangents, and a global-sequence track of zero length. */
static void test_interpolations(void **state)
{
	static const uint32_t times[] = { 0, 100, 100, 400 };   /* equal times are fine */
	static const float vec[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	static const float spline[] = { 1, 2, 3, -1, -2, -3, 0.5f, 0.25f, 0.125f,
					4, 5, 6, -4, -5, -6, 0.1f, 0.2f, 0.3f };
	static const float quats[] = { 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0,
				       0.5f, 0.5f, 0.5f, 0.5f, -0.5f, 0.5f, 0.5f, 0.5f };
	static const uint32_t globals[] = { 0, 400 };
	struct m2w_sequence seq = { .end_ms = 400, .next_variation = -1 };
	struct m2w_bone b[4] = {
		{ .parent = -1,
		  .t = { .interpolation = M2_INTERP_STEP, .count = 4, .times = times, .values = vec },
		  .r = { .interpolation = M2_INTERP_LINEAR, .count = 4, .times = times,
			 .values = quats },
		  .s = { .interpolation = M2_INTERP_HERMITE, .count = 2, .times = times,
			 .values = spline } },
		{ .parent = 0,
		  .t = { .interpolation = M2_INTERP_BEZIER, .count = 2, .times = times,
			 .values = spline },
		  .r = { .interpolation = M2_INTERP_HERMITE, .count = 2, .times = times,
			 .values = quats, .global = 2 },
		  .s = { .interpolation = M2_INTERP_LINEAR, .count = 1, .times = times,
			 .values = vec, .global = 1 } },
		{ .parent = 0 },
		{ .parent = 2 },
	};
	struct m2w_model w = { .global_sequence_count = 2, .global_sequences = globals,
			       .sequence_count = 1, .sequences = &seq, .bone_count = 4, .bones = b };
	struct m2w_file f;
	unsigned char *copy;
	struct m2_model *m;
	float v[4];

	(void)state;
	m2w_build(&w, &f);
	m = m2x_ok(&f, &copy);
	for (int i = 0; i < 2; i++) {
		expect_track(m, &m->bones[i].translation, &b[i].t, M2_VALUE_VEC3, 3);
		expect_track(m, &m->bones[i].rotation, &b[i].r, M2_VALUE_QUAT, 4);
		expect_track(m, &m->bones[i].scale, &b[i].s, M2_VALUE_VEC3, 3);
	}
	assert_int_equal(m->bones[0].translation.key_bytes, 12);
	assert_int_equal(m->bones[0].scale.key_bytes, 36);
	m2_track_floats(&m->bones[0].scale, 1, M2_KEY_OUT_TANGENT, v);
	assert_true(v[0] == 0.1f && v[1] == 0.2f && v[2] == 0.3f);
	m2_track_floats(&m->bones[1].translation, 0, M2_KEY_IN_TANGENT, v);
	assert_true(v[0] == -1 && v[2] == -3);
	assert_int_equal(m->bones[1].rotation.key_bytes, 48);
	m2_track_floats(&m->bones[1].rotation, 1, M2_KEY_VALUE, v);
	assert_true(v[0] == 1 && v[1] == 0 && v[3] == 0);  /* key 1: the 4th quat */
	/* Global tracks: no ranges; global sequence 0 lasts 0 ms. */
	assert_int_equal(m->bones[1].scale.global_sequence, 0);
	assert_int_equal(m->bones[1].scale.range_count, 0);
	assert_int_equal(m->global_sequences[0], 0);
	assert_int_equal(m->bones[3].depth, 2);
	m2_model_free(m);
	free(copy);
	m2w_file_free(&f);
}

/* Several sequences on one timeline, each its own slice of the keys, a
 * zero-length one included, and a track whose ranges span every key; a
 * global-sequence track may still carry ranges of any number. */
static void test_shared_timeline(void **state)
{
	static const uint32_t times[] = { 0, 500, 1000, 1000, 1500, 3000 };
	static const float vals[] = { 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5 };
	static const uint32_t given[] = { 0, 5 };
	static const uint32_t globals[] = { 3000 };
	struct m2w_sequence seq[3] = {
		{ .start_ms = 0, .end_ms = 1000, .next_variation = -1 },
		{ .start_ms = 1000, .end_ms = 1500, .next_variation = -1 },
		{ .start_ms = 3000, .end_ms = 3000, .next_variation = -1 },
	};
	struct m2w_bone b[2] = {
		{ .parent = -1, .t = { .interpolation = 1, .count = 6, .times = times, .values = vals },
		  .s = { .interpolation = 1, .count = 6, .times = times, .values = vals,
			 .ranges = M2W_RANGES_ALL } },
		{ .parent = 0, .t = { .interpolation = 1, .count = 6, .times = times, .values = vals,
				      .global = 1, .ranges = M2W_RANGES_GIVEN, .range_count = 1,
				      .given = given } },
	};
	struct m2w_model w = { .global_sequence_count = 1, .global_sequences = globals,
			       .sequence_count = 3, .sequences = seq, .bone_count = 2, .bones = b };
	const uint32_t want[3][2] = { { 0, 3 }, { 2, 4 }, { 5, 5 } };
	struct m2w_file f;
	unsigned char *copy;
	struct m2_model *m;

	(void)state;
	m2w_build(&w, &f);
	m = m2x_ok(&f, &copy);
	for (uint32_t s = 0; s < 3; s++) {
		uint32_t first, last;

		m2_track_range(&m->bones[0].translation, s, &first, &last);
		assert_int_equal(first, want[s][0]);
		assert_int_equal(last, want[s][1]);
		m2_track_range(&m->bones[0].scale, s, &first, &last);
		assert_true(first == 0 && last == 5);
	}
	assert_int_equal(m->bones[1].translation.range_count, 1);
	/* The keys each sequence plays: the window narrows a range that
	 * spans them all; a global track plays all its keys. */
	{
		const uint32_t keys[3][2] = { { 0, 4 }, { 2, 5 }, { 5, 6 } };

		for (uint32_t s = 0; s < 3; s++) {
			uint32_t first, end;

			m2_track_keys(m, &m->bones[0].scale, s, &first, &end);
			assert_int_equal(first, keys[s][0]);
			assert_int_equal(end, keys[s][1]);
			m2_track_keys(m, &m->bones[0].translation, s, &first, &end);
			assert_int_equal(first, keys[s][0]);
			assert_int_equal(end, keys[s][1]);
			m2_track_keys(m, &m->bones[1].translation, s, &first, &end);
			assert_true(first == 0 && end == 6);
		}
	}
	m2_model_free(m);
	free(copy);
	m2w_file_free(&f);
}

/* A vertex whose weights are all 0 is kept and counted; its bone indices
 * (here past the bones) mean nothing and are not checked. */
static void test_unweighted(void **state)
{
	struct m2w_bone b = { .parent = -1 };
	struct m2w_vertex v[3] = {
		{ .position = { 1, 2, 3 }, .weights = { 0, 0, 0, 0 }, .bones = { 9, 9, 9, 9 } },
		{ .weights = { 255, 0, 0, 0 }, .bones = { 0, 200, 7, 1 } },
		{ .weights = { 1, 254, 0, 0 } },
	};
	struct m2w_model w = { .bone_count = 1, .bones = &b, .vertex_count = 3, .vertices = v };
	struct m2w_file f;
	unsigned char *copy;
	struct m2_model *m;

	(void)state;
	m2w_build(&w, &f);
	m = m2x_ok(&f, &copy);
	assert_int_equal(m->vertex_count, 3);
	assert_int_equal(m->unweighted_vertex_count, 1);
	assert_true(m->vertices[0].position[2] == 3);
	m2_model_free(m);
	free(copy);
	m2w_file_free(&f);
}

/* An emitter's file names and spline points come back as stored. */
static void test_emitter_lists(void **state)
{
	static const float points[] = { 0, 0, 0, 1, 0, 0, 1, 1, 0 };
	struct m2w_bone b = { .parent = -1 };
	struct m2w_emitter e = { .bone = 0, .emitter_type = 3, .model_name = "Spark.mdx",
				 .recursion_name = "", .spline_point_count = 3,
				 .spline_points = points };
	struct m2w_model w = { .bone_count = 1, .bones = &b, .emitter_count = 1, .emitters = &e };
	struct m2w_file f;
	unsigned char *copy;
	struct m2_model *m;

	(void)state;
	m2w_build(&w, &f);
	m = m2x_ok(&f, &copy);
	assert_int_equal(m->emitters[0].model_name_bytes, 10);
	assert_memory_equal(m->emitters[0].model_name, "Spark.mdx", 10);
	assert_int_equal(m->emitters[0].recursion_name_bytes, 1);
	assert_int_equal(m->emitters[0].spline_point_count, 3);
	assert_true(bin_lef32(m->emitters[0].spline_points + 24) == 1);
	assert_true(bin_lef32(m->emitters[0].spline_points + 28) == 1);
	assert_string_equal(m2_emitter_param_name(M2_EMIT_RATE), "emission rate");
	assert_string_equal(m2_emitter_param_name(M2_EMIT_Z_SOURCE), "z source");
	m2_model_free(m);
	free(copy);
	m2w_file_free(&f);
}

/* 300 bones stored children first, 40 sequences: the order puts every
 * parent first, depths agree with it, and every index appears once. */
static void test_big_order(void **state)
{
	struct m2w_file f;
	unsigned char *copy;
	struct m2_model *m;
	uint32_t *pos;

	(void)state;
	m2w_synth(&f, 300, 40, 5, 1);
	m = m2x_ok(&f, &copy);
	assert_int_equal(m->bone_count, 300);
	pos = calloc(300, sizeof *pos);
	assert_non_null(pos);
	for (uint32_t i = 0; i < 300; i++)
		pos[m->bone_order[i]] = i + 1;
	for (uint32_t i = 0; i < 300; i++) {
		const struct m2_bone *b = &m->bones[i];

		assert_true(pos[i] != 0);
		if (b->parent < 0) {
			assert_int_equal(b->depth, 0);
		} else {
			assert_true(pos[b->parent] < pos[i]);
			assert_int_equal(b->depth, m->bones[b->parent].depth + 1);
		}
	}
	assert_int_equal(m->bone_order[0], 299);        /* the root, stored last */
	assert_int_equal(m->bones[0].rotation.key_count, 200);
	assert_int_equal(m->bones[0].rotation.range_count, 40);
	free(pos);
	m2_model_free(m);
	free(copy);
	m2w_file_free(&f);
}

/* Every prefix of the demo fails, at an offset inside what it has, and
 * allocates nothing it keeps. */
static void every_prefix(uint32_t version);

static void test_every_prefix(void **state)
{
	static const uint32_t versions[] = { 256, 260, 264, 272 };

	(void)state;
	for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++)
		every_prefix(versions[v]);
}

/* Every prefix of the demo in version v fails cleanly (under ASan: with
 * no read past its end, the header's flags included). */
static void every_prefix(uint32_t version)
{
	struct m2w_model w = *m2w_demo_description();
	struct m2w_file f;

	w.version = version;
	w.global_flags = version >= 264 ? 0x200 : 0;
	m2w_build(&w, &f);
	for (size_t n = 0; n < f.len; n++) {
		unsigned char *copy = malloc(n ? n : 1);
		struct m2_model *m = (struct m2_model *)1;
		struct diag d = { 0 };
		int rc;

		assert_non_null(copy);
		memcpy(copy, f.buf, n);
		rc = m2_parse(copy, n, &m, &d);
		if (rc != -EINVAL || !d.set || d.offset > f.len || m != NULL)
			fail_msg("prefix of %zu bytes: rc %d, offset 0x%llx: %s", n, rc,
				 (unsigned long long)d.offset, d.msg);
		free(copy);
	}
	m2w_file_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demo),
		cmocka_unit_test(test_misaligned),
		cmocka_unit_test(test_header_only),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_interpolations),
		cmocka_unit_test(test_shared_timeline),
		cmocka_unit_test(test_unweighted),
		cmocka_unit_test(test_emitter_lists),
		cmocka_unit_test(test_big_order),
		cmocka_unit_test(test_every_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
