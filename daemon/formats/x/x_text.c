/*
 * x_text.c - the text encoding of .x files: tokens (the shared lexer's,
 * scanned here without line and column), data objects, member values and
 * references into the tree builder (x_tree.h); templates are read past.
 * Runs of plain numbers, most of a file, are read without tokens (see
 * "runs of plain numbers" below), to the same values.
 *
 * The grammar is loose where real exporters are loose, strict elsewhere:
 *
 * - ',' and ';' are separators and nothing more: any run of them (";;",
 *   ";,", ",,"), or none at all ("1 2 3", which D3DXOF itself allows), may
 *   stand between values, members, objects and references, and also
 *   between top-level objects.  Exporters disagree on which one ends what,
 *   and counting them would reject real files while telling the importer
 *   nothing the member counts do not.
 * - A word is a number only when all of it is one: [+-]digits is an
 *   integer (it must fit in 64 bits), with a '.' or an exponent a float.
 *   MSVC's "1.#INF00", "-1.#IND00", "1.#QNAN0", "1.#SNAN0" and the C/.NET
 *   spellings "inf", "-nan", "Infinity", "NaN" are floats too (infinity or
 *   NaN: the importer decides).  Every other word is a name, including
 *   ones that start like numbers ("3DSMesh-1").
 * - An object starts with a word followed by '{', or by one more word and
 *   '{': "Type {" or "Type name {".  A number never starts one (it is a
 *   value, and a '{' after it opens a reference).  A type is an identifier
 *   (letters, digits, '_'); a name may be any word.  A <GUID> may follow
 *   the object's '{' at once.  Any other word where a value or object may
 *   stand is an error, never skipped.
 * - '{' where a value may stand opens a reference: { name }, { <GUID> }
 *   or { name <GUID> }.
 * - "template" (any case, as D3DXOF) at the top level starts a template,
 *   skipped to its matching '}'.
 * - Comments: '#' and "//" to the end of the line, and (the shared
 *   lexer's) block comments.  A '#' inside a word belongs to the word.
 * - Trailing NUL bytes are dropped: D3DXOF reads NUL as white space, so a
 *   file padded with NULs loads there.  A NUL anywhere else is an error,
 *   as is every other control byte but white space.
 *
 * Every error goes through x_tree_error with a byte offset, so it reads
 * "line:col" for a plain text file and "offset" for decompressed text.
 */
#include "daemon/formats/x/x_syntax.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "daemon/formats/decimal.h"
#include "daemon/formats/lexer.h"

/* "Type name {" is the longest look-ahead the grammar needs. */
#define X_TEXT_AHEAD 3

/* Bytes of a token shown in a message, and room for them escaped. */
#define X_TEXT_SHOWN (4 * LEX_SHOW_BYTES + 8)
#define X_TEXT_FOUND (X_TEXT_SHOWN + 24)

#define X_TEXT_OBJECT_HINT " (an object is written Type [name] { ... })"
#define X_TEXT_VALUE_HINT " (values belong inside an object's braces)"

struct x_text {
	struct x_tree *t;
	struct diag *d;
	struct x_builder *b;
	const char *p, *end;            /* the text not yet scanned */
	struct lex_token ahead[X_TEXT_AHEAD];
	unsigned n_ahead;
};

enum x_text_number {
	X_NUM_NONE,
	X_NUM_INT,
	X_NUM_FLOAT,
	X_NUM_INT_RANGE,        /* an integer beyond int64 */
	X_NUM_FLOAT_RANGE,      /* a float beyond double */
	X_NUM_NOMEM,
};

