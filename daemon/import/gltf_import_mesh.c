/*
 * gltf_import_mesh.c - the meshes nodes show (gltf_import.h): influences
 * in their joints' spaces, triangles from every mode that has them, morph
 * targets with the maps that take their deltas to each joint's space, and
 * the asset's morph weights with their defaults.
 */
#include "daemon/import/gltf_import_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An instance's joint maps: per skin slot, the inverse bind matrix (or,
 * unskinned, the node's joint with the identity). */
struct instance {
	uint32_t node;
	int32_t joint;                  /* the node's joint */
	const struct gltf_skin *skin;   /* NULL: follows the node */
	mat34 *ibm, *ibm_normal;        /* per slot */
	uint32_t first_weight, targets;
};

/* An accessor's values as the model keeps them (NULL for none, or when
 * out of memory: callers tell the two apart by acc). */
static const float *read_floats(const struct gltf_model *m, int32_t acc)
{
	return acc >= 0 ? gltf_floats(m, (uint32_t)acc) : NULL;
}

static const uint32_t *read_uints(const struct gltf_model *m, int32_t acc)
{
	return acc >= 0 ? gltf_uints(m, (uint32_t)acc) : NULL;
}

static vec3 finite_or_zero(const float *p)
{
	return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]) ? vec3_make(p[0], p[1], p[2])
								  : vec3_make(0.0f, 0.0f, 0.0f);
}

/* Triangles of the primitive's mode from its index list (or 0..V-1). */
static int triangles(const struct gltf_model *m, const struct gltf_primitive *p, struct mesh *me)
{
	uint32_t n = p->indices >= 0 ? m->accessors[p->indices].count : me->vertex_count, t = 0;
	const uint32_t *idx = read_uints(m, p->indices);
	uint32_t tris = 0;

	if (p->indices >= 0 && idx == NULL)
		return -ENOMEM;
	if (p->mode == GLTF_TRIANGLES)
		tris = n / 3;
	else if ((p->mode == GLTF_TRIANGLE_STRIP || p->mode == GLTF_TRIANGLE_FAN) && n >= 3)
		tris = n - 2;
	me->triangles = malloc(((size_t)tris + 1) * sizeof *me->triangles);
	if (me->triangles == NULL)
		return -ENOMEM;
#define IDX(i) (idx != NULL ? idx[i] : (uint32_t)(i))
	for (uint32_t i = 0; i < tris; i++) {
		uint32_t *tri = me->triangles[t++];

		if (p->mode == GLTF_TRIANGLES) {
			tri[0] = IDX(3 * i);
			tri[1] = IDX(3 * i + 1);
			tri[2] = IDX(3 * i + 2);
		} else if (p->mode == GLTF_TRIANGLE_STRIP) {
			/* 3.7.2.1: {v_i, v_(i+(1+i%2)), v_(i+(2-i%2))}: every other one turned
			 * back so that all face the same way. */
			tri[0] = IDX(i);
			tri[1] = IDX(i + 1 + i % 2);
			tri[2] = IDX(i + 2 - i % 2);
		} else {
			tri[0] = IDX(i + 1);
			tri[1] = IDX(i + 2);
			tri[2] = IDX(0);
		}
	}
#undef IDX
	me->triangle_count = t;
	return 0;
}

/* Influences of a skinned primitive: every set, weights normalised. */
static int skin_influences(const struct gltf_import *x, const struct instance *in,
			   const struct gltf_primitive *p, const float *pos, const float *nrm,
			   struct mesh *me)
{
	const struct gltf_model *m = x->m;
	uint32_t V = me->vertex_count, S = p->set_count, inf = 0;
	const uint32_t **js = calloc(S, sizeof *js);
	const float **ws = calloc(S, sizeof *ws);
	int rc = -ENOMEM;

