/*
 * clip_sample.c - the one sampler: uniform frames (the fast path) and
 * keyed tracks.
 *
 * Uniform clips blend two whole frames at one fraction, so the slerp
 * polynomial is prepared once per call (quat_slerp_prepare) and every
 * joint costs one polynomial evaluation.  On x86-64 the blend runs four
 * joints at a time in SSE2 (base ISA): translation and scale are lerped as
 * a flat float array (four transforms are exactly ten registers), and the
 * four rotations are transposed into x/y/z/w registers for the slerp.  The
 * portable path below computes the same formulas one joint at a time.
 */
#include "clip.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

_Static_assert(sizeof(struct transform) == 10 * sizeof(float), "transform is ten packed floats");

static inline void blend_one(const struct transform *a, const struct transform *b, float frac,
			     const struct quat_slerp_coef *k, struct transform *o)
{
	o->t = vec3_lerp(a->t, b->t, frac);
	o->r = quat_slerp_apply(k, a->r, b->r);
	o->s = vec3_lerp(a->s, b->s, frac);
}

#if defined(__SSE2__)
/* Four joints: a[0..3], b[0..3] -> o[0..3]. */
static inline void blend_four(const struct transform *a, const struct transform *b,
			      __m128 frac, const __m128 *k0, const __m128 *k1, struct transform *o)
{
	const __m128 one = _mm_set1_ps(1.0f);
	const __m128 half = _mm_set1_ps(0.5f);
	const __m128 signbit = _mm_set1_ps(-0.0f);
	const float *fa = (const float *)a, *fb = (const float *)b;
	float *fo = (float *)o;
	__m128 ax, ay, az, aw, bx, by, bz, bw, dot, sign, x, y, w0, w1, n2, inv;

	/* Translation and scale: lerp all 40 floats; the rotations are
	 * overwritten below. */
	for (int v = 0; v < 10; v++) {
		__m128 va = _mm_loadu_ps(fa + 4 * v), vb = _mm_loadu_ps(fb + 4 * v);

		_mm_storeu_ps(fo + 4 * v, _mm_add_ps(va, _mm_mul_ps(_mm_sub_ps(vb, va), frac)));
	}

	ax = _mm_loadu_ps(&a[0].r.x);
	ay = _mm_loadu_ps(&a[1].r.x);
	az = _mm_loadu_ps(&a[2].r.x);
	aw = _mm_loadu_ps(&a[3].r.x);
	_MM_TRANSPOSE4_PS(ax, ay, az, aw);
	bx = _mm_loadu_ps(&b[0].r.x);
	by = _mm_loadu_ps(&b[1].r.x);
	bz = _mm_loadu_ps(&b[2].r.x);
	bw = _mm_loadu_ps(&b[3].r.x);
	_MM_TRANSPOSE4_PS(bx, by, bz, bw);

	dot = _mm_add_ps(_mm_add_ps(_mm_mul_ps(ax, bx), _mm_mul_ps(ay, by)),
			 _mm_add_ps(_mm_mul_ps(az, bz), _mm_mul_ps(aw, bw)));
	sign = _mm_and_ps(dot, signbit);
	x = _mm_min_ps(_mm_andnot_ps(signbit, dot), one);
	y = _mm_sub_ps(_mm_sqrt_ps(_mm_add_ps(_mm_mul_ps(x, half), half)), one);

	w0 = k0[QUAT_SLERP_DEGREE];
	w1 = k1[QUAT_SLERP_DEGREE];
	for (int i = QUAT_SLERP_DEGREE - 1; i >= 0; i--) {
		w0 = _mm_add_ps(_mm_mul_ps(w0, y), k0[i]);
		w1 = _mm_add_ps(_mm_mul_ps(w1, y), k1[i]);
	}
	w1 = _mm_xor_ps(w1, sign);      /* shortest path: b -> -b */

	ax = _mm_add_ps(_mm_mul_ps(w0, ax), _mm_mul_ps(w1, bx));
	ay = _mm_add_ps(_mm_mul_ps(w0, ay), _mm_mul_ps(w1, by));
	az = _mm_add_ps(_mm_mul_ps(w0, az), _mm_mul_ps(w1, bz));
	aw = _mm_add_ps(_mm_mul_ps(w0, aw), _mm_mul_ps(w1, bw));
	n2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(ax, ax), _mm_mul_ps(ay, ay)),
			_mm_add_ps(_mm_mul_ps(az, az), _mm_mul_ps(aw, aw)));
	n2 = _mm_max_ps(n2, _mm_set1_ps(1e-30f));
	inv = _mm_div_ps(one, _mm_sqrt_ps(n2));
	ax = _mm_mul_ps(ax, inv);
	ay = _mm_mul_ps(ay, inv);
	az = _mm_mul_ps(az, inv);
	aw = _mm_mul_ps(aw, inv);
	_MM_TRANSPOSE4_PS(ax, ay, az, aw);
	_mm_storeu_ps(&o[0].r.x, ax);
	_mm_storeu_ps(&o[1].r.x, ay);
	_mm_storeu_ps(&o[2].r.x, az);
	_mm_storeu_ps(&o[3].r.x, aw);
}
#endif

