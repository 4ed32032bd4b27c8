/*
 * lexer.h - the tokenizer shared by the text formats (MD5 today, .x text).
 *
 * Tokens are words (keywords and numbers), double-quoted strings (no escapes;
 * the quotes are not part of the text), single punctuation characters from a
 * per-format set, and optionally <GUID>s.  Whitespace and comments separate
 * tokens; "//" and "/ *  * /" comments always, "#" line comments on request.
 * Line ends may be LF, CRLF or a lone CR.  Every token knows its 1-based line
 * and column (columns count bytes), which is what errors point at.
 *
 * Token text points into the caller's buffer, which must outlive the lexer;
 * the buffer need not be NUL-terminated.  The lexer never reads outside
 * [buf, buf + len).
 */
#ifndef ANIMD_LEXER_H
#define ANIMD_LEXER_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/formats/diag.h"

enum lex_kind {
	LEX_EOF,
	LEX_WORD,
	LEX_STRING,
	LEX_PUNCT,
	LEX_GUID,
};

struct lex_token {
	enum lex_kind kind;
	const char *text;
	size_t len;
	uint32_t line;
	uint32_t col;
};

#define LEX_HASH_COMMENTS 0x1u  /* '#' starts a comment to the end of the line */
#define LEX_GUIDS         0x2u  /* "<...>" is one LEX_GUID token */
/* With LEX_HASH_COMMENTS: only a '#' where a token could start begins a
 * comment; inside a word it is part of the word (MSVC writes NaN as
 * "-1.#IND00"). */
#define LEX_HASH_IN_WORDS 0x4u

struct lexer {
	const char *p;
	const char *end;
	uint32_t line;
	uint32_t col;
	unsigned flags;
	const char *puncts;     /* NUL-terminated set of punctuation characters */
	/* Per byte value: what it can be in this lexer's format (lex_init
	 * works it out from the punctuation set and the flags). */
	unsigned char cls[256];
	struct diag *diag;
	struct lex_token ahead;
	int has_ahead;
};

void lex_init(struct lexer *lx, const char *buf, size_t len, const char *puncts,
	      unsigned flags, struct diag *diag);

/* Next token (LEX_EOF at the end, repeatedly).  Returns 0, or -EINVAL with
 * the diag set for an unterminated string or comment or a control byte. */
int lex_next(struct lexer *lx, struct lex_token *tok);
int lex_peek(struct lexer *lx, struct lex_token *tok);

/* 1 if the token is exactly this word / this punctuation character. */
int lex_is_word(const struct lex_token *tok, const char *word);
int lex_is_punct(const struct lex_token *tok, char c);

/* Human-readable description of a token for messages: "\"numJoints\"",
 * "'{'", "end of file", its text shown by lex_show.  Writes into buf and
 * returns it. */
const char *lex_describe(const struct lex_token *tok, char *buf, size_t size);

/* At most this many bytes of file text are shown in a message. */
#define LEX_SHOW_BYTES 40

/* Bytes from a file for a message: printable ASCII as is, every other byte
 * (and '"', '\\') as \xNN, cut after LEX_SHOW_BYTES with "...".  Needs
 * 4 * LEX_SHOW_BYTES + 8 bytes of buf to show everything; always
 * NUL-terminates.  Returns buf. */
const char *lex_show(const char *s, size_t len, char *buf, size_t size);

/*
 * Expectations.  Each consumes one token and returns 0 when it matches, or
 * -EINVAL after recording "expected X, found Y" (or a range error) at the
 * token's position.  `what` names the value in messages ("numJoints",
 * "joint parent").
 */
int lex_expect_word(struct lexer *lx, const char *word);
int lex_expect_punct(struct lexer *lx, char c);
int lex_expect_string(struct lexer *lx, const char *what, struct lex_token *tok);
int lex_expect_int(struct lexer *lx, const char *what, int64_t min, int64_t max,
		   int64_t *out);
/*
 * The next token read as a number straight from the bytes, without making
 * a token first (most of what an MD5 file holds): blanks and LF line
 * breaks, an ordinary decimal, then a byte that ends a word here.  Returns
 * 1 with *out set; anything else -- a comment or a CR before it, a word
 * going on after the digits, digits the fast path does not take -- returns
 * 0 with nothing consumed, for lex_next to read the token (and report it).
 */
int lex_try_float(struct lexer *lx, float *out);
/* The same for an integer of at most 18 digits after an optional sign (what
 * lex_token_int reads without strtoll): 1 with *out, and *tok the token
 * lex_next would have made of it. */
int lex_try_int(struct lexer *lx, int64_t *out, struct lex_token *tok);
/* A finite number representable as a float. */
int lex_expect_float(struct lexer *lx, const char *what, float *out);

/* Parse a token as a number without consuming anything (0 or -EINVAL, no
 * diag). */
int lex_token_int(const struct lex_token *tok, int64_t *out);
int lex_token_float(const struct lex_token *tok, float *out);

/* The next token and its value: in place when lex_try_int takes it, else
 * through lex_next and lex_token_int.  1 with *out; 0 when *tok is not an
 * integer (for the caller's "expected" message); -EINVAL when the lexer
 * failed (its diagnosis made).  Inline: it sits between every MD5
 * integer and lex_try_int. */
static inline int lex_next_int(struct lexer *lx, int64_t *out, struct lex_token *tok)
{
	if (lex_try_int(lx, out, tok))
		return 1;
	if (lex_next(lx, tok) < 0)
		return -EINVAL;
	return lex_token_int(tok, out) == 0;
}

/* Copy of the token text as a NUL-terminated string (NULL on ENOMEM). */
char *lex_strdup(const struct lex_token *tok);

/* Bytes not yet consumed; parsers use it to bound counts before allocating. */
size_t lex_remaining(const struct lexer *lx);

#endif
