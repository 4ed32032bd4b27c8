/*
 * bench_stream - shared-memory pose streams, measured against the real
 * daemon:
 *  - publish-to-read latency: the daemon publishes (1000 Hz tick), another
 *    process spins on the channel and copies each pose as it appears; the
 *    figure is reader-copy-done minus the daemon's publish timestamp (both
 *    CLOCK_MONOTONIC).  The hypervisor moves the two vCPUs near and far
 *    every few seconds, so besides p50/p99 overall we print the best and
 *    worst half-second window's median: the two placements.
 *  - publishing cost and scale: N instances of a 64- (and 256-) joint
 *    character played into one model-space stream at 60 Hz; the daemon's
 *    CPU time (from /proc) over the poses it published gives the cost per
 *    pose, the poses per second one core sustains, and so how many
 *    instances one core keeps at 60 Hz.  Beside it, in this process, the
 *    engine's own hot loop for the same poses (the same clip, N instances
 *    at the same staggered times advancing 1/60 s a tick: clip time, sample,
 *    model matrices, all into one buffer that stays in cache), timed in CPU
 *    time twice: never pausing, and in the daemon's shape (each tick's
 *    work as a burst every 1/60 s on as many threads as the daemon's tick
 *    has parts, asleep in between).  The daemon's cost per pose as a ratio
 *    to them is what the publishing adds; the stream's own stats split the
 *    daemon's CPU between its tick loops and the rest of the process.
 *    Each figure is the cheapest of the rounds (the least disturbed, as
 *    the engine's); the instances a core are also given at the median
 *    round's cost, which a daemon running for long sees nearer.
 *  - the same at 25,000 instances with a daemon allowed one CPU (so one
 *    tick thread), beside the engine loops on that CPU: the per-core goal
 *    measured on one core.
 *  - the floor under the publishing cost on that CPU: the daemon's
 *    publishing calls, and the payload's copy alone, beside arithmetic that
 *    cannot compete with them (bench_publish_floor); and what it leaves of
 *    the two goals (print_goal_window).
 *
 * Prints figures; asserts nothing about speed.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/pose.h"
#include "daemon/assets/asset.h"
#include "proto/animd_shm.h"
#include "tests/support/daemon_proc.h"
#include "tests/support/md5_synth.h"
#include "tests/support/rpc_client.h"

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The daemon this run started, stopped on every way out. */
static struct daemon_proc *running;

static void die(const char *what)
{
	fprintf(stderr, "bench_stream: %s\n", what);
	if (running != NULL)
		daemon_proc_cleanup(running);
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t median_of(int64_t *v, size_t n, double p)
{
	qsort(v, n, sizeof *v, cmp_i64);
	return v[(size_t)(p * (double)(n - 1))];
}

/* Pin to one CPU (a hint: where that CPU is not allowed, nothing changes). */
static void pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(pid, sizeof set, &set);
}

/* Daemon CPU time (user + system, every thread) in ns: its process CPU
 * clock, exact where /proc/PID/stat counts 10 ms ticks. */
