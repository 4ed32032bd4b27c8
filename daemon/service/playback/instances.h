/*
 * instances.h - playing instances: an asset's clip (and optionally a mesh)
 * under a playback clock, owned by the connection that made it.
 *
 * An instance holds references to the asset versions it plays, so a hot
 * reload never changes a pose under it; when the cache swaps a new version
 * in, instances_asset_changed rebinds each affected instance by clip name
 * and keeps it playing, or stops it (instance.stopped, with the reason)
 * when the clip is gone or the skeleton changed shape.  A clip played once
 * reports instance.ended when it reaches its end (a timer, not polling),
 * and a clip with events reports each of their moments playback passes
 * (cues.h).
 */
#ifndef ANIMD_INSTANCES_H
#define ANIMD_INSTANCES_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/playback.h"
#include "daemon/assets/asset.h"
#include "daemon/service/playback/cues.h"
#include "daemon/service/playback/layers.h"
#include "daemon/service/playback/owner.h"

struct instance {
	/* What a stream tick reads comes first: two cache lines. */
	const struct clip *clip;        /* inside asset; NULL for cameras */
	struct asset *asset;            /* referenced */
	struct asset *mesh;             /* referenced, or NULL */
	struct playback clock;
	enum loop_mode loop;
	enum root_motion root_motion;
	uint64_t id;
	uint64_t generation;
	uint32_t channel;
	bool ended;
	bool stopped;                   /* set just before a stop's last report */
	bool destroyed;                 /* instances_destroy ran: freed on a later turn */
	struct stream *stream;          /* where its poses are published, or NULL */
	/* The layer stack (layers.h), bottom-up: the first fade_count are
	 * cross-fades.  NULL and 0 for a plain instance. */
	struct layer **layers;
	uint32_t layer_count;
	uint32_t fade_count;
	uint64_t mesh_generation;
	struct playback_owner *owner;
	struct instances *set;
	char *asset_name;
	char *clip_name;
	char *mesh_name;                /* NULL when none */
	uv_timer_t end_timer;           /* armed for LOOP_ONCE while playing */
	uint32_t next_layer_id;
	uv_timer_t fade_timer;          /* armed for the next fade's end */
	/* Its clip.event reports (cues.h), made when first needed, or NULL;
	 * cues_off: played with events off. */
	struct instance_cues *cues;
	bool cues_off;
	uint8_t open_handles;           /* end_timer, fade_timer and the cues' timer
					   until closed */
	struct instance *next;          /* bucket chain */
	struct instance *all_prev, *all_next;
};

struct instances;
struct stream;

/* What instances report, to whoever the set was made for (the daemon
 * turns them into events for the owner's connection).  Called on the loop
 * thread; `in` is valid during the call. */
struct instance_events {
	/* A clip played once reached its end and holds its last pose. */
	void (*ended)(void *ctx, const struct instance *in);
	/* A reload stopped it: reason is a stable code (PROTOCOL.md),
	 * message one line for people.  The instance is destroyed after. */
	void (*stopped)(void *ctx, const struct instance *in, const char *reason,
			const char *message);
	/* A cross-fade of play completed: the instance now plays its clip. */
	void (*faded)(void *ctx, const struct instance *in);
	/* A layer faded out by layer.remove is gone (clip: the one it played). */
	void (*layer_ended)(void *ctx, const struct instance *in, uint32_t layer, const char *clip);
	/* Playback passed a moment of the clip's events (cues.h); `in` plays
	 * the clip and asset the moment is of. */
	void (*clip_event)(void *ctx, const struct instance *in, const struct cue *cue);
	void *ctx;
};

int instances_new(uv_loop_t *loop, const struct instance_events *events, struct instances **out);
/* Close every instance and free the set; done(data) when all handles closed. */
void instances_close(struct instances *set, void (*done)(void *data), void *data);

struct instance_spec {
	const char *asset_name;
	struct asset *asset;            /* borrowed: the instance takes its own reference */
	uint64_t generation;
	const struct clip *clip;        /* NULL only for camera assets */
	const char *mesh_name;
	struct asset *mesh;
	uint64_t mesh_generation;
	enum loop_mode loop;
	enum root_motion root_motion;
	double speed;
	int64_t start_ns;
	/* With has_anchor, playback time is start_ns at clock time anchor_ns
	 * (clock.h), not at the moment of creation: instances made with the
	 * same anchor, start and speed are in step. */
	bool has_anchor;
	int64_t anchor_ns;
	/* play's "events": false: no clip.event reports. */
	bool cues_off;
};

/* Create and start playing.  0 or -ENOMEM. */
int instances_create(struct instances *set, struct playback_owner *owner,
		     const struct instance_spec *spec, struct instance **out);
/* The instance with this id, or NULL. */
struct instance *instances_find(struct instances *set, uint64_t id);
/* Stop one instance now (no event: the caller asked for it). */
void instances_destroy(struct instance *in);
/* End every instance an owner has (its connection closed). */
void instances_end_owner(struct instances *set, struct playback_owner *owner);

/* The stack changed (layers.h): re-arm the fade timer and publish. */
void instance_layers_changed(struct instance *in);
/* Replace the base clip now (a cut: a play on an instance without a
 * fade): the stack's cross-fades go, the added layers stay.  spec as for
 * layers_push (mode, weight, fade and mask unused).  0 or -ENOMEM. */
int instance_cut_to(struct instance *in, const struct layer_spec *spec);

/* play's "events" on an instance: whether it reports clip.event. */
void instance_set_cues(struct instance *in, bool on);
/* The owner's clip_events changed (its subscription): its instances begin
 * or stop reporting. */
void instances_owner_changed(struct instances *set, struct playback_owner *owner);
/* For cues.c: the instance's record of its reports, made (with its timer)
 * on first use; NULL when out of memory.  And a report, through the set's
 * instance_events. */
struct instance_cues *instance_cues_make(struct instance *in);
void instances_report_cue(struct instance *in, const struct cue *cue);

/* Clock changes: each re-anchors and re-arms the end timer. */
void instance_pause(struct instance *in);
void instance_resume(struct instance *in);
void instance_seek(struct instance *in, int64_t time_ns);
void instance_set_speed(struct instance *in, double speed);

/* Where the instance is now: playback time, clip time, state name. */
int64_t instance_time(const struct instance *in);
/* The same at a given clock reading (a stream's tick poses all its
 * instances at one instant). */
int64_t instance_time_at(const struct instance *in, int64_t now_ns);
/* The time of its global sequences (M2): its playback time, never wrapped
 * by the clip, so a flame on a global sequence runs on across the clip's
 * loops, and a stream at playback time T agrees with `sample --time T`. */
int64_t instance_global_time(const struct instance *in);
struct clip_time instance_clip_time(const struct instance *in);
/* Where playback time t lands in the instance's clip (or camera). */
struct clip_time instance_clip_time_of(const struct instance *in, int64_t t);
int64_t instance_duration(const struct instance *in);
const char *instance_state(const struct instance *in);

/* The cache swapped (or removed: asset NULL) the asset with this name. */
void instances_asset_changed(struct instances *set, const char *name, struct asset *asset,
			     uint64_t generation);

size_t instances_count(const struct instances *set);
/* The bytes the set holds for its instances, as asked of malloc: each
 * instance's record and names, the set and its table of ids (not the
 * assets they play, which are the cache's). */
uint64_t instances_bytes(const struct instances *set);
/* Visit every instance (in creation order); stop when fn returns nonzero. */
void instances_each(struct instances *set, int (*fn)(struct instance *in, void *data),
		    void *data);

#endif
