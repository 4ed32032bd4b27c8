/*
 * gen_x_encodings TEXT.x DIR - one text .x file in every encoding the
 * format has (tests/support/x_reencode.h), for whole-load comparisons that
 * must hold in each: DIR/STEM-text.x, -bin32.x, -bin64.x, -tzip.x and
 * -bzip.x (MSZIP text and binary, chunks of 32 KiB as D3DX writes them).
 * Prints each file's path and size.  The text must parse, with its floats
 * written with a point.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/testdata.h"
#include "tests/support/x_reencode.h"

static const char *const suffix[XENC_COUNT] = { "text", "bin32", "bin64", "tzip", "bzip" };

int main(int argc, char **argv)
{
	const char *slash, *dot;
	char stem[256], path[4096];
	size_t len = 0;
	char *text;

	if (argc != 3) {
		fprintf(stderr, "usage: gen_x_encodings TEXT.x DIR\n");
		return 2;
	}
	text = test_file_read(argv[1], &len);
	if (text == NULL) {
		perror(argv[1]);
		return 1;
	}
	slash = strrchr(argv[1], '/');
	slash = slash != NULL ? slash + 1 : argv[1];
	dot = strrchr(slash, '.');
	snprintf(stem, sizeof stem, "%.*s", (int)(dot != NULL ? dot - slash : (long)strlen(slash)),
		 slash);
	for (int e = 0; e < XENC_COUNT; e++) {
		unsigned char *out = NULL;
		size_t out_len = 0;
		FILE *f;

		if (x_reencode(text, (enum x_encoding_kind)e, &out, &out_len) != 0) {
			fprintf(stderr, "%s: does not parse as text\n", argv[1]);
			free(text);
			return 1;
		}
		snprintf(path, sizeof path, "%s/%s-%s.x", argv[2], stem, suffix[e]);
		f = fopen(path, "wb");
		if (f == NULL || fwrite(out, 1, out_len, f) != out_len || fclose(f) != 0) {
			perror(path);
			free(out);
			free(text);
			return 1;
		}
		printf("%s %zu\n", path, out_len);
		free(out);
	}
	free(text);
	return 0;
}
