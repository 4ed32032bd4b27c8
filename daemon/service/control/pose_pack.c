#include "daemon/service/control/pose_pack.h"

#include <stdio.h>

#include "daemon/service/control/gltf_pack.h"
#include "daemon/service/control/m2_pack.h"
#include "daemon/service/control/mesh_pack.h"
#include "proto/rpc.h"

static void pack_vec3(struct rpc_out *out, vec3 v)
{
	float f[3] = { v.x, v.y, v.z };

	rpc_put_float_array(out, f, 3);
}

static void pack_quat(struct rpc_out *out, quat q)
{
	float f[4] = { q.x, q.y, q.z, q.w };

	rpc_put_float_array(out, f, 4);
}

static void pack_str_or_nil(struct rpc_out *out, const char *s)
{
	if (s != NULL)
		rpc_put_cstr(out, s);
	else
		rpc_put_nil(out);
}

static void pack_joints(struct rpc_out *out, const struct sample_request *q,
			const struct sample_result *r)
{
	const struct skeleton *s = r->skeleton;
	/* M2 bones' billboard flags ride along (a renderer applies them). */
	bool billboard = q->asset->joint_info != NULL && s == q->asset->skeleton;

	rpc_put_array(out, s->joint_count);
	for (uint32_t i = 0; i < s->joint_count; i++) {
		/* A still .x frame whose matrix a TRS cannot express: its
		 * local t, r, s are the split, and the matrix rides along. */
		const mat34 *exact = r->space == SPACE_LOCAL ? sample_exact_local(r, i) : NULL;

		rpc_put_map(out, (r->space == SPACE_LOCAL ? 5 : 3) + (billboard ? 1 : 0) +
				 (exact != NULL ? 2 : 0));
		rpc_put_lit(out, "name");
		rpc_put_cstr(out, s->names[i]);
		rpc_put_lit(out, "parent");
		rpc_put_int(out, s->parents[i]);
		if (r->space == SPACE_LOCAL) {
			rpc_put_lit(out, "t");
			pack_vec3(out, r->local[i].t);
			rpc_put_lit(out, "r");
			pack_quat(out, r->local[i].r);
			rpc_put_lit(out, "s");
			pack_vec3(out, r->local[i].s);
		} else {
			rpc_put_lit(out, "m");
			rpc_put_float_array(out, &r->mats[i].m[0][0], 12);
		}
		if (billboard) {
			const char *kind = m2_bone_billboard(q->asset->joint_info[i].flags);

			rpc_put_lit(out, "billboard");
			if (kind != NULL)
				rpc_put_cstr(out, kind);
			else
				rpc_put_nil(out);
		}
		if (exact != NULL) {
			rpc_put_lit(out, "trs");
			rpc_put_bool(out, false);
			rpc_put_lit(out, "matrix");
			rpc_put_float_array(out, &exact->m[0][0], 12);
		}
	}
}

/* {"counts", "joints", "values"}: vertex v's influences are the next
 * counts[v] joints and weights, in the mesh's own order. */
static void pack_weights(struct rpc_out *out, const struct mesh *m)
{
	rpc_put_map(out, 3);
	rpc_put_lit(out, "counts");
	rpc_put_array(out, m->vertex_count);
	for (uint32_t v = 0; v < m->vertex_count; v++)
		rpc_put_uint(out, m->first_influence[v + 1] - m->first_influence[v]);
	rpc_put_lit(out, "joints");
	rpc_put_array(out, m->influence_count);
	for (uint32_t k = 0; k < m->influence_count; k++)
		rpc_put_uint(out, m->influences[k].joint);
	rpc_put_lit(out, "values");
	rpc_put_array(out, m->influence_count);
	for (uint32_t k = 0; k < m->influence_count; k++)
		rpc_put_float(out, m->influences[k].weight);
}

