/*
 * clip_unpack.c - sampling a compressed uniform clip (clip_codec.h).
 *
 * No state and no decoded cache: a sample finds the segment of its two
 * frames (one division), then per block of eight joints decodes each
 * animated component of both frames straight into AVX2 registers (two
 * 16-byte loads, a byte shuffle, a variable shift, a mask, a conversion
 * and a fused multiply-add, the shuffle and shifts from a table by the
 * component's width), recovers r.w, blends as the raw sampler does and
 * stores transforms or, for clip_sample_matrices, local matrices.  Random
 * access costs what playback costs.  A clip of any joint count runs whole
 * blocks: the last block's padding lanes are computed and not stored, so
 * no joint goes one at a time (a 15-joint rig costs what a 16-joint one
 * does).
 *
 * Both AVX2 outputs compute each value with the same operations in the
 * same order, and the matrices are avx2.h's kernel, which
 * pose_local_matrices runs too: clip_sample_matrices gives the bits of
 * clip_sample_at followed by pose_local_matrices.  CPUs without AVX2
 * decode each block with the portable decoder and blend with
 * clip_blend_frames.
 */
#include "daemon/anim/clip.h"
#include "daemon/anim/clip_codec.h"
#include "daemon/anim/clip_sampler.h"
#include "daemon/anim/pose.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

const float codec_inv_levels[CODEC_MAX_BITS + 1] = {
	0.0f, 1.0f / 1, 1.0f / 3, 1.0f / 7, 1.0f / 15, 1.0f / 31, 1.0f / 63, 1.0f / 127,
	1.0f / 255, 1.0f / 511, 1.0f / 1023, 1.0f / 2047, 1.0f / 4095, 1.0f / 8191,
	1.0f / 16383, 1.0f / 32767, 1.0f / 65535, 1.0f / 131071, 1.0f / 262143,
	1.0f / 524287, 1.0f / 1048575, 1.0f / 2097151, 1.0f / 4194303, 1.0f / 8388607,
	1.0f / 16777215,
};

float codec_decode(float min, float ext255, uint8_t smin, uint8_t sext, uint32_t w, uint32_t q)
{
	float off = fmaf((float)smin, ext255, min);
	float sc = ((float)sext * ext255) * codec_inv_levels[w];

	return fmaf((float)q, sc, off);
}

float codec_recover_w(float x, float y, float z)
{
	float s = fmaf(z, z, fmaf(y, y, x * x));

	return sqrtf(fmaxf(1.0f - s, 0.0f));
}

const uint8_t *codec_decode_block(const struct clip_packed *p, uint32_t b, const uint8_t *data,
				  uint32_t n, uint32_t i, struct transform x[8])
{
	const struct codec_block *bl = &p->block[b];
	float v[CODEC_COMPONENTS][8];
	uint8_t drop[8];
	int rot = (bl->animated & CODEC_ROTATION_BITS) != 0;
	const uint8_t *h, *d;

	if (rot) {
		uint32_t bits = data[0] | (uint32_t)data[1] << 8;

		for (uint32_t l = 0; l < 8; l++)
			drop[l] = (bits >> (2 * l)) & 3;
		data += 2;
	}
	h = data;
	d = h + (size_t)__builtin_popcount(bl->animated) * CODEC_HEADER;
	for (uint32_t c = 0; c < CODEC_COMPONENTS; c++) {
		const float *vec = p->pool + 8 * (size_t)bl->vec[c];

		if (!(bl->animated & (1u << c))) {
			memcpy(v[c], vec, sizeof v[c]);
			continue;
		}
		{
			uint32_t w = h[0];
			const uint8_t *frame = d + (size_t)i * w;

			for (uint32_t l = 0; l < 8; l++)
				v[c][l] = codec_decode(vec[l], vec[8 + l], h[1 + l], h[9 + l], w,
						       codec_lane_bits(frame, w, l));
			h += CODEC_HEADER;
			d += (size_t)n * w;
		}
	}
	for (uint32_t l = 0; l < 8; l++) {
		float q[4] = { v[CODEC_RX][l], v[CODEC_RY][l], v[CODEC_RZ][l],
			       p->pool[8 * (size_t)bl->rot_w + l] };

		if (rot)
			codec_place(drop[l], v[CODEC_RX][l], v[CODEC_RY][l], v[CODEC_RZ][l],
				    codec_recover_w(v[CODEC_RX][l], v[CODEC_RY][l], v[CODEC_RZ][l]), q);
		x[l].t = vec3_make(v[CODEC_TX][l], v[CODEC_TY][l], v[CODEC_TZ][l]);
		x[l].r = quat_make(q[0], q[1], q[2], q[3]);
		x[l].s = vec3_make(v[CODEC_SX][l], v[CODEC_SY][l], v[CODEC_SZ][l]);
	}
	return d;
}

