/*
 * animclient.h - libanimclient, the C client of animd.  This is the whole
 * public interface: everything it exports begins with animc_ / ANIMC_.
 * The manual pages describe it: libanimclient(3) for the overview, and
 * animc_client_new(3), animc_play(3), animc_stream_open(3) and
 * animc_version(3) by group; every function has a page of its own name
 * (animc_stats(3) is animc_play(3)'s).
 *
 * What it does
 *   - connects to the daemon's control socket (msgpack-RPC, see
 *     libanimclient(3)) and offers every method of the service as a typed
 *     call, blocking with a timeout or asynchronous with a completion
 *     callback;
 *   - lets the caller drive it from its own event loop: the socket's fd,
 *     the poll events it wants, and animc_client_process();
 *   - delivers the daemon's events to a callback;
 *   - reads shared-memory pose streams (animc_stream_open(3)): the latest
 *     pose of an instance, or every pose in order with a count of what was
 *     dropped, always as a whole copy, never torn;
 *   - optionally reconnects after a daemon restart, reopening its streams,
 *     subscribing again and replaying its instances, and says so.
 *
 * In short (error handling left out):
 *
 *	animc_client *c;
 *	animc_stream *s;
 *	animc_instance *in;
 *	animc_stream_opts so = ANIMC_STREAM_OPTS_INIT;      (model space)
 *	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
 *	float pose[256 * 12];
 *	animc_pose_info info;
 *
 *	animc_client_new(&c);
 *	animc_client_connect(c, NULL, 2000);                ($ANIMD_SOCKET or the default)
 *	animc_stream_open(c, &so, &s);
 *	po.asset = "walker.md5anim";
 *	po.stream = s;
 *	animc_play(c, &po, &in);
 *	...each frame:
 *	animc_client_process(c);                            (events, async replies)
 *	if (animc_stream_latest(s, in->id, pose, 256 * 12, &info) == 0)
 *		draw(pose, info.element_count);             (12 floats per joint)
 *	...
 *	animc_free(in);
 *	animc_client_close(c);                              (closes s too)
 *
 * Conventions
 *   - Functions returning int give 0 (or a documented non-negative value) on
 *     success and a negative errno on failure.  The ones worth knowing:
 *       -EREMOTEIO    the daemon answered with an error: animc_client_error()
 *                     gives its code (ANIMC_ERR_NOT_FOUND, ...) and message;
 *       -ETIMEDOUT    no reply within the client's timeout (the daemon may
 *                     still carry the call out; a late reply is discarded);
 *       -ECONNRESET   the connection was lost during the call;
 *       -ENOTCONN     the client is not connected (and could not reconnect);
 *       -EPROTO       the daemon sent something this library cannot use;
 *       -EPROTONOSUPPORT  the daemon speaks another protocol version;
 *       -EINVAL       a bad argument;  -ENOMEM  out of memory.
 *     animc_strerror() turns any of them into a short English phrase.
 *   - Results are owned by the caller and freed with animc_free().  Strings
 *     and arrays inside a result live as long as the result does; never free
 *     them separately.  Out-pointers to results may be NULL when the caller
 *     does not want the result.
 *   - The library never prints, never exits, never raises a signal (every
 *     send uses MSG_NOSIGNAL) and keeps no global state: any number of
 *     clients may coexist.  Descriptors it opens are close-on-exec.
 *   - A client, and the streams opened through it, are one unit that is not
 *     thread-safe: use them from one thread at a time (lock around them if
 *     several threads share them).  Different clients are independent.
 *   - Callbacks (events, async completions, reconnection) are only ever
 *     called from animc_client_process() / animc_client_wait(), except the
 *     reconnection callback, which is called by whichever call noticed the
 *     restart.  A callback may make any call on the client, including
 *     blocking ones, but must not close it.
 *   - Instance ids: the ids this library hands out are stable for the life
 *     of the client.  They equal the daemon's ids until the first reconnect;
 *     after it the library translates in both directions, so a caller keeps
 *     using the ids it already has (animc_client_server_instance() gives the
 *     daemon's current id, for logs).
 */
#ifndef ANIMCLIENT_H
#define ANIMCLIENT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ANIMC_API __attribute__((visibility("default")))
#else
#define ANIMC_API
#endif

/* The version of this library and the protocol version it speaks: the one
 * version of animd (the top-level VERSION file; the build checks that these
 * say the same).  animc_version() is the version of the library a program
 * runs with, which may be newer than the header it was compiled against
 * (animc_version(3)). */
#define ANIMC_VERSION_MAJOR 1
#define ANIMC_VERSION_MINOR 1
#define ANIMC_VERSION_PATCH 0
#define ANIMC_PROTOCOL_VERSION 1

/* True (1) when this header is version major.minor or newer, for code that
 * uses what a later version added and must still build with an older one:
 * #if ANIMC_CHECK_VERSION(1, 1) ... animc_stats() ... #endif.  A constant
 * expression, usable in #if. */
#define ANIMC_CHECK_VERSION(major, minor)                                              \
	(ANIMC_VERSION_MAJOR > (major) ||                                              \
	 (ANIMC_VERSION_MAJOR == (major) && ANIMC_VERSION_MINOR >= (minor)))

/* Where the socket is looked for when no path is given. */
#define ANIMC_SOCKET_ENV "ANIMD_SOCKET"
#define ANIMC_SOCKET_DEFAULT "/run/animd/animd.sock"

/* The timeout used when 0 is given. */
#define ANIMC_DEFAULT_TIMEOUT_MS 10000

typedef struct animc_client animc_client;
typedef struct animc_stream animc_stream;

/* ====================================================================
 * Errors
 * ================================================================== */

/* The stable error codes of the protocol (libanimclient(3), "Errors"). */
typedef enum animc_error_code {
	ANIMC_ERR_NONE = 0,             /* the last failure was local, not the daemon's answer */
	ANIMC_ERR_BAD_REQUEST,          /* "bad_request" */
	ANIMC_ERR_UNKNOWN_METHOD,       /* "unknown_method" */
	ANIMC_ERR_NOT_FOUND,            /* "not_found" */
	ANIMC_ERR_LIMIT,                /* "limit" */
	ANIMC_ERR_ASSET_ERROR,          /* "asset_error" */
	ANIMC_ERR_UNSUPPORTED,          /* "unsupported" */
	ANIMC_ERR_SHUTTING_DOWN,        /* "shutting_down" */
	ANIMC_ERR_INTERNAL,             /* "internal" */
	ANIMC_ERR_OTHER,                /* a code newer than this library: see its name */
	/* Appended in 1.1, after OTHER so that no value moves: */
	ANIMC_ERR_PERMISSION_DENIED,    /* "permission_denied": an operator call
					   (animc_clients_kill, animc_stop_any, ...) on a
					   connection this peer may not act on */
	ANIMC_ERR_LOADING               /* "loading": an asset the call names did not finish
					   loading within the daemon's request timeout;
					   nothing was done, try again */
} animc_error_code;

/*
 * What the last failed call on this client was about.  Returns the code
 * (ANIMC_ERR_NONE when the failure was local, e.g. a timeout); *name (may be
 * NULL) gets the wire code ("not_found", "" for a local failure) and
 * *message (may be NULL) the daemon's one-line message or a description of
 * the local failure ("" when there was none).  The strings belong to the
 * client and stay valid until its next call.  A successful call does not
 * clear it.  Inside an async completion callback it describes that call.
 */
ANIMC_API animc_error_code animc_client_error(const animc_client *c, const char **name,
					      const char **message);

/* A short English phrase for a negative errno returned by this library (or
 * any errno); never NULL, never allocates, thread-safe. */
ANIMC_API const char *animc_strerror(int rc);

/* The version of the library running, "MAJOR.MINOR.PATCH": the version of
 * animd it was released with.  Never NULL, static storage. */
ANIMC_API const char *animc_version(void);

/* ====================================================================
 * Connection
 * ================================================================== */

/* Create a client, not yet connected.  0, -EINVAL (out NULL), -ENOMEM. */
ANIMC_API int animc_client_new(animc_client **out);

/*
 * The socket path a connect with `path` would use: `path` itself when not
 * NULL, else $ANIMD_SOCKET when set and not empty (ignored in setuid
 * programs), else ANIMC_SOCKET_DEFAULT.  Never NULL.
 */
ANIMC_API const char *animc_socket_path(const char *path);

