/*
 * gltf_nodes.c - nodes, skins and scenes (spec 3.5, 3.7.3).
 *
 * Nodes form a forest: a child names another node, never itself, and no
 * node is the child of two (3.5.1: "strict trees"); a node no root reaches
 * is in a cycle.  A node's transform is its matrix (column-major) or
 * T * R * S with defaults; both: the matrix holds (noted).  A skin's joints
 * are distinct nodes and its inverse bind matrices, when given, a MAT4 of
 * floats with one per joint at least.  The scene shown is `scene`, else
 * scenes[0], else every root, as Blender and assimp do; its nodes must be roots.
 */
#include "daemon/formats/gltf/gltf_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const float identity16[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };

static int parse_children(struct gltf_ctx *c, gv o, uint32_t i)
{
	struct gltf_model *m = c->m;
	struct gltf_node *n = &m->nodes[i];
	struct gltf_where w = gw_item("nodes", i), wc = gw_key(w, "children");
	uint32_t *children;
	gv arr;
	size_t k;

	if (gj_array(c, &w, o, "children", false, &arr) < 0)
		return -EINVAL;
	if (arr == GV_NONE || gv_size(c, arr) == 0)
		return 0;
	children = gltf_alloc(c, gv_size(c, arr), sizeof *children);
	if (children == NULL)
		return -ENOMEM;
	for (k = 0; k < gv_size(c, arr); k++) {
		gv v = gv_at(c, arr, k);
		struct gltf_where at = gw_at(wc, (uint32_t)k);
		int64_t child;

		if (!gv_integer(c, v, &child))
			return gltf_error(c, &at, "must be a node index");
		if (child < 0 || (uint64_t)child >= m->node_count)
			return gltf_error(c, &at, "%" PRId64 " names no node (the file has "
					  "%" PRIu32 ")", child, m->node_count);
		if ((uint32_t)child == i)
			return gltf_error(c, &at, "node %" PRIu32 " is its own child", i);
		children[k] = (uint32_t)child;
	}
	n->children = children;
	n->child_count = (uint32_t)k;
	return 0;
}

static int parse_node(struct gltf_ctx *c, gv o, uint32_t i, uint32_t camera_count)
{
	struct gltf_model *m = c->m;
	struct gltf_node *n = &m->nodes[i];
	struct gltf_where w = gw_item("nodes", i);
	bool has_t, has_r, has_s;
	int32_t camera;
	float len2;

	n->parent = -1;
	memcpy(n->matrix, identity16, sizeof n->matrix);
	n->r[3] = 1.0f;
	n->s[0] = n->s[1] = n->s[2] = 1.0f;
	if (gj_string(c, &w, o, "name", false, &n->name) < 0 || parse_children(c, o, i) < 0 ||
	    gj_index(c, &w, o, "mesh", m->mesh_count, "mesh", false, &n->mesh) < 0 ||
	    gj_index(c, &w, o, "skin", m->skin_count, "skin", false, &n->skin) < 0 ||
	    gj_index(c, &w, o, "camera", camera_count, "camera", false, &camera) < 0 ||
	    gj_floats(c, &w, o, "matrix", 16, n->matrix, &n->has_matrix) < 0 ||
	    gj_floats(c, &w, o, "translation", 3, n->t, &has_t) < 0 ||
	    gj_floats(c, &w, o, "rotation", 4, n->r, &has_r) < 0 ||
	    gj_floats(c, &w, o, "scale", 3, n->s, &has_s) < 0 ||
	    gj_float_list(c, &w, o, "weights", &n->weight_count, &n->weights) < 0)
		return -EINVAL;
	if (n->has_matrix && (has_t || has_r || has_s)) {
		struct gltf_where at = gw_key(w, "matrix");

		gltf_note(c, &at, "a node with a matrix and translation, rotation or scale: the "
			  "matrix holds");
	}
	if (n->has_matrix && (n->matrix[3] != 0.0f || n->matrix[7] != 0.0f ||
			      n->matrix[11] != 0.0f || n->matrix[15] != 1.0f)) {
		struct gltf_where at = gw_key(w, "matrix");

		gltf_note(c, &at, "the matrix's last row is not 0 0 0 1 (not affine): read as if "
			  "it were");
	}
	len2 = n->r[0] * n->r[0] + n->r[1] * n->r[1] + n->r[2] * n->r[2] + n->r[3] * n->r[3];
	if (has_r && !n->has_matrix && fabsf(len2 - 1.0f) > 2e-3f) {
		struct gltf_where at = gw_key(w, "rotation");

		if (len2 > 0.0f)
			gltf_note(c, &at, "a rotation of length %g, not a unit quaternion: normalised",
				  sqrt((double)len2));
		else
			gltf_note(c, &at, "a zero rotation quaternion: read as no rotation");
	}
	if (n->skin >= 0 && n->mesh < 0) {
		struct gltf_where at = gw_key(w, "skin");

		gltf_note(c, &at, "a skin on a node without a mesh skins nothing");
	}
	return 0;
}

