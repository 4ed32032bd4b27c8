/*
 * bench_codec - compressed clips (clip_compress) against raw frames: size,
 * error and sampling speed, side by side in one run.
 *
 * Size and error: bytes per joint-frame of the frames as stored (raw: the
 * frames plus their blocks of eight, as the importer keeps them without
 * compression; compressed: the codec's one allocation) and the worst error
 * on the metric, measured here again, independently of what the builder
 * measured: every frame sampled from both clips, taken to model space,
 * the points at the shell distance along each joint's axes compared.
 * For the real MD5 clips of the shared test data (skipped when absent),
 * each clip and their total; for its real .x clips (keyed: their key
 * index's poses compressed), each clip's bytes per key raw and compressed
 * and the worst error at its shared key times; for generated clips (a spine with limbs,
 * 200 frames at 30 fps, rotations drifting 1-5 degrees a frame, as
 * bench_pose makes them) of 8 to 256 joints; and for a still pose clip
 * (31 frames x 110 joints that never move).
 *
 * Speed: ns per joint of clip_sample in playback order (1/60 s a step,
 * looping) and at random times, and of clip_sample_matrices (the stream's
 * path) in playback order, raw and compressed, per joint count.  The two
 * storages run alternately over ROUNDS rounds (thread CPU time, about
 * 20 ms each); printed: the minimum and median of each, the ratio of the
 * minimums and the spread (lowest..highest) of the rounds' ratios.  The
 * last column is the compressed playback figure per joint over the
 * 64-joint one (small rigs: goal 3).  The machine's other load shows in
 * these figures; callgrind instruction counts are the repeatable A/B.
 *
 * ACL beside them: with `make bench ACL_DIR=<ACL 2.1's sources>
 * RTM_DIR=<rtm's>` (never part of the tree; tests/bench/acl_compare.cpp),
 * the same raw frames are also compressed by ACL (default settings, its
 * qvvf metric at the same precision and shell distance per track): its
 * bytes per joint-frame, its worst error measured here by the same
 * function, and its decompression of a whole pose (seek, then
 * decompress_tracks) in playback and at random times, taking turns with
 * the raw and compressed clips in the same rounds (the order rotating).
 */
#include <dirent.h>
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
#include "tests/support/testdata.h"
#include "tests/support/shell_error.h"

#ifdef BENCH_ACL
#include "tests/bench/acl_compare.h"
#else
/* Without ACL_DIR there is no ACL to compare with. */
struct acl_clip;
static struct acl_clip *acl_clip_compress(const float *frames, uint32_t joints,
					  uint32_t frame_count, uint32_t rate,
					  const int32_t *parents, float precision, float shell_distance)
{
	(void)frames, (void)joints, (void)frame_count, (void)rate, (void)parents;
	(void)precision, (void)shell_distance;
	return NULL;
}
static size_t acl_clip_bytes(const struct acl_clip *c)
{
	(void)c;
	return 0;
}
static void acl_clip_sample(struct acl_clip *c, float seconds, float *out)
{
	(void)c, (void)seconds, (void)out;
}
static void acl_clip_free(struct acl_clip *c)
{
	(void)c;
}
#endif

#define FRAMES 200
#define RATE 30
#define ROUNDS 11
#define ROUND_SECONDS 0.02
#define MAX_CLIPS 256

static volatile float sink;
static uint64_t rng = 0x243f6a8885a308d3ull;

static double rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL) {
		fprintf(stderr, "bench_codec: out of memory\n");
		exit(1);
	}
	return p;
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

/* A skeleton of n joints: a spine, then limbs of chains off earlier joints. */
static struct skeleton *make_skeleton(uint32_t n)
{
	struct skeleton *s = skeleton_new(n);
	uint32_t spine = n / 8 > 4 ? n / 8 : 4;

	if (s == NULL)
		exit(1);
	for (uint32_t i = 1; i < n; i++)
		s->parents[i] = i < spine || rnd() >= 0.2 ? (int32_t)i - 1 : (int32_t)(rnd() * i);
	return s;
}

/* A raw uniform clip (frames and their blocks, as the importer makes it);
 * still: every joint holds one pose. */
static struct clip *make_clip(uint32_t n, uint32_t frames, int still)
{
	struct clip *c = calloc(1, sizeof *c);