static int x_text_fail(struct x_text *r, uint32_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int x_text_fail(struct x_text *r, uint32_t pos, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = x_tree_verror(r->t, r->d, pos, fmt, ap);
	va_end(ap);
	return rc;
}

/* Where a token starts in the body: strings and GUIDs at their opening
 * quote or '<', which the lexer leaves out of the text. */
static uint32_t x_text_pos(const struct x_text *r, const struct lex_token *tok)
{
	size_t off = (size_t)(tok->text - r->t->body);

	if (tok->kind == LEX_STRING || tok->kind == LEX_GUID)
		off--;
	return (uint32_t)off;
}

/* ---- tokens --------------------------------------------------------
 *
 * The tokens of the shared lexer (lexer.h) with this format's settings:
 * punctuation "{}[],;", '#' comments where a token could start (a '#'
 * inside a word is part of it), <GUID>s, "//" and block comments, double-
 * quoted strings without escapes that end on their line.  Scanned here
 * rather than by lex_next, because the lexer keeps every token's line and
 * column, which this reader never needs: its errors are byte offsets,
 * turned into line:col by x_tree_error only when one is reported.  The
 * messages and the bytes they point at are the lexer's.
 */

enum {
	XC_WORD,        /* continues a word (and starts one) */
	XC_SPACE,
	XC_PUNCT,
	XC_QUOTE,
	XC_GUID,        /* '<' */
	XC_SLASH,       /* a comment if "//" or a block comment's opening */
	XC_HASH,        /* a comment where a token could start, else a word byte */
	XC_CONTROL,
};

static const unsigned char x_text_class[256] = {
	[0x00] = XC_CONTROL, [0x01] = XC_CONTROL, [0x02] = XC_CONTROL, [0x03] = XC_CONTROL,
	[0x04] = XC_CONTROL, [0x05] = XC_CONTROL, [0x06] = XC_CONTROL, [0x07] = XC_CONTROL,
	[0x08] = XC_CONTROL, [0x0e] = XC_CONTROL, [0x0f] = XC_CONTROL, [0x10] = XC_CONTROL,
	[0x11] = XC_CONTROL, [0x12] = XC_CONTROL, [0x13] = XC_CONTROL, [0x14] = XC_CONTROL,
	[0x15] = XC_CONTROL, [0x16] = XC_CONTROL, [0x17] = XC_CONTROL, [0x18] = XC_CONTROL,
	[0x19] = XC_CONTROL, [0x1a] = XC_CONTROL, [0x1b] = XC_CONTROL, [0x1c] = XC_CONTROL,
	[0x1d] = XC_CONTROL, [0x1e] = XC_CONTROL, [0x1f] = XC_CONTROL, [0x7f] = XC_CONTROL,
	[' '] = XC_SPACE, ['\t'] = XC_SPACE, ['\n'] = XC_SPACE, ['\r'] = XC_SPACE,
	['\v'] = XC_SPACE, ['\f'] = XC_SPACE,
	['{'] = XC_PUNCT, ['}'] = XC_PUNCT, ['['] = XC_PUNCT, [']'] = XC_PUNCT,
	[','] = XC_PUNCT, [';'] = XC_PUNCT,
	['"'] = XC_QUOTE, ['<'] = XC_GUID, ['/'] = XC_SLASH, ['#'] = XC_HASH,
};

static bool x_text_comment_at(const char *p, const char *end)
{
	return p + 1 < end && (p[1] == '/' || p[1] == '*');
}

/* Past a line comment: to the line end, which is left to skip as space. */
static const char *x_text_line_end(const char *p, const char *end)
{
	while (p < end && *p != '\n' && *p != '\r')
		p++;
	return p;
}

/* The next token into *tok, or -EINVAL with the error located. */
static int x_text_scan(struct x_text *r, struct lex_token *tok)
{
	const char *p = r->p, *end = r->end, *start;
	unsigned char c;

	for (;;) {
		if (p >= end) {
			tok->kind = LEX_EOF;
			tok->text = p;
			tok->len = 0;
			r->p = p;
			return 0;
		}
		switch (x_text_class[(unsigned char)*p]) {
		case XC_SPACE:
			p++;
			continue;
		case XC_HASH:
			p = x_text_line_end(p + 1, end);
			continue;
		case XC_SLASH:
			if (p + 1 < end && p[1] == '/') {
				p = x_text_line_end(p + 2, end);
				continue;
			}
			if (p + 1 < end && p[1] == '*') {
				start = p;
				for (p += 2;; p++) {
					if (p >= end)
						return x_text_fail(r, (uint32_t)(start - r->t->body),
								   "comment opened here is never closed");
					if (*p == '*' && p + 1 < end && p[1] == '/')
						break;
				}
				p += 2;
				continue;
			}
			break;
		default:
			break;
		}
		break;
	}
	start = p;
	c = (unsigned char)*p;
	switch (x_text_class[c]) {
	case XC_CONTROL:
		r->p = p;
		return x_text_fail(r, (uint32_t)(p - r->t->body),
				   "unexpected control byte 0x%02x (is this a text file?)", c);
	case XC_PUNCT:
		tok->kind = LEX_PUNCT;
		tok->text = p;
		tok->len = 1;
		r->p = p + 1;
		return 0;
	case XC_QUOTE:
		for (p++; p < end && *p != '"' && *p != '\n' && *p != '\r'; p++) {
			c = (unsigned char)*p;
			/* A NUL would silently cut the name short once copied. */
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return x_text_fail(r, (uint32_t)(p - r->t->body),
						   "unexpected control byte 0x%02x in a string", c);
		}
		if (p >= end || *p != '"')
			return x_text_fail(r, (uint32_t)(start - r->t->body),
					   "string opened here is not closed on its line");
		tok->kind = LEX_STRING;
		tok->text = start + 1;
		tok->len = (size_t)(p - start - 1);
		r->p = p + 1;
		return 0;
	case XC_GUID:
		for (p++; p < end && *p != '>' && *p != '\n' && *p != '\r'; p++)
			;
		if (p >= end || *p != '>')
			return x_text_fail(r, (uint32_t)(start - r->t->body),
					   "GUID opened here is not closed on its line");
		tok->kind = LEX_GUID;
		tok->text = start + 1;
		tok->len = (size_t)(p - start - 1);
		r->p = p + 1;
		return 0;
	default:
		break;
	}
	/* A word: its first byte, then every byte up to one that ends it. */
	for (p++; p < end; p++) {
		unsigned k = x_text_class[(unsigned char)*p];

		if (k == XC_WORD || k == XC_HASH || (k == XC_SLASH && !x_text_comment_at(p, end)))
			continue;
		break;
	}
	tok->kind = LEX_WORD;
	tok->text = start;
	tok->len = (size_t)(p - start);
	r->p = p;
	return 0;
}

/* Make sure ahead[k] holds a token. */
static inline int x_text_fill(struct x_text *r, unsigned k)
{
	while (r->n_ahead <= k) {
		if (x_text_scan(r, &r->ahead[r->n_ahead]) < 0)
			return -EINVAL;
		r->n_ahead++;
	}
	return 0;
}

static inline void x_text_drop(struct x_text *r, unsigned n)
{
	unsigned left = r->n_ahead - n;

	for (unsigned i = 0; i < left && i + n < X_TEXT_AHEAD; i++)
		r->ahead[i] = r->ahead[i + n];
	r->n_ahead = left;
}

/* ---- numbers ------------------------------------------------------ */

static bool x_text_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Letters, digits and '_': what identifiers are made of. */
static bool x_text_alnum(char c)
{
	char l = (char)(c | 0x20);

	return x_text_digit(c) || (l >= 'a' && l <= 'z') || c == '_';
}

/* [+-]digits, in int64 or X_NUM_INT_RANGE. */
static enum x_text_number x_text_int(const char *s, size_t len, int64_t *out)
{
	const char *p = s, *end = s + len;
	bool neg = false, over = false;
	uint64_t v = 0, limit;

	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (p == end)
		return X_NUM_NONE;
	/* Up to 18 digits cannot overflow: no range check per digit. */
	if (end - p <= 18) {
		for (; p < end; p++) {
			if (!x_text_digit(*p))
				return X_NUM_NONE;
			v = v * 10 + (unsigned)(*p - '0');
		}
		*out = neg ? -(int64_t)v : (int64_t)v;
		return X_NUM_INT;
	}
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; p < end; p++) {
		unsigned d;

		if (!x_text_digit(*p))
			return X_NUM_NONE;
		d = (unsigned)(*p - '0');
		if (over || v > (limit - d) / 10)
			over = true;
		else
			v = v * 10 + d;
	}
	if (over)
		return X_NUM_INT_RANGE;
	if (!neg)
		*out = (int64_t)v;
	else if (v == (uint64_t)INT64_MAX + 1)
		*out = INT64_MIN;
	else
		*out = -(int64_t)v;
	return X_NUM_INT;
}

