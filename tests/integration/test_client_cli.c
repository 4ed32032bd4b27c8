/*
 * animctl end to end: the real daemon, the real binary ($BUILD/animctl),
 * its output as text and --json, its exit codes (0 ok, 1 daemon error,
 * 2 usage, 3 cannot connect), --help on every command, `play` steered from
 * its stdin and stopped by a signal, `watch` and `events` in line mode;
 * names from outside printed escaped as the daemon's log escapes them, and
 * error lines that name the animctl command, once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/daemon_proc.h"

#define TIMEOUT_MS 10000

struct fixture {
	struct daemon_proc d;
	char animctl[512];
};

struct child {
	pid_t pid;
	int in, out, err;
};

struct run {
	int status;                     /* exit code, or 128 + signal */
	char out[1 << 16];
	char err[1 << 14];
	size_t out_len, err_len;
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int setup_with(void **state, const char *extra_ini)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	const char *build = getenv("BUILD");
	char cmd[1024];

	assert_non_null(fx);
	snprintf(fx->animctl, sizeof fx->animctl, "%s/animctl", build ? build : "build");
	if (access(fx->animctl, X_OK) != 0) {
		print_message("SKIP: %s not built\n", fx->animctl);
		free(fx);
		exit(77);
	}
	assert_int_equal(daemon_proc_init(&fx->d), 0);
	snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s", build ? build : "build", fx->d.assets);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(daemon_proc_start(&fx->d, extra_ini, TIMEOUT_MS), 0);
	/* animctl finds the socket through the environment unless told. */
	setenv("ANIMD_SOCKET", fx->d.socket, 1);
	*state = fx;
	return 0;
}

static int setup(void **state)
{
	return setup_with(state, "[reload]\nquiet_ms = 50\n");
}

/* A cap no asset fits under: every one evicted once loaded. */
static int setup_capped(void **state)
{
	return setup_with(state, "[assets]\nmax_memory = 1\n");
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&fx->d);
	free(fx);
	return 0;
}

