/*
 * animd serve [-c FILE] [--assets DIR] [--socket PATH] [--log-level L]
 *             [--print-config]
 *
 * Start-up: configuration (defaults, file, flags), the control socket
 * (refusing to start if another animd serves it), the asset cache's scan,
 * then READY=1.  SIGHUP re-reads the configuration and applies what can
 * change live; SIGTERM and SIGINT shut down cleanly: clients are told, the
 * socket is removed, every handle is closed and the loop closes empty.
 */
#include "daemon/service/serve.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <unistd.h>

#include "daemon/service/cache.h"
#include "daemon/service/dispatch.h"
#include "daemon/service/events.h"
#include "daemon/service/instances.h"
#include "daemon/service/log.h"
#include "daemon/service/notify.h"
#include "daemon/service/server.h"
#include "daemon/service/service.h"
#include "daemon/service/session.h"
#include "daemon/service/streams.h"
#include "daemon/service/workers.h"
#include "daemon/version.h"

int64_t service_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Defaults, then the file, then the flags, then the cross-field rules. */
static int serve_build_config(const struct serve_flags *f, struct config *cfg, char *err,
			      size_t errlen)
{
	const char *path = f->config_path ? f->config_path : CONFIG_DEFAULT_PATH;
	int rc;

	config_defaults(cfg);
	rc = config_load_file(cfg, path, err, errlen);
	if (rc == -ENOENT && f->config_path == NULL)
		rc = 0;         /* no file at the default place: built-in defaults */
	if (rc == 0 && f->assets)
		rc = config_apply_flag(cfg, "--assets", f->assets, err, errlen);
	if (rc == 0 && f->socket)
		rc = config_apply_flag(cfg, "--socket", f->socket, err, errlen);
	if (rc == 0 && f->log_level)
		rc = config_apply_flag(cfg, "--log-level", f->log_level, err, errlen);
	if (rc == 0)
		rc = config_validate(cfg, err, errlen);
	return rc;
}

/* ---- pending assets.reload replies --------------------------------- */

void service_forget_session(struct service *svc, struct session *s)
{
	struct pending_reload **p = &svc->reloads;

	while (*p != NULL) {
		struct pending_reload *r = *p;

		if (r->session == s) {
			*p = r->next;
			free(r->asset);
			free(r);
		} else {
			p = &r->next;
		}
	}
}

/* Answer every assets.reload waiting on `name`: with the new generation, or
 * with the error (code asset_error / not_found). */
static void serve_answer_reloads(struct service *svc, const char *name, uint64_t generation,
				 bool unchanged, enum proto_error code, const char *message)
{
	struct pending_reload **p = &svc->reloads;

	while (*p != NULL) {
		struct pending_reload *r = *p;
		struct session *session;

		if (strcmp(r->asset, name) != 0) {
			p = &r->next;
			continue;
		}
		*p = r->next;
		session = r->session;
		if (code == PROTO_ERR_NONE) {
			struct rpc_out out = RPC_OUT_INIT;

			rpc_put_map(&out, 3);
			rpc_put_lit(&out, "asset");
			rpc_put_cstr(&out, name);
			rpc_put_lit(&out, "generation");
			rpc_put_uint(&out, generation);
			rpc_put_lit(&out, "unchanged");
			rpc_put_bool(&out, unchanged);
			dispatch_send_result(r->session, r->msgid, &out);
			rpc_out_free(&out);
		} else {
			struct rpc_error err;

			rpc_error_init(&err);
			err.msgid = r->msgid;
			err.has_msgid = true;
			rpc_error_format(&err, code, "assets.reload: %s", message);
			session_send_error(r->session, &err);
		}
		free(r->asset);
		free(r);
		session_deferred_done(session);
	}
}

/* ---- cache events --------------------------------------------------- */

/* A load that had to leave something out says so, once per version. */
static void serve_log_note(struct cache *c, const char *name)
{
	struct cache_info info;

	if (cache_get(c, name, &info) == 0 && info.asset != NULL && info.asset->note != NULL)
		log_warning("%s: %s", name, info.asset->note);
}

