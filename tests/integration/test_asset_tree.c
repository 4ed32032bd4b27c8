/*
 * What a directory can hold, against the real daemon: folders replaced
 * under their name (a deploy's `mv sub sub.old && mv new sub`, `rm -r sub
 * && mkdir sub`) are watched again at once.  The periodic rescan is an
 * hour away: whatever is seen here, the watches saw.
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

static void subscribe_assets(struct fixture *fx)
{
	const char *events[] = { "asset.loaded", "asset.reloaded", "asset.error", "asset.removed",
				 NULL };
	struct rpc_reply r;

	assert_int_equal(rpc_client_call(&fx->c, &r, "subscribe", "events:S", events), 0);
	assert_null(r.error);
	rpc_reply_free(&r);
}

/* Waits for every "type asset" of want (NULL-terminated), in any order. */
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

static int64_t status_assets(struct fixture *fx, const char *field)
{
	struct rpc_reply r;
	int64_t v = -1;

	assert_int_equal(rpc_client_call(&fx->c, &r, "status", NULL), 0);
	assert_null(r.error);
	assert_int_equal(rpc_get_i64(rpc_get(r.result, "assets"), field, &v), 0);
	rpc_reply_free(&r);
	return v;
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
		cmocka_unit_test_teardown(test_folder_replaced, teardown),
	};

	return cmocka_run_group_tests_name("asset tree", tests, NULL, NULL);
}
