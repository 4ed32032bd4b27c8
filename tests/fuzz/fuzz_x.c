/*
 * libFuzzer harness for .x files: whatever the header says (text, binary,
 * compressed either), parse, then check the tree keeps x_tree.h's promises
 * (counts, depths, strings, positions inside the body) and locate an error
 * at every object's position; then import it (anim/x_import.h), check the
 * model's invariants (parents first, every index in range, key times in
 * order), skin every mesh at the rest pose and sample every clip.  A
 * rejected file must come with a located message.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/pose.h"
#include "daemon/formats/x/x.h"
#include "daemon/import/x_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t objects, depth_seen;
static uint64_t values;

static void check_object(const struct x_tree *t, const struct x_object *o, uint32_t depth)
{
	struct diag d = { 0 };

	objects++;
	if (o->depth != depth || depth >= X_MAX_DEPTH || o->pos > t->body_len)
		abort();
	if (depth > depth_seen)
		depth_seen = depth;
	if (o->type == NULL) {
		/* A reference: a name or a GUID, nothing inside. */
		if ((o->name == NULL && !o->has_guid) || o->value_count || o->child_count)
			abort();
	} else if (strlen(o->type) == 0) {
		abort();
	}
	for (uint32_t i = 0; i < o->value_count; i++) {
		const struct x_value *v = &o->values[i];

		values++;
		if (v->pos > t->body_len)
			abort();
		if (v->kind == X_VALUE_STRING &&
		    (v->v.s.ptr == NULL || v->v.s.ptr[x_value_strlen(v)] != '\0'))
			abort();
		if (v->kind != X_VALUE_INT && v->kind != X_VALUE_FLOAT && v->kind != X_VALUE_STRING)
			abort();
	}
	for (uint32_t i = 0; i < o->child_count; i++)
		check_object(t, o->children[i], depth + 1);
	/* Locating is what the importer will do with these positions. */
	x_tree_error(t, &d, o->pos, "check");
	if (!d.set)
		abort();
}

static void check_track(const struct track *tr, unsigned width)
{
	if (tr->width != width)
		abort();
	for (uint32_t k = 1; k < tr->count; k++)
		if (tr->times[k] < tr->times[k - 1])
			abort();
}

static void check_model(const struct x_model *m, bool text_plain)
{
	const struct skeleton *s = m->skeleton;
	mat34 *model = malloc(((size_t)s->joint_count + 1) * sizeof *model);
	mat34 *skin = malloc(((size_t)s->joint_count + 1) * sizeof *skin);
	struct transform *pose = malloc(((size_t)s->joint_count + 1) * sizeof *pose);

	if (model == NULL || skin == NULL || pose == NULL)
		abort();
	for (uint32_t i = 0; i < s->joint_count; i++)
		if (s->names[i] == NULL || s->parents[i] >= (int32_t)i || s->parents[i] < -1)
			abort();
	pose_local_to_skin(s, s->rest, model, skin);
	for (uint32_t i = 0; i < m->mesh_count; i++) {
		const struct mesh *me = m->meshes[i];
		vec3 *out = malloc(((size_t)me->vertex_count + 1) * sizeof *out);
		vec3 *nrm = malloc(((size_t)me->vertex_count + 1) * sizeof *nrm);

		if (out == NULL || nrm == NULL || me->first_influence[0] != 0 ||
		    me->first_influence[me->vertex_count] != me->influence_count)
			abort();
		for (uint32_t k = 0; k < me->influence_count; k++)
			if (me->influences[k].joint >= s->joint_count)
				abort();
		for (uint32_t k = 0; k < me->triangle_count; k++)
			for (int c = 0; c < 3; c++)
				if (me->triangles[k][c] >= me->vertex_count)
					abort();
		mesh_skin_positions(me, s->bind_model, out);
		mesh_skin_positions(me, model, out);
		/* The skin scratch holds the normal matrices. */
		mesh_normal_matrices(s->joint_count, model, skin);
		mesh_skin_normals(me, skin, out, nrm);
		free(out);
		free(nrm);
	}
	/* Notes are located: a line and column in plain text, an offset past
	 * the header otherwise (the uvs and colours they leave out are not
	 * kept: whatever is kept is finite). */
	for (uint32_t i = 0; i < m->notes.count; i++) {
		const struct diag_note *n = &m->notes.note[i];

		if (n->msg[0] == '\0' || (text_plain ? n->line == 0 || n->col == 0
						     : n->line != 0 || n->offset < 16))
			abort();
	}
	for (uint32_t i = 0; i < m->mesh_count; i++) {
		const struct mesh *me = m->meshes[i];

		for (uint32_t v = 0; me->uvs != NULL && v < me->vertex_count; v++)
			if (!isfinite(me->uvs[v][0]) || !isfinite(me->uvs[v][1]))
				abort();
		for (uint32_t v = 0; me->colors != NULL && v < me->vertex_count; v++)
			for (int k = 0; k < 4; k++)
				if (!isfinite(me->colors[v][k]))
					abort();
	}
	for (uint32_t i = 0; i < m->clip_count; i++) {
		const struct clip *c = m->clips[i];

		if (c->joint_count != s->joint_count || c->duration_ns < 0)
			abort();
		for (uint32_t j = 0; j < c->joint_count; j++) {
			check_track(&c->tracks[j].t, 3);
			check_track(&c->tracks[j].r, 4);
			check_track(&c->tracks[j].s, 3);
		}
		clip_sample(c, 0, pose);
		clip_sample(c, c->duration_ns / 2, pose);
		clip_sample(c, c->duration_ns, pose);
	}
	/* Compressed as a load does (the key index's poses, any values the
	 * file holds), then sampled again. */
	for (uint32_t i = 0; i < m->clip_count; i++) {
		struct clip *c = m->clips[i];
		int rc = clip_compress(c, s->parents, NULL);

		if (rc != 0 && rc != -ENOMEM)
			abort();
		clip_sample(c, 0, pose);
		clip_sample(c, c->duration_ns / 3, pose);
		clip_sample(c, c->duration_ns, pose);
	}
	free(model);
	free(skin);
	free(pose);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct x_tree t;
	struct diag d = { 0 };
	int rc = x_parse((const char *)data, size, &t, &d);

	if (rc == 0) {
		objects = 0;
		values = 0;
		depth_seen = 0;
		for (uint32_t i = 0; i < t.root_count; i++)
			check_object(&t, t.roots[i], 0);
		if (objects != t.object_count || values != t.value_count)
			abort();
		{
			struct x_model m = { 0 };
			struct diag di = { 0 };

			rc = x_import(&t, 0, "fuzz", &m, &di);
			if (rc == 0)
				check_model(&m, t.header.encoding == X_TEXT &&
						    !t.header.compressed);
			else if (rc != -ENOMEM && (rc != -EINVAL || !di.set))
				abort();
			x_model_free(&m);
		}
		x_tree_free(&t);
	} else if (rc != -EINVAL && rc != -ENOMEM) {
		abort();
	} else if (rc == -EINVAL && !d.set) {
		abort();
	} else if (t.roots != NULL || t.owned_body != NULL) {
		abort();
	}
	return 0;
}
