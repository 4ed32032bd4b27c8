/*
 * gltf_import.c - the skeleton (gltf_import.h) and the import's order:
 * joints, then clips, then meshes.
 */
#include "daemon/import/gltf_import_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mat34 gltf_mat34(const float m[16])
{
	mat34 r;

	for (int row = 0; row < 3; row++)
		for (int col = 0; col < 4; col++)
			r.m[row][col] = m[col * 4 + row];
	return r;
}

/* A matrix as translation, rotation and scale (a mirror as a negative x
 * scale; a shear is lost: skeleton.rest_matrix keeps the matrix). */
static struct transform split_matrix(const mat34 *a)
{
	struct transform x = transform_identity();
	float s[3];
	mat34 r = mat34_identity();
	float det;

	x.t = vec3_make(a->m[0][3], a->m[1][3], a->m[2][3]);
	for (int c = 0; c < 3; c++)
		s[c] = sqrtf(a->m[0][c] * a->m[0][c] + a->m[1][c] * a->m[1][c] +
			     a->m[2][c] * a->m[2][c]);
	det = a->m[0][0] * (a->m[1][1] * a->m[2][2] - a->m[1][2] * a->m[2][1]) -
	      a->m[0][1] * (a->m[1][0] * a->m[2][2] - a->m[1][2] * a->m[2][0]) +
	      a->m[0][2] * (a->m[1][0] * a->m[2][1] - a->m[1][1] * a->m[2][0]);
	if (det < 0.0f)
		s[0] = -s[0];
	if (s[0] != 0.0f && s[1] != 0.0f && s[2] != 0.0f) {
		for (int row = 0; row < 3; row++)
			for (int c = 0; c < 3; c++)
				r.m[row][c] = a->m[row][c] / s[c];
		x.r = quat_normalize(quat_from_mat34(&r));
	}
	x.s = vec3_make(s[0], s[1], s[2]);
	return x;
}

static bool same_matrix(const mat34 *a, const mat34 *b)
{
	float scale = 1.0f;

	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 4; c++)
			if (fabsf(a->m[r][c]) > scale)
				scale = fabsf(a->m[r][c]);
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 4; c++)
			if (!(fabsf(a->m[r][c] - b->m[r][c]) <= 1e-5f * scale))
				return false;
	return true;
}

/* Add node n's tree, depth first, children in order. */
static int add_tree(struct gltf_import *x, uint32_t root, uint32_t *order, uint32_t *count,
		    uint32_t *stack)
{
	const struct gltf_model *m = x->m;
	uint32_t top = 0;

	stack[top++] = root;
	while (top > 0) {
		uint32_t n = stack[--top];

		if (x->joint_of[n] >= 0)
			continue;
		x->joint_of[n] = (int32_t)*count;
		order[(*count)++] = n;
		for (uint32_t k = m->nodes[n].child_count; k-- > 0;)
			stack[top++] = m->nodes[n].children[k];
	}
	return 0;
}

/* The joints' nodes: the scene's trees, then trees of skin joints outside
 * it that the scene's meshes need. */
static int order_joints(struct gltf_import *x, uint32_t **order_out, uint32_t *count_out)
{
	const struct gltf_model *m = x->m;
	uint32_t *order = malloc(((size_t)m->node_count + 1) * sizeof *order);
	uint32_t *stack = malloc(((size_t)m->node_count + 1) * sizeof *stack);
	uint32_t count = 0, scene;

	if (order == NULL || stack == NULL) {
		free(order);
		free(stack);
		return -ENOMEM;
	}
	for (uint32_t r = 0; r < m->root_count; r++)
		add_tree(x, m->roots[r], order, &count, stack);
	scene = count;
	for (uint32_t i = 0; i < scene; i++) {
		const struct gltf_node *n = &m->nodes[order[i]];

		if (n->mesh < 0 || n->skin < 0)
			continue;
		for (uint32_t k = 0; k < m->skins[n->skin].joint_count; k++) {
			uint32_t j = m->skins[n->skin].joints[k];

			if (x->joint_of[j] >= 0)
				continue;
			while (m->nodes[j].parent >= 0)
				j = (uint32_t)m->nodes[j].parent;
			diag_note_put(&x->out->notes, "outside", 0, 0, 0,
				      "a skin's joints lie outside the scene: their trees are joints too");
			add_tree(x, j, order, &count, stack);
		}
	}
	free(stack);
	x->scene_joints = scene;
	*order_out = order;
	*count_out = count;
	return 0;
}

