/*
 * m2.c - an M2 file from the top: size, magic and version, every
 * {count, offset} pair of the 0x144-byte header checked against the file
 * before anything else, the bounding floats and the name, the one
 * allocation the model needs, then each part (m2_internal.h) in an order
 * where what a part checks against is already known: sequences before
 * tracks, bones before what hangs on them, vertices before views.
 */
#include "daemon/formats/m2/m2_internal.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a header pair's elements are, for their size in the layout. */
enum m2_pair_size {
	M2_SZ_FIXED,            /* `size` bytes in every version */
	M2_SZ_SEQUENCE, M2_SZ_BONE, M2_SZ_ATTACHMENT, M2_SZ_EVENT, M2_SZ_EMITTER,
	M2_SZ_COLOR, M2_SZ_TRANSPARENCY, M2_SZ_TEXTURE_ANIMATION, M2_SZ_LIGHT,
	M2_SZ_CAMERA, M2_SZ_RIBBON,
};

/* Every pair of the header: where (by its version-256 offset), the size
 * of one element, whether animd reads the block (its records feed what
 * animd publishes), its name. */
static const struct m2_header_pair {
	uint16_t field;
	uint8_t kind;
	uint8_t read;
	uint16_t size;
	const char *name;
} m2_pairs[] = {
	{ M2_HDR_NAME, M2_SZ_FIXED, 1, 1, "the model name" },
	{ M2_HDR_GLOBAL_SEQUENCES, M2_SZ_FIXED, 1, 4, "global sequences" },
	{ M2_HDR_SEQUENCES, M2_SZ_SEQUENCE, 1, 0, "sequences" },
	{ M2_HDR_ANIMATION_LOOKUP, M2_SZ_FIXED, 0, 2, "the animation lookup" },
	{ M2_HDR_PLAYABLE_LOOKUP, M2_SZ_FIXED, 0, 4, "the playable animation lookup" },
	{ M2_HDR_BONES, M2_SZ_BONE, 1, 0, "bones" },
	{ M2_HDR_KEY_BONE_LOOKUP, M2_SZ_FIXED, 0, 2, "the key-bone lookup" },
	{ M2_HDR_VERTICES, M2_SZ_FIXED, 1, M2_VERTEX_BYTES, "vertices" },
	{ M2_HDR_VIEWS, M2_SZ_FIXED, 1, M2_VIEW_BYTES, "views" },
	{ M2_HDR_COLORS, M2_SZ_COLOR, 0, 0, "colors" },
	{ M2_HDR_TEXTURES, M2_SZ_FIXED, 0, 16, "textures" },
	{ M2_HDR_TRANSPARENCY, M2_SZ_TRANSPARENCY, 0, 0, "transparency" },
	/* Always empty in the files the public tools describe; no source
	 * gives the record's size, so each is taken as at least a byte. */
	{ M2_HDR_TEXTURE_FLIPBOOKS, M2_SZ_FIXED, 0, 1, "texture flipbooks" },
	{ M2_HDR_TEXTURE_ANIMATIONS, M2_SZ_TEXTURE_ANIMATION, 0, 0, "texture animations" },
	{ M2_HDR_REPLACEABLE_TEXTURE_LOOKUP, M2_SZ_FIXED, 0, 2, "the replaceable texture lookup" },
	{ M2_HDR_RENDER_FLAGS, M2_SZ_FIXED, 0, 4, "render flags" },
	{ M2_HDR_BONE_LOOKUP, M2_SZ_FIXED, 0, 2, "the bone lookup" },
	{ M2_HDR_TEXTURE_LOOKUP, M2_SZ_FIXED, 0, 2, "the texture lookup" },
	{ M2_HDR_TEXTURE_UNIT_LOOKUP, M2_SZ_FIXED, 0, 2, "the texture unit lookup" },
	{ M2_HDR_TRANSPARENCY_LOOKUP, M2_SZ_FIXED, 0, 2, "the transparency lookup" },
	{ M2_HDR_TEXTURE_ANIMATION_LOOKUP, M2_SZ_FIXED, 0, 2, "the texture animation lookup" },
	{ M2_HDR_BOUNDING_TRIANGLES, M2_SZ_FIXED, 0, 2, "bounding triangles" },
	{ M2_HDR_BOUNDING_VERTICES, M2_SZ_FIXED, 0, 12, "bounding vertices" },
	{ M2_HDR_BOUNDING_NORMALS, M2_SZ_FIXED, 0, 12, "bounding normals" },
	{ M2_HDR_ATTACHMENTS, M2_SZ_ATTACHMENT, 1, 0, "attachments" },
	{ M2_HDR_ATTACHMENT_LOOKUP, M2_SZ_FIXED, 0, 2, "the attachment lookup" },
	{ M2_HDR_EVENTS, M2_SZ_EVENT, 1, 0, "events" },
	{ M2_HDR_LIGHTS, M2_SZ_LIGHT, 0, 0, "lights" },
	{ M2_HDR_CAMERAS, M2_SZ_CAMERA, 0, 0, "cameras" },
	{ M2_HDR_CAMERA_LOOKUP, M2_SZ_FIXED, 0, 2, "the camera lookup" },
	{ M2_HDR_RIBBONS, M2_SZ_RIBBON, 0, 0, "ribbon emitters" },
	{ M2_HDR_PARTICLE_EMITTERS, M2_SZ_EMITTER, 1, 0, "particle emitters" },
};

