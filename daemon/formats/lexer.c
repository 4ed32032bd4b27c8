#include "daemon/formats/lexer.h"

#include "daemon/formats/decimal.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest number we accept as text; real exporters write at most ~25. */
#define LEX_NUMBER_MAX 63

/* Halfway between FLT_MAX and 2^128: from here on a double rounds to
 * infinity as a float. */
#define LEX_FLOAT_OVERFLOW 3.4028235677973366e38

/* Byte classes (struct lexer's cls): a byte that continues a word and can
 * be nothing else; a punctuation character; a byte that ends a word (space,
 * quote, control, punctuation, '<' opening a GUID); one that may open a
 * comment ('/', '#'), which only the bytes after it decide. */
#define LEX_C_PLAIN 1u
#define LEX_C_PUNCT 2u
#define LEX_C_ENDS 4u
#define LEX_C_COMMENT 8u

/* Bytes that can only continue a word (digits, letters, . + - _). */
static int lex_is_plain(unsigned char c)
{
	unsigned char l = (unsigned char)(c | 0x20);

	return (c >= '0' && c <= '9') || (l >= 'a' && l <= 'z') || c == '.' || c == '-' ||
	       c == '+' || c == '_';
}

void lex_init(struct lexer *lx, const char *buf, size_t len, const char *puncts,
	      unsigned flags, struct diag *diag)
{
	memset(lx, 0, sizeof *lx);
	lx->p = buf;
	lx->end = buf + len;
	lx->line = 1;
	lx->col = 1;
	lx->flags = flags;
	lx->puncts = puncts;
	lx->diag = diag;
	for (unsigned c = 0; c < 256; c++) {
		if (lex_is_plain((unsigned char)c))
			lx->cls[c] |= LEX_C_PLAIN;
		if (c < 0x20 || c == 0x7f || c == ' ' || c == '"' || (c == '<' && (flags & LEX_GUIDS)))
			lx->cls[c] |= LEX_C_ENDS;
	}
	lx->cls['/'] |= LEX_C_COMMENT;
	lx->cls['#'] |= LEX_C_COMMENT;
	for (; *puncts != '\0'; puncts++) {
		unsigned char c = (unsigned char)*puncts;

		lx->cls[c] = (unsigned char)((lx->cls[c] & ~LEX_C_PLAIN) | LEX_C_PUNCT | LEX_C_ENDS);
	}
}

size_t lex_remaining(const struct lexer *lx)
{
	return (size_t)(lx->end - lx->p);
}

/* Advance one byte, keeping line and column exact for LF, CRLF and CR. */
static void lex_advance(struct lexer *lx)
{
	char c = *lx->p++;

	if (c == '\n' || (c == '\r' && (lx->p == lx->end || *lx->p != '\n'))) {
		lx->line++;
		lx->col = 1;
	} else if (c == '\r') {
		/* The CR of a CRLF: the LF that follows ends the line. */
	} else {
		lx->col++;
	}
}

static int lex_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int lex_is_punct_char(const struct lexer *lx, char c)
{
	return (lx->cls[(unsigned char)c] & LEX_C_PUNCT) != 0;
}

static int lex_comment_starts(const struct lexer *lx, const char *p)
{
	if (*p == '/' && p + 1 < lx->end && (p[1] == '/' || p[1] == '*'))
		return 1;
	return *p == '#' && (lx->flags & LEX_HASH_COMMENTS) && !(lx->flags & LEX_HASH_IN_WORDS);
}

/* Skip whitespace and comments.  Returns -EINVAL on an unterminated block
 * comment. */
static int lex_skip(struct lexer *lx)
{
	while (lx->p < lx->end) {
		char c = *lx->p;

		if (c == ' ' || c == '\t') {
			/* The common case, without lex_advance's line logic. */
			lx->p++;
			lx->col++;
		} else if (lex_is_space(c)) {
			lex_advance(lx);
		} else if (c == '#' && (lx->flags & LEX_HASH_COMMENTS)) {
			while (lx->p < lx->end && *lx->p != '\n' && *lx->p != '\r')
				lex_advance(lx);
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
			while (lx->p < lx->end && *lx->p != '\n' && *lx->p != '\r')
				lex_advance(lx);
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
			uint32_t line = lx->line, col = lx->col;

			lex_advance(lx);
			lex_advance(lx);
			for (;;) {
				if (lx->p >= lx->end) {
					diag_at(lx->diag, line, col,
						"comment opened here is never closed");
					return -EINVAL;
				}
				if (*lx->p == '*' && lx->p + 1 < lx->end && lx->p[1] == '/') {
					lex_advance(lx);
					lex_advance(lx);
					break;
				}
				lex_advance(lx);
			}
		} else {
			break;
		}
	}
	return 0;
}

