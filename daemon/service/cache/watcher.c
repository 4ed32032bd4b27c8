#include "daemon/service/cache/watcher.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/service/base/strmap.h"
#include "daemon/service/cache/asset_path.h"

struct watch {
	uv_fs_event_t handle;
	struct strmap_node node;
	struct watcher *w;
	char name[];                    /* relative to the root */
};

struct watcher {
	uv_loop_t *loop;
	char *root;
	watcher_event_cb cb;
	void *data;
	struct strmap dirs;             /* name -> struct watch */
	/* Handles not yet through their close callback: every watch, plus the
	 * sentinel, which makes closing complete from a close callback even
	 * when nothing is watched. */
	size_t handles;
	uv_timer_t sentinel;
	int closing;
	void (*close_cb)(void *data);
	void *close_data;
};

static void watcher_handle_closed(struct watcher *w)
{
	if (--w->handles > 0 || !w->closing)
		return;
	if (w->close_cb != NULL)
		w->close_cb(w->close_data);
	strmap_fini(&w->dirs);
	free(w->root);
	free(w);
}

static void watcher_sentinel_closed(uv_handle_t *h)
{
	watcher_handle_closed(h->data);
}

static void watcher_watch_closed(uv_handle_t *h)
{
	struct watch *wa = h->data;
	struct watcher *w = wa->w;

	free(wa);
	watcher_handle_closed(w);
}

static void watcher_on_event(uv_fs_event_t *h, const char *filename, int events, int status)
{
	struct watch *wa = h->data;
	struct watcher *w = wa->w;
	char path[ASSET_PATH_MAX + 1];

	if (w->closing || uv_is_closing((uv_handle_t *)h))
		return;
	if (status < 0) {
		w->cb(w, wa->name, 0, status, w->data);
		return;
	}
	if (filename == NULL || filename[0] == '\0') {
		w->cb(w, wa->name, events, 0, w->data);
		return;
	}
	if (asset_path_join(path, sizeof path, wa->name, filename) < 0)
		return;                 /* longer than any name we serve */
	w->cb(w, path, events, 0, w->data);
}

int watcher_new(uv_loop_t *loop, const char *root, watcher_event_cb cb, void *data,
		struct watcher **out)
{
	struct watcher *w = calloc(1, sizeof *w);

	if (w == NULL)
		return -ENOMEM;
	w->root = strdup(root);
	if (w->root == NULL || strmap_init(&w->dirs) < 0) {
		free(w->root);
		free(w);
		return -ENOMEM;
	}
	w->loop = loop;
	w->cb = cb;
	w->data = data;
	uv_timer_init(loop, &w->sentinel);
	w->sentinel.data = w;
	w->handles = 1;
	*out = w;
	return 0;
}

int watcher_add(struct watcher *w, const char *dir)
{
	char path[PATH_MAX];
	size_t n = strlen(dir);
	struct watch *wa;
	int rc;

	if (w->closing)
		return -ECANCELED;
	if (strmap_find(&w->dirs, dir) != NULL)
		return -EEXIST;
	rc = dir[0] == '\0' ? snprintf(path, sizeof path, "%s", w->root)
			    : snprintf(path, sizeof path, "%s/%s", w->root, dir);
	if (rc < 0 || (size_t)rc >= sizeof path)
		return -ENAMETOOLONG;
	wa = malloc(sizeof *wa + n + 1);
	if (wa == NULL)
		return -ENOMEM;
	memcpy(wa->name, dir, n + 1);
	wa->w = w;
	rc = uv_fs_event_init(w->loop, &wa->handle);
	if (rc < 0) {
		free(wa);
		return rc;
	}
	wa->handle.data = wa;
	w->handles++;
	rc = uv_fs_event_start(&wa->handle, watcher_on_event, path, 0);
	if (rc < 0) {
		/* Initialised handles belong to the loop until closed. */
		uv_close((uv_handle_t *)&wa->handle, watcher_watch_closed);
		return rc;
	}
	strmap_insert(&w->dirs, &wa->node, wa->name);
	return 0;
}

bool watcher_has(const struct watcher *w, const char *dir)
{
	return strmap_find(&w->dirs, dir) != NULL;
}

static void watcher_stop(struct watcher *w, struct watch *wa)
{
	strmap_remove(&w->dirs, &wa->node);
	uv_close((uv_handle_t *)&wa->handle, watcher_watch_closed);
}

size_t watcher_remove(struct watcher *w, const char *dir)
{
	struct strmap_node *n, *next;
	size_t removed = 0;

	for (n = strmap_next(&w->dirs, NULL); n != NULL; n = next) {
		struct watch *wa = strmap_container_of(n, struct watch, node);

		next = strmap_next(&w->dirs, n);
		if (asset_path_within(wa->name, dir)) {
			watcher_stop(w, wa);
			removed++;
		}
	}
	return removed;
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
	return n != NULL ? strmap_container_of(n, struct watch, node)->name : NULL;
}

void watcher_close(struct watcher *w, void (*close_cb)(void *data), void *data)
{
	struct strmap_node *n, *next;

	if (w == NULL || w->closing)
		return;
	w->closing = 1;
	w->close_cb = close_cb;
	w->close_data = data;
	for (n = strmap_next(&w->dirs, NULL); n != NULL; n = next) {
		next = strmap_next(&w->dirs, n);
		watcher_stop(w, strmap_container_of(n, struct watch, node));
	}
	uv_close((uv_handle_t *)&w->sentinel, watcher_sentinel_closed);
}
