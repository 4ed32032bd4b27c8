/*
 * stream.c - reading a pose stream: the region the daemon shares through a
 * sealed memfd, mapped read-only.
 *
 * Trust: the region's header is validated (animd_shm_validate) against the
 * size of the mapping before any offset in it is used, and a copy of it is
 * kept: every offset afterwards comes from that copy, so a header changed
 * under us cannot point outside the mapping.  The memfd must be sealed
 * against shrinking, so that a mapped page can never vanish and fault
 * (SIGBUS) in the caller's process.
 *
 * Reads copy a pose out under the seqlock of proto/animd_shm.c (which holds
 * all the atomics) and check the payload checksum too; a copy that raced a
 * write is thrown away and retried, never returned.
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Tries before giving up on a whole copy: each failure means the writer
 * lapped this reader during one copy, which takes depth publishes. */
#define STREAM_TRIES 16

animc_stream *ac_stream_new(animc_client *c, const animc_stream_opts *o)
{
	animc_stream *s = calloc(1, sizeof *s);

	if (s == NULL)
		return NULL;
	s->c = c;
	s->serial = c->next_stream_serial++;
	s->opts = *o;
	ac_idmap_init(&s->cursors);
	s->next = c->streams;
	c->streams = s;
	return s;
}

static void stream_drop_cursors(animc_stream *s)
{
	for (size_t i = 0; i < s->cursors.cap; i++)
		free(s->cursors.vals[i]);
	ac_idmap_free(&s->cursors);
}

void ac_stream_free(animc_stream *s)
{
	animc_stream **p = &s->c->streams;

	while (*p != NULL && *p != s)
		p = &(*p)->next;
	if (*p == s)
		*p = s->next;
	if (s->base != NULL)
		munmap(s->base, s->map_bytes);
	free(s->scratch);
	stream_drop_cursors(s);
	free(s);
}

animc_stream *ac_stream_by_id(const animc_client *c, uint64_t id)
{
	for (animc_stream *s = c->streams; s != NULL; s = s->next)
		if (s->base != NULL && !s->dead && s->id == id)
			return s;
	return NULL;
}

animc_stream *ac_stream_by_serial(const animc_client *c, uint64_t serial)
{
	for (animc_stream *s = c->streams; s != NULL; s = s->next)
		if (s->serial == serial)
			return s;
	return NULL;
}

void ac_stream_forget_instance(animc_client *c, uint64_t id)
{
	for (animc_stream *s = c->streams; s != NULL; s = s->next)
		free(ac_idmap_del(&s->cursors, id));
}

int ac_stream_map(animc_stream *s, int fd, uint64_t id, uint64_t epoch, uint64_t region_bytes,
		  const char **why)
{
	struct animd_shm_header h;
	struct stat st;
	void *base, *scratch;
	size_t bytes, scratch_bytes;
	int seals, rc;

	*why = NULL;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		close(fd);
		*why = "cannot stat the stream's descriptor";
		return rc;
	}
	seals = fcntl(fd, F_GET_SEALS);
	if (!S_ISREG(st.st_mode) || seals < 0 || !(seals & F_SEAL_SHRINK)) {
		close(fd);
		*why = "the stream's descriptor is not a memfd sealed against shrinking";
		return -EPROTO;
	}
	if (st.st_size < (off_t)sizeof h || (uint64_t)st.st_size > ANIMD_SHM_MAX_REGION_BYTES ||
	    region_bytes > (uint64_t)st.st_size) {
		close(fd);
		*why = "the stream's region has the wrong size";
		return -EPROTO;
	}
	bytes = (size_t)st.st_size;
	base = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	rc = -errno;
	close(fd);
	if (base == MAP_FAILED) {
		*why = "cannot map the stream";
		return rc;
	}
	memcpy(&h, base, sizeof h);
	rc = animd_shm_validate(&h, bytes, why);
	if (rc == 0 && (h.stream_id != id || h.epoch != epoch ||
			h.space + 1 != (uint32_t)s->opts.space ||
			((h.features & ANIMD_SHM_FEATURE_NORMALS) != 0) != (s->opts.normals != 0))) {
		*why = "the stream's header does not match the reply";
		rc = -EPROTO;
	}
	scratch_bytes = sizeof(struct animd_shm_slot) + (size_t)h.element_stride * h.max_elements;
	scratch = rc == 0 ? malloc(scratch_bytes) : NULL;
	if (rc == 0 && scratch == NULL) {
		*why = "out of memory";
		rc = -ENOMEM;
	}
	if (rc < 0) {
		munmap(base, bytes);
		return rc == -EINVAL ? -EPROTO : rc;
	}
	/* A new mapping (after a reconnection): the old one goes, and with it
	 * every cursor, which counted poses of the old region. */
	if (s->base != NULL)
		munmap(s->base, s->map_bytes);
	free(s->scratch);
	stream_drop_cursors(s);
	s->base = base;
	s->map_bytes = bytes;
	s->h = h;
	s->id = id;
	s->dead = false;
	s->fpe = h.element_stride / 4;
	s->scratch = scratch;
	s->scratch_bytes = scratch_bytes;
	return 0;
}

