#include "pose_pack.h"

#include <stdio.h>

#include "proto/rpc.h"

static void pack_floats(msgpack_packer *pk, const float *v, size_t n)
{
	msgpack_pack_array(pk, n);
	for (size_t i = 0; i < n; i++)
		msgpack_pack_float(pk, v[i]);
}

static void pack_vec3(msgpack_packer *pk, vec3 v)
{
	float f[3] = { v.x, v.y, v.z };

	pack_floats(pk, f, 3);
}

static void pack_quat(msgpack_packer *pk, quat q)
{
	float f[4] = { q.x, q.y, q.z, q.w };

	pack_floats(pk, f, 4);
}

static void pack_str_or_nil(msgpack_packer *pk, const char *s)
{
	if (s != NULL)
		rpc_pack_cstr(pk, s);
	else
		msgpack_pack_nil(pk);
}

static void pack_joints(msgpack_packer *pk, const struct sample_result *r)
{
	const struct skeleton *s = r->skeleton;

	msgpack_pack_array(pk, s->joint_count);
	for (uint32_t i = 0; i < s->joint_count; i++) {
		msgpack_pack_map(pk, r->space == SPACE_LOCAL ? 5 : 3);
		rpc_pack_cstr(pk, "name");
		rpc_pack_cstr(pk, s->names[i]);
		rpc_pack_cstr(pk, "parent");
		msgpack_pack_int32(pk, s->parents[i]);
		if (r->space == SPACE_LOCAL) {
			rpc_pack_cstr(pk, "t");
			pack_vec3(pk, r->local[i].t);
			rpc_pack_cstr(pk, "r");
			pack_quat(pk, r->local[i].r);
			rpc_pack_cstr(pk, "s");
			pack_vec3(pk, r->local[i].s);
		} else {
			rpc_pack_cstr(pk, "m");
			pack_floats(pk, &r->mats[i].m[0][0], 12);
		}
	}
}

static void pack_meshes(msgpack_packer *pk, const struct sample_result *r)
{
	msgpack_pack_array(pk, r->mesh_count);
	for (uint32_t i = 0; i < r->mesh_count; i++) {
		const struct mesh *m = r->meshes[i];
		char fallback[32];

		snprintf(fallback, sizeof fallback, "mesh%u", i);
		msgpack_pack_map(pk, 2);
		rpc_pack_cstr(pk, "name");
		rpc_pack_cstr(pk, m->name ? m->name : fallback);
		rpc_pack_cstr(pk, "positions");
		msgpack_pack_array(pk, m->vertex_count);
		for (uint32_t v = 0; v < m->vertex_count; v++)
			pack_vec3(pk, r->positions[i][v]);
	}
}

void pose_pack(msgpack_packer *pk, const struct sample_request *q, const char *asset_name,
	       const struct sample_result *r)
{
	uint32_t n = 6 + (r->clip ? 2 : 0) + (r->has_bounds ? 1 : 0);

	msgpack_pack_map(pk, n);
	rpc_pack_cstr(pk, "asset");
	rpc_pack_cstr(pk, asset_name);
	rpc_pack_cstr(pk, "clip");
	pack_str_or_nil(pk, r->clip ? r->clip->name : NULL);
	rpc_pack_cstr(pk, "time");
	msgpack_pack_double(pk, q->time);
	rpc_pack_cstr(pk, "space");
	rpc_pack_cstr(pk, sample_space_name(r->space));
	rpc_pack_cstr(pk, "clip_time");
	msgpack_pack_double(pk, time_to_seconds(r->clip_time.t_ns));
	if (r->clip != NULL) {
		rpc_pack_cstr(pk, "cycles");
		msgpack_pack_int64(pk, r->clip_time.cycles);
		rpc_pack_cstr(pk, "root_motion");
		rpc_pack_cstr(pk, sample_root_motion_name(q->root_motion));
	}
	if (r->has_bounds) {
		rpc_pack_cstr(pk, "bounds");
		msgpack_pack_map(pk, 2);
		rpc_pack_cstr(pk, "min");
		pack_floats(pk, r->bounds, 3);
		rpc_pack_cstr(pk, "max");
		pack_floats(pk, r->bounds + 3, 3);
	}
	switch (r->space) {
	case SPACE_CAMERA:
		rpc_pack_cstr(pk, "camera");
		msgpack_pack_map(pk, 3);
		rpc_pack_cstr(pk, "position");
		pack_vec3(pk, r->camera.pos);
		rpc_pack_cstr(pk, "orientation");
		pack_quat(pk, r->camera.rot);
		rpc_pack_cstr(pk, "fov");
		msgpack_pack_float(pk, r->camera.fov);
		break;
	case SPACE_VERTICES:
		rpc_pack_cstr(pk, "meshes");
		pack_meshes(pk, r);
		break;
	default:
		rpc_pack_cstr(pk, "joints");
		pack_joints(pk, r);
		break;
	}
}

