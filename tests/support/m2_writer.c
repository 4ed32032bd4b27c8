/*
 * m2_writer.c - the layout half of m2_writer.h: the 0x144-byte header
 * first, then every array after it in header order, a record array
 * reserved before the arrays its records point at, each record written
 * once those are placed.
 */
#include "tests/support/m2_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct m2w {
	const struct m2w_model *m;
	unsigned char *p;
	size_t len, cap;
};

/* n zero bytes at the end, their offset aligned to the model's misalign
 * remainder mod 4. */
static uint32_t m2w_reserve(struct m2w *w, size_t n)
{
	size_t at = w->len;

	while (at % 4 != w->m->misalign % 4)
		at++;
	if (at + n > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;

		while (cap < at + n)
			cap *= 2;
		w->p = realloc(w->p, cap);
		if (w->p == NULL) {
			fprintf(stderr, "m2_writer: out of memory\n");
			abort();
		}
		memset(w->p + w->cap, 0, cap - w->cap);
		w->cap = cap;
	}
	w->len = at + n;
	return (uint32_t)at;
}

static void m2w_u16(struct m2w *w, size_t at, uint16_t v)
{
	w->p[at] = (unsigned char)v;
	w->p[at + 1] = (unsigned char)(v >> 8);
}

static void m2w_u32(struct m2w *w, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		w->p[at + i] = (unsigned char)(v >> (8 * i));
}

static void m2w_f32(struct m2w *w, size_t at, float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	m2w_u32(w, at, u);
}

static void m2w_floats(struct m2w *w, size_t at, const float *f, int n)
{
	for (int i = 0; i < n; i++)
		m2w_f32(w, at + 4 * (size_t)i, f[i]);
}

/* A {count, offset} pair at `at` for count elements of size bytes:
 * returns where the (zeroed) elements are, 0 for none. */
static uint32_t m2w_array(struct m2w *w, size_t at, uint32_t count, size_t size)
{
	uint32_t off = 0;

	if (count > 0)
		off = m2w_reserve(w, (size_t)count * size);
	m2w_u32(w, at, count);
	m2w_u32(w, at + 4, off);
	return off;
}

/* The key range of one sequence window, as M2W_RANGES_AUTO says. */
static void m2w_auto_range(const struct m2w_track *t, const struct m2w_sequence *s,
			   uint32_t *first, uint32_t *last)
{
	uint32_t f = UINT32_MAX, l = 0, before = 0;

	for (uint32_t k = 0; k < t->count; k++) {
		if (t->times[k] >= s->start_ms && t->times[k] <= s->end_ms) {
			if (f == UINT32_MAX)
				f = k;
			l = k;
		} else if (t->times[k] < s->start_ms) {
			before = k;
		}
	}
	if (f == UINT32_MAX)
		f = l = before;
	*first = f;
	*last = l;
}

/* A track record at `at` (28 bytes, or 20 when width is 0: timestamps
 * only) and its arrays.  width: floats per value, or -1 for bytes. */
static void m2w_track(struct m2w *w, size_t at, const struct m2w_track *t, int width)
{
	const struct m2w_model *m = w->m;
	uint32_t nranges = 0, off;
	int per_key = t->interpolation == M2_INTERP_HERMITE || t->interpolation == M2_INTERP_BEZIER ? 3 : 1;

	m2w_u16(w, at, t->interpolation);
	m2w_u16(w, at + 2, (uint16_t)(t->global - 1));
	switch (t->ranges) {
	case M2W_RANGES_AUTO:
	case M2W_RANGES_ALL:
		nranges = t->global ? 0 : m->sequence_count;
		break;
	case M2W_RANGES_NONE:
		break;
	case M2W_RANGES_GIVEN:
		nranges = t->range_count;
		break;
	}
	off = m2w_array(w, at + 4, nranges, 8);
	for (uint32_t s = 0; s < nranges; s++) {
		uint32_t first = 0, last = 0;

		if (t->ranges == M2W_RANGES_GIVEN) {
			first = t->given[2 * s];
			last = t->given[2 * s + 1];
		} else if (t->count > 0 && t->ranges == M2W_RANGES_ALL) {
			last = t->count - 1;
		} else if (t->count > 0) {
			m2w_auto_range(t, &m->sequences[s], &first, &last);
		}
		m2w_u32(w, off + 8 * (size_t)s, first);
		m2w_u32(w, off + 8 * (size_t)s + 4, last);
	}
	off = m2w_array(w, at + 12, t->count, 4);
	for (uint32_t k = 0; k < t->count; k++)
		m2w_u32(w, off + 4 * (size_t)k, t->times[k]);
	if (width == 0)
		return;
	if (width < 0) {
		off = m2w_array(w, at + 20, t->count, (size_t)per_key);
		if (t->count > 0 && t->bytes != NULL)
			memcpy(w->p + off, t->bytes, (size_t)t->count * (size_t)per_key);
		return;
	}
	off = m2w_array(w, at + 20, t->count, (size_t)per_key * (size_t)width * 4);
	if (t->values != NULL)
		m2w_floats(w, off, t->values, (int)(t->count * (uint32_t)per_key * (uint32_t)width));
}

