/*
 * The asset cache against a real libuv loop and a real temporary asset
 * tree: start-up walk, every way editors save (write in place, temp file +
 * rename, delete + re-create, a slow writer), broken saves and recovery,
 * directories coming and going, rescans catching what the watcher cannot
 * see, name resolution, and clean shutdown (uv_loop_close() == 0).
 *
 * Nothing here asserts a duration.  Each wait runs the loop until the
 * expected event arrives or a per-test deadline (a few seconds) passes.
 * File changes are made while the loop is not running, so the kernel has
 * queued every inotify event before the cache sees the first one: that is
 * what makes "a burst is one reload" deterministic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
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
#include "daemon/service/cache/asset_path.h"
#include "daemon/service/cache/cache.h"
#include "daemon/service/cache/scan.h"

#define WAIT_MS 5000
#define QUIET_MS 50
#define MAX_EVENTS 512
#define MAX_LOGS 64

enum ev_type { EV_LOADED, EV_RELOADED, EV_ERROR, EV_REMOVED, EV_UNCHANGED };

struct ev {
	enum ev_type type;
	char name[256];
	uint64_t generation;
	char message[600];
};

struct fx {
	uv_loop_t loop;
	uv_timer_t deadline;
	bool timed_out;
	char base[PATH_MAX];            /* the temporary directory */
	char root[PATH_MAX];            /* base/root, the asset root */
	struct cache_options opts;
	struct cache *cache;
	struct ev events[MAX_EVENTS];
	size_t nev;
	char logs[MAX_LOGS][700];       /* the cache's warnings and errors */
	size_t nlog;
	bool ready;
	struct cache_summary summary;
	bool closed;
};

/* ---- content ----------------------------------------------------------- */

/* A valid md5anim with `frames` frames of one unanimated joint. */
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

static const char mesh_text[] =
	"MD5Version 10\ncommandline \"\"\n\nnumJoints 1\nnumMeshes 1\n\n"
	"joints {\n\t\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n\n"
	"mesh {\n\tshader \"s\"\n\tnumverts 3\n"
	"\tvert 0 ( 0 0 ) 0 1\n\tvert 1 ( 1 0 ) 1 1\n\tvert 2 ( 0 1 ) 2 1\n"
	"\tnumtris 1\n\ttri 0 0 1 2\n\tnumweights 3\n"
	"\tweight 0 0 1 ( 1 0 0 )\n\tweight 1 0 1 ( 0 1 0 )\n\tweight 2 0 1 ( 0 0 1 )\n}\n";

/* Broken on line 4, where a number is expected. */
static const char broken_text[] =
	"MD5Version 10\ncommandline \"\"\n\nnumFrames lots\nnumJoints 1\n";

/* ---- files ------------------------------------------------------------- */

/* out (PATH_MAX bytes) = dir "/" rel. */
static void join(char *out, const char *dir, const char *rel)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, rel);

	assert_true(n > 0 && n < PATH_MAX);
}

static void fx_path(const struct fx *f, const char *rel, char *out)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", f->root, rel);

	assert_true(n > 0 && n < PATH_MAX);
}

static void write_bytes(const char *path, const char *data, size_t len, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* Truncate and write: how most simple editors and tools save. */
static void put(const struct fx *f, const char *rel, const char *text)
{
	char p[PATH_MAX];

	fx_path(f, rel, p);
	write_bytes(p, text, strlen(text), O_TRUNC);
}

static void put_anim(const struct fx *f, const char *rel, unsigned frames)
{
	char *t = anim_text(frames);

	put(f, rel, t);
	free(t);
}

static void mkdirs(const struct fx *f, const char *rel)
{
	char p[PATH_MAX], *s;

	fx_path(f, rel, p);
	for (s = p + strlen(f->root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
		*s = '/';
	}
	assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(p);
}

static void rm_tree(const char *p)
{
	nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the loop ---------------------------------------------------------- */

static void on_loaded(struct cache *c, const char *name, uint64_t gen, void *data);
static void on_reloaded(struct cache *c, const char *name, uint64_t gen, void *data);
static void on_error(struct cache *c, const char *name, const char *msg, void *data);
static void on_removed(struct cache *c, const char *name, void *data);

static void record(struct fx *f, enum ev_type type, const char *name, uint64_t gen,
		   const char *msg)
{
	struct ev *e;

	assert_true(f->nev < MAX_EVENTS);
	e = &f->events[f->nev++];
	e->type = type;
	snprintf(e->name, sizeof e->name, "%s", name);
	e->generation = gen;
	snprintf(e->message, sizeof e->message, "%s", msg != NULL ? msg : "");
}

static void on_loaded(struct cache *c, const char *name, uint64_t gen, void *data)
{
	(void)c;
	record(data, EV_LOADED, name, gen, NULL);
}

static void on_reloaded(struct cache *c, const char *name, uint64_t gen, void *data)
{
	(void)c;
	record(data, EV_RELOADED, name, gen, NULL);
}

static void on_error(struct cache *c, const char *name, const char *msg, void *data)
{
	(void)c;
	record(data, EV_ERROR, name, 0, msg);
}

static void on_removed(struct cache *c, const char *name, void *data)
{
	(void)c;
	record(data, EV_REMOVED, name, 0, NULL);
}

static void on_unchanged(struct cache *c, const char *name, uint64_t gen, void *data)
{
	(void)c;
	record(data, EV_UNCHANGED, name, gen, NULL);
}

/* ANIMD_TEST_VERBOSE=1 shows the cache's own notes; warnings and errors
 * are kept for the tests that count them. */
static void on_log(struct cache *c, int level, const char *msg, void *data)
{
	struct fx *f = data;

	(void)c;
	if (getenv("ANIMD_TEST_VERBOSE") != NULL)
		fprintf(stderr, "<%d>%s\n", level, msg);
	if (level <= LOG_WARNING && f->nlog < MAX_LOGS)
		snprintf(f->logs[f->nlog++], sizeof f->logs[0], "%s", msg);
}

/* How many warnings or errors the cache logged that contain needle. */
static size_t count_logs(const struct fx *f, const char *needle)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nlog; i++)
		n += strstr(f->logs[i], needle) != NULL;
	return n;
}

static void on_ready(struct cache *c, const struct cache_summary *s, void *data)
{
	struct fx *f = data;

	(void)c;
	f->ready = true;
	f->summary = *s;
}

static void on_closed(void *data)
{
	struct fx *f = data;

	f->closed = true;
}

static void deadline_cb(uv_timer_t *t)
{
	struct fx *f = t->data;

	f->timed_out = true;
}

/* Runs the loop until pred holds or the deadline passes; returns pred. */
static bool run_until(struct fx *f, bool (*pred)(struct fx *f, const void *arg), const void *arg)
{
	f->timed_out = false;
	uv_timer_start(&f->deadline, deadline_cb, WAIT_MS, 0);
	/* Take in whatever the kernel has queued before judging. */
	uv_run(&f->loop, UV_RUN_NOWAIT);
	while (!pred(f, arg) && !f->timed_out)
		uv_run(&f->loop, UV_RUN_ONCE);
	uv_timer_stop(&f->deadline);
	return pred(f, arg);
}

struct ev_want {
	enum ev_type type;
	const char *name;
};

static ssize_t find_event(const struct fx *f, enum ev_type type, const char *name)
{
	for (size_t i = 0; i < f->nev; i++)
		if (f->events[i].type == type && strcmp(f->events[i].name, name) == 0)
			return (ssize_t)i;
	return -1;
}

static size_t count_events(const struct fx *f, enum ev_type type, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nev; i++)
		n += f->events[i].type == type && (name == NULL || strcmp(f->events[i].name, name) == 0);
	return n;
}

static bool pred_event(struct fx *f, const void *arg)
{
	const struct ev_want *w = arg;

	return find_event(f, w->type, w->name) >= 0;
}

/* Waits for an event and returns it; events are cleared by clear_events. */
static const struct ev *wait_event(struct fx *f, enum ev_type type, const char *name)
{
	struct ev_want w = { type, name };
	ssize_t i;

	if (!run_until(f, pred_event, &w))
		fail_msg("no %d event for %s within %d ms", (int)type, name, WAIT_MS);
	i = find_event(f, type, name);
	return &f->events[i];
}

