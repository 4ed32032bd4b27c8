/*
 * log.c - one line per event on stderr, with a systemd priority prefix for
 * the journal, or the time and the level word for a terminal or a file
 * (log.h says which when).
 *
 * The whole line (prefix + escaped message + "\n") is built on the stack and
 * handed to one write(2): journald (a stream socket) and a pipe both keep a
 * single write together, so lines from the loop and from pool threads never
 * interleave.  See log.h for the promises.
 */
#include "daemon/service/base/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The one mutable global of the module (see log.h): the least severe level
 * still written. */
static atomic_int log_threshold = LOG_LEVEL_INFO;
static atomic_int log_style_now = LOG_STYLE_JOURNAL;

/* The last warnings and errors (log_recent): a ring, `next` counting every
 * one ever recorded.  Only those two levels take the mutex. */
static pthread_mutex_t log_recent_lock = PTHREAD_MUTEX_INITIALIZER;
static struct log_recent log_recent_ring[LOG_RECENT_MAX];
static uint64_t log_recent_next;
static uint64_t log_recent_errors, log_recent_warnings;

static const char log_ellipsis[] = "\xe2\x80\xa6"; /* U+2026 "…" */

void log_init(enum log_level level, enum log_format format)
{
	log_set_level(level);
	log_set_style(log_style_for(format, STDERR_FILENO));
}

/* systemd sets JOURNAL_STREAM=DEV:INO (decimal) for a service whose stderr
 * is connected to the journal; a child that inherited the variable but not
 * the descriptor sees another inode. */
