/*
 * control.h - what the control layer serves: the parts of the daemon a
 * connection's requests reach, and the counters `status` reports.
 *
 * The daemon (daemon.c) fills one struct control, creates the listener on
 * it, and keeps the counters up to date; sessions, handlers and events
 * reach everything through it, never through the daemon itself.
 */
#ifndef ANIMD_CONTROL_H
#define ANIMD_CONTROL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "daemon/service/base/config.h"

struct cache;
struct hold;
struct instances;
struct listener;
struct pending_reload;
struct session;
struct streams;

struct control {
	uv_loop_t *loop;
	const struct config *cfg;       /* the running configuration */
	struct cache *cache;
	struct instances *instances;
	struct streams *streams;
	struct listener *listener;      /* NULL once closed */
	struct pending_reload *reloads; /* assets.reload requests waiting (reloads.h) */
	/* Requests waiting for the assets they name to load (holds.h): those
	 * waiting, those ready to be served again, and what the handler being
	 * dispatched found (lookup.h). */
	struct hold *holds_waiting, *holds_ready, *holds_ready_tail;
	size_t holds_count;
	bool holds_open;
	uv_timer_t holds_timer;         /* their deadlines */
	uv_timer_t holds_kick;          /* serves the ready ones, next turn of the loop */
	bool dispatch_waits;            /* the handler met a name not in memory yet */
	char *dispatch_wait_name;       /* which (NULL: the index) */
	uint64_t dispatch_deadline_ms;  /* a request served again: its first deadline */
	bool stopping;                  /* requests are answered shutting_down */
	/* For `status`. */
	int64_t started_ns;             /* monotonic */
	pid_t pid;                      /* getpid() is a system call: asked once */
	uid_t uid;                      /* the daemon's effective uid (control.operators) */
	uint64_t requests;              /* served since start */
	uint64_t sighups;               /* SIGHUPs read (the kernel merges those sent
					   while one is pending) */
	uint64_t config_reloads;        /* configuration reloads done (coalesced) */
	/* For `stats`: what the cache reported (daemon_assets.c). */
	uint64_t asset_loads;           /* asset.loaded: a name's first good version */
	uint64_t asset_reloads;         /* asset.reloaded */
	uint64_t asset_errors;          /* asset.error: a failed parse */
	uint64_t asset_removals;        /* asset.removed */
	uint64_t requests_waited;       /* requests that waited for a load (status) */
	uint32_t monitors;              /* connections that asked for `monitor` */
};

/* A connection has closed: everything it owned goes (its instances, its
 * streams, the replies it was waiting for).  The one thing a session tells
 * the layer about its end. */
void control_session_ended(struct control *ctl, struct session *s);

#endif
