/*
 * x_mszip.c - the MSZIP body of a compressed .x file ("tzip"/"bzip"):
 *
 *	DWORD total             decompressed size, the 16-byte header included
 *	chunk...                WORD uncompressed (<= 32768)
 *	                        WORD compressed (the "CK" below included)
 *	                        'C' 'K'
 *	                        raw DEFLATE, ending with its final block
 *
 * Each chunk is a complete DEFLATE stream, but its back-references may
 * reach into the 32 KiB of output before it.  libdeflate inflates twice as
 * fast as zlib here, but takes no dictionary: so each chunk is given to it
 * behind a stored block that holds that history, which it copies over the
 * identical bytes already in the output and then refers back into (see
 * x_mszip_chunk_fast).  Whatever libdeflate does not inflate to exactly the
 * declared size is inflated again by zlib, reset and given the history as
 * its dictionary: its result stands, and its diagnosis is the one reported.
 *
 * Strictness: the chunks must produce exactly total - 16 bytes and end
 * exactly where the file does.  Every real file we have (the DirectX SDK's,
 * assimp's) ends right after the chunk that completes the total, and each
 * chunk's stream ends exactly at its declared compressed size, so trailing
 * bytes or a stream that stops short mean a damaged or cut file: we say so
 * rather than guess.  Offsets in messages count from the start of the file.
 */
#include "daemon/formats/x/x_syntax.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#define ZLIB_CONST             /* next_in points at our const input */
#include <zlib.h>

#include "daemon/formats/bin_reader.h"
#include "daemon/formats/x/x.h"

#define X_MSZIP_CHUNK_MAX 32768u        /* uncompressed bytes in one chunk */
#define X_MSZIP_HISTORY 32768u          /* DEFLATE's window */
/* A stored block's header: BFINAL 0 and BTYPE 00 padded to a byte, then
 * LEN and its complement, little-endian. */
#define X_MSZIP_STORED_HEADER 5u
/* The scratch input of x_mszip_chunk_fast: a stored block of history, then
 * a chunk's DEFLATE bytes (its WORD size, less the "CK"). */
_Static_assert(X_MSZIP_SCRATCH == X_MSZIP_STORED_HEADER + X_MSZIP_HISTORY + 65535u,
	       "x_syntax.h's scratch size");
/* DEFLATE's best case is a 258-byte match coded in 2 bits (1032 bytes per
 * input byte); no stream can inflate to more. */
#define X_MSZIP_MAX_RATIO 1032u

/* The declared total: plausible before anything is allocated for it.
 * br reads the body, its offsets reported as file offsets. */
static int x_mszip_total(const struct bin_reader *br, size_t *size)
{
	size_t len = br->len;
	uint32_t total;

	if (!bin_fits(br, 0, 4))
		return bin_error(br, 0, "the compressed body is %zu bytes, too short for its "
				 "4-byte decompressed size", len);
	total = bin_le32(br->data);
	if (total < X_HEADER_BYTES)
		return bin_error(br, 0, "declares a decompressed size of %u bytes, less than "
				 "the 16-byte header it includes", total);
	if (total > X_MAX_BYTES)
		return bin_error(br, 0, "declares a decompressed size of %u bytes, more than "
				 "the %u-byte limit", total, X_MAX_BYTES);
	/* So that 30 bytes cannot ask us for 1 GiB. */
	if ((uint64_t)total - X_HEADER_BYTES > (uint64_t)(len - 4) * X_MSZIP_MAX_RATIO)
		return bin_error(br, 0, "declares %u decompressed bytes, more than %zu "
				 "compressed bytes can hold (DEFLATE expands at most %u:1)",
				 total - X_HEADER_BYTES, len - 4, X_MSZIP_MAX_RATIO);
	*size = total - X_HEADER_BYTES;
	return 0;
}

/*
 * The header of chunk `n` at body offset `off`, `left` bytes of the
 * declared total still to come: both sizes checked against what remains
 * and the "CK" signature present.
 */
