/*
 * The streams' memory budget ([streams] max_total_bytes): regions are
 * taken up to the limit and no further, a refusal says the sizes and names
 * the setting, closing gives the bytes back, a lowered limit keeps what is
 * open and refuses until enough has closed; and sizes as people read them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "daemon/service/base/bytes.h"
#include "daemon/service/playback/stream_budget.h"

#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

static void test_take_up_to_the_limit(void **state)
{
	struct stream_budget b = { 0 };
	char err[256] = "";

	(void)state;
	stream_budget_set(&b, GIB, "[streams] max_total_bytes = 1 GiB");
	for (int i = 0; i < 15; i++)
		assert_int_equal(stream_budget_take(&b, 64 * MIB, err, sizeof err), 0);
	assert_int_equal(b.used, 960 * MIB);
	/* 64 MiB more would be 1 GiB exactly: that fits. */
	assert_int_equal(stream_budget_take(&b, 64 * MIB, err, sizeof err), 0);
	assert_int_equal(b.used, GIB);
	assert_int_equal(stream_budget_take(&b, 1, err, sizeof err), -EDQUOT);
	/* Rounded down, a total just over reads as the limit with decimals. */
	assert_string_equal(err, "this stream's 1 byte would bring the streams' total to 1.00 GiB, "
				 "over [streams] max_total_bytes = 1 GiB");
	/* Refusals take nothing. */
	assert_int_equal(b.used, GIB);

	/* Closing one gives its share back, and the next fits. */
	stream_budget_give(&b, 64 * MIB);
	assert_int_equal(b.used, GIB - 64 * MIB);
	assert_int_equal(stream_budget_take(&b, 65 * MIB, err, sizeof err), -EDQUOT);
	assert_string_equal(err, "this stream's 65 MiB would bring the streams' total to 1.00 GiB, "
				 "over [streams] max_total_bytes = 1 GiB");
	assert_int_equal(stream_budget_take(&b, 64 * MIB, err, sizeof err), 0);
	for (int i = 0; i < 16; i++)
		stream_budget_give(&b, 64 * MIB);
	assert_int_equal(b.used, 0);
}

static void test_refusal_names_the_numbers(void **state)
{
	struct stream_budget b = { 0 };
	char err[256] = "";

	(void)state;
	stream_budget_set(&b, GIB, "[streams] max_total_bytes = 1 GiB");
	assert_int_equal(stream_budget_take(&b, 960 * MIB, err, sizeof err), 0);
	assert_int_equal(stream_budget_take(&b, 84 * MIB + MIB / 2, err, sizeof err), -EDQUOT);
	assert_string_equal(err, "this stream's 84.5 MiB would bring the streams' total to 1.02 GiB, "
				 "over [streams] max_total_bytes = 1 GiB");
	/* One region larger than the whole budget says so. */
	assert_int_equal(stream_budget_take(&b, 2 * GIB, err, sizeof err), -EDQUOT);
	assert_string_equal(err, "this stream's 2 GiB alone is over [streams] max_total_bytes = 1 GiB");
	/* Sizes near UINT64_MAX do not wrap into "fits". */
	assert_int_equal(stream_budget_take(&b, UINT64_MAX, err, sizeof err), -EDQUOT);
	assert_int_equal(b.used, 960 * MIB);
}

static void test_lowered_limit(void **state)
{
	struct stream_budget b = { 0 };
	char err[256] = "";

	(void)state;
	stream_budget_set(&b, GIB, "[streams] max_total_bytes = 1 GiB");
	assert_int_equal(stream_budget_take(&b, 600 * MIB, err, sizeof err), 0);
	/* A reload lowers it under what is open: that stays open. */
	stream_budget_set(&b, 512 * MIB, "[streams] max_total_bytes = 512 MiB");
	assert_int_equal(b.used, 600 * MIB);
	assert_int_equal(stream_budget_take(&b, MIB, err, sizeof err), -EDQUOT);
	assert_string_equal(err, "this stream's 1 MiB would bring the streams' total to 601 MiB, "
				 "over [streams] max_total_bytes = 512 MiB");
	stream_budget_give(&b, 600 * MIB);
	assert_int_equal(stream_budget_take(&b, 512 * MIB, err, sizeof err), 0);
}

static void test_bytes_format(void **state)
{
	char buf[BYTES_FORMAT_MAX];

	(void)state;
	assert_string_equal(bytes_format(0, buf, sizeof buf), "0 bytes");
	assert_string_equal(bytes_format(1, buf, sizeof buf), "1 byte");
	assert_string_equal(bytes_format(1023, buf, sizeof buf), "1023 bytes");
	assert_string_equal(bytes_format(1024, buf, sizeof buf), "1 KiB");
	assert_string_equal(bytes_format(1536, buf, sizeof buf), "1.50 KiB");
	assert_string_equal(bytes_format(64 * MIB, buf, sizeof buf), "64 MiB");
	assert_string_equal(bytes_format(64 * MIB + MIB / 2, buf, sizeof buf), "64.5 MiB");
	assert_string_equal(bytes_format(300 * 1024 + 7, buf, sizeof buf), "300 KiB");
	assert_string_equal(bytes_format(GIB + 20 * MIB, buf, sizeof buf), "1.01 GiB");
	/* Rounded down: just under a unit never reads as the unit. */
	assert_string_equal(bytes_format(GIB - 1, buf, sizeof buf), "1023 MiB");
	assert_string_equal(bytes_format(2 * GIB - 1, buf, sizeof buf), "1.99 GiB");
	assert_string_equal(bytes_format((uint64_t)3 << 40, buf, sizeof buf), "3 TiB");
	assert_string_equal(bytes_format(UINT64_MAX, buf, sizeof buf), "16777215 TiB");
	/* Cut to the buffer, still terminated. */
	assert_string_equal(bytes_format(1536, buf, 4), "1.5");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take_up_to_the_limit),
		cmocka_unit_test(test_refusal_names_the_numbers),
		cmocka_unit_test(test_lowered_limit),
		cmocka_unit_test(test_bytes_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
