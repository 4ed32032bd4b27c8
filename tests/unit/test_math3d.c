/*
 * math3d: quaternion algebra against hand-computed values, the polynomial
 * slerp against a double-precision reference, and the 3x4 matrices.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "daemon/anim/math3d.h"

#define S2 0.70710678f          /* sqrt(1/2) */

static void assert_near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.9g, want %.9g (tolerance %g)", got, want, tol);
}

static void assert_quat(quat q, float x, float y, float z, float w, double tol)
{
	assert_near(q.x, x, tol);
	assert_near(q.y, y, tol);
	assert_near(q.z, z, tol);
	assert_near(q.w, w, tol);
}

static void assert_vec(vec3 v, float x, float y, float z, double tol)
{
	assert_near(v.x, x, tol);
	assert_near(v.y, y, tol);
	assert_near(v.z, z, tol);
}

/* Same rotation: equal up to sign. */
static void assert_same_rotation(quat a, quat b, double tol)
{
	if (quat_dot(a, b) < 0.0f)
		b = quat_make(-b.x, -b.y, -b.z, -b.w);
	assert_quat(a, b.x, b.y, b.z, b.w, tol);
}

/* xorshift64*: deterministic, no libc state. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

static quat random_quat(void)
{
	for (;;) {
		double x = 2 * rnd() - 1, y = 2 * rnd() - 1, z = 2 * rnd() - 1, w = 2 * rnd() - 1;
		double n = x * x + y * y + z * z + w * w;

		if (n > 1e-4 && n <= 1.0) {
			n = sqrt(n);
			return quat_make((float)(x / n), (float)(y / n), (float)(z / n), (float)(w / n));
		}
	}
}

static void test_quat_mul(void **state)
{
	quat qz = quat_make(0, 0, S2, S2), qx = quat_make(S2, 0, 0, S2);

	(void)state;
	/* i * j = k, j * i = -k. */
	assert_quat(quat_mul(quat_make(1, 0, 0, 0), quat_make(0, 1, 0, 0)), 0, 0, 1, 0, 0);
	assert_quat(quat_mul(quat_make(0, 1, 0, 0), quat_make(1, 0, 0, 0)), 0, 0, -1, 0, 0);
	/* 90 deg about Z after 90 deg about X = 120 deg about (1,1,1):
	 * (0.5, 0.5, 0.5, 0.5), worked out term by term. */
	assert_quat(quat_mul(qz, qx), 0.5f, 0.5f, 0.5f, 0.5f, 1e-6);
	/* q * q* = identity. */
	assert_quat(quat_mul(qz, quat_conj(qz)), 0, 0, 0, 1, 1e-6);
}

static void test_quat_rotate(void **state)
{
	quat qz = quat_make(0, 0, S2, S2), qx = quat_make(S2, 0, 0, S2);
	vec3 v;

	(void)state;
	assert_vec(quat_rotate(qz, vec3_make(1, 0, 0)), 0, 1, 0, 1e-6);
	assert_vec(quat_rotate(qx, vec3_make(0, 1, 0)), 0, 0, 1, 1e-6);
	/* Half turn about Y: (x, y, z) -> (-x, y, -z). */
	assert_vec(quat_rotate(quat_make(0, 1, 0, 0), vec3_make(1, 2, 3)), -1, 2, -3, 1e-6);
	/* Composition matches quat_mul: rotate by qx, then by qz. */
	v = quat_rotate(qz, quat_rotate(qx, vec3_make(1, 2, 3)));
	assert_vec(quat_rotate(quat_mul(qz, qx), vec3_make(1, 2, 3)), v.x, v.y, v.z, 1e-5);
	/* (1,1,1)-axis 120 deg cycles the axes: x -> y. */
	assert_vec(quat_rotate(quat_make(0.5f, 0.5f, 0.5f, 0.5f), vec3_make(1, 0, 0)), 0, 1, 0, 1e-6);
}

