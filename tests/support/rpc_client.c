#include "tests/support/rpc_client.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "proto/rpc_out.h"

static int64_t rpc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int rpc_client_connect(struct rpc_client *c, const char *path, int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int64_t deadline = rpc_now_ms() + timeout_ms;

	memset(c, 0, sizeof *c);
	c->fd = -1;
	c->next_id = 1;
	c->timeout_ms = timeout_ms;
	if (strlen(path) >= sizeof sa.sun_path)
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	for (;;) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return -errno;
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
			c->fd = fd;
			break;
		}
		close(fd);
		if ((errno != ENOENT && errno != ECONNREFUSED) || rpc_now_ms() >= deadline)
			return -errno;
		usleep(10000);
	}
	if (!msgpack_unpacker_init(&c->up, 65536)) {
		close(c->fd);
		c->fd = -1;
		return -ENOMEM;
	}
	return 0;
}

void rpc_client_close(struct rpc_client *c)
{
	if (c->fd < 0)
		return;
	if (c->corked)
		msgpack_sbuffer_destroy(&c->corked_out);
	c->corked = 0;
	while (c->fd_count > 0)
		close(c->fds[--c->fd_count]);
	close(c->fd);
	c->fd = -1;
	msgpack_unpacker_destroy(&c->up);
	while (c->event_count > 0) {
		rpc_event_free(&c->events[c->event_head]);
		c->event_head = (c->event_head + 1) % RPC_MAX_EVENTS;
		c->event_count--;
	}
}

static void rpc_pack_params(msgpack_packer *pk, const char *fmt, va_list ap)
{
	size_t n = 0;
	const char *p;

	if (fmt == NULL || *fmt == '\0') {
		msgpack_pack_array(pk, 0);
		return;
	}
	for (p = fmt; *p; p++)
		n += *p == ':';
	msgpack_pack_array(pk, 1);
	msgpack_pack_map(pk, n);
	p = fmt;
	while (*p) {
		const char *colon = strchr(p, ':');
		char t;

		while (*p == ' ')
			p++;
		colon = strchr(p, ':');
		if (colon == NULL)
			break;
		msgpack_pack_str(pk, (size_t)(colon - p));
		msgpack_pack_str_body(pk, p, (size_t)(colon - p));
		t = colon[1];
		switch (t) {
		case 's': {
			const char *s = va_arg(ap, const char *);

			msgpack_pack_str(pk, strlen(s));
			msgpack_pack_str_body(pk, s, strlen(s));
			break;
		}
		case 'i': msgpack_pack_int64(pk, va_arg(ap, int64_t)); break;
		case 'u': msgpack_pack_uint64(pk, va_arg(ap, uint64_t)); break;
		case 'd': msgpack_pack_double(pk, va_arg(ap, double)); break;
		case 'b':
			if (va_arg(ap, int))
				msgpack_pack_true(pk);
			else
				msgpack_pack_false(pk);
			break;
		case 'S': {
			const char **list = va_arg(ap, const char **);
			size_t k = 0;

			while (list[k] != NULL)
				k++;
			msgpack_pack_array(pk, k);
			for (k = 0; list[k] != NULL; k++) {
				msgpack_pack_str(pk, strlen(list[k]));
				msgpack_pack_str_body(pk, list[k], strlen(list[k]));
			}
			break;
		}
		case 'O': {
			/* One value packed already (maps, nested arrays): its
			 * bytes appended as they are (str_body writes raw). */
			const msgpack_sbuffer *b = va_arg(ap, const msgpack_sbuffer *);

			msgpack_pack_str_body(pk, b->data, b->size);
			break;
		}
		default: msgpack_pack_nil(pk); break;
		}
		p = colon + 2;
	}
}

void rpc_client_cork(struct rpc_client *c)
{
	if (!c->corked)
		msgpack_sbuffer_init(&c->corked_out);
	c->corked = 1;
}

int rpc_client_uncork(struct rpc_client *c)
{
	int rc;

	if (!c->corked)
		return 0;
	c->corked = 0;
	rc = rpc_client_send_raw(c, c->corked_out.data, c->corked_out.size);
	msgpack_sbuffer_destroy(&c->corked_out);
	return rc;
}