static const struct animd_shm_channel *stream_channel(const animc_stream *s, uint32_t c)
{
	return animd_shm_channel(s->base, &s->h, c);
}

static int stream_read(animc_stream *s, const struct animd_shm_channel *ch, uint64_t n);

/* Does the newest pose of channel c belong to instance sid? */
static bool stream_newest_is(animc_stream *s, uint32_t c, uint64_t sid)
{
	const struct animd_shm_channel *ch = stream_channel(s, c);

	for (int tries = 0; tries < STREAM_TRIES; tries++) {
		uint64_t pub = animd_shm_published(ch);
		int rc;

		if (pub == 0)
			return false;
		rc = stream_read(s, ch, pub - 1);
		if (rc == 0)
			return ((const struct animd_shm_slot *)s->scratch)->instance_id == sid;
	}
	return false;
}

/*
 * A stream the daemon closed (or a daemon that stopped cleanly) frees every
 * channel, but the last poses stay in the mapping: find the channel whose
 * newest pose is the instance's, trying `hint` first.  UINT32_MAX if none,
 * or if the stream is live (then a free channel means the instance left).
 */
static uint32_t stream_closed_channel(animc_stream *s, uint64_t sid, uint32_t hint)
{
	if (animd_shm_state(s->base) == ANIMD_SHM_STATE_LIVE && !s->dead)
		return UINT32_MAX;
	if (hint < s->h.channel_count && stream_newest_is(s, hint, sid))
		return hint;
	for (uint32_t c = 0; c < s->h.channel_count; c++)
		if (stream_newest_is(s, c, sid))
			return c;
	return UINT32_MAX;
}

/* The cursor of `id` in this stream, with the channel its instance
 * publishes in now.  0, or -ENOENT. */
static int stream_cursor(animc_stream *s, uint64_t id, struct ac_cursor **out)
{
	uint64_t sid = ac_instances_to_server(s->c, id);
	const struct ac_instance *in;
	struct ac_cursor *cur;
	uint32_t hint = UINT32_MAX, c;

	if (s->base == NULL || sid == 0)
		return -ENOENT;
	cur = ac_idmap_get(&s->cursors, id);
	if (cur == NULL) {
		cur = calloc(1, sizeof *cur);
		if (cur == NULL)
			return -ENOMEM;
		if (ac_idmap_put(&s->cursors, id, cur) < 0) {
			free(cur);
			return -ENOMEM;
		}
	}
	if (cur->server_id != sid || cur->epoch != s->h.epoch) {
		memset(cur, 0, sizeof *cur);
		cur->server_id = sid;
		cur->epoch = s->h.epoch;
	}
	if (cur->have_channel && animd_shm_instance(stream_channel(s, cur->channel)) == sid)
		goto found;
	/* The play reply named the channel; otherwise look through them. */
	in = ac_instances_find(s->c, id);
	if (in != NULL && in->stream_serial == s->serial && in->channel >= 0)
		hint = (uint32_t)in->channel;
	if (hint < s->h.channel_count && animd_shm_instance(stream_channel(s, hint)) == sid) {
		c = hint;
	} else {
		for (c = 0; c < s->h.channel_count; c++)
			if (animd_shm_instance(stream_channel(s, c)) == sid)
				break;
		if (c == s->h.channel_count)
			c = stream_closed_channel(s, sid, cur->have_channel ? cur->channel : hint);
		if (c == UINT32_MAX) {
			free(ac_idmap_del(&s->cursors, id));
			return -ENOENT;
		}
	}
	/* A channel change starts the order afresh.  The same channel found
	 * again keeps it: a closed stream has freed every channel, so each
	 * read comes this way, and must not return its oldest pose forever. */
	if (!cur->have_channel || cur->channel != c) {
		cur->started = false;
		cur->dropped_pending = 0;
	}
	cur->channel = c;
	cur->have_channel = true;
found:
	*out = cur;
	return 0;
}

