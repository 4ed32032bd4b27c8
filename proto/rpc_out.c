/*
 * rpc_out.c - the out-of-line half of the msgpack writer: growing the
 * buffer, and the envelopes of the daemon's messages.
 */
#include "rpc_out.h"

#include <stdlib.h>

#include "rpc.h"

/* The first buffer: a typical reply, or a batch of small ones, fits. */
#define RPC_OUT_MIN 4096u

void rpc_out_free(struct rpc_out *o)
{
	free(o->data);
	*o = (struct rpc_out)RPC_OUT_INIT;
}

char *rpc_out_grow(struct rpc_out *o, size_t n)
{
	size_t cap = o->cap < RPC_OUT_MIN ? RPC_OUT_MIN : o->cap;
	char *p;

	if (n > SIZE_MAX / 4 - o->len) {
		o->failed = true;
		return NULL;
	}
	while (cap - o->len < n)
		cap *= 2;
	p = realloc(o->data, cap);
	if (p == NULL) {
		o->failed = true;
		return NULL;
	}
	o->data = p;
	o->cap = cap;
	return p + o->len;
}

void rpc_put_response(struct rpc_out *o, uint32_t msgid)
{
	/* Every successful reply starts so: one check for room, not four. */
	char *p = rpc_out_room(o, 8);
	size_t n;

	if (p == NULL)
		return;
	p[0] = (char)0x94;              /* fixarray of 4 */
	p[1] = RPC_TYPE_RESPONSE;
	n = 2 + rpc_out_uint_at(p + 2, msgid);
	p[n++] = (char)0xc0;            /* no error */
	o->len += n;
}

void rpc_put_error(struct rpc_out *o, uint32_t msgid, enum proto_error code,
		   const char *message)
{
	const char *name = proto_error_name(code);

	if (name == NULL)
		name = proto_error_name(PROTO_ERR_INTERNAL);
	rpc_put_array(o, 4);
	rpc_put_uint(o, RPC_TYPE_RESPONSE);
	rpc_put_uint(o, msgid);
	rpc_put_map(o, 2);
	rpc_put_lit(o, "code");
	rpc_put_cstr(o, name);
	rpc_put_lit(o, "message");
	rpc_put_cstr(o, message);
	rpc_put_nil(o);
}

void rpc_put_event(struct rpc_out *o, enum proto_event type, uint32_t nfields)
{
	const char *name = proto_event_name(type);

	if (name == NULL || nfields == UINT32_MAX) {
		o->failed = true;
		return;
	}
	rpc_put_array(o, 3);
	rpc_put_uint(o, RPC_TYPE_NOTIFICATION);
	rpc_put_cstr(o, PROTO_EVENT_METHOD);
	rpc_put_array(o, 1);
	rpc_put_map(o, 1 + nfields);
	rpc_put_lit(o, "type");
	rpc_put_cstr(o, name);
}

void rpc_put_error_reply(struct rpc_out *o, const struct rpc_error *err)
{
	rpc_put_error(o, err->msgid, err->code, err->message);
}
