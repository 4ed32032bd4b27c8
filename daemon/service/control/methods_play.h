/*
 * methods_play.h - what the playback family's handlers share
 * (methods_play.c: play and the clock methods; methods_layers.c).
 */
#ifndef ANIMD_METHODS_PLAY_H
#define ANIMD_METHODS_PLAY_H

#include "daemon/service/control/session.h"
#include "daemon/service/playback/instances.h"
#include "proto/rpc.h"

/* Largest |time| a request may name: a century, far inside int64 ns. */
#define PLAY_MAX_SECONDS 3.2e9
#define PLAY_MAX_SPEED 1e6
/* Longest fade a request may ask for, seconds. */
#define PLAY_MAX_FADE 3600.0

/* Range checks of "start"/"time", "speed" and "fade": 0, or -1 with a
 * bad_request in err. */
int play_check_time(const char *method, const char *what, double v, struct rpc_error *err);
int play_check_speed(const char *method, double v, struct rpc_error *err);
int play_check_fade(const char *method, double v, struct rpc_error *err);

/* The caller's own instance `id` (ok: the arguments parsed), or NULL with
 * a not_found in err. */
struct instance *play_own_instance(struct session *s, const char *method, struct rpc_args *args,
				   struct rpc_error *err, uint64_t id, int ok);

/* Does clip c of asset a (named name) fit the instance's pose?  0, or -1
 * with err: unsupported for a camera instance, asset_error for a skeleton
 * or joint count that differs. */
int play_check_fit(const char *method, const struct instance *in, const struct asset *a,
		   const char *name, const struct clip *c, struct rpc_error *err);

#endif
