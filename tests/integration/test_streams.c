/*
 * Shared-memory pose streams against the real daemon: the descriptor
 * arrives with the stream.open reply, maps read-only only, and carries a
 * valid header; play publishes at once and on every tick; seek and pause
 * are visible immediately; several readers under full-speed publishing
 * never see a torn pose; a reader that never reads slows nobody; a client
 * that dies or hangs up with streams open costs the daemon nothing; a
 * daemon restart is visible through the state and the epoch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto/animd_shm.h"
#include "tests/support/daemon_proc.h"
#include "tests/support/m2_writer.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 10000

struct fixture {
	struct daemon_proc d;
	struct rpc_client c;
};

struct mapped {
	int fd;
	const struct animd_shm_header *h;
	size_t bytes;
	uint64_t id;
};

static int start_daemon(struct fixture *fx)
{
	char cmd[1024];
	const char *build = getenv("BUILD");

	snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s", build ? build : "build", fx->d.assets);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(daemon_proc_start(&fx->d, NULL, TIMEOUT_MS), 0);
	return rpc_client_connect(&fx->c, fx->d.socket, TIMEOUT_MS);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);

	assert_int_equal(daemon_proc_init(&fx->d), 0);
	assert_int_equal(start_daemon(fx), 0);
	*state = fx;
	return 0;
}

/*
 * The demo lantern with other attachment points: hands.m2 has two, point
 * 0 (id 1) on the arm with an animate track that is 1 from 0 ms and 0
 * from 1000 ms of Stand, point 1 (id 11) on the lantern without keys;
 * bare.m2 has none.  Written before the daemon starts, so both load with
 * the demo.
 */
static const uint32_t hands_times[] = { 0, 1000 };
static const uint8_t hands_animate[] = { 1, 0 };
static const struct m2w_attachment hands_points[] = {
	{ .id = 1, .bone = 1, .position = { 0.1f, 0.2f, 0.3f },
	  .animate = { .interpolation = M2_INTERP_STEP, .count = 2, .times = hands_times,
		       .bytes = hands_animate } },
	{ .id = 11, .bone = 0, .position = { 0.5f, 0, 1.4f } },
};
static const int16_t hands_lookup[] = { -1, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1 };

static void write_m2(const char *dir, const char *stem, uint32_t points)
{
	struct m2w_model m = *m2w_demo_description();
	struct m2w_file f;

	m.attachment_count = points;
	m.attachments = points ? hands_points : NULL;
	m.attachment_lookup_count = points ? 12 : 0;
	m.attachment_lookup = points ? hands_lookup : NULL;
	m2w_build(&m, &f);
	assert_int_equal(m2w_write_files(&f, dir, stem), 0);
	m2w_file_free(&f);
}

static int setup_m2s(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);

	assert_int_equal(daemon_proc_init(&fx->d), 0);
	write_m2(fx->d.assets, "hands", 2);
	write_m2(fx->d.assets, "bare", 0);
	assert_int_equal(start_daemon(fx), 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	rpc_client_close(&fx->c);
	if (fx->d.pid > 0)
		assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&fx->d);
	free(fx);
	return 0;
}

static void open_stream_sized(struct fixture *fx, const char *space, uint32_t rate,
			      uint32_t channels, uint32_t elements, struct mapped *m)
{
	struct rpc_reply r;
	struct stat st;
	const char *why = NULL;
	int64_t v;

	assert_int_equal(rpc_client_call(&fx->c, &r, "stream.open",
					 "space:s rate:u instances:u joints:u depth:u", space,
					 (uint64_t)rate, (uint64_t)channels, (uint64_t)elements,
					 (uint64_t)8), 0);
	if (r.error != NULL)
		fail_msg("stream.open: %s %s", r.code, r.message);
	assert_int_equal(rpc_get_i64(r.result, "stream", &v), 0);
	m->id = (uint64_t)v;
	m->fd = rpc_client_take_fd(&fx->c);
	assert_true(m->fd >= 0);
	assert_int_equal(fstat(m->fd, &st), 0);
	assert_int_equal(rpc_get_i64(r.result, "region_bytes", &v), 0);
	assert_int_equal((int64_t)st.st_size, v);
	rpc_reply_free(&r);
	m->bytes = (size_t)st.st_size;
	m->h = mmap(NULL, m->bytes, PROT_READ, MAP_SHARED, m->fd, 0);
	assert_true(m->h != MAP_FAILED);
	if (animd_shm_validate(m->h, m->bytes, &why) != 0)
		fail_msg("invalid header: %s", why);
}

static void open_stream(struct fixture *fx, const char *space, uint32_t rate, uint32_t channels,
			struct mapped *m)
{
	open_stream_sized(fx, space, rate, channels, 64, m);
}

static void unmap(struct mapped *m)
{
	munmap((void *)m->h, m->bytes);
	close(m->fd);
}

static int64_t play_into(struct fixture *fx, uint64_t stream, const char *asset, const char *mesh)
{
	struct rpc_reply r;
	int64_t id, channel;

	if (mesh != NULL)
		assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s mesh:s stream:u", asset,
						 mesh, stream), 0);
	else
		assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s stream:u", asset,
						 stream), 0);
	if (r.error != NULL)
		fail_msg("play: %s %s", r.code, r.message);
	assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
	assert_int_equal(rpc_get_i64(r.result, "channel", &channel), 0);
	rpc_reply_free(&r);
	return id;
}

/* The newest pose of a channel, copied whole. */
static int latest(const struct mapped *m, uint32_t channel, void *buf, size_t size)
{
	const struct animd_shm_channel *ch =
		animd_shm_channel((void *)m->h, m->h, channel);

	for (int tries = 0; tries < 1000; tries++) {
		uint64_t p = animd_shm_published(ch);
		int rc;

		if (p == 0)
			return -ENODATA;
		rc = animd_shm_read(m->h, ch, p - 1, buf, size);
		if (rc == 0)
			return 0;
	}
	return -EAGAIN;
}