/* C's and .NET's spellings, in any case: inf, infinity, nan, and nan(...)
 * as the Universal CRT writes it ("-nan(ind)").  1 NaN, 0 infinity, -1
 * neither. */
static int x_text_c_special(const char *p, const char *end)
{
	size_t n = (size_t)(end - p);

	if ((n == 3 && strncasecmp(p, "inf", 3) == 0) ||
	    (n == 8 && strncasecmp(p, "infinity", 8) == 0))
		return 0;
	if (n == 3 && strncasecmp(p, "nan", 3) == 0)
		return 1;
	if (n < 5 || strncasecmp(p, "nan(", 4) != 0 || end[-1] != ')')
		return -1;
	for (p += 4; p < end - 1; p++)
		if (!x_text_alnum(*p))
			return -1;
	return 1;
}

/* MSVC's before 2015: digits.#(INF|IND|QNAN|SNAN)digits[e[+-]digits], as
 * in "1.#INF00", "-1.#IND00", "1.#QNAN0", "1.#INF00e+000".  1 NaN, 0
 * infinity, -1 neither. */
static int x_text_msvc_special(const char *p, const char *end)
{
	static const char *const words[] = { "INF", "IND", "QNAN", "SNAN" };
	int nan = -1;

	while (p < end && x_text_digit(*p))
		p++;
	if (end - p < 2 || p[0] != '.' || p[1] != '#')
		return -1;
	p += 2;
	for (size_t k = 0; nan < 0 && k < sizeof words / sizeof words[0]; k++) {
		size_t n = strlen(words[k]);

		if ((size_t)(end - p) >= n && strncasecmp(p, words[k], n) == 0) {
			nan = k > 0;
			p += n;
		}
	}
	while (p < end && x_text_digit(*p))
		p++;
	if (p < end && (*p == 'e' || *p == 'E')) {
		if (++p < end && (*p == '-' || *p == '+'))
			p++;
		if (p == end || !x_text_digit(*p))
			return -1;
		while (p < end && x_text_digit(*p))
			p++;
	}
	return p == end ? nan : -1;
}

