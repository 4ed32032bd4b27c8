/*
 * x_read_floats and x_read_floats_any (the importer's run of floats read
 * in place) against x_read_float and x_read_float_any called once per
 * value, the plain path they stand in for: on random objects whose values
 * are floats (ordinary, huge, infinite, NaN, at float's limit), integers
 * and strings, in text and binary trees, both must give the same floats,
 * the same return code, the same error at the same place, and leave the
 * reader at the same value -- also when the object holds fewer values than
 * asked for, or none at all (and no array).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/import/x_import_internal.h"

#define VALUES 64

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
	return (uint32_t)((rng_state >> 33) % n);
}

static void random_value(struct x_value *v, uint32_t pos, bool mostly_floats)
{
	static const double odd[] = { 3.4e38, -3.4e38, 3.5e38, -1e300, 1e-50, -0.0 };
	unsigned k = rnd(mostly_floats ? 200 : 20);

	v->pos = pos;
	v->kind = X_VALUE_FLOAT;
	if (k == 0) {
		v->kind = X_VALUE_INT;
		v->v.i = (int64_t)rnd(2000) - 1000;
	} else if (k == 1) {
		v->kind = X_VALUE_STRING;
		v->v.s.ptr = "s";
	} else if (k == 2) {
		v->v.f = rnd(2) ? INFINITY : -INFINITY;
	} else if (k == 3) {
		v->v.f = NAN;
	} else if (k == 4) {
		v->v.f = odd[rnd(sizeof odd / sizeof odd[0])];
	} else {
		v->v.f = ((double)rnd(1u << 30) / (double)(1u << 20) - 512.0);
	}
}

static void check_one(const struct x_tree *t, const struct x_object *o, uint32_t n, bool any)
{
	struct x_reader a, b;
	struct diag da = { 0 }, db = { 0 };
	float fa[VALUES + 8], fb[VALUES + 8];
	int ra, rb = 0;

	memset(fa, 0, sizeof fa);
	memset(fb, 0, sizeof fb);
	x_reader_init(&a, t, o, &da);
	x_reader_init(&b, t, o, &db);
	ra = any ? x_read_floats_any(&a, "a value", fa, n) : x_read_floats(&a, "a value", fa, n);
	for (uint32_t i = 0; i < n && rb == 0; i++)
		rb = any ? x_read_float_any(&b, "a value", &fb[i]) : x_read_float(&b, "a value", &fb[i]);
	if (rb < 0)
		rb = -EINVAL;
	assert_int_equal(ra, rb);
	assert_int_equal(da.set, db.set);
	assert_string_equal(da.msg, db.msg);
	assert_int_equal(da.offset, db.offset);
	assert_int_equal(da.line, db.line);
	assert_int_equal(da.col, db.col);
	if (ra == 0) {
		assert_int_equal(a.next, b.next);
		assert_memory_equal(fa, fb, n * sizeof fa[0]);
	}
}

static void test_random_objects(void **state)
{
	static char body[4096];
	struct x_value values[VALUES];
	struct x_object o;
	struct x_tree t;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		uint32_t count = rnd(VALUES + 1);

		memset(&t, 0, sizeof t);
		t.header.encoding = rnd(2) ? X_TEXT : X_BINARY;
		t.header.compressed = rnd(2);
		t.header.float_bits = 32;
		t.body = body;
		t.body_len = sizeof body;
		memset(&o, 0, sizeof o);
		o.type = "Values";
		/* As the builder leaves an object without values. */
		o.values = count > 0 ? values : NULL;
		o.value_count = count;
		for (uint32_t i = 0; i < count; i++)
			random_value(&values[i], 8 * i + 3, round % 2);
		check_one(&t, &o, rnd(VALUES + 4), rnd(2));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
