/*
 * Conformance on real MD5 files from ../shared/testdata/md5 (skipped when
 * absent): every valid file loads and evaluates to finite poses and
 * vertices; every file under assimp-invalid is rejected with a located,
 * specific error; CRLF files give bit-identical poses to their LF twins.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/assets/asset.h"
#include "daemon/assets/sampling.h"
#include "tests/support/testdata.h"

static const char *const valid_dirs[] = { "md5/mgl", "md5/assimp", "md5/sauer-snoutx10k" };

static void assert_finite_result(const struct sample_result *r, uint32_t joints)
{
	if (r->mats != NULL)
		for (uint32_t j = 0; j < joints; j++)
			for (int k = 0; k < 12; k++)
				assert_true(isfinite((&r->mats[j].m[0][0])[k]));
	for (uint32_t i = 0; i < r->mesh_count; i++)
		for (uint32_t v = 0; v < r->meshes[i]->vertex_count; v++) {
			assert_true(isfinite(r->positions[i][v].x));
			assert_true(isfinite(r->positions[i][v].y));
			assert_true(isfinite(r->positions[i][v].z));
		}
}

static void test_valid_files_load(void **state)
{
	(void)state;
	if (testdata_dir() == NULL)
		skip();
	for (size_t d = 0; d < sizeof valid_dirs / sizeof valid_dirs[0]; d++) {
		char dir[4096], **names;
		size_t n;

		snprintf(dir, sizeof dir, "%s", testdata_path(valid_dirs[d]));
		n = testdata_list(dir, NULL, &names);
		assert_true(n > 0);
		for (size_t i = 0; i < n; i++) {
			char path[8192], err[512] = "";
			struct asset *a = NULL;
			struct sample_request q = { 0 };
			struct sample_result r;
			int rc;

			snprintf(path, sizeof path, "%s/%s", dir, names[i]);
			rc = asset_load_file(path, 0, &a, err, sizeof err);
			if (rc != 0)
				fail_msg("%s", err);
			q.asset = a;
			q.space = sample_default_space(a);
			q.time = 0.3;
			assert_int_equal(sample_evaluate(&q, &r, err, sizeof err), 0);
			assert_finite_result(&r, a->skeleton ? a->skeleton->joint_count : 0);
			sample_result_free(&r);
			if (a->format == ASSET_FORMAT_MD5MESH) {
				q.space = SPACE_VERTICES;
				assert_int_equal(sample_evaluate(&q, &r, err, sizeof err), 0);
				assert_int_equal(r.mesh_count, a->mesh_count);
				assert_finite_result(&r, 0);
				sample_result_free(&r);
			}
			asset_free(a);
		}
		testdata_list_free(names);
	}
}

/* Each crafted file must fail at a location, for the reason it was made. */
static void test_invalid_files_rejected(void **state)
{
	static const struct {
		const char *file;
		const char *reason;
	} expect[] = {
		{ "InvalidBoneIndex.md5mesh", "joint" },
		{ "InvalidCameraCut.md5camera", "cut" },
		{ "OverflowingTriangleIndex.md5mesh", "tri" },
		{ "OverflowingVertexIndex.md5mesh", "vert" },
		{ "OverflowingWeightIndex.md5mesh", "weight" },
		{ "malformed_weight_index.md5mesh", "weight" },
	};
	char dir[4096], **names;
	size_t n;

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	snprintf(dir, sizeof dir, "%s", testdata_path("md5/assimp-invalid"));
	n = testdata_list(dir, NULL, &names);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		char path[8192], err[512] = "", prefix[8300];
		struct asset *a = NULL;
		unsigned line = 0, col = 0;

		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		assert_true(asset_load_file(path, 0, &a, err, sizeof err) < 0);
		assert_null(a);
		printf("  rejected: %s\n", err);
		snprintf(prefix, sizeof prefix, "%s:", path);
		assert_memory_equal(err, prefix, strlen(prefix));
		assert_int_equal(sscanf(err + strlen(prefix), "%u:%u:", &line, &col), 2);
		assert_true(line > 0 && col > 0);
		assert_non_null(strstr(err, ": error: "));
		for (size_t k = 0; k < sizeof expect / sizeof expect[0]; k++)
			if (strcmp(names[i], expect[k].file) == 0 &&
			    strstr(err + strlen(prefix), expect[k].reason) == NULL)
				fail_msg("%s: expected the message to mention \"%s\"", err,
					 expect[k].reason);
	}
	testdata_list_free(names);
}

