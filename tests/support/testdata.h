/*
 * testdata.h - where the shared third-party test files are.
 *
 * They live outside the project (../shared/testdata, or $ANIMD_TESTDATA)
 * and may be absent: tests that need them skip with a message.
 */
#ifndef ANIMD_TEST_TESTDATA_H
#define ANIMD_TEST_TESTDATA_H

#include <stddef.h>

/* Directory of the shared test data, or NULL (after printing why) when
 * it is absent. */
const char *testdata_dir(void);

/* Path of a file or folder inside it, in a static buffer. */
const char *testdata_path(const char *rel);

/* Names (not paths) in a folder with the given extension, sorted; returns
 * the count and a NULL-terminated malloc'd array (free with
 * testdata_list_free).  ext NULL lists every regular file. */
size_t testdata_list(const char *dir, const char *ext, char ***out);
void testdata_list_free(char **list);

/* A whole file (any path) in a malloc'd buffer with one spare byte, set to
 * NUL (parsers are given *len, not the terminator), or NULL if it cannot be
 * read. */
char *test_file_read(const char *path, size_t *len);

#endif
