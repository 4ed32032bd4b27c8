/* stats and monitor: what the daemon is doing (animctl top, animctl monitor). */
#include "client/lib/internal.h"

#include <errno.h>

static int stats_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	(void)c;
	(void)params;
	return rpc_pack_request(pk, msgid, "stats", 0);
}

/* n pointers, and n elements of `size` bytes they point at, in the result;
 * NULL (with p->err set) when out of memory. */
static void **stats_elements(struct ac_parse *p, size_t n, size_t size)
{
	void **v;
	char *e;

	if (n == 0)
		return NULL;
	v = ac_res_alloc(p->res, n * sizeof *v);
	e = ac_res_alloc(p->res, n * size);
	if (v == NULL || e == NULL) {
		p->err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = e + i * size;
	return v;
}

static void stats_connections(struct ac_parse *p, const msgpack_object *r, animc_stats_info *s)
{
	size_t n = 0;
	const msgpack_object *arr = ac_obj_array(p, r, "connections", &n);
	animc_stats_connection **v = (animc_stats_connection **)stats_elements(p, n, sizeof **v);

	if (arr == NULL || v == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];

		if (o->type != MSGPACK_OBJECT_MAP) {
			ac_obj_fail(p, "stats: connections[]");
			return;
		}
		v[i]->connection = ac_obj_u64(p, o, "connection", 0);
		v[i]->pid = ac_obj_i64(p, o, "pid", 0);
		v[i]->uid = ac_obj_u64(p, o, "uid", 0);
		v[i]->age = ac_obj_f64(p, o, "age", 0);
		v[i]->requests = ac_obj_u64(p, o, "requests", 0);
		v[i]->instances = ac_obj_u64(p, o, "instances", 0);
		v[i]->streams = ac_obj_u64(p, o, "streams", 0);
		v[i]->events = ac_obj_u64(p, o, "events", 0);
		v[i]->queued_bytes = ac_obj_u64(p, o, "queued_bytes", 0);
		v[i]->self = ac_obj_bool(p, o, "self", 0);
		v[i]->monitor = ac_obj_bool(p, o, "monitor", 0);
	}
	s->connections = (const animc_stats_connection *const *)v;
	s->connection_count = n;
}

static void stats_streams(struct ac_parse *p, const msgpack_object *r, animc_stats_info *s)
{
	size_t n = 0;
	const msgpack_object *arr = ac_obj_array(p, r, "streams", &n);
	animc_stats_stream **v = (animc_stats_stream **)stats_elements(p, n, sizeof **v);

	if (arr == NULL || v == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];

		if (o->type != MSGPACK_OBJECT_MAP) {
			ac_obj_fail(p, "stats: streams[]");
			return;
		}
		v[i]->stream = ac_obj_u64(p, o, "stream", 0);
		v[i]->connection = ac_obj_u64(p, o, "connection", 0);
		v[i]->space = ac_obj_str(p, o, "space");
		v[i]->rate = (uint32_t)ac_obj_u64(p, o, "rate", 0);
		v[i]->tick_rate = ac_obj_f64(p, o, "tick_rate", 0);
		v[i]->instances = (uint32_t)ac_obj_u64(p, o, "instances", 0);
		v[i]->channels = (uint32_t)ac_obj_u64(p, o, "channels", 0);
		v[i]->region_bytes = ac_obj_u64(p, o, "region_bytes", 0);
		v[i]->ticks = ac_obj_u64(p, o, "ticks", 0);
		v[i]->late_ticks = ac_obj_u64(p, o, "late_ticks", 0);
		v[i]->skipped_ticks = ac_obj_u64(p, o, "skipped_ticks", 0);
		v[i]->poses = ac_obj_u64(p, o, "poses", 0);
		v[i]->shared_poses = ac_obj_u64(p, o, "shared_poses", 0);
		v[i]->change_poses = ac_obj_u64(p, o, "change_poses", 0);
		v[i]->cpu_ns = ac_obj_u64(p, o, "cpu_ns", 0);
		v[i]->cpu_us_per_pose = ac_obj_f64(p, o, "cpu_us_per_pose", 0);
		v[i]->tick_threads = (uint32_t)ac_obj_u64(p, o, "tick_threads", 0);
	}
	s->streams = (const animc_stats_stream *const *)v;
	s->stream_count = n;
}

