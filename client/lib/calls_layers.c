/*
 * The layer stack of an instance: play on an instance (animc_fade),
 * layer.add, layer.set and layer.remove.  Each reply is an instance state,
 * taken into the library's record like the other calls' (calls_play.c).
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

/* ---- play on an instance ----------------------------------------------- */

struct fade_call {
	uint64_t instance;
	const animc_fade_opts *o;
};

static int fade_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	const struct fade_call *f = params;
	const animc_fade_opts *o = f->o;
	uint64_t sid = ac_instances_to_server(c, f->instance);
	const char *loop = o ? animc_loop_name(o->loop) : NULL;
	bool fade = o != NULL && o->fade != ANIMC_FADE_DEFAULT;
	uint32_t n;
	int rc = 0;

	if (sid == 0)
		return -ENOENT;
	if (o == NULL || !isfinite(o->speed) || !isfinite(o->start) || !isfinite(o->fade) ||
	    (fade && o->fade < 0))
		return -EINVAL;
	n = 2 + (o->asset != NULL) + (o->clip != NULL) + fade + (o->sync != 0) + (loop != NULL) +
	    (o->start != 0);
	if (rpc_pack_request(pk, msgid, "play", n) < 0)
		return -ENOMEM;
	rc |= ac_pack_kv_u64(pk, "instance", sid);
	if (o->asset != NULL)
		rc |= ac_pack_kv_str(pk, "asset", o->asset);
	if (o->clip != NULL)
		rc |= ac_pack_kv_str(pk, "clip", o->clip);
	if (fade)
		rc |= ac_pack_kv_f64(pk, "fade", o->fade);
	if (o->sync != 0)
		rc |= rpc_pack_cstr(pk, "sync") | rpc_pack_bool(pk, true);
	if (loop != NULL)
		rc |= ac_pack_kv_str(pk, "loop", loop);
	rc |= ac_pack_kv_f64(pk, "speed", o->speed);
	if (o->start != 0)
		rc |= ac_pack_kv_f64(pk, "start", o->start);
	return rc ? -ENOMEM : 0;
}

static const struct ac_method method_fade = { "play", fade_pack, ac_play_state_reply, NULL, NULL };

void animc_fade_opts_init(animc_fade_opts *o)
{
	if (o != NULL)
		*o = (animc_fade_opts)ANIMC_FADE_OPTS_INIT;
}

int animc_fade(animc_client *c, uint64_t instance, const animc_fade_opts *o,
	       animc_instance **out)
{
	struct fade_call f = { instance, o };

	return ac_rpc_call(c, &method_fade, &f, (void **)out);
}

/* ---- layer.add --------------------------------------------------------- */

struct add_call {
	uint64_t instance;
	const animc_layer_opts *o;
};

static int add_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	const struct add_call *a = params;
	const animc_layer_opts *o = a->o;
	uint64_t sid = ac_instances_to_server(c, a->instance);
	const char *loop = o ? animc_loop_name(o->loop) : NULL;
	bool additive, ref;
	uint32_t n;
	int rc = 0;

	if (sid == 0)
		return -ENOENT;
	if (o == NULL || !isfinite(o->weight) || !isfinite(o->fade) || !isfinite(o->speed) ||
	    !isfinite(o->start) || !isfinite(o->reference_time) ||
	    (o->mask_count > 0 && o->mask_joints == NULL) ||
	    (o->mode != ANIMC_LAYER_OVERRIDE && o->mode != ANIMC_LAYER_ADDITIVE))
		return -EINVAL;
	additive = o->mode == ANIMC_LAYER_ADDITIVE;
	ref = additive && (o->reference_clip != NULL || o->reference_time != 0);
	n = 3 + (o->asset != NULL) + (o->clip != NULL) + (o->fade != 0) + additive +
	    (o->mask_count > 0) + (o->start != 0) + (loop != NULL) + ref;
	if (rpc_pack_request(pk, msgid, "layer.add", n) < 0)
		return -ENOMEM;
	rc |= ac_pack_kv_u64(pk, "instance", sid);
	if (o->asset != NULL)
		rc |= ac_pack_kv_str(pk, "asset", o->asset);
	if (o->clip != NULL)
		rc |= ac_pack_kv_str(pk, "clip", o->clip);
	rc |= ac_pack_kv_f64(pk, "weight", o->weight);
	if (o->fade != 0)
		rc |= ac_pack_kv_f64(pk, "fade", o->fade);
	if (additive)
		rc |= ac_pack_kv_str(pk, "mode", "additive");
	if (o->mask_count > 0) {
		/* One group per root, each with its weight. */
		rc |= rpc_pack_cstr(pk, "mask") | msgpack_pack_array(pk, o->mask_count);
		for (size_t k = 0; k < o->mask_count; k++) {
			if (o->mask_joints[k] == NULL)
				return -EINVAL;
			rc |= msgpack_pack_map(pk, 2) | rpc_pack_cstr(pk, "joints") |
			      msgpack_pack_array(pk, 1) | rpc_pack_cstr(pk, o->mask_joints[k]);
			rc |= ac_pack_kv_f64(pk, "weight", o->mask_weights ? o->mask_weights[k] : 1.0);
		}
	}
	rc |= ac_pack_kv_f64(pk, "speed", o->speed);
	if (o->start != 0)
		rc |= ac_pack_kv_f64(pk, "start", o->start);
	if (loop != NULL)
		rc |= ac_pack_kv_str(pk, "loop", loop);
	if (ref) {
		rc |= rpc_pack_cstr(pk, "reference") |
		      msgpack_pack_map(pk, (o->reference_clip != NULL) + 1);
		if (o->reference_clip != NULL)
			rc |= ac_pack_kv_str(pk, "clip", o->reference_clip);
		rc |= ac_pack_kv_f64(pk, "time", o->reference_time);
	}
	return rc ? -ENOMEM : 0;
}

