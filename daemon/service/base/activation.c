/*
 * activation.c - the sockets systemd passes (activation.h).
 */
#include "daemon/service/base/activation.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* A positive decimal that fits an int, without sign or garbage. */
static int activation_env_int(const char *name, long *out)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (s == NULL)
		return 0;
	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > INT_MAX)
		return -EINVAL;
	*out = v;
	return 1;
}

int activation_listen_fds(void)
{
	long pid = 0, n = 0;
	int rc = activation_env_int("LISTEN_PID", &pid);

	if (rc <= 0)
		return rc;
	if (pid != (long)getpid())
		return 0;
	rc = activation_env_int("LISTEN_FDS", &n);
	if (rc <= 0)
		return rc;
	if (n > INT_MAX - ACTIVATION_FDS_START)
		return -EINVAL;
	for (int fd = ACTIVATION_FDS_START; fd < ACTIVATION_FDS_START + (int)n; fd++) {
		int flags = fcntl(fd, F_GETFD);

		if (flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0)
			return -errno;
	}
	return (int)n;
}

bool activation_is_unix_listener(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	struct stat st;
	int type = 0, listening = 0;
	socklen_t ilen = sizeof type;

	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return false;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &ilen) < 0 || type != SOCK_STREAM)
		return false;
	ilen = sizeof listening;
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &ilen) < 0 || !listening)
		return false;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0 || len < sizeof(sa_family_t))
		return false;
	return ss.ss_family == AF_UNIX;
}