static int x_mszip_header(const struct bin_reader *br, size_t off, uint32_t n, size_t left,
			  uint32_t *want, uint32_t *comp)
{
	const unsigned char *p = br->data;

	if (!bin_fits(br, off, 4))
		return bin_error(br, off, "the file ends at chunk %u with %zu declared "
				 "decompressed bytes still missing", n, left);
	*want = bin_le16(p + off);
	*comp = bin_le16(p + off + 2);
	if (*want == 0 || *want > X_MSZIP_CHUNK_MAX)
		return bin_error(br, off, "chunk %u declares %u uncompressed bytes, not 1 to %u",
				 n, *want, X_MSZIP_CHUNK_MAX);
	if (*want > left)
		return bin_error(br, off, "chunk %u declares %u uncompressed bytes, more than "
				 "the %zu left of the declared total", n, *want, left);
	if (*comp < 2)
		return bin_error(br, off + 2, "chunk %u declares %u compressed bytes, fewer "
				 "than its 2-byte \"CK\"", n, *comp);
	if (!bin_fits(br, off + 4, *comp))
		return bin_error(br, off + 2, "chunk %u declares %u compressed bytes but the "
				 "file has %zu left", n, *comp, br->len - off - 4);
	if (p[off + 4] != 'C' || p[off + 5] != 'K')
		return bin_error(br, off + 4, "chunk %u does not start with \"CK\" (found "
				 "0x%02x 0x%02x)", n, p[off + 4], p[off + 5]);
	return 0;
}

/*
 * The fast path of a chunk (x_syntax.h); on 0 x_mszip_chunk inflates it
 * with zlib and says what is wrong.  Its input is `scratch`: a stored
 * block of the `hist` bytes before out + done, then the chunk, inflated at
 * out + done - hist, so that the stored block rewrites the history in
 * place (libdeflate writes its output in order, so a failure leaves the
 * history as it was) and the chunk's references reach it.
 */
int x_mszip_chunk_fast(struct libdeflate_decompressor *dd, unsigned char *scratch,
		       const unsigned char *in, uint32_t in_len, char *out, size_t done,
		       uint32_t want)
{
	size_t hist = done < X_MSZIP_HISTORY ? done : X_MSZIP_HISTORY;
	size_t len = in_len, used = 0, made = 0;
	const unsigned char *src = in;

	if (hist > 0) {
		scratch[0] = 0;
		scratch[1] = (unsigned char)(hist & 0xff);
		scratch[2] = (unsigned char)(hist >> 8);
		scratch[3] = (unsigned char)(~hist & 0xff);
		scratch[4] = (unsigned char)((~hist >> 8) & 0xff);
		memcpy(scratch + X_MSZIP_STORED_HEADER, out + done - hist, hist);
		memcpy(scratch + X_MSZIP_STORED_HEADER + hist, in, in_len);
		src = scratch;
		len = X_MSZIP_STORED_HEADER + hist + in_len;
	}
	return libdeflate_deflate_decompress_ex(dd, src, len, out + done - hist, hist + want, &used,
						&made) == LIBDEFLATE_SUCCESS &&
	       made == hist + want && used == len;
}

/*
 * Inflate chunk `n` (its DEFLATE bytes `in`, `in_len` of them) to exactly
 * `want` bytes at out + done, the `done` bytes before it being its history,
 * with zlib.  `at` is the offset of the chunk's header in the body.
 */
