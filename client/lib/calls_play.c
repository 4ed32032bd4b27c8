/*
 * play, pause, resume, seek, speed, stop and instances.list: the calls that
 * report an instance state.  Each reply is also taken into the library's
 * record of the instance (instances.c), which translates ids and holds what
 * a replay after a reconnection needs.
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How old a play's at_ns may be for a replay to reuse it: under the
 * daemon's bound of a day, with room for the two clocks' readings. */
#define AC_ANCHOR_MAX_AGE_NS (23LL * 3600 * 1000000000LL)

/* The instance's "layers" into out->layers (allocated in the result). */
static void play_parse_layers(struct ac_parse *p, const msgpack_object *o, animc_instance *out)
{
	const msgpack_object *arr = ac_obj_array(p, o, "layers", &out->layer_count);
	animc_layer *ls;

	out->layers = NULL;
	if (arr == NULL || out->layer_count == 0)
		return;
	ls = ac_res_alloc(p->res, out->layer_count * sizeof *ls);
	if (ls == NULL) {
		p->err = -ENOMEM;
		return;
	}
	memset(ls, 0, out->layer_count * sizeof *ls);
	for (size_t i = 0; i < out->layer_count && p->err == 0; i++) {
		const msgpack_object *l = &arr->via.array.ptr[i], *mask, *ref;
		const char *loop;

		if (l->type != MSGPACK_OBJECT_MAP) {
			ac_obj_fail(p, "layers");
			return;
		}
		ls[i].id = (uint32_t)ac_obj_u64(p, l, "layer", 0);
		ls[i].mode = ac_obj_str(p, l, "mode");
		ls[i].asset = ac_obj_str(p, l, "asset");
		ls[i].clip = ac_obj_str(p, l, "clip");
		ls[i].weight = ac_obj_f64(p, l, "weight", 0);
		ls[i].target = ac_obj_f64(p, l, "target", 0);
		ls[i].fade_left = ac_obj_f64(p, l, "fade_left", 0);
		ls[i].removing = ac_obj_bool(p, l, "removing", 0);
		ls[i].time = ac_obj_f64(p, l, "time", 0);
		ls[i].clip_time = ac_obj_f64(p, l, "clip_time", 0);
		ls[i].speed = ac_obj_f64(p, l, "speed", 1);
		loop = ac_obj_str(p, l, "loop");
		ls[i].loop = animc_loop_lookup(loop) > 0 ? (animc_loop)animc_loop_lookup(loop)
							 : ANIMC_LOOP_DEFAULT;
		mask = ac_obj_get(l, "mask");
		if (mask != NULL && mask->type == MSGPACK_OBJECT_ARRAY && mask->via.array.size > 0) {
			size_t n = mask->via.array.size;
			const char **joints = ac_res_alloc(p->res, n * sizeof *joints);
			double *weights = ac_res_alloc(p->res, n * sizeof *weights);

			if (joints == NULL || weights == NULL) {
				p->err = -ENOMEM;
				return;
			}
			for (size_t k = 0; k < n; k++) {
				joints[k] = ac_obj_str(p, &mask->via.array.ptr[k], "joint");
				weights[k] = ac_obj_f64(p, &mask->via.array.ptr[k], "weight", 1);
			}
			ls[i].mask_count = n;
			ls[i].mask_joints = joints;
			ls[i].mask_weights = weights;
		}
		ref = ac_obj_get(l, "reference");
		if (ref != NULL && ref->type == MSGPACK_OBJECT_MAP) {
			ls[i].reference_clip = ac_obj_str(p, ref, "clip");
			ls[i].reference_time = ac_obj_f64(p, ref, "time", 0);
		}
	}
	out->layers = ls;
}

