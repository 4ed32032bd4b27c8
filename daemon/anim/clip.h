/*
 * clip.h - the one runtime clip representation and its sampler.
 *
 * Every format compiles to this.  A clip animates
 * joint_count joints; per joint it has translation, rotation and scale
 * channels.  Two storages share one sampler entry point:
 *
 *  - uniform: frame-based data sampled at a fixed rate (MD5).  `frames`
 *    holds frame_count dense local poses (frame_count * joint_count
 *    transforms, frame-major).  Time -> frame position is exact integer
 *    arithmetic on nanoseconds.
 *  - keyed: per joint and channel, a track of keys with its own timeline
 *    and interpolation (.x, M2).  A channel with no keys holds the
 *    joint's value from `rest`.  A track may run on a global sequence
 *    instead of the clip's time (M2): a clock of its own, of a fixed
 *    length, that loops whatever the clip does.
 *
 * Clip time runs over [0, duration_ns].  Playback time (elapsed since
 * start, any sign, any size) maps to clip time through a loop mode.
 *
 * Sampling never allocates and never fails; clips are immutable once built.
 */
#ifndef ANIMD_CLIP_H
#define ANIMD_CLIP_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/anim/math3d.h"

struct clip_key_index;
struct clip_packed;

#define NS_PER_SEC 1000000000LL

enum loop_mode {
	LOOP_LOOP,      /* wrap around: the end is the start of the next cycle */
	LOOP_ONCE,      /* clamp to [0, duration]; hold the last pose */
	LOOP_PINGPONG,  /* forward then backward, period 2 * duration */
};

enum root_motion {
	ROOT_RAW,       /* joint 0 as authored */
	ROOT_IN_PLACE,  /* Doom's way: joint 0's translation relative to its
			   base, plus root_delta per completed loop */
};

enum interp {
	INTERP_STEP,
	INTERP_LINEAR,      /* lerp; shortest-path slerp for rotations */
	INTERP_CATMULL_ROM, /* through the keys (.x spline positions) */
	INTERP_HERMITE,     /* value, in-tangent, out-tangent per key (M2) */
	INTERP_BEZIER,      /* value, in-control, out-control per key (M2) */
};

struct track {
	uint32_t count;         /* 0: channel not animated */
	uint8_t interp;         /* enum interp */
	uint8_t width;          /* floats per value: 3 (vec3), 4 (quat x,y,z,w), 1 (scalar) */
	const int64_t *times;   /* count non-decreasing clip times in ns */
	const float *values;    /* count * width floats; three times that for
				   HERMITE and BEZIER (value, in, out) */
	uint16_t global;        /* 0: the clip's time; g: global sequence g - 1's time */
};

struct joint_tracks {
	struct track t, r, s;
};

/* A moment of a clip's timeline that playback reports when it passes it
 * (M2 events: a footstep, a sound, a spell's impact).  What the event is
 * belongs to the asset (its `event` index); the clip says when. */
struct clip_event {
	int64_t t_ns;                   /* clip time; may lie outside [0,
					   duration_ns] when the file says so (such
					   a moment is never passed) */
	uint32_t event;                 /* the asset's event */
};

struct clip {
	char *name;
	uint32_t joint_count;
	int64_t duration_ns;
	enum loop_mode loop;            /* the authored default */

	/* Uniform storage (frames != NULL). */
	uint32_t frame_count;
	uint32_t frame_rate;            /* frames per second, > 0 */
	struct transform *frames;       /* frame_count * joint_count; rotations
					   are unit quaternions (the blend's
					   normalisation relies on it) */
	/* The same frames again for the sampler's eight-wide kernel
	 * (clip_block_frames), or NULL: per frame, each whole group of
	 * eight joints as ten rows of eight floats (t.x, t.y, t.z, r.x, r.y,
	 * r.z, r.w, s.x, s.y, s.z; joint 8g + l in lane l), 32-byte aligned
	 * inside block_storage. */
	const float *frame_blocks;
	void *block_storage;
	size_t block_storage_bytes;     /* the size block_storage was allocated with */
	/* The frames compressed (clip_compress), or NULL: then frames and
	 * frame_blocks are NULL and frame_count, frame_rate and duration_ns
	 * still describe the timeline.  One allocation, owned. */
	struct clip_packed *packed;

	/* Keyed storage (tracks != NULL). */
	struct joint_tracks *tracks;    /* joint_count */
	struct transform *rest;         /* joint_count: values for empty channels */
	void *key_storage;              /* owns every track's times and values */
	size_t key_storage_bytes;       /* the size key_storage was allocated with */
	struct clip_key_index *key_index;       /* clip_index_keys, or NULL: owned */

	/* Global sequences (M2): the lengths of the clocks tracks may run on
	 * (track.global), owned by the clip.  global_count 0 elsewhere. */
	uint32_t global_count;
	int64_t *global_ns;

