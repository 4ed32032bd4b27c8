/*
 * gen_stream_seeds DIR - starting inputs for the stream reader's fuzzer
 * (make fuzz), in the format of tests/fuzz/fuzz_stream.h: laid-out regions
 * with poses to read in order, laps, spoiled slots, owner changes and a
 * closed stream; a raw region holding a valid header and a published pose
 * (written with the daemon's writer), so byte mutations start from
 * something the reader accepts; and the refusals (unsealed, wrong id).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/animd_shm.h"
#include "tests/fuzz/fuzz_stream.h"

struct seed {
	unsigned char b[8192];
	size_t n;
};

static void put(struct seed *s, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		if (s->n < sizeof s->b)
			s->b[s->n++] = (unsigned char)(v >> (8 * i));
}

static void put_bytes(struct seed *s, const void *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		put(s, ((const unsigned char *)p)[i], 1);
}

/* Owner and reader selectors, as fuzz_stream.c decodes them. */
#define OWNER_FREE 0
#define OWNER(k) ((k) + 1)              /* registered instance k */
#define WHO(k) (k)
#define BUF_FULL 1

static void op(struct seed *s, enum fuzz_stream_op o, int a, int b)
{
	put(s, o, 1);
	if (a >= 0)
		put(s, (unsigned)a, 1);
	if (b >= 0)
		put(s, (unsigned)b, 1);
}

/* The laid-out prologue: geometry, then per channel (published, owner),
 * then a spoil byte per published slot (all from `spoil`), then hints. */
static void laid_out(struct seed *s, unsigned mode, unsigned space, unsigned elements,
		     unsigned channels, unsigned depth_log2, unsigned state,
		     const unsigned (*chan)[2], unsigned spoil)
{
	put(s, FUZZ_STREAM_LAID_OUT | mode, 1);
	put(s, space, 1);
	put(s, elements - 1, 2);
	put(s, channels - 1, 1);
	put(s, depth_log2 - 1, 1);
	put(s, state, 1);
	put(s, UINT64_C(0x0123456789abcdef), 8);
	for (unsigned c = 0; c < channels; c++) {
		put(s, chan[c][0], 1);
		put(s, chan[c][1], 1);
	}
	for (unsigned c = 0; c < channels; c++)
		for (unsigned k = 0; k < chan[c][0] && k < (2u << (depth_log2 - 1)); k++)
			put(s, k == 1 ? spoil : 0, 1);
	for (unsigned k = 0; k < FUZZ_STREAM_INSTANCES; k++)
		put(s, k + 1, 1);       /* hint: channel k */
}

static void reads(struct seed *s, unsigned who, int count)
{
	for (int i = 0; i < count; i++)
		op(s, FUZZ_OP_NEXT, WHO(who), BUF_FULL);
	op(s, FUZZ_OP_LATEST, WHO(who), BUF_FULL);
}

