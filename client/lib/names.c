/*
 * names.c - the wire names of the protocol's enums, both ways, and
 * animc_strerror.  The wire names are stable (PROTOCOL.md 12); this library
 * keeps its own tables so that its public enums do not depend on the
 * daemon's internal numbering.
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <string.h>

static const char *const error_names[] = {
	[ANIMC_ERR_BAD_REQUEST] = "bad_request",
	[ANIMC_ERR_UNKNOWN_METHOD] = "unknown_method",
	[ANIMC_ERR_NOT_FOUND] = "not_found",
	[ANIMC_ERR_LIMIT] = "limit",
	[ANIMC_ERR_ASSET_ERROR] = "asset_error",
	[ANIMC_ERR_UNSUPPORTED] = "unsupported",
	[ANIMC_ERR_SHUTTING_DOWN] = "shutting_down",
	[ANIMC_ERR_INTERNAL] = "internal",
	[ANIMC_ERR_PERMISSION_DENIED] = "permission_denied",
	[ANIMC_ERR_LOADING] = "loading",
};

static const char *const event_names[] = {
	[ANIMC_EVENT_ASSET_LOADED] = "asset.loaded",
	[ANIMC_EVENT_ASSET_RELOADED] = "asset.reloaded",
	[ANIMC_EVENT_ASSET_ERROR] = "asset.error",
	[ANIMC_EVENT_ASSET_REMOVED] = "asset.removed",
	[ANIMC_EVENT_INSTANCE_ENDED] = "instance.ended",
	[ANIMC_EVENT_INSTANCE_STOPPED] = "instance.stopped",
	[ANIMC_EVENT_SERVER_STOPPING] = "server.stopping",
	[ANIMC_EVENT_MONITOR_REQUEST] = "monitor.request",
	[ANIMC_EVENT_INSTANCE_FADED] = "instance.faded",
	[ANIMC_EVENT_LAYER_ENDED] = "layer.ended",
	[ANIMC_EVENT_CLIP_EVENT] = "clip.event",
	[ANIMC_EVENT_CLIENT_KILLED] = "client.killed",
};

static const char *const loop_names[] = {
	[ANIMC_LOOP_LOOP] = "loop",
	[ANIMC_LOOP_ONCE] = "once",
	[ANIMC_LOOP_PINGPONG] = "pingpong",
};

static const char *const root_motion_names[] = {
	[ANIMC_ROOT_RAW] = "raw",
	[ANIMC_ROOT_IN_PLACE] = "in_place",
};

static const char *const space_names[] = {
	[ANIMC_SPACE_LOCAL] = "local",
	[ANIMC_SPACE_MODEL] = "model",
	[ANIMC_SPACE_SKIN] = "skin",
	[ANIMC_SPACE_VERTICES] = "vertices",
	[ANIMC_SPACE_CAMERA] = "camera",
	[ANIMC_SPACE_EMITTERS] = "emitters",
	[ANIMC_SPACE_ATTACHMENTS] = "attachments",
	[ANIMC_SPACE_WEIGHTS] = "weights",
};

static const char *const state_names[] = {
	[ANIMC_STATE_PLAYING] = "playing",
	[ANIMC_STATE_PAUSED] = "paused",
	[ANIMC_STATE_ENDED] = "ended",
	[ANIMC_STATE_STOPPED] = "stopped",
};

static const char *const emitter_param_names[ANIMC_EMITTER_PARAMS] = {
	"emission_speed", "speed_variation", "vertical_range", "horizontal_range", "gravity",
	"lifespan", "emission_rate", "area_length", "area_width", "z_source",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *animc_emitter_param_name(int k)
{
	return k >= 0 && k < ANIMC_EMITTER_PARAMS ? emitter_param_names[k] : NULL;
}

static const char *names_get(const char *const *names, size_t count, int v)
{
	return v > 0 && (size_t)v < count ? names[v] : NULL;
}

/* Index 1.. of name in names, or -1 (index 0 is never a name). */
static int names_find(const char *const *names, size_t count, const char *name, size_t len)
{
	if (name == NULL)
		return -1;
	for (size_t i = 1; i < count; i++)
		if (names[i] != NULL && strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return (int)i;
	return -1;
}

animc_error_code ac_names_error(const char *name, size_t len)
{
	int i = names_find(error_names, COUNT(error_names), name, len);

	return i < 0 ? ANIMC_ERR_OTHER : (animc_error_code)i;
}

animc_state ac_names_state(const char *name)
{
	int i = name ? names_find(state_names, COUNT(state_names), name, strlen(name)) : -1;

	return i < 0 ? ANIMC_STATE_UNKNOWN : (animc_state)i;
}

const char *animc_event_name(animc_event_type type)
{
	return names_get(event_names, COUNT(event_names), (int)type);
}

animc_event_type animc_event_lookup(const char *name)
{
	int i = name ? names_find(event_names, COUNT(event_names), name, strlen(name)) : -1;

	return i < 0 ? ANIMC_EVENT_UNKNOWN : (animc_event_type)i;
}

const char *animc_loop_name(animc_loop v)
{
	return names_get(loop_names, COUNT(loop_names), (int)v);
}

const char *animc_root_motion_name(animc_root_motion v)
{
	return names_get(root_motion_names, COUNT(root_motion_names), (int)v);
}

const char *animc_space_name(animc_space v)
{
	return names_get(space_names, COUNT(space_names), (int)v);
}

int animc_loop_lookup(const char *name)
{
	return name ? names_find(loop_names, COUNT(loop_names), name, strlen(name)) : -1;
}

int animc_root_motion_lookup(const char *name)
{
	return name ? names_find(root_motion_names, COUNT(root_motion_names), name, strlen(name))
		    : -1;
}

int animc_space_lookup(const char *name)
{
	return name ? names_find(space_names, COUNT(space_names), name, strlen(name)) : -1;
}

unsigned animc_space_floats(animc_space v)
{
	switch (v) {
	case ANIMC_SPACE_LOCAL: return ANIMD_SHM_STRIDE_LOCAL / 4;
	case ANIMC_SPACE_MODEL:
	case ANIMC_SPACE_SKIN: return ANIMD_SHM_STRIDE_MATRIX / 4;
	case ANIMC_SPACE_VERTICES: return ANIMD_SHM_STRIDE_VERTEX / 4;
	case ANIMC_SPACE_CAMERA: return ANIMD_SHM_STRIDE_CAMERA / 4;
	case ANIMC_SPACE_EMITTERS: return ANIMD_SHM_STRIDE_EMITTER / 4;
	case ANIMC_SPACE_ATTACHMENTS: return ANIMD_SHM_STRIDE_ATTACHMENT / 4;
	case ANIMC_SPACE_WEIGHTS: return ANIMD_SHM_STRIDE_WEIGHT / 4;
	default: return 0;
	}
}

#ifndef ANIMD_VERSION
#error "ANIMD_VERSION comes from the top-level VERSION file: build with make"
#endif
const char *animc_version(void)
{
	return ANIMD_VERSION;
}

const char *animc_strerror(int rc)
{
	int e = rc < 0 ? -rc : rc;
	const char *s;

	/* The ones this library gives a meaning of its own. */
	switch (e) {
	case 0: return "success";
	case EREMOTEIO: return "the daemon answered with an error";
	case ETIMEDOUT: return "timed out waiting for the daemon";
	case ECONNRESET: return "connection to the daemon lost";
	case ENOTCONN: return "not connected to the daemon";
	case EPROTO: return "the daemon sent something unexpected";
	case EPROTONOSUPPORT: return "the daemon speaks another protocol version";
	case ENODATA: return "no pose published yet";
	case ENOBUFS: return "buffer too small";
	case ECONNREFUSED: return "connection refused (no daemon listening)";
	case ENOTSOCK: return "not a socket";
	default: break;
	}
	/* glibc's table is thread-safe and never allocates. */
	s = strerrordesc_np(e);
	return s != NULL ? s : "unknown error";
}
