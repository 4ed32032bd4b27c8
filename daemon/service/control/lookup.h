/*
 * lookup.h - from a name in a request to a live asset, with the error a
 * client can act on: not_found (never loaded, or not in the tree),
 * bad_request (outside the asset root), asset_error (only a broken version
 * exists: the message is the parse error).
 */
#ifndef ANIMD_LOOKUP_H
#define ANIMD_LOOKUP_H

#include "daemon/service/cache/cache.h"
#include "daemon/service/control/control.h"
#include "proto/rpc.h"

/* 0 with *info filled (info->asset non-NULL), or -1 with err set. */
int lookup_asset(struct control *ctl, const char *method, const struct rpc_str *name,
		 struct cache_info *info, struct rpc_error *err);

#endif
