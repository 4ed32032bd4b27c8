/*
 * What the runtime objects say they hold in memory (skeleton_bytes,
 * clip_bytes, mesh_bytes, camera_track_bytes, emitter_bytes, asset_memory)
 * checked two ways:
 *
 *  - against figures worked out by hand for the small fixtures (counts of
 *    joints, frames, keys, vertices ... times the sizes of the structs
 *    that hold them), part by part;
 *  - against the allocations themselves: this program replaces malloc,
 *    calloc, realloc and free (glibc allows it, and calls its own
 *    __libc_* functions underneath), recording the size asked for each
 *    block, so that the bytes a load leaves allocated are known exactly,
 *    without the allocator's overhead (no malloc_usable_size).  For every
 *    fixture and generated model they must be asset_bytes, and freeing the
 *    asset must give them all back; and the same for every file of
 *    ../shared/testdata that loads.  Under AddressSanitizer, which owns
 *    malloc itself, that half is skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/clip_key_index.h"
#include "daemon/assets/asset.h"
#include "daemon/formats/x/x_tree.h"
#include "tests/support/m2_writer.h"
#include "tests/support/testdata.h"

#if defined(__SANITIZE_ADDRESS__)
#define COUNTING_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COUNTING_MALLOC 0
#endif
#endif
#ifndef COUNTING_MALLOC
#define COUNTING_MALLOC 1
#endif

/* ---- the counting allocator -------------------------------------------- */

#if COUNTING_MALLOC
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);

/* Blocks allocated while counting, by address (open addressing, linear
 * probing, tombstones, rebuilt when three quarters full); blocks from
 * before are not in it and are ignored. */
#define TABLE_SIZE (1u << 20)
#define TOMB ((void *)1)

struct block {
	void *p;
	size_t n;
};
static struct block table[TABLE_SIZE], spare[TABLE_SIZE];
static int counting;
static size_t live, tracked, used;

static size_t slot_of(const void *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 44) & (TABLE_SIZE - 1);
}

static void put(struct block *t, void *p, size_t n)
{
	size_t i = slot_of(p);

	while (t[i].p != NULL && t[i].p != TOMB)
		i = (i + 1) & (TABLE_SIZE - 1);
	used += t[i].p == NULL;
	t[i].p = p;
	t[i].n = n;
}

/* Drop the tombstones. */
static void rebuild(void)
{
	memset(spare, 0, sizeof spare);
	used = 0;
	for (size_t i = 0; i < TABLE_SIZE; i++)
		if (table[i].p != NULL && table[i].p != TOMB)
			put(spare, table[i].p, table[i].n);
	memcpy(table, spare, sizeof table);
}

static void track(void *p, size_t n)
{
	if (p == NULL || !counting)
		return;
	if (used + 1 > TABLE_SIZE / 4 * 3)
		rebuild();
	if (tracked + 1 > TABLE_SIZE / 2)
		abort();        /* far more live blocks than this test expects */
	put(table, p, n);
	live += n;
	tracked++;
}

static void untrack(void *p)
{
	size_t i = slot_of(p);

	if (p == NULL || tracked == 0)
		return;
	for (; table[i].p != NULL; i = (i + 1) & (TABLE_SIZE - 1))
		if (table[i].p == p) {
			live -= table[i].n;
			table[i].p = TOMB;
			tracked--;
			return;
		}
}

void *malloc(size_t n)
{
	void *p = __libc_malloc(n);

	track(p, n);
	return p;
}

void *calloc(size_t n, size_t size)
{
	void *p = __libc_calloc(n, size);

	track(p, n * size);
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p;

	if (old == NULL)
		return malloc(n);
	p = __libc_realloc(old, n);
	if (p != NULL || n == 0) {
		untrack(old);
		track(p, n);
	}
	return p;
}

void free(void *p)
{
	untrack(p);
	__libc_free(p);
}

static void counting_reset(void)
{
	if (used > 0)
		memset(table, 0, sizeof table);
	live = tracked = used = 0;
}
#endif

