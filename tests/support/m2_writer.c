/*
 * m2_writer.c - the layout half of m2_writer.h: the header first, then
 * every array after it in header order, a record array reserved before
 * the arrays its records point at, each record written once those are
 * placed.  Sizes and offsets that differ by version come from the
 * reader's struct m2_layout; from 264 the views go to .skin files and the
 * keys of sequences without flag 0x20 to .anim files, each a buffer of its
 * own.
 */
#include "tests/support/m2_writer.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct m2w_buf {
	unsigned char *p;
	size_t len, cap;
	unsigned misalign;
};

struct m2w {
	const struct m2w_model *m;
	const struct m2_layout *l;
	struct m2w_buf b;               /* the model */
	struct m2w_buf *anims;          /* per sequence (264), allocated on use */
};

static void m2w_oom(void)
{
	fprintf(stderr, "m2_writer: out of memory\n");
	abort();
}

/* n zero bytes at the end, their offset aligned to the misalign
 * remainder mod 4. */
static uint32_t m2w_reserve_in(struct m2w_buf *b, size_t n)
{
	size_t at = b->len;

	while (at % 4 != b->misalign % 4)
		at++;
	if (at + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < at + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (b->p == NULL)
			m2w_oom();
		memset(b->p + b->cap, 0, cap - b->cap);
		b->cap = cap;
	}
	b->len = at + n;
	return (uint32_t)at;
}

static void m2w_u16b(struct m2w_buf *b, size_t at, uint16_t v)
{
	b->p[at] = (unsigned char)v;
	b->p[at + 1] = (unsigned char)(v >> 8);
}

static void m2w_u32b(struct m2w_buf *b, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->p[at + i] = (unsigned char)(v >> (8 * i));
}

static void m2w_floatsb(struct m2w_buf *b, size_t at, const float *f, int n)
{
	for (int i = 0; i < n; i++) {
		uint32_t u;

		memcpy(&u, &f[i], 4);
		m2w_u32b(b, at + 4 * (size_t)i, u);
	}
}

static uint32_t m2w_arrayb(struct m2w_buf *pairs, struct m2w_buf *data, size_t at, uint32_t count,
			   size_t size)
{
	uint32_t off = 0;

	if (count > 0)
		off = m2w_reserve_in(data, (size_t)count * size);
	m2w_u32b(pairs, at, count);
	m2w_u32b(pairs, at + 4, off);
	return off;
}

/* The model's own buffer. */
static void m2w_u16(struct m2w *w, size_t at, uint16_t v) { m2w_u16b(&w->b, at, v); }
static void m2w_u32(struct m2w *w, size_t at, uint32_t v) { m2w_u32b(&w->b, at, v); }
static void m2w_f32(struct m2w *w, size_t at, float f) { m2w_floatsb(&w->b, at, &f, 1); }
static void m2w_floats(struct m2w *w, size_t at, const float *f, int n)
{
	m2w_floatsb(&w->b, at, f, n);
}
static uint32_t m2w_array(struct m2w *w, size_t at, uint32_t count, size_t size)
{
	return m2w_arrayb(&w->b, &w->b, at, count, size);
}

/* Header field f (its version-256 offset) in this version. */
static uint32_t m2w_hdr(const struct m2w *w, enum m2_header_field f)
{
	return m2_layout_field(w->l, f);
}

int16_t m2w_quat16_encode(float f)
{
	long v = lroundf(f * 32767.0f);

	if (v > 32767)
		v = 32767;
	if (v < -32767)
		v = -32767;
	/* decode: s < 0 ? s + 32768 : s - 32767.  A value >= 0 comes from a
	 * negative s (0 from -32768), a negative one from s >= 0. */
	return (int16_t)(v >= 0 ? v - 32768 : v + 32767);
}

/* The keys [first, last] the 256 reader plays for sequence s of track t
 * (m2_track_keys), as the writer's ranges say. */
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

/* The half-open run [first, end) of event keys whose times fall in
 * sequence s's window (their times need not be ordered: the run from the
 * first to the last of them), {0, 0} when none does. */
static void m2w_event_range(const struct m2w_track *t, const struct m2w_sequence *s,
			    uint32_t *first, uint32_t *end)
{
	uint32_t f = UINT32_MAX, l = 0;

	for (uint32_t k = 0; k < t->count; k++)
		if (t->times[k] >= s->start_ms && t->times[k] <= s->end_ms) {
			if (f == UINT32_MAX)
				f = k;
			l = k;
		}
	*first = f == UINT32_MAX ? 0 : f;
	*end = f == UINT32_MAX ? 0 : l + 1;
}

