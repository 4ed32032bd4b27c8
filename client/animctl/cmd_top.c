/*
 * top: a live view of the daemon from its `stats`, refreshed every
 * interval, like pw-top or `redis-cli --stat`: connections, streams with
 * the tick rate they achieve, their skipped ticks and what a pose costs,
 * requests per second, the cache's reloads and the last warnings.
 *
 * Every screen shows rates over the interval that just passed, so the first
 * comes one interval after the start (as `vmstat 1 2` does); counters are
 * the daemon's totals.  At a terminal the screen is redrawn in place (q
 * quits); otherwise each screen is printed after the last, a blank line
 * between, with no terminal controls, for scripts and tests.
 */
#include "client/animctl/animctl.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct top {
	struct ctl *ctl;
	bool tui;
	double interval;                /* seconds */
	const animc_stats_info *prev;   /* the sample before (may be NULL) */
	const animc_stats_info *cur;
	double dt;                      /* uptime between them, seconds */
};

static const animc_stats_connection *top_prev_connection(const struct top *t, uint64_t id)
{
	for (size_t i = 0; t->prev != NULL && i < t->prev->connection_count; i++)
		if (t->prev->connections[i]->connection == id)
			return t->prev->connections[i];
	return NULL;
}

static const animc_stats_stream *top_prev_stream(const struct top *t, uint64_t id)
{
	for (size_t i = 0; t->prev != NULL && i < t->prev->stream_count; i++)
		if (t->prev->streams[i]->stream == id)
			return t->prev->streams[i];
	return NULL;
}

/* What a stream did over the interval: new since the previous sample, or
 * since it opened when it is new. */
struct top_stream_rates {
	double poses_per_s;
	double us_per_pose;             /* NAN: no pose published */
	double cpu_percent;             /* of one core */
	uint64_t skipped;               /* ticks skipped in the interval */
};

static struct top_stream_rates top_stream_rates(const struct top *t, const animc_stats_stream *s)
{
	const animc_stats_stream *p = top_prev_stream(t, s->stream);
	uint64_t poses = s->poses - (p != NULL ? p->poses : 0);
	uint64_t cpu = s->cpu_ns - (p != NULL ? p->cpu_ns : 0);
	struct top_stream_rates r;

	r.poses_per_s = t->dt > 0 ? (double)poses / t->dt : 0;
	r.us_per_pose = poses > 0 ? (double)cpu / 1e3 / (double)poses : NAN;
	r.cpu_percent = t->dt > 0 ? (double)cpu / 1e9 / t->dt * 100 : 0;
	r.skipped = s->skipped_ticks - (p != NULL ? p->skipped_ticks : 0);
	return r;
}

static double top_requests_per_s(const struct top *t)
{
	uint64_t before = t->prev != NULL ? t->prev->requests : 0;

	return t->dt > 0 ? (double)(t->cur->requests - before) / t->dt : 0;
}

static double top_conn_requests_per_s(const struct top *t, const animc_stats_connection *c)
{
	const animc_stats_connection *p = top_prev_connection(t, c->connection);
	double dt = p != NULL ? t->dt : c->age;

	return dt > 0 ? (double)(c->requests - (p != NULL ? p->requests : 0)) / dt : 0;
}

/* One screen of text, each line ended by "\x1b[K" at a terminal (clear the
 * rest of the line of the last screen). */
