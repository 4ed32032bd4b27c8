/*
 * gen_tree - a large asset tree of every format, for the tests and the
 * benchmark of start-up and of the memory cap:
 *
 *   gen_tree DIR FILES [--scale K] [--broken N] [--manifest FILE]
 *
 * writes at least FILES asset files under DIR, 50 to a folder
 * (DIR/g000/, DIR/g001/, ...), in units that repeat: five MD5 characters
 * (NAME.md5mesh and NAME.md5anim, of 8 to 40 joints, 24 to 96 frames), an
 * M2 of version 264 with its companions (NAME00.skin and one NAMEaaaa-vv.anim
 * per sequence, which are not assets of their own), a .x crane and an
 * md5camera.  --scale K multiplies the MD5 characters' joints and frames
 * (and the M2's bones and keys) by K (default 1), for trees that take
 * hundreds of MiB once loaded.  --broken N makes N of the md5anims, spread
 * over the tree, fail to parse (line 4).  --manifest FILE lists what was
 * written, one asset a line, in the order written: "md5anim NAME MESH",
 * "md5mesh NAME", "m2 NAME", "x NAME", "md5camera NAME", "broken NAME"
 * (names relative to DIR).  Everything is made here, from closed forms: no
 * game data.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/support/m2_writer.h"
#include "tests/support/md5_camera_gen.h"
#include "tests/support/md5_synth.h"
#include "tests/support/x_crane_gen.h"

#define PER_FOLDER 50u
#define UNIT_FILES 13u          /* 5 characters (10 files), an M2, a .x, a camera */

static const char broken_text[] =
	"MD5Version 10\ncommandline \"\"\n\nnumFrames broken\nnumJoints 1\n";

struct tree {
	const char *dir;
	unsigned scale;
	FILE *manifest;
	unsigned files;                 /* written so far */
	unsigned broken_every;          /* an md5anim of this many is broken; 0: none */
	unsigned anims;
};

/* The folder the next file goes into, made if new; rel gets "gNNN". */
static int tree_folder(struct tree *t, char *rel, size_t size, char *abs, size_t asize)
{
	snprintf(rel, size, "g%03u", t->files / PER_FOLDER);
	snprintf(abs, asize, "%s/%s", t->dir, rel);
	if (mkdir(abs, 0755) < 0 && errno != EEXIST) {
		perror(abs);
		return -1;
	}
	return 0;
}

static int tree_write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

static int tree_character(struct tree *t, unsigned n)
{
	char rel[32], abs[4096], name[64], path[4200];
	uint32_t joints = (8 + (n % 5) * 8) * t->scale;
	uint32_t frames = (24 + (n % 7) * 12) * t->scale;
	bool broken;

	if (tree_folder(t, rel, sizeof rel, abs, sizeof abs) < 0)
		return -1;
	snprintf(name, sizeof name, "char%05u", n);
	if (md5_synth_write(abs, name, joints, frames, 24) < 0) {
		fprintf(stderr, "gen_tree: cannot write %s/%s.*\n", abs, name);
		return -1;
	}
	broken = t->broken_every != 0 && t->anims++ % t->broken_every == t->broken_every / 2;
	if (broken) {
		snprintf(path, sizeof path, "%s/%s.md5anim", abs, name);
		if (tree_write_text(path, broken_text) < 0)
			return -1;
	}
	if (t->manifest != NULL) {
		fprintf(t->manifest, "md5mesh %s/%s.md5mesh\n", rel, name);
		if (broken)
			fprintf(t->manifest, "broken %s/%s.md5anim\n", rel, name);
		else
			fprintf(t->manifest, "md5anim %s/%s.md5anim %s/%s.md5mesh\n", rel, name, rel,
				name);
	}
	t->files += 2;
	return 0;
}

