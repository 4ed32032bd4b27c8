#include "daemon/service/control/session.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/service/base/log.h"
#include "daemon/service/control/dispatch.h"
#include "daemon/service/control/listener.h"
#include "daemon/service/control/monitor.h"

/* PROTOCOL.md section 5's promise: a request is served only while less
 * than the high mark is queued, so one reply of any size stays within the
 * output maximum, which the configuration keeps at least this large. */
_Static_assert(CONFIG_MIN_OUTPUT_BYTES_PER_CONNECTION >=
		       (size_t)PROTO_DEFAULT_OUTPUT_HIGH_BYTES + PROTO_MAX_REPLY_BYTES,
	       "the least output maximum must hold the high mark plus one maximal reply");

/* The reason given when a peer closes its side (logged at debug). */
#define SESSION_CLOSE_DISCONNECTED "client disconnected"

/* One queued write: the request and its bytes in one allocation. */
struct session_write {
	uv_write_t req;
	struct session *s;
	size_t len;
	char data[];
};

static void session_read_start(struct session *s);
static void session_serve_rest(struct session *s);
static void session_pump_fd(struct session *s);
static unsigned session_drain(struct session *s);
static void session_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf);
static void session_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf);
static bool session_paused_and_written(const struct session *s);

/* Debug builds prove every byte the daemon sends is whole, well-formed
 * messages (rpc_out_check) before it leaves: a writer that miscounts a map
 * is a crash in the tests, not garbage in a client. */
static void session_check_out(const struct session *s, const char *data, size_t len)
{
#ifndef NDEBUG
	char why[160];

	if (rpc_out_check(data, len, why, sizeof why) < 0) {
		log_error("connection %llu: about to send a malformed message: %s",
			  (unsigned long long)s->id, why);
		abort();
	}
#else
	(void)s;
	(void)data;
	(void)len;
#endif
}

static void session_closed(uv_handle_t *h)
{
	struct session *s = h->data;

	rpc_decoder_close(&s->dec);
	listener_forget(s->listener, s);
	if (s->fd_msg != NULL)
		close(s->fd_msg_fd);
	free(s->fd_msg);
	rpc_out_free(&s->out);
	rpc_out_free(&s->held);
	free(s);
}

size_t session_bytes(const struct session *s)
{
	return sizeof *s + s->dec.cap + s->out.cap + s->held.cap + s->queued +
	       (s->fd_msg != NULL ? s->fd_msg_len : 0) + s->waiting_bytes;
}

/* Closes that are part of a connection's ordinary life are logged at
 * debug, like its opening; the others (a limit, an error, a timeout) at
 * info, where they are worth seeing. */
static bool session_close_is_routine(const char *why)
{
	static const char *const routine[] = {
		SESSION_CLOSE_DISCONNECTED, "animd is shutting down", "refused",
		"refused client hung up",
	};

	for (size_t i = 0; i < sizeof routine / sizeof routine[0]; i++)
		if (strcmp(why, routine[i]) == 0)
			return true;
	return false;
}

void session_close(struct session *s, const char *why)
{
	if (s->closing)
		return;
	s->closing = true;
	listener_release(s->listener, s);
	log_write(session_close_is_routine(why) ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO,
		  "connection %llu closed: %s", (unsigned long long)s->id, why);
	control_session_ended(s->ctl, s);
	uv_close((uv_handle_t *)&s->pipe, session_closed);
}

static void session_write_done(uv_write_t *req, int status)
{
	struct session_write *w = (struct session_write *)req;
	struct session *s = w->s;

	s->queued -= w->len;
	free(w);
	if (s->closing)
		return;
	if (status < 0) {
		session_close(s, uv_strerror(status));
		return;
	}
	/* Progress: what is left has been waiting only since now. */
	s->tx_stall_since_ms = s->queued > 0 ? uv_now(s->ctl->loop) : 0;
	session_pump_fd(s);
	/* The client caught up: take requests again. */
	if (!s->reading && !s->hanging_up && s->fd_msg == NULL && !s->fd_paused_read &&
	    s->queued <= s->high_mark / 2)
		session_read_start(s);
	else
		session_serve_rest(s);
}

