/*
 * soak_requests.c - the requests a soak client sends, chosen at random:
 * every method with valid arguments (each answer the daemon may give while
 * assets are rewritten under it is allowed, nothing else), and on purpose
 * invalid ones, each of which must get its own error code: wrong argument
 * types and ranges, unknown methods, names that do not exist, assets asked
 * for what they cannot give, and malformed envelopes that are answered
 * without ending the connection.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/soak/soak_conn.h"

static const char *const loop_names[] = { "loop", "once", "pingpong" };
static const char *const event_names[] = {
	"asset.loaded", "asset.reloaded", "asset.error", "asset.removed",
	"instance.ended", "instance.stopped", "server.stopping",
};

#define REQ_NO_SUCH_INSTANCE (UINT64_C(1) << 40)   /* no daemon run gets this far */

static const struct soak_asset *req_asset(struct soak_conn *c)
{
	return soak_assets_get(soak_rand_below(c->rnd, SOAK_ASSET_COUNT));
}

/* An asset that plays (anything but the mesh), suited to space s when s
 * is given (SOAK_SPACE_COUNT: any); *with_mesh says whether to add the
 * mesh.  NULL when none suits. */
static const struct soak_asset *req_playable(struct soak_conn *c, enum soak_space s,
					     int *with_mesh)
{
	for (int tries = 0; tries < 16; tries++) {
		const struct soak_asset *a = req_asset(c);

		*with_mesh = a->type == SOAK_ASSET_ANIM && soak_rand_chance(c->rnd, 60);
		if (a->type == SOAK_ASSET_MESH)
			continue;
		if (s == SOAK_SPACE_COUNT || soak_assets_space_ok(a->type, *with_mesh, s))
			return a;
		if (a->type == SOAK_ASSET_ANIM && soak_assets_space_ok(a->type, 1, s)) {
			*with_mesh = 1;
			return a;
		}
	}
	return NULL;
}

static const char *req_mesh(void)
{
	return soak_assets_get(SOAK_ASSET_MESH_INDEX)->name;
}

static int req_simple(struct soak_conn *c, enum soak_kind kind, const char *method)
{
	return soak_conn_expect(c, rpc_client_send(&c->rc, method, NULL), kind, SOAK_X_OK, 0);
}

static int req_asset_call(struct soak_conn *c, enum soak_kind kind, const char *method)
{
	const struct soak_asset *a = req_asset(c);

	return soak_conn_expect(c, rpc_client_send(&c->rc, method, "asset:s", a->name), kind,
				SOAK_X_OK | SOAK_X_ASSET_STATE, 0);
}

/* play, with a stream of a suitable space or without.  Besides success:
 * the asset may be mid-rewrite, the mesh may have changed shape (the
 * asset_error of a mesh that no longer fits), the connection may have
 * reached its instance limit, the stream may have no free channel or too
 * small slots (limit). */
static int req_play(struct soak_conn *c, struct soak_stream *s)
{
	enum soak_space space = s ? s->space : SOAK_SPACE_COUNT;
	unsigned expect = SOAK_X_OK | SOAK_X_ASSET_STATE | SOAK_X_LIMIT;
	const char *keys[4] = { "mesh", "clip", "loop", "root_motion" }, *v[4], *val[4];
	double speed = soak_rand_range(c->rnd, -3, 3), start = soak_rand_range(c->rnd, -20, 20);
	uint64_t sid = s ? s->id : 0;
	const struct soak_asset *a;
	char fmt[160] = "asset:s";
	int with_mesh, n = 0;
	int64_t id;

	a = req_playable(c, space, &with_mesh);
	if (a == NULL)
		return req_simple(c, SOAK_STATUS, "status");
	expect |= SOAK_X_PREFIX(a->type);
	v[0] = with_mesh ? req_mesh() : NULL;
	v[1] = a->clip != NULL && soak_rand_chance(c->rnd, 50) ? a->clip : NULL;
	v[2] = soak_rand_chance(c->rnd, 40) ? loop_names[soak_rand_below(c->rnd, 3)] : NULL;
	v[3] = a->type == SOAK_ASSET_ANIM && soak_rand_chance(c->rnd, 40)
	       ? (soak_rand_chance(c->rnd, 50) ? "in_place" : "raw") : NULL;
	for (int k = 0; k < 4; k++) {
		size_t used = strlen(fmt);

		/* An argument left out is sometimes sent as nil, which counts
		 * as left out (PROTOCOL.md section 4). */
		if (v[k] != NULL)
			snprintf(fmt + used, sizeof fmt - used, " %s:s", keys[k]), val[n++] = v[k];
		else if (soak_rand_chance(c->rnd, 15))
			snprintf(fmt + used, sizeof fmt - used, " %s:n", keys[k]);
	}
	strcat(fmt, s ? " speed:d start:d stream:u" : " speed:d start:d");
	/* Varargs follow fmt's order: the strings present, then the numbers. */
	switch (n) {
	case 0: id = rpc_client_send(&c->rc, "play", fmt, a->name, speed, start, sid); break;
	case 1: id = rpc_client_send(&c->rc, "play", fmt, a->name, val[0], speed, start, sid); break;
	case 2:
		id = rpc_client_send(&c->rc, "play", fmt, a->name, val[0], val[1], speed, start, sid);
		break;
	case 3:
		id = rpc_client_send(&c->rc, "play", fmt, a->name, val[0], val[1], val[2], speed, start,
				     sid);
		break;
	default:
		id = rpc_client_send(&c->rc, "play", fmt, a->name, val[0], val[1], val[2], val[3], speed,
				     start, sid);
		break;
	}
	return soak_conn_expect(c, id, s ? SOAK_PLAY_STREAM : SOAK_PLAY, expect, sid);
}

