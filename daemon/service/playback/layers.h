/*
 * layers.h - an instance's stack of layers over its clip (the "base"):
 * the cross-fades of `play` on an instance, and the override and additive
 * layers of `layer.add`.  The math is daemon/anim/blend.h's.
 *
 * The stack applies bottom-up over the base: cross-fades first (in the
 * order they began), then the added layers, so a layer keeps applying to
 * whatever the fades below it show.  A cross-fade is an override layer
 * whose weight runs 0 -> 1; when it reaches 1 it becomes the base and the
 * fades below it go (instances.c does that when its timer fires; until
 * then the weight is clamped at 1, so the pose is the new clip's exactly
 * from the fade's end on).  Weights move linearly on the daemon's clock,
 * paused instance or not; each layer's clip has its own playback clock,
 * which pause and resume move with the instance's.
 *
 * Loop thread only, except layers_apply, which a stream tick calls on a
 * worker while the loop waits for it (nothing changes a stack meanwhile).
 */
#ifndef ANIMD_LAYERS_H
#define ANIMD_LAYERS_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/playback.h"
#include "daemon/assets/asset.h"

struct instance;

enum layer_mode {
	LAYER_OVERRIDE,
	LAYER_ADDITIVE,
	LAYER_FADE,             /* a cross-fade of `play` */
};
#define LAYER_MODE_COUNT 3
/* "override", "additive", "fade"; layer.add takes the first two. */
extern const char *const layer_mode_names[LAYER_MODE_COUNT];

struct layer {
	uint32_t id;                    /* unique in its instance */
	enum layer_mode mode;
	struct asset *asset;            /* referenced */
	char *asset_name;
	uint64_t generation;
	const struct clip *clip;        /* inside asset */
	char *clip_name;
	struct playback clock;
	enum loop_mode loop;
	/* The weight runs from `from` at fade_start_ns to `to` at
	 * fade_end_ns (daemon clock), and stays `to` after. */
	float from, to;
	int64_t fade_start_ns, fade_end_ns;
	bool removing;                  /* goes when its fade reaches 0 */
	bool fading;                    /* a fade is under way (ends at fade_end_ns) */
	uint32_t mask_count;            /* 0: every joint */
	uint32_t *mask_roots;           /* joint indexes, mask_count */
	float *mask_root_weights;       /* mask_count */
	float *mask;                    /* per joint, or NULL */
	struct transform *ref;          /* additive: the reference pose, per joint */
	char *ref_clip_name;            /* additive: NULL for the layer's clip */
	int64_t ref_time_ns;
};

struct layer_spec {
	enum layer_mode mode;
	const char *asset_name;
	struct asset *asset;            /* borrowed: the layer takes a reference */
	uint64_t generation;
	const struct clip *clip;        /* inside asset; fits the instance's skeleton */
	enum loop_mode loop;
	double speed;
	int64_t start_ns;
	float weight;                   /* [0, 1]: where the fade in ends */
	int64_t fade_ns;                /* 0: at that weight at once */
	uint32_t mask_count;
	const uint32_t *mask_roots;     /* joint indexes (checked by the caller) */
	const float *mask_weights;      /* [0, 1] each, or NULL for 1 */
	const struct clip *ref_clip;    /* additive: NULL for `clip` */
	int64_t ref_time_ns;
};

/* The joint count of the instance's pose (its base clip's). */
uint32_t layers_joint_count(const struct instance *in);

/* Weight of l at clock reading now. */
float layers_weight_at(const struct layer *l, int64_t now);

/* Push a layer on top of the stack (a LAYER_FADE goes above the other
 * fades, below every added layer).  0, or -ENOMEM (nothing changed);
 * *id_out its id. */
int layers_push(struct instance *in, const struct layer_spec *spec, uint32_t *id_out);
struct layer *layers_find(struct instance *in, uint32_t id);
/* Fade l's weight from where it is now to `weight` over fade_ns (0: at
 * once). */
void layers_set_weight(struct layer *l, float weight, int64_t fade_ns);
/* Remove l now, or fade it out and mark it removing. */
void layers_remove(struct instance *in, struct layer *l, int64_t fade_ns);
/* The cross-fade at index i is complete: it becomes the base, and it and
 * the fades below it leave the stack. */
void layers_promote(struct instance *in, uint32_t i);
/* Drop layer i from the stack and free it. */
void layers_drop(struct instance *in, uint32_t i);
/* Free every layer (the instance goes). */
void layers_free_all(struct instance *in);

/* Apply the stack at clock `now` to pose (the base clip sampled:
 * layers_joint_count entries); scratch holds as many. */
void layers_apply(const struct instance *in, int64_t now, struct transform *pose,
		  struct transform *scratch);

/* Move every layer's clock with the instance's. */
void layers_pause(struct instance *in, int64_t now);
void layers_resume(struct instance *in, int64_t now);

/* The earliest fade end still to come (or passed and not yet handled), or
 * INT64_MAX. */
int64_t layers_next_deadline(const struct instance *in);

/* A new version of the asset `name` (a reload): rebind every layer that
 * plays it, by clip name, re-sampling reference poses.  0, or -1 with a
 * stable reason code (PROTOCOL.md's instance.stopped) and a message. */
int layers_rebind(struct instance *in, const char *name, struct asset *asset, uint64_t generation,
		  const char **code, char *message, size_t len);
/* Does a layer play the asset `name`? */
bool layers_use(const struct instance *in, const char *name);

/* The bytes the stack holds, as asked of malloc. */
uint64_t layers_bytes(const struct instance *in);

#endif
