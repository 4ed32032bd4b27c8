/*
 * daemon.c - `animd serve`: configuration (defaults, file, flags), the
 * parts of the daemon made in order and wired together, the loop, and the
 * shutdown that closes them in reverse (clients told first, the socket
 * removed, every handle closed, the loop closed empty).
 */
#include "daemon/service/daemon.h"

#include <errno.h>
#include <sched.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "daemon/service/base/bytes.h"
#include "daemon/service/base/clock.h"
#include "daemon/service/base/config_dropins.h"
#include "daemon/service/base/log.h"
#include "daemon/service/base/notify.h"
#include "daemon/service/base/workers.h"
#include "daemon/service/control/events.h"
#include "daemon/service/control/holds.h"
#include "daemon/service/control/listener.h"
#include "daemon/service/playback/instances.h"
#include "daemon/service/playback/stream_budget.h"
#include "daemon/service/playback/streams.h"
#include "daemon/version.h"

static void daemon_closed_handle(uv_handle_t *h)
{
	(void)h;
}

/* One flag, if it was given, recorded in src. */
static int daemon_flag(struct config *cfg, struct config_sources *src, const char *flag,
		       const char *value, char *err, size_t errlen)
{
	int rc;

	if (value == NULL)
		return 0;
	rc = config_apply_flag(cfg, flag, value, err, errlen);
	if (rc == 0)
		config_sources_flag(src, flag);
	return rc;
}

/* Defaults, then the file and its drop-ins (no file at the default place
 * means built-in defaults), then the flags, then the cross-field rules. */
int daemon_build_config(const struct daemon_flags *f, struct config *cfg,
			struct config_sources *src, char *err, size_t errlen)
{
	const char *path = f->config_path ? f->config_path : CONFIG_DEFAULT_PATH;
	int rc;

	config_defaults(cfg);
	rc = config_load(cfg, path, f->config_path == NULL, src, err, errlen);
	if (rc == 0)
		rc = daemon_flag(cfg, src, "--assets", f->assets, err, errlen);
	if (rc == 0)
		rc = daemon_flag(cfg, src, "--socket", f->socket, err, errlen);
	if (rc == 0)
		rc = daemon_flag(cfg, src, "--log-level", f->log_level, err, errlen);
	if (rc == 0)
		rc = daemon_flag(cfg, src, "--log-format", f->log_format, err, errlen);
	if (rc == 0)
		rc = config_validate(cfg, err, errlen);
	return rc;
}

/* The files the configuration came from, for the start-up line: "FILE",
 * "FILE and N drop-ins from FILE.d", or "built-in defaults". */
static const char *daemon_config_files(const struct daemon_flags *f,
				       const struct config_sources *src, char *buf, size_t len)
{
	const char *path = f->config_path ? f->config_path : CONFIG_DEFAULT_PATH;
	size_t dropins = src->nfiles;
	bool read_main = src->nfiles > 0 && strcmp(src->files[0], path) == 0;
	const char *base = read_main ? path : "built-in defaults";

	if (read_main)
		dropins--;
	if (dropins == 0)
		snprintf(buf, len, "%s", base);
	else
		snprintf(buf, len, "%s and %zu drop-in%s from %s" CONFIG_DROPINS_SUFFIX, base,
			 dropins, dropins == 1 ? "" : "s", path);
	return buf;
}

void daemon_stream_budget(struct daemon *d, const struct memlimit *mem)
{
	char origin[STREAM_BUDGET_ORIGIN_MAX], size[BYTES_FORMAT_MAX], why[128];
	uint64_t limit = d->cfg.streams_max_total_bytes;

	if (limit != 0) {
		snprintf(origin, sizeof origin, "[streams] max_total_bytes = %s",
			 bytes_format(limit, size, sizeof size));
	} else {
		limit = memlimit_quarter(mem, why, sizeof why);
		snprintf(origin, sizeof origin, "[streams] max_total_bytes = auto: %s, %s",
			 bytes_format(limit, size, sizeof size), why);
	}
	if (limit != streams_budget(d->streams))
		log_info("stream memory budget: %s", origin);
	streams_set_budget(d->streams, limit, origin);
}

static void daemon_cache_closed(void *data)
{
	struct daemon *d = data;

	d->cache = NULL;
	daemon_signals_close(d);
}

