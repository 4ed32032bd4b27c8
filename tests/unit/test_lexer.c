/*
 * The shared tokenizer: token kinds and text, exact line:col through
 * comments and every line-end style, errors for unterminated strings and
 * comments and control bytes, numbers (and the fast number paths agreeing
 * with strtod bit for bit), peek, and the expect helpers' messages.  Input
 * is copied into buffers of its exact length so ASan catches over-reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/lexer.h"

#define MAX_TOKENS 64

struct scan {
	char *buf;              /* exact-length copy, no terminator */
	struct lexer lx;
	struct diag d;
};

static void scan_open(struct scan *s, const char *text, size_t len, const char *puncts,
		      unsigned flags)
{
	s->buf = malloc(len ? len : 1);
	assert_non_null(s->buf);
	memcpy(s->buf, text, len);
	memset(&s->d, 0, sizeof s->d);
	lex_init(&s->lx, s->buf, len, puncts, flags, &s->d);
}

static void scan_close(struct scan *s)
{
	free(s->buf);
}

static void expect_token(struct scan *s, enum lex_kind kind, const char *text, uint32_t line,
			 uint32_t col)
{
	struct lex_token tok;

	assert_int_equal(lex_next(&s->lx, &tok), 0);
	if (tok.kind != kind || tok.len != strlen(text) || memcmp(tok.text, text, tok.len) != 0 ||
	    tok.line != line || tok.col != col)
		fail_msg("got kind %d \"%.*s\" at %u:%u; want kind %d \"%s\" at %u:%u",
			 (int)tok.kind, (int)tok.len, tok.text, (unsigned)tok.line,
			 (unsigned)tok.col, (int)kind, text, (unsigned)line, (unsigned)col);
}

static void expect_error(struct scan *s, uint32_t line, uint32_t col, const char *msg)
{
	struct lex_token tok;
	int rc = lex_next(&s->lx, &tok);

	if (rc != -EINVAL || s->d.line != line || s->d.col != col || strstr(s->d.msg, msg) == NULL)
		fail_msg("got rc %d at %u:%u \"%s\"; want -EINVAL at %u:%u \"%s\"", rc,
			 (unsigned)s->d.line, (unsigned)s->d.col, s->d.msg, (unsigned)line,
			 (unsigned)col, msg);
}

/* Tokens of a whole input, for the error-free cases. */
#define SCAN(s, text) scan_open(s, text, strlen(text), "(){}", 0)

static void test_kinds_and_positions(void **state)
{
	struct scan s;

	(void)state;
	SCAN(&s, "joints {\n\t\"a b\" -1 ( 0.5 )\n}\"\"x");
	expect_token(&s, LEX_WORD, "joints", 1, 1);
	expect_token(&s, LEX_PUNCT, "{", 1, 8);
	expect_token(&s, LEX_STRING, "a b", 2, 2);
	expect_token(&s, LEX_WORD, "-1", 2, 8);
	expect_token(&s, LEX_PUNCT, "(", 2, 11);
	expect_token(&s, LEX_WORD, "0.5", 2, 13);
	expect_token(&s, LEX_PUNCT, ")", 2, 17);
	expect_token(&s, LEX_PUNCT, "}", 3, 1);
	expect_token(&s, LEX_STRING, "", 3, 2);
	expect_token(&s, LEX_WORD, "x", 3, 4);
	expect_token(&s, LEX_EOF, "", 3, 5);
	expect_token(&s, LEX_EOF, "", 3, 5);         /* and again */
	scan_close(&s);
}

static void test_words_stop_at_punct_and_quotes(void **state)
{
	struct scan s;

	(void)state;
	SCAN(&s, "a(b)c{d}e\"s\"f a/b");
	expect_token(&s, LEX_WORD, "a", 1, 1);
	expect_token(&s, LEX_PUNCT, "(", 1, 2);
	expect_token(&s, LEX_WORD, "b", 1, 3);
	expect_token(&s, LEX_PUNCT, ")", 1, 4);
	expect_token(&s, LEX_WORD, "c", 1, 5);
	expect_token(&s, LEX_PUNCT, "{", 1, 6);
	expect_token(&s, LEX_WORD, "d", 1, 7);
	expect_token(&s, LEX_PUNCT, "}", 1, 8);
	expect_token(&s, LEX_WORD, "e", 1, 9);
	expect_token(&s, LEX_STRING, "s", 1, 10);
	expect_token(&s, LEX_WORD, "f", 1, 13);
	expect_token(&s, LEX_WORD, "a/b", 1, 15);    /* a lone slash is no comment */
	expect_token(&s, LEX_EOF, "", 1, 18);
	scan_close(&s);
}

