/*
 * libFuzzer harness for classic M2 files: parse, then hold the model to
 * every promise of formats/m2.h by reading all it points at (so ASan sees
 * any pointer that leaves the buffer): bone_order a permutation with
 * parents first and depths to match; every value track's keys, values and
 * the ranges sequences use inside their counts, times in order, global
 * sequences that exist, the keys each sequence plays (m2_track_keys)
 * among them; every event track's keys for each sequence (m2_event_keys)
 * readable, whatever order and ranges the file gave them; aliases (264
 * and later only) resolved to sequences that are no alias; weighted bone
 * indices, view 0's lists and triangles, attachment and emitter bones in
 * range; every lookup, other view and bounds-only block readable to its
 * last byte; notes that fit their list.  A rejected file must come with a
 * message located inside the file.
 *
 * Versions 260..264 too, and 264's companions: an input that starts
 * "M2PK" is a pack (uint32 count, then count x {uint32 length, bytes}):
 * the first blob is the .m2, the others the .skin and .anim files in the
 * order the loader asks for them (views, then sequences).  Each is
 * attached (m2_attach_skin, m2_attach_anim) and everything the model then
 * points at is read again; the asset load gets them through its reader.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/assets/asset.h"
#include "daemon/assets/sampling.h"
#include "daemon/formats/m2/m2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint32_t sink;

/* An event track: every sequence's keys readable, nothing else promised. */
static void check_event_track(const struct m2_model *m, const struct m2_track *t)
{
	if (t->values != NULL)
		abort();
	for (uint32_t s = 0; s < m->sequence_count && s < 64; s++) {
		struct m2_keys k;

		m2_event_keys(m, t, s, &k);
		for (uint32_t i = 0; i < k.count; i++)
			sink += m2_keys_time(&k, i);
	}
	for (uint32_t s = 0; s < t->range_count; s++) {
		uint32_t first, last;

		m2_track_range(t, s, &first, &last);
		sink += first + last;
	}
	for (uint32_t k = 0; k < t->key_count; k++)
		sink += m2_track_time(t, k);
}

static void check_track(const struct m2_model *m, const struct m2_track *t)
{
	uint32_t prev = 0, used;

	if (t->value_type == M2_VALUE_NONE) {
		check_event_track(m, t);
		return;
	}
	if (t->interpolation > M2_INTERP_MAX || t->global_sequence < -1 ||
	    (t->global_sequence >= 0 && (uint32_t)t->global_sequence >= m->global_sequence_count))
		abort();
	/* The ranges sequences use (the others are never read). */
	used = t->global_sequence >= 0 ? 0
	       : t->range_count < m->sequence_count ? t->range_count : m->sequence_count;
	for (uint32_t s = 0; s < used && t->key_count > 0; s++) {
		uint32_t first, last;

		m2_track_range(t, s, &first, &last);
		if (first > last || last >= t->key_count)
			abort();
	}
	for (uint32_t s = 0; s < m->sequence_count && s < 64; s++) {
		struct m2_keys k;
		uint32_t first, end, before = 0;

		m2_track_sequence_keys(m, t, s, &k);
		for (uint32_t i = 0; i < k.count; i++) {
			unsigned parts = t->value_bytes ? t->key_bytes / t->value_bytes : 0;

			if (m2_keys_time(&k, i) < before)
				abort();
			before = m2_keys_time(&k, i);
			for (unsigned p = 0; p < parts; p++) {
				if (t->value_type == M2_VALUE_U8) {
					sink += m2_keys_u8(t, &k, i, p);
				} else {
					float v[4];

					m2_keys_floats(t, &k, i, p, v);
					sink += (uint32_t)(v[0] == v[0]);
				}
			}
		}
		if (m->layout->per_sequence)
			continue;
		m2_track_keys(m, t, s, &first, &end);
		if (first > end || end > t->key_count ||
		    (t->key_count > 0 && s < t->range_count && t->global_sequence < 0 &&
		     first == end))
			abort();
	}
	for (uint32_t k = 0; k < t->key_count; k++) {
		uint32_t ms = m2_track_time(t, k);
		unsigned parts = t->value_bytes ? t->key_bytes / t->value_bytes : 0;

		if (ms < prev)
			abort();
		prev = ms;
		for (unsigned p = 0; p < parts; p++) {
			if (t->value_type == M2_VALUE_U8) {
				sink += m2_track_u8(t, k, p);
			} else {
				float v[4];

				m2_track_floats(t, k, p, v);
				sink += (uint32_t)(v[0] == v[0]);
			}
		}
	}
}

