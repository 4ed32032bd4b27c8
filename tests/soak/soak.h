/*
 * soak.h - what the soak driver (soak.c) shares with the processes it
 * forks: the run's settings, and one block of counters per process in a
 * shared anonymous mapping.  Each block is written by its one process and
 * read by the driver only after waitpid() has reaped that process, so the
 * counters need no atomics: the reap orders every write before the read.
 */
#ifndef ANIMD_SOAK_H
#define ANIMD_SOAK_H

#include <stdint.h>
#include <sys/types.h>

#define SOAK_MAX_CLIENTS 56     /* the daemon allows 64 connections; the driver has one */
#define SOAK_FAIL_MSGS 4        /* failure messages kept per process (all are counted) */

/* What a request was sent as: a method, or a kind of deliberate abuse. */
enum soak_kind {
	SOAK_HELLO,
	SOAK_STATUS,
	SOAK_ASSETS_LIST,
	SOAK_ASSETS_INFO,
	SOAK_ASSETS_RELOAD,
	SOAK_PLAY,
	SOAK_PLAY_STREAM,
	SOAK_PAUSE,
	SOAK_RESUME,
	SOAK_SEEK,
	SOAK_SPEED,
	SOAK_STOP,
	SOAK_INSTANCES_LIST,
	SOAK_SAMPLE,
	SOAK_SUBSCRIBE,
	SOAK_STREAM_OPEN,
	SOAK_STREAM_CLOSE,
	SOAK_BAD_ARGS,          /* a real method, arguments of the wrong type or range */
	SOAK_UNKNOWN_METHOD,
	SOAK_UNKNOWN_NAME,      /* an asset, instance or stream that does not exist */
	SOAK_UNSUITED,          /* a valid request the asset cannot serve (a space, a mesh) */
	SOAK_BAD_SHAPE,         /* a readable msgid but a malformed envelope: answered, carry on */
	SOAK_VIOLATION,         /* a fatal protocol violation: an error reply, then a disconnect */
	SOAK_KIND_COUNT
};

/* Error codes of PROTOCOL.md section 6, and one for any other. */
enum soak_code {
	SOAK_CODE_BAD_REQUEST,
	SOAK_CODE_UNKNOWN_METHOD,
	SOAK_CODE_NOT_FOUND,
	SOAK_CODE_LIMIT,
	SOAK_CODE_ASSET_ERROR,
	SOAK_CODE_UNSUPPORTED,
	SOAK_CODE_SHUTTING_DOWN,
	SOAK_CODE_INTERNAL,
	SOAK_CODE_OTHER,
	SOAK_CODE_COUNT
};

enum soak_event {
	SOAK_EV_LOADED,
	SOAK_EV_RELOADED,
	SOAK_EV_ERROR,
	SOAK_EV_REMOVED,
	SOAK_EV_ENDED,
	SOAK_EV_STOPPED,
	SOAK_EV_STOPPING,
	SOAK_EV_OTHER,
	SOAK_EV_COUNT
};

/* How the rewriter saved a file. */
enum soak_save {
	SOAK_SAVE_IN_PLACE,
	SOAK_SAVE_SLOW,         /* in place, in pieces with pauses shorter than the quiet period */
	SOAK_SAVE_RENAME,
	SOAK_SAVE_RECREATE,     /* delete, then create again at once */
	SOAK_SAVE_REMOVE,       /* delete, wait past the quiet period, then create */
	SOAK_SAVE_COUNT
};

struct soak_stats {
	uint64_t sent[SOAK_KIND_COUNT];
	uint64_t answered[SOAK_KIND_COUNT];
	uint64_t errors[SOAK_KIND_COUNT];       /* answered with an error (expected ones too) */
	uint64_t codes[SOAK_KIND_COUNT][SOAK_CODE_COUNT];       /* the errors by code */
	uint64_t events[SOAK_EV_COUNT];
	uint64_t strays;                        /* objects that were neither reply nor event */
	uint64_t events_dropped;                /* by the client's own queue, not the daemon */
	uint64_t sessions, bursts, abrupt_closes, notifications;
	uint64_t abandoned;                     /* outstanding when the client chose to hang up */
	uint64_t lost;                          /* outstanding when the connection failed */
	uint64_t streams_mapped, poses_read, torn, nonfinite, read_retries, read_lapped;
	uint64_t saves_good, saves_broken, saves[SOAK_SAVE_COUNT], dir_toggles;
	uint64_t odd_names, dir_swaps;          /* the rewriter's name and folder cycles */
	uint64_t failures;
	char fail[SOAK_FAIL_MSGS][256];
};

struct soak_config {
	int seconds;
	int clients;
	int reply_timeout_ms;
	uint64_t seed;
	const char *socket;
	const char *assets;     /* the daemon's asset root */
	int64_t deadline_ns;    /* CLOCK_MONOTONIC: when clients and the rewriter stop */
};

/* soak_stats.c: record a failure (kept for the driver to print); add one
 * process's counters into a total; names for the report. */
void soak_stats_fail(struct soak_stats *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void soak_stats_add(struct soak_stats *total, const struct soak_stats *one);
const char *soak_stats_kind_name(enum soak_kind k);
const char *soak_stats_event_name(enum soak_event e);
const char *soak_stats_save_name(enum soak_save s);
const char *soak_stats_code_name(enum soak_code c);
/* The error code string's index, SOAK_CODE_OTHER when unknown. */
enum soak_code soak_stats_code_of(const char *code);
/* The event type string's index, SOAK_EV_OTHER when unknown. */
enum soak_event soak_stats_event_of(const char *type);

/* soak_clock.c */
int64_t soak_clock_now_ns(void);
void soak_clock_sleep_ms(int ms);

/* The forked processes: they return their exit status (0, or 1 after a
 * failure they recorded). */
struct soak_variants;
int soak_client_main(const struct soak_config *cfg, struct soak_stats *st, uint64_t seed);
int soak_rewriter_main(const struct soak_config *cfg, struct soak_stats *st, uint64_t seed,
		       const struct soak_variants *v);

/* The folder the rewriter replaces under its name, and its one asset (a
 * camera: the type of SOAK_ASSET_TOGGLED, whose good version it holds). */
#define SOAK_SWAP_DIR "swap"
#define SOAK_SWAP_FILE "x.md5camera"
struct soak_blob;
struct soak_rand;
/* Replace SOAK_SWAP_DIR of root: a new folder renamed over it, or removed
 * and made again; either holds SOAK_SWAP_FILE with b.  0 or -errno. */
int soak_rewriter_swap(const char *root, const struct soak_blob *b, int by_rename,
		       struct soak_rand *r);

#endif
