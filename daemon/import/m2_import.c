#include "daemon/import/m2_import.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M2I_CHANNELS 3                  /* translation, rotation, scale */
#define M2I_EMITTER_TRACKS (EMITTER_PARAMS + 1)

/* Which keys of a track one sequence plays (formats/m2/m2.h, struct m2_keys:
 * wherever the version keeps them), and the clock they run on. */
struct m2i_keys {
	struct m2_keys k;
	uint32_t count;
	uint16_t global;                /* track.global */
};

/* Every value of a track goes through this: the joint's pivot offset for
 * translations (values, not tangents), normalisation for rotations. */
struct m2i_fix {
	float add[3];
	int normalise;
};

static uint8_t m2i_interp(uint16_t m2)
{
	switch (m2) {
	case M2_INTERP_STEP: return INTERP_STEP;
	case M2_INTERP_HERMITE: return INTERP_HERMITE;
	case M2_INTERP_BEZIER: return INTERP_BEZIER;
	default: return INTERP_LINEAR;
	}
}

static uint8_t m2i_width(const struct m2_track *tr)
{
	switch (tr->value_type) {
	case M2_VALUE_VEC3: return 3;
	case M2_VALUE_QUAT:
	case M2_VALUE_QUAT16: return 4;
	case M2_VALUE_FLOAT:
	case M2_VALUE_U8: return 1;
	default: return 0;
	}
}

static uint32_t m2i_parts(const struct m2_track *tr)
{
	return tr->interpolation == M2_INTERP_HERMITE || tr->interpolation == M2_INTERP_BEZIER ? 3 : 1;
}

/* The keys sequence `seq` plays of tr (m2_track_sequence_keys: its alias
 * target's, in whichever buffer and layout the version has), at clip time
 * (ms - start); a global-sequence track's, all of them, on its clock. */
static struct m2i_keys m2i_select(const struct m2_model *m, const struct m2_track *tr,
				  uint32_t seq)
{
	struct m2i_keys k = { 0 };

	if (m2i_width(tr) == 0)
		return k;
	m2_track_sequence_keys(m, tr, seq, &k.k);
	k.count = k.k.count;
	if (tr->global_sequence >= 0)
		k.global = (uint16_t)(tr->global_sequence + 1);
	return k;
}

static size_t m2i_floats(const struct m2_track *tr, const struct m2i_keys *k)
{
	return (size_t)k->count * m2i_width(tr) * m2i_parts(tr);
}

/* Write the keys k of tr into out (its times at *times, values at
 * *values, both advanced). */
static void m2i_fill(const struct m2_track *tr, const struct m2i_keys *k, const struct m2i_fix *fix,
		     struct track *out, int64_t **times, float **values)
{
	uint32_t w = m2i_width(tr), parts = m2i_parts(tr);

	out->count = k->count;
	out->interp = m2i_interp(tr->interpolation);
	out->width = (uint8_t)w;
	out->global = k->global;
	out->times = *times;
	out->values = *values;
	if (k->count == 0)
		return;         /* a track without keys: no values to point into */
	for (uint32_t i = 0; i < k->count; i++)
		(*times)[i] = ((int64_t)m2_keys_time(&k->k, i) - k->k.start_ms) * 1000000;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Float keys are the file's bytes as they are: one copy. */
	if (tr->value_type != M2_VALUE_U8 && tr->value_type != M2_VALUE_QUAT16 &&
	    tr->key_bytes == w * parts * sizeof(float))
		memcpy(*values, k->k.values, (size_t)k->count * tr->key_bytes);
	else
#endif
		for (uint32_t i = 0; i < k->count; i++)
			for (uint32_t p = 0; p < parts; p++) {
				float *v = *values + (size_t)i * w * parts + p * w;

				if (tr->value_type == M2_VALUE_U8)
					*v = (float)m2_keys_u8(tr, &k->k, i, (enum m2_key_part)p);
				else
					m2_keys_floats(tr, &k->k, i, (enum m2_key_part)p, v);
			}
	for (uint32_t i = 0; i < k->count && fix != NULL; i++) {
		float *v = *values + (size_t)i * w * parts;

		/* An offset moves values and bezier control points, which are
		 * points too; hermite tangents are directions, left alone. */
		if (w == 3)
			for (uint32_t p = 0; p < (out->interp == INTERP_BEZIER ? parts : 1); p++)
				for (uint32_t c = 0; c < 3; c++)
					v[p * 3 + c] += fix->add[c];
		if (fix->normalise && w == 4) {
			quat q = quat_normalize(quat_make(v[0], v[1], v[2], v[3]));

			v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
		}
	}
	*times += k->count;
	*values += (size_t)k->count * w * parts;
}