static void check_block(const struct m2_block *b, size_t size)
{
	if (b->count == 0) {
		if (b->data != NULL)
			abort();
		return;
	}
	sink += b->data[0] + b->data[size * b->count - 1];
}

static void check_bones(const struct m2_model *m)
{
	uint32_t *pos = calloc((size_t)m->bone_count + 1, sizeof *pos);

	if (pos == NULL)
		abort();
	for (uint32_t i = 0; i < m->bone_count; i++) {
		if (m->bone_order[i] >= m->bone_count || pos[m->bone_order[i]] != 0)
			abort();
		pos[m->bone_order[i]] = i + 1;
	}
	for (uint32_t i = 0; i < m->bone_count; i++) {
		const struct m2_bone *b = &m->bones[i];

		if (b->parent < -1 || (b->parent >= 0 && (uint32_t)b->parent >= m->bone_count) ||
		    b->parent == (int32_t)i)
			abort();
		if (b->parent < 0 ? b->depth != 0
				  : (pos[b->parent] >= pos[i] || b->depth != m->bones[b->parent].depth + 1))
			abort();
		check_track(m, &b->translation);
		check_track(m, &b->rotation);
		check_track(m, &b->scale);
		if (b->translation.value_type != M2_VALUE_VEC3 ||
		    b->rotation.value_type != (m->layout->quat16 ? M2_VALUE_QUAT16 : M2_VALUE_QUAT))
			abort();
	}
	free(pos);
}

/* Lookups feed nothing animd publishes: whatever they hold, readable. */
static void check_lookup(const struct m2_block *b, uint32_t stride)
{
	for (uint32_t i = 0; i < b->count; i++)
		sink += bin_le16(b->data + (size_t)i * stride);
}

static int is_alias(const struct m2_model *m, const struct m2_sequence *s)
{
	return m->layout->aliases && (s->flags & M2_SEQ_ALIAS) && !(s->flags & M2_SEQ_IN_MODEL);
}

