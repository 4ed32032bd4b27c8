/*
 * morph.c - morph weights from a clip, and morphed vertices: each vertex's
 * displacement summed over the targets whose weight is not zero, taken
 * into each influence's joint space by that joint's map, then skinned as
 * mesh.c skins.
 */
#include "daemon/anim/morph.h"

#include <math.h>

#include "daemon/anim/clip_sampler.h"

void morph_weights_sample(const float *defaults, uint32_t n, const struct clip *c, int64_t t_ns,
			  float *out)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct track *tr = c != NULL && i < c->weight_count ? &c->weights[i] : NULL;

		out[i] = defaults[i];
		if (tr != NULL && track_has_keys(tr, 1))
			track_eval(tr, clip_track_time(c, tr, t_ns, t_ns), &out[i]);
	}
}

/* Vertex v's displacement by the deltas (target-major) at the weights. */
static vec3 displacement(const struct mesh *m, const vec3 *deltas, const float *w, uint32_t v)
{
	const struct mesh_morph *mo = m->morph;
	float x = 0.0f, y = 0.0f, z = 0.0f;

	for (uint32_t k = 0; k < mo->target_count; k++) {
		const vec3 *d;

		if (w[k] == 0.0f)
			continue;
		d = &deltas[(size_t)k * m->vertex_count + v];
		x += w[k] * d->x;
		y += w[k] * d->y;
		z += w[k] * d->z;
	}
	return vec3_make(x, y, z);
}

static vec3 linear(const mat34 *a, vec3 d)
{
	return vec3_make(a->m[0][0] * d.x + a->m[0][1] * d.y + a->m[0][2] * d.z,
			 a->m[1][0] * d.x + a->m[1][1] * d.y + a->m[1][2] * d.z,
			 a->m[2][0] * d.x + a->m[2][1] * d.y + a->m[2][2] * d.z);
}

void morph_skin_positions(const struct mesh *m, const float *weights, const mat34 *model,
			  vec3 *out)
{
	const struct mesh_morph *mo = m->morph;
	const struct mesh_influence *inf = m->influences;
	const float *w = weights + mo->first_weight;

	for (uint32_t v = 0; v < m->vertex_count; v++) {
		vec3 d = displacement(m, mo->positions, w, v);
		float x = 0.0f, y = 0.0f, z = 0.0f;

		for (uint32_t i = m->first_influence[v]; i < m->first_influence[v + 1]; i++) {
			vec3 p = vec3_add(inf[i].pos, linear(&mo->to_joint[inf[i].joint], d));

			p = mat34_apply(&model[inf[i].joint], p);
			x += inf[i].weight * p.x;
			y += inf[i].weight * p.y;
			z += inf[i].weight * p.z;
		}
		out[v] = vec3_make(x, y, z);
	}
}

void morph_skin_normals(const struct mesh *m, const float *weights, const mat34 *normal_mats,
			vec3 *out)
{
	const struct mesh_morph *mo = m->morph;
	const struct mesh_influence *inf = m->influences;
	const float *w = weights + mo->first_weight;

	for (uint32_t v = 0; v < m->vertex_count; v++) {
		vec3 d = mo->normals != NULL ? displacement(m, mo->normals, w, v)
					     : vec3_make(0.0f, 0.0f, 0.0f);
		float x = 0.0f, y = 0.0f, z = 0.0f, len;

		for (uint32_t i = m->first_influence[v]; i < m->first_influence[v + 1]; i++) {
			vec3 n = vec3_add(inf[i].normal, linear(&mo->to_joint_normal[inf[i].joint], d));

			n = linear(&normal_mats[inf[i].joint], n);
			x += inf[i].weight * n.x;
			y += inf[i].weight * n.y;
			z += inf[i].weight * n.z;
		}
		len = sqrtf(x * x + y * y + z * z);
		out[v] = len > 0.0f && isfinite(len) ? vec3_make(x / len, y / len, z / len)
						      : vec3_make(0.0f, 0.0f, 0.0f);
	}
}
