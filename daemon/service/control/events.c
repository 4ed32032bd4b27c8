#include "daemon/service/control/events.h"

#include "daemon/assets/event_id.h"
#include "daemon/service/control/listener.h"
#include "daemon/service/control/session.h"
#include "proto/rpc.h"

/* Send to every subscriber of `type` (PROTO_EVENT_COUNT: every client). */
static void events_send(struct control *ctl, enum proto_event type, struct rpc_out *out)
{
	if (ctl->listener != NULL && !rpc_out_failed(out))
		listener_broadcast(ctl->listener, type, out->data, out->len);
	rpc_out_free(out);
}

static void events_asset(struct control *ctl, enum proto_event type, const char *asset,
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
	events_send(ctl, type, &out);
}

void events_asset_loaded(struct control *ctl, const char *asset, uint64_t generation)
{
	events_asset(ctl, PROTO_EVENT_ASSET_LOADED, asset, generation, NULL);
}

void events_asset_reloaded(struct control *ctl, const char *asset, uint64_t generation)
{
	events_asset(ctl, PROTO_EVENT_ASSET_RELOADED, asset, generation, NULL);
}

void events_asset_error(struct control *ctl, const char *asset, const char *message,
			uint64_t live_generation)
{
	events_asset(ctl, PROTO_EVENT_ASSET_ERROR, asset, live_generation, message);
}

void events_asset_removed(struct control *ctl, const char *asset)
{
	struct rpc_out out = RPC_OUT_INIT;

	rpc_put_event(&out, PROTO_EVENT_ASSET_REMOVED, 1);
	rpc_put_lit(&out, "asset");
	rpc_put_cstr(&out, asset);
	events_send(ctl, PROTO_EVENT_ASSET_REMOVED, &out);
}

/* Instance events go to the instance's own connection, if it subscribed. */
static void events_instance(enum proto_event type, const struct instance *in, const char *reason,
			    const char *message)
{
	struct session *s = session_of_owner(in->owner);
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
	if (!s->closing && (s->subscriptions & (UINT64_C(1) << type)) && !rpc_out_failed(&out))
		session_send(s, out.data, out.len);
	rpc_out_free(&out);
}

void events_instance_ended(void *ctx, const struct instance *in)
{
	(void)ctx;
	events_instance(PROTO_EVENT_INSTANCE_ENDED, in, NULL, NULL);
}

void events_instance_stopped(void *ctx, const struct instance *in, const char *reason,
			     const char *message)
{
	(void)ctx;
	events_instance(PROTO_EVENT_INSTANCE_STOPPED, in, reason, message);
}

void events_instance_faded(void *ctx, const struct instance *in)
{
	(void)ctx;
	events_instance(PROTO_EVENT_INSTANCE_FADED, in, NULL, NULL);
}

void events_layer_ended(void *ctx, const struct instance *in, uint32_t layer, const char *clip)
{
	struct session *s = session_of_owner(in->owner);
	struct rpc_out out = RPC_OUT_INIT;

	(void)ctx;
	rpc_put_event(&out, PROTO_EVENT_LAYER_ENDED, 4);
	rpc_put_lit(&out, "instance");
	rpc_put_uint(&out, in->id);
	rpc_put_lit(&out, "layer");
	rpc_put_uint(&out, layer);
	rpc_put_lit(&out, "clip");
	rpc_put_cstr(&out, clip);
	rpc_put_lit(&out, "time");
	rpc_put_double(&out, time_to_seconds(instance_time(in)));
	if (!s->closing && (s->subscriptions & (UINT64_C(1) << PROTO_EVENT_LAYER_ENDED)) &&
	    !rpc_out_failed(&out))
		session_send(s, out.data, out.len);
	rpc_out_free(&out);
}

void events_clip_event(void *ctx, const struct instance *in, const struct cue *cue)
{
	struct session *s = session_of_owner(in->owner);
	const struct m2_event_info *e;
	struct rpc_out out = RPC_OUT_INIT;
	char id[EVENT_ID_TEXT_BYTES];

	(void)ctx;
	if (s->closing || !(s->subscriptions & (UINT64_C(1) << PROTO_EVENT_CLIP_EVENT)) ||
	    cue->moment->event >= in->asset->event_count)
		return;
	e = &in->asset->events[cue->moment->event];
	event_id_text(e->id, id);
	rpc_put_event(&out, PROTO_EVENT_CLIP_EVENT, 14);
	rpc_put_lit(&out, "instance");
	rpc_put_uint(&out, in->id);
	rpc_put_lit(&out, "asset");
	rpc_put_cstr(&out, in->asset_name);
	rpc_put_lit(&out, "clip");
	rpc_put_cstr(&out, in->clip_name);
	rpc_put_lit(&out, "event");
	rpc_put_uint(&out, cue->moment->event);
	rpc_put_lit(&out, "id");
	rpc_put_cstr(&out, id);
	rpc_put_lit(&out, "data");
	rpc_put_uint(&out, e->data);
	rpc_put_lit(&out, "bone");
	rpc_put_uint(&out, e->bone);
	rpc_put_lit(&out, "joint");
	if (e->joint >= 0)
		rpc_put_int(&out, e->joint);
	else
		rpc_put_nil(&out);
	rpc_put_lit(&out, "position");
	rpc_put_float_array(&out, &e->position.x, 3);
	rpc_put_lit(&out, "time");
	rpc_put_double(&out, time_to_seconds(cue->moment->t_ns));
	rpc_put_lit(&out, "playback_time");
	rpc_put_double(&out, time_to_seconds(cue->playback_ns));
	rpc_put_lit(&out, "at_ns");
	rpc_put_int(&out, cue->at_ns);
	rpc_put_lit(&out, "direction");
	rpc_put_cstr(&out, cue->forward ? "forward" : "backward");
	rpc_put_lit(&out, "missed");
	rpc_put_uint(&out, cue->missed);
	if (!rpc_out_failed(&out))
		session_send(s, out.data, out.len);
	rpc_out_free(&out);
}

void events_server_stopping(struct control *ctl)
{
	struct rpc_out out = RPC_OUT_INIT;

	rpc_put_event(&out, PROTO_EVENT_SERVER_STOPPING, 0);
	events_send(ctl, PROTO_EVENT_COUNT, &out);
}
