/*
 * soak_conn.c - a soak client's connection: outstanding requests matched
 * to their replies by msgid, each reply checked against what its request
 * allows, and the events counted.
 */
#include "tests/soak/soak_conn.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *code;
	unsigned bit;
} conn_codes[] = {
	{ "bad_request", SOAK_X_BAD_REQUEST },
	{ "unknown_method", SOAK_X_UNKNOWN_METHOD },
	{ "not_found", SOAK_X_NOT_FOUND },
	{ "limit", SOAK_X_LIMIT },
	{ "asset_error", SOAK_X_ASSET_ERROR },
	{ "unsupported", SOAK_X_UNSUPPORTED },
};

/* The outcome bit of a reply; 0 for codes no request allows (internal,
 * shutting_down, anything unknown). */
static unsigned conn_outcome(const struct rpc_reply *r)
{
	if (r->error == NULL)
		return SOAK_X_OK;
	for (size_t i = 0; i < sizeof conn_codes / sizeof conn_codes[0]; i++)
		if (strcmp(r->code, conn_codes[i].code) == 0)
			return conn_codes[i].bit;
	return 0;
}

int soak_conn_open(struct soak_conn *c)
{
	int rc;

	c->npend = 0;
	c->opens_pending = 0;
	c->nmade = c->nlisted = 0;
	c->nlive = 0;
	c->nstreams = 0;
	c->connected = 0;
	c->variant = -1;
	rc = rpc_client_connect(&c->rc, c->cfg->socket, c->cfg->reply_timeout_ms);
	if (rc < 0)
		return rc;
	c->rc.timeout_ms = c->cfg->reply_timeout_ms;
	c->connected = 1;
	c->st->sessions++;
	return 0;
}

void soak_conn_close(struct soak_conn *c)
{
	if (!c->connected)
		return;
	soak_conn_drain_events(c);
	soak_stream_unmap_all(c);
	c->st->abandoned += c->npend;
	c->st->strays += c->rc.strays;
	c->st->events_dropped += c->rc.events_dropped;
	rpc_client_close(&c->rc);
	c->connected = 0;
	c->npend = 0;
}

static void conn_broken(struct soak_conn *c, const char *why)
{
	char kinds[160] = "";
	size_t used = 0;

	for (unsigned i = 0; i < c->npend && used + 24 < sizeof kinds; i++)
		used += (size_t)snprintf(kinds + used, sizeof kinds - used, "%s%s#%u",
					 i ? ", " : "", soak_stats_kind_name(c->pend[i].kind),
					 c->pend[i].msgid);
	soak_stats_fail(c->st, "%s with %u request(s) unanswered: %s", why, c->npend, kinds);
	c->st->lost += c->npend;
	c->npend = 0;
}

int soak_conn_expect(struct soak_conn *c, int64_t id, enum soak_kind kind, unsigned expect,
		     uint64_t arg)
{
	struct soak_pending *p;

	c->st->sent[kind]++;
	if (id < 0) {
		char why[96];

		snprintf(why, sizeof why, "sending %s failed (%s)", soak_stats_kind_name(kind),
			 strerror((int)-id));
		c->st->lost++;
		conn_broken(c, why);
		return -1;
	}
	if (c->npend == SOAK_PENDING_MAX) {
		soak_stats_fail(c->st, "internal: more than %d requests outstanding", SOAK_PENDING_MAX);
		return -1;
	}
	p = &c->pend[c->npend++];
	p->msgid = (uint32_t)id;
	p->kind = kind;
	p->expect = expect;
	p->arg = arg;
	p->variant = c->variant;
	c->variant = -1;
	if (kind == SOAK_STREAM_OPEN)
		c->opens_pending++;
	return 0;
}

int soak_conn_send_raw(struct soak_conn *c, const void *buf, size_t len)
{
	if (c->rc.corked)
		return msgpack_sbuffer_write(&c->rc.corked_out, buf, len) == 0 ? 0 : -ENOMEM;
	return rpc_client_send_raw(&c->rc, buf, len);
}

