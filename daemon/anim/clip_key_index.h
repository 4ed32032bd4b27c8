/*
 * clip_key_index.h - the layout of a keyed clip's index of shared key
 * times, between the code that builds it (clip_key_index.c) and the code
 * that samples through it (clip_key_sample.c).
 *
 * The index holds the sorted distinct key times of every track on the
 * clip's own clock.  Between two neighbouring times no track has a key, so
 * each track follows one piece of its own curve there:
 *
 *  - a linear track (lerped vec3, slerped rotation) a piece of a line or of
 *    a great arc at constant speed.  A lerp between two points of the line,
 *    or a slerp between two points of the arc (their dot product is never
 *    negative, so the shortest path is that arc), gives the piece back
 *    exactly.  These tracks are stored as a pose at each time: frames at
 *    uneven times, blended by the uniform sampler's SIMD kernel;
 *  - any other track on the clip's clock (hermite, bezier, Catmull-Rom,
 *    step, or linear with two keys at one time) a cubic polynomial, or a
 *    constant: a "curve", stored as the four Bezier control points of its
 *    piece.  A dense curve (keys at most of the shared times) has them per
 *    interval, restricted to it and laid out interval by interval, so that
 *    a sample reads one contiguous row with one set of weights; a sparse
 *    one has them per key segment, and per interval the segment and where
 *    in it (u as a line in the interval's parameter), which costs a little
 *    more to evaluate and much less to store;
 *  - tracks on a global sequence (another clock), and slerped rotations
 *    with two keys at one time, are searched one by one, as without index.
 */
#ifndef ANIMD_CLIP_KEY_INDEX_H
#define ANIMD_CLIP_KEY_INDEX_H

#include <stdint.h>

#include "daemon/anim/clip.h"

/* Where a sparse curve is during an interval: its piece's control points,
 * at u = u0 + du * s for s the place in the interval (0 to 1); du is 0
 * where the track holds a value (its control points are then equal). */
struct curve_at {
	const float *cp;
	float u0, du;
};

struct clip_key_index {
	size_t bytes;                   /* the one allocation: this struct and
					   every array below, which follow it */
	uint32_t count;                 /* distinct key times */
	uint32_t joints;
	int64_t *times;                 /* count, ascending */
	struct transform *frames;       /* count * joints: the pose at each time,
					   exact in the channels of linear tracks,
					   the rest pose in the others; NULL when
					   compressed into `packed` */
	struct clip_packed *packed;     /* those frames compressed (clip_codec.h),
					   or NULL; owned, counted in `bytes` */
	/* Curves by kind, in this order everywhere: dense vec3, dense
	 * rotations, sparse vec3, sparse rotations. */
	uint32_t dense3, dense4, sparse3, sparse4;
	float *dense;                   /* count rows of dense3 x 12 floats then
					   dense4 x 16: each curve's control
					   points over the interval */
	struct curve_at *at;            /* count rows of sparse3 + sparse4 */
	float *pieces;                  /* the sparse curves' segments */
	uint32_t *curve_out;            /* all curves: where each value goes, in
					   floats from the start of the pose */
	uint32_t search_count;
	const struct track **search;    /* tracks sampled alone */
	uint32_t *search_out;           /* their places in the pose, as above */
};

/* Free an index and its compressed frames (NULL: nothing). */
void clip_index_free(struct clip_key_index *x);
/* Compress the index's frames (codec_pack) and lay it out again without
 * them.  0, or a negative errno (the index is left as it was). */
int clip_index_compress(struct clip *c, const int32_t *parents,
			const struct clip_codec_params *p);

/* Floats after `dense` and after `pieces`, so that a 4-float load of a
 * vec3's last control point stays inside the allocation. */
#define CURVE_PAD 4

#endif