static void m2w_string(struct m2w *w, size_t at, const char *s)
{
	uint32_t off;

	if (s == NULL) {
		m2w_array(w, at, 0, 1);
		return;
	}
	off = m2w_array(w, at, (uint32_t)strlen(s) + 1, 1);
	memcpy(w->p + off, s, strlen(s) + 1);
}

static void m2w_i16s(struct m2w *w, size_t at, uint32_t count, const void *v, size_t width)
{
	uint32_t off = m2w_array(w, at, count, 2 * width);

	for (size_t i = 0; i < count * width; i++) {
		uint16_t x;

		memcpy(&x, (const unsigned char *)v + 2 * i, 2);
		m2w_u16(w, off + 2 * i, x);
	}
}

static void m2w_sequences(struct m2w *w, struct m2w_file *out)
{
	const struct m2w_model *m = w->m;
	uint32_t off = m2w_array(w, M2_HDR_SEQUENCES, m->sequence_count, M2_SEQUENCE_BYTES);

	out->sequences = off;
	for (uint32_t i = 0; i < m->sequence_count; i++) {
		const struct m2w_sequence *s = &m->sequences[i];
		size_t p = off + (size_t)i * M2_SEQUENCE_BYTES;

		m2w_u16(w, p, s->id);
		m2w_u16(w, p + 2, s->variation);
		m2w_u32(w, p + 4, s->start_ms);
		m2w_u32(w, p + 8, s->end_ms);
		m2w_f32(w, p + 12, s->movespeed);
		m2w_u32(w, p + 16, s->flags);
		m2w_u16(w, p + 20, (uint16_t)s->frequency);
		m2w_u32(w, p + 24, s->replay_min);
		m2w_u32(w, p + 28, s->replay_max);
		m2w_u32(w, p + 32, s->blend_ms);
		m2w_floats(w, p + 36, s->box_min, 3);
		m2w_floats(w, p + 48, s->box_max, 3);
		m2w_f32(w, p + 60, s->radius);
		m2w_u16(w, p + 64, (uint16_t)s->next_variation);
		m2w_u16(w, p + 66, s->alias_next);
	}
}

static void m2w_bones(struct m2w *w, struct m2w_file *out)
{
	const struct m2w_model *m = w->m;
	uint32_t off = m2w_array(w, M2_HDR_BONES, m->bone_count, M2_BONE_BYTES);

	out->bones = off;
	for (uint32_t i = 0; i < m->bone_count; i++) {
		const struct m2w_bone *b = &m->bones[i];
		size_t p = off + (size_t)i * M2_BONE_BYTES;

		m2w_u32(w, p, (uint32_t)b->key_bone_id);
		m2w_u32(w, p + 4, b->flags);
		m2w_u16(w, p + 8, (uint16_t)b->parent);
		m2w_u16(w, p + 10, b->submesh);
		m2w_track(w, p + 12, &b->t, 3);
		m2w_track(w, p + 40, &b->r, 4);
		m2w_track(w, p + 68, &b->s, 3);
		m2w_floats(w, p + 96, b->pivot, 3);
	}
}

