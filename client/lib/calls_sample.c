/* sample: one pose evaluated by the daemon, returned in the reply. */
#include "client/lib/internal.h"

#include <errno.h>
#include <math.h>

/* Sample layers at most, as the daemon takes them (PROTOCOL.md: sample). */
#define SAMPLE_MAX_LAYERS 16

/* One of sample's "layers": {clip?, asset?, time, weight, mode, mask?,
 * reference?}, each mask root a group of its own with its weight. */
static int sample_pack_layer(msgpack_packer *pk, const animc_sample_layer *l)
{
	bool additive = l->mode == ANIMC_LAYER_ADDITIVE;
	uint32_t n = 3 + (l->clip != NULL) + (l->asset != NULL) + (l->mask_count > 0) + additive;
	int rc = 0;

	if (!isfinite(l->time) || !(l->weight >= 0 && l->weight <= 1) ||
	    (l->mode != ANIMC_LAYER_OVERRIDE && !additive) ||
	    (l->mask_count > 0 && l->mask_joints == NULL) ||
	    (additive && !isfinite(l->reference_time)))
		return -EINVAL;
	if (msgpack_pack_map(pk, n) != 0)
		return -ENOMEM;
	if (l->clip != NULL)
		rc |= ac_pack_kv_str(pk, "clip", l->clip);
	if (l->asset != NULL)
		rc |= ac_pack_kv_str(pk, "asset", l->asset);
	rc |= ac_pack_kv_f64(pk, "time", l->time);
	rc |= ac_pack_kv_f64(pk, "weight", l->weight);
	rc |= ac_pack_kv_str(pk, "mode", additive ? "additive" : "override");
	if (l->mask_count > 0) {
		if (rpc_pack_cstr(pk, "mask") < 0 || msgpack_pack_array(pk, (uint32_t)l->mask_count))
			return -ENOMEM;
		for (size_t k = 0; k < l->mask_count; k++) {
			double w = l->mask_weights != NULL ? l->mask_weights[k] : 1.0;

			if (l->mask_joints[k] == NULL || !(w >= 0 && w <= 1))
				return -EINVAL;
			if (msgpack_pack_map(pk, 2) != 0 || rpc_pack_cstr(pk, "joints") < 0 ||
			    msgpack_pack_array(pk, 1) != 0 || rpc_pack_cstr(pk, l->mask_joints[k]) < 0)
				return -ENOMEM;
			rc |= ac_pack_kv_f64(pk, "weight", w);
		}
	}
	if (additive) {
		if (rpc_pack_cstr(pk, "reference") < 0 ||
		    msgpack_pack_map(pk, 1 + (l->reference_clip != NULL)) != 0)
			return -ENOMEM;
		if (l->reference_clip != NULL)
			rc |= ac_pack_kv_str(pk, "clip", l->reference_clip);
		rc |= ac_pack_kv_f64(pk, "time", l->reference_time);
	}
	return rc ? -ENOMEM : 0;
}