/* pause, resume, seek, speed, stop of one of ours (a play when none is
 * running).  The daemon may have stopped it meanwhile: not_found. */
static int req_control(struct soak_conn *c, enum soak_kind kind)
{
	uint64_t in = soak_conn_pick_live(c);
	unsigned expect = SOAK_X_OK | SOAK_X_NOT_FOUND;
	int64_t id;

	if (in == 0)
		return req_play(c, NULL);
	switch (kind) {
	case SOAK_PAUSE: id = rpc_client_send(&c->rc, "pause", "instance:u", in); break;
	case SOAK_RESUME: id = rpc_client_send(&c->rc, "resume", "instance:u", in); break;
	case SOAK_SEEK:
		id = rpc_client_send(&c->rc, "seek", "instance:u time:d", in,
				     soak_rand_range(c->rnd, -100, 100));
		break;
	case SOAK_SPEED:
		id = rpc_client_send(&c->rc, "speed", "instance:u speed:d", in,
				     soak_rand_range(c->rnd, -5, 5));
		break;
	default:
		/* Nothing more is sent about it; its reply is still checked. */
		soak_conn_forget(c, in);
		id = rpc_client_send(&c->rc, "stop", "instance:u", in);
		kind = SOAK_STOP;
		break;
	}
	return soak_conn_expect(c, id, kind, expect, in);
}

/* sample in a space the asset can give. */
static int req_sample(struct soak_conn *c)
{
	const struct soak_asset *a = req_asset(c);
	int with_mesh = a->type == SOAK_ASSET_ANIM && soak_rand_chance(c->rnd, 60);
	unsigned expect = SOAK_X_OK | SOAK_X_ASSET_STATE | SOAK_X_PREFIX(a->type);
	double t = soak_rand_range(c->rnd, -50, 50);
	enum soak_space s;
	int64_t id;

	do
		s = (enum soak_space)soak_rand_below(c->rnd, SOAK_SPACE_COUNT);
	while (!soak_assets_space_ok(a->type, with_mesh, s));
	if (with_mesh)
		id = rpc_client_send(&c->rc, "sample", "asset:s mesh:s space:s time:d loop:s",
				     a->name, req_mesh(), soak_assets_space_name(s), t,
				     loop_names[soak_rand_below(c->rnd, 3)]);
	else if (a->clip != NULL && soak_rand_chance(c->rnd, 50))
		id = rpc_client_send(&c->rc, "sample", "asset:s clip:s space:s time:d", a->name,
				     a->clip, soak_assets_space_name(s), t);
	else
		id = rpc_client_send(&c->rc, "sample", "asset:s space:s time:d", a->name,
				     soak_assets_space_name(s), t);
	return soak_conn_expect(c, id, SOAK_SAMPLE, expect, 0);
}

static int req_subscribe(struct soak_conn *c)
{
	const char *list[8];
	unsigned n = 0;

	for (unsigned i = 0; i < sizeof event_names / sizeof event_names[0]; i++)
		if (soak_rand_chance(c->rnd, 50))
			list[n++] = event_names[i];
	list[n] = NULL;
	return soak_conn_expect(c, rpc_client_send(&c->rc, "subscribe", "events:S", list),
				SOAK_SUBSCRIBE, SOAK_X_OK, 0);
}

/* stream.open with modest geometry (the daemon's memory is measured); the
 * per-connection limit of 16 may answer instead. */
