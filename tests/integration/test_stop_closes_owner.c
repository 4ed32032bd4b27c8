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
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 10000
/* The asset lives 5 directories of 190 bytes deep (the cache serves names
 * of up to 1023 bytes), so that each stopped event carries a name of some
 * 970 bytes: the events of 30000 instances (over 30 MB) far exceed the
 * socket's buffer plus the smallest output maximum the daemon accepts
 * (17 MiB). */
#define INSTANCES 30000
#define BATCH 50
#define DEEP_LEVELS 5
#define DEEP_COMPONENT 190

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

/* Move assets/idle.md5anim down DEEP_LEVELS long directories; its name
 * relative to the asset root into name. */
static void bury_asset(const struct daemon_proc *d, char *name, size_t size)
{
	char dir[8192], from[1024], to[8192];
	size_t n = 0;

	for (int level = 0; level < DEEP_LEVELS; level++) {
		memset(name + n, 'a' + level, DEEP_COMPONENT);
		n += DEEP_COMPONENT;
		name[n] = '\0';
		snprintf(dir, sizeof dir, "%s/%s", d->assets, name);
		assert_int_equal(mkdir(dir, 0755), 0);
		name[n++] = '/';
	}
	assert_true(n + sizeof "idle.md5anim" <= size);
	memcpy(name + n, "idle.md5anim", sizeof "idle.md5anim");
	snprintf(from, sizeof from, "%s/idle.md5anim", d->assets);
	snprintf(to, sizeof to, "%s/%s", d->assets, name);
	assert_int_equal(rename(from, to), 0);
}

static void test_stopped_events_overflow_their_owner(void **state)
{
	const char *stopped[] = { "instance.stopped", NULL }, *removed[] = { "asset.removed", NULL };
	struct daemon_proc d;
	struct rpc_client owner, other;
	struct rpc_reply r;
	struct rpc_event ev;
	char cmd[1024], path[8192], name[4096];
	const char *build = getenv("BUILD");
	int64_t v;

	(void)state;
	assert_int_equal(daemon_proc_init(&d), 0);
	snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s", build ? build : "build", d.assets);
	assert_int_equal(system(cmd), 0);
	bury_asset(&d, name, sizeof name);
	assert_int_equal(daemon_proc_start(&d,
					   "[limits]\nmax_message_bytes = 64K\n"
					   "max_output_bytes_per_connection = 17M\n"
					   "max_instances_per_connection = 32768\n"
					   "[reload]\nquiet_ms = 50\n", TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_connect(&owner, d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_connect(&other, d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&owner, &r, "subscribe", "events:S", stopped), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&other, &r, "subscribe", "events:S", removed), 0);
	rpc_reply_free(&r);
	play_many(&owner, name, INSTANCES);

	/* The owner reads nothing from here on. */
	snprintf(path, sizeof path, "%s/%s", d.assets, name);
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
