/*
 * c_stream_reader - libanimclient's stream reader as a reference for
 * python_package.py: it reads one stream with animc_stream_next while the
 * Python package reads the same region, and prints every pose it got so
 * that the two can be compared pose for pose.
 *
 *   c_stream_reader SOCKET INSTANCES POSES DEPTH
 *
 * Opens a model-space stream at 1000 Hz with INSTANCES channels of DEPTH
 * slots, plays walker.md5anim (mesh walker.md5mesh) INSTANCES times into
 * it, each starting 0.1 s further into the clip, prints "ready", waits for
 * a line on stdin, then reads every instance's poses in order until each
 * has POSES.  Then one line per pose:
 *   pose INDEX SEQ TICK CLIP_TIME(%a) GENERATION DROPPED FNV1A64(payload)
 * INDEX is the instance's place in the order played (0..INSTANCES-1).
 * Exit 0, or 1 with a message on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/animclient.h"

struct seen {
	uint64_t seq, tick, generation, dropped, hash;
	double clip_time;
};

static uint64_t fnv1a(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static int fail(const char *what, int rc)
{
	fprintf(stderr, "c_stream_reader: %s: %s\n", what, animc_strerror(rc));
	return 1;
}

int main(int argc, char **argv)
{
	animc_stream_opts so = ANIMC_STREAM_OPTS_INIT;
	animc_client *c;
	animc_stream *s;
	unsigned k, n, poses, depth;
	uint64_t ids[64];
	struct seen *got;
	unsigned *have;
	float *buf;
	size_t floats;
	char line[16];
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: c_stream_reader SOCKET INSTANCES POSES DEPTH\n");
		return 2;
	}
	n = (unsigned)atoi(argv[2]);
	poses = (unsigned)atoi(argv[3]);
	depth = (unsigned)atoi(argv[4]);
	if (n == 0 || n > 64 || poses == 0)
		return 2;
	if ((rc = animc_client_new(&c)) < 0 || (rc = animc_client_connect(c, argv[1], 5000)) < 0)
		return fail("connect", rc);
	so.space = ANIMC_SPACE_MODEL;
	so.rate_hz = 1000;
	so.channels = n;
	so.depth = depth;
	so.max_elements = 64;
	if ((rc = animc_stream_open(c, &so, &s)) < 0)
		return fail("stream.open", rc);
	for (k = 0; k < n; k++) {
		animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
		animc_instance *in;

		po.asset = "walker.md5anim";
		po.mesh = "walker.md5mesh";
		po.start = 0.1 * k;
		po.stream = s;
		if ((rc = animc_play(c, &po, &in)) < 0)
			return fail("play", rc);
		ids[k] = in->id;
		animc_free(in);
	}
	floats = animc_stream_pose_floats(s);
	buf = malloc(floats * sizeof *buf);
	got = calloc((size_t)n * poses, sizeof *got);
	have = calloc(n, sizeof *have);
	if (buf == NULL || got == NULL || have == NULL)
		return fail("memory", -ENOMEM);
	printf("ready\n");
	fflush(stdout);
	if (fgets(line, sizeof line, stdin) == NULL)
		return fail("no go on stdin", -EPIPE);
	for (unsigned done = 0; done < n;) {
		int any = 0;

		for (k = 0; k < n; k++) {
			animc_pose_info info;
			uint64_t dropped;

			while (have[k] < poses &&
			       (rc = animc_stream_next(s, ids[k], buf, floats, &info, &dropped)) == 0) {
				struct seen *g = &got[(size_t)k * poses + have[k]++];

				g->seq = info.seq;
				g->tick = info.tick;
				g->generation = info.generation;
				g->dropped = dropped;
				g->clip_time = info.clip_time;
				g->hash = fnv1a(buf, (size_t)info.element_count *
							     info.floats_per_element * sizeof(float));
				any = 1;
				if (have[k] == poses)
					done++;
			}
			if (have[k] < poses && rc != -ENODATA && rc != -EAGAIN)
				return fail("animc_stream_next", rc);
		}
		if (!any)
			nanosleep(&(struct timespec){ .tv_nsec = 200000 }, NULL);
	}
	for (k = 0; k < n; k++)
		for (unsigned i = 0; i < poses; i++) {
			const struct seen *g = &got[(size_t)k * poses + i];

			printf("pose %u %llu %llu %a %llu %llu %016llx\n", k,
			       (unsigned long long)g->seq, (unsigned long long)g->tick, g->clip_time,
			       (unsigned long long)g->generation, (unsigned long long)g->dropped,
			       (unsigned long long)g->hash);
		}
	free(buf);
	free(got);
	free(have);
	animc_client_close(c);
	return 0;
}
