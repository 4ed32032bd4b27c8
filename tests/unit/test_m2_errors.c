/*
 * Every way the M2 parser rejects a file, each at the file offset of the
 * field at fault and with its message: the size, magic and version; every
 * header pair past the end, overflowing (0xffffffff x the record size)
 * and inside the header; sequences that run backwards, name missing
 * variations or aliases, alias themselves or loop; bones whose parents
 * are missing, themselves, or a cycle; tracks with a bad interpolation or
 * global sequence, ranges of the wrong number, backwards, past the keys
 * or on a keyless track, timestamps that go back, values that do not
 * match them or lie outside the file, NaNs in bone keys and pivots; every
 * lookup entry that names nothing; vertex weights that do not sum to 255
 * and bones that do not exist; views whose lists name what is not there;
 * attachments, events and emitters on missing bones, their tracks named
 * in messages.  Each case is the demo model (support/m2_writer.h) with
 * one field patched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "tests/unit/m2_expect.h"

static struct m2w_file demo(void)
{
	struct m2w_file f;

	m2w_demo_model(&f);
	return f;
}

/* Field offsets of a track record. */
#define TR_RANGES 4
#define TR_TIMES 12
#define TR_VALUES 20

/* Where a track's array is: the offset its pair holds. */
static uint32_t track_array(const struct m2w_file *f, uint32_t track, unsigned field)
{
	return m2w_get32(f, track + field + 4);
}

static void test_size_magic_version(void **state)
{
	struct m2w_file f = demo();
	unsigned char saved[M2_HEADER_BYTES];
	size_t len = f.len;

	(void)state;
	memcpy(saved, f.buf, sizeof saved);
	f.len = 0;
	m2x_fails(&f, 0, "0 bytes: too short for the \"MD20\" magic");
	f.len = 3;
	m2x_fails(&f, 0, "3 bytes: too short");
	f.len = 7;
	m2x_fails(&f, 4, "the file ends inside the version (7 bytes)");
	f.len = 0x100;
	m2x_fails(&f, 0x100, "the file ends at 0x100, inside the 0x144-byte header");
	f.len = len;
	memcpy(f.buf, "MD21", 4);
	m2x_fails(&f, 0, "a chunked M2 (\"MD21\", Legion and later)");
	memcpy(f.buf, "MDX\x01", 4);
	m2x_fails(&f, 0, "not an M2 file: it starts \"MDX\\x01\", not \"MD20\"");
	memcpy(f.buf, saved, 4);
	m2w_put32(&f, M2_HDR_VERSION, 273);
	m2x_fails(&f, 4, "unsupported M2 version 273 (animd reads 256, 257 and 260 to 272)");
	m2w_put32(&f, M2_HDR_VERSION, 258);
	m2x_fails(&f, 4, "unsupported M2 version 258 (animd reads 256, 257 and 260 to 272)");
	m2w_put32(&f, M2_HDR_VERSION, 255);
	m2x_fails(&f, 4, "unsupported M2 version 255 (animd reads 256, 257 and 260 to 272)");
	m2w_file_free(&f);
}

/* Larger than the limit: refused before a byte is read (so the buffer
 * behind the length can be small). */
static void test_too_large(void **state)
{
	unsigned char four[4] = { 'M', 'D', '2', '0' };
	struct m2_model *m;
	struct diag d = { 0 };

	(void)state;
	assert_int_equal(m2_parse(four, (size_t)M2_MAX_BYTES + 1, &m, &d), -EINVAL);
	assert_null(m);
	assert_int_equal(d.offset, 0);
	assert_non_null(strstr(d.msg, "larger than the 1073741824-byte limit for M2 files"));
}

/* Every pair of the header, in turn: past the end, overflowing (both
 * errors whether animd reads the block or not: safety), inside the header
 * (an error for a block animd reads, a note for one it does not).  The
 * message names the block. */
