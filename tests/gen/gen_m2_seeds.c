/*
 * gen_m2_seeds DIR - classic M2 files for the fuzzer's starting corpus
 * (make fuzz), written with the tests' own writer (support/m2_writer.h):
 * the demo lantern, aligned and not; a header alone; version 257; a small
 * synthetic skeleton stored children first; every interpolation with
 * global-sequence tracks and given ranges; an emitter with file names and
 * spline points; unweighted vertices and a view of two triangles.  Then
 * the same descriptions in The Burning Crusade's layout (260, 263), in
 * 264's and 272's, each 264 and 272 file also as a pack with its .skin and .anim companions
 * (fuzz_m2.c: "M2PK", a count, then {length, bytes} blobs: the .m2, the
 * .skin files, the .anim files in the order the loader asks for them).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/m2_writer.h"

static int seed_write(const char *dir, const char *name, const struct m2w_file *f)
{
	char path[4096];
	FILE *out;

	snprintf(path, sizeof path, "%s/%s.m2", dir, name);
	out = fopen(path, "wb");
	if (out == NULL || fwrite(f->buf, 1, f->len, out) != f->len || fclose(out) != 0) {
		fprintf(stderr, "gen_m2_seeds: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

static void pack_u32(FILE *out, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 24) };

	fwrite(b, 1, 4, out);
}

/* The .m2 and its companions in one fuzz input: views first, then the
 * .anim files by sequence, as the loader asks for them. */
static int seed_pack(const char *dir, const char *name, const struct m2w_file *f)
{
	char path[4096];
	FILE *out;

	snprintf(path, sizeof path, "%s/%s.m2", dir, name);
	out = fopen(path, "wb");
	if (out == NULL)
		return -1;
	fwrite("M2PK", 1, 4, out);
	pack_u32(out, 1 + f->companion_count);
	pack_u32(out, (uint32_t)f->len);
	fwrite(f->buf, 1, f->len, out);
	for (int anims = 0; anims < 2; anims++)
		for (uint32_t i = 0; i < f->companion_count; i++) {
			const struct m2w_companion *c = &f->companions[i];

			if ((strstr(c->suffix, ".anim") != NULL) != anims)
				continue;
			pack_u32(out, (uint32_t)c->len);
			fwrite(c->buf, 1, c->len, out);
		}
	return fclose(out) == 0 ? 0 : -1;
}

/* A description in 256 and in the later layouts: NAME, NAME-v260,
 * NAME-v263, NAME-v264, NAME-v272 and their packs. */
static int seed_model(const char *dir, const char *name, const struct m2w_model *m)
{
	static const uint32_t later[] = { 260, 263, 264, 272 };
	struct m2w_model v = *m;
	struct m2w_file f;
	char vname[128];
	int rc;

	m2w_build(m, &f);
	rc = seed_write(dir, name, &f);
	m2w_file_free(&f);
	if (m->version != 0)
		return rc;
	for (size_t i = 0; i < sizeof later / sizeof later[0]; i++) {
		v.version = later[i];
		m2w_build(&v, &f);
		snprintf(vname, sizeof vname, "%s-v%u", name, later[i]);
		rc |= seed_write(dir, vname, &f);
		if (f.companion_count > 0) {
			snprintf(vname, sizeof vname, "%s-v%u-pack", name, later[i]);
			rc |= seed_pack(dir, vname, &f);
		}
		m2w_file_free(&f);
	}
	return rc;
}

