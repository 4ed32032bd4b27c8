/* A small animated, skinned, morphed glTF scene (gltf_scene.h). */
#include "tests/support/gltf_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *need(void *p)
{
	if (p == NULL) {
		fprintf(stderr, "gltf_scene: out of memory\n");
		abort();
	}
	return p;
}

#define SEG 1.0f        /* joint spacing along y */

/* The chain's nodes: node 0 the root, node 1 + j joint j, node 1 + J the
 * mesh.  Joint j sits SEG above its parent. */
static void scene_nodes(struct gltfw *w, uint32_t J)
{
	gltfw_add(w, "nodes", "{\"name\": \"root\", \"children\": [1, %u]}", J + 1);
	for (uint32_t j = 0; j < J; j++) {
		if (j + 1 < J)
			gltfw_add(w, "nodes", "{\"name\": \"bone%u\", \"translation\": [0, %g, 0], "
				  "\"children\": [%u]}", j, j ? (double)SEG : 0.0, j + 2);
		else
			gltfw_add(w, "nodes", "{\"name\": \"bone%u\", \"translation\": [0, %g, 0]}", j,
				  j ? (double)SEG : 0.0);
	}
	gltfw_add(w, "nodes", "{\"name\": \"tube\", \"mesh\": 0, \"skin\": 0}");
	gltfw_add(w, "scenes", "{\"nodes\": [0]}");
	gltfw_set(w, "scene", "0");
}

static void scene_skin(struct gltfw *w, uint32_t J)
{
	float *ibm = need(calloc((size_t)J * 16, sizeof *ibm));
	char joints[16384];
	size_t o = 0;

	for (uint32_t j = 0; j < J; j++) {
		float *m = ibm + 16 * (size_t)j;

		m[0] = m[5] = m[10] = m[15] = 1;
		m[13] = -(float)j * SEG;
		o += (size_t)snprintf(joints + o, sizeof joints - o, "%s%u", j ? ", " : "", j + 1);
	}
	gltfw_add(w, "skins", "{\"joints\": [%s], \"inverseBindMatrices\": %d, \"skeleton\": 1}",
		  joints, gltfw_floats(w, ibm, J, "MAT4"));
	free(ibm);
}

