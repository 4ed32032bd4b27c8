/*
 * libFuzzer harness for the client library's stream reader
 * (client/lib/stream.c over proto/animd_shm.c): whatever bytes the shared
 * region holds, and however they change between reads, the reader must not
 * crash, and every pose it hands out must be a whole pose of the instance
 * asked for, as the region holds it at that moment.
 *
 * The region is a memfd sealed against shrinking and growing, as the
 * daemon makes it, mapped by ac_stream_map; the harness keeps a second,
 * writable mapping through which it plays the daemon (and a hostile one)
 * between reads.  Instances are registered with the client the way a play
 * reply registers them (ac_instances_add), so the reader's id translation
 * and channel hints are the real ones.  The input format is in
 * fuzz_stream.h.  Reads and writes alternate on one thread, so the region
 * is still while a read runs, which is what lets the harness check the
 * pose it got against the region.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <fcntl.h>

#include "client/lib/internal.h"
#include "tests/fuzz/fuzz_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Enough operations to lap rings and change owners; few enough that a
 * region of thousands of channels (each read scans them) stays quick. */
#define FUZZ_MAX_OPS 256

/* The daemon's ids of the registered instances. */
static const uint64_t fuzz_sids[FUZZ_STREAM_INSTANCES] = { 1, 2, 7, UINT64_C(1) << 40 };
/* An id no instance of this client has: before a reconnection the library
 * passes it through unchanged, after one it knows nothing of it. */
#define FUZZ_STRANGER 5u

struct fuzz {
	const uint8_t *in;
	size_t in_left;
	int fd;                         /* the memfd, kept for remapping */
	uint8_t *w;                     /* the writable view (NULL when empty) */
	size_t size;
	animc_client *c;
	animc_stream *s;
	uint64_t stream_id, epoch;
	bool mapped;
	struct animd_shm_header at_map; /* what the reader validated */
	struct ac_instance *inst[FUZZ_STREAM_INSTANCES];
	uint64_t lib_ids[FUZZ_STREAM_INSTANCES];
};

static void fuzz_check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_stream: %s\n", what);
		abort();
	}
}

/* The next `bytes` of input, little-endian; zeros once it is used up. */
static uint64_t fuzz_u(struct fuzz *f, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++) {
		uint64_t b = 0;

		if (f->in_left > 0) {
			b = *f->in++;
			f->in_left--;
		}
		v |= b << (8 * i);
	}
	return v;
}

static uint64_t fuzz_value(struct fuzz *f, uint64_t cur)
{
	static const uint64_t interesting[] = {
		0, 1, 2, 3, 64, 256, 4096, 0x7fffffffu, 0x80000000u, 0xffffffffu,
		UINT64_C(1) << 32, UINT64_C(1) << 48, UINT64_C(1) << 63, UINT64_MAX - 1, UINT64_MAX,
	};

	switch (fuzz_u(f, 1) % 4) {
	case 0: return fuzz_u(f, 8);
	case 1: return cur + (uint64_t)(int64_t)(int8_t)fuzz_u(f, 1);
	case 2: return interesting[fuzz_u(f, 1) % (sizeof interesting / sizeof interesting[0])];
	default: return fuzz_u(f, 1);
	}
}

/* Bounds-checked access to the writable view: offsets come from hostile
 * headers, so a write outside the region is dropped. */
static bool fuzz_fits(const struct fuzz *f, uint64_t off, uint64_t len)
{
	return f->w != NULL && off <= f->size && len <= f->size - off;
}

static uint64_t fuzz_peek(const struct fuzz *f, uint64_t off, unsigned width)
{
	uint64_t v = 0;

	if (fuzz_fits(f, off, width))
		memcpy(&v, f->w + off, width);
	return v;
}

static void fuzz_poke(struct fuzz *f, uint64_t off, unsigned width, uint64_t v)
{
	if (fuzz_fits(f, off, width))
		memcpy(f->w + off, &v, width);
}

/* The geometry writes are aimed with: the validated copy once mapped,
 * else whatever the live header says. */
static struct animd_shm_header fuzz_geometry(const struct fuzz *f)
{
	struct animd_shm_header h = { 0 };

	if (f->mapped)
		return f->at_map;
	if (fuzz_fits(f, 0, sizeof h))
		memcpy(&h, f->w, sizeof h);
	return h;
}

static uint64_t fuzz_channel_off(const struct animd_shm_header *h, uint32_t c)
{
	return h->channels_offset + (uint64_t)c * h->channel_bytes;
}

