/*
 * reconnect.c - coming back after the daemon restarts: connect again to
 * the same path, check the protocol, reopen every stream into the handles
 * the caller holds, renew the subscription, replay every remembered
 * instance, and tell the caller.
 *
 * A step that loses the connection (the daemon restarting again, or not
 * answering in time) fails the whole attempt, which is retried with
 * back-off; a step the daemon refuses (an asset gone, a stream too large
 * for a new configuration) is reported per stream or instance and the rest
 * carries on.
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define RECONNECT_INITIAL_MS 50
#define RECONNECT_MAX_MS 2000

int animc_client_set_reconnect(animc_client *c, const animc_reconnect_opts *o)
{
	if (c == NULL || (o != NULL && (o->initial_delay_ms < 0 || o->max_delay_ms < 0)))
		return -EINVAL;
	memset(&c->rc, 0, sizeof c->rc);
	if (o != NULL && o->enabled) {
		c->rc = *o;
		if (c->rc.initial_delay_ms == 0)
			c->rc.initial_delay_ms = RECONNECT_INITIAL_MS;
		if (c->rc.max_delay_ms == 0)
			c->rc.max_delay_ms = RECONNECT_MAX_MS;
		if (c->rc.max_delay_ms < c->rc.initial_delay_ms)
			c->rc.max_delay_ms = c->rc.initial_delay_ms;
	}
	/* Turned off while waiting: the loss is final now.  Turned on after a
	 * loss: try again from the next process() or call. */
	if (!c->rc.enabled && c->state == AC_WAITING && !c->in_reconnect) {
		c->state = AC_LOST;
		c->loss_reported = false;
	} else if (c->rc.enabled && c->state == AC_LOST) {
		c->state = AC_WAITING;
		c->rc_next_ms = ac_now_ms();
		c->rc_delay_ms = c->rc.initial_delay_ms;
		c->rc_attempts = 0;
	}
	return 0;
}

/* Is this failure the connection's (retry the attempt) rather than the
 * daemon refusing one thing?  `loading` refuses nothing: the asset took
 * longer than the daemon waits for a load (the daemon itself waits for
 * it, so a replay needs no retry of its own otherwise). */
static bool reconnect_fatal(const animc_client *c, int rc)
{
	return c->state != AC_CONNECTED || rc == -ETIMEDOUT || rc == -ENOMEM ||
	       (rc == -EREMOTEIO && c->err_code == ANIMC_ERR_LOADING);
}

static int reconnect_streams(animc_client *c, size_t *reopened, size_t *failed)
{
	for (animc_stream *s = c->streams; s != NULL; s = s->next) {
		struct ac_stream_open_params params = { s };
		int rc;

		/* Not mapped yet: a stream.open in progress, which will be
		 * sent again by its own call. */
		if (s->base == NULL)
			continue;
		rc = ac_rpc_call(c, &ac_method_stream_open, &params, NULL);
		if (rc < 0 && reconnect_fatal(c, rc))
			return rc;
		if (rc < 0) {
			s->dead = true;
			(*failed)++;
		} else {
			(*reopened)++;
		}
	}
	return 0;
}

