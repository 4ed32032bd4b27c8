/*
 * test_tick_deadline - a stream's tick schedule: deadlines on a fixed
 * grid, a tick that overran its period followed at once by the next (wait
 * 0: after one poll of the loop, not a period later), the grid kept so that faster ticks catch up, and
 * deadlines a whole period behind passed over, never run in a burst.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "daemon/service/playback/tick_deadline.h"

#define MS 1000000LL
#define PERIOD (1000000000LL / 60)

/* On time: the wait reaches the next deadline, rounded up to a whole ms. */
static void test_on_time(void **state)
{
	struct tick_deadline d;
	int64_t t0 = 5000 * MS;

	(void)state;
	tick_deadline_start(&d, t0, PERIOD);
	assert_int_equal(d.next_ns, t0 + PERIOD);
	/* A tick at its deadline that took 3 ms. */
	assert_int_equal(tick_deadline_after_tick(&d, t0 + PERIOD + 3 * MS),
			 (2 * PERIOD - PERIOD - 3 * MS + MS - 1) / MS);
	assert_int_equal(d.next_ns, t0 + 2 * PERIOD);
	/* Ending exactly a whole number of ms before the deadline. */
	assert_int_equal(tick_deadline_after_tick(&d, t0 + 3 * PERIOD - 4 * MS), 4);
	assert_int_equal(d.late, 0);
	assert_int_equal(d.skipped, 0);
}

/* A tick that ends past the next deadline: that tick runs at once (after
 * the loop's poll), and the deadline after it is unchanged. */
static void test_late_tick_runs_next(void **state)
{
	struct tick_deadline d;
	int64_t t0 = 0;

	(void)state;
	tick_deadline_start(&d, t0, PERIOD);
	/* The first tick took 18 ms: the second's deadline has passed. */
	assert_int_equal(tick_deadline_after_tick(&d, t0 + PERIOD + 18 * MS), 0);
	assert_int_equal(d.next_ns, t0 + 2 * PERIOD);
	assert_int_equal(d.late, 1);
	assert_int_equal(d.skipped, 0);
	/* The late tick, run at once, takes 15 ms: it ends before the third
	 * deadline, which is kept, so the stream is back on its grid. */
	assert_int_equal(tick_deadline_after_tick(&d, t0 + PERIOD + 33 * MS),
			 (3 * PERIOD - PERIOD - 33 * MS + MS - 1) / MS);
	assert_int_equal(d.next_ns, t0 + 3 * PERIOD);
	assert_int_equal(d.late, 1);
	assert_int_equal(d.skipped, 0);
}

/* A stall of many periods: every deadline a period or more behind is
 * passed over, the latest passed one runs next, once. */
static void test_stall_skips(void **state)
{
	struct tick_deadline d;

	(void)state;
	tick_deadline_start(&d, 0, PERIOD);
	/* The first tick ends 5.5 periods after its deadline: the deadlines
	 * at 2..5 periods are 4.5..1.5 periods behind, passed over; the one
	 * at 6 periods, half a period behind, runs next. */
	assert_int_equal(tick_deadline_after_tick(&d, PERIOD + 5 * PERIOD + PERIOD / 2), 0);
	assert_int_equal(d.skipped, 4);
	assert_int_equal(d.late, 1);
	assert_int_equal(d.next_ns, 6 * PERIOD);
	/* That tick is quick: the next deadline, 7 periods, is waited for. */
	assert_true(tick_deadline_after_tick(&d, 6 * PERIOD + PERIOD / 2 + MS) > 0);
	assert_int_equal(d.next_ns, 7 * PERIOD);
}

/* Ticks that always cost more than the period: they run back to back,
 * the rate falls to what they cost, and deadlines
 * are passed over one at a time as the lag reaches a period, so a tick
 * is never owed twice. */
static void test_overload_runs_back_to_back(void **state)
{
	struct tick_deadline d;
	int64_t now = 0, cost = 20 * MS;
	uint64_t ticks = 0;

	(void)state;
	tick_deadline_start(&d, now, PERIOD);
	now = d.next_ns;
	while (now < 60 * PERIOD) {
		uint64_t wait;

		now += cost;
		ticks++;
		wait = tick_deadline_after_tick(&d, now);
		assert_int_equal(wait, 0);
		/* At most one tick owed: its deadline less than a period back. */
		assert_true(d.next_ns <= now && now - d.next_ns < PERIOD);
	}
	/* One tick per 20 ms for the 59 periods run; the rest skipped. */
	assert_int_equal(ticks, (59 * PERIOD + 20 * MS - 1) / (20 * MS));
	assert_int_equal(d.late, ticks);
	assert_int_equal(ticks + d.skipped + 1, (uint64_t)(d.next_ns / PERIOD));
}

/* Mostly fast ticks with an occasional long one: the long one's lag is
 * made up and no deadline is skipped, where passing over the late
 * deadline would have lost a tick each time. */
static void test_occasional_overrun_keeps_rate(void **state)
{
	struct tick_deadline d;
	int64_t now = 0;
	uint64_t ticks = 0;

	(void)state;
	tick_deadline_start(&d, now, PERIOD);
	now = d.next_ns;
	for (int k = 0; k < 600; k++) {
		/* Each tick starts when its wait ends (at once when late). */
		now += k % 7 == 3 ? 19 * MS : 14 * MS;
		ticks++;
		now += (int64_t)tick_deadline_after_tick(&d, now) * MS;
	}
	assert_int_equal(d.skipped, 0);
	assert_true(d.late > 0);
	assert_int_equal((uint64_t)(d.next_ns / PERIOD), ticks + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_on_time),
		cmocka_unit_test(test_late_tick_runs_next),
		cmocka_unit_test(test_stall_skips),
		cmocka_unit_test(test_overload_runs_back_to_back),
		cmocka_unit_test(test_occasional_overrun_keeps_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
