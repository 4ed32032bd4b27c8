/*
 * bench_pose - the pose engine's hot path, in ns per joint.
 *
 * Synthetic uniform clips of 64 and 256 joints, 200 frames at 30 fps, with
 * a plausible hierarchy (a spine with limbs branching off it) and
 * rotations that drift a few degrees per frame about slowly turning axes,
 * as motion capture does.  Per size:
 *
 *   sample playback   clip_map_time + clip_sample, time advancing 1/60 s a
 *                     step (a 60 Hz stream), looping
 *   sample random     clip_sample at random clip times (scrubbing: every
 *                     call touches two frames far from the last ones)
 *   sample+model+skin playback order, then the model and skinning
 *                     matrices (pose_local_to_skin: both in one pass)
 *   (separate calls)  the same with pose_local_to_model then
 *                     pose_model_to_skin
 *   sample+model one pass  playback order to model matrices as a stream
 *                     makes them (clip_sample_matrices: the blend and the
 *                     local matrices in one kernel, from the frames in
 *                     blocks of eight joints), against the same in two
 *                     steps (clip_sample, pose_local_to_model_still),
 *                     alternating as the layered figures below do
 *   cross-fade 2 clips   64 joints: two clips sampled in playback order and
 *                     blended (blend_override, the weight running 0 -> 1
 *                     over a second, as a fade does), as an instance with
 *                     one cross-fade evaluates it
 *   4 layers          the same plus a masked override (half the joints)
 *                     and an additive layer with its reference pose
 *   ...+model+skin    each of those two with the model and skinning
 *                     matrices, beside sample+model+skin: the cost of a
 *                     stream's pose
 *   The layered figures run alternately with their one-clip figure over 15
 *   rounds (thread CPU time) and print the ratio of the two minimums and
 *   the spread of the rounds' ratios.
 *
 * The figures come first with the kernels the library picks for this CPU
 * (AVX2+FMA where available), then with the baseline SSE2 ones.
 *
 * Each figure is the median of 7 timed runs (CLOCK_MONOTONIC) of about
 * 45 ms, about 0.3 s per figure after a calibration run.  A value of every
 * output goes into a checksum stored to a volatile sink, so nothing can be
 * optimised away (the engine is a separate library anyway).  Speed is
 * printed, not asserted.  The machine's other load shows up directly in
 * wall-clock figures; `valgrind --tool=callgrind` gives repeatable
 * instruction counts.  Last, the clips' bytes in memory, per joint and
 * frame (clip_bytes: exact, no allocator overhead).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/anim/blend.h"
#include "daemon/anim/clip.h"
#include "daemon/anim/pose.h"
#include "daemon/anim/skeleton.h"
#include "tests/support/memory_report.h"

#define FRAMES 200
#define RATE 30
#define RUNS 7
#define RUN_SECONDS 0.045

static volatile float sink;

static uint64_t rng = 0x243f6a8885a308d3ull;

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

static quat axis_angle(vec3 axis, double angle)
{
	double n = sqrt((double)axis.x * axis.x + (double)axis.y * axis.y + (double)axis.z * axis.z);
	double s = sin(angle / 2) / (n > 0 ? n : 1);

	return quat_make((float)(axis.x * s), (float)(axis.y * s), (float)(axis.z * s),
			 (float)cos(angle / 2));
}

static vec3 random_dir(void)
{
	return vec3_make((float)(2 * rnd() - 1), (float)(2 * rnd() - 1), (float)(2 * rnd() - 1));
}

struct fixture {
	struct skeleton *skel;
	struct clip *clip;
	struct clip *more[3];           /* the layers' clips */
	struct transform *local, *layer, *ref;
	float *mask;                    /* the masked layer's: half the joints */
	mat34 *model, *skin;
};

/* A clip of n joints for the skeleton fixture_init makes. */
static struct clip *bench_clip(uint32_t n)
{
	struct clip *c = calloc(1, sizeof *c);

