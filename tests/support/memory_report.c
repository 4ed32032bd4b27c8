#include "tests/support/memory_report.h"

#include <stdio.h>

#include "daemon/anim/emitter.h"

static uint64_t memory_report_track(const struct track *tr)
{
	return tr->global == 0 ? tr->count : 0;
}

uint64_t memory_report_keys(const struct clip *c)
{
	uint64_t n = 0;

	if (c->tracks != NULL)
		for (uint32_t j = 0; j < c->joint_count; j++)
			n += memory_report_track(&c->tracks[j].t) +
			     memory_report_track(&c->tracks[j].r) +
			     memory_report_track(&c->tracks[j].s);
	if (c->emitters != NULL)
		for (uint32_t e = 0; e < c->emitter_count; e++) {
			for (int p = 0; p < EMITTER_PARAMS; p++)
				n += memory_report_track(&c->emitters[e].param[p]);
			n += memory_report_track(&c->emitters[e].enabled);
		}
	return n;
}

void memory_report_asset(const char *label, const struct asset *a)
{
	struct asset_memory m;

	asset_memory(a, &m);
	printf("%-24s %10llu bytes in memory, %.2f x its %llu-byte file: skeleton %llu, clips %llu "
	       "(%u), meshes %llu (%u), camera %llu, emitters %llu, other %llu\n", label,
	       (unsigned long long)m.total,
	       a->file_bytes > 0 ? (double)m.total / (double)a->file_bytes : 0.0,
	       (unsigned long long)a->file_bytes, (unsigned long long)m.skeleton,
	       (unsigned long long)m.clips, a->clip_count, (unsigned long long)m.meshes,
	       a->mesh_count, (unsigned long long)m.camera, (unsigned long long)m.emitters,
	       (unsigned long long)m.other);
}

void memory_report_clip(const char *label, const struct clip *c)
{
	size_t bytes = clip_bytes(c), index = clip_index_bytes(c);

	if (c->packed != NULL) {
		uint64_t cells = (uint64_t)c->frame_count * c->joint_count;
		float error = 0, precision = 0, shell = 0;

		clip_packed_error(c, &error, &precision, &shell);
		printf("%-24s %10zu bytes a clip (%u joints x %u frames): %.2f bytes per joint per "
		       "frame, compressed (%zu bytes of frames, worst error %.3g)\n", label, bytes,
		       c->joint_count, c->frame_count,
		       cells > 0 ? (double)bytes / (double)cells : 0.0, clip_packed_bytes(c), error);
		return;
	}
	if (c->frames != NULL) {
		uint64_t cells = (uint64_t)c->frame_count * c->joint_count;

		printf("%-24s %10zu bytes a clip (%u joints x %u frames): %.2f bytes per joint per "
		       "frame, %.2f without the frames' blocks (%zu bytes)\n", label, bytes,
		       c->joint_count, c->frame_count,
		       cells > 0 ? (double)bytes / (double)cells : 0.0,
		       cells > 0 ? (double)(bytes - c->block_storage_bytes) / (double)cells : 0.0,
		       c->block_storage_bytes);
		return;
	}
	{
		uint64_t keys = memory_report_keys(c);

		printf("%-24s %10zu bytes a clip (%u joints, %llu keys): %.2f bytes per key, %.2f "
		       "stored (times and values), %.2f without the key index (%zu bytes)\n", label,
		       bytes, c->joint_count, (unsigned long long)keys,
		       keys > 0 ? (double)bytes / (double)keys : 0.0,
		       keys > 0 ? (double)c->key_storage_bytes / (double)keys : 0.0,
		       keys > 0 ? (double)(bytes - index) / (double)keys : 0.0, index);
	}
}
