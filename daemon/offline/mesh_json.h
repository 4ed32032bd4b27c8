/*
 * mesh_json.h - what inspect --json says of a mesh: its counts, its
 * normals, its materials with the triangles drawn with each, and what else
 * the file holds for it.
 */
#ifndef ANIMD_MESH_JSON_H
#define ANIMD_MESH_JSON_H

#include <jansson.h>
#include <stdint.h>

#include "daemon/anim/mesh.h"

json_t *mesh_json(const struct mesh *m, uint32_t index);

#endif
