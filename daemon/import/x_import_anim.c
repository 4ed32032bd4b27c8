/*
 * x_import_anim.c - .x animation sets as keyed clips.
 *
 * An AnimationSet is a clip; each Animation in it drives the frame it
 * references with AnimationKeys: 0 rotation (w, x, y, z, conjugated and
 * normalised), 1 scale, 2 position, 3 and 4 a whole matrix (split into the
 * three channels at the same times, as D3DX's keyframed sets store them:
 * it replaces them; a shear in it is lost, and its channels interpolate
 * linearly, slerp for the rotation).  Rotation keys hold
 * the conjugate of the rotation a frame matrix would: the DirectX SDK's
 * tiny.x keys 43 of its 47 bones at their rest rotation first, and they
 * match the frames' matrices only once conjugated (20 match as stored).  Key times are ticks
 * (AnimTicksPerSecond, else the default), need not start at 0, and must not
 * go back.  A channel no key drives keeps the frame's own value (its part
 * of the frame matrix's split); a frame no key drives keeps its matrix as
 * written (the clip's still joints).  AnimationOptions: openclosed 1 is an
 * open animation, played once, 0 (the default) a closed one that loops; a
 * set plays once only when every one of its Animations is open, and loops
 * as soon as one is closed (or says nothing), so that nothing that should
 * cycle stops.  positionquality 0 makes position keys a Catmull-Rom spline
 * through the keys (1, and the default without options, is linear).
 */
#include "daemon/import/x_import_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { X_CH_T, X_CH_R, X_CH_S, X_CHANNELS };

/* One channel of one joint while a set is read. */
struct x_channel {
	uint32_t count;
	int64_t *times;
	float *values;
	uint8_t interp;
	bool from_matrix;               /* the keys came from matrix keys */
};

struct x_set {
	uint32_t joints;
	struct x_channel (*ch)[X_CHANNELS];
	int64_t duration;
	uint32_t animations, open;      /* Animations, and those openclosed 1 */
};

static void x_set_free(struct x_set *s)
{
	for (uint32_t j = 0; s->ch != NULL && j < s->joints; j++)
		for (int c = 0; c < X_CHANNELS; c++) {
			free(s->ch[j][c].times);
			free(s->ch[j][c].values);
		}
	free(s->ch);
}

static int64_t x_ticks_to_ns(uint32_t ticks, uint32_t tps)
{
	/* ticks < 2^32 and 1e9 < 2^30: the product fits. */
	return (int64_t)(((uint64_t)ticks * 1000000000u + tps / 2) / tps);
}

/* Reset a channel to `n` keys of `width` floats. */
static int x_channel_alloc(struct x_channel *ch, uint32_t n, unsigned width)
{
	free(ch->times);
	free(ch->values);
	ch->times = malloc(((size_t)n + 1) * sizeof *ch->times);
	ch->values = malloc(((size_t)n * width + 1) * sizeof *ch->values);
	ch->count = n;
	ch->interp = INTERP_LINEAR;
	ch->from_matrix = false;
	return ch->times && ch->values ? 0 : -ENOMEM;
}

