/*
 * The cache's index, its wanted queue and its memory cap, against a real
 * libuv loop and a real temporary tree (test_cache.c covers the walk and
 * hot reload): every name known when the start-up walk ends, before any
 * load; a wanted name loaded ahead of the background queue, its waiter
 * called with the outcome (good, broken, gone, the cache closing); the
 * least recently used assets nobody holds evicted when a wanted load passes
 * the cap, background loads past it dropped, an evicted file's change
 * only indexed, an evicted asset loaded again with its generation.
 *
 * Nothing here asserts a duration: the loop runs until what is awaited
 * happens, or a per-test deadline passes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/assets/asset.h"
#include "daemon/service/cache/cache.h"

#define WAIT_MS 5000
#define MAX_EVENTS 4096
#define MAX_LOGS 64

enum ev_type { EV_LOADED, EV_RELOADED, EV_ERROR, EV_REMOVED, EV_UNCHANGED };

struct ev {
	enum ev_type type;
	char name[64];
	uint64_t generation;
};

struct fx {
	uv_loop_t loop;
	uv_timer_t deadline;
	bool timed_out;
	char base[PATH_MAX];
	char root[PATH_MAX];
	struct cache_options opts;
	struct cache *cache;
	struct ev events[MAX_EVENTS];
	size_t nev;
	char logs[MAX_LOGS][700];
	size_t nlog;
	bool indexed, ready, closed;
	struct cache_summary indexed_summary;
	/* At the indexed event: what the cache said of every name. */
	size_t listed_at_index;
	size_t loading_at_index;
};

/* One waiter and what it was called with. */
struct waited {
	struct cache_waiter w;
	int calls;
	struct asset *asset;            /* a reference taken in the callback */
	size_t events_before;           /* events recorded when it was called */
	struct fx *f;
};

/* ---- files --------------------------------------------------------------- */

static char *anim_text(unsigned frames)
{
	size_t cap = 512 + frames * 64;
	char *s = malloc(cap);
	size_t n = 0;

	assert_non_null(s);
	n += (size_t)snprintf(s + n, cap - n,
			      "MD5Version 10\ncommandline \"\"\n\nnumFrames %u\nnumJoints 1\n"
			      "frameRate 24\nnumAnimatedComponents 0\n\n"
			      "hierarchy {\n\t\"root\" -1 0 0\n}\n\nbounds {\n", frames);
	for (unsigned i = 0; i < frames; i++)
		n += (size_t)snprintf(s + n, cap - n, "\t( -1 -1 -1 ) ( 1 1 1 )\n");
	n += (size_t)snprintf(s + n, cap - n, "}\n\nbaseframe {\n\t( 0 0 0 ) ( 0 0 0 )\n}\n\n");
	for (unsigned i = 0; i < frames; i++)
		n += (size_t)snprintf(s + n, cap - n, "frame %u {\n}\n\n", i);
	assert_true(n < cap);
	return s;
}

static const char broken_text[] =
	"MD5Version 10\ncommandline \"\"\n\nnumFrames lots\nnumJoints 1\n";

/* out (PATH_MAX bytes) = dir "/" rel. */
static void join(char *out, const char *dir, const char *rel)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, rel);

	assert_true(n > 0 && n < PATH_MAX);
}

