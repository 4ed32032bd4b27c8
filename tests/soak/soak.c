/*
 * soak [-s SECONDS] [-k CLIENTS] [-t REPLY_TIMEOUT_MS] [-i KILL_MS] [-S SEED]
 *      [-H HOLD_SECONDS]
 *
 * The soak test of the real daemon ($ANIMD, as the integration tests take
 * it): under load and abuse for SECONDS, nothing may crash, hang, leak or
 * lose a reply, and nothing it sends may be a str that is not text.  It
 * starts animd on a private socket and a temporary asset tree of generated
 * assets, with a small budget for stream memory, then runs an asset
 * rewriter (saves of every kind, odd file names, folders replaced under
 * their name) and CLIENTS client processes doing random requests
 * (soak_client.c: their streams run into the budget), SIGKILLs a client
 * every KILL_MS on average and starts another, halfway starts a second
 * daemon on the same socket (it must refuse and leave the first alone),
 * and measures the daemon from outside once a second.  At the end: every
 * client done, the daemon still answering with nothing left behind by the
 * clients (no connection, instance or stream memory), memory and
 * descriptors flat after the warm-up, no torn pose, a folder replaced and
 * edited at once seen without a rescan, then SIGTERM and a clean exit
 * (status 0, "stopped" in its log, no sanitizer report).
 *
 * -H keeps the idle daemon running that long before the SIGTERM, for a
 * look at it from outside.  Exit status 0 pass, 1 fail (every failed check
 * is printed), 2 usage.
 * SOAK_SECONDS and SOAK_CLIENTS set the defaults; SOAK_SAN=1 says the
 * daemon runs under ASan+UBSan (the report says so).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/soak/soak_assets.h"
#include "tests/soak/soak_run.h"

#define SOAK_RSS_MARGIN_KB 4096u        /* or 10 % of the warm-up maximum, if larger */
#define SOAK_FD_MARGIN 4
#define SOAK_QUIESCE_MS 10000

static int soak_env_int(const char *name, int fallback)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : fallback;
}

static int soak_parse(int argc, char **argv, struct soak_run *run)
{
	int c;

	run->cfg.seconds = soak_env_int("SOAK_SECONDS", 20);
	run->cfg.clients = soak_env_int("SOAK_CLIENTS", 8);
	run->cfg.reply_timeout_ms = 10000;
	run->cfg.seed = (uint64_t)soak_clock_now_ns() ^ ((uint64_t)getpid() << 32);
	run->kill_ms = 1500;
	run->san = soak_env_int("SOAK_SAN", 0) != 0;
	while ((c = getopt(argc, argv, "s:k:t:i:S:H:h")) != -1) {
		switch (c) {
		case 'H': run->hold_s = atoi(optarg); break;
		case 's': run->cfg.seconds = atoi(optarg); break;
		case 'k': run->cfg.clients = atoi(optarg); break;
		case 't': run->cfg.reply_timeout_ms = atoi(optarg); break;
		case 'i': run->kill_ms = atoi(optarg); break;
		case 'S': run->cfg.seed = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: soak [-s SECONDS] [-k CLIENTS] [-t REPLY_TIMEOUT_MS] "
				"[-i KILL_MS (0: none)] [-S SEED] [-H HOLD_SECONDS]\n");
			return -1;
		}
	}
	if (run->cfg.seconds < 2 || run->cfg.clients < 1 || run->cfg.clients > SOAK_MAX_CLIENTS ||
	    run->cfg.reply_timeout_ms < 100 || run->kill_ms < 0) {
		fprintf(stderr, "soak: SECONDS >= 2, 1 <= CLIENTS <= %d, REPLY_TIMEOUT_MS >= 100, "
			"KILL_MS >= 0\n", SOAK_MAX_CLIENTS);
		return -1;
	}
	return 0;
}

/* The daemon's settings: a short rescan interval, so that rescans run under
 * load too (the final check sets a long one), and a stream budget the
 * clients' streams run into. */
#define SOAK_STREAM_BUDGET "48M"
#define SOAK_INI(rescan_s) \
	"[reload]\nquiet_ms = 150\nrescan_interval_s = " rescan_s "\n\n" \
	"[streams]\nmax_total_bytes = " SOAK_STREAM_BUDGET "\n"

/* The daemon's assets, its configuration, the daemon, and the driver's
 * connection. */
