/*
 * soak_run.c - the load phase: the rewriter and K clients are forked, a
 * random client is SIGKILLed now and then and replaced, and once a second
 * the daemon is measured (/proc) and asked for its status on the driver's
 * own connection, which must answer within the reply timeout.
 */
#include "tests/soak/soak_run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/soak/soak_rand.h"

#define RUN_TICK_MS 50
#define RUN_PROGRESS_MIN_S 10

void soak_run_fail(struct soak_run *run, const char *fmt, ...)
{
	va_list ap;

	printf("soak: FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	run->failures++;
}

void soak_run_drain_events(struct soak_run *run)
{
	struct rpc_reply stray_reply;
	struct rpc_event ev;

	/* Parse what has arrived, so that events never pile up past the
	 * client's queue; no reply is due outside soak_run_status. */
	while (rpc_client_read_nowait(&run->mon) == 0)
		;
	while (rpc_client_next_buffered(&run->mon, &stray_reply) == 1) {
		soak_run_fail(run, "a reply to msgid %u on the driver's connection, which asked "
			      "nothing", stray_reply.msgid);
		rpc_reply_free(&stray_reply);
	}
	while (run->mon.event_count > 0 && rpc_client_next_event(&run->mon, 0, &ev) == 0) {
		run->monitor.events[soak_stats_event_of(ev.type)]++;
		rpc_event_free(&ev);
	}
	run->monitor.strays = run->mon.strays;
	run->monitor.events_dropped = run->mon.events_dropped;
}

int soak_run_status(struct soak_run *run, struct soak_proc_sample *s)
{
	int64_t t = soak_clock_now_ns(), v;
	struct rpc_reply r;
	double ms;
	int rc;

	/* Whatever arrived since the last call (events) is read first. */
	while (rpc_client_read_nowait(&run->mon) == 0)
		;
	rc = rpc_client_call(&run->mon, &r, "status", NULL);
	ms = (double)(soak_clock_now_ns() - t) / 1e6;
	if (rc < 0) {
		soak_run_fail(run, "the daemon did not answer status: %s", strerror(-rc));
		return -1;
	}
	run->status_calls++;
	if (ms > run->status_max_ms)
		run->status_max_ms = ms;
	if (r.error != NULL) {
		soak_run_fail(run, "status: %s: %s", r.code, r.message);
		rpc_reply_free(&r);
		return -1;
	}
	if (s != NULL) {
		if (rpc_get_i64(r.result, "connections", &v) == 0)
			s->connections = v;
		if (rpc_get_i64(r.result, "streams", &v) == 0)
			s->streams = v;
		if (rpc_get_i64(r.result, "instances", &v) == 0)
			s->instances = v;
	}
	if (rpc_get_i64(r.result, "requests", &v) == 0)
		run->requests_end = v;
	if (rpc_get_i64(rpc_get(r.result, "memory"), "streams", &v) == 0)
		run->streams_bytes = v;
	rpc_reply_free(&r);
	soak_run_drain_events(run);
	return 0;
}

static void run_spawn(struct soak_run *run, unsigned i)
{
	struct soak_child *ch = &run->child[i];
	uint64_t seed = run->cfg.seed ^ ((uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull) ^
			((uint64_t)ch->generation << 40);
	pid_t parent = getpid(), pid;

	memset(&run->shared[i], 0, sizeof run->shared[i]);
	/* A child's exit must not flush the driver's buffered output again. */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		soak_run_fail(run, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		int rc;

		/* A driver killed outright must not leave its children behind. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		/* Only the driver handles these; a Ctrl-C ends the children. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(run->mon.fd);
		if (run->d.notify_fd >= 0)
			close(run->d.notify_fd);
		rc = i == SOAK_REWRITER
		     ? soak_rewriter_main(&run->cfg, &run->shared[i], seed, run->variants)
		     : soak_client_main(&run->cfg, &run->shared[i], seed);
		_exit(rc);
	}
	ch->pid = pid;
	ch->killed = 0;
	ch->generation++;
	if (i != SOAK_REWRITER)
		run->started++;
}

/* Account for a child that has ended.  Its counters are final: waitpid
 * ordered every write it made before this read. */
static void run_reaped(struct soak_run *run, unsigned i, int status)
{
	struct soak_child *ch = &run->child[i];
	struct soak_stats *st = &run->shared[i];
	const char *who = i == SOAK_REWRITER ? "rewriter" : "client";
	int normal = WIFEXITED(status) && (WEXITSTATUS(status) == 0 ||
					   (WEXITSTATUS(status) == 1 && st->failures > 0));

	for (uint64_t k = 0; k < st->failures && k < SOAK_FAIL_MSGS; k++)
		soak_run_fail(run, "%s %u.%u: %s", who, i, ch->generation, st->fail[k]);
	if (st->failures > SOAK_FAIL_MSGS) {
		printf("soak: FAIL: %s %u.%u: ... and %llu more\n", who, i, ch->generation,
		       (unsigned long long)(st->failures - SOAK_FAIL_MSGS));
		run->failures += st->failures - SOAK_FAIL_MSGS;
	}
	if (WIFSIGNALED(status) && ((ch->killed && WTERMSIG(status) == SIGKILL) ||
				    (run->interrupted && WTERMSIG(status) == SIGINT))) {
		run->killed++;
	} else if (!normal) {
		if (WIFSIGNALED(status))
			soak_run_fail(run, "%s %u.%u died of signal %d", who, i, ch->generation,
				      WTERMSIG(status));
		else
			soak_run_fail(run, "%s %u.%u exited with status %d", who, i, ch->generation,
				      WEXITSTATUS(status));
	} else if (i != SOAK_REWRITER) {
		/* A client that finished on its own owes an account of every
		 * request: answered, abandoned by its choice, or lost. */
		uint64_t sent = 0, answered = 0;

		for (int k = 0; k < SOAK_KIND_COUNT; k++)
			sent += st->sent[k], answered += st->answered[k];
		if (sent != answered + st->abandoned + st->lost)
			soak_run_fail(run, "client %u.%u: %llu requests sent but %llu answered, %llu "
				      "abandoned, %llu lost", i, ch->generation,
				      (unsigned long long)sent, (unsigned long long)answered,
				      (unsigned long long)st->abandoned, (unsigned long long)st->lost);
	}
	soak_stats_add(i == SOAK_REWRITER ? &run->rewriter : &run->clients, st);
	ch->pid = -1;
}

static int run_reap(struct soak_run *run, unsigned i, int block)
{
	int status;

	if (run->child[i].pid <= 0 || waitpid(run->child[i].pid, &status, block ? 0 : WNOHANG) !=
					      run->child[i].pid)
		return 0;
	run_reaped(run, i, status);
	return 1;
}

/* 1 if the daemon has ended (recorded as a failure, with its log's tail). */
static int run_daemon_gone(struct soak_run *run)
{
	int status;

	if (run->d.pid <= 0)
		return 1;
	if (waitpid(run->d.pid, &status, WNOHANG) != run->d.pid)
		return 0;
	run->d.pid = -1;
	if (WIFSIGNALED(status))
		soak_run_fail(run, "the daemon died of signal %d", WTERMSIG(status));
	else
		soak_run_fail(run, "the daemon exited with status %d", WEXITSTATUS(status));
	soak_log_tail(run->d.log, 40);
	return 1;
}

static void run_kill_one(struct soak_run *run, struct soak_rand *r)
{
	unsigned i = soak_rand_below(r, (uint32_t)run->cfg.clients);

	if (run->child[i].pid <= 0)
		return;
	kill(run->child[i].pid, SIGKILL);
	run->child[i].killed = 1;
	run_reap(run, i, 1);
	run_spawn(run, i);
}

static void run_sample(struct soak_run *run)
{
	struct soak_proc_sample s;

	if (soak_proc_sample(run->d.pid, &s) < 0)
		return;
	if (soak_run_status(run, &s) < 0)
		return;
	if (run->nsamples == run->capsamples) {
		size_t cap = run->capsamples ? run->capsamples * 2 : 256;
		struct soak_proc_sample *p = realloc(run->samples, cap * sizeof *p);

		if (p == NULL)
			return;
		run->samples = p;
		run->capsamples = cap;
	}
	run->samples[run->nsamples++] = s;
}

static void run_progress(struct soak_run *run, int64_t *last_requests, int64_t *last_t)
{
	const struct soak_proc_sample *s = &run->samples[run->nsamples - 1];
	double dt = (double)(s->t_ns - *last_t) / 1e9;

	printf("soak: [%4.0f s] %6.0f req/s, RSS %.1f MiB (own %.1f), fds %d (%d beyond "
	       "connections and streams), %lld connections, %lld instances, %lld streams, "
	       "%llu kills\n",
	       (double)(s->t_ns - run->t0_ns) / 1e9,
	       dt > 0 ? (double)(run->requests_end - *last_requests) / dt : 0.0,
	       (double)s->rss_kb / 1024, (double)soak_proc_private_kb(s) / 1024, s->fds,
	       soak_proc_base_fds(s), (long long)s->connections, (long long)s->instances,
	       (long long)s->streams, (unsigned long long)run->killed);
	fflush(stdout);
	*last_requests = run->requests_end;
	*last_t = s->t_ns;
}

/* After the deadline the children finish on their own (a client completes
 * its outstanding requests first); one that does not is hung. */
static void run_wind_down(struct soak_run *run)
{
	int64_t limit = soak_clock_now_ns() + (int64_t)(2 * run->cfg.reply_timeout_ms + 10000) * 1000000;
	unsigned left;

	do {
		left = 0;
		for (unsigned i = 0; i <= SOAK_REWRITER; i++) {
			run_reap(run, i, 0);
			left += run->child[i].pid > 0;
		}
		if (left > 0)
			soak_clock_sleep_ms(RUN_TICK_MS);
	} while (left > 0 && soak_clock_now_ns() < limit);
	for (unsigned i = 0; i <= SOAK_REWRITER; i++) {
		if (run->child[i].pid <= 0)
			continue;
		soak_run_fail(run, "%s %u did not finish within %lld ms of the deadline",
			      i == SOAK_REWRITER ? "the rewriter" : "client", i,
			      (long long)(2 * run->cfg.reply_timeout_ms + 10000));
		kill(run->child[i].pid, SIGKILL);
		run->child[i].killed = 1;
		run_reap(run, i, 1);
	}
}

void soak_run_second_daemon(struct soak_run *run)
{
	char dir[400], cfg[480], log[480], assets[480];
	struct stat before, after;
	int64_t limit;
	pid_t pid;
	FILE *f;
	int status = 0, done = 0;

	snprintf(dir, sizeof dir, "%s/second", run->d.dir);
	snprintf(cfg, sizeof cfg, "%s/animd.ini", dir);
	snprintf(log, sizeof log, "%s/animd.log", dir);
	snprintf(assets, sizeof assets, "%s/assets", dir);
	if ((mkdir(dir, 0755) < 0 && errno != EEXIST) || (mkdir(assets, 0755) < 0 && errno != EEXIST) ||
	    lstat(run->d.socket, &before) < 0) {
		soak_run_fail(run, "second daemon: cannot prepare: %s", strerror(errno));
		return;
	}
	f = fopen(cfg, "w");
	if (f == NULL) {
		soak_run_fail(run, "second daemon: %s: %s", cfg, strerror(errno));
		return;
	}
	fprintf(f, "[assets]\nroot = %s\n\n[socket]\npath = %s\n", assets, run->d.socket);
	fclose(f);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		const char *animd = getenv("ANIMD") ? getenv("ANIMD") : "build/animd";

		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			dup2(fd, STDOUT_FILENO);
		}
		unsetenv("NOTIFY_SOCKET");
		execl(animd, animd, "serve", "-c", cfg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0) {
		soak_run_fail(run, "second daemon: fork: %s", strerror(errno));
		return;
	}
	limit = soak_clock_now_ns() + 20000000000LL;
	while (!done && soak_clock_now_ns() < limit) {
		done = waitpid(pid, &status, WNOHANG) == pid;
		if (!done)
			soak_clock_sleep_ms(50);
	}
	if (!done) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		soak_run_fail(run, "a second daemon on the socket did not give up within 20 s");
		run->second_daemon = -1;
		return;
	}
	run->second_daemon = 1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 0) {
		soak_run_fail(run, "a second daemon on the same socket did not refuse to start "
			      "(status 0x%x); its log:", status);
		soak_log_tail(log, 10);
		run->second_daemon = -1;
	}
	if (lstat(run->d.socket, &after) < 0 || !S_ISSOCK(after.st_mode) ||
	    after.st_ino != before.st_ino || after.st_dev != before.st_dev) {
		soak_run_fail(run, "after a second daemon tried the socket, %s is no longer the "
			      "first daemon's", run->d.socket);
		run->second_daemon = -1;
	}
}

int soak_run_load(struct soak_run *run)
{
	int64_t warm_ns = (int64_t)(run->cfg.seconds / 4 > 10 ? run->cfg.seconds / 4
				    : run->cfg.seconds / 2 < 10 ? run->cfg.seconds / 2 : 10) * 1000000000LL;
	int64_t progress_ns = (int64_t)(run->cfg.seconds / 20 > RUN_PROGRESS_MIN_S
					? run->cfg.seconds / 20 : RUN_PROGRESS_MIN_S) * 1000000000LL;
	int64_t now = soak_clock_now_ns(), next_sample = now, next_kill, next_progress;
	int64_t second_at = now + (run->cfg.deadline_ns - now) / 2;
	int64_t last_requests = run->requests_start, last_t = now;
	struct soak_rand r;
	int rc = 0;

	soak_rand_seed(&r, run->cfg.seed ^ 0x5eed);
	next_kill = now + (int64_t)run->kill_ms * 1000000;
	next_progress = now + progress_ns;
	run->t0_ns = now;
	for (unsigned i = 0; i <= SOAK_REWRITER; i++)
		run->child[i].pid = -1;
	run_spawn(run, SOAK_REWRITER);
	for (unsigned i = 0; i < (unsigned)run->cfg.clients; i++)
		run_spawn(run, i);
	while ((now = soak_clock_now_ns()) < run->cfg.deadline_ns) {
		if (run->interrupted) {
			soak_run_fail(run, "interrupted after %.0f s",
				      (double)(now - run->t0_ns) / 1e9);
			rc = -1;
			break;
		}
		if (run_daemon_gone(run)) {
			rc = -1;
			break;
		}
		/* A client ends early only after a failure it recorded; keep the load up. */
		for (unsigned i = 0; i < (unsigned)run->cfg.clients; i++)
			if (run_reap(run, i, 0))
				run_spawn(run, i);
		run_reap(run, SOAK_REWRITER, 0);
		if (run->kill_ms > 0 && now >= next_kill) {
			run_kill_one(run, &r);
			next_kill = now + (int64_t)(run->kill_ms / 2 + (int)soak_rand_below(&r,
						(uint32_t)run->kill_ms + 1)) * 1000000;
		}
		if (now >= next_sample) {
			size_t before = run->nsamples;

			run_sample(run);
			if (run->nsamples == before) {
				/* Gone, or not answering status (a failure either way). */
				run_daemon_gone(run);
				rc = -1;
				break;
			}
			if (now - run->t0_ns < warm_ns)
				run->warm = run->nsamples;
			next_sample += 1000000000LL;
		}
		if (run->second_daemon == 0 && now >= second_at)
			soak_run_second_daemon(run);
		soak_run_drain_events(run);
		if (now >= next_progress && run->nsamples > 0) {
			run_progress(run, &last_requests, &last_t);
			next_progress += progress_ns;
		}
		soak_clock_sleep_ms(RUN_TICK_MS);
	}
	run->t_load_end_ns = soak_clock_now_ns();
	if (rc < 0) {
		/* The daemon is gone: nothing left to wait for. */
		for (unsigned i = 0; i <= SOAK_REWRITER; i++)
			if (run->child[i].pid > 0) {
				kill(run->child[i].pid, SIGKILL);
				run->child[i].killed = 1;
				run_reap(run, i, 1);
			}
		return -1;
	}
	run_wind_down(run);
	return 0;
}
