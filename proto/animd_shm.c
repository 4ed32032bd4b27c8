/*
 * animd_shm.c - the stream layout's arithmetic and its seqlock: the only
 * code in animd with atomics.  Each barrier says what it orders.
 *
 * The payload itself is written and copied with plain memcpy between the
 * seqlock's fences, the classic seqlock pattern (as in the Linux kernel):
 * a copy that raced a write is detected by the sequence changing and is
 * thrown away, never returned.
 */
#include "proto/animd_shm.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* The layout's atomic fields are plain uint64_t/uint32_t in the ABI; these
 * view them as atomics (same size and representation on every platform we
 * build for). */
#define A64(p) ((_Atomic uint64_t *)(void *)(p))
#define A32(p) ((_Atomic uint32_t *)(void *)(p))

uint32_t animd_shm_stride(uint32_t space)
{
	switch (space) {
	case ANIMD_SHM_SPACE_LOCAL: return ANIMD_SHM_STRIDE_LOCAL;
	case ANIMD_SHM_SPACE_MODEL:
	case ANIMD_SHM_SPACE_SKIN: return ANIMD_SHM_STRIDE_MATRIX;
	case ANIMD_SHM_SPACE_VERTICES: return ANIMD_SHM_STRIDE_VERTEX;
	case ANIMD_SHM_SPACE_CAMERA: return ANIMD_SHM_STRIDE_CAMERA;
	case ANIMD_SHM_SPACE_EMITTERS: return ANIMD_SHM_STRIDE_EMITTER;
	case ANIMD_SHM_SPACE_ATTACHMENTS: return ANIMD_SHM_STRIDE_ATTACHMENT;
	case ANIMD_SHM_SPACE_WEIGHTS: return ANIMD_SHM_STRIDE_WEIGHT;
	default: return 0;
	}
}

uint32_t animd_shm_feature_stride(uint32_t space, uint32_t features)
{
	if (features == 0)
		return animd_shm_stride(space);
	if (space == ANIMD_SHM_SPACE_VERTICES && features == ANIMD_SHM_FEATURE_NORMALS)
		return ANIMD_SHM_STRIDE_VERTEX_NORMAL;
	return 0;
}

static uint64_t shm_round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

int animd_shm_layout(struct animd_shm_header *h, uint32_t space, uint32_t max_elements,
		     uint32_t channels, uint32_t slots)
{
	return animd_shm_layout_features(h, space, 0, max_elements, channels, slots);
}

int animd_shm_layout_features(struct animd_shm_header *h, uint32_t space, uint32_t features,
			      uint32_t max_elements, uint32_t channels, uint32_t slots)
{
	uint32_t stride = animd_shm_feature_stride(space, features);
	uint64_t slot_bytes, channel_bytes, region;

	if (stride == 0 || max_elements == 0 || max_elements > ANIMD_SHM_MAX_ELEMENTS ||
	    channels == 0 || channels > ANIMD_SHM_MAX_CHANNELS || slots < 2 ||
	    slots > ANIMD_SHM_MAX_SLOTS || (slots & (slots - 1)) != 0)
		return -EINVAL;
	slot_bytes = shm_round_up(sizeof(struct animd_shm_slot) + (uint64_t)stride * max_elements,
				  ANIMD_SHM_ALIGN);
	channel_bytes = sizeof(struct animd_shm_channel) + slot_bytes * slots;
	region = sizeof *h + channel_bytes * channels;
	if (slot_bytes > UINT32_MAX || region > ANIMD_SHM_MAX_REGION_BYTES)
		return -EINVAL;
	memset(h, 0, sizeof *h);
	h->magic = ANIMD_SHM_MAGIC;
	h->layout_version = ANIMD_SHM_LAYOUT_VERSION;
	h->header_bytes = sizeof *h;
	h->region_bytes = region;
	h->space = space;
	h->features = features;
	h->element_stride = stride;
	h->max_elements = max_elements;
	h->channel_count = channels;
	h->slot_count = slots;
	h->slot_bytes = (uint32_t)slot_bytes;
	h->channels_offset = sizeof *h;
	h->channel_bytes = channel_bytes;
	return 0;
}

