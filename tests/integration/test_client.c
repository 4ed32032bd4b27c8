/*
 * libanimclient against the real daemon: every call with its typed result,
 * the daemon's errors with code and message, local errors, events through
 * blocking and non-blocking use, async calls, pose streams (latest, next,
 * drops, no torn copies), the daemon refusing a connection, a peer that
 * never answers or hangs up (no SIGPIPE), reconnection after a restart
 * (streams remapped, instances replayed under the same ids), and no
 * descriptor left behind.
 *
 * Built with the client library: client/animclient.h only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client/animclient.h"
#include "tests/support/daemon_proc.h"
#include "tests/support/tree_manifest.h"

#define TIMEOUT_MS 10000

struct fixture {
	struct daemon_proc d;
	animc_client *c;
	int fds_before;
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void sleep_ms(int ms)
{
	poll(NULL, 0, ms);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;   /* the DIR's own */
}

static void connect_client(struct fixture *fx, animc_client **c)
{
	assert_int_equal(animc_client_new(c), 0);
	if (animc_client_connect(*c, fx->d.socket, TIMEOUT_MS) != 0) {
		const char *msg;

		animc_client_error(*c, NULL, &msg);
		fail_msg("connect: %s", msg);
	}
}

static int setup_with(void **state, const char *extra_ini)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	char cmd[1024];
	const char *build = getenv("BUILD");

	assert_non_null(fx);
	assert_int_equal(daemon_proc_init(&fx->d), 0);
	snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s", build ? build : "build", fx->d.assets);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(daemon_proc_start(&fx->d, extra_ini, TIMEOUT_MS), 0);
	fx->fds_before = count_fds();
	connect_client(fx, &fx->c);
	*state = fx;
	return 0;
}

static int setup(void **state)
{
	return setup_with(state, NULL);
}

/* A cap no asset fits under: every one is evicted (dropped after its
 * background load), and loaded again for a call that names it. */
static int setup_capped(void **state)
{
	return setup_with(state, "[assets]\nmax_memory = 1\n");
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	animc_client_close(fx->c);
	/* Everything the library opened (socket, stray descriptors) is closed. */
	assert_int_equal(count_fds(), fx->fds_before);
	if (fx->d.pid > 0)
		assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&fx->d);
	free(fx);
	return 0;
}

static void expect_ok(animc_client *c, int rc)
{
	if (rc != 0) {
		const char *name, *msg;

		animc_client_error(c, &name, &msg);
		fail_msg("call failed: %d (%s) %s: %s", rc, animc_strerror(rc), name, msg);
	}
}

static void expect_server_error(animc_client *c, int rc, animc_error_code code,
				const char *wire, const char *fragment)
{
	const char *name, *msg;

	assert_int_equal(rc, -EREMOTEIO);
	assert_int_equal(animc_client_error(c, &name, &msg), code);
	assert_string_equal(name, wire);
	if (fragment != NULL && strstr(msg, fragment) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", msg, fragment);
}

/* ---- calls ------------------------------------------------------------ */

static void test_hello_status_assets(void **state)
{
	struct fixture *fx = *state;
	animc_hello_info *h;
	animc_status_info *st;
	animc_asset_list *l;
	animc_asset_info *a;
	uint64_t gen = 0;

	expect_ok(fx->c, animc_hello(fx->c, &h));
	assert_int_equal(h->protocol, ANIMC_PROTOCOL_VERSION);
	assert_non_null(strstr(h->server, "animd"));
	assert_int_equal(h->pid, (uint32_t)fx->d.pid);
	assert_int_equal(animc_client_server_pid(fx->c), (uint32_t)fx->d.pid);
	assert_non_null(animc_client_server(fx->c));
	animc_free(h);
	assert_int_equal(animc_hello(fx->c, NULL), 0);      /* out may be NULL */

	expect_ok(fx->c, animc_status(fx->c, &st));
	assert_int_equal(st->assets, 6);          /* gen_demo writes six files */
	assert_int_equal(st->connections, 1);
	assert_true(st->memory_bytes > 0);
	assert_true(st->uptime >= 0);
	animc_free(st);

	expect_ok(fx->c, animc_assets_list(fx->c, &l));
	assert_int_equal(l->count, 6);
	assert_string_equal(l->assets[0].name, "crane.x");
	assert_string_equal(l->assets[0].format, "x");
	assert_string_equal(l->assets[1].name, "idle.md5anim");
	assert_string_equal(l->assets[2].name, "lantern.m2");
	assert_string_equal(l->assets[2].format, "m2");
	assert_string_equal(l->assets[5].name, "walker.md5mesh");
	assert_string_equal(l->assets[5].format, "md5mesh");
	assert_true(l->assets[3].ok);
	assert_null(l->assets[3].error);
	for (size_t i = 0; i < l->count; i++)
		assert_string_equal(l->states[i], "ok");
	animc_free(l);

	expect_ok(fx->c, animc_assets_info(fx->c, "walker.md5mesh", &a));
	assert_string_equal(a->name, "walker.md5mesh");
	assert_true(a->has_skeleton);
	assert_true(a->bind_pose);
	assert_int_equal(a->joint_count, 10);
	assert_string_equal(a->joints[1].name, "pelvis");
	assert_int_equal(a->joints[1].parent, 0);
	assert_int_equal(a->joints[0].parent, -1);
	assert_true(a->mesh_count > 0);
	assert_true(a->meshes[0].vertex_count > 0);
	animc_free(a);

	expect_ok(fx->c, animc_assets_info(fx->c, "walker.md5anim", &a));
	assert_int_equal(a->clip_count, 1);
	assert_string_equal(a->clips[0].name, "walker");
	assert_true(fabs(a->clips[0].duration - 1.0) < 1e-6);
	animc_free(a);

	expect_ok(fx->c, animc_assets_info(fx->c, "orbit.md5camera", &a));
	assert_int_equal(a->camera_count, 1);
	assert_int_equal(a->cameras[0].cut_count, 2);
	animc_free(a);

	/* Unchanged bytes keep their generation; changed ones make a new one. */
	expect_ok(fx->c, animc_assets_reload(fx->c, "idle.md5anim", &gen));
	assert_int_equal(gen, 1);
	assert_int_equal(daemon_proc_touch_asset(&fx->d, "idle.md5anim"), 0);
	expect_ok(fx->c, animc_assets_reload(fx->c, "idle.md5anim", &gen));
	assert_int_equal(gen, 2);
}

static void test_sample(void **state)
{
	struct fixture *fx = *state;
	animc_sample_opts o = { .asset = "walker.md5anim", .mesh = "walker.md5mesh", .time = 0.25,
				.space = ANIMC_SPACE_MODEL };
	animc_pose *p;

	expect_ok(fx->c, animc_sample(fx->c, &o, &p));
	assert_string_equal(p->asset, "walker.md5anim");
	assert_string_equal(p->clip, "walker");
	assert_int_equal(p->space, ANIMC_SPACE_MODEL);
	assert_int_equal(p->joint_count, 10);
	assert_string_equal(p->joints[3].name, "head");
	/* The walk carries the root forward: 15 units at a quarter second. */
	assert_true(fabsf(p->joints[0].m[3] - 15.0f) < 0.01f);
	assert_true(p->has_bounds);
	animc_free(p);

	o.space = ANIMC_SPACE_LOCAL;
	expect_ok(fx->c, animc_sample(fx->c, &o, &p));
	assert_int_equal(p->space, ANIMC_SPACE_LOCAL);
	assert_true(fabsf(p->joints[1].r[3]) > 0.5f || fabsf(p->joints[1].r[0]) > 0);
	animc_free(p);

	o.space = ANIMC_SPACE_VERTICES;
	expect_ok(fx->c, animc_sample(fx->c, &o, &p));
	assert_true(p->mesh_count > 0);
	assert_true(p->meshes[0].vertex_count > 0);
	assert_non_null(p->meshes[0].positions);
	/* MD5 normals, derived from the triangles: unit vectors. */
	assert_non_null(p->meshes[0].normals);
	{
		const float *n = p->meshes[0].normals;

		assert_true(fabsf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0f) < 1e-5f);
	}
	animc_free(p);

	o = (animc_sample_opts){ .asset = "orbit.md5camera", .time = 1.0 };
	expect_ok(fx->c, animc_sample(fx->c, &o, &p));
	assert_int_equal(p->space, ANIMC_SPACE_CAMERA);
	assert_true(p->has_camera);
	assert_true(p->camera_fov > 1.0f);
	animc_free(p);
}

