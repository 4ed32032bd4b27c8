/*
 * m2_view.c - the views kept inside a classic M2 (the "skin" profiles of
 * later versions, 44 bytes here and without their "SKIN" magic): five
 * {count, offset} arrays and the largest bone count of a submesh.  View
 * 0's vertex list and triangle list are what the importer draws, so every
 * entry is checked; the other views' entries are only noted when they
 * name nothing (animd draws none of them); properties, submeshes and
 * texture units are checked for bounds only.
 */
#include "daemon/formats/m2/m2_internal.h"

#include <inttypes.h>

int m2_view_decode(struct m2_ctx *c, uint64_t at, uint32_t i, struct m2_view *v)
{
	const struct m2_model *m = c->m;
	struct m2_block list, corners, props, subs, units;
	int rc;

	v->offset = (uint32_t)at;
	v->submesh_bytes = c->l->submesh_bytes;
	rc = m2_array(c, at, 2, &list, "view %" PRIu32 " vertex list", i);
	if (rc == 0)
		rc = m2_array(c, at + 8, 2, &corners, "view %" PRIu32 " triangle list", i);
	if (rc == 0)
		rc = m2_array(c, at + 16, 4, &props, "view %" PRIu32 " properties", i);
	if (rc == 0)
		rc = m2_array(c, at + 24, v->submesh_bytes, &subs, "view %" PRIu32 " submeshes", i);
	if (rc == 0)
		rc = m2_array(c, at + 32, M2_TEXTURE_UNIT_BYTES, &units,
			      "view %" PRIu32 " texture units", i);
	if (rc < 0)
		return rc;
	rc = m2_spend(c, (uint64_t)list.count * 2 + (uint64_t)corners.count * 2, at);
	if (rc < 0)
		return rc;
	if (corners.count % 3 != 0) {
		if (i == 0)
			return m2_error(c, at + 8, "view %" PRIu32 ": its triangle list has %" PRIu32
					" corners, not a whole number of triangles (3 corners "
					"each)", i, corners.count);
		m2_note(c, at + 8, "view %" PRIu32 ": its triangle list has %" PRIu32 " corners, "
			"not a whole number of triangles (animd draws view 0 only)", i,
			corners.count);
	}
	v->vertex_count = list.count;
	v->vertices = list.data;
	v->triangle_count = corners.count / 3;
	v->corners = corners.data;
	v->property_count = props.count;
	v->properties = props.data;
	v->submesh_count = subs.count;
	v->submeshes = subs.data;
	v->texture_unit_count = units.count;
	v->texture_units = units.data;
	v->bone_count_max = bin_le32(c->r.data + at + 40);
	v->loaded = true;
	for (uint32_t k = 0; k < list.count; k++) {
		uint32_t vi = bin_le16(list.data + (size_t)k * 2);

		if (vi < m->vertex_count)
			continue;
		if (i == 0)
			return m2_error(c, list.offset + (uint64_t)k * 2, "view %" PRIu32 ": vertex "
					"list entry %" PRIu32 " names vertex %" PRIu32 ", but the "
					"model has %" PRIu32 " vertices", i, k, vi, m->vertex_count);
		m2_note(c, list.offset + (uint64_t)k * 2, "view %" PRIu32 ": vertex list entry %"
			PRIu32 " names vertex %" PRIu32 ", but the model has %" PRIu32 " vertices "
			"(animd draws view 0 only)", i, k, vi, m->vertex_count);
		break;
	}
	for (uint32_t k = 0; k < corners.count; k++) {
		uint32_t ci = bin_le16(corners.data + (size_t)k * 2);

		if (ci < list.count)
			continue;
		if (i == 0)
			return m2_error(c, corners.offset + (uint64_t)k * 2, "view %" PRIu32
					": triangle %" PRIu32 " corner %" PRIu32 " names entry %"
					PRIu32 " of the vertex list, which has %" PRIu32, i, k / 3,
					k % 3, ci, list.count);
		m2_note(c, corners.offset + (uint64_t)k * 2, "view %" PRIu32 ": triangle %" PRIu32
			" corner %" PRIu32 " names entry %" PRIu32 " of the vertex list, which has %"
			PRIu32 " (animd draws view 0 only)", i, k / 3, k % 3, ci, list.count);
		break;
	}
	return 0;
}

int m2_view_read(struct m2_ctx *c)
{
	const struct m2_block *b = m2_header_block(c, M2_HDR_VIEWS);
	struct m2_model *m = c->m;

	m->view_count = b->count;
	m->views = m2_alloc(c, b->count, sizeof *m->views);
	if (c->l->external_views)
		return 0;       /* m2_attach_skin */
	for (uint32_t i = 0; i < b->count; i++) {
		int rc = m2_view_decode(c, b->offset + (uint64_t)i * M2_VIEW_BYTES, i, &m->views[i]);

		if (rc < 0)
			return rc;
	}
	return 0;
}

void m2_view_submesh(const struct m2_view *v, uint32_t i, struct m2_submesh *out)
{
	const unsigned char *p = v->submeshes + (size_t)i * v->submesh_bytes;

	out->id = bin_le16(p);
	out->level = bin_le16(p + 2);
	out->vertex_start = bin_le16(p + 4);
	out->vertex_count = bin_le16(p + 6);
	out->corner_start = bin_le16(p + 8);
	out->corner_count = bin_le16(p + 10);
	out->bone_count = bin_le16(p + 12);
	out->bone_start = bin_le16(p + 14);
	out->bone_influences = bin_le16(p + 16);
	out->root_bone = bin_le16(p + 18);
	for (int k = 0; k < 3; k++)
		out->center[k] = bin_lef32(p + 20 + 4 * k);
}