int animd_shm_validate(const struct animd_shm_header *h, uint64_t mapped_bytes,
		       const char **why)
{
	const char *reason = NULL;
	uint64_t payload;

	if (mapped_bytes < sizeof *h)
		reason = "mapping is smaller than the header";
	else if (h->magic != ANIMD_SHM_MAGIC)
		reason = "bad magic: not an animd stream";
	else if (h->layout_version != ANIMD_SHM_LAYOUT_VERSION)
		reason = "unsupported layout version";
	else if (h->header_bytes != sizeof *h || h->channels_offset < sizeof *h ||
		 h->channels_offset % ANIMD_SHM_ALIGN != 0)
		reason = "bad header size or channel offset";
	else if (h->region_bytes > mapped_bytes)
		reason = "region is larger than the mapping";
	else if (animd_shm_feature_stride(h->space, h->features) == 0 ||
		 h->element_stride != animd_shm_feature_stride(h->space, h->features))
		reason = "unknown space or features, or wrong element stride";
	else if (h->slot_count < 2 || h->slot_count > ANIMD_SHM_MAX_SLOTS ||
		 (h->slot_count & (h->slot_count - 1)) != 0)
		reason = "slot count is not a power of two in range";
	else if (h->channel_count == 0 || h->channel_count > ANIMD_SHM_MAX_CHANNELS ||
		 h->max_elements == 0 || h->max_elements > ANIMD_SHM_MAX_ELEMENTS)
		reason = "channel or element count out of range";
	else {
		payload = (uint64_t)h->element_stride * h->max_elements;
		if (h->slot_bytes % ANIMD_SHM_ALIGN != 0 ||
		    h->slot_bytes < sizeof(struct animd_shm_slot) + payload)
			reason = "slot too small for its elements";
		else if (h->channel_bytes < sizeof(struct animd_shm_channel) +
						    (uint64_t)h->slot_bytes * h->slot_count ||
			 h->channel_bytes % ANIMD_SHM_ALIGN != 0)
			reason = "channel too small for its slots";
		/* Divided, not multiplied: channel_bytes is any u64 the peer
		 * chose, and a product that wraps would pass. */
		else if (h->channels_offset > h->region_bytes ||
			 h->channel_bytes > (h->region_bytes - h->channels_offset) / h->channel_count)
			reason = "channels run past the region";
	}
	if (why != NULL)
		*why = reason;
	return reason == NULL ? 0 : (h->magic != ANIMD_SHM_MAGIC ? -EPROTO : -EINVAL);
}

uint32_t animd_shm_checksum(const void *payload, size_t bytes, uint64_t seq)
{
	const unsigned char *p = payload;
	size_t words = bytes / 4, i = 0;
	uint32_t lane[8] = { 0 };
	uint32_t sum = (uint32_t)(seq * 0x9E3779B1u);

	/* Eight independent lanes: adds and xors only, so the compiler
	 * vectorises it with plain SSE2 (this runs for every pose published). */
	for (; i + 8 <= words; i += 8)
		for (unsigned k = 0; k < 8; k++) {
			uint32_t w;

			memcpy(&w, p + 4 * (i + k), 4);
			lane[k] += w ^ (uint32_t)(i + k);
		}
	for (; i < words; i++) {
		uint32_t w;

		memcpy(&w, p + 4 * i, 4);
		sum += w ^ (uint32_t)i;
	}
	for (unsigned k = 0; k < 8; k++)
		sum += lane[k];
	return sum;
}

int animd_shm_verify(const void *copy, uint32_t element_stride)
{
	const struct animd_shm_slot *s = copy;

	return animd_shm_checksum((const char *)copy + sizeof *s,
				  (size_t)s->element_count * element_stride, s->seq) == s->checksum;
}

struct animd_shm_slot *animd_shm_write_begin(struct animd_shm_channel *ch,
					     const struct animd_shm_header *h, uint64_t n)
{
	struct animd_shm_slot *slot = animd_shm_slot(ch, h, n);

	atomic_store_explicit(A64(&slot->seq), 2 * n + 1, memory_order_relaxed);
	/* Orders the odd mark before every write to the slot that follows, so a
	 * reader that sees any of the new bytes also sees the slot as odd. */
	atomic_thread_fence(memory_order_release);
	return slot;
}

void animd_shm_seal(struct animd_shm_slot *slot, const struct animd_shm_header *h, uint64_t n)
{
	slot->checksum = animd_shm_checksum(animd_shm_payload(slot),
					    (size_t)slot->element_count * h->element_stride,
					    2 * n + 2);
}

#if defined(__x86_64__)
/* The wrapping sum of eight 32-bit lanes (vector adds wrap; the compiler's
 * own reductions add as signed int, which must not overflow). */
__attribute__((target("avx2"))) static inline uint32_t sum_lanes8(__m256i v)
{
	__m128i half = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));

	half = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0x4e));
	half = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0xb1));
	return (uint32_t)_mm_cvtsi128_si32(half);
}

