/*
 * animd's glTF poses against Blender's own evaluation of the scene it
 * exported (tests/gen/gltf_blender_ref.py, Blender 3.4: its fixtures
 * under tests/fixtures/gltf/blender/): at every frame of the animation,
 * in the .gltf + .bin and in the .glb, every skinned, morphed vertex,
 * every joint's skin matrix (global(joint) * inverseBindMatrix, which is
 * Blender's world * pose * rest^-1 * world^-1 whatever basis the exporter
 * gives a bone's node), every joint's position and the shape keys'
 * weights agree within 1e-4 of the model's size.  Vertices are matched by
 * their rest positions (the exporter reorders them).
 */
#include "tests/unit/gltf_expect.h"

#include <jansson.h>

#include "daemon/formats/gltf/gltf.h"
#include "tests/support/testdata.h"

#define DIR "tests/fixtures/gltf/blender/"

static float num(json_t *v)
{
	return (float)json_number_value(v);
}

/* glTF vertex -> Blender vertex, by rest position. */
static uint32_t *match_vertices(const char *path, json_t *rest, uint32_t *count)
{
	size_t len, n = json_array_size(rest);
	char *buf = test_file_read(path, &len);
	struct gltf_model *m = NULL;
	struct diag d = { 0 };
	const float *pos;
	uint32_t *map, acc;

	assert_non_null(buf);
	assert_int_equal(gltf_parse(buf, len, &m, &d), 0);
	if (!m->glb) {
		size_t bl;
		char *bin = test_file_read(DIR "rig.bin", &bl);

		assert_non_null(bin);
		assert_int_equal(gltf_attach_buffer(m, 0, bin, bl, &d), 0);
		assert_int_equal(gltf_finish(m, len + bl, &d), 0);
		acc = (uint32_t)m->meshes[0].primitives[0].position;
		pos = gltf_floats(m, acc);
		*count = m->accessors[acc].count;
		map = calloc(*count + 1, sizeof *map);
		for (uint32_t v = 0; v < *count; v++) {
			double best = 1e30;

			for (size_t k = 0; k < n; k++) {
				json_t *r = json_array_get(rest, k);
				double dx = pos[3 * v] - num(json_array_get(r, 0)),
				       dy = pos[3 * v + 1] - num(json_array_get(r, 1)),
				       dz = pos[3 * v + 2] - num(json_array_get(r, 2));
				double d2 = dx * dx + dy * dy + dz * dz;

				if (d2 < best) {
					best = d2;
					map[v] = (uint32_t)k;
				}
			}
			assert_true(best < 1e-10);
		}
		free(bin);
	} else {
		map = NULL;
	}
	gltf_model_free(m);
	free(buf);
	return map;
}

static void compare(const char *file, const uint32_t *map, uint32_t count, json_t *ref)
{
	json_t *frames = json_object_get(ref, "frames");
	struct asset *a = NULL;
	char err[512];
	float size = 3.0f, tol = 1e-4f * size;

	if (gx_load_file_raw(file, &a, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(a->clip_count, 1);
	assert_int_equal(a->mesh_count, 1);
	assert_int_equal(a->meshes[0]->vertex_count, count);
	for (size_t f = 0; f < json_array_size(frames); f++) {
		json_t *fr = json_array_get(frames, f), *skin = json_object_get(fr, "skin");
		json_t *verts = json_object_get(fr, "vertices"), *heads = json_object_get(fr, "heads");
		double t = json_number_value(json_object_get(fr, "time"));
		struct sample_result r;

		gx_sample(a, NULL, t, SPACE_VERTICES, &r);
		for (uint32_t v = 0; v < count; v++) {
			json_t *b = json_array_get(verts, map[v]);

			gx_near(r.positions[0][v].x, num(json_array_get(b, 0)), tol, "vertex x");
			gx_near(r.positions[0][v].y, num(json_array_get(b, 1)), tol, "vertex y");
			gx_near(r.positions[0][v].z, num(json_array_get(b, 2)), tol, "vertex z");
		}
		sample_result_free(&r);
		gx_sample(a, NULL, t, SPACE_SKIN, &r);
		for (uint32_t j = 0; j < r.skeleton->joint_count; j++) {
			json_t *m = json_object_get(skin, r.skeleton->names[j]);

			if (m == NULL)
				continue;
			for (int k = 0; k < 12; k++)
				gx_near(r.mats[j].m[k / 4][k % 4], num(json_array_get(m, (size_t)k)), tol,
					"skin matrix");
		}
		sample_result_free(&r);
		gx_sample(a, NULL, t, SPACE_MODEL, &r);
		for (uint32_t j = 0; j < r.skeleton->joint_count; j++) {
			json_t *h = json_object_get(heads, r.skeleton->names[j]);

			for (int k = 0; h != NULL && k < 3; k++)
				gx_near(r.mats[j].m[k][3], num(json_array_get(h, (size_t)k)), tol, "head");
		}
		sample_result_free(&r);
		gx_sample(a, NULL, t, SPACE_WEIGHTS, &r);
		assert_int_equal(r.weight_count, 2);
		for (uint32_t w = 0; w < r.weight_count; w++) {
			const char *name = strrchr(a->weight_names[w], '/') + 1;

			gx_near(r.weights[w], num(json_object_get(json_object_get(fr, "weights"), name)),
				1e-5f, "weight");
		}
		sample_result_free(&r);
	}
	asset_free(a);
}

static void test_blender_reference(void **state)
{
	json_error_t e;
	json_t *ref = json_load_file(DIR "rig.ref.json", 0, &e);
	uint32_t count = 0, *map;

	(void)state;
	if (ref == NULL)
		fail_msg("%s: %s", DIR "rig.ref.json", e.text);
	assert_int_equal(json_array_size(json_object_get(ref, "frames")), 25);
	map = match_vertices(DIR "rig.gltf", json_object_get(ref, "rest"), &count);
	compare(DIR "rig.gltf", map, count, ref);
	/* The GLB holds the same document: the same vertex order. */
	compare(DIR "rig.glb", map, count, ref);
	free(map);
	json_decref(ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blender_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
