/*
 * root_watch.h - notice the asset root itself being deleted, moved away,
 * replaced or made again, by watching the directory that holds it.
 *
 * Why not the root's own watch: inotify reports IN_DELETE_SELF only when
 * the directory's inode goes, and the cache holds the root open (O_PATH,
 * for openat2 RESOLVE_BENEATH), so deleting the root is never reported on
 * its own watch.  The parent's watch names the root's entry being removed,
 * renamed or created, whatever holds the old directory open.
 *
 * The callback only says "look again"; the cache decides what changed
 * (cache_watch_root_check).  A root at "/" has no parent and is never
 * reported.
 */
#ifndef ANIMD_ROOT_WATCH_H
#define ANIMD_ROOT_WATCH_H

#include <uv.h>

struct root_watch;

typedef void (*root_watch_cb)(void *data);

/* Watches the parent of root_real (absolute, copied).  0, or a negative
 * errno (the caller carries on without it: rescans still notice). */
int root_watch_new(uv_loop_t *loop, const char *root_real, root_watch_cb cb, void *data,
		   struct root_watch **out);

/* Stops; close_cb(data) runs from a libuv close callback once the handle
 * is closed, and the root_watch is freed right before it.  NULL rw calls
 * nothing. */
void root_watch_close(struct root_watch *rw, void (*close_cb)(void *data), void *data);

#endif