/* p = M q for a 3x4 row-major affine M. */
static void affine_apply(const float m[12], const double q[3], double p[3])
{
	for (int r = 0; r < 3; r++)
		p[r] = m[4 * r] * q[0] + m[4 * r + 1] * q[1] + m[4 * r + 2] * q[2] + m[4 * r + 3];
}

/* q = M^-1 p for a 3x4 row-major affine M (Cramer's rule on its 3x3). */
static void affine_solve(const float m[12], const double p[3], double q[3])
{
	double a[3][3], b[3], det;

	for (int r = 0; r < 3; r++) {
		for (int c = 0; c < 3; c++)
			a[r][c] = m[4 * r + c];
		b[r] = p[r] - m[4 * r + 3];
	}
	det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
	      a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
	      a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
	assert_true(fabs(det) > 1e-9);
	for (int c = 0; c < 3; c++) {
		double t[3][3];

		memcpy(t, a, sizeof t);
		for (int r = 0; r < 3; r++)
			t[r][c] = b[r];
		q[c] = (t[0][0] * (t[1][1] * t[2][2] - t[1][2] * t[2][1]) -
			t[0][1] * (t[1][0] * t[2][2] - t[1][2] * t[2][0]) +
			t[0][2] * (t[1][0] * t[2][1] - t[1][1] * t[2][0])) / det;
	}
}

/* The bind pose and skin weights (ANIMC_SAMPLE_BIND, _SKIN_WEIGHTS): skinning
 * the bind vertices with them through the model matrices of a time, weights
 * normalised, lands on the daemon's vertices of that time. */
static void test_sample_bind_skin_weights(void **state)
{
	struct fixture *fx = *state;
	animc_sample_opts o = { .asset = "walker.md5mesh", .time = NAN,
				.space = ANIMC_SPACE_VERTICES,
				.flags = ANIMC_SAMPLE_BIND | ANIMC_SAMPLE_SKIN_WEIGHTS };
	animc_pose *bind_verts, *bind_model, *model, *verts;
	size_t checked = 0;

	expect_ok(fx->c, animc_sample(fx->c, &o, &bind_verts));
	assert_non_null(bind_verts->skin_weights);
	o.space = ANIMC_SPACE_MODEL;
	o.flags = ANIMC_SAMPLE_BIND;
	expect_ok(fx->c, animc_sample(fx->c, &o, &bind_model));
	assert_null(bind_model->skin_weights);
	o = (animc_sample_opts){ .asset = "walker.md5anim", .mesh = "walker.md5mesh",
				 .time = 0.4, .space = ANIMC_SPACE_MODEL };
	expect_ok(fx->c, animc_sample(fx->c, &o, &model));
	o.space = ANIMC_SPACE_VERTICES;
	expect_ok(fx->c, animc_sample(fx->c, &o, &verts));
	assert_null(verts->skin_weights);       /* not asked for */
	assert_int_equal(bind_model->joint_count, model->joint_count);
	assert_int_equal(bind_verts->mesh_count, verts->mesh_count);
	for (size_t i = 0; i < verts->mesh_count; i++) {
		const animc_skin_weights *w = &bind_verts->skin_weights[i];
		size_t k = 0;

		assert_int_equal(w->vertex_count, verts->meshes[i].vertex_count);
		for (size_t v = 0; v < w->vertex_count; v++) {
			double bind_p[3], sum[3] = { 0 }, total = 0;

			for (int c = 0; c < 3; c++)
				bind_p[c] = bind_verts->meshes[i].positions[3 * v + c];
			assert_true(w->counts[v] > 0);
			for (uint32_t n = 0; n < w->counts[v]; n++, k++) {
				double local[3], moved[3];
				uint32_t j = w->joints[k];

				assert_true(j < model->joint_count);
				affine_solve(bind_model->joints[j].m, bind_p, local);
				affine_apply(model->joints[j].m, local, moved);
				for (int c = 0; c < 3; c++)
					sum[c] += w->values[k] * moved[c];
				total += w->values[k];
			}
			assert_true(total > 0);
			for (int c = 0; c < 3; c++)
				assert_true(fabs(sum[c] / total - verts->meshes[i].positions[3 * v + c]) <
					    1e-3);
			checked++;
		}
		assert_int_equal(k, w->influence_count);
	}
	assert_true(checked > 0);
	animc_free(bind_verts);
	animc_free(bind_model);
	animc_free(model);
	animc_free(verts);

	/* An unknown bit is refused before anything is sent; skin weights
	 * outside the vertices space by the daemon. */
	o = (animc_sample_opts){ .asset = "walker.md5mesh", .flags = 1u << 7 };
	assert_int_equal(animc_sample(fx->c, &o, NULL), -EINVAL);
	o.flags = ANIMC_SAMPLE_BIND | ANIMC_SAMPLE_SKIN_WEIGHTS;
	o.space = ANIMC_SPACE_MODEL;
	expect_server_error(fx->c, animc_sample(fx->c, &o, NULL), ANIMC_ERR_BAD_REQUEST,
			    "bad_request", "skin_weights");
}

static void test_errors(void **state)
{
	struct fixture *fx = *state;
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	animc_sample_opts so = { .asset = "walker.md5anim", .time = NAN };
	animc_client *idle;
	animc_asset_info *a = (animc_asset_info *)1;
	const char *msg;

	expect_server_error(fx->c, animc_assets_info(fx->c, "nope.md5mesh", &a), ANIMC_ERR_NOT_FOUND,
			    "not_found", "nope.md5mesh");
	assert_null(a);         /* out is cleared on failure */
	po.asset = "walker.md5anim";
	po.clip = "run";
	expect_server_error(fx->c, animc_play(fx->c, &po, NULL), ANIMC_ERR_NOT_FOUND, "not_found",
			    "run");
	po.clip = NULL;
	po.mesh = "idle.md5anim";
	expect_server_error(fx->c, animc_play(fx->c, &po, NULL), ANIMC_ERR_ASSET_ERROR,
			    "asset_error", "mesh");
	so.time = 0;
	so.space = ANIMC_SPACE_CAMERA;
	expect_server_error(fx->c, animc_sample(fx->c, &so, NULL), ANIMC_ERR_UNSUPPORTED,
			    "unsupported", "camera");
	so = (animc_sample_opts){ .asset = "walker.md5anim", .time = NAN };
	expect_server_error(fx->c, animc_pause(fx->c, 12345, NULL), ANIMC_ERR_NOT_FOUND,
			    "not_found", "12345");
	expect_server_error(fx->c, animc_assets_reload(fx->c, "missing.md5anim", NULL),
			    ANIMC_ERR_NOT_FOUND, "not_found", NULL);

	/* Refused before anything is sent. */
	assert_int_equal(animc_play(fx->c, NULL, NULL), -EINVAL);
	po = (animc_play_opts)ANIMC_PLAY_OPTS_INIT;
	assert_int_equal(animc_play(fx->c, &po, NULL), -EINVAL);      /* no asset */
	assert_int_equal(animc_sample(fx->c, &so, NULL), -EINVAL);    /* NaN time */
	assert_int_equal(animc_subscribe(fx->c, 1u << 20, NULL), -EINVAL);
	assert_int_equal(animc_client_error(fx->c, NULL, &msg), ANIMC_ERR_NONE);
	assert_true(msg[0] != '\0');
	/* The connection is still fine after all that. */
	expect_ok(fx->c, animc_hello(fx->c, NULL));

	assert_int_equal(animc_client_connect(fx->c, fx->d.socket, TIMEOUT_MS), -EISCONN);
	assert_int_equal(animc_client_new(&idle), 0);
	assert_int_equal(animc_status(idle, NULL), -ENOTCONN);
	assert_int_equal(animc_client_fd(idle), -1);
	assert_int_equal(animc_client_process(idle), -ENOTCONN);
	assert_int_equal(animc_client_connect(idle, "/nonexistent/animd.sock", 500), -ENOENT);
	animc_client_error(idle, NULL, &msg);
	assert_non_null(strstr(msg, "/nonexistent/animd.sock"));
	/* The environment names the socket when the caller does not. */
	setenv(ANIMC_SOCKET_ENV, fx->d.socket, 1);
	assert_string_equal(animc_socket_path(NULL), fx->d.socket);
	assert_string_equal(animc_socket_path("/x"), "/x");
	expect_ok(idle, animc_client_connect(idle, NULL, TIMEOUT_MS));
	unsetenv(ANIMC_SOCKET_ENV);
	assert_string_equal(animc_socket_path(NULL), ANIMC_SOCKET_DEFAULT);
	animc_client_close(idle);
	animc_client_close(NULL);
	animc_free(NULL);

	assert_string_equal(animc_strerror(-EREMOTEIO), "the daemon answered with an error");
	assert_non_null(animc_strerror(-12345));
	assert_string_equal(animc_event_name(ANIMC_EVENT_ASSET_LOADED), "asset.loaded");
	assert_int_equal(animc_event_lookup("instance.stopped"), ANIMC_EVENT_INSTANCE_STOPPED);
	assert_int_equal(animc_event_lookup("future.thing"), ANIMC_EVENT_UNKNOWN);
	assert_int_equal(animc_space_lookup("skin"), ANIMC_SPACE_SKIN);
	assert_int_equal(animc_space_floats(ANIMC_SPACE_CAMERA), 8);
}

