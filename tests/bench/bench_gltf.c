/*
 * bench_gltf - glTF: parse throughput and sampling beside MD5.
 *
 * Parsing, MB/s of the bytes read (the document and its buffers): a
 * synthetic scene from tests/support/gltf_scene (128 joints in a chain, a
 * skinned tube of 2048 vertices with two morph targets, four animations
 * keyed at 30 Hz over 4 s: LINEAR, STEP and CUBICSPLINE channels on every
 * joint, the weights), as a .glb from memory (the reader alone: gltf_parse
 * and gltf_finish; then the whole load: parse, import, key index), and as
 * a .gltf with its .bin on disk (the JSON's share is larger); then real
 * files from ../shared/testdata/gltf, each loaded whole from its path
 * (skipped, with a message, when absent).  Median of 9 runs of ~0.2 s and
 * their range; whole loads as the minimum CPU time (user + system) per
 * load over rounds, as bench_parse does.
 *
 * Sampling, ns per joint: the scene's "wave" clip (LINEAR, slerped
 * rotations) and "curl" (CUBICSPLINE) beside an MD5-style uniform clip of
 * the same joints and motion (the keyed clip sampled at 30 fps into
 * frames): playback order (60 Hz steps, looping), random access, and with
 * the model and skinning matrices.  Alternating rounds, the ratio taken
 * round by round (median and spread), as bench_m2 does.  Then vertices:
 * ns per vertex of the skinned, morphed tube (morph_skin_positions) beside
 * plain skinning (mesh_skin_positions).  Last, the asset's exact bytes by
 * part.  Figures only: nothing is asserted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "daemon/anim/morph.h"
#include "daemon/anim/pose.h"
#include "daemon/assets/asset.h"
#include "daemon/assets/sampling.h"
#include "daemon/formats/gltf/gltf.h"
#include "tests/support/gltf_scene.h"
#include "tests/support/memory_report.h"
#include "tests/support/testdata.h"

#define ROUNDS 11
#define RUN_SECONDS 0.04

static volatile float sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
	       (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (p == NULL) {
		fprintf(stderr, "bench_gltf: out of memory\n");
		exit(1);
	}
	return p;
}

/* The reader alone (0) or the whole load (1), from a GLB in memory. */
static void bench_memory_parse(const unsigned char *glb, size_t len, int load, const char *label)
{
	double runs[9];

	for (int r = 0; r < 9; r++) {
		double t0 = now(), t;
		long n = 0;

		do {
			struct gltf_model *m = NULL;
			struct asset *a = NULL;
			struct diag d = { 0 };
			char err[512];

			if (load ? asset_load_buffer("bench.glb", glb, len, &a, err, sizeof err) < 0
				 : gltf_parse(glb, len, &m, &d) < 0 || gltf_finish(m, len, &d) < 0) {
				fprintf(stderr, "bench_gltf: the synthetic scene fails: %s%s\n", d.msg,
					load ? err : "");
				exit(1);
			}
			gltf_model_free(m);
			asset_unref(a);
			n++;
			t = now() - t0;
		} while (t < 0.2);
		runs[r] = (double)len * (double)n / t / 1e6;
	}
	qsort(runs, 9, sizeof runs[0], cmp_d);
	printf("%-44s %7.1f MB/s (%zu kB, median of 9, range %.1f-%.1f)\n", label, runs[4],
	       len / 1024, runs[0], runs[8]);
}

/* The whole load from a path: read (buffers too), parse, import, free. */
static void bench_whole(const char *path, size_t bytes, const char *label)
{
	double per_load[9];
	char err[512];

	for (int r = 0; r < 9; r++) {
		double t0 = cpu_s(), t;
		long n = 0;

		do {
			struct asset *a = NULL;

			if (asset_load_file(path, 0, &a, err, sizeof err) < 0) {
				fprintf(stderr, "%s\n", err);
				exit(1);
			}
			asset_unref(a);
			n++;
			t = cpu_s() - t0;
		} while (t < 0.2);
		per_load[r] = t / (double)n;
	}
	qsort(per_load, 9, sizeof per_load[0], cmp_d);
	printf("%-44s %7.1f MB/s (%zu kB, CPU-time min of 9, median %.1f), %.3f ms/load\n", label,
	       (double)bytes / 1e6 / per_load[0], bytes / 1024,
	       (double)bytes / 1e6 / per_load[4], per_load[0] * 1e3);
}

