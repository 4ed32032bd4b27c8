/*
 * operators.h - who may act on another connection (PROTOCOL.md,
 * "Operators"): `clients.kill`, and `stop`, `pause` or `resume` of another
 * connection's instance ("any": true).  control.operators decides: as
 * kill(2) does, root, the daemon's own user and the user of the peer acted
 * on (privileged, the default); every peer that may connect (everyone); or
 * nobody (none).  Seeing other connections (`clients.list`,
 * `instances.list` with "all", `stats`) is every peer's.
 */
#ifndef ANIMD_OPERATORS_H
#define ANIMD_OPERATORS_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/service/control/session.h"
#include "proto/rpc.h"

/* Whether control.operators lets session s act on `target` (another
 * session; its own is always allowed). */
bool operators_allowed(const struct session *s, const struct session *target);

/* 0 when allowed, else -1 with a permission_denied in err naming `method`,
 * the target, both uids and the configuration that refused it. */
int operators_check(const struct session *s, const struct session *target, const char *method,
		    struct rpc_error *err);

/* Who a session is, for logs and messages: `connection 7 "animctl" (pid
 * 4242, uid 0)`, the name quoted and escaped (rpc_quote), left out when the
 * client gave none.  Always NUL-terminated. */
void operators_describe(const struct session *s, char *buf, size_t len);

#endif