	if (c == NULL)
		exit(1);
	c->joint_count = n;
	c->frame_count = frames;
	c->frame_rate = RATE;
	c->duration_ns = clip_frames_duration(frames - 1, RATE);
	c->loop = LOOP_LOOP;
	c->frames = xmalloc((size_t)frames * n * sizeof *c->frames);
	for (uint32_t j = 0; j < n; j++) {
		quat r = axis_angle(random_dir(), rnd() * M_PI);
		vec3 axis = random_dir(), bone = vec3_scale(random_dir(), 10.0f);
		double speed = still ? 0 : (1 + 4 * rnd()) * M_PI / 180;

		for (uint32_t f = 0; f < frames; f++) {
			struct transform *x = &c->frames[(size_t)f * n + j];

			if (!still) {
				axis = vec3_add(axis, vec3_scale(random_dir(), 0.05f));
				r = quat_normalize(quat_mul(axis_angle(axis, speed), r));
			}
			x->r = r;
			x->t = j == 0 && !still ? vec3_make((float)f * 0.5f, 0, 90) : bone;
			x->s = vec3_make(1, 1, 1);
		}
	}
	if (clip_block_frames(c) != 0)
		exit(1);
	return c;
}

/* A copy of a raw clip's frames, compressed. */
static struct clip *compressed_copy(const struct clip *raw, const struct skeleton *s,
				    const struct clip_codec_params *p)
{
	struct clip *c = calloc(1, sizeof *c);

	if (c == NULL)
		exit(1);
	*c = *raw;
	c->name = NULL;
	c->block_storage = NULL;
	c->frame_blocks = NULL;
	c->bounds = NULL;
	c->frames = xmalloc((size_t)raw->frame_count * raw->joint_count * sizeof *c->frames);
	memcpy(c->frames, raw->frames, (size_t)raw->frame_count * raw->joint_count * sizeof *c->frames);
	if (clip_compress(c, s->parents, p) != 0 || c->packed == NULL) {
		fprintf(stderr, "bench_codec: clip_compress failed\n");
		exit(1);
	}
	return c;
}