int rpc_client_send_raw(struct rpc_client *c, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL | (c->send_dontwait ? MSG_DONTWAIT : 0));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int64_t rpc_vsend(struct rpc_client *c, const char *method, const char *fmt, va_list ap)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	uint32_t id = c->next_id++;
	int rc;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 4);
	msgpack_pack_uint8(&pk, 0);
	msgpack_pack_uint32(&pk, id);
	msgpack_pack_str(&pk, strlen(method));
	msgpack_pack_str_body(&pk, method, strlen(method));
	rpc_pack_params(&pk, fmt, ap);
	if (c->corked)
		rc = msgpack_sbuffer_write(&c->corked_out, sb.data, sb.size) == 0 ? 0 : -ENOMEM;
	else
		rc = rpc_client_send_raw(c, sb.data, sb.size);
	msgpack_sbuffer_destroy(&sb);
	return rc < 0 ? rc : (int64_t)id;
}

int64_t rpc_client_send(struct rpc_client *c, const char *method, const char *fmt, ...)
{
	va_list ap;
	int64_t rc;

	va_start(ap, fmt);
	rc = rpc_vsend(c, method, fmt, ap);
	va_end(ap);
	return rc;
}

static void rpc_copy_str(const msgpack_object *o, char *out, size_t size)
{
	size_t n;

	out[0] = '\0';
	if (o == NULL || o->type != MSGPACK_OBJECT_STR || size == 0)
		return;
	n = o->via.str.size < size - 1 ? o->via.str.size : size - 1;
	memcpy(out, o->via.str.ptr, n);
	out[n] = '\0';
}

/* recvmsg into the unpacker's buffer, keeping any descriptors passed. */
static ssize_t rpc_recv(struct rpc_client *c, int flags)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 4)];
	struct iovec iov = { msgpack_unpacker_buffer(&c->up), msgpack_unpacker_buffer_capacity(&c->up) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof cbuf };
	ssize_t n = recvmsg(c->fd, &mh, flags | MSG_CMSG_CLOEXEC);

	for (struct cmsghdr *cm = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof fd);
			if (c->fd_count < sizeof c->fds / sizeof c->fds[0])
				c->fds[c->fd_count++] = fd;
			else
				close(fd);
		}
	}
	return n;
}

int rpc_client_take_fd(struct rpc_client *c)
{
	int fd;

	if (c->fd_count == 0)
		return -1;
	fd = c->fds[0];
	memmove(c->fds, c->fds + 1, --c->fd_count * sizeof c->fds[0]);
	return fd;
}

/* Read more bytes into the unpacker, waiting until the deadline. */
static int rpc_fill(struct rpc_client *c, int64_t deadline)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	int64_t left = deadline - rpc_now_ms();
	ssize_t n;

	if (left <= 0)
		return -ETIMEDOUT;
	n = poll(&pfd, 1, (int)left);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n == 0)
		return -ETIMEDOUT;
	if (!msgpack_unpacker_reserve_buffer(&c->up, 65536))
		return -ENOMEM;
	n = rpc_recv(c, 0);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n == 0)
		return -ECONNRESET;
	msgpack_unpacker_buffer_consumed(&c->up, (size_t)n);
	return 0;
}

static void rpc_queue_event(struct rpc_client *c, msgpack_unpacked *msg)
{
	const msgpack_object *params;
	struct rpc_event *ev;

	if (c->event_count == RPC_MAX_EVENTS) {
		c->events_dropped++;
		return;
	}
	ev = &c->events[(c->event_head + c->event_count) % RPC_MAX_EVENTS];
	memset(ev, 0, sizeof *ev);
	ev->msg = *msg;
	msgpack_unpacked_init(msg);
	params = &ev->msg.data.via.array.ptr[2];
	if (params->type == MSGPACK_OBJECT_ARRAY && params->via.array.size == 1)
		ev->body = &params->via.array.ptr[0];
	rpc_copy_str(rpc_get(ev->body, "type"), ev->type, sizeof ev->type);
	c->event_count++;
}

/* Why o is not a message PROTOCOL.md lets the daemon send, or NULL:
 * a response [1, msgid, nil, result] or [1, msgid, {code, message}, nil],
 * an event [2, "event", [{type, ...}]]. */
