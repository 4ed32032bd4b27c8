/* assets.list, assets.info, assets.reload and sample. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/assets/sampling.h"
#include "daemon/service/cache/cache.h"
#include "daemon/service/control/dispatch.h"
#include "daemon/service/control/lookup.h"
#include "daemon/service/control/pose_pack.h"
#include "daemon/service/control/reloads.h"
#include "daemon/service/control/session.h"


static void pack_error_field(struct rpc_out *out, const char *error)
{
	rpc_put_lit(out, "error");
	if (error != NULL)
		rpc_put_cstr(out, error);
	else
		rpc_put_nil(out);
}

/* Assets read from the cache at a time while a list is packed. */
#define ASSETS_LIST_CHUNK 256u
/* A page ends before its assets pass this many bytes, leaving room for the
 * envelope and the cursor (a name of up to PROTO_MAX_ASSET_NAME_BYTES). */
#define ASSETS_LIST_PAGE_BYTES (PROTO_MAX_REPLY_BYTES - (64u << 10))

static void assets_pack_one(struct rpc_out *out, const struct cache_info *in)
{
	rpc_put_map(out, 6);
	rpc_put_lit(out, "asset");
	rpc_put_cstr(out, in->name);
	rpc_put_lit(out, "format");
	rpc_put_cstr(out, asset_format_name(asset_detect(in->name, NULL, 0)));
	rpc_put_lit(out, "generation");
	rpc_put_uint(out, in->generation);
	rpc_put_lit(out, "ok");
	rpc_put_bool(out, in->asset != NULL);
	pack_error_field(out, in->error);
	rpc_put_lit(out, "state");
	rpc_put_cstr(out, cache_asset_state_name(in->state));
}

/*
 * assets.list, paged by name (PROTOCOL.md): the assets after `cursor`, at
 * most `limit` of them, and the cursor of the next page (the last name
 * returned) or nil at the end.  Without either argument, the whole list in
 * one reply, as before paging existed, while it fits in one; a list that
 * does not is refused with `limit`, telling to page, after packing no more
 * than a reply's worth.  The list is packed in chunks read from the cache
 * one after another (nothing changes the cache while this runs), so the
 * work and memory are those of the reply, whatever the tree's size.
 */
enum dispatch_result method_assets_list(struct session *s, const struct rpc_request *req,
					struct rpc_args *args, struct rpc_out *out,
					struct rpc_error *err)
{
	char after[PROTO_MAX_ASSET_NAME_BYTES + 1] = "", last[PROTO_MAX_ASSET_NAME_BYTES + 1];
	struct cache_info chunk[ASSETS_LIST_CHUNK];
	struct rpc_out body = RPC_OUT_INIT;
	struct rpc_str cursor = { 0 };
	uint32_t limit = PROTO_ASSETS_LIST_DEFAULT_LIMIT;
	size_t count = 0, got = 0, max;
	bool paged, more = false;
	int has_cursor, has_limit;