static void put(const struct fx *f, const char *rel, const char *text)
{
	char p[PATH_MAX];
	int fd;

	join(p, f->root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(close(fd), 0);
}

static void put_anim(const struct fx *f, const char *rel, unsigned frames)
{
	char *t = anim_text(frames);

	put(f, rel, t);
	free(t);
}

/* "a000.md5anim": names of one length, so every asset takes as much. */
static const char *nth(unsigned i)
{
	static char names[8][32];
	static unsigned k;
	char *s = names[k++ % 8];

	snprintf(s, 32, "a%03u.md5anim", i % 1000);
	return s;
}

/* What one of them takes in memory (the name is part of it). */
static uint64_t anim_bytes(void)
{
	struct asset *a = NULL;
	char err[256], *t = anim_text(2);
	uint64_t n;

	assert_int_equal(asset_load_buffer(nth(0), t, strlen(t), &a, err, sizeof err), 0);
	n = a->memory.total;
	asset_unref(a);
	free(t);
	return n;
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(p);
}

/* ---- the loop ------------------------------------------------------------ */

static void record(struct fx *f, enum ev_type type, const char *name, uint64_t gen)
{
	struct ev *e;

	assert_true(f->nev < MAX_EVENTS);
	e = &f->events[f->nev++];
	e->type = type;
	snprintf(e->name, sizeof e->name, "%s", name);
	e->generation = gen;
}

static void on_loaded(struct cache *c, const char *name, uint64_t gen, void *data)
{
	(void)c;
	record(data, EV_LOADED, name, gen);
}

static void on_reloaded(struct cache *c, const char *name, uint64_t gen, void *data)
{
	(void)c;
	record(data, EV_RELOADED, name, gen);
}

static void on_error(struct cache *c, const char *name, const char *msg, void *data)
{
	(void)c;
	(void)msg;
	record(data, EV_ERROR, name, 0);
}

static void on_removed(struct cache *c, const char *name, void *data)
{
	(void)c;
	record(data, EV_REMOVED, name, 0);
}

static void on_unchanged(struct cache *c, const char *name, uint64_t gen, void *data)
{
	(void)c;
	record(data, EV_UNCHANGED, name, gen);
}

static void on_log(struct cache *c, int level, const char *msg, void *data)
{
	struct fx *f = data;

	(void)c;
	if (getenv("ANIMD_TEST_VERBOSE") != NULL)
		fprintf(stderr, "<%d>%s\n", level, msg);
	if (level <= LOG_NOTICE && f->nlog < MAX_LOGS)
		snprintf(f->logs[f->nlog++], sizeof f->logs[0], "%s", msg);
}

static size_t count_logs(const struct fx *f, const char *needle)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nlog; i++)
		n += strstr(f->logs[i], needle) != NULL;
	return n;
}

static void on_indexed(struct cache *c, const struct cache_summary *s, void *data)
{
	struct fx *f = data;
	struct cache_info *list;
	size_t count;

	f->indexed = true;
	f->indexed_summary = *s;
	/* What a request would see now. */
	assert_int_equal(cache_list(c, &list, &count), 0);
	f->listed_at_index = count;
	for (size_t i = 0; i < count; i++)
		f->loading_at_index += list[i].state == CACHE_ASSET_LOADING && list[i].asset == NULL;
	free(list);
}

static void on_ready(struct cache *c, const struct cache_summary *s, void *data)
{
	(void)c;
	(void)s;
	((struct fx *)data)->ready = true;
}

static void on_closed(void *data)
{
	((struct fx *)data)->closed = true;
}

static void deadline_cb(uv_timer_t *t)
{
	((struct fx *)t->data)->timed_out = true;
}

static bool run_until(struct fx *f, bool (*pred)(struct fx *f, const void *arg), const void *arg)
{
	f->timed_out = false;
	uv_timer_start(&f->deadline, deadline_cb, WAIT_MS, 0);
	uv_run(&f->loop, UV_RUN_NOWAIT);
	while (!pred(f, arg) && !f->timed_out)
		uv_run(&f->loop, UV_RUN_ONCE);
	uv_timer_stop(&f->deadline);
	return pred(f, arg);
}

static bool pred_ready(struct fx *f, const void *arg)
{
	(void)arg;
	return f->ready;
}

static bool pred_settled(struct fx *f, const void *arg)
{
	struct cache_stats s;

	(void)arg;
	cache_stats(f->cache, &s);
	return s.loads_running == 0 && s.loads_waiting == 0 && !s.walking;
}

static bool pred_called(struct fx *f, const void *arg)
{
	(void)f;
	return ((const struct waited *)arg)->calls > 0;
}

static bool pred_closed(struct fx *f, const void *arg)
{
	(void)arg;
	return f->closed;
}

static bool pred_not_over(struct fx *f, const void *arg)
{
	struct cache_stats s;

	(void)arg;
	cache_stats(f->cache, &s);
	return !s.over_cap;
}

static void settle(struct fx *f)
{
	assert_true(run_until(f, pred_settled, NULL));
}

static void fx_start(struct fx *f)
{
	char err[256];

	f->ready = f->indexed = false;
	f->listed_at_index = f->loading_at_index = 0;
	assert_int_equal(cache_new(&f->loop, &f->opts, &f->cache, err, sizeof err), 0);
	assert_int_equal(cache_start(f->cache, on_ready), 0);
	assert_true(run_until(f, pred_ready, NULL));
	settle(f);
}

static void fx_close(struct fx *f)
{
	if (f->cache == NULL)
		return;
	f->closed = false;
	cache_close(f->cache, on_closed);
	f->cache = NULL;
	assert_true(run_until(f, pred_closed, NULL));
}

