/*
 * md5_camera_gen.h - writes .md5camera fixtures whose every frame is known
 * in closed form, so tests can predict what the evaluator must return.
 *
 * Frame i: position (i, i/2, 10), a rotation of i degrees about +Z (in
 * animd's convention), horizontal fov 60 + i/4 degrees.
 */
#ifndef ANIMD_TEST_MD5_CAMERA_GEN_H
#define ANIMD_TEST_MD5_CAMERA_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "daemon/anim/math3d.h"

struct camera_gen {
	uint32_t frames;
	uint32_t rate;
	uint32_t cut_count;
	const uint32_t *cuts;
};

void camera_gen_frame(uint32_t i, vec3 *pos, quat *rot, float *fov);
/* The quaternion as an md5 file stores it (x, y, z with w = +sqrt(...)),
 * for a rotation given in animd's convention. */
void camera_gen_file_quat(quat r, float out[3]);
/* Writes the whole file; 0 or -EIO. */
int camera_gen_write(FILE *f, const struct camera_gen *g);

#endif
