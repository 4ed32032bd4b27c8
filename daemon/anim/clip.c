/*
 * clip.c - clip time: loop modes, exact frame arithmetic, root motion,
 * bounds, conversions.  The sampler itself is in clip_sample.c.
 *
 * Frame-based timelines are computed in "units" of 1/(rate * 1e9) s: a
 * playback time of e ns is exactly e * rate units and a frame interval is
 * exactly 1e9 units, so wrapping a loop, counting cycles and finding a
 * frame never round, however long an instance has been playing.  The
 * products need up to 95 bits: they are done in 128-bit integers.
 */
#include "daemon/anim/clip.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/clip_codec.h"
#include "daemon/anim/clip_key_index.h"
#include "daemon/anim/emitter.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static int64_t clip_sat64(i128 v)
{
	if (v > (i128)INT64_MAX)
		return INT64_MAX;
	if (v < (i128)INT64_MIN)
		return INT64_MIN;
	return (int64_t)v;
}

static int clip_fits64(i128 v)
{
	return v >= (i128)INT64_MIN && v <= (i128)INT64_MAX;
}

/* Truncating quotient and remainder; 64-bit hardware division when the
 * operands allow (the usual case), the 128-bit library routine otherwise. */
static void clip_divmod(i128 a, i128 b, i128 *q, i128 *r)
{
	if (clip_fits64(a) && clip_fits64(b) && !(a == (i128)INT64_MIN && b == -1)) {
		int64_t a64 = (int64_t)a, b64 = (int64_t)b;

		*q = a64 / b64;
		*r = a64 % b64;
	} else {
		*q = a / b;
		*r = a % b;
	}
}

/* ceil(u / num) for u >= 0, num > 0, saturated. */
static int64_t clip_ceil_div(i128 u, uint64_t num)
{
	i128 q, r;

	clip_divmod(u, (i128)num, &q, &r);
	return clip_sat64(q + (r != 0));
}

/*
 * Map playback time `elapsed` (ns) on a timeline whose time runs at `num`
 * units per ns and whose length is `period` units.  Clip time is returned
 * in ns, rounded up.
 */
static struct clip_time clip_map_units(int64_t elapsed, uint64_t num, i128 period,
				       enum loop_mode mode)
{
	struct clip_time ct = { 0, 0, 0 };
	i128 pos = (i128)elapsed * (i128)num;

	if (period <= 0 || num == 0) {
		/* Zero length: nothing to wrap, no division. */
		ct.ended = mode == LOOP_ONCE && elapsed >= 0;
		return ct;
	}
	switch (mode) {
	case LOOP_ONCE:
		if (pos >= period) {
			ct.t_ns = clip_ceil_div(period, num);
			ct.ended = 1;
		} else if (pos > 0) {
			ct.t_ns = clip_ceil_div(pos, num);
		}
		break;
	case LOOP_PINGPONG: {
		i128 q, r;

		clip_divmod(pos, 2 * period, &q, &r);
		if (r < 0)
			r += 2 * period;
		if (r > period)
			r = 2 * period - r;
		ct.t_ns = clip_ceil_div(r, num);
		break;
	}
	case LOOP_LOOP:
	default: {
		i128 q, r;

		clip_divmod(pos, period, &q, &r);
		if (r < 0) {
			r += period;
			q -= 1;
		}
		ct.t_ns = clip_ceil_div(r, num);
		ct.cycles = clip_sat64(q);
		break;
	}
	}
	return ct;
}

struct clip_time clip_map_frames(int64_t elapsed_ns, uint64_t intervals, uint32_t rate,
				 enum loop_mode mode)
{
	return clip_map_units(elapsed_ns, rate, (i128)intervals * NS_PER_SEC, mode);
}

int64_t clip_frames_duration(uint64_t intervals, uint32_t rate)
{
	if (rate == 0)
		return 0;
	return clip_ceil_div((i128)intervals * NS_PER_SEC, rate);
}

uint64_t clip_frame_at(int64_t t_ns, uint32_t rate, float *frac)
{
	u128 p, f;
	uint64_t rem;

	if (t_ns <= 0 || rate == 0) {
		*frac = 0.0f;
		return 0;
	}
	p = (u128)(uint64_t)t_ns * rate;
	if ((p >> 64) == 0) {
		/* The usual case: 64-bit division by a constant is a multiply. */
		uint64_t q = (uint64_t)p;

		f = q / (uint64_t)NS_PER_SEC;
		rem = q % (uint64_t)NS_PER_SEC;
	} else {
		f = p / (u128)NS_PER_SEC;
		rem = (uint64_t)(p % (u128)NS_PER_SEC);
	}
	*frac = (float)((double)rem * 1e-9);
	return f > (u128)UINT64_MAX ? UINT64_MAX : (uint64_t)f;
}

struct clip_time clip_map_time(const struct clip *c, int64_t elapsed_ns, enum loop_mode mode)
{
	if (clip_is_uniform(c)) {
		uint64_t intervals = c->frame_count > 0 ? c->frame_count - 1 : 0;

		return clip_map_frames(elapsed_ns, intervals, c->frame_rate, mode);
	}
	return clip_map_units(elapsed_ns, 1, c->duration_ns > 0 ? c->duration_ns : 0, mode);
}

