/*
 * The .md5mesh parser: every strict rule has an input that breaks it and
 * an exact line:col and message; the hand-written fixtures parse to the
 * values they hold; every prefix of a valid file fails cleanly.  Inputs
 * are copied into buffers of their exact length, so under ASan any read
 * past the end is caught.
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

#include "daemon/formats/md5/md5.h"

#define MD5X_TYPE struct md5_model
#define MD5X_PARSER md5_mesh_parse
#define MD5X_FREE md5_model_free
#include "tests/unit/md5_expect.h"

#include "tests/support/testdata.h"

#define FIXTURES "tests/fixtures/md5/"

/* ---- a small valid mesh, one rule broken at a time ---- */

/* No indentation, so a column is the position in the line. */
static const char mesh_base[] =
	"MD5Version 10\n"                       /* 1 */
	"commandline \"\"\n"                    /* 2 */
	"numJoints 2\n"                         /* 3 */
	"numMeshes 1\n"                         /* 4 */
	"joints {\n"                            /* 5 */
	"\"a\" -1 ( 0 0 0 ) ( 0 0 0 )\n"        /* 6 */
	"\"b\" 0 ( 1 0 0 ) ( 0 0 0.5 )\n"       /* 7 */
	"}\n"                                   /* 8 */
	"mesh {\n"                              /* 9 */
	"shader \"s\"\n"                        /* 10 */
	"numverts 3\n"                          /* 11 */
	"vert 0 ( 0 0 ) 0 1\n"                  /* 12 */
	"vert 1 ( 1 0 ) 1 1\n"                  /* 13 */
	"vert 2 ( 0 1 ) 1 2\n"                  /* 14 */
	"numtris 1\n"                           /* 15 */
	"tri 0 0 1 2\n"                         /* 16 */
	"numweights 3\n"                        /* 17 */
	"weight 0 0 1 ( 0 0 0 )\n"              /* 18 */
	"weight 1 1 0.5 ( 1 0 0 )\n"            /* 19 */
	"weight 2 0 0.5 ( 0 1 0 )\n"            /* 20 */
	"}\n";                                  /* 21 */

static void test_base_parses(void **state)
{
	struct md5_model *m;

	(void)state;
	m = parse_ok(mesh_base, strlen(mesh_base));
	assert_int_equal(m->num_joints, 2);
	assert_int_equal(m->num_meshes, 1);
	assert_string_equal(m->commandline, "");
	assert_null(m->meshes[0].name);
	assert_string_equal(m->meshes[0].shader, "s");
	assert_int_equal(m->meshes[0].verts[2].first_weight, 1);
	assert_int_equal(m->meshes[0].verts[2].weight_count, 2);
	md5_model_free(m);
}

static void test_header_rules(void **state)
{
	(void)state;
	expect_subst_fail(mesh_base, "MD5Version 10", "MD5Version 11", 1, 12,
			  "unsupported MD5Version 11, expected 10");
	expect_subst_fail(mesh_base, "MD5Version 10", "MD5Version 10.0", 1, 12,
			  "expected an integer MD5Version, found \"10.0\"");
	expect_subst_fail(mesh_base, "MD5Version", "MD5version", 1, 1,
			  "expected \"MD5Version\", found \"MD5version\"");
	expect_subst_fail(mesh_base, "commandline \"\"\n", "", 2, 1,
			  "expected \"commandline\", found \"numJoints\"");
	expect_subst_fail(mesh_base, "commandline \"\"", "commandline x", 2, 13,
			  "expected a quoted commandline, found \"x\"");
	expect_subst_fail(mesh_base, "numJoints 2", "numJoints 0", 3, 11,
			  "numJoints 0 is out of range (1..65535)");
	expect_subst_fail(mesh_base, "numJoints 2", "numJoints 65536", 3, 11,
			  "numJoints 65536 is out of range (1..65535)");
	expect_subst_fail(mesh_base, "numJoints 2", "numJoints 0x2", 3, 11,
			  "expected an integer numJoints, found \"0x2\"");
	expect_subst_fail(mesh_base, "numMeshes 1", "numMeshes -1", 4, 11,
			  "numMeshes -1 is out of range (0..65535)");
	expect_subst_fail(mesh_base, "numJoints 2\nnumMeshes 1", "numMeshes 1\nnumJoints 2", 3, 1,
			  "expected \"numJoints\", found \"numMeshes\"");
}

