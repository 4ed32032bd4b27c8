/*
 * clock.h - the one clock of playback: CLOCK_MONOTONIC in nanoseconds.
 * Instances, streams and the daemon read it here, so that every time an
 * instance is evaluated at and every stamp a stream carries compare.
 */
#ifndef ANIMD_CLOCK_H
#define ANIMD_CLOCK_H

#include <stdint.h>

int64_t clock_now_ns(void);

#endif
