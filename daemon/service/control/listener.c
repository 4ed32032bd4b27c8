#include "daemon/service/control/listener.h"

#include <errno.h>
#include <stddef.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "daemon/service/base/activation.h"
#include "daemon/service/base/log.h"
#include "daemon/service/control/session.h"

struct listener {
	struct control *ctl;
	uv_pipe_t pipe;                 /* the listening socket */
	struct session *sessions;
	size_t count;                   /* every session, refused ones included */
	size_t refused;                 /* of which refused, lingering */
	size_t released;                /* of which closing (their slots free) */
	uv_timer_t sweep;               /* timeouts (session_check_timeouts) */
	bool sweep_closed;
	uint64_t refusals_logged_ms;    /* when a refusal was last logged */
	uint64_t refusals_unlogged;     /* refused since, not logged */
	uint64_t next_id;
	bool activated;                 /* the socket came from systemd */
	dev_t path_dev;                 /* the socket file we made at path (lstat */
	ino_t path_ino;                 /* after bind): only that one is removed */
	bool closing;
	bool pipe_closed;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	/* Where clients reach us, for the log: path, or what systemd's socket
	 * is bound to. */
	char address[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	void (*done)(void *data);
	void *done_data;
};

static void listener_maybe_done(struct listener *srv)
{
	if (srv->closing && srv->pipe_closed && srv->sweep_closed && srv->sessions == NULL) {
		void (*done)(void *) = srv->done;
		void *data = srv->done_data;

		free(srv);
		if (done != NULL)
			done(data);
	}
}

void listener_forget(struct listener *srv, struct session *s)
{
	if (s->prev != NULL)
		s->prev->next = s->next;
	else
		srv->sessions = s->next;
	if (s->next != NULL)
		s->next->prev = s->prev;
	srv->count--;
	srv->refused -= s->refused;
	srv->released -= s->released;
	listener_maybe_done(srv);
}

void listener_release(struct listener *srv, struct session *s)
{
	if (srv == NULL || s->refused || s->released)
		return;
	s->released = true;
	srv->released++;
}

struct session *listener_sessions(const struct listener *srv)
{
	return srv != NULL ? srv->sessions : NULL;
}

size_t listener_session_count(const struct listener *srv)
{
	return srv->count - srv->refused - srv->released;
}

uint64_t listener_session_bytes(const struct listener *srv)
{
	uint64_t n = 0;

	for (const struct session *s = srv->sessions; s != NULL; s = s->next)
		n += session_bytes(s);
	return n;
}

/* Refusals are logged, but a flood of them is one line per interval. */
#define SERVER_REFUSAL_LOG_MS 10000

static void listener_log_refusal(struct listener *srv, const struct session *s, const char *why)
{
	uint64_t now = uv_now(srv->ctl->loop);

	if (srv->refusals_logged_ms != 0 && now - srv->refusals_logged_ms < SERVER_REFUSAL_LOG_MS) {
		srv->refusals_unlogged++;
		return;
	}
	if (srv->refusals_unlogged > 0)
		log_warning("refused connection %llu from pid %d uid %u: %s "
			    "(and %llu more in the last %u s)", (unsigned long long)s->id,
			    (int)s->peer_pid, (unsigned)s->peer_uid, why,
			    (unsigned long long)srv->refusals_unlogged,
			    (unsigned)((now - srv->refusals_logged_ms) / 1000));
	else
		log_warning("refused connection %llu from pid %d uid %u: %s",
			    (unsigned long long)s->id, (int)s->peer_pid, (unsigned)s->peer_uid, why);
	srv->refusals_logged_ms = now;
	srv->refusals_unlogged = 0;
}

static void listener_sweep(uv_timer_t *t)
{
	struct listener *srv = t->data;
	uint64_t now = uv_now(srv->ctl->loop);
	struct session *s, *next;

	for (s = srv->sessions; s != NULL; s = next) {
		next = s->next;
		session_check_timeouts(s, now);
	}
}

/* Often enough that a timeout fires within a quarter of itself, at most
 * once a second. */
static uint64_t listener_sweep_ms(const struct config *cfg)
{
	uint64_t ms = cfg->request_timeout_ms / 4;

	return ms < 50 ? 50 : ms > 1000 ? 1000 : ms;
}

void listener_broadcast(struct listener *srv, enum proto_event type, const char *data, size_t len)
{
	struct session *s, *next;

	for (s = srv->sessions; s != NULL; s = next) {
		next = s->next;
		/* PROTO_EVENT_COUNT: to everyone (server.stopping). */
		if (!s->closing && (type == PROTO_EVENT_COUNT ||
				    (s->subscriptions & (UINT64_C(1) << type))))
			session_send(s, data, len);
	}
}

static void listener_on_connection(uv_stream_t *stream, int status)
{
	struct listener *srv = stream->data;
	struct session *s;
	struct ucred cred;
	socklen_t len = sizeof cred;
	uv_os_fd_t fd;

	if (status < 0) {
		log_warning("accept failed: %s", uv_strerror(status));
		return;
	}
	s = calloc(1, sizeof *s);
	if (s == NULL || uv_pipe_init(srv->ctl->loop, &s->pipe, 0) < 0) {
		free(s);
		log_error("accept: out of memory");
		return;
	}
	s->ctl = srv->ctl;
	s->listener = srv;
	s->id = ++srv->next_id;
	s->pipe.data = s;
	s->next = srv->sessions;
	if (srv->sessions != NULL)
		srv->sessions->prev = s;
	srv->sessions = s;
	srv->count++;
	if (uv_accept(stream, (uv_stream_t *)&s->pipe) < 0) {
		session_close(s, "accept failed");
		return;
	}
	if (uv_fileno((uv_handle_t *)&s->pipe, &fd) == 0 &&
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
		s->peer_pid = cred.pid;
		s->peer_uid = cred.uid;
		s->peer_gid = cred.gid;
	}
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		s->accepted_unix = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	}
	if (srv->count - srv->refused - srv->released > srv->ctl->cfg->max_connections ||
	    srv->closing) {
		struct rpc_error err;

		rpc_error_init(&err);
		rpc_error_format(&err, srv->closing ? PROTO_ERR_SHUTTING_DOWN : PROTO_ERR_LIMIT,
				 srv->closing ? "animd is shutting down"
					      : "too many connections (limits.max_connections = %u)",
				 srv->ctl->cfg->max_connections);
		srv->refused++;
		listener_log_refusal(srv, s, err.message);
		if (session_refuse(s, &err) < 0)
			session_close(s, "refused");
		return;
	}
	if (session_start(s) < 0) {
		session_close(s, "cannot read");
		return;
	}
	/* At debug: every animctl call opens and closes one, and at info the
	 * pair would drown what the log is for. */
	log_debug("connection %llu from pid %d uid %u", (unsigned long long)s->id, (int)s->peer_pid,
		  (unsigned)s->peer_uid);
}

