/*
 * clip_key_index.c - building a keyed clip's index of shared key times
 * (the layout and why it gives the plain sampler's poses are in
 * clip_key_index.h; sampling through it in clip_key_sample.c).
 *
 * Every track is given a role: frames (linear, blended), a dense or
 * sparse curve, or searched alone.  The curves' control points are worked
 * out in double from the keys and stored in float, so the index agrees
 * with the plain sampler to float rounding; the tests compare the two on
 * random clips.  An index that would take more than KEY_INDEX_BUDGET_RATIO
 * times the bytes of the keys it indexes (keys at many different times
 * across tracks) is not built, and the clip is sampled track by track.
 */
#include "daemon/anim/clip_key_index.h"
#include "daemon/anim/clip_codec.h"
#include "daemon/anim/clip_sampler.h"
#include "daemon/anim/emitter.h"

#include <errno.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/clip_sampler.h"

/* The index may take this much, or this many times the keys' own bytes. */
#define KEY_INDEX_MIN_BUDGET (64u * 1024u)
#define KEY_INDEX_BUDGET_RATIO 4u

enum track_role {
	ROLE_NONE,              /* no keys: the rest pose's value */
	ROLE_FRAMES,            /* blended from the poses at the shared times */
	ROLE_CURVE,             /* a curve, dense or sparse (decided later) */
	ROLE_DENSE,
	ROLE_SPARSE,
	ROLE_SEARCH,            /* searched on its own */
};

static const struct track *slot_track(const struct clip *c, uint32_t slot, uint32_t *width)
{
	const struct joint_tracks *jt = &c->tracks[slot / 3];

	*width = slot % 3 == 1 ? 4 : 3;
	return slot % 3 == 0 ? &jt->t : slot % 3 == 1 ? &jt->r : &jt->s;
}

/* Where slot 3j + channel (t, r, s) lives in a pose of floats. */
static uint32_t slot_offset(uint32_t slot)
{
	static const uint32_t channel_at[3] = {
		offsetof(struct transform, t) / sizeof(float),
		offsetof(struct transform, r) / sizeof(float),
		offsetof(struct transform, s) / sizeof(float),
	};

	return slot / 3 * (uint32_t)(sizeof(struct transform) / sizeof(float)) + channel_at[slot % 3];
}

static int on_clip_clock(const struct clip *c, const struct track *tr)
{
	return tr->global == 0 || tr->global > c->global_count;
}

static int has_shared_times(const struct track *tr)
{
	for (uint32_t i = 1; i < tr->count; i++)
		if (tr->times[i] == tr->times[i - 1])
			return 1;
	return 0;
}

static enum track_role role_of(const struct clip *c, const struct track *tr, uint32_t width)
{
	int slerped = width == 4 && (tr->interp == INTERP_LINEAR || tr->interp == INTERP_CATMULL_ROM);
	int shared;

	if (!track_has_keys(tr, width))
		return ROLE_NONE;
	if (!on_clip_clock(c, tr))
		return ROLE_SEARCH;
	shared = has_shared_times(tr);
	if (slerped)
		return shared ? ROLE_SEARCH : ROLE_FRAMES;
	if (width == 3 && tr->interp == INTERP_LINEAR && !shared)
		return ROLE_FRAMES;
	return ROLE_CURVE;
}

static size_t key_bytes_of(const struct track *tr)
{
	int cubic = tr->interp == INTERP_HERMITE || tr->interp == INTERP_BEZIER;

	return (size_t)tr->count * (sizeof(int64_t) + (cubic ? 3u : 1u) * tr->width * sizeof(float));
}

/* dst = the sorted union of sorted a (na distinct) and sorted b (nb, may
 * repeat); returns its length, or SIZE_MAX once it would pass `cap`. */
static size_t merge_times(const int64_t *a, size_t na, const int64_t *b, size_t nb, int64_t *dst,
			  size_t cap)
{
	size_t i = 0, j = 0, n = 0;

	while (i < na || j < nb) {
		int64_t v = j >= nb || (i < na && a[i] <= b[j]) ? a[i] : b[j];

		if (n == cap)
			return SIZE_MAX;
		dst[n++] = v;
		while (i < na && a[i] == v)
			i++;
		while (j < nb && b[j] == v)
			j++;
	}
	return n;
}

