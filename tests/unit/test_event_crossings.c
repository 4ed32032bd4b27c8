/*
 * event_crossings: which moments of a clip playback passes between two
 * positions.  Loop wrap and the seam, once, pingpong both ways with its
 * turning points, negative speed, simultaneous moments, a zero-length
 * clip, moments outside the clip, the cap on a huge span (cheap, the last
 * ones kept), huge positions, the next crossing; and every mode and
 * direction against a brute-force reference written from the definition.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "daemon/anim/event_crossings.h"

#define MS 1000000LL
#define S 1000000000LL

/* Expected crossings: pairs of (playback ms, moment). */
struct want {
	int64_t ms;
	uint32_t moment;
};

static void check_list(const struct clip_event *m, uint32_t n, int64_t d, enum loop_mode loop,
		       int64_t from, int64_t to, bool forward, bool incl, const struct want *w,
		       uint32_t nw)
{
	struct event_span s = { m, n, d, loop, from, to, forward, incl };
	struct event_crossing out[64];
	uint32_t written;
	uint64_t total = event_crossings_list(&s, out, 64, &written);

	assert_int_equal(total, nw);
	assert_int_equal(written, nw);
	for (uint32_t i = 0; i < nw; i++) {
		if (out[i].p_ns != w[i].ms * MS || out[i].moment != w[i].moment)
			fail_msg("crossing %u: got %lld ns moment %u, want %lld ms moment %u", i,
				 (long long)out[i].p_ns, out[i].moment, (long long)w[i].ms,
				 w[i].moment);
	}
}

#define CHECK(m, d, loop, from, to, fwd, incl, ...)                                        \
	do {                                                                                \
		static const struct want w_[] = { __VA_ARGS__ };                            \
		check_list(m, sizeof m / sizeof m[0], d, loop, from, to, fwd, incl, w_,    \
			   sizeof w_ / sizeof w_[0]);                                       \
	} while (0)
#define CHECK_NONE(m, d, loop, from, to, fwd, incl)                                        \
	check_list(m, sizeof m / sizeof m[0], d, loop, from, to, fwd, incl, NULL, 0)

static const struct clip_event two[] = { { 250 * MS, 0 }, { 750 * MS, 1 } };

static void test_loop_wrap(void **state)
{
	(void)state;
	/* A start counts its instant; then (from, to]. */
	CHECK(two, S, LOOP_LOOP, 0, 2300 * MS, true, true,
	      { 250, 0 }, { 750, 1 }, { 1250, 0 }, { 1750, 1 }, { 2250, 0 });
	CHECK(two, S, LOOP_LOOP, 250 * MS, 1250 * MS, true, false, { 750, 1 }, { 1250, 0 });
	CHECK(two, S, LOOP_LOOP, 250 * MS, 1250 * MS, true, true,
	      { 250, 0 }, { 750, 1 }, { 1250, 0 });
	/* Before the start of playback too: every integer k. */
	CHECK(two, S, LOOP_LOOP, -1000 * MS, -100 * MS, true, false, { -750, 0 }, { -250, 1 });
	CHECK_NONE(two, S, LOOP_LOOP, 300 * MS, 700 * MS, true, false);
	CHECK_NONE(two, S, LOOP_LOOP, 300 * MS, 300 * MS, true, true);
	/* A span behind its direction holds nothing. */
	CHECK_NONE(two, S, LOOP_LOOP, 900 * MS, 100 * MS, true, false);
}

/* The end of one cycle comes before the start of the next at the seam,
 * and a start at 0 is also the end of cycle -1. */
static void test_loop_seam(void **state)
{
	static const struct clip_event ends[] = { { 0, 0 }, { S, 1 } };

	(void)state;
	CHECK(ends, S, LOOP_LOOP, 500 * MS, 2000 * MS, true, false,
	      { 1000, 1 }, { 1000, 0 }, { 2000, 1 }, { 2000, 0 });
	CHECK(ends, S, LOOP_LOOP, 0, 500 * MS, true, true, { 0, 1 }, { 0, 0 });
	/* Backward: the exact reverse. */
	CHECK(ends, S, LOOP_LOOP, 2000 * MS, 500 * MS, false, false,
	      { 1000, 0 }, { 1000, 1 });
	CHECK(ends, S, LOOP_LOOP, 2000 * MS, 500 * MS, false, true,
	      { 2000, 0 }, { 2000, 1 }, { 1000, 0 }, { 1000, 1 });
}