static int req_stream_open(struct soak_conn *c)
{
	static const uint64_t rates[] = { 0, 30, 60, 120, 500 };
	static const uint64_t channels[] = { 1, 2, 4, 16 };
	static const uint64_t joints[] = { 16, 64, 256 };
	static const uint64_t depths[] = { 2, 4, 8, 16 };
	enum soak_space s = (enum soak_space)soak_rand_below(c->rnd, SOAK_SPACE_COUNT);
	int64_t id;

	if (soak_rand_chance(c->rnd, 20))
		id = rpc_client_send(&c->rc, "stream.open", "space:s", soak_assets_space_name(s));
	else
		id = rpc_client_send(&c->rc, "stream.open", "space:s rate:u instances:u joints:u depth:u",
				     soak_assets_space_name(s), rates[soak_rand_below(c->rnd, 5)],
				     channels[soak_rand_below(c->rnd, 4)],
				     joints[soak_rand_below(c->rnd, 3)],
				     depths[soak_rand_below(c->rnd, 4)]);
	return soak_conn_expect(c, id, SOAK_STREAM_OPEN, SOAK_X_OK | SOAK_X_LIMIT, 0);
}

static int req_stream_close(struct soak_conn *c)
{
	struct soak_stream *s = soak_stream_pick(c);

	if (s == NULL)
		return req_stream_open(c);
	s->closing = 1;
	return soak_conn_expect(c, rpc_client_send(&c->rc, "stream.close", "stream:u", s->id),
				SOAK_STREAM_CLOSE, SOAK_X_OK, s->id);
}

/* Arguments of the wrong type or out of range: bad_request, whatever the
 * assets are doing (arguments are checked before anything is looked up). */
static int req_bad_args(struct soak_conn *c)
{
	const char *walk = soak_assets_get(1)->name;
	const char *bogus[] = { "asset.loaded", "no.such.event", NULL };
	uint64_t in = soak_conn_pick_live(c);
	unsigned expect = SOAK_X_BAD_REQUEST;
	int64_t id;

	c->variant = (int)soak_rand_below(c->rnd, 14);
	switch (c->variant) {
	case 0: id = rpc_client_send(&c->rc, "play", "asset:s speed:s", walk, "fast"); break;
	case 1: id = rpc_client_send(&c->rc, "status", "verbose:b", 1); break;
	case 2: id = rpc_client_send(&c->rc, "play", "asset:s colour:s", walk, "red"); break;
	case 3: id = rpc_client_send(&c->rc, "play", "asset:s start:d", walk, NAN); break;
	case 4: id = rpc_client_send(&c->rc, "play", "asset:s speed:d", walk, 1e7); break;
	case 5: id = rpc_client_send(&c->rc, "play", "asset:i", (int64_t)7); break;
	case 6: id = rpc_client_send(&c->rc, "pause", NULL); break;
	case 7:
		/* The depth is checked after the per-connection stream limit. */
		id = rpc_client_send(&c->rc, "stream.open", "space:s depth:u", "model", (uint64_t)3);
		expect |= SOAK_X_LIMIT;
		break;
	case 8: id = rpc_client_send(&c->rc, "stream.open", "space:s rate:u", "model", (uint64_t)5000);
		break;
	case 9: id = rpc_client_send(&c->rc, "subscribe", "events:S", bogus); break;
	case 10: id = rpc_client_send(&c->rc, "sample", "asset:s time:d space:s", walk, 0.5, "nowhere");
		break;
	case 11: id = rpc_client_send(&c->rc, "stop", "instance:i", (int64_t)-4); break;
	case 12:
		/* The instance is looked up before the time's range is checked. */
		id = rpc_client_send(&c->rc, "seek", "instance:u time:d", in ? in : 1, 1e10);
		expect |= SOAK_X_NOT_FOUND;
		break;
	default: id = rpc_client_send(&c->rc, "assets.info", "asset:n"); break;
	}
	return soak_conn_expect(c, id, SOAK_BAD_ARGS, expect, 0);
}

static int req_unknown_method(struct soak_conn *c)
{
	static const char *const names[] = { "no.such.method", "Status", "play ", "assets.", "",
					     "instances.list.all", "event" };

	return soak_conn_expect(c, rpc_client_send(&c->rc, names[soak_rand_below(c->rnd, 7)], NULL),
				SOAK_UNKNOWN_METHOD, SOAK_X_UNKNOWN_METHOD, 0);
}

/* Names that do not exist: not_found (an asset name leaving the root is
 * bad_request).  An instance id just below ours is probably another
 * connection's: not_found too. */