static uint32_t m2_pair_size(const struct m2_ctx *c, const struct m2_header_pair *p)
{
	const struct m2_layout *l = c->l;

	switch (p->kind) {
	case M2_SZ_SEQUENCE: return l->sequence_bytes;
	case M2_SZ_BONE: return l->bone_bytes;
	case M2_SZ_ATTACHMENT: return l->attachment_bytes;
	case M2_SZ_EVENT: return l->event_bytes;
	case M2_SZ_EMITTER: return c->emitter_bytes;
	case M2_SZ_COLOR: return l->colors_bytes;
	case M2_SZ_TRANSPARENCY: return l->transparency_bytes;
	case M2_SZ_TEXTURE_ANIMATION: return l->texture_animation_bytes;
	case M2_SZ_LIGHT: return l->light_bytes;
	case M2_SZ_CAMERA: return l->camera_bytes;
	case M2_SZ_RIBBON: return l->ribbon_bytes;
	default: return p->size;
	}
}

/* From 260, global flag 0x8 adds one pair after the header's last
 * (texture combiner combos, uint16 each: WMVx's blend map overrides). */
#define M2_FLAG_COMBINER_COMBOS 0x8u

/* The blocks the model keeps undecoded, and where. */
static const struct {
	uint16_t field;
	size_t member;
} m2_kept[] = {
	{ M2_HDR_ANIMATION_LOOKUP, offsetof(struct m2_model, animation_lookup) },
	{ M2_HDR_PLAYABLE_LOOKUP, offsetof(struct m2_model, playable_lookup) },
	{ M2_HDR_KEY_BONE_LOOKUP, offsetof(struct m2_model, key_bone_lookup) },
	{ M2_HDR_BONE_LOOKUP, offsetof(struct m2_model, bone_lookup) },
	{ M2_HDR_ATTACHMENT_LOOKUP, offsetof(struct m2_model, attachment_lookup) },
	{ M2_HDR_COLORS, offsetof(struct m2_model, colors) },
	{ M2_HDR_TEXTURES, offsetof(struct m2_model, textures) },
	{ M2_HDR_TRANSPARENCY, offsetof(struct m2_model, transparency) },
	{ M2_HDR_TEXTURE_FLIPBOOKS, offsetof(struct m2_model, texture_flipbooks) },
	{ M2_HDR_TEXTURE_ANIMATIONS, offsetof(struct m2_model, texture_animations) },
	{ M2_HDR_REPLACEABLE_TEXTURE_LOOKUP, offsetof(struct m2_model, replaceable_texture_lookup) },
	{ M2_HDR_RENDER_FLAGS, offsetof(struct m2_model, render_flags) },
	{ M2_HDR_TEXTURE_LOOKUP, offsetof(struct m2_model, texture_lookup) },
	{ M2_HDR_TEXTURE_UNIT_LOOKUP, offsetof(struct m2_model, texture_unit_lookup) },
	{ M2_HDR_TRANSPARENCY_LOOKUP, offsetof(struct m2_model, transparency_lookup) },
	{ M2_HDR_TEXTURE_ANIMATION_LOOKUP, offsetof(struct m2_model, texture_animation_lookup) },
	{ M2_HDR_BOUNDING_TRIANGLES, offsetof(struct m2_model, bounding_triangles) },
	{ M2_HDR_BOUNDING_VERTICES, offsetof(struct m2_model, bounding_vertices) },
	{ M2_HDR_BOUNDING_NORMALS, offsetof(struct m2_model, bounding_normals) },
	{ M2_HDR_LIGHTS, offsetof(struct m2_model, lights) },
	{ M2_HDR_CAMERAS, offsetof(struct m2_model, cameras) },
	{ M2_HDR_CAMERA_LOOKUP, offsetof(struct m2_model, camera_lookup) },
	{ M2_HDR_RIBBONS, offsetof(struct m2_model, ribbons) },
};

