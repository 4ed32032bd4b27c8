/*
 * The sorted string index the cache pages assets.list with: random adds
 * and removes (enough of them that holes are closed on the way), checked
 * after each prepare against a plain sorted list: every key present once,
 * in strcmp order, and a seek after any key (present, removed or never
 * added) lands on the first key after it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/service/base/strorder.h"

#define KEYS 30000

struct item {
	struct strorder_node node;
	char key[16];
	bool in;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/* Keys sort in index order when written %05u; present ones are "in". */
static void check(struct strorder *o, struct item *items)
{
	size_t n = 0, at = 0;

	assert_int_equal(strorder_prepare(o), 0);
	for (size_t i = 0; i < KEYS; i++)
		n += items[i].in;
	assert_int_equal(strorder_count(o), n);
	for (size_t i = 0; i < KEYS; i++) {
		if (!items[i].in)
			continue;
		assert_ptr_equal(strorder_at(o, at), &items[i].node);
		at++;
	}
	/* Seeks: after every 97th key, and before the first. */
	assert_int_equal(strorder_seek(o, NULL), 0);
	assert_int_equal(strorder_seek(o, ""), 0);
	for (size_t i = 0, rank = 0; i < KEYS; i++) {
		rank += items[i].in;
		if (i % 97 == 0)
			assert_int_equal(strorder_seek(o, items[i].key), rank);
	}
	assert_int_equal(strorder_seek(o, "zzz"), n);
}

static void test_random_changes(void **state)
{
	struct item *items = calloc(KEYS, sizeof *items);
	struct strorder o;

	(void)state;
	assert_non_null(items);
	strorder_init(&o);
	assert_int_equal(strorder_prepare(&o), 0);
	assert_int_equal(strorder_count(&o), 0);
	for (size_t i = 0; i < KEYS; i++)
		snprintf(items[i].key, sizeof items[i].key, "k%05zu", i);
	for (int round = 0; round < 12; round++) {
		/* A burst of changes between reads, in random key order: many
		 * adds at first, then as many removes as adds, then mostly
		 * removes (past the hole threshold), then adds again. */
		int ops = round == 0 ? 3 * KEYS : KEYS / 2;

		for (int k = 0; k < ops; k++) {
			struct item *it = &items[next_rand() % KEYS];
			bool add = round < 4 ? next_rand() % 2 == 0 : round < 8 ? next_rand() % 8 == 0
									: next_rand() % 4 != 0;

			if (add && !it->in) {
				strorder_add(&o, &it->node, it->key);
				it->in = true;
			} else if (!add && it->in) {
				strorder_remove(&o, &it->node);
				it->in = false;
			}
			/* Sometimes read in the middle of a burst. */
			if (k % 4999 == 0)
				check(&o, items);
		}
		check(&o, items);
	}
	/* Everything out, then in again. */
	for (size_t i = 0; i < KEYS; i++)
		if (items[i].in) {
			strorder_remove(&o, &items[i].node);
			items[i].in = false;
		}
	check(&o, items);
	for (size_t i = KEYS; i-- > 0;) {
		strorder_add(&o, &items[i].node, items[i].key);
		items[i].in = true;
	}
	check(&o, items);
	strorder_fini(&o);
	free(items);
}

/* A node removed while it waits, or added and removed between reads, is
 * never seen. */
static void test_waiting_nodes(void **state)
{
	struct item it[3] = { { .key = "b" }, { .key = "a" }, { .key = "c" } };
	struct strorder o;

	(void)state;
	strorder_init(&o);
	for (int i = 0; i < 3; i++)
		strorder_add(&o, &it[i].node, it[i].key);
	strorder_remove(&o, &it[0].node);
	assert_int_equal(strorder_prepare(&o), 0);
	assert_int_equal(strorder_count(&o), 2);
	assert_ptr_equal(strorder_at(&o, 0), &it[1].node);
	assert_ptr_equal(strorder_at(&o, 1), &it[2].node);
	assert_int_equal(strorder_seek(&o, "b"), 1);
	strorder_add(&o, &it[0].node, it[0].key);
	strorder_remove(&o, &it[2].node);
	assert_int_equal(strorder_prepare(&o), 0);
	assert_int_equal(strorder_count(&o), 2);
	assert_ptr_equal(strorder_at(&o, 1), &it[0].node);
	assert_int_equal(strorder_seek(&o, "a"), 1);
	assert_int_equal(strorder_seek(&o, "b"), 2);
	strorder_fini(&o);
}

/* Removals nobody reads between are closed up as they pile up. */
static void test_holes_bounded(void **state)
{
	struct item *items = calloc(KEYS, sizeof *items);
	struct strorder o;

	(void)state;
	assert_non_null(items);
	strorder_init(&o);
	for (size_t i = 0; i < KEYS; i++) {
		snprintf(items[i].key, sizeof items[i].key, "k%05zu", i);
		strorder_add(&o, &items[i].node, items[i].key);
		items[i].in = true;
	}
	assert_int_equal(strorder_prepare(&o), 0);
	for (size_t i = 0; i < KEYS; i += 2) {
		strorder_remove(&o, &items[i].node);
		items[i].in = false;
		assert_true(o.holes <= 4096 + 1 || o.holes <= o.sorted_len / 16 + 1);
	}
	assert_true(o.sorted_len < KEYS);
	check(&o, items);
	strorder_fini(&o);
	free(items);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_changes),
		cmocka_unit_test(test_waiting_nodes),
		cmocka_unit_test(test_holes_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
