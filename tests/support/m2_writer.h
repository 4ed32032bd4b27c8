/*
 * m2_writer.h - classic M2 (version 256) files from a compact C
 * description, for tests, fuzz seeds, benchmarks and demos.  The prefix
 * is m2w_.  Allocation failure aborts: this is test support.
 *
 * The writer lays out exactly what it is given: every value of the
 * description is written as is, valid or not (a parent of 40, weights
 * that sum to 200, an interpolation of 7), and only the structure is
 * computed (counts, offsets, the ranges of M2W_RANGES_AUTO).  To break
 * the structure itself, build a valid file and patch it: m2w_file says
 * where every record went, and m2w_get32/m2w_put32 read and write it.
 *
 *	static const uint32_t t[] = { 0, 500, 1000 };
 *	static const float q[] = { 0,0,0,1,  0,0,0.7071f,0.7071f,  0,0,1,0 };
 *	struct m2w_sequence seq[] = { { .id = 0, .end_ms = 1000, .flags = 0x20,
 *					.next_variation = -1 } };
 *	struct m2w_bone bone[] = { { .key_bone_id = -1, .parent = -1,
 *		.r = { .interpolation = M2_INTERP_LINEAR, .count = 3, .times = t,
 *		       .values = q } } };
 *	struct m2w_model m = { .sequence_count = 1, .sequences = seq,
 *			       .bone_count = 1, .bones = bone };
 *	struct m2w_file f;
 *	m2w_build(&m, &f);
 *	... m2_parse(f.buf, f.len, ...) ...
 *	m2w_file_free(&f);
 *
 * Zero means "default" wherever that is natural (version 0 writes 256, no
 * name writes none), but a zero parent or next_variation is index 0: set
 * -1 for none.
 *
 * Real files' quirks, which the writer reproduces so that tests witness
 * what real data holds (docs/formats/m2.md): `extra_ranges` trailing
 * {0, 0} ranges on every keyed track (one in nearly every classic file),
 * events' ranges half-open [first, end) (M2W_RANGES_AUTO on an event
 * track) with their times as given (unordered, outside their window),
 * lookup tables written as given (junk included), flags as given (classic
 * 0x40 and 0x20 mean nothing to the reader), a 264+ track written as one
 * pair for every sequence (`single`), 492-byte emitters and 64-byte .skin
 * headers from 265.
 *
 * Versions: the same description writes 256, 260..263, 264 and 265..272
 * (the reader's struct m2_layout says what differs).  From 260 bones get a
 * name hash (the bone's index) and rotations are written compressed
 * (m2w_quat16_encode of the floats, or `packed` as given).  For 264 keys
 * stay described on one timeline of sequence windows: each sequence gets
 * the keys the 256 reader would play for it (m2_track_keys: its range
 * narrowed to its window), at their time minus the window's start (0 when
 * that is negative), and a sequence's duration is end_ms - start_ms; the
 * views become NAMEnn.skin files, the keys of a sequence without flag
 * 0x20 go to its NAMEaaaa-vv.anim, both in m2w_file's companions.
 */
#ifndef ANIMD_TEST_M2_WRITER_H
#define ANIMD_TEST_M2_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/formats/m2/m2.h"

/* How a track's ranges are written. */
enum m2w_ranges {
	M2W_RANGES_AUTO,        /* one per sequence, from its window: the keys whose
				   times fall in [start, end]; a sequence with none
				   holds the last key before it (or key 0).  None
				   on a global-sequence track. */
	M2W_RANGES_NONE,        /* no ranges */
	M2W_RANGES_ALL,         /* one per sequence, each spanning every key */
	M2W_RANGES_GIVEN,       /* range_count pairs from `given` */
};

struct m2w_track {
	uint16_t interpolation;         /* M2_INTERP_*, written as is */
	int16_t global;                 /* global sequence + 1; 0 writes -1 (none) */
	uint32_t count;                 /* keys */
	const uint32_t *times;          /* count ms */
	/* count values of the track's width (3 vec3, 4 quat x y z w, 1 float);
	 * for hermite and bezier, 3 values per key: value, in, out. */
	const float *values;
	const uint8_t *bytes;           /* the same for U8 tracks */
	const int16_t *packed;          /* 260 and later, rotations: 4 int16 per value
					   written as is (NULL: encode values) */
	enum m2w_ranges ranges;
	uint32_t range_count;           /* M2W_RANGES_GIVEN */
	const uint32_t *given;          /* 2 x range_count: first, last (an
					   event track's: first, end) */
	/* 264 and later: one pair of arrays, holding every key at its time as
	 * given, which the reader plays for every sequence. */
	int single;
};

