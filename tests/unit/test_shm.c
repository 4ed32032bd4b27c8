/*
 * The stream layout (proto/animd_shm.c): animd_shm_validate against
 * headers a hostile or broken peer could map, above all products of its
 * u64 fields that wrap (the first of which the stream reader's fuzzer
 * found), and the seqlock read of a pose written by the daemon's writer,
 * also where the pose numbers near 2^64.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto/animd_shm.h"

static void layout(struct animd_shm_header *h, uint32_t channels)
{
	assert_int_equal(animd_shm_layout(h, ANIMD_SHM_SPACE_LOCAL, 182, channels, 16), 0);
}

static void expect_invalid(const struct animd_shm_header *h, uint64_t mapped, const char *why)
{
	const char *reason = NULL;

	assert_int_equal(animd_shm_validate(h, mapped, &reason), -EINVAL);
	assert_non_null(reason);
	assert_string_equal(reason, why);
}

static void test_layout_validates(void **state)
{
	struct animd_shm_header h;
	const char *reason = "unset";

	layout(&h, 4);
	assert_int_equal(animd_shm_validate(&h, h.region_bytes, &reason), 0);
	assert_null(reason);
	expect_invalid(&h, h.region_bytes - 1, "region is larger than the mapping");
}

/* The attachments space: 64-byte elements, a layout readers accept, no
 * normals; a header claiming another stride for it is refused. */
static void test_attachments_space(void **state)
{
	struct animd_shm_header h;
	const char *reason = "unset";

	(void)state;
	assert_int_equal(animd_shm_stride(ANIMD_SHM_SPACE_ATTACHMENTS), 64);
	assert_int_equal(animd_shm_feature_stride(ANIMD_SHM_SPACE_ATTACHMENTS,
						  ANIMD_SHM_FEATURE_NORMALS), 0);
	assert_int_equal(animd_shm_stride(ANIMD_SHM_SPACE_WEIGHTS + 1), 0);
	assert_int_equal(animd_shm_layout(&h, ANIMD_SHM_SPACE_ATTACHMENTS, 3, 2, 4), 0);
	assert_int_equal(h.element_stride, ANIMD_SHM_STRIDE_ATTACHMENT);
	assert_int_equal(h.slot_bytes, 64 + 3 * 64);
	assert_int_equal(animd_shm_validate(&h, h.region_bytes, &reason), 0);
	h.element_stride = ANIMD_SHM_STRIDE_MATRIX;
	expect_invalid(&h, h.region_bytes, "unknown space or features, or wrong element stride");
}

/* The weights space: one float32 per morph weight, no normals. */
static void test_weights_space(void **state)
{
	struct animd_shm_header h;
	const char *reason = "unset";

	(void)state;
	assert_int_equal(animd_shm_stride(ANIMD_SHM_SPACE_WEIGHTS), 4);
	assert_int_equal(animd_shm_feature_stride(ANIMD_SHM_SPACE_WEIGHTS,
						  ANIMD_SHM_FEATURE_NORMALS), 0);
	assert_int_equal(animd_shm_layout(&h, ANIMD_SHM_SPACE_WEIGHTS, 3, 2, 4), 0);
	assert_int_equal(h.element_stride, ANIMD_SHM_STRIDE_WEIGHT);
	assert_int_equal(h.slot_bytes, 64 + 64);
	assert_int_equal(animd_shm_validate(&h, h.region_bytes, &reason), 0);
	h.element_stride = ANIMD_SHM_STRIDE_MATRIX;
	expect_invalid(&h, h.region_bytes, "unknown space or features, or wrong element stride");
}

/* The fuzzer's case: channel_bytes 2^63 times 4 channels is 2^65, which
 * wrapped to 0 and let channel 1 sit 2^63 bytes past the mapping. */
static void test_channel_product_wraps(void **state)
{
	struct animd_shm_header h;

	layout(&h, 4);
	h.channel_bytes = UINT64_C(1) << 63;
	expect_invalid(&h, h.region_bytes, "channels run past the region");
	/* Exactly 2^64 (2^48 bytes times 65536 channels). */
	h.channel_count = ANIMD_SHM_MAX_CHANNELS;
	h.channel_bytes = UINT64_C(1) << 48;
	expect_invalid(&h, h.region_bytes, "channels run past the region");
}

