/*
 * An instance.stopped event that closes its own connection.  A client that
 * subscribed to instance.stopped, owns thousands of instances and has
 * stopped reading is cut off (its output limit) by the very events that
 * stop those instances when their asset is removed.  The daemon must end
 * that connection and its instances exactly once and keep serving the
 * others; it used to destroy the instance being stopped a second time and
 * crash.  (The soak test found it through the other way such a send closes
 * a connection: a write to a client that had just been killed.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 10000
#define INSTANCES 4000          /* their stopped events far exceed socket buffer + 64K */
#define BATCH 50

static void play_many(struct rpc_client *c, const char *asset, int n)
{
	for (int done = 0; done < n; done += BATCH) {
		int64_t first = 0;

		rpc_client_cork(c);
		for (int k = 0; k < BATCH; k++) {
			int64_t id = rpc_client_send(c, "play", "asset:s", asset);

			assert_true(id > 0);
			if (k == 0)
				first = id;
		}
		assert_int_equal(rpc_client_uncork(c), 0);
		for (int k = 0; k < BATCH; k++) {
			struct rpc_reply r;

			assert_int_equal(rpc_client_wait(c, (uint32_t)(first + k), &r), 0);
			if (r.error != NULL)
				fail_msg("play: %s %s", r.code, r.message);
			rpc_reply_free(&r);
		}
	}
}

static void test_stopped_events_overflow_their_owner(void **state)
{
	const char *stopped[] = { "instance.stopped", NULL }, *removed[] = { "asset.removed", NULL };
	struct daemon_proc d;
	struct rpc_client owner, other;
	struct rpc_reply r;
	struct rpc_event ev;
	char cmd[1024], path[1024];
	const char *build = getenv("BUILD");
	int64_t v;

	(void)state;
	assert_int_equal(daemon_proc_init(&d), 0);
	snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s", build ? build : "build", d.assets);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(daemon_proc_start(&d,
					   "[limits]\nmax_message_bytes = 64K\n"
					   "max_output_bytes_per_connection = 64K\n"
					   "max_instances_per_connection = 8192\n"
					   "[reload]\nquiet_ms = 50\n", TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_connect(&owner, d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_connect(&other, d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&owner, &r, "subscribe", "events:S", stopped), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&other, &r, "subscribe", "events:S", removed), 0);
	rpc_reply_free(&r);
	play_many(&owner, "idle.md5anim", INSTANCES);

	/* The owner reads nothing from here on. */
	snprintf(path, sizeof path, "%s/idle.md5anim", d.assets);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rpc_client_next_event(&other, TIMEOUT_MS, &ev), 0);
	assert_string_equal(ev.type, "asset.removed");
	rpc_event_free(&ev);

	/* The daemon lives on, the owner is gone and so are its instances. */
	assert_int_equal(rpc_client_call(&other, &r, "status", NULL), 0);
	assert_null(r.error);
	assert_int_equal(rpc_get_i64(r.result, "instances", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rpc_get_i64(r.result, "connections", &v), 0);
	assert_int_equal(v, 1);
	rpc_reply_free(&r);
	assert_true(rpc_client_wait_closed(&owner, TIMEOUT_MS));
	assert_true(daemon_proc_log_contains(&d, "output limit reached"));

	rpc_client_close(&owner);
	rpc_client_close(&other);
	assert_int_equal(daemon_proc_stop(&d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stopped_events_overflow_their_owner),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