static void daemon_instances_closed(void *data)
{
	struct daemon *d = data;

	d->instances = NULL;
	if (d->cache != NULL)
		cache_close(d->cache, daemon_cache_closed);
	else
		daemon_signals_close(d);
}

static void daemon_listener_closed(void *data)
{
	struct daemon *d = data;

	d->ctl.listener = NULL;
	if (d->instances != NULL)
		instances_close(d->instances, daemon_instances_closed, d);
	else
		daemon_instances_closed(d);
}

void daemon_stop(struct daemon *d, int exit_status)
{
	if (d->ctl.stopping)
		return;
	d->ctl.stopping = true;
	d->exit_status = exit_status;
	notify_stopping();
	log_info("shutting down");
	events_server_stopping(&d->ctl);
	/* Requests waiting for a load are answered shutting_down. */
	holds_stop(&d->ctl);
	/* Readers see every stream closed before their connection goes. */
	streams_close_all(d->streams);
	uv_close((uv_handle_t *)&d->watchdog, daemon_closed_handle);
	uv_close((uv_handle_t *)&d->hup_timer, daemon_closed_handle);
	/* Sessions first (their instances end with them), then what is left. */
	if (d->ctl.listener != NULL)
		listener_close(d->ctl.listener, daemon_listener_closed, d);
	else
		daemon_listener_closed(d);
}


static void daemon_usage(FILE *f)
{
	fprintf(f,
		"usage: animd [serve] [-c FILE] [--assets DIR] [--socket PATH] [--log-level LEVEL]\n"
		"             [--log-format FORMAT] [--print-config]\n"
		"  Serve the assets under DIR on the control socket PATH.  Settings come from\n"
		"  FILE (-c or --config; default %s if it exists, else built-in defaults),\n"
		"  then every *.ini in FILE" CONFIG_DROPINS_SUFFIX "/ in name order; flags override them.\n"
		"  LEVEL is error, warning, info or debug.  FORMAT is auto (the journal's <N>\n"
		"  prefixes when stderr is the journal, else plain), journal or plain (UTC\n"
		"  time and level word).\n"
		"  --print-config prints the effective configuration, and where each value\n"
		"  comes from, and exits.\n",
		CONFIG_DEFAULT_PATH);
}

