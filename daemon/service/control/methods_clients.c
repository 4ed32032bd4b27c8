/*
 * clients.list, clients.kill: the connections, as Redis's CLIENT LIST and
 * CLIENT KILL, for an operator who must find and end a runaway client.
 * Seeing them is every peer's (as `stats` is); ending another connection
 * is an operator method (operators.h).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon/service/base/log.h"
#include "daemon/service/control/dispatch.h"
#include "daemon/service/control/listener.h"
#include "daemon/service/control/operators.h"

const char *const method_clients_fields[] = {
	"connection", "name", "pid", "uid", "gid", "since", "age", "requests", "instances",
	"streams", "events", "monitor", "queued_bytes", "memory_bytes", "self", NULL,
};

static uint32_t clients_bits(uint64_t mask)
{
	uint32_t n = 0;

	for (; mask != 0; mask &= mask - 1)
		n++;
	return n;
}

/* The live (not refused, not closing) session `id`, or NULL. */
static struct session *clients_find(struct control *ctl, uint64_t id)
{
	for (struct session *s = listener_sessions(ctl->listener); s != NULL; s = s->next)
		if (s->id == id && !s->refused && !s->closing)
			return s;
	return NULL;
}

static void clients_put_name(struct rpc_out *out, const struct session *s)
{
	if (s->name[0] != '\0')
		rpc_put_cstr(out, s->name);
	else
		rpc_put_nil(out);
}

enum dispatch_result method_clients_list(struct session *self, const struct rpc_request *req,
					 struct rpc_args *args, struct rpc_out *out,
					 struct rpc_error *err)
{
	struct control *ctl = self->ctl;
	uint64_t now_ms = uv_now(ctl->loop);
	uint32_t n = 0;

	(void)req;
	(void)err;
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	for (struct session *s = listener_sessions(ctl->listener); s != NULL; s = s->next)
		n += !s->refused && !s->closing;
	rpc_put_map(out, 1);
	rpc_put_lit(out, "clients");
	rpc_put_array(out, n);
	/* Sessions are kept newest first; list them in the order they came. */
	{
		struct session *last = NULL;

		for (struct session *s = listener_sessions(ctl->listener); s != NULL; s = s->next)
			last = s;
		for (struct session *s = last; s != NULL; s = s->prev) {
			if (s->refused || s->closing)
				continue;
			rpc_put_map(out, 15);
			rpc_put_lit(out, "connection");
			rpc_put_uint(out, s->id);
			rpc_put_lit(out, "name");
			clients_put_name(out, s);
			rpc_put_lit(out, "pid");
			rpc_put_int(out, (int64_t)s->peer_pid);
			rpc_put_lit(out, "uid");
			rpc_put_uint(out, (uint64_t)s->peer_uid);
			rpc_put_lit(out, "gid");
			rpc_put_uint(out, (uint64_t)s->peer_gid);
			rpc_put_lit(out, "since");
			rpc_put_double(out, s->accepted_unix);
			rpc_put_lit(out, "age");
			rpc_put_double(out, now_ms >= s->accepted_ms
						    ? (double)(now_ms - s->accepted_ms) / 1e3 : 0);
			rpc_put_lit(out, "requests");
			rpc_put_uint(out, s->requests);
			rpc_put_lit(out, "instances");
			rpc_put_uint(out, s->owns.instances);
			rpc_put_lit(out, "streams");
			rpc_put_uint(out, s->owns.streams);
			rpc_put_lit(out, "events");
			rpc_put_uint(out, clients_bits(s->subscriptions));
			rpc_put_lit(out, "monitor");
			rpc_put_bool(out, s->monitor);
			rpc_put_lit(out, "queued_bytes");
			rpc_put_uint(out, (uint64_t)s->queued);
			rpc_put_lit(out, "memory_bytes");
			rpc_put_uint(out, (uint64_t)session_bytes(s));
			rpc_put_lit(out, "self");
			rpc_put_bool(out, s == self);
		}
	}
	return DISPATCH_REPLY;
}