/*
 * Connect to the daemon at animc_socket_path(path) and check that it speaks
 * this library's protocol (a `hello` call).  timeout_ms bounds the whole
 * connect (0: ANIMC_DEFAULT_TIMEOUT_MS, negative: no limit) and becomes the
 * client's timeout for calls (animc_client_set_timeout changes it).
 * Returns 0, or (animc_client_error's message says what to do about it):
 *   -ENOENT         no socket there: animd is not running, or listens elsewhere
 *   -ECONNREFUSED   a socket nobody answers on: animd is gone (a stale socket)
 *   -EACCES         no permission: the message names the socket's group, which
 *                   the user must join (then log in again)
 *   -ENOTSOCK       the path exists but is not a socket (a regular file, ...)
 *   -ENAMETOOLONG   the path does not fit a Unix socket address
 *   -EISCONN        the client is already connected
 *   -EREMOTEIO      the daemon refused the connection (animc_client_error():
 *                   ANIMC_ERR_LIMIT when it has too many connections)
 *   -EPROTONOSUPPORT  the daemon speaks another protocol version
 *   -ETIMEDOUT, -ECONNRESET, -ENOMEM
 * On failure the client stays usable and may connect again.  So may a
 * client whose connection was lost for good: that starts a new session, and
 * what the old one owned is gone (its instances are forgotten, its streams
 * stay readable but dead; close them).
 */
ANIMC_API int animc_client_connect(animc_client *c, const char *path, int timeout_ms);

/*
 * Disconnect and free the client, every stream opened through it (their
 * handles become invalid) and everything still pending: async calls are
 * not completed, their callbacks are not called.  The daemon ends the
 * connection's instances and streams.  NULL is allowed.
 */
ANIMC_API void animc_client_close(animc_client *c);

/* Timeout for each blocking call (and async call), in ms: 0 means
 * ANIMC_DEFAULT_TIMEOUT_MS, negative means wait forever. */
ANIMC_API void animc_client_set_timeout(animc_client *c, int timeout_ms);

/* Bytes of a client's name (hello's "name"). */
#define ANIMC_CLIENT_NAME_MAX 64

/*
 * The name this client gives the daemon in `hello` (at the next connect
 * and every reconnection), which animctl clients, the daemon's log and
 * other connections' animc_clients_list show.  By default the program's
 * name (program_invocation_short_name, its bytes that are not UTF-8 left
 * out); NULL restores that default, "" sends none.  0, or -EINVAL for a
 * name that is not UTF-8 or longer than ANIMC_CLIENT_NAME_MAX bytes.
 */
ANIMC_API int animc_client_set_name(animc_client *c, const char *name);

/* The socket path in use (or last tried); "" before the first connect. */
ANIMC_API const char *animc_client_path(const animc_client *c);

/* 1 while connected, 0 otherwise (including while waiting to reconnect). */
ANIMC_API int animc_client_connected(const animc_client *c);

/* The daemon's version string and pid from the latest `hello` (NULL / 0
 * before a successful connect). */
ANIMC_API const char *animc_client_server(const animc_client *c);
ANIMC_API uint32_t animc_client_server_pid(const animc_client *c);

/* ====================================================================
 * Event loop integration (non-blocking use)
 *
 * The socket is always non-blocking inside the library; blocking calls wait
 * with poll().  A caller with its own event loop:
 *   - watches animc_client_fd() for animc_client_poll_events() (POLLIN, and
 *     POLLOUT while requests are still queued), re-reading both after every
 *     call into the library: the fd changes after a reconnect;
 *   - also wakes after animc_client_next_timeout() ms (async call deadlines,
 *     reconnection back-off);
 *   - then calls animc_client_process().
 * ================================================================== */

/* The connected socket, or -1 when not connected. */
ANIMC_API int animc_client_fd(const animc_client *c);

/* POLLIN | (POLLOUT when output is queued); 0 when not connected. */
ANIMC_API int animc_client_poll_events(const animc_client *c);

/* Milliseconds until animc_client_process() has timed work (an async call
 * to time out, a reconnection attempt); -1 when none; 0 when due now, which
 * includes callbacks waiting and a lost connection not yet reported. */
ANIMC_API int animc_client_next_timeout(const animc_client *c);

/*
 * Do whatever can be done now without waiting: send queued requests, read
 * what has arrived, time out async calls past their deadline, attempt a due
 * reconnection (which itself makes blocking calls, bounded by the client's
 * timeout), then call the callbacks for every event and completed async
 * call, in arrival order, including those that arrived during blocking
 * calls since the last process().  Returns the number of callbacks called,
 * or -ECONNRESET once when the connection was lost and will not be
 * restored (reconnection off), -ENOTCONN when not connected.
 */
ANIMC_API int animc_client_process(animc_client *c);

/*
 * animc_client_process() after waiting up to timeout_ms (negative: forever)
 * for something to do.  Returns like process(); 0 when the time ran out.
 * Interrupted waits (EINTR) return 0 early, so a caller's signal handler
 * gets a chance to run.
 */
ANIMC_API int animc_client_wait(animc_client *c, int timeout_ms);

/* ====================================================================
 * Events
 * ================================================================== */

typedef enum animc_event_type {
	ANIMC_EVENT_UNKNOWN = 0,        /* a type newer than this library: see name */
	ANIMC_EVENT_ASSET_LOADED,       /* "asset.loaded": asset, generation */
	ANIMC_EVENT_ASSET_RELOADED,     /* "asset.reloaded": asset, generation */
	ANIMC_EVENT_ASSET_ERROR,        /* "asset.error": asset, message, generation (live version) */
	ANIMC_EVENT_ASSET_REMOVED,      /* "asset.removed": asset */
	ANIMC_EVENT_INSTANCE_ENDED,     /* "instance.ended": instance, asset, clip, time */
	ANIMC_EVENT_INSTANCE_STOPPED,   /* "instance.stopped": instance, asset, clip, time, reason */
	ANIMC_EVENT_SERVER_STOPPING,    /* "server.stopping": sent to everyone before a clean stop */
	ANIMC_EVENT_MONITOR_REQUEST,    /* "monitor.request": another connection's request, to a
					   client that called animc_monitor (not subscribable):
					   connection, pid, method, msgid, params, time */
	ANIMC_EVENT_INSTANCE_FADED,     /* "instance.faded": a cross-fade (animc_fade) completed:
					   instance, asset, clip (what it plays now), time */
	ANIMC_EVENT_LAYER_ENDED,        /* "layer.ended": a layer faded out by
					   animc_layer_remove is gone: instance, layer, clip, time */
	ANIMC_EVENT_CLIP_EVENT,         /* "clip.event": playback passed a moment of the
					   clip's events (M2): instance, asset, clip, time (the
					   moment's clip time), clip_event */
	ANIMC_EVENT_CLIENT_KILLED       /* "client.killed" (not subscribable): an operator
					   closed this connection with animc_clients_kill:
					   connection, pid, uid, client_name (who), reason,
					   message; the connection is lost next, and
					   animc_client_error() then gives the message */
} animc_event_type;

/* Subscription masks: one bit per type. */
#define ANIMC_EVENT_BIT(type) (1u << (type))
#define ANIMC_EVENTS_ASSETS                                                          \
	(ANIMC_EVENT_BIT(ANIMC_EVENT_ASSET_LOADED) | ANIMC_EVENT_BIT(ANIMC_EVENT_ASSET_RELOADED) | \
	 ANIMC_EVENT_BIT(ANIMC_EVENT_ASSET_ERROR) | ANIMC_EVENT_BIT(ANIMC_EVENT_ASSET_REMOVED))
#define ANIMC_EVENTS_INSTANCES                                                       \
	(ANIMC_EVENT_BIT(ANIMC_EVENT_INSTANCE_ENDED) | ANIMC_EVENT_BIT(ANIMC_EVENT_INSTANCE_STOPPED))
#define ANIMC_EVENTS_LAYERS                                                          \
	(ANIMC_EVENT_BIT(ANIMC_EVENT_INSTANCE_FADED) | ANIMC_EVENT_BIT(ANIMC_EVENT_LAYER_ENDED))
#define ANIMC_EVENTS_CLIP ANIMC_EVENT_BIT(ANIMC_EVENT_CLIP_EVENT)
#define ANIMC_EVENTS_ALL                                                             \
	(ANIMC_EVENTS_ASSETS | ANIMC_EVENTS_INSTANCES | ANIMC_EVENTS_LAYERS | ANIMC_EVENTS_CLIP)

/*
 * What a clip.event says beside its instance, asset and clip (added in
 * 1.1): which of the asset's events (animc_asset_info.events) playback
 * passed, where and when.  Each moment passed comes once, in the order of
 * travel; only the instance's own clip reports, not its layers'.
 */
typedef struct animc_clip_event {
	uint32_t event;                 /* its index in animc_asset_info.events */
	const char *id;                 /* its four bytes as text (\xNN: not printable) */
	uint32_t data;
	uint32_t bone;                  /* the file's bone, as stored */
	int32_t joint;                  /* that bone's joint, -1: none */
	float position[3];              /* in the bone's space */
	double time;                    /* the moment's clip time, seconds */
	double playback_time;           /* the playback time it was passed at, seconds */
	int64_t at_ns;                  /* the daemon's CLOCK_MONOTONIC then (worked out,
					   not when it was noticed) */
	int direction;                  /* 1 forward, -1 backward */
	uint64_t missed;                /* not sent before it since the last one (a burst
					   over 256 at once); 0 normally */
} animc_clip_event;

