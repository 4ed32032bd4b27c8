/*
 * morph.h - morph targets (glTF 2.0, 3.7.2.2): each weight of an asset is
 * a number a clip animates (clip.weights) or the asset's default holds,
 * and each mesh with targets (mesh.morph) adds sum_k weight_k * delta_k to
 * its vertices' positions and normals before they are skinned.
 * Allocation-free.
 */
#ifndef ANIMD_MORPH_H
#define ANIMD_MORPH_H

#include <stdint.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/mesh.h"

/* The n weights at clip time t (clamped to the clip, as joints are):
 * out[i] is clip c's track i where it has keys, else defaults[i] (c may be
 * NULL, or have fewer tracks). */
void morph_weights_sample(const float *defaults, uint32_t n, const struct clip *c, int64_t t_ns,
			  float *out);

/* mesh_skin_positions of a mesh with morph targets, its vertices first
 * displaced by its targets at `weights` (the asset's, indexed from
 * m->morph->first_weight). */
void morph_skin_positions(const struct mesh *m, const float *weights, const mat34 *model,
			  vec3 *out);
/* Its skinned normals (MESH_NORMALS_SKINNED), the targets' normal deltas
 * added first; unit length, as mesh_skin_normals gives them. */
void morph_skin_normals(const struct mesh *m, const float *weights, const mat34 *normal_mats,
			vec3 *out);

#endif
