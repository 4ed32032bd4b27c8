/*
 * skeleton.h - joints, their hierarchy and their rest pose.
 *
 * Invariant every loader guarantees and every consumer relies on:
 * parents[i] < i (or -1), so a single forward pass resolves the hierarchy.
 * Immutable once built; shared by reference between clips and meshes of an
 * asset.
 */
#ifndef ANIMD_SKELETON_H
#define ANIMD_SKELETON_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/anim/math3d.h"

struct skeleton {
	uint32_t joint_count;
	char **names;               /* joint_count NUL-terminated names */
	int32_t *parents;           /* -1 for roots */
	struct transform *rest;     /* local (parent-relative) rest pose */
	mat34 *bind_model;          /* model-space bind pose, or NULL if none */
	mat34 *inv_bind;            /* inverse of bind_model, or NULL if none (a
				       singular one is the identity) */
	/* Exact local rest matrices (.x frames), or NULL.  A joint no track
	 * moves is placed by its matrix as written, which `rest` (its split
	 * into translation, rotation and scale: what a clip's missing
	 * channels keep) cannot always express: a shear, a collapsed axis. */
	mat34 *rest_matrix;
	uint8_t *rest_not_trs;      /* with rest_matrix: 1 where `rest` misses it */
	/*
	 * What a joint leaves out of its parent (SKELETON_IGNORE_PARENT_*),
	 * or NULL: every joint takes all of it, model = parent model * local
	 * (every format but M2, whose bones may ignore their parent's
	 * translation, scale or rotation).  For a joint with bits set and a
	 * parent, with A the parent model matrix's 3x3 and A_i its columns:
	 *   A' = A, with ROTATION: diag(|A_0|, |A_1|, |A_2|) (the parent's
	 *        scale, the model's axes), with SCALE: the columns A_i / |A_i|
	 *        (its rotation, unit scale), with both: the identity;
	 *   o  = the parent model matrix applied to rest[j].t (where the
	 *        parent carries the joint's rest offset), with TRANSLATION:
	 *        A' applied to the joint's bind-pose position;
	 *   model[j] = [A' | o] * T(local.t - rest[j].t) * R(local.r) * S(local.s).
	 * Without bits this is model[parent] * local.  The bind pose is the
	 * rest pose through the plain hierarchy (the bits left out).
	 */
	uint8_t *ignore_parent;     /* joint_count + 1 entries when not NULL */
	/*
	 * The pose the meshes were bound in, where it is not bind_model, or
	 * NULL (bind_model is it).  .x: a bone a mesh's SkinWeights names was
	 * bound at the inverse of its matrixOffset (the last one naming it,
	 * when meshes disagree), which exporters need not make the frames'
	 * own combined matrices; every other joint at bind_model.  Only what
	 * `sample`'s bind pose gives: `skin` keeps inv_bind.
	 */
	mat34 *skin_bind;           /* joint_count + 1 entries when not NULL */
};

#define SKELETON_IGNORE_PARENT_TRANSLATION 0x1u
#define SKELETON_IGNORE_PARENT_SCALE 0x2u
#define SKELETON_IGNORE_PARENT_ROTATION 0x4u
#define SKELETON_IGNORE_PARENT_ALL 0x7u

/* Allocate an empty skeleton of n joints (names NULL, parents -1, rest
 * identity, no bind pose).  NULL on ENOMEM. */
struct skeleton *skeleton_new(uint32_t n);
/* Allocate bind_model/inv_bind and fill them from the rest pose through
 * the hierarchy (rest_matrix when there is one, else `rest`).  0 or
 * -ENOMEM. */
int skeleton_compute_bind(struct skeleton *s);
void skeleton_free(struct skeleton *s);

/* The bytes the skeleton owns, exactly as asked of malloc (not the
 * allocator's overhead): the struct, the names (each its length + 1),
 * parents, rest pose and bind matrices, max(joint_count, 1) entries each
 * as skeleton_new and skeleton_compute_bind allocate them, and the exact
 * rest matrices with their flags, joint_count + 1 entries each (the .x
 * importer's spare), when present, and ignore_parent and skin_bind
 * (joint_count + 1 each). */
size_t skeleton_bytes(const struct skeleton *s);

/* Index of the joint with this name, or -1. */
int32_t skeleton_find(const struct skeleton *s, const char *name);

/* Can a clip built for `clip_skel` drive `target`?  Same joint count, same
 * names index by index, same parents (Doom's rule).  0, or -EINVAL with a
 * message naming the first difference written to err. */
int skeleton_check_binding(const struct skeleton *clip_skel, const struct skeleton *target,
			   char *err, size_t errlen);

#endif