static const char *rpc_message_problem(const msgpack_object *o)
{
	const msgpack_object *a;

	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size < 3 ||
	    o->via.array.ptr[0].type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return "a top-level object that is not a message";
	a = o->via.array.ptr;
	if (a[0].via.u64 == 2) {
		if (o->via.array.size != 3 || a[1].type != MSGPACK_OBJECT_STR ||
		    a[1].via.str.size != 5 || memcmp(a[1].via.str.ptr, "event", 5) != 0 ||
		    a[2].type != MSGPACK_OBJECT_ARRAY || a[2].via.array.size != 1 ||
		    rpc_get(&a[2].via.array.ptr[0], "type") == NULL)
			return "an event that is not [2, \"event\", [{type, ...}]]";
		return NULL;
	}
	if (a[0].via.u64 != 1 || o->via.array.size != 4 ||
	    a[1].type != MSGPACK_OBJECT_POSITIVE_INTEGER || a[1].via.u64 > UINT32_MAX)
		return "a message that is neither a response nor an event";
	if (a[2].type == MSGPACK_OBJECT_NIL)
		return NULL;
	if (a[2].type != MSGPACK_OBJECT_MAP || a[2].via.map.size != 2 ||
	    rpc_get(&a[2], "code") == NULL || rpc_get(&a[2], "message") == NULL ||
	    a[3].type != MSGPACK_OBJECT_NIL)
		return "an error response that is not [1, msgid, {code, message}, nil]";
	return NULL;
}

/* 1 when every str in o, at any depth, is valid UTF-8, as msgpack says a
 * str is and strict decoders (Python's) insist. */
static int rpc_strings_are_text(const msgpack_object *o, int depth)
{
	if (depth > 64)
		return 1;
	switch (o->type) {
	case MSGPACK_OBJECT_STR:
		return rpc_utf8_valid_prefix(o->via.str.ptr, o->via.str.size) == o->via.str.size;
	case MSGPACK_OBJECT_ARRAY:
		for (uint32_t i = 0; i < o->via.array.size; i++)
			if (!rpc_strings_are_text(&o->via.array.ptr[i], depth + 1))
				return 0;
		return 1;
	case MSGPACK_OBJECT_MAP:
		for (uint32_t i = 0; i < o->via.map.size; i++)
			if (!rpc_strings_are_text(&o->via.map.ptr[i].key, depth + 1) ||
			    !rpc_strings_are_text(&o->via.map.ptr[i].val, depth + 1))
				return 0;
		return 1;
	default:
		return 1;
	}
}

/* Next message: 1 = reply filled, 0 = event queued, <0 error. */
static int rpc_next_message(struct rpc_client *c, int64_t deadline, struct rpc_reply *reply)
{
	msgpack_unpacked msg;

	msgpack_unpacked_init(&msg);
	for (;;) {
		msgpack_unpack_return r = msgpack_unpacker_next(&c->up, &msg);

		if (r == MSGPACK_UNPACK_SUCCESS) {
			const msgpack_object *o = &msg.data;

			const char *bad = rpc_message_problem(o);

			if (bad == NULL && !rpc_strings_are_text(o, 0))
				bad = "a str that is not valid UTF-8";

			/* Strict: a stray object between messages (a map that
			 * counted its pairs wrong) fails the test that reads it. */
			if (bad != NULL) {
				c->strays++;
				fprintf(stderr, "rpc_client: the daemon sent %s\n", bad);
				msgpack_unpacked_destroy(&msg);
				return -EPROTO;
			}
			if (o->via.array.ptr[0].via.u64 == 2) {
				rpc_queue_event(c, &msg);
				msgpack_unpacked_destroy(&msg);
				return 0;
			}
			memset(reply, 0, sizeof *reply);
			reply->msg = msg;
			o = &reply->msg.data;
			reply->msgid = (uint32_t)o->via.array.ptr[1].via.u64;
			if (o->via.array.ptr[2].type != MSGPACK_OBJECT_NIL) {
				reply->error = &o->via.array.ptr[2];
				rpc_copy_str(rpc_get(reply->error, "code"), reply->code, sizeof reply->code);
				rpc_copy_str(rpc_get(reply->error, "message"), reply->message,
					     sizeof reply->message);
			} else {
				reply->result = &o->via.array.ptr[3];
			}
			return 1;
		}
		if (r == MSGPACK_UNPACK_PARSE_ERROR || r == MSGPACK_UNPACK_NOMEM_ERROR) {
			msgpack_unpacked_destroy(&msg);
			return -EPROTO;
		}
		r = rpc_fill(c, deadline);
		if (r < 0) {
			msgpack_unpacked_destroy(&msg);
			return (int)r;
		}
	}
}