/* ---- loading ----------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/*
 * Load name from buf; with the counting allocator, check that what the
 * load leaves allocated is asset_bytes and that freeing it leaves nothing.
 * Returns the asset (NULL when it does not load), which the caller frees.
 */
static struct asset *load_counted(const char *name, const void *buf, size_t len, int *counted)
{
	struct asset *a = NULL;
	char err[512];
	int rc;

	*counted = 0;
#if COUNTING_MALLOC
	counting_reset();
	counting = 1;
	rc = asset_load_buffer(name, buf, len, &a, err, sizeof err);
	/* The .x reader keeps its freed arena for the next load: not the
	 * asset's. */
	x_tree_cache_release();
	counting = 0;
	if (rc == 0) {
		size_t held = live;

		if (held != asset_bytes(a))
			fail_msg("%s: the load holds %zu bytes, asset_bytes says %llu", name, held,
				 (unsigned long long)asset_bytes(a));
		*counted = 1;
	}
#else
	rc = asset_load_buffer(name, buf, len, &a, err, sizeof err);
#endif
	return rc == 0 ? a : NULL;
}

static void free_counted(struct asset *a, int counted)
{
#if COUNTING_MALLOC
	asset_free(a);
	if (counted && live != 0)
		fail_msg("%zu bytes of the asset stay allocated after asset_free", live);
#else
	(void)counted;
	asset_free(a);
#endif
}

static struct asset *load_fixture(const char *path, int *counted)
{
	size_t len = 0;
	char *buf = slurp(path, &len);
	struct asset *a;

	if (buf == NULL)
		fail_msg("cannot read %s", path);
	a = load_counted(strrchr(path, '/') + 1, buf, len, counted);
	free(buf);
	if (a == NULL)
		fail_msg("%s does not load", path);
	return a;
}

static void check_parts(const struct asset *a)
{
	struct asset_memory m;

	asset_memory(a, &m);
	assert_int_equal(m.total, m.skeleton + m.clips + m.meshes + m.camera + m.emitters + m.other);
	assert_int_equal(m.total, asset_bytes(a));
	assert_memory_equal(&a->memory, &m, sizeof m);  /* as the load worked it out */
}

/* ---- figures by hand ---------------------------------------------------- */

#define TRANSFORM sizeof(struct transform)
#define MAT sizeof(mat34)
#define INFLUENCE sizeof(struct mesh_influence)

static void test_md5mesh_by_hand(void **state)
{
	int counted;
	struct asset *a = load_fixture("tests/fixtures/md5/skin3.md5mesh", &counted);
	struct asset_memory m;
	/* Three joints "root" "spine" "head": names, parents, rest pose, the
	 * bind pose and its inverse. */
	size_t skel = sizeof(struct skeleton) + 3 * sizeof(char *) + (5 + 6 + 5) + 3 * 4 +
		      3 * TRANSFORM + 2 * 3 * MAT;
	/* "body" ("models/test/body"): 4 vertices of 1, 2, 1, 2 weights, 2
	 * triangles; every array one entry more than it holds, and normal
	 * groups (MD5 normals are derived). */
	size_t body = sizeof(struct mesh) + 5 + 17 + 5 * 4 + 7 * INFLUENCE + 3 * 12 + 5 * 8 +
		      5 * 4;
	/* The unnamed head: 3 vertices of one weight, 1 triangle. */
	size_t head = sizeof(struct mesh) + 17 + 4 * 4 + 4 * INFLUENCE + 2 * 12 + 4 * 8 + 4 * 4;

	(void)state;
	assert_int_equal(skeleton_bytes(a->skeleton), skel);
	assert_int_equal(mesh_bytes(a->meshes[0]), body);
	assert_int_equal(mesh_bytes(a->meshes[1]), head);
	asset_memory(a, &m);
	assert_int_equal(m.skeleton, skel);
	assert_int_equal(m.meshes, body + head + 2 * sizeof(struct mesh *));
	assert_int_equal(m.clips, 0);
	assert_int_equal(m.other, sizeof(struct asset) + sizeof "skin3.md5mesh");
	check_parts(a);
	free_counted(a, counted);
}

