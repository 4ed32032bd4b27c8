/*
 * cache_scan.c - walks of the tree (scan.h) for the cache: asked for by
 * directory and joined (a burst of events is one walk), run one at a time
 * on the thread pool so their findings apply in order, and what each found
 * reconciled with what the cache holds: files loaded, reloaded or checked
 * for removal (cache_entry.c), directories watched and unwatched, and what
 * the log is told once.  The rescan timer asks for these walks (cache.c);
 * the dircheck timer runs one after the quiet period.
 */
#include "daemon/service/cache/cache_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "daemon/service/base/log.h"
#include "daemon/service/base/strmap.h"
#include "daemon/service/cache/asset_path.h"
#include "daemon/service/cache/scan.h"
#include "daemon/service/cache/watcher.h"

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

/* ---- walking and reconciling ------------------------------------------- */

/* The scan root that name lies under, or -1. */
static long cache_scan_root_of(const struct scan_result *r, const char *name)
{
	for (size_t i = 0; i < r->root_count; i++)
		if (asset_path_within(name, r->roots[i]))
			return (long)i;
	return -1;
}

static bool cache_scan_gone_status(int status)
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
	if (cache_scan_gone_status(r->root_status[root]))
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

/* Watches dir, the directory id the walk listed, unless its watch is on
 * that one already.  A watch under the name on another directory (the
 * name was given to a new one) goes first, with those below it.  True if
 * a watch was added: what appeared before it must be walked again. */
static bool cache_scan_watch_listed(struct cache *c, const char *dir, const struct scan_id *id)
{
	if (watcher_watches(c->watcher, dir, id->dev, id->ino))
		return false;
	watcher_remove(c->watcher, dir);
	return cache_watch_dir(c, dir, id) == 0;
}

static void cache_scan_note_drop(struct cache *c, struct cache_note *n)
{
	strmap_remove(&c->notes, &n->node);
	if (n->kind == CACHE_NOTE_UNSERVABLE)
		c->unservable--;
	free(n);
}

void cache_scan_notes_clear(struct cache *c)
{
	struct strmap_node *n, *next;

	for (n = strmap_next(&c->notes, NULL); n != NULL; n = next) {
		next = strmap_next(&c->notes, n);
		cache_scan_note_drop(c, strmap_container_of(n, struct cache_note, node));
	}
}

/* Tells the log once about name (see struct cache_note); true if it was
 * not told already. */
static bool cache_scan_note(struct cache *c, const char *name, enum cache_note_kind kind)
{
	struct strmap_node *sn = strmap_find(&c->notes, name);
	size_t len = strlen(name);
	struct cache_note *n;

	if (sn != NULL) {
		n = strmap_container_of(sn, struct cache_note, node);
		if (n->kind == kind)
			return false;
		cache_scan_note_drop(c, n);
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

static void cache_scan_note_unservable(struct cache *c, const struct scan_unservable *u)
{
	char shown[512];
	bool cut;

	if (!cache_scan_note(c, u->name, CACHE_NOTE_UNSERVABLE))
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
static void cache_scan_notes_prune(struct cache *c, const struct scan_result *r)
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
			cache_scan_note_drop(c, n);
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
		/* Listed: requests find it from now on, before its load. */
		e->indexed = true;
		if (startup) {
			e->startup = true;
			c->startup_pending++;
			cache_entry_queue_add(c, e, false, false);
		} else {
			cache_entry_touch(c, e);
		}
		return;
	}
	e->indexed = true;
	if (e->seen_valid && scan_stat_equal(&e->seen, &f->st))
		return;
	if (e->state == CACHE_IDLE && e->evicted && e->asset == NULL && e->error == NULL &&
	    e->waiters == NULL) {
		/* Evicted, and nobody wants it: the index is all that changes
		 * (the walk proves it is there; its bytes are read when wanted). */
		e->seen = f->st;
		e->seen_valid = true;
		return;
	}
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
			if (cache_scan_watch_listed(c, root, &r->root_id[i])) {
				if (newly_count < CACHE_MAX_SCAN_ROOTS)
					newly[newly_count++] = root;
				else
					newly_overflow = true;
			}
		} else if (cache_scan_gone_status(r->root_status[i])) {
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
			if (cache_scan_note(c, d->name, CACHE_NOTE_TOO_DEEP))
				cache_log(c, LOG_WARNING, "%s/%s: too deep, not watched", c->root_real,
					  d->name);
			continue;
		}
		if (d->status < 0 && cache_scan_note(c, d->name, CACHE_NOTE_UNREADABLE))
			cache_log(c, LOG_WARNING, "%s/%s: cannot read directory: %s", c->root_real,
				  d->name, strerror(-d->status));
		if (d->id.dev == 0 && d->id.ino == 0)
			continue;       /* never opened: nothing to compare a watch with */
		if (cache_scan_watch_listed(c, d->name, &d->id)) {
			if (newly_count < CACHE_MAX_SCAN_ROOTS)
				newly[newly_count++] = d->name;
			else
				newly_overflow = true;
		}
	}
	for (size_t i = 0; i < r->unservable_count; i++)
		cache_scan_note_unservable(c, &r->unservable[i]);
	cache_scan_notes_prune(c, r);
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

static void cache_scan_dircheck_cb(uv_timer_t *t)
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
		 * one has been asked for, and finds what requests want: the
		 * index is what it is.) */
		c->scan_is_startup = false;
		if (startup)
			cache_index_complete(c);
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
		/* What requests wait for goes before the background loads. */
		if (startup)
			cache_index_complete(c);
		cache_entry_pump(c);
		cache_scan_kick(c);
		if (startup && !c->closing)
			cache_ready_check(c);
	}
	/* Last: it may free a closing cache. */
	cache_release(c);
}

static int cache_scan_cmp_str(const void *a, const void *b)
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
		cache_watch_root_check(c);
	if (c->root_fd < 0)
		return;                 /* gone: root_poll walks it when it is back */
	uv_timer_stop(&c->dircheck_timer);
	if (c->scan_full) {
		roots[count++] = "";
	} else {
		/* Sorted, a directory comes right before those below it. */
		qsort(c->scan_roots, c->scan_root_count, sizeof *c->scan_roots, cache_scan_cmp_str);
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
		uv_timer_start(&c->dircheck_timer, cache_scan_dircheck_cb, c->opts.quiet_ms, 0);
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
void cache_scan_request(struct cache *c, const char *dir, enum cache_scan_when when)
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
		uv_timer_start(&c->dircheck_timer, cache_scan_dircheck_cb, c->opts.quiet_ms, 0);
}