static void test_quat_normalize(void **state)
{
	(void)state;
	assert_quat(quat_normalize(quat_make(0, 0, 3, 4)), 0, 0, 0.6f, 0.8f, 1e-7);
	assert_quat(quat_normalize(quat_make(0, 0, 0, 0)), 0, 0, 0, 1, 0);
	assert_quat(quat_normalize(quat_make(NAN, 0, 0, 1)), 0, 0, 0, 1, 0);
}

/* Double-precision slerp from a to b itself (no shortest-path choice):
 * the angle from atan2, accurate at every angle. */
static void ref_slerp_direct(quat qa, quat qb, double t, double out[4])
{
	double a[4] = { qa.x, qa.y, qa.z, qa.w }, b[4] = { qb.x, qb.y, qb.z, qb.w };
	double dn = 0, sn = 0, w0, w1, n = 0, th;

	for (int i = 0; i < 4; i++) {
		dn += (a[i] - b[i]) * (a[i] - b[i]);
		sn += (a[i] + b[i]) * (a[i] + b[i]);
	}
	th = 2.0 * atan2(sqrt(dn), sqrt(sn));
	if (th < 1e-12) {
		w0 = 1 - t;
		w1 = t;
	} else {
		w0 = sin((1 - t) * th) / sin(th);
		w1 = sin(t * th) / sin(th);
	}
	for (int i = 0; i < 4; i++) {
		out[i] = w0 * a[i] + w1 * b[i];
		n += out[i] * out[i];
	}
	n = sqrt(n);
	for (int i = 0; i < 4; i++)
		out[i] /= n;
}

static double max_diff(quat q, const double want[4])
{
	return fmax(fmax(fabs(q.x - want[0]), fabs(q.y - want[1])),
		    fmax(fabs(q.z - want[2]), fabs(q.w - want[3])));
}

/* Largest component error of quat_slerp against the shortest-path double
 * reference. */
