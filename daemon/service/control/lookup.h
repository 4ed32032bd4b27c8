/*
 * lookup.h - from a name in a request to a live asset, with the error a
 * client can act on: not_found (not in the index: not in the tree),
 * bad_request (outside the asset root), asset_error (only a broken version
 * exists: the message is the parse error).  A name the index holds that is
 * not in memory (its first load, or one after an eviction), or any name
 * before the index is complete, makes the request wait (holds.h): the
 * lookup fails with a `loading` error and marks the dispatch, which holds
 * the request instead of sending it.
 */
#ifndef ANIMD_LOOKUP_H
#define ANIMD_LOOKUP_H

#include "daemon/service/cache/cache.h"
#include "daemon/service/control/control.h"
#include "proto/rpc.h"

/* 0 with *info filled (info->asset non-NULL; the asset counts as used
 * now), or -1 with err set. */
int lookup_asset(struct control *ctl, const char *method, const struct rpc_str *name,
		 struct cache_info *info, struct rpc_error *err);

/* For a request that needs the whole index (assets.list, assets.reload):
 * 0 once it is complete; before, -1 with the dispatch marked to wait for
 * it and a `loading` error in err. */
int lookup_index(struct control *ctl, const char *method, struct rpc_error *err);

#endif
