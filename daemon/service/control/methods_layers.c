/* layer.add, layer.set, layer.remove: an instance's layer stack. */
#include <errno.h>
#include <string.h>

#include "daemon/assets/sampling.h"
#include "daemon/service/base/config.h"
#include "daemon/service/control/dispatch.h"
#include "daemon/service/control/instance_pack.h"
#include "daemon/service/control/lookup.h"
#include "daemon/service/control/methods_play.h"
#include "daemon/service/playback/layers.h"

/* Masks a request may give: groups, and joints in one group. */
#define LAYER_MAX_MASK_GROUPS 16
#define LAYER_MAX_MASK_JOINTS 64

static int layer_check_weight(const char *method, double w, struct rpc_error *err)
{
	if (w >= 0 && w <= 1)
		return 0;
	rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "%s: \"weight\" must be 0 to 1", method);
	return -1;
}

/* The mask's groups ({"joints": [names], "weight"?}) into joint indexes
 * and weights (*count of them).  0, or -1 with err. */
static int layer_parse_mask(struct rpc_args *groups, size_t ngroups, const struct skeleton *skel,
			    uint32_t *roots, float *weights, uint32_t *count, struct rpc_error *err)
{
	uint32_t n = 0;

	for (size_t g = 0; g < ngroups; g++) {
		struct rpc_str joints[LAYER_MAX_MASK_JOINTS];
		size_t nj = 0;
		double w = 1.0;

		rpc_args_strings(&groups[g], "joints", RPC_REQUIRED, joints, LAYER_MAX_MASK_JOINTS,
				 PROTO_MAX_ASSET_NAME_BYTES, &nj);
		rpc_args_double(&groups[g], "weight", RPC_OPTIONAL, &w);
		if (rpc_args_finish(&groups[g]) < 0)
			return -1;
		if (!(w >= 0 && w <= 1)) {
			rpc_error_format(err, PROTO_ERR_BAD_REQUEST,
					 "layer.add: mask[%zu]: \"weight\" must be 0 to 1", g);
			return -1;
		}
		for (size_t k = 0; k < nj; k++) {
			char name[PROTO_MAX_ASSET_NAME_BYTES + 1];
			int32_t j;

			memcpy(name, joints[k].ptr, joints[k].len);
			name[joints[k].len] = '\0';
			j = skel != NULL ? skeleton_find(skel, name) : -1;
			if (j < 0) {
				rpc_error_format(err, PROTO_ERR_NOT_FOUND,
						 "layer.add: mask[%zu]: no joint named \"%s\"", g, name);
				return -1;
			}
			roots[n] = (uint32_t)j;
			weights[n] = (float)w;
			n++;
		}
	}
	*count = n;
	return 0;
}

enum dispatch_result method_layer_add(struct session *s, const struct rpc_request *req,
				      struct rpc_args *args, struct rpc_out *out,
				      struct rpc_error *err)
{
	static const char *const modes[2] = { "override", "additive" };
	struct rpc_str name = { 0 };
	char clip_name[PROTO_MAX_ASSET_NAME_BYTES + 1] = "", ref_name[PROTO_MAX_ASSET_NAME_BYTES + 1];
	struct rpc_args groups[LAYER_MAX_MASK_GROUPS], ref;
	uint32_t roots[LAYER_MAX_MASK_GROUPS * LAYER_MAX_MASK_JOINTS];
	float weights[LAYER_MAX_MASK_GROUPS * LAYER_MAX_MASK_JOINTS];
	struct layer_spec spec = { .weight = 1.0f };
	struct cache_info info;
	struct instance *in;
	double weight = 1, fade = 0, speed = 1, start = 0, ref_time = 0;
	uint64_t id = 0;
	size_t ngroups = 0;
	int mode = LAYER_OVERRIDE, loop = -1, has_clip, has_asset, has_mask, has_ref, has_ref_clip = 0;
	uint32_t layer;
	const struct skeleton *skel;

