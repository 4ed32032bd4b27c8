/* glTF's own fields for assets.info and sample (gltf_pack.h). */
#include "daemon/service/control/gltf_pack.h"

void gltf_pack_weights(struct rpc_out *out, const struct asset *a, const float *values,
		       uint32_t count)
{
	rpc_put_array(out, count);
	for (uint32_t i = 0; i < count; i++) {
		rpc_put_map(out, 2);
		rpc_put_lit(out, "name");
		rpc_put_cstr(out, i < a->weight_count ? a->weight_names[i] : "");
		rpc_put_lit(out, "weight");
		rpc_put_float(out, values[i]);
	}
}

static void gltf_pack_companions(struct rpc_out *out, const struct asset *a)
{
	rpc_put_array(out, a->companion_count);
	for (uint32_t i = 0; i < a->companion_count; i++) {
		const struct asset_companion *c = &a->companions[i];

		rpc_put_map(out, 6);
		rpc_put_lit(out, "name");
		rpc_put_cstr(out, c->name);
		rpc_put_lit(out, "kind");
		rpc_put_lit(out, "buffer");
		rpc_put_lit(out, "status");
		rpc_put_cstr(out, c->status == ASSET_COMPANION_FOUND ? "found"
			     : c->status == ASSET_COMPANION_MISSING ? "missing" : "rejected");
		rpc_put_lit(out, "buffer");
		rpc_put_uint(out, c->index);
		rpc_put_lit(out, "bytes");
		rpc_put_uint(out, c->bytes);
		rpc_put_lit(out, "error");
		if (c->error != NULL)
			rpc_put_cstr(out, c->error);
		else
			rpc_put_nil(out);
	}
}

void gltf_pack_asset(struct rpc_out *out, const struct asset *a)
{
	rpc_put_lit(out, "weights");
	rpc_put_array(out, a->weight_count);
	for (uint32_t i = 0; i < a->weight_count; i++) {
		rpc_put_map(out, 2);
		rpc_put_lit(out, "name");
		rpc_put_cstr(out, a->weight_names[i]);
		rpc_put_lit(out, "default");
		rpc_put_float(out, a->weights[i]);
	}
	rpc_put_lit(out, "companions");
	gltf_pack_companions(out, a);
}
