/* hello, status, subscribe: the connection and the daemon itself. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/service/base/clock.h"
#include "daemon/service/base/log.h"
#include "daemon/service/cache/cache.h"
#include "daemon/service/control/dispatch.h"
#include "daemon/service/control/listener.h"
#include "daemon/service/playback/instances.h"
#include "daemon/service/playback/streams.h"
#include "daemon/version.h"

enum dispatch_result method_hello(struct session *s, const struct rpc_request *req,
				  struct rpc_args *args, struct rpc_out *out, struct rpc_error *err)
{
	struct rpc_str name;
	int has_name;

	(void)req;
	(void)err;
	has_name = rpc_args_string(args, "name", RPC_OPTIONAL, PROTO_MAX_CLIENT_NAME_BYTES, &name);
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	/* The latest name given stands; a hello without one keeps it. */
	if (has_name == 1) {
		memcpy(s->name, name.ptr, name.len);
		s->name[name.len] = '\0';
		log_debug("connection %llu is \"%s\" (pid %d uid %u)", (unsigned long long)s->id,
			  s->name, (int)s->peer_pid, (unsigned)s->peer_uid);
	}
	rpc_put_map(out, 5);
	rpc_put_lit(out, "protocol");
	rpc_put_uint(out, ANIMD_PROTOCOL_VERSION);
	rpc_put_lit(out, "server");
	rpc_put_lit(out, "animd " ANIMD_VERSION);
	rpc_put_lit(out, "pid");
	rpc_put_int(out, (int64_t)s->ctl->pid);
	rpc_put_lit(out, "connection");
	rpc_put_uint(out, s->id);
	rpc_put_lit(out, "max_message_bytes");
	rpc_put_uint(out, s->ctl->cfg->max_message_bytes);
	return DISPATCH_REPLY;
}