/* Every mgl anim drives its mesh (names and parents match) to finite
 * vertices across and beyond its length. */
static void test_anims_bind_to_meshes(void **state)
{
	static const struct {
		const char *anim;
		const char *mesh;
	} pairs[] = {
		{ "md5/mgl/bob.md5anim", "md5/mgl/bob.md5mesh" },
		{ "md5/mgl/mech_warrior_jump.md5anim", "md5/mgl/mech_warrior.md5mesh" },
		{ "md5/mgl/mech_warrior_spin.md5anim", "md5/mgl/mech_warrior.md5mesh" },
		{ "md5/mgl/mech_warrior_stand.md5anim", "md5/mgl/mech_warrior.md5mesh" },
		{ "md5/mgl/mech_warrior_walk.md5anim", "md5/mgl/mech_warrior.md5mesh" },
	};

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		char apath[4096], mpath[4096], err[512] = "";
		struct asset *a = NULL, *m = NULL;

		snprintf(apath, sizeof apath, "%s", testdata_path(pairs[i].anim));
		snprintf(mpath, sizeof mpath, "%s", testdata_path(pairs[i].mesh));
		assert_int_equal(asset_load_file(apath, 0, &a, err, sizeof err), 0);
		assert_int_equal(asset_load_file(mpath, 0, &m, err, sizeof err), 0);
		for (double t = -0.4; t < 3.0; t += 0.137) {
			struct sample_request q = { .asset = a, .mesh = m, .time = t,
						    .space = SPACE_VERTICES };
			struct sample_result r;

			if (sample_evaluate(&q, &r, err, sizeof err) != 0)
				fail_msg("%s", err);
			assert_int_equal(r.mesh_count, m->mesh_count);
			assert_finite_result(&r, 0);
			sample_result_free(&r);
		}
		asset_free(a);
		asset_free(m);
	}
}

/* The mgl files are CRLF: the LF twin must give the very same numbers. */
static void test_crlf_twin_identical(void **state)
{
	const char *rel[] = { "md5/mgl/bob.md5anim", "md5/mgl/bob.md5mesh" };

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	for (size_t f = 0; f < 2; f++) {
		struct asset *crlf = NULL, *lf = NULL;
		struct sample_request q = { 0 };
		struct sample_result r1, r2;
		char err[512], *buf;
		size_t len = 0, o = 0;

		buf = test_file_read(testdata_path(rel[f]), &len);
		assert_non_null(buf);
		assert_non_null(memchr(buf, '\r', len));
		assert_int_equal(asset_load_buffer(rel[f], buf, len, &crlf, err, sizeof err), 0);
		for (size_t i = 0; i < len; i++)
			if (buf[i] != '\r')
				buf[o++] = buf[i];
		assert_int_equal(asset_load_buffer(rel[f], buf, o, &lf, err, sizeof err), 0);
		free(buf);
		q.space = SPACE_LOCAL;
		q.time = 0.77;
		q.asset = crlf;
		assert_int_equal(sample_evaluate(&q, &r1, err, sizeof err), 0);
		q.asset = lf;
		assert_int_equal(sample_evaluate(&q, &r2, err, sizeof err), 0);
		assert_memory_equal(r1.local, r2.local,
				    crlf->skeleton->joint_count * sizeof *r1.local);
		sample_result_free(&r1);
		sample_result_free(&r2);
		asset_free(crlf);
		asset_free(lf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_files_load),
		cmocka_unit_test(test_invalid_files_rejected),
		cmocka_unit_test(test_anims_bind_to_meshes),
		cmocka_unit_test(test_crlf_twin_identical),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
