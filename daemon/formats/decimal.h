/*
 * decimal.h - decimal numbers as text to the double strtod would give.
 *
 * One job: read "[+-](digits[.digits] | .digits)[(e|E)[+-]digits]", all of
 * the given bytes and nothing else, into the correctly rounded double.  An
 * ordinary number (at most 19 significant digits, a value that is an exact
 * integer below 2^53 times or divided by an exact power of ten up to
 * 10^22) never reaches strtod: one IEEE multiplication or division of two
 * exact doubles is correctly rounded, so it is bit for bit what strtod
 * returns (and what a float cast of it is).  Everything else -- long
 * mantissas, large exponents, values needing more than 53 bits -- goes to
 * strtod on a NUL-terminated copy.  Hex floats, inf and nan are not
 * decimals here: the caller spells those out itself.
 */
#ifndef ANIMD_DECIMAL_H
#define ANIMD_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>

enum decimal_result {
	DECIMAL_OK,             /* *out holds the value (underflow to 0 or a subnormal included) */
	DECIMAL_NONE,           /* the text is not a decimal number */
	DECIMAL_RANGE,          /* a decimal, but beyond a double: *out untouched */
	DECIMAL_NOMEM,          /* a very long number and no memory for its copy */
};

enum decimal_result decimal_parse(const char *s, size_t len, double *out);

/*
 * The fast path alone, for a tokenizer reading in place: the ordinary
 * decimal that starts at p (not past end) and stops at the first byte that
 * cannot continue it.  true with *stop just past it and *out its value
 * (decimal_parse's, bit for bit); false, nothing set, when there is no
 * number there or it needs strtod (more than 19 significant digits, an
 * exponent of more than 4 digits or beyond 10^22, a mantissa above 2^53):
 * the caller then reads the token its slow way.
 */
bool decimal_fast_prefix(const char *p, const char *end, const char **stop, double *out);
/* The same a byte at a time: what decimal_fast_prefix falls back to for
 * the numbers its eight-byte steps do not take, and what the tests prove
 * those steps against. */
bool decimal_prefix_plain(const char *p, const char *end, const char **stop, double *out);

/* 10^0 .. 10^22, every one an exact double: Clinger's fast path for a
 * reader that gathers the digits itself (x_text.c), which must then do
 * exactly what decimal_parse does with them -- (double)m times 10^k, or
 * divided by 10^-k, for m <= 2^53 and |k| <= 22 -- to get its result. */
#define DECIMAL_EXACT_POW10 22
extern const double decimal_pow10[DECIMAL_EXACT_POW10 + 1];

#endif
