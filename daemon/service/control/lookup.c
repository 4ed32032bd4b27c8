#include "daemon/service/control/lookup.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

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
	if (cache_get(ctl->cache, key, info) == 0) {
		if (info->asset != NULL)
			return 0;
		rpc_quote(quoted, sizeof quoted, name->ptr, name->len);
		rpc_error_format(err, PROTO_ERR_ASSET_ERROR, "%s: %s has no good version: %s", method,
				 quoted, info->error ? info->error : "not loaded yet");
		return -1;
	}
	/* Not in the cache: say whether the name escapes the root. */
	rc = cache_resolve(ctl->cache, name->ptr, name->len, path, sizeof path, why, sizeof why);
	if (rc == -EACCES || rc == -EINVAL) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "%s: %s", method, why);
		return -1;
	}
	rpc_quote(quoted, sizeof quoted, name->ptr, name->len);
	rpc_error_format(err, PROTO_ERR_NOT_FOUND, "%s: no asset named %s (assets.list shows them)",
			 method, quoted);
	return -1;
}
