/*
 * gltf_import_anim.c - animations as keyed clips (gltf_import.h): every
 * channel's keys in one block per clip, times in nanoseconds, cubic
 * splines as Hermite keys (value, in-tangent, out-tangent) with their
 * tangents scaled by the key intervals, morph weights as one track per
 * target sharing the channel's times.
 */
#include "daemon/import/gltf_import_internal.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a channel animates, or 0 when nothing of the skeleton: the joint
 * and, for weights, how many. */
static bool channel_target(const struct gltf_import *x, const struct gltf_channel *ch,
			   int32_t *joint, uint32_t *targets)
{
	const struct gltf_model *m = x->m;

	*targets = 0;
	if (ch->ignored || x->joint_of[ch->node] < 0)
		return false;
	*joint = x->joint_of[ch->node];
	if (ch->path != GLTF_PATH_WEIGHTS)
		return true;
	if ((uint32_t)*joint >= x->scene_joints)
		return false;
	*targets = m->meshes[m->nodes[ch->node].mesh].target_count;
	return *targets > 0;
}

/* Seconds of a key (finite: the reader checked) to nanoseconds, rounded
 * half away from zero as time_from_seconds does, without its call to
 * round(): a clip has tens of thousands of keys. */
static int64_t key_ns(float s)
{
	double ns = (double)s * 1e9;

	if (ns >= 9.2e18)
		return INT64_MAX;
	if (ns <= -9.2e18)
		return INT64_MIN;
	return (int64_t)(ns < 0 ? ns - 0.5 : ns + 0.5);
}

/*
 * Whether the clip's tracks keep to about one timeline (at most twice as
 * many distinct key times in all as the longest track has), as exporters
 * that bake every channel at every frame write them: then the key index
 * (clip_index_keys), a pose at each of those times, costs about what the
 * keys do and makes sampling one search.  Channels keyed at times of
 * their own (Sketchfab's) would make it a pose at every time of every
 * track: more to build at load than it saves.  So would tracks that
 * repeat a key time (Sketchfab's again): the index takes them as curves,
 * worked out interval by interval.
 */
static bool one_timeline(const struct clip *c)
{
	uint32_t longest = 0;
	size_t n = 0, cap;
	int64_t *u, *spare;
	bool ok = true;

	for (uint32_t j = 0; j < c->joint_count; j++) {
		const struct track *tr[3] = { &c->tracks[j].t, &c->tracks[j].r, &c->tracks[j].s };

		for (int k = 0; k < 3; k++) {
			if (tr[k]->count > longest)
				longest = tr[k]->count;
			for (uint32_t i = 1; i < tr[k]->count; i++)
				if (tr[k]->times[i] == tr[k]->times[i - 1])
					return false;
		}
	}
	cap = 2 * (size_t)longest + 2;
	u = malloc(cap * sizeof *u);
	spare = malloc(cap * sizeof *spare);
	for (uint32_t j = 0; ok && u != NULL && spare != NULL && j < c->joint_count; j++) {
		const struct track *tr[3] = { &c->tracks[j].t, &c->tracks[j].r, &c->tracks[j].s };

		for (int k = 0; ok && k < 3; k++) {
			size_t i = 0, a = 0, m = 0;
			int64_t *t;

			/* spare = the union of u and this track's times. */
			while (ok && (i < n || a < tr[k]->count)) {
				int64_t v = a >= tr[k]->count || (i < n && u[i] <= tr[k]->times[a])
					    ? u[i] : tr[k]->times[a];

				if (m == cap)
					ok = false;
				else
					spare[m++] = v;
				while (i < n && u[i] == v)
					i++;
				while (a < tr[k]->count && tr[k]->times[a] == v)
					a++;
			}
			t = u, u = spare, spare = t;
			n = m;
		}
	}
	ok = ok && u != NULL && spare != NULL;
	free(u);
	free(spare);
	return ok;
}

/* Rotation keys normalised, unless they are already: most are. */
static void normalise_keys(float *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		float *e = v + (size_t)i * 4;
		float n2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3];

		if (!(fabsf(n2 - 1.0f) < 1e-7f)) {
			quat q = quat_normalize(quat_make(e[0], e[1], e[2], e[3]));

			memcpy(e, &q, sizeof q);
		}
	}
}