/*
 * One event.  Fields the event does not carry are NULL / 0; `instance` is
 * this library's id (see "Instance ids" above).  Borrowed: valid only during
 * the callback.
 */
typedef struct animc_event {
	animc_event_type type;
	const char *name;               /* the wire type, e.g. "asset.reloaded" */
	const char *asset;
	const char *clip;
	const char *format;
	const char *message;            /* asset.error: file, line, column, what */
	const char *reason;             /* instance.stopped */
	uint64_t generation;
	uint64_t instance;
	double time;                    /* playback time, seconds; monitor.request: when,
					   seconds since the Unix epoch; clip.event: the
					   moment's clip time */
	int live;                       /* asset.error: a good version stays in use */
	/* monitor.request (appended in 1.1; 0 / NULL for other events): */
	uint64_t connection;            /* the daemon's id of the requesting connection */
	int64_t pid;                    /* its peer's process id */
	const char *method;
	uint32_t msgid;
	const char *params;             /* its arguments, summarised and escaped */
	uint32_t layer;                 /* layer.ended: the layer's id */
	/* clip.event (appended in 1.1; NULL for other events): */
	const animc_clip_event *clip_event;
	/* client.killed (appended in 1.1): who closed this connection (also
	 * connection and pid above). */
	const char *client_name;        /* its hello name, or NULL */
	uint64_t uid;
} animc_event;

typedef void (*animc_event_fn)(animc_client *c, const animc_event *ev, void *user);

/* Set (or with fn NULL, remove) the event callback.  Events are only
 * received once subscribed (animc_subscribe), except server.stopping.
 * Events that arrive while no callback is set are dropped. */
ANIMC_API void animc_client_on_event(animc_client *c, animc_event_fn fn, void *user);

/* The name of an event type ("asset.loaded"), NULL for UNKNOWN or out of
 * range; and the type of a name (ANIMC_EVENT_UNKNOWN when not known). */
ANIMC_API const char *animc_event_name(animc_event_type type);
ANIMC_API animc_event_type animc_event_lookup(const char *name);

/* ====================================================================
 * Results
 * ================================================================== */

/* Free any result this library returned (animc_hello_info, animc_status_info, ...).
 * NULL is allowed.  Not for streams (animc_stream_close) or clients. */
ANIMC_API void animc_free(void *result);

typedef struct animc_hello_info {
	uint32_t protocol;              /* ANIMC_PROTOCOL_VERSION */
	const char *server;             /* "animd 1.1.0" */
	uint32_t pid;
	uint64_t connection;            /* the daemon's number for this connection (0 if unsent) */
	uint64_t max_message_bytes;     /* 0 if unsent */
} animc_hello_info;

typedef struct animc_status_info {
	const char *server;
	double uptime;                  /* seconds */
	const char *asset_root;
	uint32_t pid;
	uint64_t assets;                /* loaded */
	uint64_t assets_failing;
	uint64_t assets_loading;
	uint64_t directories;
	uint64_t instances;             /* every connection's */
	uint64_t connections;           /* this one included */
	uint64_t requests;
	uint64_t memory_bytes;          /* resident (the kernel's figure) */
	/* What the daemon holds by kind, counted from its objects (animc_status in
	 * animc_play(3); 0 from a daemon that does not send it): */
	struct {
		uint64_t total;         /* the four below */
		uint64_t assets;        /* the cache's live assets, by part: */
		uint64_t skeletons, clips, meshes, cameras, emitters, other;
		uint64_t streams;       /* shared-memory regions */
		uint64_t instances;
		uint64_t connections;
		/* What streams may reach: [streams] max_total_bytes in effect
		 * (not part of total; 0 from a daemon that does not send it). */
		uint64_t streams_budget;
	} memory;
	/* Files and folders the daemon leaves out because their names are not
	 * text (not UTF-8, or control characters); 0 from a daemon that does
	 * not send it.  Appended: the struct is the library's to allocate. */
	uint64_t assets_unservable;
	/* The index and the memory cap (0 from a daemon that does not send
	 * them; appended as above): assets indexed and not loaded yet, and
	 * evicted for [assets] max_memory (both load when a call names them);
	 * evictions and loads a call caused, since start; the cap in effect
	 * (0: none), and whether what is in use alone exceeds it. */
	uint64_t assets_not_loaded;
	uint64_t assets_evicted;
	uint64_t assets_evictions;
	uint64_t assets_on_demand_loads;
	uint64_t assets_cap;
	int assets_over_cap;
} animc_status_info;

/* `stats` (animc_play(3)).  Counters are
 * cumulative: rates come from two results, divided by the difference of
 * their `uptime`.  The arrays hold pointers, so that fields appended to
 * these structs later do not move the elements a caller indexes. */
typedef struct animc_stats_connection {
	uint64_t connection;            /* its id */
	int64_t pid;                    /* the peer's */
	uint64_t uid;
	double age;                     /* seconds since it was accepted */
	uint64_t requests;              /* dispatched */
	uint64_t instances, streams;    /* owned now */
	uint64_t events;                /* event types subscribed to */
	uint64_t queued_bytes;          /* output not yet taken by the kernel */
	int self;                       /* the connection that asked */
	int monitor;                    /* it called `monitor` */
} animc_stats_connection;

typedef struct animc_stats_stream {
	uint64_t stream, connection;    /* its id, its owner's */
	const char *space;              /* "model", ... */
	uint32_t rate;                  /* asked for, per second (0: on changes) */
	uint32_t instances;             /* publishing into it now */
	uint32_t channels;
	double tick_rate;               /* achieved, per second, over the last second */
	uint64_t region_bytes;
	uint64_t ticks, skipped_ticks;  /* skipped: deadlines passed over, a period behind */
	uint64_t poses;                 /* published by ticks */
	uint64_t change_poses;          /* published at once by play, seek, ... */
	uint64_t cpu_ns;                /* CPU time of its ticks */
	double cpu_us_per_pose;         /* cpu_ns / poses, in µs */
	uint32_t tick_threads;          /* its last tick ran on (0 before the first) */
	uint64_t late_ticks;            /* run after their deadline, the rate kept */
	uint64_t shared_poses;          /* of poses, copied from an instance in step */
} animc_stats_stream;

typedef struct animc_stats_log_line {
	double time;                    /* seconds since the Unix epoch */
	const char *level;              /* "error" or "warning" */
	const char *message;            /* as logged (escaped) */
} animc_stats_log_line;

typedef struct animc_stats_info {
	double uptime;                  /* seconds, monotonic */
	double time;                    /* the daemon's clock, Unix seconds */
	uint64_t requests;              /* every connection's */
	uint64_t instances;
	size_t connection_count;
	const animc_stats_connection *const *connections;
	size_t stream_count;
	const animc_stats_stream *const *streams;
	struct {
		uint64_t count, failing;        /* now */
		uint64_t loaded, reloaded, errors, removed, scans;      /* since start */
	} assets;
	uint64_t sighups, config_reloads;
	uint64_t log_errors, log_warnings;      /* lines logged since start */
	size_t recent_count;
	const animc_stats_log_line *const *recent;      /* the last ones, oldest first */
	uint64_t assets_unservable;     /* now: as animc_status_info's */
} animc_stats_info;

typedef struct animc_asset_summary {
	const char *name;               /* relative to the asset root */
	const char *format;             /* "md5mesh", "md5anim", "md5camera", ... */
	uint64_t generation;
	int ok;                         /* a good version is loaded */
	const char *error;              /* the latest load failure, or NULL */
} animc_asset_summary;

typedef struct animc_asset_list {
	size_t count;
	const animc_asset_summary *assets;      /* sorted by name */
	/* Appended in 1.1: each asset's state, in the order of assets: "ok",
	 * "loading" (indexed, not loaded yet), "failed" or "evicted" (dropped
	 * for [assets] max_memory; a request naming it loads it again). */
	const char *const *states;
} animc_asset_list;

/* One page of assets.list (animc_assets_list_page). */
typedef struct animc_asset_page {
	size_t count;
	const animc_asset_summary *assets;      /* sorted by name, after the cursor given */
	const char *cursor;     /* the next page's cursor; NULL: this was the last page */
	const char *const *states;      /* appended in 1.1: as animc_asset_list's */
} animc_asset_page;

/* Assets per page: the daemon's default and its most. */
#define ANIMC_ASSETS_PAGE_DEFAULT 1000u
#define ANIMC_ASSETS_PAGE_MAX 10000u

typedef struct animc_joint_info {
	const char *name;
	int32_t parent;                 /* -1 for a root */
	/* M2 (0 otherwise): the bone's flags as stored; billboard bones face
	 * the viewer, which only the renderer can apply: billboard is their
	 * kind, ANIMC_BILLBOARD_* (0 none; nonzero is a billboard, as this
	 * field's earlier true). */
	uint32_t bone_flags;
	int billboard;
} animc_joint_info;

