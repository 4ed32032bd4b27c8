/*
 * Conformance on real glTF files from ../shared/testdata/gltf (skipped when
 * absent):
 *  - every file exporters wrote (Blender, 3ds Max's Babylon exporter,
 *    Sketchfab, Godot's Blender export, KayKit, Kenney's UnityGLTF, Khronos'
 *    samples, tinygltf) loads as an asset and evaluates, in every space it
 *    has, in every clip at many times, to finite poses; the facts each file
 *    is there for hold (its joints, clips, repeated key times, morph weights,
 *    sparse accessors, a skeleton root that is no scene root, an animation
 *    without a mesh, unused texture files);
 *  - the Khronos glTF-Validator's broken files: those that break a bound
 *    (or whose data is not shipped with them) are refused at the place at
 *    fault, the others load with a note saying what they break;
 *  - SimpleSkin's vertices at rest and at 1 s, worked out by hand from
 *    the file's numbers (below).
 */
#include "tests/unit/gltf_expect.h"

#include <sys/stat.h>

#include "tests/support/testdata.h"

static const char *const valid[] = {
	"gltf/babylon-3dsmax/RiggedFigure.gltf",
	"gltf/blender-io/01_cs_morph.gltf",
	"gltf/blender-io/01_cs_rotate.gltf",
	"gltf/godot/platformer_player.glb",
	"gltf/kaykit/Med_General.glb",
	"gltf/kenney/character-ghost.glb",
	"gltf/khronos/AnimatedMorphCube/AnimatedMorphCube.gltf",
	"gltf/khronos/SimpleSkin.gltf",
	"gltf/khronos/SimpleSparseAccessor.gltf",
	"gltf/sketchfab-poringu/scene.gltf",
	"gltf/tinygltf/singleBlendshapeCube_sparse.glb",
	"gltf/unitygltf/SimpleAnimation.glb",
};

/* The validator's files: the place of the refusal ("" for a file that
 * loads) and a fragment of its message (or of a note). */
static const struct {
	const char *file;
	const char *where;
	const char *what;
} validator[] = {
	{ "accessor_data/out_of_range_elements_float.gltf", "",
	  "a buffer that is not there" },
	{ "animation/sampler_too_few_cubic_frames.gltf", "", "a cubic spline of one key holds its value" },
	{ "animation/unresolved_channel_sampler.gltf", ":15:32",
	  "/animations/0/channels/0/sampler: 1 names no sampler of this animation" },
	/* Its .bin is not shipped: the rotations it checks cannot be read. */
	{ "animation_data/quaternion_non_unit_values.gltf", ":56:20",
	  "holds data animd reads, but" },
	{ "buffer/not_found.gltf", "", "a buffer that is not there" },
	{ "buffer_view/invalid_length.gltf", ":14:27",
	  "/bufferViews/0/byteLength: bytes 0..5 lie past the end of buffer 0 (byteLength 4)" },
	{ "glb/invalid_magic.glb", ": offset 0x0", "neither a GLB" },
	{ "glb/length_mismatch.glb", ": offset 0x8", "the GLB says it is 49 bytes; the file has 48" },
	{ "glb/truncated_chunk_header.glb", ": offset 0xc", "chunk 0's header is 8 bytes" },
	{ "json/invalid_syntax.gltf", ":1:2", "JSON:" },
	{ "mesh_data/index_buffer_oob.gltf", ":51:20", "holds data animd reads, but" },
	{ "mesh_data/joints_weights_complex.gltf", ":105:20", "holds data animd reads, but" },
	{ "node/node_loop.gltf", ":7:25", "is part of a cycle" },
	{ "node/rotation_non_unit.gltf", "", "a rotation of length 2, not a unit quaternion" },
	{ "scene/unresolved_node.gltf", ":7:23", "/scenes/0/nodes/0: 0 names no node" },
	{ "skin/ibm_invalid_count.gltf", ":23:36", "accessor 0 has 2 matrices for 3 joints" },
};

static struct asset *load(const char *rel, char *err, size_t errlen)
{
	struct asset *a = NULL;
	const char *path = testdata_path(rel);

	return gx_load_file_raw(path, &a, err, errlen) == 0 ? a : NULL;
}