/* The checksum's sum of (w[i] XOR i), i counting from `first`, eight lanes
 * at a time, computed from the source as it is copied: the payload is read
 * once, from the writer's cache.  The slot's lines are written with
 * streaming stores: a ring's slots were last written a ring's length of
 * ticks ago and are no longer in the cache, and a plain store would first
 * fetch each line only to overwrite it. */
__attribute__((target("avx2"))) static uint32_t copy_sum_avx2(unsigned char *dst,
							     const unsigned char *src,
							     size_t bytes, uint32_t first,
							     size_t *done)
{
	__m256i idx = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
				       _mm256_set1_epi32((int)first));
	__m256i eight = _mm256_set1_epi32(8);
	__m256i acc = _mm256_setzero_si256();
	size_t i = 0;

	/* The payload starts 64 bytes into a 64-aligned slot. */
	for (; i + 32 <= bytes; i += 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));

		acc = _mm256_add_epi32(acc, _mm256_xor_si256(v, idx));
		idx = _mm256_add_epi32(idx, eight);
		_mm256_stream_si256((__m256i *)(void *)(dst + i), v);
	}
	*done = i;
	return sum_lanes8(acc);
}

/* The same a whole line at a time: one streaming store fills a line's
 * write-combining buffer at once, and half as many stores wait in the
 * store buffer behind the next pose's work. */
__attribute__((target("avx512f"))) static uint32_t copy_sum_avx512(unsigned char *dst,
								 const unsigned char *src,
								 size_t bytes, size_t *done)
{
	__m512i idx = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	__m512i sixteen = _mm512_set1_epi32(16), acc = _mm512_setzero_si512();
	size_t i = 0;

	for (; i + 64 <= bytes; i += 64) {
		__m512i v = _mm512_loadu_si512((const void *)(src + i));

		acc = _mm512_add_epi32(acc, _mm512_xor_si512(v, idx));
		idx = _mm512_add_epi32(idx, sixteen);
		_mm512_stream_si512((void *)(dst + i), v);
	}
	*done = i;
	return sum_lanes8(_mm256_add_epi32(_mm512_castsi512_si256(acc),
					   _mm512_extracti64x4_epi64(acc, 1)));
}
#endif

/* The widest copy animd_shm_copy_limit allows. */
static int copy_max = ANIMD_SHM_COPY_AVX512;

/* The kernel write_payload uses: the widest the CPU has, up to copy_max. */
static int copy_kernel(void)
{
#if defined(__x86_64__)
	if (copy_max >= ANIMD_SHM_COPY_AVX512 && __builtin_cpu_supports("avx512f"))
		return ANIMD_SHM_COPY_AVX512;
	if (copy_max >= ANIMD_SHM_COPY_AVX2 && __builtin_cpu_supports("avx2"))
		return ANIMD_SHM_COPY_AVX2;
#endif
	return ANIMD_SHM_COPY_PLAIN;
}

int animd_shm_copy_limit(int max)
{
	copy_max = max;
	return copy_kernel();
}

/* The copy and its checksum with the given kernel (copy_kernel's). */
static uint32_t copy_sum_with(int kernel, unsigned char *to, const unsigned char *from,
			      size_t bytes, uint64_t n)
{
	uint32_t sum = (uint32_t)((2 * n + 2) * 0x9E3779B1u);
	size_t done = 0;

#if defined(__x86_64__)
	if (kernel >= ANIMD_SHM_COPY_AVX2) {
		size_t lines = 0;

		if (kernel == ANIMD_SHM_COPY_AVX512)
			sum += copy_sum_avx512(to, from, bytes, &lines);
		sum += copy_sum_avx2(to + lines, from + lines, bytes - lines,
				     (uint32_t)(lines / 4), &done);
		done += lines;
	}
#else
	(void)kernel;
#endif
	/* The rest (all of it without AVX2): whole words, each summed as it
	 * is copied. */
	for (size_t words = done / 4; done + 4 <= bytes; done += 4, words++) {
		uint32_t w;

		memcpy(&w, from + done, 4);
		memcpy(to + done, &w, 4);
		sum += w ^ (uint32_t)words;
	}
	return sum;
}

uint32_t animd_shm_copy_sum(void *dst, const void *src, size_t bytes, uint64_t n)
{
	return copy_sum_with(copy_kernel(), dst, src, bytes, n);
}

