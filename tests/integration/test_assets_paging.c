/*
 * assets.list paged (PROTOCOL.md section 9) against the real daemon, on a
 * tree larger than one page: 2506 assets listed 1000 at a time make three
 * pages, every name once and in order, while assets are added and removed
 * between the pages (those present throughout are listed once, one added
 * after the cursor is listed, one removed before its page is not); the
 * request without paging arguments still gets the whole list; the same
 * through libanimclient's paging call and its whole-list call, and
 * animctl list.  Then a tree whose list is over the 16 MiB reply size:
 * refused unpaged with `limit` telling to page, listed whole by paging.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/animclient.h"
#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 20000
#define MANY 2500
#define DEMO 6                          /* gen_demo's assets */

/* A camera of one frame: small, and quick to load 2500 times. */
static const char camera[] = "MD5Version 10\ncommandline \"\"\n\nnumFrames 1\nframeRate 30\n"
			     "numCuts 0\n\ncuts {\n}\n\ncamera {\n\t( 0 0 64 ) ( 0 0 0 ) 90\n}\n";

struct names {
	char **v;
	size_t n, cap;
};

static void names_add(struct names *l, const char *name)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = realloc(l->v, l->cap * sizeof *l->v);
		assert_non_null(l->v);
	}
	l->v[l->n] = strdup(name);
	assert_non_null(l->v[l->n]);
	l->n++;
}

static void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static bool names_has(const struct names *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], name) == 0)
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* got must be exactly want's names (want in any order), strictly
 * increasing: each once, in order. */
static void expect_names(const struct names *got, struct names *want, const char *what)
{
	qsort(want->v, want->n, sizeof *want->v, cmp_str);
	for (size_t i = 1; i < got->n; i++)
		if (strcmp(got->v[i - 1], got->v[i]) >= 0)
			fail_msg("%s: \"%s\" then \"%s\": not each once in order", what, got->v[i - 1],
				 got->v[i]);
	if (got->n != want->n)
		fail_msg("%s: %zu names, want %zu", what, got->n, want->n);
	for (size_t i = 0; i < got->n; i++)
		if (strcmp(got->v[i], want->v[i]) != 0)
			fail_msg("%s: name %zu is \"%s\", want \"%s\"", what, i, got->v[i],
				 want->v[i]);
}

/* One assets.list page over the wire: its names appended to got; the
 * cursor into cursor ("" when nil); returns how many it held.  cursor NULL
 * and limit 0: the request without paging arguments. */
static size_t page(struct rpc_client *c, const char *cursor, uint64_t limit, struct names *got,
		   char *next, size_t next_size)
{
	const msgpack_object *arr, *cur;
	struct rpc_reply r;
	size_t n;

	if (cursor == NULL && limit == 0)
		assert_int_equal(rpc_client_call(c, &r, "assets.list", NULL), 0);
	else if (cursor == NULL)
		assert_int_equal(rpc_client_call(c, &r, "assets.list", "limit:u", limit), 0);
	else
		assert_int_equal(rpc_client_call(c, &r, "assets.list", "cursor:s limit:u", cursor,
						 limit), 0);
	if (r.error != NULL)
		fail_msg("assets.list: %s %s", r.code, r.message);
	arr = rpc_get(r.result, "assets");
	assert_non_null(arr);
	assert_int_equal(arr->type, MSGPACK_OBJECT_ARRAY);
	n = arr->via.array.size;
	for (size_t i = 0; i < n; i++) {
		char name[1100];

		assert_int_equal(rpc_get_str(&arr->via.array.ptr[i], "asset", name, sizeof name), 0);
		names_add(got, name);
	}
	cur = rpc_get(r.result, "cursor");
	assert_non_null(cur);           /* always present: a string, or nil at the end */
	if (cur->type == MSGPACK_OBJECT_NIL) {
		next[0] = '\0';
	} else {
		assert_int_equal(rpc_get_str(r.result, "cursor", next, next_size), 0);
		assert_true(next[0] != '\0');
	}
	rpc_reply_free(&r);
	return n;
}