static int import_skeleton(struct gltf_import *x)
{
	const struct gltf_model *m = x->m;
	struct gltf_runtime *out = x->out;
	uint32_t *order, n;
	struct skeleton *s;
	bool matrices = false;
	int rc = order_joints(x, &order, &n);

	if (rc < 0)
		return rc;
	s = out->skeleton = skeleton_new(n);
	out->joint_nodes = malloc(((size_t)n + 1) * sizeof *out->joint_nodes);
	if (s == NULL || out->joint_nodes == NULL) {
		free(order);
		return -ENOMEM;
	}
	for (uint32_t j = 0; j < n; j++)
		matrices |= m->nodes[order[j]].has_matrix;
	if (matrices) {
		s->rest_matrix = malloc(((size_t)n + 1) * sizeof *s->rest_matrix);
		s->rest_not_trs = calloc((size_t)n + 1, sizeof *s->rest_not_trs);
		if (s->rest_matrix == NULL || s->rest_not_trs == NULL) {
			free(order);
			return -ENOMEM;
		}
	}
	for (uint32_t j = 0; j < n; j++) {
		const struct gltf_node *nd = &m->nodes[order[j]];
		char fallback[32];

		out->joint_nodes[j] = order[j];
		s->parents[j] = nd->parent >= 0 ? x->joint_of[nd->parent] : -1;
		snprintf(fallback, sizeof fallback, "node%u", order[j]);
		s->names[j] = strdup(nd->name != NULL && nd->name[0] != '\0' ? nd->name : fallback);
		if (s->names[j] == NULL) {
			free(order);
			return -ENOMEM;
		}
		if (nd->has_matrix) {
			mat34 exact = gltf_mat34(nd->matrix), back;

			s->rest[j] = split_matrix(&exact);
			back = mat34_from_transform(&s->rest[j]);
			s->rest_matrix[j] = exact;
			s->rest_not_trs[j] = !same_matrix(&exact, &back);
		} else {
			s->rest[j].t = vec3_make(nd->t[0], nd->t[1], nd->t[2]);
			s->rest[j].r = quat_normalize(quat_make(nd->r[0], nd->r[1], nd->r[2], nd->r[3]));
			s->rest[j].s = vec3_make(nd->s[0], nd->s[1], nd->s[2]);
			if (matrices)
				s->rest_matrix[j] = mat34_from_transform(&s->rest[j]);
		}
	}
	free(order);
	rc = skeleton_compute_bind(s);
	if (rc < 0)
		return rc;
	/* A skin's joints take its inverse bind matrices (the first skin that
	 * lists a joint), so that `skin` is global(joint) * IBM. */
	{
		bool *taken = calloc((size_t)n + 1, sizeof *taken);

		if (taken == NULL)
			return -ENOMEM;
		for (uint32_t k = 0; k < m->skin_count; k++) {
			const struct gltf_skin *sk = &m->skins[k];
			const float *ibm = sk->inverse_bind >= 0
					   ? gltf_floats(m, (uint32_t)sk->inverse_bind) : NULL;

			if (sk->inverse_bind >= 0 && ibm == NULL) {
				free(taken);
				return -ENOMEM;
			}
			for (uint32_t i = 0; i < sk->joint_count; i++) {
				int32_t j = x->joint_of[sk->joints[i]];

				if (j < 0 || taken[j])
					continue;
				taken[j] = true;
				s->inv_bind[j] = sk->inverse_bind >= 0 ? gltf_mat34(ibm + 16 * (size_t)i)
								       : mat34_identity();
			}
		}
		free(taken);
	}
	return 0;
}

int gltf_import(const struct gltf_model *m, struct gltf_runtime *out)
{
	struct gltf_import x = { m, out, NULL, 0, NULL };
	int rc;

	memset(out, 0, sizeof *out);
	x.joint_of = malloc(((size_t)m->node_count + 1) * sizeof *x.joint_of);
	x.first_weight = calloc((size_t)m->node_count + 1, sizeof *x.first_weight);
	if (x.joint_of == NULL || x.first_weight == NULL) {
		rc = -ENOMEM;
		goto done;
	}
	for (uint32_t i = 0; i < m->node_count; i++)
		x.joint_of[i] = -1;
	rc = import_skeleton(&x);
	if (rc == 0)
		rc = gltf_import_meshes(&x);
	if (rc == 0)
		rc = gltf_import_clips(&x);
done:
	free(x.joint_of);
	free(x.first_weight);
	if (rc < 0)
		gltf_runtime_free(out);
	return rc;
}

void gltf_runtime_free(struct gltf_runtime *r)
{
	for (uint32_t i = 0; i < r->clip_count; i++)
		clip_free(r->clips[i]);
	for (uint32_t i = 0; i < r->mesh_count; i++)
		mesh_free(r->meshes[i]);
	for (uint32_t i = 0; r->weight_names != NULL && i < r->weight_count; i++)
		free(r->weight_names[i]);
	free(r->clips);
	free(r->meshes);
	free(r->weights);
	free(r->weight_names);
	free(r->joint_nodes);
	skeleton_free(r->skeleton);
	memset(r, 0, sizeof *r);
}
