#include "daemon/anim/event_crossings.h"

__extension__ typedef __int128 i128;

/* floor(a / b) for b > 0. */
static i128 ec_floor_div(i128 a, i128 b)
{
	i128 q = a / b;

	return a % b != 0 && a < 0 ? q - 1 : q;
}

/*
 * The span seen forward.  Travel backward over p is travel forward over
 * q = D - p, where the moments are the clip's in reverse order at D - t:
 * one walk serves both directions, and backward comes out as the exact
 * reverse of forward.  Occurrences q with a < q <= b are passed.
 */
struct ec_view {
	const struct event_span *s;
	i128 d;
	i128 a, b;
	uint32_t first, end;            /* the ranks whose moments lie in [0, D] */
};

/* Rank r's clip time, in the view. */
static i128 ec_t(const struct event_span *s, uint32_t r)
{
	if (s->forward)
		return s->moments[r].t_ns;
	return (i128)s->duration_ns - s->moments[s->count - 1 - r].t_ns;
}

/* The first rank whose time is >= v (> v when `after`): times ascend. */
static uint32_t ec_rank(const struct event_span *s, i128 v, bool after)
{
	uint32_t lo = 0, hi = s->count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		i128 t = ec_t(s, mid);

		if (after ? t <= v : t < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void ec_view_init(struct ec_view *v, const struct event_span *s)
{
	i128 from = s->forward ? (i128)s->from_ns : (i128)s->duration_ns - s->from_ns;
	i128 to = s->forward ? (i128)s->to_ns : (i128)s->duration_ns - s->to_ns;

	v->s = s;
	v->d = s->duration_ns;
	v->a = from - (s->from_inclusive ? 1 : 0);
	v->b = to;
	v->first = ec_rank(s, 0, false);
	v->end = ec_rank(s, v->d, true);
	if (v->end < v->first)
		v->end = v->first;
}

/* Occurrences of the progression c + kP (every integer k) in (a, b]. */
static i128 ec_count(i128 c, i128 period, i128 a, i128 b)
{
	return ec_floor_div(b - c, period) - ec_floor_div(a - c, period);
}

/* Whether a pingpong's return passes rank r's moment: not at a turning
 * point, which the way forward passed already. */
static bool ec_returns(const struct ec_view *v, i128 t)
{
	return t > 0 && t < v->d;
}

static i128 ec_total(const struct ec_view *v)
{
	i128 n = 0;

	if (v->b <= v->a)
		return 0;
	for (uint32_t r = v->first; r < v->end; r++) {
		i128 t = ec_t(v->s, r);

		switch (v->s->loop) {
		case LOOP_ONCE:
			n += v->a < t && t <= v->b;
			break;
		case LOOP_PINGPONG:
			n += ec_count(t, 2 * v->d, v->a, v->b);
			if (ec_returns(v, t))
				n += ec_count(2 * v->d - t, 2 * v->d, v->a, v->b);
			break;
		case LOOP_LOOP:
		default:
			n += ec_count(t, v->d, v->a, v->b);
			break;
		}
	}
	return n;
}

/* Where the list goes: the first `skip` occurrences met are passed over,
 * the rest written until `max`. */
struct ec_out {
	const struct ec_view *v;
	struct event_crossing *out;
	uint32_t max, n;
	i128 skip;
};

static void ec_emit(struct ec_out *o, i128 q, uint32_t r)
{
	const struct event_span *s = o->v->s;

	if (o->skip > 0) {
		o->skip--;
		return;
	}
	if (o->n >= o->max)
		return;
	o->out[o->n].p_ns = (int64_t)(s->forward ? q : (i128)s->duration_ns - q);
	o->out[o->n].moment = s->forward ? r : s->count - 1 - r;
	o->n++;
}

/* Loop and pingpong: segment k is [kD, (k+1)D] of the view; the moments
 * go up it in a loop and in a pingpong's even segments, down it in the
 * odd ones. */
static void ec_walk_cycles(struct ec_out *o)
{
	const struct ec_view *v = o->v;
	bool pingpong = v->s->loop == LOOP_PINGPONG;

	for (i128 k = ec_floor_div(v->a, v->d); k * v->d <= v->b && o->n < o->max; k++) {
		i128 base = k * v->d;

		if (!pingpong || (k & 1) == 0) {
			for (uint32_t r = v->first; r < v->end; r++) {
				i128 q = base + ec_t(v->s, r);

				if (q > v->b)
					break;
				if (q > v->a)
					ec_emit(o, q, r);
			}
		} else {
			for (uint32_t r = v->end; r-- > v->first;) {
				i128 t = ec_t(v->s, r), q = base + v->d - t;

				if (!ec_returns(v, t))
					continue;
				if (q > v->b)
					break;
				if (q > v->a)
					ec_emit(o, q, r);
			}
		}
	}
}

uint64_t event_crossings_list(const struct event_span *s, struct event_crossing *out,
			      uint32_t max, uint32_t *written)
{
	struct ec_view v;
	struct ec_out o = { .v = &v, .out = out, .max = max };
	i128 total;

	*written = 0;
	if (s->count == 0 || s->duration_ns < 0)
		return 0;
	ec_view_init(&v, s);
	if (s->duration_ns == 0) {
		/* No timeline: the moments at 0 happen once, at the start. */
		if (!s->from_inclusive)
			return 0;
		total = v.end - v.first;
		o.skip = total > max ? total - max : 0;
		for (uint32_t r = v.first; r < v.end; r++)
			ec_emit(&o, v.a + 1, r);        /* from, in the view */
		*written = o.n;
		return (uint64_t)total;
	}
	total = ec_total(&v);
	if (total == 0)
		return 0;
	o.skip = total > max ? total - max : 0;
	if (s->loop == LOOP_ONCE) {
		for (uint32_t r = v.first; r < v.end; r++) {
			i128 t = ec_t(s, r);

			if (v.a < t && t <= v.b)
				ec_emit(&o, t, r);
		}
	} else {
		/* Every whole cycle (D in a loop, 2D in a pingpong) of the view
		 * holds the same number of occurrences: skip whole cycles at
		 * once, so a span of a billion cycles costs what one does. */
		i128 period = s->loop == LOOP_PINGPONG ? 2 * v.d : v.d, per = 0;

		for (uint32_t r = v.first; r < v.end; r++)
			per += s->loop == LOOP_PINGPONG && ec_returns(&v, ec_t(s, r)) ? 2 : 1;
		if (o.skip >= per) {
			i128 cycles = o.skip / per;

			v.a += cycles * period;
			o.skip -= cycles * per;
		}
		ec_walk_cycles(&o);
	}
	*written = o.n;
	return total > (i128)UINT64_MAX ? UINT64_MAX : (uint64_t)total;
}

bool event_crossings_next(const struct event_span *s, int64_t *p_ns)
{
	struct ec_view v;
	i128 best = 0, p;
	bool found = false;

	if (s->count == 0 || s->duration_ns < 0)
		return false;
	ec_view_init(&v, s);
	if (s->duration_ns == 0) {
		if (!s->from_inclusive || v.end == v.first)
			return false;
		*p_ns = s->from_ns;
		return true;
	}
	for (uint32_t r = v.first; r < v.end; r++) {
		i128 t = ec_t(s, r), q[2];
		int n = 0;

		switch (s->loop) {
		case LOOP_ONCE:
			if (t > v.a)
				q[n++] = t;
			break;
		case LOOP_PINGPONG:
			q[n++] = t + (ec_floor_div(v.a - t, 2 * v.d) + 1) * 2 * v.d;
			if (ec_returns(&v, t))
				q[n++] = 2 * v.d - t +
					 (ec_floor_div(v.a - (2 * v.d - t), 2 * v.d) + 1) * 2 * v.d;
			break;
		case LOOP_LOOP:
		default:
			q[n++] = t + (ec_floor_div(v.a - t, v.d) + 1) * v.d;
			break;
		}
		for (int i = 0; i < n; i++)
			if (!found || q[i] < best) {
				best = q[i];
				found = true;
			}
	}
	if (!found)
		return false;
	p = s->forward ? best : v.d - best;
	if (p > (i128)INT64_MAX || p < (i128)INT64_MIN)
		return false;           /* beyond any playback time */
	*p_ns = (int64_t)p;
	return true;
}
