/*
 * Layers and cross-fades in the real daemon, read through a local-space
 * stream: a fade from the walk to the idle pose has no jump at its start,
 * middle or end, lands on the idle pose exactly once it has run its
 * length, and blends like `sample` with the same stack in between; an
 * interrupted fade starts from the pose on screen; sync matches phases;
 * layer.add (masked override, additive), layer.set and layer.remove give
 * what `sample` with `layers` gives, and end with layer.ended; every loop
 * mode in a layer; the defaults (config, M2 blend_ms), the limit and the
 * refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proto/animd_shm.h"
#include "tests/support/daemon_proc.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 10000
#define JOINTS 10                       /* the demo walker's */
#define MS 1000000LL

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

/* One published local pose: the slot header, then ten floats a joint. */
struct pose {
	struct animd_shm_slot slot;
	float j[JOINTS][10];
};

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int start(struct fixture *fx, const char *ini)
{
	char cmd[1024];
	const char *build = getenv("BUILD");

	assert_int_equal(daemon_proc_init(&fx->d), 0);
	snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s >/dev/null", build ? build : "build",
		 fx->d.assets);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(daemon_proc_start(&fx->d, ini, TIMEOUT_MS), 0);
	return rpc_client_connect(&fx->c, fx->d.socket, TIMEOUT_MS);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	const char *events[] = { "instance.faded", "layer.ended", NULL };
	struct rpc_reply r;

	assert_int_equal(start(fx, "[limits]\nmax_layers_per_instance = 3\n"
				   "[playback]\ndefault_fade_ms = 300\n"), 0);
	assert_int_equal(rpc_client_call(&fx->c, &r, "subscribe", "events:S", events), 0);
	assert_null(r.error);
	rpc_reply_free(&r);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	rpc_client_close(&fx->c);
	assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&fx->d);
	free(fx);
	return 0;
}

static void open_local(struct fixture *fx, struct mapped *m)
{
	struct rpc_reply r;
	struct stat st;
	const char *why = NULL;
	int64_t v;

	assert_int_equal(rpc_client_call(&fx->c, &r, "stream.open", "space:s rate:u instances:u",
					 "local", (uint64_t)250, (uint64_t)4), 0);
	if (r.error != NULL)
		fail_msg("stream.open: %s %s", r.code, r.message);
	assert_int_equal(rpc_get_i64(r.result, "stream", &v), 0);
	m->id = (uint64_t)v;
	rpc_reply_free(&r);
	m->fd = rpc_client_take_fd(&fx->c);
	assert_true(m->fd >= 0);
	assert_int_equal(fstat(m->fd, &st), 0);
	m->bytes = (size_t)st.st_size;
	m->h = mmap(NULL, m->bytes, PROT_READ, MAP_SHARED, m->fd, 0);
	assert_true(m->h != MAP_FAILED);
	assert_int_equal(animd_shm_validate(m->h, m->bytes, &why), 0);
	assert_int_equal(m->h->element_stride, 40);
}

static void unmap(struct mapped *m)
{
	munmap((void *)m->h, m->bytes);
	close(m->fd);
}

/* The newest pose of channel 0 and its number (published - 1). */
static uint64_t latest(const struct mapped *m, struct pose *p)
{
	const struct animd_shm_channel *ch = animd_shm_channel((void *)m->h, m->h, 0);

	for (int tries = 0; tries < 100000; tries++) {
		uint64_t n = animd_shm_published(ch);

		if (n > 0 && animd_shm_read(m->h, ch, n - 1, p, sizeof *p) == 0) {
			assert_int_equal(p->slot.element_count, JOINTS);
			return n - 1;
		}
	}
	fail_msg("no pose could be read");
	return 0;
}

/* A reply's result, failing the test on an error reply. */
static const msgpack_object *ok(struct rpc_reply *r, const char *what)
{
	if (r->error != NULL)
		fail_msg("%s: %s %s", what, r->code, r->message);
	return r->result;
}

static void expect_error(struct rpc_reply *r, const char *code, const char *part)
{
	if (r->error == NULL)
		fail_msg("expected %s (%s), got a result", code, part);
	if (strcmp(r->code, code) != 0 || strstr(r->message, part) == NULL)
		fail_msg("expected %s with \"%s\", got %s: %s", code, part, r->code, r->message);
	rpc_reply_free(r);
}

