/* soak_report.c - the figures of a run, printed whether it passed or not. */
#include <stdio.h>

#include "tests/soak/soak_run.h"

static double report_mib(uint64_t kb)
{
	return (double)kb / 1024.0;
}

static void report_requests(const struct soak_run *run, double secs)
{
	const struct soak_stats *c = &run->clients;
	uint64_t sent = 0, answered = 0, errors = 0;

	printf("requests (all clients)          sent    answered      errors     per s\n");
	for (int k = 0; k < SOAK_KIND_COUNT; k++) {
		printf("  %-24s %11llu %11llu %11llu %9.0f\n", soak_stats_kind_name((enum soak_kind)k),
		       (unsigned long long)c->sent[k], (unsigned long long)c->answered[k],
		       (unsigned long long)c->errors[k], (double)c->answered[k] / secs);
		sent += c->sent[k];
		answered += c->answered[k];
		errors += c->errors[k];
	}
	printf("  %-24s %11llu %11llu %11llu %9.0f\n", "total", (unsigned long long)sent,
	       (unsigned long long)answered, (unsigned long long)errors, (double)answered / secs);
	printf("errors by code:\n");
	for (int k = 0; k < SOAK_KIND_COUNT; k++) {
		if (c->errors[k] == 0)
			continue;
		printf("  %-24s", soak_stats_kind_name((enum soak_kind)k));
		for (int e = 0; e < SOAK_CODE_COUNT; e++)
			if (c->codes[k][e] > 0)
				printf(" %s %llu", soak_stats_code_name((enum soak_code)e),
				       (unsigned long long)c->codes[k][e]);
		printf("\n");
	}
	printf("  unanswered: %llu abandoned by a client's own hang-up, %llu lost, the rest in "
	       "clients killed with SIGKILL\n",
	       (unsigned long long)c->abandoned, (unsigned long long)c->lost);
	printf("  the daemon counted %lld requests; %llu status round trips on the driver's "
	       "connection, the slowest %.1f ms\n",
	       (long long)(run->requests_end - run->requests_start),
	       (unsigned long long)run->status_calls, run->status_max_ms);
}

static void report_events(const char *who, const struct soak_stats *st)
{
	printf("events (%s):", who);
	for (int e = 0; e < SOAK_EV_COUNT; e++)
		if (st->events[e] > 0)
			printf(" %s %llu,", soak_stats_event_name((enum soak_event)e),
			       (unsigned long long)st->events[e]);
	printf(" stray objects %llu, dropped by the client's queue %llu\n",
	       (unsigned long long)st->strays, (unsigned long long)st->events_dropped);
}

static void report_memory(const struct soak_run *run)
{
	uint64_t warm_rss = 0, warm_own = 0, max_rss = 0, max_own = 0;
	int warm_fds = 0, warm_base = 0, max_fds = 0, max_base = 0;
	const struct soak_proc_sample *end = run->nsamples ? &run->samples[run->nsamples - 1] : NULL;

	if (end == NULL)
		return;
	for (size_t i = 0; i < run->nsamples; i++) {
		const struct soak_proc_sample *s = &run->samples[i];
		uint64_t own = soak_proc_private_kb(s);
		int base = soak_proc_base_fds(s);

		if (i < run->warm) {
			warm_rss = s->rss_kb > warm_rss ? s->rss_kb : warm_rss;
			warm_own = own > warm_own ? own : warm_own;
			warm_fds = s->fds > warm_fds ? s->fds : warm_fds;
			warm_base = base > warm_base ? base : warm_base;
		}
		max_rss = s->rss_kb > max_rss ? s->rss_kb : max_rss;
		max_own = own > max_own ? own : max_own;
		max_fds = s->fds > max_fds ? s->fds : max_fds;
		max_base = base > max_base ? base : max_base;
	}
	printf("memory, MiB (%zu samples, the first %zu the warm-up):\n", run->nsamples, run->warm);
	printf("  VmRSS                 start %6.1f  warm-up max %6.1f  max %6.1f  end %6.1f  "
	       "idle %6.1f\n", report_mib(run->start.rss_kb), report_mib(warm_rss),
	       report_mib(max_rss), report_mib(end->rss_kb), report_mib(run->idle.rss_kb));
	printf("  without stream pages  start %6.1f  warm-up max %6.1f  max %6.1f  end %6.1f  "
	       "idle %6.1f\n", report_mib(soak_proc_private_kb(&run->start)), report_mib(warm_own),
	       report_mib(max_own), report_mib(soak_proc_private_kb(end)),
	       report_mib(soak_proc_private_kb(&run->idle)));
	printf("daemon CPU: %.1f s during the load (%.0f %% of one core)\n",
	       end->cpu_s - run->start.cpu_s,
	       100.0 * (end->cpu_s - run->start.cpu_s) /
	       ((double)(end->t_ns - run->start.t_ns) / 1e9 + 1e-9));
	printf("descriptors:\n");
	printf("  open                  start %6d  warm-up max %6d  max %6d  end %6d  idle %6d\n",
	       run->start.fds, warm_fds, max_fds, end->fds, run->idle.fds);
	printf("  beyond conns+streams  start %6d  warm-up max %6d  max %6d  end %6d  idle %6d\n",
	       soak_proc_base_fds(&run->start), warm_base, max_base, soak_proc_base_fds(end),
	       soak_proc_base_fds(&run->idle));
}