static uint32_t m2w_range_count(const struct m2w *w, const struct m2w_track *t)
{
	switch (t->ranges) {
	case M2W_RANGES_AUTO:
	case M2W_RANGES_ALL:
		return t->global ? 0 : w->m->sequence_count + w->m->extra_ranges;
	case M2W_RANGES_GIVEN:
		return t->range_count;
	default:
		return 0;
	}
}

/* Range s as written: {first, last}, or for an event track (events) the
 * half-open {first, end}; past the sequences, {0, 0}. */
static void m2w_range(const struct m2w *w, const struct m2w_track *t, uint32_t s, uint32_t *first,
		      uint32_t *last, int events)
{
	*first = *last = 0;
	if (t->ranges == M2W_RANGES_GIVEN) {
		*first = t->given[2 * s];
		*last = t->given[2 * s + 1];
	} else if (s >= w->m->sequence_count || t->count == 0) {
		return;
	} else if (t->ranges == M2W_RANGES_ALL) {
		*last = events ? t->count : t->count - 1;
	} else if (events) {
		m2w_event_range(t, &w->m->sequences[s], first, last);
	} else {
		m2w_auto_range(t, &w->m->sequences[s], first, last);
	}
}

/* Bytes of one key's values: width floats (4 bytes, or 2 when packed
 * quaternions), -1 a byte; 3 parts for hermite and bezier. */
static size_t m2w_key_bytes(const struct m2w *w, const struct m2w_track *t, int width)
{
	int parts = t->interpolation == M2_INTERP_HERMITE || t->interpolation == M2_INTERP_BEZIER ? 3 : 1;

	if (width < 0)
		return (size_t)parts;
	if (width == 4 && w->l->quat16)
		return (size_t)parts * 8;
	return (size_t)parts * (size_t)width * 4;
}

/* Keys k .. k + n - 1 of t at offset off of buffer b. */
static void m2w_values(const struct m2w *w, struct m2w_buf *b, size_t off, const struct m2w_track *t,
		       int width, uint32_t k, uint32_t n)
{
	size_t kb = m2w_key_bytes(w, t, width);
	size_t per = width < 0 ? kb : width == 4 && w->l->quat16 ? kb / 2 : kb / 4;

	for (uint32_t i = 0; i < n; i++) {
		size_t at = off + (size_t)i * kb;

		if (width < 0) {
			if (t->bytes != NULL)
				memcpy(b->p + at, t->bytes + (size_t)(k + i) * kb, kb);
		} else if (width == 4 && w->l->quat16) {
			for (size_t c = 0; c < per; c++) {
				int16_t v = t->packed != NULL ? t->packed[(size_t)(k + i) * per + c]
					    : t->values != NULL
					    ? m2w_quat16_encode(t->values[(size_t)(k + i) * per + c]) : 0;

				m2w_u16b(b, at + 2 * c, (uint16_t)v);
			}
		} else if (t->values != NULL) {
			m2w_floatsb(b, at, t->values + (size_t)(k + i) * per, (int)per);
		}
	}
}

static struct m2w_buf *m2w_anim(struct m2w *w, uint32_t s)
{
	if (w->anims == NULL) {
		w->anims = calloc((size_t)w->m->sequence_count + 1, sizeof *w->anims);
		if (w->anims == NULL)
			m2w_oom();
	}
	if (w->anims[s].p == NULL) {
		w->anims[s].misalign = w->m->misalign;
		m2w_reserve_in(&w->anims[s], 0);
		w->anims[s].len = 0;
	}
	return &w->anims[s];
}

