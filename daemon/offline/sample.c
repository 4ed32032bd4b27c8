/*
 * animd sample FILE [--mesh MESH] [--clip NAME] (--time SECONDS | --bind)
 *              [--skin-weights] [--blend B:TB:W [--mask JOINT[:W]]...] [--additive C:TC:W [--ref R[:T]]]...
 *              [--space local|model|skin|vertices|camera|emitters|attachments|weights]
 *              [--loop MODE]
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
#include <string.h>

#include "daemon/assets/asset.h"
#include "daemon/assets/sampling.h"
#include "daemon/offline/json_out.h"
#include "daemon/offline/m2_json.h"
#include "daemon/offline/offline.h"
#include "proto/describe.h"

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
			json_object_set_new(j, "billboard", json_out_string_or_null(
				m2_bone_billboard(q->asset->joint_info[i].flags)));
		json_array_append_new(joints, j);
	}
	return joints;
}

/* [[a, b, c], ...]: vertex indices of the mesh's triangles, in file order. */
static json_t *sample_triangles_json(const struct mesh *m)
{
	json_t *tris = json_array();

	for (uint32_t t = 0; t < m->triangle_count; t++)
		json_array_append_new(tris, json_pack("[I, I, I]", (json_int_t)m->triangles[t][0],
						      (json_int_t)m->triangles[t][1],
						      (json_int_t)m->triangles[t][2]));
	return tris;
}

/* {"counts", "joints", "values"}: vertex v's influences are the next
 * counts[v] joints and weights (the socket's "skin_weights", pose_pack.c). */
static json_t *sample_weights_json(const struct mesh *m)
{
	json_t *counts = json_array(), *joints = json_array(), *values = json_array();

	for (uint32_t v = 0; v < m->vertex_count; v++)
		json_array_append_new(counts, json_integer(m->first_influence[v + 1] -
							   m->first_influence[v]));
	for (uint32_t k = 0; k < m->influence_count; k++) {
		json_array_append_new(joints, json_integer(m->influences[k].joint));
		json_array_append_new(values, json_out_number(m->influences[k].weight));
	}
	return json_pack("{s:o, s:o, s:o}", "counts", counts, "joints", joints, "values", values);
}