/* A whole word that spells an infinity or a NaN, with an optional sign. */
static bool x_text_special(const char *s, size_t len, double *out)
{
	const char *p = s, *end = s + len;
	bool neg = false;
	int nan;

	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (p == end)
		return false;
	nan = x_text_digit(*p) ? x_text_msvc_special(p, end) : x_text_c_special(p, end);
	if (nan < 0)
		return false;
	*out = copysign(nan ? NAN : INFINITY, neg ? -1.0 : 1.0);
	return true;
}

/* [+-](digits[.digits] | .digits)[(e|E)[+-]digits] (decimal.h: strtod's
 * double, without strtod for ordinary numbers).  Underflow to zero or a
 * subnormal is accepted; overflow is X_NUM_FLOAT_RANGE. */
static enum x_text_number x_text_float(const char *s, size_t len, double *out)
{
	switch (decimal_parse(s, len, out)) {
	case DECIMAL_OK:
		return X_NUM_FLOAT;
	case DECIMAL_RANGE:
		return X_NUM_FLOAT_RANGE;
	case DECIMAL_NOMEM:
		return X_NUM_NOMEM;
	default:
		return X_NUM_NONE;
	}
}

/* What a token is as a value: an integer (*i), a float (*f), out of range,
 * or no number at all (a name, or not a word). */
static enum x_text_number x_text_number(const struct lex_token *tok, int64_t *i, double *f)
{
	enum x_text_number kind;

	if (tok->kind != LEX_WORD)
		return X_NUM_NONE;
	kind = x_text_int(tok->text, tok->len, i);
	if (kind == X_NUM_NONE)
		kind = x_text_float(tok->text, tok->len, f);
	if (kind == X_NUM_NONE && x_text_special(tok->text, tok->len, f))
		kind = X_NUM_FLOAT;
	return kind;
}

static bool x_text_is_number(const struct lex_token *tok)
{
	int64_t i;
	double f;

	return x_text_number(tok, &i, &f) != X_NUM_NONE;
}

/* ---- runs of plain numbers ----------------------------------------
 *
 * Most of a .x text file is arrays of numbers between separators
 * ("-0.293466;23.522514;52.188004;,").  Inside an object, with no token
 * looked ahead, x_text_values reads them straight from the bytes: the
 * separators and white space skipped, each number's digits gathered once
 * into an integer or a decimal (Clinger's fast path, as decimal_parse
 * computes it) and stored on the builder's value stack, with no token in
 * between.  It takes only what the token path would read the same way: a
 * word that is entirely [+-]digits (at most 18) or a decimal of at most 19
 * digits whose value is exact on the fast path, ending where the scanner
 * ends a word.  Anything else -- a name, a comment, a brace, a string, a
 * long or huge number, a NaN spelling, a stray byte -- stops the run where
 * it starts and is left to the token path, which reads it (and reports
 * its errors) as it always has.  x_text_read_tokens reads without this
 * path, for the tests that hold the two to the same trees.
 */

