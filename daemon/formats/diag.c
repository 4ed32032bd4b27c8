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
