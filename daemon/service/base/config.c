/*
 * config.c - defaults, the ini file and its drop-ins, flags and live
 * reload; see config.h.
 *
 * One table (config_keys) describes every key: its section and name, its
 * type, where it lives in struct config, its range and whether SIGHUP may
 * apply it.  Parsing, flags, printing, diffing and reloading all walk that
 * table, so a new key is one line there plus its struct field.
 *
 * inih is used through ini_parse_stream() with our own line reader, for
 * three reasons: the handler of Debian's build does not receive the line
 * number, and the reader counts lines exactly; the reader refuses what inih
 * would accept silently (NUL bytes, over-long lines that inih would split
 * into two, unknown section headers, which never reach the handler); and it strips leading blanks, which turns inih's multi-line
 * continuation (an indented line extends the previous value) into a plain
 * syntax error instead of a surprising value.
 */
#include "daemon/service/base/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "daemon/service/base/config_dropins.h"
#include "daemon/service/base/strdist.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

enum config_type {
	CONFIG_TYPE_PATH,       /* char[]: absolute in the file, no control bytes */
	CONFIG_TYPE_GROUP,      /* char[]: group name or number; may be empty */
	CONFIG_TYPE_MODE,       /* uint32_t: octal permission bits */
	CONFIG_TYPE_COUNT,      /* uint32_t: decimal */
	CONFIG_TYPE_BYTES,      /* size_t: decimal with optional K/M/G suffix */
	CONFIG_TYPE_BYTES_AUTO, /* size_t: the same, or "auto" (stored as 0) */
	CONFIG_TYPE_BOOL,       /* bool: yes/no */
	CONFIG_TYPE_LEVEL,      /* enum log_level */
	CONFIG_TYPE_LENGTH,     /* double: a decimal number > 0, up to max */
	CONFIG_TYPE_LOG_FORMAT, /* enum log_format */
	CONFIG_TYPE_OPERATORS,  /* enum config_operators */
};

struct config_key {
	const char *section;
	const char *name;
	const char *dotted;     /* "section.name", for messages */
	enum config_type type;
	size_t offset;          /* of the member in struct config */
	size_t size;            /* of the member (the buffer size for strings) */
	uint64_t min, max;      /* for numbers */
	bool live;              /* SIGHUP applies it */
	const char *why;        /* appended to an out-of-range message: why the range */
};

#define CONFIG_KEY(sec, key, type, member, lo, hi, live)                                       \
	{ sec, key, sec "." key, type, offsetof(struct config, member),                                     \
	  sizeof(((struct config *)0)->member), lo, hi, live, NULL }
/* The same with the reason for its range, for a bound that is not obvious. */
#define CONFIG_KEY_WHY(sec, key, type, member, lo, hi, live, why)                              \
	{ sec, key, sec "." key, type, offsetof(struct config, member),                        \
	  sizeof(((struct config *)0)->member), lo, hi, live, why }

