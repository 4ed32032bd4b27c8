/*
 * soak_stream.c - a soak client's shared-memory streams: each descriptor
 * that comes with a stream.open reply is mapped read-only and checked, and
 * poses are read from it with the seqlock (proto/animd_shm.c's reader).  A
 * copy the seqlock accepted whose checksum fails is a torn read: there must
 * be none.  Poses must hold finite numbers only.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/soak/soak_conn.h"

static enum soak_space stream_space_of(const msgpack_object *res)
{
	char name[16];

	if (rpc_get_str(res, "space", name, sizeof name) == 0)
		for (int s = 0; s < SOAK_SPACE_COUNT; s++)
			if (strcmp(name, soak_assets_space_name((enum soak_space)s)) == 0)
				return (enum soak_space)s;
	return SOAK_SPACE_COUNT;
}

void soak_stream_opened(struct soak_conn *c, const msgpack_object *res)
{
	struct soak_stream *s = &c->streams[c->nstreams];
	int64_t id, region, epoch;
	const char *why = NULL;
	struct stat sb;
	int fd = rpc_client_take_fd(&c->rc);

	if (fd < 0) {
		soak_stats_fail(c->st, "stream.open: the reply came without a descriptor");
		return;
	}
	if (rpc_get_i64(res, "stream", &id) < 0 || rpc_get_i64(res, "region_bytes", &region) < 0 ||
	    rpc_get_i64(res, "epoch", &epoch) < 0 || stream_space_of(res) == SOAK_SPACE_COUNT) {
		soak_stats_fail(c->st, "stream.open: the reply lacks stream, space, region_bytes or epoch");
		close(fd);
		return;
	}
	if (c->nstreams == SOAK_STREAMS_MAX) {
		soak_stats_fail(c->st, "stream.open: more than %d streams were granted",
				SOAK_STREAMS_MAX);
		close(fd);
		return;
	}
	if (fstat(fd, &sb) < 0 || (uint64_t)sb.st_size != (uint64_t)region) {
		soak_stats_fail(c->st, "stream %lld: the descriptor's size is not region_bytes",
				(long long)id);
		close(fd);
		return;
	}
	memset(s, 0, sizeof *s);
	s->id = (uint64_t)id;
	s->fd = fd;
	s->bytes = (size_t)region;
	s->space = stream_space_of(res);
	s->h = mmap(NULL, s->bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (s->h == MAP_FAILED) {
		soak_stats_fail(c->st, "stream %lld: mmap: %s", (long long)id, strerror(errno));
		close(fd);
		return;
	}
	if (animd_shm_validate(s->h, s->bytes, &why) < 0 || s->h->stream_id != s->id ||
	    s->h->epoch != (uint64_t)epoch || animd_shm_state(s->h) != ANIMD_SHM_STATE_LIVE ||
	    s->h->space != (uint32_t)s->space) {
		soak_stats_fail(c->st, "stream %lld: bad header: %s", (long long)id,
				why ? why : "id, epoch, space or state disagree with the reply");
		munmap((void *)s->h, s->bytes);
		close(fd);
		return;
	}
	if (c->epoch != 0 && s->h->epoch != c->epoch)
		soak_stats_fail(c->st, "stream %lld: epoch changed within one daemon run",
				(long long)id);
	c->epoch = s->h->epoch;
	s->copy_bytes = s->h->slot_bytes;
	s->copy = malloc(s->copy_bytes);
	if (s->copy == NULL) {
		munmap((void *)s->h, s->bytes);
		close(fd);
		return;
	}
	c->nstreams++;
	c->st->streams_mapped++;
}

static void stream_unmap(struct soak_stream *s)
{
	munmap((void *)s->h, s->bytes);
	close(s->fd);
	free(s->copy);
}

void soak_stream_closed(struct soak_conn *c, uint64_t id)
{
	for (unsigned i = 0; i < c->nstreams; i++) {
		struct soak_stream *s = &c->streams[i];

		if (s->id != id)
			continue;
		/* The reply comes after the close: the header must say so. */
		if (animd_shm_state(s->h) != ANIMD_SHM_STATE_CLOSED)
			soak_stats_fail(c->st, "stream %llu: still live after stream.close answered",
					(unsigned long long)id);
		stream_unmap(s);
		c->streams[i] = c->streams[--c->nstreams];
		return;
	}
	soak_stats_fail(c->st, "stream.close: answered for stream %llu, which was not open",
			(unsigned long long)id);
}

void soak_stream_unmap_all(struct soak_conn *c)
{
	while (c->nstreams > 0)
		stream_unmap(&c->streams[--c->nstreams]);
}

struct soak_stream *soak_stream_pick(struct soak_conn *c)
{
	unsigned open = 0, k;

	for (unsigned i = 0; i < c->nstreams; i++)
		open += !c->streams[i].closing;
	if (open == 0)
		return NULL;
	k = soak_rand_below(c->rnd, open);
	for (unsigned i = 0; i < c->nstreams; i++)
		if (!c->streams[i].closing && k-- == 0)
			return &c->streams[i];
	return NULL;
}

/* One pose of one channel: the newest, or an older one still in the ring
 * (the one the writer reaches next, so most likely to race it). */
static void stream_read_one(struct soak_conn *c, struct soak_stream *s, uint32_t ch_no)
{
	const struct animd_shm_channel *ch = animd_shm_channel((void *)s->h, s->h, ch_no);
	const struct animd_shm_slot *copy = (const void *)s->copy;
	uint64_t p = animd_shm_published(ch), n;
	size_t floats;
	const float *f;
	int rc;

	if (p == 0)
		return;
	n = p - 1;
	if (p >= s->h->slot_count && soak_rand_chance(c->rnd, 30))
		n = p - s->h->slot_count + 1;
	rc = animd_shm_read(s->h, ch, n, s->copy, s->copy_bytes);
	if (rc == -EAGAIN) {
		c->st->read_retries++;
		return;
	}
	if (rc == -ESTALE) {
		c->st->read_lapped++;
		return;
	}
	if (rc < 0)
		return;
	c->st->poses_read++;
	if (!animd_shm_verify(s->copy, s->h->element_stride)) {
		if (c->st->torn++ == 0)
			soak_stats_fail(c->st, "stream %llu channel %u pose %llu: torn (the seqlock "
					"accepted a copy whose checksum fails)",
					(unsigned long long)s->id, ch_no, (unsigned long long)n);
		return;
	}
	f = (const float *)(const void *)(copy + 1);
	floats = (size_t)copy->element_count * s->h->element_stride / sizeof(float);
	for (size_t i = 0; i < floats; i++)
		if (!isfinite(f[i])) {
			if (c->st->nonfinite++ == 0)
				soak_stats_fail(c->st, "stream %llu channel %u pose %llu: float %zu "
						"is not finite", (unsigned long long)s->id, ch_no,
						(unsigned long long)n, i);
			break;
		}
}

void soak_stream_read(struct soak_conn *c, int ms)
{
	int64_t until = soak_clock_now_ns() + (int64_t)ms * 1000000;

	if (c->nstreams == 0)
		return;
	do {
		for (unsigned i = 0; i < c->nstreams; i++)
			for (uint32_t ch = 0; ch < c->streams[i].h->channel_count; ch++)
				stream_read_one(c, &c->streams[i], ch);
	} while (soak_clock_now_ns() < until);
}
