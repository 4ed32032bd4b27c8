/* assets.list, assets.info and assets.reload. */
#include "client/lib/internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int assets_pack_name(msgpack_packer *pk, uint32_t msgid, const char *method,
			    const char *asset)
{
	if (asset == NULL)
		return -EINVAL;
	if (rpc_pack_request(pk, msgid, method, 1) < 0)
		return -ENOMEM;
	return ac_pack_kv_str(pk, "asset", asset);
}

/* The asset's name: "asset" in the daemon's replies, "name" in
 * PROTOCOL.md's proposal. */
static const char *assets_name(struct ac_parse *p, const msgpack_object *map)
{
	const char *name = ac_obj_str(p, map, "asset");

	return name != NULL ? name : ac_obj_str(p, map, "name");
}

/* ---- assets.list ------------------------------------------------------ */

/* An asset's state: the daemon's word, or for a daemon from before the
 * index (which sends none) what ok and error say. */
static const char *list_state(struct ac_parse *p, const msgpack_object *o,
			      const animc_asset_summary *a)
{
	const char *state = ac_obj_get(o, "state") != NULL ? ac_obj_str(p, o, "state") : NULL;

	if (state != NULL)
		return state;
	return a->ok ? "ok" : a->error != NULL ? "failed" : "loading";
}

/* The assets array of an assets.list reply into items and their states (a
 * res's). */
static int list_items(struct ac_parse *p, const msgpack_object *r,
		      const animc_asset_summary **out, const char *const **states_out,
		      size_t *count)
{
	const msgpack_object *arr = ac_obj_array(p, r, "assets", count);
	animc_asset_summary *items = ac_res_alloc(p->res, *count * sizeof *items);
	const char **states = ac_res_alloc(p->res, *count * sizeof *states + 1);

	if (items == NULL || states == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < *count; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];
		const msgpack_object *state = ac_obj_get(o, "state");

		items[i].name = assets_name(p, o);
		items[i].format = ac_obj_str(p, o, "format");
		items[i].generation = ac_obj_u64(p, o, "generation", 0);
		items[i].ok = state != NULL ? ac_obj_is_str(state, "ok") : ac_obj_bool(p, o, "ok", 0);
		items[i].error = ac_obj_str(p, o, "error");
		states[i] = list_state(p, o, &items[i]);
	}
	*out = items;
	*states_out = states;
	return 0;
}

/* Without paging arguments: the whole list in one reply (a daemon refuses
 * with `limit` a list that does not fit one); the async whole-list call. */
static int list_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	(void)c;
	(void)params;
	return rpc_pack_request(pk, msgid, "assets.list", 0);
}

static int list_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_asset_list *l = ac_res_new(sizeof *l);
	struct ac_parse p = { .res = l };
	int rc;

	(void)c;
	if (l == NULL)
		return -ENOMEM;
	call->result = l;
	rc = list_items(&p, r, &l->assets, &l->states, &l->count);
	return rc < 0 ? rc : p.err;
}

static const struct ac_method method_list = { "assets.list", list_pack, list_reply, NULL, NULL };

/* One page: a cursor always goes ("" for the first page), so that the
 * daemon pages even when the caller takes its default limit. */
struct list_page_params {
	const char *cursor;
	uint32_t limit;                 /* 0: the daemon's default */
};

static int page_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	const struct list_page_params *lp = params;

	(void)c;
	if (rpc_pack_request(pk, msgid, "assets.list", lp->limit != 0 ? 2 : 1) < 0 ||
	    ac_pack_kv_str(pk, "cursor", lp->cursor != NULL ? lp->cursor : "") < 0)
		return -ENOMEM;
	return lp->limit != 0 ? ac_pack_kv_u64(pk, "limit", lp->limit) : 0;
}

static int page_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_asset_page *pg = ac_res_new(sizeof *pg);
	struct ac_parse p = { .res = pg };
	int rc;

	(void)c;
	if (pg == NULL)
		return -ENOMEM;
	call->result = pg;
	rc = list_items(&p, r, &pg->assets, &pg->states, &pg->count);
	pg->cursor = ac_obj_str(&p, r, "cursor");
	return rc < 0 ? rc : p.err;
}