static int64_t cpu_ns(pid_t pid)
{
	clockid_t clock;
	struct timespec ts;

	if (clock_getcpuclockid(pid, &clock) != 0 || clock_gettime(clock, &ts) != 0)
		die("daemon CPU clock");
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct mapped {
	int fd;
	struct animd_shm_header *h;
	size_t bytes;
	uint64_t id;
};

static void open_stream(struct rpc_client *c, uint32_t rate, uint32_t channels, uint32_t joints,
			uint32_t depth, struct mapped *m)
{
	struct rpc_reply r;
	struct stat st;
	int64_t v;

	if (rpc_client_call(c, &r, "stream.open", "space:s rate:u instances:u joints:u depth:u",
			    "model", (uint64_t)rate, (uint64_t)channels, (uint64_t)joints,
			    (uint64_t)depth) < 0 || r.error != NULL) {
		fprintf(stderr, "%s\n", r.message);
		die("stream.open");
	}
	rpc_get_i64(r.result, "stream", &v);
	m->id = (uint64_t)v;
	rpc_reply_free(&r);
	m->fd = rpc_client_take_fd(c);
	if (m->fd < 0 || fstat(m->fd, &st) < 0)
		die("no descriptor");
	m->bytes = (size_t)st.st_size;
	m->h = mmap(NULL, m->bytes, PROT_READ, MAP_SHARED, m->fd, 0);
	if (m->h == MAP_FAILED || animd_shm_validate(m->h, m->bytes, NULL) < 0)
		die("bad mapping");
}

/* Play n instances into a stream, 256 requests in flight at a time. */
/* n instances, 13 ms apart in playback time; with group > 1, in groups
 * of that many in step (one `at` for all, a start per group). */
static void play_many_grouped(struct rpc_client *c, const char *asset, uint64_t stream, uint32_t n,
			      uint32_t group)
{
	int64_t at = now_ns();

	for (uint32_t done = 0; done < n;) {
		uint32_t batch = n - done < 256 ? n - done : 256;

		rpc_client_cork(c);
		for (uint32_t i = 0; i < batch; i++)
			if (group > 1)
				rpc_client_send(c, "play", "asset:s stream:u start:d at:i", asset, stream,
						(double)((done + i) / group) * 0.013, at);
			else
				rpc_client_send(c, "play", "asset:s stream:u start:d", asset, stream,
						(double)(done + i) * 0.013);
		rpc_client_uncork(c);
		for (uint32_t i = 0; i < batch; i++) {
			struct rpc_reply r;

			int rc = rpc_client_wait_any(c, &r);

			if (rc < 0 || r.error != NULL) {
				fprintf(stderr, "play: %s %s (%s)\n", r.code, r.message, strerror(-rc));
				die("play");
			}
			rpc_reply_free(&r);
		}
		done += batch;
	}
}

static void play_many(struct rpc_client *c, const char *asset, uint64_t stream, uint32_t n)
{
	play_many_grouped(c, asset, stream, n, 1);
}

static void bench_latency(struct daemon_proc *d)
{
	cpu_set_t daemon_cpus;
	struct rpc_client c;
	struct mapped m;
	int pipefd[2];
	pid_t reader;

	if (rpc_client_connect(&c, d->socket, 5000) < 0)
		die("connect");
	open_stream(&c, 1000, 1, 64, 8, &m);
	play_many(&c, "c64.md5anim", m.id, 1);
	if (pipe(pipefd) < 0)
		die("pipe");
	fflush(stdout);
	/* The daemon's own mask, given back afterwards: what it was started
	 * with (taskset, bench_one_core) is what the later lines measure. */
	if (sched_getaffinity(d->pid, sizeof daemon_cpus, &daemon_cpus) != 0)
		die("sched_getaffinity");
	pin(d->pid, 0);
	reader = fork();
	if (reader == 0) {
		/* The reader: another process, on the other vCPU. */
		enum { SAMPLES = 6000 };
		static int64_t lat[SAMPLES], win[SAMPLES];
		static unsigned char buf[64 + 64 * 48];
		const struct animd_shm_channel *ch = animd_shm_channel(m.h, m.h, 0);
		uint64_t seen = animd_shm_published(ch);
		int64_t best = INT64_MAX, worst = 0, t_start = now_ns();
		size_t n = 0, w0 = 0;

		pin(0, 1);
		while (n < SAMPLES && now_ns() - t_start < 20000000000LL) {
			uint64_t p = animd_shm_published(ch);
			const struct animd_shm_slot *s = (const void *)buf;

			if (p == seen)
				continue;
			seen = p;
			if (animd_shm_read(m.h, ch, p - 1, buf, sizeof buf) != 0)
				continue;
			lat[n++] = now_ns() - s->publish_ns;
			/* Half-second windows: 500 poses at 1000 Hz. */
			if (n - w0 == 500) {
				int64_t med;

				memcpy(win, lat + w0, 500 * sizeof *win);
				med = median_of(win, 500, 0.5);
				best = med < best ? med : best;
				worst = med > worst ? med : worst;
				w0 = n;
			}
		}
		printf("stream publish->read, 64-joint model pose, other process on the other vCPU:\n"
		       "  p50 %.2f us  p99 %.2f us over %zu poses; half-second window medians "
		       "%.2f us (best) .. %.2f us (worst)\n",
		       median_of(lat, n, 0.5) / 1e3, median_of(lat, n, 0.99) / 1e3, n, best / 1e3,
		       worst / 1e3);
		/* How fast a reader can take whole poses while the daemon keeps
		 * writing them (copy + seqlock check; retries included). */
		{
			int64_t t0 = now_ns();
			long ok = 0, tries = 0;

			while (now_ns() - t0 < 1000000000LL) {
				for (int k = 0; k < 1000; k++, tries++) {
					uint64_t p = animd_shm_published(ch);

					ok += animd_shm_read(m.h, ch, p - 1, buf, sizeof buf) == 0;
				}
			}
			printf("stream read, 64-joint model pose (3 KiB), copy-out while the daemon "
			       "writes at 1 kHz: %.1f million poses/s, %.0f ns each (%ld of %ld "
			       "attempts whole)\n", ok / ((now_ns() - t0) / 1e9) / 1e6,
			       (now_ns() - t0) / (double)tries, ok, tries);
		}
		fflush(stdout);
		_exit(0);
	}
	waitpid(reader, NULL, 0);
	sched_setaffinity(d->pid, sizeof daemon_cpus, &daemon_cpus);
	rpc_client_close(&c);
	munmap(m.h, m.bytes);
	close(m.fd);
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The engine's hot loop for the poses bench_scale publishes: the same
 * clip at the same spread of times, evaluated into one buffer that stays
 * in the cache. */
struct engine_loop {
	struct asset *asset;
	struct transform *local;
	mat34 *out;
	uint32_t n;
	uint32_t tick;
};

static void engine_open(struct engine_loop *e, const struct daemon_proc *d, const char *asset,
			uint32_t n)
{
	char path[1024], err[256];

	snprintf(path, sizeof path, "%s/%s", d->assets, asset);
	memset(e, 0, sizeof *e);
	if (asset_load_file(path, 0, &e->asset, err, sizeof err) != 0)
		die(err);
	e->local = malloc(e->asset->skeleton->joint_count * sizeof *e->local);
	e->out = malloc(e->asset->skeleton->joint_count * sizeof *e->out);
	if (e->local == NULL || e->out == NULL)
		die("out of memory");
	e->n = n;
}

/* Poses [i0, i1) of one tick of the engine's hot loop, on the path the
 * daemon's model-space streams take (clip_sample_matrices). */
static void engine_poses(const struct asset *a, uint32_t i0, uint32_t i1, uint32_t tick,
			 struct transform *local, mat34 *out)
{
	const struct clip *c = a->clips[0];

	for (uint32_t i = i0; i < i1; i++) {
		int64_t t = time_from_seconds(i * 0.013 + tick / 60.0);
		struct clip_time ct = clip_map_time(c, t, c->loop);

		clip_sample_matrices(c, ct.t_ns, t, ROOT_RAW, &ct, local, out);
		pose_matrices_to_model_still(a->skeleton, c->still_count, c->still_joints, out);
	}
}

/* ns per pose over ticks of n poses for ~0.3 s of this thread's CPU. */
static double engine_round(struct engine_loop *e)
{
	int64_t t0 = thread_cpu_ns(), poses = 0;

	while (thread_cpu_ns() - t0 < 300000000) {
		engine_poses(e->asset, 0, e->n, e->tick, e->local, e->out);
		poses += e->n;
		e->tick++;
	}
	return (double)(thread_cpu_ns() - t0) / (double)poses;
}

/*
 * The same loop in the daemon's shape: a stream tick every 1/60 s on
 * absolute deadlines, its instances split over as many threads as the
 * daemon's tick has parts, each thread posing its share and then sleeping
 * until the next deadline.  A vCPU here runs a burst that follows a sleep
 * slower than a loop that never stops (the engine alone: about 0.95
 * against 0.53 us per pose for bursts of 1,000 poses, 0.6 for 12,500), so
 * at a few thousand instances this, not the loop that never sleeps, is
 * what the daemon's own cost compares with.
 */
struct shaped_part {
	const struct asset *asset;
	uint32_t i0, i1, tick0;
	int64_t start_ns;
	int64_t cpu_ns;
	uint64_t poses;
};

#define SHAPED_TICKS 60

static void *shaped_part_main(void *p)
{
	struct shaped_part *sp = p;
	uint32_t joints = sp->asset->skeleton->joint_count;
	struct transform *local = malloc(joints * sizeof *local);
	mat34 *out = malloc(joints * sizeof *out);
	int64_t period = 1000000000LL / 60, c0;

	if (local == NULL || out == NULL)
		die("out of memory");
	c0 = thread_cpu_ns();
	for (uint32_t k = 0; k < SHAPED_TICKS; k++) {
		int64_t deadline = sp->start_ns + (int64_t)k * period;
		struct timespec ts = { (time_t)(deadline / 1000000000LL), (long)(deadline % 1000000000LL) };

		/* A tick that overran its period starts the next at once,
		 * where the daemon would skip one: both are rare here. */
		if (now_ns() < deadline)
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		engine_poses(sp->asset, sp->i0, sp->i1, sp->tick0 + k, local, out);
		sp->poses += sp->i1 - sp->i0;
	}
	sp->cpu_ns = thread_cpu_ns() - c0;
	free(local);
	free(out);
	return NULL;
}

/* As many as streams.tick_threads allows. */
#define SHAPED_THREADS_MAX 64

/* ns per pose of SHAPED_TICKS ticks (one second) in the daemon's shape. */
static double engine_shaped_round(struct engine_loop *e, unsigned parts)
{
	struct shaped_part sp[SHAPED_THREADS_MAX];
	pthread_t th[SHAPED_THREADS_MAX];
	int64_t start = now_ns() + 1000000, cpu = 0;
	uint64_t poses = 0;

	for (unsigned p = 0; p < parts; p++) {
		sp[p] = (struct shaped_part){ .asset = e->asset,
					      .i0 = (uint32_t)((uint64_t)e->n * p / parts),
					      .i1 = (uint32_t)((uint64_t)e->n * (p + 1) / parts),
					      .tick0 = e->tick, .start_ns = start };
		if (pthread_create(&th[p], NULL, shaped_part_main, &sp[p]) != 0)
			die("pthread_create");
	}
	for (unsigned p = 0; p < parts; p++) {
		pthread_join(th[p], NULL);
		cpu += sp[p].cpu_ns;
		poses += sp[p].poses;
	}
	e->tick += SHAPED_TICKS;
	return (double)cpu / (double)poses;
}

static void engine_close(struct engine_loop *e)
{
	free(e->local);
	free(e->out);
	asset_unref(e->asset);
}

static uint64_t published_total(const struct mapped *m, uint32_t n)
{
	uint64_t p = 0;

	for (uint32_t i = 0; i < n; i++)
		p += animd_shm_published(animd_shm_channel(m->h, m->h, i));
	return p;
}

#define SCALE_ROUNDS 7

/* The stream's own account (stats): CPU time of its tick parts, every
 * part's thread, the poses its ticks published and, with `threads`, the
 * threads its last tick ran on. */
static void stream_account(struct rpc_client *c, uint64_t id, uint64_t *cpu, uint64_t *poses,
			   unsigned *threads, uint64_t *shared)
{
	struct rpc_reply r;
	const msgpack_object *streams;

	*cpu = *poses = 0;
	if (rpc_client_call(c, &r, "stats", NULL) != 0 || r.result == NULL)
		die("stats");
	streams = rpc_get(r.result, "streams");
	for (uint32_t i = 0; streams != NULL && streams->type == MSGPACK_OBJECT_ARRAY &&
			     i < streams->via.array.size; i++) {
		const msgpack_object *st = &streams->via.array.ptr[i];
		int64_t sid = 0, v = 0;

		if (rpc_get_i64(st, "stream", &sid) != 0 || (uint64_t)sid != id)
			continue;
		if (rpc_get_i64(st, "cpu_ns", &v) == 0)
			*cpu = (uint64_t)v;
		if (rpc_get_i64(st, "poses", &v) == 0)
			*poses = (uint64_t)v;
		if (shared != NULL && rpc_get_i64(st, "shared_poses", &v) == 0)
			*shared = (uint64_t)v;
		if (threads != NULL && rpc_get_i64(st, "tick_threads", &v) == 0)
			*threads = v < 1 ? 1 : v > SHAPED_THREADS_MAX ? SHAPED_THREADS_MAX : (unsigned)v;
	}
	rpc_reply_free(&r);
}

/* A figure over the rounds: minimum, median, maximum. */
struct spread {
	double min, med, max;
};

static struct spread spread_of(double *v, unsigned n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return (struct spread){ v[0], v[n / 2], v[n - 1] };
}

/*
 * n instances of a clip on one 60 Hz stream.  Each round is a second of
 * the daemon publishing (its process CPU per pose published, and the part
 * of it its tick loops account for), then, with the daemon stopped so that
 * both see the same machine, the engine's hot loop for the same poses in
 * this process twice: without a pause (0.3 s of CPU) and in the daemon's
 * tick shape (one second of ticks, engine_shaped_round).  Printed: each
 * figure's minimum over the rounds with its range, the ratio of minimums,
 * and the median and range of the per-round ratios (a round's daemon
 * second against the engine runs right after it).  With group > 1 the
 * instances are a crowd in groups of that many in step, which a tick
 * evaluates once a group: only the daemon's seconds are measured, and
 * the share of poses it copied is printed.
 */
static void bench_scale(struct daemon_proc *d, const char *asset, uint32_t joints, uint32_t n,
			uint32_t group, const char *where)
{
	struct rpc_client c;
	struct mapped m;
	struct engine_loop e;
	double daemon[SCALE_ROUNDS], loops[SCALE_ROUNDS], engine[SCALE_ROUNDS],
		shaped[SCALE_ROUNDS], ratio[SCALE_ROUNDS], ratio_shaped[SCALE_ROUNDS];
	struct spread sd, sl, se, ss, rr, rs;
	unsigned parts = 1;
	uint64_t ticks = 0, unused, poses0, poses1, shared0 = 0, shared1 = 0;
	int64_t wall = 0;

	if (rpc_client_connect(&c, d->socket, 20000) < 0)
		die("connect");
	c.timeout_ms = 20000;
	open_stream(&c, 60, n, joints, 2, &m);
	play_many_grouped(&c, asset, m.id, n, group);
	engine_open(&e, d, asset, n);
	usleep(300000);
	stream_account(&c, m.id, &unused, &poses0, NULL, &shared0);
	for (int r = 0; r < SCALE_ROUNDS; r++) {
		uint64_t p0 = published_total(&m, n), k0 = m.h->ticks, lc0, lp0, lc1, lp1;
		int64_t t0 = now_ns(), c0 = cpu_ns(d->pid);

		stream_account(&c, m.id, &lc0, &lp0, NULL, NULL);
		usleep(1000000);
		stream_account(&c, m.id, &lc1, &lp1, &parts, NULL);
		daemon[r] = (double)(cpu_ns(d->pid) - c0) / (double)(published_total(&m, n) - p0);
		loops[r] = lp1 > lp0 ? (double)(lc1 - lc0) / (double)(lp1 - lp0) : 0;
		ticks += m.h->ticks - k0;
		wall += now_ns() - t0;
		/* In step, most poses are copies: the engine, which evaluates
		 * each, is no reference for them. */
		if (group > 1) {
			engine[r] = shaped[r] = ratio[r] = ratio_shaped[r] = 0;
			continue;
		}
		kill(d->pid, SIGSTOP);
		engine[r] = engine_round(&e);
		shaped[r] = engine_shaped_round(&e, parts);
		kill(d->pid, SIGCONT);
		ratio[r] = daemon[r] / engine[r];
		ratio_shaped[r] = daemon[r] / shaped[r];
		usleep(100000);
	}
	stream_account(&c, m.id, &unused, &poses1, NULL, &shared1);
	sd = spread_of(daemon, SCALE_ROUNDS);
	sl = spread_of(loops, SCALE_ROUNDS);
	se = spread_of(engine, SCALE_ROUNDS);
	ss = spread_of(shaped, SCALE_ROUNDS);
	rr = spread_of(ratio, SCALE_ROUNDS);
	rs = spread_of(ratio_shaped, SCALE_ROUNDS);
	if (group > 1) {
		printf("stream publish %3u joints, %5u instances at 60 Hz, in step, %u a group (`play` "
		       "with one `at`) (%d rounds): %.1f ticks/s achieved\n"
		       "  daemon %.2f us per pose published (rounds up to %.2f), %.1f %% of the poses "
		       "copies of the one before\n"
		       "  -> one core sustains %.2f million %u-joint poses/s = %.0f instances at 60 Hz "
		       "(the median round's cost: %.0f)\n",
		       joints, n, group, SCALE_ROUNDS, (double)ticks / (wall / 1e9), sd.min / 1e3,
		       sd.max / 1e3, poses1 > poses0 ? 100.0 * (double)(shared1 - shared0) /
						       (double)(poses1 - poses0) : 0.0,
		       1e3 / sd.min, joints, 1e9 / sd.min / 60, 1e9 / sd.med / 60);
		goto done;
	}
	printf("stream publish %3u joints, %5u instances at 60 Hz%s (%d rounds): %.1f ticks/s achieved\n"
	       "  daemon %.2f us per pose published (rounds up to %.2f), %.2f of it in its tick "
	       "loops (up to %.2f)\n"
	       "  engine's hot loop, never pausing %.2f us (up to %.2f): %.2fx; per round median "
	       "%.2fx (%.2f..%.2f)\n"
	       "  engine's hot loop in the daemon's tick shape (%u thread%s, %u poses each per 1/60 s) "
	       "%.2f us (up to %.2f): %.2fx; per round median %.2fx (%.2f..%.2f)\n"
	       "  -> one core sustains %.2f million %u-joint poses/s = %.0f instances at 60 Hz "
	       "(the median round's cost: %.0f)\n",
	       joints, n, where, SCALE_ROUNDS, (double)ticks / (wall / 1e9), sd.min / 1e3, sd.max / 1e3,
	       sl.min / 1e3, sl.max / 1e3, se.min / 1e3, se.max / 1e3, sd.min / se.min, rr.med,
	       rr.min, rr.max, parts, parts == 1 ? "" : "s", n / parts, ss.min / 1e3,
	       ss.max / 1e3, sd.min / ss.min, rs.med, rs.min, rs.max, 1e3 / sd.min, joints,
	       1e9 / sd.min / 60, 1e9 / sd.med / 60);
done:
	engine_close(&e);
	rpc_client_close(&c);
	munmap(m.h, m.bytes);
	close(m.fd);
	usleep(300000);
}

/* Register-only arithmetic, `iters` rounds of four independent chains:
 * no load or store that could compete with the slot writes beside it. */
static float arithmetic(uint32_t iters, float x)
{
	float a = x, b = x + 1, c = x + 2, e = x + 3;

	for (uint32_t i = 0; i < iters; i++) {
		a = a * 0.999f + 0.5f;
		b = b * 0.998f + 0.25f;
		c = c * 0.997f + 0.125f;
		e = e * 0.996f + 0.0625f;
	}
	return a + b + c + e;
}

static float arithmetic_sink;

/* What a floor sweep does beside the arithmetic of each pose. */
enum floor_work {
	FLOOR_NOTHING,          /* the arithmetic alone */
	FLOOR_PAYLOAD,          /* the payload's copy into its slot, nothing else */
	FLOOR_PUBLISH,          /* the daemon's publishing calls */
	FLOOR_KINDS
};

/* The daemon's stream_publish_end: a filled slot, if any, stamped and
 * made even. */
static void floor_publish_end(struct animd_shm_channel *ch, struct animd_shm_slot *slot,
			      uint64_t n)
{
	if (slot == NULL)
		return;
	slot->publish_ns = now_ns();
	animd_shm_write_end(ch, slot, n);
}

/* One sweep of a floor round: a pose's worth of arithmetic per channel
 * and, for FLOOR_PUBLISH, the publishing calls around it in the order
 * stream_publish_begin makes them (the next channel's headers prefetched
 * mid-pose, the last slot stamped and ended, this one marked odd and
 * filled); n is the sweep, every channel's pose number. */
static void floor_sweep(void *base, const struct animd_shm_header *h, const float *pose,
			uint32_t iters, uint64_t n, enum floor_work work)
{
	size_t bytes = (size_t)h->max_elements * h->element_stride;
	struct animd_shm_channel *last_ch = NULL;
	struct animd_shm_slot *last = NULL;

	for (uint32_t c = 0; c < h->channel_count; c++) {
		struct animd_shm_channel *ch = animd_shm_channel(base, h, c);
		struct animd_shm_slot *slot;

		arithmetic_sink += arithmetic(iters / 2, arithmetic_sink);
		if (work == FLOOR_PUBLISH && c + 1 < h->channel_count)
			animd_shm_prefetch_slot(animd_shm_channel(base, h, c + 1), h, n);
		arithmetic_sink += arithmetic(iters - iters / 2, arithmetic_sink);
		if (work == FLOOR_PAYLOAD)
			animd_shm_copy_sum(animd_shm_payload(animd_shm_slot(ch, h, n)), pose, bytes, n);
		if (work != FLOOR_PUBLISH)
			continue;
		floor_publish_end(last_ch, last, n);
		slot = animd_shm_write_begin(ch, h, n);
		slot->instance_id = c + 1;
		slot->tick = n;
		slot->clip_time = 0;
		slot->generation = 1;
		slot->flags = 0;
		slot->reserved = 0;
		animd_shm_write_payload(slot, h, n, pose, h->max_elements);
		last_ch = ch;
		last = slot;
	}
	floor_publish_end(last_ch, last, n);
}

#define FLOOR_ROUNDS 9

/*
 * What the floor leaves of the two streaming goals.  At most 1.25 times
 * the engine's pose means publishing adds at most a quarter of it, so the
 * engine's pose must take at least four times what publishing adds; 25,000
 * instances a core at 60 Hz means a published pose costs at most 1 s /
 * 1.5 million in all, so the engine's pose at most that less what
 * publishing adds.  With publishing at its floor (the medians measured
 * above), the engine's pose must lie between the two for both goals to
 * hold.  That is the widest the window can be: the daemon's publishing
 * costs more than its floor, which narrows it.
 */
static const char *const floor_names[2] = {
	"the payload's copy alone",
	"the daemon's publishing calls",
};

static void print_goal_window(const double floor_ns[2])
{
	const double per_pose_ns = 1e9 / (25000.0 * 60.0);

	printf("what the floor leaves of the goals (1.25x the engine, 25,000 instances a core): "
	       "the engine's pose would have to take\n");
	for (int k = 0; k < 2; k++) {
		double lo = 4.0 * floor_ns[k], hi = per_pose_ns - floor_ns[k];

		printf("  with %s at its floor (+%.0f ns): %.0f..%.0f ns%s\n", floor_names[k],
		       floor_ns[k], lo, hi, lo > hi ? ": no such pose, the goals exclude each other here" : "");
	}
}

/*
 * The floor under the publishing cost: the daemon's own publishing calls
 * for a 64-joint model pose into a region shaped like the 25,000-instance
 * stream's (depth 2), each beside register-only arithmetic as long as the
 * engine's pose, against that arithmetic alone, and the same with only the
 * payload's copy (the streaming stores every pose's 3 KiB needs, however
 * the slot's header is kept); the three take turns in each round, on this
 * CPU.  Nothing competes with the writes there, so what they add is the
 * least publishing can add to the engine's cost on this machine: with the
 * daemon's calls as they are, and with nothing but the payload's bytes.
 */
static void bench_publish_floor(const struct daemon_proc *d)
{
	struct animd_shm_header h;
	struct engine_loop e;
	double engine = 1e18, add[2][FLOOR_ROUNDS], ratio[2][FLOOR_ROUNDS], floor_med[2];
	float *pose;
	void *base;
	uint32_t iters;
	uint64_t n = 0;
	int64_t t0;

	if (animd_shm_layout(&h, ANIMD_SHM_SPACE_MODEL, 64, 25000, 2) != 0)
		die("layout");
	base = mmap(NULL, h.region_bytes, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	pose = aligned_alloc(64, 64 * ANIMD_SHM_STRIDE_MATRIX);
	if (base == MAP_FAILED || pose == NULL)
		die("out of memory");
	memcpy(base, &h, sizeof h);
	for (uint32_t i = 0; i < 64 * 12; i++)
		pose[i] = (float)i * 0.25f;
	engine_open(&e, d, "c64.md5anim", 25000);
	for (int r = 0; r < 5; r++) {
		double v = engine_round(&e);

		engine = v < engine ? v : engine;
	}
	engine_close(&e);
	/* The arithmetic's length in rounds: one engine pose's CPU time. */
	t0 = thread_cpu_ns();
	arithmetic_sink += arithmetic(10000000, arithmetic_sink);
	iters = (uint32_t)(engine / ((double)(thread_cpu_ns() - t0) / 1e7));
	for (int r = 0; r < FLOOR_ROUNDS; r++) {
		double t[FLOOR_KINDS];

		for (int k = 0; k < FLOOR_KINDS; k++) {
			enum floor_work work = (enum floor_work)((k + r) % FLOOR_KINDS);
			int64_t c0 = thread_cpu_ns();
			uint64_t sweeps = 0;

			while (thread_cpu_ns() - c0 < 150000000) {
				floor_sweep(base, &h, pose, iters, n++, work);
				sweeps++;
			}
			t[work] = (double)(thread_cpu_ns() - c0) / (double)(sweeps * h.channel_count);
		}
		for (int k = 0; k < 2; k++) {
			add[k][r] = t[FLOOR_PAYLOAD + k] - t[FLOOR_NOTHING];
			ratio[k][r] = (engine + add[k][r]) / engine;
		}
	}
	printf("the floor under it: into a 25,000-channel region, each pose beside register-only "
	       "arithmetic as long as the engine's pose (%.2f us), against the arithmetic alone "
	       "(%d rounds, medians and ranges):\n", engine / 1e3, FLOOR_ROUNDS);
	for (int k = 0; k < 2; k++) {
		struct spread sa = spread_of(add[k], FLOOR_ROUNDS), sr = spread_of(ratio[k], FLOOR_ROUNDS);

		printf("  %s: +%.0f ns per pose (%.0f..%.0f), %.2fx the engine (%.2f..%.2f)\n",
		       floor_names[k], sa.med, sa.min, sa.max, sr.med, sr.min, sr.max);
		floor_med[k] = sa.med;
	}
	print_goal_window(floor_med);
	/* Reads the sink, so that no compiler can drop the arithmetic. */
	if (arithmetic_sink == 12345.0f)
		printf("\n");
	munmap(base, h.region_bytes);
	free(pose);
}

static void start_daemon(struct daemon_proc *d)
{
	if (daemon_proc_init(d) < 0)
		die("temp dir");
	running = d;
	if (md5_synth_write(d->assets, "c64", 64, 61, 30) < 0 ||
	    md5_synth_write(d->assets, "c256", 256, 61, 30) < 0)
		die("synth");
	if (daemon_proc_start(d, "[limits]\nmax_instances_per_connection = 30000\n"
				 "[log]\nlevel = warning\n", 20000) < 0)
		die("daemon did not start");
}

static void stop_daemon(struct daemon_proc *d)
{
	daemon_proc_stop(d, SIGTERM, 10000);
	daemon_proc_cleanup(d);
	running = NULL;
}

/* Whether this process may use one CPU only; else `all` holds its CPUs. */
static int one_cpu_only(cpu_set_t *all)
{
	return sched_getaffinity(0, sizeof *all, all) != 0 || CPU_COUNT(all) < 2;
}

/* The floor, measured with the daemon stopped so that it takes no CPU. */
static void bench_floor_beside_stopped(const struct daemon_proc *d)
{
	kill(d->pid, SIGSTOP);
	bench_publish_floor(d);
	kill(d->pid, SIGCONT);
}

/*
 * The goal is stated per core, so the 25,000 instances are also published
 * by a daemon allowed a single CPU: it then ticks on its loop thread alone
 * (daemon.c sizes its workers from its affinity), with no second thread
 * competing for the memory system, and the engine loops it is compared with
 * run on that CPU too.  This process keeps that CPU mask while the daemon
 * starts (the child inherits it) and for the whole measurement.
 */
static void bench_one_core(void)
{
	cpu_set_t all, one;
	struct daemon_proc d;
	char where[64];
	int cpu = -1;

	if (one_cpu_only(&all)) {
		printf("stream publish on one core: skipped (this process may use one CPU only, so the "
		       "25,000-instance line above already ran on one)\n");
		return;
	}
	/* The last CPU allowed: the first usually takes more of the interrupts. */
	for (int c = CPU_SETSIZE - 1; c >= 0 && cpu < 0; c--)
		if (CPU_ISSET(c, &all))
			cpu = c;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof one, &one) != 0)
		die("sched_setaffinity");
	snprintf(where, sizeof where, ", daemon on one core (CPU %d)", cpu);
	start_daemon(&d);
	bench_scale(&d, "c64.md5anim", 64, 25000, 1, where);
	bench_floor_beside_stopped(&d);
	stop_daemon(&d);
	if (sched_setaffinity(0, sizeof all, &all) != 0)
		die("sched_setaffinity");
}

int main(void)
{
	static const char *const copy_kernel[] = { "plain stores", "AVX2 streaming stores",
						   "AVX-512 streaming stores, a line each" };
	struct daemon_proc d;

	start_daemon(&d);
	printf("== pose streams (animd serve, sealed memfd, seqlock; the payload copy on this CPU: %s)\n",
	       copy_kernel[animd_shm_copy_limit(ANIMD_SHM_COPY_AVX512)]);
	bench_latency(&d);
	bench_scale(&d, "c64.md5anim", 64, 2000, 1, "");
	bench_scale(&d, "c64.md5anim", 64, 25000, 1, "");
	/* A crowd: 250 groups of 100 walkers in step. */
	bench_scale(&d, "c64.md5anim", 64, 25000, 100, "");
	bench_scale(&d, "c256.md5anim", 256, 2000, 1, "");
	/* Where bench_one_core cannot run, the floor is measured here. */
	{
		cpu_set_t all;

		if (one_cpu_only(&all))
			bench_floor_beside_stopped(&d);
	}
	stop_daemon(&d);
	bench_one_core();
	return 0;
}