static void test_header_pairs(void **state)
{
	static const struct {
		unsigned field, size, read;
		const char *name;
	} pairs[] = {
		{ M2_HDR_NAME, 1, 1, "the model name" },
		{ M2_HDR_GLOBAL_SEQUENCES, 4, 1, "global sequences" },
		{ M2_HDR_SEQUENCES, 68, 1, "sequences" },
		{ M2_HDR_ANIMATION_LOOKUP, 2, 0, "the animation lookup" },
		{ M2_HDR_PLAYABLE_LOOKUP, 4, 0, "the playable animation lookup" },
		{ M2_HDR_BONES, 108, 1, "bones" },
		{ M2_HDR_KEY_BONE_LOOKUP, 2, 0, "the key-bone lookup" },
		{ M2_HDR_VERTICES, 48, 1, "vertices" },
		{ M2_HDR_VIEWS, 44, 1, "views" },
		{ M2_HDR_COLORS, 56, 0, "colors" },
		{ M2_HDR_TEXTURES, 16, 0, "textures" },
		{ M2_HDR_TRANSPARENCY, 28, 0, "transparency" },
		{ M2_HDR_TEXTURE_FLIPBOOKS, 1, 0, "texture flipbooks" },
		{ M2_HDR_TEXTURE_ANIMATIONS, 84, 0, "texture animations" },
		{ M2_HDR_REPLACEABLE_TEXTURE_LOOKUP, 2, 0, "the replaceable texture lookup" },
		{ M2_HDR_RENDER_FLAGS, 4, 0, "render flags" },
		{ M2_HDR_BONE_LOOKUP, 2, 0, "the bone lookup" },
		{ M2_HDR_TEXTURE_LOOKUP, 2, 0, "the texture lookup" },
		{ M2_HDR_TEXTURE_UNIT_LOOKUP, 2, 0, "the texture unit lookup" },
		{ M2_HDR_TRANSPARENCY_LOOKUP, 2, 0, "the transparency lookup" },
		{ M2_HDR_TEXTURE_ANIMATION_LOOKUP, 2, 0, "the texture animation lookup" },
		{ M2_HDR_BOUNDING_TRIANGLES, 2, 0, "bounding triangles" },
		{ M2_HDR_BOUNDING_VERTICES, 12, 0, "bounding vertices" },
		{ M2_HDR_BOUNDING_NORMALS, 12, 0, "bounding normals" },
		{ M2_HDR_ATTACHMENTS, 48, 1, "attachments" },
		{ M2_HDR_ATTACHMENT_LOOKUP, 2, 0, "the attachment lookup" },
		{ M2_HDR_EVENTS, 44, 1, "events" },
		{ M2_HDR_LIGHTS, 212, 0, "lights" },
		{ M2_HDR_CAMERAS, 124, 0, "cameras" },
		{ M2_HDR_CAMERA_LOOKUP, 2, 0, "the camera lookup" },
		{ M2_HDR_RIBBONS, 220, 0, "ribbon emitters" },
		{ M2_HDR_PARTICLE_EMITTERS, 0x1f8, 1, "particle emitters" },
	};
	char msg[256];

	(void)state;
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		struct m2w_file f = demo();
		unsigned fld = pairs[i].field;
		unsigned long long end;

		/* One record, starting where the file ends. */
		m2w_put32(&f, fld, 1);
		m2w_put32(&f, fld + 4, (uint32_t)f.len);
		if (pairs[i].size == 1)
			snprintf(msg, sizeof msg, "%s: 1 bytes at 0x%zx would end at 0x%zx, but the "
				 "data ends at 0x%zx", pairs[i].name, f.len, f.len + 1, f.len);
		else
			snprintf(msg, sizeof msg, "%s: 1 x %u bytes at 0x%zx would end at 0x%zx, "
				 "but the data ends at 0x%zx", pairs[i].name, pairs[i].size, f.len,
				 f.len + pairs[i].size, f.len);
		m2x_fails(&f, fld, msg);
		/* The largest count: its true end, no wrap. */
		m2w_put32(&f, fld, 0xffffffffu);
		m2w_put32(&f, fld + 4, 0x200);
		end = 0x200ull + 0xffffffffull * pairs[i].size;
		snprintf(msg, sizeof msg, " at 0x200 would end at 0x%llx, but the data ends at 0x%zx",
			 end, f.len);
		m2x_fails(&f, fld, msg);
		/* Inside the header. */
		m2w_put32(&f, fld, 2);
		m2w_put32(&f, fld + 4, 0x20);
		snprintf(msg, sizeof msg, "%s: 2 entries at 0x20, inside the 0x144-byte header",
			 pairs[i].name);
		if (pairs[i].read)
			m2x_fails(&f, fld, msg);
		else
			m2x_notes(&f, fld, msg);
		m2w_file_free(&f);
	}
}