/* 264 and later: per sequence, the keys the 256 reader would play. */
static void m2w_track_split(struct m2w *w, size_t at, const struct m2w_track *t, int width)
{
	const struct m2w_model *m = w->m;
	uint32_t n = t->global ? 1 : t->count > 0 || t->ranges == M2W_RANGES_GIVEN ? m->sequence_count : 0;
	uint32_t tp, vp = 0, extra;
	size_t kb = width != 0 ? m2w_key_bytes(w, t, width) : 0;

	if (t->ranges == M2W_RANGES_GIVEN && !t->global)
		n = t->range_count;
	if (t->count == 0 && t->ranges != M2W_RANGES_GIVEN)
		n = 0;
	if (t->single && n > 0)
		n = 1;
	extra = !t->global && !t->single && n > 0 && t->ranges != M2W_RANGES_GIVEN
		? m->extra_ranges : 0;
	tp = m2w_array(w, at + 4, n + extra, 8);
	if (width != 0)
		vp = m2w_array(w, at + 12, n + extra, 8);
	for (uint32_t s = 0; s < n; s++) {
		uint32_t first = 0, last = 0, k, cnt, start = 0, off;
		struct m2w_buf *b = &w->b;

		if (t->global) {
			cnt = t->count;
			k = 0;
		} else if (t->single) {
			/* Every key at its time, in sequence 0's buffer. */
			cnt = t->count;
			k = 0;
			if (m->sequence_count > 0 && !(m->sequences[0].flags & M2_SEQ_IN_MODEL))
				b = m2w_anim(w, 0);
		} else {
			const struct m2w_sequence *q = s < m->sequence_count ? &m->sequences[s] : NULL;

			if (m2w_range_count(w, t) > 0) {
				m2w_range(w, t, s, &first, &last, width == 0);
				k = first;
				cnt = t->count > 0 ? last - first + (width == 0 ? 0 : 1) : 0;
				if (width == 0 && last < first)
					cnt = 0;
				/* Narrowed to the window, as m2_track_keys does
				 * (events' ranges are taken whole). */
				if (q != NULL && cnt > 0 && width != 0) {
					uint32_t a = first, e = last + 1;

					while (a < e && t->times[a] < q->start_ms)
						a++;
					while (e > a && t->times[e - 1] > q->end_ms)
						e--;
					if (a < e) {
						k = a;
						cnt = e - a;
					}
				}
			} else {
				k = 0;
				cnt = t->count;
			}
			if (q != NULL) {
				start = q->start_ms;
				if (!(q->flags & M2_SEQ_IN_MODEL))
					b = m2w_anim(w, s);
			}
		}
		off = m2w_arrayb(&w->b, b, tp + 8 * (size_t)s, cnt, 4);
		for (uint32_t i = 0; i < cnt; i++) {
			uint32_t tm = t->times[k + i];

			m2w_u32b(b, off + 4 * (size_t)i, tm > start ? tm - start : 0);
		}
		if (width != 0) {
			off = m2w_arrayb(&w->b, b, vp + 8 * (size_t)s, cnt, kb);
			m2w_values(w, b, off, t, width, k, cnt);
		}
	}
}

/* A track record at `at` (28 bytes, or 20 when width is 0: timestamps
 * only; 20 and 12 from 264) and its arrays.  width: floats per value, or
 * -1 for bytes. */
static void m2w_track(struct m2w *w, size_t at, const struct m2w_track *t, int width)
{
	uint32_t nranges = m2w_range_count(w, t), off;

	m2w_u16(w, at, t->interpolation);
	m2w_u16(w, at + 2, (uint16_t)(t->global - 1));
	if (w->l->per_sequence) {
		m2w_track_split(w, at, t, width);
		return;
	}
	off = m2w_array(w, at + 4, nranges, 8);
	for (uint32_t s = 0; s < nranges; s++) {
		uint32_t first, last;

		m2w_range(w, t, s, &first, &last, width == 0);
		m2w_u32(w, off + 8 * (size_t)s, first);
		m2w_u32(w, off + 8 * (size_t)s + 4, last);
	}
	off = m2w_array(w, at + 12, t->count, 4);
	for (uint32_t k = 0; k < t->count; k++)
		m2w_u32(w, off + 4 * (size_t)k, t->times[k]);
	if (width == 0)
		return;
	off = m2w_array(w, at + 20, t->count, m2w_key_bytes(w, t, width));
	m2w_values(w, &w->b, off, t, width, 0, t->count);
}

static void m2w_string(struct m2w *w, size_t at, const char *s)
{
	uint32_t off;

	if (s == NULL) {
		m2w_array(w, at, 0, 1);
		return;
	}
	off = m2w_array(w, at, (uint32_t)strlen(s) + 1, 1);
	memcpy(w->b.p + off, s, strlen(s) + 1);
}

static void m2w_i16sb(struct m2w_buf *pairs, struct m2w_buf *data, size_t at, uint32_t count,
		      const void *v, size_t width)
{
	uint32_t off = m2w_arrayb(pairs, data, at, count, 2 * width);

	for (size_t i = 0; i < count * width; i++) {
		uint16_t x;

		memcpy(&x, (const unsigned char *)v + 2 * i, 2);
		m2w_u16b(data, off + 2 * i, x);
	}
}