static void spawn(const struct fixture *fx, char *const args[], struct child *ch)
{
	int in[2], out[2], err[2];
	char *argv[32];
	int n = 0;

	argv[n++] = (char *)fx->animctl;
	for (int i = 0; args[i] != NULL && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	ch->pid = fork();
	assert_true(ch->pid >= 0);
	if (ch->pid == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	ch->in = in[1];
	ch->out = out[0];
	ch->err = err[0];
}

/* Read the child's output until it exits (or timeout_ms, then kill it). */
static void collect(struct child *ch, struct run *r, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	int wstatus, open_fds = 2;

	while (open_fds > 0) {
		struct pollfd p[2] = { { .fd = ch->out, .events = POLLIN },
				       { .fd = ch->err, .events = POLLIN } };
		long left = deadline - now_ms();

		if (left <= 0) {
			kill(ch->pid, SIGKILL);
			break;
		}
		if (poll(p, 2, (int)left) <= 0)
			continue;
		for (int i = 0; i < 2; i++) {
			char *buf = i ? r->err : r->out;
			size_t *len = i ? &r->err_len : &r->out_len;
			size_t cap = i ? sizeof r->err : sizeof r->out;
			ssize_t n;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			n = read(p[i].fd, buf + *len, cap - 1 - *len);
			if (n <= 0) {
				close(i ? ch->err : ch->out);
				if (i)
					ch->err = -1;
				else
					ch->out = -1;
				open_fds--;
				continue;
			}
			*len += (size_t)n;
			buf[*len] = '\0';
		}
		if (ch->out < 0 && ch->err < 0)
			break;
	}
	if (ch->out >= 0)
		close(ch->out);
	if (ch->err >= 0)
		close(ch->err);
	if (ch->in >= 0)
		close(ch->in);
	assert_int_equal(waitpid(ch->pid, &wstatus, 0), ch->pid);
	r->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

/* Run animctl with `input` on its stdin (NULL: none); args NULL-ended. */
static struct run *run(const struct fixture *fx, const char *input, ...)
{
	struct run *r = calloc(1, sizeof *r);
	char *args[32];
	struct child ch;
	va_list ap;
	int n = 0;

	assert_non_null(r);
	va_start(ap, input);
	while (n < 31 && (args[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	args[n] = NULL;
	spawn(fx, args, &ch);
	if (input != NULL && write(ch.in, input, strlen(input)) < 0)
		fail_msg("write: %s", strerror(errno));
	close(ch.in);
	ch.in = -1;
	collect(&ch, r, TIMEOUT_MS);
	return r;
}

static void expect(const struct run *r, int status, const char *out, const char *err)
{
	if (r->status != status || (out && !strstr(r->out, out)) || (err && !strstr(r->err, err)))
		fail_msg("exit %d (want %d)\nstdout: %s\nstderr: %s\nwanted stdout \"%s\", "
			 "stderr \"%s\"", r->status, status, r->out, r->err, out ? out : "",
			 err ? err : "");
}

/* What status and list say of assets the cap evicted, and of one a call
 * loaded again. */
static void test_evicted_said(void **state)
{
	struct fixture *fx = *state;
	struct run *r;

	r = run(fx, NULL, "status", NULL);
	expect(r, 0, "\n  in memory  0 not loaded yet, 6 evicted; ", NULL);
	expect(r, 0, "  assets       0 B of a 1 B cap (skeletons 0,", NULL);
	free(r);
	r = run(fx, NULL, "--json", "status", NULL);
	expect(r, 0, "\"not_loaded\":0,\"evicted\":6,", NULL);
	expect(r, 0, "\"assets_cap\":1,", NULL);
	free(r);
	r = run(fx, NULL, "list", NULL);
	expect(r, 0, "\ncrane.x          x              1  evicted\n", NULL);
	assert_null(strstr(r->out, "  ok\n"));
	free(r);
	r = run(fx, NULL, "info", "crane.x", NULL);
	expect(r, 0, "ticks       60 per second", NULL);
	free(r);
	r = run(fx, NULL, "status", NULL);
	expect(r, 0, " 1 loads on demand since start\n", NULL);
	free(r);
}

static void test_one_shot_commands(void **state)
{
	struct fixture *fx = *state;
	struct run *r;

	r = run(fx, NULL, "status", NULL);
	expect(r, 0, "assets       6", NULL);
	expect(r, 0, "  assets       ", NULL);
	expect(r, 0, "  streams      0 B of a ", NULL);
	expect(r, 0, " budget\n  instances", NULL);
	free(r);
	r = run(fx, NULL, "--json", "status", NULL);
	expect(r, 0, "\"count\":6", NULL);
	expect(r, 0, "\"memory\":{\"total\":", NULL);
	expect(r, 0, "\"streams\":0,\"streams_budget\":", NULL);
	assert_int_equal(r->out[0], '{');
	free(r);
	r = run(fx, NULL, "list", NULL);
	expect(r, 0, "walker.md5mesh", NULL);
	expect(r, 0, "       1  ok\n", NULL);
	assert_null(strstr(r->out, "in memory"));
	free(r);
	r = run(fx, NULL, "info", "crane.x", NULL);
	expect(r, 0, "ticks       60 per second (AnimTicksPerSecond)", NULL);
	free(r);
	r = run(fx, NULL, "list", "--json", NULL);
	expect(r, 0, "{\"asset\":\"idle.md5anim\",\"format\":\"md5anim\"", NULL);
	free(r);
	r = run(fx, NULL, "info", "walker.md5mesh", NULL);
	expect(r, 0, "skeleton    10 joints", NULL);
	free(r);
	r = run(fx, NULL, "info", "walker.md5anim", "--json", NULL);
	expect(r, 0, "\"clips\":[{\"name\":\"walker\",\"duration\":1", NULL);
	free(r);
	r = run(fx, NULL, "sample", "walker.md5anim", "--mesh", "walker.md5mesh", "--time", "0.25",
		"--space", "model", NULL);
	expect(r, 0, "origin           position    15.000", NULL);
	free(r);
	/* sample's layers, as animd sample's --blend and --mask: idle's spine
	 * (unturned) over the walk's. */
	r = run(fx, NULL, "sample", "walker.md5anim", "--time", "0.25", "--space", "local", NULL);
	expect(r, 0, "  2 spine            t     0.000     0.000     4.000  r  0.0000  0.0000  ", NULL);
	assert_null(strstr(r->out, "  2 spine            t     0.000     0.000     4.000  r  0.0000  "
			   "0.0000  0.0000  1.0000\n"));
	free(r);
	r = run(fx, NULL, "sample", "walker.md5anim", "--time", "0.25", "--space", "local",
		"--blend", "idle.md5anim:0:1", "--mask", "spine", NULL);
	expect(r, 0, "  2 spine            t     0.000     0.000     4.000  r  0.0000  0.0000  "
	       "0.0000  1.0000\n", NULL);
	free(r);
	r = run(fx, NULL, "sample", "walker.md5anim", "--time", "0", "--blend", "nope:0:1", NULL);
	expect(r, 1, NULL, "layer 0: walker.md5anim has no clip named \"nope\"");
	free(r);
	r = run(fx, NULL, "sample", "walker.md5anim", "--time", "0", "--ref", "walker", NULL);
	expect(r, 2, NULL, "--mask and --ref go with --blend or --additive");
	free(r);
	r = run(fx, NULL, "--json", "sample", "orbit.md5camera", "--time=1", NULL);
	expect(r, 0, "\"camera\":{\"position\":[", NULL);
	free(r);
	r = run(fx, NULL, "instances", "--json", NULL);
	expect(r, 0, "{\"instances\":[]}", NULL);
	free(r);
}

static void test_exit_codes(void **state)
{
	struct fixture *fx = *state;
	struct run *r;

	/* 1: the daemon's error, code and message printed. */
	r = run(fx, NULL, "info", "nope.md5mesh", NULL);
	expect(r, 1, NULL, "animctl info: not_found: no asset named \"nope.md5mesh\"");
	free(r);
	r = run(fx, NULL, "--json", "info", "nope.md5mesh", NULL);
	expect(r, 1, "{\"error\":{\"code\":\"not_found\",\"message\":", NULL);
	free(r);
	/* Another connection's (here: nobody's) instance, with the hint. */
	r = run(fx, NULL, "pause", "1", NULL);
	expect(r, 1, NULL, "belong to the connection that started them");
	free(r);
	r = run(fx, NULL, "seek", "1", "0.5", NULL);
	expect(r, 1, NULL, "not_found");
	free(r);
	/* 2: usage. */
	r = run(fx, NULL, "frobnicate", NULL);
	expect(r, 2, NULL, "unknown command");
	free(r);
	r = run(fx, NULL, "seek", "1", NULL);
	expect(r, 2, NULL, "missing argument");
	free(r);
	r = run(fx, NULL, "sample", "walker.md5anim", NULL);
	expect(r, 2, NULL, "--time is required");
	free(r);
	r = run(fx, NULL, "play", "walker.md5anim", "--once", "--loop", NULL);
	expect(r, 2, NULL, "choose one");
	free(r);
	r = run(fx, NULL, "status", "--bogus", NULL);
	expect(r, 2, NULL, "unknown option");
	free(r);
	r = run(fx, NULL, NULL);
	expect(r, 2, NULL, "usage: animctl");
	free(r);
	/* 3: no daemon there. */
	r = run(fx, NULL, "--socket", "/nonexistent/animd.sock", "status", NULL);
	expect(r, 3, NULL, "cannot connect to /nonexistent/animd.sock");
	free(r);
	r = run(fx, NULL, "status", "--socket=/nonexistent/animd.sock", "--json", NULL);
	expect(r, 3, "\"code\":\"connect\"", NULL);
	free(r);
}

static void test_help_everywhere(void **state)
{
	static const char *const cmds[] = { "status", "list", "info", "reload", "sample", "play",
					    "watch", "events", "instances", "pause", "resume",
					    "seek", "speed", "stop", "layer", "clients" };
	struct fixture *fx = *state;
	struct run *r;
	char want[64];

	r = run(fx, NULL, "--help", NULL);
	expect(r, 0, "exit status: 0 ok, 1", NULL);
	free(r);
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		r = run(fx, NULL, cmds[i], "--help", NULL);
		snprintf(want, sizeof want, "usage: animctl %s", cmds[i]);
		if (strcmp(cmds[i], "resume") == 0 || strcmp(cmds[i], "seek") == 0 ||
		    strcmp(cmds[i], "speed") == 0 || strcmp(cmds[i], "stop") == 0)
			snprintf(want, sizeof want, "usage: animctl pause");
		expect(r, 0, want, NULL);
		free(r);
	}
}

static void test_play_steered_from_stdin(void **state)
{
	struct fixture *fx = *state;
	struct run *r;

	r = run(fx, "pause\nseek 0.5\nspeed 2\nstate\npose\nresume\nbogus\nstop\n", "--json", "play",
		"walker.md5anim", "--mesh", "walker.md5mesh", "--stream", "--space", "local", NULL);
	expect(r, 0, "\"state\":\"paused\"", "unknown command \"bogus\"");
	expect(r, 0, "\"time\":0.5,", NULL);
	expect(r, 0, "\"speed\":2,", NULL);
	expect(r, 0, "{\"type\":\"pose\",", NULL);
	expect(r, 0, "\"state\":\"playing\"", NULL);
	free(r);
	/* A clip played once, to its end. */
	r = run(fx, NULL, "play", "walker.md5anim", "--once", "--speed", "4", "--until-end",
		"--no-input", NULL);
	expect(r, 0, "instance.ended asset=walker.md5anim", NULL);
	free(r);
	r = run(fx, "quit\n", "play", "walker.md5anim", "--clip", "nope", NULL);
	expect(r, 1, NULL, "not_found");
	free(r);
	/* help lists the commands (on stderr with --json: stdout stays JSON). */
	r = run(fx, "help\nfrob\nquit\n", "play", "walker.md5anim", NULL);
	expect(r, 0, "commands, one per line:\n  pause ", "unknown command \"frob\"");
	expect(r, 0, "\n  seek SECONDS ", "help lists them");
	expect(r, 0, "\n  layer set LAYER WEIGHT [FADE] ", NULL);
	expect(r, 0, "\n  help                       this list\n", NULL);
	free(r);
	r = run(fx, "help\nquit\n", "--json", "play", "walker.md5anim", NULL);
	expect(r, 0, NULL, "commands, one per line:\n");
	assert_null(strstr(r->out, "commands"));
	free(r);
}

/* Layers and cross-fades typed on play's input; the standalone `layer`
 * reaches no other connection's instance. */
static void test_play_layers_from_stdin(void **state)
{
	struct fixture *fx = *state;
	struct run *r;

	r = run(fx, "layer add --clip walker --mask spine:0.5,l_arm --weight 0.5\n"
		"layer set 1 0.25\nplay idle.md5anim 0\nstate\nlayer remove 1\n"
		"layer add walker.md5anim --additive --ref walker:0.5\nlayer add --mask nose\n"
		"layer frobnicate\nplay - 0.2\nquit\n",
		"--json", "play", "walker.md5anim", NULL);
	expect(r, 0, "\"layers\":[{\"layer\":1,\"mode\":\"override\",\"asset\":\"walker.md5anim\","
		   "\"clip\":\"walker\",\"weight\":0.5,", NULL);
	expect(r, 0, "\"mask\":[{\"joint\":\"spine\",\"weight\":0.5},{\"joint\":\"l_arm\",\"weight\":1}]",
	       NULL);
	expect(r, 0, "\"weight\":0.25,", NULL);
	/* The cut plays the idle pose; the layer above it stays. */
	expect(r, 0, "\"clip\":\"idle\",", NULL);
	expect(r, 0, "\"mode\":\"additive\"", NULL);
	expect(r, 0, "{\"error\":{\"code\":\"not_found\",\"message\":\"mask[0]: no joint named", NULL);
	expect(r, 0, "\"mode\":\"fade\"", "add, set or remove, not \"frobnicate\"");
	free(r);
	r = run(fx, NULL, "layer", "add", "1", "--clip", "walker", NULL);
	expect(r, 1, NULL, "hint: instances belong to the connection");
	free(r);
	r = run(fx, NULL, "layer", "set", "1", NULL);
	expect(r, 2, NULL, "missing argument");
	free(r);
	r = run(fx, NULL, "play", "walker.md5anim", "--fade", "-1", "--no-input", NULL);
	expect(r, 2, NULL, "--fade is seconds");
	free(r);
}

static void test_play_until_signal(void **state)
{
	struct fixture *fx = *state;
	char *args[] = { "play", "walker.md5anim", "--no-input", NULL };
	struct run *r = calloc(1, sizeof *r);
	struct child ch;
	struct pollfd p;

	spawn(fx, args, &ch);
	/* Running: it printed the instance, and keeps going. */
	p = (struct pollfd){ .fd = ch.out, .events = POLLIN };
	assert_int_equal(poll(&p, 1, TIMEOUT_MS), 1);
	poll(NULL, 0, 300);
	assert_int_equal(waitpid(ch.pid, NULL, WNOHANG), 0);
	kill(ch.pid, SIGTERM);
	collect(&ch, r, TIMEOUT_MS);
	expect(r, 0, "instance 1 playing", NULL);
	free(r);
}

static void test_watch_and_events_lines(void **state)
{
	struct fixture *fx = *state;
	char *args[] = { "events", "--count", "1", "--json", NULL };
	char path[512], *text;
	const char *last;
	struct run *r;
	struct child ch;
	FILE *f;
	long n;

	r = run(fx, NULL, "watch", "walker.md5anim", "--frames", "5", "--json", NULL);
	expect(r, 0, "\"joints\":[{\"name\":\"origin\",\"parent\":-1,\"position\":[", NULL);
	n = 0;
	for (const char *s = r->out; (s = strchr(s, '\n')) != NULL; s++)
		n++;
	assert_int_equal(n, 5);
	free(r);
	r = run(fx, NULL, "watch", "walker.md5anim", "--mesh", "walker.md5mesh", "--frames", "2",
		"--space", "local", NULL);
	expect(r, 0, "pose 1 clip_time", NULL);
	free(r);
	/* A cross-fade at the start: the stack shows it, then its end. */
	r = run(fx, NULL, "watch", "walker.md5anim", "--fade-to", "idle.md5anim", "--fade", "0.2",
		"--frames", "40", "--json", NULL);
	expect(r, 0, "\"asset\":\"walker.md5anim\",\"clip\":\"walker\",\"layers\":[{\"id\":1,"
	       "\"mode\":\"fade\",\"clip\":\"idle\"", NULL);
	last = r->out + strlen(r->out);
	if (last > r->out)
		last--;                 /* the last line's newline */
	while (last > r->out && last[-1] != '\n')
		last--;
	if (strstr(last, "\"asset\":\"idle.md5anim\",\"clip\":\"idle\",\"layers\":[]") == NULL)
		fail_msg("the last pose is not idle's alone: %.300s", last);
	free(r);
	r = run(fx, NULL, "watch", "walker.md5anim", "--fade-to", "nothing.md5anim", "--frames", "1",
		NULL);
	expect(r, 1, NULL, "not_found");
	free(r);
	r = run(fx, NULL, "watch", "orbit.md5camera", "--frames", "1", NULL);
	expect(r, 2, NULL, "no skeleton");
	free(r);

	/* events: change an asset file, and again until the subscriber (which
	 * may not have subscribed yet) reports a reload. */
	r = calloc(1, sizeof *r);
	spawn(fx, args, &ch);
	snprintf(path, sizeof path, "%s/idle.md5anim", fx->d.assets);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = malloc((size_t)n + 64);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	for (int i = 0; i < 30; i++) {
		struct pollfd p = { .fd = ch.out, .events = POLLIN };

		/* A change the parser accepts (unchanged bytes are not a reload). */
		snprintf(text + n, 64, "\n// touched by test_client_cli %d\n", i);
		assert_int_equal(daemon_proc_write_asset(&fx->d, "idle.md5anim", text), 0);
		if (poll(&p, 1, 300) == 1)
			break;
	}
	free(text);
	collect(&ch, r, TIMEOUT_MS);
	expect(r, 0, "{\"type\":\"asset.reloaded\",\"asset\":\"idle.md5anim\"", NULL);
	free(r);
}

/* animctl events ASSET[#CLIP]: the demo lantern's Stand (a 2 s loop) creaks
 * at 0.5 and 1.5 s: one line per crossing, forward and backward, as text and
 * JSON; info lists its attachment and events; the new options' usage
 * errors. */
static void test_events_of_a_clip(void **state)
{
	struct fixture *fx = *state;
	const char *second;
	struct run *r;

	r = run(fx, NULL, "events", "lantern.m2#0", "--speed", "4", "--count", "2", "--seconds", "9",
		NULL);
	expect(r, 0, "clip.event asset=lantern.m2 instance=1 clip=0 event=0 id=$CSD data=7 bone=1 "
	       "time=0.500 playback_time=0.500 direction=forward\n", NULL);
	second = strchr(r->out, '\n');
	assert_non_null(second);
	if (strstr(second, " time=1.500 playback_time=1.500 ") == NULL ||
	    strchr(second + 1, '\n')[1] != '\0')
		fail_msg("not the second crossing alone: %s", r->out);
	free(r);
	r = run(fx, NULL, "--json", "events", "lantern.m2", "--speed=-4", "--count", "1", NULL);
	/* Instance ids are the daemon's: this is its second. */
	expect(r, 0, "{\"type\":\"clip.event\",\"asset\":\"lantern.m2\",\"instance\":2,\"clip\":"
	       "\"0\",\"time\":1.5,\"event\":0,\"id\":\"$CSD\",\"data\":7,\"bone\":1,\"joint\":1,"
	       "\"position\":[0,0,2],\"playback_time\":-0.5,\"at_ns\":", NULL);
	expect(r, 0, "\"direction\":\"backward\",\"missed\":0}\n", NULL);
	free(r);
	/* A clip played once for a while: its two crossings, then nothing
	 * until the time is up. */
	r = run(fx, NULL, "events", "lantern.m2#0", "--loop", "once", "--speed", "8", "--seconds",
		"0.6", NULL);
	expect(r, 0, "playback_time=0.500", NULL);
	second = strchr(r->out, '\n');
	assert_non_null(strstr(second, "playback_time=1.500"));
	assert_int_equal(strchr(second + 1, '\n')[1], '\0');
	free(r);
	r = run(fx, NULL, "events", "--seconds", "0.2", NULL);
	expect(r, 0, NULL, NULL);
	free(r);
	r = run(fx, NULL, "events", "--speed", "2", NULL);
	expect(r, 2, NULL, "give ASSET");
	free(r);
	r = run(fx, NULL, "events", "lantern.m2", "--loop", "sideways", NULL);
	expect(r, 2, NULL, "--loop is loop, once or pingpong");
	free(r);
	r = run(fx, NULL, "events", "lantern.m2", "--events", "all", NULL);
	expect(r, 2, NULL, "--events");
	free(r);
	r = run(fx, NULL, "events", "nope.m2", "--seconds", "1", NULL);
	expect(r, 1, NULL, "not_found");
	free(r);
	r = run(fx, NULL, "info", "lantern.m2", NULL);
	expect(r, 0, "attachment  0: id 11 on bone 0 \"bone0\" at 0.5 0 1.4\n", NULL);
	expect(r, 0, "event       0: \"$CSD\", data 7, on bone 1 \"bone1\" at 0 0 2\n", NULL);
	expect(r, 0, "            events: 0 at 0.5 s, 0 at 1.5 s\n", NULL);
	expect(r, 0, "            events: 0 at 0.5 s, 0 at 32.767 s\n", NULL);
	free(r);
	r = run(fx, NULL, "--json", "info", "lantern.m2", NULL);
	expect(r, 0, "\"events\":[{\"time\":0.5,\"event\":0},{\"time\":1.5,\"event\":0}]", NULL);
	expect(r, 0, "\"attachments\":[{\"index\":0,\"id\":11,\"bone\":0,\"joint\":2,", NULL);
	expect(r, 0, "\"events\":[{\"index\":0,\"id\":\"$CSD\",\"data\":7,\"bone\":1,\"joint\":1,"
	       "\"position\":[0,0,2]}]", NULL);
	free(r);
}

/* An asset whose name holds a quote and a letter that is not ASCII:
 * `list` shows it as it is, `list --json` and `events` escape the quote.
 * A name with a control byte is not served (the daemon's naming rule):
 * never listed, said in the daemon's log with the byte escaped, counted by
 * `status`; no raw control byte reaches the terminal. */
static void test_names_escaped(void **state)
{
	static const char name[] = "odd\"q\xc3\xa9.md5anim";
	static const char unservable[] = "odd\001.md5anim";
	char *args[] = { "events", "--count", "1", "--events", "asset.error", NULL };
	struct fixture *fx = *state;
	struct run *r = NULL;
	struct child ch;

	assert_int_equal(daemon_proc_write_asset(&fx->d, unservable, "x\n"), 0);
	assert_int_equal(daemon_proc_write_asset(&fx->d, name, "x\n"), 0);
	for (int i = 0; i < 100; i++) {
		free(r);
		r = run(fx, NULL, "list", NULL);
		if (strstr(r->out, name) != NULL && strstr(r->out, "error: odd\"q") != NULL)
			break;
		poll(NULL, 0, 100);
	}
	expect(r, 0, "odd\"q\xc3\xa9.md5anim  md5anim", NULL);
	expect(r, 0, "error: odd\"q\xc3\xa9.md5anim:1:1: error: expected \"MD5Version\"", NULL);
	assert_null(strstr(r->out, "odd\001"));
	assert_null(strstr(r->out, "odd\\x01"));
	free(r);
	/* The same rule as the daemon's log. */
	assert_true(daemon_proc_log_contains(&fx->d, "odd\"q\xc3\xa9.md5anim:1:1: error:"));
	r = run(fx, NULL, "list", "--json", NULL);
	expect(r, 0, "{\"asset\":\"odd\\\"q\xc3\xa9.md5anim\",\"format\":\"md5anim\"", NULL);
	free(r);
	r = NULL;
	for (int i = 0; i < 100; i++) {
		free(r);
		r = run(fx, NULL, "status", NULL);
		if (strstr(r->out, "1 not served") != NULL)
			break;
		poll(NULL, 0, 100);
	}
	expect(r, 0, " failing, 0 loading, 1 not served)", NULL);
	free(r);
	assert_true(daemon_proc_log_contains(&fx->d, "asset name \"odd\\x01.md5anim\" holds a "
						     "control character: not served; rename the file"));

	r = calloc(1, sizeof *r);
	assert_non_null(r);
	spawn(fx, args, &ch);
	for (int i = 0; i < 30; i++) {
		struct pollfd p = { .fd = ch.out, .events = POLLIN };
		char text[32];

		/* Broken differently each time: each save is a new asset.error. */
		snprintf(text, sizeof text, "y%d\n", i);
		assert_int_equal(daemon_proc_write_asset(&fx->d, name, text), 0);
		if (poll(&p, 1, 300) == 1)
			break;
	}
	collect(&ch, r, TIMEOUT_MS);
	expect(r, 0, "asset.error asset=\"odd\\\"q\xc3\xa9.md5anim\" format=md5anim live=no "
		     "message=\"odd\\\"q\xc3\xa9.md5anim:1:1: error: expected \\\"MD5Version\\\", "
		     "found \\\"y", NULL);
	assert_null(strchr(r->out, '\001'));
	free(r);
}

/* Error lines, whole: the command's name, the daemon's code and message
 * without the protocol method, printed once. */
static void test_error_lines(void **state)
{
	struct fixture *fx = *state;
	char path[512], want[1024];
	struct run *r;
	FILE *f;

	r = run(fx, NULL, "info", "nope.md5mesh", NULL);
	expect(r, 1, NULL, NULL);
	assert_string_equal(r->err, "animctl info: not_found: no asset named \"nope.md5mesh\" "
				    "(assets.list shows them)\n");
	free(r);
	r = run(fx, NULL, "play", "nope.md5anim", "--no-input", NULL);
	expect(r, 1, NULL, NULL);
	assert_string_equal(r->err, "animctl play: not_found: no asset named \"nope.md5anim\" "
				    "(assets.list shows them)\n");
	free(r);
	/* A stream that cannot be opened is `play`'s failure, not stream.open's. */
	r = run(fx, NULL, "play", "walker.md5anim", "--stream", "--space", "camera", "--no-input",
		NULL);
	if (strstr(r->err, "stream.open") != NULL || strncmp(r->err, "animctl play: ", 14) != 0)
		fail_msg("stderr: %s", r->err);
	free(r);
	/* A bad value is reported once, not also as "bad option". */
	r = run(fx, NULL, "--timeout", "abc", "status", NULL);
	expect(r, 2, NULL, NULL);
	assert_string_equal(r->err, "animctl: --timeout is 0..86400000 ms, not \"abc\"\n"
				    "(see animctl --help)\n");
	free(r);
	r = run(fx, NULL, "play", "walker.md5anim", "--stream", "--rate", "fast", NULL);
	expect(r, 2, NULL, NULL);
	assert_string_equal(r->err, "animctl play: --rate is 0..1000 Hz, not \"fast\"\n"
				    "(see animctl play --help)\n");
	free(r);

	/* --socket naming a regular file: not a socket, and no hint to start
	 * a daemon. */
	snprintf(path, sizeof path, "%s/not-a-socket", fx->d.dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	r = run(fx, NULL, "--socket", path, "status", NULL);
	expect(r, 3, NULL, NULL);
	snprintf(want, sizeof want,
		 "animctl status: cannot connect to %s: not a socket (a regular file)\n", path);
	assert_string_equal(r->err, want);
	free(r);
	r = run(fx, NULL, "--socket", fx->d.dir, "list", NULL);
	expect(r, 3, NULL, "not a socket (a directory)");
	free(r);
}

/* Counts with their noun in the singular for one: a one-joint mesh of one
 * triangle, the demo's camera and meshes. */
static void test_plurals(void **state)
{
	static const char one[] =
		"MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\n"
		"joints {\n\t\"root\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n}\n"
		"mesh {\n\tshader \"one\"\n\tnumverts 3\n"
		"\tvert 0 ( 0 0 ) 0 1\n\tvert 1 ( 1 0 ) 1 1\n\tvert 2 ( 0 1 ) 2 1\n"
		"\tnumtris 1\n\ttri 0 0 2 1\n\tnumweights 3\n"
		"\tweight 0 0 1 ( 0 0 0 )\n\tweight 1 0 1 ( 1 0 0 )\n\tweight 2 0 1 ( 0 1 0 )\n}\n";
	struct fixture *fx = *state;
	struct run *r = NULL;

	assert_int_equal(daemon_proc_write_asset(&fx->d, "one.md5mesh", one), 0);
	for (int i = 0; i < 100; i++) {
		free(r);
		r = run(fx, NULL, "info", "one.md5mesh", NULL);
		if (r->status == 0)
			break;
		poll(NULL, 0, 100);
	}
	expect(r, 0, "\nskeleton    1 joint, bind pose\n", NULL);
	expect(r, 0, ": 3 vertices, 1 triangle, 3 weights, skinned", NULL);
	free(r);
	r = run(fx, NULL, "info", "walker.md5mesh", NULL);
	expect(r, 0, "\nskeleton    10 joints, bind pose\n", NULL);
	expect(r, 0, "\"mesh0\": 8 vertices, 12 triangles, 8 weights, skinned", NULL);
	free(r);
	r = run(fx, NULL, "info", "orbit.md5camera", NULL);
	expect(r, 0, "camera      96 frames at 30 fps, 3.1 s playable, cuts: 40 70\n", NULL);
	free(r);
	r = run(fx, NULL, "sample", "one.md5mesh", "--time", "0", "--space", "vertices", NULL);
	expect(r, 0, "mesh mesh0: 3 vertices (--json prints them)\n", NULL);
	free(r);
}

/* `watch` at a terminal (a pseudo-terminal here): the header names the clip
 * on screen as ASSET#CLIP; n and p cross-fade through the clips that fit the
 * mesh, the asset's own and other files' (not one whose skeleton differs). */
struct tty_child {
	pid_t pid;
	int master;
	char screen[1 << 17];
	size_t len;
};

static void tty_spawn(const struct fixture *fx, char *const args[], struct tty_child *t)
{
	struct winsize ws = { .ws_row = 50, .ws_col = 160 };
	char *argv[32];
	int n = 0;

	argv[n++] = (char *)fx->animctl;
	for (int i = 0; args[i] != NULL && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	t->len = 0;
	t->master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(t->master >= 0);
	assert_int_equal(grantpt(t->master), 0);
	assert_int_equal(unlockpt(t->master), 0);
	assert_int_equal(ioctl(t->master, TIOCSWINSZ, &ws), 0);
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (t->pid == 0) {
		int slave;

		setsid();
		slave = open(ptsname(t->master), O_RDWR);
		if (slave < 0)
			_exit(127);
		dup2(slave, STDIN_FILENO);
		dup2(slave, STDOUT_FILENO);
		dup2(slave, STDERR_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
}

/* Read the screen until `want` appears after offset `from` (true), or the
 * time is up. */
static bool tty_wait(struct tty_child *t, size_t from, const char *want)
{
	long deadline = now_ms() + TIMEOUT_MS;

	for (;;) {
		struct pollfd p = { .fd = t->master, .events = POLLIN };
		long left = deadline - now_ms();
		ssize_t n;

		if (from <= t->len && strstr(t->screen + from, want) != NULL)
			return true;
		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return false;
		n = read(t->master, t->screen + t->len, sizeof t->screen - 1 - t->len);
		if (n <= 0)
			return false;
		t->len += (size_t)n;
		t->screen[t->len] = '\0';
		/* Keep the tail: the header repeats every frame. */
		if (t->len > sizeof t->screen / 2) {
			size_t drop = t->len - sizeof t->screen / 4;

			memmove(t->screen, t->screen + drop, t->len - drop + 1);
			t->len -= drop;
			from = from > drop ? from - drop : 0;
		}
	}
}

static void tty_key(struct tty_child *t, const char *keys, const char *want)
{
	size_t from = t->len;

	assert_int_equal(write(t->master, keys, strlen(keys)), (ssize_t)strlen(keys));
	if (!tty_wait(t, from, want))
		fail_msg("no \"%s\" after %s; the screen ends: %s", want, keys,
			 t->screen + (t->len > 2000 ? t->len - 2000 : 0));
}

static void test_watch_keys(void **state)
{
	char *args[] = { "watch", "walker.md5anim", "--mesh", "walker.md5mesh", "--fade", "0",
			 NULL };
	struct fixture *fx = *state;
	struct tty_child *t = calloc(1, sizeof *t);
	char path[512], *text;
	int wstatus;
	FILE *f;
	long n;

	assert_non_null(t);
	/* rest.md5anim: idle's copy, fits; bent.md5anim: a joint renamed, does
	 * not. */
	snprintf(path, sizeof path, "%s/idle.md5anim", fx->d.assets);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	assert_int_equal(daemon_proc_write_asset(&fx->d, "rest.md5anim", text), 0);
	memcpy(strstr(text, "\"spine\""), "\"spinx\"", 7);
	assert_int_equal(daemon_proc_write_asset(&fx->d, "bent.md5anim", text), 0);
	free(text);
	for (int i = 0; i < 100; i++) {
		struct run *r = run(fx, NULL, "list", NULL);
		bool both = strstr(r->out, "rest.md5anim") && strstr(r->out, "bent.md5anim");

		free(r);
		if (both)
			break;
		poll(NULL, 0, 100);
	}

	tty_spawn(fx, args, t);
	if (!tty_wait(t, 0, "walker.md5anim#walker on walker.md5mesh (1 of 3)"))
		fail_msg("no header naming the clip: %s", t->screen);
	assert_true(tty_wait(t, 0, "n/p fade to next/previous of 3 clips"));
	tty_key(t, "n", "idle.md5anim#idle on walker.md5mesh (2 of 3)");
	tty_key(t, "n", "rest.md5anim#rest on walker.md5mesh (3 of 3)");
	tty_key(t, "n", "walker.md5anim#walker on walker.md5mesh (1 of 3)");
	tty_key(t, "p", "rest.md5anim#rest on walker.md5mesh (3 of 3)");
	assert_null(strstr(t->screen, "bent.md5anim"));
	assert_int_equal(write(t->master, "q", 1), 1);
	assert_int_equal(waitpid(t->pid, &wstatus, 0), t->pid);
	assert_true(WIFEXITED(wstatus));
	assert_int_equal(WEXITSTATUS(wstatus), 0);
	close(t->master);
	free(t);
}

/* The daemon going away under `events`: one line, said once. */
/* Whether a connection other than the asking one has subscribed to events,
 * in `animctl --json clients`'s output. */
static bool events_subscribed(const char *json)
{
	for (const char *p = strstr(json, "{\"connection\":"); p != NULL;
	     p = strstr(p + 1, "{\"connection\":")) {
		const char *end = strchr(p, '}');
		const char *self = strstr(p, "\"self\":false");
		const char *ev = strstr(p, "\"events\":");

		if (end != NULL && self != NULL && self < end && ev != NULL && ev < end &&
		    strtoull(ev + strlen("\"events\":"), NULL, 10) > 0)
			return true;
	}
	return false;
}

static void test_connection_lost_line(void **state)
{
	char *args[] = { "events", NULL };
	struct fixture *fx = *state;
	struct run *r = calloc(1, sizeof *r);
	struct child ch;
	struct pollfd p;

	assert_non_null(r);
	spawn(fx, args, &ch);
	/* Subscribed once `clients` shows its connection with events: counting
	 * connections alone races the subscribe call on a loaded machine. */
	bool subscribed = false;

	for (int i = 0; i < 200 && !subscribed; i++) {
		struct run *cl = run(fx, NULL, "--json", "clients", NULL);

		subscribed = events_subscribed(cl->out);
		free(cl);
		if (!subscribed)
			poll(NULL, 0, 50);
	}
	assert_true(subscribed);
	assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	p = (struct pollfd){ .fd = ch.err, .events = POLLIN };
	poll(&p, 1, TIMEOUT_MS);
	collect(&ch, r, TIMEOUT_MS);
	expect(r, 3, "server.stopping", NULL);
	assert_string_equal(r->err, "animctl events: connection to the daemon lost\n");
	free(r);
	/* Back, for the teardown. */
	assert_int_equal(daemon_proc_start(&fx->d, "[reload]\nquiet_ms = 50\n", TIMEOUT_MS), 0);
}

/* The connection id of the first other connection `--json clients` lists
 * (0 if none). */
static uint64_t other_connection(const struct fixture *fx)
{
	struct run *r = run(fx, NULL, "--json", "clients", NULL);
	uint64_t id = 0;

	expect(r, 0, "{\"clients\":[", NULL);
	for (const char *p = strstr(r->out, "{\"connection\":"); p != NULL && id == 0;
	     p = strstr(p + 1, "{\"connection\":")) {
		const char *end = strchr(p, '}');

		if (end != NULL && strstr(p, "\"self\":false") != NULL &&
		    strstr(p, "\"self\":false") < end)
			id = strtoull(p + strlen("{\"connection\":"), NULL, 10);
	}
	free(r);
	return id;
}

/* What an operator types: reload, clients, instances --all, stop --any,
 * clients kill. */
static void test_operator_commands(void **state)
{
	struct fixture *fx = *state;
	char *play_args[] = { "play", "walker.md5anim", "--no-input", NULL };
	char *events_args[] = { "events", NULL };
	struct run *r, *pr = calloc(1, sizeof *pr), *er = calloc(1, sizeof *er);
	struct child pc, ec;
	struct pollfd p;
	char id[32];

	r = run(fx, NULL, "reload", "walker.md5anim", NULL);
	expect(r, 0, "walker.md5anim generation 1 (unchanged: the file is the live version)\n", NULL);
	free(r);
	r = run(fx, NULL, "--json", "reload", "idle.md5anim", NULL);
	expect(r, 0, "{\"asset\":\"idle.md5anim\",\"generation\":1,\"unchanged\":true}\n", NULL);
	free(r);
	r = run(fx, NULL, "reload", "nope.md5anim", NULL);
	expect(r, 1, NULL, "animctl reload: not_found:");
	free(r);
	r = run(fx, NULL, "clients", NULL);
	expect(r, 0, "CONN   NAME ", NULL);
	expect(r, 0, " animctl ", NULL);
	expect(r, 0, "  (this)\n", NULL);
	free(r);

	/* Another animctl's instance: seen with --all, stopped with --any
	 * (its owner hears why), not without. */
	spawn(fx, play_args, &pc);
	p = (struct pollfd){ .fd = pc.out, .events = POLLIN };
	assert_int_equal(poll(&p, 1, TIMEOUT_MS), 1);
	r = run(fx, NULL, "instances", "--all", NULL);
	expect(r, 0, "\"animctl\"  instance 1 playing  walker.md5anim", NULL);
	free(r);
	r = run(fx, NULL, "--json", "instances", "--all", NULL);
	expect(r, 0, "\"connection\":", NULL);
	expect(r, 0, "\"client\":\"animctl\"}", NULL);
	free(r);
	r = run(fx, NULL, "stop", "1", NULL);
	expect(r, 1, NULL, "or as an operator with --any");
	free(r);
	r = run(fx, NULL, "seek", "1", "0", "--any", NULL);
	expect(r, 2, NULL, "--any goes with pause, resume and stop");
	free(r);
	r = run(fx, NULL, "stop", "--any", "1", NULL);
	expect(r, 0, "instance 1 stopped", NULL);
	free(r);
	collect(&pc, pr, TIMEOUT_MS);
	/* The daemon's side ended it: play exits 1, as for any stop not its own. */
	expect(pr, 1, "instance.stopped asset=walker.md5anim instance=1", NULL);
	expect(pr, 1, "reason=\"operator\"", NULL);
	free(pr);

	/* An `animctl events` closed by another: it says who and why. */
	spawn(fx, events_args, &ec);
	for (int i = 0; i < 100 && other_connection(fx) == 0; i++)
		poll(NULL, 0, 20);
	snprintf(id, sizeof id, "%llu", (unsigned long long)other_connection(fx));
	r = run(fx, NULL, "clients", "kill", id, "--reason", "too chatty", NULL);
	expect(r, 0, "closed connection ", NULL);
	expect(r, 0, "\"animctl\" (pid ", NULL);
	free(r);
	collect(&ec, er, TIMEOUT_MS);
	expect(er, 3, "client.killed reason=\"too chatty\"", "animctl events: connection to the "
	       "daemon lost: closed by connection ");
	expect(er, 3, NULL, "with clients.kill: too chatty");
	free(er);
	r = run(fx, NULL, "clients", "kill", id, NULL);
	expect(r, 1, NULL, "animctl clients: not_found: no connection");
	free(r);
	r = run(fx, NULL, "clients", "frob", NULL);
	expect(r, 2, NULL, "unknown verb");
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_shot_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evicted_said, setup_capped, teardown),
		cmocka_unit_test_setup_teardown(test_exit_codes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help_everywhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_play_steered_from_stdin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_play_layers_from_stdin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_play_until_signal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch_and_events_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events_of_a_clip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_escaped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plurals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connection_lost_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_operator_commands, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