static void top_print(const struct top *t)
{
	const animc_stats_info *s = t->cur;
	const char *eol = t->tui ? "\x1b[K\n" : "\n";
	char up[32], age[32];
	int cols, rows, room;

	term_size(&cols, &rows);
	room = t->tui ? rows : 1 << 30;
	print_duration(up, sizeof up, s->uptime);
	if (t->tui)
		fputs("\x1b[H", stdout);
	printf("%s  pid %u  up %s  requests %llu (%.1f/s)  connections %zu  instances %llu%s",
	       animc_client_server(t->ctl->c), animc_client_server_pid(t->ctl->c), up,
	       (unsigned long long)s->requests, top_requests_per_s(t), s->connection_count,
	       (unsigned long long)s->instances, eol);
	printf("assets %llu (%llu failing, %llu not served)  loaded %llu  reloaded %llu  errors %llu  "
	       "removed %llu  scans %llu  sighups %llu  config reloads %llu%s",
	       (unsigned long long)s->assets.count, (unsigned long long)s->assets.failing,
	       (unsigned long long)s->assets_unservable,
	       (unsigned long long)s->assets.loaded, (unsigned long long)s->assets.reloaded,
	       (unsigned long long)s->assets.errors, (unsigned long long)s->assets.removed,
	       (unsigned long long)s->assets.scans, (unsigned long long)s->sighups,
	       (unsigned long long)s->config_reloads, eol);
	printf("%s", eol);
	room -= 3;

	printf("%-7s %5s %-9s %5s %8s %3s %7s %9s %5s %9s %8s %6s%s", "STREAM", "CONN", "SPACE",
	       "RATE", "TICKS/S", "THR", "LATE", "SKIPPED", "INST", "POSES/S", "US/POSE", "CPU%", eol);
	room--;
	for (size_t i = 0; i < s->stream_count && room > 8; i++, room--) {
		const animc_stats_stream *st = s->streams[i];
		struct top_stream_rates r = top_stream_rates(t, st);
		char cost[16];

		if (isnan(r.us_per_pose))
			snprintf(cost, sizeof cost, "-");
		else
			snprintf(cost, sizeof cost, "%.2f", r.us_per_pose);
		printf("%-7llu %5llu %-9s %5u %8.1f %3u %7llu %9llu %5u %9.1f %8s %6.2f%s",
		       (unsigned long long)st->stream, (unsigned long long)st->connection,
		       st->space ? st->space : "?", st->rate, st->tick_rate, st->tick_threads,
		       (unsigned long long)st->late_ticks, (unsigned long long)st->skipped_ticks,
		       st->instances, r.poses_per_s, cost, r.cpu_percent, eol);
	}
	if (s->stream_count == 0) {
		printf("(no streams)%s", eol);
		room--;
	}
	printf("%s", eol);
	printf("%-7s %7s %6s %9s %7s %8s %5s %5s %5s %7s%s", "CONN", "PID", "UID", "AGE", "REQ/S",
	       "REQS", "INST", "STRM", "EVTS", "QUEUED", eol);
	room -= 2;
	for (size_t i = 0; i < s->connection_count && room > 4; i++, room--) {
		const animc_stats_connection *c = s->connections[i];

		print_duration(age, sizeof age, c->age);
		printf("%-7llu %7lld %6llu %9s %7.1f %8llu %5llu %5llu %5llu %7llu%s%s",
		       (unsigned long long)c->connection, (long long)c->pid,
		       (unsigned long long)c->uid, age, top_conn_requests_per_s(t, c),
		       (unsigned long long)c->requests, (unsigned long long)c->instances,
		       (unsigned long long)c->streams, (unsigned long long)c->events,
		       (unsigned long long)c->queued_bytes, c->self ? "  (this)" : "", eol);
	}
	printf("%s", eol);
	printf("log: %llu %s, %llu %s%s", (unsigned long long)s->log_errors,
	       print_noun(s->log_errors, "error", "errors"), (unsigned long long)s->log_warnings,
	       print_noun(s->log_warnings, "warning", "warnings"), eol);
	room -= 2;
	/* The newest that fit, oldest first. */
	for (size_t i = s->recent_count > (size_t)(room > 0 ? room : 0)
			       ? s->recent_count - (size_t)(room > 0 ? room : 0) : 0;
	     i < s->recent_count; i++) {
		const animc_stats_log_line *l = s->recent[i];
		time_t when = (time_t)l->time;
		struct tm tm;
		char hms[16] = "?";

		if (localtime_r(&when, &tm) != NULL)
			strftime(hms, sizeof hms, "%H:%M:%S", &tm);
		printf("  %s %-7s %.*s%s", hms, l->level ? l->level : "?",
		       t->tui ? (cols > 22 ? cols - 20 : 2) : 100000, l->message ? l->message : "",
		       eol);
	}
	if (t->tui)
		fputs("\x1b[J", stdout);
	fflush(stdout);
}