	if (!c) {
		fprintf(stderr, "bench_pose: out of memory\n");
		exit(1);
	}
	c->joint_count = n;
	c->frame_count = FRAMES;
	c->frame_rate = RATE;
	c->duration_ns = clip_frames_duration(FRAMES - 1, RATE);
	c->loop = LOOP_LOOP;
	c->frames = malloc((size_t)FRAMES * n * sizeof *c->frames);
	if (!c->frames) {
		fprintf(stderr, "bench_pose: out of memory\n");
		exit(1);
	}
	for (uint32_t j = 0; j < n; j++) {
		quat r = axis_angle(random_dir(), rnd() * M_PI);
		vec3 axis = random_dir(), bone = vec3_scale(random_dir(), 10.0f);
		double speed = (1 + 4 * rnd()) * M_PI / 180;     /* 1-5 deg per frame */

		for (uint32_t f = 0; f < FRAMES; f++) {
			struct transform *x = &c->frames[(size_t)f * n + j];

			axis = vec3_add(axis, vec3_scale(random_dir(), 0.05f));
			r = quat_normalize(quat_mul(axis_angle(axis, speed), r));
			x->r = r;
			x->t = j == 0 ? vec3_make((float)f * 0.5f, 0, 90) : bone;
			x->s = vec3_make(1, 1, 1);
		}
	}
	/* As the MD5 importer leaves a clip: its frames in blocks too. */
	if (clip_block_frames(c) != 0) {
		fprintf(stderr, "bench_pose: out of memory\n");
		exit(1);
	}
	return c;
}

static void fixture_init(struct fixture *fx, uint32_t n)
{
	struct skeleton *s = skeleton_new(n);
	uint32_t spine = n / 8 > 4 ? n / 8 : 4;

	if (!s) {
		fprintf(stderr, "bench_pose: out of memory\n");
		exit(1);
	}
	/* A spine chain, then limbs: chains of 4-8 joints hanging off a random
	 * earlier joint. */
	for (uint32_t i = 1; i < n; i++) {
		if (i < spine)
			s->parents[i] = (int32_t)i - 1;
		else if (rnd() < 0.2)
			s->parents[i] = (int32_t)(rnd() * i);
		else
			s->parents[i] = (int32_t)i - 1;
	}
	fx->clip = bench_clip(n);
	fx->more[0] = fx->more[1] = fx->more[2] = NULL;
	memcpy(s->rest, fx->clip->frames, n * sizeof *s->rest);
	if (skeleton_compute_bind(s) != 0) {
		fprintf(stderr, "bench_pose: out of memory\n");
		exit(1);
	}
	fx->skel = s;
	fx->local = malloc(n * sizeof *fx->local);
	fx->layer = malloc(n * sizeof *fx->layer);
	fx->ref = malloc(n * sizeof *fx->ref);
	fx->mask = malloc(n * sizeof *fx->mask);
	fx->model = malloc(n * sizeof *fx->model);
	fx->skin = malloc(n * sizeof *fx->skin);
	if (!fx->local || !fx->layer || !fx->ref || !fx->mask || !fx->model || !fx->skin) {
		fprintf(stderr, "bench_pose: out of memory\n");
		exit(1);
	}
}

/* The layers' clips, drawn after the main one's (so the figures of one
 * clip see the same data as before there were layers), the additive
 * layer's reference pose (its first frame) and the mask: the subtree of
 * the joint half-way down the list. */
static void fixture_layers(struct fixture *fx)
{
	uint32_t n = fx->clip->joint_count, root = n / 2;

	for (int i = 0; i < 3; i++)
		fx->more[i] = bench_clip(n);
	memcpy(fx->ref, fx->more[2]->frames, n * sizeof *fx->ref);
	if (blend_mask_build(fx->skel, 1, &root, NULL, fx->mask) != 0) {
		fprintf(stderr, "bench_pose: bad mask\n");
		exit(1);
	}
}

static void fixture_free(struct fixture *fx)
{
	skeleton_free(fx->skel);
	clip_free(fx->clip);
	for (int i = 0; i < 3; i++)
		clip_free(fx->more[i]);
	free(fx->local);
	free(fx->layer);
	free(fx->ref);
	free(fx->mask);
	free(fx->model);
	free(fx->skin);
}

enum kind {
	PLAYBACK, RANDOM, FULL, FULL_SEPARATE, FADE2, LAYERS4, FADE2_FULL, LAYERS4_FULL,
	MODEL_TWO_STEP, MODEL_ONE_PASS,
};

#define RANDOM_TIMES 4096
static int64_t random_times[RANDOM_TIMES];

