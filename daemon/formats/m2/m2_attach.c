/*
 * m2_attach.c - what hangs on bones besides emitters: attachment points
 * (48 bytes, 40 from 264: id, bone, position, an on/off track saying whether the
 * attached model animates), their lookup by attachment id, and events
 * (44 bytes, 36 from 264: a four-character id such as "$DTH", data, bone,
 * position, and a track of timestamps alone, each of which fires the
 * event).  Attachments feed the pose (their bone is checked); events feed
 * nothing animd evaluates (their bone and timeline are only noted when
 * odd).
 */
#include "daemon/formats/m2/m2_internal.h"

#include <inttypes.h>
#include <string.h>

static int m2_attach_one(struct m2_ctx *c, const unsigned char *p, uint32_t i,
			 struct m2_attachment *a)
{
	uint64_t at = (uint64_t)(p - c->r.data);
	struct m2_owner who = { "attachment", i, "animate" };

	a->offset = (uint32_t)at;
	a->id = bin_le32(p);
	a->bone = bin_le16(p + 4);
	a->unknown = bin_le16(p + 6);
	for (int k = 0; k < 3; k++)
		a->position[k] = bin_lef32(p + 8 + 4 * k);
	if (a->bone >= c->m->bone_count)
		return m2_error(c, at + 4, "attachment %" PRIu32 " is attached to bone %u, but the "
				"model has %" PRIu32 " bones", i, a->bone, c->m->bone_count);
	return m2_track_read(c, at + 20, M2_VALUE_U8, false, &who, &a->animate);
}

static int m2_attach_event(struct m2_ctx *c, const unsigned char *p, uint32_t i,
			   struct m2_event *e)
{
	uint64_t at = (uint64_t)(p - c->r.data);
	struct m2_owner who = { "event", i, "track" };

	e->offset = (uint32_t)at;
	memcpy(e->id, p, 4);
	e->data = bin_le32(p + 4);
	e->bone = bin_le32(p + 8);
	for (int k = 0; k < 3; k++)
		e->position[k] = bin_lef32(p + 12 + 4 * k);
	if (e->bone >= c->m->bone_count)
		m2_note(c, at + 8, "event %" PRIu32 " is attached to bone %" PRIu32 ", but the model "
			"has %" PRIu32 " bones: it is reported with no joint", i, e->bone,
			c->m->bone_count);
	return m2_track_read(c, at + 24, M2_VALUE_NONE, false, &who, &e->enabled);
}

int m2_attach_read(struct m2_ctx *c)
{
	const struct m2_block *a = m2_header_block(c, M2_HDR_ATTACHMENTS);
	const struct m2_block *e = m2_header_block(c, M2_HDR_EVENTS);
	struct m2_model *m = c->m;
	int rc;

	m->attachment_count = a->count;
	m->attachments = m2_alloc(c, a->count, sizeof *m->attachments);
	for (uint32_t i = 0; i < a->count; i++) {
		rc = m2_attach_one(c, a->data + (size_t)i * c->l->attachment_bytes, i,
				   &m->attachments[i]);
		if (rc < 0)
			return rc;
	}
	m2_lookup_note(c, &m->attachment_lookup, 2, true, m->attachment_count,
		       "the attachment lookup", "attachment", "attachments");
	m->event_count = e->count;
	m->events = m2_alloc(c, e->count, sizeof *m->events);
	for (uint32_t i = 0; i < e->count; i++) {
		rc = m2_attach_event(c, e->data + (size_t)i * c->l->event_bytes, i, &m->events[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}
