/*
 * m2_pack.h - what only M2 has, as msgpack: the same fields, under the
 * same names, as `animd inspect --json` and `animd sample --json` print
 * (daemon/offline/m2_json.c), for assets.info and sample.
 */
#ifndef ANIMD_M2_PACK_H
#define ANIMD_M2_PACK_H

#include "daemon/assets/asset.h"
#include "proto/rpc_out.h"

/* Pairs m2_pack_joint and m2_pack_sequence add to their map. */
#define M2_PACK_JOINT_PAIRS 4u
#define M2_PACK_SEQUENCE_PAIRS 13u
/* Pairs m2_pack_asset adds to assets.info. */
#define M2_PACK_ASSET_PAIRS 5u

void m2_pack_joint(struct rpc_out *out, const struct m2_joint_info *j);
/* The sequence's fields, and the clip's "events": its moments [{"time",
 * "event"}]. */
void m2_pack_sequence(struct rpc_out *out, const struct m2_sequence_info *s, const struct clip *c);
/* "global_sequences", "emitters" (their static fields), "attachments",
 * "events" and "companions". */
void m2_pack_asset(struct rpc_out *out, const struct asset *a);
/* Emitter i of a: its static fields, and with st (may be NULL) its state
 * ("m", "enabled", "params"). */
void m2_pack_emitter(struct rpc_out *out, const struct asset *a, uint32_t i,
		     const struct emitter_state *st);
/* Attachment point i of a: "index", "id", "bone", "joint", "position", and
 * with st (may be NULL) its state ("m", "animate"). */
void m2_pack_attachment(struct rpc_out *out, const struct asset *a, uint32_t i,
			const struct attachment_state *st);

#endif
