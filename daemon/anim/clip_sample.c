/*
 * clip_sample.c - the one sampler's entry point, and uniform frames (MD5);
 * keyed tracks are in clip_keyed.c.
 *
 * Uniform clips blend two whole frames at one fraction, so the slerp
 * polynomial is prepared once per call (quat_slerp_prepare) and every
 * joint costs one polynomial evaluation.  On x86-64 the blend runs four
 * joints at a time in SSE2 (part of the base ISA, so no -march is needed;
 * see blend_weights4), or eight at a time in AVX2 + FMA when
 * math3d_simd_level() says the CPU has them.  The portable path computes
 * the same formulas one joint at a time, and handles the last few joints.
 */
#include "daemon/anim/clip.h"
#include "daemon/anim/clip_sampler.h"

#include <string.h>

#include "daemon/anim/sse2.h"

_Static_assert(sizeof(struct transform) == 10 * sizeof(float), "transform is ten packed floats");

static inline void blend_one(const struct transform *a, const struct transform *b, float frac,
			     const struct quat_slerp_coef *k, struct transform *o)
{
	o->t = vec3_lerp(a->t, b->t, frac);
	o->r = quat_slerp_apply(k, a->r, b->r);
	o->s = vec3_lerp(a->s, b->s, frac);
}

#if defined(__SSE2__)
/*
 * The SSE2 blend works on chunks of joints in two passes, so that each
 * loop body is short and independent of the previous iteration and the
 * processor overlaps many of them (one fused pass is a single ~100-cycle
 * dependency chain per four joints).
 *
 * Pass 1, four joints at a time, in "one lane per joint" form: the dot
 * products (four horizontal sums at once), the shortest-path sign, the
 * series weights w0, w1, and the normalisation folded into them.  Frames
 * hold unit quaternions (every loader normalises), so
 * |w0 a + w1 b|^2 = w0^2 + w1^2 + 2 w0 w1 |a.b| without touching the
 * result.  Pass 2: translation and scale lerped as a flat float array
 * (four transforms are exactly ten registers), then each rotation is
 * W0 a + W1 b with its lane of the weights broadcast.
 */
#define BLEND_CHUNK 64

/* Lane i of v in every lane (pshufd: one instruction, source kept). */
#define LANE(v, i) _mm_castsi128_ps(_mm_shuffle_epi32(_mm_castps_si128(v), (i) * 0x55))
/* Horner step; the loops are written out because -O2 does not unroll. */
#define HORNER(w, y, k, i) ((w) = _mm_add_ps(_mm_mul_ps((w), (y)), (k)[i]))

static inline void blend_weights4(const struct transform *a, const struct transform *b,
				  const __m128 *k0, const __m128 *k1, __m128 *W0, __m128 *W1)
{
	const __m128 one = _mm_set1_ps(1.0f);
	const __m128 half = _mm_set1_ps(0.5f);
	const __m128 signbit = _mm_set1_ps(-0.0f);
	__m128 dot = sse2_rotation_dots4(a, b);
	__m128 sign = _mm_and_ps(dot, signbit);
	__m128 x = _mm_min_ps(_mm_andnot_ps(signbit, dot), one);
	__m128 y = _mm_sub_ps(_mm_sqrt_ps(_mm_add_ps(_mm_mul_ps(x, half), half)), one);
	__m128 w0 = k0[5], w1 = k1[5], n2, inv;

	_Static_assert(QUAT_SLERP_DEGREE == 5, "five Horner steps below");
	HORNER(w0, y, k0, 4);
	HORNER(w1, y, k1, 4);
	HORNER(w0, y, k0, 3);
	HORNER(w1, y, k1, 3);
	HORNER(w0, y, k0, 2);
	HORNER(w1, y, k1, 2);
	HORNER(w0, y, k0, 1);
	HORNER(w1, y, k1, 1);
	HORNER(w0, y, k0, 0);
	HORNER(w1, y, k1, 0);
	/* |w0 a + w1 b|^2 = w0^2 + w1 (w1 + 2 w0 x) for unit a, b. */
	n2 = _mm_add_ps(_mm_mul_ps(w0, w0),
			_mm_mul_ps(w1, _mm_add_ps(w1, _mm_mul_ps(_mm_add_ps(w0, w0), x))));
	n2 = _mm_max_ps(n2, _mm_set1_ps(1e-30f));
	inv = _mm_div_ps(one, _mm_sqrt_ps(n2));
	*W0 = _mm_mul_ps(w0, inv);
	*W1 = _mm_xor_ps(_mm_mul_ps(w1, inv), sign);    /* shortest path: b -> -b */
}

