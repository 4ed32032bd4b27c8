/*
 * What a directory can hold, against the real daemon: file and folder names
 * that are not text (not UTF-8, control characters) are never served, said
 * once in the log, counted in `status`, and nothing the daemon sends or
 * logs carries their bytes; and folders replaced under their name (a
 * deploy's `mv sub sub.old && mv new sub`, `rm -r sub && mkdir sub`) are
 * watched again at once.  The periodic rescan is an hour away: whatever
 * is seen here, the watches saw.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 10000

struct fixture {
	struct daemon_proc d;
	struct rpc_client c;
	char *anim;                     /* gen_demo's idle.md5anim */
};

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len != NULL)
		*len = (size_t)n;
	return buf;
}

static void fx_path(const struct fixture *fx, const char *name, char *out, size_t size)
{
	snprintf(out, size, "%s/%s", fx->d.assets, name);
}

/* The demo animation with `extra` newlines at its end: a valid file whose
 * size tells which save is live. */
static void put(const struct fixture *fx, const char *name, int extra)
{
	size_t n = strlen(fx->anim);
	char *text = malloc(n + (size_t)extra + 1);

	memcpy(text, fx->anim, n);
	memset(text + n, '\n', (size_t)extra);
	text[n + (size_t)extra] = '\0';
	assert_int_equal(daemon_proc_write_asset(&fx->d, name, text), 0);
	free(text);
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(p);
}

static void rename_in(const struct fixture *fx, const char *from, const char *to)
{
	char a[1024], b[1024];

	fx_path(fx, from, a, sizeof a);
	fx_path(fx, to, b, sizeof b);
	assert_int_equal(rename(a, b), 0);
}

/* `before` runs on the asset tree before the daemon starts. */
static struct fixture *start(void (*before)(struct fixture *fx))
{
	struct fixture *fx = calloc(1, sizeof *fx);
	const char *build = getenv("BUILD");
	char cmd[1024], path[1024];

	assert_non_null(fx);
	assert_int_equal(daemon_proc_init(&fx->d), 0);
	snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s >/dev/null", build ? build : "build",
		 fx->d.assets);
	assert_int_equal(system(cmd), 0);
	fx_path(fx, "idle.md5anim", path, sizeof path);
	fx->anim = slurp(path, NULL);
	if (before != NULL)
		before(fx);
	if (daemon_proc_start(&fx->d, "[reload]\nquiet_ms = 50\nrescan_interval_s = 3600\n",
			      TIMEOUT_MS) != 0)
		fail_msg("daemon did not start:\n%s", slurp(fx->d.log, NULL));
	assert_int_equal(rpc_client_connect(&fx->c, fx->d.socket, TIMEOUT_MS), 0);
	return fx;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	int status;

	if (fx == NULL)
		return 0;
	rpc_client_close(&fx->c);
	status = daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS);
	if (status != 0)
		fprintf(stderr, "daemon log:\n%s\n", slurp(fx->d.log, NULL));
	assert_int_equal(status, 0);
	daemon_proc_cleanup(&fx->d);
	free(fx->anim);
	free(fx);
	return 0;
}

/* Text a strict client takes: valid UTF-8 (RFC 3629) without control
 * characters (C0 but newline when lines is set, DEL, C1). */