static void clear_events(struct fx *f)
{
	f->nev = 0;
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

/* Lets every pending event, quiet period, walk and load run out. */
static void settle(struct fx *f)
{
	assert_true(run_until(f, pred_settled, NULL));
}

static bool pred_closed(struct fx *f, const void *arg)
{
	(void)arg;
	return f->closed;
}

static void fx_new_cache(struct fx *f)
{
	char err[256];

	assert_int_equal(cache_new(&f->loop, &f->opts, &f->cache, err, sizeof err), 0);
}

static void fx_start(struct fx *f)
{
	fx_new_cache(f);
	assert_int_equal(cache_start(f->cache, on_ready), 0);
	assert_true(run_until(f, pred_ready, NULL));
	settle(f);
}

static void fx_close_cache(struct fx *f)
{
	if (f->cache == NULL)
		return;
	f->closed = false;
	cache_close(f->cache, on_closed);
	f->cache = NULL;
	assert_true(run_until(f, pred_closed, NULL));
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);

	assert_non_null(f);
	snprintf(f->base, sizeof f->base, "%s/animd-cache-XXXXXX",
		 getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(f->base));
	join(f->root, f->base, "root");
	assert_int_equal(mkdir(f->root, 0755), 0);
	assert_int_equal(uv_loop_init(&f->loop), 0);
	uv_timer_init(&f->loop, &f->deadline);
	f->deadline.data = f;
	f->opts.root = f->root;
	f->opts.quiet_ms = QUIET_MS;
	f->opts.events.loaded = on_loaded;
	f->opts.events.reloaded = on_reloaded;
	f->opts.events.error = on_error;
	f->opts.events.removed = on_removed;
	f->opts.events.unchanged = on_unchanged;
	f->opts.events.log = on_log;
	f->opts.data = f;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	/* The tree goes first, so a failure below leaves nothing in /tmp. */
	rm_tree(f->base);
	fx_close_cache(f);
	uv_close((uv_handle_t *)&f->deadline, NULL);
	uv_run(&f->loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&f->loop), 0);
	free(f);
	return 0;
}

static struct asset *live(struct fx *f, const char *name, struct cache_info *info)
{
	assert_int_equal(cache_get(f->cache, name, info), 0);
	assert_non_null(info->asset);
	return info->asset;
}

static uint32_t live_frames(struct fx *f, const char *name)
{
	struct cache_info info;
	const struct asset *a = live(f, name, &info);

	assert_int_equal(a->clip_count, 1);
	return a->clips[0]->frame_count;
}

/* "name:line:col: error: ..." with numbers where they belong. */
static void assert_located_error(const char *msg, const char *name, unsigned line)
{
	size_t n = strlen(name);
	unsigned l = 0, col = 0;
	int used = 0;

	assert_memory_equal(msg, name, n);
	assert_int_equal(sscanf(msg + n, ":%u:%u: error: %n", &l, &col, &used), 2);
	assert_true(used > 0);
	assert_int_equal(l, line);
	assert_true(col > 0);
}

/* ---- tests ------------------------------------------------------------- */

static void test_content_is_valid(void **state)
{
	struct asset *a = NULL;
	char err[256];
	char *t = anim_text(3);

	(void)state;
	assert_int_equal(asset_load_buffer("x.md5anim", t, strlen(t), &a, err, sizeof err), 0);
	assert_int_equal(a->clips[0]->frame_count, 3);
	asset_free(a);
	free(t);
	assert_int_equal(asset_load_buffer("x.md5mesh", mesh_text, strlen(mesh_text), &a, err,
					   sizeof err), 0);
	asset_free(a);
	assert_true(asset_load_buffer("x.md5anim", broken_text, strlen(broken_text), &a, err,
				      sizeof err) < 0);
	assert_located_error(err, "x.md5anim", 4);
}

static void test_startup_walk(void **state)
{
	struct fx *f = *state;
	struct cache_info *list, info;
	size_t count;

	mkdirs(f, "chars/hero");
	mkdirs(f, "deep/a/b/c");
	mkdirs(f, ".git");
	put_anim(f, "walk.md5anim", 4);
	put_anim(f, "chars/hero/run.md5anim", 2);
	put(f, "chars/hero/body.md5mesh", mesh_text);
	put(f, "broken.md5anim", broken_text);
	put_anim(f, "deep/a/b/c/d.md5anim", 1);
	put_anim(f, ".hidden.md5anim", 1);
	put_anim(f, "walk.md5anim~", 1);
	put_anim(f, "#walk.md5anim#", 1);
	put_anim(f, ".git/x.md5anim", 1);
	put(f, "notes.txt", "not an asset\n");

	fx_start(f);
	assert_int_equal(f->summary.status, 0);
	assert_int_equal(f->summary.files, 5);
	assert_int_equal(f->summary.loaded, 4);
	assert_int_equal(f->summary.failed, 1);
	assert_int_equal(f->summary.directories, 7); /* root, chars, chars/hero, deep/... */
	assert_int_equal(count_events(f, EV_LOADED, NULL), 4);
	assert_int_equal(count_events(f, EV_ERROR, NULL), 1);
	assert_located_error(f->events[find_event(f, EV_ERROR, "broken.md5anim")].message,
			     "broken.md5anim", 4);

	assert_int_equal(cache_list(f->cache, &list, &count), 0);
	assert_int_equal(count, 5);
	assert_string_equal(list[0].name, "broken.md5anim");
	assert_string_equal(list[1].name, "chars/hero/body.md5mesh");
	assert_string_equal(list[2].name, "chars/hero/run.md5anim");
	assert_string_equal(list[3].name, "deep/a/b/c/d.md5anim");
	assert_string_equal(list[4].name, "walk.md5anim");
	assert_null(list[0].asset);
	assert_int_equal(list[0].generation, 0);
	assert_non_null(list[0].error);
	for (size_t i = 1; i < count; i++) {
		assert_non_null(list[i].asset);
		assert_int_equal(list[i].generation, 1);
		assert_null(list[i].error);
		assert_true(list[i].file_bytes > 0);
		assert_false(list[i].pending);
	}
	free(list);

	assert_int_equal(live_frames(f, "walk.md5anim"), 4);
	assert_int_equal(live_frames(f, "chars/hero/run.md5anim"), 2);
	/* The asset carries its name relative to the root, as errors do. */
	assert_string_equal(live(f, "chars/hero/run.md5anim", &info)->name,
			    "chars/hero/run.md5anim");
	assert_int_equal(cache_get(f->cache, ".hidden.md5anim", &info), -ENOENT);
	assert_int_equal(cache_get(f->cache, "walk.md5anim~", &info), -ENOENT);
	assert_int_equal(cache_get(f->cache, ".git/x.md5anim", &info), -ENOENT);
	assert_int_equal(cache_get(f->cache, "notes.txt", &info), -ENOENT);
}

static void test_empty_tree_is_ready(void **state)
{
	struct fx *f = *state;
	struct cache_info *list;
	size_t count;

	fx_start(f);
	assert_int_equal(f->summary.files, 0);
	assert_int_equal(f->summary.directories, 1);
	assert_int_equal(cache_list(f->cache, &list, &count), 0);
	assert_int_equal(count, 0);
	assert_null(list);
}

/* Editor pattern 1: truncate and write in place. */
static void test_write_in_place(void **state)
{
	struct fx *f = *state;
	struct cache_info info;
	struct asset *old;
	const struct ev *e;

	put_anim(f, "walk.md5anim", 4);
	fx_start(f);
	old = asset_ref(live(f, "walk.md5anim", &info));
	clear_events(f);

	put_anim(f, "walk.md5anim", 7);
	e = wait_event(f, EV_RELOADED, "walk.md5anim");
	assert_int_equal(e->generation, 2);
	assert_int_equal(live_frames(f, "walk.md5anim"), 7);
	assert_int_equal(cache_get(f->cache, "walk.md5anim", &info), 0);
	assert_int_equal(info.generation, 2);
	assert_null(info.error);
	/* Whoever held the old version still has it, whole. */
	assert_ptr_not_equal(old, info.asset);
	assert_int_equal(old->clips[0]->frame_count, 4);
	asset_unref(old);
	settle(f);
	assert_int_equal(f->nev, 1);
}

/* Editor pattern 2: write a temporary file, rename it over the target. */
static void test_temp_file_and_rename(void **state)
{
	struct fx *f = *state;
	char tmp[PATH_MAX], dst[PATH_MAX];
	char *t = anim_text(9);

	put_anim(f, "walk.md5anim", 4);
	fx_start(f);
	clear_events(f);

	fx_path(f, ".walk.md5anim.tmp1234", tmp);
	fx_path(f, "walk.md5anim", dst);
	write_bytes(tmp, t, strlen(t), O_TRUNC | O_EXCL);
	free(t);
	assert_int_equal(rename(tmp, dst), 0);

	assert_int_equal(wait_event(f, EV_RELOADED, "walk.md5anim")->generation, 2);
	assert_int_equal(live_frames(f, "walk.md5anim"), 9);
	settle(f);
	assert_int_equal(f->nev, 1);    /* nothing about the temporary name */
}

