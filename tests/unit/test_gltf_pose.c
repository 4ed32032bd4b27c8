/*
 * glTF poses worked out by hand (the numbers in the comments), through the
 * whole load and the sampler: node hierarchies with LINEAR translations and
 * slerped rotations, STEP, CUBICSPLINE with its tangents scaled by the key
 * interval (unscaled tangents give other numbers: the test would see it),
 * a cubic rotation normalised after interpolation; skinning by
 * global(joint) * inverseBindMatrix with the mesh node's own transform
 * ignored and weights normalised; morph targets on positions and normals,
 * their weights from the clip (LINEAR and CUBICSPLINE, the file's layout of
 * one key's in-tangents, values and out-tangents for every target) or from
 * the mesh's defaults; displacements taken through the inverse bind
 * matrix into the joint's space; a matrix node with a shear kept exact;
 * two skins sharing a joint; clips named, unnamed and found by "#N".
 */
#include "tests/unit/gltf_expect.h"

#define S45 0.70710678f

/* Floats as an accessor (the writer copies them). */
#define FLOATS(w, type, ...) \
	gltfw_floats(w, (const float[]){ __VA_ARGS__ }, \
		     (uint32_t)(sizeof((const float[]){ __VA_ARGS__ }) / sizeof(float) / \
				type_floats(type)), type)

static uint32_t type_floats(const char *type)
{
	return strcmp(type, "SCALAR") == 0 ? 1 : strcmp(type, "VEC2") == 0 ? 2
	       : strcmp(type, "VEC3") == 0 ? 3 : strcmp(type, "VEC4") == 0 ? 4 : 16;
}

static void channel(struct gltfw *w, const char *name, int in, int out, const char *interp,
		    int node, const char *path)
{
	gltfw_add(w, "animations", "{\"name\": \"%s\", \"samplers\": [{\"input\": %d, \"output\": %d, "
		  "\"interpolation\": \"%s\"}], \"channels\": [{\"sampler\": 0, \"target\": "
		  "{\"node\": %d, \"path\": \"%s\"}}]}", name, in, out, interp, node, path);
}

/* root translates (0,0,0) -> (4,0,0) over 2 s; its child arm, 2 above it,
 * turns 0 -> 90 degrees about z.  At 1 s: root at x 2, the arm at (2, 2, 0)
 * turned 45 degrees. */
static void test_hierarchy_linear(void **state)
{
	struct gltfw *w = gltfw_new();
	struct asset *a;
	struct sample_result r;
	int in, tr, rot;

	(void)state;
	in = FLOATS(w, "SCALAR", 0, 2);
	tr = FLOATS(w, "VEC3", 0, 0, 0, 4, 0, 0);
	rot = FLOATS(w, "VEC4", 0, 0, 0, 1, 0, 0, S45, S45);
	gltfw_add(w, "nodes", "{\"name\": \"root\", \"children\": [1]}");
	gltfw_add(w, "nodes", "{\"name\": \"arm\", \"translation\": [0, 2, 0]}");
	gltfw_add(w, "scenes", "{\"nodes\": [0]}");
	gltfw_add(w, "animations", "{\"name\": \"swing\", \"samplers\": [{\"input\": %d, \"output\": "
		  "%d}, {\"input\": %d, \"output\": %d}], \"channels\": [{\"sampler\": 0, \"target\": "
		  "{\"node\": 0, \"path\": \"translation\"}}, {\"sampler\": 1, \"target\": {\"node\": "
		  "1, \"path\": \"rotation\"}}]}", in, tr, in, rot);
	a = gx_load_writer(w, GLTFW_EMBEDDED);
	assert_string_equal(a->skeleton->names[1], "arm");
	assert_int_equal(a->skeleton->parents[1], 0);
	gx_near(time_to_seconds(a->clips[0]->duration_ns), 2, 1e-9f, "duration");
	gx_sample(a, "swing", 1.0, SPACE_MODEL, &r);
	gx_near(r.mats[0].m[0][3], 2, 1e-6f, "root x");
	gx_near(r.mats[1].m[0][3], 2, 1e-6f, "arm x");
	gx_near(r.mats[1].m[1][3], 2, 1e-6f, "arm y");
	gx_near(r.mats[1].m[0][0], S45, 1e-6f, "arm's x axis, x");
	gx_near(r.mats[1].m[1][0], S45, 1e-6f, "arm's x axis, y");
	sample_result_free(&r);
	/* Past the end (played once): the last keys hold. */
	gx_sample(a, "swing", 5.0, SPACE_MODEL, &r);
	gx_near(r.mats[1].m[0][3], 4, 1e-6f, "arm x at the end");
	gx_near(r.mats[1].m[1][0], 1, 1e-6f, "turned 90 degrees");
	sample_result_free(&r);
	asset_free(a);
	gltfw_free(w);
}