/* The sum with channels_offset must not wrap either. */
static void test_channels_offset_past_region(void **state)
{
	struct animd_shm_header h;

	layout(&h, 1);
	h.channels_offset = UINT64_MAX - 63;
	expect_invalid(&h, h.region_bytes, "channels run past the region");
	h.channels_offset = h.region_bytes;
	expect_invalid(&h, h.region_bytes, "channels run past the region");
}

/* The bound is exact: channels that end on the region's last byte fit,
 * one byte less of region does not. */
static void test_channels_bound_exact(void **state)
{
	struct animd_shm_header h;

	layout(&h, 3);
	h.channels_offset = 512;
	h.region_bytes = 512 + 3 * h.channel_bytes;
	assert_int_equal(animd_shm_validate(&h, h.region_bytes, NULL), 0);
	h.region_bytes--;
	expect_invalid(&h, h.region_bytes, "channels run past the region");
}

/* A pose written with the daemon's writer reads back whole and verified;
 * the ring's ends answer -ENODATA and -ESTALE. */
static void test_read_written_pose(void **state)
{
	struct animd_shm_header h;
	struct animd_shm_channel *ch;
	struct animd_shm_slot *slot, *copy;
	size_t copy_bytes;
	void *region;
	uint64_t n = 0;

	assert_int_equal(animd_shm_layout(&h, ANIMD_SHM_SPACE_CAMERA, 1, 1, 2), 0);
	region = calloc(1, h.region_bytes);
	assert_non_null(region);
	memcpy(region, &h, sizeof h);
	ch = animd_shm_channel(region, &h, 0);
	copy_bytes = sizeof *copy + h.element_stride;
	copy = malloc(copy_bytes);
	assert_non_null(copy);
	assert_int_equal(animd_shm_read(&h, ch, 0, copy, copy_bytes), -ENODATA);
	for (int i = 0; i < 3; i++) {
		n = (uint64_t)i;
		slot = animd_shm_write_begin(ch, &h, n);
		slot->instance_id = 9;
		slot->element_count = 1;
		memset(animd_shm_payload(slot), 0x40 + i, h.element_stride);
		animd_shm_seal(slot, &h, n);
		animd_shm_write_end(ch, slot, n);
		assert_int_equal(animd_shm_published(ch), n + 1);
	}
	assert_int_equal(animd_shm_read(&h, ch, 2, copy, copy_bytes), 0);
	assert_int_equal(copy->seq, 6);
	assert_int_equal(copy->instance_id, 9);
	assert_true(animd_shm_verify(copy, h.element_stride));
	assert_int_equal(((unsigned char *)(copy + 1))[0], 0x42);
	assert_int_equal(animd_shm_read(&h, ch, 0, copy, copy_bytes), -ESTALE);
	assert_int_equal(animd_shm_read(&h, ch, 3, copy, copy_bytes), -ENODATA);
	free(copy);
	free(region);
}

/* Near 2^64 poses the ring's arithmetic must not wrap: the newest pose
 * of a channel that published UINT64_MAX is pose UINT64_MAX - 1, not a
 * lapped one. */
static void test_read_near_wrap(void **state)
{
	struct animd_shm_header h;
	struct animd_shm_channel *ch;
	struct animd_shm_slot *slot, copy[2];
	void *region;
	uint64_t n = UINT64_MAX - 1;

	assert_int_equal(animd_shm_layout(&h, ANIMD_SHM_SPACE_CAMERA, 1, 1, 4), 0);
	region = calloc(1, h.region_bytes);
	assert_non_null(region);
	ch = animd_shm_channel(region, &h, 0);
	ch->published = n;
	slot = animd_shm_write_begin(ch, &h, n);
	slot->element_count = 1;
	animd_shm_seal(slot, &h, n);
	animd_shm_write_end(ch, slot, n);
	assert_int_equal(ch->published, UINT64_MAX);
	assert_int_equal(animd_shm_read(&h, ch, UINT64_MAX - 1, copy, sizeof copy), 0);
	assert_true(animd_shm_verify(copy, h.element_stride));
	assert_int_equal(animd_shm_read(&h, ch, UINT64_MAX - 4, copy, sizeof copy), -ESTALE);
	free(region);
}

