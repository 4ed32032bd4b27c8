/*
 * The glTF reader (formats/gltf): the three containers give one document;
 * every component type, normalised or not, every accessor type (matrix
 * columns padded), strides, sparse substitution over a base and over
 * zeros, decode as the specification's tables say; every error is refused
 * at its place (the JSON's line and column, the GLB's offset, the .bin's
 * offset) with its reason; what is plain or feeds nothing is a located
 * note and the file loads; buffer URIs stay inside the asset's root.
 */
#include "tests/unit/gltf_expect.h"

#include "daemon/assets/asset_gltf.h"
#include "daemon/formats/gltf/gltf.h"

/* A model parsed and finished from a writer's GLB, kept for the
 * glTF-Validator as conforming or not (gltfw_keep). */
static struct gltf_model *parse_writer(const struct gltfw *w, unsigned char **glb,
				       bool conforming)
{
	struct gltf_model *m = NULL;
	struct diag d = { 0 };
	size_t n;

	gltfw_keep(w, conforming);
	gltfw_glb(w, glb, &n);
	if (gltf_parse(*glb, n, &m, &d) != 0 || gltf_finish(m, n, &d) != 0)
		fail_msg("parse: %s", d.msg);
	return m;
}

/* Every component type, normalised and not, through one accessor each
 * (used as an animation output so that the reader reads them). */
static void test_components(void **state)
{
	static const struct { uint32_t component; bool normalized; float in[4]; float want[4]; } c[] = {
		{ 5120, true, { -1, -0.5f, 0.25f, 1 }, { -1, -64 / 127.0f, 32 / 127.0f, 1 } },
		{ 5121, true, { 0, 0.5f, 0.25f, 1 }, { 0, 128 / 255.0f, 64 / 255.0f, 1 } },
		{ 5122, true, { -1, -0.5f, 0.25f, 1 }, { -1, -16384 / 32767.0f, 8192 / 32767.0f, 1 } },
		{ 5123, true, { 0, 0.5f, 0.25f, 1 }, { 0, 32768 / 65535.0f, 16384 / 65535.0f, 1 } },
		{ 5120, false, { -3, 4, 0, 1 }, { -3, 4, 0, 1 } },
		{ 5121, false, { 200, 4, 0, 1 }, { 200, 4, 0, 1 } },
		{ 5122, false, { -300, 4, 0, 1 }, { -300, 4, 0, 1 } },
		{ 5123, false, { 60000, 4, 0, 1 }, { 60000, 4, 0, 1 } },
		{ 5125, false, { 70000, 4, 0, 1 }, { 70000, 4, 0, 1 } },
		{ 5126, false, { 0.1f, -2, 3.5f, 1 }, { 0.1f, -2, 3.5f, 1 } },
	};
	struct gltfw *w = gltfw_new();
	float t = 0;
	int in = gltfw_floats(w, &t, 1, "SCALAR"), acc[10];
	struct gltf_model *m;
	unsigned char *glb;

	(void)state;
	gltfw_add(w, "nodes", "{}");
	for (int i = 0; i < 10; i++) {
		acc[i] = gltfw_accessor(w, c[i].in, 1, "VEC4", c[i].component, c[i].normalized,
					i % 3 == 0 ? 20 : 0);
		gltfw_add(w, "animations", "{\"samplers\": [{\"input\": %d, \"output\": %d}], "
			  "\"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": "
			  "\"rotation\"}}]}", in, acc[i]);
	}
	/* Integer rotations and strided outputs are outside the
	 * specification on purpose: the decoder reads them all. */
	m = parse_writer(w, &glb, false);
	for (int i = 0; i < 10; i++) {
		float v[4];

		gltf_accessor_floats(m, (uint32_t)acc[i], v);
		for (int k = 0; k < 4; k++)
			gx_near(v[k], c[i].want[k], 1e-6f, "component");
	}
	gltf_model_free(m);
	free(glb);
	gltfw_free(w);
}

/* MAT2 and MAT3 of bytes and shorts pad each column to 4 bytes; the values
 * come back column by column. */