/* The frame pair (or held frame) of clip time t: returns the first frame
 * and sets *blend (0: frame f alone) and *frac. */
static uint32_t packed_frame_at(const struct clip *c, int64_t t_ns, int *blend, float *frac)
{
	uint64_t f = clip_frame_at(t_ns > c->duration_ns ? c->duration_ns : t_ns, c->frame_rate, frac);

	if (f >= (uint64_t)c->frame_count - 1) {
		*blend = 0;
		return c->frame_count - 1;
	}
	*blend = 1;
	return (uint32_t)f;
}

/* The portable sampler: each block decoded as transforms, then blended
 * (or copied) as raw frames are. */
static void sample_packed_portable(const struct clip_packed *p, uint32_t f, int blend, float frac,
				   struct transform *out)
{
	uint32_t i, s = codec_segment_of(p, f, &i), n = codec_segment_frames(p, s);
	const uint32_t *at = p->block_at + (size_t)s * p->blocks;

	for (uint32_t b = 0; b < p->blocks; b++) {
		struct transform ta[8], tb[8];
		uint32_t j = 8 * b, m = p->joints - j < 8 ? p->joints - j : 8;

		codec_decode_block(p, b, p->data + at[b], n, i, ta);
		if (blend) {
			codec_decode_block(p, b, p->data + at[b], n, i + 1, tb);
			clip_blend_frames(ta, tb, m, frac, out + j);
		} else {
			memcpy(out + j, ta, m * sizeof *out);
		}
	}
}

#if defined(MATH3D_AVX2_DISPATCH)
#include "daemon/anim/avx2.h"

/* Per width w: the byte shuffle that brings each lane's four bytes into
 * its dword (lanes 0-3 from the frame's start, lanes 4-7 from HI_BYTE(w)
 * on), the shift that then aligns its value, and its mask. */
#define HI_BYTE(w) ((4 * (w)) >> 3)
#define BIT(w, l) ((l) * (w) - ((l) >= 4 ? 8 * HI_BYTE(w) : 0))
#define CTRL_LANE(w, l) (BIT(w, l) >> 3), (BIT(w, l) >> 3) + 1, (BIT(w, l) >> 3) + 2, (BIT(w, l) >> 3) + 3
#define CTRL(w) { CTRL_LANE(w, 0), CTRL_LANE(w, 1), CTRL_LANE(w, 2), CTRL_LANE(w, 3), \
		  CTRL_LANE(w, 4), CTRL_LANE(w, 5), CTRL_LANE(w, 6), CTRL_LANE(w, 7) }
#define SHIFT(w) { BIT(w, 0) & 7, BIT(w, 1) & 7, BIT(w, 2) & 7, BIT(w, 3) & 7, \
		   BIT(w, 4) & 7, BIT(w, 5) & 7, BIT(w, 6) & 7, BIT(w, 7) & 7 }
#define MASK(w) { (1u << (w)) - 1, (1u << (w)) - 1, (1u << (w)) - 1, (1u << (w)) - 1, \
		  (1u << (w)) - 1, (1u << (w)) - 1, (1u << (w)) - 1, (1u << (w)) - 1 }
#define ALL_WIDTHS(X) X(0), X(1), X(2), X(3), X(4), X(5), X(6), X(7), X(8), X(9), X(10), X(11), \
	X(12), X(13), X(14), X(15), X(16), X(17), X(18), X(19), X(20), X(21), X(22), X(23), X(24)
_Static_assert(CODEC_MAX_BITS == 24, "ALL_WIDTHS lists 0..24");

/* Everything the kernel needs of a width, in one 128-byte entry. */
struct packed_width {
	uint8_t ctrl[32];
	uint32_t shift[8];
	uint32_t mask[8];
	uint32_t hi_byte;
	float inv_levels;
	uint32_t spare[6];
};