static void m2w_i16s(struct m2w *w, enum m2_header_field f, uint32_t count, const void *v,
		     size_t width)
{
	uint32_t at = m2w_hdr(w, f);

	if (at != 0)
		m2w_i16sb(&w->b, &w->b, at, count, v, width);
}

static void m2w_sequences(struct m2w *w, struct m2w_file *out)
{
	const struct m2w_model *m = w->m;
	uint32_t size = w->l->sequence_bytes;
	uint32_t off = m2w_array(w, m2w_hdr(w, M2_HDR_SEQUENCES), m->sequence_count, size);

	out->sequences = off;
	for (uint32_t i = 0; i < m->sequence_count; i++) {
		const struct m2w_sequence *s = &m->sequences[i];
		size_t p = off + (size_t)i * size;
		size_t d = 0;

		m2w_u16(w, p, s->id);
		m2w_u16(w, p + 2, s->variation);
		if (w->l->per_sequence) {
			m2w_u32(w, p + 4, s->end_ms - s->start_ms);
			d = 4;
		} else {
			m2w_u32(w, p + 4, s->start_ms);
			m2w_u32(w, p + 8, s->end_ms);
		}
		m2w_f32(w, p + 12 - d, s->movespeed);
		m2w_u32(w, p + 16 - d, s->flags);
		m2w_u16(w, p + 20 - d, (uint16_t)s->frequency);
		m2w_u32(w, p + 24 - d, s->replay_min);
		m2w_u32(w, p + 28 - d, s->replay_max);
		m2w_u32(w, p + 32 - d, s->blend_ms);
		m2w_floats(w, p + 36 - d, s->box_min, 3);
		m2w_floats(w, p + 48 - d, s->box_max, 3);
		m2w_f32(w, p + 60 - d, s->radius);
		m2w_u16(w, p + 64 - d, (uint16_t)s->next_variation);
		m2w_u16(w, p + 66 - d, s->alias_next);
	}
}

static void m2w_bones(struct m2w *w, struct m2w_file *out)
{
	const struct m2w_model *m = w->m;
	uint32_t size = w->l->bone_bytes, tr = w->l->bone_tracks_at, step = w->l->track_bytes;
	uint32_t off = m2w_array(w, m2w_hdr(w, M2_HDR_BONES), m->bone_count, size);

	out->bones = off;
	for (uint32_t i = 0; i < m->bone_count; i++) {
		const struct m2w_bone *b = &m->bones[i];
		size_t p = off + (size_t)i * size;

		m2w_u32(w, p, (uint32_t)b->key_bone_id);
		m2w_u32(w, p + 4, b->flags);
		m2w_u16(w, p + 8, (uint16_t)b->parent);
		m2w_u16(w, p + 10, b->submesh);
		if (tr > 12)
			m2w_u32(w, p + 12, 0x9e370000u + i);
		m2w_track(w, p + tr, &b->t, 3);
		m2w_track(w, p + tr + step, &b->r, 4);
		m2w_track(w, p + tr + 2 * step, &b->s, 3);
		m2w_floats(w, p + tr + 3 * step, b->pivot, 3);
	}
}

static void m2w_vertices(struct m2w *w, struct m2w_file *out)
{
	const struct m2w_model *m = w->m;
	uint32_t off = m2w_array(w, m2w_hdr(w, M2_HDR_VERTICES), m->vertex_count, M2_VERTEX_BYTES);

	out->vertices = off;
	for (uint32_t i = 0; i < m->vertex_count; i++) {
		const struct m2w_vertex *v = &m->vertices[i];
		size_t p = off + (size_t)i * M2_VERTEX_BYTES;

		m2w_floats(w, p, v->position, 3);
		memcpy(w->b.p + p + 12, v->weights, 4);
		memcpy(w->b.p + p + 16, v->bones, 4);
		m2w_floats(w, p + 20, v->normal, 3);
		m2w_floats(w, p + 32, v->uv[0], 2);
		m2w_floats(w, p + 40, v->uv[1], 2);
	}
}

/* One view's five arrays and bone count at `at` of `pairs`, their data in
 * `data` (the model, or its .skin). */
