/* play, pause, resume, seek, speed, stop, instances.list. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "daemon/assets/sampling.h"
#include "daemon/service/base/log.h"
#include "daemon/service/control/dispatch.h"
#include "daemon/service/control/events.h"
#include "daemon/service/control/instance_pack.h"
#include "daemon/service/control/methods_play.h"
#include "daemon/service/control/lookup.h"
#include "daemon/service/control/operators.h"
#include "daemon/service/playback/instances.h"
#include "daemon/service/playback/streams.h"
#include "daemon/service/base/clock.h"
#include "daemon/service/base/config.h"
#include "proto/rpc.h"



int play_check_time(const char *method, const char *what, double v, struct rpc_error *err)
{
	if (fabs(v) <= PLAY_MAX_SECONDS)
		return 0;
	rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "%s: \"%s\" must be within +-%.0f seconds",
			 method, what, PLAY_MAX_SECONDS);
	return -1;
}

int play_check_speed(const char *method, double v, struct rpc_error *err)
{
	if (fabs(v) <= PLAY_MAX_SPEED)
		return 0;
	rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "%s: \"speed\" must be within +-%.0f",
			 method, PLAY_MAX_SPEED);
	return -1;
}

struct instance *play_own_instance(struct session *s, const char *method,
					  struct rpc_args *args, struct rpc_error *err,
					  uint64_t id, int ok)
{
	struct instance *in;

	(void)args;
	if (!ok)
		return NULL;
	in = instances_find(s->ctl->instances, id);
	if (in == NULL || in->owner != &s->owns) {
		rpc_error_format(err, PROTO_ERR_NOT_FOUND,
				 in ? "%s: instance %llu belongs to another connection"
				    : "%s: no instance %llu",
				 method, (unsigned long long)id);
		return NULL;
	}
	return in;
}


int play_check_fade(const char *method, double v, struct rpc_error *err)
{
	if (v >= 0 && v <= PLAY_MAX_FADE)
		return 0;
	rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "%s: \"fade\" must be 0 to %.0f seconds",
			 method, PLAY_MAX_FADE);
	return -1;
}

/* `at` as far from the daemon's clock as a day, either way: a client's
 * reading of the same clock, taken moments ago (the bound keeps the
 * playback arithmetic far from overflow). */
#define PLAY_MAX_AT_DISTANCE_NS (86400LL * 1000000000LL)

static int play_check_at(int64_t at, struct rpc_error *err)
{
	int64_t now = clock_now_ns();

	if (at >= now - PLAY_MAX_AT_DISTANCE_NS && at <= now + PLAY_MAX_AT_DISTANCE_NS)
		return 0;
	rpc_error_format(err, PROTO_ERR_BAD_REQUEST,
			 "play: \"at\" must be a time of the daemon's CLOCK_MONOTONIC in "
			 "nanoseconds (as a slot's publish_ns), within a day of now (%lld)",
			 (long long)now);
	return -1;
}

/* What a play on an instance asked for, validated. */
struct play_onto {
	struct cache_info info;         /* the asset (the instance's when not named) */
	const struct clip *clip;
	double speed, start, fade;
	int loop;
	bool has_start, has_fade, sync;
};

/* The default fade of a switch to clip c of asset a: an M2 sequence's
 * blend_ms, else the configuration's. */
static double play_default_fade(const struct control *ctl, const struct asset *a,
				const struct clip *c)
{
	if (a->format == ASSET_FORMAT_M2 && a->sequences != NULL)
		for (uint32_t i = 0; i < a->clip_count; i++)
			if (a->clips[i] == c)
				return a->sequences[i].blend_ms / 1000.0;
	return ctl->cfg->default_fade_ms / 1000.0;
}

