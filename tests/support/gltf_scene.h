/*
 * gltf_scene.h - a small animated glTF scene built with gltf_writer.h, for
 * fuzz seeds, benchmarks and integration tests: a chain of `joints` joints
 * under a root, a skinned mesh (a tube of `rings` rings around the chain,
 * two influences per vertex, sets JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1
 * when `sets` is 2) with two morph targets (one sparse), and animations:
 * "wave" (LINEAR rotations of every joint, a STEP translation of the root),
 * "curl" (CUBICSPLINE rotations and translations), "breathe" (the morph
 * weights, LINEAR) and "pulse" (the weights as a CUBICSPLINE).  Keys every
 * `1 / rate` s for `seconds`.  The prefix is gltfs_.
 */
#ifndef ANIMD_TEST_GLTF_SCENE_H
#define ANIMD_TEST_GLTF_SCENE_H

#include <stdint.h>

#include "tests/support/gltf_writer.h"

struct gltfs_params {
	uint32_t joints;        /* 1.. */
	uint32_t rings;         /* 2..; 8 vertices each */
	uint32_t sets;          /* 1 or 2 */
	uint32_t rate;          /* keys per second */
	float seconds;
	bool quantized;         /* normals as normalised bytes (KHR_mesh_quantization) */
};

/* The scene into a fresh writer (gltfw_free it). */
struct gltfw *gltfs_build(const struct gltfs_params *p);

#endif
