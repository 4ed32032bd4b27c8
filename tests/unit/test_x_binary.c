/*
 * The binary .x reader (x_binary_read) and MSZIP decompression
 * (x_mszip_inflate) on exact bodies written token by token
 * (support/x_bin_writer.h): objects, nested frames, references by name and
 * GUID, templates skipped, integer and float lists of both float sizes,
 * strings, separators; compressed bodies of one and of several chunks whose
 * later chunks lean on the earlier ones' history.  Every way to be
 * malformed is rejected at its exact file offset with its message; every
 * prefix of a valid input fails cleanly.  Inputs are copied into buffers of
 * their exact length so ASan catches any over-read.  (The real files:
 * test_x_syntax_real.)
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

#include "daemon/formats/x/x.h"
#include "daemon/formats/x/x_syntax.h"
#include "tests/support/x_bin_writer.h"

/* File offsets of body offsets. */
#define AT(body_off) ((uint64_t)(body_off) + 16)

static const uint8_t guid_a[16] = { 0x46, 0xab, 0x82, 0x3d, 0xda, 0x62, 0xcf, 0x11,
				    0xab, 0x39, 0x00, 0x20, 0xaf, 0x71, 0xe4, 0x33 };
static const uint8_t guid_b[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
/* The same GUIDs as the tree holds them: in the text form's reading order,
 * <3D82AB46-62DA-11CF-AB39-0020AF71E433> for guid_a. */
static const uint8_t guid_a_text[16] = { 0x3d, 0x82, 0xab, 0x46, 0x62, 0xda, 0x11, 0xcf,
					 0xab, 0x39, 0x00, 0x20, 0xaf, 0x71, 0xe4, 0x33 };
static const uint8_t guid_b_text[16] = { 4, 3, 2, 1, 6, 5, 8, 7, 9, 10, 11, 12, 13, 14, 15, 16 };

/* Read `len` bytes as a binary body into t (which owns an exact-size copy). */
static int read_body(const void *body, size_t len, unsigned float_bits, bool compressed,
		     struct x_tree *t, struct diag *d)
{
	memset(t, 0, sizeof *t);
	memset(d, 0, sizeof *d);
	t->header.major = 3;
	t->header.minor = 3;
	t->header.encoding = X_BINARY;
	t->header.compressed = compressed;
	t->header.float_bits = float_bits;
	t->owned_body = malloc(len ? len : 1);
	assert_non_null(t->owned_body);
	if (len > 0)
		memcpy(t->owned_body, body, len);
	t->body = t->owned_body;
	t->body_len = len;
	return x_binary_read(t, d);
}

static void read_ok(const struct xbw *w, struct x_tree *t)
{
	struct diag d;
	int rc = read_body(w->buf, w->len, w->float_bits, false, t, &d);

	if (rc != 0)
		fail_msg("rc %d at offset 0x%llx: %s", rc, (unsigned long long)d.offset, d.msg);
}

static void expect_diag(int rc, const struct diag *d, uint64_t offset, const char *msg)
{
	if (rc != -EINVAL || !d->set || d->line != 0 || d->offset != offset ||
	    strstr(d->msg, msg) == NULL)
		fail_msg("got rc %d at offset 0x%llx \"%s\"; want -EINVAL at 0x%llx \"%s\"", rc,
			 (unsigned long long)d->offset, d->msg, (unsigned long long)offset, msg);
}

/* The body fails at body offset `at` with a message containing msg. */
static void expect_fail(const struct xbw *w, size_t at, const char *msg)
{
	struct x_tree t;
	struct diag d;
	int rc = read_body(w->buf, w->len, w->float_bits, false, &t, &d);

	expect_diag(rc, &d, AT(at), msg);
	x_tree_free(&t);
}

/* Inflate a copy of exactly len bytes (what follows the header). */
static int inflate_copy(const void *data, size_t len, char **out, size_t *out_len, struct diag *d)
{
	char *copy = malloc(len ? len : 1);
	int rc;

	assert_non_null(copy);
	if (len > 0)
		memcpy(copy, data, len);
	memset(d, 0, sizeof *d);
	*out = (char *)(uintptr_t)1;
	rc = x_mszip_inflate(copy, len, out, out_len, d);
	free(copy);
	return rc;
}

static void expect_inflate_fail(const void *data, size_t len, uint64_t offset, const char *msg)
{
	struct diag d;
	size_t out_len = 7;
	char *out;
	int rc = inflate_copy(data, len, &out, &out_len, &d);

	expect_diag(rc, &d, offset, msg);
	assert_null(out);
	assert_int_equal(out_len, 0);
}

static const struct x_value *value(const struct x_object *o, uint32_t i)
{
	assert_true(i < o->value_count);
	return &o->values[i];
}

/* ---- valid bodies ---- */

static void test_objects_values_references(void **state)
{
	static const double matrix[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 20, 30, 1 };
	static const uint32_t ints[3] = { 1, 2, 0xffffffffu };
	static const double floats[2] = { 0.5, -2.25 };
	size_t root_at, matrix_at, child_at, ints_at, floats_at, str_at, int_at, ref_at[3], mesh_at;
	const struct x_object *root, *child, *mesh;
	struct x_tree t;
	struct xbw w;

	(void)state;
	xbw_init(&w, 32);
	xbw_template(&w, "Vertex", guid_b);
	root_at = w.len;
	xbw_open(&w, "Frame", "Root");
	xbw_guid(&w, guid_a);
	matrix_at = w.len;
	xbw_open(&w, "FrameTransformMatrix", NULL);
	xbw_floats(&w, 16, matrix);
	xbw_close(&w);
	child_at = w.len;
	xbw_open(&w, "Frame", "Child");
	ints_at = w.len;
	xbw_ints(&w, 3, ints);
	floats_at = w.len;
	xbw_floats(&w, 2, floats);
	str_at = w.len;
	xbw_string(&w, "hello.dds", XBW_SEMICOLON);
	int_at = w.len;
	xbw_int(&w, 7);
	xbw_close(&w);
	ref_at[0] = w.len;
	xbw_ref(&w, "Child", NULL);
	ref_at[1] = w.len;
	xbw_ref(&w, NULL, guid_b);
	ref_at[2] = w.len;
	xbw_ref(&w, "Child", guid_b);
	xbw_close(&w);
	mesh_at = w.len;
	xbw_open(&w, "Mesh", NULL);
	xbw_ints(&w, 1, (const uint32_t[]){ 42 });
	xbw_close(&w);
	read_ok(&w, &t);

	assert_int_equal(t.root_count, 2);
	assert_int_equal(t.object_count, 7);    /* Root, matrix, Child, 3 references, Mesh */
	assert_int_equal(t.value_count, 16 + 3 + 2 + 1 + 1 + 1);

	root = t.roots[0];
	assert_string_equal(root->type, "Frame");
	assert_string_equal(root->name, "Root");
	assert_true(root->has_guid);
	assert_memory_equal(root->guid, guid_a_text, 16);
	assert_int_equal(root->pos, root_at);
	assert_int_equal(root->depth, 0);
	assert_int_equal(root->value_count, 0);
	assert_int_equal(root->child_count, 5);

	assert_string_equal(root->children[0]->type, "FrameTransformMatrix");
	assert_null(root->children[0]->name);
	assert_false(root->children[0]->has_guid);
	assert_int_equal(root->children[0]->pos, matrix_at);
	assert_int_equal(root->children[0]->depth, 1);
	assert_int_equal(root->children[0]->value_count, 16);
	for (uint32_t i = 0; i < 16; i++) {
		const struct x_value *v = value(root->children[0], i);

		assert_int_equal(v->kind, X_VALUE_FLOAT);
		assert_true(v->v.f == matrix[i]);
		/* Each element is located at its own bytes. */
		assert_int_equal(v->pos, matrix_at + 2 + 4 + 20 + 2 + 6 + 4 * i);
	}

	child = root->children[1];
	assert_string_equal(child->type, "Frame");
	assert_string_equal(child->name, "Child");
	assert_int_equal(child->pos, child_at);
	assert_int_equal(child->value_count, 7);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(value(child, i)->kind, X_VALUE_INT);
		assert_int_equal(value(child, i)->pos, ints_at + 6 + 4 * i);
	}
	assert_int_equal(value(child, 0)->v.i, 1);
	/* DWORDs are unsigned: the bits stay, the importer knows the type. */
	assert_int_equal(value(child, 2)->v.i, 4294967295LL);
	assert_int_equal(value(child, 3)->kind, X_VALUE_FLOAT);
	assert_true(value(child, 3)->v.f == 0.5);
	assert_true(value(child, 4)->v.f == -2.25);
	assert_int_equal(value(child, 4)->pos, floats_at + 6 + 4);
	assert_int_equal(value(child, 5)->kind, X_VALUE_STRING);
	assert_string_equal(value(child, 5)->v.s.ptr, "hello.dds");
	assert_int_equal(x_value_strlen(value(child, 5)), 9);
	assert_int_equal(value(child, 5)->pos, str_at);
	assert_int_equal(value(child, 6)->kind, X_VALUE_INT);
	assert_int_equal(value(child, 6)->v.i, 7);
	assert_int_equal(value(child, 6)->pos, int_at);

	for (int i = 0; i < 3; i++) {
		const struct x_object *ref = root->children[2 + i];

		assert_null(ref->type);
		assert_int_equal(ref->pos, ref_at[i]);
		assert_int_equal(ref->depth, 1);
		assert_int_equal(ref->child_count, 0);
		if (i == 1)
			assert_null(ref->name);
		else
			assert_string_equal(ref->name, "Child");
		assert_int_equal(ref->has_guid, i > 0);
		if (i > 0)
			assert_memory_equal(ref->guid, guid_b_text, 16);
	}

	mesh = t.roots[1];
	assert_string_equal(mesh->type, "Mesh");
	assert_null(mesh->name);
	assert_int_equal(mesh->pos, mesh_at);
	assert_int_equal(value(mesh, 0)->v.i, 42);
	x_tree_free(&t);
	xbw_free(&w);
}