void soak_report_print(const struct soak_run *run)
{
	double secs = (double)(run->t_load_end_ns - run->t0_ns) / 1e9;
	const struct soak_stats *c = &run->clients, *w = &run->rewriter;

	if (secs <= 0)
		secs = 1;
	printf("\n== soak figures: %.1f s of load, %d clients, seed %llu, reply timeout %d ms%s\n",
	       secs, run->cfg.clients, (unsigned long long)run->cfg.seed, run->cfg.reply_timeout_ms,
	       run->san ? ", daemon under ASan+UBSan" : "");
	report_requests(run, secs);
	report_events("driver's connection", &run->monitor);
	report_events("clients", c);
	printf("streams: %llu mapped, %llu poses read, %llu torn, %llu non-finite, %llu lapped, "
	       "%llu overwritten while copied\n",
	       (unsigned long long)c->streams_mapped, (unsigned long long)c->poses_read,
	       (unsigned long long)c->torn, (unsigned long long)c->nonfinite,
	       (unsigned long long)c->read_lapped, (unsigned long long)c->read_retries);
	printf("rewriter: %llu good saves, %llu broken;", (unsigned long long)w->saves_good,
	       (unsigned long long)w->saves_broken);
	for (int s = 0; s < SOAK_SAVE_COUNT; s++)
		printf(" %s %llu,", soak_stats_save_name((enum soak_save)s),
		       (unsigned long long)w->saves[s]);
	printf(" subdirectory toggled %llu times, odd names %llu steps, folder replaced %llu "
	       "times\n", (unsigned long long)w->dir_toggles, (unsigned long long)w->odd_names,
	       (unsigned long long)w->dir_swaps);
	printf("limits: stream.open refused by the budget %llu times; a second daemon on the "
	       "socket %s; a replaced folder's new asset loaded %.0f ms after it was written\n",
	       (unsigned long long)c->codes[SOAK_STREAM_OPEN][SOAK_CODE_LIMIT],
	       run->second_daemon > 0 ? "refused, the first untouched"
	       : run->second_daemon < 0 ? "NOT refused cleanly" : "not tried",
	       run->swap_seen_ms);
	printf("clients: %llu started, %llu killed with SIGKILL, %llu connections, %llu bursts, "
	       "%llu abrupt hang-ups, %llu protocol violations, %llu notifications\n",
	       (unsigned long long)run->started, (unsigned long long)run->killed,
	       (unsigned long long)c->sessions, (unsigned long long)c->bursts,
	       (unsigned long long)c->abrupt_closes, (unsigned long long)c->sent[SOAK_VIOLATION],
	       (unsigned long long)c->notifications);
	report_memory(run);
	printf("shutdown: ");
	if (run->exit_status >= 0)
		printf("exit status %d after %.0f ms", run->exit_status, run->stop_ms);
	else
		printf("no exit status");
	printf("; log: %u lines (%.1f MiB), %u warnings, %u errors, \"stopped\" %s, %d sanitizer "
	       "lines\n", run->log.lines, (double)run->log.bytes / 1048576.0, run->log.warnings,
	       run->log.errors, run->log.stopped ? "logged" : "missing", run->log.sanitizer);
	printf("duration: %.1f s of load, %.1f s in all (assets, start-up, wind-down, checks, "
	       "shutdown)\n", secs, (double)(soak_clock_now_ns() - run->t_begin_ns) / 1e9);
}
