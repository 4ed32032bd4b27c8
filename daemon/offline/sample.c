/*
 * animd sample FILE [--mesh MESH] [--clip NAME] --time SECONDS
 *              [--space local|model|skin|vertices|camera] [--loop MODE]
 *              [--root-motion raw|in_place] [--json]
 *
 * Evaluates one pose exactly as the daemon's `sample` request does.  The
 * JSON form (README, "animd sample --json") is a contract: positions in the
 * file's own axes, column-vector matrices (p_model = m * p_joint) as 12
 * row-major numbers, %.9g precision.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/assets/asset.h"
#include "daemon/assets/sampling.h"
#include "daemon/offline/json_out.h"
#include "daemon/offline/m2_json.h"
#include "daemon/offline/offline.h"

static json_t *sample_joints_json(const struct sample_request *q, const struct sample_result *r)
{
	const struct skeleton *s = r->skeleton;
	json_t *joints = json_array();

	for (uint32_t i = 0; i < s->joint_count; i++) {
		json_t *j = json_pack("{s:o, s:i}", "name", json_out_string_or_null(s->names[i]),
				      "parent", (int)s->parents[i]);

		if (r->space == SPACE_LOCAL) {
			const mat34 *exact = sample_exact_local(r, i);

			json_object_set_new(j, "t", json_out_vec3(r->local[i].t));
			json_object_set_new(j, "r", json_out_quat(r->local[i].r));
			json_object_set_new(j, "s", json_out_vec3(r->local[i].s));
			/* A still .x frame whose matrix a TRS cannot express. */
			if (exact != NULL) {
				json_object_set_new(j, "trs", json_false());
				json_object_set_new(j, "matrix", json_out_mat34(exact));
			}
		} else {
			json_object_set_new(j, "m", json_out_mat34(&r->mats[i]));
		}
		/* Billboard flags ride along: a renderer applies them (it has the
		 * camera); the matrices are as the bones give them. */
		if (q->asset->joint_info != NULL && s == q->asset->skeleton)
			json_object_set_new(j, "billboard",
					    json_boolean(q->asset->joint_info[i].flags & M2_BONE_BILLBOARD));
		json_array_append_new(joints, j);
	}
	return joints;
}

static json_t *sample_meshes_json(const struct sample_result *r)
{
	json_t *meshes = json_array();

	for (uint32_t i = 0; i < r->mesh_count; i++) {
		const struct mesh *m = r->meshes[i];
		json_t *pos = json_array();
		char fallback[32];

		json_t *o;

		for (uint32_t v = 0; v < m->vertex_count; v++)
			json_array_append_new(pos, json_out_vec3(r->positions[i][v]));
		snprintf(fallback, sizeof fallback, "mesh%u", i);
		o = json_pack("{s:o, s:o}", "name",
			      json_out_string_or_null(m->name ? m->name : fallback), "positions", pos);
		if (r->normals[i] != NULL) {
			json_t *nrm = json_array();

			for (uint32_t v = 0; v < m->vertex_count; v++)
				json_array_append_new(nrm, json_out_vec3(r->normals[i][v]));
			json_object_set_new(o, "normals", nrm);
		}
		json_array_append_new(meshes, o);
	}
	return meshes;
}

static json_t *sample_json(const struct sample_request *q, const struct sample_result *r)
{
	json_t *root = json_pack("{s:o, s:o, s:o, s:s}", "asset",
				 json_out_string_or_null(q->asset->name), "clip",
				 json_out_string_or_null(r->clip ? r->clip->name : NULL), "time",
				 json_out_number(q->time), "space", sample_space_name(r->space));

	json_object_set_new(root, "clip_time",
			    json_out_number(time_to_seconds(r->clip_time.t_ns)));
	if (r->clip != NULL) {
		json_object_set_new(root, "cycles", json_integer(r->clip_time.cycles));
		json_object_set_new(root, "root_motion",
				    json_string(sample_root_motion_name(q->root_motion)));
	}
	if (r->has_bounds)
		json_object_set_new(root, "bounds", json_pack("{s:o, s:o}",
			"min", json_out_floats(r->bounds, 3), "max", json_out_floats(r->bounds + 3, 3)));
	switch (r->space) {
	case SPACE_CAMERA:
		json_object_set_new(root, "camera", json_pack("{s:o, s:o, s:o}",
			"position", json_out_vec3(r->camera.pos),
			"orientation", json_out_quat(r->camera.rot),
			"fov", json_out_number(r->camera.fov)));
		break;
	case SPACE_VERTICES:
		json_object_set_new(root, "meshes", sample_meshes_json(r));
		break;
	case SPACE_EMITTERS: {
		json_t *emitters = json_array();

		for (uint32_t i = 0; i < r->emitter_count; i++)
			json_array_append_new(emitters, m2_json_emitter_state(q->asset, i,
									      &r->emitter_states[i]));
		json_object_set_new(root, "emitters", emitters);
		break;
	}
	default:
		json_object_set_new(root, "joints", sample_joints_json(q, r));
		break;
	}
	return root;
}