	(void)req;
	has_cursor = rpc_args_string(args, "cursor", RPC_OPTIONAL, PROTO_MAX_ASSET_NAME_BYTES,
				     &cursor);
	has_limit = rpc_args_uint32(args, "limit", RPC_OPTIONAL, &limit);
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	if (limit < 1 || limit > PROTO_ASSETS_LIST_MAX_LIMIT) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "assets.list: \"limit\" is 1..%u, not %u",
				 PROTO_ASSETS_LIST_MAX_LIMIT, limit);
		return DISPATCH_ERROR;
	}
	/* Every name, from the first moment: it waits for the start-up walk. */
	if (lookup_index(s->ctl, "assets.list", err) < 0)
		return DISPATCH_ERROR;
	paged = has_cursor > 0 || has_limit > 0;
	max = paged ? limit : SIZE_MAX;
	if (cursor.len > 0)
		memcpy(after, cursor.ptr, cursor.len);
	after[cursor.len] = '\0';
	last[0] = '\0';
	for (;;) {
		size_t want = max - count < ASSETS_LIST_CHUNK ? max - count : ASSETS_LIST_CHUNK;
		bool full = false;

		if (cache_list_page(s->ctl->cache, after, chunk, want, &got, &more) < 0) {
			rpc_out_free(&body);
			rpc_error_format(err, PROTO_ERR_INTERNAL, "assets.list: out of memory");
			return DISPATCH_ERROR;
		}
		for (size_t i = 0; i < got; i++) {
			size_t mark = body.len;

			assets_pack_one(&body, &chunk[i]);
			if (body.len > ASSETS_LIST_PAGE_BYTES) {
				/* Full: this asset starts the next page. */
				rpc_out_truncate(&body, mark);
				full = true;
				break;
			}
			count++;
			snprintf(last, sizeof last, "%s", chunk[i].name);
		}
		if (full) {
			more = true;
			break;
		}
		if (!more || count == max)
			break;
		/* The next chunk starts after the last asset packed. */
		memcpy(after, last, strlen(last) + 1);
	}
	if (more && count == 0) {
		/* One asset larger than a reply: names and errors are far
		 * shorter, so never; an empty page with a cursor would loop. */
		rpc_out_free(&body);
		rpc_error_format(err, PROTO_ERR_INTERNAL, "assets.list: an asset does not fit a page");
		return DISPATCH_ERROR;
	}
	if (!paged && more) {
		rpc_out_free(&body);
		rpc_error_format(err, PROTO_ERR_LIMIT,
				 "assets.list: the list does not fit in one reply (%u MiB): page it "
				 "with \"limit\" (at most %u) and \"cursor\"",
				 PROTO_MAX_REPLY_BYTES >> 20, PROTO_ASSETS_LIST_MAX_LIMIT);
		return DISPATCH_ERROR;
	}
	if (rpc_out_failed(&body)) {
		rpc_out_free(&body);
		rpc_error_format(err, PROTO_ERR_INTERNAL, "assets.list: out of memory");
		return DISPATCH_ERROR;
	}
	rpc_put_map(out, 2);
	rpc_put_lit(out, "assets");
	rpc_put_array(out, count);
	rpc_put_raw(out, body.data, body.len);
	rpc_put_lit(out, "cursor");
	if (more)
		rpc_put_cstr(out, last);
	else
		rpc_put_nil(out);
	rpc_out_free(&body);
	return DISPATCH_REPLY;
}

enum dispatch_result method_assets_info(struct session *s, const struct rpc_request *req,
					struct rpc_args *args, struct rpc_out *out,
					struct rpc_error *err)
{
	struct rpc_str name = { 0 };
	struct cache_info info;

	(void)req;
	rpc_args_string(args, "asset", RPC_REQUIRED, PROTO_MAX_ASSET_NAME_BYTES, &name);
	if (rpc_args_finish(args) < 0 || lookup_asset(s->ctl, "assets.info", &name, &info, err) < 0)
		return DISPATCH_ERROR;
	rpc_put_map(out, 4 + pose_asset_info_pairs(info.asset));
	pose_pack_asset_info(out, info.name, info.asset);
	rpc_put_lit(out, "generation");
	rpc_put_uint(out, info.generation);
	pack_error_field(out, info.error);
	rpc_put_lit(out, "loaded_at");
	rpc_put_double(out, (double)info.loaded_at_ns / 1e9);
	rpc_put_lit(out, "load_ms");
	rpc_put_double(out, (double)info.load_ns / 1e6);
	return DISPATCH_REPLY;
}

enum dispatch_result method_assets_reload(struct session *s, const struct rpc_request *req,
					  struct rpc_args *args, struct rpc_out *out,
					  struct rpc_error *err)
{
	char key[PROTO_MAX_ASSET_NAME_BYTES + 1];
	struct rpc_str name = { 0 };
	char quoted[160];