static void test_count_limits(void **state)
{
	(void)state;
	/* Counts the rest of the file cannot back fail before any allocation. */
	expect_subst_fail(mesh_base, "numJoints 2", "numJoints 60000", 3, 11,
			  "numJoints 60000 is more than the file can hold");
	expect_subst_fail(mesh_base, "numMeshes 1", "numMeshes 65535", 4, 11,
			  "numMeshes 65535 is more than the file can hold");
	expect_subst_fail(mesh_base, "numverts 3", "numverts 99999999", 11, 10,
			  "numverts 99999999 is more than the file can hold");
	expect_subst_fail(mesh_base, "numverts 3", "numverts 4294967295", 11, 10,
			  "numverts 4294967295 is more than the file can hold");
	expect_subst_fail(mesh_base, "numverts 3", "numverts 4294967296", 11, 10,
			  "numverts 4294967296 is out of range (0..4294967295)");
	expect_subst_fail(mesh_base, "numtris 1", "numtris 1000", 15, 9,
			  "numtris 1000 is more than the file can hold");
	expect_subst_fail(mesh_base, "numweights 3", "numweights 2000000000", 17, 12,
			  "numweights 2000000000 is more than the file can hold");
	expect_subst_fail(mesh_base, "numverts 3", "numverts 99999999999999999999", 11, 10,
			  "expected an integer numverts, found \"99999999999999999999\"");
}

static void test_joint_rules(void **state)
{
	(void)state;
	expect_subst_fail(mesh_base, "\"a\" -1", "\"a\" 0", 6, 5,
			  "joint 0 \"a\" has parent 0; a parent must be -1 or an earlier joint");
	expect_subst_fail(mesh_base, "\"b\" 0", "\"b\" 1", 7, 5,
			  "joint 1 \"b\" has parent 1;");
	expect_subst_fail(mesh_base, "\"b\" 0", "\"b\" -2", 7, 5,
			  "joint 1 \"b\" has parent -2;");
	expect_subst_fail(mesh_base, "\"b\" 0", "\"b\" 4294967296", 7, 5,
			  "has parent 4294967296;");
	expect_subst_fail(mesh_base, "numJoints 2", "numJoints 3", 8, 1,
			  "the block ends after 2 joints but numJoints is 3");
	expect_subst_fail(mesh_base, "numJoints 2", "numJoints 1", 7, 1,
			  "expected '}' (numJoints is 1), found string \"b\"");
	expect_subst_fail(mesh_base, "\"a\" -1", "a -1", 6, 1,
			  "expected a quoted joint name, found \"a\"");
	expect_subst_fail(mesh_base, "( 1 0 0 )", "( nan 0 0 )", 7, 9,
			  "expected a finite number for joint position, found \"nan\"");
	expect_subst_fail(mesh_base, "( 0 0 0.5 )", "( 0 0 1e39 )", 7, 23,
			  "expected a finite number for joint orientation, found \"1e39\"");
	expect_subst_fail(mesh_base, "( 0 0 0.5 )", "( 0 0 0.5 0 )", 7, 27,
			  "expected ')', found \"0\"");
	expect_subst_fail(mesh_base, "joints {", "joints", 6, 1,
			  "expected '{', found string \"a\"");
}

static void test_mesh_block_rules(void **state)
{
	(void)state;
	expect_subst_fail(mesh_base, "numMeshes 1", "numMeshes 2", 22, 1,
			  "expected \"mesh\", found end of file");
	expect_subst_fail(mesh_base, "shader \"s\"", "shader s", 10, 8,
			  "expected a quoted shader, found \"s\"");
	/* Doom's order is shader, then numverts. */
	expect_subst_fail(mesh_base, "shader \"s\"\nnumverts 3", "numverts 3\nshader \"s\"", 10, 1,
			  "expected \"shader\", found \"numverts\"");
	expect_subst_fail(mesh_base, "shader \"s\"", "name \"m\"", 11, 1,
			  "expected \"shader\", found \"numverts\"");
	expect_subst_fail(mesh_base, "shader \"s\"", "name m shader \"s\"", 10, 6,
			  "expected a quoted mesh name, found \"m\"");
	expect_subst_fail(mesh_base, "}\n", "}\nextra\n", 9, 1,
			  "expected \"mesh\", found \"extra\"");
}

