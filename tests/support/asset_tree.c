/* A large generated asset tree (asset_tree.h). */
#include "tests/support/asset_tree.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/support/m2_writer.h"
#include "tests/support/md5_camera_gen.h"
#include "tests/support/md5_synth.h"
#include "tests/support/x_reencode.h"

/* Characters per top-level folder. */
#define TREE_FOLDER_CHARACTERS 100

enum { TREE_MD5MESH, TREE_MD5ANIM, TREE_MD5CAMERA, TREE_X, TREE_M2 };

struct tree {
	uint64_t rng;
	struct asset_tree_stats *st;
	char dir[4096];                 /* the character's folder */
	const char *rel;                /* the same, relative to the tree's directory */
	FILE *manifest;                 /* or NULL */
	uint32_t anims;                 /* md5anims written so far */
	uint32_t broken_every;          /* one md5anim in this many is broken; 0: none */
	uint32_t broken_left;
};

static const char tree_broken_text[] =
	"MD5Version 10\ncommandline \"\"\n\nnumFrames broken\nnumJoints 1\n";

/* A line of the manifest: KIND NAME [MESH], names under the tree. */
static void tree_list(struct tree *t, const char *kind, const char *name, const char *mesh)
{
	if (t->manifest == NULL)
		return;
	fprintf(t->manifest, "%s %s/%s", kind, t->rel, name);
	if (mesh != NULL)
		fprintf(t->manifest, " %s/%s", t->rel, mesh);
	fputc('\n', t->manifest);
}

/* Overwrite the md5anim just written with one that fails to parse, if it
 * is one of those to break.  1 if broken, 0 if not, or -errno. */
static int tree_maybe_break(struct tree *t, const char *name)
{
	char path[4352];
	FILE *f;

	if (t->broken_every == 0 || t->broken_left == 0 ||
	    t->anims++ % t->broken_every != t->broken_every / 2)
		return 0;
	t->broken_left--;
	snprintf(path, sizeof path, "%s/%s", t->dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	if (fputs(tree_broken_text, f) < 0) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) != 0 ? -errno : 1;
}

static uint32_t tree_rand(struct tree *t)
{
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	return (uint32_t)(t->rng >> 16);
}

/* A number in lo..hi. */
static uint32_t tree_pick(struct tree *t, uint32_t lo, uint32_t hi)
{
	return lo + tree_rand(t) % (hi - lo + 1);
}

/* Count a file just written: its size, and as an asset of `format`
 * (-1: a companion). */
static int tree_count(struct tree *t, const char *name, int format)
{
	char path[4352];
	struct stat sb;

	snprintf(path, sizeof path, "%s/%s", t->dir, name);
	if (stat(path, &sb) < 0)
		return -errno;
	t->st->files++;
	t->st->bytes += (uint64_t)sb.st_size;
	if (format >= 0) {
		t->st->assets++;
		t->st->by_format[format]++;
	}
	return 0;
}

/* A character as id exports it: its mesh and `anims` anims. */
static int tree_md5(struct tree *t, uint32_t scale, uint32_t anims)
{
	uint32_t joints = tree_pick(t, 8, 40);
	char name[64];
	int rc = md5_synth_write_mesh(t->dir, "body", joints);

	if (rc == 0)
		rc = tree_count(t, "body.md5mesh", TREE_MD5MESH);
	if (rc == 0)
		tree_list(t, "md5mesh", "body.md5mesh", NULL);
	for (uint32_t i = 0; rc == 0 && i < anims; i++) {
		snprintf(name, sizeof name, "move%u", i);
		rc = md5_synth_write_anim(t->dir, name, joints, tree_pick(t, 6, 30) * scale, 24);
		if (rc == 0) {
			strcat(name, ".md5anim");
			rc = tree_maybe_break(t, name);
		}
		if (rc >= 0) {
			if (rc == 1)
				tree_list(t, "broken", name, NULL);
			else
				tree_list(t, "md5anim", name, "body.md5mesh");
			rc = tree_count(t, name, TREE_MD5ANIM);
		}
	}
	return rc;
}

