/*
 * acl_compare.h - ACL (the Animation Compression Library, nfrechette/acl)
 * beside the codec in bench_codec: a C face over a C++ file that is only
 * built when `make bench ACL_DIR=...` names ACL's sources (the Makefile's
 * ACL_DIR and RTM_DIR).  ACL is never part of the tree.
 *
 * Transforms cross this face as ten floats a joint, in struct transform's
 * order: t.x t.y t.z, r.x r.y r.z r.w, s.x s.y s.z.
 */
#ifndef ANIMD_BENCH_ACL_COMPARE_H
#define ANIMD_BENCH_ACL_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct acl_clip;

/* Compress `frames` (frame-major: frame f's joint j at (f * joints + j) *
 * 10) with ACL's default settings and its qvvf error metric, every track
 * at `precision` and `shell_distance`; parents[j] < j or -1.  NULL when
 * ACL refuses. */
struct acl_clip *acl_clip_compress(const float *frames, uint32_t joints, uint32_t frame_count,
				   uint32_t rate, const int32_t *parents, float precision,
				   float shell_distance);
/* The compressed clip's bytes, as ACL reports them. */
size_t acl_clip_bytes(const struct acl_clip *c);
/* Decompress the whole pose at `seconds` (interpolated; ACL's seek and
 * decompress_tracks) into out (joints * 10 floats). */
void acl_clip_sample(struct acl_clip *c, float seconds, float *out);
void acl_clip_free(struct acl_clip *c);

#ifdef __cplusplus
}
#endif

#endif
