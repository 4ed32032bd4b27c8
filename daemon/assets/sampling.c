#include "daemon/assets/sampling.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/morph.h"
#include "daemon/anim/pose.h"
#include "daemon/assets/sampling_layers.h"

const char *const sample_space_names[SAMPLE_SPACE_COUNT] = {
	[SPACE_LOCAL] = "local",
	[SPACE_MODEL] = "model",
	[SPACE_SKIN] = "skin",
	[SPACE_VERTICES] = "vertices",
	[SPACE_CAMERA] = "camera",
	[SPACE_EMITTERS] = "emitters",
	[SPACE_ATTACHMENTS] = "attachments",
	[SPACE_WEIGHTS] = "weights",
};

const char *const sample_loop_names[3] = {
	[LOOP_LOOP] = "loop",
	[LOOP_ONCE] = "once",
	[LOOP_PINGPONG] = "pingpong",
};

const char *const sample_root_motion_names[2] = {
	[ROOT_RAW] = "raw",
	[ROOT_IN_PLACE] = "in_place",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int sampling_lookup(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return (int)i;
	return -1;
}

const char *sample_space_name(enum sample_space s) { return sample_space_names[s]; }
const char *sample_loop_name(enum loop_mode m) { return sample_loop_names[m]; }
const char *sample_root_motion_name(enum root_motion m) { return sample_root_motion_names[m]; }

int sample_space_parse(const char *name, enum sample_space *out)
{
	int i = sampling_lookup(sample_space_names, COUNT(sample_space_names), name);

	if (i < 0)
		return -EINVAL;
	*out = (enum sample_space)i;
	return 0;
}

int sample_loop_parse(const char *name, enum loop_mode *out)
{
	int i = sampling_lookup(sample_loop_names, COUNT(sample_loop_names), name);

	if (i < 0)
		return -EINVAL;
	*out = (enum loop_mode)i;
	return 0;
}

int sample_root_motion_parse(const char *name, enum root_motion *out)
{
	int i = sampling_lookup(sample_root_motion_names, COUNT(sample_root_motion_names), name);

	if (i < 0)
		return -EINVAL;
	*out = (enum root_motion)i;
	return 0;
}

enum sample_space sample_default_space(const struct asset *a)
{
	return a->camera != NULL ? SPACE_CAMERA : SPACE_MODEL;
}

static int sampling_fail(char *err, size_t errlen, int rc, const char *fmt, const char *a,
			 const char *b)
{
	snprintf(err, errlen, fmt, a, b);
	return rc;
}

static int sampling_camera(const struct sample_request *req, struct sample_result *res,
			   char *err, size_t errlen)
{
	const struct camera_track *cam = req->asset->camera;
	enum loop_mode mode = req->loop_set ? req->loop : LOOP_LOOP;

	if (req->space != SPACE_CAMERA)
		return sampling_fail(err, errlen, -EOPNOTSUPP, "%s is a camera: only the %s space applies",
				     req->asset->name, "camera");
	res->clip_time = camera_map_time(cam, time_from_seconds(req->time), mode);
	camera_sample(cam, res->clip_time.t_ns, &res->camera);
	return 0;
}

/* Which skeleton the pose is expressed on, after checking the pairing. */
static int sampling_pick_skeleton(const struct sample_request *req, const struct asset **mesh_out,
				  char *err, size_t errlen)
{
	const struct asset *a = req->asset;
	const struct asset *mesh = req->mesh;
	char why[256];

	if (mesh != NULL && mesh->format != ASSET_FORMAT_MD5MESH)
		return sampling_fail(err, errlen, -EINVAL, "%s: the mesh must be a %s file",
				     mesh->name, "md5mesh");
	if (mesh == NULL)
		mesh = asset_own_mesh(a);
	if (mesh != NULL && mesh != a && a->skeleton != NULL &&
	    skeleton_check_binding(a->skeleton, mesh->skeleton, why, sizeof why) < 0) {
		snprintf(err, errlen, "%s does not fit mesh %s: %s", a->name, mesh->name, why);
		return -EINVAL;
	}
	*mesh_out = mesh;
	return 0;
}

/* The morph weights at the result's clip time (the asset's defaults
 * where its clip has no keys, or without a clip). */
static int sampling_weights(const struct asset *a, struct sample_result *res)
{
	res->weights = malloc(((size_t)a->weight_count + 1) * sizeof *res->weights);
	if (res->weights == NULL)
		return -ENOMEM;
	res->weight_count = a->weight_count;
	morph_weights_sample(a->weights, a->weight_count, res->clip, res->clip_time.t_ns,
			     res->weights);
	return 0;
}

static int sampling_vertices(const struct asset *mesh, const struct skeleton *skel,
			     const mat34 *model, struct sample_result *res)
{
	uint32_t n = mesh->mesh_count ? mesh->mesh_count : 1;
	mat34 *it = NULL;

	res->meshes = calloc(n, sizeof *res->meshes);
	res->positions = calloc(n, sizeof *res->positions);
	res->normals = calloc(n, sizeof *res->normals);
	if (res->meshes == NULL || res->positions == NULL || res->normals == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < mesh->mesh_count; i++) {
		const struct mesh *m = mesh->meshes[i];

		res->meshes[i] = m;
		res->positions[i] = malloc((size_t)m->vertex_count * sizeof(vec3) + 1);
		res->mesh_count = i + 1;
		if (res->positions[i] == NULL)
			goto oom;
		if (m->morph != NULL && res->weights == NULL && sampling_weights(mesh, res) < 0)
			goto oom;
		if (m->morph != NULL)
			morph_skin_positions(m, res->weights, model, res->positions[i]);
		else
			mesh_skin_positions(m, model, res->positions[i]);
		if (m->normals == MESH_NORMALS_NONE)
			continue;
		if (m->normals == MESH_NORMALS_SKINNED && it == NULL) {
			it = malloc((size_t)skel->joint_count * sizeof *it + 1);
			if (it == NULL)
				goto oom;
			mesh_normal_matrices(skel->joint_count, model, it);
		}
		res->normals[i] = malloc((size_t)m->vertex_count * sizeof(vec3) + 1);
		if (res->normals[i] == NULL)
			goto oom;
		if (m->morph != NULL && m->normals == MESH_NORMALS_SKINNED)
			morph_skin_normals(m, res->weights, it, res->normals[i]);
		else
			mesh_skin_normals(m, it, res->positions[i], res->normals[i]);
	}
	free(it);
	return 0;
oom:
	free(it);
	return -ENOMEM;
}

/* The bind pose is the skeleton's: there must be one (an md5anim has
 * none of its own), and it poses joints and vertices, nothing a clip
 * drives beyond them. */
static int sampling_check_bind(const struct sample_request *req, const struct skeleton *skel,
			       char *err, size_t errlen)
{
	if (req->layer_count > 0 || req->clip != NULL)
		return sampling_fail(err, errlen, -EINVAL, "%s: the bind pose takes no %s",
				     req->asset->name, "clip or layers");
	if (req->space != SPACE_LOCAL && req->space != SPACE_MODEL && req->space != SPACE_SKIN &&
	    req->space != SPACE_VERTICES)
		return sampling_fail(err, errlen, -EOPNOTSUPP,
				     "%s: the bind pose is a skeleton's, not the %s space (ask "
				     "for local, model, skin or vertices)", req->asset->name,
				     sample_space_name(req->space));
	if (skel == NULL || skel->bind_model == NULL)
		return sampling_fail(err, errlen, -EOPNOTSUPP,
				     "%s has no bind pose: an md5anim takes its %s's",
				     req->asset->name, "mesh");
	return 0;
}

/* The local pose of model matrices: each joint relative to its parent,
 * split into translation, rotation and scale (a bind pose that is not the
 * rest pose has no local pose of its own). */
static void sampling_bind_local(const struct skeleton *s, const mat34 *model,
				struct transform *local)
{
	for (uint32_t j = 0; j < s->joint_count; j++) {
		mat34 inv, rel;
		float sc[3];

		if (s->parents[j] < 0) {
			rel = model[j];
		} else {
			inv = mat34_inverse(&model[s->parents[j]]);
			rel = mat34_mul(&inv, &model[j]);
		}
		for (int c = 0; c < 3; c++) {
			sc[c] = sqrtf(rel.m[0][c] * rel.m[0][c] + rel.m[1][c] * rel.m[1][c] +
				      rel.m[2][c] * rel.m[2][c]);
			for (int r = 0; sc[c] > 0.0f && r < 3; r++)
				rel.m[r][c] /= sc[c];
		}
		local[j].t = vec3_make(rel.m[0][3], rel.m[1][3], rel.m[2][3]);
		local[j].s = vec3_make(sc[0], sc[1], sc[2]);
		local[j].r = quat_normalize(quat_from_mat34(&rel));
	}
}

/* Each emitter hangs on its joint's skin matrix (M2's bone matrix). */
static int sampling_emitters(const struct sample_request *req, struct sample_result *res,
			     const struct skeleton *skel, const mat34 *model)
{
	const struct asset *a = req->asset;
	mat34 *skin = malloc((size_t)skel->joint_count * sizeof *skin + 1);

	res->emitter_states = malloc((size_t)a->emitter_count * sizeof *res->emitter_states + 1);
	if (skin == NULL || res->emitter_states == NULL) {
		free(skin);
		return -ENOMEM;
	}
	pose_model_to_skin(skel, model, skin);
	res->emitter_count = a->emitter_count;
	res->emitters = a->emitters;
	emitters_sample(a->emitters, a->emitter_count, res->clip, res->clip_time.t_ns,
			time_from_seconds(req->time), skin, res->emitter_states);
	free(skin);
	return 0;
}

/* Each point hangs on its joint's skin matrix too.  An M2 without points
 * gives an empty list. */
static int sampling_attachments(const struct sample_request *req, struct sample_result *res,
				const struct skeleton *skel, const mat34 *model)
{
	const struct asset *a = req->asset;
	mat34 *skin = malloc((size_t)skel->joint_count * sizeof *skin + 1);

	res->attachment_states =
		malloc((size_t)a->attachment_count * sizeof *res->attachment_states + 1);
	if (skin == NULL || res->attachment_states == NULL) {
		free(skin);
		return -ENOMEM;
	}
	pose_model_to_skin(skel, model, skin);
	res->attachment_count = a->attachment_count;
	res->attachments = a->attachments;
	attachments_sample(a->attachments, a->attachment_count, res->clip, res->clip_time.t_ns,
			   time_from_seconds(req->time), skin, res->attachment_states);
	free(skin);
	return 0;
}

int sample_evaluate(const struct sample_request *req, struct sample_result *res, char *err,
		    size_t errlen)
{
	const struct asset *a = req->asset;
	const struct asset *mesh = NULL;
	const struct skeleton *skel;
	const struct clip *clip = NULL;
	mat34 *model = NULL;
	int rc;

	memset(res, 0, sizeof *res);
	res->space = req->space;
	if (a->camera != NULL && req->layer_count > 0)
		return sampling_fail(err, errlen, -EOPNOTSUPP, "%s is a camera: %s", a->name,
				     "layers blend skeletal clips");
	if (a->camera != NULL && req->bind)
		return sampling_fail(err, errlen, -EOPNOTSUPP, "%s is a camera: it has no %s",
				     a->name, "bind pose");
	if (a->camera != NULL)
		return sampling_camera(req, res, err, errlen);
	if (req->space == SPACE_CAMERA)
		return sampling_fail(err, errlen, -EOPNOTSUPP, "%s has no %s", a->name, "camera");
	rc = sampling_pick_skeleton(req, &mesh, err, errlen);
	if (rc < 0)
		return rc;
	if (req->bind) {
		rc = sampling_check_bind(req, mesh != NULL ? mesh->skeleton : a->skeleton, err,
					 errlen);
		if (rc < 0)
			return rc;
	} else if (a->clip_count > 0) {
		clip = asset_find_clip(a, req->clip);
		if (clip == NULL) {
			char why[1200];

			snprintf(err, errlen, "%s has no clip named \"%s\"%s", a->name,
				 req->clip ? req->clip : "",
				 asset_clip_unloaded_reason(a, req->clip, why, sizeof why));
			return -ENOENT;
		}
	} else if (req->clip != NULL) {
		return sampling_fail(err, errlen, -ENOENT, "%s has no clips (asked for \"%s\")",
				     a->name, req->clip);
	}
	skel = mesh != NULL ? mesh->skeleton : a->skeleton;
	if (req->space == SPACE_SKIN && skel->inv_bind == NULL)
		return sampling_fail(err, errlen, -EOPNOTSUPP,
				     "%s has no bind pose: the %s space needs a mesh (--mesh)",
				     a->name, "skin");
	if (req->space == SPACE_VERTICES && mesh == NULL)
		return sampling_fail(err, errlen, -EOPNOTSUPP,
				     "%s has no vertices: the %s space needs a mesh (--mesh)",
				     a->name, "vertices");
	if (req->space == SPACE_EMITTERS && a->format != ASSET_FORMAT_M2)
		return sampling_fail(err, errlen, -EOPNOTSUPP,
				     "%s has no particle emitters: the %s space is M2's", a->name,
				     "emitters");
	if (req->space == SPACE_ATTACHMENTS && a->format != ASSET_FORMAT_M2)
		return sampling_fail(err, errlen, -EOPNOTSUPP,
				     "%s has no attachment points: the %s space is M2's", a->name,
				     "attachments");
	if (req->space == SPACE_WEIGHTS && a->format != ASSET_FORMAT_GLTF)
		return sampling_fail(err, errlen, -EOPNOTSUPP,
				     "%s has no morph weights: the %s space is glTF's", a->name,
				     "weights");

	res->skeleton = skel;
	res->clip = clip;
	res->local = malloc((size_t)skel->joint_count * sizeof *res->local);
	model = malloc((size_t)skel->joint_count * sizeof *model);
	if (res->local == NULL || model == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	if (clip != NULL) {
		enum loop_mode mode = req->loop_set ? req->loop : clip->loop;

		res->clip_time = clip_map_time(clip, time_from_seconds(req->time), mode);
		clip_sample_at(clip, res->clip_time.t_ns, time_from_seconds(req->time), res->local);
		clip_apply_root_motion(clip, req->root_motion, &res->clip_time, res->local);
		res->has_bounds = clip_bounds(clip, res->clip_time.t_ns, res->bounds) == 0;
		sample_local_to_model(skel, clip, res->local, model);
	} else if (req->layer_count > 0) {
		memcpy(res->local, skel->rest, (size_t)skel->joint_count * sizeof *res->local);
	} else {
		const mat34 *bind = req->bind && skel->skin_bind != NULL ? skel->skin_bind :
				    skel->bind_model;

		memcpy(res->local, skel->rest, (size_t)skel->joint_count * sizeof *res->local);
		/* The bind pose is given in model space: use it as authored (the
		 * bind request: where the meshes were bound). */
		if (bind != NULL)
			memcpy(model, bind, (size_t)skel->joint_count * sizeof *model);
		else
			pose_local_to_model(skel, res->local, model);
		if (req->bind && skel->skin_bind != NULL)
			sampling_bind_local(skel, model, res->local);
	}

	if (req->layer_count > 0) {
		/* The clip's box and its still joints' exact matrices say
		 * nothing of a blend: the pose is its TRS. */
		rc = sampling_layers_apply(req, skel, res->local, err, errlen);
		if (rc < 0) {
			free(model);
			sample_result_free(res);
			return rc;
		}
		res->layer_count = req->layer_count;
		res->has_bounds = 0;
		pose_local_to_model(skel, res->local, model);
	}

	switch (req->space) {
	case SPACE_LOCAL:
		free(model);
		return 0;
	case SPACE_MODEL:
		res->mats = model;
		return 0;
	case SPACE_SKIN:
		res->mats = malloc((size_t)skel->joint_count * sizeof *res->mats);
		if (res->mats == NULL) {
			rc = -ENOMEM;
			goto fail;
		}
		pose_model_to_skin(skel, model, res->mats);
		free(model);
		return 0;
	case SPACE_EMITTERS:
		rc = sampling_emitters(req, res, skel, model);
		if (rc < 0)
			goto fail;
		free(model);
		return 0;
	case SPACE_ATTACHMENTS:
		rc = sampling_attachments(req, res, skel, model);
		if (rc < 0)
			goto fail;
		free(model);
		return 0;
	case SPACE_WEIGHTS:
		rc = sampling_weights(a, res);
		if (rc < 0)
			goto fail;
		free(model);
		return 0;
	default:
		rc = sampling_vertices(mesh, skel, model, res);
		if (rc < 0)
			goto fail;
		free(model);
		return 0;
	}
fail:
	free(model);
	sample_result_free(res);
	snprintf(err, errlen, "%s: out of memory", a->name);
	return rc;
}

const mat34 *sample_exact_local(const struct sample_result *r, uint32_t j)
{
	const struct skeleton *s = r->skeleton;

	if (s == NULL || s->rest_matrix == NULL || j >= s->joint_count || !s->rest_not_trs[j] ||
	    r->layer_count > 0)
		return NULL;
	if (r->clip != NULL) {
		/* Still in this clip? (still_joints is ascending.) */
		uint32_t lo = 0, hi = r->clip->still_count;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (r->clip->still_joints[mid] < j)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo >= r->clip->still_count || r->clip->still_joints[lo] != j)
			return NULL;
	}
	return &s->rest_matrix[j];
}

void sample_local_to_model(const struct skeleton *s, const struct clip *c,
			   const struct transform *local, mat34 *model)
{
	if (c == NULL && s->bind_model != NULL)
		memcpy(model, s->bind_model, (size_t)s->joint_count * sizeof *model);
	else if (c != NULL && c->joint_count == s->joint_count)
		pose_local_to_model_still(s, local, c->still_count, c->still_joints, model);
	else
		pose_local_to_model(s, local, model);
}

void sample_result_free(struct sample_result *res)
{
	for (uint32_t i = 0; i < res->mesh_count; i++) {
		free(res->positions[i]);
		if (res->normals != NULL)
			free(res->normals[i]);
	}
	free(res->normals);
	free(res->positions);
	free(res->meshes);
	free(res->local);
	free(res->mats);
	free(res->emitter_states);
	free(res->attachment_states);
	free(res->weights);
	memset(res, 0, sizeof *res);
}
