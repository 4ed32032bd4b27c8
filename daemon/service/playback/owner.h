/*
 * owner.h - what one client owns in playback: instances and streams.
 *
 * The layer above (a control connection) embeds one and hands its address
 * to instances_create and stream_open; playback keeps the counts, and uses
 * the address only to tell owners apart.  So playback never needs to know
 * what a connection is.
 */
#ifndef ANIMD_OWNER_H
#define ANIMD_OWNER_H

#include <stdbool.h>
#include <stdint.h>

struct playback_owner {
	uint32_t instances;             /* playing now */
	uint32_t streams;               /* open now */
	/* It listens to clip.event: its instances report crossings (cues.h);
	 * set through instances_owner_changed. */
	bool clip_events;
};

#endif
