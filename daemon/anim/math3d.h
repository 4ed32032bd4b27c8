/*
 * math3d.h - the engine's vectors, quaternions and 3x4 matrices.
 *
 * Conventions (docs/concepts.md): column vectors, p' = M * p.  Quaternions are
 * Hamilton, stored x, y, z, w, rotating by q * v * q^-1.  A mat34 is a
 * row-major 3x4 affine matrix, translation in the last column:
 *
 *     | m[0][0] m[0][1] m[0][2] m[0][3] |       p' = R * p + t,
 *     | m[1][0] m[1][1] m[1][2] m[1][3] |       t = (m[0][3], m[1][3], m[2][3])
 *     | m[2][0] m[2][1] m[2][2] m[2][3] |
 *
 * Everything here is inline or allocation-free; nothing touches errno.
 */
#ifndef ANIMD_MATH3D_H
#define ANIMD_MATH3D_H

typedef struct { float x, y, z; } vec3;
typedef struct { float x, y, z, w; } quat;
typedef struct { float m[3][4]; } mat34;

/* A local joint transform: scale, then rotate, then translate
 * (T * R * S in column form). */
struct transform {
	vec3 t;
	quat r;
	vec3 s;
};

static inline vec3 vec3_make(float x, float y, float z) { vec3 v = { x, y, z }; return v; }
static inline vec3 vec3_add(vec3 a, vec3 b) { return vec3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline vec3 vec3_sub(vec3 a, vec3 b) { return vec3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline vec3 vec3_scale(vec3 a, float k) { return vec3_make(a.x * k, a.y * k, a.z * k); }
static inline vec3 vec3_lerp(vec3 a, vec3 b, float t)
{
	return vec3_make(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t);
}

static inline quat quat_make(float x, float y, float z, float w) { quat q = { x, y, z, w }; return q; }
static inline quat quat_identity(void) { return quat_make(0.0f, 0.0f, 0.0f, 1.0f); }
static inline quat quat_conj(quat q) { return quat_make(-q.x, -q.y, -q.z, q.w); }
static inline float quat_dot(quat a, quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

quat quat_mul(quat a, quat b);                  /* a * b: rotate by b, then a */
quat quat_normalize(quat q);                    /* identity for a zero quaternion */
vec3 quat_rotate(quat q, vec3 v);
/* Shortest-path spherical interpolation, normalised.  Accurate to float
 * precision for any pair of unit quaternions. */
quat quat_slerp(quat a, quat b, float t);
/* Normalised linear interpolation along the shortest path. */
quat quat_nlerp(quat a, quat b, float t);

/*
 * quat_slerp split in two, for many pairs blended at one t (a sampler
 * blends every joint of two frames at the same t): the coefficients of the
 * weights' polynomials depend on t only.  quat_slerp(a, b, t) equals
 * quat_slerp_apply(&k, a, b) after quat_slerp_prepare(&k, t).
 */
#define QUAT_SLERP_DEGREE 5
struct quat_slerp_coef {
	float k0[QUAT_SLERP_DEGREE + 1];        /* weight of a, by power of y */
	float k1[QUAT_SLERP_DEGREE + 1];        /* weight of b, by power of y */
};
void quat_slerp_prepare(struct quat_slerp_coef *k, float t);
quat quat_slerp_apply(const struct quat_slerp_coef *k, quat a, quat b);

/* Rotation of a matrix's 3x3 part, which must be orthonormal (no scale). */
quat quat_from_mat34(const mat34 *m);

/*
 * The instruction set of the hot loops (clip_sample, pose_*).  Builds are
 * for baseline x86-64 (SSE2); where the compiler allows, the loops also
 * exist in AVX2+FMA versions, chosen once at start-up when the CPU has
 * both.  One binary runs on any x86-64 and uses the wider units where they
 * exist.  Results differ between the two only in the last bits (FMA rounds
 * once).
 */
#if defined(__x86_64__) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#define MATH3D_AVX2_DISPATCH 1
#endif

enum math3d_simd {
	MATH3D_SIMD_BASE,       /* SSE2 on x86-64, plain C elsewhere */
	MATH3D_SIMD_AVX2,       /* AVX2 + FMA */
};

/* The level in use. */
enum math3d_simd math3d_simd_level(void);
/* Use at most `max` (never more than the CPU has); returns the level now
 * in use.  For tests and benchmarks: not thread-safe, call it before any
 * sampling starts. */
enum math3d_simd math3d_simd_limit(enum math3d_simd max);

struct transform transform_identity(void);
mat34 mat34_identity(void);
mat34 mat34_from_transform(const struct transform *x);     /* T * R * S */
mat34 mat34_from_rt(quat r, vec3 t);                        /* T * R */
mat34 mat34_mul(const mat34 *a, const mat34 *b);            /* a * b */
vec3 mat34_apply(const mat34 *m, vec3 p);                   /* m * p (point) */
vec3 mat34_apply_dir(const mat34 *m, vec3 d);               /* rotation part only */
/* Inverse of a rigid or scaled affine matrix (general 3x3 inverse).  A
 * singular matrix yields the identity. */
mat34 mat34_inverse(const mat34 *m);

#endif
