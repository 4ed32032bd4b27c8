/*
 * decimal_parse against strtod, bit for bit, on millions of numbers: random
 * digit strings (leading zeros, long mantissas, no digits after the dot,
 * exponent forms), random floats and doubles printed the ways exporters
 * print them (%.6f %.9g %.17g %e), and the edges (0, -0, subnormals,
 * 1e-38, 3.4e38, FLT_MAX, DBL_MAX and beyond).  The .x reader keeps the
 * double and the importer casts it to float, so the float casts are
 * compared too.  What is not a decimal (hex, inf, nan, stray bytes) is
 * refused.  Inputs are copied into buffers of their exact length so ASan
 * catches a read past the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/decimal.h"

/* xorshift64*: reproducible without touching rand()'s state. */
static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

static unsigned long checked;

/* s must be a decimal: decimal_parse gives strtod's double exactly. */
static void expect_same(const char *s)
{
	size_t len = strlen(s);
	char *copy = malloc(len ? len : 1);
	double want, got = 12345.0;
	enum decimal_result rc;
	float fw, fg;

	assert_non_null(copy);
	memcpy(copy, s, len);
	want = strtod(s, NULL);
	rc = decimal_parse(copy, len, &got);
	free(copy);
	if (isinf(want)) {
		if (rc != DECIMAL_RANGE)
			fail_msg("\"%s\": want DECIMAL_RANGE, got %d (%.17g)", s, (int)rc, got);
		checked++;
		return;
	}
	if (rc != DECIMAL_OK)
		fail_msg("\"%s\": want %.17g, got result %d", s, want, (int)rc);
	if (memcmp(&want, &got, sizeof want) != 0)
		fail_msg("\"%s\": strtod %a, decimal_parse %a", s, want, got);
	fw = (float)want;
	fg = (float)got;
	if (memcmp(&fw, &fg, sizeof fw) != 0)
		fail_msg("\"%s\": as float %a vs %a", s, (double)fw, (double)fg);
	checked++;
}

static void expect_none(const char *s)
{
	size_t len = strlen(s);
	char *copy = malloc(len ? len : 1);
	double got = 0;
	enum decimal_result rc;

	assert_non_null(copy);
	memcpy(copy, s, len);
	rc = decimal_parse(copy, len, &got);
	free(copy);
	if (rc != DECIMAL_NONE)
		fail_msg("\"%s\": want DECIMAL_NONE, got %d (%.17g)", s, (int)rc, got);
}

static void test_edges(void **state)
{
	static const char *const ok[] = {
		"0", "-0", "+0", "0.", ".0", "-.0", "0.0", "000", "-0e0", "0e999999", "-0e-999999",
		"1", "-1", "1.", ".5", "-.5", "+1.5", "1e0", "1E0", "1e+0", "1e-0", "1e22", "1e23",
		"1e-22", "1e-23", "9007199254740992", "9007199254740993", "9007199254740991.5",
		"1e-38", "1.17549435e-38", "1.1754942e-38", "1.401298464e-45", "1e-45", "7e-46",
		"4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
		"1e-400", "2.2250738585072011e-308", "2.2250738585072014e-308",
		"3.4e38", "3.40282347e+38", "3.4028235677973366e38", "3.4028236e38", "1e39",
		"1.7976931348623157e308", "1.7976931348623158e308", "1e308", "1e309", "-1e309",
		"1e99999999999", "0.000000000000000000000000000001",
		"00000000000000000000000000000001.5", "1.00000000000000000000000000000000001",
		"123456789012345678901234567890", "0.1234567890123456789", "12345678901234567890",
		"1234567890123456789", "18446744073709551615", "18446744073709551616",
		"0.30000000000000004", "0.1", "0.2", "0.3", "2.5e-5", "123.456e7", "1.5e-7",
		"8.589973e9", "9.5367431640625e-7", "1.000000059604644775390625",
		"1.00000005960464477539062", "1.0000000596046447753906251",
	};
	static const char *const bad[] = {
		"", "-", "+", ".", "-.", "e5", ".e5", "1e", "1e+", "1e-", "1.2.3", "1e5.0", "--1",
		"+-1", "0x10", "0x1p3", "inf", "nan", "-inf", "infinity", "1f", "1.0f", " 1", "1 ",
		"1,5", "1e5e5", "1d5", "١",
	};

	(void)state;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		expect_same(ok[i]);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_none(bad[i]);
}

/* Random digit strings: sign, leading zeros, 1-30 digits split by a dot
 * anywhere (or none), an exponent sometimes. */
static void test_random_digit_strings(void **state)
{
	char s[96];

	(void)state;
	for (int n = 0; n < 1500000; n++) {
		uint64_t r = rng();
		size_t o = 0, nd = 1 + (size_t)(rng() % (r & 1 ? 30 : 12)), dot = (size_t)(rng() % (nd + 2));
		size_t zeros = (r >> 1) % 8 == 0 ? (size_t)(rng() % 6) : 0;

		if ((r >> 4) % 3 == 0)
			s[o++] = (r >> 6) % 2 ? '-' : '+';
		for (size_t i = 0; i < zeros; i++)
			s[o++] = '0';
		for (size_t i = 0; i < nd; i++) {
			if (i == dot)
				s[o++] = '.';
			s[o++] = (char)('0' + rng() % 10);
		}
		if (dot == nd)
			s[o++] = '.';           /* "12." */
		if ((r >> 8) % 3 == 0)
			o += (size_t)snprintf(s + o, sizeof s - o, "%c%s%d", (r >> 10) % 2 ? 'e' : 'E',
					      (r >> 11) % 3 == 0 ? "+" : (r >> 12) % 2 ? "-" : "",
					      (int)(rng() % ((r >> 13) % 4 == 0 ? 400 : 40)));
		s[o] = '\0';
		expect_same(s);
	}
}