/* Editor pattern 2b: a temporary name with an asset's extension (Qt's
 * QSaveFile and others add a suffix; some tools keep the extension). */
static void test_visible_temp_name_renamed(void **state)
{
	struct fx *f = *state;
	char tmp[PATH_MAX], dst[PATH_MAX];
	struct cache_info info;
	char *t = anim_text(5);

	put_anim(f, "walk.md5anim", 4);
	fx_start(f);
	clear_events(f);

	fx_path(f, "walk.tmp.md5anim", tmp);
	fx_path(f, "walk.md5anim", dst);
	write_bytes(tmp, t, strlen(t), O_TRUNC);
	free(t);
	assert_int_equal(rename(tmp, dst), 0);
	assert_int_equal(wait_event(f, EV_RELOADED, "walk.md5anim")->generation, 2);
	settle(f);
	/* The short-lived name never became an asset, so nothing was removed. */
	assert_int_equal(count_events(f, EV_LOADED, "walk.tmp.md5anim"), 0);
	assert_int_equal(count_events(f, EV_REMOVED, NULL), 0);
	assert_int_equal(cache_get(f->cache, "walk.tmp.md5anim", &info), -ENOENT);
}

/* Editor pattern 3: delete, then create the file again (within the quiet
 * period: one reload, no removal). */
static void test_delete_and_recreate(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX];

	put_anim(f, "walk.md5anim", 4);
	fx_start(f);
	clear_events(f);

	fx_path(f, "walk.md5anim", p);
	assert_int_equal(unlink(p), 0);
	put_anim(f, "walk.md5anim", 6);

	assert_int_equal(wait_event(f, EV_RELOADED, "walk.md5anim")->generation, 2);
	assert_int_equal(live_frames(f, "walk.md5anim"), 6);
	settle(f);
	assert_int_equal(count_events(f, EV_REMOVED, NULL), 0);
	assert_int_equal(f->nev, 1);
}

/* Editor pattern 3b: Vim's default, rename the original to a backup, write
 * a new file, delete the backup. */
static void test_backup_rename_write_delete(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX], bak[PATH_MAX];

	put_anim(f, "walk.md5anim", 4);
	fx_start(f);
	clear_events(f);

	fx_path(f, "walk.md5anim", p);
	fx_path(f, "walk.md5anim~", bak);
	assert_int_equal(rename(p, bak), 0);
	put_anim(f, "walk.md5anim", 8);
	assert_int_equal(unlink(bak), 0);

	assert_int_equal(wait_event(f, EV_RELOADED, "walk.md5anim")->generation, 2);
	assert_int_equal(live_frames(f, "walk.md5anim"), 8);
	settle(f);
	assert_int_equal(f->nev, 1);
}

/* Editor pattern 4: a slow writer.  The half-written file is seen and
 * refused (the last good version stays live), then the whole one loads. */
static void test_slow_writer(void **state)
{
	struct fx *f = *state;
	struct cache_info info;
	const struct asset *before;
	const struct ev *e;
	char p[PATH_MAX];
	char *t = anim_text(7);
	size_t half = strlen(t) / 2;
	int fd;

	put_anim(f, "walk.md5anim", 4);
	fx_start(f);
	before = live(f, "walk.md5anim", &info);
	clear_events(f);

	fx_path(f, "walk.md5anim", p);
	fd = open(p, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, t, half), (ssize_t)half);

	e = wait_event(f, EV_ERROR, "walk.md5anim");
	assert_memory_equal(e->message, "walk.md5anim:", 13);
	assert_int_equal(cache_get(f->cache, "walk.md5anim", &info), 0);
	assert_ptr_equal(info.asset, before);
	assert_int_equal(info.generation, 1);
	assert_non_null(info.error);

	assert_int_equal(write(fd, t + half, strlen(t) - half), (ssize_t)(strlen(t) - half));
	assert_int_equal(close(fd), 0);
	free(t);

	assert_int_equal(wait_event(f, EV_RELOADED, "walk.md5anim")->generation, 2);
	assert_int_equal(live_frames(f, "walk.md5anim"), 7);
	assert_int_equal(cache_get(f->cache, "walk.md5anim", &info), 0);
	assert_null(info.error);
}

/* A broken save keeps the last good version and reports where; the next
 * good save recovers. */
static void test_broken_then_good(void **state)
{
	struct fx *f = *state;
	struct cache_info info;
	const struct asset *before;
	const struct ev *e;

	put_anim(f, "walk.md5anim", 4);
	fx_start(f);
	before = live(f, "walk.md5anim", &info);
	clear_events(f);

	put(f, "walk.md5anim", broken_text);
	e = wait_event(f, EV_ERROR, "walk.md5anim");
	assert_located_error(e->message, "walk.md5anim", 4);
	assert_int_equal(cache_get(f->cache, "walk.md5anim", &info), 0);
	assert_ptr_equal(info.asset, before);
	assert_int_equal(info.generation, 1);
	assert_string_equal(info.error, e->message);
	assert_int_equal(live_frames(f, "walk.md5anim"), 4);

	put_anim(f, "walk.md5anim", 5);
	assert_int_equal(wait_event(f, EV_RELOADED, "walk.md5anim")->generation, 2);
	assert_int_equal(cache_get(f->cache, "walk.md5anim", &info), 0);
	assert_null(info.error);
	assert_int_equal(live_frames(f, "walk.md5anim"), 5);
}

/* A new file that starts broken has no live version until a good save. */
static void test_new_file_broken_then_good(void **state)
{
	struct fx *f = *state;
	struct cache_info info;

	fx_start(f);
	put(f, "new.md5anim", broken_text);
	wait_event(f, EV_ERROR, "new.md5anim");
	assert_int_equal(cache_get(f->cache, "new.md5anim", &info), 0);
	assert_null(info.asset);
	assert_int_equal(info.generation, 0);
	assert_non_null(info.error);

	put_anim(f, "new.md5anim", 2);
	assert_int_equal(wait_event(f, EV_LOADED, "new.md5anim")->generation, 1);
	assert_int_equal(count_events(f, EV_RELOADED, NULL), 0);
}

static void test_delete_removes_after_quiet_period(void **state)
{
	struct fx *f = *state;
	struct cache_info info;
	struct asset *held;
	char p[PATH_MAX];

	put_anim(f, "walk.md5anim", 4);
	put_anim(f, "run.md5anim", 2);
	fx_start(f);
	held = asset_ref(live(f, "walk.md5anim", &info));
	clear_events(f);

	fx_path(f, "walk.md5anim", p);
	assert_int_equal(unlink(p), 0);
	wait_event(f, EV_REMOVED, "walk.md5anim");
	assert_int_equal(cache_get(f->cache, "walk.md5anim", &info), -ENOENT);
	assert_int_equal(cache_get(f->cache, "run.md5anim", &info), 0);
	assert_int_equal(held->clips[0]->frame_count, 4);
	asset_unref(held);
	settle(f);
	assert_int_equal(f->nev, 1);

	/* Back again: a new entry, generation 1. */
	put_anim(f, "walk.md5anim", 3);
	assert_int_equal(wait_event(f, EV_LOADED, "walk.md5anim")->generation, 1);
}

/* Many writes while the loop is busy elsewhere: one reload. */
static void test_burst_is_one_reload(void **state)
{
	struct fx *f = *state;

	put_anim(f, "walk.md5anim", 4);
	fx_start(f);
	clear_events(f);
	for (unsigned i = 0; i < 50; i++)
		put_anim(f, "walk.md5anim", 1 + i % 5);
	put_anim(f, "walk.md5anim", 10);
	wait_event(f, EV_RELOADED, "walk.md5anim");
	settle(f);
	assert_int_equal(f->nev, 1);
	assert_int_equal(live_frames(f, "walk.md5anim"), 10);
}

/* Saving identical bytes, or touching the file, is not a new version. */
static void test_unchanged_bytes_no_event(void **state)
{
	struct fx *f = *state;
	struct cache_info info;
	char p[PATH_MAX];

	put_anim(f, "walk.md5anim", 4);
	put(f, "broken.md5anim", broken_text);
	fx_start(f);
	clear_events(f);

	put_anim(f, "walk.md5anim", 4);
	fx_path(f, "walk.md5anim", p);
	assert_int_equal(chmod(p, 0600), 0);
	settle(f);
	assert_int_equal(f->nev, 0);
	assert_int_equal(cache_get(f->cache, "walk.md5anim", &info), 0);
	assert_int_equal(info.generation, 1);

	/* A file still broken says so again. */
	put(f, "broken.md5anim", broken_text);
	wait_event(f, EV_ERROR, "broken.md5anim");
}