static int sample_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	const animc_sample_opts *o = params;
	const char *space = o ? animc_space_name(o->space) : NULL;
	const char *loop = o ? animc_loop_name(o->loop) : NULL;
	const char *root = o ? animc_root_motion_name(o->root_motion) : NULL;
	bool bind = o != NULL && (o->flags & ANIMC_SAMPLE_BIND);
	bool skin_weights = o != NULL && (o->flags & ANIMC_SAMPLE_SKIN_WEIGHTS);
	uint32_t n;
	int rc = 0;

	(void)c;
	if (o == NULL || o->asset == NULL || (!bind && !isfinite(o->time)) ||
	    (o->flags & ~(ANIMC_SAMPLE_BIND | ANIMC_SAMPLE_SKIN_WEIGHTS)) ||
	    o->layer_count > SAMPLE_MAX_LAYERS || (o->layer_count > 0 && o->layers == NULL))
		return -EINVAL;
	for (size_t i = 0; i < o->layer_count; i++)
		if (o->layers[i] == NULL)
			return -EINVAL;
	/* The bind pose takes no clock: what only a clip's time means is not
	 * sent (the daemon refuses it). */
	if (bind) {
		loop = root = NULL;
		n = 2 + (o->mesh != NULL) + (space != NULL) + skin_weights;
	} else {
		n = 2 + (o->clip != NULL) + (o->mesh != NULL) + (space != NULL) + (loop != NULL) +
		    (root != NULL) + (o->layer_count > 0) + skin_weights;
	}
	if (rpc_pack_request(pk, msgid, "sample", n) < 0)
		return -ENOMEM;
	rc |= ac_pack_kv_str(pk, "asset", o->asset);
	if (bind)
		rc |= ac_pack_kv_true(pk, "bind");
	else
		rc |= ac_pack_kv_f64(pk, "time", o->time);
	if (skin_weights)
		rc |= ac_pack_kv_true(pk, "skin_weights");
	if (o->clip != NULL && !bind)
		rc |= ac_pack_kv_str(pk, "clip", o->clip);
	if (o->mesh != NULL)
		rc |= ac_pack_kv_str(pk, "mesh", o->mesh);
	if (space != NULL)
		rc |= ac_pack_kv_str(pk, "space", space);
	if (loop != NULL)
		rc |= ac_pack_kv_str(pk, "loop", loop);
	if (root != NULL)
		rc |= ac_pack_kv_str(pk, "root_motion", root);
	if (o->layer_count > 0 && !bind) {
		if (rpc_pack_cstr(pk, "layers") < 0 ||
		    msgpack_pack_array(pk, (uint32_t)o->layer_count) != 0)
			return -ENOMEM;
		for (size_t i = 0; i < o->layer_count; i++) {
			int lrc = sample_pack_layer(pk, o->layers[i]);

			if (lrc < 0)
				return lrc;
		}
	}
	return rc ? -ENOMEM : 0;
}

static void sample_joints(struct ac_parse *p, animc_pose *pose, const msgpack_object *r)
{
	size_t n;
	const msgpack_object *arr = ac_obj_array(p, r, "joints", &n);
	animc_joint_pose *joints = ac_res_alloc(p->res, n * sizeof *joints);

	if (joints == NULL) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];
		animc_joint_pose *j = &joints[i];

		j->name = ac_obj_str(p, o, "name");
		j->parent = (int32_t)ac_obj_i64(p, o, "parent", -1);
		j->r[3] = 1;
		j->s[0] = j->s[1] = j->s[2] = 1;
		ac_obj_floats(p, ac_obj_get(o, "t"), j->t, 3, "t");
		ac_obj_floats(p, ac_obj_get(o, "r"), j->r, 4, "r");
		ac_obj_floats(p, ac_obj_get(o, "s"), j->s, 3, "s");
		ac_obj_floats(p, ac_obj_get(o, "m"), j->m, 12, "m");
	}
	pose->joints = joints;
	pose->joint_count = n;
}

/* An array of n unsigned 32-bit integers under key into a new array of the
 * result (NULL with p->err set when it is not one). */
static uint32_t *sample_u32s(struct ac_parse *p, const msgpack_object *map, const char *key,
			     size_t n)
{
	size_t got;
	const msgpack_object *arr = ac_obj_array(p, map, key, &got);
	uint32_t *out = arr != NULL && got == n && n <= SIZE_MAX / sizeof *out - 1
			? ac_res_alloc(p->res, n * sizeof *out + 1) : NULL;

	if (out == NULL) {
		ac_obj_fail(p, key);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];

		if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > UINT32_MAX) {
			ac_obj_fail(p, key);
			return NULL;
		}
		out[i] = (uint32_t)o->via.u64;
	}
	return out;
}

/* A mesh's "skin_weights": {counts, joints, values}, the counts one per
 * vertex and summing to the length of the other two. */
static void sample_skin_weights(struct ac_parse *p, animc_skin_weights *w,
				const msgpack_object *o, size_t vertex_count)
{
	size_t total = 0, nv;
	const msgpack_object *values;
	float *v;

	w->vertex_count = vertex_count;
	w->counts = sample_u32s(p, o, "counts", vertex_count);
	if (w->counts == NULL)
		return;
	for (size_t i = 0; i < vertex_count; i++) {
		if (w->counts[i] > SIZE_MAX - total) {
			ac_obj_fail(p, "counts");
			return;
		}
		total += w->counts[i];
	}
	w->influence_count = total;
	w->joints = sample_u32s(p, o, "joints", total);
	values = ac_obj_array(p, o, "values", &nv);
	v = w->joints != NULL && nv == total ? ac_res_alloc(p->res, total * sizeof *v + 1) : NULL;
	if (v == NULL) {
		ac_obj_fail(p, "values");
		return;
	}
	ac_obj_floats(p, values, v, total, "values");
	w->values = v;
}

