/*
 * m2.h - World of Warcraft M2 ("MD20"): classic 256 (257 accepted), The
 * Burning Crusade's 260..263, Wrath of the Lich King's 264 with its .skin
 * and .anim companions, and Cataclysm's to Mists of Pandaria's 265..272
 * (264's layout with larger particle emitters and .skin headers) (struct
 * m2_layout below; the facts and their public sources in
 * docs/formats/m2.md): bytes in, a validated model out.
 *
 * ZERO-COPY: the model points into the buffer it was parsed from (every
 * `const unsigned char *` below: track keys, lookup tables, the views'
 * index lists).  It is valid only while that buffer lives and is
 * unchanged; free the model first.  Those pointers may be unaligned: read
 * them with the m2_* accessors below (or bin_reader.h's loads), never by
 * casting.  Everything else (the records: sequences, bones, vertices,
 * emitters, ...) is decoded into the model, which owns it (one
 * allocation, freed by m2_model_free).
 *
 * Values are the file's: nothing is converted to animd's runtime
 * conventions.  Quaternions are stored x, y, z, w as in the file; M2 is
 * right-handed and Z-up; times are the file's milliseconds.
 *
 * STRICTNESS.  Real files carry data the game and every viewer ignore,
 * and some of it breaks rules a writer would follow (extra key ranges,
 * events whose times wrapped in an exporter, junk in lookup tables
 * nobody reads).  The reader's rule, applied to every check:
 *  - safety, always an error: every block, array and count inside the
 *    file (64-bit arithmetic), every index animd follows inside what it
 *    indexes;
 *  - meaning, an error only where the data feeds an output animd
 *    publishes: bones (parents, tracks, pivots), the vertices and view 0
 *    it skins and draws, attachments, particle emitters, the sequences'
 *    windows and (264 and later) aliases;
 *  - per-sequence data is indexed by sequence: counts are minimums,
 *    entries past the sequences are ignored (never read);
 *  - data animd does not evaluate (events' timelines, the lookup tables,
 *    views other than 0, next variations) is checked for bounds only, and
 *    anything odd in it, or ignored elsewhere, becomes a note (diag.h;
 *    the model's `notes`) instead of a refusal.
 *
 * Errors (-EINVAL and a diag at the file offset of the offending field,
 * worded for a person: "bone 12 rotation: interpolation 7 is not 0..3
 * ..."):
 *  - the header (0x144 bytes, 0x130 from 264): magic "MD20" (a chunked
 *    "MD21" is refused by name), a version m2_layout_of knows, every
 *    {count, offset} pair inside the file (the blocks animd does not read
 *    as well); a block animd reads may not start inside the header; files
 *    larger than M2_MAX_BYTES are refused;
 *  - sequences: end_ms >= start_ms; 264 and later: an alias names an
 *    existing sequence and its chain reaches one that is no alias;
 *  - bones: parent -1 or another bone (never itself), no cycles (parents
 *    may come after their children: bone_order is a topological order);
 *  - value tracks (bones, attachments, emitters): interpolation 0..3,
 *    global sequence -1 or one that exists; each range a sequence uses
 *    first <= last < key count; at least as many values as timestamps;
 *    timestamps non-decreasing; bone keys finite;
 *  - vertices: every bone index whose weight is not 0 names a bone (they
 *    index the bones directly, as WMV and WMVx skin);
 *  - view 0: every vertex-list entry names a vertex, whole triangles whose
 *    corners name entries of the list;
 *  - attachments and particle emitters: their bone exists.
 * Notes: ranges past the sequences or fewer than them (a sequence without
 * a range plays no key of that track), more values than timestamps,
 * event ranges and times (half-open, unordered, outside their window),
 * lookup entries that name nothing, weights that do not sum to 255 (a
 * vertex is skinned by sum (w / 255) * B * v whatever they sum to), next
 * variations that name no sequence, odd entries of views other than 0,
 * events on bones that do not exist, blocks animd does not read that
 * start inside the header.
 */
#ifndef ANIMD_M2_H
#define ANIMD_M2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/formats/bin_reader.h"
#include "daemon/formats/diag.h"

#define M2_HEADER_BYTES 0x144u
/* Offsets are 32-bit; real models are a few MB.  Larger files are refused
 * before anything is read. */
#define M2_MAX_BYTES (1024u * 1024u * 1024u)

/* Header fields: the offset of each {count, offset} pair (the count; the
 * offset follows it), and of the 14 bounding floats. */