static void test_once(void **state)
{
	static const struct clip_event m[] = {
		{ -100 * MS, 0 }, { 0, 1 }, { 500 * MS, 2 }, { S, 3 }, { 1200 * MS, 4 },
	};

	(void)state;
	CHECK(m, S, LOOP_ONCE, 0, 5 * S, true, true, { 0, 1 }, { 500, 2 }, { 1000, 3 });
	CHECK(m, S, LOOP_ONCE, 0, 5 * S, true, false, { 500, 2 }, { 1000, 3 });
	CHECK(m, S, LOOP_ONCE, -3 * S, 700 * MS, true, false, { 0, 1 }, { 500, 2 });
	/* Backward: p_now <= p < p_prev. */
	CHECK(m, S, LOOP_ONCE, 5 * S, -S, false, false, { 1000, 3 }, { 500, 2 }, { 0, 1 });
	CHECK(m, S, LOOP_ONCE, S, 500 * MS, false, false, { 500, 2 });
	CHECK(m, S, LOOP_ONCE, S, 500 * MS, false, true, { 1000, 3 }, { 500, 2 });
	/* Once is once: no repetition past the end or before the start. */
	CHECK_NONE(m, S, LOOP_ONCE, 1001 * MS, 9 * S, true, false);
}

static void test_pingpong(void **state)
{
	static const struct clip_event m[] = { { 0, 0 }, { 250 * MS, 1 }, { S, 2 } };

	(void)state;
	/* The turning points (0 and D) are passed once each time. */
	CHECK(m, S, LOOP_PINGPONG, 0, 4 * S, true, true,
	      { 0, 0 }, { 250, 1 }, { 1000, 2 }, { 1750, 1 }, { 2000, 0 }, { 2250, 1 },
	      { 3000, 2 }, { 3750, 1 }, { 4000, 0 });
	/* Backward over the same span: the reverse, without the start
	 * (exclusive) and with the end. */
	CHECK(m, S, LOOP_PINGPONG, 4 * S, 0, false, false,
	      { 3750, 1 }, { 3000, 2 }, { 2250, 1 }, { 2000, 0 }, { 1750, 1 }, { 1000, 2 },
	      { 250, 1 }, { 0, 0 });
	/* Before 0 the pattern continues (period 2D). */
	CHECK(m, S, LOOP_PINGPONG, -S, 0, true, false, { -250, 1 }, { 0, 0 });
}

/* Simultaneous moments: the clip's order forward, its reverse backward;
 * and a pingpong's way back reverses them too. */
static void test_simultaneous(void **state)
{
	static const struct clip_event m[] = { { 500 * MS, 0 }, { 500 * MS, 3 }, { 500 * MS, 5 } };

	(void)state;
	CHECK(m, S, LOOP_LOOP, 0, S, true, false, { 500, 0 }, { 500, 1 }, { 500, 2 });
	CHECK(m, S, LOOP_LOOP, S, 0, false, false, { 500, 2 }, { 500, 1 }, { 500, 0 });
	CHECK(m, S, LOOP_PINGPONG, 0, 2 * S, true, false,
	      { 500, 0 }, { 500, 1 }, { 500, 2 }, { 1500, 2 }, { 1500, 1 }, { 1500, 0 });
}

static void test_negative_speed(void **state)
{
	(void)state;
	CHECK(two, S, LOOP_LOOP, 2 * S, 0, false, false,
	      { 1750, 1 }, { 1250, 0 }, { 750, 1 }, { 250, 0 });
	/* Starting backward at a moment counts it. */
	CHECK(two, S, LOOP_LOOP, 750 * MS, 0, false, true, { 750, 1 }, { 250, 0 });
	CHECK(two, S, LOOP_LOOP, 750 * MS, 0, false, false, { 250, 0 });
	CHECK(two, S, LOOP_LOOP, 0, -S, false, false, { -250, 1 }, { -750, 0 });
}

