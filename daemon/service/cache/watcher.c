#include "daemon/service/cache/watcher.h"

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/service/base/strmap.h"
#include "daemon/service/cache/asset_path.h"

/* Names created, deleted, moved in or out and changed, the directory
 * itself moved or deleted; a directory only, never through a symlink (the
 * walk does not follow them either). */
#define WATCHER_MASK                                                                    \
	(IN_ATTRIB | IN_CREATE | IN_MODIFY | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | \
	 IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR | IN_DONT_FOLLOW)

struct watch {
	struct strmap_node by_name;
	struct strmap_node by_wd;
	int wd;
	uint64_t dev, ino;              /* the directory watched */
	char wd_key[16];                /* wd in decimal: the key of by_wd */
	char name[];                    /* relative to the root */
};

/* How many watches are strictly below a name (watched or not): a removal
 * that finds nothing there, as every new directory's at start does, costs
 * one lookup instead of a pass over every watch, which made a start on a
 * tree of N folders take N^2 steps. */
struct watch_below {
	struct strmap_node node;
	size_t count;
	char name[];
};

struct watcher {
	uv_loop_t *loop;
	char *root;
	int fd;                         /* the inotify instance */
	uv_poll_t poll;
	watcher_event_cb cb;
	void *data;
	struct strmap dirs;             /* name -> struct watch */
	struct strmap wds;              /* wd_key -> struct watch */
	struct strmap below;            /* name -> struct watch_below, where nonzero */
	bool below_unknown;             /* a count could not be kept: never trust them */
	int closing;
	void (*close_cb)(void *data);
	void *close_data;
};

static struct watch *watcher_find(const struct watcher *w, const char *dir)
{
	struct strmap_node *n = strmap_find(&w->dirs, dir);

	return n != NULL ? strmap_container_of(n, struct watch, by_name) : NULL;
}

static struct watch *watcher_find_wd(const struct watcher *w, int wd)
{
	char key[16];
	struct strmap_node *n;

	snprintf(key, sizeof key, "%d", wd);
	n = strmap_find(&w->wds, key);
	return n != NULL ? strmap_container_of(n, struct watch, by_wd) : NULL;
}

static size_t watcher_below(const struct watcher *w, const char *dir)
{
	struct strmap_node *n = strmap_find(&w->below, dir);

	return n != NULL ? strmap_container_of(n, struct watch_below, node)->count : 0;
}

/* A watch of dir comes (+1) or goes (-1): every name above it counts it. */
static void watcher_count_below(struct watcher *w, const char *dir, int delta)
{
	char up[ASSET_PATH_MAX + 1];

	if (dir[0] == '\0' || snprintf(up, sizeof up, "%s", dir) >= (int)sizeof up) {
		if (dir[0] != '\0')
			w->below_unknown = true;
		return;
	}
	do {
		struct strmap_node *n;
		struct watch_below *b;
		size_t len;

		if (asset_path_parent(up, up, sizeof up) < 0) {
			w->below_unknown = true;
			return;
		}
		n = strmap_find(&w->below, up);
		if (n == NULL && delta > 0) {
			len = strlen(up);
			b = calloc(1, sizeof *b + len + 1);
			if (b == NULL) {
				w->below_unknown = true;
				return;
			}
			memcpy(b->name, up, len + 1);
			strmap_insert(&w->below, &b->node, b->name);
			n = &b->node;
		}
		if (n == NULL)
			continue;
		b = strmap_container_of(n, struct watch_below, node);
		if (delta > 0) {
			b->count++;
		} else if (--b->count == 0) {
			strmap_remove(&w->below, &b->node);
			free(b);
		}
	} while (up[0] != '\0');
}

/* Forgets a watch; rm: also tell the kernel (not when it has dropped the
 * watch itself, or when the descriptor now belongs to another record). */
static void watcher_stop(struct watcher *w, struct watch *wa, bool rm)
{
	strmap_remove(&w->dirs, &wa->by_name);
	strmap_remove(&w->wds, &wa->by_wd);
	watcher_count_below(w, wa->name, -1);
	if (rm)
		inotify_rm_watch(w->fd, wa->wd);
	free(wa);
}

/* Stops dir and every watch below it, except that the descriptor keep_wd
 * (-1: none) stays with the kernel. */