enum m2_header_field {
	M2_HDR_MAGIC = 0x000,
	M2_HDR_VERSION = 0x004,
	M2_HDR_NAME = 0x008,
	M2_HDR_GLOBAL_FLAGS = 0x010,
	M2_HDR_GLOBAL_SEQUENCES = 0x014,
	M2_HDR_SEQUENCES = 0x01c,
	M2_HDR_ANIMATION_LOOKUP = 0x024,
	M2_HDR_PLAYABLE_LOOKUP = 0x02c,
	M2_HDR_BONES = 0x034,
	M2_HDR_KEY_BONE_LOOKUP = 0x03c,
	M2_HDR_VERTICES = 0x044,
	M2_HDR_VIEWS = 0x04c,
	M2_HDR_COLORS = 0x054,
	M2_HDR_TEXTURES = 0x05c,
	M2_HDR_TRANSPARENCY = 0x064,
	M2_HDR_TEXTURE_FLIPBOOKS = 0x06c,
	M2_HDR_TEXTURE_ANIMATIONS = 0x074,
	M2_HDR_REPLACEABLE_TEXTURE_LOOKUP = 0x07c,
	M2_HDR_RENDER_FLAGS = 0x084,
	M2_HDR_BONE_LOOKUP = 0x08c,
	M2_HDR_TEXTURE_LOOKUP = 0x094,
	M2_HDR_TEXTURE_UNIT_LOOKUP = 0x09c,
	M2_HDR_TRANSPARENCY_LOOKUP = 0x0a4,
	M2_HDR_TEXTURE_ANIMATION_LOOKUP = 0x0ac,
	M2_HDR_BOUNDS = 0x0b4,                  /* 14 floats */
	M2_HDR_BOUNDING_TRIANGLES = 0x0ec,
	M2_HDR_BOUNDING_VERTICES = 0x0f4,
	M2_HDR_BOUNDING_NORMALS = 0x0fc,
	M2_HDR_ATTACHMENTS = 0x104,
	M2_HDR_ATTACHMENT_LOOKUP = 0x10c,
	M2_HDR_EVENTS = 0x114,
	M2_HDR_LIGHTS = 0x11c,
	M2_HDR_CAMERAS = 0x124,
	M2_HDR_CAMERA_LOOKUP = 0x12c,
	M2_HDR_RIBBONS = 0x134,
	M2_HDR_PARTICLE_EMITTERS = 0x13c,
};

/*
 * Versions.  The classic layout is 256 (257 accepted); The Burning
 * Crusade's 260..263 keep it but give bones a 32-bit name hash (112
 * bytes) and store rotations as four int16 (m2_quat16_decode); Wrath of
 * the Lich King's 264 drops the playable-animation lookup, the inline
 * views (their number stays in the header; the views are NAME00.skin ...
 * files beside the model) and the texture flipbooks (a 0x130-byte
 * header), gives sequences a duration instead of a window on a shared
 * timeline (64 bytes) and tracks arrays of per-sequence key arrays (20
 * bytes, no ranges), whose keys for a sequence without flag 0x20 live in
 * an external NAMEaaaa-vv.anim file.  265..272 keep 264's layout for
 * everything animd reads but give particle emitters 492 bytes (16 bytes
 * of multi-texture parameters at the end) and .skin files an array of
 * shadow batches after the bone count.  Every size and offset that
 * differs is in struct m2_layout, chosen once from the version; nothing
 * else in the reader asks for the version.  Anything else: "unsupported
 * M2 version N".
 */
#define M2_VERSION_MIN 256u
#define M2_VERSION_MAX 272u

struct m2_layout {
	uint32_t version_min, version_max;
	uint32_t header_bytes;          /* 0x144, or 0x130 from 264 */
	uint32_t sequence_bytes;        /* 68, 64 */
	uint32_t bone_bytes;            /* 108, 112 (name hash), 88 */
	uint32_t bone_tracks_at;        /* 12, or 16 after the name hash */
	uint32_t track_bytes;           /* 28 (ranges), 20 */
	uint32_t track_base_bytes;      /* a track without values: 20, 12 */
	uint32_t attachment_bytes;      /* 48, 40 */
	uint32_t event_bytes;           /* 44, 36 */
	uint32_t emitter_bytes;         /* 0x1F8, 0x1DC, 0x1EC from 265 */
	uint32_t skin_header_bytes;     /* a .skin's fields animd reads: 48, or
					   56 from 265 (an array of shadow
					   batches follows the bone count) */
	uint32_t submesh_bytes;         /* 32, 48 from 260 */
	uint32_t colors_bytes, transparency_bytes, texture_animation_bytes;
	uint32_t light_bytes, camera_bytes, ribbon_bytes;
	bool quat16;                    /* rotations are 4 x int16 */
	bool per_sequence;              /* sequences have a duration, tracks
					   per-sequence arrays, keys may be in
					   .anim files */
	bool external_views;            /* views in .skin files: the header
					   holds only their number */
	bool emitter_u8_types;          /* 263: blend mode and emitter type are
					   bytes, then a uint16 color index */
	bool aliases;                   /* 264 and later: flag 0x40 (without
					   0x20) makes a sequence an alias */
};

/* The layout of a version, or NULL when animd does not read it. */
const struct m2_layout *m2_layout_of(uint32_t version);

/* Where header field f (named by its version-256 offset) is in layout l,
 * or 0 when the version has no such field (the playable lookup, the
 * texture flipbooks and the views' pair from 264: the views' count alone
 * is at m2_layout_views_count_at). */
uint32_t m2_layout_field(const struct m2_layout *l, enum m2_header_field f);
#define M2_V264_VIEW_COUNT 0x044u       /* uint32: the number of .skin files */