static void test_sequences(void **state)
{
	struct m2w_file f;
	uint32_t s0, s1, s2;

	(void)state;
	f = demo();
	s1 = f.sequences + 68;
	m2w_put32(&f, s1 + 8, 2000);
	m2x_fails(&f, s1 + 8, "sequence 1 ends at 2000 ms, before it starts at 2100 ms");
	m2w_file_free(&f);

	/* A next variation feeds nothing animd publishes: noted. */
	f = demo();
	s0 = f.sequences;
	m2w_put16(&f, s0 + 64, 5);
	m2x_notes(&f, s0 + 64, "sequence 0 names sequence 5 as its next variation, but the model "
		  "has 3 sequences: kept as stored");
	m2w_put16(&f, s0 + 64, (uint16_t)-2);
	m2x_notes(&f, s0 + 64, "sequence 0 names sequence -2 as its next variation");
	m2w_file_free(&f);

	/* Before 264 flag 0x40 is no alias: whatever alias_next holds (a
	 * sequence that does not exist, itself, a loop), every sequence plays
	 * its own window. */
	f = demo();
	s2 = f.sequences + 2 * 68;
	m2w_put16(&f, s2 + 66, 7);
	m2w_put32(&f, s2 + 16, M2_SEQ_ALIAS);
	m2w_put32(&f, f.sequences + 16, M2_SEQ_ALIAS);
	m2w_put16(&f, f.sequences + 66, 2);
	{
		unsigned char *copy;
		struct m2_model *m = m2x_ok(&f, &copy);

		for (uint32_t i = 0; i < 3; i++)
			assert_int_equal(m->sequences[i].alias_target, i);
		m2_model_free(m);
		free(copy);
	}
	m2w_file_free(&f);
}

/* 264 and later: a sequence with 0x40 and without 0x20 is an alias, whose
 * chain must end at a sequence that is none (its keys are what it plays);
 * with 0x20 too it is none. */
static void test_aliases_264(void **state)
{
	struct m2w_model w = *m2w_demo_description();
	struct m2w_file f;
	uint32_t s0, s1, s2;

	(void)state;
	w.version = 264;
	m2w_build(&w, &f);
	s0 = f.sequences;
	s1 = s0 + 64;
	s2 = s0 + 2 * 64;
	{
		unsigned char *copy;
		struct m2_model *m = m2x_ok(&f, &copy);

		assert_int_equal(m->sequences[2].alias_target, 2);     /* 0x60: none */
		m2_model_free(m);
		free(copy);
	}
	m2w_put32(&f, s2 + 12, M2_SEQ_ALIAS);
	m2w_put16(&f, s2 + 62, 7);
	m2x_fails(&f, s2 + 62, "sequence 2 is an alias (flag 0x40) of sequence 7, but the model "
		  "has 3 sequences");
	m2w_put16(&f, s2 + 62, 2);
	m2x_fails(&f, s2 + 62, "sequence 2 is an alias (flag 0x40) of itself");
	/* 0 -> 2 -> 0. */
	m2w_put16(&f, s2 + 62, 0);
	m2w_put32(&f, s0 + 12, M2_SEQ_ALIAS);
	m2w_put16(&f, s0 + 62, 2);
	m2x_fails(&f, s0 + 62, "sequence 0 is an alias (flag 0x40) whose chain 0 -> 2 -> 0 "
		  "never reaches a sequence that is not an alias");
	/* 1 -> 0 -> 2 -> 0: found from 0 first. */
	m2w_put32(&f, s1 + 12, M2_SEQ_ALIAS);
	m2w_put16(&f, s1 + 62, 0);
	m2x_fails(&f, s0 + 62, "chain 0 -> 2 -> 0");
	/* 0x20 beside 0x40 ends the chain at 2. */
	m2w_put32(&f, s2 + 12, M2_SEQ_ALIAS | M2_SEQ_IN_MODEL);
	{
		unsigned char *copy;
		struct m2_model *m = m2x_ok(&f, &copy);

		assert_int_equal(m->sequences[0].alias_target, 2);
		assert_int_equal(m->sequences[1].alias_target, 2);
		assert_int_equal(m->sequences[2].alias_target, 2);
		m2_model_free(m);
		free(copy);
	}
	m2w_file_free(&f);
}

static void test_bones(void **state)
{
	struct m2w_file f = demo();
	uint32_t b0 = f.bones, b1 = f.bones + 108, b2 = f.bones + 216;

	(void)state;
	m2w_put16(&f, b2 + 8, 40);
	m2x_fails(&f, b2 + 8, "bone 2 names parent 40, but the model has 3 bones");
	m2w_put16(&f, b2 + 8, (uint16_t)-2);
	m2x_fails(&f, b2 + 8, "bone 2 names parent -2: a parent is -1 (none) or a bone");
	m2w_put16(&f, b2 + 8, (uint16_t)-1);
	m2w_put16(&f, b1 + 8, 1);
	m2x_fails(&f, b1 + 8, "bone 1 names itself as its parent");
	m2w_put16(&f, b1 + 8, 2);
	/* The post under the lantern: 0 -> 1 -> 2 -> 0. */
	m2w_put16(&f, b2 + 8, 0);
	m2x_fails(&f, b0 + 8, "bone 0's parents loop back to it: 0 -> 1 -> 2 -> 0");
	/* A two-bone cycle beside a valid root. */
	m2w_put16(&f, b2 + 8, (uint16_t)-1);
	m2w_put16(&f, b1 + 8, 0);
	m2x_fails(&f, b0 + 8, "bone 0's parents loop back to it: 0 -> 1 -> 0");
	m2w_file_free(&f);
}

