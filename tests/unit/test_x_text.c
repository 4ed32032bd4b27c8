/*
 * The .x text reader (x_text_read): hand-written fixtures in
 * tests/fixtures/x read into exactly the tree they spell (types, names,
 * GUIDs, values with their kinds, children in order, references), in every
 * style real exporters use (loose and doubled separators, no white space,
 * MSVC and C NaN spellings, both comment kinds, CRLF, 64-bit floats);
 * malformed input is rejected at the exact line:col with a message a
 * person can act on; every prefix of a valid file fails cleanly or parses;
 * the real text files in ../shared/testdata/x go through x_parse (skipped
 * when the folder is absent).  Inputs are copied into buffers of their
 * exact length so ASan catches any over-read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/x/x.h"
#include "daemon/formats/x/x_syntax.h"
#include "tests/support/testdata.h"

#define FIXTURES "tests/fixtures/x/"
#define HEADER "xof 0303txt 0032"

static char *read_file(const char *path, size_t *len)
{
	char *buf = test_file_read(path, len);

	if (buf == NULL)
		fail_msg("cannot read %s (tests run from the repository root)", path);
	return buf;
}

/*
 * A whole text file, header included, read with x_text_read: the header by
 * x_header_parse, the body a copy of exactly len - 16 bytes owned by the
 * tree (x_tree_free frees it).  `compressed` pretends the body was
 * inflated, which changes only how errors are located.
 */
static int read_x(const char *data, size_t len, bool compressed, struct x_tree *t,
		  struct diag *d)
{
	char *body = malloc(len > 16 ? len - 16 : 1);

	assert_non_null(body);
	memset(t, 0, sizeof *t);
	memset(d, 0, sizeof *d);
	assert_int_equal(x_header_parse(data, len, &t->header, d), 0);
	assert_int_equal(t->header.encoding, X_TEXT);
	t->header.compressed = compressed;
	memcpy(body, data + 16, len - 16);
	t->owned_body = body;
	t->body = body;
	t->body_len = len - 16;
	return x_text_read(t, d);
}

static void read_ok(const char *data, size_t len, struct x_tree *t)
{
	struct diag d;
	char msg[512];

	if (read_x(data, len, false, t, &d) != 0) {
		diag_format(&d, "input", msg, sizeof msg);
		fail_msg("%s", msg);
	}
}

static void read_fixture(const char *name, struct x_tree *t)
{
	char path[256];
	size_t len;
	char *data;

	snprintf(path, sizeof path, FIXTURES "%s", name);
	data = read_file(path, &len);
	read_ok(data, len, t);
	free(data);
}

/* ---- the tree as one line of text, to compare whole -------------- */

struct dump {
	char buf[8192];
	size_t n;
};

static void put(struct dump *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct dump *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s->buf + s->n, sizeof s->buf - s->n, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof s->buf - s->n);
	s->n += (size_t)n;
}