/* Is a live daemon answering on this path?  1 yes, 0 stale, <0 errno. */
static int listener_probe(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int rc;

	if (fd < 0)
		return -errno;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ? 1
	     : errno == ECONNREFUSED                            ? 0
								: -errno;
	close(fd);
	return rc;
}

static int listener_prepare_path(const char *path, char *err, size_t errlen)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *slash = strrchr(path, '/');
	struct stat st;
	int live;

	/* libuv reports a missing directory as "permission denied": say it. */
	if (slash != NULL && slash != path) {
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
		if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "the socket's directory %s does not exist", dir);
			return -ENOENT;
		}
	}

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a socket: refusing to replace it", path);
		return -EEXIST;
	}
	live = listener_probe(path);
	if (live == 1) {
		snprintf(err, errlen, "another animd is serving %s: refusing to start", path);
		return -EADDRINUSE;
	}
	if (live < 0) {
		snprintf(err, errlen, "cannot probe existing socket %s: %s", path, strerror(-live));
		return live;
	}
	log_info("removing stale socket %s", path);
	return unlink(path) == 0 ? 0 : -errno;
}

static int listener_group(const char *name, gid_t *out)
{
	struct group *g;
	char *end;
	unsigned long n;

	if (name[0] == '\0')
		return 0;
	g = getgrnam(name);
	if (g != NULL) {
		*out = g->gr_gid;
		return 1;
	}
	n = strtoul(name, &end, 10);
	if (*end != '\0' || end == name)
		return -ENOENT;
	*out = (gid_t)n;
	return 1;
}

