/*
 * The distance between names behind "did you mean": each kind of edit
 * costs one, a swap of two neighbours too (not two substitutions), case
 * is free, and the answer is capped at max + 1, also for strings past
 * STRDIST_LEN_MAX.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "daemon/service/base/strdist.h"

static void test_edits(void **state)
{
	(void)state;
	assert_int_equal(strdist("", "", 2), 0);
	assert_int_equal(strdist("level", "level", 2), 0);
	assert_int_equal(strdist("levl", "level", 2), 1);             /* deletion */
	assert_int_equal(strdist("leveel", "level", 2), 1);           /* insertion */
	assert_int_equal(strdist("lavel", "level", 2), 1);            /* substitution */
	assert_int_equal(strdist("levle", "level", 2), 1);            /* swap */
	assert_int_equal(strdist("elvel", "level", 2), 1);            /* swap at the start */
	assert_int_equal(strdist("max_conections", "max_connections", 2), 1);
	assert_int_equal(strdist("quiet-ms", "quiet_ms", 2), 1);
	assert_int_equal(strdist("qiet_m", "quiet_ms", 2), 2);
	assert_int_equal(strdist("", "ab", 2), 2);
	assert_int_equal(strdist("ab", "", 2), 2);
	/* Symmetric. */
	assert_int_equal(strdist("level", "levl", 2), 1);
	assert_int_equal(strdist("format", "formt", 2), 1);
}

static void test_case_is_free(void **state)
{
	(void)state;
	assert_int_equal(strdist("Level", "level", 2), 0);
	assert_int_equal(strdist("LIMITS", "limits", 2), 0);
	assert_int_equal(strdist("LIMTS", "limits", 2), 1);
	/* Only ASCII letters fold. */
	assert_int_equal(strdist("\xc3\x89", "\xc3\xa9", 2), 1);
	assert_int_equal(strdist("_", "\x7f", 2), 1);
}

static void test_cap(void **state)
{
	char a[STRDIST_LEN_MAX + 2], b[STRDIST_LEN_MAX + 2];

	(void)state;
	assert_int_equal(strdist("publish_rate_hz", "root", 2), 3);
	assert_int_equal(strdist("abc", "xyz", 2), 3);
	assert_int_equal(strdist("abc", "xyz", 3), 3);
	assert_int_equal(strdist("abc", "xyz", 0), 1);
	assert_int_equal(strdist("a", "abcd", 2), 3);   /* by the lengths alone */
	/* Swaps are counted once: "ca" to "abc" is 3, not 2 (no character is
	 * edited twice). */
	assert_int_equal(strdist("ca", "abc", 5), 3);

	memset(a, 'x', STRDIST_LEN_MAX);
	a[STRDIST_LEN_MAX] = '\0';
	memcpy(b, a, sizeof a);
	assert_int_equal(strdist(a, b, 2), 0);
	b[0] = 'y';
	assert_int_equal(strdist(a, b, 2), 1);
	memset(a, 'x', STRDIST_LEN_MAX + 1);
	a[STRDIST_LEN_MAX + 1] = '\0';
	memcpy(b, a, sizeof a);
	assert_int_equal(strdist(a, b, 2), 3);          /* too long to measure */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edits),
		cmocka_unit_test(test_case_is_free),
		cmocka_unit_test(test_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
