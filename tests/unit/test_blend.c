/*
 * blend: override and additive layers worked out by hand (two rotations
 * half-way, the shortest hemisphere, a mask cutting at a joint, an
 * additive of its reference pose changing nothing, a stack whose weights
 * do not sum to one), the bit-exact ends (weight 0 keeps the pose, weight
 * 1 of an override takes the layer), masks from subtree roots and their
 * errors, and the SSE2 functions against the portable ones on random
 * data, in place, at lengths that leave a tail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "daemon/anim/blend.h"

#define S2 0.70710678f

typedef void (*override_fn)(struct transform *, const struct transform *, uint32_t, float,
			    const float *);
typedef void (*additive_fn)(struct transform *, const struct transform *,
			    const struct transform *, uint32_t, float, const float *);

/* Both implementations run every hand-computed case. */
static const override_fn overrides[2] = { blend_override, blend_override_portable };
static const additive_fn additives[2] = { blend_additive, blend_additive_portable };

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

static void assert_quat(quat q, float x, float y, float z, float w, double tol)
{
	assert_near(q.x, x, tol);
	assert_near(q.y, y, tol);
	assert_near(q.z, z, tol);
	assert_near(q.w, w, tol);
}

static void assert_same(const struct transform *a, const struct transform *b)
{
	if (memcmp(a, b, sizeof *a) != 0)
		fail_msg("transform differs: t %g %g %g r %g %g %g %g s %g %g %g vs t %g %g %g "
			 "r %g %g %g %g s %g %g %g", a->t.x, a->t.y, a->t.z, a->r.x, a->r.y, a->r.z,
			 a->r.w, a->s.x, a->s.y, a->s.z, b->t.x, b->t.y, b->t.z, b->r.x, b->r.y,
			 b->r.z, b->r.w, b->s.x, b->s.y, b->s.z);
}

static struct transform make_x(vec3 t, quat r, vec3 s)
{
	struct transform x = { t, r, s };

	return x;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static float rnd(float lo, float hi)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return lo + (hi - lo) * (float)((double)(rng >> 11) / 9007199254740992.0);
}

static quat rnd_quat(void)
{
	return quat_normalize(quat_make(rnd(-1, 1), rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)));
}

static struct transform rnd_transform(void)
{
	return make_x(vec3_make(rnd(-5, 5), rnd(-5, 5), rnd(-5, 5)), rnd_quat(),
		      vec3_make(rnd(0.2f, 3), rnd(0.2f, 3), rnd(0.2f, 3)));
}

/* Seven joints, so the SIMD functions run one chunk of four and a tail of
 * three: identity rotations below, 90 degrees about Z above. */
#define N 7

static void test_half_way(void **state)
{
	float s = sinf((float)M_PI / 8), c = cosf((float)M_PI / 8);

	(void)state;
	for (int f = 0; f < 2; f++) {
		struct transform pose[N], layer[N];

		for (int j = 0; j < N; j++) {
			pose[j] = make_x(vec3_make(0, 0, 0), quat_identity(), vec3_make(1, 1, 1));
			layer[j] = make_x(vec3_make(2, 4, 6), quat_make(0, 0, S2, S2), vec3_make(3, 3, 3));
		}
		/* The far hemisphere: the same rotation, so the same result. */
		layer[2].r = layer[5].r = quat_make(0, 0, -S2, -S2);
		overrides[f](pose, layer, N, 0.5f, NULL);
		for (int j = 0; j < N; j++) {
			assert_vec(pose[j].t, 1, 2, 3, 1e-6);
			/* 45 degrees about Z: nlerp and slerp agree half-way. */
			assert_quat(pose[j].r, 0, 0, s, c, 1e-6);
			assert_vec(pose[j].s, 2, 2, 2, 1e-6);
		}
	}
}