static uint64_t play_walker(struct fixture *fx, const struct mapped *m, double start, bool paused)
{
	struct rpc_reply r;
	int64_t id;

	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s loop:s start:d stream:u",
					 "walker.md5anim", "once", start, m->id), 0);
	assert_int_equal(rpc_get_i64(ok(&r, "play"), "instance", &id), 0);
	rpc_reply_free(&r);
	if (paused) {
		assert_int_equal(rpc_client_call(&fx->c, &r, "pause", "instance:u", (uint64_t)id), 0);
		ok(&r, "pause");
		rpc_reply_free(&r);
	}
	return (uint64_t)id;
}

/* `sample` of asset at time in local space (layers: a packed array, or
 * NULL), into p's joints. */
static void sample_local(struct fixture *fx, const char *asset, double time,
			 const msgpack_sbuffer *layers, struct pose *p)
{
	struct rpc_reply r;
	const msgpack_object *joints;

	if (layers != NULL)
		assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d space:s loop:s layers:O",
						 asset, time, "local", "once", layers), 0);
	else
		assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d space:s loop:s",
						 asset, time, "local", "once"), 0);
	joints = rpc_get(ok(&r, "sample"), "joints");
	assert_non_null(joints);
	assert_int_equal(joints->via.array.size, JOINTS);
	for (uint32_t j = 0; j < JOINTS; j++) {
		const msgpack_object *jo = &joints->via.array.ptr[j];
		const char *keys[3] = { "t", "r", "s" };
		int k = 0;

		for (int f = 0; f < 3; f++) {
			const msgpack_object *a = rpc_get(jo, keys[f]);

			assert_non_null(a);
			for (uint32_t e = 0; e < a->via.array.size; e++)
				p->j[j][k++] = (float)a->via.array.ptr[e].via.f64;
		}
		assert_int_equal(k, 10);
	}
	rpc_reply_free(&r);
}

static double max_diff(const struct pose *a, const struct pose *b)
{
	double m = 0;

	for (int j = 0; j < JOINTS; j++)
		for (int k = 0; k < 10; k++)
			m = fmax(m, fabs((double)a->j[j][k] - b->j[j][k]));
	return m;
}

/* The instance's map in instances.list (reply kept in *r). */
static const msgpack_object *listed(struct fixture *fx, uint64_t id, struct rpc_reply *r)
{
	const msgpack_object *list;

	assert_int_equal(rpc_client_call(&fx->c, r, "instances.list", NULL), 0);
	list = rpc_get(ok(r, "instances.list"), "instances");
	for (uint32_t i = 0; list != NULL && i < list->via.array.size; i++) {
		int64_t v;

		if (rpc_get_i64(&list->via.array.ptr[i], "instance", &v) == 0 && (uint64_t)v == id)
			return &list->via.array.ptr[i];
	}
	fail_msg("instance %llu is not listed", (unsigned long long)id);
	return NULL;
}

static const msgpack_object *layers_of(const msgpack_object *inst)
{
	const msgpack_object *l = rpc_get(inst, "layers");

	assert_non_null(l);
	assert_int_equal(l->type, MSGPACK_OBJECT_ARRAY);
	return l;
}

static void wait_event(struct fixture *fx, const char *type, uint64_t id)
{
	struct rpc_event ev;
	int64_t got;

	for (;;) {
		if (rpc_client_next_event(&fx->c, TIMEOUT_MS, &ev) != 0)
			fail_msg("no %s event for instance %llu", type, (unsigned long long)id);
		if (strcmp(ev.type, type) == 0 && rpc_get_i64(ev.body, "instance", &got) == 0 &&
		    (uint64_t)got == id) {
			rpc_event_free(&ev);
			return;
		}
		rpc_event_free(&ev);
	}
}

/*
 * Consecutive poses change no faster than the clips and the fade allow:
 * per component, |delta| <= rate * dt + slack, with dt between their
 * publish stamps.  A cut (the fade's end reached at once, or an
 * interruption that restarted from the clip instead of the screen) moves
 * the root by more than ten units.
 */
