/*
 * clip_codec.h - the layout of a compressed uniform clip, between the code
 * that builds it (clip_pack.c) and the code that samples it
 * (clip_unpack.c).  docs/compression.md tells the why of each choice.
 *
 * Joints go in blocks of eight, one lane each (the last block padded with
 * still lanes), so that the sampler's AVX2 kernel decodes a component of
 * eight joints with a handful of instructions and no per-lane branch.
 * Nine components per joint: t.x, t.y, t.z, three of the rotation's four
 * (the fourth, kept >= 0, recovered from them: codec_block.drop), s.x,
 * s.y, s.z.  Per block and component:
 *
 *  - constant (no lane moves over the whole clip): eight floats in the
 *    pool, shared between blocks when they are all 0 or all 1;
 *  - animated: eight clip minimums and eight extents / 255 in the pool,
 *    and per segment of frames a header and the frames' bits.
 *
 * Frames go in segments that step over CODEC_SEGMENT frames and hold one
 * more (segment s holds frames s*S .. s*S + S): the two frames a sample
 * blends are always in one segment, so a sample reads one header per
 * component and one short run of bytes, whichever frame it lands on.
 * A segment's data is contiguous, block after block, and block_at says
 * where each block's starts (so that blocks decode independently).  A
 * block's: when any of its rotation components is animated, two bytes
 * that give each lane's rotation component left out in this segment
 * (lane l in bits 2l, 2l + 1: the one of largest magnitude over the
 * segment's frames, kept >= 0 by negating the quaternion; recovering the
 * largest keeps its error small, where recovering one near 0 multiplies
 * the others' errors); then per animated component in order a header of
 * CODEC_HEADER bytes (the width w in bits, 0..CODEC_MAX_BITS, then eight
 * segment minimums and eight segment extents, each in 255ths of the
 * lane's clip range); then per animated component in order its frames,
 * each w bytes: lane l's value in bits l*w .. l*w + w - 1, little-endian.
 * The headers come first so that their widths load at fixed places.
 * A value decodes as
 *
 *   off = smin * ext255 + min            (fused)
 *   sc  = (sext * ext255) * inv_levels[w]
 *   x   = q * sc + off                   (fused)
 *
 * in this order and no other, so the builder measures the error of the
 * very values the sampler makes.
 */
#ifndef ANIMD_CLIP_CODEC_H
#define ANIMD_CLIP_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define CODEC_COMPONENTS 9
#define CODEC_SEGMENT 16
#define CODEC_MAX_BITS 24
#define CODEC_HEADER 17
/* Bytes the sampler may read past a segment's last frame (two 16-byte
 * loads from a frame's start): the data is padded with them. */
#define CODEC_PAD 32
/* Pool vectors every clip has: all 0, all 1. */
#define CODEC_ZEROS 0
#define CODEC_ONES 1

#define CODEC_ROTATION_BITS 0x38u       /* r.x, r.y, r.z of codec_block.animated */

enum codec_component { CODEC_TX, CODEC_TY, CODEC_TZ, CODEC_RX, CODEC_RY, CODEC_RZ,
		       CODEC_SX, CODEC_SY, CODEC_SZ };

struct codec_block {
	uint16_t animated;              /* bit c: component c is animated */
	uint16_t scaled;                /* 0: every scale is the pool's ones */
	/* When no rotation of the block moves, vec[CODEC_RX..RZ] hold r.x,
	 * r.y, r.z whole and this r.w; otherwise they hold the three
	 * components each segment keeps (see below). */
	uint32_t rot_w;
	/* Pool vector of component c: its value (constant) or its clip
	 * minimums (animated), whose extents / 255 follow it. */
	uint32_t vec[CODEC_COMPONENTS];
};

struct clip_packed {
	size_t bytes;                   /* the one allocation: this struct and
					   every array below, which follow it */
	uint32_t joints, blocks, frames, segments;
	float error;                    /* the worst error measured when built */
	float precision, shell_distance;        /* what it was built for */
	struct codec_block *block;      /* blocks */
	float *pool;                    /* 8-float vectors, 32-byte aligned */
	uint32_t *block_at;             /* segments x blocks: where each block's
					   bytes of each segment start in data */
	uint8_t *data;                  /* segments, then CODEC_PAD bytes */
};