static void scene_mesh(struct gltfw *w, const struct gltfs_params *p)
{
	uint32_t R = p->rings, V = R * 8, J = p->joints, T = (R - 1) * 8 * 2;
	float *pos = need(malloc((size_t)V * 3 * sizeof *pos));
	float *nrm = need(malloc((size_t)V * 3 * sizeof *nrm));
	float *w0 = need(calloc((size_t)V * 4, sizeof *w0)), *w1 = need(calloc((size_t)V * 4, sizeof *w1));
	uint32_t *j0 = need(calloc((size_t)V * 4, sizeof *j0)), *j1 = need(calloc((size_t)V * 4, sizeof *j1));
	uint32_t *idx = need(malloc((size_t)T * 3 * sizeof *idx));
	float *d0 = need(calloc((size_t)V * 3, sizeof *d0));
	uint32_t sparse_idx[8];
	float sparse_val[24];
	float height = (float)(J > 1 ? J - 1 : 1) * SEG;
	int ap, an, aj0, aw0, aj1 = -1, aw1 = -1, ai, ad0, ad1, an0;

	for (uint32_t r = 0; r < R; r++) {
		float y = height * (float)r / (float)(R - 1), f = y / SEG;
		uint32_t lo = (uint32_t)f < J ? (uint32_t)f : J - 1, hi = lo + 1 < J ? lo + 1 : lo;
		float t = f - (float)lo;

		for (uint32_t k = 0; k < 8; k++) {
			uint32_t v = r * 8 + k;
			float a = (float)k * 0.78539816f;

			pos[3 * v] = 0.25f * cosf(a);
			pos[3 * v + 1] = y;
			pos[3 * v + 2] = 0.25f * sinf(a);
			nrm[3 * v] = cosf(a);
			nrm[3 * v + 1] = 0;
			nrm[3 * v + 2] = sinf(a);
			j0[4 * v] = lo;
			w0[4 * v] = p->sets == 2 ? 1 - t : 1 - t;
			if (p->sets == 2) {
				j1[4 * v] = hi;
				w1[4 * v] = t;
			} else {
				j0[4 * v + 1] = hi;
				w0[4 * v + 1] = t;
			}
			d0[3 * v] = 0.1f * cosf(a) * (float)r / (float)R;
			d0[3 * v + 2] = 0.1f * sinf(a) * (float)r / (float)R;
		}
	}
	for (uint32_t r = 0, t = 0; r + 1 < R; r++)
		for (uint32_t k = 0; k < 8; k++) {
			uint32_t a = r * 8 + k, b = r * 8 + (k + 1) % 8, c = a + 8, d = b + 8;

			idx[3 * t] = a, idx[3 * t + 1] = c, idx[3 * t + 2] = b, t++;
			idx[3 * t] = b, idx[3 * t + 1] = c, idx[3 * t + 2] = d, t++;
		}
	for (uint32_t k = 0; k < 8; k++) {
		sparse_idx[k] = (R - 1) * 8 + k;
		sparse_val[3 * k] = 0;
		sparse_val[3 * k + 1] = 0.5f;
		sparse_val[3 * k + 2] = 0;
	}
	ap = gltfw_floats(w, pos, V, "VEC3");
	an = p->quantized ? gltfw_accessor(w, nrm, V, "VEC3", 5120, true, 4)
			  : gltfw_accessor(w, nrm, V, "VEC3", 5126, false, 16);
	aj0 = gltfw_uints(w, j0, V, "VEC4", J > 255 ? 5123 : 5121);
	aw0 = gltfw_accessor(w, w0, V, "VEC4", 5121, true, 0);
	if (p->sets == 2) {
		aj1 = gltfw_uints(w, j1, V, "VEC4", 5123);
		aw1 = gltfw_floats(w, w1, V, "VEC4");
	}
	ai = gltfw_uints(w, idx, T * 3, "SCALAR", V > 65535 ? 5125 : 5123);
	ad0 = gltfw_floats(w, d0, V, "VEC3");
	ad1 = gltfw_sparse(w, NULL, V, "VEC3", 8, sparse_idx, V > 255 ? 5123 : 5121, sparse_val);
	an0 = gltfw_sparse(w, NULL, V, "VEC3", 1, sparse_idx, V > 255 ? 5123 : 5121, sparse_val);
	if (p->sets == 2)
		gltfw_add(w, "meshes", "{\"name\": \"tube\", \"weights\": [0, 0.25], \"extras\": "
			  "{\"targetNames\": [\"fat\", \"tall\"]}, \"primitives\": [{\"attributes\": "
			  "{\"POSITION\": %d, \"NORMAL\": %d, \"JOINTS_0\": %d, \"WEIGHTS_0\": %d, "
			  "\"JOINTS_1\": %d, \"WEIGHTS_1\": %d}, \"indices\": %d, \"targets\": "
			  "[{\"POSITION\": %d, \"NORMAL\": %d}, {\"POSITION\": %d}]}]}", ap, an, aj0, aw0,
			  aj1, aw1, ai, ad0, an0, ad1);
	else
		gltfw_add(w, "meshes", "{\"name\": \"tube\", \"weights\": [0, 0.25], \"extras\": "
			  "{\"targetNames\": [\"fat\", \"tall\"]}, \"primitives\": [{\"attributes\": "
			  "{\"POSITION\": %d, \"NORMAL\": %d, \"JOINTS_0\": %d, \"WEIGHTS_0\": %d}, "
			  "\"indices\": %d, \"targets\": [{\"POSITION\": %d, \"NORMAL\": %d}, "
			  "{\"POSITION\": %d}]}]}", ap, an, aj0, aw0, ai, ad0, an0, ad1);
	free(pos);
	free(nrm);
	free(w0);
	free(w1);
	free(j0);
	free(j1);
	free(idx);
	free(d0);
}