/*
 * decimal_fast_prefix's eight-byte steps against decimal_prefix_plain, in
 * place in longer text as the tokenizers call it: random numbers (signs,
 * leading zeros, 0 to 9 digits before an optional dot and 0 to 19 after, an
 * occasional exponent) followed by the bytes that end or continue them --
 * blanks, brackets, letters, a second dot, an 'e' without digits, bytes
 * with the top bit set -- then filler.  Both must agree on whether there
 * is a number, where it stops and its value, bit for bit.
 */
static void test_fast_prefix_in_text(void **state)
{
	static const char follow[] = " \t\n)(,;xe.E-+/\x80\xff\x7f:0";
	char buf[64];

	(void)state;
	for (int n = 0; n < 2000000; n++) {
		uint64_t r = rng();
		size_t o = 0, ni = (size_t)(rng() % 10), nf = (size_t)(rng() % 20);
		const char *stop_fast = NULL, *stop_plain = NULL;
		double fast = 1.0, plain = 2.0;
		bool got_fast, got_plain;

		if (r % 3 == 0)
			buf[o++] = (r >> 2) % 2 ? '-' : '+';
		for (size_t i = 0; i < ni; i++)
			buf[o++] = (char)('0' + ((r >> 4) % 4 == 0 ? 0 : rng() % 10));
		if ((r >> 6) % 4 != 0) {
			buf[o++] = '.';
			for (size_t i = 0; i < nf; i++)
				buf[o++] = (char)('0' + rng() % 10);
		}
		if ((r >> 8) % 16 == 0)
			o += (size_t)snprintf(buf + o, 8, "e%d", (int)(rng() % 60) - 30);
		for (int k = 0; k < 3; k++)
			buf[o++] = follow[rng() % (sizeof follow - 1)];
		while (o < sizeof buf)
			buf[o++] = ' ';
		got_fast = decimal_fast_prefix(buf, buf + sizeof buf, &stop_fast, &fast);
		got_plain = decimal_prefix_plain(buf, buf + sizeof buf, &stop_plain, &plain);
		if (got_fast != got_plain)
			fail_msg("\"%.24s\": fast %d, plain %d", buf, got_fast, got_plain);
		if (!got_fast)
			continue;
		if (stop_fast != stop_plain || memcmp(&fast, &plain, sizeof fast) != 0)
			fail_msg("\"%.24s\": fast %a stops at %td, plain %a at %td", buf, fast,
				 stop_fast - buf, plain, stop_plain - buf);
		checked++;
	}
}

/* Random floats and doubles printed as exporters print them. */
static void test_random_printed(void **state)
{
	static const char *const fmts[] = { "%.6f", "%.9g", "%.17g", "%e", "%g", "%.3f" };
	char s[512];

	(void)state;
	for (int n = 0; n < 400000; n++) {
		uint64_t r = rng();
		uint32_t fb = (uint32_t)r;
		float f;
		double dv;

		/* Random bit patterns (every exponent), and values of model
		 * size (-1000..1000, the common case). */
		if ((r >> 32) % 2) {
			memcpy(&f, &fb, sizeof f);
			dv = f;
		} else {
			dv = ((double)(rng() % 2000000001) - 1e9) / 1e6;
		}
		if (!isfinite(dv))
			continue;
		for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
			snprintf(s, sizeof s, fmts[k], dv);
			expect_same(s);
		}
		/* A random double, its own bits. */
		{
			uint64_t db = rng();

			memcpy(&dv, &db, sizeof dv);
			if (isfinite(dv)) {
				snprintf(s, sizeof s, "%.17g", dv);
				expect_same(s);
				snprintf(s, sizeof s, "%.15e", dv);
				expect_same(s);
			}
		}
	}
	/* Every subnormal float's neighbourhood and the ends of float's range. */
	for (uint32_t b = 1; b < 0x00800000u; b += 0x1fffu) {
		float f;

		memcpy(&f, &b, sizeof f);
		snprintf(s, sizeof s, "%.9g", (double)f);
		expect_same(s);
	}
	snprintf(s, sizeof s, "%.9g", (double)FLT_MAX);
	expect_same(s);
	snprintf(s, sizeof s, "%.9g", (double)FLT_MIN);
	expect_same(s);
	snprintf(s, sizeof s, "%.17g", DBL_MAX);
	expect_same(s);
	snprintf(s, sizeof s, "%.17g", DBL_MIN);
	expect_same(s);
	/* Long mantissas reach strtod through a heap copy. */
	memset(s, '3', 300);
	s[0] = '0';
	s[1] = '.';
	s[300] = '\0';
	expect_same(s);
	print_message("%lu numbers agree with strtod\n", checked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random_digit_strings),
		cmocka_unit_test(test_fast_prefix_in_text),
		cmocka_unit_test(test_random_printed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
