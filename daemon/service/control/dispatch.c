#include "daemon/service/control/dispatch.h"

#include <stdbool.h>

#include "daemon/service/base/log.h"
#include "daemon/service/control/holds.h"

/* Indexed by enum proto_method: the method table and PROTOCOL.md agree
 * (a unit test checks every method has a handler). */
static const method_fn handlers[PROTO_METHOD_COUNT] = {
	[PROTO_METHOD_HELLO] = method_hello,
	[PROTO_METHOD_STATUS] = method_status,
	[PROTO_METHOD_ASSETS_LIST] = method_assets_list,
	[PROTO_METHOD_ASSETS_INFO] = method_assets_info,
	[PROTO_METHOD_ASSETS_RELOAD] = method_assets_reload,
	[PROTO_METHOD_PLAY] = method_play,
	[PROTO_METHOD_PAUSE] = method_pause,
	[PROTO_METHOD_RESUME] = method_resume,
	[PROTO_METHOD_SEEK] = method_seek,
	[PROTO_METHOD_SPEED] = method_speed,
	[PROTO_METHOD_STOP] = method_stop,
	[PROTO_METHOD_INSTANCES_LIST] = method_instances_list,
	[PROTO_METHOD_SAMPLE] = method_sample,
	[PROTO_METHOD_SUBSCRIBE] = method_subscribe,
	[PROTO_METHOD_STREAM_OPEN] = method_stream_open,
	[PROTO_METHOD_STREAM_CLOSE] = method_stream_close,
	[PROTO_METHOD_STATS] = method_stats,
	[PROTO_METHOD_MONITOR] = method_monitor,
	[PROTO_METHOD_LAYER_ADD] = method_layer_add,
	[PROTO_METHOD_LAYER_SET] = method_layer_set,
	[PROTO_METHOD_LAYER_REMOVE] = method_layer_remove,
	[PROTO_METHOD_CLIENTS_LIST] = method_clients_list,
	[PROTO_METHOD_CLIENTS_KILL] = method_clients_kill,
};

/* Methods that answer later (or with a descriptor) on success: their
 * reply header is not packed up front. */
static const bool deferring[PROTO_METHOD_COUNT] = {
	[PROTO_METHOD_ASSETS_RELOAD] = true,
	[PROTO_METHOD_STREAM_OPEN] = true,
};

bool dispatch_handles(enum proto_method m)
{
	return (unsigned)m < PROTO_METHOD_COUNT && handlers[m] != NULL;
}

void dispatch_send_result(struct session *s, uint32_t msgid, const struct rpc_out *result)
{
	struct rpc_out *out = session_out(s);
	size_t mark = session_out_mark(s);

	if (s->closing)
		return;
	rpc_put_response(out, msgid);
	rpc_put_raw(out, result->data, result->len);
	if (rpc_out_failed(out) || rpc_out_failed(result)) {
		session_out_rollback(s, mark);
		session_close(s, "out of memory");
		return;
	}
	session_out_done(s);
}

void dispatch_request(struct session *s, const struct rpc_request *req, const char *raw,
		      size_t raw_len)
{
	struct rpc_error err;
	struct rpc_args args;
	struct rpc_out *out = session_out(s);
	size_t mark = session_out_mark(s);
	enum dispatch_result r;

	/* The reply is packed straight into the session's output: header
	 * first, then the handler's result; an error rolls it back. */
	rpc_args_init(&args, req, &err);
	if (s->ctl->stopping) {
		rpc_error_format(&err, PROTO_ERR_SHUTTING_DOWN, "animd is shutting down");
		r = DISPATCH_ERROR;
	} else {
		if (!deferring[req->method])
			rpc_put_response(out, req->msgid);
		session_dispatch_begin(s);
		s->ctl->dispatch_waits = false;
		r = handlers[req->method](s, req, &args, out, &err);
		/* An asset it names is not in memory yet: the request waits for
		 * it, and is served again (or, if it cannot wait, answered as
		 * the lookup said). */
		if (r == DISPATCH_ERROR && s->ctl->dispatch_waits &&
		    holds_add(s, req, raw, raw_len, &err) == 0)
			r = DISPATCH_DEFERRED;
		s->ctl->dispatch_waits = false;
	}
	if (r == DISPATCH_REPLY && rpc_out_failed(out)) {
		rpc_error_format(&err, PROTO_ERR_INTERNAL, "%s: out of memory for the reply",
				 proto_method_name(req->method));
		r = DISPATCH_ERROR;
	}
	if (r == DISPATCH_REPLY && session_out_mark(s) - mark > PROTO_MAX_REPLY_BYTES) {
		rpc_error_format(&err, PROTO_ERR_LIMIT,
				 "%s: the reply would be %zu bytes, over the %u-byte limit",
				 proto_method_name(req->method), session_out_mark(s) - mark,
				 PROTO_MAX_REPLY_BYTES);
		r = DISPATCH_ERROR;
	}
	if (r == DISPATCH_REPLY) {
		session_out_done(s);
	} else {
		session_out_rollback(s, mark);
		if (r == DISPATCH_ERROR) {
			log_debug("connection %llu: %s", (unsigned long long)s->id, err.message);
			session_send_error(s, &err);
		}
	}
	/* What the request made happen follows its reply. */
	session_dispatch_end(s);
}
