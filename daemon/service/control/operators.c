#include "daemon/service/control/operators.h"

#include <stdio.h>
#include <string.h>

bool operators_allowed(const struct session *s, const struct session *target)
{
	if (s == target)
		return true;
	switch (s->ctl->cfg->operators) {
	case CONFIG_OPERATORS_EVERYONE:
		return true;
	case CONFIG_OPERATORS_NONE:
		return false;
	case CONFIG_OPERATORS_PRIVILEGED:
		break;
	}
	return s->peer_uid == 0 || s->peer_uid == s->ctl->uid || s->peer_uid == target->peer_uid;
}

int operators_check(const struct session *s, const struct session *target, const char *method,
		    struct rpc_error *err)
{
	if (operators_allowed(s, target))
		return 0;
	if (s->ctl->cfg->operators == CONFIG_OPERATORS_NONE)
		rpc_error_format(err, PROTO_ERR_PERMISSION_DENIED,
				 "%s: acting on another connection is turned off "
				 "(control.operators = none)", method);
	else
		rpc_error_format(err, PROTO_ERR_PERMISSION_DENIED,
				 "%s: connection %llu is uid %u's: only that user, root and the "
				 "daemon's own user (uid %u) may act on it, and this connection is "
				 "uid %u (control.operators = privileged)",
				 method, (unsigned long long)target->id, (unsigned)target->peer_uid,
				 (unsigned)s->ctl->uid, (unsigned)s->peer_uid);
	return -1;
}

void operators_describe(const struct session *s, char *buf, size_t len)
{
	char quoted[PROTO_MAX_CLIENT_NAME_BYTES * 4 + 8];

	if (s->name[0] != '\0')
		rpc_quote(quoted, sizeof quoted, s->name, strlen(s->name));
	snprintf(buf, len, "connection %llu%s%s (pid %d, uid %u)", (unsigned long long)s->id,
		 s->name[0] != '\0' ? " " : "", s->name[0] != '\0' ? quoted : "",
		 (int)s->peer_pid, (unsigned)s->peer_uid);
}
