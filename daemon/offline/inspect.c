/*
 * animd inspect FILE [--json]
 *
 * What a file holds: format, version, axes, skeleton, clips, meshes,
 * cameras, and the bytes its runtime representation takes in memory (the
 * whole asset by part, each clip and mesh: asset_memory, clip_bytes,
 * mesh_bytes).  The JSON form is a contract other tools rely on (README).
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>

#include "daemon/assets/asset.h"
#include "daemon/assets/event_id.h"
#include "daemon/assets/sampling.h"
#include "daemon/offline/json_out.h"
#include "daemon/offline/m2_json.h"
#include "daemon/offline/mesh_json.h"
#include "daemon/offline/offline.h"

static json_t *inspect_skeleton_json(const struct asset *a)
{
	const struct skeleton *s = a->skeleton;
	json_t *joints = json_array();

	for (uint32_t i = 0; i < s->joint_count; i++) {
		json_t *j = json_pack("{s:o, s:i}", "name", json_out_string_or_null(s->names[i]),
				      "parent", (int)s->parents[i]);

		if (a->joint_info != NULL)
			m2_json_joint(j, &a->joint_info[i]);
		/* .x frames: whether the split rest pose is the frame's matrix. */
		if (s->rest_matrix != NULL) {
			json_object_set_new(j, "trs", json_boolean(!s->rest_not_trs[i]));
			json_object_set_new(j, "matrix", json_out_mat34(&s->rest_matrix[i]));
		}
		json_array_append_new(joints, j);
	}
	return json_pack("{s:I, s:b, s:o}", "joint_count", (json_int_t)s->joint_count,
			 "bind_pose", s->bind_model != NULL, "joints", joints);
}

static json_t *inspect_clip_json(const struct asset *a, uint32_t index)
{
	const struct clip *c = a->clips[index];
	json_t *o = json_pack("{s:o, s:o, s:s, s:I}", "name", json_out_string_or_null(c->name),
			      "duration", json_out_number(time_to_seconds(c->duration_ns)),
			      "loop", sample_loop_name(c->loop), "joint_count",
			      (json_int_t)c->joint_count);

	if (c->frames != NULL) {
		json_object_set_new(o, "frame_rate", json_integer(c->frame_rate));
		json_object_set_new(o, "frame_count", json_integer(c->frame_count));
	}
	if (a->format == ASSET_FORMAT_MD5ANIM)
		json_object_set_new(o, "animated_components",
				    json_integer(a->animated_components));
	json_object_set_new(o, "bounds", json_boolean(c->bounds != NULL));
	json_object_set_new(o, "memory_bytes", json_integer((json_int_t)clip_bytes(c)));
	json_object_set_new(o, "key_index_bytes", json_integer((json_int_t)clip_index_bytes(c)));
	if (a->sequences != NULL)
		m2_json_sequence(o, &a->sequences[index], c);
	return o;
}

static json_t *inspect_camera_json(const struct camera_track *c)
{
	json_t *cuts = json_array();

	for (uint32_t i = 0; i < c->cut_count; i++)
		json_array_append_new(cuts, json_integer(c->cuts[i]));
	return json_pack("{s:I, s:I, s:o, s:o}", "frame_count", (json_int_t)c->frame_count,
			 "frame_rate", (json_int_t)c->frame_rate, "cuts", cuts, "duration",
			 json_out_number(time_to_seconds(c->duration_ns)));
}

static json_t *inspect_memory_json(const struct asset *a)
{
	struct asset_memory m;

	asset_memory(a, &m);
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "total", (json_int_t)m.total,
			 "skeleton", (json_int_t)m.skeleton, "clips", (json_int_t)m.clips, "meshes",
			 (json_int_t)m.meshes, "camera", (json_int_t)m.camera, "emitters",
			 (json_int_t)m.emitters, "other", (json_int_t)m.other);
}

