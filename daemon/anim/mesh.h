/*
 * mesh.h - skinned meshes and their vertex evaluation.
 *
 * A vertex is the weighted sum of its influences, and each influence holds
 * a joint, a weight, and the vertex's position and normal in that joint's
 * own space:
 *
 *     position = sum w * (model[joint] * pos)
 *     normal   = normalise(sum w * (model[joint]^-T * normal))
 *
 * so that no inverse of a bind pose is ever needed (a frame may not have
 * one).  Importers put each format there: MD5 weights as they are; .x
 * through each bone's offset matrix (D3DX's v * offset * combined, normals
 * through the offset's inverse transpose); M2 relative to the bone's pivot.
 * Weights are used as authored (MD5 biases are not normalised).
 *
 * Normals: per influence where the file has them (.x MeshNormals, M2
 * vertices), derived from the skinned triangles where it has none (MD5,
 * as Doom 3 does: each triangle adds its area-weighted normal to its
 * corners, vertices at one bind position share the sum), or none.
 */
#ifndef ANIMD_MESH_H
#define ANIMD_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/anim/math3d.h"

enum mesh_normals {
	MESH_NORMALS_NONE,
	MESH_NORMALS_SKINNED,   /* influence.normal, from the file */
	MESH_NORMALS_DERIVED,   /* from the skinned triangles */
};

struct mesh_influence {
	uint32_t joint;
	float weight;
	vec3 pos;
	vec3 normal;            /* MESH_NORMALS_SKINNED; zero otherwise */
};

/* A material as .x describes one (Material), or a name alone. */
struct mesh_material {
	char *name;                     /* or NULL */
	float diffuse[4];               /* faceColor r g b a */
	float power;                    /* specular exponent */
	float specular[3], emissive[3];
	char *texture;                  /* TextureFilename, or NULL */
	uint32_t triangle_count;        /* triangles drawn with it */
};

/*
 * Morph targets (glTF, morph.h): displacements of the vertices' positions
 * and normals in the mesh's own space, each target weighed by one of the
 * asset's weights, added before skinning.  An influence holds its vertex
 * in its joint's space, so a displacement goes there through that joint's
 * map (to_joint: the linear part of what took the mesh's space to the
 * joint's; to_joint_normal: its inverse transpose).
 */
struct mesh_morph {
	uint32_t target_count;
	uint32_t first_weight;          /* the asset's weight of target 0 */
	vec3 *positions;                /* target_count * vertex_count, target-major */
	vec3 *normals;                  /* the same for normals, or NULL */
	uint32_t joint_count;           /* entries of the two maps (the skeleton's) */
	mat34 *to_joint;
	mat34 *to_joint_normal;
};

struct mesh {
	char *name;
	char *material;                 /* the first material's texture (else its
					   name, or the MD5 shader); or NULL */
	enum mesh_normals normals;
	uint32_t vertex_count;
	uint32_t triangle_count;
	uint32_t influence_count;
	uint32_t *first_influence;      /* vertex_count + 1 prefix offsets */
	struct mesh_influence *influences;
	uint32_t (*triangles)[3];
	float (*uvs)[2];                /* vertex_count, or NULL */
	uint32_t *normal_group;         /* DERIVED: the vertex whose normal each
					   vertex shares (the first at its bind
					   position); NULL: each its own */
	/* Materials, when the file has a list of them. */
	uint32_t material_count;
	struct mesh_material *materials;
	uint32_t *triangle_material;    /* triangle_count material indices, or NULL */
	/* Per-vertex data animd keeps but does not evaluate. */
	float (*colors)[4];             /* vertex colours r g b a, or NULL */
	uint32_t uv_sets;               /* texture coordinate sets in the file */
	char *unread;                   /* what the file holds for the mesh that
					   is not evaluated ("DeclData, ..."), or
					   NULL */
	struct mesh_morph *morph;       /* morph targets, or NULL */
};

/* Skinned positions of every vertex, in model space, from the model
 * matrices (indexed by joint).  `out` holds vertex_count entries.
 * Influences are trusted to name joints the matrices cover; the loaders
 * check that once. */
void mesh_skin_positions(const struct mesh *m, const mat34 *model, vec3 *out);

/* The inverse transpose of each of n model matrices' 3x3 part, which is
 * what normals go through (a singular one: its cofactor matrix, which
 * still maps normals to the plane the matrix collapses to). */
void mesh_normal_matrices(uint32_t n, const mat34 *model, mat34 *out);

/* Skinned normals, unit length (zero where they cancel out): from
 * normal_mats (mesh_normal_matrices of the model matrices) for SKINNED
 * meshes, from `positions` (mesh_skin_positions' output) for DERIVED ones;
 * zero vectors for a mesh without normals. */
void mesh_skin_normals(const struct mesh *m, const mat34 *normal_mats, const vec3 *positions,
		       vec3 *out);

/* The normal groups of a DERIVED mesh from its bind-pose positions: 0, or
 * -ENOMEM. */
int mesh_group_normals(struct mesh *m, const vec3 *bind_positions);

void mesh_free(struct mesh *m);

/* The bytes the mesh owns, exactly as asked of malloc (not the
 * allocator's overhead): the struct, its strings (length + 1 each), and
 * every array, which importers allocate with one entry more than it holds
 * (so that none is empty; first_influence's vertex_count + 1 offsets
 * included): influences, triangles and triangle materials, uvs, colours
 * and normal groups, the materials with their names and textures; the
 * morph targets (the struct, target_count * vertex_count + 1 deltas of
 * each kind it has, joint_count + 1 entries of each map). */
size_t mesh_bytes(const struct mesh *m);

#endif
