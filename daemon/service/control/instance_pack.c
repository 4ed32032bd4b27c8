#include "daemon/service/control/instance_pack.h"

#include "daemon/assets/sampling.h"
#include "daemon/service/base/clock.h"
#include "daemon/service/playback/streams.h"

const char *const instance_pack_layer_fields[] = {
	"layer", "mode", "asset", "clip", "weight", "target", "fade_left", "removing", "time",
	"clip_time", "speed", "loop", "mask", "reference", NULL,
};

static void instance_pack_str(struct rpc_out *out, const char *key, const char *value)
{
	rpc_put_cstr(out, key);
	if (value != NULL)
		rpc_put_cstr(out, value);
	else
		rpc_put_nil(out);
}

static const struct skeleton *instance_pack_skeleton(const struct instance *in)
{
	return in->mesh != NULL ? in->mesh->skeleton : in->asset->skeleton;
}

/* One layer, with every field of instance_pack_layer_fields. */
static void instance_pack_layer(const struct instance *in, const struct layer *l, int64_t now,
				struct rpc_out *out)
{
	const struct skeleton *s = instance_pack_skeleton(in);
	int64_t t = playback_time(&l->clock, now);
	struct clip_time ct = clip_map_time(l->clip, t, l->loop);

	rpc_put_map(out, 14);
	rpc_put_lit(out, "layer");
	rpc_put_uint(out, l->id);
	instance_pack_str(out, "mode", layer_mode_names[l->mode]);
	instance_pack_str(out, "asset", l->asset_name);
	instance_pack_str(out, "clip", l->clip_name);
	rpc_put_lit(out, "weight");
	rpc_put_double(out, layers_weight_at(l, now));
	rpc_put_lit(out, "target");
	rpc_put_double(out, l->to);
	rpc_put_lit(out, "fade_left");
	rpc_put_double(out, l->fading && l->fade_end_ns > now
				    ? time_to_seconds(l->fade_end_ns - now) : 0.0);
	rpc_put_lit(out, "removing");
	rpc_put_bool(out, l->removing);
	rpc_put_lit(out, "time");
	rpc_put_double(out, time_to_seconds(t));
	rpc_put_lit(out, "clip_time");
	rpc_put_double(out, time_to_seconds(ct.t_ns));
	rpc_put_lit(out, "speed");
	rpc_put_double(out, l->clock.speed);
	instance_pack_str(out, "loop", sample_loop_name(l->loop));
	rpc_put_lit(out, "mask");
	if (l->mask_count == 0 || s == NULL) {
		rpc_put_nil(out);
	} else {
		rpc_put_array(out, l->mask_count);
		for (uint32_t k = 0; k < l->mask_count; k++) {
			rpc_put_map(out, 2);
			instance_pack_str(out, "joint", s->names[l->mask_roots[k]]);
			rpc_put_lit(out, "weight");
			rpc_put_double(out, l->mask_root_weights[k]);
		}
	}
	rpc_put_lit(out, "reference");
	if (l->mode != LAYER_ADDITIVE) {
		rpc_put_nil(out);
	} else {
		rpc_put_map(out, 2);
		instance_pack_str(out, "clip", l->ref_clip_name ? l->ref_clip_name : l->clip_name);
		rpc_put_lit(out, "time");
		rpc_put_double(out, time_to_seconds(l->ref_time_ns));
	}
}

void instance_pack(const struct instance *in, struct rpc_out *out, uint32_t layer)
{
	instance_pack_with(in, out, layer, 0);
}

void instance_pack_with(const struct instance *in, struct rpc_out *out, uint32_t layer,
			uint32_t extra)
{
	struct clip_time ct = instance_clip_time(in);
	int64_t now = clock_now_ns();

	rpc_put_map(out, (in->stream ? 15 : 13) + (layer > 0) + extra);
	rpc_put_lit(out, "instance");
	rpc_put_uint(out, in->id);
	if (layer > 0) {
		rpc_put_lit(out, "layer");
		rpc_put_uint(out, layer);
	}
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
	rpc_put_lit(out, "layers");
	rpc_put_array(out, in->layer_count);
	for (uint32_t i = 0; i < in->layer_count; i++)
		instance_pack_layer(in, in->layers[i], now, out);
	if (in->stream != NULL) {
		rpc_put_lit(out, "stream");
		rpc_put_uint(out, stream_id(in->stream));
		rpc_put_lit(out, "channel");
		rpc_put_uint(out, in->channel);
	}
}
