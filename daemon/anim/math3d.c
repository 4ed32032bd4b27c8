/*
 * math3d.c - quaternions and 3x4 matrices (conventions in math3d.h).
 *
 * Spherical interpolation without trigonometry
 * --------------------------------------------
 * slerp(a, b, t) = w0 a + w1 b with w0 = sin((1-t)T)/sin T and
 * w1 = sin(tT)/sin T, T the angle between a and b (cos T = a.b >= 0 after
 * the shortest-path flip).  Following the idea of D. Eberly ("A Fast and
 * Accurate Algorithm for Computing SLERP"), sin(uA)/sin(A) is expanded as a
 * power series in (cos A - 1) whose coefficients obey
 *
 *     sin(uA)/sin(A) = u * sum_i c_i (cos A - 1)^i,
 *     c_0 = 1,  c_i = c_(i-1) * (u^2 - i^2) / (i (2i + 1)).
 *
 * (f(x) = sin(uA)/sin(A), x = cos A, is the Chebyshev function U_(u-1)
 * and solves (1 - x^2) f'' - 3 x f' + (u^2 - 1) f = 0; a power series in
 * d = x - 1 put into it gives the recurrence.)  The series converges
 * like (|cos A - 1| / 2)^i.  At the worst case (a.b = 0, a half turn
 * between the rotations) that is only 1/2 per term: Eberly's eight terms
 * plus a tail correction leave about 7e-6 of error in the normalised
 * result, too much for us.
 *
 * So we reduce the angle first: with A = T/2, sin(tT)/sin T =
 * [sin(2t A)/sin A] / (2 cos A), and the common factor 1/(2 cos A) of both
 * weights disappears in the final normalisation.  We therefore evaluate the
 * series with u = 2t (and u = 2(1-t)) in y = cos(T/2) - 1 =
 * sqrt((1 + a.b)/2) - 1, which lies in [-0.293, 0]: each term gains a
 * factor of at most 0.146.  Five terms, with the last coefficient scaled by
 * SLERP_TAIL to stand in for the truncated tail (the value minimising the
 * maximum error of the normalised result over a 1001 x 501 grid of
 * (a.b, t), found offline), leave a truncation error of 6.0e-8 in double
 * precision.  In float, measured against a double-precision reference
 * slerp over a million random pairs with random t in [0, 1], plus 500,000
 * near-identical (1e-1 .. 1e-8 rad), near-opposite, exactly orthogonal
 * and end-point (t = 0, 1) cases (tests/unit/test_math3d.c; the sampler's
 * SSE2 and AVX2 paths are checked the same way in test_clip.c, 2.2e-7):
 *
 *     max |component error| = 1.9e-7   (test bound: 1e-6)
 *
 * The series needs only the square root of a number in [0.5, 1], is
 * branch-free, and is well conditioned for nearly equal rotations (where
 * acos-based slerp loses precision).  Its coefficients depend on t only,
 * so quat_slerp_prepare computes them once for many pairs.
 */
#include "daemon/anim/math3d.h"

#include <math.h>

/* Tail correction of the last series coefficient (see above). */
#define SLERP_TAIL 1.144272

/* The CPU's best level, and the level in use (see math3d.h). */
static enum math3d_simd simd_cpu = MATH3D_SIMD_BASE;
static enum math3d_simd simd_level = MATH3D_SIMD_BASE;

#if defined(MATH3D_AVX2_DISPATCH)
/* Before main and before any thread: afterwards the levels are only read. */
__attribute__((constructor)) static void math3d_simd_detect(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		simd_cpu = simd_level = MATH3D_SIMD_AVX2;
}
#endif

enum math3d_simd math3d_simd_level(void)
{
	return simd_level;
}

enum math3d_simd math3d_simd_limit(enum math3d_simd max)
{
	simd_level = max < simd_cpu ? max : simd_cpu;
	return simd_level;
}