/* The bytes an asset reads: its file and its buffer files. */
static size_t asset_read_bytes(const char *path)
{
	struct asset *a = NULL;
	char err[512];
	size_t n;

	if (asset_load_file(path, 0, &a, err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	n = (size_t)a->file_bytes;
	for (uint32_t i = 0; i < a->companion_count; i++)
		n += (size_t)a->companions[i].bytes;
	asset_unref(a);
	return n;
}

/* ---- sampling ----------------------------------------------------------- */

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
		clip_sample_at(s->clip, t, t, s->local);
		sum += s->local[i % n].r.x;
		if (k == FULL) {
			pose_local_to_skin(s->skel, s->local, s->model, s->skin);
			sum += s->skin[i % n].m[1][3];
		}
	}
	return sum;
}

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

static void compare(struct subject *g, struct subject *md5, enum kind k, const char *label)
{
	double a[ROUNDS], b[ROUNDS], ratio[ROUNDS];
	long ia = calibrate(g, k), ib = calibrate(md5, k);

	for (int r = 0; r < ROUNDS; r++) {
		if (r % 2 == 0) {
			a[r] = timed(g, k, ia);
			b[r] = timed(md5, k, ib);
		} else {
			b[r] = timed(md5, k, ib);
			a[r] = timed(g, k, ia);
		}
		ratio[r] = a[r] / b[r];
	}
	qsort(a, ROUNDS, sizeof a[0], cmp_d);
	qsort(b, ROUNDS, sizeof b[0], cmp_d);
	qsort(ratio, ROUNDS, sizeof ratio[0], cmp_d);
	printf("%-22s glTF %6.1f ns/joint, MD5-style %6.1f ns/joint: %.2fx (rounds %.2f..%.2f)\n",
	       label, a[ROUNDS / 2], b[ROUNDS / 2], ratio[ROUNDS / 2], ratio[0], ratio[ROUNDS - 1]);
}

/* The keyed clip at 30 fps into frames: an MD5 clip of the same motion. */
static struct clip *uniform_copy(const struct clip *keyed)
{
	uint32_t n = keyed->joint_count;
	uint32_t frames = (uint32_t)(keyed->duration_ns * 30 / NS_PER_SEC) + 1;
	struct clip *c = xcalloc(1, sizeof *c);

	c->joint_count = n;
	c->frame_count = frames;
	c->frame_rate = 30;
	c->duration_ns = clip_frames_duration(frames - 1, 30);
	c->loop = LOOP_LOOP;
	c->frames = xcalloc((size_t)frames * n, sizeof *c->frames);
	for (uint32_t f = 0; f < frames; f++)
		clip_sample(keyed, (int64_t)f * NS_PER_SEC / 30, c->frames + (size_t)f * n);
	if (clip_block_frames(c) != 0)
		exit(1);
	return c;
}

static void bench_sampling(const struct asset *a, const char *clip_name)
{
	const struct clip *keyed = asset_find_clip(a, clip_name);
	struct clip *flat = uniform_copy(keyed);
	uint32_t n = keyed->joint_count;
	struct subject g = { keyed, a->skeleton, xcalloc(n, sizeof(struct transform)),
			     xcalloc(n, sizeof(mat34)), xcalloc(n, sizeof(mat34)), 0 };
	struct subject md5 = { flat, a->skeleton, xcalloc(n, sizeof(struct transform)),
			       xcalloc(n, sizeof(mat34)), xcalloc(n, sizeof(mat34)), 0 };
	uint64_t rng = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < RANDOM_TIMES; i++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		random_times[i] = (int64_t)((rng >> 11) % (uint64_t)(keyed->duration_ns + 1));
	}
	printf("-- clip \"%s\" (%u joints, %.1f s)\n", clip_name, n,
	       time_to_seconds(keyed->duration_ns));
	compare(&g, &md5, PLAYBACK, "sample playback");
	compare(&g, &md5, RANDOM, "sample random");
	compare(&g, &md5, FULL, "sample+model+skin");
	free(g.local);
	free(g.model);
	free(g.skin);
	free(md5.local);
	free(md5.model);
	free(md5.skin);
	clip_free(flat);
}

/* ns per vertex of the morphed tube beside the same skinning without its
 * targets, alternating. */