/* assets.reload: parse now even if nothing changed; same events. */
/* cache_reload reads the file now; bytes that are the live version's make
 * no new generation (issue 8: a flood of reloads must not republish). */
static void test_forced_reload(void **state)
{
	struct fx *f = *state;

	put_anim(f, "walk.md5anim", 4);
	fx_start(f);
	clear_events(f);
	assert_int_equal(cache_reload(f->cache, "walk.md5anim"), 0);
	assert_int_equal(wait_event(f, EV_UNCHANGED, "walk.md5anim")->generation, 1);
	assert_int_equal(count_events(f, EV_RELOADED, NULL), 0);
	assert_int_equal(cache_reload(f->cache, "nope.md5anim"), -ENOENT);
	/* Changed on disk, reloaded before the watcher's quiet period ends:
	 * parsed at once, a new generation. */
	clear_events(f);
	put_anim(f, "walk.md5anim", 6);
	assert_int_equal(cache_reload(f->cache, "walk.md5anim"), 0);
	assert_int_equal(wait_event(f, EV_RELOADED, "walk.md5anim")->generation, 2);
	settle(f);
	assert_int_equal(live_frames(f, "walk.md5anim"), 6);
	/* Many in a row coalesce, and none makes a new generation. */
	clear_events(f);
	for (int i = 0; i < 50; i++)
		assert_int_equal(cache_reload(f->cache, "walk.md5anim"), 0);
	settle(f);
	assert_int_equal(count_events(f, EV_RELOADED, NULL), 0);
	assert_true(count_events(f, EV_UNCHANGED, "walk.md5anim") >= 1);
	assert_true(count_events(f, EV_UNCHANGED, "walk.md5anim") <= 2);
	/* A broken save, then the live bytes put back: the error is over. */
	clear_events(f);
	put(f, "walk.md5anim", broken_text);
	wait_event(f, EV_ERROR, "walk.md5anim");
	put_anim(f, "walk.md5anim", 6);
	assert_int_equal(cache_reload(f->cache, "walk.md5anim"), 0);
	settle(f);
	{
		struct cache_info info;

		assert_int_equal(cache_get(f->cache, "walk.md5anim", &info), 0);
		assert_null(info.error);
		assert_int_equal(info.generation, 2);
	}
}

/* Reloading one asset leaves the others exactly as they were. */
static void test_other_assets_untouched(void **state)
{
	struct fx *f = *state;
	struct cache_info run_before, run_after, info;

	put_anim(f, "walk.md5anim", 4);
	put_anim(f, "run.md5anim", 2);
	put(f, "body.md5mesh", mesh_text);
	fx_start(f);
	live(f, "run.md5anim", &run_before);
	clear_events(f);

	put_anim(f, "walk.md5anim", 5);
	wait_event(f, EV_RELOADED, "walk.md5anim");
	put(f, "walk.md5anim", broken_text);
	wait_event(f, EV_ERROR, "walk.md5anim");
	settle(f);
	assert_int_equal(count_events(f, EV_RELOADED, "run.md5anim"), 0);
	assert_int_equal(count_events(f, EV_RELOADED, "body.md5mesh"), 0);
	live(f, "run.md5anim", &run_after);
	assert_ptr_equal(run_after.asset, run_before.asset);
	assert_int_equal(run_after.generation, 1);
	assert_int_equal(run_after.loaded_at_ns, run_before.loaded_at_ns);
	assert_int_equal(cache_get(f->cache, "body.md5mesh", &info), 0);
	assert_int_equal(info.generation, 1);
}

static void test_ignored_names_until_renamed(void **state)
{
	struct fx *f = *state;
	static const char *const temps[] = {
		".walk2.md5anim.swp", "walk2.md5anim~", "#walk2.md5anim#", ".#walk2.md5anim",
		"walk2.md5anim.tmp", "4913",
	};
	char from[PATH_MAX], to[PATH_MAX];
	struct cache_info *list;
	size_t count;

	fx_start(f);
	for (size_t i = 0; i < sizeof temps / sizeof temps[0]; i++)
		put_anim(f, temps[i], 2);
	settle(f);
	assert_int_equal(f->nev, 0);
	assert_int_equal(cache_list(f->cache, &list, &count), 0);
	assert_int_equal(count, 0);

	fx_path(f, ".walk2.md5anim.swp", from);
	fx_path(f, "walk2.md5anim", to);
	assert_int_equal(rename(from, to), 0);
	assert_int_equal(wait_event(f, EV_LOADED, "walk2.md5anim")->generation, 1);
}

/* Directories created later are walked and watched; removed ones are
 * unwatched and their assets removed. */
static void test_new_and_removed_directories(void **state)
{
	struct fx *f = *state;
	struct cache_stats st;
	char p[PATH_MAX];

	fx_start(f);
	cache_stats(f->cache, &st);
	assert_int_equal(st.directories, 1);

	/* Created faster than the watcher can follow: only "new" is reported. */
	mkdirs(f, "new/a/b");
	put_anim(f, "new/a/b/x.md5anim", 2);
	put_anim(f, "new/top.md5anim", 1);
	assert_int_equal(wait_event(f, EV_LOADED, "new/a/b/x.md5anim")->generation, 1);
	wait_event(f, EV_LOADED, "new/top.md5anim");
	settle(f);
	cache_stats(f->cache, &st);
	assert_int_equal(st.directories, 4);

	/* The deepest one is watched: a change there is seen. */
	clear_events(f);
	put_anim(f, "new/a/b/x.md5anim", 3);
	assert_int_equal(wait_event(f, EV_RELOADED, "new/a/b/x.md5anim")->generation, 2);
	/* A file in a directory made after the walk. */
	mkdirs(f, "new/a/b/c");
	settle(f);
	put_anim(f, "new/a/b/c/y.md5anim", 1);
	wait_event(f, EV_LOADED, "new/a/b/c/y.md5anim");

	clear_events(f);
	fx_path(f, "new", p);
	rm_tree(p);
	wait_event(f, EV_REMOVED, "new/a/b/x.md5anim");
	wait_event(f, EV_REMOVED, "new/a/b/c/y.md5anim");
	wait_event(f, EV_REMOVED, "new/top.md5anim");
	settle(f);
	cache_stats(f->cache, &st);
	assert_int_equal(st.directories, 1);
	assert_int_equal(st.assets, 0);
}

/* A directory renamed: its assets move to their new names. */
static void test_directory_renamed(void **state)
{
	struct fx *f = *state;
	char from[PATH_MAX], to[PATH_MAX];
	struct cache_info info;
	struct cache_stats st;

	mkdirs(f, "chars/sub");
	put_anim(f, "chars/walk.md5anim", 4);
	put_anim(f, "chars/sub/run.md5anim", 2);
	fx_start(f);
	clear_events(f);

	fx_path(f, "chars", from);
	fx_path(f, "people", to);
	assert_int_equal(rename(from, to), 0);
	wait_event(f, EV_REMOVED, "chars/walk.md5anim");
	wait_event(f, EV_REMOVED, "chars/sub/run.md5anim");
	wait_event(f, EV_LOADED, "people/walk.md5anim");
	wait_event(f, EV_LOADED, "people/sub/run.md5anim");
	settle(f);
	assert_int_equal(cache_get(f->cache, "chars/walk.md5anim", &info), -ENOENT);
	cache_stats(f->cache, &st);
	assert_int_equal(st.directories, 3);
	assert_int_equal(st.assets, 2);

	/* The moved directories are watched under their new names. */
	clear_events(f);
	put_anim(f, "people/sub/run.md5anim", 6);
	assert_int_equal(wait_event(f, EV_RELOADED, "people/sub/run.md5anim")->generation, 2);
}

/* Whether every event named a name that may be served. */
static void assert_events_servable(const struct fx *f)
{
	for (size_t i = 0; i < f->nev; i++)
		if (asset_path_unservable(f->events[i].name, strlen(f->events[i].name)) != NULL)
			fail_msg("an event about \"%s\", a name that is not served",
				 f->events[i].name);
}

static size_t unservable(struct fx *f)
{
	struct cache_stats st;

	cache_stats(f->cache, &st);
	return st.unservable;
}

static void rename_in(const struct fx *f, const char *from, const char *to)
{
	char a[PATH_MAX], b[PATH_MAX];

	fx_path(f, from, a);
	fx_path(f, to, b);
	assert_int_equal(rename(a, b), 0);
}

/* Names that are not UTF-8 or hold control characters are never served:
 * not loaded, listed nor reported, each said once in the log (escaped,
 * with what to do), counted; a rename to a good name serves the file, a
 * rename to a bad one removes it. */
