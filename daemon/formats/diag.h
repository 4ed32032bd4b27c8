/*
 * diag.h - the one way a parser says why it rejected its input.
 *
 * Every parser in formats/ fills a struct diag on failure and returns a
 * negative errno (-EINVAL for bad content, -ENOMEM when allocation fails).
 * Text formats report a 1-based line and column; binary formats report a
 * byte offset.  The caller prefixes the file name when it prints:
 *
 *     walk.md5anim:412:7: error: joint "head" reads components 88..90 ...
 *     model.m2: offset 0x1f4: error: bone 12 names parent 40 of 38 bones
 */
#ifndef ANIMD_DIAG_H
#define ANIMD_DIAG_H

#include <stddef.h>
#include <stdint.h>

#define DIAG_MSG_MAX 320

struct diag {
	uint32_t line;          /* 1-based; 0 when the location is a byte offset */
	uint32_t col;           /* 1-based */
	uint64_t offset;        /* byte offset, meaningful when line == 0 */
	int set;                /* 1 once a message has been recorded */
	char msg[DIAG_MSG_MAX];
};

/* Record an error at a text position.  The first error wins: later calls
 * are ignored so that the root cause, not a follow-on, is reported. */
void diag_at(struct diag *d, uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Record an error at a byte offset of a binary file. */
void diag_at_offset(struct diag *d, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write "file:line:col: error: msg" or "file: offset 0x..: error: msg" into
 * buf (always NUL-terminated).  Returns what snprintf returns. */
int diag_format(const struct diag *d, const char *file, char *buf, size_t size);

#endif