static void check_model(const struct m2_model *m)
{
	if (m->name == NULL || m->layout == NULL || m2_layout_of(m->version) != m->layout)
		abort();
	sink += (uint32_t)strlen(m->name);
	for (uint32_t i = 0; i < m->sequence_count; i++) {
		const struct m2_sequence *s = &m->sequences[i];

		if (s->end_ms < s->start_ms || s->alias_target >= m->sequence_count ||
		    is_alias(m, &m->sequences[s->alias_target]) ||
		    (!is_alias(m, s) && s->alias_target != i))
			abort();
	}
	for (uint32_t i = 0; i < m->global_sequence_count; i++)
		sink += m->global_sequences[i];
	check_bones(m);
	check_lookup(&m->animation_lookup, 2);
	check_lookup(&m->playable_lookup, 4);
	check_lookup(&m->key_bone_lookup, 2);
	check_lookup(&m->bone_lookup, 2);
	check_lookup(&m->attachment_lookup, 2);
	if (m->notes.count > DIAG_NOTES_MAX)
		abort();
	for (uint32_t i = 0; i < m->notes.count; i++)
		sink += (uint32_t)strlen(m->notes.note[i].msg);
	for (uint32_t i = 0, unweighted = 0; i < m->vertex_count; i++) {
		const struct m2_vertex *v = &m->vertices[i];
		unsigned sum = v->weights[0] + v->weights[1] + v->weights[2] + v->weights[3];

		unweighted += sum == 0;
		for (int k = 0; k < 4; k++)
			if (v->weights[k] && v->bones[k] >= m->bone_count)
				abort();
		if (i + 1 == m->vertex_count && unweighted != m->unweighted_vertex_count)
			abort();
	}
	for (uint32_t i = 0; i < m->view_count; i++) {
		const struct m2_view *v = &m->views[i];

		if (!v->loaded)
			continue;
		/* View 0 is drawn: every index checked.  The others are only
		 * readable (their lists are as stored). */
		for (uint32_t k = 0; k < v->vertex_count; k++)
			if (m2_view_vertex(v, k) >= m->vertex_count && i == 0)
				abort();
		for (uint32_t k = 0; k < v->triangle_count * 3 && i > 0; k++)
			sink += bin_le16(v->corners + (size_t)k * 2);
		for (uint32_t t = 0; t < v->triangle_count && i == 0; t++) {
			uint32_t tri[3];

			m2_view_triangle(v, t, tri);
			if (tri[0] >= m->vertex_count || tri[1] >= m->vertex_count ||
			    tri[2] >= m->vertex_count)
				abort();
		}
		for (uint32_t k = 0; k < v->submesh_count; k++) {
			struct m2_submesh s;

			m2_view_submesh(v, k, &s);
			sink += s.vertex_count;
		}
		if (v->property_count)
			sink += v->properties[(size_t)v->property_count * 4 - 1];
		if (v->texture_unit_count)
			sink += v->texture_units[(size_t)v->texture_unit_count * 24 - 1];
		if (v->submesh_count)
			sink += v->submeshes[(size_t)v->submesh_count * v->submesh_bytes - 1];
	}
	for (uint32_t i = 0; i < m->attachment_count; i++) {
		if (m->attachments[i].bone >= m->bone_count)
			abort();
		check_track(m, &m->attachments[i].animate);
	}
	for (uint32_t i = 0; i < m->event_count; i++)
		check_track(m, &m->events[i].enabled);
	for (uint32_t i = 0; i < m->emitter_count; i++) {
		const struct m2_emitter *e = &m->emitters[i];

		if (e->bone < 0 || (uint32_t)e->bone >= m->bone_count)
			abort();
		for (int k = 0; k < M2_EMIT_PARAMS; k++)
			check_track(m, &e->params[k]);
		check_track(m, &e->enabled);
		if (e->model_name_bytes)
			sink += e->model_name[e->model_name_bytes - 1];
		if (e->recursion_name_bytes)
			sink += e->recursion_name[e->recursion_name_bytes - 1];
		if (e->spline_point_count)
			sink += e->spline_points[(size_t)e->spline_point_count * 12 - 1];
	}
	check_block(&m->colors, m->layout->colors_bytes);
	check_block(&m->textures, 16);
	check_block(&m->transparency, m->layout->transparency_bytes);
	check_block(&m->texture_flipbooks, 1);
	check_block(&m->texture_animations, m->layout->texture_animation_bytes);
	check_block(&m->replaceable_texture_lookup, 2);
	check_block(&m->render_flags, 4);
	check_block(&m->texture_lookup, 2);
	check_block(&m->texture_unit_lookup, 2);
	check_block(&m->transparency_lookup, 2);
	check_block(&m->texture_animation_lookup, 2);
	check_block(&m->bounding_triangles, 2);
	check_block(&m->bounding_vertices, 12);
	check_block(&m->bounding_normals, 12);
	check_block(&m->lights, m->layout->light_bytes);
	check_block(&m->cameras, m->layout->camera_bytes);
	check_block(&m->camera_lookup, 2);
	check_block(&m->ribbons, m->layout->ribbon_bytes);
}

/* A pack's blobs. */
#define PACK_MAX 16
struct pack {
	uint32_t count;
	const uint8_t *blob[PACK_MAX];
	size_t len[PACK_MAX];
	uint32_t next;                  /* the companion the reader hands out next */
};

static void unpack(const uint8_t *data, size_t size, struct pack *p)
{
	size_t at = 8;
	uint32_t n;

	memset(p, 0, sizeof p[0]);
	if (size < 8 || memcmp(data, "M2PK", 4) != 0) {
		p->count = 1;
		p->blob[0] = data;
		p->len[0] = size;
		return;
	}
	n = bin_le32(data + 4);
	for (uint32_t i = 0; i < n && i < PACK_MAX && at + 4 <= size; i++) {
		size_t len = bin_le32(data + at);

		at += 4;
		if (len > size - at)
			len = size - at;
		p->blob[p->count] = data + at;
		p->len[p->count++] = len;
		at += len;
	}
}