static size_t watcher_remove_except(struct watcher *w, const char *dir, int keep_wd)
{
	struct watch *self = watcher_find(w, dir);
	size_t below = watcher_below(w, dir), removed = 0, total;
	struct strmap_node *n, *next;

	total = below + (self != NULL);
	if (!w->below_unknown && below == 0) {
		if (self != NULL)
			watcher_stop(w, self, self->wd != keep_wd);
		return total;
	}
	for (n = strmap_next(&w->dirs, NULL); n != NULL; n = next) {
		struct watch *wa = strmap_container_of(n, struct watch, by_name);

		if (!w->below_unknown && removed == total)
			break;
		next = strmap_next(&w->dirs, n);
		if (asset_path_within(wa->name, dir)) {
			watcher_stop(w, wa, wa->wd != keep_wd);
			removed++;
		}
	}
	return removed;
}

static void watcher_dispatch(struct watcher *w, const struct inotify_event *e)
{
	char path[ASSET_PATH_MAX + 1];
	struct watch *wa;
	int events = 0;

	if (e->wd < 0) {
		/* IN_Q_OVERFLOW: the kernel dropped events, any of the tree's. */
		if (e->mask & IN_Q_OVERFLOW)
			w->cb(w, "", 0, UV_ENOBUFS, w->data);
		return;
	}
	wa = watcher_find_wd(w, e->wd);
	if (wa == NULL)
		return;                 /* the last words of a watch dropped already */
	if (e->mask & (IN_MOVE_SELF | IN_DELETE_SELF | IN_IGNORED | IN_UNMOUNT)) {
		/* The directory is no longer at its name, or no longer watched:
		 * neither it nor anything below can be reported under the names
		 * they had.  IN_IGNORED: the kernel has dropped this one. */
		snprintf(path, sizeof path, "%s", wa->name);
		watcher_remove_except(w, path, (e->mask & IN_IGNORED) ? e->wd : -1);
		w->cb(w, path, UV_RENAME, 0, w->data);
		return;
	}
	if (e->len == 0 || e->name[0] == '\0')
		return;                 /* the directory's own attributes */
	if (e->mask & (IN_ATTRIB | IN_MODIFY))
		events |= UV_CHANGE;
	if (e->mask & ~(uint32_t)(IN_ATTRIB | IN_MODIFY | IN_ISDIR))
		events |= UV_RENAME;
	if (events == 0 || asset_path_join(path, sizeof path, wa->name, e->name) < 0)
		return;                 /* longer than any name we serve */
	w->cb(w, path, events, 0, w->data);
}

static void watcher_readable(uv_poll_t *h, int status, int revents)
{
	struct watcher *w = h->data;
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));

	(void)revents;
	if (status < 0) {
		w->cb(w, "", 0, status, w->data);
		return;
	}
	/* Everything queued, at once: a burst of events is seen whole before
	 * any timer of the loop runs, so one quiet period covers it. */
	while (!w->closing) {
		ssize_t n = read(w->fd, buf, sizeof buf);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;          /* EAGAIN: nothing more for now */
		for (ssize_t off = 0; off < n && !w->closing;) {
			const struct inotify_event *e = (const void *)(buf + off);

			off += (ssize_t)(sizeof *e + e->len);
			watcher_dispatch(w, e);
		}
	}
}

int watcher_new(uv_loop_t *loop, const char *root, watcher_event_cb cb, void *data,
		struct watcher **out)
{
	struct watcher *w = calloc(1, sizeof *w);
	int rc;

	if (w == NULL)
		return -ENOMEM;
	w->fd = -1;
	w->root = strdup(root);
	if (w->root == NULL || strmap_init(&w->dirs) < 0)
		goto nomem;
	if (strmap_init(&w->wds) < 0) {
		strmap_fini(&w->dirs);
		goto nomem;
	}
	if (strmap_init(&w->below) < 0) {
		strmap_fini(&w->wds);
		strmap_fini(&w->dirs);
		goto nomem;
	}
	w->loop = loop;
	w->cb = cb;
	w->data = data;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	rc = w->fd < 0 ? -errno : uv_poll_init(loop, &w->poll, w->fd);
	if (rc < 0) {
		/* Not a handle of the loop yet: undone here. */
		strmap_fini(&w->below);
		strmap_fini(&w->wds);
		strmap_fini(&w->dirs);
		if (w->fd >= 0)
			close(w->fd);
		free(w->root);
		free(w);
		return rc;
	}
	w->poll.data = w;
	rc = uv_poll_start(&w->poll, UV_READABLE, watcher_readable);
	if (rc < 0) {
		/* An initialised handle belongs to the loop until closed. */
		watcher_close(w, NULL, NULL);
		return rc;
	}
	*out = w;
	return 0;
nomem:
	free(w->root);
	free(w);
	return -ENOMEM;
}

