/*
 * `stats` against the real daemon with a stream playing: the reply carries
 * exactly the fields PROTOCOL.md's table lists (method_stats_fields, which
 * test_protocol_doc checks against the document), and their values say
 * what happened: the stream's ticks, the poses they published and at once,
 * their CPU time, this connection and its requests, a broken save counted
 * and its warning among the log's recent lines.  Then `animctl top --once`
 * and `--json top -n 2` print that as plain text and JSON when stdout is
 * not a terminal.  `monitor`: a monitor is sent every other connection's
 * requests (method, connection, msgid, escaped params, time) and not its
 * own; `animctl monitor --json --count 2` prints them.  A daemon stopped
 * for 300 ms runs the latest deadline it missed at once (late_ticks) and
 * counts the ones before it in skipped_ticks.  A stream
 * of 64 instances ticks on one thread per allowed core (at most 8), or on
 * as few as streams.tick_threads says, and tick_threads reports it.  A
 * stream whose ticks overrun their period leaves the socket served.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/service/control/dispatch.h"
#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 10000
#define MAX_PATHS 256

struct fixture {
	struct daemon_proc d;
	struct rpc_client c;
	uint64_t connection;
	uint64_t stream;
};

/* Every field path of a reply, as the stats table writes them. */
struct paths {
	char *v[MAX_PATHS];
	size_t n;
};

static void paths_add(struct paths *p, const char *s)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i], s) == 0)
			return;
	assert_true(p->n < MAX_PATHS);
	p->v[p->n++] = strdup(s);
}

static void paths_walk(struct paths *p, const msgpack_object *o, const char *prefix)
{
	char path[256];

	if (o->type == MSGPACK_OBJECT_MAP) {
		for (uint32_t i = 0; i < o->via.map.size; i++) {
			const msgpack_object *k = &o->via.map.ptr[i].key;

			assert_int_equal(k->type, MSGPACK_OBJECT_STR);
			snprintf(path, sizeof path, "%s%s%.*s", prefix, *prefix ? "." : "",
				 (int)k->via.str.size, k->via.str.ptr);
			paths_add(p, path);
			paths_walk(p, &o->via.map.ptr[i].val, path);
		}
	} else if (o->type == MSGPACK_OBJECT_ARRAY) {
		snprintf(path, sizeof path, "%s[]", prefix);
		for (uint32_t i = 0; i < o->via.array.size; i++)
			paths_walk(p, &o->via.array.ptr[i], path);
	}
}

static void paths_free(struct paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	p->n = 0;
}

/* A daemon on a fresh copy of the demo assets, started with `config`. */
static void demo_daemon_start(struct daemon_proc *d, const char *config)
{
	const char *build = getenv("BUILD");
	char cmd[1024];

	assert_int_equal(daemon_proc_init(d), 0);
	snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s", build ? build : "build", d->assets);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(daemon_proc_start(d, config, TIMEOUT_MS), 0);
}

/* A stream of `channels` channels (its region not mapped); its id. */
static uint64_t stream_open(struct rpc_client *c, const char *space, uint32_t rate,
			    uint32_t channels)
{
	struct rpc_reply r;
	int64_t v;

	assert_int_equal(rpc_client_call(c, &r, "stream.open", "space:s rate:u instances:u",
					 space, (uint64_t)rate, (uint64_t)channels), 0);
	if (r.error != NULL)
		fail_msg("stream.open: %s %s", r.code, r.message);
	assert_int_equal(rpc_get_i64(r.result, "stream", &v), 0);
	rpc_reply_free(&r);
	close(rpc_client_take_fd(c));
	return (uint64_t)v;
}

/* A model-space stream at 60 Hz of `channels` channels with `walkers`
 * walkers playing in it; its id. */