/* Write `len` bytes: straight to the socket when nothing is queued before
 * them, and whatever the socket does not take into a queued write request.
 * (A uv_write that completes at once still costs an allocation, a copy and
 * an epoll_ctl when libuv re-arms the descriptor; uv_try_write costs the
 * write alone.) */
static int session_write(struct session *s, const char *data, size_t len)
{
	struct session_write *w;
	uv_buf_t buf;
	int rc;

	if (uv_stream_get_write_queue_size((uv_stream_t *)&s->pipe) == 0) {
		buf = uv_buf_init((char *)data, (unsigned)len);
		rc = uv_try_write((uv_stream_t *)&s->pipe, &buf, 1);
		if (rc >= 0) {
			data += rc;
			len -= (size_t)rc;
		} else if (rc != UV_EAGAIN) {
			session_close(s, uv_strerror(rc));
			return -ECONNRESET;
		}
		if (len == 0)
			return 0;
	}
	w = malloc(sizeof *w + len);
	if (w == NULL) {
		session_close(s, "out of memory");
		return -ECONNRESET;
	}
	w->s = s;
	w->len = len;
	memcpy(w->data, data, len);
	buf = uv_buf_init(w->data, (unsigned)len);
	rc = uv_write(&w->req, (uv_stream_t *)&s->pipe, &buf, 1, session_write_done);
	if (rc < 0) {
		free(w);
		session_close(s, uv_strerror(rc));
		return -ECONNRESET;
	}
	if (s->queued == 0)
		s->tx_stall_since_ms = uv_now(s->ctl->loop);
	s->queued += len;
	if (s->reading && s->queued >= s->high_mark) {
		uv_read_stop((uv_stream_t *)&s->pipe);
		s->reading = false;
	}
	return 0;
}

/* Write what a read's requests produced, in one system call.  While a
 * descriptor-carrying reply waits, everything after it keeps gathering. */
static void session_flush(struct session *s)
{
	size_t n = s->out.len;

	if (s->fd_msg != NULL)
		return;
	rpc_out_truncate(&s->out, 0);
	if (n > 0 && !s->closing) {
		session_check_out(s, s->out.data, n);
		session_write(s, s->out.data, n);
	}
	/* Keep a modest buffer around; give back a big one. */
	if (s->out.cap > 256 * 1024)
		rpc_out_free(&s->out);
}

void session_out_done(struct session *s)
{
	if (s->closing) {
		rpc_out_truncate(&s->out, 0);
		return;
	}
	if (s->queued + s->out.len > s->max_output) {
		rpc_out_truncate(&s->out, 0);
		session_close(s, "client is not reading: output limit reached");
		return;
	}
	if (!s->batching) {
		session_flush(s);
		return;
	}
	/* Past the high mark, stop taking requests even mid-batch. */
	if (s->reading && s->queued + s->out.len >= s->high_mark) {
		uv_read_stop((uv_stream_t *)&s->pipe);
		s->reading = false;
	}
}

/* Send the waiting descriptor reply once nothing is queued before it. */
static void session_pump_fd(struct session *s)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov;
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;
	uv_os_fd_t sock;
	ssize_t n;

	if (s->fd_msg == NULL || s->closing ||
	    uv_stream_get_write_queue_size((uv_stream_t *)&s->pipe) > 0 ||
	    uv_fileno((uv_handle_t *)&s->pipe, &sock) < 0)
		return;
	memset(cbuf, 0, sizeof cbuf);
	iov.iov_base = s->fd_msg;
	iov.iov_len = s->fd_msg_len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof cbuf;
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &s->fd_msg_fd, sizeof(int));
	do
		n = sendmsg(sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		/* The client asked for a stream and does not read its socket. */
		session_close(s, n < 0 ? strerror(errno) : "cannot pass the stream descriptor");
		return;
	}
	close(s->fd_msg_fd);
	if ((size_t)n < s->fd_msg_len)
		session_write(s, s->fd_msg + n, s->fd_msg_len - (size_t)n);
	free(s->fd_msg);
	s->fd_msg = NULL;
	if (!s->batching)
		session_flush(s);
	/* Serve the requests that waited behind it, unless the events that
	 * gathered meanwhile passed the high mark: a request is served only
	 * below it (see the assert above).  Then a write is under way, and its
	 * completion resumes reading once the client has caught up. */
	if (s->fd_paused_read && !s->hanging_up) {
		s->fd_paused_read = false;
		if (s->closing || s->queued >= s->high_mark)
			return;
		if (!s->draining)
			session_read_start(s);
		else if (uv_read_start((uv_stream_t *)&s->pipe, session_alloc, session_read) == 0)
			s->reading = true;      /* the drain under way carries on */
	}
}

