/*
 * m2_json.h - the JSON of what only M2 has, for inspect and sample: a
 * sequence's facts, a bone's flags, an emitter's and an attachment point's
 * static fields and their state at a time.  The field names are a
 * contract (README, PROTOCOL.md).
 */
#ifndef ANIMD_M2_JSON_H
#define ANIMD_M2_JSON_H

#include <jansson.h>

#include "daemon/assets/asset.h"

/* Add a sequence's fields (id, variation, flags, movespeed, frequency,
 * replay, blend_ms, alias_of, next_variation, looping) to a clip's object,
 * and its events: the moments [{"time" (s, clip time, may lie outside the
 * clip), "event" (the asset's event)}], in time order. */
void m2_json_sequence(json_t *clip, const struct m2_sequence_info *s, const struct clip *c);
/* "model", "none", "anim", "anim_missing", "anim_rejected": where a
 * sequence's keys are (enum m2_sequence_data). */
const char *m2_json_keys_in(uint8_t data);
/* The file's index of the bone behind a joint (the joint itself when the
 * asset has no file facts for it). */
uint32_t m2_json_file_bone(const struct asset *a, uint32_t joint);
/* "found", "missing", "rejected". */
const char *m2_json_companion_status(uint8_t status);
/* [{"name", "kind": "skin"|"anim", "status", "view"|"sequence", "bytes",
 * "error"}] of the companions looked for. */
json_t *m2_json_companions(const struct asset *a);
/* Add a joint's file fields (bone, flags, billboard, key_bone_id). */
void m2_json_joint(json_t *joint, const struct m2_joint_info *j);
/* The events: [{"index", "id" (event_id.h's text), "data", "bone" (as
 * stored), "joint" (or null when the bone names none), "position"}]. */
json_t *m2_json_events(const struct asset *a);
/* Emitter i's static fields: {"index", "bone", "position", "type", ...}. */
json_t *m2_json_emitter(const struct asset *a, uint32_t i);
/* The same with its state: "m" (model-space 3x4), "enabled", "params". */
json_t *m2_json_emitter_state(const struct asset *a, uint32_t i, const struct emitter_state *st);
/* Attachment point i: {"index", "id", "bone", "joint", "position"}. */
json_t *m2_json_attachment(const struct asset *a, uint32_t i);
/* The same with its state: "m" (model-space 3x4), "animate" (bool). */
json_t *m2_json_attachment_state(const struct asset *a, uint32_t i,
				 const struct attachment_state *st);

#endif