int play_check_fit(const char *method, const struct instance *in, const struct asset *a,
		   const char *name, const struct clip *c, struct rpc_error *err)
{
	char why[256];

	if (in->clip == NULL) {
		rpc_error_format(err, PROTO_ERR_UNSUPPORTED,
				 "%s: instance %llu plays a camera: only skeletal clips blend", method,
				 (unsigned long long)in->id);
		return -1;
	}
	if (a->skeleton != NULL && in->asset->skeleton != NULL && a != in->asset &&
	    skeleton_check_binding(a->skeleton, in->asset->skeleton, why, sizeof why) < 0) {
		rpc_error_format(err, PROTO_ERR_ASSET_ERROR, "%s: %s does not fit instance %llu: %s",
				 method, name, (unsigned long long)in->id, why);
		return -1;
	}
	/* An emitters stream's slots were sized for the instance's asset. */
	if (a != in->asset && a->emitter_count != in->asset->emitter_count) {
		rpc_error_format(err, PROTO_ERR_ASSET_ERROR,
				 "%s: %s has %u particle emitters, instance %llu's asset %u", method,
				 name, a->emitter_count, (unsigned long long)in->id,
				 in->asset->emitter_count);
		return -1;
	}
	/* So were an attachments stream's. */
	if (a != in->asset && a->attachment_count != in->asset->attachment_count) {
		rpc_error_format(err, PROTO_ERR_ASSET_ERROR,
				 "%s: %s has %u attachment points, instance %llu's asset %u",
				 method, name, a->attachment_count, (unsigned long long)in->id,
				 in->asset->attachment_count);
		return -1;
	}
	/* And a weights stream's (glTF morph targets). */
	if (a != in->asset && a->weight_count != in->asset->weight_count) {
		rpc_error_format(err, PROTO_ERR_ASSET_ERROR,
				 "%s: %s has %u morph weights, instance %llu's asset %u", method,
				 name, a->weight_count, (unsigned long long)in->id,
				 in->asset->weight_count);
		return -1;
	}
	if (c->joint_count != in->clip->joint_count) {
		rpc_error_format(err, PROTO_ERR_ASSET_ERROR,
				 "%s: clip \"%s\" has %u joints, instance %llu %u", method, c->name,
				 c->joint_count, (unsigned long long)in->id, in->clip->joint_count);
		return -1;
	}
	return 0;
}

/* Where the clip on screen is, as a fraction of its length: the newest
 * cross-fade's, else the base's. */
static double play_phase(const struct instance *in)
{
	const struct clip *c = in->clip;
	int64_t t;
	struct clip_time ct;

	if (in->fade_count > 0) {
		const struct layer *l = in->layers[in->fade_count - 1];

		c = l->clip;
		t = playback_time(&l->clock, clock_now_ns());
		ct = clip_map_time(c, t, l->loop);
	} else {
		ct = instance_clip_time(in);
	}
	return c->duration_ns > 0 ? (double)ct.t_ns / (double)c->duration_ns : 0.0;
}

/* play {"instance": id, ...}: cross-fade (or cut) the instance to a clip. */
static enum dispatch_result play_onto(struct session *s, struct instance *in,
				      struct play_onto *p, struct rpc_out *out,
				      struct rpc_error *err)
{
	struct layer_spec spec = { .mode = LAYER_FADE, .weight = 1.0f };
	double fade = p->has_fade ? p->fade : play_default_fade(s->ctl, p->info.asset, p->clip);
	uint32_t id;
	int rc;

	if (fade > 0 && in->layer_count >= s->ctl->cfg->max_layers_per_instance) {
		rpc_error_format(err, PROTO_ERR_LIMIT,
				 "play: instance %llu already has %u layers "
				 "(limits.max_layers_per_instance)",
				 (unsigned long long)in->id, in->layer_count);
		return DISPATCH_ERROR;
	}
	spec.asset_name = p->info.name;
	spec.asset = p->info.asset;
	spec.generation = p->info.generation;
	spec.clip = p->clip;
	spec.loop = p->loop >= 0 ? (enum loop_mode)p->loop : p->clip->loop;
	spec.speed = p->speed;
	spec.start_ns = time_from_seconds(p->start);
	if (p->sync)
		spec.start_ns = (int64_t)(play_phase(in) * (double)p->clip->duration_ns);
	spec.fade_ns = time_from_seconds(fade);
	rc = spec.fade_ns > 0 ? layers_push(in, &spec, &id) : instance_cut_to(in, &spec);
	if (rc < 0) {
		rpc_error_format(err, PROTO_ERR_INTERNAL, "play: out of memory");
		return DISPATCH_ERROR;
	}
	if (spec.fade_ns > 0)
		instance_layers_changed(in);
	instance_pack(in, out, 0);
	return DISPATCH_REPLY;
}

