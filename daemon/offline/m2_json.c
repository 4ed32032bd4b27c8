#include "daemon/offline/m2_json.h"

#include "daemon/assets/event_id.h"
#include "daemon/offline/json_out.h"

static json_t *m2_json_moments(const struct clip *c)
{
	json_t *list = json_array();

	for (uint32_t i = 0; i < c->event_count; i++)
		json_array_append_new(list, json_pack("{s:o, s:I}", "time",
						      json_out_number(time_to_seconds(c->events[i].t_ns)),
						      "event", (json_int_t)c->events[i].event));
	return list;
}

void m2_json_sequence(json_t *clip, const struct m2_sequence_info *s, const struct clip *c)
{
	json_object_set_new(clip, "id", json_integer(s->id));
	json_object_set_new(clip, "variation", json_integer(s->variation));
	json_object_set_new(clip, "flags", json_integer(s->flags));
	json_object_set_new(clip, "looping", json_boolean(c->loop == LOOP_LOOP));
	json_object_set_new(clip, "movespeed", json_out_number(s->movespeed));
	json_object_set_new(clip, "frequency", json_integer(s->frequency));
	json_object_set_new(clip, "replay", json_pack("{s:I, s:I}", "min",
						      (json_int_t)s->replay_min, "max",
						      (json_int_t)s->replay_max));
	json_object_set_new(clip, "blend_ms", json_integer(s->blend_ms));
	json_object_set_new(clip, "alias_of", s->alias_of >= 0 ? json_integer(s->alias_of)
							     : json_null());
	json_object_set_new(clip, "next_variation", s->next_variation >= 0
						    ? json_integer(s->next_variation) : json_null());
	json_object_set_new(clip, "loaded", json_boolean(s->loaded));
	json_object_set_new(clip, "keys_in", json_string(m2_json_keys_in(s->data)));
	json_object_set_new(clip, "events", m2_json_moments(c));
}

const char *m2_json_keys_in(uint8_t data)
{
	switch (data) {
	case M2_SEQ_DATA_MODEL: return "model";
	case M2_SEQ_DATA_NONE: return "none";
	case M2_SEQ_DATA_ANIM: return "anim";
	case M2_SEQ_DATA_ANIM_MISSING: return "anim_missing";
	default: return "anim_rejected";
	}
}

const char *m2_json_companion_status(uint8_t status)
{
	return status == ASSET_COMPANION_FOUND ? "found"
	       : status == ASSET_COMPANION_MISSING ? "missing" : "rejected";
}

json_t *m2_json_companions(const struct asset *a)
{
	json_t *list = json_array();

	for (uint32_t i = 0; i < a->companion_count; i++) {
		const struct asset_companion *c = &a->companions[i];

		json_array_append_new(list, json_pack(
			"{s:s, s:s, s:s, s:I, s:I, s:o}", "name", c->name,
			"kind", c->kind == ASSET_COMPANION_SKIN ? "skin"
				: c->kind == ASSET_COMPANION_ANIM ? "anim" : "buffer",
			"status", m2_json_companion_status(c->status),
			c->kind == ASSET_COMPANION_SKIN ? "view"
				: c->kind == ASSET_COMPANION_ANIM ? "sequence" : "buffer",
			(json_int_t)c->index,
			"bytes", (json_int_t)c->bytes,
			"error", json_out_string_or_null(c->error)));
	}
	return list;
}

uint32_t m2_json_file_bone(const struct asset *a, uint32_t joint)
{
	if (a->joint_info != NULL && a->skeleton != NULL && joint < a->skeleton->joint_count)
		return a->joint_info[joint].file_index;
	return joint;
}

void m2_json_joint(json_t *joint, const struct m2_joint_info *j)
{
	json_object_set_new(joint, "bone", json_integer(j->file_index));
	json_object_set_new(joint, "flags", json_integer(j->flags));
	json_object_set_new(joint, "billboard", json_out_string_or_null(m2_bone_billboard(j->flags)));
	json_object_set_new(joint, "key_bone_id", json_integer(j->key_bone_id));
}

