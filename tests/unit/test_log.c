/*
 * The log: the systemd priority prefix of each level, the plain style (UTC
 * time, level word, colour at a terminal), which style each format gives
 * for which stderr, that the format changes the prefix and nothing else
 * (log_recent), level filtering,
 * escaping of what could forge lines, truncation at LOG_LINE_MAX, and one
 * write(2) per line (checked on a SOCK_SEQPACKET pair, where every write is
 * one packet).  stderr is redirected with dup2 for the length of each
 * capture only, so cmocka's own messages still reach the terminal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <regex.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/service/base/log.h"

#define ELLIPSIS "\xe2\x80\xa6"

struct capture {
	FILE *file;
	int saved;
};

static void capture_begin(struct capture *c)
{
	fflush(stderr);
	c->file = tmpfile();
	assert_non_null(c->file);
	c->saved = dup(STDERR_FILENO);
	assert_true(c->saved >= 0);
	assert_int_equal(dup2(fileno(c->file), STDERR_FILENO), STDERR_FILENO);
}

/* Restores stderr; returns what was written (caller frees). */
static char *capture_end(struct capture *c)
{
	long n;
	char *buf;

	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	fseek(c->file, 0, SEEK_END);
	n = ftell(c->file);
	rewind(c->file);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, c->file), (size_t)n);
	fclose(c->file);
	return buf;
}

static void test_prefix_per_level(void **state)
{
	struct capture c;
	char *out;

	(void)state;
	log_init(LOG_LEVEL_DEBUG, LOG_FORMAT_JOURNAL);
	log_set_style(LOG_STYLE_JOURNAL);
	capture_begin(&c);
	log_error("e %d", 1);
	log_warning("w %s", "two");
	log_info("i");
	log_debug("d");
	log_write(LOG_LEVEL_INFO, "via %s", "log_write");
	out = capture_end(&c);
	assert_string_equal(out, "<3>e 1\n<4>w two\n<6>i\n<7>d\n<6>via log_write\n");
	free(out);
}

static void test_level_filter(void **state)
{
	struct capture c;
	char *out;

	(void)state;
	log_init(LOG_LEVEL_WARNING, LOG_FORMAT_JOURNAL);
	log_set_style(LOG_STYLE_JOURNAL);
	assert_int_equal(log_get_level(), LOG_LEVEL_WARNING);
	assert_true(log_enabled(LOG_LEVEL_ERROR));
	assert_true(log_enabled(LOG_LEVEL_WARNING));
	assert_false(log_enabled(LOG_LEVEL_INFO));
	capture_begin(&c);
	log_error("kept");
	log_warning("kept too");
	log_info("dropped");
	log_debug("dropped");
	log_set_level(LOG_LEVEL_ERROR);
	log_warning("dropped");
	log_set_level(LOG_LEVEL_INFO);
	log_info("back");
	log_debug("dropped");
	out = capture_end(&c);
	assert_string_equal(out, "<3>kept\n<4>kept too\n<6>back\n");
	free(out);
}

static void test_level_names(void **state)
{
	(void)state;
	assert_int_equal(log_level_parse("error"), LOG_LEVEL_ERROR);
	assert_int_equal(log_level_parse("warning"), LOG_LEVEL_WARNING);
	assert_int_equal(log_level_parse("info"), LOG_LEVEL_INFO);
	assert_int_equal(log_level_parse("debug"), LOG_LEVEL_DEBUG);
	assert_int_equal(log_level_parse("warn"), -EINVAL);
	assert_int_equal(log_level_parse("Info"), -EINVAL);
	assert_int_equal(log_level_parse(""), -EINVAL);
	assert_int_equal(log_level_parse(NULL), -EINVAL);
	assert_string_equal(log_level_name(LOG_LEVEL_ERROR), "error");
	assert_string_equal(log_level_name(LOG_LEVEL_WARNING), "warning");
	assert_string_equal(log_level_name(LOG_LEVEL_INFO), "info");
	assert_string_equal(log_level_name(LOG_LEVEL_DEBUG), "debug");
	assert_string_equal(log_level_name((enum log_level)5), "?");
}

static void test_format_names(void **state)
{
	(void)state;
	assert_int_equal(log_format_parse("auto"), LOG_FORMAT_AUTO);
	assert_int_equal(log_format_parse("journal"), LOG_FORMAT_JOURNAL);
	assert_int_equal(log_format_parse("plain"), LOG_FORMAT_PLAIN);
	assert_int_equal(log_format_parse("Plain"), -EINVAL);
	assert_int_equal(log_format_parse("terminal"), -EINVAL);
	assert_int_equal(log_format_parse(""), -EINVAL);
	assert_int_equal(log_format_parse(NULL), -EINVAL);
	assert_string_equal(log_format_name(LOG_FORMAT_AUTO), "auto");
	assert_string_equal(log_format_name(LOG_FORMAT_JOURNAL), "journal");
	assert_string_equal(log_format_name(LOG_FORMAT_PLAIN), "plain");
	assert_string_equal(log_format_name((enum log_format)3), "?");
}