/*
 * The distinct key times of the clip-clock tracks, sorted, in a new array
 * (*times NULL when there are none, or when there are more than `cap`:
 * the index would be too large).  Each track's times are sorted already,
 * so they are merged in one at a time; the cap keeps that linear in the
 * keys.  0 or -ENOMEM.
 */
static int shared_times(const struct clip *c, size_t cap, int64_t **times, size_t *count)
{
	size_t total = 0, n = 0;
	int64_t *u, *spare;

	*times = NULL;
	*count = 0;
	for (uint32_t s = 0; s < 3 * c->joint_count; s++) {
		uint32_t w;
		const struct track *tr = slot_track(c, s, &w);

		if (track_has_keys(tr, w) && on_clip_clock(c, tr))
			total += tr->count;
	}
	if (total == 0)
		return 0;
	cap = cap < total ? cap : total;
	u = malloc(cap * sizeof *u);
	spare = malloc(cap * sizeof *spare);
	if (u == NULL || spare == NULL) {
		free(u);
		free(spare);
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < 3 * c->joint_count && n != SIZE_MAX; s++) {
		uint32_t w;
		const struct track *tr = slot_track(c, s, &w);
		int64_t *t;

		if (!track_has_keys(tr, w) || !on_clip_clock(c, tr))
			continue;
		n = merge_times(u, n, tr->times, tr->count, spare, cap);
		t = u;
		u = spare;
		spare = t;
	}
	free(spare);
	if (n == SIZE_MAX) {
		free(u);
		return 0;
	}
	*times = u;
	*count = n;
	return 0;
}

/* ---- a track's pieces ----------------------------------------------------- */

/*
 * The Bezier control points b[0..4) (w doubles each) of key i's segment,
 * with u running from key i (0) to key i + 1 (1), as track_interp
 * evaluates it: hermite tangents become controls a third of the way along
 * them; Catmull-Rom's tangents are half the neighbours' difference.
 */
static void segment_controls(const struct track *tr, uint32_t i, double b[4][4])
{
	uint32_t w = tr->width;
	int cubic = tr->interp == INTERP_HERMITE || tr->interp == INTERP_BEZIER;
	uint32_t stride = cubic ? 3 * w : w;
	const float *p1 = tr->values + (size_t)i * stride, *p2 = p1 + stride;
	const float *p0 = i > 0 ? p1 - stride : p1, *p3 = i + 2 < tr->count ? p2 + stride : p2;

	for (uint32_t c = 0; c < w; c++) {
		b[0][c] = p1[c];
		b[3][c] = p2[c];
		switch (tr->interp) {
		case INTERP_HERMITE:    /* key i's out-tangent, key i+1's in-tangent */
			b[1][c] = p1[c] + p1[2 * w + c] / 3.0;
			b[2][c] = p2[c] - p2[w + c] / 3.0;
			break;
		case INTERP_BEZIER:     /* key i's out-control, key i+1's in-control */
			b[1][c] = p1[2 * w + c];
			b[2][c] = p2[w + c];
			break;
		case INTERP_CATMULL_ROM:
			b[1][c] = p1[c] + (p2[c] - (double)p0[c]) / 6.0;
			b[2][c] = p2[c] - (p3[c] - (double)p1[c]) / 6.0;
			break;
		default:                /* linear */
			b[1][c] = (2.0 * p1[c] + p2[c]) / 3.0;
			b[2][c] = (p1[c] + 2.0 * p2[c]) / 3.0;
			break;
		}
	}
}

/* The blossom of the cubic with controls b at (x, y, z), component c: the
 * control points of its restriction to [u0, u1] are the blossoms at
 * (u0,u0,u0), (u0,u0,u1), (u0,u1,u1) and (u1,u1,u1). */