static void test_open_map_read_only(void **state)
{
	struct fixture *fx = *state;
	struct mapped m;
	void *w;

	open_stream(fx, "model", 60, 4, &m);
	assert_int_equal(m.h->space, ANIMD_SHM_SPACE_MODEL);
	assert_int_equal(m.h->channel_count, 4);
	assert_int_equal(m.h->slot_count, 8);
	assert_int_equal(m.h->rate_hz, 60);
	assert_int_equal(animd_shm_state(m.h), ANIMD_SHM_STATE_LIVE);
	assert_true(m.h->epoch != 0);
	/* Read-only: no writable mapping, no resizing. */
	w = mmap(NULL, m.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, m.fd, 0);
	assert_true(w == MAP_FAILED);
	assert_true(ftruncate(m.fd, 0) < 0);
	unmap(&m);
}

/*
 * What a tampering client can try with the descriptor it was given, in
 * this process (whatever uid the test runs as) or in a child of another
 * uid: reopen it read-write through /proc, write it, map it writable, or
 * map it read-only and make the mapping writable.  Each must fail.  Exits
 * with the number of the first attempt that succeeded, 0 if none did.
 */
static int tamper(int fd, size_t bytes)
{
	char path[64];
	void *w;
	int rw;

	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	rw = open(path, O_RDWR);
	if (rw >= 0) {
		uint32_t big = 0x100000;

		/* Only a privileged reopen gets this far: the seal must hold. */
		if (pwrite(rw, &big, sizeof big, offsetof(struct animd_shm_header,
							  channel_count)) >= 0)
			return 1;
		w = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, rw, 0);
		if (w != MAP_FAILED)
			return 2;
		w = mmap(NULL, bytes, PROT_READ, MAP_SHARED, rw, 0);
		if (w != MAP_FAILED && mprotect(w, bytes, PROT_READ | PROT_WRITE) == 0)
			return 3;
		if (fallocate(rw, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096) == 0)
			return 4;
		close(rw);
	}
	w = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (w != MAP_FAILED)
		return 5;
	w = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (w == MAP_FAILED || mprotect(w, bytes, PROT_READ | PROT_WRITE) == 0)
		return 6;
	if (ftruncate(fd, 0) == 0 || write(fd, "x", 1) >= 0)
		return 7;
	return 0;
}

/* Issue 8, D1: a client cannot write the region, and whatever it tries the
 * daemon goes on publishing. */
