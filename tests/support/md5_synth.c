#include "tests/support/md5_synth.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

/* Parent of joint i: a binary-ish tree, deep enough to be realistic. */
static int synth_parent(uint32_t i)
{
	return i == 0 ? -1 : (int)((i - 1) / 2);
}

int md5_synth_write_mesh(const char *dir, const char *name, uint32_t joints)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s.md5mesh", dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	fprintf(f, "MD5Version 10\ncommandline \"md5_synth\"\nnumJoints %u\nnumMeshes 1\n\njoints {\n",
		joints);
	/* Bind pose: every joint 1 unit above its parent, no rotation. */
	for (uint32_t i = 0; i < joints; i++) {
		uint32_t depth = 0;

		for (int p = synth_parent(i); p >= 0; p = synth_parent((uint32_t)p))
			depth++;
		fprintf(f, "\t\"j%u\" %d ( %u 0 %u ) ( 0 0 0 )\n", i, synth_parent(i), i % 7, depth);
	}
	fprintf(f, "}\n\nmesh {\n\tshader \"synth\"\n\tnumverts %u\n", joints * 4);
	for (uint32_t v = 0; v < joints * 4; v++)
		fprintf(f, "\tvert %u ( 0 0 ) %u 1\n", v, v);
	fprintf(f, "\tnumtris %u\n", joints * 2);
	for (uint32_t t = 0; t < joints * 2; t++)
		fprintf(f, "\ttri %u %u %u %u\n", t, (t / 2) * 4, (t / 2) * 4 + 1 + t % 2,
			(t / 2) * 4 + 2 + t % 2);
	fprintf(f, "\tnumweights %u\n", joints * 4);
	for (uint32_t w = 0; w < joints * 4; w++)
		fprintf(f, "\tweight %u %u 1 ( %g %g 0.5 )\n", w, w / 4, (w & 1) ? 0.2 : -0.2,
			(w & 2) ? 0.2 : -0.2);
	fprintf(f, "}\n");
	return fclose(f) == 0 ? 0 : -errno;
}

int md5_synth_write_anim(const char *dir, const char *name, uint32_t joints, uint32_t frames,
			 uint32_t rate)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s.md5anim", dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	fprintf(f, "MD5Version 10\ncommandline \"md5_synth\"\nnumFrames %u\nnumJoints %u\n"
		   "frameRate %u\nnumAnimatedComponents %u\n\nhierarchy {\n",
		frames, joints, rate, joints * 6);
	for (uint32_t i = 0; i < joints; i++)
		fprintf(f, "\t\"j%u\" %d 63 %u\n", i, synth_parent(i), i * 6);
	fprintf(f, "}\n\nbounds {\n");
	for (uint32_t k = 0; k < frames; k++)
		fprintf(f, "\t( -10 -10 -10 ) ( 10 10 10 )\n");
	fprintf(f, "}\n\nbaseframe {\n");
	for (uint32_t i = 0; i < joints; i++)
		fprintf(f, "\t( 0 0 %u ) ( 0 0 0 )\n", i ? 1u : 0u);
	fprintf(f, "}\n");
	for (uint32_t k = 0; k < frames; k++) {
		fprintf(f, "\nframe %u {\n", k);
		for (uint32_t i = 0; i < joints; i++) {
			double ph = 2 * M_PI * k / (frames > 1 ? frames - 1 : 1) + i * 0.37;
			double a = 0.25 * sin(ph), b = 0.2 * cos(ph * 1.3);

			fprintf(f, "\t0 %.6f %.6f %.6f %.6f %.6f\n", 0.05 * sin(ph), i ? 1.0 : 0.0,
				0.5 * sin(a), 0.5 * sin(b), 0.1 * sin(a + b));
		}
		fprintf(f, "}\n");
	}
	return fclose(f) == 0 ? 0 : -errno;
}

int md5_synth_write(const char *dir, const char *name, uint32_t joints, uint32_t frames,
		    uint32_t rate)
{
	int rc = md5_synth_write_mesh(dir, name, joints);

	return rc < 0 ? rc : md5_synth_write_anim(dir, name, joints, frames, rate);
}
