/*
 * activation.c - the sockets systemd passes (activation.h), through
 * libsystemd (systemd_lib.h).
 */
#include "daemon/service/base/activation.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "daemon/service/base/systemd_lib.h"

int activation_listen_fds(void)
{
	const struct systemd_lib *sd;

	/* Without the variable systemd passed nothing, and libsystemd need not
	 * be loaded to say so. */
	if (getenv("LISTEN_FDS") == NULL)
		return 0;
	if ((sd = systemd_lib(NULL)) == NULL)
		return -ENOSYS;
	/* Checks LISTEN_PID, makes each descriptor close-on-exec. */
	return sd->listen_fds(0);
}

bool activation_is_unix_listener(int fd)
{
	const struct systemd_lib *sd = systemd_lib(NULL);

	return sd != NULL && sd->is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) > 0;
}