static void test_matrix_padding(void **state)
{
	static const float m2[4] = { 1, 2, 3, 4 }, m3[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	struct gltfw *w = gltfw_new();
	int a[4];
	struct gltf_model *m;
	unsigned char *glb;
	struct gltf_accessor acc;

	(void)state;
	a[0] = gltfw_accessor(w, m2, 1, "MAT2", 5120, false, 0);
	a[1] = gltfw_accessor(w, m3, 1, "MAT3", 5121, false, 0);
	a[2] = gltfw_accessor(w, m3, 1, "MAT3", 5122, false, 0);
	a[3] = gltfw_accessor(w, m3, 1, "MAT3", 5126, false, 0);
	/* Inverse bind matrices read them all; only a MAT4 float is one, so
	 * the others are read here through a skin-less route: the reader's
	 * decode itself, after marking them used by hand. */
	m = parse_writer(w, &glb, true);
	acc = m->accessors[a[0]];
	assert_int_equal(acc.elem_bytes, 8);
	assert_int_equal(m->accessors[a[1]].elem_bytes, 12);
	assert_int_equal(m->accessors[a[2]].elem_bytes, 24);
	assert_int_equal(m->accessors[a[3]].elem_bytes, 36);
	for (int i = 0; i < 4; i++) {
		float v[9];
		unsigned n = i == 0 ? 4 : 9;

		gltf_accessor_floats(m, (uint32_t)a[i], v);
		for (unsigned k = 0; k < n; k++)
			gx_near(v[k], i == 0 ? m2[k] : m3[k], 0, "matrix element");
	}
	gltf_model_free(m);
	free(glb);
	gltfw_free(w);
}

/* Sparse over a base and over zeros; an index past the count and indices
 * that do not increase are refused at their bytes. */
static void test_sparse(void **state)
{
	static const float base[12] = { 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4 };
	static const float vals[6] = { 9, 8, 7, 6, 5, 4 };
	static const uint32_t idx[2] = { 1, 3 };
	struct gltfw *w = gltfw_new();
	float t = 0, v[12];
	int a0, a1, in;
	struct gltf_model *m;
	unsigned char *glb;

	(void)state;
	in = gltfw_floats(w, &t, 1, "SCALAR");
	a0 = gltfw_sparse(w, base, 4, "VEC3", 2, idx, 5123, vals);
	a1 = gltfw_sparse(w, NULL, 4, "VEC3", 2, idx, 5121, vals);
	gltfw_add(w, "nodes", "{\"mesh\": 0}");
	gltfw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d, \"_SPARSE\": "
		  "%d}, \"mode\": 0}]}", a0, a1);
	(void)in;
	m = parse_writer(w, &glb, true);
	gltf_accessor_floats(m, (uint32_t)a0, v);
	for (int k = 0; k < 12; k++) {
		static const float want[12] = { 1, 1, 1, 9, 8, 7, 3, 3, 3, 6, 5, 4 };

		gx_near(v[k], want[k], 0, "sparse over a base");
	}
	gltf_accessor_floats(m, (uint32_t)a1, v);
	for (int k = 0; k < 12; k++) {
		static const float want[12] = { 0, 0, 0, 9, 8, 7, 0, 0, 0, 6, 5, 4 };

		gx_near(v[k], want[k], 0, "sparse over zeros");
	}
	gltf_model_free(m);
	free(glb);
	gltfw_free(w);
}

static const char *const ok_doc = "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{}]}";

/* The same document as .gltf with a .bin, with a data: URI, and as .glb
 * gives the same poses. */