	if (js == NULL || ws == NULL)
		goto done;
	for (uint32_t s = 0; s < S; s++) {
		js[s] = read_uints(m, p->joints[s]);
		ws[s] = read_floats(m, p->weights[s]);
		if (js[s] == NULL || ws[s] == NULL)
			goto done;
	}
	for (uint32_t v = 0; v < V; v++) {
		uint32_t here = 0;

		for (uint32_t s = 0; s < S; s++)
			for (int k = 0; k < 4; k++)
				here += ws[s][4 * (size_t)v + k] > 0.0f;
		inf += here > 0 ? here : 1;
	}
	me->first_influence = malloc(((size_t)V + 1) * sizeof *me->first_influence);
	me->influences = malloc(((size_t)inf + 1) * sizeof *me->influences);
	if (me->first_influence == NULL || me->influences == NULL)
		goto done;
	inf = 0;
	for (uint32_t v = 0; v < V; v++) {
		vec3 pv = vec3_make(pos[3 * (size_t)v], pos[3 * (size_t)v + 1], pos[3 * (size_t)v + 2]);
		vec3 nv = nrm != NULL ? finite_or_zero(nrm + 3 * (size_t)v) : vec3_make(0, 0, 0);
		float sum = 0.0f;
		uint32_t first = inf;

		for (uint32_t s = 0; s < S; s++)
			for (int k = 0; k < 4; k++)
				if (ws[s][4 * (size_t)v + k] > 0.0f)
					sum += ws[s][4 * (size_t)v + k];
		me->first_influence[v] = inf;
		for (uint32_t s = 0; s < S; s++)
			for (int k = 0; k < 4; k++) {
				float w = ws[s][4 * (size_t)v + k];
				uint32_t slot = js[s][4 * (size_t)v + k];

				if (!(w > 0.0f))
					continue;
				me->influences[inf++] = (struct mesh_influence){
					(uint32_t)x->joint_of[in->skin->joints[slot]], w / sum,
					mat34_apply(&in->ibm[slot], pv), mat34_apply_dir(&in->ibm_normal[slot], nv)
				};
			}
		if (inf == first)
			me->influences[inf++] = (struct mesh_influence){
				(uint32_t)x->joint_of[in->skin->joints[0]], 1.0f,
				mat34_apply(&in->ibm[0], pv), mat34_apply_dir(&in->ibm_normal[0], nv)
			};
	}
	me->first_influence[V] = inf;
	me->influence_count = inf;
	rc = 0;
done:
	free(js);
	free(ws);
	return rc;
}

static int rigid_influences(const struct instance *in, const float *pos, const float *nrm,
			    struct mesh *me)
{
	uint32_t V = me->vertex_count;

	me->first_influence = malloc(((size_t)V + 1) * sizeof *me->first_influence);
	me->influences = malloc(((size_t)V + 1) * sizeof *me->influences);
	if (me->first_influence == NULL || me->influences == NULL)
		return -ENOMEM;
	for (uint32_t v = 0; v < V; v++) {
		me->first_influence[v] = v;
		me->influences[v] = (struct mesh_influence){
			(uint32_t)in->joint, 1.0f,
			vec3_make(pos[3 * (size_t)v], pos[3 * (size_t)v + 1], pos[3 * (size_t)v + 2]),
			nrm != NULL ? finite_or_zero(nrm + 3 * (size_t)v) : vec3_make(0, 0, 0)
		};
	}
	me->first_influence[V] = V;
	me->influence_count = V;
	return 0;
}

static int morph_targets(const struct gltf_import *x, const struct instance *in,
			 const struct gltf_primitive *p, struct mesh *me)
{
	const struct gltf_model *m = x->m;
	uint32_t V = me->vertex_count, T = p->target_count, J = x->out->skeleton->joint_count;
	size_t deltas = (size_t)T * V + 1;
	struct mesh_morph *mo = calloc(1, sizeof *mo);
	bool normals = false;

	if (mo == NULL)
		return -ENOMEM;
	me->morph = mo;
	mo->target_count = T;
	mo->first_weight = in->first_weight;
	mo->joint_count = J;
	for (uint32_t k = 0; k < T; k++)
		normals |= p->targets[k].normal >= 0;
	mo->positions = calloc(deltas, sizeof *mo->positions);
	mo->normals = normals && p->normal >= 0 ? calloc(deltas, sizeof *mo->normals) : NULL;
	mo->to_joint = malloc(((size_t)J + 1) * sizeof *mo->to_joint);
	mo->to_joint_normal = malloc(((size_t)J + 1) * sizeof *mo->to_joint_normal);
	if (mo->positions == NULL || (normals && p->normal >= 0 && mo->normals == NULL) ||
	    mo->to_joint == NULL || mo->to_joint_normal == NULL)
		return -ENOMEM;
	for (uint32_t j = 0; j < J; j++)
		mo->to_joint[j] = mo->to_joint_normal[j] = mat34_identity();
	if (in->skin != NULL)
		for (uint32_t s = 0; s < in->skin->joint_count; s++) {
			int32_t j = x->joint_of[in->skin->joints[s]];

			mo->to_joint[j] = in->ibm[s];
			mo->to_joint_normal[j] = in->ibm_normal[s];
		}
	for (uint32_t k = 0; k < T; k++) {
		const float *d = read_floats(m, p->targets[k].position);
		const float *dn = mo->normals != NULL ? read_floats(m, p->targets[k].normal) : NULL;

		if ((p->targets[k].position >= 0 && d == NULL) ||
		    (mo->normals != NULL && p->targets[k].normal >= 0 && dn == NULL))
			return -ENOMEM;
		for (uint32_t v = 0; v < V; v++) {
			if (d != NULL)
				mo->positions[(size_t)k * V + v] = vec3_make(d[3 * (size_t)v],
									     d[3 * (size_t)v + 1],
									     d[3 * (size_t)v + 2]);
			if (dn != NULL)
				mo->normals[(size_t)k * V + v] = finite_or_zero(dn + 3 * (size_t)v);
		}
	}
	/* Translations do not move a displacement. */
	for (uint32_t j = 0; j < J; j++) {
		mo->to_joint[j].m[0][3] = mo->to_joint[j].m[1][3] = mo->to_joint[j].m[2][3] = 0.0f;
		mo->to_joint_normal[j].m[0][3] = mo->to_joint_normal[j].m[1][3] =
			mo->to_joint_normal[j].m[2][3] = 0.0f;
	}
	return 0;
}

