/*
 * What the reliability round's hostile tests found in the service, each
 * against the real daemon and named after the defect it keeps fixed:
 *
 *   R3   a clean stop removes its socket path only while it is still the
 *        socket the daemon made, never a file or another daemon's socket
 *        put there since;
 *   R6   a request sent while the daemon was stopped (SIGSTOP, a stall of
 *        its loop) is answered when it runs again, not taken for idleness;
 *   R7a  signals come through a signalfd: a SIGHUP storm is a few wake-ups
 *        and a few reloads, while clients keep being answered.
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
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 10000

static void dump_log(const struct daemon_proc *d)
{
	char line[512];
	FILE *f = fopen(d->log, "r");

	if (f == NULL)
		return;
	fprintf(stderr, "daemon log (%s):\n", d->log);
	while (fgets(line, sizeof line, f) != NULL)
		fprintf(stderr, "  %s", line);
	fclose(f);
}

static void start(struct daemon_proc *d, const char *extra_ini)
{
	assert_int_equal(daemon_proc_init(d), 0);
	if (daemon_proc_start(d, extra_ini, TIMEOUT_MS) != 0) {
		dump_log(d);
		fail_msg("the daemon did not start");
	}
}

/* SIGTERM: a clean exit, whatever the test left behind. */
static void stop(struct daemon_proc *d)
{
	int status = daemon_proc_stop(d, SIGTERM, TIMEOUT_MS);

	if (status != 0)
		dump_log(d);
	assert_int_equal(status, 0);
	assert_true(daemon_proc_log_contains(d, "stopped"));
}

static void expect_ok(const struct rpc_reply *r)
{
	if (r->error != NULL)
		fail_msg("unexpected error %s: %s", r->code, r->message);
}

static void expect_hello(const char *socket)
{
	struct rpc_client c;
	struct rpc_reply r;

	assert_int_equal(rpc_client_connect(&c, socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&c, &r, "hello", NULL), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	rpc_client_close(&c);
}

/* ---- R3: a stop removes its own socket, nothing else ------------------ */

/* The daemon's own socket, still in place: removed. */
static void test_r3_stop_removes_its_own_socket(void **state)
{
	struct daemon_proc d;
	struct stat st;

	(void)state;
	start(&d, NULL);
	assert_int_equal(lstat(d.socket, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	stop(&d);
	assert_int_equal(lstat(d.socket, &st), -1);
	assert_int_equal(errno, ENOENT);
	assert_false(daemon_proc_log_contains(&d, "left in place"));
	daemon_proc_cleanup(&d);
}

/* A regular file put at the path after start: it stays, and the log says
 * what was there. */
static void test_r3_stop_leaves_a_file_at_its_path(void **state)
{
	static const char text[] = "not animd's\n";
	struct daemon_proc d;
	char buf[64] = { 0 };
	struct stat st;
	int fd;

	(void)state;
	start(&d, NULL);
	assert_int_equal(unlink(d.socket), 0);
	fd = open(d.socket, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	stop(&d);
	assert_int_equal(lstat(d.socket, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	fd = open(d.socket, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof buf - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	assert_string_equal(buf, text);
	if (!daemon_proc_log_contains(&d, "is now a regular file, not the socket animd made: left in place")) {
		dump_log(&d);
		fail_msg("the log does not say the file was left");
	}
	daemon_proc_cleanup(&d);
}

/* A second daemon took the path after the first's socket was removed: the
 * first one's stop leaves the second's socket alone, and the second keeps
 * answering there until its own stop removes it. */
static void test_r3_stop_leaves_another_daemons_socket(void **state)
{
	struct daemon_proc a, b;
	struct stat st;

	(void)state;
	start(&a, NULL);
	assert_int_equal(unlink(a.socket), 0);
	assert_int_equal(daemon_proc_init(&b), 0);
	snprintf(b.socket, sizeof b.socket, "%s", a.socket);
	if (daemon_proc_start(&b, NULL, TIMEOUT_MS) != 0) {
		dump_log(&b);
		fail_msg("the second daemon did not start");
	}
	stop(&a);
	assert_int_equal(lstat(a.socket, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	if (!daemon_proc_log_contains(&a, "is now another socket, not the socket animd made: "
				      "left in place")) {
		dump_log(&a);
		fail_msg("the log does not say the socket was left");
	}
	expect_hello(b.socket);
	stop(&b);
	assert_int_equal(lstat(b.socket, &st), -1);
	daemon_proc_cleanup(&a);
	daemon_proc_cleanup(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_r3_stop_removes_its_own_socket),
		cmocka_unit_test(test_r3_stop_leaves_a_file_at_its_path),
		cmocka_unit_test(test_r3_stop_leaves_another_daemons_socket),
	};

	return cmocka_run_group_tests_name("reliability", tests, NULL, NULL);
}