static void assert_continuous(const struct pose *a, const struct pose *b, double fade_s)
{
	double dt = (double)(b->slot.publish_ns - a->slot.publish_ns) / 1e9;

	for (int j = 0; j < JOINTS; j++)
		for (int k = 0; k < 10; k++) {
			double rate = k < 3 ? 60.0 + 120.0 / fade_s : 10.0 + 2.0 / fade_s;
			double slack = k < 3 ? 0.5 : 0.02;
			double d = fabs((double)b->j[j][k] - a->j[j][k]);

			if (d > rate * dt + slack)
				fail_msg("pose %llu -> %llu: joint %d component %d jumps by %g in %g s",
					 (unsigned long long)a->slot.tick, (unsigned long long)b->slot.tick,
					 j, k, d, dt);
		}
}

/* Watch channel 0 until `until_ns`, checking every pair of poses read,
 * from *last (read before) on; the last one read in *last. */
static void watch(const struct mapped *m, int64_t until_ns, double fade_s, struct pose *last)
{
	struct pose p;
	uint64_t n = UINT64_MAX, k;

	while (mono_ns() < until_ns) {
		k = latest(m, &p);
		if (k == n || p.slot.publish_ns == last->slot.publish_ns) {
			usleep(1000);
			continue;
		}
		assert_continuous(last, &p, fade_s);
		*last = p;
		n = k;
	}
}

/* A pose between the walk at its clip time and the idle pose: the weight
 * read off the root (idle's is at 0, the walk's at 60 units a second)
 * gives every other joint, as `sample` with the same stack gives it. */
static void assert_mid_fade(struct fixture *fx, const struct pose *p)
{
	struct pose want;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	double w = 1.0 - p->j[0][0] / (60.0 * p->slot.clip_time);

	assert_true(w > 0.01 && w < 0.99);
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 1);
	msgpack_pack_map(&pk, 3);
	msgpack_pack_str_with_body(&pk, "asset", 5);
	msgpack_pack_str_with_body(&pk, "idle.md5anim", 12);
	msgpack_pack_str_with_body(&pk, "time", 4);
	msgpack_pack_double(&pk, 1.0);         /* played once: its last frame */
	msgpack_pack_str_with_body(&pk, "weight", 6);
	msgpack_pack_double(&pk, w);
	sample_local(fx, "walker.md5anim", p->slot.clip_time, &sb, &want);
	msgpack_sbuffer_destroy(&sb);
	if (max_diff(p, &want) > 2e-3)
		fail_msg("mid-fade pose at weight %g differs from sample's by %g", w,
			 max_diff(p, &want));
}

static void test_fade_lands_exactly(void **state)
{
	struct fixture *fx = *state;
	struct pose before, p, idle;
	struct rpc_reply r;
	struct mapped m;
	int64_t sent, replied, fade_ns = 400 * MS;
	uint64_t id, n;
	const msgpack_object *l;
	int mids = 0;
	char mode[16] = "";

	open_local(fx, &m);
	id = play_walker(fx, &m, 0.1, false);
	/* The idle pose played once holds its last frame. */
	sample_local(fx, "idle.md5anim", 1.0, NULL, &idle);
	latest(&m, &before);
	sent = mono_ns();
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u asset:s loop:s fade:d", id,
					 "idle.md5anim", "once", 0.4), 0);
	replied = mono_ns();
	l = layers_of(ok(&r, "play"));
	assert_int_equal(l->via.array.size, 1);
	rpc_get_str(&l->via.array.ptr[0], "mode", mode, sizeof mode);
	assert_string_equal(mode, "fade");
	rpc_reply_free(&r);
	/* The start: the first pose after the request continues the last. */
	n = latest(&m, &p);
	assert_continuous(&before, &p, 0.4);
	/* Poses as they come: continuous; before the fade's length has run
	 * never the idle pose, a few checked against sample's blend; after
	 * it (and a margin for the tick's own time) exactly the idle pose. */
	before = p;
	while (mono_ns() < replied + fade_ns + 150 * MS) {
		uint64_t k;

		usleep(1000);
		k = latest(&m, &p);
		if (k == n)
			continue;
		n = k;
		assert_continuous(&before, &p, 0.4);
		before = p;
		if (p.slot.publish_ns < sent + fade_ns - 20 * MS) {
			assert_true(max_diff(&p, &idle) > 1e-3);
			if (p.slot.publish_ns > sent + 100 * MS && mids < 3 &&
			    p.slot.publish_ns > sent + 100 * MS * (mids + 1)) {
				assert_mid_fade(fx, &p);
				mids++;
			}
		} else if (p.slot.publish_ns > replied + fade_ns + 20 * MS) {
			if (max_diff(&p, &idle) != 0)
				fail_msg("%g ms after the fade's end the pose is %g off the idle pose",
					 (p.slot.publish_ns - replied - fade_ns) / 1e6, max_diff(&p, &idle));
		}
	}
	assert_true(mids >= 1);
	/* The fade became the instance's clip: instance.faded, no layers. */
	wait_event(fx, "instance.faded", id);
	{
		const msgpack_object *in = listed(fx, id, &r);
		char clip[32] = "";

		rpc_get_str(in, "clip", clip, sizeof clip);
		assert_string_equal(clip, "idle");
		assert_int_equal(layers_of(in)->via.array.size, 0);
		rpc_reply_free(&r);
	}
	latest(&m, &p);
	assert_true(max_diff(&p, &idle) == 0);
	unmap(&m);
}

