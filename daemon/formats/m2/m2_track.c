/*
 * m2_track.c - one animated value (m2.h, struct m2_track), checked by the
 * reader's rule (m2.h, STRICTNESS).  A value track (bones, attachments,
 * emitters feed what animd publishes): the interpolation, the global
 * sequence, the three arrays inside the file, each range a sequence uses
 * inside the keys, at least as many values as timestamps, timestamps that
 * never go back, and (for bone tracks) no NaN or infinity in any key;
 * ranges past the sequences are never read, and fewer ranges than
 * sequences are noted.  An event track (timestamps only): its arrays
 * inside the file, nothing else (its ranges are half-open, its times
 * unordered: m2_event_keys reads them safely whatever they hold).
 *
 * This is the parser's hot loop: a model is mostly keys.  Names for
 * messages are only formatted when something fails.
 */
#include "daemon/formats/m2/m2_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const uint8_t m2_track_value_bytes[] = {
	[M2_VALUE_NONE] = 0,
	[M2_VALUE_FLOAT] = 4,
	[M2_VALUE_VEC3] = 12,
	[M2_VALUE_QUAT] = 16,
	[M2_VALUE_U8] = 1,
	[M2_VALUE_QUAT16] = 8,
};

/* The ranges sequences use (the first `used`) inside the keys, first <=
 * last; a keyless track's ranges are never read, so anything in them is
 * only noted. */
static int m2_track_ranges(struct m2_ctx *c, const struct m2_track *t,
			   const struct m2_block *ranges, uint32_t used, const struct m2_owner *who)
{
	char name[96];

	for (uint32_t s = 0; s < used; s++) {
		const unsigned char *p = ranges->data + (size_t)s * 8;
		uint64_t at = ranges->offset + (uint64_t)s * 8;
		uint32_t first = bin_le32(p), last = bin_le32(p + 4);

		if (t->key_count == 0) {
			if (first != 0 || last != 0)
				m2_note(c, at, "%s: range %" PRIu32 " is %" PRIu32 "..%" PRIu32 ", but "
					"the track has no keys (ignored)",
					m2_owner_name(who, name, sizeof name), s, first, last);
		} else if (first > last) {
			return m2_error(c, at, "%s: range %" PRIu32 " is %" PRIu32 "..%" PRIu32
					": it runs backwards", m2_owner_name(who, name, sizeof name), s,
					first, last);
		} else if (last >= t->key_count) {
			return m2_error(c, at + 4, "%s: range %" PRIu32 " is %" PRIu32 "..%" PRIu32
					", past the track's last key (%" PRIu32 " keys)",
					m2_owner_name(who, name, sizeof name), s, first, last,
					t->key_count);
		}
	}
	return 0;
}

static int m2_track_times(const struct m2_ctx *c, const struct m2_track *t, uint64_t base,
			  const struct m2_owner *who)
{
	uint32_t prev = 0;
	char name[96];

	for (uint32_t k = 0; k < t->key_count; k++) {
		uint32_t ms = bin_le32(t->times + (size_t)k * 4);

		if (ms < prev)
			return m2_error(c, base + (uint64_t)k * 4, "%s: key %" PRIu32 " at %" PRIu32
					" ms comes before key %" PRIu32 " at %" PRIu32 " ms "
					"(timestamps must not go back)",
					m2_owner_name(who, name, sizeof name), k, ms, k - 1, prev);
		prev = ms;
	}
	return 0;
}

static int m2_track_finite(const struct m2_ctx *c, const struct m2_track *t, uint64_t base,
			   const struct m2_owner *who)
{
	static const char *const part[] = { "", " (its in tangent)", " (its out tangent)" };
	size_t floats = (size_t)t->key_count * t->key_bytes / 4;
	char name[96];

	for (size_t i = 0; i < floats; i++) {
		/* All exponent bits set: an infinity or a NaN. */
		if ((bin_le32(t->values + i * 4) & 0x7f800000u) == 0x7f800000u) {
			size_t k = i * 4 / t->key_bytes;
			size_t in_key = i * 4 - k * t->key_bytes;

			return m2_error(c, base + i * 4, "%s: key %zu holds a NaN or an infinity%s",
					m2_owner_name(who, name, sizeof name), k,
					part[in_key / t->value_bytes]);
		}
	}
	return 0;
}

