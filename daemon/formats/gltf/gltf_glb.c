/*
 * gltf_glb.c - the GLB container (spec 4.4): a 12-byte header (magic
 * "glTF", version 2, the total length), then chunks of {uint32 length,
 * uint32 type, data}: JSON first, an optional BIN second, chunks of other
 * types skipped.  Every length inside the file; the declared total no
 * more than the file (fewer: the bytes after it are noted and ignored).
 */
#include "daemon/formats/gltf/gltf_glb.h"

#include <errno.h>
#include <inttypes.h>

#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u

int gltf_glb_split(const unsigned char *b, size_t len, struct gltf_glb *out, struct diag *d,
		   struct diag_notes *notes)
{
	uint64_t total, at = 12;
	uint32_t version;

	*out = (struct gltf_glb){ 0 };
	if (len < 12) {
		diag_at_offset(d, len, "the GLB header is 12 bytes; the file ends after %zu", len);
		return -EINVAL;
	}
	version = bin_le32(b + 4);
	total = bin_le32(b + 8);
	if (version != 2) {
		diag_at_offset(d, 4, "GLB version %" PRIu32 " (animd reads version 2)", version);
		return -EINVAL;
	}
	if (total > len) {
		diag_at_offset(d, 8, "the GLB says it is %" PRIu64 " bytes; the file has %zu", total,
			       len);
		return -EINVAL;
	}
	if (total < len)
		diag_note_offset(notes, total, "%zu bytes after the GLB's declared length %" PRIu64
				 ": ignored", len - (size_t)total, total);
	for (uint32_t k = 0; at < total; k++) {
		uint64_t clen, ctype;

		if (total - at < 8) {
			diag_at_offset(d, at, "chunk %" PRIu32 "'s header is 8 bytes; %" PRIu64 " are "
				       "left", k, total - at);
			return -EINVAL;
		}
		clen = bin_le32(b + at);
		ctype = bin_le32(b + at + 4);
		if (clen > total - at - 8) {
			diag_at_offset(d, at, "chunk %" PRIu32 " says it holds %" PRIu64 " bytes; %"
				       PRIu64 " are left", k, clen, total - at - 8);
			return -EINVAL;
		}
		if (k == 0 && ctype != GLB_JSON) {
			diag_at_offset(d, at + 4, "the first chunk must be JSON (type 0x%08" PRIx64 ")",
				       ctype);
			return -EINVAL;
		}
		if (clen % 4 != 0)
			diag_note_offset(notes, at, "chunk %" PRIu32 "'s length %" PRIu64 " is not a "
					 "multiple of 4", k, clen);
		if (k == 0) {
			out->json = b + at + 8;
			out->json_len = (size_t)clen;
			out->json_offset = at + 8;
		} else if (k == 1 && ctype == GLB_BIN) {
			out->bin = b + at + 8;
			out->bin_len = (size_t)clen;
			out->bin_offset = at + 8;
			out->has_bin = true;
		} else if (ctype == GLB_BIN || ctype == GLB_JSON) {
			diag_note_offset(notes, at, "a second %s chunk (chunk %" PRIu32 "): ignored",
					 ctype == GLB_BIN ? "BIN" : "JSON", k);
		}
		at += 8 + clen;
	}
	if (out->json == NULL) {
		diag_at_offset(d, 12, "the GLB has no JSON chunk");
		return -EINVAL;
	}
	return 0;
}
