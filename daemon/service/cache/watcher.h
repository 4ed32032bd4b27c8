/*
 * watcher.h - one uv_fs_event_t per directory of the asset tree.
 *
 * libuv's Linux watcher (inotify) is not recursive, so the cache asks for
 * one watch per directory and adds and removes them as directories come
 * and go.  The watcher only reports; it never reads the disk beyond the
 * inotify_add_watch(2) inside uv_fs_event_start.
 *
 * What an event means is left to the caller: libuv folds inotify's masks
 * into UV_CHANGE (content or attributes) and UV_RENAME (everything else:
 * create, delete, move in or out, and the watched directory itself being
 * deleted or moved, reported under the directory's own base name).  It
 * does not say whether the name is a file or a directory, and it drops
 * queue overflows silently (hence the cache's rescan).
 */
#ifndef ANIMD_WATCHER_H
#define ANIMD_WATCHER_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

struct watcher;

/* Called on the loop thread.  path: the name the event is about, relative
 * to the root ("dir/file", or "file" in the root itself).  events: UV_RENAME
 * and/or UV_CHANGE.  status: 0, or a libuv error for the directory dir (then
 * path is dir and events is 0). */
typedef void (*watcher_event_cb)(struct watcher *w, const char *path, int events, int status,
				 void *data);

/* root: an absolute directory path, copied.  0 or negative errno. */
int watcher_new(uv_loop_t *loop, const char *root, watcher_event_cb cb, void *data,
		struct watcher **out);

/* Starts watching directory dir (relative to the root; "" is the root).
 * 0, -EEXIST if it is already watched, or a negative errno from libuv
 * (-ENOENT: gone; -ENOSPC: the inotify watch limit). */
int watcher_add(struct watcher *w, const char *dir);

bool watcher_has(const struct watcher *w, const char *dir);

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
