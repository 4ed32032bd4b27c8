/*
 * x_import.h - a DirectX .x object tree (formats/x/x_tree.h) to the runtime
 * representation: frames to a skeleton, meshes with their skin weights,
 * materials and normals to meshes, animation sets to keyed clips.
 *
 * Conventions (docs/formats/x.md): .x matrices are row-vector (translation in
 * elements 12-14) and compose Local * Parent; the runtime is column-vector,
 * so every matrix is read transposed and every rotation key (stored w, x,
 * y, z) is conjugated, here and nowhere else.  A frame keeps its matrix as
 * written (skeleton.rest_matrix: what places it wherever no key moves it)
 * and its split into translation, rotation and scale (skeleton.rest: what
 * an Animation's missing channels keep; a shear is not in it).  Axes stay
 * as authored: Y up, left-handed.
 *
 * Skinning: D3DX's v' = sum w * v * offset * Combined(bone).  Each
 * influence stores offset * v in its bone's space (and the normal through
 * the offset's inverse transpose), so the model matrices give the vertex
 * exactly, with no inverse of a bind pose (a frame may have none), and
 * meshes with different offsets share one skeleton.
 */
#ifndef ANIMD_X_IMPORT_H
#define ANIMD_X_IMPORT_H

#include <stdint.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/mesh.h"
#include "daemon/anim/skeleton.h"
#include "daemon/formats/x/x_tree.h"

/* D3DX's convention for files without AnimTicksPerSecond. */
#define X_DEFAULT_TICKS_PER_SECOND 4800u

struct x_model {
	struct skeleton *skeleton;      /* every Frame (and a root for loose meshes) */
	uint32_t mesh_count;
	struct mesh **meshes;
	uint32_t clip_count;
	struct clip **clips;            /* one per AnimationSet */
	uint32_t ticks_per_second;      /* what key times were divided by */
	int ticks_from_file;            /* 1: AnimTicksPerSecond; 0: the default */
	uint32_t skipped_sets;          /* CompressedAnimationSets (not supported) */
	uint32_t unknown_bones;         /* SkinWeights naming no frame (dropped) */
	char first_unknown_bone[64];
	/* What loaded but is worth a word, located (x_tree_note): data animd
	 * does not evaluate that breaks a rule, a reference to nothing. */
	struct diag_notes notes;
};

/*
 * Convert a parsed file.  `ticks_default` is used when the file has no
 * AnimTicksPerSecond (0 means X_DEFAULT_TICKS_PER_SECOND); `name` names an
 * unnamed animation set.  0 with *out filled (x_model_free), -EINVAL with d
 * located at the offending value (x_tree_error), or -ENOMEM.
 *
 * STRICTNESS (docs/formats/x.md, "What is an error and what is a note"):
 * errors for safety (every count against the values that follow, every
 * index animd follows inside what it indexes, values of the kind the
 * template says) and for rules on what animd publishes (frames, vertices,
 * faces, normals, skin weights, materials, keys, ticks, options); notes in
 * out->notes, and the file loads, for what animd does not evaluate:
 * XSkinMeshHeader's nBones disagreeing with the SkinWeights (unused), an
 * Animation naming no frame or one the file does not have (its keys still
 * count for the set's length and looping; they move no joint),
 * MeshTextureCoords with a count other than nVertices or a non-finite
 * coordinate (that set is left out), MeshVertexColors entries colouring no
 * vertex or with a non-finite component (left out).  The tree is
 * read, not changed, but the import's temporaries (positions and normals
 * before they are the mesh's influences, face corners) are allocated in
 * its arena: they go with the tree, and a thread's next load reuses that
 * memory instead of faulting fresh pages in.
 */
int x_import(struct x_tree *t, uint32_t ticks_default, const char *name,
	     struct x_model *out, struct diag *d);
void x_model_free(struct x_model *m);

#endif