static int x_mszip_chunk(z_stream *zs, const struct bin_reader *br, const unsigned char *in,
			 uint32_t in_len, char *out, size_t done, uint32_t want, uint32_t n,
			 size_t at)
{
	size_t hist = done < X_MSZIP_HISTORY ? done : X_MSZIP_HISTORY;
	int zrc;

	if (inflateReset(zs) != Z_OK)
		return -ENOMEM;
	if (hist > 0 && inflateSetDictionary(zs, (const Bytef *)out + done - hist,
					     (uInt)hist) != Z_OK)
		return -ENOMEM;
	zs->next_in = in;
	zs->avail_in = in_len;
	zs->next_out = (Bytef *)out + done;
	zs->avail_out = want;
	zrc = inflate(zs, Z_FINISH);
	if (zrc == Z_MEM_ERROR)
		return -ENOMEM;
	if (zrc == Z_DATA_ERROR)
		return bin_error(br, at + 6, "chunk %u: corrupt DEFLATE data (%s)", n,
				 zs->msg ? zs->msg : "zlib gives no reason");
	if (zrc == Z_STREAM_END && zs->avail_out > 0)
		return bin_error(br, at, "chunk %u inflates to %u bytes but declares %u "
				 "uncompressed bytes", n, want - zs->avail_out, want);
	if (zrc == Z_STREAM_END && zs->avail_in > 0)
		return bin_error(br, at, "chunk %u: its DEFLATE stream ends %u bytes before "
				 "the %u compressed bytes it declares", n, zs->avail_in,
				 in_len + 2);
	if (zrc != Z_STREAM_END && zs->avail_out == 0)
		return bin_error(br, at, "chunk %u inflates to more than the %u uncompressed "
				 "bytes it declares", n, want);
	if (zrc != Z_STREAM_END)        /* out of input with room left */
		return bin_error(br, at, "chunk %u: its DEFLATE stream is cut short, %u of the "
				 "%u declared bytes inflated", n, want - zs->avail_out, want);
	return 0;
}

int x_mszip_size(const char *data, size_t len, size_t *size, struct diag *d)
{
	struct bin_reader br;

	/* Offsets in messages count from the start of the file. */
	bin_init(&br, data, len, d);
	br.base = X_HEADER_BYTES;
	return x_mszip_total(&br, size);
}

int x_mszip_inflate_into(const char *data, size_t len, char *buf, size_t size, struct diag *d)
{
	struct bin_reader br;
	size_t done = 0, off = 4;
	uint32_t n = 0;
	struct libdeflate_decompressor *dd = libdeflate_alloc_decompressor();
	unsigned char *scratch = malloc(X_MSZIP_SCRATCH);
	z_stream zs;
	int rc = 0;

	bin_init(&br, data, len, d);
	br.base = X_HEADER_BYTES;
	memset(&zs, 0, sizeof zs);
	if (dd == NULL || scratch == NULL || inflateInit2(&zs, -15) != Z_OK) {
		libdeflate_free_decompressor(dd);
		free(scratch);
		return -ENOMEM;
	}
	while (done < size) {
		uint32_t want = 0, comp = 0;

		rc = x_mszip_header(&br, off, n, size - done, &want, &comp);
		if (rc == 0 && !x_mszip_chunk_fast(dd, scratch, br.data + off + 6, comp - 2, buf,
						   done, want))
			rc = x_mszip_chunk(&zs, &br, br.data + off + 6, comp - 2, buf, done, want, n,
					   off);
		if (rc < 0)
			goto out;
		done += want;
		off += 4 + (size_t)comp;
		n++;
	}
	if (off < len)
		rc = bin_error(&br, off, "%zu bytes follow the compressed data (the declared "
				   "%zu bytes are complete before them)", len - off,
				   size + X_HEADER_BYTES);
out:
	inflateEnd(&zs);
	libdeflate_free_decompressor(dd);
	free(scratch);
	return rc;
}

int x_mszip_inflate(const char *data, size_t len, char **out, size_t *out_len, struct diag *d)
{
	size_t size = 0;
	char *buf;
	int rc;

	*out = NULL;
	*out_len = 0;
	rc = x_mszip_size(data, len, &size, d);
	if (rc < 0)
		return rc;
	buf = malloc(size > 0 ? size : 1);
	if (buf == NULL)
		return -ENOMEM;
	rc = x_mszip_inflate_into(data, len, buf, size, d);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*out = buf;
	*out_len = size;
	return 0;
}
