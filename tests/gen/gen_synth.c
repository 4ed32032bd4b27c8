/*
 * gen_synth - a synthetic MD5 character (tests/support/md5_synth.h) for
 * scripts: the Python bench plays the same 64-joint figure bench_stream does.
 *
 *   gen_synth DIR NAME JOINTS FRAMES RATE   writes DIR/NAME.md5mesh and DIR/NAME.md5anim
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/support/md5_synth.h"

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: gen_synth DIR NAME JOINTS FRAMES RATE\n");
		return 2;
	}
	if (md5_synth_write(argv[1], argv[2], (uint32_t)strtoul(argv[3], NULL, 10),
			    (uint32_t)strtoul(argv[4], NULL, 10),
			    (uint32_t)strtoul(argv[5], NULL, 10)) < 0) {
		fprintf(stderr, "gen_synth: cannot write %s/%s.*\n", argv[1], argv[2]);
		return 1;
	}
	return 0;
}
