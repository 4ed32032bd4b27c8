#include "tests/support/testdata.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

const char *testdata_dir(void)
{
	static char dir[4096];
	const char *env = getenv("ANIMD_TESTDATA");
	struct stat st;

	snprintf(dir, sizeof dir, "%s", env && *env ? env : "../shared/testdata");
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		printf("skip: shared test data not found at %s (set ANIMD_TESTDATA)\n", dir);
		return NULL;
	}
	return dir;
}

const char *testdata_path(const char *rel)
{
	static char path[4096];
	const char *dir = testdata_dir();

	snprintf(path, sizeof path, "%s/%s", dir ? dir : "", rel);
	return path;
}

static int testdata_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t testdata_list(const char *dir, const char *ext, char ***out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **list = calloc(1, sizeof *list);
	size_t n = 0;

	while (d != NULL && list != NULL && (e = readdir(d)) != NULL) {
		const char *dot = strrchr(e->d_name, '.');
		char **grown;

		if (e->d_name[0] == '.')
			continue;
		if (ext != NULL && (dot == NULL || strcasecmp(dot + 1, ext) != 0))
			continue;
		grown = realloc(list, (n + 2) * sizeof *list);
		if (grown == NULL)
			break;
		list = grown;
		list[n++] = strdup(e->d_name);
		list[n] = NULL;
	}
	if (d != NULL)
		closedir(d);
	if (list != NULL)
		qsort(list, n, sizeof *list, testdata_cmp);
	*out = list;
	return n;
}

void testdata_list_free(char **list)
{
	for (size_t i = 0; list != NULL && list[i] != NULL; i++)
		free(list[i]);
	free(list);
}

char *test_file_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		if (buf != NULL) {
			buf[n] = '\0';
			*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}