static int req_unknown_name(struct soak_conn *c)
{
	const char *missing = "nowhere/missing.md5anim";
	uint64_t guess = c->nmade && c->made[c->nmade - 1] > 1 ? c->made[c->nmade - 1] - 1
							       : REQ_NO_SUCH_INSTANCE;
	unsigned expect = SOAK_X_NOT_FOUND;
	int64_t id;

	for (size_t k = 0; k < c->nmade; k++)
		if (c->made[k] == guess)
			guess = REQ_NO_SUCH_INSTANCE;
	c->variant = (int)soak_rand_below(c->rnd, 9);
	switch (c->variant) {
	case 0: id = rpc_client_send(&c->rc, "play", "asset:s", missing); break;
	case 1: id = rpc_client_send(&c->rc, "sample", "asset:s time:d", missing, 0.0); break;
	case 2: id = rpc_client_send(&c->rc, "assets.info", "asset:s", missing); break;
	case 3: id = rpc_client_send(&c->rc, "assets.reload", "asset:s", missing); break;
	case 4: id = rpc_client_send(&c->rc, "pause", "instance:u", REQ_NO_SUCH_INSTANCE); break;
	case 5: id = rpc_client_send(&c->rc, "stop", "instance:u", guess); break;
	case 6: id = rpc_client_send(&c->rc, "stream.close", "stream:u", REQ_NO_SUCH_INSTANCE); break;
	case 7:
		id = rpc_client_send(&c->rc, "play", "asset:s clip:s", soak_assets_get(1)->name,
				     "no_such_clip");
		expect |= SOAK_X_ASSET_STATE;
		break;
	default:
		id = rpc_client_send(&c->rc, "assets.info", "asset:s", "../outside.md5anim");
		expect = SOAK_X_BAD_REQUEST;
		break;
	}
	return soak_conn_expect(c, id, SOAK_UNKNOWN_NAME, expect, c->variant == 5 ? guess : 0);
}

/* Valid requests an asset cannot serve: unsupported, or asset_error for a
 * "mesh" that is not one. */
static int req_unsuited(struct soak_conn *c)
{
	const char *walk = soak_assets_get(1)->name, *cam = soak_assets_get(3)->name;
	unsigned expect = SOAK_X_UNSUPPORTED | SOAK_X_ASSET_STATE;
	struct soak_stream *s = soak_stream_pick(c);
	int64_t id;

	c->variant = (int)soak_rand_below(c->rnd, 6);
	switch (c->variant) {
	case 0: id = rpc_client_send(&c->rc, "sample", "asset:s space:s time:d", walk, "camera", 0.1);
		break;
	case 1: id = rpc_client_send(&c->rc, "sample", "asset:s space:s time:d", cam, "model", 0.1);
		break;
	case 2: id = rpc_client_send(&c->rc, "sample", "asset:s space:s time:d", walk, "skin", 0.1);
		break;
	case 3: id = rpc_client_send(&c->rc, "play", "asset:s", req_mesh()); break;
	case 4:
		id = rpc_client_send(&c->rc, "play", "asset:s mesh:s", walk, soak_assets_get(4)->name);
		expect = SOAK_X_ASSET_ERROR | SOAK_X_NOT_FOUND;
		break;
	default:
		if (s == NULL) {
			c->variant = -1;
			return req_stream_open(c);
		}
		/* The camera into a skeletal stream, a skeleton into a camera one. */
		id = rpc_client_send(&c->rc, "play", "asset:s stream:u",
				     s->space == SOAK_SPACE_CAMERA ? walk : cam, s->id);
		break;
	}
	return soak_conn_expect(c, id, SOAK_UNSUITED, expect, 0);
}

/* Envelopes with a readable msgid but the wrong shape: bad_request with
 * that msgid, and the connection carries on. */