void session_send_with_fd(struct session *s, const char *data, size_t len, int fd)
{
	char *copy = s->closing ? NULL : malloc(len);

	if (copy == NULL) {
		close(fd);
		if (!s->closing)
			session_close(s, "out of memory");
		return;
	}
	/* Everything answered before this reply goes first; requests after
	 * it wait (session_drain) until it is on its way. */
	session_flush(s);
	if (s->reading) {
		uv_read_stop((uv_stream_t *)&s->pipe);
		s->reading = false;
		s->fd_paused_read = true;
	}
	session_check_out(s, data, len);
	memcpy(copy, data, len);
	s->fd_msg = copy;
	s->fd_msg_len = len;
	s->fd_msg_fd = fd;
	session_pump_fd(s);
}

int session_send(struct session *s, const char *data, size_t len)
{
	if (s->closing)
		return -ECONNRESET;
	if (s->dispatching) {
		/* A failure is sticky: session_dispatch_end closes then. */
		rpc_put_raw(&s->held, data, len);
		return 0;
	}
	rpc_put_raw(&s->out, data, len);
	if (rpc_out_failed(&s->out)) {
		rpc_out_truncate(&s->out, 0);
		session_close(s, "out of memory");
		return -ECONNRESET;
	}
	session_out_done(s);
	return s->closing ? -ECONNRESET : 0;
}

void session_dispatch_begin(struct session *s)
{
	s->dispatching = true;
}

void session_dispatch_end(struct session *s)
{
	s->dispatching = false;
	if (rpc_out_failed(&s->held)) {
		rpc_out_free(&s->held);
		session_close(s, "out of memory");
		return;
	}
	if (s->held.len == 0)
		return;
	session_send(s, s->held.data, s->held.len);
	rpc_out_truncate(&s->held, 0);
	if (s->held.cap > 256 * 1024)
		rpc_out_free(&s->held);
}

static void session_close_after_write(uv_write_t *req, int status)
{
	struct session_write *w = (struct session_write *)req;
	struct session *s = w->s;

	(void)status;
	s->queued -= w->len;
	free(w);
	session_close(s, "protocol violation");
}

void session_send_last(struct session *s, const char *data, size_t len, const char *why)
{
	uv_buf_t buf = uv_buf_init((char *)data, (unsigned)len);

	if (s->closing)
		return;
	/* What is gathered goes first; then this message, if nothing waits
	 * before it and the socket takes it at once.  A client that does not
	 * read loses it, and is closed all the same. */
	session_flush(s);
	if (s->closing)
		return;         /* the flush failed: closed already */
	session_check_out(s, data, len);
	if (s->fd_msg == NULL && uv_stream_get_write_queue_size((uv_stream_t *)&s->pipe) == 0)
		uv_try_write((uv_stream_t *)&s->pipe, &buf, 1);
	session_close(s, why);
}