static void test_nested_frames(void **state)
{
	const struct x_object *o;
	struct x_tree t;
	struct xbw w;
	char name[16];

	(void)state;
	xbw_init(&w, 32);
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof name, "Bone%d", i);
		xbw_open(&w, "Frame", name);
	}
	for (int i = 0; i < 20; i++)
		xbw_close(&w);
	read_ok(&w, &t);
	assert_int_equal(t.root_count, 1);
	assert_int_equal(t.object_count, 20);
	o = t.roots[0];
	for (uint32_t i = 0; i < 20; i++) {
		snprintf(name, sizeof name, "Bone%u", i);
		assert_string_equal(o->name, name);
		assert_int_equal(o->depth, i);
		if (i < 19) {
			assert_int_equal(o->child_count, 1);
			o = o->children[0];
		}
	}
	assert_int_equal(o->child_count, 0);
	x_tree_free(&t);
	xbw_free(&w);
}

/* 64-bit floats are read as such; NaN, infinities and -0 reach the tree
 * untouched in both sizes (the importer decides what they mean). */
static void test_float_sizes_and_specials(void **state)
{
	const double v64[6] = { 1.5, -0.0, INFINITY, -INFINITY, NAN, 1e300 };
	const double v32[4] = { 0.1, NAN, -INFINITY, 3.0e38 };
	const struct x_object *o;
	struct x_tree t;
	struct xbw w;

	(void)state;
	xbw_init(&w, 64);
	xbw_open(&w, "Key", NULL);
	xbw_floats(&w, 6, v64);
	xbw_close(&w);
	read_ok(&w, &t);
	o = t.roots[0];
	assert_int_equal(o->value_count, 6);
	assert_true(value(o, 0)->v.f == 1.5);
	assert_true(value(o, 1)->v.f == 0.0 && signbit(value(o, 1)->v.f));
	assert_true(isinf(value(o, 2)->v.f) && value(o, 2)->v.f > 0);
	assert_true(isinf(value(o, 3)->v.f) && value(o, 3)->v.f < 0);
	assert_true(isnan(value(o, 4)->v.f));
	assert_true(value(o, 5)->v.f == 1e300);        /* not a float: read as 8 bytes */
	assert_int_equal(value(o, 5)->pos, o->pos + 2 + 4 + 3 + 2 + 6 + 8 * 5);
	x_tree_free(&t);
	xbw_free(&w);

	xbw_init(&w, 32);
	xbw_open(&w, "Key", NULL);
	xbw_floats(&w, 4, v32);
	xbw_close(&w);
	read_ok(&w, &t);
	o = t.roots[0];
	assert_int_equal(o->value_count, 4);
	assert_true(value(o, 0)->v.f == (double)0.1f);
	assert_true(isnan(value(o, 1)->v.f));
	assert_true(isinf(value(o, 2)->v.f) && value(o, 2)->v.f < 0);
	assert_true(value(o, 3)->v.f == (double)3.0e38f);
	x_tree_free(&t);
	xbw_free(&w);
}

