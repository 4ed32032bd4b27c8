/*
 * gltf.h - glTF 2.0 (Khronos, the 2.0.1 specification): `.gltf` (JSON,
 * its buffers external files or base64 `data:` URIs) and `.glb` (the
 * binary container: a JSON chunk and a BIN chunk).  Bytes in, a validated
 * document out; the facts, the rule and their sources are in
 * docs/formats/gltf.md.
 *
 * THREE STEPS, because a `.gltf` names files the reader may not open:
 *
 *   gltf_parse          the container and the JSON (jansson): every object
 *                       animd reads, every reference inside what it names,
 *                       the node graph a forest, the animations' and
 *                       meshes' shapes; `data:` buffers decoded, a GLB's
 *                       BIN chunk found.  Buffers with a relative URI are
 *                       listed (gltf_buffer.path) for the caller to read;
 *   gltf_attach_buffer  one such file's bytes (borrowed: they must outlive
 *                       the model);
 *   gltf_finish         every view inside its buffer and every accessor
 *                       inside its view (declared sizes: whether or not the
 *                       bytes are there), then the data animd evaluates:
 *                       key times, outputs, indices, joints, weights, the
 *                       inverse bind matrices; amplification capped.
 *                       After it, gltf_accessor_floats / _uints read any
 *                       accessor `used` marks, in bounds by construction.
 *
 * STRICTNESS (the rule of docs/formats/m2.md, for glTF):
 *  - safety, always an error: the GLB container, the JSON's syntax, every
 *    index inside what it indexes (in the JSON and in the data: indices,
 *    joints, sparse indices), every view inside its buffer and accessor
 *    inside its view, a node graph without cycles or shared children, a
 *    needed buffer that cannot be read, counts an output cannot back
 *    (a file that would expand past GLTF_EXPANSION times its bytes);
 *  - meaning, an error only where the data feeds an output animd
 *    publishes: key times that go back, non-finite values in nodes, keys,
 *    vertices and inverse bind matrices, output counts that do not match
 *    their inputs, negative skin weights, morph weight counts that do not
 *    match the targets, a required extension animd does not know;
 *  - notes (diag.h), and the file loads, for what is plain or feeds
 *    nothing: a repeated key time (the later key holds: Sketchfab writes
 *    them), a non-unit quaternion (normalised), weights that do not sum to
 *    1 (normalised), a missing buffer nothing animd evaluates reads,
 *    optional extensions, min/max that animd does not use, unused
 *    samplers, channels without a node, byteStride 0 (tightly packed).
 *
 * Locations: in a `.gltf`, line:col of the JSON value at fault; in a
 * `.glb`, the byte offset of that value in the file (the JSON chunk
 * starts at 0x14); data at fault in the GLB's BIN chunk, at its offset in
 * the file; in an external buffer, at its offset in that file, and
 * `error_buffer` says which (the caller names it in the message); in a
 * `data:` URI, at the URI, the byte named in the message.
 *
 * Values are the file's: column-major matrices, quaternions x, y, z, w,
 * seconds, right-handed, Y up (animd's own conventions).
 */
#ifndef ANIMD_GLTF_H
#define ANIMD_GLTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/formats/diag.h"

/* The largest file the reader takes, and how far a file may expand: the
 * floats animd's import makes of the data (instanced vertices and their
 * targets, keys through every channel, accessors without a view, which
 * are zeros) may not exceed GLTF_EXPANSION times the bytes read plus
 * GLTF_EXPANSION_FLOOR, so that a small file cannot claim gigabytes. */
#define GLTF_MAX_BYTES (1024ull << 20)
#define GLTF_EXPANSION 16u
#define GLTF_EXPANSION_FLOOR (4u << 20)

/* Component types (the GL enums the file writes). */
enum {
	GLTF_BYTE = 5120,
	GLTF_UNSIGNED_BYTE = 5121,
	GLTF_SHORT = 5122,
	GLTF_UNSIGNED_SHORT = 5123,
	GLTF_UNSIGNED_INT = 5125,
	GLTF_FLOAT = 5126,
};

enum gltf_type { GLTF_SCALAR, GLTF_VEC2, GLTF_VEC3, GLTF_VEC4, GLTF_MAT2, GLTF_MAT3, GLTF_MAT4 };