/* out[j] = blend(a[j], b[j], frac) for n joints. */
static void blend_rows(const struct transform *a, const struct transform *b, uint32_t n,
		       float frac, struct transform *out)
{
	struct quat_slerp_coef k;
	uint32_t j = 0;

	quat_slerp_prepare(&k, frac);
#if defined(__SSE2__)
	{
		__m128 k0[QUAT_SLERP_DEGREE + 1], k1[QUAT_SLERP_DEGREE + 1];
		__m128 f = _mm_set1_ps(frac);

		for (int i = 0; i <= QUAT_SLERP_DEGREE; i++) {
			k0[i] = _mm_set1_ps(k.k0[i]);
			k1[i] = _mm_set1_ps(k.k1[i]);
		}
		for (; j + 4 <= n; j += 4)
			blend_four(a + j, b + j, f, k0, k1, out + j);
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
	blend_rows(a, a + n, n, frac, out);
}

/* ---- keyed tracks ------------------------------------------------------ */

/*
 * Locate t among the keys: *i is the last key at or before t (0 before the
 * first).  Returns 1 with *u in [0, 1) when t lies strictly inside
 * [times[i], times[i+1]), 0 when the value of key *i is held (before the
 * first key, at or after the last, or a single key).  Equal times are a
 * step: the later key wins.
 */
static int track_locate(const struct track *tr, int64_t t, uint32_t *i, float *u)
{
	const int64_t *times = tr->times;
	uint32_t lo = 0, hi = tr->count;        /* first key with time > t in [lo, hi] */

	if (t < times[0]) {
		*i = 0;
		return 0;
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (times[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	*i = lo - 1;
	if (lo >= tr->count)
		return 0;
	/* times[lo] > t >= times[lo - 1]: the span is positive.  Unsigned
	 * differences stay exact even for timelines wider than 2^63. */
	*u = (float)((double)((uint64_t)t - (uint64_t)times[*i]) /
		     (double)((uint64_t)times[lo] - (uint64_t)times[*i]));
	return 1;
}

/* Evaluate a track into out[0 .. width). */
static void track_eval(const struct track *tr, int64_t t, float *out)
{
	uint32_t w = tr->width, i;
	int cubic_keys = tr->interp == INTERP_HERMITE || tr->interp == INTERP_BEZIER;
	uint32_t stride = cubic_keys ? 3 * w : w;
	const float *p1, *p2;
	float u;

	if (!track_locate(tr, t, &i, &u) || tr->interp == INTERP_STEP) {
		memcpy(out, tr->values + (size_t)i * stride, w * sizeof *out);
		return;
	}
	p1 = tr->values + (size_t)i * stride;
	p2 = p1 + stride;
	switch (tr->interp) {
	case INTERP_CATMULL_ROM:
		if (w == 3) {
			/* Uniform Catmull-Rom through the keys; the end keys
			 * stand in for the missing neighbours. */
			const float *p0 = i > 0 ? p1 - stride : p1;
			const float *p3 = i + 2 < tr->count ? p2 + stride : p2;
			float u2 = u * u, u3 = u2 * u;

			for (uint32_t c = 0; c < w; c++)
				out[c] = 0.5f * (2.0f * p1[c] + (p2[c] - p0[c]) * u +
						 (2.0f * p0[c] - 5.0f * p1[c] + 4.0f * p2[c] - p3[c]) * u2 +
						 (3.0f * (p1[c] - p2[c]) + p3[c] - p0[c]) * u3);
			return;
		}
		break;  /* rotations: slerp */
	case INTERP_HERMITE: {
		/* value, in-tangent, out-tangent: from key i's value leaving
		 * along its out-tangent to key i+1's value arriving along its
		 * in-tangent. */
		float u2 = u * u, u3 = u2 * u;
		float h00 = 2.0f * u3 - 3.0f * u2 + 1.0f, h10 = u3 - 2.0f * u2 + u;
		float h01 = 3.0f * u2 - 2.0f * u3, h11 = u3 - u2;

		for (uint32_t c = 0; c < w; c++)
			out[c] = h00 * p1[c] + h10 * p1[2 * w + c] + h01 * p2[c] + h11 * p2[w + c];
		return;
	}
	case INTERP_BEZIER: {
		float v = 1.0f - u;
		float b0 = v * v * v, b1 = 3.0f * v * v * u, b2 = 3.0f * v * u * u, b3 = u * u * u;

		for (uint32_t c = 0; c < w; c++)
			out[c] = b0 * p1[c] + b1 * p1[2 * w + c] + b2 * p2[w + c] + b3 * p2[c];
		return;
	}
	default:
		break;
	}
	/* INTERP_LINEAR (and rotations under Catmull-Rom). */
	if (w == 4) {
		quat q = quat_slerp(quat_make(p1[0], p1[1], p1[2], p1[3]),
				    quat_make(p2[0], p2[1], p2[2], p2[3]), u);

		out[0] = q.x;
		out[1] = q.y;
		out[2] = q.z;
		out[3] = q.w;
		return;
	}
	for (uint32_t c = 0; c < w; c++)
		out[c] = p1[c] + (p2[c] - p1[c]) * u;
}

static int track_usable(const struct track *tr, uint32_t width)
{
	return tr->count > 0 && tr->width == width && tr->times && tr->values;
}

static void sample_keyed(const struct clip *c, int64_t t_ns, struct transform *out)
{
	if (t_ns > c->duration_ns)
		t_ns = c->duration_ns;
	if (t_ns < 0)
		t_ns = 0;
	for (uint32_t j = 0; j < c->joint_count; j++) {
		const struct joint_tracks *jt = &c->tracks[j];
		struct transform x = c->rest ? c->rest[j] : transform_identity();
		float v[4];

		if (track_usable(&jt->t, 3)) {
			track_eval(&jt->t, t_ns, v);
			x.t = vec3_make(v[0], v[1], v[2]);
		}
		if (track_usable(&jt->r, 4)) {
			track_eval(&jt->r, t_ns, v);
			x.r = quat_normalize(quat_make(v[0], v[1], v[2], v[3]));
		}
		if (track_usable(&jt->s, 3)) {
			track_eval(&jt->s, t_ns, v);
			x.s = vec3_make(v[0], v[1], v[2]);
		}
		out[j] = x;
	}
}

void clip_sample(const struct clip *c, int64_t t_ns, struct transform *out)
{
	if (c->frames) {
		sample_uniform(c, t_ns, out);
	} else if (c->tracks) {
		sample_keyed(c, t_ns, out);
	} else {
		for (uint32_t j = 0; j < c->joint_count; j++)
			out[j] = c->rest ? c->rest[j] : transform_identity();
	}
}
