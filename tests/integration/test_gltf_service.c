/*
 * glTF served by the real daemon: a .gltf with its .bin in a folder and a
 * .glb are listed (the .bin is no asset), described by assets.info (the
 * morph weights' names and defaults, the buffer file as a companion),
 * sampled in every space (weights included, animations found by name and
 * by "#N") and played into a weights stream whose floats are what sample
 * gives at the pose's clip time; a save of the .bin reloads the .gltf, its
 * removal is an error located at the buffer's uri while the last good
 * version plays on, and its return (or a .bin written after its .gltf)
 * loads again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/animd_shm.h"
#include "tests/support/daemon_proc.h"
#include "tests/support/gltf_scene.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 10000

struct fixture {
	struct daemon_proc d;
	struct rpc_client c;
};

static const struct gltfs_params tube = { 4, 4, 2, 10, 2.0f, false };

static void write_scene(const char *dir, const char *sub, const char *name, enum gltfw_mode mode)
{
	char path[1024];
	struct gltfw *w = gltfs_build(&tube);

	snprintf(path, sizeof path, "%s/%s", dir, sub);
	mkdir(path, 0755);
	assert_int_equal(gltfw_write(w, mode, path, name), 0);
	gltfw_free(w);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);

	assert_non_null(fx);
	assert_int_equal(daemon_proc_init(&fx->d), 0);
	write_scene(fx->d.assets, "chars", "tube", GLTFW_EXTERNAL);
	write_scene(fx->d.assets, ".", "tube", GLTFW_GLB);
	assert_int_equal(daemon_proc_start(&fx->d, "[reload]\nquiet_ms = 50\n", TIMEOUT_MS), 0);
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

static uint32_t array_size(const msgpack_object *map, const char *key)
{
	const msgpack_object *a = rpc_get(map, key);

	assert_non_null(a);
	assert_int_equal(a->type, MSGPACK_OBJECT_ARRAY);
	return a->via.array.size;
}

static void test_listed_and_described(void **state)
{
	struct fixture *fx = *state;
	const msgpack_object *list, *o;
	struct rpc_reply r;
	char s[256];
	bool seen_gltf = false, seen_glb = false;

	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.list", NULL), 0);
	expect_ok(&r);
	list = rpc_get(r.result, "assets");
	for (uint32_t i = 0; i < list->via.array.size; i++) {
		o = &list->via.array.ptr[i];
		assert_int_equal(rpc_get_str(o, "asset", s, sizeof s), 0);
		assert_null(strstr(s, ".bin"));
		seen_gltf |= strcmp(s, "chars/tube.gltf") == 0;
		seen_glb |= strcmp(s, "tube.glb") == 0;
		if (strstr(s, "tube") != NULL) {
			assert_int_equal(rpc_get_str(o, "format", s, sizeof s), 0);
			assert_string_equal(s, "gltf");
		}
	}
	assert_true(seen_gltf && seen_glb);
	rpc_reply_free(&r);

	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", "chars/tube.gltf"), 0);
	expect_ok(&r);
	assert_int_equal(array_size(r.result, "weights"), 2);
	o = &rpc_get(r.result, "weights")->via.array.ptr[0];
	assert_int_equal(rpc_get_str(o, "name", s, sizeof s), 0);
	assert_string_equal(s, "tube/fat");
	assert_int_equal(array_size(r.result, "companions"), 1);
	o = &rpc_get(r.result, "companions")->via.array.ptr[0];
	assert_int_equal(rpc_get_str(o, "name", s, sizeof s), 0);
	assert_string_equal(s, "chars/tube.bin");
	assert_int_equal(rpc_get_str(o, "status", s, sizeof s), 0);
	assert_string_equal(s, "found");
	assert_int_equal(array_size(r.result, "clips"), 4);
	assert_int_equal(rpc_get_str(rpc_get(r.result, "axes"), "up", s, sizeof s), 0);
	assert_string_equal(s, "y_up");
	rpc_reply_free(&r);
}

static void test_sample_spaces(void **state)
{
	static const char *const spaces[] = { "local", "model", "skin", "vertices", "weights" };
	struct fixture *fx = *state;
	struct rpc_reply r;
	double w;

	for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++) {
		assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s clip:s time:d space:s",
						 "tube.glb", "#2", 0.25, spaces[i]), 0);
		expect_ok(&r);
		rpc_reply_free(&r);
	}
	/* breathe: weight 0 is 0.5 + 0.5 sin(2t) at its keys (10 a second). */
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s clip:s time:d space:s",
					 "tube.glb", "breathe", 0.5, "weights"), 0);
	expect_ok(&r);
	assert_int_equal(array_size(r.result, "weights"), 2);
	assert_int_equal(rpc_get_f64(&rpc_get(r.result, "weights")->via.array.ptr[0], "weight", &w),
			 0);
	assert_true(fabs(w - (0.5 + 0.5 * sin(1.0))) < 1e-5);
	rpc_reply_free(&r);
	/* Not a glTF: the weights space is refused. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d space:s",
					 "chars/tube.gltf", 0.0, "emitters"), 0);
	assert_non_null(r.error);
	assert_string_equal(r.code, "unsupported");
	rpc_reply_free(&r);
}

/* A weights stream: one float per weight, what sample gives at the
 * pose's clip time. */