int watcher_add(struct watcher *w, const char *dir, uint64_t dev, uint64_t ino)
{
	char path[PATH_MAX];
	size_t n = strlen(dir);
	struct watch *wa, *old;
	struct stat st;
	int rc, wd;

	if (w->closing)
		return -ECANCELED;
	if (watcher_find(w, dir) != NULL)
		return -EEXIST;
	rc = dir[0] == '\0' ? snprintf(path, sizeof path, "%s", w->root)
			    : snprintf(path, sizeof path, "%s/%s", w->root, dir);
	if (rc < 0 || (size_t)rc >= sizeof path)
		return -ENAMETOOLONG;
	wd = inotify_add_watch(w->fd, path, WATCHER_MASK);
	if (wd < 0)
		return -errno;
	old = watcher_find_wd(w, wd);
	/* The directory at the name now must be the one listed: otherwise
	 * the watch would report on content nobody has walked. */
	if (stat(path, &st) < 0 || (uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino) {
		if (old == NULL)
			inotify_rm_watch(w->fd, wd);
		return -ESTALE;
	}
	wa = calloc(1, sizeof *wa + n + 1);
	if (wa == NULL) {
		if (old == NULL)
			inotify_rm_watch(w->fd, wd);
		return -ENOMEM;
	}
	/* The same directory watched under an older name: it was moved here
	 * and its IN_MOVE_SELF is not read yet.  That name, and those below
	 * it, are stale; the kernel's watch is the one this record takes. */
	if (old != NULL)
		watcher_remove_except(w, old->name, wd);
	memcpy(wa->name, dir, n + 1);
	wa->wd = wd;
	wa->dev = dev;
	wa->ino = ino;
	snprintf(wa->wd_key, sizeof wa->wd_key, "%d", wd);
	strmap_insert(&w->dirs, &wa->by_name, wa->name);
	strmap_insert(&w->wds, &wa->by_wd, wa->wd_key);
	watcher_count_below(w, wa->name, +1);
	return 0;
}

bool watcher_has(const struct watcher *w, const char *dir)
{
	return watcher_find(w, dir) != NULL;
}

bool watcher_watches(const struct watcher *w, const char *dir, uint64_t dev, uint64_t ino)
{
	const struct watch *wa = watcher_find(w, dir);

	return wa != NULL && wa->dev == dev && wa->ino == ino;
}

size_t watcher_remove(struct watcher *w, const char *dir)
{
	return watcher_remove_except(w, dir, -1);
}

size_t watcher_count(const struct watcher *w)
{
	return w->dirs.count;
}

const char *watcher_next(const struct watcher *w, const char *prev)
{
	struct strmap_node *n;

	if (prev != NULL) {
		n = strmap_find(&w->dirs, prev);
		if (n == NULL)
			return NULL;
		n = strmap_next(&w->dirs, n);
	} else {
		n = strmap_next(&w->dirs, NULL);
	}
	return n != NULL ? strmap_container_of(n, struct watch, by_name)->name : NULL;
}

static void watcher_closed(uv_handle_t *h)
{
	struct watcher *w = h->data;
	struct strmap_node *n, *next;

	for (n = strmap_next(&w->dirs, NULL); n != NULL; n = next) {
		next = strmap_next(&w->dirs, n);
		free(strmap_container_of(n, struct watch, by_name));
	}
	for (n = strmap_next(&w->below, NULL); n != NULL; n = next) {
		next = strmap_next(&w->below, n);
		free(strmap_container_of(n, struct watch_below, node));
	}
	/* Closing the instance drops every watch at once. */
	close(w->fd);
	if (w->close_cb != NULL)
		w->close_cb(w->close_data);
	strmap_fini(&w->below);
	strmap_fini(&w->wds);
	strmap_fini(&w->dirs);
	free(w->root);
	free(w);
}

void watcher_close(struct watcher *w, void (*close_cb)(void *data), void *data)
{
	if (w == NULL || w->closing)
		return;
	w->closing = 1;
	w->close_cb = close_cb;
	w->close_data = data;
	uv_close((uv_handle_t *)&w->poll, watcher_closed);
}