static void test_region_cannot_be_tampered(void **state)
{
	struct fixture *fx = *state;
	unsigned char buf[64 + 64 * 48];
	const struct animd_shm_slot *slot = (const void *)buf;
	struct rpc_reply r;
	struct mapped m;
	struct stat st;
	pid_t pid;
	int status;

	open_stream(fx, "model", 200, 4, &m);
	assert_int_equal(fstat(m.fd, &st), 0);
	/* Nothing for group or others, and not writable even by the owner. */
	assert_int_equal(st.st_mode & 0277, 0);
	assert_int_equal(tamper(m.fd, m.bytes), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* As another uid when we can become one (nobody). */
		if (getuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(100);
		_exit(tamper(m.fd, m.bytes));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The header is as the daemon wrote it, and it still publishes. */
	assert_int_equal(m.h->channel_count, 4);
	play_into(fx, m.id, "walker.md5anim", "walker.md5mesh");
	assert_int_equal(latest(&m, 0, buf, sizeof buf), 0);
	assert_int_equal(slot->element_count, 10);
	assert_int_equal(rpc_client_call(&fx->c, &r, "status", NULL), 0);
	assert_null(r.error);
	rpc_reply_free(&r);
	unmap(&m);
}

static void test_play_publishes_and_seek_is_immediate(void **state)
{
	struct fixture *fx = *state;
	unsigned char buf[64 + 64 * 48];
	const struct animd_shm_slot *slot = (const void *)buf;
	const float *mats = (const float *)(buf + 64);
	struct rpc_reply r;
	struct mapped m;
	int64_t id;

	open_stream(fx, "model", 60, 4, &m);
	id = play_into(fx, m.id, "walker.md5anim", "walker.md5mesh");
	/* Published at once, without waiting for a tick. */
	assert_int_equal(latest(&m, 0, buf, sizeof buf), 0);
	assert_int_equal(slot->instance_id, (uint64_t)id);
	assert_int_equal(slot->element_count, 10);
	assert_int_equal(slot->generation, 1);
	assert_true(animd_shm_verify(buf, m.h->element_stride));
	/* The root walks 60 units per second of clip time. */
	assert_true(fabs(mats[3] - 60.0 * slot->clip_time) < 1e-3);

	assert_int_equal(rpc_client_call(&fx->c, &r, "pause", "instance:u", (uint64_t)id), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "seek", "instance:u time:d", (uint64_t)id, 0.5), 0);
	rpc_reply_free(&r);
	/* No sleep: the reply came after the pose was published. */
	assert_int_equal(latest(&m, 0, buf, sizeof buf), 0);
	assert_true(fabs(slot->clip_time - 0.5) < 1e-9);
	assert_true(slot->flags & ANIMD_SHM_SLOT_PAUSED);
	assert_true(fabs(mats[3] - 30.0) < 1e-3);
	/* Ticks keep publishing the paused pose. */
	{
		uint64_t p0 = animd_shm_published(animd_shm_channel((void *)m.h, m.h, 0));

		usleep(100000);
		assert_true(animd_shm_published(animd_shm_channel((void *)m.h, m.h, 0)) > p0);
	}
	unmap(&m);
}

/* Issue 10: an M2's emitters stream, element for element what `sample
 * --space emitters` gives at the same playback time (global sequences
 * included), and refused for an asset without emitters. */
static void test_emitters_stream(void **state)
{
	struct fixture *fx = *state;
	unsigned char buf[64 + 4 * ANIMD_SHM_STRIDE_EMITTER];
	const struct animd_shm_slot *slot = (const void *)buf;
	const struct animd_shm_emitter *e = (const void *)(buf + 64);
	const msgpack_object *em, *m, *params;
	struct rpc_reply r;
	struct mapped st;
	int64_t id;

	open_stream_sized(fx, "emitters", 0, 2, 4, &st);
	assert_int_equal(st.h->space, ANIMD_SHM_SPACE_EMITTERS);
	assert_int_equal(st.h->element_stride, ANIMD_SHM_STRIDE_EMITTER);
	id = play_into(fx, st.id, "lantern.m2", NULL);
	assert_int_equal(rpc_client_call(&fx->c, &r, "pause", "instance:u", (uint64_t)id), 0);
	rpc_reply_free(&r);
	/* 1.9 s: past the flame's global sequence (1.2 s) once. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "seek", "instance:u time:d", (uint64_t)id, 1.9),
			 0);
	rpc_reply_free(&r);
	assert_int_equal(latest(&st, 0, buf, sizeof buf), 0);
	assert_int_equal(slot->element_count, 1);
	assert_true(animd_shm_verify(buf, st.h->element_stride));
	assert_true(e[0].reserved == 0);
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d space:s", "lantern.m2",
					 1.9, "emitters"), 0);
	assert_null(r.error);
	em = &rpc_get(r.result, "emitters")->via.array.ptr[0];
	m = rpc_get(em, "m");
	for (int k = 0; k < 12; k++)
		assert_true((float)m->via.array.ptr[k].via.f64 == e[0].m[k]);
	params = rpc_get(em, "params");
	assert_true((float)rpc_get(params, "emission_rate")->via.f64 == e[0].params[6]);
	assert_true((float)rpc_get(params, "emission_speed")->via.f64 == e[0].params[0]);
	assert_true((float)rpc_get(params, "lifespan")->via.f64 == e[0].params[5]);
	assert_true((rpc_get(em, "enabled")->via.boolean ? 1.0f : 0.0f) == e[0].enabled);
	rpc_reply_free(&r);
	/* No emitters to publish in the walker. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s mesh:s stream:u",
					 "walker.md5anim", "walker.md5mesh", st.id), 0);
	assert_non_null(r.error);
	assert_string_equal(r.code, "unsupported");
	rpc_reply_free(&r);
	unmap(&st);
}

/* Issue 11: a vertices stream with normals carries, per vertex, the
 * position then the unit normal, as `sample` gives them (the walker's are
 * derived from its skinned triangles, as Doom 3 does); it is refused for
 * any other space. */
static void test_vertices_with_normals(void **state)
{
	struct fixture *fx = *state;
	static unsigned char buf[64 + 256 * ANIMD_SHM_STRIDE_VERTEX_NORMAL];
	const struct animd_shm_slot *slot = (const void *)buf;
	const float *v = (const float *)(buf + 64);
	const msgpack_object *mesh, *pos, *nrm;
	struct rpc_reply r;
	struct mapped m;
	struct stat st;
	const char *why;
	int64_t id, stride;

	assert_int_equal(rpc_client_call(&fx->c, &r, "stream.open",
					 "space:s rate:u instances:u joints:u depth:u normals:b",
					 "vertices", (uint64_t)0, (uint64_t)2, (uint64_t)256,
					 (uint64_t)4, 1), 0);
	assert_null(r.error);
	assert_int_equal(rpc_get_i64(r.result, "element_stride", &stride), 0);
	assert_int_equal(stride, ANIMD_SHM_STRIDE_VERTEX_NORMAL);
	assert_int_equal(rpc_get_i64(r.result, "stream", &id), 0);
	m.id = (uint64_t)id;
	rpc_reply_free(&r);
	m.fd = rpc_client_take_fd(&fx->c);
	assert_int_equal(fstat(m.fd, &st), 0);
	m.bytes = (size_t)st.st_size;
	m.h = mmap(NULL, m.bytes, PROT_READ, MAP_SHARED, m.fd, 0);
	assert_true(m.h != MAP_FAILED);
	assert_int_equal(animd_shm_validate(m.h, m.bytes, &why), 0);
	assert_int_equal(m.h->features, ANIMD_SHM_FEATURE_NORMALS);
	assert_int_equal(m.h->element_stride, ANIMD_SHM_STRIDE_VERTEX_NORMAL);
	id = play_into(fx, m.id, "walker.md5anim", "walker.md5mesh");
	assert_int_equal(rpc_client_call(&fx->c, &r, "pause", "instance:u", (uint64_t)id), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "seek", "instance:u time:d", (uint64_t)id, 0.4),
			 0);
	rpc_reply_free(&r);
	assert_int_equal(latest(&m, 0, buf, sizeof buf), 0);
	assert_true(animd_shm_verify(buf, m.h->element_stride));
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample",
					 "asset:s mesh:s time:d space:s", "walker.md5anim",
					 "walker.md5mesh", 0.4, "vertices"), 0);
	assert_null(r.error);
	mesh = &rpc_get(r.result, "meshes")->via.array.ptr[0];
	pos = rpc_get(mesh, "positions");
	nrm = rpc_get(mesh, "normals");
	assert_non_null(nrm);
	assert_true(slot->element_count >= pos->via.array.size);
	for (uint32_t k = 0; k < pos->via.array.size; k++) {
		double len = 0;

		for (int c = 0; c < 3; c++) {
			assert_true((float)pos->via.array.ptr[k].via.array.ptr[c].via.f64 == v[6 * k + c]);
			assert_true((float)nrm->via.array.ptr[k].via.array.ptr[c].via.f64 ==
				    v[6 * k + 3 + c]);
			len += (double)v[6 * k + 3 + c] * v[6 * k + 3 + c];
		}
		assert_true(fabs(len - 1.0) < 1e-5);
	}
	rpc_reply_free(&r);
	unmap(&m);
	/* Normals are a vertices stream's. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "stream.open", "space:s normals:b", "model", 1),
			 0);
	assert_non_null(r.error);
	assert_string_equal(r.code, "bad_request");
	rpc_reply_free(&r);
}

static void test_spaces_and_limits(void **state)
{
	struct fixture *fx = *state;
	unsigned char buf[64 + 256 * 48];
	const struct animd_shm_slot *slot = (const void *)buf;
	struct rpc_reply r;
	struct mapped cam, verts, small;

	open_stream(fx, "camera", 0, 2, &cam);
	play_into(fx, cam.id, "orbit.md5camera", NULL);
	assert_int_equal(latest(&cam, 0, buf, sizeof buf), 0);
	assert_int_equal(slot->element_count, 1);
	assert_true(animd_shm_verify(buf, cam.h->element_stride));
	/* A walker into a camera stream is refused with a reason. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s stream:u", "walker.md5anim",
					 cam.id), 0);
	assert_non_null(r.error);
	assert_string_equal(r.code, "unsupported");
	rpc_reply_free(&r);

	open_stream_sized(fx, "vertices", 30, 1, 72, &verts);
	play_into(fx, verts.id, "walker.md5anim", "walker.md5mesh");
	assert_int_equal(latest(&verts, 0, buf, sizeof buf), 0);
	assert_int_equal(slot->element_count, 72);      /* 9 boxes of 8 */
	/* The one channel is taken. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s mesh:s stream:u",
					 "walker.md5anim", "walker.md5mesh", verts.id), 0);
	assert_non_null(r.error);
	assert_string_equal(r.code, "limit");
	rpc_reply_free(&r);
	/* A pose larger than the slots is refused, not truncated. */
	open_stream_sized(fx, "vertices", 30, 1, 64, &small);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s mesh:s stream:u",
					 "walker.md5anim", "walker.md5mesh", small.id), 0);
	assert_non_null(r.error);
	assert_string_equal(r.code, "limit");
	assert_non_null(strstr(r.message, "72 vertices"));
	rpc_reply_free(&r);
	unmap(&cam);
	unmap(&verts);
	unmap(&small);
}