static void test_zero_length(void **state)
{
	static const struct clip_event m[] = { { 0, 0 }, { 0, 1 }, { 500 * MS, 2 } };
	struct event_span s = { m, 3, 0, LOOP_LOOP, 3 * S, 9 * S, true, true };
	int64_t p;

	(void)state;
	/* Once, at the start, wherever it is; never again. */
	CHECK(m, 0, LOOP_LOOP, 3 * S, 9 * S, true, true, { 3000, 0 }, { 3000, 1 });
	CHECK(m, 0, LOOP_ONCE, 3 * S, 3 * S, false, true, { 3000, 1 }, { 3000, 0 });
	CHECK_NONE(m, 0, LOOP_LOOP, 3 * S, 9 * S, true, false);
	CHECK_NONE(m, 0, LOOP_PINGPONG, -9 * S, 9 * S, true, false);
	assert_true(event_crossings_next(&s, &p));
	assert_int_equal(p, 3 * S);
	s.from_inclusive = false;
	assert_false(event_crossings_next(&s, &p));
}

static void test_outside_never(void **state)
{
	static const struct clip_event m[] = { { -100 * MS, 0 }, { 1500 * MS, 1 } };
	struct event_span s = { m, 2, S, LOOP_LOOP, 0, 0, true, true };
	int64_t p;

	(void)state;
	CHECK_NONE(m, S, LOOP_LOOP, -10 * S, 10 * S, true, true);
	CHECK_NONE(m, S, LOOP_PINGPONG, -10 * S, 10 * S, true, true);
	CHECK_NONE(m, S, LOOP_ONCE, 10 * S, -10 * S, false, true);
	assert_false(event_crossings_next(&s, &p));
}

/* A span of a trillion cycles: counted exactly, the last `max` listed in
 * order, at the cost of a few cycles. */
static void test_cap(void **state)
{
	static const struct clip_event m[] = { { 500000, 0 } };        /* 0.5 ms into 1 ms */
	struct event_crossing out[256];
	struct event_span s = { m, 1, MS, LOOP_LOOP, 0, 1000000000 * S, true, false };
	uint32_t written;
	uint64_t total;

	(void)state;
	total = event_crossings_list(&s, out, 256, &written);
	assert_int_equal(total, 1000000000000ULL);
	assert_int_equal(written, 256);
	assert_int_equal(out[255].p_ns, 1000000000 * S - 500000);
	for (uint32_t i = 1; i < 256; i++)
		assert_int_equal(out[i].p_ns - out[i - 1].p_ns, MS);
	/* Backward: the last ones are the lowest. */
	s.from_ns = 1000000000 * S;
	s.to_ns = 0;
	s.forward = false;
	total = event_crossings_list(&s, out, 256, &written);
	assert_int_equal(total, 1000000000000ULL);
	assert_int_equal(written, 256);
	assert_int_equal(out[255].p_ns, 500000);
	assert_int_equal(out[0].p_ns, 500000 + 255 * MS);
	/* A pingpong's cycle is 2D with two passes of each inner moment. */
	s.loop = LOOP_PINGPONG;
	s.forward = true;
	s.from_ns = 0;
	s.to_ns = 1000 * S;
	total = event_crossings_list(&s, out, 256, &written);
	assert_int_equal(total, 1000000);
	assert_int_equal(written, 256);
	assert_int_equal(out[255].p_ns, 1000 * S - 500000);
	assert_int_equal(out[254].p_ns, 1000 * S - 2 * MS + 500000);
	/* Fewer than the cap: all of them; a cap of 0 counts only. */
	s.to_ns = 10 * MS;
	assert_int_equal(event_crossings_list(&s, out, 256, &written), 10);
	assert_int_equal(written, 10);
	assert_int_equal(event_crossings_list(&s, out, 0, &written), 10);
	assert_int_equal(written, 0);
}