static void put_guid(struct dump *s, const uint8_t g[16])
{
	put(s, "<");
	for (int i = 0; i < 16; i++)
		put(s, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", g[i]);
	put(s, ">");
}

/*
 * Type[ name][ <guid>] { values children }, a reference as {name <guid>};
 * integers as i:N, floats as f:%.17g (nan, -nan, inf, -inf), strings
 * quoted.  Values come before children: the tree keeps them apart.
 */
static void dump_object(struct dump *s, const struct x_object *o, uint32_t depth)
{
	assert_int_equal(o->depth, depth);
	if (o->type == NULL) {
		put(s, "{%s", o->name ? o->name : "");
		if (o->has_guid) {
			put(s, "%s", o->name ? " " : "");
			put_guid(s, o->guid);
		}
		put(s, "}");
		assert_int_equal(o->value_count, 0);
		assert_int_equal(o->child_count, 0);
		return;
	}
	put(s, "%s", o->type);
	if (o->name != NULL)
		put(s, " %s", o->name);
	if (o->has_guid) {
		put(s, " ");
		put_guid(s, o->guid);
	}
	put(s, " {");
	for (uint32_t i = 0; i < o->value_count; i++) {
		const struct x_value *v = &o->values[i];

		if (v->kind == X_VALUE_INT)
			put(s, " i:%" PRId64, v->v.i);
		else if (v->kind == X_VALUE_STRING)
			put(s, " \"%s\"", v->v.s.ptr);
		else if (isnan(v->v.f))
			put(s, " f:%snan", signbit(v->v.f) ? "-" : "");
		else
			put(s, " f:%.17g", v->v.f);
	}
	for (uint32_t i = 0; i < o->child_count; i++) {
		put(s, " ");
		dump_object(s, o->children[i], depth + 1);
	}
	put(s, " }");
}

static const char *dump_tree(struct dump *s, const struct x_tree *t)
{
	s->n = 0;
	s->buf[0] = '\0';
	for (uint32_t i = 0; i < t->root_count; i++) {
		if (i > 0)
			put(s, "\n");
		dump_object(s, t->roots[i], 0);
	}
	return s->buf;
}

static void expect_tree(const struct x_tree *t, const char *want)
{
	struct dump s;

	if (strcmp(dump_tree(&s, t), want) != 0)
		fail_msg("tree:\n%s\nwant:\n%s", s.buf, want);
}

/* Where x_tree_error puts a position: what the importer will report. */
static void expect_at(const struct x_tree *t, uint32_t pos, uint32_t line, uint32_t col)
{
	struct diag d = { 0 };

	x_tree_error(t, &d, pos, "here");
	if (d.line != line || d.col != col)
		fail_msg("position %u is at %u:%u; want %u:%u", (unsigned)pos, (unsigned)d.line,
			 (unsigned)d.col, (unsigned)line, (unsigned)col);
}

/* ---- valid files -------------------------------------------------- */

static void test_scene(void **state)
{
	const struct x_object *root, *mesh;
	struct x_tree t;

	(void)state;
	read_fixture("scene.x", &t);
	expect_tree(&t,
		    "Header { i:1 i:0 i:1 }\n"
		    "Frame Root <01234567-89ab-cdef-0123-456789abcdef> {"
		    " FrameTransformMatrix { f:1 f:0 f:0 f:0 f:0 f:1 f:0 f:0 f:0 f:0 f:1 f:0"
		    " f:0.5 i:-2 f:300 f:1 }"
		    " Frame 3DSMesh-1 { Mesh { i:2 f:0 f:0 f:0 f:1 f:0.25 f:-0"
		    " TextureFilename { \"skin 01.png\" } } } }\n"
		    "AnimationSet Walk {"
		    " Animation { {Root} AnimationKey { i:0 i:1 i:0 i:4 f:1 f:0 f:0 f:0 } }"
		    " Animation { {<01234567-89ab-cdef-0123-456789abcdef>} }"
		    " Animation { {3DSMesh-1 <01234567-89ab-cdef-0123-456789abcdef>} } }");
	assert_int_equal(t.root_count, 3);
	assert_int_equal(t.object_count, 14);
	assert_int_equal(t.value_count, 3 + 16 + 7 + 1 + 8);
	/* Positions point at the type word and at each value. */
	root = t.roots[1];
	expect_at(&t, root->pos, 26, 1);
	expect_at(&t, root->children[0]->pos, 28, 2);
	expect_at(&t, root->children[0]->values[13].pos, 32, 8);
	mesh = root->children[1]->children[0];
	expect_at(&t, mesh->children[0]->values[0].pos, 40, 5);
	expect_at(&t, t.roots[2]->children[0]->children[0]->pos, 48, 3);
	assert_true(signbit(mesh->values[6].v.f));
	x_tree_free(&t);
}

/* No white space at all, separators doubled, tripled, mixed or missing. */
static void test_compact(void **state)
{
	struct x_tree t;

	(void)state;
	read_fixture("compact.x", &t);
	expect_tree(&t,
		    "Frame Root { FrameTransformMatrix { f:1 f:0 f:0 f:0 f:0 f:1 f:0 f:0 f:0 f:0"
		    " f:1 f:0 f:0 f:0 f:0 f:1 }"
		    " Mesh { i:3 i:1 i:2 i:3 i:4 i:-5 i:6 i:7 i:8 i:9 \"a\" \"\" } }\n"
		    "AnimationSet { Animation { {Root} AnimationKey { i:0 i:1 i:0 i:3 f:nan f:-nan"
		    " f:nan } } }");
	expect_at(&t, t.roots[1]->pos, 2, 139);
	x_tree_free(&t);
}

static void test_nan_spellings(void **state)
{
	struct x_tree t;

	(void)state;
	read_fixture("nan.x", &t);
	expect_tree(&t, "Values { f:inf f:-inf f:nan f:-nan f:nan f:-nan f:nan"
			" f:inf f:-nan f:inf f:-inf f:nan f:-nan f:nan f:-nan f:nan }");
	x_tree_free(&t);
}

/* A 64-bit-float file: values keep every bit; integers use all 64. */
static void test_doubles(void **state)
{
	struct x_tree t;
	const struct x_value *v;

	(void)state;
	read_fixture("double.x", &t);
	assert_int_equal(t.header.float_bits, 64);
	assert_int_equal(t.header.minor, 2);
	assert_int_equal(t.root_count, 1);
	v = t.roots[0]->values;
	assert_int_equal(t.roots[0]->value_count, 14);
	assert_true(v[0].kind == X_VALUE_FLOAT && v[0].v.f == 0.1);
	assert_true(v[1].v.f == 0.30000000000000004 && v[1].v.f != 0.3);
	assert_true(v[2].v.f == 1.7976931348623157e308);
	assert_true(v[3].v.f == 4.9406564584124654e-324 && v[3].v.f > 0);
	assert_true(v[4].v.f == 123456789.12345678);
	assert_true(v[5].kind == X_VALUE_INT && v[5].v.i == INT64_MIN);
	assert_true(v[6].kind == X_VALUE_INT && v[6].v.i == INT64_MAX);
	assert_true(v[7].kind == X_VALUE_INT && v[7].v.i == 7);
	assert_true(v[8].kind == X_VALUE_INT && v[8].v.i == 7);
	assert_true(v[9].kind == X_VALUE_INT && v[9].v.i == 0);
	assert_true(v[10].kind == X_VALUE_FLOAT && v[10].v.f == 1.0);
	assert_true(v[11].kind == X_VALUE_FLOAT && v[11].v.f == 0.5);
	assert_true(v[12].kind == X_VALUE_FLOAT && v[12].v.f == 1000.0);
	assert_true(v[13].kind == X_VALUE_FLOAT && v[13].v.f == 2e-3);
	x_tree_free(&t);
}

/* Clinger's fast path and strtod agree bit for bit. */
static void test_float_conversion(void **state)
{
	static const char *const words[] = {
		"0.1", "-0.7", "3.14159265358979", "1e22", "1e23", "123456789012345678e-5",
		"9007199254740993", "0.000001", "1.000000", "-88.696747", "133.967667",
		"2.2250738585072014e-308", "5e-324", "1e-400", "17976931348623157e292",
	};

	(void)state;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		char text[128];
		struct x_tree t;
		double want = strtod(words[i], NULL);
		const struct x_value *v;

		snprintf(text, sizeof text, HEADER "\nV { %s; }", words[i]);
		read_ok(text, strlen(text), &t);
		v = &t.roots[0]->values[0];
		/* "9007199254740993" has no point: an integer. */
		if (v->kind == X_VALUE_INT)
			assert_true(v->v.i == 9007199254740993);
		else if (memcmp(&v->v.f, &want, sizeof want) != 0)
			fail_msg("%s: read %.17g, strtod %.17g", words[i], v->v.f, want);
		x_tree_free(&t);
	}
}

