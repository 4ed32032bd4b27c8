/*
 * The first moment (PROTOCOL.md section 1, "Start-up"; section 2,
 * "Requests that wait for a load"), against the real daemon on a generated
 * tree of 2,000 assets of every format (tests/gen/gen_tree): requests sent
 * the moment the socket accepts, started directly and through
 * systemd-socket-activate as animd.socket does, are all answered as they
 * would be a minute later: assets.info of the first, a middle and the last
 * asset, play of an md5anim on its md5mesh (both wait), of an M2 with its
 * companions, sample of a .x, not_found for a missing name, asset_error for
 * a broken file, assets.list naming every asset.  Then what may become of a
 * request waiting for a load, each made certain by a writer that keeps the
 * file changing (its quiet period never ends, so its load never starts):
 * its connection closes, the file changes, vanishes or breaks, the wait
 * times out (`loading`), the daemon stops (`shutting_down`); status is
 * answered all the while.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"
#include "tests/support/tree_manifest.h"

#define TIMEOUT_MS 20000
#define FILES 2000

struct fixture {
	struct daemon_proc d;
	struct tree_manifest m;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);

	assert_non_null(fx);
	assert_int_equal(daemon_proc_init(&fx->d), 0);
	assert_int_equal(tree_generate(fx->d.assets, FILES, 3, &fx->m), 0);
	assert_true(fx->m.count >= FILES);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	if (fx->d.pid > 0)
		assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	tree_manifest_free(&fx->m);
	daemon_proc_cleanup(&fx->d);
	free(fx);
	return 0;
}

static void sleep_ms(int ms)
{
	poll(NULL, 0, ms);
}

/* ---- the first moment ---------------------------------------------------- */

enum first_req {
	R_FIRST, R_MIDDLE, R_LAST, R_PLAY_MD5, R_PLAY_M2, R_SAMPLE_X, R_MISSING, R_BROKEN,
	R_LIST, R_STATUS, R_COUNT
};

/* Sends every request at once, the moment the connection is made, then
 * checks every answer. */