/* Most .skin files a model may name: they are numbered with two digits. */
#define M2_MAX_SKINS 100u

/* Record sizes of version 256. */
#define M2_SEQUENCE_BYTES 68u
#define M2_BONE_BYTES 108u
#define M2_VERTEX_BYTES 48u
#define M2_VIEW_BYTES 44u
#define M2_SUBMESH_BYTES 32u
#define M2_TEXTURE_UNIT_BYTES 24u
#define M2_TRACK_BYTES 28u
#define M2_TRACK_BASE_BYTES 20u                 /* a track without values (events) */
#define M2_ATTACHMENT_BYTES 48u
#define M2_EVENT_BYTES 44u
#define M2_EMITTER_BYTES 0x1f8u

/*
 * Interpolation, the one place its numbering lives.  M2 keeps Warcraft
 * III's: 0 step, 1 linear, 2 hermite, 3 bezier (docs/formats/m2.md; WMV's
 * INTERPOLATION_HERMITE is 2.  The wowdev wiki and the tools derived from
 * it list 2 as bezier and 3 as hermite: we follow the seed).  For 2 and
 * 3 every key stores {value, in tangent, out tangent}.
 */
enum m2_interp {
	M2_INTERP_STEP = 0,
	M2_INTERP_LINEAR = 1,
	M2_INTERP_HERMITE = 2,
	M2_INTERP_BEZIER = 3,
};
#define M2_INTERP_MAX M2_INTERP_BEZIER

/* What a track's values are. */
enum m2_value_type {
	M2_VALUE_NONE,          /* timestamps only (event tracks) */
	M2_VALUE_FLOAT,         /* 1 float */
	M2_VALUE_VEC3,          /* 3 floats */
	M2_VALUE_QUAT,          /* 4 floats x, y, z, w */
	M2_VALUE_U8,            /* 1 byte (on/off tracks) */
	M2_VALUE_QUAT16,        /* 4 x int16 x, y, z, w (260 and later), read as
				   floats through m2_quat16_decode */
};

/*
 * One component of a compressed quaternion (260 and later) as a float:
 * (v < 0 ? v + 32768 : v - 32767) / 32767, WoW Model Viewer's
 * Quat16ToQuat32 (animated.h), which WMVx keeps.  So -32768 and 32767 are
 * 0, -1 is +1 and 0 is -1: the stored value is offset, not a plain
 * fraction.
 */
static inline float m2_quat16_decode(int16_t v)
{
	return (float)(v < 0 ? (int32_t)v + 32768 : (int32_t)v - 32767) / 32767.0f;
}

/*
 * One animated value: 28 bytes in the file, `uint16 interpolation, int16
 * global_sequence, {count, offset} ranges, {count, offset} timestamps,
 * {count, offset} values`.
 *
 * All sequences share one millisecond timeline: sequence s plays the keys
 * ranges[s] = {first, last} (inclusive key indices), of which the ones
 * whose times fall in [start_ms, end_ms] are its own.  Real files hold
 * one range per sequence and nearly always more (trailing {0, 0}): range
 * s is sequence s's, the rest are ignored; a sequence past the ranges
 * plays no key of the track.  A track without ranges has keys for no
 * sequence in particular (a static value, or a global-sequence track).  A
 * global-sequence track (global_sequence >= 0) runs on its own clock,
 * time mod global_sequences[g] (0: hold the first key), over all its
 * keys; its ranges, if any, mean nothing for evaluation.
 *
 * Event tracks (M2_VALUE_NONE: timestamps only) differ: their ranges are
 * half-open, [first, end) with end up to the key count, and their
 * timestamps are neither ordered nor confined to their sequence's window
 * (m2_event_keys).
 */
struct m2_track {
	uint32_t offset;                /* of the record in the file */
	uint16_t interpolation;         /* enum m2_interp */
	int16_t global_sequence;        /* -1, or an index into global_sequences */
	uint8_t value_type;             /* enum m2_value_type */
	uint8_t value_bytes;            /* of one value: 4, 12, 16, 1 or 8 (0: NONE) */
	uint16_t key_bytes;             /* between keys: value_bytes, 3x that for
					   hermite and bezier */
	uint32_t range_count;           /* as stored (s < range_count: sequence s's) */
	uint32_t key_count;             /* timestamps, and values unless NONE */
	const unsigned char *ranges;    /* range_count x {uint32 first, last} */
	const unsigned char *times;     /* key_count x uint32 ms, non-decreasing
					   (but on event tracks) */
	const unsigned char *values;    /* key_count x key_bytes (NULL if NONE) */
	/* 264 and later (key_count and range_count 0): seq_count pairs of
	 * {count, offset} for timestamps and for values, one per sequence
	 * (a global-sequence track plays pair 0), in the model's buffer; the
	 * arrays they point at are in the buffer of that sequence's keys
	 * (struct m2_sequence data: the model, or its .anim file).  A
	 * sequence past the pairs plays pair 0, in sequence 0's buffer, as the
	 * client does: a track with one pair is the same for every sequence
	 * (emitter parameters are written so).  Pairs past the sequences are
	 * never read. */
	uint32_t seq_count;
	const unsigned char *seq_times;
	const unsigned char *seq_values;
	/* Who owns it, for messages: "bone 3 rotation". */
	const char *owner_kind;
	const char *owner_field;
	uint32_t owner_index;
	bool finite;                    /* its floats must be finite (bone tracks) */
};

