#include "daemon/service/control/lookup.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The request must wait for name (NULL: the index): dispatch.c holds it
 * (holds.h); err is the answer should it not be held. */
static int lookup_wait(struct control *ctl, const char *method, const char *name,
		       struct rpc_error *err)
{
	char quoted[160];

	ctl->dispatch_waits = true;
	free(ctl->dispatch_wait_name);
	ctl->dispatch_wait_name = name != NULL ? strdup(name) : NULL;
	if (name != NULL)
		rpc_quote(quoted, sizeof quoted, name, strlen(name));
	else
		snprintf(quoted, sizeof quoted, "the index of the asset tree");
	rpc_error_format(err, PROTO_ERR_LOADING, "%s: %s is still loading: try again", method,
			 quoted);
	return -1;
}

int lookup_index(struct control *ctl, const char *method, struct rpc_error *err)
{
	if (cache_indexed(ctl->cache))
		return 0;
	return lookup_wait(ctl, method, NULL, err);
}

int lookup_asset(struct control *ctl, const char *method, const struct rpc_str *name,
		 struct cache_info *info, struct rpc_error *err)
{
	char key[PROTO_MAX_ASSET_NAME_BYTES + 1], quoted[160], path[PATH_MAX], why[256];
	int rc;

	if (name->len > PROTO_MAX_ASSET_NAME_BYTES) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "%s: asset name is too long", method);
		return -1;
	}
	memcpy(key, name->ptr, name->len);
	key[name->len] = '\0';
	/* A NUL inside would name another asset: cache_resolve refuses it. */
	rc = memchr(name->ptr, '\0', name->len) == NULL ? cache_use(ctl->cache, key, info) : -ENOENT;
	if (rc == 0) {
		if (info->asset != NULL)
			return 0;
		if (info->state == CACHE_ASSET_LOADING || info->state == CACHE_ASSET_EVICTED)
			return lookup_wait(ctl, method, key, err);
		rpc_quote(quoted, sizeof quoted, name->ptr, name->len);
		rpc_error_format(err, PROTO_ERR_ASSET_ERROR, "%s: %s has no good version: %s", method,
				 quoted, info->error ? info->error : "not loaded yet");
		return -1;
	}
	/* Not in the index: say whether the name escapes the root (before the
	 * index is complete, too: such a name never waits). */
	rc = cache_resolve(ctl->cache, name->ptr, name->len, path, sizeof path, why, sizeof why);
	if (rc == -EACCES || rc == -EINVAL) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "%s: %s", method, why);
		return -1;
	}
	if (!cache_indexed(ctl->cache))
		return lookup_wait(ctl, method, key, err);
	rpc_quote(quoted, sizeof quoted, name->ptr, name->len);
	rpc_error_format(err, PROTO_ERR_NOT_FOUND, "%s: no asset named %s (assets.list shows them)",
			 method, quoted);
	return -1;
}