	(void)out;
	rpc_args_string(args, "asset", RPC_REQUIRED, PROTO_MAX_ASSET_NAME_BYTES, &name);
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	if (lookup_index(s->ctl, "assets.reload", err) < 0)
		return DISPATCH_ERROR;
	/* Loads of one file coalesce in the cache; what a connection can keep
	 * waiting is bounded here. */
	if (s->deferred - s->waiting >= PROTO_MAX_PENDING_RELOADS) {
		rpc_error_format(err, PROTO_ERR_LIMIT,
				 "assets.reload: %u reloads of this connection are already waiting",
				 PROTO_MAX_PENDING_RELOADS);
		return DISPATCH_ERROR;
	}
	memcpy(key, name.ptr, name.len);
	key[name.len] = '\0';
	if (cache_reload(s->ctl->cache, key) < 0) {
		rpc_quote(quoted, sizeof quoted, name.ptr, name.len);
		rpc_error_format(err, PROTO_ERR_NOT_FOUND,
				 "assets.reload: no asset named %s (new files are found by the watcher or the next rescan)",
				 quoted);
		return DISPATCH_ERROR;
	}
	/* Answered when the cache reports the outcome (reloads.h). */
	if (reloads_add(s->ctl, s, req->msgid, key) < 0) {
		rpc_error_format(err, PROTO_ERR_INTERNAL, "assets.reload: out of memory");
		return DISPATCH_ERROR;
	}
	return DISPATCH_DEFERRED;
}

/* The layers of a sample request, parsed: the strings they point at are
 * copies (the request's are not NUL-terminated), freed together. */
#define SAMPLE_RPC_MASK_JOINTS 64       /* per layer */
#define SAMPLE_RPC_MASK_GROUPS 16       /* per layer */

struct sample_stack {
	struct sample_layer layers[SAMPLE_MAX_LAYERS];
	const char *joints[SAMPLE_MAX_LAYERS][SAMPLE_RPC_MASK_JOINTS];
	float weights[SAMPLE_MAX_LAYERS][SAMPLE_RPC_MASK_JOINTS];
	char *owned[SAMPLE_MAX_LAYERS * (SAMPLE_RPC_MASK_JOINTS + 2)];
	size_t owned_count;
	size_t count;
};

static void sample_stack_free(struct sample_stack *st)
{
	for (size_t i = 0; i < st->owned_count; i++)
		free(st->owned[i]);
	free(st);
}

static const char *sample_stack_copy(struct sample_stack *st, const struct rpc_str *v)
{
	char *c = strndup(v->ptr, v->len);

	if (c != NULL)
		st->owned[st->owned_count++] = c;
	return c;
}

/* One layer's mask groups. 0, or -1 with err. */
static int sample_parse_mask(struct sample_stack *st, size_t i, struct rpc_args *groups,
			     size_t ngroups, struct rpc_error *err)
{
	struct sample_layer *l = &st->layers[i];

	for (size_t g = 0; g < ngroups; g++) {
		struct rpc_str joints[SAMPLE_RPC_MASK_JOINTS];
		size_t nj = 0;
		double w = 1.0;

		rpc_args_strings(&groups[g], "joints", RPC_REQUIRED, joints, SAMPLE_RPC_MASK_JOINTS,
				 PROTO_MAX_ASSET_NAME_BYTES, &nj);
		rpc_args_double(&groups[g], "weight", RPC_OPTIONAL, &w);
		if (rpc_args_finish(&groups[g]) < 0)
			return -1;
		if (l->mask_count + nj > SAMPLE_RPC_MASK_JOINTS) {
			rpc_error_format(err, PROTO_ERR_BAD_REQUEST,
					 "sample: layers[%zu]: a mask names at most %d joints", i,
					 SAMPLE_RPC_MASK_JOINTS);
			return -1;
		}
		for (size_t k = 0; k < nj; k++) {
			const char *name = sample_stack_copy(st, &joints[k]);

			if (name == NULL) {
				rpc_error_format(err, PROTO_ERR_INTERNAL, "sample: out of memory");
				return -1;
			}
			st->joints[i][l->mask_count] = name;
			st->weights[i][l->mask_count] = (float)w;
			l->mask_count++;
		}
	}
	l->mask_joints = st->joints[i];
	l->mask_weights = st->weights[i];
	return 0;
}

/* "layers": [{"clip"?, "asset"?, "time", "weight"?, "mode"?, "mask"?,
 * "reference"?}, ...].  0, or -1 with err. */
