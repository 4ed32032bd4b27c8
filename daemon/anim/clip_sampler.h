/*
 * clip_sampler.h - the sampler's two halves as they call each other:
 * clip_sample.c (the entry point, uniform frames and their blend) and
 * clip_keyed.c (keyed tracks).  Everything public is in clip.h.
 */
#ifndef ANIMD_CLIP_SAMPLER_H
#define ANIMD_CLIP_SAMPLER_H

#include "daemon/anim/clip.h"

/* out[j] = a[j] blended with b[j] at frac (lerp, shortest-path slerp of
 * unit quaternions) for n joints, in SIMD where the CPU has it. */
void clip_blend_frames(const struct transform *a, const struct transform *b, uint32_t n,
		       float frac, struct transform *out);

/* clip_sample_at for a clip with tracks (clip_keyed.c), and for one with
 * a key index (clip_key_index.c). */
void clip_sample_keyed(const struct clip *c, int64_t t_ns, int64_t g_ns, struct transform *out);
void clip_sample_indexed(const struct clip *c, int64_t t_ns, int64_t g_ns, struct transform *out);

/* track_eval for times that only grow from call to call: *hint (start it
 * at 0) is where the previous call found its key, so a walk over all of a
 * track's keys costs one step each, not a search each. */
void track_eval_from(const struct track *tr, int64_t t, uint32_t *hint, float *out);

/* clip_sample_at for a compressed uniform clip (clip_unpack.c), and its
 * local matrices straight from the compressed frames when the CPU has
 * AVX2 (1; 0: use clip_sample_packed and pose_local_matrices). */
void clip_sample_packed(const struct clip *c, int64_t t_ns, struct transform *out);
int clip_packed_matrices(const struct clip *c, int64_t t_ns, mat34 *out);

/* A track the sampler can evaluate: keys, of values of this width. */
static inline int track_has_keys(const struct track *tr, uint32_t width)
{
	return tr->count > 0 && tr->width == width && tr->times && tr->values;
}

#endif
