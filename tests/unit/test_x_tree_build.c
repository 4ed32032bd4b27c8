/*
 * The tree builder (x_tree.h) driven directly by a random program: objects
 * opened and closed at random depths, values added one at a time
 * (x_build_int/float/string), as a list (x_build_values) and through
 * x_build_room/x_build_commit (also committing fewer than reserved, or
 * none), a parent's values resuming after children with values of their
 * own, runs long enough to outgrow a value block many times over.  Every
 * object must end up with exactly the values added to it, in order, with
 * their kinds and positions, and its children in order; the tree's counts
 * must add up.  Each value carries its own serial number, so any value
 * lost, moved to the wrong object or overwritten shows.
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

#include "daemon/formats/x/x_tree.h"

#define MAX_OBJECTS 4000

static uint64_t rng_state = 0xda942042e4dd58b5u;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
	return (uint32_t)((rng_state >> 33) % n);
}

/* What each object should hold: its values' serial numbers, in order. */
struct shadow {
	uint32_t *serials;
	uint32_t count, cap;
	uint32_t children;
};

static struct shadow shadows[MAX_OBJECTS];
static uint32_t serial_next;

static void shadow_add(struct shadow *s, uint32_t serial)
{
	if (s->count == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->serials = realloc(s->serials, s->cap * sizeof *s->serials);
		assert_non_null(s->serials);
	}
	s->serials[s->count++] = serial;
}

/* A value's kind and contents follow from its serial number. */
static void check_value(const struct x_value *v, uint32_t serial)
{
	char want[16];

	assert_int_equal(v->pos, serial);
	switch (serial % 3) {
	case 0:
		assert_int_equal(v->kind, X_VALUE_INT);
		assert_int_equal(v->v.i, -(int64_t)serial);
		break;
	case 1:
		assert_int_equal(v->kind, X_VALUE_FLOAT);
		assert_true(v->v.f == serial + 0.5);
		break;
	default:
		/* Strings only from x_build_string; the others write ints. */
		if (v->kind == X_VALUE_STRING) {
			snprintf(want, sizeof want, "s%u", serial);
			assert_string_equal(v->v.s.ptr, want);
			assert_int_equal(x_value_strlen(v), strlen(want));
		} else {
			assert_int_equal(v->kind, X_VALUE_INT);
			assert_int_equal(v->v.i, -(int64_t)serial);
		}
		break;
	}
}

static void fill(struct x_value *v, uint32_t serial)
{
	v->pos = serial;
	if (serial % 3 == 1) {
		v->kind = X_VALUE_FLOAT;
		v->v.f = serial + 0.5;
	} else {
		v->kind = X_VALUE_INT;
		v->v.i = -(int64_t)serial;
	}
}

/* Values for the innermost open object (shadow s), one of four ways. */
static void add_values(struct x_builder *b, struct shadow *s, uint32_t n)
{
	unsigned how = rnd(4);

	if (how == 0) {
		for (uint32_t i = 0; i < n; i++) {
			uint32_t serial = serial_next++;
			char str[16];

			if (serial % 3 == 0) {
				assert_int_equal(x_build_int(b, -(int64_t)serial, serial), 0);
			} else if (serial % 3 == 1) {
				assert_int_equal(x_build_float(b, serial + 0.5, serial), 0);
			} else {
				snprintf(str, sizeof str, "s%u", serial);
				assert_int_equal(x_build_string(b, str, strlen(str), serial), 0);
			}
			shadow_add(s, serial);
		}
	} else if (how == 1) {
		struct x_value *v = x_build_values(b, n, 0);

		assert_non_null(v);
		for (uint32_t i = 0; i < n; i++) {
			fill(&v[i], serial_next);
			shadow_add(s, serial_next++);
		}
	} else {
		/* Room for more than is used, or exactly as much. */
		uint32_t room = how == 2 ? n + rnd(600) : n;
		struct x_value *v = x_build_room(b, room);

		assert_non_null(v);
		for (uint32_t i = 0; i < n; i++) {
			fill(&v[i], serial_next);
			shadow_add(s, serial_next++);
		}
		x_build_commit(b, n);
	}
}

static uint32_t run_length(void)
{
	uint32_t k = rnd(40);

	if (k == 0)
		return 20000 + rnd(60000);
	return k < 8 ? rnd(2000) : rnd(8);
}

static void check_object(const struct x_object *o, uint32_t *next_id)
{
	uint32_t id = (*next_id)++;
	const struct shadow *s = &shadows[id];

	assert_int_equal(o->value_count, s->count);
	for (uint32_t i = 0; i < s->count; i++)
		check_value(&o->values[i], s->serials[i]);
	assert_int_equal(o->child_count, s->children);
	for (uint32_t i = 0; i < o->child_count; i++)
		check_object(o->children[i], next_id);
}

/* Objects are numbered in the order they are opened, which is the order
 * a depth-first walk meets them. */
static void test_random_programs(void **state)
{
	(void)state;
	for (int round = 0; round < 30; round++) {
		static char body[16];
		struct x_tree t;
		struct x_builder *b;
		struct diag d = { 0 };
		uint32_t open_ids[X_MAX_DEPTH], depth = 0, objects = 0, roots = 0, id = 0;
		uint64_t values = 0;
		int steps = 200 + (int)rnd(3000);

		memset(&t, 0, sizeof t);
		t.header.encoding = X_BINARY;
		t.body = body;
		t.body_len = sizeof body;
		serial_next = 0;
		assert_int_equal(x_build_begin(&b, &t, &d), 0);
		for (int step = 0; step < steps || depth > 0; step++) {
			unsigned what = rnd(10);

			if (step >= steps || (depth > 0 && what < 3) || depth == X_MAX_DEPTH - 1 ||
			    objects == MAX_OBJECTS) {
				if (depth == 0)
					break;
				assert_int_equal(x_build_close(b, 0), 0);
				depth--;
			} else if (depth == 0 || what < 6) {
				assert_int_equal(x_build_open(b, "T", 1, NULL, 0, 0), 0);
				shadows[objects].count = 0;
				shadows[objects].children = 0;
				if (depth > 0)
					shadows[open_ids[depth - 1]].children++;
				else
					roots++;
				open_ids[depth++] = objects++;
			} else {
				struct shadow *s = &shadows[open_ids[depth - 1]];
				uint32_t n = run_length(), before = s->count;

				if (rnd(8) == 0) {
					/* Room taken, nothing committed. */
					assert_non_null(x_build_room(b, 1 + rnd(100)));
					x_build_commit(b, 0);
				}
				add_values(b, s, n);
				values += s->count - before;
			}
		}
		assert_int_equal(x_build_finish(b, 0), 0);
		assert_int_equal(t.root_count, roots);
		assert_int_equal(t.object_count, objects);
		assert_int_equal(t.value_count, values);
		for (uint32_t i = 0; i < t.root_count; i++)
			check_object(t.roots[i], &id);
		assert_int_equal(id, objects);
		x_tree_free(&t);
	}
	for (uint32_t i = 0; i < MAX_OBJECTS; i++)
		free(shadows[i].serials);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_programs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