enum dispatch_result method_play(struct session *s, const struct rpc_request *req,
				 struct rpc_args *args, struct rpc_out *out, struct rpc_error *err)
{
	struct rpc_str name = { 0 }, mesh_name = { 0 };
	char clip_name[PROTO_MAX_ASSET_NAME_BYTES + 1] = "", mesh_key[PROTO_MAX_ASSET_NAME_BYTES + 1];
	struct cache_info info, mesh_info = { 0 };
	struct instance_spec spec = { .speed = 1.0 };
	struct instance *in;
	double start = 0, fade = 0;
	int64_t at = 0;
	uint64_t stream_no = 0, onto = 0;
	struct stream *st = NULL;
	int loop = -1, root = ROOT_RAW, has_clip, has_mesh, has_stream, has_asset, has_onto;
	int has_fade, has_sync, has_start, has_root, has_at, has_events;
	bool sync = false, events = true;
	char why[256];

	(void)req;
	has_asset = rpc_args_string(args, "asset", RPC_OPTIONAL, PROTO_MAX_ASSET_NAME_BYTES, &name);
	has_clip = rpc_args_cstring(args, "clip", RPC_OPTIONAL, clip_name, sizeof clip_name);
	has_mesh = rpc_args_string(args, "mesh", RPC_OPTIONAL, PROTO_MAX_ASSET_NAME_BYTES, &mesh_name);
	rpc_args_enum(args, "loop", RPC_OPTIONAL, sample_loop_names, 3, &loop);
	rpc_args_double(args, "speed", RPC_OPTIONAL, &spec.speed);
	has_start = rpc_args_double(args, "start", RPC_OPTIONAL, &start);
	has_at = rpc_args_int64(args, "at", RPC_OPTIONAL, &at);
	has_root = rpc_args_enum(args, "root_motion", RPC_OPTIONAL, sample_root_motion_names, 2, &root);
	has_stream = rpc_args_uint64(args, "stream", RPC_OPTIONAL, &stream_no);
	has_onto = rpc_args_uint64(args, "instance", RPC_OPTIONAL, &onto);
	has_fade = rpc_args_double(args, "fade", RPC_OPTIONAL, &fade);
	has_sync = rpc_args_bool(args, "sync", RPC_OPTIONAL, &sync);
	has_events = rpc_args_bool(args, "events", RPC_OPTIONAL, &events);
	if (rpc_args_finish(args) < 0 || play_check_time("play", "start", start, err) < 0 ||
	    play_check_speed("play", spec.speed, err) < 0 ||
	    (has_fade == 1 && play_check_fade("play", fade, err) < 0) ||
	    (has_at == 1 && play_check_at(at, err) < 0))
		return DISPATCH_ERROR;
	if (has_onto == 1) {
		struct play_onto p = { .speed = spec.speed, .start = start, .fade = fade,
				       .loop = loop, .has_start = has_start == 1,
				       .has_fade = has_fade == 1, .sync = sync };

		if (has_mesh == 1 || has_stream == 1 || has_root == 1 || has_at == 1) {
			rpc_error_format(err, PROTO_ERR_BAD_REQUEST,
					 "play: \"mesh\", \"stream\", \"root_motion\" and \"at\" "
					 "are the instance's: not with \"instance\"");
			return DISPATCH_ERROR;
		}
		if (sync && has_start == 1) {
			rpc_error_format(err, PROTO_ERR_BAD_REQUEST,
					 "play: \"sync\" picks the start: not with \"start\"");
			return DISPATCH_ERROR;
		}
		in = play_own_instance(s, "play", args, err, onto, 1);
		if (in == NULL)
			return DISPATCH_ERROR;
		if (has_asset == 1) {
			if (lookup_asset(s->ctl, "play", &name, &p.info, err) < 0)
				return DISPATCH_ERROR;
		} else {
			p.info.name = in->asset_name;
			p.info.asset = in->asset;
			p.info.generation = in->generation;
		}
		p.clip = p.info.asset->clip_count > 0
				 ? asset_find_clip(p.info.asset, has_clip == 1 ? clip_name : NULL)
				 : NULL;
		if (p.clip == NULL && in->clip != NULL) {
			char unloaded[1200];

			rpc_error_format(err, PROTO_ERR_NOT_FOUND, "play: %s has no clip named \"%s\"%s",
					 p.info.name, has_clip == 1 ? clip_name : "",
					 asset_clip_unloaded_reason(p.info.asset, has_clip == 1 ? clip_name
								    : NULL, unloaded, sizeof unloaded));
			return DISPATCH_ERROR;
		}
		if (play_check_fit("play", in, p.info.asset, p.info.name, p.clip, err) < 0)
			return DISPATCH_ERROR;
		/* Given, it changes the instance's clip.event reports from now
		 * (a cut then begins with it); left out, they stay as they were. */
		if (has_events == 1)
			instance_set_cues(in, events);
		return play_onto(s, in, &p, out, err);
	}
	if (has_fade == 1 || has_sync == 1) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST,
				 "play: \"fade\" and \"sync\" switch an existing \"instance\"");
		return DISPATCH_ERROR;
	}
	if (has_asset != 1) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "play: missing required argument \"asset\"");
		return DISPATCH_ERROR;
	}
	if (has_stream == 1 && (st = stream_find(s->ctl->streams, &s->owns, stream_no)) == NULL) {
		rpc_error_format(err, PROTO_ERR_NOT_FOUND, "play: no stream %llu on this connection",
				 (unsigned long long)stream_no);
		return DISPATCH_ERROR;
	}
	if (s->owns.instances >= s->max_instances) {
		rpc_error_format(err, PROTO_ERR_LIMIT,
				 "play: this connection already has %u instances "
				 "(limits.max_instances_per_connection)", s->owns.instances);
		return DISPATCH_ERROR;
	}
	if (lookup_asset(s->ctl, "play", &name, &info, err) < 0)
		return DISPATCH_ERROR;
	spec.asset_name = info.name;
	spec.asset = info.asset;
	spec.generation = info.generation;
	if (info.asset->clip_count > 0) {
		spec.clip = asset_find_clip(info.asset, has_clip == 1 ? clip_name : NULL);
		if (spec.clip == NULL) {
			char unloaded[1200];

			rpc_error_format(err, PROTO_ERR_NOT_FOUND, "play: %s has no clip named \"%s\"%s",
					 info.name, has_clip == 1 ? clip_name : "",
					 asset_clip_unloaded_reason(info.asset, has_clip == 1 ? clip_name
								    : NULL, unloaded, sizeof unloaded));
			return DISPATCH_ERROR;
		}
	} else if (info.asset->camera == NULL) {
		rpc_error_format(err, PROTO_ERR_UNSUPPORTED,
				 "play: %s has nothing to play (no clip, no camera)", info.name);
		return DISPATCH_ERROR;
	}
	if (has_mesh == 1) {
		if (lookup_asset(s->ctl, "play", &mesh_name, &mesh_info, err) < 0)
			return DISPATCH_ERROR;
		if (mesh_info.asset->format != ASSET_FORMAT_MD5MESH || info.asset->skeleton == NULL ||
		    skeleton_check_binding(info.asset->skeleton, mesh_info.asset->skeleton, why,
					   sizeof why) < 0) {
			rpc_error_format(err, PROTO_ERR_ASSET_ERROR, "play: %s does not fit mesh %s: %s",
					 info.name, mesh_info.name,
					 mesh_info.asset->format != ASSET_FORMAT_MD5MESH ? "not a mesh"
					 : info.asset->skeleton == NULL ? "no skeleton" : why);
			return DISPATCH_ERROR;
		}
		snprintf(mesh_key, sizeof mesh_key, "%s", mesh_info.name);
		spec.mesh_name = mesh_key;
		spec.mesh = mesh_info.asset;
		spec.mesh_generation = mesh_info.generation;
	}
	spec.loop = loop >= 0 ? (enum loop_mode)loop : spec.clip ? spec.clip->loop : LOOP_LOOP;
	spec.root_motion = (enum root_motion)root;
	spec.start_ns = time_from_seconds(start);
	spec.has_anchor = has_at == 1;
	spec.anchor_ns = at;
	spec.cues_off = !events;
	if (instances_create(s->ctl->instances, &s->owns, &spec, &in) < 0) {
		rpc_error_format(err, PROTO_ERR_INTERNAL, "play: out of memory");
		return DISPATCH_ERROR;
	}
	if (st != NULL) {
		int rc = stream_attach(st, in, why, sizeof why);

		if (rc < 0) {
			instances_destroy(in);
			rpc_error_format(err, rc == -ENOSPC || rc == -E2BIG ? PROTO_ERR_LIMIT
									    : PROTO_ERR_UNSUPPORTED,
					 "play: %s", why);
			return DISPATCH_ERROR;
		}
	}
	instance_pack(in, out, 0);
	return DISPATCH_REPLY;
}