enum gltf_buffer_kind {
	GLTF_BUFFER_GLB,                /* the GLB's BIN chunk */
	GLTF_BUFFER_DATA_URI,           /* decoded from a data: URI */
	GLTF_BUFFER_FILE,               /* a relative URI: `path`, read by the caller */
	GLTF_BUFFER_NONE,               /* no data: no uri (and not the BIN chunk),
					   another scheme, or a path refused */
};

struct gltf_buffer {
	uint64_t byte_length;           /* declared */
	uint8_t kind;                   /* enum gltf_buffer_kind */
	bool needed;                    /* an accessor animd reads lies in it */
	bool attached;                  /* data is set */
	const unsigned char *data;      /* at least byte_length bytes once attached */
	size_t size;                    /* bytes there */
	uint64_t file_offset;           /* GLB: where the BIN chunk's data starts */
	char *path;                     /* FILE: the URI percent-decoded, relative
					   to the file's folder ("./" and "a/../"
					   removed; may begin with "../"); owned */
	const char *why_none;           /* NONE: why ("no uri", "an http: URI") */
	unsigned char *owned;           /* DATA_URI: the decoded bytes */
};

struct gltf_view {
	uint32_t buffer;
	uint64_t offset, length;
	uint32_t stride;                /* 0: none given (elements packed) */
};

struct gltf_accessor {
	int32_t view;                   /* -1: zeros (then sparse, if any) */
	uint64_t offset;
	uint32_t component;             /* GLTF_BYTE .. GLTF_FLOAT */
	uint8_t type;                   /* enum gltf_type */
	uint8_t ncomp;                  /* 1, 2, 3, 4, 4, 9, 16 */
	uint8_t comp_bytes;             /* 1, 2 or 4 */
	bool normalized;
	bool used;                      /* animd reads it: checked, readable */
	uint32_t count;
	uint32_t elem_bytes;            /* an element's bytes (matrix columns padded) */
	uint32_t stride;                /* between elements (the view's, or elem_bytes) */
	/* Sparse substitution (count 0: none). */
	uint32_t sparse_count;
	uint32_t sparse_index_view, sparse_value_view;
	uint64_t sparse_index_offset, sparse_value_offset;
	uint32_t sparse_index_component;
};

/* A node: matrix (column-major) or translation, rotation, scale. */
struct gltf_node {
	const char *name;               /* borrowed from the document; NULL if none */
	int32_t parent;                 /* -1 for a root */
	uint32_t child_count;
	const uint32_t *children;
	int32_t mesh, skin;             /* -1: none */
	bool has_matrix;
	float matrix[16];               /* column-major; identity if none */
	float t[3], r[4], s[3];         /* r not normalised: as the file has it */
	uint32_t weight_count;          /* morph weights of its mesh's instance */
	const float *weights;
};

struct gltf_skin {
	const char *name;
	uint32_t joint_count;
	const uint32_t *joints;         /* node indices, distinct */
	int32_t inverse_bind;           /* accessor (MAT4 float, >= joint_count), or -1 */
	int32_t skeleton;               /* node, or -1 (a hint; animd needs none) */
};

/* Primitive modes. */
enum {
	GLTF_POINTS, GLTF_LINES, GLTF_LINE_LOOP, GLTF_LINE_STRIP,
	GLTF_TRIANGLES, GLTF_TRIANGLE_STRIP, GLTF_TRIANGLE_FAN,
};

struct gltf_target {
	int32_t position, normal;       /* accessors (VEC3), or -1 */
};

struct gltf_primitive {
	int32_t position, normal;       /* accessors, or -1 */
	int32_t texcoord0, color0;      /* accessors, or -1 */
	uint32_t texcoord_sets;
	int32_t indices;                /* accessor, or -1: vertices in order */
	uint32_t mode;
	int32_t material;
	uint32_t set_count;             /* JOINTS_n / WEIGHTS_n pairs: 0 .. set_count - 1 */
	const int32_t *joints;          /* set_count accessors (VEC4 unsigned) */
	const int32_t *weights;         /* set_count accessors (VEC4) */
	uint32_t target_count;
	const struct gltf_target *targets;
};

struct gltf_mesh {
	const char *name;
	uint32_t primitive_count;
	const struct gltf_primitive *primitives;
	uint32_t target_count;          /* the same in every primitive */
	uint32_t weight_count;          /* default weights (0, or target_count) */
	const float *weights;
	const char *const *target_names; /* extras.targetNames (the exporters'
					    custom: Blender's shape keys), or NULL */
};

