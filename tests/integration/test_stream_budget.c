/*
 * The streams' memory budget ([streams] max_total_bytes) against the real
 * daemon: with a small budget, streams open up to it and the next is
 * refused with `limit` naming the key and the sizes, whichever connection
 * asks; closing one, or a client that dies with its streams, gives the
 * memory back; status reports the total and the budget; a SIGHUP changes
 * it for the streams opened next; auto is a quarter of the memory the
 * daemon may take.
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

#include "daemon/service/base/memlimit.h"
#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 10000
#define BUDGET (1u << 20)

struct fixture {
	struct daemon_proc d;
	struct rpc_client a, b;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);

	assert_non_null(fx);
	assert_int_equal(daemon_proc_init(&fx->d), 0);
	assert_int_equal(daemon_proc_start(&fx->d,
					   "[streams]\nmax_total_bytes = 1M\n"
					   "[limits]\nmax_streams_per_connection = 64\n",
					   TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_connect(&fx->a, fx->d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_connect(&fx->b, fx->d.socket, TIMEOUT_MS), 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	rpc_client_close(&fx->a);
	if (fx->b.fd >= 0)
		rpc_client_close(&fx->b);
	assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&fx->d);
	free(fx);
	return 0;
}

/* stream.open of a model stream of 4 channels of 256 joints, 8 deep (some
 * 386 KiB): its id and region_bytes, or 0 with the error in r's code and
 * message (r is freed either way, its code and message kept). */
static int64_t try_open(struct rpc_client *c, int64_t *region, char *code, char *message,
			size_t size)
{
	struct rpc_reply r;
	int64_t id = 0;

	assert_int_equal(rpc_client_call(c, &r, "stream.open",
					 "space:s rate:u instances:u joints:u depth:u", "model",
					 (uint64_t)0, (uint64_t)4, (uint64_t)256, (uint64_t)8), 0);
	if (r.error == NULL) {
		assert_int_equal(rpc_get_i64(r.result, "stream", &id), 0);
		if (region != NULL)
			assert_int_equal(rpc_get_i64(r.result, "region_bytes", region), 0);
		/* The descriptor is not needed here. */
		close(rpc_client_take_fd(c));
	} else {
		snprintf(code, 64, "%s", r.code);
		snprintf(message, size, "%s", r.message);
	}
	rpc_reply_free(&r);
	return id;
}

static int64_t must_open(struct rpc_client *c, int64_t *region)
{
	char code[64], message[512];
	int64_t id = try_open(c, region, code, message, sizeof message);

	if (id == 0)
		fail_msg("stream.open: %s %s", code, message);
	return id;
}

static void must_close(struct rpc_client *c, int64_t id)
{
	struct rpc_reply r;

	assert_int_equal(rpc_client_call(c, &r, "stream.close", "stream:u", (uint64_t)id), 0);
	assert_null(r.error);
	rpc_reply_free(&r);
}

static void memory(struct rpc_client *c, int64_t *streams, int64_t *budget)
{
	struct rpc_reply r;
	const msgpack_object *m;

	assert_int_equal(rpc_client_call(c, &r, "status", NULL), 0);
	assert_null(r.error);
	m = rpc_get(r.result, "memory");
	assert_non_null(m);
	assert_int_equal(rpc_get_i64(m, "streams", streams), 0);
	assert_int_equal(rpc_get_i64(m, "streams_budget", budget), 0);
	rpc_reply_free(&r);
}

static void expect_refused(struct rpc_client *c, const char *limit_text)
{
	char code[64], message[512], want[128];

	assert_int_equal(try_open(c, NULL, code, message, sizeof message), 0);
	assert_string_equal(code, "limit");
	snprintf(want, sizeof want, "over [streams] max_total_bytes = %s", limit_text);
	if (strstr(message, "stream.open: this stream's ") != message ||
	    strstr(message, "would bring the streams' total to ") == NULL ||
	    strstr(message, want) == NULL)
		fail_msg("unexpected message: %s", message);
}

