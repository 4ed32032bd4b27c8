#include "daemon/service/base/config_dropins.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/service/base/log.h"

/* Longest path of a drop-in, with the NUL (config.h's CONFIG_PATH_MAX). */
#define CONFIG_DROPINS_PATH_MAX 4096

static bool config_dropins_wanted(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 4 && strcmp(name + n - 4, ".ini") == 0;
}

static bool config_dropins_has_control(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

static int config_dropins_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void config_dropins_free(struct config_dropins *d)
{
	for (size_t i = 0; i < d->count; i++)
		free(d->paths[i]);
	free(d->paths);
	d->paths = NULL;
	d->count = 0;
}

int config_dropins_list(const char *file, struct config_dropins *out, char *err, size_t errlen)
{
	char dir[CONFIG_DROPINS_PATH_MAX];
	struct dirent *e;
	DIR *dp;
	int n, r = 0;

	out->paths = NULL;
	out->count = 0;
	n = snprintf(dir, sizeof dir, "%s" CONFIG_DROPINS_SUFFIX, file);
	if (n < 0 || (size_t)n >= sizeof dir) {
		snprintf(err, errlen, "%s" CONFIG_DROPINS_SUFFIX ": the path is too long", file);
		return -ENAMETOOLONG;
	}
	dp = opendir(dir);
	if (dp == NULL) {
		r = -errno;
		if (r == -ENOENT)
			return 0;
		snprintf(err, errlen, "%s: cannot read the drop-in folder: %s", dir, strerror(-r));
		return r;
	}
	out->paths = calloc(CONFIG_DROPINS_MAX, sizeof *out->paths);
	if (out->paths == NULL) {
		snprintf(err, errlen, "%s: out of memory", dir);
		closedir(dp);
		return -ENOMEM;
	}
	for (errno = 0; (e = readdir(dp)) != NULL; errno = 0) {
		size_t dlen, nlen;
		char name[64], *path;

		if (!config_dropins_wanted(e->d_name))
			continue;
		if (config_dropins_has_control(e->d_name)) {
			log_escape_bytes(name, sizeof name, e->d_name, strlen(e->d_name), NULL);
			snprintf(err, errlen, "%s: the drop-in \"%s\" has a control character in its "
					      "name; rename it", dir, name);
			r = -EINVAL;
			break;
		}
		if (out->count == CONFIG_DROPINS_MAX) {
			snprintf(err, errlen, "%s: more than %d drop-ins", dir, CONFIG_DROPINS_MAX);
			r = -E2BIG;
			break;
		}
		dlen = strlen(dir);
		nlen = strlen(e->d_name);
		if (dlen + 1 + nlen + 1 > CONFIG_DROPINS_PATH_MAX) {
			snprintf(err, errlen, "%s/%s: the path is too long", dir, e->d_name);
			r = -ENAMETOOLONG;
			break;
		}
		path = malloc(dlen + 1 + nlen + 1);
		if (path == NULL) {
			snprintf(err, errlen, "%s: out of memory", dir);
			r = -ENOMEM;
			break;
		}
		memcpy(path, dir, dlen);
		path[dlen] = '/';
		memcpy(path + dlen + 1, e->d_name, nlen + 1);
		out->paths[out->count++] = path;
	}
	if (r == 0 && errno != 0) {
		r = -errno;
		snprintf(err, errlen, "%s: cannot read the drop-in folder: %s", dir, strerror(-r));
	}
	closedir(dp);
	if (r < 0) {
		config_dropins_free(out);
		return r;
	}
	/* Every path has the same folder before the name: sorting the paths
	 * sorts the names. */
	qsort(out->paths, out->count, sizeof *out->paths, config_dropins_cmp);
	return 0;
}
