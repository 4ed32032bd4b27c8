/* monitor: every request, reported to the connections that asked. */
#include "daemon/service/control/monitor.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon/service/base/log.h"
#include "daemon/service/control/listener.h"
#include "proto/rpc_out.h"

void monitor_start(struct session *s)
{
	if (!s->monitor) {
		s->monitor = true;
		s->ctl->monitors++;
	}
}

void monitor_end(struct session *s)
{
	if (s->monitor) {
		s->monitor = false;
		s->ctl->monitors--;
	}
}

/* An append-only text with a hard end: what does not fit is dropped, and
 * `cut` remembers it. */
struct monitor_text {
	char *buf;
	size_t len, room;               /* room: bytes usable, the NUL excluded */
	bool cut;
};

static void monitor_put(struct monitor_text *t, const char *s, size_t n)
{
	if (t->cut || n > t->room - t->len) {
		t->cut = true;
		return;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
}

static void monitor_puts(struct monitor_text *t, const char *s)
{
	monitor_put(t, s, strlen(s));
}

/* A string from outside, escaped (log_escape) and quoted; cut where the
 * text ends (whole characters and escapes only), without its closing
 * quote then. */
static void monitor_put_escaped(struct monitor_text *t, const char *s, size_t n)
{
	bool cut = false;

	monitor_put(t, "\"", 1);
	if (t->cut)
		return;
	/* log_escape wants room for its NUL: the byte after `room` is ours. */
	t->len += log_escape(t->buf + t->len, t->room - t->len + 1, s, n, &cut);
	if (cut)
		t->cut = true;
	monitor_put(t, "\"", 1);
}

static void monitor_put_value(struct monitor_text *t, const msgpack_object *o, int depth)
{
	char num[64];

	switch (o->type) {
	case MSGPACK_OBJECT_NIL: monitor_puts(t, "nil"); return;
	case MSGPACK_OBJECT_BOOLEAN: monitor_puts(t, o->via.boolean ? "true" : "false"); return;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		snprintf(num, sizeof num, "%" PRIu64, o->via.u64);
		monitor_puts(t, num);
		return;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		snprintf(num, sizeof num, "%" PRId64, o->via.i64);
		monitor_puts(t, num);
		return;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		snprintf(num, sizeof num, "%.9g", o->via.f64);
		monitor_puts(t, num);
		return;
	case MSGPACK_OBJECT_STR:
		monitor_put_escaped(t, o->via.str.ptr, o->via.str.size);
		return;
	case MSGPACK_OBJECT_BIN:
		snprintf(num, sizeof num, "<%" PRIu32 " bytes>", o->via.bin.size);
		monitor_puts(t, num);
		return;
	case MSGPACK_OBJECT_ARRAY:
		if (depth >= 3) {
			monitor_puts(t, "[\xe2\x80\xa6]");
			return;
		}
		monitor_puts(t, "[");
		for (uint32_t i = 0; i < o->via.array.size && !t->cut; i++) {
			if (i > 0)
				monitor_puts(t, ", ");
			monitor_put_value(t, &o->via.array.ptr[i], depth + 1);
		}
		monitor_puts(t, "]");
		return;
	case MSGPACK_OBJECT_MAP:
		if (depth >= 3) {
			monitor_puts(t, "{\xe2\x80\xa6}");
			return;
		}
		monitor_puts(t, "{");
		for (uint32_t i = 0; i < o->via.map.size && !t->cut; i++) {
			const msgpack_object *k = &o->via.map.ptr[i].key;

			if (i > 0)
				monitor_puts(t, ", ");
			if (k->type == MSGPACK_OBJECT_STR) {
				char name[MONITOR_PARAMS_MAX + 1];
				size_t n = log_escape(name, sizeof name, k->via.str.ptr, k->via.str.size,
						      NULL);

				monitor_put(t, name, n);
			} else {
				monitor_put_value(t, k, depth + 1);
			}
			monitor_puts(t, ": ");
			monitor_put_value(t, &o->via.map.ptr[i].val, depth + 1);
		}
		monitor_puts(t, "}");
		return;
	default:
		monitor_puts(t, "?");
		return;
	}
}

size_t monitor_summary(const msgpack_object_map *args, char *buf, size_t size)
{
	static const char ellipsis[] = "\xe2\x80\xa6";
	size_t room = size - 1 < MONITOR_PARAMS_MAX ? size - 1 : MONITOR_PARAMS_MAX;
	struct monitor_text t = { .buf = buf };
	msgpack_object o = { .type = MSGPACK_OBJECT_MAP };

	if (size < 16) {
		if (size > 0)
			buf[0] = '\0';
		return 0;
	}
	t.room = room - (sizeof ellipsis - 1);   /* the ellipsis always fits after */
	if (args == NULL) {
		monitor_puts(&t, "[]");
	} else {
		o.via.map = *args;
		monitor_put_value(&t, &o, 0);
	}
	if (t.cut) {
		/* Never inside a character: log_escape cut whole ones, and the
		 * text around them is ASCII. */
		memcpy(buf + t.len, ellipsis, sizeof ellipsis - 1);
		t.len += sizeof ellipsis - 1;
	}
	buf[t.len] = '\0';
	return t.len;
}

void monitor_request(struct session *s, const struct rpc_request *req)
{
	struct rpc_out out = RPC_OUT_INIT;
	char params[MONITOR_PARAMS_MAX + 1];
	struct timespec ts;
	struct session *m, *next;

	monitor_summary(req->args, params, sizeof params);
	clock_gettime(CLOCK_REALTIME, &ts);
	rpc_put_array(&out, 3);
	rpc_put_uint(&out, RPC_TYPE_NOTIFICATION);
	rpc_put_cstr(&out, PROTO_EVENT_METHOD);
	rpc_put_array(&out, 1);
	rpc_put_map(&out, 7);
	rpc_put_lit(&out, "type");
	rpc_put_lit(&out, PROTO_MONITOR_EVENT);
	rpc_put_lit(&out, "time");
	rpc_put_double(&out, (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
	rpc_put_lit(&out, "connection");
	rpc_put_uint(&out, s->id);
	rpc_put_lit(&out, "pid");
	rpc_put_int(&out, (int64_t)s->peer_pid);
	rpc_put_lit(&out, "method");
	rpc_put_cstr(&out, proto_method_name(req->method));
	rpc_put_lit(&out, "msgid");
	rpc_put_uint(&out, req->msgid);
	rpc_put_lit(&out, "params");
	rpc_put_cstr(&out, params);
	if (!rpc_out_failed(&out))
		for (m = listener_sessions(s->ctl->listener); m != NULL; m = next) {
			next = m->next;         /* a send may close m (its output limit) */
			if (m->monitor && m != s && !m->closing)
				session_send(m, out.data, out.len);
		}
	rpc_out_free(&out);
}
