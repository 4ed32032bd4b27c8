/*
 * A batch of requests whose replies pass the output high mark stops
 * reading (PROTOCOL.md, section 5) until the client has caught up.  When
 * the socket takes the whole flush at once, no queued write is left to
 * complete and resume reading: the daemon must resume by itself.  animd
 * runs with whole_writes.so preloaded (every socket write taken whole);
 * a client pipelines, in one write, requests whose replies are worth
 * several high marks (assets.info of the demo walker's mesh, some 9 kB
 * each) and must get every reply.
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

#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 20000

static void test_replies_past_the_high_mark(void **state)
{
	struct daemon_proc d;
	struct rpc_client c;
	struct rpc_reply r;
	char preload[512];
	const char *build = getenv("BUILD");
	int64_t last = -1;
	char path[512], *mesh;
	size_t replied = 0;
	FILE *f;
	long n;
	enum { N = 1500 };

	(void)state;
	assert_non_null(build);
	snprintf(preload, sizeof preload, "%s/integration/whole_writes.so", build);
	snprintf(path, sizeof path, "%s/demo/walker.md5mesh", build);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	mesh = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(mesh, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	assert_int_equal(daemon_proc_init(&d), 0);
	assert_int_equal(daemon_proc_write_asset(&d, "walker.md5mesh", mesh), 0);
	free(mesh);
	assert_int_equal(setenv("LD_PRELOAD", preload, 1), 0);
	assert_int_equal(daemon_proc_start(&d, NULL, TIMEOUT_MS), 0);
	unsetenv("LD_PRELOAD");
	assert_int_equal(rpc_client_connect(&c, d.socket, TIMEOUT_MS), 0);
	c.timeout_ms = TIMEOUT_MS;
	/* One write of N requests (about 50 kB, within the socket's buffer):
	 * the daemon reads them in large batches. */
	rpc_client_cork(&c);
	for (int i = 0; i < N; i++) {
		last = rpc_client_send(&c, "assets.info", "asset:s", "walker.md5mesh");
		assert_true(last > 0);
	}
	assert_int_equal(rpc_client_uncork(&c), 0);
	for (int i = 0; i < N; i++) {
		if (rpc_client_wait_any(&c, &r) != 0)
			fail_msg("reply %d of %d never came: reading stopped at the high mark and "
				 "never resumed", i, N);
		assert_null(r.error);
		replied += r.msg.data.type == MSGPACK_OBJECT_ARRAY ? 1 : 0;
		rpc_reply_free(&r);
	}
	assert_int_equal(replied, N);
	rpc_client_close(&c);
	assert_int_equal(daemon_proc_stop(&d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replies_past_the_high_mark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