static int seed_tracks(const char *dir)
{
	static const uint32_t times[] = { 0, 250, 250, 1000 };
	static const float vec[] = { 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0 };
	static const float spline[] = { 0, 0, 0, 1, 1, 1, -1, -1, -1, 2, 2, 2, 0, 0, 0, 1, 0, 1 };
	static const float quats[] = { 0, 0, 0, 1, 0, 0, 0.6f, 0.8f, 0, 0.6f, 0, 0.8f,
				       0.6f, 0, 0, 0.8f, 0, 0, 0, 1, 0, 0, 0, 1 };
	static const uint32_t globals[] = { 1000, 0 };
	static const uint32_t given[] = { 0, 1, 1, 3 };
	static const uint16_t list[] = { 0, 1, 2, 3 };
	static const uint16_t corners[] = { 0, 1, 2, 2, 1, 3 };
	static const int16_t anim[] = { 0, -1, 1 };
	struct m2w_sequence seq[2] = {
		{ .start_ms = 0, .end_ms = 250, .flags = M2_SEQ_IN_MODEL, .next_variation = 1 },
		{ .start_ms = 250, .end_ms = 1000, .next_variation = -1, .alias_next = 1 },
	};
	struct m2w_bone b[3] = {
		{ .parent = 2, .t = { .interpolation = M2_INTERP_STEP, .count = 4, .times = times,
				      .values = vec, .ranges = M2W_RANGES_GIVEN, .range_count = 2,
				      .given = given },
		  .r = { .interpolation = M2_INTERP_HERMITE, .count = 2, .times = times,
			 .values = quats, .global = 1 },
		  .s = { .interpolation = M2_INTERP_BEZIER, .count = 2, .times = times,
			 .values = spline } },
		{ .parent = 0, .r = { .interpolation = M2_INTERP_LINEAR, .count = 4, .times = times,
				      .values = quats, .ranges = M2W_RANGES_ALL },
		  .s = { .interpolation = M2_INTERP_LINEAR, .count = 1, .times = times,
			 .values = vec, .global = 2 } },
		{ .parent = -1, .key_bone_id = 0 },
	};
	struct m2w_vertex v[4] = {
		{ .weights = { 255 } },
		{ .position = { 1 }, .weights = { 100, 155 }, .bones = { 0, 1 } },
		{ .position = { 0, 1 } },
		{ .position = { 1, 1 }, .weights = { 1, 1, 1, 252 }, .bones = { 0, 1, 2, 2 } },
	};
	struct m2w_view view = { .vertex_count = 4, .vertices = list, .corner_count = 6,
				 .corners = corners, .property_count = 4 };
	struct m2w_model m = { .name = "tracks", .global_sequence_count = 2,
			       .global_sequences = globals, .sequence_count = 2, .sequences = seq,
			       .bone_count = 3, .bones = b, .animation_lookup_count = 3,
			       .animation_lookup = anim, .vertex_count = 4, .vertices = v,
			       .view_count = 1, .views = &view, .misalign = 2 };

	return seed_model(dir, "tracks", &m);
}

static int seed_emitter(const char *dir)
{
	static const float points[] = { 0, 0, 0, 0, 1, 2, 3, 3, 3 };
	static const uint32_t times[] = { 0, 100 };
	static const float rate[] = { 5, 50 };
	static const uint8_t on[] = { 1, 0 };
	struct m2w_sequence seq = { .end_ms = 100, .next_variation = -1 };
	struct m2w_bone b = { .parent = -1 };
	struct m2w_emitter e = {
		.id = -1, .bone = 0, .emitter_type = 3, .model_name = "Spark.mdx",
		.recursion_name = "Other.mdx", .spline_point_count = 3, .spline_points = points,
		.params = { [M2_EMIT_RATE] = { .interpolation = M2_INTERP_LINEAR, .count = 2,
					       .times = times, .values = rate } },
		.enabled = { .count = 2, .times = times, .bytes = on },
		.colors = { 0xffffffffu, 0x80808080u, 0 }, .sizes = { 1, 2, 3 },
	};
	struct m2w_attachment a = { .id = 1, .bone = 0 };
	struct m2w_event ev = { .id = { '$', 'D', 'T', 'H' }, .bone = 0,
				.enabled = { .count = 1, .times = times } };
	struct m2w_model m = { .sequence_count = 1, .sequences = &seq, .bone_count = 1,
			       .bones = &b, .emitter_count = 1, .emitters = &e,
			       .attachment_count = 1, .attachments = &a, .event_count = 1,
			       .events = &ev, .filler = { [M2_HDR_TEXTURES / 4] = 1,
							  [M2_HDR_LIGHTS / 4] = 1 } };

	return seed_model(dir, "emitter", &m);
}

int main(int argc, char **argv)
{
	struct m2w_model demo = *m2w_demo_description();
	struct m2w_model empty = { 0 };
	struct m2w_file f;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_m2_seeds DIR\n");
		return 2;
	}
	rc |= seed_model(argv[1], "demo", &demo);
	demo.misalign = 1;
	rc |= seed_model(argv[1], "demo_misaligned", &demo);
	rc |= seed_model(argv[1], "header_only", &empty);
	empty.version = 257;
	empty.name = "v257";
	rc |= seed_model(argv[1], "v257", &empty);
	m2w_synth(&f, 12, 3, 3, 1);
	rc |= seed_write(argv[1], "synth", &f);
	m2w_file_free(&f);
	rc |= seed_tracks(argv[1]);
	rc |= seed_emitter(argv[1]);
	return rc ? 1 : 0;
}
