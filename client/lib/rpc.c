/*
 * rpc.c - calls and replies: packing a request, matching each reply to its
 * call by msgid (replies may come in any order, events in between), and
 * the two ways to wait: a blocking call polls the socket until its own
 * reply arrives; an async call is completed by a later process().
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

/* Reads per process() or wake-up: bounded so one busy connection cannot
 * starve the caller's loop (64 x 64 KiB). */
#define RPC_READS_PER_TURN 64

void ac_rpc_call_free(struct ac_call *call)
{
	if (call == NULL)
		return;
	if (call->ctx != NULL && call->m->ctx_free != NULL)
		call->m->ctx_free(call->ctx);
	ac_res_free(call->result);
	free(call->code_name);
	free(call->message);
	free(call);
}

static void rpc_set_message(struct ac_call *call, const char *msg)
{
	free(call->message);
	call->message = strdup(msg);
}

/* A call is over: hand it to its waiter, its callback, or the bin. */
static void rpc_complete(animc_client *c, struct ac_call *call)
{
	call->done = true;
	if (call->async) {
		c->async_pending--;
		ac_client_enqueue(c, &call->item);
	} else if (call->abandoned) {
		ac_rpc_call_free(call);
	}
	/* else: the blocking caller is polling for call->done. */
}

static uint32_t rpc_next_msgid(animc_client *c)
{
	uint32_t id;

	/* 0 is what the daemon uses for errors it cannot attribute; skip it
	 * and any id still waiting for its reply after a wrap-around. */
	do
		id = c->next_msgid++;
	while (id == 0 || ac_idmap_get(&c->calls, id) != NULL);
	return id;
}

/* Create a call, pack it, queue it and send what the socket takes. */
static int rpc_start(animc_client *c, const struct ac_method *m, const void *params,
		     bool async, struct ac_call **out)
{
	struct ac_call *call = calloc(1, sizeof *call);
	size_t mark = c->out_len;
	msgpack_packer pk;
	int rc;

	if (call == NULL)
		return -ENOMEM;
	call->item.kind = AC_ITEM_CALL;
	call->m = m;
	call->async = async;
	call->deadline = AC_NEVER;
	if (m->prepare != NULL && (call->ctx = m->prepare(c, params)) == NULL) {
		free(call);
		return -ENOMEM;
	}
	/* Packed straight onto the output queue; a failure takes it back. */
	msgpack_packer_init(&pk, c, ac_conn_write);
	c->write_err = 0;
	call->msgid = rpc_next_msgid(c);
	rc = m->pack(c, &pk, call->msgid, params);
	if (rc == -ENOMEM && c->write_err < 0)
		rc = c->write_err;      /* -ENOBUFS: too much queued unsent */
	if (rc == 0)
		rc = ac_idmap_put(&c->calls, call->msgid, call);
	if (rc < 0) {
		c->out_len = mark;
		ac_rpc_call_free(call);
		return rc;
	}
	if (async)
		c->async_pending++;
	*out = call;
	rc = ac_conn_flush(c);
	if (rc < 0) {
		/* The peer is gone; what it said last (a refusal) may still be
		 * waiting to be read.  The call completes with the loss. */
		ac_rpc_read_available(c);
		ac_client_lost(c, rc);
	}
	return 0;
}

/* Put a finished call's failure where animc_client_error finds it. */
static void rpc_report(animc_client *c, const struct ac_call *call)
{
	if (call->code_name != NULL)
		ac_client_set_error(c, call->code, call->code_name, "%s",
				    call->message ? call->message : "");
	else
		ac_client_fail(c, call->status, "%s: %s", call->m->name,
			       call->message ? call->message : animc_strerror(call->status));
}

static int rpc_start_failed(animc_client *c, const struct ac_method *m, int rc)
{
	const char *why = rc == -ENOENT ? "not an instance of this client"
			: rc == -EINVAL ? "invalid argument"
			: animc_strerror(rc);

	return ac_client_fail(c, rc, "%s: %s", m->name, why);
}

