/*
 * bench_coldload - what a fresh process pays to load a file, and what the
 * daemon pays to start on a game-sized tree.
 *
 * Cold loads: `animd check FILE` as a whole new process, beside assimp
 * loading the same file in a whole new process of its own: a small
 * program built here (under a temporary directory) against libassimp-dev
 * that calls aiImportFile(FILE, 0) once and releases the scene, which is
 * the least assimp does to load a file (no post-processing; `assimp info`
 * does three times as much: validation, post-steps, printing).  Both are
 * whole processes: start-up, dynamic loading, reading, parsing, building
 * the objects, exit.  animd check keeps its clips raw, as assimp's scene
 * is: the daemon compresses them on top (bench_parse's "convert" lines).  The two alternate (A B, then B A) over ROUNDS
 * rounds; each run's CPU time (user + system, from wait4) and minor page
 * faults are the kernel's accounting.  Printed: each side's median CPU time
 * with its minimum and maximum, median faults, and assimp's time over
 * animd's round by round (median, minimum, maximum).  The first line is the
 * floor under the others: each process started and ended with no file
 * (`animd --version`, the loader without an argument).  Without libassimp-dev
 * or a C++ compiler, or without the shared test files, the lines say so and
 * what can run still does (assimp is not a dependency of the project).
 *
 * The files: the shared test files' real .x (MSZIP, binary, text) and MD5;
 * tiny.x (text, 1.4 MB) written again in every .x encoding by the tests'
 * own writer (32- and 64-bit binary, MSZIP text and binary); a 110-joint,
 * 300-frame md5anim, a 3000-frame md5camera and a 120-bone M2 made by our
 * generators (assimp reads no M2: animd alone).
 *
 * The daemon's start: a tree of ANIMD_BENCH_TREE assets (20,000 by
 * default; tests/support/asset_tree.h: every format, mostly small files)
 * written under a temporary directory, then `animd serve` on it: the time
 * from its start to READY=1 (sent once its first walk has indexed every
 * name) and to STATUS=serving (every asset loaded), its CPU time and
 * resident memory then (the kernel's VmRSS and VmHWM), and what `status`
 * reports.  The tree was just written, so it is
 * in the page cache: a start from a cold disk costs the reads on top.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/asset_tree.h"
#include "tests/support/daemon_proc.h"
#include "tests/support/m2_writer.h"
#include "tests/support/md5_camera_gen.h"
#include "tests/support/md5_synth.h"
#include "tests/support/rpc_client.h"
#include "tests/support/testdata.h"
#include "tests/support/x_reencode.h"

#define ROUNDS 11
#define TREE_ASSETS 20000

static const char assimp_source[] =
	"#include <assimp/cimport.h>\n"
	"#include <assimp/scene.h>\n"
	"#include <cstdio>\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\tif (argc < 2) return 0; /* start-up alone */\n"
	"\tif (argc != 2) return 2;\n"
	"\tconst aiScene *s = aiImportFile(argv[1], 0);\n"
	"\tif (!s) { std::fprintf(stderr, \"%s: %s\\n\", argv[1], aiGetErrorString()); return 1; }\n"
	"\tint ok = s->mRootNode != nullptr;\n"
	"\taiReleaseImport(s);\n"
	"\treturn ok ? 0 : 1;\n"
	"}\n";

