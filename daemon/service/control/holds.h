/*
 * holds.h - requests that wait for the assets they name (PROTOCOL.md,
 * "Requests that wait for a load").
 *
 * A handler that meets an asset the index holds but memory does not (its
 * first load has not ended, or the memory cap evicted it), or any asset
 * name before the start-up walk has indexed the tree, says so through
 * lookup.h and fails; dispatch.c then holds the request instead of sending
 * that failure.  A held request keeps its bytes; every asset it names
 * (`asset`, `mesh`, each layer's `asset`) is wanted from the cache at once,
 * so a play of an md5anim on an md5mesh waits for both loads together, and
 * what is already in memory is pinned (a reference: the cap cannot evict
 * it meanwhile).  When the last of them has an outcome, the request is
 * served again from its bytes, as if it had just arrived: it then finds
 * them in memory, or answers what became of them (asset_error, not_found).
 * Its reply carries its msgid; replies to later requests of the
 * connection may come first.
 *
 * Past limits.request_timeout_ms from its arrival a held request is
 * answered `loading`; a connection that closes drops its held requests;
 * at shutdown they are answered shutting_down.  Requests that name no
 * asset are never held.
 */
#ifndef ANIMD_HOLDS_H
#define ANIMD_HOLDS_H

#include <stddef.h>

#include "daemon/service/control/control.h"
#include "proto/rpc.h"

struct session;

/* Makes the timers; before any session exists.  0 or a negative errno. */
int holds_init(struct control *ctl);

/* Holds req (raw_len bytes at raw) of s, whose handler found a name not in
 * memory (ctl->dispatch_waits): 0, or -1 with err set (a `limit`, or the
 * `loading` error the handler left there when nothing can be waited for). */
int holds_add(struct session *s, const struct rpc_request *req, const char *raw, size_t raw_len,
	      struct rpc_error *err);

/* A closing session: its held requests go, unanswered. */
void holds_forget(struct control *ctl, struct session *s);

/* Shutdown (ctl->stopping is set): every held request is served now (and
 * so answered shutting_down); the timers close.  Nothing is held after. */
void holds_stop(struct control *ctl);

#endif
