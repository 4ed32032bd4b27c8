/* assets.list, assets.info, assets.reload and sample. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/assets/sampling.h"
#include "daemon/service/cache/cache.h"
#include "daemon/service/control/dispatch.h"
#include "daemon/service/control/lookup.h"
#include "daemon/service/control/pose_pack.h"
#include "daemon/service/control/reloads.h"
#include "daemon/service/control/session.h"


static void pack_error_field(struct rpc_out *out, const char *error)
{
	rpc_put_lit(out, "error");
	if (error != NULL)
		rpc_put_cstr(out, error);
	else
		rpc_put_nil(out);
}

enum dispatch_result method_assets_list(struct session *s, const struct rpc_request *req,
					struct rpc_args *args, struct rpc_out *out,
					struct rpc_error *err)
{
	struct cache_info *list = NULL;
	size_t n = 0;

	(void)req;
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	if (cache_list(s->ctl->cache, &list, &n) < 0) {
		rpc_error_format(err, PROTO_ERR_INTERNAL, "assets.list: out of memory");
		return DISPATCH_ERROR;
	}
	rpc_put_map(out, 1);
	rpc_put_lit(out, "assets");
	rpc_put_array(out, n);
	for (size_t i = 0; i < n; i++) {
		const struct cache_info *in = &list[i];

		rpc_put_map(out, 5);
		rpc_put_lit(out, "asset");
		rpc_put_cstr(out, in->name);
		rpc_put_lit(out, "format");
		rpc_put_cstr(out, asset_format_name(asset_detect(in->name, NULL, 0)));
		rpc_put_lit(out, "generation");
		rpc_put_uint(out, in->generation);
		rpc_put_lit(out, "ok");
		rpc_put_bool(out, in->asset != NULL);
		pack_error_field(out, in->error);
	}
	free(list);
	return DISPATCH_REPLY;
}

enum dispatch_result method_assets_info(struct session *s, const struct rpc_request *req,
					struct rpc_args *args, struct rpc_out *out,
					struct rpc_error *err)
{
	struct rpc_str name = { 0 };
	struct cache_info info;

	(void)req;
	rpc_args_string(args, "asset", RPC_REQUIRED, PROTO_MAX_ASSET_NAME_BYTES, &name);
	if (rpc_args_finish(args) < 0 || lookup_asset(s->ctl, "assets.info", &name, &info, err) < 0)
		return DISPATCH_ERROR;
	rpc_put_map(out, 4 + pose_asset_info_pairs(info.asset));
	pose_pack_asset_info(out, info.name, info.asset);
	rpc_put_lit(out, "generation");
	rpc_put_uint(out, info.generation);
	pack_error_field(out, info.error);
	rpc_put_lit(out, "loaded_at");
	rpc_put_double(out, (double)info.loaded_at_ns / 1e9);
	rpc_put_lit(out, "load_ms");
	rpc_put_double(out, (double)info.load_ns / 1e6);
	return DISPATCH_REPLY;
}

enum dispatch_result method_assets_reload(struct session *s, const struct rpc_request *req,
					  struct rpc_args *args, struct rpc_out *out,
					  struct rpc_error *err)
{
	char key[PROTO_MAX_ASSET_NAME_BYTES + 1];
	struct rpc_str name = { 0 };
	char quoted[160];

	(void)out;
	rpc_args_string(args, "asset", RPC_REQUIRED, PROTO_MAX_ASSET_NAME_BYTES, &name);
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	/* Loads of one file coalesce in the cache; what a connection can keep
	 * waiting is bounded here. */
	if (s->deferred >= PROTO_MAX_PENDING_RELOADS) {
		rpc_error_format(err, PROTO_ERR_LIMIT,
				 "assets.reload: %u reloads of this connection are already waiting",
				 PROTO_MAX_PENDING_RELOADS);
		return DISPATCH_ERROR;
	}
	memcpy(key, name.ptr, name.len);
	key[name.len] = '\0';
	if (cache_reload(s->ctl->cache, key) < 0) {
		rpc_quote(quoted, sizeof quoted, name.ptr, name.len);
		rpc_error_format(err, PROTO_ERR_NOT_FOUND,
				 "assets.reload: no asset named %s (new files are found by the watcher or the next rescan)",
				 quoted);
		return DISPATCH_ERROR;
	}
	/* Answered when the cache reports the outcome (reloads.h). */
	if (reloads_add(s->ctl, s, req->msgid, key) < 0) {
		rpc_error_format(err, PROTO_ERR_INTERNAL, "assets.reload: out of memory");
		return DISPATCH_ERROR;
	}
	return DISPATCH_DEFERRED;
}

enum dispatch_result method_sample(struct session *s, const struct rpc_request *req,
				   struct rpc_args *args, struct rpc_out *out, struct rpc_error *err)
{
	struct rpc_str name = { 0 }, mesh_name = { 0 };
	char clip[PROTO_MAX_ASSET_NAME_BYTES + 1] = "";
	struct cache_info info, mesh_info;
	struct sample_request q = { 0 };
	struct sample_result r;
	char why[512];
	int space = -1, loop = -1, root = ROOT_RAW, has_clip, has_mesh;

	(void)req;
	rpc_args_string(args, "asset", RPC_REQUIRED, PROTO_MAX_ASSET_NAME_BYTES, &name);
	has_clip = rpc_args_cstring(args, "clip", RPC_OPTIONAL, clip, sizeof clip);
	rpc_args_double(args, "time", RPC_REQUIRED, &q.time);
	rpc_args_enum(args, "space", RPC_OPTIONAL, sample_space_names, SAMPLE_SPACE_COUNT, &space);
	has_mesh = rpc_args_string(args, "mesh", RPC_OPTIONAL, PROTO_MAX_ASSET_NAME_BYTES, &mesh_name);
	rpc_args_enum(args, "loop", RPC_OPTIONAL, sample_loop_names, 3, &loop);
	rpc_args_enum(args, "root_motion", RPC_OPTIONAL, sample_root_motion_names, 2, &root);
	if (rpc_args_finish(args) < 0 || lookup_asset(s->ctl, "sample", &name, &info, err) < 0)
		return DISPATCH_ERROR;
	q.asset = info.asset;
	if (has_mesh == 1) {
		if (lookup_asset(s->ctl, "sample", &mesh_name, &mesh_info, err) < 0)
			return DISPATCH_ERROR;
		q.mesh = mesh_info.asset;
	}
	q.clip = has_clip == 1 ? clip : NULL;
	q.space = space >= 0 ? (enum sample_space)space : sample_default_space(info.asset);
	q.loop_set = loop >= 0;
	q.loop = loop >= 0 ? (enum loop_mode)loop : LOOP_LOOP;
	q.root_motion = (enum root_motion)root;
	switch (sample_evaluate(&q, &r, why, sizeof why)) {
	case 0:
		break;
	case -ENOENT:
		rpc_error_format(err, PROTO_ERR_NOT_FOUND, "sample: %s", why);
		return DISPATCH_ERROR;
	case -ENOMEM:
		rpc_error_format(err, PROTO_ERR_INTERNAL, "sample: %s", why);
		return DISPATCH_ERROR;
	case -EOPNOTSUPP:
		rpc_error_format(err, PROTO_ERR_UNSUPPORTED, "sample: %s", why);
		return DISPATCH_ERROR;
	default:
		rpc_error_format(err, PROTO_ERR_ASSET_ERROR, "sample: %s", why);
		return DISPATCH_ERROR;
	}
	pose_pack(out, &q, info.name, &r);
	sample_result_free(&r);
	return DISPATCH_REPLY;
}