/* ',' and ';' between values, after objects and at the top level are
 * separators and nothing else; a string's terminator may be either. */
static void test_separators(void **state)
{
	const struct x_object *o;
	struct x_tree t;
	struct xbw w;

	(void)state;
	xbw_init(&w, 32);
	xbw_tok(&w, XBW_SEMICOLON);
	xbw_open(&w, "Material", "M");
	xbw_tok(&w, XBW_SEMICOLON);
	xbw_floats(&w, 2, (const double[]){ 1, 2 });
	xbw_tok(&w, XBW_COMMA);
	xbw_tok(&w, XBW_SEMICOLON);
	xbw_ints(&w, 1, (const uint32_t[]){ 3 });
	xbw_tok(&w, XBW_SEMICOLON);
	xbw_string(&w, "a", XBW_COMMA);
	xbw_string(&w, "b", XBW_SEMICOLON);
	xbw_tok(&w, XBW_COMMA);
	xbw_int(&w, 4);
	xbw_tok(&w, XBW_SEMICOLON);
	xbw_close(&w);
	xbw_tok(&w, XBW_SEMICOLON);
	xbw_tok(&w, XBW_COMMA);
	read_ok(&w, &t);
	assert_int_equal(t.root_count, 1);
	o = t.roots[0];
	assert_int_equal(o->value_count, 6);
	assert_int_equal(value(o, 0)->kind, X_VALUE_FLOAT);
	assert_int_equal(value(o, 2)->kind, X_VALUE_INT);
	assert_string_equal(value(o, 3)->v.s.ptr, "a");
	assert_string_equal(value(o, 4)->v.s.ptr, "b");
	assert_int_equal(value(o, 5)->v.i, 4);
	x_tree_free(&t);
	xbw_free(&w);
}

/* D3DX writes unnamed objects with an empty name token (the SDK's
 * misc_ball.x does): no name.  Lists may be empty.  An empty body is an
 * empty tree. */
static void test_empty_names_lists_body(void **state)
{
	const struct x_object *o;
	struct x_tree t;
	struct xbw w;

	(void)state;
	xbw_init(&w, 32);
	xbw_open(&w, "MeshNormals", "");
	xbw_ints(&w, 0, NULL);
	xbw_floats(&w, 0, NULL);
	xbw_string(&w, "", XBW_SEMICOLON);
	xbw_ref(&w, "", guid_a);
	xbw_close(&w);
	read_ok(&w, &t);
	o = t.roots[0];
	assert_null(o->name);
	assert_int_equal(o->value_count, 1);
	assert_int_equal(x_value_strlen(value(o, 0)), 0);
	assert_int_equal(o->child_count, 1);
	assert_null(o->children[0]->name);
	assert_true(o->children[0]->has_guid);
	x_tree_free(&t);
	xbw_free(&w);

	xbw_init(&w, 32);
	read_ok(&w, &t);
	assert_int_equal(t.root_count, 0);
	assert_int_equal(t.object_count, 0);
	x_tree_free(&t);
	xbw_free(&w);
}

/* Templates are read past, whatever their members. */
static void test_templates_skipped(void **state)
{
	struct x_tree t;
	struct xbw w;

	(void)state;
	xbw_init(&w, 32);
	xbw_template(&w, "Vector", guid_a);
	xbw_template(&w, "Mesh", guid_b);
	/* A restriction naming templates, with a GUID and a comma. */
	xbw_tok(&w, XBW_TEMPLATE);
	xbw_name(&w, "Restricted");
	xbw_tok(&w, XBW_OBRACE);
	xbw_guid(&w, guid_b);
	xbw_tok(&w, XBW_OBRACKET);
	xbw_name(&w, "Vector");
	xbw_guid(&w, guid_a);
	xbw_tok(&w, XBW_COMMA);
	xbw_name(&w, "Mesh");
	xbw_tok(&w, XBW_CBRACKET);
	/* Braces inside are matched, not taken for the end. */
	xbw_tok(&w, XBW_OBRACE);
	xbw_tok(&w, XBW_CBRACE);
	xbw_tok(&w, XBW_CBRACE);
	xbw_open(&w, "Frame", "F");
	xbw_floats(&w, 1, (const double[]){ 1 });
	xbw_close(&w);
	xbw_template(&w, "After", guid_a);
	read_ok(&w, &t);
	assert_int_equal(t.root_count, 1);
	assert_int_equal(t.object_count, 1);
	assert_int_equal(t.value_count, 1);
	assert_string_equal(t.roots[0]->type, "Frame");
	x_tree_free(&t);
	xbw_free(&w);
}