/* STEP holds each key until the next. */
static void test_step(void **state)
{
	struct gltfw *w = gltfw_new();
	struct asset *a;
	struct sample_result r;

	(void)state;
	gltfw_add(w, "nodes", "{}");
	channel(w, "grow", FLOATS(w, "SCALAR", 0, 1), FLOATS(w, "VEC3", 1, 1, 1, 2, 3, 4), "STEP", 0,
		"scale");
	a = gx_load_writer(w, GLTFW_GLB);
	gx_sample(a, "grow", 0.999, SPACE_LOCAL, &r);
	gx_near(r.local[0].s.y, 1, 0, "held");
	sample_result_free(&r);
	gx_sample(a, "grow", 1.0, SPACE_LOCAL, &r);
	gx_near(r.local[0].s.y, 3, 0, "the next key");
	sample_result_free(&r);
	asset_free(a);
	gltfw_free(w);
}

/*
 * CUBICSPLINE: keys at 0 and 2 s (t_d = 2); x goes 0 -> 1 leaving the first
 * key at 1 unit per second (b0 = 1), arriving flat (a1 = 0).  With s the
 * interval's fraction, p = h10(s) * t_d * b0 + h01(s) * 1:
 *   at 1 s (s = 1/2): 0.125 * 2 + 0.5 = 0.75 (0.625 with the tangent unscaled);
 *   at 0.5 s (s = 1/4): 0.140625 * 2 + 0.15625 = 0.4375.
 * A rotation from identity to 90 degrees about z with zero tangents is the
 * average at s = 1/2, (0, 0, 0.354, 0.854), normalised: 45 degrees.
 */
static void test_cubic(void **state)
{
	struct gltfw *w = gltfw_new();
	struct asset *a;
	struct sample_result r;
	int in;

	(void)state;
	in = FLOATS(w, "SCALAR", 0, 2);
	gltfw_add(w, "nodes", "{}");
	gltfw_add(w, "nodes", "{}");
	gltfw_add(w, "animations", "{\"samplers\": [{\"input\": %d, \"output\": %d, \"interpolation\": "
		  "\"CUBICSPLINE\"}, {\"input\": %d, \"output\": %d, \"interpolation\": "
		  "\"CUBICSPLINE\"}], \"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, "
		  "\"path\": \"translation\"}}, {\"sampler\": 1, \"target\": {\"node\": 1, \"path\": "
		  "\"rotation\"}}]}", in,
		  FLOATS(w, "VEC3", 0, 0, 0, 0, 0, 0, 1, 0, 0, /* key 0: a, v, b */
			 0, 0, 0, 1, 0, 0, 0, 0, 0),     /* key 1 */
		  in,
		  FLOATS(w, "VEC4", 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
			 0, 0, 0, 0, 0, 0, S45, S45, 0, 0, 0, 0));
	a = gx_load_writer(w, GLTFW_EXTERNAL);
	gx_sample(a, "0", 1.0, SPACE_LOCAL, &r);
	gx_near(r.local[0].t.x, 0.75f, 1e-6f, "x at 1 s");
	gx_near(r.local[1].r.z, 0.38268343f, 1e-6f, "rotation z");
	gx_near(r.local[1].r.w, 0.92387953f, 1e-6f, "rotation w");
	sample_result_free(&r);
	gx_sample(a, "#0", 0.5, SPACE_LOCAL, &r);
	gx_near(r.local[0].t.x, 0.4375f, 1e-6f, "x at 0.5 s");
	sample_result_free(&r);
	gx_sample(a, "0", 2.0, SPACE_LOCAL, &r);
	gx_near(r.local[0].t.x, 1, 0, "the last value");
	sample_result_free(&r);
	asset_free(a);
	gltfw_free(w);
}