/* Long loops are shown to a dozen steps. */
static void test_long_loops(void **state)
{
	struct m2w_bone b[14];
	struct m2w_sequence seq[3] = {
		{ .flags = M2_SEQ_ALIAS, .alias_next = 1, .next_variation = -1 },
		{ .flags = M2_SEQ_ALIAS, .alias_next = 2, .next_variation = -1 },
		{ .flags = M2_SEQ_ALIAS, .alias_next = 1, .next_variation = -1 },
	};
	struct m2w_model w = { .bone_count = 14, .bones = b };
	struct m2w_file f;

	(void)state;
	memset(b, 0, sizeof b);
	for (int i = 0; i < 14; i++)
		b[i].parent = (int16_t)((i + 1) % 14);
	m2w_build(&w, &f);
	m2x_fails(&f, f.bones + 8, "bone 0's parents loop back to it: 0 -> 1 -> 2 -> 3 -> 4 -> 5 -> "
		  "6 -> 7 -> 8 -> 9 -> 10 -> 11 -> 12 -> ...");
	m2w_file_free(&f);
	/* 0 -> 1 -> 2 -> 1 (264: aliases): the loop does not come back to 0. */
	memset(&w, 0, sizeof w);
	w.version = 264;
	w.sequence_count = 3;
	w.sequences = seq;
	m2w_build(&w, &f);
	m2x_fails(&f, f.sequences + 62, "sequence 0 is an alias (flag 0x40) whose chain 0 -> 1 -> 2 "
		  "-> 1 -> 2 -> 1 -> 2 -> 1 -> 2 -> 1 -> 2 -> 1 -> 2 -> ... never reaches");
	m2w_file_free(&f);
}

static void test_track_header(void **state)
{
	struct m2w_file f = demo();
	uint32_t rot1 = m2w_bone_track(&f, 1, 1), scale0 = m2w_bone_track(&f, 0, 2);

	(void)state;
	m2w_put16(&f, rot1, 7);
	m2x_fails(&f, rot1, "bone 1 rotation: interpolation 7 is not 0..3 (0 step, 1 linear, "
		  "2 hermite, 3 bezier)");
	m2w_put16(&f, rot1, 1);
	m2w_put16(&f, scale0 + 2, 5);
	m2x_fails(&f, scale0 + 2, "bone 0 scale: global sequence 5 does not exist (the model "
		  "has 1)");
	m2w_put16(&f, scale0 + 2, 1);
	m2x_fails(&f, scale0 + 2, "bone 0 scale: global sequence 1 does not exist");
	m2w_put16(&f, scale0 + 2, (uint16_t)-2);
	m2x_fails(&f, scale0 + 2, "bone 0 scale: global sequence -2: it is -1 (none) or a global "
		  "sequence");
	m2w_file_free(&f);
}

