/*
 * conn.c - the socket: connecting, queuing and sending requests, and
 * reading with recvmsg so that descriptors passed with SCM_RIGHTS (a
 * stream's region, on its stream.open reply) are collected.
 *
 * The daemon attaches a descriptor to the first byte of the reply it
 * belongs to; the kernel hands it over with the recvmsg that reads that
 * byte, which may also carry earlier messages.  So each descriptor is kept
 * with the byte range of the read that brought it, and a reply starting in
 * that range takes it.  Descriptors nothing claims are closed once the
 * messages they could belong to have been handled.
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Bytes asked of each read: a typical reply, several at a time. */
#define CONN_READ_BYTES (64u * 1024u)

static void conn_drop_fds(animc_client *c)
{
	for (unsigned i = 0; i < c->nfds; i++)
		close(c->fds[i].fd);
	c->nfds = 0;
}

int ac_conn_open(animc_client *c, int64_t deadline)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct rpc_limits lim = {
		/* The daemon never sends more; the walk bounds what msgpack-c
		 * allocates for what it does send. */
		.max_message_bytes = PROTO_MAX_REPLY_BYTES,
		.max_depth = RPC_DEPTH_CEILING,
		.max_items = PROTO_MAX_REPLY_BYTES / 2,
	};
	size_t len = strlen(c->path);
	int fd, rc;

	if (len == 0 || len >= sizeof sa.sun_path)
		return len == 0 ? -EINVAL : -ENAMETOOLONG;
	memcpy(sa.sun_path, c->path, len + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* A Unix socket connects at once or fails, except when the listener's
	 * backlog is full (EAGAIN): then wait a little and try again. */
	for (;;) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
			break;
		rc = -errno;
		if (rc == -EINTR)
			continue;
		if (rc == -EINPROGRESS) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };
			socklen_t sl = sizeof rc;
			int n = poll(&p, 1, ac_left_ms(deadline));

			if (n == 0) {
				rc = -ETIMEDOUT;
			} else if (n > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &rc, &sl) == 0) {
				rc = -rc;
				if (rc == 0)
					break;
			} else {
				rc = -errno;
			}
		}
		if (rc == -EAGAIN && ac_left_ms(deadline) != 0) {
			poll(NULL, 0, 10);
			continue;
		}
		close(fd);
		return rc == -EAGAIN ? -ETIMEDOUT : rc;
	}
	if (c->dec_live)
		rpc_decoder_close(&c->dec);
	rc = rpc_decoder_init(&c->dec, &lim);
	if (rc < 0) {
		close(fd);
		c->dec_live = false;
		return rc;
	}
	c->dec_live = true;
	c->fd = fd;
	c->rx_total = 0;
	c->msg_start = 0;
	c->out_len = 0;
	c->fatal_set = false;
	return 0;
}

void ac_conn_close(animc_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	conn_drop_fds(c);
	if (c->dec_live)
		rpc_decoder_close(&c->dec);
	c->dec_live = false;
	c->out_len = 0;
}

int ac_conn_queue(animc_client *c, const void *data, size_t len)
{
	if (c->out_len + len > AC_MAX_OUTPUT)
		return -ENOBUFS;
	if (c->out_len + len > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		char *p;

		while (cap < c->out_len + len)
			cap *= 2;
		p = realloc(c->out, cap);
		if (p == NULL)
			return -ENOMEM;
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, data, len);
	c->out_len += len;
	return 0;
}

int ac_conn_write(void *data, const char *buf, size_t len)
{
	animc_client *c = data;

	/* msgpack-c's convention: 0, or non-zero when the write failed (the
	 * reason is kept for the caller of the packer). */
	c->write_err = ac_conn_queue(c, buf, len);
	return c->write_err == 0 ? 0 : -1;
}

int ac_conn_flush(animc_client *c)
{
	size_t sent = 0;
	int rc = 0;

	while (sent < c->out_len) {
		/* MSG_NOSIGNAL: a closed peer is an error to report, never a
		 * SIGPIPE for the caller's process. */
		ssize_t n = send(c->fd, c->out + sent, c->out_len - sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			sent += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		rc = n < 0 ? -errno : -EPIPE;
		break;
	}
	if (sent > 0) {
		memmove(c->out, c->out + sent, c->out_len - sent);
		c->out_len -= sent;
	}
	/* Shrink a buffer a burst made large once it empties. */
	if (c->out_len == 0 && c->out_cap > 256u * 1024u) {
		free(c->out);
		c->out = NULL;
		c->out_cap = 0;
	}
	return rc;
}

/* Keep the descriptors of one read, tagged with its byte range. */
static void conn_collect(animc_client *c, struct msghdr *mh, uint64_t start, uint64_t end)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
		size_t n;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof fd);
			if (c->nfds == AC_MAX_FDS) {
				/* More than any reply sequence can claim: a
				 * misbehaving peer.  Do not let them pile up. */
				close(fd);
				continue;
			}
			c->fds[c->nfds++] = (struct ac_fd){ fd, start, end };
		}
	}
}

int ac_conn_read(animc_client *c)
{
	union {
		char buf[CMSG_SPACE(AC_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr mh = { 0 };
	struct iovec iov;
	char *buf;
	size_t room;
	ssize_t n;
	int rc;

	rc = rpc_decoder_reserve(&c->dec, CONN_READ_BYTES, &buf, &room);
	if (rc < 0)
		return rc;
	iov.iov_base = buf;
	iov.iov_len = room;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl.buf;
	mh.msg_controllen = sizeof ctl.buf;
	do
		n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		rc = errno == EWOULDBLOCK ? -EAGAIN : -errno;
		rpc_decoder_commit(&c->dec, 0);
		return rc;
	}
	conn_collect(c, &mh, c->rx_total, c->rx_total + (uint64_t)n);
	rpc_decoder_commit(&c->dec, (size_t)n);
	c->rx_total += (uint64_t)n;
	return (int)(n > 0x7fffffff ? 0x7fffffff : n);
}

void ac_conn_sweep_fds(animc_client *c, uint64_t msg_start)
{
	unsigned kept = 0;

	for (unsigned i = 0; i < c->nfds; i++) {
		if (c->fds[i].end <= msg_start)
			close(c->fds[i].fd);    /* came before this message; unclaimed */
		else
			c->fds[kept++] = c->fds[i];
	}
	c->nfds = kept;
}

int ac_conn_take_fd(animc_client *c, uint64_t msg_start)
{
	ac_conn_sweep_fds(c, msg_start);
	for (unsigned i = 0; i < c->nfds; i++) {
		int fd = c->fds[i].fd;

		if (c->fds[i].start <= msg_start && msg_start < c->fds[i].end) {
			memmove(&c->fds[i], &c->fds[i + 1], (c->nfds - i - 1) * sizeof c->fds[0]);
			c->nfds--;
			return fd;
		}
	}
	return -1;
}
