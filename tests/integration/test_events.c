/*
 * clip.event end to end: the real daemon playing a classic (256) M2 whose
 * one 1 s sequence has two events, at 0.25 s ("$FS1", on bone 0) and 0.7 s
 * (an id of odd bytes, on a bone the file does not have), their ranges
 * written half-open as the reader takes them.  assets.info lists them;
 * a loop played at speed 2 reports every crossing in order with its clip
 * time, playback time and the clock reading worked out from `at`; speed -2
 * reports them backwards; a start counts its instant, pause, resume and a
 * seek report nothing of their own, a speed change keeps the position;
 * events: false and a connection that has not subscribed get none; a
 * reload rebinds to the new times; a cut and a cross-fade's end begin the
 * new clip's; extreme speeds are capped at 256 a firing with `missed`
 * accounting for every one dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/daemon_proc.h"
#include "tests/support/m2_writer.h"
#include "tests/support/rpc_client.h"

#define TIMEOUT_MS 10000
#define MS 1000000LL
#define S 1000000000LL

struct fixture {
	struct daemon_proc d;
	struct rpc_client c;
};

/* One clip.event as received. */
struct got {
	int64_t instance;
	int64_t event;
	char id[32];
	int64_t data, bone;
	bool joint_nil;
	int64_t joint;
	double position[3];
	double time, playback_time;
	int64_t at_ns;
	char direction[16];
	int64_t missed;
	char clip[16];
};

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * S + ts.tv_nsec;
}

