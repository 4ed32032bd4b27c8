#include "tests/support/resp_skip.h"

#include <string.h>

/* Redis refuses bulk strings above 512 MB; anything larger is garbage. */
#define RESP_MAX_LEN (512LL * 1024 * 1024)

/*
 * The header line at p: its length including CRLF, or 0 when the CRLF has
 * not arrived yet.  A CR not followed by LF is malformed: -1.
 */
static long long resp_line(const uint8_t *p, size_t n)
{
	const uint8_t *cr = memchr(p, '\r', n);

	if (cr == NULL || (size_t)(cr - p) + 1 >= n)
		return 0;
	return cr[1] == '\n' ? (long long)(cr - p) + 2 : -1;
}

/* The signed decimal between the type byte and the CR; -2 when it is not
 * one (every length RESP allows is >= -1). */
static long long resp_number(const uint8_t *p, size_t line)
{
	long long v = 0;
	size_t i = 1;
	int neg = 0;

	if (i < line - 2 && p[i] == '-') {
		neg = 1;
		i++;
	}
	if (i == line - 2)
		return -2;
	for (; i < line - 2; i++) {
		if (p[i] < '0' || p[i] > '9' || v > RESP_MAX_LEN)
			return -2;
		v = v * 10 + (p[i] - '0');
	}
	return neg ? -v : v;
}

static size_t resp_object(const uint8_t *p, size_t n, unsigned depth)
{
	long long line, len, count;
	size_t at;

	if (n == 0 || depth > 32)
		return 0;
	line = resp_line(p, n);
	if (line <= 0)
		return 0;
	switch (p[0]) {
	case '+': case '-': case ':':                   /* RESP2 lines */
	case '_': case ',': case '#': case '(':         /* RESP3 lines */
		return (size_t)line;
	case '$': case '!': case '=':                   /* length-prefixed blobs */
		len = resp_number(p, (size_t)line);
		if (len == -1 && p[0] == '$')
			return (size_t)line;            /* RESP2 null bulk string */
		if (len < 0 || (size_t)line + (size_t)len + 2 > n)
			return 0;
		at = (size_t)line + (size_t)len;
		return p[at] == '\r' && p[at + 1] == '\n' ? at + 2 : 0;
	case '*': case '~': case '>': case '%':         /* aggregates */
		count = resp_number(p, (size_t)line);
		if (count == -1 && p[0] == '*')
			return (size_t)line;            /* RESP2 null array */
		if (count < 0)
			return 0;
		if (p[0] == '%')
			count *= 2;                     /* a map counts pairs */
		at = (size_t)line;
		for (long long i = 0; i < count; i++) {
			size_t k = resp_object(p + at, n - at, depth + 1);

			if (k == 0)
				return 0;
			at += k;
		}
		return at;
	default:
		return 0;
	}
}

size_t resp_skip(const uint8_t *p, size_t n)
{
	return resp_object(p, n, 0);
}