static json_t *inspect_json(const struct asset *a)
{
	json_t *clips = json_array(), *meshes = json_array(), *cameras = json_array();
	json_t *root;

	for (uint32_t i = 0; i < a->clip_count; i++)
		json_array_append_new(clips, inspect_clip_json(a, i));
	for (uint32_t i = 0; i < a->mesh_count; i++) {
		json_t *m = mesh_json(a->meshes[i], i);

		json_object_set_new(m, "memory_bytes", json_integer((json_int_t)mesh_bytes(a->meshes[i])));
		json_array_append_new(meshes, m);
	}
	if (a->camera != NULL)
		json_array_append_new(cameras, inspect_camera_json(a->camera));
	root = json_pack("{s:o, s:s, s:i, s:I, s:{s:s, s:s}}", "asset",
			 json_out_string_or_null(a->name), "format", asset_format_name(a->format),
			 "version", a->version, "bytes", (json_int_t)a->file_bytes, "axes", "up",
			 a->up, "handedness", a->handedness);
	json_object_set_new(root, "skeleton",
			    a->skeleton ? inspect_skeleton_json(a) : json_null());
	json_object_set_new(root, "clips", clips);
	json_object_set_new(root, "meshes", meshes);
	json_object_set_new(root, "cameras", cameras);
	if (a->format == ASSET_FORMAT_X) {
		json_object_set_new(root, "ticks_per_second", json_integer(a->ticks_per_second));
		json_object_set_new(root, "ticks_from_file", json_boolean(a->ticks_from_file));
	}
	if (a->format == ASSET_FORMAT_M2) {
		json_t *globals = json_array(), *emitters = json_array(), *points = json_array();

		for (uint32_t i = 0; i < a->global_count; i++)
			json_array_append_new(globals, json_out_number(time_to_seconds(a->global_ns[i])));
		for (uint32_t i = 0; i < a->emitter_count; i++)
			json_array_append_new(emitters, m2_json_emitter(a, i));
		for (uint32_t i = 0; i < a->attachment_count; i++)
			json_array_append_new(points, m2_json_attachment(a, i));
		json_object_set_new(root, "global_sequences", globals);
		json_object_set_new(root, "emitters", emitters);
		json_object_set_new(root, "attachments", points);
		json_object_set_new(root, "events", m2_json_events(a));
		json_object_set_new(root, "companions", m2_json_companions(a));
	}
	if (a->format == ASSET_FORMAT_GLTF) {
		json_t *weights = json_array();

		for (uint32_t i = 0; i < a->weight_count; i++)
			json_array_append_new(weights, json_pack("{s:o, s:o}", "name",
				json_out_string_or_null(a->weight_names[i]), "default",
				json_out_number(a->weights[i])));
		json_object_set_new(root, "weights", weights);
		json_object_set_new(root, "companions", m2_json_companions(a));
	}
	json_object_set_new(root, "memory", inspect_memory_json(a));
	json_object_set_new(root, "note", json_out_string_or_null(a->note));
	{
		json_t *notes = json_array();

		for (uint32_t i = 0; i < a->note_count; i++)
			json_array_append_new(notes, json_out_string_or_null(a->notes[i]));
		json_object_set_new(root, "notes", notes);
	}
	return root;
}

