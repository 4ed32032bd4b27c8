/*
 * reloads.h - assets.reload requests waiting for their outcome.
 *
 * The cache reports every load's outcome as an event; the daemon passes
 * the outcome here, and every request waiting on that asset is answered:
 * with its generation, or with the error.
 */
#ifndef ANIMD_RELOADS_H
#define ANIMD_RELOADS_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/service/control/control.h"
#include "proto/animd_proto.h"

struct pending_reload;

/* Remember that s's request msgid waits for asset.  0 or -ENOMEM. */
int reloads_add(struct control *ctl, struct session *s, uint32_t msgid, const char *asset);

/* The outcome for asset: code PROTO_ERR_NONE with the live generation
 * (unchanged: the bytes were those of the live version), or an error code
 * with its message.  Answers every request waiting on asset. */
void reloads_answer(struct control *ctl, const char *asset, uint64_t generation, bool unchanged,
		    enum proto_error code, const char *message);

/* Drop what a closing session was waiting for. */
void reloads_forget(struct control *ctl, struct session *s);

#endif