/* Copy pose n of a channel into the scratch slot: 0 when whole, -EAGAIN or
 * -ESTALE when lapped, -ENODATA when not published. */
static int stream_read(animc_stream *s, const struct animd_shm_channel *ch, uint64_t n)
{
	int rc = animd_shm_read(&s->h, ch, n, s->scratch, s->scratch_bytes);

	if (rc == 0 && !animd_shm_verify(s->scratch, s->h.element_stride))
		rc = -EAGAIN;
	return rc;
}

/* Hand the scratch slot (pose n of instance id) to the caller. */
static int stream_out(const animc_stream *s, uint64_t id, uint64_t n, float *buf,
		      size_t buf_floats, animc_pose_info *info)
{
	const struct animd_shm_slot *slot = s->scratch;
	size_t need = (size_t)slot->element_count * s->fpe;

	if (info != NULL) {
		info->instance = id;
		info->seq = n;
		info->tick = slot->tick;
		info->clip_time = slot->clip_time;
		info->generation = slot->generation;
		info->element_count = slot->element_count;
		info->floats_per_element = s->fpe;
		info->flags = slot->flags;
		info->publish_ns = slot->publish_ns;
		info->epoch = s->h.epoch;
		memset(info->reserved, 0, sizeof info->reserved);
	}
	if (need > buf_floats)
		return -ENOBUFS;
	if (need > 0)
		memcpy(buf, slot + 1, need * sizeof(float));
	return 0;
}

int animc_stream_latest(animc_stream *s, uint64_t instance, float *buf, size_t buf_floats,
			animc_pose_info *info)
{
	const struct animd_shm_channel *ch;
	struct ac_cursor *cur;
	int rc;

	if (s == NULL || (buf == NULL && buf_floats > 0))
		return -EINVAL;
	rc = stream_cursor(s, instance, &cur);
	if (rc < 0)
		return rc;
	ch = stream_channel(s, cur->channel);
	for (int tries = 0; tries < STREAM_TRIES; tries++) {
		uint64_t pub = animd_shm_published(ch);

		if (pub == 0)
			return -ENODATA;
		rc = stream_read(s, ch, pub - 1);
		if (rc == -EAGAIN || rc == -ESTALE || rc == -ENODATA)
			continue;
		if (rc < 0)
			return rc;
		/* The newest pose is still the channel's previous owner's. */
		if (((const struct animd_shm_slot *)s->scratch)->instance_id != cur->server_id)
			return -ENODATA;
		return stream_out(s, instance, pub - 1, buf, buf_floats, info);
	}
	return -EAGAIN;
}