quat quat_mul(quat a, quat b)
{
	return quat_make(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
			 a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
			 a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
			 a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}

quat quat_normalize(quat q)
{
	float n2 = quat_dot(q, q);
	float k;

	/* Also catches NaN: a quaternion that cannot be a rotation becomes
	 * the identity rather than spreading NaN through a pose. */
	if (!(n2 > 1e-30f) || !(n2 < 1e30f))
		return quat_identity();
	k = 1.0f / sqrtf(n2);
	return quat_make(q.x * k, q.y * k, q.z * k, q.w * k);
}

vec3 quat_rotate(quat q, vec3 v)
{
	/* v' = v + w c + u x c, with u the vector part and c = 2 u x v. */
	vec3 c = vec3_make(2.0f * (q.y * v.z - q.z * v.y),
			   2.0f * (q.z * v.x - q.x * v.z),
			   2.0f * (q.x * v.y - q.y * v.x));

	return vec3_make(v.x + q.w * c.x + (q.y * c.z - q.z * c.y),
			 v.y + q.w * c.y + (q.z * c.x - q.x * c.z),
			 v.z + q.w * c.z + (q.x * c.y - q.y * c.x));
}

/* 1 / (i (2i + 1)) for the recurrence, the last one times SLERP_TAIL. */
#define SLERP_INV1 (1.0f / 3.0f)
#define SLERP_INV2 (1.0f / 10.0f)
#define SLERP_INV3 (1.0f / 21.0f)
#define SLERP_INV4 (1.0f / 36.0f)
#define SLERP_INV5 ((float)(SLERP_TAIL / 55.0))
_Static_assert(QUAT_SLERP_DEGREE == 5, "the recurrence below has five steps");

/* Coefficients, by power of y = cos A - 1, of sin(uA) / (2 sin A).  In
 * float and straight-line: a sampler prepares one set per call. */
static void slerp_series(float k[QUAT_SLERP_DEGREE + 1], float u)
{
	float u2 = u * u;

	k[0] = 0.5f * u;
	k[1] = k[0] * ((u2 - 1.0f) * SLERP_INV1);
	k[2] = k[1] * ((u2 - 4.0f) * SLERP_INV2);
	k[3] = k[2] * ((u2 - 9.0f) * SLERP_INV3);
	k[4] = k[3] * ((u2 - 16.0f) * SLERP_INV4);
	k[5] = k[4] * ((u2 - 25.0f) * SLERP_INV5);
}

void quat_slerp_prepare(struct quat_slerp_coef *k, float t)
{
	slerp_series(k->k0, 2.0f * (1.0f - t));
	slerp_series(k->k1, 2.0f * t);
}

quat quat_slerp_apply(const struct quat_slerp_coef *k, quat a, quat b)
{
	float d = quat_dot(a, b);
	float sign = copysignf(1.0f, d);
	float x = fabsf(d);
	float y, w0, w1, n2, inv;
	quat r;

	x = x < 1.0f ? x : 1.0f;
	y = sqrtf(0.5f * x + 0.5f) - 1.0f;
	w0 = k->k0[QUAT_SLERP_DEGREE];
	w1 = k->k1[QUAT_SLERP_DEGREE];
	for (int i = QUAT_SLERP_DEGREE - 1; i >= 0; i--) {
		w0 = w0 * y + k->k0[i];
		w1 = w1 * y + k->k1[i];
	}
	w1 *= sign;
	r = quat_make(w0 * a.x + w1 * b.x, w0 * a.y + w1 * b.y,
		      w0 * a.z + w1 * b.z, w0 * a.w + w1 * b.w);
	n2 = quat_dot(r, r);
	n2 = n2 > 1e-30f ? n2 : 1e-30f;
	inv = 1.0f / sqrtf(n2);
	return quat_make(r.x * inv, r.y * inv, r.z * inv, r.w * inv);
}

quat quat_slerp(quat a, quat b, float t)
{
	struct quat_slerp_coef k;

	quat_slerp_prepare(&k, t);
	return quat_slerp_apply(&k, a, b);
}

quat quat_nlerp(quat a, quat b, float t)
{
	float s = quat_dot(a, b) < 0.0f ? -t : t;
	float u = 1.0f - t;

	return quat_normalize(quat_make(u * a.x + s * b.x, u * a.y + s * b.y,
					u * a.z + s * b.z, u * a.w + s * b.w));
}

quat quat_from_mat34(const mat34 *m)
{
	float m00 = m->m[0][0], m11 = m->m[1][1], m22 = m->m[2][2];
	float tr = m00 + m11 + m22;
	quat q;

	/* Pick the largest of 4w^2, 4x^2, 4y^2, 4z^2 as the divisor. */
	if (tr > 0.0f) {
		float s = 2.0f * sqrtf(tr + 1.0f);

		q = quat_make((m->m[2][1] - m->m[1][2]) / s, (m->m[0][2] - m->m[2][0]) / s,
			      (m->m[1][0] - m->m[0][1]) / s, 0.25f * s);
	} else if (m00 > m11 && m00 > m22) {
		float s = 2.0f * sqrtf(1.0f + m00 - m11 - m22);

		q = quat_make(0.25f * s, (m->m[0][1] + m->m[1][0]) / s,
			      (m->m[0][2] + m->m[2][0]) / s, (m->m[2][1] - m->m[1][2]) / s);
	} else if (m11 > m22) {
		float s = 2.0f * sqrtf(1.0f + m11 - m00 - m22);

		q = quat_make((m->m[0][1] + m->m[1][0]) / s, 0.25f * s,
			      (m->m[1][2] + m->m[2][1]) / s, (m->m[0][2] - m->m[2][0]) / s);
	} else {
		float s = 2.0f * sqrtf(1.0f + m22 - m00 - m11);

		q = quat_make((m->m[0][2] + m->m[2][0]) / s, (m->m[1][2] + m->m[2][1]) / s,
			      0.25f * s, (m->m[1][0] - m->m[0][1]) / s);
	}
	return quat_normalize(q);
}

struct transform transform_identity(void)
{
	struct transform x = { { 0.0f, 0.0f, 0.0f }, { 0.0f, 0.0f, 0.0f, 1.0f }, { 1.0f, 1.0f, 1.0f } };

	return x;
}

mat34 mat34_identity(void)
{
	mat34 m = { { { 1.0f, 0.0f, 0.0f, 0.0f },
		      { 0.0f, 1.0f, 0.0f, 0.0f },
		      { 0.0f, 0.0f, 1.0f, 0.0f } } };

	return m;
}

mat34 mat34_from_transform(const struct transform *x)
{
	quat q = x->r;
	float x2 = q.x + q.x, y2 = q.y + q.y, z2 = q.z + q.z;
	float xx = q.x * x2, yy = q.y * y2, zz = q.z * z2;
	float xy = q.x * y2, xz = q.x * z2, yz = q.y * z2;
	float wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
	mat34 m;

	/* Columns of R(q) scaled by s: R * S.  q must be unit. */
	m.m[0][0] = (1.0f - (yy + zz)) * x->s.x;
	m.m[0][1] = (xy - wz) * x->s.y;
	m.m[0][2] = (xz + wy) * x->s.z;
	m.m[0][3] = x->t.x;
	m.m[1][0] = (xy + wz) * x->s.x;
	m.m[1][1] = (1.0f - (xx + zz)) * x->s.y;
	m.m[1][2] = (yz - wx) * x->s.z;
	m.m[1][3] = x->t.y;
	m.m[2][0] = (xz - wy) * x->s.x;
	m.m[2][1] = (yz + wx) * x->s.y;
	m.m[2][2] = (1.0f - (xx + yy)) * x->s.z;
	m.m[2][3] = x->t.z;
	return m;
}

mat34 mat34_from_rt(quat r, vec3 t)
{
	struct transform x = { t, r, { 1.0f, 1.0f, 1.0f } };

	return mat34_from_transform(&x);
}

mat34 mat34_mul(const mat34 *a, const mat34 *b)
{
	mat34 c;

	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 4; j++)
			c.m[i][j] = a->m[i][0] * b->m[0][j] + a->m[i][1] * b->m[1][j] +
				    a->m[i][2] * b->m[2][j];
		c.m[i][3] += a->m[i][3];
	}
	return c;
}