static void test_containers(void **state)
{
	static const float times[3] = { 0, 1, 2 }, tr[9] = { 0, 0, 0, 1, 2, 3, -4, 0, 1 };
	static const enum gltfw_mode modes[3] = { GLTFW_EXTERNAL, GLTFW_EMBEDDED, GLTFW_GLB };
	struct gltfw *w = gltfw_new();
	int in, out;

	(void)state;
	in = gltfw_floats(w, times, 3, "SCALAR");
	out = gltfw_floats(w, tr, 3, "VEC3");
	gltfw_add(w, "nodes", "{\"name\": \"a\", \"children\": [1]}");
	gltfw_add(w, "nodes", "{\"name\": \"b\", \"translation\": [0, 1, 0]}");
	gltfw_add(w, "animations", "{\"name\": \"move\", \"samplers\": [{\"input\": %d, \"output\": "
		  "%d}], \"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": "
		  "\"translation\"}}]}", in, out);
	for (int i = 0; i < 3; i++) {
		struct asset *a = gx_load_writer(w, modes[i]);
		struct sample_result r;

		assert_int_equal(a->format, ASSET_FORMAT_GLTF);
		assert_string_equal(a->up, "y_up");
		assert_string_equal(a->handedness, "right");
		assert_int_equal(a->skeleton->joint_count, 2);
		assert_int_equal(a->clip_count, 1);
		assert_int_equal(a->companion_count, modes[i] == GLTFW_EXTERNAL ? 1 : 0);
		gx_sample(a, "move", 1.5, SPACE_MODEL, &r);
		/* Within the codec's precision, auto: 1e-6 of the rig's
		 * size, 1 (b is one unit above a in every frame; clip.h),
		 * and the float's rounding at 2. */
		gx_near(r.mats[1].m[0][3], -1.5f, 2e-6f, "b.x");
		gx_near(r.mats[1].m[1][3], 2.0f, 2e-6f, "b.y");
		gx_near(r.mats[1].m[2][3], 2.0f, 2e-6f, "b.z");
		sample_result_free(&r);
		asset_free(a);
	}
	gltfw_free(w);
	(void)ok_doc;
}

/* Errors in the JSON, each at its line and column. */
static void test_json_errors(void **state)
{
	(void)state;
	gx_fails("{]", NULL, 0, "t.gltf:1:2", "JSON:");
	gx_fails("[1]", NULL, 0, "t.gltf:1:1", "a glTF document is a JSON object");
	gx_fails("{\"nodes\": []}", NULL, 0, "t.gltf:1:1", "/: \"asset\" is required");
	gx_fails("{\"asset\": {\"version\": \"1.0\"}}", NULL, 0, "t.gltf:1:23",
		 "/asset/version: glTF 1.0: animd reads glTF 2.x");
	gx_fails("{\"asset\": {\"version\": \"2.0\", \"minVersion\": \"2.1\"}}", NULL, 0,
		 "t.gltf:1:44", "the file needs glTF 2.1");
	gx_fails("{\"asset\": {\"version\": \"2.0\"},\n\"extensionsRequired\": "
		 "[\"KHR_draco_mesh_compression\"]}", NULL, 0, "t.gltf:2:24",
		 "requires extension KHR_draco_mesh_compression, which animd does not read");
	gx_fails("{\"asset\": {\"version\": \"2.0\"}, \"scenes\": [{\"nodes\": [0]}]}", NULL, 0,
		 "t.gltf:1:53", "/scenes/0/nodes/0: 0 names no node (the file has 0)");
	gx_fails("{\"asset\": {\"version\": \"2.0\"},\n \"nodes\": [{\"children\": [1]}, "
		 "{\"children\": [0]}]}", NULL, 0, "t.gltf:2:25", "is part of a cycle");
	gx_fails("{\"asset\": {\"version\": \"2.0\"},\n \"nodes\": [{\"children\": [2]}, "
		 "{\"children\": [2]}, {}]}", NULL, 0, "t.gltf:2:45",
		 "node 2 is already a child of node 0");
	gx_fails("{\"asset\": {\"version\": \"2.0\"},\n \"nodes\": [{\"children\": [0]}]}", NULL, 0,
		 "t.gltf:2:26", "node 0 is its own child");
	gx_fails("{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{\"translation\": [1, 2]}]}",
		 NULL, 0, "t.gltf:1:57", "must be an array of 3 numbers");
	gx_fails("{\"asset\": {\"version\": \"2.0\"}, \"buffers\": [{\"byteLength\": 4, \"uri\": "
		 "\"data:application/octet-stream;base64,AAAAAA==\"}],\n\"bufferViews\": "
		 "[{\"buffer\": 0, \"byteLength\": 5}]}", NULL, 0, "t.gltf:2:45",
		 "bytes 0..5 lie past the end of buffer 0 (byteLength 4)");
	gx_fails("{\"asset\": {\"version\": \"2.0\"}, \"buffers\": [{\"byteLength\": 8, \"uri\": "
		 "\"data:application/octet-stream;base64,AAAAAA==\"}]}", NULL, 0, "t.gltf:1:68",
		 "the data: URI holds 4 bytes, fewer than the buffer's byteLength 8");
	gx_fails("{\"asset\": {\"version\": \"2.0\"}, \"buffers\": [{\"byteLength\": 8, \"uri\": "
		 "\"data:application/octet-stream;base64,AA*AAA==\"}]}", NULL, 0, "t.gltf:1:68",
		 "character 39 of the URI is not base64");
	gx_fails("{\"asset\": {\"version\": \"2.0\"}, \"buffers\": [{\"byteLength\": 16, \"uri\": "
		 "\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAA==\"}],\n"
		 "\"bufferViews\": [{\"buffer\": 0, \"byteLength\": 16}],\n\"accessors\": "
		 "[{\"bufferView\": 0, \"byteOffset\": 8, \"componentType\": 5126, \"count\": 1, "
		 "\"type\": \"VEC3\"}]}", NULL, 0, "t.gltf:3:82",
		 "1 elements of 12 bytes, 12 apart from byte 8, need 20 bytes; buffer view 0 has 16");
	gx_fails("{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{}], \"accessors\": [{"
		 "\"componentType\": 5126, \"count\": 2, \"type\": \"SCALAR\"}, {\"componentType\": "
		 "5126, \"count\": 3, \"type\": \"VEC3\"}],\n\"animations\": [{\"samplers\": "
		 "[{\"input\": 0, \"output\": 1}], \"channels\": [{\"sampler\": 0, \"target\": "
		 "{\"node\": 0, \"path\": \"scale\"}}]}]}", NULL, 0, "t.gltf:2:53",
		 "/animations/0/samplers/0/output: accessor 1 has 3 elements; 2 key times need 2");
	gx_fails("{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{}], \"accessors\": [{"
		 "\"componentType\": 5126, \"count\": 1, \"type\": \"SCALAR\"}],\n\"animations\": "
		 "[{\"samplers\": [{\"input\": 0, \"output\": 0}], \"channels\": [{\"sampler\": 1, "
		 "\"target\": {\"node\": 0, \"path\": \"scale\"}}]}]}", NULL, 0, "t.gltf:2:83",
		 "1 names no sampler of this animation (the file has 1)");
	gx_fails("{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{}, {}], \"accessors\": [{"
		 "\"componentType\": 5126, \"count\": 1, \"type\": \"MAT4\"}],\n\"skins\": "
		 "[{\"joints\": [0, 1], \"inverseBindMatrices\": 0}]}", NULL, 0, "t.gltf:2:53",
		 "accessor 0 has 1 matrices for 2 joints");
}