static void test_track_ranges(void **state)
{
	struct m2w_file f = demo();
	uint32_t rot1 = m2w_bone_track(&f, 1, 1), rot2 = m2w_bone_track(&f, 2, 1);
	uint32_t r1 = track_array(&f, rot1, TR_RANGES), r2 = track_array(&f, rot2, TR_RANGES);

	(void)state;
	/* Fewer ranges than sequences: noted, the last sequence plays no key
	 * of the track.  More (the demo has one extra, as real files): never
	 * read, whatever they hold. */
	m2w_put32(&f, rot1 + TR_RANGES, 2);
	m2x_notes(&f, rot1 + TR_RANGES, "bone 1 rotation: 2 key ranges for 3 sequences: sequences "
		  "2 and after play no key of this track");
	m2w_put32(&f, rot1 + TR_RANGES, 4);
	m2w_put32(&f, r1 + 24, 9);
	m2w_put32(&f, r1 + 28, 1);      /* range 3: 9..1, past the sequences */
	{
		unsigned char *copy;
		struct m2_model *m = m2x_ok(&f, &copy);
		uint32_t first, end;

		assert_int_equal(m->bones[1].rotation.range_count, 4);
		assert_int_equal(m->notes.count, 1);    /* the playable lookup's */
		m2_model_free(m);
		free(copy);
		m2w_put32(&f, rot1 + TR_RANGES, 2);
		m = m2x_ok(&f, &copy);
		m2_track_keys(m, &m->bones[1].rotation, 2, &first, &end);
		assert_int_equal(end, first);
		m2_model_free(m);
		free(copy);
	}
	m2w_put32(&f, r1 + 24, 0);
	m2w_put32(&f, r1 + 28, 0);
	m2w_put32(&f, rot1 + TR_RANGES, 0);     /* none: fine */
	{
		unsigned char *copy;
		struct m2_model *m = m2x_ok(&f, &copy);

		assert_int_equal(m->bones[1].rotation.range_count, 0);
		m2_model_free(m);
		free(copy);
	}
	m2w_put32(&f, rot1 + TR_RANGES, 3);
	/* Sequence 1 (Closed) plays key 3..3: make it 3..2. */
	m2w_put32(&f, r1 + 12, 2);
	m2x_fails(&f, r1 + 8, "bone 1 rotation: range 1 is 3..2: it runs backwards");
	m2w_put32(&f, r1 + 12, 3);
	m2w_put32(&f, r1 + 4, 4);
	m2x_fails(&f, r1 + 4, "bone 1 rotation: range 0 is 0..4, past the track's last key "
		  "(4 keys)");
	m2w_put32(&f, r1 + 4, 2);
	/* A keyless track's ranges are never read. */
	m2w_put32(&f, r2 + 16, 1);
	m2x_notes(&f, r2 + 16, "bone 2 rotation: range 2 is 1..0, but the track has no keys "
		  "(ignored)");
	m2w_put32(&f, r2 + 16, 0);
	m2w_put32(&f, rot1 + TR_RANGES + 4, 0x40);
	m2x_fails(&f, rot1 + TR_RANGES, "bone 1 rotation ranges: 3 entries at 0x40, inside the "
		  "0x144-byte header");
	m2w_put32(&f, rot1 + TR_RANGES + 4, (uint32_t)f.len - 8);
	m2x_fails(&f, rot1 + TR_RANGES, "bone 1 rotation ranges: 3 x 8 bytes at");
	/* The extra ranges are bounds-checked all the same. */
	m2w_put32(&f, rot1 + TR_RANGES, 0x10000000u);
	m2x_fails(&f, rot1 + TR_RANGES, "bone 1 rotation ranges: 268435456 x 8 bytes at");
	m2w_file_free(&f);
}

static void test_track_keys(void **state)
{
	struct m2w_file f = demo();
	uint32_t rot1 = m2w_bone_track(&f, 1, 1);
	uint32_t t1 = track_array(&f, rot1, TR_TIMES);
	char msg[200];

	(void)state;
	m2w_put32(&f, t1 + 8, 900);
	m2x_fails(&f, t1 + 8, "bone 1 rotation: key 2 at 900 ms comes before key 1 at 1000 ms "
		  "(timestamps must not go back)");
	m2w_put32(&f, t1 + 8, 1000);    /* equal: fine */
	{
		unsigned char *copy;
		struct m2_model *m = m2x_ok(&f, &copy);

		m2_model_free(m);
		free(copy);
	}
	m2w_put32(&f, rot1 + TR_VALUES, 3);
	m2x_fails(&f, rot1 + TR_VALUES, "bone 1 rotation: 4 timestamps but 3 values (one value per "
		  "timestamp)");
	/* More values than timestamps: the last is never read (it still has
	 * to be inside the file). */
	m2w_put32(&f, rot1 + TR_VALUES, 5);
	m2x_notes(&f, rot1 + TR_VALUES, "bone 1 rotation: 5 values for 4 timestamps: the values "
		  "past the last timestamp are ignored");
	m2w_put32(&f, rot1 + TR_VALUES, 4);
	m2w_put32(&f, rot1 + TR_TIMES, 0xffffffffu);
	snprintf(msg, sizeof msg, "bone 1 rotation timestamps: 4294967295 x 4 bytes at 0x%x would "
		 "end at 0x%llx", t1, t1 + 0xffffffffull * 4);
	m2x_fails(&f, rot1 + TR_TIMES, msg);
	m2w_put32(&f, rot1 + TR_TIMES, 4);
	m2w_put32(&f, rot1 + TR_VALUES + 4, (uint32_t)f.len - 10);
	snprintf(msg, sizeof msg, "bone 1 rotation values: 4 x 16 bytes at 0x%zx would end at "
		 "0x%zx, but the data ends at 0x%zx", f.len - 10, f.len + 54, f.len);
	m2x_fails(&f, rot1 + TR_VALUES, msg);
	m2w_file_free(&f);
}

