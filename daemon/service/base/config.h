/*
 * config.h - every setting of `animd serve`: built-in defaults, the ini file
 * (conf/animd.ini, read with inih) and its drop-ins, command-line
 * overrides, and what a SIGHUP may change while the daemon runs.
 *
 * The order of precedence, lowest first: config_defaults(), then the file,
 * then its drop-ins in name order (config_load; config_dropins.h), then the
 * flags (config_apply_flag / config_set), then config_validate() for the
 * rules that tie two settings together.  On SIGHUP the daemon builds a
 * fresh config the same way (defaults, file, drop-ins, the same flags
 * again, so a flag keeps overriding the files), then config_log_diff() and
 * config_apply_live() on the running one.
 *
 * The file is strict, because a typo that is silently ignored is a setting
 * the operator believes in and does not have: unknown sections and keys,
 * a key set twice, keys outside a section, empty values (except
 * socket.group), quoted values, continuation lines and values out of range
 * are all refused with "FILE:LINE: what is wrong", and the daemon does not
 * start (or, on SIGHUP, keeps its running config).  An unknown name is
 * answered with the known one it is nearest to (strdist.h: at most two
 * edits, one per three characters of the known name), or the section a
 * misplaced key belongs to:
 *     t.ini:3: unknown key "max_conections" in [limits]: did you mean "max_connections"?
 *     t.ini:3: "publish_rate_hz" is not a key of [limits]; it is in [streams]
 *
 * Syntax (inih): "[section]", "key = value", comments on their own line
 * start with ';' or '#', a comment after a value starts with " ;".  A
 * section may be opened again further down (so lines can be appended to a
 * file); each key still appears once.  Lines
 * are limited to CONFIG_LINE_MAX bytes.  Sizes in bytes take an optional
 * K, M or G suffix (KiB, MiB, GiB: powers of 1024).
 *
 * A struct config owns no heap memory: strings are inline arrays, so a
 * config is copied by assignment.  config_free() exists so that callers do
 * not have to change if that ever stops being true.
 */
#ifndef ANIMD_CONFIG_H
#define ANIMD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/service/base/log.h"

/* Where `animd serve` looks when no -c is given; a missing file there means
 * "built-in defaults" (config_load's `optional`), its drop-ins still read. */
#ifndef CONFIG_DEFAULT_PATH
#define CONFIG_DEFAULT_PATH "/etc/animd/animd.ini"
#endif

#define CONFIG_PATH_MAX 4096            /* asset root, with the NUL */
#define CONFIG_SOCKET_PATH_MAX 108      /* sizeof(sun_path), with the NUL */
#define CONFIG_GROUP_MAX 64             /* with the NUL */
#define CONFIG_FILE_MAX (1u << 20)      /* largest config file read */
#define CONFIG_LINE_MAX 197             /* longest line inih's buffer holds */

/* Built-in defaults; conf/animd.ini shows the same values. */
#define CONFIG_DEFAULT_ASSET_ROOT "/srv/animd"
#define CONFIG_DEFAULT_SOCKET_PATH "/run/animd/animd.sock"
#define CONFIG_DEFAULT_ASSETS_MAX_MEMORY ((size_t)0)
#define CONFIG_DEFAULT_SOCKET_MODE 0660u
#define CONFIG_DEFAULT_PUBLISH_RATE_HZ 60u
#define CONFIG_DEFAULT_TICK_THREADS 0u  /* one per core the daemon may use, at most 8 */
/* 0 is "auto": a quarter of the smaller of physical memory and the
 * cgroup's memory limit (memlimit.h), found when the daemon starts and at
 * each reload. */
#define CONFIG_DEFAULT_STREAMS_MAX_TOTAL_BYTES ((size_t)0)
#define CONFIG_DEFAULT_MAX_MESSAGE_BYTES ((size_t)1 << 20)
#define CONFIG_DEFAULT_MAX_CONNECTIONS 64u
#define CONFIG_DEFAULT_MAX_INSTANCES_PER_CONNECTION 1024u
#define CONFIG_DEFAULT_MAX_LAYERS_PER_INSTANCE 8u
#define CONFIG_DEFAULT_PLAYBACK_FADE_MS 0u
#define CONFIG_DEFAULT_MAX_STREAMS_PER_CONNECTION 16u
#define CONFIG_DEFAULT_MAX_ASSET_BYTES ((size_t)256 << 20)
#define CONFIG_DEFAULT_MAX_OUTPUT_BYTES_PER_CONNECTION ((size_t)32 << 20)
/* The least limits.max_output_bytes_per_connection: the output high mark
 * (1 MiB, PROTO_DEFAULT_OUTPUT_HIGH_BYTES) plus the largest reply (16 MiB,
 * PROTO_MAX_REPLY_BYTES).  A request is served only while less than the
 * high mark is queued, so its reply, however large, stays under the
 * maximum: a client that reads is never cut off by one reply (PROTOCOL.md
 * section 5; session.c asserts the sum, this layer cannot see proto/). */