static void test_play_controls(void **state)
{
	struct fixture *fx = *state;
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	animc_instance *in;
	animc_instance_list *l;
	animc_client *other;
	uint64_t id;

	po.asset = "walker.md5anim";
	po.mesh = "walker.md5mesh";
	po.loop = ANIMC_LOOP_PINGPONG;
	po.start = 0.25;
	po.root_motion = ANIMC_ROOT_IN_PLACE;
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	id = in->id;
	assert_true(id > 0);
	assert_string_equal(in->asset, "walker.md5anim");
	assert_string_equal(in->mesh, "walker.md5mesh");
	assert_int_equal(in->state, ANIMC_STATE_PLAYING);
	assert_int_equal(in->loop, ANIMC_LOOP_PINGPONG);
	assert_int_equal(in->root_motion, ANIMC_ROOT_IN_PLACE);
	assert_true(in->time >= 0.25);
	assert_int_equal(in->stream, 0);
	assert_int_equal(in->channel, -1);
	animc_free(in);
	/* at_ns half a second back: 0.25 s then, so at least 0.75 now. */
	po.at_ns = (int64_t)now_ms() * 1000000 - 500000000;
	po.loop = ANIMC_LOOP_ONCE;
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	assert_true(in->time >= 0.75 && in->time < 5.75);
	expect_ok(fx->c, animc_stop(fx->c, in->id, NULL));
	animc_free(in);
	po.at_ns = 0;
	po.loop = ANIMC_LOOP_PINGPONG;

	expect_ok(fx->c, animc_pause(fx->c, id, &in));
	assert_int_equal(in->state, ANIMC_STATE_PAUSED);
	animc_free(in);
	expect_ok(fx->c, animc_seek(fx->c, id, 0.75, &in));
	assert_int_equal(in->state, ANIMC_STATE_PAUSED);
	assert_true(fabs(in->time - 0.75) < 1e-6);
	animc_free(in);
	expect_ok(fx->c, animc_speed(fx->c, id, -2, &in));
	assert_true(in->speed == -2);
	animc_free(in);
	expect_ok(fx->c, animc_resume(fx->c, id, &in));
	assert_int_equal(in->state, ANIMC_STATE_PLAYING);
	animc_free(in);

	expect_ok(fx->c, animc_instances_list(fx->c, &l));
	assert_int_equal(l->count, 1);
	assert_int_equal(l->instances[0].id, id);
	assert_true(l->instances[0].speed == -2);
	animc_free(l);

	/* Another connection cannot steer it. */
	connect_client(fx, &other);
	expect_server_error(other, animc_pause(other, id, NULL), ANIMC_ERR_NOT_FOUND, "not_found",
			    "another connection");
	expect_ok(other, animc_instances_list(other, &l));
	assert_int_equal(l->count, 0);
	animc_free(l);
	animc_client_close(other);

	expect_ok(fx->c, animc_stop(fx->c, id, &in));
	assert_int_equal(in->id, id);
	animc_free(in);
	assert_int_equal(animc_client_server_instance(fx->c, id), 0);      /* forgotten */
	expect_server_error(fx->c, animc_stop(fx->c, id, NULL), ANIMC_ERR_NOT_FOUND, "not_found",
			    NULL);
}

/* ---- events ----------------------------------------------------------- */

struct seen {
	int count[ANIMC_EVENT_CLIP_EVENT + 1];
	uint64_t last_instance;
	uint32_t last_layer;
	char last_asset[256];
	int calls;
	int errors;
	int status_ok;
	uint64_t played;
	char error_code[64];
};

static void on_event(animc_client *c, const animc_event *ev, void *user)
{
	struct seen *s = user;

	(void)c;
	s->count[ev->type]++;
	s->last_instance = ev->instance;
	s->last_layer = ev->layer;
	snprintf(s->last_asset, sizeof s->last_asset, "%s", ev->asset ? ev->asset : "");
}

static void wait_for(animc_client *c, const int *counter, int target, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;

	while (*counter < target && now_ms() < deadline) {
		int rc = animc_client_wait(c, 50);

		assert_true(rc >= 0);
	}
	assert_true(*counter >= target);
}

static void test_events(void **state)
{
	struct fixture *fx = *state;
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	struct seen s = { 0 };
	animc_instance *in;
	unsigned mask = 0;
	uint64_t id;

	animc_client_on_event(fx->c, on_event, &s);
	expect_ok(fx->c, animc_subscribe(fx->c, ANIMC_EVENTS_ALL, &mask));
	assert_int_equal(mask, ANIMC_EVENTS_ALL);

	po.asset = "walker.md5anim";
	po.loop = ANIMC_LOOP_ONCE;
	po.speed = 4;
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	id = in->id;
	animc_free(in);
	wait_for(fx->c, &s.count[ANIMC_EVENT_INSTANCE_ENDED], 1, 3000);
	assert_int_equal(s.last_instance, id);

	/* Events that arrive during a blocking call wait for process(). */
	assert_int_equal(daemon_proc_touch_asset(&fx->d, "walker.md5mesh"), 0);
	expect_ok(fx->c, animc_assets_reload(fx->c, "walker.md5mesh", NULL));
	sleep_ms(100);
	expect_ok(fx->c, animc_hello(fx->c, NULL));
	assert_int_equal(animc_client_next_timeout(fx->c), 0);
	wait_for(fx->c, &s.count[ANIMC_EVENT_ASSET_RELOADED], 1, 2000);
	assert_string_equal(s.last_asset, "walker.md5mesh");

	/* Unsubscribed: nothing more. */
	expect_ok(fx->c, animc_subscribe(fx->c, 0, &mask));
	assert_int_equal(mask, 0);
	assert_int_equal(daemon_proc_touch_asset(&fx->d, "walker.md5mesh"), 0);
	expect_ok(fx->c, animc_assets_reload(fx->c, "walker.md5mesh", NULL));
	sleep_ms(100);
	animc_client_process(fx->c);
	assert_int_equal(s.count[ANIMC_EVENT_ASSET_RELOADED], 1);
}

/* clip.event as libanimclient hands it over, copied out of the callback. */
struct clip_seen {
	int count;
	uint64_t instance;
	char asset[64], clip[16], name[16], id[32];
	double time;
	animc_clip_event ce;
	int other;                      /* an event of another instance came */
	uint64_t want;
};

static void on_clip_event(animc_client *c, const animc_event *ev, void *user)
{
	struct clip_seen *s = user;

	(void)c;
	if (ev->type != ANIMC_EVENT_CLIP_EVENT || ev->clip_event == NULL)
		return;
	if (ev->instance != s->want) {
		s->other = 1;
		return;
	}
	if (s->count++ > 0)
		return;
	s->instance = ev->instance;
	snprintf(s->asset, sizeof s->asset, "%s", ev->asset);
	snprintf(s->clip, sizeof s->clip, "%s", ev->clip);
	snprintf(s->name, sizeof s->name, "%s", ev->name);
	snprintf(s->id, sizeof s->id, "%s", ev->clip_event->id);
	s->time = ev->time;
	s->ce = *ev->clip_event;
}

/* assets.info's attachments, events and moments of the demo lantern
 * (Stand, a 2 s loop, creaks at 0.5 s); a crossing of it, every field
 * and the clock reading worked out from at_ns; no_events. */