/* JSON's grammar (RFC 8259), exactly: each text as the value of "extras"
 * (which the reader otherwise ignores), refused with a JSON error at a
 * line and column, or read. */
static void test_json_grammar(void **state)
{
	static const char *const bad[] = {
		"[1,]", "[,1]", "[1 2]", "{\"a\" 1}", "{\"a\":1,}", "{1:2}", "{\"a\"}", "[1]]",
		"{\"a\":1}}", "'a'", "[01]", "[-01]", "[1.]", "[.5]", "[1e]", "[1e+]", "[-]",
		"[+1]", "[0x10]", "[NaN]", "[Infinity]", "[tru]", "[nul]", "[True]", "[truex]",
		"[1,\f2]", "[\"a\x01" "b\"]", "[\"\\q\"]", "[\"\\u12G4\"]", "[\"\\u12\"]",
		"[\"\xc0\x80\"]", "[\"\xed\xa0\x80\"]", "[\"\xf5\x80\x80\x80\"]", "[\"\xe2\x82\"]",
		"[\"\x80\"]", "[\"abc", "[", "{", "",
	};
	static const char *const good[] = {
		"[]", "{}", "[ ]", "{ }", "[-0, 0.5e-3, 1E+2, -1.25e10, 123, 0]",
		"[\"\\u00e9\\ud83d\\ude00\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\xc3\xa9\", "
		"\"\xf0\x9f\x98\x80\", \"abcdefghijklmnopqrstuvwxyz\"]",
		"{\"a\": {\"b\": [true, false, null]}, \"a\": 2}", "\"\\u0000\"", "\"\\udc00\"",
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "\t[\r\n1 ]\n",
	};
	char doc[512], err[1024];
	struct asset *a;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(doc, sizeof doc, "{\"asset\": {\"version\": \"2.0\"}, \"extras\": %s}", bad[i]);
		if (gx_load("t.gltf", doc, strlen(doc), NULL, &a, err, sizeof err) == 0) {
			asset_free(a);
			fail_msg("%s: read, but it is not JSON", bad[i]);
		}
		if (strncmp(err, "t.gltf:1:", 9) != 0 || strstr(err, ": error: JSON: ") == NULL)
			fail_msg("%s: \"%s\", not a JSON error at a line and column", bad[i], err);
	}
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		snprintf(doc, sizeof doc, "{\"asset\": {\"version\": \"2.0\"}, \"extras\": %s}", good[i]);
		if (gx_load("t.gltf", doc, strlen(doc), NULL, &a, err, sizeof err) != 0)
			fail_msg("%s: %s", good[i], err);
		asset_free(a);
	}
	/* Around the document: only white space after it, one value. */
	gx_fails("{\"asset\": {\"version\": \"2.0\"}} x", NULL, 0, "t.gltf:1:31", "JSON:");
	gx_fails("{\"asset\": {\"version\": \"2.0\"}} {}", NULL, 0, "t.gltf:1:31", "JSON:");
	gx_fails("  ", NULL, 0, "t.gltf:1:2", "JSON:");
}