/* Parts of a hermite or bezier key. */
enum m2_key_part {
	M2_KEY_VALUE = 0,
	M2_KEY_IN_TANGENT = 1,
	M2_KEY_OUT_TANGENT = 2,
};

/* The keys one sequence plays of a track, in whichever buffer holds
 * them: count timestamps (ms, non-decreasing) at times and count keys of
 * key_bytes at values; start_ms is what to subtract from a timestamp to
 * get the time in the sequence. */
struct m2_keys {
	uint32_t count;
	uint32_t start_ms;
	const unsigned char *times;
	const unsigned char *values;
};

static inline uint32_t m2_keys_time(const struct m2_keys *k, uint32_t i)
{
	return bin_le32(k->times + (size_t)i * 4);
}

/* Key i's value (or part) as floats: 1, 3 or 4 by value_type; QUAT16
 * decoded (m2_quat16_decode). */
static inline void m2_keys_floats(const struct m2_track *t, const struct m2_keys *k, uint32_t i,
				  enum m2_key_part part, float *out)
{
	const unsigned char *p = k->values + (size_t)i * t->key_bytes + (size_t)part * t->value_bytes;

	if (t->value_type == M2_VALUE_QUAT16) {
		for (unsigned c = 0; c < 4; c++)
			out[c] = m2_quat16_decode(bin_les16(p + 2 * c));
		return;
	}
	for (unsigned c = 0; c < t->value_bytes / 4u; c++)
		out[c] = bin_lef32(p + 4 * c);
}

static inline uint8_t m2_keys_u8(const struct m2_track *t, const struct m2_keys *k, uint32_t i,
				 enum m2_key_part part)
{
	return k->values[(size_t)i * t->key_bytes + (size_t)part];
}


static inline uint32_t m2_track_time(const struct m2_track *t, uint32_t k)
{
	return bin_le32(t->times + (size_t)k * 4);
}

/* Sequence s's key range (s < range_count). */
static inline void m2_track_range(const struct m2_track *t, uint32_t s, uint32_t *first,
				  uint32_t *last)
{
	*first = bin_le32(t->ranges + (size_t)s * 8);
	*last = bin_le32(t->ranges + (size_t)s * 8 + 4);
}

/* Key k's value (or, for hermite and bezier, the part asked for) as
 * floats: 1, 3 or 4 of them by value_type (FLOAT, VEC3, QUAT).  Parts
 * other than M2_KEY_VALUE exist only when key_bytes > value_bytes. */
static inline void m2_track_floats(const struct m2_track *t, uint32_t k, enum m2_key_part part,
				   float *out)
{
	struct m2_keys all = { t->key_count, 0, t->times, t->values };

	m2_keys_floats(t, &all, k, part, out);
}

/* Key k's value of a U8 track. */
static inline uint8_t m2_track_u8(const struct m2_track *t, uint32_t k, enum m2_key_part part)
{
	return t->values[(size_t)k * t->key_bytes + (size_t)part];
}

struct m2_model;

/*
 * The keys of track t that sequence s plays: [*first, *end).  s is
 * resolved through its alias chain first (alias_target).  Then:
 *  - a track without keys: none;
 *  - a global-sequence track, or one without ranges: all its keys (a
 *    static value, or keys on their own clock);
 *  - a sequence past the track's ranges: none;
 *  - otherwise the sequence's range, narrowed to the keys whose times fall
 *    inside the sequence's window [start_ms, end_ms]; when
 *    none does, the whole range (which then holds its nearest key, as WMV
 *    holds a range of one key).
 * s must be below the model's sequence_count.  Not for event tracks
 * (m2_event_keys).
 */
void m2_track_keys(const struct m2_model *m, const struct m2_track *t, uint32_t s,
		   uint32_t *first, uint32_t *end);

/*
 * The keys sequence s plays of track t, whatever the version: through
 * its alias chain, then for 256..263 m2_track_keys' run of the shared
 * timeline (start_ms the window's start; a global-sequence track: all
 * keys, start 0), for 264 and later the sequence's own array (a
 * global-sequence track: array 0, in the model).  No keys (count 0) when
 * the sequence's keys are in an .anim file that was not attached
 * (m2_attach_anim).  s must be below the model's sequence_count unless
 * the track is on a global sequence.
 */
void m2_track_sequence_keys(const struct m2_model *m, const struct m2_track *t, uint32_t s,
			    struct m2_keys *out);

/*
 * The timestamps of event track t (M2_VALUE_NONE) that sequence s holds,
 * in whichever buffer holds them, as stored: unordered, and not always
 * inside the sequence's window (times minus out->start_ms may be negative
 * or past the sequence's length: exporters wrapped some at 16 bits).  For
 * 256..263 the half-open range [first, end) of sequence s (end clamped to
 * the key count; a range that runs backwards, or a sequence past the
 * ranges, holds none), or with no ranges the keys inside the window; for
 * 264 and later the sequence's own array.  A global-sequence event track
 * holds all its keys, start 0.  No alias is followed: an alias's events are
 * its own.  out->values is NULL.
 */