static double blossom(double b[4][4], uint32_t c, double x, double y, double z)
{
	double l0 = b[0][c] + (b[1][c] - b[0][c]) * x;
	double l1 = b[1][c] + (b[2][c] - b[1][c]) * x;
	double l2 = b[2][c] + (b[3][c] - b[2][c]) * x;
	double m0 = l0 + (l1 - l0) * y, m1 = l1 + (l2 - l1) * y;

	return m0 + (m1 - m0) * z;
}

/* Where a curve is during interval k: held at key *i's value (returns 0),
 * or in segment *i from u0 to u1 (returns 1).  *key follows the track's
 * last key at or before times[k]: start it at 0, call for k = 0, 1, ... */
static int interval_piece(const struct track *tr, const struct clip_key_index *x, uint32_t k,
			  uint32_t *key, double *u0, double *u1)
{
	uint32_t i = *key;
	const int64_t *t = tr->times;

	while (i + 1 < tr->count && t[i + 1] <= x->times[k])
		i++;
	*key = i;
	if (x->times[k] < t[0] || i + 1 >= tr->count || k + 1 >= x->count ||
	    tr->interp == INTERP_STEP)
		return 0;       /* before the first key (i is 0), after the last, a step */
	/* No key lies inside the interval, so it is within segment i. */
	*u0 = (double)((uint64_t)x->times[k] - (uint64_t)t[i]) / (double)((uint64_t)t[i + 1] - (uint64_t)t[i]);
	*u1 = (double)((uint64_t)x->times[k + 1] - (uint64_t)t[i]) / (double)((uint64_t)t[i + 1] - (uint64_t)t[i]);
	return 1;
}

/* Key i's value four times: the control points of a held value. */
static void held_controls(const struct track *tr, uint32_t i, float *out)
{
	uint32_t w = tr->width;
	int cubic = tr->interp == INTERP_HERMITE || tr->interp == INTERP_BEZIER;
	const float *v = tr->values + (size_t)i * (cubic ? 3 * w : w);

	for (int p = 0; p < 4; p++)
		memcpy(out + p * w, v, w * sizeof *out);
}

/* ---- filling the index ---------------------------------------------------- */

/* The pose at every shared time, with the frame-role tracks in it. */
static void fill_frames(const struct clip *c, struct clip_key_index *x, const uint8_t *roles)
{
	for (uint32_t k = 0; k < x->count; k++) {
		struct transform *f = x->frames + (size_t)k * x->joints;

		for (uint32_t j = 0; j < x->joints; j++) {
			f[j] = c->rest ? c->rest[j] : transform_identity();
			/* The blend wants unit rotations everywhere. */
			f[j].r = quat_normalize(f[j].r);
		}
	}
	for (uint32_t s = 0; s < 3 * x->joints; s++) {
		uint32_t w, hint = 0;
		const struct track *tr = slot_track(c, s, &w);
		float *pose = (float *)x->frames + slot_offset(s);

		if (roles[s] != ROLE_FRAMES)
			continue;
		for (uint32_t k = 0; k < x->count;
		     k++, pose += (size_t)x->joints * (sizeof(struct transform) / sizeof(float))) {
			float v[4];

			track_eval_from(tr, x->times[k], &hint, v);
			if (w == 4) {
				quat q = quat_normalize(quat_make(v[0], v[1], v[2], v[3]));

				memcpy(pose, &q, sizeof q);
			} else {
				memcpy(pose, v, 3 * sizeof *v);
			}
		}
	}
}

/* A dense curve: its control points over every interval, at float `at`
 * of each row of `row` floats. */
