/*
 * replay.c - a main() for the fuzz harnesses without libFuzzer: each file
 * named, and each regular file directly inside a directory named, is read
 * whole and passed to LLVMFuzzerTestOneInput once.  `make coverage` links
 * every harness with it under gcc --coverage, so the corpora run through
 * the same harness code the fuzzer runs.
 *
 * Each input gets a buffer of exactly its size, as libFuzzer gives it, so a
 * harness reading past the end stays a bug a sanitizer build would see.
 * Exit status: 0, or 1 if an input could not be read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run the harness on one file: 0, or -errno. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *buf;
	size_t len;
	int rc = 0;

	if (f == NULL)
		return -errno;
	if (fstat(fileno(f), &st) < 0) {
		rc = -errno;
		fclose(f);
		return rc;
	}
	len = (size_t)st.st_size;
	buf = malloc(len ? len : 1);
	if (buf == NULL)
		rc = -ENOMEM;
	else if (fread(buf, 1, len, f) != len)
		rc = -EIO;
	fclose(f);
	if (rc == 0)
		LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return rc;
}

static int replay_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int bad = 0;

	if (d == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		char child[4096];
		struct stat st;

		if (snprintf(child, sizeof child, "%s/%s", path, e->d_name) >= (int)sizeof child ||
		    stat(child, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (replay_file(child) < 0) {
			fprintf(stderr, "replay: cannot read %s\n", child);
			bad = 1;
		}
	}
	closedir(d);
	return bad ? -EIO : 0;
}

int main(int argc, char **argv)
{
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		int rc;

		if (stat(argv[i], &st) < 0)
			rc = -errno;
		else
			rc = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
		if (rc < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(-rc));
			bad = 1;
		}
	}
	return bad;
}
