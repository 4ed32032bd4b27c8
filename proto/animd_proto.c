/*
 * animd_proto.c - the wire names of errors, methods and events, and their
 * lookups.  The tables are const: nothing here mutates.
 */
#include "proto/animd_proto.h"

#include <errno.h>
#include <string.h>

#define PROTO_COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const proto_error_names[PROTO_ERR_COUNT] = {
	[PROTO_ERR_NONE] = NULL,
	[PROTO_ERR_BAD_REQUEST] = "bad_request",
	[PROTO_ERR_UNKNOWN_METHOD] = "unknown_method",
	[PROTO_ERR_NOT_FOUND] = "not_found",
	[PROTO_ERR_LIMIT] = "limit",
	[PROTO_ERR_ASSET_ERROR] = "asset_error",
	[PROTO_ERR_UNSUPPORTED] = "unsupported",
	[PROTO_ERR_SHUTTING_DOWN] = "shutting_down",
	[PROTO_ERR_INTERNAL] = "internal",
	[PROTO_ERR_PERMISSION_DENIED] = "permission_denied",
	[PROTO_ERR_LOADING] = "loading",
};

const char *const proto_method_names[PROTO_METHOD_COUNT] = {
	[PROTO_METHOD_HELLO] = "hello",
	[PROTO_METHOD_STATUS] = "status",
	[PROTO_METHOD_ASSETS_LIST] = "assets.list",
	[PROTO_METHOD_ASSETS_INFO] = "assets.info",
	[PROTO_METHOD_ASSETS_RELOAD] = "assets.reload",
	[PROTO_METHOD_PLAY] = "play",
	[PROTO_METHOD_PAUSE] = "pause",
	[PROTO_METHOD_RESUME] = "resume",
	[PROTO_METHOD_SEEK] = "seek",
	[PROTO_METHOD_SPEED] = "speed",
	[PROTO_METHOD_STOP] = "stop",
	[PROTO_METHOD_INSTANCES_LIST] = "instances.list",
	[PROTO_METHOD_SAMPLE] = "sample",
	[PROTO_METHOD_SUBSCRIBE] = "subscribe",
	[PROTO_METHOD_STREAM_OPEN] = "stream.open",
	[PROTO_METHOD_STREAM_CLOSE] = "stream.close",
	[PROTO_METHOD_STATS] = "stats",
	[PROTO_METHOD_MONITOR] = "monitor",
	[PROTO_METHOD_LAYER_ADD] = "layer.add",
	[PROTO_METHOD_LAYER_SET] = "layer.set",
	[PROTO_METHOD_LAYER_REMOVE] = "layer.remove",
	[PROTO_METHOD_CLIENTS_LIST] = "clients.list",
	[PROTO_METHOD_CLIENTS_KILL] = "clients.kill",
};

const char *const proto_event_names[PROTO_EVENT_COUNT] = {
	[PROTO_EVENT_ASSET_LOADED] = "asset.loaded",
	[PROTO_EVENT_ASSET_RELOADED] = "asset.reloaded",
	[PROTO_EVENT_ASSET_ERROR] = "asset.error",
	[PROTO_EVENT_ASSET_REMOVED] = "asset.removed",
	[PROTO_EVENT_INSTANCE_ENDED] = "instance.ended",
	[PROTO_EVENT_INSTANCE_STOPPED] = "instance.stopped",
	[PROTO_EVENT_SERVER_STOPPING] = "server.stopping",
	[PROTO_EVENT_INSTANCE_FADED] = "instance.faded",
	[PROTO_EVENT_LAYER_ENDED] = "layer.ended",
	[PROTO_EVENT_CLIP_EVENT] = "clip.event",
};

/* Linear search: the tables are a dozen short names, and a request names one
 * method; a hash would cost more than it saves. */
static int proto_lookup(const char *const *names, size_t count, const char *name, size_t len)
{
	if (name == NULL)
		return -ENOENT;
	for (size_t i = 0; i < count; i++)
		if (names[i] != NULL && strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return (int)i;
	return -ENOENT;
}

const char *proto_error_name(enum proto_error code)
{
	if ((unsigned)code >= PROTO_ERR_COUNT)
		return NULL;
	return proto_error_names[code];
}

int proto_error_lookup(const char *name, size_t len)
{
	return proto_lookup(proto_error_names, PROTO_COUNT(proto_error_names), name, len);
}

const char *proto_method_name(enum proto_method m)
{
	if ((unsigned)m >= PROTO_METHOD_COUNT)
		return NULL;
	return proto_method_names[m];
}

int proto_method_lookup(const char *name, size_t len)
{
	return proto_lookup(proto_method_names, PROTO_METHOD_COUNT, name, len);
}

const char *proto_event_name(enum proto_event e)
{
	if ((unsigned)e >= PROTO_EVENT_COUNT)
		return NULL;
	return proto_event_names[e];
}

int proto_event_lookup(const char *name, size_t len)
{
	return proto_lookup(proto_event_names, PROTO_EVENT_COUNT, name, len);
}