int ac_play_parse_instance(animc_client *c, struct ac_parse *p, const msgpack_object *o,
			   animc_instance *out)
{
	const char *loop, *root;

	(void)c;
	if (o->type != MSGPACK_OBJECT_MAP) {
		ac_obj_fail(p, "instance");
		return p->err;
	}
	out->id = ac_obj_u64(p, o, "instance", 0);
	out->asset = ac_obj_str(p, o, "asset");
	out->clip = ac_obj_str(p, o, "clip");
	out->mesh = ac_obj_str(p, o, "mesh");
	out->state_name = ac_obj_str(p, o, "state");
	out->state = ac_names_state(out->state_name);
	out->time = ac_obj_f64(p, o, "time", 0);
	out->clip_time = ac_obj_f64(p, o, "clip_time", 0);
	out->duration = ac_obj_f64(p, o, "duration", 0);
	out->speed = ac_obj_f64(p, o, "speed", 1);
	loop = ac_obj_str(p, o, "loop");
	root = ac_obj_str(p, o, "root_motion");
	out->loop = animc_loop_lookup(loop) > 0 ? (animc_loop)animc_loop_lookup(loop)
						: ANIMC_LOOP_DEFAULT;
	out->root_motion = animc_root_motion_lookup(root) > 0
				   ? (animc_root_motion)animc_root_motion_lookup(root)
				   : ANIMC_ROOT_DEFAULT;
	out->generation = ac_obj_u64(p, o, "generation", 0);
	out->stream = ac_obj_u64(p, o, "stream", 0);
	out->channel = out->stream != 0 ? (int32_t)ac_obj_i64(p, o, "channel", -1) : -1;
	play_parse_layers(p, o, out);
	if (p->err == 0 && (out->id == 0 || out->asset == NULL))
		ac_obj_fail(p, "instance");
	return p->err;
}

void ac_play_take_state(animc_client *c, animc_instance *st)
{
	struct ac_instance *in = ac_instances_by_server(c, st->id);

	if (in != NULL) {
		ac_instances_note(c, in, st);
		st->id = in->id;
	} else {
		st->id = ac_instances_to_user(c, st->id);
	}
}

/* ---- play ------------------------------------------------------------- */

static int play_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	const animc_play_opts *o = params;
	const char *loop = o ? animc_loop_name(o->loop) : NULL;
	const char *root = o ? animc_root_motion_name(o->root_motion) : NULL;
	uint32_t n;
	int rc = 0;

	(void)c;
	if (o == NULL || o->asset == NULL || !isfinite(o->speed) || !isfinite(o->start) ||
	    (o->stream != NULL && (o->stream->c != c || o->stream->base == NULL)))
		return -EINVAL;
	n = 2 + (o->clip != NULL) + (o->mesh != NULL) + (loop != NULL) + (o->start != 0) +
	    (root != NULL) + (o->stream != NULL) + (o->at_ns != 0) + (o->no_events != 0);
	if (rpc_pack_request(pk, msgid, "play", n) < 0)
		return -ENOMEM;
	rc |= ac_pack_kv_str(pk, "asset", o->asset);
	if (o->clip != NULL)
		rc |= ac_pack_kv_str(pk, "clip", o->clip);
	if (o->mesh != NULL)
		rc |= ac_pack_kv_str(pk, "mesh", o->mesh);
	if (loop != NULL)
		rc |= ac_pack_kv_str(pk, "loop", loop);
	rc |= ac_pack_kv_f64(pk, "speed", o->speed);
	if (o->start != 0)
		rc |= ac_pack_kv_f64(pk, "start", o->start);
	if (root != NULL)
		rc |= ac_pack_kv_str(pk, "root_motion", root);
	if (o->stream != NULL)
		rc |= ac_pack_kv_u64(pk, "stream", o->stream->id);
	if (o->at_ns != 0)
		rc |= ac_pack_kv_i64(pk, "at", o->at_ns);
	if (o->no_events != 0 &&
	    (rpc_pack_cstr(pk, "events") < 0 || msgpack_pack_false(pk) != 0))
		rc = -1;
	return rc ? -ENOMEM : 0;
}

/* What play_reply needs of the options: the anchor, if one was given, and
 * whether the instance sends clip.event (a replay keeps both). */
struct play_anchor {
	int64_t at_ns;
	double start;
	bool no_events;
};

static void *play_prepare(animc_client *c, const void *params)
{
	const animc_play_opts *o = params;
	struct play_anchor *a = calloc(1, sizeof *a);

	(void)c;
	if (a != NULL && o != NULL) {
		a->at_ns = o->at_ns;
		a->start = o->start;
		a->no_events = o->no_events != 0;
	}
	return a;
}

static int play_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	const struct play_anchor *anchor = call->ctx;
	animc_instance *st = ac_res_new(sizeof *st);
	struct ac_parse p = { .res = st };
	struct ac_instance *in;
	int rc;

	if (st == NULL)
		return -ENOMEM;
	call->result = st;
	rc = ac_play_parse_instance(c, &p, r, st);
	if (rc < 0)
		return rc;
	rc = ac_instances_add(c, st->id, st, &in);
	if (rc < 0)
		return rc;
	in->anchor_ns = anchor->at_ns;
	in->anchor_start = anchor->start;
	in->no_events = anchor->no_events;
	st->id = in->id;
	return 0;
}