vec3 mat34_apply(const mat34 *m, vec3 p)
{
	return vec3_make(m->m[0][0] * p.x + m->m[0][1] * p.y + m->m[0][2] * p.z + m->m[0][3],
			 m->m[1][0] * p.x + m->m[1][1] * p.y + m->m[1][2] * p.z + m->m[1][3],
			 m->m[2][0] * p.x + m->m[2][1] * p.y + m->m[2][2] * p.z + m->m[2][3]);
}

vec3 mat34_apply_dir(const mat34 *m, vec3 d)
{
	return vec3_make(m->m[0][0] * d.x + m->m[0][1] * d.y + m->m[0][2] * d.z,
			 m->m[1][0] * d.x + m->m[1][1] * d.y + m->m[1][2] * d.z,
			 m->m[2][0] * d.x + m->m[2][1] * d.y + m->m[2][2] * d.z);
}

mat34 mat34_inverse(const mat34 *m)
{
	const float (*a)[4] = m->m;
	/* Cofactors: inverse = adj(A) / det(A), adj = transposed cofactors. */
	float c00 = a[1][1] * a[2][2] - a[1][2] * a[2][1];
	float c01 = a[1][2] * a[2][0] - a[1][0] * a[2][2];
	float c02 = a[1][0] * a[2][1] - a[1][1] * a[2][0];
	float det = a[0][0] * c00 + a[0][1] * c01 + a[0][2] * c02;
	float k;
	mat34 r;

	if (!(fabsf(det) > 1e-30f) || !isfinite(det))
		return mat34_identity();
	k = 1.0f / det;
	r.m[0][0] = c00 * k;
	r.m[1][0] = c01 * k;
	r.m[2][0] = c02 * k;
	r.m[0][1] = (a[0][2] * a[2][1] - a[0][1] * a[2][2]) * k;
	r.m[1][1] = (a[0][0] * a[2][2] - a[0][2] * a[2][0]) * k;
	r.m[2][1] = (a[0][1] * a[2][0] - a[0][0] * a[2][1]) * k;
	r.m[0][2] = (a[0][1] * a[1][2] - a[0][2] * a[1][1]) * k;
	r.m[1][2] = (a[0][2] * a[1][0] - a[0][0] * a[1][2]) * k;
	r.m[2][2] = (a[0][0] * a[1][1] - a[0][1] * a[1][0]) * k;
	for (int i = 0; i < 3; i++)
		r.m[i][3] = -(r.m[i][0] * a[0][3] + r.m[i][1] * a[1][3] + r.m[i][2] * a[2][3]);
	return r;
}
