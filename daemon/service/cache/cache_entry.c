/*
 * cache_entry.c - the table and its loads.  An entry is one asset name:
 * idle, armed (its quiet period running), queued (for a free load slot) or
 * loading (a job on the thread pool); what a load finds goes live in one
 * step on the loop thread, and ends in one event (cache.h, "Life of an
 * entry").  Walks and watches (cache_scan.c, cache_watch.c) make entries
 * and touch them; when one is loaded is decided here.
 *
 * Two queues: what requests want (cache_wait.c) is loaded before anything
 * of the background queue, and background loads leave one slot free for
 * it, so a request waits at most for the shortest load under way.  An
 * evicted asset nobody wants is not parsed when its file changes: a job
 * looks at the file's identity only (is it still there?).
 */
#include "daemon/service/cache/cache_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "daemon/service/cache/asset_path.h"
#include "daemon/service/cache/scan.h"

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
	bool stat_only;                 /* an evicted asset nobody wants: its identity only */
	bool wanted;                    /* from the wanted queue, or forced */
	bool was_live;                  /* the entry had a version in memory */
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

static void cache_entry_timer_cb(uv_timer_t *t);

/* ---- entries ----------------------------------------------------------- */

bool cache_entry_visible(const struct cache_entry *e)
{
	return e->indexed || e->asset != NULL || e->error != NULL;
}

enum cache_asset_state cache_entry_asset_state(const struct cache_entry *e)
{
	if (e->asset != NULL)
		return CACHE_ASSET_OK;
	if (e->error != NULL)
		return CACHE_ASSET_FAILED;
	return e->evicted ? CACHE_ASSET_EVICTED : CACHE_ASSET_LOADING;
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

struct cache_entry *cache_entry_find(struct cache *c, const char *name)
{
	struct strmap_node *n = strmap_find(&c->entries, name);

	return n != NULL ? strmap_container_of(n, struct cache_entry, node) : NULL;
}

struct cache_entry *cache_entry_new(struct cache *c, const char *name)
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

static void cache_entry_queue_remove(struct cache *c, struct cache_entry *e)
{
	struct cache_queue *q = e->q_wanted ? &c->wanted : &c->background;

	if (e->state != CACHE_QUEUED)
		return;
	if (e->q_prev != NULL)
		e->q_prev->q_next = e->q_next;
	else
		q->head = e->q_next;
	if (e->q_next != NULL)
		e->q_next->q_prev = e->q_prev;
	else
		q->tail = e->q_prev;
	e->q_prev = e->q_next = NULL;
	e->state = CACHE_IDLE;
	q->count--;
	c->queued--;
}

void cache_entry_queue_add(struct cache *c, struct cache_entry *e, bool wanted, bool front)
{
	struct cache_queue *q;

	if (e->state == CACHE_QUEUED) {
		if (!front && (e->q_wanted || !wanted))
			return;         /* queued already, where it belongs */
		wanted = wanted || e->q_wanted;
	}
	cache_entry_queue_remove(c, e);
	if (e->state == CACHE_ARMED)
		uv_timer_stop(&e->timer);
	q = wanted ? &c->wanted : &c->background;
	e->q_wanted = wanted;
	if (front) {
		e->q_next = q->head;
		if (q->head != NULL)
			q->head->q_prev = e;
		else
			q->tail = e;
		q->head = e;
	} else {
		e->q_prev = q->tail;
		if (q->tail != NULL)
			q->tail->q_next = e;
		else
			q->head = e;
		q->tail = e;
	}
	e->state = CACHE_QUEUED;
	q->count++;
	c->queued++;
}

/* Takes the entry out of the table (its name stays valid until the timer's
 * close callback, so it may still be reported). */
void cache_entry_drop(struct cache *c, struct cache_entry *e)
{
	cache_entry_queue_remove(c, e);
	if (e->in_map) {
		strmap_remove(&c->entries, &e->node);
		strorder_remove(&c->order, &e->order_node);
		e->in_map = false;
		cache_mem_forget(c, e);
	}
	e->state = CACHE_IDLE;
	uv_close((uv_handle_t *)&e->timer, cache_entry_timer_closed);
	/* Last: what waited for the name finds it gone. */
	cache_wait_fire(c, e);
}

void cache_entry_drop_all(struct cache *c)
{
	struct strmap_node *n, *next;

	for (n = strmap_next(&c->entries, NULL); n != NULL; n = next) {
		struct cache_entry *e = strmap_container_of(n, struct cache_entry, node);

		next = strmap_next(&c->entries, n);
		if (e->job != NULL)
			uv_cancel((uv_req_t *)&e->job->work);
		cache_entry_drop(c, e);
	}
	c->wanted = (struct cache_queue){ 0 };
	c->background = (struct cache_queue){ 0 };
	c->queued = 0;
}

/* Something happened to the file: wait for the quiet period (again). */
void cache_entry_touch(struct cache *c, struct cache_entry *e)
{
	if (e->state == CACHE_LOADING) {
		e->dirty = true;
		return;
	}
	cache_entry_queue_remove(c, e);
	uv_timer_start(&e->timer, cache_entry_timer_cb, c->opts.quiet_ms, 0);
	e->state = CACHE_ARMED;
}

static void cache_entry_timer_cb(uv_timer_t *t)
{
	struct cache_entry *e = t->data;
	struct cache *c = e->cache;

	e->state = CACHE_IDLE;
	cache_entry_queue_add(c, e, e->waiters != NULL, false);
	cache_entry_pump(c);
}

/* ---- loading (worker side) --------------------------------------------- */

/* A file's bytes, to tell an unchanged file on a reload.  Eight bytes a
 * step (-O2 on this project's machine: 0.24 ms a MiB, where FNV-1a a byte
 * a step took 1.31, on every load of every file): each
 * step is a bijection of the state for a given word, so a file that
 * differs in one word always hashes differently. */
static uint64_t cache_entry_hash(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, p + i, n - i);
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 32);
}

