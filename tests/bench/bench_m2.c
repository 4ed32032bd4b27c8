/*
 * bench_m2 - sampling an M2 clip beside an MD5-style clip of the same
 * joints and the same motion, and what a loaded M2 asset costs in memory.
 *
 * The model is written by tests/support/m2_writer: 128 bones (a spine with
 * limbs, listed children first), 8 looping sequences of 2 s back to back
 * on the shared timeline, every bone with three tracks of keys every 1/30 s
 * (61 per sequence): rotations that drift a few degrees per key, linear
 * (slerp) on two bones in three and bezier on the third; translations
 * linear, hermite and bezier in turn; scales hermite on every other bone.
 * It goes through the daemon's own path, m2_parse then m2_import, and
 * sequence 3 is timed.  The uniform clip beside it is that clip sampled at
 * its keys into 30 fps frames, so both describe the same motion.
 *
 * Figures, each in ns per joint: playback order (60 Hz steps, looping),
 * random access, and the same with the model and skinning matrices.  The
 * two clips are timed in alternating rounds (11 of them, ~40 ms each) and
 * the ratio is taken round by round, so that the machine's load hits both
 * alike; the medians are printed with the ratio's spread.  Memory: bytes
 * allocated by asset_load_buffer (glibc's mallinfo2, before and after: the
 * allocator's overhead included, but blocks its thread cache hands out
 * already count as in use, so a small load reads low) for the synthetic
 * model and the demo lantern, then the engine's exact count
 * (asset_memory: what was asked of malloc) by part, and the
 * timed clip's bytes per key (tests/support/memory_report.h).  Nothing is
 * asserted.
 */
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/pose.h"
#include "daemon/anim/skeleton.h"
#include "daemon/assets/asset.h"
#include "daemon/formats/diag.h"
#include "daemon/formats/m2/m2.h"
#include "daemon/import/m2_import.h"
#include "tests/support/m2_writer.h"
#include "tests/support/memory_report.h"

#define BONES 128
#define SEQUENCES 8
#define SEQ_MS 2000
#define GAP_MS 100
#define KEYS_PER_SEQ 61
#define TIMED_SEQUENCE 3
#define ROUNDS 11
#define RUN_SECONDS 0.04

static volatile float sink;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (p == NULL) {
		fprintf(stderr, "bench_m2: out of memory\n");
		exit(1);
	}
	return p;
}

static void random_unit(float v[3])
{
	double x = 2 * rnd() - 1, y = 2 * rnd() - 1, z = 2 * rnd() - 1;
	double n = sqrt(x * x + y * y + z * z);

	if (n < 1e-6)
		x = n = 1;
	v[0] = (float)(x / n);
	v[1] = (float)(y / n);
	v[2] = (float)(z / n);
}

/* q = rotation by `angle` about `axis` times q, normalised. */
static void rotate_quat(float q[4], const float axis[3], double angle)
{
	float s = (float)sin(angle / 2), c = (float)cos(angle / 2);
	float ax = axis[0] * s, ay = axis[1] * s, az = axis[2] * s;
	float x = c * q[0] + ax * q[3] + ay * q[2] - az * q[1];
	float y = c * q[1] - ax * q[2] + ay * q[3] + az * q[0];
	float z = c * q[2] + ax * q[1] - ay * q[0] + az * q[3];
	float w = c * q[3] - ax * q[0] - ay * q[1] - az * q[2];
	float n = sqrtf(x * x + y * y + z * z + w * w);

	q[0] = x / n;
	q[1] = y / n;
	q[2] = z / n;
	q[3] = w / n;
}

/* Values of one key: the value, then for cubic tracks in- and out-tangents
 * (or control points) near it. */
static void put_key(float *dst, const float *value, uint32_t width, int cubic)
{
	memcpy(dst, value, width * sizeof *dst);
	if (!cubic)
		return;
	for (uint32_t c = 0; c < width; c++) {
		dst[width + c] = value[c] + (float)(rnd() - 0.5) * 0.05f;
		dst[2 * width + c] = value[c] + (float)(rnd() - 0.5) * 0.05f;
	}
}

struct synth {
	struct m2w_sequence seq[SEQUENCES];
	struct m2w_bone bones[BONES];
	uint32_t *times;
	float *values[BONES][3];
};