static void test_comments(void **state)
{
	struct scan s;

	(void)state;
	SCAN(&s, "a // to the end ( \"\nb /* over\n two lines */ c/**/d ab//x\ne/*\"*/f");
	expect_token(&s, LEX_WORD, "a", 1, 1);
	expect_token(&s, LEX_WORD, "b", 2, 1);
	expect_token(&s, LEX_WORD, "c", 3, 15);
	expect_token(&s, LEX_WORD, "d", 3, 20);
	expect_token(&s, LEX_WORD, "ab", 3, 22);
	expect_token(&s, LEX_WORD, "e", 4, 1);
	expect_token(&s, LEX_WORD, "f", 4, 7);
	expect_token(&s, LEX_EOF, "", 4, 8);
	scan_close(&s);

	/* "#" is a word byte unless the format asks for hash comments. */
	SCAN(&s, "#x\na");
	expect_token(&s, LEX_WORD, "#x", 1, 1);
	scan_close(&s);
	scan_open(&s, "#x ( \na", 7, "(){}", LEX_HASH_COMMENTS);
	expect_token(&s, LEX_WORD, "a", 2, 1);
	scan_close(&s);
	/* Without LEX_HASH_IN_WORDS a '#' ends a word and starts a comment;
	 * with it, only a '#' where a token would start does (.x writes
	 * MSVC's NaN as 1.#IND00). */
	scan_open(&s, "1.#IND00 b\nc", 12, "(){}", LEX_HASH_COMMENTS);
	expect_token(&s, LEX_WORD, "1.", 1, 1);
	expect_token(&s, LEX_WORD, "c", 2, 1);
	scan_close(&s);
	scan_open(&s, "1.#IND00 b #c\nd", 15, "(){}", LEX_HASH_COMMENTS | LEX_HASH_IN_WORDS);
	expect_token(&s, LEX_WORD, "1.#IND00", 1, 1);
	expect_token(&s, LEX_WORD, "b", 1, 10);
	expect_token(&s, LEX_WORD, "d", 2, 1);
	scan_close(&s);

	/* A comment ending exactly at the end of the buffer. */
	SCAN(&s, "a/*x*/");
	expect_token(&s, LEX_WORD, "a", 1, 1);
	expect_token(&s, LEX_EOF, "", 1, 7);
	scan_close(&s);
	SCAN(&s, "a//");
	expect_token(&s, LEX_WORD, "a", 1, 1);
	expect_token(&s, LEX_EOF, "", 1, 4);
	scan_close(&s);
}

static void test_line_ends(void **state)
{
	struct scan s;

	(void)state;
	/* LF, CRLF and a lone CR each end one line. */
	SCAN(&s, "a\r\n  b\rc\nd\r\n\r\ne\r");
	expect_token(&s, LEX_WORD, "a", 1, 1);
	expect_token(&s, LEX_WORD, "b", 2, 3);
	expect_token(&s, LEX_WORD, "c", 3, 1);
	expect_token(&s, LEX_WORD, "d", 4, 1);
	expect_token(&s, LEX_WORD, "e", 6, 1);
	expect_token(&s, LEX_EOF, "", 7, 1);
	scan_close(&s);

	/* CRLF and // comments: the comment stops at the CR. */
	SCAN(&s, "a // x\r\nb\n\rc");
	expect_token(&s, LEX_WORD, "a", 1, 1);
	expect_token(&s, LEX_WORD, "b", 2, 1);
	expect_token(&s, LEX_WORD, "c", 4, 1);     /* LF then CR: two lines */
	scan_close(&s);

	/* Block comments count the line ends inside them. */
	SCAN(&s, "/*\r\n\r\r\n*/ x");
	expect_token(&s, LEX_WORD, "x", 4, 4);
	scan_close(&s);

	/* Tabs, vertical tabs and form feeds are one column each. */
	SCAN(&s, "\t\v\fx");
	expect_token(&s, LEX_WORD, "x", 1, 4);
	scan_close(&s);
}

