/* play, pause, resume, seek, speed, stop, instances.list. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "daemon/assets/sampling.h"
#include "daemon/service/control/dispatch.h"
#include "daemon/service/control/lookup.h"
#include "daemon/service/playback/instances.h"
#include "daemon/service/playback/streams.h"
#include "proto/rpc.h"


/* Largest |time| a request may name: a century, far inside int64 ns. */
#define PLAY_MAX_SECONDS 3.2e9
#define PLAY_MAX_SPEED 1e6

static int play_check_time(const char *method, const char *what, double v, struct rpc_error *err)
{
	if (fabs(v) <= PLAY_MAX_SECONDS)
		return 0;
	rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "%s: \"%s\" must be within +-%.0f seconds",
			 method, what, PLAY_MAX_SECONDS);
	return -1;
}

static int play_check_speed(const char *method, double v, struct rpc_error *err)
{
	if (fabs(v) <= PLAY_MAX_SPEED)
		return 0;
	rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "%s: \"speed\" must be within +-%.0f",
			 method, PLAY_MAX_SPEED);
	return -1;
}

static void instance_pack_str(struct rpc_out *out, const char *key, const char *value)
{
	rpc_put_cstr(out, key);
	if (value != NULL)
		rpc_put_cstr(out, value);
	else
		rpc_put_nil(out);
}

/* The map play and instances.list return for an instance. */
static void instance_pack(const struct instance *in, struct rpc_out *out)
{
	struct clip_time ct = instance_clip_time(in);

	rpc_put_map(out, in->stream ? 14 : 12);
	rpc_put_lit(out, "instance");
	rpc_put_uint(out, in->id);
	instance_pack_str(out, "asset", in->asset_name);
	instance_pack_str(out, "clip", in->clip_name);
	instance_pack_str(out, "mesh", in->mesh_name);
	instance_pack_str(out, "state", instance_state(in));
	rpc_put_lit(out, "time");
	rpc_put_double(out, time_to_seconds(instance_time(in)));
	rpc_put_lit(out, "clip_time");
	rpc_put_double(out, time_to_seconds(ct.t_ns));
	rpc_put_lit(out, "duration");
	rpc_put_double(out, time_to_seconds(instance_duration(in)));
	rpc_put_lit(out, "speed");
	rpc_put_double(out, in->clock.speed);
	instance_pack_str(out, "loop", sample_loop_name(in->loop));
	instance_pack_str(out, "root_motion", sample_root_motion_name(in->root_motion));
	rpc_put_lit(out, "generation");
	rpc_put_uint(out, in->generation);
	if (in->stream != NULL) {
		rpc_put_lit(out, "stream");
		rpc_put_uint(out, stream_id(in->stream));
		rpc_put_lit(out, "channel");
		rpc_put_uint(out, in->channel);
	}
}

enum dispatch_result method_play(struct session *s, const struct rpc_request *req,
				 struct rpc_args *args, struct rpc_out *out, struct rpc_error *err)
{
	struct rpc_str name = { 0 }, mesh_name = { 0 };
	char clip_name[PROTO_MAX_ASSET_NAME_BYTES + 1] = "", mesh_key[PROTO_MAX_ASSET_NAME_BYTES + 1];
	struct cache_info info, mesh_info = { 0 };
	struct instance_spec spec = { .speed = 1.0 };
	struct instance *in;
	double start = 0;
	uint64_t stream_no = 0;
	struct stream *st = NULL;
	int loop = -1, root = ROOT_RAW, has_clip, has_mesh, has_stream;
	char why[256];

	(void)req;
	rpc_args_string(args, "asset", RPC_REQUIRED, PROTO_MAX_ASSET_NAME_BYTES, &name);
	has_clip = rpc_args_cstring(args, "clip", RPC_OPTIONAL, clip_name, sizeof clip_name);
	has_mesh = rpc_args_string(args, "mesh", RPC_OPTIONAL, PROTO_MAX_ASSET_NAME_BYTES, &mesh_name);
	rpc_args_enum(args, "loop", RPC_OPTIONAL, sample_loop_names, 3, &loop);
	rpc_args_double(args, "speed", RPC_OPTIONAL, &spec.speed);
	rpc_args_double(args, "start", RPC_OPTIONAL, &start);
	rpc_args_enum(args, "root_motion", RPC_OPTIONAL, sample_root_motion_names, 2, &root);
	has_stream = rpc_args_uint64(args, "stream", RPC_OPTIONAL, &stream_no);
	if (rpc_args_finish(args) < 0 || play_check_time("play", "start", start, err) < 0 ||
	    play_check_speed("play", spec.speed, err) < 0)
		return DISPATCH_ERROR;
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
			rpc_error_format(err, PROTO_ERR_NOT_FOUND, "play: %s has no clip named \"%s\"",
					 info.name, clip_name);
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
	instance_pack(in, out);
	return DISPATCH_REPLY;
}

/* The caller's own instance named by the "instance" argument. */
static struct instance *play_own_instance(struct session *s, const char *method,
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

enum play_change { PLAY_PAUSE, PLAY_RESUME, PLAY_STOP };

static enum dispatch_result play_control(struct session *s, struct rpc_args *args,
					 struct rpc_out *out, struct rpc_error *err,
					 const char *method, enum play_change what)
{
	uint64_t id = 0;
	struct instance *in;

	rpc_args_uint64(args, "instance", RPC_REQUIRED, &id);
	in = play_own_instance(s, method, args, err, id, rpc_args_finish(args) == 0);
	if (in == NULL)
		return DISPATCH_ERROR;
	if (what == PLAY_PAUSE)
		instance_pause(in);
	else if (what == PLAY_RESUME)
		instance_resume(in);
	else
		in->stopped = true;
	instance_pack(in, out);
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
	instance_pack(in, out);
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
	instance_pack(in, out);
	return DISPATCH_REPLY;
}

struct list_ctx {
	struct rpc_out *out;
	struct session *self;
};

static int play_pack_one(struct instance *in, void *data)
{
	struct list_ctx *ctx = data;

	if (in->owner == &ctx->self->owns)
		instance_pack(in, ctx->out);
	return 0;
}

enum dispatch_result method_instances_list(struct session *s, const struct rpc_request *req,
					   struct rpc_args *args, struct rpc_out *out,
					   struct rpc_error *err)
{
	struct list_ctx ctx = { out, s };

	(void)req;
	(void)err;
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	rpc_put_map(out, 1);
	rpc_put_lit(out, "instances");
	rpc_put_array(out, s->owns.instances);
	instances_each(s->ctl->instances, play_pack_one, &ctx);
	return DISPATCH_REPLY;
}
