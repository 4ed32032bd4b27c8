/*
 * pose_pack.h - a sampled pose as msgpack, field for field what
 * `animd sample --json` prints (README, PROTOCOL.md `sample`): numbers are
 * float32 (exactly the engine's values), times float64.
 */
#ifndef ANIMD_POSE_PACK_H
#define ANIMD_POSE_PACK_H


#include "daemon/assets/sampling.h"
#include "proto/rpc_out.h"

void pose_pack(struct rpc_out *out, const struct sample_request *q, const char *asset_name,
	       const struct sample_result *r);

/* What assets.info returns for an asset (the same fields as
 * `animd inspect --json`, plus the cache's): pose_asset_info_pairs() of
 * them, written after a map header the caller packs (so it can add its
 * own). */
uint32_t pose_asset_info_pairs(const struct asset *a);
void pose_pack_asset_info(struct rpc_out *out, const char *name, const struct asset *a);

#endif