static int conn_add_id(uint64_t **v, size_t *n, size_t *cap, uint64_t id)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		uint64_t *nv = realloc(*v, ncap * sizeof *nv);

		if (nv == NULL)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = id;
	return 0;
}

uint64_t soak_conn_pick_live(struct soak_conn *c)
{
	return c->nlive ? c->live[soak_rand_below(c->rnd, c->nlive)] : 0;
}

void soak_conn_forget(struct soak_conn *c, uint64_t instance)
{
	for (unsigned i = 0; i < c->nlive; i++)
		if (c->live[i] == instance) {
			c->live[i] = c->live[--c->nlive];
			return;
		}
}

/* Non-finite numbers anywhere in a decoded object. */
static unsigned conn_nonfinite(const msgpack_object *o)
{
	unsigned bad = 0;

	switch (o->type) {
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		return !isfinite(o->via.f64);
	case MSGPACK_OBJECT_ARRAY:
		for (uint32_t i = 0; i < o->via.array.size; i++)
			bad += conn_nonfinite(&o->via.array.ptr[i]);
		return bad;
	case MSGPACK_OBJECT_MAP:
		for (uint32_t i = 0; i < o->via.map.size; i++)
			bad += conn_nonfinite(&o->via.map.ptr[i].val);
		return bad;
	default:
		return 0;
	}
}

/* A play's reply: the instance is ours from now on. */
static void conn_played(struct soak_conn *c, const struct soak_pending *p,
			const msgpack_object *res)
{
	int64_t id, v;

	if (rpc_get_i64(res, "instance", &id) < 0 || id <= 0) {
		soak_stats_fail(c->st, "play: reply without an instance id");
		return;
	}
	conn_add_id(&c->made, &c->nmade, &c->capmade, (uint64_t)id);
	if (c->nlive < SOAK_LIVE_MAX)
		c->live[c->nlive++] = (uint64_t)id;
	if (p->kind == SOAK_PLAY_STREAM &&
	    (rpc_get_i64(res, "stream", &v) < 0 || (uint64_t)v != p->arg ||
	     rpc_get_i64(res, "channel", &v) < 0))
		soak_stats_fail(c->st, "play into stream %llu: reply lacks that stream or a channel",
				(unsigned long long)p->arg);
}

static void conn_listed(struct soak_conn *c, const msgpack_object *res)
{
	const msgpack_object *list = rpc_get(res, "instances");

	if (list == NULL || list->type != MSGPACK_OBJECT_ARRAY) {
		soak_stats_fail(c->st, "instances.list: no instances array");
		return;
	}
	for (uint32_t i = 0; i < list->via.array.size; i++) {
		int64_t id;

		if (rpc_get_i64(&list->via.array.ptr[i], "instance", &id) < 0)
			soak_stats_fail(c->st, "instances.list: an entry without an instance id");
		else
			conn_add_id(&c->listed, &c->nlisted, &c->caplisted, (uint64_t)id);
	}
}

/* Every instance listed must be one of this connection's plays: checked
 * once no play reply is outstanding, whatever order replies came in. */
static void conn_check_listed(struct soak_conn *c)
{
	for (size_t i = 0; i < c->nlisted; i++) {
		size_t k = 0;

		while (k < c->nmade && c->made[k] != c->listed[i])
			k++;
		if (k == c->nmade) {
			soak_stats_fail(c->st, "instances.list shows instance %llu, which no play of "
					"this connection returned", (unsigned long long)c->listed[i]);
			break;
		}
	}
	c->nlisted = 0;
}

