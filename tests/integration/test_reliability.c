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
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* ---- R6: a request that straddles a stop of the daemon ---------------- */

/* SIGSTOP, and wait until the daemon (our child) is stopped. */
static void freeze(const struct daemon_proc *d)
{
	int status;

	assert_int_equal(kill(d->pid, SIGSTOP), 0);
	assert_int_equal(waitpid(d->pid, &status, WUNTRACED), d->pid);
	assert_true(WIFSTOPPED(status));
}

/* Long past every deadline of the configurations below (2 s at most; the
 * sweep runs at least once a second), then SIGCONT. */
static void thaw_late(const struct daemon_proc *d)
{
	usleep(3000 * 1000);
	assert_int_equal(kill(d->pid, SIGCONT), 0);
}

/* [0, 7, "status", []], written by hand so that it can be sent in two
 * parts. */
static const unsigned char status_7[] = { 0x94, 0x00, 0x07, 0xa6, 's', 't', 'a', 't', 'u', 's',
					  0x90 };

static void expect_status_7(struct daemon_proc *d, struct rpc_client *c)
{
	struct rpc_reply r;
	int rc = rpc_client_wait(c, 7, &r);

	if (rc != 0) {
		dump_log(d);
		fail_msg("no reply to the request sent while the daemon was stopped: %s",
			 strerror(-rc));
	}
	expect_ok(&r);
	rpc_reply_free(&r);
}

/* Wait until the daemon has read and served everything sent on c.  For a
 * Unix socket SIOCOUTQ is what the peer has not taken yet; once it is 0,
 * the read callback that took the last bytes has run or is running, and a
 * request on another connection sent now is served after it ends (one
 * loop thread). */
static void wait_served(struct daemon_proc *d, const struct rpc_client *c)
{
	int queued = -1;

	for (int i = 0; i < TIMEOUT_MS / 5 && queued != 0; i++) {
		assert_int_equal(ioctl(c->fd, SIOCOUTQ, &queued), 0);
		if (queued != 0)
			usleep(5000);
	}
	if (queued != 0) {
		dump_log(d);
		fail_msg("the daemon did not read what was sent (%d bytes left)", queued);
	}
	expect_hello(d->socket);
}

/* An idle connection (2 s) sends its request while the daemon is stopped;
 * the daemon runs again long after the deadline: the request is answered,
 * and the connection is not taken for idle. */
static void test_r6_request_sent_while_stopped_is_answered(void **state)
{
	struct daemon_proc d;
	struct rpc_client c;
	struct rpc_reply r;

	(void)state;
	start(&d, "[limits]\nidle_timeout_s = 2\n");
	assert_int_equal(rpc_client_connect(&c, d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&c, &r, "hello", NULL), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	freeze(&d);
	assert_int_equal(rpc_client_send_raw(&c, status_7, sizeof status_7), 0);
	thaw_late(&d);
	expect_status_7(&d, &c);
	assert_false(daemon_proc_log_contains(&d, "idle_timeout_s"));
	rpc_client_close(&c);
	stop(&d);
	daemon_proc_cleanup(&d);
}

/* A request begun before the stop and finished during it: complete when
 * the daemon runs again, so not past limits.request_timeout_ms. */
static void test_r6_request_finished_while_stopped_is_answered(void **state)
{
	struct daemon_proc d;
	struct rpc_client c;

	(void)state;
	start(&d, "[limits]\nrequest_timeout_ms = 1000\n");
	assert_int_equal(rpc_client_connect(&c, d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_send_raw(&c, status_7, 5), 0);
	wait_served(&d, &c);
	freeze(&d);
	assert_int_equal(rpc_client_send_raw(&c, status_7 + 5, sizeof status_7 - 5), 0);
	thaw_late(&d);
	expect_status_7(&d, &c);
	assert_false(daemon_proc_log_contains(&d, "request_timeout_ms"));
	rpc_client_close(&c);
	stop(&d);
	daemon_proc_cleanup(&d);
}

/* Replies queued beyond what the socket holds; the client reads all it can
 * while the daemon is stopped: when the daemon runs again the socket has
 * room, and the rest is sent rather than the client taken for one that
 * does not read its replies. */
static void test_r6_replies_read_while_stopped_are_not_a_stall(void **state)
{
	enum { N = 2000 };
	struct daemon_proc d;
	struct rpc_client c;
	struct rpc_reply r;
	int64_t first = 0;
	int avail = 0;
	unsigned got = 0;
	int rc;

	(void)state;
	start(&d, "[limits]\nidle_timeout_s = 2\n");
	assert_int_equal(rpc_client_connect(&c, d.socket, TIMEOUT_MS), 0);
	/* status replies, some 370 bytes each: far more than the socket's
	 * buffer (208 KiB by default), less than the high mark (1 MiB: reading
	 * never pauses, every request is read and answered at once). */
	rpc_client_cork(&c);
	for (int i = 0; i < N; i++) {
		int64_t id = rpc_client_send(&c, "status", NULL);

		assert_true(id > 0);
		if (i == 0)
			first = id;
	}
	assert_int_equal(rpc_client_uncork(&c), 0);
	wait_served(&d, &c);
	freeze(&d);
	assert_int_equal(ioctl(c.fd, FIONREAD, &avail), 0);
	assert_true(avail > 0);
	while ((rc = rpc_client_read_nowait(&c)) == 0)
		;
	assert_int_equal(rc, -EAGAIN);
	thaw_late(&d);
	while (got < N) {
		rc = rpc_client_wait_any(&c, &r);
		if (rc != 0) {
			dump_log(&d);
			fail_msg("%u of %d replies, then %s", got, N, strerror(-rc));
		}
		expect_ok(&r);
		assert_int_equal(r.msgid, (uint32_t)(first + got));
		got++;
		rpc_reply_free(&r);
	}
	printf("  %d bytes read while the daemon was stopped, %d replies in all\n", avail, N);
	assert_false(daemon_proc_log_contains(&d, "not reading its replies"));
	rpc_client_close(&c);
	stop(&d);
	daemon_proc_cleanup(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_r3_stop_removes_its_own_socket),
		cmocka_unit_test(test_r3_stop_leaves_a_file_at_its_path),
		cmocka_unit_test(test_r3_stop_leaves_another_daemons_socket),
		cmocka_unit_test(test_r6_request_sent_while_stopped_is_answered),
		cmocka_unit_test(test_r6_request_finished_while_stopped_is_answered),
		cmocka_unit_test(test_r6_replies_read_while_stopped_are_not_a_stall),
	};

	return cmocka_run_group_tests_name("reliability", tests, NULL, NULL);
}