void m2_event_keys(const struct m2_model *m, const struct m2_track *t, uint32_t s,
		   struct m2_keys *out);

/* ---- sequences ---- */

/*
 * Sequence flags, by version.  0x20 is not "looping" in any version (it is
 * set on classic Death and attack sequences and missing on Dance and
 * Sleep); from 264 it says the keys are in the model (M2_SEQ_IN_MODEL).
 * 0x40 makes an alias only from 264, and only without 0x20 (the client
 * follows alias_next while a sequence has 0x40 and not 0x20, as
 * WebWowViewerCpp does): classic sequences flagged 0x40 have full keys of
 * their own in their own window.  No bit says looping: the game takes it
 * from its own tables, the viewers loop every sequence, and so does animd
 * (`play` can ask otherwise).  Every flag is published as stored.
 */
#define M2_SEQ_ALIAS 0x40u      /* 264 and later, without 0x20: plays
				   alias_next's keys */

struct m2_sequence {
	uint16_t id;                    /* AnimationData.dbc id */
	uint16_t variation;
	uint32_t start_ms, end_ms;      /* window on the shared timeline, end >= start
					   (equal: a zero-length sequence) */
	float movespeed;
	uint32_t flags;                 /* all bits as stored: M2_SEQ_* */
	int16_t frequency;
	uint16_t pad;
	uint32_t replay_min, replay_max;
	uint32_t blend_ms;
	float box_min[3], box_max[3];
	float radius;
	int16_t next_variation;         /* -1, or a sequence */
	uint16_t alias_next;            /* meaningful for an alias (M2_SEQ_ALIAS) */
	uint32_t alias_target;          /* the sequence whose keys and window this
					   one plays: itself, or the end of its
					   alias chain (never an alias) */
	/* 264 and later store a duration: start_ms is then 0 and end_ms the
	 * duration, so every sequence is a window all the same. */
	/* Where its keys are (264: flag 0x20 says the model; otherwise its
	 * .anim file, when any track has keys for it). */
	uint8_t data;                   /* enum m2_sequence_data */
	const unsigned char *keys_base; /* the buffer its keys' offsets are in */
	size_t keys_len;
};

enum m2_sequence_data {
	M2_SEQ_DATA_MODEL,              /* in the model (every sequence before 264) */
	M2_SEQ_DATA_NONE,               /* 264, no 0x20, but no track has keys for
					   it: nothing to load */
	M2_SEQ_DATA_ANIM_MISSING,       /* its .anim file is needed, not attached */
	M2_SEQ_DATA_ANIM,               /* attached: keys in its .anim file */
	M2_SEQ_DATA_ANIM_BROKEN,        /* its .anim file was rejected */
};

/* 264: the sequence's keys are in the model (else in NAMEaaaa-vv.anim). */
#define M2_SEQ_IN_MODEL 0x20u

/* ---- bones ---- */

/* Bone flags (wowdev wiki, M2CompBone; WebWowViewerCpp's bone matrix).
 * The billboards need the viewer's camera: animd publishes their kind and
 * leaves the rotation to the renderer.  The three "ignore the parent's"
 * bits shape the bone matrix (skeleton.h, ignore_parent). */
#define M2_BONE_IGNORE_PARENT_TRANSLATION 0x1u
#define M2_BONE_IGNORE_PARENT_SCALE 0x2u
#define M2_BONE_IGNORE_PARENT_ROTATION 0x4u
#define M2_BONE_SPHERICAL_BILLBOARD 0x8u
#define M2_BONE_CYLINDRICAL_BILLBOARD_X 0x10u
#define M2_BONE_CYLINDRICAL_BILLBOARD_Y 0x20u
#define M2_BONE_CYLINDRICAL_BILLBOARD_Z 0x40u
#define M2_BONE_ANIMATED 0x200u

/* A bone's billboard kind: "spherical", "cylindrical_x", "_y", "_z", or
 * NULL (none).  When several bits are set the first of that order wins. */
const char *m2_bone_billboard(uint32_t flags);

struct m2_bone {
	uint32_t offset;                /* of the 108-byte record */
	int32_t key_bone_id;            /* -1, or an id the key-bone lookup maps
					   (not checked: ids are the client's) */
	uint32_t flags;                 /* all bits as stored: M2_BONE_* */
	int16_t parent;                 /* -1, or a bone (never itself) */
	uint16_t submesh;
	uint32_t name_hash;             /* 260 and later: a CRC of the bone's name */
	struct m2_track translation;    /* VEC3 */
	struct m2_track rotation;       /* QUAT x, y, z, w; QUAT16 from 260 */
	struct m2_track scale;          /* VEC3 */
	float pivot[3];
	uint32_t depth;                 /* 0 for a root, parent's + 1 */
};

/* ---- geometry ---- */

