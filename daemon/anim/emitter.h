/*
 * emitter.h - particle emitters (M2): what stays still, what is animated,
 * and their state at a time.
 *
 * An emitter hangs on a joint at a position in that joint's space.  Ten
 * scalar parameters and an on/off value are animated per clip (tracks of
 * the clip's time, or of a global sequence, like joints' tracks); the rest
 * is static.  Evaluation gives each emitter's model-space transform (the
 * joint's skin matrix, the bone matrix of M2, times its position) and its
 * parameters.  Particles themselves are the renderer's business.
 */
#ifndef ANIMD_EMITTER_H
#define ANIMD_EMITTER_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/math3d.h"

enum emitter_param {
	EMITTER_EMISSION_SPEED,
	EMITTER_SPEED_VARIATION,
	EMITTER_VERTICAL_RANGE,
	EMITTER_HORIZONTAL_RANGE,
	EMITTER_GRAVITY,
	EMITTER_LIFESPAN,
	EMITTER_EMISSION_RATE,
	EMITTER_AREA_LENGTH,
	EMITTER_AREA_WIDTH,
	EMITTER_Z_SOURCE,
	EMITTER_PARAMS
};

/* The wire and JSON names: "emission_speed", ... "z_source". */
extern const char *const emitter_param_names[EMITTER_PARAMS];

/* What does not move: as the file has it, for tools and renderers. */
struct emitter {
	uint32_t joint;                 /* the joint it hangs on */
	vec3 position;                  /* in that joint's space */
	int32_t id;
	uint32_t flags;
	int16_t texture, blend_mode, emitter_type, particle_type, tile_rotation;
	int16_t rows, columns;
	float midpoint;
	uint32_t colors[3];             /* ARGB: start, middle, end */
	float sizes[3];
	int16_t tiles[10];
	float slowdown, rotation;
	uint32_t spline_point_count;
	vec3 *spline_points;            /* owned; NULL when none */
	char *model_name;               /* owned; NULL when none */
};

/* One emitter's animated values in one clip. */
struct emitter_tracks {
	struct track param[EMITTER_PARAMS];     /* width 1 */
	struct track enabled;                   /* width 1: > 0.5 is on */
};

/* One emitter at one time. */
struct emitter_state {
	mat34 m;                        /* model-space transform */
	float param[EMITTER_PARAMS];
	float enabled;                  /* 1 on, 0 off */
};

/*
 * Evaluate n emitters at clip time t and global time g in clip c (NULL,
 * or a clip without emitter tracks: every parameter 0, enabled 1),
 * with `joint_mats` the skin matrices of the pose (one per joint).
 * Parameters with no keys are 0, an enabled track with no keys is on.
 */
void emitters_sample(const struct emitter *defs, uint32_t n, const struct clip *c, int64_t t_ns,
		     int64_t g_ns, const mat34 *joint_mats, struct emitter_state *out);

/* Free what an emitter owns (not the struct). */
void emitter_fini(struct emitter *e);
/* The bytes an emitter owns, not counting the struct itself (which lives
 * in its asset's array), exactly as asked of malloc: its spline points and
 * its model name (length + 1). */
size_t emitter_bytes(const struct emitter *e);

#endif