struct run {
	double cpu_ms;
	long faults;
	int status;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_l(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* Run argv as a fresh process, its output thrown away: its CPU time and
 * minor faults from wait4, and its exit status (-1: it could not run). */
static struct run run_process(char *const argv[])
{
	struct run r = { 0, 0, -1 };
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return r;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return r;
	r.cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		   (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	r.faults = ru.ru_minflt;
	r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return r;
}

/* The assimp loader built under dir, or NULL (having said why). */
static const char *assimp_build(const char *dir)
{
	static char exe[512];
	char src[512], cmd[2048];
	FILE *f;

	if (system("pkg-config --exists assimp 2>/dev/null") != 0) {
		printf("bench_coldload: no assimp comparison: libassimp-dev is not installed "
		       "(apt-get install libassimp-dev g++); animd's figures alone\n");
		return NULL;
	}
	snprintf(src, sizeof src, "%s/assimp_load.cpp", dir);
	snprintf(exe, sizeof exe, "%s/assimp_load", dir);
	f = fopen(src, "w");
	if (f == NULL || fputs(assimp_source, f) < 0 || fclose(f) != 0) {
		printf("bench_coldload: no assimp comparison: cannot write %s\n", src);
		return NULL;
	}
	snprintf(cmd, sizeof cmd, "c++ -O2 -o %s %s $(pkg-config --cflags --libs assimp) 2>/dev/null",
		 exe, src);
	if (system(cmd) != 0) {
		printf("bench_coldload: no assimp comparison: the loader does not build (a C++ "
		       "compiler?); animd's figures alone\n");
		return NULL;
	}
	return exe;
}

/* Two commands (b NULL: a alone) alternating over ROUNDS rounds, as one
 * line: `label`, `kb` (< 0: no size), each side's CPU time and faults, and
 * b's time over a's.  A run that fails is counted and said. */
static void compare_runs(char *const a_argv[], char *const b_argv[], const char *label, double kb)
{
	double a_ms[ROUNDS], b_ms[ROUNDS], ratio[ROUNDS];
	long a_pf[ROUNDS], b_pf[ROUNDS];
	int a_bad = 0, b_bad = 0;

	/* A first run of each, not counted: the file and the programs in the
	 * page cache. */
	run_process(a_argv);
	if (b_argv != NULL)
		run_process(b_argv);
	for (int i = 0; i < ROUNDS; i++) {
		struct run a, b = { 0, 0, 0 };

		if (i % 2 == 0) {
			a = run_process(a_argv);
			if (b_argv != NULL)
				b = run_process(b_argv);
		} else {
			if (b_argv != NULL)
				b = run_process(b_argv);
			a = run_process(a_argv);
		}
		a_bad += a.status != 0;
		b_bad += b.status != 0;
		a_ms[i] = a.cpu_ms;
		b_ms[i] = b.cpu_ms;
		a_pf[i] = a.faults;
		b_pf[i] = b.faults;
		ratio[i] = a.cpu_ms > 0 ? b.cpu_ms / a.cpu_ms : 0;
	}
	qsort(a_ms, ROUNDS, sizeof a_ms[0], cmp_d);
	qsort(b_ms, ROUNDS, sizeof b_ms[0], cmp_d);
	qsort(ratio, ROUNDS, sizeof ratio[0], cmp_d);
	qsort(a_pf, ROUNDS, sizeof a_pf[0], cmp_l);
	qsort(b_pf, ROUNDS, sizeof b_pf[0], cmp_l);
	if (kb >= 0)
		printf("  %-34s %6.0f kB", label, kb);
	else
		printf("  %-34s         ", label);
	printf("  animd %5.2f ms (%.2f-%.2f) %5ld faults", a_ms[ROUNDS / 2], a_ms[0],
	       a_ms[ROUNDS - 1], a_pf[ROUNDS / 2]);
	if (b_argv != NULL)
		printf("  assimp %5.2f ms (%.2f-%.2f) %5ld faults  assimp/animd %.2fx (%.2f-%.2f)",
		       b_ms[ROUNDS / 2], b_ms[0], b_ms[ROUNDS - 1], b_pf[ROUNDS / 2],
		       ratio[ROUNDS / 2], ratio[0], ratio[ROUNDS - 1]);
	printf("\n");
	if (a_bad > 0)
		printf("    animd failed in %d runs\n", a_bad);
	if (b_argv != NULL && b_bad > 0)
		printf("    assimp failed in %d runs\n", b_bad);
}

/* One file, animd check against the assimp loader (NULL: animd alone). */
static void compare(const char *animd, const char *assimp, const char *path, const char *label)
{
	char *a_argv[] = { (char *)animd, "check", (char *)path, NULL };
	char *b_argv[] = { (char *)assimp, (char *)path, NULL };
	struct stat sb;

	if (stat(path, &sb) < 0) {
		printf("  %-34s skipped: %s\n", label, strerror(errno));
		return;
	}
	compare_runs(a_argv, assimp != NULL ? b_argv : NULL, label, (double)sb.st_size / 1e3);
}

static int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	int rc = f != NULL && fwrite(buf, 1, len, f) == len ? 0 : -1;

	if (f != NULL && fclose(f) != 0)
		rc = -1;
	return rc;
}

static void cold_loads(const char *animd, const char *dir)
{
	static const struct {
		const char *rel, *label;
	} real[] = {
		{ "x/dxsdk/skullocc.x", "skullocc.x (MSZIP binary)" },
		{ "x/dxsdk/Head_Sad.x", "Head_Sad.x (MSZIP binary)" },
		{ "x/dxsdk/bigship1.x", "bigship1.x (binary)" },
		{ "x/saschawillems/angryteapot.X", "angryteapot.X (binary)" },
		{ "x/saschawillems/samplescene.X", "samplescene.X (binary)" },
		{ "x/dxsdk/tiny.x", "tiny.x (text)" },
		{ "x/dxsdk/shapes1.x", "shapes1.x (text)" },
		{ "md5/mgl/mech_warrior.md5mesh", "mech_warrior.md5mesh" },
		{ "md5/mgl/mech_warrior_walk.md5anim", "mech_warrior_walk.md5anim" },
		{ "md5/sauer-snoutx10k/snoutx10k.md5mesh", "snoutx10k.md5mesh" },
	};
	static const char *const enc_label[XENC_COUNT] = {
		"text", "binary, 32-bit floats", "binary, 64-bit floats", "MSZIP text", "MSZIP binary",
	};
	const char *assimp = assimp_build(dir);
	char path[1024], label[128];
	struct m2w_file m2;

	printf("== cold loads: a fresh process loads one file (CPU ms: median (min-max) of %d "
	       "runs, alternating)\n", ROUNDS);
	/* The floor under every line: a process that starts and loads
	 * nothing (animd --version; the loader without a file, which exits
	 * once libassimp is loaded). */
	{
		char *a_argv[] = { (char *)animd, "--version", NULL };
		char *b_argv[] = { (char *)assimp, NULL };

		compare_runs(a_argv, assimp != NULL ? b_argv : NULL, "start-up alone (no file)", -1);
	}
	if (testdata_dir() != NULL) {
		char *text;
		size_t len;

		for (size_t i = 0; i < sizeof real / sizeof real[0]; i++)
			compare(animd, assimp, testdata_path(real[i].rel), real[i].label);
		text = test_file_read(testdata_path("x/dxsdk/tiny.x"), &len);
		for (int e = XENC_BINARY32; text != NULL && e < XENC_COUNT; e++) {
			unsigned char *bytes = NULL;
			size_t n = 0;

			if (x_reencode(text, (enum x_encoding_kind)e, &bytes, &n) != 0)
				break;
			snprintf(path, sizeof path, "%s/tiny-%d.x", dir, e);
			snprintf(label, sizeof label, "tiny.x as %s", enc_label[e]);
			if (write_file(path, bytes, n) == 0)
				compare(animd, assimp, path, label);
			free(bytes);
		}
		free(text);
	}
	/* An md5anim alone (no mesh of its name beside it for assimp to read
	 * as well). */
	if (md5_synth_write_anim(dir, "synth110", 110, 300, 30) == 0) {
		snprintf(path, sizeof path, "%s/synth110.md5anim", dir);
		compare(animd, assimp, path, "md5anim 110 joints x 300 frames");
	}
	{
		uint32_t cuts[2] = { 1000, 2000 };
		struct camera_gen g = { .frames = 3000, .rate = 30, .cut_count = 2, .cuts = cuts };
		FILE *f;

		snprintf(path, sizeof path, "%s/shot.md5camera", dir);
		f = fopen(path, "w");
		if (f != NULL) {
			int rc = camera_gen_write(f, &g);

			if (fclose(f) == 0 && rc == 0)
				compare(animd, assimp, path, "md5camera 3000 frames, 2 cuts");
		}
	}
	m2w_synth_version(&m2, 0, 120, 60, 10, 1);
	snprintf(path, sizeof path, "%s/synth120.m2", dir);
	if (write_file(path, m2.buf, m2.len) == 0)
		compare(animd, NULL, path, "M2 120 bones, 60 sequences (animd)");
	m2w_file_free(&m2);
}

/* A number from /proc/PID/status ("VmRSS:  1234 kB"), in kB; -1. */
static long proc_status_kb(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	while (f != NULL && fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, key, klen) == 0 && line[klen] == ':')
			v = strtol(line + klen + 1, NULL, 10);
	if (f != NULL)
		fclose(f);
	return v;
}

/* User + system seconds of PID so far (/proc/PID/stat). */
static double proc_cpu_s(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* After the command's ")", fields 3 on; utime and stime are 14 and 15. */
	p = strrchr(buf, ')');
	if (p == NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				&ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void tree_start(void)
{
	const char *env = getenv("ANIMD_BENCH_TREE");
	uint32_t count = env != NULL ? (uint32_t)strtoul(env, NULL, 10) : TREE_ASSETS;
	struct asset_tree_stats st;
	struct daemon_proc d;
	struct rpc_client c;
	struct rpc_reply r;
	double t0, gen_s, ready_s, loaded_s, cpu;
	long rss, hwm;
	int rc;

	printf("== the daemon's start on a generated tree (ANIMD_BENCH_TREE=%u assets)\n", count);
	if (count == 0 || daemon_proc_init(&d) < 0) {
		printf("  skipped%s\n", count == 0 ? "" : ": cannot make a temporary directory");
		return;
	}
	t0 = now_s();
	rc = asset_tree_write(d.assets, count, 1, &st);
	gen_s = now_s() - t0;
	if (rc < 0) {
		printf("  skipped: cannot write the tree: %s\n", strerror(-rc));
		daemon_proc_cleanup(&d);
		return;
	}
	printf("  tree: %u assets (%u md5mesh, %u md5anim, %u md5camera, %u .x, %u M2), %u files, "
	       "%.0f MB, %u folders; written in %.1f s\n", st.assets, st.by_format[0],
	       st.by_format[1], st.by_format[2], st.by_format[3], st.by_format[4], st.files,
	       (double)st.bytes / 1e6, st.folders, gen_s);
	t0 = now_s();
	rc = daemon_proc_start_indexed(&d, NULL, 600000);
	ready_s = now_s() - t0;
	if (rc == 0)
		rc = daemon_proc_wait_notify(&d, "STATUS=serving", 600000);
	loaded_s = now_s() - t0;
	if (rc < 0) {
		printf("  the daemon did not become ready: %s (its log: %s)\n", strerror(-rc), d.log);
		daemon_proc_stop(&d, SIGKILL, 5000);
		return;
	}
	cpu = proc_cpu_s(d.pid);
	rss = proc_status_kb(d.pid, "VmRSS");
	hwm = proc_status_kb(d.pid, "VmHWM");
	printf("  animd serve: READY (every name indexed) after %.3f s, every asset loaded after "
	       "%.2f s, %.2f s of CPU; resident %.0f MB (peak %.0f MB), %.1f kB an asset\n",
	       ready_s, loaded_s, cpu, (double)rss / 1e3,
	       (double)hwm / 1e3, (double)rss / st.assets);
	if (rpc_client_connect(&c, d.socket, 5000) == 0) {
		if (rpc_client_call(&c, &r, "status", NULL) == 0) {
			const msgpack_object *assets = rpc_get(r.result, "assets");
			const msgpack_object *mem = rpc_get(r.result, "memory");
			const msgpack_object *mem_assets = mem != NULL ? rpc_get(mem, "assets") : NULL;
			int64_t n = -1, failing = -1, held = -1;

			if (assets != NULL) {
				rpc_get_i64(assets, "count", &n);
				rpc_get_i64(assets, "failing", &failing);
			}
			if (mem_assets != NULL)
				rpc_get_i64(mem_assets, "total", &held);
			printf("  status: %lld assets, %lld failing; the assets' own objects %.0f MB "
			       "(%.0f %% of resident)\n", (long long)n, (long long)failing,
			       (double)held / 1e6, rss > 0 ? 100.0 * (double)held / 1e3 / (double)rss
							   : 0.0);
			rpc_reply_free(&r);
		}
		rpc_client_close(&c);
	}
	daemon_proc_stop(&d, SIGTERM, 30000);
	daemon_proc_cleanup(&d);
}

int main(void)
{
	const char *animd = getenv("ANIMD");
	char dir[] = "/tmp/animd-coldload-XXXXXX";
	char cmd[sizeof dir + 16];

	if (animd == NULL || access(animd, X_OK) != 0) {
		printf("bench_coldload: skipped: ANIMD names no program (make bench sets it)\n");
		return 0;
	}
	if (mkdtemp(dir) == NULL) {
		perror("bench_coldload: mkdtemp");
		return 1;
	}
	cold_loads(animd, dir);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_coldload: could not remove %s\n", dir);
	tree_start();
	return 0;
}