/* Bytes of the frames as stored. */
static size_t frame_bytes(const struct clip *c)
{
	if (c->packed != NULL)
		return clip_packed_bytes(c);
	return (size_t)c->frame_count * c->joint_count * sizeof(struct transform) +
	       c->block_storage_bytes;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum kind { PLAYBACK, RANDOM, MATRICES, KINDS };
static const char *const kind_names[KINDS] = { "playback", "random", "matrices" };

struct subject {
	const struct clip *clip;        /* ACL's subject: the raw clip, for its times */
	struct transform *local;
	mat34 *mats;
	const int64_t *times;           /* random times, TIMES of them */
	struct acl_clip *acl;           /* non-NULL: ACL decompresses into acl_out */
	float *acl_out;                 /* joint_count * 10 floats */
};
#define TIMES 4096

/* `iters` samples of kind k; returns the checksum. */
static float run(const struct subject *s, enum kind k, uint32_t iters)
{
	const struct clip *c = s->clip;
	int64_t elapsed = 0, step = NS_PER_SEC / 60;
	float sum = 0;

	for (uint32_t i = 0; i < iters; i++) {
		struct clip_time ct;

		if (s->acl != NULL) {
			int64_t t = k == RANDOM ? s->times[i % TIMES] :
						  clip_map_time(c, elapsed, LOOP_LOOP).t_ns;

			acl_clip_sample(s->acl, (float)((double)t * 1e-9), s->acl_out);
			sum += s->acl_out[(i % c->joint_count) * 10 + 3];
			elapsed += step;
			continue;
		}
		switch (k) {
		case PLAYBACK:
			ct = clip_map_time(c, elapsed, LOOP_LOOP);
			clip_sample(c, ct.t_ns, s->local);
			sum += s->local[i % c->joint_count].r.x;
			break;
		case RANDOM:
			clip_sample(c, s->times[i % TIMES], s->local);
			sum += s->local[i % c->joint_count].r.x;
			break;
		default:
			ct = clip_map_time(c, elapsed, LOOP_LOOP);
			clip_sample_matrices(c, ct.t_ns, ct.t_ns, ROOT_RAW, &ct, s->local, s->mats);
			sum += s->mats[i % c->joint_count].m[0][0];
			break;
		}
		elapsed += step;
	}
	return sum;
}

/* ns per joint of one round of about ROUND_SECONDS. */
static double timed(const struct subject *s, enum kind k, uint32_t iters)
{
	double t0 = cpu_now();

	sink += run(s, k, iters);
	return (cpu_now() - t0) * 1e9 / iters / s->clip->joint_count;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Raw, compressed and (when acl is not NULL) ACL in turns, the order
 * rotating each round; prints a line (two with ACL), returns the
 * compressed minimum. */
static double compare(const struct subject *raw, const struct subject *pk,
		      const struct subject *acl, enum kind k, uint32_t joints)
{
	const struct subject *who[3] = { raw, pk, acl };
	double t[3][ROUNDS], ratio[ROUNDS], aratio[ROUNDS], mr, mp, t0;
	double *tr = t[0], *tp = t[1], *ta = t[2];
	int subjects = acl != NULL ? 3 : 2;
	uint32_t iters = 64;

	/* Calibrate on the raw clip. */
	for (;;) {
		t0 = cpu_now();
		sink += run(raw, k, iters);
		if (cpu_now() - t0 > ROUND_SECONDS / 4 || iters > (1u << 26))
			break;
		iters *= 2;
	}
	iters = (uint32_t)(iters * (ROUND_SECONDS / fmax(cpu_now() - t0, 1e-6)));
	if (iters == 0)
		iters = 1;
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < subjects; i++) {
			int w = (r + i) % subjects;

			t[w][r] = timed(who[w], k, iters);
		}
		ratio[r] = tp[r] / tr[r];
		if (acl != NULL)
			aratio[r] = tp[r] / ta[r];
	}
	for (int i = 0; i < subjects; i++)
		qsort(t[i], ROUNDS, sizeof t[i][0], cmp_double);
	qsort(ratio, ROUNDS, sizeof *ratio, cmp_double);
	mr = tr[0];
	mp = tp[0];
	printf("  %4u joints %-9s raw %6.2f (median %6.2f)  compressed %6.2f (median %6.2f) ns/joint"
	       "  x%.2f (rounds %.2f..%.2f)", joints, kind_names[k], mr, tr[ROUNDS / 2], mp,
	       tp[ROUNDS / 2], mp / mr, ratio[0], ratio[ROUNDS - 1]);
	if (acl != NULL) {
		qsort(aratio, ROUNDS, sizeof *aratio, cmp_double);
		printf("\n  %4u joints %-9s ACL %6.2f (median %6.2f) ns/joint: compressed over ACL x%.2f"
		       " (rounds %.2f..%.2f)", joints, kind_names[k], ta[0], ta[ROUNDS / 2], mp / ta[0],
		       aratio[0], aratio[ROUNDS - 1]);
	}
	return mp;
}

/* A raw clip's frames compressed by ACL (NULL without ACL); *bytes its
 * size, *error its worst error measured here on the metric, as
 * measured_error does the codec's (ACL's poses at every frame). */
static struct acl_clip *acl_side(const struct skeleton *s, const struct clip *raw,
				 const struct clip_codec_params *prm, size_t *bytes, double *error)
{
	size_t n = (size_t)raw->frame_count * raw->joint_count;
	float *fl = xmalloc(n * 10 * sizeof *fl);
	struct acl_clip *acl;
	struct clip *dec;

	for (size_t i = 0; i < n; i++) {
		const struct transform *x = &raw->frames[i];
		float v[10] = { x->t.x, x->t.y, x->t.z, x->r.x, x->r.y, x->r.z, x->r.w,
				x->s.x, x->s.y, x->s.z };

		memcpy(fl + i * 10, v, sizeof v);
	}
	acl = acl_clip_compress(fl, raw->joint_count, raw->frame_count, raw->frame_rate, s->parents,
				prm->precision, prm->shell_distance);
	if (acl == NULL) {
		free(fl);
		return NULL;
	}
	*bytes = acl_clip_bytes(acl);
	/* ACL's pose at each frame, as a raw clip of its own. */
	dec = calloc(1, sizeof *dec);
	if (dec == NULL)
		exit(1);
	*dec = *raw;
	dec->name = NULL;
	dec->block_storage = NULL;
	dec->frame_blocks = NULL;
	dec->bounds = NULL;
	dec->packed = NULL;
	dec->frames = xmalloc(n * sizeof *dec->frames);
	for (uint32_t f = 0; f < raw->frame_count; f++) {
		acl_clip_sample(acl, (float)f / (float)raw->frame_rate, fl);
		for (uint32_t j = 0; j < raw->joint_count; j++) {
			const float *v = fl + (size_t)j * 10;

			dec->frames[(size_t)f * raw->joint_count + j] = (struct transform){
				vec3_make(v[0], v[1], v[2]), quat_make(v[3], v[4], v[5], v[6]),
				vec3_make(v[7], v[8], v[9])
			};
		}
	}
	if (clip_block_frames(dec) != 0)
		exit(1);
	*error = shell_error(s, raw, dec, prm->shell_distance);
	clip_free(dec);
	free(fl);
	return acl;
}

