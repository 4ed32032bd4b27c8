/*
 * soak_assets.h - the soak's asset tree: which assets exist and what each
 * can serve (the clients choose their requests from this), and the file
 * contents the rewriter saves: a few good versions of every asset, made by
 * our own generators (tests/support), and broken versions derived from
 * them on demand (truncated, garbage, wrong counts).
 */
#ifndef ANIMD_SOAK_ASSETS_H
#define ANIMD_SOAK_ASSETS_H

#include <stddef.h>

#include "tests/soak/soak_rand.h"

enum soak_asset_type {
	SOAK_ASSET_MESH,        /* md5mesh: samples in every skeletal space, nothing to play */
	SOAK_ASSET_ANIM,        /* md5anim: local and model alone, every skeletal space with the mesh */
	SOAK_ASSET_CAMERA,      /* md5camera: the camera space */
	SOAK_ASSET_X,           /* .x: skeleton, skinned mesh and a clip of its own */
};

/* Spaces, in the protocol's order (stream.open, sample). */
enum soak_space {
	SOAK_SPACE_LOCAL,
	SOAK_SPACE_MODEL,
	SOAK_SPACE_SKIN,
	SOAK_SPACE_VERTICES,
	SOAK_SPACE_CAMERA,
	SOAK_SPACE_COUNT
};

struct soak_asset {
	const char *name;               /* relative to the asset root */
	enum soak_asset_type type;
	const char *clip;               /* its clip's name, NULL for none (a camera, a mesh) */
};

#define SOAK_ASSET_MESH_INDEX 0 /* the md5mesh every md5anim fits */
#define SOAK_ASSET_TOGGLED 5    /* in a subdirectory that comes and goes */
#define SOAK_ASSET_COUNT 6
#define SOAK_VARIANTS_MAX 8

/* The catalogue: SOAK_ASSET_COUNT entries. */
const struct soak_asset *soak_assets_get(unsigned i);
const char *soak_assets_space_name(enum soak_space s);
/* 1 if sampling (or a stream of) space s suits asset type t, played with
 * the md5mesh (with_mesh) or alone. */
int soak_assets_space_ok(enum soak_asset_type t, int with_mesh, enum soak_space s);

struct soak_blob {
	char *data;
	size_t len;
};

/* The good versions of one asset.  Those from index `rare` on change its
 * shape (a mesh with one joint more, so the anims stop fitting) and are
 * chosen seldom. */
struct soak_variants {
	struct soak_blob good[SOAK_VARIANTS_MAX];
	unsigned count, rare;
};

/* Generate every asset's good versions, using `scratch` (an existing
 * directory outside the asset root) for the generators' files.  0 or
 * -errno; free with soak_assets_free. */
int soak_assets_build(const char *scratch, struct soak_variants v[SOAK_ASSET_COUNT]);
void soak_assets_free(struct soak_variants v[SOAK_ASSET_COUNT]);
/* Write version 0 of every asset under root (directories made).  0 or -errno. */
int soak_assets_install(const char *root, const struct soak_variants v[SOAK_ASSET_COUNT]);

/* A good version of asset i (a random one; version 0 when r is NULL) with
 * a revision comment appended, so that every save differs from the last.
 * Malloc'd into *out. */
int soak_assets_good(struct soak_rand *r, const struct soak_variants *v, unsigned i,
		     unsigned revision, struct soak_blob *out);
/* A broken version of asset i: truncated, garbage after a plausible start,
 * or a count that disagrees with what follows.  *how names it.  Malloc'd. */
int soak_assets_broken(struct soak_rand *r, const struct soak_variants *v, unsigned i,
		       struct soak_blob *out, const char **how);

#endif
