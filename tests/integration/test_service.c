/*
 * animd serve end to end: the real daemon on a private socket and
 * temporary asset directory, driven by a msgpack-RPC client written from
 * PROTOCOL.md (tests/support/rpc_client.c).  Every method, the errors, the
 * events, hot reload under each way editors save, malformed input while
 * another client keeps playing, and clean start-up and shutdown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/daemon_proc.h"
#include "tests/support/m2_writer.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 10000

struct fixture {
	struct daemon_proc d;
	struct rpc_client c;
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void asset_path(const struct fixture *fx, const char *name, char *out, size_t size)
{
	snprintf(out, size, "%s/%s", fx->d.assets, name);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	char cmd[1024];
	const char *build = getenv("BUILD");

	assert_non_null(fx);
	assert_int_equal(daemon_proc_init(&fx->d), 0);
	snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s", build ? build : "build", fx->d.assets);
	assert_int_equal(system(cmd), 0);
	if (daemon_proc_start(&fx->d, "[reload]\nquiet_ms = 50\n", TIMEOUT_MS) != 0) {
		char *log = slurp(fx->d.log);

		fail_msg("daemon did not start:\n%s", log);
	}
	assert_int_equal(rpc_client_connect(&fx->c, fx->d.socket, TIMEOUT_MS), 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	int status;

	rpc_client_close(&fx->c);
	status = daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS);
	if (status != 0) {
		char *log = slurp(fx->d.log);

		fprintf(stderr, "daemon log:\n%s\n", log);
		free(log);
	}
	assert_int_equal(status, 0);
	/* A clean stop removes the socket. */
	assert_int_equal(access(fx->d.socket, F_OK), -1);
	daemon_proc_cleanup(&fx->d);
	free(fx);
	return 0;
}

static void expect_ok(const struct rpc_reply *r)
{
	if (r->error != NULL)
		fail_msg("unexpected error %s: %s", r->code, r->message);
	assert_non_null(r->result);
}

static void expect_error(const struct rpc_reply *r, const char *code, const char *fragment)
{
	if (r->error == NULL)
		fail_msg("expected error %s, got a result", code);
	assert_string_equal(r->code, code);
	if (fragment != NULL && strstr(r->message, fragment) == NULL)
		fail_msg("error message \"%s\" lacks \"%s\"", r->message, fragment);
}

/* ---- methods ------------------------------------------------------- */

static void test_hello_status_list_info(void **state)
{
	struct fixture *fx = *state;
	struct rpc_reply r;
	const msgpack_object *o;
	char s[256];
	int64_t v;

	assert_int_equal(rpc_client_call(&fx->c, &r, "hello", NULL), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "protocol", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(rpc_get_str(r.result, "server", s, sizeof s), 0);
	assert_non_null(strstr(s, "animd"));
	rpc_reply_free(&r);

	assert_int_equal(rpc_client_call(&fx->c, &r, "status", NULL), 0);
	expect_ok(&r);
	o = rpc_get(r.result, "assets");
	assert_int_equal(rpc_get_i64(o, "count", &v), 0);
	assert_int_equal(v, 6);         /* gen_demo's six files */
	assert_int_equal(rpc_get_i64(r.result, "connections", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(rpc_get_i64(r.result, "memory_bytes", &v), 0);
	assert_true(v > 0);
	rpc_reply_free(&r);

	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.list", NULL), 0);
	expect_ok(&r);
	o = rpc_get(r.result, "assets");
	assert_non_null(o);
	assert_int_equal(o->via.array.size, 6);
	assert_int_equal(rpc_get_str(&o->via.array.ptr[2], "format", s, sizeof s), 0);
	assert_string_equal(s, "m2");
	assert_int_equal(rpc_get_str(&o->via.array.ptr[4], "asset", s, sizeof s), 0);
	assert_string_equal(s, "walker.md5anim");
	rpc_reply_free(&r);

	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", "walker.md5anim"), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_str(r.result, "format", s, sizeof s), 0);
	assert_string_equal(s, "md5anim");
	assert_int_equal(rpc_get_i64(r.result, "generation", &v), 0);
	assert_int_equal(v, 1);
	o = rpc_get(r.result, "skeleton");
	assert_int_equal(rpc_get_i64(o, "joint_count", &v), 0);
	assert_int_equal(v, 10);
	o = rpc_get(r.result, "clips");
	assert_int_equal(o->via.array.size, 1);
	assert_int_equal(rpc_get_str(&o->via.array.ptr[0], "name", s, sizeof s), 0);
	assert_string_equal(s, "walker");
	rpc_reply_free(&r);
}

static double joint_tx(const msgpack_object *result, uint32_t j)
{
	const msgpack_object *joints = rpc_get(result, "joints");
	const msgpack_object *m;

	assert_non_null(joints);
	m = rpc_get(&joints->via.array.ptr[j], "m");
	assert_non_null(m);
	assert_int_equal(m->via.array.size, 12);
	return m->via.array.ptr[3].via.f64;
}

static void test_sample_matches_offline(void **state)
{
	struct fixture *fx = *state;
	struct rpc_reply r;
	char cmd[2048], *json;
	double tx;

	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d space:s mesh:s",
					 "walker.md5anim", 0.5, "model", "walker.md5mesh"), 0);
	expect_ok(&r);
	tx = joint_tx(r.result, 0);
	assert_true(fabs(tx - 30.0) < 1e-4);
	rpc_reply_free(&r);

	/* Every space answers; vertices come per mesh in file order. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d space:s mesh:s",
					 "walker.md5anim", 0.25, "vertices", "walker.md5mesh"), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get(r.result, "meshes")->via.array.size, 9);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d",
					 "orbit.md5camera", 0.5), 0);
	expect_ok(&r);
	assert_non_null(rpc_get(rpc_get(r.result, "camera"), "fov"));
	rpc_reply_free(&r);

	/* The same numbers as `animd sample --json`. */
	snprintf(cmd, sizeof cmd, "%s sample %s/walker.md5anim --mesh %s/walker.md5mesh --time 0.3 "
		 "--space skin --json > %s/offline.json", getenv("ANIMD"), fx->d.assets,
		 fx->d.assets, fx->d.dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "%s/offline.json", fx->d.dir);
	json = slurp(cmd);
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d space:s mesh:s",
					 "walker.md5anim", 0.3, "skin", "walker.md5mesh"), 0);
	expect_ok(&r);
	{
		const msgpack_object *joints = rpc_get(r.result, "joints");
		const msgpack_object *m = rpc_get(&joints->via.array.ptr[5], "m");
		char want[64];

		snprintf(want, sizeof want, "%.9g", (double)(float)m->via.array.ptr[11].via.f64);
		assert_non_null(strstr(json, want));
	}
	rpc_reply_free(&r);
	free(json);
}

