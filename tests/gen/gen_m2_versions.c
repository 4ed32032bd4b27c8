/*
 * gen_m2_versions DIR - the demo lantern (support/m2_writer.h) in the
 * later M2 layouts, as files: DIR/lantern260.m2 (The Burning Crusade's
 * layout) and DIR/lantern264.m2 with its companions lantern26400.skin and
 * lantern2640001-00.anim (its zero-length "Closed" sequence has no flag
 * 0x20, so its keys are in that .anim).  For the offline tools' tests.
 */
#include <stdio.h>

#include "tests/support/m2_writer.h"

static int write_version(const char *dir, uint32_t version)
{
	struct m2w_model m = *m2w_demo_description();
	struct m2w_file f;
	char stem[32];
	int rc;

	m.version = version;
	m2w_build(&m, &f);
	snprintf(stem, sizeof stem, "lantern%u", version);
	rc = m2w_write_files(&f, dir, stem);
	m2w_file_free(&f);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_m2_versions DIR\n");
		return 2;
	}
	return write_version(argv[1], 260) < 0 || write_version(argv[1], 264) < 0 ? 1 : 0;
}
