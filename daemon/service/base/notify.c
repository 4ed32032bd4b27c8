/*
 * notify.c - sd_notify's protocol, spoken directly; see notify.h.
 */
#include "daemon/service/base/notify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "daemon/service/base/log.h"

#define NOTIFY_STATUS_MAX 256
/* The longest message sent (a status, escaped, and its assignment). */
#define NOTIFY_MESSAGE_MAX 1024

/*
 * Send `msg` to the socket NOTIFY_SOCKET names, as sd_notify(3) does: 1
 * when sent, 0 when the variable is unset, a negative errno otherwise
 * (an address that is neither a path nor "@name", or a failed send).
 */
static int notify_send(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa;
	size_t plen;
	socklen_t salen;
	ssize_t n;
	int fd, rc = 1;

	if (path == NULL || path[0] == '\0')
		return 0;
	plen = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || plen >= sizeof sa.sun_path)
		return -EAFNOSUPPORT;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, plen);
	/* An abstract address: its first byte NUL, its length exact. */
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen + (path[0] == '/'));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	do
		n = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		rc = -errno;
	close(fd);
	return rc;
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

/* A decimal without sign or garbage, as systemd writes its variables. */
static bool notify_env_u64(const char *name, uint64_t *out)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (s == NULL || s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return false;
	*out = v;
	return true;
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
	uint64_t usec = 0, pid;

	/* WATCHDOG_PID, when set, says which process the watchdog is for (a
	 * child that inherited the variables is not it). */
	if (getenv("WATCHDOG_PID") != NULL &&
	    (!notify_env_u64("WATCHDOG_PID", &pid) || pid != (uint64_t)getpid()))
		return 0;
	if (!notify_env_u64("WATCHDOG_USEC", &usec))
		return 0;
	return usec;
}

int notify_watchdog_ping(void)
{
	return notify_send("WATCHDOG=1");
}