static int tree_camera(struct tree *t, uint32_t scale)
{
	uint32_t cuts[2] = { 0 };
	struct camera_gen g = { .frames = tree_pick(t, 20, 120) * scale, .rate = 24, .cuts = cuts };
	char path[4352];
	FILE *f;
	int rc;

	if (tree_rand(t) % 2) {
		cuts[0] = g.frames / 2;
		g.cut_count = 1;
	}
	snprintf(path, sizeof path, "%s/shot.md5camera", t->dir);
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	rc = camera_gen_write(f, &g);
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0)
		tree_list(t, "md5camera", "shot.md5camera", NULL);
	return rc < 0 ? rc : tree_count(t, "shot.md5camera", TREE_MD5CAMERA);
}

/* A .x rig as text: a chain of `bones` frames, a box skinned to each, and
 * a looping AnimationSet of `keys` rotation keys a bone. */
static char *tree_x_text(uint32_t bones, uint32_t keys)
{
	static const int quads[6][4] = { { 0, 1, 3, 2 }, { 4, 6, 7, 5 }, { 0, 4, 5, 1 },
					 { 2, 3, 7, 6 }, { 0, 2, 6, 4 }, { 1, 5, 7, 3 } };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		abort();
	fprintf(f, "xof 0303txt 0032\nAnimTicksPerSecond {\n 30;\n}\n");
	/* A chain: each bone's frame inside the one before. */
	for (uint32_t i = 0; i < bones; i++)
		fprintf(f, "Frame b%u {\n FrameTransformMatrix {\n  1.0,0.0,0.0,0.0,0.0,1.0,0.0,0.0,"
			   "0.0,0.0,1.0,0.0,0.0,%.1f,0.0,1.0;;\n }\n", i, i ? 1.0 : 0.0);
	for (uint32_t i = 0; i < bones; i++)
		fprintf(f, "}\n");
	fprintf(f, "Frame body {\n Mesh skin {\n  %u;\n", 8 * bones);
	for (uint32_t b = 0; b < bones; b++)
		for (int c = 0; c < 8; c++)
			fprintf(f, "  %.4f;%.4f;%.4f;%s\n", c & 4 ? 0.3 : -0.3,
				b + 0.5 + (c & 2 ? 0.4 : -0.4), c & 1 ? 0.3 : -0.3,
				b == bones - 1 && c == 7 ? ";" : ",");
	fprintf(f, "  %u;\n", 6 * bones);
	for (uint32_t b = 0; b < bones; b++)
		for (int q = 0; q < 6; q++)
			fprintf(f, "  4;%u,%u,%u,%u;%s\n", 8 * b + quads[q][0], 8 * b + quads[q][1],
				8 * b + quads[q][2], 8 * b + quads[q][3],
				b == bones - 1 && q == 5 ? ";" : ",");
	fprintf(f, "  XSkinMeshHeader { 2; 4; %u; }\n", bones);
	for (uint32_t b = 0; b < bones; b++) {
		fprintf(f, "  SkinWeights {\n   \"b%u\";\n   8;\n   ", b);
		for (int c = 0; c < 8; c++)
			fprintf(f, "%u%s", 8 * b + c, c == 7 ? ";\n   " : ",");
		for (int c = 0; c < 8; c++)
			fprintf(f, "1.0%s", c == 7 ? ";\n   " : ",");
		fprintf(f, "1.0,0.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,0.0,1.0,0.0,0.0,%.1f,0.0,1.0;;\n  }\n",
			-(double)b);
	}
	fprintf(f, " }\n}\nAnimationSet loop {\n");
	for (uint32_t b = 0; b < bones; b++) {
		fprintf(f, " Animation {\n  { b%u }\n  AnimationKey {\n   0;\n   %u;\n", b, keys);
		for (uint32_t k = 0; k < keys; k++) {
			double a = 0.3 * sin(6.2831853 * k / (keys > 1 ? keys - 1 : 1) + b * 0.37);

			fprintf(f, "   %u;4;%.6f,0.0,0.0,%.6f;;%s\n", 10 * k, cos(a / 2), -sin(a / 2),
				k == keys - 1 ? ";" : ",");
		}
		fprintf(f, "  }\n }\n");
	}
	fprintf(f, "}\n");
	if (fclose(f) != 0)
		abort();
	return text;
}

