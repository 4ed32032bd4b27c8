/*
 * gltf_diag.c - where an error or a note is: a JSON pointer found in the
 * document's tokens (once per error, and once per note of a kind not seen
 * yet), made a line and column in a `.gltf`, an offset in a `.glb`; data
 * at fault located in the buffer that holds it.
 */
#include "daemon/formats/gltf/gltf_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *gltf_where_text(const struct gltf_where *w, char *buf, size_t size)
{
	size_t o = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (uint8_t i = 0; i < w->n && o < size; i++) {
		int k = w->seg[i].key != NULL
			? snprintf(buf + o, size - o, "/%s", w->seg[i].key)
			: snprintf(buf + o, size - o, "/%" PRIu32, w->seg[i].index);

		if (k < 0)
			break;
		o += (size_t)k;
	}
	if (w->n == 0)
		snprintf(buf, size, "/");
	return buf;
}

/* Line and column (1-based, bytes) of position pos. */
static void line_col(const char *s, size_t pos, uint32_t *line, uint32_t *col)
{
	uint32_t l = 1;
	size_t start = 0;

	for (size_t i = 0; i < pos; i++)
		if (s[i] == '\n') {
			l++;
			start = i + 1;
		}
	*line = l;
	*col = (uint32_t)(pos - start + 1);
}

/* Where w is: a line and column, or (line 0) an offset in the file. */
static void where_of(struct gltf_ctx *c, const struct gltf_where *w, uint32_t *line, uint32_t *col,
		     uint64_t *offset)
{
	size_t pos = gv_pos(c, gv_locate(c, w));

	*offset = 0;
	*line = *col = 0;
	if (c->m->glb)
		*offset = c->p->text_base + pos;
	else
		line_col(c->p->text, pos, line, col);
}

int gltf_error(struct gltf_ctx *c, const struct gltf_where *w, const char *fmt, ...)
{
	char where[128], msg[DIAG_MSG_MAX];
	uint32_t line, col;
	uint64_t offset;
	va_list ap;

	if (c->d == NULL || c->d->set)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	where_of(c, w, &line, &col, &offset);
	gltf_where_text(w, where, sizeof where);
	if (line > 0)
		diag_at(c->d, line, col, "%s: %s", where, msg);
	else
		diag_at_offset(c->d, offset, "%s: %s", where, msg);
	c->m->error_buffer = -1;
	return -EINVAL;
}

void gltf_note(struct gltf_ctx *c, const struct gltf_where *w, const char *fmt, ...)
{
	struct diag_notes *n = &c->m->notes;
	char where[128], msg[DIAG_MSG_MAX - 130], line_msg[DIAG_MSG_MAX];
	uint32_t line = 0, col = 0;
	uint64_t offset = 0;
	bool seen = false;
	va_list ap;

	for (uint32_t i = 0; i < n->count && !seen; i++)
		seen = n->note[i].kind == fmt;
	if (seen || n->count == DIAG_NOTES_MAX) {
		/* Counted (or dropped): no message, no location needed. */
		diag_note_put(n, fmt, 1, 1, 0, "");
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	where_of(c, w, &line, &col, &offset);
	snprintf(line_msg, sizeof line_msg, "%s: %s", gltf_where_text(w, where, sizeof where), msg);
	diag_note_put(n, fmt, line, col, offset, line_msg);
}

int gltf_data_error(struct gltf_ctx *c, uint32_t buffer, uint64_t offset, const char *fmt, ...)
{
	const struct gltf_buffer *b = &c->m->buffers[buffer];
	char msg[DIAG_MSG_MAX];
	va_list ap;

	if (c->d == NULL || c->d->set)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	switch (b->kind) {
	case GLTF_BUFFER_GLB:
		diag_at_offset(c->d, b->file_offset + offset, "%s", msg);
		c->m->error_buffer = -1;
		break;
	case GLTF_BUFFER_FILE:
		diag_at_offset(c->d, offset, "%s", msg);
		c->m->error_buffer = (int32_t)buffer;
		break;
	default: {
		struct gltf_where w = gw_key(gw_item("buffers", buffer), "uri");

		gltf_error(c, &w, "byte 0x%" PRIx64 " of its data: %s", offset, msg);
		break;
	}
	}
	return -EINVAL;
}
