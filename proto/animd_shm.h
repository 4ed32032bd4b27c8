/*
 * animd_shm.h - the byte layout of a pose stream: a shared-memory region the
 * daemon writes and clients map read-only (PROTOCOL.md, "Streams", is the
 * same contract as a table).  An ABI: fixed-width little-endian fields,
 * offsets instead of pointers, no bool or enum in memory, reserved space,
 * and a static assert on every size and offset.
 *
 *   region:  [header, 256 bytes] [channel 0] [channel 1] ... [channel N-1]
 *   channel: [channel header, 64 bytes] [slot 0] ... [slot depth-1]
 *   slot:    [slot header, 64 bytes] [payload: elements * stride bytes,
 *            padded to a multiple of 64]
 *
 * One channel carries the poses of one instance at a time, in a ring of
 * `depth` slots (a power of two).  Pose number n (counting from 0, per
 * channel, never reset while the stream lives) goes to slot n % depth.
 *
 * Seqlock (the only synchronisation; the writer never waits):
 *   writer, pose n:  slot.seq = 2n+1 (odd: being written); release fence;
 *                    write the slot's other fields and payload;
 *                    slot.seq = 2n+2 (store-release);
 *                    channel.published = n+1 (store-release).
 *   reader of pose n: s1 = slot.seq (load-acquire); s1 must be 2n+2;
 *                    copy the slot; acquire fence; s2 = slot.seq;
 *                    s1 == s2 means the copy is whole, else retry or
 *                    report that the reader was lapped.
 * The newest pose is published - 1; the oldest still in the ring is
 * published - depth + 1 (the slot of pose `published` may be mid-write).
 */
#ifndef ANIMD_SHM_H
#define ANIMD_SHM_H

#include <stddef.h>
#include <stdint.h>

#define ANIMD_SHM_MAGIC 0x444d4e41u          /* "ANMD" in little-endian bytes */
#define ANIMD_SHM_LAYOUT_VERSION 1u
#define ANIMD_SHM_ALIGN 64u

/* What a slot's payload holds (header.space); element stride in bytes. */
enum animd_shm_space {
	ANIMD_SHM_SPACE_LOCAL = 0,      /* per joint: t xyz, r xyzw, s xyz: 10 float32 */
	ANIMD_SHM_SPACE_MODEL = 1,      /* per joint: 3x4 row-major matrix: 12 float32 */
	ANIMD_SHM_SPACE_SKIN = 2,       /* per joint: 3x4 model x inverse bind: 12 float32 */
	ANIMD_SHM_SPACE_VERTICES = 3,   /* per vertex, meshes in file order: xyz: 3 float32 */
	ANIMD_SHM_SPACE_CAMERA = 4,     /* one element: position xyz, orientation xyzw, fov deg */
	ANIMD_SHM_SPACE_EMITTERS = 5,   /* per M2 particle emitter: struct animd_shm_emitter */
	ANIMD_SHM_SPACE_ATTACHMENTS = 6,        /* per M2 attachment point: struct animd_shm_attachment */
	ANIMD_SHM_SPACE_WEIGHTS = 7,    /* per glTF morph target weight: 1 float32 */
};

#define ANIMD_SHM_STRIDE_LOCAL 40u
#define ANIMD_SHM_STRIDE_MATRIX 48u
#define ANIMD_SHM_STRIDE_VERTEX 12u
#define ANIMD_SHM_STRIDE_CAMERA 32u
#define ANIMD_SHM_STRIDE_EMITTER 96u
#define ANIMD_SHM_STRIDE_ATTACHMENT 64u
#define ANIMD_SHM_STRIDE_WEIGHT 4u
/* A vertices stream with ANIMD_SHM_FEATURE_NORMALS: position xyz, then the
 * skinned unit normal xyz (zero where the mesh has none), per vertex. */
#define ANIMD_SHM_STRIDE_VERTEX_NORMAL 24u

