/*
 * libFuzzer harness for the .md5camera parser: parse, check md5.h's
 * promises on the cuts, free.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "daemon/formats/md5.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_camera(const struct md5_camera *c)
{
	uint32_t i;

	if (c->num_frames < 1 || c->frame_rate < 1 || c->num_cuts > c->num_frames ||
	    c->commandline == NULL)
		abort();
	for (i = 0; i < c->num_cuts; i++)
		if (c->cuts[i] < 1 || c->cuts[i] >= c->num_frames ||
		    (i > 0 && c->cuts[i] <= c->cuts[i - 1]))
			abort();
	for (i = 0; i < c->num_frames; i++)
		if (!isfinite(c->frames[i].fov) || !isfinite(c->frames[i].pos[0]))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct md5_camera *c = NULL;
	struct diag d = { 0 };
	int rc;

	rc = md5_camera_parse((const char *)data, size, &c, &d);
	if (rc == 0) {
		check_camera(c);
		md5_camera_free(c);
	} else if (c != NULL || !d.set || d.line == 0) {
		abort();
	}
	return 0;
}
