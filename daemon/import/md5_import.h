/*
 * md5_import.h - MD5 models to the runtime representation, converted once.
 *
 * MD5 quaternions, in column-vector math, rotate by R(q*) (Doom applies
 * the matrix transposed), so every joint, baseframe, frame and camera
 * orientation is conjugated here and nowhere else.  Axes are left as the
 * file has them: Z up, right-handed.
 */
#ifndef ANIMD_MD5_IMPORT_H
#define ANIMD_MD5_IMPORT_H

#include "daemon/anim/camera.h"
#include "daemon/anim/clip.h"
#include "daemon/anim/mesh.h"
#include "daemon/anim/skeleton.h"
#include "daemon/formats/md5/md5.h"

/*
 * Every function returns 0 with *out owned by the caller, or a negative
 * errno with *out untouched: -EINVAL when the model breaks a rule md5.h
 * states (checked again here, cheaply, so a hand-built model cannot make
 * the import read out of bounds), -E2BIG past the limits below, -ENOMEM.
 *
 * The parser bounds each count by the bytes of the file; these bound the
 * products of counts, which a small hostile file could otherwise make huge.
 */
#define MD5_IMPORT_MAX_FRAME_JOINTS (1u << 23)  /* numFrames * numJoints (320 MiB
						   of transforms) */
#define MD5_IMPORT_INFLUENCE_FACTOR 16u         /* a mesh's vertices may name at
						   most 16 * numweights weights in
						   total (weights can be shared) */

/* Bind skeleton of an md5mesh: rest = local pose derived from the
 * model-space joints, bind_model/inv_bind from the joints themselves. */
int md5_import_skeleton(const struct md5_model *m, struct skeleton **out);
/* Mesh i of an md5mesh (MESH_JOINT_SPACE). */
int md5_import_mesh(const struct md5_model *m, uint32_t i, struct mesh **out);
/* Which vertices share a derived normal (Doom 3 merges vertices at one
 * position): from the mesh's bind pose on skeleton s.  0 or -ENOMEM. */
int md5_import_normal_groups(struct mesh *me, const struct skeleton *s);
/* Hierarchy + baseframe skeleton of an md5anim (no bind pose). */
int md5_import_anim_skeleton(const struct md5_anim *a, struct skeleton **out);
/* The anim as a uniform clip (loop by default), with bounds and root
 * motion data. */
int md5_import_clip(const struct md5_anim *a, const char *name, struct clip **out);
int md5_import_camera(const struct md5_camera *c, struct camera_track **out);

#endif
