/*
 * systemd_lib.c - libsystemd, opened on first use (systemd_lib.h).
 */
#include "daemon/service/base/systemd_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

/* The soname of Debian's libsystemd0: the ABI these prototypes are. */
#define SYSTEMD_LIB_SONAME "libsystemd.so.0"

static pthread_once_t systemd_lib_once = PTHREAD_ONCE_INIT;
static struct systemd_lib systemd_lib_calls;
static const struct systemd_lib *systemd_lib_loaded;
static char systemd_lib_error[256];

/* dlsym's void * to a function pointer: POSIX allows it, ISO C does not
 * say, so the bytes are copied rather than the pointer converted. */
static int systemd_lib_sym(void *handle, const char *name, void *out, size_t size)
{
	void *sym = dlsym(handle, name);

	if (sym == NULL) {
		snprintf(systemd_lib_error, sizeof systemd_lib_error, "%s has no %s",
			 SYSTEMD_LIB_SONAME, name);
		return -1;
	}
	_Static_assert(sizeof sym == sizeof(int (*)(void)), "function pointers are data pointers");
	__builtin_memcpy(out, &sym, size);
	return 0;
}

static void systemd_lib_load(void)
{
	/* Never closed: the calls stay valid for the life of the process. */
	void *h = dlopen(SYSTEMD_LIB_SONAME, RTLD_NOW | RTLD_LOCAL);
	struct systemd_lib *l = &systemd_lib_calls;

	if (h == NULL) {
		const char *why = dlerror();

		snprintf(systemd_lib_error, sizeof systemd_lib_error, "cannot load %s: %s",
			 SYSTEMD_LIB_SONAME, why != NULL ? why : "unknown error");
		return;
	}
	if (systemd_lib_sym(h, "sd_notify", &l->notify, sizeof l->notify) < 0 ||
	    systemd_lib_sym(h, "sd_watchdog_enabled", &l->watchdog_enabled,
			    sizeof l->watchdog_enabled) < 0 ||
	    systemd_lib_sym(h, "sd_listen_fds", &l->listen_fds, sizeof l->listen_fds) < 0 ||
	    systemd_lib_sym(h, "sd_is_socket_unix", &l->is_socket_unix,
			    sizeof l->is_socket_unix) < 0)
		return;
	systemd_lib_loaded = l;
}

const struct systemd_lib *systemd_lib(const char **err)
{
	pthread_once(&systemd_lib_once, systemd_lib_load);
	if (systemd_lib_loaded == NULL && err != NULL)
		*err = systemd_lib_error;
	return systemd_lib_loaded;
}