static int sample_parse_layers(struct session *s, struct rpc_args *maps, size_t n,
			       struct sample_stack *st, struct rpc_error *err)
{
	static const char *const modes[2] = { "override", "additive" };

	for (size_t i = 0; i < n; i++) {
		struct sample_layer *l = &st->layers[i];
		struct rpc_args groups[SAMPLE_RPC_MASK_GROUPS], ref;
		struct rpc_str clip = { 0 }, asset = { 0 }, ref_clip = { 0 };
		size_t ngroups = 0;
		double weight = 1.0;
		int mode = SAMPLE_LAYER_OVERRIDE, has_clip, has_asset, has_mask, has_ref;
		int has_ref_clip = 0;
		struct cache_info info;

		has_clip = rpc_args_string(&maps[i], "clip", RPC_OPTIONAL, PROTO_MAX_ASSET_NAME_BYTES,
					   &clip);
		has_asset = rpc_args_string(&maps[i], "asset", RPC_OPTIONAL,
					    PROTO_MAX_ASSET_NAME_BYTES, &asset);
		rpc_args_double(&maps[i], "time", RPC_REQUIRED, &l->time);
		rpc_args_double(&maps[i], "weight", RPC_OPTIONAL, &weight);
		rpc_args_enum(&maps[i], "mode", RPC_OPTIONAL, modes, 2, &mode);
		has_mask = rpc_args_maps(&maps[i], "mask", RPC_OPTIONAL, groups,
					 SAMPLE_RPC_MASK_GROUPS, &ngroups);
		has_ref = rpc_args_map(&maps[i], "reference", RPC_OPTIONAL, &ref);
		if (has_ref == 1) {
			has_ref_clip = rpc_args_string(&ref, "clip", RPC_OPTIONAL,
						       PROTO_MAX_ASSET_NAME_BYTES, &ref_clip);
			rpc_args_double(&ref, "time", RPC_OPTIONAL, &l->ref_time);
			if (rpc_args_finish(&ref) < 0)
				return -1;
		}
		if (rpc_args_finish(&maps[i]) < 0)
			return -1;
		if (!(weight >= 0 && weight <= 1)) {
			rpc_error_format(err, PROTO_ERR_BAD_REQUEST,
					 "sample: layers[%zu]: \"weight\" must be 0 to 1", i);
			return -1;
		}
		if (has_ref == 1 && mode != SAMPLE_LAYER_ADDITIVE) {
			rpc_error_format(err, PROTO_ERR_BAD_REQUEST,
					 "sample: layers[%zu]: a \"reference\" is an additive layer's", i);
			return -1;
		}
		l->mode = (enum sample_layer_mode)mode;
		l->weight = (float)weight;
		if (has_asset == 1) {
			if (lookup_asset(s->ctl, "sample", &asset, &info, err) < 0)
				return -1;
			l->asset = info.asset;
			l->asset_name = info.name;
		}
		if ((has_clip == 1 && (l->clip = sample_stack_copy(st, &clip)) == NULL) ||
		    (has_ref_clip == 1 && (l->ref_clip = sample_stack_copy(st, &ref_clip)) == NULL)) {
			rpc_error_format(err, PROTO_ERR_INTERNAL, "sample: out of memory");
			return -1;
		}
		if (has_mask == 1 && sample_parse_mask(st, i, groups, ngroups, err) < 0)
			return -1;
	}
	st->count = n;
	return 0;
}

enum dispatch_result method_sample(struct session *s, const struct rpc_request *req,
				   struct rpc_args *args, struct rpc_out *out, struct rpc_error *err)
{
	struct rpc_str name = { 0 }, mesh_name = { 0 };
	char clip[PROTO_MAX_ASSET_NAME_BYTES + 1] = "";
	struct cache_info info, mesh_info;
	struct sample_request q = { 0 };
	struct sample_result r;
	char why[512];
	int space = -1, loop = -1, root = ROOT_RAW, has_clip, has_mesh, has_layers, has_time;
	int has_loop, has_root;
	bool bind = false, weights = false;
	struct rpc_args layer_maps[SAMPLE_MAX_LAYERS];
	struct sample_stack *st;
	size_t nlayers = 0;
	enum dispatch_result res = DISPATCH_ERROR;

