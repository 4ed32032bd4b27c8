/*
 * The configuration: built-in defaults, the shipped conf/animd.ini (run
 * from the repository root), every class of error with its file:line
 * message and the name it was probably meant to be, the drop-in folder
 * (order, overrides, errors, what set each key), flags over the files,
 * printing and reading back, and what a SIGHUP may apply live.
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
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/anim/clip.h"
#include "daemon/service/base/config.h"
#include "daemon/service/base/config_dropins.h"
#include "daemon/service/base/log.h"

#define SHIPPED "conf/animd.ini"

/* Parse text as a file named "t.ini" over the defaults. */
static int load_text(struct config *cfg, const char *text, char *err, size_t errlen)
{
	config_defaults(cfg);
	return config_load_buffer(cfg, "t.ini", text, strlen(text), err, errlen);
}

/* The text must be refused with exactly this message, and leave the
 * config it was loaded over untouched. */
static void expect_error(const char *text, const char *message)
{
	struct config cfg, before;
	char err[512] = "";

	config_defaults(&cfg);
	config_set(&cfg, "limits.max_connections", "7", NULL, 0);
	before = cfg;
	assert_int_equal(config_load_buffer(&cfg, "t.ini", text, strlen(text), err, sizeof err),
			 -EINVAL);
	assert_string_equal(err, message);
	assert_int_equal(config_diff(&cfg, &before), 0);
}

/* A config in which every field differs from its default. */
static void perturbed(struct config *cfg)
{
	static const char *const values[CONFIG_FIELD_COUNT][2] = {
		{ "assets.root", "/tmp/elsewhere" },
		{ "assets.max_memory", "512M" },
		{ "socket.path", "/tmp/x.sock" },
		{ "socket.mode", "0600" },
		{ "socket.group", "wheel" },
		{ "streams.publish_rate_hz", "30" },
		{ "streams.tick_threads", "1" },
		{ "streams.max_total_bytes", "256M" },
		{ "playback.default_fade_ms", "250" },
		{ "limits.max_message_bytes", "2M" },
		{ "limits.max_connections", "3" },
		{ "limits.max_instances_per_connection", "5" },
		{ "limits.max_layers_per_instance", "3" },
		{ "limits.max_streams_per_connection", "2" },
		{ "limits.max_asset_bytes", "1G" },
		{ "limits.max_output_bytes_per_connection", "24M" },
		{ "limits.request_timeout_ms", "500" },
		{ "limits.idle_timeout_s", "0" },
		{ "reload.watch", "no" },
		{ "reload.quiet_ms", "0" },
		{ "reload.rescan_interval_s", "0" },
		{ "log.level", "debug" },
		{ "log.format", "plain" },
		{ "xfile.ticks_per_second", "30" },
		{ "clips.compress", "no" },
		{ "clips.precision", "0.0001" },
		{ "clips.shell_distance", "3.5" },
		{ "control.operators", "none" },
	};
	struct config def;
	char err[256];

	config_defaults(cfg);
	for (int i = 0; i < CONFIG_FIELD_COUNT; i++) {
		if (config_set(cfg, values[i][0], values[i][1], err, sizeof err) != 0)
			fail_msg("%s", err);
	}
	config_defaults(&def);
	assert_int_equal(config_diff(cfg, &def), CONFIG_ALL_FIELDS);
}

static void test_defaults(void **state)
{
	struct config c;

	(void)state;
	config_defaults(&c);
	assert_string_equal(c.asset_root, "/srv/animd");
	assert_int_equal(c.assets_max_memory, 0);  /* no cap */
	assert_string_equal(c.socket_path, "/run/animd/animd.sock");
	assert_int_equal(c.socket_mode, 0660);
	assert_string_equal(c.socket_group, "");
	assert_int_equal(c.operators, CONFIG_OPERATORS_PRIVILEGED);
	assert_int_equal(c.publish_rate_hz, 60);
	assert_int_equal(c.tick_threads, 0);
	assert_int_equal(c.streams_max_total_bytes, 0);  /* auto */
	assert_int_equal(c.max_message_bytes, 1 << 20);
	assert_int_equal(c.max_connections, 64);
	assert_int_equal(c.max_instances_per_connection, 1024);
	assert_int_equal(c.max_layers_per_instance, 8);
	assert_int_equal(c.default_fade_ms, 0);
	assert_int_equal(c.max_streams_per_connection, 16);
	assert_int_equal(c.max_asset_bytes, 256u << 20);
	assert_int_equal(c.max_output_bytes_per_connection, 32u << 20);
	assert_int_equal(c.request_timeout_ms, 10000);
	assert_int_equal(c.idle_timeout_s, 300);
	assert_true(c.reload_watch);
	assert_int_equal(c.reload_quiet_ms, 150);
	assert_int_equal(c.rescan_interval_s, 30);
	assert_int_equal(c.log_level, LOG_LEVEL_INFO);
	assert_int_equal(c.log_format, LOG_FORMAT_AUTO);
	assert_int_equal(c.x_ticks_per_second, 4800);
	assert_true(c.clips_compress);
	/* auto, the codec's own choice from each rig's size, which a clip
	 * compressed without the daemon (animd check, inspect) gets too. */
	assert_true(c.clips_precision == 0.0);
	assert_true(c.clips_shell_distance == 0.0);
	assert_int_equal(config_validate(&c, NULL, 0), 0);
	config_free(&c);
	config_free(NULL);
}

/* The shipped file holds every key, and every value equals the built-in
 * default (asset root and socket path included: the file says so). */