/* The segment frame f is read from, and its place in it. */
static inline uint32_t codec_segment_of(const struct clip_packed *p, uint32_t f, uint32_t *i)
{
	uint32_t s = f / CODEC_SEGMENT;

	if (s >= p->segments)
		s = p->segments - 1;
	*i = f - s * CODEC_SEGMENT;
	return s;
}

/* 1 / (2^w - 1), 0 for w = 0. */
extern const float codec_inv_levels[CODEC_MAX_BITS + 1];

/* Lane l's quantised value in a frame's w bytes. */
static inline uint32_t codec_lane_bits(const uint8_t *frame, uint32_t w, uint32_t l)
{
	uint32_t bit = l * w, v = 0;

	if (w == 0)
		return 0;
	for (uint32_t k = 0; k < 4; k++)
		v |= (uint32_t)frame[(bit >> 3) + k] << (8 * k);
	return (v >> (bit & 7)) & (uint32_t)((1ull << w) - 1);
}

/* Decode one value, as the AVX2 kernel does (see the layout above). */
float codec_decode(float min, float ext255, uint8_t smin, uint8_t sext, uint32_t w, uint32_t q);

/* The left-out component from the three others, as the kernel does:
 * sqrt(max(1 - |abc|^2, 0)). */
float codec_recover_w(float x, float y, float z);
/* The rotation from the three stored components and the recovered one. */
static inline void codec_place(uint8_t drop, float c0, float c1, float c2, float rec, float q[4])
{
	q[0] = drop == 0 ? rec : c0;
	q[1] = drop == 0 ? c0 : drop == 1 ? rec : c1;
	q[2] = drop < 2 ? c1 : drop == 2 ? rec : c2;
	q[3] = drop == 3 ? rec : c2;
}

/* Frame i of a segment for block b's eight joints, lanes in x[0..7]
 * (padding lanes too), from the block's data in that segment (`data`,
 * n frames): the portable decoder, which the builder and CPUs without
 * AVX2 use.  Returns where the block's bytes end. */
struct transform;
const uint8_t *codec_decode_block(const struct clip_packed *p, uint32_t b, const uint8_t *data,
				  uint32_t n, uint32_t i, struct transform x[8]);
/* Frame f of packed frames, blended with frame f + 1 at frac when
 * `blend` (f + 1 < frames), into out (p->joints transforms): the sampler
 * of clip_sample_packed, for frames at any times (a key index's). */
void codec_sample_frames(const struct clip_packed *p, uint32_t f, int blend, float frac,
			 struct transform *out);

/* Compress `frames` frames of `joints` transforms (frame-major) against
 * the metric through parents (clip_compress); NULL on ENOMEM or when
 * there is nothing to do (no frames).  With `exact` (frames_count x
 * joints, or NULL), the metric compares with those poses, taking the
 * channels `fixed` marks (per joint, bit 0 t, 1 r, 2 s) from them as they
 * are: for frames whose channels sampling overwrites (a key index's
 * curves and searched tracks). */
struct clip_packed *codec_pack(const struct transform *frames, uint32_t frames_count,
			       uint32_t joints, const int32_t *parents,
			       const struct clip_codec_params *prm, const struct transform *exact,
			       const uint8_t *fixed, int *err);

/* Its bytes (0 for NULL). */
static inline size_t clip_packed_bytes_of(const struct clip_packed *p)
{
	return p != NULL ? p->bytes : 0;
}

/* Frames segment s holds. */
static inline uint32_t codec_segment_frames(const struct clip_packed *p, uint32_t s)
{
	uint32_t first = s * CODEC_SEGMENT, left = p->frames - 1 - first;

	return (left < CODEC_SEGMENT ? left : CODEC_SEGMENT) + 1;
}

#endif