#define CONFIG_MIN_OUTPUT_BYTES_PER_CONNECTION ((size_t)17 << 20)
#define CONFIG_DEFAULT_REQUEST_TIMEOUT_MS 10000u
#define CONFIG_DEFAULT_IDLE_TIMEOUT_S 300u
#define CONFIG_DEFAULT_RELOAD_WATCH true
#define CONFIG_DEFAULT_RELOAD_QUIET_MS 150u
#define CONFIG_DEFAULT_RESCAN_INTERVAL_S 30u
#define CONFIG_DEFAULT_LOG_LEVEL LOG_LEVEL_INFO
#define CONFIG_DEFAULT_LOG_FORMAT LOG_FORMAT_AUTO
#define CONFIG_DEFAULT_X_TICKS_PER_SECOND 4800u
/* clip_compress's defaults (daemon/anim/clip.h; test_config checks). */
/* 0: auto, from each rig's size (daemon/anim/clip.h: CLIP_CODEC_AUTO_*). */
#define CONFIG_DEFAULT_CLIP_PRECISION 0.0
#define CONFIG_DEFAULT_CLIP_SHELL_DISTANCE 0.0
#define CONFIG_DEFAULT_CONTROL_OPERATORS CONFIG_OPERATORS_PRIVILEGED

/* control.operators: which peers may use the operator methods, those that
 * act on other connections (clients.kill, "any": true; PROTOCOL.md,
 * "Operators").  Seeing them (clients.list, instances.list's "all") is
 * every peer's, as `stats` is. */
enum config_operators {
	CONFIG_OPERATORS_PRIVILEGED,    /* "privileged": uid 0 and the daemon's own uid */
	CONFIG_OPERATORS_EVERYONE,      /* "everyone": any peer that may connect (the
					   socket's mode and group are the boundary) */
	CONFIG_OPERATORS_NONE,          /* "none": nobody, root included */
};

struct config {
	/* [assets] */
	char asset_root[CONFIG_PATH_MAX];       /* root: every served path resolves inside it */
	size_t assets_max_memory;               /* max_memory: what loaded assets may take
						   (memory.assets.total); 0 = no cap */

	/* [socket] (ignored under socket activation, where systemd made the socket) */
	char socket_path[CONFIG_SOCKET_PATH_MAX]; /* path */
	uint32_t socket_mode;                   /* mode: permission bits, <= 0777 */
	char socket_group[CONFIG_GROUP_MAX];    /* group: name or number; "" = primary group */

	/* [streams] */
	uint32_t publish_rate_hz;               /* publish_rate_hz: ticked streams per second */
	uint32_t tick_threads;                  /* tick_threads: threads a big tick is spread
						   over, at most one per core; 0 = auto */
	size_t streams_max_total_bytes;         /* max_total_bytes: every stream's region
						   together; 0 = auto */

	/* [playback] */
	uint32_t default_fade_ms;               /* default_fade_ms: a play on an instance
						   without "fade" (M2: its blend_ms) */

	/* [limits] */
	size_t max_message_bytes;               /* one msgpack-RPC message, either way */
	uint32_t max_connections;               /* clients at once; more are refused */
	uint32_t max_instances_per_connection;
	uint32_t max_layers_per_instance;       /* layers and fades in one instance's stack */
	uint32_t max_streams_per_connection;
	size_t max_asset_bytes;                 /* largest asset file loaded */
	size_t max_output_bytes_per_connection; /* buffered for a slow reader before
						   it is disconnected */
	uint32_t request_timeout_ms;            /* a request begun must be whole by then */
	uint32_t idle_timeout_s;                /* silent and owning nothing, or not
						   reading; 0 = never */

	/* [reload] */
	bool reload_watch;                      /* watch: inotify on the asset root */
	uint32_t reload_quiet_ms;               /* quiet_ms: a file must be still this
						   long before it is reloaded */
	uint32_t rescan_interval_s;             /* rescan_interval_s: full rescan; 0 = off */