struct m2w_sequence {
	uint16_t id, variation;
	uint32_t start_ms, end_ms;
	float movespeed;
	uint32_t flags;
	int16_t frequency;
	uint32_t replay_min, replay_max, blend_ms;
	float box_min[3], box_max[3], radius;
	int16_t next_variation;
	uint16_t alias_next;
};

struct m2w_bone {
	int32_t key_bone_id;
	uint32_t flags;
	int16_t parent;
	uint16_t submesh;
	struct m2w_track t, r, s;       /* vec3, quat, vec3 */
	float pivot[3];
};

struct m2w_vertex {
	float position[3];
	uint8_t weights[4], bones[4];
	float normal[3];
	float uv[2][2];
};

struct m2w_view {
	uint32_t vertex_count;
	const uint16_t *vertices;       /* model vertex per view vertex */
	uint32_t corner_count;
	const uint16_t *corners;        /* view vertex per corner */
	uint32_t property_count;        /* written as zero bytes */
	uint32_t submesh_count;
	const struct m2_submesh *submeshes;
	uint32_t texture_unit_count;    /* written as zero bytes */
	uint32_t bone_count_max;
};

struct m2w_attachment {
	uint32_t id;
	uint16_t bone, unknown;
	float position[3];
	struct m2w_track animate;       /* U8 */
};

struct m2w_event {
	char id[4];
	uint32_t data, bone;
	float position[3];
	struct m2w_track enabled;       /* timestamps only */
};

struct m2w_emitter {
	int32_t id;
	uint32_t flags;
	float position[3];
	int16_t bone, texture;
	const char *model_name;         /* written with its NUL; NULL: none */
	const char *recursion_name;
	int16_t blend_mode, emitter_type, particle_type, tile_rotation, rows, columns;
	struct m2w_track params[M2_EMIT_PARAMS];        /* float */
	float midpoint;
	uint32_t colors[3];
	float sizes[3];
	int16_t tiles[10];
	float tail_length, twinkle_speed, twinkle_percent;
	float twinkle_scale_min, twinkle_scale_max, burst_multiplier;
	float slowdown, rotation;
	float tumble_min[3], tumble_max[3], wind_vector[3], wind_time;
	float follow_speed1, follow_scale1, follow_speed2, follow_scale2;
	uint32_t spline_point_count;
	const float *spline_points;     /* 3 x spline_point_count */
	struct m2w_track enabled;       /* U8 */
	float multi_texture[4];         /* 492-byte records (265 and later) */
};

struct m2w_model {
	uint32_t version;               /* 0 writes 256 */
	const char *name;               /* written with its NUL; NULL: none */
	uint32_t global_flags;
	float bounds[14];               /* the header's floats at 0x0B4 */
	uint32_t global_sequence_count;
	const uint32_t *global_sequences;
	uint32_t sequence_count;
	const struct m2w_sequence *sequences;
	uint32_t bone_count;
	const struct m2w_bone *bones;
	uint32_t animation_lookup_count;
	const int16_t *animation_lookup;
	uint32_t playable_lookup_count;
	const int16_t *playable_lookup; /* 2 x count: fallback, flags */
	uint32_t key_bone_lookup_count;
	const int16_t *key_bone_lookup;
	uint32_t bone_lookup_count;
	const uint16_t *bone_lookup;
	uint32_t vertex_count;
	const struct m2w_vertex *vertices;
	uint32_t view_count;
	const struct m2w_view *views;
	uint32_t attachment_count;
	const struct m2w_attachment *attachments;
	uint32_t attachment_lookup_count;
	const int16_t *attachment_lookup;
	uint32_t event_count;
	const struct m2w_event *events;
	uint32_t emitter_count;
	const struct m2w_emitter *emitters;
	/* The header pairs the description has no field for (textures,
	 * colors, lights, the texture lookups, ...), by field offset / 4,
	 * e.g. filler[M2_HDR_TEXTURES / 4] = 2: that many zero-filled records
	 * of the pair's size.  Ignored for every other field. */
	uint32_t filler[M2_HEADER_BYTES / 4];
	/* Every array starts at an offset of this remainder mod 4 (0..3):
	 * 1 puts every element off its natural alignment. */
	unsigned misalign;
	/* Trailing {0, 0} ranges after the sequences' on every track with
	 * ranges (256..263), or empty pairs after the sequences' (264 and
	 * later); real classic files nearly always have one. */
	uint32_t extra_ranges;
};