struct reader {
	const struct mapped *m;
	uint32_t channels;
	atomic_int *stop;
	uint64_t read, dropped, torn_retries, bad;
};

/* Read every channel in order, verifying each pose's checksum. */
static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	uint64_t next[16] = { 0 };
	unsigned char buf[64 + 64 * 48];

	while (!atomic_load(rd->stop)) {
		for (uint32_t c = 0; c < rd->channels; c++) {
			const struct animd_shm_channel *ch = animd_shm_channel((void *)rd->m->h, rd->m->h, c);
			uint64_t p = animd_shm_published(ch);

			while (next[c] < p) {
				int rc;

				if (next[c] + rd->m->h->slot_count <= p) {
					uint64_t oldest = p - rd->m->h->slot_count + 1;

					rd->dropped += oldest - next[c];
					next[c] = oldest;
				}
				rc = animd_shm_read(rd->m->h, ch, next[c], buf, sizeof buf);
				if (rc == -EAGAIN || rc == -ESTALE) {
					rd->torn_retries++;
					p = animd_shm_published(ch);
					continue;
				}
				if (rc != 0 || !animd_shm_verify(buf, rd->m->h->element_stride))
					rd->bad++;
				rd->read++;
				next[c]++;
			}
		}
	}
	return NULL;
}

static void test_stress_no_torn_reads(void **state)
{
	struct fixture *fx = *state;
	struct reader rd[3];
	pthread_t th[3];
	atomic_int stop = 0;
	struct mapped m;
	uint64_t total = 0;

	/* Full speed: 1000 Hz, 8 instances, readers racing the writer. */
	open_stream(fx, "model", 1000, 8, &m);
	for (int i = 0; i < 8; i++)
		play_into(fx, m.id, "walker.md5anim", "walker.md5mesh");
	for (int i = 0; i < 3; i++) {
		rd[i] = (struct reader){ .m = &m, .channels = 8, .stop = &stop };
		pthread_create(&th[i], NULL, reader_main, &rd[i]);
	}
	/* Meanwhile seek and pause hammer immediate publishes too. */
	for (int k = 0; k < 200; k++) {
		struct rpc_reply r;

		assert_int_equal(rpc_client_call(&fx->c, &r, "seek", "instance:u time:d",
						 (uint64_t)(1 + k % 8), 0.01 * k), 0);
		rpc_reply_free(&r);
		usleep(5000);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		printf("  reader %d: %llu poses, %llu dropped, %llu retries, %llu bad\n", i,
		       (unsigned long long)rd[i].read, (unsigned long long)rd[i].dropped,
		       (unsigned long long)rd[i].torn_retries, (unsigned long long)rd[i].bad);
		assert_int_equal(rd[i].bad, 0);
		total += rd[i].read;
	}
	assert_true(total > 1000);
	unmap(&m);
}

/* Play the walker into a stream: its channel, and its instance in *id. */
static int64_t play_walker(struct fixture *fx, uint64_t stream, int64_t *id)
{
	struct rpc_reply r;
	int64_t channel;

	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s mesh:s stream:u",
					 "walker.md5anim", "walker.md5mesh", stream), 0);
	if (r.error != NULL)
		fail_msg("play: %s %s", r.code, r.message);
	assert_int_equal(rpc_get_i64(r.result, "instance", id), 0);
	assert_int_equal(rpc_get_i64(r.result, "channel", &channel), 0);
	rpc_reply_free(&r);
	return channel;
}

static void stop_instance(struct fixture *fx, int64_t id)
{
	struct rpc_reply r;

	assert_int_equal(rpc_client_call(&fx->c, &r, "stop", "instance:u", (uint64_t)id), 0);
	assert_null(r.error);
	rpc_reply_free(&r);
}

/* Pause the instance at `time` and read its pose; the same time's
 * `sample --space attachments` as the stream's elements would carry it
 * (the reply's "m", "animate", "id" and "joint"), and its "bone"s. */
