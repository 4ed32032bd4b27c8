/*
 * asset_tree.h - a large tree of generated assets, as a game's animation
 * library might be laid out: folders of characters, each a few files,
 * every format animd reads and every .x encoding, mostly small files with
 * a few large ones.  For the daemon's start-up bench (and whatever later
 * measures a big tree: indexing, loading on demand).  Deterministic: the
 * same count and seed write the same files.
 *
 * The mix, by assets: about 40 % md5anim and 10 % md5mesh (a character
 * of 8 to 40 joints, anims of 6 to 30 frames at 24 fps), 30 % .x (a
 * skinned rig of 3 to 40 bones with 4 to 40 keys a bone, as text, 32-bit
 * binary or MSZIP-compressed binary), 15 % M2 (8 to 40 bones, 1 to 6
 * sequences of 3 to 10 keys a track; versions 256 and 264, the latter
 * with its .skin), 5 % md5camera.  One character in 40 is ten times
 * longer.  20,000 assets come to about 0.6 GB.
 *
 * A manifest (asset_tree_write_listed) names every asset in the order
 * written, one a line, relative to the tree's directory: "md5mesh NAME",
 * "md5anim NAME MESH" (MESH: its character's md5mesh), "md5camera NAME",
 * "x NAME", "m2 NAME [COMPANION]" (its first companion, the .skin, when
 * it has any: companions are not assets), and "broken NAME" for
 * an md5anim made to fail to parse (line 4).
 */
#ifndef ANIMD_TEST_ASSET_TREE_H
#define ANIMD_TEST_ASSET_TREE_H

#include <stdint.h>
#include <stdio.h>

struct asset_tree_stats {
	uint32_t assets;                /* files the daemon serves (companions not counted) */
	uint32_t files;                 /* every file, companions included */
	uint32_t folders;
	uint64_t bytes;                 /* every file's size */
	uint32_t by_format[5];          /* md5mesh, md5anim, md5camera, x, m2 */
};

/* Write `count` assets (a few more when a character's last files go past
 * it) under dir, which must exist.  0, or -errno (a file that could not
 * be written). */
int asset_tree_write(const char *dir, uint32_t count, uint32_t seed,
		     struct asset_tree_stats *stats);

/* The same, listing what it writes on `manifest` (may be NULL), with about
 * `broken` of the md5anims, spread over the tree, failing to parse (the
 * other files are those asset_tree_write writes). */
int asset_tree_write_listed(const char *dir, uint32_t count, uint32_t seed, uint32_t broken,
			    FILE *manifest, struct asset_tree_stats *stats);

#endif
