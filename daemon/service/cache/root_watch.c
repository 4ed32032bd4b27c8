#include "daemon/service/cache/root_watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct root_watch {
	uv_fs_event_t handle;
	root_watch_cb cb;
	void *data;
	void (*close_cb)(void *data);
	void *close_data;
	char name[];                    /* the root's base name in its parent */
};

static void root_watch_event(uv_fs_event_t *h, const char *filename, int events, int status)
{
	struct root_watch *rw = h->data;

	(void)events;
	/* An error on the parent, or an event about the root's own name. */
	if (status < 0 || (filename != NULL && strcmp(filename, rw->name) == 0))
		rw->cb(rw->data);
}

int root_watch_new(uv_loop_t *loop, const char *root_real, root_watch_cb cb, void *data,
		   struct root_watch **out)
{
	const char *slash = strrchr(root_real, '/');
	struct root_watch *rw;
	char *parent;
	int rc;

	if (slash == NULL || slash[1] == '\0')
		return -EINVAL;
	rw = calloc(1, sizeof *rw + strlen(slash + 1) + 1);
	parent = strndup(root_real, slash == root_real ? 1 : (size_t)(slash - root_real));
	if (rw == NULL || parent == NULL) {
		free(rw);
		free(parent);
		return -ENOMEM;
	}
	strcpy(rw->name, slash + 1);
	rw->cb = cb;
	rw->data = data;
	uv_fs_event_init(loop, &rw->handle);
	rw->handle.data = rw;
	rc = uv_fs_event_start(&rw->handle, root_watch_event, parent, 0);
	free(parent);
	if (rc < 0) {
		/* An initialised handle belongs to the loop until it is closed. */
		root_watch_close(rw, NULL, NULL);
		return rc;
	}
	*out = rw;
	return 0;
}

static void root_watch_closed(uv_handle_t *h)
{
	struct root_watch *rw = h->data;
	void (*cb)(void *) = rw->close_cb;
	void *data = rw->close_data;

	free(rw);
	if (cb != NULL)
		cb(data);
}

void root_watch_close(struct root_watch *rw, void (*close_cb)(void *data), void *data)
{
	if (rw == NULL)
		return;
	rw->close_cb = close_cb;
	rw->close_data = data;
	uv_close((uv_handle_t *)&rw->handle, root_watch_closed);
}