static void first_moment_requests(struct fixture *fx, struct rpc_client *c)
{
	const struct tree_manifest *m = &fx->m;
	const struct tree_asset *anim = tree_nth(m, TREE_MD5ANIM, m->by_kind[TREE_MD5ANIM] - 1);
	const struct tree_asset *m2 = NULL;
	const struct tree_asset *x = tree_nth(m, TREE_X, m->by_kind[TREE_X] - 1);
	const struct tree_asset *broken = tree_nth(m, TREE_BROKEN, 0);
	int64_t id[R_COUNT];
	struct rpc_reply replies[R_COUNT], r;
	const msgpack_object *o;
	char s[128];
	int64_t v;

	/* An M2 of the tree's middle with companions (version 264's .skin). */
	for (size_t i = m->by_kind[TREE_M2] / 2; i < m->by_kind[TREE_M2] && m2 == NULL; i++)
		if (tree_nth(m, TREE_M2, i)->mesh[0] != '\0')
			m2 = tree_nth(m, TREE_M2, i);
	assert_non_null(anim);
	assert_non_null(m2);
	assert_non_null(x);
	assert_non_null(broken);
	rpc_client_cork(c);
	id[R_FIRST] = rpc_client_send(c, "assets.info", "asset:s", m->assets[0].name);
	id[R_MIDDLE] = rpc_client_send(c, "assets.info", "asset:s", m->assets[m->count / 2].name);
	id[R_LAST] = rpc_client_send(c, "assets.info", "asset:s", m->assets[m->count - 1].name);
	id[R_PLAY_MD5] = rpc_client_send(c, "play", "asset:s mesh:s", anim->name, anim->mesh);
	id[R_PLAY_M2] = rpc_client_send(c, "play", "asset:s", m2->name);
	id[R_SAMPLE_X] = rpc_client_send(c, "sample", "asset:s time:d space:s", x->name, 0.5,
					 "model");
	id[R_MISSING] = rpc_client_send(c, "assets.info", "asset:s", "g000/nothing.md5anim");
	id[R_BROKEN] = rpc_client_send(c, "assets.info", "asset:s", broken->name);
	id[R_LIST] = rpc_client_send(c, "assets.list", "limit:u", (uint64_t)10000);
	id[R_STATUS] = rpc_client_send(c, "status", NULL);
	assert_int_equal(rpc_client_uncork(c), 0);
	for (int i = 0; i < R_COUNT; i++)
		assert_true(id[i] > 0);
	/* Replies come in any order (those that waited after the others). */
	for (int got = 0; got < R_COUNT; got++) {
		int k;

		assert_int_equal(rpc_client_wait_any(c, &r), 0);
		for (k = 0; k < R_COUNT && (uint32_t)id[k] != r.msgid; k++)
			;
		assert_true(k < R_COUNT);
		replies[k] = r;
	}

	for (int i = R_FIRST; i <= R_LAST; i++) {
		r = replies[i];
		if (r.error != NULL)
			fail_msg("assets.info %d: %s: %s", i, r.code, r.message);
		assert_int_equal(rpc_get_i64(r.result, "generation", &v), 0);
		assert_int_equal(v, 1);
		rpc_reply_free(&r);
	}
	r = replies[R_PLAY_MD5];
	if (r.error != NULL)
		fail_msg("play %s on %s: %s: %s", anim->name, anim->mesh, r.code, r.message);
	assert_int_equal(rpc_get_str(r.result, "mesh", s, sizeof s), 0);
	assert_string_equal(s, anim->mesh);
	rpc_reply_free(&r);
	r = replies[R_PLAY_M2];
	if (r.error != NULL)
		fail_msg("play %s: %s: %s", m2->name, r.code, r.message);
	rpc_reply_free(&r);
	r = replies[R_SAMPLE_X];
	if (r.error != NULL)
		fail_msg("sample %s: %s: %s", x->name, r.code, r.message);
	assert_non_null(rpc_get(r.result, "joints"));
	rpc_reply_free(&r);
	r = replies[R_MISSING];
	assert_string_equal(r.code, "not_found");
	rpc_reply_free(&r);
	r = replies[R_BROKEN];
	assert_string_equal(r.code, "asset_error");
	assert_non_null(strstr(r.message, ":4:"));
	rpc_reply_free(&r);
	r = replies[R_LIST];
	if (r.error != NULL)
		fail_msg("assets.list: %s: %s", r.code, r.message);
	o = rpc_get(r.result, "assets");
	assert_non_null(o);
	assert_int_equal(o->type, MSGPACK_OBJECT_ARRAY);
	assert_int_equal(o->via.array.size, m->count);
	/* Every entry says where it is. */
	for (uint32_t i = 0; i < o->via.array.size; i++) {
		assert_int_equal(rpc_get_str(&o->via.array.ptr[i], "state", s, sizeof s), 0);
		assert_true(strcmp(s, "loading") == 0 || strcmp(s, "ok") == 0 ||
			    strcmp(s, "failed") == 0);
	}
	rpc_reply_free(&r);
	/* Answered at once, whatever was loading. */
	r = replies[R_STATUS];
	assert_null(r.error);
	assert_int_equal(rpc_get_i64(r.result, "pid", &v), 0);
	assert_int_equal(v, fx->d.pid);
	rpc_reply_free(&r);
}

static void test_first_moment_direct(void **state)
{
	struct fixture *fx = *state;
	struct rpc_client c;

	assert_int_equal(daemon_proc_spawn(&fx->d, "[log]\nlevel = debug\n", NULL), 0);
	assert_int_equal(rpc_client_connect(&c, fx->d.socket, TIMEOUT_MS), 0);
	c.timeout_ms = TIMEOUT_MS;
	first_moment_requests(fx, &c);
	rpc_client_close(&c);
	assert_true(daemon_proc_log_contains(&fx->d, "indexed "));
	/* READY=1 came with the index; the loads end after. */
	assert_int_equal(daemon_proc_wait_notify(&fx->d, "READY=1", TIMEOUT_MS), 0);
	assert_int_equal(daemon_proc_wait_notify(&fx->d, "STATUS=serving", TIMEOUT_MS), 0);
}

