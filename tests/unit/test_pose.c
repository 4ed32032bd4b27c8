/*
 * pose, skeleton, mesh: local -> model through a hierarchy (matrices worked
 * out by hand), skinning matrices, model -> local, bind poses, binding
 * checks, and skinned vertices and normals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/mesh.h"
#include "daemon/anim/pose.h"
#include "daemon/anim/skeleton.h"

#define S2 0.70710678f

static void assert_near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.9g, want %.9g (tolerance %g)", got, want, tol);
}

static void assert_vec(vec3 v, float x, float y, float z, double tol)
{
	assert_near(v.x, x, tol);
	assert_near(v.y, y, tol);
	assert_near(v.z, z, tol);
}

static void assert_mat(const mat34 *m, const float want[3][4], double tol)
{
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			assert_near(m->m[i][j], want[i][j], tol);
}

static struct skeleton *chain(uint32_t n)
{
	struct skeleton *s = skeleton_new(n);
	static const char *names[] = { "root", "arm", "hand", "finger" };

	assert_non_null(s);
	for (uint32_t i = 0; i < n; i++) {
		s->parents[i] = (int32_t)i - 1;
		s->names[i] = strdup(names[i % 4]);
	}
	return s;
}

static void test_identity(void **state)
{
	struct skeleton *s = chain(3);
	mat34 model[3];
	const float id[3][4] = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 } };

	(void)state;
	/* skeleton_new: the rest pose is the identity. */
	pose_local_to_model(s, s->rest, model);
	for (int i = 0; i < 3; i++)
		assert_mat(&model[i], id, 0);
	skeleton_free(s);
}

static void test_one_joint_z90(void **state)
{
	struct skeleton *s = chain(1);
	struct transform local[1] = { { { 0, 0, 0 }, { 0, 0, S2, S2 }, { 1, 1, 1 } } };
	mat34 model[1];

	(void)state;
	pose_local_to_model(s, local, model);
	/* 90 deg about Z: the joint's +X is the model's +Y. */
	assert_vec(mat34_apply(&model[0], vec3_make(1, 0, 0)), 0, 1, 0, 1e-6);
	assert_vec(mat34_apply(&model[0], vec3_make(0, 2, 5)), -2, 0, 5, 1e-6);
	skeleton_free(s);
}

/*
 * The chain, by hand:
 *   J0 root: t (1,0,0), 90 deg about Z  -> M0 = [0 -1 0 1; 1 0 0 0; 0 0 1 0]
 *   J1:      t (2,0,0), 90 deg about X, L1 = [1 0 0 2; 0 0 -1 0; 0 1 0 0]
 *            M1 = M0 L1: R = Rz Rx = [0 0 1; 1 0 0; 0 1 0],
 *            t = Rz (2,0,0) + (1,0,0) = (1,2,0)
 *   J2:      t (0,0,3), no rotation, scale 2
 *            M2 = M1 L2: R = 2 R1 = [0 0 2; 2 0 0; 0 2 0],
 *            t = R1 (0,0,3) + (1,2,0) = (4,2,0)
 * A point (1,0,0) in J2's space is M2 (1,0,0) = (4,4,0).
 */
static void test_chain(void **state)
{
	struct skeleton *s = chain(3);
	struct transform local[3] = {
		{ { 1, 0, 0 }, { 0, 0, S2, S2 }, { 1, 1, 1 } },
		{ { 2, 0, 0 }, { S2, 0, 0, S2 }, { 1, 1, 1 } },
		{ { 0, 0, 3 }, { 0, 0, 0, 1 }, { 2, 2, 2 } },
	};
	const float m0[3][4] = { { 0, -1, 0, 1 }, { 1, 0, 0, 0 }, { 0, 0, 1, 0 } };
	const float m1[3][4] = { { 0, 0, 1, 1 }, { 1, 0, 0, 2 }, { 0, 1, 0, 0 } };
	const float m2[3][4] = { { 0, 0, 2, 4 }, { 2, 0, 0, 2 }, { 0, 2, 0, 0 } };
	mat34 model[3];

	(void)state;
	pose_local_to_model(s, local, model);
	assert_mat(&model[0], m0, 1e-6);
	assert_mat(&model[1], m1, 1e-6);
	assert_mat(&model[2], m2, 1e-6);
	assert_vec(mat34_apply(&model[2], vec3_make(1, 0, 0)), 4, 4, 0, 1e-6);
	skeleton_free(s);
}