/* header.features: what a space's elements carry beyond its basics. */
#define ANIMD_SHM_FEATURE_NORMALS 0x1u  /* vertices: each with its normal */
#define ANIMD_SHM_FEATURES_KNOWN ANIMD_SHM_FEATURE_NORMALS

/* One element of an emitters payload: float32 each, little-endian. */
struct animd_shm_emitter {
	float m[12];                    /*  0: model-space 3x4, row-major, translation last column */
	float params[10];               /* 48: emission_speed, speed_variation, vertical_range,
					   horizontal_range, gravity, lifespan, emission_rate,
					   area_length, area_width, z_source */
	float enabled;                  /* 88: 1 on, 0 off */
	float reserved;                 /* 92: 0 */
};

/* One element of an attachments payload, little-endian: the float32
 * matrix and value, then what says which point it is (so a reader needs
 * nothing but the stream to hang a model on it). */
struct animd_shm_attachment {
	float m[12];                    /*  0: model-space 3x4, row-major, translation last column:
					   the joint's skin matrix times T(position) */
	float animate;                  /* 48: 1 the model hung there animates, 0 not */
	uint32_t id;                    /* 52: the file's attachment id (1 right hand, 11 head, ...) */
	uint32_t joint;                 /* 56: the joint it hangs on (index in the skeleton) */
	uint32_t reserved;              /* 60: 0 */
};

/* header.state */
#define ANIMD_SHM_STATE_LIVE 1u         /* the daemon publishes into it */
#define ANIMD_SHM_STATE_CLOSED 2u       /* closed or the daemon stopped: no more poses */

/* slot.flags */
#define ANIMD_SHM_SLOT_PAUSED 0x1u      /* the instance was paused when sampled */
#define ANIMD_SHM_SLOT_ENDED 0x2u       /* a clip played once has reached its end */
#define ANIMD_SHM_SLOT_IN_PLACE 0x4u    /* root motion in_place (else raw) */

struct animd_shm_header {
	uint32_t magic;                 /*   0: ANIMD_SHM_MAGIC */
	uint16_t layout_version;        /*   4: ANIMD_SHM_LAYOUT_VERSION */
	uint16_t header_bytes;          /*   6: sizeof(struct animd_shm_header) */
	uint64_t region_bytes;          /*   8: the whole mapping */
	uint64_t epoch;                 /*  16: random per daemon run: a restart changes it */
	uint64_t stream_id;             /*  24: as stream.open returned it */
	uint32_t space;                 /*  32: enum animd_shm_space */
	uint32_t element_stride;        /*  36: payload bytes per element */
	uint32_t max_elements;          /*  40: joints (or vertices) a slot can hold */
	uint32_t channel_count;         /*  44: channels in the region */
	uint32_t slot_count;            /*  48: depth: slots per channel, a power of two */
	uint32_t slot_bytes;            /*  52: bytes per slot, a multiple of 64 */
	uint64_t channels_offset;       /*  56: offset of channel 0 */
	uint64_t channel_bytes;         /*  64: distance between channels */
	uint32_t rate_hz;               /*  72: ticks per second (0: on demand only) */
	uint32_t state;                 /*  76: ANIMD_SHM_STATE_* (atomic) */
	uint64_t ticks;                 /*  80: scheduler ticks so far (atomic) */
	uint32_t features;              /*  88: ANIMD_SHM_FEATURE_* (0: none) */
	uint8_t reserved[164];          /*  92: zero */
};

struct animd_shm_channel {
	uint64_t published;             /*   0: poses published so far (atomic) */
	uint64_t instance_id;           /*   8: who publishes here now; 0: free (atomic) */
	uint8_t reserved[48];           /*  16: zero */
};