#define LERP4(v) _mm_storeu_ps(fo + 4 * (v), \
	_mm_add_ps(_mm_loadu_ps(fa + 4 * (v)), \
		   _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(fb + 4 * (v)), _mm_loadu_ps(fa + 4 * (v))), frac)))
#define ROT(i) _mm_storeu_ps(&o[i].r.x, \
	_mm_add_ps(_mm_mul_ps(LANE(W0, i), _mm_loadu_ps(&a[i].r.x)), \
		   _mm_mul_ps(LANE(W1, i), _mm_loadu_ps(&b[i].r.x))))

static inline void blend_apply4(const struct transform *a, const struct transform *b,
				__m128 frac, __m128 W0, __m128 W1, struct transform *o)
{
	const float *fa = (const float *)a, *fb = (const float *)b;
	float *fo = (float *)o;

	/* Translation and scale: all 40 floats; rotations overwritten next. */
	LERP4(0);
	LERP4(1);
	LERP4(2);
	LERP4(3);
	LERP4(4);
	LERP4(5);
	LERP4(6);
	LERP4(7);
	LERP4(8);
	LERP4(9);
	ROT(0);
	ROT(1);
	ROT(2);
	ROT(3);
}
#endif

#if defined(MATH3D_AVX2_DISPATCH)
/*
 * The same two passes in AVX2 + FMA, eight joints at a time: the weights
 * with one joint per lane of a 256-bit register (each 128-bit half sums
 * four dot products as above), the lerp over 80 floats in ten registers,
 * and each rotation with its weights broadcast straight from memory.
 */
#include "daemon/anim/avx2.h"

static inline AVX2_FMA void blend_weights8(const struct transform *a, const struct transform *b,
					   const __m256 *k0, const __m256 *k1, float *W0, float *W1)
{
	__m256 w0, w1;

	avx2_slerp_weights8(avx2_rotation_dots8(a, b), k0, k1, &w0, &w1);
	_mm256_storeu_ps(W0, w0);
	_mm256_storeu_ps(W1, w1);
}

#define LERP8(v) _mm256_storeu_ps(fo + 8 * (v), _mm256_fmadd_ps( \
	_mm256_sub_ps(_mm256_loadu_ps(fb + 8 * (v)), _mm256_loadu_ps(fa + 8 * (v))), frac, \
	_mm256_loadu_ps(fa + 8 * (v))))
#define ROT8(i) _mm_storeu_ps(&o[i].r.x, _mm_fmadd_ps(_mm_broadcast_ss(&W0[i]), \
	_mm_loadu_ps(&a[i].r.x), _mm_mul_ps(_mm_broadcast_ss(&W1[i]), _mm_loadu_ps(&b[i].r.x))))

static inline AVX2_FMA void blend_apply8(const struct transform *a, const struct transform *b,
					 __m256 frac, const float *W0, const float *W1,
					 struct transform *o)
{
	const float *fa = (const float *)a, *fb = (const float *)b;
	float *fo = (float *)o;

	LERP8(0);
	LERP8(1);
	LERP8(2);
	LERP8(3);
	LERP8(4);
	LERP8(5);
	LERP8(6);
	LERP8(7);
	LERP8(8);
	LERP8(9);
	ROT8(0);
	ROT8(1);
	ROT8(2);
	ROT8(3);
	ROT8(4);
	ROT8(5);
	ROT8(6);
	ROT8(7);
}

/* Blends the first n & ~7 joints; returns how many. */
static AVX2_FMA uint32_t blend_rows_avx2(const struct transform *a, const struct transform *b,
					 uint32_t n, float frac, const struct quat_slerp_coef *k,
					 struct transform *out)
{
	__m256 k0[QUAT_SLERP_DEGREE + 1], k1[QUAT_SLERP_DEGREE + 1];
	float w0[BLEND_CHUNK], w1[BLEND_CHUNK];
	__m256 f = _mm256_set1_ps(frac);
	uint32_t j = 0;

