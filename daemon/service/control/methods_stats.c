/*
 * stats: what the daemon is doing, for `animctl top` - its connections,
 * its streams' ticks and what they cost, what the cache reported, and the
 * last warnings and errors of the log.  Counters are cumulative; a client
 * that wants rates takes two replies and divides by the difference of
 * their `uptime` (PROTOCOL.md says which figures are already rates).
 * monitor: the connection asking is sent every other one's requests
 * (monitor.c), for `animctl monitor`.
 */
#include <time.h>

#include "daemon/service/base/clock.h"
#include "daemon/service/base/log.h"
#include "daemon/service/cache/cache.h"
#include "daemon/service/control/dispatch.h"
#include "daemon/service/control/listener.h"
#include "daemon/service/control/monitor.h"
#include "daemon/service/playback/instances.h"
#include "daemon/service/playback/streams.h"

const char *const method_stats_fields[] = {
	"uptime", "time", "requests", "instances",
	"connections", "connections[].connection", "connections[].pid", "connections[].uid",
	"connections[].age", "connections[].requests", "connections[].instances",
	"connections[].streams", "connections[].events", "connections[].queued_bytes",
	"connections[].self", "connections[].monitor",
	"streams", "streams[].stream", "streams[].connection", "streams[].space",
	"streams[].rate", "streams[].tick_rate", "streams[].tick_threads", "streams[].instances",
	"streams[].channels", "streams[].region_bytes", "streams[].ticks", "streams[].late_ticks",
	"streams[].skipped_ticks",
	"streams[].poses", "streams[].shared_poses", "streams[].change_poses", "streams[].cpu_ns",
	"streams[].cpu_us_per_pose",
	"assets", "assets.count", "assets.failing", "assets.unservable", "assets.loaded",
	"assets.reloaded", "assets.errors", "assets.removed", "assets.scans",
	"sighups", "config_reloads",
	"log", "log.errors", "log.warnings", "log.recent", "log.recent[].time",
	"log.recent[].level", "log.recent[].message",
	NULL,
};

static uint32_t stats_event_count(uint64_t mask)
{
	uint32_t n = 0;

	for (; mask != 0; mask &= mask - 1)
		n++;
	return n;
}

static void stats_put_connections(struct session *self, struct rpc_out *out)
{
	struct control *ctl = self->ctl;
	uint64_t now_ms = uv_now(ctl->loop);
	uint32_t n = 0;

	for (struct session *s = listener_sessions(ctl->listener); s != NULL; s = s->next)
		n += !s->refused;
	rpc_put_array(out, n);
	for (struct session *s = listener_sessions(ctl->listener); s != NULL; s = s->next) {
		if (s->refused)
			continue;
		rpc_put_map(out, 11);
		rpc_put_lit(out, "connection");
		rpc_put_uint(out, s->id);
		rpc_put_lit(out, "pid");
		rpc_put_int(out, (int64_t)s->peer_pid);
		rpc_put_lit(out, "uid");
		rpc_put_uint(out, (uint64_t)s->peer_uid);
		rpc_put_lit(out, "age");
		rpc_put_double(out, now_ms >= s->accepted_ms ? (double)(now_ms - s->accepted_ms) / 1e3 : 0);
		rpc_put_lit(out, "requests");
		rpc_put_uint(out, s->requests);
		rpc_put_lit(out, "instances");
		rpc_put_uint(out, s->owns.instances);
		rpc_put_lit(out, "streams");
		rpc_put_uint(out, s->owns.streams);
		rpc_put_lit(out, "events");
		rpc_put_uint(out, stats_event_count(s->subscriptions));
		rpc_put_lit(out, "queued_bytes");
		rpc_put_uint(out, (uint64_t)s->queued);
		rpc_put_lit(out, "self");
		rpc_put_bool(out, s == self);
		rpc_put_lit(out, "monitor");
		rpc_put_bool(out, s->monitor);
	}
}