static void test_bind_and_skin(void **state)
{
	struct skeleton *s = chain(3);
	struct transform pose[3];
	mat34 model[3], skin[3];
	const float id[3][4] = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 } };

	(void)state;
	s->rest[0] = (struct transform){ { 1, 0, 0 }, { 0, 0, S2, S2 }, { 1, 1, 1 } };
	s->rest[1] = (struct transform){ { 2, 0, 0 }, { S2, 0, 0, S2 }, { 1, 1, 1 } };
	s->rest[2] = (struct transform){ { 0, 0, 3 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };
	assert_int_equal(skeleton_compute_bind(s), 0);
	/* The rest pose skins to the identity. */
	pose_local_to_model(s, s->rest, model);
	pose_model_to_skin(s, model, skin);
	for (int i = 0; i < 3; i++)
		assert_mat(&skin[i], id, 1e-6);
	/* Move the root by (0,0,5): every skinning matrix is that move. */
	memcpy(pose, s->rest, sizeof pose);
	pose[0].t.z = 5;
	pose_local_to_model(s, pose, model);
	pose_model_to_skin(s, model, skin);
	for (int i = 0; i < 3; i++) {
		const float mv[3][4] = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 5 } };

		assert_mat(&skin[i], mv, 1e-6);
	}
	/* Model -> local gives the rigid local pose back. */
	pose_model_to_local(s, model, pose);
	assert_vec(pose[0].t, 1, 0, 5, 1e-6);
	assert_vec(pose[1].t, 2, 0, 0, 1e-6);
	assert_vec(pose[2].t, 0, 0, 3, 1e-6);
	assert_near(fabs(quat_dot(pose[1].r, s->rest[1].r)), 1, 1e-6);
	assert_near(fabs(quat_dot(pose[0].r, s->rest[0].r)), 1, 1e-6);
	assert_vec(pose[2].s, 1, 1, 1, 0);
	skeleton_free(s);
}

static uint64_t rng = 0x853c49e6748fea9bull;

static float rndf(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (float)((double)(rng >> 11) / 9007199254740992.0);
}

/* The fast paths (four joints per block, parent rows kept in registers,
 * the fused skinning pass) against the portable matrix functions, on
 * random poses and hierarchies, with and without scale. */
static void test_against_reference(void **state)
{
	enum { N = 23 };
	struct skeleton *s = skeleton_new(N);
	struct transform local[N];
	mat34 model[N], skin[N], skin2[N], want[N];

	(void)state;
	assert_non_null(s);
	for (int round = 0; round < 40; round++) {
		for (int i = 0; i < N; i++) {
			quat q = quat_normalize(quat_make(2 * rndf() - 1, 2 * rndf() - 1,
							  2 * rndf() - 1, 2 * rndf() - 1));

			s->parents[i] = i == 0 ? -1 : rndf() < 0.6f ? i - 1 : (int32_t)(rndf() * (float)i);
			if (i > 0 && rndf() < 0.1f)
				s->parents[i] = -1;
			local[i].t = vec3_make(4 * rndf() - 2, 4 * rndf() - 2, 4 * rndf() - 2);
			local[i].r = q;
			/* Whole blocks of unit scale, and blocks with some. */
			local[i].s = round % 2 && i % 5 == 3 ?
				     vec3_make(0.5f + rndf(), 0.5f + rndf(), 0.5f + rndf()) :
				     vec3_make(1, 1, 1);
		}
		/* A bind pose that differs from the pose. */
		for (int i = 0; i < N; i++)
			s->rest[i] = local[(i + 1 + round) % N];
		for (int i = 0; i < N; i++) {
			mat34 m = mat34_from_transform(&local[i]);
			int32_t p = s->parents[i];

			want[i] = p >= 0 ? mat34_mul(&want[p], &m) : m;
		}
		pose_local_to_model(s, local, model);
		for (int i = 0; i < N; i++)
			for (int r = 0; r < 3; r++)
				for (int c = 0; c < 4; c++)
					assert_near(model[i].m[r][c], want[i].m[r][c], 1e-4);
		/* Skinning, separate and fused, with and without a bind pose. */
		free(s->bind_model);
		free(s->inv_bind);
		s->bind_model = s->inv_bind = NULL;
		pose_local_to_skin(s, local, model, skin);
		assert_memory_equal(skin, model, sizeof skin);
		assert_int_equal(skeleton_compute_bind(s), 0);
		pose_model_to_skin(s, model, skin);
		pose_local_to_skin(s, local, model, skin2);
		for (int i = 0; i < N; i++) {
			mat34 w = mat34_mul(&want[i], &s->inv_bind[i]);

			for (int r = 0; r < 3; r++)
				for (int c = 0; c < 4; c++) {
					assert_near(skin[i].m[r][c], w.m[r][c], 1e-4);
					assert_near(skin2[i].m[r][c], w.m[r][c], 1e-4);
				}
		}
	}
	skeleton_free(s);
}