static void assert_finite(const float *v, size_t n, const char *what, const char *file)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			fail_msg("%s: %s value %zu is not finite", file, what, i);
}

static void check_spaces(const struct asset *a, const char *rel)
{
	static const enum sample_space spaces[] = { SPACE_LOCAL, SPACE_MODEL, SPACE_SKIN,
						    SPACE_VERTICES, SPACE_WEIGHTS };
	uint32_t clips = a->clip_count ? a->clip_count : 1;

	for (uint32_t c = 0; c < clips; c++) {
		double len = a->clip_count ? time_to_seconds(a->clips[c]->duration_ns) : 0;

		for (int k = 0; k <= 8; k++)
			for (size_t s = 0; s < sizeof spaces / sizeof spaces[0]; s++) {
				struct sample_request q = { .asset = a, .space = spaces[s],
							    .time = len * k / 8 + 0.001 * k };
				struct sample_result r;
				char err[512], name[16];

				if (spaces[s] == SPACE_VERTICES && a->mesh_count == 0)
					continue;
				snprintf(name, sizeof name, "#%u", c);
				q.clip = a->clip_count ? name : NULL;
				if (sample_evaluate(&q, &r, err, sizeof err) != 0)
					fail_msg("%s: %s", rel, err);
				if (r.local != NULL)
					assert_finite(&r.local[0].t.x, (size_t)r.skeleton->joint_count * 10,
						      "local", rel);
				if (r.mats != NULL)
					assert_finite(&r.mats[0].m[0][0], (size_t)r.skeleton->joint_count * 12,
						      "matrix", rel);
				for (uint32_t m = 0; m < r.mesh_count; m++) {
					assert_finite(&r.positions[m][0].x,
						      (size_t)r.meshes[m]->vertex_count * 3, "vertex", rel);
					if (r.normals[m] != NULL)
						assert_finite(&r.normals[m][0].x,
							      (size_t)r.meshes[m]->vertex_count * 3,
							      "normal", rel);
				}
				if (r.weights != NULL)
					assert_finite(r.weights, r.weight_count, "weight", rel);
				sample_result_free(&r);
			}
	}
}

static void test_valid_files(void **state)
{
	(void)state;
	if (testdata_dir() == NULL)
		skip();
	for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
		char err[1024];
		struct asset *a = load(valid[i], err, sizeof err);

		if (a == NULL)
			fail_msg("%s", err);
		assert_int_equal(a->format, ASSET_FORMAT_GLTF);
		assert_non_null(a->skeleton);
		check_spaces(a, valid[i]);
		asset_free(a);
	}
}

/* What each file is there for. */
static void test_facts(void **state)
{
	struct asset *a;
	char err[1024];

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	/* Sketchfab repeats key times in 52 of its 60 samplers: noted, loaded. */
	a = load("gltf/sketchfab-poringu/scene.gltf", err, sizeof err);
	assert_non_null(a);
	gx_noted(a, "repeats the time of the key before it");
	assert_int_equal(a->clip_count, 1);
	gx_near((float)time_to_seconds(a->clips[0]->duration_ns), 15, 1e-6f, "Take 001");
	asset_free(a);
	/* Godot's Blender export: 8 animations, 27 joints in a skin whose
	 * root is no scene root, 8-bit joints. */
	a = load("gltf/godot/platformer_player.glb", err, sizeof err);
	assert_non_null(a);
	assert_int_equal(a->clip_count, 8);
	assert_string_equal(a->clips[7]->name, "walk");
	assert_int_equal(a->skeleton->joint_count, 29);
	asset_free(a);
	/* KayKit: an animation file, a skeleton without a mesh. */
	a = load("gltf/kaykit/Med_General.glb", err, sizeof err);
	assert_non_null(a);
	assert_int_equal(a->mesh_count, 0);
	assert_int_equal(a->clip_count, 15);
	asset_free(a);
	/* Morph weights: AnimatedMorphCube's two, animated; tinygltf's sparse
	 * target; Blender's cubic weights, named by their shape key. */
	a = load("gltf/khronos/AnimatedMorphCube/AnimatedMorphCube.gltf", err, sizeof err);
	assert_non_null(a);
	assert_int_equal(a->weight_count, 2);
	assert_int_equal(a->companion_count, 1);
	assert_int_equal(a->companions[0].status, ASSET_COMPANION_FOUND);
	asset_free(a);
	a = load("gltf/blender-io/01_cs_morph.gltf", err, sizeof err);
	assert_non_null(a);
	assert_int_equal(a->weight_count, 1);
	assert_string_equal(a->weight_names[0], "Cube/Stretch");
	asset_free(a);
	a = load("gltf/tinygltf/singleBlendshapeCube_sparse.glb", err, sizeof err);
	assert_non_null(a);
	assert_int_equal(a->weight_count, 1);
	asset_free(a);
	/* Kenney's textures are beside the file; nothing reads them. */
	a = load("gltf/kenney/character-ghost.glb", err, sizeof err);
	assert_non_null(a);
	assert_int_equal(a->clip_count, 32);
	gx_noted(a, "KHR_texture_transform");
	asset_free(a);
}