static void test_crlf(void **state)
{
	struct x_tree t;

	(void)state;
	read_fixture("crlf.x", &t);
	expect_tree(&t, "Frame Root { FrameTransformMatrix { f:1 f:2 } {Other} }");
	expect_at(&t, t.roots[0]->pos, 4, 1);
	expect_at(&t, t.roots[0]->children[0]->values[1].pos, 6, 8);
	expect_at(&t, t.roots[0]->children[1]->pos, 8, 2);
	x_tree_free(&t);
}

static void check_text(const char *body, const char *want)
{
	char *text = malloc(strlen(HEADER) + strlen(body) + 1);
	struct x_tree t;

	assert_non_null(text);
	strcpy(text, HEADER);
	strcat(text, body);
	read_ok(text, strlen(text), &t);
	expect_tree(&t, want);
	x_tree_free(&t);
	free(text);
}

/* Smaller points of the grammar, one at a time. */
static void test_grammar(void **state)
{
	(void)state;
	/* Names are any word, types are identifiers; a name may look like a
	 * number or a keyword. */
	check_text("\nFrame 1 { } Frame template { } Frame 1.0 { } Frame a.b-c { }",
		   "Frame 1 { }\nFrame template { }\nFrame 1.0 { }\nFrame a.b-c { }");
	check_text("\nFrame _a9 { Mesh m {} }", "Frame _a9 { Mesh m { } }");
	/* A number never starts an object: "1 {" is a value and a reference. */
	check_text("\nA { 1 { b } }", "A { i:1 {b} }");
	check_text("\nA { { 2 } }", "A { {2} }");
	/* A GUID only right after '{'; templates anywhere at the top, any case. */
	check_text("\nA{<00000000-0000-0000-0000-00000000000a>1;}Template B{<x>}TEMPLATE C{{}}",
		   "A <00000000-0000-0000-0000-00000000000a> { i:1 }");
	/* '#' at the start of a token comments; inside a word it belongs to it. */
	check_text("\nA { 1;#2;\n3;// 4;\n5; }", "A { i:1 i:3 i:5 }");
	check_text("\nA { 1.#INF00;# 2;\n}", "A { f:inf }");
	/* Separators at the top level, an empty file, only templates. */
	check_text(";\nA { } ;, B { };", "A { }\nB { }");
	check_text("", "");
	check_text("\n// nothing\ntemplate T { <00000000-0000-0000-0000-000000000000> }", "");
	/* Strings keep everything between their quotes, separators too. */
	check_text("\nA { \"a;b,c{d}\"; \"\" }", "A { \"a;b,c{d}\" \"\" }");
	/* Trailing NULs (padding) are white space. */
	{
		static const char padded[] = HEADER "\nA { 1; }\0\0\0";
		struct x_tree t;

		read_ok(padded, sizeof padded - 1, &t);
		expect_tree(&t, "A { i:1 }");
		x_tree_free(&t);
	}
}

