/*
 * test_clip_index - the key index (clip_index_keys) gives the poses of the
 * plain keyed sampler.
 *
 * Random clips of every track kind the importers make: step, linear,
 * hermite, bezier and Catmull-Rom translations and scales; step, linear,
 * hermite and bezier rotations; tracks on global sequences; keys that share
 * a time, keys before the clip's start and after its end, single keys,
 * channels with no keys; key times that line up across tracks and that do
 * not.  Each clip is sampled without its index, then with it, at random
 * times, at every key time and just around them, before 0 and after the
 * end, and the two poses must agree to float rounding.  Also: hand-checked
 * values through the index, a clip whose keys would make the index too
 * large (left out, same poses), and a clip with nothing to index.
 * Last, the index's poses compressed (clip_compress): the same random
 * clips, every joint a root, stay within the precision on the metric at
 * every shared key time, and near it between them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/clip_key_index.h"

static uint64_t rng = 0x1234567887654321ull;

static uint32_t rnd_u32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static float rnd_f(float lo, float hi)
{
	return lo + (hi - lo) * (float)(rnd_u32() & 0xffffff) / (float)0x1000000;
}

/* Everything a random clip allocates, freed by clip_free: the tracks'
 * arrays live in one key_storage block. */
struct builder {
	char *buf;
	size_t used, cap;
};

static void *take(struct builder *b, size_t bytes)
{
	void *p;

	bytes = (bytes + 7) & ~(size_t)7;
	assert_true(b->used + bytes <= b->cap);
	p = b->buf + b->used;
	b->used += bytes;
	return p;
}

static const int64_t SHARED_STEP = 40000000;    /* 40 ms: the shared grid */

/* Random key times: on the shared grid (aligned across tracks) or not,
 * some repeated, some outside [0, duration]. */
static void random_times(int64_t *t, uint32_t n, int64_t duration, int aligned)
{
	int64_t at = (rnd_u32() % 4 == 0) ? -(int64_t)(rnd_u32() % 3) * SHARED_STEP : 0;

	for (uint32_t i = 0; i < n; i++) {
		if (i > 0 && rnd_u32() % 9 == 0) {
			t[i] = t[i - 1];        /* two keys at one time: a step */
			continue;
		}
		t[i] = at;
		at += aligned ? SHARED_STEP * (1 + rnd_u32() % 2)
			      : 1 + (int64_t)(rnd_u32() % (uint32_t)(duration / 4 + 1));
	}
	(void)duration;
}

static void random_quat(float *q)
{
	float n = 0;

	for (int c = 0; c < 4; c++) {
		q[c] = rnd_f(-1, 1);
		n += q[c] * q[c];
	}
	n = sqrtf(n);
	if (n < 1e-3f) {
		q[0] = q[1] = q[2] = 0;
		q[3] = n = 1;
	}
	for (int c = 0; c < 4; c++)
		q[c] /= n;
}

static void random_track(struct builder *b, struct track *tr, uint32_t width, int64_t duration,
			 uint32_t globals, int aligned)
{
	static const uint8_t vec_kinds[] = { INTERP_STEP, INTERP_LINEAR, INTERP_LINEAR, INTERP_HERMITE,
					     INTERP_BEZIER, INTERP_CATMULL_ROM };
	static const uint8_t rot_kinds[] = { INTERP_STEP, INTERP_LINEAR, INTERP_LINEAR, INTERP_HERMITE,
					     INTERP_BEZIER };
	uint32_t n = rnd_u32() % 6 == 0 ? 0 : 1 + rnd_u32() % 12;
	int cubic;
	float *v;
	int64_t *t;

	tr->width = (uint8_t)width;
	tr->count = n;
	if (n == 0)
		return;
	tr->interp = width == 4 ? rot_kinds[rnd_u32() % sizeof rot_kinds]
				: vec_kinds[rnd_u32() % sizeof vec_kinds];
	tr->global = (uint16_t)(globals > 0 && rnd_u32() % 7 == 0 ? 1 + rnd_u32() % globals : 0);
	cubic = tr->interp == INTERP_HERMITE || tr->interp == INTERP_BEZIER;
	t = take(b, n * sizeof *t);
	v = take(b, (size_t)n * width * (cubic ? 3 : 1) * sizeof *v);
	random_times(t, n, duration, aligned && rnd_u32() % 10 != 0);
	for (uint32_t i = 0; i < n; i++) {
		float *k = v + (size_t)i * width * (cubic ? 3 : 1);

		if (width == 4)
			random_quat(k);
		else
			for (uint32_t c = 0; c < width; c++)
				k[c] = rnd_f(-10, 10);
		if (cubic)
			for (uint32_t c = width; c < 3 * width; c++)
				k[c] = width == 4 ? rnd_f(-1, 1) : rnd_f(-10, 10);
	}
	tr->times = t;
	tr->values = v;
}