	/* Particle emitters' animated parameters (M2, emitter.h): per emitter
	 * of the asset, its tracks in this clip; NULL / 0 when none. */
	uint32_t emitter_count;
	struct emitter_tracks *emitters;
	/* Attachment points' animated values (M2, attachment.h): per point
	 * of the asset, its track in this clip (width 1); NULL / 0 when none. */
	uint32_t attachment_count;
	struct track *attachments;
	/* Morph target weights (glTF, morph.h): per weight of the asset, its
	 * track in this clip (width 1; count 0: the asset's default weight
	 * holds); NULL / 0 when none.  Tracks may share their times. */
	uint32_t weight_count;
	struct track *weights;
	/* Events (M2), ordered by t_ns (ties by event); NULL / 0 when none. */
	uint32_t event_count;
	struct clip_event *events;

	/* Joints none of the clip's tracks moves (keyed clips), ascending:
	 * where the skeleton has exact rest matrices they place these. */
	uint32_t still_count;
	uint32_t *still_joints;

	/* MD5 extras (NULL / zero when absent). */
	float (*bounds)[6];             /* per frame: min xyz, max xyz */
	vec3 root_base;                 /* joint 0's baseframe translation */
	vec3 root_delta;                /* last frame's root minus root_base */
};

/* Where playback time landed in the clip. */
struct clip_time {
	int64_t t_ns;           /* clip time in [0, duration_ns] */
	int64_t cycles;         /* completed loops (negative when playing back
				   before the start of a loop); 0 otherwise */
	int ended;              /* LOOP_ONCE only: time is past the end */
};

/* Map playback time to clip time.  Uniform clips wrap in exact integer
 * frame units; zero-length clips always map to 0. */
struct clip_time clip_map_time(const struct clip *c, int64_t elapsed_ns, enum loop_mode mode);

/* The loop mapping of frame-based timelines (uniform clips, cameras):
 * `intervals` frame intervals at `rate` frames per second.  Exact: the
 * wrap happens in units of 1/(rate * 1e9) s, and the returned clip time is
 * rounded up to the next nanosecond, so a time that is exactly on a frame
 * samples exactly that frame.  intervals == 0 or rate == 0: always 0. */
struct clip_time clip_map_frames(int64_t elapsed_ns, uint64_t intervals, uint32_t rate,
				 enum loop_mode mode);
/* Length of `intervals` frame intervals at `rate`, rounded up to whole
 * nanoseconds (so that sampling at the duration lands on the last frame);
 * saturates at INT64_MAX; 0 when rate is 0. */
int64_t clip_frames_duration(uint64_t intervals, uint32_t rate);
/* Frame position of clip time t (< 0 counts as 0) at `rate`: returns the
 * whole frame (saturating at UINT64_MAX) and sets *frac in [0, 1]. */
uint64_t clip_frame_at(int64_t t_ns, uint32_t rate, float *frac);

/* Local pose at clip time t (clamped to [0, duration]), with tracks on a
 * global sequence at global time g (wrapped by each sequence's length).
 * `out` holds joint_count transforms. */
void clip_sample_at(const struct clip *c, int64_t t_ns, int64_t g_ns, struct transform *out);
/* The same with the global time equal to the clip time (a clip without
 * global sequences needs no other). */
void clip_sample(const struct clip *c, int64_t t_ns, struct transform *out);

/* What clip_sample_at, clip_apply_root_motion and pose_local_matrices
 * give together: the local matrices of the pose at clip time t_ns (from
 * ct, whose cycles root motion reads), bit for bit; for a uniform clip
 * whose frames are also in blocks (clip_block_frames), on an AVX2 CPU, in
 * one pass that never stores the pose (clip_matrices.c).
 * pose_matrices_to_model_still then takes them to model space.  `local`
 * (joint_count) is scratch. */
void clip_sample_matrices(const struct clip *c, int64_t t_ns, int64_t g_ns, enum root_motion rm,
			  const struct clip_time *ct, struct transform *local, mat34 *out);

/* Lay a uniform clip's frames out again in groups of eight joints, one
 * component per row (frame_blocks), which lets clip_sample_matrices load
 * each component of eight joints at once instead of transposing them: an
 * optimisation only, the matrices are the same to the bit with or without
 * it, for about as many bytes again as the frames.  Nothing to do for a
 * keyed clip or one of fewer than eight joints.  0, or -ENOMEM. */
int clip_block_frames(struct clip *c);

/* What clip_compress keeps poses within when not told: fractions of the
 * rig's size (the largest diagonal of its joints' box in any frame), so
 * that a rig in inches, meters or WoW's yards gets one relative error: a
 * millionth of the size, a few float ulps, measured a tenth of the size
 * from each joint, where skins are, so that poses and vertices stay where
 * the raw frames put them to 1e-6 of the model (reference tests compare at
 * that).  Half of it is below what float poses can hold.  ACL's defaults
 * (0.01 cm at 3 cm) on a 1.8 m character would be 5.5e-5 and 1/60: about
 * 0.6 times the bytes.  A rig with no size (one joint that never moves)
 * gets the inch values below. */