#define ANIMC_BILLBOARD_NONE 0
#define ANIMC_BILLBOARD_SPHERICAL 1     /* flag 0x8: faces the viewer */
#define ANIMC_BILLBOARD_CYLINDRICAL_X 2 /* 0x10: turns about its X axis only */
#define ANIMC_BILLBOARD_CYLINDRICAL_Y 3 /* 0x20 */
#define ANIMC_BILLBOARD_CYLINDRICAL_Z 4 /* 0x40 */

typedef struct animc_clip_info {
	const char *name;
	double duration;                /* seconds */
	const char *loop;               /* authored mode: "loop", "once", "pingpong" */
	uint32_t joint_count;
	int has_bounds;
	uint32_t frame_rate;            /* 0 when not uniformly sampled */
	uint32_t frame_count;
	/* M2 sequences (has_sequence 0 otherwise): the clip is sequence
	 * `name` (its index); `ASSET#id=A.V` names it too. */
	int has_sequence;
	uint32_t anim_id, variation;
	uint32_t flags;
	double movespeed;
	int32_t frequency;
	uint32_t replay_min, replay_max;
	uint32_t blend_ms;
	int32_t alias_of;               /* the sequence whose keys it plays, or -1 */
	/* M2: 0 when the sequence's keys are in a .anim file that is missing or
	 * was rejected (listed, never played); 1 otherwise. */
	int loaded;
} animc_clip_info;

typedef struct animc_mesh_info {
	const char *name;
	const char *material;           /* may be NULL */
	uint32_t vertex_count;
	uint32_t triangle_count;
	uint32_t weight_count;
	int skinned;
	int normals;                    /* 0 none, 1 the file's; 2 (since 1.1, 0
					   before) derived from the triangles (MD5) */
} animc_mesh_info;

typedef struct animc_camera_info {
	uint32_t frame_count;
	uint32_t frame_rate;
	double duration;
	size_t cut_count;
	const uint32_t *cuts;           /* frame numbers */
} animc_camera_info;

/* An M2 attachment point (animc_asset_info.attachments). */
typedef struct animc_attachment_info {
	uint32_t index;
	uint32_t id;                    /* the file's attachment id (1 right hand, 11 head, ...) */
	uint32_t bone;                  /* the file's index of the bone it hangs on */
	uint32_t joint;                 /* that bone's joint (animc_asset_info.joints) */
	float position[3];              /* in the bone's space */
} animc_attachment_info;

/* An M2 event: what it is (animc_asset_info.events); when it happens is
 * each clip's (animc_asset_info.clip_events). */
typedef struct animc_event_info {
	uint32_t index;
	const char *id;                 /* its four bytes as text: printable ASCII but the
					   backslash as it is, every other byte as \xNN */
	uint32_t data;
	uint32_t bone;                  /* the file's bone, as stored */
	int32_t joint;                  /* that bone's joint, -1: the file has no such bone */
	float position[3];              /* in the bone's space */
} animc_event_info;

/* A moment of a clip at which one of the asset's events happens, and a
 * clip's moments in time order.  These two are complete as they are. */
typedef struct animc_event_moment {
	double time;                    /* clip time, seconds; outside [0, duration]: never passed */
	uint32_t event;                 /* index in animc_asset_info.events */
} animc_event_moment;

typedef struct animc_clip_events {
	size_t count;
	const animc_event_moment *moments;
} animc_clip_events;

typedef struct animc_asset_info {
	const char *name;
	const char *format;
	int32_t version;                /* the file format's version */
	uint64_t bytes;                 /* file size */
	const char *up;                 /* axes: "z", "y", ... */
	const char *handedness;
	uint64_t generation;
	const char *error;              /* latest load failure, or NULL */
	double loaded_at;               /* seconds, daemon clock */
	double load_ms;
	int has_skeleton;
	int bind_pose;                  /* the skeleton has a bind pose */
	size_t joint_count;
	const animc_joint_info *joints;
	size_t clip_count;
	const animc_clip_info *clips;
	size_t mesh_count;
	const animc_mesh_info *meshes;
	size_t camera_count;
	const animc_camera_info *cameras;
	/* Added after 0.1's first fields, so older callers are unaffected. */
	uint32_t ticks_per_second;      /* .x: what key times are divided by; 0 otherwise */
	int ticks_from_file;            /* .x: 1 if the file's AnimTicksPerSecond said so */
	const char *note;               /* what the load had to leave out, one line, or NULL */
	/* M2: particle emitters (a stream of space EMITTERS publishes them)
	 * and the lengths of the global sequences, in seconds. */
	size_t emitter_count;
	size_t global_sequence_count;
	const double *global_sequences;
	/* M2 (appended in 1.1; 0 / NULL otherwise): attachment points and
	 * events, as arrays of pointers (fields appended to their structs
	 * later move nothing a caller indexes), and per clip (clip_count
	 * entries, in the order of clips) the moments of its events. */
	size_t attachment_count;
	const animc_attachment_info *const *attachments;
	size_t event_count;
	const animc_event_info *const *events;
	const animc_clip_events *clip_events;
	/* Appended in 1.1: what the file holds that animd does not evaluate,
	 * or that the game or tool that made it ignores, and animd accepted:
	 * one located line each ("NAME:12:3: note: ..."), none for most files. */
	size_t note_count;
	const char *const *notes;
	/* glTF (appended in 1.1; 0 / NULL otherwise): the morph targets'
	 * weights, in the order of a WEIGHTS stream's floats: their names
	 * ("node/target") and their defaults (what a clip does not animate
	 * holds). */
	size_t weight_count;
	const char *const *weight_names;
	const float *weight_defaults;
} animc_asset_info;

typedef enum animc_loop {
	ANIMC_LOOP_DEFAULT = 0,         /* the clip's authored mode (on input) / not reported */
	ANIMC_LOOP_LOOP,
	ANIMC_LOOP_ONCE,                /* holds the last pose, sends instance.ended */
	ANIMC_LOOP_PINGPONG
} animc_loop;

typedef enum animc_root_motion {
	ANIMC_ROOT_DEFAULT = 0,         /* raw (on input) / not reported */
	ANIMC_ROOT_RAW,                 /* as authored */
	ANIMC_ROOT_IN_PLACE             /* Doom's accumulated loop delta removed */
} animc_root_motion;

typedef enum animc_space {
	ANIMC_SPACE_DEFAULT = 0,        /* the asset's own default (sample only) */
	ANIMC_SPACE_LOCAL,              /* per joint t xyz, r xyzw, s xyz: 10 floats */
	ANIMC_SPACE_MODEL,              /* per joint a 3x4 row-major matrix: 12 floats */
	ANIMC_SPACE_SKIN,               /* model x inverse bind: 12 floats */
	ANIMC_SPACE_VERTICES,           /* per vertex xyz, meshes in file order: 3 floats */
	ANIMC_SPACE_CAMERA,             /* position xyz, orientation xyzw, fov: 8 floats */
	ANIMC_SPACE_EMITTERS,           /* per M2 particle emitter: 3x4 model-space matrix,
					   the ten parameters (ANIMC_EMITTER_*), enabled,
					   0: 24 floats */
	ANIMC_SPACE_ATTACHMENTS,        /* per M2 attachment point: an
					   animc_attachment_element, 16 floats' room */
	ANIMC_SPACE_WEIGHTS             /* per glTF morph target weight: 1 float */
} animc_space;

/* The ten animated parameters of an M2 particle emitter, in the order of
 * animc_emitter_pose.params and of a stream's emitter floats 12..21. */
enum {
	ANIMC_EMITTER_EMISSION_SPEED,
	ANIMC_EMITTER_SPEED_VARIATION,
	ANIMC_EMITTER_VERTICAL_RANGE,
	ANIMC_EMITTER_HORIZONTAL_RANGE,
	ANIMC_EMITTER_GRAVITY,
	ANIMC_EMITTER_LIFESPAN,
	ANIMC_EMITTER_EMISSION_RATE,
	ANIMC_EMITTER_AREA_LENGTH,
	ANIMC_EMITTER_AREA_WIDTH,
	ANIMC_EMITTER_Z_SOURCE,
	ANIMC_EMITTER_PARAMS
};

/* The wire name of emitter parameter k ("emission_speed", ...), NULL out
 * of range. */
ANIMC_API const char *animc_emitter_param_name(int k);

/* Wire names of the enums above ("loop", "in_place", "model"); NULL for
 * DEFAULT or out of range.  And back: the value for a name, or -1. */
ANIMC_API const char *animc_loop_name(animc_loop v);
ANIMC_API const char *animc_root_motion_name(animc_root_motion v);
ANIMC_API const char *animc_space_name(animc_space v);
ANIMC_API int animc_loop_lookup(const char *name);
ANIMC_API int animc_root_motion_lookup(const char *name);
ANIMC_API int animc_space_lookup(const char *name);
/* Floats per element of a space (10, 12, 12, 3, 8, 24, 16, 1); 0 for DEFAULT. */
ANIMC_API unsigned animc_space_floats(animc_space v);

