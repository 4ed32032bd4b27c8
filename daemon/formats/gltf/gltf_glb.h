/*
 * gltf_glb.h - the GLB container's chunks (gltf_glb.c).  Internal to
 * daemon/formats/gltf.
 */
#ifndef ANIMD_GLTF_GLB_H
#define ANIMD_GLTF_GLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/formats/bin_reader.h"
#include "daemon/formats/diag.h"

struct gltf_glb {
	const unsigned char *json;
	size_t json_len;
	uint64_t json_offset;
	const unsigned char *bin;       /* NULL without a BIN chunk */
	size_t bin_len;
	uint64_t bin_offset;
	bool has_bin;
};

/* The chunks of the GLB in b (which starts "glTF").  0, or -EINVAL with d
 * at the offset at fault. */
int gltf_glb_split(const unsigned char *b, size_t len, struct gltf_glb *out, struct diag *d,
		   struct diag_notes *notes);

#endif