#define CLIP_CODEC_AUTO_PRECISION 1e-6f
#define CLIP_CODEC_AUTO_SHELL_DISTANCE 0.1f
#define CLIP_CODEC_DEFAULT_PRECISION 0.004f
#define CLIP_CODEC_DEFAULT_SHELL_DISTANCE 1.2f

struct clip_codec_params {
	float precision;        /* > 0: the largest displacement allowed */
	float shell_distance;   /* > 0: how far from each joint it is measured */
};

/*
 * Compress a uniform clip's frames (docs/compression.md): for every frame
 * and joint, the points at shell_distance from the joint along its axes,
 * in model space through `parents` (joint_count entries, parents[i] < i or
 * -1; NULL: every joint a root), stay within `precision` of where the raw
 * frames put them (NULL params, or a value <= 0: the rig's size times the
 * CLIP_CODEC_AUTO_ fractions).  Frees the
 * frames and their blocks.  A keyed clip's key index has its poses at the
 * shared key times compressed the same way (its curves and the raw keys
 * stay).  Nothing to do for a clip already compressed or a keyed one
 * without index.  0, -ENOMEM (the clip is left as it was), or -E2BIG.
 */
int clip_compress(struct clip *c, const int32_t *parents, const struct clip_codec_params *p);

/* Whether the clip is frame-based (raw or compressed frames). */
static inline int clip_is_uniform(const struct clip *c)
{
	return c->frames != NULL || c->packed != NULL;
}

/* The worst error clip_compress measured on its metric, the precision and
 * shell distance it was built for (a keyed clip's: its key index's
 * frames'); 0 (and nothing set) for a clip that is not compressed. */
int clip_packed_error(const struct clip *c, float *error, float *precision, float *shell);
/* Of clip_bytes, the compressed frames (0 without; a keyed clip's are
 * also part of clip_index_bytes). */
size_t clip_packed_bytes(const struct clip *c);

/* Build a keyed clip's shared timeline, which lets the sampler find every
 * clip-time track's keys with one search instead of one per track; call it
 * once the tracks are final.  An optimisation only: poses are the same
 * with or without it (a few ulp where rotations are slerped in SIMD).  It
 * is left out (0 returned, key_index NULL) when the clip's tracks have
 * keys at so many different times that the table would outweigh the keys
 * themselves.  0, or -ENOMEM. */
int clip_index_keys(struct clip *c);

/* Fill still_joints from the tracks (joints with no keys in any channel).
 * 0 or -ENOMEM. */
int clip_find_still_joints(struct clip *c);

/* Where a track is at clip time t and global time g: t clamped to the
 * clip, or g wrapped by the track's global sequence (0 for one of length
 * 0). */
int64_t clip_track_time(const struct clip *c, const struct track *tr, int64_t t_ns, int64_t g_ns);
/* Evaluate a usable track (count > 0, times and values set) at time t (as
 * clip_track_time gives it) into out[0 .. width): held before the first
 * key and after the last, interpolated between. */
void track_eval(const struct track *tr, int64_t t, float *out);

/* Apply a root-motion mode to a sampled pose (joint 0).  ROOT_RAW leaves it
 * unchanged. */
void clip_apply_root_motion(const struct clip *c, enum root_motion mode,
			    const struct clip_time *ct, struct transform *pose);

/* Blended bounds box at clip time t; 0, or -1 when the clip has none. */
int clip_bounds(const struct clip *c, int64_t t_ns, float out[6]);

/* Seconds (API) <-> nanoseconds (engine), rounding to nearest and saturating
 * instead of overflowing; NaN maps to 0. */
int64_t time_from_seconds(double s);
double time_to_seconds(int64_t ns);

/*
 * The bytes the clip owns in memory, exactly as they were asked of
 * malloc (the allocator's own overhead and rounding are not counted): the
 * struct, its name, the frames, their blocks and bounds (uniform storage),
 * the tracks, rest pose, key storage, key index and still joints (keyed
 * storage), the global sequences' lengths, the emitter, attachment and
 * morph weight tracks and the events.  Keys
 * the clip points at but does not own (an M2 asset's global-sequence keys,
 * which every clip shares) are the asset's.  This is the runtime
 * representation, not the file.  Allocation sizes it assumes, which the
 * importers follow (a unit test checks them against every allocation of a
 * load): frames frame_count * joint_count, block_storage
 * block_storage_bytes, bounds frame_count (one box for a keyed clip);
 * tracks, rest and still_joints joint_count + 1, global_ns global_count +
 * 1, emitters emitter_count + 1, attachments attachment_count + 1, weights
 * weight_count + 1, events event_count + 1 entries (a spare so that none is empty);
 * key_storage key_storage_bytes.
 */
size_t clip_bytes(const struct clip *c);
/* Of clip_bytes, what the key index takes (0 without one): what the
 * index trades for sampling speed. */
size_t clip_index_bytes(const struct clip *c);

void clip_free(struct clip *c);
/* Free the clip's key index alone (and set it NULL): for a copy of a clip
 * struct that shares the rest. */
void clip_free_index(struct clip *c);

#endif