static json_t *sample_meshes_json(const struct sample_request *q, const struct sample_result *r)
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
		json_object_set_new(o, "triangles", sample_triangles_json(m));
		if (q->weights)
			json_object_set_new(o, "skin_weights", sample_weights_json(m));
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
	if (q->bind)
		json_object_set_new(root, "bind", json_true());
	if (r->clip != NULL) {
		json_object_set_new(root, "cycles", json_integer(r->clip_time.cycles));
		json_object_set_new(root, "root_motion",
				    json_string(sample_root_motion_name(q->root_motion)));
	}
	if (q->layer_count > 0) {
		json_t *layers = json_array();

		for (uint32_t i = 0; i < q->layer_count; i++) {
			const struct sample_layer *l = &q->layers[i];

			json_array_append_new(layers, json_pack("{s:s, s:o, s:o, s:o, s:o, s:i}",
				"mode", l->mode == SAMPLE_LAYER_ADDITIVE ? "additive" : "override",
				"asset", json_out_string_or_null(l->asset_name ? l->asset_name : q->asset->name),
				"clip", json_out_string_or_null(l->clip), "time", json_out_number(l->time),
				"weight", json_out_number(l->weight), "mask", (int)l->mask_count));
		}
		json_object_set_new(root, "layers", layers);
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
		json_object_set_new(root, "meshes", sample_meshes_json(q, r));
		break;
	case SPACE_EMITTERS: {
		json_t *emitters = json_array();

		for (uint32_t i = 0; i < r->emitter_count; i++)
			json_array_append_new(emitters, m2_json_emitter_state(q->asset, i,
									      &r->emitter_states[i]));
		json_object_set_new(root, "emitters", emitters);
		break;
	}
	case SPACE_ATTACHMENTS: {
		json_t *points = json_array();

		for (uint32_t i = 0; i < r->attachment_count; i++)
			json_array_append_new(points, m2_json_attachment_state(
				q->asset, i, &r->attachment_states[i]));
		json_object_set_new(root, "attachments", points);
		break;
	}
	case SPACE_WEIGHTS: {
		json_t *weights = json_array();

		for (uint32_t i = 0; i < r->weight_count; i++)
			json_array_append_new(weights, json_pack("{s:o, s:o}", "name",
				json_out_string_or_null(q->asset->weight_names[i]),
				"weight", json_out_number(r->weights[i])));
		json_object_set_new(root, "weights", weights);
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
	char line[DESCRIBE_LINE_MAX];

	/* The header animctl sample prints too (proto/describe.h). */
	puts(describe_sample(line, sizeof line, q->asset->name, r->clip ? r->clip->name : NULL,
			     q->time, time_to_seconds(r->clip_time.t_ns), r->clip_time.cycles,
			     sample_space_name(r->space)));
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
	case SPACE_ATTACHMENTS:
		for (uint32_t i = 0; i < r->attachment_count; i++) {
			const struct attachment *p = &r->attachments[i];
			const struct attachment_state *st = &r->attachment_states[i];

			printf("attachment %u id %u on %s at %10.4f %10.4f %10.4f%s\n", i, p->id,
			       r->skeleton->names[p->joint], st->m.m[0][3], st->m.m[1][3],
			       st->m.m[2][3], st->animate > 0.5f ? "" : " (not animated)");
		}
		return;
	case SPACE_WEIGHTS:
		for (uint32_t i = 0; i < r->weight_count; i++)
			printf("weight %u %-32s %12.6f\n", i, q->asset->weight_names[i], r->weights[i]);
		return;
	case SPACE_VERTICES:
		for (uint32_t i = 0; i < r->mesh_count; i++) {
			printf("mesh %u \"%s\": %u vertices\n", i,
			       r->meshes[i]->name ? r->meshes[i]->name : "", r->meshes[i]->vertex_count);
			for (uint32_t v = 0; v < r->meshes[i]->vertex_count; v++) {
				const struct mesh *m = r->meshes[i];
				vec3 p = r->positions[i][v];

				printf("  %6u %12.6f %12.6f %12.6f", v, p.x, p.y, p.z);
				for (uint32_t k = m->first_influence[v];
				     q->weights && k < m->first_influence[v + 1]; k++)
					printf(" %s%u:%g", k == m->first_influence[v] ? " skin_weights " : "",
					       m->influences[k].joint, m->influences[k].weight);
				printf("\n");
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
		"usage: animd sample FILE [--mesh MESH.md5mesh] [--clip NAME] (--time SECONDS | --bind)\n"
		"                    [--space local|model|skin|vertices|camera|emitters|attachments|weights]\n"
		"                    [--loop loop|once|pingpong] [--root-motion raw|in_place] [--json]\n"
		"                    [--blend B:TB:W [--mask JOINT[:W]]...] [--additive C:TC:W [--ref R[:T]]]...\n"
		"                    [--skin-weights]\n"
		"  Evaluate one pose.  --time is playback time in seconds; past the end it\n"
		"  wraps for looping clips.  --bind gives the bind pose instead (the pose the\n"
		"  meshes were bound in; no clip).  --skin-weights (with --space vertices) adds\n"
		"  each vertex's joints and skin weights (--space weights is another thing: a\n"
		"  glTF's morph-target weights).  --mesh supplies the bind pose and\n"
		"  vertices for an md5anim.  Default space: camera for cameras, else model.  M2 global\n"
		"  sequences run at --time too; --clip N is sequence N, id=A[.V] animation A.\n"
		"  Layers apply in the order given: --blend lerps clip B at time TB over the\n"
		"  pose by weight W, --additive adds clip C's difference from its first frame\n"
		"  (or from --ref clip R at time T); --mask limits the layer before it to the\n"
		"  subtrees of the joints named (weight W, default 1).  B, C and R are clips\n"
		"  of FILE, or md5anim files (a name ending in .md5anim).\n");
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

/* The layers' options, as parsed: files to free, masks in argv order. */
struct sample_stack {
	struct sample_layer layers[SAMPLE_MAX_LAYERS];
	struct asset *files[SAMPLE_MAX_LAYERS];
	uint32_t count;
	const char **mask_joints;       /* argc entries, each layer's in a run */
	float *mask_weights;
	uint32_t mask_used;
};

static int sample_is_file(const char *name)
{
	size_t n = strlen(name);

	return n > 8 && strcmp(name + n - 8, ".md5anim") == 0;
}

/* NAME:T:W (NAME may hold colons itself), or NAME[:T] for a reference. */
static int sample_parse_layer(struct sample_stack *st, enum sample_layer_mode mode, char *arg,
			      char *err, size_t errlen)
{
	struct sample_layer *l;
	char *c2 = strrchr(arg, ':'), *c1;
	double w;

	if (st->count == SAMPLE_MAX_LAYERS) {
		snprintf(err, errlen, "at most %d layers", SAMPLE_MAX_LAYERS);
		return -EINVAL;
	}
	if (c2 == NULL || c2 == arg)
		goto bad;
	*c2 = '\0';
	c1 = strrchr(arg, ':');
	if (c1 == NULL || c1 == arg)
		goto bad;
	*c1 = '\0';
	l = &st->layers[st->count];
	memset(l, 0, sizeof *l);
	l->mode = mode;
	if (sample_parse_time(c1 + 1, &l->time) < 0 || sample_parse_time(c2 + 1, &w) < 0 ||
	    !(w >= 0.0 && w <= 1.0))
		goto bad;
	l->weight = (float)w;
	if (sample_is_file(arg)) {
		if (asset_load_file(arg, 0, &st->files[st->count], err, errlen) < 0)
			return -ENOENT;
		l->asset = st->files[st->count];
		l->asset_name = arg;
	} else {
		l->clip = arg;
	}
	l->mask_joints = st->mask_joints + st->mask_used;
	l->mask_weights = st->mask_weights + st->mask_used;
	st->count++;
	return 0;
bad:
	snprintf(err, errlen, "--%s is CLIP:SECONDS:WEIGHT with the weight in [0, 1]",
		 mode == SAMPLE_LAYER_ADDITIVE ? "additive" : "blend");
	return -EINVAL;
}

static int sample_parse_mask(struct sample_stack *st, char *arg, char *err, size_t errlen)
{
	char *colon = strrchr(arg, ':');
	double w = 1.0;

	if (st->count == 0) {
		snprintf(err, errlen, "--mask follows the --blend or --additive it limits");
		return -EINVAL;
	}
	/* JOINT:W when what follows the last colon is a number. */
	if (colon != NULL && colon != arg && sample_parse_time(colon + 1, &w) == 0) {
		if (!(w >= 0.0 && w <= 1.0)) {
			snprintf(err, errlen, "--mask %s: the weight is in [0, 1]", arg);
			return -EINVAL;
		}
		*colon = '\0';
	}
	st->mask_joints[st->mask_used] = arg;
	st->mask_weights[st->mask_used] = (float)w;
	st->mask_used++;
	st->layers[st->count - 1].mask_count++;
	return 0;
}

static int sample_parse_ref(struct sample_stack *st, char *arg, char *err, size_t errlen)
{
	char *colon = strrchr(arg, ':');
	struct sample_layer *l = st->count ? &st->layers[st->count - 1] : NULL;
	double t = 0.0;

	if (l == NULL || l->mode != SAMPLE_LAYER_ADDITIVE) {
		snprintf(err, errlen, "--ref follows the --additive whose reference pose it names");
		return -EINVAL;
	}
	if (colon != NULL && colon != arg && sample_parse_time(colon + 1, &t) == 0)
		*colon = '\0';
	l->ref_clip = arg;
	l->ref_time = t;
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
		{ "blend", required_argument, NULL, 'b' },
		{ "additive", required_argument, NULL, 'a' },
		{ "mask", required_argument, NULL, 'k' },
		{ "ref", required_argument, NULL, 'f' },
		{ "bind", no_argument, NULL, 'B' },
		{ "skin-weights", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sample_request q = { 0 };
	struct sample_result r;
	struct sample_stack st = { .count = 0 };
	struct asset *a = NULL, *mesh = NULL;
	const char *mesh_path = NULL, *space = NULL;
	char err[512];
	int json = 0, have_time = 0, c, rc = 1;

	st.mask_joints = calloc((size_t)argc + 1, sizeof *st.mask_joints);
	st.mask_weights = calloc((size_t)argc + 1, sizeof *st.mask_weights);
	if (st.mask_joints == NULL || st.mask_weights == NULL) {
		fprintf(stderr, "animd sample: out of memory\n");
		goto out;
	}
	(void)offline_heap_prepare();
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int lrc = 0;

		switch (c) {
		case 'b': lrc = sample_parse_layer(&st, SAMPLE_LAYER_OVERRIDE, optarg, err, sizeof err); break;
		case 'a': lrc = sample_parse_layer(&st, SAMPLE_LAYER_ADDITIVE, optarg, err, sizeof err); break;
		case 'k': lrc = sample_parse_mask(&st, optarg, err, sizeof err); break;
		case 'f': lrc = sample_parse_ref(&st, optarg, err, sizeof err); break;
		case 'm': mesh_path = optarg; break;
		case 'c': q.clip = optarg; break;
		case 's': space = optarg; break;
		case 'j': json = 1; break;
		case 'B': q.bind = 1; break;
		case 'W': q.weights = 1; break;
		case 't':
			if (sample_parse_time(optarg, &q.time) < 0) {
				fprintf(stderr, "animd sample: --time needs a number of seconds, not \"%s\"\n", optarg);
				rc = EXIT_USAGE;
				goto out;
			}
			have_time = 1;
			break;
		case 'l':
			if (sample_loop_parse(optarg, &q.loop) < 0) {
				fprintf(stderr, "animd sample: --loop is loop, once or pingpong, not \"%s\"\n", optarg);
				rc = EXIT_USAGE;
				goto out;
			}
			q.loop_set = 1;
			break;
		case 'r':
			if (sample_root_motion_parse(optarg, &q.root_motion) < 0) {
				fprintf(stderr, "animd sample: --root-motion is raw or in_place, not \"%s\"\n", optarg);
				rc = EXIT_USAGE;
				goto out;
			}
			break;
		case 'h': sample_usage(stdout); rc = 0; goto out;
		default: sample_usage(stderr); rc = EXIT_USAGE; goto out;
		}
		if (lrc == -ENOENT) {
			fprintf(stderr, "%s\n", err);
			goto out;
		}
		if (lrc < 0) {
			fprintf(stderr, "animd sample: %s\n", err);
			rc = EXIT_USAGE;
			goto out;
		}
	}
	if (optind != argc - 1 || have_time == q.bind) {
		if (!have_time && !q.bind)
			fprintf(stderr, "animd sample: --time is required (or --bind)\n");
		sample_usage(stderr);
		rc = EXIT_USAGE;
		goto out;
	}
	if (q.bind && (q.clip != NULL || q.loop_set || q.root_motion != ROOT_RAW || st.count > 0)) {
		fprintf(stderr, "animd sample: --bind takes no --clip, --loop, --root-motion or layers\n");
		rc = EXIT_USAGE;
		goto out;
	}
	if (asset_load_file(argv[optind], 0, &a, err, sizeof err) < 0 ||
	    (mesh_path != NULL && asset_load_file(mesh_path, 0, &mesh, err, sizeof err) < 0)) {
		fprintf(stderr, "%s\n", err);
		goto out;
	}
	q.asset = a;
	q.mesh = mesh;
	q.layers = st.layers;
	q.layer_count = st.count;
	q.space = sample_default_space(a);
	if (space != NULL && sample_space_parse(space, &q.space) < 0) {
		fprintf(stderr, "animd sample: --space is local, model, skin, vertices, camera, emitters, attachments or weights, not \"%s\"\n", space);
		rc = EXIT_USAGE;
		goto out;
	}
	if (q.weights && q.space != SPACE_VERTICES) {
		fprintf(stderr, "animd sample: --skin-weights come with --space vertices\n");
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
	for (uint32_t i = 0; i < st.count; i++)
		asset_free(st.files[i]);
	free(st.mask_joints);
	free(st.mask_weights);
	asset_free(a);
	asset_free(mesh);
	return rc;
}