/* aligned: key times on the shared grid, but for one track in ten. */
static struct clip *random_clip(uint32_t joints, int aligned)
{
	struct clip *c = calloc(1, sizeof *c);
	struct builder b = { 0 };

	assert_non_null(c);
	b.cap = (size_t)joints * 3 * 12 * (8 + 12 * 4) + 64;
	b.buf = calloc(1, b.cap);
	assert_non_null(b.buf);
	c->key_storage = b.buf;
	c->key_storage_bytes = b.cap;
	c->name = strdup("random");
	c->joint_count = joints;
	c->duration_ns = SHARED_STEP * (1 + rnd_u32() % 20);
	c->loop = LOOP_LOOP;
	c->tracks = calloc(joints, sizeof *c->tracks);
	c->rest = calloc(joints, sizeof *c->rest);
	c->global_count = rnd_u32() % 3;
	c->global_ns = calloc(c->global_count + 1, sizeof *c->global_ns);
	assert_true(c->name && c->tracks && c->rest && c->global_ns);
	for (uint32_t g = 0; g < c->global_count; g++)
		c->global_ns[g] = g == 0 ? 0 : SHARED_STEP * (1 + rnd_u32() % 30);
	for (uint32_t j = 0; j < joints; j++) {
		float q[4];

		random_quat(q);
		c->rest[j].t = vec3_make(rnd_f(-5, 5), rnd_f(-5, 5), rnd_f(-5, 5));
		c->rest[j].r = quat_make(q[0], q[1], q[2], q[3]);
		c->rest[j].s = vec3_make(1, 1, 1);
		random_track(&b, &c->tracks[j].t, 3, c->duration_ns, c->global_count, aligned);
		random_track(&b, &c->tracks[j].r, 4, c->duration_ns, c->global_count, aligned);
		random_track(&b, &c->tracks[j].s, 3, c->duration_ns, c->global_count, aligned);
	}
	return c;
}

static double quat_distance(quat a, quat b)
{
	double d1 = 0, d2 = 0;
	const float *x = &a.x, *y = &b.x;

	for (int i = 0; i < 4; i++) {
		d1 = fmax(d1, fabs((double)x[i] - y[i]));
		d2 = fmax(d2, fabs((double)x[i] + y[i]));
	}
	return fmin(d1, d2);
}

/* Largest difference between the plain and indexed poses at t, g. */
static double pose_difference(const struct clip *plain, const struct clip *indexed, int64_t t,
			      int64_t g, struct transform *a, struct transform *b)
{
	double worst = 0;

	clip_sample_at(plain, t, g, a);
	clip_sample_at(indexed, t, g, b);
	for (uint32_t j = 0; j < plain->joint_count; j++) {
		const float *x = &a[j].t.x, *y = &b[j].t.x;

		for (int c = 0; c < 3; c++) {
			/* Translations and scales: relative to the size of the
			 * control values (at most ~10 + 10). */
			worst = fmax(worst, fabs((double)x[c] - y[c]) / 20.0);
			worst = fmax(worst, fabs((double)(&a[j].s.x)[c] - (&b[j].s.x)[c]) / 20.0);
		}
		worst = fmax(worst, quat_distance(a[j].r, b[j].r));
	}
	return worst;
}

