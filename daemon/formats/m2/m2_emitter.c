/*
 * m2_emitter.c - particle emitters, 0x1F8 bytes each (476 from 264, 492
 * from 265 or with global flag 0x200: 264's record and 16 bytes of
 * multi-texture parameters): the seed's table,
 * field by field (m2.h, struct m2_emitter, gives each field's offset),
 * its ten animated parameters and its on/off track checked as tracks,
 * its bone checked, its two file-name lists and its spline points checked
 * for bounds.
 */
#include "daemon/formats/m2/m2_internal.h"

#include <inttypes.h>

static const char *const m2_emitter_names[M2_EMIT_PARAMS] = {
	[M2_EMIT_SPEED] = "emission speed",
	[M2_EMIT_SPEED_VARIATION] = "speed variation",
	[M2_EMIT_VERTICAL_RANGE] = "vertical range",
	[M2_EMIT_HORIZONTAL_RANGE] = "horizontal range",
	[M2_EMIT_GRAVITY] = "gravity",
	[M2_EMIT_LIFESPAN] = "lifespan",
	[M2_EMIT_RATE] = "emission rate",
	[M2_EMIT_AREA_LENGTH] = "area length",
	[M2_EMIT_AREA_WIDTH] = "area width",
	[M2_EMIT_Z_SOURCE] = "z source",
};

const char *m2_emitter_param_name(enum m2_emitter_param p)
{
	return (unsigned)p < M2_EMIT_PARAMS ? m2_emitter_names[p] : "unknown parameter";
}

static void m2_emitter_floats(const unsigned char *p, float *out, int n)
{
	for (int k = 0; k < n; k++)
		out[k] = bin_lef32(p + 4 * k);
}

/* Where the ten parameter tracks are in a 264 record: two floats (the
 * lifespan's and the emission rate's variation) sit between them. */
static const uint16_t m2_emitter_264_params[M2_EMIT_PARAMS] = {
	0x034, 0x048, 0x05c, 0x070, 0x084, 0x098, 0x0b0, 0x0c8, 0x0dc, 0x0f0,
};

/* The five fixed-point tracks of a 264 record (M2PartTrack: an array of
 * fixed16 times over a particle's life, 32767 its end, and an array of
 * values): where, value size, name. */
enum { PART_COLOR, PART_ALPHA, PART_SCALE, PART_HEAD_CELL, PART_TAIL_CELL, PART_COUNT };
static const struct {
	uint16_t at, value_bytes;
	const char *name;
} m2_emitter_264_parts[PART_COUNT] = {
	[PART_COLOR] = { 0x104, 12, "color track" },
	[PART_ALPHA] = { 0x114, 2, "alpha track" },
	[PART_SCALE] = { 0x124, 8, "scale track" },
	[PART_HEAD_CELL] = { 0x13c, 2, "head cell track" },
	[PART_TAIL_CELL] = { 0x14c, 2, "tail cell track" },
};

/* A part track's keys: times, values, count (both arrays checked). */
struct m2_part {
	struct m2_block times, values;
};

/* Component k of value j (floats, or fixed16 read as 0..1 when fixed). */
static float m2_part_value(const struct m2_part *t, uint32_t bytes, uint32_t j, int k, bool fixed)
{
	const unsigned char *v = t->values.data + (size_t)j * bytes;

	return fixed ? (float)bin_les16(v + 2 * k) / 32767.0f : bin_lef32(v + 4 * k);
}

/*
 * Component k at life fraction f (0..1): linear between the keys whose
 * times bracket it, the first or last key outside them, 0 with no key.
 * Keys are taken as stored; times that do not rise only make a step.
 */
static float m2_part_at(const struct m2_part *t, uint32_t bytes, int k, bool fixed, float f)
{
	uint32_t n = t->times.count < t->values.count ? t->times.count : t->values.count;
	float t0, t1;

	if (n == 0)
		return 0.0f;
	for (uint32_t j = 0; j + 1 < n; j++) {
		t0 = (float)bin_les16(t->times.data + 2 * (size_t)j) / 32767.0f;
		t1 = (float)bin_les16(t->times.data + 2 * (size_t)j + 2) / 32767.0f;
		if (f < t0)
			return m2_part_value(t, bytes, j, k, fixed);
		if (f <= t1 && t1 > t0)
			return m2_part_value(t, bytes, j, k, fixed) +
			       (m2_part_value(t, bytes, j + 1, k, fixed) -
				m2_part_value(t, bytes, j, k, fixed)) * (f - t0) / (t1 - t0);
	}
	return m2_part_value(t, bytes, n - 1, k, fixed);
}

static uint32_t m2_byte(float v)
{
	return !(v > 0.0f) ? 0u : v >= 255.0f ? 255u : (uint32_t)(v + 0.5f);
}