struct animd_shm_slot {
	uint64_t seq;                   /*   0: seqlock: 2n+1 writing pose n, 2n+2 done (atomic) */
	uint64_t instance_id;           /*   8 */
	uint64_t tick;                  /*  16: the stream's tick that published it */
	double clip_time;               /*  24: seconds, where playback was in the clip */
	uint64_t generation;            /*  32: the asset version sampled */
	uint32_t element_count;         /*  40: joints (vertices) in the payload */
	uint32_t flags;                 /*  44: ANIMD_SHM_SLOT_* */
	int64_t publish_ns;             /*  48: daemon CLOCK_MONOTONIC when written */
	uint32_t checksum;              /*  56: animd_shm_checksum of the payload */
	uint32_t reserved;              /*  60: zero */
};

_Static_assert(sizeof(struct animd_shm_header) == 256, "header is 256 bytes");
_Static_assert(offsetof(struct animd_shm_header, region_bytes) == 8, "layout");
_Static_assert(offsetof(struct animd_shm_header, epoch) == 16, "layout");
_Static_assert(offsetof(struct animd_shm_header, stream_id) == 24, "layout");
_Static_assert(offsetof(struct animd_shm_header, space) == 32, "layout");
_Static_assert(offsetof(struct animd_shm_header, element_stride) == 36, "layout");
_Static_assert(offsetof(struct animd_shm_header, max_elements) == 40, "layout");
_Static_assert(offsetof(struct animd_shm_header, channel_count) == 44, "layout");
_Static_assert(offsetof(struct animd_shm_header, slot_count) == 48, "layout");
_Static_assert(offsetof(struct animd_shm_header, slot_bytes) == 52, "layout");
_Static_assert(offsetof(struct animd_shm_header, channels_offset) == 56, "layout");
_Static_assert(offsetof(struct animd_shm_header, channel_bytes) == 64, "layout");
_Static_assert(offsetof(struct animd_shm_header, rate_hz) == 72, "layout");
_Static_assert(offsetof(struct animd_shm_header, state) == 76, "layout");
_Static_assert(offsetof(struct animd_shm_header, ticks) == 80, "layout");
_Static_assert(offsetof(struct animd_shm_header, features) == 88, "layout");
_Static_assert(offsetof(struct animd_shm_header, reserved) == 92, "layout");
_Static_assert(sizeof(struct animd_shm_channel) == 64, "channel header is one cache line");
_Static_assert(offsetof(struct animd_shm_channel, instance_id) == 8, "layout");
_Static_assert(sizeof(struct animd_shm_slot) == 64, "slot header is one cache line");
_Static_assert(offsetof(struct animd_shm_slot, instance_id) == 8, "layout");
_Static_assert(offsetof(struct animd_shm_slot, tick) == 16, "layout");
_Static_assert(offsetof(struct animd_shm_slot, clip_time) == 24, "layout");
_Static_assert(offsetof(struct animd_shm_slot, generation) == 32, "layout");
_Static_assert(offsetof(struct animd_shm_slot, element_count) == 40, "layout");
_Static_assert(offsetof(struct animd_shm_slot, flags) == 44, "layout");
_Static_assert(offsetof(struct animd_shm_slot, publish_ns) == 48, "layout");
_Static_assert(offsetof(struct animd_shm_slot, checksum) == 56, "layout");
_Static_assert(sizeof(struct animd_shm_emitter) == ANIMD_SHM_STRIDE_EMITTER, "emitter element");
_Static_assert(offsetof(struct animd_shm_emitter, params) == 48, "layout");
_Static_assert(offsetof(struct animd_shm_emitter, enabled) == 88, "layout");
_Static_assert(sizeof(struct animd_shm_attachment) == ANIMD_SHM_STRIDE_ATTACHMENT,
	       "attachment element");