/* ---- malformed bodies: token level ---- */

static void test_truncated_tokens(void **state)
{
	struct xbw w;
	size_t at;

	(void)state;
	/* Half a token id. */
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	xbw_close(&w);
	at = w.len;
	xbw_bytes(&w, "\x0b", 1);
	expect_fail(&w, at, "the body ends 1 byte into a token id");
	xbw_free(&w);

	/* A name whose length field is cut. */
	xbw_init(&w, 32);
	at = w.len;
	xbw_tok(&w, XBW_NAME);
	xbw_u16(&w, 5);
	expect_fail(&w, at, "a name is cut short: its length needs 4 bytes, only 2 left");
	xbw_free(&w);

	/* A name longer than the body: located at its length. */
	xbw_init(&w, 32);
	xbw_tok(&w, XBW_NAME);
	at = w.len;
	xbw_u32(&w, 100);
	xbw_bytes(&w, "abc", 3);
	expect_fail(&w, at, "a name declares 100 bytes, but 3 are left");
	xbw_free(&w);

	/* A string longer than the body. */
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	xbw_tok(&w, XBW_STRING);
	at = w.len;
	xbw_u32(&w, 0xffffffffu);
	xbw_bytes(&w, "xy", 2);
	expect_fail(&w, at, "a string declares 4294967295 bytes, but 2 are left");
	xbw_free(&w);

	/* A string with no terminator, then with a wrong one. */
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	xbw_tok(&w, XBW_STRING);
	xbw_u32(&w, 2);
	xbw_bytes(&w, "hi", 2);
	at = w.len;
	expect_fail(&w, at, "a string must end with a ';' or ',' token; the body ends first");
	xbw_tok(&w, XBW_CBRACE);
	expect_fail(&w, at, "a string must end with a ';' or ',' token, not token 11");
	xbw_free(&w);

	/* An integer, a GUID cut short. */
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	xbw_ints(&w, 1, (const uint32_t[]){ 1 });
	at = w.len;
	xbw_tok(&w, XBW_INTEGER);
	xbw_u16(&w, 1);
	expect_fail(&w, at, "an integer is cut short: its value needs 4 bytes, only 2 left");
	xbw_free(&w);
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	at = w.len;
	xbw_tok(&w, XBW_GUID);
	xbw_bytes(&w, guid_a, 8);
	expect_fail(&w, at, "a GUID is cut short: its value needs 16 bytes, only 8 left");
	xbw_free(&w);

	/* A list count cut short. */
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	at = w.len;
	xbw_tok(&w, XBW_FLOAT_LIST);
	xbw_bytes(&w, "\x01", 1);
	expect_fail(&w, at, "a float list is cut short: its count needs 4 bytes, only 1 left");
	xbw_free(&w);
}

/* Counts are checked against the bytes left before anything is done with
 * them: 0x40000000 elements in a 20-byte body is an error at the count. */
static void test_counts_past_the_end(void **state)
{
	struct xbw w;
	size_t at;

	(void)state;
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	xbw_tok(&w, XBW_INT_LIST);
	at = w.len;
	xbw_u32(&w, 0x40000000u);
	xbw_u32(&w, 1);
	assert_true(w.len <= 20);
	expect_fail(&w, at, "an integer list declares 1073741824 4-byte elements, but 4 bytes "
		    "are left");
	xbw_free(&w);

	/* One element short, in 64-bit floats. */
	xbw_init(&w, 64);
	xbw_open(&w, "A", NULL);
	xbw_tok(&w, XBW_FLOAT_LIST);
	at = w.len;
	xbw_u32(&w, 3);
	xbw_bytes(&w, "0123456789abcdef", 16);
	expect_fail(&w, at, "a float list declares 3 8-byte elements, but 16 bytes are left");
	xbw_free(&w);

	/* The same bytes hold 4 32-bit floats: fine until the missing '}'. */
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	xbw_tok(&w, XBW_FLOAT_LIST);
	xbw_u32(&w, 4);
	xbw_bytes(&w, "0123456789abcdef", 16);
	expect_fail(&w, 0, "A is never closed: the file ends before its '}'");
	xbw_free(&w);
}

static void test_unknown_tokens(void **state)
{
	static const unsigned ids[] = { 0, 4, 8, 9, 21, 30, 32, 39, 53, 0xffff };
	struct xbw w;
	char msg[64];
	size_t at;

	(void)state;
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		xbw_init(&w, 32);
		xbw_open(&w, "A", NULL);
		at = w.len;
		xbw_tok(&w, ids[i]);
		xbw_close(&w);
		snprintf(msg, sizeof msg, "unknown token id %u", ids[i]);
		expect_fail(&w, at, msg);
		xbw_free(&w);
	}
	/* Inside a template too: its tokens are read, not jumped over. */
	xbw_init(&w, 32);
	xbw_tok(&w, XBW_TEMPLATE);
	xbw_name(&w, "T");
	xbw_tok(&w, XBW_OBRACE);
	at = w.len;
	xbw_tok(&w, 4);
	xbw_tok(&w, XBW_CBRACE);
	expect_fail(&w, at, "unknown token id 4");
	xbw_free(&w);
}