static void test_track_nan(void **state)
{
	struct m2w_file f = demo();
	uint32_t rot0 = m2w_bone_track(&f, 0, 1), scale0 = m2w_bone_track(&f, 0, 2);
	uint32_t rv = track_array(&f, rot0, TR_VALUES), sv = track_array(&f, scale0, TR_VALUES);
	uint32_t keep;

	(void)state;
	keep = m2w_get32(&f, rv + 2 * 16 + 4);
	m2w_put32(&f, rv + 2 * 16 + 4, 0x7fc00000u);    /* a NaN in key 2's y */
	m2x_fails(&f, rv + 2 * 16 + 4, "bone 0 rotation: key 2 holds a NaN or an infinity");
	m2w_put32(&f, rv + 2 * 16 + 4, keep);
	m2w_put32(&f, sv + 36 + 12, 0xff800000u);       /* -inf in key 1's in tangent */
	m2x_fails(&f, sv + 36 + 12, "bone 0 scale: key 1 holds a NaN or an infinity (its in "
		  "tangent)");
	m2w_put32(&f, sv + 36 + 12, 0);
	m2w_put32(&f, sv + 36 + 32, 0x7f800000u);       /* +inf in its out tangent */
	m2x_fails(&f, sv + 36 + 32, "(its out tangent)");
	m2w_put32(&f, sv + 36 + 32, 0);
	m2w_put32(&f, f.bones + 216 + 96 + 8, 0x7fa00000u);
	m2x_fails(&f, f.bones + 216 + 104, "bone 2 pivot: a NaN or an infinity");
	m2w_file_free(&f);
}

static void test_lookups(void **state)
{
	struct m2w_file f = demo();
	uint32_t anim = m2w_get32(&f, M2_HDR_ANIMATION_LOOKUP + 4);
	uint32_t play = m2w_get32(&f, M2_HDR_PLAYABLE_LOOKUP + 4);
	uint32_t key = m2w_get32(&f, M2_HDR_KEY_BONE_LOOKUP + 4);
	uint32_t bone = m2w_get32(&f, M2_HDR_BONE_LOOKUP + 4);
	uint32_t att = m2w_get32(&f, M2_HDR_ATTACHMENT_LOOKUP + 4);

	/* Nothing animd publishes reads the lookups: an entry that names
	 * nothing is noted (the first of each table), the file loads.  The
	 * demo's playable lookup holds real files' junk (-404, flags 0x28). */
	(void)state;
	m2x_notes(&f, play + 4, "the playable animation lookup entry 1 is -404, which names no "
		  "fallback entry (the model has 2 entries in that table)");
	m2w_put16(&f, play + 4, 1);
	m2w_put16(&f, anim + 2, 5);
	m2x_notes(&f, anim + 2, "the animation lookup entry 1 is 5, which names no sequence (the "
		  "model has 3 sequences)");
	m2w_put16(&f, anim + 2, (uint16_t)-1);  /* none: nothing to note */
	m2w_put16(&f, anim, (uint16_t)-3);
	m2x_notes(&f, anim, "the animation lookup entry 0 is -3, which names no sequence");
	m2w_put16(&f, anim, 0);
	m2w_put16(&f, key, 3);
	m2x_notes(&f, key, "the key-bone lookup entry 0 is 3, which names no bone (the model has "
		  "3 bones)");
	m2w_put16(&f, key, (uint16_t)-1);
	m2w_put16(&f, bone + 4, 0xffff);
	m2x_notes(&f, bone + 4, "the bone lookup entry 2 is 65535, which names no bone");
	m2w_put16(&f, bone + 4, 0);
	m2w_put16(&f, att + 22, 1);
	m2x_notes(&f, att + 22, "the attachment lookup entry 11 is 1, which names no attachment "
		  "(the model has 1 attachments)");
	m2w_put16(&f, att + 22, 0);
	/* The tables are bounds-checked all the same. */
	m2w_put32(&f, M2_HDR_PLAYABLE_LOOKUP, 0x40000000u);
	m2x_fails(&f, M2_HDR_PLAYABLE_LOOKUP, "the playable animation lookup: 1073741824 x 4 bytes");
	m2w_put32(&f, M2_HDR_PLAYABLE_LOOKUP, 2);
	{
		unsigned char *copy;
		struct m2_model *m = m2x_ok(&f, &copy);

		m2_model_free(m);
		free(copy);
	}
	m2w_file_free(&f);
}

static void test_vertices(void **state)
{
	struct m2w_file f = demo();
	uint32_t v4 = f.vertices + 4 * 48;

	(void)state;
	/* Weights that do not sum to 255 are skinned as stored (the game's
	 * shader divides by 255 whatever the sum): noted. */
	f.buf[v4 + 13] = 100;
	m2x_notes(&f, v4 + 12, "vertex 4: weights 128 + 100 + 0 + 0 sum to 228, not 255: skinned "
		  "as stored");
	f.buf[v4 + 13] = 128;
	m2x_notes(&f, v4 + 12, "sum to 256");
	f.buf[v4 + 13] = 127;
	f.buf[v4 + 17] = 3;
	m2x_fails(&f, v4 + 17, "vertex 4: influence 1 (weight 127) names bone 3, but the model has "
		  "3 bones");
	/* No weight, no check. */
	f.buf[v4 + 12] = 255;
	f.buf[v4 + 13] = 0;
	{
		unsigned char *copy;
		struct m2_model *m = m2x_ok(&f, &copy);

		assert_int_equal(m->vertices[4].bones[1], 3);
		m2_model_free(m);
		free(copy);
	}
	m2w_file_free(&f);
}

