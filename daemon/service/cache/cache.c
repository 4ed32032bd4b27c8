#include "daemon/service/cache/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "daemon/service/base/log.h"
#include "daemon/service/base/strmap.h"
#include "daemon/service/base/strorder.h"
#include "daemon/service/cache/asset_path.h"
#include "daemon/service/cache/root_watch.h"
#include "daemon/service/cache/scan.h"
#include "daemon/service/cache/watcher.h"

/* More distinct directories than this waiting for a look collapse into one
 * walk of the whole tree: bounded memory however many events arrive. */
#define CACHE_MAX_SCAN_ROOTS 64
#define CACHE_ERR_MAX 512

enum cache_state {
	CACHE_IDLE,
	CACHE_ARMED,                    /* quiet-period timer running */
	CACHE_QUEUED,                   /* waiting for a free load slot */
	CACHE_LOADING,                  /* a job is on the thread pool */
};

struct cache_load;

/* Names of files, a list that grows. */
struct cache_names {
	char **v;
	size_t n;
};

struct cache_entry {
	struct strmap_node node;
	struct strorder_node order_node; /* in name order, while in the table */
	struct cache *cache;
	char *name;
	uv_timer_t timer;

	struct asset *asset;            /* live version, or NULL */
	uint64_t generation;
	char *error;                    /* last attempt's error, or NULL */
	uint64_t file_bytes;
	int64_t loaded_at_ns;
	uint64_t load_ns;

	/* The last attempt that reached the file: its identity and, if it read
	 * the bytes, their hash (to skip parsing identical content). */
	struct scan_stat seen;
	uint64_t hash;
	bool seen_valid, hash_valid;
	uint64_t live_hash;             /* of the live version's bytes (asset != NULL) */
	bool companions;                /* the last load read companion files: its
					   hash covers them, so the file's own bytes
					   alone cannot say it is unchanged */
	struct cache_names read;        /* the companion files the last load asked
					   for, found or not (a glTF's buffers): an
					   event on one of them reloads this entry */

	enum cache_state state;
	bool dirty;                     /* an event arrived while loading */
	bool force;                     /* parse even if unchanged, without delay */
	bool startup;                   /* counts toward the start-up summary */
	bool in_map;
	bool timer_closed;
	struct cache_load *job;
	struct cache_entry *q_prev, *q_next;
};

struct cache_load {
	uv_work_t work;
	struct cache_entry *entry;
	/* In: copied from the cache and entry before queueing; the worker reads
	 * nothing else. */
	const char *name;
	const char *root_real;
	int root_fd;
	size_t max_bytes;
	struct asset_options load;
	bool compare_hash;
	bool companions;                /* the entry's last load had companions */
	bool forced;                    /* assets.reload: compared with the live version */
	uint64_t prev_hash;
	/* Out. */
	bool parsed;                    /* the bytes went to the loader */
	struct cache_names read;        /* companions it asked for */
	int rc;
	bool unchanged;
	struct asset *asset;
	struct scan_stat st;
	bool st_valid, hash_valid;
	uint64_t hash;
	uint64_t elapsed_ns;
	char err[CACHE_ERR_MAX];
};

/* Something the walk found that the log is told once, not at every walk
 * (the same warning each rescan would push every other one out of the
 * log's recent lines): a name that is not served, a directory too deep
 * to watch, or one the daemon may not read.  Told again only once it has
 * gone away, or been fixed. */
enum cache_note_kind {
	CACHE_NOTE_UNSERVABLE,
	CACHE_NOTE_TOO_DEEP,
	CACHE_NOTE_UNREADABLE,
};

struct cache_note {
	struct strmap_node node;
	enum cache_note_kind kind;
	char name[];                    /* relative to the root, raw bytes */
};

struct cache {
	uv_loop_t *loop;
	struct cache_options opts;
	char *root_real;
	int root_fd;                    /* O_PATH of the root; -1 while it is gone */
	dev_t root_dev;                 /* the directory root_fd is */
	ino_t root_ino;
	unsigned root_gen;              /* changes when root_fd does */
	int scan_root_fd;               /* the walk in flight's own copy of root_fd */
	unsigned scan_root_gen;         /* root_gen when it started */
	uv_timer_t root_poll;           /* while the root is gone: is it back? */
	struct root_watch *root_watch;  /* the root's entry in its parent */
	struct strmap entries;
	struct strorder order;          /* the entries in the table, by name (listing) */
	struct strmap notes;            /* name -> struct cache_note */
	size_t unservable;              /* notes of that kind */
	struct watcher *watcher;
	uv_timer_t rescan_timer;
	uv_timer_t dircheck_timer;

	/* Directories waiting for a walk; scan_full: the whole tree. */
	char *scan_roots[CACHE_MAX_SCAN_ROOTS];
	size_t scan_root_count;
	bool scan_full;
	struct scan_req *scan;          /* the one walk in flight, or NULL */
	bool scan_is_startup;

	struct cache_entry *q_head, *q_tail;
	size_t queued, running;

	bool started, ready;
	cache_ready_cb ready_cb;
	uint64_t start_ns;
	size_t startup_pending;         /* start-up entries without an outcome */
	struct cache_summary summary;
	bool watch_limit_logged;

	/* Handles not yet closed plus work not yet completed; the cache is
	 * freed when closing and this reaches 0. */
	size_t holds;
	bool closing;
	void (*close_cb)(void *data);

	uint64_t scans, loads;
};

enum cache_scan_when {
	CACHE_SCAN_NOW,                 /* start the walk if none is running */
	CACHE_SCAN_SOON,                /* after the quiet period */
	CACHE_SCAN_LATER,               /* the caller kicks it */
};

static void cache_entry_timer_cb(uv_timer_t *t);
static void cache_pump(struct cache *c);
static void cache_scan_request(struct cache *c, const char *dir, enum cache_scan_when when);
static void cache_root_check(struct cache *c);

static void cache_log(struct cache *c, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void cache_log(struct cache *c, int level, const char *fmt, ...)
{
	char msg[CACHE_ERR_MAX + 128];
	va_list ap;

	if (c->opts.events.log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->opts.events.log(c, level, msg, c->opts.data);
}

static int64_t cache_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- lifetime -------------------------------------------------------- */

static void cache_note_drop(struct cache *c, struct cache_note *n)
{
	strmap_remove(&c->notes, &n->node);
	if (n->kind == CACHE_NOTE_UNSERVABLE)
		c->unservable--;
	free(n);
}

static void cache_notes_clear(struct cache *c)
{
	struct strmap_node *n, *next;

	for (n = strmap_next(&c->notes, NULL); n != NULL; n = next) {
		next = strmap_next(&c->notes, n);
		cache_note_drop(c, strmap_container_of(n, struct cache_note, node));
	}
}

static void cache_finish(struct cache *c)
{
	void (*cb)(void *) = c->close_cb;
	void *data = c->opts.data;

	for (size_t i = 0; i < c->scan_root_count; i++)
		free(c->scan_roots[i]);
	cache_notes_clear(c);
	strmap_fini(&c->notes);
	strmap_fini(&c->entries);
	strorder_fini(&c->order);
	if (c->root_fd >= 0)
		close(c->root_fd);
	free(c->root_real);
	free(c);
	if (cb != NULL)
		cb(data);
}

static void cache_release(struct cache *c)
{
	if (--c->holds == 0 && c->closing)
		cache_finish(c);
}

static void cache_handle_closed(uv_handle_t *h)
{
	cache_release(h->data);
}

static void cache_watcher_closed(void *data)
{
	cache_release(data);
}

/* ---- entries ----------------------------------------------------------- */

static bool cache_entry_visible(const struct cache_entry *e)
{
	return e->asset != NULL || e->error != NULL;
}

static void cache_names_clear(struct cache_names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* Adds a copy of name (nothing when out of memory: the entry then only
 * misses an event on that file; the periodic rescan still sees it). */
static void cache_names_add(struct cache_names *l, const char *name)
{
	char **grown = realloc(l->v, (l->n + 1) * sizeof *l->v);

	if (grown == NULL)
		return;
	l->v = grown;
	l->v[l->n] = strdup(name);
	if (l->v[l->n] != NULL)
		l->n++;
}

static bool cache_names_has(const struct cache_names *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], name) == 0)
			return true;
	return false;
}