enum play_change { PLAY_PAUSE, PLAY_RESUME, PLAY_STOP };

/* Instance `id` for pause, resume or stop (ok: the arguments parsed): the
 * caller's own, or with "any" another connection's when control.operators
 * lets it act on that connection; else NULL with not_found (or
 * permission_denied) in err. */
static struct instance *play_any_instance(struct session *s, const char *method,
					  struct rpc_error *err, uint64_t id, int ok, bool any)
{
	struct instance *in;
	struct session *owner;

	if (!ok)
		return NULL;
	in = instances_find(s->ctl->instances, id);
	if (in == NULL) {
		rpc_error_format(err, PROTO_ERR_NOT_FOUND, "%s: no instance %llu", method,
				 (unsigned long long)id);
		return NULL;
	}
	if (in->owner == &s->owns)
		return in;
	owner = session_of_owner(in->owner);
	if (!any) {
		rpc_error_format(err, PROTO_ERR_NOT_FOUND,
				 "%s: instance %llu belongs to another connection (%llu): an "
				 "operator reaches it with \"any\": true", method,
				 (unsigned long long)id, (unsigned long long)owner->id);
		return NULL;
	}
	if (operators_check(s, owner, method, err) < 0)
		return NULL;
	return in;
}

static enum dispatch_result play_control(struct session *s, struct rpc_args *args,
					 struct rpc_out *out, struct rpc_error *err,
					 const char *method, enum play_change what)
{
	uint64_t id = 0;
	bool any = false;
	struct instance *in;
	struct session *owner;

	rpc_args_uint64(args, "instance", RPC_REQUIRED, &id);
	rpc_args_bool(args, "any", RPC_OPTIONAL, &any);
	in = play_any_instance(s, method, err, id, rpc_args_finish(args) == 0, any);
	if (in == NULL)
		return DISPATCH_ERROR;
	owner = session_of_owner(in->owner);
	if (owner != s) {
		char who[PROTO_MAX_CLIENT_NAME_BYTES * 4 + 80];

		operators_describe(s, who, sizeof who);
		log_info("instance %llu of connection %llu: %s by %s", (unsigned long long)in->id,
			 (unsigned long long)owner->id,
			 what == PLAY_PAUSE ? "paused" : what == PLAY_RESUME ? "resumed" : "stopped",
			 who);
		/* Its owner is told (instance.stopped, if it subscribed), as
		 * when the daemon stops one. */
		if (what == PLAY_STOP) {
			char message[sizeof who + 32];

			snprintf(message, sizeof message, "stopped by %s", who);
			events_instance_stopped(NULL, in, "operator", message);
		}
	}
	if (what == PLAY_PAUSE)
		instance_pause(in);
	else if (what == PLAY_RESUME)
		instance_resume(in);
	else
		in->stopped = true;
	instance_pack(in, out, 0);
	if (what == PLAY_STOP)
		instances_destroy(in);
	return DISPATCH_REPLY;
}

