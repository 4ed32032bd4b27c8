/*
 * Conformance on real .x files from ../shared/testdata/x (skipped when
 * absent):
 *  - every valid file loads as an asset and evaluates, in every space, to
 *    finite poses and vertices;
 *  - the invalid ones are rejected at a location, for their reason;
 *  - tiny.x (35 skinned bones): skinned at the frames' own matrices, the
 *    runtime gives what D3DX computes, sum w * v * offset * Combined,
 *    worked out here independently in row-vector form from the raw tree;
 *  - tiny.x keys most bones at their rest rotation first: the imported
 *    rotation keys must agree with the frames' matrices (which they do
 *    only with the conjugation docs/formats/x.md gives).
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
#include "daemon/assets/asset.h"
#include "daemon/assets/sampling.h"
#include "daemon/formats/x/x.h"
#include "tests/support/row_matrix.h"
#include "tests/support/testdata.h"

static const char *const valid_dirs[] = { "x/assimp", "x/dxsdk", "x/irrlicht", "x/saschawillems" };

/* Valid at the syntax level or not, these must not load. */
static const struct {
	const char *file;
	const char *reason;
} invalid[] = {
	{ "assimp/OV_GetNextToken", "inflates" },
	{ "assimp-invalid/malformed_skinweights_oob.x", "weighs vertex" },
};

static int is_invalid(const char *rel)
{
	for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
		if (strcmp(rel, invalid[i].file) == 0)
			return 1;
	return 0;
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
						    SPACE_VERTICES };
	uint32_t clips = a->clip_count ? a->clip_count : 1;

	for (uint32_t c = 0; c < clips; c++) {
		for (size_t k = 0; k < sizeof spaces / sizeof spaces[0]; k++) {
			struct sample_request q = { 0 };
			struct sample_result r;
			char err[512];

			if (spaces[k] == SPACE_VERTICES && a->mesh_count == 0)
				continue;
			q.asset = a;
			q.clip = a->clip_count ? a->clips[c]->name : NULL;
			q.space = spaces[k];
			q.time = 0.37;
			if (sample_evaluate(&q, &r, err, sizeof err) != 0)
				fail_msg("%s: %s", rel, err);
			if (r.local != NULL)
				assert_finite(&r.local[0].t.x, (size_t)a->skeleton->joint_count * 10,
					      "local", rel);
			if (r.mats != NULL)
				assert_finite(&r.mats[0].m[0][0], (size_t)a->skeleton->joint_count * 12,
					      "matrix", rel);
			for (uint32_t i = 0; i < r.mesh_count; i++)
				assert_finite(&r.positions[i][0].x, (size_t)r.meshes[i]->vertex_count * 3,
					      "vertex", rel);
			sample_result_free(&r);
		}
	}
}

static void test_valid_files(void **state)
{
	size_t files = 0;

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	for (size_t k = 0; k < sizeof valid_dirs / sizeof valid_dirs[0]; k++) {
		char dir[4096], **names;
		size_t n;

		snprintf(dir, sizeof dir, "%s", testdata_path(valid_dirs[k]));
		n = testdata_list(dir, NULL, &names);
		for (size_t i = 0; i < n; i++) {
			char path[8192], rel[512], err[512] = "";
			struct asset *a = NULL;

			snprintf(rel, sizeof rel, "%s/%s", valid_dirs[k] + 2, names[i]);
			if (is_invalid(rel))
				continue;
			snprintf(path, sizeof path, "%s/%s", dir, names[i]);
			if (asset_load_file(path, 0, &a, err, sizeof err) != 0)
				fail_msg("%s", err);
			assert_int_equal(a->format, ASSET_FORMAT_X);
			assert_non_null(a->skeleton);
			check_spaces(a, rel);
			if (a->note != NULL)
				print_message("  %s: %s\n", rel, a->note);
			asset_free(a);
			files++;
		}
		testdata_list_free(names);
	}
	assert_true(files >= 40);
}

static void test_invalid_files(void **state)
{
	(void)state;
	if (testdata_dir() == NULL)
		skip();
	for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
		char path[8192], rel[600], err[512] = "";
		struct asset *a = NULL;

		snprintf(rel, sizeof rel, "x/%s", invalid[i].file);
		snprintf(path, sizeof path, "%s", testdata_path(rel));
		assert_int_equal(asset_load_file(path, 0, &a, err, sizeof err), -EINVAL);
		assert_null(a);
		print_message("  rejected: %s\n", err);
		if (strstr(err, invalid[i].reason) == NULL || strstr(err, ": error: ") == NULL)
			fail_msg("%s: expected a located error about \"%s\"", err, invalid[i].reason);
	}
}

