/*
 * events.h - the notifications animd sends: [2, "event", [{"type", ...}]],
 * each to every connection subscribed to its type (PROTOCOL.md, Events).
 */
#ifndef ANIMD_EVENTS_H
#define ANIMD_EVENTS_H

#include <stdint.h>

#include "daemon/service/control/control.h"
#include "daemon/service/playback/instances.h"

void events_asset_loaded(struct control *ctl, const char *asset, uint64_t generation);
void events_asset_reloaded(struct control *ctl, const char *asset, uint64_t generation);
void events_asset_error(struct control *ctl, const char *asset, const char *message,
			uint64_t live_generation);
void events_asset_removed(struct control *ctl, const char *asset);
/* Instance events go to the connection that owns the instance, if it
 * subscribed; ctx is unused (these are struct instance_events's). */
void events_instance_ended(void *ctx, const struct instance *in);
/* reason: a stable code (PROTOCOL.md); message: one line for people. */
void events_instance_stopped(void *ctx, const struct instance *in, const char *reason,
			     const char *message);
/* instance.faded: a cross-fade completed; layer.ended: a layer faded out
 * and is gone. */
void events_instance_faded(void *ctx, const struct instance *in);
void events_layer_ended(void *ctx, const struct instance *in, uint32_t layer, const char *clip);
/* clip.event: playback passed a moment of the clip's events (cues.h). */
void events_clip_event(void *ctx, const struct instance *in, const struct cue *cue);
/* To every connection, subscribed or not: the daemon is shutting down. */
void events_server_stopping(struct control *ctl);

#endif