/* ---- malformed input ---------------------------------------------- */

static void expect_fail_len(const char *body, size_t body_len, uint32_t line, uint32_t col,
			    const char *msg)
{
	size_t n = strlen(HEADER);
	char *text = malloc(n + body_len);
	struct x_tree t;
	struct diag d;
	int rc;

	assert_non_null(text);
	memcpy(text, HEADER, n);
	memcpy(text + n, body, body_len);
	rc = read_x(text, n + body_len, false, &t, &d);
	if (rc != -EINVAL || d.line != line || d.col != col || strstr(d.msg, msg) == NULL)
		fail_msg("got rc %d at %u:%u \"%s\"; want -EINVAL at %u:%u \"%s\"", rc,
			 (unsigned)d.line, (unsigned)d.col, d.msg, (unsigned)line,
			 (unsigned)col, msg);
	x_tree_free(&t);
	free(text);
}

#define expect_fail(body, line, col, msg) expect_fail_len(body, strlen(body), line, col, msg)

static void test_unterminated(void **state)
{
	(void)state;
	expect_fail("\nTextureFilename {\n \"skin.png;\n}\n", 3, 2,
		    "string opened here is not closed on its line");
	expect_fail("\nA { 1; }\n/* never\nclosed", 3, 1, "comment opened here is never closed");
	expect_fail("\nA {\n <0123-\n}", 3, 2, "GUID opened here is not closed on its line");
	expect_fail("\ntemplate Vector {\n <3D82AB5E-62DA-11cf-AB39-0020AF71E433>\n FLOAT x;\n",
		    2, 1, "template Vector is never closed: the file ends before its '}'");
	/* The body starts on line 1 at column 17, after the header. */
	expect_fail("\"x", 1, 17, "string opened here is not closed on its line");
}