/* ---- the tracks of the model, in one list ------------------------------ */

/* Every animated value the runtime evaluates: per joint its three
 * channels, per emitter its parameters and on/off. */
struct m2i_slot {
	const struct m2_track *tr;
	struct m2i_fix fix;
	struct track global;            /* converted once when on a global sequence */
};

struct m2i {
	const struct m2_model *m;
	struct m2_runtime *out;
	uint32_t *order;                /* joint -> file bone */
	uint32_t *runtime_of;           /* file bone -> joint */
	struct m2i_slot *slots;         /* joints * 3, then emitters * 11, then
					   attachments */
	uint32_t slot_count;
};

static struct m2i_slot *m2i_joint_slot(struct m2i *x, uint32_t joint, int channel)
{
	return &x->slots[joint * M2I_CHANNELS + (uint32_t)channel];
}

static struct m2i_slot *m2i_emitter_slot(struct m2i *x, uint32_t e, int k)
{
	return &x->slots[x->out->skeleton->joint_count * M2I_CHANNELS + e * M2I_EMITTER_TRACKS +
			 (uint32_t)k];
}

static struct m2i_slot *m2i_attachment_slot(struct m2i *x, uint32_t a)
{
	return &x->slots[x->out->skeleton->joint_count * M2I_CHANNELS +
			 x->m->emitter_count * M2I_EMITTER_TRACKS + a];
}

static int m2i_slots(struct m2i *x)
{
	const struct m2_model *m = x->m;
	uint32_t n = m->bone_count;

	x->slot_count = n * M2I_CHANNELS + m->emitter_count * M2I_EMITTER_TRACKS +
			m->attachment_count;
	x->slots = calloc(x->slot_count + 1, sizeof *x->slots);
	if (x->slots == NULL)
		return -ENOMEM;
	for (uint32_t j = 0; j < n; j++) {
		const struct m2_bone *b = &m->bones[x->order[j]];
		const float *pp = b->parent >= 0 ? m->bones[b->parent].pivot : NULL;
		struct m2i_slot *t = m2i_joint_slot(x, j, 0);

		t[0].tr = &b->translation;
		for (int c = 0; c < 3; c++)
			t[0].fix.add[c] = b->pivot[c] - (pp ? pp[c] : 0.0f);
		t[1].tr = &b->rotation;
		t[1].fix.normalise = 1;
		t[2].tr = &b->scale;
	}
	for (uint32_t e = 0; e < m->emitter_count; e++) {
		for (int p = 0; p < EMITTER_PARAMS; p++)
			m2i_emitter_slot(x, e, p)->tr = &m->emitters[e].params[p];
		m2i_emitter_slot(x, e, EMITTER_PARAMS)->tr = &m->emitters[e].enabled;
	}
	for (uint32_t a = 0; a < m->attachment_count; a++)
		m2i_attachment_slot(x, a)->tr = &m->attachments[a].animate;
	return 0;
}

/* Tracks on a global sequence are the same in every clip: converted once,
 * into storage the runtime owns and every clip points at. */