struct m2_vertex {
	float position[3];
	uint8_t weights[4];             /* sum 255, or 0 (no bone moves it) */
	uint8_t bones[4];               /* bone indices; only those with a weight
					   are checked and meaningful */
	float normal[3];
	float uv[2][2];                 /* two texture coordinate sets */
};

/*
 * A view ("skin" profile, kept inside the file before Wrath of the Lich
 * King; 44 bytes: five {count, offset} arrays and a uint32, no "SKIN"
 * magic).  View 0 is the full-detail one.
 *
 *   vertex list     uint16 per view vertex: a model vertex (checked)
 *   triangle list   uint16 per corner: a view vertex (checked), three
 *                   corners per triangle, counter-clockwise as stored
 *   properties      4 bytes per view vertex (bone lookup indices for the
 *                   client's skinning palette), bounds only
 *   submeshes       32 bytes each (m2_view_submesh), bounds only
 *   texture units   24 bytes each, bounds only
 */
struct m2_view {
	uint32_t offset;                /* of the 44-byte record (a .skin: of its
					   header, 0) */
	bool loaded;                    /* false: a .skin file not attached */
	uint32_t submesh_bytes;         /* 32, or 48 from 260 */
	uint32_t vertex_count;
	uint32_t triangle_count;        /* corners / 3 */
	uint32_t property_count;
	uint32_t submesh_count;
	uint32_t texture_unit_count;
	uint32_t bone_count_max;
	const unsigned char *vertices;  /* vertex_count x uint16 */
	const unsigned char *corners;   /* 3 x triangle_count x uint16 */
	const unsigned char *properties;
	const unsigned char *submeshes;
	const unsigned char *texture_units;
};

/* The model vertex of view vertex i (i < vertex_count). */
static inline uint32_t m2_view_vertex(const struct m2_view *v, uint32_t i)
{
	return bin_le16(v->vertices + (size_t)i * 2);
}

/* Triangle t (t < triangle_count) as three model vertex indices, resolved
 * through the view's vertex list: what the `vertices` space draws. */
static inline void m2_view_triangle(const struct m2_view *v, uint32_t t, uint32_t out[3])
{
	for (unsigned c = 0; c < 3; c++)
		out[c] = m2_view_vertex(v, bin_le16(v->corners + ((size_t)t * 3 + c) * 2));
}

/* A submesh (geoset) as stored; its ranges are the file's, unchecked. */
struct m2_submesh {
	uint16_t id;                    /* geoset id (body part / variant) */
	uint16_t level;
	uint16_t vertex_start, vertex_count;    /* into the view's vertex list */
	uint16_t corner_start, corner_count;    /* into its triangle list */
	uint16_t bone_count, bone_start;        /* into the bone lookup */
	uint16_t bone_influences;
	uint16_t root_bone;
	float center[3];
};

void m2_view_submesh(const struct m2_view *v, uint32_t i, struct m2_submesh *out);

/* ---- things hung on bones ---- */

struct m2_attachment {
	uint32_t offset;                /* of the 48-byte record */
	uint32_t id;                    /* attachment point id (the lookup maps ids) */
	uint16_t bone;                  /* checked */
	uint16_t unknown;
	float position[3];              /* relative to the bone */
	struct m2_track animate;        /* U8: does the model hung there animate
					   (the client's default: 1) */
};

/* An event: 44 bytes (36 from 264), a 4-character id, data, a bone, a
 * position and a track of timestamps only (each one fires the event;
 * m2_event_keys).  Nothing in it feeds a pose: bounds are checked, the
 * rest is as stored (a bone that does not exist is a note). */
struct m2_event {
	uint32_t offset;
	char id[4];                     /* e.g. "$DTH"; not NUL-terminated */
	uint32_t data;
	uint32_t bone;                  /* as stored: may name no bone */
	float position[3];
	struct m2_track enabled;        /* NONE: timestamps and ranges only */
};

/* The ten animated emitter parameters, tracks at 0x34 + 28 k. */
enum m2_emitter_param {
	M2_EMIT_SPEED,                  /* emission speed */
	M2_EMIT_SPEED_VARIATION,        /* 0..1 */
	M2_EMIT_VERTICAL_RANGE,         /* spread, 0..pi */
	M2_EMIT_HORIZONTAL_RANGE,       /* 0..2 pi */
	M2_EMIT_GRAVITY,
	M2_EMIT_LIFESPAN,
	M2_EMIT_RATE,                   /* emission rate */
	M2_EMIT_AREA_LENGTH,
	M2_EMIT_AREA_WIDTH,
	M2_EMIT_Z_SOURCE,               /* "strong gravity" in the seed */
	M2_EMIT_PARAMS
};

/* Its name in messages: "emission rate", ... */
const char *m2_emitter_param_name(enum m2_emitter_param p);

/*
 * A particle emitter (0x1F8 bytes).  Field names follow the seed's table;
 * where it says "unknown", the names the later public tools agree on
 * (WMVx's version-256 record, pywowlib) are used and the seed's offset is
 * given.  Every float is as stored.
 */