static void test_clip_events(void **state)
{
	struct fixture *fx = *state;
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	struct clip_seen s = { 0 };
	animc_asset_info *a;
	animc_instance *in;
	unsigned mask;
	int64_t at;

	expect_ok(fx->c, animc_assets_info(fx->c, "lantern.m2", &a));
	assert_int_equal(a->attachment_count, 1);
	assert_int_equal(a->attachments[0]->id, 11);
	assert_int_equal(a->attachments[0]->bone, 0);
	assert_int_equal(a->attachments[0]->joint, 2);
	assert_true(fabsf(a->attachments[0]->position[2] - 1.4f) < 1e-6f);
	assert_int_equal(a->event_count, 1);
	assert_string_equal(a->events[0]->id, "$CSD");
	assert_int_equal(a->events[0]->data, 7);
	assert_int_equal(a->events[0]->bone, 1);
	assert_int_equal(a->events[0]->joint, 1);
	assert_non_null(a->clip_events);
	assert_int_equal(a->clip_count, 3);
	assert_int_equal(a->clip_events[0].count, 2);
	assert_true(a->clip_events[0].moments[0].time == 0.5);
	assert_true(a->clip_events[0].moments[1].time == 1.5);
	assert_int_equal(a->clip_events[0].moments[0].event, 0);
	assert_int_equal(a->clip_events[1].count, 0);
	assert_int_equal(a->clip_events[2].count, 2);
	assert_true(a->clip_events[2].moments[1].time == 32.767);
	animc_free(a);
	expect_ok(fx->c, animc_assets_info(fx->c, "walker.md5anim", &a));
	assert_int_equal(a->event_count, 0);
	assert_null(a->clip_events);
	animc_free(a);

	animc_client_on_event(fx->c, on_clip_event, &s);
	expect_ok(fx->c, animc_subscribe(fx->c, ANIMC_EVENTS_CLIP, &mask));
	assert_int_equal(mask, ANIMC_EVENTS_CLIP);
	po.asset = "lantern.m2";
	po.clip = "0";
	po.speed = 2;
	po.no_events = 1;
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	animc_free(in);
	at = (int64_t)now_ms() * 1000000 + 100000000;
	po.no_events = 0;
	po.at_ns = at;
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	s.want = in->id;
	animc_free(in);
	wait_for(fx->c, &s.count, 1, 3000);
	assert_string_equal(s.name, "clip.event");
	assert_string_equal(s.asset, "lantern.m2");
	assert_string_equal(s.clip, "0");
	assert_true(s.time == 0.5);
	assert_int_equal(s.ce.event, 0);
	assert_string_equal(s.id, "$CSD");
	assert_int_equal(s.ce.data, 7);
	assert_int_equal(s.ce.bone, 1);
	assert_int_equal(s.ce.joint, 1);
	assert_true(s.ce.position[0] == 0 && s.ce.position[1] == 0 && s.ce.position[2] == 2);
	assert_true(s.ce.time == 0.5);
	assert_true(s.ce.playback_time == 0.5);
	assert_int_equal(s.ce.at_ns, at + 250000000);
	assert_int_equal(s.ce.direction, 1);
	assert_int_equal(s.ce.missed, 0);
	/* The instance played with no_events passed 0.5 s too: nothing. */
	sleep_ms(100);
	animc_client_process(fx->c);
	assert_false(s.other);
}

/* animc_fade and the layer calls: the stack as the states report it, the
 * events that end a fade and a layer, and the library's own checks. */
static void test_fade_and_layers(void **state)
{
	struct fixture *fx = *state;
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	animc_fade_opts fo = ANIMC_FADE_OPTS_INIT;
	animc_layer_opts lo = ANIMC_LAYER_OPTS_INIT;
	const char *joints[2] = { "spine", "l_thigh" };
	const double weights[2] = { 0.5, 1.0 };
	struct seen s = { 0 };
	animc_instance *in;
	uint32_t layer = 0, additive = 0;
	uint64_t id;

	animc_client_on_event(fx->c, on_event, &s);
	expect_ok(fx->c, animc_subscribe(fx->c, ANIMC_EVENTS_ALL, NULL));
	po.asset = "walker.md5anim";
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	id = in->id;
	assert_int_equal(in->layer_count, 0);
	animc_free(in);

	/* A fade: a layer "fade" until it completes, then the new clip. */
	fo.asset = "idle.md5anim";
	fo.fade = 0.1;
	expect_ok(fx->c, animc_fade(fx->c, id, &fo, &in));
	assert_int_equal(in->layer_count, 1);
	assert_string_equal(in->layers[0].mode, "fade");
	assert_string_equal(in->layers[0].asset, "idle.md5anim");
	assert_true(in->layers[0].target == 1.0);
	assert_true(in->layers[0].fade_left > 0 && in->layers[0].fade_left <= 0.1);
	animc_free(in);
	wait_for(fx->c, &s.count[ANIMC_EVENT_INSTANCE_FADED], 1, 3000);
	assert_int_equal(s.last_instance, id);
	assert_string_equal(s.last_asset, "idle.md5anim");

	/* A masked override layer and an additive one. */
	lo.asset = "walker.md5anim";
	lo.weight = 0.75;
	lo.mask_count = 2;
	lo.mask_joints = joints;
	lo.mask_weights = weights;
	expect_ok(fx->c, animc_layer_add(fx->c, id, &lo, &layer, &in));
	assert_true(layer > 0);
	assert_int_equal(in->layer_count, 1);
	assert_int_equal(in->layers[0].id, layer);
	assert_string_equal(in->layers[0].mode, "override");
	assert_true(in->layers[0].weight == 0.75);
	assert_int_equal(in->layers[0].mask_count, 2);
	assert_string_equal(in->layers[0].mask_joints[0], "spine");
	assert_true(in->layers[0].mask_weights[0] == 0.5);
	assert_null(in->layers[0].reference_clip);
	assert_string_equal(in->clip, "idle");
	animc_free(in);
	animc_layer_opts_init(&lo);
	lo.asset = "walker.md5anim";
	lo.mode = ANIMC_LAYER_ADDITIVE;
	lo.reference_time = 0.5;
	expect_ok(fx->c, animc_layer_add(fx->c, id, &lo, &additive, NULL));
	expect_ok(fx->c, animc_layer_set(fx->c, id, layer, 0.25, 0, &in));
	assert_int_equal(in->layer_count, 2);
	assert_true(in->layers[0].weight == 0.25);
	assert_string_equal(in->layers[1].mode, "additive");
	assert_string_equal(in->layers[1].reference_clip, "walker");
	assert_true(in->layers[1].reference_time == 0.5);
	animc_free(in);

	/* Removed at once, and fading out: then layer.ended. */
	expect_ok(fx->c, animc_layer_remove(fx->c, id, additive, 0, &in));
	assert_int_equal(in->layer_count, 1);
	animc_free(in);
	expect_ok(fx->c, animc_layer_remove(fx->c, id, layer, 0.05, &in));
	assert_true(in->layers[0].removing);
	animc_free(in);
	wait_for(fx->c, &s.count[ANIMC_EVENT_LAYER_ENDED], 1, 3000);
	assert_int_equal(s.last_layer, layer);
	expect_ok(fx->c, animc_instances_list(fx->c, (animc_instance_list **)&in));
	animc_free(in);

	/* The daemon's refusals and the library's own. */
	expect_server_error(fx->c, animc_layer_set(fx->c, id, layer, 1.0, 0, NULL),
			    ANIMC_ERR_NOT_FOUND, "not_found", "no layer");
	animc_layer_opts_init(&lo);
	lo.weight = 3;
	expect_server_error(fx->c, animc_layer_add(fx->c, id, &lo, NULL, NULL),
			    ANIMC_ERR_BAD_REQUEST, "bad_request", "weight");
	lo.weight = 1;
	expect_server_error(fx->c, animc_layer_add(fx->c, 424242, &lo, NULL, NULL),
			    ANIMC_ERR_NOT_FOUND, "not_found", "no instance");
	assert_int_equal(animc_layer_remove(fx->c, id, 1, -1, NULL), -EINVAL);
	fo.fade = -2;
	assert_int_equal(animc_fade(fx->c, id, &fo, NULL), -EINVAL);
}

/* ---- non-blocking use ------------------------------------------------- */

