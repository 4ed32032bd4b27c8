/*
 * cache.h - the asset cache and hot reload.
 *
 * The cache owns every asset loaded from the asset root.  An asset is named
 * by its path relative to the root with '/' separators ("chars/walk.md5anim").
 * Only files whose format asset_detect() recognises are assets; hidden and
 * editor-temporary names (asset_path_ignored) are not, until renamed to a
 * real name.  Nor are names that are not text (asset_path_unservable):
 * never loaded nor reported, they are counted (cache_stats.unservable) and
 * told to `log` once per name, as is a directory too deep to watch.
 *
 * Life of an entry:
 *  - cache_start walks the tree on the thread pool (names and file
 *    identities only: no file is read) and indexes every asset it lists:
 *    from then on cache_get knows every name (state `loading` until its
 *    first load), and `indexed` reports it.  Then every asset is loaded
 *    in the background, a few at a time, and a summary is reported.
 *  - A request may want a name (cache_want): an asset not in memory is
 *    loaded ahead of the background queue (one load slot is kept for
 *    these), and the waiter is called when the load has an outcome.
 *  - One watch per directory (inotify is not recursive); directories
 *    created later are found and watched, removed ones unwatched, and one
 *    replaced under its name watched afresh (watcher.h).  Each event about a file (re)arms that file's quiet-period
 *    timer; when the timer fires the file is read and parsed on the thread
 *    pool.  Never two loads of one file at once: an event during a load
 *    marks it dirty and the timer is re-armed when the load completes, so
 *    results are applied in order.
 *  - Success: the new asset replaces the old in one step on the loop
 *    thread; the generation goes up by one; the old asset is unref'd (anyone
 *    who took a reference keeps a valid, unchanged asset).  Event `loaded`
 *    the first time a name has a good version, `reloaded` afterwards.
 *  - Failure: the last good version stays live, the generation is
 *    unchanged, the error ("name:line:col: error: ...", as asset_load_*
 *    writes it) is kept and reported (`error`); the next good save recovers
 *    (`reloaded`, or `loaded` if there never was a good version).
 *  - The file is gone when its timer fires: the entry is removed (`removed`).
 *    A delete and re-create within the quiet period is one reload.
 *  - Bytes identical to the last attempt's (a touch, a chmod, a save
 *    without changes) are not parsed again and send no event, except that a
 *    still-broken file reports its error again.  cache_reload always reads
 *    the file, and parses it unless its bytes are the live version's
 *    (`unchanged`: nothing is swapped, nothing republished).
 *  - A periodic rescan (and cache_rescan) walks the tree again and compares
 *    (size, mtime, inode) with the last load of each file, to catch what
 *    the watcher missed (it does not report inotify's queue overflows).
 *  - The memory cap (cache_options.max_memory, cache_mem.c): a load that
 *    would take the live versions past it evicts the least recently used
 *    assets that nobody holds (asset->refs == 1: no instance plays it, no
 *    request has pinned it); an evicted asset stays indexed and watched
 *    (state `evicted`), a change to its file only updates the index, and
 *    it loads again when wanted, with its generation unchanged when its
 *    bytes are.  A background load past the cap is still parsed (broken
 *    files are found and reported early) but its result is dropped at
 *    once instead of evicting anything: it is evicted too.
 *
 * Threads: every function here runs on the loop thread; the loop never
 * blocks on disk or parsing, except cache_new (realpath and open of the
 * root) and cache_resolve (realpath: metadata only).  Asset references
 * (asset_ref / asset_unref) are taken and dropped on the loop thread.
 *
 * Nothing here prints: everything worth logging arrives through the
 * callbacks.
 */
#ifndef ANIMD_CACHE_H
#define ANIMD_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/assets/asset.h"

#define CACHE_DEFAULT_QUIET_MS 100
#define CACHE_DEFAULT_MAX_PARALLEL_LOADS 4

struct cache;
struct cache_summary;

/* Event callbacks, all optional (NULL to ignore), all called on the loop
 * thread with the cache_options data.  Names and messages are valid during
 * the call only.  The asset events may call any cache function, including
 * cache_close; `log` must not call cache_close. */
struct cache_events {
	/* name has its first good version, numbered generation (1 unless it
	 * was removed and re-created, which starts again at 1). */
	void (*loaded)(struct cache *c, const char *name, uint64_t generation, void *data);
	/* A new version of name is live. */
	void (*reloaded)(struct cache *c, const char *name, uint64_t generation, void *data);
	/* Loading name failed; message is one line, "name:line:col: error: ..."
	 * for parse errors, "name: error: ..." for the others.  Any previous
	 * good version stays live. */
	void (*error)(struct cache *c, const char *name, const char *message, void *data);
	/* name is gone from the tree and from the cache. */
	void (*removed)(struct cache *c, const char *name, void *data);
	/* cache_reload found the live version's bytes: generation stays. */
	void (*unchanged)(struct cache *c, const char *name, uint64_t generation, void *data);
	/* Operational notes for the service's log: level is a syslog priority
	 * (LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG). */
	void (*log)(struct cache *c, int level, const char *message, void *data);
	/* The start-up walk is over: every name it listed is indexed (files
	 * and directories of the summary; loaded and failed are 0).  Once,
	 * before any load it queued has finished. */
	void (*indexed)(struct cache *c, const struct cache_summary *s, void *data);
};

