/*
 * asset_internal.h - what the loaders of daemon/assets share (asset.c and
 * asset_m2.c).  Internal to daemon/assets; asset.h is the public API.
 */
#ifndef ANIMD_ASSET_INTERNAL_H
#define ANIMD_ASSET_INTERNAL_H

#include "daemon/assets/asset.h"
#include "daemon/formats/diag.h"

/* Most located notes an asset keeps (each parse keeps at most
 * DIAG_NOTES_MAX kinds; a model with many companions could add up). */
#define ASSET_NOTES_MAX 64

/* Each note of `notes` as a located line of file `name` ("name:3:7: note:
 * ..." or "name: offset 0x..: note: ..."), appended to a->notes, and one
 * line for the kinds dropped, if any.  0 or -ENOMEM. */
int asset_add_notes(struct asset *a, const char *name, const struct diag_notes *notes);

#endif