static int soak_start(struct soak_run *run, struct soak_variants *v)
{
	char scratch[400];
	const char *events[] = { "asset.loaded", "asset.reloaded", "asset.error", "asset.removed",
				 NULL };
	struct rpc_reply r;
	int rc;

	rc = daemon_proc_init(&run->d);
	if (rc < 0)
		return rc;
	snprintf(scratch, sizeof scratch, "%s/gen", run->d.dir);
	if (mkdir(scratch, 0755) < 0)
		return -errno;
	rc = soak_assets_build(scratch, v);
	if (rc == 0)
		rc = soak_assets_install(run->d.assets, v);
	if (rc < 0) {
		printf("soak: cannot generate the assets: %s\n", strerror(-rc));
		return rc;
	}
	rc = daemon_proc_start(&run->d, SOAK_INI("3"), run->san ? 60000 : 10000);
	if (rc < 0) {
		printf("soak: the daemon did not start (%s); its log:\n", strerror(-rc));
		soak_log_tail(run->d.log, 40);
		return rc;
	}
	rc = rpc_client_connect(&run->mon, run->d.socket, run->cfg.reply_timeout_ms);
	if (rc < 0)
		return rc;
	run->mon.timeout_ms = run->cfg.reply_timeout_ms;
	rc = rpc_client_call(&run->mon, &r, "subscribe", "events:S", events);
	if (rc < 0)
		return rc;
	rpc_reply_free(&r);
	run->cfg.socket = run->d.socket;
	run->cfg.assets = run->d.assets;
	return 0;
}

/* Once the clients are gone, the daemon must hold nothing of theirs: the
 * driver's is the only connection, no instance, no stream, and no
 * descriptor beyond those it had before the load. */
static void soak_quiesce(struct soak_run *run)
{
	int64_t limit = soak_clock_now_ns() + (int64_t)SOAK_QUIESCE_MS * 1000000;
	struct soak_proc_sample s;
	int ok;

	do {
		if (soak_proc_sample(run->d.pid, &s) < 0 || soak_run_status(run, &s) < 0)
			return;
		ok = s.connections == 1 && s.instances == 0 && s.streams == 0 &&
		     s.fds <= run->start.fds;
		if (!ok)
			soak_clock_sleep_ms(100);
	} while (!ok && soak_clock_now_ns() < limit);
	run->idle = s;
	if (s.connections != 1 || s.instances != 0 || s.streams != 0)
		soak_run_fail(run, "%d s after the clients ended the daemon still has %lld "
			      "connections (1 expected), %lld instances, %lld streams",
			      SOAK_QUIESCE_MS / 1000, (long long)s.connections,
			      (long long)s.instances, (long long)s.streams);
	if (run->streams_bytes != 0)
		soak_run_fail(run, "the clients are gone but the stream budget still counts %lld "
			      "bytes", (long long)run->streams_bytes);
	if (s.fds > run->start.fds)
		soak_run_fail(run, "descriptors leaked: %d open with the clients gone, %d before "
			      "the load", s.fds, run->start.fds);
}

/* After the warm-up, memory and descriptors stay flat: the last sample is
 * within a margin of the warm-up's maximum.  Memory is counted without the
 * streams' shared pages and descriptors without those of open connections
 * and streams, which come and go with the clients (both are printed in
 * full). */
static void soak_check_flat(struct soak_run *run)
{
	const struct soak_proc_sample *end;
	uint64_t warm_kb = 0, limit_kb;
	int warm_fds = 0;

	if (run->warm == 0 || run->nsamples <= run->warm) {
		printf("soak: too short a run to judge memory and descriptors after the warm-up\n");
		return;
	}
	for (size_t i = 0; i < run->warm; i++) {
		uint64_t kb = soak_proc_private_kb(&run->samples[i]);
		int fds = soak_proc_base_fds(&run->samples[i]);

		warm_kb = kb > warm_kb ? kb : warm_kb;
		warm_fds = fds > warm_fds ? fds : warm_fds;
	}
	end = &run->samples[run->nsamples - 1];
	limit_kb = warm_kb + (warm_kb / 10 > SOAK_RSS_MARGIN_KB ? warm_kb / 10 : SOAK_RSS_MARGIN_KB);
	if (soak_proc_private_kb(end) > limit_kb)
		soak_run_fail(run, "memory grew: %.1f MiB at the end, the warm-up's maximum was %.1f "
			      "MiB (limit %.1f: plus 10 %% or 4 MiB)",
			      (double)soak_proc_private_kb(end) / 1024, (double)warm_kb / 1024,
			      (double)limit_kb / 1024);
	if (soak_proc_base_fds(end) > warm_fds + SOAK_FD_MARGIN)
		soak_run_fail(run, "descriptors grew: %d beyond connections and streams at the end, "
			      "the warm-up's maximum was %d (limit plus %d)",
			      soak_proc_base_fds(end), warm_fds, SOAK_FD_MARGIN);
}

