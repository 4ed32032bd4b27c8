/*
 * md5_import.c - parsed MD5 models to animd's runtime objects.
 *
 * The one place where MD5's quaternion convention is converted: Doom
 * applies an MD5 quaternion's matrix transposed, so in column-vector math
 * it rotates by R(q*).  Every orientation is conjugated (and normalised)
 * here, once; translations are used as the file has them.
 */
#include "daemon/import/md5_import.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A file orientation (x, y, z, w) in animd's convention. */
static quat md5i_rot(const float q[4])
{
	return quat_normalize(quat_make(-q[0], -q[1], -q[2], q[3]));
}

/* strdup that keeps NULL; -ENOMEM through *err. */
static char *md5i_strdup(const char *s, int *err)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*err = -ENOMEM;
	return d;
}

int md5_import_skeleton(const struct md5_model *m, struct skeleton **out)
{
	uint32_t n = m->num_joints;
	struct skeleton *s;
	int err = 0;

	for (uint32_t i = 0; i < n; i++)
		if (m->joints[i].parent < -1 || m->joints[i].parent >= (int32_t)i)
			return -EINVAL;
	s = skeleton_new(n);
	if (!s)
		return -ENOMEM;
	s->bind_model = malloc((n ? n : 1) * sizeof *s->bind_model);
	s->inv_bind = malloc((n ? n : 1) * sizeof *s->inv_bind);
	if (!s->bind_model || !s->inv_bind) {
		skeleton_free(s);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct md5_joint *j = &m->joints[i];
		int32_t p = j->parent;
		quat r = md5i_rot(j->orient), rc = quat_conj(r);
		vec3 t = vec3_make(j->pos[0], j->pos[1], j->pos[2]);

		s->names[i] = md5i_strdup(j->name ? j->name : "", &err);
		s->parents[i] = p;
		/* md5mesh joints are the model-space bind pose itself. */
		s->bind_model[i] = mat34_from_rt(r, t);
		s->inv_bind[i] = mat34_from_rt(rc, vec3_scale(quat_rotate(rc, t), -1.0f));
		if (p < 0) {
			s->rest[i].t = t;
			s->rest[i].r = r;
		} else {
			const struct md5_joint *pj = &m->joints[p];
			quat rpc = quat_conj(md5i_rot(pj->orient));
			vec3 tp = vec3_make(pj->pos[0], pj->pos[1], pj->pos[2]);

			/* model_child = model_parent * local. */
			s->rest[i].r = quat_normalize(quat_mul(rpc, r));
			s->rest[i].t = quat_rotate(rpc, vec3_sub(t, tp));
		}
		s->rest[i].s = vec3_make(1.0f, 1.0f, 1.0f);
	}
	if (err) {
		skeleton_free(s);
		return err;
	}
	*out = s;
	return 0;
}

