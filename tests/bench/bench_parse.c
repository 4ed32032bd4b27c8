/*
 * bench_parse - parser throughput, MB/s of file parsed into validated
 * models (and the whole load path, conversion to runtime objects
 * included): MD5 on synthetic files the size of real Doom 3 assets (an
 * 110-joint anim of 300 frames and its mesh); .x on the DirectX SDK's
 * tiny.x (text, 1.4 MB; shapes1.x too as a whole load), a binary and a
 * compressed file from ../shared/testdata (skipped, with a message, when
 * it is absent); M2 on a
 * model from the tests' writer (120 bones stored children first, 60
 * sequences, 10 keys per sequence in each of 360 tracks), parsed from
 * memory; the .x text reader's decimal numbers (decimal_parse) beside
 * strtod on the same strings, ns per number.  Median of several runs
 * with their range; prints figures only.  Each .x file also as the daemon
 * and an outside comparison load it: asset_load_file from the path, then
 * asset_unref, repeated in one process, as MB/s of the minimum CPU time
 * (user + system) per load over rounds, with the minor page faults per
 * load (a load that keeps faulting pages in pays for it in system time).
 * Then what those MD5 and .x assets take in memory once loaded: exact
 * bytes by part, per clip, per joint and frame or per key
 * (tests/support/memory_report.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "daemon/assets/asset.h"
#include "daemon/formats/decimal.h"
#include "daemon/formats/m2/m2.h"
#include "daemon/formats/md5/md5.h"
#include "daemon/formats/x/x.h"
#include "tests/support/m2_writer.h"
#include "tests/support/md5_synth.h"
#include "tests/support/memory_report.h"
#include "tests/support/testdata.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

enum what { PARSE_ONLY, LOAD };

static void bench_file(const char *path, const char *label, enum what what)
{
	double runs[9];
	size_t len;
	char *buf = slurp(path, &len), err[512];

	if (buf == NULL) {
		fprintf(stderr, "bench_parse: cannot read %s\n", path);
		exit(1);
	}
	for (int r = 0; r < 9; r++) {
		double t0 = now_s(), t;
		int n = 0;

		do {
			if (what == LOAD) {
				struct asset *a = NULL;

				if (asset_load_buffer(path, buf, len, &a, err, sizeof err) < 0) {
					fprintf(stderr, "%s\n", err);
					exit(1);
				}
				asset_free(a);
			} else if (strstr(path, ".x") || strstr(path, ".X")) {
				struct x_tree tree;
				struct diag d = { 0 };

				if (x_parse(buf, len, &tree, &d) == 0)
					x_tree_free(&tree);
			} else if (strstr(path, ".md5anim")) {
				struct md5_anim *a = NULL;
				struct diag d = { 0 };

				md5_anim_parse(buf, len, &a, &d);
				md5_anim_free(a);
			} else {
				struct md5_model *m = NULL;
				struct diag d = { 0 };

				md5_mesh_parse(buf, len, &m, &d);
				md5_model_free(m);
			}
			n++;
			t = now_s() - t0;
		} while (t < 0.2);
		runs[r] = (double)len * n / t / 1e6;
	}
	qsort(runs, 9, sizeof runs[0], cmp_d);
	printf("%-38s %7.1f MB/s (%zu kB, median of 9, range %.1f-%.1f)\n", label, runs[4],
	       len / 1024, runs[0], runs[8]);
	free(buf);
}

/* CPU time (user + system) and minor faults so far. */
static double cpu_s(long *minflt)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	*minflt = u.ru_minflt;
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
	       (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* The whole load from the path: read, parse, import, free. */
static void bench_whole(const char *path, const char *label)
{
	double per_load[9], faults[9], mb;
	char err[512];
	FILE *f = fopen(path, "rb");

	if (f == NULL || fseek(f, 0, SEEK_END) != 0) {
		fprintf(stderr, "bench_parse: cannot read %s\n", path);
		exit(1);
	}
	mb = (double)ftell(f) / 1e6;
	fclose(f);
	for (int r = 0; r < 9; r++) {
		long f0, f1;
		double t0 = cpu_s(&f0), t;
		int n = 0;

		do {
			struct asset *a = NULL;

			if (asset_load_file(path, 0, &a, err, sizeof err) < 0) {
				fprintf(stderr, "%s\n", err);
				exit(1);
			}
			asset_unref(a);
			n++;
			t = cpu_s(&f1) - t0;
		} while (t < 0.2);
		per_load[r] = t / n;
		faults[r] = (double)(f1 - f0) / n;
	}
	qsort(per_load, 9, sizeof per_load[0], cmp_d);
	qsort(faults, 9, sizeof faults[0], cmp_d);
	printf("%-38s %7.1f MB/s (CPU-time min of 9, median %.1f, slowest %.1f), "
	       "%.1f minor faults/load\n", label, mb / per_load[0], mb / per_load[4],
	       mb / per_load[8], faults[4]);
}

/* M2 from memory: the writer's bytes, no file in between.  Parsing alone
 * (the validated model), then the whole load the daemon does: parse,
 * import into runtime objects, key indexes. */
/* The memory lines of one file: the asset, and its first clip. */
static void memory_file(const char *path, const char *label)
{
	struct asset *a = NULL;
	char err[512], clip[64];

	if (asset_load_file(path, 0, &a, err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	memory_report_asset(label, a);
	if (a->clip_count > 0) {
		snprintf(clip, sizeof clip, "  clip \"%.40s\"", a->clips[0]->name);
		memory_report_clip(clip, a->clips[0]);
	}
	asset_free(a);
}

/* A companion of the synthetic file, copied as a read would. */
static int bench_m2_companion(void *ctx, const char *name, char **buf, size_t *len, char *err,
			      size_t errlen)
{
	struct m2w_file *f = ctx;
	const char *stem = "synthetic";
	struct m2w_companion *c;

	(void)err;
	(void)errlen;
	if (strncmp(name, stem, strlen(stem)) != 0 ||
	    (c = m2w_companion(f, name + strlen(stem))) == NULL)
		return -ENOENT;
	*buf = malloc(c->len);
	if (*buf == NULL)
		return -ENOMEM;
	memcpy(*buf, c->buf, c->len);
	*len = c->len;
	return 0;
}

static void bench_m2(int load, uint32_t version)
{
	struct m2w_file f;
	struct asset_options o = { .read_companion = bench_m2_companion, .companion_ctx = &f };
	size_t bytes;
	double runs[9];
	char label[64];

	m2w_synth_version(&f, version, 120, 60, 10, 1);
	/* The load reads the companions too; the parse only the .m2. */
	bytes = f.len;
	for (uint32_t i = 0; load && i < f.companion_count; i++)
		bytes += f.companions[i].len;
	for (int r = 0; r < 9; r++) {
		double t0 = now_s(), t;
		int n = 0;

		do {
			struct m2_model *m = NULL;
			struct asset *a = NULL;
			struct diag d = { 0 };
			char err[256];

			if (load ? asset_load_buffer_with("synthetic.m2", f.buf, f.len, &o, &a, err,
							  sizeof err) < 0
				 : m2_parse(f.buf, f.len, &m, &d) < 0) {
				fprintf(stderr, "bench_parse: the synthetic M2 fails: offset 0x%llx: %s%s\n",
					(unsigned long long)d.offset, d.msg, load ? err : "");
				exit(1);
			}
			m2_model_free(m);
			asset_unref(a);
			n++;
			t = now_s() - t0;
		} while (t < 0.2);
		runs[r] = (double)bytes * n / t / 1e6;
	}
	qsort(runs, 9, sizeof runs[0], cmp_d);
	snprintf(label, sizeof label, "%s%s", load ? "m2 load (parse, import, index)"
						   : "m2 parse (validated model)",
		 version == 264 ? ", v264" : "");
	printf("%-38s %7.1f MB/s (%zu kB%s, median of 9)\n", label, runs[4], bytes / 1024,
	       version == 264 && load ? " with its .skin" : "");
	m2w_file_free(&f);
}

/* Where the benchmarks' results go, so the compiler keeps the work. */
static volatile double bench_sink;

/* decimal_parse beside strtod (on a NUL-terminated copy, as a reader
 * without its own must make) on numbers as exporters write them: %.6f of
 * model-sized values, the kind tiny.x is made of. */
static void bench_decimal(void)
{
	enum { N = 4096 };
	static char text[N][24];
	static size_t lens[N];
	double runs[2][9], sink = 0;
	uint64_t seed = 12345;

	for (int i = 0; i < N; i++) {
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		lens[i] = (size_t)snprintf(text[i], sizeof text[i], "%.6f",
					   ((double)(seed >> 33) / (double)(1u << 31) - 0.5) * 200.0);
	}
	for (int r = 0; r < 9; r++) {
		for (int which = 0; which < 2; which++) {
			double t0 = now_s(), t;
			long n = 0;

			do {
				for (int i = 0; i < N; i++) {
					double v = 0;

					if (which == 0) {
						decimal_parse(text[i], lens[i], &v);
					} else {
						char copy[32];

						memcpy(copy, text[i], lens[i] + 1);
						v = strtod(copy, NULL);
					}
					sink += v;
				}
				n += N;
				t = now_s() - t0;
			} while (t < 0.05);
			runs[which][r] = t / (double)n * 1e9;
		}
	}
	qsort(runs[0], 9, sizeof runs[0][0], cmp_d);
	qsort(runs[1], 9, sizeof runs[1][0], cmp_d);
	bench_sink = sink;
	printf("%-38s %7.1f ns/number (strtod %.1f ns: %.1fx)\n", "x text decimal_parse (%.6f numbers)",
	       runs[0][4], runs[1][4], runs[1][4] / runs[0][4]);
}

int main(void)
{
	char dir[] = "/tmp/animd-bench-parse-XXXXXX", path[256];

	if (mkdtemp(dir) == NULL || md5_synth_write(dir, "big", 110, 300, 24) < 0) {
		fprintf(stderr, "bench_parse: cannot write the synthetic files\n");
		return 1;
	}
	printf("== md5 parsing (synthetic 110 joints, 300 frames)\n");
	snprintf(path, sizeof path, "%s/big.md5anim", dir);
	bench_file(path, "md5anim parse", PARSE_ONLY);
	bench_file(path, "md5anim parse + convert to a clip", LOAD);
	printf("== md5 in memory once loaded (exact bytes, no allocator overhead)\n");
	memory_file(path, "md5anim 110 x 300");
	unlink(path);
	snprintf(path, sizeof path, "%s/big.md5mesh", dir);
	bench_file(path, "md5mesh parse", PARSE_ONLY);
	bench_file(path, "md5mesh parse + convert", LOAD);
	memory_file(path, "md5mesh 110 joints");
	unlink(path);
	rmdir(dir);
	printf("== M2 parsing (synthetic 120 bones, 60 sequences, 600 keys per track)\n");
	bench_m2(0, 0);
	bench_m2(1, 0);
	printf("== M2 version 264: per-sequence key arrays, the view in synthetic00.skin\n");
	bench_m2(0, 264);
	bench_m2(1, 264);
	if (testdata_dir() == NULL)
		return 0;
	printf("== .x parsing (real files from ../shared/testdata/x)\n");
	bench_decimal();
	snprintf(path, sizeof path, "%s", testdata_path("x/dxsdk/tiny.x"));
	bench_file(path, "x text (tiny.x) parse", PARSE_ONLY);
	bench_file(path, "x text (tiny.x) parse + import", LOAD);
	bench_whole(path, "x text (tiny.x) whole load");
	snprintf(path, sizeof path, "%s", testdata_path("x/dxsdk/shapes1.x"));
	bench_whole(path, "x text (shapes1.x) whole load");
	snprintf(path, sizeof path, "%s", testdata_path("x/saschawillems/samplescene.X"));
	bench_file(path, "x binary (samplescene.X) parse", PARSE_ONLY);
	bench_file(path, "x binary (samplescene.X) parse + import", LOAD);
	bench_whole(path, "x binary (samplescene.X) whole load");
	snprintf(path, sizeof path, "%s", testdata_path("x/dxsdk/skullocc.x"));
	bench_file(path, "x MSZIP (skullocc.x) parse", PARSE_ONLY);
	bench_file(path, "x MSZIP (skullocc.x) parse + import", LOAD);
	bench_whole(path, "x MSZIP (skullocc.x) whole load");
	printf("== .x in memory once loaded (exact bytes, no allocator overhead)\n");
	memory_file(testdata_path("x/dxsdk/tiny.x"), "tiny.x");
	memory_file(testdata_path("x/saschawillems/samplescene.X"), "samplescene.X");
	memory_file(testdata_path("x/dxsdk/skullocc.x"), "skullocc.x");
	return 0;
}