/* Wait for an asset event of `type` naming `asset`. */
static void wait_event(struct rpc_client *c, const char *type, const char *asset)
{
	for (;;) {
		struct rpc_event ev;
		char name[256] = "";
		bool match;

		assert_int_equal(rpc_client_next_event(c, TIMEOUT_MS, &ev), 0);
		rpc_get_str(ev.body, "asset", name, sizeof name);
		match = strcmp(ev.type, type) == 0 && strcmp(name, asset) == 0;
		rpc_event_free(&ev);
		if (match)
			return;
	}
}

static void write_camera(const struct daemon_proc *d, const char *name)
{
	assert_int_equal(daemon_proc_write_asset(d, name, camera), 0);
}

static void remove_asset(const struct daemon_proc *d, const char *name)
{
	char path[1024];

	snprintf(path, sizeof path, "%s/%s", d->assets, name);
	assert_int_equal(unlink(path), 0);
}

/* Every asset name of the tree at the start (demo and many/). */
static void initial_names(struct names *l)
{
	static const char *const demo[DEMO] = { "crane.x", "idle.md5anim", "lantern.m2",
						"orbit.md5camera", "walker.md5anim",
						"walker.md5mesh" };
	char name[64];

	for (int i = 0; i < DEMO; i++)
		names_add(l, demo[i]);
	for (int i = 0; i < MANY; i++) {
		snprintf(name, sizeof name, "many/%04d.md5camera", i);
		names_add(l, name);
	}
}

static void remove_name(struct names *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], name) == 0) {
			free(l->v[i]);
			l->v[i] = l->v[--l->n];
			return;
		}
	fail_msg("%s is not in the list", name);
}

static void start(struct daemon_proc *d, bool demo)
{
	char cmd[1024];

	assert_int_equal(daemon_proc_init(d), 0);
	if (demo) {
		snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s >/dev/null",
			 getenv("BUILD") ? getenv("BUILD") : "build", d->assets);
		assert_int_equal(system(cmd), 0);
	}
}

