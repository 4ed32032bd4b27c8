/*
 * mesh.c - a mesh's vertices and normals from model matrices.
 */
#include "daemon/anim/mesh.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void mesh_skin_positions(const struct mesh *m, const mat34 *model, vec3 *out)
{
	const struct mesh_influence *inf = m->influences;
	const uint32_t *first = m->first_influence;

	for (uint32_t v = 0; v < m->vertex_count; v++) {
		float x = 0.0f, y = 0.0f, z = 0.0f;

		for (uint32_t i = first[v]; i < first[v + 1]; i++) {
			const float (*a)[4] = model[inf[i].joint].m;
			vec3 p = inf[i].pos;
			float w = inf[i].weight;

			x += w * (a[0][0] * p.x + a[0][1] * p.y + a[0][2] * p.z + a[0][3]);
			y += w * (a[1][0] * p.x + a[1][1] * p.y + a[1][2] * p.z + a[1][3]);
			z += w * (a[2][0] * p.x + a[2][1] * p.y + a[2][2] * p.z + a[2][3]);
		}
		out[v] = vec3_make(x, y, z);
	}
}

void mesh_normal_matrices(uint32_t n, const mat34 *model, mat34 *out)
{
	for (uint32_t j = 0; j < n; j++) {
		const float (*b)[4] = model[j].m;
		float (*c)[4] = out[j].m;
		float det, k;

		/* The cofactor matrix is det times the inverse transpose. */
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
		k = det != 0.0f && isfinite(det) ? 1.0f / det : 1.0f;
		for (int r = 0; r < 3; r++) {
			for (int col = 0; col < 3; col++)
				c[r][col] *= k;
			c[r][3] = 0.0f;
		}
	}
}

static vec3 unit_or_zero(float x, float y, float z)
{
	float len = sqrtf(x * x + y * y + z * z);

	if (!(len > 0.0f) || !isfinite(len))
		return vec3_make(0.0f, 0.0f, 0.0f);
	return vec3_make(x / len, y / len, z / len);
}

static void skinned_normals(const struct mesh *m, const mat34 *it, vec3 *out)
{
	const struct mesh_influence *inf = m->influences;
	const uint32_t *first = m->first_influence;

	for (uint32_t v = 0; v < m->vertex_count; v++) {
		float x = 0.0f, y = 0.0f, z = 0.0f;

		for (uint32_t i = first[v]; i < first[v + 1]; i++) {
			const float (*a)[4] = it[inf[i].joint].m;
			vec3 n = inf[i].normal;
			float w = inf[i].weight;

			x += w * (a[0][0] * n.x + a[0][1] * n.y + a[0][2] * n.z);
			y += w * (a[1][0] * n.x + a[1][1] * n.y + a[1][2] * n.z);
			z += w * (a[2][0] * n.x + a[2][1] * n.y + a[2][2] * n.z);
		}
		out[v] = unit_or_zero(x, y, z);
	}
}

/* Doom 3's way: (c - a) x (b - a) per triangle, unnormalised so that a
 * larger triangle weighs more, summed at its corners' groups. */
static void derived_normals(const struct mesh *m, const vec3 *p, vec3 *out)
{
	const uint32_t *group = m->normal_group;

	memset(out, 0, (size_t)m->vertex_count * sizeof *out);
	for (uint32_t t = 0; t < m->triangle_count; t++) {
		const uint32_t *c = m->triangles[t];
		vec3 d0 = vec3_sub(p[c[1]], p[c[0]]), d1 = vec3_sub(p[c[2]], p[c[0]]);
		vec3 n = vec3_make(d1.y * d0.z - d1.z * d0.y, d1.z * d0.x - d1.x * d0.z,
				   d1.x * d0.y - d1.y * d0.x);

		for (int k = 0; k < 3; k++) {
			vec3 *o = &out[group != NULL ? group[c[k]] : c[k]];

			*o = vec3_add(*o, n);
		}
	}
	for (uint32_t v = 0; v < m->vertex_count; v++) {
		uint32_t g = group != NULL ? group[v] : v;

		/* A group's first vertex comes first: it is final when read. */
		out[v] = g == v ? unit_or_zero(out[v].x, out[v].y, out[v].z) : out[g];
	}
}

void mesh_skin_normals(const struct mesh *m, const mat34 *normal_mats, const vec3 *positions,
		       vec3 *out)
{
	switch (m->normals) {
	case MESH_NORMALS_SKINNED:
		skinned_normals(m, normal_mats, out);
		break;
	case MESH_NORMALS_DERIVED:
		derived_normals(m, positions, out);
		break;
	default:
		memset(out, 0, (size_t)m->vertex_count * sizeof *out);
		break;
	}
}

