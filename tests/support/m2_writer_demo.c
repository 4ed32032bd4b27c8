/*
 * m2_writer_demo.c - the writer's ready-made models (m2_writer.h): the
 * small demo lantern, described once as static data, and the synthetic
 * model of any size the benchmark and the fuzz seeds use.
 */
#include "tests/support/m2_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *m2w_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL) {
		fprintf(stderr, "m2_writer: out of memory\n");
		abort();
	}
	return p;
}

/* ---- the demo: a lantern on a post ---- */

/* Times on the one timeline: Stand is 0..2000, Closed is the pose at
 * 2100, Stand's second variation 2200..3200, the flame's global sequence
 * runs 0..1200 on its own clock.  As real classic files do, the variation
 * is flagged 0x40 and has keys of its own in its own window (0x40 is no
 * alias before 264; with 0x20 it is none in 264 either), every track has
 * one trailing {0, 0} range, the playable lookup holds junk and the
 * event's ranges are half-open around unordered times, one of them 32767
 * ms past its window. */
static const uint32_t demo_globals[] = { 1200 };

static const struct m2w_sequence demo_sequences[] = {
	{ .id = 0, .variation = 0, .start_ms = 0, .end_ms = 2000, .movespeed = 0,
	  .flags = M2_SEQ_IN_MODEL, .frequency = 32767, .blend_ms = 150,
	  .box_min = { -1, -1, 0 }, .box_max = { 1, 1, 3 }, .radius = 3.2f,
	  .next_variation = 2, .alias_next = 0 },
	{ .id = 1, .start_ms = 2100, .end_ms = 2100, .flags = 0, .replay_min = 1,
	  .replay_max = 3, .box_min = { -1, -1, 0 }, .box_max = { 1, 1, 3 }, .radius = 3.2f,
	  .next_variation = -1, .alias_next = 1 },
	{ .id = 0, .variation = 1, .start_ms = 2200, .end_ms = 3200,
	  .flags = M2_SEQ_IN_MODEL | M2_SEQ_ALIAS, .frequency = 0,
	  .box_min = { -1, -1, 0 }, .box_max = { 1, 1, 3 }, .radius = 3.2f,
	  .next_variation = -1, .alias_next = 0 },
};

/* The arm: a nod about x through Stand, back to rest for Closed. */
static const uint32_t demo_arm_times[] = { 0, 1000, 2000, 2100 };
static const float demo_arm_rot[] = {
	0, 0, 0, 1,
	0.17364818f, 0, 0, 0.98480775f,
	0, 0, 0, 1,
	0, 0, 0, 1,
};

/* The lantern: a swing about y, a step in height, and a flicker of its
 * scale on the global sequence (hermite: value, in, out per key). */
static const uint32_t demo_swing_times[] = { 0, 500, 1500, 2000, 2100, 2200, 2700, 3200 };
static const float demo_swing_rot[] = {
	0, 0, 0, 1,
	0, 0.25881905f, 0, 0.96592583f,
	0, -0.25881905f, 0, 0.96592583f,
	0, 0, 0, 1,
	0, 0, 0, 1,
	0, 0, 0, 1,
	0.13052619f, 0, 0, 0.99144486f,
	0, 0, 0, 1,
};
static const uint32_t demo_step_times[] = { 0, 1000 };
static const float demo_step[] = { 0, 0, 0, 0, 0, 0.05f };
static const uint32_t demo_flicker_times[] = { 0, 600, 1200 };
static const float demo_flicker[] = {
	1, 1, 1,  0, 0, 0,  0.2f, 0.2f, 0.2f,
	1.1f, 1.1f, 1.3f,  0.1f, 0.1f, 0.1f,  -0.1f, -0.1f, -0.1f,
	1, 1, 1,  -0.2f, -0.2f, -0.2f,  0, 0, 0,
};

/* Stored child first: lantern (0) hangs from the arm (1), which hangs from
 * the post (2). */