static void serve_loaded(struct cache *c, const char *name, uint64_t gen, void *data)
{
	struct service *svc = data;

	serve_log_note(c, name);
	if (svc->ready)
		log_info("loaded %s", name);
	else
		log_debug("loaded %s", name);
	events_asset_loaded(svc, name, gen);
	serve_answer_reloads(svc, name, gen, false, PROTO_ERR_NONE, NULL);
}

static void serve_reloaded(struct cache *c, const char *name, uint64_t gen, void *data)
{
	struct service *svc = data;
	struct cache_info info;

	log_info("reloaded %s (generation %llu)", name, (unsigned long long)gen);
	serve_log_note(c, name);
	events_asset_reloaded(svc, name, gen);
	if (cache_get(c, name, &info) == 0)
		instances_asset_changed(svc->instances, name, info.asset, gen);
	serve_answer_reloads(svc, name, gen, false, PROTO_ERR_NONE, NULL);
}

static void serve_error(struct cache *c, const char *name, const char *message, void *data)
{
	struct service *svc = data;
	struct cache_info info;
	uint64_t live = 0;

	if (cache_get(c, name, &info) == 0)
		live = info.generation;
	if (live > 0)
		log_warning("%s (keeping generation %llu)", message, (unsigned long long)live);
	else
		log_warning("%s", message);
	events_asset_error(svc, name, message, live);
	serve_answer_reloads(svc, name, 0, false, PROTO_ERR_ASSET_ERROR, message);
}

static void serve_removed(struct cache *c, const char *name, void *data)
{
	struct service *svc = data;

	(void)c;
	log_info("removed %s", name);
	/* The cause before its effects: asset.removed, then instance.stopped. */
	events_asset_removed(svc, name);
	instances_asset_changed(svc->instances, name, NULL, 0);
	serve_answer_reloads(svc, name, 0, false, PROTO_ERR_NOT_FOUND, "the file is gone");
}

/* assets.reload of a file that holds the live version: answered, and
 * nothing else happens (no event, no instance republished). */
static void serve_unchanged(struct cache *c, const char *name, uint64_t gen, void *data)
{
	(void)c;
	serve_answer_reloads(data, name, gen, true, PROTO_ERR_NONE, NULL);
}

static void serve_cache_log(struct cache *c, int level, const char *message, void *data)
{
	(void)c;
	(void)data;
	/* The cache speaks syslog priorities; notices are informational here. */
	log_write(level <= LOG_LEVEL_WARNING ? LOG_LEVEL_WARNING
		  : level <= LOG_LEVEL_INFO  ? LOG_LEVEL_INFO
					     : LOG_LEVEL_DEBUG,
		  "%s", message);
}

static void serve_ready(struct cache *c, const struct cache_summary *s, void *data)
{
	struct service *svc = data;

	(void)c;
	if (s->status < 0)
		log_warning("asset scan incomplete: %s", strerror(-s->status));
	log_info("serving %s: %u assets loaded, %u failed, %u directories watched, in %.1f ms",
		 svc->cfg.asset_root, s->loaded, s->failed, s->directories,
		 (double)s->elapsed_ns / 1e6);
	svc->ready = true;
	notify_ready();
	notify_status("serving %u assets (%u failed) on %s", s->loaded, s->failed,
		      svc->cfg.socket_path);
}

/* ---- signals, watchdog, shutdown ------------------------------------ */

static void serve_watchdog(uv_timer_t *t)
{
	(void)t;
	notify_watchdog_ping();
}

static void serve_closed_handle(uv_handle_t *h)
{
	(void)h;
}

/* The last step of a shutdown: the signal handlers go only now, so that a
 * second SIGTERM (an impatient operator, a storm) during it changes
 * nothing instead of killing the process half-way. */
