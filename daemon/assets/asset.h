/*
 * asset.h - one loaded asset file: format detection, parsing, conversion
 * to the runtime representation.
 *
 * The one place that turns a file into runtime objects, shared by the
 * offline tools (animd check / inspect / sample) and the daemon's cache.
 * An asset is immutable once loaded.
 */
#ifndef ANIMD_ASSET_H
#define ANIMD_ASSET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "daemon/anim/camera.h"
#include "daemon/anim/clip.h"
#include "daemon/anim/emitter.h"
#include "daemon/anim/mesh.h"
#include "daemon/anim/skeleton.h"
#include "daemon/import/m2_import.h"

enum asset_format {
	ASSET_FORMAT_UNKNOWN = -1,
	ASSET_FORMAT_MD5MESH,
	ASSET_FORMAT_MD5ANIM,
	ASSET_FORMAT_MD5CAMERA,
	ASSET_FORMAT_X,
	ASSET_FORMAT_M2,
	ASSET_FORMAT_GLTF,              /* .gltf and .glb */
};
/* Formats 0 .. ASSET_FORMAT_COUNT - 1 exist. */
#define ASSET_FORMAT_COUNT (ASSET_FORMAT_GLTF + 1)

/* Largest file we read unless the caller says otherwise. */
#define ASSET_DEFAULT_MAX_BYTES (256u << 20)

/*
 * What an asset's runtime representation holds in memory, by part: the
 * bytes asked of malloc for every allocation it owns, exactly (the
 * allocator's overhead and rounding are not counted; nor is the file,
 * which is not kept).  Each part counts its objects (skeleton_bytes,
 * clip_bytes, mesh_bytes, camera_track_bytes, emitter_bytes) with the
 * asset's arrays that list them.
 */
struct asset_memory {
	uint64_t skeleton;      /* the skeleton; M2: with its joints' info, its
				   attachment points and events */
	uint64_t clips;         /* every clip, the clip list; M2: the sequences'
				   info, the global sequences and their keys,
				   which the clips share */
	uint64_t meshes;        /* every mesh and the mesh list */
	uint64_t camera;        /* md5camera */
	uint64_t emitters;      /* M2: the emitters (their tracks are in clips) */
	uint64_t other;         /* the asset itself, its name, note and notes */
	uint64_t total;         /* the sum */
};

/* A file an asset reads beside its own (M2 264: NAMEnn.skin for each view,
 * NAMEaaaa-vv.anim for each sequence whose keys are not in the model; glTF:
 * each buffer a relative URI names). */
enum asset_companion_kind { ASSET_COMPANION_SKIN, ASSET_COMPANION_ANIM, ASSET_COMPANION_BUFFER };
enum asset_companion_status {
	ASSET_COMPANION_FOUND,          /* read and attached */
	ASSET_COMPANION_MISSING,        /* no such file: that part is not loaded */
	ASSET_COMPANION_BROKEN,         /* rejected (error says where): not loaded */
};

struct asset_companion {
	char *name;                     /* as the asset's name gives it: "dir/NAME00.skin" */
	uint8_t kind;                   /* enum asset_companion_kind */
	uint8_t status;                 /* enum asset_companion_status */
	uint32_t index;                 /* the view, the sequence, or the buffer */
	uint64_t bytes;                 /* its size when read */
	char *error;                    /* BROKEN: "NAME00.skin: offset 0x..: error: ..." */
};

struct asset {
	int refs;                       /* asset_ref / asset_unref; 1 after loading */
	enum asset_format format;
	char *name;                     /* as given to the loader */
	int version;                    /* the format's own version number */
	const char *up;                 /* "z_up" or "y_up", as the file has it */
	const char *handedness;         /* "right" or "left" */
	uint64_t file_bytes;

	struct skeleton *skeleton;      /* md5mesh: bind; md5anim: hierarchy; else NULL */
	uint32_t clip_count;
	struct clip **clips;
	uint32_t mesh_count;
	struct mesh **meshes;
	struct camera_track *camera;    /* md5camera, else NULL */

	/* Per-format facts for inspect (0 when not applicable). */
	uint32_t animated_components;
	uint32_t ticks_per_second;      /* .x: what key times were divided by */
	int ticks_from_file;            /* .x: 1 if AnimTicksPerSecond said so */
	/* What the load had to leave out, one line, or NULL (the file loaded
	 * all the same): e.g. skin weights of a bone no frame has. */
	char *note;
	/* What the parsers accepted but noted (diag.h), one located line each
	 * ("model.m2: offset 0x1a4: note: ..."), the model's first, then its
	 * companions'; none for most files. */
	uint32_t note_count;
	char **notes;

	/* M2 (NULL / 0 for the other formats). */
	struct m2_sequence_info *sequences;     /* clip_count: what each clip plays */
	struct m2_joint_info *joint_info;       /* skeleton->joint_count: flags, ids */
	uint32_t emitter_count;
	struct emitter *emitters;
	uint32_t attachment_count;              /* attachment points */
	struct attachment *attachments;
	uint32_t event_count;                   /* events (their moments: each
						   clip's `events`) */
	struct m2_event_info *events;
	uint32_t global_count;                  /* global sequences */
	int64_t *global_ns;                     /* their lengths */
	void *shared_keys;                      /* keys every clip points at (owned) */
	size_t shared_keys_bytes;               /* its size */
	/* The companions looked for, in the order they were (views, then
	 * sequences), and a hash of their names and bytes: a save of any of
	 * them is a new version of the asset. */
	uint32_t companion_count;
	struct asset_companion *companions;
	uint64_t companions_hash;

