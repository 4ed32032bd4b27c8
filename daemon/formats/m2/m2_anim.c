/*
 * m2_anim.c - the keys of one sequence kept in NAMEaaaa-vv.anim (264 and
 * later, a sequence without flag 0x20).  Before Legion such a file has no
 * header: it is the raw key data, and each track of the model holds, for
 * that sequence, {count, offset} pairs whose offsets are into it (WoW
 * Model Viewer's Animated::init and WMVx read them so).  Every such
 * array of every track the model decodes is checked against the file as
 * the model's own are; errors are located in the .anim.
 */
#include "daemon/formats/m2/m2_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

int m2_attach_anim(struct m2_model *m, uint32_t s, const void *data, size_t len, struct diag *d,
		   struct diag_notes *notes)
{
	struct m2_ctx c;

	if (!m->layout->per_sequence || s >= m->sequence_count ||
	    m->sequences[s].data != M2_SEQ_DATA_ANIM_MISSING)
		return -EINVAL;
	memset(&c, 0, sizeof c);
	bin_init(&c.r, data, len, d);
	c.m = m;
	c.l = m->layout;
	c.header_bytes = 0;
	c.notes = notes;
	c.budget = (uint64_t)len * M2_SHARE_FACTOR + M2_SHARE_SLACK;
	if (len >= 4 && memcmp(data, "AFM2", 4) == 0) {
		m->sequences[s].data = M2_SEQ_DATA_ANIM_BROKEN;
		return m2_error(&c, 0, "a chunked .anim (\"AFM2\", Legion and later): animd reads "
				"the raw .anim files of version 264");
	}
	for (uint32_t k = 0; k < m->track_count; k++) {
		const struct m2_track *t = m->tracks[k];
		int rc;

		if (t->global_sequence >= 0 || s >= t->seq_count)
			continue;
		rc = m2_track_check_sequence(&c, &c.r, t, s, true);
		if (rc < 0) {
			m->sequences[s].data = M2_SEQ_DATA_ANIM_BROKEN;
			return rc;
		}
	}
	m->sequences[s].data = M2_SEQ_DATA_ANIM;
	m->sequences[s].keys_base = data;
	m->sequences[s].keys_len = len;
	return 0;
}