	/* [log] */
	enum log_level log_level;               /* level */
	enum log_format log_format;             /* format: auto, journal or plain */

	/* [xfile] */
	uint32_t x_ticks_per_second;            /* ticks_per_second: for .x files without
						   AnimTicksPerSecond */

	/* [clips] */
	bool clips_compress;                    /* compress: clips stored compressed */
	double clips_precision;                 /* precision: model units */
	double clips_shell_distance;            /* shell_distance: model units */

	/* [control] */
	enum config_operators operators;        /* operators: who may act on other
						   connections */
};

/* One value per key, in file order; CONFIG_BIT(f) in the masks below. */
enum config_field {
	CONFIG_ASSET_ROOT,
	CONFIG_ASSETS_MAX_MEMORY,
	CONFIG_SOCKET_PATH,
	CONFIG_SOCKET_MODE,
	CONFIG_SOCKET_GROUP,
	CONFIG_PUBLISH_RATE_HZ,
	CONFIG_TICK_THREADS,
	CONFIG_STREAMS_MAX_TOTAL_BYTES,
	CONFIG_PLAYBACK_FADE_MS,
	CONFIG_MAX_MESSAGE_BYTES,
	CONFIG_MAX_CONNECTIONS,
	CONFIG_MAX_INSTANCES_PER_CONNECTION,
	CONFIG_MAX_LAYERS_PER_INSTANCE,
	CONFIG_MAX_STREAMS_PER_CONNECTION,
	CONFIG_MAX_ASSET_BYTES,
	CONFIG_MAX_OUTPUT_BYTES_PER_CONNECTION,
	CONFIG_REQUEST_TIMEOUT_MS,
	CONFIG_IDLE_TIMEOUT_S,
	CONFIG_RELOAD_WATCH,
	CONFIG_RELOAD_QUIET_MS,
	CONFIG_RESCAN_INTERVAL_S,
	CONFIG_LOG_LEVEL,
	CONFIG_LOG_FORMAT,
	CONFIG_X_TICKS_PER_SECOND,
	CONFIG_CLIPS_COMPRESS,
	CONFIG_CLIPS_PRECISION,
	CONFIG_CLIPS_SHELL_DISTANCE,
	CONFIG_CONTROL_OPERATORS,
	CONFIG_FIELD_COUNT
};

#define CONFIG_BIT(f) (UINT32_C(1) << (f))
#define CONFIG_ALL_FIELDS (CONFIG_BIT(CONFIG_FIELD_COUNT) - 1)

/* Fill every field with its built-in default. */
void config_defaults(struct config *cfg);

/* Release what cfg owns (nothing today, see above).  Accepts NULL. */
void config_free(struct config *cfg);

/*
 * Read an ini file over cfg (which must hold defaults or an earlier
 * config): the keys the file sets replace cfg's values, the others stay.
 * Then config_validate().  All or nothing: on failure cfg is unchanged and
 * err holds one line,
 *     conf/animd.ini:12: unknown key "foo" in [limits]
 *     conf/animd.ini:7: socket.mode must be an octal mode like 0660, not "rw"
 *     conf/animd.ini: cannot open: No such file or directory
 * Returns 0; the negative errno of open/read (-ENOENT when the file does
 * not exist, so that the caller can fall back to defaults for the default
 * path); -EFBIG for a file larger than CONFIG_FILE_MAX; -EINVAL for bad
 * content.  Messages name the file by path as given.
 */
int config_load_file(struct config *cfg, const char *path, char *err, size_t errlen);

/* The same for text already in memory (len bytes, no NUL needed); name is
 * what messages call it. */
int config_load_buffer(struct config *cfg, const char *name, const char *data, size_t len,
		       char *err, size_t errlen);

/* Where each key's value came from, for `animd serve --print-config`:
 * config_load() records the files, daemon_build_config() the flags
 * (config_sources_flag).  Owns the paths of the files read. */
struct config_source {
	const char *file;               /* the last file that set it (one of files[]);
					   NULL: none did */
	unsigned line;                  /* its line there */
	const char *flag;               /* the flag that set it over the files
					   ("--assets"); NULL: none */
};

struct config_sources {
	char **files;                   /* every file read, in the order read */
	size_t nfiles;
	struct config_source key[CONFIG_FIELD_COUNT];
};

/* An empty record: no file read, every key its default. */
void config_sources_init(struct config_sources *s);
/* Release the paths; leaves s empty (as config_sources_init).  Accepts NULL. */
void config_sources_free(struct config_sources *s);
/* Record that flag (a static string: "--assets", "--socket", "--log-level",
 * "--log-format") set its key; a flag config_apply_flag does not know is
 * ignored.  s may be NULL. */