/* The same clip with and without an index: the index is built on a copy
 * of the struct whose arrays are shared. */
static int check_clip(struct clip *c, double *worst_seen)
{
	struct clip indexed = *c;
	struct transform *a = calloc(c->joint_count, sizeof *a);
	struct transform *b = calloc(c->joint_count, sizeof *b);
	double worst = 0;

	assert_true(a && b);
	indexed.key_index = NULL;
	assert_int_equal(clip_index_keys(&indexed), 0);
	if (indexed.key_index == NULL) {
		/* Too many distinct times for its keys, or none at all. */
		free(a);
		free(b);
		return 0;
	}
	for (int i = 0; i < 200; i++) {
		int64_t t = (int64_t)(rnd_u32() % (uint32_t)(c->duration_ns / 1000 + 1)) * 1000;
		int64_t g = (int64_t)rnd_u32() * 1000;

		worst = fmax(worst, pose_difference(c, &indexed, t, g, a, b));
	}
	/* Every key time, and one nanosecond either side. */
	for (uint32_t j = 0; j < c->joint_count; j++)
		for (int ch = 0; ch < 3; ch++) {
			const struct track *tr = ch == 0 ? &c->tracks[j].t :
						 ch == 1 ? &c->tracks[j].r : &c->tracks[j].s;

			for (uint32_t k = 0; k < tr->count; k++)
				for (int64_t d = -1; d <= 1; d++)
					worst = fmax(worst, pose_difference(c, &indexed, tr->times[k] + d,
									    tr->times[k], a, b));
		}
	worst = fmax(worst, pose_difference(c, &indexed, -5 * SHARED_STEP, 0, a, b));
	worst = fmax(worst, pose_difference(c, &indexed, c->duration_ns, 0, a, b));
	worst = fmax(worst, pose_difference(c, &indexed, c->duration_ns + 7, 0, a, b));
	*worst_seen = fmax(*worst_seen, worst);
	free(indexed.key_index);
	free(a);
	free(b);
	return 1;
}

static void test_index_matches_plain_sampler(void **state)
{
	double worst = 0;
	int indexed = 0;

	(void)state;
	for (int i = 0; i < 300; i++) {
		/* Two in three on a shared grid (as exporters write them), the
		 * rest at any times, with fewer joints. */
		int aligned = i % 3 != 0;
		struct clip *c = random_clip(aligned ? 1 + rnd_u32() % 32 : 1 + rnd_u32() % 6, aligned);

		indexed += check_clip(c, &worst);
		clip_free(c);
	}
	print_message("  %d of 300 clips indexed; largest difference, plain against indexed: %.3g\n",
		      indexed, worst);
	assert_true(indexed >= 200);
	/* Float rounding: a few ulp of values of size 20, and of cubic
	 * rotations whose length normalising amplifies them (about 2e-6 seen:
	 * 1e-4 degrees). */
	assert_true(worst < 1e-5);
}

/* The largest displacement of the points at `shell` along each joint's
 * axes between two poses of root joints. */
static double shell_difference(const struct transform *a, const struct transform *b, uint32_t n,
			       float shell)
{
	double worst = 0;

	for (uint32_t j = 0; j < n; j++) {
		mat34 ma = mat34_from_transform(&a[j]), mb = mat34_from_transform(&b[j]);

		for (int axis = 0; axis < 3; axis++) {
			double e = 0;

			for (int r = 0; r < 3; r++) {
				double d = ((double)ma.m[r][axis] - mb.m[r][axis]) * shell +
					   ((double)ma.m[r][3] - mb.m[r][3]);

				e += d * d;
			}
			worst = fmax(worst, sqrt(e));
		}
	}
	return worst;
}