	(void)req;
	rpc_args_string(args, "asset", RPC_REQUIRED, PROTO_MAX_ASSET_NAME_BYTES, &name);
	has_clip = rpc_args_cstring(args, "clip", RPC_OPTIONAL, clip, sizeof clip);
	has_time = rpc_args_double(args, "time", RPC_OPTIONAL, &q.time);
	rpc_args_enum(args, "space", RPC_OPTIONAL, sample_space_names, SAMPLE_SPACE_COUNT, &space);
	has_mesh = rpc_args_string(args, "mesh", RPC_OPTIONAL, PROTO_MAX_ASSET_NAME_BYTES, &mesh_name);
	has_loop = rpc_args_enum(args, "loop", RPC_OPTIONAL, sample_loop_names, 3, &loop);
	has_root = rpc_args_enum(args, "root_motion", RPC_OPTIONAL, sample_root_motion_names, 2,
				 &root);
	has_layers = rpc_args_maps(args, "layers", RPC_OPTIONAL, layer_maps, SAMPLE_MAX_LAYERS,
				   &nlayers);
	rpc_args_bool(args, "bind", RPC_OPTIONAL, &bind);
	rpc_args_bool(args, "skin_weights", RPC_OPTIONAL, &weights);
	if (rpc_args_finish(args) < 0)
		return DISPATCH_ERROR;
	/* "time" is required but for the bind pose, which takes no clock. */
	if (bind && (has_time == 1 || has_clip == 1 || has_loop == 1 || has_root == 1 ||
		     has_layers == 1)) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST, "sample: \"bind\" takes no "
				 "\"time\", \"clip\", \"loop\", \"root_motion\" or \"layers\"");
		return DISPATCH_ERROR;
	}
	if (!bind && has_time != 1) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST,
				 "sample: missing required argument \"time\"");
		return DISPATCH_ERROR;
	}
	if (weights && space != SPACE_VERTICES) {
		rpc_error_format(err, PROTO_ERR_BAD_REQUEST,
				 "sample: \"skin_weights\" come with the vertices space");
		return DISPATCH_ERROR;
	}
	if (lookup_asset(s->ctl, "sample", &name, &info, err) < 0)
		return DISPATCH_ERROR;
	st = calloc(1, sizeof *st);
	if (st == NULL) {
		rpc_error_format(err, PROTO_ERR_INTERNAL, "sample: out of memory");
		return DISPATCH_ERROR;
	}
	if (has_layers == 1 && sample_parse_layers(s, layer_maps, nlayers, st, err) < 0)
		goto out;
	q.layers = st->layers;
	q.layer_count = (uint32_t)st->count;
	q.asset = info.asset;
	if (has_mesh == 1) {
		if (lookup_asset(s->ctl, "sample", &mesh_name, &mesh_info, err) < 0)
			goto out;
		q.mesh = mesh_info.asset;
	}
	q.clip = has_clip == 1 ? clip : NULL;
	q.space = space >= 0 ? (enum sample_space)space : sample_default_space(info.asset);
	q.loop_set = loop >= 0;
	q.loop = loop >= 0 ? (enum loop_mode)loop : LOOP_LOOP;
	q.root_motion = (enum root_motion)root;
	q.bind = bind;
	q.weights = weights;
	switch (sample_evaluate(&q, &r, why, sizeof why)) {
	case 0:
		break;
	case -ENOENT:
		rpc_error_format(err, PROTO_ERR_NOT_FOUND, "sample: %s", why);
		goto out;
	case -ENOMEM:
		rpc_error_format(err, PROTO_ERR_INTERNAL, "sample: %s", why);
		goto out;
	case -EOPNOTSUPP:
		rpc_error_format(err, PROTO_ERR_UNSUPPORTED, "sample: %s", why);
		goto out;
	default:
		rpc_error_format(err, PROTO_ERR_ASSET_ERROR, "sample: %s", why);
		goto out;
	}
	pose_pack(out, &q, info.name, &r);
	sample_result_free(&r);
	res = DISPATCH_REPLY;
out:
	sample_stack_free(st);
	return res;
}