static void attachments_at(struct fixture *fx, const struct mapped *st, int64_t id,
			   const char *asset, double time, unsigned char *buf, size_t size,
			   struct animd_shm_attachment *want, int64_t *bones, uint32_t room)
{
	const msgpack_object *list;
	struct rpc_reply r;

	assert_int_equal(rpc_client_call(&fx->c, &r, "pause", "instance:u", (uint64_t)id), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "seek", "instance:u time:d", (uint64_t)id,
					 time), 0);
	rpc_reply_free(&r);
	assert_int_equal(latest(st, 0, buf, size), 0);
	assert_true(animd_shm_verify(buf, st->h->element_stride));
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d space:s", asset,
					 time, "attachments"), 0);
	if (r.error != NULL)
		fail_msg("sample: %s %s", r.code, r.message);
	list = rpc_get(r.result, "attachments");
	assert_non_null(list);
	assert_int_equal(list->type, MSGPACK_OBJECT_ARRAY);
	assert_true(list->via.array.size <= room);
	for (uint32_t i = 0; i < list->via.array.size; i++) {
		const msgpack_object *p = &list->via.array.ptr[i], *m = rpc_get(p, "m");
		int64_t v;

		memset(&want[i], 0, sizeof want[i]);
		assert_int_equal(m->via.array.size, 12);
		for (int k = 0; k < 12; k++)
			want[i].m[k] = (float)m->via.array.ptr[k].via.f64;
		want[i].animate = rpc_get(p, "animate")->via.boolean ? 1.0f : 0.0f;
		assert_int_equal(rpc_get_i64(p, "id", &v), 0);
		want[i].id = (uint32_t)v;
		assert_int_equal(rpc_get_i64(p, "joint", &v), 0);
		want[i].joint = (uint32_t)v;
		assert_int_equal(rpc_get_i64(p, "bone", &bones[i]), 0);
		assert_int_equal(rpc_get_i64(p, "index", &v), 0);
		assert_int_equal(v, i);
	}
	assert_int_equal(((const struct animd_shm_slot *)(const void *)buf)->element_count,
			 list->via.array.size);
	rpc_reply_free(&r);
}

/* An M2's attachments stream carries, per point, what `sample --space
 * attachments` gives at the same time, bit for bit (the animate track
 * included); a fade to an asset with another number of points is refused;
 * an M2 without points publishes empty poses; the walker is refused, and
 * so is a pose larger than the slots. */
static void test_attachments_stream(void **state)
{
	struct fixture *fx = *state;
	unsigned char buf[64 + 4 * ANIMD_SHM_STRIDE_ATTACHMENT];
	const struct animd_shm_attachment *e = (const void *)(buf + 64);
	struct animd_shm_attachment want[4];
	int64_t bones[4], id;
	struct rpc_reply r;
	struct mapped st, small;

	open_stream_sized(fx, "attachments", 0, 1, 4, &st);
	assert_int_equal(st.h->space, ANIMD_SHM_SPACE_ATTACHMENTS);
	assert_int_equal(st.h->element_stride, ANIMD_SHM_STRIDE_ATTACHMENT);
	id = play_into(fx, st.id, "hands.m2", NULL);
	attachments_at(fx, &st, id, "hands.m2", 0.5, buf, sizeof buf, want, bones, 4);
	assert_int_equal(((const struct animd_shm_slot *)(const void *)buf)->element_count, 2);
	assert_memory_equal(e, want, 2 * sizeof *e);
	assert_true(e[0].id == 1 && e[1].id == 11);
	assert_true(bones[0] == 1 && bones[1] == 0);
	assert_true(e[0].joint != e[1].joint);
	assert_true(e[0].animate == 1.0f && e[1].animate == 1.0f);
	/* Past the track's second key: point 0 no longer animates, point 1
	 * (no keys) still does; and the arm has moved. */
	attachments_at(fx, &st, id, "hands.m2", 1.5, buf, sizeof buf, want, bones, 4);
	assert_memory_equal(e, want, 2 * sizeof *e);
	assert_true(e[0].animate == 0.0f && e[1].animate == 1.0f);
	assert_true(e[0].reserved == 0 && e[1].reserved == 0);
	/* A fade to an asset with other points would outgrow the stream's
	 * slots once it ends: refused. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u asset:s", (uint64_t)id,
					 "bare.m2"), 0);
	assert_non_null(r.error);
	assert_string_equal(r.code, "asset_error");
	assert_non_null(strstr(r.message, "0 attachment points"));
	rpc_reply_free(&r);
	stop_instance(fx, id);

	/* No points: empty poses, and an empty list from sample. */
	id = play_into(fx, st.id, "bare.m2", NULL);
	attachments_at(fx, &st, id, "bare.m2", 0.5, buf, sizeof buf, want, bones, 4);
	assert_int_equal(((const struct animd_shm_slot *)(const void *)buf)->element_count, 0);
	stop_instance(fx, id);

	/* Not an M2: refused by the stream and by sample. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s mesh:s stream:u",
					 "walker.md5anim", "walker.md5mesh", st.id), 0);
	assert_non_null(r.error);
	assert_string_equal(r.code, "unsupported");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d space:s",
					 "walker.md5anim", 0.5, "attachments"), 0);
	assert_non_null(r.error);
	assert_string_equal(r.code, "unsupported");
	assert_non_null(strstr(r.message, "attachments space is M2's"));
	rpc_reply_free(&r);

	/* Two points do not fit slots of one. */
	open_stream_sized(fx, "attachments", 0, 1, 1, &small);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s stream:u", "hands.m2",
					 small.id), 0);
	assert_non_null(r.error);
	assert_string_equal(r.code, "limit");
	assert_non_null(strstr(r.message, "2 attachment points"));
	rpc_reply_free(&r);
	unmap(&small);
	unmap(&st);
}

