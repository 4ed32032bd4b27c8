/*
 * gen_tree DIR COUNT [SEED] - a large tree of generated assets under DIR
 * (tests/support/asset_tree.h: folders of characters, every format and
 * .x encoding, mostly small files and a few large ones), for measuring
 * the daemon on a game-sized library.  Prints what it wrote.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/support/asset_tree.h"

int main(int argc, char **argv)
{
	static const char *const formats[5] = { "md5mesh", "md5anim", "md5camera", "x", "m2" };
	struct asset_tree_stats st;
	int rc;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: gen_tree DIR COUNT [SEED]\n");
		return 2;
	}
	rc = asset_tree_write(argv[1], (uint32_t)strtoul(argv[2], NULL, 10),
			      argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 1, &st);
	if (rc < 0) {
		fprintf(stderr, "gen_tree: cannot write under %s: error %d\n", argv[1], -rc);
		return 1;
	}
	printf("%u assets (%u files, %.1f MB) in %u folders:", st.assets, st.files,
	       (double)st.bytes / 1e6, st.folders);
	for (int i = 0; i < 5; i++)
		printf(" %u %s", st.by_format[i], formats[i]);
	printf("\n");
	return 0;
}