static void waited_cb(struct cache_waiter *w, struct asset *asset, void *data)
{
	struct waited *wd = data;

	(void)w;
	wd->calls++;
	wd->events_before = wd->f->nev;
	/* As a held request does: the asset stays until it is let go. */
	wd->asset = asset != NULL ? asset_ref(asset) : NULL;
}

/* Wants name; returns cache_want's answer. */
static int want(struct fx *f, struct waited *wd, const char *name)
{
	memset(wd, 0, sizeof *wd);
	wd->f = f;
	return cache_want(f->cache, name, &wd->w, waited_cb, wd);
}

/* Wants name and waits for the waiter: its asset (a reference the caller
 * drops), or NULL. */
static struct asset *want_and_wait(struct fx *f, const char *name)
{
	struct waited wd;

	assert_int_equal(want(f, &wd, name), 1);
	assert_true(run_until(f, pred_called, &wd));
	assert_int_equal(wd.calls, 1);
	return wd.asset;
}

static enum cache_asset_state state_of(struct fx *f, const char *name)
{
	struct cache_info info;

	assert_int_equal(cache_get(f->cache, name, &info), 0);
	return info.state;
}

static size_t count_events(const struct fx *f, enum ev_type type, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nev; i++)
		n += f->events[i].type == type && (name == NULL || strcmp(f->events[i].name, name) == 0);
	return n;
}

static ssize_t find_event(const struct fx *f, enum ev_type type, const char *name)
{
	for (size_t i = 0; i < f->nev; i++)
		if (f->events[i].type == type && strcmp(f->events[i].name, name) == 0)
			return (ssize_t)i;
	return -1;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);

	assert_non_null(f);
	snprintf(f->base, sizeof f->base, "%s/animd-residency-XXXXXX",
		 getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(f->base));
	join(f->root, f->base, "root");
	assert_int_equal(mkdir(f->root, 0755), 0);
	assert_int_equal(uv_loop_init(&f->loop), 0);
	uv_timer_init(&f->loop, &f->deadline);
	f->deadline.data = f;
	f->opts.root = f->root;
	f->opts.quiet_ms = 30;
	f->opts.max_parallel_loads = 2;         /* one background slot, one kept */
	f->opts.events.loaded = on_loaded;
	f->opts.events.reloaded = on_reloaded;
	f->opts.events.error = on_error;
	f->opts.events.removed = on_removed;
	f->opts.events.unchanged = on_unchanged;
	f->opts.events.log = on_log;
	f->opts.events.indexed = on_indexed;
	f->opts.data = f;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	nftw(f->base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	fx_close(f);
	uv_close((uv_handle_t *)&f->deadline, NULL);
	uv_run(&f->loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&f->loop), 0);
	free(f);
	return 0;
}

/* ---- the index ----------------------------------------------------------- */

/* Every name is known when the walk ends, before any load has. */
static void test_index_before_loads(void **state)
{
	struct fx *f = *state;
	struct cache_stats s;

	for (unsigned i = 0; i < 40; i++)
		put_anim(f, nth(i), 2);
	put(f, "broken.md5anim", broken_text);
	fx_start(f);
	assert_true(f->indexed);
	assert_int_equal(f->indexed_summary.files, 41);
	assert_int_equal(f->listed_at_index, 41);
	assert_int_equal(f->loading_at_index, 41);
	/* Then the background loads every one of them, as before. */
	assert_int_equal(count_events(f, EV_LOADED, NULL), 40);
	assert_int_equal(count_events(f, EV_ERROR, NULL), 1);
	cache_stats(f->cache, &s);
	assert_true(s.indexed);
	assert_int_equal(s.states[CACHE_ASSET_OK], 40);
	assert_int_equal(s.states[CACHE_ASSET_FAILED], 1);
	assert_int_equal(s.states[CACHE_ASSET_LOADING], 0);
	assert_int_equal(s.demand_loads, 0);
}

