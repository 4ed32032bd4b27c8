/*
 * The shared binary reader (formats/bin_reader.h): unaligned little-endian
 * loads of every width and sign, the overflow-proof bounds predicates at
 * the edges of 64 bits, checked scalar reads and arrays that fail with
 * their located message (the base and prefix applied), and a reader
 * without a diag.  Buffers are exact-size heap copies so ASan sees any
 * over-read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/bin_reader.h"

static unsigned char *copy(const void *p, size_t n)
{
	unsigned char *c = malloc(n ? n : 1);

	assert_non_null(c);
	memcpy(c, p, n);
	return c;
}

static void expect_diag(int rc, const struct diag *d, uint64_t offset, const char *msg)
{
	if (rc != -EINVAL || !d->set || d->line != 0 || d->offset != offset ||
	    strcmp(d->msg, msg) != 0)
		fail_msg("got rc %d at offset 0x%llx \"%s\"; want -EINVAL at 0x%llx \"%s\"", rc,
			 (unsigned long long)d->offset, d->msg, (unsigned long long)offset, msg);
}

/* Every load at every misalignment reads the little-endian value. */
static void test_loads(void **state)
{
	static const unsigned char bytes[] = { 0xff, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
					       0x08, 0x00, 0x00, 0x80, 0x3f, 0xfe, 0xff, 0xff };
	unsigned char *b = copy(bytes, sizeof bytes);
	float one = 1.0f;
	uint32_t one_bits;
	double half = -0.5;
	unsigned char dbl[8];

	(void)state;
	assert_int_equal(bin_le16(b + 1), 0x0201);
	assert_int_equal(bin_le32(b + 1), 0x04030201u);
	assert_true(bin_le64(b + 1) == 0x0807060504030201ull);
	assert_int_equal(bin_les16(b + 13), -2);
	assert_int_equal(bin_les32(b + 12), (int32_t)0xfffffe3f);
	assert_int_equal(bin_les16(b + 14), -1);
	memcpy(&one_bits, &one, 4);
	assert_int_equal(bin_le32(b + 9), one_bits);
	assert_true(bin_lef32(b + 9) == 1.0f);
	/* -0.5 is 0xbfe0000000000000, stored low byte first. */
	memcpy(dbl, (const unsigned char[]){ 0, 0, 0, 0, 0, 0, 0xe0, 0xbf }, 8);
	assert_true(bin_lef64(dbl) == half);
	free(b);
}

static void test_fits(void **state)
{
	struct bin_reader r;
	unsigned char buf[16] = { 0 };

	(void)state;
	bin_init(&r, buf, sizeof buf, NULL);
	assert_true(bin_fits(&r, 0, 16));
	assert_true(bin_fits(&r, 16, 0));
	assert_true(bin_fits(&r, 12, 4));
	assert_false(bin_fits(&r, 13, 4));
	assert_false(bin_fits(&r, 17, 0));
	/* off + n would wrap to a small number in 64 bits. */
	assert_false(bin_fits(&r, 8, UINT64_MAX - 4));
	assert_false(bin_fits(&r, UINT64_MAX, 2));
	assert_true(bin_array_fits(&r, 4, 3, 4));
	assert_false(bin_array_fits(&r, 4, 4, 4));
	/* The largest a file can state: no wrap. */
	assert_false(bin_array_fits(&r, 0xffffffffu, 0xffffffffu, 0xffffffffu));
	assert_false(bin_array_fits(&r, 0, 0xffffffffu, 108));
	assert_true(bin_array_fits(&r, 16, 0xffffffffu, 0));
}