static const struct ac_method method_page = { "assets.list", page_pack, page_reply, NULL, NULL };

int animc_assets_list_page(animc_client *c, const char *cursor, uint32_t limit,
			   animc_asset_page **out)
{
	const struct list_page_params lp = { cursor, limit };

	return ac_rpc_call(c, &method_page, &lp, (void **)out);
}

int animc_assets_list_page_async(animc_client *c, const char *cursor, uint32_t limit,
				 animc_done_fn done, void *user)
{
	const struct list_page_params lp = { cursor, limit };

	return ac_rpc_call_async(c, &method_page, &lp, done, user);
}

/* Append a page's assets to the growing list (its strings copied into the
 * list's own result).  0 or -ENOMEM. */
static int list_append(animc_asset_list *l, size_t *cap, const animc_asset_page *pg)
{
	animc_asset_summary *items = (animc_asset_summary *)(uintptr_t)l->assets;
	const char **states = (const char **)(uintptr_t)l->states;

	if (l->count + pg->count > *cap) {
		size_t want = *cap != 0 ? *cap : 1024;
		animc_asset_summary *grown;
		const char **grown_states;

		while (want < l->count + pg->count)
			want *= 2;
		grown = ac_res_alloc(l, want * sizeof *grown);
		grown_states = ac_res_alloc(l, want * sizeof *grown_states);
		if (grown == NULL || grown_states == NULL)
			return -ENOMEM;
		if (l->count > 0) {
			memcpy(grown, items, l->count * sizeof *grown);
			memcpy(grown_states, states, l->count * sizeof *grown_states);
		}
		items = grown;
		states = grown_states;
		*cap = want;
		l->assets = items;
		l->states = states;
	}
	for (size_t i = 0; i < pg->count; i++) {
		const animc_asset_summary *a = &pg->assets[i];
		animc_asset_summary *d = &items[l->count + i];

		*d = *a;
		d->name = a->name != NULL ? ac_res_str(l, a->name, strlen(a->name)) : NULL;
		d->format = a->format != NULL ? ac_res_str(l, a->format, strlen(a->format)) : NULL;
		d->error = a->error != NULL ? ac_res_str(l, a->error, strlen(a->error)) : NULL;
		states[l->count + i] = ac_res_str(l, pg->states[i], strlen(pg->states[i]));
		if ((a->name != NULL && d->name == NULL) || (a->format != NULL && d->format == NULL) ||
		    (a->error != NULL && d->error == NULL) || states[l->count + i] == NULL)
			return -ENOMEM;
	}
	l->count += pg->count;
	return 0;
}

/*
 * The whole list, a page (of the most the daemon gives) at a time, so that
 * no tree is too large for one reply.  A daemon from before paging refuses
 * the page's arguments with bad_request: then one unpaged call, as this
 * library made before.  Pages follow the daemon's cursor: an asset present
 * throughout is listed once even while others come and go.
 */