static const struct m2w_bone demo_bones[] = {
	{ .key_bone_id = -1, .flags = M2_BONE_ANIMATED, .parent = 1, .submesh = 0,
	  .t = { .interpolation = M2_INTERP_STEP, .count = 2, .times = demo_step_times,
		 .values = demo_step },
	  .r = { .interpolation = M2_INTERP_LINEAR, .count = 8, .times = demo_swing_times,
		 .values = demo_swing_rot },
	  .s = { .interpolation = M2_INTERP_HERMITE, .global = 1, .count = 3,
		 .times = demo_flicker_times, .values = demo_flicker },
	  .pivot = { 0.5f, 0, 2 } },
	{ .key_bone_id = -1, .flags = M2_BONE_ANIMATED, .parent = 2,
	  .r = { .interpolation = M2_INTERP_LINEAR, .count = 4, .times = demo_arm_times,
		 .values = demo_arm_rot },
	  .pivot = { 0, 0, 2 } },
	{ .key_bone_id = 0, .flags = M2_BONE_CYLINDRICAL_BILLBOARD_Z, .parent = -1,
	  .pivot = { 0, 0, 0 } },
};

/* Two boxes: the post (vertices 0-7: bottom on the post, top shared with
 * the arm) and the lantern (8-15). */
#define DEMO_V(x, y, z, w0, b0, w1, b1, nx, ny, nz, u, v) \
	{ .position = { x, y, z }, .weights = { w0, w1, 0, 0 }, .bones = { b0, b1, 0, 0 }, \
	  .normal = { nx, ny, nz }, .uv = { { u, v }, { v, u } } }
static const struct m2w_vertex demo_vertices[] = {
	DEMO_V(-0.1f, -0.1f, 0, 255, 2, 0, 0, -0.577f, -0.577f, -0.577f, 0, 0),
	DEMO_V(0.1f, -0.1f, 0, 255, 2, 0, 0, 0.577f, -0.577f, -0.577f, 1, 0),
	DEMO_V(0.1f, 0.1f, 0, 255, 2, 0, 0, 0.577f, 0.577f, -0.577f, 1, 1),
	DEMO_V(-0.1f, 0.1f, 0, 255, 2, 0, 0, -0.577f, 0.577f, -0.577f, 0, 1),
	DEMO_V(-0.1f, -0.1f, 2, 128, 2, 127, 1, -0.577f, -0.577f, 0.577f, 0, 0),
	DEMO_V(0.1f, -0.1f, 2, 128, 2, 127, 1, 0.577f, -0.577f, 0.577f, 1, 0),
	DEMO_V(0.1f, 0.1f, 2, 128, 2, 127, 1, 0.577f, 0.577f, 0.577f, 1, 1),
	DEMO_V(-0.1f, 0.1f, 2, 128, 2, 127, 1, -0.577f, 0.577f, 0.577f, 0, 1),
	DEMO_V(0.3f, -0.2f, 1.4f, 255, 0, 0, 0, -0.577f, -0.577f, -0.577f, 0, 0),
	DEMO_V(0.7f, -0.2f, 1.4f, 255, 0, 0, 0, 0.577f, -0.577f, -0.577f, 1, 0),
	DEMO_V(0.7f, 0.2f, 1.4f, 255, 0, 0, 0, 0.577f, 0.577f, -0.577f, 1, 1),
	DEMO_V(0.3f, 0.2f, 1.4f, 255, 0, 0, 0, -0.577f, 0.577f, -0.577f, 0, 1),
	DEMO_V(0.3f, -0.2f, 1.9f, 255, 0, 0, 0, -0.577f, -0.577f, 0.577f, 0, 0),
	DEMO_V(0.7f, -0.2f, 1.9f, 255, 0, 0, 0, 0.577f, -0.577f, 0.577f, 1, 0),
	DEMO_V(0.7f, 0.2f, 1.9f, 255, 0, 0, 0, 0.577f, 0.577f, 0.577f, 1, 1),
	DEMO_V(0.3f, 0.2f, 1.9f, 255, 0, 0, 0, -0.577f, 0.577f, 0.577f, 0, 1),
};

/* The view lists the model's vertices in reverse, so resolving a corner
 * through it matters. */
static const uint16_t demo_list[] = { 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 };

/* A box's 12 triangles over view vertices b..b+7 (corners 0-3 at one end,
 * 4-7 at the other; view vertex k is model vertex 15 - k). */