#if defined(__x86_64__)
/* The hierarchy pass's product as its SIMD kernels compute each element:
 * with FMA (AVX2) the third product fused with the translation, without it
 * (SSE2) rounded apart.  Tests compile without contraction (-std=c11), so
 * these are exactly the roundings written. */
static mat34 kernel_mul(const mat34 *a, const mat34 *b, int fused)
{
	mat34 c;

	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 4; k++) {
			float t = k == 3 ? a->m[r][3] : 0.0f;
			float x = a->m[r][0] * b->m[0][k] + a->m[r][1] * b->m[1][k];

			c.m[r][k] = x + (fused ? fmaf(a->m[r][2], b->m[2][k], t)
					       : a->m[r][2] * b->m[2][k] + t);
		}
	return c;
}

/* The hierarchy pass, bit for bit, on shapes that take each of its paths:
 * a joint after its parent (its rows kept in registers), a parent further
 * back (breadth-first trees, stars), roots in the middle and invalid
 * parents. */
static void test_hierarchy_bits(void **state)
{
	enum { N = 41 };
	struct skeleton *s = skeleton_new(N);
	struct transform local[N];
	mat34 model[N], want[N];
	enum math3d_simd best = math3d_simd_level();

	(void)state;
	assert_non_null(s);
	for (int level = best; level >= MATH3D_SIMD_BASE; level--) {
		math3d_simd_limit((enum math3d_simd)level);
		for (int round = 0; round < 60; round++) {
			for (int i = 0; i < N; i++) {
				int shape = round % 4;

				s->parents[i] = i == 0 ? -1 :
						shape == 0 ? (i - 1) / 2 :          /* binary tree */
						shape == 1 ? (i < 9 ? 0 : i - 8) :  /* a star, then chains */
						shape == 2 ? (int32_t)(rndf() * (float)i) :
						rndf() < 0.5f ? i - 1 : (int32_t)(rndf() * (float)i) / 3;
				if (i > 0 && rndf() < 0.06f)
					s->parents[i] = rndf() < 0.5f ? -1 : i + 2;
				local[i].t = vec3_make(4 * rndf() - 2, 4 * rndf() - 2, 4 * rndf() - 2);
				local[i].r = quat_normalize(quat_make(2 * rndf() - 1, 2 * rndf() - 1,
								      2 * rndf() - 1, 2 * rndf() - 1));
				local[i].s = i % 7 == 3 ? vec3_make(0.5f + rndf(), 1.5f, 0.75f)
							: vec3_make(1, 1, 1);
			}
			pose_local_matrices(local, N, want);
			memcpy(model, want, sizeof model);
			for (int i = 1; i < N; i++) {
				int32_t p = s->parents[i];

				if (p >= 0 && p < i)
					want[i] = kernel_mul(&want[p], &want[i],
							     level == MATH3D_SIMD_AVX2);
			}
			pose_matrices_to_model_still(s, 0, NULL, model);
			for (int i = 0; i < N; i++)
				if (memcmp(&model[i], &want[i], sizeof model[i]) != 0)
					fail_msg("level %d, round %d: joint %d (parent %d) differs: "
						 "%.9g %.9g against %.9g %.9g", level, round, i,
						 s->parents[i], model[i].m[0][0], model[i].m[2][3],
						 want[i].m[0][0], want[i].m[2][3]);
		}
	}
	math3d_simd_limit(best);
	skeleton_free(s);
}
#endif

static void test_find_and_binding(void **state)
{
	struct skeleton *a = chain(3), *b = chain(3), *c = chain(2);
	char err[128];

	(void)state;
	assert_int_equal(skeleton_find(a, "hand"), 2);
	assert_int_equal(skeleton_find(a, "nope"), -1);
	assert_int_equal(skeleton_check_binding(a, b, err, sizeof err), 0);
	assert_int_equal(skeleton_check_binding(a, c, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "joint count"));
	free(b->names[1]);
	b->names[1] = strdup("leg");
	assert_int_equal(skeleton_check_binding(a, b, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "\"arm\""));
	assert_non_null(strstr(err, "\"leg\""));
	free(b->names[1]);
	b->names[1] = strdup("arm");
	b->parents[2] = 0;
	assert_int_equal(skeleton_check_binding(a, b, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "parent"));
	/* No buffer: still an answer. */
	assert_int_equal(skeleton_check_binding(a, b, NULL, 0), -EINVAL);
	skeleton_free(a);
	skeleton_free(b);
	skeleton_free(c);
	skeleton_free(NULL);
}

