/*
 * clip_keyed.c - keyed tracks (.x, M2): finding a track's keys at a time
 * and interpolating between them, one track at a time.  A clip that has
 * a key index (clip_key_index.c) is sampled through it instead: the same
 * poses, with one search for the whole clip.
 */
#include "daemon/anim/clip_sampler.h"

#include <string.h>

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

/* Key i's value, or the interpolation from key i to i + 1 at u, for
 * values of w floats (inlined with w constant: see track_interp). */
static inline void interp_width(const struct track *tr, uint32_t i, int between, float u,
				float *out, const uint32_t w)
{
	uint32_t stride = tr->interp == INTERP_HERMITE || tr->interp == INTERP_BEZIER ? 3u * w : w;
	const float *p1 = tr->values + (size_t)i * stride, *p2 = p1 + stride;

	if (!between || u == 0.0f || tr->interp == INTERP_STEP) {
		/* At a key (u = 0) every interpolation is its value: copied,
		 * not recomputed. */
		memcpy(out, p1, w * sizeof *out);
		return;
	}
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

static void track_interp(const struct track *tr, uint32_t i, int between, float u, float *out)
{
	switch (tr->width) {
	case 1:
		interp_width(tr, i, between, u, out, 1);
		break;
	case 3:
		interp_width(tr, i, between, u, out, 3);
		break;
	case 4:
		interp_width(tr, i, between, u, out, 4);
		break;
	default:
		interp_width(tr, i, between, u, out, tr->width);
		break;
	}
}

void track_eval_from(const struct track *tr, int64_t t, uint32_t *hint, float *out)
{
	uint32_t i = *hint < tr->count ? *hint : 0;
	float u = 0;
	int between;

	if (t < tr->times[i])
		i = 0;
	while (i + 1 < tr->count && tr->times[i + 1] <= t)
		i++;
	*hint = i;
	between = t >= tr->times[i] && i + 1 < tr->count;
	if (between)
		u = (float)((double)((uint64_t)t - (uint64_t)tr->times[i]) /
			    (double)((uint64_t)tr->times[i + 1] - (uint64_t)tr->times[i]));
	track_interp(tr, i, between, u, out);
}

void track_eval(const struct track *tr, int64_t t, float *out)
{
	uint32_t i;
	float u = 0;
	int between = track_locate(tr, t, &i, &u);

	track_interp(tr, i, between, u, out);
}

int64_t clip_track_time(const struct clip *c, const struct track *tr, int64_t t_ns, int64_t g_ns)
{
	int64_t len;

	if (tr->global == 0 || tr->global > c->global_count)
		return t_ns > c->duration_ns ? c->duration_ns : t_ns < 0 ? 0 : t_ns;
	len = c->global_ns[tr->global - 1];
	if (len <= 0)
		return 0;
	g_ns %= len;
	return g_ns < 0 ? g_ns + len : g_ns;
}

static void sample_plain(const struct clip *c, int64_t t_ns, int64_t g_ns, struct transform *out)
{
	for (uint32_t j = 0; j < c->joint_count; j++) {
		const struct joint_tracks *jt = &c->tracks[j];
		struct transform x = c->rest ? c->rest[j] : transform_identity();
		float v[4];

		if (track_has_keys(&jt->t, 3)) {
			track_eval(&jt->t, jt->t.global ? clip_track_time(c, &jt->t, t_ns, g_ns) : t_ns, v);
			x.t = vec3_make(v[0], v[1], v[2]);
		}
		if (track_has_keys(&jt->r, 4)) {
			track_eval(&jt->r, jt->r.global ? clip_track_time(c, &jt->r, t_ns, g_ns) : t_ns, v);
			x.r = quat_normalize(quat_make(v[0], v[1], v[2], v[3]));
		}
		if (track_has_keys(&jt->s, 3)) {
			track_eval(&jt->s, jt->s.global ? clip_track_time(c, &jt->s, t_ns, g_ns) : t_ns, v);
			x.s = vec3_make(v[0], v[1], v[2]);
		}
		out[j] = x;
	}
}

void clip_sample_keyed(const struct clip *c, int64_t t_ns, int64_t g_ns, struct transform *out)
{
	if (t_ns > c->duration_ns)
		t_ns = c->duration_ns;
	if (t_ns < 0)
		t_ns = 0;
	if (c->key_index != NULL)
		clip_sample_indexed(c, t_ns, g_ns, out);
	else
		sample_plain(c, t_ns, g_ns, out);
}
