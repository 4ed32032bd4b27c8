/*
 * The .x import (anim/x_import.h) against D3DX's own conventions, computed
 * here independently in row-vector form: a frame's rest pose reproduces
 * its matrix; rigid meshes land at v * Combined(frame); skinned meshes at
 * sum w * v * offset * Combined(bone), which is what the bind * offset
 * trick must preserve; rotation keys (w, x, y, z) rotate like D3DX's
 * row-form quaternion matrix; key times follow AnimTicksPerSecond or the
 * default; options pick looping and spline positions.  And every rule the
 * import enforces fails at its own line and column.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/pose.h"
#include "daemon/formats/x/x.h"
#include "daemon/import/x_import.h"
#include "tests/support/row_matrix.h"

#define HEADER "xof 0303txt 0032\n"

static void assert_vec3_near(vec3 a, vec3 b, float tol)
{
	if (fabsf(a.x - b.x) > tol || fabsf(a.y - b.y) > tol || fabsf(a.z - b.z) > tol)
		fail_msg("(%g %g %g) != (%g %g %g)", a.x, a.y, a.z, b.x, b.y, b.z);
}

static int load(const char *text, uint32_t ticks, struct x_model *m, struct diag *d)
{
	struct x_tree t;
	int rc = x_parse(text, strlen(text), &t, d);

	if (rc < 0)
		return rc;
	rc = x_import(&t, ticks, "clip", m, d);
	x_tree_free(&t);
	return rc;
}

static void load_ok(const char *text, uint32_t ticks, struct x_model *m)
{
	struct diag d = { 0 };
	char msg[512];

	if (load(text, ticks, m, &d) != 0) {
		diag_format(&d, "fixture.x", msg, sizeof msg);
		fail_msg("%s", msg);
	}
}

static void expect_fail(const char *text, uint32_t line, uint32_t col, const char *needle)
{
	struct x_model m = { 0 };
	struct diag d = { 0 };
	char msg[512];

	assert_int_equal(load(text, 0, &m, &d), -EINVAL);
	diag_format(&d, "fixture.x", msg, sizeof msg);
	if (d.line != line || d.col != col || strstr(d.msg, needle) == NULL)
		fail_msg("got \"%s\", wanted line %u col %u with \"%s\"", msg, line, col, needle);
}

/* Skinned positions at the rest pose: every frame at its matrix. */
static void skin_rest(const struct x_model *m, uint32_t mesh, vec3 *out)
{
	mesh_skin_positions(m->meshes[mesh], m->skeleton->bind_model, out);
}

/* Skinned normals at the rest pose. */
static void normals_rest(const struct x_model *m, uint32_t mesh, vec3 *out)
{
	const struct skeleton *s = m->skeleton;
	const struct mesh *me = m->meshes[mesh];
	mat34 *it = malloc(s->joint_count * sizeof *it);
	vec3 *pos = malloc(((size_t)me->vertex_count + 1) * sizeof *pos);

	mesh_normal_matrices(s->joint_count, s->bind_model, it);
	mesh_skin_positions(me, s->bind_model, pos);
	mesh_skin_normals(me, it, pos, out);
	free(it);
	free(pos);
}

/* Root translated and turned 90 degrees about Y (row form: x -> -z),
 * child scaled by 2 and moved; a rigid triangle in the child. */
static const float root_m[16] = { 0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 10, 0, 0, 1 };
static const float child_m[16] = { 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 5, 0, 1 };

static const char rigid_x[] = HEADER
	"Frame Root {\n"
	" FrameTransformMatrix { 0,0,-1,0, 0,1,0,0, 1,0,0,0, 10,0,0,1;; }\n"
	" Frame Child {\n"
	"  FrameTransformMatrix { 2,0,0,0, 0,2,0,0, 0,0,2,0, 0,5,0,1;; }\n"
	"  Mesh Tri {\n"
	"   3; 1.0;0.0;0.0;, 0.0;1.0;0.0;, 0.0;0.0;1.0;;\n"
	"   1; 3;0,1,2;;\n"
	"  }\n"
	" }\n"
	"}\n";