static void test_unterminated(void **state)
{
	struct scan s;

	(void)state;
	SCAN(&s, "a \"abc");
	expect_token(&s, LEX_WORD, "a", 1, 1);
	expect_error(&s, 1, 3, "string opened here is not closed on its line");
	scan_close(&s);
	SCAN(&s, "\n  \"abc\ndef\"");
	expect_error(&s, 2, 3, "string opened here is not closed on its line");
	scan_close(&s);
	SCAN(&s, "\"abc\r\"");
	expect_error(&s, 1, 1, "string opened here is not closed on its line");
	scan_close(&s);
	SCAN(&s, "a\n /* x\n\n");
	expect_token(&s, LEX_WORD, "a", 1, 1);
	expect_error(&s, 2, 2, "comment opened here is never closed");
	scan_close(&s);
	SCAN(&s, "/*/");
	expect_error(&s, 1, 1, "comment opened here is never closed");
	scan_close(&s);
	SCAN(&s, "/* *");
	expect_error(&s, 1, 1, "comment opened here is never closed");
	scan_close(&s);
}

static void test_control_bytes(void **state)
{
	struct scan s;

	(void)state;
	SCAN(&s, "ab\x01" "c");
	expect_token(&s, LEX_WORD, "ab", 1, 1);
	expect_error(&s, 1, 3, "unexpected control byte 0x01 (is this a text file?)");
	scan_close(&s);
	SCAN(&s, "\n x\x7f");
	expect_token(&s, LEX_WORD, "x", 2, 2);
	expect_error(&s, 2, 3, "unexpected control byte 0x7f");
	scan_close(&s);
	scan_open(&s, "a\0b", 3, "(){}", 0);
	expect_token(&s, LEX_WORD, "a", 1, 1);
	expect_error(&s, 1, 2, "unexpected control byte 0x00");
	scan_close(&s);
	/* Inside a string too: a NUL would cut a copied name short. */
	scan_open(&s, "x \"a\0b\"", 7, "(){}", 0);
	expect_token(&s, LEX_WORD, "x", 1, 1);
	expect_error(&s, 1, 5, "unexpected control byte 0x00 in a string");
	scan_close(&s);
	SCAN(&s, "\"a\x1b\"");
	expect_error(&s, 1, 3, "unexpected control byte 0x1b in a string");
	scan_close(&s);
	/* A tab in a string is text; so are bytes above 0x7f. */
	SCAN(&s, "\"a\tb\" \"\xc3\xa9t\xc3\xa9\" \xc3\xa9");
	expect_token(&s, LEX_STRING, "a\tb", 1, 1);
	expect_token(&s, LEX_STRING, "\xc3\xa9t\xc3\xa9", 1, 7);
	expect_token(&s, LEX_WORD, "\xc3\xa9", 1, 15);
	scan_close(&s);
}

static void test_guids_and_plain_punct(void **state)
{
	struct scan s;

	(void)state;
	scan_open(&s, "a<12-ab>b <x\n>", 14, "{};,", LEX_GUIDS);
	expect_token(&s, LEX_WORD, "a", 1, 1);
	expect_token(&s, LEX_GUID, "12-ab", 1, 2);
	expect_token(&s, LEX_WORD, "b", 1, 9);
	expect_error(&s, 1, 11, "GUID opened here is not closed on its line");
	scan_close(&s);
	/* Without the flag '<' is a word byte. */
	SCAN(&s, "a<b>");
	expect_token(&s, LEX_WORD, "a<b>", 1, 1);
	scan_close(&s);
	/* A format whose punctuation includes word bytes ('.', '-'). */
	scan_open(&s, "a.b-c 1.5", 9, ".-", 0);
	expect_token(&s, LEX_WORD, "a", 1, 1);
	expect_token(&s, LEX_PUNCT, ".", 1, 2);
	expect_token(&s, LEX_WORD, "b", 1, 3);
	expect_token(&s, LEX_PUNCT, "-", 1, 4);
	expect_token(&s, LEX_WORD, "c", 1, 5);
	expect_token(&s, LEX_WORD, "1", 1, 7);
	expect_token(&s, LEX_PUNCT, ".", 1, 8);
	expect_token(&s, LEX_WORD, "5", 1, 9);
	scan_close(&s);
}

