/*
 * big_block: blocks rounded up to whole 2 MiB units and aligned on one
 * (under AddressSanitizer, malloc's of the size asked), zeroed, every byte
 * of what it says it gave writable; nothing for a size of 0 or one that
 * cannot be rounded up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "daemon/formats/big_block.h"

/* Under AddressSanitizer blocks are malloc's, exactly the size asked. */
#if defined(__SANITIZE_ADDRESS__)
#define BIG_BLOCK_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BIG_BLOCK_UNDER_ASAN 1
#endif
#endif

static void test_sizes(void **state)
{
	static const size_t sizes[] = { 1, 4096, BIG_BLOCK_UNIT - 1, BIG_BLOCK_UNIT,
					BIG_BLOCK_UNIT + 1, 5 * BIG_BLOCK_UNIT + 12345 };

	(void)state;
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		size_t got = 0;
		unsigned char *p = big_block_alloc(sizes[i], &got);

		assert_non_null(p);
		assert_true(got >= sizes[i]);
		assert_true(got - sizes[i] < BIG_BLOCK_UNIT);
#ifndef BIG_BLOCK_UNDER_ASAN
		assert_int_equal(got % BIG_BLOCK_UNIT, 0);
		assert_int_equal((uintptr_t)p % BIG_BLOCK_UNIT, 0);
#endif
		for (size_t o = 0; o < got; o += 4096)
			assert_int_equal(p[o], 0);
		assert_int_equal(p[got - 1], 0);
		memset(p, 0xa5, got);
		big_block_free(p, got);
	}
}

static void test_refused(void **state)
{
	size_t got = 1;

	(void)state;
	assert_null(big_block_alloc(0, &got));
	assert_int_equal(got, 0);
	got = 1;
	assert_null(big_block_alloc(SIZE_MAX - BIG_BLOCK_UNIT, &got));
	assert_int_equal(got, 0);
	big_block_free(NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