/*
 * Skinning: j0 at the origin, j1 at (1, 0, 0) with inverse bind T(-1, 0, 0);
 * a vertex at (2, 0, 0) weighed 1 and 1 (normalised: 1/2 each).  j1 turns
 * 90 degrees about z at 1 s: its skin matrix T(1,0,0) R T(-1,0,0) takes the
 * vertex to (1, 1, 0), j0 leaves it at (2, 0, 0): (1.5, 0.5, 0).  The mesh
 * node's translation (100, 0, 0) is ignored (3.7.3.3).  j1's skin matrix's
 * translation is R (-1, 0, 0) + (1, 0, 0) = (1, -1, 0).
 */
static void test_skin(void **state)
{
	struct gltfw *w = gltfw_new();
	struct asset *a;
	struct sample_result r;
	int pos, joints, weights, ibm;

	(void)state;
	pos = FLOATS(w, "VEC3", 2, 0, 0, 0, 0, 0, 0, 1, 0);
	joints = gltfw_uints(w, (const uint32_t[]){ 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0 }, 3, "VEC4",
			     5121);
	weights = gltfw_accessor(w, (const float[]){ 1, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 }, 3, "VEC4",
				 5126, false, 0);
	ibm = FLOATS(w, "MAT4", 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
		     1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1);
	gltfw_add(w, "nodes", "{\"name\": \"j0\", \"children\": [1]}");
	gltfw_add(w, "nodes", "{\"name\": \"j1\", \"translation\": [1, 0, 0]}");
	gltfw_add(w, "nodes", "{\"name\": \"body\", \"mesh\": 0, \"skin\": 0, \"translation\": "
		  "[100, 0, 0]}");
	gltfw_add(w, "skins", "{\"joints\": [0, 1], \"inverseBindMatrices\": %d}", ibm);
	gltfw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d, \"JOINTS_0\": "
		  "%d, \"WEIGHTS_0\": %d}}]}", pos, joints, weights);
	channel(w, "bend", FLOATS(w, "SCALAR", 0, 1), FLOATS(w, "VEC4", 0, 0, 0, 1, 0, 0, S45, S45),
		"LINEAR", 1, "rotation");
	a = gx_load_writer_as(w, GLTFW_GLB, false);  /* weights summing to 2 */
	gx_noted(a, "vertex 0's weights sum to 2, not 1: normalised");
	gx_sample(a, "bend", 1.0, SPACE_VERTICES, &r);
	gx_near(r.positions[0][0].x, 1.5f, 1e-6f, "x");
	gx_near(r.positions[0][0].y, 0.5f, 1e-6f, "y");
	/* (0, 1, 0) on j1 alone: (-1, 1, 0) from j1, turned: (-1, -1, 0), from
	 * j1 again: (0, -1, 0). */
	gx_near(r.positions[0][2].x, 0, 1e-6f, "x of a vertex on j1");
	gx_near(r.positions[0][2].y, -1, 1e-6f, "y of a vertex on j1 (turned about (1,0,0))");
	sample_result_free(&r);
	gx_sample(a, "bend", 1.0, SPACE_SKIN, &r);
	gx_near(r.mats[1].m[0][3], 1, 1e-6f, "skin x");
	gx_near(r.mats[1].m[1][3], -1, 1e-6f, "skin y");
	sample_result_free(&r);
	/* At rest the skin matrices are the identity: the vertex is where the
	 * file put it, not at the mesh node. */
	gx_sample(a, "bend", 0.0, SPACE_VERTICES, &r);
	gx_near(r.positions[0][0].x, 2, 1e-6f, "rest x");
	sample_result_free(&r);
	asset_free(a);
	gltfw_free(w);
}

/*
 * Morph targets on a mesh that follows its node (at z 5): vertex 1 moves up
 * 2 with target 0, vertex 2 right 3 with target 1.  mesh.weights [0.5, 0]
 * hold without a clip: vertex 1 at (1, 1, 5).  The clip takes both weights
 * 0 -> 1 over 1 s: at 0.5 s vertex 1 at (1, 1, 5), vertex 2 at (1.5, 1, 5).
 * The same weights as a cubic spline (each key: both in-tangents, both
 * values, both out-tangents), tangents zero: halfway, the values' average.
 */
