/*
 * clip_key_sample.c - sampling a keyed clip through its key index
 * (clip_key_index.h): one search of the shared times, the frames blended,
 * then the curves and the tracks that are searched alone.
 */
#include "daemon/anim/clip_key_index.h"
#include "daemon/anim/clip_codec.h"

#include <math.h>
#include <string.h>

#include "daemon/anim/clip_sampler.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Bernstein weights of the cubic at u; exactly (1, 0, 0, 0) at u = 0. */
static inline void bernstein(float u, float w[4])
{
	float v = 1.0f - u;

	w[0] = v * v * v;
	w[1] = 3.0f * v * v * u;
	w[2] = 3.0f * v * u * u;
	w[3] = u * u * u;
}

#if defined(__SSE2__)
/* w . (cp[0 .. 4), cp[stride ..), ...): one control point per register (a
 * vec3's fourth lane is the next float, never stored). */
static inline __m128 weigh(const float w[4], const float *cp, int stride)
{
	return _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(w[0]), _mm_loadu_ps(cp)),
				     _mm_mul_ps(_mm_set1_ps(w[1]), _mm_loadu_ps(cp + stride))),
			  _mm_add_ps(_mm_mul_ps(_mm_set1_ps(w[2]), _mm_loadu_ps(cp + 2 * stride)),
				     _mm_mul_ps(_mm_set1_ps(w[3]), _mm_loadu_ps(cp + 3 * stride))));
}

static inline void curve3(const float w[4], const float *cp, float *o)
{
	__m128 r = weigh(w, cp, 3);

	_mm_storel_pi((__m64 *)o, r);
	_mm_store_ss(o + 2, _mm_movehl_ps(r, r));
}

/* Normalised as quat_normalize does: what cannot be a rotation (also NaN)
 * becomes the identity. */
static inline void curve4(const float w[4], const float *cp, float *o)
{
	__m128 r = weigh(w, cp, 4), sq = _mm_mul_ps(r, r);
	float n2;

	sq = _mm_add_ps(sq, _mm_movehl_ps(sq, sq));
	sq = _mm_add_ss(sq, _mm_shuffle_ps(sq, sq, 1));
	n2 = _mm_cvtss_f32(sq);
	if (n2 > 1e-30f && n2 < 1e30f)
		r = _mm_mul_ps(r, _mm_set1_ps(1.0f / sqrtf(n2)));
	else
		r = _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f);
	_mm_storeu_ps(o, r);
}
#else
static inline void curve3(const float w[4], const float *cp, float *o)
{
	for (int i = 0; i < 3; i++)
		o[i] = w[0] * cp[i] + w[1] * cp[3 + i] + w[2] * cp[6 + i] + w[3] * cp[9 + i];
}

static inline void curve4(const float w[4], const float *cp, float *o)
{
	quat q = quat_normalize(quat_make(w[0] * cp[0] + w[1] * cp[4] + w[2] * cp[8] + w[3] * cp[12],
					  w[0] * cp[1] + w[1] * cp[5] + w[2] * cp[9] + w[3] * cp[13],
					  w[0] * cp[2] + w[1] * cp[6] + w[2] * cp[10] + w[3] * cp[14],
					  w[0] * cp[3] + w[1] * cp[7] + w[2] * cp[11] + w[3] * cp[15]));

	memcpy(o, &q, sizeof q);
}
#endif

/* Interval k's curves at s: the dense ones from its row, at one set of
 * weights; the sparse ones each at its own place in its segment. */
static void eval_curves(const struct clip_key_index *x, uint32_t k, float s, float *pose)
{
	const float *cp = x->dense + (size_t)k * ((size_t)x->dense3 * 12 + (size_t)x->dense4 * 16);
	const struct curve_at *at = x->at + (size_t)k * (x->sparse3 + x->sparse4);
	const uint32_t *out = x->curve_out;
	float w[4];

	bernstein(s, w);
	for (uint32_t n = 0; n < x->dense3; n++, cp += 12)
		curve3(w, cp, pose + *out++);
	for (uint32_t n = 0; n < x->dense4; n++, cp += 16)
		curve4(w, cp, pose + *out++);
	for (uint32_t n = 0; n < x->sparse3; n++, at++) {
		bernstein(at->u0 + at->du * s, w);
		curve3(w, at->cp, pose + *out++);
	}
	for (uint32_t n = 0; n < x->sparse4; n++, at++) {
		bernstein(at->u0 + at->du * s, w);
		curve4(w, at->cp, pose + *out++);
	}
}

void clip_sample_indexed(const struct clip *c, int64_t t_ns, int64_t g_ns, struct transform *out)
{
	const struct clip_key_index *x = c->key_index;
	uint32_t lo = 0, hi = x->count, k;
	const struct transform *f;
	float *pose = (float *)out;
	float s = 0;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (x->times[mid] <= t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Before the first time: interval 0 at its start, where every track
	 * holds its first value; at or after the last: the last time's. */
	k = lo > 0 ? lo - 1 : 0;
	if (lo > 0 && lo < x->count)
		s = (float)((double)((uint64_t)t_ns - (uint64_t)x->times[k]) /
			    (double)((uint64_t)x->times[lo] - (uint64_t)x->times[k]));
	if (x->packed != NULL) {
		codec_sample_frames(x->packed, k, lo > 0 && lo < x->count, s, out);
	} else {
		f = x->frames + (size_t)k * x->joints;
		if (lo > 0 && lo < x->count)
			clip_blend_frames(f, f + x->joints, x->joints, s, out);
		else
			memcpy(out, f, (size_t)x->joints * sizeof *out);
	}
	eval_curves(x, k, s, pose);
	for (uint32_t n = 0; n < x->search_count; n++) {
		const struct track *tr = x->search[n];
		float v[4];

		track_eval(tr, clip_track_time(c, tr, t_ns, g_ns), v);
		if (tr->width == 4) {
			quat q = quat_normalize(quat_make(v[0], v[1], v[2], v[3]));

			memcpy(pose + x->search_out[n], &q, sizeof q);
		} else {
			memcpy(pose + x->search_out[n], v, 3 * sizeof *v);
		}
	}
}