static void speed_and_size(const struct clip_codec_params *prm)
{
	static const uint32_t counts[] = { 8, 15, 16, 31, 64, 110, 256 };
	double per_joint[sizeof counts / sizeof counts[0]][KINDS];
	const size_t nc = sizeof counts / sizeof counts[0];
	int64_t *times = xmalloc(TIMES * sizeof *times);

	printf("bench_codec: generated clips (%u frames at %u fps), precision %g at %g\n", FRAMES,
	       RATE, prm->precision, prm->shell_distance);
#ifndef BENCH_ACL
	printf("  (no ACL beside them: make bench ACL_DIR=<ACL's sources> RTM_DIR=<rtm's> adds it)\n");
#endif
	for (size_t i = 0; i < nc; i++) {
		uint32_t n = counts[i];
		struct skeleton *s = make_skeleton(n);
		struct clip *raw = make_clip(n, FRAMES, 0);
		struct clip *pk;
		struct subject a, b, c;
		struct acl_clip *acl;
		size_t acl_bytes = 0;
		double acl_error = 0;
		float berr, bprec, bshell;
		double cells = (double)n * FRAMES;

		memcpy(s->rest, raw->frames, n * sizeof *s->rest);
		pk = compressed_copy(raw, s, prm);
		clip_packed_error(pk, &berr, &bprec, &bshell);
		for (int t = 0; t < TIMES; t++)
			times[t] = (int64_t)(rnd() * (double)raw->duration_ns);
		printf("  %4u joints: raw %.2f bytes/joint-frame, compressed %.2f (%zu bytes), worst "
		       "error %.4g measured here (%.4g by the builder)\n", n, frame_bytes(raw) / cells,
		       frame_bytes(pk) / cells, frame_bytes(pk), shell_error(s, raw, pk, bshell),
		       berr);
		acl = acl_side(s, raw, prm, &acl_bytes, &acl_error);
		if (acl != NULL)
			printf("  %4u joints: ACL %.2f bytes/joint-frame (%zu bytes), worst error %.4g "
			       "measured here\n", n, acl_bytes / cells, acl_bytes, acl_error);
		a = (struct subject){ raw, xmalloc(n * sizeof(struct transform)), xmalloc(n * sizeof(mat34)),
				      times, NULL, NULL };
		b = (struct subject){ pk, xmalloc(n * sizeof(struct transform)), xmalloc(n * sizeof(mat34)),
				      times, NULL, NULL };
		c = (struct subject){ raw, NULL, NULL, times, acl, xmalloc(n * 10 * sizeof(float)) };
		for (int k = 0; k < KINDS; k++) {
			per_joint[i][k] = compare(&a, &b, acl != NULL && k != MATRICES ? &c : NULL,
						  (enum kind)k, n);
			printf("\n");
		}
		acl_clip_free(acl);
		free(c.acl_out);
		free(a.local);
		free(a.mats);
		free(b.local);
		free(b.mats);
		clip_free(raw);
		clip_free(pk);
		skeleton_free(s);
	}
	printf("  compressed ns per joint over the 64-joint figure (small rigs):\n");
	for (int k = 0; k < KINDS; k++) {
		printf("    %-9s", kind_names[k]);
		for (size_t i = 0; i < nc; i++)
			printf(" %u: %.2f", counts[i], per_joint[i][k] / per_joint[4][k]);
		printf("\n");
	}
	free(times);
}