static void test_mesh_positions_and_normals(void **state)
{
	/* Two joints: 0 at rest, 1 turned 90 deg about Z and moved (0,0,2). */
	mat34 mats[2] = { mat34_identity(),
			  mat34_from_rt(quat_make(0, 0, S2, S2), vec3_make(0, 0, 2)) };
	struct mesh_influence inf[4] = {
		{ 0, 1.0f, { 1, 0, 0 }, { 1, 0, 0 } },
		{ 1, 1.0f, { 1, 0, 0 }, { 1, 0, 0 } },
		{ 0, 0.5f, { 1, 0, 0 }, { 1, 0, 0 } },
		{ 1, 0.5f, { 1, 0, 0 }, { 1, 0, 0 } },
	};
	uint32_t first[4] = { 0, 1, 2, 4 };
	struct mesh m = { .normals = MESH_NORMALS_SKINNED, .vertex_count = 3, .influence_count = 4,
			  .first_influence = first, .influences = inf };
	mat34 it[2];
	vec3 out[3], nrm[3];

	(void)state;
	mesh_skin_positions(&m, mats, out);
	assert_vec(out[0], 1, 0, 0, 1e-6);
	/* Joint 1: (1,0,0) -> (0,1,0) + (0,0,2). */
	assert_vec(out[1], 0, 1, 2, 1e-6);
	/* Half each: ((1,0,0) + (0,1,2)) / 2. */
	assert_vec(out[2], 0.5f, 0.5f, 1, 1e-6);
	mesh_normal_matrices(2, mats, it);
	mesh_skin_normals(&m, it, out, nrm);
	assert_vec(nrm[0], 1, 0, 0, 1e-6);
	assert_vec(nrm[1], 0, 1, 0, 1e-6);
	assert_vec(nrm[2], S2, S2, 0, 1e-6);
	/* Non-uniform scale: normals take the inverse transpose.  Scaling x
	 * by 2 turns the plane x + y = 0's normal (1,1,0) into (1/2, 1, 0). */
	{
		struct transform x = { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 2, 1, 1 } };
		mat34 sc[1] = { mat34_from_transform(&x) }, sit[1];
		uint32_t f1[2] = { 0, 1 };
		struct mesh_influence i1[1] = { { 0, 1.0f, { 0, 0, 0 }, { S2, S2, 0 } } };
		struct mesh m1 = { .normals = MESH_NORMALS_SKINNED, .vertex_count = 1,
				   .influence_count = 1, .first_influence = f1, .influences = i1 };
		float k = 1.0f / sqrtf(1.25f);

		mesh_normal_matrices(1, sc, sit);
		mesh_skin_normals(&m1, sit, out, nrm);
		assert_vec(nrm[0], 0.5f * k, k, 0, 1e-6);
		/* No normals: zeros. */
		m1.normals = MESH_NORMALS_NONE;
		mesh_skin_normals(&m1, sit, out, nrm);
		assert_vec(nrm[0], 0, 0, 0, 0);
	}
	mesh_free(NULL);
}

/*
 * Derived normals (MD5): each triangle adds (c - a) x (b - a), unnormalised,
 * to its corners, and vertices at one bind position share the sum.  A
 * tent of two triangles over the x axis, each face's normal tilted 45
 * degrees, the ridge vertices duplicated (as a UV seam would): the ridge
 * normal is straight up, the eaves keep their own face's.
 */