static void on_status(animc_client *c, int status, const void *result, void *user)
{
	struct seen *s = user;
	const animc_status_info *st = result;

	(void)c;
	s->calls++;
	if (status == 0 && st->assets == 6)
		s->status_ok++;
}

static void on_played(animc_client *c, int status, const void *result, void *user)
{
	struct seen *s = user;

	(void)c;
	s->calls++;
	if (status == 0)
		s->played = ((const animc_instance *)result)->id;
}

static void on_failed(animc_client *c, int status, const void *result, void *user)
{
	struct seen *s = user;
	const char *name;

	s->calls++;
	assert_null(result);
	if (status == -EREMOTEIO) {
		s->errors++;
		animc_client_error(c, &name, NULL);
		snprintf(s->error_code, sizeof s->error_code, "%s", name);
	}
}

static void test_nonblocking(void **state)
{
	struct fixture *fx = *state;
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	struct seen s = { 0 };
	long deadline = now_ms() + 5000;
	int fd = animc_client_fd(fx->c);

	assert_true(fd >= 0);
	assert_true(animc_client_poll_events(fx->c) & POLLIN);
	assert_int_equal(animc_client_next_timeout(fx->c), -1);
	po.asset = "walker.md5anim";
	/* Pipelined: nothing waits for a reply before the next request. */
	for (int i = 0; i < 20; i++)
		assert_int_equal(animc_status_async(fx->c, on_status, &s), 0);
	assert_int_equal(animc_play_async(fx->c, &po, on_played, &s), 0);
	assert_int_equal(animc_assets_info_async(fx->c, "nope", on_failed, &s), 0);
	/* A deadline is pending now. */
	assert_true(animc_client_next_timeout(fx->c) > 0);
	while (s.calls < 22 && now_ms() < deadline) {
		struct pollfd p = { .fd = animc_client_fd(fx->c),
				    .events = (short)animc_client_poll_events(fx->c) };

		poll(&p, 1, animc_client_next_timeout(fx->c));
		assert_true(animc_client_process(fx->c) >= 0);
	}
	assert_int_equal(s.calls, 22);
	assert_int_equal(s.status_ok, 20);
	assert_int_equal(s.errors, 1);
	assert_string_equal(s.error_code, "not_found");
	assert_true(s.played > 0);
	/* The async play is remembered like a blocking one. */
	assert_int_equal(animc_client_server_instance(fx->c, s.played), s.played);
	assert_int_equal(animc_pause_async(fx->c, s.played, on_status, &s), 0);
	/* A blocking call meanwhile completes the async one's reply too;
	 * its callback waits for process(). */
	expect_ok(fx->c, animc_hello(fx->c, NULL));
	wait_for(fx->c, &s.calls, 23, 2000);
	assert_int_equal(animc_client_next_timeout(fx->c), -1);
}

/* ---- streams ---------------------------------------------------------- */

static animc_stream *open_stream(struct fixture *fx, animc_space space, int rate,
				 uint32_t depth)
{
	animc_stream_opts so = ANIMC_STREAM_OPTS_INIT;
	animc_stream *s = NULL;

	so.space = space;
	so.rate_hz = rate;
	so.channels = 4;
	so.max_elements = 16;
	so.depth = depth;
	expect_ok(fx->c, animc_stream_open(fx->c, &so, &s));
	return s;
}

static uint64_t play_in(struct fixture *fx, animc_stream *s, const char *asset, double speed)
{
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	animc_instance *in;
	uint64_t id;

	po.asset = asset;
	po.stream = s;
	po.speed = speed;
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	id = in->id;
	assert_true(in->stream > 0);
	assert_true(in->channel >= 0);
	animc_free(in);
	return id;
}

/* A model-space pose is whole when every joint's rotation columns are
 * unit length (the walker has no scale). */
static void expect_rigid(const float *m, uint32_t joints)
{
	for (uint32_t j = 0; j < joints; j++) {
		const float *r = m + 12 * j;

		for (int col = 0; col < 3; col++) {
			float n = r[col] * r[col] + r[4 + col] * r[4 + col] + r[8 + col] * r[8 + col];

			assert_true(fabsf(n - 1.0f) < 1e-3f);
		}
	}
}

/* A .x asset (the demo's crane): its ticks in assets.info, and its own
 * skinned vertices streamed: 24 vertices of 3 floats, the first pose
 * published at play, at clip time 0. */
static void test_stream_x_vertices(void **state)
{
	struct fixture *fx = *state;
	animc_stream_opts so = ANIMC_STREAM_OPTS_INIT;
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	animc_stream *s = NULL;
	animc_instance *in;
	animc_asset_info *ai;
	animc_pose_info pi;
	float buf[32 * 3];

	expect_ok(fx->c, animc_assets_info(fx->c, "crane.x", &ai));
	assert_string_equal(ai->format, "x");
	assert_int_equal(ai->ticks_per_second, 60);
	assert_true(ai->ticks_from_file);
	assert_null(ai->note);
	assert_int_equal(ai->mesh_count, 1);
	animc_free(ai);
	so.space = ANIMC_SPACE_VERTICES;
	so.channels = 1;
	so.max_elements = 32;
	expect_ok(fx->c, animc_stream_open(fx->c, &so, &s));
	po.asset = "crane.x";
	po.stream = s;
	po.speed = 0;
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	expect_ok(fx->c, animc_stream_latest(s, in->id, buf, 32 * 3, &pi));
	assert_int_equal(pi.element_count, 24);
	assert_int_equal(pi.floats_per_element, 3);
	/* The hook's corner (+x, -z) at rest: 4 + 12 up the boom, half a unit
	 * out, within the compressed clip's precision (0.004). */
	assert_true(fabsf(buf[3 * 20] - 0.5f) < 0.0045f && fabsf(buf[3 * 20 + 1] - 16.0f) < 0.0045f &&
		    fabsf(buf[3 * 20 + 2] + 0.5f) < 0.0045f);
	animc_free(in);
	animc_stream_close(s);
	/* With normals: 6 floats a vertex, the position first (the crane has
	 * no MeshNormals: zero normals). */
	so.normals = 1;
	expect_ok(fx->c, animc_stream_open(fx->c, &so, &s));
	po.stream = s;
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	{
		float wide[32 * 6];

		expect_ok(fx->c, animc_stream_latest(s, in->id, wide, 32 * 6, &pi));
		assert_int_equal(pi.floats_per_element, 6);
		assert_true(fabsf(wide[6 * 20] - 0.5f) < 0.0045f &&
			    fabsf(wide[6 * 20 + 1] - 16.0f) < 0.0045f);
		assert_true(wide[6 * 20 + 3] == 0.0f && wide[6 * 20 + 4] == 0.0f);
	}
	animc_free(in);
	animc_stream_close(s);
}

/* The demo lantern's attachment point through the library: counted by
 * assets.info, sampled (animc_attachment_pose), and read from a stream of
 * its space (animc_stream_attachment) with the same numbers; the name and
 * width of the space. */
static void test_stream_m2_attachments(void **state)
{
	struct fixture *fx = *state;
	animc_stream_opts so = ANIMC_STREAM_OPTS_INIT;
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	animc_sample_opts o = { .asset = "lantern.m2", .time = 0.7,
				.space = ANIMC_SPACE_ATTACHMENTS };
	animc_attachment_element el;
	animc_stream *s = NULL;
	animc_asset_info *ai;
	animc_instance *in;
	animc_pose_info pi;
	animc_pose *p;
	float buf[4 * 16];

	assert_int_equal(animc_space_lookup("attachments"), ANIMC_SPACE_ATTACHMENTS);
	assert_string_equal(animc_space_name(ANIMC_SPACE_ATTACHMENTS), "attachments");
	assert_int_equal(animc_space_floats(ANIMC_SPACE_ATTACHMENTS), 16);
	expect_ok(fx->c, animc_assets_info(fx->c, "lantern.m2", &ai));
	assert_int_equal(ai->attachment_count, 1);
	animc_free(ai);
	expect_ok(fx->c, animc_sample(fx->c, &o, &p));
	assert_int_equal(p->space, ANIMC_SPACE_ATTACHMENTS);
	assert_int_equal(p->attachment_count, 1);
	assert_int_equal(p->attachments[0].index, 0);
	assert_int_equal(p->attachments[0].id, 11);
	assert_int_equal(p->attachments[0].bone, 0);
	assert_true(p->attachments[0].animate);
	assert_true(fabsf(p->attachments[0].position[2] - 1.4f) < 1e-6f);

	so.space = ANIMC_SPACE_ATTACHMENTS;
	so.channels = 1;
	so.max_elements = 4;
	expect_ok(fx->c, animc_stream_open(fx->c, &so, &s));
	po.asset = "lantern.m2";
	po.stream = s;
	po.speed = 0;
	po.start = 0.7;
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	expect_ok(fx->c, animc_stream_latest(s, in->id, buf, 4 * 16, &pi));
	assert_int_equal(pi.element_count, 1);
	assert_int_equal(pi.floats_per_element, 16);
	expect_ok(fx->c, animc_stream_attachment(buf, 0, &el));
	assert_memory_equal(el.m, p->attachments[0].m, sizeof el.m);
	assert_true(el.animate == 1.0f);
	assert_int_equal(el.id, 11);
	assert_int_equal(el.joint, p->attachments[0].joint);
	assert_int_equal(el.reserved, 0);
	assert_int_equal(animc_stream_attachment(NULL, 0, &el), -EINVAL);
	animc_free(p);
	animc_free(in);
	animc_stream_close(s);
}

