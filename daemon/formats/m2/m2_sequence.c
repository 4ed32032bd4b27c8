/*
 * m2_sequence.c - the timeline: global sequence lengths, the 68-byte
 * sequences (64 from 264; every field decoded, windows that do not run
 * backwards, from 264 aliases that name sequences and alias chains
 * resolved to the sequence whose keys they play), and the two lookups
 * indexed by animation id.  Next variations and the lookups feed nothing
 * animd publishes: what they name is noted when it is no sequence.
 */
#include "daemon/formats/m2/m2_internal.h"

#include <inttypes.h>
#include <stdio.h>

/* alias_target while chains are being resolved. */
#define M2_SEQ_UNRESOLVED UINT32_MAX
#define M2_SEQ_ON_PATH (UINT32_MAX - 1)

/* Is sequence s an alias in this version (m2.h, M2_SEQ_ALIAS)? */
static bool m2_sequence_is_alias(const struct m2_ctx *c, const struct m2_sequence *s)
{
	return c->l->aliases && (s->flags & M2_SEQ_ALIAS) && !(s->flags & M2_SEQ_IN_MODEL);
}

/* The checks every version shares, on a decoded sequence at file offset
 * at; next and alias are the offsets of those fields in the record. */
static int m2_sequence_check(struct m2_ctx *c, uint64_t at, uint32_t i, const struct m2_sequence *s,
			     uint32_t next, uint32_t alias)
{
	uint32_t n = c->m->sequence_count;

	if (s->next_variation < -1 || (s->next_variation >= 0 && (uint32_t)s->next_variation >= n))
		m2_note(c, at + next, "sequence %" PRIu32 " names sequence %d as its next "
			"variation, but the model has %" PRIu32 " sequences: kept as stored (animd "
			"does not follow variations)", i, s->next_variation, n);
	if (m2_sequence_is_alias(c, s)) {
		if (s->alias_next >= n)
			return m2_error(c, at + alias, "sequence %" PRIu32 " is an alias (flag 0x40) "
					"of sequence %u, but the model has %" PRIu32 " sequences", i,
					s->alias_next, n);
		if (s->alias_next == i)
			return m2_error(c, at + alias, "sequence %" PRIu32 " is an alias (flag 0x40) "
					"of itself", i);
	}
	return 0;
}

/* 264 and later, 64 bytes: a duration where the window was.  The window
 * is then [0, duration]. */
static int m2_sequence_decode_264(struct m2_ctx *c, const unsigned char *p, uint32_t i,
				  struct m2_sequence *s)
{
	uint64_t at = (uint64_t)(p - c->r.data);

	s->id = bin_le16(p);
	s->variation = bin_le16(p + 2);
	s->start_ms = 0;
	s->end_ms = bin_le32(p + 4);
	s->movespeed = bin_lef32(p + 8);
	s->flags = bin_le32(p + 12);
	s->frequency = bin_les16(p + 16);
	s->pad = bin_le16(p + 18);
	s->replay_min = bin_le32(p + 20);
	s->replay_max = bin_le32(p + 24);
	s->blend_ms = bin_le32(p + 28);
	for (int k = 0; k < 3; k++) {
		s->box_min[k] = bin_lef32(p + 32 + 4 * k);
		s->box_max[k] = bin_lef32(p + 44 + 4 * k);
	}
	s->radius = bin_lef32(p + 56);
	s->next_variation = bin_les16(p + 60);
	s->alias_next = bin_le16(p + 62);
	s->alias_target = M2_SEQ_UNRESOLVED;
	return m2_sequence_check(c, at, i, s, 60, 62);
}

static int m2_sequence_decode(struct m2_ctx *c, const unsigned char *p, uint32_t i,
			      struct m2_sequence *s)
{
	uint64_t at = (uint64_t)(p - c->r.data);

	if (c->l->per_sequence)
		return m2_sequence_decode_264(c, p, i, s);
	s->id = bin_le16(p);
	s->variation = bin_le16(p + 2);
	s->start_ms = bin_le32(p + 4);
	s->end_ms = bin_le32(p + 8);
	s->movespeed = bin_lef32(p + 12);
	s->flags = bin_le32(p + 16);
	s->frequency = bin_les16(p + 20);
	s->pad = bin_le16(p + 22);
	s->replay_min = bin_le32(p + 24);
	s->replay_max = bin_le32(p + 28);
	s->blend_ms = bin_le32(p + 32);
	for (int k = 0; k < 3; k++) {
		s->box_min[k] = bin_lef32(p + 36 + 4 * k);
		s->box_max[k] = bin_lef32(p + 48 + 4 * k);
	}
	s->radius = bin_lef32(p + 60);
	s->next_variation = bin_les16(p + 64);
	s->alias_next = bin_le16(p + 66);
	s->alias_target = M2_SEQ_UNRESOLVED;
	if (s->end_ms < s->start_ms)
		return m2_error(c, at + 8, "sequence %" PRIu32 " ends at %" PRIu32 " ms, before it "
				"starts at %" PRIu32 " ms", i, s->end_ms, s->start_ms);
	return m2_sequence_check(c, at, i, s, 64, 66);
}