static int lex_scan(struct lexer *lx, struct lex_token *tok)
{
	unsigned char c;

	if (lex_skip(lx) < 0)
		return -EINVAL;
	tok->line = lx->line;
	tok->col = lx->col;
	tok->text = lx->p;
	tok->len = 0;
	if (lx->p >= lx->end) {
		tok->kind = LEX_EOF;
		return 0;
	}
	c = (unsigned char)*lx->p;
	if (c < 0x20 || c == 0x7f) {
		diag_at(lx->diag, lx->line, lx->col,
			"unexpected control byte 0x%02x (is this a text file?)", c);
		return -EINVAL;
	}
	if (c == '"') {
		lex_advance(lx);
		tok->kind = LEX_STRING;
		tok->text = lx->p;
		while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n' && *lx->p != '\r') {
			c = (unsigned char)*lx->p;
			/* A NUL would silently cut the name short once copied. */
			if ((c < 0x20 && c != '\t') || c == 0x7f) {
				diag_at(lx->diag, lx->line, lx->col,
					"unexpected control byte 0x%02x in a string", c);
				return -EINVAL;
			}
			lex_advance(lx);
		}
		if (lx->p >= lx->end || *lx->p != '"') {
			diag_at(lx->diag, tok->line, tok->col,
				"string opened here is not closed on its line");
			return -EINVAL;
		}
		tok->len = (size_t)(lx->p - tok->text);
		lex_advance(lx);
		return 0;
	}
	if (c == '<' && (lx->flags & LEX_GUIDS)) {
		lex_advance(lx);
		tok->kind = LEX_GUID;
		tok->text = lx->p;
		while (lx->p < lx->end && *lx->p != '>' && *lx->p != '\n' && *lx->p != '\r')
			lex_advance(lx);
		if (lx->p >= lx->end || *lx->p != '>') {
			diag_at(lx->diag, tok->line, tok->col,
				"GUID opened here is not closed on its line");
			return -EINVAL;
		}
		tok->len = (size_t)(lx->p - tok->text);
		lex_advance(lx);
		return 0;
	}
	if (lex_is_punct_char(lx, (char)c)) {
		tok->kind = LEX_PUNCT;
		tok->len = 1;
		lex_advance(lx);
		return 0;
	}
	tok->kind = LEX_WORD;
	for (;;) {
		/* Numbers and keywords are made of plain bytes. */
		while (lx->p < lx->end && (lx->cls[(unsigned char)*lx->p] & LEX_C_PLAIN))
			lx->p++;
		if (lx->p >= lx->end)
			break;
		c = (unsigned char)*lx->p;
		if ((lx->cls[c] & LEX_C_ENDS) ||
		    ((lx->cls[c] & LEX_C_COMMENT) && lex_comment_starts(lx, lx->p)))
			break;
		lx->p++;
	}
	/* A word never holds a line break: the column just moves on. */
	tok->len = (size_t)(lx->p - tok->text);
	lx->col += (uint32_t)tok->len;
	return 0;
}

int lex_next(struct lexer *lx, struct lex_token *tok)
{
	if (lx->has_ahead) {
		*tok = lx->ahead;
		lx->has_ahead = 0;
		return 0;
	}
	return lex_scan(lx, tok);
}

int lex_peek(struct lexer *lx, struct lex_token *tok)
{
	if (!lx->has_ahead) {
		if (lex_scan(lx, &lx->ahead) < 0)
			return -EINVAL;
		lx->has_ahead = 1;
	}
	*tok = lx->ahead;
	return 0;
}

int lex_is_word(const struct lex_token *tok, const char *word)
{
	size_t n = strlen(word);

	return tok->kind == LEX_WORD && tok->len == n && memcmp(tok->text, word, n) == 0;
}

int lex_is_punct(const struct lex_token *tok, char c)
{
	return tok->kind == LEX_PUNCT && tok->text[0] == c;
}

/* Bytes from the file, quoted for a message: printable ASCII as is, every
 * other byte as \xNN (a message must not carry raw bytes from outside). */