/* Before the walk ends nothing is known, and a want waits for it. */
static void test_want_before_index(void **state)
{
	struct fx *f = *state;
	struct cache_info info;
	struct waited wd, none;
	char err[256];

	for (unsigned i = 0; i < 10; i++)
		put_anim(f, nth(i), 2);
	assert_int_equal(cache_new(&f->loop, &f->opts, &f->cache, err, sizeof err), 0);
	assert_int_equal(cache_start(f->cache, on_ready), 0);
	assert_false(cache_indexed(f->cache));
	assert_int_equal(cache_get(f->cache, nth(9), &info), -EAGAIN);
	assert_int_equal(want(f, &wd, nth(9)), 1);
	assert_int_equal(want(f, &none, "missing.md5anim"), 1);
	assert_true(run_until(f, pred_called, &wd));
	assert_non_null(wd.asset);
	assert_string_equal(wd.asset->name, nth(9));
	/* Not in the index: told so when the index is complete. */
	assert_int_equal(none.calls, 1);
	assert_null(none.asset);
	assert_int_equal(cache_get(f->cache, "missing.md5anim", &info), -ENOENT);
	asset_unref(wd.asset);
	assert_true(run_until(f, pred_ready, NULL));
}

/* A wanted name goes before the background queue: with 300 names and one
 * background slot, the last one is loaded long before its turn. */
static void test_wanted_ahead_of_background(void **state)
{
	struct fx *f = *state;
	struct waited wd;
	struct cache_stats s;
	char err[256];

	for (unsigned i = 0; i < 300; i++)
		put_anim(f, nth(i), 2);
	assert_int_equal(cache_new(&f->loop, &f->opts, &f->cache, err, sizeof err), 0);
	assert_int_equal(cache_start(f->cache, on_ready), 0);
	assert_int_equal(want(f, &wd, nth(299)), 1);
	assert_true(run_until(f, pred_called, &wd));
	assert_non_null(wd.asset);
	/* Without the wanted queue it would come 300th. */
	assert_true(wd.events_before < 150);
	assert_true(find_event(f, EV_LOADED, nth(299)) >= 0);
	asset_unref(wd.asset);
	assert_true(run_until(f, pred_ready, NULL));
	settle(f);
	cache_stats(f->cache, &s);
	assert_int_equal(s.demand_loads, 1);
	assert_int_equal(count_events(f, EV_LOADED, NULL), 300);
	/* Once, whatever the order. */
	assert_int_equal(count_events(f, EV_LOADED, nth(299)), 1);
}

/* What a waiter is told: nothing to wait for, a failure, a file gone, the
 * cache closing. */
static void test_waiter_outcomes(void **state)
{
	struct fx *f = *state;
	struct waited wd, gone, closing;

	put_anim(f, "good.md5anim", 2);
	put(f, "broken.md5anim", broken_text);
	fx_start(f);
	/* In memory, failed, unknown: answered now. */
	assert_int_equal(want(f, &wd, "good.md5anim"), 0);
	assert_int_equal(want(f, &wd, "broken.md5anim"), 0);
	assert_int_equal(want(f, &wd, "nothing.md5anim"), 0);
	assert_int_equal(wd.calls, 0);
	fx_close(f);

	/* Gone before its load: the waiter hears of it, the index forgets it. */
	f->opts.max_memory = 1;         /* nothing stays in memory */
	fx_start(f);
	assert_int_equal(state_of(f, "good.md5anim"), CACHE_ASSET_EVICTED);
	{
		char p[PATH_MAX];

		/* Before the want: its load must not find the file. */
		join(p, f->root, "good.md5anim");
		assert_int_equal(unlink(p), 0);
	}
	assert_int_equal(want(f, &gone, "good.md5anim"), 1);
	assert_true(run_until(f, pred_called, &gone));
	assert_null(gone.asset);
	{
		struct cache_info info;

		assert_int_equal(cache_get(f->cache, "good.md5anim", &info), -ENOENT);
	}
	assert_int_equal(count_events(f, EV_REMOVED, "good.md5anim"), 1);

	/* The cache closing: called, with nothing. */
	put_anim(f, "again.md5anim", 2);
	assert_int_equal(cache_rescan(f->cache), 0);
	settle(f);
	assert_int_equal(want(f, &closing, "again.md5anim"), 1);
	fx_close(f);
	assert_int_equal(closing.calls, 1);
	assert_null(closing.asset);
}

/* ---- the memory cap ------------------------------------------------------ */

/* Past the cap, the background checks every file (errors are reported at
 * start, as without a cap) and keeps what fits. */
