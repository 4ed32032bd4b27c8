#include "daemon/service/cache/asset_path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "daemon/assets/asset.h"
#include "daemon/service/base/log.h"

static int asset_path_fail(int rc, char *err, size_t errlen, const char *why)
{
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s", why);
	return rc;
}

int asset_path_check(const char *name, size_t len, char *err, size_t errlen)
{
	size_t start = 0;

	if (len == 0)
		return asset_path_fail(-EINVAL, err, errlen, "asset name is empty");
	if (len > ASSET_PATH_MAX)
		return asset_path_fail(-ENAMETOOLONG, err, errlen, "asset name is too long");
	if (memchr(name, '\0', len) != NULL)
		return asset_path_fail(-EINVAL, err, errlen, "asset name contains a NUL byte");
	if (name[0] == '/')
		return asset_path_fail(-EACCES, err, errlen,
				       "asset name is absolute; names are relative to the asset root");
	for (size_t i = 0; i <= len; i++) {
		size_t n;

		if (i < len && name[i] != '/')
			continue;
		n = i - start;
		if (n == 0)
			return asset_path_fail(-EINVAL, err, errlen,
					       "asset name has an empty component");
		if (n == 1 && name[start] == '.')
			return asset_path_fail(-EINVAL, err, errlen,
					       "asset name has a \".\" component");
		if (n == 2 && name[start] == '.' && name[start + 1] == '.')
			return asset_path_fail(-EACCES, err, errlen,
					       "asset name has a \"..\" component; "
					       "names stay inside the asset root");
		start = i + 1;
	}
	return 0;
}

const char *asset_path_unservable(const char *name, size_t len)
{
	const unsigned char *u = (const unsigned char *)name;
	const char *why = NULL;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = log_utf8_decode(u + i, len - i, &cp);

		if (n == 0)
			return "is not valid UTF-8";    /* the worse news first */
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
			why = "holds a control character";
		i += n;
	}
	return why;
}

bool asset_path_ignored(const char *base)
{
	size_t n = strlen(base);

	return n == 0 || base[0] == '.' || base[0] == '#' || base[n - 1] == '~';
}

const char *asset_path_base(const char *name)
{
	const char *slash = strrchr(name, '/');

	return slash != NULL ? slash + 1 : name;
}

bool asset_path_is_asset(const char *name)
{
	const char *base = asset_path_base(name);

	return !asset_path_ignored(base) && asset_detect(base, NULL, 0) != ASSET_FORMAT_UNKNOWN;
}

bool asset_path_within(const char *name, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 0)
		return true;
	return strncmp(name, dir, n) == 0 && (name[n] == '\0' || name[n] == '/');
}

int asset_path_join(char *out, size_t size, const char *dir, const char *name)
{
	int n = dir[0] == '\0' ? snprintf(out, size, "%s", name)
			       : snprintf(out, size, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int asset_path_parent(const char *name, char *out, size_t size)
{
	const char *slash = strrchr(name, '/');
	size_t n = slash != NULL ? (size_t)(slash - name) : 0;

	if (n >= size)
		return -ENAMETOOLONG;
	memmove(out, name, n);
	out[n] = '\0';
	return 0;
}

/* True if path (a realpath) is root_real or below it. */
static bool asset_path_inside(const char *path, const char *root_real)
{
	size_t n = strlen(root_real);

	if (n == 1 && root_real[0] == '/')
		return path[0] == '/';
	return strncmp(path, root_real, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int asset_path_resolve(const char *root_real, const char *name, size_t len, char *out,
		       size_t size, char *err, size_t errlen)
{
	char joined[PATH_MAX];
	char *real;
	int rc = asset_path_check(name, len, err, errlen);
	int n;

	if (rc < 0)
		return rc;
	n = snprintf(joined, sizeof joined, "%s/%.*s", root_real, (int)len, name);
	if (n < 0 || (size_t)n >= sizeof joined)
		return asset_path_fail(-ENAMETOOLONG, err, errlen, "asset path is too long");
	real = realpath(joined, NULL);
	if (real == NULL) {
		rc = -errno;
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "cannot resolve asset name: %s", strerror(-rc));
		return rc;
	}
	if (!asset_path_inside(real, root_real))
		rc = asset_path_fail(-EACCES, err, errlen, "asset name resolves outside the asset root");
	else if (strlen(real) >= size)
		rc = asset_path_fail(-ENAMETOOLONG, err, errlen, "asset path is too long");
	else
		strcpy(out, real);
	free(real);
	return rc;
}

static int asset_path_openat2(int dirfd, const char *name, int flags, uint64_t resolve)
{
#ifdef SYS_openat2
	struct open_how how = { .flags = (uint64_t)(flags | O_CLOEXEC), .resolve = resolve };
	long fd = syscall(SYS_openat2, dirfd, name, &how, sizeof how);

	return fd < 0 ? -errno : (int)fd;
#else
	(void)dirfd;
	(void)name;
	(void)flags;
	(void)resolve;
	return -ENOSYS;
#endif
}

int asset_path_open(int root_fd, const char *root_real, const char *name, int flags)
{
	char joined[PATH_MAX];
	char *real;
	int fd, n;

	fd = asset_path_openat2(root_fd, name[0] != '\0' ? name : ".", flags,
				RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
	/* EXDEV: the walk would leave the root, or met an absolute symlink
	 * (which may still point inside: the realpath check below decides).
	 * ENOSYS / EPERM: no openat2 here (old kernel, or a seccomp filter). */
	if (fd >= 0 || (fd != -EXDEV && fd != -ENOSYS && fd != -EPERM))
		return fd;
	n = snprintf(joined, sizeof joined, "%s/%s", root_real, name);
	if (n < 0 || (size_t)n >= sizeof joined)
		return -ENAMETOOLONG;
	real = realpath(joined, NULL);
	if (real == NULL)
		return -errno;
	if (!asset_path_inside(real, root_real)) {
		free(real);
		return -EXDEV;
	}
	/* A caller that refuses a symlink as the last component (the tree walk,
	 * for directories) opens the name as given; otherwise the resolved
	 * path, so the target is the one just checked. */
	if (flags & O_NOFOLLOW)
		fd = open(joined, flags | O_CLOEXEC);
	else
		fd = open(real, flags | O_NOFOLLOW | O_CLOEXEC);
	free(real);
	return fd < 0 ? -errno : fd;
}