static void still_clip(const struct clip_codec_params *prm)
{
	struct skeleton *s = make_skeleton(110);
	struct clip *raw = make_clip(110, 31, 1), *pk;

	memcpy(s->rest, raw->frames, 110 * sizeof *s->rest);
	pk = compressed_copy(raw, s, prm);
	printf("bench_codec: a still pose clip (110 joints x 31 frames): raw %zu bytes, compressed "
	       "%zu bytes, worst error %.3g\n", frame_bytes(raw), frame_bytes(pk),
	       shell_error(s, raw, pk, prm->shell_distance));
	{
		size_t acl_bytes = 0;
		double acl_error = 0;
		struct acl_clip *acl = acl_side(s, raw, prm, &acl_bytes, &acl_error);

		if (acl != NULL)
			printf("  ACL %zu bytes, worst error %.3g\n", acl_bytes, acl_error);
		acl_clip_free(acl);
	}
	clip_free(raw);
	clip_free(pk);
	skeleton_free(s);
}

/* Every .md5anim under dir (one level of subfolders), into paths. */
static size_t find_anims(const char *dir, char **paths, size_t n, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d == NULL)
		return n;
	while ((e = readdir(d)) != NULL && n < MAX_CLIPS) {
		char path[4096];
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (len > 8 && strcmp(e->d_name + len - 8, ".md5anim") == 0)
			paths[n++] = strdup(path);
		else if (depth > 0)
			n = find_anims(path, paths, n, depth - 1);
	}
	closedir(d);
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void real_clips(const struct clip_codec_params *prm)
{
	const char *root = testdata_dir();
	char *paths[MAX_CLIPS];
	size_t n, raw_total = 0, pk_total = 0, acl_total = 0;
	double cells_total = 0, worst = 0, acl_worst = 0;
	int with_acl = 0;
	struct asset_options raw_opts = { .raw_clips = 1 }, pk_opts = { .codec = *prm };

	if (root == NULL) {
		printf("bench_codec: real MD5 clips: skipped (no shared test data)\n");
		return;
	}
	n = find_anims(testdata_path("md5"), paths, 0, 2);
	qsort(paths, n, sizeof *paths, cmp_str);
	printf("bench_codec: real MD5 clips (%zu), precision %g at %g\n", n, prm->precision,
	       prm->shell_distance);
	for (size_t i = 0; i < n; i++) {
		size_t len;
		char *buf = test_file_read(paths[i], &len), err[512];
		struct asset *ra = NULL, *pa = NULL;

		if (buf != NULL &&
		    asset_load_buffer_with(paths[i], buf, len, &raw_opts, &ra, err, sizeof err) == 0 &&
		    asset_load_buffer_with(paths[i], buf, len, &pk_opts, &pa, err, sizeof err) == 0) {
			const struct clip *rc = ra->clips[0], *pc = pa->clips[0];
			double cells = (double)rc->frame_count * rc->joint_count;
			double e = shell_error(ra->skeleton, rc, pc, prm->shell_distance);
			const char *base = strrchr(paths[i], '/');

			printf("  %-28s %3u joints x %4u frames: raw %.2f, compressed %.2f bytes/joint-frame,"
			       " worst error %.4g\n", base ? base + 1 : paths[i], rc->joint_count,
			       rc->frame_count, frame_bytes(rc) / cells, frame_bytes(pc) / cells, e);
			size_t acl_bytes = 0;
			double acl_error = 0;
			struct acl_clip *acl = acl_side(ra->skeleton, rc, prm, &acl_bytes, &acl_error);

			if (acl != NULL) {
				printf("  %-28s ACL %.2f bytes/joint-frame, worst error %.4g\n", "",
				       acl_bytes / cells, acl_error);
				acl_total += acl_bytes;
				acl_worst = fmax(acl_worst, acl_error);
				with_acl = 1;
				acl_clip_free(acl);
			}
			raw_total += frame_bytes(rc);
			pk_total += frame_bytes(pc);
			cells_total += cells;
			worst = fmax(worst, e);
		}
		asset_free(ra);
		asset_free(pa);
		free(buf);
		free(paths[i]);
	}
	if (cells_total > 0)
		printf("  total: raw %zu bytes (%.2f a joint-frame), compressed %zu bytes (%.2f), worst "
		       "error %.4g\n", raw_total, raw_total / cells_total, pk_total, pk_total / cells_total,
		       worst);
	if (with_acl)
		printf("  total: ACL %zu bytes (%.2f a joint-frame), worst error %.4g\n", acl_total,
		       acl_total / cells_total, acl_worst);
}

/* The worst error at the shared key times of a keyed clip, raw against
 * compressed (both sampled at those times, through the hierarchy). */