static void test_stream_latest_next(void **state)
{
	struct fixture *fx = *state;
	animc_stream *s = open_stream(fx, ANIMC_SPACE_MODEL, 0, 8);
	animc_stream_info si;
	animc_pose_info pi;
	float buf[16 * 12], small[12];
	uint64_t id, other, dropped = 99, seq;

	expect_ok(fx->c, animc_stream_info_get(s, &si));
	assert_true(si.id > 0);
	assert_int_equal(si.space, ANIMC_SPACE_MODEL);
	assert_int_equal(si.rate_hz, 0);
	assert_int_equal(si.channels, 4);
	assert_int_equal(si.depth, 8);
	assert_int_equal(si.max_elements, 16);
	assert_int_equal(si.floats_per_element, 12);
	assert_true(si.live);
	assert_int_equal(animc_stream_pose_floats(s), 16 * 12);

	id = play_in(fx, s, "walker.md5anim", 1);
	/* Play publishes at once. */
	expect_ok(fx->c, animc_stream_latest(s, id, buf, 16 * 12, &pi));
	assert_int_equal(pi.instance, id);
	assert_int_equal(pi.element_count, 10);
	assert_int_equal(pi.floats_per_element, 12);
	assert_int_equal(pi.epoch, si.epoch);
	expect_rigid(buf, 10);
	/* Seek publishes at once too, paused. */
	expect_ok(fx->c, animc_pause(fx->c, id, NULL));
	expect_ok(fx->c, animc_seek(fx->c, id, 0.5, NULL));
	expect_ok(fx->c, animc_stream_latest(s, id, buf, 16 * 12, &pi));
	assert_true(fabs(pi.clip_time - 0.5) < 1e-6);
	assert_true(pi.flags & ANIMC_POSE_PAUSED);
	assert_true(fabsf(buf[3] - 30.0f) < 0.01f);     /* root at x = 30 */

	/* next: every pose in order from the oldest kept, then -ENODATA. */
	expect_ok(fx->c, animc_stream_next(s, id, buf, 16 * 12, &pi, &dropped));
	assert_int_equal(pi.seq, 0);
	assert_int_equal(dropped, 0);
	seq = pi.seq;
	while (animc_stream_next(s, id, buf, 16 * 12, &pi, &dropped) == 0) {
		assert_int_equal(pi.seq, seq + 1);
		assert_int_equal(dropped, 0);
		seq = pi.seq;
	}
	assert_int_equal(animc_stream_next(s, id, buf, 16 * 12, &pi, &dropped), -ENODATA);
	expect_ok(fx->c, animc_seek(fx->c, id, 0.25, NULL));
	expect_ok(fx->c, animc_stream_next(s, id, buf, 16 * 12, &pi, &dropped));
	assert_int_equal(pi.seq, seq + 1);
	assert_true(fabs(pi.clip_time - 0.25) < 1e-6);

	/* Too small a buffer: the count it needs, and the cursor stays. */
	assert_int_equal(animc_stream_latest(s, id, small, 12, &pi), -ENOBUFS);
	assert_int_equal(pi.element_count, 10);
	expect_ok(fx->c, animc_seek(fx->c, id, 0.3, NULL));
	assert_int_equal(animc_stream_next(s, id, small, 12, &pi, NULL), -ENOBUFS);
	expect_ok(fx->c, animc_stream_next(s, id, buf, 16 * 12, &pi, NULL));
	assert_true(fabs(pi.clip_time - 0.3) < 1e-6);

	/* An instance playing elsewhere is not in this stream. */
	other = play_in(fx, open_stream(fx, ANIMC_SPACE_LOCAL, 0, 2), "walker.md5anim", 1);
	assert_int_equal(animc_stream_latest(s, other, buf, 16 * 12, &pi), -ENOENT);
	assert_int_equal(animc_stream_latest(s, 999999, buf, 16 * 12, &pi), -ENOENT);
	assert_int_equal(animc_stream_latest(NULL, id, buf, 1, &pi), -EINVAL);

	/* Stopped: its channel is free and its poses are no longer found. */
	expect_ok(fx->c, animc_stop(fx->c, id, NULL));
	assert_int_equal(animc_stream_latest(s, id, buf, 16 * 12, &pi), -ENOENT);
	expect_ok(fx->c, animc_stream_close(s));
	assert_int_equal(animc_stream_close(NULL), 0);
}

static void test_stream_drops_counted(void **state)
{
	struct fixture *fx = *state;
	animc_stream *s = open_stream(fx, ANIMC_SPACE_LOCAL, 200, 4);
	animc_pose_info pi;
	float buf[16 * 10];
	uint64_t id, dropped, first, total_dropped = 0, returned = 0, last;

	id = play_in(fx, s, "walker.md5anim", 1);
	sleep_ms(100);
	/* The first read starts at the oldest pose kept: nothing dropped yet. */
	expect_ok(fx->c, animc_stream_next(s, id, buf, 16 * 10, &pi, &dropped));
	assert_int_equal(dropped, 0);
	first = last = pi.seq;
	assert_true(first > 0);
	/* A reader slower than the writer loses poses, and is told how many. */
	for (int round = 0; round < 5; round++) {
		sleep_ms(60);
		while (animc_stream_next(s, id, buf, 16 * 10, &pi, &dropped) == 0) {
			assert_int_equal(pi.seq, last + 1 + dropped);
			total_dropped += dropped;
			returned++;
			last = pi.seq;
		}
	}
	assert_true(total_dropped > 0);
	assert_int_equal(last - first, returned + total_dropped);
}

static void test_stream_no_torn_reads(void **state)
{
	struct fixture *fx = *state;
	animc_stream *s = open_stream(fx, ANIMC_SPACE_MODEL, 1000, 2);
	animc_pose_info pi;
	float buf[16 * 12];
	uint64_t id, last = 0, reads = 0, again = 0;
	long end = now_ms() + 700;

	id = play_in(fx, s, "walker.md5anim", 3);
	while (now_ms() < end) {
		int rc = animc_stream_latest(s, id, buf, 16 * 12, &pi);

		if (rc == -EAGAIN) {
			again++;
			continue;
		}
		expect_ok(fx->c, rc);
		assert_true(pi.seq >= last);
		last = pi.seq;
		expect_rigid(buf, pi.element_count);
		reads++;
	}
	assert_true(reads > 1000);
	assert_true(last > 100);
	print_message("%llu whole reads, %llu gave up (lapped)\n", (unsigned long long)reads,
		      (unsigned long long)again);
}

/* ---- connections lost, refused, silent -------------------------------- */