static void fill_dense(const struct track *tr, struct clip_key_index *x, size_t row, size_t at)
{
	uint32_t w = tr->width, key = 0;
	double b[4][4], u0 = 0, u1 = 0;

	for (uint32_t k = 0; k < x->count; k++) {
		float *out = x->dense + k * row + at;

		if (!interval_piece(tr, x, k, &key, &u0, &u1)) {
			held_controls(tr, key, out);
			continue;
		}
		segment_controls(tr, key, b);
		if (u0 == 0.0 && u1 == 1.0) {
			/* The interval is the segment (keys on the shared times). */
			for (int p = 0; p < 4; p++)
				for (uint32_t c = 0; c < w; c++)
					out[p * w + c] = (float)b[p][c];
			continue;
		}
		for (uint32_t c = 0; c < w; c++) {
			out[c] = (float)blossom(b, c, u0, u0, u0);
			out[w + c] = (float)blossom(b, c, u0, u0, u1);
			out[2 * w + c] = (float)blossom(b, c, u0, u1, u1);
			out[3 * w + c] = (float)blossom(b, c, u1, u1, u1);
		}
	}
}

/* A sparse curve: its segments into pieces, and where it is in every
 * interval at entry n of each row of `row` entries. */
static void fill_sparse(const struct track *tr, struct clip_key_index *x, float *pieces, size_t row,
			size_t n)
{
	uint32_t w = tr->width, key = 0;
	double b[4][4], u0 = 0, u1 = 0;

	for (uint32_t i = 0; i < tr->count; i++) {
		float *out = pieces + (size_t)i * 4 * w;

		if (i + 1 >= tr->count || tr->interp == INTERP_STEP) {
			held_controls(tr, i, out);
			continue;
		}
		segment_controls(tr, i, b);
		for (int p = 0; p < 4; p++)
			for (uint32_t c = 0; c < w; c++)
				out[p * w + c] = (float)b[p][c];
	}
	for (uint32_t k = 0; k < x->count; k++) {
		struct curve_at *a = &x->at[k * row + n];
		int moving = interval_piece(tr, x, k, &key, &u0, &u1);

		/* Held: the segment's first control point, key's value. */
		a->cp = pieces + (size_t)key * 4 * w;
		a->u0 = moving ? (float)u0 : 0.0f;
		a->du = moving ? (float)(u1 - u0) : 0.0f;
	}
}

/* The curves, kind by kind, and the search list. */
static void fill_curves(const struct clip *c, struct clip_key_index *x, const uint8_t *roles)
{
	size_t dense_row = (size_t)x->dense3 * 12 + (size_t)x->dense4 * 16;
	size_t sparse_row = (size_t)x->sparse3 + x->sparse4;
	uint32_t next[4] = { 0, x->dense3, x->dense3 + x->dense4, x->dense3 + x->dense4 + x->sparse3 };
	uint32_t ns = 0;
	float *pieces = x->pieces;

	for (uint32_t s = 0; s < 3 * c->joint_count; s++) {
		uint32_t w, n;
		const struct track *tr = slot_track(c, s, &w);
		int kind = (roles[s] == ROLE_SPARSE) * 2 + (w == 4);

		if (roles[s] == ROLE_SEARCH) {
			x->search[ns] = tr;
			x->search_out[ns++] = slot_offset(s);
			continue;
		}
		if (roles[s] != ROLE_DENSE && roles[s] != ROLE_SPARSE)
			continue;
		n = next[kind]++;
		x->curve_out[n] = slot_offset(s);
		if (roles[s] == ROLE_DENSE) {
			fill_dense(tr, x, dense_row, w == 3 ? (size_t)n * 12 :
				   (size_t)x->dense3 * 12 + (size_t)(n - x->dense3) * 16);
		} else {
			fill_sparse(tr, x, pieces, sparse_row, n - x->dense3 - x->dense4);
			pieces += (size_t)tr->count * 4 * w;
		}
	}
	memset(pieces, 0, CURVE_PAD * sizeof *pieces);
	memset(x->dense + x->count * dense_row, 0, CURVE_PAD * sizeof(float));
}

/* What the index of `count` times will hold: the roles settled (a curve
 * with keys at three in four of the times or more is dense) and counted,
 * and its size in bytes (0 when it would overflow). */