static void m2w_view(struct m2w *w, struct m2w_buf *pairs, struct m2w_buf *data, size_t at,
		     const struct m2w_view *v)
{
	uint32_t sb = w->l->submesh_bytes, a;

	m2w_i16sb(pairs, data, at, v->vertex_count, v->vertices, 1);
	m2w_i16sb(pairs, data, at + 8, v->corner_count, v->corners, 1);
	m2w_arrayb(pairs, data, at + 16, v->property_count, 4);
	a = m2w_arrayb(pairs, data, at + 24, v->submesh_count, sb);
	for (uint32_t k = 0; k < v->submesh_count; k++) {
		const struct m2_submesh *s = &v->submeshes[k];
		size_t q = a + (size_t)k * sb;

		m2w_u16b(data, q, s->id);
		m2w_u16b(data, q + 2, s->level);
		m2w_u16b(data, q + 4, s->vertex_start);
		m2w_u16b(data, q + 6, s->vertex_count);
		m2w_u16b(data, q + 8, s->corner_start);
		m2w_u16b(data, q + 10, s->corner_count);
		m2w_u16b(data, q + 12, s->bone_count);
		m2w_u16b(data, q + 14, s->bone_start);
		m2w_u16b(data, q + 16, s->bone_influences);
		m2w_u16b(data, q + 18, s->root_bone);
		m2w_floatsb(data, q + 20, s->center, 3);
	}
	m2w_arrayb(pairs, data, at + 32, v->texture_unit_count, M2_TEXTURE_UNIT_BYTES);
	m2w_u32b(pairs, at + 40, v->bone_count_max);
}

static void m2w_add_companion(struct m2w_file *out, const char *suffix, struct m2w_buf *b,
			      uint32_t index)
{
	struct m2w_companion *c;

	if (out->companion_count == M2W_MAX_COMPANIONS) {
		fprintf(stderr, "m2_writer: more than %d companions\n", M2W_MAX_COMPANIONS);
		abort();
	}
	c = &out->companions[out->companion_count++];
	snprintf(c->suffix, sizeof c->suffix, "%s", suffix);
	c->buf = b->p;
	c->len = b->len;
	c->index = index;
	if (c->buf == NULL) {
		c->buf = malloc(1);
		if (c->buf == NULL)
			m2w_oom();
	}
}

static void m2w_views(struct m2w *w, struct m2w_file *out)
{
	const struct m2w_model *m = w->m;
	uint32_t off;

	if (w->l->external_views) {
		m2w_u32(w, M2_V264_VIEW_COUNT, m->view_count);
		for (uint32_t i = 0; i < m->view_count; i++) {
			struct m2w_buf skin = { .misalign = m->misalign };
			/* 64 bytes from 265, as real files have them: the
			 * shadow batches' pair at 48 (none), 8 unknown bytes. */
			size_t header = w->l->skin_header_bytes > 48 ? 64 : 48;
			char suffix[32];

			m2w_reserve_in(&skin, header);
			skin.len = header;
			memcpy(skin.p, "SKIN", 4);
			m2w_view(w, &skin, &skin, 4, &m->views[i]);
			snprintf(suffix, sizeof suffix, "%02u.skin", i);
			m2w_add_companion(out, suffix, &skin, i);
		}
		return;
	}
	off = m2w_array(w, M2_HDR_VIEWS, m->view_count, M2_VIEW_BYTES);
	out->views = off;
	for (uint32_t i = 0; i < m->view_count; i++)
		m2w_view(w, &w->b, &w->b, off + (size_t)i * M2_VIEW_BYTES, &m->views[i]);
}

static void m2w_attachments(struct m2w *w, struct m2w_file *out)
{
	const struct m2w_model *m = w->m;
	uint32_t as = w->l->attachment_bytes, es = w->l->event_bytes;
	uint32_t off = m2w_array(w, m2w_hdr(w, M2_HDR_ATTACHMENTS), m->attachment_count, as);

	out->attachments = off;
	for (uint32_t i = 0; i < m->attachment_count; i++) {
		const struct m2w_attachment *a = &m->attachments[i];
		size_t p = off + (size_t)i * as;

		m2w_u32(w, p, a->id);
		m2w_u16(w, p + 4, a->bone);
		m2w_u16(w, p + 6, a->unknown);
		m2w_floats(w, p + 8, a->position, 3);
		m2w_track(w, p + 20, &a->animate, -1);
	}
	off = m2w_array(w, m2w_hdr(w, M2_HDR_EVENTS), m->event_count, es);
	out->events = off;
	for (uint32_t i = 0; i < m->event_count; i++) {
		const struct m2w_event *e = &m->events[i];
		size_t p = off + (size_t)i * es;

		memcpy(w->b.p + p, e->id, 4);
		m2w_u32(w, p + 4, e->data);
		m2w_u32(w, p + 8, e->bone);
		m2w_floats(w, p + 12, e->position, 3);
		m2w_track(w, p + 24, &e->enabled, 0);
	}
}