typedef enum animc_state {
	ANIMC_STATE_UNKNOWN = 0,
	ANIMC_STATE_PLAYING,
	ANIMC_STATE_PAUSED,
	ANIMC_STATE_ENDED,              /* a clip played once reached its end and holds */
	ANIMC_STATE_STOPPED             /* the result of animc_stop */
} animc_state;

/* One layer of an instance's stack (animc_layer_add, and the cross-fades
 * of animc_fade while they run), bottom-up in animc_instance.layers. */
typedef struct animc_layer {
	uint32_t id;                    /* unique in its instance */
	const char *mode;               /* "override", "additive" or "fade" */
	const char *asset;
	const char *clip;
	double weight;                  /* now */
	double target;                  /* where its fade ends (its weight when none runs) */
	double fade_left;               /* seconds until then, 0: no fade */
	int removing;                   /* animc_layer_remove is fading it out */
	double time;                    /* its playback time, seconds */
	double clip_time;
	double speed;
	animc_loop loop;
	size_t mask_count;              /* 0: every joint */
	const char *const *mask_joints; /* subtree roots */
	const double *mask_weights;
	const char *reference_clip;     /* additive: its reference pose, else NULL */
	double reference_time;
} animc_layer;

/* An instance's state, as play, pause, resume, seek, speed, stop and
 * instances.list report it. */
typedef struct animc_instance {
	uint64_t id;                    /* this library's id (see "Instance ids") */
	const char *asset;
	const char *clip;               /* NULL for a camera */
	const char *mesh;               /* NULL without a mesh */
	animc_state state;
	const char *state_name;         /* "playing", ... as sent */
	double time;                    /* playback time, seconds */
	double clip_time;               /* where that lands in the clip */
	double duration;                /* the clip's length */
	double speed;
	animc_loop loop;
	animc_root_motion root_motion;
	uint64_t generation;            /* the asset version it plays */
	uint64_t stream;                /* the daemon's stream id it publishes to, 0: none */
	int32_t channel;                /* its channel in that stream, -1: none */
	size_t layer_count;             /* its layer stack, bottom-up */
	const animc_layer *layers;
} animc_instance;

typedef struct animc_instance_list {
	size_t count;
	const animc_instance *instances;        /* in id order */
} animc_instance_list;

/* One joint of a sampled pose: t, r, s for the local space, m (3x4 row
 * major: rotation-scale columns 0..2, translation column 3) otherwise. */
typedef struct animc_joint_pose {
	const char *name;
	int32_t parent;
	float t[3];
	float r[4];                     /* x y z w */
	float s[3];
	float m[12];
} animc_joint_pose;

/* One M2 particle emitter of a sampled pose. */
typedef struct animc_emitter_pose {
	uint32_t index;                 /* in the file */
	uint32_t bone;                  /* the bone it hangs on (file index) */
	float m[12];                    /* model-space 3x4, row-major */
	int enabled;
	float params[ANIMC_EMITTER_PARAMS];
} animc_emitter_pose;

/* One M2 attachment point of a sampled pose. */
typedef struct animc_attachment_pose {
	uint32_t index;                 /* in the file */
	uint32_t id;                    /* the file's attachment id (1 right hand, 11 head, ...) */
	uint32_t bone;                  /* the bone it hangs on (file index) */
	uint32_t joint;                 /* the same bone's joint (index in joints) */
	float position[3];              /* in that joint's space */
	float m[12];                    /* model-space 3x4, row-major: the joint's
					   skin matrix times the position */
	int animate;                    /* whether a model hung there animates */
} animc_attachment_pose;

typedef struct animc_mesh_pose {
	const char *name;
	size_t vertex_count;
	const float *positions;         /* xyz per vertex */
	const float *normals;           /* unit xyz per vertex (skinned, or derived
					   for MD5), or NULL when the mesh has none */
} animc_mesh_pose;

/* One mesh's influences (sample with ANIMC_SAMPLE_SKIN_WEIGHTS): vertex v's
 * are the next counts[v] entries of joints and values, vertex after vertex.
 * values are the file's own, not normalised (animc_sample(3)). */
typedef struct animc_skin_weights {
	size_t vertex_count;
	const uint32_t *counts;
	size_t influence_count;         /* the sum of counts */
	const uint32_t *joints;         /* indices into the skeleton's joints */
	const float *values;
} animc_skin_weights;

/* The result of animc_sample: one evaluated pose. */
typedef struct animc_pose {
	const char *asset;
	const char *clip;               /* NULL for a camera */
	double time;                    /* as asked */
	double clip_time;               /* where it landed in the clip */
	int64_t cycles;                 /* loops completed */
	animc_space space;
	const char *root_motion;        /* NULL for a camera */
	int has_bounds;
	float bounds_min[3];
	float bounds_max[3];
	size_t joint_count;             /* local, model, skin */
	const animc_joint_pose *joints;
	size_t mesh_count;              /* vertices */
	const animc_mesh_pose *meshes;
	int has_camera;                 /* camera */
	float camera_position[3];
	float camera_orientation[4];    /* x y z w */
	float camera_fov;               /* degrees */
	size_t emitter_count;           /* emitters */
	const animc_emitter_pose *emitters;
	size_t attachment_count;        /* attachments */
	const animc_attachment_pose *attachments;
	/* glTF (appended in 1.1): weights */
	size_t weight_count;
	const float *weights;           /* each morph weight's value */
	const char *const *weight_names;        /* and its name */
	/* Appended in 1.1: with ANIMC_SAMPLE_SKIN_WEIGHTS, mesh_count entries,
	 * one per mesh in order; else NULL. */
	const animc_skin_weights *skin_weights;
} animc_pose;

/* ====================================================================
 * Calls
 *
 * Every method of the service, blocking: each sends the request and waits
 * for its reply within the client's timeout, and returns 0 with *out set
 * (free it with animc_free), or a negative errno (see "Conventions"; a
 * daemon error is -EREMOTEIO).  Events and async completions arriving
 * meanwhile are kept for the next animc_client_process().
 *
 * With reconnection on (animc_client_set_reconnect), a call made while the
 * daemon is away waits for it within its timeout; a call whose connection
 * is lost before its reply arrives is sent again once, after the
 * reconnection.
 * ================================================================== */

/* `hello`: the daemon's protocol, version and pid. */
ANIMC_API int animc_hello(animc_client *c, animc_hello_info **out);

/* `status`: uptime, counts and memory of the whole daemon. */
ANIMC_API int animc_status(animc_client *c, animc_status_info **out);

/* `stats`: connections, streams (ticks, skipped ticks, publishing cost),
 * cache and log counters: what animctl top shows. */
ANIMC_API int animc_stats(animc_client *c, animc_stats_info **out);

/* `monitor`: from now on this connection gets an ANIMC_EVENT_MONITOR_REQUEST
 * event for every request another connection makes (the event callback must
 * be set; no subscription is needed).  Not renewed after a reconnection. */
ANIMC_API int animc_monitor(animc_client *c);

/* `assets.list`: every asset under the root, sorted by name.  Asks for it
 * a page at a time (animc_assets_list_page), so that any tree is listed;
 * an asset present throughout is listed once even while others come and
 * go.  (A daemon from before paging is asked for the whole list at once.) */
ANIMC_API int animc_assets_list(animc_client *c, animc_asset_list **out);

/* `assets.list` one page at a time: at most `limit` assets (1 to
 * ANIMC_ASSETS_PAGE_MAX; 0: the daemon's default, ANIMC_ASSETS_PAGE_DEFAULT)
 * whose names sort after `cursor` (NULL for the first page: then the
 * previous page's cursor, until it is NULL).  A page may hold fewer than
 * `limit` even when more follow (a page stays within the daemon's reply
 * size): follow the cursor, never the count. */
ANIMC_API int animc_assets_list_page(animc_client *c, const char *cursor, uint32_t limit,
				     animc_asset_page **out);

/* `assets.info`: one asset in detail.  -EREMOTEIO with ANIMC_ERR_NOT_FOUND
 * when there is no such asset. */
ANIMC_API int animc_assets_info(animc_client *c, const char *asset, animc_asset_info **out);

/* `assets.reload`: re-read the file now; *generation (may be NULL) gets the
 * new generation.  A file that fails to parse is ANIMC_ERR_ASSET_ERROR and
 * the last good version stays live. */
ANIMC_API int animc_assets_reload(animc_client *c, const char *asset, uint64_t *generation);

/* What `assets.reload` answered (animc_assets_reload_info). */
typedef struct animc_reload_info {
	uint64_t generation;            /* the live version now */
	int unchanged;                  /* the file's bytes were the live version's:
					   nothing was reloaded, no event sent */
	const char *asset;
} animc_reload_info;

