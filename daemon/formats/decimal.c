/*
 * decimal.c - decimal text to double, strtod's result without strtod for
 * the numbers files are made of (decimal.h).
 *
 * The fast path is Clinger's: with the significant digits m <= 2^53 and a
 * power of ten 10^k with |k| <= 22, both m and 10^k are exact doubles and
 * m * 10^k (or m / 10^-k) is one correctly rounded IEEE operation, which
 * is the correctly rounded value of the decimal, i.e. strtod's.  This
 * needs the FPU to round to nearest in double precision (x86-64's SSE
 * does; x87 extended precision would double-round).
 */
#include "daemon/formats/decimal.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Longest number copied on the stack for strtod; longer ones are malloc'd. */
#define DECIMAL_STACK 64

const double decimal_pow10[DECIMAL_EXACT_POW10 + 1] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* The syntax is checked: strtod reads the whole copy. */
static enum decimal_result decimal_slow(const char *s, size_t len, double *out)
{
	char buf[DECIMAL_STACK], *copy = len < sizeof buf ? buf : malloc(len + 1);
	double v;

	if (copy == NULL)
		return DECIMAL_NOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	v = strtod(copy, NULL);
	if (copy != buf)
		free(copy);
	if (isinf(v))
		return DECIMAL_RANGE;
	*out = v;
	return DECIMAL_OK;
}

static inline bool decimal_digit(char c)
{
	return (unsigned)(c - '0') < 10u;
}

enum decimal_result decimal_parse(const char *s, size_t len, double *out)
{
	const char *p = s, *end = s + len;
	bool neg = false, fast = true;
	uint64_t mant = 0;
	int64_t exp10 = 0;
	size_t digits = 0, sig = 0;
	double v;

	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	/* Leading zeros carry no significant digit. */
	for (; p < end && *p == '0'; p++)
		digits++;
	for (; p < end && decimal_digit(*p); p++, digits++) {
		if (++sig > 19)
			fast = false;
		else
			mant = mant * 10 + (uint64_t)(*p - '0');
	}
	/* Dropped integer digits still scale the value: strtod has them. */
	if (p < end && *p == '.') {
		p++;
		if (mant == 0)
			for (; p < end && *p == '0'; p++, digits++)
				exp10--;
		for (; p < end && decimal_digit(*p); p++, digits++) {
			exp10--;
			if (++sig > 19)
				fast = false;
			else
				mant = mant * 10 + (uint64_t)(*p - '0');
		}
	}
	if (digits == 0)
		return DECIMAL_NONE;
	if (p < end && (*p == 'e' || *p == 'E')) {
		bool eneg = false;
		size_t edigits = 0;
		int64_t e = 0;

		if (++p < end && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		for (; p < end && decimal_digit(*p); p++, edigits++)
			if (e < 100000)
				e = e * 10 + (*p - '0');
		if (edigits == 0)
			return DECIMAL_NONE;
		exp10 += eneg ? -e : e;
	}
	if (p != end)
		return DECIMAL_NONE;
	if (!fast || mant > (UINT64_C(1) << 53) || exp10 < -DECIMAL_EXACT_POW10 ||
	    exp10 > DECIMAL_EXACT_POW10)
		return decimal_slow(s, len, out);
	v = (double)mant;
	v = exp10 < 0 ? v / decimal_pow10[-exp10] : v * decimal_pow10[exp10];
	*out = neg ? -v : v;
	return DECIMAL_OK;
}

bool decimal_prefix_plain(const char *p, const char *end, const char **stop, double *out)
{
	uint64_t mant = 0;
	int neg = 0, digits = 0, sig = 0, exp10 = 0, e = 0, eneg = 0, edigits = 0;
	double v;

	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	for (; p < end && decimal_digit(*p); p++, digits++) {
		if (mant == 0 && *p == '0')
			continue;       /* leading zeros carry no digits */
		if (++sig > 19)
			return false;
		mant = mant * 10 + (uint64_t)(*p - '0');
	}
	if (p < end && *p == '.') {
		for (p++; p < end && decimal_digit(*p); p++, digits++) {
			exp10--;
			if (mant == 0 && *p == '0')
				continue;
			if (++sig > 19)
				return false;
			mant = mant * 10 + (uint64_t)(*p - '0');
		}
	}
	if (digits == 0)
		return false;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		for (; p < end && decimal_digit(*p); p++) {
			if (++edigits > 4)
				return false;
			e = e * 10 + (*p - '0');
		}
		if (edigits == 0)
			return false;
		exp10 += eneg ? -e : e;
	}
	if (mant > (UINT64_C(1) << 53) || exp10 < -DECIMAL_EXACT_POW10 ||
	    exp10 > DECIMAL_EXACT_POW10)
		return false;
	v = (double)mant;
	v = exp10 < 0 ? v / decimal_pow10[-exp10] : v * decimal_pow10[exp10];
	*out = neg ? -v : v;
	*stop = p;
	return true;
}