static void test_vert_rules(void **state)
{
	(void)state;
	expect_subst_fail(mesh_base, "vert 1 (", "vert 5 (", 13, 6, "vert 1 is numbered 5");
	expect_subst_fail(mesh_base, "vert 1 (", "vert x (", 13, 6,
			  "expected vert number 1, found \"x\"");
	expect_subst_fail(mesh_base, "( 1 0 ) 1 1", "( 1 0 ) 1 0", 13, 18,
			  "vert 1 has weightCount 0; every vertex needs at least one weight");
	expect_subst_fail(mesh_base, "( 0 1 ) 1 2", "( 0 1 ) 2 2", 14, 16,
			  "vert 2 uses weights 2..3 but the mesh has 3 weights");
	expect_subst_fail(mesh_base, "numweights 3", "numweights 2", 14, 16,
			  "vert 2 uses weights 1..2 but the mesh has 2 weights");
	/* The first offending vert is named, not the worst one. */
	expect_subst_fail(mesh_base, "( 1 0 ) 1 1", "( 1 0 ) 3 1", 13, 16,
			  "vert 1 uses weights 3..3 but the mesh has 3 weights");
	expect_subst_fail(mesh_base, "( 0 1 ) 1 2", "( 0 1 ) -1 2", 14, 16,
			  "vert firstWeight -1 is out of range (0..4294967295)");
	expect_subst_fail(mesh_base, "( 0 1 ) 1 2", "( 0 1 ) 4294967295 1", 14, 16,
			  "vert 2 uses weights 4294967295..4294967295 but the mesh has 3 weights");
	expect_subst_fail(mesh_base, "( 0 1 ) 1 2", "( 0 1 ) 1 4294967295", 14, 16,
			  "vert 2 uses weights 1..4294967295 but the mesh has 3 weights");
	expect_subst_fail(mesh_base, "numverts 3", "numverts 4", 15, 1,
			  "expected vert 3 (numverts is 4), found \"numtris\"");
	expect_subst_fail(mesh_base, "numverts 3", "numverts 2", 14, 1,
			  "expected \"numtris\", found \"vert\"");
	expect_subst_fail(mesh_base, "( 1 0 )", "( 1 )", 13, 12,
			  "expected a finite number for vert texture coordinate, found ')'");
}

static void test_tri_rules(void **state)
{
	(void)state;
	expect_subst_fail(mesh_base, "tri 0 0 1 2", "tri 0 0 1 3", 16, 11,
			  "tri 0 vertex index 3 is out of range (numverts 3)");
	expect_subst_fail(mesh_base, "tri 0 0 1 2", "tri 0 -1 1 2", 16, 7,
			  "tri 0 vertex index -1 is out of range (numverts 3)");
	expect_subst_fail(mesh_base, "tri 0 0 1 2", "tri 0 0 4294967296 2", 16, 9,
			  "tri 0 vertex index 4294967296 is out of range (numverts 3)");
	expect_subst_fail(mesh_base, "tri 0 0 1 2", "tri 1 0 1 2", 16, 5, "tri 0 is numbered 1");
	expect_subst_fail(mesh_base, "tri 0 0 1 2", "tri 0 0 1", 17, 1,
			  "expected an integer tri vertex index, found \"numweights\"");
	expect_subst_fail(mesh_base, "numtris 1", "numtris 2", 17, 1,
			  "expected tri 1 (numtris is 2), found \"numweights\"");
}

static void test_weight_rules(void **state)
{
	(void)state;
	expect_subst_fail(mesh_base, "weight 1 1 0.5", "weight 1 2 0.5", 19, 10,
			  "weight 1 names joint 2 but the mesh has 2 joints");
	expect_subst_fail(mesh_base, "weight 1 1 0.5", "weight 1 -1 0.5", 19, 10,
			  "weight 1 names joint -1 but the mesh has 2 joints");
	expect_subst_fail(mesh_base, "weight 2 0", "weight 3 0", 20, 8, "weight 2 is numbered 3");
	expect_subst_fail(mesh_base, "weight 1 1 0.5", "weight 1 1 inf", 19, 12,
			  "expected a finite number for weight bias, found \"inf\"");
	expect_subst_fail(mesh_base, "( 0 1 0 )\n}", "( 0 1 0 )\nweight 3 0 1 ( 0 0 0 )\n}", 21, 1,
			  "expected '}', found \"weight\"");
	expect_subst_fail(mesh_base, "numweights 3", "numweights 4", 21, 1,
			  "expected weight 3 (numweights is 4), found '}'");
}