/* `assets.reload` with its whole answer: *out gets whether the file had
 * changed (free it with animc_free). */
ANIMC_API int animc_assets_reload_info(animc_client *c, const char *asset,
				       animc_reload_info **out);

/*
 * Options of animc_play.  Initialise with ANIMC_PLAY_OPTS_INIT (or
 * animc_play_opts_init): a zeroed struct means speed 0, which holds.
 */
typedef struct animc_play_opts {
	const char *asset;              /* required */
	const char *clip;               /* NULL: the asset's first clip */
	const char *mesh;               /* an md5mesh supplying skeleton and bind pose */
	animc_loop loop;                /* DEFAULT: the clip's authored mode */
	double speed;                   /* 1 normal, negative backwards, 0 holds */
	double start;                   /* playback time to start at, seconds */
	animc_root_motion root_motion;  /* DEFAULT: raw */
	animc_stream *stream;           /* publish the poses into this stream, or NULL */
	/* CLOCK_MONOTONIC nanoseconds at which the playback time is `start`
	 * (`play`'s "at"); 0: when the daemon handles the play.  Instances
	 * played with one at_ns, start and speed are in step, and a stream
	 * evaluates a run of them once.  A replay after a reconnection plays
	 * it with the same at_ns and start, so a crowd stays in step, unless
	 * its clock was changed since (pause, resume, seek, speed, a switch, a
	 * layer set or removed) or at_ns is 23 hours old: then from its time. */
	int64_t at_ns;
	/* Nonzero: no clip.event from this instance (`play`'s "events":
	 * false); a replay after a reconnection keeps it. */
	int32_t no_events;
	uint32_t reserved_bits;         /* zero */
	/* Room for fields added later without changing this struct's size
	 * (LP64): leave zero (the _INIT macros and = { 0 } do). */
	void *reserved[2];
} animc_play_opts;

#define ANIMC_PLAY_OPTS_INIT { .speed = 1.0 }
ANIMC_API void animc_play_opts_init(animc_play_opts *o);

/*
 * `play`: start an instance, which belongs to this connection (other
 * connections cannot steer it: only an operator may stop, pause or resume
 * it, animc_stop_any) and ends when the connection closes.
 * *out describes it; its id is out->id.  With o->stream, its poses are
 * published into that stream (read them with animc_stream_latest/next).
 * The library remembers what it needs to replay the instance after a
 * reconnection.
 */
ANIMC_API int animc_play(animc_client *c, const animc_play_opts *o, animc_instance **out);

/* Freeze / continue an instance's clock (idempotent); jump to `time`
 * seconds (a paused instance stays paused); set the speed from now on.
 * *out (may be NULL) gets the new state.  ANIMC_ERR_NOT_FOUND when the
 * instance does not exist or belongs to another connection. */
ANIMC_API int animc_pause(animc_client *c, uint64_t instance, animc_instance **out);
ANIMC_API int animc_resume(animc_client *c, uint64_t instance, animc_instance **out);
ANIMC_API int animc_seek(animc_client *c, uint64_t instance, double time, animc_instance **out);
ANIMC_API int animc_speed(animc_client *c, uint64_t instance, double speed, animc_instance **out);

/*
 * Options of animc_fade.  Initialise with ANIMC_FADE_OPTS_INIT (or
 * animc_fade_opts_init).
 */
typedef struct animc_fade_opts {
	const char *asset;              /* NULL: the instance's */
	const char *clip;               /* NULL: the asset's first clip */
	double fade;                    /* seconds; ANIMC_FADE_DEFAULT: an M2 sequence's
					   blend_ms, else playback.default_fade_ms; 0 cuts */
	int sync;                       /* start at the old clip's phase (not with start) */
	animc_loop loop;                /* DEFAULT: the clip's authored mode */
	double speed;
	double start;
	void *reserved[4];
} animc_fade_opts;

#define ANIMC_FADE_DEFAULT (-1.0)
#define ANIMC_FADE_OPTS_INIT { .fade = ANIMC_FADE_DEFAULT, .speed = 1.0 }
ANIMC_API void animc_fade_opts_init(animc_fade_opts *o);

/* `play` on an existing instance: cross-fade it from what it shows now to
 * another clip (the fade is a layer of the stack until it completes, with
 * ANIMC_EVENT_INSTANCE_FADED).  *out (may be NULL) gets the new state; a
 * replay after a reconnection plays the clip of the last state seen. */
ANIMC_API int animc_fade(animc_client *c, uint64_t instance, const animc_fade_opts *o,
			 animc_instance **out);

typedef enum animc_layer_mode {
	ANIMC_LAYER_OVERRIDE = 0,       /* lerp toward the layer by its weight */
	ANIMC_LAYER_ADDITIVE            /* add its difference from a reference pose */
} animc_layer_mode;

/* Options of animc_layer_add.  Initialise with ANIMC_LAYER_OPTS_INIT. */
typedef struct animc_layer_opts {
	const char *asset;              /* NULL: the instance's */
	const char *clip;               /* NULL: the asset's first clip */
	animc_layer_mode mode;
	double weight;                  /* 0 to 1 */
	double fade;                    /* seconds to fade in from 0, 0: at once */
	size_t mask_count;              /* 0: every joint */
	const char *const *mask_joints; /* subtree roots, by joint name */
	const double *mask_weights;     /* one per root, or NULL for 1 */
	double speed;
	double start;
	animc_loop loop;
	const char *reference_clip;     /* additive: NULL for its own clip */
	double reference_time;          /* additive: 0 for the first frame */
	void *reserved[4];
} animc_layer_opts;

#define ANIMC_LAYER_OPTS_INIT { .weight = 1.0, .speed = 1.0 }
ANIMC_API void animc_layer_opts_init(animc_layer_opts *o);

/* `layer.add`, `layer.set`, `layer.remove`: put a layer on top of the
 * instance's stack (*layer gets its id), move its weight to `weight` over
 * `fade` seconds, remove it (at once, or fading out over `fade` seconds
 * and then ANIMC_EVENT_LAYER_ENDED).  *out (may be NULL) gets the new
 * state.  Layers are not replayed after a reconnection. */
ANIMC_API int animc_layer_add(animc_client *c, uint64_t instance, const animc_layer_opts *o,
			      uint32_t *layer, animc_instance **out);
ANIMC_API int animc_layer_set(animc_client *c, uint64_t instance, uint32_t layer, double weight,
			      double fade, animc_instance **out);
ANIMC_API int animc_layer_remove(animc_client *c, uint64_t instance, uint32_t layer, double fade,
				 animc_instance **out);

/* End an instance; *out (may be NULL) gets its last state ("stopped"). */
ANIMC_API int animc_stop(animc_client *c, uint64_t instance, animc_instance **out);

/* `instances.list`: this connection's instances. */
ANIMC_API int animc_instances_list(animc_client *c, animc_instance_list **out);

/* ====================================================================
 * Clients and operators
 *
 * Every connection may see the others (animc_clients_list,
 * animc_instances_list_all).  Acting on another connection is an operator
 * call (animc_clients_kill, animc_stop_any, animc_pause_any,
 * animc_resume_any): the daemon's [control] operators setting says who
 * may, by default root, the user animd runs as and a peer of the same
 * user as the connection acted on (as kill does for processes); others
 * get -EREMOTEIO with ANIMC_ERR_PERMISSION_DENIED.  These calls speak the daemon's instance
 * ids (those animc_instances_list_all reports), not this library's.
 * ================================================================== */

/* One connection, as `clients.list` reports it. */
typedef struct animc_client_info {
	uint64_t connection;            /* its id (hello's, the daemon log's) */
	const char *name;               /* what it called itself, or NULL */
	int64_t pid;                    /* the peer's, SO_PEERCRED */
	uint64_t uid, gid;
	double since;                   /* when it connected, Unix seconds (daemon clock) */
	double age;                     /* seconds since */
	uint64_t requests;              /* dispatched */
	uint64_t instances, streams;    /* owned now */
	uint64_t events;                /* event types subscribed to */
	int monitor;                    /* it called `monitor` */
	int self;                       /* it is the connection asking */
	uint64_t queued_bytes;          /* output not yet taken by the kernel */
	uint64_t memory_bytes;          /* what the daemon holds for it */
} animc_client_info;

typedef struct animc_client_list {
	size_t count;
	/* Pointers, so that fields appended to animc_client_info later move
	 * nothing a caller indexes; in the order they connected. */
	const animc_client_info *const *clients;
} animc_client_list;

/* `clients.list`: every connection, this one included. */
ANIMC_API int animc_clients_list(animc_client *c, animc_client_list **out);

/* What animc_clients_kill closed. */
typedef struct animc_kill_info {
	uint64_t connection;
	const char *name;               /* its hello name, or NULL */
	int64_t pid;
	uint64_t instances, streams;    /* what it owned, ended with it */
} animc_kill_info;