/* The two leading fields, the same in every version. */
static int m2_track_head(struct m2_ctx *c, uint64_t at, enum m2_value_type type, bool finite,
			 const struct m2_owner *who, struct m2_track *t)
{
	const unsigned char *p = c->r.data + at;
	const struct m2_model *m = c->m;
	char name[96];

	memset(t, 0, sizeof *t);
	t->offset = (uint32_t)at;
	t->interpolation = bin_le16(p);
	t->global_sequence = bin_les16(p + 2);
	t->value_type = (uint8_t)type;
	t->value_bytes = m2_track_value_bytes[type];
	t->owner_kind = who->kind;
	t->owner_field = who->field;
	t->owner_index = who->index;
	t->finite = finite && type != M2_VALUE_QUAT16 && type != M2_VALUE_U8 && type != M2_VALUE_NONE;
	if (t->interpolation > M2_INTERP_MAX)
		return m2_error(c, at, "%s: interpolation %u is not 0..3 (0 step, 1 linear, "
				"2 hermite, 3 bezier)", m2_owner_name(who, name, sizeof name),
				t->interpolation);
	t->key_bytes = (uint16_t)(t->value_bytes * (t->interpolation >= M2_INTERP_HERMITE ? 3 : 1));
	if (t->global_sequence < -1)
		return m2_error(c, at + 2, "%s: global sequence %d: it is -1 (none) or a global "
				"sequence", m2_owner_name(who, name, sizeof name),
				t->global_sequence);
	if (t->global_sequence >= 0 && (uint32_t)t->global_sequence >= m->global_sequence_count)
		return m2_error(c, at + 2, "%s: global sequence %d does not exist (the model has %"
				PRIu32 ")", m2_owner_name(who, name, sizeof name),
				t->global_sequence, m->global_sequence_count);
	return 0;
}

static int m2_track_read_ranged(struct m2_ctx *c, uint64_t at, enum m2_value_type type,
				const struct m2_owner *who, struct m2_track *t)
{
	const unsigned char *p = c->r.data + at;
	const struct m2_model *m = c->m;
	struct m2_block ranges, times, values = { 0 };
	uint32_t used;
	char name[96];
	int rc;

	rc = m2_array(c, at + 4, 8, &ranges, "%s %" PRIu32 " %s ranges", who->kind, who->index,
		      who->field);
	if (rc < 0)
		return rc;
	rc = m2_array(c, at + 12, 4, &times, "%s %" PRIu32 " %s timestamps", who->kind,
		      who->index, who->field);
	if (rc < 0)
		return rc;
	t->range_count = ranges.count;
	t->ranges = ranges.data;
	t->key_count = times.count;
	t->times = times.data;
	if (type == M2_VALUE_NONE)
		/* Events: half-open ranges, unordered times; nothing else to
		 * check (m2_event_keys clamps what it reads). */
		return m2_spend(c, (uint64_t)t->range_count * 8 + (uint64_t)t->key_count * 4, at);
	{
		uint32_t n = bin_le32(p + 20);

		if (n < times.count)
			return m2_error(c, at + 20, "%s: %" PRIu32 " timestamps but %" PRIu32 " values "
					"(one value per timestamp)",
					m2_owner_name(who, name, sizeof name), times.count, n);
		rc = m2_array(c, at + 20, t->key_bytes, &values, "%s %" PRIu32 " %s values",
			      who->kind, who->index, who->field);
		if (rc < 0)
			return rc;
		if (n > times.count)
			m2_note(c, at + 20, "%s: %" PRIu32 " values for %" PRIu32 " timestamps: the "
				"values past the last timestamp are ignored",
				m2_owner_name(who, name, sizeof name), n, times.count);
		t->values = values.data;
	}
	/* Range s is sequence s's; real files add trailing ones (nearly
	 * always one {0, 0}), which nothing reads.  A global-sequence track
	 * reads none. */
	used = 0;
	if (t->global_sequence < 0 && ranges.count > 0) {
		used = ranges.count < m->sequence_count ? ranges.count : m->sequence_count;
		if (ranges.count < m->sequence_count)
			m2_note(c, at + 4, "%s: %" PRIu32 " key ranges for %" PRIu32 " sequences: "
				"sequences %" PRIu32 " and after play no key of this track",
				m2_owner_name(who, name, sizeof name), ranges.count,
				m->sequence_count, ranges.count);
	}
	rc = m2_spend(c, (uint64_t)t->range_count * 8 + (uint64_t)t->key_count * (4 + t->key_bytes),
		      at);
	if (rc < 0)
		return rc;
	rc = m2_track_ranges(c, t, &ranges, used, who);
	if (rc == 0)
		rc = m2_track_times(c, t, times.offset, who);
	if (rc == 0 && t->finite && t->key_count > 0)
		rc = m2_track_finite(c, t, values.offset, who);
	return rc;
}

