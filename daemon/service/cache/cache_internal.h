/*
 * cache_internal.h - what the parts of the asset cache share, internal to
 * daemon/service/cache: the cache, its entries, and the functions one
 * part calls in another.  cache.h is the public API.
 *
 *   cache.c        the cache's life (new, start, timing, close), its public
 *                  queries (get, list, list_page, stats, resolve, root),
 *                  reload and rescan requests, the log, the start-up summary
 *   cache_entry.c  the table and its loads: entries (find, new, drop, touch,
 *                  their quiet-period timers), the load queue, the loads on
 *                  the thread pool (work and done), the events they end in
 *   cache_scan.c   walks of the tree (scan.h): asked for, run one at a time,
 *                  and what each found reconciled with the table (files,
 *                  directories and their watches, the notes told once)
 *   cache_watch.c  the watcher's events (watcher.h), a directory's watch,
 *                  and the root's own: gone, back, or swapped
 *   cache_wait.c   names wanted by requests: waiters on the index and on
 *                  entries, called when what they wait for has an outcome
 *   cache_mem.c    what is in memory: the live versions' total, the least
 *                  recently used order, the cap and its evictions
 *
 * The seam: cache_entry.c holds the table and its loads, and knows of
 * walks and watches only two requests a load's outcome makes (a walk of a
 * name that turned out to be a directory, a look at the root when a file
 * vanished).
 * The others reach the table through cache_entry_find, _new, _touch,
 * _queue_add and _drop; a walk also compares the file identity an entry
 * last saw, and marks a loading entry dirty.
 *
 * Everything here runs on the loop thread, but a load's work on the thread
 * pool, which reads its job alone (cache_entry.c).
 */
#ifndef ANIMD_CACHE_INTERNAL_H
#define ANIMD_CACHE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <uv.h>

#include "daemon/service/base/strmap.h"
#include "daemon/service/base/strorder.h"
#include "daemon/service/cache/cache.h"
#include "daemon/service/cache/scan.h"

struct root_watch;
struct watcher;

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
struct cache_entry;

/* A load queue: background loads, or those wanted by requests (first). */
struct cache_queue {
	struct cache_entry *head, *tail;
	size_t count;
};

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
	bool q_wanted;                  /* queued in c->wanted, not c->background */

	/* Indexed: a walk listed the file, or a load reached it; what users
	 * may see (cache_entry_visible).  Evicted: a good version (generation,
	 * live_hash) is not in memory for the cap, and loads again when
	 * wanted. */
	bool indexed;
	bool evicted;
	struct cache_waiter *waiters;   /* requests waiting for its outcome */
	/* In memory (asset != NULL): its place in c->lru and its bytes
	 * (asset->memory.total); evicted: the bytes it took. */
	struct cache_entry *lru_prev, *lru_next;
	uint64_t mem_bytes;
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

	struct cache_queue wanted, background;
	size_t queued, running;
	uint64_t demand_loads;          /* loads started from c->wanted */

	/* cache_wait.c: requests waiting for the start-up walk. */
	bool indexed;
	struct cache_waiter *index_waiters;

	/* cache_mem.c: what is in memory. */
	uint64_t max_memory;            /* 0: no cap */
	uint64_t mem_total;             /* the live versions' memory.total */
	uint64_t evicted_bytes;         /* what the evicted versions took */
	struct cache_entry *lru_head, *lru_tail;        /* least recently used first */
	size_t resident;
	uint64_t evictions, dropped;
	bool cap_reached;               /* told to the log; until everything fits again */
	bool over_cap;                  /* in use alone is over the cap; told to the log */
	uv_timer_t cap_timer;           /* while over the cap: is less in use now? */

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

/* What cache_entry_emit reports about an entry. */
enum cache_event { CACHE_EV_NONE, CACHE_EV_LOADED, CACHE_EV_RELOADED, CACHE_EV_ERROR,
		   CACHE_EV_REMOVED, CACHE_EV_UNCHANGED };

/* ---- cache.c ------------------------------------------------------------ */

/* Hands message to the log callback, if there is one (cut to
 * CACHE_ERR_MAX + 128 bytes). */
