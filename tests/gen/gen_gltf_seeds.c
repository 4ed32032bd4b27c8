/*
 * gen_gltf_seeds DIR - glTF documents for the fuzzer's starting corpus
 * (make fuzz), written with the tests' own writer (support/gltf_writer.h,
 * support/gltf_scene.h): the skinned, morphed scene of three joints with
 * its LINEAR, STEP and CUBICSPLINE animations as a GLB, as JSON with a
 * data: URI, and as JSON with its .bin in a pack (fuzz_gltf.c: "GLPK", a
 * count, then {length, bytes} blobs: the document, then its buffer files);
 * the same with two weight sets and quantized normals; one joint, two
 * rings.  Every file is named .gltf, whatever it holds: the reader goes
 * by the first bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/gltf_scene.h"

static int put(const char *dir, const char *name, const void *a, size_t an, const void *b,
	       size_t bn)
{
	char path[4096];
	FILE *out;
	int bad;

	snprintf(path, sizeof path, "%s/%s.gltf", dir, name);
	out = fopen(path, "wb");
	if (out == NULL)
		return -1;
	bad = fwrite(a, 1, an, out) != an || (bn > 0 && fwrite(b, 1, bn, out) != bn);
	if (fclose(out) != 0 || bad) {
		fprintf(stderr, "gen_gltf_seeds: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

static void le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16), p[3] = (unsigned char)(v >> 24);
}

static int seeds(const char *dir, const char *name, const struct gltfs_params *p)
{
	struct gltfw *w = gltfs_build(p);
	unsigned char *glb, *pack;
	char *json, fname[256];
	size_t n, jn, bn;
	const unsigned char *bin;
	int rc = 0;

	gltfw_keep(w, true);
	gltfw_glb(w, &glb, &n);
	snprintf(fname, sizeof fname, "%s-glb", name);
	rc |= put(dir, fname, glb, n, NULL, 0);
	free(glb);
	json = gltfw_json(w, GLTFW_EMBEDDED, NULL);
	snprintf(fname, sizeof fname, "%s-embedded", name);
	rc |= put(dir, fname, json, strlen(json), NULL, 0);
	free(json);
	json = gltfw_json(w, GLTFW_EXTERNAL, "x.bin");
	jn = strlen(json);
	bin = gltfw_bin(w, &bn);
	pack = malloc(16 + jn + bn);
	if (pack == NULL)
		return -1;
	memcpy(pack, "GLPK", 4);
	le32(pack + 4, 2);
	le32(pack + 8, (uint32_t)jn);
	memcpy(pack + 12, json, jn);
	le32(pack + 12 + jn, (uint32_t)bn);
	memcpy(pack + 16 + jn, bin, bn);
	snprintf(fname, sizeof fname, "%s-pack", name);
	rc |= put(dir, fname, pack, 16 + jn + bn, NULL, 0);
	free(pack);
	free(json);
	gltfw_free(w);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct gltfs_params small = { 3, 3, 1, 4, 1.0f, false };
	static const struct gltfs_params sets = { 3, 4, 2, 3, 1.0f, true };
	static const struct gltfs_params tiny = { 1, 2, 1, 2, 0.5f, false };

	if (argc != 2) {
		fprintf(stderr, "usage: gen_gltf_seeds DIR\n");
		return 2;
	}
	return seeds(argv[1], "scene", &small) | seeds(argv[1], "sets", &sets) |
	       seeds(argv[1], "tiny", &tiny) ? 1 : 0;
}
