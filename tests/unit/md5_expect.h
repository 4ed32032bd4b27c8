/*
 * md5_expect.h - what the three MD5 parser tests share: reading fixtures,
 * editing a valid text to break one rule, and checking that a parse fails
 * at an exact line and column with a message (and leaves *out untouched),
 * or succeeds.  Header-only (static inline) so each test stays one program.
 *
 * A test names its parser, model type and free function before including
 * this file:
 *     #define MD5X_TYPE struct md5_anim
 *     #define MD5X_PARSER md5_anim_parse
 *     #define MD5X_FREE md5_anim_free
 * and gets parse(), parse_ok(), expect_fail(), expect_fail_len(),
 * expect_subst_fail(), expect_note(), expect_subst_note(), check_prefixes(),
 * check_file_prefixes(), subst() and read_file() bound to them.
 */
#ifndef ANIMD_TEST_MD5_EXPECT_H
#define ANIMD_TEST_MD5_EXPECT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/diag.h"
#include "tests/support/testdata.h"

typedef int (*md5x_parse_fn)(const char *text, size_t len, void **out, struct diag *d);

static inline char *read_file(const char *path, size_t *len)
{
	char *buf = test_file_read(path, len);

	if (buf == NULL)
		fail_msg("cannot read %s (tests run from the repository root)", path);
	return buf;
}

/* Parse a copy of exactly len bytes (no terminator to lean on). */
static inline int md5x_parse(md5x_parse_fn fn, const char *text, size_t len, void **out,
			     struct diag *d)
{
	char *copy = malloc(len ? len : 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, text, len);
	memset(d, 0, sizeof *d);
	rc = fn(copy, len, out, d);
	free(copy);
	return rc;
}

static inline void md5x_expect_fail_len(md5x_parse_fn fn, const char *text, size_t len,
					uint32_t line, uint32_t col, const char *msg)
{
	void *m = (void *)(uintptr_t)0x1;      /* must stay untouched */
	struct diag d;
	int rc = md5x_parse(fn, text, len, &m, &d);

	if (rc != -EINVAL || d.line != line || d.col != col || strstr(d.msg, msg) == NULL)
		fail_msg("got rc %d at %u:%u \"%s\"; want -EINVAL at %u:%u \"%s\"", rc,
			 (unsigned)d.line, (unsigned)d.col, d.msg, (unsigned)line,
			 (unsigned)col, msg);
	assert_ptr_equal(m, (void *)(uintptr_t)0x1);
}

/* base with the first `from` replaced by `to` (the caller frees). */
static inline char *subst(const char *base, const char *from, const char *to)
{
	const char *at = strstr(base, from);
	size_t head, n;
	char *s;

	if (at == NULL)
		fail_msg("\"%s\" not in the base text", from);
	head = (size_t)(at - base);
	n = strlen(base) - strlen(from) + strlen(to);
	s = malloc(n + 1);
	assert_non_null(s);
	memcpy(s, base, head);
	memcpy(s + head, to, strlen(to));
	strcpy(s + head + strlen(to), at + strlen(from));
	return s;
}

static inline void md5x_expect_subst_fail(md5x_parse_fn fn, const char *base, const char *from,
					  const char *to, uint32_t line, uint32_t col,
					  const char *msg)
{
	char *s = subst(base, from, to);

	md5x_expect_fail_len(fn, s, strlen(s), line, col, msg);
	free(s);
}

static inline void *md5x_parse_ok(md5x_parse_fn fn, const char *text, size_t len)
{
	void *m = NULL;
	struct diag d;
	int rc = md5x_parse(fn, text, len, &m, &d);

	if (rc != 0)
		fail_msg("rc %d at %u:%u: %s", rc, (unsigned)d.line, (unsigned)d.col, d.msg);
	assert_non_null(m);
	return m;
}

/* The parser under test, storing the model only on success. */
static inline int parse_any(const char *text, size_t len, void **out, struct diag *d)
{
	MD5X_TYPE *m = NULL;
	int rc = MD5X_PARSER(text, len, &m, d);

	if (rc == 0)
		*out = m;
	return rc;
}

static inline int parse(const char *text, size_t len, MD5X_TYPE **out, struct diag *d)
{
	void *m = *out;
	int rc = md5x_parse(parse_any, text, len, &m, d);

	*out = m;
	return rc;
}

#define expect_fail_len(text, len, line, col, msg) \
	md5x_expect_fail_len(parse_any, text, len, line, col, msg)
#define expect_fail(text, line, col, msg) \
	md5x_expect_fail_len(parse_any, text, strlen(text), line, col, msg)
#define expect_subst_fail(base, from, to, line, col, msg) \
	md5x_expect_subst_fail(parse_any, base, from, to, line, col, msg)
#define parse_ok(text, len) ((MD5X_TYPE *)md5x_parse_ok(parse_any, text, len))

/* The model's notes hold one at line:col whose message has msg (and no
 * other, so that a note never hides a second finding). */
static inline void expect_model_note(const MD5X_TYPE *m, uint32_t line, uint32_t col,
				     const char *msg)
{
	const struct diag_notes *n = &m->notes;

	if (n->count != 1 || n->dropped != 0 || n->note[0].line != line ||
	    n->note[0].col != col || strstr(n->note[0].msg, msg) == NULL)
		fail_msg("%u notes, the first at %u:%u \"%s\"; want one at %u:%u \"%s\"",
			 (unsigned)n->count, n->count ? (unsigned)n->note[0].line : 0,
			 n->count ? (unsigned)n->note[0].col : 0, n->count ? n->note[0].msg : "",
			 (unsigned)line, (unsigned)col, msg);
}

/* The text loads, with one note at line:col saying msg: the model, for the
 * caller to check and free. */
static inline MD5X_TYPE *expect_note(const char *text, uint32_t line, uint32_t col,
				     const char *msg)
{
	MD5X_TYPE *m = parse_ok(text, strlen(text));

	expect_model_note(m, line, col, msg);
	return m;
}

static inline MD5X_TYPE *expect_subst_note(const char *base, const char *from, const char *to,
					   uint32_t line, uint32_t col, const char *msg)
{
	char *s = subst(base, from, to);
	MD5X_TYPE *m = expect_note(s, line, col, msg);

	free(s);
	return m;
}

/* Every prefix of a valid text fails cleanly (the last '}' is needed) with
 * a located error, and the whole text parses.  Under ASan this also proves
 * the parser never reads past len. */
static inline void check_prefixes(const char *text, size_t len)
{
	size_t n, last_brace = (size_t)(strrchr(text, '}') - text);

	for (n = 0; n < len; n++) {
		MD5X_TYPE *m = NULL;
		struct diag d;
		int rc = parse(text, n, &m, &d);

		if (n <= last_brace) {
			if (rc != -EINVAL || m != NULL || !d.set || d.line == 0)
				fail_msg("prefix %zu: rc %d", n, rc);
		} else {
			assert_int_equal(rc, 0);
			MD5X_FREE(m);
		}
	}
}

static inline void check_file_prefixes(const char *path)
{
	size_t len;
	char *buf = read_file(path, &len);

	check_prefixes(buf, len);
	free(buf);
}

#endif