static void test_derived_normals(void **state)
{
	/* Ridge (0,0,1) and (1,0,1), twice; eaves at y = -1 and y = +1. */
	struct mesh_influence inf[8];
	vec3 pos[8] = { { 0, 0, 1 }, { 1, 0, 1 }, { 0, -1, 0 }, { 1, -1, 0 },
			{ 0, 0, 1 }, { 1, 0, 1 }, { 0, 1, 0 }, { 1, 1, 0 } };
	uint32_t first[9], tris[4][3] = { { 0, 1, 2 }, { 1, 3, 2 }, { 4, 6, 5 }, { 5, 6, 7 } };
	struct mesh m = { .normals = MESH_NORMALS_DERIVED, .vertex_count = 8, .influence_count = 8,
			  .first_influence = first, .influences = inf, .triangle_count = 4,
			  .triangles = tris };
	mat34 id = mat34_identity();
	vec3 out[8], nrm[8];

	(void)state;
	for (uint32_t v = 0; v < 8; v++) {
		first[v] = v;
		inf[v] = (struct mesh_influence){ 0, 1.0f, pos[v], { 0, 0, 0 } };
	}
	first[8] = 8;
	mesh_skin_positions(&m, &id, out);
	/* Without groups the duplicated ridge vertices see one face each. */
	mesh_skin_normals(&m, NULL, out, nrm);
	assert_vec(nrm[0], 0, -S2, S2, 1e-6);
	assert_vec(nrm[4], 0, S2, S2, 1e-6);
	assert_int_equal(mesh_group_normals(&m, pos), 0);
	assert_int_equal(m.normal_group[4], 0);
	assert_int_equal(m.normal_group[5], 1);
	assert_int_equal(m.normal_group[6], 6);
	mesh_skin_normals(&m, NULL, out, nrm);
	assert_vec(nrm[0], 0, 0, 1, 1e-6);
	assert_vec(nrm[4], 0, 0, 1, 1e-6);
	assert_vec(nrm[5], 0, 0, 1, 1e-6);
	assert_vec(nrm[2], 0, -S2, S2, 1e-6);
	assert_vec(nrm[7], 0, S2, S2, 1e-6);
	free(m.normal_group);
}

/* Normal groups on random positions drawn from a few values (-0 among
 * them, and NaN, which equals nothing): each vertex's group is the lowest
 * vertex at an equal position.  The reference keeps the first vertex of
 * each combination of values, -0 counted as 0; the largest mesh needs a
 * table wide enough that -0 and 0 would hash apart unless made one key. */
static void test_normal_groups_random(void **state)
{
	static const float values[] = { 0.0f, -0.0f, 1.0f, -2.5f, 1e-30f, 3e30f, NAN };
	uint32_t seed = 99;

	(void)state;
	for (int round = 0; round < 41; round++) {
		uint32_t n = round == 40 ? 100000 : (uint32_t)round * 37 % 700;
		vec3 *pos = malloc((n + 1) * sizeof *pos);
		uint32_t *expect = malloc((n + 1) * sizeof *expect), first[7 * 7 * 7];
		struct mesh m = { .normals = MESH_NORMALS_DERIVED, .vertex_count = n };

		assert_non_null(pos);
		assert_non_null(expect);
		memset(first, 0xff, sizeof first);
		for (uint32_t v = 0; v < n; v++) {
			uint32_t idx[3], key = 0;
			int nan = 0;

			for (int k = 0; k < 3; k++) {
				seed = seed * 1103515245u + 12345u;
				/* Mostly the first four values: many equal. */
				idx[k] = (seed >> 16) % (round % 3 == 0 ? 7 : 4);
				nan |= idx[k] == 6;
				key = key * 7 + (idx[k] == 1 ? 0 : idx[k]);
			}
			pos[v] = vec3_make(values[idx[0]], values[idx[1]], values[idx[2]]);
			if (nan)
				expect[v] = v;
			else if (first[key] == UINT32_MAX)
				expect[v] = first[key] = v;
			else
				expect[v] = first[key];
		}
		assert_int_equal(mesh_group_normals(&m, pos), 0);
		for (uint32_t v = 0; v < n; v++)
			assert_int_equal(m.normal_group[v], expect[v]);
		free(m.normal_group);
		free(expect);
		free(pos);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_normal_groups_random),
		cmocka_unit_test(test_one_joint_z90),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_bind_and_skin),
		cmocka_unit_test(test_against_reference),
#if defined(__x86_64__)
		cmocka_unit_test(test_hierarchy_bits),
#endif
		cmocka_unit_test(test_find_and_binding),
		cmocka_unit_test(test_mesh_positions_and_normals),
		cmocka_unit_test(test_derived_normals),
	};

	/* Everything twice: with the widest SIMD level this CPU has, then
	 * with the baseline kernels. */
	int failed;

	print_message("SIMD level %d\n", (int)math3d_simd_level());
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	if (math3d_simd_level() != MATH3D_SIMD_BASE) {
		math3d_simd_limit(MATH3D_SIMD_BASE);
		print_message("SIMD level %d\n", (int)math3d_simd_level());
		failed += cmocka_run_group_tests(tests, NULL, NULL);
	}
	return failed != 0;
}
