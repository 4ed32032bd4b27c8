/*
 * dispatch.h - from a validated request to its handler, and the reply.
 *
 * Handlers validate every argument (through rpc_args_*) before they change
 * anything, then pack exactly one result object.  A handler may also defer
 * its reply (assets.reload answers when the reload has happened).  One that
 * looks an asset up (lookup.h) must change nothing before its lookups: a
 * request that waits for a load is served again from the start.
 */
#ifndef ANIMD_DISPATCH_H
#define ANIMD_DISPATCH_H

#include <stdbool.h>

#include "daemon/service/control/session.h"
#include "proto/rpc.h"

enum dispatch_result {
	DISPATCH_REPLY = 0,     /* the result is packed */
	DISPATCH_ERROR = -1,    /* err holds the error reply */
	DISPATCH_DEFERRED = 1,  /* the handler replies later */
};

typedef enum dispatch_result (*method_fn)(struct session *s, const struct rpc_request *req,
					  struct rpc_args *args, struct rpc_out *out,
					  struct rpc_error *err);

/* Does the method table have a handler for m?  (Tests check the table,
 * proto_method_names and PROTOCOL.md agree.) */
bool dispatch_handles(enum proto_method m);

/* Serve one request: call its handler and send the reply, or hold the
 * request (holds.h: raw_len bytes at raw are the message, kept to serve it
 * again) when the handler found an asset it names not in memory yet. */
void dispatch_request(struct session *s, const struct rpc_request *req, const char *raw,
		      size_t raw_len);

/* The handlers, one file per family. */
enum dispatch_result method_hello(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_status(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_subscribe(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_assets_list(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_assets_info(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_assets_reload(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_sample(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_play(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_pause(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_resume(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_seek(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_speed(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_stop(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_instances_list(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_stream_open(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_stream_close(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_stats(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_monitor(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_layer_add(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_layer_set(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_layer_remove(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_clients_list(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);
enum dispatch_result method_clients_kill(struct session *, const struct rpc_request *, struct rpc_args *, struct rpc_out *, struct rpc_error *);

/* Every field of the stats result, as PROTOCOL.md's table names them
 * ("streams[].ticks"), NULL-terminated: the unit test checks the document
 * lists exactly these, the integration test that the reply carries them. */
extern const char *const method_stats_fields[];
/* The same for a connection of clients.list ("clients[].x" in PROTOCOL.md
 * is "x" here). */
extern const char *const method_clients_fields[];

/* Send a deferred reply: result packed by the caller into `result`. */
void dispatch_send_result(struct session *s, uint32_t msgid, const struct rpc_out *result);

#endif
