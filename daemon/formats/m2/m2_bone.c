/*
 * m2_bone.c - the skeleton: the bones (108 bytes; 112 from 260 with a
 * name hash; 88 from 264: parent, flags, three tracks, pivot), an order with every parent before its children (files
 * may list a child first), cycles and self-parents rejected by name, and
 * the two lookups that index bones (noted when odd: nothing animd
 * publishes reads them).
 */
#include "daemon/formats/m2/m2_internal.h"

#include <inttypes.h>
#include <stdio.h>

/* depth while the order is being worked out. */
#define M2_BONE_UNSEEN UINT32_MAX
#define M2_BONE_ON_PATH (UINT32_MAX - 1)

static int m2_bone_decode(struct m2_ctx *c, const unsigned char *p, uint32_t i,
			  struct m2_bone *b)
{
	uint64_t at = (uint64_t)(p - c->r.data);
	uint32_t n = c->m->bone_count;
	struct m2_owner who = { "bone", i, "translation" };
	uint32_t tracks = c->l->bone_tracks_at, step = c->l->track_bytes;
	int rc;

	b->offset = (uint32_t)at;
	b->key_bone_id = bin_les32(p);
	b->flags = bin_le32(p + 4);
	b->parent = bin_les16(p + 8);
	b->submesh = bin_le16(p + 10);
	b->depth = M2_BONE_UNSEEN;
	if (b->parent < -1)
		return m2_error(c, at + 8, "bone %" PRIu32 " names parent %d: a parent is -1 (none) "
				"or a bone", i, b->parent);
	if (b->parent >= 0 && (uint32_t)b->parent >= n)
		return m2_error(c, at + 8, "bone %" PRIu32 " names parent %d, but the model has %"
				PRIu32 " bones", i, b->parent, n);
	if (b->parent >= 0 && (uint32_t)b->parent == i)
		return m2_error(c, at + 8, "bone %" PRIu32 " names itself as its parent", i);
	if (c->l->bone_tracks_at > 12)
		b->name_hash = bin_le32(p + 12);
	rc = m2_track_read(c, at + tracks, M2_VALUE_VEC3, true, &who, &b->translation);
	if (rc < 0)
		return rc;
	who.field = "rotation";
	rc = m2_track_read(c, at + tracks + step, c->l->quat16 ? M2_VALUE_QUAT16 : M2_VALUE_QUAT,
			   true, &who, &b->rotation);
	if (rc < 0)
		return rc;
	who.field = "scale";
	rc = m2_track_read(c, at + tracks + 2 * step, M2_VALUE_VEC3, true, &who, &b->scale);
	if (rc < 0)
		return rc;
	for (uint32_t k = 0; k < 3; k++) {
		uint32_t pv = tracks + 3 * step + 4 * k;

		if ((bin_le32(p + pv) & 0x7f800000u) == 0x7f800000u)
			return m2_error(c, at + pv, "bone %" PRIu32 " pivot: a NaN or an "
					"infinity", i);
		b->pivot[k] = bin_lef32(p + pv);
	}
	return 0;
}

/* "3 -> 7 -> 9 -> 3", the cycle through bone j. */
static void m2_bone_cycle(const struct m2_bone *bones, uint32_t j, char *buf, size_t size)
{
	uint32_t k = j;
	size_t o = (size_t)snprintf(buf, size, "%" PRIu32, j);

	for (int steps = 0; steps < 12 && o < size; steps++) {
		k = (uint32_t)bones[k].parent;
		o += (size_t)snprintf(buf + o, size - o, " -> %" PRIu32, k);
		if (k == j)
			return;
	}
	if (o < size)
		snprintf(buf + o, size - o, " -> ...");
}

/*
 * Depths by walking up from each bone until a root or a bone whose depth
 * is known, then back down the path (kept in `path`): every bone is
 * walked once.  Then bone_order by depth (a counting sort over `count`,
 * depth_max + 1 <= bone_count entries), ties by index, so the order is
 * the same for the same file.
 */
static int m2_bone_order(struct m2_ctx *c, uint32_t *path, uint32_t *count)
{
	struct m2_model *m = c->m;
	struct m2_bone *bones = m->bones;
	uint32_t depth_max = 0;

	for (uint32_t i = 0; i < m->bone_count; i++) {
		uint32_t j = i, n = 0, d;
		char cycle[160];

		while (bones[j].depth == M2_BONE_UNSEEN) {
			bones[j].depth = M2_BONE_ON_PATH;
			path[n++] = j;
			if (bones[j].parent < 0)
				break;
			j = (uint32_t)bones[j].parent;
		}
		if (bones[j].depth == M2_BONE_ON_PATH && bones[j].parent >= 0) {
			m2_bone_cycle(bones, j, cycle, sizeof cycle);
			return m2_error(c, bones[j].offset + 8ull, "bone %" PRIu32 "'s parents loop "
					"back to it: %s", j, cycle);
		}
		if (n == 0)
			continue;       /* bone i was on an earlier path */
		/* path[n - 1] is a root (depth 0) or the child of a known bone. */
		d = bones[path[n - 1]].parent < 0 ? 0 : bones[bones[path[n - 1]].parent].depth + 1;
		for (uint32_t k = n; k-- > 0; d++)
			bones[path[k]].depth = d;
		if (d - 1 > depth_max)
			depth_max = d - 1;
	}
	for (uint32_t d = 0; d <= depth_max; d++)
		count[d] = 0;
	for (uint32_t i = 0; i < m->bone_count; i++)
		count[bones[i].depth]++;
	for (uint32_t d = 0, sum = 0; d <= depth_max; d++) {
		uint32_t here = count[d];

		count[d] = sum;
		sum += here;
	}
	for (uint32_t i = 0; i < m->bone_count; i++)
		m->bone_order[count[bones[i].depth]++] = i;
	return 0;
}

int m2_bone_read(struct m2_ctx *c)
{
	const struct m2_block *b = m2_header_block(c, M2_HDR_BONES);
	struct m2_model *m = c->m;
	uint32_t *scratch;
	int rc;

	m->bone_count = b->count;
	m->bones = m2_alloc(c, b->count, sizeof *m->bones);
	m->bone_order = m2_alloc(c, b->count, sizeof *m->bone_order);
	scratch = m2_alloc(c, b->count + 1, sizeof *scratch);
	for (uint32_t i = 0; i < b->count; i++) {
		rc = m2_bone_decode(c, b->data + (size_t)i * c->l->bone_bytes, i, &m->bones[i]);
		if (rc < 0)
			return rc;
	}
	/* The order's path reuses bone_order, filled only afterwards. */
	rc = m2_bone_order(c, m->bone_order, scratch);
	if (rc < 0)
		return rc;
	m2_lookup_note(c, &m->key_bone_lookup, 2, true, m->bone_count, "the key-bone lookup",
		       "bone", "bones");
	m2_lookup_note(c, &m->bone_lookup, 2, false, m->bone_count, "the bone lookup", "bone",
		       "bones");
	return 0;
}

const char *m2_bone_billboard(uint32_t flags)
{
	if (flags & M2_BONE_SPHERICAL_BILLBOARD)
		return "spherical";
	if (flags & M2_BONE_CYLINDRICAL_BILLBOARD_X)
		return "cylindrical_x";
	if (flags & M2_BONE_CYLINDRICAL_BILLBOARD_Y)
		return "cylindrical_y";
	if (flags & M2_BONE_CYLINDRICAL_BILLBOARD_Z)
		return "cylindrical_z";
	return NULL;
}