const char *lex_show(const char *s, size_t len, char *buf, size_t size)
{
	size_t o = 0, i;

	for (i = 0; i < len && i < LEX_SHOW_BYTES && o + 5 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
	}
	if (i < len && o + 4 < size) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

const char *lex_describe(const struct lex_token *tok, char *buf, size_t size)
{
	char shown[4 * LEX_SHOW_BYTES + 8];

	switch (tok->kind) {
	case LEX_EOF:
		snprintf(buf, size, "end of file");
		break;
	case LEX_PUNCT:
		snprintf(buf, size, "'%c'", tok->text[0]);
		break;
	case LEX_STRING:
		snprintf(buf, size, "string \"%s\"", lex_show(tok->text, tok->len, shown, sizeof shown));
		break;
	case LEX_GUID:
		snprintf(buf, size, "GUID <%s>", lex_show(tok->text, tok->len, shown, sizeof shown));
		break;
	default:
		snprintf(buf, size, "\"%s\"", lex_show(tok->text, tok->len, shown, sizeof shown));
		break;
	}
	return buf;
}

static int lex_fail_expected(struct lexer *lx, const struct lex_token *tok,
			     const char *expected)
{
	char found[64];

	diag_at(lx->diag, tok->line, tok->col, "expected %s, found %s", expected,
		lex_describe(tok, found, sizeof found));
	return -EINVAL;
}

int lex_expect_word(struct lexer *lx, const char *word)
{
	struct lex_token tok;
	char want[80];

	if (lex_next(lx, &tok) < 0)
		return -EINVAL;
	if (lex_is_word(&tok, word))
		return 0;
	snprintf(want, sizeof want, "\"%s\"", word);
	return lex_fail_expected(lx, &tok, want);
}

int lex_expect_punct(struct lexer *lx, char c)
{
	struct lex_token tok;
	char want[8];

	if (lex_next(lx, &tok) < 0)
		return -EINVAL;
	if (lex_is_punct(&tok, c))
		return 0;
	snprintf(want, sizeof want, "'%c'", c);
	return lex_fail_expected(lx, &tok, want);
}

int lex_expect_string(struct lexer *lx, const char *what, struct lex_token *tok)
{
	char want[96];

	if (lex_next(lx, tok) < 0)
		return -EINVAL;
	if (tok->kind == LEX_STRING)
		return 0;
	snprintf(want, sizeof want, "a quoted %s", what);
	return lex_fail_expected(lx, tok, want);
}

/* Copy a word into a NUL-terminated buffer for strtod/strtoll. */
static int lex_number_text(const struct lex_token *tok, char *buf)
{
	if (tok->kind != LEX_WORD || tok->len == 0 || tok->len > LEX_NUMBER_MAX)
		return -EINVAL;
	memcpy(buf, tok->text, tok->len);
	buf[tok->len] = '\0';
	return 0;
}

/* Plain decimal integers of up to 18 digits, the only kind real files hold,
 * without copying or strtoll.  Returns 1 when it handled the token. */
static int lex_fast_int(const struct lex_token *tok, int64_t *out)
{
	const char *p = tok->text, *end = tok->text + tok->len;
	int neg = 0;
	int64_t v = 0;

	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (p == end || end - p > 18)
		return 0;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		v = v * 10 + (*p - '0');
	}
	*out = neg ? -v : v;
	return 1;
}