struct cache_options {
	const char *root;               /* the asset root directory */
	unsigned quiet_ms;              /* per-file quiet period; 0: CACHE_DEFAULT_QUIET_MS */
	unsigned rescan_interval_s;     /* periodic rescan; 0: none */
	size_t max_asset_bytes;         /* 0: ASSET_DEFAULT_MAX_BYTES */
	struct asset_options load;      /* what every load is told */
	unsigned max_parallel_loads;    /* 0: CACHE_DEFAULT_MAX_PARALLEL_LOADS;
					   background loads take all but one */
	uint64_t max_memory;            /* the live versions' memory.total; 0: no cap */
	struct cache_events events;
	void *data;                     /* passed to every callback */
};

/* Where an indexed asset is (PROTOCOL.md, assets.list's `state`). */
enum cache_asset_state {
	CACHE_ASSET_LOADING,            /* indexed, no outcome yet: never loaded */
	CACHE_ASSET_OK,                 /* a good version is in memory */
	CACHE_ASSET_FAILED,             /* no good version in memory, the last
					   attempt failed (error) */
	CACHE_ASSET_EVICTED,            /* a good version was dropped for the memory
					   cap: it loads again when wanted */
	CACHE_ASSET_STATE_COUNT
};

/* "loading", "ok", "failed", "evicted". */
const char *cache_asset_state_name(enum cache_asset_state st);

/* What the cache knows of one asset.  Pointers are borrowed: valid until
 * control returns to the loop (the next swap may drop the asset; take a
 * reference with asset_ref to keep it). */
struct cache_info {
	const char *name;
	struct asset *asset;            /* the live version; NULL if none loaded yet */
	uint64_t generation;            /* of the live version; 0 if none */
	const char *error;              /* the last attempt's error; NULL if it loaded */
	uint64_t file_bytes;            /* size of the live version's file */
	int64_t loaded_at_ns;           /* CLOCK_REALTIME when it went live */
	uint64_t load_ns;               /* how long reading and parsing it took */
	bool pending;                   /* a reload is waiting or running */
	enum cache_asset_state state;
};

/* Start-up summary, for the log and before announcing readiness. */
struct cache_summary {
	int status;                     /* 0, or a negative errno if the walk was
					   incomplete (root unreadable, limits) */
	uint32_t files;                 /* asset files found */
	uint32_t loaded;
	uint32_t failed;
	uint32_t directories;           /* directories watched */
	uint64_t elapsed_ns;            /* from cache_start to the last load */
};

struct cache_stats {
	size_t assets;                  /* names listed by cache_list */
	size_t failing;                 /* of which the last attempt failed */
	size_t directories;             /* directories watched */
	size_t unservable;              /* names not served (asset_path_unservable):
					   files that would be assets, and folders */
	size_t loads_running;
	size_t loads_waiting;           /* quiet period or a free worker */
	bool walking;                   /* a walk is running or waiting */
	uint64_t scans;                 /* walks completed */
	uint64_t loads;                 /* parses completed, good or bad */
	size_t states[CACHE_ASSET_STATE_COUNT]; /* the listed assets by state */
	bool indexed;                   /* the start-up walk is over */
	uint64_t demand_loads;          /* loads started because a name was wanted */
	uint64_t evictions;             /* good versions evicted for the cap */
	uint64_t dropped;               /* background loads past the cap, dropped */
	uint64_t max_memory;            /* the cap in force; 0: none */
	bool over_cap;                  /* memory.total is over the cap: what is in
					   use alone exceeds it */
	/* The live versions' memory (struct asset_memory, summed) and the
	 * same totals by format (indexed by enum asset_format).  Versions
	 * the cache has replaced but an instance still plays are not in it. */
	struct asset_memory memory;
	uint64_t format_bytes[ASSET_FORMAT_COUNT];
};

typedef void (*cache_ready_cb)(struct cache *c, const struct cache_summary *s, void *data);

/* Creates a cache over opts->root (resolved with realpath now; it must be a
 * directory).  Nothing is read or watched until cache_start.  Returns 0, or
 * a negative errno with a one-line reason in err.  A cache, once created,
 * is released only by cache_close. */
int cache_new(uv_loop_t *loop, const struct cache_options *opts, struct cache **out, char *err,
	      size_t errlen);

/* Watches the root, walks the tree and loads every asset.  ready(summary)
 * is called once, when the walk and every load it started have completed
 * (asset events fire for each file before it).  Never called if the cache
 * is closed first.  0, -EALREADY, or a negative errno. */
int cache_start(struct cache *c, cache_ready_cb ready);