static int x_key(const struct x_tree *t, const struct x_object *key, struct x_channel *ch,
		 uint32_t tps, struct x_set *set, struct diag *d)
{
	static const unsigned want[] = { 4, 3, 3, 16, 16 };
	struct x_reader r;
	uint32_t type, n, prev = 0;
	int rc;

	x_reader_init(&r, t, key, d);
	if (x_read_uint(&r, "keyType", 4, &type) < 0 || x_read_count(&r, "nKeys", 2, &n) < 0)
		return -EINVAL;
	if (type <= 2)
		rc = x_channel_alloc(&ch[type == 0 ? X_CH_R : type == 1 ? X_CH_S : X_CH_T], n,
				     type == 0 ? 4 : 3);
	else if ((rc = x_channel_alloc(&ch[X_CH_T], n, 3)) == 0 &&
		 (rc = x_channel_alloc(&ch[X_CH_R], n, 4)) == 0)
		rc = x_channel_alloc(&ch[X_CH_S], n, 3);
	if (rc < 0)
		return rc;
	if (type >= 3)
		ch[X_CH_T].from_matrix = ch[X_CH_R].from_matrix = ch[X_CH_S].from_matrix = true;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t time, nv, pos = x_reader_pos(&r);
		float v[16];
		int64_t ns;

		if (x_read_uint(&r, "a key time", UINT32_MAX, &time) < 0)
			return -EINVAL;
		if (k > 0 && time < prev)
			return x_tree_error(t, d, pos, "key %u at tick %u comes before key %u at tick %u",
					     k, time, k - 1, prev);
		prev = time;
		pos = x_reader_pos(&r);
		if (x_read_uint(&r, "a key's value count", 16, &nv) < 0)
			return -EINVAL;
		if (nv != want[type])
			return x_tree_error(t, d, pos, "a %s key has %u values, not %u",
					     type == 0 ? "rotation" : type == 1 ? "scale"
					     : type == 2 ? "position" : "matrix", nv, want[type]);
		if (x_read_floats(&r, "a key value", v, nv) < 0)
			return -EINVAL;
		ns = x_ticks_to_ns(time, tps);
		if (ns > set->duration)
			set->duration = ns;
		if (type == 0) {
			/* Stored w, x, y, z for row vectors: conjugate. */
			quat q = quat_normalize(quat_make(-v[1], -v[2], -v[3], v[0]));

			ch[X_CH_R].times[k] = ns;
			memcpy(&ch[X_CH_R].values[4 * k], &q, sizeof q);
		} else if (type <= 2) {
			struct x_channel *c = &ch[type == 1 ? X_CH_S : X_CH_T];

			c->times[k] = ns;
			memcpy(&c->values[3 * k], v, 3 * sizeof *v);
		} else {
			struct transform x = x_matrix_to_transform(v);

			ch[X_CH_T].times[k] = ch[X_CH_R].times[k] = ch[X_CH_S].times[k] = ns;
			memcpy(&ch[X_CH_T].values[3 * k], &x.t, sizeof x.t);
			memcpy(&ch[X_CH_R].values[4 * k], &x.r, sizeof x.r);
			memcpy(&ch[X_CH_S].values[3 * k], &x.s, sizeof x.s);
		}
	}
	return 0;
}

static int x_animation(const struct x_tree *t, const struct x_frames *f,
		       const struct x_object *a, struct x_model *m, struct x_set *set,
		       struct diag *d)
{
	const struct x_object *ref = NULL;
	/* The keys of an Animation that animates no frame still count for the
	 * set's length (and its options for looping), as D3DX keeps every
	 * Animation of a set whether a frame takes it or not: they are read
	 * into channels of their own, then dropped. */
	struct x_channel unbound[X_CHANNELS] = { 0 };
	struct x_channel *ch = unbound;
	int32_t joint = -1;
	bool spline = false, open = false;
	int rc = 0;

	for (uint32_t i = 0; i < a->child_count; i++)
		if (a->children[i]->type == NULL || x_is(a->children[i], "Frame"))
			ref = a->children[i];
	if (ref == NULL || ref->name == NULL)
		x_tree_note(t, &m->notes, a->pos, "Animation%s%s names no frame: its keys move no "
			    "joint", a->name ? " " : "", a->name ? a->name : "");
	else if ((joint = x_frames_find(f, ref->name)) < 0)
		x_tree_note(t, &m->notes, ref->pos, "Animation refers to frame \"%s\", which the "
			    "file does not have: its keys move no joint", ref->name);
	else
		ch = set->ch[joint];
	for (uint32_t i = 0; rc == 0 && i < a->child_count; i++) {
		const struct x_object *c = a->children[i];

		if (x_is(c, "AnimationKey")) {
			rc = x_key(t, c, ch, m->ticks_per_second, set, d);
		} else if (x_is(c, "AnimationOptions")) {
			struct x_reader r;
			uint32_t openclosed, quality;

			x_reader_init(&r, t, c, d);
			if (x_read_uint(&r, "openclosed", 1, &openclosed) < 0 ||
			    x_read_uint(&r, "positionquality", 1, &quality) < 0) {
				rc = -EINVAL;
				break;
			}
			open = openclosed == 1;
			spline = quality == 0;
		}
	}
	for (int k = 0; k < X_CHANNELS; k++) {
		free(unbound[k].times);
		free(unbound[k].values);
	}
	if (rc < 0)
		return rc;
	set->animations++;
	set->open += open;
	/* Spline positions are about position keys, not matrix keys. */
	if (joint >= 0 && spline && !set->ch[joint][X_CH_T].from_matrix)
		set->ch[joint][X_CH_T].interp = INTERP_CATMULL_ROM;
	return 0;
}