static void test_pages_while_assets_change(void **state)
{
	static const char *const events[] = { "asset.loaded", "asset.removed", NULL };
	struct names got = { 0 }, want = { 0 };
	struct daemon_proc d;
	struct rpc_client c;
	struct rpc_reply r;
	char cursor[1100], name[64];
	size_t n;

	(void)state;
	start(&d, true);
	for (int i = 0; i < MANY; i++) {
		snprintf(name, sizeof name, "many/%04d.md5camera", i);
		write_camera(&d, name);
	}
	assert_int_equal(daemon_proc_start(&d, "[reload]\nquiet_ms = 20\n", TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_connect(&c, d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&c, &r, "subscribe", "events:S", events), 0);
	rpc_reply_free(&r);

	/* Without paging arguments: everything, as before paging. */
	assert_int_equal(page(&c, NULL, 0, &got, cursor, sizeof cursor), DEMO + MANY);
	assert_string_equal(cursor, "");
	initial_names(&want);
	expect_names(&got, &want, "the whole list");
	names_free(&got);

	/* Page 1: crane.x, idle.md5anim, lantern.m2, many/0000 .. many/0996. */
	assert_int_equal(page(&c, NULL, 1000, &got, cursor, sizeof cursor), 1000);
	assert_string_equal(cursor, "many/0996.md5camera");
	/* Behind the cursor: one removed (listed already), one added (never
	 * listed); ahead of it: one removed (not listed), one added (listed). */
	remove_asset(&d, "many/0500.md5camera");
	wait_event(&c, "asset.removed", "many/0500.md5camera");
	write_camera(&d, "many/0500b.md5camera");
	wait_event(&c, "asset.loaded", "many/0500b.md5camera");
	remove_asset(&d, "many/1500.md5camera");
	wait_event(&c, "asset.removed", "many/1500.md5camera");
	write_camera(&d, "many/1500b.md5camera");
	wait_event(&c, "asset.loaded", "many/1500b.md5camera");
	remove_name(&want, "many/1500.md5camera");
	names_add(&want, "many/1500b.md5camera");

	/* Page 2, and the same again before page 3. */
	assert_int_equal(page(&c, cursor, 1000, &got, cursor, sizeof cursor), 1000);
	assert_true(cursor[0] != '\0');
	remove_asset(&d, "many/2400.md5camera");
	wait_event(&c, "asset.removed", "many/2400.md5camera");
	write_camera(&d, "many/2499z.md5camera");
	wait_event(&c, "asset.loaded", "many/2499z.md5camera");
	remove_name(&want, "many/2400.md5camera");
	names_add(&want, "many/2499z.md5camera");

	/* Page 3 is the last: 2506 assets, one added and one removed ahead
	 * of each cursor. */
	n = page(&c, cursor, 1000, &got, cursor, sizeof cursor);
	assert_int_equal(n, 506);
	assert_string_equal(cursor, "");
	expect_names(&got, &want, "three pages");
	assert_false(names_has(&got, "many/0500b.md5camera"));
	names_free(&got);

	/* The default page is 1000; limit out of range is refused. */
	assert_int_equal(page(&c, "", 0 + 1000, &got, cursor, sizeof cursor), 1000);
	names_free(&got);
	assert_int_equal(rpc_client_call(&c, &r, "assets.list", "cursor:s", ""), 0);
	assert_null(r.error);
	assert_int_equal(rpc_get(r.result, "assets")->via.array.size, 1000);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&c, &r, "assets.list", "limit:u", (uint64_t)10001), 0);
	assert_string_equal(r.code, "bad_request");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&c, &r, "assets.list", "limit:u", (uint64_t)0), 0);
	assert_string_equal(r.code, "bad_request");
	rpc_reply_free(&r);

	/* libanimclient: page by page, then its whole-list call. */
	{
		animc_client *ac;
		animc_asset_page *pg = NULL;
		animc_asset_list *l = NULL;
		char *next = NULL;
		int pages = 0;

		names_free(&want);
		initial_names(&want);
		remove_name(&want, "many/0500.md5camera");
		remove_name(&want, "many/1500.md5camera");
		remove_name(&want, "many/2400.md5camera");
		names_add(&want, "many/0500b.md5camera");
		names_add(&want, "many/1500b.md5camera");
		names_add(&want, "many/2499z.md5camera");
		assert_int_equal(animc_client_new(&ac), 0);
		assert_int_equal(animc_client_connect(ac, d.socket, TIMEOUT_MS), 0);
		do {
			assert_int_equal(animc_assets_list_page(ac, next, 1000, &pg), 0);
			free(next);
			next = pg->cursor != NULL ? strdup(pg->cursor) : NULL;
			for (size_t i = 0; i < pg->count; i++) {
				names_add(&got, pg->assets[i].name);
				assert_string_equal(pg->states[i], "ok");
			}
			assert_true(pg->count == 1000 || next == NULL);
			animc_free(pg);
			pages++;
		} while (next != NULL);
		assert_int_equal(pages, 3);
		expect_names(&got, &want, "animc_assets_list_page");
		names_free(&got);

		assert_int_equal(animc_assets_list(ac, &l), 0);
		for (size_t i = 0; i < l->count; i++) {
			names_add(&got, l->assets[i].name);
			assert_string_equal(l->assets[i].format,
					    strstr(l->assets[i].name, "many/") == l->assets[i].name
						    ? "md5camera" : l->assets[i].format);
			assert_true(l->assets[i].ok);
			/* Copied page after page with the names. */
			assert_string_equal(l->states[i], "ok");
		}
		animc_free(l);
		expect_names(&got, &want, "animc_assets_list");
		names_free(&got);
		animc_client_close(ac);
	}

	/* animctl list, in text and JSON: every asset once. */
	{
		char cmd[1024], line[2048];
		FILE *p;
		size_t lines = 0, objects = 0;

		snprintf(cmd, sizeof cmd, "%s/animctl --socket %s list", getenv("BUILD"), d.socket);
		p = popen(cmd, "r");
		assert_non_null(p);
		while (fgets(line, sizeof line, p) != NULL) {
			if (lines > 0) {
				char *sp = strchr(line, ' ');

				assert_non_null(sp);
				*sp = '\0';
				names_add(&got, line);
			}
			lines++;
		}
		assert_int_equal(pclose(p), 0);
		expect_names(&got, &want, "animctl list");
		names_free(&got);
		snprintf(cmd, sizeof cmd, "%s/animctl --socket %s --json list | grep -o '\"asset\":' | wc -l",
			 getenv("BUILD"), d.socket);
		p = popen(cmd, "r");
		assert_non_null(p);
		assert_non_null(fgets(line, sizeof line, p));
		objects = strtoul(line, NULL, 10);
		assert_int_equal(pclose(p), 0);
		assert_int_equal(objects, want.n);
	}

	names_free(&want);
	rpc_client_close(&c);
	assert_int_equal(daemon_proc_stop(&d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&d);
}

