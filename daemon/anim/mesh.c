#include "daemon/anim/mesh.h"

#include <math.h>
#include <stdlib.h>

/*
 * Both spaces reduce to the same sum, v = sum w * (mats[joint] * pos): the
 * caller picks model matrices (joint space) or skinning matrices (bind
 * space).  Influences are trusted to name joints the matrices cover; the
 * loaders check that once.
 */
void mesh_skin_positions(const struct mesh *m, const mat34 *mats, vec3 *out)
{
	const struct mesh_influence *inf = m->influences;
	const uint32_t *first = m->first_influence;

	for (uint32_t v = 0; v < m->vertex_count; v++) {
		float x = 0.0f, y = 0.0f, z = 0.0f;

		for (uint32_t i = first[v]; i < first[v + 1]; i++) {
			const float (*a)[4] = mats[inf[i].joint].m;
			vec3 p = inf[i].pos;
			float w = inf[i].weight;

			x += w * (a[0][0] * p.x + a[0][1] * p.y + a[0][2] * p.z + a[0][3]);
			y += w * (a[1][0] * p.x + a[1][1] * p.y + a[1][2] * p.z + a[1][3]);
			z += w * (a[2][0] * p.x + a[2][1] * p.y + a[2][2] * p.z + a[2][3]);
		}
		out[v] = vec3_make(x, y, z);
	}
}

/*
 * Normals go through the inverse transpose of the vertex's blended matrix
 * B = sum w * mats[joint].  The cofactor matrix of B is det(B) times that
 * inverse transpose, so after renormalising only the sign of det matters
 * (a mirroring matrix flips it).  Meshes without normals, or in joint
 * space, get zero vectors.
 */
void mesh_skin_normals(const struct mesh *m, const mat34 *mats, vec3 *out)
{
	const struct mesh_influence *inf = m->influences;
	const uint32_t *first = m->first_influence;

	for (uint32_t v = 0; v < m->vertex_count; v++) {
		float b[3][3] = { { 0 } };
		vec3 n, r;
		float c[3][3], det, len;

		if (!m->normals || m->space != MESH_BIND_SPACE) {
			out[v] = vec3_make(0.0f, 0.0f, 0.0f);
			continue;
		}
		for (uint32_t i = first[v]; i < first[v + 1]; i++) {
			const float (*a)[4] = mats[inf[i].joint].m;
			float w = inf[i].weight;

			for (int row = 0; row < 3; row++)
				for (int col = 0; col < 3; col++)
					b[row][col] += w * a[row][col];
		}
		c[0][0] = b[1][1] * b[2][2] - b[1][2] * b[2][1];
		c[0][1] = b[1][2] * b[2][0] - b[1][0] * b[2][2];
		c[0][2] = b[1][0] * b[2][1] - b[1][1] * b[2][0];
		c[1][0] = b[0][2] * b[2][1] - b[0][1] * b[2][2];
		c[1][1] = b[0][0] * b[2][2] - b[0][2] * b[2][0];
		c[1][2] = b[0][1] * b[2][0] - b[0][0] * b[2][1];
		c[2][0] = b[0][1] * b[1][2] - b[0][2] * b[1][1];
		c[2][1] = b[0][2] * b[1][0] - b[0][0] * b[1][2];
		c[2][2] = b[0][0] * b[1][1] - b[0][1] * b[1][0];
		det = b[0][0] * c[0][0] + b[0][1] * c[0][1] + b[0][2] * c[0][2];
		n = m->normals[v];
		r = vec3_make(c[0][0] * n.x + c[0][1] * n.y + c[0][2] * n.z,
			      c[1][0] * n.x + c[1][1] * n.y + c[1][2] * n.z,
			      c[2][0] * n.x + c[2][1] * n.y + c[2][2] * n.z);
		len = sqrtf(r.x * r.x + r.y * r.y + r.z * r.z);
		if (!(len > 0.0f) || !isfinite(len)) {
			out[v] = vec3_make(0.0f, 0.0f, 0.0f);
			continue;
		}
		if (det < 0.0f)
			len = -len;
		out[v] = vec3_scale(r, 1.0f / len);
	}
}

void mesh_free(struct mesh *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->material);
	free(m->first_influence);
	free(m->influences);
	free(m->triangles);
	free(m->uvs);
	free(m->normals);
	free(m);
}