/* A second fade half-way through the first starts from the pose on
 * screen (the first keeps running under it), never from either clip. */
static void test_interrupted_fade_continuous(void **state)
{
	struct fixture *fx = *state;
	struct pose p, walk;
	struct rpc_reply r;
	struct mapped m;
	uint64_t id;
	int64_t t0;

	open_local(fx, &m);
	id = play_walker(fx, &m, 0, false);
	latest(&m, &p);
	t0 = mono_ns();
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u asset:s fade:d", id,
					 "idle.md5anim", 0.5), 0);
	ok(&r, "play");
	rpc_reply_free(&r);
	watch(&m, t0 + 250 * MS, 0.3, &p);
	/* The walk again from half-way (its root 30 units out): a fade that
	 * restarted from a clip instead of the screen would jump. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play",
					 "instance:u asset:s loop:s start:d fade:d", id,
					 "walker.md5anim", "once", 0.5, 0.3), 0);
	assert_int_equal(layers_of(ok(&r, "play"))->via.array.size, 2);
	rpc_reply_free(&r);
	watch(&m, mono_ns() + 450 * MS, 0.3, &p);
	/* Both fades ended: the walk again, from where its fade started it. */
	wait_event(fx, "instance.faded", id);
	wait_event(fx, "instance.faded", id);
	latest(&m, &p);
	sample_local(fx, "walker.md5anim", p.slot.clip_time, NULL, &walk);
	assert_true(max_diff(&p, &walk) == 0);
	assert_true(p.slot.clip_time > 0.8);
	unmap(&m);
}

static double layer_f64(const msgpack_object *layer, const char *key)
{
	double v = NAN;

	assert_int_equal(rpc_get_f64(layer, key, &v), 0);
	return v;
}

/* sync: the new clip starts at the old one's phase.  Paused, so nothing
 * moves between the request and the check. */
static void test_sync_phase(void **state)
{
	struct fixture *fx = *state;
	struct rpc_reply r;
	struct mapped m;
	uint64_t id;
	const msgpack_object *l;

	double phase;

	open_local(fx, &m);
	id = play_walker(fx, &m, 0.25, true);
	phase = layer_f64(listed(fx, id, &r), "clip_time");     /* of the 1 s walk */
	rpc_reply_free(&r);
	assert_true(phase >= 0.25 && phase < 0.5);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u asset:s fade:d sync:b", id,
					 "idle.md5anim", 1.0, 1), 0);
	l = layers_of(ok(&r, "play"));
	/* The walk's phase of the idle pose's 2/24 s. */
	assert_true(fabs(layer_f64(&l->via.array.ptr[0], "clip_time") - phase * 2 / 24.0) < 1e-8);
	rpc_reply_free(&r);
	/* Without sync the clip starts at "start" (0). */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u asset:s fade:d", id,
					 "walker.md5anim", 1.0), 0);
	l = layers_of(ok(&r, "play"));
	assert_int_equal(l->via.array.size, 2);
	assert_true(layer_f64(&l->via.array.ptr[1], "clip_time") == 0);
	rpc_reply_free(&r);
	/* The idle fade was synced to the walk, the walk's to the idle pose
	 * on top of it: the newest fade's phase is what sync follows. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "stop", "instance:u", id), 0);
	rpc_reply_free(&r);
	unmap(&m);
}

static void pack_str(msgpack_packer *pk, const char *s)
{
	msgpack_pack_str_with_body(pk, s, strlen(s));
}

/* A one-layer stack for sample: idle, weight w, over the spine. */
static void pack_masked_idle(msgpack_sbuffer *sb, double w)
{
	msgpack_packer pk;

	msgpack_sbuffer_init(sb);
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 1);
	msgpack_pack_map(&pk, 4);
	pack_str(&pk, "asset");
	pack_str(&pk, "idle.md5anim");
	pack_str(&pk, "time");
	msgpack_pack_double(&pk, 0);
	pack_str(&pk, "weight");
	msgpack_pack_double(&pk, w);
	pack_str(&pk, "mask");
	msgpack_pack_array(&pk, 1);
	msgpack_pack_map(&pk, 1);
	pack_str(&pk, "joints");
	msgpack_pack_array(&pk, 1);
	pack_str(&pk, "spine");
}

