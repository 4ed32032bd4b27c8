/*
 * test_x_exact - .x files come out as a Direct3D 9 program draws them,
 * with hand-computed vertices and normals, in every encoding (text,
 * binary with 32- and 64-bit floats, MSZIP text and binary):
 *
 *  - a sheared frame matrix, a mirror under a turned parent, a frame that
 *    collapses an axis, all placing rigid and skinned meshes exactly, and
 *    `local` saying when its t, r, s are only the matrix's split;
 *  - an Animation driving only the rotation of a sheared frame: the frame
 *    keeps its matrix's translation and scale (its split), a still frame
 *    beside it keeps its whole matrix;
 *  - matrix keys interpolate linearly even under positionquality 0;
 *  - a set mixing open and closed Animations loops; all open, it plays
 *    once;
 *  - a bent arm's skinned normals (inverse transpose per bone, weighted,
 *    normalised), and its materials with their triangles;
 *  - what the import notes, located in every encoding.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/assets/asset.h"
#include "daemon/assets/sampling.h"
#include "tests/support/x_reencode.h"

#define HEADER "xof 0303txt 0032\n"
#define S2 0.70710678f

static struct asset *load_in(const char *text, enum x_encoding_kind e)
{
	unsigned char *bytes;
	size_t len;
	struct asset *a = NULL;
	char err[512];

	if (x_reencode(text, e, &bytes, &len) != 0)
		fail_msg("the fixture does not parse as text");
	if (asset_load_buffer("exact.x", bytes, len, &a, err, sizeof err) != 0)
		fail_msg("%s: %s", x_encoding_names[e], err);
	free(bytes);
	return a;
}

static void assert_vec(vec3 got, float x, float y, float z, const char *what,
		       enum x_encoding_kind e)
{
	if (fabsf(got.x - x) > 1e-5f || fabsf(got.y - y) > 1e-5f || fabsf(got.z - z) > 1e-5f)
		fail_msg("%s (%s): got (%g, %g, %g), wanted (%g, %g, %g)", what, x_encoding_names[e],
			 got.x, got.y, got.z, x, y, z);
}

/* Sample a space at t seconds (clip NULL: the first, if any). */
static void sample_at(const struct asset *a, const char *clip, double t, enum sample_space space,
		      struct sample_result *r)
{
	struct sample_request q = { .asset = a, .clip = clip, .time = t, .space = space };
	char err[256];

	if (sample_evaluate(&q, r, err, sizeof err) != 0)
		fail_msg("%s", err);
}

/* The issue's own example: row 1 of the matrix is (1, 1, 0), so the
 * vertex (0, 1, 0) lands at (1, 1, 0); then a mirror under a parent turned
 * 90 degrees about y, and an axis collapsed by a frame (skinned). */
static const char shear_x[] = HEADER
	"Frame S { FrameTransformMatrix { 1.0,0.0,0.0,0.0, 1.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0,"
	" 0.0,0.0,0.0,1.0;; }\n"
	"  Mesh tri { 3; 0.0;0.0;0.0;, 0.0;1.0;0.0;, 1.0;0.0;0.0;; 1; 3;0,1,2;; } }\n"
	"Frame P { FrameTransformMatrix { 0.0,0.0,-1.0,0.0, 0.0,1.0,0.0,0.0, 1.0,0.0,0.0,0.0,"
	" 0.0,0.0,0.0,1.0;; }\n"
	"  Frame M { FrameTransformMatrix { -1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0,"
	" 0.0,0.0,0.0,1.0;; }\n"
	"    Mesh mirrored { 1; 1.0;2.0;3.0;; 0; } } }\n"
	"Frame Z { FrameTransformMatrix { 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,0.0,0.0,"
	" 0.0,0.0,5.0,1.0;; } }\n"
	"Mesh flat { 2; 1.0;2.0;3.0;, 4.0;5.0;6.0;; 0;\n"
	"  XSkinMeshHeader { 1; 1; 1; }\n"
	"  SkinWeights { \"Z\"; 2; 0, 1; 1.0, 1.0; 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0,"
	" 0.0,0.0,1.0,0.0, 0.0,0.0,0.0,1.0;; } }\n";