static void test_frames_and_rigid_mesh(void **state)
{
	struct x_model m = { 0 };
	float combined[16];
	vec3 out[3], v[3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };

	(void)state;
	load_ok(rigid_x, 0, &m);
	assert_int_equal(m.skeleton->joint_count, 2);
	assert_string_equal(m.skeleton->names[0], "Root");
	assert_string_equal(m.skeleton->names[1], "Child");
	assert_int_equal(m.skeleton->parents[1], 0);
	/* The rest pose reproduces the matrix: v * M. */
	assert_vec3_near(mat34_apply(&m.skeleton->bind_model[0], vec3_make(1, 2, 3)),
			 row_apply(root_m, vec3_make(1, 2, 3)), 1e-5f);
	row_mul(child_m, root_m, combined);     /* Combined = Local * Parent */
	assert_int_equal(m.mesh_count, 1);
	assert_string_equal(m.meshes[0]->name, "Tri");
	assert_int_equal(m.meshes[0]->triangle_count, 1);
	skin_rest(&m, 0, out);
	for (int i = 0; i < 3; i++)
		assert_vec3_near(out[i], row_apply(combined, v[i]), 1e-5f);
	x_model_free(&m);
}

/* Two bones with offsets that are not the inverse of their bind pose, one
 * vertex shared half and half; at rest the runtime must give D3DX's
 * sum w * v * offset * Combined(bone). */
static void test_skinned_offsets(void **state)
{
	static const char text[] = HEADER
		"Frame Root {\n"
		" FrameTransformMatrix { 0,0,-1,0, 0,1,0,0, 1,0,0,0, 10,0,0,1;; }\n"
		" Frame Child {\n"
		"  FrameTransformMatrix { 2,0,0,0, 0,2,0,0, 0,0,2,0, 0,5,0,1;; }\n"
		" }\n"
		"}\n"
		"Frame Body {\n"
		" Mesh Skin {\n"
		"  3; 1;0;0;, 0;1;0;, 0;0;1;;\n"
		"  1; 3;0,1,2;;\n"
		"  XSkinMeshHeader { 2; 2; 2; }\n"
		"  SkinWeights { \"Root\"; 2; 0, 2; 1.0, 0.5;\n"
		"   1,0,0,0, 0,1,0,0, 0,0,1,0, -3,0,0,1;; }\n"
		"  SkinWeights { \"Child\"; 2; 1, 2; 1.0, 0.5;\n"
		"   0,1,0,0, -1,0,0,0, 0,0,1,0, 0,0,7,1;; }\n"
		" }\n"
		"}\n";
	static const float off_root[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -3, 0, 0, 1 };
	static const float off_child[16] = { 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 7, 1 };
	struct x_model m = { 0 };
	float child_comb[16], a[16], b[16];
	vec3 out[3], want[3];

	(void)state;
	load_ok(text, 0, &m);
	assert_int_equal(m.skeleton->joint_count, 3);
	row_mul(child_m, root_m, child_comb);
	row_mul(off_root, root_m, a);
	row_mul(off_child, child_comb, b);
	want[0] = row_apply(a, vec3_make(1, 0, 0));
	want[1] = row_apply(b, vec3_make(0, 1, 0));
	want[2] = vec3_add(vec3_scale(row_apply(a, vec3_make(0, 0, 1)), 0.5f),
			   vec3_scale(row_apply(b, vec3_make(0, 0, 1)), 0.5f));
	skin_rest(&m, 0, out);
	for (int i = 0; i < 3; i++)
		assert_vec3_near(out[i], want[i], 1e-4f);
	x_model_free(&m);
}

