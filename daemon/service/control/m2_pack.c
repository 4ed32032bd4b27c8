#include "daemon/service/control/m2_pack.h"

#include "daemon/assets/event_id.h"

void m2_pack_joint(struct rpc_out *out, const struct m2_joint_info *j)
{
	rpc_put_lit(out, "bone");
	rpc_put_uint(out, j->file_index);
	rpc_put_lit(out, "flags");
	rpc_put_uint(out, j->flags);
	rpc_put_lit(out, "billboard");
	if (m2_bone_billboard(j->flags) != NULL)
		rpc_put_cstr(out, m2_bone_billboard(j->flags));
	else
		rpc_put_nil(out);
	rpc_put_lit(out, "key_bone_id");
	rpc_put_int(out, j->key_bone_id);
}

static void m2_pack_index_or_nil(struct rpc_out *out, int32_t v)
{
	if (v >= 0)
		rpc_put_int(out, v);
	else
		rpc_put_nil(out);
}

void m2_pack_sequence(struct rpc_out *out, const struct m2_sequence_info *s, const struct clip *c)
{
	rpc_put_lit(out, "id");
	rpc_put_uint(out, s->id);
	rpc_put_lit(out, "variation");
	rpc_put_uint(out, s->variation);
	rpc_put_lit(out, "flags");
	rpc_put_uint(out, s->flags);
	rpc_put_lit(out, "looping");
	rpc_put_bool(out, c->loop == LOOP_LOOP);
	rpc_put_lit(out, "movespeed");
	rpc_put_float(out, s->movespeed);
	rpc_put_lit(out, "frequency");
	rpc_put_int(out, s->frequency);
	rpc_put_lit(out, "replay");
	rpc_put_map(out, 2);
	rpc_put_lit(out, "min");
	rpc_put_uint(out, s->replay_min);
	rpc_put_lit(out, "max");
	rpc_put_uint(out, s->replay_max);
	rpc_put_lit(out, "blend_ms");
	rpc_put_uint(out, s->blend_ms);
	rpc_put_lit(out, "alias_of");
	m2_pack_index_or_nil(out, s->alias_of);
	rpc_put_lit(out, "next_variation");
	m2_pack_index_or_nil(out, s->next_variation);
	rpc_put_lit(out, "loaded");
	rpc_put_bool(out, s->loaded);
	rpc_put_lit(out, "keys_in");
	rpc_put_cstr(out, s->data == M2_SEQ_DATA_MODEL ? "model"
		     : s->data == M2_SEQ_DATA_NONE ? "none"
		     : s->data == M2_SEQ_DATA_ANIM ? "anim"
		     : s->data == M2_SEQ_DATA_ANIM_MISSING ? "anim_missing" : "anim_rejected");
	rpc_put_lit(out, "events");
	rpc_put_array(out, c->event_count);
	for (uint32_t i = 0; i < c->event_count; i++) {
		rpc_put_map(out, 2);
		rpc_put_lit(out, "time");
		rpc_put_double(out, time_to_seconds(c->events[i].t_ns));
		rpc_put_lit(out, "event");
		rpc_put_uint(out, c->events[i].event);
	}
}

static void m2_pack_companions(struct rpc_out *out, const struct asset *a)
{
	rpc_put_lit(out, "companions");
	rpc_put_array(out, a->companion_count);
	for (uint32_t i = 0; i < a->companion_count; i++) {
		const struct asset_companion *c = &a->companions[i];

		rpc_put_map(out, 6);
		rpc_put_lit(out, "name");
		rpc_put_cstr(out, c->name);
		rpc_put_lit(out, "kind");
		rpc_put_cstr(out, c->kind == ASSET_COMPANION_SKIN ? "skin" : "anim");
		rpc_put_lit(out, "status");
		rpc_put_cstr(out, c->status == ASSET_COMPANION_FOUND ? "found"
			     : c->status == ASSET_COMPANION_MISSING ? "missing" : "rejected");
		rpc_put_cstr(out, c->kind == ASSET_COMPANION_SKIN ? "view" : "sequence");
		rpc_put_uint(out, c->index);
		rpc_put_lit(out, "bytes");
		rpc_put_uint(out, c->bytes);
		rpc_put_lit(out, "error");
		if (c->error != NULL)
			rpc_put_cstr(out, c->error);
		else
			rpc_put_nil(out);
	}
}

/* The file's index of the bone behind a joint (the joint itself when the
 * asset has no file facts for it). */
static uint32_t m2_pack_file_bone(const struct asset *a, uint32_t joint)
{
	if (a->joint_info != NULL && a->skeleton != NULL && joint < a->skeleton->joint_count)
		return a->joint_info[joint].file_index;
	return joint;
}

static void m2_pack_events(struct rpc_out *out, const struct asset *a)
{
	rpc_put_lit(out, "events");
	rpc_put_array(out, a->event_count);
	for (uint32_t i = 0; i < a->event_count; i++) {
		const struct m2_event_info *e = &a->events[i];
		char id[EVENT_ID_TEXT_BYTES];

		event_id_text(e->id, id);
		rpc_put_map(out, 6);
		rpc_put_lit(out, "index");
		rpc_put_uint(out, i);
		rpc_put_lit(out, "id");
		rpc_put_cstr(out, id);
		rpc_put_lit(out, "data");
		rpc_put_uint(out, e->data);
		rpc_put_lit(out, "bone");
		rpc_put_uint(out, e->bone);
		rpc_put_lit(out, "joint");
		m2_pack_index_or_nil(out, e->joint);
		rpc_put_lit(out, "position");
		rpc_put_float_array(out, &e->position.x, 3);
	}
}