static void conn_succeeded(struct soak_conn *c, const struct soak_pending *p,
			   const msgpack_object *res)
{
	int64_t v;

	if (res == NULL || res->type != MSGPACK_OBJECT_MAP) {
		soak_stats_fail(c->st, "%s: the result is not a map", soak_stats_kind_name(p->kind));
		return;
	}
	if (conn_nonfinite(res) > 0)
		soak_stats_fail(c->st, "%s: non-finite numbers in the result",
				soak_stats_kind_name(p->kind));
	switch (p->kind) {
	case SOAK_HELLO:
		if (rpc_get_i64(res, "protocol", &v) < 0 || v != 1)
			soak_stats_fail(c->st, "hello: protocol is not 1");
		break;
	case SOAK_PLAY:
	case SOAK_PLAY_STREAM:
		conn_played(c, p, res);
		break;
	case SOAK_STOP:
		soak_conn_forget(c, p->arg);
		break;
	case SOAK_INSTANCES_LIST:
		conn_listed(c, res);
		break;
	case SOAK_STREAM_OPEN:
		soak_stream_opened(c, res);
		break;
	case SOAK_STREAM_CLOSE:
		soak_stream_closed(c, p->arg);
		break;
	default:
		break;
	}
}

static void conn_reply(struct soak_conn *c, struct rpc_reply *r)
{
	struct soak_pending p;
	unsigned i = 0, outcome;

	while (i < c->npend && c->pend[i].msgid != r->msgid)
		i++;
	if (i == c->npend) {
		soak_stats_fail(c->st, "a reply to msgid %u, which is not outstanding (%s %s)",
				r->msgid, r->code, r->message);
		return;
	}
	p = c->pend[i];
	c->pend[i] = c->pend[--c->npend];
	if (p.kind == SOAK_STREAM_OPEN)
		c->opens_pending--;
	c->st->answered[p.kind]++;
	if (r->error != NULL) {
		c->st->errors[p.kind]++;
		c->st->codes[p.kind][soak_stats_code_of(r->code)]++;
	}
	outcome = conn_outcome(r);
	if ((outcome & p.expect) == 0) {
		soak_stats_fail(c->st, "%s #%u (variant %d, argument %llu): unexpected %s%s%s",
				soak_stats_kind_name(p.kind), p.msgid, p.variant,
				(unsigned long long)p.arg, r->error ? r->code : "success",
				r->error ? ": " : "", r->error ? r->message : "");
		/* A descriptor that came with an unexpected success is ours to close. */
		if (p.kind == SOAK_STREAM_OPEN && r->error == NULL) {
			int fd = rpc_client_take_fd(&c->rc);

			if (fd >= 0)
				close(fd);
		}
		return;
	}
	if (r->error == NULL) {
		conn_succeeded(c, &p, r->result);
	} else if (outcome == SOAK_X_NOT_FOUND && p.arg != 0 && p.kind >= SOAK_PAUSE &&
		   p.kind <= SOAK_STOP) {
		/* The daemon stopped it (its asset was removed or changed shape). */
		soak_conn_forget(c, p.arg);
	}
}

void soak_conn_drain_events(struct soak_conn *c)
{
	struct rpc_event ev;

	while (c->rc.event_count > 0 && rpc_client_next_event(&c->rc, 0, &ev) == 0) {
		enum soak_event e = soak_stats_event_of(ev.type);
		int64_t id;

		c->st->events[e]++;
		if (e == SOAK_EV_STOPPED && rpc_get_i64(ev.body, "instance", &id) == 0)
			soak_conn_forget(c, (uint64_t)id);
		rpc_event_free(&ev);
	}
}

int soak_conn_collect(struct soak_conn *c)
{
	while (c->npend > 0) {
		struct rpc_reply r;
		int rc = rpc_client_wait_any(&c->rc, &r);

		if (rc < 0) {
			char why[96];

			if (rc == -ETIMEDOUT)
				snprintf(why, sizeof why, "no reply within %d ms",
					 c->cfg->reply_timeout_ms);
			else
				snprintf(why, sizeof why, "the connection failed (%s)", strerror(-rc));
			conn_broken(c, why);
			return -1;
		}
		conn_reply(c, &r);
		rpc_reply_free(&r);
		soak_conn_drain_events(c);
	}
	if (c->nlisted > 0)
		conn_check_listed(c);
	return 0;
}