static void test_layers_match_sample(void **state)
{
	struct fixture *fx = *state;
	struct pose p, want, walk;
	msgpack_sbuffer mask, add;
	msgpack_packer pk;
	struct rpc_reply r;
	struct mapped m;
	uint64_t id;
	int64_t layer, additive;
	const msgpack_object *l;

	double at;

	open_local(fx, &m);
	id = play_walker(fx, &m, 0.25, true);
	latest(&m, &p);
	at = p.slot.clip_time;          /* paused just after 0.25 */
	sample_local(fx, "walker.md5anim", at, NULL, &walk);
	assert_true(max_diff(&p, &walk) == 0);
	/* A masked override: the spine's subtree half-way to idle. */
	msgpack_sbuffer_init(&mask);
	msgpack_packer_init(&pk, &mask, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 1);
	msgpack_pack_map(&pk, 1);
	pack_str(&pk, "joints");
	msgpack_pack_array(&pk, 1);
	pack_str(&pk, "spine");
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.add", "instance:u asset:s weight:d mask:O",
					 id, "idle.md5anim", 0.5, &mask), 0);
	assert_int_equal(rpc_get_i64(ok(&r, "layer.add"), "layer", &layer), 0);
	l = layers_of(r.result);
	assert_int_equal(l->via.array.size, 1);
	{
		const msgpack_object *mk = rpc_get(&l->via.array.ptr[0], "mask");
		char joint[16] = "";

		assert_non_null(mk);
		assert_int_equal(mk->via.array.size, 1);
		rpc_get_str(&mk->via.array.ptr[0], "joint", joint, sizeof joint);
		assert_string_equal(joint, "spine");
	}
	rpc_reply_free(&r);
	msgpack_sbuffer_destroy(&mask);
	latest(&m, &p);
	pack_masked_idle(&mask, 0.5);
	sample_local(fx, "walker.md5anim", at, &mask, &want);
	msgpack_sbuffer_destroy(&mask);
	assert_true(max_diff(&p, &want) < 1e-6);
	assert_true(max_diff(&p, &walk) > 1e-3);
	/* The legs are outside the mask: the walk's, bit for bit. */
	assert_memory_equal(p.j[4], walk.j[4], sizeof p.j[4]);
	assert_memory_equal(p.j[7], walk.j[7], sizeof p.j[7]);

	/* An additive walk at 0.6 over it, against its first frame. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.add",
					 "instance:u mode:s start:d loop:s", id, "additive", 0.6,
					 "once"), 0);
	assert_int_equal(rpc_get_i64(ok(&r, "layer.add"), "layer", &additive), 0);
	rpc_reply_free(&r);
	latest(&m, &p);
	msgpack_sbuffer_init(&add);
	msgpack_packer_init(&pk, &add, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 2);
	msgpack_pack_map(&pk, 4);
	pack_str(&pk, "asset");
	pack_str(&pk, "idle.md5anim");
	pack_str(&pk, "time");
	msgpack_pack_double(&pk, 0);
	pack_str(&pk, "weight");
	msgpack_pack_double(&pk, 0.5);
	pack_str(&pk, "mask");
	msgpack_pack_array(&pk, 1);
	msgpack_pack_map(&pk, 1);
	pack_str(&pk, "joints");
	msgpack_pack_array(&pk, 1);
	pack_str(&pk, "spine");
	msgpack_pack_map(&pk, 2);
	pack_str(&pk, "time");
	msgpack_pack_double(&pk, 0.6);
	pack_str(&pk, "mode");
	pack_str(&pk, "additive");
	sample_local(fx, "walker.md5anim", at, &add, &want);
	msgpack_sbuffer_destroy(&add);
	assert_true(max_diff(&p, &want) < 1e-5);

	/* layer.set to 0: the override no longer shows; to 1: the spine is
	 * the idle pose's (then the additive on top). */
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.remove", "instance:u layer:u", id,
					 (uint64_t)additive), 0);
	assert_int_equal(layers_of(ok(&r, "layer.remove"))->via.array.size, 1);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.set", "instance:u layer:u weight:d", id,
					 (uint64_t)layer, 0.0), 0);
	ok(&r, "layer.set");
	rpc_reply_free(&r);
	latest(&m, &p);
	assert_true(max_diff(&p, &walk) == 0);
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.set", "instance:u layer:u weight:d", id,
					 (uint64_t)layer, 1.0), 0);
	rpc_reply_free(&r);
	latest(&m, &p);
	pack_masked_idle(&mask, 1.0);
	sample_local(fx, "walker.md5anim", at, &mask, &want);
	msgpack_sbuffer_destroy(&mask);
	assert_true(max_diff(&p, &want) == 0);

	/* Removed with a fade (the daemon's clock runs, paused or not):
	 * layer.ended, then the walk alone. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.remove", "instance:u layer:u fade:d", id,
					 (uint64_t)layer, 0.1), 0);
	l = layers_of(ok(&r, "layer.remove"));
	assert_true(l->via.array.ptr[0].type == MSGPACK_OBJECT_MAP);
	assert_true(rpc_get(&l->via.array.ptr[0], "removing")->via.boolean);
	rpc_reply_free(&r);
	wait_event(fx, "layer.ended", id);
	assert_int_equal(layers_of(listed(fx, id, &r))->via.array.size, 0);
	rpc_reply_free(&r);
	latest(&m, &p);
	assert_true(max_diff(&p, &walk) == 0);
	assert_int_equal(rpc_client_call(&fx->c, &r, "stop", "instance:u", id), 0);
	rpc_reply_free(&r);
	unmap(&m);
}

/* A layer's clip plays in its own loop mode: paused at 1.3 s of a 1 s
 * clip, once holds the end, loop wraps, pingpong comes back. */
