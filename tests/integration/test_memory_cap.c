/*
 * [assets] max_memory against the real daemon (PROTOCOL.md, status's
 * memory.assets_cap; conf/animd.ini): on a generated tree of every format
 * (tests/gen/gen_tree), a daemon capped at a quarter of what the tree
 * takes loaded answers every sample, cycling twice through more assets
 * than fit, exactly as an uncapped daemon on the same tree does (the reply
 * bytes compared), and plays each of them; its assets' memory stays within
 * the cap plus the largest asset; it evicts, and loads again on demand.
 * What instances play is kept whatever the cap: over it, status says so,
 * and once they stop the daemon comes back under by itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"
#include "tests/support/tree_manifest.h"

#define TIMEOUT_MS 20000
#define FILES 300

struct fixture {
	struct daemon_proc full, capped;
	struct tree_manifest m;
	struct rpc_client a, b;         /* to full, to capped */
	uint64_t cap, largest;
};

static int64_t get_u(const msgpack_object *map, const char *path)
{
	char key[64];
	const char *dot;
	int64_t v = -1;

	while ((dot = strchr(path, '.')) != NULL) {
		snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
		map = rpc_get(map, key);
		path = dot + 1;
	}
	assert_int_equal(rpc_get_i64(map, path, &v), 0);
	return v;
}

static int64_t status_of(struct rpc_client *c, const char *path)
{
	struct rpc_reply r;
	int64_t v;

	assert_int_equal(rpc_client_call(c, &r, "status", NULL), 0);
	assert_null(r.error);
	v = get_u(r.result, path);
	rpc_reply_free(&r);
	return v;
}

static bool status_bool(struct rpc_client *c, const char *field)
{
	struct rpc_reply r;
	const msgpack_object *o;
	bool v;

	assert_int_equal(rpc_client_call(c, &r, "status", NULL), 0);
	o = rpc_get(rpc_get(r.result, "assets"), field);
	assert_non_null(o);
	assert_int_equal(o->type, MSGPACK_OBJECT_BOOLEAN);
	v = o->via.boolean;
	rpc_reply_free(&r);
	return v;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	char ini[256];

	assert_non_null(fx);
	assert_int_equal(daemon_proc_init(&fx->full), 0);
	assert_int_equal(daemon_proc_init(&fx->capped), 0);
	assert_int_equal(tree_generate(fx->full.assets, FILES, 0, &fx->m), 0);
	assert_int_equal(daemon_proc_start(&fx->full, NULL, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_connect(&fx->a, fx->full.socket, TIMEOUT_MS), 0);
	fx->a.timeout_ms = TIMEOUT_MS;
	/* What the whole tree takes, and its largest asset. */
	fx->cap = (uint64_t)status_of(&fx->a, "memory.assets.total") / 4;
	for (size_t i = 0; i < fx->m.count; i++) {
		struct rpc_reply r;
		int64_t bytes;

		assert_int_equal(rpc_client_call(&fx->a, &r, "assets.info", "asset:s",
						 fx->m.assets[i].name), 0);
		assert_null(r.error);
		bytes = get_u(r.result, "memory.total");
		if ((uint64_t)bytes > fx->largest)
			fx->largest = (uint64_t)bytes;
		rpc_reply_free(&r);
	}
	/* The same tree, a quarter of it in memory. */
	snprintf(fx->capped.assets, sizeof fx->capped.assets, "%s", fx->full.assets);
	snprintf(ini, sizeof ini, "[assets]\nmax_memory = %llu\n", (unsigned long long)fx->cap);
	assert_int_equal(daemon_proc_start(&fx->capped, ini, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_connect(&fx->b, fx->capped.socket, TIMEOUT_MS), 0);
	fx->b.timeout_ms = TIMEOUT_MS;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	rpc_client_close(&fx->a);
	rpc_client_close(&fx->b);
	assert_int_equal(daemon_proc_stop(&fx->capped, SIGTERM, TIMEOUT_MS), 0);
	assert_int_equal(daemon_proc_stop(&fx->full, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&fx->capped);
	daemon_proc_cleanup(&fx->full);
	tree_manifest_free(&fx->m);
	free(fx);
	return 0;
}

/* The bytes of a reply's result: two daemons agree bit for bit or not. */
static void result_bytes(const struct rpc_reply *r, msgpack_sbuffer *out)
{
	msgpack_packer pk;

	msgpack_sbuffer_init(out);
	msgpack_packer_init(&pk, out, msgpack_sbuffer_write);
	assert_int_equal(msgpack_pack_object(&pk, *r->result), 0);
}

/* sample of asset a at time t, from both daemons: the same bytes. */
static void sample_both(struct fixture *fx, const struct tree_asset *a, double t)
{
	struct rpc_reply ra, rb;
	msgpack_sbuffer sa, sb;
	int rc;

	switch (a->kind) {
	case TREE_MD5ANIM:
		rc = rpc_client_call(&fx->a, &ra, "sample", "asset:s mesh:s time:d space:s", a->name,
				     a->mesh, t, "vertices");
		assert_int_equal(rc, 0);
		rc = rpc_client_call(&fx->b, &rb, "sample", "asset:s mesh:s time:d space:s", a->name,
				     a->mesh, t, "vertices");
		break;
	case TREE_MD5CAMERA:
		assert_int_equal(rpc_client_call(&fx->a, &ra, "sample", "asset:s time:d", a->name, t),
				 0);
		rc = rpc_client_call(&fx->b, &rb, "sample", "asset:s time:d", a->name, t);
		break;
	default:
		assert_int_equal(rpc_client_call(&fx->a, &ra, "sample", "asset:s time:d space:s",
						 a->name, t, "skin"), 0);
		rc = rpc_client_call(&fx->b, &rb, "sample", "asset:s time:d space:s", a->name, t,
				     "skin");
		break;
	}
	assert_int_equal(rc, 0);
	if (ra.error != NULL)
		fail_msg("uncapped: sample %s: %s: %s", a->name, ra.code, ra.message);
	if (rb.error != NULL)
		fail_msg("capped: sample %s: %s: %s", a->name, rb.code, rb.message);
	result_bytes(&ra, &sa);
	result_bytes(&rb, &sb);
	if (sa.size != sb.size || memcmp(sa.data, sb.data, sa.size) != 0)
		fail_msg("sample %s at %g: the capped daemon's pose differs", a->name, t);
	msgpack_sbuffer_destroy(&sa);
	msgpack_sbuffer_destroy(&sb);
	rpc_reply_free(&ra);
	rpc_reply_free(&rb);
}

/* play (and stop) asset a on the capped daemon. */
static void play_capped(struct fixture *fx, const struct tree_asset *a)
{
	struct rpc_reply r;
	int64_t id;

	if (a->kind == TREE_MD5ANIM)
		assert_int_equal(rpc_client_call(&fx->b, &r, "play", "asset:s mesh:s", a->name,
						 a->mesh), 0);
	else
		assert_int_equal(rpc_client_call(&fx->b, &r, "play", "asset:s", a->name), 0);
	if (r.error != NULL)
		fail_msg("capped: play %s: %s: %s", a->name, r.code, r.message);
	assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->b, &r, "stop", "instance:u", (uint64_t)id), 0);
	assert_null(r.error);
	rpc_reply_free(&r);
}

static void test_capped_equals_uncapped(void **state)
{
	struct fixture *fx = *state;
	int64_t total, evictions, loads, evicted;

	/* Started: the background kept what fits and dropped the rest. */
	assert_int_equal(status_of(&fx->b, "memory.assets_cap"), (int64_t)fx->cap);
	assert_true((uint64_t)status_of(&fx->b, "memory.assets.total") <= fx->cap);
	evicted = status_of(&fx->b, "assets.states.evicted");
	assert_true(evicted > 0);
	assert_int_equal(status_of(&fx->a, "assets.states.evicted"), 0);
	assert_true(daemon_proc_log_contains(&fx->capped, "reached the cap"));

	/* Twice through the tree: more than fits, each asset loaded again
	 * after it was evicted. */
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < fx->m.count; i++) {
			const struct tree_asset *a = &fx->m.assets[i];

			if (a->kind == TREE_MD5MESH)
				continue;       /* sampled with its anim */
			sample_both(fx, a, 0.37 + 0.11 * round);
			if (i % 3 == (size_t)round)
				play_capped(fx, a);
			total = status_of(&fx->b, "memory.assets.total");
			if ((uint64_t)total > fx->cap + fx->largest)
				fail_msg("%s: assets take %lld, over the cap %llu + the largest %llu",
					 a->name, (long long)total, (unsigned long long)fx->cap,
					 (unsigned long long)fx->largest);
		}
	}
	evictions = status_of(&fx->b, "assets.evictions");
	loads = status_of(&fx->b, "assets.on_demand_loads");
	assert_true(evictions > 0);
	assert_true(loads > evicted);
	assert_false(status_bool(&fx->b, "over_cap"));
	/* The uncapped one never had to. */
	assert_int_equal(status_of(&fx->a, "assets.evictions"), 0);
	assert_int_equal(status_of(&fx->a, "assets.on_demand_loads"), 0);
}