int ac_rpc_call(animc_client *c, const struct ac_method *m, const void *params, void **out)
{
	int64_t deadline;
	bool retried = false;

	if (out != NULL)
		*out = NULL;
	if (c == NULL)
		return -EINVAL;
	deadline = ac_deadline(c->timeout_ms);
	for (;;) {
		struct ac_call *call;
		int rc = ac_client_ensure(c, deadline);

		if (rc < 0)
			return rc;
		rc = rpc_start(c, m, params, false, &call);
		if (rc < 0)
			return rpc_start_failed(c, m, rc);
		while (!call->done) {
			int left = ac_left_ms(deadline);

			if (left == 0)
				break;
			rc = ac_rpc_pump(c, left);
			if (rc < 0 && !call->done)
				break;
		}
		if (!call->done) {
			/* Its reply, if it ever comes, is still handled (a play
			 * is remembered) and then dropped. */
			call->abandoned = true;
			if (rc < 0 && rc != -ETIMEDOUT)
				return ac_client_fail(c, rc, "%s: %s", m->name, animc_strerror(rc));
			return ac_client_fail(c, -ETIMEDOUT, "%s: no reply within %d ms", m->name,
					      c->timeout_ms);
		}
		rc = call->status;
		if (rc == -ECONNRESET && !retried && c->rc.enabled && !c->in_reconnect) {
			/* Lost before its reply: once the daemon is back (and
			 * the client's state replayed), ask again. */
			retried = true;
			ac_rpc_call_free(call);
			continue;
		}
		if (rc == 0 && out != NULL) {
			*out = call->result;
			call->result = NULL;
		} else if (rc < 0) {
			rpc_report(c, call);
		}
		ac_rpc_call_free(call);
		return rc;
	}
}

int ac_rpc_call_async(animc_client *c, const struct ac_method *m, const void *params,
		      animc_done_fn done, void *user)
{
	struct ac_call *call;
	int rc;

	if (c == NULL)
		return -EINVAL;
	if (c->state != AC_CONNECTED)
		return ac_client_fail(c, -ENOTCONN, "%s: not connected to the daemon", m->name);
	rc = rpc_start(c, m, params, true, &call);
	if (rc < 0)
		return rpc_start_failed(c, m, rc);
	call->done_fn = done;
	call->user = user;
	if (!call->done)
		call->deadline = ac_deadline(c->timeout_ms);
	return 0;
}

/* [1, msgid, error, result] */
static void rpc_on_response(animc_client *c, const msgpack_object_array *a)
{
	const msgpack_object *error, *result, *code, *message;
	struct ac_call *call = NULL;
	uint64_t msgid;

	if (a->size != 4 || a->ptr[1].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    a->ptr[1].via.u64 > UINT32_MAX)
		return;
	error = &a->ptr[2];
	result = &a->ptr[3];
	msgid = a->ptr[1].via.u64;
	if (msgid != 0)
		call = ac_idmap_del(&c->calls, msgid);
	code = ac_obj_get(error, "code");
	message = ac_obj_get(error, "message");
	if (call == NULL) {
		/* An error for no request of ours: the daemon is about to close
		 * the connection (too many connections, a protocol error). */
		if (error->type == MSGPACK_OBJECT_MAP) {
			c->fatal_set = true;
			c->fatal_code = code && code->type == MSGPACK_OBJECT_STR
						? ac_names_error(code->via.str.ptr, code->via.str.size)
						: ANIMC_ERR_OTHER;
			snprintf(c->fatal_name, sizeof c->fatal_name, "%.*s",
				 code && code->type == MSGPACK_OBJECT_STR ? (int)code->via.str.size : 0,
				 code && code->type == MSGPACK_OBJECT_STR ? code->via.str.ptr : "");
			snprintf(c->fatal_msg, sizeof c->fatal_msg, "%.*s",
				 message && message->type == MSGPACK_OBJECT_STR
					 ? (int)message->via.str.size : 0,
				 message && message->type == MSGPACK_OBJECT_STR
					 ? message->via.str.ptr : "");
		}
		return;
	}
	if (error->type != MSGPACK_OBJECT_NIL) {
		call->status = -EREMOTEIO;
		call->code = ANIMC_ERR_OTHER;
		if (code != NULL && code->type == MSGPACK_OBJECT_STR) {
			call->code = ac_names_error(code->via.str.ptr, code->via.str.size);
			call->code_name = strndup(code->via.str.ptr, code->via.str.size);
		}
		if (call->code_name == NULL)
			call->code_name = strdup("internal");
		if (message != NULL && message->type == MSGPACK_OBJECT_STR)
			call->message = strndup(message->via.str.ptr, message->via.str.size);
	} else {
		static const msgpack_object empty = { .type = MSGPACK_OBJECT_MAP };

		call->status = call->m->reply(c, call, result->type == MSGPACK_OBJECT_NIL ? &empty
											: result);
		if (call->status < 0 && call->message == NULL)
			rpc_set_message(call, call->status == -EPROTO
						      ? "the reply does not have the documented shape"
						      : animc_strerror(call->status));
	}
	rpc_complete(c, call);
}

