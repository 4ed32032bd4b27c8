/*
 * The .x text reader's fast path over runs of plain numbers (x_text.c's
 * x_text_values) against the token path it stands in for
 * (x_text_read_tokens): on random bodies made of numbers in every spelling
 * (short and long integers, decimals with and without a point, leading
 * zeros, exponents inside and beyond the exact range, 19 and 20 digits,
 * signs, "5." and ".5", MSVC and C NaN spellings, words that start like
 * numbers), separators, white space, comments, strings, references,
 * nested objects and stray bytes, both readers must give the same result:
 * the same return code, the same error at the same line:col, or the same
 * tree -- every object, every value's kind, position and bits.  Bodies are
 * also cut at random lengths, so runs end at the buffer's end.  Each body
 * is copied into a buffer of its exact length (ASan sees any over-read).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/x/x_syntax.h"

#define BODY_MAX 6000

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
/* Off: only what parses (numbers in range, no stray words or bytes), so
 * that whole trees are compared too. */
static bool noisy;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
	return (uint32_t)((rng_state >> 33) % n);
}

struct buf {
	char s[BODY_MAX + 256];
	size_t len;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len >= sizeof b->s - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, sizeof b->s - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n < sizeof b->s - b->len ? (size_t)n : sizeof b->s - b->len - 1;
}

static void put_digits(struct buf *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		put(b, "%c", (char)('0' + rnd(10)));
}

/* One number, or something that looks like one. */
static void put_number(struct buf *b)
{
	static const char *const odd[] = {
		"1.#INF00", "-1.#IND00", "1.#QNAN0", "nan", "-inf", "Infinity", "3DSMesh-1",
		"1e", "1e+", ".", "-", "+", "-.", ".e5", "5.", ".5", "-.5e3", "+7", "-0",
		"-0.0", "0.000000", "1/2", "1#2", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "123456789012345678", "1234567890123456789",
		"12345678901234567890", "0.1234567890123456789", "0.12345678901234567890",
		"9007199254740993.0", "9007199254740992.0", "1e22", "1e23", "1e-22", "1e-23",
		"1e0004", "1e00004", "1e99999999999999999999999", "-1.5e-88888888888888888888", "1E5", "2.5e-0003", "1e400", "1e-400", "00000000000000000001",
		"0000000000000000000.1",
	};
	unsigned kind = rnd(12), n_int, n_frac;

	if (kind < 1 && noisy) {
		put(b, "%s", odd[rnd(sizeof odd / sizeof odd[0])]);
		return;
	}
	if (rnd(4) == 0)
		put(b, "%c", rnd(3) ? '-' : '+');
	if (kind < 4) {
		put_digits(b, 1 + rnd(rnd(4) ? 4 : noisy ? 21 : 18));
		return;
	}
	n_int = rnd(4) ? rnd(4) : rnd(22);
	n_frac = rnd(4) ? rnd(8) : rnd(22);
	if (!noisy && n_int + n_frac == 0)
		n_frac = 1;
	put_digits(b, n_int);
	if (rnd(8) || (!noisy && n_int + n_frac > 18))
		put(b, ".");
	put_digits(b, n_frac);
	if (rnd(5) == 0) {
		put(b, "%c", rnd(2) ? 'e' : 'E');
		if (rnd(2))
			put(b, "%c", rnd(2) ? '-' : '+');
		put_digits(b, noisy ? rnd(6) : 1 + rnd(2));
	}
}

static void put_separators(struct buf *b)
{
	static const char *const seps[] = {
		";", ",", ";,", ";;", " ", "\n", "\r\n", "\t", "    ", ";,\n    ", "", ";\n",
		"\v", "\f", " # a comment\n", "// a comment\n", "/* block */", "/* open",
		"\x01", "\x7f", "/", "#", "\r",
	};
	unsigned n = noisy && rnd(20) == 0 ? (unsigned)(sizeof seps / sizeof seps[0]) : 17;
	const char *sep = seps[rnd(n)];

	/* Nothing between two numbers makes them one word, seldom a number. */
	put(b, "%s", *sep == '\0' && !noisy ? " " : sep);
}

/* The members of an object: runs of numbers and now and then something
 * else. */
static void put_members(struct buf *b, unsigned depth)
{
	unsigned n = 1 + rnd(60);

	for (unsigned i = 0; i < n && b->len < BODY_MAX; i++) {
		unsigned k = rnd(40);

		if (k == 0 && depth < 4) {
			put(b, "%s", rnd(2) ? "Child {" : "Child c1 {");
			put_members(b, depth + 1);
			put(b, "}");
		} else if (k == 1) {
			put(b, "{ %s }", rnd(2) ? "Name" : "<12345678-1234-1234-1234-123456789abc>");
		} else if (k == 2) {
			put(b, "\"a string\"");
		} else if (k == 3 && noisy) {
			put(b, "%s", rnd(2) ? "}" : "name");
		} else {
			put_number(b);
		}
		put_separators(b);
	}
}

