/*
 * bench_client - libanimclient's own figures, the reference for the Python
 * package's (bench_python.py runs this against the same daemon):
 *  - status round trips per second on one connection (animc_status,
 *    result decoded and freed), and the client's CPU time per call;
 *  - animc_stream_latest of a 64-joint model-space pose while the daemon
 *    publishes it at 1 kHz, in CPU time per call.
 * Medians over rounds, with the spread of the rounds.
 *
 *   bench_client [SOCKET]   SOCKET: a daemon serving c64.md5anim and
 *                           c64.md5mesh; without, one of its own.
 *
 * Prints figures; asserts nothing about speed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "client/animclient.h"
#include "tests/support/daemon_proc.h"
#include "tests/support/md5_synth.h"

#define ROUNDS 9
#define STATUS_CALLS 2000
#define LATEST_CALLS 200000

static struct daemon_proc *running;

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_client: %s: %s\n", what, rc < 0 ? animc_strerror(rc) : "failed");
	if (running != NULL)
		daemon_proc_cleanup(running);
	exit(1);
}

static double now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v; its median. */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return v[n / 2];
}

static void bench(const char *sock)
{
	double rate[ROUNDS], cpu[ROUNDS], lat[ROUNDS];
	animc_stream_opts so = ANIMC_STREAM_OPTS_INIT;
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	animc_pose_info info;
	animc_instance *in;
	animc_client *c;
	animc_stream *s;
	float pose[64 * 12];
	int rc;

	if ((rc = animc_client_new(&c)) < 0 || (rc = animc_client_connect(c, sock, 5000)) < 0)
		die("connect", rc);
	for (int r = 0; r < ROUNDS; r++) {
		double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);

		for (int i = 0; i < STATUS_CALLS; i++) {
			animc_status_info *st;

			if ((rc = animc_status(c, &st)) < 0)
				die("status", rc);
			animc_free(st);
		}
		rate[r] = STATUS_CALLS / (now(CLOCK_MONOTONIC) - w0);
		cpu[r] = (now(CLOCK_PROCESS_CPUTIME_ID) - c0) / STATUS_CALLS * 1e6;
	}
	so.rate_hz = 1000;
	so.channels = 1;
	so.max_elements = 64;
	if ((rc = animc_stream_open(c, &so, &s)) < 0)
		die("stream.open", rc);
	po.asset = "c64.md5anim";
	po.mesh = "c64.md5mesh";
	po.stream = s;
	if ((rc = animc_play(c, &po, &in)) < 0)
		die("play", rc);
	while (animc_stream_latest(s, in->id, pose, 64 * 12, &info) != 0)
		;
	if (info.element_count != 64)
		die("a 64-joint pose", -1);
	for (int r = 0; r < ROUNDS; r++) {
		double c0 = now(CLOCK_THREAD_CPUTIME_ID);

		for (int i = 0; i < LATEST_CALLS; i++)
			if ((rc = animc_stream_latest(s, in->id, pose, 64 * 12, &info)) < 0)
				die("latest", rc);
		lat[r] = (now(CLOCK_THREAD_CPUTIME_ID) - c0) / LATEST_CALLS * 1e6;
	}
	/* Sorted before the spread is printed (argument order is unspecified). */
	double mr = median(rate, ROUNDS), mc = median(cpu, ROUNDS), ml = median(lat, ROUNDS);

	printf("libanimclient status round trip, 1 conn: %8.0f req/s (rounds %.0f .. %.0f), "
	       "client CPU %.1f us per call\n", mr, rate[0], rate[ROUNDS - 1], mc);
	printf("libanimclient latest(), 64-joint pose:    %8.3f us CPU (rounds %.3f .. %.3f)\n",
	       ml, lat[0], lat[ROUNDS - 1]);
	animc_free(in);
	animc_client_close(c);
}

int main(int argc, char **argv)
{
	struct daemon_proc d;

	if (argc > 1) {
		bench(argv[1]);
		return 0;
	}
	if (daemon_proc_init(&d) < 0)
		die("temp dir", -1);
	running = &d;
	if (md5_synth_write(d.assets, "c64", 64, 61, 30) < 0)
		die("synth", -1);
	if (daemon_proc_start(&d, "[log]\nlevel = warning\n", 20000) < 0)
		die("daemon did not start", -1);
	printf("== libanimclient (one connection, the daemon on a private socket)\n");
	bench(d.socket);
	daemon_proc_stop(&d, SIGTERM, 10000);
	daemon_proc_cleanup(&d);
	return 0;
}
