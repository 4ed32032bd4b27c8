#include "daemon/formats/md5/md5_common.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/formats/md5/md5.h"

float md5_quat_w(float x, float y, float z)
{
	/* Doom's rule: the absolute value, not a clamp, so slightly
	 * denormalised exports get a small w rather than zero. */
	return sqrtf(fabsf(1.0f - x * x - y * y - z * z));
}

static int md5_common_fail_found(struct lexer *lx, const struct lex_token *tok,
				 const char *expected)
{
	char found[64];

	diag_at(lx->diag, tok->line, tok->col, "expected %s, found %s", expected,
		lex_describe(tok, found, sizeof found));
	return -EINVAL;
}

int md5_common_int(struct lexer *lx, const char *what, int64_t min, int64_t max,
		   int64_t *out, struct lex_token *tok)
{
	struct lex_token t;
	char want[96];
	int64_t v;
	int rc = lex_next_int(lx, &v, &t);

	if (rc < 0)
		return rc;
	if (tok != NULL)
		*tok = t;
	if (rc == 0) {
		snprintf(want, sizeof want, "an integer %s", what);
		return md5_common_fail_found(lx, &t, want);
	}
	if (v < min || v > max) {
		diag_at(lx->diag, t.line, t.col, "%s %lld is out of range (%lld..%lld)",
			what, (long long)v, (long long)min, (long long)max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int md5_common_header(struct lexer *lx, char **commandline)
{
	struct lex_token tok;
	int64_t version;
	int rc;

	if (lex_expect_word(lx, "MD5Version") < 0)
		return -EINVAL;
	rc = md5_common_int(lx, "MD5Version", INT64_MIN, INT64_MAX, &version, &tok);
	if (rc < 0)
		return rc;
	if (version != 10) {
		diag_at(lx->diag, tok.line, tok.col,
			"unsupported MD5Version %lld, expected 10", (long long)version);
		return -EINVAL;
	}
	if (lex_expect_word(lx, "commandline") < 0)
		return -EINVAL;
	return md5_common_name(lx, "commandline", commandline);
}

/* Fails at tok with "<what> N is more than the file can hold" unless
 * n * min_bytes <= lex_remaining(lx). */
static int md5_common_fits(struct lexer *lx, const struct lex_token *tok, const char *what,
			   uint64_t n, uint64_t min_bytes)
{
	/* n < 2^32 and min_bytes is small: the product cannot wrap. */
	if (n * min_bytes <= (uint64_t)lex_remaining(lx))
		return 0;
	diag_at(lx->diag, tok->line, tok->col, "%s %llu is more than the file can hold",
		what, (unsigned long long)n);
	return -EINVAL;
}

int md5_common_count(struct lexer *lx, const char *keyword, uint32_t min,
		     uint32_t max, size_t min_bytes, uint32_t *out)
{
	struct lex_token tok;
	int64_t v;
	int rc;

	if (lex_expect_word(lx, keyword) < 0)
		return -EINVAL;
	rc = md5_common_int(lx, keyword, min, max, &v, &tok);
	if (rc < 0)
		return rc;
	rc = md5_common_fits(lx, &tok, keyword, (uint64_t)v, min_bytes);
	if (rc < 0)
		return rc;
	*out = (uint32_t)v;
	return 0;
}

int md5_common_vec(struct lexer *lx, const char *what, float *v, unsigned n)
{
	unsigned i;

	if (lex_expect_punct(lx, '(') < 0)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (lex_expect_float(lx, what, &v[i]) < 0)
			return -EINVAL;
	return lex_expect_punct(lx, ')');
}

int md5_common_index(struct lexer *lx, const char *what, uint32_t expected)
{
	struct lex_token tok;
	char want[96];
	int64_t v;
	int rc = lex_next_int(lx, &v, &tok);

	if (rc < 0)
		return rc;
	if (rc == 0) {
		snprintf(want, sizeof want, "%s number %lu", what, (unsigned long)expected);
		return md5_common_fail_found(lx, &tok, want);
	}
	if (v != (int64_t)expected) {
		/* Print the text: it may not fit in 32 bits. */
		diag_at(lx->diag, tok.line, tok.col, "%s %lu is numbered %.*s", what,
			(unsigned long)expected, (int)tok.len, tok.text);
		return -EINVAL;
	}
	return 0;
}

int md5_common_more(struct lexer *lx, const char *unit, uint32_t i,
		    const char *count, uint32_t n)
{
	struct lex_token tok;

	if (lex_peek(lx, &tok) < 0)
		return -EINVAL;
	if (!lex_is_punct(&tok, '}'))
		return 0;
	diag_at(lx->diag, tok.line, tok.col, "the block ends after %lu %s but %s is %lu",
		(unsigned long)i, unit, count, (unsigned long)n);
	return -EINVAL;
}

int md5_common_close(struct lexer *lx, const char *count, uint32_t n)
{
	struct lex_token tok;
	char want[96];

	if (lex_next(lx, &tok) < 0)
		return -EINVAL;
	if (lex_is_punct(&tok, '}'))
		return 0;
	snprintf(want, sizeof want, "'}' (%s is %lu)", count, (unsigned long)n);
	return md5_common_fail_found(lx, &tok, want);
}

int md5_common_line(struct lexer *lx, const char *keyword, uint32_t i,
		    const char *count, uint32_t n)
{
	struct lex_token tok;
	char want[96];

	if (lex_next(lx, &tok) < 0)
		return -EINVAL;
	if (lex_is_word(&tok, keyword))
		return 0;
	snprintf(want, sizeof want, "%s %lu (%s is %lu)", keyword, (unsigned long)i, count,
		 (unsigned long)n);
	return md5_common_fail_found(lx, &tok, want);
}

int md5_common_name(struct lexer *lx, const char *what, char **out)
{
	struct lex_token tok;

	if (lex_expect_string(lx, what, &tok) < 0)
		return -EINVAL;
	*out = lex_strdup(&tok);
	if (*out == NULL)
		return md5_common_nomem(lx);
	return 0;
}

int md5_common_end(struct lexer *lx, struct diag_notes *notes)
{
	/* A copy of the lexer with a diag of its own: what follows is not
	 * part of the file, and even a comment never closed there is only
	 * worth a note. */
	struct lexer probe = *lx;
	struct diag scratch = { 0 };
	struct lex_token tok;
	char found[64];

	probe.diag = &scratch;
	if (lex_next(&probe, &tok) < 0)
		diag_note_at(notes, scratch.line, scratch.col,
			     "what follows the last block is not read (%s)", scratch.msg);
	else if (tok.kind != LEX_EOF)
		diag_note_at(notes, tok.line, tok.col,
			     "%s after the last block: what follows is not read (Doom stops there "
			     "too)", lex_describe(&tok, found, sizeof found));
	return 0;
}

int md5_common_nomem(struct lexer *lx)
{
	diag_at(lx->diag, lx->line, lx->col, "out of memory");
	return -ENOMEM;
}

void *md5_common_calloc(size_t n, size_t size)
{
	return calloc(n != 0 ? n : 1, size);
}