static void test_weights_stream(void **state)
{
	struct fixture *fx = *state;
	struct rpc_reply r;
	struct stat st;
	const struct animd_shm_header *h;
	unsigned char copy[64 + 16 * 4];
	const struct animd_shm_slot *slot = (const void *)copy;
	const float *payload = (const float *)(const void *)(copy + 64);
	int64_t v, stream;
	int fd;
	const char *why;
	double w;

	assert_int_equal(rpc_client_call(&fx->c, &r, "stream.open", "space:s rate:u joints:u",
					 "weights", (uint64_t)0, (uint64_t)16), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "stream", &stream), 0);
	assert_int_equal(rpc_get_i64(r.result, "element_stride", &v), 0);
	assert_int_equal(v, 4);
	rpc_reply_free(&r);
	fd = rpc_client_take_fd(&fx->c);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	h = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(h != MAP_FAILED);
	assert_int_equal(animd_shm_validate(h, (size_t)st.st_size, &why), 0);
	assert_int_equal(h->space, ANIMD_SHM_SPACE_WEIGHTS);
	/* Two glTF instances in it; the second holds still at 0.35 s. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s stream:u", "chars/tube.gltf",
					 (uint64_t)stream), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s clip:s stream:u start:d speed:d",
					 "tube.glb", "pulse", (uint64_t)stream, 0.35, 0.0), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	{
		const struct animd_shm_channel *ch = animd_shm_channel((void *)h, h, 1);
		uint64_t p = animd_shm_published(ch);

		assert_true(p > 0);
		assert_int_equal(animd_shm_read(h, ch, p - 1, copy, sizeof copy), 0);
	}
	assert_int_equal(slot->element_count, 2);
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s clip:s time:d space:s",
					 "tube.glb", "pulse", slot->clip_time, "weights"), 0);
	expect_ok(&r);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(rpc_get_f64(&rpc_get(r.result, "weights")->via.array.ptr[k], "weight",
					     &w), 0);
		assert_true(fabs(w - payload[k]) < 1e-6);
	}
	rpc_reply_free(&r);
	munmap((void *)h, (size_t)st.st_size);
	close(fd);
}

static void subscribe_assets(struct fixture *fx)
{
	const char *events[] = { "asset.loaded", "asset.reloaded", "asset.error", NULL };
	struct rpc_reply r;

	assert_int_equal(rpc_client_call(&fx->c, &r, "subscribe", "events:S", events), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
}

static void expect_event(struct fixture *fx, const char *type, const char *asset,
			 struct rpc_event *out)
{
	for (;;) {
		struct rpc_event ev;
		char name[256] = "";

		if (rpc_client_next_event(&fx->c, TIMEOUT_MS, &ev) != 0)
			fail_msg("no %s event for %s (log: %s)", type, asset, fx->d.log);
		rpc_get_str(ev.body, "asset", name, sizeof name);
		if (strcmp(ev.type, type) == 0 && strcmp(name, asset) == 0) {
			if (out != NULL)
				*out = ev;
			else
				rpc_event_free(&ev);
			return;
		}
		rpc_event_free(&ev);
	}
}

static void copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	char buf[4096];
	size_t n;

	assert_non_null(a);
	assert_non_null(b);
	while ((n = fread(buf, 1, sizeof buf, a)) > 0)
		assert_int_equal(fwrite(buf, 1, n, b), n);
	fclose(a);
	assert_int_equal(fclose(b), 0);
}

static void test_bin_reloads_gltf(void **state)
{
	struct fixture *fx = *state;
	char bin[1024], saved[1024], late[1024], msg[1024];
	struct rpc_event ev;
	struct rpc_reply r;
	FILE *f;

	subscribe_assets(fx);
	snprintf(bin, sizeof bin, "%s/chars/tube.bin", fx->d.assets);
	snprintf(saved, sizeof saved, "%s/tube.bin.saved", fx->d.dir);
	copy_file(bin, saved);
	/* A save of the .bin: the .gltf reloads. */
	f = fopen(bin, "r+b");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	fputc(0, f);
	fclose(f);
	expect_event(fx, "asset.reloaded", "chars/tube.gltf", NULL);
	/* Gone: an error at the buffer's uri; the last good version plays. */
	unlink(bin);
	expect_event(fx, "asset.error", "chars/tube.gltf", &ev);
	assert_int_equal(rpc_get_str(ev.body, "message", msg, sizeof msg), 0);
	assert_non_null(strstr(msg, "chars/tube.gltf:"));
	assert_non_null(strstr(msg, "/buffers/0/uri: buffer 0 (tube.bin) holds data animd reads, "
				    "but chars/tube.bin is missing"));
	rpc_event_free(&ev);
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d", "chars/tube.gltf",
					 0.5), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	/* Back: loaded again. */
	copy_file(saved, bin);
	expect_event(fx, "asset.reloaded", "chars/tube.gltf", NULL);
	/* A .gltf whose .bin comes after it: an error, then loaded. */
	write_scene(fx->d.assets, "later", "solo", GLTFW_EXTERNAL);
	snprintf(late, sizeof late, "%s/later/solo.bin", fx->d.assets);
	snprintf(saved, sizeof saved, "%s/solo.bin.saved", fx->d.dir);
	rename(late, saved);
	expect_event(fx, "asset.error", "later/solo.gltf", NULL);
	rename(saved, late);
	expect_event(fx, "asset.loaded", "later/solo.gltf", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_listed_and_described, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_spaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_weights_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bin_reloads_gltf, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
