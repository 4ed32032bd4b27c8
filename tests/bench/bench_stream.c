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
 *    instances one core keeps at 60 Hz.
 *
 * Prints figures; asserts nothing about speed.
 */
#include <errno.h>
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

/* Pin to one CPU, or (cpu < 0) let it run on any. */
static void pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int i = 0; i < CPU_SETSIZE && i < sysconf(_SC_NPROCESSORS_ONLN); i++)
		if (cpu < 0 || i == cpu)
			CPU_SET(i, &set);
	sched_setaffinity(pid, sizeof set, &set);
}

/* Daemon CPU time (user + system) in ns, from /proc/PID/stat. */
static int64_t cpu_ns(pid_t pid)
{
	char path[64], buf[4096], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL || fgets(buf, sizeof buf, f) == NULL)
		die("read /proc stat");
	fclose(f);
	p = strrchr(buf, ')');
	if (p == NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut,
				&st) != 2)
		die("parse /proc stat");
	return (int64_t)(ut + st) * (1000000000LL / sysconf(_SC_CLK_TCK));
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
static void play_many(struct rpc_client *c, const char *asset, uint64_t stream, uint32_t n)
{
	for (uint32_t done = 0; done < n;) {
		uint32_t batch = n - done < 256 ? n - done : 256;

		rpc_client_cork(c);
		for (uint32_t i = 0; i < batch; i++)
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

static void bench_latency(struct daemon_proc *d)
{
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
	pin(d->pid, -1);
	rpc_client_close(&c);
	munmap(m.h, m.bytes);
	close(m.fd);
}

static void bench_scale(struct daemon_proc *d, const char *asset, uint32_t joints, uint32_t n)
{
	struct rpc_client c;
	struct mapped m;
	int64_t t0, c0, t1, c1;
	uint64_t p0 = 0, p1 = 0, k0, k1;
	double per_pose;

	if (rpc_client_connect(&c, d->socket, 20000) < 0)
		die("connect");
	c.timeout_ms = 20000;
	open_stream(&c, 60, n, joints, 2, &m);
	play_many(&c, asset, m.id, n);
	usleep(300000);
	for (uint32_t i = 0; i < n; i++)
		p0 += animd_shm_published(animd_shm_channel(m.h, m.h, i));
	k0 = m.h->ticks;
	t0 = now_ns();
	c0 = cpu_ns(d->pid);
	sleep(3);
	t1 = now_ns();
	c1 = cpu_ns(d->pid);
	k1 = m.h->ticks;
	for (uint32_t i = 0; i < n; i++)
		p1 += animd_shm_published(animd_shm_channel(m.h, m.h, i));
	per_pose = (double)(c1 - c0) / (double)(p1 - p0);
	printf("stream publish %3u joints, %5u instances at 60 Hz: %.0f ticks/s achieved, "
	       "%.0f poses/s, daemon CPU %.0f%% of a core, %.2f us per pose\n"
	       "  -> one core sustains %.2f million %u-joint poses/s = %.0f instances at 60 Hz\n",
	       joints, n, (double)(k1 - k0) / ((t1 - t0) / 1e9),
	       (double)(p1 - p0) / ((t1 - t0) / 1e9), 100.0 * (c1 - c0) / (t1 - t0),
	       per_pose / 1e3, 1e3 / per_pose, joints, 1e9 / per_pose / 60);
	rpc_client_close(&c);
	munmap(m.h, m.bytes);
	close(m.fd);
	usleep(300000);
}

int main(void)
{
	struct daemon_proc d;

	if (daemon_proc_init(&d) < 0)
		die("temp dir");
	running = &d;
	if (md5_synth_write(d.assets, "c64", 64, 61, 30) < 0 ||
	    md5_synth_write(d.assets, "c256", 256, 61, 30) < 0)
		die("synth");
	if (daemon_proc_start(&d, "[limits]\nmax_instances_per_connection = 20000\n"
				  "[log]\nlevel = warning\n", 20000) < 0)
		die("daemon did not start");
	printf("== pose streams (animd serve, sealed memfd, seqlock)\n");
	bench_latency(&d);
	bench_scale(&d, "c64.md5anim", 64, 2000);
	bench_scale(&d, "c64.md5anim", 64, 10000);
	bench_scale(&d, "c256.md5anim", 256, 2000);
	daemon_proc_stop(&d, SIGTERM, 10000);
	daemon_proc_cleanup(&d);
	return 0;
}