static void test_views(void **state)
{
	struct m2w_file f = demo();
	uint32_t v = f.views, list = m2w_get32(&f, v + 4), corners = m2w_get32(&f, v + 12);

	(void)state;
	m2w_put16(&f, list + 6, 16);
	m2x_fails(&f, list + 6, "view 0: vertex list entry 3 names vertex 16, but the model has 16 "
		  "vertices");
	m2w_put16(&f, list + 6, 12);
	m2w_put32(&f, v + 8, 71);
	m2x_fails(&f, v + 8, "view 0: its triangle list has 71 corners, not a whole number of "
		  "triangles (3 corners each)");
	m2w_put32(&f, v + 8, 72);
	m2w_put16(&f, corners + 10, 16);
	m2x_fails(&f, corners + 10, "view 0: triangle 1 corner 2 names entry 16 of the vertex list, "
		  "which has 16");
	m2w_put16(&f, corners + 10, 2);
	m2w_put32(&f, v + 24, 0xffffffffu);
	m2x_fails(&f, v + 24, "view 0 submeshes: 4294967295 x 32 bytes at");
	m2w_put32(&f, v + 24, 1);
	m2w_put32(&f, v + 36, (uint32_t)f.len);
	m2x_fails(&f, v + 32, "view 0 texture units: 1 x 24 bytes at");
	m2w_file_free(&f);
}

static void test_attachments_events(void **state)
{
	struct m2w_file f = demo();
	uint32_t a = f.attachments, e = f.events;
	uint32_t et = m2w_event_track(&f, 0), times = track_array(&f, et, TR_TIMES);

	(void)state;
	m2w_put16(&f, a + 4, 3);
	m2x_fails(&f, a + 4, "attachment 0 is attached to bone 3, but the model has 3 bones");
	m2w_put16(&f, a + 4, 0);
	m2w_put16(&f, m2w_attachment_track(&f, 0), 9);
	m2x_fails(&f, m2w_attachment_track(&f, 0), "attachment 0 animate: interpolation 9 is not "
		  "0..3");
	m2w_put16(&f, m2w_attachment_track(&f, 0), 0);
	/* Events feed no pose: their bone is noted, their timeline (unordered,
	 * half-open ranges of any count, even past the keys) read safely as
	 * stored; only their arrays' bounds are errors. */
	m2w_put32(&f, e + 8, 5);
	m2x_notes(&f, e + 8, "event 0 is attached to bone 5, but the model has 3 bones: it is "
		  "reported with no joint");
	m2w_put32(&f, e + 8, 1);
	m2w_put32(&f, times + 4, 400);
	m2w_put32(&f, et + TR_RANGES, 1);
	m2w_put32(&f, track_array(&f, et, TR_RANGES) + 4, 9);  /* [0, 9): past the 4 keys */
	{
		unsigned char *copy;
		struct m2_model *m = m2x_ok(&f, &copy);
		struct m2_keys k;

		m2_event_keys(m, &m->events[0].enabled, 0, &k);
		assert_int_equal(k.count, 4);
		m2_event_keys(m, &m->events[0].enabled, 2, &k);
		assert_int_equal(k.count, 0);
		m2_model_free(m);
		free(copy);
	}
	m2w_put32(&f, et + TR_TIMES, 0x40000000u);
	m2x_fails(&f, et + TR_TIMES, "event 0 track timestamps: 1073741824 x 4 bytes");
	m2w_file_free(&f);
}