int animc_assets_list(animc_client *c, animc_asset_list **out)
{
	animc_asset_list *l;
	animc_asset_page *pg = NULL;
	char *cursor = NULL;
	size_t cap = 0;
	int rc;

	if (out != NULL)
		*out = NULL;
	if (c == NULL || out == NULL)
		return -EINVAL;
	rc = animc_assets_list_page(c, NULL, ANIMC_ASSETS_PAGE_MAX, &pg);
	if (rc == -EREMOTEIO && animc_client_error(c, NULL, NULL) == ANIMC_ERR_BAD_REQUEST)
		return ac_rpc_call(c, &method_list, NULL, (void **)out);
	if (rc < 0)
		return rc;
	l = ac_res_new(sizeof *l);
	if (l == NULL) {
		animc_free(pg);
		return ac_client_fail(c, -ENOMEM, "assets.list: out of memory");
	}
	for (;;) {
		rc = list_append(l, &cap, pg);
		free(cursor);
		cursor = NULL;
		if (rc == 0 && pg->cursor != NULL) {
			cursor = strdup(pg->cursor);
			rc = cursor == NULL ? -ENOMEM : 0;
		}
		animc_free(pg);
		pg = NULL;
		if (rc < 0) {
			rc = ac_client_fail(c, rc, "assets.list: out of memory");
			break;
		}
		if (cursor == NULL)
			break;
		rc = animc_assets_list_page(c, cursor, ANIMC_ASSETS_PAGE_MAX, &pg);
		if (rc < 0)
			break;
	}
	free(cursor);
	if (rc < 0) {
		animc_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

int animc_assets_list_async(animc_client *c, animc_done_fn done, void *user)
{
	return ac_rpc_call_async(c, &method_list, NULL, done, user);
}

/* ---- assets.info ------------------------------------------------------ */

static int info_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	(void)c;
	return assets_pack_name(pk, msgid, "assets.info", params);
}

/* The wire's billboard kind (a string, or nil) as ANIMC_BILLBOARD_*. */
static int info_billboard(const char *kind)
{
	static const char *const kinds[] = { "spherical", "cylindrical_x", "cylindrical_y",
					     "cylindrical_z" };

	for (int k = 0; kind != NULL && k < 4; k++)
		if (strcmp(kind, kinds[k]) == 0)
			return k + 1;
	return ANIMC_BILLBOARD_NONE;
}

static void info_skeleton(struct ac_parse *p, animc_asset_info *a, const msgpack_object *sk)
{
	const msgpack_object *arr;
	animc_joint_info *joints;
	size_t n;

	if (sk == NULL || sk->type != MSGPACK_OBJECT_MAP)
		return;
	a->has_skeleton = 1;
	a->bind_pose = ac_obj_bool(p, sk, "bind_pose", 0);
	arr = ac_obj_array(p, sk, "joints", &n);
	joints = ac_res_alloc(p->res, n * sizeof *joints);
	if (joints == NULL) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];

		joints[i].name = ac_obj_str(p, o, "name");
		joints[i].parent = (int32_t)ac_obj_i64(p, o, "parent", -1);
		joints[i].bone_flags = (uint32_t)ac_obj_u64(p, o, "flags", 0);
		joints[i].billboard = info_billboard(ac_obj_str(p, o, "billboard"));
	}
	a->joints = joints;
	a->joint_count = n;
}

static void info_clips(struct ac_parse *p, animc_asset_info *a, const msgpack_object *r)
{
	size_t n;
	const msgpack_object *arr = ac_obj_array(p, r, "clips", &n);
	animc_clip_info *clips = ac_res_alloc(p->res, n * sizeof *clips);

	if (clips == NULL) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];

		clips[i].name = ac_obj_str(p, o, "name");
		clips[i].duration = ac_obj_f64(p, o, "duration", 0);
		clips[i].loop = ac_obj_str(p, o, "loop");
		clips[i].joint_count = (uint32_t)ac_obj_u64(p, o, "joint_count", 0);
		clips[i].has_bounds = ac_obj_bool(p, o, "bounds", 0);
		clips[i].frame_rate = (uint32_t)ac_obj_u64(p, o, "frame_rate", 0);
		clips[i].frame_count = (uint32_t)ac_obj_u64(p, o, "frame_count", 0);
		clips[i].has_sequence = ac_obj_get(o, "variation") != NULL;
		clips[i].anim_id = (uint32_t)ac_obj_u64(p, o, "id", 0);
		clips[i].variation = (uint32_t)ac_obj_u64(p, o, "variation", 0);
		clips[i].flags = (uint32_t)ac_obj_u64(p, o, "flags", 0);
		clips[i].movespeed = ac_obj_f64(p, o, "movespeed", 0);
		clips[i].frequency = (int32_t)ac_obj_i64(p, o, "frequency", 0);
		clips[i].blend_ms = (uint32_t)ac_obj_u64(p, o, "blend_ms", 0);
		clips[i].alias_of = (int32_t)ac_obj_i64(p, o, "alias_of", -1);
		clips[i].loaded = ac_obj_bool(p, o, "loaded", 1);
		{
			const msgpack_object *rp = ac_obj_get(o, "replay");

			clips[i].replay_min = (uint32_t)ac_obj_u64(p, rp, "min", 0);
			clips[i].replay_max = (uint32_t)ac_obj_u64(p, rp, "max", 0);
		}
	}
	a->clips = clips;
	a->clip_count = n;
}