void config_sources_flag(struct config_sources *s, const char *flag);

/*
 * The configuration files over cfg: the file at path, then its drop-ins
 * (every "*.ini" in path.d/, in name order: config_dropins.h), each over
 * those before it (a key set in a later file wins; within one file a key
 * still appears once), then config_validate().  A missing file at path is
 * an error (-ENOENT, as config_load_file) unless optional, when the
 * drop-ins alone are read: `animd serve` without -c, where no file means
 * built-in defaults.  All or nothing: the first error in any file stops
 * the load with its message ("/etc/animd/animd.ini.d/10-x.ini:3: ..."), a
 * drop-in folder that cannot be read with config_dropins_list's, and cfg
 * is left unchanged.  sources (may be NULL; initialised by the caller) gets
 * the files read and what each set, replacing what it held, on success
 * only.
 */
int config_load(struct config *cfg, const char *path, bool optional,
		struct config_sources *sources, char *err, size_t errlen);

/*
 * A command-line override: flag is "--assets", "--socket", "--log-level" or
 * "--log-format", value its argument.  Relative paths are allowed here
 * (they are resolved against the working directory by whoever opens them);
 * in the file they must be absolute.  On failure cfg is unchanged, err holds e.g.
 *     --log-level must be one of error, warning, info, debug, not "loud"
 * and -EINVAL is returned (also for a flag this function does not know).
 */
int config_apply_flag(struct config *cfg, const char *flag, const char *value, char *err,
		      size_t errlen);

/* Any key by its dotted name ("limits.max_connections"), with the same
 * checks as the file; for a generic `--set KEY=VALUE` and for tests.
 * Returns 0 or -EINVAL (err says why; an unknown name with the nearest
 * known one, as in the file). */
int config_set(struct config *cfg, const char *dotted_key, const char *value, char *err,
	       size_t errlen);

/* The rules between settings, e.g. the output buffer must hold at least one
 * message of the largest size.  config_load_* call it; call it again after
 * the flags.  0 or -EINVAL with err. */
int config_validate(const struct config *cfg, char *err, size_t errlen);

/* "section.key" of a field; NULL for a value outside the enum. */
const char *config_field_name(enum config_field f);

/* Whether a SIGHUP applies the field to the running daemon: log.level,
 * log.format, streams.publish_rate_hz, streams.max_total_bytes,
 * control.operators, every [limits] key (the two timeouts for every
 * connection at once, the others for connections accepted and assets
 * loaded after the reload), reload.quiet_ms and reload.rescan_interval_s.
 * The others (asset root, socket, reload.watch, xfile.ticks_per_second)
 * need a restart. */
bool config_field_is_live(enum config_field f);

/* The field's value as the file would write it ("0660", "8MiB", "yes",
 * "info"), in buf (always NUL-terminated; CONFIG_PATH_MAX is always
 * enough).  Returns buf. */
const char *config_field_format(const struct config *cfg, enum config_field f, char *buf,
				size_t len);

/* Mask of CONFIG_BIT(field) for every field whose value differs. */
uint32_t config_diff(const struct config *a, const struct config *b);

/*
 * SIGHUP: copy every live field that differs from fresh into cur; leave the
 * others.  Returns the mask of fields applied (the caller acts on them:
 * log_set_level(), re-arming the publish and rescan timers, ...);
 * *needs_restart (may be NULL) gets the mask of fields that differ but were
 * not applied.  Call on the loop thread; work on the thread pool must copy
 * the values it needs rather than read cur while this runs.
 */
uint32_t config_apply_live(struct config *cur, const struct config *fresh,
			   uint32_t *needs_restart);

/* Log every difference between the running config and fresh, one line
 * each: info "config: limits.max_connections: 64 -> 32" for a live field,
 * warning "config: socket.path changed to ... but needs a restart; still
 * using ..." for the others.  Call before config_apply_live(). */
void config_log_diff(const struct config *cur, const struct config *fresh);

/* Write cfg as an ini file that config_load_file() reads back to the same
 * config (`animd serve --print-config`).  With sources (may be NULL), a
 * comment at the top lists the files read, and one after each value says
 * where it comes from: "; /etc/animd/animd.ini.d/10-limits.ini:3", "; --socket"
 * or "; default".  0 or -EIO. */
int config_dump(const struct config *cfg, const struct config_sources *sources, FILE *out);

#endif
