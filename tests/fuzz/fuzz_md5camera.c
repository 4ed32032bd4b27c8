/*
 * libFuzzer harness for the .md5camera parser: parse, check md5.h's
 * promises on the cuts, free.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "daemon/formats/md5/md5.h"

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

/* A file that loads may carry notes: each located at a line and column. */
static void check_notes(const struct diag_notes *n)
{
	if (n->count > DIAG_NOTES_MAX)
		abort();
	for (uint32_t i = 0; i < n->count; i++)
		if (n->note[i].line == 0 || n->note[i].col == 0 || n->note[i].msg[0] == '\0')
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
		check_notes(&c->notes);
		md5_camera_free(c);
	} else if (c != NULL || !d.set || d.line == 0) {
		abort();
	}
	return 0;
}