int md5_import_mesh(const struct md5_model *m, uint32_t index, struct mesh **out)
{
	const struct md5_mesh *src;
	struct mesh *me;
	uint64_t total = 0;
	uint32_t k = 0;
	int err = 0;

	if (index >= m->num_meshes)
		return -EINVAL;
	src = &m->meshes[index];
	for (uint32_t v = 0; v < src->num_verts; v++) {
		const struct md5_vert *vt = &src->verts[v];

		if (vt->weight_count == 0 ||
		    (uint64_t)vt->first_weight + vt->weight_count > src->num_weights)
			return -EINVAL;
		total += vt->weight_count;
	}
	for (uint32_t w = 0; w < src->num_weights; w++)
		if (src->weights[w].joint >= m->num_joints)
			return -EINVAL;
	for (uint32_t t = 0; t < src->num_tris; t++)
		for (int c = 0; c < 3; c++)
			if (src->tris[t][c] >= src->num_verts)
				return -EINVAL;
	if (total > (uint64_t)MD5_IMPORT_INFLUENCE_FACTOR * src->num_weights || total > UINT32_MAX)
		return -E2BIG;

	me = calloc(1, sizeof *me);
	if (!me)
		return -ENOMEM;
	me->name = md5i_strdup(src->name, &err);
	me->material = md5i_strdup(src->shader, &err);
	/* MD5 has no normals: derived from the skinned triangles. */
	me->normals = MESH_NORMALS_DERIVED;
	me->uv_sets = 1;
	me->vertex_count = src->num_verts;
	me->triangle_count = src->num_tris;
	me->influence_count = (uint32_t)total;
	me->first_influence = malloc(((size_t)src->num_verts + 1) * sizeof *me->first_influence);
	/* One spare entry each, as every mesh has them (mesh_bytes). */
	me->influences = malloc(((size_t)total + 1) * sizeof *me->influences);
	me->triangles = malloc(((size_t)src->num_tris + 1) * sizeof *me->triangles);
	me->uvs = malloc(((size_t)src->num_verts + 1) * sizeof *me->uvs);
	if (err || !me->first_influence || !me->influences || !me->triangles || !me->uvs) {
		mesh_free(me);
		return -ENOMEM;
	}
	/* Each vertex's weights become its own run of influences: a vertex
	 * is  sum bias * (model[joint] * offset). */
	for (uint32_t v = 0; v < src->num_verts; v++) {
		const struct md5_vert *vt = &src->verts[v];

		me->first_influence[v] = k;
		for (uint32_t w = 0; w < vt->weight_count; w++) {
			const struct md5_weight *wt = &src->weights[vt->first_weight + w];

			me->influences[k].joint = wt->joint;
			me->influences[k].weight = wt->bias;
			me->influences[k].pos = vec3_make(wt->pos[0], wt->pos[1], wt->pos[2]);
			me->influences[k].normal = vec3_make(0.0f, 0.0f, 0.0f);
			k++;
		}
		me->uvs[v][0] = src->verts[v].st[0];
		me->uvs[v][1] = src->verts[v].st[1];
	}
	me->first_influence[src->num_verts] = k;
	if (src->num_tris)
		memcpy(me->triangles, src->tris, (size_t)src->num_tris * sizeof *me->triangles);
	*out = me;
	return 0;
}

int md5_import_anim_skeleton(const struct md5_anim *a, struct skeleton **out)
{
	struct skeleton *s;
	int err = 0;

	for (uint32_t i = 0; i < a->num_joints; i++)
		if (a->joints[i].parent < -1 || a->joints[i].parent >= (int32_t)i)
			return -EINVAL;
	s = skeleton_new(a->num_joints);
	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->num_joints; i++) {
		const struct md5_joint *b = &a->base[i];

		s->names[i] = md5i_strdup(a->joints[i].name ? a->joints[i].name : "", &err);
		s->parents[i] = a->joints[i].parent;
		s->rest[i].t = vec3_make(b->pos[0], b->pos[1], b->pos[2]);
		s->rest[i].r = md5i_rot(b->orient);
		s->rest[i].s = vec3_make(1.0f, 1.0f, 1.0f);
	}
	if (err) {
		skeleton_free(s);
		return err;
	}
	*out = s;
	return 0;
}

/* Joint j of frame f: the baseframe with the flagged components replaced,
 * in the order tx ty tz qx qy qz, from the frame's values at startIndex. */
static struct transform md5i_frame_joint(const struct md5_anim *a, uint32_t f, uint32_t j)
{
	const struct md5_joint *b = &a->base[j];
	const struct md5_anim_joint *h = &a->joints[j];
	float v[6] = { b->pos[0], b->pos[1], b->pos[2], b->orient[0], b->orient[1], b->orient[2] };
	size_t k = (size_t)f * a->num_components + h->start_index;
	float q[4];
	struct transform x;

	for (int bit = 0; bit < 6; bit++)
		if (h->flags & (1u << bit))
			v[bit] = a->components[k++];
	q[0] = v[3];
	q[1] = v[4];
	q[2] = v[5];
	q[3] = md5_quat_w(v[3], v[4], v[5]);
	x.t = vec3_make(v[0], v[1], v[2]);
	x.r = md5i_rot(q);
	x.s = vec3_make(1.0f, 1.0f, 1.0f);
	return x;
}