static void info_meshes(struct ac_parse *p, animc_asset_info *a, const msgpack_object *r)
{
	size_t n;
	const msgpack_object *arr = ac_obj_array(p, r, "meshes", &n);
	animc_mesh_info *meshes = ac_res_alloc(p->res, n * sizeof *meshes);

	if (meshes == NULL) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];

		meshes[i].name = ac_obj_str(p, o, "name");
		meshes[i].material = ac_obj_str(p, o, "material");
		meshes[i].vertex_count = (uint32_t)ac_obj_u64(p, o, "vertex_count", 0);
		meshes[i].triangle_count = (uint32_t)ac_obj_u64(p, o, "triangle_count", 0);
		meshes[i].weight_count = (uint32_t)ac_obj_u64(p, o, "weight_count", 0);
		meshes[i].skinned = ac_obj_bool(p, o, "skinned", 0);
		meshes[i].normals = ac_obj_bool(p, o, "normals_derived", 0) ? 2
				    : ac_obj_bool(p, o, "normals", 0);
	}
	a->meshes = meshes;
	a->mesh_count = n;
}

static void info_cameras(struct ac_parse *p, animc_asset_info *a, const msgpack_object *r)
{
	size_t n;
	const msgpack_object *arr = ac_obj_array(p, r, "cameras", &n);
	animc_camera_info *cams = ac_res_alloc(p->res, n * sizeof *cams);

	if (cams == NULL) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];
		size_t ncuts;
		const msgpack_object *cuts = ac_obj_array(p, o, "cuts", &ncuts);
		uint32_t *v = ac_res_alloc(p->res, ncuts * sizeof *v);

		cams[i].frame_count = (uint32_t)ac_obj_u64(p, o, "frame_count", 0);
		cams[i].frame_rate = (uint32_t)ac_obj_u64(p, o, "frame_rate", 0);
		cams[i].duration = ac_obj_f64(p, o, "duration", 0);
		if (v == NULL) {
			p->err = p->err ? p->err : -ENOMEM;
			return;
		}
		for (size_t k = 0; k < ncuts; k++) {
			const msgpack_object *cut = &cuts->via.array.ptr[k];

			if (cut->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
				ac_obj_fail(p, "cuts");
			else
				v[k] = (uint32_t)cut->via.u64;
		}
		cams[i].cuts = v;
		cams[i].cut_count = ncuts;
	}
	a->cameras = cams;
	a->camera_count = n;
}

static void info_m2(struct ac_parse *p, animc_asset_info *a, const msgpack_object *r)
{
	size_t n;
	const msgpack_object *g = ac_obj_array(p, r, "global_sequences", &n);
	double *v = ac_res_alloc(p->res, n * sizeof *v);

	ac_obj_array(p, r, "emitters", &a->emitter_count);
	if (v == NULL) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &g->via.array.ptr[i];

		v[i] = o->type == MSGPACK_OBJECT_FLOAT64 || o->type == MSGPACK_OBJECT_FLOAT32 ? o->via.f64
		       : o->type == MSGPACK_OBJECT_POSITIVE_INTEGER ? (double)o->via.u64 : 0;
	}
	a->global_sequences = v;
	a->global_sequence_count = n;
}

/* "notes": what the file holds that animd does not evaluate, one located
 * line each. */