static void m2w_vertices(struct m2w *w, struct m2w_file *out)
{
	const struct m2w_model *m = w->m;
	uint32_t off = m2w_array(w, M2_HDR_VERTICES, m->vertex_count, M2_VERTEX_BYTES);

	out->vertices = off;
	for (uint32_t i = 0; i < m->vertex_count; i++) {
		const struct m2w_vertex *v = &m->vertices[i];
		size_t p = off + (size_t)i * M2_VERTEX_BYTES;

		m2w_floats(w, p, v->position, 3);
		memcpy(w->p + p + 12, v->weights, 4);
		memcpy(w->p + p + 16, v->bones, 4);
		m2w_floats(w, p + 20, v->normal, 3);
		m2w_floats(w, p + 32, v->uv[0], 2);
		m2w_floats(w, p + 40, v->uv[1], 2);
	}
}

static void m2w_views(struct m2w *w, struct m2w_file *out)
{
	const struct m2w_model *m = w->m;
	uint32_t off = m2w_array(w, M2_HDR_VIEWS, m->view_count, M2_VIEW_BYTES);

	out->views = off;
	for (uint32_t i = 0; i < m->view_count; i++) {
		const struct m2w_view *v = &m->views[i];
		size_t p = off + (size_t)i * M2_VIEW_BYTES;
		uint32_t a;

		m2w_i16s(w, p, v->vertex_count, v->vertices, 1);
		m2w_i16s(w, p + 8, v->corner_count, v->corners, 1);
		m2w_array(w, p + 16, v->property_count, 4);
		a = m2w_array(w, p + 24, v->submesh_count, M2_SUBMESH_BYTES);
		for (uint32_t k = 0; k < v->submesh_count; k++) {
			const struct m2_submesh *s = &v->submeshes[k];
			size_t q = a + (size_t)k * M2_SUBMESH_BYTES;

			m2w_u16(w, q, s->id);
			m2w_u16(w, q + 2, s->level);
			m2w_u16(w, q + 4, s->vertex_start);
			m2w_u16(w, q + 6, s->vertex_count);
			m2w_u16(w, q + 8, s->corner_start);
			m2w_u16(w, q + 10, s->corner_count);
			m2w_u16(w, q + 12, s->bone_count);
			m2w_u16(w, q + 14, s->bone_start);
			m2w_u16(w, q + 16, s->bone_influences);
			m2w_u16(w, q + 18, s->root_bone);
			m2w_floats(w, q + 20, s->center, 3);
		}
		m2w_array(w, p + 32, v->texture_unit_count, M2_TEXTURE_UNIT_BYTES);
		m2w_u32(w, p + 40, v->bone_count_max);
	}
}

static void m2w_attachments(struct m2w *w, struct m2w_file *out)
{
	const struct m2w_model *m = w->m;
	uint32_t off = m2w_array(w, M2_HDR_ATTACHMENTS, m->attachment_count, M2_ATTACHMENT_BYTES);

	out->attachments = off;
	for (uint32_t i = 0; i < m->attachment_count; i++) {
		const struct m2w_attachment *a = &m->attachments[i];
		size_t p = off + (size_t)i * M2_ATTACHMENT_BYTES;

		m2w_u32(w, p, a->id);
		m2w_u16(w, p + 4, a->bone);
		m2w_u16(w, p + 6, a->unknown);
		m2w_floats(w, p + 8, a->position, 3);
		m2w_track(w, p + 20, &a->animate, -1);
	}
	off = m2w_array(w, M2_HDR_EVENTS, m->event_count, M2_EVENT_BYTES);
	out->events = off;
	for (uint32_t i = 0; i < m->event_count; i++) {
		const struct m2w_event *e = &m->events[i];
		size_t p = off + (size_t)i * M2_EVENT_BYTES;

		memcpy(w->p + p, e->id, 4);
		m2w_u32(w, p + 4, e->data);
		m2w_u32(w, p + 8, e->bone);
		m2w_floats(w, p + 12, e->position, 3);
		m2w_track(w, p + 24, &e->enabled, 0);
	}
}

