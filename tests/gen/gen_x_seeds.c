/*
 * gen_x_seeds DIR - binary and MSZIP-compressed .x files for the fuzzer's
 * starting corpus (make fuzz), written token by token with the tests' own
 * writer: a two-bone arm with a skinned mesh, normals, texture
 * coordinates and an animation set, as a 32-bit and a 64-bit binary file
 * and as a compressed one.  (The text fixtures in tests/fixtures/x seed
 * the text reader.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/x_bin_writer.h"

static const uint8_t frame_guid[16] = { 0x46, 0xab, 0x82, 0x3d, 0xda, 0x62, 0xcf, 0x11,
					0xab, 0x39, 0x00, 0x20, 0xaf, 0x71, 0xe4, 0x33 };

static void seed_matrix(struct xbw *w, double x, double y, double z)
{
	const double m[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1 };

	xbw_open(w, "FrameTransformMatrix", NULL);
	xbw_floats(w, 16, m);
	xbw_close(w);
}

static void seed_body(struct xbw *w)
{
	static const double verts[12] = { 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0 };
	static const uint32_t faces[9] = { 2, 3, 0, 1, 2, 3, 1, 3, 2 };
	static const double normals[3] = { 0, 0, -1 };
	static const uint32_t nfaces[9] = { 2, 3, 0, 0, 0, 3, 0, 0, 0 };
	static const double uvs[8] = { 0, 0, 0, 0.33, 0, 0.66, 0, 1 };

	xbw_template(w, "Frame", frame_guid);
	xbw_open(w, "AnimTicksPerSecond", NULL);
	xbw_ints(w, 1, (const uint32_t[]){ 30 });
	xbw_close(w);
	xbw_open(w, "Frame", "Upper");
	xbw_guid(w, frame_guid);
	seed_matrix(w, 0, 0, 0);
	xbw_open(w, "Frame", "Lower");
	seed_matrix(w, 0, 2, 0);
	xbw_close(w);
	xbw_close(w);
	xbw_open(w, "Frame", "Body");
	xbw_open(w, "Mesh", "Strip");
	xbw_ints(w, 1, (const uint32_t[]){ 4 });
	xbw_floats(w, 12, verts);
	xbw_ints(w, 9, faces);
	xbw_open(w, "MeshNormals", NULL);
	xbw_ints(w, 1, (const uint32_t[]){ 1 });
	xbw_floats(w, 3, normals);
	xbw_ints(w, 9, nfaces);
	xbw_close(w);
	xbw_open(w, "MeshTextureCoords", NULL);
	xbw_ints(w, 1, (const uint32_t[]){ 4 });
	xbw_floats(w, 8, uvs);
	xbw_close(w);
	xbw_open(w, "XSkinMeshHeader", NULL);
	xbw_ints(w, 3, (const uint32_t[]){ 1, 2, 2 });
	xbw_close(w);
	for (int b = 0; b < 2; b++) {
		const double off[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, b ? -2 : 0, 0, 1 };

		xbw_open(w, "SkinWeights", NULL);
		xbw_string(w, b ? "Lower" : "Upper", XBW_SEMICOLON);
		xbw_ints(w, 3, (const uint32_t[]){ 2, 2u * b, 2u * b + 1 });
		xbw_floats(w, 2, (const double[]){ 1, 1 });
		xbw_floats(w, 16, off);
		xbw_close(w);
	}
	xbw_close(w);
	xbw_close(w);
	xbw_open(w, "AnimationSet", "wave");
	xbw_open(w, "Animation", NULL);
	xbw_ref(w, "Lower", NULL);
	xbw_open(w, "AnimationOptions", NULL);
	xbw_ints(w, 2, (const uint32_t[]){ 0, 1 });
	xbw_close(w);
	xbw_open(w, "AnimationKey", NULL);
	xbw_ints(w, 4, (const uint32_t[]){ 0, 2, 0, 4 });
	xbw_floats(w, 4, (const double[]){ 1, 0, 0, 0 });
	xbw_ints(w, 2, (const uint32_t[]){ 30, 4 });
	xbw_floats(w, 4, (const double[]){ 0.70710678, 0, 0, -0.70710678 });
	xbw_close(w);
	xbw_close(w);
	xbw_close(w);
}

static int seed_write(const char *dir, const char *name, const char *header, const void *body,
		      size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(header, 1, 16, f) != 16 || fwrite(body, 1, len, f) != len ||
	    fclose(f) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct xbw w32, w64;
	unsigned char *z = NULL;
	size_t zlen = 0;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_x_seeds DIR\n");
		return 2;
	}
	xbw_init(&w32, 32);
	seed_body(&w32);
	xbw_init(&w64, 64);
	seed_body(&w64);
	/* Small chunks, so the seed has several and the history matters. */
	xbw_mszip(w32.buf, w32.len, 256, &z, &zlen, NULL);
	if (seed_write(argv[1], "seed_bin32.x", "xof 0303bin 0032", w32.buf, w32.len) < 0 ||
	    seed_write(argv[1], "seed_bin64.x", "xof 0302bin 0064", w64.buf, w64.len) < 0 ||
	    seed_write(argv[1], "seed_bzip.x", "xof 0303bzip0032", z, zlen) < 0)
		rc = 1;
	free(z);
	xbw_free(&w32);
	xbw_free(&w64);
	return rc;
}