int m2_error(const struct m2_ctx *c, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = bin_verror(&c->r, off, fmt, ap);
	va_end(ap);
	return rc;
}

int m2_array(const struct m2_ctx *c, uint64_t at, uint32_t size, struct m2_block *out,
	     const char *fmt, ...)
{
	char name[160];
	va_list ap;

	out->count = bin_le32(c->r.data + at);
	out->offset = bin_le32(c->r.data + at + 4);
	out->data = NULL;
	if (out->count == 0)
		return 0;
	if (bin_array_fits(&c->r, out->offset, out->count, size) &&
	    out->offset >= c->header_bytes) {
		out->data = c->r.data + out->offset;
		return 0;
	}
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	if (out->offset < c->header_bytes)
		return m2_error(c, at, "%s: %" PRIu32 " entries at 0x%" PRIx32 ", inside the "
				"0x%x-byte header (data follows the header)", name, out->count,
				out->offset, c->header_bytes);
	return bin_array_error(&c->r, at, out->count, out->offset, size, name);
}

/* A header block animd does not read: inside the file (safety), but one
 * that starts inside the header is only noted. */
static int m2_block_unread(struct m2_ctx *c, uint64_t at, uint32_t size, struct m2_block *out,
			   const char *name)
{
	out->count = bin_le32(c->r.data + at);
	out->offset = bin_le32(c->r.data + at + 4);
	out->data = NULL;
	if (out->count == 0)
		return 0;
	if (!bin_array_fits(&c->r, out->offset, out->count, size))
		return bin_array_error(&c->r, at, out->count, out->offset, size, name);
	if (out->offset < c->header_bytes)
		m2_note(c, at, "%s: %" PRIu32 " entries at 0x%" PRIx32 ", inside the 0x%x-byte "
			"header (animd does not read them)", name, out->count, out->offset,
			c->header_bytes);
	out->data = c->r.data + out->offset;
	return 0;
}

const struct m2_block *m2_header_block(const struct m2_ctx *c, enum m2_header_field field)
{
	return &c->hdr[field / 4];
}

void *m2_alloc(struct m2_ctx *c, size_t count, size_t size)
{
	/* The arena was sized for exactly these requests (m2_arena_size). */
	size_t n = (count * size + 15) & ~(size_t)15;
	void *p = c->arena + c->arena_used;

	assert(n <= c->arena_size - c->arena_used);
	c->arena_used += n;
	return p;
}

int m2_spend(struct m2_ctx *c, uint64_t n, uint64_t at)
{
	if (n <= c->budget) {
		c->budget -= n;
		return 0;
	}
	return m2_error(c, at, "the arrays of the tracks and views so far add up to more than %u "
			"times the file's size: records sharing arrays this much are refused (the "
			"parse would take quadratic time)", M2_SHARE_FACTOR);
}

const char *m2_owner_name(const struct m2_owner *w, char *buf, size_t size)
{
	snprintf(buf, size, "%s %" PRIu32 " %s", w->kind, w->index, w->field);
	return buf;
}

void m2_lookup_note(struct m2_ctx *c, const struct m2_block *b, uint32_t stride, bool is_signed,
		    uint32_t limit, const char *what, const char *target, const char *targets)
{
	for (uint32_t i = 0; i < b->count; i++) {
		const unsigned char *p = b->data + (size_t)i * stride;
		int32_t v = is_signed ? bin_les16(p) : (int32_t)bin_le16(p);

		if ((v == -1 && is_signed) || (v >= 0 && (uint32_t)v < limit))
			continue;
		m2_note(c, (uint64_t)(p - c->r.data), "%s entry %" PRIu32 " is %" PRId32
			", which names no %s (the model has %" PRIu32 " %s): kept as stored, "
			"nothing animd publishes reads the table", what, i, v, target, limit,
			targets);
		return;
	}
}

/* Four bytes for a message: printable as is, the rest as \xNN. */
static const char *m2_show4(const unsigned char *p, char *buf, size_t size)
{
	size_t o = 0;

	for (int i = 0; i < 4 && o + 5 < size; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			buf[o++] = (char)p[i];
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", p[i]);
	}
	buf[o] = '\0';
	return buf;
}

