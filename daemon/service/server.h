/*
 * server.h - the control socket: created safely, connections accepted up to
 * the configured limit, events broadcast to the sessions that subscribed.
 *
 * Creation (DESIGN.md 9): the umask is tightened before bind so the socket
 * never exists with looser permissions than configured; then chmod/chown to
 * the configured mode and group.  A path that is already a socket is probed
 * first: if a live daemon answers, we refuse to start (never steal a running
 * daemon's socket); only a stale socket (connection refused) is unlinked.
 * Anything that is not a socket is never removed.
 */
#ifndef ANIMD_SERVER_H
#define ANIMD_SERVER_H

#include <stddef.h>

#include "proto/animd_proto.h"
#include "daemon/service/service.h"

int server_open(struct service *svc, struct server **out, char *err, size_t errlen);

/* Send one packed event message to every session subscribed to `type`
 * (PROTO_EVENT_COUNT: to every session). */
void server_broadcast(struct server *srv, enum proto_event type, const char *data, size_t len);

size_t server_session_count(const struct server *srv);

/* Stop accepting, close every session (their instances end), unlink the
 * socket path, and call done(data) once every handle is closed. */
void server_close(struct server *srv, void (*done)(void *data), void *data);

#endif
