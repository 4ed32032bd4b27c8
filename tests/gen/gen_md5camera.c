/*
 * gen_md5camera FILE FRAMES RATE [CUT...] - write a camera fixture whose
 * frames are known in closed form (tests/support/md5_camera_gen.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/support/md5_camera_gen.h"

int main(int argc, char **argv)
{
	uint32_t cuts[256];
	struct camera_gen g = { 0 };
	FILE *f;
	int rc;

	if (argc < 4 || argc - 4 > 256) {
		fprintf(stderr, "usage: gen_md5camera FILE FRAMES RATE [CUT...]\n");
		return 2;
	}
	g.frames = (uint32_t)strtoul(argv[2], NULL, 10);
	g.rate = (uint32_t)strtoul(argv[3], NULL, 10);
	for (int i = 4; i < argc; i++)
		cuts[g.cut_count++] = (uint32_t)strtoul(argv[i], NULL, 10);
	g.cuts = cuts;
	f = fopen(argv[1], "w");
	if (f == NULL) {
		perror(argv[1]);
		return 1;
	}
	rc = camera_gen_write(f, &g);
	if (fclose(f) != 0 || rc < 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
