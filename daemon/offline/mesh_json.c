/* inspect --json's meshes (mesh_json.h). */
#include "daemon/offline/mesh_json.h"

#include <stdio.h>

#include "daemon/offline/json_out.h"

static json_t *material_json(const struct mesh_material *mt)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:I}",
			 "name", json_out_string_or_null(mt->name),
			 "diffuse", json_out_floats(mt->diffuse, 4),
			 "power", json_out_number(mt->power),
			 "specular", json_out_floats(mt->specular, 3),
			 "emissive", json_out_floats(mt->emissive, 3),
			 "texture", json_out_string_or_null(mt->texture),
			 "triangle_count", (json_int_t)mt->triangle_count);
}

json_t *mesh_json(const struct mesh *m, uint32_t index)
{
	json_t *o, *materials = json_array(), *per_triangle;
	char fallback[32];

	snprintf(fallback, sizeof fallback, "mesh%u", index);
	o = json_pack("{s:o, s:o, s:I, s:I, s:I, s:b, s:b, s:b, s:b, s:I, s:o}",
		      "name", json_out_string_or_null(m->name ? m->name : fallback),
		      "material", json_out_string_or_null(m->material),
		      "vertex_count", (json_int_t)m->vertex_count,
		      "triangle_count", (json_int_t)m->triangle_count,
		      "weight_count", (json_int_t)m->influence_count,
		      "skinned", m->influence_count > 0,
		      "normals", m->normals == MESH_NORMALS_SKINNED,
		      "normals_derived", m->normals == MESH_NORMALS_DERIVED,
		      "vertex_colors", m->colors != NULL,
		      "uv_sets", (json_int_t)m->uv_sets,
		      "unread", json_out_string_or_null(m->unread));
	for (uint32_t i = 0; i < m->material_count; i++)
		json_array_append_new(materials, material_json(&m->materials[i]));
	json_object_set_new(o, "materials", materials);
	if (m->triangle_material != NULL) {
		per_triangle = json_array();
		for (uint32_t t = 0; t < m->triangle_count; t++)
			json_array_append_new(per_triangle, json_integer(m->triangle_material[t]));
		json_object_set_new(o, "triangle_materials", per_triangle);
	} else {
		json_object_set_new(o, "triangle_materials", json_null());
	}
	return o;
}