static void pack_meshes(struct rpc_out *out, const struct sample_request *q,
			const struct sample_result *r)
{
	rpc_put_array(out, r->mesh_count);
	for (uint32_t i = 0; i < r->mesh_count; i++) {
		const struct mesh *m = r->meshes[i];
		char fallback[32];

		snprintf(fallback, sizeof fallback, "mesh%u", i);
		rpc_put_map(out, (r->normals[i] != NULL ? 4 : 3) + (q->weights ? 1 : 0));
		rpc_put_lit(out, "name");
		rpc_put_cstr(out, m->name ? m->name : fallback);
		rpc_put_lit(out, "positions");
		rpc_put_array(out, m->vertex_count);
		for (uint32_t v = 0; v < m->vertex_count; v++)
			pack_vec3(out, r->positions[i][v]);
		if (r->normals[i] != NULL) {
			rpc_put_lit(out, "normals");
			rpc_put_array(out, m->vertex_count);
			for (uint32_t v = 0; v < m->vertex_count; v++)
				pack_vec3(out, r->normals[i][v]);
		}
		rpc_put_lit(out, "triangles");
		rpc_put_array(out, m->triangle_count);
		for (uint32_t t = 0; t < m->triangle_count; t++) {
			rpc_put_array(out, 3);
			for (int k = 0; k < 3; k++)
				rpc_put_uint(out, m->triangles[t][k]);
		}
		if (q->weights) {
			rpc_put_lit(out, "skin_weights");
			pack_weights(out, m);
		}
	}
}

void pose_pack(struct rpc_out *out, const struct sample_request *q, const char *asset_name,
	       const struct sample_result *r)
{
	uint32_t n = 6 + (r->clip ? 2 : 0) + (r->has_bounds ? 1 : 0) + (q->layer_count > 0) +
		     (q->bind ? 1 : 0);

	rpc_put_map(out, n);
	if (q->bind) {
		rpc_put_lit(out, "bind");
		rpc_put_bool(out, true);
	}
	rpc_put_lit(out, "asset");
	rpc_put_cstr(out, asset_name);
	rpc_put_lit(out, "clip");
	pack_str_or_nil(out, r->clip ? r->clip->name : NULL);
	rpc_put_lit(out, "time");
	rpc_put_double(out, q->time);
	rpc_put_lit(out, "space");
	rpc_put_cstr(out, sample_space_name(r->space));
	rpc_put_lit(out, "clip_time");
	rpc_put_double(out, time_to_seconds(r->clip_time.t_ns));
	if (r->clip != NULL) {
		rpc_put_lit(out, "cycles");
		rpc_put_int(out, r->clip_time.cycles);
		rpc_put_lit(out, "root_motion");
		rpc_put_cstr(out, sample_root_motion_name(q->root_motion));
	}
	if (q->layer_count > 0) {
		rpc_put_lit(out, "layers");
		rpc_put_array(out, q->layer_count);
		for (uint32_t i = 0; i < q->layer_count; i++) {
			const struct sample_layer *l = &q->layers[i];

			rpc_put_map(out, 6);
			rpc_put_lit(out, "mode");
			rpc_put_cstr(out, l->mode == SAMPLE_LAYER_ADDITIVE ? "additive" : "override");
			rpc_put_lit(out, "asset");
			rpc_put_cstr(out, l->asset_name ? l->asset_name : asset_name);
			rpc_put_lit(out, "clip");
			pack_str_or_nil(out, l->clip);
			rpc_put_lit(out, "time");
			rpc_put_double(out, l->time);
			rpc_put_lit(out, "weight");
			rpc_put_float(out, l->weight);
			rpc_put_lit(out, "mask");
			rpc_put_uint(out, l->mask_count);
		}
	}
	if (r->has_bounds) {
		rpc_put_lit(out, "bounds");
		rpc_put_map(out, 2);
		rpc_put_lit(out, "min");
		rpc_put_float_array(out, r->bounds, 3);
		rpc_put_lit(out, "max");
		rpc_put_float_array(out, r->bounds + 3, 3);
	}
	switch (r->space) {
	case SPACE_CAMERA:
		rpc_put_lit(out, "camera");
		rpc_put_map(out, 3);
		rpc_put_lit(out, "position");
		pack_vec3(out, r->camera.pos);
		rpc_put_lit(out, "orientation");
		pack_quat(out, r->camera.rot);
		rpc_put_lit(out, "fov");
		rpc_put_float(out, r->camera.fov);
		break;
	case SPACE_VERTICES:
		rpc_put_lit(out, "meshes");
		pack_meshes(out, q, r);
		break;
	case SPACE_EMITTERS:
		rpc_put_lit(out, "emitters");
		rpc_put_array(out, r->emitter_count);
		for (uint32_t i = 0; i < r->emitter_count; i++)
			m2_pack_emitter(out, q->asset, i, &r->emitter_states[i]);
		break;
	case SPACE_ATTACHMENTS:
		rpc_put_lit(out, "attachments");
		rpc_put_array(out, r->attachment_count);
		for (uint32_t i = 0; i < r->attachment_count; i++)
			m2_pack_attachment(out, q->asset, i, &r->attachment_states[i]);
		break;
	case SPACE_WEIGHTS:
		rpc_put_lit(out, "weights");
		gltf_pack_weights(out, q->asset, r->weights, r->weight_count);
		break;
	default:
		rpc_put_lit(out, "joints");
		pack_joints(out, q, r);
		break;
	}
}