static size_t plan(const struct clip *c, size_t count, uint8_t *roles, struct clip_key_index *x,
		   size_t *piece_floats)
{
	size_t searches = 0, row, bytes;

	*piece_floats = CURVE_PAD;
	x->dense3 = x->dense4 = x->sparse3 = x->sparse4 = 0;
	for (uint32_t s = 0; s < 3 * c->joint_count; s++) {
		uint32_t w;
		const struct track *tr = slot_track(c, s, &w);

		searches += roles[s] == ROLE_SEARCH;
		if (roles[s] != ROLE_CURVE)
			continue;
		if (4 * (size_t)tr->count >= 3 * count) {
			roles[s] = ROLE_DENSE;
			*(w == 4 ? &x->dense4 : &x->dense3) += 1;
		} else {
			roles[s] = ROLE_SPARSE;
			*(w == 4 ? &x->sparse4 : &x->sparse3) += 1;
			*piece_floats += (size_t)tr->count * 4 * w;
		}
	}
	x->search_count = (uint32_t)searches;
	/* Per time: the time, a pose, the dense curves' controls and the
	 * sparse ones' places; then the pieces, targets and searches. */
	if (__builtin_mul_overflow((size_t)c->joint_count, sizeof(struct transform), &row) ||
	    __builtin_add_overflow(row, sizeof(int64_t) +
				   ((size_t)x->dense3 * 12 + (size_t)x->dense4 * 16) * sizeof(float) +
				   ((size_t)x->sparse3 + x->sparse4) * sizeof(struct curve_at), &row) ||
	    __builtin_mul_overflow(count, row, &bytes) ||
	    __builtin_add_overflow(bytes, (*piece_floats + CURVE_PAD) * sizeof(float) +
				   ((size_t)x->dense3 + x->dense4 + x->sparse3 + x->sparse4) * sizeof(uint32_t) +
				   searches * (sizeof(void *) + sizeof(uint32_t)), &bytes))
		return 0;
	return bytes;
}

/* Point the index's arrays into the block after it; by alignment:
 * pointers and times (8) first, then floats and offsets (4).  Without
 * `frames`, the block has none (they are compressed). */
static void lay_out(struct clip_key_index *x, size_t piece_floats, int frames)
{
	size_t count = x->count, curves = (size_t)x->dense3 + x->dense4 + x->sparse3 + x->sparse4;

	x->search = (const struct track **)(x + 1);
	x->at = (struct curve_at *)(x->search + x->search_count);
	x->times = (int64_t *)(x->at + count * (x->sparse3 + x->sparse4));
	char *after_times = (char *)(x->times + count);

	x->frames = frames ? (struct transform *)(void *)after_times : NULL;
	x->dense = (float *)(void *)(after_times +
				     (frames ? count * x->joints * sizeof(struct transform) : 0));
	x->pieces = x->dense + count * ((size_t)x->dense3 * 12 + (size_t)x->dense4 * 16) + CURVE_PAD;
	x->curve_out = (uint32_t *)(x->pieces + piece_floats);
	x->search_out = x->curve_out + curves;
}

size_t clip_index_bytes(const struct clip *c)
{
	if (c->key_index == NULL)
		return 0;
	return c->key_index->bytes + clip_packed_bytes_of(c->key_index->packed);
}

void clip_index_free(struct clip_key_index *x)
{
	if (x != NULL)
		free(x->packed);
	free(x);
}

/* Whether the track's keys are in the clip's key storage. */
static int owns_keys(const struct clip *c, const struct track *tr)
{
	const char *lo = c->key_storage, *hi = lo + c->key_storage_bytes;

	return tr->count > 0 && tr->times != NULL && (const char *)tr->times >= lo &&
	       (const char *)tr->times < hi;
}

/* Floats of a track's values. */
static size_t value_floats(const struct track *tr)
{
	size_t k = tr->interp == INTERP_HERMITE || tr->interp == INTERP_BEZIER ? 3 : 1;

	return (size_t)tr->count * tr->width * k;
}

/* A track whose keys sampling still reads once the index's frames are
 * compressed: searched ones, and the emitters' and attachments'. */
