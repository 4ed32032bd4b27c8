/*
 * m2_import.h - a parsed classic M2 (formats/m2.h) to the runtime: bones to
 * a skeleton, one keyed clip per sequence, the vertices with view 0's
 * triangles to one mesh, particle emitters.
 *
 * Conventions (FORMATS.md).  An M2 bone's matrix is
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
 * Sequences.  Sequence s plays its alias target's keys and window
 * [start, end] on the shared millisecond timeline: of a track's keys, those
 * in the target's range whose time falls in the window (m2_track_keys: all
 * keys when the track has no ranges, the whole range when none falls in
 * the window, so that its nearest key holds), at clip time (ms - start).
 * A track on a global sequence keeps all its keys on that sequence's own
 * clock.  Looping follows the sequence's flags (0x20 looping, else played
 * once).
 */
#ifndef ANIMD_M2_IMPORT_H
#define ANIMD_M2_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/anim/clip.h"
#include "daemon/anim/emitter.h"
#include "daemon/anim/mesh.h"
#include "daemon/anim/skeleton.h"
#include "daemon/formats/m2.h"

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
	uint32_t flags;                 /* M2_BONE_* as stored (0x8 billboard) */
	int32_t key_bone_id;            /* -1 or the client's key-bone id */
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
};

/* Convert.  0 with *out filled (free with m2_runtime_free), -ENOMEM.  A
 * model that m2_parse accepted always converts. */
int m2_import(const struct m2_model *m, struct m2_runtime *out);
void m2_runtime_free(struct m2_runtime *r);

#endif