static const struct ac_method method_play = { "play", play_pack, play_reply, play_prepare, free };

void animc_play_opts_init(animc_play_opts *o)
{
	if (o != NULL)
		*o = (animc_play_opts)ANIMC_PLAY_OPTS_INIT;
}

int animc_play(animc_client *c, const animc_play_opts *o, animc_instance **out)
{
	return ac_rpc_call(c, &method_play, o, (void **)out);
}

int animc_play_async(animc_client *c, const animc_play_opts *o, animc_done_fn done, void *user)
{
	return ac_rpc_call_async(c, &method_play, o, done, user);
}

/* ---- replay (reconnect.c) --------------------------------------------- */

struct replay {
	const animc_play_opts *o;
	struct ac_instance *in;
};

static int replay_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	return play_pack(c, pk, msgid, ((const struct replay *)params)->o);
}

static void *replay_prepare(animc_client *c, const void *params)
{
	(void)c;
	return ((const struct replay *)params)->in;
}

/* The play that recreates a remembered instance: its reply rekeys the
 * record instead of adding one. */
static int replay_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	struct ac_instance *in = call->ctx;
	animc_instance st = { 0 };
	struct ac_parse p = { .res = ac_res_new(1) };
	int rc;

	if (p.res == NULL)
		return -ENOMEM;
	call->result = p.res;
	rc = ac_play_parse_instance(c, &p, r, &st);
	if (rc < 0)
		return rc;
	ac_instances_rekey(c, in, st.id);
	ac_instances_note(c, in, &st);
	return 0;
}

static const struct ac_method method_replay = { "play", replay_pack, replay_reply,
						replay_prepare, NULL };

int ac_play_replay(animc_client *c, struct ac_instance *in)
{
	animc_stream *s = in->stream_serial ? ac_stream_by_serial(c, in->stream_serial) : NULL;
	animc_play_opts o = {
		.asset = in->asset,
		.clip = in->clip,
		.mesh = in->mesh,
		.loop = in->loop,
		.speed = in->speed,
		.start = ac_instances_time_now(in),
		.root_motion = in->root_motion,
		.stream = s != NULL && !s->dead ? s : NULL,
		.no_events = in->no_events,
	};
	int64_t now_ns = ac_now_ms() * 1000000;

	/* Its clock untouched since a play with at_ns: the same clock again
	 * (CLOCK_MONOTONIC is the machine's, not the daemon's), while the
	 * daemon still takes that `at` (within a day). */
	if (in->anchor_ns != 0 && in->anchor_ns > now_ns - AC_ANCHOR_MAX_AGE_NS &&
	    in->anchor_ns < now_ns + AC_ANCHOR_MAX_AGE_NS) {
		o.at_ns = in->anchor_ns;
		o.start = in->anchor_start;
	}
	struct replay params = { &o, in };
	bool paused = !in->playing;
	uint64_t id = in->id;
	int rc;

	if (!isfinite(o.start))
		o.start = 0;
	rc = ac_rpc_call(c, &method_replay, &params, NULL);
	if (rc == 0 && paused)
		rc = animc_pause(c, id, NULL);
	return rc;
}

/* ---- pause, resume, seek, speed, stop ---------------------------------- */

struct control {
	uint64_t id;
	double value;
};

static int control_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid,
			const struct control *ctl, const char *method, const char *key)
{
	uint64_t sid = ac_instances_to_server(c, ctl->id);

	if (sid == 0)
		return -ENOENT;
	if (rpc_pack_request(pk, msgid, method, key ? 2 : 1) < 0 ||
	    ac_pack_kv_u64(pk, "instance", sid) < 0)
		return -ENOMEM;
	return key != NULL ? ac_pack_kv_f64(pk, key, ctl->value) : 0;
}

int ac_play_state_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_instance *st = ac_res_new(sizeof *st);
	struct ac_parse p = { .res = st };
	int rc;

	if (st == NULL)
		return -ENOMEM;
	call->result = st;
	rc = ac_play_parse_instance(c, &p, r, st);
	if (rc == 0) {
		struct ac_instance *in = ac_instances_by_server(c, st->id);

		/* Paused, resumed, sought, sped or switched: no longer on the
		 * clock it was played with. */
		if (in != NULL)
			in->anchor_ns = 0;
		ac_play_take_state(c, st);
	}
	return rc;
}