static void test_bad_names(void **state)
{
	struct xbw w;
	size_t at;

	(void)state;
	xbw_init(&w, 32);
	at = w.len;
	xbw_tok(&w, XBW_NAME);
	xbw_u32(&w, 3);
	xbw_bytes(&w, "a\0b", 3);
	xbw_tok(&w, XBW_OBRACE);
	xbw_close(&w);
	expect_fail(&w, at, "a name of 3 bytes with a NUL byte in it");
	xbw_free(&w);

	xbw_init(&w, 32);
	at = w.len;
	xbw_open(&w, "", NULL);
	xbw_close(&w);
	expect_fail(&w, at, "an object whose type is an empty name");
	xbw_free(&w);

	/* Unprintable bytes are shown escaped. */
	xbw_init(&w, 32);
	at = w.len;
	xbw_name(&w, "\x01type");
	expect_fail(&w, at, "object \\x01type: the file ends before its '{'");
	xbw_free(&w);
}

/* ---- malformed bodies: structure ---- */

static void test_unbalanced_braces(void **state)
{
	struct xbw w;
	size_t at;

	(void)state;
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	xbw_close(&w);
	at = w.len;
	xbw_close(&w);
	expect_fail(&w, at, "'}' closes nothing");
	xbw_free(&w);

	/* Left open: pointed at the innermost open object. */
	xbw_init(&w, 32);
	xbw_open(&w, "Frame", "Outer");
	at = w.len;
	xbw_open(&w, "Frame", "Inner");
	xbw_ints(&w, 1, (const uint32_t[]){ 1 });
	expect_fail(&w, at, "Frame Inner is never closed: the file ends before its '}'");
	xbw_free(&w);

	/* Deeper than the builder allows. */
	xbw_init(&w, 32);
	for (int i = 0; i < X_MAX_DEPTH; i++)
		xbw_open(&w, "F", NULL);
	at = w.len;
	xbw_open(&w, "F", NULL);
	expect_fail(&w, at, "nested deeper than 128 levels");
	xbw_free(&w);
}

static void test_values_outside_objects(void **state)
{
	struct xbw w;
	size_t at;

	(void)state;
	xbw_init(&w, 32);
	at = w.len;
	xbw_int(&w, 1);
	expect_fail(&w, at, "an integer outside any object");
	xbw_free(&w);

	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	xbw_close(&w);
	at = w.len;
	xbw_floats(&w, 2, (const double[]){ 1, 2 });
	expect_fail(&w, at, "a float list outside any object");
	xbw_free(&w);

	xbw_init(&w, 32);
	at = w.len;
	xbw_ints(&w, 0, NULL);
	expect_fail(&w, at, "an integer list outside any object");
	xbw_free(&w);

	xbw_init(&w, 32);
	at = w.len;
	xbw_string(&w, "s", XBW_SEMICOLON);
	expect_fail(&w, at, "a string outside any object");
	xbw_free(&w);

	xbw_init(&w, 32);
	at = w.len;
	xbw_ref(&w, "A", NULL);
	expect_fail(&w, at, "'{' outside any object");
	xbw_free(&w);
}

static void test_bad_objects_and_references(void **state)
{
	struct xbw w;
	size_t at;

	(void)state;
	/* The type must be followed by a name or '{'. */
	xbw_init(&w, 32);
	xbw_name(&w, "Frame");
	at = w.len;
	xbw_int(&w, 3);
	expect_fail(&w, at, "object Frame: expected a name or '{', found an integer");
	xbw_free(&w);
	xbw_init(&w, 32);
	xbw_name(&w, "Frame");
	xbw_name(&w, "F");
	at = w.len;
	xbw_guid(&w, guid_a);
	expect_fail(&w, at, "object Frame: expected '{', found a GUID");
	xbw_free(&w);
	xbw_init(&w, 32);
	at = w.len;
	xbw_name(&w, "Frame");
	xbw_name(&w, "F");
	expect_fail(&w, at, "object Frame: the file ends before its '{'");
	xbw_free(&w);

	/* A GUID anywhere but first in an object or in a reference. */
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	xbw_ints(&w, 1, (const uint32_t[]){ 1 });
	at = w.len;
	xbw_guid(&w, guid_a);
	xbw_close(&w);
	expect_fail(&w, at, "a GUID out of place");
	xbw_free(&w);

	/* References: something else inside, never closed, empty. */
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	xbw_tok(&w, XBW_OBRACE);
	xbw_name(&w, "B");
	at = w.len;
	xbw_int(&w, 3);
	xbw_tok(&w, XBW_CBRACE);
	xbw_close(&w);
	expect_fail(&w, at, "holds a name, a GUID or both, then '}': found an integer");
	xbw_free(&w);
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	xbw_tok(&w, XBW_OBRACE);
	xbw_guid(&w, guid_a);
	at = w.len;
	xbw_name(&w, "B");
	xbw_tok(&w, XBW_CBRACE);
	xbw_close(&w);
	expect_fail(&w, at, "then '}': found a name");
	xbw_free(&w);
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	at = w.len;
	xbw_tok(&w, XBW_OBRACE);
	xbw_name(&w, "B");
	expect_fail(&w, at, "a reference is never closed: the file ends before its '}'");
	xbw_free(&w);
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	at = w.len;
	xbw_ref(&w, NULL, NULL);
	xbw_close(&w);
	expect_fail(&w, at, "a reference that names nothing");
	xbw_free(&w);
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	at = w.len;
	xbw_ref(&w, "", NULL);
	xbw_close(&w);
	expect_fail(&w, at, "a reference that names nothing");
	xbw_free(&w);

	/* Template syntax outside a template. */
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	at = w.len;
	xbw_tok(&w, XBW_OBRACKET);
	xbw_close(&w);
	expect_fail(&w, at, "unexpected '[' outside a template");
	xbw_free(&w);
	xbw_init(&w, 32);
	at = w.len;
	xbw_tok(&w, XBW_DWORD);
	expect_fail(&w, at, "unexpected DWORD outside a template");
	xbw_free(&w);
}

