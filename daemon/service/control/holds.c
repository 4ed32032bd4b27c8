/*
 * holds.c - requests waiting for the assets they name (holds.h): kept as
 * their bytes, their names wanted from the cache, served again when the
 * last name has an outcome, answered `loading` at their deadline.
 *
 * Two lists: those waiting (looked at for deadlines every HOLDS_TICK_MS
 * while any exist) and those ready, served in the order they became ready
 * on the next turn of the loop, never from inside the cache's callback
 * that made them ready.  Answering one may close its session, which drops
 * the session's other holds (holds_forget): lists are re-read from their
 * head after every answer, or taken whole first.
 */
#include "daemon/service/control/holds.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "daemon/service/base/log.h"
#include "daemon/service/cache/cache.h"
#include "daemon/service/control/dispatch.h"
#include "daemon/service/control/session.h"

/* The names one request may wait for: `asset`, `mesh`, and the `asset` of
 * each of sample's layers (SAMPLE_MAX_LAYERS). */
#define HOLD_MAX_NAMES 18
/* How often deadlines are looked at while requests wait. */
#define HOLDS_TICK_MS 50

struct hold_name {
	struct cache_waiter w;
	struct hold *h;
	char *name;                     /* NULL: the index */
	struct asset *pin;              /* in memory: kept there until served */
	bool waiting;
};

struct hold {
	struct hold *prev, *next;
	bool ready;                     /* in ctl->holds_ready, not holds_waiting */
	struct session *session;
	uint32_t msgid;
	enum proto_method method;
	uint64_t deadline_ms;           /* uv_now */
	size_t waiting;                 /* names whose waiter has not been called */
	size_t name_count;
	struct hold_name names[HOLD_MAX_NAMES];
	size_t len;
	char raw[];                     /* the request, as it arrived */
};

static void holds_unlink(struct control *ctl, struct hold *h)
{
	struct hold **head = h->ready ? &ctl->holds_ready : &ctl->holds_waiting;

	if (h->prev != NULL)
		h->prev->next = h->next;
	else
		*head = h->next;
	if (h->next != NULL)
		h->next->prev = h->prev;
	else if (h->ready)
		ctl->holds_ready_tail = h->prev;
	h->prev = h->next = NULL;
	ctl->holds_count--;
}

/* Lets go of what h holds and frees it; its session no longer counts it. */
static void holds_release(struct control *ctl, struct hold *h)
{
	for (size_t i = 0; i < h->name_count; i++) {
		struct hold_name *n = &h->names[i];

		if (n->waiting)
			cache_unwant(ctl->cache, &n->w);
		asset_unref(n->pin);
		free(n->name);
	}
	h->session->waiting--;
	h->session->waiting_bytes -= h->len;
	free(h);
}

static void holds_kick_cb(uv_timer_t *t);

static void holds_make_ready(struct control *ctl, struct hold *h)
{
	holds_unlink(ctl, h);
	h->ready = true;
	h->prev = ctl->holds_ready_tail;
	if (ctl->holds_ready_tail != NULL)
		ctl->holds_ready_tail->next = h;
	else
		ctl->holds_ready = h;
	ctl->holds_ready_tail = h;
	ctl->holds_count++;
	uv_timer_start(&ctl->holds_kick, holds_kick_cb, 0, 0);
}

/* The cache's word on one name: in memory (pinned now), or an outcome
 * without it.  The last one makes the request ready. */
static void holds_waited(struct cache_waiter *w, struct asset *asset, void *data)
{
	struct hold_name *n = data;
	struct hold *h = n->h;

	(void)w;
	n->waiting = false;
	if (asset != NULL && n->pin == NULL)
		n->pin = asset_ref(asset);
	if (--h->waiting == 0)
		holds_make_ready(h->session->ctl, h);
}

/* Serves h (already out of the lists) again, from its bytes, then lets go
 * of it. */
static void holds_serve(struct control *ctl, struct hold *h)
{
	struct session *s = h->session;
	struct rpc_request req;
	struct rpc_error err;
	msgpack_unpacked up;
	size_t off = 0;

	msgpack_unpacked_init(&up);
	rpc_error_init(&err);
	if (!s->closing && msgpack_unpack_next(&up, h->raw, h->len, &off) == MSGPACK_UNPACK_SUCCESS &&
	    rpc_request_parse(&up.data, &req, &err) == 0) {
		/* A request that must wait again keeps its first deadline. */
		ctl->dispatch_deadline_ms = h->deadline_ms;
		dispatch_request(s, &req, h->raw, h->len);
		ctl->dispatch_deadline_ms = 0;
	}
	msgpack_unpacked_destroy(&up);
	/* After it: what it waited for stayed pinned while it was served. */
	holds_release(ctl, h);
	session_deferred_done(s);
}