/* The animations (gltf_scene.h). */
static void scene_animations(struct gltfw *w, const struct gltfs_params *p)
{
	uint32_t K = (uint32_t)(p->seconds * (float)p->rate) + 1, J = p->joints;
	float *times = need(malloc((size_t)K * sizeof *times));
	float *rot = need(malloc((size_t)K * 4 * 3 * sizeof *rot));
	float *tr = need(malloc((size_t)K * 3 * 3 * sizeof *tr));
	float *wt = need(malloc((size_t)K * 2 * 3 * sizeof *wt));
	char samplers[1 << 16], channels[1 << 16];
	int in;

	for (uint32_t k = 0; k < K; k++)
		times[k] = (float)k / (float)p->rate;
	in = gltfw_floats(w, times, K, "SCALAR");
	for (int kind = 0; kind < 2; kind++) {
		size_t so = 0, co = 0;

		for (uint32_t j = 0; j < J; j++) {
			int out;

			for (uint32_t k = 0; k < K; k++) {
				float a = 0.4f * sinf(6.2831853f * times[k] / p->seconds + (float)j * 0.7f);
				float *q = kind ? rot + 12 * (size_t)k + 4 : rot + 4 * (size_t)k;

				q[0] = sinf(a * 0.5f) * (j % 2 ? 1.0f : 0.0f);
				q[1] = 0;
				q[2] = sinf(a * 0.5f) * (j % 2 ? 0.0f : 1.0f);
				q[3] = cosf(a * 0.5f);
				if (kind) {
					/* Tangents: some spin. */
					for (int c = 0; c < 4; c++) {
						rot[12 * (size_t)k + c] = 0.1f * (float)(c == 2);
						rot[12 * (size_t)k + 8 + c] = -0.1f * (float)(c == 0);
					}
				}
			}
			out = gltfw_floats(w, rot, K * (kind ? 3 : 1), "VEC4");
			so += (size_t)snprintf(samplers + so, sizeof samplers - so,
					       "%s{\"input\": %d, \"output\": %d, \"interpolation\": \"%s\"}",
					       j ? ", " : "", in, out, kind ? "CUBICSPLINE" : "LINEAR");
			co += (size_t)snprintf(channels + co, sizeof channels - co,
					       "%s{\"sampler\": %u, \"target\": {\"node\": %u, \"path\": "
					       "\"rotation\"}}", j ? ", " : "", j, j + 1);
		}
		for (uint32_t k = 0; k < K; k++) {
			float *t = kind ? tr + 9 * (size_t)k + 3 : tr + 3 * (size_t)k;

			t[0] = 0.2f * sinf(times[k]);
			t[1] = 0;
			t[2] = (float)(k % 3) * 0.05f;
			if (kind)
				for (int c = 0; c < 3; c++) {
					tr[9 * (size_t)k + c] = 0.3f;
					tr[9 * (size_t)k + 6 + c] = -0.2f;
				}
		}
		so += (size_t)snprintf(samplers + so, sizeof samplers - so,
				       ", {\"input\": %d, \"output\": %d, \"interpolation\": \"%s\"}", in,
				       gltfw_floats(w, tr, K * (kind ? 3 : 1), "VEC3"),
				       kind ? "CUBICSPLINE" : "STEP");
		co += (size_t)snprintf(channels + co, sizeof channels - co,
				       ", {\"sampler\": %u, \"target\": {\"node\": 0, \"path\": "
				       "\"translation\"}}", J);
		gltfw_add(w, "animations", "{\"name\": \"%s\", \"samplers\": [%s], \"channels\": [%s]}",
			  kind ? "curl" : "wave", samplers, channels);
	}
	for (int kind = 0; kind < 2; kind++) {
		for (uint32_t k = 0; k < K; k++) {
			float *v = kind ? wt + 6 * (size_t)k + 2 : wt + 2 * (size_t)k;

			v[0] = 0.5f + 0.5f * sinf(times[k] * 2.0f);
			v[1] = (float)(k % 2);
			if (kind) {
				wt[6 * (size_t)k] = 0.5f, wt[6 * (size_t)k + 1] = -1;
				wt[6 * (size_t)k + 4] = 1, wt[6 * (size_t)k + 5] = 0;
			}
		}
		gltfw_add(w, "animations", "{\"name\": \"%s\", \"samplers\": [{\"input\": %d, \"output\": "
			  "%d, \"interpolation\": \"%s\"}], \"channels\": [{\"sampler\": 0, \"target\": "
			  "{\"node\": %u, \"path\": \"weights\"}}]}", kind ? "pulse" : "breathe", in,
			  gltfw_floats(w, wt, K * 2 * (kind ? 3 : 1), "SCALAR"),
			  kind ? "CUBICSPLINE" : "LINEAR", J + 1);
	}
	free(times);
	free(rot);
	free(tr);
	free(wt);
}

struct gltfw *gltfs_build(const struct gltfs_params *p)
{
	struct gltfw *w = gltfw_new();

	scene_nodes(w, p->joints);
	scene_skin(w, p->joints);
	scene_mesh(w, p);
	scene_animations(w, p);
	if (p->quantized) {
		gltfw_set(w, "extensionsUsed", "[\"KHR_mesh_quantization\"]");
		gltfw_set(w, "extensionsRequired", "[\"KHR_mesh_quantization\"]");
	}
	return w;
}
