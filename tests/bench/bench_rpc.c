/*
 * bench_rpc - the control plane, measured against the real daemon on a
 * private socket: request round trip (p50, p99) and requests per second
 * over one connection, over 50 connections, and pipelined 16 deep; and
 * hot-reload latency (file saved -> asset.reloaded received).
 *
 * Prints figures; asserts nothing about speed.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support/daemon_proc.h"
#include "support/msgpack_skip.h"
#include "support/rpc_client.h"

#define CONNS 50
#define DEPTH 16

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t pct(int64_t *v, size_t n, double p)
{
	qsort(v, n, sizeof *v, cmp_i64);
	return v[(size_t)(p * (double)(n - 1))];
}

/* The daemon this run started, stopped on every way out. */
static struct daemon_proc *running;

static void die(const char *what)
{
	fprintf(stderr, "bench_rpc: %s\n", what);
	if (running != NULL)
		daemon_proc_cleanup(running);
	exit(1);
}

/* One connection, one request at a time. */
static void bench_round_trip(const char *sock, const char *method, const char *label, int n,
			     const char *fmt, const char *a1, double a2)
{
	struct rpc_client c;
	int64_t *lat = malloc((size_t)n * sizeof *lat), t0;

	if (rpc_client_connect(&c, sock, 5000) < 0)
		die("connect");
	t0 = now_ns();
	for (int i = 0; i < n; i++) {
		struct rpc_reply r;
		int64_t s = now_ns();

		if (rpc_client_call(&c, &r, method, fmt, a1, a2) < 0 || r.error != NULL)
			die("call failed");
		lat[i] = now_ns() - s;
		rpc_reply_free(&r);
	}
	printf("rpc %-26s 1 conn:   %8.0f req/s   p50 %6.1f us   p99 %6.1f us\n", label,
	       n / ((double)(now_ns() - t0) / 1e9), pct(lat, (size_t)n, 0.5) / 1e3,
	       pct(lat, (size_t)n, 0.99) / 1e3);
	rpc_client_close(&c);
	free(lat);
}

/* Many connections with `depth` requests outstanding each, driven by one
 * poll loop (like redis-benchmark -c CONNS -P depth). */
static void bench_many(const char *sock, int conns, int depth, int total)
{
	struct rpc_client *c = calloc((size_t)conns, sizeof *c);
	struct pollfd *pfd = calloc((size_t)conns, sizeof *pfd);
	int64_t *lat = malloc((size_t)total * sizeof *lat), t0;
	int64_t (*sent_at)[DEPTH] = calloc((size_t)conns, sizeof *sent_at);
	int *head = calloc((size_t)conns, sizeof *head);
	int sent = 0, done = 0;

	for (int i = 0; i < conns; i++) {
		if (rpc_client_connect(&c[i], sock, 5000) < 0)
			die("connect");
		pfd[i].fd = c[i].fd;
		pfd[i].events = POLLIN;
	}
	t0 = now_ns();
	for (int i = 0; i < conns; i++) {
		rpc_client_cork(&c[i]);
		for (int k = 0; k < depth && sent < total; k++, sent++) {
			sent_at[i][k] = now_ns();
			rpc_client_send(&c[i], "hello", NULL);
		}
		rpc_client_uncork(&c[i]);
	}
	while (done < total) {
		if (poll(pfd, (nfds_t)conns, 5000) <= 0)
			die("poll timed out");
		for (int i = 0; i < conns; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			/* Take every reply that has arrived on this connection. */
			if (rpc_client_read_nowait(&c[i]) == -ECONNRESET)
				die("daemon hung up");
			rpc_client_cork(&c[i]);
			for (;;) {
				struct rpc_reply r;

				if (rpc_client_next_buffered(&c[i], &r) != 1)
					break;
				rpc_reply_free(&r);
				lat[done++] = now_ns() - sent_at[i][head[i]];
				if (sent < total) {
					sent_at[i][head[i]] = now_ns();
					rpc_client_send(&c[i], "hello", NULL);
					sent++;
				}
				head[i] = (head[i] + 1) % depth;
			}
			rpc_client_uncork(&c[i]);
		}
	}
	printf("rpc %-26s %d conn x %2d deep: %8.0f req/s   p50 %6.1f us   p99 %6.1f us\n", "hello",
	       conns, depth, total / ((double)(now_ns() - t0) / 1e9), pct(lat, (size_t)total, 0.5) / 1e3,
	       pct(lat, (size_t)total, 0.99) / 1e3);
	for (int i = 0; i < conns; i++)
		rpc_client_close(&c[i]);
	free(c);
	free(pfd);
	free(lat);
	free(sent_at);
	free(head);
}