static void test_layer_loop_modes(void **state)
{
	struct fixture *fx = *state;
	static const char *const modes[3] = { "once", "loop", "pingpong" };
	static const double want[3] = { 1.0, 0.3, 0.7 };
	struct rpc_reply r;
	struct mapped m;
	uint64_t id;

	open_local(fx, &m);
	id = play_walker(fx, &m, 0, true);
	for (int i = 0; i < 3; i++) {
		const msgpack_object *l;
		char loop[16] = "";

		assert_int_equal(rpc_client_call(&fx->c, &r, "layer.add",
						 "instance:u start:d loop:s weight:d", id, 1.3,
						 modes[i], 0.5), 0);
		l = layers_of(ok(&r, "layer.add"));
		assert_int_equal(l->via.array.size, (uint32_t)i + 1);
		rpc_get_str(&l->via.array.ptr[i], "loop", loop, sizeof loop);
		assert_string_equal(loop, modes[i]);
		assert_true(fabs(layer_f64(&l->via.array.ptr[i], "clip_time") - want[i]) < 1e-8);
		assert_true(fabs(layer_f64(&l->via.array.ptr[i], "time") - 1.3) < 1e-12);
		rpc_reply_free(&r);
	}
	/* Three layers is this daemon's limit (max_layers_per_instance). */
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.add", "instance:u", id), 0);
	expect_error(&r, "limit", "limits.max_layers_per_instance");
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u fade:d", id, 0.5), 0);
	expect_error(&r, "limit", "limits.max_layers_per_instance");
	assert_int_equal(rpc_client_call(&fx->c, &r, "stop", "instance:u", id), 0);
	rpc_reply_free(&r);
	unmap(&m);
}

/* Without "fade": the configuration's default (300 ms here); an M2 its
 * target sequence's blend_ms (0 for sequence 1: a cut; 150 for 0). */