static void test_static_matrices_exact(void **state)
{
	(void)state;
	for (int e = 0; e < XENC_COUNT; e++) {
		struct asset *a = load_in(shear_x, (enum x_encoding_kind)e);
		struct sample_result r;
		const struct skeleton *s = a->skeleton;

		sample_at(a, NULL, 0, SPACE_VERTICES, &r);
		assert_int_equal(r.mesh_count, 3);
		assert_vec(r.positions[0][1], 1, 1, 0, "sheared vertex (0,1,0)", e);
		assert_vec(r.positions[0][2], 1, 0, 0, "sheared vertex (1,0,0)", e);
		/* (1,2,3) mirrored in x: (-1,2,3); turned: -1 * (0,0,-1) + 2 * (0,1,0) + 3 * (1,0,0). */
		assert_vec(r.positions[1][0], 3, 2, 1, "mirrored vertex", e);
		/* z collapsed, then moved to 5. */
		assert_vec(r.positions[2][0], 1, 2, 5, "collapsed vertex 0", e);
		assert_vec(r.positions[2][1], 4, 5, 5, "collapsed vertex 1", e);
		sample_result_free(&r);
		/* The shear is no TRS; the mirror is one (a negative scale), and
		 * so is the collapse (a zero scale), which has no inverse: the
		 * skinned mesh under it needs none. */
		assert_true(s->rest_not_trs[skeleton_find(s, "S")]);
		assert_false(s->rest_not_trs[skeleton_find(s, "Z")]);
		assert_false(s->rest_not_trs[skeleton_find(s, "M")]);
		assert_false(s->rest_not_trs[skeleton_find(s, "P")]);
		sample_at(a, NULL, 0, SPACE_LOCAL, &r);
		assert_non_null(sample_exact_local(&r, (uint32_t)skeleton_find(s, "S")));
		assert_null(sample_exact_local(&r, (uint32_t)skeleton_find(s, "M")));
		assert_true(sample_exact_local(&r, (uint32_t)skeleton_find(s, "S"))->m[0][1] == 1.0f);
		sample_result_free(&r);
		/* Model space: S's matrix as written. */
		sample_at(a, NULL, 0, SPACE_MODEL, &r);
		assert_true(r.mats[skeleton_find(s, "S")].m[0][1] == 1.0f);
		sample_result_free(&r);
		asset_unref(a);
	}
}

/*
 * S is sheared and moved to z = 7; an Animation keys only its rotation
 * (the identity).  The frame keeps its matrix's split translation (0,0,7)
 * and scale (the rows' lengths: 1, sqrt 2, 1); the shear is gone while the
 * animation drives it.  T, still, keeps its whole sheared matrix.  The
 * matrix-keyed frame K moves 0 -> 10 -> 0 in x over ticks 0, 10, 20 with
 * positionquality 0: linear (5 at tick 5), not a spline (5.625).
 */
static const char partial_x[] = HEADER
	"AnimTicksPerSecond { 10; }\n"
	"Frame S { FrameTransformMatrix { 1.0,0.0,0.0,0.0, 1.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0,"
	" 0.0,0.0,7.0,1.0;; }\n"
	"  Mesh a { 2; 0.0;1.0;0.0;, 1.0;0.0;0.0;; 0; } }\n"
	"Frame T { FrameTransformMatrix { 1.0,0.0,0.0,0.0, 1.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0,"
	" 0.0,0.0,0.0,1.0;; }\n"
	"  Mesh b { 1; 0.0;1.0;0.0;; 0; } }\n"
	"Frame K { Mesh c { 1; 0.0;0.0;0.0;; 0; } }\n"
	"AnimationSet turn {\n"
	"  Animation { { S } AnimationKey { 0; 2; 0; 4; 1.0,0.0,0.0,0.0;;, 20; 4; 1.0,0.0,0.0,0.0;;; } }\n"
	"  Animation { { K } AnimationOptions { 0; 0; }\n"
	"    AnimationKey { 4; 3;\n"
	"      0; 16; 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0, 0.0,0.0,0.0,1.0;;,\n"
	"      10; 16; 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0, 10.0,0.0,0.0,1.0;;,\n"
	"      20; 16; 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0, 0.0,0.0,0.0,1.0;;; } } }\n";

static void test_partial_channels_and_matrix_keys(void **state)
{
	(void)state;
	for (int e = 0; e < XENC_COUNT; e++) {
		struct asset *a = load_in(partial_x, (enum x_encoding_kind)e);
		struct sample_result r;

		sample_at(a, "turn", 0.5, SPACE_VERTICES, &r);
		assert_vec(r.positions[0][0], 0, sqrtf(2.0f), 7, "rotation-keyed sheared frame", e);
		assert_vec(r.positions[0][1], 1, 0, 7, "rotation-keyed sheared frame, x", e);
		assert_vec(r.positions[1][0], 1, 1, 0, "still sheared frame", e);
		assert_vec(r.positions[2][0], 5, 0, 0, "matrix keys, linear", e);
		sample_result_free(&r);
		/* Without a clip every frame is at its matrix. */
		sample_at(a, NULL, 0, SPACE_MODEL, &r);
		sample_result_free(&r);
		asset_unref(a);
	}
}

