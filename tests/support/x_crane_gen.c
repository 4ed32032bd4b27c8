#include "tests/support/x_crane_gen.h"

#include <math.h>

#define CRANE_BONES 3
#define CRANE_KEYS 9            /* over 120 ticks at 60 per second */

struct crane_bone {
	const char *name;
	float at[3];            /* translation from the parent frame */
	float half[3];          /* the bone's box, centred half way along +Y */
	float len;
};

static const struct crane_bone bones[CRANE_BONES] = {
	{ "Base", { 0, 0, 0 }, { 3, 2, 3 }, 4 },
	{ "Boom", { 0, 4, 0 }, { 1, 6, 1 }, 12 },
	{ "Hook", { 0, 12, 0 }, { 0.5f, 1.5f, 0.5f }, 3 },
};

/* A row-vector translation matrix, as FrameTransformMatrix writes it. */
static void crane_matrix(FILE *f, float x, float y, float z)
{
	fprintf(f, "1.0,0.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,0.0,1.0,0.0,%.6f,%.6f,%.6f,1.0;;\n", x, y,
		z);
}

static void crane_frames(FILE *f, int i)
{
	fprintf(f, "Frame %s {\n FrameTransformMatrix {\n  ", bones[i].name);
	crane_matrix(f, bones[i].at[0], bones[i].at[1], bones[i].at[2]);
	fprintf(f, " }\n");
	if (i + 1 < CRANE_BONES)
		crane_frames(f, i + 1);
	fprintf(f, "}\n");
}

/* Bind-pose position of bone i's origin (translations only). */
static float crane_bind_y(int i)
{
	float y = 0;

	for (int k = 0; k <= i; k++)
		y += bones[k].at[1];
	return y;
}

static void crane_mesh(FILE *f)
{
	/* Eight corners per box; quads as 4-corner faces (the importer fans
	 * them into triangles). */
	static const int quads[6][4] = { { 0, 1, 3, 2 }, { 4, 6, 7, 5 }, { 0, 4, 5, 1 },
					 { 2, 3, 7, 6 }, { 0, 2, 6, 4 }, { 1, 5, 7, 3 } };

	fprintf(f, "Frame Body {\n Mesh Crane {\n  %d;\n", 8 * CRANE_BONES);
	for (int b = 0; b < CRANE_BONES; b++) {
		float cy = crane_bind_y(b) + bones[b].len / 2;

		for (int c = 0; c < 8; c++)
			fprintf(f, "  %.6f;%.6f;%.6f;%s\n", c & 4 ? bones[b].half[0] : -bones[b].half[0],
				cy + (c & 2 ? bones[b].half[1] : -bones[b].half[1]),
				c & 1 ? bones[b].half[2] : -bones[b].half[2],
				b == CRANE_BONES - 1 && c == 7 ? ";" : ",");
	}
	fprintf(f, "  %d;\n", 6 * CRANE_BONES);
	for (int b = 0; b < CRANE_BONES; b++)
		for (int q = 0; q < 6; q++)
			fprintf(f, "  4;%d,%d,%d,%d;%s\n", 8 * b + quads[q][0], 8 * b + quads[q][1],
				8 * b + quads[q][2], 8 * b + quads[q][3],
				b == CRANE_BONES - 1 && q == 5 ? ";" : ",");
	fprintf(f, "  XSkinMeshHeader { 1; 1; %d; }\n", CRANE_BONES);
	for (int b = 0; b < CRANE_BONES; b++) {
		fprintf(f, "  SkinWeights {\n   \"%s\";\n   8;\n   ", bones[b].name);
		for (int c = 0; c < 8; c++)
			fprintf(f, "%d%s", 8 * b + c, c == 7 ? ";\n   " : ",");
		for (int c = 0; c < 8; c++)
			fprintf(f, "1.0%s", c == 7 ? ";\n   " : ",");
		/* The offset takes the mesh into the bone's space: the inverse
		 * of the bone's bind pose. */
		crane_matrix(f, 0, -crane_bind_y(b), 0);
		fprintf(f, "  }\n");
	}
	fprintf(f, " }\n}\n");
}

/* A rotation key about an axis, stored w, x, y, z as the conjugate of the
 * rotation it means (.x's convention). */
static void crane_rot_key(FILE *f, int tick, float ax, float ay, float az, float angle, int last)
{
	float s = sinf(angle / 2), c = cosf(angle / 2);

	fprintf(f, "   %d;4;%.6f,%.6f,%.6f,%.6f;;%s\n", tick, c, -ax * s, -ay * s, -az * s,
		last ? ";" : ",");
}

static void crane_animation(FILE *f)
{
	const float pi = 3.14159265f;

	fprintf(f, "AnimationSet swing {\n Animation {\n  { Base }\n  AnimationKey {\n   0;\n   %d;\n",
		CRANE_KEYS);
	for (int k = 0; k < CRANE_KEYS; k++)
		crane_rot_key(f, 15 * k, 0, 1, 0, 2 * pi * (float)k / (CRANE_KEYS - 1),
			      k == CRANE_KEYS - 1);
	fprintf(f, "  }\n }\n Animation {\n  { Boom }\n  AnimationKey {\n   0;\n   %d;\n", CRANE_KEYS);
	for (int k = 0; k < CRANE_KEYS; k++)
		crane_rot_key(f, 15 * k, 0, 0, 1, 0.4f * sinf(2 * pi * (float)k / (CRANE_KEYS - 1)),
			      k == CRANE_KEYS - 1);
	fprintf(f, "  }\n }\n Animation {\n  { Hook }\n  AnimationOptions { 0; 0; }\n"
		   "  AnimationKey {\n   2;\n   %d;\n", CRANE_KEYS);
	for (int k = 0; k < CRANE_KEYS; k++)
		fprintf(f, "   %d;3;0.0,%.6f,0.0;;%s\n", 15 * k,
			12.0f - 3.0f * (1 - cosf(2 * pi * (float)k / (CRANE_KEYS - 1))) / 2,
			k == CRANE_KEYS - 1 ? ";" : ",");
	fprintf(f, "  }\n }\n}\n");
}

int x_crane_write(FILE *f)
{
	fprintf(f, "xof 0303txt 0032\n"
		   "// A crane written by animd's own generator (tests/support/x_crane_gen.c).\n\n"
		   "AnimTicksPerSecond {\n 60;\n}\n\n");
	crane_frames(f, 0);
	crane_mesh(f);
	crane_animation(f);
	return ferror(f) ? -1 : 0;
}