/* An indexed copy of c (the same clip made again: compression drops keys
 * of the clip it compresses) with its index's poses compressed, against
 * c: the worst error over the precision at the shared key times into
 * at_keys, between them into between. */
static int check_compressed(struct clip *c, struct clip *copy, double *at_keys, double *between)
{
	const struct clip_codec_params prm = { 0.01f, 1.0f };
	struct clip packed = *copy;
	struct transform *a = calloc(c->joint_count, sizeof *a);
	struct transform *b = calloc(c->joint_count, sizeof *b);
	double worst = 0, keys = 0;
	float built, precision, shell;

	assert_true(a && b);
	packed.key_index = NULL;
	assert_int_equal(clip_index_keys(&packed), 0);
	if (packed.key_index == NULL) {
		free(a);
		free(b);
		return 0;
	}
	assert_int_equal(clip_compress(&packed, NULL, &prm), 0);
	assert_true(clip_packed_error(&packed, &built, &precision, &shell));
	assert_true(built <= prm.precision);
	for (int i = 0; i < 200; i++) {
		int64_t t = (int64_t)(rnd_u32() % (uint32_t)(c->duration_ns / 1000 + 1)) * 1000;
		int64_t g = (int64_t)rnd_u32() * 1000;

		clip_sample_at(c, t, g, a);
		clip_sample_at(&packed, t, g, b);
		worst = fmax(worst, shell_difference(a, b, c->joint_count, prm.shell_distance));
	}
	for (uint32_t k = 0; k < packed.key_index->count; k++) {
		int64_t t = packed.key_index->times[k];

		if (t < 0 || t > c->duration_ns)
			continue;       /* sampled clamped: another time */
		clip_sample_at(c, t, t, a);
		clip_sample_at(&packed, t, t, b);
		keys = fmax(keys, shell_difference(a, b, c->joint_count, prm.shell_distance));
	}
	*at_keys = fmax(*at_keys, keys / prm.precision);
	*between = fmax(*between, worst / prm.precision);
	/* Its key storage and index are its own now. */
	copy->key_storage = packed.key_storage;
	copy->key_storage_bytes = packed.key_storage_bytes;
	clip_free_index(&packed);
	free(a);
	free(b);
	return 1;
}

static void test_compressed_index_within_precision(void **state)
{
	double at_keys = 0, between = 0;
	int packed = 0;

	(void)state;
	for (int i = 0; i < 200; i++) {
		int aligned = i % 3 != 0;
		uint32_t joints = aligned ? 1 + rnd_u32() % 32 : 1 + rnd_u32() % 6;
		uint64_t seed = rng;
		struct clip *c = random_clip(joints, aligned), *copy;

		rng = seed;
		copy = random_clip(joints, aligned);
		packed += check_compressed(c, copy, &at_keys, &between);
		clip_free(c);
		clip_free(copy);
	}
	print_message("  %d of 200 clips compressed; largest error over the precision: %.3g at the "
		      "key times, %.3g between\n", packed, at_keys, between);
	assert_true(packed >= 100);
	/* At the shared key times, the codec's bound (it measures there).
	 * Between them the compressed channels are interpolated, each within
	 * it, but a curve channel of the same joint (kept exact) may scale
	 * the rotation's error beyond what it did at the keys: these random
	 * curves overshoot to scales of 10 and more.  Bounded loosely. */
	assert_true(at_keys <= 1.001);
	assert_true(between <= 4.0);
}