static void pack_skeleton(struct rpc_out *out, const struct asset *a)
{
	const struct skeleton *s = a->skeleton;

	if (s == NULL) {
		rpc_put_nil(out);
		return;
	}
	rpc_put_map(out, 3);
	rpc_put_lit(out, "joint_count");
	rpc_put_uint(out, s->joint_count);
	rpc_put_lit(out, "bind_pose");
	rpc_put_bool(out, s->bind_model != NULL);
	rpc_put_lit(out, "joints");
	rpc_put_array(out, s->joint_count);
	for (uint32_t i = 0; i < s->joint_count; i++) {
		rpc_put_map(out, 2 + (a->joint_info ? M2_PACK_JOINT_PAIRS : 0) +
				 (s->rest_matrix ? 2 : 0));
		rpc_put_lit(out, "name");
		rpc_put_cstr(out, s->names[i]);
		rpc_put_lit(out, "parent");
		rpc_put_int(out, s->parents[i]);
		if (a->joint_info != NULL)
			m2_pack_joint(out, &a->joint_info[i]);
		if (s->rest_matrix != NULL) {
			rpc_put_lit(out, "trs");
			rpc_put_bool(out, !s->rest_not_trs[i]);
			rpc_put_lit(out, "matrix");
			rpc_put_float_array(out, &s->rest_matrix[i].m[0][0], 12);
		}
	}
}

static void pack_clip(struct rpc_out *out, const struct asset *a, uint32_t index)
{
	const struct clip *c = a->clips[index];
	bool uniform = clip_is_uniform(c);
	bool md5 = a->format == ASSET_FORMAT_MD5ANIM;

	rpc_put_map(out, 7 + (uniform ? 2 : 0) + (md5 ? 1 : 0) +
			 (a->sequences ? M2_PACK_SEQUENCE_PAIRS : 0));
	rpc_put_lit(out, "name");
	rpc_put_cstr(out, c->name);
	rpc_put_lit(out, "duration");
	rpc_put_double(out, time_to_seconds(c->duration_ns));
	rpc_put_lit(out, "loop");
	rpc_put_cstr(out, sample_loop_name(c->loop));
	rpc_put_lit(out, "joint_count");
	rpc_put_uint(out, c->joint_count);
	rpc_put_lit(out, "bounds");
	rpc_put_bool(out, c->bounds != NULL);
	rpc_put_lit(out, "memory_bytes");
	rpc_put_uint(out, clip_bytes(c));
	rpc_put_lit(out, "key_index_bytes");
	rpc_put_uint(out, clip_index_bytes(c));
	if (uniform) {
		rpc_put_lit(out, "frame_rate");
		rpc_put_uint(out, c->frame_rate);
		rpc_put_lit(out, "frame_count");
		rpc_put_uint(out, c->frame_count);
	}
	if (md5) {
		rpc_put_lit(out, "animated_components");
		rpc_put_uint(out, a->animated_components);
	}
	if (a->sequences != NULL)
		m2_pack_sequence(out, &a->sequences[index], c);
}