/* Parents from children; a node no root reaches is in a cycle. */
static int link_nodes(struct gltf_ctx *c)
{
	struct gltf_model *m = c->m;
	uint32_t *stack, top = 0, reached = 0;
	bool *seen;

	for (uint32_t i = 0; i < m->node_count; i++)
		for (uint32_t k = 0; k < m->nodes[i].child_count; k++) {
			uint32_t ch = m->nodes[i].children[k];

			if (m->nodes[ch].parent >= 0) {
				struct gltf_where at = gw_at(gw_key(gw_item("nodes", i), "children"), k);

				return gltf_error(c, &at, "node %" PRIu32 " is already a child of node %"
						  PRId32 ": nodes form trees", ch, m->nodes[ch].parent);
			}
			m->nodes[ch].parent = (int32_t)i;
		}
	stack = malloc(((size_t)m->node_count + 1) * sizeof *stack);
	seen = calloc((size_t)m->node_count + 1, sizeof *seen);
	if (stack == NULL || seen == NULL) {
		free(stack);
		free(seen);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->node_count; i++)
		if (m->nodes[i].parent < 0) {
			stack[top++] = i;
			seen[i] = true;
		}
	while (top > 0) {
		const struct gltf_node *n = &m->nodes[stack[--top]];

		reached++;
		for (uint32_t k = 0; k < n->child_count; k++)
			if (!seen[n->children[k]]) {
				seen[n->children[k]] = true;
				stack[top++] = n->children[k];
			}
	}
	for (uint32_t i = 0; reached < m->node_count && i < m->node_count; i++)
		if (!seen[i]) {
			struct gltf_where at = gw_key(gw_item("nodes", i), "children");

			free(stack);
			free(seen);
			return gltf_error(c, &at, "node %" PRIu32 " is part of a cycle (its ancestors "
					  "include itself)", i);
		}
	free(stack);
	free(seen);
	return 0;
}

int gltf_parse_nodes(struct gltf_ctx *c, uint32_t camera_count)
{
	struct gltf_model *m = c->m;
	gv arr = gv_get(c, 0, "nodes");

	m->nodes = gltf_alloc(c, m->node_count, sizeof *m->nodes);
	if (m->nodes == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->node_count; i++) {
		gv o;
		int rc = gj_item(c, arr, "nodes", i, &o);

		if (rc == 0)
			rc = parse_node(c, o, i, camera_count);
		if (rc < 0)
			return rc;
	}
	return link_nodes(c);
}