/*
 * A rotation key is stored w, x, y, z as the conjugate of the rotation it
 * means (the DirectX SDK's tiny.x keys its bones' rest rotations that way:
 * the conformance test checks it).  Stored (c, 0, 0, -s) is therefore
 * D3DXMatrixRotationZ(+90 degrees), x -> y in row form.
 */
static void test_rotation_keys_and_ticks(void **state)
{
	static const char text[] = HEADER
		"AnimTicksPerSecond { 30; }\n"
		"Frame Bone { FrameTransformMatrix { 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1;; } }\n"
		"AnimationSet Turn {\n"
		" Animation { { Bone }\n"
		"  AnimationKey { 0; 2; 0; 4; 1,0,0,0;;, 30; 4; 0.70710678,0,0,-0.70710678;;; }\n"
		"  AnimationKey { 2; 2; 0; 3; 0,0,0;;, 60; 3; 6,0,0;;; }\n"
		" }\n"
		"}\n";
	static const float mq[16] = { 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
	struct x_model m = { 0 };
	struct transform pose;
	mat34 mat;

	(void)state;
	load_ok(text, 0, &m);
	assert_int_equal(m.ticks_per_second, 30);
	assert_int_equal(m.ticks_from_file, 1);
	assert_int_equal(m.clip_count, 1);
	assert_string_equal(m.clips[0]->name, "Turn");
	/* The position key at tick 60 is at 2 s: the clip's end. */
	assert_true(m.clips[0]->duration_ns == 2000000000LL);
	assert_int_equal(m.clips[0]->loop, LOOP_LOOP);
	clip_sample(m.clips[0], 1000000000LL, &pose);
	pose.t = vec3_make(0, 0, 0);
	mat = mat34_from_transform(&pose);
	assert_vec3_near(mat34_apply(&mat, vec3_make(1, 2, 3)), row_apply(mq, vec3_make(1, 2, 3)),
			 1e-5f);
	/* Halfway between the position keys. */
	clip_sample(m.clips[0], 1000000000LL, &pose);
	assert_vec3_near(pose.t, vec3_make(3, 0, 0), 1e-5f);
	x_model_free(&m);
}

static void test_default_ticks_and_options(void **state)
{
	static const char text[] = HEADER
		"Frame Bone { }\n"
		"AnimationSet {\n"
		" Animation { { Bone }\n"
		"  AnimationOptions { 1; 0; }\n"
		"  AnimationKey { 2; 3; 0; 3; 0,0,0;;, 4800; 3; 1,0,0;;, 9600; 3; 2,0,0;;; }\n"
		" }\n"
		"}\n";
	struct x_model m = { 0 };

	(void)state;
	load_ok(text, 0, &m);
	assert_int_equal(m.ticks_per_second, X_DEFAULT_TICKS_PER_SECOND);
	assert_int_equal(m.ticks_from_file, 0);
	assert_string_equal(m.clips[0]->name, "clip");
	assert_true(m.clips[0]->duration_ns == 2000000000LL);
	assert_int_equal(m.clips[0]->loop, LOOP_ONCE);
	assert_int_equal(m.clips[0]->tracks[0].t.interp, INTERP_CATMULL_ROM);
	x_model_free(&m);
	/* The configured default. */
	load_ok(text, 2400, &m);
	assert_true(m.clips[0]->duration_ns == 4000000000LL);
	x_model_free(&m);
}

/* A SkinWeights naming a bone no frame has: the file loads, the vertex it
 * alone moved stays with the mesh's frame, and the import says so. */
static void test_unknown_bone(void **state)
{
	static const char text[] = HEADER
		"Frame Root {\n"
		" FrameTransformMatrix { 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,4,0,1;; }\n"
		" Mesh { 2; 1;0;0;, 0;1;0;; 0;\n"
		"  SkinWeights { \"Root\"; 1; 0; 1.0; 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1;; }\n"
		"  SkinWeights { \"Ghost\"; 1; 1; 1.0; 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1;; }\n"
		" }\n"
		"}\n";
	struct x_model m = { 0 };
	vec3 out[2];

	(void)state;
	load_ok(text, 0, &m);
	assert_int_equal(m.unknown_bones, 1);
	assert_string_equal(m.first_unknown_bone, "Ghost");
	skin_rest(&m, 0, out);
	assert_vec3_near(out[0], vec3_make(1, 4, 0), 1e-5f);   /* offset identity: v * Root */
	assert_vec3_near(out[1], vec3_make(0, 5, 0), 1e-5f);   /* with its frame */
	x_model_free(&m);
}

/* Normals and texture coordinates: per-vertex, into bind space; a second
 * MeshNormals or MeshTextureCoords replaces the first (fuzz_x found the
 * first one leaking). */
static void test_normals_and_uvs(void **state)
{
	static const char text[] = HEADER
		"Frame Root {\n"
		" FrameTransformMatrix { 0,0,-1,0, 0,1,0,0, 1,0,0,0, 10,0,0,1;; }\n"
		" Mesh { 3; 0;0;0;, 1;0;0;, 0;1;0;; 1; 3; 0,1,2;;\n"
		"  MeshNormals { 1; 0;1;0;; 1; 3; 0,0,0;; }\n"
		"  MeshNormals { 2; 1;0;0;, -1.#IND00;0;0;; 1; 3; 0,1,0;; }\n"
		"  MeshTextureCoords { 3; 0;0;, 1;0;, 0;1;; }\n"
		"  MeshTextureCoords { 3; 0.5;0.5;, 1;1;, 0;0;; }\n"
		" }\n"
		"}\n";
	struct x_model m = { 0 };
	const struct mesh *me;
	vec3 n[3];

	(void)state;
	load_ok(text, 0, &m);
	me = m.meshes[0];
	assert_int_equal(me->normals, MESH_NORMALS_SKINNED);
	assert_non_null(me->uvs);
	assert_int_equal(me->uv_sets, 2);
	normals_rest(&m, 0, n);
	/* (1,0,0) turned by the root's rotation (x -> -z). */
	assert_vec3_near(n[0], vec3_make(0, 0, -1), 1e-6f);
	/* The NaN normal of a degenerate face adds nothing: a zero normal. */
	assert_vec3_near(n[1], vec3_make(0, 0, 0), 0);
	assert_true(me->uvs[0][0] == 0.5f && me->uvs[2][1] == 0.0f);
	x_model_free(&m);
}

/* Matrix keys (types 3 and 4) drive all three channels; a
 * CompressedAnimationSet (D3DX's unpublished format) is left out and
 * counted, the rest of the file kept. */
static void test_matrix_keys_and_compressed_sets(void **state)
{
	static const char text[] = HEADER
		"AnimTicksPerSecond { 10; }\n"
		"Frame Bone { }\n"
		"CompressedAnimationSet Packed { 1; 2; 3; }\n"
		"AnimationSet Move {\n"
		" Animation { { Bone }\n"
		"  AnimationKey { 4; 2;\n"
		"   0; 16; 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1;;,\n"
		"   10; 16; 0,1,0,0, -1,0,0,0, 0,0,1,0, 4,5,6,1;;; }\n"
		" }\n"
		"}\n";
	static const float end_m[16] = { 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 4, 5, 6, 1 };
	struct x_model m = { 0 };
	struct transform pose;
	mat34 mat;

	(void)state;
	load_ok(text, 0, &m);
	assert_int_equal(m.skipped_sets, 1);
	assert_int_equal(m.clip_count, 1);
	assert_string_equal(m.clips[0]->name, "Move");
	assert_int_equal(m.clips[0]->tracks[0].t.count, 2);
	assert_int_equal(m.clips[0]->tracks[0].r.count, 2);
	assert_int_equal(m.clips[0]->tracks[0].s.count, 2);
	clip_sample(m.clips[0], 1000000000LL, &pose);
	mat = mat34_from_transform(&pose);
	assert_vec3_near(mat34_apply(&mat, vec3_make(1, 2, 3)), row_apply(end_m, vec3_make(1, 2, 3)),
			 1e-5f);
	x_model_free(&m);
}

/* The import's notes: exactly one, at line:col, saying msg. */
static void expect_one_note(const struct x_model *m, uint32_t line, uint32_t col, const char *msg)
{
	const struct diag_notes *n = &m->notes;

	if (n->count != 1 || n->dropped != 0 || n->note[0].line != line ||
	    n->note[0].col != col || strstr(n->note[0].msg, msg) == NULL)
		fail_msg("%u notes, the first at %u:%u \"%s\"; want one at %u:%u \"%s\"",
			 (unsigned)n->count, n->count ? (unsigned)n->note[0].line : 0,
			 n->count ? (unsigned)n->note[0].col : 0, n->count ? n->note[0].msg : "",
			 (unsigned)line, (unsigned)col, msg);
}

static void assert_same_skin(const struct x_model *a, const struct x_model *b)
{
	const struct mesh *x = a->meshes[0], *y = b->meshes[0];

	assert_int_equal(a->mesh_count, b->mesh_count);
	assert_int_equal(x->vertex_count, y->vertex_count);
	assert_int_equal(x->influence_count, y->influence_count);
	assert_memory_equal(x->first_influence, y->first_influence,
			    ((size_t)x->vertex_count + 1) * sizeof *x->first_influence);
	assert_memory_equal(x->influences, y->influences,
			    x->influence_count * sizeof *x->influences);
	assert_memory_equal(x->triangles, y->triangles, x->triangle_count * sizeof *x->triangles);
}

/* nBones is a count animd never uses (it skins with the SkinWeights
 * present): disagreeing, it is a note, and the skin is the same. */
static void test_note_skin_header(void **state)
{
	static const char with[] = HEADER
		"Frame A { Mesh { 1; 1;0;0;; 0;\n"
		" XSkinMeshHeader { 1; 1; 2; }\n"
		" SkinWeights { \"A\"; 1; 0; 1.0; 1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1;; } } }\n";
	static const char without[] = HEADER
		"Frame A { Mesh { 1; 1;0;0;; 0;\n"
		" SkinWeights { \"A\"; 1; 0; 1.0; 1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1;; } } }\n";
	struct x_model a = { 0 }, b = { 0 };

	(void)state;
	load_ok(with, 0, &a);
	expect_one_note(&a, 3, 2, "XSkinMeshHeader declares 2 bones, but the mesh has 1 "
			"SkinWeights: nBones is not used");
	load_ok(without, 0, &b);
	assert_int_equal(b.notes.count, 0);
	assert_same_skin(&a, &b);
	x_model_free(&a);
	x_model_free(&b);
}

/* An Animation whose frame the file does not have (or that names none)
 * moves no joint: a note.  Its keys are still read, checked, and count
 * for the set's length, as D3DX's set keeps them. */
static void test_note_animation_without_frame(void **state)
{
	static const char text[] = HEADER
		"Frame A { }\n"
		"AnimationSet { Animation { { A }\n"
		"  AnimationKey { 2; 2; 0; 3; 0,0,0;;, 2400; 3; 2,0,0;;; } }\n"
		" Animation { { B }\n"
		"  AnimationKey { 2; 2; 0; 3; 0,0,0;;, 4800; 3; 9,9,9;;; } } }\n";
	static const char unnamed[] = HEADER
		"Frame A { }\n"
		"AnimationSet { Animation { { A }\n"
		"  AnimationKey { 2; 2; 0; 3; 0,0,0;;, 2400; 3; 2,0,0;;; } }\n"
		" Animation Stray {\n"
		"  AnimationOptions { 1; 1; }\n"
		"  AnimationKey { 2; 2; 0; 3; 0,0,0;;, 4800; 3; 9,9,9;;; } } }\n";
	struct x_model m = { 0 };
	struct transform pose;

	(void)state;
	load_ok(text, 0, &m);
	expect_one_note(&m, 5, 14, "Animation refers to frame \"B\", which the file does not "
			"have: its keys move no joint");
	assert_int_equal(m.skeleton->joint_count, 1);
	assert_int_equal(m.clip_count, 1);
	/* B's last key, at 4800 ticks, is the set's end. */
	assert_true(m.clips[0]->duration_ns == 1000000000LL);
	assert_int_equal(m.clips[0]->loop, LOOP_LOOP);
	assert_int_equal(m.clips[0]->tracks[0].t.count, 2);
	clip_sample(m.clips[0], 250000000LL, &pose);
	assert_vec3_near(pose.t, vec3_make(1, 0, 0), 1e-6f);
	x_model_free(&m);

	load_ok(unnamed, 0, &m);
	expect_one_note(&m, 5, 2, "Animation Stray names no frame: its keys move no joint");
	assert_true(m.clips[0]->duration_ns == 1000000000LL);
	/* One closed Animation (A's, without options) keeps the set looping. */
	assert_int_equal(m.clips[0]->loop, LOOP_LOOP);
	assert_int_equal(m.clips[0]->tracks[0].t.count, 2);
	x_model_free(&m);
}

/* Texture coordinates and vertex colours: animd keeps them but publishes
 * only that they are there (uv_sets, vertex_colors) and evaluates neither.
 * A set that is not one per vertex or not finite, an entry colouring no
 * vertex or not finite, is left out with a note; the mesh is the same. */
static void test_note_uvs_and_colors(void **state)
{
	static const char base[] = HEADER
		"Frame A { Mesh { 3; 0;0;0;, 1;0;0;, 0;1;0;; 1; 3; 0,1,2;;\n"
		"  MeshTextureCoords { 3; 0;0;, 1;0;, 0;1;; }\n"
		"  MeshVertexColors { 2; 0; 1;0;0;1;;, 2; 0;0;1;1;;; }\n"
		" } }\n";
	static const struct {
		const char *from, *to;
		uint32_t line, col;
		const char *msg;
		uint32_t uv_sets;
		int colour_of_2;        /* vertex 2 keeps its blue */
	} cases[] = {
		{ "MeshTextureCoords { 3; 0;0;, 1;0;, 0;1;; }",
		  "MeshTextureCoords { 2; 0;0;, 1;0;; }", 3, 3,
		  "MeshTextureCoords has 2 coordinates for 3 vertices: the set is left out", 0, 1 },
		{ "1;0;, 0;1;; }", "1;0;, 0;-1.#IND00;; }", 3, 38,
		  "MeshTextureCoords: the coordinate of vertex 2 is not finite: the set is left out",
		  0, 1 },
		{ "2; 0;0;1;1;;; }", "7; 0;0;1;1;;; }", 4, 39,
		  "MeshVertexColors colours vertex 7, but the mesh has 3: the entry is left out", 1,
		  0 },
		{ "2; 0;0;1;1;;; }", "2; 0;1.#QNAN0;1;1;;; }", 4, 39,
		  "MeshVertexColors: the colour of vertex 2 is not finite: the entry is left out", 1,
		  0 },
	};
	struct x_model clean = { 0 };

	(void)state;
	load_ok(base, 0, &clean);
	assert_int_equal(clean.notes.count, 0);
	assert_int_equal(clean.meshes[0]->uv_sets, 1);
	assert_true(clean.meshes[0]->colors[2][2] == 1.0f && clean.meshes[0]->colors[2][0] == 0.0f);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct x_model m = { 0 };
		char text[sizeof base + 64];
		const char *at = strstr(base, cases[i].from);
		const struct mesh *me;

		assert_non_null(at);
		snprintf(text, sizeof text, "%.*s%s%s", (int)(at - base), base, cases[i].to,
			 at + strlen(cases[i].from));
		load_ok(text, 0, &m);
		expect_one_note(&m, cases[i].line, cases[i].col, cases[i].msg);
		me = m.meshes[0];
		assert_int_equal(me->uv_sets, cases[i].uv_sets);
		if (cases[i].uv_sets == 0)
			assert_null(me->uvs);
		assert_non_null(me->colors);
		assert_true(me->colors[0][0] == 1.0f && me->colors[0][1] == 0.0f);
		assert_true(me->colors[2][0] == (cases[i].colour_of_2 ? 0.0f : 1.0f));
		assert_true(me->colors[1][0] == 1.0f && me->colors[1][1] == 1.0f);
		assert_same_skin(&m, &clean);
		x_model_free(&m);
	}
	x_model_free(&clean);
}