static void test_md5anim_by_hand(void **state)
{
	int counted;
	struct asset *a = load_fixture("tests/fixtures/md5/walk.md5anim", &counted);
	struct asset_memory m;
	/* The hierarchy: three names, parents and the baseframe; no bind. */
	size_t skel = sizeof(struct skeleton) + 3 * sizeof(char *) + (5 + 6 + 5) + 3 * 4 +
		      3 * TRANSFORM;
	/* "walk": 4 frames of 3 joints, 4 boxes of 6 floats. */
	size_t clip = sizeof(struct clip) + 5 + 4 * 3 * TRANSFORM + 4 * 6 * sizeof(float);

	(void)state;
	assert_int_equal(clip_bytes(a->clips[0]), clip);
	assert_int_equal(clip_index_bytes(a->clips[0]), 0);
	asset_memory(a, &m);
	assert_int_equal(m.skeleton, skel);
	assert_int_equal(m.clips, clip + sizeof(struct clip *));
	assert_int_equal(m.meshes, 0);
	assert_int_equal(m.other, sizeof(struct asset) + sizeof "walk.md5anim");
	check_parts(a);
	free_counted(a, counted);
}

static void test_md5camera_by_hand(void **state)
{
	int counted;
	struct asset *a = load_fixture("tests/fixtures/md5/cuts.md5camera", &counted);
	struct asset_memory m;

	(void)state;
	asset_memory(a, &m);
	/* 6 frames, 2 cuts. */
	assert_int_equal(m.camera, sizeof(struct camera_track) + 2 * sizeof(uint32_t) +
				   6 * sizeof(struct camera_frame));
	assert_int_equal(m.total, m.camera + sizeof(struct asset) + sizeof "cuts.md5camera");
	check_parts(a);
	free_counted(a, counted);
}

static void test_x_by_hand(void **state)
{
	int counted;
	struct asset *a = load_fixture("tests/fixtures/x/arm.x", &counted);
	struct asset_memory m;
	/* Frames Upper, Lower, Body: names, parents, rest, bind and inverse
	 * (max(n, 1) entries), matrices as written and their flags (n + 1),
	 * and where the SkinWeights bound the mesh (n + 1). */
	size_t skel = sizeof(struct skeleton) + 3 * sizeof(char *) + (6 + 6 + 5) + 3 * 4 +
		      3 * TRANSFORM + 2 * 3 * MAT + 4 * MAT + 4 + 4 * MAT;
	/* "Strip": 4 vertices of one weight, 2 triangles, no uvs, normals or
	 * materials. */
	size_t mesh = sizeof(struct mesh) + 6 + 5 * 4 + 5 * INFLUENCE + 3 * 12;
	/* "wave": Lower's two rotation keys (2 times, 2 x 4 floats, the block's
	 * spare byte); tracks and rest of 3 + 1 joints; still joints; and the
	 * index: per shared time (2) the time and a pose of 3 joints, then
	 * the padding after the (absent) dense and sparse curves. */
	size_t keys = 2 * 8 + 2 * 4 * 4 + 1;
	size_t index = sizeof(struct clip_key_index) + 2 * (8 + 3 * TRANSFORM) +
		       2 * CURVE_PAD * sizeof(float);
	size_t clip = sizeof(struct clip) + 5 + 4 * sizeof(struct joint_tracks) + 4 * TRANSFORM +
		      keys + index + 4 * sizeof(uint32_t);

	(void)state;
	assert_int_equal(skeleton_bytes(a->skeleton), skel);
	assert_int_equal(mesh_bytes(a->meshes[0]), mesh);
	assert_int_equal(a->clips[0]->key_storage_bytes, keys);
	assert_int_equal(clip_index_bytes(a->clips[0]), index);
	assert_int_equal(clip_bytes(a->clips[0]), clip);
	asset_memory(a, &m);
	assert_int_equal(m.skeleton, skel);
	assert_int_equal(m.meshes, mesh + sizeof(struct mesh *));
	assert_int_equal(m.clips, clip + sizeof(struct clip *));
	assert_int_equal(m.other, sizeof(struct asset) + sizeof "arm.x");
	check_parts(a);
	free_counted(a, counted);
}

