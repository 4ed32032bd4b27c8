/*
 * cache.c - the asset cache's life: made over its root, started (the root
 * watched, the first walk asked for), retimed on SIGHUP, closed once every
 * handle and job has given back its hold; its public queries (get, use,
 * list, list_page, stats, resolve, root) and requests (reload, rescan);
 * the log, the index's completion and the start-up summary every part
 * uses.  The parts: cache_internal.h.
 */
#include "daemon/service/cache/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "daemon/service/base/strmap.h"
#include "daemon/service/base/strorder.h"
#include "daemon/service/cache/asset_path.h"
#include "daemon/service/cache/cache_internal.h"
#include "daemon/service/cache/root_watch.h"
#include "daemon/service/cache/scan.h"
#include "daemon/service/cache/watcher.h"

void cache_log(struct cache *c, int level, const char *fmt, ...)
{
	char msg[CACHE_ERR_MAX + 128];
	va_list ap;

	if (c->opts.events.log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->opts.events.log(c, level, msg, c->opts.data);
}

/* ---- lifetime -------------------------------------------------------- */

static void cache_finish(struct cache *c)
{
	void (*cb)(void *) = c->close_cb;
	void *data = c->opts.data;

	for (size_t i = 0; i < c->scan_root_count; i++)
		free(c->scan_roots[i]);
	cache_scan_notes_clear(c);
	strmap_fini(&c->notes);
	strmap_fini(&c->entries);
	strorder_fini(&c->order);
	if (c->root_fd >= 0)
		close(c->root_fd);
	free(c->root_real);
	free(c);
	if (cb != NULL)
		cb(data);
}

void cache_release(struct cache *c)
{
	if (--c->holds == 0 && c->closing)
		cache_finish(c);
}

static void cache_handle_closed(uv_handle_t *h)
{
	cache_release(h->data);
}

static void cache_watcher_closed(void *data)
{
	cache_release(data);
}

const char *cache_asset_state_name(enum cache_asset_state st)
{
	static const char *const names[CACHE_ASSET_STATE_COUNT] = {
		[CACHE_ASSET_LOADING] = "loading",
		[CACHE_ASSET_OK] = "ok",
		[CACHE_ASSET_FAILED] = "failed",
		[CACHE_ASSET_EVICTED] = "evicted",
	};

	return (unsigned)st < CACHE_ASSET_STATE_COUNT ? names[st] : "?";
}

void cache_index_complete(struct cache *c)
{
	struct cache_summary s;

	if (c->indexed || c->closing)
		return;
	cache_wait_indexed(c);
	s = c->summary;
	s.loaded = s.failed = 0;
	s.directories = (uint32_t)watcher_count(c->watcher);
	s.elapsed_ns = uv_hrtime() - c->start_ns;
	if (c->opts.events.indexed != NULL)
		c->opts.events.indexed(c, &s, c->opts.data);
}

void cache_ready_check(struct cache *c)
{
	struct cache_summary s;

	if (c->ready || c->closing || c->scan_is_startup || c->startup_pending > 0 ||
	    !c->started)
		return;
	c->ready = true;
	c->summary.directories = (uint32_t)watcher_count(c->watcher);
	c->summary.elapsed_ns = uv_hrtime() - c->start_ns;
	s = c->summary;
	if (c->ready_cb != NULL)
		c->ready_cb(c, &s, c->opts.data);
}

static void cache_rescan_cb(uv_timer_t *t)
{
	cache_rescan(t->data);
}

/* ---- public ------------------------------------------------------------ */

int cache_new(uv_loop_t *loop, const struct cache_options *opts, struct cache **out, char *err,
	      size_t errlen)
{
	struct cache *c;
	struct stat st;
	int rc;

	if (opts == NULL || opts->root == NULL || opts->root[0] == '\0') {
		snprintf(err, errlen, "no asset root given");
		return -EINVAL;
	}
	c = calloc(1, sizeof *c);
	if (c == NULL)
		goto nomem;
	c->loop = loop;
	c->opts = *opts;
	c->opts.root = NULL;
	c->root_fd = -1;
	c->scan_root_fd = -1;
	if (c->opts.quiet_ms == 0)
		c->opts.quiet_ms = CACHE_DEFAULT_QUIET_MS;
	if (c->opts.max_asset_bytes == 0)
		c->opts.max_asset_bytes = ASSET_DEFAULT_MAX_BYTES;
	if (c->opts.max_parallel_loads == 0)
		c->opts.max_parallel_loads = CACHE_DEFAULT_MAX_PARALLEL_LOADS;
	c->max_memory = c->opts.max_memory;
	c->root_real = realpath(opts->root, NULL);
	if (c->root_real == NULL) {
		rc = -errno;
		snprintf(err, errlen, "asset root %s: %s", opts->root, strerror(-rc));
		goto fail;
	}
	c->root_fd = open(c->root_real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->root_fd < 0 || fstat(c->root_fd, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "asset root %s: %s", opts->root, strerror(-rc));
		goto fail;
	}
	c->root_dev = st.st_dev;
	c->root_ino = st.st_ino;
	if (strmap_init(&c->entries) < 0)
		goto nomem;
	strorder_init(&c->order);
	if (strmap_init(&c->notes) < 0) {
		strmap_fini(&c->entries);
		strorder_fini(&c->order);
		goto nomem;
	}
	rc = watcher_new(loop, c->root_real, cache_watch_on_event, c, &c->watcher);
	if (rc < 0) {
		strmap_fini(&c->notes);
		strmap_fini(&c->entries);
		strorder_fini(&c->order);
		/* fs.inotify.max_user_instances, most likely. */
		snprintf(err, errlen, "cannot watch the asset root: %s", uv_strerror(rc));
		goto fail;
	}
	uv_timer_init(loop, &c->rescan_timer);
	uv_timer_init(loop, &c->dircheck_timer);
	uv_timer_init(loop, &c->root_poll);
	uv_timer_init(loop, &c->cap_timer);
	c->rescan_timer.data = c;
	c->dircheck_timer.data = c;
	c->root_poll.data = c;
	c->cap_timer.data = c;
	c->holds = 5;                   /* the four timers and the watcher */
	*out = c;
	return 0;
nomem:
	rc = -ENOMEM;
	snprintf(err, errlen, "out of memory");
fail:
	if (c != NULL) {
		if (c->root_fd >= 0)
			close(c->root_fd);
		free(c->root_real);
		free(c);
	}
	return rc;
}

int cache_start(struct cache *c, cache_ready_cb ready)
{
	int rc;

	if (c->started)
		return -EALREADY;
	if (c->closing)
		return -ECANCELED;
	c->started = true;
	c->ready_cb = ready;
	c->start_ns = uv_hrtime();
	/* Watch before walking, so nothing created during the walk is missed. */
	rc = cache_watch_dir(c, "",
			     &(struct scan_id){ (uint64_t)c->root_dev, (uint64_t)c->root_ino });
	if (rc < 0 && rc != -ENOSPC)
		cache_log(c, LOG_WARNING, "%s: not watched (%s); changes are found by rescans only",
			  c->root_real, uv_strerror(rc));
	c->scan_is_startup = true;
	cache_scan_request(c, "", CACHE_SCAN_NOW);
	if (c->scan == NULL) {
		c->scan_is_startup = false;
		return -ENOMEM;
	}
	if (c->opts.rescan_interval_s > 0) {
		uint64_t ms = (uint64_t)c->opts.rescan_interval_s * 1000;

		uv_timer_start(&c->rescan_timer, cache_rescan_cb, ms, ms);
	}
	if (root_watch_new(c->loop, c->root_real, cache_watch_root_cb, c, &c->root_watch) == 0)
		c->holds++;
	return 0;
}

void cache_set_timing(struct cache *c, unsigned quiet_ms, unsigned rescan_interval_s)
{
	/* Timers already running keep their deadline; the next ones use the
	 * new values. */
	c->opts.quiet_ms = quiet_ms ? quiet_ms : CACHE_DEFAULT_QUIET_MS;
	if (c->opts.rescan_interval_s == rescan_interval_s)
		return;
	c->opts.rescan_interval_s = rescan_interval_s;
	uv_timer_stop(&c->rescan_timer);
	if (rescan_interval_s > 0) {
		uint64_t ms = (uint64_t)rescan_interval_s * 1000;

		uv_timer_start(&c->rescan_timer, cache_rescan_cb, ms, ms);
	}
}

static void cache_info_fill(const struct cache_entry *e, struct cache_info *out)
{
	out->name = e->name;
	out->asset = e->asset;
	out->generation = e->generation;
	out->error = e->error;
	out->file_bytes = e->file_bytes;
	out->loaded_at_ns = e->loaded_at_ns;
	out->load_ns = e->load_ns;
	out->pending = e->state != CACHE_IDLE;
	out->state = cache_entry_asset_state(e);
}

int cache_get(struct cache *c, const char *name, struct cache_info *out)
{
	struct cache_entry *e = cache_entry_find(c, name);

	if (e == NULL || !cache_entry_visible(e))
		return c->indexed ? -ENOENT : -EAGAIN;
	cache_info_fill(e, out);
	return 0;
}

int cache_use(struct cache *c, const char *name, struct cache_info *out)
{
	int rc = cache_get(c, name, out);

	if (rc == 0 && out->asset != NULL)
		cache_mem_touch(c, cache_entry_find(c, name));
	return rc;
}

bool cache_indexed(const struct cache *c)
{
	return c->indexed;
}

/* The name index, ready to read; rebuilt from the table when it lost a
 * node for lack of memory.  0 or -ENOMEM. */
static int cache_order_ready(struct cache *c)
{
	struct strmap_node *n;

	if (strorder_prepare(&c->order) == 0)
		return 0;
	strorder_fini(&c->order);
	for (n = strmap_next(&c->entries, NULL); n != NULL; n = strmap_next(&c->entries, n)) {
		struct cache_entry *e = strmap_container_of(n, struct cache_entry, node);

		strorder_add(&c->order, &e->order_node, e->name);
	}
	return strorder_prepare(&c->order);
}

static const struct cache_entry *cache_order_entry(const struct cache *c, size_t i)
{
	return strmap_container_of(strorder_at(&c->order, i), struct cache_entry, order_node);
}

int cache_list(struct cache *c, struct cache_info **out, size_t *count)
{
	struct cache_info *list;
	size_t k = 0, n;

	*out = NULL;
	*count = 0;
	if (c->entries.count == 0)
		return 0;
	if (cache_order_ready(c) < 0)
		return -ENOMEM;
	list = calloc(c->entries.count, sizeof *list);
	if (list == NULL)
		return -ENOMEM;
	n = strorder_count(&c->order);
	for (size_t i = 0; i < n; i++) {
		const struct cache_entry *e = cache_order_entry(c, i);

		if (cache_entry_visible(e))
			cache_info_fill(e, &list[k++]);
	}
	if (k == 0) {
		free(list);
		return 0;
	}
	*out = list;
	*count = k;
	return 0;
}

int cache_list_page(struct cache *c, const char *after, struct cache_info *out, size_t max,
		    size_t *count, bool *more)
{
	size_t k = 0, n;

	*count = 0;
	*more = false;
	if (cache_order_ready(c) < 0)
		return -ENOMEM;
	n = strorder_count(&c->order);
	for (size_t i = strorder_seek(&c->order, after != NULL && after[0] != '\0' ? after : NULL);
	     i < n; i++) {
		const struct cache_entry *e = cache_order_entry(c, i);

		if (!cache_entry_visible(e))
			continue;
		if (k == max) {
			*more = true;
			break;
		}
		cache_info_fill(e, &out[k++]);
	}
	*count = k;
	return 0;
}

int cache_reload(struct cache *c, const char *name)
{
	struct cache_entry *e;

	if (c->closing)
		return -ECANCELED;
	/* Only names cache_get knows: a forced load always ends in an event
	 * for those (a name never seen that turns out to be gone would end
	 * silently). */
	e = cache_entry_find(c, name);
	if (e == NULL || !cache_entry_visible(e))
		return -ENOENT;
	e->force = true;
	if (e->state == CACHE_LOADING) {
		e->dirty = true;
		return 0;
	}
	cache_entry_queue_add(c, e, true, true);
	cache_entry_pump(c);
	return 0;
}

int cache_rescan(struct cache *c)
{
	if (c->closing)
		return -ECANCELED;
	cache_scan_request(c, "", CACHE_SCAN_NOW);
	return 0;
}

int cache_resolve(const struct cache *c, const char *name, size_t len, char *out, size_t size,
		  char *err, size_t errlen)
{
	return asset_path_resolve(c->root_real, name, len, out, size, err, errlen);
}

const char *cache_root(const struct cache *c)
{
	return c->root_real;
}

void cache_stats(const struct cache *c, struct cache_stats *out)
{
	struct strmap_node *n;

	memset(out, 0, sizeof *out);
	for (n = strmap_next(&c->entries, NULL); n != NULL; n = strmap_next(&c->entries, n)) {
		const struct cache_entry *e = strmap_container_of(n, struct cache_entry, node);

		if (cache_entry_visible(e)) {
			out->assets++;
			out->failing += e->error != NULL;
			out->states[cache_entry_asset_state(e)]++;
		}
		if (e->asset != NULL) {
			const struct asset_memory *m = &e->asset->memory;

			out->memory.skeleton += m->skeleton;
			out->memory.clips += m->clips;
			out->memory.meshes += m->meshes;
			out->memory.camera += m->camera;
			out->memory.emitters += m->emitters;
			out->memory.other += m->other;
			out->memory.total += m->total;
			if (e->asset->format >= 0 && e->asset->format < ASSET_FORMAT_COUNT)
				out->format_bytes[e->asset->format] += m->total;
		}
		out->loads_waiting += e->state == CACHE_ARMED || e->state == CACHE_QUEUED;
	}
	out->directories = watcher_count(c->watcher);
	out->unservable = c->unservable;
	out->loads_running = c->running;
	out->walking = c->scan != NULL || c->scan_full || c->scan_root_count > 0;
	out->scans = c->scans;
	out->loads = c->loads;
	out->indexed = c->indexed;
	out->demand_loads = c->demand_loads;
	out->evictions = c->evictions;
	out->dropped = c->dropped;
	out->max_memory = c->max_memory;
	out->over_cap = c->max_memory != 0 && c->mem_total > c->max_memory;
}

void cache_set_max_memory(struct cache *c, uint64_t max_memory)
{
	if (c->closing || c->max_memory == max_memory)
		return;
	c->max_memory = max_memory;
	cache_mem_settle(c, NULL, true);
}

void cache_close(struct cache *c, void (*close_cb)(void *data))
{
	if (c == NULL || c->closing)
		return;
	c->closing = true;
	c->close_cb = close_cb;
	if (c->scan != NULL)
		scan_cancel(c->scan);
	cache_wait_close(c);
	cache_entry_drop_all(c);
	watcher_close(c->watcher, cache_watcher_closed, c);
	uv_close((uv_handle_t *)&c->rescan_timer, cache_handle_closed);
	uv_close((uv_handle_t *)&c->dircheck_timer, cache_handle_closed);
	uv_close((uv_handle_t *)&c->root_poll, cache_handle_closed);
	uv_close((uv_handle_t *)&c->cap_timer, cache_handle_closed);
	if (c->root_watch != NULL)
		root_watch_close(c->root_watch, cache_watcher_closed, c);
}