static void test_background_stops_at_cap(void **state)
{
	struct fx *f = *state;
	uint64_t one = anim_bytes();
	struct cache_stats s;

	for (unsigned i = 0; i < 10; i++)
		put_anim(f, nth(i), 2);
	put(f, "broken.md5anim", broken_text);
	f->opts.max_memory = one * 3 + one / 2;
	fx_start(f);
	assert_int_equal(count_events(f, EV_LOADED, NULL), 10);
	assert_int_equal(count_events(f, EV_ERROR, "broken.md5anim"), 1);
	cache_stats(f->cache, &s);
	assert_int_equal(s.memory.total, 3 * one);
	assert_int_equal(s.states[CACHE_ASSET_OK], 3);
	assert_int_equal(s.states[CACHE_ASSET_EVICTED], 7);
	assert_int_equal(s.states[CACHE_ASSET_FAILED], 1);
	assert_int_equal(s.dropped, 7);
	assert_int_equal(s.evictions, 0);
	assert_false(s.over_cap);
	assert_int_equal(count_logs(f, "reached the cap"), 1);
}

/* A wanted load evicts the least recently used; an evicted asset loads
 * again with its generation, and without an event. */
static void test_lru_eviction(void **state)
{
	struct fx *f = *state;
	uint64_t one = anim_bytes();
	struct cache_info info;
	struct cache_stats s;
	struct asset *a;
	const char *const A = "a000.md5anim", *const B = "a001.md5anim";
	const char *const C = "a002.md5anim", *const D = "a003.md5anim";

	for (unsigned i = 0; i < 8; i++)
		put_anim(f, nth(i), 2);
	f->opts.max_memory = one * 3 + one / 2;
	fx_start(f);
	f->nev = 0;
	/* A, B and C in that order, each loaded (or used) as a request would. */
	for (const char *const *n = (const char *const[]){ A, B, C, NULL }; *n != NULL; n++) {
		if (state_of(f, *n) == CACHE_ASSET_EVICTED)
			asset_unref(want_and_wait(f, *n));
		assert_int_equal(cache_use(f->cache, *n, &info), 0);
		assert_non_null(info.asset);
	}
	cache_stats(f->cache, &s);
	assert_int_equal(s.states[CACHE_ASSET_OK], 3);
	assert_int_equal(state_of(f, A), CACHE_ASSET_OK);
	assert_int_equal(state_of(f, B), CACHE_ASSET_OK);
	assert_int_equal(state_of(f, C), CACHE_ASSET_OK);
	/* Loaded again: no event, the same generation. */
	assert_int_equal(f->nev, 0);
	assert_int_equal(cache_get(f->cache, A, &info), 0);
	assert_int_equal(info.generation, 1);

	/* D pushes out A, the least recently used. */
	asset_unref(want_and_wait(f, D));
	assert_int_equal(state_of(f, A), CACHE_ASSET_EVICTED);
	assert_int_equal(state_of(f, B), CACHE_ASSET_OK);
	/* B used: C is the least recent now. */
	assert_int_equal(cache_use(f->cache, B, &info), 0);
	a = want_and_wait(f, A);
	assert_non_null(a);
	assert_int_equal(a->clips[0]->frame_count, 2);
	asset_unref(a);
	assert_int_equal(state_of(f, C), CACHE_ASSET_EVICTED);
	assert_int_equal(state_of(f, B), CACHE_ASSET_OK);
	assert_int_equal(state_of(f, D), CACHE_ASSET_OK);
	cache_stats(f->cache, &s);
	assert_true(s.memory.total <= f->opts.max_memory);
	assert_int_equal(f->nev, 0);

	/* assets.reload of an evicted asset: the same bytes, "unchanged". */
	assert_int_equal(cache_reload(f->cache, C), 0);
	settle(f);
	assert_int_equal(count_events(f, EV_UNCHANGED, C), 1);
	assert_int_equal(state_of(f, C), CACHE_ASSET_OK);
}

/* What is held is never evicted; when it alone is over the cap, the cache
 * serves it and says so, and comes back under once it is let go. */
static void test_in_use_is_kept(void **state)
{
	struct fx *f = *state;
	uint64_t one = anim_bytes();
	struct asset *held[4];
	struct cache_info info;
	struct cache_stats s;

	for (unsigned i = 0; i < 6; i++)
		put_anim(f, nth(i), 2);
	f->opts.max_memory = one * 2 + one / 2;
	fx_start(f);
	/* Hold four, as instances would: two more than fit. */
	for (unsigned i = 0; i < 4; i++) {
		if (state_of(f, nth(i)) == CACHE_ASSET_EVICTED) {
			held[i] = want_and_wait(f, nth(i));
		} else {
			assert_int_equal(cache_use(f->cache, nth(i), &info), 0);
			held[i] = asset_ref(info.asset);
		}
		assert_non_null(held[i]);
	}
	cache_stats(f->cache, &s);
	assert_int_equal(s.memory.total, 4 * one);
	assert_true(s.over_cap);
	assert_int_equal(count_logs(f, "over the cap"), 1);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(state_of(f, nth(i)), CACHE_ASSET_OK);
	/* Let go: the cache looks again by itself. */
	for (unsigned i = 0; i < 4; i++)
		asset_unref(held[i]);
	assert_true(run_until(f, pred_not_over, NULL));
	cache_stats(f->cache, &s);
	assert_true(s.memory.total <= f->opts.max_memory);
	assert_int_equal(count_logs(f, "within the cap again"), 1);
}