static void morph_doc(struct gltfw *w, bool cubic)
{
	int pos = FLOATS(w, "VEC3", 0, 0, 0, 1, 0, 0, 0, 1, 0);
	int nrm = FLOATS(w, "VEC3", 0, 0, 1, 0, 0, 1, 0, 0, 1);
	int d0 = FLOATS(w, "VEC3", 0, 0, 0, 0, 2, 0, 0, 0, 0);
	int d1 = gltfw_sparse(w, NULL, 3, "VEC3", 1, (const uint32_t[]){ 2 }, 5121,
			      (const float[]){ 3, 0, 0 });
	int n0 = FLOATS(w, "VEC3", 0, 0, 0, 1, 0, 0, 0, 0, 0);
	int in = FLOATS(w, "SCALAR", 0, 1);
	int out = cubic ? FLOATS(w, "SCALAR", 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0)
			: FLOATS(w, "SCALAR", 0, 0, 1, 1);

	gltfw_add(w, "nodes", "{\"name\": \"cube\", \"mesh\": 0, \"translation\": [0, 0, 5]}");
	gltfw_add(w, "meshes", "{\"name\": \"m\", \"weights\": [0.5, 0], \"extras\": {\"targetNames\": "
		  "[\"up\", \"right\"]}, \"primitives\": [{\"attributes\": {\"POSITION\": %d, "
		  "\"NORMAL\": %d}, \"targets\": [{\"POSITION\": %d, \"NORMAL\": %d}, {\"POSITION\": "
		  "%d}]}]}", pos, nrm, d0, n0, d1);
	channel(w, "shape", in, out, cubic ? "CUBICSPLINE" : "LINEAR", 0, "weights");
}

static void test_morph(void **state)
{
	for (int cubic = 0; cubic < 2; cubic++) {
		struct gltfw *w = gltfw_new();
		struct asset *a;
		struct sample_result r;
		struct sample_request q;
		char err[256];

		(void)state;
		morph_doc(w, cubic);
		a = gx_load_writer(w, cubic ? GLTFW_GLB : GLTFW_EXTERNAL);
		assert_int_equal(a->weight_count, 2);
		assert_string_equal(a->weight_names[0], "cube/up");
		assert_string_equal(a->weight_names[1], "cube/right");
		gx_near(a->weights[0], 0.5f, 0, "default");
		gx_sample(a, "shape", 0.5, SPACE_VERTICES, &r);
		gx_near(r.positions[0][1].y, 1, 1e-6f, "vertex 1 y");
		gx_near(r.positions[0][1].z, 5, 1e-6f, "vertex 1 z");
		gx_near(r.positions[0][2].x, 1.5f, 1e-6f, "vertex 2 x");
		/* Vertex 1's normal (0,0,1) + 0.5 (1,0,0), normalised. */
		gx_near(r.normals[0][1].x, 0.4472136f, 1e-6f, "normal x");
		gx_near(r.normals[0][1].z, 0.8944272f, 1e-6f, "normal z");
		sample_result_free(&r);
		gx_sample(a, "shape", 0.5, SPACE_WEIGHTS, &r);
		assert_int_equal(r.weight_count, 2);
		gx_near(r.weights[0], 0.5f, 1e-6f, "weight 0");
		gx_near(r.weights[1], 0.5f, 1e-6f, "weight 1");
		sample_result_free(&r);
		gx_sample(a, "shape", 1.0, SPACE_WEIGHTS, &r);
		gx_near(r.weights[1], 1, 0, "weight 1 at the end");
		sample_result_free(&r);
		/* The weights space is glTF's. */
		memset(&q, 0, sizeof q);
		q.asset = a;
		q.space = SPACE_EMITTERS;
		assert_int_equal(sample_evaluate(&q, &r, err, sizeof err), -EOPNOTSUPP);
		asset_free(a);
		gltfw_free(w);
	}
}

/*
 * Morph and skin together: the joint rests turned 90 degrees about z, its
 * inverse bind matrix the inverse turn; the vertex (1, 0, 0) displaced by
 * (0, 1, 0) at weight 1 is (1, 1, 0) in the bind pose.  At 1 s the joint
 * has turned 180 degrees: the skin matrix is a 90 degree turn, the vertex
 * at (-1, 1, 0).  (A displacement added in the joint's space without the
 * inverse bind matrix would give (0, 0, 0).)
 */