static void m2w_emitters(struct m2w *w, struct m2w_file *out)
{
	const struct m2w_model *m = w->m;
	uint32_t off = m2w_array(w, M2_HDR_PARTICLE_EMITTERS, m->emitter_count, M2_EMITTER_BYTES);

	out->emitters = off;
	for (uint32_t i = 0; i < m->emitter_count; i++) {
		const struct m2w_emitter *e = &m->emitters[i];
		size_t p = off + (size_t)i * M2_EMITTER_BYTES;
		uint32_t a;

		m2w_u32(w, p, (uint32_t)e->id);
		m2w_u32(w, p + 0x4, e->flags);
		m2w_floats(w, p + 0x8, e->position, 3);
		m2w_u16(w, p + 0x14, (uint16_t)e->bone);
		m2w_u16(w, p + 0x16, (uint16_t)e->texture);
		m2w_string(w, p + 0x18, e->model_name);
		m2w_string(w, p + 0x20, e->recursion_name);
		m2w_u16(w, p + 0x28, (uint16_t)e->blend_mode);
		m2w_u16(w, p + 0x2a, (uint16_t)e->emitter_type);
		m2w_u16(w, p + 0x2c, (uint16_t)e->particle_type);
		m2w_u16(w, p + 0x2e, (uint16_t)e->tile_rotation);
		m2w_u16(w, p + 0x30, (uint16_t)e->rows);
		m2w_u16(w, p + 0x32, (uint16_t)e->columns);
		for (int k = 0; k < M2_EMIT_PARAMS; k++)
			m2w_track(w, p + 0x34 + (size_t)M2_TRACK_BYTES * k, &e->params[k], 1);
		m2w_f32(w, p + 0x14c, e->midpoint);
		for (int k = 0; k < 3; k++)
			m2w_u32(w, p + 0x150 + 4 * (size_t)k, e->colors[k]);
		m2w_floats(w, p + 0x15c, e->sizes, 3);
		for (int k = 0; k < 10; k++)
			m2w_u16(w, p + 0x168 + 2 * (size_t)k, (uint16_t)e->tiles[k]);
		m2w_f32(w, p + 0x17c, e->tail_length);
		m2w_f32(w, p + 0x180, e->twinkle_speed);
		m2w_f32(w, p + 0x184, e->twinkle_percent);
		m2w_f32(w, p + 0x188, e->twinkle_scale_min);
		m2w_f32(w, p + 0x18c, e->twinkle_scale_max);
		m2w_f32(w, p + 0x190, e->burst_multiplier);
		m2w_f32(w, p + 0x194, e->slowdown);
		m2w_f32(w, p + 0x198, e->rotation);
		m2w_floats(w, p + 0x19c, e->tumble_min, 3);
		m2w_floats(w, p + 0x1a8, e->tumble_max, 3);
		m2w_floats(w, p + 0x1b4, e->wind_vector, 3);
		m2w_f32(w, p + 0x1c0, e->wind_time);
		m2w_f32(w, p + 0x1c4, e->follow_speed1);
		m2w_f32(w, p + 0x1c8, e->follow_scale1);
		m2w_f32(w, p + 0x1cc, e->follow_speed2);
		m2w_f32(w, p + 0x1d0, e->follow_scale2);
		a = m2w_array(w, p + 0x1d4, e->spline_point_count, 12);
		if (e->spline_point_count > 0)
			m2w_floats(w, a, e->spline_points, (int)(3 * e->spline_point_count));
		m2w_track(w, p + 0x1dc, &e->enabled, -1);
	}
}

/* The pairs a description can only fill with zeroed records, and their
 * record sizes. */
static const struct {
	unsigned field;
	size_t size;
} m2w_fillers[] = {
	{ M2_HDR_COLORS, 56 },
	{ M2_HDR_TEXTURES, 16 },
	{ M2_HDR_TRANSPARENCY, 28 },
	{ M2_HDR_TEXTURE_FLIPBOOKS, 1 },
	{ M2_HDR_TEXTURE_ANIMATIONS, 84 },
	{ M2_HDR_REPLACEABLE_TEXTURE_LOOKUP, 2 },
	{ M2_HDR_RENDER_FLAGS, 4 },
	{ M2_HDR_TEXTURE_LOOKUP, 2 },
	{ M2_HDR_TEXTURE_UNIT_LOOKUP, 2 },
	{ M2_HDR_TRANSPARENCY_LOOKUP, 2 },
	{ M2_HDR_TEXTURE_ANIMATION_LOOKUP, 2 },
	{ M2_HDR_BOUNDING_TRIANGLES, 2 },
	{ M2_HDR_BOUNDING_VERTICES, 12 },
	{ M2_HDR_BOUNDING_NORMALS, 12 },
	{ M2_HDR_LIGHTS, 212 },
	{ M2_HDR_CAMERAS, 124 },
	{ M2_HDR_CAMERA_LOOKUP, 2 },
	{ M2_HDR_RIBBONS, 220 },
};

