/*
 * bin_reader.h - bounds-checked little-endian reads for the binary formats
 * (.x binary and MSZIP, M2).  The prefix is bin_.
 *
 * A reader is a view of one buffer: nothing is copied, nothing allocated.
 * Two kinds of access:
 *
 *  - checked: bin_u16(r, off, &v, "what") and friends, and bin_array() for
 *    a {count, offset} x element-size array.  Every size sum is done in 64
 *    bits, so no count or offset a file can hold (both are at most
 *    2^32 - 1) overflows.  A failure returns -EINVAL and records
 *    "offset 0x...: <what> ..." through diag_at_offset;
 *  - unchecked: bin_le16(p) and friends load from a pointer the caller has
 *    already checked (an element of a checked array).  They go through
 *    memcpy, so any alignment is fine, and decode little-endian whatever
 *    the host.
 *
 * Offsets in messages are r->base + the offset in the buffer: a reader of
 * the body of a file whose header was cut off (or of decompressed data)
 * still reports where a person looking at the file would look.  r->prefix
 * goes before every message it records ("" for none).
 */
#ifndef ANIMD_BIN_READER_H
#define ANIMD_BIN_READER_H

#include <endian.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "daemon/formats/diag.h"

struct bin_reader {
	const unsigned char *data;
	size_t len;
	uint64_t base;          /* added to every offset reported */
	const char *prefix;     /* before every message recorded; never NULL */
	struct diag *d;
};

/* A reader of len bytes at data, reporting to d (which may be NULL), with
 * base 0 and no prefix. */
void bin_init(struct bin_reader *r, const void *data, size_t len, struct diag *d);

/* Unchecked loads from memory the caller has checked. */
static inline uint16_t bin_le16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof v);
	return le16toh(v);
}

static inline uint32_t bin_le32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof v);
	return le32toh(v);
}

static inline uint64_t bin_le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof v);
	return le64toh(v);
}

static inline int16_t bin_les16(const unsigned char *p)
{
	return (int16_t)bin_le16(p);
}

static inline int32_t bin_les32(const unsigned char *p)
{
	return (int32_t)bin_le32(p);
}

static inline float bin_lef32(const unsigned char *p)
{
	uint32_t u = bin_le32(p);
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

static inline double bin_lef64(const unsigned char *p)
{
	uint64_t u = bin_le64(p);
	double f;

	memcpy(&f, &u, sizeof f);
	return f;
}

/* True when the n bytes at off lie inside the buffer.  Overflow-proof for
 * any off and n. */
static inline bool bin_fits(const struct bin_reader *r, uint64_t off, uint64_t n)
{
	return off <= r->len && n <= r->len - off;
}

/* True when count elements of size bytes at off lie inside the buffer.
 * count and size must each be below 2^32 (so their product fits in 64
 * bits), which every count and size a file can state is. */
static inline bool bin_array_fits(const struct bin_reader *r, uint64_t off, uint64_t count,
				  uint64_t size)
{
	return bin_fits(r, off, count * size);
}

/* Record an error at buffer offset off (reported as base + off) and return
 * -EINVAL.  The first error recorded in a diag wins (diag.h). */
int bin_error(const struct bin_reader *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int bin_verror(const struct bin_reader *r, uint64_t off, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Checked scalar reads at off: 0 with *out set, or -EINVAL recorded at off
 * as "<what> needs N bytes at 0x.., but the data ends at 0x..". */
int bin_u8(const struct bin_reader *r, uint64_t off, uint8_t *out, const char *what);
int bin_u16(const struct bin_reader *r, uint64_t off, uint16_t *out, const char *what);
int bin_i16(const struct bin_reader *r, uint64_t off, int16_t *out, const char *what);
int bin_u32(const struct bin_reader *r, uint64_t off, uint32_t *out, const char *what);
int bin_i32(const struct bin_reader *r, uint64_t off, int32_t *out, const char *what);
int bin_f32(const struct bin_reader *r, uint64_t off, float *out, const char *what);

/*
 * An array of count elements of size bytes starting at offset, its count
 * stored at `at` (where an error is located: that is the field a person
 * must fix).  0 with *out pointing at the first element (NULL when count
 * is 0, whatever the offset), or -EINVAL recorded as
 * "<what>: N x S bytes at 0x.. would end at 0x.., but the data ends at
 * 0x..".
 */
int bin_array(const struct bin_reader *r, uint64_t at, uint32_t count, uint32_t offset,
	      uint32_t size, const unsigned char **out, const char *what);

/* The message of a failed bin_array, for callers that test with
 * bin_array_fits first and only name the array when it fails. */
int bin_array_error(const struct bin_reader *r, uint64_t at, uint32_t count, uint32_t offset,
		    uint32_t size, const char *what);

#endif
