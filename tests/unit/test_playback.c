/* The instance clock: anchoring, pause/resume/seek/speed, and when a clip
 * played once will end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "daemon/anim/playback.h"

#define S 1000000000LL

static void test_plays_at_speed(void **state)
{
	struct playback p;

	(void)state;
	playback_start(&p, 100 * S, 2 * S, 1.0);
	assert_int_equal(playback_time(&p, 100 * S), 2 * S);
	assert_int_equal(playback_time(&p, 103 * S + 5), 5 * S + 5);
	playback_start(&p, 0, 0, 0.5);
	assert_int_equal(playback_time(&p, 3 * S), 1500000000LL);
	playback_start(&p, 0, 10 * S, -2.0);
	assert_int_equal(playback_time(&p, 1 * S), 8 * S);
}

static void test_pause_resume_seek_speed(void **state)
{
	struct playback p;

	(void)state;
	playback_start(&p, 0, 0, 1.0);
	playback_pause(&p, 2 * S);
	assert_int_equal(playback_time(&p, 50 * S), 2 * S);
	playback_resume(&p, 50 * S);
	assert_int_equal(playback_time(&p, 51 * S), 3 * S);
	playback_seek(&p, 51 * S, 10 * S);
	assert_int_equal(playback_time(&p, 52 * S), 11 * S);
	playback_set_speed(&p, 52 * S, 2.0);
	assert_int_equal(playback_time(&p, 53 * S), 13 * S);
	playback_pause(&p, 54 * S);
	playback_seek(&p, 60 * S, 1 * S);
	assert_int_equal(playback_time(&p, 70 * S), 1 * S);
	assert_false(p.playing);
}

/* Weeks of play at speed 1 stay exact to the nanosecond. */
static void test_long_runs_exact(void **state)
{
	struct playback p;
	int64_t weeks = 6LL * 7 * 24 * 3600 * S;

	(void)state;
	playback_start(&p, 5, 7, 1.0);
	assert_int_equal(playback_time(&p, weeks + 5), weeks + 7);
	playback_start(&p, 0, 0, 1.5);
	assert_int_equal(playback_time(&p, weeks), weeks / 2 * 3);
}

static void test_clock_at(void **state)
{
	struct playback p;

	(void)state;
	playback_start(&p, 10 * S, 0, 2.0);
	assert_int_equal(playback_clock_at(&p, 4 * S), 12 * S);
	playback_start(&p, 0, 5 * S, -1.0);
	assert_int_equal(playback_clock_at(&p, 0), 5 * S);
	assert_int_equal(playback_clock_at(&p, 6 * S), INT64_MAX);
	playback_pause(&p, 1 * S);
	assert_int_equal(playback_clock_at(&p, 0), INT64_MAX);
	playback_start(&p, 0, 0, 0.0);
	assert_int_equal(playback_clock_at(&p, 1), INT64_MAX);
}

static void test_saturates(void **state)
{
	struct playback p;

	(void)state;
	playback_start(&p, 0, INT64_MAX - 10, 1.0);
	assert_int_equal(playback_time(&p, 100), INT64_MAX);
	playback_start(&p, 0, 0, 1e300);
	assert_int_equal(playback_time(&p, 10), INT64_MAX);
	playback_start(&p, 0, 0, -1e300);
	assert_int_equal(playback_time(&p, 10), INT64_MIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plays_at_speed),
		cmocka_unit_test(test_pause_resume_seek_speed),
		cmocka_unit_test(test_long_runs_exact),
		cmocka_unit_test(test_clock_at),
		cmocka_unit_test(test_saturates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