static void sample_text(const struct sample_request *q, const struct sample_result *r)
{
	printf("asset %s", q->asset->name);
	if (r->clip != NULL)
		printf(", clip \"%s\"", r->clip->name);
	printf(", time %.9g s -> clip time %.9g s, space %s\n", q->time,
	       time_to_seconds(r->clip_time.t_ns), sample_space_name(r->space));
	switch (r->space) {
	case SPACE_CAMERA:
		printf("position    %12.6f %12.6f %12.6f\n", r->camera.pos.x, r->camera.pos.y,
		       r->camera.pos.z);
		printf("orientation %12.6f %12.6f %12.6f %12.6f (x y z w)\n", r->camera.rot.x,
		       r->camera.rot.y, r->camera.rot.z, r->camera.rot.w);
		printf("fov         %12.6f degrees\n", r->camera.fov);
		return;
	case SPACE_EMITTERS:
		for (uint32_t i = 0; i < r->emitter_count; i++) {
			const struct emitter_state *e = &r->emitter_states[i];

			printf("emitter %u %s at %10.4f %10.4f %10.4f:", i, e->enabled > 0.5f ? "on " : "off",
			       e->m.m[0][3], e->m.m[1][3], e->m.m[2][3]);
			for (int p = 0; p < EMITTER_PARAMS; p++)
				printf(" %s %g", emitter_param_names[p], e->param[p]);
			printf("\n");
		}
		return;
	case SPACE_VERTICES:
		for (uint32_t i = 0; i < r->mesh_count; i++) {
			printf("mesh %u \"%s\": %u vertices\n", i,
			       r->meshes[i]->name ? r->meshes[i]->name : "", r->meshes[i]->vertex_count);
			for (uint32_t v = 0; v < r->meshes[i]->vertex_count; v++) {
				vec3 p = r->positions[i][v];

				printf("  %6u %12.6f %12.6f %12.6f\n", v, p.x, p.y, p.z);
			}
		}
		return;
	default:
		break;
	}
	for (uint32_t i = 0; i < r->skeleton->joint_count; i++) {
		printf("%4u %-24s %4d ", i, r->skeleton->names[i], r->skeleton->parents[i]);
		if (r->space == SPACE_LOCAL) {
			const struct transform *x = &r->local[i];

			printf("t %10.4f %10.4f %10.4f  r %8.5f %8.5f %8.5f %8.5f\n", x->t.x, x->t.y,
			       x->t.z, x->r.x, x->r.y, x->r.z, x->r.w);
		} else {
			const mat34 *m = &r->mats[i];

			printf("t %10.4f %10.4f %10.4f\n", m->m[0][3], m->m[1][3], m->m[2][3]);
		}
	}
}

static void sample_usage(FILE *f)
{
	fprintf(f,
		"usage: animd sample FILE [--mesh MESH.md5mesh] [--clip NAME] --time SECONDS\n"
		"                    [--space local|model|skin|vertices|camera|emitters]\n"
		"                    [--loop loop|once|pingpong] [--root-motion raw|in_place] [--json]\n"
		"  Evaluate one pose.  --time is playback time in seconds; past the end it\n"
		"  wraps for looping clips.  --mesh supplies the bind pose and vertices for\n"
		"  an md5anim.  Default space: camera for cameras, else model.  M2 global\n"
		"  sequences run at --time too; --clip N is sequence N, id=A[.V] animation A.\n");
}

static int sample_parse_time(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

int offline_sample(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mesh", required_argument, NULL, 'm' },
		{ "clip", required_argument, NULL, 'c' },
		{ "time", required_argument, NULL, 't' },
		{ "space", required_argument, NULL, 's' },
		{ "loop", required_argument, NULL, 'l' },
		{ "root-motion", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sample_request q = { 0 };
	struct sample_result r;
	struct asset *a = NULL, *mesh = NULL;
	const char *mesh_path = NULL, *space = NULL;
	char err[512];
	int json = 0, have_time = 0, c, rc = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'm': mesh_path = optarg; break;
		case 'c': q.clip = optarg; break;
		case 's': space = optarg; break;
		case 'j': json = 1; break;
		case 't':
			if (sample_parse_time(optarg, &q.time) < 0) {
				fprintf(stderr, "animd sample: --time needs a number of seconds, not \"%s\"\n", optarg);
				return EXIT_USAGE;
			}
			have_time = 1;
			break;
		case 'l':
			if (sample_loop_parse(optarg, &q.loop) < 0) {
				fprintf(stderr, "animd sample: --loop is loop, once or pingpong, not \"%s\"\n", optarg);
				return EXIT_USAGE;
			}
			q.loop_set = 1;
			break;
		case 'r':
			if (sample_root_motion_parse(optarg, &q.root_motion) < 0) {
				fprintf(stderr, "animd sample: --root-motion is raw or in_place, not \"%s\"\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h': sample_usage(stdout); return 0;
		default: sample_usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || !have_time) {
		if (!have_time)
			fprintf(stderr, "animd sample: --time is required\n");
		sample_usage(stderr);
		return EXIT_USAGE;
	}
	if (asset_load_file(argv[optind], 0, &a, err, sizeof err) < 0 ||
	    (mesh_path != NULL && asset_load_file(mesh_path, 0, &mesh, err, sizeof err) < 0)) {
		fprintf(stderr, "%s\n", err);
		goto out;
	}
	q.asset = a;
	q.mesh = mesh;
	q.space = sample_default_space(a);
	if (space != NULL && sample_space_parse(space, &q.space) < 0) {
		fprintf(stderr, "animd sample: --space is local, model, skin, vertices, camera or emitters, not \"%s\"\n", space);
		rc = EXIT_USAGE;
		goto out;
	}
	if (sample_evaluate(&q, &r, err, sizeof err) < 0) {
		fprintf(stderr, "animd sample: %s\n", err);
		goto out;
	}
	if (json)
		rc = json_out_print(sample_json(&q, &r), stdout) < 0;
	else {
		sample_text(&q, &r);
		rc = 0;
	}
	sample_result_free(&r);
out:
	asset_free(a);
	asset_free(mesh);
	return rc;
}