#define DEMO_BOX(b) \
	(b) + 0, (b) + 2, (b) + 1, (b) + 0, (b) + 3, (b) + 2, \
	(b) + 4, (b) + 5, (b) + 6, (b) + 4, (b) + 6, (b) + 7, \
	(b) + 0, (b) + 1, (b) + 5, (b) + 0, (b) + 5, (b) + 4, \
	(b) + 1, (b) + 2, (b) + 6, (b) + 1, (b) + 6, (b) + 5, \
	(b) + 2, (b) + 3, (b) + 7, (b) + 2, (b) + 7, (b) + 6, \
	(b) + 3, (b) + 0, (b) + 4, (b) + 3, (b) + 4, (b) + 7
static const uint16_t demo_corners[] = { DEMO_BOX(0), DEMO_BOX(8) };

static const struct m2_submesh demo_submeshes[] = {
	{ .id = 0, .vertex_start = 0, .vertex_count = 16, .corner_start = 0,
	  .corner_count = 72, .bone_count = 3, .bone_start = 0, .bone_influences = 2,
	  .root_bone = 2, .center = { 0.25f, 0, 1 } },
};

static const struct m2w_view demo_views[] = {
	{ .vertex_count = 16, .vertices = demo_list, .corner_count = 72,
	  .corners = demo_corners, .property_count = 16, .submesh_count = 1,
	  .submeshes = demo_submeshes, .texture_unit_count = 1, .bone_count_max = 3 },
};

static const uint8_t demo_on[] = { 1 };
static const uint32_t demo_zero[] = { 0 };

static const struct m2w_attachment demo_attachments[] = {
	{ .id = 11, .bone = 0, .unknown = 0, .position = { 0.5f, 0, 1.4f },
	  .animate = { .interpolation = M2_INTERP_STEP, .count = 1, .times = demo_zero,
		       .bytes = demo_on, .ranges = M2W_RANGES_ALL } },
};

/* Creaks: at 1.5 s and 0.5 s of Stand (stored in that order), none in
 * Closed, at 0.5 s of the variation and once 32767 ms past its start, as
 * an exporter's 16-bit wrap leaves some.  Ranges half-open, one extra. */
static const uint32_t demo_creak_times[] = { 1500, 500, 2700, 2200 + 32767 };
static const uint32_t demo_creak_ranges[] = { 0, 2, 2, 2, 2, 4, 0, 0 };
static const struct m2w_event demo_events[] = {
	{ .id = { '$', 'C', 'S', 'D' }, .data = 7, .bone = 1, .position = { 0, 0, 2 },
	  .enabled = { .count = 4, .times = demo_creak_times, .ranges = M2W_RANGES_GIVEN,
		       .range_count = 4, .given = demo_creak_ranges } },
};

/* Sparks: a bezier emission speed over Stand, a stepped rate, on in Stand
 * and off in Closed. */
static const uint32_t demo_speed_times[] = { 0, 2000 };
static const float demo_speed[] = { 1.5f, 0, 0.5f,  2.5f, -0.5f, 0 };
static const uint32_t demo_rate_times[] = { 0, 1000, 2100 };
static const float demo_rate[] = { 20, 40, 0 };
static const float demo_life[] = { 0.8f };
static const float demo_spread[] = { 0.3f };
static const float demo_gravity[] = { -2 };
static const uint32_t demo_on_times[] = { 0, 2100 };
static const uint8_t demo_on_off[] = { 1, 0 };

static const struct m2w_emitter demo_emitters[] = {
	{ .id = -1, .flags = 0x1000, .position = { 0.5f, 0, 1.95f }, .bone = 0, .texture = 0,
	  .blend_mode = 4, .emitter_type = 1, .particle_type = 0, .tile_rotation = 1,
	  .rows = 2, .columns = 2,
	  .params = {
		[M2_EMIT_SPEED] = { .interpolation = M2_INTERP_BEZIER, .count = 2,
				    .times = demo_speed_times, .values = demo_speed },
		[M2_EMIT_VERTICAL_RANGE] = { .count = 1, .times = demo_zero,
					     .values = demo_spread, .ranges = M2W_RANGES_ALL },
		[M2_EMIT_GRAVITY] = { .count = 1, .times = demo_zero, .values = demo_gravity,
				      .ranges = M2W_RANGES_ALL },
		[M2_EMIT_LIFESPAN] = { .count = 1, .times = demo_zero, .values = demo_life,
				       .ranges = M2W_RANGES_ALL },
		[M2_EMIT_RATE] = { .interpolation = M2_INTERP_STEP, .count = 3,
				   .times = demo_rate_times, .values = demo_rate },
	  },
	  .midpoint = 0.4f, .colors = { 0xffffcc44u, 0xc0ff8800u, 0x00ff2200u },
	  .sizes = { 0.05f, 0.08f, 0.02f }, .tiles = { 0, 3, 1, 0, 3, 1, 0, 0, 0, 0 },
	  .tail_length = 0.5f, .twinkle_speed = 0.25f, .twinkle_percent = 0.1f,
	  .twinkle_scale_min = 0.9f, .twinkle_scale_max = 1.1f, .burst_multiplier = 1,
	  .slowdown = 0.5f, .rotation = 1,
	  .tumble_min = { -0.1f, -0.1f, -0.1f }, .tumble_max = { 0.1f, 0.1f, 0.1f },
	  .wind_vector = { 0.2f, 0, 0 }, .wind_time = 1,
	  .follow_speed1 = 2.5f, .follow_scale1 = 0.7f, .follow_speed2 = 7,
	  .follow_scale2 = 0.9f,
	  .enabled = { .interpolation = M2_INTERP_STEP, .count = 2, .times = demo_on_times,
		       .bytes = demo_on_off } },
};