static int parse_skin(struct gltf_ctx *c, gv o, uint32_t i, uint32_t *stamp)
{
	struct gltf_model *m = c->m;
	struct gltf_skin *s = &m->skins[i];
	struct gltf_where w = gw_item("skins", i), wj = gw_key(w, "joints");
	uint32_t *joints;
	gv arr;

	if (gj_string(c, &w, o, "name", false, &s->name) < 0 ||
	    gj_array(c, &w, o, "joints", true, &arr) < 0 ||
	    gj_index(c, &w, o, "inverseBindMatrices", m->accessor_count, "accessor", false,
		     &s->inverse_bind) < 0 ||
	    gj_index(c, &w, o, "skeleton", m->node_count, "node", false, &s->skeleton) < 0)
		return -EINVAL;
	if (gv_size(c, arr) == 0)
		return gltf_error(c, &wj, "a skin needs at least one joint");
	joints = gltf_alloc(c, gv_size(c, arr), sizeof *joints);
	if (joints == NULL)
		return -ENOMEM;
	for (size_t k = 0; k < gv_size(c, arr); k++) {
		gv v = gv_at(c, arr, k);
		struct gltf_where at = gw_at(wj, (uint32_t)k);
		int64_t node;

		if (!gv_integer(c, v, &node))
			return gltf_error(c, &at, "must be a node index");
		if (node < 0 || (uint64_t)node >= m->node_count)
			return gltf_error(c, &at, "%" PRId64 " names no node (the file has "
					  "%" PRIu32 ")", node, m->node_count);
		if (stamp[node] == i + 1)
			return gltf_error(c, &at, "node %" PRId64 " is already a joint of "
					  "this skin", node);
		stamp[node] = i + 1;
		joints[k] = (uint32_t)node;
	}
	s->joints = joints;
	s->joint_count = (uint32_t)gv_size(c, arr);
	if (s->inverse_bind >= 0) {
		const struct gltf_accessor *a = &m->accessors[s->inverse_bind];
		struct gltf_where at = gw_key(w, "inverseBindMatrices");

		if (a->type != GLTF_MAT4 || a->component != GLTF_FLOAT)
			return gltf_error(c, &at, "accessor %" PRId32 " must be MAT4 of floats (5126)",
					  s->inverse_bind);
		if (a->count < s->joint_count)
			return gltf_error(c, &at, "accessor %" PRId32 " has %" PRIu32 " matrices for %"
					  PRIu32 " joints", s->inverse_bind, a->count, s->joint_count);
		gltf_use(c, (uint32_t)s->inverse_bind, GLTF_ROLE_IBM, &at);
	}
	return 0;
}

int gltf_parse_skins(struct gltf_ctx *c)
{
	struct gltf_model *m = c->m;
	gv arr = gv_get(c, 0, "skins");
	uint32_t *stamp;
	int rc = 0;

	m->skins = gltf_alloc(c, m->skin_count, sizeof *m->skins);
	stamp = calloc((size_t)m->node_count + 1, sizeof *stamp);
	if (m->skins == NULL || stamp == NULL) {
		free(stamp);
		return -ENOMEM;
	}
	for (uint32_t i = 0; rc == 0 && i < m->skin_count; i++) {
		gv o;

		rc = gj_item(c, arr, "skins", i, &o);
		if (rc == 0)
			rc = parse_skin(c, o, i, stamp);
	}
	free(stamp);
	return rc;
}

/* What a node that shows a mesh asks of it. */
int gltf_check_instances(struct gltf_ctx *c)
{
	struct gltf_model *m = c->m;

	for (uint32_t i = 0; i < m->node_count; i++) {
		const struct gltf_node *n = &m->nodes[i];
		struct gltf_where w = gw_item("nodes", i);
		const struct gltf_mesh *me;
		bool joints = false;

		if (n->mesh < 0) {
			if (n->weight_count > 0) {
				struct gltf_where at = gw_key(w, "weights");

				gltf_note(c, &at, "morph weights on a node without a mesh weigh nothing");
			}
			continue;
		}
		me = &m->meshes[n->mesh];
		if (n->weight_count > 0 && n->weight_count != me->target_count) {
			struct gltf_where at = gw_key(w, "weights");

			return gltf_error(c, &at, "%" PRIu32 " weights for mesh %" PRId32 "'s %" PRIu32
					  " morph targets", n->weight_count, n->mesh, me->target_count);
		}
		for (uint32_t p = 0; p < me->primitive_count; p++)
			joints |= me->primitives[p].set_count > 0;
		if (n->skin >= 0 && !joints) {
			struct gltf_where at = gw_key(w, "skin");

			gltf_note(c, &at, "the mesh has no JOINTS_0/WEIGHTS_0: not skinned, it follows "
				  "its node");
		} else if (n->skin < 0 && joints) {
			struct gltf_where at = gw_key(w, "mesh");

			gltf_note(c, &at, "a mesh with joints and weights on a node without a skin: not "
				  "skinned, it follows its node");
		}
	}
	return 0;
}

