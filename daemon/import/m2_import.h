/*
 * m2_import.h - a parsed M2 (formats/m2/m2.h) to the runtime: bones to
 * a skeleton, one keyed clip per sequence, the vertices with view 0's
 * triangles to one mesh, particle emitters.
 *
 * Conventions (docs/formats/m2.md).  An M2 bone's matrix is
 *     B = B_parent * T(pivot) * T(t) * R(r) * S(s) * T(-pivot)
 * and a vertex is sum (w / 255) * B * v, with no inverse bind.  The runtime
 * composes local TRS transforms, model = model_parent * T * R * S, and
 * skins with model * inverse(bind).  So joint j's frame is taken as
 * model_j = B_j * T(pivot_j): its local transform relative to the parent's
 * frame is then T(pivot_j - pivot_parent + t) * R * S, a plain TRS, and its
 * bind pose is T(pivot_j), whose inverse turns model_j back into B_j.
 * Translation keys are offset by pivot_j - pivot_parent here, once (their
 * tangents are not); rotations are used as the file has them (x, y, z, w),
 * normalised.  M2 is right-handed and Z-up: declared, not converted.
 *
 * Bones that ignore part of their parent (flags 0x1, 0x2, 0x4) keep those
 * bits in the skeleton's ignore_parent (skeleton.h says how the model
 * matrix is then made; with this frame, B_j = model_j * T(-pivot_j) is
 * WebWowViewerCpp's P' * T(pivot) * T(t) * R * S * T(-pivot), P' the
 * parent's bone matrix with the ignored parts replaced by the model's).
 *
 * Sequences.  Sequence s plays its alias target's keys and window
 * [start, end] on the shared millisecond timeline: of a track's keys, those
 * in the target's range whose time falls in the window (m2_track_keys: all
 * keys when the track has no ranges, the whole range when none falls in
 * the window, so that its nearest key holds), at clip time (ms - start).
 * A track on a global sequence keeps all its keys on that sequence's own
 * clock.  Every sequence is authored `loop` (no flag says otherwise: m2.h).
 *
 * Attachment points become struct attachment (their bone's joint, their
 * position) with one track per clip (its "animate" value); events become
 * struct m2_event_info with, per clip, the moments of the sequence's keys
 * (m2_event_keys, at ms - start: some lie outside the clip, as stored).
 */
#ifndef ANIMD_M2_IMPORT_H
#define ANIMD_M2_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/anim/attachment.h"
#include "daemon/anim/clip.h"
#include "daemon/anim/emitter.h"
#include "daemon/anim/mesh.h"
#include "daemon/anim/skeleton.h"
#include "daemon/formats/m2/m2.h"

/* What inspect and assets.info say of a sequence (one per clip). */
struct m2_sequence_info {
	uint16_t id;                    /* animation id (AnimationData.dbc) */
	uint16_t variation;
	uint32_t flags;
	float movespeed;
	int16_t frequency;
	uint32_t replay_min, replay_max;
	uint32_t blend_ms;
	int32_t alias_of;               /* the sequence whose keys it plays, or -1 */
	int32_t next_variation;         /* -1 or a sequence */
	uint8_t data;                   /* enum m2_sequence_data of the sequence whose
					   keys it plays */
	bool loaded;                    /* its keys are there (in the model, or
					   in an attached .anim); false: its clip is
					   the rest pose and must not be played */
};

/* Per runtime joint: what the file says beyond the skeleton. */
struct m2_joint_info {
	uint32_t file_index;            /* the bone's index in the file */
	uint32_t flags;                 /* M2_BONE_* as stored (m2_bone_billboard
					   names its billboard) */
	int32_t key_bone_id;            /* -1 or the client's key-bone id */
};

/* An event (m2.h, struct m2_event): what it is; when it happens is each
 * clip's (clip.h, struct clip_event). */
struct m2_event_info {
	char id[4];                     /* as stored, e.g. "$DTH" (any bytes) */
	uint32_t data;
	uint32_t bone;                  /* as stored */
	int32_t joint;                  /* its joint, or -1 when bone names none */
	vec3 position;                  /* in the joint's space */
};

struct m2_runtime {
	struct skeleton *skeleton;      /* joints parents-first; named "bone<file index>" */
	struct m2_joint_info *joints;   /* skeleton->joint_count */
	uint32_t clip_count;            /* one per sequence, named by its index */
	struct clip **clips;
	struct m2_sequence_info *sequences;     /* clip_count */
	uint32_t global_count;
	int64_t *global_ns;             /* lengths of the global sequences */
	void *global_keys;              /* the keys of global-sequence tracks, which
					   every clip shares (clips do not own it) */
	size_t global_keys_bytes;       /* its size (0 when NULL) */
	uint32_t mesh_count;            /* 0 or 1 */
	struct mesh **meshes;
	uint32_t emitter_count;
	struct emitter *emitters;
	uint32_t attachment_count;
	struct attachment *attachments;
	uint32_t event_count;
	struct m2_event_info *events;
};

/* Convert.  0 with *out filled (free with m2_runtime_free), -ENOMEM.  A
 * model that m2_parse accepted always converts. */
int m2_import(const struct m2_model *m, struct m2_runtime *out);
void m2_runtime_free(struct m2_runtime *r);

#endif