#define WIDTH(w) { CTRL(w), SHIFT(w), MASK(w), HI_BYTE(w), 0.0f, { 0 } }
static struct packed_width packed_width[CODEC_MAX_BITS + 1] __attribute__((aligned(64))) = {
	ALL_WIDTHS(WIDTH)
};
static pthread_once_t packed_width_once = PTHREAD_ONCE_INIT;

/* inv_levels from codec_inv_levels, the one definition of the values. */
static void packed_width_init(void)
{
	for (uint32_t w = 0; w <= CODEC_MAX_BITS; w++)
		packed_width[w].inv_levels = codec_inv_levels[w];
}

/* Eight lanes of one component of one frame (w bytes at `frame`). */
static inline AVX2_FMA __m256 decode8(const uint8_t *frame, const struct packed_width *pw, __m256 off,
				      __m256 sc)
{
	__m128i lo = _mm_loadu_si128((const __m128i *)(const void *)frame);
	__m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(frame + pw->hi_byte));
	__m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);

	v = _mm256_shuffle_epi8(v, _mm256_load_si256((const __m256i *)(const void *)pw->ctrl));
	v = _mm256_srlv_epi32(v, _mm256_load_si256((const __m256i *)(const void *)pw->shift));
	v = _mm256_and_si256(v, _mm256_load_si256((const __m256i *)(const void *)pw->mask));
	return _mm256_fmadd_ps(_mm256_cvtepi32_ps(v), sc, off);
}

static inline AVX2_FMA __m256 u8x8(const uint8_t *p)
{
	return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)));
}

static inline AVX2_FMA __m256 recover_w8(__m256 x, __m256 y, __m256 z)
{
	__m256 s = _mm256_fmadd_ps(z, z, _mm256_fmadd_ps(y, y, _mm256_mul_ps(x, x)));

	return _mm256_sqrt_ps(_mm256_max_ps(_mm256_sub_ps(_mm256_set1_ps(1.0f), s), _mm256_setzero_ps()));
}

/* Rows 3-5 hold the three stored rotation components: rows 3-6 become
 * x, y, z, w with the recovered one in its place (codec_place). */
static inline AVX2_FMA void place8(__m256 v[10], __m256 m0, __m256 m1, __m256 m2, __m256 m3,
				   __m256 lt2)
{
	__m256 c0 = v[3], c1 = v[4], c2 = v[5], rec = recover_w8(c0, c1, c2);

	v[3] = _mm256_blendv_ps(c0, rec, m0);
	v[4] = _mm256_blendv_ps(_mm256_blendv_ps(c1, rec, m1), c0, m0);
	v[5] = _mm256_blendv_ps(_mm256_blendv_ps(c2, rec, m2), c1, lt2);
	v[6] = _mm256_blendv_ps(c2, rec, m3);
}

/* Row of component c (r.w sits between r.z and s.x). */
#define ROW_OF(c) ((c) < CODEC_SX ? (c) : (c) + 1)

/*
 * The animated components of a block's joints in frames i and i + 1 of a
 * segment (b only with `both`) into their rows of a and b, and, when its
 * rotations move, the four rows of the rotation; rows of components that
 * never move are left alone (finish8 reads the pool).  Returns where the
 * next block's data starts.
 */
static inline __attribute__((always_inline)) AVX2_FMA const uint8_t *
decode_block8(const struct clip_packed *p, const struct codec_block *bl, uint32_t anim,
	      const uint8_t *data, uint32_t n, uint32_t i, int both, __m256 a[10], __m256 b[10])
{
	const uint8_t *h, *dt;
	uint32_t drops = 0;
	__m256i d = _mm256_setzero_si256();

	if (anim & CODEC_ROTATION_BITS) {
		drops = data[0] | (uint32_t)data[1] << 8;
		d = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)drops),
						       _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14)),
				     _mm256_set1_epi32(3));
		data += 2;
	}
	h = data;
	dt = h + (size_t)__builtin_popcount(anim) * CODEC_HEADER;