/* The client.killed event the victim is sent last. */
static void clients_put_killed(struct rpc_out *o, const struct session *by, const char *reason,
			       const char *message)
{
	rpc_put_array(o, 3);
	rpc_put_uint(o, RPC_TYPE_NOTIFICATION);
	rpc_put_cstr(o, PROTO_EVENT_METHOD);
	rpc_put_array(o, 1);
	rpc_put_map(o, 7);
	rpc_put_lit(o, "type");
	rpc_put_lit(o, PROTO_KILLED_EVENT);
	rpc_put_lit(o, "connection");
	rpc_put_uint(o, by->id);
	rpc_put_lit(o, "name");
	clients_put_name(o, by);
	rpc_put_lit(o, "pid");
	rpc_put_int(o, (int64_t)by->peer_pid);
	rpc_put_lit(o, "uid");
	rpc_put_uint(o, (uint64_t)by->peer_uid);
	rpc_put_lit(o, "reason");
	if (reason != NULL)
		rpc_put_cstr(o, reason);
	else
		rpc_put_nil(o);
	rpc_put_lit(o, "message");
	rpc_put_cstr(o, message);
}

enum dispatch_result method_clients_kill(struct session *s, const struct rpc_request *req,
					 struct rpc_args *args, struct rpc_out *out,
					 struct rpc_error *err)
{
	char reason[PROTO_MAX_KILL_REASON_BYTES + 1] = "", who[PROTO_MAX_CLIENT_NAME_BYTES * 4 + 80];
	char whom[sizeof who], message[sizeof who + PROTO_MAX_KILL_REASON_BYTES + 64];
	struct rpc_out ev = RPC_OUT_INIT;
	struct session *victim;
	uint64_t id = 0;
	uint32_t instances, streams;
	int has_reason;

	(void)req;
	rpc_args_uint64(args, "connection", RPC_REQUIRED, &id);
	has_reason = rpc_args_cstring(args, "reason", RPC_OPTIONAL, reason, sizeof reason);
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	victim = clients_find(s->ctl, id);
	if (victim == NULL) {
		rpc_error_format(err, PROTO_ERR_NOT_FOUND,
				 "clients.kill: no connection %llu (clients.list shows them)",
				 (unsigned long long)id);
		return DISPATCH_ERROR;
	}
	if (victim == s) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST,
				 "clients.kill: connection %llu is this one: close it instead",
				 (unsigned long long)id);
		return DISPATCH_ERROR;
	}
	if (operators_check(s, victim, "clients.kill", err) < 0)
		return DISPATCH_ERROR;
	operators_describe(s, who, sizeof who);
	operators_describe(victim, whom, sizeof whom);
	snprintf(message, sizeof message, "closed by %s with clients.kill%s%s", who,
		 has_reason == 1 ? ": " : "", has_reason == 1 ? reason : "");
	/* Logged at warning: an operator ended someone's session, which its
	 * owner will want to find in the journal. */
	log_warning("%s killed by %s%s%s", whom, who, has_reason == 1 ? ": " : "",
		    has_reason == 1 ? reason : "");
	instances = victim->owns.instances;
	streams = victim->owns.streams;
	rpc_put_map(out, 5);
	rpc_put_lit(out, "connection");
	rpc_put_uint(out, victim->id);
	rpc_put_lit(out, "name");
	clients_put_name(out, victim);
	rpc_put_lit(out, "pid");
	rpc_put_int(out, (int64_t)victim->peer_pid);
	rpc_put_lit(out, "instances");
	rpc_put_uint(out, instances);
	rpc_put_lit(out, "streams");
	rpc_put_uint(out, streams);
	clients_put_killed(&ev, s, has_reason == 1 ? reason : NULL, message);
	/* Closed now, its instances and streams with it: the reply says they
	 * are gone. */
	if (rpc_out_failed(&ev))
		session_close(victim, "killed by an operator (clients.kill)");
	else
		session_send_last(victim, ev.data, ev.len, "killed by an operator (clients.kill)");
	rpc_out_free(&ev);
	return DISPATCH_REPLY;
}