/* An evicted file that changes is only indexed (not parsed, no event); it
 * is parsed when wanted, a new generation; one deleted is removed. */
static void test_evicted_change_only_indexed(void **state)
{
	struct fx *f = *state;
	struct cache_stats before, after;
	struct cache_info info;
	struct asset *a;

	put_anim(f, "x.md5anim", 2);
	put_anim(f, "y.md5anim", 2);
	f->opts.max_memory = 1;
	fx_start(f);
	assert_int_equal(state_of(f, "x.md5anim"), CACHE_ASSET_EVICTED);
	cache_stats(f->cache, &before);
	f->nev = 0;
	put_anim(f, "x.md5anim", 5);
	put(f, "y.md5anim", broken_text);
	/* The watcher's events, then a walk: neither parses. */
	settle(f);
	assert_int_equal(cache_rescan(f->cache), 0);
	settle(f);
	cache_stats(f->cache, &after);
	assert_int_equal(after.loads, before.loads);
	assert_int_equal(f->nev, 0);
	assert_int_equal(state_of(f, "x.md5anim"), CACHE_ASSET_EVICTED);

	/* Wanted: parsed now, the change is a new version. */
	a = want_and_wait(f, "x.md5anim");
	assert_non_null(a);
	assert_int_equal(a->clips[0]->frame_count, 5);
	asset_unref(a);
	assert_int_equal(cache_get(f->cache, "x.md5anim", &info), 0);
	assert_int_equal(info.generation, 2);
	assert_int_equal(count_events(f, EV_RELOADED, "x.md5anim"), 1);
	/* The broken one: its error, then asked for again, the same. */
	assert_null(want_and_wait(f, "y.md5anim"));
	assert_int_equal(state_of(f, "y.md5anim"), CACHE_ASSET_FAILED);
	assert_int_equal(count_events(f, EV_ERROR, "y.md5anim"), 1);

	/* Deleted while evicted: removed.  (x was let go: the cache looks
	 * again by itself, and evicts it.) */
	assert_true(run_until(f, pred_not_over, NULL));
	{
		char p[PATH_MAX];

		assert_int_equal(state_of(f, "x.md5anim"), CACHE_ASSET_EVICTED);
		join(p, f->root, "x.md5anim");
		assert_int_equal(unlink(p), 0);
	}
	settle(f);
	assert_int_equal(count_events(f, EV_REMOVED, "x.md5anim"), 1);
}

/* SIGHUP's new cap: lower evicts at once, none lets everything fit. */
static void test_cap_changes(void **state)
{
	struct fx *f = *state;
	uint64_t one = anim_bytes();
	struct cache_stats s;

	for (unsigned i = 0; i < 6; i++)
		put_anim(f, nth(i), 2);
	fx_start(f);
	cache_stats(f->cache, &s);
	assert_int_equal(s.memory.total, 6 * one);
	cache_set_max_memory(f->cache, one * 2);
	cache_stats(f->cache, &s);
	assert_int_equal(s.memory.total, 2 * one);
	assert_int_equal(s.evictions, 4);
	assert_int_equal(s.states[CACHE_ASSET_EVICTED], 4);
	assert_int_equal(count_logs(f, "reached the cap"), 1);
	cache_set_max_memory(f->cache, 0);
	assert_int_equal(count_logs(f, "below the cap again"), 1);
	/* Evicted stays evicted until wanted. */
	cache_stats(f->cache, &s);
	assert_int_equal(s.states[CACHE_ASSET_EVICTED], 4);
	assert_int_equal(s.max_memory, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_index_before_loads),
		T(test_want_before_index),
		T(test_wanted_ahead_of_background),
		T(test_waiter_outcomes),
		T(test_background_stops_at_cap),
		T(test_lru_eviction),
		T(test_in_use_is_kept),
		T(test_evicted_change_only_indexed),
		T(test_cap_changes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