/* A crowd big enough for its ticks to be spread over the cores (where
 * there are two), with holes: every channel in use, and only those, keeps
 * getting poses after the topmost instances and some in the middle stop
 * and new ones take the lowest free channels. */
static void test_ticks_reach_every_channel_in_use(void **state)
{
	enum { N = 96, CHANNELS = N + 8 };
	struct fixture *fx = *state;
	int64_t ids[N];
	uint64_t p0[CHANNELS];
	bool used[CHANNELS] = { false };
	struct mapped m;

	open_stream(fx, "model", 250, CHANNELS, &m);
	for (int i = 0; i < N; i++) {
		int64_t channel = play_walker(fx, m.id, &ids[i]);

		assert_true(channel >= 0 && channel < CHANNELS && !used[channel]);
		used[channel] = true;
	}
	/* The top ten, then every seventh below them from the highest down:
	 * the last to stop leaves channels in use above it. */
	for (int i = N - 1; i >= 0; i--)
		if (i >= N - 10 || i % 7 == 3)
			stop_instance(fx, ids[i]);
	for (uint32_t c = 0; c < CHANNELS; c++)
		used[c] = animd_shm_instance(animd_shm_channel((void *)m.h, m.h, c)) != 0;
	for (int i = 0; i < 3; i++) {
		int64_t id, channel = play_walker(fx, m.id, &id);

		assert_true(channel >= 0 && channel < CHANNELS && !used[channel]);
		used[channel] = true;
	}
	for (uint32_t c = 0; c < CHANNELS; c++)
		p0[c] = animd_shm_published(animd_shm_channel((void *)m.h, m.h, c));
	/* Until every channel in use has had five more ticks (or 5 s). */
	for (int waited = 0;; waited += 10) {
		uint32_t behind = 0;

		for (uint32_t c = 0; c < CHANNELS; c++)
			behind += used[c] &&
				  animd_shm_published(animd_shm_channel((void *)m.h, m.h, c)) < p0[c] + 5;
		if (behind == 0)
			break;
		if (waited >= 5000)
			fail_msg("%u channels in use got fewer than 5 poses in 5 s at 250 Hz", behind);
		usleep(10000);
	}
	for (uint32_t c = 0; c < CHANNELS; c++)
		if (!used[c] && animd_shm_published(animd_shm_channel((void *)m.h, m.h, c)) != p0[c])
			fail_msg("channel %u, not in use, got a pose", c);
	unmap(&m);
}

/* Wait until each of the first n channels has `more` poses beyond p0. */
static void wait_poses(const struct mapped *m, const uint64_t *p0, int n, uint64_t more)
{
	for (int waited = 0;; waited += 10) {
		int behind = 0;

		for (int i = 0; i < n; i++)
			behind += animd_shm_published(animd_shm_channel((void *)m->h, m->h,
									(uint32_t)i)) < p0[i] + more;
		if (behind == 0)
			return;
		if (waited >= 5000)
			fail_msg("%d channels got too few poses in 5 s", behind);
		usleep(10000);
	}
}

/* The model-space slot in buf (a walker's) is, bit for bit, what `sample`
 * gives at playback time `time` with that mesh (NULL: none), loop mode
 * and root motion. */
static void assert_slot_sampled(struct fixture *fx, const unsigned char *buf, double time,
				const char *mesh, const char *loop, const char *root_motion,
				int instance)
{
	const struct animd_shm_slot *slot = (const void *)buf;
	const float *mats = (const float *)(buf + 64);
	const msgpack_object *joints;
	struct rpc_reply r;

	if (mesh == NULL)
		assert_int_equal(rpc_client_call(&fx->c, &r, "sample",
						 "asset:s time:d space:s loop:s root_motion:s",
						 "walker.md5anim", time, "model", loop, root_motion),
				 0);
	else
		assert_int_equal(rpc_client_call(&fx->c, &r, "sample",
						 "asset:s mesh:s time:d space:s loop:s root_motion:s",
						 "walker.md5anim", mesh, time, "model", loop, root_motion),
				 0);
	assert_null(r.error);
	joints = rpc_get(r.result, "joints");
	assert_non_null(joints);
	assert_int_equal(joints->via.array.size, slot->element_count);
	for (uint32_t j = 0; j < slot->element_count; j++) {
		const msgpack_object *e = rpc_get(&joints->via.array.ptr[j], "m");

		assert_non_null(e);
		assert_int_equal(e->via.array.size, 12);
		for (int k = 0; k < 12; k++)
			if ((float)e->via.array.ptr[k].via.f64 != mats[12 * j + k])
				fail_msg("instance %d, joint %u, element %d: streamed %.9g, "
					 "sampled %.9g", instance, j, k, mats[12 * j + k],
					 e->via.array.ptr[k].via.f64);
	}
	rpc_reply_free(&r);
}

/* What a tick publishes on each channel is, bit for bit, what `sample`
 * gives for its instance, clip time included: thirteen walkers paused at
 * their own times, one of them without the mesh (the md5anim's own
 * skeleton among the mesh's). */
static void test_ticks_publish_sampled_poses(void **state)
{
	enum { N = 13, ALONE = 5 };
	struct fixture *fx = *state;
	unsigned char buf[64 + 64 * 48];
	const struct animd_shm_slot *slot = (const void *)buf;
	uint64_t p0[N];
	struct rpc_reply r;
	struct mapped m;

	open_stream(fx, "model", 250, N + 3, &m);
	for (int i = 0; i < N; i++) {
		int64_t id = play_into(fx, m.id, "walker.md5anim",
				       i == ALONE ? NULL : "walker.md5mesh");

		assert_int_equal(rpc_client_call(&fx->c, &r, "pause", "instance:u", (uint64_t)id), 0);
		rpc_reply_free(&r);
		assert_int_equal(rpc_client_call(&fx->c, &r, "seek", "instance:u time:d",
						 (uint64_t)id, 0.013 + 0.061 * i), 0);
		rpc_reply_free(&r);
	}
	for (int i = 0; i < N; i++)
		p0[i] = animd_shm_published(animd_shm_channel((void *)m.h, m.h, (uint32_t)i));
	/* Three ticks' poses on every channel. */
	wait_poses(&m, p0, N, 3);
	for (int i = 0; i < N; i++) {
		assert_int_equal(latest(&m, (uint32_t)i, buf, sizeof buf), 0);
		assert_true(animd_shm_verify(buf, m.h->element_stride));
		assert_true(fabs(slot->clip_time - (0.013 + 0.061 * i)) < 1e-9);
		assert_slot_sampled(fx, buf, slot->clip_time, i == ALONE ? NULL : "walker.md5mesh",
				    "once", "raw", i);
	}
	unmap(&m);
}