/* The timestamps of one run of keys, non-decreasing: times at buffer
 * offset base of reader r. */
static int m2_track_run_times(const struct m2_ctx *c, const struct bin_reader *r, uint64_t base,
			      uint32_t n, const char *name, uint32_t s)
{
	uint32_t prev = 0;

	for (uint32_t k = 0; k < n; k++) {
		uint32_t ms = bin_le32(r->data + base + (uint64_t)k * 4);

		if (ms < prev)
			return bin_error(r, base + (uint64_t)k * 4, "%s, sequence %" PRIu32 ": key %"
					 PRIu32 " at %" PRIu32 " ms comes before key %" PRIu32 " at %"
					 PRIu32 " ms (timestamps must not go back)", name, s, k, ms,
					 k - 1, prev);
		prev = ms;
	}
	(void)c;
	return 0;
}

/* "bone 3 rotation, sequence 2 values (in this .anim, ...)": only
 * formatted for a message. */
static const char *m2_seq_what(const struct m2_track *t, uint32_t s, int part, bool in_model,
			       char *buf, size_t size)
{
	struct m2_owner who = { t->owner_kind, t->owner_index, t->owner_field };
	char name[96];

	snprintf(buf, size, "%s, sequence %" PRIu32 " %s%s", m2_owner_name(&who, name, sizeof name),
		 s, part == 0 ? "timestamps" : "values",
		 in_model ? "" : " (in this .anim, from the model's track)");
	return buf;
}

int m2_track_check_sequence(struct m2_ctx *c, const struct bin_reader *r, const struct m2_track *t,
			    uint32_t s, bool finite)
{
	const struct m2_model *m = c->m;
	const unsigned char *tp = t->seq_times + (size_t)s * 8;
	uint32_t n = bin_le32(tp), toff = bin_le32(tp + 4), voff = 0;
	uint64_t pair_at = (uint64_t)(tp - m->data);
	bool in_model = r->data == m->data;
	char name[96], what[200];
	struct m2_owner who = { t->owner_kind, t->owner_index, t->owner_field };
	int rc;

	if (n == 0)
		return 0;
	if (t->value_type != M2_VALUE_NONE)
		voff = bin_le32(t->seq_values + (size_t)s * 8 + 4);
	rc = m2_spend(c, (uint64_t)n * (4 + t->key_bytes),
		      in_model ? pair_at : toff < r->len ? toff : r->len);
	if (rc < 0)
		return rc;
	for (int part = 0; part < (t->value_type != M2_VALUE_NONE ? 2 : 1); part++) {
		uint32_t off = part == 0 ? toff : voff;
		uint32_t size = part == 0 ? 4 : t->key_bytes;
		uint64_t here = part == 0 ? pair_at
				: (uint64_t)(t->seq_values + (size_t)s * 8 - m->data);

		if (in_model && off < c->header_bytes && t->value_type != M2_VALUE_NONE)
			return bin_error(r, here, "%s: %" PRIu32 " entries at 0x%" PRIx32 ", inside "
					 "the 0x%x-byte header (data follows the header)",
					 m2_seq_what(t, s, part, in_model, what, sizeof what), n, off,
					 c->header_bytes);
		if (!bin_array_fits(r, off, n, size))
			return bin_array_error(r, in_model ? here : (off < r->len ? off : r->len), n,
					       off, size,
					       m2_seq_what(t, s, part, in_model, what, sizeof what));
	}
	if (t->value_type == M2_VALUE_NONE)
		return 0;       /* events' times: in any order (m2_event_keys) */
	/* Times in order, and (bone tracks) finite keys: the messages' names
	 * are formatted only on failure. */
	{
		uint32_t prev = 0;

		for (uint32_t k = 0; k < n; k++) {
			uint32_t ms = bin_le32(r->data + toff + (uint64_t)k * 4);

			if (ms < prev) {
				rc = m2_track_run_times(c, r, toff, n,
							m2_owner_name(&who, name, sizeof name), s);
				return rc < 0 ? rc : -EINVAL;
			}
			prev = ms;
		}
	}
	if (finite && t->finite) {
		size_t floats = (size_t)n * t->key_bytes / 4;

		for (size_t i = 0; i < floats; i++)
			if ((bin_le32(r->data + voff + i * 4) & 0x7f800000u) == 0x7f800000u)
				return bin_error(r, voff + i * 4, "%s, sequence %" PRIu32 ": key %zu "
						 "holds a NaN or an infinity",
						 m2_owner_name(&who, name, sizeof name), s,
						 i * 4 / t->key_bytes);
	}
	return 0;
}