/*
 * Eight bytes at a time.  With t the bytes less '0' (a little-endian load:
 * the first byte lowest), a byte is a digit when t < 10, so neither t nor
 * t + 0x76 has its top bit set.  A byte below '0' borrows from the next
 * and one past '9' may carry into it, but both only disturb bytes after
 * the first that is not a digit, which is all we look at.
 */
#define ONES UINT64_C(0x0101010101010101)

static inline uint64_t load8(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof w);
	return w;
}

/* How many of the eight bytes (w less '0' in each) are digits before the
 * first that is not: 0..8. */
static inline unsigned digit_run(uint64_t t)
{
	uint64_t bad = (t | (t + 0x76 * ONES)) & (0x80 * ONES);

	return bad == 0 ? 8 : (unsigned)__builtin_ctzll(bad) / 8;
}

/* The value of the first n (1..8) digits of t, as decimal_prefix_plain
 * would accumulate them: the rest shifted out and zeros put before, then
 * pairs, fours and the eight combined in three multiplications. */
static inline uint64_t digits_value(uint64_t t, unsigned n)
{
	t <<= 8 * (8 - n);
	t = t * 10 + (t >> 8);
	t = (((t & UINT64_C(0x000000FF000000FF)) * (100 + (UINT64_C(1000000) << 32))) +
	     (((t >> 16) & UINT64_C(0x000000FF000000FF)) * (1 + (UINT64_C(10000) << 32)))) >>
	    32;
	return t;
}

/*
 * The numbers files are mostly made of -- a sign, up to seven digits, a
 * dot, up to fifteen digits, no exponent -- read eight bytes at a time;
 * the same mantissa and power of ten as decimal_prefix_plain's, so the
 * same double.  Anything else, or fewer than 32 bytes left, goes to it.
 */
bool decimal_fast_prefix(const char *p, const char *end, const char **stop, double *out)
{
	const char *q = p;
	uint64_t mant = 0, t;
	unsigned n, frac = 0, more;
	int neg = 0;
	double v;

	if (end - p < 32)
		return decimal_prefix_plain(p, end, stop, out);
	if (*q == '-' || *q == '+')
		neg = *q++ == '-';
	t = load8(q) - '0' * ONES;
	n = digit_run(t);
	if (n == 8)
		return decimal_prefix_plain(p, end, stop, out);
	if (n > 0)
		mant = digits_value(t, n);
	q += n;
	if (*q == '.') {
		t = load8(++q) - '0' * ONES;
		frac = digit_run(t);
		if (frac > 0)
			mant = mant * (uint64_t)decimal_pow10[frac] + digits_value(t, frac);
		q += frac;
		if (frac == 8) {
			t = load8(q) - '0' * ONES;
			more = digit_run(t);
			/* Past 19 digits the mantissa could wrap. */
			if (more == 8 || n + frac + more > 19)
				return decimal_prefix_plain(p, end, stop, out);
			if (more > 0)
				mant = mant * (uint64_t)decimal_pow10[more] + digits_value(t, more);
			frac += more;
			q += more;
		}
	}
	if (n + frac == 0)
		return false;
	if (*q == 'e' || *q == 'E' || mant > (UINT64_C(1) << 53))
		return decimal_prefix_plain(p, end, stop, out);
	v = (double)mant;
	v = frac > 0 ? v / decimal_pow10[frac] : v;
	*out = neg ? -v : v;
	*stop = q;
	return true;
}