static void test_peek(void **state)
{
	struct lex_token a, b, c;
	struct scan s;

	(void)state;
	SCAN(&s, "x ( y");
	assert_int_equal(lex_peek(&s.lx, &a), 0);
	assert_int_equal(lex_peek(&s.lx, &b), 0);
	assert_true(lex_is_word(&a, "x") && lex_is_word(&b, "x"));
	assert_int_equal(lex_next(&s.lx, &c), 0);
	assert_true(lex_is_word(&c, "x"));
	assert_int_equal(c.col, 1);
	assert_int_equal(lex_peek(&s.lx, &a), 0);
	assert_true(lex_is_punct(&a, '('));
	expect_token(&s, LEX_PUNCT, "(", 1, 3);
	expect_token(&s, LEX_WORD, "y", 1, 5);
	assert_int_equal(lex_peek(&s.lx, &a), 0);
	assert_int_equal(a.kind, LEX_EOF);
	expect_token(&s, LEX_EOF, "", 1, 6);
	scan_close(&s);
	/* A peek that hits an error reports it. */
	SCAN(&s, "\"x");
	assert_int_equal(lex_peek(&s.lx, &a), -EINVAL);
	assert_string_equal(s.d.msg, "string opened here is not closed on its line");
	scan_close(&s);
}

static void test_remaining_and_strdup(void **state)
{
	struct lex_token tok;
	struct scan s;
	char *copy;

	(void)state;
	SCAN(&s, "\"name\" 12345");
	assert_int_equal(lex_remaining(&s.lx), 12);
	assert_int_equal(lex_next(&s.lx, &tok), 0);
	assert_int_equal(lex_remaining(&s.lx), 6);
	copy = lex_strdup(&tok);
	assert_string_equal(copy, "name");
	free(copy);
	assert_int_equal(lex_next(&s.lx, &tok), 0);
	assert_int_equal(lex_remaining(&s.lx), 0);
	scan_close(&s);
}

/* ---- numbers ---- */

static struct lex_token word(const char *text)
{
	struct lex_token tok = { LEX_WORD, text, strlen(text), 1, 1 };

	return tok;
}

static void test_ints(void **state)
{
	static const struct {
		const char *text;
		int64_t value;
	} good[] = {
		{ "0", 0 }, { "-0", 0 }, { "+7", 7 }, { "-1", -1 }, { "0012", 12 },
		{ "123456789012345678", 123456789012345678 },
		{ "9223372036854775807", INT64_MAX },
		{ "-9223372036854775808", INT64_MIN },
	};
	static const char *const bad[] = {
		"", "-", "+", "1.0", "1e3", "0x10", "12a", "a12", "--1", "+-1", " 1",
		"9223372036854775808", "-9223372036854775809", "99999999999999999999",
	};
	struct lex_token tok;
	size_t i;
	int64_t v;

	(void)state;
	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		tok = word(good[i].text);
		if (lex_token_int(&tok, &v) != 0 || v != good[i].value)
			fail_msg("\"%s\"", good[i].text);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		tok = word(bad[i]);
		if (lex_token_int(&tok, &v) != -EINVAL)
			fail_msg("\"%s\" accepted", bad[i]);
	}
	/* Strings and punctuation are not numbers, even when they look it. */
	tok = word("12");
	tok.kind = LEX_STRING;
	assert_int_equal(lex_token_int(&tok, &v), -EINVAL);
}

/*
 * lex_try_int against lex_next and lex_token_int on random MD5-like text:
 * integers of 0 to 21 digits with and without signs, decimals, words,
 * brackets, blanks, tabs, LF and CRLF line ends, comments.  One lexer
 * tries each token as an integer in place first, the other only ever
 * makes tokens: whenever the first takes an integer, the second's token
 * is a word of the same text, line and column with the same value, and
 * after every step both stand at the same byte, line and column.  With
 * '-' among the punctuation, a signed number is never taken.
 */