static void test_unbalanced(void **state)
{
	(void)state;
	expect_fail("\nFrame Root {\n Frame Child {\n }\n", 2, 1,
		    "Frame Root is never closed: the file ends before its '}'");
	expect_fail("\nFrame Root {\n Frame Child {\n", 3, 2,
		    "Frame Child is never closed");
	expect_fail("\nA { 1; }\n}\n", 3, 1, "'}' closes nothing");
	expect_fail("\nA { B { } } }", 2, 13, "'}' closes nothing");
}

static void test_stray(void **state)
{
	(void)state;
	expect_fail("\nFrame Root {\n 1.0; oops; 2.0;\n}\n", 3, 7,
		    "expected a value, an object or '}', found \"oops\" "
		    "(an object is written Type [name] { ... })");
	expect_fail("\nA { 1.0.0; }", 2, 5, "expected a value, an object or '}', found \"1.0.0\"");
	expect_fail("\nA { 1.0f; }", 2, 5, "found \"1.0f\"");
	expect_fail("\nA { 0x10; }", 2, 5, "found \"0x10\"");
	expect_fail("\nA { 1; - }", 2, 8, "found \"-\"");
	expect_fail("\nA { 1.#IND00x; }", 2, 5, "found \"1.#IND00x\"");
	expect_fail("\nA { 1.#; }", 2, 5, "found \"1.#\"");
	/* '#' where a token starts is a comment, even before "IND00; }". */
	expect_fail("\nA { #IND00; }", 2, 1, "A is never closed");
	expect_fail("\nA { nan(; }", 2, 5, "found \"nan(\"");
	expect_fail("\nA { nan(a-b); }", 2, 5, "found \"nan(a-b)\"");
	expect_fail("\nA { infinit; }", 2, 5, "found \"infinit\"");
	expect_fail("\nA { Frame; }", 2, 5, "found \"Frame\"");
	expect_fail("\nFrame Root ;", 2, 12, "expected '{' after \"Frame Root\", found ';'");
	expect_fail("\nFrame Root Extra {}", 2, 12,
		    "expected '{' after \"Frame Root\", found \"Extra\"");
	expect_fail("\nFrame Root", 2, 11, "expected '{' after \"Frame Root\", found end of file");
	expect_fail("\nA { oops 2.0; }", 2, 5, "found \"oops\"");
	expect_fail("\nA {\n 3DSMesh-1 { }\n}", 3, 2,
		    "\"3DSMesh-1\" cannot start an object: a type name is letters, digits and '_'");
	expect_fail("\nA { [ }", 2, 5, "expected a value, an object or '}', found '['");
	expect_fail("\nA { 1; <01234567-89ab-cdef-0123-456789abcdef> }", 2, 8,
		    "unexpected GUID <01234567-89ab-cdef-0123-456789abcdef>: an object's GUID "
		    "comes right after its '{'");
	expect_fail("\nA { <01234567-89ab-cdef-0123-456789abcdeg> }", 2, 5,
		    "malformed GUID <01234567-89ab-cdef-0123-456789abcdeg>");
	expect_fail("\nA { <0123456789abcdef0123456789abcdef> }", 2, 5, "malformed GUID");
	expect_fail("\nA { <01234567-89ab-cdef-0123-456789abcdef0> }", 2, 5, "malformed GUID");
	expect_fail("\nA {\n template B { }\n}", 3, 2,
		    "a template inside an object: templates belong at the top level");
	expect_fail("\ntemplate { }", 2, 10,
		    "expected a template name after \"template\", found '{'");
	expect_fail("\ntemplate T ;", 2, 12, "expected '{' after \"template T\", found ';'");
}