void session_send_error(struct session *s, const struct rpc_error *err)
{
	struct rpc_out sb = RPC_OUT_INIT;
	struct session_write *w;
	uv_buf_t buf;

	if (s->closing)
		return;
	if (!err->fatal) {
		size_t mark = session_out_mark(s);

		rpc_put_error_reply(&s->out, err);
		if (rpc_out_failed(&s->out)) {
			session_out_rollback(s, mark);
			session_close(s, "out of memory");
			return;
		}
		session_out_done(s);
		return;
	}
	/* Stop reading, say why after what was already answered, then hang
	 * up once it is written. */
	session_flush(s);
	uv_read_stop((uv_stream_t *)&s->pipe);
	s->reading = false;
	s->hanging_up = true;           /* never read again */
	rpc_put_error_reply(&sb, err);
	if (!rpc_out_failed(&sb))
		session_check_out(s, sb.data, sb.len);
	w = rpc_out_failed(&sb) ? NULL : malloc(sizeof *w + sb.len);
	if (w != NULL) {
		w->s = s;
		w->len = sb.len;
		memcpy(w->data, sb.data, sb.len);
		buf = uv_buf_init(w->data, (unsigned)sb.len);
		if (uv_write(&w->req, (uv_stream_t *)&s->pipe, &buf, 1,
			     session_close_after_write) == 0) {
			s->queued += sb.len;
			log_warning("connection %llu: %s (disconnecting)",
				    (unsigned long long)s->id, err->message);
			rpc_out_free(&sb);
			return;
		}
		free(w);
	}
	rpc_out_free(&sb);
	session_close(s, err->message);
}

/* Serve every complete request the decoder holds, unless reading has been
 * paused by backpressure (the rest wait in the decoder). */
static unsigned session_drain(struct session *s)
{
	struct rpc_message msg;
	struct rpc_error err;
	unsigned taken = 0;
	int rc;

	s->draining = true;
	while (!s->closing && s->reading && s->fd_msg == NULL) {
		struct rpc_request req;

		rpc_error_init(&err);
		rc = rpc_decoder_next(&s->dec, &msg, &err);
		if (rc == 0)
			break;
		if (rc < 0) {
			session_send_error(s, &err);
			break;
		}
		taken++;
		rpc_error_init(&err);
		rc = rpc_request_parse(&msg.obj, &req, &err);
		if (rc == 0) {
			s->ctl->requests++;
			s->requests++;
			/* With no monitor attached, this test is all it costs. */
			if (s->ctl->monitors != 0)
				monitor_request(s, &req);
			dispatch_request(s, &req, msg.data, msg.size);
		} else if (rc < 0) {
			session_send_error(s, &err);
		}
		/* rc == 1: a client notification; the protocol defines none. */
	}
	s->draining = false;
	return taken;
}

static void session_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct session *s = h->data;
	char *p = NULL;
	size_t len = 0;

	if (rpc_decoder_reserve(&s->dec, suggested, &p, &len) < 0) {
		*buf = uv_buf_init(NULL, 0);
		return;
	}
	*buf = uv_buf_init(p, (unsigned)len);
}

static void session_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
	struct session *s = stream->data;
	struct rpc_error err;
	unsigned taken;

	(void)buf;
	if (s->closing)
		return;
	if (n == UV_EOF) {
		/* The client is done sending (it may only have shut down its
		 * write side): what it sent is still answered, and the
		 * connection closes once every reply has been written. */
		s->peer_eof = true;
		session_serve_rest(s);
		return;
	}
	if (n < 0) {
		if (n == UV_ENOBUFS) {
			/* The decoder refused a buffer: it is dead or full. */
			rpc_error_init(&err);
			if (rpc_decoder_next(&s->dec, &(struct rpc_message){ 0 }, &err) < 0) {
				session_send_error(s, &err);
				return;
			}
		}
		session_close(s, uv_strerror((int)n));
		return;
	}
	if (n > 0 && rpc_decoder_commit(&s->dec, (size_t)n) < 0) {
		session_close(s, "decoder refused its own buffer");
		return;
	}
	if (n > 0)
		s->last_rx_ms = uv_now(s->ctl->loop);
	s->batching = true;
	taken = session_drain(s);
	s->batching = false;
	/* The age of the request now arriving: a message completed restarts
	 * it, so a client that pipelines without pause is never "stalled". */
	if (s->reading && rpc_decoder_pending(&s->dec) > 0) {
		if (taken > 0 || s->partial_since_ms == 0)
			s->partial_since_ms = s->last_rx_ms;
	} else {
		s->partial_since_ms = 0;
	}
	session_flush(s);
	if (session_paused_and_written(s))
		session_read_start(s);
}

