/*
 * client.c - the client handle: creating, connecting and closing it, the
 * last error, the connection's loss, and process()/wait() for callers that
 * run their own event loop.
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int animc_client_new(animc_client **out)
{
	animc_client *c;

	if (out == NULL)
		return -EINVAL;
	*out = NULL;
	c = calloc(1, sizeof *c);
	if (c == NULL)
		return -ENOMEM;
	c->fd = -1;
	c->state = AC_IDLE;
	c->timeout_ms = ANIMC_DEFAULT_TIMEOUT_MS;
	c->next_msgid = 1;
	c->next_stream_serial = 1;
	ac_idmap_init(&c->calls);
	ac_idmap_init(&c->inst_by_id);
	ac_idmap_init(&c->inst_by_server);
	*out = c;
	return 0;
}

int animc_client_set_name(animc_client *c, const char *name)
{
	size_t len;

	if (c == NULL)
		return -EINVAL;
	if (name == NULL) {
		c->name_set = false;
		c->name[0] = '\0';
		return 0;
	}
	len = strlen(name);
	if (len > ANIMC_CLIENT_NAME_MAX || rpc_utf8_valid_prefix(name, len) != len)
		return -EINVAL;
	memcpy(c->name, name, len + 1);
	c->name_set = true;
	return 0;
}

/* The program's name as hello's "name": its valid UTF-8 prefix, cut to
 * ANIMC_CLIENT_NAME_MAX bytes on a character boundary. */
static void client_default_name(animc_client *c)
{
	const char *prog = program_invocation_short_name;
	size_t len = prog != NULL ? strlen(prog) : 0;

	if (len > ANIMC_CLIENT_NAME_MAX)
		len = ANIMC_CLIENT_NAME_MAX;
	len = len > 0 ? rpc_utf8_valid_prefix(prog, len) : 0;
	memcpy(c->name, prog != NULL ? prog : "", len);
	c->name[len] = '\0';
}

/* Whether the user running us is listed in group gr (its supplementary
 * members, or as its primary group). */
static bool client_user_in_group(const struct group *gr)
{
	struct passwd pw, *pwp = NULL;
	char buf[4096];

	if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &pwp) != 0 || pwp == NULL)
		return false;
	if (pw.pw_gid == gr->gr_gid)
		return true;
	for (char **m = gr->gr_mem; m != NULL && *m != NULL; m++)
		if (strcmp(*m, pw.pw_name) == 0)
			return true;
	return false;
}

/* What to do about EACCES on the socket: its group is the key (the
 * daemon's socket.group, or the socket unit's SocketGroup). */
static int client_fail_access(animc_client *c, int rc)
{
	struct group gr, *grp = NULL;
	char buf[4096], gname[64];
	struct stat st;

	if (stat(c->path, &st) != 0)
		return ac_client_fail(c, rc, "cannot connect to %s: permission denied: this user "
				      "cannot reach it (%s); ask the administrator for access, usually "
				      "membership of group animd (then log in again)", c->path,
				      strerror(errno));
	if (getgrgid_r(st.st_gid, &gr, buf, sizeof buf, &grp) == 0 && grp != NULL)
		snprintf(gname, sizeof gname, "%s", gr.gr_name);
	else
		snprintf(gname, sizeof gname, "%u", (unsigned)st.st_gid);
	if (grp != NULL && client_user_in_group(&gr))
		return ac_client_fail(c, rc, "cannot connect to %s: permission denied: the socket "
				      "is group %s's (mode %04o), and this user is in that group but "
				      "this login session is not yet: log in again (or run `newgrp %s`)",
				      c->path, gname, (unsigned)(st.st_mode & 07777), gname);
	return ac_client_fail(c, rc, "cannot connect to %s: permission denied: the socket is group "
			      "%s's (mode %04o): join that group (sudo usermod -aG %s $USER) and "
			      "log in again", c->path, gname, (unsigned)(st.st_mode & 07777), gname);
}

const char *animc_socket_path(const char *path)
{
	const char *env;

	if (path != NULL && path[0] != '\0')
		return path;
	/* secure_getenv: a setuid program must not be pointed elsewhere. */
	env = secure_getenv(ANIMC_SOCKET_ENV);
	if (env != NULL && env[0] != '\0')
		return env;
	return ANIMC_SOCKET_DEFAULT;
}