struct m2_emitter {
	uint32_t offset;                /* of the record */
	int32_t id;                     /* 0x000, usually -1 */
	uint32_t flags;                 /* 0x004, all bits (0x1000: no billboard) */
	float position[3];              /* 0x008, relative to the bone */
	int16_t bone;                   /* 0x014, checked */
	int16_t texture;                /* 0x016, as stored */
	/* 0x018 and 0x020: the seed's two "lists of ints"; the later tools
	 * read them as file names (a model the emitter spawns, a model whose
	 * emitters it stands for).  Bounds-checked as bytes. */
	uint32_t model_name_bytes;
	const unsigned char *model_name;
	uint32_t recursion_name_bytes;
	const unsigned char *recursion_name;
	int16_t blend_mode;             /* 0x028 (263 and later: a byte) */
	int16_t emitter_type;           /* 0x02A: 1 plane, 2 sphere, 3 spline (263
					   and later: a byte at 0x029) */
	uint16_t color_index;           /* 263 and later: 0x02A */
	/* 264 and later (M2ParticleOld of 476 bytes): what replaced the
	 * static colors, sizes and tiles, and the variations.  The record
	 * has tracks of fixed-point life times instead: colors, sizes and
	 * midpoint below come from its colour, alpha and scale tracks
	 * (m2_emitter.c); its cell tracks have no classic form, tiles are 0. */
	float lifespan_vary, emission_rate_vary;
	float scale_vary[2];
	float base_spin, base_spin_vary, spin_vary;
	int16_t particle_type;          /* 0x02C: 0 normal, 1 quad to origin, 2
					   (492-byte records: multi-texture
					   parameter x[0]) */
	int16_t tile_rotation;          /* 0x02E: -1, 0, 1 (492: x[1]) */
	/* 492-byte records (265 and later): 16 bytes at 0x1DC, two vec2 of
	 * multi-texture parameters; 0 elsewhere. */
	float multi_texture[4];
	int16_t rows, columns;          /* 0x030, 0x032: texture tiles */
	struct m2_track params[M2_EMIT_PARAMS];         /* 0x034: FLOAT each */
	float midpoint;                 /* 0x14C, 0..1 of the lifespan */
	uint32_t colors[3];             /* 0x150: ARGB (start, mid, end) */
	float sizes[3];                 /* 0x15C: start, mid, end */
	/* 0x168, the seed's ten tile indices: lifespan tiles {first, last,
	 * repeat}, decay {first, last, repeat}, tail {first, last}, tail
	 * decay {first, last}. */
	int16_t tiles[10];
	/* 0x17C, the seed's "unknown" float[3]. */
	float tail_length, twinkle_speed, twinkle_percent;
	/* 0x188, the seed's "something about particle scaling" float[3]. */
	float twinkle_scale_min, twinkle_scale_max, burst_multiplier;
	float slowdown;                 /* 0x194: speed *= exp(-slowdown t) */
	float rotation;                 /* 0x198: turns over the lifetime */
	/* 0x19C, the seed's float[10]: a tumble box and the wind. */
	float tumble_min[3], tumble_max[3];
	float wind_vector[3];
	float wind_time;
	/* 0x1C4, the seed's float[6] "(2.5, 0.7, 7, 0.9, 0, 0)": four follow
	 * factors, then {count, offset} of the spline points (vec3 each, set
	 * for spline emitters: the "0, 0" of the seed is an empty list). */
	float follow_speed1, follow_scale1, follow_speed2, follow_scale2;
	uint32_t spline_point_count;
	const unsigned char *spline_points;     /* x 12 bytes: 3 floats */
	/* 0x1DC (0x1C8 from 264): on/off over time.  U8 values (WMV reads it
	 * as Animated<uint8>, the later tools as M2Track<uint8>; the seed says
	 * only "int"). */
	struct m2_track enabled;
};

/* ---- the whole model ---- */

/* A block animd does not decode: where it is, bounds-checked. */
struct m2_block {
	uint32_t count;
	uint32_t offset;
	const unsigned char *data;      /* NULL when count is 0 */
};

struct m2_model {
	uint32_t version;               /* 256, 257, 260..263, 264..272 */
	const struct m2_layout *layout;
	char *name;                     /* NUL-terminated copy: the stored name up
					   to its first NUL (which the stored
					   length usually includes) */
	uint32_t global_flags;          /* 0x010 */
	float bounds_min[3], bounds_max[3], bounds_radius;         /* 0x0B4 */
	float collision_min[3], collision_max[3], collision_radius; /* 0x0D0 */

	uint32_t global_sequence_count;
	uint32_t *global_sequences;     /* length in ms of each */

	uint32_t sequence_count;
	struct m2_sequence *sequences;

	uint32_t bone_count;
	struct m2_bone *bones;
	uint32_t *bone_order;           /* bone_count indices, every parent before
					   its children (by depth, then index) */

	/* Lookup tables, in the buffer (read with bin_les16 / bin_le16).
	 * Nothing animd publishes reads them: their entries are as stored
	 * (one that names nothing is a note). */
	struct m2_block animation_lookup;       /* int16: -1 or a sequence, by
						   animation id */
	struct m2_block playable_lookup;        /* {int16 fallback id, int16
						   flags}, by animation id */
	struct m2_block key_bone_lookup;        /* int16: -1 or a bone */
	struct m2_block bone_lookup;            /* uint16: a bone */
	struct m2_block attachment_lookup;      /* int16: -1 or an attachment */

