/*
 * blend.h - layers of poses blended per joint: override (a cross-fade, a
 * partial-body clip) and additive (a clip's difference from a reference
 * pose, added on top).
 *
 * A stack applies bottom-up: each layer changes, in place, the local pose
 * that the layers below it made.  Rotations are blended by normalised
 * lerp (nlerp) on the shortest hemisphere, never slerp: for the weights a
 * fade runs through, the two differ by at most a few degrees mid-way and
 * agree at 0, 1 and for equal rotations.
 *
 * Every rotation given is a unit quaternion (every sampler normalises, and
 * every function here returns unit quaternions).  Weights are clamped to
 * [0, 1]: a joint of weight 0 keeps `pose` bit for bit, one of weight 1
 * of an override layer takes the layer's transform bit for bit.
 * Allocation-free; the SSE2 versions on x86-64 (the baseline ISA) run four
 * joints at a time and agree with the portable ones, which are exported so
 * that tests can compare them, to float rounding.
 */
#ifndef ANIMD_BLEND_H
#define ANIMD_BLEND_H

#include <stdint.h>

#include "daemon/anim/math3d.h"
#include "daemon/anim/skeleton.h"

/*
 * Per-joint weights of a mask, from subtree roots: out[j] is the weight of
 * the nearest of `roots` at or above joint j (a root named twice: its last
 * weight), and 0 for a joint no root covers.  `weights` (root_count
 * entries, each in [0, 1]) may be NULL for weight 1 everywhere.  0, or
 * -EINVAL (out untouched) for a root that is not a joint of s or a weight
 * outside [0, 1].
 */
int blend_mask_build(const struct skeleton *s, uint32_t root_count, const uint32_t *roots,
		     const float *weights, float *out);

/*
 * Override: pose[j] = lerp(pose[j], layer[j], w_j), w_j = weight * mask[j]
 * (mask NULL: weight for every joint), clamped to [0, 1].  Translations
 * and scales lerp as pose (1 - w) + layer w; rotations nlerp.
 */
void blend_override(struct transform *pose, const struct transform *layer, uint32_t n,
		    float weight, const float *mask);

/*
 * Additive: with d = layer[j] * ref[j]^-1 and w_j as above, the rotation
 * becomes nlerp(identity, d_r, w_j) * pose_r (d_r taken on the hemisphere
 * of the identity), the translation pose_t + w_j (layer_t - ref_t), the
 * scale pose_s * lerp(1, layer_s / ref_s, w_j) per axis (an axis whose
 * reference scale is 0 keeps pose_s).  A layer equal to its reference
 * changes nothing.
 */
void blend_additive(struct transform *pose, const struct transform *layer,
		    const struct transform *ref, uint32_t n, float weight, const float *mask);

/* The same, one joint at a time in plain C: the reference the SIMD
 * versions are tested against. */
void blend_override_portable(struct transform *pose, const struct transform *layer, uint32_t n,
			     float weight, const float *mask);
void blend_additive_portable(struct transform *pose, const struct transform *layer,
			     const struct transform *ref, uint32_t n, float weight,
			     const float *mask);

#endif