static const struct config_key config_keys[CONFIG_FIELD_COUNT] = {
	[CONFIG_ASSET_ROOT] = CONFIG_KEY("assets", "root", CONFIG_TYPE_PATH, asset_root, 0, 0,
					 false),
	[CONFIG_ASSETS_MAX_MEMORY] = CONFIG_KEY("assets", "max_memory", CONFIG_TYPE_BYTES,
						assets_max_memory, 0, 1024 * GIB, true),
	[CONFIG_SOCKET_PATH] = CONFIG_KEY("socket", "path", CONFIG_TYPE_PATH, socket_path, 0, 0,
					  false),
	[CONFIG_SOCKET_MODE] = CONFIG_KEY("socket", "mode", CONFIG_TYPE_MODE, socket_mode, 0,
					  0777, false),
	[CONFIG_SOCKET_GROUP] = CONFIG_KEY("socket", "group", CONFIG_TYPE_GROUP, socket_group, 0,
					   0, false),
	[CONFIG_PUBLISH_RATE_HZ] = CONFIG_KEY("streams", "publish_rate_hz", CONFIG_TYPE_COUNT,
					      publish_rate_hz, 1, 1000, true),
	[CONFIG_TICK_THREADS] = CONFIG_KEY("streams", "tick_threads", CONFIG_TYPE_COUNT,
					   tick_threads, 0, 64, false),
	[CONFIG_STREAMS_MAX_TOTAL_BYTES] = CONFIG_KEY("streams", "max_total_bytes",
						      CONFIG_TYPE_BYTES_AUTO,
						      streams_max_total_bytes, MIB, 1024 * GIB,
						      true),
	[CONFIG_PLAYBACK_FADE_MS] = CONFIG_KEY("playback", "default_fade_ms", CONFIG_TYPE_COUNT,
					      default_fade_ms, 0, 60000, true),
	[CONFIG_MAX_MESSAGE_BYTES] = CONFIG_KEY("limits", "max_message_bytes", CONFIG_TYPE_BYTES,
						max_message_bytes, KIB, 64 * MIB, true),
	[CONFIG_MAX_CONNECTIONS] = CONFIG_KEY("limits", "max_connections", CONFIG_TYPE_COUNT,
					      max_connections, 1, 65536, true),
	[CONFIG_MAX_INSTANCES_PER_CONNECTION] = CONFIG_KEY("limits", "max_instances_per_connection",
							   CONFIG_TYPE_COUNT,
							   max_instances_per_connection, 1,
							   1048576, true),
	[CONFIG_MAX_LAYERS_PER_INSTANCE] = CONFIG_KEY("limits", "max_layers_per_instance",
						      CONFIG_TYPE_COUNT, max_layers_per_instance,
						      1, 64, true),
	[CONFIG_MAX_STREAMS_PER_CONNECTION] = CONFIG_KEY("limits", "max_streams_per_connection",
							 CONFIG_TYPE_COUNT,
							 max_streams_per_connection, 1, 1024,
							 true),
	[CONFIG_MAX_ASSET_BYTES] = CONFIG_KEY("limits", "max_asset_bytes", CONFIG_TYPE_BYTES,
					      max_asset_bytes, KIB, 16 * GIB, true),
	[CONFIG_MAX_OUTPUT_BYTES_PER_CONNECTION] = CONFIG_KEY_WHY(
		"limits", "max_output_bytes_per_connection", CONFIG_TYPE_BYTES,
		max_output_bytes_per_connection, CONFIG_MIN_OUTPUT_BYTES_PER_CONNECTION, GIB, true,
		"it must hold the output high mark (1MiB) plus the largest reply (16MiB), so "
		"that no reply cuts off a client that reads"),
	[CONFIG_REQUEST_TIMEOUT_MS] = CONFIG_KEY("limits", "request_timeout_ms", CONFIG_TYPE_COUNT,
						 request_timeout_ms, 100, 600000, true),
	[CONFIG_IDLE_TIMEOUT_S] = CONFIG_KEY("limits", "idle_timeout_s", CONFIG_TYPE_COUNT,
					     idle_timeout_s, 0, 86400, true),
	[CONFIG_RELOAD_WATCH] = CONFIG_KEY("reload", "watch", CONFIG_TYPE_BOOL, reload_watch, 0, 0,
					   false),
	[CONFIG_RELOAD_QUIET_MS] = CONFIG_KEY("reload", "quiet_ms", CONFIG_TYPE_COUNT,
					      reload_quiet_ms, 0, 60000, true),
	[CONFIG_RESCAN_INTERVAL_S] = CONFIG_KEY("reload", "rescan_interval_s", CONFIG_TYPE_COUNT,
						rescan_interval_s, 0, 86400, true),
	[CONFIG_LOG_LEVEL] = CONFIG_KEY("log", "level", CONFIG_TYPE_LEVEL, log_level, 0, 0, true),
	[CONFIG_LOG_FORMAT] = CONFIG_KEY("log", "format", CONFIG_TYPE_LOG_FORMAT, log_format, 0, 0,
					 true),
	[CONFIG_X_TICKS_PER_SECOND] = CONFIG_KEY("xfile", "ticks_per_second", CONFIG_TYPE_COUNT,
						 x_ticks_per_second, 1, 1000000, false),
	[CONFIG_CLIPS_COMPRESS] = CONFIG_KEY("clips", "compress", CONFIG_TYPE_BOOL, clips_compress,
					     0, 0, false),
	[CONFIG_CLIPS_PRECISION] = CONFIG_KEY("clips", "precision", CONFIG_TYPE_LENGTH,
					      clips_precision, 0, 1000000, false),
	[CONFIG_CLIPS_SHELL_DISTANCE] = CONFIG_KEY("clips", "shell_distance", CONFIG_TYPE_LENGTH,
						   clips_shell_distance, 0, 1000000, false),
	[CONFIG_CONTROL_OPERATORS] = CONFIG_KEY("control", "operators", CONFIG_TYPE_OPERATORS,
						operators, 0, 0, true),
};

/* control.operators' words, indexed by enum config_operators. */
static const char *const config_operators_names[] = {
	[CONFIG_OPERATORS_PRIVILEGED] = "privileged",
	[CONFIG_OPERATORS_EVERYONE] = "everyone",
	[CONFIG_OPERATORS_NONE] = "none",
};

/* In file order; every config_keys[].section is one of these. */
static const char *const config_sections[] = {
	"assets", "socket", "streams", "playback", "limits", "reload", "log", "xfile", "clips",
	"control",
};
#define CONFIG_SECTION_COUNT (sizeof config_sections / sizeof config_sections[0])
#define CONFIG_SECTION_LIST                                                                    \
	"assets, socket, streams, playback, limits, reload, log, xfile, clips, control"

/* Quoted values in messages: escaped like a log line (no newline reaches a
 * log), with '"' as \", and cut, so a 4 KiB garbage value gives a readable
 * error. */
#define CONFIG_QUOTE_TEXT 64
#define CONFIG_QUOTE_MAX (CONFIG_QUOTE_TEXT + 8)

static const char *config_quote(char buf[CONFIG_QUOTE_MAX], const char *s)
{
	size_t n = 1, used;
	bool cut = false;

	buf[0] = '"';
	while (*s != '\0') {
		size_t chunk = strcspn(s, "\"");

		used = n - 1;
		n += log_escape(buf + n, CONFIG_QUOTE_TEXT - used + 1, s, chunk, &cut);
		s += chunk;
		if (cut)
			break;
		if (*s == '"') {
			if (n - 1 + 2 > CONFIG_QUOTE_TEXT) {
				cut = true;
				break;
			}
			buf[n++] = '\\';
			buf[n++] = '"';
			s++;
		}
	}
	if (cut) {
		memcpy(buf + n, "\xe2\x80\xa6", 3);
		n += 3;
	}
	buf[n++] = '"';
	buf[n] = '\0';
	return buf;
}

