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

#include "../formats/md5.h"
#include "camera.h"
#include "clip.h"
#include "mesh.h"
#include "skeleton.h"

/* Bind skeleton of an md5mesh: rest = local pose derived from the
 * model-space joints, bind_model/inv_bind from the joints themselves. */
int md5_import_skeleton(const struct md5_model *m, struct skeleton **out);
/* Mesh i of an md5mesh (MESH_JOINT_SPACE). */
int md5_import_mesh(const struct md5_model *m, uint32_t i, struct mesh **out);
/* Hierarchy + baseframe skeleton of an md5anim (no bind pose). */
int md5_import_anim_skeleton(const struct md5_anim *a, struct skeleton **out);
/* The anim as a uniform clip (loop by default), with bounds and root
 * motion data. */
int md5_import_clip(const struct md5_anim *a, const char *name, struct clip **out);
int md5_import_camera(const struct md5_camera *c, struct camera_track **out);

#endif
