/*
 * describe.c - the lines animd's tools print about an asset (describe.h).
 * Pure text: no allocation, no I/O, libc only.
 */
#include "proto/describe.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Append printf-formatted text at buf's end, cut to fit. */
static void describe_append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void describe_append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

const char *describe_line(char *buf, size_t len, const char *label, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len == 0)
		return buf;
	n = snprintf(buf, len, "%-*s ", DESCRIBE_LABEL_WIDTH - 1, label);
	if (n < 0 || (size_t)n >= len)
		return buf;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	return buf;
}

/* Length of the well-formed UTF-8 sequence at s (n > 0 bytes), or 0:
 * overlong forms, surrogates and code points past U+10FFFF are not. */
static size_t describe_utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	*cp = c;
	return len;
}

const char *describe_name(char *buf, size_t len, const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n, used = 0, i = 0;

	if (len == 0)
		return buf;
	if (name == NULL) {
		snprintf(buf, len, "-");
		return buf;
	}
	n = strlen(name);
	buf[used++] = '"';
	while (i < n && used + 5 < len) {
		uint32_t cp;
		size_t k = describe_utf8(s + i, n - i, &cp);

		if (k == 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) {
			/* A control character or a byte that is not UTF-8: each
			 * byte as \xNN, as the daemon sends the latter. */
			k = k == 0 ? 1 : k;
			for (size_t b = 0; b < k && used + 5 < len; b++)
				used += (size_t)snprintf(buf + used, len - used, "\\x%02x", s[i + b]);
		} else if (cp == '"') {
			buf[used++] = '\\';
			buf[used++] = '"';
		} else {
			if (used + k + 2 >= len)
				break;
			memcpy(buf + used, s + i, k);
			used += k;
		}
		i += k;
	}
	if (used + 1 < len)
		buf[used++] = '"';
	buf[used < len ? used : len - 1] = '\0';
	return buf;
}

const char *describe_seconds(char *buf, size_t len, double seconds)
{
	snprintf(buf, len, "%.6g s", seconds);
	return buf;
}

const char *describe_format(char *buf, size_t len, const char *format, int version,
			    uint64_t bytes)
{
	return describe_line(buf, len, "format", "%s version %d, %llu bytes",
			     format != NULL ? format : "?", version, (unsigned long long)bytes);
}

const char *describe_axes(char *buf, size_t len, const char *up, const char *handedness)
{
	size_t n = up != NULL ? strlen(up) : 0;

	/* "z_up" says "z up"; a word the protocol may add later as it is. */
	if (n > 3 && strcmp(up + n - 3, "_up") == 0)
		describe_line(buf, len, "axes", "%.*s up", (int)(n - 3), up);
	else
		describe_line(buf, len, "axes", "up %s", up != NULL ? up : "?");
	describe_append(buf, len, ", %s-handed", handedness != NULL ? handedness : "?");
	return buf;
}

