/*
 * gltf_expect.h - what the glTF tests share: loading a document with its
 * buffer files held in memory (the asset layer's companion reader), and
 * checks of errors and notes by location and message.  Header-only, one
 * copy per test program.
 */
#ifndef ANIMD_TEST_GLTF_EXPECT_H
#define ANIMD_TEST_GLTF_EXPECT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/assets/asset.h"
#include "daemon/assets/sampling.h"
#include "tests/support/gltf_writer.h"
#include "tests/support/testdata.h"

/* Files a document may name, in memory. */
struct gx_file {
	const char *name;               /* as the asset layer asks: "dir/x.bin" */
	const void *data;
	size_t len;
};

struct gx_files {
	uint32_t count;
	struct gx_file file[4];
	uint32_t asked;                 /* reads asked for */
};

static int gx_read(void *ctx, const char *name, char **buf, size_t *len, char *err,
		   size_t errlen)
{
	struct gx_files *f = ctx;

	(void)err;
	(void)errlen;
	if (f == NULL)
		return -ENOENT;
	f->asked++;
	for (uint32_t i = 0; f != NULL && i < f->count; i++)
		if (strcmp(f->file[i].name, name) == 0) {
			*buf = malloc(f->file[i].len + 1);
			if (*buf == NULL)
				return -ENOMEM;
			memcpy(*buf, f->file[i].data, f->file[i].len);
			*len = f->file[i].len;
			return 0;
		}
	return -ENOENT;
}

/* Load `name` from buf with the files; 0 or the loader's error in err. */
static inline int gx_load(const char *name, const void *buf, size_t len, struct gx_files *files,
			  struct asset **out, char *err, size_t errlen)
{
	struct asset_options o = { .read_companion = gx_read, .companion_ctx = files };

	return asset_load_buffer_with(name, buf, len, &o, out, err, errlen);
}

/* A file loaded as asset_load_file does (companions read beside it), its
 * clips kept raw: these tests hold the importer to the specification's and
 * Blender's numbers, closer than the codec's precision in glTF's meters
 * (docs/compression.md).  0 or the loader's error in err. */
static inline int gx_load_file_raw(const char *path, struct asset **out, char *err, size_t errlen)
{
	size_t max = 0, len;
	struct asset_options o = { .read_companion = asset_read_companion_file,
				   .companion_ctx = &max, .raw_clips = 1 };
	char *buf = test_file_read(path, &len);
	int rc;

	if (buf == NULL) {
		snprintf(err, errlen, "%s: cannot read", path);
		return -ENOENT;
	}
	rc = asset_load_buffer_with(path, buf, len, &o, out, err, errlen);
	free(buf);
	return rc;
}

/* The writer's document in `mode`, loaded as NAME.gltf / NAME.glb (its
 * .bin in memory for EXTERNAL), and kept for the glTF-Validator
 * (gltfw_keep) as conforming to the specification or written outside it
 * on purpose.  Fails the test on an error. */
static inline struct asset *gx_load_writer_as(const struct gltfw *w, enum gltfw_mode mode,
					      bool conforming)
{
	struct gx_files files = { 0 };
	struct asset *a = NULL;
	char err[1024];
	int rc;

	gltfw_keep(w, conforming);
	if (mode == GLTFW_GLB) {
		unsigned char *b;
		size_t n;

		gltfw_glb(w, &b, &n);
		rc = gx_load("t.glb", b, n, &files, &a, err, sizeof err);
		free(b);
	} else {
		char *json = gltfw_json(w, mode, "t.bin");
		size_t n;

		files.count = 1;
		files.file[0] = (struct gx_file){ "t.bin", gltfw_bin(w, &n), 0 };
		files.file[0].len = n;
		rc = gx_load("t.gltf", json, strlen(json), &files, &a, err, sizeof err);
		free(json);
	}
	if (rc != 0)
		fail_msg("load failed: %s", err);
	return a;
}

/* A conforming document of the writer's, loaded (gx_load_writer_as). */
static inline struct asset *gx_load_writer(const struct gltfw *w, enum gltfw_mode mode)
{
	return gx_load_writer_as(w, mode, true);
}

/* A JSON document (and maybe a t.bin) must be refused with `where`
 * ("t.gltf:3:17" or "t.bin: offset 0x10") and a message containing
 * `fragment`. */
static inline void gx_fails(const char *json, const void *bin, size_t bin_len, const char *where,
			    const char *fragment)
{
	struct gx_files files = { 1, { { "t.bin", bin, bin_len } }, 0 };
	struct asset *a = NULL;
	char err[1024], want[256];
	int rc = gx_load("t.gltf", json, strlen(json), bin ? &files : NULL, &a, err, sizeof err);

	if (rc == 0) {
		asset_free(a);
		fail_msg("loaded, expected \"%s: error: ...%s...\"", where, fragment);
	}
	snprintf(want, sizeof want, "%s: error: ", where);
	if (strncmp(err, want, strlen(want)) != 0 || strstr(err, fragment) == NULL)
		fail_msg("got \"%s\", expected \"%s...%s...\"", err, want, fragment);
}

/* The asset has a note containing `fragment` (NULL: none at all). */
static inline void gx_noted(const struct asset *a, const char *fragment)
{
	if (fragment == NULL) {
		if (a->note_count > 0)
			fail_msg("unexpected note \"%s\"", a->notes[0]);
		return;
	}
	for (uint32_t i = 0; i < a->note_count; i++)
		if (strstr(a->notes[i], fragment) != NULL)
			return;
	fail_msg("no note contains \"%s\" (%u notes%s%s)", fragment, a->note_count,
		 a->note_count ? ", the first: " : "", a->note_count ? a->notes[0] : "");
}

/* Sample a space of the asset at time t (clip by name or NULL). */
static inline void gx_sample(const struct asset *a, const char *clip, double t,
			     enum sample_space space, struct sample_result *r)
{
	struct sample_request q = { .asset = a, .clip = clip, .time = t, .space = space,
				    .loop_set = 1, .loop = LOOP_ONCE };
	char err[512];

	if (sample_evaluate(&q, r, err, sizeof err) != 0)
		fail_msg("sample: %s", err);
}

static inline void gx_near(float got, float want, float tol, const char *what)
{
	if (!(fabsf(got - want) <= tol))
		fail_msg("%s: got %.9g, want %.9g", what, (double)got, (double)want);
}

#endif