static void bench_vertices(const struct asset *a)
{
	const struct mesh *m = a->meshes[0];
	uint32_t n = a->skeleton->joint_count;
	mat34 *model = xcalloc(n, sizeof *model);
	struct transform *local = xcalloc(n, sizeof *local);
	vec3 *out = xcalloc(m->vertex_count, sizeof *out);
	float w[2] = { 0.5f, 0.25f };
	double morph[ROUNDS], plain[ROUNDS];

	clip_sample(a->clips[0], NS_PER_SEC / 3, local);
	pose_local_to_model(a->skeleton, local, model);
	for (int r = 0; r < ROUNDS; r++)
		for (int which = 0; which < 2; which++) {
			double t0 = now(), t;
			long iters = 0;

			do {
				if (which == 0)
					morph_skin_positions(m, w, model, out);
				else
					mesh_skin_positions(m, model, out);
				sink += out[iters % m->vertex_count].x;
				iters++;
				t = now() - t0;
			} while (t < RUN_SECONDS);
			(which ? plain : morph)[r] = t * 1e9 / ((double)iters * m->vertex_count);
		}
	qsort(morph, ROUNDS, sizeof morph[0], cmp_d);
	qsort(plain, ROUNDS, sizeof plain[0], cmp_d);
	printf("%-22s %6.1f ns/vertex with 2 targets, %6.1f without (%u vertices, median of %d)\n",
	       "vertices", morph[ROUNDS / 2], plain[ROUNDS / 2], m->vertex_count, ROUNDS);
	free(model);
	free(local);
	free(out);
}

int main(void)
{
	static const struct gltfs_params p = { 128, 256, 1, 30, 4.0f, false };
	static const struct {
		const char *rel, *label;
	} real[] = {
		{ "gltf/sketchfab-poringu/scene.gltf", "Sketchfab scene.gltf + .bin (59 nodes)" },
		{ "gltf/godot/platformer_player.glb", "Godot platformer_player.glb (8 clips)" },
		{ "gltf/kaykit/Med_General.glb", "KayKit Med_General.glb (15 clips)" },
		{ "gltf/babylon-3dsmax/RiggedFigure.gltf", "Babylon RiggedFigure.gltf + .bin" },
		{ "gltf/kenney/character-ghost.glb", "Kenney character-ghost.glb (32 clips)" },
	};
	char dir[] = "/tmp/animd-bench-gltf-XXXXXX", path[512];
	struct gltfw *w = gltfs_build(&p);
	unsigned char *glb;
	size_t len;
	struct asset *a = NULL;
	char err[512];

	gltfw_glb(w, &glb, &len);
	printf("== glTF parsing (synthetic: 128 joints, 2048 vertices, 2 targets, 4 clips of 121 keys)\n");
	bench_memory_parse(glb, len, 0, "glb parse (validated document)");
	bench_memory_parse(glb, len, 1, "glb load (parse, import, index)");
	if (mkdtemp(dir) == NULL || gltfw_write(w, GLTFW_EXTERNAL, dir, "scene") < 0) {
		fprintf(stderr, "bench_gltf: cannot write the synthetic files\n");
		return 1;
	}
	snprintf(path, sizeof path, "%s/scene.gltf", dir);
	bench_whole(path, asset_read_bytes(path), ".gltf + .bin whole load from files");
	snprintf(path, sizeof path, "%s/scene.gltf", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/scene.bin", dir);
	unlink(path);
	rmdir(dir);
	if (testdata_dir() != NULL) {
		printf("== real files (../shared/testdata/gltf), whole loads\n");
		for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
			const char *rp = testdata_path(real[i].rel);

			snprintf(path, sizeof path, "%s", rp);
			bench_whole(path, asset_read_bytes(path), real[i].label);
		}
	}
	if (asset_load_buffer("bench.glb", glb, len, &a, err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	printf("== sampling beside an MD5-style uniform clip of the same joints and motion\n");
	math3d_simd_limit(MATH3D_SIMD_AVX2);
	if (math3d_simd_level() == MATH3D_SIMD_AVX2)
		printf("AVX2+FMA kernels:\n");
	else
		printf("baseline x86-64 (SSE2) kernels:\n");
	bench_sampling(a, "wave");
	bench_sampling(a, "curl");
	bench_vertices(a);
	printf("== the synthetic asset in memory (exact bytes, no allocator overhead)\n");
	memory_report_asset("scene.glb", a);
	memory_report_clip("  clip \"wave\"", a->clips[0]);
	asset_unref(a);
	free(glb);
	gltfw_free(w);
	return 0;
}