	for (int i = 0; i <= QUAT_SLERP_DEGREE; i++) {
		k0[i] = _mm256_set1_ps(k->k0[i]);
		k1[i] = _mm256_set1_ps(k->k1[i]);
	}
	while (n - j >= 8) {
		uint32_t m = n - j < BLEND_CHUNK ? (n - j) & ~7u : BLEND_CHUNK;

		for (uint32_t i = 0; i < m; i += 8)
			blend_weights8(a + j + i, b + j + i, k0, k1, w0 + i, w1 + i);
		for (uint32_t i = 0; i < m; i += 8)
			blend_apply8(a + j + i, b + j + i, f, w0 + i, w1 + i, out + j + i);
		j += m;
	}
	return j;
}
#endif

void clip_blend_frames(const struct transform *a, const struct transform *b, uint32_t n,
		       float frac, struct transform *out)
{
	struct quat_slerp_coef k;
	uint32_t j = 0;

	quat_slerp_prepare(&k, frac);
#if defined(MATH3D_AVX2_DISPATCH)
	if (math3d_simd_level() == MATH3D_SIMD_AVX2)
		j = blend_rows_avx2(a, b, n, frac, &k, out);
#endif
#if defined(__SSE2__)
	if (n - j >= 4) {
		__m128 k0[QUAT_SLERP_DEGREE + 1], k1[QUAT_SLERP_DEGREE + 1];
		__m128 w[2 * BLEND_CHUNK / 4];
		__m128 f = _mm_set1_ps(frac);

		for (int i = 0; i <= QUAT_SLERP_DEGREE; i++) {
			k0[i] = _mm_set1_ps(k.k0[i]);
			k1[i] = _mm_set1_ps(k.k1[i]);
		}
		while (n - j >= 4) {
			uint32_t m = n - j < BLEND_CHUNK ? (n - j) & ~3u : BLEND_CHUNK;

			for (uint32_t i = 0; i < m; i += 4)
				blend_weights4(a + j + i, b + j + i, k0, k1, &w[i / 2], &w[i / 2 + 1]);
			for (uint32_t i = 0; i < m; i += 4)
				blend_apply4(a + j + i, b + j + i, f, w[i / 2], w[i / 2 + 1], out + j + i);
			j += m;
		}
	}
#endif
	for (; j < n; j++)
		blend_one(a + j, b + j, frac, &k, out + j);
}

static void sample_uniform(const struct clip *c, int64_t t_ns, struct transform *out)
{
	uint32_t n = c->joint_count;
	const struct transform *a;
	uint64_t f;
	float frac;

	if (c->frame_count == 0) {
		for (uint32_t j = 0; j < n; j++)
			out[j] = transform_identity();
		return;
	}
	if (t_ns > c->duration_ns)
		t_ns = c->duration_ns;
	f = clip_frame_at(t_ns, c->frame_rate, &frac);
	if (f >= (uint64_t)c->frame_count - 1) {
		/* At or past the last frame: hold it. */
		memcpy(out, c->frames + (size_t)(c->frame_count - 1) * n, (size_t)n * sizeof *out);
		return;
	}
	a = c->frames + (size_t)f * n;
	clip_blend_frames(a, a + n, n, frac, out);
}

void clip_sample_at(const struct clip *c, int64_t t_ns, int64_t g_ns, struct transform *out)
{
	if (c->packed) {
		clip_sample_packed(c, t_ns, out);
	} else if (c->frames) {
		sample_uniform(c, t_ns, out);
	} else if (c->tracks) {
		clip_sample_keyed(c, t_ns, g_ns, out);
	} else {
		for (uint32_t j = 0; j < c->joint_count; j++)
			out[j] = c->rest ? c->rest[j] : transform_identity();
	}
}

void clip_sample(const struct clip *c, int64_t t_ns, struct transform *out)
{
	clip_sample_at(c, t_ns, t_ns, out);
}