/* 264 and later: interpolation, global sequence, then two arrays of
 * per-sequence {count, offset} pairs (one for events, which have no
 * values).  Pair s is sequence s's; pairs past the sequences are never
 * read (a sequence past the pairs plays pair 0: m2_track_sequence_keys). */
static int m2_track_read_split(struct m2_ctx *c, uint64_t at, enum m2_value_type type,
			       const struct m2_owner *who, struct m2_track *t)
{
	const struct m2_model *m = c->m;
	struct m2_block times, values = { 0 };
	uint32_t used;
	char name[96];
	int rc;

	rc = m2_array(c, at + 4, 8, &times, "%s %" PRIu32 " %s timestamps", who->kind, who->index,
		      who->field);
	if (rc < 0)
		return rc;
	used = t->global_sequence >= 0 ? (times.count > 0 ? 1 : 0)
	       : times.count < m->sequence_count ? times.count : m->sequence_count;
	if (type != M2_VALUE_NONE) {
		rc = m2_array(c, at + 12, 8, &values, "%s %" PRIu32 " %s values", who->kind,
			      who->index, who->field);
		if (rc < 0)
			return rc;
		if (values.count < used)
			return m2_error(c, at + 12, "%s: %" PRIu32 " arrays of timestamps but %" PRIu32
					" of values (one of each per sequence)",
					m2_owner_name(who, name, sizeof name), times.count,
					values.count);
	}
	rc = m2_spend(c, (uint64_t)times.count * 16, at);
	if (rc < 0)
		return rc;
	t->seq_count = used;
	t->seq_times = times.data;
	t->seq_values = values.data;
	for (uint32_t s = 0; s < used; s++) {
		const unsigned char *tp = times.data + (size_t)s * 8;
		bool in_model = t->global_sequence >= 0
			|| (m->sequences[s].flags & M2_SEQ_IN_MODEL) != 0;

		if (type != M2_VALUE_NONE && bin_le32(tp) > bin_le32(values.data + (size_t)s * 8))
			return m2_error(c, values.offset + (uint64_t)s * 8, "%s, sequence %" PRIu32
					": %" PRIu32 " timestamps but %" PRIu32 " values (one value "
					"per timestamp)", m2_owner_name(who, name, sizeof name), s,
					bin_le32(tp), bin_le32(values.data + (size_t)s * 8));
		if (!in_model)
			continue;       /* in an .anim (m2_attach_anim) */
		rc = m2_track_check_sequence(c, &c->r, t, s, true);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int m2_track_read(struct m2_ctx *c, uint64_t at, enum m2_value_type type, bool finite,
		  const struct m2_owner *who, struct m2_track *t)
{
	int rc = m2_track_head(c, at, type, finite, who, t);

	if (rc < 0)
		return rc;
	if (c->track_slots > c->m->track_count)
		c->m->tracks[c->m->track_count++] = t;
	return c->l->per_sequence ? m2_track_read_split(c, at, type, who, t)
				  : m2_track_read_ranged(c, at, type, who, t);
}

/* The first key in [lo, hi) whose time is above ms (after_equal: at or
 * above). */
static uint32_t m2_track_bound(const struct m2_track *t, uint32_t lo, uint32_t hi, uint32_t ms,
			       bool after_equal)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t tm = m2_track_time(t, mid);

		if (after_equal ? tm < ms : tm <= ms)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void m2_track_keys(const struct m2_model *m, const struct m2_track *t, uint32_t s,
		   uint32_t *first, uint32_t *end)
{
	const struct m2_sequence *seq;
	uint32_t lo, hi, a, b;

	*first = 0;
	*end = t->key_count;
	if (t->key_count == 0 || t->global_sequence >= 0 || t->range_count == 0)
		return;
	s = m->sequences[s].alias_target;
	if (s >= t->range_count) {
		*end = 0;       /* a sequence past the ranges: no key */
		return;
	}
	seq = &m->sequences[s];
	m2_track_range(t, s, &lo, &hi);
	hi++;
	/* Times are in order, so the window is one run of the range. */
	a = m2_track_bound(t, lo, hi, seq->start_ms, true);
	b = m2_track_bound(t, a, hi, seq->end_ms, false);
	if (a < b) {
		lo = a;
		hi = b;
	}
	*first = lo;
	*end = hi;
}

/* 264 and later: which pair sequence s plays of t, and in which buffer
 * (NULL: its keys are not loaded). */
static uint32_t m2_track_pair(const struct m2_model *m, const struct m2_track *t, uint32_t s,
			      const unsigned char **base)
{
	if (t->global_sequence >= 0) {
		*base = m->data;
		return 0;
	}
	if (s >= t->seq_count) {
		/* Past the pairs: pair 0, as the client plays a track written
		 * once for every sequence. */
		*base = m->sequence_count > 0 ? m->sequences[0].keys_base : NULL;
		return 0;
	}
	*base = m->sequences[s].keys_base;
	return s;
}

void m2_track_sequence_keys(const struct m2_model *m, const struct m2_track *t, uint32_t s,
			    struct m2_keys *out)
{
	const unsigned char *base;
	uint32_t idx;

	memset(out, 0, sizeof *out);
	if (!m->layout->per_sequence) {
		uint32_t first, end;

		if (t->key_count == 0)
			return;
		m2_track_keys(m, t, s, &first, &end);
		if (end <= first)
			return;
		out->count = end - first;
		out->times = t->times + (size_t)first * 4;
		out->values = t->values != NULL ? t->values + (size_t)first * t->key_bytes : NULL;
		if (t->global_sequence < 0)
			out->start_ms = m->sequences[m->sequences[s].alias_target].start_ms;
		return;
	}
	idx = m2_track_pair(m, t, m->sequences[s].alias_target, &base);
	if (idx >= t->seq_count || base == NULL)
		return;
	out->count = bin_le32(t->seq_times + (size_t)idx * 8);
	if (out->count == 0)
		return;
	out->times = base + bin_le32(t->seq_times + (size_t)idx * 8 + 4);
	if (t->seq_values != NULL)
		out->values = base + bin_le32(t->seq_values + (size_t)idx * 8 + 4);
}

void m2_event_keys(const struct m2_model *m, const struct m2_track *t, uint32_t s,
		   struct m2_keys *out)
{
	memset(out, 0, sizeof *out);
	if (!m->layout->per_sequence) {
		const struct m2_sequence *seq = &m->sequences[s];
		uint32_t first, end;

		if (t->key_count == 0)
			return;
		if (t->global_sequence >= 0) {
			first = 0;
			end = t->key_count;
		} else if (t->range_count == 0) {
			/* No ranges: the keys inside the window, wherever they
			 * are (the times need not be ordered: the first run of
			 * keys inside it). */
			for (first = 0; first < t->key_count; first++) {
				uint32_t ms = m2_track_time(t, first);

				if (ms >= seq->start_ms && ms <= seq->end_ms)
					break;
			}
			for (end = first; end < t->key_count; end++) {
				uint32_t ms = m2_track_time(t, end);

				if (ms < seq->start_ms || ms > seq->end_ms)
					break;
			}
		} else if (s < t->range_count) {
			m2_track_range(t, s, &first, &end);
			if (end > t->key_count)
				end = t->key_count;
		} else {
			return;
		}
		if (end <= first)
			return;
		out->count = end - first;
		out->times = t->times + (size_t)first * 4;
		out->start_ms = t->global_sequence < 0 ? seq->start_ms : 0;
		return;
	}
	{
		const unsigned char *base;
		uint32_t idx = m2_track_pair(m, t, s, &base);

		if (idx >= t->seq_count || base == NULL)
			return;
		out->count = bin_le32(t->seq_times + (size_t)idx * 8);
		if (out->count > 0)
			out->times = base + bin_le32(t->seq_times + (size_t)idx * 8 + 4);
	}
}
