#include "daemon/service/playback/cues.h"

#include <math.h>

#include "daemon/anim/event_crossings.h"
#include "daemon/service/base/clock.h"
#include "daemon/service/playback/instances.h"

__extension__ typedef __int128 i128;

/* Does the instance report crossings now? */
static bool cues_wanted(const struct instance *in)
{
	return in->clip != NULL && in->clip->event_count > 0 && !in->cues_off &&
	       in->owner->clip_events && !in->destroyed && !in->stopped;
}

static int64_t cues_sat(i128 v)
{
	return v > (i128)INT64_MAX ? INT64_MAX : v < (i128)INT64_MIN ? INT64_MIN : (int64_t)v;
}

/*
 * The clock time at which playback time reaches p: the clock's anchor for
 * its own position, exact integers at speed 1 and -1, else the first
 * nanosecond of the double quotient (as playback_clock_at).  p may lie
 * before the anchor (play's "at" in the future).  INT64_MAX when the clock
 * never gets there (paused, holding).
 */
static int64_t cues_clock_at(const struct playback *c, int64_t p)
{
	i128 d = (i128)p - c->anchor_time_ns;
	double dt;

	if (d == 0)
		return c->anchor_clock_ns;
	if (!c->playing || c->speed == 0.0)
		return INT64_MAX;
	if (c->speed == 1.0)
		return cues_sat(c->anchor_clock_ns + d);
	if (c->speed == -1.0)
		return cues_sat(c->anchor_clock_ns - d);
	dt = ceil((double)d / c->speed);
	if (!(fabs(dt) < 9.2e18))
		return INT64_MAX;
	return cues_sat((i128)c->anchor_clock_ns + (i128)dt);
}

/* The end of a cross-fade of play that is over by `until` but not yet the
 * base (its timer has not run): the base clip is the old one only until
 * then.  `until` when there is none. */
static int64_t cues_until(const struct instance *in, int64_t until)
{
	for (uint32_t i = 0; i < in->fade_count; i++) {
		const struct layer *l = in->layers[i];

		if (l->mode == LAYER_FADE && l->fading && l->fade_end_ns < until)
			until = l->fade_end_ns;
	}
	return until;
}

static void cues_span(const struct instance *in, const struct instance_cues *c,
		      struct event_span *s)
{
	*s = (struct event_span){
		.moments = in->clip->events,
		.count = in->clip->event_count,
		.duration_ns = in->clip->duration_ns,
		.loop = in->loop,
		.from_ns = c->pos_ns,
		.to_ns = c->pos_ns,
		.forward = in->clock.speed >= 0,
		.from_inclusive = c->inclusive,
	};
}

void cues_flush(struct instance *in, int64_t until_ns)
{
	struct instance_cues *c = in->cues;
	struct event_crossing list[CUES_MAX_BURST];
	struct event_span s;
	uint64_t total;
	uint32_t n;

	if (c == NULL || !c->live || !cues_wanted(in))
		return;
	cues_span(in, c, &s);
	s.to_ns = playback_time(&in->clock, cues_until(in, until_ns));
	total = event_crossings_list(&s, list, CUES_MAX_BURST, &n);
	c->pos_ns = s.to_ns;
	c->inclusive = false;
	if (total > n)
		c->missed = total - n > UINT64_MAX - c->missed ? UINT64_MAX : c->missed + (total - n);
	for (uint32_t i = 0; i < n; i++) {
		struct cue cue = {
			.moment = &in->clip->events[list[i].moment],
			.playback_ns = list[i].p_ns,
			.at_ns = cues_clock_at(&in->clock, list[i].p_ns),
			.forward = s.forward,
			.missed = c->missed,
		};

		c->missed = 0;
		instances_report_cue(in, &cue);
		if (in->destroyed)
			return;
	}
}

static void cues_schedule(struct instance *in, uint64_t min_ms);

static void cues_fired(uv_timer_t *timer)
{
	struct instance *in = timer->data;
	int64_t now = clock_now_ns(), until = cues_until(in, now);

	cues_flush(in, until);
	/* Past a cross-fade's end, the fade timer makes it the base and
	 * begins its clip's reports: nothing to arm before.  Otherwise a
	 * millisecond at least: crossings that came due while these were
	 * sent (extreme speeds) wait for the loop to have polled its sockets,
	 * never a firing after firing in one turn of it. */
	if (!in->destroyed && until == now)
		cues_schedule(in, 1);
}

/* Report from the clock's position at at_ns on. */
static void cues_start(struct instance *in, int64_t at_ns, bool inclusive)
{
	struct instance_cues *c;

	if (cues_wanted(in) && (c = instance_cues_make(in)) != NULL) {
		c->pos_ns = playback_time(&in->clock, at_ns);
		c->inclusive = inclusive;
		c->live = true;
	}
	cues_arm(in);
}

void cues_begin(struct instance *in, int64_t at_ns)
{
	cues_start(in, at_ns, true);
}

void cues_jump(struct instance *in, int64_t at_ns)
{
	cues_start(in, at_ns, false);
}

void cues_arm(struct instance *in)
{
	cues_schedule(in, 0);
}

static void cues_schedule(struct instance *in, uint64_t min_ms)
{
	struct instance_cues *c = in->cues;
	struct event_span s;
	int64_t p, at, now;
	uint64_t ms;

	if (!cues_wanted(in)) {
		if (c != NULL) {
			uv_timer_stop(&c->timer);
			c->live = false;
		}
		return;
	}
	if (c == NULL && (c = instance_cues_make(in)) == NULL)
		return;         /* out of memory: the instance plays on, unreported */
	uv_timer_stop(&c->timer);
	now = clock_now_ns();
	if (!c->live) {
		c->pos_ns = playback_time(&in->clock, now);
		c->inclusive = false;
		c->live = true;
	}
	cues_span(in, c, &s);
	if (!event_crossings_next(&s, &p))
		return;
	at = cues_clock_at(&in->clock, p);
	if (at == INT64_MAX)
		return;
	ms = at <= now ? 0 : ((uint64_t)(at - now) + 999999) / 1000000;
	uv_timer_start(&c->timer, cues_fired, ms > min_ms ? ms : min_ms, 0);
}
