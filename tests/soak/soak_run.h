/*
 * soak_run.h - the driver's state for one run: the daemon, the driver's own
 * monitoring connection, the forked processes and their counters, and the
 * measurements the report prints.
 */
#ifndef ANIMD_SOAK_RUN_H
#define ANIMD_SOAK_RUN_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "tests/soak/soak.h"
#include "tests/soak/soak_log.h"
#include "tests/soak/soak_proc.h"
#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"

#define SOAK_REWRITER SOAK_MAX_CLIENTS   /* the rewriter's counter block */

struct soak_child {
	pid_t pid;
	int killed;             /* by the driver's SIGKILL */
	unsigned generation;
};

struct soak_run {
	struct soak_config cfg;
	int kill_ms;                    /* mean interval between SIGKILLs of a client */
	int san;                        /* the daemon runs under the sanitizers */
	int hold_s;                     /* keep the idle daemon this long before SIGTERM */
	const struct soak_variants *variants;
	struct daemon_proc d;
	struct rpc_client mon;          /* the driver's connection: status, asset events */
	struct soak_stats *shared;      /* SOAK_MAX_CLIENTS + 1 blocks, shared with the children */
	struct soak_child child[SOAK_MAX_CLIENTS + 1];

	struct soak_stats clients;      /* sums, as children are reaped */
	struct soak_stats rewriter;
	struct soak_stats monitor;      /* events the driver's connection saw */
	uint64_t started, killed;

	struct soak_proc_sample start, idle;
	struct soak_proc_sample *samples;       /* one a second during the load */
	size_t nsamples, capsamples, warm;      /* samples[0, warm) are the warm-up */
	int64_t t_begin_ns, t0_ns, t_load_end_ns;      /* the run, the load's start and end */
	int64_t requests_start, requests_end;   /* the daemon's own count (status) */
	uint64_t status_calls;
	double status_max_ms;

	int64_t streams_bytes;          /* status memory.streams, the last sample */
	uint64_t stream_limits;         /* stream.open answered limit (the budget) */
	int second_daemon;              /* 1 refused as it should be, -1 not, 0 not tried */
	double swap_seen_ms;            /* the final folder swap's edit seen after */

	int exit_status;                /* the daemon's, after SIGTERM; -1 unknown */
	double stop_ms;
	struct soak_log log;
	uint64_t failures;
	volatile sig_atomic_t interrupted;      /* SIGINT or SIGTERM to the driver */
};

/* Print a failed check and count it. */
void soak_run_fail(struct soak_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* status on the monitoring connection, its figures into *s (connections,
 * streams, instances) and the run (requests, round trip).  0 or -1 (a
 * failure is recorded). */
int soak_run_status(struct soak_run *run, struct soak_proc_sample *s);
/* Count the events the monitoring connection has received. */
void soak_run_drain_events(struct soak_run *run);
/* The load phase: the rewriter and the clients until the deadline, kills
 * and replacements, a sample a second; returns once every child is
 * reaped.  0, or -1 if the daemon died or stopped answering. */
int soak_run_load(struct soak_run *run);

/* A second animd started on the same socket while the first serves: it
 * must refuse to start, and leave the first's socket and service alone. */
void soak_run_second_daemon(struct soak_run *run);

/* soak_report.c */
void soak_report_print(const struct soak_run *run);

#endif
