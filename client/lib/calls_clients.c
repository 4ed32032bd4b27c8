/*
 * clients.list, clients.kill, instances.list with "all", and stop, pause,
 * resume with "any": the connections, and what an operator does about one
 * (PROTOCOL.md, "Operators").  These speak the daemon's instance ids: an
 * instance of another connection has no id of this library's.
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <string.h>

/* ---- clients.list ----------------------------------------------------- */

static int clients_list_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid,
			     const void *params)
{
	(void)c;
	(void)params;
	return rpc_pack_request(pk, msgid, "clients.list", 0);
}

static int clients_list_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_client_list *l = ac_res_new(sizeof *l);
	struct ac_parse p = { .res = l };
	const msgpack_object *arr;
	const animc_client_info **items;
	size_t n;

	(void)c;
	if (l == NULL)
		return -ENOMEM;
	call->result = l;
	arr = ac_obj_array(&p, r, "clients", &n);
	items = ac_res_alloc(l, (n ? n : 1) * sizeof *items);
	if (items == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n && p.err == 0; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];
		animc_client_info *ci = ac_res_alloc(l, sizeof *ci);

		if (ci == NULL)
			return -ENOMEM;
		if (o->type != MSGPACK_OBJECT_MAP) {
			ac_obj_fail(&p, "clients");
			break;
		}
		ci->connection = ac_obj_u64(&p, o, "connection", 0);
		ci->name = ac_obj_str(&p, o, "name");
		ci->pid = ac_obj_i64(&p, o, "pid", 0);
		ci->uid = ac_obj_u64(&p, o, "uid", 0);
		ci->gid = ac_obj_u64(&p, o, "gid", 0);
		ci->since = ac_obj_f64(&p, o, "since", 0);
		ci->age = ac_obj_f64(&p, o, "age", 0);
		ci->requests = ac_obj_u64(&p, o, "requests", 0);
		ci->instances = ac_obj_u64(&p, o, "instances", 0);
		ci->streams = ac_obj_u64(&p, o, "streams", 0);
		ci->events = ac_obj_u64(&p, o, "events", 0);
		ci->monitor = ac_obj_bool(&p, o, "monitor", 0);
		ci->self = ac_obj_bool(&p, o, "self", 0);
		ci->queued_bytes = ac_obj_u64(&p, o, "queued_bytes", 0);
		ci->memory_bytes = ac_obj_u64(&p, o, "memory_bytes", 0);
		items[i] = ci;
	}
	l->count = p.err == 0 ? n : 0;
	l->clients = items;
	return p.err;
}

static const struct ac_method method_clients_list = { "clients.list", clients_list_pack,
						      clients_list_reply, NULL, NULL };

int animc_clients_list(animc_client *c, animc_client_list **out)
{
	return ac_rpc_call(c, &method_clients_list, NULL, (void **)out);
}

/* ---- clients.kill ----------------------------------------------------- */

struct clients_kill {
	uint64_t connection;
	const char *reason;
};

static int clients_kill_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid,
			     const void *params)
{
	const struct clients_kill *k = params;

	(void)c;
	if (rpc_pack_request(pk, msgid, "clients.kill", k->reason != NULL ? 2 : 1) < 0 ||
	    ac_pack_kv_u64(pk, "connection", k->connection) < 0 ||
	    (k->reason != NULL && ac_pack_kv_str(pk, "reason", k->reason) < 0))
		return -ENOMEM;
	return 0;
}

static int clients_kill_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_kill_info *k = ac_res_new(sizeof *k);
	struct ac_parse p = { .res = k };

	(void)c;
	if (k == NULL)
		return -ENOMEM;
	call->result = k;
	k->connection = ac_obj_u64(&p, r, "connection", 0);
	k->name = ac_obj_str(&p, r, "name");
	k->pid = ac_obj_i64(&p, r, "pid", 0);
	k->instances = ac_obj_u64(&p, r, "instances", 0);
	k->streams = ac_obj_u64(&p, r, "streams", 0);
	return p.err;
}

static const struct ac_method method_clients_kill = { "clients.kill", clients_kill_pack,
						      clients_kill_reply, NULL, NULL };

int animc_clients_kill(animc_client *c, uint64_t connection, const char *reason,
		       animc_kill_info **out)
{
	struct clients_kill k = { connection, reason };

	if (connection == 0 ||
	    (reason != NULL && rpc_utf8_valid_prefix(reason, strlen(reason)) != strlen(reason)))
		return c != NULL ? ac_client_fail(c, -EINVAL, "clients.kill: %s",
						  connection == 0 ? "no connection 0"
								  : "the reason is not UTF-8")
				 : -EINVAL;
	return ac_rpc_call(c, &method_clients_kill, &k, (void **)out);
}