static int m2i_globals(struct m2i *x)
{
	size_t times = 0, floats = 0;
	int64_t *tp;
	float *vp;

	for (uint32_t i = 0; i < x->slot_count; i++) {
		const struct m2_track *tr = x->slots[i].tr;
		struct m2i_keys k;

		if (tr->global_sequence < 0)
			continue;
		k = m2i_select(x->m, tr, 0);
		times += k.count;
		floats += m2i_floats(tr, &k);
	}
	if (times == 0)
		return 0;
	x->out->global_keys_bytes = times * sizeof(int64_t) + floats * sizeof(float);
	x->out->global_keys = malloc(x->out->global_keys_bytes);
	if (x->out->global_keys == NULL)
		return -ENOMEM;
	tp = x->out->global_keys;
	vp = (float *)(tp + times);
	for (uint32_t i = 0; i < x->slot_count; i++) {
		struct m2i_slot *sl = &x->slots[i];
		struct m2i_keys k;

		if (sl->tr->global_sequence < 0)
			continue;
		k = m2i_select(x->m, sl->tr, 0);
		m2i_fill(sl->tr, &k, &sl->fix, &sl->global, &tp, &vp);
	}
	return 0;
}

/* ---- one clip per sequence --------------------------------------------- */

static void m2i_clip_track(struct m2i *x, const struct m2i_slot *sl, uint32_t seq,
			   struct track *out, int64_t **tp, float **vp)
{
	struct m2i_keys k;

	if (sl->tr->global_sequence >= 0) {
		*out = sl->global;
		return;
	}
	k = m2i_select(x->m, sl->tr, seq);
	if (k.count > 0)
		m2i_fill(sl->tr, &k, &sl->fix, out, tp, vp);
}

static int m2i_event_order(const void *a, const void *b)
{
	const struct clip_event *p = a, *q = b;

	if (p->t_ns != q->t_ns)
		return p->t_ns < q->t_ns ? -1 : 1;
	return p->event < q->event ? -1 : p->event > q->event;
}

/* The moments of sequence s's events (m2_event_keys), by time: into
 * c->events (event_count + 1 entries).  0 or -ENOMEM. */
static int m2i_clip_events(const struct m2_model *m, uint32_t s, struct clip *c)
{
	size_t n = 0;

	for (uint32_t e = 0; e < m->event_count; e++) {
		struct m2_keys k;

		m2_event_keys(m, &m->events[e].enabled, s, &k);
		n += k.count;
	}
	c->events = malloc((n + 1) * sizeof *c->events);
	if (c->events == NULL)
		return -ENOMEM;
	for (uint32_t e = 0; e < m->event_count; e++) {
		struct m2_keys k;

		m2_event_keys(m, &m->events[e].enabled, s, &k);
		for (uint32_t i = 0; i < k.count; i++)
			c->events[c->event_count++] = (struct clip_event){
				((int64_t)m2_keys_time(&k, i) - k.start_ms) * 1000000, e
			};
	}
	qsort(c->events, c->event_count, sizeof *c->events, m2i_event_order);
	return 0;
}

