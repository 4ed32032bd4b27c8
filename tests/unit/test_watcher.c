/*
 * The watcher's table of watched directories: removing a name stops the
 * watch of that directory and of every one below it, and no other (a
 * sibling whose name starts the same stays), whether the name itself is
 * watched or only directories below it are.  The watcher counts, for
 * every name, the watches below it so that a removal where there is
 * nothing to remove costs one lookup; these cases prove the counts right.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <uv.h>

#include "daemon/service/cache/watcher.h"

struct fixture {
	uv_loop_t loop;
	char root[64];
	struct watcher *w;
};

static const char *const dirs[] = { "a", "a/b", "a/b/c", "ab", "x", "x/y", "x/y/z" };

static void on_event(struct watcher *w, const char *path, int events, int status, void *data)
{
	(void)w, (void)path, (void)events, (void)status, (void)data;
}

static int add(struct fixture *fx, const char *dir)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", fx->root, dir);
	if (stat(path, &st) < 0)
		return -1;
	return watcher_add(fx->w, dir, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	char path[256];

	assert_non_null(fx);
	snprintf(fx->root, sizeof fx->root, "/tmp/animd-watcher-XXXXXX");
	assert_non_null(mkdtemp(fx->root));
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		snprintf(path, sizeof path, "%s/%s", fx->root, dirs[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	assert_int_equal(uv_loop_init(&fx->loop), 0);
	assert_int_equal(watcher_new(&fx->loop, fx->root, on_event, fx, &fx->w), 0);
	assert_int_equal(add(fx, ""), 0);
	/* Everything but x itself. */
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		if (strcmp(dirs[i], "x") != 0)
			assert_int_equal(add(fx, dirs[i]), 0);
	assert_int_equal(watcher_count(fx->w), 7);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char cmd[128];

	watcher_close(fx->w, NULL, NULL);
	uv_run(&fx->loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&fx->loop), 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->root);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

static void test_remove_subtree(void **state)
{
	struct fixture *fx = *state;

	assert_int_equal(watcher_remove(fx->w, "a"), 3);
	assert_false(watcher_has(fx->w, "a"));
	assert_false(watcher_has(fx->w, "a/b"));
	assert_false(watcher_has(fx->w, "a/b/c"));
	assert_true(watcher_has(fx->w, "ab"));
	assert_int_equal(watcher_count(fx->w), 4);
	/* Gone already: nothing more. */
	assert_int_equal(watcher_remove(fx->w, "a"), 0);
	assert_int_equal(watcher_remove(fx->w, "a/b"), 0);
	/* Watched again, then removed from the middle. */
	assert_int_equal(add(fx, "a"), 0);
	assert_int_equal(add(fx, "a/b"), 0);
	assert_int_equal(add(fx, "a/b/c"), 0);
	assert_int_equal(watcher_remove(fx->w, "a/b"), 2);
	assert_true(watcher_has(fx->w, "a"));
	assert_int_equal(watcher_remove(fx->w, "a"), 1);
}

static void test_remove_below_an_unwatched_name(void **state)
{
	struct fixture *fx = *state;

	assert_false(watcher_has(fx->w, "x"));
	assert_int_equal(watcher_remove(fx->w, "x"), 2);
	assert_false(watcher_has(fx->w, "x/y"));
	assert_false(watcher_has(fx->w, "x/y/z"));
	assert_int_equal(watcher_remove(fx->w, "nothing"), 0);
	assert_int_equal(watcher_remove(fx->w, "a/b/c"), 1);
	assert_int_equal(watcher_count(fx->w), 4);
}

static void test_remove_everything(void **state)
{
	struct fixture *fx = *state;

	assert_int_equal(watcher_remove(fx->w, "a/b/c"), 1);
	assert_int_equal(watcher_remove(fx->w, ""), 6);
	assert_int_equal(watcher_count(fx->w), 0);
	assert_null(watcher_next(fx->w, NULL));
	/* The counts start again from nothing. */
	assert_int_equal(add(fx, "x/y/z"), 0);
	assert_int_equal(watcher_remove(fx->w, "x"), 1);
	assert_int_equal(watcher_count(fx->w), 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_remove_subtree),
		T(test_remove_below_an_unwatched_name),
		T(test_remove_everything),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
