/*
 * The daemon's side of a stream region never trusts what is in shared
 * memory: its geometry (channel count, sizes, offsets, the region's size)
 * lives in the daemon's own struct.  Here the region is scribbled on
 * through the daemon's own writable mapping (the only one the seals leave;
 * found in /proc/self/maps, as a debugger would), with the values a
 * tampering client would write, and the stream is then ticked and closed.
 * Under AddressSanitizer (make check runs this test there too) any read of
 * the geometry back from the region shows as an overflow or a bad munmap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "daemon/service/playback/streams.h"
#include "proto/animd_shm.h"

/* The start of the daemon's read-write mapping of the stream region. */
static void *find_writable_region(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	void *found = NULL;

	assert_non_null(f);
	while (found == NULL && fgets(line, sizeof line, f) != NULL) {
		unsigned long lo, hi;
		char perms[8];

		if (strstr(line, "animd-stream") == NULL ||
		    sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
			continue;
		if (perms[0] == 'r' && perms[1] == 'w')
			found = (void *)lo;
	}
	fclose(f);
	return found;
}

static void test_tampered_header_is_never_read_back(void **state)
{
	struct stream_params p = {
		.space = SPACE_MODEL, .rate_hz = 1000, .channels = 4, .max_elements = 8, .depth = 4,
	};
	struct playback_owner owner = { 0 };
	struct streams *reg = NULL;
	struct animd_shm_header *h;
	struct stream *st = NULL;
	uv_loop_t loop;
	char err[256];
	int ro_fd = -1;

	(void)state;
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_int_equal(streams_new(&loop, NULL, 42, &reg), 0);
	assert_int_equal(stream_open(reg, &owner, &p, &st, &ro_fd, err, sizeof err), 0);
	assert_int_equal(owner.streams, 1);
	h = find_writable_region();
	assert_non_null(h);
	assert_int_equal(h->channel_count, 4);
	h->channel_count = 0x100000;
	h->region_bytes = UINT64_C(1) << 40;
	h->channels_offset = UINT64_C(1) << 40;
	h->channel_bytes = UINT64_C(1) << 32;
	h->slot_count = 0;
	h->slot_bytes = 0xffffffc0u;
	h->max_elements = 0xffffffffu;
	/* What the daemon tells clients comes from its own copy. */
	assert_int_equal(stream_header(st)->channel_count, 4);
	assert_int_equal(stream_header(st)->max_elements, 8);
	/* A few ticks walk the channels; closing unmaps the region. */
	for (int i = 0; i < 3; i++)
		uv_run(&loop, UV_RUN_ONCE);
	stream_close(st);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_null(find_writable_region());
	assert_int_equal(owner.streams, 0);
	streams_free(reg);
	close(ro_fd);
	assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tampered_header_is_never_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