/* A folder replaced under its name and edited at once: the edit is seen
 * by the watch on the new folder, not by a rescan (the configuration is
 * re-read first with a rescan interval of an hour). */
static void soak_check_swap(struct soak_run *run)
{
	char path[600];
	int64_t t, reloads = -1, v, limit;
	struct rpc_reply r;
	struct rpc_event ev;
	int seen = 0;
	FILE *f = fopen(run->d.config, "w");

	if (f == NULL) {
		soak_run_fail(run, "cannot rewrite %s: %s", run->d.config, strerror(errno));
		return;
	}
	fprintf(f, "[assets]\nroot = %s\n\n[socket]\npath = %s\n\n%s\n", run->d.assets,
		run->d.socket, SOAK_INI("3600"));
	fclose(f);
	if (rpc_client_call(&run->mon, &r, "status", NULL) == 0) {
		rpc_get_i64(r.result, "config_reloads", &reloads);
		rpc_reply_free(&r);
	}
	kill(run->d.pid, SIGHUP);
	limit = soak_clock_now_ns() + 10000000000LL;
	for (v = reloads; v <= reloads && soak_clock_now_ns() < limit;) {
		soak_clock_sleep_ms(50);
		daemon_proc_drain_notify(&run->d);
		if (rpc_client_call(&run->mon, &r, "status", NULL) == 0) {
			rpc_get_i64(r.result, "config_reloads", &v);
			rpc_reply_free(&r);
		}
	}
	if (v <= reloads) {
		soak_run_fail(run, "the configuration was not re-read after SIGHUP");
		return;
	}
	soak_clock_sleep_ms(500);       /* the rescan the reload starts, done */
	soak_run_drain_events(run);
	if (soak_rewriter_swap(run->d.assets, &run->variants[SOAK_ASSET_TOGGLED].good[0], 1,
			       NULL) < 0) {
		soak_run_fail(run, "cannot replace the folder %s", SOAK_SWAP_DIR);
		return;
	}
	t = soak_clock_now_ns();
	snprintf(path, sizeof path, "%s/" SOAK_SWAP_DIR "/y.md5camera", run->d.assets);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(run->variants[SOAK_ASSET_TOGGLED].good[0].data, 1,
				run->variants[SOAK_ASSET_TOGGLED].good[0].len, f) == 0) {
		soak_run_fail(run, "cannot write %s", path);
		if (f != NULL)
			fclose(f);
		return;
	}
	fclose(f);
	while (!seen && rpc_client_next_event(&run->mon, 3000, &ev) == 0) {
		const msgpack_object *asset = rpc_get(ev.body, "asset");

		seen = strcmp(ev.type, "asset.loaded") == 0 && asset != NULL &&
		       asset->type == MSGPACK_OBJECT_STR &&
		       asset->via.str.size == sizeof(SOAK_SWAP_DIR "/y.md5camera") - 1 &&
		       memcmp(asset->via.str.ptr, SOAK_SWAP_DIR "/y.md5camera",
			      asset->via.str.size) == 0;
		run->monitor.events[soak_stats_event_of(ev.type)]++;
		rpc_event_free(&ev);
	}
	run->swap_seen_ms = (double)(soak_clock_now_ns() - t) / 1e6;
	if (!seen)
		soak_run_fail(run, "an asset written into a folder just replaced under its name was "
			      "not loaded within 3 s: the new folder is not watched");
}

/* SIGTERM: every client (here, the driver's connection) is told
 * server.stopping, then the daemon exits 0 within the timeout. */
static void soak_stop(struct soak_run *run)
{
	int64_t t = soak_clock_now_ns();
	int timeout = run->cfg.reply_timeout_ms > 10000 ? run->cfg.reply_timeout_ms : 10000;
	struct rpc_event ev;
	int told = 0, rc;

	kill(run->d.pid, SIGTERM);
	while (!told && rpc_client_next_event(&run->mon, timeout, &ev) == 0) {
		told = strcmp(ev.type, "server.stopping") == 0;
		run->monitor.events[soak_stats_event_of(ev.type)]++;
		rpc_event_free(&ev);
	}
	if (!told)
		soak_run_fail(run, "SIGTERM: no server.stopping event on the driver's connection");
	/* Signal 0: the SIGTERM is sent already; this only waits for the
	 * exit. */
	rc = daemon_proc_stop(&run->d, 0, timeout);
	run->stop_ms = (double)(soak_clock_now_ns() - t) / 1e6;
	run->exit_status = rc;
	if (rc == -ETIMEDOUT)
		soak_run_fail(run, "SIGTERM: the daemon did not exit within %d ms", timeout);
	else if (rc != 0)
		soak_run_fail(run, "SIGTERM: the daemon exited with status %d", rc);
}