void cache_log(struct cache *c, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Gives back one of c->holds; the last one a closing cache gives back frees
 * it, so nothing may touch c after this call. */
void cache_release(struct cache *c);

/* Calls the ready callback, once, when the start-up walk and every load it
 * started have an outcome; until then, nothing. */
void cache_ready_check(struct cache *c);

/* The start-up walk is over (reconciled, or given up for a root replaced
 * meanwhile): the index is complete; waiters on it are served and the
 * `indexed` event reports it.  Once. */
void cache_index_complete(struct cache *c);

/* ---- cache_entry.c ------------------------------------------------------ */

/* True if the entry is indexed, or has a live version or an error: what
 * users may see. */
bool cache_entry_visible(const struct cache_entry *e);

/* Its public state (cache.h). */
enum cache_asset_state cache_entry_asset_state(const struct cache_entry *e);

/* The entry named name in the table, or NULL. */
struct cache_entry *cache_entry_find(struct cache *c, const char *name);

/* A new idle entry for name, in the table; NULL without memory. */
struct cache_entry *cache_entry_new(struct cache *c, const char *name);

/* Takes e out of the table and the queue and closes its timer; its name
 * stays valid until that closes, e is freed once its load is done too. */
void cache_entry_drop(struct cache *c, struct cache_entry *e);

/* For cache_close: cancels the loads not yet running and drops every
 * entry, leaving the queue empty. */
void cache_entry_drop_all(struct cache *c);

/* Something happened to e's file: (re)starts its quiet period, or marks a
 * running load dirty (another follows it). */
void cache_entry_touch(struct cache *c, struct cache_entry *e);

/* Puts e in a load queue now: the wanted one (before every background
 * load) or the background one, at its front (a forced reload) or back;
 * cache_entry_pump starts it.  A wanted entry stays in the wanted queue. */
void cache_entry_queue_add(struct cache *c, struct cache_entry *e, bool wanted, bool front);

/* Starts queued loads while a slot is free and the root is there: wanted
 * ones in every slot, background ones in all but one. */
void cache_entry_pump(struct cache *c);

/* Touches every entry whose last load read path (a glTF's .bin, found or
 * not); whether there was one.  A walk of the entries: events on files
 * that are no asset are few. */
bool cache_entry_touch_readers(struct cache *c, const char *path);

/* Calls the event callback for ev about e, if set; it may close the cache. */
void cache_entry_emit(struct cache *c, enum cache_event ev, struct cache_entry *e);

/* ---- cache_wait.c ------------------------------------------------------- */

/* Calls every waiter of e: with its asset if it has one, else NULL (the
 * load failed, or e is going).  Waiters added meanwhile wait on. */
void cache_wait_fire(struct cache *c, struct cache_entry *e);

/* The start-up walk is reconciled: the index is complete.  Waiters on the
 * index wait on for a load, or are called. */
void cache_wait_indexed(struct cache *c);

/* For cache_close: every waiter on the index is called with NULL (those
 * on entries are, as their entries are dropped). */
void cache_wait_close(struct cache *c);

/* ---- cache_mem.c -------------------------------------------------------- */

/* The live version of e becomes a (or NULL): the old one is unref'd, the
 * total and the least recently used order follow.  A new version takes
 * the old one's place in that order, or comes first (least recent) for
 * a background load, last for one that was wanted. */
void cache_mem_set(struct cache *c, struct cache_entry *e, struct asset *a, bool wanted);

/* A request uses e: it becomes the most recently used. */
void cache_mem_touch(struct cache *c, struct cache_entry *e);

/* After a load made e live (or NULL: after the cap changed, or for the
 * periodic look while over it): back under the cap.  A background load
 * (not wanted) over it is dropped itself; otherwise the least recently
 * used assets nobody holds are evicted, e spared.  What is in use alone
 * may stay over: then the log says so once, and a timer looks again. */
void cache_mem_settle(struct cache *c, struct cache_entry *e, bool wanted);

/* e leaves the table (removed, or the root gone): its bytes, whether live
 * or evicted, are no longer counted. */
void cache_mem_forget(struct cache *c, struct cache_entry *e);

/* ---- cache_scan.c ------------------------------------------------------- */

/* Asks for a walk of dir ("" the whole tree), joined with those waiting:
 * started now, after the quiet period, or with the next walk (when). */
void cache_scan_request(struct cache *c, const char *dir, enum cache_scan_when when);

/* Forgets what the log was told once (a walk tells it again if still true). */
void cache_scan_notes_clear(struct cache *c);

/* ---- cache_watch.c ------------------------------------------------------ */

/* Watches dir, the directory id; the watch limit is told to the log once,
 * a name another directory took since the walk is walked again.  0 or a
 * negative errno (-EEXIST: watched already). */
int cache_watch_dir(struct cache *c, const char *dir, const struct scan_id *id);

/* Is the root's path still the directory root_fd holds?  If gone, every
 * asset is removed and the path polled; if back or swapped, it is watched
 * and walked again. */
void cache_watch_root_check(struct cache *c);

/* root_watch_cb: the root's entry in its parent changed. */
void cache_watch_root_cb(void *data);

/* watcher_event_cb: something under the root changed. */
void cache_watch_on_event(struct watcher *w, const char *path, int events, int status,
			  void *data);

#endif