/* As animd.socket: the client is connected before animd runs. */
static void test_first_moment_activated(void **state)
{
	struct fixture *fx = *state;
	struct rpc_client c;
	struct stat st;
	int tries = 0;

	if (system("command -v systemd-socket-activate >/dev/null 2>&1") != 0) {
		printf("skip: systemd-socket-activate is not installed (Debian's systemd package)\n");
		skip();
	}
	assert_int_equal(daemon_proc_spawn(&fx->d, NULL, "systemd-socket-activate"), 0);
	while (stat(fx->d.socket, &st) != 0 && tries++ < 1000)
		sleep_ms(10);
	assert_int_equal(rpc_client_connect(&c, fx->d.socket, TIMEOUT_MS), 0);
	c.timeout_ms = TIMEOUT_MS;
	first_moment_requests(fx, &c);
	rpc_client_close(&c);
	assert_true(daemon_proc_log_contains(&fx->d, "the socket systemd passed"));
}

/* ---- a request that waits ------------------------------------------------ */

/* A process that appends a newline to path every 20 ms (while the file
 * exists): the file's quiet period never ends, so its load waits. */
static pid_t writer_start(const struct fixture *fx, const char *name)
{
	char path[1024];
	pid_t pid;

	snprintf(path, sizeof path, "%s/%s", fx->d.assets, name);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;) {
			int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);

			if (fd >= 0) {
				if (write(fd, "\n", 1) < 0)
					_exit(1);
				close(fd);
			}
			poll(NULL, 0, 20);
		}
	}
	return pid;
}

static void writer_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A field of status's assets, from its own connection: answered while
 * requests wait. */
static int64_t status_assets(struct fixture *fx, const char *field)
{
	struct rpc_client c;
	struct rpc_reply r;
	int64_t v = -1;

	assert_int_equal(rpc_client_connect(&c, fx->d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&c, &r, "status", NULL), 0);
	assert_null(r.error);
	assert_int_equal(rpc_get_i64(rpc_get(r.result, "assets"), field, &v), 0);
	rpc_reply_free(&r);
	rpc_client_close(&c);
	return v;
}

/* Until field is want (at least want with at_least). */
static void expect_assets(struct fixture *fx, const char *field, int64_t want, bool at_least)
{
	for (int i = 0; i < 1000; i++) {
		int64_t v = status_assets(fx, field);

		if (v == want || (at_least && v > want))
			return;
		sleep_ms(10);
	}
	fail_msg("status never said assets.%s %s %lld", field, at_least ? ">=" : "==",
		 (long long)want);
}

static void expect_waiting(struct fixture *fx, int64_t want)
{
	expect_assets(fx, "waiting", want, false);
}

/* A writer on name, which the daemon has seen: the file's quiet period is
 * running (status counts it among the loads waiting) before a request
 * comes, which then cannot find the file still. */
static pid_t writer_seen(struct fixture *fx, const char *name)
{
	pid_t w;

	expect_assets(fx, "loading", 0, false);         /* the last step's are over */
	w = writer_start(fx, name);

	expect_assets(fx, "loading", 1, true);
	return w;
}