static void test_quarter_is_nlerp(void **state)
{
	quat a = quat_identity(), b = quat_make(0, 0, S2, S2);
	quat want = quat_nlerp(a, b, 0.25f);

	(void)state;
	for (int f = 0; f < 2; f++) {
		struct transform pose[N], layer[N];

		for (int j = 0; j < N; j++) {
			pose[j] = make_x(vec3_make(0, 0, 0), a, vec3_make(1, 1, 1));
			layer[j] = make_x(vec3_make(4, 0, 0), b, vec3_make(1, 1, 1));
		}
		overrides[f](pose, layer, N, 0.25f, NULL);
		for (int j = 0; j < N; j++) {
			assert_vec(pose[j].t, 1, 0, 0, 1e-6);
			assert_quat(pose[j].r, want.x, want.y, want.z, want.w, 1e-6);
			/* nlerp, not slerp: 22.5 degrees would be 0.19509. */
			assert_true(fabsf(pose[j].r.z - 0.19509032f) > 1e-3f);
		}
	}
}

static void test_exact_ends(void **state)
{
	(void)state;
	for (int f = 0; f < 2; f++) {
		struct transform pose[N], layer[N], orig[N];

		for (int j = 0; j < N; j++) {
			pose[j] = orig[j] = rnd_transform();
			layer[j] = rnd_transform();
		}
		overrides[f](pose, layer, N, 0.0f, NULL);
		for (int j = 0; j < N; j++)
			assert_same(&pose[j], &orig[j]);
		additives[f](pose, layer, orig, N, 0.0f, NULL);
		for (int j = 0; j < N; j++)
			assert_same(&pose[j], &orig[j]);
		/* Over 1 clamps to 1: the layer, bit for bit. */
		overrides[f](pose, layer, N, 1.5f, NULL);
		for (int j = 0; j < N; j++)
			assert_same(&pose[j], &layer[j]);
	}
}

/*
 *   0 root ── 1 spine ── 2 chest ── 3 arm ── 4 hand
 *        └─── 5 leg ── 6 foot
 */
static struct skeleton *make_body(void)
{
	static const int32_t parents[N] = { -1, 0, 1, 2, 3, 0, 5 };
	struct skeleton *s = skeleton_new(N);

	assert_non_null(s);
	memcpy(s->parents, parents, sizeof parents);
	return s;
}

static void test_mask_build(void **state)
{
	struct skeleton *s = make_body();
	uint32_t roots[3] = { 1, 4, 6 };
	float weights[3] = { 1.0f, 0.5f, 0.25f };
	float mask[N], before[N];

	(void)state;
	assert_int_equal(blend_mask_build(s, 1, roots, NULL, mask), 0);
	{
		const float want[N] = { 0, 1, 1, 1, 1, 0, 0 };

		assert_memory_equal(mask, want, sizeof want);
	}
	/* The nearest root above a joint gives its weight. */
	assert_int_equal(blend_mask_build(s, 3, roots, weights, mask), 0);
	{
		const float want[N] = { 0, 1, 1, 1, 0.5f, 0, 0.25f };

		assert_memory_equal(mask, want, sizeof want);
	}
	/* Nothing given: nothing covered. */
	assert_int_equal(blend_mask_build(s, 0, roots, NULL, mask), 0);
	for (int j = 0; j < N; j++)
		assert_true(mask[j] == 0.0f);
	/* A root that is no joint, a weight out of [0, 1]: refused, out kept. */
	memcpy(before, mask, sizeof mask);
	roots[1] = N;
	assert_int_equal(blend_mask_build(s, 2, roots, weights, mask), -EINVAL);
	roots[1] = 4;
	weights[2] = 1.5f;
	assert_int_equal(blend_mask_build(s, 3, roots, weights, mask), -EINVAL);
	weights[2] = NAN;
	assert_int_equal(blend_mask_build(s, 3, roots, weights, mask), -EINVAL);
	assert_memory_equal(mask, before, sizeof mask);
	skeleton_free(s);
}