_Static_assert(offsetof(struct animd_shm_attachment, animate) == 48, "layout");
_Static_assert(offsetof(struct animd_shm_attachment, id) == 52, "layout");
_Static_assert(offsetof(struct animd_shm_attachment, joint) == 56, "layout");
_Static_assert(offsetof(struct animd_shm_attachment, reserved) == 60, "layout");
_Static_assert(sizeof(double) == 8 && sizeof(float) == 4, "IEEE-754 binary32/64");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the stream layout is little-endian; this target is not"
#endif

/* Limits the daemon enforces on stream.open. */
#define ANIMD_SHM_MAX_CHANNELS 65536u
#define ANIMD_SHM_MAX_SLOTS 1024u
#define ANIMD_SHM_MAX_ELEMENTS (1u << 20)
#define ANIMD_SHM_MAX_REGION_BYTES (UINT64_C(1) << 32)

/* Payload stride of a space, 0 for an unknown one; and of a space with
 * features (0 for a feature the space cannot have, or an unknown one). */
uint32_t animd_shm_stride(uint32_t space);
uint32_t animd_shm_feature_stride(uint32_t space, uint32_t features);

/* Compute the layout for a stream: fills every geometry field of *h
 * (magic, version, sizes, offsets; not epoch, ids, rate or state).
 * 0, or -EINVAL when a parameter is out of range or the region would
 * exceed ANIMD_SHM_MAX_REGION_BYTES. */
int animd_shm_layout(struct animd_shm_header *h, uint32_t space, uint32_t max_elements,
		     uint32_t channels, uint32_t slots);
/* The same with features (header.features). */
int animd_shm_layout_features(struct animd_shm_header *h, uint32_t space, uint32_t features,
			      uint32_t max_elements, uint32_t channels, uint32_t slots);

/* Validate a header read from an untrusted mapping of `mapped_bytes`:
 * magic, version, sizes, every offset and product within the mapping.
 * 0 or -EPROTO / -EINVAL with a reason in `why` (may be NULL). */
int animd_shm_validate(const struct animd_shm_header *h, uint64_t mapped_bytes,
		       const char **why);

/* Where channel c and slot k of it live, for a validated header. */
static inline struct animd_shm_channel *animd_shm_channel(void *base,
							  const struct animd_shm_header *h,
							  uint32_t c)
{
	return (struct animd_shm_channel *)((char *)base + h->channels_offset +
					    (uint64_t)c * h->channel_bytes);
}

static inline struct animd_shm_slot *animd_shm_slot(struct animd_shm_channel *ch,
						    const struct animd_shm_header *h, uint64_t n)
{
	return (struct animd_shm_slot *)((char *)ch + sizeof *ch +
					 (n & (h->slot_count - 1)) * (uint64_t)h->slot_bytes);
}

static inline void *animd_shm_payload(struct animd_shm_slot *s)
{
	return (char *)s + sizeof *s;
}

/* The payload checksum, for readers that want to prove a copy whole (the
 * seqlock already guarantees it): with w[i] the payload's 32-bit
 * little-endian words (element_count * element_stride bytes) and s the
 * slot's completed seq,
 *     checksum = (uint32)(s * 0x9E3779B1) + sum over i of (w[i] XOR i)
 * in wrapping 32-bit arithmetic.  Cheap enough to compute for every pose
 * (it vectorises with plain SSE2), and a copy mixing two poses fails it
 * unless the differences cancel exactly. */
uint32_t animd_shm_checksum(const void *payload, size_t bytes, uint64_t seq);
/* 1 if a copy made by animd_shm_read carries a matching checksum. */
int animd_shm_verify(const void *copy, uint32_t element_stride);

/* ---- writer (the daemon) --------------------------------------------- */

/*
 * The writer never reads the region back: `h` is the daemon's own copy of
 * the layout (the one animd_shm_layout filled), `base` the mapping, and the
 * pose count n of a channel is the daemon's own too.  What is in shared
 * memory is only ever written by these functions, so a reader that could
 * scribble on the region (it cannot: the memfd is sealed) still could not
 * steer the writer outside it.
 *
 * Start pose n of a channel: the slot is marked odd.  Returns the slot;
 * fill instance_id, tick, clip_time, generation, element_count, flags,
 * publish_ns and the payload, then call animd_shm_write_end.
 */