static int daemon_parse_args(int argc, char **argv, struct daemon_flags *f, int *print)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "assets", required_argument, NULL, 'a' },
		{ "socket", required_argument, NULL, 's' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "log-format", required_argument, NULL, 'f' },
		{ "print-config", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': f->config_path = optarg; break;
		case 'a': f->assets = optarg; break;
		case 's': f->socket = optarg; break;
		case 'l': f->log_level = optarg; break;
		case 'f': f->log_format = optarg; break;
		case 'p': *print = 1; break;
		case 'h': daemon_usage(stdout); return 1;
		default: daemon_usage(stderr); return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "animd serve: unexpected argument \"%s\"\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* Under socket activation the log names the socket systemd passed, which is
 * where clients connect, not socket.path. */
static void daemon_log_listening(struct daemon *d)
{
	bool activated;
	const char *address = listener_address(d->ctl.listener, &activated);

	if (activated)
		log_info("listening on %s, the socket systemd passed (socket.path, mode and group "
			 "not used)", address);
	else
		log_info("listening on %s", address);
}

static int daemon_start(struct daemon *d, char *err, size_t errlen)
{
	struct cache_options opts = {
		.root = d->cfg.asset_root,
		.quiet_ms = d->cfg.reload_quiet_ms,
		.rescan_interval_s = d->cfg.rescan_interval_s,
		.max_asset_bytes = d->cfg.max_asset_bytes,
		.max_memory = d->cfg.assets_max_memory,
		.load = { .x_ticks_per_second = d->cfg.x_ticks_per_second },
		.events = daemon_cache_events,
		.data = d,
	};
	const struct instance_events instance_events = {
		.ended = events_instance_ended,
		.stopped = events_instance_stopped,
		.faded = events_instance_faded,
		.layer_ended = events_layer_ended,
		.clip_event = events_clip_event,
		.ctx = &d->ctl,
	};
	int rc;

	rc = daemon_signals_start(d, err, errlen);
	if (rc < 0)
		return rc;

	/* Stream ticks with many instances are spread over threads
	 * (workers.h): the loop thread and one helper per other core the
	 * daemon may run on (its CPU affinity: systemd's CPUAffinity=,
	 * taskset), at most 8 threads, or at most streams.tick_threads; none
	 * on a single core. */
	{
		cpu_set_t allowed;
		long cores = sched_getaffinity(0, sizeof allowed, &allowed) == 0
				     ? CPU_COUNT(&allowed)
				     : sysconf(_SC_NPROCESSORS_ONLN);
		long threads = d->cfg.tick_threads > 0 ? (long)d->cfg.tick_threads : 8;
		unsigned helpers;

		if (threads > cores)
			threads = cores;
		helpers = threads > 1 ? (unsigned)threads - 1 : 0;
		log_info("stream ticks: up to %u thread%s (%ld core%s allowed)", helpers + 1,
			 helpers > 0 ? "s" : "", cores, cores == 1 ? "" : "s");

		if (workers_new(helpers, &d->workers) < 0) {
			snprintf(err, errlen, "cannot start worker threads");
			return -ENOMEM;
		}
	}
	rc = streams_new(d->loop, d->workers, d->epoch, &d->streams);
	if (rc == 0)
		rc = instances_new(d->loop, &instance_events, &d->instances);
	if (rc < 0) {
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	{
		struct memlimit mem;

		memlimit_probe(&mem);   /* a few small files, before the loop runs */
		daemon_stream_budget(d, &mem);
	}
	rc = cache_new(d->loop, &opts, &d->cache, err, errlen);
	if (rc < 0)
		return rc;
	/* What connections reach. */
	d->ctl.cache = d->cache;
	d->ctl.instances = d->instances;
	d->ctl.streams = d->streams;
	rc = listener_open(&d->ctl, &d->ctl.listener, err, errlen);
	if (rc < 0)
		return rc;
	daemon_log_listening(d);
	rc = cache_start(d->cache, daemon_assets_ready);
	if (rc < 0)
		snprintf(err, errlen, "cannot scan the asset root: %s", strerror(-rc));
	return rc;
}

int daemon_main(int argc, char **argv)
{
	struct daemon d = { 0 };
	struct config_sources src;
	uv_loop_t loop;
	char err[1024], files[1024];
	int print = 0, rc;

	rc = daemon_parse_args(argc, argv, &d.flags, &print);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	config_sources_init(&src);
	if (daemon_build_config(&d.flags, &d.cfg, &src, err, sizeof err) < 0) {
		fprintf(stderr, "animd: %s\n", err);
		config_sources_free(&src);
		return 1;
	}
	if (print) {
		rc = config_dump(&d.cfg, &src, stdout) < 0;
		config_sources_free(&src);
		return rc;
	}
	daemon_config_files(&d.flags, &src, files, sizeof files);
	config_sources_free(&src);
	log_init(d.cfg.log_level, d.cfg.log_format);
	/* Before any thread exists (libuv's pool, the workers): they inherit
	 * the mask, and the signals reach the loop's signalfd alone. */
	daemon_signals_block();
	signal(SIGPIPE, SIG_IGN);
	log_info("animd %s starting (pid %d, config %s)", ANIMD_VERSION, (int)getpid(), files);
	if (uv_loop_init(&loop) < 0) {
		log_error("cannot create the event loop");
		return 1;
	}
	d.loop = &loop;
	d.sig_fd = -1;
	d.ctl.loop = &loop;
	d.ctl.cfg = &d.cfg;
	d.ctl.started_ns = clock_now_ns();
	d.ctl.pid = getpid();
	d.ctl.uid = geteuid();
	/* Stream headers carry this: a restarted daemon is told apart. */
	if (getrandom(&d.epoch, sizeof d.epoch, 0) != sizeof d.epoch)
		d.epoch = (uint64_t)d.ctl.started_ns ^ ((uint64_t)getpid() << 32);
	daemon_threads_without_signals(&loop);
	holds_init(&d.ctl);
	if (daemon_start(&d, err, sizeof err) < 0) {
		log_error("%s", err);
		daemon_stop(&d, 1);
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	streams_free(d.streams);
	workers_free(d.workers);
	rc = uv_loop_close(&loop);
	if (rc < 0) {
		log_error("event loop closed with handles still open: %s", uv_strerror(rc));
		return 1;
	}
	log_info("stopped");
	return d.exit_status;
}
