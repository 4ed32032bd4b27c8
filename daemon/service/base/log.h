/*
 * log.h - the daemon's log: one line per event on stderr, in the format
 * chosen at log_init() (`--log-format`, `[log] format`):
 *
 *   journal   "<6>message": the systemd priority prefix ("<3>", "<4>",
 *             "<6>", "<7>") so that journald files every line under its
 *             level and adds its own timestamp.
 *   plain     "2026-12-07T21:02:03.123Z warning: message": the time in UTC
 *             (RFC 3339, to the millisecond) and the level word, for a
 *             terminal or a file.  At a terminal the level word is
 *             coloured (error red, warning yellow, debug dim) unless
 *             $NO_COLOR is set or $TERM is "dumb"; colour is never used
 *             when stderr is not a tty.
 *   auto      journal when stderr is the journal ($JOURNAL_STREAM names
 *             stderr's device and inode, as systemd sets it for a service
 *             whose output goes there), plain otherwise: priority prefixes
 *             appear only where journald reads them.
 *
 * Promises, for every call that passes the level filter:
 *   - exactly one line, written with one write(2) (a short write is
 *     finished, an EINTR retried; nothing else interleaves a line);
 *   - no line is longer than LOG_LINE_MAX bytes, prefix and newline
 *     included; a longer message is cut at a character boundary and ends
 *     with "…";
 *   - the message cannot forge lines or fields: newlines, other control
 *     bytes, C1 controls and bytes that are not UTF-8 are written as
 *     escapes ("\n", "\x1b", "\u009b", "\xff"), so a hostile file name in a
 *     message stays inside its own line;
 *   - no allocation: the line is built in a stack buffer;
 *   - errno is preserved.
 * Safe from any thread (the loop and the thread pool); not from a signal
 * handler (vsnprintf is not async-signal-safe; the daemon runs none: it
 * reads its signals from a signalfd on the loop).
 *
 * The current level and style are process-wide atomics, read with relaxed
 * ordering (a change reaching another thread a moment late is harmless).
 * They are INFO and journal until log_init() says otherwise.  The format
 * changes nothing but the prefix: the text of a line, and what log_recent()
 * keeps, are the same in every format.  Besides them
 * the module keeps, for `stats`, counts of the warnings and errors written
 * and the last LOG_RECENT_MAX of them (a small ring under a mutex, taken
 * only for those two levels).
 */
#ifndef ANIMD_LOG_H
#define ANIMD_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The numeric values are the syslog priorities journald understands. */
enum log_level {
	LOG_LEVEL_ERROR = 3,
	LOG_LEVEL_WARNING = 4,
	LOG_LEVEL_INFO = 6,
	LOG_LEVEL_DEBUG = 7,
};

/* Longest line written, in bytes, including the prefix ("<N>", or the time
 * and level word) and "\n". */
#define LOG_LINE_MAX 2048

#define LOG_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* What `--log-format` and `[log] format` choose (see above). */
enum log_format {
	LOG_FORMAT_AUTO,
	LOG_FORMAT_JOURNAL,
	LOG_FORMAT_PLAIN,
};

/* What a line looks like: a format resolved for one descriptor. */
enum log_style {
	LOG_STYLE_JOURNAL,              /* "<6>message" */
	LOG_STYLE_PLAIN,                /* "YYYY-MM-DDTHH:MM:SS.mmmZ info: message" */
	LOG_STYLE_PLAIN_COLOUR,         /* the same, the level word coloured */
};

/* Set the level at start-up, and the style log_style_for() gives format
 * on stderr.  Messages less severe than level are dropped. */
void log_init(enum log_level level, enum log_format format);

/* The style of format for a log written to fd: journal for
 * LOG_FORMAT_JOURNAL, and for LOG_FORMAT_AUTO when $JOURNAL_STREAM
 * ("DEV:INO") is fd's device and inode; otherwise plain, coloured when fd
 * is a tty, $NO_COLOR is not set (to anything) and $TERM is not "dumb".
 * Reads the environment and fstat()s fd, nothing else. */
enum log_style log_style_for(enum log_format format, int fd);

/* "auto", "journal" or "plain" to a format; -EINVAL for anything else
 * (case-sensitive, as in the config file). */
int log_format_parse(const char *name);

/* The config-file name of a format; "?" for a value that is not one. */
const char *log_format_name(enum log_format format);

/* Override the style (tests; a caller that knows better). */
void log_set_style(enum log_style style);
enum log_style log_get_style(void);

/* Change the level later (SIGHUP).  Takes effect for calls that start after
 * it returns, on every thread. */
void log_set_level(enum log_level level);
enum log_level log_get_level(void);

/* Whether a message at this level would be written; lets a caller skip
 * expensive formatting of debug output. */
bool log_enabled(enum log_level level);

/* "error", "warning", "info" or "debug" to a level; -EINVAL for anything
 * else (case-sensitive, as in the config file). */
int log_level_parse(const char *name);

/* The config-file name of a level; "?" for a value that is not a level. */
const char *log_level_name(enum log_level level);

/* Write one line at the given level (see the promises above). */
void log_write(enum log_level level, const char *fmt, ...) LOG_PRINTF(2, 3);
void log_writev(enum log_level level, const char *fmt, va_list ap) LOG_PRINTF(2, 0);

void log_error(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_warning(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_info(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_debug(const char *fmt, ...) LOG_PRINTF(1, 2);

/* The warnings and errors last written, for `stats` (animctl top). */
#define LOG_RECENT_MAX 8
#define LOG_RECENT_TEXT 256
struct log_recent {
	int64_t unix_ms;                /* CLOCK_REALTIME, milliseconds */
	enum log_level level;           /* LOG_LEVEL_ERROR or LOG_LEVEL_WARNING */
	char text[LOG_RECENT_TEXT];     /* the message as logged (escaped), cut to fit */
};

/* Copy the last warnings and errors, oldest first, into out (room for max);
 * returns how many were copied.  *errors and *warnings (may be NULL) get
 * how many of each were written since start. */
size_t log_recent(struct log_recent *out, size_t max, uint64_t *errors, uint64_t *warnings);

/*
 * Copy srclen bytes of src into dst as one printable line, with the escapes
 * described above.  Stops before the first escape or character that would
 * not fit, so the output never ends inside a character or an escape.
 * dst is always NUL-terminated when dstsize > 0.  Returns the number of
 * bytes written (without the NUL); *truncated (may be NULL) tells whether
 * part of src was left out.  Other modules use it to quote outside text
 * (config values, notify STATUS=).
 */
size_t log_escape(char *dst, size_t dstsize, const char *src, size_t srclen, bool *truncated);

/*
 * Copy srclen bytes of src into dst byte by byte: printable ASCII as it is,
 * every other byte, and the backslash, as "\xNN".  For names that are not
 * text (a file name that is not UTF-8 or holds control characters): every
 * byte shows, the result is ASCII, and it reads back as the same bytes in
 * a shell's $'...' quoting, so the name can be typed to rename the file.
 * Never cuts an escape; dst is NUL-terminated when dstsize > 0; returns the
 * bytes written, *truncated (may be NULL) whether part of src was left out.
 */
size_t log_escape_bytes(char *dst, size_t dstsize, const char *src, size_t srclen,
			bool *truncated);

/*
 * Length of the well-formed UTF-8 sequence at s (n > 0 bytes available),
 * 1 to 4, with its code point in *cp; 0 if the bytes there are not
 * well-formed UTF-8 (overlong forms, surrogates and values past U+10FFFF
 * are not).  The rule log_escape applies, for modules that judge text.
 */
size_t log_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

#endif
