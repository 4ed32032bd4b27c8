/*
 * notify.h - telling systemd how the daemon is doing (sd_notify).
 *
 * Through libsystemd's sd_notify(3), loaded only when systemd gave the
 * process a NOTIFY_SOCKET (systemd_lib.h says why it is not linked).  Every
 * function is harmless when the daemon does not run under systemd: with
 * NOTIFY_SOCKET unset they do nothing and return 0.  NOTIFY_SOCKET is left in the environment, so later
 * notifications keep working.  Call them from the loop thread.
 *
 * Return values follow sd_notify(3): > 0 when the message was sent, 0 when
 * there is no one to tell, a negative errno when sending failed (worth a
 * warning in the log, never a reason to stop).
 *
 * The life cycle the daemon follows (Type=notify or Type=notify-reload):
 *     start-up done          notify_ready(), notify_status("serving ...")
 *     SIGHUP                 notify_reloading(), reload, notify_ready()
 *     SIGTERM / SIGINT       notify_stopping(), then shut down
 *     WatchdogSec= set       every notify_watchdog_interval_usec() / 2,
 *                            from a loop timer: notify_watchdog_ping()
 */
#ifndef ANIMD_NOTIFY_H
#define ANIMD_NOTIFY_H

#include <stdint.h>

/* READY=1: the socket is listening and requests will be served. */
int notify_ready(void);

/* RELOADING=1 with MONOTONIC_USEC=<now>, which systemd 253 and later require
 * for Type=notify-reload and older versions ignore.  Send notify_ready()
 * when the reload is over, whether it succeeded or not. */
int notify_reloading(void);

/* STOPPING=1: shutdown has begun. */
int notify_stopping(void);

/* STATUS=<text> for `systemctl status`.  The text is cut to about 256
 * bytes and escaped like a log message, so a newline from a file name
 * cannot inject another assignment (READY=1, MAINPID=...). */
int notify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The watchdog interval systemd expects pings within (WatchdogSec=), in
 * microseconds; 0 when the watchdog is not enabled for this process. */
uint64_t notify_watchdog_interval_usec(void);

/* WATCHDOG=1.  Ping from a timer on the loop thread, so that a loop that is
 * stuck stops pinging and systemd restarts it. */
int notify_watchdog_ping(void);

#endif