/* Companions from the pack, in the order asked for; exact-size copies so
 * ASan sees a read past their ends. */
static int read_pack(void *ctx, const char *name, char **buf, size_t *len, char *err,
		     size_t errlen)
{
	struct pack *p = ctx;
	uint32_t i = ++p->next;

	(void)name;
	(void)err;
	(void)errlen;
	if (i >= p->count)
		return -ENOENT;
	*buf = malloc(p->len[i] ? p->len[i] : 1);
	if (*buf == NULL)
		return -ENOMEM;
	memcpy(*buf, p->blob[i], p->len[i]);
	*len = p->len[i];
	return 0;
}

/* Attach the pack's companions to m as the loader would (views, then the
 * sequences that need an .anim), each failure located inside its blob. */
static void attach_pack(struct m2_model *m, const struct pack *p)
{
	uint32_t b = 1;

	if (!m->layout->per_sequence)
		return;
	for (uint32_t i = 0; i < m->view_count && b < p->count; i++, b++) {
		struct diag d = { 0 };

		if (m2_attach_skin(m, i, p->blob[b], p->len[b], &d, &m->notes) < 0 &&
		    (!d.set || d.offset > p->len[b] || m->views[i].loaded))
			abort();
	}
	for (uint32_t s = 0; s < m->sequence_count && b < p->count; s++) {
		struct diag d = { 0 };

		if (m->sequences[s].data != M2_SEQ_DATA_ANIM_MISSING)
			continue;
		if (m2_attach_anim(m, s, p->blob[b], p->len[b], &d, &m->notes) < 0) {
			if (!d.set || d.offset > p->len[b] ||
			    m->sequences[s].data != M2_SEQ_DATA_ANIM_BROKEN)
				abort();
		} else if (m->sequences[s].data != M2_SEQ_DATA_ANIM) {
			abort();
		}
		b++;
	}
}

/* A model that parses also imports and samples, in every space, at a few
 * times of its first clips (negative, inside, past the end, huge). */
static void sample_model(const uint8_t *data, size_t size, struct pack *p)
{
	static const double times[] = { -0.7, 0, 0.25, 3.5, 1e7 };
	struct asset_options o = { .read_companion = read_pack, .companion_ctx = p };
	struct asset *a = NULL;
	char err[256];

	p->next = 0;
	if (asset_load_buffer_with("fuzz.m2", data, size, &o, &a, err, sizeof err) != 0)
		abort();                /* what parses must import */
	for (uint32_t c = 0; c < a->clip_count && c < 3; c++)
		for (size_t t = 0; t < sizeof times / sizeof times[0]; t++)
			for (int sp = SPACE_LOCAL; sp < SAMPLE_SPACE_COUNT; sp++) {
				struct sample_request q = { .asset = a, .clip = a->clips[c]->name,
							    /* not loaded: not found, an error */
							    .time = times[t],
							    .space = (enum sample_space)sp };
				struct sample_result r;

				if (sample_evaluate(&q, &r, err, sizeof err) == 0) {
					sink += r.emitter_count + r.mesh_count;
					sample_result_free(&r);
				}
			}
	asset_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct m2_model *m = (struct m2_model *)1;
	struct diag d = { 0 };
	struct pack p;
	int rc;

	unpack(data, size, &p);
	data = p.blob[0];
	size = p.len[0];
	rc = m2_parse(data, size, &m, &d);
	if (rc == 0) {
		check_model(m);
		attach_pack(m, &p);
		check_model(m);
		m2_model_free(m);
		sample_model(data, size, &p);
	} else if (m != NULL || (rc != -EINVAL && rc != -ENOMEM) ||
		   (rc == -EINVAL && (!d.set || d.line != 0 || d.offset > size))) {
		abort();
	}
	return 0;
}