/* One open and one closed Animation: the set loops.  Both open: once. */
static const char mixed_x[] = HEADER
	"Frame A { } Frame B { }\n"
	"AnimationSet mixed {\n"
	"  Animation { { A } AnimationOptions { 1; 1; } AnimationKey { 2; 2; 0; 3; 0.0,0.0,0.0;;, 10; 3; 1.0,0.0,0.0;;; } }\n"
	"  Animation { { B } AnimationOptions { 0; 1; } AnimationKey { 2; 2; 0; 3; 0.0,0.0,0.0;;, 10; 3; 1.0,0.0,0.0;;; } } }\n"
	"AnimationSet open {\n"
	"  Animation { { A } AnimationOptions { 1; 1; } AnimationKey { 2; 2; 0; 3; 0.0,0.0,0.0;;, 10; 3; 1.0,0.0,0.0;;; } }\n"
	"  Animation { { B } AnimationOptions { 1; 1; } AnimationKey { 2; 2; 0; 3; 0.0,0.0,0.0;;, 10; 3; 1.0,0.0,0.0;;; } } }\n"
	"AnimationSet plain {\n"
	"  Animation { { A } AnimationKey { 2; 2; 0; 3; 0.0,0.0,0.0;;, 10; 3; 1.0,0.0,0.0;;; } } }\n";

static void test_open_and_closed(void **state)
{
	(void)state;
	for (int e = 0; e < XENC_COUNT; e++) {
		struct asset *a = load_in(mixed_x, (enum x_encoding_kind)e);

		assert_int_equal(asset_find_clip(a, "mixed")->loop, LOOP_LOOP);
		assert_int_equal(asset_find_clip(a, "open")->loop, LOOP_ONCE);
		assert_int_equal(asset_find_clip(a, "plain")->loop, LOOP_LOOP);
		asset_unref(a);
	}
}

/*
 * A bent arm.  Upper scales x by 2; Fore hangs from it at (2,0,0) turned
 * 90 degrees about z (row form: x -> y), its offset the inverse of the
 * straight arm's bind (a translation by -2).  Vertices (1,0,0) on Upper,
 * (2,0,0) half each, (3,0,0) on Fore, normals (0,1,0):
 *   v0 = (1,0,0) S = (2,0,0), n0 = (0,1,0) S^-T = (0,1,0);
 *   v2 = ((1,0,0) R + (2,0,0)) S = (2,1,0) S = (4,1,0),
 *   n2 = (0,1,0) R S^-T = (-1,0,0) S^-T -> (-1,0,0);
 *   v1 = (4,0,0) from both, n1 = normalise(0.5 (0,1,0) + 0.5 (-1/2,0,0))
 *      = (-1,2,0) / sqrt 5.
 * Two materials, the first face red, the second textured.
 */
static const char arm_x[] = HEADER
	"Material Skin { 1.0;0.8;0.6;1.0;; 10.0; 0.5;0.5;0.5;; 0.0;0.0;0.0;; TextureFilename { \"skin.png\"; } }\n"
	"Frame Upper { FrameTransformMatrix { 2.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0,"
	" 0.0,0.0,0.0,1.0;; }\n"
	"  Frame Fore { FrameTransformMatrix { 0.0,1.0,0.0,0.0, -1.0,0.0,0.0,0.0, 0.0,0.0,1.0,0.0,"
	" 2.0,0.0,0.0,1.0;; } } }\n"
	"Mesh arm { 4; 1.0;0.0;0.0;, 2.0;0.0;0.0;, 3.0;0.0;0.0;, 2.0;0.0;1.0;;\n"
	"  2; 3; 0,1,3;, 3; 1,2,3;;\n"
	"  MeshNormals { 1; 0.0;1.0;0.0;; 2; 3; 0,0,0;, 3; 0,0,0;; }\n"
	"  MeshMaterialList { 2; 2; 0, 1;\n"
	"    Material Red { 1.0;0.0;0.0;1.0;; 5.0; 1.0;1.0;1.0;; 0.0;0.0;0.0;; }\n"
	"    { Skin } }\n"
	"  MeshVertexColors { 1; 2; 0.0;0.0;1.0;1.0;; }\n"
	"  XSkinMeshHeader { 1; 2; 2; }\n"
	"  SkinWeights { \"Upper\"; 3; 0, 1, 3; 1.0, 0.5, 1.0; 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0,"
	" 0.0,0.0,1.0,0.0, 0.0,0.0,0.0,1.0;; }\n"
	"  SkinWeights { \"Fore\"; 2; 1, 2; 0.5, 1.0; 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0,"
	" 0.0,0.0,1.0,0.0, -2.0,0.0,0.0,1.0;; } }\n";