/* The live state of name (exact, as listed).  0, or -ENOENT if the cache
 * has no such asset (not in the index: never seen, removed, or a new file
 * the watcher reported whose first load has not ended), or -EAGAIN if the
 * start-up walk is not over (the index is not complete: ask cache_want). */
int cache_get(struct cache *c, const char *name, struct cache_info *out);

/* cache_get for a request about to use the asset: an asset in memory
 * becomes the most recently used (the memory cap evicts the least). */
int cache_use(struct cache *c, const char *name, struct cache_info *out);

/* True once the start-up walk is over (cache_events.indexed). */
bool cache_indexed(const struct cache *c);

/*
 * Waiting for a name.  A waiter is the caller's memory (its fields are the
 * cache's); it is called once, on the loop thread, from a cache callback:
 * with the asset when a load left name in memory (the callback may
 * asset_ref it, which keeps it from eviction), or with NULL when the name
 * has an outcome without one (it failed, is gone, is not in the index), or
 * the cache closes.  The callback may call any cache function but
 * cache_close.
 */
struct cache_waiter;
typedef void (*cache_wait_cb)(struct cache_waiter *w, struct asset *asset, void *data);

struct cache_waiter {
	struct cache_waiter *next, **pprev;     /* the cache's */
	const char *name;                       /* borrowed until called or unwanted */
	cache_wait_cb cb;
	void *data;
};

/*
 * Wants name (NULL: the index only) in memory.  Returns 0 when there is
 * nothing to wait for: cache_get answers now (the asset is in memory, or
 * failed, or the index is complete and does not hold the name); 1 when w
 * waits: the start-up walk is not over, or the asset is indexed and not in
 * memory, and is now being loaded ahead of the background queue (or its
 * load, or its quiet period, is under way); or a negative errno (w does
 * not wait).  name must stay valid while w waits.
 */
int cache_want(struct cache *c, const char *name, struct cache_waiter *w, cache_wait_cb cb,
	       void *data);

/* Stops w waiting (nothing if it does not). */
void cache_unwant(struct cache *c, struct cache_waiter *w);

/* Every asset the index holds, sorted by name, in a
 * malloc'd array the caller frees with free() (NULL if there are none).
 * The entries' pointers are borrowed as for cache_get.  0 or -ENOMEM. */
int cache_list(struct cache *c, struct cache_info **out, size_t *count);

/* A page of that list: up to max assets whose names sort after `after`
 * (strcmp order; NULL or "" for the first page), in that order, into
 * out[0..*count); *more says whether any follow the last one.  Paging by
 * name is what keeps a listing right while assets come and go: an asset
 * present from the first page to the last is listed exactly once, one
 * added meanwhile is listed if its name comes after the page it arrived
 * behind.  Costs the page, not the table (strorder.h).  Pointers borrowed
 * as for cache_get.  0 or -ENOMEM. */
int cache_list_page(struct cache *c, const char *after, struct cache_info *out, size_t max,
		    size_t *count, bool *more);

/* Reads and parses name now (no quiet period, even if unchanged), for the
 * assets.reload request; the outcome always arrives through one of the
 * usual events (loaded, reloaded, error, removed).  If a load of name is
 * running, another follows it.  0, or -ENOENT if cache_get does not know
 * name (see cache_rescan for files the cache has not seen). */
int cache_reload(struct cache *c, const char *name);

/* Walks the whole tree again now and reconciles: new files are loaded,
 * changed ones reloaded, vanished ones removed, directories (un)watched.
 * Coalesced with a walk already under way. */
int cache_rescan(struct cache *c);

/* For names from requests (also `mesh` arguments): name is len bytes,
 * untrusted.  Refuses an empty name, NUL bytes, empty, "." components
 * (-EINVAL), absolute names, ".." components, and anything whose realpath
 * (symlinks resolved) is not inside the root's (-EACCES); -ENOENT if it
 * does not exist.  On 0, out holds the absolute resolved path; otherwise
 * err holds a one-line reason.  Blocks on metadata lookups (realpath). */
int cache_resolve(const struct cache *c, const char *name, size_t len, char *out, size_t size,
		  char *err, size_t errlen);

/* SIGHUP: a new quiet period and rescan interval (0 = no periodic rescan),
 * used from the next timer armed on. */
void cache_set_timing(struct cache *c, unsigned quiet_ms, unsigned rescan_interval_s);

/* SIGHUP: a new memory cap (0: none), in force at once (a lower one
 * evicts what it can now). */
void cache_set_max_memory(struct cache *c, uint64_t max_memory);

/* The realpath of the asset root. */
const char *cache_root(const struct cache *c);

void cache_stats(const struct cache *c, struct cache_stats *out);

/* Stops everything: no event or ready callback after this call (waiters
 * are called, with NULL, during it).  Closes
 * every handle (timers, watches), waits for loads and walks already running
 * on the thread pool, then calls close_cb(data) from a libuv callback and
 * frees the cache and the assets it holds (references taken with asset_ref
 * stay valid).  NULL c does nothing. */
void cache_close(struct cache *c, void (*close_cb)(void *data));

#endif
