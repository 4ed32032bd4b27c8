/*
 * m2_skin.c - a view kept in its own NAMEnn.skin file (264 and later):
 * "SKIN", then the five {count, offset} arrays and the largest bone count
 * of an inline view, every offset relative to the .skin's start, the
 * data after its 48-byte header (wowdev.wiki M2/.skin; WMVx's
 * ModelViewM2 for 264; from 265 an array of shadow batches follows, and
 * real files start their data after 64 bytes).  Checked as an inline
 * view, against the model's vertices; errors are located in the .skin.
 */
#include "daemon/formats/m2/m2_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

int m2_attach_skin(struct m2_model *m, uint32_t i, const void *data, size_t len, struct diag *d,
		   struct diag_notes *notes)
{
	uint32_t header = m->layout->skin_header_bytes;
	struct m2_ctx c;
	struct m2_view v;
	int rc;

	if (!m->layout->external_views || i >= m->view_count)
		return -EINVAL;
	memset(&c, 0, sizeof c);
	memset(&v, 0, sizeof v);
	bin_init(&c.r, data, len, d);
	c.m = m;
	c.l = m->layout;
	c.notes = notes;
	c.header_bytes = header;
	c.budget = (uint64_t)len * M2_SHARE_FACTOR + M2_SHARE_SLACK;
	if (len < 4 || memcmp(data, "SKIN", 4) != 0)
		return m2_error(&c, 0, "not a .skin file: it does not start with \"SKIN\"");
	if (len < header)
		return m2_error(&c, len, "the file ends at 0x%zx, inside the 0x%x-byte .skin header",
				len, header);
	rc = m2_view_decode(&c, 4, i, &v);
	if (rc == 0 && header > 48) {
		/* 265 and later: shadow batches, which animd does not read. */
		struct m2_block shadow;

		rc = m2_array(&c, 48, 1, &shadow, "view %" PRIu32 " shadow batches", i);
	}
	if (rc < 0)
		return rc;
	v.offset = 0;
	m->views[i] = v;
	return 0;
}