json_t *m2_json_events(const struct asset *a)
{
	json_t *list = json_array();

	for (uint32_t i = 0; i < a->event_count; i++) {
		const struct m2_event_info *e = &a->events[i];
		char id[EVENT_ID_TEXT_BYTES];

		event_id_text(e->id, id);
		json_array_append_new(list, json_pack(
			"{s:I, s:s, s:I, s:I, s:o, s:o}", "index", (json_int_t)i, "id", id,
			"data", (json_int_t)e->data, "bone", (json_int_t)e->bone,
			"joint", e->joint >= 0 ? json_integer(e->joint) : json_null(),
			"position", json_out_vec3(e->position)));
	}
	return list;
}

static json_t *m2_json_color(uint32_t argb)
{
	return json_pack("{s:i, s:i, s:i, s:i}", "a", (int)(argb >> 24), "r",
			 (int)((argb >> 16) & 0xff), "g", (int)((argb >> 8) & 0xff), "b",
			 (int)(argb & 0xff));
}

json_t *m2_json_emitter(const struct asset *a, uint32_t i)
{
	const struct emitter *e = &a->emitters[i];
	json_t *colors = json_array(), *tiles = json_array(), *spline = json_array();

	for (int k = 0; k < 3; k++)
		json_array_append_new(colors, m2_json_color(e->colors[k]));
	for (int k = 0; k < 10; k++)
		json_array_append_new(tiles, json_integer(e->tiles[k]));
	for (uint32_t k = 0; k < e->spline_point_count; k++)
		json_array_append_new(spline, json_out_vec3(e->spline_points[k]));
	return json_pack("{s:I, s:I, s:o, s:i, s:I, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o,"
			 " s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "index", (json_int_t)i,
			 "bone", (json_int_t)a->joint_info[e->joint].file_index,
			 "position", json_out_vec3(e->position),
			 "id", (int)e->id,
			 "flags", (json_int_t)e->flags,
			 "type", (int)e->emitter_type,
			 "particle_type", (int)e->particle_type,
			 "blend_mode", (int)e->blend_mode,
			 "texture", (int)e->texture,
			 "rows", (int)e->rows,
			 "columns", (int)e->columns,
			 "tile_rotation", (int)e->tile_rotation,
			 "midpoint", json_out_number(e->midpoint),
			 "colors", colors,
			 "sizes", json_out_floats(e->sizes, 3),
			 "tiles", tiles,
			 "slowdown", json_out_number(e->slowdown),
			 "rotation", json_out_number(e->rotation),
			 "spline_points", spline,
			 "model", json_out_string_or_null(e->model_name));
}

json_t *m2_json_emitter_state(const struct asset *a, uint32_t i, const struct emitter_state *st)
{
	json_t *o = m2_json_emitter(a, i), *params = json_object();

	for (int p = 0; p < EMITTER_PARAMS; p++)
		json_object_set_new(params, emitter_param_names[p], json_out_number(st->param[p]));
	json_object_set_new(o, "m", json_out_mat34(&st->m));
	json_object_set_new(o, "enabled", json_boolean(st->enabled > 0.5f));
	json_object_set_new(o, "params", params);
	return o;
}

json_t *m2_json_attachment(const struct asset *a, uint32_t i)
{
	const struct attachment *p = &a->attachments[i];

	return json_pack("{s:I, s:I, s:I, s:I, s:o}", "index", (json_int_t)i, "id",
			 (json_int_t)p->id, "bone", (json_int_t)m2_json_file_bone(a, p->joint),
			 "joint", (json_int_t)p->joint, "position", json_out_vec3(p->position));
}

json_t *m2_json_attachment_state(const struct asset *a, uint32_t i,
				 const struct attachment_state *st)
{
	json_t *o = m2_json_attachment(a, i);

	json_object_set_new(o, "m", json_out_mat34(&st->m));
	json_object_set_new(o, "animate", json_boolean(st->animate > 0.5f));
	return o;
}
