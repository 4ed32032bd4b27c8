/*
 * tree_manifest.h - what tests/gen/gen_tree wrote (its --manifest), read
 * back: every asset by kind, in the order written, and the generator run.
 */
#ifndef ANIMD_TEST_TREE_MANIFEST_H
#define ANIMD_TEST_TREE_MANIFEST_H

#include <stddef.h>

enum tree_kind {
	TREE_MD5MESH,
	TREE_MD5ANIM,           /* mesh: its md5mesh */
	TREE_M2,                /* version 256, or 264 with its .skin */
	TREE_X,
	TREE_MD5CAMERA,
	TREE_BROKEN,            /* an md5anim that fails to parse */
	TREE_KIND_COUNT
};

struct tree_asset {
	enum tree_kind kind;
	char name[64];
	char mesh[64];          /* TREE_MD5ANIM: its md5mesh; TREE_M2: its .skin, or "" */
};

struct tree_manifest {
	struct tree_asset *assets;      /* in the order written */
	size_t count;
	size_t by_kind[TREE_KIND_COUNT];
};

/* Runs $BUILD/gen/gen_tree DIR ASSETS --broken BROKEN (the tree of
 * tests/support/asset_tree.h, seed 1) and reads its manifest (kept beside
 * DIR).  0 or -1 (said on stderr). */
int tree_generate(const char *dir, unsigned assets, unsigned broken, struct tree_manifest *out);

/* The i-th asset of a kind (i < by_kind[kind]), or NULL. */
const struct tree_asset *tree_nth(const struct tree_manifest *m, enum tree_kind kind, size_t i);

void tree_manifest_free(struct tree_manifest *m);

#endif