static void info_notes(struct ac_parse *p, animc_asset_info *a, const msgpack_object *r)
{
	size_t n;
	const msgpack_object *arr = ac_obj_array(p, r, "notes", &n);
	const char **v = ac_res_alloc(p->res, (n ? n : 1) * sizeof *v);

	if (v == NULL) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];

		if (o->type != MSGPACK_OBJECT_STR) {
			ac_obj_fail(p, "notes");
			return;
		}
		v[i] = ac_res_str(p->res, o->via.str.ptr, o->via.str.size);
		if (v[i] == NULL) {
			p->err = p->err ? p->err : -ENOMEM;
			return;
		}
	}
	a->notes = v;
	a->note_count = n;
}

/* An M2's attachment points, events and its clips' moments. */
static void info_m2_events(struct ac_parse *p, animc_asset_info *a, const msgpack_object *r)
{
	size_t na, ne, nc;
	const msgpack_object *atts = ac_obj_array(p, r, "attachments", &na);
	const msgpack_object *evs = ac_obj_array(p, r, "events", &ne);
	const msgpack_object *clips = ac_obj_array(p, r, "clips", &nc);
	const animc_attachment_info **ap = ac_res_alloc(p->res, na * sizeof *ap);
	const animc_event_info **ep = ac_res_alloc(p->res, ne * sizeof *ep);
	animc_clip_events *ce = evs != NULL ? ac_res_alloc(p->res, nc * sizeof *ce) : NULL;

	if (ap == NULL || ep == NULL || (evs != NULL && ce == NULL)) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < na; i++) {
		const msgpack_object *o = &atts->via.array.ptr[i];
		animc_attachment_info *t = ac_res_alloc(p->res, sizeof *t);

		if (t == NULL) {
			p->err = p->err ? p->err : -ENOMEM;
			return;
		}
		t->index = (uint32_t)ac_obj_u64(p, o, "index", i);
		t->id = (uint32_t)ac_obj_u64(p, o, "id", 0);
		t->bone = (uint32_t)ac_obj_u64(p, o, "bone", 0);
		t->joint = (uint32_t)ac_obj_u64(p, o, "joint", 0);
		ac_obj_floats(p, ac_obj_get(o, "position"), t->position, 3, "position");
		ap[i] = t;
	}
	for (size_t i = 0; i < ne; i++) {
		const msgpack_object *o = &evs->via.array.ptr[i];
		animc_event_info *t = ac_res_alloc(p->res, sizeof *t);

		if (t == NULL) {
			p->err = p->err ? p->err : -ENOMEM;
			return;
		}
		t->index = (uint32_t)ac_obj_u64(p, o, "index", i);
		t->id = ac_obj_str(p, o, "id");
		t->data = (uint32_t)ac_obj_u64(p, o, "data", 0);
		t->bone = (uint32_t)ac_obj_u64(p, o, "bone", 0);
		t->joint = (int32_t)ac_obj_i64(p, o, "joint", -1);
		ac_obj_floats(p, ac_obj_get(o, "position"), t->position, 3, "position");
		ep[i] = t;
	}
	for (size_t i = 0; ce != NULL && i < nc; i++) {
		size_t n;
		const msgpack_object *m = ac_obj_array(p, &clips->via.array.ptr[i], "events", &n);
		animc_event_moment *v = ac_res_alloc(p->res, n * sizeof *v);

		if (v == NULL) {
			p->err = p->err ? p->err : -ENOMEM;
			return;
		}
		for (size_t k = 0; k < n; k++) {
			v[k].time = ac_obj_f64(p, &m->via.array.ptr[k], "time", 0);
			v[k].event = (uint32_t)ac_obj_u64(p, &m->via.array.ptr[k], "event", 0);
		}
		ce[i].count = n;
		ce[i].moments = v;
	}
	a->attachment_count = na;
	a->attachments = ap;
	a->event_count = ne;
	a->events = ep;
	a->clip_events = ce;
}