static void test_bad_templates(void **state)
{
	struct xbw w;
	size_t at;

	(void)state;
	xbw_init(&w, 32);
	xbw_tok(&w, XBW_TEMPLATE);
	at = w.len;
	xbw_tok(&w, XBW_OBRACE);
	expect_fail(&w, at, "template: expected its name, found '{'");
	xbw_free(&w);

	xbw_init(&w, 32);
	at = w.len;
	xbw_tok(&w, XBW_TEMPLATE);
	expect_fail(&w, at, "template: expected its name, found the end of the file");
	xbw_free(&w);

	xbw_init(&w, 32);
	xbw_tok(&w, XBW_TEMPLATE);
	xbw_name(&w, "T");
	at = w.len;
	xbw_guid(&w, guid_a);
	expect_fail(&w, at, "template T: expected '{', found a GUID");
	xbw_free(&w);

	/* Templates belong at the top level (as in text files). */
	xbw_init(&w, 32);
	xbw_open(&w, "Frame", "F");
	at = w.len;
	xbw_template(&w, "Inner", guid_a);
	xbw_close(&w);
	expect_fail(&w, at, "a template inside an object: templates belong at the top level");
	xbw_free(&w);

	/* Never closed: an inner pair of braces does not close it. */
	xbw_init(&w, 32);
	at = w.len;
	xbw_tok(&w, XBW_TEMPLATE);
	xbw_name(&w, "T");
	xbw_tok(&w, XBW_OBRACE);
	xbw_tok(&w, XBW_OBRACE);
	xbw_tok(&w, XBW_CBRACE);
	expect_fail(&w, at, "template T is never closed: the file ends before its '}'");
	xbw_free(&w);
}

static void test_bad_float_size(void **state)
{
	struct x_tree t;
	struct diag d;

	(void)state;
	expect_diag(read_body("", 0, 16, false, &t, &d), &d, 12,
		    "float size 16 is neither 32 nor 64 bits");
	x_tree_free(&t);
}

/* A body with a bit of everything, for the prefix and MSZIP tests. */
static void sample_body(struct xbw *w)
{
	xbw_init(w, 32);
	xbw_template(w, "Header", guid_a);
	xbw_open(w, "Frame", "Root");
	xbw_guid(w, guid_b);
	xbw_open(w, "Mesh", "M");
	xbw_ints(w, 3, (const uint32_t[]){ 3, 0, 1 });
	xbw_floats(w, 3, (const double[]){ 0.25, 1, -1 });
	xbw_string(w, "tex.dds", XBW_SEMICOLON);
	xbw_int(w, 9);
	xbw_ref(w, "Mat", guid_a);
	xbw_close(w);
	xbw_close(w);
}

/* Every cut of a valid body fails with a located error (or, cut right
 * after a top-level object, parses), reading nothing past its end. */
static void test_every_prefix(void **state)
{
	struct xbw w;

	(void)state;
	sample_body(&w);
	for (size_t n = 0; n <= w.len; n++) {
		struct x_tree t;
		struct diag d;
		int rc = read_body(w.buf, n, 32, false, &t, &d);

		if (n == w.len || n == 0) {
			assert_int_equal(rc, 0);
		} else {
			/* Cut after the template alone is a valid (empty) body. */
			if (rc == 0) {
				assert_int_equal(t.root_count, 0);
			} else {
				assert_int_equal(rc, -EINVAL);
				assert_true(d.set && d.line == 0 && d.offset <= AT(n));
			}
		}
		x_tree_free(&t);
	}
	xbw_free(&w);
}

/* ---- MSZIP ---- */

static void test_mszip_one_chunk(void **state)
{
	unsigned char *z;
	size_t zlen, out_len;
	struct x_tree t;
	struct diag d;
	struct xbw w;
	char *out;

	(void)state;
	sample_body(&w);
	xbw_mszip(w.buf, w.len, 32768, &z, &zlen, NULL);
	assert_int_equal(inflate_copy(z, zlen, &out, &out_len, &d), 0);
	assert_int_equal(out_len, w.len);
	assert_memory_equal(out, w.buf, w.len);
	assert_int_equal(read_body(out, out_len, 32, true, &t, &d), 0);
	assert_int_equal(t.object_count, 3);
	assert_string_equal(t.roots[0]->children[0]->type, "Mesh");
	x_tree_free(&t);
	free(out);
	free(z);
	xbw_free(&w);

	/* Nothing at all: total 16, no chunk. */
	xbw_mszip("", 0, 32768, &z, &zlen, NULL);
	assert_int_equal(zlen, 4);
	assert_int_equal(inflate_copy(z, zlen, &out, &out_len, &d), 0);
	assert_int_equal(out_len, 0);
	free(out);
	free(z);
}

/*
 * A mesh of 12,000 floats (48 KB, two chunks) whose second half repeats
 * floats from up to 32,000 bytes before: the second chunk is small only
 * because it copies from the first chunk's output, so reading it proves
 * the history is carried over.  Then the same body in 1000-byte chunks,
 * where most matches reach several chunks back.
 */
static void test_mszip_history_across_chunks(void **state)
{
	enum { N = 12000, PERIOD = 8000 };
	size_t sizes[64], zlen, out_len;
	uint32_t seed = 12345;
	double *v = malloc(N * sizeof *v);
	unsigned char *z;
	struct x_tree t;
	struct diag d;
	struct xbw w;
	char *out;

	(void)state;
	assert_non_null(v);
	for (int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = i < PERIOD ? (double)(seed >> 8) / 65536.0 : v[i - PERIOD];
	}
	xbw_init(&w, 32);
	xbw_open(&w, "Mesh", "Big");
	xbw_floats(&w, N, v);
	xbw_close(&w);
	assert_true(w.len > 32768 && w.len <= 65536);

	xbw_mszip(w.buf, w.len, 32768, &z, &zlen, sizes);
	assert_true(sizes[1] < (w.len - 32768) / 20);
	assert_int_equal(inflate_copy(z, zlen, &out, &out_len, &d), 0);
	assert_int_equal(out_len, w.len);
	assert_memory_equal(out, w.buf, w.len);
	assert_int_equal(read_body(out, out_len, 32, true, &t, &d), 0);
	assert_int_equal(t.roots[0]->value_count, N);
	for (uint32_t i = 0; i < N; i++)
		assert_true(t.roots[0]->values[i].v.f == (double)(float)v[i]);
	x_tree_free(&t);
	free(out);
	free(z);

	xbw_mszip(w.buf, w.len, 1000, &z, &zlen, NULL);
	assert_int_equal(inflate_copy(z, zlen, &out, &out_len, &d), 0);
	assert_int_equal(out_len, w.len);
	assert_memory_equal(out, w.buf, w.len);
	free(out);
	free(z);
	xbw_free(&w);
	free(v);
}