/* A coordinate's bits with -0 as 0: two positions without a NaN compare
 * equal exactly when their three keys do. */
static uint32_t position_key(float f)
{
	uint32_t u;

	f += 0.0f;
	memcpy(&u, &f, sizeof u);
	return u;
}

static int same_position(vec3 a, vec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

/*
 * Each vertex's group is the lowest-numbered vertex at its bind position
 * (a NaN position is a group of its own).  Vertices go into an
 * open-addressed table of positions in index order, so the first one a
 * position finds is its group: linear in the vertices, where sorting them
 * took a fifth of an md5mesh load.
 */
int mesh_group_normals(struct mesh *m, const vec3 *bind_positions)
{
	uint32_t n = m->vertex_count;
	size_t size = 16, mask;
	uint32_t *table;

	while (size < 2 * (size_t)n)
		size *= 2;
	mask = size - 1;
	free(m->normal_group);
	m->normal_group = malloc(((size_t)n + 1) * sizeof *m->normal_group);
	/* Entries are vertex + 1, 0 for an empty one. */
	table = calloc(size, sizeof *table);
	if (m->normal_group == NULL || table == NULL) {
		free(table);
		return -ENOMEM;
	}
	for (uint32_t v = 0; v < n; v++) {
		vec3 p = bind_positions[v];
		size_t h;

		m->normal_group[v] = v;
		if (isnan(p.x) || isnan(p.y) || isnan(p.z))
			continue;
		h = (size_t)(position_key(p.x) * 0x9E3779B1u ^ position_key(p.y) * 0x85EBCA77u ^
			     position_key(p.z) * 0xC2B2AE3Du);
		h ^= h >> 15;
		for (h &= mask; table[h] != 0; h = (h + 1) & mask)
			if (same_position(bind_positions[table[h] - 1], p))
				break;
		if (table[h] != 0)
			m->normal_group[v] = table[h] - 1;
		else
			table[h] = v + 1;
	}
	free(table);
	return 0;
}

static size_t mesh_str_bytes(const char *s)
{
	return s != NULL ? strlen(s) + 1 : 0;
}

size_t mesh_bytes(const struct mesh *m)
{
	size_t v = (size_t)m->vertex_count + 1, t = (size_t)m->triangle_count + 1;
	size_t n = sizeof *m + mesh_str_bytes(m->name) + mesh_str_bytes(m->material) +
		   mesh_str_bytes(m->unread);

	n += m->first_influence != NULL ? v * sizeof *m->first_influence : 0;
	n += m->influences != NULL ? ((size_t)m->influence_count + 1) * sizeof *m->influences : 0;
	n += m->triangles != NULL ? t * sizeof *m->triangles : 0;
	n += m->uvs != NULL ? v * sizeof *m->uvs : 0;
	n += m->normal_group != NULL ? v * sizeof *m->normal_group : 0;
	n += m->triangle_material != NULL ? t * sizeof *m->triangle_material : 0;
	n += m->colors != NULL ? v * sizeof *m->colors : 0;
	if (m->morph != NULL) {
		const struct mesh_morph *mo = m->morph;
		size_t deltas = (size_t)mo->target_count * m->vertex_count + 1;

		n += sizeof *mo;
		n += mo->positions != NULL ? deltas * sizeof *mo->positions : 0;
		n += mo->normals != NULL ? deltas * sizeof *mo->normals : 0;
		n += mo->to_joint != NULL ? ((size_t)mo->joint_count + 1) * sizeof *mo->to_joint : 0;
		n += mo->to_joint_normal != NULL
		     ? ((size_t)mo->joint_count + 1) * sizeof *mo->to_joint_normal : 0;
	}
	if (m->materials != NULL) {
		n += ((size_t)m->material_count + 1) * sizeof *m->materials;
		for (uint32_t i = 0; i < m->material_count; i++)
			n += mesh_str_bytes(m->materials[i].name) +
			     mesh_str_bytes(m->materials[i].texture);
	}
	return n;
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
	free(m->normal_group);
	for (uint32_t i = 0; i < m->material_count; i++) {
		free(m->materials[i].name);
		free(m->materials[i].texture);
	}
	free(m->materials);
	free(m->triangle_material);
	free(m->colors);
	free(m->unread);
	if (m->morph != NULL) {
		free(m->morph->positions);
		free(m->morph->normals);
		free(m->morph->to_joint);
		free(m->morph->to_joint_normal);
		free(m->morph);
	}
	free(m);
}