static int write_seed(const char *dir, const char *name, const struct seed *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s.stream", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(s->b, 1, s->n, f) != s->n || fclose(f) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

/* A camera stream: poses read in order, more published, one torn, the
 * channel handed to another instance, then the stream closed. */
static void seed_camera(struct seed *s)
{
	static const unsigned chan[2][2] = { { 6, OWNER(0) }, { 0, OWNER_FREE } };

	laid_out(s, 0, ANIMD_SHM_SPACE_CAMERA, 1, 2, 2, 0, chan, 0);
	reads(s, 0, 3);
	op(s, FUZZ_OP_PUBLISH, 0, OWNER(0));
	put(s, 1, 2);
	reads(s, 0, 2);
	op(s, FUZZ_OP_TORN, 0, -1);
	reads(s, 0, 1);
	op(s, FUZZ_OP_OWNER, 0, OWNER(1));
	op(s, FUZZ_OP_PUBLISH, 0, OWNER(1));
	put(s, 1, 2);
	reads(s, 1, 1);
	reads(s, 0, 1);
	op(s, FUZZ_OP_STATE, 1, -1);
	reads(s, 0, 1);
	op(s, FUZZ_OP_INFO, -1, -1);
}

/* Local space, three channels, a lapped ring with spoiled slots, ids
 * translated after a reconnection. */
static void seed_lapped(struct seed *s, unsigned mode, unsigned spoil)
{
	static const unsigned chan[3][2] = { { 20, OWNER(0) }, { 3, OWNER(1) }, { 9, OWNER(2) } };

	laid_out(s, mode, ANIMD_SHM_SPACE_LOCAL, 24, 3, 3, 0, chan, spoil);
	for (unsigned k = 0; k < 3; k++)
		reads(s, k, 4);
	for (int i = 0; i < 10; i++) {
		op(s, FUZZ_OP_PUBLISH, 0, OWNER(0));
		put(s, 24, 2);
	}
	reads(s, 0, 3);
	/* Channel 2, slot 0, field 0 (seq), value kind 1 (plus a delta): 1. */
	op(s, FUZZ_OP_SLOT, 2, 0);
	put(s, 0, 1);
	put(s, 1, 1);
	put(s, 1, 1);
	reads(s, 2, 2);
	op(s, FUZZ_OP_FORGET, 1, -1);
	reads(s, 1, 1);
	op(s, FUZZ_OP_REMAP, 0, -1);
	reads(s, 0, 1);
	op(s, FUZZ_OP_INFO, -1, -1);
}

/* Raw bytes: a valid two-channel camera region with one pose published. */
static void seed_raw(struct seed *s, unsigned mode)
{
	static unsigned char region[4096];
	struct animd_shm_header h;
	struct animd_shm_channel *ch;
	struct animd_shm_slot *slot;
	uint64_t n;

	if (animd_shm_layout(&h, ANIMD_SHM_SPACE_CAMERA, 1, 2, 2) != 0 ||
	    h.region_bytes > sizeof region || h.region_bytes % 16 != 0)
		abort();
	h.stream_id = 3;
	h.epoch = 11;
	h.state = ANIMD_SHM_STATE_LIVE;
	memset(region, 0, sizeof region);
	memcpy(region, &h, sizeof h);
	ch = animd_shm_channel(region, &h, 0);
	animd_shm_set_instance(ch, 1);
	/* A writer keeps its own count; this one takes the region's. */
	n = animd_shm_published(ch);
	slot = animd_shm_write_begin(ch, &h, n);
	slot->instance_id = 1;
	slot->element_count = 1;
	memset(animd_shm_payload(slot), 0x3f, h.element_stride);
	animd_shm_seal(slot, &h, n);
	animd_shm_write_end(ch, slot, n);
	put(s, mode, 1);
	put(s, h.region_bytes / 16, 2);
	put(s, h.region_bytes, 2);
	put_bytes(s, region, h.region_bytes);
	for (unsigned k = 0; k < FUZZ_STREAM_INSTANCES; k++)
		put(s, 1, 1);           /* hint: channel 0 */
	reads(s, 0, 2);
	op(s, FUZZ_OP_HEADER, 12, 0);   /* channel_bytes = a u64: */
	put(s, UINT64_C(1) << 63, 8);
	op(s, FUZZ_OP_REMAP, 0, -1);
	reads(s, 0, 1);
	op(s, FUZZ_OP_INFO, -1, -1);
}

int main(int argc, char **argv)
{
	static struct seed s;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_stream_seeds DIR\n");
		return 2;
	}
	memset(&s, 0, sizeof s);
	seed_camera(&s);
	rc |= write_seed(argv[1], "camera", &s);
	memset(&s, 0, sizeof s);
	seed_lapped(&s, 0, 0);
	rc |= write_seed(argv[1], "lapped", &s);
	memset(&s, 0, sizeof s);
	seed_lapped(&s, FUZZ_STREAM_REMAPPED, FUZZ_SPOIL_ODD | FUZZ_SPOIL_CHECKSUM);
	rc |= write_seed(argv[1], "remapped_spoiled", &s);
	memset(&s, 0, sizeof s);
	seed_lapped(&s, 0, FUZZ_SPOIL_OWNER | FUZZ_SPOIL_COUNT | FUZZ_SPOIL_SHORT);
	rc |= write_seed(argv[1], "owners_counts", &s);
	memset(&s, 0, sizeof s);
	seed_raw(&s, 0);
	rc |= write_seed(argv[1], "raw", &s);
	memset(&s, 0, sizeof s);
	seed_raw(&s, FUZZ_STREAM_UNSEALED);
	rc |= write_seed(argv[1], "raw_unsealed", &s);
	memset(&s, 0, sizeof s);
	seed_raw(&s, FUZZ_STREAM_WRONG_ID);
	rc |= write_seed(argv[1], "raw_wrong_id", &s);
	return rc != 0;
}
