/*
 * listener.h - the control socket: created safely, connections accepted up to
 * the configured limit, events broadcast to the sessions that subscribed.
 *
 * Creation (SECURITY.md): the umask is tightened before bind so the socket
 * never exists with looser permissions than configured; then chmod/chown to
 * the configured mode and group.  A path that is already a socket is probed
 * first: if a live daemon answers, we refuse to start (never steal a running
 * daemon's socket); only a stale socket (connection refused) is unlinked.
 * Anything that is not a socket is never removed.  The device and inode of
 * the socket file made are kept: a stop removes the path only while it is
 * still that file (not one put there since, nor another daemon's socket),
 * and never the socket systemd passed.
 */
#ifndef ANIMD_LISTENER_H
#define ANIMD_LISTENER_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/service/control/control.h"
#include "proto/animd_proto.h"

/* Listen on the socket systemd passed (socket activation: sd_listen_fds
 * says one; [socket] path, mode and group are then not used), else on
 * socket.path, created as above. */
int listener_open(struct control *ctl, struct listener **out, char *err, size_t errlen);

/* Where clients reach the daemon: socket.path, or the address of the socket
 * systemd passed (a path, "@name" for an abstract socket); *activated (may
 * be NULL) says which. */
const char *listener_address(const struct listener *srv, bool *activated);

/* Send one packed event message to every session subscribed to `type`
 * (PROTO_EVENT_COUNT: to every session). */
void listener_broadcast(struct listener *srv, enum proto_event type, const char *data, size_t len);

size_t listener_session_count(const struct listener *srv);
/* The first of every session (refused ones included), then s->next. */
struct session *listener_sessions(const struct listener *srv);
/* What the connections hold in memory (session_bytes of each, refused
 * ones included), for status. */
uint64_t listener_session_bytes(const struct listener *srv);

/* A session's pipe has closed: unlink it and free nothing else. */
void listener_forget(struct listener *srv, struct session *s);
/* A session being closed: from now on it holds no connection slot (its
 * handle closes on a later loop turn, and a client that saw the hang-up
 * may already be connecting again). */
void listener_release(struct listener *srv, struct session *s);

/* Stop accepting, close every session (their instances end), unlink the
 * socket path if it is still the socket made at start (else log what is
 * there and leave it), and call done(data) once every handle is closed. */
void listener_close(struct listener *srv, void (*done)(void *data), void *data);

#endif
