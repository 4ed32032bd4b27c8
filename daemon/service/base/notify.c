/*
 * notify.c - sd_notify wrappers; see notify.h.
 */
#include "daemon/service/base/notify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include "daemon/service/base/log.h"

#define NOTIFY_STATUS_MAX 256

int notify_ready(void)
{
	return sd_notify(0, "READY=1");
}

int notify_reloading(void)
{
	struct timespec ts;
	uint64_t usec;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return sd_notify(0, "RELOADING=1");
	usec = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
	return sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%" PRIu64, usec);
}

int notify_stopping(void)
{
	return sd_notify(0, "STOPPING=1");
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
	return sd_notifyf(0, "STATUS=%s", text);
}

uint64_t notify_watchdog_interval_usec(void)
{
	uint64_t usec = 0;

	if (sd_watchdog_enabled(0, &usec) <= 0)
		return 0;
	return usec;
}

int notify_watchdog_ping(void)
{
	return sd_notify(0, "WATCHDOG=1");
}