/* A .bin and the data in it: a missing needed buffer is refused at its
 * uri; data at fault at its offset in the .bin. */
static void test_data_errors(void **state)
{
	static const float times[3] = { 0, 2, 1 };
	static const char doc[] =
		"{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{}],\n"
		"\"buffers\": [{\"byteLength\": 12, \"uri\": \"t.bin\"}],\n"
		"\"bufferViews\": [{\"buffer\": 0, \"byteLength\": 12}],\n"
		"\"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 3, "
		"\"type\": \"SCALAR\"}],\n\"animations\": [{\"samplers\": [{\"input\": 0, "
		"\"output\": 0}], \"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, "
		"\"path\": \"weights\"}}]}]}";
	static const char needed[] =
		"{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{\"mesh\": 0}],\n"
		"\"buffers\": [{\"byteLength\": 36, \"uri\": \"t.bin\"}],\n"
		"\"bufferViews\": [{\"buffer\": 0, \"byteLength\": 36}],\n"
		"\"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 3, "
		"\"type\": \"VEC3\"}, {\"bufferView\": 0, \"componentType\": 5121, \"count\": 3, "
		"\"type\": \"SCALAR\"}],\n\"meshes\": [{\"primitives\": [{\"attributes\": "
		"{\"POSITION\": 0}, \"indices\": 1}]}]}";
	float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };

	(void)state;
	/* The weights channel is left out (the node has no morph targets), but
	 * the sampler's input still counts for the length: read, and its
	 * times go back. */
	gx_fails(doc, times, sizeof times, "t.bin: offset 0x8",
		 "accessor 0 element 2: key time 1 s comes before the key before it (2 s)");
	gx_fails(needed, NULL, 0, "t.gltf:2:39",
		 "buffer 0 (t.bin) holds data animd reads, but t.bin is missing");
	gx_fails(needed, pos, 20, "t.gltf:2:28",
		 "buffer 0 (t.bin) holds 20 bytes, fewer than its byteLength 36");
	/* Indices read the positions' first bytes: 0, 0, 0, 0 is fine ... */
	{
		struct gx_files files = { 1, { { "t.bin", pos, sizeof pos } }, 0 };
		struct asset *a;
		char err[512];

		assert_int_equal(gx_load("t.gltf", needed, strlen(needed), &files, &a, err,
					 sizeof err), 0);
		assert_int_equal(a->mesh_count, 1);
		assert_int_equal(a->meshes[0]->triangle_count, 1);
		asset_free(a);
	}
	/* A position that is not finite, in the last float (the whole-array
	 * check's odd one) and in one of a pair. */
	{
		float bad[9];
		uint32_t inf = 0x7f800000u, nan = 0xffc00001u;

		memcpy(bad, pos, sizeof bad);
		memcpy(&bad[8], &inf, sizeof inf);
		gx_fails(needed, bad, sizeof bad, "t.bin: offset 0x18",
			 "accessor 0 element 2: a value that is not finite");
		memcpy(bad, pos, sizeof bad);
		memcpy(&bad[3], &nan, sizeof nan);
		gx_fails(needed, bad, sizeof bad, "t.bin: offset 0xc",
			 "accessor 0 element 1: a value that is not finite");
	}
	/* ... 0x80 past the 3 vertices is not. */
	pos[0] = 1.0f / 0.0f * 0.0f;
	memcpy(pos, "\x00\x00\x80\x00", 4);
	gx_fails(needed, pos, sizeof pos, "t.bin: offset 0x2",
		 "accessor 1 element 2: vertex index 128 is past the 3 vertices");
}

