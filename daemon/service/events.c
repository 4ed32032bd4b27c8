#include "events.h"

#include "proto/rpc.h"
#include "service/server.h"
#include "service/session.h"

static void events_send(struct service *svc, enum proto_event type, msgpack_sbuffer *sb)
{
	if (svc->server != NULL)
		server_broadcast(svc->server, type, sb->data, sb->size);
	msgpack_sbuffer_destroy(sb);
}

static void events_begin(msgpack_sbuffer *sb, msgpack_packer *pk, enum proto_event type,
			 uint32_t nfields)
{
	msgpack_sbuffer_init(sb);
	msgpack_packer_init(pk, sb, msgpack_sbuffer_write);
	rpc_pack_event(pk, type, nfields);
}

static void events_asset(struct service *svc, enum proto_event type, const char *asset,
			 uint64_t generation, const char *message)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;

	events_begin(&sb, &pk, type, message ? 4 : 3);
	rpc_pack_cstr(&pk, "asset");
	rpc_pack_cstr(&pk, asset);
	rpc_pack_cstr(&pk, "generation");
	msgpack_pack_uint64(&pk, generation);
	rpc_pack_cstr(&pk, "format");
	rpc_pack_cstr(&pk, asset_format_name(asset_detect(asset, NULL, 0)));
	if (message != NULL) {
		rpc_pack_cstr(&pk, "message");
		rpc_pack_cstr(&pk, message);
		/* Whether a good version stays in use (generation > 0). */
		rpc_pack_cstr(&pk, "live");
		rpc_pack_bool(&pk, generation > 0);
	}
	events_send(svc, type, &sb);
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
	msgpack_sbuffer sb;
	msgpack_packer pk;

	events_begin(&sb, &pk, PROTO_EVENT_ASSET_REMOVED, 1);
	rpc_pack_cstr(&pk, "asset");
	rpc_pack_cstr(&pk, asset);
	events_send(svc, PROTO_EVENT_ASSET_REMOVED, &sb);
}

/* Instance events go to the instance's own connection, if it subscribed. */
static void events_instance(struct service *svc, enum proto_event type,
			    const struct instance *in, const char *reason, const char *message)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;

	events_begin(&sb, &pk, type, reason ? 6 : 4);
	rpc_pack_cstr(&pk, "instance");
	msgpack_pack_uint64(&pk, in->id);
	rpc_pack_cstr(&pk, "asset");
	rpc_pack_cstr(&pk, in->asset_name);
	rpc_pack_cstr(&pk, "clip");
	if (in->clip_name != NULL)
		rpc_pack_cstr(&pk, in->clip_name);
	else
		msgpack_pack_nil(&pk);
	rpc_pack_cstr(&pk, "time");
	msgpack_pack_double(&pk, time_to_seconds(instance_time(in)));
	if (reason != NULL) {
		rpc_pack_cstr(&pk, "reason");
		rpc_pack_cstr(&pk, reason);
		rpc_pack_cstr(&pk, "message");
		rpc_pack_cstr(&pk, message);
	}
	if (!in->owner->closing && (in->owner->subscriptions & (UINT64_C(1) << type)))
		session_send(in->owner, sb.data, sb.size);
	msgpack_sbuffer_destroy(&sb);
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
	msgpack_sbuffer sb;
	msgpack_packer pk;

	events_begin(&sb, &pk, PROTO_EVENT_SERVER_STOPPING, 0);
	if (svc->server != NULL)
		server_broadcast(svc->server, PROTO_EVENT_COUNT, sb.data, sb.size);
	msgpack_sbuffer_destroy(&sb);
}