static void test_top_level(void **state)
{
	(void)state;
	expect_fail("\nHeader { 1; }\n2.5;\n", 3, 1,
		    "expected an object or a template, found \"2.5\" "
		    "(values belong inside an object's braces)");
	expect_fail("\n\"text\";", 2, 1, "found string \"text\" (values belong inside");
	expect_fail("\n-1.#IND00", 2, 1, "found \"-1.#IND00\" (values belong inside");
	expect_fail("\n{ Root }", 2, 1, "expected an object or a template, found '{'");
	expect_fail("\n<01234567-89ab-cdef-0123-456789abcdef>", 2, 1,
		    "expected an object or a template, found GUID <01234567");
	expect_fail("\nA { } oops", 2, 7, "expected an object or a template, found \"oops\" "
		    "(an object is written Type [name] { ... })");
	expect_fail("\n]", 2, 1, "expected an object or a template, found ']'");
}

static void test_references(void **state)
{
	(void)state;
	expect_fail("\nAnimation {\n { }\n}\n", 3, 2,
		    "a reference with nothing in it: write { name }, { <GUID> } "
		    "or { name <GUID> }");
	expect_fail("\nA {\n {}}", 3, 2, "a reference with nothing in it");
	expect_fail("\nA { { Root 1 } }", 2, 12, "expected '}' to end the reference, found \"1\"");
	expect_fail("\nA { { Root; } }", 2, 11, "expected '}' to end the reference, found ';'");
	expect_fail("\nA { { ; } }", 2, 7,
		    "expected a name or a <GUID> in the reference, found ';'");
	expect_fail("\nA { { \"Root\" } }", 2, 7,
		    "expected a name or a <GUID> in the reference, found string \"Root\"");
	expect_fail("\nA { { <01234567-89ab-cdef-0123-456789abcdef> Root } }", 2, 46,
		    "expected '}' to end the reference, found \"Root\"");
	expect_fail("\nA { { Root", 2, 11, "expected '}' to end the reference, found end of file");
}

static void test_numbers_out_of_range(void **state)
{
	(void)state;
	expect_fail("\nHeader { 9223372036854775808; }", 2, 10,
		    "integer 9223372036854775808 does not fit in 64 bits");
	expect_fail("\nA { -9223372036854775809; }", 2, 5,
		    "integer -9223372036854775809 does not fit in 64 bits");
	expect_fail("\nA { 1; 99999999999999999999999999; }", 2, 8, "does not fit in 64 bits");
	expect_fail("\nA { 1e309; }", 2, 5, "number 1e309 is too large for a double");
	expect_fail("\nA { -1.8e308; }", 2, 5, "number -1.8e308 is too large for a double");
}