/* An error in the decompressed body says so, at its decompressed offset. */
static void test_mszip_body_error(void **state)
{
	unsigned char *z;
	size_t zlen, out_len, at;
	struct x_tree t;
	struct diag d;
	struct xbw w;
	char *out;

	(void)state;
	xbw_init(&w, 32);
	xbw_open(&w, "A", NULL);
	at = w.len;
	xbw_tok(&w, 99);
	xbw_close(&w);
	xbw_mszip(w.buf, w.len, 32768, &z, &zlen, NULL);
	assert_int_equal(inflate_copy(z, zlen, &out, &out_len, &d), 0);
	expect_diag(read_body(out, out_len, 32, true, &t, &d), &d, AT(at),
		    "in the decompressed data: unknown token id 99");
	x_tree_free(&t);
	free(out);
	free(z);
	xbw_free(&w);
}

/* A compressed sample body in one chunk, to break.  Chunk 0's header is at
 * data offset 4 (file offset 20), its DEFLATE bytes at 10 (file 26). */
static void sample_mszip(unsigned char **z, size_t *zlen, size_t *body_len)
{
	struct xbw w;

	sample_body(&w);
	xbw_mszip(w.buf, w.len, 32768, z, zlen, NULL);
	*body_len = w.len;
	xbw_free(&w);
}