static void holds_kick_cb(uv_timer_t *t)
{
	struct control *ctl = t->data;

	while (ctl->holds_ready != NULL) {
		struct hold *h = ctl->holds_ready;

		holds_unlink(ctl, h);
		holds_serve(ctl, h);
	}
}

/* Past its deadline: `loading`, naming what it still waits for. */
static void holds_expire(struct control *ctl, struct hold *h)
{
	struct session *s = h->session;
	const char *what = NULL;
	char quoted[160];
	struct rpc_error err;

	for (size_t i = 0; i < h->name_count && what == NULL; i++)
		if (h->names[i].waiting)
			what = h->names[i].name != NULL ? h->names[i].name : "";
	if (what != NULL && what[0] != '\0')
		rpc_quote(quoted, sizeof quoted, what, strlen(what));
	else
		snprintf(quoted, sizeof quoted, "the index of the asset tree");
	rpc_error_init(&err);
	err.msgid = h->msgid;
	err.has_msgid = true;
	rpc_error_format(&err, PROTO_ERR_LOADING,
			 "%s: %s is still loading after %u ms (limits.request_timeout_ms): try "
			 "again", proto_method_name(h->method), quoted, ctl->cfg->request_timeout_ms);
	log_debug("connection %llu: %s", (unsigned long long)s->id, err.message);
	session_send_error(s, &err);
	holds_release(ctl, h);
	session_deferred_done(s);
}

static void holds_tick_cb(uv_timer_t *t)
{
	struct control *ctl = t->data;
	uint64_t now = uv_now(ctl->loop);
	struct hold *due = NULL, *h, *next;

	/* Taken out first: an answer may close a session, which drops the
	 * rest of its holds from the lists. */
	for (h = ctl->holds_waiting; h != NULL; h = next) {
		next = h->next;
		if (now < h->deadline_ms)
			continue;
		holds_unlink(ctl, h);
		h->next = due;
		due = h;
	}
	while ((h = due) != NULL) {
		due = h->next;
		holds_expire(ctl, h);
	}
	if (ctl->holds_waiting == NULL)
		uv_timer_stop(t);
}

static bool holds_key_is(const msgpack_object *k, const char *name)
{
	size_t n = strlen(name);

	return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
	       memcmp(k->via.str.ptr, name, n) == 0;
}

/* One name the request gives, unless it is one already, or one that could
 * never be an asset's. */
static void holds_add_name(struct hold *h, const char *name, size_t len)
{
	char *copy;

	if (len == 0 || len > PROTO_MAX_ASSET_NAME_BYTES || memchr(name, '\0', len) != NULL ||
	    h->name_count == HOLD_MAX_NAMES)
		return;
	for (size_t i = 0; i < h->name_count; i++)
		if (h->names[i].name != NULL && strlen(h->names[i].name) == len &&
		    memcmp(h->names[i].name, name, len) == 0)
			return;
	copy = strndup(name, len);
	if (copy != NULL)
		h->names[h->name_count++].name = copy;
}

static void holds_add_str(struct hold *h, const msgpack_object *v)
{
	if (v->type == MSGPACK_OBJECT_STR)
		holds_add_name(h, v->via.str.ptr, v->via.str.size);
}

/* Every asset the request names: `asset`, `mesh`, and `layers[].asset`
 * (sample), whatever the method (a key it does not take is refused when
 * it is served anyway). */
static void holds_collect(struct hold *h, const struct rpc_request *req)
{
	const msgpack_object_map *m = req->args;

	if (m == NULL)
		return;
	for (uint32_t i = 0; i < m->size; i++) {
		const msgpack_object_kv *kv = &m->ptr[i];

		if (holds_key_is(&kv->key, "asset") || holds_key_is(&kv->key, "mesh")) {
			holds_add_str(h, &kv->val);
		} else if (holds_key_is(&kv->key, "layers") && kv->val.type == MSGPACK_OBJECT_ARRAY) {
			for (uint32_t l = 0; l < kv->val.via.array.size; l++) {
				const msgpack_object *layer = &kv->val.via.array.ptr[l];

				if (layer->type != MSGPACK_OBJECT_MAP)
					continue;
				for (uint32_t k = 0; k < layer->via.map.size; k++)
					if (holds_key_is(&layer->via.map.ptr[k].key, "asset"))
						holds_add_str(h, &layer->via.map.ptr[k].val);
			}
		}
	}
}