static void test_mask_cuts_at_joint(void **state)
{
	struct skeleton *s = make_body();
	uint32_t roots[2] = { 2, 4 };
	float weights[2] = { 1.0f, 0.5f };
	float mask[N];
	float hs = sinf((float)M_PI / 8), hc = cosf((float)M_PI / 8);

	(void)state;
	/* The upper body from the chest down its subtree, the hand half. */
	assert_int_equal(blend_mask_build(s, 2, roots, weights, mask), 0);
	for (int f = 0; f < 2; f++) {
		struct transform pose[N], layer[N], orig[N];

		for (int j = 0; j < N; j++) {
			pose[j] = orig[j] = rnd_transform();
			layer[j] = make_x(vec3_make(1, 2, 3), quat_make(0, 0, S2, S2),
					  vec3_make(2, 2, 2));
		}
		pose[4] = orig[4] = make_x(vec3_make(0, 0, 0), quat_identity(), vec3_make(1, 1, 1));
		overrides[f](pose, layer, N, 1.0f, mask);
		assert_same(&pose[0], &orig[0]);
		assert_same(&pose[1], &orig[1]);
		assert_same(&pose[2], &layer[2]);
		assert_same(&pose[3], &layer[3]);
		assert_vec(pose[4].t, 0.5f, 1, 1.5f, 1e-6);
		assert_quat(pose[4].r, 0, 0, hs, hc, 1e-6);
		assert_vec(pose[4].s, 1.5f, 1.5f, 1.5f, 1e-6);
		assert_same(&pose[5], &orig[5]);
		assert_same(&pose[6], &orig[6]);
	}
	skeleton_free(s);
}

static void test_additive_of_reference(void **state)
{
	(void)state;
	for (int f = 0; f < 2; f++) {
		struct transform pose[N], ref[N], orig[N];

		for (int j = 0; j < N; j++) {
			pose[j] = orig[j] = rnd_transform();
			ref[j] = rnd_transform();
		}
		ref[3].s.y = 0.0f;              /* a collapsed reference axis */
		additives[f](pose, ref, ref, N, 1.0f, NULL);
		for (int j = 0; j < N; j++) {
			assert_vec(pose[j].t, orig[j].t.x, orig[j].t.y, orig[j].t.z, 0);
			assert_vec(pose[j].s, orig[j].s.x, orig[j].s.y, orig[j].s.z, 0);
			assert_quat(pose[j].r, orig[j].r.x, orig[j].r.y, orig[j].r.z, orig[j].r.w, 1e-6);
		}
	}
}

static void test_additive_by_hand(void **state)
{
	/* Below: 90 degrees about X.  Layer: 90 about Z over a reference at
	 * the identity, so d is 90 about Z and half of it is 45 about Z,
	 * applied before (to the left of) the pose's rotation. */
	quat below = quat_make(S2, 0, 0, S2);
	quat half = quat_make(0, 0, sinf((float)M_PI / 8), cosf((float)M_PI / 8));
	quat want = quat_mul(half, below);

	(void)state;
	for (int f = 0; f < 2; f++) {
		struct transform pose[N], layer[N], ref[N];

		for (int j = 0; j < N; j++) {
			pose[j] = make_x(vec3_make(1, 1, 1), below, vec3_make(2, 2, 2));
			/* The reference rotated too: d = layer * ref^-1 stays 90 about Z. */
			ref[j] = make_x(vec3_make(1, 0, 0), quat_make(0, 0, 0, 1), vec3_make(1, 2, 4));
			layer[j] = make_x(vec3_make(3, 2, 0), quat_make(0, 0, S2, S2), vec3_make(2, 2, 2));
		}
		/* One rotated reference in the SIMD chunk, one in the tail. */
		for (int j = 2; j < N; j += 4) {
			ref[j].r = quat_make(S2, 0, 0, S2);
			layer[j].r = quat_mul(quat_make(0, 0, -S2, -S2), ref[j].r); /* far hemisphere */
		}
		additives[f](pose, layer, ref, N, 0.5f, NULL);
		for (int j = 0; j < N; j++) {
			assert_vec(pose[j].t, 2, 2, 1, 1e-6);
			assert_quat(pose[j].r, want.x, want.y, want.z, want.w, 1e-6);
			/* lerp(1, 2, .5) = 1.5, lerp(1, 1, .5) = 1, lerp(1, .5, .5) = .75 */
			assert_vec(pose[j].s, 3, 2, 1.5f, 1e-6);
		}
		additives[f](pose, layer, ref, N, 1.0f, NULL);
		for (int j = 0; j < N; j++) {
			quat w2 = quat_mul(quat_make(0, 0, S2, S2), want);

			assert_quat(pose[j].r, w2.x, w2.y, w2.z, w2.w, 1e-6);
		}
	}
}

