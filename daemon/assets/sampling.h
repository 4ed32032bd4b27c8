/*
 * sampling.h - evaluate one pose of an asset at a time, in a chosen space.
 *
 * Shared by `animd sample` and the daemon's `sample` request, so both give
 * the same numbers.  Allocates its result arrays (this is the on-demand
 * path, not the streaming hot path).
 */
#ifndef ANIMD_SAMPLING_H
#define ANIMD_SAMPLING_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/anim/attachment.h"
#include "daemon/assets/asset.h"

enum sample_space {
	SPACE_LOCAL,
	SPACE_MODEL,
	SPACE_SKIN,
	SPACE_VERTICES,
	SPACE_CAMERA,
	SPACE_EMITTERS,                 /* M2 particle emitters */
	SPACE_ATTACHMENTS,              /* M2 attachment points */
	SPACE_WEIGHTS,                  /* glTF morph target weights */
};

/*
 * A layer over the request's clip (blend.h's math): applied bottom-up in
 * the order given, each to the local pose the ones below it made, before
 * any space is computed.  `asset` NULL is the request's asset; another one
 * (an md5anim) must fit the pose's skeleton.  Every clip of the stack is
 * played with the request's loop mode when it sets one (else its own) and
 * root-motion mode, at the layer's own time.
 */
enum sample_layer_mode {
	SAMPLE_LAYER_OVERRIDE,
	SAMPLE_LAYER_ADDITIVE,
};

struct sample_layer {
	enum sample_layer_mode mode;
	const struct asset *asset;      /* NULL: the request's */
	const char *asset_name;         /* what replies call it; NULL: the request's */
	const char *clip;               /* NULL for the asset's first */
	double time;                    /* seconds of playback */
	float weight;                   /* [0, 1] */
	uint32_t mask_count;            /* 0: every joint */
	const char *const *mask_joints; /* subtree roots, by joint name */
	const float *mask_weights;      /* one per root in [0, 1], or NULL for 1 */
	const char *ref_clip;           /* additive: the reference pose's clip of
					   the layer's asset, NULL for the layer's */
	double ref_time;                /* additive: its time (0: the first frame) */
};

#define SAMPLE_MAX_LAYERS 16            /* per request */

struct sample_request {
	const struct asset *asset;      /* the file sampled */
	const struct asset *mesh;       /* md5mesh supplying bind pose and vertices, or NULL */
	const char *clip;               /* clip name, NULL for the first */
	double time;                    /* seconds of playback; also the time of
					   global sequences (M2) */
	enum sample_space space;
	int loop_set;                   /* 0: use the clip's authored loop mode */
	enum loop_mode loop;
	enum root_motion root_motion;
	uint32_t layer_count;           /* at most SAMPLE_MAX_LAYERS */
	const struct sample_layer *layers;
	/* The skeleton's bind pose (the pose its meshes were bound in:
	 * bind_model) instead of a clip: no clip, layers or time apply, and
	 * only the joint spaces and vertices can be asked for. */
	int bind;
	/* With SPACE_VERTICES: the replies carry each vertex's influences
	 * (joints and weights).  What is packed, not what is evaluated. */
	int weights;
};

struct sample_result {
	enum sample_space space;
	const struct skeleton *skeleton;    /* joint names and parents (joint spaces) */
	const struct clip *clip;            /* NULL when the asset has none */
	struct clip_time clip_time;
	struct transform *local;            /* SPACE_LOCAL */
	mat34 *mats;                        /* SPACE_MODEL, SPACE_SKIN */
	uint32_t mesh_count;                /* SPACE_VERTICES */
	const struct mesh **meshes;
	vec3 **positions;                   /* per mesh, vertex_count each */
	vec3 **normals;                     /* per mesh, or NULL for one without */
	struct camera_frame camera;         /* SPACE_CAMERA */
	uint32_t emitter_count;             /* SPACE_EMITTERS */
	const struct emitter *emitters;     /* the asset's definitions */
	struct emitter_state *emitter_states;
	uint32_t attachment_count;          /* SPACE_ATTACHMENTS */
	const struct attachment *attachments;   /* the asset's points */
	struct attachment_state *attachment_states;
	uint32_t weight_count;              /* SPACE_WEIGHTS, and what SPACE_VERTICES
					       morphed by (glTF) */
	float *weights;
	int has_bounds;                     /* the clip's box (not with layers) */
	float bounds[6];
	uint32_t layer_count;               /* the request's layers, applied */
};

#define SAMPLE_SPACE_COUNT (SPACE_WEIGHTS + 1)
/* The names of spaces, loop modes and root-motion modes, by value (the wire
 * and the tools use these words). */
extern const char *const sample_space_names[SAMPLE_SPACE_COUNT];
extern const char *const sample_loop_names[3];
extern const char *const sample_root_motion_names[2];

const char *sample_space_name(enum sample_space s);
int sample_space_parse(const char *name, enum sample_space *out);
const char *sample_loop_name(enum loop_mode m);
int sample_loop_parse(const char *name, enum loop_mode *out);
const char *sample_root_motion_name(enum root_motion m);
int sample_root_motion_parse(const char *name, enum root_motion *out);

/* Joint j's local matrix when it is exact and not a TRS (a still .x frame
 * whose matrix has a shear or a collapsed axis: the `local` transform is
 * then only its split), else NULL. */
const mat34 *sample_exact_local(const struct sample_result *r, uint32_t j);

/* Model matrices of a sampled local pose: the clip's still joints (or all
 * of them, without a clip) placed by the skeleton's exact rest matrices. */
void sample_local_to_model(const struct skeleton *s, const struct clip *c,
			   const struct transform *local, mat34 *model);

/* The space a request should default to for this asset. */
enum sample_space sample_default_space(const struct asset *a);

/* Evaluate.  0, or a negative errno with a one-line reason in err:
 * -ENOENT unknown clip or mask joint, -EOPNOTSUPP a space this asset
 * cannot give (or layers on a camera, or `bind` without a bind pose or
 * for a space that is not a skeleton's or its vertices), -EINVAL a mesh or layer that is not
 * one or does not fit, a weight out of [0, 1], too many layers, -ENOMEM. */
int sample_evaluate(const struct sample_request *req, struct sample_result *res, char *err,
		    size_t errlen);
void sample_result_free(struct sample_result *res);

#endif