/*
 * `clients.kill`: close another connection (its instances stop, its
 * streams close), telling it who did and why (`reason`, may be NULL; at
 * most 200 bytes); the daemon logs it.  *out (may be NULL) says what was
 * closed.  ANIMC_ERR_NOT_FOUND for no such connection,
 * ANIMC_ERR_PERMISSION_DENIED (above), ANIMC_ERR_BAD_REQUEST for this
 * connection itself.
 */
ANIMC_API int animc_clients_kill(animc_client *c, uint64_t connection, const char *reason,
				 animc_kill_info **out);

/* An instance of any connection (animc_instances_list_all). */
typedef struct animc_owned_instance {
	const animc_instance *instance; /* its state; its id is the daemon's */
	uint64_t connection;            /* the connection that owns it */
	const char *client;             /* that connection's hello name, or NULL */
	int own;                        /* it is this client's (animc_instances_list
					   gives it with this library's id) */
} animc_owned_instance;

typedef struct animc_owned_instance_list {
	size_t count;
	const animc_owned_instance *const *instances;   /* in creation order */
} animc_owned_instance_list;

/* `instances.list` with "all": every connection's instances, each with
 * its owner. */
ANIMC_API int animc_instances_list_all(animc_client *c, animc_owned_instance_list **out);

/* `stop`, `pause`, `resume` with "any": the instance of whichever
 * connection owns it (`instance` is the daemon's id); an operator call
 * (above).  Its owner is sent instance.stopped with reason "operator"
 * (for a stop).  *out (may be NULL) gets the new state, with the daemon's
 * id. */
ANIMC_API int animc_stop_any(animc_client *c, uint64_t instance, animc_instance **out);
ANIMC_API int animc_pause_any(animc_client *c, uint64_t instance, animc_instance **out);
ANIMC_API int animc_resume_any(animc_client *c, uint64_t instance, animc_instance **out);

/* A layer blended over a sampled pose (animc_sample_opts.layers), as a
 * layer of animc_layer_add at a time of its own, or animd sample's --blend
 * and --additive. */
typedef struct animc_sample_layer {
	const char *asset;              /* NULL: the sample's asset */
	const char *clip;               /* NULL: the asset's first clip */
	double time;                    /* its playback time, seconds */
	double weight;                  /* 0 to 1 */
	animc_layer_mode mode;
	size_t mask_count;              /* 0: every joint */
	const char *const *mask_joints; /* subtree roots, by joint name */
	const double *mask_weights;     /* one per root, or NULL for 1 */
	const char *reference_clip;     /* additive: NULL for its own clip */
	double reference_time;          /* additive: 0 for the first frame */
	void *reserved[4];
} animc_sample_layer;

/* Options of animc_sample; zero means default for every field but asset and
 * time. */
typedef struct animc_sample_opts {
	const char *asset;              /* required */
	const char *clip;               /* NULL: the first clip */
	const char *mesh;
	double time;                    /* seconds */
	animc_space space;              /* DEFAULT: the asset's default */
	animc_loop loop;
	animc_root_motion root_motion;
	/* Appended in 1.1, in room kept for it: layers blended over the pose
	 * before any space is computed (sample's "layers", at most 16), an
	 * array of layer_count pointers; NULL and 0 for none. */
	const animc_sample_layer *const *layers;
	size_t layer_count;
	/* Appended in 1.1, in room kept for it: ANIMC_SAMPLE_* bits. */
	unsigned flags;
	/* Room for fields added later without changing this struct's size:
	 * leave zero (the _INIT macros and = { 0 } do). */
	void *reserved[1];
} animc_sample_opts;

/* animc_sample_opts.flags (1.1).  BIND: the bind pose, the pose the meshes
 * were bound in (sample's "bind"; time, clip, loop, root_motion and layers
 * are not sent).  SKIN_WEIGHTS: with the vertices space, each mesh's
 * influences in animc_pose.skin_weights (sample's "skin_weights"). */
#define ANIMC_SAMPLE_BIND               (1u << 0)
#define ANIMC_SAMPLE_SKIN_WEIGHTS       (1u << 1)

/* `sample`: evaluate one pose without creating an instance. */
ANIMC_API int animc_sample(animc_client *c, const animc_sample_opts *o, animc_pose **out);

/*
 * `subscribe`: receive the events in `mask` (ANIMC_EVENT_BIT of each type,
 * e.g. ANIMC_EVENTS_ALL), replacing the previous set; 0 unsubscribes.
 * *in_force (may be NULL) gets the set the daemon confirmed.  Remembered
 * and renewed after a reconnection.  A subscriber must keep reading its
 * socket (animc_client_process), or the daemon eventually disconnects it.
 */
ANIMC_API int animc_subscribe(animc_client *c, unsigned mask, unsigned *in_force);

/* ====================================================================
 * Async calls
 *
 * The same calls without waiting: the request is queued (and sent as far as
 * the socket takes it), and `done` is called from a later
 * animc_client_process() with the outcome: status 0 and `result` pointing
 * to the type the blocking call would have returned (borrowed: valid during
 * the callback only), or a negative errno and result NULL (-ETIMEDOUT after
 * the client's timeout, -ECONNRESET if the connection is lost first; async
 * calls are not sent again after a reconnection).  animc_client_error()
 * describes a failure during the callback.  Returns 0 when queued, or a
 * negative errno (then `done` is never called): -ENOTCONN, -EINVAL,
 * -ENOMEM, -ENOBUFS when more than 16 MiB of requests are queued unsent.
 *
 * Result types: hello animc_hello_info, status animc_status_info, stats
 * animc_stats_info, assets_list
 * animc_asset_list (in one reply: a list over the daemon's reply size fails
 * with ANIMC_ERR_LIMIT; page it), assets_list_page animc_asset_page,
 * assets_info animc_asset_info, assets_reload uint64_t
 * (the generation), play / pause / resume / seek / speed / stop
 * animc_instance, instances_list animc_instance_list, sample animc_pose,
 * subscribe unsigned (the mask in force), stream_close NULL.
 * ================================================================== */

typedef void (*animc_done_fn)(animc_client *c, int status, const void *result, void *user);

ANIMC_API int animc_hello_async(animc_client *c, animc_done_fn done, void *user);
ANIMC_API int animc_status_async(animc_client *c, animc_done_fn done, void *user);
ANIMC_API int animc_stats_async(animc_client *c, animc_done_fn done, void *user);
ANIMC_API int animc_assets_list_async(animc_client *c, animc_done_fn done, void *user);
ANIMC_API int animc_assets_list_page_async(animc_client *c, const char *cursor, uint32_t limit,
					   animc_done_fn done, void *user);
ANIMC_API int animc_assets_info_async(animc_client *c, const char *asset, animc_done_fn done,
				     void *user);
ANIMC_API int animc_assets_reload_async(animc_client *c, const char *asset, animc_done_fn done,
				       void *user);
ANIMC_API int animc_play_async(animc_client *c, const animc_play_opts *o, animc_done_fn done,
			       void *user);
ANIMC_API int animc_pause_async(animc_client *c, uint64_t instance, animc_done_fn done,
				void *user);
ANIMC_API int animc_resume_async(animc_client *c, uint64_t instance, animc_done_fn done,
				 void *user);
ANIMC_API int animc_seek_async(animc_client *c, uint64_t instance, double time,
			       animc_done_fn done, void *user);
ANIMC_API int animc_speed_async(animc_client *c, uint64_t instance, double speed,
				animc_done_fn done, void *user);
ANIMC_API int animc_stop_async(animc_client *c, uint64_t instance, animc_done_fn done,
			       void *user);
ANIMC_API int animc_instances_list_async(animc_client *c, animc_done_fn done, void *user);
ANIMC_API int animc_sample_async(animc_client *c, const animc_sample_opts *o,
				 animc_done_fn done, void *user);
ANIMC_API int animc_subscribe_async(animc_client *c, unsigned mask, animc_done_fn done,
				    void *user);

/* ====================================================================
 * Pose streams
 *
 * A stream is a shared-memory region the daemon writes and this library
 * maps read-only.  It has `channels` channels; each instance played into
 * the stream owns one and publishes a pose per tick (rate_hz) and at once
 * on play, seek, pause, resume and speed.  Each channel keeps the last
 * `depth` poses.  Reading never blocks the daemon and never returns a torn
 * pose: the library copies the pose, checks the seqlock (and the payload
 * checksum) and retries a bounded number of times.
 * ================================================================== */

/* Use the daemon's configured publish rate. */
#define ANIMC_RATE_DEFAULT (-1)