/* The GLB container's errors, at their offsets. */
static void test_glb_errors(void **state)
{
	static const unsigned char hdr[20] = "glTF\x02\0\0\0\x20\0\0\0\x0c\0\0\0JSON";
	unsigned char b[64];
	struct asset *a;
	char err[512];

	(void)state;
	memcpy(b, hdr, 20);
	memcpy(b + 20, "{\"a\": 1}    ", 12);
	b[4] = 1;
	assert_int_not_equal(gx_load("t.glb", b, 32, NULL, &a, err, sizeof err), 0);
	assert_string_equal(err, "t.glb: offset 0x4: error: GLB version 1 (animd reads version 2)");
	b[4] = 2;
	b[8] = 0x30;
	assert_int_not_equal(gx_load("t.glb", b, 32, NULL, &a, err, sizeof err), 0);
	assert_string_equal(err, "t.glb: offset 0x8: error: the GLB says it is 48 bytes; the file "
			    "has 32");
	b[8] = 0x20;
	b[12] = 0x20;
	assert_int_not_equal(gx_load("t.glb", b, 32, NULL, &a, err, sizeof err), 0);
	assert_string_equal(err, "t.glb: offset 0xc: error: chunk 0 says it holds 32 bytes; 12 are "
			    "left");
	b[12] = 0x0c;
	memcpy(b + 16, "BIN\0", 4);
	assert_int_not_equal(gx_load("t.glb", b, 32, NULL, &a, err, sizeof err), 0);
	assert_string_equal(err, "t.glb: offset 0x10: error: the first chunk must be JSON (type "
			    "0x004e4942)");
	memcpy(b + 16, "JSON", 4);
	/* JSON errors inside a GLB are offsets into the file. */
	assert_int_not_equal(gx_load("t.glb", b, 32, NULL, &a, err, sizeof err), 0);
	assert_string_equal(err, "t.glb: offset 0x14: error: /: \"asset\" is required");
	assert_int_not_equal(gx_load("t.glb", b, 13, NULL, &a, err, sizeof err), 0);
	assert_string_equal(err, "t.glb: offset 0x8: error: the GLB says it is 32 bytes; the file "
			    "has 13");
	memset(b, 0, 12);
	assert_int_not_equal(gx_load("t.glb", b, 12, NULL, &a, err, sizeof err), 0);
	assert_string_equal(err, "t.glb: offset 0x0: error: neither a GLB (which starts \"glTF\") "
			    "nor glTF's JSON (byte 0x00)");
}

/* Plain things and things that feed nothing: noted, loaded. */
static void test_notes(void **state)
{
	static const float times[4] = { 0, 1, 1, 2 };
	static const float rot[16] = { 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0 };
	struct gltfw *w = gltfw_new();
	struct asset *a;
	struct sample_result r;
	int in, out;

	(void)state;
	in = gltfw_floats(w, times, 4, "SCALAR");
	out = gltfw_floats(w, rot, 4, "VEC4");
	gltfw_add(w, "nodes", "{\"rotation\": [0, 0, 0, 3]}");
	gltfw_add(w, "animations", "{\"samplers\": [{\"input\": %d, \"output\": %d, "
		  "\"interpolation\": \"STEP\"}, {\"input\": %d, \"output\": %d}], \"channels\": "
		  "[{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"rotation\"}}, "
		  "{\"sampler\": 0, \"target\": {\"path\": \"rotation\"}}]}", in, out, in, out);
	gltfw_set(w, "extensionsUsed", "[\"KHR_materials_unlit\"]");
	a = gx_load_writer_as(w, GLTFW_EXTERNAL, false);
	gx_noted(a, "/nodes/0/rotation: a rotation of length 3, not a unit quaternion: normalised");
	gx_noted(a, "key 2 repeats the time of the key before it (1 s): the later key holds");
	gx_noted(a, "rotation keys not of unit length (2): normalised");
	gx_noted(a, "a channel without a node animates nothing (left out)");
	gx_noted(a, "no channel uses this sampler");
	gx_noted(a, "extensions animd does not read (nothing it publishes needs them): "
		 "KHR_materials_unlit");
	gx_noted(a, "t.gltf:1:");
	/* At the repeated time the later key holds: a half turn about Z. */
	gx_sample(a, "0", 1.0, SPACE_LOCAL, &r);
	gx_near(fabsf(r.local[0].r.z), 1.0f, 1e-6f, "the later key");
	sample_result_free(&r);
	gx_sample(a, "0", 0.5, SPACE_LOCAL, &r);
	gx_near(r.local[0].r.w, 1.0f, 1e-6f, "the first key, normalised");
	sample_result_free(&r);
	asset_free(a);
	gltfw_free(w);
}