static void pack_camera(struct rpc_out *out, const struct camera_track *c)
{
	rpc_put_map(out, 4);
	rpc_put_lit(out, "frame_count");
	rpc_put_uint(out, c->frame_count);
	rpc_put_lit(out, "frame_rate");
	rpc_put_uint(out, c->frame_rate);
	rpc_put_lit(out, "cuts");
	rpc_put_array(out, c->cut_count);
	for (uint32_t i = 0; i < c->cut_count; i++)
		rpc_put_uint(out, c->cuts[i]);
	rpc_put_lit(out, "duration");
	rpc_put_double(out, time_to_seconds(c->duration_ns));
}

/* The bytes the loaded asset takes, by part (asset_memory), as inspect
 * --json prints them. */
static void pack_memory(struct rpc_out *out, const struct asset_memory *m)
{
	rpc_put_map(out, 7);
	rpc_put_lit(out, "total");
	rpc_put_uint(out, m->total);
	rpc_put_lit(out, "skeleton");
	rpc_put_uint(out, m->skeleton);
	rpc_put_lit(out, "clips");
	rpc_put_uint(out, m->clips);
	rpc_put_lit(out, "meshes");
	rpc_put_uint(out, m->meshes);
	rpc_put_lit(out, "camera");
	rpc_put_uint(out, m->camera);
	rpc_put_lit(out, "emitters");
	rpc_put_uint(out, m->emitters);
	rpc_put_lit(out, "other");
	rpc_put_uint(out, m->other);
}

uint32_t pose_asset_info_pairs(const struct asset *a)
{
	return 12 + (a->format == ASSET_FORMAT_X ? 2 : 0) +
	       (a->format == ASSET_FORMAT_M2 ? M2_PACK_ASSET_PAIRS : 0) +
	       (a->format == ASSET_FORMAT_GLTF ? GLTF_PACK_ASSET_PAIRS : 0);
}

void pose_pack_asset_info(struct rpc_out *out, const char *name, const struct asset *a)
{
	rpc_put_lit(out, "asset");
	rpc_put_cstr(out, name);
	rpc_put_lit(out, "format");
	rpc_put_cstr(out, asset_format_name(a->format));
	rpc_put_lit(out, "version");
	rpc_put_int(out, a->version);
	rpc_put_lit(out, "bytes");
	rpc_put_uint(out, a->file_bytes);
	rpc_put_lit(out, "axes");
	rpc_put_map(out, 2);
	rpc_put_lit(out, "up");
	rpc_put_cstr(out, a->up);
	rpc_put_lit(out, "handedness");
	rpc_put_cstr(out, a->handedness);
	rpc_put_lit(out, "memory");
	pack_memory(out, &a->memory);
	rpc_put_lit(out, "skeleton");
	pack_skeleton(out, a);
	rpc_put_lit(out, "clips");
	rpc_put_array(out, a->clip_count);
	for (uint32_t i = 0; i < a->clip_count; i++)
		pack_clip(out, a, i);
	rpc_put_lit(out, "meshes");
	rpc_put_array(out, a->mesh_count);
	for (uint32_t i = 0; i < a->mesh_count; i++)
		mesh_pack(out, a->meshes[i], i);
	rpc_put_lit(out, "cameras");
	rpc_put_array(out, a->camera ? 1 : 0);
	if (a->camera != NULL)
		pack_camera(out, a->camera);
	if (a->format == ASSET_FORMAT_X) {
		rpc_put_lit(out, "ticks_per_second");
		rpc_put_uint(out, a->ticks_per_second);
		rpc_put_lit(out, "ticks_from_file");
		rpc_put_bool(out, a->ticks_from_file);
	}
	if (a->format == ASSET_FORMAT_M2)
		m2_pack_asset(out, a);
	if (a->format == ASSET_FORMAT_GLTF)
		gltf_pack_asset(out, a);
	rpc_put_lit(out, "note");
	pack_str_or_nil(out, a->note);
	rpc_put_lit(out, "notes");
	rpc_put_array(out, a->note_count);
	for (uint32_t i = 0; i < a->note_count; i++)
		rpc_put_cstr(out, a->notes[i]);
}