static void test_shipped_file_equals_defaults(void **state)
{
	struct config c, def;
	char err[512] = "";

	(void)state;
	/* Starting from a config where every field differs proves that the
	 * file sets every key, not just that it leaves the defaults alone. */
	perturbed(&c);
	if (config_load_file(&c, SHIPPED, err, sizeof err) != 0)
		fail_msg("%s", err);
	config_defaults(&def);
	assert_int_equal(config_diff(&c, &def), 0);
}

static void test_field_table(void **state)
{
	(void)state;
	for (int i = 0; i < CONFIG_FIELD_COUNT; i++) {
		const char *name = config_field_name((enum config_field)i);

		assert_non_null(name);
		assert_non_null(strchr(name, '.'));
		for (int j = 0; j < i; j++)
			assert_string_not_equal(name, config_field_name((enum config_field)j));
	}
	assert_null(config_field_name(CONFIG_FIELD_COUNT));
}

static void test_syntax_accepted(void **state)
{
	struct config c;
	char err[512] = "";
	const char *text = "\xef\xbb\xbf; comment\r\n"
			   "# another\r\n"
			   "\r\n"
			   "[limits] ; trailing comment\r\n"
			   "  max_connections = 8 ; inline comment\r\n"
			   "max_message_bytes=2K\r\n"
			   "max_asset_bytes = 3MiB\r\n"
			   "max_output_bytes_per_connection = 1G\r\n"
			   "[socket]\n"
			   "mode = 755\n"
			   "group = 1234\n"
			   "[reload]\n"
			   "watch = off\n"
			   "rescan_interval_s = 0\n"
			   "[log]\n"
			   "level = debug"; /* no final newline */

	(void)state;
	if (load_text(&c, text, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(c.max_connections, 8);
	assert_int_equal(c.max_message_bytes, 2048);
	assert_int_equal(c.max_asset_bytes, 3u << 20);
	assert_int_equal(c.max_output_bytes_per_connection, 1u << 30);
	assert_int_equal(c.socket_mode, 0755);
	assert_string_equal(c.socket_group, "1234");
	assert_false(c.reload_watch);
	assert_int_equal(c.rescan_interval_s, 0);
	assert_int_equal(c.log_level, LOG_LEVEL_DEBUG);
	/* Untouched keys keep their defaults. */
	assert_int_equal(c.publish_rate_hz, 60);

	assert_int_equal(load_text(&c, "[socket]\ngroup =\n", err, sizeof err), 0);
	assert_string_equal(c.socket_group, "");
	assert_int_equal(load_text(&c, "[socket]\ngroup = _animd-ro.1$\n", err, sizeof err), 0);
	assert_int_equal(load_text(&c, "", err, sizeof err), 0);
}

static void test_error_unknown(void **state)
{
	(void)state;
	expect_error("[limits]\nmax_connections = 3\nfoo = 1\n",
		     "t.ini:3: unknown key \"foo\" in [limits]");
	expect_error("; x\n[limitations]\n",
		     "t.ini:2: unknown section [limitations] (known: assets, socket, streams, "
		     "playback, limits, reload, log, xfile, clips, control)");
	expect_error("level = info\n", "t.ini:1: key \"level\" comes before any [section]");
	/* Control bytes in a name are escaped in the message. */
	expect_error("[log]\nle\x1b\x1b\x1bvel = info\n",
		     "t.ini:2: unknown key \"le\\x1b\\x1b\\x1bvel\" in [log]");
}

/* An unknown name is answered with the known one it is nearest to (at most
 * two edits, fewer than its length), a key of another section with that
 * section. */
static void test_error_did_you_mean(void **state)
{
	(void)state;
	/* A typo: a letter missing, one too many, one wrong, two swapped. */
	expect_error("[limits]\nmax_conections = 3\n",
		     "t.ini:2: unknown key \"max_conections\" in [limits]: did you mean "
		     "\"max_connections\"?");
	expect_error("[limits]\nmax_connnections = 3\n",
		     "t.ini:2: unknown key \"max_connnections\" in [limits]: did you mean "
		     "\"max_connections\"?");
	expect_error("[reload]\nquiet-ms = 3\n",
		     "t.ini:2: unknown key \"quiet-ms\" in [reload]: did you mean \"quiet_ms\"?");
	expect_error("[log]\nlevle = info\n",
		     "t.ini:2: unknown key \"levle\" in [log]: did you mean \"level\"?");
	/* Case alone. */
	expect_error("[log]\nLevel = info\n",
		     "t.ini:2: unknown key \"Level\" in [log]: did you mean \"level\"?");
	/* The key of another section, exactly. */
	expect_error("[socket]\nlevel = info\n",
		     "t.ini:2: \"level\" is not a key of [socket]; it is in [log]");
	expect_error("[limits]\npublish_rate_hz = 30\n",
		     "t.ini:2: \"publish_rate_hz\" is not a key of [limits]; it is in [streams]");
	/* Misplaced and mistyped. */
	expect_error("[streams]\nqiet_ms = 3\n",
		     "t.ini:2: unknown key \"qiet_ms\" in [streams]: did you mean \"quiet_ms\" in "
		     "[reload]?");
	/* This section's key comes before another's at the same distance. */
	expect_error("[log]\nformt = plain\n",
		     "t.ini:2: unknown key \"formt\" in [log]: did you mean \"format\"?");
	/* Too far, or too short to guess: the plain fact. */
	expect_error("[limits]\nmax_conn = 3\n", "t.ini:2: unknown key \"max_conn\" in [limits]");
	expect_error("[limits]\nfoo = 1\n", "t.ini:2: unknown key \"foo\" in [limits]");
	expect_error("[socket]\nmo = 0600\n", "t.ini:2: unknown key \"mo\" in [socket]");
	/* Sections. */
	expect_error("[limts]\n", "t.ini:1: unknown section [limts]: did you mean [limits]?");
	expect_error("[Limits]\n", "t.ini:1: unknown section [Limits]: did you mean [limits]?");
	expect_error("[stream]\n", "t.ini:1: unknown section [stream]: did you mean [streams]?");
	expect_error("[network]\n", "t.ini:1: unknown section [network] (known: assets, socket, "
				    "streams, playback, limits, reload, log, xfile, clips, control)");
	/* config_set: a dotted name, or a key without its section. */
	{
		struct config c;
		char err[256];

		config_defaults(&c);
		assert_int_equal(config_set(&c, "limits.max_conections", "3", err, sizeof err),
				 -EINVAL);
		assert_string_equal(err, "unknown setting \"limits.max_conections\": did you mean "
					 "\"limits.max_connections\"?");
		assert_int_equal(config_set(&c, "max_connections", "3", err, sizeof err), -EINVAL);
		assert_string_equal(err, "unknown setting \"max_connections\": did you mean "
					 "\"limits.max_connections\"?");
		assert_int_equal(c.max_connections, 64);
	}
}

static void test_error_duplicates(void **state)
{
	(void)state;
	expect_error("[log]\nlevel = info\n\nlevel = debug\n",
		     "t.ini:4: duplicate key \"level\" in [log] (first set at line 2)");
	/* Across a section opened twice too. */
	expect_error("[log]\nlevel = info\n[limits]\n[log]\nlevel = info\n",
		     "t.ini:5: duplicate key \"level\" in [log] (first set at line 2)");
	/* Opening a section again to add other keys is fine. */
	{
		struct config c;
		char err[256];

		assert_int_equal(load_text(&c,
					   "[socket]\npath = /a.sock\n[limits]\n[socket]\n"
					   "mode = 0600\n",
					   err, sizeof err),
				 0);
		assert_string_equal(c.socket_path, "/a.sock");
		assert_int_equal(c.socket_mode, 0600);
	}
}

static void test_error_syntax(void **state)
{
	char longline[400];

	(void)state;
	expect_error("[log]\nlevel\n",
		     "t.ini:2: syntax error: expected \"key = value\", a [section] or a comment");
	expect_error("[log\n",
		     "t.ini:1: syntax error: expected \"key = value\", a [section] or a comment");
	expect_error("[log] level = info\n", "t.ini:1: unexpected text after [log]");
	expect_error("[log]\n= info\n", "t.ini:2: a key name is missing before the \"=\"");
	/* A continuation line is not a continuation here. */
	expect_error("[assets]\nroot = /srv\n  /animd\n",
		     "t.ini:3: syntax error: expected \"key = value\", a [section] or a comment");
	/* The first error is the one reported, even when a later one is ours. */
	expect_error("[log]\nnonsense\nbogus = 1\n",
		     "t.ini:2: syntax error: expected \"key = value\", a [section] or a comment");
	{
		static const char nul[] = "[log]\nlevel = in\0fo\n";
		struct config c;
		char err[256];

		config_defaults(&c);
		assert_int_equal(config_load_buffer(&c, "t.ini", nul, sizeof nul - 1, err,
						    sizeof err),
				 -EINVAL);
		assert_string_equal(err, "t.ini:2: the line contains a NUL byte");
	}
	memset(longline, 'a', sizeof longline);
	memcpy(longline, "[assets]\nroot = /", 17);
	longline[sizeof longline - 1] = '\0';
	expect_error(longline, "t.ini:2: the line is longer than 197 bytes");
}

static void test_error_values(void **state)
{
	(void)state;
	expect_error("[socket]\n\n\n\n\n\nmode = rw\n",
		     "t.ini:7: socket.mode must be an octal mode like 0660, not \"rw\"");
	expect_error("[socket]\nmode = 1777\n",
		     "t.ini:2: socket.mode must be an octal mode like 0660, not \"1777\"");
	expect_error("[socket]\nmode = 0680\n",
		     "t.ini:2: socket.mode must be an octal mode like 0660, not \"0680\"");
	expect_error("[socket]\nmode = 66\n",
		     "t.ini:2: socket.mode must be an octal mode like 0660, not \"66\"");
	expect_error("[limits]\nmax_connections = 0\n",
		     "t.ini:2: limits.max_connections must be an integer from 1 to 65536, not "
		     "\"0\"");
	expect_error("[limits]\nmax_connections = -1\n",
		     "t.ini:2: limits.max_connections must be an integer from 1 to 65536, not "
		     "\"-1\"");
	expect_error("[limits]\nmax_connections = 99999999999999999999999\n",
		     "t.ini:2: limits.max_connections must be an integer from 1 to 65536, not "
		     "\"99999999999999999999999\"");
	expect_error("[limits]\nmax_connections = 0x10\n",
		     "t.ini:2: limits.max_connections must be an integer from 1 to 65536, not "
		     "\"0x10\"");
	expect_error("[limits]\nmax_connections = 12 # no\n",
		     "t.ini:2: limits.max_connections must be an integer from 1 to 65536, not "
		     "\"12 # no\"");
	expect_error("[streams]\npublish_rate_hz = 1001\n",
		     "t.ini:2: streams.publish_rate_hz must be an integer from 1 to 1000, not "
		     "\"1001\"");
	expect_error("[streams]\ntick_threads = 65\n",
		     "t.ini:2: streams.tick_threads must be an integer from 0 to 64, not \"65\"");
	expect_error("[streams]\nmax_total_bytes = 512K\n",
		     "t.ini:2: streams.max_total_bytes must be auto or a size from 1MiB to 1024GiB "
		     "(bytes, or with a K, M or G suffix), not \"512K\"");
	expect_error("[streams]\nmax_total_bytes = Auto\n",
		     "t.ini:2: streams.max_total_bytes must be auto or a size from 1MiB to 1024GiB "
		     "(bytes, or with a K, M or G suffix), not \"Auto\"");
	{
		struct config c;
		char err[512], buf[32];

		assert_int_equal(load_text(&c, "[streams]\nmax_total_bytes = 3G\n", err, sizeof err),
				 0);
		assert_int_equal(c.streams_max_total_bytes, (size_t)3 << 30);
		assert_string_equal(config_field_format(&c, CONFIG_STREAMS_MAX_TOTAL_BYTES, buf,
							sizeof buf), "3GiB");
		assert_int_equal(load_text(&c, "[streams]\nmax_total_bytes = auto\n", err,
					   sizeof err), 0);
		assert_int_equal(c.streams_max_total_bytes, 0);
		assert_string_equal(config_field_format(&c, CONFIG_STREAMS_MAX_TOTAL_BYTES, buf,
							sizeof buf), "auto");
	}
	expect_error("[limits]\nmax_message_bytes = 1MB\n",
		     "t.ini:2: limits.max_message_bytes must be a size from 1KiB to 64MiB (bytes, "
		     "or with a K, M or G suffix), not \"1MB\"");
	expect_error("[limits]\nmax_message_bytes = 65M\n",
		     "t.ini:2: limits.max_message_bytes must be a size from 1KiB to 64MiB (bytes, "
		     "or with a K, M or G suffix), not \"65M\"");
	expect_error("[limits]\nmax_asset_bytes = 18446744073709551615G\n",
		     "t.ini:2: limits.max_asset_bytes must be a size from 1KiB to 16GiB (bytes, "
		     "or with a K, M or G suffix), not \"18446744073709551615G\"");
	/* The output maximum must hold the high mark plus the largest reply
	 * (PROTOCOL.md section 5), or one reply cuts off a client that reads. */
	expect_error("[limits]\nmax_output_bytes_per_connection = 64K\n",
		     "t.ini:2: limits.max_output_bytes_per_connection must be a size from 17MiB to "
		     "1GiB (bytes, or with a K, M or G suffix), not \"64K\": it must hold the "
		     "output high mark (1MiB) plus the largest reply (16MiB), so that no reply "
		     "cuts off a client that reads");
	expect_error("[limits]\nmax_output_bytes_per_connection = 17825791\n",
		     "t.ini:2: limits.max_output_bytes_per_connection must be a size from 17MiB to "
		     "1GiB (bytes, or with a K, M or G suffix), not \"17825791\": it must hold the "
		     "output high mark (1MiB) plus the largest reply (16MiB), so that no reply "
		     "cuts off a client that reads");
	{
		struct config c;
		char err[512];

		assert_int_equal(load_text(&c, "[limits]\nmax_output_bytes_per_connection = 17M\n",
					   err, sizeof err), 0);
		assert_int_equal(c.max_output_bytes_per_connection, 17u << 20);
	}
	expect_error("[reload]\nwatch = maybe\n",
		     "t.ini:2: reload.watch must be yes or no, not \"maybe\"");
	expect_error("[reload]\nquiet_ms = 60001\n",
		     "t.ini:2: reload.quiet_ms must be an integer from 0 to 60000, not \"60001\"");
	expect_error("[log]\nlevel = verbose\n",
		     "t.ini:2: log.level must be one of error, warning, info, debug, not "
		     "\"verbose\"");
	expect_error("[log]\nlevel = INFO\n",
		     "t.ini:2: log.level must be one of error, warning, info, debug, not \"INFO\"");
	expect_error("[log]\nformat = json\n",
		     "t.ini:2: log.format must be one of auto, journal, plain, not \"json\"");
	{
		struct config c;
		char err[512];

		assert_int_equal(load_text(&c, "[log]\nformat = journal\n", err, sizeof err), 0);
		assert_int_equal(c.log_format, LOG_FORMAT_JOURNAL);
		assert_int_equal(load_text(&c, "[log]\nformat = plain\n", err, sizeof err), 0);
		assert_int_equal(c.log_format, LOG_FORMAT_PLAIN);
	}
	expect_error("[control]\noperators = root\n",
		     "t.ini:2: control.operators must be one of privileged, everyone, none, not "
		     "\"root\"");
	expect_error("[xfile]\nticks_per_second = 0\n",
		     "t.ini:2: xfile.ticks_per_second must be an integer from 1 to 1000000, not "
		     "\"0\"");
	expect_error("[socket]\ngroup = a b\n",
		     "t.ini:2: socket.group must be a group name or number, not \"a b\"");
	expect_error("[socket]\ngroup = -x\n",
		     "t.ini:2: socket.group must be a group name or number, not \"-x\"");
	expect_error("[socket]\ngroup = a\"b\n",
		     "t.ini:2: socket.group must be a group name or number, not \"a\\\"b\"");
	{
		/* A long value is cut in the message. */
		char text[256], want[256];

		snprintf(text, sizeof text, "[socket]\nmode = %0150d\n", 7);
		snprintf(want, sizeof want,
			 "t.ini:2: socket.mode must be an octal mode like 0660, not \"%064d\xe2\x80\xa6\"",
			 0);
		expect_error(text, want);
	}
}

static void test_error_empty_and_quoted(void **state)
{
	(void)state;
	expect_error("[limits]\nmax_connections =\n", "t.ini:2: limits.max_connections has no value");
	expect_error("[assets]\nroot = ; a comment only\n", "t.ini:2: assets.root has no value");
	expect_error("[assets]\nroot = \"/srv/animd\"\n",
		     "t.ini:2: assets.root is written without quotes, not \"\\\"/srv/animd\\\"\"");
}

static void test_error_paths(void **state)
{
	char text[300];

	(void)state;
	expect_error("[assets]\nroot = srv/animd\n",
		     "t.ini:2: assets.root must be an absolute path, not \"srv/animd\"");
	expect_error("[socket]\npath = animd.sock\n",
		     "t.ini:2: socket.path must be an absolute path, not \"animd.sock\"");
	expect_error("[assets]\nroot = /srv/\x1b[2Janimd\n",
		     "t.ini:2: assets.root must not contain control characters: "
		     "\"/srv/\\x1b[2Janimd\"");
	snprintf(text, sizeof text, "[socket]\npath = /%0108d\n", 0);
	expect_error(text, "t.ini:2: socket.path is longer than 107 bytes, the limit of a Unix "
			   "socket address");
	/* 107 bytes is fine. */
	{
		struct config c;
		char err[256];

		snprintf(text, sizeof text, "[socket]\npath = /%0106d\n", 0);
		assert_int_equal(load_text(&c, text, err, sizeof err), 0);
		assert_int_equal(strlen(c.socket_path), 107);
	}
}

static void test_error_cross_field(void **state)
{
	(void)state;
	expect_error("[limits]\nmax_message_bytes = 64M\n",
		     "t.ini: limits.max_output_bytes_per_connection (32MiB) must be at least "
		     "limits.max_message_bytes (64MiB)");
}

static void test_file_errors(void **state)
{
	char dir[] = "/tmp/animd-test-config-XXXXXX";
	char path[128], err[512], want[600];
	struct config c;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	config_defaults(&c);

	snprintf(path, sizeof path, "%s/missing.ini", dir);
	assert_int_equal(config_load_file(&c, path, err, sizeof err), -ENOENT);
	snprintf(want, sizeof want, "%s: cannot open: %s", path, strerror(ENOENT));
	assert_string_equal(err, want);

	assert_int_equal(config_load_file(&c, dir, err, sizeof err), -EINVAL);
	snprintf(want, sizeof want, "%s: not a regular file", dir);
	assert_string_equal(err, want);

	snprintf(path, sizeof path, "%s/animd.ini", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("[limits]\nmax_connections = 9\nmax_streams_per_connection = none\n", f);
	fclose(f);
	assert_int_equal(config_load_file(&c, path, err, sizeof err), -EINVAL);
	snprintf(want, sizeof want,
		 "%s:3: limits.max_streams_per_connection must be an integer from 1 to 1024, not "
		 "\"none\"",
		 path);
	assert_string_equal(err, want);
	assert_int_equal(c.max_connections, 64); /* all or nothing */

	f = fopen(path, "w");
	assert_non_null(f);
	for (size_t i = 0; i <= CONFIG_FILE_MAX / 16; i++)
		fputs("; padding......\n", f);
	fclose(f);
	assert_int_equal(config_load_file(&c, path, err, sizeof err), -EFBIG);

	unlink(path);
	rmdir(dir);
}

static char *read_all(FILE *f)
{
	long n;
	char *buf;

	fflush(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	return buf;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void remove_tree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The main file, then every *.ini of FILE.d/ in byte order of the names
 * (not the locale's: "Z.ini" before "a.ini"), each over those before; the
 * others (hidden, backups, other suffixes) not read; what set each key. */
static void test_dropins_order_and_sources(void **state)
{
	char dir[] = "/tmp/animd-test-dropins-XXXXXX";
	char main_ini[128], dropins[160], want[600], err[512] = "";
	struct config_sources src;
	struct config c;
	FILE *f;
	char *text;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(main_ini, sizeof main_ini, "%s/animd.ini", dir);
	snprintf(dropins, sizeof dropins, "%s/animd.ini.d", dir);
	write_file(dir, "animd.ini", "[limits]\nmax_connections = 9\nmax_streams_per_connection = 4\n");
	assert_int_equal(mkdir(dropins, 0755), 0);
	write_file(dropins, "20-b.ini", "[limits]\nmax_connections = 32\n");
	write_file(dropins, "10-a.ini", "; local\n[limits]\nmax_connections = 16\n[log]\nlevel = debug\n");
	write_file(dropins, "a.ini", "[limits]\nmax_connections = 48\n");
	write_file(dropins, "Z.ini", "[limits]\n\nmax_connections = 40\n");
	write_file(dropins, ".hidden.ini", "garbage\n");
	write_file(dropins, "x.ini.dpkg-old", "garbage\n");
	write_file(dropins, "notes.txt", "garbage\n");
	write_file(dropins, "ini", "garbage\n");

	config_sources_init(&src);
	config_defaults(&c);
	if (config_load(&c, main_ini, false, &src, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(c.max_connections, 48);
	assert_int_equal(c.max_streams_per_connection, 4);
	assert_int_equal(c.log_level, LOG_LEVEL_DEBUG);
	assert_int_equal(src.nfiles, 5);
	assert_string_equal(src.files[0], main_ini);
	snprintf(want, sizeof want, "%s/10-a.ini", dropins);
	assert_string_equal(src.files[1], want);
	assert_string_equal(src.key[CONFIG_LOG_LEVEL].file, want);
	assert_int_equal(src.key[CONFIG_LOG_LEVEL].line, 5);
	snprintf(want, sizeof want, "%s/20-b.ini", dropins);
	assert_string_equal(src.files[2], want);
	snprintf(want, sizeof want, "%s/Z.ini", dropins);
	assert_string_equal(src.files[3], want);
	snprintf(want, sizeof want, "%s/a.ini", dropins);
	assert_string_equal(src.files[4], want);
	assert_string_equal(src.key[CONFIG_MAX_CONNECTIONS].file, want);
	assert_int_equal(src.key[CONFIG_MAX_CONNECTIONS].line, 2);
	assert_string_equal(src.key[CONFIG_MAX_STREAMS_PER_CONNECTION].file, main_ini);
	assert_int_equal(src.key[CONFIG_MAX_STREAMS_PER_CONNECTION].line, 3);
	assert_null(src.key[CONFIG_SOCKET_PATH].file);
	assert_null(src.key[CONFIG_SOCKET_PATH].flag);

	/* --print-config says where each value comes from, a flag over the
	 * files, and reads back to the same config. */
	assert_int_equal(config_apply_flag(&c, "--socket", "/tmp/s.sock", err, sizeof err), 0);
	config_sources_flag(&src, "--socket");
	config_sources_flag(&src, "--frobnicate");
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(config_dump(&c, &src, f), 0);
	text = read_all(f);
	fclose(f);
	snprintf(want, sizeof want, "; Files read, each over those before:\n;   %s\n;   %s/10-a.ini\n",
		 main_ini, dropins);
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof want, "\nmax_connections = 48                     ; %s/a.ini:2\n",
		 dropins);
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "\npath = /tmp/s.sock                       ; --socket\n"));
	assert_non_null(strstr(text, "\nroot = /srv/animd                        ; default\n"));
	assert_non_null(strstr(text, "\ngroup =                                  ; default\n"));
	{
		struct config back;

		config_defaults(&back);
		if (config_load_buffer(&back, "dump", text, strlen(text), err, sizeof err) != 0)
			fail_msg("%s\n%s", err, text);
		assert_int_equal(config_diff(&c, &back), 0);
	}
	free(text);

	/* Loading again replaces what src held. */
	remove_tree(dropins);
	config_defaults(&c);
	assert_int_equal(config_load(&c, main_ini, false, &src, err, sizeof err), 0);
	assert_int_equal(src.nfiles, 1);
	assert_int_equal(c.max_connections, 9);
	assert_null(src.key[CONFIG_SOCKET_PATH].flag);

	/* No file read at all. */
	config_sources_free(&src);
	assert_int_equal(src.nfiles, 0);
	config_defaults(&c);
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(config_dump(&c, &src, f), 0);
	text = read_all(f);
	fclose(f);
	assert_non_null(strstr(text, "; No configuration file was read.\n"));
	free(text);
	config_sources_free(&src);
	config_sources_free(NULL);
	remove_tree(dir);
}

/* An error in a drop-in names that file and line, and nothing is applied;
 * a missing main file is an error only when it was asked for. */
static void test_dropins_errors(void **state)
{
	char dir[] = "/tmp/animd-test-dropins-XXXXXX";
	char main_ini[128], dropins[160], want[700], err[600] = "";
	struct config_sources src;
	struct config c;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(main_ini, sizeof main_ini, "%s/animd.ini", dir);
	snprintf(dropins, sizeof dropins, "%s/animd.ini.d", dir);
	assert_int_equal(mkdir(dropins, 0755), 0);
	write_file(dropins, "10-a.ini", "[limits]\nmax_connections = 16\n");

	/* Without the main file: the drop-ins alone when it is optional (no
	 * -c), an error when it was named. */
	config_sources_init(&src);
	config_defaults(&c);
	assert_int_equal(config_load(&c, main_ini, true, &src, err, sizeof err), 0);
	assert_int_equal(c.max_connections, 16);
	assert_int_equal(src.nfiles, 1);
	config_defaults(&c);
	assert_int_equal(config_load(&c, main_ini, false, &src, err, sizeof err), -ENOENT);
	snprintf(want, sizeof want, "%s: cannot open: %s", main_ini, strerror(ENOENT));
	assert_string_equal(err, want);
	assert_int_equal(c.max_connections, 64);
	assert_int_equal(src.nfiles, 1);        /* kept from the load that worked */

	write_file(dir, "animd.ini", "[limits]\nmax_streams_per_connection = 4\n");
	write_file(dropins, "20-b.ini", "[limits]\n; typo\nmax_conections = 3\n");
	assert_int_equal(config_load(&c, main_ini, false, &src, err, sizeof err), -EINVAL);
	snprintf(want, sizeof want,
		 "%s/20-b.ini:3: unknown key \"max_conections\" in [limits]: did you mean "
		 "\"max_connections\"?", dropins);
	assert_string_equal(err, want);
	assert_int_equal(c.max_connections, 64);        /* all or nothing */
	assert_int_equal(c.max_streams_per_connection, 16);

	/* A key set twice within one drop-in is still refused. */
	write_file(dropins, "20-b.ini", "[limits]\nmax_connections = 3\nmax_connections = 4\n");
	assert_int_equal(config_load(&c, main_ini, false, NULL, err, sizeof err), -EINVAL);
	snprintf(want, sizeof want,
		 "%s/20-b.ini:3: duplicate key \"max_connections\" in [limits] (first set at line 2)",
		 dropins);
	assert_string_equal(err, want);

	/* The rules between keys apply to the result of all the files. */
	write_file(dropins, "20-b.ini", "[limits]\nmax_message_bytes = 64M\n");
	assert_int_equal(config_load(&c, main_ini, false, NULL, err, sizeof err), -EINVAL);
	snprintf(want, sizeof want,
		 "%s and its drop-ins: limits.max_output_bytes_per_connection (32MiB) must be at "
		 "least limits.max_message_bytes (64MiB)", main_ini);
	assert_string_equal(err, want);
	write_file(dropins, "30-c.ini", "[limits]\nmax_output_bytes_per_connection = 64M\n");
	assert_int_equal(config_load(&c, main_ini, false, NULL, err, sizeof err), 0);
	assert_int_equal(c.max_message_bytes, 64u << 20);

	/* A drop-in that is not a regular file. */
	snprintf(want, sizeof want, "%s/40-d.ini", dropins);
	assert_int_equal(mkdir(want, 0755), 0);
	assert_int_equal(config_load(&c, main_ini, false, NULL, err, sizeof err), -EINVAL);
	snprintf(want, sizeof want, "%s/40-d.ini: not a regular file", dropins);
	assert_string_equal(err, want);
	snprintf(want, sizeof want, "%s/40-d.ini", dropins);
	assert_int_equal(rmdir(want), 0);

	/* A name that could not be shown on one line. */
	write_file(dropins, "bad\nname.ini", "");
	assert_int_equal(config_load(&c, main_ini, false, NULL, err, sizeof err), -EINVAL);
	snprintf(want, sizeof want,
		 "%s: the drop-in \"bad\\x0aname.ini\" has a control character in its name; "
		 "rename it", dropins);
	assert_string_equal(err, want);
	remove_tree(dropins);

	/* The folder's place taken by a file. */
	write_file(dir, "animd.ini.d", "");
	assert_int_equal(config_load(&c, main_ini, false, NULL, err, sizeof err), -ENOTDIR);
	snprintf(want, sizeof want, "%s: cannot read the drop-in folder: %s", dropins,
		 strerror(ENOTDIR));
	assert_string_equal(err, want);
	unlink(dropins);

	/* Too many. */
	assert_int_equal(mkdir(dropins, 0755), 0);
	for (int i = 0; i <= CONFIG_DROPINS_MAX; i++) {
		char name[32];

		snprintf(name, sizeof name, "%03d.ini", i);
		write_file(dropins, name, "");
	}
	assert_int_equal(config_load(&c, main_ini, false, NULL, err, sizeof err), -E2BIG);
	snprintf(want, sizeof want, "%s: more than %d drop-ins", dropins, CONFIG_DROPINS_MAX);
	assert_string_equal(err, want);
	config_sources_free(&src);
	remove_tree(dir);
}

/* Defaults, then the file, then flags; a flag may be relative. */
static void test_flags_override(void **state)
{
	struct config c;
	char err[512] = "";

	(void)state;
	config_defaults(&c);
	if (config_load_file(&c, SHIPPED, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(config_apply_flag(&c, "--assets", "build/demo", err, sizeof err), 0);
	assert_int_equal(config_apply_flag(&c, "--socket", "/tmp/a.sock", err, sizeof err), 0);
	assert_int_equal(config_apply_flag(&c, "--log-level", "debug", err, sizeof err), 0);
	assert_int_equal(config_apply_flag(&c, "--log-format", "journal", err, sizeof err), 0);
	assert_string_equal(c.asset_root, "build/demo");
	assert_string_equal(c.socket_path, "/tmp/a.sock");
	assert_int_equal(c.log_level, LOG_LEVEL_DEBUG);
	assert_int_equal(c.log_format, LOG_FORMAT_JOURNAL);
	assert_int_equal(config_apply_flag(&c, "--log-format", "syslog", err, sizeof err), -EINVAL);
	assert_string_equal(err, "--log-format must be one of auto, journal, plain, not "
				 "\"syslog\"");
	assert_int_equal(c.log_format, LOG_FORMAT_JOURNAL);

	assert_int_equal(config_apply_flag(&c, "--log-level", "loud", err, sizeof err), -EINVAL);
	assert_string_equal(err, "--log-level must be one of error, warning, info, debug, not "
				 "\"loud\"");
	assert_int_equal(c.log_level, LOG_LEVEL_DEBUG);
	assert_int_equal(config_apply_flag(&c, "--assets", "", err, sizeof err), -EINVAL);
	assert_string_equal(err, "--assets has no value");
	assert_int_equal(config_apply_flag(&c, "--assets", NULL, err, sizeof err), -EINVAL);
	assert_string_equal(err, "--assets needs a value");
	assert_int_equal(config_apply_flag(&c, "--frobnicate", "1", err, sizeof err), -EINVAL);
	assert_string_equal(err, "unknown flag \"--frobnicate\"");
	assert_string_equal(c.asset_root, "build/demo");

	assert_int_equal(config_set(&c, "limits.max_connections", "12", err, sizeof err), 0);
	assert_int_equal(c.max_connections, 12);
	assert_int_equal(config_set(&c, "limits.max_connections", "x", err, sizeof err), -EINVAL);
	assert_string_equal(err, "limits.max_connections must be an integer from 1 to 65536, not "
				 "\"x\"");
	assert_int_equal(config_set(&c, "limits", "1", err, sizeof err), -EINVAL);
	assert_string_equal(err, "unknown setting \"limits\" (expected section.key, e.g. "
				 "limits.max_connections)");

	assert_int_equal(config_set(&c, "limits.max_message_bytes", "64M", err, sizeof err), 0);
	assert_int_equal(config_validate(&c, err, sizeof err), -EINVAL);
	assert_string_equal(err, "limits.max_output_bytes_per_connection (32MiB) must be at least "
				 "limits.max_message_bytes (64MiB)");
}

static void test_live_classification(void **state)
{
	const uint32_t live = CONFIG_BIT(CONFIG_ASSETS_MAX_MEMORY) |
			      CONFIG_BIT(CONFIG_PUBLISH_RATE_HZ) |
			      CONFIG_BIT(CONFIG_STREAMS_MAX_TOTAL_BYTES) |
			      CONFIG_BIT(CONFIG_PLAYBACK_FADE_MS) |
			      CONFIG_BIT(CONFIG_MAX_LAYERS_PER_INSTANCE) |
			      CONFIG_BIT(CONFIG_MAX_MESSAGE_BYTES) |
			      CONFIG_BIT(CONFIG_MAX_CONNECTIONS) |
			      CONFIG_BIT(CONFIG_MAX_INSTANCES_PER_CONNECTION) |
			      CONFIG_BIT(CONFIG_MAX_STREAMS_PER_CONNECTION) |
			      CONFIG_BIT(CONFIG_MAX_ASSET_BYTES) |
			      CONFIG_BIT(CONFIG_MAX_OUTPUT_BYTES_PER_CONNECTION) |
			      CONFIG_BIT(CONFIG_REQUEST_TIMEOUT_MS) |
			      CONFIG_BIT(CONFIG_IDLE_TIMEOUT_S) |
			      CONFIG_BIT(CONFIG_RELOAD_QUIET_MS) |
			      CONFIG_BIT(CONFIG_RESCAN_INTERVAL_S) | CONFIG_BIT(CONFIG_LOG_LEVEL) |
			      CONFIG_BIT(CONFIG_LOG_FORMAT) | CONFIG_BIT(CONFIG_CONTROL_OPERATORS);
	struct config cur, fresh, def;
	uint32_t restart = 0, applied;

	(void)state;
	for (int f = 0; f < CONFIG_FIELD_COUNT; f++)
		assert_int_equal(config_field_is_live((enum config_field)f),
				 (live & CONFIG_BIT(f)) != 0);
	assert_false(config_field_is_live(CONFIG_FIELD_COUNT));

	config_defaults(&cur);
	assert_int_equal(config_diff(&cur, &cur), 0);
	perturbed(&fresh);
	applied = config_apply_live(&cur, &fresh, &restart);
	assert_int_equal(applied, live);
	assert_int_equal(restart, CONFIG_ALL_FIELDS & ~live);
	/* Live fields took the new values, the others kept theirs. */
	assert_int_equal(config_diff(&cur, &fresh), restart);
	config_defaults(&def);
	assert_int_equal(config_diff(&cur, &def), live);
	assert_int_equal(cur.max_connections, 3);
	assert_int_equal(cur.log_level, LOG_LEVEL_DEBUG);
	assert_string_equal(cur.asset_root, "/srv/animd");
	assert_string_equal(cur.socket_path, "/run/animd/animd.sock");

	/* Applying again changes nothing and still reports the restart. */
	assert_int_equal(config_apply_live(&cur, &fresh, &restart), 0);
	assert_int_equal(restart, CONFIG_ALL_FIELDS & ~live);
	assert_int_equal(config_apply_live(&cur, &fresh, NULL), 0);
}


static void test_log_diff(void **state)
{
	struct config cur, fresh;
	FILE *cap = tmpfile();
	int saved;
	char *out;

	(void)state;
	assert_non_null(cap);
	config_defaults(&cur);
	fresh = cur;
	fresh.max_connections = 32;
	snprintf(fresh.socket_path, sizeof fresh.socket_path, "/tmp/new.sock");

	log_init(LOG_LEVEL_INFO, LOG_FORMAT_JOURNAL);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(cap), STDERR_FILENO);
	config_log_diff(&cur, &fresh);
	dup2(saved, STDERR_FILENO);
	close(saved);

	out = read_all(cap);
	assert_string_equal(out,
			    "<4>config: socket.path changed to \"/tmp/new.sock\" but needs a "
			    "restart; still using \"/run/animd/animd.sock\"\n"
			    "<6>config: limits.max_connections: 64 -> 32\n");
	free(out);
	fclose(cap);
}

/* --print-config writes what reads back to the same config. */
static void test_dump_round_trip(void **state)
{
	struct config c, back, def;
	char err[512] = "";
	FILE *f;
	char *text;

	(void)state;
	for (int round = 0; round < 2; round++) {
		if (round == 0)
			config_defaults(&c);
		else
			perturbed(&c);
		f = tmpfile();
		assert_non_null(f);
		assert_int_equal(config_dump(&c, NULL, f), 0);
		text = read_all(f);
		fclose(f);
		perturbed(&back);
		if (round == 1)
			config_defaults(&back);
		if (config_load_buffer(&back, "dump", text, strlen(text), err, sizeof err) != 0)
			fail_msg("%s\n%s", err, text);
		assert_int_equal(config_diff(&c, &back), 0);
		if (round == 0) {
			assert_non_null(strstr(text, "\n[socket]\npath = /run/animd/animd.sock\n"
						     "mode = 0660\ngroup =\n"));
			assert_non_null(strstr(text, "max_message_bytes = 1MiB\n"));
			assert_non_null(strstr(text, "[xfile]\nticks_per_second = 4800\n"));
		}
		free(text);
	}
	config_defaults(&def);
	{
		char buf[32];

		assert_string_equal(config_field_format(&def, CONFIG_SOCKET_MODE, buf, sizeof buf),
				    "0660");
		assert_string_equal(config_field_format(&def, CONFIG_RELOAD_WATCH, buf, sizeof buf),
				    "yes");
		def.max_asset_bytes = 1000;
		assert_string_equal(config_field_format(&def, CONFIG_MAX_ASSET_BYTES, buf,
							sizeof buf),
				    "1000");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_shipped_file_equals_defaults),
		cmocka_unit_test(test_field_table),
		cmocka_unit_test(test_syntax_accepted),
		cmocka_unit_test(test_error_unknown),
		cmocka_unit_test(test_error_did_you_mean),
		cmocka_unit_test(test_error_duplicates),
		cmocka_unit_test(test_error_syntax),
		cmocka_unit_test(test_error_values),
		cmocka_unit_test(test_error_empty_and_quoted),
		cmocka_unit_test(test_error_paths),
		cmocka_unit_test(test_error_cross_field),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_dropins_order_and_sources),
		cmocka_unit_test(test_dropins_errors),
		cmocka_unit_test(test_flags_override),
		cmocka_unit_test(test_live_classification),
		cmocka_unit_test(test_log_diff),
		cmocka_unit_test(test_dump_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