static void test_weights_not_summing_to_one(void **state)
{
	(void)state;
	for (int f = 0; f < 2; f++) {
		struct transform base[N], b[N], c[N];

		for (int j = 0; j < N; j++) {
			base[j] = make_x(vec3_make(8, 0, 0), quat_identity(), vec3_make(1, 1, 1));
			b[j] = make_x(vec3_make(0, 8, 0), quat_identity(), vec3_make(1, 1, 1));
			c[j] = make_x(vec3_make(0, 0, 8), quat_identity(), vec3_make(1, 1, 1));
		}
		/* Bottom-up: .5 then .5 leaves a quarter of each below. */
		overrides[f](base, b, N, 0.5f, NULL);
		overrides[f](base, c, N, 0.5f, NULL);
		for (int j = 0; j < N; j++)
			assert_vec(base[j].t, 2, 2, 4, 1e-6);
		/* .3 then .9 (1.2 in all): .7 * .1, .3 * .1, .9 of what is left. */
		for (int j = 0; j < N; j++)
			base[j].t = vec3_make(8, 0, 0);
		overrides[f](base, b, N, 0.3f, NULL);
		overrides[f](base, c, N, 0.9f, NULL);
		for (int j = 0; j < N; j++)
			assert_vec(base[j].t, 0.56f, 0.24f, 7.2f, 1e-5);
	}
}

/* The SIMD functions (SSE2, and AVX2 + FMA where the CPU has them) against
 * the portable ones: random poses, weights and masks (with exact 0 and 1
 * entries), in place, every length up to 67. */
static void test_fast_vs_portable(void **state)
{
	enum { MAXN = 67 };
	struct transform pose[MAXN], fast[MAXN], plain[MAXN], layer[MAXN], ref[MAXN];
	float mask[MAXN];
	enum math3d_simd best = math3d_simd_level();

	(void)state;
	for (int round = 0; round < 800; round++) {
		uint32_t n = (uint32_t)round % (MAXN + 1);
		float w = round % 5 == 0 ? 1.0f : rnd(0, 1.2f);

		/* The first half at the CPU's best level, the second at the base. */
		math3d_simd_limit(round < 400 ? best : MATH3D_SIMD_BASE);
		const float *m = round % 3 == 0 ? NULL : mask;

		for (uint32_t j = 0; j < n; j++) {
			pose[j] = rnd_transform();
			layer[j] = rnd_transform();
			ref[j] = rnd_transform();
			mask[j] = j % 7 == 0 ? 0.0f : j % 7 == 1 ? 1.0f : rnd(0, 1);
			/* Reference scales of 1 take the SIMD path that divides nothing. */
			if (round % 4 == 1)
				ref[j].s = vec3_make(1, 1, 1);
		}
		memcpy(fast, pose, sizeof pose);
		memcpy(plain, pose, sizeof pose);
		if (round & 1) {
			blend_additive(fast, layer, ref, n, w, m);
			blend_additive_portable(plain, layer, ref, n, w, m);
		} else {
			blend_override(fast, layer, n, w, m);
			blend_override_portable(plain, layer, n, w, m);
		}
		for (uint32_t j = 0; j < n; j++) {
			const float *a = (const float *)&fast[j], *b = (const float *)&plain[j];

			for (int k = 0; k < 10; k++)
				assert_near(a[k], b[k], 4e-6 * (1 + fabs(b[k])));
			assert_near(quat_dot(fast[j].r, fast[j].r), 1.0, 4e-6);
			if (m && mask[j] == 0.0f)
				assert_same(&fast[j], &pose[j]);
		}
	}
	math3d_simd_limit(best);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half_way),
		cmocka_unit_test(test_quarter_is_nlerp),
		cmocka_unit_test(test_exact_ends),
		cmocka_unit_test(test_mask_build),
		cmocka_unit_test(test_mask_cuts_at_joint),
		cmocka_unit_test(test_additive_of_reference),
		cmocka_unit_test(test_additive_by_hand),
		cmocka_unit_test(test_weights_not_summing_to_one),
		cmocka_unit_test(test_fast_vs_portable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
