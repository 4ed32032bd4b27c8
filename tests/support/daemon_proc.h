/*
 * daemon_proc.h - run the real animd for an integration test: a private
 * temporary directory with its own asset root, socket, config and log,
 * readiness learnt the way systemd learns it (a NOTIFY_SOCKET of our own
 * that receives READY=1), and a stop that reports how the daemon exited.
 */
#ifndef ANIMD_TEST_DAEMON_PROC_H
#define ANIMD_TEST_DAEMON_PROC_H

#include <sys/types.h>

struct daemon_proc {
	pid_t pid;
	int notify_fd;
	char dir[256];
	char assets[320];
	char socket[320];
	char config[320];
	char log[320];
	char notify[320];
	char status[256];       /* the last STATUS= the daemon sent */
};

/* Make the directory tree (assets/ empty).  0 or -errno. */
int daemon_proc_init(struct daemon_proc *d);
/* Write a file under assets/ (directories created).  0 or -errno. */
int daemon_proc_write_asset(const struct daemon_proc *d, const char *name, const char *text);
/* Change an asset's bytes without changing its meaning (a newline at the
 * end of a text format): assets.reload then makes a new generation.  0 or
 * -errno. */
int daemon_proc_touch_asset(const struct daemon_proc *d, const char *name);
/* Start `$ANIMD serve -c CONFIG --log-format=journal` with CONFIG holding
 * asset root, socket and `extra_ini` (may be NULL); waits up to timeout_ms
 * for READY=1 (the tree is indexed) and then for the start-up loads to end
 * (STATUS=serving ...), so that a test sees every asset loaded and every
 * start-up event sent.
 * 0, or -errno (the log says why).  The daemon gets SIGTERM if the thread
 * that started it dies, so a test killed outright leaves none behind. */
int daemon_proc_start(struct daemon_proc *d, const char *extra_ini, int timeout_ms);
/* The same, returning at READY=1: the start-up loads go on. */
int daemon_proc_start_indexed(struct daemon_proc *d, const char *extra_ini, int timeout_ms);
/* The same, returning at once: a client may connect at the first moment
 * the socket accepts.  With activator ("systemd-socket-activate"), that
 * program binds the socket and execs animd on the first connection, in
 * the process d->pid names, as animd.socket does.  0 or -errno. */
int daemon_proc_spawn(struct daemon_proc *d, const char *extra_ini, const char *activator);
/* Wait for a notify message starting with `prefix` (e.g. "RELOADING=1"). */
int daemon_proc_wait_notify(struct daemon_proc *d, const char *prefix, int timeout_ms);
/* Read every notify message waiting, without blocking.  The daemon's
 * sd_notify blocks once ten datagrams are unread (net.unix.max_dgram_qlen),
 * as under a systemd that never reads: a test that makes many come (SIGHUP
 * storms) drains them as it goes. */
void daemon_proc_drain_notify(struct daemon_proc *d);
/* Send `sig` and wait up to timeout_ms; returns the exit status (0..255),
 * 128 + signal if killed by one, or -ETIMEDOUT (then it is SIGKILLed). */
int daemon_proc_stop(struct daemon_proc *d, int sig, int timeout_ms);
/* Remove the directory tree. */
void daemon_proc_cleanup(struct daemon_proc *d);
/* 1 if the daemon's log contains `needle`. */
int daemon_proc_log_contains(const struct daemon_proc *d, const char *needle);

#endif