#pragma GCC unroll 9
	for (uint32_t c = 0; c < CODEC_COMPONENTS; c++) {
		const float *vec = p->pool + 8 * (size_t)bl->vec[c];

		if (anim & (1u << c)) {
			uint32_t w = h[0];
			const struct packed_width *pw = &packed_width[w];
			__m256 e255 = _mm256_load_ps(vec + 8);
			__m256 off = _mm256_fmadd_ps(u8x8(h + 1), e255, _mm256_load_ps(vec));
			__m256 sc = _mm256_mul_ps(_mm256_mul_ps(u8x8(h + 9), e255),
						  _mm256_broadcast_ss(&pw->inv_levels));
			const uint8_t *frame = dt + (size_t)i * w;

			a[ROW_OF(c)] = decode8(frame, pw, off, sc);
			if (both)
				b[ROW_OF(c)] = decode8(frame + w, pw, off, sc);
			h += CODEC_HEADER;
			dt += (size_t)n * w;
		} else if (c >= CODEC_RX && c <= CODEC_RZ && (anim & CODEC_ROTATION_BITS)) {
			/* A kept rotation component no lane moves. */
			a[ROW_OF(c)] = b[ROW_OF(c)] = _mm256_load_ps(vec);
		}
	}
	if ((anim & CODEC_ROTATION_BITS) && drops == 0xffff) {
		/* Every lane left w out (small rotations, the usual case):
		 * rows 3-5 are x, y, z already. */
		a[6] = recover_w8(a[3], a[4], a[5]);
		if (both)
			b[6] = recover_w8(b[3], b[4], b[5]);
	} else if (anim & CODEC_ROTATION_BITS) {
		__m256 m0 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_setzero_si256()));
		__m256 m1 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(1)));
		__m256 m2 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(2)));
		__m256 m3 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(3)));
		__m256 lt2 = _mm256_or_ps(m0, m1);

		place8(a, m0, m1, m2, m3, lt2);
		if (both)
			place8(b, m0, m1, m2, m3, lt2);
	}
	return dt;
}

/*
 * A block's pose rows: components that move blended (lerps for t and s,
 * the rotations with their slerp weights W0, W1) or, without `blend`,
 * frame a's; those that never move straight from the pool (a lerp of a
 * value with itself would give it back anyway).
 */
static inline __attribute__((always_inline)) AVX2_FMA void
finish8(const struct clip_packed *p, const struct codec_block *bl, uint32_t anim, const __m256 a[10],
	const __m256 b[10], int blend, __m256 fr, __m256 W0, __m256 W1, __m256 o[10])
{

#pragma GCC unroll 9
	for (uint32_t c = 0; c < CODEC_COMPONENTS; c++) {
		uint32_t r = ROW_OF(c);

		if (c >= CODEC_RX && c <= CODEC_RZ && (anim & CODEC_ROTATION_BITS))
			continue;
		if (anim & (1u << c))
			o[r] = blend ? _mm256_fmadd_ps(_mm256_sub_ps(b[r], a[r]), fr, a[r]) : a[r];
		else
			o[r] = _mm256_load_ps(p->pool + 8 * (size_t)bl->vec[c]);
	}
	if (!(anim & CODEC_ROTATION_BITS)) {
		o[6] = _mm256_load_ps(p->pool + 8 * (size_t)bl->rot_w);
	} else if (blend) {
		for (int r = 3; r < 7; r++)
			o[r] = _mm256_fmadd_ps(W0, a[r], _mm256_mul_ps(W1, b[r]));
	} else {
		for (int r = 3; r < 7; r++)
			o[r] = a[r];
	}
}

