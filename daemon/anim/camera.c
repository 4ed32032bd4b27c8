#include "daemon/anim/camera.h"

#include <stdlib.h>

static uint64_t camera_intervals(const struct camera_track *c)
{
	if (c->frame_count == 0 || c->cut_count >= c->frame_count - 1)
		return 0;
	return (uint64_t)c->frame_count - 1 - c->cut_count;
}

struct clip_time camera_map_time(const struct camera_track *c, int64_t elapsed_ns,
				 enum loop_mode mode)
{
	return clip_map_frames(elapsed_ns, camera_intervals(c), c->frame_rate, mode);
}

/*
 * Playable time runs through the shots back to back.  Position p in frame
 * intervals -> f = floor(p); every cut at or before f skips the interval
 * across it (Doom's rule, applied in ascending order), so f and f + 1 are
 * always in one shot, except at the final frame, which is held.
 */
void camera_sample(const struct camera_track *c, int64_t t_ns, struct camera_frame *out)
{
	const struct camera_frame *a, *b;
	uint64_t f;
	float frac;

	if (c->frame_count == 0) {
		out->pos = vec3_make(0.0f, 0.0f, 0.0f);
		out->rot = quat_identity();
		out->fov = 90.0f;
		return;
	}
	if (t_ns > c->duration_ns)
		t_ns = c->duration_ns;
	f = clip_frame_at(t_ns, c->frame_rate, &frac);
	for (uint32_t i = 0; i < c->cut_count && f < c->frame_count; i++)
		if (f >= c->cuts[i])
			f++;
	if (f >= (uint64_t)c->frame_count - 1) {
		*out = c->frames[c->frame_count - 1];
		return;
	}
	a = &c->frames[f];
	b = a + 1;
	out->pos = vec3_lerp(a->pos, b->pos, frac);
	out->rot = quat_slerp(a->rot, b->rot, frac);
	out->fov = a->fov + (b->fov - a->fov) * frac;
}

size_t camera_track_bytes(const struct camera_track *c)
{
	size_t n = sizeof *c;

	n += c->cuts != NULL ? (c->cut_count ? (size_t)c->cut_count : 1) * sizeof *c->cuts : 0;
	n += c->frames != NULL ? (size_t)c->frame_count * sizeof *c->frames : 0;
	return n;
}

void camera_track_free(struct camera_track *c)
{
	if (!c)
		return;
	free(c->cuts);
	free(c->frames);
	free(c);
}
