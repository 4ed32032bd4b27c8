/*
 * What a hostile or careless peer, file or operator can do to the daemon
 * (issue 8), each against the real daemon: FIFOs and devices in the asset
 * tree, a client that half-closes with requests in flight, the asset root
 * deleted and recreated, SIGHUP storms, connections that stall half-way
 * through a request, bin-typed method names, and reload floods.  Each test
 * is named after the defect it keeps fixed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/animd_shm.h"
#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 10000

struct fixture {
	struct daemon_proc d;
	struct rpc_client c;
};

static void dump_log(const struct fixture *fx)
{
	char line[512];
	FILE *f = fopen(fx->d.log, "r");

	if (f == NULL)
		return;
	fprintf(stderr, "daemon log:\n");
	while (fgets(line, sizeof line, f) != NULL)
		fprintf(stderr, "  %s", line);
	fclose(f);
}

/* The daemon on the demo assets with `extra_ini`, and one connection. */
static struct fixture *start(const char *extra_ini)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	const char *build = getenv("BUILD");
	char cmd[1024];

	assert_non_null(fx);
	assert_int_equal(daemon_proc_init(&fx->d), 0);
	snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s", build ? build : "build", fx->d.assets);
	assert_int_equal(system(cmd), 0);
	if (daemon_proc_start(&fx->d, extra_ini, TIMEOUT_MS) != 0) {
		dump_log(fx);
		fail_msg("the daemon did not start");
	}
	assert_int_equal(rpc_client_connect(&fx->c, fx->d.socket, TIMEOUT_MS), 0);
	return fx;
}

/* SIGTERM: a clean exit, promptly, whatever the test left behind. */
static void stop(struct fixture *fx)
{
	int status;

	rpc_client_close(&fx->c);
	status = daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS);
	if (status != 0)
		dump_log(fx);
	assert_int_equal(status, 0);
	assert_true(daemon_proc_log_contains(&fx->d, "stopped"));
	daemon_proc_cleanup(&fx->d);
	free(fx);
}

static void expect_ok(const struct rpc_reply *r)
{
	if (r->error != NULL)
		fail_msg("unexpected error %s: %s", r->code, r->message);
}

static int64_t status_field(struct fixture *fx, const char *group, const char *key)
{
	struct rpc_reply r;
	int64_t v = -1;

	assert_int_equal(rpc_client_call(&fx->c, &r, "status", NULL), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(group != NULL ? rpc_get(r.result, group) : r.result, key, &v),
			 0);
	rpc_reply_free(&r);
	return v;
}

