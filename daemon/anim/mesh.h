/*
 * mesh.h - skinned meshes and their vertex evaluation.
 *
 * A vertex is the weighted sum of its influences.  Each influence holds a
 * joint, a weight and a position; where that position lives depends on the
 * mesh's `space`:
 *  - MESH_JOINT_SPACE: the position is in the joint's own space (MD5
 *    weights); the vertex is  sum w * (model[joint] * pos).  Weights are
 *    used as authored (MD5 biases are not normalised).
 *  - MESH_BIND_SPACE: the position is the bind-pose vertex; the vertex is
 *    sum w * (skin[joint] * pos), skin = model * inverse bind (.x, M2).
 */
#ifndef ANIMD_MESH_H
#define ANIMD_MESH_H

#include <stdint.h>

#include "daemon/anim/math3d.h"

enum mesh_space {
	MESH_JOINT_SPACE,
	MESH_BIND_SPACE,
};

struct mesh_influence {
	uint32_t joint;
	float weight;
	vec3 pos;
};

struct mesh {
	char *name;
	char *material;
	enum mesh_space space;
	uint32_t vertex_count;
	uint32_t triangle_count;
	uint32_t influence_count;
	uint32_t *first_influence;      /* vertex_count + 1 prefix offsets */
	struct mesh_influence *influences;
	uint32_t (*triangles)[3];
	float (*uvs)[2];                /* vertex_count, or NULL */
	vec3 *normals;                  /* bind-space normals, or NULL */
};

/* Skinned positions of every vertex, in model space.  `mats` are the model
 * matrices (MESH_JOINT_SPACE) or the skinning matrices (MESH_BIND_SPACE),
 * indexed by joint.  `out` holds vertex_count entries. */
void mesh_skin_positions(const struct mesh *m, const mat34 *mats, vec3 *out);

/* Skinned normals (MESH_BIND_SPACE with normals only): rotated by the
 * weighted matrices' inverse transpose and renormalised. */
void mesh_skin_normals(const struct mesh *m, const mat34 *mats, vec3 *out);

void mesh_free(struct mesh *m);

#endif