int rpc_client_read_nowait(struct rpc_client *c)
{
	ssize_t n;

	if (!msgpack_unpacker_reserve_buffer(&c->up, 65536))
		return -ENOMEM;
	n = rpc_recv(c, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (n == 0)
		return -ECONNRESET;
	msgpack_unpacker_buffer_consumed(&c->up, (size_t)n);
	return 0;
}

int rpc_client_next_buffered(struct rpc_client *c, struct rpc_reply *reply)
{
	int rc;

	/* A deadline in the past: parse what is buffered, never wait. */
	while ((rc = rpc_next_message(c, 0, reply)) == 0)
		;
	return rc == 1 ? 1 : 0;
}

int rpc_client_wait_any(struct rpc_client *c, struct rpc_reply *reply)
{
	int64_t deadline = rpc_now_ms() + c->timeout_ms;
	int rc;

	while ((rc = rpc_next_message(c, deadline, reply)) == 0)
		;
	return rc < 0 ? rc : 0;
}

int rpc_client_wait(struct rpc_client *c, uint32_t msgid, struct rpc_reply *reply)
{
	int64_t deadline = rpc_now_ms() + c->timeout_ms;

	for (;;) {
		int rc = rpc_next_message(c, deadline, reply);

		if (rc < 0)
			return rc;
		if (rc == 1 && reply->msgid == msgid)
			return 0;
		if (rc == 1)
			rpc_reply_free(reply);
	}
}

int rpc_client_call(struct rpc_client *c, struct rpc_reply *reply, const char *method,
		    const char *fmt, ...)
{
	va_list ap;
	int64_t id;

	va_start(ap, fmt);
	id = rpc_vsend(c, method, fmt, ap);
	va_end(ap);
	if (id < 0)
		return (int)id;
	return rpc_client_wait(c, (uint32_t)id, reply);
}

void rpc_reply_free(struct rpc_reply *reply)
{
	msgpack_unpacked_destroy(&reply->msg);
	memset(reply, 0, sizeof *reply);
}

int rpc_client_wait_closed(struct rpc_client *c, int timeout_ms)
{
	int64_t deadline = rpc_now_ms() + timeout_ms;

	for (;;) {
		struct rpc_reply r;
		int rc = rpc_next_message(c, deadline, &r);

		if (rc == 1)
			rpc_reply_free(&r);
		if (rc == -ECONNRESET || rc == -EPIPE)
			return 1;
		if (rc == -ETIMEDOUT)
			return 0;
		if (rc < 0)
			return 1;
	}
}

int rpc_client_next_event(struct rpc_client *c, int timeout_ms, struct rpc_event *ev)
{
	int64_t deadline = rpc_now_ms() + timeout_ms;

	while (c->event_count == 0) {
		struct rpc_reply r;
		int rc = rpc_next_message(c, deadline, &r);

		if (rc == 1)
			rpc_reply_free(&r);
		else if (rc < 0)
			return rc;
	}
	*ev = c->events[c->event_head];
	c->event_head = (c->event_head + 1) % RPC_MAX_EVENTS;
	c->event_count--;
	return 0;
}

void rpc_event_free(struct rpc_event *ev)
{
	msgpack_unpacked_destroy(&ev->msg);
	memset(ev, 0, sizeof *ev);
}

const msgpack_object *rpc_get(const msgpack_object *map, const char *key)
{
	size_t n = strlen(key);

	if (map == NULL || map->type != MSGPACK_OBJECT_MAP)
		return NULL;
	for (uint32_t i = 0; i < map->via.map.size; i++) {
		const msgpack_object *k = &map->via.map.ptr[i].key;

		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
		    memcmp(k->via.str.ptr, key, n) == 0)
			return &map->via.map.ptr[i].val;
	}
	return NULL;
}

int rpc_get_str(const msgpack_object *map, const char *key, char *out, size_t size)
{
	const msgpack_object *o = rpc_get(map, key);

	if (o == NULL || o->type != MSGPACK_OBJECT_STR)
		return -ENOENT;
	rpc_copy_str(o, out, size);
	return 0;
}

int rpc_get_i64(const msgpack_object *map, const char *key, int64_t *out)
{
	const msgpack_object *o = rpc_get(map, key);

	if (o == NULL)
		return -ENOENT;
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
		*out = (int64_t)o->via.u64;
	else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		*out = o->via.i64;
	else
		return -EINVAL;
	return 0;
}

int rpc_get_f64(const msgpack_object *map, const char *key, double *out)
{
	const msgpack_object *o = rpc_get(map, key);

	if (o == NULL)
		return -ENOENT;
	if (o->type == MSGPACK_OBJECT_FLOAT32 || o->type == MSGPACK_OBJECT_FLOAT64)
		*out = o->via.f64;
	else if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
		*out = (double)o->via.u64;
	else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		*out = (double)o->via.i64;
	else
		return -EINVAL;
	return 0;
}
