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
 * Replies to the requests of one read are gathered and written with one
 * system call when the read has been served (pipelined clients get one
 * write per batch, not one per reply); everything else is written at once.
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

#include "daemon/service/control/control.h"
#include "daemon/service/playback/owner.h"
#include "proto/rpc.h"

struct session {
	struct control *ctl;
	struct listener *listener;
	uv_pipe_t pipe;
	struct rpc_decoder dec;
	uint64_t id;
	pid_t peer_pid;                 /* SO_PEERCRED, at accept */
	uid_t peer_uid;
	gid_t peer_gid;
	/* What the client calls itself (hello's "name": valid UTF-8, escaped
	 * wherever it is printed); "" until it says. */
	char name[PROTO_MAX_CLIENT_NAME_BYTES + 1];
	double accepted_unix;           /* the wall clock at accept, Unix seconds */
	size_t queued;                  /* bytes handed to uv_write, not yet written */
	struct rpc_out out;             /* replies gathered while serving a read */
	bool batching;                  /* inside a read callback: flush at its end */
	bool draining;                  /* serving requests from the decoder */
	bool fd_paused_read;            /* reading stopped until fd_msg is sent */
	bool hanging_up;                /* a fatal error is being sent: read no more */
	char *fd_msg;                   /* a reply waiting to carry a descriptor */
	size_t fd_msg_len;
	int fd_msg_fd;
	size_t high_mark;
	size_t max_output;              /* snapshot of the limit at accept time */
	uint32_t max_instances;
	uint64_t subscriptions;         /* bit per enum proto_event */
	struct playback_owner owns;     /* its instances and streams (counted by them) */
	bool reading;
	bool peer_eof;                  /* the client shut down its side: finish, then close */
	bool refused;                   /* over the connection limit: told so, read and
					   discarded until it hangs up or lingers too long */
	bool released;                  /* closing: its slot is free (listener_release) */
	/* Loop times (ms, uv_now) for the timeouts listener.c enforces. */
	uint64_t accepted_ms;
	uint64_t last_rx_ms;            /* bytes last arrived */
	uint64_t partial_since_ms;      /* the request now arriving began; 0: none */
	uint64_t tx_stall_since_ms;     /* output waiting and none of it taken since; 0: none */
	uint32_t deferred;              /* requests whose reply comes later (assets.reload,
					   and those waiting for a load) */
	uint32_t waiting;               /* of which waiting for a load (holds.h) */
	size_t waiting_bytes;           /* their requests' bytes, kept to serve them again */
	uint64_t requests;              /* requests dispatched (stats) */
	bool monitor;                   /* sent every other connection's requests (monitor.h) */
	/* A request's handler is running (session_dispatch_begin): its reply
	 * is being packed into `out`, so what is sent meanwhile (the clip.event
	 * reports a pause or a seek makes due) waits in `held` and follows the
	 * reply. */
	bool dispatching;
	struct rpc_out held;
	bool closing;
	struct session *prev, *next;
};

/* The session that owns what a playback owner owns (instances, streams). */
static inline struct session *session_of_owner(const struct playback_owner *o)
{
	return (struct session *)(void *)((char *)(uintptr_t)o - offsetof(struct session, owns));
}

/* Take over an accepted pipe (already initialised by the server).  Starts
 * reading.  0 or -errno (the caller closes the pipe). */
int session_start(struct session *s);

/* Over the connection limit: send err (a `limit` or `shutting_down`
 * error), shut down our side so the client reads it and then EOF, and
 * discard what it sends until it hangs up (or listener.c's linger timeout
 * closes it).  Closing at once would leave a client that writes its first
 * request before reading with EPIPE and no reason. */
int session_refuse(struct session *s, const struct rpc_error *err);

/* What listener.c's periodic sweep asks of each session: close it (with a
 * fatal error saying why) if it has broken a timeout.  now_ms is uv_now.
 * A session past a deadline whose socket holds input not yet read, or has
 * room again for its queued output, is left for the loop's next I/O phase
 * and judged at the next sweep: after a stall of the daemon (SIGSTOP, a
 * long callback) the lateness is the daemon's, not the client's. */
void session_check_timeouts(struct session *s, uint64_t now_ms);

/* Queue bytes for the client (copied).  0, or -ECONNRESET when the session
 * is closing or was just closed for exceeding its output limit.  While a
 * handler runs, they are held until it is done (never closing the session
 * under it). */
int session_send(struct session *s, const char *data, size_t len);

/* Around a request's handler (dispatch.c): the end sends what was held,
 * after the reply, and may close the session (its output limit). */
void session_dispatch_begin(struct session *s);
void session_dispatch_end(struct session *s);

/* The session's output, to write a message into (the batch of a read, or
 * a message written as soon as the caller calls session_out_done). */
static inline struct rpc_out *session_out(struct session *s)
{
	return &s->out;
}
/* Bytes gathered so far, to roll a half-written reply back to. */
static inline size_t session_out_mark(const struct session *s)
{
	return s->out.len;
}
static inline void session_out_rollback(struct session *s, size_t mark)
{
	rpc_out_truncate(&s->out, mark);
}
/* Done appending: outside a read's batch, write it now; check the limit. */
void session_out_done(struct session *s);

/* Send a whole message whose first byte carries `fd` (SCM_RIGHTS; libuv
 * cannot attach a plain descriptor, so this one send uses sendmsg once
 * everything queued before it is written).  Output after it waits for it.
 * Takes ownership of fd. */
void session_send_with_fd(struct session *s, const char *data, size_t len, int fd);

/* Send an error reply and, if fatal, close after it is written. */
void session_send_error(struct session *s, const struct rpc_error *err);

/* Send one last message (clients.kill's client.killed event) and close at
 * once, logging `why`: what the socket takes without waiting is sent (all
 * of it for a client that reads), the rest is dropped, so a client that
 * does not read is closed all the same.  Its instances and streams end
 * with the close. */
void session_send_last(struct session *s, const char *data, size_t len, const char *why);

/* A deferred reply (counted in `deferred` when its request was taken) has
 * been sent: a client that has shut down its side may be done now. */
void session_deferred_done(struct session *s);

/* Begin closing (idempotent).  `why` is logged. */
void session_close(struct session *s, const char *why);

/* What the session holds in memory: its record, the input buffer and the
 * replies gathered (their capacities), the output handed to libuv and not
 * yet written, a reply waiting for its descriptor.  Not msgpack's zone of
 * the request being served, nor the kernel's socket buffers. */
size_t session_bytes(const struct session *s);

#endif