static void test_morph_skinned(void **state)
{
	struct gltfw *w = gltfw_new();
	struct asset *a;
	struct sample_result r;
	int pos, d, joints, weights, ibm;

	(void)state;
	pos = FLOATS(w, "VEC3", 1, 0, 0);
	d = FLOATS(w, "VEC3", 0, 1, 0);
	joints = gltfw_uints(w, (const uint32_t[]){ 0, 0, 0, 0 }, 1, "VEC4", 5123);
	weights = gltfw_accessor(w, (const float[]){ 1, 0, 0, 0 }, 1, "VEC4", 5121, true, 0);
	/* The inverse of a 90 degree turn about z, column-major. */
	ibm = FLOATS(w, "MAT4", 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
	gltfw_add(w, "nodes", "{\"name\": \"j\", \"rotation\": [0, 0, %.9g, %.9g]}", S45, S45);
	gltfw_add(w, "nodes", "{\"mesh\": 0, \"skin\": 0, \"weights\": [1]}");
	gltfw_add(w, "skins", "{\"joints\": [0], \"inverseBindMatrices\": %d}", ibm);
	gltfw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d, \"JOINTS_0\": "
		  "%d, \"WEIGHTS_0\": %d}, \"targets\": [{\"POSITION\": %d}]}]}", pos, joints, weights,
		  d);
	channel(w, "turn", FLOATS(w, "SCALAR", 0, 1),
		FLOATS(w, "VEC4", 0, 0, S45, S45, 0, 0, 1, 0), "LINEAR", 0, "rotation");
	a = gx_load_writer(w, GLTFW_EMBEDDED);
	gx_sample(a, "turn", 0.0, SPACE_VERTICES, &r);
	gx_near(r.positions[0][0].x, 1, 1e-6f, "bind x");
	gx_near(r.positions[0][0].y, 1, 1e-6f, "bind y");
	sample_result_free(&r);
	gx_sample(a, "turn", 1.0, SPACE_VERTICES, &r);
	gx_near(r.positions[0][0].x, -1, 1e-6f, "x");
	gx_near(r.positions[0][0].y, 1, 1e-6f, "y");
	sample_result_free(&r);
	asset_free(a);
	gltfw_free(w);
}

/* A matrix with a shear is no TRS: the joint keeps it exactly where no key
 * moves it. */
static void test_matrix_node(void **state)
{
	static const float m[16] = { 1, 0, 0, 0, 0.5f, 1, 0, 0, 0, 0, 2, 0, 3, 4, 5, 1 };
	struct gltfw *w = gltfw_new();
	struct asset *a;
	struct sample_result r;

	(void)state;
	gltfw_add(w, "nodes", "{\"matrix\": [1, 0, 0, 0, 0.5, 1, 0, 0, 0, 0, 2, 0, 3, 4, 5, 1]}");
	a = gx_load_writer(w, GLTFW_GLB);
	assert_non_null(a->skeleton->rest_not_trs);
	assert_int_equal(a->skeleton->rest_not_trs[0], 1);
	gx_sample(a, NULL, 0, SPACE_MODEL, &r);
	for (int row = 0; row < 3; row++)
		for (int col = 0; col < 4; col++)
			gx_near(r.mats[0].m[row][col], m[col * 4 + row], 0, "exact matrix");
	sample_result_free(&r);
	asset_free(a);
	gltfw_free(w);
}

/*
 * Two skins share the joint j1 with different inverse bind matrices: each
 * mesh follows its own (3.7.3: per skin); the skeleton's skin space takes
 * the first skin's.  Mesh A's vertex (0,0,0) bound with T(-1,0,0) sits at
 * (-1,0,0) relative to j1 at (1,0,0): at the origin.  Mesh B's, with the
 * identity, sits at j1: (1,0,0).
 */
static void test_two_skins(void **state)
{
	struct gltfw *w = gltfw_new();
	struct asset *a;
	struct sample_result r;
	int pos, joints, weights, ibm_a, ibm_b;

	(void)state;
	pos = FLOATS(w, "VEC3", 0, 0, 0);
	joints = gltfw_uints(w, (const uint32_t[]){ 0, 0, 0, 0 }, 1, "VEC4", 5121);
	weights = FLOATS(w, "VEC4", 1, 0, 0, 0);
	ibm_a = FLOATS(w, "MAT4", 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1);
	ibm_b = FLOATS(w, "MAT4", 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
	gltfw_add(w, "nodes", "{\"name\": \"j1\", \"translation\": [1, 0, 0]}");
	gltfw_add(w, "nodes", "{\"name\": \"A\", \"mesh\": 0, \"skin\": 0}");
	gltfw_add(w, "nodes", "{\"name\": \"B\", \"mesh\": 0, \"skin\": 1}");
	gltfw_add(w, "skins", "{\"joints\": [0], \"inverseBindMatrices\": %d}", ibm_a);
	gltfw_add(w, "skins", "{\"joints\": [0], \"inverseBindMatrices\": %d}", ibm_b);
	gltfw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d, \"JOINTS_0\": "
		  "%d, \"WEIGHTS_0\": %d}}]}", pos, joints, weights);
	a = gx_load_writer(w, GLTFW_GLB);
	assert_int_equal(a->mesh_count, 2);
	gx_sample(a, NULL, 0, SPACE_VERTICES, &r);
	gx_near(r.positions[0][0].x, 0, 1e-6f, "mesh A");
	gx_near(r.positions[1][0].x, 1, 1e-6f, "mesh B");
	sample_result_free(&r);
	gx_sample(a, NULL, 0, SPACE_SKIN, &r);
	gx_near(r.mats[0].m[0][3], 0, 1e-6f, "the first skin's");
	sample_result_free(&r);
	asset_free(a);
	gltfw_free(w);
}