static void serve_close_signals(struct service *svc)
{
	sigset_t set, old;

	/* Closing the handles gives the default actions back; until exit
	 * these signals must not end the process with another status than
	 * the one chosen.  Blocked across the switch to "ignore", so that
	 * none lands in between (a pending one is discarded when ignored). */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	uv_close((uv_handle_t *)&svc->sig_term, serve_closed_handle);
	uv_close((uv_handle_t *)&svc->sig_int, serve_closed_handle);
	uv_close((uv_handle_t *)&svc->sig_hup, serve_closed_handle);
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void serve_cache_closed(void *data)
{
	struct service *svc = data;

	svc->cache = NULL;
	serve_close_signals(svc);
}

static void serve_instances_closed(void *data)
{
	struct service *svc = data;

	svc->instances = NULL;
	if (svc->cache != NULL)
		cache_close(svc->cache, serve_cache_closed);
	else
		serve_close_signals(svc);
}

static void serve_server_closed(void *data)
{
	struct service *svc = data;

	svc->server = NULL;
	if (svc->instances != NULL)
		instances_close(svc->instances, serve_instances_closed, svc);
	else
		serve_instances_closed(svc);
}

void service_stop(struct service *svc, int exit_status)
{
	if (svc->stopping)
		return;
	svc->stopping = true;
	svc->exit_status = exit_status;
	notify_stopping();
	log_info("shutting down");
	events_server_stopping(svc);
	/* Readers see every stream closed before their connection goes. */
	streams_close_all(svc);
	uv_close((uv_handle_t *)&svc->watchdog, serve_closed_handle);
	uv_close((uv_handle_t *)&svc->hup_timer, serve_closed_handle);
	/* Sessions first (their instances end with them), then what is left. */
	if (svc->server != NULL)
		server_close(svc->server, serve_server_closed, svc);
	else
		serve_server_closed(svc);
}

static void serve_on_stop_signal(uv_signal_t *h, int signum)
{
	struct service *svc = h->data;

	if (svc->stopping)
		return;
	log_info("received %s", signum == SIGTERM ? "SIGTERM" : "SIGINT");
	service_stop(svc, 0);
}

/* One SIGHUP's work: the configuration is read and checked on the thread
 * pool (a file on a slow disk must not stall the loop), applied on the
 * loop. */
struct serve_hup {
	uv_work_t work;
	struct service *svc;
	struct serve_flags flags;
	struct config fresh;
	int rc;
	char err[512];
};

static void serve_hup_start(struct service *svc);

/* Reloads start at least this far apart: a storm of signals costs a few
 * reloads a second, whatever their number. */
#define SERVE_HUP_MIN_INTERVAL_MS 100

static void serve_hup_timer_cb(uv_timer_t *t)
{
	struct service *svc = t->data;

	if (svc->hup_pending && !svc->hup_running && !svc->stopping)
		serve_hup_start(svc);
}

static void serve_hup_work(uv_work_t *w)
{
	struct serve_hup *h = w->data;

	h->rc = serve_build_config(&h->flags, &h->fresh, h->err, sizeof h->err);
}

static void serve_hup_apply(struct service *svc, struct config *fresh)
{
	uint32_t applied, restart = 0;

	config_log_diff(&svc->cfg, fresh);
	applied = config_apply_live(&svc->cfg, fresh, &restart);
	if (applied & CONFIG_BIT(CONFIG_LOG_LEVEL))
		log_set_level(svc->cfg.log_level);
	if (applied & (CONFIG_BIT(CONFIG_RELOAD_QUIET_MS) | CONFIG_BIT(CONFIG_RESCAN_INTERVAL_S)))
		cache_set_timing(svc->cache, svc->cfg.reload_quiet_ms, svc->cfg.rescan_interval_s);
	/* Limits apply to connections accepted from now on; the publish rate
	 * to streams opened from now on. */
}

static void serve_hup_done(uv_work_t *w, int status)
{
	struct serve_hup *h = w->data;
	struct service *svc = h->svc;

	svc->hup_running = false;
	if (svc->stopping || status < 0) {
		config_free(&h->fresh);
		free(h);
		return;
	}
	svc->config_reloads++;
	if (h->rc < 0)
		log_error("%s; keeping the running configuration", h->err);
	else
		serve_hup_apply(svc, &h->fresh);
	config_free(&h->fresh);
	free(h);
	/* SIGHUP also means "look at the assets again". */
	cache_rescan(svc->cache);
	notify_ready();
	if (svc->hup_pending)
		uv_timer_start(&svc->hup_timer, serve_hup_timer_cb, SERVE_HUP_MIN_INTERVAL_MS, 0);
}

/* At most one reload runs; signals meanwhile make one more, not many. */
static void serve_hup_start(struct service *svc)
{
	struct serve_hup *h = calloc(1, sizeof *h);

	svc->hup_pending = false;
	if (h == NULL) {
		log_error("SIGHUP: out of memory; keeping the running configuration");
		return;
	}
	h->work.data = h;
	h->svc = svc;
	h->flags = svc->flags;
	notify_reloading();
	log_info("SIGHUP: re-reading the configuration");
	if (uv_queue_work(svc->loop, &h->work, serve_hup_work, serve_hup_done) < 0) {
		log_error("SIGHUP: cannot queue the reload; keeping the running configuration");
		free(h);
		notify_ready();
		return;
	}
	svc->hup_running = true;
}

static void serve_on_hup(uv_signal_t *h, int signum)
{
	struct service *svc = h->data;

	(void)signum;
	svc->sighups++;
	if (svc->stopping)
		return;
	svc->hup_pending = true;
	if (!svc->hup_running && !uv_is_active((uv_handle_t *)&svc->hup_timer))
		serve_hup_start(svc);
}

static void serve_usage(FILE *f)
{
	fprintf(f,
		"usage: animd [serve] [-c FILE] [--assets DIR] [--socket PATH] [--log-level LEVEL]\n"
		"             [--print-config]\n"
		"  Serve the assets under DIR on the control socket PATH.  Settings come from\n"
		"  FILE (default %s if it exists, else built-in defaults);\n"
		"  flags override it.  LEVEL is error, warning, info or debug.\n"
		"  --print-config prints the effective configuration and exits.\n",
		CONFIG_DEFAULT_PATH);
}

static int serve_parse_args(int argc, char **argv, struct serve_flags *f, int *print)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "assets", required_argument, NULL, 'a' },
		{ "socket", required_argument, NULL, 's' },
		{ "log-level", required_argument, NULL, 'l' },
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
		case 'p': *print = 1; break;
		case 'h': serve_usage(stdout); return 1;
		default: serve_usage(stderr); return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "animd serve: unexpected argument \"%s\"\n", argv[optind]);
		return -1;
	}
	return 0;
}