static int m2_header(struct m2_ctx *c)
{
	const unsigned char *p = c->r.data;
	char shown[24];
	uint32_t version;

	if (c->r.len > M2_MAX_BYTES)
		return m2_error(c, 0, "%zu bytes: larger than the %u-byte limit for M2 files",
				c->r.len, M2_MAX_BYTES);
	if (c->r.len < 4 || memcmp(p, "MD20", 4) != 0) {
		if (c->r.len >= 4 && memcmp(p, "MD21", 4) == 0)
			return m2_error(c, 0, "a chunked M2 (\"MD21\", Legion and later): animd "
					"reads \"MD20\" models, versions 256 to 272");
		if (c->r.len < 4)
			return m2_error(c, 0, "%zu bytes: too short for the \"MD20\" magic",
					c->r.len);
		return m2_error(c, 0, "not an M2 file: it starts \"%s\", not \"MD20\"",
				m2_show4(p, shown, sizeof shown));
	}
	if (c->r.len < 8)
		return m2_error(c, 4, "the file ends inside the version (%zu bytes)", c->r.len);
	version = bin_le32(p + M2_HDR_VERSION);
	c->l = m2_layout_of(version);
	if (c->l == NULL)
		return m2_error(c, M2_HDR_VERSION, "unsupported M2 version %" PRIu32
				" (animd reads 256, 257 and 260 to 272)", version);
	c->header_bytes = c->l->header_bytes;
	if (c->r.len < c->header_bytes)
		return m2_error(c, c->r.len, "the file ends at 0x%zx, inside the 0x%x-byte header",
				c->r.len, c->header_bytes);
	/* The wowdev wiki: global flag 0x200 gives a 264 model the 492-byte
	 * emitters 265 and later always have. */
	c->emitter_bytes = c->l->emitter_bytes;
	if (c->l->per_sequence && (bin_le32(p + M2_HDR_GLOBAL_FLAGS) & 0x200u))
		c->emitter_bytes = 0x1ec;
	if (version >= 260 && (bin_le32(p + M2_HDR_GLOBAL_FLAGS) & M2_FLAG_COMBINER_COMBOS)) {
		/* One more pair: the header is 8 bytes longer. */
		struct m2_block b;
		int rc;

		c->header_bytes += 8;
		if (c->r.len < c->header_bytes)
			return m2_error(c, c->r.len, "the file ends at 0x%zx, inside the 0x%x-byte "
					"header (global flag 0x8 adds the texture combiner "
					"combos)", c->r.len, c->header_bytes);
		rc = m2_block_unread(c, c->header_bytes - 8, 2, &b, "texture combiner combos");
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; i < sizeof m2_pairs / sizeof m2_pairs[0]; i++) {
		const struct m2_header_pair *hp = &m2_pairs[i];
		uint32_t at = m2_layout_field(c->l, (enum m2_header_field)hp->field);
		int rc;

		if (at == 0)
			continue;       /* not in this version: an empty block */
		if (hp->read)
			rc = m2_array(c, at, m2_pair_size(c, hp), &c->hdr[hp->field / 4], "%s",
				      hp->name);
		else
			rc = m2_block_unread(c, at, m2_pair_size(c, hp), &c->hdr[hp->field / 4],
					     hp->name);
		if (rc < 0)
			return rc;
	}
	if (c->l->external_views) {
		uint32_t n = bin_le32(p + M2_V264_VIEW_COUNT);

		if (n > M2_MAX_SKINS)
			return m2_error(c, M2_V264_VIEW_COUNT, "%" PRIu32 " views: their .skin files "
					"are numbered with two digits, 00 to %u", n,
					M2_MAX_SKINS - 1);
		/* The views' count, with no array: its data stays NULL. */
		c->hdr[M2_HDR_VIEWS / 4].count = n;
	}
	return 0;
}

/* Tracks the model decodes: three per bone, one per attachment and
 * event, eleven per emitter. */
static uint64_t m2_track_slots(const struct m2_ctx *c)
{
	return 3ull * m2_header_block(c, M2_HDR_BONES)->count +
	       m2_header_block(c, M2_HDR_ATTACHMENTS)->count +
	       m2_header_block(c, M2_HDR_EVENTS)->count +
	       (M2_EMIT_PARAMS + 1ull) * m2_header_block(c, M2_HDR_PARTICLE_EMITTERS)->count;
}

/* Everything m2_alloc will be asked for, in 64 bits: the counts are
 * already known to fit in the file, so the total is a small multiple of
 * its size. */