/* Ten rows (joint l in lane l) as eight transforms. */
static inline AVX2_FMA void store_transforms8(const __m256 v[10], struct transform *out)
{
	__m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]);
	__m256 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
	__m256 t4 = _mm256_unpacklo_ps(v[4], v[5]), t5 = _mm256_unpackhi_ps(v[4], v[5]);
	__m256 t6 = _mm256_unpacklo_ps(v[6], v[7]), t7 = _mm256_unpackhi_ps(v[6], v[7]);
	__m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
	__m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
	__m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
	__m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
	__m256 p = _mm256_unpacklo_ps(v[8], v[9]), q = _mm256_unpackhi_ps(v[8], v[9]);
	__m128 plo = _mm256_castps256_ps128(p), phi = _mm256_extractf128_ps(p, 1);
	__m128 qlo = _mm256_castps256_ps128(q), qhi = _mm256_extractf128_ps(q, 1);

	_mm256_storeu_ps(&out[0].t.x, _mm256_permute2f128_ps(u0, u4, 0x20));
	_mm256_storeu_ps(&out[1].t.x, _mm256_permute2f128_ps(u1, u5, 0x20));
	_mm256_storeu_ps(&out[2].t.x, _mm256_permute2f128_ps(u2, u6, 0x20));
	_mm256_storeu_ps(&out[3].t.x, _mm256_permute2f128_ps(u3, u7, 0x20));
	_mm256_storeu_ps(&out[4].t.x, _mm256_permute2f128_ps(u0, u4, 0x31));
	_mm256_storeu_ps(&out[5].t.x, _mm256_permute2f128_ps(u1, u5, 0x31));
	_mm256_storeu_ps(&out[6].t.x, _mm256_permute2f128_ps(u2, u6, 0x31));
	_mm256_storeu_ps(&out[7].t.x, _mm256_permute2f128_ps(u3, u7, 0x31));
	_mm_storel_pi((__m64 *)(void *)&out[0].s.y, plo);
	_mm_storeh_pi((__m64 *)(void *)&out[1].s.y, plo);
	_mm_storel_pi((__m64 *)(void *)&out[2].s.y, qlo);
	_mm_storeh_pi((__m64 *)(void *)&out[3].s.y, qlo);
	_mm_storel_pi((__m64 *)(void *)&out[4].s.y, phi);
	_mm_storeh_pi((__m64 *)(void *)&out[5].s.y, phi);
	_mm_storel_pi((__m64 *)(void *)&out[6].s.y, qhi);
	_mm_storeh_pi((__m64 *)(void *)&out[7].s.y, qhi);
}

/* X(t) for every set t of translation components (bits 0-2): the blocks
 * whose rotations move, with those translations, and no scale. */
#define ROT_AND_T_CASES(X) X(0u) X(1u) X(2u) X(3u) X(4u) X(5u) X(6u) X(7u)

/* Blocks a pass covers: their decoded rows stay in L1 (5 KiB). */
#define PASS_BLOCKS 8

/*
 * The whole pose at frame f (blended with f + 1 at frac when `blend`), as
 * transforms into `pose`, or, with `mats`, as local matrices into `mats`.
 * In passes over up to PASS_BLOCKS blocks, each a loop whose bodies are
 * independent, so that the processor overlaps their long chains (two
 * square roots and a division from the bits to a block's weights): the
 * decode, the slerp weights, then the blend and the stores.  The last
 * block's padding lanes go to a scratch block and are dropped.
 */
