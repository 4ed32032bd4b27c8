/*
 * service.h - the daemon's state, passed explicitly to every module of the
 * service (there is no global).  One libuv loop thread owns all of it;
 * parsing runs on the thread pool inside the cache.
 */
#ifndef ANIMD_SERVICE_H
#define ANIMD_SERVICE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "daemon/service/config.h"

struct cache;
struct server;
struct instances;
struct session;
struct stream;
struct workers;

/* Command-line overrides, kept so that SIGHUP re-applies them over the
 * re-read file. */
struct serve_flags {
	const char *config_path;        /* -c; NULL: CONFIG_DEFAULT_PATH if present */
	const char *assets;             /* --assets */
	const char *socket;             /* --socket */
	const char *log_level;          /* --log-level */
};

/* An assets.reload request waiting for its outcome. */
struct pending_reload {
	struct pending_reload *next;
	struct session *session;
	uint32_t msgid;
	char *asset;
};

struct service {
	uv_loop_t *loop;
	struct config cfg;
	struct serve_flags flags;
	struct cache *cache;
	struct server *server;
	struct instances *instances;
	struct pending_reload *reloads;
	struct stream *streams;         /* every open stream, any owner */
	uint64_t next_stream_id;
	uint64_t epoch;                 /* random per run: stream headers carry it */
	struct workers *workers;        /* helper threads for big stream ticks */
	int64_t started_ns;             /* monotonic */
	pid_t pid;                      /* getpid() is a system call: asked once */
	uint64_t requests;              /* served since start */
	uv_signal_t sig_term, sig_int, sig_hup;
	bool hup_running;               /* a SIGHUP reload is on the thread pool */
	bool hup_pending;               /* another SIGHUP came meanwhile */
	uv_timer_t hup_timer;           /* spaces reloads (serve.c) */
	uint64_t sighups;               /* SIGHUPs received */
	uint64_t config_reloads;        /* configuration reloads done (coalesced) */
	uv_timer_t watchdog;
	bool ready;
	bool stopping;
	int exit_status;
};

/* CLOCK_MONOTONIC in nanoseconds: the one clock of playback. */
int64_t service_now_ns(void);

/* Begin a clean shutdown (signals, fatal errors): tell clients, close
 * everything, let the loop end. */
void service_stop(struct service *svc, int exit_status);

/* Drop pending reload replies that belong to a closing session. */
void service_forget_session(struct service *svc, struct session *s);

#endif