static void test_try_int_matches_tokens(void **state)
{
	static const char *const pieces[] = { " ", "\t", "\n", "\r\n", "(", ")", "{", "}",
					      "12.5", "-0.75", "vert", "x1", "// note\n",
					      "/* c */", "\"s\"", "1e5", "7x" };
	uint64_t seed = 42;
	char buf[600];

	(void)state;
	for (int round = 0; round < 20000; round++) {
		const char *puncts = round % 5 == 4 ? "(){}-" : "(){}";
		size_t o = 0;
		struct scan a, b;

		while (o < sizeof buf - 40) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			if ((seed >> 33) % 3 == 0) {
				const char *piece = pieces[(seed >> 40) % (sizeof pieces / sizeof *pieces)];

				memcpy(buf + o, piece, strlen(piece));
				o += strlen(piece);
			} else {
				unsigned digits = (unsigned)((seed >> 20) % 22);

				if ((seed >> 45) % 4 == 0)
					buf[o++] = (seed >> 47) % 2 ? '-' : '+';
				for (unsigned k = 0; k < digits; k++)
					buf[o++] = (char)('0' + (seed >> (k % 30)) % 10);
				buf[o++] = (seed >> 50) % 2 ? ' ' : '\n';
			}
		}
		scan_open(&a, buf, o, puncts, 0);
		scan_open(&b, buf, o, puncts, 0);
		for (;;) {
			struct lex_token ta, tb;
			int64_t va, vb;
			int ra, rb;

			if (lex_try_int(&a.lx, &va, &ta)) {
				assert_int_equal(lex_next(&b.lx, &tb), 0);
				assert_int_equal(tb.kind, LEX_WORD);
				assert_int_equal(lex_token_int(&tb, &vb), 0);
				assert_true(va == vb);
				assert_true(ta.kind == tb.kind && ta.len == tb.len);
				assert_true(ta.text - a.buf == tb.text - b.buf);
				assert_int_equal(ta.line, tb.line);
				assert_int_equal(ta.col, tb.col);
				if (strchr(puncts, '-') != NULL)
					assert_true(ta.text[0] != '-');
			} else {
				ra = lex_next(&a.lx, &ta);
				rb = lex_next(&b.lx, &tb);
				assert_int_equal(ra, rb);
				if (ra < 0)
					break;
				assert_true(ta.kind == tb.kind && ta.len == tb.len);
				assert_true(ta.text - a.buf == tb.text - b.buf);
				if (ta.kind == LEX_EOF)
					break;
			}
			assert_true(a.lx.p - a.buf == b.lx.p - b.buf);
			assert_int_equal(a.lx.line, b.lx.line);
			assert_int_equal(a.lx.col, b.lx.col);
		}
		scan_close(&a);
		scan_close(&b);
	}
}

static void test_floats(void **state)
{
	static const char *const good[] = {
		"0", "-0", "1", "-1.5", "+2.25", ".5", "5.", "-.5", "1e3", "1E3", "1.5e-2",
		"-2.5E+10", "0.0000000105", "31.9803333282", "-0.7071067691", "1e-50", "1e-400",
		"3.40282347e+38", "-3.40282347e+38", "1.17549435e-38", "12345678901234567890",
		"0.1234567890123456789012345", "1e22", "1e23", "9007199254740993", "000000.5",
	};
	static const char *const bad[] = {
		"", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "0x1p3", "0X10", "1e", "1e+",
		"e5", ".", "-", "+", "1.2.3", "1,5", "1f", "1e39", "-1e39", "3.4028236e38",
		"1e400", "--1", "1e5e5",
	};
	struct lex_token tok;
	size_t i;
	float f;

	(void)state;
	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		float want = (float)strtod(good[i], NULL);

		tok = word(good[i]);
		if (lex_token_float(&tok, &f) != 0 || memcmp(&f, &want, sizeof f) != 0)
			fail_msg("\"%s\": got %.9g, want %.9g", good[i], (double)f, (double)want);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		tok = word(bad[i]);
		if (lex_token_float(&tok, &f) != -EINVAL)
			fail_msg("\"%s\" accepted as %g", bad[i], (double)f);
	}
	/* FLT_MAX as %.9g prints it reads back as FLT_MAX. */
	tok = word("3.40282347e+38");
	assert_int_equal(lex_token_float(&tok, &f), 0);
	assert_true(f == FLT_MAX);
	/* Longer than any number we take. */
	tok = word("0.000000000000000000000000000000000000000000000000000000000000000001");
	assert_int_equal(lex_token_float(&tok, &f), -EINVAL);
}

/* The fast decimal path must give exactly (float)strtod: random numbers of
 * the shapes exporters write, and of shapes they do not. */