static void test_play_controls(void **state)
{
	struct fixture *fx = *state;
	struct rpc_reply r;
	int64_t id, v;
	double t1, t2;
	char s[64];

	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s loop:s speed:d start:d",
					 "walker.md5anim", "loop", 1.0, 0.25), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
	assert_int_equal(rpc_get_str(r.result, "state", s, sizeof s), 0);
	assert_string_equal(s, "playing");
	rpc_reply_free(&r);

	assert_int_equal(rpc_client_call(&fx->c, &r, "pause", "instance:u", (uint64_t)id), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_f64(r.result, "time", &t1), 0);
	assert_true(t1 >= 0.25);
	rpc_reply_free(&r);
	usleep(30000);
	assert_int_equal(rpc_client_call(&fx->c, &r, "instances.list", NULL), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get(r.result, "instances")->via.array.size, 1);
	assert_int_equal(rpc_get_f64(&rpc_get(r.result, "instances")->via.array.ptr[0], "time", &t2), 0);
	assert_true(t1 == t2);          /* paused: time stands still */
	rpc_reply_free(&r);

	assert_int_equal(rpc_client_call(&fx->c, &r, "seek", "instance:u time:d", (uint64_t)id, 2.5), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_f64(r.result, "clip_time", &t1), 0);
	assert_true(fabs(t1 - 0.5) < 1e-9);     /* 2.5 s into a 1 s loop */
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "speed", "instance:u speed:d", (uint64_t)id, -2.0), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_f64(r.result, "speed", &t1), 0);
	assert_true(t1 == -2.0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "resume", "instance:u", (uint64_t)id), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_str(r.result, "state", s, sizeof s), 0);
	assert_string_equal(s, "playing");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "stop", "instance:u", (uint64_t)id), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "pause", "instance:u", (uint64_t)id), 0);
	expect_error(&r, "not_found", "no instance");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "status", NULL), 0);
	assert_int_equal(rpc_get_i64(r.result, "instances", &v), 0);
	assert_int_equal(v, 0);
	rpc_reply_free(&r);
}

/* A clip played once sends instance.ended when it reaches its end. */
static void test_once_ends_with_event(void **state)
{
	struct fixture *fx = *state;
	const char *events[] = { "instance.ended", "instance.stopped", NULL };
	struct rpc_reply r;
	struct rpc_event ev;
	int64_t id, got;

	assert_int_equal(rpc_client_call(&fx->c, &r, "subscribe", "events:S", events), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s loop:s speed:d start:d",
					 "walker.md5anim", "once", 4.0, 0.8), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_next_event(&fx->c, TIMEOUT_MS, &ev), 0);
	assert_string_equal(ev.type, "instance.ended");
	assert_int_equal(rpc_get_i64(ev.body, "instance", &got), 0);
	assert_int_equal(got, id);
	rpc_event_free(&ev);
}

/* Instances belong to their connection: others cannot steer them, and
 * they end when it closes. */
static void test_instances_owned_by_connection(void **state)
{
	struct fixture *fx = *state;
	struct rpc_client other;
	struct rpc_reply r;
	int64_t id, v;

	assert_int_equal(rpc_client_connect(&other, fx->d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&other, &r, "play", "asset:s", "walker.md5anim"), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "pause", "instance:u", (uint64_t)id), 0);
	expect_error(&r, "not_found", "another connection");
	rpc_reply_free(&r);
	rpc_client_close(&other);
	for (int i = 0; i < 200; i++) {
		assert_int_equal(rpc_client_call(&fx->c, &r, "status", NULL), 0);
		assert_int_equal(rpc_get_i64(r.result, "instances", &v), 0);
		rpc_reply_free(&r);
		if (v == 0)
			break;
		usleep(10000);
	}
	assert_int_equal(v, 0);
}