/*
 * The classic record's static start / middle / end colours and sizes from
 * a 264 record's colour, alpha and scale tracks, so every version reports
 * them alike: with three keys (what the exporters write) the keys
 * themselves and the middle key's time as the midpoint, as the viewers
 * read them; otherwise the tracks at 0, 0.5 and 1 of the life.  The cell
 * tracks have no classic counterpart: tiles stay 0.
 */
static void m2_emitter_264_statics(const struct m2_part *part, struct m2_emitter *e)
{
	const struct m2_part *col = &part[PART_COLOR], *alpha = &part[PART_ALPHA];
	const struct m2_part *scale = &part[PART_SCALE];
	bool three = col->times.count == 3 && col->values.count == 3;
	float at[3] = { 0.0f, 0.5f, 1.0f };

	if (three)
		at[1] = (float)bin_les16(col->times.data + 2) / 32767.0f;
	e->midpoint = at[1];
	for (int k = 0; k < 3; k++) {
		float a = alpha->values.count > 0 ? m2_part_at(alpha, 2, 0, true, at[k]) * 255.0f
						  : 255.0f;

		e->colors[k] = m2_byte(a) << 24 | m2_byte(m2_part_at(col, 12, 0, false, at[k])) << 16 |
			       m2_byte(m2_part_at(col, 12, 1, false, at[k])) << 8 |
			       m2_byte(m2_part_at(col, 12, 2, false, at[k]));
		e->sizes[k] = m2_part_at(scale, 8, 0, false, at[k]);
	}
}

/* A 264 emitter (476 bytes, WMVx's ModelParticleEmitterM2 for 264): the
 * same head as 263, then the tracks of 20 bytes with two variations
 * between them, fixed-point tracks where the static colors, sizes and
 * tiles were, and four spin values where there was one. */
static int m2_emitter_264(struct m2_ctx *c, const unsigned char *p, uint32_t i,
			  struct m2_emitter *e, struct m2_owner *who)
{
	uint64_t at = (uint64_t)(p - c->r.data);
	struct m2_part part[PART_COUNT];
	struct m2_block b;
	int rc;

	for (int k = 0; k < M2_EMIT_PARAMS; k++) {
		who->field = m2_emitter_names[k];
		rc = m2_track_read(c, at + m2_emitter_264_params[k], M2_VALUE_FLOAT, false, who,
				   &e->params[k]);
		if (rc < 0)
			return rc;
	}
	e->lifespan_vary = bin_lef32(p + 0x0ac);
	e->emission_rate_vary = bin_lef32(p + 0x0c4);
	for (int k = 0; k < PART_COUNT; k++) {
		uint16_t o = m2_emitter_264_parts[k].at;

		rc = m2_array(c, at + o, 2, &part[k].times, "particle emitter %" PRIu32 " %s times",
			      i, m2_emitter_264_parts[k].name);
		if (rc == 0)
			rc = m2_array(c, at + o + 8, m2_emitter_264_parts[k].value_bytes,
				      &part[k].values, "particle emitter %" PRIu32 " %s values", i,
				      m2_emitter_264_parts[k].name);
		if (rc < 0)
			return rc;
	}
	m2_emitter_264_statics(part, e);
	m2_emitter_floats(p + 0x134, e->scale_vary, 2);
	e->tail_length = bin_lef32(p + 0x15c);
	e->twinkle_speed = bin_lef32(p + 0x160);
	e->twinkle_percent = bin_lef32(p + 0x164);
	e->twinkle_scale_min = bin_lef32(p + 0x168);
	e->twinkle_scale_max = bin_lef32(p + 0x16c);
	e->burst_multiplier = bin_lef32(p + 0x170);
	e->slowdown = bin_lef32(p + 0x174);
	e->base_spin = bin_lef32(p + 0x178);
	e->base_spin_vary = bin_lef32(p + 0x17c);
	e->rotation = bin_lef32(p + 0x180);
	e->spin_vary = bin_lef32(p + 0x184);
	m2_emitter_floats(p + 0x188, e->tumble_min, 3);
	m2_emitter_floats(p + 0x194, e->tumble_max, 3);
	m2_emitter_floats(p + 0x1a0, e->wind_vector, 3);
	e->wind_time = bin_lef32(p + 0x1ac);
	e->follow_speed1 = bin_lef32(p + 0x1b0);
	e->follow_scale1 = bin_lef32(p + 0x1b4);
	e->follow_speed2 = bin_lef32(p + 0x1b8);
	e->follow_scale2 = bin_lef32(p + 0x1bc);
	rc = m2_array(c, at + 0x1c0, 12, &b, "particle emitter %" PRIu32 " spline points", i);
	if (rc < 0)
		return rc;
	e->spline_point_count = b.count;
	e->spline_points = b.data;
	/* The 492-byte record (265 and later) ends with two vec2 of
	 * multi-texture parameters. */
	if (c->emitter_bytes >= 0x1ec)
		m2_emitter_floats(p + 0x1dc, e->multi_texture, 4);
	who->field = "enabled";
	return m2_track_read(c, at + 0x1c8, M2_VALUE_U8, false, who, &e->enabled);
}