static void cache_entry_free(struct cache_entry *e)
{
	cache_names_clear(&e->read);
	asset_unref(e->asset);
	free(e->error);
	free(e->name);
	free(e);
}

/* An entry goes when both its timer is closed and no job refers to it. */
static void cache_entry_timer_closed(uv_handle_t *h)
{
	struct cache_entry *e = h->data;
	struct cache *c = e->cache;

	e->timer_closed = true;
	if (e->job == NULL)
		cache_entry_free(e);
	cache_release(c);
}

static struct cache_entry *cache_entry_find(struct cache *c, const char *name)
{
	struct strmap_node *n = strmap_find(&c->entries, name);

	return n != NULL ? strmap_container_of(n, struct cache_entry, node) : NULL;
}

static struct cache_entry *cache_entry_new(struct cache *c, const char *name)
{
	struct cache_entry *e = calloc(1, sizeof *e);

	if (e == NULL)
		return NULL;
	e->name = strdup(name);
	if (e->name == NULL) {
		free(e);
		return NULL;
	}
	e->cache = c;
	uv_timer_init(c->loop, &e->timer);
	e->timer.data = e;
	c->holds++;
	strmap_insert(&c->entries, &e->node, e->name);
	strorder_add(&c->order, &e->order_node, e->name);
	e->in_map = true;
	return e;
}

static void cache_queue_remove(struct cache *c, struct cache_entry *e)
{
	if (e->state != CACHE_QUEUED)
		return;
	if (e->q_prev != NULL)
		e->q_prev->q_next = e->q_next;
	else
		c->q_head = e->q_next;
	if (e->q_next != NULL)
		e->q_next->q_prev = e->q_prev;
	else
		c->q_tail = e->q_prev;
	e->q_prev = e->q_next = NULL;
	e->state = CACHE_IDLE;
	c->queued--;
}

static void cache_queue_add(struct cache *c, struct cache_entry *e, bool front)
{
	if (e->state == CACHE_QUEUED && !front)
		return;
	cache_queue_remove(c, e);
	if (e->state == CACHE_ARMED)
		uv_timer_stop(&e->timer);
	if (front) {
		e->q_next = c->q_head;
		if (c->q_head != NULL)
			c->q_head->q_prev = e;
		else
			c->q_tail = e;
		c->q_head = e;
	} else {
		e->q_prev = c->q_tail;
		if (c->q_tail != NULL)
			c->q_tail->q_next = e;
		else
			c->q_head = e;
		c->q_tail = e;
	}
	e->state = CACHE_QUEUED;
	c->queued++;
}

/* Takes the entry out of the table (its name stays valid until the timer's
 * close callback, so it may still be reported). */
static void cache_entry_drop(struct cache *c, struct cache_entry *e)
{
	cache_queue_remove(c, e);
	if (e->in_map) {
		strmap_remove(&c->entries, &e->node);
		strorder_remove(&c->order, &e->order_node);
		e->in_map = false;
	}
	e->state = CACHE_IDLE;
	uv_close((uv_handle_t *)&e->timer, cache_entry_timer_closed);
}

/* Something happened to the file: wait for the quiet period (again). */
static void cache_entry_touch(struct cache *c, struct cache_entry *e)
{
	if (e->state == CACHE_LOADING) {
		e->dirty = true;
		return;
	}
	cache_queue_remove(c, e);
	uv_timer_start(&e->timer, cache_entry_timer_cb, c->opts.quiet_ms, 0);
	e->state = CACHE_ARMED;
}

static void cache_entry_timer_cb(uv_timer_t *t)
{
	struct cache_entry *e = t->data;
	struct cache *c = e->cache;

	e->state = CACHE_IDLE;
	cache_queue_add(c, e, false);
	cache_pump(c);
}

/* ---- loading (worker side) --------------------------------------------- */

