/* hello, status and subscribe: the daemon itself and this connection. */
#include "client/lib/internal.h"

#include <errno.h>
#include <stdio.h>

static int info_pack_none(animc_client *c, msgpack_packer *pk, uint32_t msgid,
			  const char *method)
{
	(void)c;
	return rpc_pack_request(pk, msgid, method, 0);
}

/* ---- hello ------------------------------------------------------------ */

static int hello_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	(void)params;
	/* The name, when there is one: every hello, so a reconnection names
	 * the new connection too. */
	if (c->name[0] == '\0' || c->hello_unnamed)
		return info_pack_none(c, pk, msgid, "hello");
	if (rpc_pack_request(pk, msgid, "hello", 1) < 0 || ac_pack_kv_str(pk, "name", c->name) < 0)
		return -ENOMEM;
	return 0;
}

static int hello_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_hello_info *h = ac_res_new(sizeof *h);
	struct ac_parse p = { .res = h };

	if (h == NULL)
		return -ENOMEM;
	call->result = h;
	h->protocol = (uint32_t)ac_obj_u64(&p, r, "protocol", 0);
	h->server = ac_obj_str(&p, r, "server");
	h->pid = (uint32_t)ac_obj_i64(&p, r, "pid", 0);
	h->connection = ac_obj_u64(&p, r, "connection", 0);
	h->max_message_bytes = ac_obj_u64(&p, r, "max_message_bytes", 0);
	if (p.err < 0)
		return p.err;
	if (h->protocol == 0)
		return -EPROTO;
	snprintf(c->server, sizeof c->server, "%s", h->server ? h->server : "");
	c->server_pid = h->pid;
	return 0;
}

const struct ac_method ac_method_hello = { "hello", hello_pack, hello_reply, NULL, NULL };

int animc_hello(animc_client *c, animc_hello_info **out)
{
	return ac_rpc_call(c, &ac_method_hello, NULL, (void **)out);
}

int animc_hello_async(animc_client *c, animc_done_fn done, void *user)
{
	return ac_rpc_call_async(c, &ac_method_hello, NULL, done, user);
}

/* ---- status ----------------------------------------------------------- */

static int status_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	(void)params;
	return info_pack_none(c, pk, msgid, "status");
}

static int status_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_status_info *s = ac_res_new(sizeof *s);
	struct ac_parse p = { .res = s };
	const msgpack_object *assets, *mem, *am, *states;

	(void)c;
	if (s == NULL)
		return -ENOMEM;
	call->result = s;
	s->server = ac_obj_str(&p, r, "server");
	s->uptime = ac_obj_f64(&p, r, "uptime", 0);
	s->asset_root = ac_obj_str(&p, r, "asset_root");
	s->pid = (uint32_t)ac_obj_i64(&p, r, "pid", 0);
	/* `assets` is a count (PROTOCOL.md) or a map of counts (the daemon
	 * now): take either. */
	assets = ac_obj_get(r, "assets");
	if (assets != NULL && assets->type == MSGPACK_OBJECT_MAP) {
		s->assets = ac_obj_u64(&p, assets, "count", 0);
		s->assets_failing = ac_obj_u64(&p, assets, "failing", 0);
		s->assets_loading = ac_obj_u64(&p, assets, "loading", 0);
		s->directories = ac_obj_u64(&p, assets, "directories", 0);
		s->assets_unservable = ac_obj_u64(&p, assets, "unservable", 0);
		s->assets_evictions = ac_obj_u64(&p, assets, "evictions", 0);
		s->assets_on_demand_loads = ac_obj_u64(&p, assets, "on_demand_loads", 0);
		s->assets_over_cap = ac_obj_bool(&p, assets, "over_cap", 0);
		states = ac_obj_get(assets, "states");
		if (states != NULL && states->type == MSGPACK_OBJECT_MAP) {
			s->assets_not_loaded = ac_obj_u64(&p, states, "loading", 0);
			s->assets_evicted = ac_obj_u64(&p, states, "evicted", 0);
		}
	} else {
		s->assets = ac_obj_u64(&p, r, "assets", 0);
	}
	s->instances = ac_obj_u64(&p, r, "instances", 0);
	s->connections = ac_obj_u64(&p, r, "connections", 0);
	s->requests = ac_obj_u64(&p, r, "requests", 0);
	s->memory_bytes = ac_obj_u64(&p, r, "memory_bytes", 0);
	mem = ac_obj_get(r, "memory");
	if (mem != NULL && mem->type == MSGPACK_OBJECT_MAP) {
		s->memory.total = ac_obj_u64(&p, mem, "total", 0);
		s->memory.streams = ac_obj_u64(&p, mem, "streams", 0);
		s->memory.streams_budget = ac_obj_u64(&p, mem, "streams_budget", 0);
		s->assets_cap = ac_obj_u64(&p, mem, "assets_cap", 0);
		s->memory.instances = ac_obj_u64(&p, mem, "instances", 0);
		s->memory.connections = ac_obj_u64(&p, mem, "connections", 0);
		am = ac_obj_get(mem, "assets");
		if (am != NULL && am->type == MSGPACK_OBJECT_MAP) {
			s->memory.assets = ac_obj_u64(&p, am, "total", 0);
			s->memory.skeletons = ac_obj_u64(&p, am, "skeletons", 0);
			s->memory.clips = ac_obj_u64(&p, am, "clips", 0);
			s->memory.meshes = ac_obj_u64(&p, am, "meshes", 0);
			s->memory.cameras = ac_obj_u64(&p, am, "cameras", 0);
			s->memory.emitters = ac_obj_u64(&p, am, "emitters", 0);
			s->memory.other = ac_obj_u64(&p, am, "other", 0);
		}
	}
	return p.err;
}