/* ---- errors -------------------------------------------------------- */

static void test_request_errors(void **state)
{
	struct fixture *fx = *state;
	struct rpc_reply r;

	assert_int_equal(rpc_client_call(&fx->c, &r, "frobnicate", NULL), 0);
	expect_error(&r, "unknown_method", "frobnicate");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", NULL), 0);
	expect_error(&r, "bad_request", "asset");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:i", (int64_t)5), 0);
	expect_error(&r, "bad_request", "string");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s bogus:i", "walker.md5anim",
					 (int64_t)1), 0);
	expect_error(&r, "bad_request", "bogus");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s loop:s", "walker.md5anim",
					 "sometimes"), 0);
	expect_error(&r, "bad_request", "loop");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s", "nope.md5anim"), 0);
	expect_error(&r, "not_found", "nope.md5anim");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s clip:s", "walker.md5anim",
					 "run"), 0);
	expect_error(&r, "not_found", "run");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", "../../etc/passwd"), 0);
	expect_error(&r, "bad_request", NULL);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d space:s",
					 "walker.md5anim", 0.0, "vertices"), 0);
	expect_error(&r, "unsupported", "mesh");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s mesh:s", "walker.md5anim",
					 "idle.md5anim"), 0);
	expect_error(&r, "asset_error", "does not fit");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "subscribe", "events:S",
					 (const char *[]){ "asset.exploded", NULL }), 0);
	expect_error(&r, "bad_request", "asset.exploded");
	rpc_reply_free(&r);
	/* The connection is still fine after all that. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "hello", NULL), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
}

/* Malformed streams are cut off; everyone else keeps playing. */
static void test_malformed_input_isolated(void **state)
{
	struct fixture *fx = *state;
	static const unsigned char garbage[] = { 0xc1, 0x00, 0x01 };
	/* A request whose params claim 2^32-1 map entries. */
	static const unsigned char huge_map[] = { 0x94, 0x00, 0x01, 0xa5, 'h', 'e', 'l', 'l', 'o',
						  0x91, 0xdf, 0xff, 0xff, 0xff, 0xff };
	/* A valid message that is not a request: a bare integer. */
	static const unsigned char not_request[] = { 0x2a };
	struct rpc_reply r;
	int64_t id;
	char *big;

	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s", "walker.md5anim"), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
	rpc_reply_free(&r);

	for (int k = 0; k < 4; k++) {
		struct rpc_client bad;

		assert_int_equal(rpc_client_connect(&bad, fx->d.socket, TIMEOUT_MS), 0);
		switch (k) {
		case 0:
			rpc_client_send_raw(&bad, garbage, sizeof garbage);
			break;
		case 1:
			rpc_client_send_raw(&bad, huge_map, sizeof huge_map);
			break;
		case 2:
			rpc_client_send_raw(&bad, not_request, sizeof not_request);
			break;
		default:
			/* Over the 1 MiB message limit: refused before it is buffered. */
			big = malloc(2u << 20);
			memset(big, 0xa1, 2u << 20);
			big[0] = (char)0x94;
			big[1] = 0x00;
			big[2] = 0x01;
			big[3] = (char)0xdb;    /* str32 of 0xffffff00 bytes */
			big[4] = (char)0xff;
			big[5] = (char)0xff;
			big[6] = (char)0xff;
			big[7] = 0x00;
			rpc_client_send_raw(&bad, big, 64);
			free(big);
			break;
		}
		/* One error reply, then the hang-up: nothing more is read or
		 * answered on that connection, whatever else it sent. */
		if (k != 2) {
			int more = 0;

			assert_int_equal(rpc_client_wait_any(&bad, &r), 0);
			assert_non_null(r.error);
			rpc_reply_free(&r);
			rpc_client_send(&bad, "hello", NULL);
			while (rpc_client_wait_any(&bad, &r) == 0) {
				more++;
				rpc_reply_free(&r);
			}
			assert_int_equal(more, 0);
		}
		assert_int_equal(rpc_client_wait_closed(&bad, TIMEOUT_MS), 1);
		rpc_client_close(&bad);
	}
	/* The good client and its instance are untouched. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "pause", "instance:u", (uint64_t)id), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
}

/* A client that never reads its replies cannot make the daemon buffer
 * without bound: it is cut off, others are served throughout. */
static void test_slow_reader_bounded(void **state)
{
	struct fixture *fx = *state;
	struct rpc_client slow;
	struct rpc_reply r;
	int64_t rss;
	int sent = 0;

	assert_int_equal(rpc_client_connect(&slow, fx->d.socket, TIMEOUT_MS), 0);
	slow.send_dontwait = 1;
	/* Each vertex sample reply is a few kB; send until the socket pushes
	 * back (the daemon stopped reading it) or enough to pass the limits. */
	for (; sent < 20000; sent++) {
		if (rpc_client_send(&slow, "sample", "asset:s time:d space:s mesh:s", "walker.md5anim",
				    0.1, "vertices", "walker.md5mesh") < 0)
			break;
		if (sent % 1000 == 0) {
			assert_int_equal(rpc_client_call(&fx->c, &r, "hello", NULL), 0);
			expect_ok(&r);
			rpc_reply_free(&r);
		}
	}
	/* The daemon pushed back long before 20000 requests. */
	assert_true(sent < 20000);
	assert_int_equal(rpc_client_call(&fx->c, &r, "status", NULL), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "memory_bytes", &rss), 0);
	/* Bounded: a few MB of queued replies at most, not 20000 of them. */
	assert_true(rss < 200 * 1024 * 1024);
	rpc_reply_free(&r);
	rpc_client_close(&slow);
}

