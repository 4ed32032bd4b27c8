/*
 * bench_startup - start-up on a large tree, and memory under a cap, against
 * the real daemon on a generated tree (tests/support/asset_tree.h, the one
 * bench_coldload starts on; 4,000 assets of every format, about 120 MB,
 * unless BENCH_STARTUP_ASSETS says otherwise):
 *
 *   - first answer: from the daemon's start (fork) to the reply of
 *     assets.info of the tree's last asset, and of a play of its last
 *     character (an md5anim on its md5mesh), each sent the moment the
 *     socket accepts;
 *   - every name: to an assets.list that names every asset;
 *   - every asset loaded: to STATUS=serving (the start-up loads are over);
 *   - under [assets] max_memory at a quarter of what the tree takes loaded:
 *     what the assets and the whole daemon (RSS) hold after start-up and
 *     while 300 samples spread over the tree make it evict and load again,
 *     with the samples' latency, beside the uncapped daemon's figures.
 *
 * With ANIMD_BASELINE naming another animd (a build of an earlier
 * version), the start-up figures are taken from it too, the two started
 * alternately in every round.  A daemon that answers not_found for a name
 * it does not know yet (as those before the index did) is asked again,
 * every millisecond, until it answers otherwise.
 *
 * Prints figures; asserts nothing about speed.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"
#include "tests/support/tree_manifest.h"

#define ROUNDS 3
#define SAMPLES 300
#define TIMEOUT_MS 120000

struct startup {
	double accept_ms;               /* the socket accepted */
	double info_ms;                 /* assets.info of the last asset answered */
	double play_ms;                 /* play of the last character answered */
	double listed_ms;               /* assets.list named every file */
	double loaded_ms;               /* STATUS=serving */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_startup: %s\n", what);
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* "min X, median Y ms" of n values (sorted in place). */
static const char *min_median(double *v, size_t n, char *buf, size_t size)
{
	qsort(v, n, sizeof *v, cmp_double);
	snprintf(buf, size, "min %9.2f  median %9.2f  max %9.2f ms", v[0], v[n / 2], v[n - 1]);
	return buf;
}

/* A reply that says the daemon does not know the name yet. */
static bool not_yet(const struct rpc_reply *r)
{
	return r->error != NULL && strcmp(r->code, "not_found") == 0;
}

static size_t list_count(const struct rpc_reply *r)
{
	const msgpack_object *o = r->error == NULL ? rpc_get(r->result, "assets") : NULL;

	return o != NULL && o->type == MSGPACK_OBJECT_ARRAY ? o->via.array.size : 0;
}

/* One start of animd on the tree at assets: the figures into *t. */
static void startup_round(const char *animd, const char *assets, const struct tree_manifest *m,
			  struct startup *t)
{
	const struct tree_asset *last = &m->assets[m->count - 1];
	const struct tree_asset *anim = tree_nth(m, TREE_MD5ANIM, m->by_kind[TREE_MD5ANIM] - 1);
	struct daemon_proc d;
	struct rpc_client c;
	struct rpc_reply r;
	double t0;
	bool info = false, play = false, listed = false;