/* What is at a path, for the log line that says it was left alone. */
static const char *listener_file_kind(mode_t mode)
{
	return S_ISREG(mode) ? "a regular file" : S_ISDIR(mode) ? "a directory"
	       : S_ISLNK(mode) ? "a symbolic link" : S_ISSOCK(mode) ? "another socket"
	       : S_ISFIFO(mode) ? "a FIFO" : "a device";
}

/*
 * Remove socket.path only while it is still the socket this daemon made:
 * since then someone may have put a file there, or removed ours and let a
 * second daemon bind the path, and a stop must not delete theirs.  (The
 * path can still change between the lstat and the unlink: no call closes
 * that window, but it is a replacement racing the stop itself, not one
 * made at any time since start.)
 */
static void listener_unlink_own(struct listener *srv)
{
	struct stat st;

	if (srv->path[0] == '\0')
		return;
	if (lstat(srv->path, &st) < 0) {
		if (errno != ENOENT)
			log_warning("cannot check the socket path %s: %s; left in place", srv->path,
				    strerror(errno));
		return;
	}
	if (!S_ISSOCK(st.st_mode) || st.st_dev != srv->path_dev || st.st_ino != srv->path_ino) {
		log_warning("%s is now %s, not the socket animd made: left in place", srv->path,
			    listener_file_kind(st.st_mode));
		return;
	}
	if (unlink(srv->path) < 0 && errno != ENOENT)
		log_warning("cannot remove the socket %s: %s", srv->path, strerror(errno));
}

/*
 * The socket is made here rather than by uv_pipe_bind, which would keep the
 * path and unlink it when the handle closes, whatever is there by then;
 * libuv is handed the bound descriptor (uv_pipe_open), as under socket
 * activation, and the path is ours to remove (listener_unlink_own).
 */
static int listener_bind(struct listener *srv, char *err, size_t errlen)
{
	const struct config *cfg = srv->ctl->cfg;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	gid_t gid = 0;
	int rc, has_group, fd;

	rc = listener_prepare_path(cfg->socket_path, err, errlen);
	if (rc < 0) {
		if (err[0] == '\0')
			snprintf(err, errlen, "%s: %s", cfg->socket_path, strerror(-rc));
		return rc;
	}
	has_group = listener_group(cfg->socket_group, &gid);
	if (has_group < 0) {
		snprintf(err, errlen, "socket.group \"%s\" is not a known group", cfg->socket_group);
		return has_group;
	}
	if (strlen(cfg->socket_path) >= sizeof sa.sun_path) {
		snprintf(err, errlen, "cannot bind %s: the path is longer than %zu bytes",
			 cfg->socket_path, sizeof sa.sun_path - 1);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, cfg->socket_path, strlen(cfg->socket_path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot make a socket: %s", strerror(-rc));
		return rc;
	}
	/* The socket is born with the configured mode: no window in which it
	 * is more open than that. */
	old = umask((mode_t)(~cfg->socket_mode & 0777));
	rc = bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ? 0 : -errno;
	umask(old);
	if (rc < 0) {
		snprintf(err, errlen, "cannot bind %s: %s", cfg->socket_path, strerror(-rc));
		close(fd);
		return rc;
	}
	/* Ours from here: remembered at once, so that even a failure below
	 * removes it (and only it). */
	if (lstat(cfg->socket_path, &st) == 0 && S_ISSOCK(st.st_mode)) {
		srv->path_dev = st.st_dev;
		srv->path_ino = st.st_ino;
		snprintf(srv->path, sizeof srv->path, "%s", cfg->socket_path);
	}
	rc = uv_pipe_open(&srv->pipe, fd);
	if (rc < 0) {
		snprintf(err, errlen, "cannot use the socket %s: %s", cfg->socket_path,
			 uv_strerror(rc));
		close(fd);
		return rc;
	}
	if (has_group && chown(cfg->socket_path, (uid_t)-1, gid) < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot give %s to group %s: %s", cfg->socket_path,
			 cfg->socket_group, strerror(-rc));
		return rc;
	}
	return 0;
}

