/*
 * cache_watch.c - what the watchers say, for the cache: an event under the
 * root (watcher.h) touches the entry it names, makes one for a new asset,
 * or asks for a walk of what only a walk can tell; a directory's watch is
 * added here; and the root's own watch (root_watch.h) and every full walk
 * look at the root itself: gone (every asset removed, the path polled),
 * back, or swapped for another directory (watched and walked again).
 */
#include "daemon/service/cache/cache_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "daemon/service/base/strmap.h"
#include "daemon/service/cache/asset_path.h"
#include "daemon/service/cache/watcher.h"

int cache_watch_dir(struct cache *c, const char *dir, const struct scan_id *id)
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

/* ---- the root itself ---------------------------------------------------- */

/* How often a root that is gone is looked for again. */
#define CACHE_ROOT_POLL_MS 1000

static void cache_watch_root_poll_cb(uv_timer_t *t)
{
	cache_watch_root_check(t->data);
}

void cache_watch_root_cb(void *data)
{
	cache_watch_root_check(data);
}

/* The root directory is gone (deleted, or moved away: root_fd would still
 * reach it, but it is not at the path served any more).  Its files cannot
 * be served: every asset is removed, and the path is polled for a new
 * directory. */
static void cache_watch_root_gone(struct cache *c, int why)
{
	struct strmap_node *n, *next;
	struct cache_entry **gone;
	size_t count = 0;

	close(c->root_fd);
	c->root_fd = -1;
	c->root_gen++;
	watcher_remove(c->watcher, "");
	cache_scan_notes_clear(c);
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
	uv_timer_start(&c->root_poll, cache_watch_root_poll_cb, CACHE_ROOT_POLL_MS,
		       CACHE_ROOT_POLL_MS);
	for (size_t i = 0; i < count && !c->closing; i++)
		cache_entry_emit(c, CACHE_EV_REMOVED, gone[i]);
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
void cache_watch_root_check(struct cache *c)
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
			cache_watch_root_gone(c, why);
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
	cache_scan_notes_clear(c);
	id.dev = (uint64_t)st.st_dev;
	id.ino = (uint64_t)st.st_ino;
	cache_watch_dir(c, "", &id);
	cache_scan_request(c, "", CACHE_SCAN_NOW);
	cache_entry_pump(c);
}

/* ---- watcher events ---------------------------------------------------- */

/* The entry of the model a companion file belongs to ("dir/NAME.m2" for
 * "dir/NAME00.skin"), whichever case its extension has, or NULL. */
static struct cache_entry *cache_watch_companion_owner(struct cache *c, const char *path)
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

void cache_watch_on_event(struct watcher *w, const char *path, int events, int status,
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
		cache_watch_root_check(c);
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
	e = cache_watch_companion_owner(c, path);
	if (e != NULL) {
		cache_entry_touch(c, e);
		return;
	}
	/* A file an entry's last load read (a glTF's .bin, whatever its name):
	 * each such entry reloads. */
	if (cache_entry_touch_readers(c, path))
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