/* ---- hot reload ---------------------------------------------------- */

static void subscribe_assets(struct fixture *fx)
{
	const char *events[] = { "asset.loaded", "asset.reloaded", "asset.error", "asset.removed",
				 "instance.stopped", NULL };
	struct rpc_reply r;

	assert_int_equal(rpc_client_call(&fx->c, &r, "subscribe", "events:S", events), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
}

/* Wait for an event of this type about this asset, skipping others. */
#define expect_event(fx, type, asset, out) expect_event_at(fx, type, asset, out, __LINE__)

static void expect_event_at(struct fixture *fx, const char *type, const char *asset,
			    struct rpc_event *out, int line)
{
	for (;;) {
		struct rpc_event ev;
		char name[256] = "";

		if (rpc_client_next_event(&fx->c, TIMEOUT_MS, &ev) != 0)
			fail_msg("line %d: no %s event for %s (log: %s)", line, type, asset, fx->d.log);
		rpc_get_str(ev.body, "asset", name, sizeof name);
		if (strcmp(ev.type, type) == 0 && strcmp(name, asset) == 0) {
			if (out != NULL)
				*out = ev;
			else
				rpc_event_free(&ev);
			return;
		}
		rpc_event_free(&ev);
	}
}

static double walker_root_at_half(struct fixture *fx)
{
	struct rpc_reply r;
	double tx;

	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d space:s",
					 "walker.md5anim", 0.5, "model"), 0);
	expect_ok(&r);
	tx = joint_tx(r.result, 0);
	rpc_reply_free(&r);
	return tx;
}