int md5_import_clip(const struct md5_anim *a, const char *name, struct clip **out)
{
	uint32_t nf = a->num_frames, nj = a->num_joints;
	uint64_t cnt = (uint64_t)nf * nj;
	struct clip *c;
	int err = 0;

	if (nf == 0 || nj == 0 || a->frame_rate == 0)
		return -EINVAL;
	for (uint32_t j = 0; j < nj; j++) {
		uint32_t flags = a->joints[j].flags;

		if ((flags & ~MD5_ANIM_ALL) ||
		    (uint64_t)a->joints[j].start_index + (uint32_t)__builtin_popcount(flags) >
			    a->num_components)
			return -EINVAL;
	}
	if (cnt > MD5_IMPORT_MAX_FRAME_JOINTS)
		return -E2BIG;

	c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	c->name = md5i_strdup(name, &err);
	c->joint_count = nj;
	c->frame_count = nf;
	c->frame_rate = a->frame_rate;
	c->duration_ns = clip_frames_duration(nf - 1, a->frame_rate);
	c->loop = LOOP_LOOP;
	c->frames = malloc((size_t)cnt * sizeof *c->frames);
	if (a->bounds)
		c->bounds = malloc((size_t)nf * sizeof *c->bounds);
	if (err || !c->frames || (a->bounds && !c->bounds)) {
		clip_free(c);
		return -ENOMEM;
	}
	for (uint32_t f = 0; f < nf; f++)
		for (uint32_t j = 0; j < nj; j++)
			c->frames[(size_t)f * nj + j] = md5i_frame_joint(a, f, j);
	if (a->bounds)
		memcpy(c->bounds, a->bounds, (size_t)nf * sizeof *c->bounds);
	/* Root motion as Doom computes it, from the file's translations. */
	c->root_base = vec3_make(a->base[0].pos[0], a->base[0].pos[1], a->base[0].pos[2]);
	c->root_delta = vec3_sub(c->frames[(size_t)(nf - 1) * nj].t, c->root_base);
	if (clip_block_frames(c) != 0) {
		clip_free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

int md5_import_camera(const struct md5_camera *src, struct camera_track **out)
{
	uint32_t n = src->num_frames;
	struct camera_track *c;

	if (n == 0 || src->frame_rate == 0 || src->num_cuts > n)
		return -EINVAL;
	for (uint32_t i = 0; i < src->num_cuts; i++)
		if (src->cuts[i] < 1 || src->cuts[i] > n - 1 ||
		    (i > 0 && src->cuts[i] <= src->cuts[i - 1]))
			return -EINVAL;

	c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	c->frame_count = n;
	c->frame_rate = src->frame_rate;
	c->cut_count = src->num_cuts;
	c->cuts = malloc((src->num_cuts ? src->num_cuts : 1) * sizeof *c->cuts);
	c->frames = malloc((size_t)n * sizeof *c->frames);
	if (!c->cuts || !c->frames) {
		camera_track_free(c);
		return -ENOMEM;
	}
	if (src->num_cuts)
		memcpy(c->cuts, src->cuts, (size_t)src->num_cuts * sizeof *c->cuts);
	for (uint32_t i = 0; i < n; i++) {
		const struct md5_camera_frame *f = &src->frames[i];

		c->frames[i].pos = vec3_make(f->pos[0], f->pos[1], f->pos[2]);
		c->frames[i].rot = md5i_rot(f->orient);
		c->frames[i].fov = f->fov;
	}
	/* Strictly ascending cuts in [1, n - 1]: at most n - 1 of them. */
	c->duration_ns = clip_frames_duration((uint64_t)n - 1 - src->num_cuts, src->frame_rate);
	*out = c;
	return 0;
}

int md5_import_normal_groups(struct mesh *me, const struct skeleton *s)
{
	vec3 *bind = malloc(((size_t)me->vertex_count + 1) * sizeof *bind);
	int rc;

	if (bind == NULL)
		return -ENOMEM;
	mesh_skin_positions(me, s->bind_model, bind);
	rc = mesh_group_normals(me, bind);
	free(bind);
	return rc;
}
