/*
 * md5.h - Doom 3 MD5 version 10: .md5mesh, .md5anim, .md5camera.
 *
 * Bytes in, a validated model out.  The models hold the file's values as
 * the file means them: quaternions are (x, y, z, w) with Doom's
 * w = +sqrt(|1 - x^2 - y^2 - z^2|) already computed, NOT yet converted to
 * animd's column-vector convention (anim/md5_import does that, once).
 *
 * STRICTNESS (docs/formats/md5.md, "What is an error and what is a note").
 * Every rule below is enforced; a violation returns -EINVAL with the diag
 * pointing at the offending token.  Nothing is read or allocated from a
 * count before the count has been checked against the bytes that remain.
 * The rules are safety (every count, index and range inside what it
 * indexes) or feed what animd publishes (joints, bind pose, vertices,
 * triangles, frames, bounds, cameras); the line numbers after vert, tri
 * and weight stay errors although Doom skips them, because other readers
 * (assimp) index by them.  What Doom never reads and animd does not either
 * loads, with a located note in the model's `notes` (diag.h):
 *  - anything after the last block (Doom stops reading there): the file's
 *    counts say what it holds;
 *  - md5anim: the startIndex of a joint whose flags are 0 (it reads no
 *    component) past the components of a frame: kept as
 *    numAnimatedComponents, so startIndex + popcount(flags) <=
 *    numAnimatedComponents holds for every joint.
 *
 * md5mesh: -1 <= parent < i; per vertex weightCount >= 1 and
 *   firstWeight + weightCount <= numweights; weight joint < numJoints;
 *   triangle indices < numverts; the index after vert/tri/weight equals its
 *   position; numMeshes blocks (what follows them is a note).
 * md5anim: numFrames >= 1, numJoints >= 1, frameRate > 0, single root at
 *   joint 0, parent < i, flags only the six bits, startIndex +
 *   popcount(flags) <= numAnimatedComponents for a joint with flags,
 *   frames numbered in order,
 *   numAnimatedComponents floats per frame (0 is valid).
 * md5camera: numFrames >= 1, frameRate > 0, 0 <= numCuts <= numFrames,
 *   cuts strictly ascending within [1, numFrames - 1].
 */
#ifndef ANIMD_MD5_H
#define ANIMD_MD5_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/formats/diag.h"

/* Limits that keep a hostile file from asking for absurd memory.  Real
 * Doom 3 assets are far below them. */
#define MD5_MAX_JOINTS   65535u
#define MD5_MAX_MESHES   65535u
#define MD5_MAX_FRAMES   (1u << 24)

#define MD5_ANIM_TX 1u
#define MD5_ANIM_TY 2u
#define MD5_ANIM_TZ 4u
#define MD5_ANIM_QX 8u
#define MD5_ANIM_QY 16u
#define MD5_ANIM_QZ 32u
#define MD5_ANIM_ALL 63u

struct md5_joint {
	char *name;
	int32_t parent;         /* -1 for a root */
	float pos[3];           /* model space in md5mesh */
	float orient[4];        /* x, y, z, w (w computed, Doom's sign) */
};

struct md5_vert {
	float st[2];
	uint32_t first_weight;
	uint32_t weight_count;
};

struct md5_weight {
	uint32_t joint;
	float bias;
	float pos[3];           /* offset in the joint's space */
};

struct md5_mesh {
	char *name;             /* from an optional `name "..."` line, else NULL */
	char *shader;
	uint32_t num_verts;
	uint32_t num_tris;
	uint32_t num_weights;
	struct md5_vert *verts;
	uint32_t (*tris)[3];
	struct md5_weight *weights;
};

struct md5_model {
	char *commandline;
	uint32_t num_joints;
	uint32_t num_meshes;
	struct md5_joint *joints;
	struct md5_mesh *meshes;
	struct diag_notes notes;       /* what loaded but is worth a word */
};

struct md5_anim_joint {
	char *name;
	int32_t parent;
	uint32_t flags;         /* MD5_ANIM_* bits */
	uint32_t start_index;
};

struct md5_anim {
	char *commandline;
	uint32_t num_frames;
	uint32_t num_joints;
	uint32_t frame_rate;
	uint32_t num_components;
	struct md5_anim_joint *joints;
	float (*bounds)[6];     /* per frame: min x y z, max x y z */
	struct md5_joint *base; /* per joint, parent-relative; name/parent copied
				   from the hierarchy (names shared: do not free) */
	float *components;      /* num_frames * num_components */
	struct diag_notes notes;
};

struct md5_camera_frame {
	float pos[3];
	float orient[4];        /* x, y, z, w (w computed, Doom's sign) */
	float fov;              /* horizontal, degrees */
};

struct md5_camera {
	char *commandline;
	uint32_t num_frames;
	uint32_t frame_rate;
	uint32_t num_cuts;
	uint32_t *cuts;
	struct md5_camera_frame *frames;
	struct diag_notes notes;
};

/* Parse a whole file held in buf.  On success *out owns everything and the
 * return is 0; on failure *out is untouched, the diag says why, and the
 * return is -EINVAL (bad content) or -ENOMEM. */
int md5_mesh_parse(const char *buf, size_t len, struct md5_model **out, struct diag *d);
int md5_anim_parse(const char *buf, size_t len, struct md5_anim **out, struct diag *d);
int md5_camera_parse(const char *buf, size_t len, struct md5_camera **out, struct diag *d);

void md5_model_free(struct md5_model *m);
void md5_anim_free(struct md5_anim *a);
void md5_camera_free(struct md5_camera *c);

/* Doom's w for a unit quaternion stored without it. */
float md5_quat_w(float x, float y, float z);

#endif
