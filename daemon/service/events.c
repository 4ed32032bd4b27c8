#include "daemon/service/events.h"

#include "proto/rpc.h"
#include "daemon/service/server.h"
#include "daemon/service/session.h"

/* Send to every subscriber of `type` (PROTO_EVENT_COUNT: every client). */
static void events_send(struct service *svc, enum proto_event type, struct rpc_out *out)
{
	if (svc->server != NULL && !rpc_out_failed(out))
		server_broadcast(svc->server, type, out->data, out->len);
	rpc_out_free(out);
}

static void events_asset(struct service *svc, enum proto_event type, const char *asset,
			 uint64_t generation, const char *message)
{
	struct rpc_out out = RPC_OUT_INIT;

	rpc_put_event(&out, type, message ? 5 : 3);
	rpc_put_lit(&out, "asset");
	rpc_put_cstr(&out, asset);
	rpc_put_lit(&out, "generation");
	rpc_put_uint(&out, generation);
	rpc_put_lit(&out, "format");
	rpc_put_cstr(&out, asset_format_name(asset_detect(asset, NULL, 0)));
	if (message != NULL) {
		rpc_put_lit(&out, "message");
		rpc_put_cstr(&out, message);
		/* Whether a good version stays in use (generation > 0). */
		rpc_put_lit(&out, "live");
		rpc_put_bool(&out, generation > 0);
	}
	events_send(svc, type, &out);
}

void events_asset_loaded(struct service *svc, const char *asset, uint64_t generation)
{
	events_asset(svc, PROTO_EVENT_ASSET_LOADED, asset, generation, NULL);
}

void events_asset_reloaded(struct service *svc, const char *asset, uint64_t generation)
{
	events_asset(svc, PROTO_EVENT_ASSET_RELOADED, asset, generation, NULL);
}

void events_asset_error(struct service *svc, const char *asset, const char *message,
			uint64_t live_generation)
{
	events_asset(svc, PROTO_EVENT_ASSET_ERROR, asset, live_generation, message);
}

void events_asset_removed(struct service *svc, const char *asset)
{
	struct rpc_out out = RPC_OUT_INIT;

	rpc_put_event(&out, PROTO_EVENT_ASSET_REMOVED, 1);
	rpc_put_lit(&out, "asset");
	rpc_put_cstr(&out, asset);
	events_send(svc, PROTO_EVENT_ASSET_REMOVED, &out);
}

/* Instance events go to the instance's own connection, if it subscribed. */
static void events_instance(struct service *svc, enum proto_event type,
			    const struct instance *in, const char *reason, const char *message)
{
	struct rpc_out out = RPC_OUT_INIT;

	rpc_put_event(&out, type, reason ? 6 : 4);
	rpc_put_lit(&out, "instance");
	rpc_put_uint(&out, in->id);
	rpc_put_lit(&out, "asset");
	rpc_put_cstr(&out, in->asset_name);
	rpc_put_lit(&out, "clip");
	if (in->clip_name != NULL)
		rpc_put_cstr(&out, in->clip_name);
	else
		rpc_put_nil(&out);
	rpc_put_lit(&out, "time");
	rpc_put_double(&out, time_to_seconds(instance_time(in)));
	if (reason != NULL) {
		rpc_put_lit(&out, "reason");
		rpc_put_cstr(&out, reason);
		rpc_put_lit(&out, "message");
		rpc_put_cstr(&out, message);
	}
	if (!in->owner->closing && (in->owner->subscriptions & (UINT64_C(1) << type)) &&
	    !rpc_out_failed(&out))
		session_send(in->owner, out.data, out.len);
	rpc_out_free(&out);
	(void)svc;
}

void events_instance_ended(struct service *svc, const struct instance *in)
{
	events_instance(svc, PROTO_EVENT_INSTANCE_ENDED, in, NULL, NULL);
}

void events_instance_stopped(struct service *svc, const struct instance *in, const char *reason,
			     const char *message)
{
	events_instance(svc, PROTO_EVENT_INSTANCE_STOPPED, in, reason, message);
}

void events_server_stopping(struct service *svc)
{
	struct rpc_out out = RPC_OUT_INIT;

	rpc_put_event(&out, PROTO_EVENT_SERVER_STOPPING, 0);
	events_send(svc, PROTO_EVENT_COUNT, &out);
}
