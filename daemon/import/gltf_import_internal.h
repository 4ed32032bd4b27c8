/*
 * gltf_import_internal.h - what the parts of the glTF import share: the
 * node-to-joint map and the matrices read from the file.  Internal to
 * daemon/import/gltf_import*.c.
 */
#ifndef ANIMD_GLTF_IMPORT_INTERNAL_H
#define ANIMD_GLTF_IMPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/import/gltf_import.h"

struct gltf_import {
	const struct gltf_model *m;
	struct gltf_runtime *out;
	int32_t *joint_of;              /* per node: its joint, or -1 */
	uint32_t scene_joints;          /* joints 0.. are the scene's; the rest
					   are skin joints' trees outside it */
	uint32_t *first_weight;         /* per node with a mesh: its first weight */
};

/* A column-major 4x4 (its last row taken as 0 0 0 1) as a mat34. */
mat34 gltf_mat34(const float m[16]);

int gltf_import_clips(struct gltf_import *x);
int gltf_import_meshes(struct gltf_import *x);

#endif