static void subscribe_all(struct fixture *fx)
{
	static const char *all[] = { "asset.loaded", "asset.reloaded", "asset.error",
				     "asset.removed", "instance.ended", "instance.stopped", NULL };
	struct rpc_reply r;

	assert_int_equal(rpc_client_call(&fx->c, &r, "subscribe", "events:S", all), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
}

/* The next event of `type` about `asset` (others are skipped). */
static void wait_event(struct fixture *fx, const char *type, const char *asset,
		       struct rpc_event *ev)
{
	char name[256];

	for (;;) {
		if (rpc_client_next_event(&fx->c, TIMEOUT_MS, ev) != 0)
			fail_msg("no %s event for %s", type, asset);
		if (strcmp(ev->type, type) == 0 &&
		    rpc_get_str(ev->body, "asset", name, sizeof name) == 0 &&
		    strcmp(name, asset) == 0)
			return;
		rpc_event_free(ev);
	}
}

static void asset_path(const struct fixture *fx, const char *name, char *out, size_t size)
{
	snprintf(out, size, "%s/%s", fx->d.assets, name);
}

/* ---- D2: FIFOs and devices named like assets ------------------------- */

static void test_d2_fifo_in_tree(void **state)
{
	struct fixture *fx;
	struct rpc_event ev;
	char path[512], msg[512];

	(void)state;
	fx = start(NULL);
	subscribe_all(fx);
	asset_path(fx, "one.md5anim", path, sizeof path);
	assert_int_equal(mkfifo(path, 0644), 0);
	wait_event(fx, "asset.error", "one.md5anim", &ev);
	assert_int_equal(rpc_get_str(ev.body, "message", msg, sizeof msg), 0);
	assert_non_null(strstr(msg, "is a FIFO, not a regular file"));
	rpc_event_free(&ev);
	/* Nothing stays loading, the others still load, and SIGTERM (in stop)
	 * exits cleanly with nobody ever writing the FIFO. */
	assert_int_equal(status_field(fx, "assets", "loading"), 0);
	asset_path(fx, "later.md5anim", path, sizeof path);
	{
		char src[512], cmd[1200];

		asset_path(fx, "idle.md5anim", src, sizeof src);
		snprintf(cmd, sizeof cmd, "cp %s %s", src, path);
		assert_int_equal(system(cmd), 0);
	}
	wait_event(fx, "asset.loaded", "later.md5anim", &ev);
	rpc_event_free(&ev);
	stop(fx);
}

/* ---- D4: a half-close loses nothing ----------------------------------- */

static void test_d4_half_close_answers_everything(void **state)
{
	enum { N = 3000 };
	struct fixture *fx;
	struct rpc_reply r;
	int64_t reload_id;
	unsigned got = 0;

	(void)state;
	fx = start(NULL);
	rpc_client_cork(&fx->c);
	for (unsigned i = 0; i < N; i++)
		assert_true(rpc_client_send(&fx->c, "status", NULL) > 0);
	/* A deferred reply too: the reload is answered after the load. */
	reload_id = rpc_client_send(&fx->c, "assets.reload", "asset:s", "walker.md5anim");
	assert_true(reload_id > 0);
	assert_int_equal(rpc_client_uncork(&fx->c), 0);
	assert_int_equal(shutdown(fx->c.fd, SHUT_WR), 0);
	while (got < N + 1) {
		if (rpc_client_wait_any(&fx->c, &r) != 0)
			break;
		expect_ok(&r);
		got++;
		rpc_reply_free(&r);
	}
	assert_int_equal(got, N + 1);
	/* Then the daemon closes its side. */
	assert_int_equal(rpc_client_wait_closed(&fx->c, TIMEOUT_MS), 1);
	stop(fx);
}

/* ---- D5: the asset root deleted and made again ------------------------ */

static void test_d5_root_recreated(void **state)
{
	struct fixture *fx;
	struct rpc_event ev;
	char cmd[1200];
	const char *build = getenv("BUILD");

	(void)state;
	fx = start(NULL);
	subscribe_all(fx);
	snprintf(cmd, sizeof cmd, "rm -rf %s", fx->d.assets);
	assert_int_equal(system(cmd), 0);
	wait_event(fx, "asset.removed", "walker.md5anim", &ev);
	rpc_event_free(&ev);
	assert_true(daemon_proc_log_contains(&fx->d, "the asset root is gone"));
	snprintf(cmd, sizeof cmd, "mkdir %s && %s/gen/gen_demo %s", fx->d.assets,
		 build ? build : "build", fx->d.assets);
	assert_int_equal(system(cmd), 0);
	wait_event(fx, "asset.loaded", "walker.md5anim", &ev);
	rpc_event_free(&ev);
	for (int i = 0; i < 100 && status_field(fx, "assets", "count") < 6; i++)
		usleep(20000);
	assert_int_equal(status_field(fx, "assets", "count"), 6);
	assert_true(daemon_proc_log_contains(&fx->d, "the asset root is back"));
	stop(fx);
}

/* ---- D6: a SIGHUP storm ------------------------------------------------ */

static void test_d6_sighup_storm_coalesces(void **state)
{
	enum { N = 3000 };
	struct fixture *fx;
	int64_t hups = 0, reloads, last = -1;
	FILE *f;

	(void)state;
	fx = start(NULL);
	/* The configuration changes before the storm: the last reload must
	 * apply it. */
	f = fopen(fx->d.config, "a");
	assert_non_null(f);
	fprintf(f, "[log]\nlevel = debug\n");
	fclose(f);
	/* Spaced a little, so that the kernel does not merge them all into
	 * one pending signal: most of them reach the daemon one by one. */
	for (int i = 0; i < N; i++) {
		assert_int_equal(kill(fx->d.pid, SIGHUP), 0);
		usleep(20);
		if (i % 64 == 0)
			daemon_proc_drain_notify(&fx->d);
	}
	/* The daemon answers while it works through them; wait until the
	 * signals are all taken (the kernel merges some: fewer than N arrive). */
	for (int i = 0; i < 500; i++) {
		daemon_proc_drain_notify(&fx->d);
		hups = status_field(fx, NULL, "sighups");
		reloads = status_field(fx, NULL, "config_reloads");
		if (hups == last && daemon_proc_log_contains(&fx->d, "log.level: info -> debug"))
			break;
		last = hups;
		usleep(20000);
	}
	reloads = status_field(fx, NULL, "config_reloads");
	printf("  %d SIGHUPs sent, %lld received, %lld reloads\n", N, (long long)hups,
	       (long long)reloads);
	assert_true(hups >= 1 && hups <= N);
	assert_true(reloads >= 1);
	/* One at a time, spaced, and the ones that arrive meanwhile fold into
	 * one: a few a second, not one per signal. */
	assert_true(reloads <= hups);
	if (hups >= 100)
		assert_true(reloads * 10 < hups);
	assert_true(daemon_proc_log_contains(&fx->d, "log.level: info -> debug"));
	stop(fx);
}

/* Many SIGTERMs (an impatient operator, a supervisor that repeats itself):
 * the first starts a clean shutdown, the others change nothing. */
static void test_d6_sigterm_storm_exits_cleanly(void **state)
{
	struct fixture *fx;
	int status;

	(void)state;
	fx = start(NULL);
	for (int i = 0; i < 200; i++) {
		kill(fx->d.pid, SIGTERM);
		usleep(50);
	}
	status = daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS);
	if (status != 0)
		dump_log(fx);
	assert_int_equal(status, 0);
	assert_true(daemon_proc_log_contains(&fx->d, "stopped"));
	rpc_client_close(&fx->c);
	daemon_proc_cleanup(&fx->d);
	free(fx);
}

