/*
 * gen_tree DIR COUNT [SEED] [--broken N] [--manifest FILE] - a large tree
 * of generated assets under DIR, made if missing
 * (tests/support/asset_tree.h: folders of characters, every format and
 * .x encoding, mostly small files and a few large ones), for measuring
 * the daemon on a game-sized library and for the tests of the index and
 * the memory cap.  --broken N makes about N of the md5anims fail to parse;
 * --manifest FILE lists every asset written (asset_tree.h says how).
 * Prints what it wrote.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/support/asset_tree.h"

static int usage(void)
{
	fprintf(stderr, "usage: gen_tree DIR COUNT [SEED] [--broken N] [--manifest FILE]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const char *const formats[5] = { "md5mesh", "md5anim", "md5camera", "x", "m2" };
	struct asset_tree_stats st;
	const char *manifest_path = NULL;
	uint32_t seed = 1, broken = 0;
	FILE *manifest = NULL;
	int rc, positional = 0;

	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--broken") == 0 && i + 1 < argc)
			broken = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--manifest") == 0 && i + 1 < argc)
			manifest_path = argv[++i];
		else if (argv[i][0] != '-' && positional++ == 0)
			seed = (uint32_t)strtoul(argv[i], NULL, 10);
		else
			return usage();
	}
	if (argc < 3)
		return usage();
	if (mkdir(argv[1], 0755) < 0 && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}
	if (manifest_path != NULL && (manifest = fopen(manifest_path, "w")) == NULL) {
		perror(manifest_path);
		return 1;
	}
	rc = asset_tree_write_listed(argv[1], (uint32_t)strtoul(argv[2], NULL, 10), seed, broken,
				     manifest, &st);
	if (manifest != NULL && fclose(manifest) != 0 && rc == 0)
		rc = -errno;
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
