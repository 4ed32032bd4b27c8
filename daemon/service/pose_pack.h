/*
 * pose_pack.h - a sampled pose as msgpack, field for field what
 * `animd sample --json` prints (README, PROTOCOL.md `sample`): numbers are
 * float32 (exactly the engine's values), times float64.
 */
#ifndef ANIMD_POSE_PACK_H
#define ANIMD_POSE_PACK_H

#include <msgpack.h>

#include "assets/sampling.h"

void pose_pack(msgpack_packer *pk, const struct sample_request *q, const char *asset_name,
	       const struct sample_result *r);

/* What assets.info returns for an asset (the same fields as
 * `animd inspect --json`, plus the cache's). */
void pose_pack_asset_info(msgpack_packer *pk, const char *name, const struct asset *a);

#endif