static void soak_check_log(struct soak_run *run)
{
	if (soak_log_scan(run->d.log, &run->log) < 0) {
		soak_run_fail(run, "cannot read the daemon's log %s", run->d.log);
		return;
	}
	if (run->log.sanitizer > 0)
		soak_run_fail(run, "the sanitizers reported (%d lines), first: %s", run->log.sanitizer,
			      run->log.first_sanitizer);
	if (run->log.errors > 0)
		soak_run_fail(run, "%u error lines in the daemon's log, first: %s", run->log.errors,
			      run->log.first_error);
	if (!run->log.stopped)
		soak_run_fail(run, "the log does not end with a clean stop (\"stopped\")");
	if (run->failures > 0 && (run->log.sanitizer > 0 || !run->log.stopped))
		soak_log_tail(run->d.log, 60);
}

static struct soak_run run;

static void soak_on_signal(int sig)
{
	(void)sig;
	run.interrupted = 1;
}

/* Every top-level object must be a reply or an event (the test client is
 * strict: a stray one ends that connection's reads as a protocol error). */
static void soak_check_strays(struct soak_run *r)
{
	if (r->mon.strays != 0)
		soak_run_fail(r, "%llu stray objects on the driver's connection: a message the daemon "
			      "wrote was not one whole msgpack-RPC message, or held a str that is "
			      "not text", (unsigned long long)r->mon.strays);
	if (r->clients.strays != 0)
		soak_run_fail(r, "%llu stray objects on the clients' connections: a message the "
			      "daemon wrote was not one whole msgpack-RPC message, or held a str "
			      "that is not text", (unsigned long long)r->clients.strays);
}

int main(int argc, char **argv)
{
	struct soak_variants v[SOAK_ASSET_COUNT];
	size_t shared_bytes = sizeof(struct soak_stats) * (SOAK_MAX_CLIENTS + 1);
	int load;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, soak_on_signal);
	signal(SIGTERM, soak_on_signal);
	run.exit_status = -1;
	run.t_begin_ns = soak_clock_now_ns();
	if (soak_parse(argc, argv, &run) < 0)
		return 2;
	run.variants = v;
	run.shared = mmap(NULL, shared_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (run.shared == MAP_FAILED) {
		perror("soak: mmap");
		return 1;
	}
	if (soak_start(&run, v) < 0) {
		daemon_proc_cleanup(&run.d);
		return 1;
	}
	printf("soak: %d s, %d clients, seed %llu, a SIGKILL every %d ms on average; daemon %s "
	       "(pid %d), assets %s\n", run.cfg.seconds, run.cfg.clients,
	       (unsigned long long)run.cfg.seed, run.kill_ms, getenv("ANIMD") ? getenv("ANIMD")
	       : "build/animd", (int)run.d.pid, run.d.assets);
	if (soak_proc_sample(run.d.pid, &run.start) < 0 || soak_run_status(&run, &run.start) < 0) {
		soak_run_fail(&run, "cannot measure the daemon before the load");
		daemon_proc_cleanup(&run.d);
		return 1;
	}
	run.requests_start = run.requests_end;
	run.cfg.deadline_ns = soak_clock_now_ns() + (int64_t)run.cfg.seconds * 1000000000LL;
	load = soak_run_load(&run);
	if (load == 0 && run.d.pid > 0) {
		soak_quiesce(&run);
		soak_check_flat(&run);
		if (run.hold_s > 0) {
			/* The daemon at rest, for a look from outside (gdb, /proc). */
			printf("soak: holding the idle daemon (pid %d) for %d s\n", (int)run.d.pid,
			       run.hold_s);
			for (int s = 0; s < run.hold_s && !run.interrupted; s++)
				soak_clock_sleep_ms(1000);
		}
		soak_check_swap(&run);
		soak_run_drain_events(&run);
		soak_stop(&run);
	} else if (run.d.pid > 0) {
		soak_stop(&run);
	}
	/* Torn and non-finite poses were reported by the clients that read them. */
	soak_check_strays(&run);
	run.monitor.strays = run.mon.strays;
	soak_check_log(&run);
	soak_report_print(&run);
	rpc_client_close(&run.mon);
	daemon_proc_cleanup(&run.d);
	soak_assets_free(v);
	printf("soak: %s (%llu failed checks)\n", run.failures ? "FAIL" : "PASS",
	       (unsigned long long)run.failures);
	return run.failures ? 1 : 0;
}