static void sample_meshes(struct ac_parse *p, animc_pose *pose, const msgpack_object *r)
{
	size_t n;
	const msgpack_object *arr = ac_obj_array(p, r, "meshes", &n);
	animc_mesh_pose *meshes = ac_res_alloc(p->res, n * sizeof *meshes);
	animc_skin_weights *skin = NULL;

	if (meshes == NULL) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];
		const msgpack_object *sw = ac_obj_get(o, "skin_weights");
		size_t nv;
		const msgpack_object *pos = ac_obj_array(p, o, "positions", &nv);
		float *v = nv <= SIZE_MAX / 12 ? ac_res_alloc(p->res, nv * 3 * sizeof *v) : NULL;

		meshes[i].name = ac_obj_str(p, o, "name");
		if (v == NULL) {
			p->err = p->err ? p->err : -ENOMEM;
			return;
		}
		for (size_t k = 0; k < nv; k++)
			ac_obj_floats(p, &pos->via.array.ptr[k], v + 3 * k, 3, "positions");
		meshes[i].positions = v;
		meshes[i].vertex_count = nv;
		meshes[i].normals = NULL;
		if (ac_obj_get(o, "normals") != NULL) {
			size_t nn;
			const msgpack_object *nrm = ac_obj_array(p, o, "normals", &nn);
			float *w = nn == nv ? ac_res_alloc(p->res, nv * 3 * sizeof *w + 1) : NULL;

			if (w == NULL) {
				p->err = p->err ? p->err : (nn == nv ? -ENOMEM : -EPROTO);
				return;
			}
			for (size_t k = 0; k < nv; k++)
				ac_obj_floats(p, &nrm->via.array.ptr[k], w + 3 * k, 3, "normals");
			meshes[i].normals = w;
		}
		/* Every mesh has them or none does: they were asked for or not. */
		if (sw != NULL && skin == NULL && i == 0) {
			skin = ac_res_alloc(p->res, n * sizeof *skin);
			if (skin == NULL) {
				p->err = p->err ? p->err : -ENOMEM;
				return;
			}
		}
		if ((sw != NULL) != (skin != NULL) || (sw != NULL && sw->type != MSGPACK_OBJECT_MAP)) {
			ac_obj_fail(p, "skin_weights");
			return;
		}
		if (sw != NULL)
			sample_skin_weights(p, &skin[i], sw, nv);
	}
	pose->meshes = meshes;
	pose->mesh_count = n;
	pose->skin_weights = skin;
}

static void sample_emitters(struct ac_parse *p, animc_pose *pose, const msgpack_object *r)
{
	size_t n;
	const msgpack_object *arr = ac_obj_array(p, r, "emitters", &n);
	animc_emitter_pose *em = ac_res_alloc(p->res, n * sizeof *em);

	if (em == NULL) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i], *params, *on;

		em[i].index = (uint32_t)ac_obj_i64(p, o, "index", 0);
		em[i].bone = (uint32_t)ac_obj_i64(p, o, "bone", 0);
		ac_obj_floats(p, ac_obj_get(o, "m"), em[i].m, 12, "m");
		on = ac_obj_get(o, "enabled");
		em[i].enabled = on != NULL && on->type == MSGPACK_OBJECT_BOOLEAN && on->via.boolean;
		params = ac_obj_get(o, "params");
		for (int k = 0; k < ANIMC_EMITTER_PARAMS; k++)
			em[i].params[k] = (float)ac_obj_f64(p, params, animc_emitter_param_name(k), 0);
	}
	pose->emitters = em;
	pose->emitter_count = n;
}

