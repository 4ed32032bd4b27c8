/*
 * clip_sample_matrices: the one-pass local matrices of a uniform clip
 * (its frames in blocks of eight joints, clip_block_frames, and without
 * them) against the two-step path (clip_sample_at, clip_apply_root_motion,
 * pose_local_to_model_still), bit for bit, on every joint count from 0 to
 * 41 (whole groups of eight, the four-wide and scalar tails), at times on
 * frames, between them, before the start and past the end, with unit and
 * non-unit scales, rotations on both sides of the shortest path, signed
 * zeros and both root-motion modes, at each SIMD level the CPU has; and
 * the blocks' bytes in clip_bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/pose.h"

static uint32_t rng = 12345;

static float rndf(void)
{
	rng = rng * 1664525u + 1013904223u;
	return (float)(rng >> 8) / 16777216.0f;
}

static quat rnd_quat(void)
{
	return quat_normalize(quat_make(rndf() - 0.5f, rndf() - 0.5f, rndf() - 0.5f,
					rndf() - 0.5f));
}

/* Frame f's joint j: random, with the cases the kernels treat apart. */
static struct transform rnd_joint(const struct clip *c, uint32_t f, uint32_t j, int scaled)
{
	struct transform x = transform_identity();
	uint32_t kind = (f * 7 + j * 3) % 6;

	x.t = vec3_make(10 * rndf() - 5, 10 * rndf() - 5, 10 * rndf() - 5);
	x.r = rnd_quat();
	if (f > 0 && kind == 1) {
		/* The previous frame's rotation negated, nudged: the shortest
		 * path flips b. */
		quat p = c->frames[(size_t)(f - 1) * c->joint_count + j].r;

		x.r = quat_normalize(quat_make(-p.x + 0.01f * rndf(), -p.y, -p.z, -p.w));
	} else if (f > 0 && kind == 2) {
		/* The same rotation again: dot 1. */
		x.r = c->frames[(size_t)(f - 1) * c->joint_count + j].r;
	} else if (kind == 3) {
		x.t = vec3_make(-0.0f, 0.0f, -0.0f);
		x.r = quat_make(0.0f, -0.0f, 0.0f, 1.0f);
	}
	if (scaled && j % 5 == 2)
		x.s = vec3_make(rndf() + 0.5f, 1.0f, rndf() + 0.5f);
	return x;
}

static struct clip *make_clip(uint32_t joints, uint32_t frames, int scaled, int blocked)
{
	struct clip *c = calloc(1, sizeof *c);

	assert_non_null(c);
	c->joint_count = joints;
	c->frame_count = frames;
	c->frame_rate = 24;
	c->duration_ns = clip_frames_duration(frames - 1, 24);
	c->loop = LOOP_LOOP;
	c->frames = calloc((size_t)frames * joints + 1, sizeof *c->frames);
	assert_non_null(c->frames);
	for (uint32_t f = 0; f < frames; f++)
		for (uint32_t j = 0; j < joints; j++)
			c->frames[(size_t)f * joints + j] = rnd_joint(c, f, j, scaled);
	c->root_base = vec3_make(0.25f, -1.5f, 3.0f);
	c->root_delta = vec3_make(1.75f, 0.5f, -2.25f);
	if (blocked)
		assert_int_equal(clip_block_frames(c), 0);
	assert_true((c->frame_blocks != NULL) == (blocked && joints >= 8));
	return c;
}

/* Joint i's parent: chains and branches, a few extra roots. */
static struct skeleton *make_skeleton(uint32_t n)
{
	struct skeleton *s = skeleton_new(n);

	assert_non_null(s);
	for (uint32_t i = 0; i < n; i++)
		s->parents[i] = i == 0 || i % 11 == 5 ? -1 :
				i % 3 == 0 ? (int32_t)(i / 2) : (int32_t)i - 1;
	return s;
}

/* Both paths at playback time `elapsed`; fails on the first bit apart. */
static void check_time(const struct clip *c, const struct skeleton *s, int64_t elapsed,
		       enum root_motion rm, struct transform *local, mat34 *want, mat34 *got)
{
	uint32_t n = c->joint_count;
	struct clip_time ct = clip_map_time(c, elapsed, LOOP_LOOP);

	clip_sample_at(c, ct.t_ns, elapsed, local);
	clip_apply_root_motion(c, rm, &ct, local);
	pose_local_to_model_still(s, local, 0, NULL, want);
	/* The scratch's contents must not matter. */
	memset(local, 0x7f, (n + 1) * sizeof *local);
	clip_sample_matrices(c, ct.t_ns, elapsed, rm, &ct, local, got);
	pose_matrices_to_model_still(s, 0, NULL, got);
	for (uint32_t j = 0; j < n; j++)
		if (memcmp(&want[j], &got[j], sizeof want[j]) != 0)
			fail_msg("%u joints, time %lld ns, root motion %d: joint %u differs "
				 "(%.9g %.9g %.9g against %.9g %.9g %.9g in the first row)",
				 n, (long long)elapsed, (int)rm, j, got[j].m[0][0], got[j].m[0][1],
				 got[j].m[0][3], want[j].m[0][0], want[j].m[0][1], want[j].m[0][3]);
}