/* The new layer's id rides in the state ("layer"): kept for the caller. */
struct add_result {
	animc_instance state;
	uint32_t layer;
};

static int add_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	struct add_result *res = ac_res_new(sizeof *res);
	struct ac_parse p = { .res = res };
	int rc;

	if (res == NULL)
		return -ENOMEM;
	call->result = res;
	rc = ac_play_parse_instance(c, &p, r, &res->state);
	if (rc < 0)
		return rc;
	res->layer = (uint32_t)ac_obj_u64(&p, r, "layer", 0);
	if (p.err == 0 && res->layer == 0)
		ac_obj_fail(&p, "layer");
	if (p.err == 0)
		ac_play_take_state(c, &res->state);
	return p.err;
}

static const struct ac_method method_add = { "layer.add", add_pack, add_reply, NULL, NULL };

void animc_layer_opts_init(animc_layer_opts *o)
{
	if (o != NULL)
		*o = (animc_layer_opts)ANIMC_LAYER_OPTS_INIT;
}

int animc_layer_add(animc_client *c, uint64_t instance, const animc_layer_opts *o,
		    uint32_t *layer, animc_instance **out)
{
	struct add_call a = { instance, o };
	struct add_result *res = NULL;
	int rc = ac_rpc_call(c, &method_add, &a, (void **)&res);

	if (rc < 0)
		return rc;
	if (layer != NULL)
		*layer = res->layer;
	/* The state is the result's first member: the same allocation. */
	if (out != NULL)
		*out = &res->state;
	else
		animc_free(res);
	return 0;
}

/* ---- layer.set, layer.remove ------------------------------------------- */

struct layer_call {
	uint64_t instance;
	uint32_t layer;
	double weight;          /* NAN: none (remove) */
	double fade;
};

static int layer_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid,
		      const struct layer_call *l, const char *method)
{
	uint64_t sid = ac_instances_to_server(c, l->instance);
	bool set = strcmp(method, "layer.set") == 0;
	int rc = 0;

	if (sid == 0)
		return -ENOENT;
	if (!isfinite(l->fade) || l->fade < 0 || (set && !isfinite(l->weight)))
		return -EINVAL;
	if (rpc_pack_request(pk, msgid, method, 2 + set + (l->fade != 0)) < 0)
		return -ENOMEM;
	rc |= ac_pack_kv_u64(pk, "instance", sid);
	rc |= ac_pack_kv_u64(pk, "layer", l->layer);
	if (set)
		rc |= ac_pack_kv_f64(pk, "weight", l->weight);
	if (l->fade != 0)
		rc |= ac_pack_kv_f64(pk, "fade", l->fade);
	return rc ? -ENOMEM : 0;
}

static int set_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	return layer_pack(c, pk, msgid, params, "layer.set");
}

static int remove_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	return layer_pack(c, pk, msgid, params, "layer.remove");
}

static const struct ac_method method_set = { "layer.set", set_pack, ac_play_state_reply, NULL,
					     NULL };
static const struct ac_method method_remove = { "layer.remove", remove_pack, ac_play_state_reply,
						NULL, NULL };

int animc_layer_set(animc_client *c, uint64_t instance, uint32_t layer, double weight,
		    double fade, animc_instance **out)
{
	struct layer_call l = { instance, layer, weight, fade };

	return ac_rpc_call(c, &method_set, &l, (void **)out);
}

int animc_layer_remove(animc_client *c, uint64_t instance, uint32_t layer, double fade,
		       animc_instance **out)
{
	struct layer_call l = { instance, layer, NAN, fade };

	return ac_rpc_call(c, &method_remove, &l, (void **)out);
}
