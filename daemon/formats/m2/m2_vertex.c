/*
 * m2_vertex.c - the 48-byte vertices: position, four bone weights that
 * sum to 255 (or to 0: a vertex no bone holds; any other sum is noted and
 * skinned as stored, as the game's shader does), four bone indices, a
 * normal and two texture coordinate sets.
 *
 * The bone indices index the bones themselves (WMV and WMVx skin a
 * vertex with bones[vertex.bones[i]]; the bone lookup serves the views'
 * per-submesh palettes).  Only an index whose weight is not 0 takes part
 * in skinning, so only those are checked: writers leave 0 in the unused
 * slots, which is no bone in a model without bones.
 */
#include "daemon/formats/m2/m2_internal.h"

#include <inttypes.h>

int m2_vertex_read(struct m2_ctx *c)
{
	const struct m2_block *b = m2_header_block(c, M2_HDR_VERTICES);
	struct m2_model *m = c->m;

	m->vertex_count = b->count;
	m->vertices = m2_alloc(c, b->count, sizeof *m->vertices);
	for (uint32_t i = 0; i < b->count; i++) {
		const unsigned char *p = b->data + (size_t)i * M2_VERTEX_BYTES;
		struct m2_vertex *v = &m->vertices[i];
		uint64_t at = b->offset + (uint64_t)i * M2_VERTEX_BYTES;
		unsigned sum = 0;

		for (int k = 0; k < 3; k++) {
			v->position[k] = bin_lef32(p + 4 * k);
			v->normal[k] = bin_lef32(p + 20 + 4 * k);
		}
		for (int k = 0; k < 4; k++) {
			v->weights[k] = p[12 + k];
			v->bones[k] = p[16 + k];
			sum += v->weights[k];
		}
		v->uv[0][0] = bin_lef32(p + 32);
		v->uv[0][1] = bin_lef32(p + 36);
		v->uv[1][0] = bin_lef32(p + 40);
		v->uv[1][1] = bin_lef32(p + 44);
		if (sum == 0) {
			m->unweighted_vertex_count++;
			continue;
		}
		if (sum != 255) {
			m->odd_weight_vertex_count++;
			m2_note(c, at + 12, "vertex %" PRIu32 ": weights %u + %u + %u + %u sum to %u, "
				"not 255: skinned as stored, sum (w / 255) * B * v", i,
				v->weights[0], v->weights[1], v->weights[2], v->weights[3], sum);
		}
		for (int k = 0; k < 4; k++)
			if (v->weights[k] > 0 && v->bones[k] >= m->bone_count)
				return m2_error(c, at + 16 + k, "vertex %" PRIu32 ": influence %d "
						"(weight %u) names bone %u, but the model has %" PRIu32
						" bones", i, k, v->weights[k], v->bones[k],
						m->bone_count);
	}
	return 0;
}