static void check_all_counts(void)
{
	for (uint32_t n = 0; n <= 41; n++)
		for (int variant = 0; variant < 4; variant++) {
			struct clip *c = make_clip(n, 5, variant & 1, variant >> 1);
			struct skeleton *s = make_skeleton(n);
			struct transform *local = calloc(n + 1, sizeof *local);
			mat34 *want = calloc(n + 1, sizeof *want), *got = calloc(n + 1, sizeof *got);
			int64_t frame = c->duration_ns / 4;

			assert_non_null(local);
			assert_non_null(want);
			assert_non_null(got);
			for (int rm = ROOT_RAW; rm <= ROOT_IN_PLACE; rm++) {
				/* On frames, between them, near the next one,
				 * before the start, at and past the end, and a
				 * few loops on (root motion's cycles). */
				const int64_t times[] = { 0, frame, 2 * frame + 1, frame / 3,
							  3 * frame - 7, -frame / 2, c->duration_ns,
							  c->duration_ns + 1, 5 * c->duration_ns + frame / 5,
							  -3 * c->duration_ns - frame / 7 };

				for (size_t k = 0; k < sizeof times / sizeof times[0]; k++)
					check_time(c, s, times[k], (enum root_motion)rm, local, want, got);
				for (int64_t t = 0; t < c->duration_ns; t += 4999999)
					check_time(c, s, t, (enum root_motion)rm, local, want, got);
			}
			free(local);
			free(want);
			free(got);
			skeleton_free(s);
			clip_free(c);
		}
}

static void test_same_bits_at_every_level(void **state)
{
	enum math3d_simd best = math3d_simd_level();

	(void)state;
	check_all_counts();
	if (best != MATH3D_SIMD_BASE) {
		math3d_simd_limit(MATH3D_SIMD_BASE);
		check_all_counts();
		math3d_simd_limit(best);
	}
}

/* The blocks are counted, once, at the size they were asked for. */
static void test_blocks_bytes(void **state)
{
	struct clip *plain = make_clip(21, 7, 0, 0), *blocked = make_clip(21, 7, 0, 1);

	(void)state;
	assert_int_equal(blocked->block_storage_bytes, 7 * 2 * 80 * sizeof(float) + 32);
	assert_int_equal(clip_bytes(blocked) - clip_bytes(plain), blocked->block_storage_bytes);
	assert_int_equal((uintptr_t)blocked->frame_blocks % 32, 0);
	/* A second call changes nothing; a keyed or small clip gets none. */
	assert_int_equal(clip_block_frames(blocked), 0);
	assert_int_equal(clip_bytes(blocked) - clip_bytes(plain), blocked->block_storage_bytes);
	clip_free(plain);
	clip_free(blocked);
	plain = make_clip(7, 3, 0, 1);
	assert_null(plain->block_storage);
	clip_free(plain);
}

/* A keyed clip takes the two-step path inside: the same contract. */
static void test_keyed_clip_same_bits(void **state)
{
	struct clip *c = calloc(1, sizeof *c);
	struct skeleton *s = make_skeleton(9);
	struct transform local[10];
	mat34 want[10], got[10];
	static const int64_t times[2] = { 0, 1000000000 };
	float values[2][4];

	(void)state;
	assert_non_null(c);
	c->joint_count = 9;
	c->duration_ns = 1000000000;
	c->tracks = calloc(10, sizeof *c->tracks);
	c->rest = calloc(10, sizeof *c->rest);
	assert_non_null(c->tracks);
	assert_non_null(c->rest);
	for (uint32_t j = 0; j < 9; j++)
		c->rest[j] = rnd_joint(c, 0, j, 1);
	for (int k = 0; k < 2; k++) {
		quat q = rnd_quat();

		values[k][0] = q.x, values[k][1] = q.y, values[k][2] = q.z, values[k][3] = q.w;
	}
	c->tracks[4].r = (struct track){ .count = 2, .interp = INTERP_LINEAR, .width = 4,
					 .times = times, .values = &values[0][0] };
	for (int64_t t = -100; t <= c->duration_ns + 100; t += 77777777)
		for (int rm = ROOT_RAW; rm <= ROOT_IN_PLACE; rm++)
			check_time(c, s, t, (enum root_motion)rm, local, want, got);
	c->tracks[4].r = (struct track){ 0 };
	skeleton_free(s);
	clip_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_bits_at_every_level),
		cmocka_unit_test(test_blocks_bytes),
		cmocka_unit_test(test_keyed_clip_same_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