static int keeps_keys(const struct clip *c, const struct track *tr)
{
	const struct clip_key_index *x = c->key_index;

	for (uint32_t n = 0; n < x->search_count; n++)
		if (x->search[n] == tr)
			return 1;
	return (const char *)tr < (const char *)c->tracks ||
	       (const char *)tr >= (const char *)(c->tracks + c->joint_count);
}

/* Every track of the clip with keys of its own: joints', emitters',
 * attachments'.  f(c, tr, arg) for each. */
static void each_track(struct clip *c, void (*f)(struct clip *, struct track *, void *), void *arg)
{
	for (uint32_t j = 0; j < c->joint_count; j++) {
		f(c, &c->tracks[j].t, arg);
		f(c, &c->tracks[j].r, arg);
		f(c, &c->tracks[j].s, arg);
	}
	for (uint32_t e = 0; e < c->emitter_count; e++) {
		for (uint32_t p = 0; p < EMITTER_PARAMS; p++)
			f(c, &c->emitters[e].param[p], arg);
		f(c, &c->emitters[e].enabled, arg);
	}
	for (uint32_t a = 0; a < c->attachment_count; a++)
		f(c, &c->attachments[a], arg);
}

struct key_move {
	size_t times, floats;           /* counted, then where the next go */
	int64_t *tp;
	float *vp;
	int moving;
};

static void key_move_one(struct clip *c, struct track *tr, void *arg)
{
	struct key_move *m = arg;

	if (!owns_keys(c, tr))
		return;
	if (!keeps_keys(c, tr)) {
		/* In the index only: its keys go (its count stays, what the
		 * file had). */
		if (m->moving)
			tr->times = NULL, tr->values = NULL;
		return;
	}
	if (!m->moving) {
		m->times += tr->count;
		m->floats += value_floats(tr);
		return;
	}
	memcpy(m->tp, tr->times, (size_t)tr->count * sizeof *m->tp);
	memcpy(m->vp, tr->values, value_floats(tr) * sizeof *m->vp);
	tr->times = m->tp;
	tr->values = m->vp;
	m->tp += tr->count;
	m->vp += value_floats(tr);
}

/*
 * Once the index's frames are compressed, the joints' keys that only the
 * index reads (its frames' and its curves', which hold their own control
 * points) are dropped: the key storage is made again with the keys of the
 * searched tracks and of the emitters and attachments alone.
 */
static int drop_indexed_keys(struct clip *c)
{
	struct key_move m = { 0 };
	void *storage;
	size_t bytes;

	if (c->key_storage == NULL || c->key_storage_bytes == 0)
		return 0;       /* which keys are its own is not known */
	each_track(c, key_move_one, &m);
	bytes = m.times * sizeof(int64_t) + m.floats * sizeof(float) + 1;
	storage = malloc(bytes);
	if (storage == NULL)
		return -ENOMEM;
	m.tp = storage;
	m.vp = (float *)(void *)(m.tp + m.times);
	m.moving = 1;
	each_track(c, key_move_one, &m);
	free(c->key_storage);
	c->key_storage = storage;
	c->key_storage_bytes = bytes;
	return 0;
}

/*
 * The index's frames compressed (codec_pack), and the index laid out again
 * without them: everything after the frames moves down by their size, and
 * the sparse curves' pointers into the pieces with it.
 */