static uint64_t fuzz_slot_off(const struct animd_shm_header *h, uint32_t c, uint64_t k)
{
	uint64_t depth = h->slot_count != 0 ? h->slot_count : 1;

	return fuzz_channel_off(h, c) + sizeof(struct animd_shm_channel) +
	       (k % depth) * h->slot_bytes;
}

/* A channel of the validated layout that lies wholly in the region, for
 * the daemon's own writer functions; NULL if there is none. */
static struct animd_shm_channel *fuzz_channel_w(struct fuzz *f, uint32_t c)
{
	const struct animd_shm_header *h = &f->at_map;
	uint64_t off = fuzz_channel_off(h, c);

	if (!f->mapped || c >= h->channel_count ||
	    !fuzz_fits(f, off, sizeof(struct animd_shm_channel) +
				       (uint64_t)h->slot_bytes * h->slot_count))
		return NULL;
	return (struct animd_shm_channel *)(void *)(f->w + off);
}

static uint64_t fuzz_owner(struct fuzz *f)
{
	uint8_t b = (uint8_t)fuzz_u(f, 1);

	if (b % 7 == 0)
		return 0;
	if (b % 7 <= FUZZ_STREAM_INSTANCES)
		return fuzz_sids[b % 7 - 1];
	return b % 7 == 5 ? FUZZ_STRANGER : fuzz_u(f, 8);
}

/* Write pose n into a slot as the daemon's writer does between
 * write_begin and write_end: fields, payload words derived from n, and the
 * checksum its completed seq will carry. */
static void fuzz_fill_pose(const struct animd_shm_header *h, struct animd_shm_slot *slot,
			   uint64_t n, uint64_t owner, uint32_t count, uint32_t flags)
{
	size_t words = (size_t)count * h->element_stride / 4;
	uint8_t *p = animd_shm_payload(slot);

	for (size_t i = 0; i < words; i++) {
		uint32_t w = (uint32_t)(n * 2654435761u) + (uint32_t)i;

		memcpy(p + 4 * i, &w, 4);
	}
	slot->instance_id = owner;
	slot->tick = n;
	slot->clip_time = (double)n / 30.0;
	slot->generation = 1;
	slot->element_count = count;
	slot->flags = flags;
	slot->publish_ns = (int64_t)(n & 0xffffffffu);
	animd_shm_seal(slot, h, n);
}

/* A pose of the laid-out region, complete unless spoiled as asked. */
static void fuzz_fill_slot(const struct animd_shm_header *h, struct animd_shm_slot *slot,
			   uint64_t n, uint64_t owner, unsigned spoil)
{
	fuzz_fill_pose(h, slot, n, owner,
		       spoil & FUZZ_SPOIL_SHORT ? h->max_elements / 2 : h->max_elements, spoil >> 6);
	slot->seq = 2 * n + 2;
	if (spoil & FUZZ_SPOIL_ODD)
		slot->seq = 2 * n + 1;
	if (spoil & FUZZ_SPOIL_SEQ)
		slot->seq = 2 * n + 4;
	if (spoil & FUZZ_SPOIL_CHECKSUM)
		slot->checksum ^= 1;
	if (spoil & FUZZ_SPOIL_OWNER)
		slot->instance_id = owner == fuzz_sids[0] ? fuzz_sids[1] : fuzz_sids[0];
	if (spoil & FUZZ_SPOIL_COUNT)
		slot->element_count = h->max_elements + 1 + (spoil >> 6);
}

