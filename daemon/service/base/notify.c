/*
 * notify.c - telling systemd how the daemon is doing, through libsystemd
 * (systemd_lib.h); see notify.h.
 */
#include "daemon/service/base/notify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <time.h>

#include "daemon/service/base/log.h"
#include "daemon/service/base/systemd_lib.h"

#define NOTIFY_STATUS_MAX 256
/* The longest message sent (a status, escaped, and its assignment). */
#define NOTIFY_MESSAGE_MAX 1024

/*
 * Send `msg` through libsystemd's sd_notify: > 0 when sent, 0 when
 * NOTIFY_SOCKET is unset (then libsystemd is not even loaded), a negative
 * errno otherwise.  A libsystemd that cannot be loaded is said once.
 */
static int notify_send(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	const struct systemd_lib *sd;
	const char *err = NULL;
	static atomic_bool said;

	if (path == NULL || path[0] == '\0')
		return 0;
	sd = systemd_lib(&err);
	if (sd == NULL) {
		if (!atomic_exchange(&said, true))
			log_warning("cannot tell systemd how animd is doing: %s", err);
		return -ENOSYS;
	}
	return sd->notify(0, msg);
}

static int notify_sendf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int notify_sendf(const char *fmt, ...)
{
	char msg[NOTIFY_MESSAGE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof msg)
		return -EINVAL;
	return notify_send(msg);
}

int notify_ready(void)
{
	return notify_send("READY=1");
}

int notify_reloading(void)
{
	struct timespec ts;
	uint64_t usec;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return notify_send("RELOADING=1");
	usec = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
	return notify_sendf("RELOADING=1\nMONOTONIC_USEC=%" PRIu64, usec);
}

int notify_stopping(void)
{
	return notify_send("STOPPING=1");
}

int notify_status(const char *fmt, ...)
{
	char raw[NOTIFY_STATUS_MAX];
	char text[NOTIFY_STATUS_MAX + 4];
	size_t len;
	bool cut;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	len = (size_t)n < sizeof raw ? (size_t)n : sizeof raw - 1;
	/* The escaping removes every newline: sd_notify's message is a list of
	 * newline-separated assignments. */
	len = log_escape(text, NOTIFY_STATUS_MAX, raw, len, &cut);
	if (cut || (size_t)n >= sizeof raw)
		memcpy(text + len, "...", 4);
	return notify_sendf("STATUS=%s", text);
}

uint64_t notify_watchdog_interval_usec(void)
{
	const struct systemd_lib *sd;
	uint64_t usec = 0;

	/* sd_watchdog_enabled also checks WATCHDOG_PID: a child that inherited
	 * the variables is not the process the watchdog is for. */
	if (getenv("WATCHDOG_USEC") == NULL || (sd = systemd_lib(NULL)) == NULL)
		return 0;
	return sd->watchdog_enabled(0, &usec) > 0 ? usec : 0;
}

int notify_watchdog_ping(void)
{
	return notify_send("WATCHDOG=1");
}