/* Handle every complete message the decoder holds. */
static int rpc_handle_input(animc_client *c)
{
	struct rpc_message msg;
	struct rpc_error err;
	int rc;

	while ((rc = rpc_decoder_next(&c->dec, &msg, &err)) == 1) {
		const msgpack_object_array *a = &msg.obj.via.array;

		c->msg_start = c->rx_total - rpc_decoder_pending(&c->dec) - msg.size;
		if (c->nfds > 0)
			ac_conn_sweep_fds(c, c->msg_start);
		/* The daemon only sends responses and notifications; anything
		 * else is ignored rather than trusted. */
		if (msg.obj.type != MSGPACK_OBJECT_ARRAY || a->size < 3 ||
		    a->ptr[0].type != MSGPACK_OBJECT_POSITIVE_INTEGER)
			continue;
		if (a->ptr[0].via.u64 == RPC_TYPE_RESPONSE)
			rpc_on_response(c, a);
		else if (a->ptr[0].via.u64 == RPC_TYPE_NOTIFICATION)
			ac_events_handle(c, &msg.obj);
	}
	return rc < 0 ? -EPROTO : 0;
}

int ac_rpc_read_available(animc_client *c)
{
	for (int i = 0; i < RPC_READS_PER_TURN && c->fd >= 0; i++) {
		int rc = ac_conn_read(c);

		if (rc == -EAGAIN)
			return 0;
		if (rc > 0)
			rc = rpc_handle_input(c);
		else if (rc == 0)
			rc = -ECONNRESET;       /* EOF: the daemon closed or stopped */
		if (rc < 0) {
			ac_client_lost(c, rc);
			return rc == -EPROTO ? rc : -ECONNRESET;
		}
	}
	return 0;
}

int ac_rpc_pump(animc_client *c, int timeout_ms)
{
	struct pollfd p;
	int n, rc;

	if (c->fd < 0)
		return -ENOTCONN;
	p.fd = c->fd;
	p.events = POLLIN | (c->out_len > 0 ? POLLOUT : 0);
	p.revents = 0;
	n = poll(&p, 1, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n == 0)
		return 0;
	if (p.revents & POLLNVAL) {
		ac_client_lost(c, -EBADF);
		return -ECONNRESET;
	}
	if (p.revents & POLLOUT) {
		rc = ac_conn_flush(c);
		if (rc < 0) {
			ac_rpc_read_available(c);
			ac_client_lost(c, rc);
			return -ECONNRESET;
		}
	}
	if (p.revents & (POLLIN | POLLHUP | POLLERR))
		return ac_rpc_read_available(c);
	return 0;
}

/* Take every call out of the map into a list (calls are not freed). */
static struct ac_call *rpc_take_all(animc_client *c, bool (*pick)(const struct ac_call *, void *),
				    void *data)
{
	struct ac_call *list = NULL;

	for (size_t i = 0; i < c->calls.cap; i++) {
		struct ac_call *call = c->calls.vals[i];

		if (call != NULL && (pick == NULL || pick(call, data))) {
			call->item.next = (struct ac_item *)list;
			list = call;
		}
	}
	for (struct ac_call *call = list; call != NULL; call = (struct ac_call *)call->item.next)
		ac_idmap_del(&c->calls, call->msgid);
	return list;
}

void ac_rpc_fail_all(animc_client *c, int status)
{
	struct ac_call *call = rpc_take_all(c, NULL, NULL), *next;

	for (; call != NULL; call = next) {
		next = (struct ac_call *)call->item.next;
		call->item.next = NULL;
		call->status = status;
		if (c->fatal_set && c->fatal_name[0] == '\0') {
			/* Why, from an event (client.killed): still a loss. */
			rpc_set_message(call, c->fatal_msg);
		} else if (c->fatal_set) {
			/* The daemon said why before closing: that is the error. */
			call->status = -EREMOTEIO;
			call->code = c->fatal_code;
			call->code_name = strdup(c->fatal_name);
			rpc_set_message(call, c->fatal_msg);
		} else {
			rpc_set_message(call, "connection to the daemon lost");
		}
		rpc_complete(c, call);
	}
}

static bool rpc_expired(const struct ac_call *call, void *data)
{
	return call->async && call->deadline <= *(const int64_t *)data;
}

void ac_rpc_expire(animc_client *c, int64_t now)
{
	struct ac_call *call = rpc_take_all(c, rpc_expired, &now), *next;

	for (; call != NULL; call = next) {
		next = (struct ac_call *)call->item.next;
		call->item.next = NULL;
		call->status = -ETIMEDOUT;
		rpc_set_message(call, "no reply within the client's timeout");
		rpc_complete(c, call);
	}
}

int64_t ac_rpc_next_deadline(const animc_client *c)
{
	int64_t t = AC_NEVER;

	for (size_t i = 0; i < c->calls.cap; i++) {
		const struct ac_call *call = c->calls.vals[i];

		if (call != NULL && call->async && call->deadline < t)
			t = call->deadline;
	}
	return t;
}
