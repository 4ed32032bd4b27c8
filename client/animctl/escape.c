/*
 * escape.c - text from the daemon made safe to print.
 *
 * Asset names, clip and joint names and the daemon's messages come from
 * files and from the wire: a name may hold a newline, an escape sequence
 * for the terminal or bytes that are not UTF-8.  animctl prints them with
 * the daemon's log rule (daemon/service/base/log.c, log_escape), so that a
 * name looks the same in `animctl list` as in the journal:
 *   - "\n", "\r", "\t" for those three;
 *   - "\xNN" for any other C0 control byte, for DEL and for each byte that
 *     is not part of well-formed UTF-8 (overlong forms, surrogates and code
 *     points past U+10FFFF are not well-formed);
 *   - "\u00NN" for the C1 controls U+0080..U+009F, which are valid UTF-8
 *     but still steer terminals;
 *   - everything else as it is.
 * A quoted value (escape_quoted) adds "\"" and "\\", so that the quotes
 * around it are the only bare ones: `reason="..."` can always be read back.
 *
 * The log's code is the daemon's and animctl must not link it; this is the
 * same rule written again, and tests/integration/test_client_cli.c checks
 * both against one file name.
 */
#include "client/animctl/animctl.h"

#include <stdlib.h>
#include <string.h>

/* Results stay valid for this many later calls (see animctl.h). */
#define ESCAPE_SLOTS 8

static char *escape_slot[ESCAPE_SLOTS];
static unsigned escape_next;

size_t escape_utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t v, min;
	size_t len;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		v = s[0] & 0x1fu;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		v = s[0] & 0x0fu;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		v = s[0] & 0x07u;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3fu);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* Escape s into a fresh slot; quoted adds the quotes and escapes " and \.
 * NULL when s is NULL, or when out of memory ("?" then, so that callers can
 * print the result without a check). */
static const char *escape_into_slot(const char *s, bool quoted)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t n, o = 0;
	char *out;

	if (s == NULL)
		return NULL;
	n = strlen(s);
	/* At most 6 bytes out for one in ("\u009b" for two), plus quotes. */
	out = malloc(n * 6 + 3);
	if (out == NULL)
		return "?";
	if (quoted)
		out[o++] = '"';
	for (size_t i = 0; i < n;) {
		uint32_t cp = 0;
		size_t len = escape_utf8(u + i, n - i, &cp);

		if (len == 0 || (len == 1 && (cp < 0x20 || cp == 0x7f))) {
			unsigned char b = u[i];

			out[o++] = '\\';
			if (b == '\n' || b == '\r' || b == '\t') {
				out[o++] = b == '\n' ? 'n' : b == '\r' ? 'r' : 't';
			} else {
				out[o++] = 'x';
				out[o++] = hex[b >> 4];
				out[o++] = hex[b & 0xf];
			}
			i++;
		} else if (cp >= 0x80 && cp < 0xa0) {
			memcpy(out + o, "\\u00", 4);
			o += 4;
			out[o++] = hex[cp >> 4];
			out[o++] = hex[cp & 0xf];
			i += len;
		} else if (quoted && (cp == '"' || cp == '\\')) {
			out[o++] = '\\';
			out[o++] = (char)cp;
			i++;
		} else {
			memcpy(out + o, s + i, len);
			o += len;
			i += len;
		}
	}
	if (quoted)
		out[o++] = '"';
	out[o] = '\0';
	free(escape_slot[escape_next]);
	escape_slot[escape_next] = out;
	escape_next = (escape_next + 1) % ESCAPE_SLOTS;
	return out;
}

const char *escape_text(const char *s)
{
	return escape_into_slot(s, false);
}

const char *escape_quoted(const char *s)
{
	return escape_into_slot(s, true);
}

const char *escape_value(const char *s)
{
	const char *e = escape_text(s);

	if (e == NULL || (e[0] != '\0' && strcmp(e, s) == 0 && strpbrk(s, " \"\\=") == NULL))
		return e;
	return escape_quoted(s);
}