enum dispatch_result method_pause(struct session *s, const struct rpc_request *req,
				  struct rpc_args *args, struct rpc_out *out, struct rpc_error *err)
{
	(void)req;
	return play_control(s, args, out, err, "pause", PLAY_PAUSE);
}

enum dispatch_result method_resume(struct session *s, const struct rpc_request *req,
				   struct rpc_args *args, struct rpc_out *out, struct rpc_error *err)
{
	(void)req;
	return play_control(s, args, out, err, "resume", PLAY_RESUME);
}

enum dispatch_result method_stop(struct session *s, const struct rpc_request *req,
				 struct rpc_args *args, struct rpc_out *out, struct rpc_error *err)
{
	(void)req;
	return play_control(s, args, out, err, "stop", PLAY_STOP);
}

enum dispatch_result method_seek(struct session *s, const struct rpc_request *req,
				 struct rpc_args *args, struct rpc_out *out, struct rpc_error *err)
{
	uint64_t id = 0;
	double t = 0;
	struct instance *in;

	(void)req;
	rpc_args_uint64(args, "instance", RPC_REQUIRED, &id);
	rpc_args_double(args, "time", RPC_REQUIRED, &t);
	in = play_own_instance(s, "seek", args, err, id, rpc_args_finish(args) == 0);
	if (in == NULL || play_check_time("seek", "time", t, err) < 0)
		return DISPATCH_ERROR;
	instance_seek(in, time_from_seconds(t));
	instance_pack(in, out, 0);
	return DISPATCH_REPLY;
}