static int stop_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_instance *st = ac_res_new(sizeof *st);
	struct ac_parse p = { .res = st };
	struct ac_instance *in;
	int rc;

	if (st == NULL)
		return -ENOMEM;
	call->result = st;
	rc = ac_play_parse_instance(c, &p, r, st);
	if (rc < 0)
		return rc;
	in = ac_instances_by_server(c, st->id);
	st->id = ac_instances_to_user(c, st->id);
	if (in != NULL)
		ac_instances_forget(c, in);
	return 0;
}

#define CONTROL_METHOD(fn, wire, key, reply)                                            \
	static int fn##_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid,       \
			     const void *params)                                        \
	{                                                                               \
		return control_pack(c, pk, msgid, params, wire, key);                   \
	}                                                                               \
	static const struct ac_method method_##fn = { wire, fn##_pack, reply, NULL, NULL }

CONTROL_METHOD(pause, "pause", NULL, ac_play_state_reply);
CONTROL_METHOD(resume, "resume", NULL, ac_play_state_reply);
CONTROL_METHOD(seek, "seek", "time", ac_play_state_reply);
CONTROL_METHOD(speed, "speed", "speed", ac_play_state_reply);
CONTROL_METHOD(stop, "stop", NULL, stop_reply);

static int control_call(animc_client *c, const struct ac_method *m, uint64_t id, double v,
			animc_instance **out)
{
	struct control ctl = { id, v };

	return ac_rpc_call(c, m, &ctl, (void **)out);
}

static int control_async(animc_client *c, const struct ac_method *m, uint64_t id, double v,
			 animc_done_fn done, void *user)
{
	struct control ctl = { id, v };

	return ac_rpc_call_async(c, m, &ctl, done, user);
}

int animc_pause(animc_client *c, uint64_t instance, animc_instance **out)
{
	return control_call(c, &method_pause, instance, 0, out);
}

int animc_resume(animc_client *c, uint64_t instance, animc_instance **out)
{
	return control_call(c, &method_resume, instance, 0, out);
}

int animc_seek(animc_client *c, uint64_t instance, double time, animc_instance **out)
{
	return control_call(c, &method_seek, instance, time, out);
}

int animc_speed(animc_client *c, uint64_t instance, double speed, animc_instance **out)
{
	return control_call(c, &method_speed, instance, speed, out);
}

int animc_stop(animc_client *c, uint64_t instance, animc_instance **out)
{
	return control_call(c, &method_stop, instance, 0, out);
}

int animc_pause_async(animc_client *c, uint64_t instance, animc_done_fn done, void *user)
{
	return control_async(c, &method_pause, instance, 0, done, user);
}

int animc_resume_async(animc_client *c, uint64_t instance, animc_done_fn done, void *user)
{
	return control_async(c, &method_resume, instance, 0, done, user);
}

int animc_seek_async(animc_client *c, uint64_t instance, double time, animc_done_fn done,
		     void *user)
{
	return control_async(c, &method_seek, instance, time, done, user);
}

int animc_speed_async(animc_client *c, uint64_t instance, double speed, animc_done_fn done,
		      void *user)
{
	return control_async(c, &method_speed, instance, speed, done, user);
}

int animc_stop_async(animc_client *c, uint64_t instance, animc_done_fn done, void *user)
{
	return control_async(c, &method_stop, instance, 0, done, user);
}

/* ---- instances.list --------------------------------------------------- */

static int list_pack(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params)
{
	(void)c;
	(void)params;
	return rpc_pack_request(pk, msgid, "instances.list", 0);
}

static int list_reply(animc_client *c, struct ac_call *call, const msgpack_object *r)
{
	animc_instance_list *l = ac_res_new(sizeof *l);
	struct ac_parse p = { .res = l };
	const msgpack_object *arr;
	animc_instance *items;
	size_t n;

	if (l == NULL)
		return -ENOMEM;
	call->result = l;
	arr = ac_obj_array(&p, r, "instances", &n);
	items = ac_res_alloc(l, n * sizeof *items);
	if (items == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n && p.err == 0; i++)
		if (ac_play_parse_instance(c, &p, &arr->via.array.ptr[i], &items[i]) == 0)
			ac_play_take_state(c, &items[i]);
	l->count = n;
	l->instances = items;
	return p.err;
}

static const struct ac_method method_list = { "instances.list", list_pack, list_reply, NULL,
					      NULL };

int animc_instances_list(animc_client *c, animc_instance_list **out)
{
	return ac_rpc_call(c, &method_list, NULL, (void **)out);
}

int animc_instances_list_async(animc_client *c, animc_done_fn done, void *user)
{
	return ac_rpc_call_async(c, &method_list, NULL, done, user);
}
