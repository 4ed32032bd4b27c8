/*
 * systemd_lib.h - libsystemd's sd-daemon calls, loaded when they are needed.
 *
 * animd speaks to systemd (readiness, status, the watchdog, the sockets of
 * socket activation) through libsystemd, Debian's implementation of those
 * protocols.  It is not linked: libsystemd brings six libraries of its own
 * (libgcrypt, liblzma, libzstd, liblz4, libcap, libgpg-error) that the
 * dynamic loader would map into every process of animd at start, `animd
 * check` of one small file included, where they were half its start-up.
 * Instead the daemon opens libsystemd.so.0 the first time systemd has
 * something to say to it (NOTIFY_SOCKET, WATCHDOG_USEC or LISTEN_FDS in the
 * environment); a process systemd did not start never loads it.  The
 * animd package depends on libsystemd0.
 */
#ifndef ANIMD_SYSTEMD_LIB_H
#define ANIMD_SYSTEMD_LIB_H

#include <stddef.h>
#include <stdint.h>

struct systemd_lib {
	int (*notify)(int unset_environment, const char *state);
	int (*watchdog_enabled)(int unset_environment, uint64_t *usec);
	int (*listen_fds)(int unset_environment);
	int (*is_socket_unix)(int fd, int type, int listening, const char *path, size_t length);
};

/* libsystemd's calls, loaded on the first call (thread-safe), or NULL when
 * libsystemd.so.0 cannot be loaded; then *err (when not NULL) says why. */
const struct systemd_lib *systemd_lib(const char **err);

#endif