int holds_add(struct session *s, const struct rpc_request *req, const char *raw, size_t raw_len,
	      struct rpc_error *err)
{
	struct control *ctl = s->ctl;
	uint64_t now = uv_now(ctl->loop);
	uint64_t deadline = ctl->dispatch_deadline_ms != 0
				    ? ctl->dispatch_deadline_ms
				    : now + ctl->cfg->request_timeout_ms;
	struct hold *h;

	/* Its time is up (served again at its deadline): the handler's
	 * `loading` error is the answer. */
	if (!ctl->holds_open || raw == NULL || now >= deadline)
		return -1;
	if (s->waiting >= PROTO_MAX_WAITING_REQUESTS ||
	    s->waiting_bytes + raw_len > PROTO_MAX_WAITING_BYTES) {
		rpc_error_format(err, PROTO_ERR_LIMIT,
				 "%s: %u requests of this connection already wait for assets to "
				 "load (at most %u, of %u MiB together)",
				 proto_method_name(req->method), s->waiting,
				 PROTO_MAX_WAITING_REQUESTS, PROTO_MAX_WAITING_BYTES >> 20);
		return -1;
	}
	h = calloc(1, sizeof *h + raw_len);
	if (h == NULL)
		return -1;
	h->session = s;
	h->msgid = req->msgid;
	h->method = req->method;
	h->deadline_ms = deadline;
	h->len = raw_len;
	memcpy(h->raw, raw, raw_len);
	holds_collect(h, req);
	if (ctl->dispatch_wait_name != NULL)
		holds_add_name(h, ctl->dispatch_wait_name, strlen(ctl->dispatch_wait_name));
	if (h->name_count == 0)
		h->name_count = 1;      /* the index alone (assets.list) */
	s->waiting++;
	s->waiting_bytes += raw_len;
	for (size_t i = 0; i < h->name_count; i++) {
		struct hold_name *n = &h->names[i];
		struct cache_info info;

		n->h = h;
		if (n->name != NULL && cache_use(ctl->cache, n->name, &info) == 0 &&
		    info.asset != NULL) {
			n->pin = asset_ref(info.asset);
			continue;
		}
		if (cache_want(ctl->cache, n->name, &n->w, holds_waited, n) == 1) {
			n->waiting = true;
			h->waiting++;
		}
	}
	if (h->waiting == 0) {
		/* Nothing it names can be waited for: answered as it is. */
		holds_release(ctl, h);
		return -1;
	}
	h->next = ctl->holds_waiting;
	if (h->next != NULL)
		h->next->prev = h;
	ctl->holds_waiting = h;
	ctl->holds_count++;
	s->deferred++;
	if (ctl->dispatch_deadline_ms == 0)
		ctl->requests_waited++;
	if (!uv_is_active((uv_handle_t *)&ctl->holds_timer))
		uv_timer_start(&ctl->holds_timer, holds_tick_cb, HOLDS_TICK_MS, HOLDS_TICK_MS);
	return 0;
}

int holds_init(struct control *ctl)
{
	uv_timer_init(ctl->loop, &ctl->holds_timer);
	uv_timer_init(ctl->loop, &ctl->holds_kick);
	ctl->holds_timer.data = ctl;
	ctl->holds_kick.data = ctl;
	ctl->holds_open = true;
	return 0;
}

static void holds_forget_list(struct control *ctl, struct hold *h, struct session *s)
{
	while (h != NULL) {
		struct hold *next = h->next;

		if (h->session == s) {
			holds_unlink(ctl, h);
			holds_release(ctl, h);
		}
		h = next;
	}
}

void holds_forget(struct control *ctl, struct session *s)
{
	if (s->waiting == 0)
		return;
	holds_forget_list(ctl, ctl->holds_waiting, s);
	holds_forget_list(ctl, ctl->holds_ready, s);
}

void holds_stop(struct control *ctl)
{
	struct hold *all = NULL, **tail = &all, *h;

	if (!ctl->holds_open)
		return;
	ctl->holds_open = false;
	/* Ready first, then the rest, each list in its order. */
	while ((h = ctl->holds_ready) != NULL || (h = ctl->holds_waiting) != NULL) {
		holds_unlink(ctl, h);
		*tail = h;
		tail = &h->next;
	}
	while ((h = all) != NULL) {
		all = h->next;
		h->next = NULL;
		if (h->session->closing) {
			holds_release(ctl, h);
			continue;
		}
		holds_serve(ctl, h);    /* ctl->stopping: shutting_down */
	}
	uv_close((uv_handle_t *)&ctl->holds_timer, NULL);
	uv_close((uv_handle_t *)&ctl->holds_kick, NULL);
	free(ctl->dispatch_wait_name);
	ctl->dispatch_wait_name = NULL;
}