struct animd_shm_slot *animd_shm_write_begin(struct animd_shm_channel *ch,
					     const struct animd_shm_header *h, uint64_t n);
/* Compute the slot's checksum from its payload (element_count set); do it
 * before stamping publish_ns so the stamp is as late as possible. */
void animd_shm_seal(struct animd_shm_slot *slot, const struct animd_shm_header *h, uint64_t n);
/* The payload of pose n from the writer's own buffer: element_count
 * elements copied into the slot, the checksum computed from the source in
 * the same pass (the pose is read once, from the writer's cache) and
 * element_count set: a write_begin'd slot is then ready for publish_ns and
 * animd_shm_write_end.  On x86-64 the copy uses streaming stores, which
 * reach memory in the background: a writer with several slots to fill
 * evaluates its next pose before it ends this one (write_end waits for
 * them), and the slot stays odd meanwhile. */
void animd_shm_write_payload(struct animd_shm_slot *slot, const struct animd_shm_header *h,
			     uint64_t n, const void *src, uint32_t element_count);
/* write_payload's copy alone: `bytes` (a multiple of 4) from src to dst
 * (64-byte aligned, as a slot's payload is) with the kernel write_payload
 * uses, returning the checksum of pose n's payload.  No fence: streaming
 * stores are not ordered before what follows (write_payload's and
 * write_end's fences see to that in a slot). */
uint32_t animd_shm_copy_sum(void *dst, const void *src, size_t bytes, uint64_t n);
/* The copy's kernels, widest last: plain C (any CPU), AVX2 (32-byte
 * streaming stores), AVX-512 (a line per store).  write_payload takes the
 * widest the CPU has, at most the one animd_shm_copy_limit set (for tests,
 * which prove each against the plain one; not thread-safe).  Returns the
 * kernel now in use. */
#define ANIMD_SHM_COPY_PLAIN 0
#define ANIMD_SHM_COPY_AVX2 1
#define ANIMD_SHM_COPY_AVX512 2
int animd_shm_copy_limit(int max);
/* Ask for the header lines of pose n's slot and of its channel in a
 * writable state, ahead of writing them (the payload goes with streaming
 * stores, see animd_shm_write_payload).  Only a hint. */
void animd_shm_prefetch_slot(struct animd_shm_channel *ch, const struct animd_shm_header *h,
			     uint64_t n);
/* Complete the slot (sealed) and publish it: the channel's count is n + 1. */
void animd_shm_write_end(struct animd_shm_channel *ch, struct animd_shm_slot *slot, uint64_t n);
void animd_shm_set_instance(struct animd_shm_channel *ch, uint64_t instance_id);
void animd_shm_set_state(struct animd_shm_header *region, uint32_t state);
void animd_shm_set_ticks(struct animd_shm_header *region, uint64_t ticks);

/* ---- readers (clients) ------------------------------------------------ */

uint64_t animd_shm_published(const struct animd_shm_channel *ch);
uint64_t animd_shm_instance(const struct animd_shm_channel *ch);
uint32_t animd_shm_state(const struct animd_shm_header *h);

/*
 * Copy pose n of a channel into out (the slot header, 64 bytes, then the
 * payload: at most out_bytes - 64 bytes, element_count clamped to what
 * fits).  0 when the copy is whole (the seqlock held); -EAGAIN when the
 * slot was overwritten during the copy (the reader was lapped mid-copy:
 * retry with a newer pose); -ESTALE when pose n is no longer in the ring
 * (lapped); -ENODATA when it is not published yet.
 */
int animd_shm_read(const struct animd_shm_header *h, const struct animd_shm_channel *ch,
		   uint64_t n, void *out, size_t out_bytes);

#endif