static void test_errors_located(void **state)
{
	(void)state;
	expect_fail(HEADER "Frame A { Mesh { 3; 1;0;0;, 0;1;0;, 0;0;1;; 1; 3; 0, 1, 7;; } }\n",
		    2, 57, "face 0 uses index 7, but there are only 3");
	expect_fail(HEADER "Frame A { Mesh { 99; 1;0;0;; 0; } }\n", 2, 18,
		    "nVertices is 99, but only");
	expect_fail(HEADER "Frame A { Mesh { 1; 1;0;0;; 0;\n"
		    " SkinWeights { \"A\"; 1; 4; 1.0; 1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1;; } } }\n",
		    3, 24, "weighs vertex 4, but the mesh has 1");
	/* An Animation that moves no joint still has its keys checked: they
	 * count for the set's length. */
	expect_fail(HEADER "Frame A { }\nAnimationSet { Animation { { B }\n"
		    " AnimationKey { 2; 1; 0; 4; 1,2,3,4;;; } } }\n", 4, 26,
		    "a position key has 4 values, not 3");
	expect_fail(HEADER "Frame A { }\nAnimationSet { Animation {\n"
		    " AnimationOptions { 2; 1; } } }\n", 4, 21, "openclosed is 2, outside 0..1");
	expect_fail(HEADER "Frame A { }\nAnimationSet { Animation { { A }\n"
		    " AnimationKey { 2; 1; 0; 4; 1,2,3,4;;; } } }\n", 4, 26,
		    "a position key has 4 values, not 3");
	expect_fail(HEADER "Frame A { }\nAnimationSet { Animation { { A }\n"
		    " AnimationKey { 1; 2; 5; 3; 1,1,1;;, 4; 3; 1,1,1;;; } } }\n", 4, 38,
		    "key 1 at tick 4 comes before key 0 at tick 5");
	expect_fail(HEADER "AnimTicksPerSecond { 0; }\n", 2, 1, "AnimTicksPerSecond is 0");
	expect_fail(HEADER "Frame A { FrameTransformMatrix { 1,0,0; } }\n", 2, 11,
		    "FrameTransformMatrix has too few values: a FrameTransformMatrix element is missing");
	expect_fail(HEADER "Frame A { Mesh { 1; \"x\";0;0;; 0; } }\n", 2, 21,
		    "a vertex coordinate must be a float, found a string");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_and_rigid_mesh),
		cmocka_unit_test(test_skinned_offsets),
		cmocka_unit_test(test_rotation_keys_and_ticks),
		cmocka_unit_test(test_default_ticks_and_options),
		cmocka_unit_test(test_unknown_bone),
		cmocka_unit_test(test_normals_and_uvs),
		cmocka_unit_test(test_matrix_keys_and_compressed_sets),
		cmocka_unit_test(test_note_skin_header),
		cmocka_unit_test(test_note_animation_without_frame),
		cmocka_unit_test(test_note_uvs_and_colors),
		cmocka_unit_test(test_errors_located),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
