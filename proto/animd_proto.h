/*
 * animd_proto.h - the contract between animd and its clients: the protocol
 * version, where the socket lives, the limits, and the names that travel on
 * the wire (methods, error codes, event types).
 *
 * Everything here is part of the protocol documented in proto/PROTOCOL.md
 * and changes with it, in the same commit.  On the wire every name is a
 * string; the enums below are this implementation's handles for them.  The
 * wire names are stable: a name is never renamed or reused for something
 * else, new ones are only added.  Clients must accept error codes and event
 * types they do not know.
 *
 * Depends on libc only.
 */
#ifndef ANIMD_PROTO_H
#define ANIMD_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* Bumped on any incompatible change of the wire; `hello` reports it. */
#define ANIMD_PROTOCOL_VERSION 1

/* Where the daemon listens unless configured otherwise, and the variable
 * clients read to find a different socket. */
#define ANIMD_SOCKET_DEFAULT "/run/animd/animd.sock"
#define ANIMD_SOCKET_ENV "ANIMD_SOCKET"

/*
 * Limits.  PROTO_MAX_* are hard properties of the protocol; PROTO_DEFAULT_*
 * are the daemon's defaults, which its configuration may change.
 */

/* Bytes one client message (a request) may occupy on the wire.  The daemon
 * refuses a longer one, replying `limit` and disconnecting. */
#define PROTO_DEFAULT_MAX_MESSAGE_BYTES (1u << 20)
/* Bytes the daemon will put in any one message it sends; a reply that would
 * be larger (a huge `sample`) is refused with `limit` instead.  Clients can
 * size their receive limit from this. */
#define PROTO_MAX_REPLY_BYTES (16u << 20)
/* Containers open at once in a request (the request array itself is 1).
 * msgpack-c cannot unpack deeper than 32. */
#define PROTO_DEFAULT_MAX_DEPTH 16
/* msgpack objects in one request, counting every key, value and element:
 * it bounds the memory one request can make the daemon allocate. */
#define PROTO_DEFAULT_MAX_ITEMS 65536u
/* Named arguments in one request's params map. */
#define PROTO_MAX_ARGS 64
/* Bytes of a method name, argument name or event type. */
#define PROTO_MAX_NAME_BYTES 64
/* Bytes of an asset or clip name (a relative path, optionally "#clip"). */
#define PROTO_MAX_ASSET_NAME_BYTES 4096
/* assets.list pages: assets per page when the request gives no "limit",
 * and the most it may ask for (a page of the largest names and errors
 * stays far below PROTO_MAX_REPLY_BYTES: the daemon ends a page early
 * rather than pass it). */
#define PROTO_ASSETS_LIST_DEFAULT_LIMIT 1000u
#define PROTO_ASSETS_LIST_MAX_LIMIT 10000u
/* assets.reload requests of one connection waiting for their outcome at
 * once; more are refused with `limit` (loads of one file coalesce anyway). */
#define PROTO_MAX_PENDING_RELOADS 64u
/* Requests of one connection waiting at once for the assets they name to
 * load (PROTOCOL.md, "Requests that wait for a load"), and the bytes of
 * those requests together; more are refused with `limit`. */
#define PROTO_MAX_WAITING_REQUESTS 4096u
#define PROTO_MAX_WAITING_BYTES (16u << 20)
/* Connections the daemon serves at once. */
#define PROTO_DEFAULT_MAX_CONNECTIONS 64
/* Instances and streams one connection may own at once. */
#define PROTO_DEFAULT_MAX_INSTANCES 1024
#define PROTO_DEFAULT_MAX_STREAMS 16
/* Bytes of the name a client gives itself in `hello` (clients.list shows
 * it), and of the reason `clients.kill` may give. */
#define PROTO_MAX_CLIENT_NAME_BYTES 64
#define PROTO_MAX_KILL_REASON_BYTES 200
/* Unsent bytes queued for a connection at which the daemon stops reading its
 * requests until the client catches up... */
#define PROTO_DEFAULT_OUTPUT_HIGH_BYTES (1u << 20)
/* ...and at which it gives up on the client and disconnects it (events keep
 * arriving even when requests are not read).  Must be at least
 * PROTO_DEFAULT_OUTPUT_HIGH_BYTES + PROTO_MAX_REPLY_BYTES so that one maximal
 * reply to a client within the high mark never trips it. */
#define PROTO_DEFAULT_OUTPUT_MAX_BYTES (32u << 20)

_Static_assert(PROTO_DEFAULT_OUTPUT_MAX_BYTES >=
		       PROTO_DEFAULT_OUTPUT_HIGH_BYTES + PROTO_MAX_REPLY_BYTES,
	       "one maximal reply must fit between the output marks");
_Static_assert(PROTO_DEFAULT_MAX_MESSAGE_BYTES <= PROTO_MAX_REPLY_BYTES,
	       "a request is never allowed to be larger than a reply");