/* The noun for a count: "1 frame", "2 frames", "1 vertex". */
static const char *describe_noun(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

const char *describe_skeleton(char *buf, size_t len, uint32_t joints, bool bind_pose)
{
	return describe_line(buf, len, "skeleton", "%u joint%s%s", joints, joints == 1 ? "" : "s",
			     bind_pose ? ", bind pose" : "");
}

const char *describe_joint(char *buf, size_t len, uint32_t index, const char *name,
			   int32_t parent, const char *parent_name)
{
	char q[DESCRIBE_LINE_MAX / 4], pq[DESCRIBE_LINE_MAX / 4];

	describe_name(q, sizeof q, name);
	if (parent < 0 || parent_name == NULL) {
		snprintf(buf, len, "  %4u  %-26s root", index, q);
		return buf;
	}
	describe_name(pq, sizeof pq, parent_name);
	snprintf(buf, len, "  %4u  %-26s parent %d %s", index, q, (int)parent, pq);
	return buf;
}

const char *describe_clip(char *buf, size_t len, const char *name, double duration,
			  const char *loop, uint32_t joints, uint32_t frame_count, uint32_t frame_rate,
			  bool bounds)
{
	char q[DESCRIBE_LINE_MAX / 4], d[32];

	describe_line(buf, len, "clip", "%s: %s, %s, %u joint%s", describe_name(q, sizeof q, name),
		      describe_seconds(d, sizeof d, duration), loop != NULL ? loop : "?", joints,
		      joints == 1 ? "" : "s");
	if (frame_rate > 0)
		describe_append(buf, len, ", %u %s at %u fps", frame_count,
				describe_noun(frame_count, "frame", "frames"), frame_rate);
	if (bounds)
		describe_append(buf, len, ", bounds");
	return buf;
}

const char *describe_sequence(char *buf, size_t len, uint32_t anim_id, uint32_t variation,
			      uint32_t flags, double movespeed, int32_t frequency,
			      uint32_t replay_min, uint32_t replay_max, uint32_t blend_ms,
			      int32_t alias_of, bool loaded)
{
	snprintf(buf, len, ", animation %u.%u, flags 0x%x, movespeed %g, frequency %d, replay "
		 "%u..%u, blend %u ms", anim_id, variation, flags, movespeed, (int)frequency,
		 replay_min, replay_max, blend_ms);
	if (alias_of >= 0)
		describe_append(buf, len, ", alias of %d", (int)alias_of);
	if (!loaded)
		describe_append(buf, len, ", not loaded");
	return buf;
}

const char *describe_moments(char *buf, size_t len, size_t count, const double *times,
			     const uint32_t *events)
{
	char d[32];

	describe_line(buf, len, "", "events:");
	for (size_t k = 0; k < count; k++)
		describe_append(buf, len, "%s %u at %s", k ? "," : "", events[k],
				describe_seconds(d, sizeof d, times[k]));
	return buf;
}

const char *describe_global(char *buf, size_t len, uint32_t index, double seconds)
{
	char d[32];

	return describe_line(buf, len, "global", "%u: %s", index,
			     describe_seconds(d, sizeof d, seconds));
}

const char *describe_mesh(char *buf, size_t len, uint32_t index, const char *name,
			  const char *material, uint32_t vertices, uint32_t triangles,
			  uint32_t weights, bool skinned, int normals)
{
	char q[DESCRIBE_LINE_MAX / 4];

	describe_line(buf, len, "mesh", "%u %s: %u %s, %u %s, %u %s%s%s", index,
		      describe_name(q, sizeof q, name), vertices,
		      describe_noun(vertices, "vertex", "vertices"), triangles,
		      describe_noun(triangles, "triangle", "triangles"), weights,
		      describe_noun(weights, "weight", "weights"),
		      skinned ? ", skinned" : "",
		      normals == 2 ? ", normals derived" : normals ? ", normals" : "");
	if (material != NULL)
		describe_append(buf, len, ", material %s", describe_name(q, sizeof q, material));
	return buf;
}

const char *describe_camera(char *buf, size_t len, uint32_t frame_count, uint32_t frame_rate,
			    double duration, size_t cut_count, const uint32_t *cuts)
{
	char d[32];

	describe_line(buf, len, "camera", "%u %s at %u fps, %s playable, cuts:", frame_count,
		      describe_noun(frame_count, "frame", "frames"), frame_rate,
		      describe_seconds(d, sizeof d, duration));
	for (size_t i = 0; i < cut_count; i++)
		describe_append(buf, len, " %u", cuts[i]);
	if (cut_count == 0)
		describe_append(buf, len, " none");
	return buf;
}

const char *describe_attachment(char *buf, size_t len, uint32_t index, uint32_t id,
				uint32_t bone, const char *joint_name, float x, float y, float z)
{
	char q[DESCRIBE_LINE_MAX / 4];

	return describe_line(buf, len, "attachment", "%u: id %u on bone %u %s at %g %g %g", index,
			     id, bone, joint_name != NULL ? describe_name(q, sizeof q, joint_name) : "?",
			     x, y, z);
}

const char *describe_event(char *buf, size_t len, uint32_t index, const char *id, uint32_t data,
			   uint32_t bone, const char *joint_name, float x, float y, float z)
{
	char q[DESCRIBE_LINE_MAX / 4], jq[DESCRIBE_LINE_MAX / 4];

	describe_line(buf, len, "event", "%u: %s, data %u, on ", index, describe_name(q, sizeof q, id),
		      data);
	if (joint_name != NULL)
		describe_append(buf, len, "bone %u %s", bone, describe_name(jq, sizeof jq, joint_name));
	else
		describe_append(buf, len, "bone %u (not in the skeleton)", bone);
	describe_append(buf, len, " at %g %g %g", x, y, z);
	return buf;
}

const char *describe_sample(char *buf, size_t len, const char *asset, const char *clip,
			    double time, double clip_time, int64_t cycles, const char *space)
{
	char q[DESCRIBE_LINE_MAX / 4], t[32], ct[32];

	snprintf(buf, len, "asset %s", asset != NULL ? asset : "?");
	if (clip != NULL)
		describe_append(buf, len, ", clip %s", describe_name(q, sizeof q, clip));
	describe_append(buf, len, ", time %s", describe_seconds(t, sizeof t, time));
	if (clip != NULL)
		describe_append(buf, len, " -> clip time %s (cycle %lld)",
				describe_seconds(ct, sizeof ct, clip_time), (long long)cycles);
	describe_append(buf, len, ", space %s", space != NULL ? space : "?");
	return buf;
}