void m2w_build(const struct m2w_model *m, struct m2w_file *out)
{
	struct m2w w = { .m = m };

	memset(out, 0, sizeof *out);
	/* The header is at 0 whatever misalign says: reserve past it, then
	 * let the arrays follow it. */
	m2w_reserve(&w, M2_HEADER_BYTES);
	w.len = M2_HEADER_BYTES;
	memcpy(w.p, "MD20", 4);
	m2w_u32(&w, M2_HDR_VERSION, m->version ? m->version : 256);
	m2w_u32(&w, M2_HDR_GLOBAL_FLAGS, m->global_flags);
	m2w_floats(&w, M2_HDR_BOUNDS, m->bounds, 14);
	for (size_t i = 0; i < sizeof m2w_fillers / sizeof m2w_fillers[0]; i++)
		if (m->filler[m2w_fillers[i].field / 4] > 0)
			m2w_array(&w, m2w_fillers[i].field, m->filler[m2w_fillers[i].field / 4],
				  m2w_fillers[i].size);
	m2w_string(&w, M2_HDR_NAME, m->name);
	{
		uint32_t off = m2w_array(&w, M2_HDR_GLOBAL_SEQUENCES, m->global_sequence_count, 4);

		for (uint32_t i = 0; i < m->global_sequence_count; i++)
			m2w_u32(&w, off + 4 * (size_t)i, m->global_sequences[i]);
	}
	m2w_sequences(&w, out);
	m2w_i16s(&w, M2_HDR_ANIMATION_LOOKUP, m->animation_lookup_count, m->animation_lookup, 1);
	m2w_i16s(&w, M2_HDR_PLAYABLE_LOOKUP, m->playable_lookup_count, m->playable_lookup, 2);
	m2w_bones(&w, out);
	m2w_i16s(&w, M2_HDR_KEY_BONE_LOOKUP, m->key_bone_lookup_count, m->key_bone_lookup, 1);
	m2w_i16s(&w, M2_HDR_BONE_LOOKUP, m->bone_lookup_count, m->bone_lookup, 1);
	m2w_vertices(&w, out);
	m2w_views(&w, out);
	m2w_attachments(&w, out);
	m2w_i16s(&w, M2_HDR_ATTACHMENT_LOOKUP, m->attachment_lookup_count, m->attachment_lookup, 1);
	m2w_emitters(&w, out);
	out->buf = w.p;
	out->len = w.len;
}

void m2w_file_free(struct m2w_file *f)
{
	free(f->buf);
	memset(f, 0, sizeof *f);
}

uint32_t m2w_get32(const struct m2w_file *f, size_t off)
{
	return (uint32_t)f->buf[off] | (uint32_t)f->buf[off + 1] << 8 |
	       (uint32_t)f->buf[off + 2] << 16 | (uint32_t)f->buf[off + 3] << 24;
}

uint16_t m2w_get16(const struct m2w_file *f, size_t off)
{
	return (uint16_t)(f->buf[off] | f->buf[off + 1] << 8);
}

void m2w_put32(struct m2w_file *f, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		f->buf[off + i] = (unsigned char)(v >> (8 * i));
}

void m2w_put16(struct m2w_file *f, size_t off, uint16_t v)
{
	f->buf[off] = (unsigned char)v;
	f->buf[off + 1] = (unsigned char)(v >> 8);
}

uint32_t m2w_bone_track(const struct m2w_file *f, uint32_t i, unsigned which)
{
	return f->bones + i * M2_BONE_BYTES + 12 + which * M2_TRACK_BYTES;
}

uint32_t m2w_emitter_track(const struct m2w_file *f, uint32_t i, unsigned k)
{
	return f->emitters + i * M2_EMITTER_BYTES +
	       (k < M2_EMIT_PARAMS ? 0x34 + k * M2_TRACK_BYTES : 0x1dc);
}

uint32_t m2w_attachment_track(const struct m2w_file *f, uint32_t i)
{
	return f->attachments + i * M2_ATTACHMENT_BYTES + 20;
}

uint32_t m2w_event_track(const struct m2w_file *f, uint32_t i)
{
	return f->events + i * M2_EVENT_BYTES + 24;
}