/* ---- D7: stalled and surplus connections ------------------------------ */

/* The first bytes of [0, 1, "status", []]: a request begun, never ended. */
static void send_half_request(struct rpc_client *c)
{
	static const unsigned char half[] = { 0x94, 0x00, 0x01, 0xa6, 's', 't' };

	assert_int_equal(rpc_client_send_raw(c, half, sizeof half), 0);
}

/* The one reply a connection gets before the daemon hangs up. */
static void expect_fatal(struct rpc_client *c, const char *code, const char *fragment)
{
	struct rpc_reply r;

	assert_int_equal(rpc_client_wait_any(c, &r), 0);
	if (r.error == NULL)
		fail_msg("expected a %s error", code);
	assert_string_equal(r.code, code);
	if (fragment != NULL && strstr(r.message, fragment) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", r.message, fragment);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_wait_closed(c, TIMEOUT_MS), 1);
}

static void test_d7_stalled_requests_time_out(void **state)
{
	enum { SLOTS = 4 };
	struct rpc_client stalled[SLOTS], extra;
	struct fixture *fx;
	struct rpc_reply r;

	(void)state;
	fx = start("[limits]\nmax_connections = 5\nrequest_timeout_ms = 300\n");
	/* The fixture's client is one of the five. */
	for (int i = 0; i < SLOTS; i++) {
		assert_int_equal(rpc_client_connect(&stalled[i], fx->d.socket, TIMEOUT_MS), 0);
		send_half_request(&stalled[i]);
	}
	/* Every slot is taken: a sixth client is told so, even if it wrote
	 * its request before reading. */
	assert_int_equal(rpc_client_connect(&extra, fx->d.socket, TIMEOUT_MS), 0);
	assert_true(rpc_client_send(&extra, "status", NULL) > 0);
	expect_fatal(&extra, "limit", "max_connections");
	rpc_client_close(&extra);
	/* The stalled ones are cut off, each told why... */
	for (int i = 0; i < SLOTS; i++) {
		expect_fatal(&stalled[i], "limit", "request_timeout_ms");
		rpc_client_close(&stalled[i]);
	}
	/* ...and the slots are free again. */
	assert_int_equal(rpc_client_connect(&extra, fx->d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&extra, &r, "status", NULL), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	rpc_client_close(&extra);
	/* A client that trickles whole requests is never cut off. */
	for (int i = 0; i < 8; i++) {
		assert_int_equal(rpc_client_call(&fx->c, &r, "hello", NULL), 0);
		expect_ok(&r);
		rpc_reply_free(&r);
		usleep(100000);
	}
	assert_true(daemon_proc_log_contains(&fx->d, "refused connection"));
	stop(fx);
}

static void test_d7_every_refusal_is_answered(void **state)
{
	enum { N = 40 };
	struct fixture *fx;

	(void)state;
	fx = start("[limits]\nmax_connections = 1\n");
	for (int i = 0; i < N; i++) {
		struct rpc_client c;

		assert_int_equal(rpc_client_connect(&c, fx->d.socket, TIMEOUT_MS), 0);
		if (i % 2 == 0)
			assert_true(rpc_client_send(&c, "hello", NULL) > 0);
		expect_fatal(&c, "limit", "too many connections");
		rpc_client_close(&c);
	}
	/* Logged, but not forty lines. */
	assert_true(daemon_proc_log_contains(&fx->d, "refused connection"));
	stop(fx);
}

static void test_d7_idle_connections_close(void **state)
{
	struct rpc_client idle, owner;
	struct fixture *fx;
	struct rpc_reply r;

	(void)state;
	fx = start("[limits]\nidle_timeout_s = 1\n");
	assert_int_equal(rpc_client_connect(&idle, fx->d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_connect(&owner, fx->d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&owner, &r, "play", "asset:s mesh:s", "walker.md5anim",
					 "walker.md5mesh"), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	expect_fatal(&idle, "limit", "idle_timeout_s");
	rpc_client_close(&idle);
	/* The one that owns an instance stays, silent as it is. */
	sleep(2);
	assert_int_equal(rpc_client_call(&owner, &r, "instances.list", NULL), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	rpc_client_close(&owner);
	stop(fx);
}

/* ---- reload floods ------------------------------------------------------ */

/* assets.reload of unchanged bytes answers `unchanged` and republishes
 * nothing; a connection's waiting reloads are bounded. */
static void test_reload_flood_does_not_republish(void **state)
{
	enum { N = 200 };
	struct fixture *fx;
	struct rpc_reply r;
	const struct animd_shm_header *h;
	const struct animd_shm_channel *ch;
	uint64_t before;
	int64_t stream, v;
	unsigned answered = 0, unchanged = 0, limited = 0;
	size_t bytes;
	int fd;

	(void)state;
	fx = start(NULL);
	/* A stream that publishes on changes only. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "stream.open", "space:s rate:u", "model",
					 (uint64_t)0), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "stream", &stream), 0);
	assert_int_equal(rpc_get_i64(r.result, "region_bytes", &v), 0);
	bytes = (size_t)v;
	rpc_reply_free(&r);
	fd = rpc_client_take_fd(&fx->c);
	assert_true(fd >= 0);
	h = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(h != MAP_FAILED);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s mesh:s stream:u",
					 "walker.md5anim", "walker.md5mesh", (uint64_t)stream), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	ch = animd_shm_channel((void *)h, h, 0);
	before = animd_shm_published(ch);
	assert_true(before >= 1);
	rpc_client_cork(&fx->c);
	for (int i = 0; i < N; i++)
		assert_true(rpc_client_send(&fx->c, "assets.reload", "asset:s", "walker.md5anim") > 0);
	assert_int_equal(rpc_client_uncork(&fx->c), 0);
	while (answered < N && rpc_client_wait_any(&fx->c, &r) == 0) {
		const msgpack_object *u = r.result != NULL ? rpc_get(r.result, "unchanged") : NULL;

		answered++;
		if (r.error != NULL && strcmp(r.code, "limit") == 0)
			limited++;
		else if (u != NULL && u->type == MSGPACK_OBJECT_BOOLEAN && u->via.boolean)
			unchanged++;
		else
			fail_msg("unexpected reload reply %s %s", r.code, r.message);
		rpc_reply_free(&r);
	}
	printf("  %u reloads: %u unchanged, %u refused (limit)\n", answered, unchanged, limited);
	assert_int_equal(answered, N);
	assert_true(unchanged >= 1);
	assert_int_equal(animd_shm_published(ch), before);
	munmap((void *)h, bytes);
	close(fd);
	stop(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_d2_fifo_in_tree),
		cmocka_unit_test(test_d4_half_close_answers_everything),
		cmocka_unit_test(test_d5_root_recreated),
		cmocka_unit_test(test_d6_sighup_storm_coalesces),
		cmocka_unit_test(test_d6_sigterm_storm_exits_cleanly),
		cmocka_unit_test(test_d7_stalled_requests_time_out),
		cmocka_unit_test(test_d7_every_refusal_is_answered),
		cmocka_unit_test(test_d7_idle_connections_close),
		cmocka_unit_test(test_reload_flood_does_not_republish),
	};

	return cmocka_run_group_tests_name("hardening", tests, NULL, NULL);
}