/* ---- D3DX's skinning, row form, from the raw tree ---- */

struct frame_mat {
	const char *name;
	float m[16];
};

static double value(const struct x_value *v)
{
	return v->kind == X_VALUE_FLOAT ? v->v.f : (double)v->v.i;
}

static void combine(const struct x_object *o, const float *parent, struct frame_mat *out,
		    uint32_t *count, const struct x_object **mesh)
{
	float local[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };

	if (o->type == NULL)
		return;
	if (strcmp(o->type, "Mesh") == 0 && *mesh == NULL)
		*mesh = o;
	if (strcmp(o->type, "Frame") == 0) {
		for (uint32_t i = 0; i < o->child_count; i++)
			if (o->children[i]->type != NULL &&
			    strcmp(o->children[i]->type, "FrameTransformMatrix") == 0)
				for (int k = 0; k < 16; k++)
					local[k] = (float)value(&o->children[i]->values[k]);
		out[*count].name = o->name;
		row_mul(local, parent, out[*count].m);
		parent = out[(*count)++].m;
	}
	for (uint32_t i = 0; i < o->child_count; i++)
		combine(o->children[i], parent, out, count, mesh);
}

static void test_tiny_skins_like_d3dx(void **state)
{
	static const float id[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
	struct frame_mat frames[64];
	const struct x_object *mesh = NULL;
	struct diag d = { 0 };
	struct x_tree t;
	struct asset *a = NULL;
	uint32_t nframes = 0, nv;
	vec3 *want, *got;
	mat34 *model, *skin;
	float worst = 0, size = 0;
	size_t len = 0;
	char err[512], *data;

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	data = test_file_read(testdata_path("x/dxsdk/tiny.x"), &len);
	assert_non_null(data);
	assert_int_equal(x_parse(data, len, &t, &d), 0);
	for (uint32_t i = 0; i < t.root_count; i++)
		combine(t.roots[i], id, frames, &nframes, &mesh);
	assert_non_null(mesh);
	nv = (uint32_t)mesh->values[0].v.i;
	want = calloc(nv, sizeof *want);
	got = calloc(nv, sizeof *got);
	for (uint32_t c = 0; c < mesh->child_count; c++) {
		const struct x_object *sw = mesh->children[c];
		uint32_t nw;
		float off[16], m[16];
		int bone = -1;

		if (sw->type == NULL || strcmp(sw->type, "SkinWeights") != 0)
			continue;
		nw = (uint32_t)sw->values[1].v.i;
		for (int k = 0; k < 16; k++)
			off[k] = (float)value(&sw->values[2 + 2 * nw + k]);
		for (uint32_t f = 0; f < nframes; f++)
			if (frames[f].name != NULL && strcmp(frames[f].name, sw->values[0].v.s.ptr) == 0)
				bone = (int)f;
		assert_true(bone >= 0);
		row_mul(off, frames[bone].m, m);
		for (uint32_t w = 0; w < nw; w++) {
			uint32_t v = (uint32_t)sw->values[2 + w].v.i;
			float wt = (float)value(&sw->values[2 + nw + w]);
			float x = (float)value(&mesh->values[1 + 3 * v]);
			float y = (float)value(&mesh->values[2 + 3 * v]);
			float z = (float)value(&mesh->values[3 + 3 * v]);

			want[v] = vec3_add(want[v], vec3_scale(row_apply(m, vec3_make(x, y, z)), wt));
		}
	}
	x_tree_free(&t);
	assert_int_equal(asset_load_buffer("tiny.x", data, len, &a, err, sizeof err), 0);
	model = malloc(a->skeleton->joint_count * sizeof *model);
	skin = malloc(a->skeleton->joint_count * sizeof *skin);
	/* The rest pose: every frame at its matrix as written. */
	mesh_skin_positions(a->meshes[0], a->skeleton->bind_model, got);
	for (uint32_t v = 0; v < nv; v++) {
		worst = fmaxf(worst, fabsf(got[v].x - want[v].x) + fabsf(got[v].y - want[v].y) +
				     fabsf(got[v].z - want[v].z));
		size = fmaxf(size, fabsf(want[v].x) + fabsf(want[v].y) + fabsf(want[v].z));
	}
	print_message("  tiny.x: %u vertices, worst |runtime - D3DX| %.2g (model size %.0f)\n", nv,
		      worst, size);
	assert_true(worst < 1e-5f * size);
	free(model);
	free(skin);
	free(want);
	free(got);
	asset_free(a);
	free(data);
}

static void test_tiny_rotation_keys(void **state)
{
	struct asset *a = NULL;
	char err[512];
	uint32_t tracks = 0, at_rest = 0;

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	assert_int_equal(asset_load_file(testdata_path("x/dxsdk/tiny.x"), 0, &a, err, sizeof err), 0);
	assert_int_equal(a->clip_count, 1);
	/* No AnimTicksPerSecond: 4960 ticks at D3DX's 4800. */
	assert_int_equal(a->ticks_per_second, 4800);
	assert_int_equal(a->ticks_from_file, 0);
	assert_true(llabs(a->clips[0]->duration_ns - 1033333333LL) <= 1);
	for (uint32_t j = 0; j < a->skeleton->joint_count; j++) {
		const struct track *tr = &a->clips[0]->tracks[j].r;
		quat r = a->skeleton->rest[j].r;

		if (tr->count == 0)
			continue;
		tracks++;
		if (fabsf(r.x * tr->values[0] + r.y * tr->values[1] + r.z * tr->values[2] +
			  r.w * tr->values[3]) > 0.999f)
			at_rest++;
	}
	print_message("  tiny.x: %u of %u first rotation keys equal the frame's rotation\n", at_rest,
		      tracks);
	assert_int_equal(tracks, 47);
	assert_true(at_rest >= 40);
	asset_free(a);
}

/* The same skinned cube saved as text, binary and MSZIP-compressed binary
 * loads into the same asset: skeleton, mesh and skinned vertices. */
static void test_cube_three_encodings(void **state)
{
	static const char *const files[] = { "x/assimp/test_cube_text.x",
					     "x/assimp/test_cube_binary.x",
					     "x/assimp/test_cube_compressed.x" };
	struct asset *a[3] = { NULL };
	char err[512];

	(void)state;
	if (testdata_dir() == NULL)
		skip();
	for (int i = 0; i < 3; i++)
		if (asset_load_file(testdata_path(files[i]), 0, &a[i], err, sizeof err) != 0)
			fail_msg("%s", err);
	for (int i = 1; i < 3; i++) {
		const struct skeleton *s0 = a[0]->skeleton, *s = a[i]->skeleton;
		const struct mesh *m0 = a[0]->meshes[0], *m = a[i]->meshes[0];
		mat34 *model = malloc(s->joint_count * sizeof *model);
		mat34 *skin = malloc(s->joint_count * sizeof *skin);
		vec3 *p0 = malloc(m0->vertex_count * sizeof *p0), *p = malloc(m->vertex_count * sizeof *p);

		assert_int_equal(s->joint_count, s0->joint_count);
		for (uint32_t j = 0; j < s->joint_count; j++) {
			assert_string_equal(s->names[j], s0->names[j]);
			assert_int_equal(s->parents[j], s0->parents[j]);
		}
		assert_int_equal(a[i]->mesh_count, a[0]->mesh_count);
		assert_int_equal(m->vertex_count, m0->vertex_count);
		assert_int_equal(m->triangle_count, m0->triangle_count);
		assert_memory_equal(m->triangles, m0->triangles, m->triangle_count * sizeof *m->triangles);
		mesh_skin_positions(m0, s0->bind_model, p0);
		mesh_skin_positions(m, s->bind_model, p);
		for (uint32_t v = 0; v < m->vertex_count; v++)
			assert_true(fabsf(p[v].x - p0[v].x) + fabsf(p[v].y - p0[v].y) +
					    fabsf(p[v].z - p0[v].z) < 1e-5f);
		free(model);
		free(skin);
		free(p0);
		free(p);
	}
	for (int i = 0; i < 3; i++)
		asset_free(a[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_files),
		cmocka_unit_test(test_invalid_files),
		cmocka_unit_test(test_tiny_skins_like_d3dx),
		cmocka_unit_test(test_tiny_rotation_keys),
		cmocka_unit_test(test_cube_three_encodings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
