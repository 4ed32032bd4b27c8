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

/*
 * Notes: what a parser accepted but a person may want to know (data the
 * game or tool that wrote the file ignores, and so does animd: extra
 * ranges, junk in a table nobody reads, a count larger than needed).  The
 * file loads all the same.  Notes are located like errors, and kept per
 * kind: the first note of a kind (its call site: the format string is the
 * kind) keeps its location and message, later ones of that kind only
 * count, so a file whose 400 tracks share one quirk gets one line ("...
 * (and 399 more like it)").  At most DIAG_NOTES_MAX kinds are kept; notes
 * of further kinds are counted in `dropped`.
 */
#define DIAG_NOTES_MAX 24

struct diag_note {
	const char *kind;       /* the format string it was made with */
	uint32_t line, col;     /* as struct diag: line 0 means offset */
	uint64_t offset;
	uint32_t more;          /* further notes of this kind */
	char msg[DIAG_MSG_MAX];
};

struct diag_notes {
	uint32_t count;
	uint32_t dropped;
	struct diag_note note[DIAG_NOTES_MAX];
};

/* Add a note at a text position / byte offset.  n may be NULL (nothing is
 * kept).  fmt must be a string literal: it names the kind. */
void diag_note_at(struct diag_notes *n, uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void diag_note_offset(struct diag_notes *n, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with the message already written, for a layer that locates
 * its notes its own way (x_tree_note): `kind` (a string literal, usually
 * the format the message was made with) names the kind; line 0 means
 * `offset`. */
void diag_note_put(struct diag_notes *n, const char *kind, uint32_t line, uint32_t col,
		   uint64_t offset, const char *msg);

/* "file:line:col: note: msg" or "file: offset 0x..: note: msg", with
 * " (and N more like it)" when the kind repeated.  As diag_format. */
int diag_note_format(const struct diag_note *n, const char *file, char *buf, size_t size);

#endif
