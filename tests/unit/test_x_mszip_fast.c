/*
 * test_x_mszip_fast - the MSZIP fast path (libdeflate behind a stored
 * block of history, x_mszip_chunk_fast) against zlib's compressor on
 * random bodies: every chunk taken by the fast path itself, none left to
 * the zlib fallback, and the bytes those chunks make exactly the body that
 * was compressed; then the whole inflate (x_mszip_inflate) on the same.
 * The bodies repeat earlier stretches from up to 32 KiB back, so matches
 * cross chunk boundaries, and the chunks range from 1 byte to 32 KiB.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/x/x_syntax.h"
#include "tests/support/x_bin_writer.h"

static uint32_t next_random(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* len bytes: runs of random bytes, of one byte value, and copies of what
 * came up to 32 KiB before. */
static void random_body(unsigned char *b, size_t len, uint32_t *seed)
{
	size_t i = 0;

	while (i < len) {
		size_t run = 1 + next_random(seed) % 300, kind = next_random(seed) % 3;

		if (run > len - i)
			run = len - i;
		if (kind == 2 && i > 0) {
			size_t back = 1 + next_random(seed) % (i < 32768 ? i : 32768);

			for (size_t k = 0; k < run; k++, i++)
				b[i] = b[i - back];
		} else {
			unsigned char v = (unsigned char)next_random(seed);

			for (size_t k = 0; k < run; k++, i++)
				b[i] = kind == 0 ? (unsigned char)next_random(seed) : v;
		}
	}
}

static unsigned le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static void test_fast_path_matches_the_body(void **state)
{
	static const size_t chunks[] = { 1, 7, 1000, 4096, 32767, 32768 };
	struct libdeflate_decompressor *dd = libdeflate_alloc_decompressor();
	unsigned char *scratch = malloc(X_MSZIP_SCRATCH);
	uint32_t seed = 2026;

	(void)state;
	assert_non_null(dd);
	assert_non_null(scratch);
	for (int round = 0; round < 60; round++) {
		size_t len = 1 + next_random(&seed) % 150000;
		size_t chunk = round % 2 ? chunks[round / 2 % 6] : 1 + next_random(&seed) % 32768;
		unsigned char *body = malloc(len), *z;
		char *out = malloc(len), *whole;
		size_t zlen, done = 0, off = 4, whole_len;
		struct diag d;

		assert_non_null(body);
		assert_non_null(out);
		random_body(body, len, &seed);
		xbw_mszip(body, len, chunk, &z, &zlen, NULL);
		while (done < len) {
			unsigned want = le16(z + off), comp = le16(z + off + 2);

			assert_true(want >= 1 && want <= 32768 && comp >= 2);
			assert_int_equal(x_mszip_chunk_fast(dd, scratch, z + off + 6, comp - 2, out, done,
							    want),
					 1);
			done += want;
			off += 4 + comp;
		}
		assert_int_equal(done, len);
		assert_int_equal(off, zlen);
		assert_memory_equal(out, body, len);

		memset(&d, 0, sizeof d);
		assert_int_equal(x_mszip_inflate((const char *)z, zlen, &whole, &whole_len, &d), 0);
		assert_int_equal(whole_len, len);
		assert_memory_equal(whole, body, len);
		free(whole);
		free(z);
		free(out);
		free(body);
	}
	free(scratch);
	libdeflate_free_decompressor(dd);
}

/* A chunk the fast path refuses leaves the history before it as it was,
 * for zlib to inflate it from: cut short, its stream's last bytes gone. */
static void test_refused_chunk_keeps_the_history(void **state)
{
	struct libdeflate_decompressor *dd = libdeflate_alloc_decompressor();
	unsigned char *scratch = malloc(X_MSZIP_SCRATCH), *body = malloc(40000), *z;
	char *out = malloc(40000);
	uint32_t seed = 7;
	size_t zlen, sizes[2];
	unsigned want0, comp0, want1, comp1;

	(void)state;
	assert_non_null(dd);
	assert_non_null(scratch);
	assert_non_null(body);
	assert_non_null(out);
	random_body(body, 40000, &seed);
	xbw_mszip(body, 40000, 32768, &z, &zlen, sizes);
	want0 = le16(z + 4);
	comp0 = le16(z + 6);
	assert_int_equal(x_mszip_chunk_fast(dd, scratch, z + 10, comp0 - 2, out, 0, want0), 1);
	want1 = le16(z + 8 + comp0);
	comp1 = le16(z + 10 + comp0);
	assert_true(comp1 > 8);
	assert_int_equal(x_mszip_chunk_fast(dd, scratch, z + 14 + comp0, comp1 - 2 - 4, out, want0,
					    want1),
			 0);
	assert_memory_equal(out, body, want0);
	/* The whole chunk still inflates from that history. */
	assert_int_equal(x_mszip_chunk_fast(dd, scratch, z + 14 + comp0, comp1 - 2, out, want0,
					    want1),
			 1);
	assert_memory_equal(out, body, 40000);
	free(z);
	free(out);
	free(body);
	free(scratch);
	libdeflate_free_decompressor(dd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_path_matches_the_body),
		cmocka_unit_test(test_refused_chunk_keeps_the_history),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
