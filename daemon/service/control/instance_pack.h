/*
 * instance_pack.h - the map `play`, `layer.*` and `instances.list` return
 * for an instance (PROTOCOL.md, "The instance state"), its layer stack
 * included.
 */
#ifndef ANIMD_INSTANCE_PACK_H
#define ANIMD_INSTANCE_PACK_H

#include <stdint.h>

#include "daemon/service/playback/instances.h"
#include "proto/rpc_out.h"

/* The instance's map; with layer > 0, also "layer": layer (layer.add's
 * new one). */
void instance_pack(const struct instance *in, struct rpc_out *out, uint32_t layer);
/* The same map with room for `extra` more fields, which the caller packs
 * right after (instances.list's "all": the owner's "connection" and
 * "client"). */
void instance_pack_with(const struct instance *in, struct rpc_out *out, uint32_t layer,
			uint32_t extra);

/* Every field of a layer's map in "layers", NULL-terminated: the unit test
 * checks PROTOCOL.md's table lists exactly these. */
extern const char *const instance_pack_layer_fields[];

#endif
