/* hello, status, subscribe: the connection and the daemon itself. */
#include <stdio.h>
#include <unistd.h>

#include "service/cache.h"
#include "service/dispatch.h"
#include "service/instances.h"
#include "service/server.h"
#include "service/streams.h"
#include "version.h"

enum dispatch_result method_hello(struct session *s, const struct rpc_request *req,
				  struct rpc_args *args, msgpack_packer *pk, struct rpc_error *err)
{
	(void)s;
	(void)req;
	(void)err;
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	msgpack_pack_map(pk, 5);
	rpc_pack_cstr(pk, "protocol");
	msgpack_pack_uint32(pk, ANIMD_PROTOCOL_VERSION);
	rpc_pack_cstr(pk, "server");
	rpc_pack_cstr(pk, "animd " ANIMD_VERSION);
	rpc_pack_cstr(pk, "pid");
	msgpack_pack_int64(pk, (int64_t)getpid());
	rpc_pack_cstr(pk, "connection");
	msgpack_pack_uint64(pk, s->id);
	rpc_pack_cstr(pk, "max_message_bytes");
	msgpack_pack_uint64(pk, s->svc->cfg.max_message_bytes);
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

enum dispatch_result method_status(struct session *s, const struct rpc_request *req,
				   struct rpc_args *args, msgpack_packer *pk, struct rpc_error *err)
{
	struct service *svc = s->svc;
	struct cache_stats cs;

	(void)req;
	(void)err;
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	cache_stats(svc->cache, &cs);
	msgpack_pack_map(pk, 10);
	rpc_pack_cstr(pk, "server");
	rpc_pack_cstr(pk, "animd " ANIMD_VERSION);
	rpc_pack_cstr(pk, "uptime");
	msgpack_pack_double(pk, (double)(service_now_ns() - svc->started_ns) / 1e9);
	rpc_pack_cstr(pk, "asset_root");
	rpc_pack_cstr(pk, cache_root(svc->cache));
	rpc_pack_cstr(pk, "assets");
	msgpack_pack_map(pk, 4);
	rpc_pack_cstr(pk, "count");
	msgpack_pack_uint64(pk, cs.assets);
	rpc_pack_cstr(pk, "failing");
	msgpack_pack_uint64(pk, cs.failing);
	rpc_pack_cstr(pk, "loading");
	msgpack_pack_uint64(pk, cs.loads_running + cs.loads_waiting);
	rpc_pack_cstr(pk, "directories");
	msgpack_pack_uint64(pk, cs.directories);
	rpc_pack_cstr(pk, "instances");
	msgpack_pack_uint64(pk, instances_count(svc->instances));
	rpc_pack_cstr(pk, "connections");
	msgpack_pack_uint64(pk, server_session_count(svc->server));
	rpc_pack_cstr(pk, "streams");
	msgpack_pack_uint64(pk, streams_count_all(svc));
	rpc_pack_cstr(pk, "requests");
	msgpack_pack_uint64(pk, svc->requests);
	rpc_pack_cstr(pk, "memory_bytes");
	msgpack_pack_uint64(pk, status_rss_bytes());
	rpc_pack_cstr(pk, "pid");
	msgpack_pack_int64(pk, (int64_t)getpid());
	return DISPATCH_REPLY;
}

enum dispatch_result method_subscribe(struct session *s, const struct rpc_request *req,
				      struct rpc_args *args, msgpack_packer *pk,
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
	for (int e = 0; e < PROTO_EVENT_COUNT; e++)
		n += (mask >> e) & 1;
	msgpack_pack_map(pk, 1);
	rpc_pack_cstr(pk, "events");
	msgpack_pack_array(pk, n);
	for (int e = 0; e < PROTO_EVENT_COUNT; e++)
		if ((mask >> e) & 1)
			rpc_pack_cstr(pk, proto_event_name((enum proto_event)e));
	return DISPATCH_REPLY;
}
