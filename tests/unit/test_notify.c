/*
 * sd_notify's and sd_listen_fds's protocols as notify.c and activation.c
 * speak them: each message arrives whole on a datagram socket named by
 * NOTIFY_SOCKET (a path, and an abstract "@name"), status text cannot add
 * an assignment, nothing is sent (and 0 returned) without the variable;
 * the watchdog interval only for the process WATCHDOG_PID names; passed
 * descriptors only for the process LISTEN_PID names, made close-on-exec,
 * and a listening Unix stream socket told from other descriptors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/service/base/activation.h"
#include "daemon/service/base/notify.h"

/* A datagram socket bound to `name` (a path, or "@..." abstract). */
static int bind_dgram(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memcpy(sa.sun_path, name, len);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	assert_int_equal(bind(fd, (struct sockaddr *)&sa,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)), 0);
	return fd;
}

/* The next datagram, as a string ("" when none is waiting). */
static const char *recv_msg(int fd)
{
	static char buf[2048];
	ssize_t n = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void check_messages(int fd)
{
	assert_int_equal(notify_ready(), 1);
	assert_string_equal(recv_msg(fd), "READY=1");
	assert_int_equal(notify_stopping(), 1);
	assert_string_equal(recv_msg(fd), "STOPPING=1");
	assert_int_equal(notify_watchdog_ping(), 1);
	assert_string_equal(recv_msg(fd), "WATCHDOG=1");
	assert_int_equal(notify_reloading(), 1);
	assert_non_null(strstr(recv_msg(fd), "RELOADING=1\nMONOTONIC_USEC="));
	assert_int_equal(notify_status("serving %d assets\nREADY=1", 3), 1);
	{
		const char *m = recv_msg(fd);

		assert_true(strncmp(m, "STATUS=serving 3 assets", 23) == 0);
		assert_null(strchr(m, '\n'));
	}
}

static void test_path_socket(void **state)
{
	char dir[] = "/tmp/animd-notify-XXXXXX", path[64];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/notify", dir);
	fd = bind_dgram(path);
	setenv("NOTIFY_SOCKET", path, 1);
	check_messages(fd);
	unsetenv("NOTIFY_SOCKET");
	close(fd);
	unlink(path);
	rmdir(dir);
}

static void test_abstract_socket(void **state)
{
	char name[64];
	int fd;

	(void)state;
	snprintf(name, sizeof name, "@animd-test-notify-%ld", (long)getpid());
	fd = bind_dgram(name);
	setenv("NOTIFY_SOCKET", name, 1);
	check_messages(fd);
	unsetenv("NOTIFY_SOCKET");
	close(fd);
}

static void test_no_socket(void **state)
{
	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(notify_ready(), 0);
	setenv("NOTIFY_SOCKET", "vsock:2:1", 1);
	assert_true(notify_ready() < 0);
	setenv("NOTIFY_SOCKET", "/nonexistent/animd/notify", 1);
	assert_true(notify_ready() < 0);
	unsetenv("NOTIFY_SOCKET");
}

static void test_watchdog(void **state)
{
	char pid[32];

	(void)state;
	unsetenv("WATCHDOG_PID");
	unsetenv("WATCHDOG_USEC");
	assert_int_equal(notify_watchdog_interval_usec(), 0);
	setenv("WATCHDOG_USEC", "3000000", 1);
	assert_int_equal(notify_watchdog_interval_usec(), 3000000);
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(notify_watchdog_interval_usec(), 3000000);
	snprintf(pid, sizeof pid, "%ld", (long)getpid() + 1);
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(notify_watchdog_interval_usec(), 0);
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "3s", 1);
	assert_int_equal(notify_watchdog_interval_usec(), 0);
	unsetenv("WATCHDOG_USEC");
}

static void test_listen_fds(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char pid[32], dir[] = "/tmp/animd-listen-XXXXXX";
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0), dfd = socket(AF_UNIX, SOCK_DGRAM, 0);
	int saved = dup(ACTIVATION_FDS_START);

	(void)state;
	assert_true(lfd >= 0 && dfd >= 0);
	assert_non_null(mkdtemp(dir));
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s/s", dir);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(listen(lfd, 4), 0);
	/* The listening socket where systemd puts the first one. */
	assert_int_equal(dup2(lfd, ACTIVATION_FDS_START), ACTIVATION_FDS_START);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	assert_int_equal(activation_listen_fds(), 0);
	snprintf(pid, sizeof pid, "%ld", (long)getpid() + 1);
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "1", 1);
	assert_int_equal(activation_listen_fds(), 0);
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	setenv("LISTEN_PID", pid, 1);
	assert_int_equal(fcntl(ACTIVATION_FDS_START, F_SETFD, 0), 0);
	assert_int_equal(activation_listen_fds(), 1);
	assert_true(fcntl(ACTIVATION_FDS_START, F_GETFD) & FD_CLOEXEC);
	setenv("LISTEN_FDS", "one", 1);
	assert_true(activation_listen_fds() < 0);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	assert_true(activation_is_unix_listener(ACTIVATION_FDS_START));
	assert_false(activation_is_unix_listener(dfd));
	{
		int sfd = socket(AF_UNIX, SOCK_STREAM, 0);

		/* A stream socket that does not listen. */
		assert_false(activation_is_unix_listener(sfd));
		close(sfd);
	}
	if (saved >= 0) {
		dup2(saved, ACTIVATION_FDS_START);
		close(saved);
	} else {
		close(ACTIVATION_FDS_START);
	}
	close(lfd);
	close(dfd);
	unlink(sa.sun_path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_socket),
		cmocka_unit_test(test_abstract_socket),
		cmocka_unit_test(test_no_socket),
		cmocka_unit_test(test_watchdog),
		cmocka_unit_test(test_listen_fds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