static void top_json(const struct top *t)
{
	const animc_stats_info *s = t->cur;
	struct json j;

	json_begin(&j, stdout);
	json_obj(&j);
	json_knum(&j, "uptime", s->uptime);
	json_knum(&j, "interval", t->dt);
	json_kuint(&j, "requests", s->requests);
	json_knum(&j, "requests_per_second", top_requests_per_s(t));
	json_kuint(&j, "instances", s->instances);
	json_key(&j, "streams");
	json_arr(&j);
	for (size_t i = 0; i < s->stream_count; i++) {
		const animc_stats_stream *st = s->streams[i];
		struct top_stream_rates r = top_stream_rates(t, st);

		json_obj(&j);
		json_kuint(&j, "stream", st->stream);
		json_kuint(&j, "connection", st->connection);
		json_kstr(&j, "space", st->space);
		json_kuint(&j, "rate", st->rate);
		json_knum(&j, "tick_rate", st->tick_rate);
		json_kuint(&j, "tick_threads", st->tick_threads);
		json_kuint(&j, "instances", st->instances);
		json_kuint(&j, "ticks", st->ticks);
		json_kuint(&j, "late_ticks", st->late_ticks);
		json_kuint(&j, "skipped_ticks", st->skipped_ticks);
		json_kuint(&j, "skipped_in_interval", r.skipped);
		json_kuint(&j, "poses", st->poses);
		json_kuint(&j, "shared_poses", st->shared_poses);
		json_knum(&j, "poses_per_second", r.poses_per_s);
		json_knum(&j, "us_per_pose", r.us_per_pose);     /* null when none */
		json_knum(&j, "cpu_percent", r.cpu_percent);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "connections");
	json_arr(&j);
	for (size_t i = 0; i < s->connection_count; i++) {
		const animc_stats_connection *c = s->connections[i];

		json_obj(&j);
		json_kuint(&j, "connection", c->connection);
		json_kint(&j, "pid", c->pid);
		json_kuint(&j, "uid", c->uid);
		json_knum(&j, "age", c->age);
		json_kuint(&j, "requests", c->requests);
		json_knum(&j, "requests_per_second", top_conn_requests_per_s(t, c));
		json_kuint(&j, "instances", c->instances);
		json_kuint(&j, "streams", c->streams);
		json_kuint(&j, "events", c->events);
		json_kuint(&j, "queued_bytes", c->queued_bytes);
		json_kbool(&j, "self", c->self);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "assets");
	json_obj(&j);
	json_kuint(&j, "count", s->assets.count);
	json_kuint(&j, "failing", s->assets.failing);
	json_kuint(&j, "unservable", s->assets_unservable);
	json_kuint(&j, "loaded", s->assets.loaded);
	json_kuint(&j, "reloaded", s->assets.reloaded);
	json_kuint(&j, "errors", s->assets.errors);
	json_kuint(&j, "removed", s->assets.removed);
	json_kuint(&j, "scans", s->assets.scans);
	json_obj_end(&j);
	json_kuint(&j, "sighups", s->sighups);
	json_kuint(&j, "config_reloads", s->config_reloads);
	json_key(&j, "log");
	json_obj(&j);
	json_kuint(&j, "errors", s->log_errors);
	json_kuint(&j, "warnings", s->log_warnings);
	json_key(&j, "recent");
	json_arr(&j);
	for (size_t i = 0; i < s->recent_count; i++) {
		json_obj(&j);
		json_knum(&j, "time", s->recent[i]->time);
		json_kstr(&j, "level", s->recent[i]->level);
		json_kstr(&j, "message", s->recent[i]->message);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

/* Wait one interval, serving the client (nothing is expected from it),
 * a signal and, at a terminal, the keyboard.  1 when asked to stop, 0 to
 * go on, or an exit code. */
static int top_wait(struct top *t)
{
	struct timespec start, now;
	double left;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		bool stop = false, key = false;
		int rc;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = t->interval - ((double)(now.tv_sec - start.tv_sec) +
				      (double)(now.tv_nsec - start.tv_nsec) / 1e9);
		if (left <= 0)
			return 0;
		{
			struct pollfd fds[2] = {
				{ .fd = term_signals(), .events = POLLIN },
				{ .fd = t->tui ? STDIN_FILENO : -1, .events = POLLIN },
			};

			rc = poll(fds, 2, (int)ceil(left * 1000));
			if (rc < 0 && errno != EINTR)
				return EXIT_FAILURE_OTHER;
			if (rc > 0 && fds[0].revents) {
				term_signal_taken();
				stop = true;
			}
			key = rc > 0 && (fds[1].revents & POLLIN);
		}
		if (stop)
			return 1;
		if (key) {
			char k[16];
			ssize_t n = read(STDIN_FILENO, k, sizeof k);

			for (ssize_t i = 0; i < n; i++)
				if (k[i] == 'q' || k[i] == 'Q' || k[i] == 3)
					return 1;
		}
		rc = animc_client_process(t->ctl->c);
		if (rc == -ECONNRESET || rc == -ENOTCONN)
			return ctl_fail(t->ctl, NULL, rc);
	}
}

int cmd_top(struct ctl *ctl, int argc, char **argv)
{
	static const char help[] =
		"usage: animctl top [-n N | --once] [--interval SECONDS] [--json]\n"
		"A live view of the daemon (its `stats`), refreshed every interval (default\n"
		"1 s): requests per second, the cache's loads, reloads and errors, every\n"
		"stream with the tick rate it asked for and achieved, ticks skipped because\n"
		"a tick came late, poses per second, the CPU time per pose (µs) and the\n"
		"share of a core its ticks take; every connection with its requests per\n"
		"second; the last warnings and errors of the log.  Rates are over the\n"
		"interval just passed, so the first screen comes one interval after the start.\n"
		"At a terminal the screen is redrawn until q or Ctrl-C; otherwise every\n"
		"screen is printed as plain text, a blank line between.  With --json, one\n"
		"document per screen.\n"
		"  -n, --n N         N screens, then exit (default: until stopped)\n"
		"  --once            one screen: -n 1\n"
		"  --interval S      seconds between screens (0.05 to 3600)\n";
	const char *n_arg = NULL, *once = NULL, *interval = NULL;
	const struct ctl_opt opts[] = {
		{ "n", true, &n_arg }, { "once", false, &once }, { "interval", true, &interval },
		{ NULL, false, NULL },
	};
	struct top t = { .ctl = ctl, .interval = 1 };
	animc_stats_info *prev = NULL, *cur = NULL;
	uint64_t screens = 0, shown = 0;
	int n = ctl_args(ctl, argc, argv, opts, NULL, 0, 0, help), rc = EXIT_OK;

	if (n < 0)
		return ctl_args_exit(n);
	if (n_arg != NULL && ctl_uint("top", "-n", n_arg, &screens) < 0)
		return EXIT_USAGE;
	if (n_arg != NULL && screens == 0)
		return ctl_usage_error("top", "-n needs a count of at least 1");
	if (once != NULL)
		screens = 1;
	if (interval != NULL && ctl_number("top", "--interval", interval, &t.interval) < 0)
		return EXIT_USAGE;
	if (interval != NULL && (t.interval < 0.05 || t.interval > 3600))
		return ctl_usage_error("top", "--interval must be 0.05 to 3600 seconds");
	if (term_signals() < 0)
		return EXIT_FAILURE_OTHER;
	if ((rc = ctl_connect(ctl)) != 0)
		return rc;
	t.tui = !ctl->json && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO) && term_enter() == 0;
	rc = animc_stats(ctl->c, &prev);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	for (;;) {
		int w = top_wait(&t);

		if (w != 0) {
			rc = w == 1 ? EXIT_OK : w;
			break;
		}
		rc = animc_stats(ctl->c, &cur);
		if (rc < 0) {
			term_restore();
			rc = ctl_fail(ctl, NULL, rc);
			break;
		}
		t.prev = prev;
		t.cur = cur;
		t.dt = cur->uptime - prev->uptime;
		if (ctl->json) {
			top_json(&t);
		} else {
			if (!t.tui && shown > 0)
				putchar('\n');
			top_print(&t);
		}
		shown++;
		animc_free(prev);
		prev = cur;
		cur = NULL;
		rc = EXIT_OK;
		if (screens != 0 && shown >= screens)
			break;
	}
	animc_free(prev);
	term_restore();
	return rc;
}
