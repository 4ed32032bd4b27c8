/*
 * m2_layout.c - what differs between the M2 versions animd reads, as
 * data: one struct m2_layout per range of versions, and where each header
 * field is in it.  The facts and their sources are in docs/formats/m2.md
 * (wowdev.wiki M2 and M2/.skin; WoW Model Viewer's modelheaders.h and
 * animated.h; WMVx's M2Definitions.h and M2.cpp).
 */
#include "daemon/formats/m2/m2.h"

#include <stddef.h>

static const struct m2_layout m2_layouts[] = {
	{
		/* Classic. */
		.version_min = 256, .version_max = 257,
		.header_bytes = 0x144, .sequence_bytes = 68,
		.bone_bytes = 108, .bone_tracks_at = 12,
		.track_bytes = 28, .track_base_bytes = 20,
		.attachment_bytes = 48, .event_bytes = 44, .emitter_bytes = 0x1f8,
		.submesh_bytes = 32,
		.colors_bytes = 56, .transparency_bytes = 28, .texture_animation_bytes = 84,
		.light_bytes = 212, .camera_bytes = 124, .ribbon_bytes = 220,
		.skin_header_bytes = 48,
	},
	{
		/* The Burning Crusade: the classic header and tracks; bones
		 * gain a uint32 name hash after the submesh (112 bytes),
		 * rotations are compressed, submeshes gain a sort center and
		 * radius (48 bytes); from 263 an emitter's blend mode and type
		 * are bytes followed by a color index. */
		.version_min = 260, .version_max = 263,
		.header_bytes = 0x144, .sequence_bytes = 68,
		.bone_bytes = 112, .bone_tracks_at = 16,
		.track_bytes = 28, .track_base_bytes = 20,
		.attachment_bytes = 48, .event_bytes = 44, .emitter_bytes = 0x1f8,
		.submesh_bytes = 48,
		.colors_bytes = 56, .transparency_bytes = 28, .texture_animation_bytes = 84,
		.light_bytes = 212, .camera_bytes = 124, .ribbon_bytes = 220,
		.skin_header_bytes = 48,
		.quat16 = true,
	},
	{
		/* Wrath of the Lich King. */
		.version_min = 264, .version_max = 264,
		.header_bytes = 0x130, .sequence_bytes = 64,
		.bone_bytes = 88, .bone_tracks_at = 16,
		.track_bytes = 20, .track_base_bytes = 12,
		.attachment_bytes = 40, .event_bytes = 36, .emitter_bytes = 0x1dc,
		.submesh_bytes = 48,
		.colors_bytes = 40, .transparency_bytes = 20, .texture_animation_bytes = 60,
		.light_bytes = 156, .camera_bytes = 100, .ribbon_bytes = 176,
		.skin_header_bytes = 48,
		.quat16 = true, .per_sequence = true, .external_views = true,
		.emitter_u8_types = true, .aliases = true,
	},
	{
		/* Cataclysm to Mists of Pandaria: 264 for everything animd
		 * reads, but particle emitters of 492 bytes (whatever global
		 * flag 0x200 says) and .skin files with an array of shadow
		 * batches after the bone count (their data after 64 bytes in
		 * real files).  The blocks animd only bounds-checks keep 264's
		 * sizes, the smallest any source gives (cameras may be 116). */
		.version_min = 265, .version_max = 272,
		.header_bytes = 0x130, .sequence_bytes = 64,
		.bone_bytes = 88, .bone_tracks_at = 16,
		.track_bytes = 20, .track_base_bytes = 12,
		.attachment_bytes = 40, .event_bytes = 36, .emitter_bytes = 0x1ec,
		.submesh_bytes = 48,
		.colors_bytes = 40, .transparency_bytes = 20, .texture_animation_bytes = 60,
		.light_bytes = 156, .camera_bytes = 100, .ribbon_bytes = 176,
		.skin_header_bytes = 56,
		.quat16 = true, .per_sequence = true, .external_views = true,
		.emitter_u8_types = true, .aliases = true,
	},
};

const struct m2_layout *m2_layout_of(uint32_t version)
{
	for (size_t i = 0; i < sizeof m2_layouts / sizeof m2_layouts[0]; i++)
		if (version >= m2_layouts[i].version_min && version <= m2_layouts[i].version_max)
			return &m2_layouts[i];
	return NULL;
}

/*
 * From 264 the header loses three pairs: the playable animation lookup
 * (8 bytes at 0x02C), the views' offset (the pair at 0x04C becomes a
 * uint32 count at 0x044) and the texture flipbooks (8 bytes at 0x06C);
 * everything after each moves up.
 */
uint32_t m2_layout_field(const struct m2_layout *l, enum m2_header_field f)
{
	uint32_t at = (uint32_t)f;

	if (!l->external_views)
		return at;
	if (at == M2_HDR_PLAYABLE_LOOKUP || at == M2_HDR_VIEWS || at == M2_HDR_TEXTURE_FLIPBOOKS)
		return 0;
	if (at < M2_HDR_PLAYABLE_LOOKUP)
		return at;
	if (at < M2_HDR_VIEWS)
		return at - 8;
	if (at < M2_HDR_TEXTURE_FLIPBOOKS)
		return at - 12;
	return at - 20;
}