/*
 * The same load, with a load generator that costs next to nothing: requests
 * are pre-encoded bytes and replies are only counted (msgpack_skip), so the
 * figure is the daemon's, as redis-benchmark's is Redis's.
 */
struct raw_conn {
	int fd;
	uint8_t in[1 << 16];
	size_t have;
	int64_t sent_at[DEPTH];
	unsigned head, outstanding;
};

static void bench_raw(const char *sock, int conns, int depth, int total)
{
	/* [0, 1, "hello", []] */
	static const uint8_t hello[] = { 0x94, 0x00, 0x01, 0xa5, 'h', 'e', 'l', 'l', 'o', 0x90 };
	struct raw_conn *c = calloc((size_t)conns, sizeof *c);
	struct pollfd *pfd = calloc((size_t)conns, sizeof *pfd);
	int64_t *lat = malloc((size_t)total * sizeof *lat), t0;
	uint8_t burst[DEPTH * sizeof hello];
	int sent = 0, done = 0;

	for (int k = 0; k < DEPTH; k++)
		memcpy(burst + k * sizeof hello, hello, sizeof hello);
	for (int i = 0; i < conns; i++) {
		struct rpc_client tmp;

		if (rpc_client_connect(&tmp, sock, 5000) < 0)
			die("connect");
		c[i].fd = dup(tmp.fd);
		rpc_client_close(&tmp);
		pfd[i].fd = c[i].fd;
		pfd[i].events = POLLIN;
	}
	t0 = now_ns();
	for (int i = 0; i < conns; i++) {
		int k = depth < total - sent ? depth : total - sent;

		for (int j = 0; j < k; j++)
			c[i].sent_at[(c[i].head + c[i].outstanding + j) % DEPTH] = now_ns();
		if (write(c[i].fd, burst, (size_t)k * sizeof hello) != (ssize_t)(k * sizeof hello))
			die("write");
		c[i].outstanding += (unsigned)k;
		sent += k;
	}
	while (done < total) {
		if (poll(pfd, (nfds_t)conns, 5000) <= 0)
			die("poll timed out");
		for (int i = 0; i < conns; i++) {
			struct raw_conn *r = &c[i];
			ssize_t n;
			size_t at = 0, k;
			int replies = 0, more;

			if (!(pfd[i].revents & POLLIN))
				continue;
			n = read(r->fd, r->in + r->have, sizeof r->in - r->have);
			if (n <= 0)
				die("daemon hung up");
			r->have += (size_t)n;
			while ((k = msgpack_skip(r->in + at, r->have - at)) > 0) {
				at += k;
				lat[done++] = now_ns() - r->sent_at[r->head];
				r->head = (r->head + 1) % DEPTH;
				r->outstanding--;
				replies++;
			}
			memmove(r->in, r->in + at, r->have - at);
			r->have -= at;
			more = replies < total - sent ? replies : total - sent;
			for (int j = 0; j < more; j++)
				r->sent_at[(r->head + r->outstanding + j) % DEPTH] = now_ns();
			if (more > 0 &&
			    write(r->fd, burst, (size_t)more * sizeof hello) != (ssize_t)(more * sizeof hello))
				die("write");
			r->outstanding += (unsigned)more;
			sent += more;
		}
	}
	printf("rpc %-26s %d conn x %2d deep: %8.0f req/s   p50 %6.1f us   p99 %6.1f us  (raw load generator)\n",
	       "hello", conns, depth, total / ((double)(now_ns() - t0) / 1e9),
	       pct(lat, (size_t)total, 0.5) / 1e3, pct(lat, (size_t)total, 0.99) / 1e3);
	for (int i = 0; i < conns; i++)
		close(c[i].fd);
	free(c);
	free(pfd);
	free(lat);
}