static void test_floats_match_strtod(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15u;
	char text[80];
	int i;

	(void)state;
	for (i = 0; i < 200000; i++) {
		struct lex_token tok;
		float got, want;
		int n = 0, digits, k;

		seed = seed * 6364136223846793005u + 1442695040888963407u;
		if (seed >> 63)
			text[n++] = '-';
		digits = 1 + (int)((seed >> 8) % 20);
		for (k = 0; k < digits; k++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			text[n++] = (char)('0' + (seed >> 33) % 10);
			if (k == (int)((seed >> 40) % (unsigned)(digits + 2)))
				text[n++] = '.';
		}
		if ((seed >> 50) % 3 == 0)
			n += snprintf(text + n, sizeof text - (size_t)n, "e%d",
				      (int)((seed >> 20) % 61) - 30);
		text[n] = '\0';
		want = (float)strtod(text, NULL);
		tok = word(text);
		if (strchr(text, '.') != NULL && strchr(strchr(text, '.') + 1, '.') != NULL)
			continue;       /* two dots: not a number, checked elsewhere */
		if (!isfinite(want) || fabs(strtod(text, NULL)) >= 3.4028235677973366e38) {
			assert_int_equal(lex_token_float(&tok, &got), -EINVAL);
			continue;
		}
		if (lex_token_float(&tok, &got) != 0 || memcmp(&got, &want, sizeof got) != 0)
			fail_msg("\"%s\": got %.9g, want %.9g", text, (double)got, (double)want);
	}
}

/* ---- the expect helpers ---- */

/* lex_expect_float reads ordinary numbers straight from the bytes; on
 * random mixes of numbers, words, blanks, line breaks, comments and
 * punctuation it must do exactly what a token and lex_token_float do:
 * the same values bit for bit, the same position after each, and a
 * failure at the token's line:col. */
static void test_expect_float_direct(void **state)
{
	static const char *const parts[] = {
		"1.5", "-0.25", "+3", "0", "-0", "1e5", "2.5E-3", "12345678901234567890",
		"0.1e-30", "3.4e38", "1.5abc", "-", ".", "1.2.3", "7.", ".5", "1e", "0x10",
		"nan", "word", " ", " ", "\t", "\n", "\r\n", "(", ")", "{", "// c\n",
		"/* x */", "/", "\"s\"", "1/2", "4*", "\x01",
	};
	uint64_t rng = 0x9E3779B97F4A7C15ull;

	(void)state;
	for (int round = 0; round < 4000; round++) {
		char text[512];
		size_t len = 0;
		struct scan a, b;

		for (int k = 0; k < 24; k++) {
			const char *part;

			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			part = parts[rng % (sizeof parts / sizeof parts[0])];
			memcpy(text + len, part, strlen(part));
			len += strlen(part);
			if (rng & 0x100)
				text[len++] = ' ';
		}
		scan_open(&a, text, len, "(){}", LEX_HASH_COMMENTS);
		scan_open(&b, text, len, "(){}", LEX_HASH_COMMENTS);
		for (int step = 0; step < 40; step++) {
			struct lex_token tok;
			float va = 0, vb = 0;
			int ra = lex_expect_float(&a.lx, "x", &va);
			int rb = lex_next(&b.lx, &tok);

			if (rb == 0)
				rb = lex_token_float(&tok, &vb) == 0 ? 0 : -EINVAL;
			if ((ra == 0) != (rb == 0))
				fail_msg("round %d step %d: direct %d, token %d on \"%.*s\"", round,
					 step, ra, rb, (int)len, text);
			if (ra != 0) {
				/* A bad token is reported where it starts. */
				if (tok.kind != LEX_EOF && (a.d.line != tok.line || a.d.col != tok.col))
					fail_msg("round %d: error at %u:%u, token at %u:%u", round,
						 (unsigned)a.d.line, (unsigned)a.d.col,
						 (unsigned)tok.line, (unsigned)tok.col);
				break;
			}
			if (memcmp(&va, &vb, sizeof va) != 0 || a.lx.p != a.buf + (b.lx.p - b.buf) ||
			    a.lx.line != b.lx.line || a.lx.col != b.lx.col)
				fail_msg("round %d step %d: %a at %u:%u, token %a at %u:%u", round,
					 step, (double)va, (unsigned)a.lx.line, (unsigned)a.lx.col,
					 (double)vb, (unsigned)b.lx.line, (unsigned)b.lx.col);
		}
		scan_close(&a);
		scan_close(&b);
	}
}