/* White space, ',' and ';': what stands between values. */
static const bool x_text_sep[256] = {
	[' '] = true, ['\t'] = true, ['\n'] = true, ['\r'] = true, ['\v'] = true, ['\f'] = true,
	[','] = true, [';'] = true,
};

/* Bytes that may start a number. */
static const bool x_text_num_start[256] = {
	['0'] = true, ['1'] = true, ['2'] = true, ['3'] = true, ['4'] = true, ['5'] = true,
	['6'] = true, ['7'] = true, ['8'] = true, ['9'] = true, ['-'] = true, ['+'] = true,
	['.'] = true,
};

/* Values stored per x_build_room. */
#define X_TEXT_ROOM 512u

/* Does the word that started before p end at p (as x_text_scan ends it)? */
static inline bool x_text_word_ends(const char *p, const char *end)
{
	unsigned k;

	if (p >= end)
		return true;
	k = x_text_class[(unsigned char)*p];
	if (k == XC_WORD || k == XC_HASH)
		return false;
	return k != XC_SLASH || x_text_comment_at(p, end);
}

/* The plain number at p (p < end, *p may start one) into *v, kind and
 * value; where it ends, or NULL when the word there is anything else. */
static inline const char *x_text_plain(const char *p, const char *end, struct x_value *v)
{
	const char *digits;
	bool neg = false, point = false;
	uint64_t m = 0;
	size_t n_int, n_frac = 0;
	int64_t e10 = 0;
	double f;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (digits = p; p < end && x_text_digit(*p); p++)
		m = m * 10 + (unsigned)(*p - '0');
	n_int = (size_t)(p - digits);
	if (p < end && *p == '.') {
		point = true;
		for (digits = ++p; p < end && x_text_digit(*p); p++)
			m = m * 10 + (unsigned)(*p - '0');
		n_frac = (size_t)(p - digits);
	}
	/* More digits than that may not fit m: the token path reads them. */
	if (n_int + n_frac == 0 || n_int + n_frac > 19 || (!point && n_int > 18))
		return NULL;
	if (p < end && (*p | 0x20) == 'e') {
		bool eneg = false;
		int64_t e = 0;

		if (++p < end && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		/* Past 4 digits the token path reads it: no more are added up. */
		for (digits = p; p < end && x_text_digit(*p); p++)
			if (e < 10000)
				e = e * 10 + (*p - '0');
		if (p == digits || p - digits > 4)
			return NULL;
		e10 = eneg ? -e : e;
		point = true;
	}
	if (!x_text_word_ends(p, end))
		return NULL;
	if (!point) {
		v->kind = X_VALUE_INT;
		v->v.i = neg ? -(int64_t)m : (int64_t)m;
		return p;
	}
	e10 -= (int64_t)n_frac;
	if (m > (UINT64_C(1) << 53) || e10 < -DECIMAL_EXACT_POW10 || e10 > DECIMAL_EXACT_POW10)
		return NULL;
	f = (double)m;
	f = e10 < 0 ? f / decimal_pow10[-e10] : f * decimal_pow10[e10];
	v->kind = X_VALUE_FLOAT;
	v->v.f = neg ? -f : f;
	return p;
}

/* Plain numbers and separators from r->p on, into the innermost open
 * object; stops (r->p there) at the first byte that is neither.  Room is
 * taken only once a number is read: taking it may move the object's
 * values (x_build_room), which is wasted when none follow.  0 or
 * -ENOMEM. */
static int x_text_values(struct x_text *r)
{
	const char *p = r->p, *end = r->end, *body = r->t->body, *q;

	for (;;) {
		struct x_value first, *room, *v;

		while (p < end && x_text_sep[(unsigned char)*p])
			p++;
		if (p >= end || !x_text_num_start[(unsigned char)*p] ||
		    (q = x_text_plain(p, end, &first)) == NULL) {
			r->p = p;
			return 0;
		}
		first.pos = (uint32_t)(p - body);
		p = q;
		room = x_build_room(r->b, X_TEXT_ROOM);
		if (room == NULL)
			return -ENOMEM;
		room[0] = first;
		v = room + 1;
		while (v < room + X_TEXT_ROOM) {
			while (p < end && x_text_sep[(unsigned char)*p])
				p++;
			if (p >= end || !x_text_num_start[(unsigned char)*p] ||
			    (q = x_text_plain(p, end, v)) == NULL)
				break;
			v->pos = (uint32_t)(p - body);
			v++;
			p = q;
		}
		x_build_commit(r->b, (uint32_t)(v - room));
		if (v < room + X_TEXT_ROOM) {
			r->p = p;
			return 0;
		}
	}
}

/* ---- the grammar -------------------------------------------------- */

static bool x_text_is_identifier(const struct lex_token *tok)
{
	if (tok->kind != LEX_WORD || tok->len == 0 || x_text_digit(tok->text[0]))
		return false;
	for (size_t i = 0; i < tok->len; i++)
		if (!x_text_alnum(tok->text[i]))
			return false;
	return true;
}

static int x_text_hex(char c)
{
	if (x_text_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 16 bytes from "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX", in the order
 * written (x_tree.h: "in the order the file gives the bytes"). */
static int x_text_guid(struct x_text *r, const struct lex_token *tok, uint8_t guid[16])
{
	char shown[X_TEXT_SHOWN];
	size_t i = 0, n = 0;

	while (tok->len == 36 && i < 36) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (tok->text[i++] != '-')
				break;
			continue;
		}
		/* Groups have an even number of digits: a pair never
		 * straddles a '-'. */
		hi = x_text_hex(tok->text[i]);
		lo = x_text_hex(tok->text[i + 1]);
		if (hi < 0 || lo < 0)
			break;
		guid[n++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	if (n == 16)
		return 0;
	return x_text_fail(r, x_text_pos(r, tok),
			   "malformed GUID <%s>: expected <XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX> "
			   "in hexadecimal", lex_show(tok->text, tok->len, shown, sizeof shown));
}

/* Where a value or an object was due and something else stands. */
static int x_text_unexpected(struct x_text *r, const struct lex_token *tok)
{
	char found[X_TEXT_FOUND];
	uint32_t pos = x_text_pos(r, tok);
	bool value = tok->kind == LEX_STRING || x_text_is_number(tok);
	const char *hint = value ? X_TEXT_VALUE_HINT :
			   tok->kind == LEX_WORD ? X_TEXT_OBJECT_HINT : "";

	lex_describe(tok, found, sizeof found);
	if (x_build_depth(r->b) == 0)
		return x_text_fail(r, pos, "expected an object or a template, found %s%s", found,
				   hint);
	if (tok->kind == LEX_GUID)
		return x_text_fail(r, pos, "unexpected %s: an object's GUID comes right after "
				   "its '{'", found);
	return x_text_fail(r, pos, "expected a value, an object or '}', found %s%s", found,
			   value ? "" : hint);
}

/* "template Name { ... }": read past, braces matched. */
static int x_text_template(struct x_text *r)
{
	struct lex_token kw = r->ahead[0], name;
	char shown[X_TEXT_SHOWN], found[X_TEXT_FOUND];
	uint32_t pos = x_text_pos(r, &kw), depth = 1;

	if (x_build_depth(r->b) > 0)
		return x_text_fail(r, pos, "a template inside an object: templates belong at the "
				   "top level");
	if (x_text_fill(r, 2) < 0)
		return -EINVAL;
	name = r->ahead[1];
	if (name.kind != LEX_WORD)
		return x_text_fail(r, x_text_pos(r, &name), "expected a template name after "
				   "\"template\", found %s",
				   lex_describe(&name, found, sizeof found));
	lex_show(name.text, name.len, shown, sizeof shown);
	if (!lex_is_punct(&r->ahead[2], '{'))
		return x_text_fail(r, x_text_pos(r, &r->ahead[2]),
				   "expected '{' after \"template %s\", found %s", shown,
				   lex_describe(&r->ahead[2], found, sizeof found));
	x_text_drop(r, 3);
	while (depth > 0) {
		const struct lex_token *tok;

		if (x_text_fill(r, 0) < 0)
			return -EINVAL;
		tok = &r->ahead[0];
		if (tok->kind == LEX_EOF)
			return x_text_fail(r, pos, "template %s is never closed: the file ends "
					   "before its '}'", shown);
		if (lex_is_punct(tok, '{'))
			depth++;
		else if (lex_is_punct(tok, '}'))
			depth--;
		x_text_drop(r, 1);
	}
	return 0;
}

/* "{ name }", "{ <GUID> }" or "{ name <GUID> }" inside an object. */
static int x_text_reference(struct x_text *r)
{
	char found[X_TEXT_FOUND];
	uint32_t pos = x_text_pos(r, &r->ahead[0]);
	const char *name = NULL;
	size_t name_len = 0;
	uint8_t guid[16];
	bool has_guid = false;
	struct lex_token tok;

	if (x_build_depth(r->b) == 0)
		return x_text_fail(r, pos, "expected an object or a template, found '{'"
				   X_TEXT_OBJECT_HINT);
	x_text_drop(r, 1);
	if (x_text_fill(r, 0) < 0)
		return -EINVAL;
	tok = r->ahead[0];
	if (lex_is_punct(&tok, '}'))
		return x_text_fail(r, pos, "a reference with nothing in it: write { name }, "
				   "{ <GUID> } or { name <GUID> }");
	if (tok.kind == LEX_WORD) {
		name = tok.text;
		name_len = tok.len;
		x_text_drop(r, 1);
		if (x_text_fill(r, 0) < 0)
			return -EINVAL;
		tok = r->ahead[0];
	}
	if (tok.kind == LEX_GUID) {
		if (x_text_guid(r, &tok, guid) < 0)
			return -EINVAL;
		has_guid = true;
		x_text_drop(r, 1);
		if (x_text_fill(r, 0) < 0)
			return -EINVAL;
		tok = r->ahead[0];
	}
	if (name == NULL && !has_guid)
		return x_text_fail(r, x_text_pos(r, &tok),
				   "expected a name or a <GUID> in the reference, found %s",
				   lex_describe(&tok, found, sizeof found));
	if (!lex_is_punct(&tok, '}'))
		return x_text_fail(r, x_text_pos(r, &tok),
				   "expected '}' to end the reference, found %s",
				   lex_describe(&tok, found, sizeof found));
	x_text_drop(r, 1);
	return x_build_reference(r->b, name, name_len, has_guid ? guid : NULL, pos);
}

/* ahead[0] is the type, ahead[1] the name when `named`, then '{'. */
static int x_text_open(struct x_text *r, bool named)
{
	const struct lex_token *type = &r->ahead[0], *name = named ? &r->ahead[1] : NULL;
	char found[X_TEXT_FOUND];
	uint8_t guid[16];
	int rc;

	if (!x_text_is_identifier(type))
		return x_text_fail(r, x_text_pos(r, type), "%s cannot start an object: a type "
				   "name is letters, digits and '_', not starting with a digit",
				   lex_describe(type, found, sizeof found));
	rc = x_build_open(r->b, type->text, type->len, name ? name->text : NULL,
			  name ? name->len : 0, x_text_pos(r, type));
	if (rc < 0)
		return rc;
	x_text_drop(r, named ? 3 : 2);
	if (x_text_fill(r, 0) < 0)
		return -EINVAL;
	if (r->ahead[0].kind != LEX_GUID)
		return 0;
	if (x_text_guid(r, &r->ahead[0], guid) < 0)
		return -EINVAL;
	x_text_drop(r, 1);
	return x_build_guid(r->b, guid);
}

/* A word: a value, the start of an object or a template, or an error. */
static int x_text_word(struct x_text *r)
{
	struct lex_token w = r->ahead[0];
	char shown[X_TEXT_SHOWN], found[X_TEXT_FOUND];
	uint32_t pos = x_text_pos(r, &w);
	int64_t i = 0;
	double f = 0;

	switch (x_text_number(&w, &i, &f)) {
	case X_NUM_INT:
		if (x_build_depth(r->b) == 0)
			return x_text_unexpected(r, &w);
		x_text_drop(r, 1);
		return x_build_int(r->b, i, pos);
	case X_NUM_FLOAT:
		if (x_build_depth(r->b) == 0)
			return x_text_unexpected(r, &w);
		x_text_drop(r, 1);
		return x_build_float(r->b, f, pos);
	case X_NUM_INT_RANGE:
		return x_text_fail(r, pos, "integer %s does not fit in 64 bits",
				   lex_show(w.text, w.len, shown, sizeof shown));
	case X_NUM_FLOAT_RANGE:
		return x_text_fail(r, pos, "number %s is too large for a double",
				   lex_show(w.text, w.len, shown, sizeof shown));
	case X_NUM_NOMEM:
		return -ENOMEM;
	case X_NUM_NONE:
		break;
	}
	if (w.len == 8 && strncasecmp(w.text, "template", 8) == 0)
		return x_text_template(r);
	if (x_text_fill(r, 1) < 0)
		return -EINVAL;
	if (lex_is_punct(&r->ahead[1], '{'))
		return x_text_open(r, false);
	if (r->ahead[1].kind == LEX_WORD) {
		if (x_text_fill(r, 2) < 0)
			return -EINVAL;
		if (lex_is_punct(&r->ahead[2], '{'))
			return x_text_open(r, true);
		/* "Type name" then no '{': say so where the '{' is missing,
		 * unless the second word is a value after a stray word. */
		if (x_text_is_identifier(&w) && !x_text_is_number(&r->ahead[1])) {
			const struct lex_token *n = &r->ahead[1];
			char name[X_TEXT_SHOWN];

			lex_show(w.text, w.len, shown, sizeof shown);
			lex_show(n->text, n->len, name, sizeof name);
			lex_describe(&r->ahead[2], found, sizeof found);
			return x_text_fail(r, x_text_pos(r, &r->ahead[2]), "expected '{' after "
					   "\"%s %s\", found %s", shown, name, found);
		}
	}
	return x_text_unexpected(r, &w);
}

static int x_text_body(struct x_text *r, bool fast)
{
	for (;;) {
		struct lex_token *tok;
		int rc;

		if (fast && r->n_ahead == 0 && x_build_depth(r->b) > 0 && x_text_values(r) < 0)
			return -ENOMEM;
		if (x_text_fill(r, 0) < 0)
			return -EINVAL;
		tok = &r->ahead[0];
		switch (tok->kind) {
		case LEX_EOF:
			rc = x_build_finish(r->b, x_text_pos(r, tok));
			r->b = NULL;
			return rc;
		case LEX_WORD:
			rc = x_text_word(r);
			break;
		case LEX_STRING:
			if (x_build_depth(r->b) == 0)
				return x_text_unexpected(r, tok);
			rc = x_build_string(r->b, tok->text, tok->len, x_text_pos(r, tok));
			x_text_drop(r, 1);
			break;
		case LEX_PUNCT:
			if (tok->text[0] == ',' || tok->text[0] == ';') {
				x_text_drop(r, 1);
				rc = 0;
			} else if (tok->text[0] == '}') {
				rc = x_build_close(r->b, x_text_pos(r, tok));
				x_text_drop(r, 1);
			} else if (lex_is_punct(tok, '{')) {
				rc = x_text_reference(r);
			} else {
				rc = x_text_unexpected(r, tok);
			}
			break;
		default:
			rc = x_text_unexpected(r, tok);
			break;
		}
		if (rc < 0)
			return rc;
	}
}

static int x_text_run(struct x_tree *t, struct diag *d, bool fast)
{
	struct x_text r;
	size_t len = t->body_len;
	int rc;

	memset(&r, 0, sizeof r);
	r.t = t;
	r.d = d;
	if (len > UINT32_MAX)
		return x_text_fail(&r, 0, "%zu bytes of text: positions are 32-bit", len);
	while (len > 0 && t->body[len - 1] == '\0')
		len--;
	r.p = t->body;
	r.end = t->body + len;
	rc = x_build_begin(&r.b, t, d);
	if (rc == 0)
		rc = x_text_body(&r, fast);
	x_build_abort(r.b);
	if (rc == -ENOMEM)
		x_tree_error(t, d, (uint32_t)(r.p - t->body), "out of memory");
	return rc;
}

/*
 * 0 with t's roots filled; -EINVAL with d set; -ENOMEM (d says "out of
 * memory").  On failure t may hold part of a tree: the caller frees it with
 * x_tree_free, as x_parse does.
 */
int x_text_read(struct x_tree *t, struct diag *d)
{
	return x_text_run(t, d, true);
}

int x_text_read_tokens(struct x_tree *t, struct diag *d)
{
	return x_text_run(t, d, false);
}