static char *mesh_name(const struct gltf_model *m, const struct gltf_node *n, uint32_t mesh,
		       uint32_t prim)
{
	const struct gltf_mesh *me = &m->meshes[mesh];
	char buf[300];

	if (me->name != NULL && me->name[0] != '\0')
		snprintf(buf, sizeof buf, "%s", me->name);
	else if (n->name != NULL && n->name[0] != '\0')
		snprintf(buf, sizeof buf, "%s", n->name);
	else
		snprintf(buf, sizeof buf, "mesh%u", mesh);
	if (me->primitive_count > 1)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ".%u", prim);
	return strdup(buf);
}

static int primitive(struct gltf_import *x, const struct instance *in,
		     const struct gltf_primitive *p, uint32_t prim)
{
	const struct gltf_model *m = x->m;
	const struct gltf_node *n = &m->nodes[in->node];
	struct gltf_runtime *out = x->out;
	struct mesh *me = calloc(1, sizeof *me), **grown;
	const float *pos = NULL, *nrm = NULL;
	int rc = -ENOMEM;

	if (me == NULL)
		return -ENOMEM;
	grown = realloc(out->meshes, ((size_t)out->mesh_count + 1) * sizeof *out->meshes);
	if (grown == NULL) {
		free(me);
		return -ENOMEM;
	}
	out->meshes = grown;
	out->meshes[out->mesh_count++] = me;
	me->vertex_count = m->accessors[p->position].count;
	me->name = mesh_name(m, n, (uint32_t)n->mesh, prim);
	me->normals = p->normal >= 0 ? MESH_NORMALS_SKINNED : MESH_NORMALS_NONE;
	me->uv_sets = p->texcoord_sets;
	if (p->material >= 0) {
		const char *mat = m->material_names[p->material];
		char fallback[32];

		snprintf(fallback, sizeof fallback, "material%d", p->material);
		me->material = strdup(mat != NULL && mat[0] != '\0' ? mat : fallback);
		if (me->material == NULL)
			goto done;
	}
	pos = read_floats(m, p->position);
	nrm = read_floats(m, p->normal);
	if (me->name == NULL || pos == NULL || (p->normal >= 0 && nrm == NULL))
		goto done;
	rc = in->skin != NULL && p->set_count > 0 ? skin_influences(x, in, p, pos, nrm, me)
						  : rigid_influences(in, pos, nrm, me);
	if (rc == 0)
		rc = triangles(m, p, me);
	if (rc == 0 && p->texcoord0 >= 0) {
		const float *uv = read_floats(m, p->texcoord0);

		me->uvs = malloc(((size_t)me->vertex_count + 1) * sizeof *me->uvs);
		if (uv == NULL || me->uvs == NULL)
			rc = -ENOMEM;
		else
			memcpy(me->uvs, uv, (size_t)me->vertex_count * sizeof *me->uvs);
	}
	if (rc == 0 && p->color0 >= 0) {
		const float *col = read_floats(m, p->color0);
		unsigned w = m->accessors[p->color0].ncomp;

		me->colors = malloc(((size_t)me->vertex_count + 1) * sizeof *me->colors);
		if (col == NULL || me->colors == NULL)
			rc = -ENOMEM;
		for (uint32_t v = 0; rc == 0 && v < me->vertex_count; v++)
			for (unsigned k = 0; k < 4; k++)
				me->colors[v][k] = k < w ? col[(size_t)v * w + k] : 1.0f;
	}
	if (rc == 0 && p->target_count > 0)
		rc = morph_targets(x, in, p, me);
done:
	return rc;
}