static void test_expect_messages(void **state)
{
	struct lex_token tok;
	struct scan s;
	int64_t v;
	float f;

	(void)state;
	SCAN(&s, "numJoints");
	assert_int_equal(lex_expect_word(&s.lx, "numJoints"), 0);
	assert_int_equal(lex_expect_word(&s.lx, "x"), -EINVAL);
	assert_string_equal(s.d.msg, "expected \"x\", found end of file");
	assert_int_equal(s.d.col, 10);
	scan_close(&s);

	SCAN(&s, "a");
	assert_int_equal(lex_expect_punct(&s.lx, '{'), -EINVAL);
	assert_string_equal(s.d.msg, "expected '{', found \"a\"");
	scan_close(&s);

	SCAN(&s, "{");
	assert_int_equal(lex_expect_string(&s.lx, "joint name", &tok), -EINVAL);
	assert_string_equal(s.d.msg, "expected a quoted joint name, found '{'");
	scan_close(&s);

	SCAN(&s, " 70000");
	assert_int_equal(lex_expect_int(&s.lx, "numJoints", 1, 65535, &v), -EINVAL);
	assert_string_equal(s.d.msg, "numJoints \"70000\" is out of range (1..65535)");
	assert_int_equal(s.d.col, 2);
	scan_close(&s);

	SCAN(&s, "x");
	assert_int_equal(lex_expect_int(&s.lx, "numJoints", 1, 65535, &v), -EINVAL);
	assert_string_equal(s.d.msg, "expected an integer numJoints, found \"x\"");
	scan_close(&s);

	SCAN(&s, "\n\n   inf");
	assert_int_equal(lex_expect_float(&s.lx, "bias", &f), -EINVAL);
	assert_string_equal(s.d.msg, "expected a finite number for bias, found \"inf\"");
	assert_int_equal(s.d.line, 3);
	assert_int_equal(s.d.col, 4);
	scan_close(&s);

	/* Long tokens are cut in messages. */
	SCAN(&s, "\"0123456789012345678901234567890123456789xyz\"");
	assert_int_equal(lex_expect_word(&s.lx, "w"), -EINVAL);
	assert_string_equal(s.d.msg, "expected \"w\", found string "
			    "\"0123456789012345678901234567890123456789...\"");
	scan_close(&s);
}

/* File bytes reach messages escaped: printable ASCII as is, the rest (and
 * quotes and backslashes) as \xNN, cut after LEX_SHOW_BYTES. */
static void test_show_escapes(void **state)
{
	char buf[4 * LEX_SHOW_BYTES + 8], big[100];
	struct lex_token tok = { LEX_WORD, "caf\xc3\xa9\"x\\", 8, 1, 1 };

	(void)state;
	assert_string_equal(lex_show("a b\x01", 4, buf, sizeof buf), "a b\\x01");
	assert_string_equal(lex_describe(&tok, buf, sizeof buf), "\"caf\\xc3\\xa9\\x22x\\x5c\"");
	memset(big, 'z', sizeof big);
	lex_show(big, sizeof big, buf, sizeof buf);
	assert_int_equal(strlen(buf), LEX_SHOW_BYTES + 3);
	assert_string_equal(buf + LEX_SHOW_BYTES, "...");
	/* A small buffer is cut, never overrun. */
	assert_true(strlen(lex_show(big, sizeof big, buf, 8)) < 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds_and_positions),
		cmocka_unit_test(test_words_stop_at_punct_and_quotes),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_line_ends),
		cmocka_unit_test(test_unterminated),
		cmocka_unit_test(test_control_bytes),
		cmocka_unit_test(test_guids_and_plain_punct),
		cmocka_unit_test(test_peek),
		cmocka_unit_test(test_remaining_and_strdup),
		cmocka_unit_test(test_ints),
		cmocka_unit_test(test_try_int_matches_tokens),
		cmocka_unit_test(test_floats),
		cmocka_unit_test(test_floats_match_strtod),
		cmocka_unit_test(test_expect_float_direct),
		cmocka_unit_test(test_expect_messages),
		cmocka_unit_test(test_show_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