static void test_validator_files(void **state)
{
	(void)state;
	if (testdata_dir() == NULL)
		skip();
	for (size_t i = 0; i < sizeof validator / sizeof validator[0]; i++) {
		char rel[256], err[1024], want[1024];
		struct asset *a;

		snprintf(rel, sizeof rel, "gltf/validator/%s", validator[i].file);
		a = load(rel, err, sizeof err);
		if (validator[i].where[0] == '\0') {
			if (a == NULL)
				fail_msg("%s: refused: %s", rel, err);
			gx_noted(a, validator[i].what);
			check_spaces(a, rel);
			asset_free(a);
			continue;
		}
		if (a != NULL)
			fail_msg("%s: loaded", rel);
		snprintf(want, sizeof want, "%s%s: error: ", testdata_path(rel), validator[i].where);
		if (strncmp(err, want, strlen(want)) != 0 || strstr(err, validator[i].what) == NULL)
			fail_msg("%s: got \"%s\", expected \"%s...%s\"", rel, err, want,
				 validator[i].what);
	}
}

/*
 * SimpleSkin (the specification's skinning example, 3.7.3): node 0 holds
 * the mesh and the skin; node 1 (joint 0) sits at (0, 1, 0) under it, node
 * 2 (joint 1) under node 1 without an offset; both inverse bind matrices
 * are T(-0.5, -1, 0).  So at rest joint 0's skin matrix is T(-0.5, 0, 0):
 * vertex 0 (0, 0, 0), all its weight on joint 0, is at (-0.5, 0, 0), and
 * the top-left vertex (0, 2, 0), all its weight on joint 1, at (-0.5, 2, 0).
 * The animation turns node 2 about z; its key at 1 s is (0, 0, 0.707,
 * 0.707): 90 degrees once normalised.  Joint 1's skin matrix is then
 * T(0, 1, 0) R90 T(-0.5, -1, 0): (0, 2, 0) -> (-0.5, 1) -> (-1, -0.5) ->
 * (-1, 0.5, 0).  Vertex 0 does not move.
 */
static void test_simple_skin(void **state)
{
	struct asset *a;
	struct sample_result r;
	char err[1024];
	int top = -1;

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	a = load("gltf/khronos/SimpleSkin.gltf", err, sizeof err);
	assert_non_null(a);
	gx_sample(a, "0", 0.0, SPACE_VERTICES, &r);
	for (uint32_t v = 0; v < r.meshes[0]->vertex_count; v++)
		if (r.positions[0][v].x == -0.5f && r.positions[0][v].y == 2.0f)
			top = (int)v;
	gx_near(r.positions[0][0].x, -0.5f, 0, "vertex 0 x");
	sample_result_free(&r);
	assert_true(top >= 0);
	gx_sample(a, "0", 1.0, SPACE_VERTICES, &r);
	gx_near(r.positions[0][0].x, -0.5f, 1e-6f, "vertex 0 x at 1 s");
	gx_near(r.positions[0][0].y, 0, 1e-6f, "vertex 0 y at 1 s");
	gx_near(r.positions[0][top].x, -1, 1e-6f, "top x");
	gx_near(r.positions[0][top].y, 0.5f, 1e-6f, "top y");
	sample_result_free(&r);
	asset_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_files),
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_validator_files),
		cmocka_unit_test(test_simple_skin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