static const int16_t demo_animation_lookup[] = { 0, 1 };
static const int16_t demo_playable_lookup[] = { 0, 0, -404, 0x28 };
static const int16_t demo_key_bone_lookup[] = { 2 };
static const uint16_t demo_bone_lookup[] = { 2, 1, 0 };
static const int16_t demo_attachment_lookup[] = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0 };

static const struct m2w_model demo_model = {
	.name = "Lantern",
	.global_flags = 0,
	.bounds = { -1, -1, 0, 1, 1, 3, 3.2f, -0.7f, -0.3f, 0, 0.7f, 0.3f, 2, 2.1f },
	.global_sequence_count = 1, .global_sequences = demo_globals,
	.sequence_count = 3, .sequences = demo_sequences,
	.bone_count = 3, .bones = demo_bones,
	.animation_lookup_count = 2, .animation_lookup = demo_animation_lookup,
	.playable_lookup_count = 2, .playable_lookup = demo_playable_lookup,
	.key_bone_lookup_count = 1, .key_bone_lookup = demo_key_bone_lookup,
	.bone_lookup_count = 3, .bone_lookup = demo_bone_lookup,
	.vertex_count = 16, .vertices = demo_vertices,
	.view_count = 1, .views = demo_views,
	.attachment_count = 1, .attachments = demo_attachments,
	.attachment_lookup_count = 12, .attachment_lookup = demo_attachment_lookup,
	.event_count = 1, .events = demo_events,
	.emitter_count = 1, .emitters = demo_emitters,
	.filler = { [M2_HDR_TEXTURES / 4] = 1, [M2_HDR_RENDER_FLAGS / 4] = 1,
		    [M2_HDR_TEXTURE_LOOKUP / 4] = 1 },
	.extra_ranges = 1,
};

const struct m2w_model *m2w_demo_description(void)
{
	return &demo_model;
}

void m2w_demo_model(struct m2w_file *out)
{
	m2w_build(&demo_model, out);
}

/* ---- the synthetic model ---- */

void m2w_synth(struct m2w_file *out, uint32_t nbones, uint32_t nseq, uint32_t kps, int shuffle)
{
	m2w_synth_version(out, 0, nbones, nseq, kps, shuffle);
}