static void test_unservable_names(void **state)
{
	static const char *const bad[] = {
		"bad\xff.md5anim", "nl\nname.md5anim", "esc\x1b[2J.md5anim", "c1\xc2\x9b.md5anim",
		"del\x7f.md5anim", "overlong\xc0\xaf.md5anim", "surrogate\xed\xa0\x80.md5anim",
		"big\xf4\x90\x80\x80.md5anim",
	};
	struct fx *f = *state;
	struct cache_info *list, info;
	size_t count;

	put_anim(f, "ok.md5anim", 1);
	put_anim(f, "caf\xc3\xa9.md5anim", 1);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		put_anim(f, bad[i], 1);
	mkdirs(f, "dir\xfe/sub");
	put_anim(f, "dir\xfe/x.md5anim", 1);
	put_anim(f, "dir\xfe/sub/y.md5anim", 1);
	put(f, "notes\xff.txt", "not an asset: not a word about it\n");
	put_anim(f, ".hidden\xff.md5anim", 1);
	fx_start(f);

	assert_int_equal(f->summary.files, 2);
	assert_int_equal(f->summary.directories, 1);
	assert_int_equal(cache_list(f->cache, &list, &count), 0);
	assert_int_equal(count, 2);
	assert_string_equal(list[0].name, "caf\xc3\xa9.md5anim");
	assert_string_equal(list[1].name, "ok.md5anim");
	free(list);
	assert_int_equal(cache_get(f->cache, "bad\xff.md5anim", &info), -ENOENT);
	assert_events_servable(f);
	assert_int_equal(unservable(f), 9);
	assert_int_equal(count_logs(f, ": not served; rename the file"), 8);
	assert_int_equal(count_logs(f, "asset name \"bad\\xff.md5anim\" is not valid UTF-8: "
				       "not served; rename the file"), 1);
	assert_int_equal(count_logs(f, "asset name \"nl\\x0aname.md5anim\" holds a control "
				       "character: not served"), 1);
	assert_int_equal(count_logs(f, "asset name \"c1\\xc2\\x9b.md5anim\" holds a control "
				       "character"), 1);
	assert_int_equal(count_logs(f, "folder name \"dir\\xfe\" is not valid UTF-8: nothing in "
				       "it is served; rename the folder"), 1);
	assert_int_equal(count_logs(f, "notes"), 0);
	assert_int_equal(count_logs(f, "hidden"), 0);
	for (size_t i = 0; i < f->nlog; i++)
		for (const char *p = f->logs[i]; *p != '\0'; p++)
			if (*p < 0x20 || *p > 0x7e)
				fail_msg("log line %zu has byte 0x%02x", i, (unsigned char)*p);

	/* Rescans say nothing new. */
	assert_int_equal(cache_rescan(f->cache), 0);
	settle(f);
	assert_int_equal(f->nlog, 9);

	/* Renamed to a good name: served.  To a bad one: removed. */
	clear_events(f);
	rename_in(f, "bad\xff.md5anim", "fixed.md5anim");
	assert_int_equal(wait_event(f, EV_LOADED, "fixed.md5anim")->generation, 1);
	rename_in(f, "ok.md5anim", "ok\x01.md5anim");
	wait_event(f, EV_REMOVED, "ok.md5anim");
	put_anim(f, "new\xff.md5anim", 1);
	rename_in(f, "dir\xfe", "dir");
	wait_event(f, EV_LOADED, "dir/x.md5anim");
	wait_event(f, EV_LOADED, "dir/sub/y.md5anim");
	settle(f);
	assert_events_servable(f);
	assert_int_equal(unservable(f), 9);     /* -bad, -dir, +ok, +new */
	assert_int_equal(count_logs(f, "\"ok\\x01.md5anim\" holds a control character"), 1);
	assert_int_equal(count_logs(f, "\"new\\xff.md5anim\" is not valid UTF-8"), 1);

	/* The folder under a bad name again: everything in it goes. */
	clear_events(f);
	rename_in(f, "dir", "dir\x01");
	wait_event(f, EV_REMOVED, "dir/x.md5anim");
	wait_event(f, EV_REMOVED, "dir/sub/y.md5anim");
	settle(f);
	assert_events_servable(f);
	assert_int_equal(unservable(f), 10);
	assert_int_equal(count_logs(f, "folder name \"dir\\x01\" holds a control character"), 1);
	/* A change to a file under a bad name is no event. */
	put_anim(f, "del\x7f.md5anim", 3);
	put_anim(f, "dir\x01/x.md5anim", 3);
	settle(f);
	assert_int_equal(f->nev, 2);
	assert_int_equal(cache_list(f->cache, &list, &count), 0);
	assert_int_equal(count, 2);             /* café, fixed */
	free(list);
}

/* A tree deeper than the walk goes: the folder it stops at is said once,
 * not at every rescan (which would push every other warning out of the
 * log's recent lines), and said again when it comes back after going. */
static void test_too_deep_said_once(void **state)
{
	struct fx *f = *state;
	char rel[PATH_MAX] = "d", p[PATH_MAX], deepest[PATH_MAX];

	for (int i = 1; i < 34; i++)
		strcat(rel, "/d");
	mkdirs(f, rel);
	fx_start(f);
	assert_int_equal(count_logs(f, "too deep, not watched"), 1);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(cache_rescan(f->cache), 0);
		settle(f);
	}
	assert_int_equal(count_logs(f, "too deep, not watched"), 1);

	/* Gone (the 33rd level), then back: said again, once. */
	memcpy(deepest, rel, 33 * 2 - 1);
	deepest[33 * 2 - 1] = '\0';
	fx_path(f, deepest, p);
	rm_tree(p);
	assert_int_equal(cache_rescan(f->cache), 0);
	settle(f);
	mkdirs(f, deepest);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(cache_rescan(f->cache), 0);
		settle(f);
	}
	assert_int_equal(count_logs(f, "too deep, not watched"), 2);
}

/* A folder the daemon may not read is said once, not at every rescan, and
 * again once it was readable for a while.  (A process that reads any
 * folder, root with CAP_DAC_OVERRIDE, cannot see the case: skipped.) */
static void test_unreadable_said_once(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX];
	DIR *probe;

	mkdirs(f, "locked");
	put_anim(f, "locked/a.md5anim", 1);
	fx_path(f, "locked", p);
	assert_int_equal(chmod(p, 0), 0);
	probe = opendir(p);
	if (probe != NULL) {
		closedir(probe);
		assert_int_equal(chmod(p, 0755), 0);
		skip();
	}
	fx_start(f);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(cache_rescan(f->cache), 0);
		settle(f);
	}
	assert_int_equal(count_logs(f, "cannot read directory"), 1);
	assert_int_equal(chmod(p, 0755), 0);
	assert_int_equal(cache_rescan(f->cache), 0);
	settle(f);
	assert_int_equal(chmod(p, 0), 0);
	assert_int_equal(cache_rescan(f->cache), 0);
	settle(f);
	assert_int_equal(count_logs(f, "cannot read directory"), 2);
	assert_int_equal(chmod(p, 0755), 0);
}

/* A folder replaced under its name, as a deploy or `git checkout` does it:
 * the new folder is watched (edits right after the swap are seen, with no
 * rescan), the old one is served and watched under its new name only. */
