/* assets.info's meshes (mesh_pack.h). */
#include "daemon/service/control/mesh_pack.h"

#include <stdio.h>

static void pack_str_or_nil(struct rpc_out *out, const char *s)
{
	if (s != NULL)
		rpc_put_cstr(out, s);
	else
		rpc_put_nil(out);
}

static void pack_material(struct rpc_out *out, const struct mesh_material *mt)
{
	rpc_put_map(out, 7);
	rpc_put_lit(out, "name");
	pack_str_or_nil(out, mt->name);
	rpc_put_lit(out, "diffuse");
	rpc_put_float_array(out, mt->diffuse, 4);
	rpc_put_lit(out, "power");
	rpc_put_float(out, mt->power);
	rpc_put_lit(out, "specular");
	rpc_put_float_array(out, mt->specular, 3);
	rpc_put_lit(out, "emissive");
	rpc_put_float_array(out, mt->emissive, 3);
	rpc_put_lit(out, "texture");
	pack_str_or_nil(out, mt->texture);
	rpc_put_lit(out, "triangle_count");
	rpc_put_uint(out, mt->triangle_count);
}

void mesh_pack(struct rpc_out *out, const struct mesh *m, uint32_t index)
{
	char fallback[32];

	snprintf(fallback, sizeof fallback, "mesh%u", index);
	rpc_put_map(out, 14);
	rpc_put_lit(out, "name");
	rpc_put_cstr(out, m->name ? m->name : fallback);
	rpc_put_lit(out, "material");
	pack_str_or_nil(out, m->material);
	rpc_put_lit(out, "vertex_count");
	rpc_put_uint(out, m->vertex_count);
	rpc_put_lit(out, "triangle_count");
	rpc_put_uint(out, m->triangle_count);
	rpc_put_lit(out, "weight_count");
	rpc_put_uint(out, m->influence_count);
	rpc_put_lit(out, "skinned");
	rpc_put_bool(out, m->influence_count > 0);
	rpc_put_lit(out, "normals");
	rpc_put_bool(out, m->normals == MESH_NORMALS_SKINNED);
	rpc_put_lit(out, "normals_derived");
	rpc_put_bool(out, m->normals == MESH_NORMALS_DERIVED);
	rpc_put_lit(out, "vertex_colors");
	rpc_put_bool(out, m->colors != NULL);
	rpc_put_lit(out, "uv_sets");
	rpc_put_uint(out, m->uv_sets);
	rpc_put_lit(out, "unread");
	pack_str_or_nil(out, m->unread);
	rpc_put_lit(out, "memory_bytes");
	rpc_put_uint(out, mesh_bytes(m));
	rpc_put_lit(out, "materials");
	rpc_put_array(out, m->material_count);
	for (uint32_t i = 0; i < m->material_count; i++)
		pack_material(out, &m->materials[i]);
	rpc_put_lit(out, "triangle_materials");
	if (m->triangle_material == NULL) {
		rpc_put_nil(out);
		return;
	}
	rpc_put_array(out, m->triangle_count);
	for (uint32_t t = 0; t < m->triangle_count; t++)
		rpc_put_uint(out, m->triangle_material[t]);
}
