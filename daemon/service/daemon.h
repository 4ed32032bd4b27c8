/*
 * daemon.h - `animd serve`, the composition root: it owns every part of
 * the daemon and wires them together (the cache's events to the control
 * layer and to playback, playback's instance events to the connections,
 * signals to reloads and shutdown).  Nothing below it includes this file;
 * only its own files and main.c do.
 */
#ifndef ANIMD_DAEMON_H
#define ANIMD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "daemon/service/base/config.h"
#include "daemon/service/base/memlimit.h"
#include "daemon/service/cache/cache.h"
#include "daemon/service/control/control.h"

/* Command-line overrides, kept so that SIGHUP re-applies them over the
 * re-read file. */
struct daemon_flags {
	const char *config_path;        /* -c; NULL: CONFIG_DEFAULT_PATH if present */
	const char *assets;             /* --assets */
	const char *socket;             /* --socket */
	const char *log_level;          /* --log-level */
	const char *log_format;         /* --log-format */
};

struct daemon {
	uv_loop_t *loop;
	struct config cfg;
	struct daemon_flags flags;
	uint64_t epoch;                 /* random per run: stream headers carry it */
	struct workers *workers;        /* helper threads for big stream ticks */
	struct cache *cache;
	struct streams *streams;
	struct instances *instances;
	struct control ctl;             /* what connections reach; ctl.stopping is the daemon's */
	int sig_fd;                     /* signalfd of SIGTERM, SIGINT, SIGHUP; -1: none */
	uv_poll_t sig_poll;             /* the loop's watch on it */
	uv_timer_t watchdog;
	uv_timer_t hup_timer;           /* spaces SIGHUP reloads */
	bool hup_running;               /* a SIGHUP reload is on the thread pool */
	bool hup_pending;               /* another SIGHUP came meanwhile */
	bool ready;
	int exit_status;
};

/* animd serve [-c FILE] [--assets DIR] [--socket PATH] [--log-level L]
 * [--log-format F] [--print-config]: runs until SIGTERM/SIGINT; returns
 * the exit status. */
int daemon_main(int argc, char **argv);

/* daemon.c: defaults, the file and its drop-ins, the flags, then the rules
 * between keys; src (may be NULL) gets what set each key. */
int daemon_build_config(const struct daemon_flags *f, struct config *cfg,
			struct config_sources *src, char *err, size_t errlen);
/* daemon.c: the streams' budget from [streams] max_total_bytes, auto
 * resolved with mem (memlimit_probe: at start-up, and on the thread pool
 * for a reload); logged when it changes. */
void daemon_stream_budget(struct daemon *d, const struct memlimit *mem);
/* daemon.c: begin a clean shutdown (signals, fatal errors): tell clients,
 * close everything, let the loop end. */
void daemon_stop(struct daemon *d, int exit_status);

/* daemon_assets.c: the cache's events, and its start-up summary. */
extern const struct cache_events daemon_cache_events;
void daemon_assets_ready(struct cache *c, const struct cache_summary *s, void *data);

/* daemon_signals.c: SIGTERM/SIGINT stop, SIGHUP reloads (one at a time,
 * spaced), the systemd watchdog; closed at the very end of a shutdown.
 * daemon_signals_block blocks the three in the calling thread: called
 * before any thread starts, so that every thread inherits it; start reads
 * them from a signalfd on the loop (0, or -errno and a message in err). */
void daemon_signals_block(void);
int daemon_signals_start(struct daemon *d, char *err, size_t errlen);
void daemon_signals_close(struct daemon *d);
/* Start libuv's thread pool with every signal blocked (see the .c). */
void daemon_threads_without_signals(uv_loop_t *loop);

#endif