/* A file name cannot add a line, a fake priority, or terminal controls. */
static void test_sanitising(void **state)
{
	struct capture c;
	char *out;

	(void)state;
	log_init(LOG_LEVEL_INFO, LOG_FORMAT_JOURNAL);
	log_set_style(LOG_STYLE_JOURNAL);
	capture_begin(&c);
	log_info("loaded %s", "evil\n<3>forged error\r\tx");
	log_info("esc %s", "\x1b[31mred\x7f");
	log_info("utf8 %s", "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80");
	log_info("bad %s", "\xff\xfe \xc0\xaf \xed\xa0\x80 \xe2\x80");
	log_info("c1 %s", "\xc2\x9b" "2J \xc2\x85");
	out = capture_end(&c);
	assert_string_equal(out, "<6>loaded evil\\n<3>forged error\\r\\tx\n"
				 "<6>esc \\x1b[31mred\\x7f\n"
				 "<6>utf8 caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80\n"
				 "<6>bad \\xff\\xfe \\xc0\\xaf \\xed\\xa0\\x80 \\xe2\\x80\n"
				 "<6>c1 \\u009b2J \\u0085\n");
	free(out);
}

static size_t count_char(const char *s, char ch)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += *s == ch;
	return n;
}

static void test_truncation(void **state)
{
	static char big[3 * LOG_LINE_MAX];
	struct capture c;
	char *out;
	size_t len;

	(void)state;
	log_init(LOG_LEVEL_INFO, LOG_FORMAT_JOURNAL);
	log_set_style(LOG_STYLE_JOURNAL);

	/* Plain ASCII, longer than a line. */
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	capture_begin(&c);
	log_info("%s", big);
	out = capture_end(&c);
	len = strlen(out);
	assert_int_equal(len, LOG_LINE_MAX);
	assert_memory_equal(out, "<6>aaa", 6);
	assert_string_equal(out + len - 4, ELLIPSIS "\n");
	assert_int_equal(count_char(out, '\n'), 1);
	free(out);

	/* Escapes are never cut in half: the line ends with a whole "\n". */
	memset(big, '\n', sizeof big - 1);
	capture_begin(&c);
	log_info("%s", big);
	out = capture_end(&c);
	len = strlen(out);
	assert_true(len <= LOG_LINE_MAX);
	assert_string_equal(out + len - 6, "\\n" ELLIPSIS "\n");
	assert_int_equal(count_char(out, '\n'), 1);
	free(out);

	/* Nor are multi-byte characters, whether the cut comes from the
	 * formatting buffer or from the escaping. */
	for (size_t i = 0; i + 2 < sizeof big; i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	big[sizeof big - 1] = '\0';
	for (int shift = 0; shift < 2; shift++) {
		capture_begin(&c);
		log_info("%s%s", shift ? "x" : "", big);
		out = capture_end(&c);
		len = strlen(out);
		assert_true(len <= LOG_LINE_MAX);
		assert_null(strstr(out, "\\x"));
		assert_string_equal(out + len - 4, ELLIPSIS "\n");
		free(out);
	}

	/* A message that fills the line exactly is not cut; one byte more
	 * is. */
	memset(big, 'b', sizeof big);
	big[LOG_LINE_MAX - 4] = '\0';
	capture_begin(&c);
	log_info("%s", big);
	out = capture_end(&c);
	assert_int_equal(strlen(out), LOG_LINE_MAX);
	assert_null(strstr(out, ELLIPSIS));
	free(out);
	big[LOG_LINE_MAX - 4] = 'b';
	big[LOG_LINE_MAX - 3] = '\0';
	capture_begin(&c);
	log_info("%s", big);
	out = capture_end(&c);
	assert_int_equal(strlen(out), LOG_LINE_MAX);
	assert_string_equal(out + LOG_LINE_MAX - 4, ELLIPSIS "\n");
	free(out);
}

/* Every line is one write(2): on a SOCK_SEQPACKET pair each write is one
 * packet, so the packets received are the writes made. */
static void test_one_write_per_line(void **state)
{
	static char big[2 * LOG_LINE_MAX];
	char pkt[2 * LOG_LINE_MAX];
	int sv[2], saved;
	ssize_t n;

	(void)state;
	log_init(LOG_LEVEL_DEBUG, LOG_FORMAT_JOURNAL);
	log_set_style(LOG_STYLE_JOURNAL);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	memset(big, 'z', sizeof big - 1);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(sv[0], STDERR_FILENO);
	log_info("first %s", "line");
	log_debug("multi\nline\nmessage");
	log_error("%s", big);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(sv[0]);

	n = recv(sv[1], pkt, sizeof pkt, 0);
	assert_int_equal(n, (ssize_t)strlen("<6>first line\n"));
	assert_memory_equal(pkt, "<6>first line\n", (size_t)n);
	n = recv(sv[1], pkt, sizeof pkt, 0);
	assert_int_equal(n, (ssize_t)strlen("<7>multi\\nline\\nmessage\n"));
	assert_memory_equal(pkt, "<7>multi\\nline\\nmessage\n", (size_t)n);
	n = recv(sv[1], pkt, sizeof pkt, 0);
	assert_int_equal(n, LOG_LINE_MAX);
	assert_int_equal(pkt[n - 1], '\n');
	assert_memory_equal(pkt, "<3>zzz", 6);
	n = recv(sv[1], pkt, sizeof pkt, 0);
	assert_int_equal(n, 0); /* nothing else was written */
	close(sv[1]);
}

static void test_errno_preserved(void **state)
{
	struct capture c;
	char *out;

	(void)state;
	log_init(LOG_LEVEL_INFO, LOG_FORMAT_JOURNAL);
	log_set_style(LOG_STYLE_JOURNAL);
	capture_begin(&c);
	errno = ENOSPC;
	log_info("x");
	assert_int_equal(errno, ENOSPC);
	errno = EACCES;
	log_debug("filtered");
	assert_int_equal(errno, EACCES);
	out = capture_end(&c);
	free(out);
}

static void test_escape_api(void **state)
{
	char buf[16];
	bool cut = true;

	(void)state;
	assert_int_equal(log_escape(buf, sizeof buf, "plain", 5, &cut), 5);
	assert_string_equal(buf, "plain");
	assert_false(cut);

	/* "ab\n" needs 4 bytes; with room for 3 plus the NUL it fits. */
	assert_int_equal(log_escape(buf, 5, "ab\ncd", 5, &cut), 4);
	assert_string_equal(buf, "ab\\n");
	assert_true(cut);
	/* One byte short: the escape is left out whole. */
	assert_int_equal(log_escape(buf, 4, "ab\ncd", 5, &cut), 2);
	assert_string_equal(buf, "ab");
	assert_true(cut);
	/* A character is not split either. */
	assert_int_equal(log_escape(buf, 3, "a\xc3\xa9", 3, &cut), 1);
	assert_string_equal(buf, "a");
	assert_true(cut);
	/* srclen bounds the input, embedded NULs are escaped. */
	assert_int_equal(log_escape(buf, sizeof buf, "a\0b", 3, NULL), 6);
	assert_string_equal(buf, "a\\x00b");
	assert_int_equal(log_escape(buf, 0, "abc", 3, &cut), 0);
	assert_true(cut);
	assert_int_equal(log_escape(buf, 1, "", 0, &cut), 0);
	assert_string_equal(buf, "");
	assert_false(cut);
}

/* Names that are not text, byte by byte: printable ASCII as it is, the
 * backslash and everything else as \xNN (what bash's $'...' reads back). */
static void test_escape_bytes(void **state)
{
	char buf[64];
	bool cut = true;

	(void)state;
	assert_int_equal(log_escape_bytes(buf, sizeof buf, "bad\xff.md5anim", 12, &cut), 15);
	assert_string_equal(buf, "bad\\xff.md5anim");
	assert_false(cut);
	/* Valid UTF-8, controls, C1, DEL, the backslash: all bytes. */
	log_escape_bytes(buf, sizeof buf, "\xc3\xa9\n\x1b\xc2\x9b\x7f\\ \"~", 11, &cut);
	assert_string_equal(buf, "\\xc3\\xa9\\x0a\\x1b\\xc2\\x9b\\x7f\\x5c \"~");
	assert_false(cut);
	assert_int_equal(log_escape_bytes(buf, sizeof buf, "a\0b", 3, NULL), 6);
	assert_string_equal(buf, "a\\x00b");
	/* An escape is never cut. */
	assert_int_equal(log_escape_bytes(buf, 5, "a\xff" "b", 3, &cut), 1);
	assert_string_equal(buf, "a");
	assert_true(cut);
	assert_int_equal(log_escape_bytes(buf, 6, "a\xff" "b", 3, &cut), 5);
	assert_string_equal(buf, "a\\xff");
	assert_true(cut);
	assert_int_equal(log_escape_bytes(buf, 0, "a", 1, &cut), 0);
	assert_true(cut);
}

/* Whether s matches the extended regex re, whole. */
static bool matches(const char *s, const char *re)
{
	regex_t rx;
	bool m;

	assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
	m = regexec(&rx, s, 0, NULL, 0) == 0;
	regfree(&rx);
	return m;
}

#define STAMP "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z "

/* Plain: the time in UTC to the millisecond and the level word with a
 * colon, no priority prefix; the message is escaped exactly as in the
 * journal style, and the time is now's. */
static void test_plain_style(void **state)
{
	struct capture c;
	char *out, today[16];
	time_t now = time(NULL);
	struct tm tm;

	(void)state;
	log_init(LOG_LEVEL_DEBUG, LOG_FORMAT_PLAIN);
	log_set_style(LOG_STYLE_PLAIN);
	capture_begin(&c);
	log_error("e %d", 1);
	log_warning("w");
	log_info("i %s", "evil\n<3>forged\x1b[31m");
	log_debug("d");
	out = capture_end(&c);
	assert_true(matches(out, "^" STAMP "error: e 1\n"
				 STAMP "warning: w\n"
				 STAMP "info: i evil\\\\n<3>forged\\\\x1b\\[31m\n"
				 STAMP "debug: d\n$"));
	assert_null(strchr(out, '\x1b'));
	gmtime_r(&now, &tm);
	strftime(today, sizeof today, "%Y-%m-%d", &tm);
	assert_memory_equal(out, today, 10);    /* fails only across midnight UTC */
	free(out);

	/* The cap still holds with the longer prefix. */
	{
		static char big[2 * LOG_LINE_MAX];

		memset(big, 'q', sizeof big - 1);
		capture_begin(&c);
		log_info("%s", big);
		out = capture_end(&c);
		assert_int_equal(strlen(out), LOG_LINE_MAX);
		assert_string_equal(out + LOG_LINE_MAX - 4, ELLIPSIS "\n");
		free(out);
	}
	log_set_style(LOG_STYLE_JOURNAL);
}

/* With colour only the level word is coloured, then reset; an ESC in the
 * message is still escaped. */
static void test_plain_colour(void **state)
{
	struct capture c;
	char *out;

	(void)state;
	log_init(LOG_LEVEL_DEBUG, LOG_FORMAT_PLAIN);
	log_set_style(LOG_STYLE_PLAIN_COLOUR);
	capture_begin(&c);
	log_error("e");
	log_warning("w");
	log_info("i \x1b[2J");
	log_debug("d");
	out = capture_end(&c);
	assert_true(matches(out, "^" STAMP "\x1b\\[1;31merror\x1b\\[0m: e\n"
				 STAMP "\x1b\\[33mwarning\x1b\\[0m: w\n"
				 STAMP "info: i \\\\x1b\\[2J\n"
				 STAMP "\x1b\\[2mdebug\x1b\\[0m: d\n$"));
	free(out);
	log_set_style(LOG_STYLE_JOURNAL);
}

/* The format is the prefix and nothing else: the text after it, and what
 * log_recent keeps for `stats`, are the same in both styles. */
static void test_format_keeps_text(void **state)
{
	struct log_recent r[2];
	struct capture c;
	char *journal, *plain;
	const char *text;

	(void)state;
	log_init(LOG_LEVEL_INFO, LOG_FORMAT_JOURNAL);
	capture_begin(&c);
	log_warning("same \x01 text");
	journal = capture_end(&c);
	log_init(LOG_LEVEL_INFO, LOG_FORMAT_PLAIN);
	log_set_style(LOG_STYLE_PLAIN);
	capture_begin(&c);
	log_warning("same \x01 text");
	plain = capture_end(&c);
	assert_string_equal(journal, "<4>same \\x01 text\n");
	text = strstr(plain, "Z warning: ");
	assert_non_null(text);
	assert_string_equal(text + strlen("Z warning: "), journal + 3);
	assert_int_equal(log_recent(r, 2, NULL, NULL), 2);
	assert_string_equal(r[0].text, "same \\x01 text");
	assert_string_equal(r[1].text, r[0].text);
	assert_int_equal(r[1].level, LOG_LEVEL_WARNING);
	free(journal);
	free(plain);
	log_set_style(LOG_STYLE_JOURNAL);
}

/* Which style each format gives for which stderr: journal always the
 * journal's prefixes; plain the time, coloured at a terminal unless
 * NO_COLOR or TERM=dumb; auto the journal's only where $JOURNAL_STREAM
 * (as systemd sets it) names the descriptor's device and inode, plain
 * everywhere else, a pipe or a file included. */
static void test_style_for_format(void **state)
{
	int p[2], pty;
	char env[64];
	struct stat st;
	FILE *f;

	(void)state;
	unsetenv("JOURNAL_STREAM");
	unsetenv("NO_COLOR");
	setenv("TERM", "xterm", 1);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(log_style_for(LOG_FORMAT_AUTO, p[1]), LOG_STYLE_PLAIN);
	assert_int_equal(log_style_for(LOG_FORMAT_PLAIN, p[1]), LOG_STYLE_PLAIN);
	assert_int_equal(log_style_for(LOG_FORMAT_JOURNAL, p[1]), LOG_STYLE_JOURNAL);
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(log_style_for(LOG_FORMAT_AUTO, fileno(f)), LOG_STYLE_PLAIN);
	assert_int_equal(log_style_for(LOG_FORMAT_JOURNAL, fileno(f)), LOG_STYLE_JOURNAL);

	/* The journal is recognised by device and inode, and only by them. */
	assert_int_equal(fstat(fileno(f), &st), 0);
	snprintf(env, sizeof env, "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	assert_int_equal(log_style_for(LOG_FORMAT_AUTO, fileno(f)), LOG_STYLE_JOURNAL);
	assert_int_equal(log_style_for(LOG_FORMAT_PLAIN, fileno(f)), LOG_STYLE_PLAIN);
	assert_int_equal(log_style_for(LOG_FORMAT_AUTO, p[1]), LOG_STYLE_PLAIN);
	snprintf(env, sizeof env, "%llu:%llux", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	assert_int_equal(log_style_for(LOG_FORMAT_AUTO, fileno(f)), LOG_STYLE_PLAIN);
	setenv("JOURNAL_STREAM", "garbage", 1);
	assert_int_equal(log_style_for(LOG_FORMAT_AUTO, fileno(f)), LOG_STYLE_PLAIN);
	unsetenv("JOURNAL_STREAM");

	pty = posix_openpt(O_RDWR | O_NOCTTY);
	if (pty < 0 || grantpt(pty) != 0 || unlockpt(pty) != 0) {
		print_message("skipping the terminal cases: no pseudo-terminal (%s)\n", strerror(errno));
	} else {
		int tty = open(ptsname(pty), O_RDWR | O_NOCTTY);

		assert_true(tty >= 0);
		assert_int_equal(log_style_for(LOG_FORMAT_AUTO, tty), LOG_STYLE_PLAIN_COLOUR);
		assert_int_equal(log_style_for(LOG_FORMAT_PLAIN, tty), LOG_STYLE_PLAIN_COLOUR);
		assert_int_equal(log_style_for(LOG_FORMAT_JOURNAL, tty), LOG_STYLE_JOURNAL);
		setenv("NO_COLOR", "", 1);
		assert_int_equal(log_style_for(LOG_FORMAT_AUTO, tty), LOG_STYLE_PLAIN);
		unsetenv("NO_COLOR");
		setenv("TERM", "dumb", 1);
		assert_int_equal(log_style_for(LOG_FORMAT_AUTO, tty), LOG_STYLE_PLAIN);
		setenv("TERM", "xterm", 1);

		snprintf(env, sizeof env, "%llu:%llu", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
		setenv("JOURNAL_STREAM", env, 1);
		assert_int_equal(log_style_for(LOG_FORMAT_AUTO, tty), LOG_STYLE_PLAIN_COLOUR);
		assert_int_equal(fstat(tty, &st), 0);
		snprintf(env, sizeof env, "%llu:%llu", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
		setenv("JOURNAL_STREAM", env, 1);
		assert_int_equal(log_style_for(LOG_FORMAT_AUTO, tty), LOG_STYLE_JOURNAL);
		assert_int_equal(log_style_for(LOG_FORMAT_PLAIN, tty), LOG_STYLE_PLAIN_COLOUR);
		unsetenv("JOURNAL_STREAM");
		close(tty);
	}
	if (pty >= 0)
		close(pty);
	fclose(f);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_per_level),
		cmocka_unit_test(test_level_filter),
		cmocka_unit_test(test_level_names),
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_sanitising),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_one_write_per_line),
		cmocka_unit_test(test_errno_preserved),
		cmocka_unit_test(test_escape_api),
		cmocka_unit_test(test_escape_bytes),
		cmocka_unit_test(test_plain_style),
		cmocka_unit_test(test_plain_colour),
		cmocka_unit_test(test_format_keeps_text),
		cmocka_unit_test(test_style_for_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