/* mixed: the interpolations of the file comment; else every track linear
 * (what most classic models hold). */
static void synth_build(struct synth *s, struct m2w_file *out, int mixed)
{
	uint32_t keys = SEQUENCES * KEYS_PER_SEQ;
	uint32_t spine = BONES / 8;
	struct m2w_model m = { 0 };

	memset(s, 0, sizeof *s);
	s->times = xcalloc(keys, sizeof *s->times);
	for (uint32_t q = 0; q < SEQUENCES; q++) {
		struct m2w_sequence *sq = &s->seq[q];

		sq->id = (uint16_t)q;
		sq->start_ms = q * (SEQ_MS + GAP_MS);
		sq->end_ms = sq->start_ms + SEQ_MS;
		sq->flags = M2_SEQ_IN_MODEL;
		sq->next_variation = -1;
		sq->alias_next = (uint16_t)q;
		for (uint32_t k = 0; k < KEYS_PER_SEQ; k++)
			s->times[q * KEYS_PER_SEQ + k] = sq->start_ms + k * SEQ_MS / (KEYS_PER_SEQ - 1);
	}
	for (uint32_t i = 0; i < BONES; i++) {
		/* Stored children first: logical bone i is stored at BONES-1-i. */
		struct m2w_bone *b = &s->bones[BONES - 1 - i];
		int32_t parent = i == 0 ? -1 : i < spine || rnd() >= 0.2 ? (int32_t)i - 1 :
								  (int32_t)(rnd() * i);
		uint16_t t_interp = (uint16_t)(!mixed || i % 3 == 0 ? M2_INTERP_LINEAR :
					       i % 3 == 1 ? M2_INTERP_HERMITE : M2_INTERP_BEZIER);
		uint16_t r_interp = (uint16_t)(mixed && i % 3 == 2 ? M2_INTERP_BEZIER : M2_INTERP_LINEAR);
		uint16_t s_interp = (uint16_t)(mixed ? M2_INTERP_HERMITE : M2_INTERP_LINEAR);
		float q[4] = { 0, 0, 0, 1 }, axis[3], bone[3];
		float *tv = xcalloc((size_t)keys * 9, sizeof(float));
		float *rv = xcalloc((size_t)keys * 12, sizeof(float));
		float *sv = xcalloc((size_t)keys * 9, sizeof(float));
		double speed = (1 + 4 * rnd()) * M_PI / 180;

		random_unit(axis);
		rotate_quat(q, axis, rnd() * M_PI);
		random_unit(bone);
		b->parent = (int16_t)(parent < 0 ? -1 : BONES - 1 - parent);
		b->key_bone_id = i < 8 ? (int32_t)i : -1;
		b->flags = M2_BONE_ANIMATED;
		for (int c = 0; c < 3; c++)
			b->pivot[c] = bone[c] * (float)i * 0.05f;
		for (uint32_t k = 0; k < keys; k++) {
			float drift[3], t[3], sc[3];

			random_unit(drift);
			for (int c = 0; c < 3; c++)
				axis[c] += drift[c] * 0.05f;
			rotate_quat(q, axis, speed);
			for (int c = 0; c < 3; c++) {
				t[c] = bone[c] * 0.1f * (float)sin(k * 0.1 + c);
				sc[c] = 1.0f + 0.05f * (float)sin(k * 0.07 + i);
			}
			put_key(tv + (size_t)k * (t_interp == M2_INTERP_LINEAR ? 3 : 9), t, 3,
				t_interp != M2_INTERP_LINEAR);
			put_key(rv + (size_t)k * (r_interp == M2_INTERP_LINEAR ? 4 : 12), q, 4,
				r_interp != M2_INTERP_LINEAR);
			put_key(sv + (size_t)k * (s_interp == M2_INTERP_LINEAR ? 3 : 9), sc, 3,
				s_interp != M2_INTERP_LINEAR);
		}
		b->t = (struct m2w_track){ .interpolation = t_interp, .count = keys,
					   .times = s->times, .values = tv };
		b->r = (struct m2w_track){ .interpolation = r_interp, .count = keys,
					   .times = s->times, .values = rv };
		if (i % 2 == 0)
			b->s = (struct m2w_track){ .interpolation = s_interp, .count = keys,
						   .times = s->times, .values = sv };
		s->values[i][0] = tv;
		s->values[i][1] = rv;
		s->values[i][2] = sv;
	}
	m.sequence_count = SEQUENCES;
	m.sequences = s->seq;
	m.bone_count = BONES;
	m.bones = s->bones;
	m2w_build(&m, out);
}