static void pack_skeleton(msgpack_packer *pk, const struct skeleton *s)
{
	if (s == NULL) {
		msgpack_pack_nil(pk);
		return;
	}
	msgpack_pack_map(pk, 3);
	rpc_pack_cstr(pk, "joint_count");
	msgpack_pack_uint32(pk, s->joint_count);
	rpc_pack_cstr(pk, "bind_pose");
	rpc_pack_bool(pk, s->bind_model != NULL);
	rpc_pack_cstr(pk, "joints");
	msgpack_pack_array(pk, s->joint_count);
	for (uint32_t i = 0; i < s->joint_count; i++) {
		msgpack_pack_map(pk, 2);
		rpc_pack_cstr(pk, "name");
		rpc_pack_cstr(pk, s->names[i]);
		rpc_pack_cstr(pk, "parent");
		msgpack_pack_int32(pk, s->parents[i]);
	}
}

static void pack_clip(msgpack_packer *pk, const struct asset *a, const struct clip *c)
{
	bool uniform = c->frames != NULL;
	bool md5 = a->format == ASSET_FORMAT_MD5ANIM;

	msgpack_pack_map(pk, 5 + (uniform ? 2 : 0) + (md5 ? 1 : 0));
	rpc_pack_cstr(pk, "name");
	rpc_pack_cstr(pk, c->name);
	rpc_pack_cstr(pk, "duration");
	msgpack_pack_double(pk, time_to_seconds(c->duration_ns));
	rpc_pack_cstr(pk, "loop");
	rpc_pack_cstr(pk, sample_loop_name(c->loop));
	rpc_pack_cstr(pk, "joint_count");
	msgpack_pack_uint32(pk, c->joint_count);
	rpc_pack_cstr(pk, "bounds");
	rpc_pack_bool(pk, c->bounds != NULL);
	if (uniform) {
		rpc_pack_cstr(pk, "frame_rate");
		msgpack_pack_uint32(pk, c->frame_rate);
		rpc_pack_cstr(pk, "frame_count");
		msgpack_pack_uint32(pk, c->frame_count);
	}
	if (md5) {
		rpc_pack_cstr(pk, "animated_components");
		msgpack_pack_uint32(pk, a->animated_components);
	}
}

static void pack_mesh(msgpack_packer *pk, const struct mesh *m, uint32_t index)
{
	char fallback[32];

	snprintf(fallback, sizeof fallback, "mesh%u", index);
	msgpack_pack_map(pk, 7);
	rpc_pack_cstr(pk, "name");
	rpc_pack_cstr(pk, m->name ? m->name : fallback);
	rpc_pack_cstr(pk, "material");
	pack_str_or_nil(pk, m->material);
	rpc_pack_cstr(pk, "vertex_count");
	msgpack_pack_uint32(pk, m->vertex_count);
	rpc_pack_cstr(pk, "triangle_count");
	msgpack_pack_uint32(pk, m->triangle_count);
	rpc_pack_cstr(pk, "weight_count");
	msgpack_pack_uint32(pk, m->influence_count);
	rpc_pack_cstr(pk, "skinned");
	rpc_pack_bool(pk, m->influence_count > 0);
	rpc_pack_cstr(pk, "normals");
	rpc_pack_bool(pk, m->normals != NULL);
}

static void pack_camera(msgpack_packer *pk, const struct camera_track *c)
{
	msgpack_pack_map(pk, 4);
	rpc_pack_cstr(pk, "frame_count");
	msgpack_pack_uint32(pk, c->frame_count);
	rpc_pack_cstr(pk, "frame_rate");
	msgpack_pack_uint32(pk, c->frame_rate);
	rpc_pack_cstr(pk, "cuts");
	msgpack_pack_array(pk, c->cut_count);
	for (uint32_t i = 0; i < c->cut_count; i++)
		msgpack_pack_uint32(pk, c->cuts[i]);
	rpc_pack_cstr(pk, "duration");
	msgpack_pack_double(pk, time_to_seconds(c->duration_ns));
}

void pose_pack_asset_info(msgpack_packer *pk, const char *name, const struct asset *a)
{
	/* The caller packs the map header (this writes 9 pairs) so that it
	 * can add the cache's own fields. */
	rpc_pack_cstr(pk, "asset");
	rpc_pack_cstr(pk, name);
	rpc_pack_cstr(pk, "format");
	rpc_pack_cstr(pk, asset_format_name(a->format));
	rpc_pack_cstr(pk, "version");
	msgpack_pack_int32(pk, a->version);
	rpc_pack_cstr(pk, "bytes");
	msgpack_pack_uint64(pk, a->file_bytes);
	rpc_pack_cstr(pk, "axes");
	msgpack_pack_map(pk, 2);
	rpc_pack_cstr(pk, "up");
	rpc_pack_cstr(pk, a->up);
	rpc_pack_cstr(pk, "handedness");
	rpc_pack_cstr(pk, a->handedness);
	rpc_pack_cstr(pk, "skeleton");
	pack_skeleton(pk, a->skeleton);
	rpc_pack_cstr(pk, "clips");
	msgpack_pack_array(pk, a->clip_count);
	for (uint32_t i = 0; i < a->clip_count; i++)
		pack_clip(pk, a, a->clips[i]);
	rpc_pack_cstr(pk, "meshes");
	msgpack_pack_array(pk, a->mesh_count);
	for (uint32_t i = 0; i < a->mesh_count; i++)
		pack_mesh(pk, a->meshes[i], i);
	rpc_pack_cstr(pk, "cameras");
	msgpack_pack_array(pk, a->camera ? 1 : 0);
	if (a->camera != NULL)
		pack_camera(pk, a->camera);
}