static bool is_text(const char *s, size_t n, bool lines)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = u[i] < 0x80 ? 1 : u[i] >= 0xc2 && u[i] <= 0xdf ? 2
					       : u[i] >= 0xe0 && u[i] <= 0xef ? 3
					       : u[i] >= 0xf0 && u[i] <= 0xf4 ? 4 : 0;

		if (len == 0 || i + len > n)
			return false;
		cp = len == 1 ? u[i] : u[i] & (0x7fu >> len);
		for (size_t k = 1; k < len; k++) {
			if ((u[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (u[i + k] & 0x3fu);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
		    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		if ((cp < 0x20 && !(lines && cp == '\n')) || (cp >= 0x7f && cp < 0xa0))
			return false;
		i += len;
	}
	return true;
}

/* Every str in a msgpack object, keys included, is text. */
static void assert_all_text(const msgpack_object *o)
{
	switch (o->type) {
	case MSGPACK_OBJECT_STR:
		if (!is_text(o->via.str.ptr, o->via.str.size, false))
			fail_msg("a str that is not text: \"%.*s\"", (int)o->via.str.size,
				 o->via.str.ptr);
		break;
	case MSGPACK_OBJECT_ARRAY:
		for (uint32_t i = 0; i < o->via.array.size; i++)
			assert_all_text(&o->via.array.ptr[i]);
		break;
	case MSGPACK_OBJECT_MAP:
		for (uint32_t i = 0; i < o->via.map.size; i++) {
			assert_all_text(&o->via.map.ptr[i].key);
			assert_all_text(&o->via.map.ptr[i].val);
		}
		break;
	default:
		break;
	}
}

static void subscribe_assets(struct fixture *fx)
{
	const char *events[] = { "asset.loaded", "asset.reloaded", "asset.error", "asset.removed",
				 NULL };
	struct rpc_reply r;

	assert_int_equal(rpc_client_call(&fx->c, &r, "subscribe", "events:S", events), 0);
	assert_null(r.error);
	rpc_reply_free(&r);
}

/* Waits for every "type asset" of want (NULL-terminated), in any order;
 * each event that arrives meanwhile must be text through and through. */
static void expect_events(struct fixture *fx, const char *const *want)
{
	bool seen[16] = { false };
	size_t n = 0, left;

	while (want[n] != NULL)
		n++;
	assert_true(n <= 16);
	for (left = n; left > 0;) {
		struct rpc_event ev;
		char name[512], both[600];

		if (rpc_client_next_event(&fx->c, TIMEOUT_MS, &ev) != 0) {
			for (size_t i = 0; i < n; i++)
				if (!seen[i])
					fail_msg("no event \"%s\" (log: %s)", want[i], fx->d.log);
		}
		assert_all_text(ev.body);
		name[0] = '\0';
		rpc_get_str(ev.body, "asset", name, sizeof name);
		snprintf(both, sizeof both, "%s %s", ev.type, name);
		for (size_t i = 0; i < n; i++)
			if (!seen[i] && strcmp(both, want[i]) == 0) {
				seen[i] = true;
				left--;
			}
		rpc_event_free(&ev);
	}
}

/* Bytes of the live version of name (assets.info). */
static int64_t live_bytes(struct fixture *fx, const char *name)
{
	struct rpc_reply r;
	int64_t v = -1;

	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", name), 0);
	if (r.error != NULL)
		fail_msg("assets.info %s: %s: %s", name, r.code, r.message);
	assert_int_equal(rpc_get_i64(r.result, "bytes", &v), 0);
	rpc_reply_free(&r);
	return v;
}

/* Polls until the live version of name has want bytes. */
static void wait_bytes(struct fixture *fx, const char *name, int64_t want)
{
	for (int i = 0; i < TIMEOUT_MS / 50 && live_bytes(fx, name) != want; i++)
		usleep(50000);
	assert_int_equal(live_bytes(fx, name), want);
}

/* Walks of the tree the daemon completed (stats). */
static int64_t scans(struct fixture *fx)
{
	struct rpc_reply r;
	int64_t v = -1;

	assert_int_equal(rpc_client_call(&fx->c, &r, "stats", NULL), 0);
	assert_null(r.error);
	assert_all_text(r.result);
	assert_int_equal(rpc_get_i64(rpc_get(r.result, "assets"), "scans", &v), 0);
	rpc_reply_free(&r);
	return v;
}

static int64_t status_assets(struct fixture *fx, const char *field)
{
	struct rpc_reply r;
	int64_t v = -1;

	assert_int_equal(rpc_client_call(&fx->c, &r, "status", NULL), 0);
	assert_null(r.error);
	assert_all_text(r.result);
	assert_int_equal(rpc_get_i64(rpc_get(r.result, "assets"), field, &v), 0);
	rpc_reply_free(&r);
	return v;
}

/* Polls status until assets.unservable is want. */
static void expect_unservable(struct fixture *fx, int64_t want)
{
	int64_t got = -1;

	for (int i = 0; i < TIMEOUT_MS / 50 && got != want; i++) {
		got = status_assets(fx, "unservable");
		if (got != want)
			usleep(50000);
	}
	assert_int_equal(got, want);
}

/* How many lines of the daemon's log hold needle. */
static size_t log_count(const struct fixture *fx, const char *needle)
{
	char *log = slurp(fx->d.log, NULL);
	size_t n = 0;

	for (const char *p = log; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	free(log);
	return n;
}

/* ---- names that are not text ---------------------------------------- */

static const char *const bad_names[] = {
	"bad\xff.md5anim", "nl\nname.md5anim", "esc\x1b[2J.md5anim", "c1\xc2\x9b.md5anim",
	"dir\xfe/x.md5anim",
};

static void put_bad_names(struct fixture *fx)
{
	for (size_t i = 0; i < sizeof bad_names / sizeof bad_names[0]; i++)
		put(fx, bad_names[i], 0);
	put(fx, "caf\xc3\xa9.md5anim", 0);
}

static void test_unservable_names(void **state)
{
	struct fixture *fx = start(put_bad_names);
	const msgpack_object *list;
	struct rpc_reply r;
	int64_t walks;
	size_t len;
	char *log;

	*state = fx;
	/* Listed: the demo's six and café, nothing else, all text. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.list", NULL), 0);
	assert_null(r.error);
	assert_all_text(r.result);
	list = rpc_get(r.result, "assets");
	assert_int_equal(list->via.array.size, 7);
	rpc_reply_free(&r);
	assert_int_equal(status_assets(fx, "count"), 7);
	assert_int_equal(status_assets(fx, "unservable"), 5);
	assert_int_equal(live_bytes(fx, "caf\xc3\xa9.md5anim"), (int64_t)strlen(fx->anim));

	/* One warning each, escaped, saying what to do; the log is text. */
	assert_int_equal(log_count(fx, "asset name \"bad\\xff.md5anim\" is not valid UTF-8: "
				      "not served; rename the file"), 1);
	assert_int_equal(log_count(fx, "asset name \"nl\\x0aname.md5anim\" holds a control "
				      "character: not served; rename the file"), 1);
	assert_int_equal(log_count(fx, "asset name \"esc\\x1b[2J.md5anim\" holds a control "
				      "character"), 1);
	assert_int_equal(log_count(fx, "asset name \"c1\\xc2\\x9b.md5anim\" holds a control "
				      "character"), 1);
	assert_int_equal(log_count(fx, "folder name \"dir\\xfe\" is not valid UTF-8: nothing in "
				      "it is served; rename the folder"), 1);
	log = slurp(fx->d.log, &len);
	if (!is_text(log, len, true))
		fail_msg("the log is not text:\n%s", log);
	free(log);

	/* A rescan (SIGHUP) says nothing again. */
	walks = scans(fx);
	kill(fx->d.pid, SIGHUP);
	for (int i = 0; i < TIMEOUT_MS / 50 && scans(fx) == walks; i++)
		usleep(50000);
	assert_true(scans(fx) > walks);
	assert_int_equal(log_count(fx, "not served; rename the file"), 4);
	assert_int_equal(log_count(fx, "rename the folder"), 1);
	subscribe_assets(fx);

	/* Renames in and out of a good name, seen by the watches. */
	rename_in(fx, "bad\xff.md5anim", "fixed.md5anim");
	rename_in(fx, "caf\xc3\xa9.md5anim", "caf\x01.md5anim");
	rename_in(fx, "dir\xfe", "dir");
	put(fx, "new\x7f.md5anim", 0);
	expect_events(fx, (const char *const[]){ "asset.loaded fixed.md5anim",
						 "asset.removed caf\xc3\xa9.md5anim",
						 "asset.loaded dir/x.md5anim", NULL });
	expect_unservable(fx, 5);       /* -bad, -dir, +caf\x01, +new\x7f */
	assert_int_equal(log_count(fx, "asset name \"new\\x7f.md5anim\" holds a control "
				      "character"), 1);

	/* Names from requests: the errors are text, the name escaped. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", "nl\nname.md5anim"), 0);
	assert_string_equal(r.code, "not_found");
	assert_true(is_text(r.message, strlen(r.message), false));
	assert_non_null(strstr(r.message, "\"nl\\x0aname.md5anim\""));
	assert_all_text(r.error);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", "caf\x01.md5anim"), 0);
	assert_string_equal(r.code, "not_found");
	assert_all_text(r.error);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", "bad\xff.md5anim"), 0);
	assert_string_equal(r.code, "bad_request");
	assert_all_text(r.error);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s", "esc\x1b[2J.md5anim"), 0);
	assert_string_equal(r.code, "not_found");
	assert_all_text(r.error);
	rpc_reply_free(&r);
	log = slurp(fx->d.log, &len);
	if (!is_text(log, len, true))
		fail_msg("the log is not text:\n%s", log);
	free(log);
}

/* ---- folders replaced under their name ------------------------------- */

static void put_sub_and_new(struct fixture *fx)
{
	put(fx, "sub/a.md5anim", 0);
	put(fx, "sub/deeper/d.md5anim", 0);
	put(fx, "new/a.md5anim", 1);
	put(fx, "new/b.md5anim", 1);
	put(fx, "new/deeper/d.md5anim", 1);
}

static void test_folder_replaced(void **state)
{
	struct fixture *fx = start(put_sub_and_new);
	int64_t size = (int64_t)strlen(fx->anim);
	char path[1024];

	*state = fx;
	subscribe_assets(fx);

	/* mv sub sub.old && mv new sub, and an edit in the new one at once. */
	rename_in(fx, "sub", "sub.old");
	rename_in(fx, "new", "sub");
	put(fx, "sub/a.md5anim", 2);
	expect_events(fx, (const char *const[]){ "asset.loaded sub.old/a.md5anim",
						 "asset.loaded sub.old/deeper/d.md5anim",
						 "asset.loaded sub/b.md5anim",
						 "asset.removed new/a.md5anim",
						 "asset.removed new/b.md5anim",
						 "asset.removed new/deeper/d.md5anim", NULL });
	wait_bytes(fx, "sub/a.md5anim", size + 2);
	wait_bytes(fx, "sub/deeper/d.md5anim", size + 1);
	assert_int_equal(live_bytes(fx, "sub.old/a.md5anim"), size);

	/* Edits after the swap: each folder under its own name, only there. */
	put(fx, "sub/a.md5anim", 3);
	put(fx, "sub/deeper/d.md5anim", 3);
	expect_events(fx, (const char *const[]){ "asset.reloaded sub/a.md5anim",
						 "asset.reloaded sub/deeper/d.md5anim", NULL });
	assert_int_equal(live_bytes(fx, "sub/a.md5anim"), size + 3);
	put(fx, "sub.old/a.md5anim", 4);
	expect_events(fx, (const char *const[]){ "asset.reloaded sub.old/a.md5anim", NULL });
	assert_int_equal(live_bytes(fx, "sub.old/a.md5anim"), size + 4);
	assert_int_equal(live_bytes(fx, "sub/a.md5anim"), size + 3);

	/* rm -r sub && mkdir sub, a file in it at once, then an edit. */
	fx_path(fx, "sub", path, sizeof path);
	assert_int_equal(nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	put(fx, "sub/c.md5anim", 0);
	expect_events(fx, (const char *const[]){ "asset.removed sub/a.md5anim",
						 "asset.removed sub/b.md5anim",
						 "asset.removed sub/deeper/d.md5anim",
						 "asset.loaded sub/c.md5anim", NULL });
	put(fx, "sub/c.md5anim", 5);
	expect_events(fx, (const char *const[]){ "asset.reloaded sub/c.md5anim", NULL });
	assert_int_equal(live_bytes(fx, "sub/c.md5anim"), size + 5);
	/* root, sub, sub.old, sub.old/deeper */
	assert_int_equal(status_assets(fx, "directories"), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_unservable_names, teardown),
		cmocka_unit_test_teardown(test_folder_replaced, teardown),
	};

	return cmocka_run_group_tests_name("asset tree", tests, NULL, NULL);
}