enum dispatch_result method_speed(struct session *s, const struct rpc_request *req,
				  struct rpc_args *args, struct rpc_out *out, struct rpc_error *err)
{
	uint64_t id = 0;
	double v = 1;
	struct instance *in;

	(void)req;
	rpc_args_uint64(args, "instance", RPC_REQUIRED, &id);
	rpc_args_double(args, "speed", RPC_REQUIRED, &v);
	in = play_own_instance(s, "speed", args, err, id, rpc_args_finish(args) == 0);
	if (in == NULL || play_check_speed("speed", v, err) < 0)
		return DISPATCH_ERROR;
	instance_set_speed(in, v);
	instance_pack(in, out, 0);
	return DISPATCH_REPLY;
}

struct list_ctx {
	struct rpc_out *out;
	struct session *self;
	bool all;
};

static int play_pack_one(struct instance *in, void *data)
{
	struct list_ctx *ctx = data;
	struct session *owner;

	if (!ctx->all) {
		if (in->owner == &ctx->self->owns)
			instance_pack(in, ctx->out, 0);
		return 0;
	}
	/* Every connection's, each with its owner. */
	owner = session_of_owner(in->owner);
	instance_pack_with(in, ctx->out, 0, 2);
	rpc_put_lit(ctx->out, "connection");
	rpc_put_uint(ctx->out, owner->id);
	rpc_put_lit(ctx->out, "client");
	if (owner->name[0] != '\0')
		rpc_put_cstr(ctx->out, owner->name);
	else
		rpc_put_nil(ctx->out);
	return 0;
}

enum dispatch_result method_instances_list(struct session *s, const struct rpc_request *req,
					   struct rpc_args *args, struct rpc_out *out,
					   struct rpc_error *err)
{
	struct list_ctx ctx = { out, s, false };

	(void)req;
	(void)err;
	rpc_args_bool(args, "all", RPC_OPTIONAL, &ctx.all);
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	rpc_put_map(out, 1);
	rpc_put_lit(out, "instances");
	rpc_put_array(out, ctx.all ? (uint32_t)instances_count(s->ctl->instances)
				   : s->owns.instances);
	instances_each(s->ctl->instances, play_pack_one, &ctx);
	return DISPATCH_REPLY;
}
