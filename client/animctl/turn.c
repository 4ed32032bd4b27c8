/*
 * turn.c - one turn of the wait in commands that keep running (play,
 * events): for the client's socket and timers, a terminating signal, and
 * optionally another descriptor (stdin); the client is processed after.
 */
#include "client/animctl/animctl.h"

#include <errno.h>
#include <poll.h>

int ctl_turn(struct ctl *ctl, int extra_fd, bool *extra_ready, bool *stop)
{
	struct pollfd fds[3];
	int nfds = 0, rc, at = -1, fd = animc_client_fd(ctl->c);

	*stop = false;
	if (extra_ready != NULL)
		*extra_ready = false;
	fds[nfds++] = (struct pollfd){ .fd = term_signals(), .events = POLLIN };
	if (extra_fd >= 0)
		fds[at = nfds++] = (struct pollfd){ .fd = extra_fd, .events = POLLIN };
	if (fd >= 0)
		fds[nfds++] = (struct pollfd){ .fd = fd, .events = (short)animc_client_poll_events(ctl->c) };
	rc = poll(fds, (nfds_t)nfds, animc_client_next_timeout(ctl->c));
	if (rc < 0 && errno != EINTR)
		return EXIT_FAILURE_OTHER;
	if (rc > 0 && fds[0].revents) {
		term_signal_taken();
		*stop = true;
		return 0;
	}
	rc = animc_client_process(ctl->c);
	if (rc == -ECONNRESET || rc == -ENOTCONN)
		return ctl_fail(ctl, NULL, rc);
	if (at >= 0 && extra_ready != NULL)
		*extra_ready = (fds[at].revents & (POLLIN | POLLHUP)) != 0;
	return 0;
}

int ctl_turn_until(struct ctl *ctl, const bool *done)
{
	while (!*done) {
		bool stop;
		int rc = ctl_turn(ctl, -1, NULL, &stop);

		if (rc != 0)
			return rc;
		if (stop)
			break;
	}
	return EXIT_OK;
}
