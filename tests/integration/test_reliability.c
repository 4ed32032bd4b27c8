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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/animd_shm.h"
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

/* ---- R7a: signals through a signalfd ------------------------------------ */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* The hexadecimal signal set on the line of a /proc status or fdinfo file
 * that starts with `key` ("SigBlk:", "sigmask:"); 0 and a failure when
 * there is none. */
static uint64_t proc_sigset(const char *path, const char *key)
{
	char line[256];
	uint64_t set = 0;
	int found = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	while (!found && fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, key, strlen(key)) == 0)
			found = sscanf(line + strlen(key), "%" SCNx64, &set) == 1;
	fclose(f);
	if (!found)
		fail_msg("%s has no %s line", path, key);
	return set;
}

#define SIGBIT(sig) (UINT64_C(1) << ((sig) - 1))
#define TAKEN_SIGNALS (SIGBIT(SIGHUP) | SIGBIT(SIGINT) | SIGBIT(SIGTERM))

/*
 * What makes a storm cheap: no handler runs per signal (none is installed
 * for SIGHUP, SIGINT, SIGTERM), every thread blocks them, and a signalfd
 * holds them (the kernel keeps one pending SIGHUP however many are sent,
 * and the loop reads it when it polls).
 */
static void test_r7a_signals_are_taken_through_a_signalfd(void **state)
{
	struct daemon_proc d;
	char path[512], link[256];
	struct dirent *e;
	unsigned threads = 0, signalfds = 0;
	DIR *dir;

	(void)state;
	start(&d, NULL);
	snprintf(path, sizeof path, "/proc/%d/status", (int)d.pid);
	if ((proc_sigset(path, "SigCgt:") & TAKEN_SIGNALS) != 0)
		fail_msg("a handler is installed for SIGHUP, SIGINT or SIGTERM (SigCgt %" PRIx64 ")",
			 proc_sigset(path, "SigCgt:"));
	snprintf(path, sizeof path, "/proc/%d/task", (int)d.pid);
	dir = opendir(path);
	assert_non_null(dir);
	while ((e = readdir(dir)) != NULL) {
		char status[512];

		if (e->d_name[0] == '.')
			continue;
		snprintf(status, sizeof status, "/proc/%d/task/%s/status", (int)d.pid, e->d_name);
		if ((proc_sigset(status, "SigBlk:") & TAKEN_SIGNALS) != TAKEN_SIGNALS)
			fail_msg("thread %s does not block SIGHUP, SIGINT and SIGTERM", e->d_name);
		threads++;
	}
	closedir(dir);
	snprintf(path, sizeof path, "/proc/%d/fd", (int)d.pid);
	dir = opendir(path);
	assert_non_null(dir);
	while ((e = readdir(dir)) != NULL) {
		char fd[512], info[512];
		ssize_t n;

		snprintf(fd, sizeof fd, "/proc/%d/fd/%s", (int)d.pid, e->d_name);
		n = readlink(fd, link, sizeof link - 1);
		if (e->d_name[0] == '.' || n < 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, "anon_inode:[signalfd]") != 0)
			continue;
		snprintf(info, sizeof info, "/proc/%d/fdinfo/%s", (int)d.pid, e->d_name);
		assert_int_equal(proc_sigset(info, "sigmask:") & TAKEN_SIGNALS, TAKEN_SIGNALS);
		signalfds++;
	}
	closedir(dir);
	printf("  %u threads block them, %u signalfd\n", threads, signalfds);
	assert_true(threads >= 2);      /* the loop and libuv's pool at least */
	assert_int_equal(signalfds, 1);
	/* And they still do what they did. */
	assert_int_equal(kill(d.pid, SIGHUP), 0);
	assert_int_equal(daemon_proc_wait_notify(&d, "RELOADING=1", TIMEOUT_MS), 0);
	assert_int_equal(daemon_proc_wait_notify(&d, "READY=1", TIMEOUT_MS), 0);
	stop(&d);
	daemon_proc_cleanup(&d);
}

static void status_counts(struct rpc_client *c, int64_t *hups, int64_t *reloads)
{
	struct rpc_reply r;

	assert_int_equal(rpc_client_call(c, &r, "status", NULL), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "sighups", hups), 0);
	assert_int_equal(rpc_get_i64(r.result, "config_reloads", reloads), 0);
	rpc_reply_free(&r);
}

/* A child that sends SIGHUP to pid as fast as it can for about a second,
 * then writes how many it sent to fd. */