static void test_restart_without_reconnect(void **state)
{
	struct fixture *fx = *state;
	animc_stream *s = open_stream(fx, ANIMC_SPACE_MODEL, 60, 8);
	animc_stream_info si;
	animc_pose_info pi;
	float buf[16 * 12];
	uint64_t id = play_in(fx, s, "walker.md5anim", 1);
	int rc = 0;

	assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	for (int i = 0; i < 100 && rc >= 0; i++)
		rc = animc_client_wait(fx->c, 50);
	assert_int_equal(rc, -ECONNRESET);              /* reported once... */
	assert_int_equal(animc_client_process(fx->c), -ENOTCONN);      /* ...then not connected */
	assert_int_equal(animc_status(fx->c, NULL), -ENOTCONN);
	assert_false(animc_client_connected(fx->c));
	/* The mapping stays readable: the last pose, and the stream closed. */
	expect_ok(fx->c, animc_stream_info_get(s, &si));
	assert_false(si.live);
	expect_ok(fx->c, animc_stream_latest(s, id, buf, 16 * 12, &pi));
	/* Every pose left in the ring once, in order, then no more (the
	 * cursor survives the channels being freed). */
	uint64_t dropped, last = 0;
	int got = 0;

	for (int i = 0; i < 100 && (rc = animc_stream_next(s, id, buf, 16 * 12, &pi, &dropped)) == 0;
	     i++, got++) {
		assert_true(got == 0 || pi.seq == last + 1);
		last = pi.seq;
	}
	assert_int_equal(rc, -ENODATA);
	assert_true(got >= 1 && got <= 8);
	assert_int_equal(animc_stream_next(s, id, buf, 16 * 12, &pi, &dropped), -ENODATA);
}