static uint64_t walker_stream(struct rpc_client *c, uint32_t channels, uint32_t walkers)
{
	struct rpc_reply r;
	uint64_t stream = stream_open(c, "model", 60, channels);

	for (uint32_t i = 0; i < walkers; i++) {
		assert_int_equal(rpc_client_call(c, &r, "play", "asset:s mesh:s stream:u",
						 "walker.md5anim", "walker.md5mesh", stream), 0);
		if (r.error != NULL)
			fail_msg("play: %s %s", r.code, r.message);
		rpc_reply_free(&r);
	}
	return stream;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	struct rpc_reply r;
	int64_t v;

	assert_non_null(fx);
	demo_daemon_start(&fx->d, "[reload]\nquiet_ms = 50\n");
	assert_int_equal(rpc_client_connect(&fx->c, fx->d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&fx->c, &r, "hello", NULL), 0);
	assert_null(r.error);
	assert_int_equal(rpc_get_i64(r.result, "connection", &v), 0);
	fx->connection = (uint64_t)v;
	rpc_reply_free(&r);
	/* A stream (16 channels, the default) with the walker in it. */
	fx->stream = walker_stream(&fx->c, 16, 1);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	rpc_client_close(&fx->c);
	assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&fx->d);
	free(fx);
	return 0;
}