/* Animations are clips: by name, by index when unnamed, "#N" always. */
static void test_clip_names(void **state)
{
	struct gltfw *w = gltfw_new();
	struct asset *a;
	int in, out;

	(void)state;
	in = FLOATS(w, "SCALAR", 0, 1);
	out = FLOATS(w, "VEC3", 0, 0, 0, 1, 1, 1);
	gltfw_add(w, "nodes", "{}");
	channel(w, "run", in, out, "LINEAR", 0, "translation");
	gltfw_add(w, "animations", "{\"samplers\": [{\"input\": %d, \"output\": %d}], \"channels\": "
		  "[{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"scale\"}}]}", in, out);
	channel(w, "run", in, out, "STEP", 0, "translation");
	a = gx_load_writer(w, GLTFW_GLB);
	assert_int_equal(a->clip_count, 3);
	assert_string_equal(a->clips[1]->name, "1");
	assert_ptr_equal(asset_find_clip(a, "run"), a->clips[0]);
	assert_ptr_equal(asset_find_clip(a, "1"), a->clips[1]);
	assert_ptr_equal(asset_find_clip(a, "#1"), a->clips[1]);
	assert_ptr_equal(asset_find_clip(a, "#2"), a->clips[2]);
	assert_null(asset_find_clip(a, "#3"));
	assert_null(asset_find_clip(a, "#x"));
	gx_noted(a, "two animations share a name");
	asset_free(a);
	gltfw_free(w);
}

/* Triangles from strips ({v_i, v_(i+1+i%2), v_(i+2-i%2)}: every other one
 * turned back) and fans ({v_(i+1), v_(i+2), v_0}), as 3.7.2.1 lists them;
 * lines keep their vertices and make no triangle. */
static void test_primitive_modes(void **state)
{
	static const uint32_t strip[3][3] = { { 0, 1, 2 }, { 1, 3, 2 }, { 2, 3, 4 } };
	static const uint32_t fan[3][3] = { { 1, 2, 0 }, { 2, 3, 0 }, { 3, 4, 0 } };
	struct gltfw *w = gltfw_new();
	struct asset *a;
	int pos;

	(void)state;
	pos = FLOATS(w, "VEC3", 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0);
	gltfw_add(w, "nodes", "{\"mesh\": 0}");
	gltfw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d}, \"mode\": 5}, "
		  "{\"attributes\": {\"POSITION\": %d}, \"mode\": 6, \"indices\": %d}, "
		  "{\"attributes\": {\"POSITION\": %d}, \"mode\": 1}]}", pos, pos,
		  gltfw_uints(w, (const uint32_t[]){ 0, 1, 2, 3, 4 }, 5, "SCALAR", 5125), pos);
	a = gx_load_writer(w, GLTFW_GLB);
	assert_int_equal(a->mesh_count, 3);
	assert_int_equal(a->meshes[0]->triangle_count, 3);
	assert_int_equal(a->meshes[1]->triangle_count, 3);
	assert_int_equal(a->meshes[2]->triangle_count, 0);
	for (int t = 0; t < 3; t++)
		for (int k = 0; k < 3; k++) {
			assert_int_equal(a->meshes[0]->triangles[t][k], strip[t][k]);
			assert_int_equal(a->meshes[1]->triangles[t][k], fan[t][k]);
		}
	asset_free(a);
	gltfw_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hierarchy_linear),
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_cubic),
		cmocka_unit_test(test_skin),
		cmocka_unit_test(test_morph),
		cmocka_unit_test(test_morph_skinned),
		cmocka_unit_test(test_matrix_node),
		cmocka_unit_test(test_two_skins),
		cmocka_unit_test(test_clip_names),
		cmocka_unit_test(test_primitive_modes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
