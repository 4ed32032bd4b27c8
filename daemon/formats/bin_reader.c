/*
 * bin_reader.c - the checked half of bin_reader.h: scalar reads, arrays,
 * and the messages that say what did not fit.
 */
#include "daemon/formats/bin_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

void bin_init(struct bin_reader *r, const void *data, size_t len, struct diag *d)
{
	r->data = data;
	r->len = len;
	r->base = 0;
	r->prefix = "";
	r->d = d;
}

int bin_verror(const struct bin_reader *r, uint64_t off, const char *fmt, va_list ap)
{
	char msg[DIAG_MSG_MAX];

	vsnprintf(msg, sizeof msg, fmt, ap);
	diag_at_offset(r->d, r->base + off, "%s%s", r->prefix, msg);
	return -EINVAL;
}

int bin_error(const struct bin_reader *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = bin_verror(r, off, fmt, ap);
	va_end(ap);
	return rc;
}

/* A scalar of n bytes at off, or the error saying it is cut off. */
static const unsigned char *bin_scalar(const struct bin_reader *r, uint64_t off, unsigned n,
				       const char *what)
{
	if (bin_fits(r, off, n))
		return r->data + off;
	bin_error(r, off, "%s needs %u bytes at 0x%" PRIx64 ", but the data ends at 0x%" PRIx64,
		  what, n, r->base + off, r->base + r->len);
	return NULL;
}

int bin_u8(const struct bin_reader *r, uint64_t off, uint8_t *out, const char *what)
{
	const unsigned char *p = bin_scalar(r, off, 1, what);

	if (p == NULL)
		return -EINVAL;
	*out = p[0];
	return 0;
}

int bin_u16(const struct bin_reader *r, uint64_t off, uint16_t *out, const char *what)
{
	const unsigned char *p = bin_scalar(r, off, 2, what);

	if (p == NULL)
		return -EINVAL;
	*out = bin_le16(p);
	return 0;
}

int bin_i16(const struct bin_reader *r, uint64_t off, int16_t *out, const char *what)
{
	const unsigned char *p = bin_scalar(r, off, 2, what);

	if (p == NULL)
		return -EINVAL;
	*out = bin_les16(p);
	return 0;
}

int bin_u32(const struct bin_reader *r, uint64_t off, uint32_t *out, const char *what)
{
	const unsigned char *p = bin_scalar(r, off, 4, what);

	if (p == NULL)
		return -EINVAL;
	*out = bin_le32(p);
	return 0;
}

int bin_i32(const struct bin_reader *r, uint64_t off, int32_t *out, const char *what)
{
	const unsigned char *p = bin_scalar(r, off, 4, what);

	if (p == NULL)
		return -EINVAL;
	*out = bin_les32(p);
	return 0;
}

int bin_f32(const struct bin_reader *r, uint64_t off, float *out, const char *what)
{
	const unsigned char *p = bin_scalar(r, off, 4, what);

	if (p == NULL)
		return -EINVAL;
	*out = bin_lef32(p);
	return 0;
}

int bin_array_error(const struct bin_reader *r, uint64_t at, uint32_t count, uint32_t offset,
		    uint32_t size, const char *what)
{
	uint64_t end = r->base + (uint64_t)offset + (uint64_t)count * size;

	if (size == 1)
		return bin_error(r, at, "%s: %" PRIu32 " bytes at 0x%" PRIx64 " would end at 0x%"
				 PRIx64 ", but the data ends at 0x%" PRIx64, what, count,
				 r->base + offset, end, r->base + r->len);
	return bin_error(r, at, "%s: %" PRIu32 " x %" PRIu32 " bytes at 0x%" PRIx64
			 " would end at 0x%" PRIx64 ", but the data ends at 0x%" PRIx64, what,
			 count, size, r->base + offset, end, r->base + r->len);
}

int bin_array(const struct bin_reader *r, uint64_t at, uint32_t count, uint32_t offset,
	      uint32_t size, const unsigned char **out, const char *what)
{
	*out = NULL;
	if (count == 0)
		return 0;
	if (!bin_array_fits(r, offset, count, size))
		return bin_array_error(r, at, count, offset, size, what);
	*out = r->data + offset;
	return 0;
}