static int cache_entry_load_fail(struct cache_load *j, int rc, const char *what)
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
static int cache_entry_read_companion(void *ctx, const char *name, char **buf, size_t *len,
				      char *err, size_t errlen)
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

static void cache_entry_load_work(uv_work_t *w)
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
		j->rc = fd == -ENOENT || fd == -ENOTDIR ? fd
							: cache_entry_load_fail(j, fd, "cannot open");
		return;
	}
	if (j->stat_only) {
		/* Still there, and what it is now; its bytes wait for a load. */
		j->rc = fstat(fd, &st) < 0 ? -errno : S_ISDIR(st.st_mode) ? -EISDIR : 0;
		if (j->rc == 0) {
			scan_stat_from(&j->st, &st);
			j->st_valid = true;
		}
		close(fd);
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
	j->hash = cache_entry_hash((const unsigned char *)buf, len);
	j->hash_valid = true;
	j->load.read_companion = cache_entry_read_companion;
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
			cache_entry_load_fail(j, j->rc, "cannot load");
	}
	free(buf);
	j->elapsed_ns = uv_hrtime() - t0;
}

/* ---- loading (loop side) ----------------------------------------------- */

static int64_t cache_entry_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void cache_entry_load_done(uv_work_t *w, int status);

static int cache_entry_load_start(struct cache *c, struct cache_entry *e, bool wanted)
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
	 * make a new generation and republish every instance for nothing).
	 * An asset not in memory and not failed has nothing to compare with:
	 * wanted, it is parsed; not, its file's identity is all that is
	 * looked at (an evicted asset's change only updates the index). */
	j->forced = e->force;
	j->wanted = wanted || e->force;
	j->was_live = e->asset != NULL;
	j->stat_only = !j->wanted && e->evicted && e->asset == NULL && e->error == NULL &&
		       e->waiters == NULL;
	j->compare_hash = e->force ? e->asset != NULL
				   : e->hash_valid && (e->asset != NULL || e->error != NULL);
	j->companions = e->companions;
	j->prev_hash = e->force ? e->live_hash : e->hash;
	j->work.data = j;
	rc = uv_queue_work(c->loop, &j->work, cache_entry_load_work, cache_entry_load_done);
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
	if (wanted && !j->stat_only)
		c->demand_loads++;
	return 0;
}