static void stats_log(struct ac_parse *p, const msgpack_object *r, animc_stats_info *s)
{
	const msgpack_object *log = ac_obj_get(r, "log"), *arr;
	animc_stats_log_line **v;
	size_t n = 0;

	if (log == NULL || log->type != MSGPACK_OBJECT_MAP)
		return;
	s->log_errors = ac_obj_u64(p, log, "errors", 0);
	s->log_warnings = ac_obj_u64(p, log, "warnings", 0);
	arr = ac_obj_array(p, log, "recent", &n);
	v = (animc_stats_log_line **)stats_elements(p, n, sizeof **v);
	if (arr == NULL || v == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];

		if (o->type != MSGPACK_OBJECT_MAP) {
			ac_obj_fail(p, "stats: log.recent[]");
			return;
		}
		v[i]->time = ac_obj_f64(p, o, "time", 0);
		v[i]->level = ac_obj_str(p, o, "level");
		v[i]->message = ac_obj_str(p, o, "message");
	}
	s->recent = (const animc_stats_log_line *const *)v;
	s->recent_count = n;
}

static int stats_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_stats_info *s = ac_res_new(sizeof *s);
	struct ac_parse p = { .res = s };
	const msgpack_object *assets;

	(void)c;
	if (s == NULL)
		return -ENOMEM;
	call->result = s;
	s->uptime = ac_obj_f64(&p, r, "uptime", 0);
	s->time = ac_obj_f64(&p, r, "time", 0);
	s->requests = ac_obj_u64(&p, r, "requests", 0);
	s->instances = ac_obj_u64(&p, r, "instances", 0);
	stats_connections(&p, r, s);
	stats_streams(&p, r, s);
	assets = ac_obj_get(r, "assets");
	if (assets != NULL && assets->type == MSGPACK_OBJECT_MAP) {
		s->assets.count = ac_obj_u64(&p, assets, "count", 0);
		s->assets.failing = ac_obj_u64(&p, assets, "failing", 0);
		s->assets_unservable = ac_obj_u64(&p, assets, "unservable", 0);
		s->assets.loaded = ac_obj_u64(&p, assets, "loaded", 0);
		s->assets.reloaded = ac_obj_u64(&p, assets, "reloaded", 0);
		s->assets.errors = ac_obj_u64(&p, assets, "errors", 0);
		s->assets.removed = ac_obj_u64(&p, assets, "removed", 0);
		s->assets.scans = ac_obj_u64(&p, assets, "scans", 0);
	}
	s->sighups = ac_obj_u64(&p, r, "sighups", 0);
	s->config_reloads = ac_obj_u64(&p, r, "config_reloads", 0);
	stats_log(&p, r, s);
	return p.err;
}

static const struct ac_method method_stats = { "stats", stats_pack, stats_reply, NULL, NULL };

int animc_stats(animc_client *c, animc_stats_info **out)
{
	return ac_rpc_call(c, &method_stats, NULL, (void **)out);
}

int animc_stats_async(animc_client *c, animc_done_fn done, void *user)
{
	return ac_rpc_call_async(c, &method_stats, NULL, done, user);
}

/* ---- monitor ---------------------------------------------------------- */

static int monitor_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	(void)c;
	(void)params;
	return rpc_pack_request(pk, msgid, "monitor", 0);
}

static int monitor_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	(void)c;
	(void)call;
	return r->type == MSGPACK_OBJECT_MAP ? 0 : -EPROTO;
}

static const struct ac_method method_monitor = { "monitor", monitor_pack, monitor_reply, NULL,
						 NULL };

int animc_monitor(animc_client *c)
{
	return ac_rpc_call(c, &method_monitor, NULL, NULL);
}
