/*
 * streams.h - shared-memory pose streams (proto/animd_shm.h, PROTOCOL.md section 13).
 *
 * A stream is a sealed memfd the daemon maps read-write and hands to its
 * client as a read-only descriptor.  Each playing instance attached to a
 * stream owns one channel; the stream's tick publishes every attached
 * instance at the stream's rate on a steady clock (deadlines are absolute,
 * so nothing drifts), and any change to an instance (play, seek, pause,
 * resume, speed, a reload) publishes it at once.  The daemon never waits
 * for a reader.  Publishing is allocation-free.
 */
#ifndef ANIMD_STREAMS_H
#define ANIMD_STREAMS_H

#include <stdint.h>

#include <uv.h>

#include "daemon/assets/sampling.h"
#include "daemon/service/playback/owner.h"
#include "proto/animd_shm.h"

struct stream;
struct streams;
struct instance;
struct workers;

struct stream_params {
	enum sample_space space;
	uint32_t rate_hz;               /* 0: publish on changes only */
	uint32_t channels;
	uint32_t max_elements;
	uint32_t depth;
	int normals;                    /* vertices: each with its normal */
};

/* Every stream of the daemon: big ticks are spread over `workers` (may be
 * NULL), headers carry `epoch` (random per run).  0 or -ENOMEM. */
int streams_new(uv_loop_t *loop, struct workers *workers, uint64_t epoch, struct streams **out);
/* Free the registry; every stream must be closed (streams_close_all) and
 * the loop run until their handles are closed. */
void streams_free(struct streams *reg);

/* Create a stream owned by `owner`.  On success *ro_fd is a new read-only
 * descriptor for the client (the caller sends, then closes it).  0, or a
 * negative errno with a reason in err: -EINVAL for parameters no layout
 * has, -EDQUOT when the region would pass the streams' budget
 * (stream_budget.h), -ENOMEM. */
int stream_open(struct streams *reg, struct playback_owner *owner, const struct stream_params *p,
		struct stream **out, int *ro_fd, char *err, size_t errlen);
/* Mark it closed for readers, detach its instances, free it. */
void stream_close(struct stream *st);
/* The owner's stream with this id, or NULL. */
struct stream *stream_find(struct streams *reg, const struct playback_owner *owner, uint64_t id);
/* Close every stream an owner has. */
void streams_end_owner(struct streams *reg, struct playback_owner *owner);
/* Daemon shutdown: every stream is marked closed and freed. */
void streams_close_all(struct streams *reg);
/* Streams open across every owner (status). */
uint32_t streams_count(const struct streams *reg);
/* The bytes of their shared-memory regions (each its memfd's size, the
 * header's region_bytes), for status. */
uint64_t streams_region_bytes(const struct streams *reg);
/* The budget of those bytes ([streams] max_total_bytes, resolved): at
 * start-up and when a reload changes it; `origin` is the setting as
 * refusals name it ("[streams] max_total_bytes = 1 GiB").  Until it is
 * first set there is none (UINT64_MAX). */
void streams_set_budget(struct streams *reg, uint64_t limit, const char *origin);
uint64_t streams_budget(const struct streams *reg);

/* What a stream has done, for `stats`: ticks and the poses they
 * published, the CPU time they took (CLOCK_THREAD_CPUTIME_ID around each
 * part of each tick, on whichever thread ran it: per tick, not per pose),
 * and the rate achieved. */
struct stream_stats {
	uint64_t id;
	const struct playback_owner *owner;
	enum sample_space space;
	uint32_t rate_hz;               /* asked for; 0: on changes only */
	uint32_t channels;
	uint32_t attached;              /* instances publishing now */
	uint64_t region_bytes;
	uint64_t ticks;
	uint64_t late_ticks;            /* run after their deadline (tick_deadline.h) */
	uint64_t skipped_ticks;         /* deadlines passed over, a period or more behind */
	uint64_t tick_poses;            /* poses published by ticks */
	uint64_t shared_poses;          /* of those, copies of the pose before (in step) */
	uint64_t change_poses;          /* poses published at once by a change */
	uint64_t cpu_ns;                /* CPU time of every tick */
	double tick_rate;               /* ticks per second, over the last second or so */
	uint32_t tick_threads;          /* the last tick ran on (0 before the first) */
};

/* Every open stream, in no particular order: for (st = streams_first(reg);
 * st; st = stream_next(st)). */
const struct stream *streams_first(const struct streams *reg);
const struct stream *stream_next(const struct stream *st);
void stream_get_stats(const struct stream *st, struct stream_stats *out);

uint64_t stream_id(const struct stream *st);
const struct animd_shm_header *stream_header(const struct stream *st);

/* Can this instance publish into this stream (space, sizes)?  0, or
 * -EOPNOTSUPP (wrong kind of asset for the space) / -E2BIG with a reason.  Then attach: a free channel is taken
 * (-ENOSPC when none) and the pose published at once. */
int stream_check(const struct stream *st, const struct instance *in, char *err, size_t errlen);
/* stream_check, then make room for the instance's pose (its skeleton,
 * emitters and attachment points): at attach time and when a reload swaps a new version in.
 * 0, its errors, or -ENOMEM. */
int stream_fit(struct stream *st, const struct instance *in, char *err, size_t errlen);
int stream_attach(struct stream *st, struct instance *in, char *err, size_t errlen);
/* The instance stops publishing (its channel is freed). */
void stream_detach(struct instance *in);
/* The instance changed: publish it now (no-op when not attached). */
void stream_publish_now(struct instance *in);

#endif