int clip_index_compress(struct clip *c, const int32_t *parents, const struct clip_codec_params *p)
{
	struct clip_key_index *x = c->key_index, *y;
	size_t frames_bytes, before, after, piece_floats;
	struct transform *exact;
	uint8_t *fixed;
	int rc;

	if (x == NULL || x->frames == NULL || x->count == 0)
		return 0;
	frames_bytes = (size_t)x->count * x->joints * sizeof *x->frames;
	before = (size_t)((const char *)x->frames - (const char *)x);
	after = x->bytes - before - frames_bytes;
	y = malloc(x->bytes - frames_bytes);
	exact = malloc(frames_bytes);
	fixed = calloc(x->joints, 1);
	if (y == NULL || exact == NULL || fixed == NULL) {
		free(y);
		free(exact);
		free(fixed);
		return -ENOMEM;
	}
	/* What sampling gives at each shared time, curves and searched
	 * tracks included, and which channels those overwrite. */
	for (uint32_t k = 0; k < x->count; k++)
		clip_sample_indexed(c, x->times[k], x->times[k], exact + (size_t)k * x->joints);
	{
		uint32_t curves = x->dense3 + x->dense4 + x->sparse3 + x->sparse4;
		const uint32_t floats = sizeof(struct transform) / sizeof(float);

		for (uint32_t n = 0; n < curves + x->search_count; n++) {
			uint32_t off = n < curves ? x->curve_out[n] : x->search_out[n - curves];
			uint32_t ch = off % floats;

			fixed[off / floats] |= (uint8_t)(ch < 3 ? 1 : ch < 7 ? 2 : 4);
		}
	}
	y->packed = codec_pack(x->frames, x->count, x->joints, parents, p, exact, fixed, &rc);
	free(exact);
	free(fixed);
	if (y->packed == NULL) {
		free(y);
		return rc;
	}
	{
		struct clip_packed *packed = y->packed;

		memcpy(y, x, before);
		memcpy((char *)y + before, (const char *)x + before + frames_bytes, after);
		y->packed = packed;
	}
	y->bytes = x->bytes - frames_bytes;
	piece_floats = (size_t)((const float *)(const void *)x->curve_out - x->pieces);
	lay_out(y, piece_floats, 0);
	for (size_t k = 0; k < (size_t)y->count * (y->sparse3 + y->sparse4); k++)
		y->at[k].cp = y->pieces + (x->at[k].cp - x->pieces);
	free(x);
	c->key_index = y;
	return drop_indexed_keys(c);
}

int clip_index_keys(struct clip *c)
{
	struct clip_key_index plan_of = { 0 }, *x;
	size_t count, key_bytes = 0, bytes, piece_floats, max_times;
	int64_t *times;
	uint8_t *roles;
	int rc;

	clip_index_free(c->key_index);
	c->key_index = NULL;
	if (c->tracks == NULL || c->joint_count == 0 || c->joint_count > UINT32_MAX / 3)
		return 0;
	roles = malloc((size_t)c->joint_count * 3);
	if (roles == NULL)
		return -ENOMEM;
	for (uint32_t s = 0; s < 3 * c->joint_count; s++) {
		uint32_t w;
		const struct track *tr = slot_track(c, s, &w);

		roles[s] = (uint8_t)role_of(c, tr, w);
		if (track_has_keys(tr, w))
			key_bytes += key_bytes_of(tr);
	}
	/* More times than this would make even the frames alone too large. */
	max_times = (key_bytes * KEY_INDEX_BUDGET_RATIO > KEY_INDEX_MIN_BUDGET ?
		     key_bytes * KEY_INDEX_BUDGET_RATIO : KEY_INDEX_MIN_BUDGET) /
		    ((size_t)c->joint_count * sizeof(struct transform) + sizeof(int64_t)) + 1;
	rc = shared_times(c, max_times, &times, &count);
	if (rc != 0 || times == NULL) {
		free(roles);
		return rc;
	}
	bytes = count <= UINT32_MAX ? plan(c, count, roles, &plan_of, &piece_floats) : 0;
	if (bytes == 0 || (bytes > KEY_INDEX_MIN_BUDGET && bytes / KEY_INDEX_BUDGET_RATIO > key_bytes)) {
		/* Too large is no failure: the clip is sampled without. */
		free(times);
		free(roles);
		return 0;
	}
	x = malloc(sizeof *x + bytes);
	if (x == NULL) {
		free(times);
		free(roles);
		return -ENOMEM;
	}
	*x = plan_of;
	x->bytes = sizeof *x + bytes;
	x->count = (uint32_t)count;
	x->joints = c->joint_count;
	lay_out(x, piece_floats, 1);
	memcpy(x->times, times, count * sizeof *times);
	free(times);
	fill_frames(c, x, roles);
	fill_curves(c, x, roles);
	free(roles);
	c->key_index = x;
	return 0;
}