static void test_directory_replaced(void **state)
{
	struct fx *f = *state;
	char from[PATH_MAX], to[PATH_MAX];
	struct cache_stats st;

	mkdirs(f, "sub/deeper");
	put_anim(f, "sub/a.md5anim", 1);
	put_anim(f, "sub/deeper/d.md5anim", 1);
	mkdirs(f, "new/deeper");
	put_anim(f, "new/a.md5anim", 2);
	put_anim(f, "new/b.md5anim", 2);
	put_anim(f, "new/deeper/d.md5anim", 2);
	fx_start(f);
	clear_events(f);

	/* mv sub sub.old && mv new sub, and an edit at once. */
	fx_path(f, "sub", from);
	fx_path(f, "sub.old", to);
	assert_int_equal(rename(from, to), 0);
	fx_path(f, "new", from);
	fx_path(f, "sub", to);
	assert_int_equal(rename(from, to), 0);
	put_anim(f, "sub/a.md5anim", 3);
	wait_event(f, EV_LOADED, "sub.old/a.md5anim");
	wait_event(f, EV_LOADED, "sub.old/deeper/d.md5anim");
	wait_event(f, EV_LOADED, "sub/b.md5anim");
	wait_event(f, EV_REMOVED, "new/a.md5anim");
	wait_event(f, EV_REMOVED, "new/b.md5anim");
	settle(f);
	assert_int_equal(live_frames(f, "sub/a.md5anim"), 3);
	assert_int_equal(live_frames(f, "sub/deeper/d.md5anim"), 2);
	assert_int_equal(live_frames(f, "sub.old/a.md5anim"), 1);
	cache_stats(f->cache, &st);
	assert_int_equal(st.directories, 5);

	/* Each folder reports under its own name, and only there. */
	clear_events(f);
	put_anim(f, "sub/a.md5anim", 4);
	put_anim(f, "sub/deeper/d.md5anim", 4);
	assert_int_equal(wait_event(f, EV_RELOADED, "sub/a.md5anim")->generation, 3);
	wait_event(f, EV_RELOADED, "sub/deeper/d.md5anim");
	settle(f);
	clear_events(f);
	put_anim(f, "sub.old/a.md5anim", 5);
	put_anim(f, "sub.old/deeper/d.md5anim", 5);
	wait_event(f, EV_RELOADED, "sub.old/a.md5anim");
	wait_event(f, EV_RELOADED, "sub.old/deeper/d.md5anim");
	settle(f);
	assert_int_equal(count_events(f, EV_RELOADED, "sub/a.md5anim"), 0);
	assert_int_equal(live_frames(f, "sub/a.md5anim"), 4);
	assert_int_equal(live_frames(f, "sub.old/a.md5anim"), 5);

	/* rm -r sub && mkdir sub, and a file in it at once. */
	clear_events(f);
	fx_path(f, "sub", from);
	rm_tree(from);
	assert_int_equal(mkdir(from, 0755), 0);
	put_anim(f, "sub/c.md5anim", 1);
	wait_event(f, EV_REMOVED, "sub/a.md5anim");
	wait_event(f, EV_REMOVED, "sub/deeper/d.md5anim");
	wait_event(f, EV_LOADED, "sub/c.md5anim");
	settle(f);
	clear_events(f);
	put_anim(f, "sub/c.md5anim", 2);
	assert_int_equal(wait_event(f, EV_RELOADED, "sub/c.md5anim")->generation, 2);
	settle(f);
	cache_stats(f->cache, &st);
	assert_int_equal(st.directories, 4);    /* root, sub, sub.old, sub.old/deeper */
}

/* Changes the watcher cannot see: writes through a hard link that lives
 * outside the asset root (inotify reports them on the outside directory
 * only).  A rescan finds them by size, mtime and inode. */
static void write_through_outside_link(struct fx *f, const char *rel, unsigned frames)
{
	char p[PATH_MAX], link_path[PATH_MAX], outside[PATH_MAX];
	char *t = anim_text(frames);

	fx_path(f, rel, p);
	join(outside, f->base, "outside");
	assert_true(mkdir(outside, 0755) == 0 || errno == EEXIST);
	join(link_path, outside, "link");
	unlink(link_path);
	assert_int_equal(link(p, link_path), 0);
	write_bytes(link_path, t, strlen(t), O_TRUNC);
	free(t);
}

/* Queues more inotify events than the kernel keeps; false (after a note)
 * if the limit is too high to reach quickly. */
static bool fill_inotify_queue(struct fx *f)
{
	char a[PATH_MAX], b[PATH_MAX];
	unsigned long limit = 0;
	FILE *lim = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
	int fa, fb;

	if (lim != NULL) {
		if (fscanf(lim, "%lu", &limit) != 1)
			limit = 0;
		fclose(lim);
	}
	if (limit == 0 || limit > 1000000) {
		print_message("skipping the overflow case: max_queued_events is %lu\n", limit);
		return false;
	}
	fx_path(f, "noise-a.log", a);
	fx_path(f, "noise-b.log", b);
	fa = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fb = open(b, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fa >= 0 && fb >= 0);
	for (unsigned long i = 0; i < limit / 2 + 64; i++) {
		assert_int_equal(pwrite(fa, "x", 1, 0), 1);
		assert_int_equal(pwrite(fb, "x", 1, 0), 1);
	}
	close(fa);
	close(fb);
	return true;
}

static void test_rescan_finds_missed_changes(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX];

	put_anim(f, "walk.md5anim", 4);
	put_anim(f, "gone.md5anim", 1);
	fx_start(f);
	clear_events(f);

	write_through_outside_link(f, "walk.md5anim", 7);
	settle(f);
	assert_int_equal(f->nev, 0);    /* the watcher saw nothing */
	assert_int_equal(live_frames(f, "walk.md5anim"), 4);

	assert_int_equal(cache_rescan(f->cache), 0);
	assert_int_equal(wait_event(f, EV_RELOADED, "walk.md5anim")->generation, 2);
	assert_int_equal(live_frames(f, "walk.md5anim"), 7);

	/* A rescan with nothing changed does nothing. */
	settle(f);
	clear_events(f);
	assert_int_equal(cache_rescan(f->cache), 0);
	settle(f);
	assert_int_equal(f->nev, 0);

	/* The real way events go missing: the inotify queue overflows.  Fill
	 * the queue with changes to two other files (alternating, so the
	 * kernel cannot merge them), then remove, add and change assets: those
	 * events are lost, but the overflow notice makes the cache walk the
	 * tree by itself (no cache_rescan here, no periodic rescan). */
	if (!fill_inotify_queue(f))
		return;
	fx_path(f, "gone.md5anim", p);
	assert_int_equal(unlink(p), 0);
	put_anim(f, "added.md5anim", 2);
	put_anim(f, "walk.md5anim", 3);
	wait_event(f, EV_REMOVED, "gone.md5anim");
	assert_int_equal(wait_event(f, EV_LOADED, "added.md5anim")->generation, 1);
	assert_int_equal(wait_event(f, EV_RELOADED, "walk.md5anim")->generation, 3);
	assert_int_equal(live_frames(f, "walk.md5anim"), 3);
}

static void test_periodic_rescan(void **state)
{
	struct fx *f = *state;

	f->opts.rescan_interval_s = 1;
	put_anim(f, "walk.md5anim", 4);
	fx_start(f);
	clear_events(f);
	write_through_outside_link(f, "walk.md5anim", 3);
	assert_int_equal(wait_event(f, EV_RELOADED, "walk.md5anim")->generation, 2);
	assert_int_equal(live_frames(f, "walk.md5anim"), 3);
}

static void test_size_limit(void **state)
{
	struct fx *f = *state;
	struct cache_info info;

	f->opts.max_asset_bytes = 64;
	put_anim(f, "walk.md5anim", 4);
	fx_start(f);
	assert_int_equal(f->summary.failed, 1);
	assert_int_equal(cache_get(f->cache, "walk.md5anim", &info), 0);
	assert_null(info.asset);
	assert_non_null(strstr(info.error, "limit"));
	assert_memory_equal(info.error, "walk.md5anim: error:", 20);
}

static void test_symlinks(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX], target[PATH_MAX];
	struct cache_info info;

	join(target, f->base, "outside");
	assert_int_equal(mkdir(target, 0755), 0);
	join(target, f->base, "outside/secret.md5anim");
	write_bytes(target, broken_text, strlen(broken_text), O_TRUNC);
	put_anim(f, "walk.md5anim", 4);
	fx_path(f, "escape.md5anim", p);
	assert_int_equal(symlink("../outside/secret.md5anim", p), 0);
	fx_path(f, "abs_escape.md5anim", p);
	assert_int_equal(symlink(target, p), 0);
	fx_path(f, "alias.md5anim", p);
	assert_int_equal(symlink("walk.md5anim", p), 0);
	fx_path(f, "abs_alias.md5anim", p);
	join(target, f->root, "walk.md5anim");
	assert_int_equal(symlink(target, p), 0);
	fx_path(f, "outdir", p);
	join(target, f->base, "outside");
	assert_int_equal(symlink(target, p), 0);   /* never followed */

	fx_start(f);
	assert_int_equal(f->summary.loaded, 3);
	assert_int_equal(f->summary.failed, 2);
	assert_int_equal(f->summary.directories, 1);
	assert_int_equal(live_frames(f, "alias.md5anim"), 4);
	assert_int_equal(live_frames(f, "abs_alias.md5anim"), 4);
	assert_int_equal(cache_get(f->cache, "escape.md5anim", &info), 0);
	assert_null(info.asset);
	assert_string_equal(info.error, "escape.md5anim: error: resolves outside the asset root");
	assert_int_equal(cache_get(f->cache, "abs_escape.md5anim", &info), 0);
	assert_null(info.asset);
	assert_int_equal(cache_get(f->cache, "outdir/secret.md5anim", &info), -ENOENT);
}

static int resolve(struct fx *f, const char *name, size_t len, char *out)
{
	char err[256] = "";
	int rc = cache_resolve(f->cache, name, len, out, PATH_MAX, err, sizeof err);

	if (rc < 0)
		assert_true(err[0] != '\0');
	return rc;
}