	uint32_t vertex_count;
	struct m2_vertex *vertices;
	uint32_t unweighted_vertex_count;       /* weights summing to 0 */
	uint32_t odd_weight_vertex_count;       /* weights summing to neither 255
						   nor 0 (skinned as stored) */

	uint32_t view_count;            /* 264: the number of .skin files */
	struct m2_view *views;          /* 264: loaded once attached */

	/* Every track decoded (bones, attachments, events, emitters), for
	 * m2_attach_anim. */
	uint32_t track_count;
	struct m2_track **tracks;
	const unsigned char *data;      /* the model's buffer */
	size_t data_len;

	uint32_t attachment_count;
	struct m2_attachment *attachments;
	uint32_t event_count;
	struct m2_event *events;
	uint32_t emitter_count;
	struct m2_emitter *emitters;

	/* Bounds-checked only (element sizes of version 256 in brackets). */
	struct m2_block colors;                 /* [56] */
	struct m2_block textures;               /* [16] */
	struct m2_block transparency;           /* [28] */
	struct m2_block texture_flipbooks;      /* [unknown: checked as bytes] */
	struct m2_block texture_animations;     /* [84] */
	struct m2_block replaceable_texture_lookup;     /* [2] */
	struct m2_block render_flags;           /* [4] */
	struct m2_block texture_lookup;         /* [2] */
	struct m2_block texture_unit_lookup;    /* [2] */
	struct m2_block transparency_lookup;    /* [2] */
	struct m2_block texture_animation_lookup;       /* [2] */
	struct m2_block bounding_triangles;     /* [2] */
	struct m2_block bounding_vertices;      /* [12] */
	struct m2_block bounding_normals;       /* [12] */
	struct m2_block lights;                 /* [212] */
	struct m2_block cameras;                /* [124] */
	struct m2_block camera_lookup;          /* [2] */
	struct m2_block ribbons;                /* [220] */

	/* What the parse accepted but noted (file offsets in the model). */
	struct diag_notes notes;
};

/*
 * Parse the len bytes at data.  0 with *out set (free with m2_model_free;
 * it points into data: keep data alive and unchanged meanwhile), -EINVAL
 * with d set (d->offset the file offset of the field at fault), or
 * -ENOMEM.  On failure *out is NULL.  data need not be aligned.  The
 * function reads nothing but the buffer and allocates once.
 */
int m2_parse(const void *data, size_t len, struct m2_model **out, struct diag *d);


/* Accepts NULL. */
void m2_model_free(struct m2_model *m);

/* ---- companions (264 and later) ---- */

/* "NAME00.skin" for view i of the model file `model` ("dir/NAME.m2"):
 * the name without its extension, then two digits.  0, or -ENAMETOOLONG. */
int m2_skin_name(const char *model, uint32_t i, char *out, size_t size);
/* "NAME0060-00.anim": four digits of the animation id, two of the
 * variation. */
int m2_anim_name(const char *model, uint32_t id, uint32_t variation, char *out, size_t size);
/* The model stem a companion name belongs to ("dir/NAME" for
 * "dir/NAME00.skin" or "dir/NAME0060-00.anim"), or -EINVAL when the name
 * is no companion's. */
int m2_companion_stem(const char *name, char *out, size_t size);

/*
 * Attach the .skin of view i (i < view_count, 264 and later): data holds
 * the file ("SKIN", then five {count, offset} arrays relative to the
 * file's start and the largest bone count; from 265 an array of shadow
 * batches, bounds only).  Checked like an inline view (view 0: every
 * vertex-list entry a model vertex, whole triangles naming entries of the
 * list; other views: bounds, the rest noted; submeshes (48 bytes),
 * texture units and properties bounds only).  0: views[i] points into
 * data (keep it alive while the model is), notes (may be NULL) got what
 * was odd, at the .skin's offsets; -EINVAL with d at the .skin's offset:
 * the view stays unloaded.
 */
int m2_attach_skin(struct m2_model *m, uint32_t i, const void *data, size_t len,
		   struct diag *d, struct diag_notes *notes);

/*
 * Attach the .anim of sequence s (its data M2_SEQ_DATA_ANIM_MISSING): a
 * pre-Legion .anim is raw key data, and every track's arrays for s hold
 * offsets into it.  Each is checked as in the model (inside the file;
 * value tracks: timestamps in order, bone keys finite; event tracks:
 * bounds only).  0 (notes as for m2_attach_skin): the sequence's keys are
 * read from data (keep it alive while the model is); -EINVAL with d at
 * the .anim's offset: the sequence is M2_SEQ_DATA_ANIM_BROKEN.  A chunked
 * Legion .anim ("AFM2") is refused.
 */
int m2_attach_anim(struct m2_model *m, uint32_t s, const void *data, size_t len,
		   struct diag *d, struct diag_notes *notes);

#endif