static void put16(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static void test_mszip_declared_sizes(void **state)
{
	unsigned char *z, buf[64];
	size_t zlen, body;
	char msg[160];

	(void)state;
	expect_inflate_fail("\x20\x00", 2, 16,
			    "the compressed body is 2 bytes, too short for its 4-byte");
	expect_inflate_fail("\x0a\x00\x00\x00", 4, 16,
			    "declares a decompressed size of 10 bytes, less than the 16-byte");
	put32(buf, X_MAX_BYTES + 1);
	snprintf(msg, sizeof msg, "declares a decompressed size of %u bytes, more than the %u-byte "
		 "limit", X_MAX_BYTES + 1, X_MAX_BYTES);
	expect_inflate_fail(buf, 4, 16, msg);
	/* A 30-byte file cannot ask for 1 GiB: 10 compressed bytes hold at
	 * most 10,320. */
	memset(buf, 0, sizeof buf);
	put32(buf, X_MAX_BYTES);
	snprintf(msg, sizeof msg, "declares %u decompressed bytes, more than 10 compressed bytes "
		 "can hold", X_MAX_BYTES - 16);
	expect_inflate_fail(buf, 14, 16, msg);
	put32(buf, 16 + 10320 + 1);
	expect_inflate_fail(buf, 14, 16, "declares 10321 decompressed bytes, more than 10");

	/* The total larger than the chunks: the file ends short of it. */
	sample_mszip(&z, &zlen, &body);
	put32(z, (uint32_t)body + 16 + 1);
	expect_inflate_fail(z, zlen, AT(zlen),
			    "the file ends at chunk 1 with 1 declared decompressed bytes "
			    "still missing");
	/* The total smaller: the chunk runs past it. */
	put32(z, (uint32_t)body + 16 - 1);
	snprintf(msg, sizeof msg, "chunk 0 declares %zu uncompressed bytes, more than the %zu left "
		 "of the declared total", body, body - 1);
	expect_inflate_fail(z, zlen, AT(4), msg);
	/* A header-only total with a chunk after it: trailing bytes. */
	put32(z, 16);
	snprintf(msg, sizeof msg, "%zu bytes follow the compressed data (the declared 16 bytes are "
		 "complete before them)", zlen - 4);
	expect_inflate_fail(z, zlen, AT(4), msg);
	free(z);
}

static void test_mszip_trailing_bytes(void **state)
{
	unsigned char *z, *longer;
	size_t zlen, body;

	(void)state;
	sample_mszip(&z, &zlen, &body);
	longer = malloc(zlen + 3);
	assert_non_null(longer);
	memcpy(longer, z, zlen);
	memcpy(longer + zlen, "\0\0\0", 3);
	expect_inflate_fail(longer, zlen + 3, AT(zlen),
			    "3 bytes follow the compressed data (the declared");
	free(longer);
	free(z);
}

static void test_mszip_bad_chunk_headers(void **state)
{
	unsigned char *z, big[64];
	size_t zlen, body;
	char msg[160];

	(void)state;
	/* Larger than 32768: total and input big enough to get there. */
	memset(big, 0, sizeof big);
	put32(big, 16 + 40000);
	put16(big + 4, 40000);
	put16(big + 6, 50);
	memcpy(big + 8, "CK", 2);
	expect_inflate_fail(big, sizeof big, AT(4),
			    "chunk 0 declares 40000 uncompressed bytes, not 1 to 32768");

	sample_mszip(&z, &zlen, &body);
	put16(z + 4, 0);
	expect_inflate_fail(z, zlen, AT(4),
			    "chunk 0 declares 0 uncompressed bytes, not 1 to 32768");
	put16(z + 4, (uint32_t)body);

	put16(z + 6, 1);
	expect_inflate_fail(z, zlen, AT(6),
			    "chunk 0 declares 1 compressed bytes, fewer than its 2-byte \"CK\"");
	/* Truncated: more compressed bytes than the file has. */
	put16(z + 6, (uint32_t)(zlen - 8 + 1));
	snprintf(msg, sizeof msg, "chunk 0 declares %zu compressed bytes but the file has %zu left",
		 zlen - 8 + 1, zlen - 8);
	expect_inflate_fail(z, zlen, AT(6), msg);
	expect_inflate_fail(z, zlen - 5, AT(6), "but the file has");
	put16(z + 6, (uint32_t)(zlen - 8));

	z[8] = 'c';
	expect_inflate_fail(z, zlen, AT(8), "chunk 0 does not start with \"CK\" (found 0x63 0x4b)");
	z[8] = 'C';
	expect_inflate_fail(z, 9, AT(6), "but the file has 1 left");     /* cut inside "CK" */
	snprintf(msg, sizeof msg, "the file ends at chunk 0 with %zu declared decompressed bytes",
		 body);
	expect_inflate_fail(z, 6, AT(4), msg);
	free(z);
}

static void test_mszip_bad_deflate(void **state)
{
	unsigned char *z, *buf;
	size_t zlen, body;
	char msg[160];

	(void)state;
	sample_mszip(&z, &zlen, &body);
	buf = malloc(zlen + 3);
	assert_non_null(buf);

	/* Block type 3 does not exist. */
	memcpy(buf, z, zlen);
	buf[10] = 0x07;
	expect_inflate_fail(buf, zlen, AT(10),
			    "chunk 0: corrupt DEFLATE data (invalid block type)");

	/* Declared one byte more, or one less, than the stream holds (the
	 * total adjusted so only the chunk is wrong). */
	memcpy(buf, z, zlen);
	put32(buf, (uint32_t)body + 16 + 1);
	put16(buf + 4, (uint32_t)body + 1);
	snprintf(msg, sizeof msg,
		 "chunk 0 inflates to %zu bytes but declares %zu uncompressed bytes", body,
		 body + 1);
	expect_inflate_fail(buf, zlen, AT(4), msg);
	put32(buf, (uint32_t)body + 16 - 1);
	put16(buf + 4, (uint32_t)body - 1);
	snprintf(msg, sizeof msg, "chunk 0 inflates to more than the %zu uncompressed bytes it "
		 "declares", body - 1);
	expect_inflate_fail(buf, zlen, AT(4), msg);

	/* The stream ends before the chunk does. */
	memcpy(buf, z, zlen);
	memcpy(buf + zlen, "xyz", 3);
	put16(buf + 6, (uint32_t)(zlen - 8 + 3));
	snprintf(msg, sizeof msg, "chunk 0: its DEFLATE stream ends 3 bytes before the %zu "
		 "compressed bytes it declares", zlen - 8 + 3);
	expect_inflate_fail(buf, zlen + 3, AT(4), msg);

	/* The chunk (and the file) end before the stream does. */
	memcpy(buf, z, zlen);
	put16(buf + 6, (uint32_t)(zlen - 8 - 3));
	expect_inflate_fail(buf, zlen - 3, AT(4), "chunk 0: its DEFLATE stream is cut short");

	free(buf);
	free(z);
}

/* A corrupt later chunk of a multi-chunk file is located at that chunk. */
static void test_mszip_later_chunk(void **state)
{
	size_t sizes[64], zlen, at;
	unsigned char *z;
	struct xbw w;

	(void)state;
	sample_body(&w);
	xbw_mszip(w.buf, w.len, 64, &z, &zlen, sizes);
	at = 4 + (4 + 2 + sizes[0]) + (4 + 2 + sizes[1]);      /* chunk 2's header */
	z[at + 4] = 'X';
	expect_inflate_fail(z, zlen, AT(at + 4), "chunk 2 does not start with \"CK\"");
	free(z);
	xbw_free(&w);
}

/* Every cut of a compressed body is short of its declared size. */
static void test_mszip_every_prefix(void **state)
{
	unsigned char *z;
	size_t zlen, body;

	(void)state;
	sample_mszip(&z, &zlen, &body);
	for (size_t n = 0; n < zlen; n++) {
		struct diag d;
		size_t out_len;
		char *out;
		int rc = inflate_copy(z, n, &out, &out_len, &d);

		assert_int_equal(rc, -EINVAL);
		assert_true(d.set && d.line == 0 && d.offset <= AT(n));
		assert_null(out);
	}
	free(z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_objects_values_references),
		cmocka_unit_test(test_nested_frames),
		cmocka_unit_test(test_float_sizes_and_specials),
		cmocka_unit_test(test_separators),
		cmocka_unit_test(test_empty_names_lists_body),
		cmocka_unit_test(test_templates_skipped),
		cmocka_unit_test(test_truncated_tokens),
		cmocka_unit_test(test_counts_past_the_end),
		cmocka_unit_test(test_unknown_tokens),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_unbalanced_braces),
		cmocka_unit_test(test_values_outside_objects),
		cmocka_unit_test(test_bad_objects_and_references),
		cmocka_unit_test(test_bad_templates),
		cmocka_unit_test(test_bad_float_size),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_mszip_one_chunk),
		cmocka_unit_test(test_mszip_history_across_chunks),
		cmocka_unit_test(test_mszip_body_error),
		cmocka_unit_test(test_mszip_declared_sizes),
		cmocka_unit_test(test_mszip_trailing_bytes),
		cmocka_unit_test(test_mszip_bad_chunk_headers),
		cmocka_unit_test(test_mszip_bad_deflate),
		cmocka_unit_test(test_mszip_later_chunk),
		cmocka_unit_test(test_mszip_every_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
