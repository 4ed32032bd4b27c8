/*
 * daemon_signals.c - what signals do to the daemon: SIGTERM and SIGINT
 * begin a clean shutdown (and, once it is under way, change nothing);
 * SIGHUP re-reads the configuration on the thread pool, applies what can
 * change live and rescans the assets, one reload at a time and at least
 * DAEMON_HUP_MIN_INTERVAL_MS apart; the systemd watchdog is fed from here
 * too.
 *
 * The three signals are blocked in every thread from the start
 * (daemon_signals_block, before any thread exists, so that every thread
 * inherits the mask) and read from a signalfd the loop polls.  No handler
 * runs per signal: the kernel keeps one pending signal of each kind however
 * many are sent, so a storm of them is one wake-up of the loop per turn and
 * one read, where a handler (uv_signal_t) cost a handler run and a pipe
 * write per signal and stalled the loop behind them.  Only the loop thread
 * ever takes a signal.
 */
#include "daemon/service/daemon.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "daemon/service/base/log.h"
#include "daemon/service/base/notify.h"
#include "daemon/service/cache/cache.h"

/* Reads of the signalfd per wake-up: what a storm refills while they run
 * waits for the next turn of the loop (the poll is level-triggered), so
 * the loop serves its clients between them. */
#define DAEMON_SIGNAL_READS_MAX 16

static void daemon_signals_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
}

void daemon_signals_block(void)
{
	sigset_t set;

	daemon_signals_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/* The descriptor goes only once libuv no longer polls it. */
static void daemon_signals_fd_closed(uv_handle_t *h)
{
	struct daemon *d = h->data;

	close(d->sig_fd);
	d->sig_fd = -1;
}

static void daemon_signals_watchdog(uv_timer_t *t)
{
	(void)t;
	notify_watchdog_ping();
}

/* The last step of a shutdown: the signalfd goes only now, so that a
 * second SIGTERM (an impatient operator, a storm) during it is read and
 * changes nothing.  The signals stay blocked until exit: one arriving
 * after this stays pending and cannot end the process with another status
 * than the one chosen. */
void daemon_signals_close(struct daemon *d)
{
	if (d->sig_fd >= 0)
		uv_close((uv_handle_t *)&d->sig_poll, daemon_signals_fd_closed);
}

static void daemon_signals_on_stop(struct daemon *d, int signum)
{
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

	h->rc = daemon_build_config(&h->flags, &h->fresh, NULL, h->err, sizeof h->err);
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
	if (applied & CONFIG_BIT(CONFIG_LOG_FORMAT))
		log_set_style(log_style_for(d->cfg.log_format, STDERR_FILENO));
	if (applied & (CONFIG_BIT(CONFIG_RELOAD_QUIET_MS) | CONFIG_BIT(CONFIG_RESCAN_INTERVAL_S)))
		cache_set_timing(d->cache, d->cfg.reload_quiet_ms, d->cfg.rescan_interval_s);
	if (applied & CONFIG_BIT(CONFIG_ASSETS_MAX_MEMORY))
		cache_set_max_memory(d->cache, d->cfg.assets_max_memory);
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

/* However many SIGHUPs one read brought (the kernel merges those sent
 * while one is pending), one reload: at most one runs and one more waits. */
static void daemon_signals_on_hup(struct daemon *d)
{
	if (d->ctl.stopping)
		return;
	d->hup_pending = true;
	if (!d->hup_running && !uv_is_active((uv_handle_t *)&d->hup_timer))
		daemon_signals_hup_start(d);
}

static void daemon_signals_on_readable(uv_poll_t *p, int status, int events)
{
	struct daemon *d = p->data;
	struct signalfd_siginfo si[8];
	bool hup = false;
	int stop = 0;

	(void)events;
	if (status < 0) {
		/* Not a daemon that SIGTERM can no longer stop: stop it now. */
		log_error("cannot read signals: %s; stopping", uv_strerror(status));
		uv_poll_stop(p);
		daemon_stop(d, 1);
		return;
	}
	for (int i = 0; i < DAEMON_SIGNAL_READS_MAX; i++) {
		ssize_t n = read(d->sig_fd, si, sizeof si);

		if (n <= 0)
			break;          /* EAGAIN: all taken (no handler: no EINTR) */
		/* Each SIGHUP read is counted (status's sighups): the kernel
		 * merged into it those sent while it was pending. */
		for (size_t k = 0; k < (size_t)n / sizeof si[0]; k++) {
			if (si[k].ssi_signo == SIGHUP) {
				d->ctl.sighups++;
				hup = true;
			} else if (stop == 0) {
				stop = (int)si[k].ssi_signo;
			}
		}
	}
	if (stop != 0)
		daemon_signals_on_stop(d, stop);
	if (hup)
		daemon_signals_on_hup(d);
}

int daemon_signals_start(struct daemon *d, char *err, size_t errlen)
{
	sigset_t set;
	uint64_t wd;
	int rc;

	/* The timers first: a shutdown closes them even when what follows
	 * fails. */
	uv_timer_init(d->loop, &d->watchdog);
	uv_timer_init(d->loop, &d->hup_timer);
	d->hup_timer.data = d;
	daemon_signals_set(&set);
	d->sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d->sig_fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot make a signalfd: %s", strerror(-rc));
		return rc;
	}
	rc = uv_poll_init(d->loop, &d->sig_poll, d->sig_fd);
	if (rc < 0) {
		snprintf(err, errlen, "cannot poll the signalfd: %s", uv_strerror(rc));
		close(d->sig_fd);
		d->sig_fd = -1;
		return rc;
	}
	d->sig_poll.data = d;
	rc = uv_poll_start(&d->sig_poll, UV_READABLE, daemon_signals_on_readable);
	if (rc < 0) {
		snprintf(err, errlen, "cannot poll the signalfd: %s", uv_strerror(rc));
		return rc;      /* the shutdown closes the handle and the fd */
	}
	wd = notify_watchdog_interval_usec();
	if (wd > 0)
		uv_timer_start(&d->watchdog, daemon_signals_watchdog, wd / 2000, wd / 2000);
	return 0;
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
 * libuv's thread pool is started here, with every signal blocked (threads
 * inherit the mask), rather than by the first load: SIGTERM, SIGINT and
 * SIGHUP are blocked already (daemon_signals_block), and the pool's threads
 * take no other asynchronous signal either.
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