static int serve_start(struct service *svc, char *err, size_t errlen)
{
	struct cache_options opts = {
		.root = svc->cfg.asset_root,
		.quiet_ms = svc->cfg.reload_quiet_ms,
		.rescan_interval_s = svc->cfg.rescan_interval_s,
		.max_asset_bytes = svc->cfg.max_asset_bytes,
		.load = { .x_ticks_per_second = svc->cfg.x_ticks_per_second },
		.events = {
			.loaded = serve_loaded,
			.reloaded = serve_reloaded,
			.error = serve_error,
			.removed = serve_removed,
			.unchanged = serve_unchanged,
			.log = serve_cache_log,
		},
		.data = svc,
	};
	uint64_t wd;
	int rc;

	uv_signal_init(svc->loop, &svc->sig_term);
	uv_signal_init(svc->loop, &svc->sig_int);
	uv_signal_init(svc->loop, &svc->sig_hup);
	uv_timer_init(svc->loop, &svc->watchdog);
	uv_timer_init(svc->loop, &svc->hup_timer);
	svc->hup_timer.data = svc;
	svc->sig_term.data = svc->sig_int.data = svc->sig_hup.data = svc;
	uv_signal_start(&svc->sig_term, serve_on_stop_signal, SIGTERM);
	uv_signal_start(&svc->sig_int, serve_on_stop_signal, SIGINT);
	uv_signal_start(&svc->sig_hup, serve_on_hup, SIGHUP);
	wd = notify_watchdog_interval_usec();
	if (wd > 0)
		uv_timer_start(&svc->watchdog, serve_watchdog, wd / 2000, wd / 2000);

	/* One helper thread per other core, for stream ticks with many
	 * instances (workers.h); none on a single core. */
	{
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		unsigned helpers = cores > 1 ? (unsigned)(cores > 8 ? 7 : cores - 1) : 0;

		if (workers_new(helpers, &svc->workers) < 0) {
			snprintf(err, errlen, "cannot start worker threads");
			return -ENOMEM;
		}
	}
	rc = instances_new(svc, &svc->instances);
	if (rc < 0) {
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	rc = cache_new(svc->loop, &opts, &svc->cache, err, errlen);
	if (rc < 0)
		return rc;
	rc = server_open(svc, &svc->server, err, errlen);
	if (rc < 0)
		return rc;
	log_info("listening on %s", svc->cfg.socket_path);
	rc = cache_start(svc->cache, serve_ready);
	if (rc < 0)
		snprintf(err, errlen, "cannot scan the asset root: %s", strerror(-rc));
	return rc;
}

static void serve_noop_work(uv_work_t *w)
{
	(void)w;
}

static void serve_noop_done(uv_work_t *w, int status)
{
	(void)status;
	free(w);
}

/*
 * Signals are the loop thread's alone: libuv's thread pool is started here,
 * with every signal blocked (threads inherit the mask), rather than by the
 * first load.  Otherwise a thread of the pool may take a SIGTERM while the
 * handlers are being switched off at the end of a shutdown, when its
 * default action would kill the process.
 */
static void serve_threads_without_signals(uv_loop_t *loop)
{
	uv_work_t *w = malloc(sizeof *w);
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (w != NULL && uv_queue_work(loop, w, serve_noop_work, serve_noop_done) < 0)
		free(w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int serve_main(int argc, char **argv)
{
	struct service svc = { 0 };
	uv_loop_t loop;
	char err[1024];
	int print = 0, rc;

	rc = serve_parse_args(argc, argv, &svc.flags, &print);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (serve_build_config(&svc.flags, &svc.cfg, err, sizeof err) < 0) {
		fprintf(stderr, "animd: %s\n", err);
		return 1;
	}
	if (print)
		return config_dump(&svc.cfg, stdout) < 0;
	log_init(svc.cfg.log_level);
	signal(SIGPIPE, SIG_IGN);
	log_info("animd %s starting (pid %d, config %s)", ANIMD_VERSION, (int)getpid(),
		 svc.flags.config_path ? svc.flags.config_path
		 : access(CONFIG_DEFAULT_PATH, F_OK) == 0 ? CONFIG_DEFAULT_PATH
							 : "built-in defaults");
	if (uv_loop_init(&loop) < 0) {
		log_error("cannot create the event loop");
		return 1;
	}
	svc.loop = &loop;
	svc.started_ns = service_now_ns();
	svc.pid = getpid();
	/* Stream headers carry this: a restarted daemon is told apart. */
	if (getrandom(&svc.epoch, sizeof svc.epoch, 0) != sizeof svc.epoch)
		svc.epoch = (uint64_t)svc.started_ns ^ ((uint64_t)getpid() << 32);
	serve_threads_without_signals(&loop);
	if (serve_start(&svc, err, sizeof err) < 0) {
		log_error("%s", err);
		service_stop(&svc, 1);
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	workers_free(svc.workers);
	rc = uv_loop_close(&loop);
	if (rc < 0) {
		log_error("event loop closed with handles still open: %s", uv_strerror(rc));
		return 1;
	}
	log_info("stopped");
	return svc.exit_status;
}