static int tree_m2(struct tree *t, unsigned n)
{
	char rel[32], abs[4096], name[64];
	struct m2w_file f;
	int rc;

	if (tree_folder(t, rel, sizeof rel, abs, sizeof abs) < 0)
		return -1;
	snprintf(name, sizeof name, "model%05u", n);
	m2w_synth_version(&f, 264, (6 + n % 10) * t->scale, 3, 4 * t->scale, 0);
	rc = m2w_write_files(&f, abs, name);
	m2w_file_free(&f);
	if (rc < 0)
		return -1;
	if (t->manifest != NULL)
		fprintf(t->manifest, "m2 %s/%s.m2\n", rel, name);
	t->files++;
	return 0;
}

static int tree_x(struct tree *t, unsigned n)
{
	char rel[32], abs[4096], path[4200];
	FILE *f;

	if (tree_folder(t, rel, sizeof rel, abs, sizeof abs) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/crane%05u.x", abs, n);
	f = fopen(path, "w");
	if (f == NULL || x_crane_write(f) < 0 || fclose(f) != 0) {
		perror(path);
		return -1;
	}
	if (t->manifest != NULL)
		fprintf(t->manifest, "x %s/crane%05u.x\n", rel, n);
	t->files++;
	return 0;
}

static int tree_camera(struct tree *t, unsigned n)
{
	static const uint32_t cuts[] = { 20, 50 };
	struct camera_gen g = { .frames = 96, .rate = 30, .cut_count = 2, .cuts = cuts };
	char rel[32], abs[4096], path[4200];
	FILE *f;

	if (tree_folder(t, rel, sizeof rel, abs, sizeof abs) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/orbit%05u.md5camera", abs, n);
	f = fopen(path, "w");
	if (f == NULL || camera_gen_write(f, &g) < 0 || fclose(f) != 0) {
		perror(path);
		return -1;
	}
	if (t->manifest != NULL)
		fprintf(t->manifest, "md5camera %s/orbit%05u.md5camera\n", rel, n);
	t->files++;
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: gen_tree DIR FILES [--scale K] [--broken N] [--manifest FILE]\n");
}

int main(int argc, char **argv)
{
	struct tree t = { .scale = 1 };
	unsigned want, broken = 0, unit = 0;
	const char *manifest = NULL;

	if (argc < 3) {
		usage();
		return 2;
	}
	t.dir = argv[1];
	want = (unsigned)strtoul(argv[2], NULL, 10);
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
			t.scale = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--broken") == 0 && i + 1 < argc) {
			broken = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--manifest") == 0 && i + 1 < argc) {
			manifest = argv[++i];
		} else {
			usage();
			return 2;
		}
	}
	if (t.scale == 0 || t.scale > 64) {
		fprintf(stderr, "gen_tree: --scale is 1 to 64\n");
		return 2;
	}
	if (mkdir(t.dir, 0755) < 0 && errno != EEXIST) {
		perror(t.dir);
		return 1;
	}
	/* Five md5anims a unit: one broken in every (anims / broken). */
	if (broken > 0)
		t.broken_every = (want / UNIT_FILES + 1) * 5 / broken + 1;
	if (manifest != NULL && (t.manifest = fopen(manifest, "w")) == NULL) {
		perror(manifest);
		return 1;
	}
	while (t.files < want) {
		for (unsigned k = 0; k < 5 && t.files < want; k++)
			if (tree_character(&t, unit * 5 + k) < 0)
				return 1;
		if ((t.files < want && tree_m2(&t, unit) < 0) ||
		    (t.files < want && tree_x(&t, unit) < 0) ||
		    (t.files < want && tree_camera(&t, unit) < 0))
			return 1;
		unit++;
	}
	if (t.manifest != NULL && fclose(t.manifest) != 0) {
		perror(manifest);
		return 1;
	}
	printf("%u asset files in %u folders under %s\n", t.files,
	       (t.files + PER_FOLDER - 1) / PER_FOLDER, t.dir);
	return 0;
}