/* Names of about 1000 bytes (the most the cache serves is 1023) and a
 * parse error each: some 1.6 KB a listed asset, 11000 of them over 17 MB. */
#define BIG 11000
#define BIG_DIRS 4

static void big_dir(char *out, size_t size)
{
	size_t n = 0;

	for (int level = 0; level < BIG_DIRS; level++) {
		assert_true(n + 241 < size);
		memset(out + n, 'p' + level, 240);
		n += 240;
		out[n++] = '/';
	}
	out[n] = '\0';
}

static void test_list_over_a_reply(void **state)
{
	struct names got = { 0 }, want = { 0 };
	struct daemon_proc d;
	struct rpc_client c;
	struct rpc_reply r;
	char dir[1024], name[1100], cursor[1100], path[2048];
	int pages = 0;

	(void)state;
	start(&d, false);
	big_dir(dir, sizeof dir);
	for (int i = 0; i < BIG; i++) {
		FILE *f;

		snprintf(name, sizeof name, "%s%05d.md5anim", dir, i);
		snprintf(path, sizeof path, "%s/%s", d.assets, name);
		if (i == 0) {
			char cmd[2200];

			snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s'", d.assets, dir);
			assert_int_equal(system(cmd), 0);
		}
		f = fopen(path, "w");
		assert_non_null(f);
		fputs("MD5Version 11\n", f);
		fclose(f);
		names_add(&want, name);
	}
	assert_int_equal(daemon_proc_start(&d, "[log]\nlevel = error\n", 60000), 0);
	assert_int_equal(rpc_client_connect(&c, d.socket, TIMEOUT_MS), 0);

	/* Unpaged, it cannot fit: refused, telling to page. */
	assert_int_equal(rpc_client_call(&c, &r, "assets.list", NULL), 0);
	assert_string_equal(r.code, "limit");
	assert_non_null(strstr(r.message, "page it with \"limit\""));
	rpc_reply_free(&r);

	/* Paged, 10000 at a time: all of it. */
	cursor[0] = '\0';
	do {
		page(&c, pages == 0 ? NULL : cursor, 10000, &got, cursor, sizeof cursor);
		pages++;
	} while (cursor[0] != '\0');
	assert_int_equal(pages, 2);
	expect_names(&got, &want, "paged past the reply size");
	names_free(&got);

	/* libanimclient's whole list pages too. */
	{
		animc_client *ac;
		animc_asset_list *l = NULL;

		assert_int_equal(animc_client_new(&ac), 0);
		assert_int_equal(animc_client_connect(ac, d.socket, TIMEOUT_MS), 0);
		assert_int_equal(animc_assets_list(ac, &l), 0);
		for (size_t i = 0; i < l->count; i++) {
			names_add(&got, l->assets[i].name);
			assert_false(l->assets[i].ok);
			assert_non_null(l->assets[i].error);
		}
		animc_free(l);
		animc_client_close(ac);
	}
	expect_names(&got, &want, "animc_assets_list past the reply size");
	names_free(&got);
	names_free(&want);
	rpc_client_close(&c);
	assert_int_equal(daemon_proc_stop(&d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pages_while_assets_change),
		cmocka_unit_test(test_list_over_a_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