static int tree_x(struct tree *t, uint32_t scale)
{
	static const enum x_encoding_kind encodings[3] = { XENC_TEXT, XENC_BINARY32,
							   XENC_BINARY32_MSZIP };
	uint32_t bones = tree_pick(t, 3, 40), keys = tree_pick(t, 4, 40) * scale;
	char *text = tree_x_text(bones, keys);
	unsigned char *bytes = NULL;
	size_t len = 0;
	char path[4352];
	FILE *f;
	int rc = 0;

	if (x_reencode(text, encodings[tree_rand(t) % 3], &bytes, &len) != 0)
		abort();
	free(text);
	snprintf(path, sizeof path, "%s/rig.x", t->dir);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(bytes, 1, len, f) != len)
		rc = -errno;
	if (f != NULL && fclose(f) != 0 && rc == 0)
		rc = -errno;
	free(bytes);
	if (rc == 0)
		tree_list(t, "x", "rig.x", NULL);
	return rc < 0 ? rc : tree_count(t, "rig.x", TREE_X);
}

static int tree_m2(struct tree *t, uint32_t scale)
{
	uint32_t version = tree_rand(t) % 2 ? 264 : 256;
	struct m2w_file f;
	char name[64];
	int rc;

	m2w_synth_version(&f, version, tree_pick(t, 8, 40), tree_pick(t, 1, 6),
			  tree_pick(t, 3, 10) * scale, 1);
	rc = m2w_write_files(&f, t->dir, "model") < 0 ? -EIO : 0;
	if (rc == 0)
		rc = tree_count(t, "model.m2", TREE_M2);
	for (uint32_t i = 0; rc == 0 && i < f.companion_count; i++) {
		snprintf(name, sizeof name, "model%s", f.companions[i].suffix);
		rc = tree_count(t, name, -1);
	}
	if (rc == 0 && f.companion_count > 0)
		snprintf(name, sizeof name, "model%s", f.companions[0].suffix);
	if (rc == 0)
		tree_list(t, "m2", "model.m2", f.companion_count > 0 ? name : NULL);
	m2w_file_free(&f);
	return rc;
}

int asset_tree_write(const char *dir, uint32_t count, uint32_t seed,
		     struct asset_tree_stats *stats)
{
	return asset_tree_write_listed(dir, count, seed, 0, NULL, stats);
}

int asset_tree_write_listed(const char *dir, uint32_t count, uint32_t seed, uint32_t broken,
			    FILE *manifest, struct asset_tree_stats *stats)
{
	struct tree t = { .rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed << 17 | 1), .st = stats,
			  .manifest = manifest, .broken_left = broken };
	char folder[3072], rel[64];

	memset(stats, 0, sizeof *stats);
	/* About 40 % of the assets are md5anims: spread the broken over them. */
	if (broken > 0)
		t.broken_every = count * 2 / 5 / broken > 1 ? count * 2 / 5 / broken : 1;
	t.rel = rel;
	for (uint32_t c = 0; stats->assets < count; c++) {
		/* One character in 40 is ten times longer. */
		uint32_t scale = tree_rand(&t) % 40 == 0 ? 10 : 1, kind = tree_rand(&t) % 100;
		int rc;

		if (c % TREE_FOLDER_CHARACTERS == 0) {
			snprintf(folder, sizeof folder, "%s/group%03u", dir, c / TREE_FOLDER_CHARACTERS);
			if (mkdir(folder, 0755) < 0 && errno != EEXIST)
				return -errno;
			stats->folders++;
		}
		snprintf(t.dir, sizeof t.dir, "%s/char%05u", folder, c);
		snprintf(rel, sizeof rel, "group%03u/char%05u", c / TREE_FOLDER_CHARACTERS, c);
		if (mkdir(t.dir, 0755) < 0 && errno != EEXIST)
			return -errno;
		stats->folders++;
		/* By characters: half are MD5 (a mesh and four anims on
		 * average: 10 % and 40 % of the assets), the rest one file
		 * each, weighted to make 30 % .x, 15 % M2, 5 % md5camera. */
		if (kind < 17)
			rc = tree_md5(&t, scale, tree_pick(&t, 2, 6));
		else if (kind < 67)
			rc = tree_x(&t, scale);
		else if (kind < 92)
			rc = tree_m2(&t, scale);
		else
			rc = tree_camera(&t, scale);
		if (rc < 0)
			return rc;
	}
	return 0;
}