void animd_shm_write_payload(struct animd_shm_slot *slot, const struct animd_shm_header *h,
			     uint64_t n, const void *src, uint32_t element_count)
{
	int kernel = copy_kernel();

	slot->element_count = element_count;
#if defined(__x86_64__)
	/* Streaming stores are not ordered after the odd mark (a plain
	 * store): this fence is.  Their own fence is in write_end. */
	if (kernel >= ANIMD_SHM_COPY_AVX2)
		_mm_sfence();
#endif
	slot->checksum = copy_sum_with(kernel, animd_shm_payload(slot), src,
				       (size_t)element_count * h->element_stride, n);
}

void animd_shm_prefetch_slot(struct animd_shm_channel *ch, const struct animd_shm_header *h,
			     uint64_t n)
{
	const char *p = (const char *)animd_shm_slot(ch, h, n);
	const char *c = (const char *)ch;

#if defined(__x86_64__)
	/* PREFETCHW: every x86-64 CPU decodes it (those that predate it as a
	 * no-op); the compiler emits it only with -mprfchw. */
	__asm__("prefetchw %0" : : "m"(*p));
	__asm__("prefetchw %0" : : "m"(*c));
#else
	__builtin_prefetch(p, 1, 3);
	__builtin_prefetch(c, 1, 3);
#endif
}

void animd_shm_write_end(struct animd_shm_channel *ch, struct animd_shm_slot *slot, uint64_t n)
{
#if defined(__x86_64__)
	/* Every streaming store of write_payload is globally visible before
	 * what follows (plain stores are ordered among themselves). */
	_mm_sfence();
#endif
	/* Release: the slot's contents happen-before the even mark. */
	atomic_store_explicit(A64(&slot->seq), 2 * n + 2, memory_order_release);
	/* Release: the completed slot happens-before readers learn it exists. */
	atomic_store_explicit(A64(&ch->published), n + 1, memory_order_release);
}

void animd_shm_set_instance(struct animd_shm_channel *ch, uint64_t instance_id)
{
	/* Release: poses published before the hand-over stay ordered before it. */
	atomic_store_explicit(A64(&ch->instance_id), instance_id, memory_order_release);
}

void animd_shm_set_state(struct animd_shm_header *region, uint32_t state)
{
	/* Release: every pose published before closing is visible to a reader
	 * that sees the stream closed. */
	atomic_store_explicit(A32(&region->state), state, memory_order_release);
}

void animd_shm_set_ticks(struct animd_shm_header *region, uint64_t ticks)
{
	/* A counter for observers: nothing is ordered by it. */
	atomic_store_explicit(A64(&region->ticks), ticks, memory_order_relaxed);
}

uint64_t animd_shm_published(const struct animd_shm_channel *ch)
{
	/* Acquire: pairs with write_end's release, so slot n-1 is complete. */
	return atomic_load_explicit(A64(&ch->published), memory_order_acquire);
}

uint64_t animd_shm_instance(const struct animd_shm_channel *ch)
{
	return atomic_load_explicit(A64(&ch->instance_id), memory_order_acquire);
}

uint32_t animd_shm_state(const struct animd_shm_header *h)
{
	return atomic_load_explicit(A32(&h->state), memory_order_acquire);
}

int animd_shm_read(const struct animd_shm_header *h, const struct animd_shm_channel *ch,
		   uint64_t n, void *out, size_t out_bytes)
{
	uint64_t published = animd_shm_published(ch);
	const struct animd_shm_slot *slot;
	struct animd_shm_slot *copy = out;
	uint64_t s1, s2, want = 2 * n + 2;
	size_t room, payload;

	if (out_bytes < sizeof *slot)
		return -EINVAL;
	if (n >= published)
		return -ENODATA;
	/* n < published: the difference cannot wrap, n + slot_count could. */
	if (published - n >= h->slot_count)
		return -ESTALE;
	slot = animd_shm_slot((struct animd_shm_channel *)ch, h, n);
	/* Acquire: the slot's contents as of this even mark are visible. */
	s1 = atomic_load_explicit(A64(&slot->seq), memory_order_acquire);
	if (s1 != want)
		return -ESTALE;
	memcpy(copy, slot, sizeof *slot);
	room = (out_bytes - sizeof *slot) / h->element_stride;
	if (copy->element_count > h->max_elements)
		copy->element_count = h->max_elements;
	if (copy->element_count > room)
		copy->element_count = (uint32_t)room;
	payload = (size_t)copy->element_count * h->element_stride;
	memcpy(copy + 1, slot + 1, payload);
	/* Acquire fence: the copies above are ordered before the re-check, so a
	 * writer that started overwriting during them has changed seq. */
	atomic_thread_fence(memory_order_acquire);
	s2 = atomic_load_explicit(A64(&slot->seq), memory_order_relaxed);
	if (s2 != s1)
		return -EAGAIN;
	copy->seq = s1;
	return 0;
}