static void test_file_level_rules(void **state)
{
	(void)state;
	expect_fail("", 1, 1, "expected \"MD5Version\", found end of file");
	expect_fail("  \n// only a comment\n", 3, 1, "expected \"MD5Version\", found end of file");
	expect_subst_fail(mesh_base, "( 0 1 0 )\n}\n", "( 0 1 0 )\n", 21, 1,
			  "expected '}', found end of file");
	expect_subst_fail(mesh_base, "commandline \"\"", "commandline \"abc", 2, 13,
			  "string opened here is not closed on its line");
	/* A NUL byte is a control byte, wherever it is. */
	{
		char buf[sizeof mesh_base];

		memcpy(buf, mesh_base, sizeof mesh_base);
		buf[strstr(mesh_base, "numJoints 2") - mesh_base + 10] = '\0';
		expect_fail_len(buf, sizeof mesh_base - 1, 3, 11, "unexpected control byte 0x00");
	}
}

/* The smallest spelling of every line: if a count check ever demanded
 * more bytes than a valid file needs, this would fail. */
static void test_compact_spelling(void **state)
{
	static const char compact[] =
		"MD5Version 10 commandline\"\"numJoints 1 numMeshes 2 joints{\"\"0(0 0 0)(0 0 0)}"
		"mesh{shader\"\"numverts 0 numtris 0 numweights 0}"
		"mesh{shader\"\"numverts 1 vert 0(0 0)0 1 numtris 1 tri 0 0 0 0 numweights 1 "
		"weight 0 0 0(0 0 0)}";
	struct md5_model *m;
	char *s;

	(void)state;
	/* joints{""0(...)...} has parent 0 for joint 0: make it -1 but keep
	 * the shortest forms everywhere else. */
	s = subst(compact, "joints{\"\"0(", "joints{\"\"-1(");
	m = parse_ok(s, strlen(s));
	assert_int_equal(m->num_meshes, 2);
	assert_int_equal(m->meshes[0].num_verts, 0);
	assert_int_equal(m->meshes[1].num_tris, 1);
	md5_model_free(m);
	free(s);
}

/* ---- fixtures ---- */

static void assert_near(float got, float want)
{
	if (fabsf(got - want) > 1e-6f)
		fail_msg("got %.9g, want %.9g", (double)got, (double)want);
}

static void test_fixture_values(void **state)
{
	struct md5_model *m;
	const struct md5_mesh *body, *head;
	size_t len;
	char *buf;

	(void)state;
	buf = read_file(FIXTURES "skin3.md5mesh", &len);
	m = parse_ok(buf, len);
	assert_string_equal(m->commandline, "hand-written fixture: 3 joints, 2 meshes");
	assert_int_equal(m->num_joints, 3);
	assert_int_equal(m->num_meshes, 2);
	assert_string_equal(m->joints[0].name, "root");
	assert_string_equal(m->joints[2].name, "head");
	assert_int_equal(m->joints[0].parent, -1);
	assert_int_equal(m->joints[1].parent, 0);
	assert_int_equal(m->joints[2].parent, 1);
	assert_near(m->joints[2].pos[1], -0.5f);
	assert_near(m->joints[2].pos[2], 20.25f);
	/* w = sqrt(|1 - x^2 - y^2 - z^2|) */
	assert_near(m->joints[0].orient[3], 1.0f);
	assert_near(m->joints[1].orient[2], 0.7071067691f);
	assert_near(m->joints[1].orient[3], sqrtf(1.0f - 0.7071067691f * 0.7071067691f));
	assert_near(m->joints[2].orient[3], 0.5f);

	body = &m->meshes[0];
	head = &m->meshes[1];
	assert_string_equal(body->name, "body");
	assert_string_equal(body->shader, "models/test/body");
	assert_null(head->name);
	assert_string_equal(head->shader, "models/test/head");
	assert_int_equal(body->num_verts, 4);
	assert_int_equal(body->num_tris, 2);
	assert_int_equal(body->num_weights, 6);
	assert_near(body->verts[2].st[0], 1.0f);
	assert_near(body->verts[2].st[1], 1.0f);
	assert_int_equal(body->verts[3].first_weight, 4);
	assert_int_equal(body->verts[3].weight_count, 2);
	assert_int_equal(body->tris[1][0], 0);
	assert_int_equal(body->tris[1][1], 2);
	assert_int_equal(body->tris[1][2], 3);
	assert_int_equal(body->weights[5].joint, 2);
	assert_near(body->weights[5].bias, 0.75f);
	assert_near(body->weights[5].pos[2], -0.15f);
	assert_int_equal(head->num_verts, 3);
	assert_int_equal(head->tris[0][0], 2);
	assert_int_equal(head->weights[2].joint, 2);
	md5_model_free(m);
	free(buf);
}