typedef struct animc_stream_opts {
	animc_space space;              /* required: any but DEFAULT */
	int rate_hz;                    /* ANIMC_RATE_DEFAULT, 0 (only on changes) or 1..1000 */
	uint32_t channels;              /* instances at once; 0: the daemon's default (16) */
	uint32_t max_elements;          /* joints (vertices) per pose; 0: default (256) */
	uint32_t depth;                 /* poses kept per channel, a power of two; 0: default (8) */
	/* ANIMC_SPACE_VERTICES only: nonzero gives each vertex its skinned
	 * normal after its position (6 floats a vertex: x y z nx ny nz). */
	uint32_t normals;
	uint32_t reserved_bits;         /* zero */
	/* Room for fields added later without changing this struct's size:
	 * leave zero (the _INIT macros and = { 0 } do). */
	void *reserved[3];
} animc_stream_opts;

#define ANIMC_STREAM_OPTS_INIT { .space = ANIMC_SPACE_MODEL, .rate_hz = ANIMC_RATE_DEFAULT }

/*
 * `stream.open`: create a stream and map it.  The region's descriptor
 * arrives with the reply; the library checks it is a sealed memfd of at
 * least the announced size and validates the header before using any offset
 * in it.  Blocking only.  *out is owned by the client: close it with
 * animc_stream_close, or it is closed with the client.  After a
 * reconnection the handle stays valid and is remapped onto a new stream
 * with the same options (its id and epoch change).
 */
ANIMC_API int animc_stream_open(animc_client *c, const animc_stream_opts *o, animc_stream **out);

/* `stream.close` (when connected), then unmap and free the handle, which
 * becomes invalid whatever is returned.  Instances that were publishing into
 * it keep playing.  NULL is allowed (returns 0). */
ANIMC_API int animc_stream_close(animc_stream *s);
ANIMC_API int animc_stream_close_async(animc_stream *s, animc_done_fn done, void *user);

typedef struct animc_stream_info {
	uint64_t id;                    /* the daemon's stream id (changes on reconnection) */
	uint64_t epoch;                 /* random per daemon run */
	animc_space space;
	uint32_t rate_hz;
	uint32_t channels;
	uint32_t depth;
	uint32_t max_elements;
	uint32_t floats_per_element;
	uint64_t region_bytes;
	uint64_t ticks;                 /* the daemon's ticks so far */
	int live;                       /* 0 once the daemon closed it or stopped */
	void *reserved[4];               /* room for fields added later; the library zeroes it */
} animc_stream_info;

/* Fill *info.  0 or -EINVAL. */
ANIMC_API int animc_stream_info_get(const animc_stream *s, animc_stream_info *info);

/* Floats a buffer needs to hold any pose of this stream:
 * max_elements * floats_per_element. */
ANIMC_API size_t animc_stream_pose_floats(const animc_stream *s);

/* animc_pose_info.flags */
#define ANIMC_POSE_PAUSED 0x1u          /* the instance was paused when sampled */
#define ANIMC_POSE_ENDED 0x2u           /* a clip played once has reached its end */
#define ANIMC_POSE_IN_PLACE 0x4u        /* root motion in_place */

/* What came with a pose copied out of a stream. */
typedef struct animc_pose_info {
	uint64_t instance;              /* this library's id */
	uint64_t seq;                   /* the pose's number in its channel, from 0 */
	uint64_t tick;                  /* the stream tick that published it */
	double clip_time;               /* seconds */
	uint64_t generation;            /* the asset version sampled */
	uint32_t element_count;         /* elements in the pose (also when -ENOBUFS) */
	uint32_t floats_per_element;
	uint32_t flags;                 /* ANIMC_POSE_* */
	int64_t publish_ns;             /* the daemon's CLOCK_MONOTONIC when written */
	uint64_t epoch;                 /* the stream's epoch */
	void *reserved[4];               /* room for fields added later; the library zeroes it */
} animc_pose_info;

/*
 * Copy the newest pose of `instance` in this stream into buf (buf_floats
 * floats: element_count * floats_per_element are written) and describe it
 * in *info (may be NULL).  Returns 0, or:
 *   -ENOENT   the instance publishes in no channel of this stream (once the
 *             daemon has closed the stream, or stopped, its last poses stay
 *             readable: they are found by the instance ids in the slots)
 *   -ENODATA  it has not published a pose yet
 *   -ENOBUFS  buf is too small: info->element_count says how many elements
 *   -EAGAIN   no whole copy in a bounded number of tries (a writer lapping
 *             this reader continuously; try again)
 *   -EINVAL   bad arguments
 * The stream's read cursor for the instance (animc_stream_next) is not moved.
 */
ANIMC_API int animc_stream_latest(animc_stream *s, uint64_t instance, float *buf,
				  size_t buf_floats, animc_pose_info *info);

/*
 * Copy the next pose of `instance` after the last one this handle returned
 * for it, in order.  The first call returns the oldest pose still kept.
 * When the reader fell so far behind that poses were overwritten, it
 * continues with the oldest pose still kept and *dropped (may be NULL) gets
 * how many were skipped (0 otherwise).  Returns 0, -ENODATA when there is
 * no newer pose yet, and the errors of animc_stream_latest; on an error the
 * cursor does not move.  After a reconnection the cursor starts again from
 * the new stream's oldest pose.
 */
ANIMC_API int animc_stream_next(animc_stream *s, uint64_t instance, float *buf,
				size_t buf_floats, animc_pose_info *info, uint64_t *dropped);

/* One element of a pose of an ATTACHMENTS stream, as the stream lays it
 * out (64 bytes: the floats, then three 32-bit integers, which a float
 * buffer carries bit for bit). */
typedef struct animc_attachment_element {
	float m[12];                    /* model-space 3x4, row-major */
	float animate;                  /* 1 a model hung there animates, 0 not */
	uint32_t id;                    /* the file's attachment id */
	uint32_t joint;                 /* the joint it hangs on */
	uint32_t reserved;              /* 0 */
} animc_attachment_element;

/* Element i of a pose of an ATTACHMENTS stream copied into buf (by
 * animc_stream_latest or animc_stream_next) into *out.  0, or -EINVAL
 * for a NULL argument. */
ANIMC_API int animc_stream_attachment(const float *buf, size_t i,
				      animc_attachment_element *out);

/* ====================================================================
 * Reconnection
 * ================================================================== */

/* What happened to one instance during a reconnection. */
typedef struct animc_instance_remap {
	uint64_t id;                    /* this library's id, unchanged */
	uint64_t old_server_id;         /* the old daemon's id */
	uint64_t new_server_id;         /* the new daemon's id, 0 when not replayed */
	int status;                     /* 0 replayed; else why not (-EREMOTEIO: the
					   daemon refused, e.g. the asset is gone) */
} animc_instance_remap;

typedef struct animc_reconnect_info {
	unsigned attempts;              /* connection attempts it took */
	uint32_t server_pid;            /* the new daemon */
	size_t streams_reopened;
	size_t streams_failed;          /* their handles stay readable but are dead */
	size_t instance_count;
	const animc_instance_remap *instances;
} animc_reconnect_info;

/* Called after a successful reconnection, before the call that noticed the
 * restart carries on.  `info` is borrowed: valid during the callback. */
typedef void (*animc_reconnect_fn)(animc_client *c, const animc_reconnect_info *info,
				   void *user);

typedef struct animc_reconnect_opts {
	int enabled;
	int initial_delay_ms;           /* first back-off; 0: 50 ms */
	int max_delay_ms;               /* back-off doubles up to this; 0: 2000 ms */
	unsigned max_attempts;          /* give up after this many; 0: never */
	animc_reconnect_fn on_reconnect;        /* may be NULL */
	void *user;
	/* Room for fields added later without changing this struct's size:
	 * leave zero (the _INIT macros and = { 0 } do). */
	void *reserved[4];
} animc_reconnect_opts;

/*
 * Reconnect when the connection is lost (EOF, ECONNRESET, EPIPE): the next
 * blocking call (within its timeout) or animc_client_process() (with
 * back-off, see animc_client_next_timeout) connects again to the same path,
 * calls `hello`, reopens every open stream with the same options, renews the
 * subscription and replays every instance still known (play again with the
 * same asset, clip, mesh, loop, speed, root motion and stream at its current
 * time, paused if it was), maps the old ids to the new, then calls
 * on_reconnect.  A daemon that has just started answers a replay once the
 * asset has loaded (it loads what a request names first), so a replay
 * succeeds at its first try on any tree; one answered ANIMC_ERR_LOADING
 * (a load longer than the daemon's request timeout) fails the attempt,
 * which is retried with back-off, the instance kept.  Async calls
 * outstanding at the loss fail with -ECONNRESET.
 * o NULL or o->enabled 0 turns it off (the default).  0 or -EINVAL.
 */
ANIMC_API int animc_client_set_reconnect(animc_client *c, const animc_reconnect_opts *o);

/* The daemon's current id for one of this library's instance ids (they
 * differ after a reconnection); 0 when the instance is not known. */
ANIMC_API uint64_t animc_client_server_instance(const animc_client *c, uint64_t instance);

#ifdef __cplusplus
}
#endif

#endif