	if (daemon_proc_init(&d) < 0)
		die("cannot make a directory");
	snprintf(d.assets, sizeof d.assets, "%s", assets);
	setenv("ANIMD", animd, 1);
	t0 = now_ms();
	if (daemon_proc_spawn(&d, NULL, NULL) < 0)
		die("cannot start animd");
	while (rpc_client_connect(&c, d.socket, 0) < 0) {
		if (now_ms() - t0 > TIMEOUT_MS)
			die("animd never accepted");
		poll(NULL, 0, 1);
	}
	t->accept_ms = now_ms() - t0;
	c.timeout_ms = TIMEOUT_MS;
	/* Each asked again until known (a daemon of before the index). */
	while (!info || !play || !listed) {
		int64_t id_info = -1, id_play = -1, id_list = -1;
		int want = 0;

		rpc_client_cork(&c);
		if (!info && (id_info = rpc_client_send(&c, "assets.info", "asset:s", last->name)) > 0)
			want++;
		if (!play && (id_play = rpc_client_send(&c, "play", "asset:s mesh:s", anim->name,
							anim->mesh)) > 0)
			want++;
		if (!listed && (id_list = rpc_client_send(&c, "assets.list", "limit:u",
							  (uint64_t)10000)) > 0)
			want++;
		if (rpc_client_uncork(&c) < 0)
			die("cannot send");
		for (; want > 0; want--) {
			if (rpc_client_wait_any(&c, &r) < 0)
				die("no reply");
			if (r.msgid == (uint32_t)id_info && !not_yet(&r)) {
				if (r.error != NULL)
					die(r.message);
				info = true;
				t->info_ms = now_ms() - t0;
			} else if (r.msgid == (uint32_t)id_play && !not_yet(&r)) {
				if (r.error != NULL)
					die(r.message);
				play = true;
				t->play_ms = now_ms() - t0;
			} else if (r.msgid == (uint32_t)id_list && list_count(&r) >= m->count) {
				listed = true;
				t->listed_ms = now_ms() - t0;
			}
			rpc_reply_free(&r);
		}
		if (!info || !play || !listed)
			poll(NULL, 0, 1);
	}
	rpc_client_close(&c);
	if (daemon_proc_wait_notify(&d, "STATUS=serving", TIMEOUT_MS) < 0)
		die("animd never loaded the tree");
	t->loaded_ms = now_ms() - t0;
	if (daemon_proc_stop(&d, SIGTERM, TIMEOUT_MS) != 0)
		die("animd did not stop cleanly");
	d.assets[0] = '\0';
	daemon_proc_cleanup(&d);
}

static void startup_report(const char *who, struct startup *t, size_t n)
{
	double v[ROUNDS];
	char buf[128];
	static const struct {
		const char *what;
		size_t off;
	} rows[] = {
		{ "socket accepts", offsetof(struct startup, accept_ms) },
		{ "first answer: assets.info, last", offsetof(struct startup, info_ms) },
		{ "first answer: play, last char", offsetof(struct startup, play_ms) },
		{ "every name listed", offsetof(struct startup, listed_ms) },
		{ "every asset loaded", offsetof(struct startup, loaded_ms) },
	};

	for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
		for (size_t i = 0; i < n; i++)
			v[i] = *(const double *)((const char *)&t[i] + rows[k].off);
		printf("startup %-9s %-33s %s\n", who, rows[k].what, min_median(v, n, buf, sizeof buf));
	}
}

/* A status field ("memory.assets.total") as an integer. */
static int64_t status_field(struct rpc_client *c, const char *path)
{
	const msgpack_object *o;
	struct rpc_reply r;
	char key[64];
	const char *dot;
	int64_t v = -1;

	if (rpc_client_call(c, &r, "status", NULL) < 0 || r.error != NULL)
		die("status failed");
	o = r.result;
	while ((dot = strchr(path, '.')) != NULL) {
		snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
		o = rpc_get(o, key);
		path = dot + 1;
	}
	if (rpc_get_i64(o, path, &v) < 0)
		die("a status field is missing");
	rpc_reply_free(&r);
	return v;
}

static double mib(int64_t bytes)
{
	return (double)bytes / (1 << 20);
}

/* Start animd on assets (max_memory: 0 for none) and wait for its loads. */
static void start(struct daemon_proc *d, const char *assets, uint64_t max_memory,
		  struct rpc_client *c)
{
	char ini[128];

	if (daemon_proc_init(d) < 0)
		die("cannot make a directory");
	snprintf(d->assets, sizeof d->assets, "%s", assets);
	snprintf(ini, sizeof ini, "[assets]\nmax_memory = %llu\n", (unsigned long long)max_memory);
	if (daemon_proc_start(d, ini, TIMEOUT_MS) < 0)
		die("animd did not start");
	if (rpc_client_connect(c, d->socket, TIMEOUT_MS) < 0)
		die("cannot connect");
	c->timeout_ms = TIMEOUT_MS;
}

static void stop(struct daemon_proc *d, struct rpc_client *c)
{
	rpc_client_close(c);
	if (daemon_proc_stop(d, SIGTERM, TIMEOUT_MS) != 0)
		die("animd did not stop cleanly");
	d->assets[0] = '\0';
	daemon_proc_cleanup(d);
}

/* Under a cap of a quarter: what it holds, after start-up and while
 * samples spread over the tree cycle through more than fits. */