/* What instances play stays, over the cap if need be; once they stop, the
 * daemon evicts by itself. */
static void test_in_use_exceeds_cap(void **state)
{
	struct fixture *fx = *state;
	int64_t ids[512];
	size_t n = 0;
	struct rpc_reply r;

	for (size_t i = 0; i < fx->m.count && n < 512; i++) {
		const struct tree_asset *a = &fx->m.assets[i];

		if (a->kind != TREE_MD5ANIM)
			continue;
		assert_int_equal(rpc_client_call(&fx->b, &r, "play", "asset:s mesh:s", a->name,
						 a->mesh), 0);
		if (r.error != NULL)
			fail_msg("play %s: %s: %s", a->name, r.code, r.message);
		assert_int_equal(rpc_get_i64(r.result, "instance", &ids[n++]), 0);
		rpc_reply_free(&r);
		if (status_bool(&fx->b, "over_cap"))
			break;
	}
	assert_true(status_bool(&fx->b, "over_cap"));
	assert_true(daemon_proc_log_contains(&fx->capped, "is over the cap"));
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(rpc_client_call(&fx->b, &r, "stop", "instance:u", (uint64_t)ids[i]),
				 0);
		assert_null(r.error);
		rpc_reply_free(&r);
	}
	for (int tries = 0; status_bool(&fx->b, "over_cap") && tries < 1000; tries++)
		poll(NULL, 0, 10);
	assert_false(status_bool(&fx->b, "over_cap"));
	assert_true((uint64_t)status_of(&fx->b, "memory.assets.total") <= fx->cap);
	assert_true(daemon_proc_log_contains(&fx->capped, "is within the cap again"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_capped_equals_uncapped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_use_exceeds_cap, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