	(void)req;
	rpc_args_uint64(args, "instance", RPC_REQUIRED, &id);
	has_asset = rpc_args_string(args, "asset", RPC_OPTIONAL, PROTO_MAX_ASSET_NAME_BYTES, &name);
	has_clip = rpc_args_cstring(args, "clip", RPC_OPTIONAL, clip_name, sizeof clip_name);
	rpc_args_double(args, "weight", RPC_OPTIONAL, &weight);
	rpc_args_double(args, "fade", RPC_OPTIONAL, &fade);
	rpc_args_enum(args, "mode", RPC_OPTIONAL, modes, 2, &mode);
	rpc_args_double(args, "speed", RPC_OPTIONAL, &speed);
	rpc_args_double(args, "start", RPC_OPTIONAL, &start);
	rpc_args_enum(args, "loop", RPC_OPTIONAL, sample_loop_names, 3, &loop);
	has_mask = rpc_args_maps(args, "mask", RPC_OPTIONAL, groups, LAYER_MAX_MASK_GROUPS, &ngroups);
	has_ref = rpc_args_map(args, "reference", RPC_OPTIONAL, &ref);
	if (has_ref == 1) {
		has_ref_clip = rpc_args_cstring(&ref, "clip", RPC_OPTIONAL, ref_name, sizeof ref_name);
		rpc_args_double(&ref, "time", RPC_OPTIONAL, &ref_time);
		if (rpc_args_finish(&ref) < 0)
			return DISPATCH_ERROR;
	}
	in = play_own_instance(s, "layer.add", args, err, id, rpc_args_finish(args) == 0);
	if (in == NULL || layer_check_weight("layer.add", weight, err) < 0 ||
	    play_check_fade("layer.add", fade, err) < 0 ||
	    play_check_speed("layer.add", speed, err) < 0 ||
	    play_check_time("layer.add", "start", start, err) < 0 ||
	    (has_ref == 1 && play_check_time("layer.add", "reference.time", ref_time, err) < 0))
		return DISPATCH_ERROR;
	if (has_ref == 1 && mode != LAYER_ADDITIVE) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST,
				 "layer.add: a \"reference\" is an additive layer's");
		return DISPATCH_ERROR;
	}
	if (in->layer_count >= s->ctl->cfg->max_layers_per_instance) {
		rpc_error_format(err, PROTO_ERR_LIMIT,
				 "layer.add: instance %llu already has %u layers "
				 "(limits.max_layers_per_instance)",
				 (unsigned long long)in->id, in->layer_count);
		return DISPATCH_ERROR;
	}
	if (has_asset == 1) {
		if (lookup_asset(s->ctl, "layer.add", &name, &info, err) < 0)
			return DISPATCH_ERROR;
	} else {
		info.name = in->asset_name;
		info.asset = in->asset;
		info.generation = in->generation;
	}
	spec.clip = info.asset->clip_count > 0
			    ? asset_find_clip(info.asset, has_clip == 1 ? clip_name : NULL) : NULL;
	if (spec.clip == NULL && in->clip != NULL) {
		rpc_error_format(err, PROTO_ERR_NOT_FOUND, "layer.add: %s has no clip named \"%s\"",
				 info.name, clip_name);
		return DISPATCH_ERROR;
	}
	if (play_check_fit("layer.add", in, info.asset, info.name, spec.clip, err) < 0)
		return DISPATCH_ERROR;
	if (has_ref_clip == 1) {
		spec.ref_clip = asset_find_clip(info.asset, ref_name);
		if (spec.ref_clip == NULL) {
			rpc_error_format(err, PROTO_ERR_NOT_FOUND,
					 "layer.add: reference: %s has no clip named \"%s\"",
					 info.name, ref_name);
			return DISPATCH_ERROR;
		}
	}
	skel = in->mesh != NULL ? in->mesh->skeleton : in->asset->skeleton;
	if (has_mask == 1 &&
	    layer_parse_mask(groups, ngroups, skel, roots, weights, &spec.mask_count, err) < 0)
		return DISPATCH_ERROR;
	spec.mode = (enum layer_mode)mode;
	spec.asset_name = info.name;
	spec.asset = info.asset;
	spec.generation = info.generation;
	spec.loop = loop >= 0 ? (enum loop_mode)loop : spec.clip->loop;
	spec.speed = speed;
	spec.start_ns = time_from_seconds(start);
	spec.weight = (float)weight;
	spec.fade_ns = time_from_seconds(fade);
	spec.mask_roots = roots;
	spec.mask_weights = weights;
	spec.ref_time_ns = time_from_seconds(ref_time);
	if (layers_push(in, &spec, &layer) < 0) {
		rpc_error_format(err, PROTO_ERR_INTERNAL, "layer.add: out of memory");
		return DISPATCH_ERROR;
	}
	instance_layers_changed(in);
	instance_pack(in, out, layer);
	return DISPATCH_REPLY;
}