/* Resident memory in bytes, from /proc/self/statm (0 if unreadable). */
static uint64_t status_rss_bytes(void)
{
	unsigned long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu %lu", &pages, &resident) != 2)
		resident = 0;
	fclose(f);
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* status.memory: what the daemon holds by kind, counted from its objects
 * (PROTOCOL.md). */
static void status_put_memory(struct control *ctl, const struct cache_stats *cs,
			      struct rpc_out *out)
{
	uint64_t streams = streams_region_bytes(ctl->streams);
	uint64_t instances = instances_bytes(ctl->instances);
	uint64_t connections = listener_session_bytes(ctl->listener);

	rpc_put_map(out, 7);
	rpc_put_lit(out, "total");
	rpc_put_uint(out, cs->memory.total + streams + instances + connections);
	rpc_put_lit(out, "assets");
	rpc_put_map(out, 8);
	rpc_put_lit(out, "total");
	rpc_put_uint(out, cs->memory.total);
	rpc_put_lit(out, "skeletons");
	rpc_put_uint(out, cs->memory.skeleton);
	rpc_put_lit(out, "clips");
	rpc_put_uint(out, cs->memory.clips);
	rpc_put_lit(out, "meshes");
	rpc_put_uint(out, cs->memory.meshes);
	rpc_put_lit(out, "cameras");
	rpc_put_uint(out, cs->memory.camera);
	rpc_put_lit(out, "emitters");
	rpc_put_uint(out, cs->memory.emitters);
	rpc_put_lit(out, "other");
	rpc_put_uint(out, cs->memory.other);
	rpc_put_lit(out, "by_format");
	rpc_put_map(out, ASSET_FORMAT_COUNT);
	for (int f = 0; f < ASSET_FORMAT_COUNT; f++) {
		rpc_put_cstr(out, asset_format_name((enum asset_format)f));
		rpc_put_uint(out, cs->format_bytes[f]);
	}
	rpc_put_lit(out, "streams");
	rpc_put_uint(out, streams);
	rpc_put_lit(out, "streams_budget");
	rpc_put_uint(out, streams_budget(ctl->streams));
	rpc_put_lit(out, "assets_cap");
	rpc_put_uint(out, cs->max_memory);
	rpc_put_lit(out, "instances");
	rpc_put_uint(out, instances);
	rpc_put_lit(out, "connections");
	rpc_put_uint(out, connections);
}

enum dispatch_result method_status(struct session *s, const struct rpc_request *req,
				   struct rpc_args *args, struct rpc_out *out, struct rpc_error *err)
{
	struct control *ctl = s->ctl;
	struct cache_stats cs;

	(void)req;
	(void)err;
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	cache_stats(ctl->cache, &cs);
	rpc_put_map(out, 13);
	rpc_put_lit(out, "server");
	rpc_put_lit(out, "animd " ANIMD_VERSION);
	rpc_put_lit(out, "uptime");
	rpc_put_double(out, (double)(clock_now_ns() - ctl->started_ns) / 1e9);
	rpc_put_lit(out, "asset_root");
	rpc_put_cstr(out, cache_root(ctl->cache));
	rpc_put_lit(out, "assets");
	rpc_put_map(out, 13);
	rpc_put_lit(out, "count");
	rpc_put_uint(out, cs.assets);
	rpc_put_lit(out, "failing");
	rpc_put_uint(out, cs.failing);
	rpc_put_lit(out, "loading");
	rpc_put_uint(out, cs.loads_running + cs.loads_waiting);
	rpc_put_lit(out, "directories");
	rpc_put_uint(out, cs.directories);
	rpc_put_lit(out, "unservable");
	rpc_put_uint(out, cs.unservable);
	rpc_put_lit(out, "indexed");
	rpc_put_bool(out, cs.indexed);
	rpc_put_lit(out, "states");
	rpc_put_map(out, CACHE_ASSET_STATE_COUNT);
	for (int st = 0; st < CACHE_ASSET_STATE_COUNT; st++) {
		rpc_put_cstr(out, cache_asset_state_name((enum cache_asset_state)st));
		rpc_put_uint(out, cs.states[st]);
	}
	rpc_put_lit(out, "on_demand_loads");
	rpc_put_uint(out, cs.demand_loads);
	rpc_put_lit(out, "evictions");
	rpc_put_uint(out, cs.evictions);
	rpc_put_lit(out, "dropped");
	rpc_put_uint(out, cs.dropped);
	rpc_put_lit(out, "over_cap");
	rpc_put_bool(out, cs.over_cap);
	rpc_put_lit(out, "waiting");
	rpc_put_uint(out, ctl->holds_count);
	rpc_put_lit(out, "waited");
	rpc_put_uint(out, ctl->requests_waited);
	rpc_put_lit(out, "instances");
	rpc_put_uint(out, instances_count(ctl->instances));
	rpc_put_lit(out, "connections");
	rpc_put_uint(out, listener_session_count(ctl->listener));
	rpc_put_lit(out, "streams");
	rpc_put_uint(out, streams_count(ctl->streams));
	rpc_put_lit(out, "requests");
	rpc_put_uint(out, ctl->requests);
	rpc_put_lit(out, "sighups");
	rpc_put_uint(out, ctl->sighups);
	rpc_put_lit(out, "config_reloads");
	rpc_put_uint(out, ctl->config_reloads);
	rpc_put_lit(out, "memory_bytes");
	rpc_put_uint(out, status_rss_bytes());
	rpc_put_lit(out, "memory");
	status_put_memory(ctl, &cs, out);
	rpc_put_lit(out, "pid");
	rpc_put_int(out, (int64_t)s->ctl->pid);
	return DISPATCH_REPLY;
}

enum dispatch_result method_subscribe(struct session *s, const struct rpc_request *req,
				      struct rpc_args *args, struct rpc_out *out,
				      struct rpc_error *err)
{
	uint64_t mask = 0;
	uint32_t n = 0;

	(void)req;
	(void)err;
	rpc_args_enum_mask(args, "events", RPC_REQUIRED, proto_event_names, PROTO_EVENT_COUNT,
			   &mask);
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	s->subscriptions = mask;
	/* Instances report clip.event only to an owner that listens: the
	 * others arm nothing. */
	if (s->owns.clip_events != ((mask >> PROTO_EVENT_CLIP_EVENT) & 1)) {
		s->owns.clip_events = (mask >> PROTO_EVENT_CLIP_EVENT) & 1;
		instances_owner_changed(s->ctl->instances, &s->owns);
	}
	for (int e = 0; e < PROTO_EVENT_COUNT; e++)
		n += (mask >> e) & 1;
	rpc_put_map(out, 1);
	rpc_put_lit(out, "events");
	rpc_put_array(out, n);
	for (int e = 0; e < PROTO_EVENT_COUNT; e++)
		if ((mask >> e) & 1)
			rpc_put_cstr(out, proto_event_name((enum proto_event)e));
	return DISPATCH_REPLY;
}