static void test_resolve_stays_inside_root(void **state)
{
	struct fx *f = *state;
	char out[PATH_MAX], want[PATH_MAX], p[PATH_MAX];

	mkdirs(f, "chars");
	put_anim(f, "chars/walk.md5anim", 4);
	put(f, "body.md5mesh", mesh_text);
	join(p, f->base, "outside");
	assert_int_equal(mkdir(p, 0755), 0);
	fx_path(f, "up", p);
	assert_int_equal(symlink("..", p), 0);
	fx_path(f, "link.md5mesh", p);
	assert_int_equal(symlink("chars/../body.md5mesh", p), 0);
	fx_start(f);

	assert_int_equal(resolve(f, "chars/walk.md5anim", 18, out), 0);
	join(want, cache_root(f->cache), "chars/walk.md5anim");
	assert_string_equal(out, want);
	assert_int_equal(resolve(f, "link.md5mesh", 12, out), 0);
	join(want, cache_root(f->cache), "body.md5mesh");
	assert_string_equal(out, want);

	assert_int_equal(resolve(f, "/etc/passwd", 11, out), -EACCES);
	assert_int_equal(resolve(f, "../root/body.md5mesh", 20, out), -EACCES);
	assert_int_equal(resolve(f, "chars/../../x", 13, out), -EACCES);
	assert_int_equal(resolve(f, "up/outside", 10, out), -EACCES);
	assert_int_equal(resolve(f, "up", 2, out), -EACCES);
	assert_int_equal(resolve(f, "", 0, out), -EINVAL);
	assert_int_equal(resolve(f, "chars//walk.md5anim", 19, out), -EINVAL);
	assert_int_equal(resolve(f, "chars/./walk.md5anim", 20, out), -EINVAL);
	assert_int_equal(resolve(f, "chars/", 6, out), -EINVAL);
	assert_int_equal(resolve(f, "body.md5mesh\0.txt", 17, out), -EINVAL);
	assert_int_equal(resolve(f, "missing.md5mesh", 15, out), -ENOENT);
	/* len is honoured: the bytes after it are not part of the name. */
	assert_int_equal(resolve(f, "body.md5meshXYZ", 12, out), 0);
}

static void test_asset_path_rules(void **state)
{
	char err[128], out[64];
	char longname[ASSET_PATH_MAX + 2];

	(void)state;
	assert_true(asset_path_is_asset("a/b/walk.md5anim"));
	assert_true(asset_path_is_asset("WALK.MD5MESH"));
	assert_false(asset_path_is_asset("a/.walk.md5anim"));
	assert_false(asset_path_is_asset("walk.md5anim~"));
	assert_false(asset_path_is_asset("#walk.md5anim#"));
	assert_false(asset_path_is_asset("walk.md5anim.swp"));
	assert_false(asset_path_is_asset("a/b"));
	assert_true(asset_path_within("a/b/c", "a/b"));
	assert_true(asset_path_within("a/b", "a/b"));
	assert_true(asset_path_within("x", ""));
	assert_false(asset_path_within("a/bc", "a/b"));
	assert_int_equal(asset_path_join(out, sizeof out, "", "x"), 0);
	assert_string_equal(out, "x");
	assert_int_equal(asset_path_join(out, sizeof out, "a", "x"), 0);
	assert_string_equal(out, "a/x");
	assert_int_equal(asset_path_parent("a/b/c", out, sizeof out), 0);
	assert_string_equal(out, "a/b");
	assert_int_equal(asset_path_parent("c", out, sizeof out), 0);
	assert_string_equal(out, "");
	memset(longname, 'a', sizeof longname);
	assert_int_equal(asset_path_check(longname, ASSET_PATH_MAX, err, sizeof err), 0);
	assert_int_equal(asset_path_check(longname, ASSET_PATH_MAX + 1, err, sizeof err),
			 -ENAMETOOLONG);
	assert_int_equal(asset_path_check("..", 2, err, sizeof err), -EACCES);
	assert_int_equal(asset_path_check("a/..", 4, err, sizeof err), -EACCES);
	assert_int_equal(asset_path_check("..a", 3, err, sizeof err), 0);
	assert_int_equal(asset_path_check(".", 1, err, sizeof err), -EINVAL);

	/* The naming rule: text without control characters. */
#define UNSERVABLE(lit) asset_path_unservable(lit, sizeof lit - 1)
	assert_null(UNSERVABLE("a/walk.md5anim"));
	assert_null(UNSERVABLE("caf\xc3\xa9/\xe2\x82\xac\xf0\x9f\x98\x80 ~!.x"));
	assert_null(UNSERVABLE("\xc2\xa0\xef\xbf\xbf\xf4\x8f\xbf\xbf"));
	assert_string_equal(UNSERVABLE("bad\xff.x"), "is not valid UTF-8");
	assert_string_equal(UNSERVABLE("\xc0\xaf"), "is not valid UTF-8");
	assert_string_equal(UNSERVABLE("\xe0\x80\xaf"), "is not valid UTF-8");
	assert_string_equal(UNSERVABLE("\xed\xa0\x80"), "is not valid UTF-8");
	assert_string_equal(UNSERVABLE("\xf4\x90\x80\x80"), "is not valid UTF-8");
	assert_string_equal(UNSERVABLE("cut\xc3"), "is not valid UTF-8");
	assert_string_equal(UNSERVABLE("\x01\xff"), "is not valid UTF-8");
	assert_string_equal(UNSERVABLE("a\nb"), "holds a control character");
	assert_string_equal(UNSERVABLE("\x1b[2J"), "holds a control character");
	assert_string_equal(UNSERVABLE("del\x7f"), "holds a control character");
	assert_string_equal(UNSERVABLE("c1\xc2\x9b"), "holds a control character");
	assert_string_equal(UNSERVABLE("c1\xc2\x80"), "holds a control character");
	assert_string_equal(UNSERVABLE("a\0b"), "holds a control character");
#undef UNSERVABLE
}

/* Closing while the start-up walk and loads are still running. */
static void test_close_while_busy(void **state)
{
	struct fx *f = *state;
	char name[64];

	for (unsigned i = 0; i < 40; i++) {
		snprintf(name, sizeof name, "a%02u.md5anim", i);
		put_anim(f, name, 50);
	}
	fx_new_cache(f);
	assert_int_equal(cache_start(f->cache, on_ready), 0);
	uv_run(&f->loop, UV_RUN_NOWAIT);
	fx_close_cache(f);
	/* teardown asserts uv_loop_close() == 0 */
}

static void test_close_without_start(void **state)
{
	struct fx *f = *state;

	fx_new_cache(f);
	fx_close_cache(f);
	cache_close(NULL, on_closed);
}

/* Issue 8, D2: a FIFO named like an asset (present at start-up or made
 * later) and a symlink to a character device are refused at once as not
 * regular files; the start-up summary arrives, nothing stays loading, and
 * closing completes with nobody writing the FIFO. */
static void test_fifo_and_devices_refused(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX];
	const struct ev *e;
	struct cache_stats st;

	put_anim(f, "good.md5anim", 4);
	fx_path(f, "early.md5anim", p);
	assert_int_equal(mkfifo(p, 0644), 0);
	fx_path(f, "zero.md5anim", p);
	assert_int_equal(symlink("/dev/zero", p), 0);
	fx_start(f);
	assert_true(f->ready);
	assert_int_equal(f->summary.loaded, 1);
	fx_path(f, "late.md5anim", p);
	assert_int_equal(mkfifo(p, 0644), 0);
	e = wait_event(f, EV_ERROR, "late.md5anim");
	assert_non_null(strstr(e->message, "is a FIFO, not a regular file"));
	assert_memory_equal(e->message, "late.md5anim: error:", 20);
	settle(f);
	cache_stats(f->cache, &st);
	assert_int_equal(st.loads_running, 0);
	assert_int_equal(st.loads_waiting, 0);
	/* A rescan sees the same names again and loads nothing new. */
	clear_events(f);
	assert_int_equal(cache_rescan(f->cache), 0);
	settle(f);
	assert_int_equal(count_events(f, EV_LOADED, NULL), 0);
	/* teardown closes the cache: it must not wait for the FIFO */
}

/* Issue 8, D5: the root deleted and made again is watched and served
 * again: its old assets are removed, what the new directory holds loads. */