static int reconnect_by_id(const void *a, const void *b)
{
	const struct ac_instance *x = *(struct ac_instance *const *)a;
	const struct ac_instance *y = *(struct ac_instance *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Replay every remembered instance, oldest first; remaps[] says what
 * became of each. */
static int reconnect_instances(animc_client *c, animc_instance_remap **out, size_t *count)
{
	size_t n = c->inst_by_id.count, k = 0;
	struct ac_instance **list = calloc(n ? n : 1, sizeof *list);
	animc_instance_remap *remaps = calloc(n ? n : 1, sizeof *remaps);
	int rc = 0;

	*out = NULL;
	*count = 0;
	if (list == NULL || remaps == NULL) {
		free(list);
		free(remaps);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->inst_by_id.cap; i++)
		if (c->inst_by_id.vals[i] != NULL)
			list[k++] = c->inst_by_id.vals[i];
	qsort(list, k, sizeof *list, reconnect_by_id);
	/* Every old server id is meaningless now; new ones arrive with each
	 * replay. */
	for (size_t i = 0; i < k; i++) {
		remaps[i].id = list[i]->id;
		remaps[i].old_server_id = list[i]->server_id;
		ac_instances_rekey(c, list[i], 0);
	}
	for (size_t i = 0; i < k; i++) {
		rc = ac_play_replay(c, list[i]);
		if (rc < 0 && reconnect_fatal(c, rc))
			break;
		remaps[i].status = rc;
		remaps[i].new_server_id = list[i]->server_id;
		if (rc < 0 && list[i]->server_id == 0)
			ac_instances_forget(c, list[i]);
		rc = 0;
	}
	free(list);
	if (rc < 0) {
		free(remaps);
		return rc;
	}
	*out = remaps;
	*count = k;
	return 0;
}

static void reconnect_schedule(animc_client *c)
{
	int delay = c->rc_delay_ms > 0 ? c->rc_delay_ms : c->rc.initial_delay_ms;

	c->rc_next_ms = ac_now_ms() + delay;
	c->rc_delay_ms = delay >= c->rc.max_delay_ms / 2 ? c->rc.max_delay_ms : delay * 2;
	if (c->rc.max_attempts != 0 && c->rc_attempts >= c->rc.max_attempts) {
		c->state = AC_LOST;
		c->loss_reported = false;
		ac_client_fail(c, -ENOTCONN, "gave up reconnecting to %s after %u attempts",
			       c->path, c->rc_attempts);
	}
}

int ac_reconnect_try(animc_client *c, int64_t deadline)
{
	animc_instance_remap *remaps = NULL;
	animc_hello_info *hello = NULL;
	size_t nremaps = 0, reopened = 0, failed = 0;
	animc_reconnect_info info;
	int rc;

	c->rc_attempts++;
	c->in_reconnect = true;
	rc = ac_conn_open(c, deadline);
	if (rc == 0) {
		c->state = AC_CONNECTED;
		rc = ac_client_hello(c, &hello);
		if (rc == 0 && hello->protocol != ANIMC_PROTOCOL_VERSION)
			rc = -EPROTONOSUPPORT;
		ac_res_free(hello);
	}
	if (rc == 0)
		rc = reconnect_streams(c, &reopened, &failed);
	if (rc == 0 && c->sub_set) {
		unsigned mask = c->sub_mask;

		rc = ac_rpc_call(c, &ac_method_subscribe, &mask, NULL);
		if (rc < 0 && !reconnect_fatal(c, rc))
			rc = 0;         /* events lost, playback intact: carry on */
	}
	if (rc == 0)
		rc = reconnect_instances(c, &remaps, &nremaps);
	c->in_reconnect = false;
	if (rc < 0 || c->state != AC_CONNECTED) {
		free(remaps);
		ac_conn_close(c);
		ac_rpc_fail_all(c, -ECONNRESET);
		c->state = AC_WAITING;
		reconnect_schedule(c);
		return rc < 0 ? rc : -ECONNRESET;
	}
	/* From now on ids are the library's own, above all it used. */
	if (!c->remapped) {
		c->remapped = true;
		c->next_id = c->max_id + 1;
	}
	info = (animc_reconnect_info){
		.attempts = c->rc_attempts,
		.server_pid = c->server_pid,
		.streams_reopened = reopened,
		.streams_failed = failed,
		.instance_count = nremaps,
		.instances = remaps,
	};
	c->rc_attempts = 0;
	c->rc_delay_ms = c->rc.initial_delay_ms;
	if (c->rc.on_reconnect != NULL)
		c->rc.on_reconnect(c, &info, c->rc.user);
	free(remaps);
	return 0;
}

int ac_reconnect_run(animc_client *c, int64_t deadline)
{
	for (;;) {
		int64_t now = ac_now_ms();

		if (c->state != AC_WAITING)
			break;
		if (now >= c->rc_next_ms) {
			if (ac_reconnect_try(c, deadline) == 0)
				return 0;
			continue;
		}
		if (deadline != AC_NEVER && c->rc_next_ms >= deadline)
			break;
		poll(NULL, 0, (int)(c->rc_next_ms - now));
	}
	if (c->state == AC_CONNECTED)
		return 0;
	return ac_client_fail(c, -ENOTCONN, "cannot reconnect to %s (%s)", c->path,
			      c->state == AC_LOST ? "gave up" : "not back in time");
}
