/*
 * tick_deadline.h - when a stream's next tick runs.  Deadlines lie on an
 * absolute grid of the period, so the rate does not drift with what each
 * tick costs.  A tick that ends past the next deadline makes that tick
 * late, not lost: it runs as soon as the loop has polled its sockets once,
 * without waiting, and the ticks after it keep their deadlines, so a tick that overran a
 * little is made up by the faster ones that follow.  Deadlines a whole
 * period or more in the past (a stall, or ticks that keep costing more
 * than the period) are passed over, never run one after another to
 * catch up.
 */
#ifndef ANIMD_TICK_DEADLINE_H
#define ANIMD_TICK_DEADLINE_H

#include <stdint.h>

struct tick_deadline {
	int64_t period_ns;
	int64_t next_ns;                /* the next tick's deadline */
	uint64_t late;                  /* ticks run after their deadline had passed */
	uint64_t skipped;               /* deadlines passed over */
};

/* The first tick's deadline a period after `now`. */
void tick_deadline_start(struct tick_deadline *d, int64_t now, int64_t period_ns);

/* A tick ended at `now`: move to the next deadline and return how long
 * to wait for it, in whole milliseconds (the loop's timers), rounded up;
 * 0 when it has passed: the next tick is late and runs now, once the
 * loop has polled its sockets. */
uint64_t tick_deadline_after_tick(struct tick_deadline *d, int64_t now);

#endif
