/*
 * daemon_assets.c - what the daemon does when the asset cache reports:
 * the events for subscribers, the assets.reload replies, and the instances
 * that play a changed asset rebound (or stopped).  The cache knows none of
 * them; this is where they are wired together.
 */
#include "daemon/service/daemon.h"

#include <string.h>

#include "daemon/service/base/log.h"
#include "daemon/service/base/notify.h"
#include "daemon/service/cache/cache.h"
#include "daemon/service/control/events.h"
#include "daemon/service/control/listener.h"
#include "daemon/service/control/reloads.h"
#include "daemon/service/playback/instances.h"

/* A load that had to leave something out says so, once per version; what
 * the file holds that its game ignores is only counted (debug gives the
 * lines, `animd check -v` and assets.info too). */
static void daemon_assets_log_note(struct cache *c, const char *name)
{
	struct cache_info info;

	if (cache_get(c, name, &info) != 0 || info.asset == NULL)
		return;
	if (info.asset->note != NULL)
		log_warning("%s: %s", name, info.asset->note);
	for (uint32_t i = 0; i < info.asset->note_count; i++)
		log_debug("%s", info.asset->notes[i]);
}

static void daemon_assets_loaded(struct cache *c, const char *name, uint64_t gen, void *data)
{
	struct daemon *d = data;

	daemon_assets_log_note(c, name);
	if (d->ready)
		log_info("loaded %s", name);
	else
		log_debug("loaded %s", name);
	d->ctl.asset_loads++;
	events_asset_loaded(&d->ctl, name, gen);
	reloads_answer(&d->ctl, name, gen, false, PROTO_ERR_NONE, NULL);
}

static void daemon_assets_reloaded(struct cache *c, const char *name, uint64_t gen, void *data)
{
	struct daemon *d = data;
	struct cache_info info;

	log_info("reloaded %s (generation %llu)", name, (unsigned long long)gen);
	daemon_assets_log_note(c, name);
	d->ctl.asset_reloads++;
	events_asset_reloaded(&d->ctl, name, gen);
	if (cache_get(c, name, &info) == 0)
		instances_asset_changed(d->instances, name, info.asset, gen);
	reloads_answer(&d->ctl, name, gen, false, PROTO_ERR_NONE, NULL);
}

static void daemon_assets_error(struct cache *c, const char *name, const char *message, void *data)
{
	struct daemon *d = data;
	struct cache_info info;
	uint64_t live = 0;

	if (cache_get(c, name, &info) == 0)
		live = info.generation;
	if (live > 0)
		log_warning("%s (keeping generation %llu)", message, (unsigned long long)live);
	else
		log_warning("%s", message);
	d->ctl.asset_errors++;
	events_asset_error(&d->ctl, name, message, live);
	reloads_answer(&d->ctl, name, 0, false, PROTO_ERR_ASSET_ERROR, message);
}

static void daemon_assets_removed(struct cache *c, const char *name, void *data)
{
	struct daemon *d = data;

	(void)c;
	log_info("removed %s", name);
	/* The cause before its effects: asset.removed, then instance.stopped. */
	d->ctl.asset_removals++;
	events_asset_removed(&d->ctl, name);
	instances_asset_changed(d->instances, name, NULL, 0);
	reloads_answer(&d->ctl, name, 0, false, PROTO_ERR_NOT_FOUND, "the file is gone");
}

/* assets.reload of a file that holds the live version: answered, and
 * nothing else happens (no event, no instance republished). */
static void daemon_assets_unchanged(struct cache *c, const char *name, uint64_t gen, void *data)
{
	struct daemon *d = data;

	(void)c;
	reloads_answer(&d->ctl, name, gen, true, PROTO_ERR_NONE, NULL);
}

static void daemon_assets_cache_log(struct cache *c, int level, const char *message, void *data)
{
	(void)c;
	(void)data;
	/* The cache speaks syslog priorities; notices are informational here. */
	log_write(level <= LOG_LEVEL_WARNING ? LOG_LEVEL_WARNING
		  : level <= LOG_LEVEL_INFO  ? LOG_LEVEL_INFO
					     : LOG_LEVEL_DEBUG,
		  "%s", message);
}

/*
 * The start-up walk is over: every name is known, and a request about any
 * asset is answered (waiting for its load if need be, holds.h).  That is
 * what readiness means (PROTOCOL.md, "Start-up"): READY=1 now, while the
 * background loads go on; systemd's STATUS says which phase it is in.
 */
static void daemon_assets_indexed(struct cache *c, const struct cache_summary *s, void *data)
{
	struct daemon *d = data;

	(void)c;
	if (s->status < 0)
		log_warning("asset scan incomplete: %s", strerror(-s->status));
	log_info("indexed %s: %u assets, %u directories watched, in %.1f ms; loading them",
		 d->cfg.asset_root, s->files, s->directories, (double)s->elapsed_ns / 1e6);
	notify_ready();
	notify_status("indexed %u assets, loading them; answering on %s", s->files,
		      d->ctl.listener != NULL ? listener_address(d->ctl.listener, NULL)
						 : d->cfg.socket_path);
}

/* Every start-up load has ended. */
void daemon_assets_ready(struct cache *c, const struct cache_summary *s, void *data)
{
	struct daemon *d = data;
	struct cache_stats cs;

	cache_stats(c, &cs);
	if (cs.max_memory != 0)
		log_info("serving %s: %u assets loaded, %u failed, %zu kept in memory under [assets] "
			 "max_memory, in %.1f ms", d->cfg.asset_root, s->loaded, s->failed,
			 cs.states[CACHE_ASSET_OK], (double)s->elapsed_ns / 1e6);
	else
		log_info("serving %s: %u assets loaded, %u failed, %u directories watched, in %.1f ms",
			 d->cfg.asset_root, s->loaded, s->failed, s->directories,
			 (double)s->elapsed_ns / 1e6);
	d->ready = true;
	notify_status("serving %u assets (%u failed) on %s", s->loaded, s->failed,
		      d->ctl.listener != NULL ? listener_address(d->ctl.listener, NULL)
						 : d->cfg.socket_path);
}

const struct cache_events daemon_cache_events = {
	.loaded = daemon_assets_loaded,
	.reloaded = daemon_assets_reloaded,
	.error = daemon_assets_error,
	.removed = daemon_assets_removed,
	.unchanged = daemon_assets_unchanged,
	.log = daemon_assets_cache_log,
	.indexed = daemon_assets_indexed,
};