static int req_bad_shape(struct soak_conn *c)
{
	uint32_t msgid = c->rc.next_id++;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	int rc;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	c->variant = (int)soak_rand_below(c->rnd, 7);
	switch (c->variant) {
	case 0:         /* params a map */
		msgpack_pack_array(&pk, 4), msgpack_pack_uint8(&pk, 0), msgpack_pack_uint32(&pk, msgid);
		msgpack_pack_str_with_body(&pk, "status", 6), msgpack_pack_map(&pk, 0);
		break;
	case 1:         /* method a number */
		msgpack_pack_array(&pk, 4), msgpack_pack_uint8(&pk, 0), msgpack_pack_uint32(&pk, msgid);
		msgpack_pack_int(&pk, 42), msgpack_pack_array(&pk, 0);
		break;
	case 2:         /* five elements */
		msgpack_pack_array(&pk, 5), msgpack_pack_uint8(&pk, 0), msgpack_pack_uint32(&pk, msgid);
		msgpack_pack_str_with_body(&pk, "status", 6), msgpack_pack_array(&pk, 0);
		msgpack_pack_nil(&pk);
		break;
	case 3:         /* two params */
		msgpack_pack_array(&pk, 4), msgpack_pack_uint8(&pk, 0), msgpack_pack_uint32(&pk, msgid);
		msgpack_pack_str_with_body(&pk, "status", 6), msgpack_pack_array(&pk, 2);
		msgpack_pack_map(&pk, 0), msgpack_pack_map(&pk, 0);
		break;
	case 4:         /* params[0] not a map */
		msgpack_pack_array(&pk, 4), msgpack_pack_uint8(&pk, 0), msgpack_pack_uint32(&pk, msgid);
		msgpack_pack_str_with_body(&pk, "status", 6), msgpack_pack_array(&pk, 1);
		msgpack_pack_int(&pk, 7);
		break;
	case 5:         /* an argument given twice */
		msgpack_pack_array(&pk, 4), msgpack_pack_uint8(&pk, 0), msgpack_pack_uint32(&pk, msgid);
		msgpack_pack_str_with_body(&pk, "play", 4), msgpack_pack_array(&pk, 1);
		msgpack_pack_map(&pk, 2);
		msgpack_pack_str_with_body(&pk, "asset", 5), msgpack_pack_str_with_body(&pk, "a", 1);
		msgpack_pack_str_with_body(&pk, "asset", 5), msgpack_pack_str_with_body(&pk, "b", 1);
		break;
	default:        /* an argument name that is not a string */
		msgpack_pack_array(&pk, 4), msgpack_pack_uint8(&pk, 0), msgpack_pack_uint32(&pk, msgid);
		msgpack_pack_str_with_body(&pk, "play", 4), msgpack_pack_array(&pk, 1);
		msgpack_pack_map(&pk, 1), msgpack_pack_int(&pk, 1), msgpack_pack_str_with_body(&pk, "x", 1);
		break;
	}
	rc = soak_conn_send_raw(c, sb.data, sb.size);
	msgpack_sbuffer_destroy(&sb);
	return soak_conn_expect(c, rc < 0 ? rc : (int64_t)msgid, SOAK_BAD_SHAPE, SOAK_X_BAD_REQUEST, 0);
}

int soak_requests_notification(struct soak_conn *c)
{
	/* [2, "hello", []]: well-formed, so nothing may answer it. */
	static const unsigned char note[] = { 0x93, 0x02, 0xa5, 'h', 'e', 'l', 'l', 'o', 0x90 };

	c->st->notifications++;
	return soak_conn_send_raw(c, note, sizeof note) < 0 ? -1 : 0;
}

int soak_requests_one(struct soak_conn *c, int allow_open)
{
	/* Weights, in percent. */
	uint32_t x = soak_rand_below(c->rnd, 100);

	if (x < 3) return req_simple(c, SOAK_HELLO, "hello");
	if (x < 7) return req_simple(c, SOAK_STATUS, "status");
	if (x < 10) return req_simple(c, SOAK_ASSETS_LIST, "assets.list");
	if (x < 14) return req_asset_call(c, SOAK_ASSETS_INFO, "assets.info");
	if (x < 16) return req_asset_call(c, SOAK_ASSETS_RELOAD, "assets.reload");
	if (x < 24) return req_play(c, NULL);
	if (x < 31) {
		struct soak_stream *s = soak_stream_pick(c);

		return s || !allow_open ? req_play(c, s) : req_stream_open(c);
	}
	if (x < 34) return req_control(c, SOAK_PAUSE);
	if (x < 37) return req_control(c, SOAK_RESUME);
	if (x < 41) return req_control(c, SOAK_SEEK);
	if (x < 44) return req_control(c, SOAK_SPEED);
	if (x < 48) return req_control(c, SOAK_STOP);
	if (x < 51) return req_simple(c, SOAK_INSTANCES_LIST, "instances.list");
	if (x < 63) return req_sample(c);
	if (x < 65) return req_subscribe(c);
	if (x < 68) return allow_open ? req_stream_open(c) : req_sample(c);
	if (x < 70) return req_stream_close(c);
	if (x < 78) return req_bad_args(c);
	if (x < 81) return req_unknown_method(c);
	if (x < 87) return req_unknown_name(c);
	if (x < 92) return req_unsuited(c);
	if (x < 96) return req_bad_shape(c);
	return soak_requests_notification(c);
}