/* The instance's added layer `layer` (not a cross-fade), or NULL with err. */
static struct layer *layer_own(struct instance *in, const char *method, uint32_t layer,
			       struct rpc_error *err)
{
	struct layer *l = layers_find(in, layer);

	if (l == NULL) {
		rpc_error_format(err, PROTO_ERR_NOT_FOUND, "%s: instance %llu has no layer %u",
				 method, (unsigned long long)in->id, layer);
		return NULL;
	}
	if (l->mode == LAYER_FADE) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST,
				 "%s: layer %u is a cross-fade of play: it ends by itself", method,
				 layer);
		return NULL;
	}
	return l;
}

enum dispatch_result method_layer_set(struct session *s, const struct rpc_request *req,
				      struct rpc_args *args, struct rpc_out *out,
				      struct rpc_error *err)
{
	uint64_t id = 0;
	uint32_t layer = 0;
	double weight = 0, fade = 0;
	int has_weight;
	struct instance *in;
	struct layer *l;

	(void)req;
	rpc_args_uint64(args, "instance", RPC_REQUIRED, &id);
	rpc_args_uint32(args, "layer", RPC_REQUIRED, &layer);
	has_weight = rpc_args_double(args, "weight", RPC_OPTIONAL, &weight);
	rpc_args_double(args, "fade", RPC_OPTIONAL, &fade);
	in = play_own_instance(s, "layer.set", args, err, id, rpc_args_finish(args) == 0);
	if (in == NULL || (has_weight == 1 && layer_check_weight("layer.set", weight, err) < 0) ||
	    play_check_fade("layer.set", fade, err) < 0)
		return DISPATCH_ERROR;
	l = layer_own(in, "layer.set", layer, err);
	if (l == NULL)
		return DISPATCH_ERROR;
	if (l->removing) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "layer.set: layer %u is being removed",
				 layer);
		return DISPATCH_ERROR;
	}
	if (has_weight == 1) {
		layers_set_weight(l, (float)weight, time_from_seconds(fade));
		instance_layers_changed(in);
	}
	instance_pack(in, out, 0);
	return DISPATCH_REPLY;
}

enum dispatch_result method_layer_remove(struct session *s, const struct rpc_request *req,
					 struct rpc_args *args, struct rpc_out *out,
					 struct rpc_error *err)
{
	uint64_t id = 0;
	uint32_t layer = 0;
	double fade = 0;
	struct instance *in;
	struct layer *l;

	(void)req;
	rpc_args_uint64(args, "instance", RPC_REQUIRED, &id);
	rpc_args_uint32(args, "layer", RPC_REQUIRED, &layer);
	rpc_args_double(args, "fade", RPC_OPTIONAL, &fade);
	in = play_own_instance(s, "layer.remove", args, err, id, rpc_args_finish(args) == 0);
	if (in == NULL || play_check_fade("layer.remove", fade, err) < 0)
		return DISPATCH_ERROR;
	l = layer_own(in, "layer.remove", layer, err);
	if (l == NULL)
		return DISPATCH_ERROR;
	layers_remove(in, l, time_from_seconds(fade));
	instance_layers_changed(in);
	instance_pack(in, out, 0);
	return DISPATCH_REPLY;
}