static void test_root_deleted_and_recreated(void **state)
{
	struct fx *f = *state;

	put_anim(f, "a.md5anim", 4);
	put_anim(f, "b.md5anim", 5);
	fx_start(f);
	clear_events(f);
	rm_tree(f->root);
	wait_event(f, EV_REMOVED, "a.md5anim");
	wait_event(f, EV_REMOVED, "b.md5anim");
	assert_int_equal(mkdir(f->root, 0755), 0);
	put_anim(f, "a.md5anim", 7);
	wait_event(f, EV_LOADED, "a.md5anim");
	settle(f);
	assert_int_equal(live_frames(f, "a.md5anim"), 7);
	/* And it is watched: a save is seen. */
	clear_events(f);
	put_anim(f, "a.md5anim", 9);
	wait_event(f, EV_RELOADED, "a.md5anim");
	assert_int_equal(live_frames(f, "a.md5anim"), 9);
}

/* The root moved away and another directory put in its place (a deploy's
 * swap): the new one is served, the old one's files are not. */
static void test_root_swapped(void **state)
{
	struct fx *f = *state;
	char old[PATH_MAX];

	put_anim(f, "a.md5anim", 4);
	put_anim(f, "gone.md5anim", 4);
	fx_start(f);
	clear_events(f);
	join(old, f->base, "root.old");
	assert_int_equal(rename(f->root, old), 0);
	assert_int_equal(mkdir(f->root, 0755), 0);
	put_anim(f, "a.md5anim", 6);
	put_anim(f, "new.md5anim", 3);
	wait_event(f, EV_LOADED, "new.md5anim");
	wait_event(f, EV_REMOVED, "gone.md5anim");
	settle(f);
	assert_int_equal(live_frames(f, "a.md5anim"), 6);
	/* Editing the old directory changes nothing served. */
	clear_events(f);
	{
		char p[PATH_MAX];
		char *t = anim_text(12);

		join(p, old, "a.md5anim");
		write_bytes(p, t, strlen(t), O_TRUNC);
		free(t);
	}
	put_anim(f, "new.md5anim", 8);
	wait_event(f, EV_RELOADED, "new.md5anim");
	settle(f);
	assert_int_equal(live_frames(f, "a.md5anim"), 6);
}

/* A swap the watcher cannot see (the events already taken, the old
 * directory renamed back and forth): a rescan compares the root's inode. */
static void test_rescan_notices_replaced_root(void **state)
{
	struct fx *f = *state;
	char old[PATH_MAX], fresh[PATH_MAX], p[PATH_MAX];
	char *t = anim_text(10);

	put_anim(f, "a.md5anim", 4);
	fx_start(f);
	join(fresh, f->base, "fresh");
	assert_int_equal(mkdir(fresh, 0755), 0);
	join(p, fresh, "a.md5anim");
	write_bytes(p, t, strlen(t), O_TRUNC);
	free(t);
	join(old, f->base, "root.old");
	/* Both renames before the loop runs again: the root watch reports its
	 * own move, the fresh directory is not watched at all. */
	assert_int_equal(rename(f->root, old), 0);
	assert_int_equal(rename(fresh, f->root), 0);
	clear_events(f);
	assert_int_equal(cache_rescan(f->cache), 0);
	wait_event(f, EV_RELOADED, "a.md5anim");
	settle(f);
	assert_int_equal(live_frames(f, "a.md5anim"), 10);
}

static bool pred_busy_or_done(struct fx *f, const void *arg)
{
	struct cache_stats s;

	cache_stats(f->cache, &s);
	return s.loads_running > 0 || f->nev > *(const size_t *)arg;
}

/* Events arrive while loads are running: never two loads of one file, and
 * the final content always wins. */
static void test_writes_during_load(void **state)
{
	struct fx *f = *state;

	put_anim(f, "walk.md5anim", 4);
	fx_start(f);
	clear_events(f);
	for (unsigned round = 0; round < 20; round++) {
		size_t before = f->nev;

		put_anim(f, "walk.md5anim", 2000 + round);
		/* Let the quiet period pass and the load begin (or even end),
		 * then change the file again, so events land while it runs. */
		assert_true(run_until(f, pred_busy_or_done, &before));
	}
	put_anim(f, "walk.md5anim", 11);
	settle(f);
	assert_int_equal(live_frames(f, "walk.md5anim"), 11);
	/* Versions go live in order (a load may also have caught a file
	 * half-written and reported an error: that is allowed). */
	for (size_t i = 0, last = 1; i < f->nev; i++) {
		if (f->events[i].type != EV_RELOADED)
			continue;
		assert_int_equal(f->events[i].generation, last + 1);
		last = f->events[i].generation;
	}
}

static void test_bad_root(void **state)
{
	struct fx *f = *state;
	struct cache_options o = f->opts;
	struct cache *c = NULL;
	char err[256] = "", p[PATH_MAX];

	o.root = "/nonexistent/animd/root";
	assert_int_equal(cache_new(&f->loop, &o, &c, err, sizeof err), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/animd/root"));
	put_anim(f, "file.md5anim", 1);
	fx_path(f, "file.md5anim", p);
	o.root = p;
	assert_int_equal(cache_new(&f->loop, &o, &c, err, sizeof err), -ENOTDIR);
	o.root = NULL;
	assert_int_equal(cache_new(&f->loop, &o, &c, err, sizeof err), -EINVAL);
}

/* The walk on its own: what it lists, what it skips, its limits. */
static void test_scan_walk(void **state)
{
	struct fx *f = *state;
	const char *roots[] = { "", "gone", "file.md5anim" };
	struct scan_limits lim = { .max_depth = 2 };
	struct scan_result r;
	int fd;

	mkdirs(f, "a/b/c");
	mkdirs(f, ".hidden");
	put_anim(f, "file.md5anim", 1);
	put_anim(f, "a/one.md5anim", 1);
	put_anim(f, "a/b/two.md5mesh", 1);
	put_anim(f, "a/b/c/deep.md5anim", 1);
	put_anim(f, ".hidden/x.md5anim", 1);
	put(f, "a/readme.txt", "x");
	fd = open(f->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);

	assert_int_equal(scan_run(fd, f->root, roots, 3, &lim, &r), 0);
	assert_int_equal(r.root_status[0], 0);
	assert_int_equal(r.root_status[1], -ENOENT);
	assert_int_equal(r.root_status[2], -ENOTDIR);
	assert_int_equal(r.file_count, 3);
	assert_string_equal(r.files[0].name, "a/b/two.md5mesh");
	assert_string_equal(r.files[1].name, "a/one.md5anim");
	assert_string_equal(r.files[2].name, "file.md5anim");
	assert_int_equal(r.dir_count, 3);
	assert_int_equal(scan_find_dir(&r, "a/b")->status, 0);
	assert_int_equal(scan_find_dir(&r, "a/b/c")->status, -ELOOP); /* too deep */
	assert_null(scan_find_dir(&r, ".hidden"));
	assert_non_null(scan_find_file(&r, "a/one.md5anim"));
	assert_null(scan_find_file(&r, "a/readme.txt"));
	assert_true(r.files[2].st.size > 0);
	scan_result_fini(&r);

	lim.max_depth = 0;
	lim.max_entries = 2;
	assert_int_equal(scan_run(fd, f->root, roots, 1, &lim, &r), -E2BIG);
	assert_int_equal(r.status, -E2BIG);
	scan_result_fini(&r);
	scan_result_fini(NULL);
	close(fd);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_content_is_valid),
		cmocka_unit_test(test_asset_path_rules),
		T(test_startup_walk),
		T(test_empty_tree_is_ready),
		T(test_write_in_place),
		T(test_temp_file_and_rename),
		T(test_visible_temp_name_renamed),
		T(test_delete_and_recreate),
		T(test_backup_rename_write_delete),
		T(test_slow_writer),
		T(test_broken_then_good),
		T(test_new_file_broken_then_good),
		T(test_delete_removes_after_quiet_period),
		T(test_burst_is_one_reload),
		T(test_unchanged_bytes_no_event),
		T(test_forced_reload),
		T(test_other_assets_untouched),
		T(test_ignored_names_until_renamed),
		T(test_new_and_removed_directories),
		T(test_directory_renamed),
		T(test_directory_replaced),
		T(test_too_deep_said_once),
		T(test_unreadable_said_once),
		T(test_unservable_names),
		T(test_rescan_finds_missed_changes),
		T(test_periodic_rescan),
		T(test_size_limit),
		T(test_symlinks),
		T(test_resolve_stays_inside_root),
		T(test_close_while_busy),
		T(test_close_without_start),
		T(test_writes_during_load),
		T(test_fifo_and_devices_refused),
		T(test_root_deleted_and_recreated),
		T(test_root_swapped),
		T(test_rescan_notices_replaced_root),
		T(test_bad_root),
		T(test_scan_walk),
	};

	return cmocka_run_group_tests_name("cache", tests, NULL, NULL);
}