static void test_emitters(void **state)
{
	struct m2w_file f = demo();
	uint32_t e = f.emitters, rate = m2w_emitter_track(&f, 0, M2_EMIT_RATE);
	uint32_t on = m2w_emitter_track(&f, 0, M2_EMIT_PARAMS);

	(void)state;
	m2w_put16(&f, e + 0x14, 3);
	m2x_fails(&f, e + 0x14, "particle emitter 0 is attached to bone 3, but the model has 3 "
		  "bones");
	m2w_put16(&f, e + 0x14, (uint16_t)-1);
	m2x_fails(&f, e + 0x14, "particle emitter 0 is attached to bone -1");
	m2w_put16(&f, e + 0x14, 0);
	assert_int_equal(rate, e + 0x34 + 6 * 28);
	m2w_put16(&f, rate, 4);
	m2x_fails(&f, rate, "particle emitter 0 emission rate: interpolation 4 is not 0..3");
	m2w_put16(&f, rate, 0);
	m2w_put16(&f, m2w_emitter_track(&f, 0, M2_EMIT_Z_SOURCE) + 2, 3);
	m2x_fails(&f, m2w_emitter_track(&f, 0, M2_EMIT_Z_SOURCE) + 2, "particle emitter 0 z "
		  "source: global sequence 3 does not exist");
	m2w_put16(&f, m2w_emitter_track(&f, 0, M2_EMIT_Z_SOURCE) + 2, (uint16_t)-1);
	assert_int_equal(on, e + 0x1dc);
	m2w_put32(&f, on + TR_VALUES, 1);
	m2x_fails(&f, on + TR_VALUES, "particle emitter 0 enabled: 2 timestamps but 1 values");
	m2w_put32(&f, on + TR_VALUES, 2);
	m2w_put32(&f, e + 0x1d4, 5);
	m2w_put32(&f, e + 0x1d8, (uint32_t)f.len - 12);
	m2x_fails(&f, e + 0x1d4, "particle emitter 0 spline points: 5 x 12 bytes at");
	m2w_put32(&f, e + 0x1d4, 0);
	m2w_put32(&f, e + 0x18, 9);
	m2w_put32(&f, e + 0x1c, (uint32_t)f.len - 8);
	m2x_fails(&f, e + 0x18, "particle emitter 0 model name: 9 bytes at");
	m2w_put32(&f, e + 0x18, 0);
	m2w_put32(&f, e + 0x20, 1);
	m2w_put32(&f, e + 0x24, 4);
	m2x_fails(&f, e + 0x20, "particle emitter 0 recursion model name: 1 entries at 0x4, inside "
		  "the 0x144-byte header");
	m2w_file_free(&f);
}

/* 3000 bones whose rotations all point at bone 0's 20000 keys: a
 * 0.7 MB file that would check 1 GB of keys.  Refused at the first bone
 * past the budget; a few bones sharing one track are fine. */
static void test_shared_arrays(void **state)
{
	enum { BONES = 3000, KEYS = 20000 };
	struct m2w_bone *b = calloc(BONES, sizeof *b);
	uint32_t *times = calloc(KEYS, sizeof *times);
	float *quats = calloc(KEYS, 4 * sizeof *quats);
	struct m2w_model w = { .bone_count = BONES };
	struct m2w_file f;
	uint32_t src, budget, per;

	(void)state;
	assert_true(b && times && quats);
	for (uint32_t k = 0; k < KEYS; k++)
		times[k] = k;
	for (uint32_t i = 0; i < BONES; i++)
		b[i].parent = -1;
	b[0].r = (struct m2w_track){ .interpolation = M2_INTERP_LINEAR, .count = KEYS,
				     .times = times, .values = quats };
	w.bones = b;
	m2w_build(&w, &f);
	src = m2w_bone_track(&f, 0, 1);
	for (uint32_t i = 1; i < 4; i++)
		memcpy(f.buf + m2w_bone_track(&f, i, 1), f.buf + src, M2_TRACK_BYTES);
	{
		unsigned char *copy;
		struct m2_model *m = m2x_ok(&f, &copy);

		assert_int_equal(m->bones[3].rotation.key_count, KEYS);
		m2_model_free(m);
		free(copy);
	}
	for (uint32_t i = 1; i < BONES; i++)
		memcpy(f.buf + m2w_bone_track(&f, i, 1), f.buf + src, M2_TRACK_BYTES);
	/* Each share costs 20 bytes a key; the first bone past 8 x the file
	 * plus 1 MiB is the one refused. */
	per = KEYS * 20;
	budget = (uint32_t)f.len * 8 + (1u << 20);
	m2x_fails(&f, m2w_bone_track(&f, budget / per, 1), "the arrays of the tracks and views so "
		  "far add up to more than 8 times the file's size");
	m2w_file_free(&f);
	free(b);
	free(times);
	free(quats);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_magic_version),
		cmocka_unit_test(test_too_large),
		cmocka_unit_test(test_header_pairs),
		cmocka_unit_test(test_sequences),
		cmocka_unit_test(test_bones),
		cmocka_unit_test(test_long_loops),
		cmocka_unit_test(test_aliases_264),
		cmocka_unit_test(test_track_header),
		cmocka_unit_test(test_track_ranges),
		cmocka_unit_test(test_track_keys),
		cmocka_unit_test(test_track_nan),
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_vertices),
		cmocka_unit_test(test_views),
		cmocka_unit_test(test_attachments_events),
		cmocka_unit_test(test_emitters),
		cmocka_unit_test(test_shared_arrays),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