void cache_entry_pump(struct cache *c)
{
	size_t slots = c->opts.max_parallel_loads;
	size_t background_slots = slots > 1 ? slots - 1 : 1;

	while (!c->closing && c->root_fd >= 0) {
		struct cache_entry *e;
		bool wanted;
		int rc;

		if (c->wanted.head != NULL && c->running < slots)
			e = c->wanted.head;
		else if (c->background.head != NULL && c->running < background_slots)
			e = c->background.head;
		else
			break;
		wanted = e->q_wanted;
		cache_entry_queue_remove(c, e);
		rc = cache_entry_load_start(c, e, wanted);
		if (rc < 0) {
			/* Out of memory: try again after a quiet period. */
			cache_log(c, LOG_WARNING, "%s: cannot queue a load: %s", e->name,
				  strerror(-rc));
			cache_entry_touch(c, e);
			break;
		}
	}
}

bool cache_entry_touch_readers(struct cache *c, const char *path)
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

void cache_entry_emit(struct cache *c, enum cache_event ev, struct cache_entry *e)
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

static void cache_entry_load_done(uv_work_t *w, int status)
{
	struct cache_load *j = w->data;
	struct cache_entry *e = j->entry;
	struct cache *c = e->cache;
	enum cache_event ev = CACHE_EV_NONE;
	bool dirty, dropped = false, outcome = true, went_live = false, wanted;
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
	if (!j->stat_only)
		c->loads++;
	e->state = CACHE_IDLE;
	dirty = e->dirty;
	e->dirty = false;
	/* Kept in memory whatever the cap: what a request waits for, what
	 * was asked for, a new version of what was in memory. */
	wanted = j->wanted || j->was_live || e->waiters != NULL;
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
		cache_watch_root_check(c);
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
	} else if (j->stat_only) {
		/* The index has the file's new identity; its bytes are read when
		 * it is wanted (an error to open it, too, is found then). */
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
		/* An evicted version loaded again, the same bytes: the same
		 * generation, and no event (only assets.reload is answered).
		 * After a failure was reported, it is a recovery like any. */
		bool restored = e->asset == NULL && e->evicted && e->error == NULL &&
				j->hash == e->live_hash;
		bool first = e->generation == 0;

		e->live_hash = j->hash;
		if (!restored)
			e->generation++;
		free(e->error);
		e->error = NULL;
		e->file_bytes = j->asset->file_bytes;
		e->loaded_at_ns = cache_entry_realtime_ns();
		e->load_ns = j->elapsed_ns;
		cache_mem_set(c, e, j->asset, wanted);
		j->asset = NULL;
		went_live = true;
		ev = restored ? (j->forced ? CACHE_EV_UNCHANGED : CACHE_EV_NONE)
		     : first  ? CACHE_EV_LOADED
			      : CACHE_EV_RELOADED;
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
			cache_entry_queue_add(c, e, true, true);
		else
			cache_entry_touch(c, e);
	}
	if (!dropped && outcome)
		cache_wait_fire(c, e);
	else if (!dropped && e->waiters != NULL && e->state == CACHE_IDLE)
		cache_entry_queue_add(c, e, true, false);   /* wanted during a look */
	asset_unref(j->asset);
	cache_names_clear(&j->read);
	free(j);
	cache_entry_pump(c);
	/* Last: the callback may close the cache (which then waits for this
	 * hold). */
	cache_entry_emit(c, ev, e);
	/* After the event, so that its reader sees the version it reports
	 * (a background load past the cap is dropped here). */
	if (!c->closing && went_live && e->in_map)
		cache_mem_settle(c, e, wanted);
	if (!c->closing)
		cache_ready_check(c);
	/* Last: it may free a closing cache. */
	cache_release(c);
}