static bool log_fd_is_journal(int fd)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	int used = 0;

	if (env == NULL || sscanf(env, "%llu:%llu%n", &dev, &ino, &used) != 2 ||
	    env[used] != '\0')
		return false;
	if (fstat(fd, &st) != 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

enum log_style log_style_for(enum log_format format, int fd)
{
	const char *term = getenv("TERM");

	if (format == LOG_FORMAT_JOURNAL || (format == LOG_FORMAT_AUTO && log_fd_is_journal(fd)))
		return LOG_STYLE_JOURNAL;
	if (!isatty(fd) || getenv("NO_COLOR") != NULL ||
	    (term != NULL && strcmp(term, "dumb") == 0))
		return LOG_STYLE_PLAIN;
	return LOG_STYLE_PLAIN_COLOUR;
}

static const char *const log_format_names[] = {
	[LOG_FORMAT_AUTO] = "auto",
	[LOG_FORMAT_JOURNAL] = "journal",
	[LOG_FORMAT_PLAIN] = "plain",
};

#define LOG_FORMAT_COUNT (sizeof log_format_names / sizeof log_format_names[0])

int log_format_parse(const char *name)
{
	if (name == NULL)
		return -EINVAL;
	for (size_t i = 0; i < LOG_FORMAT_COUNT; i++)
		if (strcmp(name, log_format_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

const char *log_format_name(enum log_format format)
{
	return (unsigned)format < LOG_FORMAT_COUNT ? log_format_names[format] : "?";
}

void log_set_style(enum log_style style)
{
	atomic_store_explicit(&log_style_now, (int)style, memory_order_relaxed);
}

enum log_style log_get_style(void)
{
	return (enum log_style)atomic_load_explicit(&log_style_now, memory_order_relaxed);
}

void log_set_level(enum log_level level)
{
	atomic_store_explicit(&log_threshold, (int)level, memory_order_relaxed);
}

enum log_level log_get_level(void)
{
	return (enum log_level)atomic_load_explicit(&log_threshold, memory_order_relaxed);
}

bool log_enabled(enum log_level level)
{
	return (int)level <= atomic_load_explicit(&log_threshold, memory_order_relaxed);
}

/* colour: the SGR sequence of the level word at a colour terminal. */
static const struct {
	enum log_level level;
	const char *name;
	const char *prefix;
	const char *colour;
} log_levels[] = {
	{ LOG_LEVEL_ERROR, "error", "<3>", "\x1b[1;31m" },
	{ LOG_LEVEL_WARNING, "warning", "<4>", "\x1b[33m" },
	{ LOG_LEVEL_INFO, "info", "<6>", "" },
	{ LOG_LEVEL_DEBUG, "debug", "<7>", "\x1b[2m" },
};

#define LOG_LEVEL_COUNT (sizeof log_levels / sizeof log_levels[0])

int log_level_parse(const char *name)
{
	if (name == NULL)
		return -EINVAL;
	for (size_t i = 0; i < LOG_LEVEL_COUNT; i++)
		if (strcmp(name, log_levels[i].name) == 0)
			return (int)log_levels[i].level;
	return -EINVAL;
}

const char *log_level_name(enum log_level level)
{
	for (size_t i = 0; i < LOG_LEVEL_COUNT; i++)
		if (log_levels[i].level == level)
			return log_levels[i].name;
	return "?";
}

/* A level that is not one of ours is a caller bug: file it as an error so
 * that it is seen rather than lost. */
static size_t log_level_index(enum log_level level)
{
	for (size_t i = 0; i < LOG_LEVEL_COUNT; i++)
		if (log_levels[i].level == level)
			return i;
	return 0;
}

/*
 * The line's prefix into out (at least LOG_PREFIX_MAX bytes): "<6>" for the
 * journal, else "2026-12-07T21:02:03.123Z info: ", the time in UTC (a log
 * file read in another zone, or next to another host's, needs no guess)
 * and the level word, with colour wrapped in its SGR sequence and a reset.
 * Returns its length.
 */
#define LOG_PREFIX_MAX 64
static size_t log_prefix(char *out, enum log_level level, enum log_style style)
{
	size_t i = log_level_index(level);
	struct timespec ts;
	struct tm tm;
	size_t n;
	int w;

	if (style == LOG_STYLE_JOURNAL) {
		n = strlen(log_levels[i].prefix);
		memcpy(out, log_levels[i].prefix, n);
		return n;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	if (gmtime_r(&ts.tv_sec, &tm) == NULL)
		memset(&tm, 0, sizeof tm);
	n = strftime(out, LOG_PREFIX_MAX, "%Y-%m-%dT%H:%M:%S", &tm);
	if (style == LOG_STYLE_PLAIN_COLOUR && log_levels[i].colour[0] != '\0')
		w = snprintf(out + n, LOG_PREFIX_MAX - n, ".%03ldZ %s%s\x1b[0m: ",
			     ts.tv_nsec / 1000000, log_levels[i].colour, log_levels[i].name);
	else
		w = snprintf(out + n, LOG_PREFIX_MAX - n, ".%03ldZ %s: ", ts.tv_nsec / 1000000,
			     log_levels[i].name);
	if (w > 0)
		n += (size_t)w < LOG_PREFIX_MAX - n ? (size_t)w : LOG_PREFIX_MAX - n - 1;
	return n;
}

/* Each byte that log_utf8_decode refuses gets escaped on its own. */
size_t log_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
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

/* Writes "\x" or "\u00" style escapes without snprintf: two or four hex
 * digits of v after the given two-character lead. */
static size_t log_hex_escape(char *out, char kind, uint32_t v, int digits)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	out[n++] = '\\';
	out[n++] = kind;
	for (int d = digits - 1; d >= 0; d--)
		out[n++] = hex[(v >> (4 * d)) & 0xf];
	return n;
}

size_t log_escape(char *dst, size_t dstsize, const char *src, size_t srclen, bool *truncated)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t out = 0, i = 0;
	bool cut = false;

	if (dstsize == 0) {
		if (truncated != NULL)
			*truncated = srclen > 0;
		return 0;
	}
	while (i < srclen) {
		char esc[8];
		const char *piece = esc;
		size_t plen, adv;
		uint32_t cp = 0;
		size_t len = log_utf8_decode(s + i, srclen - i, &cp);

		if (len == 0) {
			plen = log_hex_escape(esc, 'x', s[i], 2);
			adv = 1;
		} else if (cp == '\n' || cp == '\r' || cp == '\t') {
			esc[0] = '\\';
			esc[1] = cp == '\n' ? 'n' : cp == '\r' ? 'r' : 't';
			plen = 2;
			adv = 1;
		} else if (cp < 0x20 || cp == 0x7f) {
			plen = log_hex_escape(esc, 'x', cp, 2);
			adv = 1;
		} else if (cp >= 0x80 && cp < 0xa0) {
			/* C1 controls (CSI and friends) are valid UTF-8 but
			 * still steer terminals. */
			plen = log_hex_escape(esc, 'u', cp, 4);
			adv = len;
		} else {
			piece = src + i;
			plen = len;
			adv = len;
		}
		if (plen >= dstsize - out) {
			cut = true;
			break;
		}
		memcpy(dst + out, piece, plen);
		out += plen;
		i += adv;
	}
	dst[out] = '\0';
	if (truncated != NULL)
		*truncated = cut;
	return out;
}

size_t log_escape_bytes(char *dst, size_t dstsize, const char *src, size_t srclen,
			bool *truncated)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t out = 0, i;

	if (dstsize == 0) {
		if (truncated != NULL)
			*truncated = srclen > 0;
		return 0;
	}
	for (i = 0; i < srclen; i++) {
		char esc[4];
		bool plain = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\';
		size_t plen = plain ? 1 : log_hex_escape(esc, 'x', s[i], 2);

		if (plen >= dstsize - out)
			break;
		if (plain)
			dst[out] = (char)s[i];
		else
			memcpy(dst + out, esc, plen);
		out += plen;
	}
	dst[out] = '\0';
	if (truncated != NULL)
		*truncated = i < srclen;
	return out;
}

/* vsnprintf cuts at a byte; drop a trailing incomplete UTF-8 sequence so the
 * cut does not show up as "\xe2\x80" escapes before the ellipsis. */
static size_t log_trim_partial_utf8(const char *s, size_t n)
{
	size_t i = n, cont = 0;
	unsigned char lead;
	size_t want;

	while (i > 0 && cont < 3 && ((unsigned char)s[i - 1] & 0xc0) == 0x80) {
		i--;
		cont++;
	}
	if (i == 0)
		return n;
	lead = (unsigned char)s[i - 1];
	if (lead < 0xc0)
		return n;
	want = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
	return want > cont + 1 ? i - 1 : n;
}

static void log_write_all(const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(STDERR_FILENO, buf, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return; /* nowhere left to report it */
		}
		buf += w;
		len -= (size_t)w;
	}
}

static void log_remember(enum log_level level, const char *msg, size_t mlen)
{
	struct log_recent *r;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	pthread_mutex_lock(&log_recent_lock);
	r = &log_recent_ring[log_recent_next++ % LOG_RECENT_MAX];
	r->unix_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	r->level = level;
	log_escape(r->text, sizeof r->text, msg, mlen, NULL);
	if (level == LOG_LEVEL_WARNING)
		log_recent_warnings++;
	else
		log_recent_errors++;
	pthread_mutex_unlock(&log_recent_lock);
}

size_t log_recent(struct log_recent *out, size_t max, uint64_t *errors, uint64_t *warnings)
{
	size_t n = 0;
	uint64_t first;

	pthread_mutex_lock(&log_recent_lock);
	first = log_recent_next > LOG_RECENT_MAX ? log_recent_next - LOG_RECENT_MAX : 0;
	if (log_recent_next - first > max)
		first = log_recent_next - max;
	for (uint64_t i = first; i < log_recent_next; i++)
		out[n++] = log_recent_ring[i % LOG_RECENT_MAX];
	if (errors != NULL)
		*errors = log_recent_errors;
	if (warnings != NULL)
		*warnings = log_recent_warnings;
	pthread_mutex_unlock(&log_recent_lock);
	return n;
}

void log_writev(enum log_level level, const char *fmt, va_list ap)
{
	char msg[LOG_LINE_MAX];
	char line[LOG_LINE_MAX];
	size_t plen, mlen, text, room;
	bool cut = false, cut_escape = false;
	int saved_errno, n;

	if (!log_enabled(level))
		return;
	saved_errno = errno;

	n = vsnprintf(msg, sizeof msg, fmt, ap);
	if (n < 0) {
		static const char bad[] = "(log message could not be formatted)";

		memcpy(msg, bad, sizeof bad);
		mlen = sizeof bad - 1;
	} else if ((size_t)n >= sizeof msg) {
		cut = true;
		mlen = log_trim_partial_utf8(msg, sizeof msg - 1);
	} else {
		mlen = (size_t)n;
	}

	plen = log_prefix(line, level, log_get_style());
	if (plen >= LOG_PREFIX_MAX)
		plen = LOG_PREFIX_MAX - 1;      /* cannot happen; tells the compiler */
	/* The text may fill the line up to the newline; only when it does not
	 * fit is it escaped again, shorter, to make room for the ellipsis.  The
	 * NUL log_escape writes lands where the newline goes. */
	room = sizeof line - plen - 1;
	text = log_escape(line + plen, room + 1, msg, mlen, &cut_escape);
	if (cut || cut_escape) {
		room -= sizeof log_ellipsis - 1;
		text = log_escape(line + plen, room + 1, msg, mlen, NULL);
		memcpy(line + plen + text, log_ellipsis, sizeof log_ellipsis - 1);
		text += sizeof log_ellipsis - 1;
	}
	line[plen + text] = '\n';
	log_write_all(line, plen + text + 1);
	/* A level that is not ours was written as an error (log_prefix). */
	if (level != LOG_LEVEL_INFO && level != LOG_LEVEL_DEBUG)
		log_remember(level == LOG_LEVEL_WARNING ? LOG_LEVEL_WARNING : LOG_LEVEL_ERROR, msg,
			     mlen);

	errno = saved_errno;
}

void log_write(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_writev(level, fmt, ap);
	va_end(ap);
}

#define LOG_DEFINE(fn, level)                          \
	void fn(const char *fmt, ...)                  \
	{                                              \
		va_list ap;                            \
		va_start(ap, fmt);                     \
		log_writev(level, fmt, ap);            \
		va_end(ap);                            \
	}

LOG_DEFINE(log_error, LOG_LEVEL_ERROR)
LOG_DEFINE(log_warning, LOG_LEVEL_WARNING)
LOG_DEFINE(log_info, LOG_LEVEL_INFO)
LOG_DEFINE(log_debug, LOG_LEVEL_DEBUG)