/* Accessor bounds feed nothing animd publishes: notes.  Positions and key
 * times must have them, and they are compared with the data; others' (the
 * translation keys' here) are not read. */
static void test_bounds(void **state)
{
	static const float bin[14] = {
		0, 0, 0, 1, 0, 0, 0, 1, 0,      /* positions: y at most 1 */
		0, 2,                           /* key times */
		0, 0, 0,                        /* (a translation key, past the end: unread) */
	};
	static const char doc[] =
		"{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{\"mesh\": 0}],\n"
		"\"buffers\": [{\"byteLength\": 56, \"uri\": \"t.bin\"}],\n"
		"\"bufferViews\": [{\"buffer\": 0, \"byteLength\": 36}, {\"buffer\": 0, "
		"\"byteOffset\": 36, \"byteLength\": 8}, {\"buffer\": 0, \"byteOffset\": 0, "
		"\"byteLength\": 24}],\n"
		"\"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 3, "
		"\"type\": \"VEC3\", \"min\": [0, 0, 0], \"max\": [1, 5, 0]},\n"
		"{\"bufferView\": 1, \"componentType\": 5126, \"count\": 2, \"type\": \"SCALAR\", "
		"\"min\": [0, 0]},\n"
		"{\"bufferView\": 2, \"componentType\": 5126, \"count\": 2, \"type\": \"VEC3\"}],\n"
		"\"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}}]}],\n"
		"\"animations\": [{\"samplers\": [{\"input\": 1, \"output\": 2}], \"channels\": "
		"[{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"translation\"}}]}]}";
	struct gx_files files = { 1, { { "t.bin", bin, sizeof bin } }, 0 };
	struct asset *a = NULL;
	char err[1024];

	(void)state;
	if (gx_load("t.gltf", doc, strlen(doc), &files, &a, err, sizeof err) != 0)
		fail_msg("load failed: %s", err);
	gx_noted(a, "t.gltf:4:113: note: /accessors/0/max/1: 5, but the data's greatest is 1 (the "
		 "data is used)");
	gx_noted(a, "t.gltf:5:1: note: /accessors/1: no max: the specification requires min and "
		 "max for key times");
	gx_noted(a, "t.gltf:5:79: note: /accessors/1/min: not an array of 1 number, one per "
		 "component: ignored");
	asset_free(a);
}

/* A buffer nothing animd reads may be missing; a path that climbs out of
 * the asset root is not followed; %20 is a space. */
