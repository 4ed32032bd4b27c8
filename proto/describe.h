/*
 * describe.h - an asset's facts written for people, decided once: the
 * lines `animd inspect` and `animctl info` both print (format, axes,
 * skeleton and joints with their parents, clips and their durations,
 * meshes, cameras, global sequences, attachment points, events) and the
 * header `animd sample` and `animctl sample` both print.  The daemon's
 * offline tools fill them from the asset, animctl from `assets.info` and
 * `sample` (whose fields are those of `animd inspect --json` and `animd
 * sample --json`), so the two say the same words with the same numbers;
 * tests/integration/test_describe.sh compares them line by line on the
 * demo assets.
 *
 * Every function writes one line, without its newline, into buf (always
 * NUL-terminated, cut to fit) and returns buf.  A line starts with its
 * label padded to DESCRIBE_LABEL_WIDTH columns ("axes        "), or with
 * the blanks of one for a continuation.  Times are seconds as "%.6g s";
 * names from files are quoted, their control characters and bytes that
 * are not UTF-8 as \xNN (what the daemon sends for such bytes reads the
 * same), a quote as \".
 *
 * Depends on libc only: both sides compile it (tests/layers).
 */
#ifndef ANIMD_DESCRIBE_H
#define ANIMD_DESCRIBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Columns of a line's label, its blanks included ("skeleton    "). */
#define DESCRIBE_LABEL_WIDTH 12
/* Enough for any line below with names of up to 256 bytes. */
#define DESCRIBE_LINE_MAX 1600

/* `label` padded to DESCRIBE_LABEL_WIDTH ("" gives the blanks of a
 * continuation line), then the printf-formatted rest. */
const char *describe_line(char *buf, size_t len, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A name from a file, quoted and escaped as above; NULL gives "-". */
const char *describe_name(char *buf, size_t len, const char *name);

/* Seconds for people: "%.6g s" ("1 s", "0.0416667 s"). */
const char *describe_seconds(char *buf, size_t len, double seconds);

/* "format      md5anim version 10, 4711 bytes" */
const char *describe_format(char *buf, size_t len, const char *format, int version,
			    uint64_t bytes);

/* "axes        z up, right-handed" from the protocol's words ("z_up",
 * "right"); others as they are ("up w, odd-handed"). */
const char *describe_axes(char *buf, size_t len, const char *up, const char *handedness);

/* "skeleton    10 joints, bind pose" */
const char *describe_skeleton(char *buf, size_t len, uint32_t joints, bool bind_pose);

/* One joint, under the skeleton's line: "     3  \"head\"  ...  parent 2
 * \"neck\"", or "root" for a joint without one (parent < 0 or out of range:
 * parent_name NULL then). */
const char *describe_joint(char *buf, size_t len, uint32_t index, const char *name,
			   int32_t parent, const char *parent_name);

/* A clip: "clip        \"walk\": 1 s, loop, 10 joints, 25 frames at 24 fps,
 * bounds" (frames only when frame_rate > 0).  An M2 sequence appends
 * describe_sequence's words and ", not loaded" when its keys are missing. */
const char *describe_clip(char *buf, size_t len, const char *name, double duration,
			  const char *loop, uint32_t joints, uint32_t frame_count, uint32_t frame_rate,
			  bool bounds);

/* An M2 sequence's fields, appended to its clip's line: ", animation 4.0,
 * flags 0x20, movespeed 2.5, frequency 0, replay 0..0, blend 150 ms[,
 * alias of 3][, not loaded]" (alias_of < 0: none). */
const char *describe_sequence(char *buf, size_t len, uint32_t anim_id, uint32_t variation,
			      uint32_t flags, double movespeed, int32_t frequency,
			      uint32_t replay_min, uint32_t replay_max, uint32_t blend_ms,
			      int32_t alias_of, bool loaded);

/* A clip's event moments, the continuation line under it: "            events:
 * 0 at 0.5 s, 0 at 1.5 s" (count > 0). */
const char *describe_moments(char *buf, size_t len, size_t count, const double *times,
			     const uint32_t *events);

/* "global      0: 1.2 s" */
const char *describe_global(char *buf, size_t len, uint32_t index, double seconds);

/* A mesh: "mesh        0 \"body\": 1234 vertices, 2000 triangles, 3000
 * weights, skinned, normals derived, material \"skin\"".  normals: 0
 * none, 1 the file's, 2 derived from the triangles (MD5); material NULL:
 * none. */
const char *describe_mesh(char *buf, size_t len, uint32_t index, const char *name,
			  const char *material, uint32_t vertices, uint32_t triangles,
			  uint32_t weights, bool skinned, int normals);

/* A camera: "camera      240 frames at 24 fps, 9.95833 s playable, cuts: 48 96" (or
 * "cuts: none"). */
const char *describe_camera(char *buf, size_t len, uint32_t frame_count, uint32_t frame_rate,
			    double duration, size_t cut_count, const uint32_t *cuts);

/* An M2 attachment point on the file's bone `bone`, joint joint_name:
 * "attachment  0: id 11 on bone 0 \"bone0\" at 0.5 0 1.4" (joint_name NULL:
 * "?"). */
const char *describe_attachment(char *buf, size_t len, uint32_t index, uint32_t id,
				uint32_t bone, const char *joint_name, float x, float y, float z);

/* An M2 event: "event       0: \"$CSD\", data 7, on bone 1 \"bone1\" at 0 0
 * 2", or "on bone 9 (not in the skeleton)" when joint_name is NULL. */
const char *describe_event(char *buf, size_t len, uint32_t index, const char *id, uint32_t data,
			   uint32_t bone, const char *joint_name, float x, float y, float z);

/* A sample's header: "asset walker.md5anim, clip \"walker\", time 0.25 s ->
 * clip time 0.25 s (cycle 0), space model" (clip NULL: a camera, no clip
 * nor cycle). */
const char *describe_sample(char *buf, size_t len, const char *asset, const char *clip,
			    double time, double clip_time, int64_t cycles, const char *space);

#endif