struct keys {
	int64_t *tp;            /* next free time */
	float *fp;              /* next free float */
};

/* The channel's keys: times converted, values (per track of `width`
 * floats; `tracks` of them, interleaved in the file per key) laid out as
 * the sampler reads them. */
static int channel_keys(const struct gltf_model *m, const struct gltf_sampler *s,
			uint32_t width, uint32_t tracks, bool rotation, struct keys *k,
			struct track **dst)
{
	uint32_t n = m->accessors[s->input].count;
	bool cubic = s->interp == GLTF_INTERP_CUBICSPLINE;
	const float *in = gltf_floats(m, s->input), *out = gltf_floats(m, s->output);
	int64_t *times = k->tp;

	if (in == NULL || out == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		times[i] = key_ns(in[i]);
	k->tp += n;
	for (uint32_t t = 0; t < tracks; t++) {
		struct track *tr = dst[t];
		float *v = k->fp;

		tr->count = n;
		tr->width = (uint8_t)width;
		tr->times = times;
		tr->values = v;
		tr->interp = cubic ? INTERP_HERMITE : s->interp == GLTF_INTERP_STEP ? INTERP_STEP
							 : INTERP_LINEAR;
		if (!cubic && tracks == 1) {
			/* The file's layout already: one copy (rotations are always
			 * one track; weights may be several). */
			memcpy(v, out, (size_t)n * width * sizeof *v);
			if (rotation)
				normalise_keys(v, n);
			k->fp += (size_t)n * width;
			continue;
		}
		for (uint32_t i = 0; i < n; i++) {
			/* The file's element i of a key: per track, `width` floats. */
			size_t stride = (size_t)tracks * width;

			if (!cubic) {
				const float *src = out + i * stride + (size_t)t * width;

				memcpy(v + (size_t)i * width, src, width * sizeof *v);
				continue;
			}
			/* (in-tangent a, value v, out-tangent b) per key, each for
			 * every track: to (v, a * (t_i - t_(i-1)), b * (t_(i+1) - t_i)). */
			{
				const float *a = out + (3 * (size_t)i) * stride + (size_t)t * width;
				const float *val = a + stride, *b = a + 2 * stride;
				double before = i > 0 ? (double)in[i] - (double)in[i - 1] : 0.0;
				double after = i + 1 < n ? (double)in[i + 1] - (double)in[i] : 0.0;
				float *o = v + (size_t)i * 3 * width;

				for (uint32_t c = 0; c < width; c++) {
					o[c] = val[c];
					o[width + c] = (float)(a[c] * before);
					o[2 * width + c] = (float)(b[c] * after);
				}
			}
		}
		k->fp += (size_t)n * width * (cubic ? 3 : 1);
	}
	return 0;
}

static char *clip_name(const struct gltf_model *m, uint32_t i)
{
	char buf[32];

	if (m->animations[i].name != NULL && m->animations[i].name[0] != '\0')
		return strdup(m->animations[i].name);
	snprintf(buf, sizeof buf, "%u", i);
	return strdup(buf);
}

static int import_clip(struct gltf_import *x, uint32_t a, struct clip **out)
{
	const struct gltf_model *m = x->m;
	const struct gltf_animation *an = &m->animations[a];
	const struct skeleton *sk = x->out->skeleton;
	uint32_t J = sk->joint_count, W = x->out->weight_count;
	size_t times = 0, floats = 0;
	struct clip *c = calloc(1, sizeof *c);
	struct keys k;
	int rc = 0;

	if (c == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < an->channel_count; i++) {
		const struct gltf_channel *ch = &an->channels[i];
		const struct gltf_sampler *s = &an->samplers[ch->sampler];
		uint32_t n = m->accessors[s->input].count, targets, width;
		int32_t joint;

		if (!channel_target(x, ch, &joint, &targets)) {
			if (!ch->ignored)
				diag_note_put(&x->out->notes, "unplaced", 0, 0, 0,
					      "a channel animates a node outside the scene shown (left "
					      "out)");
			continue;
		}
		width = ch->path == GLTF_PATH_ROTATION ? 4 : ch->path == GLTF_PATH_WEIGHTS ? 1 : 3;
		times += n;
		floats += (size_t)n * width * (targets ? targets : 1) *
			  (s->interp == GLTF_INTERP_CUBICSPLINE ? 3 : 1);
	}
	c->name = clip_name(m, a);
	c->joint_count = J;
	c->duration_ns = time_from_seconds((double)an->duration);
	c->loop = LOOP_LOOP;
	c->tracks = calloc((size_t)J + 1, sizeof *c->tracks);
	c->rest = malloc(((size_t)J + 1) * sizeof *c->rest);
	c->key_storage_bytes = times * sizeof(int64_t) + floats * sizeof(float) + 1;
	c->key_storage = malloc(c->key_storage_bytes);
	if (W > 0) {
		c->weights = calloc((size_t)W + 1, sizeof *c->weights);
		c->weight_count = W;
	}
	if (c->name == NULL || c->tracks == NULL || c->rest == NULL || c->key_storage == NULL ||
	    (W > 0 && c->weights == NULL)) {
		clip_free(c);
		return -ENOMEM;
	}
	memcpy(c->rest, sk->rest, (size_t)J * sizeof *c->rest);
	for (uint32_t j = 0; j < J; j++) {
		c->tracks[j].t.width = 3;
		c->tracks[j].r.width = 4;
		c->tracks[j].s.width = 3;
	}
	for (uint32_t w = 0; w < W; w++)
		c->weights[w].width = 1;
	k.tp = c->key_storage;
	k.fp = (float *)(k.tp + times);
	for (uint32_t i = 0; rc == 0 && i < an->channel_count; i++) {
		const struct gltf_channel *ch = &an->channels[i];
		const struct gltf_sampler *s = &an->samplers[ch->sampler];
		uint32_t targets;
		int32_t joint;

		if (!channel_target(x, ch, &joint, &targets))
			continue;
		if (ch->path == GLTF_PATH_WEIGHTS) {
			struct track **dst = malloc(((size_t)targets + 1) * sizeof *dst);
			uint32_t first = x->first_weight[ch->node];

			if (dst == NULL) {
				rc = -ENOMEM;
				break;
			}
			for (uint32_t t = 0; t < targets; t++)
				dst[t] = &c->weights[first + t];
			rc = channel_keys(m, s, 1, targets, false, &k, dst);
			free(dst);
		} else {
			struct joint_tracks *jt = &c->tracks[joint];
			struct track *dst = ch->path == GLTF_PATH_TRANSLATION ? &jt->t
					    : ch->path == GLTF_PATH_ROTATION ? &jt->r : &jt->s;

			rc = channel_keys(m, s, ch->path == GLTF_PATH_ROTATION ? 4 : 3, 1,
					  ch->path == GLTF_PATH_ROTATION, &k, &dst);
		}
	}
	if (rc == 0 && ((one_timeline(c) && clip_index_keys(c) != 0) ||
			clip_find_still_joints(c) != 0))
		rc = -ENOMEM;
	if (rc < 0) {
		clip_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

int gltf_import_clips(struct gltf_import *x)
{
	const struct gltf_model *m = x->m;
	struct gltf_runtime *out = x->out;

	out->clips = calloc((size_t)m->animation_count + 1, sizeof *out->clips);
	if (out->clips == NULL)
		return -ENOMEM;
	for (uint32_t a = 0; a < m->animation_count; a++) {
		int rc = import_clip(x, a, &out->clips[a]);

		if (rc < 0)
			return rc;
		out->clip_count++;
		for (uint32_t b = 0; b < a; b++)
			if (strcmp(out->clips[b]->name, out->clips[a]->name) == 0) {
				diag_note_put(&out->notes, "same name", 0, 0, 0,
					      "two animations share a name: the first is found by it, "
					      "the others by their index (#N)");
				break;
			}
	}
	return 0;
}