static void stats_put_streams(struct control *ctl, struct rpc_out *out)
{
	uint32_t n = 0;

	for (const struct stream *st = streams_first(ctl->streams); st != NULL; st = stream_next(st))
		n++;
	rpc_put_array(out, n);
	for (const struct stream *st = streams_first(ctl->streams); st != NULL; st = stream_next(st)) {
		struct stream_stats ss;

		stream_get_stats(st, &ss);
		rpc_put_map(out, 17);
		rpc_put_lit(out, "stream");
		rpc_put_uint(out, ss.id);
		rpc_put_lit(out, "connection");
		rpc_put_uint(out, session_of_owner(ss.owner)->id);
		rpc_put_lit(out, "space");
		rpc_put_cstr(out, sample_space_name(ss.space));
		rpc_put_lit(out, "rate");
		rpc_put_uint(out, ss.rate_hz);
		rpc_put_lit(out, "tick_rate");
		rpc_put_double(out, ss.tick_rate);
		rpc_put_lit(out, "tick_threads");
		rpc_put_uint(out, ss.tick_threads);
		rpc_put_lit(out, "instances");
		rpc_put_uint(out, ss.attached);
		rpc_put_lit(out, "channels");
		rpc_put_uint(out, ss.channels);
		rpc_put_lit(out, "region_bytes");
		rpc_put_uint(out, ss.region_bytes);
		rpc_put_lit(out, "ticks");
		rpc_put_uint(out, ss.ticks);
		rpc_put_lit(out, "late_ticks");
		rpc_put_uint(out, ss.late_ticks);
		rpc_put_lit(out, "skipped_ticks");
		rpc_put_uint(out, ss.skipped_ticks);
		rpc_put_lit(out, "poses");
		rpc_put_uint(out, ss.tick_poses);
		rpc_put_lit(out, "shared_poses");
		rpc_put_uint(out, ss.shared_poses);
		rpc_put_lit(out, "change_poses");
		rpc_put_uint(out, ss.change_poses);
		rpc_put_lit(out, "cpu_ns");
		rpc_put_uint(out, ss.cpu_ns);
		rpc_put_lit(out, "cpu_us_per_pose");
		rpc_put_double(out, ss.tick_poses > 0 ? (double)ss.cpu_ns / 1e3 / (double)ss.tick_poses : 0);
	}
}

static void stats_put_log(struct rpc_out *out)
{
	struct log_recent recent[LOG_RECENT_MAX];
	uint64_t errors, warnings;
	size_t n = log_recent(recent, LOG_RECENT_MAX, &errors, &warnings);

	rpc_put_map(out, 3);
	rpc_put_lit(out, "errors");
	rpc_put_uint(out, errors);
	rpc_put_lit(out, "warnings");
	rpc_put_uint(out, warnings);
	rpc_put_lit(out, "recent");
	rpc_put_array(out, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		rpc_put_map(out, 3);
		rpc_put_lit(out, "time");
		rpc_put_double(out, (double)recent[i].unix_ms / 1e3);
		rpc_put_lit(out, "level");
		rpc_put_cstr(out, log_level_name(recent[i].level));
		rpc_put_lit(out, "message");
		rpc_put_cstr(out, recent[i].text);
	}
}

enum dispatch_result method_stats(struct session *s, const struct rpc_request *req,
				  struct rpc_args *args, struct rpc_out *out, struct rpc_error *err)
{
	struct control *ctl = s->ctl;
	struct cache_stats cs;
	struct timespec ts;

	(void)req;
	(void)err;
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	cache_stats(ctl->cache, &cs);
	clock_gettime(CLOCK_REALTIME, &ts);
	rpc_put_map(out, 10);
	rpc_put_lit(out, "uptime");
	rpc_put_double(out, (double)(clock_now_ns() - ctl->started_ns) / 1e9);
	rpc_put_lit(out, "time");
	rpc_put_double(out, (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
	rpc_put_lit(out, "requests");
	rpc_put_uint(out, ctl->requests);
	rpc_put_lit(out, "instances");
	rpc_put_uint(out, instances_count(ctl->instances));
	rpc_put_lit(out, "connections");
	stats_put_connections(s, out);
	rpc_put_lit(out, "streams");
	stats_put_streams(ctl, out);
	rpc_put_lit(out, "assets");
	rpc_put_map(out, 8);
	rpc_put_lit(out, "count");
	rpc_put_uint(out, cs.assets);
	rpc_put_lit(out, "failing");
	rpc_put_uint(out, cs.failing);
	rpc_put_lit(out, "unservable");
	rpc_put_uint(out, cs.unservable);
	rpc_put_lit(out, "loaded");
	rpc_put_uint(out, ctl->asset_loads);
	rpc_put_lit(out, "reloaded");
	rpc_put_uint(out, ctl->asset_reloads);
	rpc_put_lit(out, "errors");
	rpc_put_uint(out, ctl->asset_errors);
	rpc_put_lit(out, "removed");
	rpc_put_uint(out, ctl->asset_removals);
	rpc_put_lit(out, "scans");
	rpc_put_uint(out, cs.scans);
	rpc_put_lit(out, "sighups");
	rpc_put_uint(out, ctl->sighups);
	rpc_put_lit(out, "config_reloads");
	rpc_put_uint(out, ctl->config_reloads);
	rpc_put_lit(out, "log");
	stats_put_log(out);
	return DISPATCH_REPLY;
}

enum dispatch_result method_monitor(struct session *s, const struct rpc_request *req,
				    struct rpc_args *args, struct rpc_out *out,
				    struct rpc_error *err)
{
	(void)req;
	(void)err;
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	monitor_start(s);
	rpc_put_map(out, 1);
	rpc_put_lit(out, "connection");
	rpc_put_uint(out, s->id);
	return DISPATCH_REPLY;
}