/*
 * After the client's EOF: serve the complete requests still in the decoder
 * (as backpressure allows), then close once nothing is left to send: no
 * request unanswered, no reply waiting for a descriptor, nothing queued,
 * no deferred reply (assets.reload) outstanding.
 */
static void session_serve_rest(struct session *s)
{
	struct rpc_error err;
	int rc;

	if (!s->peer_eof || s->closing)
		return;
	if (s->reading) {
		s->batching = true;
		session_drain(s);
		s->batching = false;
		session_flush(s);
	}
	if (s->closing || s->fd_msg != NULL || s->queued > 0 || s->deferred > 0 ||
	    uv_stream_get_write_queue_size((uv_stream_t *)&s->pipe) > 0)
		return;
	rpc_error_init(&err);
	rc = rpc_decoder_finish(&s->dec, &err);
	if (rc == -EBUSY)
		return;                 /* requests wait for backpressure to ease */
	if (rc < 0 && err.fatal)
		log_info("connection %llu: %s", (unsigned long long)s->id, err.message);
	session_close(s, SESSION_CLOSE_DISCONNECTED);
}

void session_deferred_done(struct session *s)
{
	s->deferred--;
	session_serve_rest(s);
}

/* Reading stopped at the high mark (session_write, session_out_done) and
 * nothing of it is still queued.  Its flush usually leaves a write queued,
 * whose completion resumes reading (session_write_done); when the socket
 * took the whole flush at once, no completion will ever come. */
static bool session_paused_and_written(const struct session *s)
{
	return !s->closing && !s->reading && !s->hanging_up && s->fd_msg == NULL &&
	       !s->fd_paused_read && !s->peer_eof && s->queued == 0;
}

static void session_read_start(struct session *s)
{
	do {
		s->reading = true;
		if (s->peer_eof) {
			session_serve_rest(s);
			return;
		}
		/* Requests that arrived before the pause come first. */
		s->batching = true;
		session_drain(s);
		s->batching = false;
		session_flush(s);
		/* Another high mark, whose flush went out whole: the next
		 * batch of what is buffered. */
	} while (session_paused_and_written(s));
	if (!s->closing && s->reading && uv_read_start((uv_stream_t *)&s->pipe, session_alloc,
						       session_read) < 0)
		session_close(s, "cannot read");
}

int session_start(struct session *s)
{
	struct rpc_limits limits = RPC_LIMITS_DEFAULT;
	int rc;

	limits.max_message_bytes = s->ctl->cfg->max_message_bytes;
	rc = rpc_decoder_init(&s->dec, &limits);
	if (rc < 0)
		return rc;
	s->pipe.data = s;
	s->max_output = s->ctl->cfg->max_output_bytes_per_connection;
	s->max_instances = s->ctl->cfg->max_instances_per_connection;
	/* The maximum is at least the high mark plus a maximal reply (the
	 * configuration's least value, asserted above). */
	s->high_mark = PROTO_DEFAULT_OUTPUT_HIGH_BYTES;
	s->reading = true;
	s->accepted_ms = s->last_rx_ms = uv_now(s->ctl->loop);
	rc = uv_read_start((uv_stream_t *)&s->pipe, session_alloc, session_read);
	return rc < 0 ? rc : 0;
}

/* ---- refused connections and timeouts --------------------------------- */

static void session_discard_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	/* Loop thread only: one buffer serves every refused connection. */
	static char sink[16384];

	(void)h;
	(void)suggested;
	*buf = uv_buf_init(sink, sizeof sink);
}

static void session_discard_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
	struct session *s = stream->data;

	(void)buf;
	if (n < 0 && !s->closing)
		session_close(s, n == UV_EOF ? "refused client hung up" : uv_strerror((int)n));
}

static void session_refused_shutdown(uv_shutdown_t *req, int status)
{
	(void)status;
	free(req);
}