/* Positions near the ends of int64 (a playback time saturates there). */
static void test_huge_positions(void **state)
{
	struct event_crossing out[4];
	struct event_span s = { two, 2, S, LOOP_LOOP, INT64_MAX - 3 * S, INT64_MAX, true, false };
	uint32_t written;
	int64_t p;

	(void)state;
	assert_int_equal(event_crossings_list(&s, out, 4, &written), 6);
	assert_int_equal(written, 4);
	for (uint32_t i = 1; i < 4; i++)
		assert_true(out[i].p_ns > out[i - 1].p_ns);
	assert_true(event_crossings_next(&s, &p));
	assert_true(p > s.from_ns);
	s.from_ns = INT64_MIN + S;
	s.to_ns = INT64_MIN;
	s.forward = false;
	assert_int_equal(event_crossings_list(&s, out, 4, &written), 2);
	s.from_ns = INT64_MAX;
	s.forward = true;
	assert_false(event_crossings_next(&s, &p) && p < s.from_ns);
}

static void test_next(void **state)
{
	static const struct clip_event pp[] = { { 250 * MS, 0 } };
	struct event_span s = { two, 2, S, LOOP_LOOP, 300 * MS, 0, true, false };
	int64_t p;

	(void)state;
	assert_true(event_crossings_next(&s, &p));
	assert_int_equal(p, 750 * MS);
	s.from_ns = 750 * MS;
	assert_true(event_crossings_next(&s, &p));
	assert_int_equal(p, 1250 * MS);
	s.from_inclusive = true;
	assert_true(event_crossings_next(&s, &p));
	assert_int_equal(p, 750 * MS);
	s.from_inclusive = false;
	s.forward = false;
	assert_true(event_crossings_next(&s, &p));
	assert_int_equal(p, 250 * MS);
	s.from_ns = -5100 * MS;
	assert_true(event_crossings_next(&s, &p));
	assert_int_equal(p, -5250 * MS);
	s.loop = LOOP_ONCE;
	assert_false(event_crossings_next(&s, &p));
	s.forward = true;
	assert_true(event_crossings_next(&s, &p));
	assert_int_equal(p, 250 * MS);
	s.from_ns = 800 * MS;
	assert_false(event_crossings_next(&s, &p));
	s.moments = pp;
	s.count = 1;
	s.loop = LOOP_PINGPONG;
	s.from_ns = 1100 * MS;
	assert_true(event_crossings_next(&s, &p));
	assert_int_equal(p, 1750 * MS);
	s.forward = false;
	assert_true(event_crossings_next(&s, &p));
	assert_int_equal(p, 250 * MS);
}

/* ---- against the definition -------------------------------------------- */

struct occ {
	int64_t p;
	int64_t seg;
	int64_t ord;                    /* order inside its segment */
	uint32_t moment;
};