static void assert_models_equal(const struct md5_model *a, const struct md5_model *b)
{
	uint32_t i;

	assert_string_equal(a->commandline, b->commandline);
	assert_int_equal(a->num_joints, b->num_joints);
	assert_int_equal(a->num_meshes, b->num_meshes);
	for (i = 0; i < a->num_joints; i++) {
		assert_string_equal(a->joints[i].name, b->joints[i].name);
		assert_int_equal(a->joints[i].parent, b->joints[i].parent);
		assert_memory_equal(a->joints[i].pos, b->joints[i].pos, sizeof a->joints[i].pos);
		assert_memory_equal(a->joints[i].orient, b->joints[i].orient,
				    sizeof a->joints[i].orient);
	}
	for (i = 0; i < a->num_meshes; i++) {
		const struct md5_mesh *x = &a->meshes[i], *y = &b->meshes[i];

		if (x->name == NULL)
			assert_null(y->name);
		else
			assert_string_equal(x->name, y->name);
		assert_string_equal(x->shader, y->shader);
		assert_int_equal(x->num_verts, y->num_verts);
		assert_int_equal(x->num_tris, y->num_tris);
		assert_int_equal(x->num_weights, y->num_weights);
		assert_memory_equal(x->verts, y->verts, x->num_verts * sizeof *x->verts);
		assert_memory_equal(x->tris, y->tris, x->num_tris * sizeof *x->tris);
		assert_memory_equal(x->weights, y->weights, x->num_weights * sizeof *x->weights);
	}
}

/* Doom reads numMeshes mesh blocks and stops: whatever follows them is
 * not read, by Doom or by animd.  The file loads, the model is the one
 * without it, and a note says where the unread part starts. */
static void test_after_last_block_is_a_note(void **state)
{
	static const struct {
		const char *to;
		uint32_t line, col;
		const char *msg;
	} tails[] = {
		{ "( 0 1 0 )\n}\nextra\n", 22, 1,
		  "\"extra\" after the last block: what follows is not read" },
		{ "( 0 1 0 )\n}\n}", 22, 1, "'}' after the last block" },
		{ "( 0 1 0 )\n}\nmesh {\nshader \"t\"\n", 22, 1, "\"mesh\" after the last block" },
		/* Even what the lexer would refuse is not read. */
		{ "( 0 1 0 )\n}\n/* open", 22, 1,
		  "what follows the last block is not read (comment opened here is never closed)" },
		{ "( 0 1 0 )\n}\n  \"never closed", 22, 3,
		  "(string opened here is not closed on its line)" },
	};
	struct md5_model *base, *m;

	(void)state;
	base = parse_ok(mesh_base, strlen(mesh_base));
	assert_int_equal(base->notes.count, 0);
	for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
		m = expect_subst_note(mesh_base, "( 0 1 0 )\n}\n", tails[i].to, tails[i].line,
				      tails[i].col, tails[i].msg);
		assert_models_equal(m, base);
		md5_model_free(m);
	}
	/* A mesh block past numMeshes is not a mesh of the model. */
	m = expect_subst_note(mesh_base, "numMeshes 1", "numMeshes 0", 9, 1,
			      "\"mesh\" after the last block: what follows is not read");
	assert_int_equal(m->num_meshes, 0);
	assert_int_equal(m->num_joints, 2);
	md5_model_free(m);
	/* A control byte after the last block: the file is text up to it. */
	{
		char buf[sizeof mesh_base + 2];

		memcpy(buf, mesh_base, sizeof mesh_base);
		buf[sizeof mesh_base - 1] = '\0';
		buf[sizeof mesh_base] = 'x';
		m = parse_ok(buf, sizeof mesh_base + 1);
		expect_model_note(m, 22, 1, "(unexpected control byte 0x00");
		assert_models_equal(m, base);
		md5_model_free(m);
	}
	md5_model_free(base);
}