	/* glTF morph targets' weights (0 / NULL otherwise): their defaults
	 * (what a clip does not animate holds) and names ("node/target"), in
	 * the order the meshes' morph.first_weight index. */
	uint32_t weight_count;
	float *weights;
	char **weight_names;

	/* asset_memory's figures, worked out once loaded (the asset does not
	 * change after): what the daemon's status adds up. */
	struct asset_memory memory;
};


/* Format from the file name (extension, case-insensitive) and, for formats
 * that have one, the header bytes.  ASSET_FORMAT_UNKNOWN if neither says. */
enum asset_format asset_detect(const char *name, const void *head, size_t len);
const char *asset_format_name(enum asset_format f);

/* Parse and convert a whole file held in memory.  On failure returns a
 * negative errno and writes one line ("name:line:col: error: ...") to err. */
int asset_load_buffer(const char *name, const void *buf, size_t len, struct asset **out,
		      char *err, size_t errlen);

/*
 * Reads a companion file (asset_companion) named `name` (the asset's
 * folder and the companion's file name, as the asset's own name gives
 * them).  0 with *buf malloc'd (the caller frees it) and *len; -ENOENT
 * when there is no such file; any other negative errno with a one-line
 * "name: error: ..." in err.  Called on the thread that loads.
 */
typedef int (*asset_read_companion_fn)(void *ctx, const char *name, char **buf, size_t *len,
				       char *err, size_t errlen);

/* What a loader may be told; zero fields mean the defaults. */
struct asset_options {
	uint32_t x_ticks_per_second;    /* .x files without AnimTicksPerSecond */
	/* Uniform clips are compressed (clip_compress) with these (zeros:
	 * the defaults), unless raw_clips is set. */
	struct clip_codec_params codec;
	uint8_t raw_clips;
	/* NULL: no companion is read (each is reported missing). */
	asset_read_companion_fn read_companion;
	void *companion_ctx;
};

/* The model a companion file belongs to: "dir/NAME" + ".m2" for
 * "dir/NAME00.skin" and "dir/NAMEaaaa-vv.anim" into out (the caller
 * tries the extension's spellings it needs).  0, or -EINVAL when name is
 * no companion's.  Companions are never assets of their own
 * (asset_detect says so). */
int asset_companion_stem(const char *name, char *out, size_t size);

/* Reads a companion from the file system, `name` a path: the reader
 * asset_load_file uses (ctx: a size_t * limit, or NULL). */
int asset_read_companion_file(void *ctx, const char *name, char **buf, size_t *len, char *err,
			      size_t errlen);

/* asset_load_buffer with options (NULL: the defaults). */
int asset_load_buffer_with(const char *name, const void *buf, size_t len,
			   const struct asset_options *opts, struct asset **out, char *err,
			   size_t errlen);
/* Open a file to read it as an asset: never blocks, whatever the file is
 * (a FIFO, a device).  The descriptor, or a negative errno with err set. */
int asset_open_file(const char *path, char *err, size_t errlen);
/* Read the regular file open as fd whole (at most max_bytes, 0 meaning
 * ASSET_DEFAULT_MAX_BYTES), calling it `name` in messages.  *st is what
 * fstat said (zeroed if it failed).  0 with *buf_out malloc'd; or a negative
 * errno with err set: -EISDIR a directory, -EINVAL anything else that is
 * not a regular file, -EFBIG over the limit, -EAGAIN the file grew while
 * it was read (try again when it is quiet). */
int asset_read_fd(int fd, const char *name, size_t max_bytes, char **buf_out, size_t *len_out,
		  struct stat *st, char *err, size_t errlen);
/* Read a file (at most max_bytes; 0 means ASSET_DEFAULT_MAX_BYTES) and load it. */
int asset_load_file(const char *path, size_t max_bytes, struct asset **out, char *err,
		    size_t errlen);
/* The same with the clips left raw (not compressed): for a tool that
 * validates a file and keeps nothing (animd check).  Compression refuses
 * no file a load accepts but for lack of memory (or a clip whose
 * compressed frames pass 4 GiB). */
int asset_load_file_raw(const char *path, size_t max_bytes, struct asset **out, char *err,
			size_t errlen);

/* The asset itself when it supplies its own meshes and bind pose (an
 * md5mesh, or a file holding meshes and clips together: .x), else NULL:
 * then an md5anim needs an md5mesh beside it. */
const struct asset *asset_own_mesh(const struct asset *a);

/* Clip by name; NULL name means the first clip.  NULL if none matches.
 * An M2 sequence (named by its index, "3") is also found as "#3", as "id=N"
 * (the first sequence of animation id N) or "id=N.V" (its variation V); a
 * glTF animation by its name or its index as "#N". */
const struct clip *asset_find_clip(const struct asset *a, const char *name);

/* Why asset_find_clip found nothing, when the name is an M2 sequence that
 * is not loaded: " (sequence 1 is not loaded: t0005-01.anim is missing)"
 * into buf; "" otherwise.  Returns buf. */
const char *asset_clip_unloaded_reason(const struct asset *a, const char *name, char *buf,
				       size_t size);

/* Shared ownership: a loaded asset starts with one reference and the last
 * unref frees it.  References are plain counts, taken and dropped on one
 * thread only (the daemon's loop thread): work handed to the thread pool
 * holds a reference taken before it is queued and dropped after it
 * completes, both on the loop.  (The only atomics in animd are the
 * shared-memory seqlocks in proto/.)  asset_free is asset_unref for code
 * that never shared the asset. */
/* How the asset's bytes divide (struct asset_memory); asset_bytes is the
 * total. */
void asset_memory(const struct asset *a, struct asset_memory *out);
uint64_t asset_bytes(const struct asset *a);

struct asset *asset_ref(struct asset *a);
void asset_unref(struct asset *a);
void asset_free(struct asset *a);

#endif
