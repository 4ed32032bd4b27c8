/*
 * animctl.h - what animctl's files share.  animctl is built on the public
 * client library only (client/animclient.h); it prints, exits and handles
 * signals so that the library never has to.
 */
#ifndef ANIMCTL_H
#define ANIMCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "client/animclient.h"

/* Exit codes (also in `animctl --help`). */
enum {
	EXIT_OK = 0,
	EXIT_SERVER = 1,                /* the daemon answered with an error */
	EXIT_USAGE = 2,                 /* bad command line */
	EXIT_CONNECT = 3,               /* cannot connect, or the connection was lost */
	EXIT_FAILURE_OTHER = 4,         /* anything else: a timeout, the terminal, memory */
};

/* Global options and the connection. */
struct ctl {
	const char *cmd;                /* the command run ("play"), for messages */
	const char *socket;             /* --socket, or NULL */
	bool json;                      /* --json */
	int timeout_ms;                 /* --timeout */
	animc_client *c;
};

/* ---- args.c: command-line parsing -------------------------------------- */

struct ctl_opt {
	const char *name;               /* long name without "--" */
	bool has_arg;
	const char **value;             /* set to the argument, or to "" for a flag */
};

/*
 * Parse argv[0..argc) of one command: the global options (--socket,
 * --json, --timeout, --help) and `opts` (ended by a NULL name) anywhere,
 * positional arguments into pos[] (at most max_pos).  Returns the number of
 * positional arguments, -1 after a usage error (printed), or -2 when --help
 * was asked for.
 */
int ctl_parse(struct ctl *ctl, int argc, char **argv, const struct ctl_opt *opts,
	      const char **pos, int max_pos);
/* ctl_parse plus help and arity: prints `help` for --help (returns -2),
 * reports a usage error (returns -1), else the positional count. */
int ctl_args(struct ctl *ctl, int argc, char **argv, const struct ctl_opt *opts,
	     const char **pos, int min_pos, int max_pos, const char *help);
/* The exit code for a negative ctl_args result. */
int ctl_args_exit(int n);
/* Numbers from the command line: 0, or -1 with a message printed for
 * `cmd` (`animctl CMD: WHAT must be a number, not "x"`). */
int ctl_number(const char *cmd, const char *what, const char *s, double *out);
int ctl_uint(const char *cmd, const char *what, const char *s, uint64_t *out);
/* The same without a message: true when s is a finite number. */
bool ctl_is_number(const char *s, double *out);
/* The options `play` and `watch` share (play_opts.c), as given: NULL when
 * absent.  CTL_PLAY_OPTS(a) lists them for a command's ctl_opt table. */
struct ctl_play_args {
	const char *clip, *mesh, *loop, *once, *pingpong, *speed, *start, *root, *rate;
};
#define CTL_PLAY_OPTS(a)                                                                  \
	{ "clip", true, &(a).clip }, { "mesh", true, &(a).mesh }, { "loop", false, &(a).loop }, \
	{ "once", false, &(a).once }, { "pingpong", false, &(a).pingpong },                 \
	{ "speed", true, &(a).speed }, { "start", true, &(a).start },                       \
	{ "root-motion", true, &(a).root }, { "rate", true, &(a).rate }
/* Into o (its asset is the caller's): 0, or EXIT_USAGE with the message
 * printed for `cmd`. */
int ctl_play_args_apply(const char *cmd, const struct ctl_play_args *a, animc_play_opts *o);
/* --rate into so (NULL: leave it): 0 or EXIT_USAGE. */
int ctl_rate_apply(const char *cmd, const char *rate, animc_stream_opts *so);

/* A usage error: print it (and the hint to --help) and return EXIT_USAGE. */
int ctl_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- main.c: connecting and reporting ----------------------------------- */

/* Connect ctl->c; on failure print why and return EXIT_CONNECT (else 0). */
int ctl_connect(struct ctl *ctl);
/*
 * Report a failed call (rc < 0) once, on stderr (or as a JSON error on
 * stdout), and return the exit code for it.  The line names the animctl
 * command, then `what` when not NULL (a command typed on play's input):
 *   animctl info: not_found: no asset named "x" (assets.list shows them)
 * The library's and the daemon's messages begin with the protocol method
 * ("assets.info: ..."); that prefix is left out, the command names it.
 */
int ctl_fail(struct ctl *ctl, const char *what, int rc);