static void config_msg(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void config_msg(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void config_defaults(struct config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	snprintf(cfg->asset_root, sizeof cfg->asset_root, "%s", CONFIG_DEFAULT_ASSET_ROOT);
	snprintf(cfg->socket_path, sizeof cfg->socket_path, "%s", CONFIG_DEFAULT_SOCKET_PATH);
	cfg->assets_max_memory = CONFIG_DEFAULT_ASSETS_MAX_MEMORY;
	cfg->socket_mode = CONFIG_DEFAULT_SOCKET_MODE;
	cfg->socket_group[0] = '\0';
	cfg->publish_rate_hz = CONFIG_DEFAULT_PUBLISH_RATE_HZ;
	cfg->tick_threads = CONFIG_DEFAULT_TICK_THREADS;
	cfg->streams_max_total_bytes = CONFIG_DEFAULT_STREAMS_MAX_TOTAL_BYTES;
	cfg->max_message_bytes = CONFIG_DEFAULT_MAX_MESSAGE_BYTES;
	cfg->max_connections = CONFIG_DEFAULT_MAX_CONNECTIONS;
	cfg->max_instances_per_connection = CONFIG_DEFAULT_MAX_INSTANCES_PER_CONNECTION;
	cfg->max_layers_per_instance = CONFIG_DEFAULT_MAX_LAYERS_PER_INSTANCE;
	cfg->default_fade_ms = CONFIG_DEFAULT_PLAYBACK_FADE_MS;
	cfg->max_streams_per_connection = CONFIG_DEFAULT_MAX_STREAMS_PER_CONNECTION;
	cfg->max_asset_bytes = CONFIG_DEFAULT_MAX_ASSET_BYTES;
	cfg->max_output_bytes_per_connection = CONFIG_DEFAULT_MAX_OUTPUT_BYTES_PER_CONNECTION;
	cfg->request_timeout_ms = CONFIG_DEFAULT_REQUEST_TIMEOUT_MS;
	cfg->idle_timeout_s = CONFIG_DEFAULT_IDLE_TIMEOUT_S;
	cfg->reload_watch = CONFIG_DEFAULT_RELOAD_WATCH;
	cfg->reload_quiet_ms = CONFIG_DEFAULT_RELOAD_QUIET_MS;
	cfg->rescan_interval_s = CONFIG_DEFAULT_RESCAN_INTERVAL_S;
	cfg->log_level = CONFIG_DEFAULT_LOG_LEVEL;
	cfg->log_format = CONFIG_DEFAULT_LOG_FORMAT;
	cfg->x_ticks_per_second = CONFIG_DEFAULT_X_TICKS_PER_SECOND;
	cfg->clips_compress = true;
	cfg->clips_precision = CONFIG_DEFAULT_CLIP_PRECISION;
	cfg->clips_shell_distance = CONFIG_DEFAULT_CLIP_SHELL_DISTANCE;
	cfg->operators = CONFIG_DEFAULT_CONTROL_OPERATORS;
}

void config_free(struct config *cfg)
{
	(void)cfg;
}

/* ---- values ------------------------------------------------------------ */

/* Decimal digits only: no sign, no blanks, no hex.  *end after the digits. */
static int config_parse_u64(const char *s, uint64_t *out, const char **end)
{
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	*end = s;
	return 0;
}

static int config_parse_bytes(const char *s, uint64_t *out)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {
		{ "", 1 },        { "K", KIB },   { "KiB", KIB }, { "M", MIB },
		{ "MiB", MIB },   { "G", GIB },   { "GiB", GIB },
	};
	const char *end;
	uint64_t v;

	if (config_parse_u64(s, &v, &end) < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(end, units[i].suffix) != 0)
			continue;
		if (v > UINT64_MAX / units[i].mult)
			return -ERANGE;
		*out = v * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

static void config_format_bytes(uint64_t v, char *buf, size_t len)
{
	if (v != 0 && v % GIB == 0)
		snprintf(buf, len, "%lluGiB", (unsigned long long)(v / GIB));
	else if (v != 0 && v % MIB == 0)
		snprintf(buf, len, "%lluMiB", (unsigned long long)(v / MIB));
	else if (v != 0 && v % KIB == 0)
		snprintf(buf, len, "%lluKiB", (unsigned long long)(v / KIB));
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

static bool config_has_control(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* A POSIX-portable group name (plus the '$' of machine accounts) or a
 * numeric gid.  Whether it exists is checked when the socket is made. */
static bool config_group_ok(const char *s)
{
	size_t i = 0;
	bool digits = true;

	for (const char *c = s; *c != '\0'; c++)
		if (*c < '0' || *c > '9')
			digits = false;
	if (digits)
		return true;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (i = 1; s[i] != '\0'; i++) {
		char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '_' || c == '.' || c == '-')
			continue;
		if (c == '$' && s[i + 1] == '\0')
			continue;
		return false;
	}
	return true;
}

static void *config_member(struct config *cfg, const struct config_key *k)
{
	return (char *)cfg + k->offset;
}

static const void *config_cmember(const struct config *cfg, const struct config_key *k)
{
	return (const char *)cfg + k->offset;
}

/*
 * Check value for key k and store it in cfg; nothing is stored on failure.
 * label names the setting in the message ("socket.mode" or "--socket");
 * from_file adds the rules that only make sense in a file (absolute paths,
 * no quotes).  Returns 0 or -EINVAL with msg.
 */
static int config_store(struct config *cfg, const struct config_key *k, const char *label,
			const char *value, bool from_file, char *msg, size_t msglen)
{
	char q[CONFIG_QUOTE_MAX];
	uint64_t v = 0;
	const char *end;
	size_t len;

	if (value == NULL) {
		config_msg(msg, msglen, "%s needs a value", label);
		return -EINVAL;
	}
	len = strlen(value);
	if (len == 0 && k->type != CONFIG_TYPE_GROUP) {
		config_msg(msg, msglen, "%s has no value", label);
		return -EINVAL;
	}
	if (from_file && (value[0] == '"' || value[0] == '\'')) {
		config_msg(msg, msglen, "%s is written without quotes, not %s", label,
			   config_quote(q, value));
		return -EINVAL;
	}

	switch (k->type) {
	case CONFIG_TYPE_PATH:
		if (len >= k->size) {
			config_msg(msg, msglen, "%s is longer than %zu bytes%s", label, k->size - 1,
				   k->size == CONFIG_SOCKET_PATH_MAX ?
					   ", the limit of a Unix socket address" :
					   "");
			return -EINVAL;
		}
		if (config_has_control(value)) {
			config_msg(msg, msglen, "%s must not contain control characters: %s",
				   label, config_quote(q, value));
			return -EINVAL;
		}
		if (from_file && value[0] != '/') {
			config_msg(msg, msglen, "%s must be an absolute path, not %s", label,
				   config_quote(q, value));
			return -EINVAL;
		}
		memcpy(config_member(cfg, k), value, len + 1);
		return 0;

	case CONFIG_TYPE_GROUP:
		if (len >= k->size || !config_group_ok(value)) {
			config_msg(msg, msglen, "%s must be a group name or number, not %s", label,
				   config_quote(q, value));
			return -EINVAL;
		}
		memcpy(config_member(cfg, k), value, len + 1);
		return 0;

	case CONFIG_TYPE_MODE:
		if (len < 3 || len > 4 || strspn(value, "01234567") != len ||
		    strtoul(value, NULL, 8) > k->max) {
			config_msg(msg, msglen, "%s must be an octal mode like 0660, not %s", label,
				   config_quote(q, value));
			return -EINVAL;
		}
		*(uint32_t *)config_member(cfg, k) = (uint32_t)strtoul(value, NULL, 8);
		return 0;

	case CONFIG_TYPE_COUNT:
		if (config_parse_u64(value, &v, &end) < 0 || *end != '\0' || v < k->min ||
		    v > k->max) {
			config_msg(msg, msglen, "%s must be an integer from %llu to %llu, not %s",
				   label, (unsigned long long)k->min, (unsigned long long)k->max,
				   config_quote(q, value));
			return -EINVAL;
		}
		*(uint32_t *)config_member(cfg, k) = (uint32_t)v;
		return 0;

	case CONFIG_TYPE_BYTES:
	case CONFIG_TYPE_BYTES_AUTO:
		if (k->type == CONFIG_TYPE_BYTES_AUTO && strcmp(value, "auto") == 0) {
			*(size_t *)config_member(cfg, k) = 0;
			return 0;
		}
		if (config_parse_bytes(value, &v) < 0 || v < k->min || v > k->max ||
		    v > SIZE_MAX) {
			char lo[32], hi[32];

			config_format_bytes(k->min, lo, sizeof lo);
			config_format_bytes(k->max, hi, sizeof hi);
			config_msg(msg, msglen,
				   "%s must be %sa size from %s to %s (bytes, or with a K, M or G "
				   "suffix), not %s%s%s",
				   label, k->type == CONFIG_TYPE_BYTES_AUTO ? "auto or " : "", lo,
				   hi, config_quote(q, value), k->why ? ": " : "",
				   k->why ? k->why : "");
			return -EINVAL;
		}
		*(size_t *)config_member(cfg, k) = (size_t)v;
		return 0;

	case CONFIG_TYPE_BOOL: {
		static const char *const yes[] = { "yes", "true", "on" };
		static const char *const no[] = { "no", "false", "off" };

		for (size_t i = 0; i < 3; i++) {
			if (strcmp(value, yes[i]) == 0 || strcmp(value, no[i]) == 0) {
				*(bool *)config_member(cfg, k) = strcmp(value, yes[i]) == 0;
				return 0;
			}
		}
		config_msg(msg, msglen, "%s must be yes or no, not %s", label,
			   config_quote(q, value));
		return -EINVAL;
	}

	case CONFIG_TYPE_LEVEL: {
		int level = log_level_parse(value);

		if (level < 0) {
			config_msg(msg, msglen,
				   "%s must be one of error, warning, info, debug, not %s", label,
				   config_quote(q, value));
			return -EINVAL;
		}
		*(enum log_level *)config_member(cfg, k) = (enum log_level)level;
		return 0;
	}

	case CONFIG_TYPE_LENGTH: {
		char *stop;
		double d;

		/* auto: from each rig's size (kept as 0). */
		if (strcmp(value, "auto") == 0) {
			*(double *)config_member(cfg, k) = 0.0;
			return 0;
		}
		d = strtod(value, &stop);
		if (*stop != '\0' || !(d > 0.0) || d > (double)k->max || value[0] == ' ') {
			config_msg(msg, msglen, "%s must be auto or a number above 0 and up to "
				   "%llu, not %s", label, (unsigned long long)k->max,
				   config_quote(q, value));
			return -EINVAL;
		}
		*(double *)config_member(cfg, k) = d;
		return 0;
	}
	case CONFIG_TYPE_LOG_FORMAT: {
		int format = log_format_parse(value);

		if (format < 0) {
			config_msg(msg, msglen, "%s must be one of auto, journal, plain, not %s",
				   label, config_quote(q, value));
			return -EINVAL;
		}
		*(enum log_format *)config_member(cfg, k) = (enum log_format)format;
		return 0;
	}
	case CONFIG_TYPE_OPERATORS:
		for (size_t i = 0; i < sizeof config_operators_names / sizeof config_operators_names[0];
		     i++) {
			if (strcmp(value, config_operators_names[i]) == 0) {
				*(enum config_operators *)config_member(cfg, k) =
					(enum config_operators)i;
				return 0;
			}
		}
		config_msg(msg, msglen, "%s must be one of privileged, everyone, none, not %s", label,
			   config_quote(q, value));
		return -EINVAL;
	}
	config_msg(msg, msglen, "%s: internal error: unknown type", label);
	return -EINVAL;
}

static const struct config_key *config_find_key(const char *section, const char *name)
{
	for (size_t i = 0; i < CONFIG_FIELD_COUNT; i++)
		if (strcmp(config_keys[i].section, section) == 0 &&
		    strcmp(config_keys[i].name, name) == 0)
			return &config_keys[i];
	return NULL;
}

static int config_section_index(const char *name, size_t len)
{
	for (size_t i = 0; i < CONFIG_SECTION_COUNT; i++)
		if (strlen(config_sections[i]) == len && memcmp(config_sections[i], name, len) == 0)
			return (int)i;
	return -1;
}

/* ---- did you mean ------------------------------------------------------ */

/* A known name is suggested for one typed at most this many edits away
 * (strdist.h), and at most one edit for every three of its characters, so
 * that "foo" is not taken for "root" nor "mo" for "mode". */
#define CONFIG_NEAR_MAX 2

/* Whether known is a suggestion for typed nearer than *best, which it then
 * becomes; ties keep the first in table order. */
static bool config_nearer(const char *typed, const char *known, size_t *best)
{
	size_t d = strdist(typed, known, CONFIG_NEAR_MAX);

	if (d > CONFIG_NEAR_MAX || d * 3 > strlen(known) || d >= *best)
		return false;
	*best = d;
	return true;
}

/* The known section nearest to name, or NULL. */
static const char *config_near_section(const char *name)
{
	size_t best = CONFIG_NEAR_MAX + 1;
	const char *found = NULL;

	for (size_t i = 0; i < CONFIG_SECTION_COUNT; i++)
		if (config_nearer(name, config_sections[i], &best))
			found = config_sections[i];
	return found;
}

/*
 * What is wrong with a key [section] does not have, into msg: the section
 * it belongs to when another has it; else the nearest key of this section,
 * else the nearest of another (a misplaced key with a typo too); else the
 * plain fact.
 */
static void config_unknown_key(char *msg, size_t msglen, const char *section, const char *name)
{
	const struct config_key *near = NULL;
	size_t best = CONFIG_NEAR_MAX + 1;
	char q[CONFIG_QUOTE_MAX], s[CONFIG_QUOTE_MAX];

	log_escape(s, sizeof s, section, strlen(section), NULL);
	config_quote(q, name);
	for (size_t i = 0; i < CONFIG_FIELD_COUNT; i++) {
		if (strcmp(config_keys[i].name, name) == 0) {
			config_msg(msg, msglen, "%s is not a key of [%s]; it is in [%s]", q, s,
				   config_keys[i].section);
			return;
		}
	}
	for (int other = 0; other < 2 && near == NULL; other++)
		for (size_t i = 0; i < CONFIG_FIELD_COUNT; i++)
			if ((strcmp(config_keys[i].section, section) != 0) == other &&
			    config_nearer(name, config_keys[i].name, &best))
				near = &config_keys[i];
	if (near == NULL)
		config_msg(msg, msglen, "unknown key %s in [%s]", q, s);
	else if (strcmp(near->section, section) == 0)
		config_msg(msg, msglen, "unknown key %s in [%s]: did you mean \"%s\"?", q, s,
			   near->name);
	else
		config_msg(msg, msglen, "unknown key %s in [%s]: did you mean \"%s\" in [%s]?", q,
			   s, near->name, near->section);
}

/* ---- the file ---------------------------------------------------------- */

struct config_parse {
	struct config *cfg;             /* the scratch copy being filled */
	const char *name;               /* for messages */
	const char *data;
	size_t len, pos;
	unsigned lineno;                /* of the line inih is working on */
	unsigned key_line[CONFIG_FIELD_COUNT];
	char *err;
	size_t errlen;
	bool failed;
	unsigned fail_line;
};

static void config_parse_fail(struct config_parse *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The first error wins; the reader then ends the input. */
static void config_parse_fail(struct config_parse *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return;
	p->failed = true;
	p->fail_line = p->lineno;
	if (p->err == NULL || p->errlen == 0)
		return;
	n = snprintf(p->err, p->errlen, "%s:%u: ", p->name, p->lineno);
	if (n < 0 || (size_t)n >= p->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* A "[name]" line: the section must be known and be followed by nothing but
 * a comment.  A section may appear again (a test or a tool appending lines
 * to a file); a key may not, so nothing is set twice.  A line without ']' is left to inih, which
 * reports it as a syntax error. */
static int config_check_section(struct config_parse *p, const char *line, size_t n)
{
	const char *close = memchr(line, ']', n);
	const char *rest, *end = line + n;
	char name[CONFIG_QUOTE_MAX];
	size_t namelen;

	if (close == NULL)
		return 0;
	namelen = (size_t)(close - line - 1);
	log_escape(name, sizeof name, line + 1, namelen, NULL);
	for (rest = close + 1; rest < end && (*rest == ' ' || *rest == '\t'); rest++)
		;
	if (rest < end && *rest != ';' && *rest != '#') {
		config_parse_fail(p, "unexpected text after [%s]", name);
		return -EINVAL;
	}
	if (config_section_index(line + 1, namelen) < 0) {
		char raw[CONFIG_LINE_MAX + 1];
		const char *near;

		memcpy(raw, line + 1, namelen);
		raw[namelen] = '\0';
		near = config_near_section(raw);
		if (near != NULL)
			config_parse_fail(p, "unknown section [%s]: did you mean [%s]?", name, near);
		else
			config_parse_fail(p, "unknown section [%s] (known: " CONFIG_SECTION_LIST ")",
					  name);
		return -EINVAL;
	}
	return 0;
}

/* inih's fgets: hands over exactly one physical line per call, so that
 * inih's line numbers and ours agree. */
static char *config_reader(char *str, int num, void *stream)
{
	struct config_parse *p = stream;
	const char *line, *nl;
	size_t n;

	if (p->failed || p->pos >= p->len)
		return NULL;
	line = p->data + p->pos;
	nl = memchr(line, '\n', p->len - p->pos);
	n = nl != NULL ? (size_t)(nl - line) : p->len - p->pos;
	p->pos += n + (nl != NULL);
	p->lineno++;

	if (p->lineno == 1 && n >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0) {
		line += 3;
		n -= 3;
	}
	if (n > 0 && line[n - 1] == '\r')
		n--;
	if (memchr(line, '\0', n) != NULL) {
		config_parse_fail(p, "the line contains a NUL byte");
		return NULL;
	}
	while (n > 0 && (*line == ' ' || *line == '\t')) {
		line++;
		n--;
	}
	if (num < 3 || n > (size_t)num - 3 || n > CONFIG_LINE_MAX) {
		config_parse_fail(p, "the line is longer than %d bytes",
				  num - 3 < CONFIG_LINE_MAX ? num - 3 : CONFIG_LINE_MAX);
		return NULL;
	}
	if (n > 0 && line[0] == '[' && config_check_section(p, line, n) < 0)
		return NULL;
	memcpy(str, line, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	return str;
}

static int config_handler(void *user, const char *section, const char *name, const char *value)
{
	struct config_parse *p = user;
	const struct config_key *k;
	char q[CONFIG_QUOTE_MAX];
	char msg[512];
	size_t f;

	if (p->failed)
		return 0;
	if (name[0] == '\0') {
		config_parse_fail(p, "a key name is missing before the \"=\"");
		return 0;
	}
	if (section[0] == '\0') {
		config_parse_fail(p, "key %s comes before any [section]", config_quote(q, name));
		return 0;
	}
	k = config_find_key(section, name);
	if (k == NULL) {
		config_unknown_key(msg, sizeof msg, section, name);
		config_parse_fail(p, "%s", msg);
		return 0;
	}
	f = (size_t)(k - config_keys);
	if (p->key_line[f] != 0) {
		config_parse_fail(p, "duplicate key \"%s\" in [%s] (first set at line %u)",
				  k->name, k->section, p->key_line[f]);
		return 0;
	}
	p->key_line[f] = p->lineno;
	if (config_store(p->cfg, k, k->dotted, value, true, msg, sizeof msg) < 0) {
		config_parse_fail(p, "%s", msg);
		return 0;
	}
	return 1;
}

/* One file's text over cfg (the caller's scratch copy: a failure leaves it
 * half-written), without the rules between keys; key_line[f] gets the line
 * of each key it sets, 0 for the others.  0, or -EINVAL / -ENOMEM with
 * err. */
static int config_parse(struct config *cfg, const char *name, const char *data, size_t len,
			unsigned key_line[CONFIG_FIELD_COUNT], char *err, size_t errlen)
{
	struct config_parse p;
	int r;

	memset(&p, 0, sizeof p);
	p.cfg = cfg;
	p.name = name;
	p.data = data;
	p.len = len;
	p.err = err;
	p.errlen = errlen;

	r = ini_parse_stream(config_reader, &p, config_handler, &p);
	/* inih keeps going after a syntax error and returns the first error's
	 * line; ours stops at the first of its own.  Report whichever came
	 * first. */
	if (r > 0 && (!p.failed || (unsigned)r < p.fail_line)) {
		p.failed = false;
		p.lineno = (unsigned)r;
		config_parse_fail(&p, "syntax error: expected \"key = value\", a [section] or a "
				      "comment");
		return -EINVAL;
	}
	if (p.failed)
		return -EINVAL;
	if (r < 0) {
		config_msg(err, errlen, "%s: inih failed (%d)", name, r);
		return -ENOMEM;
	}
	memcpy(key_line, p.key_line, sizeof p.key_line);
	return 0;
}

int config_load_buffer(struct config *cfg, const char *name, const char *data, size_t len,
		       char *err, size_t errlen)
{
	struct config tmp = *cfg;
	unsigned key_line[CONFIG_FIELD_COUNT];
	char msg[256];
	int r;

	r = config_parse(&tmp, name, data, len, key_line, err, errlen);
	if (r < 0)
		return r;
	if (config_validate(&tmp, msg, sizeof msg) < 0) {
		config_msg(err, errlen, "%s: %s", name, msg);
		return -EINVAL;
	}
	*cfg = tmp;
	return 0;
}

/* The whole file into *buf (malloc'd, the caller frees) and *len.  0, or
 * the errors of config_load_file with err. */
static int config_read(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	int fd, r = 0;

	*buf = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		config_msg(err, errlen, "%s: cannot open: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) != 0) {
		r = -errno;
		config_msg(err, errlen, "%s: cannot stat: %s", path, strerror(-r));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		config_msg(err, errlen, "%s: not a regular file", path);
		r = -EINVAL;
		goto out;
	}
	/* Read up to one byte past the limit rather than trusting st_size,
	 * which can change under us. */
	*buf = malloc(CONFIG_FILE_MAX + 1);
	if (*buf == NULL) {
		config_msg(err, errlen, "%s: out of memory", path);
		r = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, *buf + *len, CONFIG_FILE_MAX + 1 - *len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			config_msg(err, errlen, "%s: cannot read: %s", path, strerror(-r));
			goto out;
		}
		if (n == 0)
			break;
		*len += (size_t)n;
		if (*len > CONFIG_FILE_MAX) {
			config_msg(err, errlen, "%s: larger than %u bytes", path, CONFIG_FILE_MAX);
			r = -EFBIG;
			goto out;
		}
	}
out:
	if (r < 0) {
		free(*buf);
		*buf = NULL;
	}
	close(fd);
	return r;
}

int config_load_file(struct config *cfg, const char *path, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int r;

	r = config_read(path, &buf, &len, err, errlen);
	if (r == 0)
		r = config_load_buffer(cfg, path, buf, len, err, errlen);
	free(buf);
	return r;
}

/* ---- the file and its drop-ins ----------------------------------------- */

void config_sources_init(struct config_sources *s)
{
	memset(s, 0, sizeof *s);
}

void config_sources_free(struct config_sources *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i]);
	free(s->files);
	config_sources_init(s);
}

/* One file over cfg (a scratch copy), recorded in found. */
static int config_load_one(struct config *cfg, const char *path, struct config_sources *found,
			   char *err, size_t errlen)
{
	unsigned key_line[CONFIG_FIELD_COUNT];
	char *buf, *copy, **files;
	size_t len;
	int r;

	r = config_read(path, &buf, &len, err, errlen);
	if (r < 0)
		return r;
	r = config_parse(cfg, path, buf, len, key_line, err, errlen);
	free(buf);
	if (r < 0)
		return r;
	copy = strdup(path);
	files = realloc(found->files, (found->nfiles + 1) * sizeof *files);
	if (files != NULL)
		found->files = files;
	if (copy == NULL || files == NULL) {
		free(copy);
		config_msg(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	files[found->nfiles++] = copy;
	for (size_t f = 0; f < CONFIG_FIELD_COUNT; f++) {
		if (key_line[f] != 0) {
			found->key[f].file = copy;
			found->key[f].line = key_line[f];
		}
	}
	return 0;
}

int config_load(struct config *cfg, const char *path, bool optional,
		struct config_sources *sources, char *err, size_t errlen)
{
	struct config tmp = *cfg;
	struct config_dropins dropins = { 0 };
	struct config_sources found;
	char msg[256];
	int r;

	config_sources_init(&found);
	r = config_load_one(&tmp, path, &found, err, errlen);
	if (r == -ENOENT && optional)
		r = 0;
	if (r == 0)
		r = config_dropins_list(path, &dropins, err, errlen);
	for (size_t i = 0; r == 0 && i < dropins.count; i++)
		r = config_load_one(&tmp, dropins.paths[i], &found, err, errlen);
	if (r == 0 && config_validate(&tmp, msg, sizeof msg) < 0) {
		config_msg(err, errlen, "%s%s: %s", path,
			   dropins.count > 0 ? " and its drop-ins" : "", msg);
		r = -EINVAL;
	}
	config_dropins_free(&dropins);
	if (r < 0) {
		config_sources_free(&found);
		return r;
	}
	*cfg = tmp;
	if (sources != NULL) {
		config_sources_free(sources);
		*sources = found;
	} else {
		config_sources_free(&found);
	}
	return 0;
}

/* ---- flags and single keys --------------------------------------------- */

static const struct {
	const char *flag;
	enum config_field field;
} config_flags[] = {
	{ "--assets", CONFIG_ASSET_ROOT },
	{ "--socket", CONFIG_SOCKET_PATH },
	{ "--log-level", CONFIG_LOG_LEVEL },
	{ "--log-format", CONFIG_LOG_FORMAT },
};

#define CONFIG_FLAG_COUNT (sizeof config_flags / sizeof config_flags[0])

int config_apply_flag(struct config *cfg, const char *flag, const char *value, char *err,
		      size_t errlen)
{
	char q[CONFIG_QUOTE_MAX];

	for (size_t i = 0; i < CONFIG_FLAG_COUNT; i++)
		if (strcmp(flag, config_flags[i].flag) == 0)
			return config_store(cfg, &config_keys[config_flags[i].field], flag, value,
					    false, err, errlen);
	config_msg(err, errlen, "unknown flag %s", config_quote(q, flag));
	return -EINVAL;
}

void config_sources_flag(struct config_sources *s, const char *flag)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < CONFIG_FLAG_COUNT; i++)
		if (strcmp(flag, config_flags[i].flag) == 0)
			s->key[config_flags[i].field].flag = flag;
}

int config_set(struct config *cfg, const char *dotted_key, const char *value, char *err,
	       size_t errlen)
{
	size_t best = CONFIG_NEAR_MAX + 1;
	const char *near = NULL;
	char q[CONFIG_QUOTE_MAX];

	for (size_t i = 0; i < CONFIG_FIELD_COUNT; i++)
		if (strcmp(dotted_key, config_keys[i].dotted) == 0)
			return config_store(cfg, &config_keys[i], config_keys[i].dotted, value,
					    false, err, errlen);
	/* A key without its section, else the nearest dotted name. */
	for (size_t i = 0; i < CONFIG_FIELD_COUNT && best > 0; i++) {
		if (strcmp(dotted_key, config_keys[i].name) == 0) {
			near = config_keys[i].dotted;
			best = 0;
		} else if (config_nearer(dotted_key, config_keys[i].dotted, &best)) {
			near = config_keys[i].dotted;
		}
	}
	if (near != NULL)
		config_msg(err, errlen, "unknown setting %s: did you mean \"%s\"?",
			   config_quote(q, dotted_key), near);
	else
		config_msg(err, errlen, "unknown setting %s (expected section.key, e.g. "
					"limits.max_connections)",
			   config_quote(q, dotted_key));
	return -EINVAL;
}

int config_validate(const struct config *cfg, char *err, size_t errlen)
{
	if (cfg->max_output_bytes_per_connection < cfg->max_message_bytes) {
		char out[32], msg[32];

		config_format_bytes(cfg->max_output_bytes_per_connection, out, sizeof out);
		config_format_bytes(cfg->max_message_bytes, msg, sizeof msg);
		config_msg(err, errlen,
			   "limits.max_output_bytes_per_connection (%s) must be at least "
			   "limits.max_message_bytes (%s)",
			   out, msg);
		return -EINVAL;
	}
	return 0;
}

/* ---- fields, diff, reload, dump ---------------------------------------- */

const char *config_field_name(enum config_field f)
{
	return (unsigned)f < CONFIG_FIELD_COUNT ? config_keys[f].dotted : NULL;
}

bool config_field_is_live(enum config_field f)
{
	return (unsigned)f < CONFIG_FIELD_COUNT && config_keys[f].live;
}

const char *config_field_format(const struct config *cfg, enum config_field f, char *buf,
				size_t len)
{
	const struct config_key *k;
	const void *m;

	if (len == 0)
		return buf;
	if ((unsigned)f >= CONFIG_FIELD_COUNT) {
		buf[0] = '\0';
		return buf;
	}
	k = &config_keys[f];
	m = config_cmember(cfg, k);
	switch (k->type) {
	case CONFIG_TYPE_PATH:
	case CONFIG_TYPE_GROUP:
		snprintf(buf, len, "%s", (const char *)m);
		break;
	case CONFIG_TYPE_MODE:
		snprintf(buf, len, "%04o", (unsigned)*(const uint32_t *)m);
		break;
	case CONFIG_TYPE_COUNT:
		snprintf(buf, len, "%u", (unsigned)*(const uint32_t *)m);
		break;
	case CONFIG_TYPE_BYTES:
		config_format_bytes(*(const size_t *)m, buf, len);
		break;
	case CONFIG_TYPE_BYTES_AUTO:
		if (*(const size_t *)m == 0)
			snprintf(buf, len, "auto");
		else
			config_format_bytes(*(const size_t *)m, buf, len);
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(buf, len, "%s", *(const bool *)m ? "yes" : "no");
		break;
	case CONFIG_TYPE_LEVEL:
		snprintf(buf, len, "%s", log_level_name(*(const enum log_level *)m));
		break;
	case CONFIG_TYPE_LENGTH:
		if (*(const double *)m > 0.0)
			snprintf(buf, len, "%.9g", *(const double *)m);
		else
			snprintf(buf, len, "auto");
		break;
	case CONFIG_TYPE_LOG_FORMAT:
		snprintf(buf, len, "%s", log_format_name(*(const enum log_format *)m));
		break;
	case CONFIG_TYPE_OPERATORS:
		snprintf(buf, len, "%s",
			 config_operators_names[*(const enum config_operators *)m]);
		break;
	}
	return buf;
}

static bool config_field_equal(const struct config *a, const struct config *b,
			       const struct config_key *k)
{
	const void *ma = config_cmember(a, k), *mb = config_cmember(b, k);

	if (k->type == CONFIG_TYPE_PATH || k->type == CONFIG_TYPE_GROUP)
		return strcmp(ma, mb) == 0;
	return memcmp(ma, mb, k->size) == 0;
}

uint32_t config_diff(const struct config *a, const struct config *b)
{
	uint32_t mask = 0;

	for (unsigned f = 0; f < CONFIG_FIELD_COUNT; f++)
		if (!config_field_equal(a, b, &config_keys[f]))
			mask |= CONFIG_BIT(f);
	return mask;
}

uint32_t config_apply_live(struct config *cur, const struct config *fresh,
			   uint32_t *needs_restart)
{
	uint32_t diff = config_diff(cur, fresh), applied = 0, restart = 0;

	for (unsigned f = 0; f < CONFIG_FIELD_COUNT; f++) {
		const struct config_key *k = &config_keys[f];

		if (!(diff & CONFIG_BIT(f)))
			continue;
		if (k->live) {
			memcpy(config_member(cur, k), config_cmember(fresh, k), k->size);
			applied |= CONFIG_BIT(f);
		} else {
			restart |= CONFIG_BIT(f);
		}
	}
	if (needs_restart != NULL)
		*needs_restart = restart;
	return applied;
}

void config_log_diff(const struct config *cur, const struct config *fresh)
{
	uint32_t diff = config_diff(cur, fresh);
	char was[CONFIG_PATH_MAX], now[CONFIG_PATH_MAX];

	for (unsigned f = 0; f < CONFIG_FIELD_COUNT; f++) {
		if (!(diff & CONFIG_BIT(f)))
			continue;
		config_field_format(cur, (enum config_field)f, was, sizeof was);
		config_field_format(fresh, (enum config_field)f, now, sizeof now);
		if (config_keys[f].live)
			log_info("config: %s: %s -> %s", config_field_name((enum config_field)f),
				 was, now);
		else
			log_warning("config: %s changed to \"%s\" but needs a restart; still "
				    "using \"%s\"",
				    config_field_name((enum config_field)f), now, was);
	}
}

/* Where a key's value comes from, for config_dump: its flag, its file and
 * line (escaped: a file's name is not trusted to be one line), or the
 * default. */
static const char *config_origin(const struct config_sources *src, unsigned f, char *buf,
				 size_t len)
{
	const struct config_source *k = &src->key[f];
	size_t n;

	if (k->flag != NULL)
		return k->flag;
	if (k->file == NULL)
		return "default";
	n = log_escape(buf, len, k->file, strlen(k->file), NULL);
	snprintf(buf + n, len - n, ":%u", k->line);
	return buf;
}

/* "key = value" is padded to this many columns before its origin. */
#define CONFIG_DUMP_COLUMN 40

int config_dump(const struct config *cfg, const struct config_sources *src, FILE *out)
{
	char value[CONFIG_PATH_MAX], from[CONFIG_PATH_MAX];

	fprintf(out, "; animd configuration in effect (animd serve --print-config).\n"
		     "; conf/animd.ini documents every key.\n");
	if (src != NULL) {
		if (src->nfiles == 0)
			fprintf(out, "; No configuration file was read.\n");
		else
			fprintf(out, "; Files read, each over those before:\n");
		for (size_t i = 0; i < src->nfiles; i++) {
			log_escape(from, sizeof from, src->files[i], strlen(src->files[i]), NULL);
			fprintf(out, ";   %s\n", from);
		}
		fprintf(out, "; After each value, where it comes from: FILE:LINE, a flag, or the "
			     "default.\n");
	}
	for (size_t s = 0; s < CONFIG_SECTION_COUNT; s++) {
		fprintf(out, "\n[%s]\n", config_sections[s]);
		for (unsigned f = 0; f < CONFIG_FIELD_COUNT; f++) {
			const char *v;
			int n;

			if (strcmp(config_keys[f].section, config_sections[s]) != 0)
				continue;
			v = config_field_format(cfg, (enum config_field)f, value, sizeof value);
			n = fprintf(out, "%s =%s%s", config_keys[f].name, v[0] != '\0' ? " " : "", v);
			if (src != NULL)
				fprintf(out, "%*s ; %s", n < CONFIG_DUMP_COLUMN ? CONFIG_DUMP_COLUMN - n : 0,
					"", config_origin(src, f, from, sizeof from));
			fputc('\n', out);
		}
	}
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}
