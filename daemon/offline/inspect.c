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
#include "proto/describe.h"

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

/* How a clip's frames are stored: null when raw; else their bytes and
 * the worst error measured on the metric, beside what it was built for. */
static json_t *inspect_compression_json(const struct clip *c)
{
	float error, precision, shell;

	if (!clip_packed_error(c, &error, &precision, &shell))
		return json_null();
	return json_pack("{s:I, s:o, s:o, s:o}", "bytes", (json_int_t)clip_packed_bytes(c),
			 "worst_error", json_out_number(error), "precision",
			 json_out_number(precision), "shell_distance", json_out_number(shell));
}

static json_t *inspect_clip_json(const struct asset *a, uint32_t index)
{
	const struct clip *c = a->clips[index];
	json_t *o = json_pack("{s:o, s:o, s:s, s:I}", "name", json_out_string_or_null(c->name),
			      "duration", json_out_number(time_to_seconds(c->duration_ns)),
			      "loop", sample_loop_name(c->loop), "joint_count",
			      (json_int_t)c->joint_count);

	if (clip_is_uniform(c)) {
		json_object_set_new(o, "frame_rate", json_integer(c->frame_rate));
		json_object_set_new(o, "frame_count", json_integer(c->frame_count));
	}
	if (a->format == ASSET_FORMAT_MD5ANIM)
		json_object_set_new(o, "animated_components",
				    json_integer(a->animated_components));
	json_object_set_new(o, "bounds", json_boolean(c->bounds != NULL));
	json_object_set_new(o, "memory_bytes", json_integer((json_int_t)clip_bytes(c)));
	json_object_set_new(o, "key_index_bytes", json_integer((json_int_t)clip_index_bytes(c)));
	json_object_set_new(o, "compression", inspect_compression_json(c));
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

/* A joint's name, or NULL past the skeleton. */
static const char *inspect_joint_name(const struct asset *a, int64_t joint)
{
	return a->skeleton != NULL && joint >= 0 && joint < a->skeleton->joint_count
		       ? a->skeleton->names[joint] : NULL;
}

/* The lines animctl info prints too come from proto/describe.h: the same
 * words and numbers for the same asset.  What only a file shows (memory,
 * companions, notes, key indexes, emitters' static fields, materials)
 * follows in lines of their own. */
static void inspect_text(const struct asset *a)
{
	char line[DESCRIBE_LINE_MAX], more[DESCRIBE_LINE_MAX];
	struct asset_memory mem;

	asset_memory(a, &mem);
	puts(describe_line(line, sizeof line, "asset", "%s", a->name));
	puts(describe_format(line, sizeof line, asset_format_name(a->format), a->version,
			     a->file_bytes));
	puts(describe_line(line, sizeof line, "memory", "%llu bytes loaded: skeleton %llu, clips "
			   "%llu, meshes %llu, camera %llu, emitters %llu, other %llu",
			   (unsigned long long)mem.total, (unsigned long long)mem.skeleton,
			   (unsigned long long)mem.clips, (unsigned long long)mem.meshes,
			   (unsigned long long)mem.camera, (unsigned long long)mem.emitters,
			   (unsigned long long)mem.other));
	puts(describe_axes(line, sizeof line, a->up, a->handedness));
	if (a->format == ASSET_FORMAT_X)
		puts(describe_line(line, sizeof line, "ticks", "%u per second (%s)",
				   a->ticks_per_second, a->ticks_from_file
				   ? "AnimTicksPerSecond" : "the default: the file has none"));
	if (a->note != NULL)
		puts(describe_line(line, sizeof line, "note", "%s", a->note));
	for (uint32_t i = 0; i < a->note_count; i++)
		puts(describe_line(line, sizeof line, "note", "%s", a->notes[i]));
	for (uint32_t i = 0; i < a->companion_count; i++) {
		const struct asset_companion *cp = &a->companions[i];

		describe_line(line, sizeof line, "companion", "%s: %s, %s %u", cp->name,
			      m2_json_companion_status(cp->status),
			      cp->kind == ASSET_COMPANION_SKIN ? "view"
			      : cp->kind == ASSET_COMPANION_ANIM ? "sequence" : "buffer",
			      cp->index);
		printf("%s", line);
		if (cp->status == ASSET_COMPANION_FOUND)
			printf(", %llu bytes", (unsigned long long)cp->bytes);
		if (cp->error != NULL)
			printf(": %s", cp->error);
		printf("\n");
	}
	if (a->skeleton != NULL) {
		const struct skeleton *s = a->skeleton;

		puts(describe_skeleton(line, sizeof line, s->joint_count, s->bind_model != NULL));
		for (uint32_t i = 0; i < s->joint_count; i++) {
			printf("%s", describe_joint(line, sizeof line, i, s->names[i], s->parents[i],
						    inspect_joint_name(a, s->parents[i])));
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

		describe_clip(line, sizeof line, c->name, time_to_seconds(c->duration_ns),
			      sample_loop_name(c->loop), c->joint_count,
			      clip_is_uniform(c) ? c->frame_count : 0,
			      clip_is_uniform(c) ? c->frame_rate : 0, c->bounds != NULL);
		printf("%s", line);
		if (a->sequences != NULL) {
			const struct m2_sequence_info *q = &a->sequences[i];

			printf("%s", describe_sequence(more, sizeof more, q->id, q->variation, q->flags,
						       q->movespeed, q->frequency, q->replay_min,
						       q->replay_max, q->blend_ms, q->alias_of,
						       q->loaded));
		}
		printf("\n");
		/* What the file's clip takes, which animctl info does not show. */
		describe_line(line, sizeof line, "", "%zu bytes", clip_bytes(c));
		printf("%s", line);
		if (clip_index_bytes(c) > 0)
			printf(" (key index %zu)", clip_index_bytes(c));
		if (a->format == ASSET_FORMAT_MD5ANIM)
			printf(", %u animated components", a->animated_components);
		if (a->sequences != NULL)
			printf(", keys in %s", m2_json_keys_in(a->sequences[i].data));
		{
			float error, precision, shell;

			if (clip_packed_error(c, &error, &precision, &shell))
				printf(", compressed (%zu bytes of frames): worst error %.3g (precision %g "
				       "at %g from each joint)", clip_packed_bytes(c), error, precision,
				       shell);
		}
		printf("\n");
		if (c->event_count > 0) {
			double times[256];
			uint32_t events[256];
			uint32_t n = c->event_count < 256 ? c->event_count : 256;

			for (uint32_t k = 0; k < n; k++) {
				times[k] = time_to_seconds(c->events[k].t_ns);
				events[k] = c->events[k].event;
			}
			puts(describe_moments(line, sizeof line, n, times, events));
		}
	}
	for (uint32_t i = 0; i < a->global_count; i++)
		puts(describe_global(line, sizeof line, i, time_to_seconds(a->global_ns[i])));
	for (uint32_t i = 0; i < a->weight_count; i++)
		puts(describe_line(line, sizeof line, "weight", "%u \"%s\": default %g", i,
				   a->weight_names[i], a->weights[i]));
	for (uint32_t i = 0; i < a->emitter_count; i++) {
		const struct emitter *e = &a->emitters[i];
		char q[DESCRIBE_LINE_MAX / 4];

		puts(describe_line(line, sizeof line, "emitter", "%u on %s at %g %g %g: type %d, "
				   "particle type %d, blend %d, texture %d, %dx%d tiles", i,
				   describe_name(q, sizeof q, inspect_joint_name(a, e->joint)),
				   e->position.x, e->position.y, e->position.z, e->emitter_type,
				   e->particle_type, e->blend_mode, e->texture, e->rows, e->columns));
	}
	for (uint32_t i = 0; i < a->attachment_count; i++) {
		const struct attachment *p = &a->attachments[i];

		puts(describe_attachment(line, sizeof line, i, p->id, m2_json_file_bone(a, p->joint),
					 inspect_joint_name(a, p->joint), p->position.x,
					 p->position.y, p->position.z));
	}
	for (uint32_t i = 0; i < a->event_count; i++) {
		const struct m2_event_info *e = &a->events[i];
		char id[EVENT_ID_TEXT_BYTES];

		event_id_text(e->id, id);
		puts(describe_event(line, sizeof line, i, id, e->data, e->bone,
				    inspect_joint_name(a, e->joint), e->position.x,
				    e->position.y, e->position.z));
	}
	for (uint32_t i = 0; i < a->mesh_count; i++) {
		const struct mesh *m = a->meshes[i];
		char fallback[32];

		/* An unnamed mesh is called as --json and assets.info call it. */
		snprintf(fallback, sizeof fallback, "mesh%u", i);
		puts(describe_mesh(line, sizeof line, i, m->name ? m->name : fallback, m->material,
				   m->vertex_count,
				   m->triangle_count, m->influence_count, m->influence_count > 0,
				   m->normals == MESH_NORMALS_SKINNED ? 1
				   : m->normals == MESH_NORMALS_DERIVED ? 2 : 0));
		describe_line(line, sizeof line, "", "%zu bytes%s", mesh_bytes(m),
			      m->colors ? ", vertex colours" : "");
		puts(line);
		for (uint32_t k = 0; k < m->material_count; k++) {
			const struct mesh_material *mt = &m->materials[k];
			char q[DESCRIBE_LINE_MAX / 4];

			describe_line(line, sizeof line, "", "material %u %s: %u triangles, diffuse %g %g "
				      "%g %g", k, describe_name(q, sizeof q, mt->name ? mt->name : ""),
				      mt->triangle_count, mt->diffuse[0], mt->diffuse[1],
				      mt->diffuse[2], mt->diffuse[3]);
			printf("%s", line);
			if (mt->texture != NULL)
				printf(", texture %s", describe_name(q, sizeof q, mt->texture));
			printf("\n");
		}
		if (m->unread != NULL)
			puts(describe_line(line, sizeof line, "", "not read: %s", m->unread));
	}
	if (a->camera != NULL) {
		const struct camera_track *c = a->camera;

		puts(describe_camera(line, sizeof line, c->frame_count, c->frame_rate,
				     time_to_seconds(c->duration_ns), c->cut_count, c->cuts));
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

	(void)offline_heap_prepare();
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