/* One joint whose hermite translation is known at its midpoint. */
static void test_index_hand_values(void **state)
{
	static const int64_t times[] = { 0, 1000000000 };
	/* value, in-tangent, out-tangent per key */
	static const float hermite[] = { 0, 0, 0, 0, 0, 0, 4, 0, 0,
					 1, 0, 0, 4, 0, 0, 0, 0, 0 };
	static const int64_t rtimes[] = { 0, 500000000, 1000000000 };
	/* Rotations about z: 0, 90 and 180 degrees. */
	static const float rot[] = { 0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f, 0, 0, 1, 0 };
	struct clip *c = calloc(1, sizeof *c);
	struct transform out;

	(void)state;
	assert_non_null(c);
	c->joint_count = 1;
	c->duration_ns = 1000000000;
	c->tracks = calloc(1, sizeof *c->tracks);
	assert_non_null(c->tracks);
	c->tracks[0].t = (struct track){ .count = 2, .interp = INTERP_HERMITE, .width = 3,
					 .times = times, .values = hermite };
	c->tracks[0].r = (struct track){ .count = 3, .interp = INTERP_LINEAR, .width = 4,
					 .times = rtimes, .values = rot };
	assert_int_equal(clip_index_keys(c), 0);
	assert_non_null(c->key_index);
	/* h00 0 + h10 4 + h01 1 + h11 4 at u = 1/2: 0.5 + 0.5 - 0.5 = 0.5. */
	clip_sample(c, 500000000, &out);
	assert_true(fabsf(out.t.x - 0.5f) < 1e-6f);
	/* u = 1/4: h10 = 9/64, h01 = 10/64, h11 = -3/64: (36 + 10 - 12) / 64. */
	clip_sample(c, 250000000, &out);
	assert_true(fabsf(out.t.x - 34.0f / 64.0f) < 1e-6f);
	/* 45 degrees about z at a quarter of the way. */
	assert_true(fabsf(out.r.z - sinf((float)M_PI / 8)) < 1e-6f);
	assert_true(fabsf(out.r.w - cosf((float)M_PI / 8)) < 1e-6f);
	free(c->tracks);
	c->tracks = NULL;
	clip_free(c);
}

/* Keys at so many different times that the index would outweigh them. */
static void test_index_left_out_when_too_large(void **state)
{
	uint32_t joints = 64, keys = 64;
	struct clip *c = calloc(1, sizeof *c);
	int64_t *t = malloc((size_t)joints * keys * sizeof *t);
	float *v = malloc((size_t)joints * keys * 3 * sizeof *v);
	struct transform a[64], b[64];

	(void)state;
	assert_true(c && t && v);
	c->joint_count = joints;
	c->duration_ns = 1000000000;
	c->tracks = calloc(joints, sizeof *c->tracks);
	assert_non_null(c->tracks);
	for (uint32_t j = 0; j < joints; j++) {
		for (uint32_t k = 0; k < keys; k++) {
			t[j * keys + k] = (int64_t)k * 15000000 + j * 7919;     /* all distinct */
			for (int ch = 0; ch < 3; ch++)
				v[(j * keys + k) * 3 + ch] = rnd_f(-1, 1);
		}
		c->tracks[j].t = (struct track){ .count = keys, .interp = INTERP_LINEAR, .width = 3,
						 .times = t + j * keys, .values = v + j * keys * 3 };
	}
	clip_sample(c, 333333333, a);
	assert_int_equal(clip_index_keys(c), 0);
	assert_null(c->key_index);
	clip_sample(c, 333333333, b);
	assert_memory_equal(a, b, sizeof a);
	free(c->tracks);
	c->tracks = NULL;
	free(t);
	free(v);
	clip_free(c);
}

/* No keys at all, or only global-sequence tracks: nothing to index. */
static void test_index_nothing_to_index(void **state)
{
	struct clip *c = calloc(1, sizeof *c);

	(void)state;
	assert_non_null(c);
	c->joint_count = 3;
	c->duration_ns = 1000;
	c->tracks = calloc(3, sizeof *c->tracks);
	assert_non_null(c->tracks);
	assert_int_equal(clip_index_keys(c), 0);
	assert_null(c->key_index);
	clip_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_matches_plain_sampler),
		cmocka_unit_test(test_index_hand_values),
		cmocka_unit_test(test_index_left_out_when_too_large),
		cmocka_unit_test(test_index_nothing_to_index),
		cmocka_unit_test(test_compressed_index_within_precision),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