/* A glTF's morph weights: [{name, default}]. */
static void info_gltf(struct ac_parse *p, animc_asset_info *a, const msgpack_object *r)
{
	size_t n;
	const msgpack_object *arr = ac_obj_array(p, r, "weights", &n);
	const char **names = ac_res_alloc(p->res, n * sizeof *names + 1);
	float *def = ac_res_alloc(p->res, n * sizeof *def + 1);

	if (names == NULL || def == NULL) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];

		names[i] = ac_obj_str(p, o, "name");
		def[i] = (float)ac_obj_f64(p, o, "default", 0);
	}
	a->weight_names = names;
	a->weight_defaults = def;
	a->weight_count = n;
}

static int info_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_asset_info *a = ac_res_new(sizeof *a);
	struct ac_parse p = { .res = a };
	const msgpack_object *axes;

	(void)c;
	if (a == NULL)
		return -ENOMEM;
	call->result = a;
	a->name = assets_name(&p, r);
	a->format = ac_obj_str(&p, r, "format");
	a->version = (int32_t)ac_obj_i64(&p, r, "version", 0);
	a->bytes = ac_obj_u64(&p, r, "bytes", 0);
	axes = ac_obj_get(r, "axes");
	a->up = ac_obj_str(&p, axes, "up");
	a->handedness = ac_obj_str(&p, axes, "handedness");
	a->generation = ac_obj_u64(&p, r, "generation", 0);
	a->error = ac_obj_str(&p, r, "error");
	a->loaded_at = ac_obj_f64(&p, r, "loaded_at", 0);
	a->load_ms = ac_obj_f64(&p, r, "load_ms", 0);
	a->ticks_per_second = (uint32_t)ac_obj_u64(&p, r, "ticks_per_second", 0);
	a->ticks_from_file = ac_obj_bool(&p, r, "ticks_from_file", 0);
	a->note = ac_obj_str(&p, r, "note");
	info_notes(&p, a, r);
	info_skeleton(&p, a, ac_obj_get(r, "skeleton"));
	info_clips(&p, a, r);
	info_meshes(&p, a, r);
	info_cameras(&p, a, r);
	info_m2(&p, a, r);
	info_m2_events(&p, a, r);
	info_gltf(&p, a, r);
	return p.err;
}

static const struct ac_method method_info = { "assets.info", info_pack, info_reply, NULL, NULL };

int animc_assets_info(animc_client *c, const char *asset, animc_asset_info **out)
{
	return ac_rpc_call(c, &method_info, asset, (void **)out);
}

int animc_assets_info_async(animc_client *c, const char *asset, animc_done_fn done, void *user)
{
	return ac_rpc_call_async(c, &method_info, asset, done, user);
}

/* ---- assets.reload ---------------------------------------------------- */

static int reload_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	(void)c;
	return assets_pack_name(pk, msgid, "assets.reload", params);
}

/* The result is an animc_reload_info, whose first field is the generation:
 * the async call's documented result (a uint64_t) is that field. */
static int reload_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_reload_info *ri = ac_res_new(sizeof *ri);
	struct ac_parse p = { .res = ri };

	(void)c;
	if (ri == NULL)
		return -ENOMEM;
	call->result = ri;
	ri->generation = ac_obj_u64(&p, r, "generation", 0);
	ri->unchanged = ac_obj_bool(&p, r, "unchanged", 0);
	ri->asset = ac_obj_str(&p, r, "asset");
	return p.err;
}

static const struct ac_method method_reload = { "assets.reload", reload_pack, reload_reply,
						NULL, NULL };

int animc_assets_reload(animc_client *c, const char *asset, uint64_t *generation)
{
	animc_reload_info *ri = NULL;
	int rc = ac_rpc_call(c, &method_reload, asset, (void **)&ri);

	if (rc == 0 && generation != NULL)
		*generation = ri->generation;
	ac_res_free(ri);
	return rc;
}

int animc_assets_reload_info(animc_client *c, const char *asset, animc_reload_info **out)
{
	return ac_rpc_call(c, &method_reload, asset, (void **)out);
}

int animc_assets_reload_async(animc_client *c, const char *asset, animc_done_fn done,
			     void *user)
{
	return ac_rpc_call_async(c, &method_reload, asset, done, user);
}