/* A crowd in step: instances one after another at the same time share one
 * evaluation in a tick, and an instance that differs only in its root
 * motion (looping, in its second cycle, where "in_place" carries the
 * root's travel over) or its skeleton (no mesh) is evaluated on its own.
 * Each channel is still, bit for bit, what `sample` gives for its
 * instance. */
static void test_in_step_instances(void **state)
{
	enum { N = 8 };
	/* Channel by channel: time, mesh, root motion. */
	static const struct {
		double time;
		const char *mesh, *root_motion;
	} crowd[N] = {
		{ 1.37, "walker.md5mesh", "raw" },      { 1.37, "walker.md5mesh", "raw" },
		{ 1.37, "walker.md5mesh", "in_place" }, { 1.37, "walker.md5mesh", "raw" },
		{ 1.71, "walker.md5mesh", "raw" },      { 1.71, "walker.md5mesh", "raw" },
		{ 1.37, NULL, "raw" },                  { 1.37, NULL, "raw" },
	};
	struct fixture *fx = *state;
	unsigned char buf[N][64 + 64 * 48];
	uint64_t p0[N];
	struct rpc_reply r;
	struct mapped m;
	size_t bytes;

	open_stream(fx, "model", 250, N, &m);
	for (int i = 0; i < N; i++) {
		int64_t id;

		if (crowd[i].mesh != NULL)
			assert_int_equal(rpc_client_call(&fx->c, &r, "play",
							 "asset:s mesh:s stream:u loop:s root_motion:s",
							 "walker.md5anim", crowd[i].mesh, m.id, "loop",
							 crowd[i].root_motion), 0);
		else
			assert_int_equal(rpc_client_call(&fx->c, &r, "play",
							 "asset:s stream:u loop:s root_motion:s",
							 "walker.md5anim", m.id, "loop", crowd[i].root_motion),
					 0);
		if (r.error != NULL)
			fail_msg("play: %s %s", r.code, r.message);
		assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
		rpc_reply_free(&r);
		assert_int_equal(rpc_client_call(&fx->c, &r, "pause", "instance:u", (uint64_t)id), 0);
		rpc_reply_free(&r);
		assert_int_equal(rpc_client_call(&fx->c, &r, "seek", "instance:u time:d",
						 (uint64_t)id, crowd[i].time), 0);
		rpc_reply_free(&r);
	}
	for (int i = 0; i < N; i++)
		p0[i] = animd_shm_published(animd_shm_channel((void *)m.h, m.h, (uint32_t)i));
	wait_poses(&m, p0, N, 3);
	for (int i = 0; i < N; i++) {
		const struct animd_shm_slot *slot = (const void *)buf[i];

		assert_int_equal(latest(&m, (uint32_t)i, buf[i], sizeof buf[i]), 0);
		assert_true(animd_shm_verify(buf[i], m.h->element_stride));
		assert_true(fabs(slot->clip_time - (crowd[i].time - 1)) < 1e-9);
		assert_slot_sampled(fx, buf[i], crowd[i].time, crowd[i].mesh, "loop",
				    crowd[i].root_motion, i);
	}
	/* The test means something only if root motion moves the walker. */
	bytes = ((const struct animd_shm_slot *)(const void *)buf[0])->element_count * 48;
	assert_true(memcmp(buf[0] + 64, buf[2] + 64, bytes) != 0);
	assert_memory_equal(buf[0] + 64, buf[3] + 64, bytes);
	unmap(&m);
}

static int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The stream's shared_poses in `stats`. */
static uint64_t shared_poses(struct fixture *fx)
{
	struct rpc_reply r;
	const msgpack_object *streams;
	int64_t v = -1;

	assert_int_equal(rpc_client_call(&fx->c, &r, "stats", NULL), 0);
	assert_null(r.error);
	streams = rpc_get(r.result, "streams");
	assert_non_null(streams);
	assert_int_equal(streams->via.array.size, 1);
	assert_int_equal(rpc_get_i64(&streams->via.array.ptr[0], "shared_poses", &v), 0);
	rpc_reply_free(&r);
	return (uint64_t)v;
}

/*
 * `play`'s `at`: six walkers played with one `at` and `start` are in step
 * while they play, so each tick evaluates the first and copies its pose
 * for the other five (stats shared_poses), and every channel's pose of a
 * tick is the same, bit for bit, and what `sample` gives at its time.  An
 * `at` half a second back starts the instance half a second in; an `at`
 * more than a day away, or with `instance`, is refused.
 */