/* A companion file (264): its name is the model's stem + suffix. */
#define M2W_MAX_COMPANIONS 64
struct m2w_companion {
	char suffix[32];                /* "00.skin", "0060-00.anim" */
	unsigned char *buf;
	size_t len;
	uint32_t index;                 /* the view, or the sequence */
};

/* The bytes, and where each record array went (file offsets; 0 when
 * empty).  The header holds the same offsets. */
struct m2w_file {
	unsigned char *buf;
	size_t len;
	uint32_t version;
	uint32_t sequences, bones, vertices, views, attachments, events, emitters;
	uint32_t companion_count;
	struct m2w_companion companions[M2W_MAX_COMPANIONS];
};

/* The inverse of m2_quat16_decode, rounded: f in [-1, 1]. */
int16_t m2w_quat16_encode(float f);

/* Write f as DIR/STEM.m2 and its companions as DIR/STEM<suffix>: 0 or -1
 * (perror'd). */
int m2w_write_files(const struct m2w_file *f, const char *dir, const char *stem);
/* The companion of that suffix, or NULL. */
struct m2w_companion *m2w_companion(struct m2w_file *f, const char *suffix);

void m2w_build(const struct m2w_model *m, struct m2w_file *out);
void m2w_file_free(struct m2w_file *f);

uint32_t m2w_get32(const struct m2w_file *f, size_t off);
uint16_t m2w_get16(const struct m2w_file *f, size_t off);
void m2w_put32(struct m2w_file *f, size_t off, uint32_t v);
void m2w_put16(struct m2w_file *f, size_t off, uint16_t v);

/* Where a track record is: bone i's translation (0), rotation (1) or
 * scale (2); emitter i's parameter k (enum m2_emitter_param) or, for
 * k == M2_EMIT_PARAMS, its enabled track; attachment i's track; event i's
 * track.  Add 0 (interpolation), 2 (global sequence), 4 / 12 / 20 (the
 * ranges / timestamps / values pair) for a field. */
uint32_t m2w_bone_track(const struct m2w_file *f, uint32_t i, unsigned which);
uint32_t m2w_emitter_track(const struct m2w_file *f, uint32_t i, unsigned k);
uint32_t m2w_attachment_track(const struct m2w_file *f, uint32_t i);
uint32_t m2w_event_track(const struct m2w_file *f, uint32_t i);

/*
 * A small animated demo model with every part the parser reads: a lantern
 * on a three-bone post (bones listed child first), swinging in a looping
 * "Stand" (linear rotations), a zero-length "Closed" pose, an alias of
 * Stand, and a flame on a global sequence (hermite scale with tangents);
 * a box of 16 vertices (some on two bones) drawn by one view of 12
 * triangles; an emitter of sparks at the flame whose emission rate and
 * enabled state are animated (bezier speed, step rate); an attachment;
 * an event.  m2w_demo_description returns what m2w_demo_model writes.
 */
const struct m2w_model *m2w_demo_description(void);
void m2w_demo_model(struct m2w_file *out);

/*
 * A synthetic model for benchmarks and fuzz seeds: `bones` bones in a
 * chain of branches (listed children first when shuffle is set),
 * `sequences` looping sequences of 1 s each back to back on the timeline,
 * every bone's three tracks with keys_per_sequence keys in each (linear
 * translations, linear rotations, hermite scales), ranges per sequence, a
 * view over a grid of vertices weighted to pairs of bones.
 */
void m2w_synth(struct m2w_file *out, uint32_t bones, uint32_t sequences,
	       uint32_t keys_per_sequence, int shuffle);
/* The same in another version's layout (0: 256); from 264 its view is
 * the companion "00.skin". */
void m2w_synth_version(struct m2w_file *out, uint32_t version, uint32_t bones,
		       uint32_t sequences, uint32_t keys_per_sequence, int shuffle);

#endif