static void test_scalars(void **state)
{
	static const unsigned char bytes[] = { 1, 0xfe, 0xff, 0x78, 0x56, 0x34, 0x12, 0, 0, 0xc0, 0x7f };
	unsigned char *b = copy(bytes, sizeof bytes);
	struct bin_reader r;
	struct diag d = { 0 };
	uint8_t u8;
	uint16_t u16;
	int16_t i16;
	uint32_t u32;
	int32_t i32;
	float f;

	(void)state;
	bin_init(&r, b, sizeof bytes, &d);
	assert_int_equal(bin_u8(&r, 0, &u8, "a"), 0);
	assert_int_equal(u8, 1);
	assert_int_equal(bin_u16(&r, 1, &u16, "a"), 0);
	assert_int_equal(u16, 0xfffe);
	assert_int_equal(bin_i16(&r, 1, &i16, "a"), 0);
	assert_int_equal(i16, -2);
	assert_int_equal(bin_u32(&r, 3, &u32, "a"), 0);
	assert_int_equal(u32, 0x12345678u);
	assert_int_equal(bin_i32(&r, 3, &i32, "a"), 0);
	assert_int_equal(i32, 0x12345678);
	assert_int_equal(bin_f32(&r, 7, &f, "a"), 0);
	assert_true(f != f);    /* 0x7fc00000: a NaN, kept as stored */
	assert_false(d.set);

	/* Cut off: located at the field, the end named. */
	expect_diag(bin_u32(&r, 8, &u32, "the bone count"), &d, 8,
		    "the bone count needs 4 bytes at 0x8, but the data ends at 0xb");
	memset(&d, 0, sizeof d);
	expect_diag(bin_u8(&r, 11, &u8, "x"), &d, 11, "x needs 1 bytes at 0xb, but the data ends at 0xb");
	memset(&d, 0, sizeof d);
	expect_diag(bin_u16(&r, UINT64_MAX, &u16, "y"), &d, UINT64_MAX,
		    "y needs 2 bytes at 0xffffffffffffffff, but the data ends at 0xb");
	free(b);
}

static void test_arrays(void **state)
{
	unsigned char *b = calloc(1, 100);
	const unsigned char *p = (const unsigned char *)"x";
	struct bin_reader r;
	struct diag d = { 0 };

	(void)state;
	assert_non_null(b);
	bin_init(&r, b, 100, &d);
	assert_int_equal(bin_array(&r, 0, 2, 92, 4, &p, "keys"), 0);
	assert_ptr_equal(p, b + 92);
	/* An empty array points nowhere, whatever its offset says. */
	assert_int_equal(bin_array(&r, 0, 0, 0xfffffff0u, 108, &p, "bones"), 0);
	assert_null(p);
	assert_false(d.set);

	/* 0xffffffff x 108 bytes: no overflow, a message with the true end. */
	expect_diag(bin_array(&r, 0x34, 0xffffffffu, 0x40, 108, &p, "bones"), &d, 0x34,
		    "bones: 4294967295 x 108 bytes at 0x40 would end at 0x6bffffffd4, "
		    "but the data ends at 0x64");
	assert_null(p);
	memset(&d, 0, sizeof d);
	expect_diag(bin_array(&r, 8, 10, 95, 1, &p, "the name"), &d, 8,
		    "the name: 10 bytes at 0x5f would end at 0x69, but the data ends at 0x64");
	memset(&d, 0, sizeof d);
	expect_diag(bin_array(&r, 8, 1, 0xffffffffu, 4, &p, "x"), &d, 8,
		    "x: 1 x 4 bytes at 0xffffffff would end at 0x100000003, but the data ends at 0x64");

	/* Base and prefix: a body read after a 16-byte header. */
	memset(&d, 0, sizeof d);
	r.base = 16;
	r.prefix = "in the decompressed data: ";
	expect_diag(bin_array(&r, 4, 30, 0, 4, &p, "a list"), &d, 20,
		    "in the decompressed data: a list: 30 x 4 bytes at 0x10 would end at 0x88, "
		    "but the data ends at 0x74");
	memset(&d, 0, sizeof d);
	expect_diag(bin_error(&r, 3, "token %d", 7), &d, 19, "in the decompressed data: token 7");

	/* The first error wins. */
	expect_diag(bin_error(&r, 9, "later"), &d, 19, "in the decompressed data: token 7");
	free(b);
}

/* A reader without a diag fails the same way, recording nothing. */
static void test_no_diag(void **state)
{
	unsigned char b[4] = { 0 };
	struct bin_reader r;
	const unsigned char *p;
	uint32_t v;

	(void)state;
	bin_init(&r, b, sizeof b, NULL);
	assert_int_equal(bin_u32(&r, 1, &v, "v"), -EINVAL);
	assert_int_equal(bin_array(&r, 0, 2, 0, 4, &p, "a"), -EINVAL);
	assert_int_equal(bin_error(&r, 0, "e"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads),
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_no_diag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