static int occ_cmp(const void *a, const void *b)
{
	const struct occ *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	if (x->seg != y->seg)
		return x->seg < y->seg ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Every occurrence of the definition around the span, filtered and
 * ordered as travel passes them. */
static size_t reference(const struct event_span *s, struct occ *o)
{
	int64_t d = s->duration_ns;
	int64_t lo = s->from_ns < s->to_ns ? s->from_ns : s->to_ns;
	int64_t hi = s->from_ns < s->to_ns ? s->to_ns : s->from_ns;
	int64_t kmin = (lo - 2 * d) / d - 2, kmax = hi / d + 2;
	size_t n = 0, k = 0;

	for (int64_t seg = kmin; seg <= kmax; seg++)
		for (uint32_t r = 0; r < s->count; r++) {
			int64_t t = s->moments[r].t_ns, p;

			if (t < 0 || t > d)
				continue;
			if (s->loop == LOOP_ONCE) {
				if (seg != 0)
					continue;
				o[n++] = (struct occ){ t, 0, r, r };
			} else if (s->loop == LOOP_LOOP) {
				o[n++] = (struct occ){ t + seg * d, seg, r, r };
			} else if ((seg & 1) == 0) {
				o[n++] = (struct occ){ t + seg * d, seg, r, r };
			} else if (t > 0 && t < d) {
				p = (seg + 1) * d - t;
				o[n++] = (struct occ){ p, seg, -(int64_t)r, r };
			}
		}
	for (size_t i = 0; i < n; i++) {
		bool in = s->forward
			? (o[i].p > s->from_ns || (s->from_inclusive && o[i].p == s->from_ns)) &&
			  o[i].p <= s->to_ns
			: (o[i].p < s->from_ns || (s->from_inclusive && o[i].p == s->from_ns)) &&
			  o[i].p >= s->to_ns;

		if (in)
			o[k++] = o[i];
	}
	qsort(o, k, sizeof *o, occ_cmp);
	if (!s->forward)
		for (size_t i = 0; i < k / 2; i++) {
			struct occ tmp = o[i];

			o[i] = o[k - 1 - i];
			o[k - 1 - i] = tmp;
		}
	return k;
}

static uint32_t rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static void test_against_definition(void **state)
{
	static struct occ want[8192];
	struct event_crossing got[8192];
	struct clip_event m[6];
	uint32_t x = 12345;

	(void)state;
	for (int iter = 0; iter < 4000; iter++) {
		int64_t d = 1 + rnd(&x) % 8;                    /* a tiny D: many cycles */
		uint32_t n = 1 + rnd(&x) % 6, written, cap;
		struct event_span s = { m, n, d, (enum loop_mode)(rnd(&x) % 3), 0, 0, rnd(&x) & 1,
					rnd(&x) & 1 };
		uint64_t total;
		size_t nw;

		for (uint32_t i = 0; i < n; i++)
			m[i] = (struct clip_event){ (int64_t)(rnd(&x) % (uint32_t)(d + 3)) - 1,
						    rnd(&x) % 4 };
		for (uint32_t i = 1; i < n; i++)        /* ordered by time, ties by event */
			for (uint32_t j = i; j > 0 && (m[j].t_ns < m[j - 1].t_ns ||
				(m[j].t_ns == m[j - 1].t_ns && m[j].event < m[j - 1].event)); j--) {
				struct clip_event t = m[j];

				m[j] = m[j - 1];
				m[j - 1] = t;
			}
		s.from_ns = (int64_t)(rnd(&x) % 80) - 40;
		s.to_ns = s.forward ? s.from_ns + rnd(&x) % 60 : s.from_ns - rnd(&x) % 60;
		nw = reference(&s, want);
		cap = rnd(&x) % 4 == 0 ? rnd(&x) % 8 : 8192;
		total = event_crossings_list(&s, got, cap, &written);
		if (total != nw)
			fail_msg("iteration %d: %llu crossings, the definition %zu", iter,
				 (unsigned long long)total, nw);
		assert_int_equal(written, nw < cap ? nw : cap);
		for (uint32_t i = 0; i < written; i++) {
			const struct occ *w = &want[nw - written + i];

			if (got[i].p_ns != w->p || got[i].moment != w->moment)
				fail_msg("iteration %d crossing %u: got %lld/%u, want %lld/%u", iter, i,
					 (long long)got[i].p_ns, got[i].moment, (long long)w->p,
					 w->moment);
		}
		if (nw > 0) {
			int64_t p;

			assert_true(event_crossings_next(&s, &p));
			assert_int_equal(p, want[0].p);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loop_wrap),
		cmocka_unit_test(test_loop_seam),
		cmocka_unit_test(test_once),
		cmocka_unit_test(test_pingpong),
		cmocka_unit_test(test_simultaneous),
		cmocka_unit_test(test_negative_speed),
		cmocka_unit_test(test_zero_length),
		cmocka_unit_test(test_outside_never),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_huge_positions),
		cmocka_unit_test(test_next),
		cmocka_unit_test(test_against_definition),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
