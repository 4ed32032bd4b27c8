/*
 * turn.c - one turn of the wait in commands that keep running (play,
 * events): for the client's socket and timers, a terminating signal, and
 * optionally another descriptor (stdin); the client is processed after.
 * And the wait of a command that runs until done, or for a time.
 */
#include "client/animctl/animctl.h"

#include <errno.h>
#include <poll.h>

/* ctl_turn waiting at most cap_ms (negative: as long as the client lets it). */
static int turn_once(struct ctl *ctl, int extra_fd, bool *extra_ready, bool *stop, int cap_ms)
{
	struct pollfd fds[3];
	int nfds = 0, rc, at = -1, fd = animc_client_fd(ctl->c);
	int wait = animc_client_next_timeout(ctl->c);

	*stop = false;
	if (extra_ready != NULL)
		*extra_ready = false;
	fds[nfds++] = (struct pollfd){ .fd = term_signals(), .events = POLLIN };
	if (extra_fd >= 0)
		fds[at = nfds++] = (struct pollfd){ .fd = extra_fd, .events = POLLIN };
	if (fd >= 0)
		fds[nfds++] = (struct pollfd){ .fd = fd, .events = (short)animc_client_poll_events(ctl->c) };
	if (cap_ms >= 0 && (wait < 0 || wait > cap_ms))
		wait = cap_ms;
	rc = poll(fds, (nfds_t)nfds, wait);
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

int ctl_turn(struct ctl *ctl, int extra_fd, bool *extra_ready, bool *stop)
{
	return turn_once(ctl, extra_fd, extra_ready, stop, -1);
}

int ctl_turn_until(struct ctl *ctl, const bool *done)
{
	return ctl_turn_until_for(ctl, done, -1);
}

int ctl_turn_until_for(struct ctl *ctl, const bool *done, double seconds)
{
	double end = watch_now() + seconds;

	while (!*done) {
		double left = end - watch_now();
		bool stop;
		int rc;

		if (seconds >= 0 && left <= 0)
			break;
		rc = turn_once(ctl, -1, NULL, &stop,
			       seconds < 0 ? -1 : left > 3600 ? 3600000 : (int)(left * 1000) + 1);
		if (rc != 0)
			return rc;
		if (stop)
			break;
	}
	return EXIT_OK;
}