static void test_budget_refuses_and_returns(void **state)
{
	struct fixture *fx = *state;
	int64_t ids[16], region = 0, streams, budget, last;
	int n = 0, fit;

	ids[n++] = must_open(&fx->a, &region);
	assert_true(region > 0 && region <= BUDGET);
	fit = (int)(BUDGET / region);
	assert_true(fit >= 2 && fit < 16);
	while (n < fit)
		ids[n++] = must_open(&fx->a, NULL);
	memory(&fx->a, &streams, &budget);
	assert_int_equal(streams, fit * region);
	assert_int_equal(budget, BUDGET);

	/* Full: refused for this connection and for any other. */
	expect_refused(&fx->a, "1 MiB");
	expect_refused(&fx->b, "1 MiB");
	memory(&fx->a, &streams, &budget);
	assert_int_equal(streams, fit * region);

	/* Closing one gives its share back: the next open succeeds. */
	must_close(&fx->a, ids[--n]);
	memory(&fx->a, &streams, &budget);
	assert_int_equal(streams, (fit - 1) * region);
	last = must_open(&fx->b, NULL);
	assert_true(last > 0);
	expect_refused(&fx->a, "1 MiB");

	/* b dies with its stream: its share comes back. */
	rpc_client_close(&fx->b);
	fx->b.fd = -1;
	for (int tries = 0;; tries++) {
		memory(&fx->a, &streams, &budget);
		if (streams == (fit - 1) * region)
			break;
		assert_true(tries < 500);
		usleep(10000);
	}
	ids[n++] = must_open(&fx->a, NULL);
	expect_refused(&fx->a, "1 MiB");
	assert_true(daemon_proc_log_contains(&fx->d,
					     "stream memory budget: [streams] max_total_bytes = 1 MiB"));
}

/* A SIGHUP applies a new budget to the streams opened next; a lower one
 * closes nothing. */
static void test_budget_reloads(void **state)
{
	struct fixture *fx = *state;
	int64_t region = 0, streams, budget;
	char text[4096], *at;
	FILE *f;
	size_t len;
	int n = 1;

	must_open(&fx->a, &region);
	while ((n + 1) * region <= BUDGET) {
		must_open(&fx->a, NULL);
		n++;
	}
	expect_refused(&fx->a, "1 MiB");

	f = fopen(fx->d.config, "r");
	assert_non_null(f);
	len = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[len] = '\0';
	at = strstr(text, "max_total_bytes = 1M");
	assert_non_null(at);
	at[sizeof "max_total_bytes = " - 1] = '3';
	f = fopen(fx->d.config, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	daemon_proc_drain_notify(&fx->d);
	assert_int_equal(kill(fx->d.pid, SIGHUP), 0);
	assert_int_equal(daemon_proc_wait_notify(&fx->d, "READY=1", TIMEOUT_MS), 0);

	memory(&fx->a, &streams, &budget);
	assert_int_equal(budget, 3 * BUDGET);
	assert_int_equal(streams, n * region);
	while ((n + 1) * region <= 3 * BUDGET) {
		must_open(&fx->a, NULL);
		n++;
	}
	expect_refused(&fx->a, "3 MiB");
	assert_true(daemon_proc_log_contains(&fx->d, "streams.max_total_bytes: 1MiB -> 3MiB"));
}

/* Without the key: a quarter of the smaller of physical memory and the
 * cgroup's limit, as the daemon found them. */
static void test_budget_auto(void **state)
{
	struct daemon_proc d;
	struct rpc_client c;
	struct memlimit mem;
	int64_t streams, budget;
	char why[128];

	(void)state;
	assert_int_equal(daemon_proc_init(&d), 0);
	assert_int_equal(daemon_proc_start(&d, NULL, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_connect(&c, d.socket, TIMEOUT_MS), 0);
	memory(&c, &streams, &budget);
	memlimit_probe(&mem);
	assert_int_equal(streams, 0);
	assert_int_equal((uint64_t)budget, memlimit_quarter(&mem, why, sizeof why));
	assert_true(daemon_proc_log_contains(&d, "[streams] max_total_bytes = auto: "));
	assert_true(daemon_proc_log_contains(&d, why));
	rpc_client_close(&c);
	assert_int_equal(daemon_proc_stop(&d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_budget_refuses_and_returns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget_reloads, setup, teardown),
		cmocka_unit_test(test_budget_auto),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