static void test_garbage(void **state)
{
	static const char nul[] = "\nA { 1;\0 2; }";

	(void)state;
	expect_fail("\nHeader {\n 1;\x01 2;\n}\n", 3, 4,
		    "unexpected control byte 0x01 (is this a text file?)");
	expect_fail_len(nul, sizeof nul - 1, 2, 7, "unexpected control byte 0x00");
	expect_fail("\nA { 1; \xff\xfe; }", 2, 8,
		    "expected a value, an object or '}', found \"\\xff\\xfe\"");
	expect_fail("\nA { \"a\x7f\" }", 2, 7, "unexpected control byte 0x7f in a string");
	expect_fail("\n\x89PNG", 2, 1, "expected an object or a template, found \"\\x89PNG\"");
	/* A binary body under a text header. */
	expect_fail_len("\x1f\x00\x01\x00", 4, 1, 17, "unexpected control byte 0x1f");
}

/* Line ends of every kind count once; a column counts bytes. */
static void test_error_lines(void **state)
{
	(void)state;
	expect_fail("\r\nA {\r\n 1; oops;\r\n}\r\n", 3, 5, "found \"oops\"");
	expect_fail("\rA {\r 1;\r\toops;\r}\r", 4, 2, "found \"oops\"");
	expect_fail("\r\n\n\rA {\n\r\n 1; oops; }", 6, 5, "found \"oops\"");
	expect_fail("\r\nA { \"open\r\n\"", 2, 5, "string opened here is not closed on its line");
	expect_fail("\n# comment { \n// comment }\nA { 1; \"x }", 4, 8, "string opened here");
}

/* Deeper than X_MAX_DEPTH: refused at the object that goes too deep. */
static void test_depth(void **state)
{
	size_t n = X_MAX_DEPTH + 1, len = 1 + 2 * n;
	char *body = malloc(len + 2 * n);
	struct x_tree t;
	char *text;

	(void)state;
	assert_non_null(body);
	body[0] = '\n';
	for (size_t i = 0; i < n; i++)
		memcpy(body + 1 + 2 * i, "A{", 2);
	expect_fail_len(body, len, 2, (uint32_t)(1 + 2 * X_MAX_DEPTH),
			"objects nested deeper than 128 levels");
	/* X_MAX_DEPTH levels are fine. */
	len = 1 + 2 * X_MAX_DEPTH;
	memset(body + len, '}', X_MAX_DEPTH);
	text = malloc(16 + len + X_MAX_DEPTH);
	assert_non_null(text);
	memcpy(text, HEADER, 16);
	memcpy(text + 16, body, len + X_MAX_DEPTH);
	read_ok(text, 16 + len + X_MAX_DEPTH, &t);
	assert_int_equal(t.object_count, X_MAX_DEPTH);
	x_tree_free(&t);
	free(text);
	free(body);
}

/* In decompressed text ("tzip") errors are byte offsets in the file as
 * decompressed, header included: the lexer's as well as the grammar's. */
static void test_compressed_offsets(void **state)
{
	static const char *const texts[] = {
		HEADER "\nA {\n \"open\n}",
		HEADER "\nA {\n oops; }",
		HEADER "\nA {\n \x01 }",
	};
	static const uint64_t offsets[] = { 16 + 6, 16 + 6, 16 + 6 };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct x_tree t;
		struct diag d;

		assert_int_equal(read_x(texts[i], strlen(texts[i]), true, &t, &d), -EINVAL);
		assert_int_equal(d.line, 0);
		assert_int_equal(d.offset, offsets[i]);
		assert_non_null(strstr(d.msg, "in the decompressed data: "));
		x_tree_free(&t);
	}
}

/* Every prefix of a valid file either parses (it ends between top-level
 * objects) or fails with a located error; under ASan this also proves the
 * reader never reads past the body. */
static void check_prefixes(const char *name)
{
	char path[256];
	size_t len, parsed = 0;
	char *data;

	snprintf(path, sizeof path, FIXTURES "%s", name);
	data = read_file(path, &len);
	for (size_t n = 16; n <= len; n++) {
		struct x_tree t;
		struct diag d;
		int rc = read_x(data, n, false, &t, &d);

		if (rc == 0)
			parsed++;
		else if (rc != -EINVAL || !d.set || d.line == 0)
			fail_msg("%s, first %zu bytes: rc %d", name, n, rc);
		x_tree_free(&t);
	}
	assert_true(parsed > 0);
	free(data);
}