/* The writer's one-pass copy (streaming stores) puts the bytes there and
 * the checksum the reader's animd_shm_checksum computes, for payloads of
 * every length a space gives (multiples of 4, not all of 16, lines and
 * tails), and readers find them whole: with each copy kernel this CPU has. */
static void test_write_payload_with(int kernel)
{
	static const uint32_t spaces[] = { ANIMD_SHM_SPACE_LOCAL, ANIMD_SHM_SPACE_VERTICES,
					   ANIMD_SHM_SPACE_CAMERA, ANIMD_SHM_SPACE_EMITTERS,
					   ANIMD_SHM_SPACE_ATTACHMENTS, ANIMD_SHM_SPACE_WEIGHTS };
	uint64_t rng = 88172645463325252ull;

	print_message("copy kernel %d\n", kernel);
	for (size_t k = 0; k < sizeof spaces / sizeof spaces[0]; k++) {
		for (uint32_t count = 1; count <= 21; count += 5) {
			struct animd_shm_header h;
			void *region;
			float src[21 * 24];
			unsigned char copy[64 + 21 * 96];
			_Alignas(64) unsigned char alone[21 * 96];
			struct animd_shm_channel *ch;
			struct animd_shm_slot *slot;

			assert_int_equal(animd_shm_layout(&h, spaces[k], 21, 1, 2), 0);
			region = aligned_alloc(64, h.region_bytes);
			assert_non_null(region);
			memset(region, 0, h.region_bytes);
			memcpy(region, &h, sizeof h);
			for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
				rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
				src[i] = (float)(rng % 100000) / 7.0f;
			}
			ch = animd_shm_channel(region, &h, 0);
			for (uint64_t n = 0; n < 3; n++) {
				slot = animd_shm_write_begin(ch, &h, n);
				animd_shm_write_payload(slot, &h, n, src, count);
				animd_shm_write_end(ch, slot, n);
				assert_int_equal(slot->element_count, count);
				assert_memory_equal(animd_shm_payload(slot), src,
						    (size_t)count * h.element_stride);
				assert_int_equal(slot->checksum,
						 animd_shm_checksum(src, (size_t)count * h.element_stride,
								    2 * n + 2));
				assert_int_equal(animd_shm_read(&h, ch, n, copy, sizeof copy), 0);
				assert_true(animd_shm_verify(copy, h.element_stride));
				/* The copy alone, into scratch: the same bytes and sum. */
				memset(alone, 0, sizeof alone);
				assert_int_equal(animd_shm_copy_sum(alone, src,
								    (size_t)count * h.element_stride, n),
						 slot->checksum);
				assert_memory_equal(alone, src, (size_t)count * h.element_stride);
			}
			free(region);
		}
	}
}

static void test_write_payload(void **state)
{
	int best = animd_shm_copy_limit(ANIMD_SHM_COPY_AVX512);

	(void)state;
	for (int kernel = ANIMD_SHM_COPY_PLAIN; kernel <= best; kernel++) {
		assert_int_equal(animd_shm_copy_limit(kernel), kernel);
		test_write_payload_with(kernel);
	}
	animd_shm_copy_limit(ANIMD_SHM_COPY_AVX512);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_validates),
		cmocka_unit_test(test_attachments_space),
		cmocka_unit_test(test_weights_space),
		cmocka_unit_test(test_channel_product_wraps),
		cmocka_unit_test(test_channels_offset_past_region),
		cmocka_unit_test(test_channels_bound_exact),
		cmocka_unit_test(test_read_written_pose),
		cmocka_unit_test(test_read_near_wrap),
		cmocka_unit_test(test_write_payload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