static void synth_free(struct synth *s)
{
	for (uint32_t i = 0; i < BONES; i++)
		for (int c = 0; c < 3; c++)
			free(s->values[i][c]);
	free(s->times);
}

/* The keyed clip sampled at its keys: frames at 30 fps, the same motion. */
static struct clip *uniform_copy(const struct clip *keyed)
{
	uint32_t n = keyed->joint_count, frames = KEYS_PER_SEQ;
	struct clip *c = xcalloc(1, sizeof *c);

	c->joint_count = n;
	c->frame_count = frames;
	c->frame_rate = (frames - 1) * 1000 / SEQ_MS;
	c->duration_ns = clip_frames_duration(frames - 1, c->frame_rate);
	c->loop = LOOP_LOOP;
	c->frames = xcalloc((size_t)frames * n, sizeof *c->frames);
	for (uint32_t f = 0; f < frames; f++)
		clip_sample(keyed, (int64_t)f * SEQ_MS / (frames - 1) * 1000000, c->frames + (size_t)f * n);
	return c;
}

enum kind { PLAYBACK, RANDOM, FULL };

struct subject {
	const struct clip *clip;
	const struct skeleton *skel;
	struct transform *local;
	mat34 *model, *skin;
	int64_t elapsed;
};

#define RANDOM_TIMES 4096
static int64_t random_times[RANDOM_TIMES];

static float run(struct subject *s, enum kind k, long iters)
{
	uint32_t n = s->clip->joint_count;
	float sum = 0;

	for (long i = 0; i < iters; i++) {
		int64_t t;

		if (k == RANDOM) {
			t = random_times[i & (RANDOM_TIMES - 1)];
		} else {
			s->elapsed += NS_PER_SEC / 60;
			t = clip_map_time(s->clip, s->elapsed, LOOP_LOOP).t_ns;
		}
		clip_sample_at(s->clip, t, s->elapsed, s->local);
		sum += s->local[i % n].r.x;
		if (k == FULL) {
			pose_local_to_skin(s->skel, s->local, s->model, s->skin);
			sum += s->skin[i % n].m[1][3];
		}
	}
	return sum;
}

/* ns per joint of one timed run of about RUN_SECONDS. */
static double timed(struct subject *s, enum kind k, long iters)
{
	double t0 = now();

	sink = run(s, k, iters);
	return (now() - t0) * 1e9 / ((double)iters * s->clip->joint_count);
}

