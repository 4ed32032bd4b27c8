/*
 * libFuzzer harness for the .md5anim parser: parse, check md5.h's
 * promises on what came out (every joint reads inside its frame), then
 * import, compress (clip_compress, on whatever values the file holds) and
 * sample as a load does, free.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/skeleton.h"
#include "daemon/formats/md5/md5.h"
#include "daemon/import/md5_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned popcount(uint32_t v)
{
	unsigned n = 0;

	for (; v != 0; v &= v - 1)
		n++;
	return n;
}

static void check_anim(const struct md5_anim *a)
{
	uint32_t i;
	size_t k;

	if (a->num_frames < 1 || a->num_joints < 1 || a->frame_rate < 1 ||
	    a->num_components > 6 * a->num_joints || a->commandline == NULL)
		abort();
	for (i = 0; i < a->num_joints; i++) {
		const struct md5_anim_joint *j = &a->joints[i];

		if (j->name == NULL || a->base[i].name != j->name || a->base[i].parent != j->parent)
			abort();
		if (i == 0 ? j->parent != -1 : (j->parent < 0 || j->parent >= (int32_t)i))
			abort();
		if ((j->flags & ~MD5_ANIM_ALL) != 0 ||
		    (uint64_t)j->start_index + popcount(j->flags) > a->num_components)
			abort();
	}
	/* Read every value, so ASan sees the arrays are as long as promised;
	 * the lexer lets no NaN or infinity in. */
	for (i = 0; i < a->num_frames; i++)
		for (k = 0; k < 6; k++)
			if (!isfinite(a->bounds[i][k]))
				abort();
	for (k = 0; k < (size_t)a->num_frames * a->num_components; k++)
		if (!isfinite(a->components[k]))
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

/* What parses imports, compresses (any values the file holds) and
 * samples, at frames and between, as a load does. */
static void check_compressed(const struct md5_anim *a)
{
	struct skeleton *s = NULL;
	struct clip *c = NULL;
	struct transform *pose;
	int rc;

	if (md5_import_anim_skeleton(a, &s) != 0)
		return;
	rc = md5_import_clip(a, "fuzz", &c);
	if (rc == 0) {
		rc = clip_compress(c, s->parents, NULL);
		if (rc != 0 && rc != -ENOMEM)
			abort();
		pose = malloc(((size_t)c->joint_count + 1) * sizeof *pose);
		if (pose != NULL) {
			clip_sample(c, 0, pose);
			clip_sample(c, c->duration_ns / 3, pose);
			clip_sample(c, c->duration_ns, pose);
			free(pose);
		}
	}
	clip_free(c);
	skeleton_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct md5_anim *a = NULL;
	struct diag d = { 0 };
	int rc;

	rc = md5_anim_parse((const char *)data, size, &a, &d);
	if (rc == 0) {
		check_anim(a);
		check_notes(&a->notes);
		check_compressed(a);
		md5_anim_free(a);
	} else if (a != NULL || !d.set || d.line == 0) {
		abort();
	}
	return 0;
}