/* The parameter tracks of a 264 emitter (m2_emitter.c). */
static const uint16_t m2w_emitter_264_params[M2_EMIT_PARAMS] = {
	0x034, 0x048, 0x05c, 0x070, 0x084, 0x098, 0x0b0, 0x0c8, 0x0dc, 0x0f0,
};

/*
 * The description's start / middle / end colours and sizes as a 264
 * record's colour, alpha and scale tracks: three keys at 0, the midpoint
 * and the end of the life (fixed16 times), as the exporters write them.
 */
static void m2w_emitter_264_parts(struct m2w *w, size_t p, const struct m2w_emitter *e)
{
	float life[3] = { 0.0f, e->midpoint, 1.0f };
	uint32_t t, v;

	for (size_t part = 0x104; part <= 0x124; part += 0x10) {
		t = m2w_array(w, p + part, 3, 2);
		for (int k = 0; k < 3; k++)
			m2w_u16(w, t + 2 * k, (uint16_t)(int16_t)lrintf(life[k] * 32767.0f));
		v = m2w_array(w, p + part + 8, 3, part == 0x104 ? 12 : part == 0x114 ? 2 : 8);
		for (int k = 0; k < 3; k++) {
			uint32_t c = e->colors[k];

			if (part == 0x104) {
				m2w_f32(w, v + 12 * k, (float)((c >> 16) & 0xff));
				m2w_f32(w, v + 12 * k + 4, (float)((c >> 8) & 0xff));
				m2w_f32(w, v + 12 * k + 8, (float)(c & 0xff));
			} else if (part == 0x114) {
				m2w_u16(w, v + 2 * k, (uint16_t)lrintf((float)(c >> 24) / 255.0f * 32767.0f));
			} else {
				m2w_f32(w, v + 8 * k, e->sizes[k]);
				m2w_f32(w, v + 8 * k + 4, e->sizes[k]);
			}
		}
	}
}

/* The record's size: the layout's, or 492 for a 264 model with global
 * flag 0x200, as the reader has it. */
static uint32_t m2w_emitter_bytes(const struct m2w *w)
{
	if (w->l->per_sequence && (w->m->global_flags & 0x200u))
		return 0x1ec;
	return w->l->emitter_bytes;
}

static void m2w_emitter_264(struct m2w *w, size_t p, const struct m2w_emitter *e)
{
	uint32_t a;

	for (int k = 0; k < M2_EMIT_PARAMS; k++)
		m2w_track(w, p + m2w_emitter_264_params[k], &e->params[k], 1);
	m2w_emitter_264_parts(w, p, e);
	m2w_f32(w, p + 0x15c, e->tail_length);
	m2w_f32(w, p + 0x160, e->twinkle_speed);
	m2w_f32(w, p + 0x164, e->twinkle_percent);
	m2w_f32(w, p + 0x168, e->twinkle_scale_min);
	m2w_f32(w, p + 0x16c, e->twinkle_scale_max);
	m2w_f32(w, p + 0x170, e->burst_multiplier);
	m2w_f32(w, p + 0x174, e->slowdown);
	m2w_f32(w, p + 0x180, e->rotation);
	m2w_floats(w, p + 0x188, e->tumble_min, 3);
	m2w_floats(w, p + 0x194, e->tumble_max, 3);
	m2w_floats(w, p + 0x1a0, e->wind_vector, 3);
	m2w_f32(w, p + 0x1ac, e->wind_time);
	m2w_f32(w, p + 0x1b0, e->follow_speed1);
	m2w_f32(w, p + 0x1b4, e->follow_scale1);
	m2w_f32(w, p + 0x1b8, e->follow_speed2);
	m2w_f32(w, p + 0x1bc, e->follow_scale2);
	a = m2w_array(w, p + 0x1c0, e->spline_point_count, 12);
	if (e->spline_point_count > 0)
		m2w_floats(w, a, e->spline_points, (int)(3 * e->spline_point_count));
	m2w_track(w, p + 0x1c8, &e->enabled, -1);
	if (m2w_emitter_bytes(w) >= 0x1ec)
		m2w_floats(w, p + 0x1dc, e->multi_texture, 4);
}

