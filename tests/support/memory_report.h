/*
 * memory_report.h - `make bench`'s lines on what loaded assets take in
 * memory: asset_memory by part against the file's size, and per clip its
 * bytes with what they come to per joint and frame (uniform clips) or per
 * key (keyed clips).  The figures are the engine's own exact counts
 * (clip_bytes, asset_memory: bytes asked of malloc, the allocator's
 * overhead not included).
 */
#ifndef ANIMD_TEST_MEMORY_REPORT_H
#define ANIMD_TEST_MEMORY_REPORT_H

#include <stdint.h>

#include "daemon/assets/asset.h"

/* The keys a clip owns (not those of tracks on a global sequence, which
 * its asset shares between clips): joints' and emitters' tracks. */
uint64_t memory_report_keys(const struct clip *c);

/* "label: N bytes in memory for F of file (x), skeleton ..., clips ..." */
void memory_report_asset(const char *label, const struct asset *a);

/* One line for clip c: its bytes, the key index's share, and per joint
 * per frame or per key. */
void memory_report_clip(const char *label, const struct clip *c);

#endif