static void test_uris(void **state)
{
	static const char unused[] = "{\"asset\": {\"version\": \"2.0\"}, \"buffers\": "
				     "[{\"byteLength\": 4, \"uri\": \"gone.bin\"}]}";
	static const char climbs[] = "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{}], \"buffers\": "
				     "[{\"byteLength\": 4, \"uri\": \"../../x.bin\"}], \"bufferViews\": "
				     "[{\"buffer\": 0, \"byteLength\": 4}], \"accessors\": "
				     "[{\"bufferView\": 0, \"componentType\": 5126, \"count\": 1, "
				     "\"type\": \"SCALAR\"}], \"animations\": [{\"samplers\": "
				     "[{\"input\": 0, \"output\": 0}], \"channels\": []}]}";
	static const char spaced[] = "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{}], \"buffers\": "
				     "[{\"byteLength\": 4, \"uri\": \"../my%20data/a.bin\"}], "
				     "\"bufferViews\": [{\"buffer\": 0, \"byteLength\": 4}], "
				     "\"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, "
				     "\"count\": 1, \"type\": \"SCALAR\"}], \"animations\": "
				     "[{\"samplers\": [{\"input\": 0, \"output\": 0}], \"channels\": []}]}";
	static const float one = 1.0f;
	struct gx_files files = { 1, { { "dir/my data/a.bin", &one, 4 } }, 0 };
	struct asset *a;
	char err[512], out[256];

	(void)state;
	assert_int_equal(gx_load("t.gltf", unused, strlen(unused), NULL, &a, err, sizeof err), 0);
	gx_noted(a, "a buffer that is not there (gone.bin is missing): nothing animd reads is in it");
	asset_free(a);
	assert_int_not_equal(gx_load("d/t.gltf", climbs, strlen(climbs), &files, &a, err,
				     sizeof err), 0);
	assert_non_null(strstr(err, "its path climbs out of the asset root"));
	assert_int_equal(files.asked, 0);
	assert_int_equal(gx_load("dir/sub/t.gltf", spaced, strlen(spaced), &files, &a, err,
				 sizeof err), 0);
	assert_int_equal(a->companion_count, 1);
	assert_string_equal(a->companions[0].name, "dir/my data/a.bin");
	gx_near(time_to_seconds(a->clips[0]->duration_ns), 1.0f, 1e-9f, "duration");
	asset_free(a);
	/* Names, lexically. */
	assert_int_equal(asset_gltf_companion_name("a/b/t.gltf", "../c.bin", out, sizeof out), 0);
	assert_string_equal(out, "a/c.bin");
	assert_int_equal(asset_gltf_companion_name("t.gltf", "c.bin", out, sizeof out), 0);
	assert_string_equal(out, "c.bin");
	assert_int_equal(asset_gltf_companion_name("t.gltf", "../c.bin", out, sizeof out), -EACCES);
	assert_int_equal(asset_gltf_companion_name("/x/t.gltf", "../c.bin", out, sizeof out), 0);
	assert_string_equal(out, "/c.bin");
	assert_int_equal(asset_gltf_companion_name("/x/t.gltf", "../../c.bin", out, sizeof out),
			 -EACCES);
}

/* Required extensions animd knows: KHR_mesh_quantization (positions as
 * normalised shorts) is read; one about materials changes no pose. */
static void test_quantization(void **state)
{
	static const float pos[9] = { 0, 0, 0, 1, 0, 0, -0.5f, 0.5f, 0 };
	struct gltfw *w = gltfw_new();
	struct asset *a;
	struct sample_result r;
	int p;

	(void)state;
	p = gltfw_accessor(w, pos, 3, "VEC3", 5122, true, 8);
	gltfw_add(w, "nodes", "{\"mesh\": 0, \"scale\": [2, 2, 2]}");
	gltfw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d}}]}", p);
	gltfw_set(w, "extensionsUsed", "[\"KHR_mesh_quantization\", \"KHR_texture_transform\"]");
	gltfw_set(w, "extensionsRequired", "[\"KHR_mesh_quantization\", \"KHR_texture_transform\"]");
	a = gx_load_writer(w, GLTFW_GLB);
	gx_sample(a, NULL, 0, SPACE_VERTICES, &r);
	gx_near(r.positions[0][1].x, 2.0f, 1e-6f, "x");
	gx_near(r.positions[0][2].x, -32767.0f / 32767 * 0 - 2 * 16384.0f / 32767, 1e-6f, "x");
	gx_near(r.positions[0][2].y, 2 * 16384.0f / 32767, 1e-6f, "y");
	assert_int_equal(a->meshes[0]->triangle_count, 1);
	sample_result_free(&r);
	asset_free(a);
	gltfw_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_components),
		cmocka_unit_test(test_matrix_padding),
		cmocka_unit_test(test_sparse),
		cmocka_unit_test(test_containers),
		cmocka_unit_test(test_json_errors),
		cmocka_unit_test(test_json_grammar),
		cmocka_unit_test(test_data_errors),
		cmocka_unit_test(test_glb_errors),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_uris),
		cmocka_unit_test(test_quantization),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