void ac_client_set_error(animc_client *c, animc_error_code code, const char *name,
			 const char *fmt, ...)
{
	va_list ap;

	c->err_code = code;
	snprintf(c->err_name, sizeof c->err_name, "%s", name ? name : "");
	va_start(ap, fmt);
	vsnprintf(c->err_msg, sizeof c->err_msg, fmt, ap);
	va_end(ap);
}

int ac_client_fail(animc_client *c, int rc, const char *fmt, ...)
{
	va_list ap;

	c->err_code = ANIMC_ERR_NONE;
	c->err_name[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(c->err_msg, sizeof c->err_msg, fmt, ap);
	va_end(ap);
	return rc;
}

animc_error_code animc_client_error(const animc_client *c, const char **name,
				    const char **message)
{
	if (c == NULL) {
		if (name != NULL)
			*name = "";
		if (message != NULL)
			*message = "";
		return ANIMC_ERR_NONE;
	}
	if (name != NULL)
		*name = c->err_name;
	if (message != NULL)
		*message = c->err_msg;
	return c->err_code;
}

int animc_client_connect(animc_client *c, const char *path, int timeout_ms)
{
	const char *p = animc_socket_path(path);
	animc_hello_info *hello = NULL;
	int64_t deadline;
	int rc;

	if (c == NULL)
		return -EINVAL;
	if (c->state == AC_CONNECTED || c->state == AC_WAITING)
		return ac_client_fail(c, -EISCONN, "already connected to %s", c->path);
	if (strlen(p) >= sizeof c->path)
		return ac_client_fail(c, -ENAMETOOLONG, "socket path too long: %s", p);
	snprintf(c->path, sizeof c->path, "%s", p);
	c->timeout_ms = timeout_ms == 0 ? ANIMC_DEFAULT_TIMEOUT_MS : timeout_ms;
	deadline = ac_deadline(c->timeout_ms);
	rc = ac_conn_open(c, deadline);
	if (rc == -ECONNREFUSED) {
		/* connect(2) says "refused" for a path that is not a socket at
		 * all (a regular file, a directory); say what it is instead. */
		struct stat st;

		if (stat(c->path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
			c->state = AC_IDLE;
			return ac_client_fail(c, -ENOTSOCK, "cannot connect to %s: not a socket (%s)",
					      c->path, S_ISDIR(st.st_mode) ? "a directory"
					      : S_ISREG(st.st_mode) ? "a regular file"
					      : S_ISFIFO(st.st_mode) ? "a FIFO" : "another kind of file");
		}
	}
	if (rc < 0) {
		c->state = AC_IDLE;
		if (rc == -EACCES || rc == -EPERM)
			return client_fail_access(c, rc);
		if (rc == -ENOENT)
			return ac_client_fail(c, rc, "cannot connect to %s: no such socket: animd is not "
					      "running, or listens elsewhere ($%s names another socket)",
					      c->path, ANIMC_SOCKET_ENV);
		if (rc == -ECONNREFUSED)
			return ac_client_fail(c, rc, "cannot connect to %s: connection refused: a "
					      "socket is there but no daemon answers (animd is gone; "
					      "starting it again replaces the stale socket)", c->path);
		return ac_client_fail(c, rc, "cannot connect to %s: %s", c->path, animc_strerror(rc));
	}
	if (c->state == AC_LOST) {
		/* A fresh session: what the lost one owned is gone with it. */
		ac_instances_free_all(c);
		for (animc_stream *s = c->streams; s != NULL; s = s->next)
			s->dead = true;
	}
	if (!c->name_set)
		client_default_name(c);
	c->state = AC_CONNECTED;
	/* A loss during the handshake is a failed connect, not a reason to
	 * reconnect. */
	c->in_reconnect = true;
	rc = ac_client_hello(c, &hello);
	c->in_reconnect = false;
	if (rc == 0 && hello->protocol != ANIMC_PROTOCOL_VERSION) {
		rc = ac_client_fail(c, -EPROTONOSUPPORT,
				    "%s speaks protocol %u; this library speaks %u", c->path,
				    hello->protocol, ANIMC_PROTOCOL_VERSION);
	}
	ac_res_free(hello);
	if (rc < 0) {
		ac_conn_close(c);
		ac_rpc_fail_all(c, -ECONNRESET);
		c->state = AC_IDLE;
		return rc;
	}
	return 0;
}

int ac_client_hello(animc_client *c, animc_hello_info **out)
{
	int rc;

	c->hello_unnamed = false;
	rc = ac_rpc_call(c, &ac_method_hello, NULL, (void **)out);
	/* A daemon from before hello took a name refuses the argument: say
	 * hello without it. */
	if (rc == -EREMOTEIO && c->err_code == ANIMC_ERR_BAD_REQUEST && c->name[0] != '\0' &&
	    c->state == AC_CONNECTED) {
		c->hello_unnamed = true;
		rc = ac_rpc_call(c, &ac_method_hello, NULL, (void **)out);
	}
	return rc;
}

void ac_client_enqueue(animc_client *c, struct ac_item *item)
{
	item->next = NULL;
	if (c->q_tail != NULL)
		c->q_tail->next = item;
	else
		c->q_head = item;
	c->q_tail = item;
	if (item->kind == AC_ITEM_EVENT)
		c->q_events++;
}

void ac_client_lost(animc_client *c, int why)
{
	if (c->fd < 0)
		return;
	ac_conn_close(c);
	if (c->fatal_set)
		ac_client_set_error(c, c->fatal_code, c->fatal_name, "%s", c->fatal_msg);
	else if (why == -ECONNRESET)
		/* EOF or a reset: animc_strerror would only say it again. */
		ac_client_fail(c, -ECONNRESET, "connection to the daemon lost");
	else
		ac_client_fail(c, -ECONNRESET, "connection to the daemon lost (%s)",
			       animc_strerror(why));
	ac_rpc_fail_all(c, -ECONNRESET);
	if (c->in_reconnect) {
		/* The reconnection (or connect) in progress decides. */
		c->state = AC_WAITING;
	} else if (c->rc.enabled) {
		c->state = AC_WAITING;
		c->rc_next_ms = ac_now_ms();
		c->rc_delay_ms = c->rc.initial_delay_ms;
		c->rc_attempts = 0;
	} else {
		c->state = AC_LOST;
		c->loss_reported = false;
	}
}

int ac_client_ensure(animc_client *c, int64_t deadline)
{
	if (c->state == AC_CONNECTED)
		return 0;
	if (c->state == AC_WAITING && !c->in_reconnect)
		return ac_reconnect_run(c, deadline);
	return ac_client_fail(c, -ENOTCONN, "not connected to the daemon");
}

void animc_client_close(animc_client *c)
{
	struct ac_item *item, *next;

	if (c == NULL)
		return;
	while (c->streams != NULL)
		ac_stream_free(c->streams);
	ac_conn_close(c);
	for (size_t i = 0; i < c->calls.cap; i++)
		ac_rpc_call_free(c->calls.vals[i]);
	ac_idmap_free(&c->calls);
	for (item = c->q_head; item != NULL; item = next) {
		next = item->next;
		if (item->kind == AC_ITEM_CALL)
			ac_rpc_call_free((struct ac_call *)item);
		else
			ac_events_free(item);
	}
	ac_instances_free_all(c);
	free(c->out);
	free(c);
}

void animc_client_set_timeout(animc_client *c, int timeout_ms)
{
	if (c != NULL)
		c->timeout_ms = timeout_ms == 0 ? ANIMC_DEFAULT_TIMEOUT_MS : timeout_ms;
}

const char *animc_client_path(const animc_client *c)
{
	return c != NULL ? c->path : "";
}

int animc_client_connected(const animc_client *c)
{
	return c != NULL && c->state == AC_CONNECTED;
}

const char *animc_client_server(const animc_client *c)
{
	return c != NULL && c->server[0] != '\0' ? c->server : NULL;
}

uint32_t animc_client_server_pid(const animc_client *c)
{
	return c != NULL ? c->server_pid : 0;
}

int animc_client_fd(const animc_client *c)
{
	return c != NULL && c->state == AC_CONNECTED ? c->fd : -1;
}

int animc_client_poll_events(const animc_client *c)
{
	if (c == NULL || c->state != AC_CONNECTED)
		return 0;
	return POLLIN | (c->out_len > 0 ? POLLOUT : 0);
}

int animc_client_next_timeout(const animc_client *c)
{
	int64_t t = AC_NEVER, left;

	if (c == NULL)
		return -1;
	/* Callbacks to call, or a loss that process() has yet to report: a
	 * caller polling a descriptor that is gone would otherwise wait
	 * forever for it. */
	if (c->q_head != NULL || (c->state == AC_LOST && !c->loss_reported))
		return 0;
	if (c->state == AC_WAITING)
		t = c->rc_next_ms;
	if (c->async_pending > 0) {
		int64_t d = ac_rpc_next_deadline(c);

		if (d < t)
			t = d;
	}
	if (t == AC_NEVER)
		return -1;
	left = t - ac_now_ms();
	return left <= 0 ? 0 : left > 0x7fffffff ? 0x7fffffff : (int)left;
}

void animc_client_on_event(animc_client *c, animc_event_fn fn, void *user)
{
	if (c == NULL)
		return;
	c->on_event = fn;
	c->event_user = user;
}

/* Call back for what is queued now; what callbacks cause waits for the
 * next turn, so a callback that makes calls cannot loop forever here. */
static int client_dispatch(animc_client *c)
{
	struct ac_item *item = c->q_head, *next;
	int n = 0;

	c->q_head = c->q_tail = NULL;
	c->q_events = 0;
	for (; item != NULL; item = next) {
		next = item->next;
		if (item->kind == AC_ITEM_CALL) {
			struct ac_call *call = (struct ac_call *)item;

			if (call->status < 0) {
				if (call->code_name != NULL)
					ac_client_set_error(c, call->code, call->code_name, "%s",
							    call->message ? call->message : "");
				else
					ac_client_fail(c, call->status, "%s: %s", call->m->name,
						       call->message ? call->message
								     : animc_strerror(call->status));
			}
			if (call->done_fn != NULL) {
				call->done_fn(c, call->status, call->status == 0 ? call->result : NULL,
					      call->user);
				n++;
			}
			ac_rpc_call_free(call);
		} else {
			ac_events_deliver(c, item);
			ac_events_free(item);
			n++;
		}
	}
	return n;
}

int animc_client_process(animc_client *c)
{
	int n;

	if (c == NULL)
		return -EINVAL;
	if (c->state == AC_WAITING && !c->in_reconnect && ac_now_ms() >= c->rc_next_ms)
		ac_reconnect_try(c, ac_deadline(c->timeout_ms));
	if (c->state == AC_CONNECTED && c->out_len > 0) {
		int rc = ac_conn_flush(c);

		if (rc < 0) {
			ac_rpc_read_available(c);
			ac_client_lost(c, rc);
		}
	}
	if (c->state == AC_CONNECTED)
		ac_rpc_read_available(c);
	if (c->async_pending > 0)
		ac_rpc_expire(c, ac_now_ms());
	n = client_dispatch(c);
	if (c->state == AC_LOST && !c->loss_reported) {
		c->loss_reported = true;
		return -ECONNRESET;
	}
	if ((c->state == AC_LOST || c->state == AC_IDLE) && n == 0)
		return -ENOTCONN;
	return n;
}

int animc_client_wait(animc_client *c, int timeout_ms)
{
	int t, n = 0;

	if (c == NULL)
		return -EINVAL;
	t = animc_client_next_timeout(c);
	if (t != 0 && (c->state == AC_CONNECTED || c->state == AC_WAITING)) {
		if (timeout_ms >= 0 && (t < 0 || timeout_ms < t))
			t = timeout_ms;
		if (c->state == AC_CONNECTED) {
			struct pollfd p = { .fd = c->fd, .events = (short)animc_client_poll_events(c) };

			n = poll(&p, 1, t);
		} else {
			n = poll(NULL, 0, t);
		}
		if (n < 0 && errno == EINTR)
			return 0;
	}
	return animc_client_process(c);
}
