/*
 * event_crossings.h - which moments of a clip's timeline (struct
 * clip_event: an M2 footstep, a sound, a spell's impact) playback passes
 * while its time moves from one position to another, in a loop mode: the
 * arithmetic under the clip.event notification, pure and exact.
 *
 * A moment at clip time t, 0 <= t <= D (D the clip's duration, > 0),
 * happens at these playback times:
 *   loop      t + kD, every integer k;
 *   once      t;
 *   pingpong  t + 2kD (going forward) and 2D - t + 2kD (coming back); at
 *             t = 0 and t = D the two are one turning point, passed once.
 * A moment outside [0, D] never happens (files hold such times).  A clip
 * of length 0 has no timeline: its moments at 0 happen once, when it
 * starts playing (from_inclusive), at its start position.
 *
 * Moving forward, playback passes the occurrences p with from < p <= to;
 * backward, those with to <= p < from; with from_inclusive (playback
 * starts at `from`), one at `from` itself counts too.  Order is the order
 * of travel: forward, simultaneous moments come in the clip's order (by
 * time, ties by event), the end of a loop before the start of the next,
 * and a pingpong's return in reverse; backward is exactly the reverse of
 * forward over the same span.
 *
 * Integer nanoseconds throughout, 128-bit where a product could overflow:
 * exact at any position, and the work is bounded by what is listed (at
 * most `max` crossings and the moments of a cycle), never by how many
 * cycles the span holds.  No allocation.
 */
#ifndef ANIMD_EVENT_CROSSINGS_H
#define ANIMD_EVENT_CROSSINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/anim/clip.h"

/* One occurrence passed. */
struct event_crossing {
	int64_t p_ns;                   /* the playback time it happens at */
	uint32_t moment;                /* its index in the moments (clip->events) */
};

/* A stretch of travel over a clip's moments. */
struct event_span {
	const struct clip_event *moments;       /* ordered by t_ns, ties by event (clip.h) */
	uint32_t count;
	int64_t duration_ns;            /* >= 0 */
	enum loop_mode loop;
	int64_t from_ns;                /* where travel starts (the last position reported) */
	int64_t to_ns;                  /* where it is now: >= from forward, <= from backward */
	bool forward;                   /* the direction of travel */
	bool from_inclusive;            /* playback starts at from: an occurrence there counts */
};

/*
 * The crossings of the span: returns how many there are (saturating at
 * UINT64_MAX) and writes the last min(that, max) of them, in order, into
 * out (*written of them).  A span whose `to` lies behind `from` for its
 * direction has none.
 */
uint64_t event_crossings_list(const struct event_span *s, struct event_crossing *out,
			      uint32_t max, uint32_t *written);

/*
 * The playback time of the first crossing from `from` on in the span's
 * direction (to_ns is not read): after from, or at it with
 * from_inclusive.  false when there is none (no moment in [0, D], a clip
 * played once that is past them all, a zero-length clip already started).
 */
bool event_crossings_next(const struct event_span *s, int64_t *p_ns);

#endif
