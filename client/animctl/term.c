/*
 * term.c - signals through a self-pipe (so the main loop's poll() sees
 * Ctrl-C and SIGTERM like any other input), and the terminal for `watch`:
 * raw keys, the alternate screen, and a restore that runs however animctl
 * leaves.
 */
#include "client/animctl/animctl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t sig_last;

static struct termios saved_tio;
static bool term_active;

static void term_on_signal(int sig)
{
	int saved = errno;
	char b = (char)sig;

	sig_last = sig;
	/* A full pipe already says "a signal came". */
	if (write(sig_pipe[1], &b, 1) < 0) {
	}
	errno = saved;
}

int term_signals(void)
{
	struct sigaction sa;

	if (sig_pipe[0] >= 0)
		return sig_pipe[0];
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = term_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return sig_pipe[0];
}

int term_signal_taken(void)
{
	char buf[64];

	if (sig_pipe[0] >= 0)
		while (read(sig_pipe[0], buf, sizeof buf) > 0)
			;
	return sig_last;
}

void term_restore(void)
{
	if (!term_active)
		return;
	term_active = false;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
	/* Show the cursor, leave the alternate screen. */
	fputs("\x1b[?25h\x1b[?1049l", stdout);
	fflush(stdout);
}

int term_enter(void)
{
	static bool registered;
	struct termios raw;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) ||
	    tcgetattr(STDIN_FILENO, &saved_tio) < 0)
		return -1;
	raw = saved_tio;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) < 0)
		return -1;
	term_active = true;
	if (!registered) {
		atexit(term_restore);
		registered = true;
	}
	fputs("\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J", stdout);
	fflush(stdout);
	return 0;
}

void term_size(int *cols, int *rows)
{
	struct winsize ws;

	*cols = 80;
	*rows = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
}