static void test_prefixes(void **state)
{
	(void)state;
	check_prefixes("scene.x");
	check_prefixes("compact.x");
	check_prefixes("crlf.x");
	check_prefixes("nan.x");
}

/* ---- real files --------------------------------------------------- */

static uint32_t count_type(const struct x_object *o, const char *type)
{
	uint32_t n = o->type != NULL && strcmp(o->type, type) == 0;

	for (uint32_t i = 0; i < o->child_count; i++)
		n += count_type(o->children[i], type);
	return n;
}

static uint32_t count_refs(const struct x_object *o)
{
	uint32_t n = o->type == NULL;

	for (uint32_t i = 0; i < o->child_count; i++)
		n += count_refs(o->children[i]);
	return n;
}

static uint32_t tree_count(const struct x_tree *t, const char *type)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->root_count; i++)
		n += type ? count_type(t->roots[i], type) : count_refs(t->roots[i]);
	return n;
}

/* Read a real file through x_parse and say what it holds; returns the
 * file's bytes, which a plain file's tree points into. */
static char *report_file(const char *rel, struct x_tree *t)
{
	struct diag d = { 0 };
	size_t len;
	char *data;

	data = read_file(testdata_path(rel), &len);
	assert_int_equal(x_parse(data, len, t, &d), 0);
	print_message("  %s: %u top-level objects, %u objects and references, %llu values\n",
		      rel, t->root_count, t->object_count, (unsigned long long)t->value_count);
	return data;
}

/* Two shapes known from the files' own text. */
static void test_real_counts(void **state)
{
	struct x_tree t;
	char *data;

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	/* tiny.x: 48 frames with a matrix each, one mesh with 35 SkinWeights,
	 * one AnimationSet of 47 Animations, each with one { Frame }
	 * reference and one AnimationKey.  The object and value counts were
	 * made independently from the file's text (a regular expression over
	 * the part after the templates). */
	data = report_file("x/dxsdk/tiny.x", &t);
	assert_int_equal(t.root_count, 2);
	assert_int_equal(t.object_count, 281);
	assert_true(t.value_count == 165071);
	assert_int_equal(tree_count(&t, "Frame"), 48);
	assert_int_equal(tree_count(&t, "FrameTransformMatrix"), 48);
	assert_int_equal(tree_count(&t, "Mesh"), 1);
	assert_int_equal(tree_count(&t, "SkinWeights"), 35);
	assert_int_equal(tree_count(&t, "AnimationSet"), 1);
	assert_int_equal(tree_count(&t, "Animation"), 47);
	assert_int_equal(tree_count(&t, "AnimationKey"), 47);
	assert_int_equal(tree_count(&t, NULL), 47);
	x_tree_free(&t);
	free(data);
	/* tiger.x: 64-bit floats; a Header and one textured mesh, no frame. */
	data = report_file("x/dxsdk/tiger.x", &t);
	assert_int_equal(t.header.float_bits, 64);
	assert_int_equal(t.root_count, 2);
	assert_int_equal(t.object_count, 6);
	assert_true(t.value_count == 3935);
	assert_string_equal(t.roots[1]->type, "Mesh");
	assert_string_equal(t.roots[1]->name, "Body1");
	assert_int_equal(tree_count(&t, "TextureFilename"), 1);
	assert_int_equal(tree_count(&t, NULL), 0);
	x_tree_free(&t);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scene),
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_nan_spellings),
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_float_conversion),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_grammar),
		cmocka_unit_test(test_unterminated),
		cmocka_unit_test(test_unbalanced),
		cmocka_unit_test(test_stray),
		cmocka_unit_test(test_top_level),
		cmocka_unit_test(test_references),
		cmocka_unit_test(test_numbers_out_of_range),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_error_lines),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_compressed_offsets),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_real_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
