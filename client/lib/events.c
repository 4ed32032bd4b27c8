/*
 * events.c - the daemon's notifications [2, "event", [{type, ...}]]: read
 * into an animc_event as they arrive, applied to the instance records at
 * once (so a replay never revives a stopped instance), and delivered to the
 * caller's callback by the next process().
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ac_event_item {
	struct ac_item item;
	animc_event ev;
};

void ac_events_free(struct ac_item *item)
{
	ac_res_free(item);
}

void ac_events_deliver(animc_client *c, struct ac_item *item)
{
	struct ac_event_item *e = (struct ac_event_item *)item;

	if (c->on_event != NULL)
		c->on_event(c, &e->ev, c->event_user);
}

/* What an instance event means for the library's own record. */
static void events_apply(animc_client *c, animc_event *ev, uint64_t server_id)
{
	struct ac_instance *in = ac_instances_by_server(c, server_id);

	ev->instance = in != NULL ? in->id : ac_instances_to_user(c, server_id);
	if (in == NULL)
		return;
	if (ev->type == ANIMC_EVENT_INSTANCE_STOPPED) {
		ac_instances_forget(c, in);
	} else if (ev->type == ANIMC_EVENT_INSTANCE_ENDED) {
		in->time = ev->time;
		in->time_at_ms = ac_now_ms();
	}
}

/* clip.event's own fields, into the event's result. */
static const animc_clip_event *events_clip(struct ac_parse *p, const msgpack_object *body)
{
	animc_clip_event *ce = ac_res_alloc(p->res, sizeof *ce);
	const char *dir;

	if (ce == NULL) {
		p->err = p->err ? p->err : -ENOMEM;
		return NULL;
	}
	ce->event = (uint32_t)ac_obj_u64(p, body, "event", 0);
	ce->id = ac_obj_str(p, body, "id");
	ce->data = (uint32_t)ac_obj_u64(p, body, "data", 0);
	ce->bone = (uint32_t)ac_obj_u64(p, body, "bone", 0);
	ce->joint = (int32_t)ac_obj_i64(p, body, "joint", -1);
	ac_obj_floats(p, ac_obj_get(body, "position"), ce->position, 3, "position");
	ce->time = ac_obj_f64(p, body, "time", 0);
	ce->playback_time = ac_obj_f64(p, body, "playback_time", 0);
	ce->at_ns = ac_obj_i64(p, body, "at_ns", 0);
	dir = ac_obj_str(p, body, "direction");
	ce->direction = dir != NULL && strcmp(dir, "backward") == 0 ? -1 : 1;
	ce->missed = ac_obj_u64(p, body, "missed", 0);
	return ce;
}

void ac_events_handle(animc_client *c, const msgpack_object *msg)
{
	const msgpack_object_array *a = &msg->via.array;
	const msgpack_object *body;
	struct ac_event_item *e;
	struct ac_parse p = { 0 };
	uint64_t server_id;

	if (a->size != 3 || !ac_obj_is_str(&a->ptr[1], "event") ||
	    a->ptr[2].type != MSGPACK_OBJECT_ARRAY || a->ptr[2].via.array.size < 1 ||
	    a->ptr[2].via.array.ptr[0].type != MSGPACK_OBJECT_MAP)
		return;
	body = &a->ptr[2].via.array.ptr[0];
	e = ac_res_new(sizeof *e);
	if (e == NULL)
		return;         /* an event lost to memory pressure; nothing to report it to */
	e->item.kind = AC_ITEM_EVENT;
	p.res = e;
	e->ev.name = ac_obj_str(&p, body, "type");
	e->ev.type = animc_event_lookup(e->ev.name);
	e->ev.asset = ac_obj_str(&p, body, "asset");
	e->ev.clip = ac_obj_str(&p, body, "clip");
	e->ev.format = ac_obj_str(&p, body, "format");
	e->ev.message = ac_obj_str(&p, body, "message");
	e->ev.reason = ac_obj_str(&p, body, "reason");
	e->ev.generation = ac_obj_u64(&p, body, "generation", 0);
	e->ev.time = ac_obj_f64(&p, body, "time", 0);
	server_id = ac_obj_u64(&p, body, "instance", 0);
	e->ev.layer = (uint32_t)ac_obj_u64(&p, body, "layer", 0);
	/* The protocol names `live`; a daemon that sends only the live
	 * generation says the same with a non-zero one. */
	e->ev.live = ac_obj_bool(&p, body, "live", e->ev.generation > 0);
	if (e->ev.type == ANIMC_EVENT_MONITOR_REQUEST) {
		/* Its `connection` and `msgid` are another client's: nothing
		 * here to apply them to. */
		e->ev.connection = ac_obj_u64(&p, body, "connection", 0);
		e->ev.pid = ac_obj_i64(&p, body, "pid", 0);
		e->ev.method = ac_obj_str(&p, body, "method");
		e->ev.msgid = (uint32_t)ac_obj_u64(&p, body, "msgid", 0);
		e->ev.params = ac_obj_str(&p, body, "params");
		server_id = 0;
	}
	if (e->ev.type == ANIMC_EVENT_CLIP_EVENT)
		e->ev.clip_event = events_clip(&p, body);
	if (e->ev.type == ANIMC_EVENT_CLIENT_KILLED) {
		/* Who closed this connection; the loss that follows is
		 * reported with its message. */
		e->ev.connection = ac_obj_u64(&p, body, "connection", 0);
		e->ev.pid = ac_obj_i64(&p, body, "pid", 0);
		e->ev.uid = ac_obj_u64(&p, body, "uid", 0);
		e->ev.client_name = ac_obj_str(&p, body, "name");
		server_id = 0;
		c->fatal_set = true;
		c->fatal_code = ANIMC_ERR_NONE;
		c->fatal_name[0] = '\0';
		snprintf(c->fatal_msg, sizeof c->fatal_msg, "connection to the daemon lost: %s",
			 e->ev.message != NULL ? e->ev.message : "closed by an operator");
	}
	if (e->ev.name == NULL || p.err < 0) {
		ac_res_free(e);
		return;
	}
	if (server_id != 0)
		events_apply(c, &e->ev, server_id);
	if (c->on_event == NULL || c->q_events >= AC_MAX_QUEUED_EVENTS) {
		ac_res_free(e);
		return;
	}
	ac_client_enqueue(c, &e->item);
}
