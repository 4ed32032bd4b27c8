/*
 * status.memory end to end: the real daemon, its memory by kind (PROTOCOL.md,
 * status).  Every field is there and adds up; an asset saved into the tree
 * makes the assets' bytes grow by exactly what `animd inspect --json` says
 * the file takes (memory.total, the same name given to the load), in its
 * format and its parts, and removing it gives them back; a stream opened
 * makes the streams' bytes grow by its region_bytes and closing it gives
 * them back; an instance and a connection cost something, and nothing once
 * they are gone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 10000

struct fixture {
	struct daemon_proc d;
	struct rpc_client c;
};

/* A small skinned, animated .x: a skeleton, a mesh and a clip. */
static const char arm_x[] =
	"xof 0303txt 0032\n"
	"AnimTicksPerSecond { 30; }\n"
	"Frame Upper {\n"
	" FrameTransformMatrix { 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1;; }\n"
	" Frame Lower { FrameTransformMatrix { 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,2,0,1;; } }\n"
	"}\n"
	"Frame Body {\n"
	" Mesh Strip {\n"
	"  4; 0;0;0;, 0;1;0;, 0;2;0;, 0;3;0;;\n"
	"  2; 3;0,1,2;, 3;1,3,2;;\n"
	"  XSkinMeshHeader { 1; 2; 2; }\n"
	"  SkinWeights { \"Upper\"; 2; 0, 1; 1.0, 1.0;\n"
	"   1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1;; }\n"
	"  SkinWeights { \"Lower\"; 2; 2, 3; 1.0, 1.0;\n"
	"   1,0,0,0, 0,1,0,0, 0,0,1,0, 0,-2,0,1;; }\n"
	" }\n"
	"}\n"
	"AnimationSet wave {\n"
	" Animation { { Lower }\n"
	"  AnimationKey { 0; 2; 0;4;1,0,0,0;;, 30;4;0.70710678,0,0,-0.70710678;;; }\n"
	" }\n"
	"}\n";

static const char walk_md5anim[] =
	"MD5Version 10\n"
	"commandline \"\"\n"
	"numFrames 2\nnumJoints 1\nframeRate 24\nnumAnimatedComponents 3\n"
	"hierarchy {\n\t\"root\"\t-1 7 0\n}\n"
	"bounds {\n\t( -1 -1 0 ) ( 1 1 2 )\n\t( -1 -1 0 ) ( 1 1 2 )\n}\n"
	"baseframe {\n\t( 0 0 0 ) ( 0 0 0 )\n}\n"
	"frame 0 {\n\t0 0 0\n}\n"
	"frame 1 {\n\t1 0 0\n}\n";

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);

	assert_non_null(fx);
	assert_int_equal(daemon_proc_init(&fx->d), 0);
	assert_int_equal(daemon_proc_write_asset(&fx->d, "walk.md5anim", walk_md5anim), 0);
	if (daemon_proc_start(&fx->d, "[reload]\nquiet_ms = 50\n", TIMEOUT_MS) != 0)
		fail_msg("daemon did not start (log in %s)", fx->d.log);
	assert_int_equal(rpc_client_connect(&fx->c, fx->d.socket, TIMEOUT_MS), 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	rpc_client_close(&fx->c);
	assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&fx->d);
	free(fx);
	return 0;
}

static void expect_ok(const struct rpc_reply *r)
{
	if (r->error != NULL)
		fail_msg("unexpected error %s: %s", r->code, r->message);
}

struct memory {
	int64_t total, streams, instances, connections;
	int64_t assets, skeletons, clips, meshes, cameras, emitters, other;
	int64_t x, md5anim, formats;
};

static int64_t field(const msgpack_object *map, const char *key)
{
	int64_t v = -1;

	if (map == NULL || rpc_get_i64(map, key, &v) != 0 || v < 0)
		fail_msg("status.memory: no uint64 \"%s\"", key);
	return v;
}

static struct memory status_memory(struct fixture *fx)
{
	static const char *const formats[] = { "md5mesh", "md5anim", "md5camera", "x", "m2",
						"gltf" };
	struct rpc_reply r;
	const msgpack_object *m, *a, *f;
	struct memory out = { 0 };

	assert_int_equal(rpc_client_call(&fx->c, &r, "status", NULL), 0);
	expect_ok(&r);
	m = rpc_get(r.result, "memory");
	assert_non_null(m);
	a = rpc_get(m, "assets");
	assert_non_null(a);
	f = rpc_get(a, "by_format");
	assert_non_null(f);
	out.total = field(m, "total");
	out.streams = field(m, "streams");
	out.instances = field(m, "instances");
	out.connections = field(m, "connections");
	out.assets = field(a, "total");
	out.skeletons = field(a, "skeletons");
	out.clips = field(a, "clips");
	out.meshes = field(a, "meshes");
	out.cameras = field(a, "cameras");
	out.emitters = field(a, "emitters");
	out.other = field(a, "other");
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
		out.formats += field(f, formats[i]);
	out.x = field(f, "x");
	out.md5anim = field(f, "md5anim");
	rpc_reply_free(&r);
	/* Everything adds up. */
	assert_int_equal(out.total, out.assets + out.streams + out.instances + out.connections);
	assert_int_equal(out.assets, out.skeletons + out.clips + out.meshes + out.cameras +
					     out.emitters + out.other);
	assert_int_equal(out.assets, out.formats);
	return out;
}