static void test_crlf_twin(void **state)
{
	struct md5_model *lf, *crlf;
	char *a, *b;
	size_t na, nb;

	(void)state;
	a = read_file(FIXTURES "skin3.md5mesh", &na);
	b = read_file(FIXTURES "skin3_crlf.md5mesh", &nb);
	assert_non_null(memchr(b, '\r', nb));
	lf = parse_ok(a, na);
	crlf = parse_ok(b, nb);
	assert_models_equal(lf, crlf);
	md5_model_free(lf);
	md5_model_free(crlf);
	free(a);
	free(b);
}

static void test_truncations(void **state)
{
	(void)state;
	check_file_prefixes(FIXTURES "skin3.md5mesh");
	check_file_prefixes(FIXTURES "skin3_crlf.md5mesh");
}

/* ---- other people's files (skipped when ../shared/testdata is absent) ---- */

static const struct {
	const char *file;
	uint32_t line, col;
	const char *msg;
} invalid_files[] = {
	{ "md5/assimp-invalid/InvalidBoneIndex.md5mesh", 23, 10,
	  "weight 0 names joint 999 but the mesh has 1 joint" },
	{ "md5/assimp-invalid/OverflowingTriangleIndex.md5mesh", 18, 5,
	  "tri 0 is numbered 4294967295" },
	{ "md5/assimp-invalid/OverflowingVertexIndex.md5mesh", 15, 6,
	  "vert 0 is numbered 4294967295" },
	{ "md5/assimp-invalid/OverflowingWeightIndex.md5mesh", 21, 8,
	  "weight 0 is numbered 4294967295" },
	{ "md5/assimp-invalid/malformed_weight_index.md5mesh", 18, 25,
	  "vert 0 uses weights 1000000..1000001 but the mesh has 16 weights" },
};

static const struct {
	const char *file;
	uint32_t joints, meshes, verts0;
} valid_files[] = {
	{ "md5/assimp/SimpleCube.md5mesh", 3, 1, 24 },
	{ "md5/mgl/bob.md5mesh", 15, 1, 376 },
	{ "md5/mgl/mech_warrior.md5mesh", 15, 1, 1516 },
	{ "md5/sauer-snoutx10k/snoutx10k.md5mesh", 75, 4, 92 },
};

static void test_real_files(void **state)
{
	size_t i, len;

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	for (i = 0; i < sizeof valid_files / sizeof valid_files[0]; i++) {
		char *buf = read_file(testdata_path(valid_files[i].file), &len);
		struct md5_model *m = parse_ok(buf, len);

		assert_int_equal(m->num_joints, valid_files[i].joints);
		assert_int_equal(m->num_meshes, valid_files[i].meshes);
		assert_int_equal(m->meshes[0].num_verts, valid_files[i].verts0);
		md5_model_free(m);
		free(buf);
	}
	for (i = 0; i < sizeof invalid_files / sizeof invalid_files[0]; i++) {
		char *buf = read_file(testdata_path(invalid_files[i].file), &len);

		expect_fail_len(buf, len, invalid_files[i].line, invalid_files[i].col,
				invalid_files[i].msg);
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_parses),
		cmocka_unit_test(test_header_rules),
		cmocka_unit_test(test_count_limits),
		cmocka_unit_test(test_joint_rules),
		cmocka_unit_test(test_mesh_block_rules),
		cmocka_unit_test(test_vert_rules),
		cmocka_unit_test(test_tri_rules),
		cmocka_unit_test(test_weight_rules),
		cmocka_unit_test(test_file_level_rules),
		cmocka_unit_test(test_compact_spelling),
		cmocka_unit_test(test_fixture_values),
		cmocka_unit_test(test_after_last_block_is_a_note),
		cmocka_unit_test(test_crlf_twin),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_real_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