/* ---- every allocation of a load ----------------------------------------- */

static void test_fixtures_counted(void **state)
{
	static const char *const files[] = {
		"tests/fixtures/md5/skin3.md5mesh", "tests/fixtures/md5/skin3_crlf.md5mesh",
		"tests/fixtures/md5/walk.md5anim",  "tests/fixtures/md5/pose.md5anim",
		"tests/fixtures/md5/cuts.md5camera", "tests/fixtures/x/arm.x",
		"tests/fixtures/x/bent_arm.x",      "tests/fixtures/x/double.x",
		"tests/fixtures/x/nan.x",           "tests/fixtures/x/sheared.x",
	};

	(void)state;
	if (!COUNTING_MALLOC) {
		print_message("skip: malloc is not counted under AddressSanitizer\n");
		skip();
	}
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		int counted;
		struct asset *a = load_fixture(files[i], &counted);

		assert_true(counted);
		check_parts(a);
		free_counted(a, counted);
	}
}

/* The real files of ../shared/testdata that load (the invalid ones do
 * not), when it is there. */
static void test_testdata_counted(void **state)
{
	static const char *const dirs[] = {
		"md5/assimp", "md5/mgl", "md5/sauer-snoutx10k", "x/assimp", "x/dxsdk",
		"x/irrlicht", "x/saschawillems",
	};
	unsigned loaded = 0;

	(void)state;
	if (!COUNTING_MALLOC) {
		print_message("skip: malloc is not counted under AddressSanitizer\n");
		skip();
	}
	if (testdata_dir() == NULL)
		skip();
	for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++) {
		char dir[1024], path[2048];
		char **names;
		size_t n;

		snprintf(dir, sizeof dir, "%s", testdata_path(dirs[k]));
		n = testdata_list(dir, NULL, &names);
		for (size_t i = 0; i < n; i++) {
			size_t len = 0;
			char *buf;
			struct asset *a;
			int counted;

			snprintf(path, sizeof path, "%s/%s", dir, names[i]);
			buf = test_file_read(path, &len);
			if (buf == NULL)
				continue;
			a = load_counted(names[i], buf, len, &counted);
			free(buf);
			if (a == NULL)
				continue;
			check_parts(a);
			free_counted(a, counted);
			loaded++;
		}
		testdata_list_free(names);
	}
	assert_true(loaded > 0);
}

static void check_m2(const char *name, struct m2w_file *f)
{
	int counted;
	struct asset *a = load_counted(name, f->buf, f->len, &counted);
	struct asset_memory m;

	if (a == NULL)
		fail_msg("%s does not load", name);
	asset_memory(a, &m);
	assert_true(m.skeleton > 0 && m.clips > 0 && m.meshes > 0);
	check_parts(a);
	free_counted(a, counted);
	m2w_file_free(f);
}

static void test_m2_counted(void **state)
{
	struct m2w_file f;

	(void)state;
	if (!COUNTING_MALLOC) {
		print_message("skip: malloc is not counted under AddressSanitizer\n");
		skip();
	}
	/* The demo lantern: emitters, a global sequence, aliases. */
	m2w_demo_model(&f);
	check_m2("lantern.m2", &f);
	m2w_synth(&f, 40, 4, 9, 1);
	check_m2("synth.m2", &f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_md5mesh_by_hand),
		cmocka_unit_test(test_md5anim_by_hand),
		cmocka_unit_test(test_md5camera_by_hand),
		cmocka_unit_test(test_x_by_hand),
		cmocka_unit_test(test_fixtures_counted),
		cmocka_unit_test(test_m2_counted),
		cmocka_unit_test(test_testdata_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