/* Stable error codes: the `code` string of an error reply. */
enum proto_error {
	PROTO_ERR_NONE = 0,             /* not an error; never on the wire */
	PROTO_ERR_BAD_REQUEST,          /* "bad_request" */
	PROTO_ERR_UNKNOWN_METHOD,       /* "unknown_method" */
	PROTO_ERR_NOT_FOUND,            /* "not_found" */
	PROTO_ERR_LIMIT,                /* "limit" */
	PROTO_ERR_ASSET_ERROR,          /* "asset_error" */
	PROTO_ERR_UNSUPPORTED,          /* "unsupported" */
	PROTO_ERR_SHUTTING_DOWN,        /* "shutting_down" */
	PROTO_ERR_INTERNAL,             /* "internal" */
	PROTO_ERR_PERMISSION_DENIED,    /* "permission_denied": an operator method
					   (PROTOCOL.md, "Operators") from a peer
					   control.operators does not allow */
	PROTO_ERR_LOADING,              /* "loading": an asset the request names did
					   not finish loading within
					   limits.request_timeout_ms; try again */
	PROTO_ERR_COUNT
};

/* The wire string of an error code; NULL for PROTO_ERR_NONE and values out of
 * range. */
const char *proto_error_name(enum proto_error code);
/* The code named by `name` (len bytes, not NUL-terminated), or -ENOENT. */
int proto_error_lookup(const char *name, size_t len);

/* Methods a client may call. */
enum proto_method {
	PROTO_METHOD_HELLO,             /* "hello" */
	PROTO_METHOD_STATUS,            /* "status" */
	PROTO_METHOD_ASSETS_LIST,       /* "assets.list" */
	PROTO_METHOD_ASSETS_INFO,       /* "assets.info" */
	PROTO_METHOD_ASSETS_RELOAD,     /* "assets.reload" */
	PROTO_METHOD_PLAY,              /* "play" */
	PROTO_METHOD_PAUSE,             /* "pause" */
	PROTO_METHOD_RESUME,            /* "resume" */
	PROTO_METHOD_SEEK,              /* "seek" */
	PROTO_METHOD_SPEED,             /* "speed" */
	PROTO_METHOD_STOP,              /* "stop" */
	PROTO_METHOD_INSTANCES_LIST,    /* "instances.list" */
	PROTO_METHOD_SAMPLE,            /* "sample" */
	PROTO_METHOD_SUBSCRIBE,         /* "subscribe" */
	PROTO_METHOD_STREAM_OPEN,       /* "stream.open" */
	PROTO_METHOD_STREAM_CLOSE,      /* "stream.close" */
	PROTO_METHOD_STATS,             /* "stats" */
	PROTO_METHOD_MONITOR,           /* "monitor" */
	PROTO_METHOD_LAYER_ADD,         /* "layer.add" */
	PROTO_METHOD_LAYER_SET,         /* "layer.set" */
	PROTO_METHOD_LAYER_REMOVE,      /* "layer.remove" */
	PROTO_METHOD_CLIENTS_LIST,      /* "clients.list" */
	PROTO_METHOD_CLIENTS_KILL,      /* "clients.kill" */
	PROTO_METHOD_COUNT
};

/* Wire names indexed by enum proto_method (read-only). */
extern const char *const proto_method_names[PROTO_METHOD_COUNT];
/* The wire name of a method; NULL out of range. */
const char *proto_method_name(enum proto_method m);
/* The method named by `name` (len bytes, not NUL-terminated, exact and
 * case-sensitive), or -ENOENT. */
int proto_method_lookup(const char *name, size_t len);

/* The method of every daemon-to-client notification: [2, "event", [{...}]]. */
#define PROTO_EVENT_METHOD "event"
/* The event type a `monitor` connection receives for every request of the
 * others (not one of enum proto_event: `subscribe` does not ask for it). */
#define PROTO_MONITOR_EVENT "monitor.request"
/* The event type a connection closed by `clients.kill` is sent last, whether
 * it subscribed or not (not one of enum proto_event either). */
#define PROTO_KILLED_EVENT "client.killed"

/* Event types: the "type" field of an event, and the names `subscribe` takes. */
enum proto_event {
	PROTO_EVENT_ASSET_LOADED,       /* "asset.loaded" */
	PROTO_EVENT_ASSET_RELOADED,     /* "asset.reloaded" */
	PROTO_EVENT_ASSET_ERROR,        /* "asset.error" */
	PROTO_EVENT_ASSET_REMOVED,      /* "asset.removed" */
	PROTO_EVENT_INSTANCE_ENDED,     /* "instance.ended" */
	PROTO_EVENT_INSTANCE_STOPPED,   /* "instance.stopped" */
	PROTO_EVENT_SERVER_STOPPING,    /* "server.stopping": sent to every
					   connection, subscribed or not, when
					   the daemon begins a clean shutdown */
	PROTO_EVENT_INSTANCE_FADED,     /* "instance.faded" */
	PROTO_EVENT_LAYER_ENDED,        /* "layer.ended" */
	PROTO_EVENT_CLIP_EVENT,         /* "clip.event": playback passed a moment
					   of its clip's events (M2) */
	PROTO_EVENT_COUNT
};

/* Wire names indexed by enum proto_event (read-only). */
extern const char *const proto_event_names[PROTO_EVENT_COUNT];
/* The wire name of an event type; NULL out of range. */
const char *proto_event_name(enum proto_event e);
/* The event type named by `name` (len bytes), or -ENOENT. */
int proto_event_lookup(const char *name, size_t len);

#endif