static void put_body(struct buf *b)
{
	b->len = 0;
	put(b, "\n");
	while (b->len < BODY_MAX / 2) {
		put(b, "Mesh m {\n");
		put_members(b, 1);
		put(b, "}\n");
		if (rnd(8) == 0)
			break;
	}
	if (noisy && rnd(4) == 0)
		b->len = rnd((uint32_t)b->len + 1);
}

static int read_body(const char *body, size_t len, bool fast, struct x_tree *t,
		     struct diag *d)
{
	char *copy = malloc(len > 0 ? len : 1);

	assert_non_null(copy);
	memcpy(copy, body, len);
	memset(t, 0, sizeof *t);
	memset(d, 0, sizeof *d);
	t->header.major = 3;
	t->header.minor = 3;
	t->header.encoding = X_TEXT;
	t->header.float_bits = 32;
	t->owned_body = copy;
	t->body = copy;
	t->body_len = len;
	return fast ? x_text_read(t, d) : x_text_read_tokens(t, d);
}

static void same_string(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void same_object(const struct x_object *a, const struct x_object *b)
{
	same_string(a->type, b->type);
	same_string(a->name, b->name);
	assert_int_equal(a->has_guid, b->has_guid);
	assert_memory_equal(a->guid, b->guid, 16);
	assert_int_equal(a->pos, b->pos);
	assert_int_equal(a->depth, b->depth);
	assert_int_equal(a->value_count, b->value_count);
	for (uint32_t i = 0; i < a->value_count; i++) {
		const struct x_value *u = &a->values[i], *v = &b->values[i];

		assert_int_equal(u->kind, v->kind);
		assert_int_equal(u->pos, v->pos);
		if (u->kind == X_VALUE_STRING) {
			assert_int_equal(x_value_strlen(u), x_value_strlen(v));
			assert_string_equal(u->v.s.ptr, v->v.s.ptr);
		} else {
			/* Bits, not ==: -0.0 and NaNs must agree too. */
			assert_memory_equal(&u->v.i, &v->v.i, sizeof u->v.i);
		}
	}
	assert_int_equal(a->child_count, b->child_count);
	for (uint32_t i = 0; i < a->child_count; i++)
		same_object(a->children[i], b->children[i]);
}

static void check_same(const char *body, size_t len)
{
	struct x_tree ft, pt;
	struct diag fd, pd;
	int frc = read_body(body, len, true, &ft, &fd);
	int prc = read_body(body, len, false, &pt, &pd);

	if (frc != prc || fd.set != pd.set || strcmp(fd.msg, pd.msg) != 0 ||
	    fd.line != pd.line || fd.col != pd.col)
		fail_msg("fast %d %u:%u %s / tokens %d %u:%u %s on\n%.*s", frc, fd.line, fd.col,
			 fd.msg, prc, pd.line, pd.col, pd.msg, (int)len, body);
	if (frc == 0) {
		assert_int_equal(ft.root_count, pt.root_count);
		assert_int_equal(ft.object_count, pt.object_count);
		assert_int_equal(ft.value_count, pt.value_count);
		for (uint32_t i = 0; i < ft.root_count; i++)
			same_object(ft.roots[i], pt.roots[i]);
	}
	x_tree_free(&ft);
	x_tree_free(&pt);
}

static void test_random_bodies(void **state)
{
	static struct buf b;
	unsigned parsed = 0;

	(void)state;
	for (int i = 0; i < 3000; i++) {
		struct x_tree t;
		struct diag d;

		noisy = i % 2;
		put_body(&b);
		check_same(b.s, b.len);
		if (read_body(b.s, b.len, true, &t, &d) == 0)
			parsed++;
		x_tree_free(&t);
	}
	/* Most bodies must be whole trees, or the comparison proves little. */
	assert_true(parsed > 1000);
}

/* Numbers alone, one per object, so each spelling meets the end of its
 * run in every way. */
static void test_each_number(void **state)
{
	static struct buf b;

	(void)state;
	noisy = true;
	for (int i = 0; i < 20000; i++) {
		b.len = 0;
		put(&b, "A {");
		put_number(&b);
		put_separators(&b);
		if (rnd(2))
			put(&b, "}");
		check_same(b.s, b.len);
	}
}

/* Many values in one object: the fast path's value room fills up and is
 * taken again. */
static void test_long_run(void **state)
{
	static char body[64 * 1024];
	size_t len = 0;

	(void)state;
	len += (size_t)snprintf(body + len, sizeof body - len, "Mesh {");
	for (int i = 0; len < sizeof body - 64; i++)
		len += (size_t)snprintf(body + len, sizeof body - len, "%d.%03d;%s", i - 500,
					i % 1000, i % 3 == 2 ? ",\n" : "");
	len += (size_t)snprintf(body + len, sizeof body - len, "}");
	check_same(body, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_bodies),
		cmocka_unit_test(test_each_number),
		cmocka_unit_test(test_long_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