static long calibrate(struct subject *s, enum kind k)
{
	long iters = 16;
	double dt;

	for (;;) {
		double t0 = now();

		sink = run(s, k, iters);
		dt = now() - t0;
		if (dt > RUN_SECONDS / 10)
			break;
		iters *= 2;
	}
	return (long)((double)iters * RUN_SECONDS / dt) + 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void compare(struct subject *m2, struct subject *md5, enum kind k, const char *label)
{
	double a[ROUNDS], b[ROUNDS], ratio[ROUNDS];
	long ia = calibrate(m2, k), ib = calibrate(md5, k);

	for (int r = 0; r < ROUNDS; r++) {
		/* Alternate which goes first, so neither always runs warm. */
		if (r % 2 == 0) {
			a[r] = timed(m2, k, ia);
			b[r] = timed(md5, k, ib);
		} else {
			b[r] = timed(md5, k, ib);
			a[r] = timed(m2, k, ia);
		}
		ratio[r] = a[r] / b[r];
	}
	qsort(a, ROUNDS, sizeof a[0], cmp_double);
	qsort(b, ROUNDS, sizeof b[0], cmp_double);
	qsort(ratio, ROUNDS, sizeof ratio[0], cmp_double);
	printf("%-18s M2 %6.1f ns/joint, MD5-style %6.1f ns/joint: %.2fx (rounds %.2f..%.2f)\n",
	       label, a[ROUNDS / 2], b[ROUNDS / 2], ratio[ROUNDS / 2], ratio[0], ratio[ROUNDS - 1]);
}

static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static void bench_memory(const char *label, const struct m2w_file *f)
{
	struct asset *a = NULL;
	char err[256];
	size_t before = heap_in_use(), after;

	if (asset_load_buffer("bench.m2", f->buf, f->len, &a, err, sizeof err) != 0) {
		fprintf(stderr, "bench_m2: %s does not load: %s\n", label, err);
		exit(1);
	}
	after = heap_in_use();
	printf("%-18s %zu bytes of file, %zu bytes loaded (%.2f x the file)\n", label, f->len,
	       after - before, (double)(after - before) / (double)f->len);
	memory_report_asset("  exact", a);
	if (a->clip_count > TIMED_SEQUENCE)
		memory_report_clip("  sequence 3", a->clips[TIMED_SEQUENCE]);
	else if (a->clip_count > 0)
		memory_report_clip("  sequence 0", a->clips[0]);
	asset_unref(a);
}

static void bench_level(const struct m2_runtime *rt)
{
	const struct clip *keyed = rt->clips[TIMED_SEQUENCE];
	struct clip *flat = uniform_copy(keyed);
	uint32_t n = keyed->joint_count;
	struct subject m2 = { keyed, rt->skeleton, xcalloc(n, sizeof(struct transform)),
			      xcalloc(n, sizeof(mat34)), xcalloc(n, sizeof(mat34)), 0 };
	struct subject md5 = { flat, rt->skeleton, xcalloc(n, sizeof(struct transform)),
			       xcalloc(n, sizeof(mat34)), xcalloc(n, sizeof(mat34)), 0 };

	for (int i = 0; i < RANDOM_TIMES; i++)
		random_times[i] = (int64_t)(rnd() * (double)keyed->duration_ns);
	compare(&m2, &md5, PLAYBACK, "sample playback");
	compare(&m2, &md5, RANDOM, "sample random");
	compare(&m2, &md5, FULL, "sample+model+skin");
	free(m2.local);
	free(m2.model);
	free(m2.skin);
	free(md5.local);
	free(md5.model);
	free(md5.skin);
	clip_free(flat);
}

/* One model: its sampling beside the uniform copy, at both kernel levels. */
static void bench_model(int mixed)
{
	struct synth s;
	struct m2w_file f;
	struct m2_model *model = NULL;
	struct m2_runtime rt;
	struct diag d = { 0 };

	synth_build(&s, &f, mixed);
	if (m2_parse(f.buf, f.len, &model, &d) < 0 || m2_import(model, &rt) != 0) {
		fprintf(stderr, "bench_m2: the synthetic model fails: offset 0x%llx: %s\n",
			(unsigned long long)d.offset, d.msg);
		exit(1);
	}
	printf("== %s: %u bones, %u sequences of %d keys per track, sequence %d timed\n",
	       mixed ? "mixed: linear, hermite and bezier translations, slerped and bezier "
		       "rotations, hermite scales" : "every track linear (rotations slerped)",
	       BONES, SEQUENCES, KEYS_PER_SEQ, TIMED_SEQUENCE);
	math3d_simd_limit(MATH3D_SIMD_AVX2);
	if (math3d_simd_level() == MATH3D_SIMD_AVX2) {
		printf("AVX2+FMA kernels:\n");
		bench_level(&rt);
	}
	math3d_simd_limit(MATH3D_SIMD_BASE);
	printf("baseline x86-64 (SSE2) kernels:\n");
	bench_level(&rt);
	if (mixed) {
		printf("== memory per loaded asset (allocated by the load, file bytes excluded)\n");
		bench_memory("mixed 128-bone", &f);
	}
	m2_runtime_free(&rt);
	m2_model_free(model);
	m2w_file_free(&f);
	synth_free(&s);
}

int main(void)
{
	struct m2w_file demo;

	printf("bench_m2: M2 clips beside the same motion as 30 fps frames (an MD5-style clip)\n");
	bench_model(1);
	m2w_demo_model(&demo);
	bench_memory("demo lantern", &demo);
	m2w_file_free(&demo);
	bench_model(0);
	return 0;
}
