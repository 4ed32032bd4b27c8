/*
 * daemon_signals.c - what signals do to the daemon: SIGTERM and SIGINT
 * begin a clean shutdown (and, once it is under way, change nothing);
 * SIGHUP re-reads the configuration on the thread pool, applies what can
 * change live and rescans the assets, one reload at a time and at least
 * DAEMON_HUP_MIN_INTERVAL_MS apart; the systemd watchdog is fed from here
 * too.  Only the loop thread ever takes a signal.
 */
#include "daemon/service/daemon.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "daemon/service/base/log.h"
#include "daemon/service/base/notify.h"
#include "daemon/service/cache/cache.h"

static void daemon_signals_closed(uv_handle_t *h)
{
	(void)h;
}

static void daemon_signals_watchdog(uv_timer_t *t)
{
	(void)t;
	notify_watchdog_ping();
}

/* The last step of a shutdown: the signal handlers go only now, so that a
 * second SIGTERM (an impatient operator, a storm) during it changes
 * nothing instead of killing the process half-way. */
void daemon_signals_close(struct daemon *d)
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
	uv_close((uv_handle_t *)&d->sig_term, daemon_signals_closed);
	uv_close((uv_handle_t *)&d->sig_int, daemon_signals_closed);
	uv_close((uv_handle_t *)&d->sig_hup, daemon_signals_closed);
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void daemon_signals_on_stop(uv_signal_t *h, int signum)
{
	struct daemon *d = h->data;

	if (d->ctl.stopping)
		return;
	log_info("received %s", signum == SIGTERM ? "SIGTERM" : "SIGINT");
	daemon_stop(d, 0);
}


/* One SIGHUP's work: the configuration is read and checked on the thread
 * pool (a file on a slow disk must not stall the loop), applied on the
 * loop. */
struct daemon_signals_hup {
	uv_work_t work;
	struct daemon *d;
	struct daemon_flags flags;
	struct config fresh;
	struct memlimit mem;            /* for an auto [streams] max_total_bytes */
	int rc;
	char err[512];
};

static void daemon_signals_hup_start(struct daemon *d);

/* Reloads start at least this far apart: a storm of signals costs a few
 * reloads a second, whatever their number. */
#define DAEMON_HUP_MIN_INTERVAL_MS 100

static void daemon_signals_hup_timer_cb(uv_timer_t *t)
{
	struct daemon *d = t->data;

	if (d->hup_pending && !d->hup_running && !d->ctl.stopping)
		daemon_signals_hup_start(d);
}

static void daemon_signals_hup_work(uv_work_t *w)
{
	struct daemon_signals_hup *h = w->data;

	h->rc = daemon_build_config(&h->flags, &h->fresh, h->err, sizeof h->err);
	/* A cgroup's limit may have changed too (systemctl set-property). */
	memlimit_probe(&h->mem);
}

static void daemon_signals_hup_apply(struct daemon *d, struct config *fresh,
				     const struct memlimit *mem)
{
	uint32_t applied, restart = 0;

	config_log_diff(&d->cfg, fresh);
	applied = config_apply_live(&d->cfg, fresh, &restart);
	if (applied & CONFIG_BIT(CONFIG_LOG_LEVEL))
		log_set_level(d->cfg.log_level);
	if (applied & (CONFIG_BIT(CONFIG_RELOAD_QUIET_MS) | CONFIG_BIT(CONFIG_RESCAN_INTERVAL_S)))
		cache_set_timing(d->cache, d->cfg.reload_quiet_ms, d->cfg.rescan_interval_s);
	/* Limits apply to connections accepted from now on; the publish rate
	 * and the streams' budget to streams opened from now on (the budget
	 * is worked out again even when the key did not change: auto follows
	 * the memory the daemon may take). */
	daemon_stream_budget(d, mem);
}

static void daemon_signals_hup_done(uv_work_t *w, int status)
{
	struct daemon_signals_hup *h = w->data;
	struct daemon *d = h->d;

	d->hup_running = false;
	if (d->ctl.stopping || status < 0) {
		config_free(&h->fresh);
		free(h);
		return;
	}
	d->ctl.config_reloads++;
	if (h->rc < 0)
		log_error("%s; keeping the running configuration", h->err);
	else
		daemon_signals_hup_apply(d, &h->fresh, &h->mem);
	config_free(&h->fresh);
	free(h);
	/* SIGHUP also means "look at the assets again". */
	cache_rescan(d->cache);
	notify_ready();
	if (d->hup_pending)
		uv_timer_start(&d->hup_timer, daemon_signals_hup_timer_cb, DAEMON_HUP_MIN_INTERVAL_MS, 0);
}

/* At most one reload runs; signals meanwhile make one more, not many. */
static void daemon_signals_hup_start(struct daemon *d)
{
	struct daemon_signals_hup *h = calloc(1, sizeof *h);

	d->hup_pending = false;
	if (h == NULL) {
		log_error("SIGHUP: out of memory; keeping the running configuration");
		return;
	}
	h->work.data = h;
	h->d = d;
	h->flags = d->flags;
	notify_reloading();
	log_info("SIGHUP: re-reading the configuration");
	if (uv_queue_work(d->loop, &h->work, daemon_signals_hup_work, daemon_signals_hup_done) < 0) {
		log_error("SIGHUP: cannot queue the reload; keeping the running configuration");
		free(h);
		notify_ready();
		return;
	}
	d->hup_running = true;
}

static void daemon_signals_on_hup(uv_signal_t *h, int signum)
{
	struct daemon *d = h->data;

	(void)signum;
	d->ctl.sighups++;
	if (d->ctl.stopping)
		return;
	d->hup_pending = true;
	if (!d->hup_running && !uv_is_active((uv_handle_t *)&d->hup_timer))
		daemon_signals_hup_start(d);
}

void daemon_signals_start(struct daemon *d)
{
	uint64_t wd;

	uv_signal_init(d->loop, &d->sig_term);
	uv_signal_init(d->loop, &d->sig_int);
	uv_signal_init(d->loop, &d->sig_hup);
	uv_timer_init(d->loop, &d->watchdog);
	uv_timer_init(d->loop, &d->hup_timer);
	d->hup_timer.data = d;
	d->sig_term.data = d->sig_int.data = d->sig_hup.data = d;
	uv_signal_start(&d->sig_term, daemon_signals_on_stop, SIGTERM);
	uv_signal_start(&d->sig_int, daemon_signals_on_stop, SIGINT);
	uv_signal_start(&d->sig_hup, daemon_signals_on_hup, SIGHUP);
	wd = notify_watchdog_interval_usec();
	if (wd > 0)
		uv_timer_start(&d->watchdog, daemon_signals_watchdog, wd / 2000, wd / 2000);
}

static void daemon_signals_noop_work(uv_work_t *w)
{
	(void)w;
}

static void daemon_signals_noop_done(uv_work_t *w, int status)
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
void daemon_threads_without_signals(uv_loop_t *loop)
{
	uv_work_t *w = malloc(sizeof *w);
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (w != NULL && uv_queue_work(loop, w, daemon_signals_noop_work, daemon_signals_noop_done) < 0)
		free(w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