static double slerp_error(quat a, quat b, float t)
{
	double dot = (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w;
	quat nb = quat_make(-b.x, -b.y, -b.z, -b.w);
	quat q = quat_slerp(a, b, t);
	double want[4], e;

	ref_slerp_direct(a, dot < 0 ? nb : b, t, want);
	e = max_diff(q, want);
	/* a.b = 0 (a half turn apart): b and -b are equally short, and the
	 * float and double dot products may pick different ones.  Both are
	 * right; measure against the nearer. */
	if (fabs(dot) < 1e-6) {
		ref_slerp_direct(a, dot < 0 ? b : nb, t, want);
		e = fmin(e, max_diff(q, want));
	}
	return e;
}

/* A unit quaternion at a small angle `eps` from a (random direction). */
static quat perturb(quat a, double eps)
{
	quat d = random_quat();
	double k = eps / sqrt((double)d.x * d.x + (double)d.y * d.y + (double)d.z * d.z + 1e-30);
	quat r = quat_make((float)(d.x * k), (float)(d.y * k), (float)(d.z * k), 1.0f);

	return quat_normalize(quat_mul(a, r));
}

static void test_slerp_accuracy(void **state)
{
	double worst = 0, worst_random = 0;
	quat qa, qb;

	(void)state;
	/* Random pairs over the whole sphere, t in [0, 1]. */
	for (int i = 0; i < 1000000; i++) {
		qa = random_quat();
		qb = random_quat();
		worst_random = fmax(worst_random, slerp_error(qa, qb, (float)rnd()));
	}
	worst = worst_random;
	for (int i = 0; i < 100000; i++) {
		float t = (float)rnd();
		double eps = pow(10.0, -1 - 7 * rnd());

		qa = random_quat();
		/* Nearly identical, and nearly opposite (same rotation). */
		qb = perturb(qa, eps);
		worst = fmax(worst, slerp_error(qa, qb, t));
		qb = quat_make(-qb.x, -qb.y, -qb.z, -qb.w);
		worst = fmax(worst, slerp_error(qa, qb, t));
		/* Exactly orthogonal (a half turn apart): the edge of the
		 * series' domain. */
		qb = quat_normalize(quat_make(-qa.y, qa.x, -qa.w, qa.z));
		worst = fmax(worst, slerp_error(qa, qb, t));
		/* End points. */
		qb = random_quat();
		worst = fmax(worst, slerp_error(qa, qb, 0.0f));
		worst = fmax(worst, slerp_error(qa, qb, 1.0f));
	}
	print_message("slerp max component error: %.3g random, %.3g overall\n", worst_random,
		      worst);
	assert_true(worst < 1e-6);
}

static void test_slerp_values(void **state)
{
	quat id = quat_identity(), qz = quat_make(0, 0, S2, S2);
	quat qa = random_quat(), qb = random_quat();
	struct quat_slerp_coef k;
	float s = sinf((float)M_PI / 8), c = cosf((float)M_PI / 8);

	(void)state;
	/* Half way from identity to 90 deg about Z: 45 deg about Z. */
	assert_quat(quat_slerp(id, qz, 0.5f), 0, 0, s, c, 1e-6);
	/* Shortest path: -qz is the same rotation, same answer. */
	assert_quat(quat_slerp(id, quat_make(0, 0, -S2, -S2), 0.5f), 0, 0, s, c, 1e-6);
	/* Ends. */
	assert_quat(quat_slerp(qa, qb, 0.0f), qa.x, qa.y, qa.z, qa.w, 1e-6);
	assert_same_rotation(quat_slerp(qa, qb, 1.0f), qb, 1e-6);
	/* Exactly opposite sign: the same rotation, so every t gives it. */
	for (float t = 0.0f; t <= 1.0f; t += 0.125f)
		assert_quat(quat_slerp(qa, quat_make(-qa.x, -qa.y, -qa.z, -qa.w), t), qa.x, qa.y,
			    qa.z, qa.w, 1e-6);
	/* Half turn about Z from identity, a quarter of the way: 45 deg. */
	assert_quat(quat_slerp(id, quat_make(0, 0, 1, 0), 0.25f), 0, 0, s, c, 1e-6);
	/* The split form is the same computation. */
	quat_slerp_prepare(&k, 0.3f);
	{
		quat x = quat_slerp_apply(&k, qa, qb), y = quat_slerp(qa, qb, 0.3f);

		assert_memory_equal(&x, &y, sizeof x);
	}
	/* Constant angular speed: the angle to the start grows linearly. */
	for (int i = 1; i < 8; i++) {
		quat q = quat_slerp(id, quat_make(0, 0, 0.8f, 0.6f), (float)i / 8);
		double full = 2 * atan2(0.8, 0.6);

		assert_near(2 * atan2(q.z, q.w), full * i / 8, 2e-6);
	}
}

static void test_nlerp(void **state)
{
	quat id = quat_identity(), qz = quat_make(0, 0, S2, S2);
	float s = sinf((float)M_PI / 8), c = cosf((float)M_PI / 8);
	quat a, b;

	(void)state;
	/* Symmetric point: same as slerp. */
	assert_quat(quat_nlerp(id, qz, 0.5f), 0, 0, s, c, 1e-6);
	assert_quat(quat_nlerp(id, quat_make(0, 0, -S2, -S2), 0.5f), 0, 0, s, c, 1e-6);
	/* Elsewhere it is the normalised chord: t = 0.25 of (0,0,S2,S2). */
	a = quat_nlerp(id, qz, 0.25f);
	b = quat_normalize(quat_make(0, 0, 0.25f * S2, 0.75f + 0.25f * S2));
	assert_quat(a, b.x, b.y, b.z, b.w, 1e-6);
	assert_near(quat_dot(a, a), 1.0, 1e-6);
}

static void assert_mat(const mat34 *m, const float want[3][4], double tol)
{
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			assert_near(m->m[i][j], want[i][j], tol);
}

static void test_mat34_from_transform(void **state)
{
	struct transform x = { { 1, 2, 3 }, { 0, 0, S2, S2 }, { 2, 3, 4 } };
	/* T * R * S with R = 90 deg about Z = [[0,-1,0],[1,0,0],[0,0,1]]:
	 * R * S scales R's columns by (2, 3, 4). */
	const float want[3][4] = { { 0, -3, 0, 1 }, { 2, 0, 0, 2 }, { 0, 0, 4, 3 } };
	mat34 m = mat34_from_transform(&x), id = mat34_identity();
	struct transform ix = transform_identity();
	mat34 mi = mat34_from_transform(&ix);

	(void)state;
	assert_mat(&m, want, 1e-6);
	/* (1,1,1): scale (2,3,4), rotate (-3,2,4), translate (-2,4,7). */
	assert_vec(mat34_apply(&m, vec3_make(1, 1, 1)), -2, 4, 7, 1e-6);
	assert_vec(mat34_apply_dir(&m, vec3_make(1, 1, 1)), -3, 2, 4, 1e-6);
	assert_memory_equal(&mi, &id, sizeof id);
	m = mat34_from_rt(quat_make(S2, 0, 0, S2), vec3_make(5, 6, 7));
	/* 90 deg about X: y -> z. */
	assert_vec(mat34_apply(&m, vec3_make(0, 1, 0)), 5, 6, 8, 1e-6);
}

static void test_mat34_mul_inverse(void **state)
{
	mat34 t = mat34_from_rt(quat_identity(), vec3_make(1, 0, 0));
	mat34 r = mat34_from_rt(quat_make(0, 0, S2, S2), vec3_make(0, 0, 0));
	struct transform x = { { 1, -2, 3 }, { 0.5f, 0.5f, 0.5f, 0.5f }, { 2, 0.5f, 3 } };
	mat34 m = mat34_from_transform(&x), mi = mat34_inverse(&m), p, sing = { { { 0 } } };
	const float id[3][4] = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 } };

	(void)state;
	/* t * r: rotate first, then translate: (1,0,0) -> (0,1,0) -> (1,1,0). */
	p = mat34_mul(&t, &r);
	assert_vec(mat34_apply(&p, vec3_make(1, 0, 0)), 1, 1, 0, 1e-6);
	/* r * t: (1,0,0) -> (2,0,0) -> (0,2,0). */
	p = mat34_mul(&r, &t);
	assert_vec(mat34_apply(&p, vec3_make(1, 0, 0)), 0, 2, 0, 1e-6);
	/* Scaled affine inverse, both sides. */
	p = mat34_mul(&m, &mi);
	assert_mat(&p, id, 1e-5);
	p = mat34_mul(&mi, &m);
	assert_mat(&p, id, 1e-5);
	assert_vec(mat34_apply(&mi, mat34_apply(&m, vec3_make(4, 5, 6))), 4, 5, 6, 1e-5);
	/* Singular: identity. */
	p = mat34_inverse(&sing);
	assert_mat(&p, id, 0);
}

static void test_quat_from_mat34(void **state)
{
	(void)state;
	for (int i = 0; i < 10000; i++) {
		quat q = random_quat();
		mat34 m = mat34_from_rt(q, vec3_make(1, 2, 3));

		assert_same_rotation(quat_from_mat34(&m), q, 2e-6);
	}
	/* Half turns (trace -1): each branch. */
	{
		quat qs[3] = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 } };

		for (int i = 0; i < 3; i++) {
			mat34 m = mat34_from_rt(qs[i], vec3_make(0, 0, 0));

			assert_same_rotation(quat_from_mat34(&m), qs[i], 1e-6);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quat_mul),
		cmocka_unit_test(test_quat_rotate),
		cmocka_unit_test(test_quat_normalize),
		cmocka_unit_test(test_slerp_accuracy),
		cmocka_unit_test(test_slerp_values),
		cmocka_unit_test(test_nlerp),
		cmocka_unit_test(test_mat34_from_transform),
		cmocka_unit_test(test_mat34_mul_inverse),
		cmocka_unit_test(test_quat_from_mat34),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
