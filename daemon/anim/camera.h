/*
 * camera.h - scripted camera moves (md5camera) and their evaluation.
 *
 * Orientation is in animd's convention (column vectors, Hamilton): it
 * rotates camera-local axes into the world; Doom's camera axes are
 * forward +X, left +Y, up +Z.
 *
 * Cuts: a cut at frame c means frame c ends one shot and frame c + 1 starts
 * the next; the interval c -> c + 1 takes no time and is never
 * interpolated.  Playable length = (frame_count - 1 - cut_count) / rate.
 * Unlike Doom, we interpolate at every frame rate, including 60 fps.
 */
#ifndef ANIMD_CAMERA_H
#define ANIMD_CAMERA_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/math3d.h"

struct camera_frame {
	vec3 pos;
	quat rot;
	float fov;              /* horizontal, degrees */
};

struct camera_track {
	uint32_t frame_count;
	uint32_t frame_rate;
	uint32_t cut_count;
	uint32_t *cuts;                 /* ascending, each in [1, frame_count - 1] */
	struct camera_frame *frames;
	int64_t duration_ns;            /* playable length */
};

/* Map playback time with a loop mode (as clip_map_time) and evaluate. */
struct clip_time camera_map_time(const struct camera_track *c, int64_t elapsed_ns,
				 enum loop_mode mode);
/* Camera at clip time t in [0, duration_ns] (clamped). */
void camera_sample(const struct camera_track *c, int64_t t_ns, struct camera_frame *out);

void camera_track_free(struct camera_track *c);

/* The bytes the camera owns, exactly as asked of malloc (not the
 * allocator's overhead): the struct, its frames and its cuts
 * (max(cut_count, 1) entries, as the importer allocates them). */
size_t camera_track_bytes(const struct camera_track *c);

#endif