static int m2_emitter_one(struct m2_ctx *c, const unsigned char *p, uint32_t i,
			  struct m2_emitter *e)
{
	uint64_t at = (uint64_t)(p - c->r.data);
	struct m2_owner who = { "particle emitter", i, NULL };
	struct m2_block b;
	int rc;

	e->offset = (uint32_t)at;
	e->id = bin_les32(p);
	e->flags = bin_le32(p + 0x4);
	m2_emitter_floats(p + 0x8, e->position, 3);
	e->bone = bin_les16(p + 0x14);
	e->texture = bin_les16(p + 0x16);
	if (e->bone < 0 || (uint32_t)e->bone >= c->m->bone_count)
		return m2_error(c, at + 0x14, "particle emitter %" PRIu32 " is attached to bone %d, "
				"but the model has %" PRIu32 " bones", i, e->bone,
				c->m->bone_count);
	rc = m2_array(c, at + 0x18, 1, &b, "particle emitter %" PRIu32 " model name", i);
	if (rc < 0)
		return rc;
	e->model_name_bytes = b.count;
	e->model_name = b.data;
	rc = m2_array(c, at + 0x20, 1, &b, "particle emitter %" PRIu32 " recursion model name", i);
	if (rc < 0)
		return rc;
	e->recursion_name_bytes = b.count;
	e->recursion_name = b.data;
	if (c->l->emitter_u8_types) {
		e->blend_mode = p[0x28];
		e->emitter_type = p[0x29];
		e->color_index = bin_le16(p + 0x2a);
	} else {
		e->blend_mode = bin_les16(p + 0x28);
		e->emitter_type = bin_les16(p + 0x2a);
	}
	e->particle_type = bin_les16(p + 0x2c);
	e->tile_rotation = bin_les16(p + 0x2e);
	e->rows = bin_les16(p + 0x30);
	e->columns = bin_les16(p + 0x32);
	if (c->l->per_sequence)
		return m2_emitter_264(c, p, i, e, &who);
	for (int k = 0; k < M2_EMIT_PARAMS; k++) {
		who.field = m2_emitter_names[k];
		rc = m2_track_read(c, at + 0x34 + (uint64_t)M2_TRACK_BYTES * k, M2_VALUE_FLOAT,
				   false, &who, &e->params[k]);
		if (rc < 0)
			return rc;
	}
	e->midpoint = bin_lef32(p + 0x14c);
	for (int k = 0; k < 3; k++)
		e->colors[k] = bin_le32(p + 0x150 + 4 * k);
	m2_emitter_floats(p + 0x15c, e->sizes, 3);
	for (int k = 0; k < 10; k++)
		e->tiles[k] = bin_les16(p + 0x168 + 2 * k);
	e->tail_length = bin_lef32(p + 0x17c);
	e->twinkle_speed = bin_lef32(p + 0x180);
	e->twinkle_percent = bin_lef32(p + 0x184);
	e->twinkle_scale_min = bin_lef32(p + 0x188);
	e->twinkle_scale_max = bin_lef32(p + 0x18c);
	e->burst_multiplier = bin_lef32(p + 0x190);
	e->slowdown = bin_lef32(p + 0x194);
	e->rotation = bin_lef32(p + 0x198);
	m2_emitter_floats(p + 0x19c, e->tumble_min, 3);
	m2_emitter_floats(p + 0x1a8, e->tumble_max, 3);
	m2_emitter_floats(p + 0x1b4, e->wind_vector, 3);
	e->wind_time = bin_lef32(p + 0x1c0);
	e->follow_speed1 = bin_lef32(p + 0x1c4);
	e->follow_scale1 = bin_lef32(p + 0x1c8);
	e->follow_speed2 = bin_lef32(p + 0x1cc);
	e->follow_scale2 = bin_lef32(p + 0x1d0);
	rc = m2_array(c, at + 0x1d4, 12, &b, "particle emitter %" PRIu32 " spline points", i);
	if (rc < 0)
		return rc;
	e->spline_point_count = b.count;
	e->spline_points = b.data;
	who.field = "enabled";
	return m2_track_read(c, at + 0x1dc, M2_VALUE_U8, false, &who, &e->enabled);
}

int m2_emitter_read(struct m2_ctx *c)
{
	const struct m2_block *b = m2_header_block(c, M2_HDR_PARTICLE_EMITTERS);
	struct m2_model *m = c->m;

	m->emitter_count = b->count;
	m->emitters = m2_alloc(c, b->count, sizeof *m->emitters);
	for (uint32_t i = 0; i < b->count; i++) {
		int rc = m2_emitter_one(c, b->data + (size_t)i * c->emitter_bytes, i,
					&m->emitters[i]);

		if (rc < 0)
			return rc;
	}
	return 0;
}