static void test_play_at_in_step(void **state)
{
	enum { N = 6 };
	struct fixture *fx = *state;
	unsigned char buf[N][64 + 64 * 48];
	int64_t at = monotonic_ns(), id = 0;
	uint64_t p0[N], shared0;
	struct rpc_reply r;
	struct mapped m;
	double t = 0;

	open_stream(fx, "model", 250, N + 1, &m);
	for (int i = 0; i < N; i++) {
		assert_int_equal(rpc_client_call(&fx->c, &r, "play",
						 "asset:s mesh:s stream:u loop:s start:d at:i",
						 "walker.md5anim", "walker.md5mesh", m.id, "loop", 0.25,
						 at), 0);
		if (r.error != NULL)
			fail_msg("play: %s %s", r.code, r.message);
		rpc_reply_free(&r);
	}
	shared0 = shared_poses(fx);
	for (int i = 0; i < N; i++)
		p0[i] = animd_shm_published(animd_shm_channel((void *)m.h, m.h, (uint32_t)i));
	wait_poses(&m, p0, N, 3);
	assert_true(shared_poses(fx) >= shared0 + 3 * (N - 1));
	/* The newest poses of one tick: retried until all six are the same
	 * tick's (a tick may land between two reads). */
	for (int tries = 0;; tries++) {
		bool one_tick = true;

		for (int i = 0; i < N; i++) {
			assert_int_equal(latest(&m, (uint32_t)i, buf[i], sizeof buf[i]), 0);
			one_tick = one_tick && ((const struct animd_shm_slot *)(const void *)buf[i])->tick ==
						       ((const struct animd_shm_slot *)(const void *)buf[0])->tick;
		}
		if (one_tick)
			break;
		if (tries == 100)
			fail_msg("no six poses of one tick in 100 tries");
	}
	for (int i = 1; i < N; i++) {
		const struct animd_shm_slot *a = (const void *)buf[0], *b = (const void *)buf[i];

		assert_true(a->clip_time == b->clip_time);
		assert_int_equal(a->element_count, b->element_count);
		assert_memory_equal(buf[0] + 64, buf[i] + 64, (size_t)a->element_count * 48);
	}
	assert_slot_sampled(fx, buf[0], ((const struct animd_shm_slot *)(const void *)buf[0])->clip_time,
			    "walker.md5mesh", "loop", "raw", 0);

	/* Half a second back: playing from 0.5 s on, not from 0. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s at:i", "walker.md5anim",
					 monotonic_ns() - 500000000LL), 0);
	assert_null(r.error);
	assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
	assert_int_equal(rpc_get_f64(r.result, "time", &t), 0);
	assert_true(t >= 0.5 && t < 5.5);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s at:i", "walker.md5anim",
					 monotonic_ns() + 86401LL * 1000000000LL), 0);
	assert_non_null(r.error);
	assert_string_equal(r.code, "bad_request");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u at:i", (uint64_t)id, at), 0);
	assert_non_null(r.error);
	assert_string_equal(r.code, "bad_request");
	rpc_reply_free(&r);
	unmap(&m);
}

static void test_idle_reader_and_hangups(void **state)
{
	struct fixture *fx = *state;
	struct rpc_client other;
	struct rpc_reply r;
	struct mapped m;
	int64_t v;
	pid_t child;
	uint64_t t0;

	/* Another client opens a stream, plays into it, never reads. */
	assert_int_equal(rpc_client_connect(&other, fx->d.socket, TIMEOUT_MS), 0);
	{
		struct rpc_client keep = fx->c;

		fx->c = other;
		open_stream(fx, "model", 200, 2, &m);
		play_into(fx, m.id, "walker.md5anim", NULL);
		other = fx->c;
		fx->c = keep;
	}
	t0 = m.h->ticks;
	usleep(200000);
	/* Ticks ran at their rate regardless (about 40 in 200 ms). */
	assert_true(m.h->ticks - t0 >= 20);

	/* A reader killed mid-read costs the daemon nothing. */
	child = fork();
	if (child == 0) {
		unsigned char buf[64 + 64 * 48];

		for (;;)
			latest(&m, 0, buf, sizeof buf);
	}
	usleep(50000);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	/* The owner hangs up with its stream open: the daemon frees it, the
	 * mapping stays readable and says closed. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "status", NULL), 0);
	assert_int_equal(rpc_get_i64(r.result, "streams", &v), 0);
	assert_int_equal(v, 1);
	rpc_reply_free(&r);
	rpc_client_close(&other);
	for (int i = 0; i < 200; i++) {
		int64_t streams = -1;

		assert_int_equal(rpc_client_call(&fx->c, &r, "status", NULL), 0);
		assert_int_equal(rpc_get_i64(r.result, "instances", &v), 0);
		assert_int_equal(rpc_get_i64(r.result, "streams", &streams), 0);
		rpc_reply_free(&r);
		v += streams;
		if (v == 0 && animd_shm_state(m.h) == ANIMD_SHM_STATE_CLOSED)
			break;
		usleep(10000);
	}
	assert_int_equal(v, 0);
	assert_int_equal(animd_shm_state(m.h), ANIMD_SHM_STATE_CLOSED);
	unmap(&m);
}

static void test_daemon_restart_visible(void **state)
{
	struct fixture *fx = *state;
	unsigned char buf[64 + 64 * 48];
	struct mapped m, m2;
	uint64_t epoch;

	open_stream(fx, "local", 60, 2, &m);
	play_into(fx, m.id, "walker.md5anim", NULL);
	epoch = m.h->epoch;
	rpc_client_close(&fx->c);
	assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	/* A clean stop closes every stream; the last pose is still readable. */
	assert_int_equal(animd_shm_state(m.h), ANIMD_SHM_STATE_CLOSED);
	assert_int_equal(latest(&m, 0, buf, sizeof buf), 0);
	assert_int_equal(daemon_proc_start(&fx->d, NULL, TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_connect(&fx->c, fx->d.socket, TIMEOUT_MS), 0);
	open_stream(fx, "local", 60, 2, &m2);
	assert_true(m2.h->epoch != epoch);
	unmap(&m);
	unmap(&m2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_map_read_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_cannot_be_tampered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_play_publishes_and_seek_is_immediate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_emitters_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attachments_stream, setup_m2s, teardown),
		cmocka_unit_test_setup_teardown(test_vertices_with_normals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spaces_and_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stress_no_torn_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ticks_reach_every_channel_in_use, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ticks_publish_sampled_poses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_step_instances, setup, teardown),
		cmocka_unit_test_setup_teardown(test_play_at_in_step, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_reader_and_hangups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_daemon_restart_visible, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