int session_refuse(struct session *s, const struct rpc_error *err)
{
	uv_shutdown_t *req = malloc(sizeof *req);
	struct rpc_out out = RPC_OUT_INIT;
	int rc;

	s->pipe.data = s;
	s->refused = true;
	s->accepted_ms = s->last_rx_ms = uv_now(s->ctl->loop);
	rpc_put_error_reply(&out, err);
	rc = rpc_out_failed(&out) || req == NULL ? -ENOMEM : 0;
	if (rc == 0) {
		session_check_out(s, out.data, out.len);
		rc = session_write(s, out.data, out.len);
	}
	rpc_out_free(&out);
	if (rc == 0 && uv_shutdown(req, (uv_stream_t *)&s->pipe, session_refused_shutdown) == 0)
		req = NULL;
	free(req);
	if (rc == 0 && !s->closing)
		rc = uv_read_start((uv_stream_t *)&s->pipe, session_discard_alloc,
				   session_discard_read);
	return rc;
}

/* How long a refused connection may linger before it is simply closed. */
#define SESSION_REFUSED_LINGER_MS 2000

static void session_timeout(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void session_timeout(struct session *s, const char *fmt, ...)
{
	struct rpc_error err;
	va_list ap;

	rpc_error_init(&err);
	err.code = PROTO_ERR_LIMIT;
	err.fatal = true;
	va_start(ap, fmt);
	vsnprintf(err.message, sizeof err.message, fmt, ap);
	va_end(ap);
	session_send_error(s, &err);
}

/*
 * Whether the socket holds what the loop has not taken yet: input for a
 * session that reads (its read callback will take it), or room again for
 * the output it has queued (its write callback will send it).  After a
 * stall of the loop (SIGSTOP, a long callback) the sweep's timer can run
 * before the I/O phase that would take them: a client whose request or
 * read straddled the stall is late only by the daemon's own lateness.
 * One poll(2) without waiting, and only for a session already past a
 * deadline.
 */
static bool session_io_waiting(const struct session *s)
{
	struct pollfd pfd = { .fd = -1 };
	uv_os_fd_t fd;

	if (uv_fileno((const uv_handle_t *)&s->pipe, &fd) < 0)
		return false;
	pfd.fd = fd;
	/* Not after EOF: the socket stays readable then, with nothing to take. */
	if (s->reading && !s->peer_eof)
		pfd.events |= POLLIN;
	if (s->queued > 0)
		pfd.events |= POLLOUT;
	if (pfd.events == 0)
		return false;
	return poll(&pfd, 1, 0) > 0 && (pfd.revents & pfd.events) != 0;
}

void session_check_timeouts(struct session *s, uint64_t now_ms)
{
	const struct config *cfg = s->ctl->cfg;
	uint64_t idle_ms = (uint64_t)cfg->idle_timeout_s * 1000;

	if (s->closing)
		return;
	if (s->refused) {
		if (now_ms - s->accepted_ms >= SESSION_REFUSED_LINGER_MS)
			session_close(s, "refused client did not hang up");
		return;
	}
	if (s->hanging_up)
		return;
	/* Past a deadline with bytes waiting to be taken: the next turn of
	 * the loop takes them and the sweep after it judges afresh (a
	 * request still not complete then is still timed from its start). */
	if (s->partial_since_ms != 0 && now_ms - s->partial_since_ms >= cfg->request_timeout_ms) {
		if (session_io_waiting(s))
			return;
		session_timeout(s, "a request began %llu ms ago and is still not complete "
			       "(limits.request_timeout_ms = %u)",
			       (unsigned long long)(now_ms - s->partial_since_ms),
			       cfg->request_timeout_ms);
		return;
	}
	if (idle_ms == 0)
		return;
	if (s->tx_stall_since_ms != 0 && now_ms - s->tx_stall_since_ms >= idle_ms) {
		if (session_io_waiting(s))
			return;
		/* It does not read: an error reply would never arrive either. */
		session_close(s, "not reading its replies (limits.idle_timeout_s)");
		return;
	}
	if (now_ms - s->last_rx_ms >= idle_ms && !s->peer_eof && s->owns.instances == 0 &&
	    s->subscriptions == 0 && s->deferred == 0 && s->queued == 0 &&
	    s->owns.streams == 0 && !session_io_waiting(s))
		session_timeout(s, "idle for %u s with nothing open (limits.idle_timeout_s)",
			       cfg->idle_timeout_s);
}