/* `iters` iterations of one figure; returns the checksum. */
static float run(struct fixture *fx, enum kind k, long iters, int64_t *elapsed)
{
	const struct clip *c = fx->clip;
	uint32_t n = c->joint_count;
	float sum = 0;

	for (long i = 0; i < iters; i++) {
		int64_t t;

		if (k == RANDOM) {
			t = random_times[i & (RANDOM_TIMES - 1)];
		} else {
			*elapsed += NS_PER_SEC / 60;
			t = clip_map_time(c, *elapsed, LOOP_LOOP).t_ns;
		}
		if (k == MODEL_ONE_PASS) {
			struct clip_time ct = { .t_ns = t };

			clip_sample_matrices(c, t, t, ROOT_RAW, &ct, fx->local, fx->model);
			pose_matrices_to_model_still(fx->skel, c->still_count, c->still_joints,
						     fx->model);
			sum += fx->model[i % n].m[1][3];
			continue;
		}
		clip_sample(c, t, fx->local);
		if (k == MODEL_TWO_STEP) {
			pose_local_to_model_still(fx->skel, fx->local, c->still_count,
						  c->still_joints, fx->model);
			sum += fx->model[i % n].m[1][3];
			continue;
		}
		if (k >= FADE2) {
			/* A fade's weight runs 0 -> 1 over a second of playback. */
			float w = (float)(*elapsed % NS_PER_SEC) / (float)NS_PER_SEC;

			clip_sample(fx->more[0], t, fx->layer);
			blend_override(fx->local, fx->layer, n, w, NULL);
			if (k == LAYERS4 || k == LAYERS4_FULL) {
				clip_sample(fx->more[1], t, fx->layer);
				blend_override(fx->local, fx->layer, n, 0.7f, fx->mask);
				clip_sample(fx->more[2], t, fx->layer);
				blend_additive(fx->local, fx->layer, fx->ref, n, 0.5f, NULL);
			}
		}
		sum += fx->local[i % n].r.x;
		if (k == FULL || k == FADE2_FULL || k == LAYERS4_FULL) {
			pose_local_to_skin(fx->skel, fx->local, fx->model, fx->skin);
			sum += fx->skin[i % n].m[1][3];
		} else if (k == FULL_SEPARATE) {
			pose_local_to_model(fx->skel, fx->local, fx->model);
			pose_model_to_skin(fx->skel, fx->model, fx->skin);
			sum += fx->skin[i % n].m[1][3];
		}
	}
	return sum;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double measure(struct fixture *fx, enum kind k)
{
	double per[RUNS], t0, dt;
	int64_t elapsed = 0;
	long iters = 16;

	/* Calibrate: double until one run takes at least a tenth of the
	 * target, then scale. */
	for (;;) {
		t0 = now();
		sink = run(fx, k, iters, &elapsed);
		dt = now() - t0;
		if (dt > RUN_SECONDS / 10)
			break;
		iters *= 2;
	}
	iters = (long)((double)iters * RUN_SECONDS / dt) + 1;
	for (int r = 0; r < RUNS; r++) {
		t0 = now();
		sink = run(fx, k, iters, &elapsed);
		dt = now() - t0;
		per[r] = dt * 1e9 / ((double)iters * fx->clip->joint_count);
	}
	qsort(per, RUNS, sizeof per[0], cmp_double);
	return per[RUNS / 2];
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Iterations of kind k that take about RUN_SECONDS. */
static long calibrate(struct fixture *fx, enum kind k, int64_t *elapsed)
{
	long iters = 16;
	double t0, dt;

	for (;;) {
		t0 = cpu_now();
		sink = run(fx, k, iters, elapsed);
		dt = cpu_now() - t0;
		if (dt > RUN_SECONDS / 10)
			break;
		iters *= 2;
	}
	return (long)((double)iters * RUN_SECONDS / dt) + 1;
}

/*
 * A layered kind against its one-clip kind as a ratio inside one run: the
 * two alternate over RATIO_ROUNDS rounds (thread CPU time), so the
 * machine's state moves both alike.  Prints the layered kind's minimum,
 * the ratio of the two minimums (the least disturbed rounds) and the
 * spread of the rounds' own ratios.
 */
#define RATIO_ROUNDS 15
static void measure_ratio(struct fixture *fx, enum kind layered, enum kind one, const char *label,
			  const char *one_label)
{
	double ratio[RATIO_ROUNDS], min_l = INFINITY, min_o = INFINITY;
	int64_t el_l = 0, el_o = 0;
	long it_l = calibrate(fx, layered, &el_l), it_o = calibrate(fx, one, &el_o);
	double per = 1e9 / (double)fx->clip->joint_count;

	for (int r = 0; r < RATIO_ROUNDS; r++) {
		double t0 = cpu_now(), tl, to;

		sink = run(fx, layered, it_l, &el_l);
		tl = (cpu_now() - t0) * per / (double)it_l;
		t0 = cpu_now();
		sink = run(fx, one, it_o, &el_o);
		to = (cpu_now() - t0) * per / (double)it_o;
		ratio[r] = tl / to;
		min_l = fmin(min_l, tl);
		min_o = fmin(min_o, to);
	}
	qsort(ratio, RATIO_ROUNDS, sizeof ratio[0], cmp_double);
	printf("%s %4u joints: %6.1f ns/joint, %.2fx %s (minimums of %d alternating rounds; "
	       "rounds %.2f-%.2f, median %.2f)\n", label, fx->clip->joint_count, min_l,
	       min_l / min_o, one_label, RATIO_ROUNDS, ratio[0], ratio[RATIO_ROUNDS - 1],
	       ratio[RATIO_ROUNDS / 2]);
}

static void bench_level(void)
{
	static const uint32_t sizes[] = { 64, 256 };
	static const struct { enum kind k; const char *label; } figures[] = {
		{ PLAYBACK, "sample playback  " },
		{ RANDOM, "sample random    " },
		{ FULL, "sample+model+skin" },
		{ FULL_SEPARATE, "  (separate calls)" },
	};

	rng = 0x243f6a8885a308d3ull;    /* the same clips for every level */
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
		struct fixture fx;

		fixture_init(&fx, sizes[si]);
		for (int i = 0; i < RANDOM_TIMES; i++)
			random_times[i] = (int64_t)(rnd() * (double)fx.clip->duration_ns);
		for (size_t f = 0; f < sizeof figures / sizeof figures[0]; f++) {
			double v = measure(&fx, figures[f].k);

			printf("%s %4u joints: %6.1f ns/joint (median of %d)\n", figures[f].label,
			       sizes[si], v, RUNS);
		}
		measure_ratio(&fx, MODEL_ONE_PASS, MODEL_TWO_STEP, "sample+model one pass",
			      "two steps");
		/* Layers: the 64-joint instance. */
		if (sizes[si] == 64) {
			static const struct { enum kind k; const char *label; bool full; } layered[] = {
				{ FADE2, "cross-fade 2 clips", false },
				{ LAYERS4, "4 layers         ", false },
				{ FADE2_FULL, "  +model+skin    ", true },
				{ LAYERS4_FULL, "4 layers+model+skin", true },
			};

			fixture_layers(&fx);
			for (size_t f = 0; f < sizeof layered / sizeof layered[0]; f++)
				measure_ratio(&fx, layered[f].k, layered[f].full ? FULL : PLAYBACK,
					      layered[f].label, layered[f].full ? "sample+model+skin"
										: "sample playback");
		}
		fixture_free(&fx);
	}
}

int main(void)
{
	printf("bench_pose: uniform clips, %d frames at %d fps; kernels: %s\n", FRAMES, RATE,
	       math3d_simd_level() == MATH3D_SIMD_AVX2 ? "AVX2+FMA (chosen at run time)" :
							 "baseline");
	bench_level();
	if (math3d_simd_level() != MATH3D_SIMD_BASE) {
		math3d_simd_limit(MATH3D_SIMD_BASE);
		printf("the same with the baseline x86-64 (SSE2) kernels, as on a CPU without AVX2:\n");
		bench_level();
	}
	printf("memory of those clips:\n");
	for (uint32_t n = 64; n <= 256; n *= 4) {
		struct fixture fx;
		char label[32];

		fixture_init(&fx, n);
		snprintf(label, sizeof label, "uniform %u joints", n);
		memory_report_clip(label, fx.clip);
		fixture_free(&fx);
	}
	return 0;
}