/* ---- instances.list with "all" ---------------------------------------- */

static int list_all_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	(void)c;
	(void)params;
	if (rpc_pack_request(pk, msgid, "instances.list", 1) < 0 || rpc_pack_cstr(pk, "all") < 0 ||
	    rpc_pack_bool(pk, true) < 0)
		return -ENOMEM;
	return 0;
}

static int list_all_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_owned_instance_list *l = ac_res_new(sizeof *l);
	struct ac_parse p = { .res = l };
	const msgpack_object *arr;
	const animc_owned_instance **items;
	size_t n;

	if (l == NULL)
		return -ENOMEM;
	call->result = l;
	arr = ac_obj_array(&p, r, "instances", &n);
	items = ac_res_alloc(l, (n ? n : 1) * sizeof *items);
	if (items == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n && p.err == 0; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];
		animc_owned_instance *oi = ac_res_alloc(l, sizeof *oi);
		animc_instance *st = ac_res_alloc(l, sizeof *st);

		if (oi == NULL || st == NULL)
			return -ENOMEM;
		/* The daemon's ids, as they are: not translated, and the
		 * records of this client's own are left to instances.list. */
		if (ac_play_parse_instance(c, &p, o, st) < 0)
			break;
		oi->instance = st;
		oi->connection = ac_obj_u64(&p, o, "connection", 0);
		oi->client = ac_obj_str(&p, o, "client");
		oi->own = ac_instances_by_server(c, st->id) != NULL;
		items[i] = oi;
	}
	l->count = p.err == 0 ? n : 0;
	l->instances = items;
	return p.err;
}

static const struct ac_method method_list_all = { "instances.list", list_all_pack,
						  list_all_reply, NULL, NULL };

int animc_instances_list_all(animc_client *c, animc_owned_instance_list **out)
{
	return ac_rpc_call(c, &method_list_all, NULL, (void **)out);
}

/* ---- stop, pause, resume with "any" ----------------------------------- */

static int any_pack(msgpack_packer *pk, uint32_t msgid, const char *method, const void *params)
{
	if (rpc_pack_request(pk, msgid, method, 2) < 0 ||
	    ac_pack_kv_u64(pk, "instance", *(const uint64_t *)params) < 0 ||
	    rpc_pack_cstr(pk, "any") < 0 || rpc_pack_bool(pk, true) < 0)
		return -ENOMEM;
	return 0;
}

/* The state of any connection's instance, its id the daemon's; one of
 * this client's own has its record updated (or, stopped, forgotten). */
static int any_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_instance *st = ac_res_new(sizeof *st);
	struct ac_parse p = { .res = st };
	struct ac_instance *in;
	int rc;

	if (st == NULL)
		return -ENOMEM;
	call->result = st;
	rc = ac_play_parse_instance(c, &p, r, st);
	if (rc < 0)
		return rc;
	in = ac_instances_by_server(c, st->id);
	if (in != NULL && st->state == ANIMC_STATE_STOPPED) {
		ac_instances_forget(c, in);
	} else if (in != NULL) {
		in->anchor_ns = 0;
		ac_instances_note(c, in, st);
	}
	return 0;
}

#define ANY_METHOD(fn, wire)                                                            \
	static int fn##_any_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid,   \
				 const void *params)                                    \
	{                                                                               \
		(void)c;                                                                \
		return any_pack(pk, msgid, wire, params);                               \
	}                                                                               \
	static const struct ac_method method_##fn##_any = { wire, fn##_any_pack, any_reply, \
							    NULL, NULL }

ANY_METHOD(stop, "stop");
ANY_METHOD(pause, "pause");
ANY_METHOD(resume, "resume");

int animc_stop_any(animc_client *c, uint64_t instance, animc_instance **out)
{
	return ac_rpc_call(c, &method_stop_any, &instance, (void **)out);
}

int animc_pause_any(animc_client *c, uint64_t instance, animc_instance **out)
{
	return ac_rpc_call(c, &method_pause_any, &instance, (void **)out);
}

int animc_resume_any(animc_client *c, uint64_t instance, animc_instance **out)
{
	return ac_rpc_call(c, &method_resume_any, &instance, (void **)out);
}