static void test_default_fades(void **state)
{
	struct fixture *fx = *state;
	struct rpc_reply r;
	const msgpack_object *l;
	int64_t id, lantern;
	char clip[16] = "";
	double left;

	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s", "walker.md5anim"), 0);
	assert_int_equal(rpc_get_i64(ok(&r, "play"), "instance", &id), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u asset:s", (uint64_t)id,
					 "idle.md5anim"), 0);
	l = layers_of(ok(&r, "play"));
	assert_int_equal(l->via.array.size, 1);
	left = layer_f64(&l->via.array.ptr[0], "fade_left");
	assert_true(left > 0.2 && left <= 0.3);
	rpc_reply_free(&r);

	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s clip:s", "lantern.m2", "0"), 0);
	assert_int_equal(rpc_get_i64(ok(&r, "play"), "instance", &lantern), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u clip:s", (uint64_t)lantern,
					 "1"), 0);
	assert_int_equal(layers_of(ok(&r, "play"))->via.array.size, 0);
	rpc_get_str(r.result, "clip", clip, sizeof clip);
	assert_string_equal(clip, "1");
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u clip:s", (uint64_t)lantern,
					 "0"), 0);
	l = layers_of(ok(&r, "play"));
	assert_int_equal(l->via.array.size, 1);
	left = layer_f64(&l->via.array.ptr[0], "fade_left");
	assert_true(left > 0.05 && left <= 0.15);
	rpc_reply_free(&r);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

/* A layer's asset reloaded: the layer plays the new version (rebound by
 * its clip name, the pose published at once); removed: the instance stops,
 * the reason saying which layer. */
static void test_layer_follows_reload(void **state)
{
	struct fixture *fx = *state;
	const char *events[] = { "instance.stopped", "asset.reloaded", "asset.loaded", NULL };
	char path[512], reason[32] = "", message[256] = "";
	char *idle, *walk;
	struct pose p, want;
	struct rpc_reply r;
	struct rpc_event ev;
	struct mapped m;
	uint64_t id;

	assert_int_equal(rpc_client_call(&fx->c, &r, "subscribe", "events:S", events), 0);
	rpc_reply_free(&r);
	snprintf(path, sizeof path, "%s/idle.md5anim", fx->d.assets);
	idle = slurp(path);
	snprintf(path, sizeof path, "%s/walker.md5anim", fx->d.assets);
	walk = slurp(path);
	assert_int_equal(daemon_proc_write_asset(&fx->d, "pose.md5anim", idle), 0);
	/* A new file: the watcher finds it. */
	for (;;) {
		char asset[64] = "";
		bool loaded;

		assert_int_equal(rpc_client_next_event(&fx->c, TIMEOUT_MS, &ev), 0);
		rpc_get_str(ev.body, "asset", asset, sizeof asset);
		loaded = strcmp(ev.type, "asset.loaded") == 0 && strcmp(asset, "pose.md5anim") == 0;
		rpc_event_free(&ev);
		if (loaded)
			break;
	}

	open_local(fx, &m);
	id = play_walker(fx, &m, 0.25, true);
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.add", "instance:u asset:s", id,
					 "pose.md5anim"), 0);
	ok(&r, "layer.add");
	rpc_reply_free(&r);
	latest(&m, &p);
	sample_local(fx, "idle.md5anim", 0, NULL, &want);
	assert_true(max_diff(&p, &want) == 0);

	/* The file becomes a walk (its clip is still "pose"): the layer, at
	 * its time 0, shows the walk's first frame. */
	assert_int_equal(daemon_proc_write_asset(&fx->d, "pose.md5anim", walk), 0);
	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.reload", "asset:s", "pose.md5anim"), 0);
	ok(&r, "assets.reload");
	rpc_reply_free(&r);
	latest(&m, &p);
	sample_local(fx, "walker.md5anim", 0, NULL, &want);
	assert_true(max_diff(&p, &want) == 0);
	{
		const msgpack_object *l = layers_of(listed(fx, id, &r));
		char clip[16] = "";

		assert_int_equal(l->via.array.size, 1);
		rpc_get_str(&l->via.array.ptr[0], "clip", clip, sizeof clip);
		assert_string_equal(clip, "pose");
		rpc_reply_free(&r);
	}

	/* Gone: the instance stops. */
	snprintf(path, sizeof path, "%s/pose.md5anim", fx->d.assets);
	assert_int_equal(unlink(path), 0);
	for (;;) {
		assert_int_equal(rpc_client_next_event(&fx->c, TIMEOUT_MS, &ev), 0);
		if (strcmp(ev.type, "instance.stopped") == 0)
			break;
		rpc_event_free(&ev);
	}
	rpc_get_str(ev.body, "reason", reason, sizeof reason);
	rpc_get_str(ev.body, "message", message, sizeof message);
	rpc_event_free(&ev);
	assert_string_equal(reason, "asset_removed");
	if (strstr(message, "layer 1") == NULL)
		fail_msg("the reason does not name the layer: %s", message);
	free(idle);
	free(walk);
	unmap(&m);
}