static void write_file(const struct fixture *fx, const char *name, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", fx->d.assets, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Each fate once, every one of them while a writer keeps the asset's file
 * changing: the request is certain to be waiting when the fate comes. */
static void test_what_becomes_of_a_waiting_request(void **state)
{
	struct fixture *fx = *state;
	const struct tree_manifest *m = &fx->m;
	const struct tree_asset *a[6];
	struct rpc_client c;
	struct rpc_reply r;
	int64_t id, gen;
	char path[1024];
	pid_t w;
	int status;

	for (size_t i = 0; i < 6; i++) {
		a[i] = tree_nth(m, TREE_MD5ANIM, i * 7);
		assert_non_null(a[i]);
	}
	/* Nothing stays in memory: every asset is evicted once checked. */
	assert_int_equal(daemon_proc_start(&fx->d, "[assets]\nmax_memory = 1\n"
					   "[reload]\nquiet_ms = 500\n"
					   "[limits]\nrequest_timeout_ms = 3000\n", TIMEOUT_MS), 0);

	/* Its connection closes: the daemon lets it go. */
	w = writer_seen(fx, a[0]->name);
	assert_int_equal(rpc_client_connect(&c, fx->d.socket, TIMEOUT_MS), 0);
	assert_true(rpc_client_send(&c, "play", "asset:s", a[0]->name) > 0);
	expect_waiting(fx, 1);
	rpc_client_close(&c);
	expect_waiting(fx, 0);
	writer_stop(w);

	/* The file changes meanwhile: the version there when it loads. */
	w = writer_seen(fx, a[1]->name);
	assert_int_equal(rpc_client_connect(&c, fx->d.socket, TIMEOUT_MS), 0);
	c.timeout_ms = TIMEOUT_MS;
	id = rpc_client_send(&c, "play", "asset:s", a[1]->name);
	expect_waiting(fx, 1);
	writer_stop(w);
	assert_int_equal(rpc_client_wait(&c, (uint32_t)id, &r), 0);
	if (r.error != NULL)
		fail_msg("play %s: %s: %s", a[1]->name, r.code, r.message);
	assert_int_equal(rpc_get_i64(r.result, "generation", &gen), 0);
	assert_int_equal(gen, 2);               /* its bytes changed: a new version */
	rpc_reply_free(&r);

	/* It vanishes: not_found. */
	w = writer_seen(fx, a[2]->name);
	id = rpc_client_send(&c, "play", "asset:s", a[2]->name);
	expect_waiting(fx, 1);
	writer_stop(w);
	snprintf(path, sizeof path, "%s/%s", fx->d.assets, a[2]->name);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rpc_client_wait(&c, (uint32_t)id, &r), 0);
	assert_string_equal(r.code, "not_found");
	rpc_reply_free(&r);

	/* It breaks: asset_error, located. */
	w = writer_seen(fx, a[3]->name);
	id = rpc_client_send(&c, "sample", "asset:s time:d", a[3]->name, 0.0);
	expect_waiting(fx, 1);
	writer_stop(w);
	write_file(fx, a[3]->name, "MD5Version 10\ncommandline \"\"\n\nnumFrames x\n");
	assert_int_equal(rpc_client_wait(&c, (uint32_t)id, &r), 0);
	assert_string_equal(r.code, "asset_error");
	assert_non_null(strstr(r.message, ":4:"));
	rpc_reply_free(&r);

	/* It never loads in time: loading, try again (and then it does). */
	w = writer_seen(fx, a[4]->name);
	id = rpc_client_send(&c, "assets.info", "asset:s", a[4]->name);
	assert_int_equal(rpc_client_wait(&c, (uint32_t)id, &r), 0);
	assert_string_equal(r.code, "loading");
	assert_non_null(strstr(r.message, a[4]->name));
	rpc_reply_free(&r);
	writer_stop(w);
	assert_int_equal(rpc_client_call(&c, &r, "assets.info", "asset:s", a[4]->name), 0);
	assert_null(r.error);
	rpc_reply_free(&r);
	expect_waiting(fx, 0);

	/* The daemon stops: shutting_down. */
	w = writer_seen(fx, a[5]->name);
	id = rpc_client_send(&c, "play", "asset:s mesh:s", a[5]->name, a[5]->mesh);
	expect_waiting(fx, 1);
	kill(fx->d.pid, SIGTERM);
	assert_int_equal(rpc_client_wait(&c, (uint32_t)id, &r), 0);
	assert_string_equal(r.code, "shutting_down");
	rpc_reply_free(&r);
	rpc_client_close(&c);
	writer_stop(w);
	assert_int_equal(waitpid(fx->d.pid, &status, 0), fx->d.pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	fx->d.pid = -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_moment_direct, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_moment_activated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_what_becomes_of_a_waiting_request, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
