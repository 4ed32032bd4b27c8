/*
 * attachment.h - attachment points (M2): where a game hangs another model
 * (a sword in a hand, a helmet on a head).
 *
 * A point hangs on a joint at a position in that joint's space; its
 * model-space transform is the joint's skin matrix (the bone matrix of M2)
 * times T(position), so it turns with the joint and keeps its offset.  Each
 * clip has one animated value per point ("animate": whether the model hung
 * there animates; 1 without keys), a track of the clip's time or of a
 * global sequence, like joints' tracks.
 */
#ifndef ANIMD_ATTACHMENT_H
#define ANIMD_ATTACHMENT_H

#include <stdint.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/math3d.h"

struct attachment {
	uint32_t id;                    /* the file's attachment id (M2: a slot such
					   as 1 right hand, 11 head) */
	uint32_t joint;                 /* the joint it hangs on */
	vec3 position;                  /* in that joint's space */
};

/* One point at one time. */
struct attachment_state {
	mat34 m;                        /* model-space transform */
	float animate;                  /* the animated value: 1, or 0 */
};

/*
 * Evaluate n points at clip time t and global time g in clip c (NULL, or
 * a clip without attachment tracks: animate 1), `joint_mats` the skin
 * matrices of the pose (one per joint).  A track's value is reported as
 * 0 or 1 (> 0.5 is 1).
 */
void attachments_sample(const struct attachment *defs, uint32_t n, const struct clip *c,
			int64_t t_ns, int64_t g_ns, const mat34 *joint_mats,
			struct attachment_state *out);

#endif