static pid_t storm(pid_t pid, int fd)
{
	pid_t child = fork();
	long end;
	uint64_t sent = 0;

	assert_true(child >= 0);
	if (child > 0)
		return child;
	end = now_ms() + 1000;
	for (;;) {
		if (kill(pid, SIGHUP) == 0)
			sent++;
		if ((sent & 1023) == 0 && now_ms() >= end)
			break;
	}
	_exit(write(fd, &sent, sizeof sent) == sizeof sent ? 0 : 1);
}

/*
 * A storm of SIGHUPs while a client streams at 60 Hz and makes requests:
 * every request is answered, the stream goes on, and the reloads coalesce
 * (one runs, one more waits; never a queue of them).  Counts only: how long
 * the stream stalled is printed, never asserted.
 */
static void test_r7a_sighup_storm_while_streaming(void **state)
{
	struct daemon_proc d;
	struct rpc_client c;
	struct rpc_reply r;
	const struct animd_shm_header *h;
	const struct animd_shm_channel *ch;
	uint64_t sent = 0, before, last;
	int64_t stream, v, hups, reloads, hups_after, reloads_after, h2, r2;
	long last_change, worst_gap = 0;
	unsigned answered = 0;
	size_t bytes;
	int pipefd[2], fd, status, stable = 0;
	char cmd[1024];
	const char *build = getenv("BUILD");
	pid_t child;

	(void)state;
	assert_int_equal(daemon_proc_init(&d), 0);
	snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s", build ? build : "build", d.assets);
	assert_int_equal(system(cmd), 0);
	if (daemon_proc_start(&d, NULL, TIMEOUT_MS) != 0) {
		dump_log(&d);
		fail_msg("the daemon did not start");
	}
	assert_int_equal(rpc_client_connect(&c, d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&c, &r, "stream.open", "space:s rate:u", "model",
					 (uint64_t)60), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "stream", &stream), 0);
	assert_int_equal(rpc_get_i64(r.result, "region_bytes", &v), 0);
	bytes = (size_t)v;
	rpc_reply_free(&r);
	fd = rpc_client_take_fd(&c);
	assert_true(fd >= 0);
	h = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(h != MAP_FAILED);
	assert_int_equal(rpc_client_call(&c, &r, "play", "asset:s mesh:s stream:u",
					 "walker.md5anim", "walker.md5mesh", (uint64_t)stream), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	ch = animd_shm_channel((void *)h, h, 0);

	assert_int_equal(pipe(pipefd), 0);
	before = last = animd_shm_published(ch);
	last_change = now_ms();
	child = storm(d.pid, pipefd[1]);
	/* Requests all through the storm; the notify socket drained as
	 * systemd would (RELOADING=1, READY=1 per reload). */
	while (waitpid(child, &status, WNOHANG) == 0) {
		uint64_t p;

		assert_int_equal(rpc_client_call(&c, &r, "hello", NULL), 0);
		expect_ok(&r);
		rpc_reply_free(&r);
		answered++;
		daemon_proc_drain_notify(&d);
		p = animd_shm_published(ch);
		if (p != last) {
			if (now_ms() - last_change > worst_gap)
				worst_gap = now_ms() - last_change;
			last = p;
			last_change = now_ms();
		}
	}
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(read(pipefd[0], &sent, sizeof sent), (ssize_t)sizeof sent);
	close(pipefd[0]);
	close(pipefd[1]);
	/* The storm is over: at most one SIGHUP is still pending, and at most
	 * one reload runs and one more waits. */
	status_counts(&c, &hups, &reloads);
	hups_after = hups;
	reloads_after = reloads;
	for (int i = 0; i < 100 && stable < 5; i++) {
		usleep(100000);
		daemon_proc_drain_notify(&d);
		status_counts(&c, &h2, &r2);
		stable = h2 == hups_after && r2 == reloads_after ? stable + 1 : 0;
		hups_after = h2;
		reloads_after = r2;
	}
	printf("  %" PRIu64 " SIGHUPs sent, %" PRId64 " taken, %" PRId64 " reloads; %u requests "
	       "answered during the storm, %" PRIu64 " poses published, the longest wait for one "
	       "%ld ms\n", sent, hups_after, reloads_after, answered,
	       animd_shm_published(ch) - before, worst_gap);
	assert_true(sent > 0);
	assert_true(answered > 0);
	assert_true(last > before);
	assert_true(hups_after >= 1 && (uint64_t)hups_after <= sent);
	assert_true(hups_after <= hups + 1);
	assert_true(reloads_after >= 1 && reloads_after <= hups_after);
	assert_true(reloads_after <= reloads + 2);
	munmap((void *)h, bytes);
	close(fd);
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
		cmocka_unit_test(test_r7a_signals_are_taken_through_a_signalfd),
		cmocka_unit_test(test_r7a_sighup_storm_while_streaming),
	};

	return cmocka_run_group_tests_name("reliability", tests, NULL, NULL);
}