int lex_token_int(const struct lex_token *tok, int64_t *out)
{
	char buf[LEX_NUMBER_MAX + 1], *end;
	long long v;

	if (tok->kind == LEX_WORD && lex_fast_int(tok, out))
		return 0;
	if (lex_number_text(tok, buf) < 0)
		return -EINVAL;
	if (!(buf[0] == '-' || buf[0] == '+' || (buf[0] >= '0' && buf[0] <= '9')))
		return -EINVAL;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno != 0 || *end != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

/* A whole token through decimal.c's fast path (Clinger's: strtod's double, bit for
 * bit, hence its float); anything else goes to strtod below. */
static int lex_fast_float(const struct lex_token *tok, float *out)
{
	const char *stop;
	double v;

	if (!decimal_fast_prefix(tok->text, tok->text + tok->len, &stop, &v) ||
	    stop != tok->text + tok->len)
		return 0;
	*out = (float)v;
	return 1;
}

/* Past the blanks and LF line breaks before a number read in place (the
 * lexer not moved): the first other byte, with the line it is on and that
 * line's start (NULL when no line break was passed). */
static const char *lex_skip_blank_lines(const struct lexer *lx, uint32_t *line,
					const char **line_start)
{
	const char *p = lx->p;

	*line = lx->line;
	*line_start = NULL;
	for (; p < lx->end; p++) {
		if (*p == '\n') {
			++*line;
			*line_start = p + 1;
		} else if (*p != ' ' && *p != '\t') {
			break;
		}
	}
	return p;
}

int lex_try_int(struct lexer *lx, int64_t *out, struct lex_token *tok)
{
	const char *p, *line_start, *start, *q;
	uint32_t line, col;
	int neg = 0;
	int64_t v = 0;

	if (lx->has_ahead)
		return 0;
	start = q = p = lex_skip_blank_lines(lx, &line, &line_start);
	if (q < lx->end && (*q == '-' || *q == '+')) {
		/* A lexer whose punctuation holds the sign reads it apart. */
		if (lx->cls[(unsigned char)*q] & LEX_C_PUNCT)
			return 0;
		neg = *q++ == '-';
	}
	/* The value in the same pass as the scan (a second pass over the
	 * digits through lex_fast_int costs MD5 loads 8 % more
	 * instructions), within lex_fast_int's 18 digits. */
	for (p = q; q < lx->end && q - p < 18 && *q >= '0' && *q <= '9'; q++)
		v = v * 10 + (*q - '0');
	if (q == p || (q < lx->end && !(lx->cls[(unsigned char)*q] & LEX_C_ENDS)))
		return 0;
	col = line_start != NULL ? 1 + (uint32_t)(start - line_start)
				 : lx->col + (uint32_t)(start - lx->p);
	tok->kind = LEX_WORD;
	tok->text = start;
	tok->len = (size_t)(q - start);
	tok->line = line;
	tok->col = col;
	lx->line = line;
	lx->col = col + (uint32_t)tok->len;
	lx->p = q;
	*out = neg ? -v : v;
	return 1;
}

int lex_try_float(struct lexer *lx, float *out)
{
	const char *p, *line_start, *stop;
	uint32_t line;
	unsigned char c;
	double v;

	if (lx->has_ahead)
		return 0;
	p = lex_skip_blank_lines(lx, &line, &line_start);
	if (!decimal_fast_prefix(p, lx->end, &stop, &v))
		return 0;
	if (stop < lx->end) {
		c = (unsigned char)*stop;
		if (!(lx->cls[c] & LEX_C_ENDS))
			return 0;
	}
	/* Blanks, LF line breaks and a word: the column moves on from the
	 * last line start. */
	if (line_start != NULL) {
		lx->line = line;
		lx->col = 1 + (uint32_t)(stop - line_start);
	} else {
		lx->col += (uint32_t)(stop - lx->p);
	}
	lx->p = stop;
	*out = (float)v;
	return 1;
}

int lex_token_float(const struct lex_token *tok, float *out)
{
	char buf[LEX_NUMBER_MAX + 1], *end;
	double v;
	char c;

	if (tok->kind == LEX_WORD && tok->len <= LEX_NUMBER_MAX && lex_fast_float(tok, out))
		return 0;
	if (lex_number_text(tok, buf) < 0)
		return -EINVAL;
	c = buf[0];
	/* strtod also takes "nan", "inf" and hex floats: a file has no use for them. */
	if (!(c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')))
		return -EINVAL;
	if (strpbrk(buf, "xXnNiI") != NULL)
		return -EINVAL;
	v = strtod(buf, &end);
	if (*end != '\0' || !isfinite(v) || fabs(v) >= LEX_FLOAT_OVERFLOW)
		return -EINVAL;
	/* Between FLT_MAX and the overflow point the value rounds to FLT_MAX
	 * ("3.40282347e+38" is how %.9g prints FLT_MAX); say so rather than
	 * convert a double outside float's range. */
	if (fabs(v) > FLT_MAX)
		v = v < 0 ? -FLT_MAX : FLT_MAX;
	*out = (float)v;
	return 0;
}

int lex_expect_int(struct lexer *lx, const char *what, int64_t min, int64_t max,
		   int64_t *out)
{
	struct lex_token tok;
	char want[96], found[64];
	int64_t v;
	int rc = lex_next_int(lx, &v, &tok);

	if (rc < 0)
		return rc;
	if (rc == 0) {
		snprintf(want, sizeof want, "an integer %s", what);
		return lex_fail_expected(lx, &tok, want);
	}
	if (v < min || v > max) {
		diag_at(lx->diag, tok.line, tok.col,
			"%s %s is out of range (%lld..%lld)", what,
			lex_describe(&tok, found, sizeof found), (long long)min, (long long)max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int lex_expect_float(struct lexer *lx, const char *what, float *out)
{
	struct lex_token tok;
	char want[96];

	if (lex_try_float(lx, out))
		return 0;
	if (lex_next(lx, &tok) < 0)
		return -EINVAL;
	if (lex_token_float(&tok, out) == 0)
		return 0;
	snprintf(want, sizeof want, "a finite number for %s", what);
	return lex_fail_expected(lx, &tok, want);
}

char *lex_strdup(const struct lex_token *tok)
{
	char *s = malloc(tok->len + 1);

	if (s == NULL)
		return NULL;
	memcpy(s, tok->text, tok->len);
	s[tok->len] = '\0';
	return s;
}
