/*
 * mesh_pack.h - what assets.info says of a mesh (the same as inspect
 * --json, mesh_json.c): counts, normals, materials with their triangles,
 * and what else the file holds for it.
 */
#ifndef ANIMD_MESH_PACK_H
#define ANIMD_MESH_PACK_H

#include <stdint.h>

#include "daemon/anim/mesh.h"
#include "proto/rpc_out.h"

void mesh_pack(struct rpc_out *out, const struct mesh *m, uint32_t index);

#endif
