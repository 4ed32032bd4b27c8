/*
 * gltf_pack.h - what only glTF has, as msgpack: the same fields, under the
 * same names, as `animd inspect --json` and `animd sample --json` print,
 * for assets.info and sample.
 */
#ifndef ANIMD_GLTF_PACK_H
#define ANIMD_GLTF_PACK_H

#include "daemon/assets/asset.h"
#include "proto/rpc_out.h"

/* Pairs gltf_pack_asset adds to assets.info. */
#define GLTF_PACK_ASSET_PAIRS 2u

/* "weights" (each morph weight's name and default) and "companions" (the
 * buffer files: name, kind "buffer", status, buffer, bytes, error). */
void gltf_pack_asset(struct rpc_out *out, const struct asset *a);
/* A sample's "weights": [{name, weight}] at `values`. */
void gltf_pack_weights(struct rpc_out *out, const struct asset *a, const float *values,
		       uint32_t count);

#endif