/* ---- escape.c: outside text made printable ------------------------------ */

/*
 * s with the daemon's log escapes (escape.c): control bytes, C1 controls
 * and bytes that are not UTF-8 as "\n", "\x01", "\u009b", "\xff".
 * escape_quoted also puts it in double quotes, escaping " and \ inside;
 * escape_value leaves a plain word bare and quotes anything else (empty,
 * escaped, or holding a space, a quote, a backslash or "=").  NULL gives
 * NULL.  The result belongs to escape.c and stays valid for the next seven
 * calls, enough for one printf.
 */
const char *escape_text(const char *s);
const char *escape_quoted(const char *s);
const char *escape_value(const char *s);
/* Length of the well-formed UTF-8 sequence at s (n > 0 bytes; 1 to 4) and
 * its code point, or 0 when the bytes there are not one (as the daemon's
 * log decides): for writers that escape in their own syntax (json.c). */
size_t escape_utf8(const unsigned char *s, size_t n, uint32_t *cp);

/* ---- json.c: a small JSON writer ---------------------------------------- */

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool after_key;
};

void json_begin(struct json *j, FILE *f);
/* Finish the document with a newline and flush. */
void json_end(struct json *j);
void json_obj(struct json *j);
void json_obj_end(struct json *j);
void json_arr(struct json *j);
void json_arr_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);       /* NULL prints null */
void json_num(struct json *j, double v);            /* non-finite prints null */
void json_float(struct json *j, float v);
void json_int(struct json *j, int64_t v);
void json_uint(struct json *j, uint64_t v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
void json_floats(struct json *j, const float *v, size_t n);
/* key + value shorthands */
void json_kstr(struct json *j, const char *key, const char *s);
void json_knum(struct json *j, const char *key, double v);
void json_kuint(struct json *j, const char *key, uint64_t v);
void json_kint(struct json *j, const char *key, int64_t v);
void json_kbool(struct json *j, const char *key, bool v);

/* ---- print.c: results, as text or JSON ---------------------------------- */

void print_instance(struct ctl *ctl, const animc_instance *in);
void print_instance_json(struct json *j, const animc_instance *in);
/* The same object left open, for fields to follow (instances --all). */
void print_instance_json_open(struct json *j, const animc_instance *in);
/* The text form's lines, without the JSON choice or the flush. */
void print_instance_line(const animc_instance *in);
void print_event(struct ctl *ctl, const animc_event *ev);
/* The noun for a count of n: `one` for 1, else `many` ("1 mesh",
 * "2 meshes", "0 clips"): printf("%zu %s", n, print_noun(n, "mesh",
 * "meshes")). */
const char *print_noun(uint64_t n, const char *one, const char *many);
/* A duration for people: "4.2s", "3m07s", "2h05m09s", "1d03h20m". */
void print_duration(char *buf, size_t size, double seconds);

/* ---- turn.c: the wait of commands that keep running --------------------- */

/* Wait for the client, a terminating signal (*stop: leave the loop) and,
 * when extra_fd >= 0, extra_fd readable (*extra_ready, may be NULL then);
 * then process the client.  0 to go on, or the exit code of a failure
 * (the connection lost: ctl_fail has said so). */
int ctl_turn(struct ctl *ctl, int extra_fd, bool *extra_ready, bool *stop);
/* Turns until *done (set by an event callback) or a terminating signal:
 * EXIT_OK, or the exit code of a lost connection. */
int ctl_turn_until(struct ctl *ctl, const bool *done);
/* The same, and at most `seconds` (negative: no limit). */
int ctl_turn_until_for(struct ctl *ctl, const bool *done, double seconds);

/* ---- term.c: signals and the terminal ----------------------------------- */

/* Catch SIGINT, SIGTERM and SIGHUP into a self-pipe; the returned fd
 * becomes readable when one arrives.  -1 on failure. */
int term_signals(void);
/* The signal that arrived (0 if none), draining the pipe. */
int term_signal_taken(void);
/* Raw keyboard input on stdin, the alternate screen and a hidden cursor;
 * term_restore undoes it (also at exit).  0 or -1. */
int term_enter(void);
void term_restore(void);
/* The terminal's size (defaults 80x24). */
void term_size(int *cols, int *rows);

/* ---- watch_stack.c: the layer stack watch shows ------------------------- */

#define WATCH_STACK_MAX 16
struct watch_layer {
	uint32_t id;
	char mode[12];
	char clip[64];
	double weight, target, fade_left;       /* as reported at the snapshot */
	bool removing, masked;
};
struct watch_stack {
	char asset[256];                /* the base clip's asset */
	char clip[64];                  /* the base clip */
	char playing[320];              /* "asset#clip" on screen: the newest
					   cross-fade's, else the base */
	size_t count;                   /* layers kept, bottom-up */
	size_t total;                   /* the instance's layers */
	struct watch_layer layers[WATCH_STACK_MAX];
	double at;                      /* watch_now() of the snapshot */
};
/* Monotonic seconds. */
double watch_now(void);
void watch_stack_take(struct watch_stack *s, const animc_instance *in);
/* The asset and clip the instance shows: its newest cross-fade's, else its
 * own (as the daemon's `sync` picks the phase). */
void watch_stack_playing(const animc_instance *in, const char **asset, const char **clip);
/* Layer i's weight at `now`, its fade carried forward from the snapshot. */
double watch_stack_weight(const struct watch_stack *s, size_t i, double now);
/* Whether a fade is still running at `now` (by the snapshot). */
bool watch_stack_fading(const struct watch_stack *s, double now);
/* One line, bottom-up: "walk | fade run 0.42 -> 1 | override wave [mask] 0.50". */
void watch_stack_text(const struct watch_stack *s, double now, char *out, size_t len);
/* "asset", "clip" and "layers" keys into the object being written. */
void watch_stack_json(struct json *j, const struct watch_stack *s, double now);

/* ---- watch_clips.c: what watch's n / p cycle through ---------------------- */

struct watch_clip {
	char *asset, *clip;
};
struct watch_clips {
	struct watch_clip *v;
	size_t count, cap;
};
/* Into *out: anim's clips, then those of every other asset of anim's
 * format that fits skel (joint names and parents) and anim (emitters,
 * attachment points), in assets.list's order, each of `joints` joints.
 * 0, or a negative errno from the library (*out empty). */
int watch_clips_find(animc_client *c, const animc_asset_info *skel, const animc_asset_info *anim,
		     uint32_t joints, struct watch_clips *out);
void watch_clips_free(struct watch_clips *l);
/* The index of asset#clip, or -1. */
long watch_clips_index(const struct watch_clips *l, const char *asset, const char *clip);
void watch_clips_remove(struct watch_clips *l, size_t i);

/* ---- commands ----------------------------------------------------------- */

int cmd_status(struct ctl *ctl, int argc, char **argv);
int cmd_list(struct ctl *ctl, int argc, char **argv);
int cmd_info(struct ctl *ctl, int argc, char **argv);
int cmd_instances(struct ctl *ctl, int argc, char **argv);
int cmd_sample(struct ctl *ctl, int argc, char **argv);
int cmd_play(struct ctl *ctl, int argc, char **argv);
int cmd_control(struct ctl *ctl, int argc, char **argv);     /* pause resume seek speed stop */
int cmd_layer(struct ctl *ctl, int argc, char **argv);       /* layer add|set|remove */
/* One layer verb (cmd_layer.c) on `instance`: argv[0] names the command,
 * then the verb's arguments (INSTANCE first unless own: a command typed on
 * play's input).  0 with *st (free it), a negative errno from the library,
 * or 0 with *exit_now >= 0 after a usage error or --help (printed). */
int ctl_layer(struct ctl *ctl, uint64_t instance, const char *verb, int argc, char **argv,
	      bool own, animc_instance **st, int *exit_now);
extern const char layer_help[];
/* --mask J[:W],J[:W]... (layer add's, sample's) into joints and weights,
 * at most LAYER_MAX_MASK; list is cut up in place.  0 or EXIT_USAGE (the
 * message printed). */
#define LAYER_MAX_MASK 64
int layer_parse_mask(char *list, const char **joints, double *weights, size_t *n);
int cmd_events(struct ctl *ctl, int argc, char **argv);
int cmd_watch(struct ctl *ctl, int argc, char **argv);
int cmd_top(struct ctl *ctl, int argc, char **argv);
int cmd_monitor(struct ctl *ctl, int argc, char **argv);
int cmd_reload(struct ctl *ctl, int argc, char **argv);
int cmd_clients(struct ctl *ctl, int argc, char **argv);     /* clients [kill ID] */

#endif
