/*
 * fuzz_stream.h - the input format of the stream reader's fuzz harness
 * (tests/fuzz/fuzz_stream.c), shared with the seed generator
 * (tests/gen/gen_stream_seeds.c) so the two cannot drift apart.  All
 * numbers little-endian; a read past the end of the input gives zeros, so
 * every input is a valid one.
 *
 *   u8 mode        FUZZ_STREAM_* flags below
 *   raw mode:      u16 size16 (the region is 16 * size16 bytes), u16 n,
 *                  n bytes copied to the region's start (the rest zero)
 *   laid-out mode: u8 space, u16 max_elements, u8 channels, u8 depth,
 *                  u8 state, u64 epoch; then per channel u8 published and
 *                  u8 owner; then per published slot u8 spoil
 *                  (FUZZ_SPOIL_*), in channel order, newest pose first
 *   then           u8 per registered instance: its channel hint;
 *                  then operations until the input ends: u8 op
 *                  (FUZZ_OP_*, taken modulo FUZZ_OP_COUNT) and its
 *                  arguments (see fuzz_stream.c).
 */
#ifndef FUZZ_STREAM_H
#define FUZZ_STREAM_H

/* mode */
#define FUZZ_STREAM_LAID_OUT 0x01u      /* else the region's bytes are the input's */
#define FUZZ_STREAM_REMAPPED 0x02u      /* library ids differ from the daemon's */
#define FUZZ_STREAM_WRONG_ID 0x04u      /* the reply names another stream id */
#define FUZZ_STREAM_UNSEALED 0x08u      /* no seals: the library must refuse it */

/* Limits that keep a laid-out region under 320 KB (and the checksums,
 * computed for every pose read, cheap). */
#define FUZZ_STREAM_MAX_ELEMENTS 64u
#define FUZZ_STREAM_MAX_CHANNELS 6u
#define FUZZ_STREAM_MAX_DEPTH_LOG2 4u   /* depth 2 << (byte % 4): 2..16 */

/* Instances registered with the client: the daemon's ids. */
#define FUZZ_STREAM_INSTANCES 4u

/* spoil: how a published slot differs from a good pose */
#define FUZZ_SPOIL_ODD 0x01u            /* seq odd: mid-write */
#define FUZZ_SPOIL_SEQ 0x02u            /* seq of another pose */
#define FUZZ_SPOIL_CHECKSUM 0x04u
#define FUZZ_SPOIL_OWNER 0x08u          /* a previous owner's pose */
#define FUZZ_SPOIL_COUNT 0x10u          /* element_count above max_elements */
#define FUZZ_SPOIL_SHORT 0x20u          /* fewer elements than max */

enum fuzz_stream_op {
	FUZZ_OP_LATEST,         /* u8 who, u8 buffer */
	FUZZ_OP_NEXT,           /* u8 who, u8 buffer */
	FUZZ_OP_INFO,
	FUZZ_OP_HEADER,         /* u8 field, value */
	FUZZ_OP_CHANNEL,        /* u8 channel, u8 field, value */
	FUZZ_OP_SLOT,           /* u8 channel, u8 slot, u8 field, value */
	FUZZ_OP_PUBLISH,        /* u8 channel, u8 owner, u8 elements: a whole pose */
	FUZZ_OP_TORN,           /* u8 channel: a pose begun and not finished */
	FUZZ_OP_OWNER,          /* u8 channel, u8 owner */
	FUZZ_OP_STATE,          /* u8 state */
	FUZZ_OP_POKE,           /* u8 width, u24 offset, value */
	FUZZ_OP_REMAP,          /* u8 how */
	FUZZ_OP_FORGET,         /* u8 who */
	FUZZ_OP_COUNT
};

/* value: u8 kind, then per kind: 0 u64; 1 s8 added to the current value;
 * 2 u8 index into interesting values; 3 u8. */

#endif
