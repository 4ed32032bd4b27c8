/*
 * The .x syntax layer on real files from ../shared/testdata/x (skipped when
 * absent): every file there, text, binary and compressed, 32- and 64-bit
 * floats, versions 3.2 and 3.3, reads into a tree of the shape its exporter
 * wrote (a top-level Frame or Mesh, templates dropped), the same cube as
 * text, binary and compressed into the same tree; the fuzzer-found corrupt
 * compressed file is rejected at its offset, and so is every truncation of
 * a compressed file.  (Exact counts of tiny.x and tiger.x: test_x_text.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/x/x.h"
#include "tests/support/testdata.h"

/* Files that are not valid at the syntax level. */
static const char *const rejected[] = { "assimp/OV_GetNextToken" };

static const char *const dirs[] = { "x/assimp", "x/assimp-invalid", "x/dxsdk", "x/irrlicht",
				    "x/saschawillems" };

static int is_rejected(const char *rel)
{
	for (size_t i = 0; i < sizeof rejected / sizeof rejected[0]; i++)
		if (strcmp(rel, rejected[i]) == 0)
			return 1;
	return 0;
}

/* Objects of a type anywhere in the tree. */
static uint32_t count_type(const struct x_object *o, const char *type)
{
	uint32_t n = o->type != NULL && strcmp(o->type, type) == 0;

	for (uint32_t i = 0; i < o->child_count; i++)
		n += count_type(o->children[i], type);
	return n;
}

static uint32_t count_in_tree(const struct x_tree *t, const char *type)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->root_count; i++)
		n += count_type(t->roots[i], type);
	return n;
}

static void test_every_file(void **state)
{
	size_t files = 0;

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
		char dir[4096], **names;
		size_t n;

		snprintf(dir, sizeof dir, "%s", testdata_path(dirs[k]));
		n = testdata_list(dir, NULL, &names);
		for (size_t i = 0; i < n; i++) {
			char path[8192], rel[512], msg[512];
			struct diag d = { 0 };
			struct x_tree t;
			size_t len = 0;
			char *data;
			int rc;

			snprintf(path, sizeof path, "%s/%s", dir, names[i]);
			snprintf(rel, sizeof rel, "%s/%s", dirs[k] + 2, names[i]);
			data = test_file_read(path, &len);
			assert_non_null(data);
			rc = x_parse(data, len, &t, &d);
			diag_format(&d, rel, msg, sizeof msg);
			if (is_rejected(rel)) {
				/* Its one chunk inflates 3 bytes short of what it declares. */
				if (rc != -EINVAL || d.line != 0 || d.offset != 0x14 ||
				    strstr(d.msg, "inflates to 2797 bytes but declares 2800") == NULL)
					fail_msg("%s: should be rejected at offset 0x14 (rc %d): %s", rel,
						 rc, msg);
				print_message("  rejected as it should be: %s\n", msg);
			} else {
				if (rc != 0)
					fail_msg("%s", msg);
				/* Every exporter writes a frame or a mesh at the top. */
				if (count_in_tree(&t, "Frame") + count_in_tree(&t, "Mesh") == 0)
					fail_msg("%s: no Frame or Mesh in %u objects", rel, t.object_count);
				x_tree_free(&t);
			}
			free(data);
			files++;
		}
		testdata_list_free(names);
	}
	assert_true(files >= 40);
}

/* The same skinned cube saved three ways reads into the same tree. */
static void test_cube_three_ways(void **state)
{
	static const char *const files[] = { "x/assimp/test_cube_text.x",
					     "x/assimp/test_cube_binary.x",
					     "x/assimp/test_cube_compressed.x" };
	uint32_t objects[3], frames[3], meshes[3];
	uint64_t values[3];

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	for (int i = 0; i < 3; i++) {
		struct diag d = { 0 };
		struct x_tree t;
		size_t len = 0;
		char *data = test_file_read(testdata_path(files[i]), &len);

		assert_non_null(data);
		assert_int_equal(x_parse(data, len, &t, &d), 0);
		objects[i] = t.object_count;
		values[i] = t.value_count;
		frames[i] = count_in_tree(&t, "Frame");
		meshes[i] = count_in_tree(&t, "Mesh");
		x_tree_free(&t);
		free(data);
	}
	print_message("  cube: %u objects, %llu values (text), %u / %llu (binary), %u / %llu (compressed)\n",
		      objects[0], (unsigned long long)values[0], objects[1],
		      (unsigned long long)values[1], objects[2], (unsigned long long)values[2]);
	assert_int_equal(frames[0], frames[1]);
	assert_int_equal(frames[1], frames[2]);
	assert_int_equal(meshes[0], meshes[1]);
	assert_int_equal(meshes[1], meshes[2]);
	assert_int_equal(objects[1], objects[2]);
	assert_true(values[1] == values[2]);
}

/* Every cut of a compressed and of a binary file is refused with an offset
 * (or, cut at an object boundary of a binary file, still parses). */
static void test_truncations(void **state)
{
	static const char *const files[] = { "x/assimp/test_cube_compressed.x",
					     "x/assimp/test_cube_binary.x" };

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	for (int f = 0; f < 2; f++) {
		size_t len = 0, refused = 0;
		char *data = test_file_read(testdata_path(files[f]), &len);

		assert_non_null(data);
		for (size_t cut = 0; cut < len; cut++) {
			struct diag d = { 0 };
			struct x_tree t;
			char *copy = malloc(cut + 1);
			int rc;

			memcpy(copy, data, cut);
			rc = x_parse(copy, cut, &t, &d);
			if (rc == 0) {
				x_tree_free(&t);
			} else {
				assert_int_equal(rc, -EINVAL);
				assert_true(d.set && d.line == 0);
				refused++;
			}
			free(copy);
		}
		/* A compressed file cut anywhere is short of its declared size. */
		if (f == 0)
			assert_int_equal(refused, len);
		free(data);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_file),
		cmocka_unit_test(test_cube_three_ways),
		cmocka_unit_test(test_truncations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