static int fake_server(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_true(strlen(path) < sizeof sa.sun_path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	unlink(path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(listen(fd, 4), 0);
	return fd;
}

static void test_silent_and_hanging_up_peers(void **state)
{
	struct fixture *fx = *state;
	char path[400];
	animc_client *c;
	int lfd, afd;
	long t0;

	/* A peer that accepts and never answers: the connect times out. */
	snprintf(path, sizeof path, "%s/silent.sock", fx->d.dir);
	lfd = fake_server(path);
	assert_int_equal(animc_client_new(&c), 0);
	t0 = now_ms();
	assert_int_equal(animc_client_connect(c, path, 300), -ETIMEDOUT);
	assert_true(now_ms() - t0 >= 290);
	assert_false(animc_client_connected(c));
	/* A peer that hangs up: an error, never a SIGPIPE (which would kill
	 * this test). */
	afd = accept(lfd, NULL, NULL);
	assert_true(afd >= 0);
	close(afd);
	assert_true(animc_client_connect(c, path, 1000) < 0);
	afd = accept(lfd, NULL, NULL);
	close(afd);
	animc_client_close(c);
	close(lfd);
	unlink(path);
}

static void test_connection_refused_by_limit(void **state)
{
	struct fixture *fx;
	animc_client *second;
	const char *name, *msg;

	setup_with(state, "[limits]\nmax_connections = 1\n");
	fx = *state;
	assert_int_equal(animc_client_new(&second), 0);
	assert_int_equal(animc_client_connect(second, fx->d.socket, TIMEOUT_MS), -EREMOTEIO);
	assert_int_equal(animc_client_error(second, &name, &msg), ANIMC_ERR_LIMIT);
	assert_string_equal(name, "limit");
	assert_true(msg[0] != '\0');
	animc_client_close(second);
	teardown(state);
}

/* ---- reconnection ----------------------------------------------------- */

struct rc_seen {
	int calls;
	animc_reconnect_info info;
	animc_instance_remap remaps[8];
};

static void on_reconnect(animc_client *c, const animc_reconnect_info *info, void *user)
{
	struct rc_seen *r = user;

	(void)c;
	r->calls++;
	r->info = *info;
	for (size_t i = 0; i < info->instance_count && i < 8; i++)
		r->remaps[i] = info->instances[i];
}

/* Restart the daemon and wait (5 s at most) for the client's one
 * reconnection, which on_reconnect records in r. */
static void restart_and_reconnect(struct fixture *fx, struct rc_seen *r)
{
	long deadline;

	assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	assert_int_equal(daemon_proc_start(&fx->d, NULL, TIMEOUT_MS), 0);
	deadline = now_ms() + 5000;
	while (r->calls == 0 && now_ms() < deadline)
		assert_true(animc_client_wait(fx->c, 50) >= 0);
	assert_int_equal(r->calls, 1);
}

static void test_reconnect_replays(void **state)
{
	struct fixture *fx = *state;
	animc_reconnect_opts ro = { .enabled = 1, .initial_delay_ms = 20, .max_delay_ms = 200 };
	struct rc_seen r = { 0 };
	struct seen ev = { 0 };
	animc_stream *s = open_stream(fx, ANIMC_SPACE_MODEL, 60, 8);
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	animc_stream_info before, after;
	animc_instance_list *l;
	animc_instance *in;
	animc_pose_info pi;
	float buf[16 * 12];
	uint64_t a, b, c;

	ro.on_reconnect = on_reconnect;
	ro.user = &r;
	expect_ok(fx->c, animc_client_set_reconnect(fx->c, &ro));
	animc_client_on_event(fx->c, on_event, &ev);
	expect_ok(fx->c, animc_subscribe(fx->c, ANIMC_EVENTS_ASSETS, NULL));
	a = play_in(fx, s, "walker.md5anim", 1);
	po.asset = "idle.md5anim";
	po.speed = 0.5;
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	b = in->id;
	animc_free(in);
	expect_ok(fx->c, animc_seek(fx->c, b, 0.05, NULL));
	expect_ok(fx->c, animc_pause(fx->c, b, NULL));
	expect_ok(fx->c, animc_stream_info_get(s, &before));

	/* Restart the daemon. */
	restart_and_reconnect(fx, &r);
	assert_true(animc_client_connected(fx->c));
	assert_int_equal(r.info.server_pid, (uint32_t)fx->d.pid);
	assert_int_equal(r.info.streams_reopened, 1);
	assert_int_equal(r.info.streams_failed, 0);
	assert_int_equal(r.info.instance_count, 2);
	assert_int_equal(r.remaps[0].id, a);
	assert_int_equal(r.remaps[0].status, 0);
	assert_int_equal(r.remaps[1].id, b);
	assert_int_equal(r.remaps[1].status, 0);
	assert_int_equal(animc_client_server_instance(fx->c, a), r.remaps[0].new_server_id);

	/* The same stream handle, remapped onto the new daemon's region. */
	expect_ok(fx->c, animc_stream_info_get(s, &after));
	assert_true(after.live);
	assert_true(after.epoch != before.epoch);
	expect_ok(fx->c, animc_stream_latest(s, a, buf, 16 * 12, &pi));
	assert_int_equal(pi.instance, a);
	assert_int_equal(pi.epoch, after.epoch);
	assert_int_equal(pi.element_count, 10);

	/* The same ids, the same state. */
	expect_ok(fx->c, animc_instances_list(fx->c, &l));
	assert_int_equal(l->count, 2);
	assert_int_equal(l->instances[0].id, a);
	assert_int_equal(l->instances[0].state, ANIMC_STATE_PLAYING);
	assert_int_equal(l->instances[1].id, b);
	assert_int_equal(l->instances[1].state, ANIMC_STATE_PAUSED);
	assert_true(fabs(l->instances[1].time - 0.05) < 1e-3);
	assert_true(l->instances[1].speed == 0.5);
	animc_free(l);
	expect_ok(fx->c, animc_resume(fx->c, b, &in));
	assert_int_equal(in->id, b);
	animc_free(in);

	/* A new instance gets an id none of the old ones has. */
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	c = in->id;
	animc_free(in);
	assert_true(c != a && c != b);
	expect_ok(fx->c, animc_stop(fx->c, c, NULL));

	/* The subscription was renewed. */
	assert_int_equal(daemon_proc_touch_asset(&fx->d, "walker.md5mesh"), 0);
	expect_ok(fx->c, animc_assets_reload(fx->c, "walker.md5mesh", NULL));
	wait_for(fx->c, &ev.count[ANIMC_EVENT_ASSET_RELOADED], 1, 2000);
	/* server.stopping came before the restart, to everyone. */
	assert_int_equal(ev.count[ANIMC_EVENT_SERVER_STOPPING], 1);
}

/* The newest poses of two instances are of one tick, with one clip time
 * and the same matrices, bit for bit.  Poses published at once by a play
 * carry the tick before them: only a later tick's count; retried while a
 * tick lands between the two reads. */
static void assert_in_step(animc_stream *s, const uint64_t id[2])
{
	float pose[2][16 * 12];
	animc_pose_info pi[2];
	uint64_t after = 0;

	for (int tries = 0; tries < 400; tries++, sleep_ms(5)) {
		if (animc_stream_latest(s, id[0], pose[0], 16 * 12, &pi[0]) != 0 ||
		    animc_stream_latest(s, id[1], pose[1], 16 * 12, &pi[1]) != 0)
			continue;
		if (after == 0)
			after = (pi[0].tick > pi[1].tick ? pi[0].tick : pi[1].tick) + 1;
		if (pi[0].tick != pi[1].tick || pi[0].tick < after || pi[0].epoch != pi[1].epoch)
			continue;
		assert_true(pi[0].clip_time == pi[1].clip_time);
		assert_int_equal(pi[0].element_count, pi[1].element_count);
		assert_memory_equal(pose[0], pose[1], pi[0].element_count * 12 * sizeof(float));
		return;
	}
	fail_msg("no two poses of one tick in 2 s");
}

/* Two walkers played with one at_ns are replayed with it after a restart,
 * so they stay in step: replayed each at its own time then, as an
 * instance played without at_ns is, they would differ by the moments
 * between their replays. */
static void test_reconnect_keeps_step(void **state)
{
	struct fixture *fx = *state;
	animc_reconnect_opts ro = { .enabled = 1, .initial_delay_ms = 20, .max_delay_ms = 200 };
	struct rc_seen r = { 0 };
	animc_stream *s = open_stream(fx, ANIMC_SPACE_MODEL, 60, 8);
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	animc_stream_info before, after;
	animc_instance *in;
	uint64_t id[2];

	ro.on_reconnect = on_reconnect;
	ro.user = &r;
	expect_ok(fx->c, animc_client_set_reconnect(fx->c, &ro));
	po.asset = "walker.md5anim";
	po.stream = s;
	po.start = 0.1;
	po.at_ns = (int64_t)now_ms() * 1000000;
	for (int i = 0; i < 2; i++) {
		expect_ok(fx->c, animc_play(fx->c, &po, &in));
		id[i] = in->id;
		animc_free(in);
	}
	assert_in_step(s, id);
	expect_ok(fx->c, animc_stream_info_get(s, &before));

	restart_and_reconnect(fx, &r);
	assert_int_equal(r.info.instance_count, 2);
	assert_int_equal(r.remaps[0].status, 0);
	assert_int_equal(r.remaps[1].status, 0);
	expect_ok(fx->c, animc_stream_info_get(s, &after));
	assert_true(after.epoch != before.epoch);
	assert_in_step(s, id);
}

static void test_reconnect_in_blocking_call(void **state)
{
	struct fixture *fx = *state;
	animc_reconnect_opts ro = { .enabled = 1, .initial_delay_ms = 20 };
	struct rc_seen r = { 0 };
	animc_status_info *st;

	ro.on_reconnect = on_reconnect;
	ro.user = &r;
	expect_ok(fx->c, animc_client_set_reconnect(fx->c, &ro));
	assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	assert_int_equal(daemon_proc_start(&fx->d, NULL, TIMEOUT_MS), 0);
	/* The call finds the old connection dead, reconnects, and is served. */
	expect_ok(fx->c, animc_status(fx->c, &st));
	assert_int_equal(r.calls, 1);
	assert_int_equal(st->pid, (uint32_t)fx->d.pid);
	animc_free(st);
}

/* animc_status's fields of the index and the cap. */
static void test_status_under_a_cap(void **state)
{
	struct fixture *fx = *state;
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	animc_status_info *st;
	animc_instance *in;
	uint64_t loads;

	expect_ok(fx->c, animc_status(fx->c, &st));
	assert_int_equal(st->assets, 6);
	assert_int_equal(st->assets_cap, 1);
	assert_int_equal(st->assets_evicted, 6);
	assert_int_equal(st->assets_not_loaded, 0);
	assert_int_equal(st->assets_over_cap, 0);
	assert_int_equal(st->memory.assets, 0);
	loads = st->assets_on_demand_loads;
	animc_free(st);

	po.asset = "walker.md5anim";
	po.mesh = "walker.md5mesh";
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	animc_free(in);
	expect_ok(fx->c, animc_status(fx->c, &st));
	/* Both loaded for the play, and kept over the cap while it plays. */
	assert_int_equal(st->assets_on_demand_loads, loads + 2);
	assert_int_equal(st->assets_evicted, 4);
	assert_int_equal(st->assets_over_cap, 1);
	assert_true(st->memory.assets > st->assets_cap);
	animc_free(st);
}

/* A restart on a tree of 2,000 assets: the client reconnects the moment
 * the new daemon accepts, before its background has loaded what the
 * instances play (the tree's last characters, and an M2 with its
 * companions), and every replay succeeds at its first try: the daemon
 * loads what a request names first and answers when it is loaded. */
static void test_reconnect_large_tree(void **state)
{
	struct fixture *fx = *state;
	animc_reconnect_opts ro = { .enabled = 1, .initial_delay_ms = 5, .max_delay_ms = 20 };
	struct rc_seen r = { 0 };
	struct tree_manifest m;
	char big[400], mesh[8][128], anim[8][128] = { "" };
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	animc_instance_list *l;
	animc_instance *in;
	size_t n = 0;
	long deadline;

	snprintf(big, sizeof big, "%s/big", fx->d.assets);
	assert_int_equal(tree_generate(big, 2000, 0, &m), 0);
	/* Restarted on the whole tree first, so that it knows it. */
	assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	assert_int_equal(daemon_proc_start(&fx->d, NULL, TIMEOUT_MS), 0);
	ro.on_reconnect = on_reconnect;
	ro.user = &r;
	expect_ok(fx->c, animc_client_set_reconnect(fx->c, &ro));
	for (size_t i = m.by_kind[TREE_MD5ANIM] - 7; i < m.by_kind[TREE_MD5ANIM]; i++, n++) {
		const struct tree_asset *a = tree_nth(&m, TREE_MD5ANIM, i);

		snprintf(anim[n], sizeof anim[n], "big/%s", a->name);
		snprintf(mesh[n], sizeof mesh[n], "big/%s", a->mesh);
		po.asset = anim[n];
		po.mesh = mesh[n];
		expect_ok(fx->c, animc_play(fx->c, &po, &in));
		animc_free(in);
	}
	/* The tree's last M2 with companions (version 264's .skin). */
	for (size_t i = m.by_kind[TREE_M2]; i-- > 0;) {
		const struct tree_asset *a = tree_nth(&m, TREE_M2, i);

		if (a->mesh[0] != '\0') {
			snprintf(anim[n], sizeof anim[n], "big/%s", a->name);
			break;
		}
	}
	assert_true(anim[n][0] != '\0');
	po = (animc_play_opts)ANIMC_PLAY_OPTS_INIT;
	po.asset = anim[n++];
	expect_ok(fx->c, animc_play(fx->c, &po, &in));
	animc_free(in);
	tree_manifest_free(&m);
	/* (The plays found the connection of before the first restart lost,
	 * and reconnected: that one does not count.) */
	memset(&r, 0, sizeof r);

	/* Back at once: no waiting for READY=1, nor for the loads. */
	assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	assert_int_equal(daemon_proc_spawn(&fx->d, NULL, NULL), 0);
	deadline = now_ms() + TIMEOUT_MS;
	while (r.calls == 0 && now_ms() < deadline)
		assert_true(animc_client_wait(fx->c, 20) >= 0);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.info.instance_count, n);
	for (size_t i = 0; i < n; i++) {
		if (r.remaps[i].status != 0)
			fail_msg("the replay of %s failed: %s", anim[i],
				 animc_strerror(r.remaps[i].status));
		assert_true(r.remaps[i].new_server_id > 0);
	}
	expect_ok(fx->c, animc_instances_list(fx->c, &l));
	assert_int_equal(l->count, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(l->instances[i].state, ANIMC_STATE_PLAYING);
	animc_free(l);
	/* Let the fixture's stop find it whole. */
	assert_int_equal(daemon_proc_wait_notify(&fx->d, "STATUS=serving", TIMEOUT_MS), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hello_status_assets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_bind_skin_weights, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_play_controls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clip_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fade_and_layers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nonblocking, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_latest_next, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_x_vertices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_m2_attachments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_drops_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_no_torn_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_without_reconnect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_silent_and_hanging_up_peers, setup, teardown),
		cmocka_unit_test(test_connection_refused_by_limit),
		cmocka_unit_test_setup_teardown(test_reconnect_replays, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reconnect_keeps_step, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reconnect_in_blocking_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reconnect_large_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_under_a_cap, setup_capped, teardown),
	};

	signal(SIGPIPE, SIG_DFL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