void clip_apply_root_motion(const struct clip *c, enum root_motion mode,
			    const struct clip_time *ct, struct transform *pose)
{
	float k;

	if (mode != ROOT_IN_PLACE || c->joint_count == 0)
		return;
	/* Doom's idMD5Anim: relative to the baseframe, plus the whole clip's
	 * travel once per completed loop. */
	k = ct ? (float)ct->cycles : 0.0f;
	pose[0].t.x = pose[0].t.x - c->root_base.x + k * c->root_delta.x;
	pose[0].t.y = pose[0].t.y - c->root_base.y + k * c->root_delta.y;
	pose[0].t.z = pose[0].t.z - c->root_base.z + k * c->root_delta.z;
}

int clip_bounds(const struct clip *c, int64_t t_ns, float out[6])
{
	uint64_t f;
	float frac;

	if (!c->bounds)
		return -1;
	if (!clip_is_uniform(c)) {
		/* Keyed clips carry at most one box. */
		for (int i = 0; i < 6; i++)
			out[i] = c->bounds[0][i];
		return 0;
	}
	if (c->frame_count == 0)
		return -1;
	if (t_ns > c->duration_ns)
		t_ns = c->duration_ns;
	f = clip_frame_at(t_ns, c->frame_rate, &frac);
	if (f >= (uint64_t)c->frame_count - 1) {
		for (int i = 0; i < 6; i++)
			out[i] = c->bounds[c->frame_count - 1][i];
		return 0;
	}
	for (int i = 0; i < 6; i++) {
		float a = c->bounds[f][i], b = c->bounds[f + 1][i];

		out[i] = a + (b - a) * frac;
	}
	return 0;
}

int64_t time_from_seconds(double s)
{
	double ns;

	if (isnan(s))
		return 0;
	ns = round(s * 1e9);
	/* 2^63 is exactly representable; INT64_MAX is not. */
	if (ns >= 9223372036854775808.0)
		return INT64_MAX;
	if (ns <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)ns;
}

double time_to_seconds(int64_t ns)
{
	return (double)(ns / NS_PER_SEC) + (double)(ns % NS_PER_SEC) * 1e-9;
}

int clip_find_still_joints(struct clip *c)
{
	uint32_t n = 0;

	free(c->still_joints);
	c->still_joints = NULL;
	c->still_count = 0;
	if (c->tracks == NULL)
		return 0;
	c->still_joints = malloc(((size_t)c->joint_count + 1) * sizeof *c->still_joints);
	if (c->still_joints == NULL)
		return -ENOMEM;
	for (uint32_t j = 0; j < c->joint_count; j++) {
		const struct joint_tracks *jt = &c->tracks[j];

		if (jt->t.count == 0 && jt->r.count == 0 && jt->s.count == 0)
			c->still_joints[n++] = j;
	}
	c->still_count = n;
	return 0;
}

size_t clip_bytes(const struct clip *c)
{
	size_t n = sizeof *c, joints = (size_t)c->joint_count + 1;

	if (c->name != NULL)
		n += strlen(c->name) + 1;
	if (c->frames != NULL)
		n += (size_t)c->frame_count * c->joint_count * sizeof *c->frames;
	if (c->block_storage != NULL)
		n += c->block_storage_bytes;
	n += clip_packed_bytes_of(c->packed);
	if (c->bounds != NULL)
		n += (clip_is_uniform(c) ? (size_t)c->frame_count : 1) * sizeof *c->bounds;
	if (c->tracks != NULL)
		n += joints * sizeof *c->tracks;
	if (c->rest != NULL)
		n += joints * sizeof *c->rest;
	if (c->key_storage != NULL)
		n += c->key_storage_bytes;
	if (c->still_joints != NULL)
		n += joints * sizeof *c->still_joints;
	if (c->global_ns != NULL)
		n += ((size_t)c->global_count + 1) * sizeof *c->global_ns;
	if (c->emitters != NULL)
		n += ((size_t)c->emitter_count + 1) * sizeof *c->emitters;
	if (c->attachments != NULL)
		n += ((size_t)c->attachment_count + 1) * sizeof *c->attachments;
	if (c->weights != NULL)
		n += ((size_t)c->weight_count + 1) * sizeof *c->weights;
	if (c->events != NULL)
		n += ((size_t)c->event_count + 1) * sizeof *c->events;
	return n + clip_index_bytes(c);
}

void clip_free_index(struct clip *c)
{
	clip_index_free(c->key_index);
	c->key_index = NULL;
}

void clip_free(struct clip *c)
{
	if (!c)
		return;
	free(c->name);
	free(c->frames);
	free(c->block_storage);
	free(c->packed);
	free(c->tracks);
	free(c->rest);
	free(c->key_storage);
	clip_index_free(c->key_index);
	free(c->still_joints);
	free(c->bounds);
	free(c->global_ns);
	free(c->emitters);
	free(c->attachments);
	free(c->weights);
	free(c->events);
	free(c);
}

/* The clip's compressed frames: its own, or its key index's. */
static const struct clip_packed *clip_packed_of(const struct clip *c)
{
	if (c->packed != NULL)
		return c->packed;
	return c->key_index != NULL ? c->key_index->packed : NULL;
}

int clip_packed_error(const struct clip *c, float *error, float *precision, float *shell)
{
	const struct clip_packed *p = clip_packed_of(c);

	if (p == NULL)
		return 0;
	*error = p->error;
	*precision = p->precision;
	*shell = p->shell_distance;
	return 1;
}

size_t clip_packed_bytes(const struct clip *c)
{
	return clip_packed_bytes_of(clip_packed_of(c));
}
