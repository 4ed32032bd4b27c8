/*
 * stream.open and stream.close.  The region's descriptor comes with the
 * stream.open reply (conn.c collects it); the reply maps it into the
 * stream handle, which already exists so that a reconnection can reopen a
 * stream into the handle the caller holds.
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int open_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	const animc_stream_opts *o = &((const struct ac_stream_open_params *)params)->s->opts;
	const char *space = animc_space_name(o->space);
	uint32_t n;
	int rc = 0;

	(void)c;
	if (space == NULL || o->rate_hz < ANIMC_RATE_DEFAULT)
		return -EINVAL;
	n = 1 + (o->rate_hz >= 0) + (o->channels > 0) + (o->max_elements > 0) + (o->depth > 0) +
	    (o->normals != 0);
	if (rpc_pack_request(pk, msgid, "stream.open", n) < 0)
		return -ENOMEM;
	rc |= ac_pack_kv_str(pk, "space", space);
	if (o->rate_hz >= 0)
		rc |= ac_pack_kv_u64(pk, "rate", (uint64_t)o->rate_hz);
	if (o->channels > 0)
		rc |= ac_pack_kv_u64(pk, "instances", o->channels);
	if (o->max_elements > 0)
		rc |= ac_pack_kv_u64(pk, "joints", o->max_elements);
	if (o->depth > 0)
		rc |= ac_pack_kv_u64(pk, "depth", o->depth);
	if (o->normals != 0) {
		rc |= msgpack_pack_str_with_body(pk, "normals", 7);
		rc |= msgpack_pack_true(pk);
	}
	return rc ? -ENOMEM : 0;
}

/* The handle is found again by its serial: a reply that comes after its
 * blocking caller gave up finds none. */
static void *open_prepare(animc_client *c, const void *params)
{
	uint64_t *serial = malloc(sizeof *serial);

	(void)c;
	if (serial != NULL)
		*serial = ((const struct ac_stream_open_params *)params)->s->serial;
	return serial;
}

static int open_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	struct ac_parse p = { .res = ac_res_new(1) };
	animc_stream *s = ac_stream_by_serial(c, *(const uint64_t *)call->ctx);
	int fd = ac_conn_take_fd(c, c->msg_start);
	uint64_t id, epoch, bytes;
	const char *why = NULL;
	int rc;

	call->result = p.res;
	id = ac_obj_u64(&p, r, "stream", 0);
	epoch = ac_obj_u64(&p, r, "epoch", 0);
	bytes = ac_obj_u64(&p, r, "region_bytes", 0);
	if (s == NULL) {
		/* Its caller timed out and freed the handle.  The daemon's
		 * stream stays until this connection closes. */
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (p.res == NULL || p.err < 0 || id == 0) {
		if (fd >= 0)
			close(fd);
		return p.res == NULL ? -ENOMEM : -EPROTO;
	}
	if (fd < 0) {
		call->message = strdup("the stream.open reply came without the region's descriptor");
		return -EPROTO;
	}
	rc = ac_stream_map(s, fd, id, epoch, bytes, &why);
	if (rc < 0 && why != NULL)
		call->message = strdup(why);
	return rc;
}

const struct ac_method ac_method_stream_open = { "stream.open", open_pack, open_reply,
						 open_prepare, free };

int animc_stream_open(animc_client *c, const animc_stream_opts *o, animc_stream **out)
{
	struct ac_stream_open_params params;
	animc_stream *s;
	int rc;

	if (out != NULL)
		*out = NULL;
	if (c == NULL || o == NULL || out == NULL)
		return -EINVAL;
	if (animc_space_name(o->space) == NULL || o->rate_hz < ANIMC_RATE_DEFAULT ||
	    o->rate_hz > 1000)
		return ac_client_fail(c, -EINVAL, "stream.open: invalid options");
	s = ac_stream_new(c, o);
	if (s == NULL)
		return ac_client_fail(c, -ENOMEM, "stream.open: out of memory");
	params.s = s;
	rc = ac_rpc_call(c, &ac_method_stream_open, &params, NULL);
	if (rc == 0 && s->base == NULL)
		rc = ac_client_fail(c, -EPROTO, "stream.open: the stream was not mapped");
	if (rc < 0) {
		ac_stream_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

static int close_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	(void)c;
	if (rpc_pack_request(pk, msgid, "stream.close", 1) < 0)
		return -ENOMEM;
	return ac_pack_kv_u64(pk, "stream", *(const uint64_t *)params);
}

static int close_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	(void)c;
	(void)call;
	(void)r;
	return 0;
}

static const struct ac_method method_stream_close = { "stream.close", close_pack, close_reply,
						  NULL, NULL };

/* Instances that published into it keep playing, without a stream. */
static void stream_detach_instances(animc_stream *s)
{
	animc_client *c = s->c;

	for (size_t i = 0; i < c->inst_by_id.cap; i++) {
		struct ac_instance *in = c->inst_by_id.vals[i];

		if (in != NULL && in->stream_serial == s->serial) {
			in->stream_serial = 0;
			in->channel = -1;
		}
	}
}

int animc_stream_close(animc_stream *s)
{
	int rc = 0;

	if (s == NULL)
		return 0;
	if (s->c->state == AC_CONNECTED && s->base != NULL && !s->dead)
		rc = ac_rpc_call(s->c, &method_stream_close, &s->id, NULL);
	stream_detach_instances(s);
	ac_stream_free(s);
	return rc;
}

int animc_stream_close_async(animc_stream *s, animc_done_fn done, void *user)
{
	int rc = 0;

	if (s == NULL)
		return -EINVAL;
	if (s->base != NULL && !s->dead)
		rc = ac_rpc_call_async(s->c, &method_stream_close, &s->id, done, user);
	stream_detach_instances(s);
	ac_stream_free(s);
	return rc;
}
