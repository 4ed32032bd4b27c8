/*
 * activation.h - sockets systemd passes to the daemon (socket activation:
 * sd_listen_fds(3), through libsystemd loaded when LISTEN_FDS is set).
 *
 * systemd passes LISTEN_FDS descriptors from 3 on, with LISTEN_PID set to
 * the process they are for.  The environment is left as it is.
 */
#ifndef ANIMD_ACTIVATION_H
#define ANIMD_ACTIVATION_H

#include <stdbool.h>

/* The first descriptor passed. */
#define ACTIVATION_FDS_START 3

/* How many descriptors were passed to this process (each made
 * close-on-exec); 0 when none, or they were meant for another process; a
 * negative errno when the variables are not numbers, a descriptor they name
 * is not open, or libsystemd cannot be loaded (-ENOSYS). */
int activation_listen_fds(void);

/* Whether fd is a listening Unix stream socket. */
bool activation_is_unix_listener(int fd);

#endif
