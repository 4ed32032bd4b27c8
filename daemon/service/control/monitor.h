/*
 * monitor.h - `monitor`: a connection that asks is sent an event for every
 * request any other connection makes (PROTOCOL.md, monitor.request), as
 * Redis's MONITOR does.
 *
 * The cost when nobody monitors is the test of ctl->monitors once per
 * request (session.c); monitor_request runs only when it is not zero.
 */
#ifndef ANIMD_MONITOR_H
#define ANIMD_MONITOR_H

#include "daemon/service/control/session.h"

/* Longest params summary sent, in bytes (an ellipsis ends a cut one). */
#define MONITOR_PARAMS_MAX 200

/* Make s a monitor (idempotent). */
void monitor_start(struct session *s);
/* s is closing: it monitors no more. */
void monitor_end(struct session *s);
/* Report req, which s is about to have served, to every other monitor. */
void monitor_request(struct session *s, const struct rpc_request *req);

/* The summary monitor_request sends for a request's arguments (NULL: [])
 * into buf (NUL-terminated, at most MONITOR_PARAMS_MAX bytes and the NUL):
 * `{asset: "walker.md5anim", speed: 1.5}`, strings escaped as the log
 * escapes them, binary shown by its size, nesting past 3 levels as `…`.
 * Returns its length (0, an empty string, when size is under 16). */
size_t monitor_summary(const msgpack_object_map *args, char *buf, size_t size);

#endif
