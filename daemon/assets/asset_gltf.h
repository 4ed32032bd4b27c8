/*
 * asset_gltf.h - a glTF asset: the document, the buffer files its URIs
 * name (resolved against its folder, never above the asset's own name's
 * first folder: inside the asset root), the import.  Internal to
 * daemon/assets.
 */
#ifndef ANIMD_ASSET_GLTF_H
#define ANIMD_ASSET_GLTF_H

#include <stddef.h>

#include "daemon/assets/asset.h"

/* Parse buf (a .gltf or .glb), read each buffer file through
 * opts->read_companion (every one is a companion: a save of it is a new
 * version of the asset), check and convert.  0, or a negative errno with
 * err set ("file:line:col: error: ..." in the document, "name.bin: offset
 * 0x..: error: ..." in a buffer file). */
int asset_gltf_load(struct asset *a, const void *buf, size_t len,
		    const struct asset_options *opts, char *err, size_t errlen);

/* The companion name of a URI path (gltf_buffer.path) beside asset
 * `name`: its folder joined with path, ".." taking a folder off.  0, or
 * -EACCES when ".." would climb above the name's first folder (out of
 * the asset root), -ENAMETOOLONG. */
int asset_gltf_companion_name(const char *name, const char *path, char *out, size_t size);

#endif