static void m2w_emitters(struct m2w *w, struct m2w_file *out)
{
	const struct m2w_model *m = w->m;
	uint32_t size = m2w_emitter_bytes(w);
	uint32_t off = m2w_array(w, m2w_hdr(w, M2_HDR_PARTICLE_EMITTERS), m->emitter_count, size);

	out->emitters = off;
	for (uint32_t i = 0; i < m->emitter_count; i++) {
		const struct m2w_emitter *e = &m->emitters[i];
		size_t p = off + (size_t)i * size;
		uint32_t a;

		m2w_u32(w, p, (uint32_t)e->id);
		m2w_u32(w, p + 0x4, e->flags);
		m2w_floats(w, p + 0x8, e->position, 3);
		m2w_u16(w, p + 0x14, (uint16_t)e->bone);
		m2w_u16(w, p + 0x16, (uint16_t)e->texture);
		m2w_string(w, p + 0x18, e->model_name);
		m2w_string(w, p + 0x20, e->recursion_name);
		if (w->l->emitter_u8_types) {
			w->b.p[p + 0x28] = (unsigned char)e->blend_mode;
			w->b.p[p + 0x29] = (unsigned char)e->emitter_type;
		} else {
			m2w_u16(w, p + 0x28, (uint16_t)e->blend_mode);
			m2w_u16(w, p + 0x2a, (uint16_t)e->emitter_type);
		}
		m2w_u16(w, p + 0x2c, (uint16_t)e->particle_type);
		m2w_u16(w, p + 0x2e, (uint16_t)e->tile_rotation);
		m2w_u16(w, p + 0x30, (uint16_t)e->rows);
		m2w_u16(w, p + 0x32, (uint16_t)e->columns);
		if (w->l->per_sequence) {
			m2w_emitter_264(w, p, e);
			continue;
		}
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

/* The pairs a description can only fill with zeroed records. */
static const unsigned m2w_fillers[] = {
	M2_HDR_COLORS, M2_HDR_TEXTURES, M2_HDR_TRANSPARENCY, M2_HDR_TEXTURE_FLIPBOOKS,
	M2_HDR_TEXTURE_ANIMATIONS, M2_HDR_REPLACEABLE_TEXTURE_LOOKUP, M2_HDR_RENDER_FLAGS,
	M2_HDR_TEXTURE_LOOKUP, M2_HDR_TEXTURE_UNIT_LOOKUP, M2_HDR_TRANSPARENCY_LOOKUP,
	M2_HDR_TEXTURE_ANIMATION_LOOKUP, M2_HDR_BOUNDING_TRIANGLES, M2_HDR_BOUNDING_VERTICES,
	M2_HDR_BOUNDING_NORMALS, M2_HDR_LIGHTS, M2_HDR_CAMERAS, M2_HDR_CAMERA_LOOKUP,
	M2_HDR_RIBBONS,
};

static size_t m2w_filler_size(const struct m2_layout *l, unsigned f)
{
	switch (f) {
	case M2_HDR_COLORS: return l->colors_bytes;
	case M2_HDR_TEXTURES: return 16;
	case M2_HDR_TRANSPARENCY: return l->transparency_bytes;
	case M2_HDR_TEXTURE_FLIPBOOKS: return 1;
	case M2_HDR_TEXTURE_ANIMATIONS: return l->texture_animation_bytes;
	case M2_HDR_RENDER_FLAGS: return 4;
	case M2_HDR_BOUNDING_VERTICES:
	case M2_HDR_BOUNDING_NORMALS: return 12;
	case M2_HDR_LIGHTS: return l->light_bytes;
	case M2_HDR_CAMERAS: return l->camera_bytes;
	case M2_HDR_RIBBONS: return l->ribbon_bytes;
	default: return 2;
	}
}

void m2w_build(const struct m2w_model *m, struct m2w_file *out)
{
	uint32_t version = m->version ? m->version : 256;
	struct m2w w = { .m = m, .l = m2_layout_of(version) };

	memset(out, 0, sizeof *out);
	out->version = version;
	if (w.l == NULL)
		w.l = m2_layout_of(256);        /* a version the reader refuses: 256's layout */
	w.b.misalign = m->misalign;
	/* The header is at 0 whatever misalign says: reserve past it, then
	 * let the arrays follow it. */
	w.b.misalign = 0;
	m2w_reserve_in(&w.b, w.l->header_bytes);
	w.b.misalign = m->misalign;
	memcpy(w.b.p, "MD20", 4);
	m2w_u32(&w, M2_HDR_VERSION, version);
	m2w_u32(&w, M2_HDR_GLOBAL_FLAGS, m->global_flags);
	m2w_floats(&w, m2w_hdr(&w, M2_HDR_BOUNDS), m->bounds, 14);
	for (size_t i = 0; i < sizeof m2w_fillers / sizeof m2w_fillers[0]; i++) {
		uint32_t at = m2w_hdr(&w, (enum m2_header_field)m2w_fillers[i]);

		if (at != 0 && m->filler[m2w_fillers[i] / 4] > 0)
			m2w_array(&w, at, m->filler[m2w_fillers[i] / 4],
				  m2w_filler_size(w.l, m2w_fillers[i]));
	}
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
	for (uint32_t s = 0; w.anims != NULL && s < m->sequence_count; s++) {
		char suffix[32];

		if (w.anims[s].p == NULL)
			continue;
		snprintf(suffix, sizeof suffix, "%04u-%02u.anim", m->sequences[s].id,
			 m->sequences[s].variation);
		m2w_add_companion(out, suffix, &w.anims[s], s);
	}
	free(w.anims);
	out->buf = w.b.p;
	out->len = w.b.len;
}

void m2w_file_free(struct m2w_file *f)
{
	free(f->buf);
	for (uint32_t i = 0; i < f->companion_count; i++)
		free(f->companions[i].buf);
	memset(f, 0, sizeof *f);
}

struct m2w_companion *m2w_companion(struct m2w_file *f, const char *suffix)
{
	for (uint32_t i = 0; i < f->companion_count; i++)
		if (strcmp(f->companions[i].suffix, suffix) == 0)
			return &f->companions[i];
	return NULL;
}

static int m2w_write_one(const char *path, const unsigned char *p, size_t n)
{
	FILE *fp = fopen(path, "wb");

	if (fp == NULL || fwrite(p, 1, n, fp) != n) {
		perror(path);
		if (fp != NULL)
			fclose(fp);
		return -1;
	}
	return fclose(fp) == 0 ? 0 : -1;
}

int m2w_write_files(const struct m2w_file *f, const char *dir, const char *stem)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/%s.m2", dir, stem);
	if (m2w_write_one(path, f->buf, f->len) < 0)
		return -1;
	for (uint32_t i = 0; i < f->companion_count; i++) {
		snprintf(path, sizeof path, "%s/%s%s", dir, stem, f->companions[i].suffix);
		if (m2w_write_one(path, f->companions[i].buf, f->companions[i].len) < 0)
			return -1;
	}
	return 0;
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

static const struct m2_layout *m2w_layout(const struct m2w_file *f)
{
	const struct m2_layout *l = m2_layout_of(f->version ? f->version : 256);

	return l != NULL ? l : m2_layout_of(256);
}

uint32_t m2w_bone_track(const struct m2w_file *f, uint32_t i, unsigned which)
{
	const struct m2_layout *l = m2w_layout(f);

	return f->bones + i * l->bone_bytes + l->bone_tracks_at + which * l->track_bytes;
}

uint32_t m2w_emitter_track(const struct m2w_file *f, uint32_t i, unsigned k)
{
	const struct m2_layout *l = m2w_layout(f);
	uint32_t size = l->per_sequence && (m2w_get32(f, M2_HDR_GLOBAL_FLAGS) & 0x200u)
		? 0x1ec : l->emitter_bytes;

	if (l->per_sequence)
		return f->emitters + i * size +
		       (k < M2_EMIT_PARAMS ? m2w_emitter_264_params[k] : 0x1c8);
	return f->emitters + i * l->emitter_bytes +
	       (k < M2_EMIT_PARAMS ? 0x34 + k * M2_TRACK_BYTES : 0x1dc);
}

uint32_t m2w_attachment_track(const struct m2w_file *f, uint32_t i)
{
	return f->attachments + i * m2w_layout(f)->attachment_bytes + 20;
}

uint32_t m2w_event_track(const struct m2w_file *f, uint32_t i)
{
	return f->events + i * m2w_layout(f)->event_bytes + 24;
}