static int fuzz_memfd(struct fuzz *f, size_t size)
{
	f->fd = memfd_create("fuzz_stream", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (f->fd < 0 || ftruncate(f->fd, (off_t)size) < 0)
		return -1;
	f->size = size;
	if (size == 0)
		return 0;
	f->w = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	if (f->w == MAP_FAILED) {
		f->w = NULL;
		return -1;
	}
	return 0;
}

/* Raw mode: the region is the input's bytes. */
static int fuzz_region_raw(struct fuzz *f)
{
	size_t size = 16 * (size_t)fuzz_u(f, 2);
	size_t n = (size_t)fuzz_u(f, 2);

	if (fuzz_memfd(f, size) < 0)
		return -1;
	if (n > size)
		n = size;
	if (n > f->in_left)
		n = f->in_left;
	if (n > 0)
		memcpy(f->w, f->in, n);
	f->in += n;
	f->in_left -= n;
	f->stream_id = fuzz_peek(f, 24, 8);
	f->epoch = fuzz_peek(f, 16, 8);
	return 0;
}

/* Laid-out mode: a valid region with published poses, some spoiled. */
static int fuzz_region_laid_out(struct fuzz *f)
{
	struct animd_shm_header h;
	uint32_t space = (uint32_t)(fuzz_u(f, 1) % 5);
	uint32_t max = (uint32_t)(fuzz_u(f, 2) % FUZZ_STREAM_MAX_ELEMENTS) + 1;
	uint32_t channels = (uint32_t)(fuzz_u(f, 1) % FUZZ_STREAM_MAX_CHANNELS) + 1;
	uint32_t depth = 2u << (fuzz_u(f, 1) % FUZZ_STREAM_MAX_DEPTH_LOG2);
	uint8_t state = (uint8_t)fuzz_u(f, 1);

	fuzz_check(animd_shm_layout(&h, space, max, channels, depth) == 0, "layout refused");
	h.epoch = fuzz_u(f, 8);
	h.stream_id = 42;
	h.rate_hz = 60;
	h.state = state & 1 ? ANIMD_SHM_STATE_CLOSED : ANIMD_SHM_STATE_LIVE;
	h.ticks = state >> 1;
	if (fuzz_memfd(f, h.region_bytes) < 0)
		return -1;
	memcpy(f->w, &h, sizeof h);
	for (uint32_t c = 0; c < channels; c++) {
		struct animd_shm_channel *ch = animd_shm_channel(f->w, &h, c);

		ch->published = fuzz_u(f, 1);
		ch->instance_id = fuzz_owner(f);
	}
	for (uint32_t c = 0; c < channels; c++) {
		struct animd_shm_channel *ch = animd_shm_channel(f->w, &h, c);
		uint64_t p = ch->published;

		for (uint64_t k = 0; k < depth && k < p; k++)
			fuzz_fill_slot(&h, animd_shm_slot(ch, &h, p - 1 - k), p - 1 - k,
				       ch->instance_id, (unsigned)fuzz_u(f, 1));
	}
	f->stream_id = h.stream_id;
	f->epoch = h.epoch;
	return 0;
}

/* Hand the reader a descriptor of the region, as stream.open's reply does. */
static void fuzz_map(struct fuzz *f, bool wrong_id, bool wrong_size)
{
	const char *why = NULL;
	int fd = dup(f->fd);
	uint64_t announced = wrong_size ? f->size + 1 : f->size;
	int rc;

	fuzz_check(fd >= 0, "dup");
	rc = ac_stream_map(f->s, fd, wrong_id ? f->stream_id + 1 : f->stream_id, f->epoch,
			   announced, &why);
	if (rc == 0) {
		fuzz_check(why == NULL && f->s->base != NULL, "mapped with a reason");
		memcpy(&f->at_map, f->s->base, sizeof f->at_map);
		fuzz_check(animd_shm_validate(&f->at_map, f->size, NULL) == 0,
			   "mapped an invalid header");
		fuzz_check(memcmp(&f->at_map, &f->s->h, sizeof f->at_map) == 0,
			   "the kept header is not the one mapped");
		f->mapped = true;
	} else {
		fuzz_check(why != NULL, "refused without a reason");
		fuzz_check(rc == -EPROTO || rc == -ENOMEM, "refused with an unexpected error");
	}
}

static uint64_t fuzz_who(struct fuzz *f, uint64_t *sid)
{
	unsigned k = (unsigned)(fuzz_u(f, 1) % (FUZZ_STREAM_INSTANCES + 2));
	bool remapped = f->c->remapped;

	if (k < FUZZ_STREAM_INSTANCES) {
		*sid = f->inst[k] != NULL ? fuzz_sids[k] : remapped ? 0 : f->lib_ids[k];
		return f->lib_ids[k];
	}
	if (k == FUZZ_STREAM_INSTANCES) {
		*sid = remapped ? 0 : FUZZ_STRANGER;
		return FUZZ_STRANGER;
	}
	*sid = 0;
	return 0;
}

/* Pose `seq` of instance sid, as handed out, must be in some channel of
 * the region, whole (its seq even and its checksum right), its slot still
 * within the ring, and be what the caller got. */
static void fuzz_check_pose(const struct fuzz *f, uint64_t sid, const animc_pose_info *info,
			    const float *buf, bool latest)
{
	const struct animd_shm_header *h = &f->at_map;
	unsigned fpe = h->element_stride / 4;

	fuzz_check(info->floats_per_element == fpe && info->epoch == h->epoch &&
			   info->element_count <= h->max_elements,
		   "pose info disagrees with the header");
	for (uint32_t c = 0; c < h->channel_count; c++) {
		uint64_t ch_off = fuzz_channel_off(h, c), slot_off = fuzz_slot_off(h, c, info->seq);
		const struct animd_shm_channel *ch;
		const struct animd_shm_slot *slot;
		uint32_t count;

		/* The reader got here first: a channel outside the region would
		 * have been its fault, not this check's. */
		if (!fuzz_fits(f, ch_off, sizeof *ch) || !fuzz_fits(f, slot_off, h->slot_bytes))
			continue;
		ch = (const void *)(f->w + ch_off);
		slot = (const void *)(f->w + slot_off);
		count = slot->element_count;
		if (count > h->max_elements)
			count = h->max_elements;
		if (ch->published <= info->seq || (latest && ch->published - 1 != info->seq) ||
		    ch->published - info->seq >= h->slot_count || slot->seq != 2 * info->seq + 2 ||
		    slot->instance_id != sid || count != info->element_count ||
		    slot->tick != info->tick || slot->flags != info->flags ||
		    animd_shm_checksum(animd_shm_payload((void *)slot), (size_t)count * h->element_stride,
				       slot->seq) != slot->checksum)
			continue;
		if (buf == NULL ||
		    memcmp(buf, animd_shm_payload((void *)slot), (size_t)count * fpe * 4) == 0)
			return;
	}
	fuzz_check(false, "a pose handed out is not in the region");
}

static void fuzz_read(struct fuzz *f, bool latest)
{
	uint64_t sid, dropped = 0;
	uint64_t id = fuzz_who(f, &sid);
	unsigned how = (unsigned)(fuzz_u(f, 1) % 3);
	size_t full = animc_stream_pose_floats(f->s);
	size_t n = how == 0 ? 0 : how == 1 ? full : full / 2;
	float *buf = n > 0 ? malloc(n * sizeof *buf) : NULL;
	animc_pose_info info;
	int rc;

	fuzz_check(n == 0 || buf != NULL, "out of memory");
	memset(&info, 0, sizeof info);
	if (latest)
		rc = animc_stream_latest(f->s, id, buf, n, &info);
	else
		rc = animc_stream_next(f->s, id, buf, n, &info, &dropped);
	fuzz_check(rc == 0 || rc == -ENOENT || rc == -ENODATA || rc == -EAGAIN ||
			   rc == -ENOBUFS || rc == -ENOMEM,
		   "unexpected error");
	fuzz_check(f->mapped || rc == -ENOENT, "read from an unmapped stream");
	fuzz_check(sid != 0 || rc == -ENOENT, "read an instance the client cannot name");
	if (rc == 0 || rc == -ENOBUFS) {
		size_t need = (size_t)info.element_count * info.floats_per_element;

		fuzz_check(info.instance == id, "pose of another instance");
		fuzz_check(rc == 0 ? need <= n : need > n, "buffer size misjudged");
		fuzz_check_pose(f, sid, &info, rc == 0 ? buf : NULL, latest);
	}
	fuzz_check(latest || rc == 0 || dropped == 0, "dropped counted without a pose");
	free(buf);
}

static void fuzz_info(struct fuzz *f)
{
	const struct animd_shm_header *h = &f->at_map;
	animc_stream_info info;

	fuzz_check(animc_stream_info_get(f->s, &info) == 0, "info_get failed");
	if (!f->mapped) {
		fuzz_check(info.channels == 0 && animc_stream_pose_floats(f->s) == 0,
			   "info of an unmapped stream");
		return;
	}
	fuzz_check(info.id == f->s->id && info.epoch == h->epoch && info.channels == h->channel_count &&
			   info.depth == h->slot_count && info.max_elements == h->max_elements &&
			   info.region_bytes == h->region_bytes &&
			   info.floats_per_element == h->element_stride / 4 &&
			   info.rate_hz == h->rate_hz,
		   "info disagrees with the mapped header");
	fuzz_check(animc_stream_pose_floats(f->s) == (size_t)h->max_elements * info.floats_per_element,
		   "pose_floats disagrees with the header");
	fuzz_check(info.live == (!f->s->dead && fuzz_peek(f, 76, 4) == ANIMD_SHM_STATE_LIVE),
		   "live misreported");
}

static void fuzz_header(struct fuzz *f)
{
	/* The header's words, by offset: every field but the reserved bytes. */
	static const uint8_t off[] = { 0, 4, 8, 16, 24, 32, 36, 40, 44, 48, 52, 56, 64, 72, 76, 80 };
	static const uint8_t width[] = { 4, 4, 8, 8, 8, 4, 4, 4, 4, 4, 4, 8, 8, 4, 4, 8 };
	unsigned k = (unsigned)(fuzz_u(f, 1) % sizeof off);

	fuzz_poke(f, off[k], width[k], fuzz_value(f, fuzz_peek(f, off[k], width[k])));
}

static void fuzz_channel(struct fuzz *f)
{
	struct animd_shm_header h = fuzz_geometry(f);
	uint32_t c = (uint32_t)fuzz_u(f, 1);
	uint64_t at = fuzz_channel_off(&h, h.channel_count ? c % h.channel_count : c) +
		      (fuzz_u(f, 1) & 1) * 8;

	fuzz_poke(f, at, 8, fuzz_value(f, fuzz_peek(f, at, 8)));
}

static void fuzz_slot(struct fuzz *f)
{
	static const uint8_t off[] = { 0, 8, 16, 40, 44, 56 };
	static const uint8_t width[] = { 8, 8, 8, 4, 4, 4 };
	struct animd_shm_header h = fuzz_geometry(f);
	uint32_t c = (uint32_t)fuzz_u(f, 1);
	uint64_t slot = fuzz_slot_off(&h, h.channel_count ? c % h.channel_count : c, fuzz_u(f, 1));
	unsigned k = (unsigned)(fuzz_u(f, 1) % (sizeof off + 1));
	uint64_t count, payload;

	if (k < sizeof off) {
		fuzz_poke(f, slot + off[k], width[k],
			  fuzz_value(f, fuzz_peek(f, slot + off[k], width[k])));
		return;
	}
	/* Reseal: a checksum right for the slot's seq and payload as they are. */
	count = fuzz_peek(f, slot + 40, 4);
	if (count > h.max_elements)
		count = h.max_elements;
	payload = slot + sizeof(struct animd_shm_slot);
	if (payload < slot || !fuzz_fits(f, payload, count * h.element_stride))
		return;
	fuzz_poke(f, slot + 56, 4,
		  animd_shm_checksum(f->w + payload, (size_t)(count * h.element_stride),
				     fuzz_peek(f, slot, 8)));
}

/* A pose as the daemon publishes it, through its own writer. */
static void fuzz_publish(struct fuzz *f, bool finish)
{
	struct animd_shm_channel *ch = fuzz_channel_w(f, (uint32_t)fuzz_u(f, 1) %
							     (f->mapped ? f->at_map.channel_count : 1));
	uint64_t owner = finish ? fuzz_owner(f) : 0;
	uint32_t count = finish ? (uint32_t)(fuzz_u(f, 2) % (f->at_map.max_elements + 1)) : 0;
	struct animd_shm_slot *slot;
	uint64_t n;

	if (ch == NULL)
		return;
	/* A writer keeps its own count; this one takes the region's. */
	n = animd_shm_published(ch);
	slot = animd_shm_write_begin(ch, &f->at_map, n);
	if (!finish) {
		/* Torn: half the payload rewritten, never completed. */
		memset(animd_shm_payload(slot), 0x5a,
		       (size_t)f->at_map.max_elements * f->at_map.element_stride / 2);
		return;
	}
	fuzz_fill_pose(&f->at_map, slot, n, owner, count, 0);
	animd_shm_write_end(ch, slot, n);
}

static void fuzz_owner_op(struct fuzz *f)
{
	struct animd_shm_channel *ch = fuzz_channel_w(f, (uint32_t)fuzz_u(f, 1) %
							     (f->mapped ? f->at_map.channel_count : 1));
	uint64_t owner = fuzz_owner(f);

	if (ch != NULL)
		animd_shm_set_instance(ch, owner);
}

static void fuzz_state(struct fuzz *f)
{
	unsigned b = (unsigned)fuzz_u(f, 1);

	if (fuzz_fits(f, 0, sizeof(struct animd_shm_header))) {
		struct animd_shm_header *live = (void *)f->w;

		animd_shm_set_state(live, b & 1 ? ANIMD_SHM_STATE_CLOSED : ANIMD_SHM_STATE_LIVE);
		if (b & 4)
			animd_shm_set_ticks(live, b);
	}
	/* As after a reconnection that could not reopen the stream. */
	f->s->dead = (b & 2) != 0;
}

static void fuzz_poke_op(struct fuzz *f)
{
	unsigned width = fuzz_u(f, 1) & 1 ? 8 : 4;
	uint64_t at = fuzz_u(f, 3) / width * width;

	fuzz_poke(f, at, width, fuzz_value(f, fuzz_peek(f, at, width)));
}

static void fuzz_forget(struct fuzz *f)
{
	unsigned k = (unsigned)(fuzz_u(f, 1) % FUZZ_STREAM_INSTANCES);

	if (f->inst[k] != NULL)
		ac_instances_forget(f->c, f->inst[k]);
	f->inst[k] = NULL;
}

static void fuzz_register(struct fuzz *f)
{
	if (f->c->remapped)
		f->c->next_id = 100;
	for (unsigned k = 0; k < FUZZ_STREAM_INSTANCES; k++) {
		uint8_t b = (uint8_t)fuzz_u(f, 1);
		animc_instance st = {
			.asset = "fuzz.md5anim",
			.state = ANIMC_STATE_PLAYING,
			.speed = 1,
			.stream = f->mapped ? f->stream_id : 0,
			/* A channel hint, from none (-1) to out of range. */
			.channel = b >= 0xf0 ? INT32_MAX : (int32_t)(b % (FUZZ_STREAM_MAX_CHANNELS + 2)) - 1,
		};

		if (ac_instances_add(f->c, fuzz_sids[k], &st, &f->inst[k]) == 0)
			f->lib_ids[k] = f->inst[k]->id;
		else
			f->inst[k] = NULL;
	}
}

static void fuzz_ops(struct fuzz *f)
{
	for (int i = 0; i < FUZZ_MAX_OPS && f->in_left > 0; i++) {
		switch (fuzz_u(f, 1) % FUZZ_OP_COUNT) {
		case FUZZ_OP_LATEST: fuzz_read(f, true); break;
		case FUZZ_OP_NEXT: fuzz_read(f, false); break;
		case FUZZ_OP_INFO: fuzz_info(f); break;
		case FUZZ_OP_HEADER: fuzz_header(f); break;
		case FUZZ_OP_CHANNEL: fuzz_channel(f); break;
		case FUZZ_OP_SLOT: fuzz_slot(f); break;
		case FUZZ_OP_PUBLISH: fuzz_publish(f, true); break;
		case FUZZ_OP_TORN: fuzz_publish(f, false); break;
		case FUZZ_OP_OWNER: fuzz_owner_op(f); break;
		case FUZZ_OP_STATE: fuzz_state(f); break;
		case FUZZ_OP_POKE: fuzz_poke_op(f); break;
		case FUZZ_OP_REMAP: {
			unsigned how = (unsigned)fuzz_u(f, 1);

			fuzz_map(f, how & 1, how & 2);
			break;
		}
		case FUZZ_OP_FORGET: fuzz_forget(f); break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz f = { .in = data, .in_left = size, .fd = -1 };
	unsigned mode = (unsigned)fuzz_u(&f, 1);
	animc_stream_opts o = ANIMC_STREAM_OPTS_INIT;
	int rc;

	fuzz_check(animc_client_new(&f.c) == 0, "client_new");
	f.c->remapped = (mode & FUZZ_STREAM_REMAPPED) != 0;
	rc = mode & FUZZ_STREAM_LAID_OUT ? fuzz_region_laid_out(&f) : fuzz_region_raw(&f);
	if (rc < 0)
		goto out;       /* a region too large for this machine: not the reader's concern */
	if (!(mode & FUZZ_STREAM_UNSEALED))
		fuzz_check(fcntl(f.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0, "seal");
	{
		uint32_t space = (uint32_t)fuzz_peek(&f, 32, 4);

		o.space = space < 5 ? (animc_space)(space + 1) : ANIMC_SPACE_MODEL;
	}
	f.s = ac_stream_new(f.c, &o);
	fuzz_check(f.s != NULL, "stream_new");
	fuzz_map(&f, mode & FUZZ_STREAM_WRONG_ID, false);
	fuzz_check(!(mode & (FUZZ_STREAM_UNSEALED | FUZZ_STREAM_WRONG_ID)) || !f.mapped,
		   "mapped an unsealed region or another stream");
	fuzz_register(&f);
	fuzz_ops(&f);
out:
	animc_client_close(f.c);
	if (f.w != NULL)
		munmap(f.w, f.size);
	if (f.fd >= 0)
		close(f.fd);
	return 0;
}
