/*
 * playback.h - the clock of one playing instance: play, pause, resume,
 * seek and speed changes, in exact nanoseconds.
 *
 * Playback time is anchored: at clock `anchor_clock` it was `anchor_time`,
 * and it advances at `speed` while playing.  Every change re-anchors at
 * the moment it happens, so nothing drifts however long an instance runs.
 * At speed 1 (and -1) the arithmetic is exact integers; other speeds use a
 * double product that stays well under a nanosecond for months.
 * Pure: the caller supplies the clock (a steady, monotonic one).
 */
#ifndef ANIMD_PLAYBACK_H
#define ANIMD_PLAYBACK_H

#include <stdint.h>

struct playback {
	int64_t anchor_clock_ns;
	int64_t anchor_time_ns;
	double speed;           /* may be negative or zero */
	int playing;
};

void playback_start(struct playback *p, int64_t now_ns, int64_t start_ns, double speed);
/* Playback time at clock `now_ns` (frozen while paused). */
int64_t playback_time(const struct playback *p, int64_t now_ns);
void playback_pause(struct playback *p, int64_t now_ns);
void playback_resume(struct playback *p, int64_t now_ns);
void playback_seek(struct playback *p, int64_t now_ns, int64_t time_ns);
void playback_set_speed(struct playback *p, int64_t now_ns, double speed);

/* Clock time at which playback time reaches `time_ns`, or INT64_MAX if it
 * never will (paused, zero speed, or moving away from it).  Used to
 * schedule the `ended` event of a clip played once. */
int64_t playback_clock_at(const struct playback *p, int64_t time_ns);

#endif