int gltf_parse_scenes(struct gltf_ctx *c)
{
	struct gltf_model *m = c->m;
	gv arr = gv_get(c, 0, "scenes"), chosen;
	struct gltf_where top = { 0 };
	uint32_t *roots, n = 0;
	int32_t scene;

	m->scene_count = (uint32_t)gv_size(c, arr);
	if (gj_index(c, &top, 0, "scene", m->scene_count, "scene", false, &scene) < 0)
		return -EINVAL;
	for (uint32_t i = 0; i < m->scene_count; i++) {
		struct gltf_where w = gw_item("scenes", i), wn = gw_key(w, "nodes");
		gv o, nodes;

		if (gj_item(c, arr, "scenes", i, &o) < 0 || gj_array(c, &w, o, "nodes", false, &nodes) < 0)
			return -EINVAL;
		for (size_t k = 0; k < gv_size(c, nodes); k++) {
			gv v = gv_at(c, nodes, k);
			struct gltf_where at = gw_at(wn, (uint32_t)k);
			int64_t node;

			if (!gv_integer(c, v, &node))
				return gltf_error(c, &at, "must be a node index");
			if (node < 0 || (uint64_t)node >= m->node_count)
				return gltf_error(c, &at, "%" PRId64 " names no node (the "
						  "file has %" PRIu32 ")", node, m->node_count);
			if (m->nodes[node].parent >= 0)
				return gltf_error(c, &at, "node %" PRId64 " is not a root: "
						  "it is a child of node %" PRId32, node,
						  m->nodes[node].parent);
		}
	}
	if (scene < 0 && m->scene_count > 0)
		scene = 0;
	m->scene = scene;
	roots = gltf_alloc(c, m->node_count, sizeof *roots);
	if (roots == NULL)
		return -ENOMEM;
	if (scene >= 0) {
		bool *taken = calloc((size_t)m->node_count + 1, sizeof *taken);

		if (taken == NULL)
			return -ENOMEM;
		chosen = gv_get(c, gv_at(c, arr, (uint32_t)scene), "nodes");
		for (uint32_t k = 0; k < gv_size(c, chosen); k++) {
			int64_t value = 0;
			uint32_t node;

			gv_integer(c, gv_at(c, chosen, k), &value);
			node = (uint32_t)value;

			if (taken[node]) {
				struct gltf_where at = gw_at(gw_key(gw_item("scenes", (uint32_t)scene),
								    "nodes"), (uint32_t)k);

				gltf_note(c, &at, "node %" PRIu32 " is in the scene twice: shown once",
					  node);
				continue;
			}
			taken[node] = true;
			roots[n++] = node;
		}
		free(taken);
	} else {
		for (uint32_t i = 0; i < m->node_count; i++)
			if (m->nodes[i].parent < 0)
				roots[n++] = i;
	}
	m->roots = roots;
	m->root_count = n;
	return 0;
}

const char *gltf_node_label(const struct gltf_model *m, uint32_t node, char *buf, size_t size)
{
	if (node < m->node_count && m->nodes[node].name != NULL && m->nodes[node].name[0] != '\0')
		snprintf(buf, size, "\"%s\"", m->nodes[node].name);
	else
		snprintf(buf, size, "node %" PRIu32, node);
	return buf;
}
