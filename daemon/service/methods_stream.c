/* stream.open and stream.close. */
#include <errno.h>
#include <unistd.h>

#include "service/dispatch.h"
#include "service/streams.h"

static const char *const space_names[] = { "local", "model", "skin", "vertices", "camera" };

#define STREAM_DEFAULT_CHANNELS 16u
#define STREAM_DEFAULT_ELEMENTS 256u
#define STREAM_DEFAULT_DEPTH 8u

enum dispatch_result method_stream_open(struct session *s, const struct rpc_request *req,
					struct rpc_args *args, msgpack_packer *pk,
					struct rpc_error *err)
{
	struct stream_params p = {
		.rate_hz = s->svc->cfg.publish_rate_hz,
		.channels = STREAM_DEFAULT_CHANNELS,
		.max_elements = STREAM_DEFAULT_ELEMENTS,
		.depth = STREAM_DEFAULT_DEPTH,
	};
	const struct animd_shm_header *h;
	msgpack_sbuffer sb;
	msgpack_packer rp;
	struct stream *st;
	char why[256];
	int space = 0, fd, rc;

	(void)pk;
	rpc_args_enum(args, "space", RPC_REQUIRED, space_names, 5, &space);
	rpc_args_uint32(args, "rate", RPC_OPTIONAL, &p.rate_hz);
	rpc_args_uint32(args, "instances", RPC_OPTIONAL, &p.channels);
	rpc_args_uint32(args, "joints", RPC_OPTIONAL, &p.max_elements);
	rpc_args_uint32(args, "depth", RPC_OPTIONAL, &p.depth);
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	p.space = (enum sample_space)space;
	if (p.rate_hz > 1000) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "stream.open: \"rate\" is 0..1000 Hz");
		return DISPATCH_ERROR;
	}
	if (streams_count_owned(s->svc, s) >= s->svc->cfg.max_streams_per_connection) {
		rpc_error_format(err, PROTO_ERR_LIMIT,
				 "stream.open: this connection already has %u streams "
				 "(limits.max_streams_per_connection)",
				 s->svc->cfg.max_streams_per_connection);
		return DISPATCH_ERROR;
	}
	rc = stream_open(s->svc, s, &p, &st, &fd, why, sizeof why);
	if (rc < 0) {
		rpc_error_format(err, rc == -EINVAL ? PROTO_ERR_BAD_REQUEST : PROTO_ERR_LIMIT,
				 "stream.open: %s", why);
		return DISPATCH_ERROR;
	}
	h = stream_header(st);
	/* The descriptor rides on this reply's first byte. */
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&rp, &sb, msgpack_sbuffer_write);
	rpc_pack_response(&rp, req->msgid);
	msgpack_pack_map(&rp, 8);
	rpc_pack_cstr(&rp, "stream");
	msgpack_pack_uint64(&rp, stream_id(st));
	rpc_pack_cstr(&rp, "space");
	rpc_pack_cstr(&rp, space_names[space]);
	rpc_pack_cstr(&rp, "rate");
	msgpack_pack_uint32(&rp, h->rate_hz);
	rpc_pack_cstr(&rp, "channels");
	msgpack_pack_uint32(&rp, h->channel_count);
	rpc_pack_cstr(&rp, "depth");
	msgpack_pack_uint32(&rp, h->slot_count);
	rpc_pack_cstr(&rp, "max_elements");
	msgpack_pack_uint32(&rp, h->max_elements);
	rpc_pack_cstr(&rp, "region_bytes");
	msgpack_pack_uint64(&rp, h->region_bytes);
	rpc_pack_cstr(&rp, "epoch");
	msgpack_pack_uint64(&rp, h->epoch);
	session_send_with_fd(s, sb.data, sb.size, fd);
	msgpack_sbuffer_destroy(&sb);
	return DISPATCH_DEFERRED;
}

enum dispatch_result method_stream_close(struct session *s, const struct rpc_request *req,
					 struct rpc_args *args, msgpack_packer *pk,
					 struct rpc_error *err)
{
	uint64_t id = 0;
	struct stream *st;

	(void)req;
	rpc_args_uint64(args, "stream", RPC_REQUIRED, &id);
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	st = stream_find(s->svc, s, id);
	if (st == NULL) {
		rpc_error_format(err, PROTO_ERR_NOT_FOUND, "stream.close: no stream %llu on this connection",
				 (unsigned long long)id);
		return DISPATCH_ERROR;
	}
	stream_close(st);
	msgpack_pack_map(pk, 1);
	rpc_pack_cstr(pk, "stream");
	msgpack_pack_uint64(pk, id);
	return DISPATCH_REPLY;
}