static uint64_t m2_arena_size(const struct m2_ctx *c)
{
	const struct {
		enum m2_header_field field;
		uint64_t size;
	} parts[] = {
		{ M2_HDR_NAME, 1 },
		{ M2_HDR_GLOBAL_SEQUENCES, sizeof(uint32_t) },
		{ M2_HDR_SEQUENCES, sizeof(struct m2_sequence) },
		{ M2_HDR_BONES, sizeof(struct m2_bone) },
		{ M2_HDR_BONES, sizeof(uint32_t) },     /* bone_order */
		{ M2_HDR_BONES, sizeof(uint32_t) },     /* the order's scratch */
		{ M2_HDR_VERTICES, sizeof(struct m2_vertex) },
		{ M2_HDR_VIEWS, sizeof(struct m2_view) },
		{ M2_HDR_ATTACHMENTS, sizeof(struct m2_attachment) },
		{ M2_HDR_EVENTS, sizeof(struct m2_event) },
		{ M2_HDR_PARTICLE_EMITTERS, sizeof(struct m2_emitter) },
	};
	uint64_t total = 0;

	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		total += ((m2_header_block(c, parts[i].field)->count + 1) * parts[i].size + 15) &
			 ~(uint64_t)15;
	return total + ((uint64_t)m2_track_slots(c) + 1) * sizeof(struct m2_track *) + 16;
}

/* The bounding floats, the flags and the name. */
static void m2_header_values(struct m2_ctx *c)
{
	const unsigned char *p = c->r.data;
	const struct m2_block *name = m2_header_block(c, M2_HDR_NAME);
	struct m2_model *m = c->m;
	size_t n;

	const unsigned char *bounds = p + m2_layout_field(c->l, M2_HDR_BOUNDS);

	m->version = bin_le32(p + M2_HDR_VERSION);
	m->layout = c->l;
	m->data = p;
	m->data_len = c->r.len;
	m->global_flags = bin_le32(p + M2_HDR_GLOBAL_FLAGS);
	for (int i = 0; i < 3; i++) {
		m->bounds_min[i] = bin_lef32(bounds + 4 * i);
		m->bounds_max[i] = bin_lef32(bounds + 12 + 4 * i);
		m->collision_min[i] = bin_lef32(bounds + 28 + 4 * i);
		m->collision_max[i] = bin_lef32(bounds + 40 + 4 * i);
	}
	m->bounds_radius = bin_lef32(bounds + 24);
	m->collision_radius = bin_lef32(bounds + 52);
	/* The stored length counts the terminating NUL; a name without one
	 * is taken whole, one with bytes after its NUL ends at the NUL. */
	m->name = m2_alloc(c, (size_t)name->count + 1, 1);
	n = name->count == 0 ? 0 : strnlen((const char *)name->data, name->count);
	if (n > 0)
		memcpy(m->name, name->data, n);
	m->name[n] = '\0';
	for (size_t i = 0; i < sizeof m2_kept / sizeof m2_kept[0]; i++)
		memcpy((char *)m + m2_kept[i].member, m2_header_block(c, m2_kept[i].field),
		       sizeof(struct m2_block));
}

int m2_parse(const void *data, size_t len, struct m2_model **out, struct diag *d)
{
	struct diag_notes header_notes;
	struct m2_ctx c;
	uint64_t arena;
	int rc;

	*out = NULL;
	memset(&c, 0, sizeof c);
	bin_init(&c.r, data, len, d);
	/* Notes of the header come before the model that keeps them. */
	memset(&header_notes, 0, sizeof header_notes);
	c.notes = &header_notes;
	rc = m2_header(&c);
	if (rc < 0)
		return rc;
	arena = sizeof(struct m2_model) + 16 + m2_arena_size(&c);
	if (arena > SIZE_MAX)
		return -ENOMEM;
	c.arena = calloc(1, (size_t)arena);
	if (c.arena == NULL)
		return -ENOMEM;
	c.arena_size = (size_t)arena;
	c.m = m2_alloc(&c, 1, sizeof *c.m);
	c.m->notes = header_notes;
	c.notes = &c.m->notes;
	c.budget = (uint64_t)len * M2_SHARE_FACTOR + M2_SHARE_SLACK;
	m2_header_values(&c);
	c.track_slots = (uint32_t)m2_track_slots(&c);
	c.m->tracks = m2_alloc(&c, (size_t)c.track_slots + 1, sizeof *c.m->tracks);
	rc = m2_sequence_read(&c);
	if (rc == 0)
		rc = m2_bone_read(&c);
	if (rc == 0)
		rc = m2_attach_read(&c);
	if (rc == 0)
		rc = m2_sequence_lookups(&c);
	if (rc == 0)
		rc = m2_vertex_read(&c);
	if (rc == 0)
		rc = m2_view_read(&c);
	if (rc == 0)
		rc = m2_emitter_read(&c);
	if (rc == 0)
		m2_sequence_data(&c);
	if (rc < 0) {
		free(c.arena);
		return rc;
	}
	*out = c.m;
	return 0;
}

void m2_model_free(struct m2_model *m)
{
	/* The model is the start of its one allocation. */
	free(m);
}