void m2w_synth_version(struct m2w_file *out, uint32_t version, uint32_t nbones, uint32_t nseq,
		       uint32_t kps, int shuffle)
{
	uint32_t keys = nseq * kps;
	struct m2w_sequence *seq = calloc(nseq ? nseq : 1, sizeof *seq);
	struct m2w_bone *bones = calloc(nbones ? nbones : 1, sizeof *bones);
	uint32_t *times = m2w_xmalloc((size_t)keys * 4);
	float *tv = m2w_xmalloc((size_t)keys * 3 * 4 * nbones);
	float *rv = m2w_xmalloc((size_t)keys * 4 * 4 * nbones);
	float *sv = m2w_xmalloc((size_t)keys * 9 * 4 * nbones);
	uint32_t grid = 16, nvert = grid * grid;
	struct m2w_vertex *verts = calloc(nvert, sizeof *verts);
	uint16_t *list = m2w_xmalloc(nvert * 2);
	uint16_t *corners = m2w_xmalloc((size_t)(grid - 1) * (grid - 1) * 6 * 2);
	uint32_t nc = 0;
	struct m2w_view view = { 0 };
	struct m2w_model m = { 0 };

	if (seq == NULL || bones == NULL || verts == NULL)
		abort();
	for (uint32_t s = 0; s < nseq; s++) {
		seq[s].id = (uint16_t)s;
		seq[s].start_ms = s * 1100;
		seq[s].end_ms = s * 1100 + 1000;
		seq[s].flags = M2_SEQ_IN_MODEL;
		seq[s].next_variation = -1;
		seq[s].alias_next = (uint16_t)s;
		for (uint32_t k = 0; k < kps; k++)
			times[s * kps + k] = seq[s].start_ms + (kps > 1 ? k * 1000 / (kps - 1) : 0);
	}
	for (uint32_t i = 0; i < nbones; i++) {
		/* Stored index j holds logical bone i; with shuffle, children first. */
		uint32_t j = shuffle ? nbones - 1 - i : i;
		uint32_t parent = i == 0 ? 0 : (i - 1) / 3;
		struct m2w_bone *b = &bones[j];
		float *t = tv + (size_t)i * keys * 3, *r = rv + (size_t)i * keys * 4;
		float *sc = sv + (size_t)i * keys * 9;

		b->key_bone_id = i < 8 ? (int32_t)i : -1;
		b->flags = M2_BONE_ANIMATED;
		b->parent = i == 0 ? -1 : (int16_t)(shuffle ? nbones - 1 - parent : parent);
		b->pivot[2] = (float)i * 0.1f;
		for (uint32_t k = 0; k < keys; k++) {
			float a = (float)k * 0.01f + (float)i;

			t[3 * k] = a;
			t[3 * k + 1] = 0;
			t[3 * k + 2] = 1;
			r[4 * k] = 0;
			r[4 * k + 1] = 0;
			r[4 * k + 2] = 0.6f;
			r[4 * k + 3] = 0.8f;
			for (int c = 0; c < 9; c++)
				sc[9 * k + c] = c < 3 ? 1.0f : 0.0f;
		}
		b->t = (struct m2w_track){ .interpolation = M2_INTERP_LINEAR, .count = keys,
					   .times = times, .values = t };
		b->r = (struct m2w_track){ .interpolation = M2_INTERP_LINEAR, .count = keys,
					   .times = times, .values = r };
		b->s = (struct m2w_track){ .interpolation = M2_INTERP_HERMITE, .count = keys,
					   .times = times, .values = sc };
	}
	for (uint32_t y = 0; y < grid; y++) {
		for (uint32_t x = 0; x < grid; x++) {
			struct m2w_vertex *v = &verts[y * grid + x];

			v->position[0] = (float)x;
			v->position[1] = (float)y;
			v->normal[2] = 1;
			v->weights[0] = 200;
			v->weights[1] = 55;
			v->bones[0] = (uint8_t)((y * grid + x) % (nbones ? nbones : 1));
			v->bones[1] = (uint8_t)((y * grid + x + 1) % (nbones ? nbones : 1));
			if (nbones == 0)
				v->weights[0] = v->weights[1] = 0;
			list[y * grid + x] = (uint16_t)(y * grid + x);
			if (x + 1 < grid && y + 1 < grid) {
				uint16_t a = (uint16_t)(y * grid + x);

				corners[nc++] = a;
				corners[nc++] = (uint16_t)(a + 1);
				corners[nc++] = (uint16_t)(a + grid);
				corners[nc++] = (uint16_t)(a + 1);
				corners[nc++] = (uint16_t)(a + grid + 1);
				corners[nc++] = (uint16_t)(a + grid);
			}
		}
	}
	view.vertex_count = nvert;
	view.vertices = list;
	view.corner_count = nc;
	view.corners = corners;
	m.name = "synth";
	m.version = version;
	m.sequence_count = nseq;
	m.sequences = seq;
	m.bone_count = nbones;
	m.bones = bones;
	m.vertex_count = nvert;
	m.vertices = verts;
	m.view_count = 1;
	m.views = &view;
	m2w_build(&m, out);
	free(seq);
	free(bones);
	free(times);
	free(tv);
	free(rv);
	free(sv);
	free(verts);
	free(list);
	free(corners);
}
