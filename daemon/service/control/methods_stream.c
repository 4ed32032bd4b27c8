/* stream.open and stream.close. */
#include <errno.h>
#include <unistd.h>

#include "daemon/service/control/dispatch.h"
#include "daemon/service/playback/streams.h"


#define STREAM_DEFAULT_CHANNELS 16u
#define STREAM_DEFAULT_ELEMENTS 256u
#define STREAM_DEFAULT_DEPTH 8u

enum dispatch_result method_stream_open(struct session *s, const struct rpc_request *req,
					struct rpc_args *args, struct rpc_out *out,
					struct rpc_error *err)
{
	struct stream_params p = {
		.rate_hz = s->ctl->cfg->publish_rate_hz,
		.channels = STREAM_DEFAULT_CHANNELS,
		.max_elements = STREAM_DEFAULT_ELEMENTS,
		.depth = STREAM_DEFAULT_DEPTH,
	};
	const struct animd_shm_header *h;
	struct rpc_out rp = RPC_OUT_INIT;
	struct stream *st;
	char why[256];
	int space = 0, fd, rc;
	bool normals = false;

	(void)out;
	rpc_args_enum(args, "space", RPC_REQUIRED, sample_space_names, SAMPLE_SPACE_COUNT, &space);
	rpc_args_uint32(args, "rate", RPC_OPTIONAL, &p.rate_hz);
	rpc_args_uint32(args, "instances", RPC_OPTIONAL, &p.channels);
	rpc_args_uint32(args, "joints", RPC_OPTIONAL, &p.max_elements);
	rpc_args_uint32(args, "depth", RPC_OPTIONAL, &p.depth);
	rpc_args_bool(args, "normals", RPC_OPTIONAL, &normals);
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	p.space = (enum sample_space)space;
	p.normals = normals;
	if (p.rate_hz > 1000) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "stream.open: \"rate\" is 0..1000 Hz");
		return DISPATCH_ERROR;
	}
	if (s->owns.streams >= s->ctl->cfg->max_streams_per_connection) {
		rpc_error_format(err, PROTO_ERR_LIMIT,
				 "stream.open: this connection already has %u streams "
				 "(limits.max_streams_per_connection)",
				 s->ctl->cfg->max_streams_per_connection);
		return DISPATCH_ERROR;
	}
	rc = stream_open(s->ctl->streams, &s->owns, &p, &st, &fd, why, sizeof why);
	if (rc < 0) {
		rpc_error_format(err, rc == -EINVAL ? PROTO_ERR_BAD_REQUEST : PROTO_ERR_LIMIT,
				 "stream.open: %s", why);
		return DISPATCH_ERROR;
	}
	h = stream_header(st);
	/* The descriptor rides on this reply's first byte. */
	rpc_put_response(&rp, req->msgid);
	rpc_put_map(&rp, 10);
	rpc_put_lit(&rp, "stream");
	rpc_put_uint(&rp, stream_id(st));
	rpc_put_lit(&rp, "space");
	rpc_put_cstr(&rp, sample_space_names[space]);
	rpc_put_lit(&rp, "rate");
	rpc_put_uint(&rp, h->rate_hz);
	rpc_put_lit(&rp, "channels");
	rpc_put_uint(&rp, h->channel_count);
	rpc_put_lit(&rp, "depth");
	rpc_put_uint(&rp, h->slot_count);
	rpc_put_lit(&rp, "max_elements");
	rpc_put_uint(&rp, h->max_elements);
	rpc_put_lit(&rp, "region_bytes");
	rpc_put_uint(&rp, h->region_bytes);
	rpc_put_lit(&rp, "epoch");
	rpc_put_uint(&rp, h->epoch);
	rpc_put_lit(&rp, "normals");
	rpc_put_bool(&rp, (h->features & ANIMD_SHM_FEATURE_NORMALS) != 0);
	rpc_put_lit(&rp, "element_stride");
	rpc_put_uint(&rp, h->element_stride);
	if (rpc_out_failed(&rp)) {
		/* The stream is the connection's: closing it ends the stream. */
		close(fd);
		session_close(s, "out of memory");
	} else {
		session_send_with_fd(s, rp.data, rp.len, fd);
	}
	rpc_out_free(&rp);
	return DISPATCH_DEFERRED;
}

enum dispatch_result method_stream_close(struct session *s, const struct rpc_request *req,
					 struct rpc_args *args, struct rpc_out *out,
					 struct rpc_error *err)
{
	uint64_t id = 0;
	struct stream *st;

	(void)req;
	rpc_args_uint64(args, "stream", RPC_REQUIRED, &id);
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	st = stream_find(s->ctl->streams, &s->owns, id);
	if (st == NULL) {
		rpc_error_format(err, PROTO_ERR_NOT_FOUND, "stream.close: no stream %llu on this connection",
				 (unsigned long long)id);
		return DISPATCH_ERROR;
	}
	stream_close(st);
	rpc_put_map(out, 1);
	rpc_put_lit(out, "stream");
	rpc_put_uint(out, id);
	return DISPATCH_REPLY;
}