static uint64_t u64_of(const msgpack_object *map, const char *key)
{
	const msgpack_object *o = rpc_get(map, key);

	if (o == NULL || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		fail_msg("stats: %s is not a uint", key);
	return o->via.u64;
}

static const msgpack_object *array_of(const msgpack_object *map, const char *key)
{
	const msgpack_object *o = rpc_get(map, key);

	if (o == NULL || o->type != MSGPACK_OBJECT_ARRAY)
		fail_msg("stats: %s is not an array", key);
	return o;
}

/* Ask for stats until the stream has ticked `ticks` times (ticks are the
 * daemon's; no timing is asserted, only waited for). */
static void stats_after_ticks(struct fixture *fx, uint64_t ticks, struct rpc_reply *r)
{
	for (int i = 0; i < 500; i++) {
		const msgpack_object *streams;

		assert_int_equal(rpc_client_call(&fx->c, r, "stats", NULL), 0);
		if (r->error != NULL)
			fail_msg("stats: %s %s", r->code, r->message);
		streams = array_of(r->result, "streams");
		if (streams->via.array.size == 1 && u64_of(&streams->via.array.ptr[0], "ticks") >= ticks)
			return;
		rpc_reply_free(r);
		usleep(20000);
	}
	fail_msg("the stream never reached %llu ticks", (unsigned long long)ticks);
}

static void test_stats_fields_and_values(void **state)
{
	struct fixture *fx = *state;
	struct paths seen = { 0 };
	struct rpc_reply r;
	const msgpack_object *st, *conns, *log, *recent, *assets;
	bool self_found = false, warned = false;
	char text[512];
	size_t want = 0;

	/* A broken save: counted by the cache, logged as a warning. */
	assert_int_equal(daemon_proc_write_asset(&fx->d, "broken.md5anim", "MD5Version 11\n"), 0);
	for (int i = 0; i < 500; i++) {
		assert_int_equal(rpc_client_call(&fx->c, &r, "stats", NULL), 0);
		assets = rpc_get(r.result, "assets");
		if (assets != NULL && u64_of(assets, "errors") >= 1)
			break;
		rpc_reply_free(&r);
		r.result = NULL;
		usleep(20000);
	}
	assert_non_null(r.result);
	rpc_reply_free(&r);
	stats_after_ticks(fx, 10, &r);

	/* Exactly the documented fields (with one element in every array). */
	paths_walk(&seen, r.result, "");
	for (size_t i = 0; method_stats_fields[i] != NULL; i++, want++) {
		bool found = false;

		for (size_t k = 0; k < seen.n; k++)
			found |= strcmp(seen.v[k], method_stats_fields[i]) == 0;
		if (!found)
			fail_msg("stats has no field %s", method_stats_fields[i]);
	}
	for (size_t k = 0; k < seen.n; k++) {
		bool known = false;

		for (size_t i = 0; method_stats_fields[i] != NULL; i++)
			known |= strcmp(seen.v[k], method_stats_fields[i]) == 0;
		if (!known)
			fail_msg("stats sends %s, which PROTOCOL.md does not list", seen.v[k]);
	}
	assert_int_equal(seen.n, want);
	paths_free(&seen);

	/* The stream: ours, ticking, publishing its one instance. */
	st = &array_of(r.result, "streams")->via.array.ptr[0];
	assert_int_equal(u64_of(st, "stream"), fx->stream);
	assert_int_equal(u64_of(st, "connection"), fx->connection);
	assert_int_equal(rpc_get_str(st, "space", text, sizeof text), 0);
	assert_string_equal(text, "model");
	assert_int_equal(u64_of(st, "rate"), 60);
	assert_int_equal(u64_of(st, "instances"), 1);
	assert_true(u64_of(st, "ticks") >= 10);
	/* Every tick since play published the walker; play itself once. */
	assert_true(u64_of(st, "poses") >= 1 && u64_of(st, "poses") <= u64_of(st, "ticks"));
	assert_true(u64_of(st, "change_poses") >= 1);
	assert_true(u64_of(st, "cpu_ns") > 0);
	assert_true(u64_of(st, "skipped_ticks") <= u64_of(st, "ticks"));
	/* A late tick is counted when it is scheduled, a millisecond before it runs. */
	assert_true(u64_of(st, "late_ticks") <= u64_of(st, "ticks") + 1);
	{
		double rate, per_pose;

		assert_int_equal(rpc_get_f64(st, "tick_rate", &rate), 0);
		assert_true(rate > 0);
		/* One instance: not worth a second thread. */
		assert_int_equal(u64_of(st, "tick_threads"), 1);
		assert_int_equal(rpc_get_f64(st, "cpu_us_per_pose", &per_pose), 0);
		assert_true(per_pose > 0);
	}

	/* This connection, marked as the one asking. */
	conns = array_of(r.result, "connections");
	for (uint32_t i = 0; i < conns->via.array.size; i++) {
		const msgpack_object *c = &conns->via.array.ptr[i];
		const msgpack_object *self = rpc_get(c, "self");

		if (u64_of(c, "connection") != fx->connection)
			continue;
		self_found = true;
		assert_true(self != NULL && self->type == MSGPACK_OBJECT_BOOLEAN && self->via.boolean);
		assert_int_equal(u64_of(c, "instances"), 1);
		assert_int_equal(u64_of(c, "streams"), 1);
		assert_true(u64_of(c, "requests") >= 4);  /* hello, stream.open, play, stats */
	}
	assert_true(self_found);
	assert_true(u64_of(r.result, "requests") >= 4);
	assert_int_equal(u64_of(r.result, "instances"), 1);

	/* The cache's counts and the log's warning about the broken file. */
	assets = rpc_get(r.result, "assets");
	assert_int_equal(u64_of(assets, "loaded"), 6);
	assert_true(u64_of(assets, "errors") >= 1);
	assert_true(u64_of(assets, "failing") >= 1);
	assert_true(u64_of(assets, "scans") >= 1);
	log = rpc_get(r.result, "log");
	assert_true(u64_of(log, "warnings") >= 1);
	recent = array_of(log, "recent");
	for (uint32_t i = 0; i < recent->via.array.size; i++) {
		const msgpack_object *l = &recent->via.array.ptr[i];

		assert_int_equal(rpc_get_str(l, "message", text, sizeof text), 0);
		if (strstr(text, "broken.md5anim") != NULL) {
			assert_int_equal(rpc_get_str(l, "level", text, sizeof text), 0);
			assert_string_equal(text, "warning");
			warned = true;
		}
	}
	assert_true(warned);
	rpc_reply_free(&r);

	/* No arguments. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "stats", "verbose:b", 1), 0);
	assert_non_null(r.error);
	assert_string_equal(r.code, "bad_request");
	rpc_reply_free(&r);
}

/* Run a shell command, its stdout into out; returns its exit status. */
static int run(const char *cmd, char *out, size_t size)
{
	FILE *f = popen(cmd, "r");
	size_t n;

	assert_non_null(f);
	n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	return WEXITSTATUS(pclose(f));
}

static void test_animctl_top(void **state)
{
	struct fixture *fx = *state;
	const char *build = getenv("BUILD");
	static char out[1 << 16];
	char cmd[2048], want[128];
	const char *line;
	int lines = 0;
	struct rpc_reply r;

	stats_after_ticks(fx, 3, &r);
	rpc_reply_free(&r);
	snprintf(cmd, sizeof cmd, "%s/animctl --socket %s top --once --interval 0.2 </dev/null",
		 build ? build : "build", fx->d.socket);
	assert_int_equal(run(cmd, out, sizeof out), 0);
	/* Plain text when stdout is not a terminal: no escape sequence. */
	assert_null(strchr(out, '\x1b'));
	assert_non_null(strstr(out, "requests "));
	assert_non_null(strstr(out, "loaded 6"));
	assert_non_null(strstr(out, "STREAM"));
	assert_non_null(strstr(out, "TICKS/S"));
	assert_non_null(strstr(out, "THR"));
	assert_non_null(strstr(out, "US/POSE"));
	/* Our stream's row: its id, owner, space and rate. */
	snprintf(want, sizeof want, "\n%-7llu %5llu model        60 ", (unsigned long long)fx->stream,
		 (unsigned long long)fx->connection);
	if (strstr(out, want) == NULL)
		fail_msg("no row for stream %llu in:\n%s", (unsigned long long)fx->stream, out);
	assert_non_null(strstr(out, "(this)"));
	assert_non_null(strstr(out, "log: "));
	assert_non_null(strstr(out, "warnings"));

	/* --json: one document per screen, -n of them. */
	snprintf(cmd, sizeof cmd, "%s/animctl --socket %s --json top -n 2 --interval 0.1",
		 build ? build : "build", fx->d.socket);
	assert_int_equal(run(cmd, out, sizeof out), 0);
	for (line = out; *line != '\0'; line = strchr(line, '\n') + 1) {
		assert_non_null(strchr(line, '\n'));
		assert_true(line[0] == '{');
		assert_non_null(strstr(line, "\"streams\":[{\"stream\":"));
		assert_non_null(strstr(line, "\"poses_per_second\":"));
		assert_non_null(strstr(line, "\"tick_threads\":1,"));
		assert_non_null(strstr(line, "\"requests_per_second\":"));
		lines++;
	}
	assert_int_equal(lines, 2);

	/* Usage errors are 2. */
	snprintf(cmd, sizeof cmd, "%s/animctl --socket %s top -n 0 2>/dev/null",
		 build ? build : "build", fx->d.socket);
	assert_int_equal(run(cmd, out, sizeof out), 2);
	snprintf(cmd, sizeof cmd, "%s/animctl --socket %s top --interval 0 2>/dev/null",
		 build ? build : "build", fx->d.socket);
	assert_int_equal(run(cmd, out, sizeof out), 2);
}

/* Whether some connection of a stats reply is a monitor. */
static bool stats_has_monitor(struct fixture *fx)
{
	struct rpc_reply r;
	const msgpack_object *conns;
	bool found = false;

	assert_int_equal(rpc_client_call(&fx->c, &r, "stats", NULL), 0);
	conns = array_of(r.result, "connections");
	for (uint32_t i = 0; i < conns->via.array.size; i++) {
		const msgpack_object *m = rpc_get(&conns->via.array.ptr[i], "monitor");

		assert_true(m != NULL && m->type == MSGPACK_OBJECT_BOOLEAN);
		found |= m->via.boolean;
	}
	rpc_reply_free(&r);
	return found;
}

static void test_monitor(void **state)
{
	struct fixture *fx = *state;
	const char *build = getenv("BUILD");
	struct rpc_client mon;
	struct rpc_reply r;
	struct rpc_event ev;
	static char out[1 << 14];
	char text[512], cmd[2048];
	const msgpack_object *o;
	int64_t v;
	double t;
	FILE *f;
	size_t n;

	assert_false(stats_has_monitor(fx));
	assert_int_equal(rpc_client_connect(&mon, fx->d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&mon, &r, "monitor", NULL), 0);
	assert_null(r.error);
	assert_int_equal(rpc_get_i64(r.result, "connection", &v), 0);
	rpc_reply_free(&r);
	assert_true(stats_has_monitor(fx));         /* this stats is reported too */
	assert_int_equal(rpc_client_next_event(&mon, TIMEOUT_MS, &ev), 0);
	assert_string_equal(ev.type, "monitor.request");
	assert_int_equal(rpc_get_str(ev.body, "method", text, sizeof text), 0);
	assert_string_equal(text, "stats");
	rpc_event_free(&ev);

	/* A request with arguments from outside: named, escaped, located. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s",
					 "evil\nname\x1b[2J.md5anim"), 0);
	assert_string_equal(r.code, "not_found");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_next_event(&mon, TIMEOUT_MS, &ev), 0);
	assert_string_equal(ev.type, "monitor.request");
	assert_int_equal(rpc_get_str(ev.body, "method", text, sizeof text), 0);
	assert_string_equal(text, "assets.info");
	assert_int_equal(rpc_get_i64(ev.body, "connection", &v), 0);
	assert_int_equal((uint64_t)v, fx->connection);
	assert_int_equal(rpc_get_i64(ev.body, "pid", &v), 0);
	assert_int_equal(v, (int64_t)getpid());
	assert_int_equal(rpc_get_i64(ev.body, "msgid", &v), 0);
	assert_true(v > 0);
	assert_int_equal(rpc_get_f64(ev.body, "time", &t), 0);
	assert_true(t > 1e9);
	assert_int_equal(rpc_get_str(ev.body, "params", text, sizeof text), 0);
	assert_string_equal(text, "{asset: \"evil\\nname\\x1b[2J.md5anim\"}");
	rpc_event_free(&ev);

	/* A long argument is cut, with an ellipsis, under the cap. */
	{
		char big[1000];

		memset(big, 'a', sizeof big - 1);
		big[sizeof big - 1] = '\0';
		assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", big), 0);
		rpc_reply_free(&r);
		assert_int_equal(rpc_client_next_event(&mon, TIMEOUT_MS, &ev), 0);
		assert_int_equal(rpc_get_str(ev.body, "params", text, sizeof text), 0);
		assert_true(strlen(text) <= 200);
		assert_memory_equal(text, "{asset: \"aaa", 12);
		assert_string_equal(text + strlen(text) - 3, "\xe2\x80\xa6");
		rpc_event_free(&ev);
	}

	/* The monitor's own requests are not reported to it. */
	assert_int_equal(rpc_client_call(&mon, &r, "hello", NULL), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "instances.list", NULL), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_next_event(&mon, TIMEOUT_MS, &ev), 0);
	assert_int_equal(rpc_get_str(ev.body, "method", text, sizeof text), 0);
	assert_string_equal(text, "instances.list");
	o = rpc_get(ev.body, "params");
	assert_non_null(o);
	assert_int_equal(rpc_get_str(ev.body, "params", text, sizeof text), 0);
	assert_string_equal(text, "[]");
	rpc_event_free(&ev);

	/* Gone with its connection. */
	rpc_client_close(&mon);
	for (int i = 0; i < 500 && stats_has_monitor(fx); i++)
		usleep(10000);
	assert_false(stats_has_monitor(fx));

	/* animctl monitor: one JSON line per request of the others. */
	snprintf(cmd, sizeof cmd, "%s/animctl --socket %s --json monitor --count 2 2>/dev/null",
		 build ? build : "build", fx->d.socket);
	f = popen(cmd, "r");
	assert_non_null(f);
	for (int i = 0; i < 500 && !stats_has_monitor(fx); i++)
		usleep(10000);
	assert_int_equal(rpc_client_call(&fx->c, &r, "instances.list", NULL), 0);
	rpc_reply_free(&r);
	n = fread(out, 1, sizeof out - 1, f);
	out[n] = '\0';
	assert_int_equal(WEXITSTATUS(pclose(f)), 0);
	/* The stats that saw the monitor, then instances.list. */
	if (strstr(out, "\"method\":\"stats\"") == NULL ||
	    strstr(out, "\"method\":\"instances.list\",") == NULL)
		fail_msg("animctl monitor printed:\n%s", out);
	snprintf(text, sizeof text, "\"connection\":%llu,", (unsigned long long)fx->connection);
	assert_non_null(strstr(out, text));
	assert_non_null(strstr(out, "\"params\":\"[]\""));
}

/* A daemon that could not run for a while (stopped, as an overloaded
 * machine would) skips the deadlines it missed rather than bunching them,
 * and says so in skipped_ticks; the latest one is run late, once. */
static void test_skipped_ticks(void **state)
{
	struct fixture *fx = *state;
	struct rpc_reply r;
	uint64_t ticks0, skipped0, skipped1, late0, late1;
	const msgpack_object *st;

	stats_after_ticks(fx, 2, &r);
	st = &array_of(r.result, "streams")->via.array.ptr[0];
	ticks0 = u64_of(st, "ticks");
	skipped0 = u64_of(st, "skipped_ticks");
	late0 = u64_of(st, "late_ticks");
	rpc_reply_free(&r);
	/* 300 ms at 60 Hz is 18 deadlines: at least a few are passed over. */
	assert_int_equal(kill(fx->d.pid, SIGSTOP), 0);
	usleep(300000);
	assert_int_equal(kill(fx->d.pid, SIGCONT), 0);
	stats_after_ticks(fx, ticks0 + 2, &r);
	st = &array_of(r.result, "streams")->via.array.ptr[0];
	skipped1 = u64_of(st, "skipped_ticks");
	late1 = u64_of(st, "late_ticks");
	rpc_reply_free(&r);
	if (skipped1 <= skipped0)
		fail_msg("skipped_ticks stayed at %llu across a 300 ms stop",
			 (unsigned long long)skipped1);
	if (late1 <= late0)
		fail_msg("late_ticks stayed at %llu across a 300 ms stop", (unsigned long long)late1);
}

/* The threads the last tick of a 64-instance stream ran on, in a daemon
 * started with `config`. */
static uint64_t crowd_tick_threads(const char *config)
{
	struct daemon_proc d;
	struct rpc_client c;
	struct rpc_reply r;
	uint64_t ticks0 = 0, threads = 0;
	bool done;

	demo_daemon_start(&d, config);
	assert_int_equal(rpc_client_connect(&c, d.socket, TIMEOUT_MS), 0);
	walker_stream(&c, 64, 64);
	/* Two ticks after the last play: all 64 attached. */
	for (int i = 0; i < 500; i++) {
		const msgpack_object *st;

		assert_int_equal(rpc_client_call(&c, &r, "stats", NULL), 0);
		assert_null(r.error);
		st = &array_of(r.result, "streams")->via.array.ptr[0];
		assert_int_equal(u64_of(st, "instances"), 64);
		if (i == 0)
			ticks0 = u64_of(st, "ticks");
		threads = u64_of(st, "tick_threads");
		done = u64_of(st, "ticks") >= ticks0 + 2;
		rpc_reply_free(&r);
		if (done)
			break;
		usleep(20000);
	}
	rpc_client_close(&c);
	assert_int_equal(daemon_proc_stop(&d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&d);
	return threads;
}

/*
 * A stream whose ticks cost more than its period (4,000 walkers' skinned
 * vertices at 1000 Hz, on one thread: about 1 µs a walker here) runs its
 * late ticks one after another, and the control socket is still served
 * between two of them: every request of another connection is answered
 * while late_ticks rises.
 */
static void test_overloaded_stream_serves_socket(void **state)
{
	struct daemon_proc d;
	struct rpc_client c, other;
	struct rpc_reply r;
	uint64_t stream, late0, ticks0, late1, ticks1;
	const msgpack_object *st;

	(void)state;
	demo_daemon_start(&d, "[streams]\ntick_threads = 1\n[limits]\n"
			      "max_instances_per_connection = 4000\n[log]\nlevel = warning\n");
	assert_int_equal(rpc_client_connect(&c, d.socket, TIMEOUT_MS), 0);
	stream = stream_open(&c, "vertices", 1000, 4000);
	/* Sent 250 at a time: one at a time would wait for a tick each. */
	for (int done = 0; done < 4000; done += 250) {
		rpc_client_cork(&c);
		for (int i = 0; i < 250; i++)
			assert_true(rpc_client_send(&c, "play", "asset:s mesh:s stream:u",
						    "walker.md5anim", "walker.md5mesh",
						    stream) >= 0);
		assert_int_equal(rpc_client_uncork(&c), 0);
		for (int i = 0; i < 250; i++) {
			assert_int_equal(rpc_client_wait_any(&c, &r), 0);
			if (r.error != NULL)
				fail_msg("play: %s %s", r.code, r.message);
			rpc_reply_free(&r);
		}
	}
	assert_int_equal(rpc_client_connect(&other, d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&other, &r, "stats", NULL), 0);
	assert_null(r.error);
	st = &array_of(r.result, "streams")->via.array.ptr[0];
	late0 = u64_of(st, "late_ticks");
	ticks0 = u64_of(st, "ticks");
	rpc_reply_free(&r);
	for (int i = 0; i < 50; i++) {
		assert_int_equal(rpc_client_call(&other, &r, "status", NULL), 0);
		assert_null(r.error);
		rpc_reply_free(&r);
		usleep(2000);
	}
	assert_int_equal(rpc_client_call(&other, &r, "stats", NULL), 0);
	assert_null(r.error);
	st = &array_of(r.result, "streams")->via.array.ptr[0];
	late1 = u64_of(st, "late_ticks");
	ticks1 = u64_of(st, "ticks");
	rpc_reply_free(&r);
	if (late1 <= late0 || ticks1 <= ticks0)
		fail_msg("late_ticks %llu -> %llu, ticks %llu -> %llu: the stream was not running late",
			 (unsigned long long)late0, (unsigned long long)late1,
			 (unsigned long long)ticks0, (unsigned long long)ticks1);
	rpc_client_close(&other);
	rpc_client_close(&c);
	assert_int_equal(daemon_proc_stop(&d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&d);
}

static void test_tick_threads(void **state)
{
	cpu_set_t allowed;
	int cores;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof allowed, &allowed), 0);
	cores = CPU_COUNT(&allowed);
	assert_int_equal(crowd_tick_threads("[log]\nlevel = warning\n"), cores < 8 ? cores : 8);
	assert_int_equal(crowd_tick_threads("[streams]\ntick_threads = 1\n"), 1);
	if (cores >= 2)
		assert_int_equal(crowd_tick_threads("[streams]\ntick_threads = 2\n"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stats_fields_and_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_animctl_top, setup, teardown),
		cmocka_unit_test_setup_teardown(test_monitor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skipped_ticks, setup, teardown),
		cmocka_unit_test(test_tick_threads),
		cmocka_unit_test(test_overloaded_stream_serves_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