/* The clip from a set: every channel's keys in one block. */
static int x_clip_build(const struct x_set *set, const struct skeleton *sk, const char *name,
			struct clip **out)
{
	struct clip *c = calloc(1, sizeof *c);
	size_t times = 0, floats = 0;
	int64_t *tp;
	float *fp;

	if (c == NULL)
		return -ENOMEM;
	for (uint32_t j = 0; j < set->joints; j++)
		for (int k = 0; k < X_CHANNELS; k++) {
			times += set->ch[j][k].count;
			floats += (size_t)set->ch[j][k].count * (k == X_CH_R ? 4 : 3);
		}
	c->name = strdup(name);
	c->joint_count = set->joints;
	c->duration_ns = set->duration;
	c->loop = set->animations > 0 && set->open == set->animations ? LOOP_ONCE : LOOP_LOOP;
	c->tracks = calloc((size_t)set->joints + 1, sizeof *c->tracks);
	c->rest = malloc(((size_t)set->joints + 1) * sizeof *c->rest);
	c->key_storage_bytes = times * sizeof(int64_t) + floats * sizeof(float) + 1;
	c->key_storage = malloc(c->key_storage_bytes);
	if (c->name == NULL || c->tracks == NULL || c->rest == NULL || c->key_storage == NULL) {
		clip_free(c);
		return -ENOMEM;
	}
	memcpy(c->rest, sk->rest, (size_t)set->joints * sizeof *c->rest);
	tp = c->key_storage;
	fp = (float *)(tp + times);
	for (uint32_t j = 0; j < set->joints; j++) {
		struct track *dst[X_CHANNELS] = { &c->tracks[j].t, &c->tracks[j].r, &c->tracks[j].s };

		for (int k = 0; k < X_CHANNELS; k++) {
			const struct x_channel *ch = &set->ch[j][k];
			unsigned width = k == X_CH_R ? 4 : 3;

			dst[k]->width = (uint8_t)width;
			dst[k]->interp = ch->interp;
			dst[k]->count = ch->count;
			if (ch->count == 0)
				continue;
			memcpy(tp, ch->times, ch->count * sizeof *tp);
			memcpy(fp, ch->values, (size_t)ch->count * width * sizeof *fp);
			dst[k]->times = tp;
			dst[k]->values = fp;
			tp += ch->count;
			fp += (size_t)ch->count * width;
		}
	}
	if (clip_index_keys(c) != 0 || clip_find_still_joints(c) != 0) {
		clip_free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

static int x_set_import(const struct x_tree *t, const struct x_frames *f,
			const struct x_object *o, const char *name, struct x_model *m,
			struct diag *d)
{
	struct x_set set = { 0 };
	struct clip **grown;
	int rc = 0;

	set.joints = m->skeleton->joint_count;
	set.ch = calloc((size_t)set.joints + 1, sizeof *set.ch);
	if (set.ch == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; rc == 0 && i < o->child_count; i++)
		if (x_is(o->children[i], "Animation"))
			rc = x_animation(t, f, o->children[i], m, &set, d);
	grown = rc == 0 ? realloc(m->clips, ((size_t)m->clip_count + 1) * sizeof *m->clips) : NULL;
	if (rc == 0 && grown == NULL)
		rc = -ENOMEM;
	if (rc == 0) {
		m->clips = grown;
		rc = x_clip_build(&set, m->skeleton, name, &m->clips[m->clip_count]);
		if (rc == 0)
			m->clip_count++;
	}
	x_set_free(&set);
	return rc;
}

int x_import_clips(const struct x_tree *t, const struct x_frames *f, const char *name,
		   struct x_model *m, struct diag *d)
{
	uint32_t unnamed = 0;

	for (uint32_t i = 0; i < t->root_count; i++) {
		const struct x_object *o = t->roots[i];
		char fallback[64];
		int rc;

		if (x_is(o, "CompressedAnimationSet")) {
			m->skipped_sets++;
			continue;
		}
		if (!x_is(o, "AnimationSet"))
			continue;
		if (o->name == NULL && unnamed++ > 0)
			snprintf(fallback, sizeof fallback, "%s.%u", name ? name : "clip", unnamed);
		else
			snprintf(fallback, sizeof fallback, "%s", o->name ? o->name : name ? name : "clip");
		rc = x_set_import(t, f, o, fallback, m, d);
		if (rc < 0)
			return rc;
	}
	return 0;
}
