/*
 * row_matrix.h - D3DX's row-vector 4x4 matrices, as a .x file writes them
 * (translation in elements 12-14, v' = v * M, Combined = Local * Parent):
 * what the .x tests compute independently of the importer.  Header-only.
 */
#ifndef ANIMD_TEST_ROW_MATRIX_H
#define ANIMD_TEST_ROW_MATRIX_H

#include <string.h>

#include "daemon/anim/math3d.h"

/* out = a * b (out may alias either). */
static inline void row_mul(const float *a, const float *b, float *out)
{
	float r[16];

	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			r[4 * i + j] = 0;
			for (int k = 0; k < 4; k++)
				r[4 * i + j] += a[4 * i + k] * b[4 * k + j];
		}
	memcpy(out, r, sizeof r);
}

/* The point v through m: (x y z 1) * m. */
static inline vec3 row_apply(const float *m, vec3 v)
{
	return vec3_make(v.x * m[0] + v.y * m[4] + v.z * m[8] + m[12],
			 v.x * m[1] + v.y * m[5] + v.z * m[9] + m[13],
			 v.x * m[2] + v.y * m[6] + v.z * m[10] + m[14]);
}

#endif
