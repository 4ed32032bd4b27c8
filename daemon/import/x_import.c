/*
 * x_import.c - the entry of the .x import: frames to the skeleton (in
 * depth-first order, so parents come first), then meshes and clips.
 */
#include "daemon/import/x_import_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void x_model_free(struct x_model *m)
{
	skeleton_free(m->skeleton);
	for (uint32_t i = 0; i < m->mesh_count; i++)
		mesh_free(m->meshes[i]);
	free(m->meshes);
	for (uint32_t i = 0; i < m->clip_count; i++)
		clip_free(m->clips[i]);
	free(m->clips);
	memset(m, 0, sizeof *m);
}

static int x_frame_name_cmp(const void *a, const void *b)
{
	const struct x_frame_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : (x->joint > y->joint) - (x->joint < y->joint);
}

int32_t x_frames_find(const struct x_frames *f, const char *name)
{
	uint32_t lo = 0, hi = f->named;

	/* The first entry not less than name: the lowest joint of that name. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (strcmp(f->by_name[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->named && strcmp(f->by_name[lo].name, name) == 0)
		return (int32_t)f->by_name[lo].joint;
	return -1;
}

/* Index the named frames (unnamed ones cannot be referred to). */
static int x_frames_index(struct x_frames *f)
{
	f->by_name = malloc(((size_t)f->count + 1) * sizeof *f->by_name);
	if (f->by_name == NULL)
		return -ENOMEM;
	f->named = 0;
	for (uint32_t i = 0; i < f->count; i++)
		if (f->objects[i] != NULL && f->objects[i]->name != NULL)
			f->by_name[f->named++] = (struct x_frame_name){ f->objects[i]->name, i };
	qsort(f->by_name, f->named, sizeof *f->by_name, x_frame_name_cmp);
	return 0;
}

/* Frames below o (o itself when it is one), depth first, and every Mesh
 * with the joint of the frame that holds it.  count_only counts; otherwise
 * fills f.  Meshes outside any frame set *loose. */
static void x_frames_walk(const struct x_object *o, int32_t parent, struct x_frames *f,
			  bool count_only, bool in_frame, bool *loose)
{
	int32_t self = parent;

	if (x_is(o, "Frame")) {
		self = (int32_t)f->count;
		if (!count_only) {
			f->objects[self] = o;
			f->parents[self] = parent;
		}
		f->count++;
		in_frame = true;
	} else if (x_is(o, "Mesh")) {
		if (!count_only) {
			f->meshes[f->mesh_count] = o;
			f->mesh_frames[f->mesh_count] = parent;
		}
		f->mesh_count++;
		if (!in_frame)
			*loose = true;
	}
	/* Animation sets hold references, not frames: no need to descend. */
	if (x_is(o, "AnimationSet"))
		return;
	for (uint32_t i = 0; i < o->child_count; i++)
		if (o->children[i]->type != NULL)
			x_frames_walk(o->children[i], self, f, count_only, in_frame, loose);
}

static int x_frames_collect(const struct x_tree *t, struct x_frames *f)
{
	bool loose = false;
	uint32_t first;

	memset(f, 0, sizeof *f);
	for (uint32_t i = 0; i < t->root_count; i++)
		x_frames_walk(t->roots[i], -1, f, true, false, &loose);
	f->synthetic_root = loose || f->count == 0;
	first = f->synthetic_root ? 1 : 0;
	f->objects = calloc((size_t)f->count + first, sizeof *f->objects);
	f->parents = calloc((size_t)f->count + first, sizeof *f->parents);
	f->meshes = calloc((size_t)f->mesh_count + 1, sizeof *f->meshes);
	f->mesh_frames = calloc((size_t)f->mesh_count + 1, sizeof *f->mesh_frames);
	if (f->objects == NULL || f->parents == NULL || f->meshes == NULL || f->mesh_frames == NULL)
		return -ENOMEM;
	f->count = first;
	f->mesh_count = 0;
	if (f->synthetic_root)
		f->parents[0] = -1;
	for (uint32_t i = 0; i < t->root_count; i++)
		x_frames_walk(t->roots[i], f->synthetic_root ? 0 : -1, f, false, false, &loose);
	return 0;
}

/* A frame's FrameTransformMatrix (the last, if several; the identity if
 * none), exactly and split into translation, rotation and scale. */
static int x_frame_matrix(const struct x_tree *t, const struct x_object *frame,
			  struct transform *split, mat34 *exact, struct diag *d)
{
	*split = transform_identity();
	*exact = mat34_identity();
	for (uint32_t i = 0; i < frame->child_count; i++) {
		const struct x_object *c = frame->children[i];
		struct x_reader r;
		float m[16];

		if (!x_is(c, "FrameTransformMatrix"))
			continue;
		x_reader_init(&r, t, c, d);
		if (x_read_floats(&r, "a FrameTransformMatrix element", m, 16) < 0)
			return -EINVAL;
		*split = x_matrix_to_transform(m);
		*exact = x_row_to_mat34(m);
	}
	return 0;
}

static int x_import_skeleton(const struct x_tree *t, const struct x_frames *f,
			     struct x_model *m, struct diag *d)
{
	struct skeleton *s = skeleton_new(f->count);
	char fallback[32];

	if (s == NULL)
		return -ENOMEM;
	m->skeleton = s;
	/* Frames keep their matrices as written: Direct3D uses them so. */
	s->rest_matrix = malloc(((size_t)f->count + 1) * sizeof *s->rest_matrix);
	s->rest_not_trs = calloc((size_t)f->count + 1, sizeof *s->rest_not_trs);
	if (s->rest_matrix == NULL || s->rest_not_trs == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->count; i++) {
		const struct x_object *o = f->objects[i];
		const char *name = o != NULL ? o->name : "(root)";

		if (name == NULL) {
			snprintf(fallback, sizeof fallback, "frame%u", i);
			name = fallback;
		}
		s->names[i] = strdup(name);
		if (s->names[i] == NULL)
			return -ENOMEM;
		s->parents[i] = f->parents[i];
		s->rest_matrix[i] = mat34_identity();
		if (o != NULL && x_frame_matrix(t, o, &s->rest[i], &s->rest_matrix[i], d) < 0)
			return -EINVAL;
		s->rest_not_trs[i] = !x_matrix_is_trs(&s->rest_matrix[i], &s->rest[i]);
	}
	return skeleton_compute_bind(s);
}

static int x_ticks(const struct x_tree *t, uint32_t ticks_default, struct x_model *m,
		   struct diag *d)
{
	m->ticks_per_second = ticks_default ? ticks_default : X_DEFAULT_TICKS_PER_SECOND;
	for (uint32_t i = 0; i < t->root_count; i++) {
		struct x_reader r;
		uint32_t v;

		if (!x_is(t->roots[i], "AnimTicksPerSecond"))
			continue;
		x_reader_init(&r, t, t->roots[i], d);
		if (x_read_uint(&r, "AnimTicksPerSecond", UINT32_MAX, &v) < 0)
			return -EINVAL;
		if (v == 0)
			return x_tree_error(t, d, t->roots[i]->pos,
					     "AnimTicksPerSecond is 0: key times would never advance");
		m->ticks_per_second = v;
		m->ticks_from_file = 1;
	}
	return 0;
}

int x_import(struct x_tree *t, uint32_t ticks_default, const char *name,
	     struct x_model *out, struct diag *d)
{
	struct x_model m = { 0 };
	struct x_frames f;
	int rc;

	rc = x_frames_collect(t, &f);
	if (rc == 0)
		rc = x_frames_index(&f);
	if (rc == 0)
		rc = x_import_skeleton(t, &f, &m, d);
	if (rc == 0)
		rc = x_ticks(t, ticks_default, &m, d);
	if (rc == 0)
		rc = x_import_meshes(t, &f, &m, d);
	if (rc == 0)
		rc = x_import_clips(t, &f, name, &m, d);
	free(f.objects);
	free(f.parents);
	free(f.by_name);
	free(f.meshes);
	free(f.mesh_frames);
	if (rc < 0) {
		x_model_free(&m);
		return rc;
	}
	*out = m;
	return 0;
}