static const struct ac_method method_status = { "status", status_pack, status_reply, NULL, NULL };

int animc_status(animc_client *c, animc_status_info **out)
{
	return ac_rpc_call(c, &method_status, NULL, (void **)out);
}

int animc_status_async(animc_client *c, animc_done_fn done, void *user)
{
	return ac_rpc_call_async(c, &method_status, NULL, done, user);
}

/* ---- subscribe -------------------------------------------------------- */

static int subscribe_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid,
			  const void *params)
{
	/* Every type but monitor.request, which is not subscribed to. */
	const unsigned subscribable =
		(((ANIMC_EVENT_BIT(ANIMC_EVENT_CLIP_EVENT) << 1) - 2u)) &
		~ANIMC_EVENT_BIT(ANIMC_EVENT_MONITOR_REQUEST);
	unsigned mask = *(const unsigned *)params;
	uint32_t n = 0;

	(void)c;
	for (int t = ANIMC_EVENT_ASSET_LOADED; t <= ANIMC_EVENT_CLIP_EVENT; t++)
		n += (mask & subscribable) >> t & 1u;
	if (mask & ~subscribable)
		return -EINVAL;
	if (rpc_pack_request(pk, msgid, "subscribe", 1) < 0 || rpc_pack_cstr(pk, "events") < 0 ||
	    msgpack_pack_array(pk, n) != 0)
		return -ENOMEM;
	for (int t = ANIMC_EVENT_ASSET_LOADED; t <= ANIMC_EVENT_CLIP_EVENT; t++)
		if (((mask >> t) & 1u) && rpc_pack_cstr(pk, animc_event_name(t)) < 0)
			return -ENOMEM;
	return 0;
}

static int subscribe_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	unsigned *mask = ac_res_new(sizeof *mask);
	struct ac_parse p = { .res = mask };
	const msgpack_object *events;
	size_t n;

	if (mask == NULL)
		return -ENOMEM;
	call->result = mask;
	events = ac_obj_array(&p, r, "events", &n);
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &events->via.array.ptr[i];
		char name[64];
		animc_event_type t;

		if (o->type != MSGPACK_OBJECT_STR || o->via.str.size >= sizeof name)
			continue;       /* a name this library cannot know */
		snprintf(name, sizeof name, "%.*s", (int)o->via.str.size, o->via.str.ptr);
		t = animc_event_lookup(name);
		if (t != ANIMC_EVENT_UNKNOWN)
			*mask |= ANIMC_EVENT_BIT(t);
	}
	if (p.err < 0)
		return p.err;
	/* Renewed after a reconnection. */
	c->sub_mask = *mask;
	c->sub_set = true;
	return 0;
}

const struct ac_method ac_method_subscribe = { "subscribe", subscribe_pack, subscribe_reply,
					       NULL, NULL };

int animc_subscribe(animc_client *c, unsigned mask, unsigned *in_force)
{
	unsigned *r = NULL;
	int rc = ac_rpc_call(c, &ac_method_subscribe, &mask, (void **)&r);

	if (rc == 0 && in_force != NULL)
		*in_force = *r;
	ac_res_free(r);
	return rc;
}

int animc_subscribe_async(animc_client *c, unsigned mask, animc_done_fn done, void *user)
{
	return ac_rpc_call_async(c, &ac_method_subscribe, &mask, done, user);
}