static void cap_bench(const char *assets, const struct tree_manifest *m)
{
	struct daemon_proc d;
	struct rpc_client c;
	int64_t total, rss, full_rss, peak = 0, peak_rss = 0;
	double lat[SAMPLES];
	uint64_t cap;
	char buf[128];

	setenv("ANIMD", getenv("BENCH_ANIMD"), 1);
	start(&d, assets, 0, &c);
	total = status_field(&c, "memory.assets.total");
	full_rss = status_field(&c, "memory_bytes");
	stop(&d, &c);
	cap = (uint64_t)total / 4;
	printf("cap       uncapped: assets %8.1f MiB, daemon RSS %8.1f MiB\n", mib(total),
	       mib(full_rss));

	start(&d, assets, cap, &c);
	printf("cap       max_memory %.1f MiB, after start-up: assets %8.1f MiB, RSS %8.1f MiB, "
	       "%lld kept, %lld evicted\n", mib((int64_t)cap),
	       mib(status_field(&c, "memory.assets.total")), mib(status_field(&c, "memory_bytes")),
	       (long long)status_field(&c, "assets.states.ok"),
	       (long long)status_field(&c, "assets.states.evicted"));
	for (size_t i = 0; i < SAMPLES; i++) {
		/* Spread over the tree, in no order the cache could favour. */
		const struct tree_asset *a = &m->assets[(i * 7919u) % m->count];
		struct rpc_reply r;
		double t0 = now_ms();
		int rc;

		if (a->kind == TREE_MD5MESH || a->kind == TREE_BROKEN)
			a = tree_nth(m, TREE_MD5ANIM, i % m->by_kind[TREE_MD5ANIM]);
		if (a->kind == TREE_MD5ANIM)
			rc = rpc_client_call(&c, &r, "sample", "asset:s mesh:s time:d", a->name,
					     a->mesh, 0.3);
		else
			rc = rpc_client_call(&c, &r, "sample", "asset:s time:d", a->name, 0.3);
		if (rc < 0 || r.error != NULL)
			die(rc < 0 ? "sample: no reply" : r.message);
		lat[i] = now_ms() - t0;
		rpc_reply_free(&r);
		total = status_field(&c, "memory.assets.total");
		rss = status_field(&c, "memory_bytes");
		peak = total > peak ? total : peak;
		peak_rss = rss > peak_rss ? rss : peak_rss;
	}
	printf("cap       %d samples spread over the tree: assets at most %8.1f MiB, RSS at most "
	       "%8.1f MiB, %lld evictions, %lld loads on demand\n", SAMPLES, mib(peak),
	       mib(peak_rss), (long long)status_field(&c, "assets.evictions"),
	       (long long)status_field(&c, "assets.on_demand_loads"));
	printf("cap       sample latency: %s\n", min_median(lat, SAMPLES, buf, sizeof buf));
	stop(&d, &c);
}

int main(void)
{
	const char *animd = getenv("ANIMD"), *baseline = getenv("ANIMD_BASELINE");
	const char *assets_env = getenv("BENCH_STARTUP_ASSETS");
	unsigned count = assets_env != NULL ? (unsigned)atoi(assets_env) : 4000;
	struct startup mine[ROUNDS], base[ROUNDS];
	struct tree_manifest m;
	char dir[] = "/tmp/animd-bench-tree-XXXXXX", assets[64], cmd[160];

	if (animd == NULL)
		animd = "build/animd";
	setenv("BENCH_ANIMD", animd, 1);
	if (mkdtemp(dir) == NULL)
		die("cannot make a directory");
	snprintf(assets, sizeof assets, "%s/assets", dir);
	if (tree_generate(assets, count, 0, &m) < 0)
		die("cannot generate the tree");
	printf("startup   a tree of %zu assets%s\n", m.count,
	       baseline != NULL ? ", this animd and ANIMD_BASELINE alternately" : "");
	for (int i = 0; i < ROUNDS; i++) {
		startup_round(animd, assets, &m, &mine[i]);
		if (baseline != NULL)
			startup_round(baseline, assets, &m, &base[i]);
	}
	startup_report("animd", mine, ROUNDS);
	if (baseline != NULL)
		startup_report("baseline", base, ROUNDS);
	cap_bench(assets, &m);
	tree_manifest_free(&m);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		die("cannot remove the tree");
	return 0;
}
