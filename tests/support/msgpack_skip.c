#include "tests/support/msgpack_skip.h"

static uint64_t skip_be(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

static size_t skip_object(const uint8_t *p, size_t n, unsigned depth)
{
	uint8_t c;
	uint64_t count = 0, len = 0;
	size_t head = 1, at;

	if (n == 0 || depth > 32)
		return 0;
	c = p[0];
	if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3)
		return 1;
	if ((c & 0xe0) == 0xa0) {
		len = c & 0x1f;
	} else if ((c & 0xf0) == 0x90 || (c & 0xf0) == 0x80) {
		count = (uint64_t)(c & 0x0f) * ((c & 0xf0) == 0x80 ? 2 : 1);
	} else {
		static const uint8_t fixed[] = {
			[0xca] = 4, [0xcb] = 8, [0xcc] = 1, [0xcd] = 2, [0xce] = 4, [0xcf] = 8,
			[0xd0] = 1, [0xd1] = 2, [0xd2] = 4, [0xd3] = 8,
			[0xd4] = 2, [0xd5] = 3, [0xd6] = 5, [0xd7] = 9, [0xd8] = 17,
		};
		unsigned lenbytes = 0;

		if (c < sizeof fixed && fixed[c] != 0)
			return (size_t)fixed[c] + 1 <= n ? (size_t)fixed[c] + 1 : 0;
		switch (c) {
		case 0xc4: case 0xd9: lenbytes = 1; break;
		case 0xc5: case 0xda: lenbytes = 2; break;
		case 0xc6: case 0xdb: lenbytes = 4; break;
		case 0xc7: lenbytes = 1; break;
		case 0xc8: lenbytes = 2; break;
		case 0xc9: lenbytes = 4; break;
		case 0xdc: case 0xde: lenbytes = 2; break;
		case 0xdd: case 0xdf: lenbytes = 4; break;
		default: return 0;      /* 0xc1: never used */
		}
		if (n < 1 + (size_t)lenbytes)
			return 0;
		head = 1 + lenbytes;
		if (c >= 0xdc) {
			count = skip_be(p + 1, lenbytes) * (c >= 0xde ? 2 : 1);
		} else {
			len = skip_be(p + 1, lenbytes);
			if (c >= 0xc7 && c <= 0xc9)
				len += 1;       /* ext: the type byte */
		}
	}
	if (count == 0)
		return head + len <= n ? (size_t)(head + len) : 0;
	at = head;
	for (uint64_t i = 0; i < count; i++) {
		size_t k = skip_object(p + at, n - at, depth + 1);

		if (k == 0)
			return 0;
		at += k;
	}
	return at;
}

size_t msgpack_skip(const uint8_t *p, size_t n)
{
	return skip_object(p, n, 0);
}