static double keyed_error(const struct skeleton *s, const struct clip *raw, const struct clip *pk,
			  float shell)
{
	uint32_t n = raw->joint_count;
	struct transform *la = xmalloc(n * sizeof *la), *lb = xmalloc(n * sizeof *lb);
	mat34 *ma = xmalloc(n * sizeof *ma), *mb = xmalloc(n * sizeof *mb);
	double worst = 0;

	for (uint32_t j = 0; j < n; j++)
		for (int ch = 0; ch < 3; ch++) {
			const struct track *tr = ch == 0 ? &raw->tracks[j].t :
						 ch == 1 ? &raw->tracks[j].r : &raw->tracks[j].s;

			for (uint32_t k = 0; k < tr->count; k++) {
				int64_t t = tr->times[k];

				if (t < 0 || t > raw->duration_ns)
					continue;
				clip_sample(raw, t, la);
				clip_sample(pk, t, lb);
				pose_local_to_model(s, la, ma);
				pose_local_to_model(s, lb, mb);
				for (uint32_t i = 0; i < n; i++)
					for (int axis = 0; axis < 3; axis++) {
						double e = 0;

						for (int r = 0; r < 3; r++) {
							double d = ((double)ma[i].m[r][axis] - mb[i].m[r][axis]) *
									   shell +
								   ((double)ma[i].m[r][3] - mb[i].m[r][3]);

							e += d * d;
						}
						worst = fmax(worst, sqrt(e));
					}
			}
		}
	free(la);
	free(lb);
	free(ma);
	free(mb);
	return worst;
}

/* Keys a keyed clip's joints hold. */
static uint64_t clip_keys(const struct clip *c)
{
	uint64_t n = 0;

	for (uint32_t j = 0; j < c->joint_count; j++)
		n += c->tracks[j].t.count + c->tracks[j].r.count + c->tracks[j].s.count;
	return n;
}

static void real_keyed_clips(const struct clip_codec_params *prm)
{
	static const char *const files[] = { "x/dxsdk/tiny.x", "x/assimp/anim_test.x",
					     "x/dxsdk/ball.x", "x/irrlicht/earth.x" };
	struct asset_options raw_opts = { .raw_clips = 1 }, pk_opts = { .codec = *prm };

	if (testdata_dir() == NULL) {
		printf("bench_codec: real .x clips: skipped (no shared test data)\n");
		return;
	}
	printf("bench_codec: real .x clips (keyed), precision %g at %g: bytes of the clip per key\n",
	       prm->precision, prm->shell_distance);
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		size_t len;
		char *buf = test_file_read(testdata_path(files[i]), &len), err[512];
		struct asset *ra = NULL, *pa = NULL;

		if (buf != NULL &&
		    asset_load_buffer_with(files[i], buf, len, &raw_opts, &ra, err, sizeof err) == 0 &&
		    asset_load_buffer_with(files[i], buf, len, &pk_opts, &pa, err, sizeof err) == 0 &&
		    ra->clip_count > 0 && ra->clips[0]->tracks != NULL) {
			const struct clip *rc = ra->clips[0], *pc = pa->clips[0];
			double keys = (double)clip_keys(rc);

			printf("  %-24s %3u joints, %6.0f keys: raw %.1f, compressed %.1f bytes a key (key "
			       "index %zu -> %zu bytes), worst error at the key times %.4g\n", files[i],
			       rc->joint_count, keys, clip_bytes(rc) / keys, clip_bytes(pc) / keys,
			       clip_index_bytes(rc), clip_index_bytes(pc),
			       keyed_error(ra->skeleton, rc, pc, prm->shell_distance));
		} else {
			printf("  %-24s skipped\n", files[i]);
		}
		asset_free(ra);
		asset_free(pa);
		free(buf);
	}
}

int main(void)
{
	/* ACL's defaults in Doom's units (1 unit = 1 inch): 0.01 cm at 3 cm. */
	struct clip_codec_params prm = { CLIP_CODEC_DEFAULT_PRECISION,
					 CLIP_CODEC_DEFAULT_SHELL_DISTANCE };

	real_clips(&prm);
	real_keyed_clips(&prm);
	still_clip(&prm);
	speed_and_size(&prm);
	printf("bench_codec: %s\n", sink == 12345.0f ? "" : "done");
	return 0;
}