/* The walker with its root stride scaled: a visible, valid edit. */
static char *walker_scaled(struct fixture *fx, const char *factor)
{
	char path[1024], *text, *out, *p, *o;

	asset_path(fx, "walker.md5anim", path, sizeof path);
	text = slurp(path);
	out = malloc(strlen(text) * 2 + 64);
	/* Frames start "\t<root tx> ..."; prefix a factor by rewriting the
	 * commandline, then scale by editing each frame's first number. */
	for (p = text, o = out; *p; ) {
		if (strncmp(p, "frame ", 6) == 0 && (p == text || p[-1] == '\n')) {
			char *brace = strchr(p, '\t');
			double v;
			char *end;

			memcpy(o, p, (size_t)(brace - p) + 1);
			o += brace - p + 1;
			p = brace + 1;
			v = strtod(p, &end);
			o += sprintf(o, "%.9g", v * atof(factor));
			p = end;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	free(text);
	return out;
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_reload_save_patterns(void **state)
{
	struct fixture *fx = *state;
	char path[1024], tmp[1024];
	struct rpc_reply r;
	int64_t id, gen;
	char *twice, *thrice, *once;

	subscribe_assets(fx);
	asset_path(fx, "walker.md5anim", path, sizeof path);
	snprintf(tmp, sizeof tmp, "%s/.walker.md5anim.tmp", fx->d.assets);
	once = slurp(path);
	twice = walker_scaled(fx, "2");
	thrice = walker_scaled(fx, "3");
	/* An instance on another asset must not notice any of this. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s", "orbit.md5camera"), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
	rpc_reply_free(&r);
	assert_true(fabs(walker_root_at_half(fx) - 30) < 1e-4);

	/* 1. Write in place (truncate + write). */
	write_file(path, twice, strlen(twice));
	expect_event(fx, "asset.reloaded", "walker.md5anim", NULL);
	assert_true(fabs(walker_root_at_half(fx) - 60) < 1e-4);

	/* 2. Temp file + rename over the target. */
	write_file(tmp, thrice, strlen(thrice));
	assert_int_equal(rename(tmp, path), 0);
	expect_event(fx, "asset.reloaded", "walker.md5anim", NULL);
	assert_true(fabs(walker_root_at_half(fx) - 90) < 1e-4);

	/* 3. Delete + recreate: one reload, not a removal. */
	assert_int_equal(unlink(path), 0);
	write_file(path, once, strlen(once));
	expect_event(fx, "asset.reloaded", "walker.md5anim", NULL);
	assert_true(fabs(walker_root_at_half(fx) - 30) < 1e-4);

	/* 4. A slow writer: half the file, a pause longer than the quiet
	 * period, then the rest.  An error may be reported in between; the
	 * last good version serves meanwhile, and the final content loads. */
	{
		FILE *f = fopen(path, "w");
		size_t half = strlen(twice) / 2;

		assert_non_null(f);
		fwrite(twice, 1, half, f);
		fflush(f);
		usleep(300000);
		assert_true(fabs(walker_root_at_half(fx) - 30) < 1e-4);
		fwrite(twice + half, 1, strlen(twice) - half, f);
		fclose(f);
	}
	for (;;) {
		struct rpc_event ev;

		expect_event(fx, "asset.reloaded", "walker.md5anim", &ev);
		assert_int_equal(rpc_get_i64(ev.body, "generation", &gen), 0);
		rpc_event_free(&ev);
		if (fabs(walker_root_at_half(fx) - 60) < 1e-4)
			break;
	}

	/* The camera instance played on, unaffected. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "pause", "instance:u", (uint64_t)id), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	free(once);
	free(twice);
	free(thrice);
}

/* This connection has one instance, playing the asset's version `gen`. */
static void expect_one_instance_at(struct fixture *fx, int64_t gen)
{
	const msgpack_object *list;
	struct rpc_reply r;
	int64_t got;

	assert_int_equal(rpc_client_call(&fx->c, &r, "instances.list", NULL), 0);
	expect_ok(&r);
	list = rpc_get(r.result, "instances");
	assert_int_equal(list->via.array.size, 1);
	assert_int_equal(rpc_get_i64(&list->via.array.ptr[0], "generation", &got), 0);
	assert_int_equal(got, gen);
	rpc_reply_free(&r);
}

static void test_broken_save_keeps_last_good(void **state)
{
	struct fixture *fx = *state;
	char path[1024], *good, msg[512];
	struct rpc_event ev;
	struct rpc_reply r;
	int64_t id, gen;

	subscribe_assets(fx);
	asset_path(fx, "walker.md5anim", path, sizeof path);
	good = slurp(path);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s", "walker.md5anim"), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
	rpc_reply_free(&r);

	write_file(path, "MD5Version 10\ncommandline \"\"\nnumFrames 0\n", 41);
	expect_event(fx, "asset.error", "walker.md5anim", &ev);
	assert_int_equal(rpc_get_str(ev.body, "message", msg, sizeof msg), 0);
	assert_non_null(strstr(msg, "walker.md5anim:3:"));    /* file:line:col */
	assert_int_equal(rpc_get_i64(ev.body, "generation", &gen), 0);
	assert_int_equal(gen, 1);                              /* still live */
	rpc_event_free(&ev);
	assert_true(fabs(walker_root_at_half(fx) - 30) < 1e-4);
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", "walker.md5anim"), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_str(r.result, "error", msg, sizeof msg), 0);
	rpc_reply_free(&r);

	write_file(path, good, strlen(good));
	expect_event(fx, "asset.reloaded", "walker.md5anim", &ev);
	assert_int_equal(rpc_get_i64(ev.body, "generation", &gen), 0);
	assert_int_equal(gen, 2);
	rpc_event_free(&ev);
	/* The instance was rebound, not stopped. */
	expect_one_instance_at(fx, 2);
	free(good);
}

static void test_new_removed_and_reload_request(void **state)
{
	struct fixture *fx = *state;
	char src[1024], dst[1024], *text;
	struct rpc_reply r;
	int64_t id, gen;

	subscribe_assets(fx);
	asset_path(fx, "idle.md5anim", src, sizeof src);
	text = slurp(src);
	/* A new directory with a new file in it. */
	snprintf(dst, sizeof dst, "%s/more", fx->d.assets);
	assert_int_equal(mkdir(dst, 0755), 0);
	usleep(100000);
	snprintf(dst, sizeof dst, "%s/more/idle2.md5anim", fx->d.assets);
	write_file(dst, text, strlen(text));
	expect_event(fx, "asset.loaded", "more/idle2.md5anim", NULL);

	/* assets.reload answers once the reload happened: the live version
	 * kept when the bytes are the same, a new one when they changed. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.reload", "asset:s", "more/idle2.md5anim"), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "generation", &gen), 0);
	assert_int_equal(gen, 1);
	assert_true(rpc_get(r.result, "unchanged")->via.boolean);
	rpc_reply_free(&r);
	assert_int_equal(daemon_proc_touch_asset(&fx->d, "more/idle2.md5anim"), 0);
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.reload", "asset:s", "more/idle2.md5anim"), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "generation", &gen), 0);
	assert_int_equal(gen, 2);
	assert_false(rpc_get(r.result, "unchanged")->via.boolean);
	rpc_reply_free(&r);

	/* Removing a file stops the instances that played it, with a reason. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s", "more/idle2.md5anim"), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
	rpc_reply_free(&r);
	assert_int_equal(unlink(dst), 0);
	expect_event(fx, "asset.removed", "more/idle2.md5anim", NULL);
	expect_event(fx, "instance.stopped", "more/idle2.md5anim", NULL);
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", "more/idle2.md5anim"), 0);
	expect_error(&r, "not_found", NULL);
	rpc_reply_free(&r);
	free(text);
}

/* A DirectX .x file (skeleton, skinned mesh and clip in one) served like
 * any asset: listed as "x", described with its ticks, sampled into its
 * own mesh's vertices, played, and hot-reloaded through a broken save. */
static void test_x_asset(void **state)
{
	struct fixture *fx = *state;
	const msgpack_object *list, *pos;
	char dst[1024], msg[512], *text = slurp("tests/fixtures/x/arm.x");
	struct rpc_event ev;
	struct rpc_reply r;
	int64_t ticks, id, gen;
	int found = 0;

	assert_non_null(text);
	subscribe_assets(fx);
	snprintf(dst, sizeof dst, "%s/arm.x", fx->d.assets);
	write_file(dst, text, strlen(text));
	free(text);
	expect_event(fx, "asset.loaded", "arm.x", NULL);
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.list", NULL), 0);
	expect_ok(&r);
	list = rpc_get(r.result, "assets");
	for (uint32_t i = 0; i < list->via.array.size; i++) {
		const msgpack_object *a = &list->via.array.ptr[i];
		const msgpack_object *name = rpc_get(a, "asset"), *format = rpc_get(a, "format");

		if (name->via.str.size == 5 && memcmp(name->via.str.ptr, "arm.x", 5) == 0) {
			assert_int_equal(format->via.str.size, 1);
			assert_memory_equal(format->via.str.ptr, "x", 1);
			found = 1;
		}
	}
	assert_true(found);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", "arm.x"), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "ticks_per_second", &ticks), 0);
	assert_int_equal(ticks, 30);
	assert_int_equal(rpc_get(r.result, "note")->type, MSGPACK_OBJECT_NIL);
	rpc_reply_free(&r);
	/* Halfway through the turn, the tip has swung 45 degrees. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d space:s loop:s",
					 "arm.x", 0.5, "vertices", "once"), 0);
	expect_ok(&r);
	pos = &rpc_get(&rpc_get(r.result, "meshes")->via.array.ptr[0], "positions")
		       ->via.array.ptr[3];
	assert_true(fabs(pos->via.array.ptr[0].via.f64 + 0.70710678) < 1e-5);
	assert_true(fabs(pos->via.array.ptr[1].via.f64 - 2.70710678) < 1e-5);
	/* Its two triangles, as the file lists them: indices into positions. */
	pos = rpc_get(&rpc_get(r.result, "meshes")->via.array.ptr[0], "triangles");
	assert_int_equal(pos->type, MSGPACK_OBJECT_ARRAY);
	assert_int_equal(pos->via.array.size, 2);
	for (uint32_t t = 0; t < 2; t++) {
		static const uint64_t want[2][3] = { { 0, 1, 2 }, { 1, 3, 2 } };

		assert_int_equal(pos->via.array.ptr[t].via.array.size, 3);
		for (uint32_t k = 0; k < 3; k++)
			assert_int_equal(pos->via.array.ptr[t].via.array.ptr[k].via.u64, want[t][k]);
	}
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s clip:s", "arm.x", "wave"), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
	rpc_reply_free(&r);

	/* A save cut short: located error, the last good version plays on;
	 * the next good save is reloaded and the instance rebound. */
	text = slurp("tests/fixtures/x/arm.x");
	write_file(dst, text, 700);
	expect_event(fx, "asset.error", "arm.x", &ev);
	assert_int_equal(rpc_get_str(ev.body, "message", msg, sizeof msg), 0);
	assert_non_null(strstr(msg, "arm.x:"));
	assert_non_null(strstr(msg, ": error: "));
	assert_int_equal(rpc_get_i64(ev.body, "generation", &gen), 0);
	assert_int_equal(gen, 1);
	rpc_event_free(&ev);
	write_file(dst, text, strlen(text));
	expect_event(fx, "asset.reloaded", "arm.x", &ev);
	rpc_event_free(&ev);
	expect_one_instance_at(fx, 2);
	free(text);
}

/* Issue 10: a World of Warcraft M2 served like any asset: listed as
 * "m2", its sequences, global sequences, emitters and attachment points
 * in assets.info, a clip named
 * by animation id, played, and hot-reloaded through a broken save. */
static void test_m2_asset(void **state)
{
	struct fixture *fx = *state;
	const msgpack_object *clips, *list, *points;
	char dst[1024], msg[512], clip[32];
	struct m2w_file f;
	struct rpc_event ev;
	struct rpc_reply r;
	int64_t id, gen, v;
	float x;
	int found = 0;

	m2w_demo_model(&f);
	subscribe_assets(fx);
	snprintf(dst, sizeof dst, "%s/glow.m2", fx->d.assets);
	write_file(dst, (const char *)f.buf, f.len);
	expect_event(fx, "asset.loaded", "glow.m2", NULL);
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.list", NULL), 0);
	expect_ok(&r);
	list = rpc_get(r.result, "assets");
	for (uint32_t i = 0; i < list->via.array.size; i++) {
		const msgpack_object *a = &list->via.array.ptr[i];
		const msgpack_object *name = rpc_get(a, "asset"), *format = rpc_get(a, "format");

		if (name->via.str.size == 7 && memcmp(name->via.str.ptr, "glow.m2", 7) == 0) {
			assert_int_equal(format->via.str.size, 2);
			assert_memory_equal(format->via.str.ptr, "m2", 2);
			found = 1;
		}
	}
	assert_true(found);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", "glow.m2"), 0);
	expect_ok(&r);
	clips = rpc_get(r.result, "clips");
	assert_int_equal(clips->via.array.size, 3);
	assert_int_equal(rpc_get(r.result, "global_sequences")->via.array.size, 1);
	assert_int_equal(rpc_get(r.result, "emitters")->via.array.size, 1);
	/* Its attachment point's static fields: id 11 on bone 0 (joint 2:
	 * the file lists bones child first). */
	points = rpc_get(r.result, "attachments");
	assert_non_null(points);
	assert_int_equal(points->via.array.size, 1);
	assert_int_equal(rpc_get_i64(&points->via.array.ptr[0], "id", &v), 0);
	assert_int_equal(v, 11);
	assert_int_equal(rpc_get_i64(&points->via.array.ptr[0], "bone", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rpc_get_i64(&points->via.array.ptr[0], "joint", &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(rpc_get(&points->via.array.ptr[0], "position")->via.array.size, 3);
	assert_null(rpc_get(&points->via.array.ptr[0], "m"));
	rpc_reply_free(&r);
	/* Animation 0, variation 1 is the third sequence. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s clip:s", "glow.m2", "id=0.1"), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_str(r.result, "clip", clip, sizeof clip), 0);
	assert_string_equal(clip, "2");
	assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
	rpc_reply_free(&r);

	/* A save cut short: an error at a file offset, the last good version
	 * plays on; the next good save (one vertex moved) is reloaded and the
	 * instance rebound. */
	write_file(dst, (const char *)f.buf, 0x150);
	expect_event(fx, "asset.error", "glow.m2", &ev);
	assert_int_equal(rpc_get_str(ev.body, "message", msg, sizeof msg), 0);
	assert_non_null(strstr(msg, "glow.m2: offset 0x"));
	assert_non_null(strstr(msg, ": error: "));
	assert_int_equal(rpc_get_i64(ev.body, "generation", &gen), 0);
	assert_int_equal(gen, 1);
	rpc_event_free(&ev);
	memcpy(&x, f.buf + f.vertices, sizeof x);
	x += 0.25f;
	memcpy(f.buf + f.vertices, &x, sizeof x);
	write_file(dst, (const char *)f.buf, f.len);
	expect_event(fx, "asset.reloaded", "glow.m2", &ev);
	rpc_event_free(&ev);
	expect_one_instance_at(fx, 2);
	m2w_file_free(&f);
}

/* Issue 16: a 264 model whose views are in NAME00.skin and whose
 * sequence 1 keeps its keys in NAME0005-01.anim.  The companions are not
 * assets of their own; a save of either reloads the model; a broken .anim
 * leaves only its sequence not loaded (listed, refused by play), and the
 * next good save brings it back. */
static const uint32_t wk_t[] = { 0, 1000, 2000, 3000 };
static const float wk_v[] = { 0, 0, 0, 2, 0, 0, 10, 0, 0, 20, 0, 0 };

static bool clip_loaded(struct fixture *fx, const char *asset, uint32_t clip)
{
	const msgpack_object *clips, *o;
	struct rpc_reply r;
	bool loaded;

	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", asset), 0);
	expect_ok(&r);
	clips = rpc_get(r.result, "clips");
	assert_true(clip < clips->via.array.size);
	o = rpc_get(&clips->via.array.ptr[clip], "loaded");
	assert_non_null(o);
	assert_int_equal(o->type, MSGPACK_OBJECT_BOOLEAN);
	loaded = o->via.boolean;
	assert_int_equal(rpc_get(r.result, "companions")->via.array.size, 2);
	rpc_reply_free(&r);
	return loaded;
}

static void test_m2_companions_reload(void **state)
{
	struct fixture *fx = *state;
	struct m2w_sequence seq[2] = {
		{ .id = 4, .end_ms = 1000, .flags = M2_SEQ_IN_MODEL, .next_variation = -1 },
		{ .id = 5, .variation = 1, .start_ms = 2000, .end_ms = 3000, .next_variation = -1 },
	};
	struct m2w_bone bone = { .key_bone_id = -1, .parent = -1,
				 .t = { .interpolation = M2_INTERP_LINEAR, .count = 4, .times = wk_t,
					.values = wk_v } };
	struct m2w_vertex v[3] = { { .weights = { 255 } }, { .position = { 1 }, .weights = { 255 } },
				   { .position = { 0, 1 }, .weights = { 255 } } };
	uint16_t list[3] = { 0, 1, 2 }, corners[3] = { 0, 1, 2 };
	struct m2w_view view = { .vertex_count = 3, .vertices = list, .corner_count = 3,
				 .corners = corners };
	struct m2w_model m = { .version = 264, .sequence_count = 2, .sequences = seq,
			       .bone_count = 1, .bones = &bone, .vertex_count = 3, .vertices = v,
			       .view_count = 1, .views = &view };
	struct m2w_companion *anim, *skin;
	struct m2w_file f;
	struct rpc_reply r;
	char path[1024];
	int64_t gen;
	struct rpc_event ev;

	m2w_build(&m, &f);
	anim = m2w_companion(&f, "0005-01.anim");
	skin = m2w_companion(&f, "00.skin");
	assert_non_null(anim);
	assert_non_null(skin);
	subscribe_assets(fx);
	/* Companions first, then the model: one load with everything. */
	asset_path(fx, "wk0005-01.anim", path, sizeof path);
	write_file(path, (const char *)anim->buf, anim->len);
	asset_path(fx, "wk00.skin", path, sizeof path);
	write_file(path, (const char *)skin->buf, skin->len);
	asset_path(fx, "wk.m2", path, sizeof path);
	write_file(path, (const char *)f.buf, f.len);
	expect_event(fx, "asset.loaded", "wk.m2", NULL);
	assert_true(clip_loaded(fx, "wk.m2", 1));
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", "wk00.skin"), 0);
	expect_error(&r, "not_found", NULL);
	rpc_reply_free(&r);

	/* A broken save of the .anim: the model reloads, sequence 1 is not
	 * loaded and cannot be played; sequence 0 plays. */
	asset_path(fx, "wk0005-01.anim", path, sizeof path);
	write_file(path, (const char *)anim->buf, anim->len - 4);
	expect_event(fx, "asset.reloaded", "wk.m2", &ev);
	assert_int_equal(rpc_get_i64(ev.body, "generation", &gen), 0);
	assert_int_equal(gen, 2);
	rpc_event_free(&ev);
	assert_false(clip_loaded(fx, "wk.m2", 1));
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s clip:s", "wk.m2", "1"), 0);
	expect_error(&r, "not_found", "(sequence 1 is not loaded: wk0005-01.anim was rejected)");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s clip:s", "wk.m2", "0"), 0);
	expect_ok(&r);
	rpc_reply_free(&r);

	/* The good .anim again: reloaded, sequence 1 back. */
	write_file(path, (const char *)anim->buf, anim->len);
	expect_event(fx, "asset.reloaded", "wk.m2", NULL);
	assert_true(clip_loaded(fx, "wk.m2", 1));

	/* A save of the .skin (the triangle turned): reloaded too. */
	{
		uint32_t tri = (uint32_t)skin->buf[16] | (uint32_t)skin->buf[17] << 8;

		skin->buf[tri] = 1;
		skin->buf[tri + 2] = 0;
	}
	asset_path(fx, "wk00.skin", path, sizeof path);
	write_file(path, (const char *)skin->buf, skin->len);
	expect_event(fx, "asset.reloaded", "wk.m2", &ev);
	assert_int_equal(rpc_get_i64(ev.body, "generation", &gen), 0);
	assert_int_equal(gen, 4);
	rpc_event_free(&ev);
	m2w_file_free(&f);
}

/* ---- start-up and shutdown ---------------------------------------- */

static void test_refuses_live_socket_and_reloads_config(void **state)
{
	struct fixture *fx = *state;
	struct daemon_proc second;
	char cmd[2048];
	int rc;

	/* A second daemon on the same socket refuses to start and leaves the
	 * first one's socket alone. */
	assert_int_equal(daemon_proc_init(&second), 0);
	snprintf(cmd, sizeof cmd, "%s serve --assets %s --socket %s 2>%s/second.log",
		 getenv("ANIMD"), fx->d.assets, fx->d.socket, second.dir);
	rc = system(cmd);
	assert_int_equal(WEXITSTATUS(rc), 1);
	snprintf(cmd, sizeof cmd, "grep -q 'another animd is serving' %s/second.log", second.dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(access(fx->d.socket, F_OK), 0);
	daemon_proc_cleanup(&second);

	/* SIGHUP: RELOADING=1, then READY=1 again. */
	kill(fx->d.pid, SIGHUP);
	assert_int_equal(daemon_proc_wait_notify(&fx->d, "RELOADING=1", TIMEOUT_MS), 0);
	assert_int_equal(daemon_proc_wait_notify(&fx->d, "READY=1", TIMEOUT_MS), 0);
	assert_true(daemon_proc_log_contains(&fx->d, "SIGHUP"));
}

static void test_bad_config_refuses_to_start(void **state)
{
	struct daemon_proc d;

	(void)state;
	assert_int_equal(daemon_proc_init(&d), 0);
	assert_true(daemon_proc_start(&d, "[limits]\nmax_connections = lots\n", 5000) < 0);
	assert_true(daemon_proc_log_contains(&d, "animd.ini:"));
	assert_true(daemon_proc_log_contains(&d, "max_connections"));
	daemon_proc_cleanup(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hello_status_list_info, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_matches_offline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_play_controls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_once_ends_with_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_instances_owned_by_connection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_request_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_input_isolated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slow_reader_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reload_save_patterns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken_save_keeps_last_good, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_removed_and_reload_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_x_asset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_m2_companions_reload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_m2_asset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_live_socket_and_reloads_config, setup, teardown),
		cmocka_unit_test(test_bad_config_refuses_to_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