/* The socket systemd passed: it must be one listening Unix stream socket.
 * Its address (a path, "@name" for an abstract one) goes into
 * srv->address. */
static int listener_adopt(struct listener *srv, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof sa;
	int n = activation_listen_fds(), fd = ACTIVATION_FDS_START, rc;

	if (n != 1) {
		snprintf(err, errlen, "systemd passed %d sockets; animd serves on exactly one", n);
		return -EINVAL;
	}
	if (!activation_is_unix_listener(fd)) {
		snprintf(err, errlen, "the socket systemd passed (fd %d) is not a listening Unix stream "
			 "socket", fd);
		return -ENOTSOCK;
	}
	memset(&sa, 0, sizeof sa);
	if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0 || len <= offsetof(struct sockaddr_un,
										 sun_path))
		snprintf(srv->address, sizeof srv->address, "an unnamed socket (fd %d)", fd);
	else if (sa.sun_path[0] == '\0')
		snprintf(srv->address, sizeof srv->address, "@%.*s",
			 (int)(len - offsetof(struct sockaddr_un, sun_path) - 1), sa.sun_path + 1);
	else
		snprintf(srv->address, sizeof srv->address, "%.*s", (int)sizeof sa.sun_path,
			 sa.sun_path);
	srv->activated = true;
	rc = uv_pipe_open(&srv->pipe, fd);
	if (rc < 0)
		snprintf(err, errlen, "cannot use the socket systemd passed: %s", uv_strerror(rc));
	return rc;
}

const char *listener_address(const struct listener *srv, bool *activated)
{
	if (activated != NULL)
		*activated = srv->activated;
	return srv->address;
}

static void listener_sweep_closed(uv_handle_t *h)
{
	struct listener *srv = h->data;

	srv->sweep_closed = true;
	listener_maybe_done(srv);
}

static void listener_pipe_closed(uv_handle_t *h)
{
	struct listener *srv = h->data;

	srv->pipe_closed = true;
	listener_maybe_done(srv);
}

int listener_open(struct control *ctl, struct listener **out, char *err, size_t errlen)
{
	struct listener *srv = calloc(1, sizeof *srv);
	int rc;

	err[0] = '\0';
	if (srv == NULL)
		return -ENOMEM;
	srv->ctl = ctl;
	rc = uv_pipe_init(ctl->loop, &srv->pipe, 0);
	if (rc < 0) {
		free(srv);
		return rc;
	}
	srv->pipe.data = srv;
	if (activation_listen_fds() != 0) {
		rc = listener_adopt(srv, err, errlen);
	} else {
		rc = listener_bind(srv, err, errlen);
		snprintf(srv->address, sizeof srv->address, "%s", ctl->cfg->socket_path);
	}
	uv_timer_init(ctl->loop, &srv->sweep);
	srv->sweep.data = srv;
	uv_timer_start(&srv->sweep, listener_sweep, listener_sweep_ms(ctl->cfg),
		       listener_sweep_ms(ctl->cfg));
	if (rc == 0) {
		rc = uv_listen((uv_stream_t *)&srv->pipe, 128, listener_on_connection);
		if (rc < 0)
			snprintf(err, errlen, "cannot listen on %s: %s", srv->address,
				 uv_strerror(rc));
	}
	if (rc < 0) {
		listener_unlink_own(srv);
		srv->closing = true;
		uv_close((uv_handle_t *)&srv->sweep, listener_sweep_closed);
		uv_close((uv_handle_t *)&srv->pipe, listener_pipe_closed);
		return rc;
	}
	*out = srv;
	return 0;
}

void listener_close(struct listener *srv, void (*done)(void *data), void *data)
{
	struct session *s, *next;

	srv->closing = true;
	srv->done = done;
	srv->done_data = data;
	/* Unlink first: from now on no new client can find us.  Under socket
	 * activation path stays empty: the socket is systemd's to remove. */
	listener_unlink_own(srv);
	for (s = srv->sessions; s != NULL; s = next) {
		next = s->next;
		session_close(s, "animd is shutting down");
	}
	uv_close((uv_handle_t *)&srv->sweep, listener_sweep_closed);
	uv_close((uv_handle_t *)&srv->pipe, listener_pipe_closed);
}