static void test_bent_arm_normals_and_materials(void **state)
{
	(void)state;
	for (int e = 0; e < XENC_COUNT; e++) {
		struct asset *a = load_in(arm_x, (enum x_encoding_kind)e);
		const struct mesh *m = a->meshes[0];
		struct sample_result r;
		float k = 1.0f / sqrtf(5.0f);

		sample_at(a, NULL, 0, SPACE_VERTICES, &r);
		assert_vec(r.positions[0][0], 2, 0, 0, "arm v0", e);
		assert_vec(r.positions[0][1], 4, 0, 0, "arm v1", e);
		assert_vec(r.positions[0][2], 4, 1, 0, "arm v2", e);
		assert_non_null(r.normals[0]);
		assert_vec(r.normals[0][0], 0, 1, 0, "arm n0", e);
		assert_vec(r.normals[0][1], -k, 2 * k, 0, "arm n1", e);
		assert_vec(r.normals[0][2], -1, 0, 0, "arm n2", e);
		sample_result_free(&r);
		assert_int_equal(m->material_count, 2);
		assert_string_equal(m->materials[0].name, "Red");
		assert_true(m->materials[0].diffuse[0] == 1.0f && m->materials[0].power == 5.0f);
		assert_null(m->materials[0].texture);
		assert_string_equal(m->materials[1].name, "Skin");
		assert_string_equal(m->materials[1].texture, "skin.png");
		assert_true(m->materials[1].diffuse[1] == 0.8f);
		assert_int_equal(m->materials[0].triangle_count, 1);
		assert_int_equal(m->materials[1].triangle_count, 1);
		assert_int_equal(m->triangle_material[0], 0);
		assert_int_equal(m->triangle_material[1], 1);
		assert_string_equal(m->material, "Red");
		assert_non_null(m->colors);
		assert_true(m->colors[2][2] == 1.0f && m->colors[0][0] == 1.0f);
		asset_unref(a);
	}
}

/*
 * What the import notes reaches the asset as located lines, in every
 * encoding: a line and column in plain text, an offset otherwise (in the
 * decompressed data for MSZIP); the file loads all the same.
 */
static const char noted_x[] = HEADER
	"Frame A { }\n"
	"Mesh m { 1; 1.0;0.0;0.0;; 0;\n"
	"  XSkinMeshHeader { 1; 1; 3; }\n"
	"  SkinWeights { \"A\"; 1; 0; 1.0; 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0,"
	" 0.0,0.0,0.0,1.0;; } }\n"
	"AnimationSet walk { Animation { { Gone } } }\n";

static void test_notes_in_every_encoding(void **state)
{
	static const char *const where[XENC_COUNT] = {
		[XENC_TEXT] = "exact.x:4:3: note: ",
		[XENC_BINARY32] = "exact.x: offset 0x",
		[XENC_BINARY64] = "exact.x: offset 0x",
		[XENC_TEXT_MSZIP] = "exact.x: offset 0x",
		[XENC_BINARY32_MSZIP] = "exact.x: offset 0x",
	};

	(void)state;
	for (int e = 0; e < XENC_COUNT; e++) {
		struct asset *a = load_in(noted_x, (enum x_encoding_kind)e);
		int zip = e == XENC_TEXT_MSZIP || e == XENC_BINARY32_MSZIP;

		assert_int_equal(a->note_count, 2);
		if (strncmp(a->notes[0], where[e], strlen(where[e])) != 0)
			fail_msg("%s: %s", x_encoding_names[e], a->notes[0]);
		assert_non_null(strstr(a->notes[0], zip ? ": note: in the decompressed data: "
							"XSkinMeshHeader declares 3 bones"
							: ": note: XSkinMeshHeader declares 3 bones"));
		assert_non_null(strstr(a->notes[1], "Animation refers to frame \"Gone\", which the "
					      "file does not have: its keys move no joint"));
		if (e == XENC_TEXT)
			assert_non_null(strstr(a->notes[1], "exact.x:6:33: note: "));
		assert_int_equal(a->mesh_count, 1);
		assert_int_equal(a->clip_count, 1);
		assert_null(a->note);
		asset_unref(a);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_static_matrices_exact),
		cmocka_unit_test(test_partial_channels_and_matrix_keys),
		cmocka_unit_test(test_open_and_closed),
		cmocka_unit_test(test_bent_arm_normals_and_materials),
		cmocka_unit_test(test_notes_in_every_encoding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