static void inspect_text(const struct asset *a)
{
	struct asset_memory mem;

	asset_memory(a, &mem);
	printf("asset    %s\n", a->name);
	printf("format   %s version %d, %llu bytes\n", asset_format_name(a->format), a->version,
	       (unsigned long long)a->file_bytes);
	printf("memory   %llu bytes loaded: skeleton %llu, clips %llu, meshes %llu, camera %llu, "
	       "emitters %llu, other %llu\n", (unsigned long long)mem.total,
	       (unsigned long long)mem.skeleton, (unsigned long long)mem.clips,
	       (unsigned long long)mem.meshes, (unsigned long long)mem.camera,
	       (unsigned long long)mem.emitters, (unsigned long long)mem.other);
	printf("axes     %s, %s-handed\n", a->up, a->handedness);
	if (a->format == ASSET_FORMAT_X)
		printf("ticks    %u per second (%s)\n", a->ticks_per_second,
		       a->ticks_from_file ? "AnimTicksPerSecond" : "the default: the file has none");
	if (a->note != NULL)
		printf("note     %s\n", a->note);
	for (uint32_t i = 0; i < a->note_count; i++)
		printf("note     %s\n", a->notes[i]);
	for (uint32_t i = 0; i < a->companion_count; i++) {
		const struct asset_companion *cp = &a->companions[i];

		printf("companion %s: %s, %s %u", cp->name, m2_json_companion_status(cp->status),
		       cp->kind == ASSET_COMPANION_SKIN ? "view"
		       : cp->kind == ASSET_COMPANION_ANIM ? "sequence" : "buffer", cp->index);
		if (cp->status == ASSET_COMPANION_FOUND)
			printf(", %llu bytes", (unsigned long long)cp->bytes);
		if (cp->error != NULL)
			printf(": %s", cp->error);
		printf("\n");
	}
	if (a->skeleton != NULL) {
		const struct skeleton *s = a->skeleton;

		printf("skeleton %u joints%s\n", s->joint_count,
		       s->bind_model ? ", bind pose" : "");
		for (uint32_t i = 0; i < s->joint_count; i++) {
			printf("  %4u  %-32s parent %d", i, s->names[i], s->parents[i]);
			if (a->joint_info != NULL && m2_bone_billboard(a->joint_info[i].flags))
				printf(", %s billboard", m2_bone_billboard(a->joint_info[i].flags));
			if (s->ignore_parent != NULL && s->ignore_parent[i])
				printf(", ignores its parent's%s%s%s",
				       s->ignore_parent[i] & SKELETON_IGNORE_PARENT_TRANSLATION
				       ? " translation" : "",
				       s->ignore_parent[i] & SKELETON_IGNORE_PARENT_SCALE ? " scale" : "",
				       s->ignore_parent[i] & SKELETON_IGNORE_PARENT_ROTATION
				       ? " rotation" : "");
			if (s->rest_not_trs != NULL && s->rest_not_trs[i])
				printf(", matrix not a TRS (kept exact)");
			printf("\n");
		}
	}
	for (uint32_t i = 0; i < a->clip_count; i++) {
		const struct clip *c = a->clips[i];

		printf("clip     \"%s\": %.6g s, %s", c->name, time_to_seconds(c->duration_ns),
		       sample_loop_name(c->loop));
		if (c->frames != NULL)
			printf(", %u frames at %u fps", c->frame_count, c->frame_rate);
		if (a->format == ASSET_FORMAT_MD5ANIM)
			printf(", %u animated components", a->animated_components);
		if (a->sequences != NULL) {
			const struct m2_sequence_info *q = &a->sequences[i];

			printf(", animation %u.%u, flags 0x%x, movespeed %g, frequency %d, replay "
			       "%u..%u, blend %u ms", q->id, q->variation, q->flags, q->movespeed,
			       q->frequency, q->replay_min, q->replay_max, q->blend_ms);
			if (q->alias_of >= 0)
				printf(", alias of %d", q->alias_of);
			printf(", keys in %s%s", m2_json_keys_in(q->data),
			       q->loaded ? "" : ", NOT LOADED");
		}
		printf("%s, %zu bytes", c->bounds ? ", bounds" : "", clip_bytes(c));
		if (clip_index_bytes(c) > 0)
			printf(" (key index %zu)", clip_index_bytes(c));
		printf("\n");
		if (c->event_count > 0) {
			printf("           events:");
			for (uint32_t k = 0; k < c->event_count; k++)
				printf("%s %u at %.6g s", k ? "," : "", c->events[k].event,
				       time_to_seconds(c->events[k].t_ns));
			printf("\n");
		}
	}
	for (uint32_t i = 0; i < a->global_count; i++)
		printf("global   %u: %.6g s\n", i, time_to_seconds(a->global_ns[i]));
	for (uint32_t i = 0; i < a->weight_count; i++)
		printf("weight   %u \"%s\": default %g\n", i, a->weight_names[i], a->weights[i]);
	for (uint32_t i = 0; i < a->emitter_count; i++) {
		const struct emitter *e = &a->emitters[i];

		printf("emitter  %u on %s at %g %g %g: type %d, particle type %d, blend %d, "
		       "texture %d, %dx%d tiles\n", i, a->skeleton->names[e->joint], e->position.x,
		       e->position.y, e->position.z, e->emitter_type, e->particle_type,
		       e->blend_mode, e->texture, e->rows, e->columns);
	}
	for (uint32_t i = 0; i < a->attachment_count; i++) {
		const struct attachment *p = &a->attachments[i];

		printf("attach   %u id %u on %s at %g %g %g\n", i, p->id,
		       a->skeleton && p->joint < a->skeleton->joint_count ? a->skeleton->names[p->joint]
		       : "?",
		       p->position.x, p->position.y, p->position.z);
	}
	for (uint32_t i = 0; i < a->event_count; i++) {
		const struct m2_event_info *e = &a->events[i];
		char id[EVENT_ID_TEXT_BYTES];

		event_id_text(e->id, id);
		printf("event    %u \"%s\" data %u on ", i, id, e->data);
		if (e->joint >= 0 && a->skeleton && (uint32_t)e->joint < a->skeleton->joint_count)
			printf("%s", a->skeleton->names[e->joint]);
		else
			printf("bone %u (none: not in the skeleton)", e->bone);
		printf(" at %g %g %g\n", e->position.x, e->position.y, e->position.z);
	}
	for (uint32_t i = 0; i < a->mesh_count; i++) {
		const struct mesh *m = a->meshes[i];

		printf("mesh     %u \"%s\" material \"%s\": %u vertices, %u triangles, %u weights%s%s%s, "
		       "%zu bytes\n",
		       i, m->name ? m->name : "", m->material ? m->material : "", m->vertex_count,
		       m->triangle_count, m->influence_count, m->influence_count ? ", skinned" : "",
		       m->normals == MESH_NORMALS_SKINNED ? ", normals"
		       : m->normals == MESH_NORMALS_DERIVED ? ", normals derived" : "",
		       m->colors ? ", vertex colours" : "", mesh_bytes(m));
		for (uint32_t k = 0; k < m->material_count; k++) {
			const struct mesh_material *mt = &m->materials[k];

			printf("           material %u \"%s\": %u triangles, diffuse %g %g %g %g%s%s\n", k,
			       mt->name ? mt->name : "", mt->triangle_count, mt->diffuse[0],
			       mt->diffuse[1], mt->diffuse[2], mt->diffuse[3],
			       mt->texture ? ", texture " : "", mt->texture ? mt->texture : "");
		}
		if (m->unread != NULL)
			printf("           not read: %s\n", m->unread);
	}
	if (a->camera != NULL) {
		const struct camera_track *c = a->camera;

		printf("camera   %u frames at %u fps, %.6g s playable, cuts:", c->frame_count,
		       c->frame_rate, time_to_seconds(c->duration_ns));
		for (uint32_t i = 0; i < c->cut_count; i++)
			printf(" %u", c->cuts[i]);
		printf("%s\n", c->cut_count ? "" : " none");
	}
}

static void inspect_usage(FILE *f)
{
	fprintf(f, "usage: animd inspect FILE [--json]\n"
		   "  Show format, version, axes, skeleton, clips, meshes and cameras, and the\n"
		   "  bytes each takes in memory once loaded.\n");
}

int offline_inspect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct asset *a = NULL;
	char err[512];
	int json = 0, c, rc = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h': inspect_usage(stdout); return 0;
		default: inspect_usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		inspect_usage(stderr);
		return EXIT_USAGE;
	}
	if (asset_load_file(argv[optind], 0, &a, err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (json)
		rc = json_out_print(inspect_json(a), stdout) < 0;
	else
		inspect_text(a);
	asset_free(a);
	return rc;
}