static void bench_reload(struct daemon_proc *d, unsigned quiet_ms, int n)
{
	const char *events[] = { "asset.reloaded", NULL };
	struct rpc_client c;
	struct rpc_reply r;
	int64_t *lat = malloc((size_t)n * sizeof *lat);
	char path[1024], *text;
	FILE *f;
	long len;

	if (rpc_client_connect(&c, d->socket, 5000) < 0 ||
	    rpc_client_call(&c, &r, "subscribe", "events:S", events) < 0)
		die("subscribe");
	rpc_reply_free(&r);
	snprintf(path, sizeof path, "%s/walker.md5anim", d->assets);
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = malloc((size_t)len + 64);
	if (fread(text, 1, (size_t)len, f) != (size_t)len)
		die("read");
	fclose(f);
	for (int i = 0; i < n; i++) {
		struct rpc_event ev;
		int64_t t0;
		/* A different commandline each time so the bytes change. */
		char *q = strstr(text, "commandline \"");

		q[13] = (char)('a' + i % 26);
		t0 = now_ns();
		f = fopen(path, "wb");
		fwrite(text, 1, (size_t)len, f);
		fclose(f);
		if (rpc_client_next_event(&c, 5000, &ev) < 0)
			die("no reload event");
		lat[i] = now_ns() - t0;
		rpc_event_free(&ev);
	}
	printf("hot reload (save -> asset.reloaded), quiet period %u ms: p50 %.1f ms  p99 %.1f ms "
	       "(%.1f ms beyond the quiet period)\n", quiet_ms, pct(lat, (size_t)n, 0.5) / 1e6,
	       pct(lat, (size_t)n, 0.99) / 1e6, pct(lat, (size_t)n, 0.5) / 1e6 - quiet_ms);
	rpc_client_close(&c);
	free(lat);
	free(text);
}

int main(void)
{
	struct daemon_proc d;
	const char *build = getenv("BUILD");
	char cmd[1024];

	if (daemon_proc_init(&d) < 0)
		die("temp dir");
	running = &d;
	snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s", build ? build : "build", d.assets);
	if (system(cmd) != 0)
		die("gen_demo");
	if (daemon_proc_start(&d, "[reload]\nquiet_ms = 20\n[log]\nlevel = warning\n", 10000) < 0)
		die("daemon did not start");
	printf("== control plane (animd serve, Unix socket, msgpack-RPC; medians of whole runs)\n");
	bench_round_trip(d.socket, "hello", "hello", 20000, NULL, NULL, 0);
	bench_round_trip(d.socket, "sample", "sample model 10 joints", 20000,
			 "asset:s time:d", "walker.md5anim", 0.25);
	bench_many(d.socket, CONNS, 1, 200000);
	bench_many(d.socket, 1, DEPTH, 400000);
	bench_raw(d.socket, 1, 1, 100000);
	bench_raw(d.socket, CONNS, 1, 300000);
	bench_raw(d.socket, 1, DEPTH, 1000000);
	/* redis-benchmark -P 16 keeps its default 50 clients: 800 in flight. */
	bench_raw(d.socket, CONNS, DEPTH, 2000000);
	bench_reload(&d, 20, 50);
	daemon_proc_stop(&d, SIGTERM, 5000);
	daemon_proc_cleanup(&d);
	return 0;
}
