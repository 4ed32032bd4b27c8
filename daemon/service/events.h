/*
 * events.h - the notifications animd sends: [2, "event", [{"type", ...}]],
 * each to every connection subscribed to its type (PROTOCOL.md, Events).
 */
#ifndef ANIMD_EVENTS_H
#define ANIMD_EVENTS_H

#include <stdint.h>

#include "daemon/service/instances.h"
#include "daemon/service/service.h"

void events_asset_loaded(struct service *svc, const char *asset, uint64_t generation);
void events_asset_reloaded(struct service *svc, const char *asset, uint64_t generation);
void events_asset_error(struct service *svc, const char *asset, const char *message,
			uint64_t live_generation);
void events_asset_removed(struct service *svc, const char *asset);
void events_instance_ended(struct service *svc, const struct instance *in);
/* reason: a stable code (PROTOCOL.md); message: one line for people. */
void events_instance_stopped(struct service *svc, const struct instance *in, const char *reason,
			     const char *message);
/* To every connection, subscribed or not: the daemon is shutting down. */
void events_server_stopping(struct service *svc);

#endif
