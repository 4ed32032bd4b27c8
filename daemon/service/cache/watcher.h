/*
 * watcher.h - one inotify watch per directory of the asset tree.
 *
 * inotify is not recursive, so the cache asks for one watch per directory
 * and adds and removes them as directories come and go.  The watcher only
 * reports; it never reads the disk beyond inotify_add_watch(2) and a stat
 * of the directory it adds.
 *
 * A watch is on a directory, not on a name: inotify keeps watching the
 * directory it was given when the directory is renamed, and the name may
 * meanwhile be given to another one (`mv sub sub.old && mv new sub`, a
 * `git checkout`, `rm -r sub && mkdir sub`).  So each watch is keyed by
 * its watch descriptor and knows its directory's identity (device and
 * inode, from the walk that listed it); when inotify says the directory
 * itself moved, was deleted or is no longer watched (IN_MOVE_SELF,
 * IN_DELETE_SELF, IN_IGNORED), its watch and every watch below it are
 * dropped at once - their names no longer say where those directories are
 * - and the name is reported, so that the caller walks it again.
 *
 * What an event means is left to the caller: inotify's masks are folded
 * as libuv folds them, UV_CHANGE for content or attributes, UV_RENAME for
 * everything else (create, delete, move in or out, the directory itself).
 * A queue overflow (the kernel dropped events, of any folder) is reported
 * once as status UV_ENOBUFS on path "": what was lost can only be found
 * by walking the tree again.
 */
#ifndef ANIMD_WATCHER_H
#define ANIMD_WATCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

struct watcher;

/* Called on the loop thread.  path: the name the event is about, relative
 * to the root ("dir/file", or "file" in the root itself; raw bytes, as the
 * directory holds them).  events: UV_RENAME and/or UV_CHANGE; a watched
 * directory that went from its name is reported as UV_RENAME of its own
 * name ("" for the root), its watches already dropped.  status: 0, or a
 * libuv error for the directory dir (then path is dir and events is 0). */
typedef void (*watcher_event_cb)(struct watcher *w, const char *path, int events, int status,
				 void *data);

/* root: an absolute directory path, copied.  0 or negative errno. */
int watcher_new(uv_loop_t *loop, const char *root, watcher_event_cb cb, void *data,
		struct watcher **out);

/* Starts watching directory dir (relative to the root; "" is the root),
 * which must be the directory (dev, ino): the one the caller listed.
 * 0, -EEXIST if dir is already watched, -ESTALE if the directory at dir is
 * not (dev, ino) any more (nothing is watched: walk it again), or a
 * negative errno (-ENOENT: gone; -ENOSPC: the inotify watch limit). */
int watcher_add(struct watcher *w, const char *dir, uint64_t dev, uint64_t ino);

bool watcher_has(const struct watcher *w, const char *dir);

/* True if dir is watched and its watch is on the directory (dev, ino). */
bool watcher_watches(const struct watcher *w, const char *dir, uint64_t dev, uint64_t ino);

/* Stops watching dir and every directory below it.  Returns how many
 * watches were stopped. */
size_t watcher_remove(struct watcher *w, const char *dir);

/* Number of directories watched. */
size_t watcher_count(const struct watcher *w);

/* Iteration over the watched directories, in no order: pass NULL for the
 * first; NULL at the end.  Do not add or remove while iterating. */
const char *watcher_next(const struct watcher *w, const char *prev);

/* Closes every watch; close_cb(data) runs (from a libuv close callback)
 * once all are closed, and the watcher is freed right after it.  No event
 * is reported once this is called.  NULL w is allowed (nothing happens,
 * close_cb is not called). */
void watcher_close(struct watcher *w, void (*close_cb)(void *data), void *data);

#endif