static uint64_t cache_hash(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int cache_load_fail(struct cache_load *j, int rc, const char *what)
{
	if (rc == -EXDEV)
		snprintf(j->err, sizeof j->err, "%s: error: resolves outside the asset root",
			 j->name);
	else
		snprintf(j->err, sizeof j->err, "%s: error: %s: %s", j->name, what, strerror(-rc));
	return rc;
}

/* asset_read_companion_fn for a load job: the companion's name is
 * relative to the root like the asset's, opened as safely. */
static int cache_read_companion(void *ctx, const char *name, char **buf, size_t *len, char *err,
				size_t errlen)
{
	struct cache_load *j = ctx;
	struct stat st;
	int fd = asset_path_open(j->root_fd, j->root_real, name, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	int rc;

	cache_names_add(&j->read, name);
	if (fd == -ENOENT || fd == -ENOTDIR)
		return -ENOENT;
	if (fd < 0) {
		snprintf(err, errlen, "%s: error: cannot open: %s", name,
			 fd == -EXDEV ? "it resolves outside the asset root" : strerror(-fd));
		return fd;
	}
	rc = asset_read_fd(fd, name, j->max_bytes, buf, len, &st, err, errlen);
	close(fd);
	return rc;
}

static void cache_load_work(uv_work_t *w)
{
	struct cache_load *j = w->data;
	uint64_t t0 = uv_hrtime();
	char *buf = NULL;
	size_t len = 0;
	struct stat st;
	int fd;

	/* O_NONBLOCK: a FIFO named like an asset must not hold this worker
	 * (and shutdown) until someone writes it; asset_read_fd then refuses
	 * whatever is not a regular file. */
	fd = asset_path_open(j->root_fd, j->root_real, j->name, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		j->rc = fd == -ENOENT || fd == -ENOTDIR ? fd : cache_load_fail(j, fd, "cannot open");
		return;
	}
	j->rc = asset_read_fd(fd, j->name, j->max_bytes, &buf, &len, &st, j->err, sizeof j->err);
	close(fd);
	if (st.st_mode != 0) {
		scan_stat_from(&j->st, &st);
		j->st_valid = true;
	}
	if (j->rc < 0)
		return;
	j->hash = cache_hash((const unsigned char *)buf, len);
	j->hash_valid = true;
	j->load.read_companion = cache_read_companion;
	j->load.companion_ctx = j;
	if (j->compare_hash && j->hash == j->prev_hash && !j->companions) {
		j->unchanged = true;
	} else {
		j->parsed = true;
		j->rc = asset_load_buffer_with(j->name, buf, len, &j->load, &j->asset, j->err,
					       sizeof j->err);
		/* A model with companions is a new version when any of them
		 * is: its hash covers them all. */
		if (j->rc == 0 && j->asset->companion_count > 0) {
			j->hash ^= j->asset->companions_hash * 0x9e3779b97f4a7c15ull;
			if (j->compare_hash && j->hash == j->prev_hash) {
				j->unchanged = true;
				asset_unref(j->asset);
				j->asset = NULL;
			}
		}
		/* Out of memory says nothing about the bytes: try them again. */
		if (j->rc == -ENOMEM)
			j->hash_valid = false;
		if (j->rc < 0 && j->err[0] == '\0')
			cache_load_fail(j, j->rc, "cannot load");
	}
	free(buf);
	j->elapsed_ns = uv_hrtime() - t0;
}

/* ---- loading (loop side) ----------------------------------------------- */

static void cache_load_done(uv_work_t *w, int status);

static int cache_load_start(struct cache *c, struct cache_entry *e)
{
	struct cache_load *j = calloc(1, sizeof *j);
	int rc;

	if (j == NULL)
		return -ENOMEM;
	j->entry = e;
	j->name = e->name;
	j->root_real = c->root_real;
	/* The job's own descriptor: the root may be reopened meanwhile. */
	j->root_fd = fcntl(c->root_fd, F_DUPFD_CLOEXEC, 0);
	if (j->root_fd < 0) {
		free(j);
		return -errno;
	}
	j->max_bytes = c->opts.max_asset_bytes;
	j->load = c->opts.load;
	/* An event compares with the last attempt (a touch parses nothing); a
	 * forced reload with the live version (re-reading what is live would
	 * make a new generation and republish every instance for nothing). */
	j->forced = e->force;
	j->compare_hash = e->force ? e->asset != NULL : e->hash_valid;
	j->companions = e->companions;
	j->prev_hash = e->force ? e->live_hash : e->hash;
	j->work.data = j;
	rc = uv_queue_work(c->loop, &j->work, cache_load_work, cache_load_done);
	if (rc < 0) {
		close(j->root_fd);
		free(j);
		return rc;
	}
	e->force = false;
	e->job = j;
	e->state = CACHE_LOADING;
	c->running++;
	c->holds++;
	return 0;
}

static void cache_pump(struct cache *c)
{
	while (!c->closing && c->root_fd >= 0 && c->q_head != NULL &&
	       c->running < c->opts.max_parallel_loads) {
		struct cache_entry *e = c->q_head;
		int rc;

		cache_queue_remove(c, e);
		rc = cache_load_start(c, e);
		if (rc < 0) {
			/* Out of memory: try again after a quiet period. */
			cache_log(c, LOG_WARNING, "%s: cannot queue a load: %s", e->name,
				  strerror(-rc));
			cache_entry_touch(c, e);
			break;
		}
	}
}

static void cache_ready_check(struct cache *c)
{
	struct cache_summary s;

	if (c->ready || c->closing || c->scan_is_startup || c->startup_pending > 0 ||
	    !c->started)
		return;
	c->ready = true;
	c->summary.directories = (uint32_t)watcher_count(c->watcher);
	c->summary.elapsed_ns = uv_hrtime() - c->start_ns;
	s = c->summary;
	if (c->ready_cb != NULL)
		c->ready_cb(c, &s, c->opts.data);
}

enum cache_event { CACHE_EV_NONE, CACHE_EV_LOADED, CACHE_EV_RELOADED, CACHE_EV_ERROR,
		   CACHE_EV_REMOVED, CACHE_EV_UNCHANGED };

static void cache_emit(struct cache *c, enum cache_event ev, struct cache_entry *e)
{
	const struct cache_events *cb = &c->opts.events;

	switch (ev) {
	case CACHE_EV_LOADED:
		if (cb->loaded != NULL)
			cb->loaded(c, e->name, e->generation, c->opts.data);
		break;
	case CACHE_EV_RELOADED:
		if (cb->reloaded != NULL)
			cb->reloaded(c, e->name, e->generation, c->opts.data);
		break;
	case CACHE_EV_ERROR:
		if (cb->error != NULL && e->error != NULL)
			cb->error(c, e->name, e->error, c->opts.data);
		break;
	case CACHE_EV_REMOVED:
		if (cb->removed != NULL)
			cb->removed(c, e->name, c->opts.data);
		break;
	case CACHE_EV_UNCHANGED:
		if (cb->unchanged != NULL)
			cb->unchanged(c, e->name, e->generation, c->opts.data);
		break;
	default:
		break;
	}
}

static void cache_entry_set_error(struct cache_entry *e, const char *msg)
{
	char *copy = strdup(msg);

	/* Without memory for the message, keep the previous one rather than
	 * pretend the file loaded. */
	if (copy != NULL) {
		free(e->error);
		e->error = copy;
	}
}

static void cache_load_done(uv_work_t *w, int status)
{
	struct cache_load *j = w->data;
	struct cache_entry *e = j->entry;
	struct cache *c = e->cache;
	enum cache_event ev = CACHE_EV_NONE;
	bool dirty, dropped = false, outcome = true;
	int rc = status == UV_ECANCELED ? -ECANCELED : j->rc;

	c->running--;
	e->job = NULL;
	close(j->root_fd);
	if (c->closing || e->timer_closed) {
		asset_unref(j->asset);
		cache_names_clear(&j->read);
		free(j);
		if (e->timer_closed)
			cache_entry_free(e);
		cache_release(c);
		return;
	}
	c->loads++;
	e->state = CACHE_IDLE;
	dirty = e->dirty;
	e->dirty = false;
	if (j->st_valid) {
		e->seen = j->st;
		e->seen_valid = true;
	}
	if (j->hash_valid) {
		e->hash = j->hash;
		e->hash_valid = true;
	}
	if (j->asset != NULL)
		e->companions = j->asset->companion_count > 0;
	if (j->parsed) {
		/* What this load read, even when it failed (a .bin that is not
		 * there yet): its arrival must reload the entry. */
		cache_names_clear(&e->read);
		e->read = j->read;
		j->read = (struct cache_names){ NULL, 0 };
		e->companions |= e->read.n > 0;
	}

	if (rc == -ENOENT || rc == -ENOTDIR) {
		/* Files vanish with their root too (rm -r removes them first). */
		cache_root_check(c);
		if (c->root_fd < 0) {
			asset_unref(j->asset);
			cache_names_clear(&j->read);
			free(j);
			cache_release(c);
			return;
		}
	}
	if (rc == -ENOENT || rc == -ENOTDIR || rc == -EISDIR) {
		/* Gone, unless it came back while we looked (delete + re-create
		 * is one reload).  A name that is now a directory goes too, and
		 * the directory gets walked. */
		if (!dirty || rc == -EISDIR) {
			if (cache_entry_visible(e))
				ev = CACHE_EV_REMOVED;
			if (rc == -EISDIR)
				cache_scan_request(c, e->name, CACHE_SCAN_NOW);
			cache_entry_drop(c, e);
			dropped = true;
		} else {
			outcome = false;
		}
	} else if (rc == -EAGAIN || rc == -ECANCELED) {
		/* Still being written: wait for it to settle. */
		dirty = true;
		outcome = false;
	} else if (j->unchanged && j->forced) {
		/* The file holds the live version again: any error is over. */
		free(e->error);
		e->error = NULL;
		ev = CACHE_EV_UNCHANGED;
	} else if (j->unchanged) {
		if (e->error != NULL)
			ev = CACHE_EV_ERROR;
	} else if (rc == 0) {
		struct asset *old = e->asset;

		e->asset = j->asset;
		j->asset = NULL;
		e->live_hash = j->hash;
		e->generation++;
		free(e->error);
		e->error = NULL;
		e->file_bytes = e->asset->file_bytes;
		e->loaded_at_ns = cache_realtime_ns();
		e->load_ns = j->elapsed_ns;
		asset_unref(old);
		ev = old == NULL ? CACHE_EV_LOADED : CACHE_EV_RELOADED;
	} else {
		cache_entry_set_error(e, j->err);
		ev = CACHE_EV_ERROR;
	}

	if (e->startup && outcome) {
		e->startup = false;
		c->startup_pending--;
		if (ev == CACHE_EV_LOADED)
			c->summary.loaded++;
		else if (ev == CACHE_EV_ERROR)
			c->summary.failed++;
	}
	if (!dropped && dirty) {
		if (e->force)
			cache_queue_add(c, e, true);
		else
			cache_entry_touch(c, e);
	}
	asset_unref(j->asset);
	cache_names_clear(&j->read);
	free(j);
	cache_pump(c);
	/* Last: the callback may close the cache (which then waits for this
	 * hold). */
	cache_emit(c, ev, e);
	if (!c->closing)
		cache_ready_check(c);
	/* Last: it may free a closing cache. */
	cache_release(c);
}

/* ---- walking and reconciling ------------------------------------------- */

/* The scan root that name lies under, or -1. */
static long cache_scan_root_of(const struct scan_result *r, const char *name)
{
	for (size_t i = 0; i < r->root_count; i++)
		if (asset_path_within(name, r->roots[i]))
			return (long)i;
	return -1;
}

static bool cache_gone_status(int status)
{
	return status == -ENOENT || status == -ENOTDIR || status == -ELOOP;
}

/* True if the walk proves that name no longer exists: present says whether
 * the walk listed it (as a file, a directory or a name not served, as the
 * caller looks it up); it is absent and the closest directory above it
 * that the walk met was listed in full.  A directory the walk could not
 * read proves nothing about what is below it. */
static bool cache_scan_proves_absent(const struct scan_result *r, const char *name, bool present)
{
	char dir[ASSET_PATH_MAX + 1];
	long root = cache_scan_root_of(r, name);

	if (r->status != 0 || root < 0)
		return false;
	if (cache_gone_status(r->root_status[root]))
		return true;
	if (r->root_status[root] != 0 || strcmp(name, r->roots[root]) == 0)
		return false;
	if (present)
		return false;
	if (asset_path_parent(name, dir, sizeof dir) < 0)
		return false;
	while (strcmp(dir, r->roots[root]) != 0) {
		const struct scan_dir *d = scan_find_dir(r, dir);

		if (d != NULL)
			return d->status == 0;
		if (asset_path_parent(dir, dir, sizeof dir) < 0 || dir[0] == '\0')
			break;
	}
	return true;
}

static int cache_watch(struct cache *c, const char *dir, const struct scan_id *id)
{
	int rc = watcher_add(c->watcher, dir, id->dev, id->ino);

	if (rc == -ENOSPC && !c->watch_limit_logged) {
		c->watch_limit_logged = true;
		cache_log(c, LOG_WARNING,
			  "%s/%s: cannot watch: inotify watch limit reached "
			  "(fs.inotify.max_user_watches); changes below are found by rescans only",
			  c->root_real, dir);
	} else if (rc == -ESTALE) {
		/* Another directory took the name since the walk: walk it. */
		cache_scan_request(c, dir, CACHE_SCAN_SOON);
	} else if (rc < 0 && rc != -EEXIST && rc != -ENOENT && rc != -ENOSPC) {
		cache_log(c, LOG_WARNING, "%s/%s: cannot watch: %s", c->root_real, dir,
			  uv_strerror(rc));
	}
	return rc;
}

/* Watches dir, the directory id the walk listed, unless its watch is on
 * that one already.  A watch under the name on another directory (the
 * name was given to a new one) goes first, with those below it.  True if
 * a watch was added: what appeared before it must be walked again. */
static bool cache_watch_listed(struct cache *c, const char *dir, const struct scan_id *id)
{
	if (watcher_watches(c->watcher, dir, id->dev, id->ino))
		return false;
	watcher_remove(c->watcher, dir);
	return cache_watch(c, dir, id) == 0;
}

/* Tells the log once about name (see struct cache_note); true if it was
 * not told already. */
static bool cache_note(struct cache *c, const char *name, enum cache_note_kind kind)
{
	struct strmap_node *sn = strmap_find(&c->notes, name);
	size_t len = strlen(name);
	struct cache_note *n;

	if (sn != NULL) {
		n = strmap_container_of(sn, struct cache_note, node);
		if (n->kind == kind)
			return false;
		cache_note_drop(c, n);
	}
	n = malloc(sizeof *n + len + 1);
	if (n == NULL)
		return true;            /* said again next time: better than never */
	n->kind = kind;
	memcpy(n->name, name, len + 1);
	strmap_insert(&c->notes, &n->node, n->name);
	if (kind == CACHE_NOTE_UNSERVABLE)
		c->unservable++;
	return true;
}

static void cache_note_unservable(struct cache *c, const struct scan_unservable *u)
{
	char shown[512];
	bool cut;

	if (!cache_note(c, u->name, CACHE_NOTE_UNSERVABLE))
		return;
	/* The name escaped byte by byte: the line stays text, and the name
	 * can be typed back in a shell's $'...' to rename the file. */
	log_escape_bytes(shown, sizeof shown - 3, u->name, strlen(u->name), &cut);
	if (cut)
		strcat(shown, "...");
	if (u->dir)
		cache_log(c, LOG_WARNING, "folder name \"%s\" %s: nothing in it is served; "
			  "rename the folder", shown, u->why);
	else
		cache_log(c, LOG_WARNING, "asset name \"%s\" %s: not served; rename the file",
			  shown, u->why);
}

/* Forgets the notes the walk proves stale: the name is gone, or now
 * listed as a directory the walk could enter. */
static void cache_notes_prune(struct cache *c, const struct scan_result *r)
{
	struct strmap_node *sn, *next;

	for (sn = strmap_next(&c->notes, NULL); sn != NULL; sn = next) {
		struct cache_note *n = strmap_container_of(sn, struct cache_note, node);
		const struct scan_dir *d;
		bool stale;

		next = strmap_next(&c->notes, sn);
		if (n->kind == CACHE_NOTE_TOO_DEEP || n->kind == CACHE_NOTE_UNREADABLE) {
			int still = n->kind == CACHE_NOTE_TOO_DEEP ? -ELOOP : 0;

			d = scan_find_dir(r, n->name);
			stale = (d != NULL && (n->kind == CACHE_NOTE_TOO_DEEP ? d->status != still
									      : d->status >= 0)) ||
				cache_scan_proves_absent(r, n->name, d != NULL);
		} else {
			stale = cache_scan_proves_absent(r, n->name,
							 scan_find_unservable(r, n->name) != NULL);
		}
		if (stale)
			cache_note_drop(c, n);
	}
}

/* A file the walk found. */
static void cache_scan_file(struct cache *c, const struct scan_file *f, bool startup)
{
	struct cache_entry *e = cache_entry_find(c, f->name);

	if (e == NULL) {
		e = cache_entry_new(c, f->name);
		if (e == NULL) {
			cache_log(c, LOG_WARNING, "%s: out of memory", f->name);
			return;
		}
		if (startup) {
			e->startup = true;
			c->startup_pending++;
			cache_queue_add(c, e, false);
		} else {
			cache_entry_touch(c, e);
		}
		return;
	}
	if (e->seen_valid && scan_stat_equal(&e->seen, &f->st))
		return;
	if (e->state == CACHE_IDLE || (e->state == CACHE_LOADING && e->seen_valid)) {
		/* If the load cannot even open the file (permissions), this is
		 * the identity the next walk compares with: one retry per
		 * change, not one per walk.  A chmod is seen by the watcher. */
		if (e->state == CACHE_IDLE) {
			e->seen = f->st;
			e->seen_valid = true;
		}
		cache_entry_touch(c, e);
	}
}

static void cache_scan_reconcile(struct cache *c, const struct scan_result *r, bool startup)
{
	const char *newly[CACHE_MAX_SCAN_ROOTS];
	size_t newly_count = 0;
	bool newly_overflow = false;
	struct strmap_node *n, *next;

	/* Directories: watch what exists; anything watched after the walk read
	 * it is walked again, for what appeared in between. */
	for (size_t i = 0; i < r->root_count; i++) {
		const char *root = r->roots[i];

		if (r->root_status[i] == 0) {
			if (cache_watch_listed(c, root, &r->root_id[i])) {
				if (newly_count < CACHE_MAX_SCAN_ROOTS)
					newly[newly_count++] = root;
				else
					newly_overflow = true;
			}
		} else if (cache_gone_status(r->root_status[i])) {
			watcher_remove(c->watcher, root);
			if (root[0] == '\0')
				cache_log(c, LOG_ERR, "%s: the asset root is gone: %s", c->root_real,
					  strerror(-r->root_status[i]));
		} else {
			cache_log(c, LOG_WARNING, "%s/%s: cannot read directory: %s", c->root_real,
				  root, strerror(-r->root_status[i]));
		}
	}
	for (size_t i = 0; i < r->dir_count; i++) {
		const struct scan_dir *d = &r->dirs[i];

		if (d->status == -ELOOP) {
			if (cache_note(c, d->name, CACHE_NOTE_TOO_DEEP))
				cache_log(c, LOG_WARNING, "%s/%s: too deep, not watched", c->root_real,
					  d->name);
			continue;
		}
		if (d->status < 0 && cache_note(c, d->name, CACHE_NOTE_UNREADABLE))
			cache_log(c, LOG_WARNING, "%s/%s: cannot read directory: %s", c->root_real,
				  d->name, strerror(-d->status));
		if (d->id.dev == 0 && d->id.ino == 0)
			continue;       /* never opened: nothing to compare a watch with */
		if (cache_watch_listed(c, d->name, &d->id)) {
			if (newly_count < CACHE_MAX_SCAN_ROOTS)
				newly[newly_count++] = d->name;
			else
				newly_overflow = true;
		}
	}
	for (size_t i = 0; i < r->unservable_count; i++)
		cache_note_unservable(c, &r->unservable[i]);
	cache_notes_prune(c, r);
	if (r->status == 0) {
		const char *dir, *dnext;
		char *gone[CACHE_MAX_SCAN_ROOTS];
		size_t gone_count = 0;

		for (dir = watcher_next(c->watcher, NULL); dir != NULL; dir = dnext) {
			dnext = watcher_next(c->watcher, dir);
			if (gone_count < CACHE_MAX_SCAN_ROOTS &&
			    cache_scan_proves_absent(r, dir, scan_find_dir(r, dir) != NULL))
				gone[gone_count++] = strdup(dir);
		}
		for (size_t i = 0; i < gone_count; i++) {
			if (gone[i] != NULL)
				watcher_remove(c->watcher, gone[i]);
			free(gone[i]);
		}
	} else {
		cache_log(c, LOG_WARNING, "walk of %s incomplete: %s", c->root_real,
			  strerror(-r->status));
	}

	/* Files: new ones are loaded, changed ones reloaded after the quiet
	 * period; vanished ones are touched, and go if the load confirms. */
	for (size_t i = 0; i < r->file_count; i++)
		cache_scan_file(c, &r->files[i], startup);
	for (n = strmap_next(&c->entries, NULL); n != NULL; n = next) {
		struct cache_entry *e = strmap_container_of(n, struct cache_entry, node);

		next = strmap_next(&c->entries, n);
		if (cache_scan_proves_absent(r, e->name, scan_find_file(r, e->name) != NULL)) {
			if (e->state == CACHE_LOADING)
				e->dirty = true;
			else if (e->state == CACHE_IDLE)
				cache_entry_touch(c, e);
		}
	}
	if (newly_overflow)
		cache_scan_request(c, "", CACHE_SCAN_LATER);
	else
		for (size_t i = 0; i < newly_count; i++)
			cache_scan_request(c, newly[i], CACHE_SCAN_LATER);
}

static void cache_scan_kick(struct cache *c);

static void cache_dircheck_cb(uv_timer_t *t)
{
	cache_scan_kick(t->data);
}

static void cache_scan_done(struct scan_req *req, const struct scan_result *r, void *data)
{
	struct cache *c = data;
	bool startup = c->scan_is_startup;

	(void)req;
	c->scan = NULL;
	close(c->scan_root_fd);
	c->scan_root_fd = -1;
	if (!c->closing && r->status != -ECANCELED && c->scan_root_gen != c->root_gen) {
		/* A walk of a root that has gone or been replaced since: its
		 * findings are about the old directory.  (A walk of the new
		 * one has been asked for.) */
		c->scan_is_startup = false;
		cache_scan_kick(c);
		cache_ready_check(c);
	} else if (!c->closing && r->status != -ECANCELED) {
		c->scans++;
		if (startup) {
			c->summary.status = r->status;
			if (r->root_count > 0 && r->root_status[0] < 0)
				c->summary.status = r->root_status[0];
			c->summary.files = (uint32_t)r->file_count;
		}
		cache_scan_reconcile(c, r, startup);
		c->scan_is_startup = false;
		cache_pump(c);
		cache_scan_kick(c);
		if (startup)
			cache_ready_check(c);
	}
	/* Last: it may free a closing cache. */
	cache_release(c);
}

static int cache_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Starts one walk of everything waiting, unless one is running (its
 * completion calls this again): one walk at a time, so their results are
 * applied in order. */
static void cache_scan_kick(struct cache *c)
{
	const char *roots[CACHE_MAX_SCAN_ROOTS];
	size_t count = 0;
	int rc;

	if (c->closing || c->scan != NULL || (!c->scan_full && c->scan_root_count == 0))
		return;
	/* A walk of the whole tree is when a root that was deleted, moved
	 * away or replaced must be noticed (rescans, SIGHUP, start-up). */
	if (c->scan_full && c->started)
		cache_root_check(c);
	if (c->root_fd < 0)
		return;                 /* gone: root_poll walks it when it is back */
	uv_timer_stop(&c->dircheck_timer);
	if (c->scan_full) {
		roots[count++] = "";
	} else {
		/* Sorted, a directory comes right before those below it. */
		qsort(c->scan_roots, c->scan_root_count, sizeof *c->scan_roots, cache_cmp_str);
		for (size_t i = 0; i < c->scan_root_count; i++)
			if (count == 0 || !asset_path_within(c->scan_roots[i], roots[count - 1]))
				roots[count++] = c->scan_roots[i];
	}
	c->scan_root_fd = fcntl(c->root_fd, F_DUPFD_CLOEXEC, 0);
	c->scan_root_gen = c->root_gen;
	rc = c->scan_root_fd < 0 ? -errno
				 : scan_start(c->loop, c->scan_root_fd, c->root_real, roots, count,
					      NULL, cache_scan_done, c, &c->scan);
	if (rc < 0) {
		if (c->scan_root_fd >= 0)
			close(c->scan_root_fd);
		c->scan_root_fd = -1;
		cache_log(c, LOG_WARNING, "cannot start a walk of %s: %s", c->root_real,
			  uv_strerror(rc));
		uv_timer_start(&c->dircheck_timer, cache_dircheck_cb, c->opts.quiet_ms, 0);
		return;
	}
	c->holds++;
	for (size_t i = 0; i < c->scan_root_count; i++)
		free(c->scan_roots[i]);
	c->scan_root_count = 0;
	c->scan_full = false;
}

/* Asks for a walk of dir: now, or after the quiet period (a burst of
 * events in a tree joins one walk; the first event starts the wait). */
static void cache_scan_request(struct cache *c, const char *dir, enum cache_scan_when when)
{
	if (c->closing)
		return;
	if (!c->scan_full) {
		size_t i;

		for (i = 0; i < c->scan_root_count; i++)
			if (strcmp(c->scan_roots[i], dir) == 0)
				break;
		if (dir[0] == '\0' || (i == c->scan_root_count &&
				       c->scan_root_count == CACHE_MAX_SCAN_ROOTS)) {
			for (i = 0; i < c->scan_root_count; i++)
				free(c->scan_roots[i]);
			c->scan_root_count = 0;
			c->scan_full = true;
		} else if (i == c->scan_root_count) {
			char *copy = strdup(dir);

			if (copy == NULL)
				c->scan_full = true;
			else
				c->scan_roots[c->scan_root_count++] = copy;
		}
	}
	if (when == CACHE_SCAN_NOW)
		cache_scan_kick(c);
	else if (when == CACHE_SCAN_SOON && c->scan == NULL &&
		 !uv_is_active((uv_handle_t *)&c->dircheck_timer))
		uv_timer_start(&c->dircheck_timer, cache_dircheck_cb, c->opts.quiet_ms, 0);
}

/* ---- the root itself ---------------------------------------------------- */

/* How often a root that is gone is looked for again. */
#define CACHE_ROOT_POLL_MS 1000

static void cache_root_poll_cb(uv_timer_t *t)
{
	cache_root_check(t->data);
}

static void cache_root_watch_cb(void *data)
{
	cache_root_check(data);
}

/* The root directory is gone (deleted, or moved away: root_fd would still
 * reach it, but it is not at the path served any more).  Its files cannot
 * be served: every asset is removed, and the path is polled for a new
 * directory. */
static void cache_root_gone(struct cache *c, int why)
{
	struct strmap_node *n, *next;
	struct cache_entry **gone;
	size_t count = 0;

	close(c->root_fd);
	c->root_fd = -1;
	c->root_gen++;
	watcher_remove(c->watcher, "");
	cache_notes_clear(c);
	gone = calloc(c->entries.count + 1, sizeof *gone);
	/* Dropped first, reported after (a report may close the cache); a
	 * dropped entry's name lives until its timer's close callback. */
	for (n = strmap_next(&c->entries, NULL); n != NULL; n = next) {
		struct cache_entry *e = strmap_container_of(n, struct cache_entry, node);

		next = strmap_next(&c->entries, n);
		if (cache_entry_visible(e) && gone != NULL)
			gone[count++] = e;
		if (e->startup) {
			e->startup = false;
			c->startup_pending--;
		}
		cache_entry_drop(c, e);
	}
	cache_log(c, LOG_ERR, "%s: the asset root is gone (%s): %zu assets removed; "
		  "waiting for it to come back", c->root_real, strerror(why), count);
	uv_timer_start(&c->root_poll, cache_root_poll_cb, CACHE_ROOT_POLL_MS, CACHE_ROOT_POLL_MS);
	for (size_t i = 0; i < count && !c->closing; i++)
		cache_emit(c, CACHE_EV_REMOVED, gone[i]);
	free(gone);
}

/*
 * Is the directory at the root's path still the one root_fd holds?  An
 * editor, a deploy script or `git checkout` may delete the root and make
 * it again, or swap in another directory: inotify then watches the old
 * one, and every open relative to root_fd reaches the old one.  A stat of
 * one path: cheap enough for every full walk and every rename event at the
 * top of the tree.
 */
static void cache_root_check(struct cache *c)
{
	struct scan_id id;
	struct stat st;
	int fd, rc;

	if (c->closing)
		return;
	rc = stat(c->root_real, &st);
	if (rc < 0 || !S_ISDIR(st.st_mode)) {
		int why = rc < 0 ? errno : ENOTDIR;

		if (c->root_fd >= 0)
			cache_root_gone(c, why);
		return;
	}
	if (c->root_fd >= 0 && st.st_dev == c->root_dev && st.st_ino == c->root_ino)
		return;
	fd = open(c->root_real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return;                 /* racing with its creation: the next look */
	}
	cache_log(c, LOG_WARNING, "%s: the asset root %s: watching it and walking it again",
		  c->root_real, c->root_fd >= 0 ? "was replaced by another directory"
						 : "is back");
	if (c->root_fd >= 0)
		close(c->root_fd);
	c->root_fd = fd;
	c->root_gen++;
	c->root_dev = st.st_dev;
	c->root_ino = st.st_ino;
	uv_timer_stop(&c->root_poll);
	/* The old watches are on the old directories; what the log was told
	 * is about them too. */
	watcher_remove(c->watcher, "");
	cache_notes_clear(c);
	id.dev = (uint64_t)st.st_dev;
	id.ino = (uint64_t)st.st_ino;
	cache_watch(c, "", &id);
	cache_scan_request(c, "", CACHE_SCAN_NOW);
	cache_pump(c);
}

/* ---- watcher events ---------------------------------------------------- */

/* The entry of the model a companion file belongs to ("dir/NAME.m2" for
 * "dir/NAME00.skin"), whichever case its extension has, or NULL. */
static struct cache_entry *cache_companion_owner(struct cache *c, const char *path)
{
	static const char *const ext[] = { ".m2", ".M2" };
	char stem[ASSET_PATH_MAX + 8];
	size_t n;

	if (asset_companion_stem(path, stem, sizeof stem - 4) < 0)
		return NULL;
	n = strlen(stem);
	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
		struct cache_entry *e;

		memcpy(stem + n, ext[i], 4);
		e = cache_entry_find(c, stem);
		if (e != NULL)
			return e;
	}
	return NULL;
}

/* Touch every entry whose last load read `path`; whether there was one.
 * A walk of the entries: events on files that are no asset are few. */
static bool cache_readers_touch(struct cache *c, const char *path)
{
	bool any = false;

	for (struct strmap_node *n = strmap_next(&c->entries, NULL); n != NULL;
	     n = strmap_next(&c->entries, n)) {
		struct cache_entry *e = strmap_container_of(n, struct cache_entry, node);

		if (e->read.n > 0 && cache_names_has(&e->read, path)) {
			cache_entry_touch(c, e);
			any = true;
		}
	}
	return any;
}

static void cache_on_watch(struct watcher *w, const char *path, int events, int status,
			   void *data)
{
	struct cache *c = data;
	char dir[ASSET_PATH_MAX + 1];
	struct cache_entry *e;

	(void)w;
	if (c->closing)
		return;
	/* The root moved or replaced: its own watch reports it (as ""), an
	 * event at the top of the tree may be about it. */
	if ((events & UV_RENAME) && strchr(path, '/') == NULL) {
		cache_root_check(c);
		if (c->root_fd < 0)
			return;
	}
	if (status == UV_ENOBUFS && path[0] == '\0') {
		/* Changes came faster than the kernel's queue holds
		 * (fs.inotify.max_queued_events): walk the tree for what was
		 * lost, as the periodic rescan would, now. */
		cache_log(c, LOG_INFO, "the watcher's event queue overflowed (more changes at once "
			  "than fs.inotify.max_queued_events): rescanning %s", c->root_real);
		cache_scan_request(c, "", CACHE_SCAN_SOON);
		return;
	}
	if (status < 0) {
		cache_log(c, LOG_WARNING, "%s/%s: watch error: %s", c->root_real, path,
			  uv_strerror(status));
		cache_scan_request(c, path, CACHE_SCAN_SOON);
		return;
	}
	if (path[0] == '\0') {
		/* The root's watch dropped, and the root is still the one served
		 * (moved away and back): watch it, and all below, again. */
		if ((events & UV_RENAME) && !watcher_has(c->watcher, ""))
			cache_scan_request(c, "", CACHE_SCAN_SOON);
		return;
	}
	if (asset_path_unservable(path, strlen(path)) != NULL) {
		/* Never served (asset_path.h), whatever happens to it; a walk of
		 * its folder (one that is served: only those are watched)
		 * counts it and tells the log. */
		if ((events & UV_RENAME) && !asset_path_ignored(asset_path_base(path)) &&
		    asset_path_parent(path, dir, sizeof dir) == 0)
			cache_scan_request(c, dir, CACHE_SCAN_SOON);
		return;
	}
	e = cache_entry_find(c, path);
	if (e != NULL) {
		cache_entry_touch(c, e);
		return;
	}
	/* A model's .skin or .anim: a save of it is a save of the model. */
	e = cache_companion_owner(c, path);
	if (e != NULL) {
		cache_entry_touch(c, e);
		return;
	}
	/* A file an entry's last load read (a glTF's .bin, whatever its name):
	 * each such entry reloads. */
	if (cache_readers_touch(c, path))
		return;
	if (asset_path_is_asset(path)) {
		e = cache_entry_new(c, path);
		if (e != NULL)
			cache_entry_touch(c, e);
		return;
	}
	/* Not an asset name: a directory created, deleted or moved (the event
	 * does not say), or some other file.  Only a walk can tell. */
	if ((events & UV_RENAME) && !asset_path_ignored(asset_path_base(path)))
		cache_scan_request(c, path, CACHE_SCAN_SOON);
}

static void cache_rescan_cb(uv_timer_t *t)
{
	cache_rescan(t->data);
}

/* ---- public ------------------------------------------------------------ */

int cache_new(uv_loop_t *loop, const struct cache_options *opts, struct cache **out, char *err,
	      size_t errlen)
{
	struct cache *c;
	struct stat st;
	int rc;

	if (opts == NULL || opts->root == NULL || opts->root[0] == '\0') {
		snprintf(err, errlen, "no asset root given");
		return -EINVAL;
	}
	c = calloc(1, sizeof *c);
	if (c == NULL)
		goto nomem;
	c->loop = loop;
	c->opts = *opts;
	c->opts.root = NULL;
	c->root_fd = -1;
	c->scan_root_fd = -1;
	if (c->opts.quiet_ms == 0)
		c->opts.quiet_ms = CACHE_DEFAULT_QUIET_MS;
	if (c->opts.max_asset_bytes == 0)
		c->opts.max_asset_bytes = ASSET_DEFAULT_MAX_BYTES;
	if (c->opts.max_parallel_loads == 0)
		c->opts.max_parallel_loads = CACHE_DEFAULT_MAX_PARALLEL_LOADS;
	c->root_real = realpath(opts->root, NULL);
	if (c->root_real == NULL) {
		rc = -errno;
		snprintf(err, errlen, "asset root %s: %s", opts->root, strerror(-rc));
		goto fail;
	}
	c->root_fd = open(c->root_real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->root_fd < 0 || fstat(c->root_fd, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "asset root %s: %s", opts->root, strerror(-rc));
		goto fail;
	}
	c->root_dev = st.st_dev;
	c->root_ino = st.st_ino;
	if (strmap_init(&c->entries) < 0)
		goto nomem;
	strorder_init(&c->order);
	if (strmap_init(&c->notes) < 0) {
		strmap_fini(&c->entries);
		strorder_fini(&c->order);
		goto nomem;
	}
	rc = watcher_new(loop, c->root_real, cache_on_watch, c, &c->watcher);
	if (rc < 0) {
		strmap_fini(&c->notes);
		strmap_fini(&c->entries);
		strorder_fini(&c->order);
		/* fs.inotify.max_user_instances, most likely. */
		snprintf(err, errlen, "cannot watch the asset root: %s", uv_strerror(rc));
		goto fail;
	}
	uv_timer_init(loop, &c->rescan_timer);
	uv_timer_init(loop, &c->dircheck_timer);
	uv_timer_init(loop, &c->root_poll);
	c->rescan_timer.data = c;
	c->dircheck_timer.data = c;
	c->root_poll.data = c;
	c->holds = 4;                   /* the three timers and the watcher */
	*out = c;
	return 0;
nomem:
	rc = -ENOMEM;
	snprintf(err, errlen, "out of memory");
fail:
	if (c != NULL) {
		if (c->root_fd >= 0)
			close(c->root_fd);
		free(c->root_real);
		free(c);
	}
	return rc;
}

int cache_start(struct cache *c, cache_ready_cb ready)
{
	int rc;

	if (c->started)
		return -EALREADY;
	if (c->closing)
		return -ECANCELED;
	c->started = true;
	c->ready_cb = ready;
	c->start_ns = uv_hrtime();
	/* Watch before walking, so nothing created during the walk is missed. */
	rc = cache_watch(c, "", &(struct scan_id){ (uint64_t)c->root_dev, (uint64_t)c->root_ino });
	if (rc < 0 && rc != -ENOSPC)
		cache_log(c, LOG_WARNING, "%s: not watched (%s); changes are found by rescans only",
			  c->root_real, uv_strerror(rc));
	c->scan_is_startup = true;
	cache_scan_request(c, "", CACHE_SCAN_NOW);
	if (c->scan == NULL) {
		c->scan_is_startup = false;
		return -ENOMEM;
	}
	if (c->opts.rescan_interval_s > 0) {
		uint64_t ms = (uint64_t)c->opts.rescan_interval_s * 1000;

		uv_timer_start(&c->rescan_timer, cache_rescan_cb, ms, ms);
	}
	if (root_watch_new(c->loop, c->root_real, cache_root_watch_cb, c, &c->root_watch) == 0)
		c->holds++;
	return 0;
}

void cache_set_timing(struct cache *c, unsigned quiet_ms, unsigned rescan_interval_s)
{
	/* Timers already running keep their deadline; the next ones use the
	 * new values. */
	c->opts.quiet_ms = quiet_ms ? quiet_ms : CACHE_DEFAULT_QUIET_MS;
	if (c->opts.rescan_interval_s == rescan_interval_s)
		return;
	c->opts.rescan_interval_s = rescan_interval_s;
	uv_timer_stop(&c->rescan_timer);
	if (rescan_interval_s > 0) {
		uint64_t ms = (uint64_t)rescan_interval_s * 1000;

		uv_timer_start(&c->rescan_timer, cache_rescan_cb, ms, ms);
	}
}

static void cache_info_fill(const struct cache_entry *e, struct cache_info *out)
{
	out->name = e->name;
	out->asset = e->asset;
	out->generation = e->generation;
	out->error = e->error;
	out->file_bytes = e->file_bytes;
	out->loaded_at_ns = e->loaded_at_ns;
	out->load_ns = e->load_ns;
	out->pending = e->state != CACHE_IDLE;
}

int cache_get(struct cache *c, const char *name, struct cache_info *out)
{
	struct cache_entry *e = cache_entry_find(c, name);

	if (e == NULL || !cache_entry_visible(e))
		return -ENOENT;
	cache_info_fill(e, out);
	return 0;
}

/* The name index, ready to read; rebuilt from the table when it lost a
 * node for lack of memory.  0 or -ENOMEM. */
static int cache_order_ready(struct cache *c)
{
	struct strmap_node *n;

	if (strorder_prepare(&c->order) == 0)
		return 0;
	strorder_fini(&c->order);
	for (n = strmap_next(&c->entries, NULL); n != NULL; n = strmap_next(&c->entries, n)) {
		struct cache_entry *e = strmap_container_of(n, struct cache_entry, node);

		strorder_add(&c->order, &e->order_node, e->name);
	}
	return strorder_prepare(&c->order);
}

static const struct cache_entry *cache_order_entry(const struct cache *c, size_t i)
{
	return strmap_container_of(strorder_at(&c->order, i), struct cache_entry, order_node);
}

int cache_list(struct cache *c, struct cache_info **out, size_t *count)
{
	struct cache_info *list;
	size_t k = 0, n;

	*out = NULL;
	*count = 0;
	if (c->entries.count == 0)
		return 0;
	if (cache_order_ready(c) < 0)
		return -ENOMEM;
	list = calloc(c->entries.count, sizeof *list);
	if (list == NULL)
		return -ENOMEM;
	n = strorder_count(&c->order);
	for (size_t i = 0; i < n; i++) {
		const struct cache_entry *e = cache_order_entry(c, i);

		if (cache_entry_visible(e))
			cache_info_fill(e, &list[k++]);
	}
	if (k == 0) {
		free(list);
		return 0;
	}
	*out = list;
	*count = k;
	return 0;
}

int cache_list_page(struct cache *c, const char *after, struct cache_info *out, size_t max,
		    size_t *count, bool *more)
{
	size_t k = 0, n;

	*count = 0;
	*more = false;
	if (cache_order_ready(c) < 0)
		return -ENOMEM;
	n = strorder_count(&c->order);
	for (size_t i = strorder_seek(&c->order, after != NULL && after[0] != '\0' ? after : NULL);
	     i < n; i++) {
		const struct cache_entry *e = cache_order_entry(c, i);

		if (!cache_entry_visible(e))
			continue;
		if (k == max) {
			*more = true;
			break;
		}
		cache_info_fill(e, &out[k++]);
	}
	*count = k;
	return 0;
}

int cache_reload(struct cache *c, const char *name)
{
	struct cache_entry *e;

	if (c->closing)
		return -ECANCELED;
	/* Only names cache_get knows: a forced load always ends in an event
	 * for those (a name never seen that turns out to be gone would end
	 * silently). */
	e = cache_entry_find(c, name);
	if (e == NULL || !cache_entry_visible(e))
		return -ENOENT;
	e->force = true;
	if (e->state == CACHE_LOADING) {
		e->dirty = true;
		return 0;
	}
	cache_queue_add(c, e, true);
	cache_pump(c);
	return 0;
}

int cache_rescan(struct cache *c)
{
	if (c->closing)
		return -ECANCELED;
	cache_scan_request(c, "", CACHE_SCAN_NOW);
	return 0;
}

int cache_resolve(const struct cache *c, const char *name, size_t len, char *out, size_t size,
		  char *err, size_t errlen)
{
	return asset_path_resolve(c->root_real, name, len, out, size, err, errlen);
}

const char *cache_root(const struct cache *c)
{
	return c->root_real;
}

void cache_stats(const struct cache *c, struct cache_stats *out)
{
	struct strmap_node *n;

	memset(out, 0, sizeof *out);
	for (n = strmap_next(&c->entries, NULL); n != NULL; n = strmap_next(&c->entries, n)) {
		const struct cache_entry *e = strmap_container_of(n, struct cache_entry, node);

		if (cache_entry_visible(e)) {
			out->assets++;
			out->failing += e->error != NULL;
		}
		if (e->asset != NULL) {
			const struct asset_memory *m = &e->asset->memory;

			out->memory.skeleton += m->skeleton;
			out->memory.clips += m->clips;
			out->memory.meshes += m->meshes;
			out->memory.camera += m->camera;
			out->memory.emitters += m->emitters;
			out->memory.other += m->other;
			out->memory.total += m->total;
			if (e->asset->format >= 0 && e->asset->format < ASSET_FORMAT_COUNT)
				out->format_bytes[e->asset->format] += m->total;
		}
		out->loads_waiting += e->state == CACHE_ARMED || e->state == CACHE_QUEUED;
	}
	out->directories = watcher_count(c->watcher);
	out->unservable = c->unservable;
	out->loads_running = c->running;
	out->walking = c->scan != NULL || c->scan_full || c->scan_root_count > 0;
	out->scans = c->scans;
	out->loads = c->loads;
}

void cache_close(struct cache *c, void (*close_cb)(void *data))
{
	struct strmap_node *n, *next;

	if (c == NULL || c->closing)
		return;
	c->closing = true;
	c->close_cb = close_cb;
	if (c->scan != NULL)
		scan_cancel(c->scan);
	for (n = strmap_next(&c->entries, NULL); n != NULL; n = next) {
		struct cache_entry *e = strmap_container_of(n, struct cache_entry, node);

		next = strmap_next(&c->entries, n);
		if (e->job != NULL)
			uv_cancel((uv_req_t *)&e->job->work);
		cache_entry_drop(c, e);
	}
	c->q_head = c->q_tail = NULL;
	c->queued = 0;
	watcher_close(c->watcher, cache_watcher_closed, c);
	uv_close((uv_handle_t *)&c->rescan_timer, cache_handle_closed);
	uv_close((uv_handle_t *)&c->dircheck_timer, cache_handle_closed);
	uv_close((uv_handle_t *)&c->root_poll, cache_handle_closed);
	if (c->root_watch != NULL)
		root_watch_close(c->root_watch, cache_watcher_closed, c);
}