static AVX2_FMA void sample_packed_avx2(const struct clip_packed *p, uint32_t f, int blend,
					float frac, struct transform *pose, mat34 *mats)
{
	uint32_t i, s = codec_segment_of(p, f, &i), n = codec_segment_frames(p, s);
	const uint32_t *at = p->block_at + (size_t)s * p->blocks;
	__m256 k0[QUAT_SLERP_DEGREE + 1], k1[QUAT_SLERP_DEGREE + 1];
	__m256 va[PASS_BLOCKS][10], vb[PASS_BLOCKS][10], W0[PASS_BLOCKS], W1[PASS_BLOCKS];
	__m256 fr = _mm256_set1_ps(frac);
	struct quat_slerp_coef k;

	if (blend) {
		quat_slerp_prepare(&k, frac);
		for (int d = 0; d <= QUAT_SLERP_DEGREE; d++) {
			k0[d] = _mm256_set1_ps(k.k0[d]);
			k1[d] = _mm256_set1_ps(k.k1[d]);
		}
	}
	for (uint32_t b0 = 0; b0 < p->blocks; b0 += PASS_BLOCKS) {
		const struct codec_block *bl = p->block + b0;
		uint32_t m = p->blocks - b0 < PASS_BLOCKS ? p->blocks - b0 : PASS_BLOCKS;

		/* Blocks whose rotations move with any of their translations
		 * and no scale (nearly every block of a rig) through code made
		 * for each such set: its branches and counts are constants. */
		if (blend)
			for (uint32_t g = 0; g < m; g++) {
				const uint8_t *d = p->data + at[b0 + g];

				switch (bl[g].animated) {
#define DECODE_CASE(t)                                                                              \
				case CODEC_ROTATION_BITS | (t):                                            \
					decode_block8(p, &bl[g], CODEC_ROTATION_BITS | (t), d, n, i, 1, va[g],  \
						      vb[g]);                                              \
					break;
				ROT_AND_T_CASES(DECODE_CASE)
#undef DECODE_CASE
				default:
					decode_block8(p, &bl[g], bl[g].animated, d, n, i, 1, va[g], vb[g]);
				}
			}
		else
			for (uint32_t g = 0; g < m; g++)
				decode_block8(p, &bl[g], bl[g].animated, p->data + at[b0 + g], n, i, 0,
					      va[g], vb[g]);
		if (blend)
			for (uint32_t g = 0; g < m; g++) {
				const __m256 *a = va[g], *b = vb[g];
				__m256 dot;

				if (!(bl[g].animated & CODEC_ROTATION_BITS))
					continue;
				dot = _mm256_add_ps(
					_mm256_add_ps(_mm256_mul_ps(a[3], b[3]), _mm256_mul_ps(a[5], b[5])),
					_mm256_add_ps(_mm256_mul_ps(a[4], b[4]), _mm256_mul_ps(a[6], b[6])));
				avx2_slerp_weights8(dot, k0, k1, &W0[g], &W1[g]);
			}
		for (uint32_t g = 0; g < m; g++) {
			uint32_t j = 8 * (b0 + g), left = p->joints - j;
			__m256 o[10];

			switch (blend ? bl[g].animated : 0) {
#define FINISH_CASE(t)                                                                              \
			case CODEC_ROTATION_BITS | (t):                                                    \
				finish8(p, &bl[g], CODEC_ROTATION_BITS | (t), va[g], vb[g], 1, fr, W0[g],      \
					W1[g], o);                                                         \
				break;
			ROT_AND_T_CASES(FINISH_CASE)
#undef FINISH_CASE
			default:
				finish8(p, &bl[g], bl[g].animated, va[g], vb[g], blend, fr, W0[g], W1[g],
					o);
			}
			if (mats != NULL) {
				mat34 tmp[8];
				mat34 *dst = left >= 8 ? mats + j : tmp;

				avx2_local_matrices8_store(o[3], o[4], o[5], o[6], bl[g].scaled, o[7], o[8],
							   o[9], o[0], o[1], o[2], dst);
				if (left < 8)
					memcpy(mats + j, tmp, left * sizeof *tmp);
			} else {
				struct transform tmp[8];
				struct transform *dst = left >= 8 ? pose + j : tmp;

				store_transforms8(o, dst);
				if (left < 8)
					memcpy(pose + j, tmp, left * sizeof *tmp);
			}
		}
	}
}

static int packed_avx2(void)
{
	if (math3d_simd_level() != MATH3D_SIMD_AVX2)
		return 0;
	pthread_once(&packed_width_once, packed_width_init);
	return 1;
}
#endif

void clip_sample_packed(const struct clip *c, int64_t t_ns, struct transform *out)
{
	int blend;
	float frac;
	uint32_t f = packed_frame_at(c, t_ns, &blend, &frac);

#if defined(MATH3D_AVX2_DISPATCH)
	if (packed_avx2()) {
		sample_packed_avx2(c->packed, f, blend, frac, out, NULL);
		return;
	}
#endif
	sample_packed_portable(c->packed, f, blend, frac, out);
}

void codec_sample_frames(const struct clip_packed *p, uint32_t f, int blend, float frac,
			 struct transform *out)
{
#if defined(MATH3D_AVX2_DISPATCH)
	if (packed_avx2()) {
		sample_packed_avx2(p, f, blend, frac, out, NULL);
		return;
	}
#endif
	sample_packed_portable(p, f, blend, frac, out);
}

int clip_packed_matrices(const struct clip *c, int64_t t_ns, mat34 *out)
{
#if defined(MATH3D_AVX2_DISPATCH)
	int blend;
	float frac;
	uint32_t f = packed_frame_at(c, t_ns, &blend, &frac);

	if (packed_avx2()) {
		sample_packed_avx2(c->packed, f, blend, frac, NULL, out);
		return 1;
	}
#endif
	return 0;
}