static void test_refusals(void **state)
{
	struct fixture *fx = *state;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct rpc_reply r;
	int64_t id, cam, fade_layer;

	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s", "walker.md5anim"), 0);
	assert_int_equal(rpc_get_i64(ok(&r, "play"), "instance", &id), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s fade:d", "walker.md5anim", 1.0), 0);
	expect_error(&r, "bad_request", "\"instance\"");
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u mesh:s", (uint64_t)id,
					 "walker.md5mesh"), 0);
	expect_error(&r, "bad_request", "not with \"instance\"");
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u sync:b start:d",
					 (uint64_t)id, 1, 0.5), 0);
	expect_error(&r, "bad_request", "\"sync\"");
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u fade:d", (uint64_t)id, -1.0), 0);
	expect_error(&r, "bad_request", "\"fade\"");
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u asset:s", (uint64_t)id,
					 "crane.x"), 0);
	expect_error(&r, "asset_error", "does not fit");
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u", (uint64_t)999999), 0);
	expect_error(&r, "not_found", "no instance");
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.add", "instance:u weight:d", (uint64_t)id,
					 2.0), 0);
	expect_error(&r, "bad_request", "\"weight\"");
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.add", "instance:u mode:s", (uint64_t)id,
					 "multiply"), 0);
	expect_error(&r, "bad_request", "\"mode\"");
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.add", "instance:u clip:s", (uint64_t)id,
					 "nope"), 0);
	expect_error(&r, "not_found", "no clip named \"nope\"");
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 1);
	msgpack_pack_map(&pk, 1);
	pack_str(&pk, "joints");
	msgpack_pack_array(&pk, 1);
	pack_str(&pk, "nose");
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.add", "instance:u mask:O", (uint64_t)id,
					 &sb), 0);
	expect_error(&r, "not_found", "no joint named \"nose\"");
	msgpack_sbuffer_destroy(&sb);
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 1);
	pack_str(&pk, "clip");
	pack_str(&pk, "walker");
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.add", "instance:u reference:O",
					 (uint64_t)id, &sb), 0);
	expect_error(&r, "bad_request", "additive");
	msgpack_sbuffer_destroy(&sb);
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.set", "instance:u layer:u weight:d",
					 (uint64_t)id, (uint64_t)77, 0.5), 0);
	expect_error(&r, "not_found", "no layer 77");
	/* A cross-fade's layer is play's to end. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u fade:d", (uint64_t)id, 5.0), 0);
	assert_int_equal(rpc_get_i64(&layers_of(ok(&r, "play"))->via.array.ptr[0], "layer",
				     &fade_layer), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "layer.remove", "instance:u layer:u",
					 (uint64_t)id, (uint64_t)fade_layer), 0);
	expect_error(&r, "bad_request", "cross-fade");
	/* A camera has no skeleton to blend. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "asset:s", "orbit.md5camera"), 0);
	assert_int_equal(rpc_get_i64(ok(&r, "play"), "instance", &cam), 0);
	rpc_reply_free(&r);
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:u asset:s fade:d",
					 (uint64_t)cam, "walker.md5anim", 1.0), 0);
	expect_error(&r, "unsupported", "camera");
	/* sample's layers: an unknown clip, a weight out of range. */
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 1);
	msgpack_pack_map(&pk, 2);
	pack_str(&pk, "clip");
	pack_str(&pk, "nope");
	pack_str(&pk, "time");
	msgpack_pack_double(&pk, 0);
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d layers:O",
					 "walker.md5anim", 0.0, &sb), 0);
	expect_error(&r, "not_found", "layer 0");
	msgpack_sbuffer_destroy(&sb);
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 1);
	msgpack_pack_map(&pk, 2);
	pack_str(&pk, "time");
	msgpack_pack_double(&pk, 0);
	pack_str(&pk, "weight");
	msgpack_pack_double(&pk, 1.5);
	assert_int_equal(rpc_client_call(&fx->c, &r, "sample", "asset:s time:d layers:O",
					 "walker.md5anim", 0.0, &sb), 0);
	expect_error(&r, "bad_request", "layers[0]");
	msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fade_lands_exactly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupted_fade_continuous, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_phase, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layers_match_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer_loop_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_fades, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layer_follows_reload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