static void sleep_until(int64_t t_ns)
{
	struct timespec ts = { (time_t)(t_ns / S), (long)(t_ns % S) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* ---- the model ---------------------------------------------------------- */

static const uint32_t bone_t[] = { 0, 1000 };
static const float bone_v[] = { 0, 0, 0, 1, 0, 0 };
static const uint32_t half_open[] = { 0, 1 };   /* sequence 0 holds key 0: [0, 1) */

/* The model with its events at e0_ms and e1_ms; sequence 1 (id 5) is a
 * second 1 s clip with the first event at 100 ms, for cuts and fades. */
static void build_model(struct m2w_file *f, uint32_t e0_ms, uint32_t e1_ms)
{
	static uint32_t t0[2], t1[2];
	static const uint32_t ranges2[] = { 0, 1, 1, 2 };
	struct m2w_sequence seq[2] = {
		{ .id = 0, .end_ms = 1000, .flags = M2_SEQ_IN_MODEL, .next_variation = -1 },
		{ .id = 5, .start_ms = 2000, .end_ms = 3000, .flags = M2_SEQ_IN_MODEL,
		  .next_variation = -1, .alias_next = 1 },
	};
	struct m2w_bone bone = { .key_bone_id = -1, .parent = -1,
				 .t = { .interpolation = M2_INTERP_LINEAR, .count = 2, .times = bone_t,
					.values = bone_v, .ranges = M2W_RANGES_ALL } };
	struct m2w_attachment att = { .id = 1, .bone = 0, .position = { 0, 0.5f, 1 } };
	struct m2w_event ev[2] = {
		{ .id = { '$', 'F', 'S', '1' }, .data = 11, .bone = 0, .position = { 1, 2, 3 },
		  .enabled = { .count = 2, .times = t0, .ranges = M2W_RANGES_GIVEN,
			       .range_count = 2, .given = ranges2 } },
		{ .id = { 'A', '\\', '\x01', '\xff' }, .data = 22, .bone = 9,
		  .position = { 0, 0, 0.5f },
		  .enabled = { .count = 1, .times = t1, .ranges = M2W_RANGES_GIVEN,
			       .range_count = 1, .given = half_open } },
	};
	struct m2w_model m = { .sequence_count = 2, .sequences = seq, .bone_count = 1,
			       .bones = &bone, .attachment_count = 1, .attachments = &att,
			       .event_count = 2, .events = ev };

	t0[0] = e0_ms;
	t0[1] = 2100;                   /* sequence 1's: 100 ms into it */
	t1[0] = e1_ms;
	m2w_build(&m, f);
}

static void write_model(struct fixture *fx, uint32_t e0_ms, uint32_t e1_ms)
{
	struct m2w_file f;

	build_model(&f, e0_ms, e1_ms);
	assert_int_equal(m2w_write_files(&f, fx->d.assets, "steps"), 0);
	m2w_file_free(&f);
}

/* ---- fixture ------------------------------------------------------------ */

static void expect_ok(const struct rpc_reply *r)
{
	if (r->error != NULL)
		fail_msg("unexpected error %s: %s", r->code, r->message);
	assert_non_null(r->result);
}

static void subscribe(struct fixture *fx, const char *const *events)
{
	struct rpc_reply r;

	assert_int_equal(rpc_client_call(&fx->c, &r, "subscribe", "events:S", events), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
}

static const char *const clip_events[] = { "clip.event", "asset.loaded", "asset.reloaded", NULL };

/* Wait for an asset event about steps.m2. */
static void expect_asset_event(struct fixture *fx, const char *type)
{
	for (;;) {
		struct rpc_event ev;
		char name[64] = "";

		if (rpc_client_next_event(&fx->c, TIMEOUT_MS, &ev) != 0)
			fail_msg("no %s event for steps.m2 (log: %s)", type, fx->d.log);
		rpc_get_str(ev.body, "asset", name, sizeof name);
		if (strcmp(ev.type, type) == 0 && strcmp(name, "steps.m2") == 0) {
			rpc_event_free(&ev);
			return;
		}
		rpc_event_free(&ev);
	}
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);

	assert_non_null(fx);
	assert_int_equal(daemon_proc_init(&fx->d), 0);
	assert_int_equal(daemon_proc_start(&fx->d, "[reload]\nquiet_ms = 50\n", TIMEOUT_MS), 0);
	assert_int_equal(rpc_client_connect(&fx->c, fx->d.socket, TIMEOUT_MS), 0);
	subscribe(fx, clip_events);
	write_model(fx, 250, 700);
	expect_asset_event(fx, "asset.loaded");
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

/* ---- helpers ------------------------------------------------------------ */

static void parse_got(const msgpack_object *b, struct got *g)
{
	const msgpack_object *joint = rpc_get(b, "joint"), *pos = rpc_get(b, "position");

	memset(g, 0, sizeof *g);
	assert_int_equal(rpc_get_i64(b, "instance", &g->instance), 0);
	assert_int_equal(rpc_get_i64(b, "event", &g->event), 0);
	assert_int_equal(rpc_get_str(b, "id", g->id, sizeof g->id), 0);
	assert_int_equal(rpc_get_str(b, "clip", g->clip, sizeof g->clip), 0);
	assert_int_equal(rpc_get_i64(b, "data", &g->data), 0);
	assert_int_equal(rpc_get_i64(b, "bone", &g->bone), 0);
	assert_non_null(joint);
	g->joint_nil = joint->type == MSGPACK_OBJECT_NIL;
	if (!g->joint_nil)
		assert_int_equal(rpc_get_i64(b, "joint", &g->joint), 0);
	assert_non_null(pos);
	assert_int_equal(pos->type, MSGPACK_OBJECT_ARRAY);
	assert_int_equal(pos->via.array.size, 3);
	for (int k = 0; k < 3; k++)
		g->position[k] = pos->via.array.ptr[k].via.f64;
	assert_int_equal(rpc_get_f64(b, "time", &g->time), 0);
	assert_int_equal(rpc_get_f64(b, "playback_time", &g->playback_time), 0);
	assert_int_equal(rpc_get_i64(b, "at_ns", &g->at_ns), 0);
	assert_int_equal(rpc_get_str(b, "direction", g->direction, sizeof g->direction), 0);
	assert_int_equal(rpc_get_i64(b, "missed", &g->missed), 0);
}

/* play steps.m2: returns the instance; *p_reply its playback time in the
 * reply.  at 0: no anchor. */
static int64_t play(struct fixture *fx, const char *clip, double speed, double start, int64_t at,
		    int events, double *p_reply)
{
	struct rpc_reply r;
	int64_t id;

	if (at != 0)
		assert_int_equal(rpc_client_call(&fx->c, &r, "play",
						 "asset:s clip:s speed:d start:d at:i events:b",
						 "steps.m2", clip, speed, start, at, events), 0);
	else
		assert_int_equal(rpc_client_call(&fx->c, &r, "play",
						 "asset:s clip:s speed:d start:d events:b",
						 "steps.m2", clip, speed, start, events), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_i64(r.result, "instance", &id), 0);
	if (p_reply != NULL)
		assert_int_equal(rpc_get_f64(r.result, "time", p_reply), 0);
	rpc_reply_free(&r);
	return id;
}

/* A control call on an instance; returns the playback time it reports. */
static double control(struct fixture *fx, const char *method, int64_t id, const char *key,
		      double v)
{
	struct rpc_reply r;
	double t;
	char fmt[64];

	snprintf(fmt, sizeof fmt, "instance:i%s%s%s", key ? " " : "", key ? key : "",
		 key ? ":d" : "");
	if (key != NULL)
		assert_int_equal(rpc_client_call(&fx->c, &r, method, fmt, id, v), 0);
	else
		assert_int_equal(rpc_client_call(&fx->c, &r, method, fmt, id), 0);
	expect_ok(&r);
	assert_int_equal(rpc_get_f64(r.result, "time", &t), 0);
	rpc_reply_free(&r);
	return t;
}

/*
 * Every clip.event of `instance` (0: of any) that has arrived: a request
 * answered after them (replies and events keep their order on the socket;
 * what a request makes due follows its reply) marks where they end.
 */
static size_t take(struct fixture *fx, int64_t instance, struct got *out, size_t max)
{
	struct rpc_reply r;
	struct rpc_event ev;
	size_t n = 0;

	assert_int_equal(rpc_client_call(&fx->c, &r, "instances.list", NULL), 0);
	rpc_reply_free(&r);
	while (rpc_client_next_event(&fx->c, 0, &ev) == 0) {
		if (strcmp(ev.type, "clip.event") == 0) {
			struct got g;

			parse_got(ev.body, &g);
			if (instance == 0 || g.instance == instance) {
				assert_true(n < max);
				out[n++] = g;
			}
		}
		rpc_event_free(&ev);
	}
	assert_int_equal(fx->c.events_dropped, 0);
	return n;
}

/* The moments of sequence 0 (clip "0", D = 1 s). */
struct moment {
	int64_t t_ns;
	int64_t event;
};

static const struct moment walk[] = { { 250 * MS, 0 }, { 700 * MS, 1 } };

/* The loop's crossings of `m` in playback times [lo, hi], in the direction. */
static size_t series(const struct moment *m, size_t n, int64_t lo, int64_t hi, bool forward,
		     int64_t *p, int64_t *ev, size_t max)
{
	size_t k = 0;

	for (int64_t cycle = lo / S - 2; cycle <= hi / S + 2; cycle++)
		for (size_t i = 0; i < n; i++) {
			int64_t q = cycle * S + m[i].t_ns;

			if (q >= lo && q <= hi) {
				assert_true(k < max);
				p[k] = q;
				ev[k++] = m[i].event;
			}
		}
	if (!forward)
		for (size_t i = 0; i < k / 2; i++) {
			int64_t a = p[i], b = ev[i];

			p[i] = p[k - 1 - i];
			ev[i] = ev[k - 1 - i];
			p[k - 1 - i] = a;
			ev[k - 1 - i] = b;
		}
	return k;
}

static int64_t ns_of(double s)
{
	return llround(s * 1e9);
}

/* The crossings received are exactly the loop's from just after
 * `p_from` (the play reply's position) to `p_to` (the pause's), with the
 * clock reading of each worked out from at, start and speed. */
static void expect_series(const struct got *g, size_t n, int64_t id, double p_from, double p_to,
			  int64_t at, double start, double speed)
{
	int64_t p[64], ev[64];
	bool fwd = speed > 0;
	int64_t lo = fwd ? ns_of(p_from) + 1 : ns_of(p_to), hi = fwd ? ns_of(p_to) : ns_of(p_from) - 1;
	size_t k = series(walk, 2, lo, hi, fwd, p, ev, 64);

	if (n != k)
		fail_msg("%zu crossings between %.9f and %.9f, expected %zu", n, p_from, p_to, k);
	for (size_t i = 0; i < n; i++) {
		int64_t want_at = at + llround((double)(p[i] - ns_of(start)) / speed);

		assert_int_equal(g[i].instance, id);
		assert_int_equal(g[i].event, ev[i]);
		assert_int_equal(ns_of(g[i].playback_time), p[i]);
		assert_int_equal(ns_of(g[i].time), walk[ev[i]].t_ns);
		if (g[i].at_ns != want_at)
			fail_msg("crossing %zu at %.9f s: at_ns %lld, want %lld", i, g[i].playback_time,
				 (long long)g[i].at_ns, (long long)want_at);
		assert_string_equal(g[i].direction, fwd ? "forward" : "backward");
		assert_int_equal(g[i].missed, 0);
		assert_string_equal(g[i].clip, "0");
	}
}

/* The crossings received are exactly the loop's on the way from `from`
 * (excluded) to `to`, in order and direction. */
static void run_is(const struct got *g, size_t n, int64_t from, int64_t to, bool forward)
{
	int64_t p[64], ev[64];
	size_t k = forward ? series(walk, 2, from + 1, to, true, p, ev, 64)
			   : series(walk, 2, to, from - 1, false, p, ev, 64);

	if (n != k)
		fail_msg("%zu crossings from %lld to %lld ns, expected %zu", n, (long long)from,
			 (long long)to, k);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(g[i].event, ev[i]);
		assert_int_equal(ns_of(g[i].playback_time), p[i]);
		assert_string_equal(g[i].direction, forward ? "forward" : "backward");
	}
}

/* ---- tests -------------------------------------------------------------- */

/* assets.info: the attachment, the events (the odd id escaped, the bone
 * the file names and no joint for one it does not have) and each clip's
 * moments. */
static void test_info_lists_events(void **state)
{
	struct fixture *fx = *state;
	const msgpack_object *atts, *evs, *clips, *moments, *e;
	struct rpc_reply r;
	char id[32];
	int64_t v;
	double t;

	assert_int_equal(rpc_client_call(&fx->c, &r, "assets.info", "asset:s", "steps.m2"), 0);
	expect_ok(&r);
	atts = rpc_get(r.result, "attachments");
	assert_non_null(atts);
	assert_int_equal(atts->via.array.size, 1);
	assert_int_equal(rpc_get_i64(&atts->via.array.ptr[0], "id", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(rpc_get_i64(&atts->via.array.ptr[0], "bone", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rpc_get_i64(&atts->via.array.ptr[0], "joint", &v), 0);
	assert_int_equal(v, 0);
	evs = rpc_get(r.result, "events");
	assert_non_null(evs);
	assert_int_equal(evs->via.array.size, 2);
	e = &evs->via.array.ptr[0];
	assert_int_equal(rpc_get_str(e, "id", id, sizeof id), 0);
	assert_string_equal(id, "$FS1");
	assert_int_equal(rpc_get_i64(e, "data", &v), 0);
	assert_int_equal(v, 11);
	assert_int_equal(rpc_get_i64(e, "joint", &v), 0);
	assert_int_equal(v, 0);
	e = &evs->via.array.ptr[1];
	assert_int_equal(rpc_get_str(e, "id", id, sizeof id), 0);
	assert_string_equal(id, "A\\x5c\\x01\\xff");
	assert_int_equal(rpc_get_i64(e, "bone", &v), 0);
	assert_int_equal(v, 9);
	assert_non_null(rpc_get(e, "joint"));
	assert_int_equal(rpc_get(e, "joint")->type, MSGPACK_OBJECT_NIL);
	assert_int_equal(rpc_get_i64(e, "index", &v), 0);
	assert_int_equal(v, 1);
	clips = rpc_get(r.result, "clips");
	assert_int_equal(clips->via.array.size, 2);
	moments = rpc_get(&clips->via.array.ptr[0], "events");
	assert_non_null(moments);
	assert_int_equal(moments->via.array.size, 2);
	assert_int_equal(rpc_get_f64(&moments->via.array.ptr[0], "time", &t), 0);
	assert_true(t == 0.25);
	assert_int_equal(rpc_get_i64(&moments->via.array.ptr[1], "event", &v), 0);
	assert_int_equal(v, 1);
	moments = rpc_get(&clips->via.array.ptr[1], "events");
	assert_int_equal(moments->via.array.size, 1);
	assert_int_equal(rpc_get_f64(&moments->via.array.ptr[0], "time", &t), 0);
	assert_true(fabs(t - 0.1) < 1e-12);
	rpc_reply_free(&r);
}

/* A 1 s loop at speed 2 for about 1.3 s: every crossing, in order, with
 * its payload and the exact clock reading; then the same backwards. */
static void test_loop_forward_and_backward(void **state)
{
	struct fixture *fx = *state;
	struct got g[64];
	double p_reply, p_pause;
	int64_t at, id;
	size_t n;

	at = mono_ns() + 100 * MS;
	id = play(fx, "0", 2.0, 0, at, 1, &p_reply);
	sleep_until(at + 1300 * MS);
	p_pause = control(fx, "pause", id, NULL, 0);
	n = take(fx, id, g, 64);
	assert_true(n >= 5);            /* 0.25, 0.7, 1.25, 1.7, 2.25 at least */
	expect_series(g, n, id, p_reply, p_pause, at, 0, 2.0);
	/* The payload: what the event is. */
	assert_string_equal(g[0].id, "$FS1");
	assert_int_equal(g[0].data, 11);
	assert_int_equal(g[0].bone, 0);
	assert_false(g[0].joint_nil);
	assert_int_equal(g[0].joint, 0);
	assert_true(g[0].position[0] == 1 && g[0].position[1] == 2 && g[0].position[2] == 3);
	assert_string_equal(g[1].id, "A\\x5c\\x01\\xff");
	assert_int_equal(g[1].data, 22);
	assert_int_equal(g[1].bone, 9);
	assert_true(g[1].joint_nil);

	at = mono_ns() + 100 * MS;
	id = play(fx, "0", -2.0, 2.0, at, 1, &p_reply);
	sleep_until(at + 1300 * MS);
	p_pause = control(fx, "pause", id, NULL, 0);
	n = take(fx, id, g, 64);
	assert_true(n >= 5);            /* 1.7, 1.25, 0.7, 0.25, -0.3 at least */
	expect_series(g, n, id, p_reply, p_pause, at, 2.0, -2.0);
}

/* A start counts its instant; pause and resume report nothing of their
 * own; a seek reports neither what it jumps over nor where it lands; a
 * speed change keeps the position (nothing twice). */
static void test_start_pause_seek_speed(void **state)
{
	struct fixture *fx = *state;
	struct got g[64];
	int64_t at = mono_ns() + 100 * MS, id;
	double p0, p1, p2, p3;
	size_t n;

	id = play(fx, "0", 1.0, 0.25, at, 1, NULL);
	sleep_until(at + 100 * MS);
	p0 = control(fx, "pause", id, NULL, 0);
	n = take(fx, id, g, 64);
	/* The start at 0.25 counts, at `at` itself. */
	assert_true(n >= 1);
	assert_int_equal(ns_of(g[0].playback_time), 250 * MS);
	assert_int_equal(g[0].at_ns, at);
	run_is(g, n, 250 * MS - 1, ns_of(p0), true);

	/* Paused: a seek onto the second moment, a resume, and 0.2 s more:
	 * not the moment it landed on. */
	assert_true(fabs(control(fx, "seek", id, "time", 0.7) - 0.7) < 1e-9);
	control(fx, "resume", id, NULL, 0);
	usleep(200000);
	p1 = control(fx, "pause", id, NULL, 0);
	n = take(fx, id, g, 64);
	run_is(g, n, 700 * MS, ns_of(p1), true);
	/* Backwards from there (speed changed while paused): the moment it had
	 * landed on is passed now, and no other twice. */
	control(fx, "speed", id, "speed", -4.0);
	control(fx, "resume", id, NULL, 0);
	usleep(200000);
	p2 = control(fx, "pause", id, NULL, 0);
	n = take(fx, id, g, 64);
	assert_true(n >= 2);
	run_is(g, n, ns_of(p1), ns_of(p2), false);
	/* Forward again, a speed change while playing keeping the position. */
	control(fx, "speed", id, "speed", 4.0);
	control(fx, "resume", id, NULL, 0);
	usleep(100000);
	control(fx, "speed", id, "speed", 2.0);
	usleep(100000);
	p3 = control(fx, "pause", id, NULL, 0);
	n = take(fx, id, g, 64);
	run_is(g, n, ns_of(p2), ns_of(p3), true);
}

/* events: false reports nothing; neither does an instance of a connection
 * that has not subscribed, until it does (from then on). */
static void test_events_off_and_unsubscribed(void **state)
{
	struct fixture *fx = *state;
	const char *const nothing[] = { NULL };
	struct got g[64];
	int64_t quiet, loud;
	size_t n;

	quiet = play(fx, "0", 4.0, 0, 0, 0, NULL);
	loud = play(fx, "0", 4.0, 0, 0, 1, NULL);
	usleep(600000);
	n = take(fx, 0, g, 64);
	assert_true(n >= 4);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(g[i].instance, loud);
	subscribe(fx, nothing);
	usleep(300000);
	assert_int_equal(take(fx, loud, g, 64), 0);
	subscribe(fx, clip_events);
	usleep(600000);
	control(fx, "pause", loud, NULL, 0);
	n = take(fx, 0, g, 64);
	assert_true(n >= 3);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(g[i].instance, loud);
	for (size_t i = 1; i < n; i++)
		assert_true(g[i].playback_time > g[i - 1].playback_time);
	/* play on the instance turns them on (a cut to clip "1"'s start). */
	{
		struct rpc_reply r;

		assert_int_equal(rpc_client_call(&fx->c, &r, "play",
						 "instance:i clip:s fade:d events:b speed:d", quiet,
						 "1", 0.0, 1, 1.0), 0);
		expect_ok(&r);
		rpc_reply_free(&r);
	}
	usleep(200000);
	n = take(fx, quiet, g, 64);
	assert_true(n >= 1);
	assert_string_equal(g[0].clip, "1");
	assert_int_equal(ns_of(g[0].playback_time), 100 * MS);
}

/* A cut begins the new clip at its start instant; a cross-fade reports
 * the old clip until its end and the new one from there. */
static void test_cut_and_fade(void **state)
{
	struct fixture *fx = *state;
	struct rpc_reply r;
	struct got g[64];
	int64_t id;
	size_t n;

	id = play(fx, "0", 0.1, 0, 0, 1, NULL);
	/* A cut onto clip "1" started at its moment: reported at once. */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:i clip:s fade:d start:d",
					 id, "1", 0.0, 0.1), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	usleep(50000);
	n = take(fx, id, g, 64);
	assert_int_equal(n, 1);
	assert_string_equal(g[0].clip, "1");
	assert_int_equal(ns_of(g[0].playback_time), 100 * MS);
	/* A 0.5 s cross-fade back to "0" from 0.2: clip "1" (on at 0.1 s of
	 * each loop) stays the base through the fade, "0" is reported from
	 * its end (its 0.25 s moment is inside the fade: not reported). */
	assert_int_equal(rpc_client_call(&fx->c, &r, "play", "instance:i clip:s fade:d start:d",
					 id, "0", 0.5, 0.2), 0);
	expect_ok(&r);
	rpc_reply_free(&r);
	usleep(1200000);
	control(fx, "pause", id, NULL, 0);
	n = take(fx, id, g, 64);
	/* "0" from the fade's end at 0.7, that instant included: 0.7, 1.25;
	 * nothing of "1", whose next moment (1.1) the fade outlasted. */
	assert_true(n >= 2);
	assert_int_equal(ns_of(g[0].playback_time), 700 * MS);
	assert_int_equal(ns_of(g[1].playback_time), 1250 * MS);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(g[i].clip, "0");
}

/* A reload that rebinds keeps the position and uses the new times. */
static void test_reload_rebinds(void **state)
{
	struct fixture *fx = *state;
	struct got g[64];
	int64_t id;
	size_t n;

	id = play(fx, "0", 1.0, 10.0, 0, 1, NULL);
	write_model(fx, 400, 900);
	expect_asset_event(fx, "asset.reloaded");
	take(fx, id, g, 64);
	usleep(1100000);
	control(fx, "pause", id, NULL, 0);
	n = take(fx, id, g, 64);
	assert_true(n >= 2);
	for (size_t i = 0; i < n; i++) {
		double ct = g[i].time;

		assert_true(fabs(ct - 0.4) < 1e-9 || fabs(ct - 0.9) < 1e-9);
		assert_true(g[i].playback_time > 10.0);
		assert_true(fabs(fmod(g[i].playback_time, 1.0) - ct) < 1e-9);
	}
}

/*
 * The raw socket, for the burst: read every message until the reply to
 * `msgid`, handing clip.events of `instance` to `fn` (thousands come, more
 * than the support client queues).
 */
static void drain(struct fixture *fx, uint32_t msgid, int64_t instance,
		  void (*fn)(const struct got *g, void *data), void *data, double *time)
{
	struct rpc_client *c = &fx->c;
	msgpack_unpacked msg;

	msgpack_unpacked_init(&msg);
	for (;;) {
		int rc = msgpack_unpacker_next(&c->up, &msg);

		if (rc == MSGPACK_UNPACK_SUCCESS) {
			const msgpack_object *o = &msg.data;

			assert_int_equal(o->type, MSGPACK_OBJECT_ARRAY);
			if (o->via.array.size == 4 && o->via.array.ptr[0].via.u64 == 1 &&
			    o->via.array.ptr[1].via.u64 == msgid) {
				if (time != NULL)
					assert_int_equal(rpc_get_f64(&o->via.array.ptr[3], "time", time), 0);
				break;
			}
			if (o->via.array.size == 3 && o->via.array.ptr[0].via.u64 == 2) {
				const msgpack_object *b = &o->via.array.ptr[2].via.array.ptr[0];
				const msgpack_object *t = rpc_get(b, "type");
				struct got g;

				if (t != NULL && t->via.str.size == 10 &&
				    memcmp(t->via.str.ptr, "clip.event", 10) == 0) {
					parse_got(b, &g);
					if (g.instance == instance)
						fn(&g, data);
				}
			}
			continue;
		}
		assert_int_not_equal(rc, MSGPACK_UNPACK_PARSE_ERROR);
		{
			struct pollfd p = { .fd = c->fd, .events = POLLIN };
			ssize_t n;

			assert_int_equal(poll(&p, 1, TIMEOUT_MS), 1);
			assert_true(msgpack_unpacker_reserve_buffer(&c->up, 65536));
			n = read(c->fd, msgpack_unpacker_buffer(&c->up), 65536);
			if (n <= 0)
				fail_msg("read: %zd (%s); log %s", n, strerror(errno), fx->d.log);
			msgpack_unpacker_buffer_consumed(&c->up, (size_t)n);
		}
	}
	msgpack_unpacked_destroy(&msg);
}

struct burst {
	int64_t last_p;                 /* the last crossing reported, ns */
	uint64_t received, missed, run, longest_run, runs_with_drops;
	bool bad;
};

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && a < 0);
}

/* The loop's crossings strictly between a and b (ns). */
static uint64_t between(int64_t a, int64_t b)
{
	uint64_t n = 0;

	for (size_t i = 0; i < 2; i++) {
		int64_t t = walk[i].t_ns;
		/* k with a < t + kS < b. */
		int64_t lo = floor_div(a - t, S) + 1, hi = -floor_div(t - b, S) - 1;

		if (hi >= lo)
			n += (uint64_t)(hi - lo + 1);
	}
	return n;
}

static void burst_take(const struct got *g, void *data)
{
	struct burst *b = data;
	int64_t p = ns_of(g->playback_time);

	/* Each missed counts exactly the crossings dropped since the last
	 * report; a run without drops is one timer firing's at most. */
	if ((uint64_t)g->missed != between(b->last_p, p))
		b->bad = true;
	if (g->missed > 0) {
		b->runs_with_drops++;
		b->run = 0;
	}
	b->run++;
	if (b->run > b->longest_run)
		b->longest_run = b->run;
	b->received++;
	b->missed += (uint64_t)g->missed;
	b->last_p = p;
}

static void test_burst_capped(void **state)
{
	struct fixture *fx = *state;
	struct burst b = { .last_p = -1 };
	int64_t id, msgid;
	double p_pause;

	/* A million times real time: 2000 crossings a millisecond. */
	id = play(fx, "0", 1e6, 0, 0, 1, NULL);
	usleep(20000);
	msgid = rpc_client_send(&fx->c, "pause", "instance:i", id);
	assert_true(msgid > 0);
	drain(fx, (uint32_t)msgid, id, burst_take, &b, &p_pause);
	/* The pause's own report follows its reply. */
	msgid = rpc_client_send(&fx->c, "instances.list", NULL);
	assert_true(msgid > 0);
	drain(fx, (uint32_t)msgid, id, burst_take, &b, NULL);
	assert_false(b.bad);
	assert_true(b.runs_with_drops > 0);
	assert_true(b.longest_run <= 256);
	/* Every crossing up to the pause: reported, or counted in missed. */
	assert_int_equal(b.received + b.missed, between(-1, ns_of(p_pause) + 1));
	/* The last report ends with the last crossing: the latest are kept. */
	assert_int_equal(between(b.last_p, ns_of(p_pause) + 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_info_lists_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop_forward_and_backward, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_pause_seek_speed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events_off_and_unsubscribed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_and_fade, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reload_rebinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_burst_capped, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
