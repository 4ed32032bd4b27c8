/*
 * The client library's stream reader (client/lib/stream.c) on regions made
 * here, without a daemon: a sealed memfd laid out with animd_shm_layout and
 * written with the daemon's writer, mapped with ac_stream_map, the instance
 * registered as a play reply registers it.  The cases are the stream
 * fuzzer's findings, replayed deterministically, and the behaviour around
 * them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "client/lib/internal.h"

#define STREAM_ID 42u
#define EPOCH 0x5eed5eedu
#define SID 7u

struct region {
	int fd;
	struct animd_shm_header h;
	uint8_t *w;                     /* the daemon's writable view */
	animc_client *c;
	animc_stream *s;
};

static void region_new(struct region *r, uint32_t depth)
{
	animc_stream_opts o = ANIMC_STREAM_OPTS_INIT;

	assert_int_equal(animd_shm_layout(&r->h, ANIMD_SHM_SPACE_CAMERA, 1, 2, depth), 0);
	r->h.stream_id = STREAM_ID;
	r->h.epoch = EPOCH;
	r->h.state = ANIMD_SHM_STATE_LIVE;
	r->fd = memfd_create("test_client_stream", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(r->fd >= 0);
	assert_int_equal(ftruncate(r->fd, (off_t)r->h.region_bytes), 0);
	r->w = mmap(NULL, r->h.region_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	assert_true(r->w != MAP_FAILED);
	assert_int_equal(fcntl(r->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
	memcpy(r->w, &r->h, sizeof r->h);
	assert_int_equal(animc_client_new(&r->c), 0);
	o.space = ANIMC_SPACE_CAMERA;
	r->s = ac_stream_new(r->c, &o);
	assert_non_null(r->s);
}

/* Map the region's current bytes: 0 or the error of ac_stream_map. */
static int region_map(struct region *r)
{
	const char *why = NULL;
	int fd = dup(r->fd);

	assert_true(fd >= 0);
	return ac_stream_map(r->s, fd, STREAM_ID, EPOCH, r->h.region_bytes, &why);
}

/* Map, and register instance SID as publishing in channel 0. */
static void region_map_and_play(struct region *r)
{
	animc_instance st = { .asset = "cam.md5camera", .state = ANIMC_STATE_PLAYING,
			      .speed = 1, .stream = STREAM_ID, .channel = 0 };
	struct ac_instance *in;

	assert_int_equal(region_map(r), 0);
	assert_int_equal(ac_instances_add(r->c, SID, &st, &in), 0);
	animd_shm_set_instance(animd_shm_channel(r->w, &r->h, 0), SID);
}

static void region_free(struct region *r)
{
	animc_client_close(r->c);
	munmap(r->w, r->h.region_bytes);
	close(r->fd);
}

/* Publish one camera pose of SID in channel 0; its fov float is `fov`. */
static struct animd_shm_slot *region_publish(struct region *r, float fov)
{
	struct animd_shm_channel *ch = animd_shm_channel(r->w, &r->h, 0);
	struct animd_shm_slot *slot;
	float pose[8] = { 0, 0, 0, 0, 0, 0, 1, fov };
	uint64_t n;

	/* A writer keeps its own count; this one takes the region's. */
	n = animd_shm_published(ch);
	slot = animd_shm_write_begin(ch, &r->h, n);
	slot->instance_id = SID;
	slot->element_count = 1;
	memcpy(animd_shm_payload(slot), pose, sizeof pose);
	animd_shm_seal(slot, &r->h, n);
	animd_shm_write_end(ch, slot, n);
	return slot;
}

static void test_next_in_order(void **state)
{
	struct region r;
	animc_pose_info info;
	uint64_t dropped = 99;
	float pose[8];

	region_new(&r, 4);
	region_map_and_play(&r);
	assert_int_equal(animc_stream_next(r.s, SID, pose, 8, &info, &dropped), -ENODATA);
	region_publish(&r, 60);
	region_publish(&r, 61);
	assert_int_equal(animc_stream_next(r.s, SID, pose, 8, &info, &dropped), 0);
	assert_int_equal(info.seq, 0);
	assert_int_equal(dropped, 0);
	assert_true(pose[7] == 60);
	assert_int_equal(animc_stream_next(r.s, SID, pose, 8, &info, &dropped), 0);
	assert_int_equal(info.seq, 1);
	assert_true(pose[7] == 61);
	assert_int_equal(animc_stream_next(r.s, SID, pose, 8, &info, &dropped), -ENODATA);
	region_free(&r);
}

/* The fuzzer's case: a slot whose seq is not its pose's although
 * `published` still counts the pose made animc_stream_next return -ESTALE,
 * which its contract does not have; it is -EAGAIN, the cursor stays, and
 * once the slot is whole the pose is returned. */
static void test_next_stuck_slot_is_eagain(void **state)
{
	struct region r;
	struct animd_shm_slot *slot;
	animc_pose_info info;
	uint64_t dropped;
	float pose[8];

	region_new(&r, 4);
	region_map_and_play(&r);
	slot = region_publish(&r, 60);
	slot->seq = 2 * 0 + 4;          /* another pose's number */
	assert_int_equal(animc_stream_next(r.s, SID, pose, 8, &info, &dropped), -EAGAIN);
	assert_int_equal(animc_stream_latest(r.s, SID, pose, 8, &info), -EAGAIN);
	slot->seq = 2 * 0 + 2;
	assert_int_equal(animc_stream_next(r.s, SID, pose, 8, &info, &dropped), 0);
	assert_int_equal(info.seq, 0);
	assert_true(pose[7] == 60);
	region_free(&r);
}

/* The fuzzer's other case, at the library's door: a header whose
 * channel_bytes times channel_count wraps is refused, and the mapping
 * already held stays in use. */
static void test_map_refuses_wrapping_channels(void **state)
{
	struct region r;
	struct animd_shm_header bad;
	animc_pose_info info;
	float pose[8];

	region_new(&r, 4);
	region_map_and_play(&r);
	region_publish(&r, 60);
	memcpy(&bad, r.w, sizeof bad);
	bad.channel_bytes = UINT64_C(1) << 63;
	memcpy(r.w, &bad, sizeof bad);
	assert_int_equal(region_map(&r), -EPROTO);
	assert_int_equal(r.s->h.channel_bytes, r.h.channel_bytes);
	assert_int_equal(animc_stream_latest(r.s, SID, pose, 8, &info), 0);
	assert_true(pose[7] == 60);
	region_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next_in_order),
		cmocka_unit_test(test_next_stuck_slot_is_eagain),
		cmocka_unit_test(test_map_refuses_wrapping_channels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