/* `animd inspect --json NAME`'s memory.NAME, run in the asset root so that
 * the asset has the name the daemon gives it. */
static int64_t inspect_memory(struct fixture *fx, const char *name, const char *part)
{
	char cmd[2048], line[64];
	const char *animd = getenv("ANIMD");
	FILE *p;
	long long v = -1;

	snprintf(cmd, sizeof cmd, "cd '%s' && '%s' inspect --json '%s' | jq -e .memory.%s",
		 fx->d.assets, animd ? animd : "build/animd", name, part);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (fgets(line, sizeof line, p) != NULL)
		v = atoll(line);
	assert_int_equal(pclose(p), 0);
	assert_true(v > 0);
	return v;
}

static void wait_event(struct fixture *fx, const char *type, const char *asset)
{
	struct rpc_event ev;
	char name[256];

	for (;;) {
		if (rpc_client_next_event(&fx->c, TIMEOUT_MS, &ev) != 0)
			fail_msg("no %s event for %s", type, asset);
		if (strcmp(ev.type, type) == 0 &&
		    rpc_get_str(ev.body, "asset", name, sizeof name) == 0 &&
		    strcmp(name, asset) == 0) {
			rpc_event_free(&ev);
			return;
		}
		rpc_event_free(&ev);
	}
}

static void subscribe(struct fixture *fx)
{
	static const char *events[] = { "asset.loaded", "asset.removed", NULL };
	struct rpc_reply r;

	assert_int_equal(rpc_client_call(&fx->c, &r, "subscribe", "events:S", events), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
}

static void test_assets(void **state)
{
	struct fixture *fx = *state;
	struct memory before, after, gone;
	char path[512];

	subscribe(fx);
	before = status_memory(fx);
	/* walk.md5anim is there from the start: its bytes are inspect's. */
	assert_int_equal(before.md5anim, inspect_memory(fx, "walk.md5anim", "total"));
	assert_int_equal(before.x, 0);
	assert_int_equal(daemon_proc_write_asset(&fx->d, "arm.x", arm_x), 0);
	wait_event(fx, "asset.loaded", "arm.x");
	after = status_memory(fx);
	assert_int_equal(after.assets - before.assets, inspect_memory(fx, "arm.x", "total"));
	assert_int_equal(after.x, inspect_memory(fx, "arm.x", "total"));
	assert_int_equal(after.skeletons - before.skeletons, inspect_memory(fx, "arm.x", "skeleton"));
	assert_int_equal(after.clips - before.clips, inspect_memory(fx, "arm.x", "clips"));
	assert_int_equal(after.meshes - before.meshes, inspect_memory(fx, "arm.x", "meshes"));
	assert_int_equal(after.md5anim, before.md5anim);
	snprintf(path, sizeof path, "%s/arm.x", fx->d.assets);
	assert_int_equal(unlink(path), 0);
	wait_event(fx, "asset.removed", "arm.x");
	gone = status_memory(fx);
	assert_int_equal(gone.assets, before.assets);
	assert_int_equal(gone.x, 0);
}

static void test_streams_and_instances(void **state)
{
	struct fixture *fx = *state;
	struct memory before, open, playing, stopped, closed;
	struct rpc_reply r;
	int64_t stream, region, instance;
	int fd;

	before = status_memory(fx);
	assert_int_equal(before.streams, 0);
	assert_true(before.connections > 0);
	assert_int_equal(rpc_client_call(&fx->c, &r, "stream.open",
					 "space:s rate:u instances:u joints:u depth:u", "local",
					 (uint64_t)0, (uint64_t)4, (uint64_t)16, (uint64_t)4), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "stream", &stream), 0);
	assert_int_equal(rpc_get_i64(r.result, "region_bytes", &region), 0);
	rpc_reply_free(&r);
	fd = rpc_client_take_fd(&fx->c);
	assert_true(fd >= 0);
	close(fd);
	open = status_memory(fx);
	assert_int_equal(open.streams - before.streams, region);

	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s stream:u", "walk.md5anim",
					 (uint64_t)stream), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "instance", &instance), 0);
	rpc_reply_free(&r);
	playing = status_memory(fx);
	assert_true(playing.instances > open.instances);
	assert_int_equal(playing.streams, open.streams);
	assert_int_equal(rpc_client_call(&fx->c, &r, "stop", "instance:u", (uint64_t)instance), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	stopped = status_memory(fx);
	assert_int_equal(stopped.instances, open.instances);

	assert_int_equal(rpc_client_call(&fx->c, &r, "stream.close", "stream:u", (uint64_t)stream),
			 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	closed = status_memory(fx);
	assert_int_equal(closed.streams, before.streams);
}

static void test_connections(void **state)
{
	struct fixture *fx = *state;
	struct rpc_client other;
	struct rpc_reply r;
	struct memory one, two, back;

	one = status_memory(fx);
	assert_int_equal(rpc_client_connect(&other, fx->d.socket, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_call(&other, &r, "hello", NULL), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	two = status_memory(fx);
	assert_true(two.connections > one.connections);
	rpc_client_close(&other);
	/* The daemon sees the hang-up in its own time. */
	for (int i = 0; i < 200; i++) {
		back = status_memory(fx);
		if (back.connections == one.connections)
			break;
		usleep(10000);
	}
	assert_int_equal(back.connections, one.connections);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_assets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_streams_and_instances, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connections, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
