#include "daemon/service/base/memlimit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/service/base/bytes.h"

#define MEMLIMIT_PROC_CGROUP "/proc/self/cgroup"
#define MEMLIMIT_CGROUP_ROOT "/sys/fs/cgroup"
#define MEMLIMIT_PATH_MAX 4096
/* What memory is worth when it cannot be found out: a budget of 1 GiB. */
#define MEMLIMIT_UNKNOWN_BYTES ((uint64_t)4 << 30)

/* Up to size - 1 bytes of a small file, NUL-terminated; its length, or a
 * negative errno. */
static ssize_t memlimit_read(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	while (n + 1 < size) {
		ssize_t r = read(fd, buf + n, size - 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* A limit file's value: decimal bytes, then a newline or nothing; "max"
 * and anything else give 0 (none). */
static uint64_t memlimit_value(const char *path)
{
	char buf[64];
	uint64_t v = 0;
	const char *p;

	if (memlimit_read(path, buf, sizeof buf) <= 0)
		return 0;
	for (p = buf; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == buf || (*p != '\0' && *p != '\n'))
		return 0;
	return v;
}

/* The smallest limit of the group at rel ("/a/b") under dir and of each
 * ancestor up to dir itself (a namespace's root has one; the real root
 * does not, which reads as none). */
static uint64_t memlimit_walk(const char *dir, const char *rel, size_t rel_len,
			      const char *file)
{
	char path[MEMLIMIT_PATH_MAX];
	uint64_t least = 0;

	for (;;) {
		int n;
		uint64_t v;

		while (rel_len > 0 && rel[rel_len - 1] == '/')
			rel_len--;
		n = snprintf(path, sizeof path, "%s%.*s/%s", dir, (int)rel_len, rel, file);
		if (n > 0 && (size_t)n < sizeof path) {
			v = memlimit_value(path);
			if (v != 0 && (least == 0 || v < least))
				least = v;
		}
		if (rel_len == 0)
			return least;
		while (rel_len > 0 && rel[rel_len - 1] != '/')
			rel_len--;
	}
}

/* Whether the comma-separated list (len bytes) names the controller. */
static bool memlimit_has(const char *list, size_t len, const char *name)
{
	size_t want = strlen(name);

	while (len > 0) {
		const char *comma = memchr(list, ',', len);
		size_t item = comma != NULL ? (size_t)(comma - list) : len;

		if (item == want && memcmp(list, name, want) == 0)
			return true;
		if (comma == NULL)
			break;
		len -= item + 1;
		list = comma + 1;
	}
	return false;
}

void memlimit_probe_at(const char *proc_cgroup, size_t len, const char *cgroup_root,
		       uint64_t physical, struct memlimit *out)
{
	char dir[MEMLIMIT_PATH_MAX];
	const char *line = proc_cgroup, *end = proc_cgroup + len;
	uint64_t v2 = 0, v1 = 0;

	out->physical = physical;
	out->cgroup = 0;
	/* Lines "ID:CONTROLLERS:PATH". */
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *eol = nl != NULL ? nl : end;
		const char *c1 = memchr(line, ':', (size_t)(eol - line));
		const char *c2 = c1 != NULL ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;

		if (c2 != NULL && c2 + 1 < eol && c2[1] == '/') {
			const char *rel = c2 + 1;
			size_t rel_len = (size_t)(eol - rel);

			if (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1) {
				v2 = memlimit_walk(cgroup_root, rel, rel_len, "memory.max");
			} else if (memlimit_has(c1 + 1, (size_t)(c2 - c1 - 1), "memory")) {
				snprintf(dir, sizeof dir, "%s/memory", cgroup_root);
				v1 = memlimit_walk(dir, rel, rel_len, "memory.limit_in_bytes");
			}
		}
		line = eol + 1;
	}
	/* A host with both mounts (hybrid) limits through either. */
	out->cgroup = v2 != 0 && (v1 == 0 || v2 < v1) ? v2 : v1;
}

void memlimit_probe(struct memlimit *out)
{
	char text[MEMLIMIT_PATH_MAX];
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	ssize_t n = memlimit_read(MEMLIMIT_PROC_CGROUP, text, sizeof text);

	memlimit_probe_at(text, n > 0 ? (size_t)n : 0, MEMLIMIT_CGROUP_ROOT,
			  pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0, out);
}

uint64_t memlimit_quarter(const struct memlimit *m, char *why, size_t len)
{
	char size[BYTES_FORMAT_MAX];
	bool by_cgroup = m->cgroup != 0 && (m->physical == 0 || m->cgroup < m->physical);
	uint64_t mem = by_cgroup ? m->cgroup : m->physical;

	if (mem == 0) {
		snprintf(why, len, "physical memory unknown");
		return MEMLIMIT_UNKNOWN_BYTES / 4;
	}
	snprintf(why, len, "a quarter of %s, %s", bytes_format(mem, size, sizeof size),
		 by_cgroup ? "the cgroup's memory limit" : "physical memory");
	return mem / 4;
}