/* "2 -> 5 -> 2" (at most a dozen steps, then "..."). */
static void m2_sequence_chain(const struct m2_sequence *seq, uint32_t from, char *buf,
			      size_t size)
{
	uint32_t j = from;
	size_t o = (size_t)snprintf(buf, size, "%" PRIu32, from);

	for (int steps = 0; steps < 12 && o < size; steps++) {
		j = seq[j].alias_next;
		o += (size_t)snprintf(buf + o, size - o, " -> %" PRIu32, j);
		if (j == from)
			return;
	}
	if (o < size)
		snprintf(buf + o, size - o, " -> ...");
}

/* Every alias chain ends at a sequence that is no alias.  Linear: a
 * chain is walked once, marked, then every sequence on it is given the
 * end found. */
static int m2_sequence_aliases(struct m2_ctx *c)
{
	struct m2_sequence *seq = c->m->sequences;
	const struct m2_block *b = m2_header_block(c, M2_HDR_SEQUENCES);

	for (uint32_t i = 0; i < c->m->sequence_count; i++) {
		uint32_t j = i, target;
		char chain[160];

		for (;;) {
			if (seq[j].alias_target == M2_SEQ_ON_PATH) {
				m2_sequence_chain(seq, i, chain, sizeof chain);
				return m2_error(c, b->offset + (uint64_t)i * c->l->sequence_bytes +
						c->l->sequence_bytes - 2,
						"sequence %" PRIu32 " is an alias (flag 0x40) whose "
						"chain %s never reaches a sequence that is not an alias",
						i, chain);
			}
			if (seq[j].alias_target != M2_SEQ_UNRESOLVED) {
				target = seq[j].alias_target;
				break;
			}
			if (!m2_sequence_is_alias(c, &seq[j])) {
				seq[j].alias_target = target = j;
				break;
			}
			seq[j].alias_target = M2_SEQ_ON_PATH;
			j = seq[j].alias_next;
		}
		for (j = i; seq[j].alias_target == M2_SEQ_ON_PATH; j = seq[j].alias_next)
			seq[j].alias_target = target;
	}
	return 0;
}

int m2_sequence_read(struct m2_ctx *c)
{
	const struct m2_block *g = m2_header_block(c, M2_HDR_GLOBAL_SEQUENCES);
	const struct m2_block *b = m2_header_block(c, M2_HDR_SEQUENCES);
	struct m2_model *m = c->m;

	m->global_sequence_count = g->count;
	m->global_sequences = m2_alloc(c, g->count, sizeof *m->global_sequences);
	for (uint32_t i = 0; i < g->count; i++)
		m->global_sequences[i] = bin_le32(g->data + (size_t)i * 4);
	m->sequence_count = b->count;
	m->sequences = m2_alloc(c, b->count, sizeof *m->sequences);
	for (uint32_t i = 0; i < b->count; i++) {
		int rc = m2_sequence_decode(c, b->data + (size_t)i * c->l->sequence_bytes, i,
					    &m->sequences[i]);

		if (rc < 0)
			return rc;
	}
	return m2_sequence_aliases(c);
}

void m2_sequence_data(struct m2_ctx *c)
{
	struct m2_model *m = c->m;

	for (uint32_t s = 0; s < m->sequence_count; s++) {
		struct m2_sequence *q = &m->sequences[s];

		q->data = M2_SEQ_DATA_MODEL;
		q->keys_base = m->data;
		q->keys_len = m->data_len;
		if (!c->l->per_sequence || (q->flags & M2_SEQ_IN_MODEL))
			continue;
		q->keys_base = NULL;
		q->keys_len = 0;
		q->data = M2_SEQ_DATA_NONE;
		/* An alias plays its target's keys: its own need nothing. */
		if (q->alias_target != s)
			continue;
		for (uint32_t k = 0; k < m->track_count; k++) {
			const struct m2_track *t = m->tracks[k];

			if (t->global_sequence < 0 && s < t->seq_count &&
			    bin_le32(t->seq_times + (size_t)s * 8) > 0) {
				q->data = M2_SEQ_DATA_ANIM_MISSING;
				break;
			}
		}
	}
}

int m2_sequence_lookups(struct m2_ctx *c)
{
	const struct m2_model *m = c->m;

	m2_lookup_note(c, &m->animation_lookup, 2, true, m->sequence_count,
		       "the animation lookup", "sequence", "sequences");
	/* {fallback animation id, flags}, indexed by animation id: a fallback
	 * is itself an entry of the table.  Real classic files hold junk here
	 * (fallback -404, flags 0x28). */
	m2_lookup_note(c, &m->playable_lookup, 4, true, m->playable_lookup.count,
		       "the playable animation lookup", "fallback entry", "entries in that table");
	return 0;
}
