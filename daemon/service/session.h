/*
 * session.h - one client connection: reads requests through the bounded
 * decoder, dispatches them, queues replies and events.
 *
 * Backpressure: the daemon never blocks on a client.  When the bytes queued
 * for a client pass the high mark, the session stops reading its requests
 * (so a client that does not read replies cannot make the daemon buffer
 * more); when they pass max_output_bytes_per_connection (events keep coming
 * even when requests are not read), the client is disconnected.
 *
 * A session is freed only from its pipe's close callback; session_close
 * marks it and starts the close, so it is safe from inside any callback.
 */
#ifndef ANIMD_SESSION_H
#define ANIMD_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "proto/rpc.h"
#include "service/service.h"

struct session {
	struct service *svc;
	struct server *server;
	uv_pipe_t pipe;
	struct rpc_decoder dec;
	uint64_t id;
	pid_t peer_pid;
	uid_t peer_uid;
	size_t queued;                  /* bytes handed to uv_write, not yet written */
	size_t high_mark;
	size_t max_output;              /* snapshot of the limit at accept time */
	uint32_t max_instances;
	uint64_t subscriptions;         /* bit per enum proto_event */
	uint32_t instance_count;
	bool reading;
	bool closing;
	struct session *prev, *next;
};

/* Take over an accepted pipe (already initialised by the server).  Starts
 * reading.  0 or -errno (the caller closes the pipe). */
int session_start(struct session *s);

/* Queue bytes for the client (copied).  0, or -ECONNRESET when the session
 * is closing or was just closed for exceeding its output limit. */
int session_send(struct session *s, const char *data, size_t len);

/* Send an error reply and, if fatal, close after it is written. */
void session_send_error(struct session *s, const struct rpc_error *err);

/* Begin closing (idempotent).  `why` is logged. */
void session_close(struct session *s, const char *why);

#endif