static void sample_attachments(struct ac_parse *p, animc_pose *pose, const msgpack_object *r)
{
	size_t n;
	const msgpack_object *arr = ac_obj_array(p, r, "attachments", &n);
	animc_attachment_pose *at = ac_res_alloc(p->res, n * sizeof *at);

	if (at == NULL) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i], *on;

		at[i].index = (uint32_t)ac_obj_i64(p, o, "index", 0);
		at[i].id = (uint32_t)ac_obj_i64(p, o, "id", 0);
		at[i].bone = (uint32_t)ac_obj_i64(p, o, "bone", 0);
		at[i].joint = (uint32_t)ac_obj_i64(p, o, "joint", 0);
		ac_obj_floats(p, ac_obj_get(o, "position"), at[i].position, 3, "position");
		ac_obj_floats(p, ac_obj_get(o, "m"), at[i].m, 12, "m");
		on = ac_obj_get(o, "animate");
		at[i].animate = on != NULL && on->type == MSGPACK_OBJECT_BOOLEAN && on->via.boolean;
	}
	pose->attachments = at;
	pose->attachment_count = n;
}

/* glTF morph weights: [{name, weight}]. */
static void sample_weights(struct ac_parse *p, animc_pose *pose, const msgpack_object *r)
{
	size_t n;
	const msgpack_object *arr = ac_obj_array(p, r, "weights", &n);
	float *w = ac_res_alloc(p->res, n * sizeof *w + 1);
	const char **names = ac_res_alloc(p->res, n * sizeof *names + 1);

	if (w == NULL || names == NULL) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const msgpack_object *o = &arr->via.array.ptr[i];

		names[i] = ac_obj_str(p, o, "name");
		w[i] = (float)ac_obj_f64(p, o, "weight", 0);
	}
	pose->weights = w;
	pose->weight_names = names;
	pose->weight_count = n;
}

static int sample_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_pose *pose = ac_res_new(sizeof *pose);
	struct ac_parse p = { .res = pose };
	const msgpack_object *bounds, *cam;
	const char *space;
	int sp;

	(void)c;
	if (pose == NULL)
		return -ENOMEM;
	call->result = pose;
	pose->asset = ac_obj_str(&p, r, "asset");
	pose->clip = ac_obj_str(&p, r, "clip");
	pose->time = ac_obj_f64(&p, r, "time", 0);
	pose->clip_time = ac_obj_f64(&p, r, "clip_time", 0);
	pose->cycles = ac_obj_i64(&p, r, "cycles", 0);
	space = ac_obj_str(&p, r, "space");
	sp = animc_space_lookup(space);
	pose->space = sp > 0 ? (animc_space)sp : ANIMC_SPACE_DEFAULT;
	pose->root_motion = ac_obj_str(&p, r, "root_motion");
	bounds = ac_obj_get(r, "bounds");
	if (bounds != NULL) {
		pose->has_bounds = 1;
		ac_obj_floats(&p, ac_obj_get(bounds, "min"), pose->bounds_min, 3, "bounds");
		ac_obj_floats(&p, ac_obj_get(bounds, "max"), pose->bounds_max, 3, "bounds");
	}
	cam = ac_obj_get(r, "camera");
	if (cam != NULL) {
		pose->has_camera = 1;
		pose->camera_orientation[3] = 1;
		ac_obj_floats(&p, ac_obj_get(cam, "position"), pose->camera_position, 3, "camera");
		ac_obj_floats(&p, ac_obj_get(cam, "orientation"), pose->camera_orientation, 4,
			      "camera");
		pose->camera_fov = (float)ac_obj_f64(&p, cam, "fov", 0);
	}
	sample_joints(&p, pose, r);
	sample_meshes(&p, pose, r);
	sample_emitters(&p, pose, r);
	sample_attachments(&p, pose, r);
	sample_weights(&p, pose, r);
	return p.err;
}

static const struct ac_method method_sample = { "sample", sample_pack, sample_reply, NULL,
						NULL };

int animc_sample(animc_client *c, const animc_sample_opts *o, animc_pose **out)
{
	return ac_rpc_call(c, &method_sample, o, (void **)out);
}

int animc_sample_async(animc_client *c, const animc_sample_opts *o, animc_done_fn done,
		       void *user)
{
	return ac_rpc_call_async(c, &method_sample, o, done, user);
}
