/*
 * cues.h - an instance's clip.event notifications: each time its playback
 * passes a moment of its clip's events (clip.h's struct clip_event: an M2
 * footstep, a sound, a spell's impact), the instance reports it through
 * struct instance_events's clip_event, exactly once, with the daemon's
 * clock reading at which it was passed.
 *
 * No polling: one timer per instance, armed for the next crossing
 * (event_crossings_next; its clock time worked out in int64 nanoseconds on
 * the daemon's clock, as the end timer's) and re-armed at every change of
 * the clock.  The position reported up to is kept and each report covers
 * the travel since (event_crossings_list), so jitter, a late timer or a
 * re-arm never loses or repeats a crossing; before anything changes the
 * clock (pause, resume, seek, speed, a cut, a cross-fade's end, a reload's
 * rebind) the crossings due so far are reported under the clock that made
 * them.  A burst (extreme speeds, a loop that stalled) reports the latest
 * CUES_MAX_BURST crossings, the first of them carrying how many were
 * dropped since the last report (`missed`), and the position skips ahead.
 *
 * Only the base clip is reported (in->clip): layers' clips, cross-fades
 * still under way included, are not.  An instance whose clip has no
 * events, that was played with events off, or whose owner does not listen
 * to clip.event, arms nothing and costs nothing (its record, struct
 * instance_cues, is made the first time it is needed); nothing of this is
 * on a stream tick's path.
 *
 * Loop thread only.  A report may end the instance (its owner's
 * connection closed on its output limit): callers check in->destroyed
 * after cues_flush.
 */
#ifndef ANIMD_CUES_H
#define ANIMD_CUES_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "daemon/anim/clip.h"

#define CUES_MAX_BURST 256u

struct instance;

/* The clip.event state of one instance (instances.c owns it and closes
 * its timer with the instance's). */
struct instance_cues {
	uv_timer_t timer;
	int64_t pos_ns;                 /* the playback position reported up to */
	uint64_t missed;                /* crossings dropped since the last report */
	bool inclusive;                 /* playback starts at pos: a crossing there is due */
	bool live;                      /* pos is kept (else the next arm starts afresh) */
};

/* One crossing, as reported. */
struct cue {
	const struct clip_event *moment;        /* in the instance's clip */
	int64_t playback_ns;            /* the playback time it was passed at */
	int64_t at_ns;                  /* the daemon's clock then (clock.h) */
	bool forward;                   /* playing forward (or holding, speed 0) */
	uint64_t missed;                /* dropped before it, since the last report */
};

/* Playback of the base clip starts (a new instance, a cut, a cross-fade
 * become the base) at clock time at_ns: report from its position then,
 * that position included; then arm. */
void cues_begin(struct instance *in, int64_t at_ns);
/* Report every crossing due by clock time until_ns under the clock as it
 * is (never past a cross-fade that has ended and not yet become the
 * base).  May end the instance. */
void cues_flush(struct instance *in, int64_t until_ns);
/* The clock was set at clock time at_ns (a seek): report from its
 * position then, that position excluded (nothing jumped over or landed
 * on is passed); then arm. */
void cues_jump(struct instance *in, int64_t at_ns);
/* (Re)arm after a change: of the clock, of the clip, or of whether the
 * instance reports at all (its owner's subscription, play's "events").
 * Starts reporting from the position now when it was not. */
void cues_arm(struct instance *in);

#endif
