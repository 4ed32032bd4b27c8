/*
 * rpc_client.h - a small blocking msgpack-RPC client for the integration
 * tests and benchmarks.  Deliberately independent of client/ and proto/:
 * it speaks the wire as PROTOCOL.md describes it, so the tests check the
 * document as much as the daemon.
 */
#ifndef ANIMD_TEST_RPC_CLIENT_H
#define ANIMD_TEST_RPC_CLIENT_H

#include <msgpack.h>
#include <stddef.h>
#include <stdint.h>

#define RPC_MAX_EVENTS 256

struct rpc_reply {
	msgpack_unpacked msg;
	uint32_t msgid;
	const msgpack_object *result;   /* NULL when error */
	const msgpack_object *error;    /* NULL when ok */
	char code[64];                  /* error code, "" when ok */
	char message[512];
};

struct rpc_event {
	msgpack_unpacked msg;
	const msgpack_object *body;     /* the event map: params[0] */
	char type[64];
};

struct rpc_client {
	int fd;
	uint32_t next_id;
	int timeout_ms;
	msgpack_unpacker up;
	struct rpc_event events[RPC_MAX_EVENTS];
	unsigned event_head, event_count;
	unsigned events_dropped;
	unsigned strays;                /* top-level objects that were neither a reply nor an event
					   (each makes the read that met it fail with -EPROTO) */
	int send_dontwait;              /* sends fail with -EAGAIN instead of blocking */
	int fds[8];                     /* descriptors received (SCM_RIGHTS), oldest first */
	unsigned fd_count;
	int corked;                     /* rpc_client_send gathers until rpc_client_uncork */
	msgpack_sbuffer corked_out;
};

/* Connect to a Unix socket, retrying until timeout_ms.  0 or -errno. */
int rpc_client_connect(struct rpc_client *c, const char *path, int timeout_ms);
void rpc_client_close(struct rpc_client *c);

/*
 * Call a method.  `fmt` lists the named parameters as "key:T key:T ...",
 * T one of s (const char *), i (int64_t), u (uint64_t), d (double),
 * b (int as bool), n (nil, no vararg), S (NULL-terminated const char **
 * as an array of strings), O (const msgpack_sbuffer * holding one value
 * packed already: maps, nested arrays).  fmt NULL or "" sends an empty params array.
 * Returns 0 when a reply arrived (check reply->error), -errno on I/O
 * failure or timeout.  Free the reply with rpc_reply_free.
 */
int rpc_client_call(struct rpc_client *c, struct rpc_reply *reply, const char *method,
		    const char *fmt, ...);
/* Pack and send a request without waiting; returns the msgid or -errno. */
int64_t rpc_client_send(struct rpc_client *c, const char *method, const char *fmt, ...);
/* Wait for the reply to msgid (events that arrive meanwhile are queued). */
int rpc_client_wait(struct rpc_client *c, uint32_t msgid, struct rpc_reply *reply);
/* Read the next message of any kind that is a reply (any msgid). */
int rpc_client_wait_any(struct rpc_client *c, struct rpc_reply *reply);
void rpc_reply_free(struct rpc_reply *reply);

/* Non-blocking pair for event-driven callers (benchmarks): read whatever
 * has arrived (0, -EAGAIN when nothing, -ECONNRESET), then take buffered
 * replies one by one (1 = reply, 0 = none left; events are queued). */
int rpc_client_read_nowait(struct rpc_client *c);
int rpc_client_next_buffered(struct rpc_client *c, struct rpc_reply *reply);

/* The oldest descriptor received with a message (stream.open), or -1.
 * The caller owns it. */
int rpc_client_take_fd(struct rpc_client *c);

/* Gather requests and send them with one system call (pipelining). */
void rpc_client_cork(struct rpc_client *c);
int rpc_client_uncork(struct rpc_client *c);

/* Send raw bytes (for malformed-input tests).  0 or -errno. */
int rpc_client_send_raw(struct rpc_client *c, const void *buf, size_t len);
/* 1 if the peer closed the connection within timeout_ms, else 0. */
int rpc_client_wait_closed(struct rpc_client *c, int timeout_ms);

/* Next queued or arriving event, waiting up to timeout_ms; 0 or -ETIMEDOUT.
 * Free with rpc_event_free. */
int rpc_client_next_event(struct rpc_client *c, int timeout_ms, struct rpc_event *ev);
void rpc_event_free(struct rpc_event *ev);

/* Map lookups over a reply's objects (NULL when absent or not a map). */
const msgpack_object *rpc_get(const msgpack_object *map, const char *key);
int rpc_get_str(const msgpack_object *map, const char *key, char *out, size_t size);
int rpc_get_i64(const msgpack_object *map, const char *key, int64_t *out);
int rpc_get_f64(const msgpack_object *map, const char *key, double *out);

#endif