enum gltf_path { GLTF_PATH_TRANSLATION, GLTF_PATH_ROTATION, GLTF_PATH_SCALE, GLTF_PATH_WEIGHTS };
enum gltf_interp { GLTF_INTERP_LINEAR, GLTF_INTERP_STEP, GLTF_INTERP_CUBICSPLINE };

struct gltf_sampler {
	uint32_t input, output;         /* accessors */
	uint8_t interp;                 /* enum gltf_interp */
};

struct gltf_channel {
	uint32_t sampler;
	int32_t node;                   /* -1: none (the channel animates nothing) */
	uint8_t path;                   /* enum gltf_path */
	bool ignored;                   /* a weights channel of a node without morph
					   targets, or a later channel on the same
					   node and path: animates nothing (noted) */
};

struct gltf_animation {
	const char *name;
	uint32_t sampler_count, channel_count;
	const struct gltf_sampler *samplers;
	const struct gltf_channel *channels;
	float duration;                 /* seconds: the largest input (after finish) */
};

struct gltf_model {
	bool glb;
	uint32_t version_minor;         /* asset.version "2.x" */
	const char *generator;          /* asset.generator, or NULL */

	uint32_t buffer_count, view_count, accessor_count, node_count, skin_count,
		 mesh_count, animation_count, scene_count, material_count;
	struct gltf_buffer *buffers;
	struct gltf_view *views;
	struct gltf_accessor *accessors;
	struct gltf_node *nodes;
	struct gltf_skin *skins;
	struct gltf_mesh *meshes;
	struct gltf_animation *animations;
	const char **material_names;    /* material_count, entries may be NULL */

	/* The scene shown: `scene`, else scenes[0], else every root node
	 * (scene -1).  `roots` are its nodes. */
	int32_t scene;
	uint32_t root_count;
	const uint32_t *roots;
	bool quantized;                 /* KHR_mesh_quantization used */

	/* The error's file, when it is in a buffer read from a file: that
	 * buffer's index (its `path`), else -1 (the document itself). */
	int32_t error_buffer;

	struct diag_notes notes;
	void *priv;                     /* the parse's own state (the JSON text, the
					   document, the arena) */
};

/*
 * Parse a `.gltf` or `.glb` held in buf (recognised by its first bytes:
 * "glTF" is a GLB whatever the name).  The buffer must outlive the model
 * (JSON strings and the BIN chunk are borrowed).  0 with *out, or
 * -EINVAL with d located (see above), or -ENOMEM.
 */
int gltf_parse(const void *buf, size_t len, struct gltf_model **out, struct diag *d);

/* Buffer `index` (kind FILE) is `len` bytes at `bytes`, which must outlive
 * the model.  Fewer than its byteLength is an error located at the
 * buffer's byteLength; more, a note.  0 or -EINVAL. */
int gltf_attach_buffer(struct gltf_model *m, uint32_t index, const void *bytes, size_t len,
		       struct diag *d);

/* The checks that need the data (above), once every buffer that can be
 * attached is.  `file_bytes` is what was read in all (the file and its
 * buffers) for the expansion cap.  0, -EINVAL with d located (and
 * error_buffer set when in an external buffer), or -ENOMEM. */
int gltf_finish(struct gltf_model *m, uint64_t file_bytes, struct diag *d);

/* After gltf_finish, for an accessor marked `used`: its count * ncomp
 * values, element by element (a matrix column by column, the padding
 * skipped), sparse values substituted.  _floats decodes normalised
 * integers as the specification says (max(c / 127, -1), c / 255, ...),
 * other integers as their value; _uints reads unsigned integer
 * components. */
void gltf_accessor_floats(const struct gltf_model *m, uint32_t accessor, float *out);
void gltf_accessor_uints(const struct gltf_model *m, uint32_t accessor, uint32_t *out);
/* The same values decoded once and kept by the model (gltf_finish's checks
 * and an import read them alike, with no copy of their own); NULL when
 * out of memory. */
const float *gltf_floats(const struct gltf_model *m, uint32_t accessor);
const uint32_t *gltf_uints(const struct gltf_model *m, uint32_t accessor);

/* Name of a node for people: its name, or "node N" in buf. */
const char *gltf_node_label(const struct gltf_model *m, uint32_t node, char *buf, size_t size);

void gltf_model_free(struct gltf_model *m);

#endif