int animc_stream_next(animc_stream *s, uint64_t instance, float *buf, size_t buf_floats,
		      animc_pose_info *info, uint64_t *dropped)
{
	const struct animd_shm_channel *ch;
	struct ac_cursor *cur;
	uint64_t n, lost = 0, depth;
	bool started;
	int rc;

	if (dropped != NULL)
		*dropped = 0;
	if (s == NULL || (buf == NULL && buf_floats > 0))
		return -EINVAL;
	rc = stream_cursor(s, instance, &cur);
	if (rc < 0)
		return rc;
	ch = stream_channel(s, cur->channel);
	depth = s->h.slot_count;
	n = cur->next;
	started = cur->started;
	rc = -EAGAIN;
	/* Enough tries to skip a ring of a previous owner's poses and still
	 * retry torn copies. */
	for (uint64_t tries = 0; tries < depth + STREAM_TRIES; tries++) {
		uint64_t pub = animd_shm_published(ch);
		/* Pose `pub` may be mid-write in the slot of pose pub - depth. */
		uint64_t oldest = pub >= depth ? pub - depth + 1 : 0;

		if (!started) {
			n = oldest;
			started = true;
		}
		if (n >= pub) {
			rc = -ENODATA;
			break;
		}
		if (n < oldest) {
			lost += oldest - n;
			n = oldest;
		}
		rc = stream_read(s, ch, n);
		if (rc == -EAGAIN || rc == -ESTALE || rc == -ENODATA)
			continue;
		if (rc < 0)
			return rc;
		if (((const struct animd_shm_slot *)s->scratch)->instance_id != cur->server_id) {
			n++;            /* a previous owner's pose: not ours to return */
			rc = -ENODATA;
			continue;
		}
		rc = stream_out(s, instance, n, buf, buf_floats, info);
		if (rc < 0)
			return rc;
		cur->next = n + 1;
		cur->started = true;
		if (dropped != NULL)
			*dropped = lost + cur->dropped_pending;
		cur->dropped_pending = 0;
		return 0;
	}
	if (rc == -ENODATA) {
		/* Nothing new: keep what was skipped, report the loss later. */
		cur->next = n;
		cur->started = started;
		cur->dropped_pending += lost;
	}
	/* Every try found pose n's slot holding another pose although the
	 * ring still counts n: no whole copy, which callers know as -EAGAIN
	 * (-ESTALE is animd_shm_read's word, not part of this contract). */
	return rc == -ESTALE ? -EAGAIN : rc;
}

/* The element's bytes as the daemon wrote them: a copy, never a cast
 * (the buffer is the caller's floats). */
int animc_stream_attachment(const float *buf, size_t i, animc_attachment_element *out)
{
	_Static_assert(sizeof *out == ANIMD_SHM_STRIDE_ATTACHMENT,
		       "the element is the stream's layout");
	_Static_assert(offsetof(animc_attachment_element, id) ==
		       offsetof(struct animd_shm_attachment, id), "layout");
	_Static_assert(offsetof(animc_attachment_element, joint) ==
		       offsetof(struct animd_shm_attachment, joint), "layout");

	if (buf == NULL || out == NULL)
		return -EINVAL;
	memcpy(out, buf + i * (ANIMD_SHM_STRIDE_ATTACHMENT / sizeof *buf), sizeof *out);
	return 0;
}

int animc_stream_info_get(const animc_stream *s, animc_stream_info *info)
{
	const struct animd_shm_header *live;

	if (s == NULL || info == NULL)
		return -EINVAL;
	memset(info, 0, sizeof *info);
	info->space = s->opts.space;
	if (s->base == NULL)
		return 0;
	live = s->base;
	info->id = s->id;
	info->epoch = s->h.epoch;
	info->rate_hz = s->h.rate_hz;
	info->channels = s->h.channel_count;
	info->depth = s->h.slot_count;
	info->max_elements = s->h.max_elements;
	info->floats_per_element = s->fpe;
	info->region_bytes = s->h.region_bytes;
	/* A counter for observers, ordered with nothing (as animd_shm.c
	 * writes it). */
	info->ticks = atomic_load_explicit((_Atomic uint64_t *)(void *)(uintptr_t)&live->ticks,
					   memory_order_relaxed);
	info->live = !s->dead && animd_shm_state(live) == ANIMD_SHM_STATE_LIVE;
	return 0;
}

size_t animc_stream_pose_floats(const animc_stream *s)
{
	return s != NULL && s->base != NULL ? (size_t)s->h.max_elements * s->fpe : 0;
}
