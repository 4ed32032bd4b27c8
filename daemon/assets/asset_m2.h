/*
 * asset_m2.h - an M2 asset: the model, its companions found by name
 * beside it, the import.  Internal to daemon/assets.
 */
#ifndef ANIMD_ASSET_M2_H
#define ANIMD_ASSET_M2_H

#include <stddef.h>

#include "daemon/assets/asset.h"

/* Parse buf (the .m2), read and attach its companions through
 * opts->read_companion, convert.  0 (companions missing or broken are
 * listed in a->companions and a->note: the rest loads), or a negative
 * errno with err set when the model itself is rejected. */
int asset_m2_load(struct asset *a, const void *buf, size_t len, const struct asset_options *opts,
		  char *err, size_t errlen);

#endif
