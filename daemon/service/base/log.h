/*
 * log.h - the daemon's log: one line per event on stderr, with the systemd
 * priority prefix ("<3>", "<4>", "<6>", "<7>") so that journald files every
 * line under its level.
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
 * handler (vsnprintf is not async-signal-safe; use uv_signal_t).
 *
 * The current level is the module's only mutable state: one process-wide
 * atomic, read with relaxed ordering (a level change reaching another thread
 * a moment late is harmless).  It is INFO until log_init() says otherwise.
 */
#ifndef ANIMD_LOG_H
#define ANIMD_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* The numeric values are the syslog priorities journald understands. */
enum log_level {
	LOG_LEVEL_ERROR = 3,
	LOG_LEVEL_WARNING = 4,
	LOG_LEVEL_INFO = 6,
	LOG_LEVEL_DEBUG = 7,
};

/* Longest line written, in bytes, including the "<N>" prefix and "\n". */
#define LOG_LINE_MAX 2048

#define LOG_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* Set the level at start-up.  Messages less severe than level are dropped. */
void log_init(enum log_level level);

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

#endif