/* The instance's weights: their defaults and names. */
static int instance_weights(struct gltf_import *x, struct instance *in)
{
	const struct gltf_model *m = x->m;
	const struct gltf_node *n = &m->nodes[in->node];
	const struct gltf_mesh *me = &m->meshes[n->mesh];
	struct gltf_runtime *out = x->out;
	uint32_t T = me->target_count, total = out->weight_count + T;
	float *w;
	char **names;

	in->first_weight = out->weight_count;
	in->targets = T;
	x->first_weight[in->node] = in->first_weight;
	if (T == 0)
		return 0;
	w = realloc(out->weights, ((size_t)total + 1) * sizeof *w);
	if (w == NULL)
		return -ENOMEM;
	out->weights = w;
	names = realloc(out->weight_names, ((size_t)total + 1) * sizeof *names);
	if (names == NULL)
		return -ENOMEM;
	out->weight_names = names;
	for (uint32_t k = 0; k < T; k++) {
		char buf[320], label[128];

		w[in->first_weight + k] = n->weight_count == T ? n->weights[k]
					  : me->weight_count == T ? me->weights[k] : 0.0f;
		snprintf(label, sizeof label, "%s", x->out->skeleton->names[in->joint]);
		if (me->target_names != NULL)
			snprintf(buf, sizeof buf, "%s/%s", label, me->target_names[k]);
		else
			snprintf(buf, sizeof buf, "%s/%u", label, k);
		names[in->first_weight + k] = strdup(buf);
		if (names[in->first_weight + k] == NULL)
			return -ENOMEM;
		out->weight_count++;
	}
	return 0;
}

static int instance(struct gltf_import *x, uint32_t node)
{
	const struct gltf_model *m = x->m;
	const struct gltf_node *n = &m->nodes[node];
	const struct gltf_mesh *me = &m->meshes[n->mesh];
	struct instance in = { node, x->joint_of[node], NULL, NULL, NULL, 0, 0 };
	bool skinned = false;
	int rc;

	for (uint32_t p = 0; p < me->primitive_count; p++)
		skinned |= me->primitives[p].set_count > 0;
	if (n->skin >= 0 && skinned) {
		const struct gltf_skin *sk = &m->skins[n->skin];
		const float *ibm = read_floats(m, sk->inverse_bind);

		in.skin = sk;
		in.ibm = malloc(((size_t)sk->joint_count + 1) * sizeof *in.ibm);
		in.ibm_normal = malloc(((size_t)sk->joint_count + 1) * sizeof *in.ibm_normal);
		if ((sk->inverse_bind >= 0 && ibm == NULL) || in.ibm == NULL || in.ibm_normal == NULL) {
			free(in.ibm);
			free(in.ibm_normal);
			return -ENOMEM;
		}
		for (uint32_t s = 0; s < sk->joint_count; s++)
			in.ibm[s] = ibm != NULL ? gltf_mat34(ibm + 16 * (size_t)s) : mat34_identity();
		mesh_normal_matrices(sk->joint_count, in.ibm, in.ibm_normal);
	}
	rc = instance_weights(x, &in);
	for (uint32_t p = 0; rc == 0 && p < me->primitive_count; p++)
		if (me->primitives[p].position >= 0)
			rc = primitive(x, &in, &me->primitives[p], p);
	free(in.ibm);
	free(in.ibm_normal);
	return rc;
}

int gltf_import_meshes(struct gltf_import *x)
{
	const struct gltf_runtime *out = x->out;

	for (uint32_t j = 0; j < x->scene_joints && j < out->skeleton->joint_count; j++) {
		uint32_t node = out->joint_nodes[j];

		if (x->m->nodes[node].mesh >= 0) {
			int rc = instance(x, node);

			if (rc < 0)
				return rc;
		}
	}
	if (x->out->weights == NULL) {
		x->out->weights = calloc(1, sizeof *x->out->weights);
		x->out->weight_names = calloc(1, sizeof *x->out->weight_names);
		if (x->out->weights == NULL || x->out->weight_names == NULL)
			return -ENOMEM;
	}
	return 0;
}
