/*
 * gltf_import.h - a validated glTF document (formats/gltf/gltf.h) to the
 * runtime: nodes to a skeleton, animations to keyed clips, meshes to
 * skinned meshes with morph targets.
 *
 * glTF's conventions are animd's (column vectors, quaternions x, y, z, w,
 * right-handed, Y up): nothing is conjugated or transposed, only matrices
 * read column-major.
 *
 * Skeleton: every node of the scene shown is a joint (as .x frames are),
 * depth first, parents before children, so that an animation of any node
 * moves what hangs below it; then the trees of skin joints the scene's
 * meshes use that lie outside it.  A joint's rest pose is its node's TRS
 * (rotation normalised) or its matrix (kept exact: skeleton.rest_matrix,
 * with its split into T, R, S where a channel replaces a part).  Joint
 * names are the nodes' names, or "nodeN".  The bind pose is the rest pose
 * through the hierarchy; inv_bind is, for a joint of a skin, that skin's
 * inverse bind matrix (the first skin listing it; identity when the skin
 * has none), else the inverse of its bind pose: `skin` space is then
 * global(joint) * inverseBindMatrix, as 3.7.3.1 says.
 *
 * Clips: one per animation, named by its name, or by its index ("3")
 * without one (asset_find_clip also takes "#3"); its length is the
 * largest key time of its samplers.  STEP and LINEAR as INTERP_STEP and
 * INTERP_LINEAR (rotations: keys normalised, shortest-path slerp);
 * CUBICSPLINE as INTERP_HERMITE, each key's tangents scaled by the key
 * interval they span (Appendix C: the in-tangent of key k by t_k -
 * t_(k-1), the out-tangent by t_(k+1) - t_k), rotations normalised after
 * interpolation by the sampler.  A weights channel gives one width-1 track
 * per morph target of its node's mesh (clip.weights, the times shared).
 * A repeated key time holds the later key (the sampler's rule).
 *
 * Meshes: one per primitive of each mesh a node of the skeleton shows, in
 * joint order.  Skinned (a skin on the node and JOINTS_0 on the
 * primitive): every JOINTS_n/WEIGHTS_n set, weights normalised to sum 1
 * (a vertex without weight follows the skin's first joint), each
 * influence holding its vertex in its joint's space (inverseBindMatrix *
 * p, normals through its inverse transpose), so the node's own transform
 * is ignored (3.7.3.3).  Otherwise the mesh follows its node: one
 * influence, weight 1.  Triangles from TRIANGLES, TRIANGLE_STRIP (3.7.2.1's
 * winding) and TRIANGLE_FAN; points and lines keep their vertices, no
 * triangles.  Morph targets: the mesh instance's weights are the asset's
 * weights first_weight.., their defaults node.weights, else mesh.weights,
 * else 0.
 */
#ifndef ANIMD_GLTF_IMPORT_H
#define ANIMD_GLTF_IMPORT_H

#include <stdint.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/mesh.h"
#include "daemon/anim/skeleton.h"
#include "daemon/formats/gltf/gltf.h"

struct gltf_runtime {
	struct skeleton *skeleton;
	uint32_t clip_count;
	struct clip **clips;
	uint32_t mesh_count;
	struct mesh **meshes;
	uint32_t weight_count;          /* morph weights, over every mesh instance */
	float *weights;                 /* their defaults (weight_count + 1) */
	char **weight_names;            /* "node/target" (weight_count + 1) */
	uint32_t *joint_nodes;          /* per joint, its node (joint_count + 1) */
	struct diag_notes notes;        /* what the import left out */
};

/* Convert a finished model.  0, or -ENOMEM (the model was validated: it
 * cannot fail otherwise).  `stem` names nothing yet (reserved). */
int gltf_import(const struct gltf_model *m, struct gltf_runtime *out);
void gltf_runtime_free(struct gltf_runtime *r);

#endif
