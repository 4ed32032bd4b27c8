#include "daemon/formats/diag.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

static void diag_vset(struct diag *d, const char *fmt, va_list ap)
{
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	d->set = 1;
}

void diag_at(struct diag *d, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;

	if (d == NULL || d->set)
		return;
	d->line = line;
	d->col = col;
	d->offset = 0;
	va_start(ap, fmt);
	diag_vset(d, fmt, ap);
	va_end(ap);
}

void diag_at_offset(struct diag *d, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (d == NULL || d->set)
		return;
	d->line = 0;
	d->col = 0;
	d->offset = offset;
	va_start(ap, fmt);
	diag_vset(d, fmt, ap);
	va_end(ap);
}

int diag_format(const struct diag *d, const char *file, char *buf, size_t size)
{
	const char *msg = d->set ? d->msg : "unknown error";

	if (d->line > 0)
		return snprintf(buf, size, "%s:%" PRIu32 ":%" PRIu32 ": error: %s",
				file, d->line, d->col, msg);
	return snprintf(buf, size, "%s: offset 0x%" PRIx64 ": error: %s",
			file, d->offset, msg);
}

/* The note of this kind, or a new one (NULL when the list is full). */
static struct diag_note *diag_note_slot(struct diag_notes *n, const char *kind, int *fresh)
{
	*fresh = 0;
	for (uint32_t i = 0; i < n->count; i++)
		if (n->note[i].kind == kind)
			return &n->note[i];
	if (n->count == DIAG_NOTES_MAX)
		return NULL;
	*fresh = 1;
	return &n->note[n->count++];
}

/* The fresh note of this kind, located; NULL when the kind is already
 * kept (counted) or the list is full (dropped). */
static struct diag_note *diag_note_new(struct diag_notes *n, const char *kind, uint32_t line,
				       uint32_t col, uint64_t offset)
{
	struct diag_note *note;
	int fresh;

	if (n == NULL)
		return NULL;
	note = diag_note_slot(n, kind, &fresh);
	if (note == NULL) {
		n->dropped++;
		return NULL;
	}
	if (!fresh) {
		note->more++;
		return NULL;
	}
	note->kind = kind;
	note->line = line;
	note->col = col;
	note->offset = offset;
	note->more = 0;
	return note;
}

static void diag_note_vadd(struct diag_notes *n, uint32_t line, uint32_t col, uint64_t offset,
			   const char *fmt, va_list ap)
{
	struct diag_note *note = diag_note_new(n, fmt, line, col, offset);

	if (note != NULL)
		vsnprintf(note->msg, sizeof note->msg, fmt, ap);
}

void diag_note_put(struct diag_notes *n, const char *kind, uint32_t line, uint32_t col,
		   uint64_t offset, const char *msg)
{
	struct diag_note *note = diag_note_new(n, kind, line, col, offset);

	if (note != NULL)
		snprintf(note->msg, sizeof note->msg, "%s", msg);
}

void diag_note_at(struct diag_notes *n, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_note_vadd(n, line, col, 0, fmt, ap);
	va_end(ap);
}

void diag_note_offset(struct diag_notes *n, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_note_vadd(n, 0, 0, offset, fmt, ap);
	va_end(ap);
}

int diag_note_format(const struct diag_note *n, const char *file, char *buf, size_t size)
{
	char more[48] = "";

	if (n->more > 0)
		snprintf(more, sizeof more, " (and %" PRIu32 " more like it)", n->more);
	if (n->line > 0)
		return snprintf(buf, size, "%s:%" PRIu32 ":%" PRIu32 ": note: %s%s", file, n->line,
				n->col, n->msg, more);
	return snprintf(buf, size, "%s: offset 0x%" PRIx64 ": note: %s%s", file, n->offset,
			n->msg, more);
}