void m2_pack_asset(struct rpc_out *out, const struct asset *a)
{
	rpc_put_lit(out, "global_sequences");
	rpc_put_array(out, a->global_count);
	for (uint32_t i = 0; i < a->global_count; i++)
		rpc_put_double(out, time_to_seconds(a->global_ns[i]));
	rpc_put_lit(out, "emitters");
	rpc_put_array(out, a->emitter_count);
	for (uint32_t i = 0; i < a->emitter_count; i++)
		m2_pack_emitter(out, a, i, NULL);
	rpc_put_lit(out, "attachments");
	rpc_put_array(out, a->attachment_count);
	for (uint32_t i = 0; i < a->attachment_count; i++)
		m2_pack_attachment(out, a, i, NULL);
	m2_pack_events(out, a);
	m2_pack_companions(out, a);
}

static void m2_pack_color(struct rpc_out *out, uint32_t argb)
{
	rpc_put_map(out, 4);
	rpc_put_lit(out, "a");
	rpc_put_uint(out, argb >> 24);
	rpc_put_lit(out, "r");
	rpc_put_uint(out, (argb >> 16) & 0xff);
	rpc_put_lit(out, "g");
	rpc_put_uint(out, (argb >> 8) & 0xff);
	rpc_put_lit(out, "b");
	rpc_put_uint(out, argb & 0xff);
}

static void m2_pack_i16(struct rpc_out *out, const char *key, int16_t v)
{
	rpc_put_cstr(out, key);
	rpc_put_int(out, v);
}

void m2_pack_emitter(struct rpc_out *out, const struct asset *a, uint32_t i,
		     const struct emitter_state *st)
{
	const struct emitter *e = &a->emitters[i];
	float pos[3] = { e->position.x, e->position.y, e->position.z };

	rpc_put_map(out, 20 + (st != NULL ? 3 : 0));
	rpc_put_lit(out, "index");
	rpc_put_uint(out, i);
	rpc_put_lit(out, "bone");
	rpc_put_uint(out, a->joint_info[e->joint].file_index);
	rpc_put_lit(out, "position");
	rpc_put_float_array(out, pos, 3);
	rpc_put_lit(out, "id");
	rpc_put_int(out, e->id);
	rpc_put_lit(out, "flags");
	rpc_put_uint(out, e->flags);
	m2_pack_i16(out, "type", e->emitter_type);
	m2_pack_i16(out, "particle_type", e->particle_type);
	m2_pack_i16(out, "blend_mode", e->blend_mode);
	m2_pack_i16(out, "texture", e->texture);
	m2_pack_i16(out, "rows", e->rows);
	m2_pack_i16(out, "columns", e->columns);
	m2_pack_i16(out, "tile_rotation", e->tile_rotation);
	rpc_put_lit(out, "midpoint");
	rpc_put_float(out, e->midpoint);
	rpc_put_lit(out, "colors");
	rpc_put_array(out, 3);
	for (int k = 0; k < 3; k++)
		m2_pack_color(out, e->colors[k]);
	rpc_put_lit(out, "sizes");
	rpc_put_float_array(out, e->sizes, 3);
	rpc_put_lit(out, "tiles");
	rpc_put_array(out, 10);
	for (int k = 0; k < 10; k++)
		rpc_put_int(out, e->tiles[k]);
	rpc_put_lit(out, "slowdown");
	rpc_put_float(out, e->slowdown);
	rpc_put_lit(out, "rotation");
	rpc_put_float(out, e->rotation);
	rpc_put_lit(out, "spline_points");
	rpc_put_array(out, e->spline_point_count);
	for (uint32_t k = 0; k < e->spline_point_count; k++)
		rpc_put_float_array(out, &e->spline_points[k].x, 3);
	rpc_put_lit(out, "model");
	if (e->model_name != NULL)
		rpc_put_cstr(out, e->model_name);
	else
		rpc_put_nil(out);
	if (st == NULL)
		return;
	rpc_put_lit(out, "m");
	rpc_put_float_array(out, &st->m.m[0][0], 12);
	rpc_put_lit(out, "enabled");
	rpc_put_bool(out, st->enabled > 0.5f);
	rpc_put_lit(out, "params");
	rpc_put_map(out, EMITTER_PARAMS);
	for (int p = 0; p < EMITTER_PARAMS; p++) {
		rpc_put_cstr(out, emitter_param_names[p]);
		rpc_put_float(out, st->param[p]);
	}
}

void m2_pack_attachment(struct rpc_out *out, const struct asset *a, uint32_t i,
			const struct attachment_state *st)
{
	const struct attachment *p = &a->attachments[i];
	float pos[3] = { p->position.x, p->position.y, p->position.z };

	rpc_put_map(out, 5 + (st != NULL ? 2 : 0));
	rpc_put_lit(out, "index");
	rpc_put_uint(out, i);
	rpc_put_lit(out, "id");
	rpc_put_uint(out, p->id);
	rpc_put_lit(out, "bone");
	rpc_put_uint(out, m2_pack_file_bone(a, p->joint));
	rpc_put_lit(out, "joint");
	rpc_put_uint(out, p->joint);
	rpc_put_lit(out, "position");
	rpc_put_float_array(out, pos, 3);
	if (st == NULL)
		return;
	rpc_put_lit(out, "m");
	rpc_put_float_array(out, &st->m.m[0][0], 12);
	rpc_put_lit(out, "animate");
	rpc_put_bool(out, st->animate > 0.5f);
}