static int m2i_clip(struct m2i *x, uint32_t s, struct clip **out)
{
	const struct m2_model *m = x->m;
	const struct m2_sequence *seq = &m->sequences[s];
	uint32_t target = seq->alias_target, n = x->out->skeleton->joint_count;
	const struct m2_sequence *win = &m->sequences[target];
	struct clip *c = calloc(1, sizeof *c);
	size_t times = 0, floats = 0;
	char name[16];
	int64_t *tp;
	float *vp;

	if (c == NULL)
		return -ENOMEM;
	snprintf(name, sizeof name, "%u", s);
	for (uint32_t i = 0; i < x->slot_count; i++) {
		struct m2i_keys k;

		if (x->slots[i].tr->global_sequence >= 0)
			continue;
		k = m2i_select(m, x->slots[i].tr, s);
		times += k.count;
		floats += m2i_floats(x->slots[i].tr, &k);
	}
	c->name = strdup(name);
	c->joint_count = n;
	c->duration_ns = ((int64_t)win->end_ms - win->start_ms) * 1000000;
	c->loop = LOOP_LOOP;
	c->tracks = calloc((size_t)n + 1, sizeof *c->tracks);
	c->rest = malloc(((size_t)n + 1) * sizeof *c->rest);
	c->key_storage_bytes = times * sizeof(int64_t) + floats * sizeof(float) + 1;
	c->key_storage = malloc(c->key_storage_bytes);
	c->global_count = x->out->global_count;
	c->global_ns = malloc(((size_t)c->global_count + 1) * sizeof *c->global_ns);
	c->emitter_count = m->emitter_count;
	c->emitters = calloc((size_t)m->emitter_count + 1, sizeof *c->emitters);
	c->attachment_count = m->attachment_count;
	c->attachments = calloc((size_t)m->attachment_count + 1, sizeof *c->attachments);
	if (c->name == NULL || c->tracks == NULL || c->rest == NULL || c->key_storage == NULL ||
	    c->global_ns == NULL || c->emitters == NULL || c->attachments == NULL ||
	    m2i_clip_events(m, s, c) < 0) {
		clip_free(c);
		return -ENOMEM;
	}
	memcpy(c->rest, x->out->skeleton->rest, (size_t)n * sizeof *c->rest);
	if (c->global_count > 0)
		memcpy(c->global_ns, x->out->global_ns, c->global_count * sizeof *c->global_ns);
	tp = c->key_storage;
	vp = (float *)(tp + times);
	for (uint32_t j = 0; j < n; j++) {
		struct track *ch[M2I_CHANNELS] = { &c->tracks[j].t, &c->tracks[j].r, &c->tracks[j].s };

		for (int k = 0; k < M2I_CHANNELS; k++)
			m2i_clip_track(x, m2i_joint_slot(x, j, k), s, ch[k], &tp, &vp);
	}
	for (uint32_t e = 0; e < m->emitter_count; e++) {
		for (int p = 0; p < EMITTER_PARAMS; p++)
			m2i_clip_track(x, m2i_emitter_slot(x, e, p), s, &c->emitters[e].param[p],
				       &tp, &vp);
		m2i_clip_track(x, m2i_emitter_slot(x, e, EMITTER_PARAMS), s,
			       &c->emitters[e].enabled, &tp, &vp);
	}
	for (uint32_t a = 0; a < m->attachment_count; a++)
		m2i_clip_track(x, m2i_attachment_slot(x, a), s, &c->attachments[a], &tp, &vp);
	if (clip_index_keys(c) != 0) {
		clip_free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

static void m2i_sequence_info(const struct m2_model *m, uint32_t s, struct m2_sequence_info *o)
{
	const struct m2_sequence *q = &m->sequences[s];

	o->id = q->id;
	o->variation = q->variation;
	o->flags = q->flags;
	o->movespeed = q->movespeed;
	o->frequency = q->frequency;
	o->replay_min = q->replay_min;
	o->replay_max = q->replay_max;
	o->blend_ms = q->blend_ms;
	o->alias_of = q->alias_target != s ? (int32_t)q->alias_target : -1;
	o->next_variation = q->next_variation;
	o->data = m->sequences[q->alias_target].data;
	o->loaded = o->data == M2_SEQ_DATA_MODEL || o->data == M2_SEQ_DATA_NONE ||
		    o->data == M2_SEQ_DATA_ANIM;
}

/* ---- skeleton, mesh, emitters ------------------------------------------ */

/*
 * The joints' order: the file's whenever its parents come before their
 * children (real models), so that joint j is bone j; otherwise each bone
 * right after its ancestors, in file order (the parser has ruled out
 * cycles).
 */
static int m2i_order(struct m2i *x)
{
	const struct m2_model *m = x->m;
	uint32_t n = m->bone_count, done = 0, *chain;
	bool *placed;

	x->order = malloc(((size_t)n + 1) * sizeof *x->order);
	x->runtime_of = malloc(((size_t)n + 1) * sizeof *x->runtime_of);
	chain = malloc(((size_t)n + 1) * sizeof *chain);
	placed = calloc((size_t)n + 1, sizeof *placed);
	if (x->order == NULL || x->runtime_of == NULL || chain == NULL || placed == NULL) {
		free(chain);
		free(placed);
		return -ENOMEM;
	}
	for (uint32_t b = 0; b < n; b++) {
		uint32_t len = 0;

		/* b and its ancestors not yet placed, nearest first. */
		for (int32_t a = (int32_t)b; a >= 0 && !placed[a]; a = m->bones[a].parent)
			chain[len++] = (uint32_t)a;
		while (len > 0) {
			uint32_t a = chain[--len];

			placed[a] = true;
			x->runtime_of[a] = done;
			x->order[done++] = a;
		}
	}
	free(chain);
	free(placed);
	return 0;
}

static int m2i_skeleton(struct m2i *x)
{
	const struct m2_model *m = x->m;
	uint32_t n = m->bone_count;
	struct skeleton *s = skeleton_new(n);

	x->out->skeleton = s;
	x->out->joints = calloc((size_t)n + 1, sizeof *x->out->joints);
	if (s == NULL || x->out->joints == NULL || m2i_order(x) < 0)
		return -ENOMEM;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t b = x->order[j];
		const struct m2_bone *bone = &m->bones[b];
		const float *pp = bone->parent >= 0 ? m->bones[bone->parent].pivot : NULL;
		char name[16];

		snprintf(name, sizeof name, "bone%u", b);
		s->names[j] = strdup(name);
		if (s->names[j] == NULL)
			return -ENOMEM;
		s->parents[j] = bone->parent >= 0 ? (int32_t)x->runtime_of[bone->parent] : -1;
		s->rest[j] = transform_identity();
		s->rest[j].t = vec3_make(bone->pivot[0] - (pp ? pp[0] : 0.0f),
					 bone->pivot[1] - (pp ? pp[1] : 0.0f),
					 bone->pivot[2] - (pp ? pp[2] : 0.0f));
		x->out->joints[j] = (struct m2_joint_info){ b, bone->flags, bone->key_bone_id };
	}
	for (uint32_t j = 0; j < n; j++) {
		uint8_t bits = (uint8_t)(m->bones[x->order[j]].flags & SKELETON_IGNORE_PARENT_ALL);

		if (bits == 0 || s->parents[j] < 0)
			continue;
		if (s->ignore_parent == NULL) {
			s->ignore_parent = calloc((size_t)n + 1, sizeof *s->ignore_parent);
			if (s->ignore_parent == NULL)
				return -ENOMEM;
		}
		s->ignore_parent[j] = bits;
	}
	/* The bind pose is T(pivot) for every joint. */
	return skeleton_compute_bind(s);
}

static int m2i_mesh(struct m2i *x)
{
	const struct m2_model *m = x->m;
	const struct m2_view *v = m->view_count > 0 && m->views[0].loaded ? &m->views[0] : NULL;
	struct mesh *me;
	uint32_t inf = 0;

	if (m->vertex_count == 0)
		return 0;
	for (uint32_t i = 0; i < m->vertex_count; i++)
		for (int k = 0; k < 4; k++)
			inf += m->vertices[i].weights[k] > 0;
	x->out->meshes = calloc(1, sizeof *x->out->meshes);
	me = calloc(1, sizeof *me);
	if (x->out->meshes == NULL || me == NULL) {
		free(me);
		return -ENOMEM;
	}
	x->out->meshes[0] = me;
	x->out->mesh_count = 1;
	me->name = strdup(m->name != NULL && m->name[0] != '\0' ? m->name : "mesh0");
	me->normals = MESH_NORMALS_SKINNED;
	me->uv_sets = 2;
	me->vertex_count = m->vertex_count;
	me->triangle_count = v != NULL ? v->triangle_count : 0;
	me->influence_count = inf;
	me->first_influence = malloc(((size_t)m->vertex_count + 1) * sizeof *me->first_influence);
	me->influences = malloc(((size_t)inf + 1) * sizeof *me->influences);
	me->triangles = malloc(((size_t)me->triangle_count + 1) * sizeof *me->triangles);
	me->uvs = malloc(((size_t)m->vertex_count + 1) * sizeof *me->uvs);
	if (me->name == NULL || me->first_influence == NULL || me->influences == NULL ||
	    me->triangles == NULL || me->uvs == NULL)
		return -ENOMEM;
	inf = 0;
	for (uint32_t i = 0; i < m->vertex_count; i++) {
		const struct m2_vertex *vx = &m->vertices[i];
		vec3 pos = vec3_make(vx->position[0], vx->position[1], vx->position[2]);
		vec3 normal = vec3_make(vx->normal[0], vx->normal[1], vx->normal[2]);

		me->first_influence[i] = inf;
		for (int k = 0; k < 4; k++) {
			uint32_t j;

			if (vx->weights[k] == 0)
				continue;
			/* Into the joint's frame, T(pivot): the vertex relative to
			 * the pivot (B * v = model * T(-pivot) * v); normals are
			 * directions, unchanged by a translation. */
			j = x->runtime_of[vx->bones[k]];
			me->influences[inf++] = (struct mesh_influence){
				j, vx->weights[k] / 255.0f,
				mat34_apply(&x->out->skeleton->inv_bind[j], pos), normal
			};
		}
		me->uvs[i][0] = vx->uv[0][0];
		me->uvs[i][1] = vx->uv[0][1];
	}
	me->first_influence[m->vertex_count] = inf;
	for (uint32_t t = 0; t < me->triangle_count; t++)
		m2_view_triangle(v, t, me->triangles[t]);
	return 0;
}

static int m2i_emitters(struct m2i *x)
{
	const struct m2_model *m = x->m;

	if (m->emitter_count == 0)
		return 0;
	x->out->emitters = calloc(m->emitter_count, sizeof *x->out->emitters);
	if (x->out->emitters == NULL)
		return -ENOMEM;
	x->out->emitter_count = m->emitter_count;
	for (uint32_t i = 0; i < m->emitter_count; i++) {
		const struct m2_emitter *f = &m->emitters[i];
		struct emitter *e = &x->out->emitters[i];

		e->joint = x->runtime_of[f->bone];
		e->position = vec3_make(f->position[0], f->position[1], f->position[2]);
		e->id = f->id;
		e->flags = f->flags;
		e->texture = f->texture;
		e->blend_mode = f->blend_mode;
		e->emitter_type = f->emitter_type;
		e->particle_type = f->particle_type;
		e->tile_rotation = f->tile_rotation;
		e->rows = f->rows;
		e->columns = f->columns;
		e->midpoint = f->midpoint;
		memcpy(e->colors, f->colors, sizeof e->colors);
		memcpy(e->sizes, f->sizes, sizeof e->sizes);
		memcpy(e->tiles, f->tiles, sizeof e->tiles);
		e->slowdown = f->slowdown;
		e->rotation = f->rotation;
		if (f->spline_point_count > 0) {
			e->spline_points = malloc(f->spline_point_count * sizeof *e->spline_points);
			if (e->spline_points == NULL)
				return -ENOMEM;
			for (uint32_t k = 0; k < f->spline_point_count; k++)
				e->spline_points[k] = vec3_make(bin_lef32(f->spline_points + 12 * k),
								bin_lef32(f->spline_points + 12 * k + 4),
								bin_lef32(f->spline_points + 12 * k + 8));
			e->spline_point_count = f->spline_point_count;
		}
		if (f->model_name_bytes > 0) {
			e->model_name = strndup((const char *)f->model_name, f->model_name_bytes);
			if (e->model_name == NULL)
				return -ENOMEM;
		}
	}
	return 0;
}

static int m2i_attachments(struct m2i *x)
{
	const struct m2_model *m = x->m;
	struct m2_runtime *out = x->out;

	out->attachments = calloc((size_t)m->attachment_count + 1, sizeof *out->attachments);
	out->events = calloc((size_t)m->event_count + 1, sizeof *out->events);
	if (out->attachments == NULL || out->events == NULL)
		return -ENOMEM;
	out->attachment_count = m->attachment_count;
	for (uint32_t i = 0; i < m->attachment_count; i++) {
		const struct m2_attachment *a = &m->attachments[i];

		out->attachments[i] = (struct attachment){
			a->id, x->runtime_of[a->bone],
			vec3_make(a->position[0], a->position[1], a->position[2])
		};
	}
	out->event_count = m->event_count;
	for (uint32_t i = 0; i < m->event_count; i++) {
		const struct m2_event *e = &m->events[i];
		struct m2_event_info *o = &out->events[i];

		memcpy(o->id, e->id, sizeof o->id);
		o->data = e->data;
		o->bone = e->bone;
		o->joint = e->bone < m->bone_count ? (int32_t)x->runtime_of[e->bone] : -1;
		o->position = vec3_make(e->position[0], e->position[1], e->position[2]);
	}
	return 0;
}

int m2_import(const struct m2_model *m, struct m2_runtime *out)
{
	struct m2i x = { .m = m, .out = out };
	int rc;

	memset(out, 0, sizeof *out);
	out->global_count = m->global_sequence_count;
	out->global_ns = calloc((size_t)m->global_sequence_count + 1, sizeof *out->global_ns);
	rc = out->global_ns == NULL ? -ENOMEM : m2i_skeleton(&x);
	for (uint32_t g = 0; rc == 0 && g < m->global_sequence_count; g++)
		out->global_ns[g] = (int64_t)m->global_sequences[g] * 1000000;
	if (rc == 0)
		rc = m2i_slots(&x);
	if (rc == 0)
		rc = m2i_globals(&x);
	if (rc == 0) {
		out->clips = calloc((size_t)m->sequence_count + 1, sizeof *out->clips);
		out->sequences = calloc((size_t)m->sequence_count + 1, sizeof *out->sequences);
		if (out->clips == NULL || out->sequences == NULL)
			rc = -ENOMEM;
	}
	for (uint32_t s = 0; rc == 0 && s < m->sequence_count; s++) {
		rc = m2i_clip(&x, s, &out->clips[s]);
		if (rc == 0) {
			m2i_sequence_info(m, s, &out->sequences[s]);
			out->clip_count++;
		}
	}
	if (rc == 0)
		rc = m2i_mesh(&x);
	if (rc == 0)
		rc = m2i_emitters(&x);
	if (rc == 0)
		rc = m2i_attachments(&x);
	free(x.slots);
	free(x.order);
	free(x.runtime_of);
	if (rc < 0)
		m2_runtime_free(out);
	return rc;
}

void m2_runtime_free(struct m2_runtime *r)
{
	skeleton_free(r->skeleton);
	free(r->joints);
	for (uint32_t i = 0; i < r->clip_count; i++)
		clip_free(r->clips[i]);
	free(r->clips);
	free(r->sequences);
	free(r->global_ns);
	free(r->global_keys);
	for (uint32_t i = 0; i < r->mesh_count; i++)
		mesh_free(r->meshes[i]);
	free(r->meshes);
	for (uint32_t i = 0; i < r->emitter_count; i++)
		emitter_fini(&r->emitters[i]);
	free(r->emitters);
	free(r->attachments);
	free(r->events);
	memset(r, 0, sizeof *r);
}
