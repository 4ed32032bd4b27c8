/*
 * Operators against the real daemon, through libanimclient and animctl:
 * clients have names (hello's, the program's by default), clients.list
 * shows every connection with its peer's pid, uid and gid and what it
 * owns, instances.list "all" every connection's instances with their
 * owner; an operator pauses and stops another connection's instance (its
 * owner told: instance.stopped, reason operator) and closes a connection
 * (clients.kill: it is sent client.killed, and its loss says who and why).
 * Who may is control.operators: privileged (root, the daemon's user, the
 * peer's own user: a child at uid 65534 is refused on root's connection
 * and allowed on its own), none (nobody, root included), everyone (uid
 * 65534 too), changed by SIGHUP.  A peer without permission to connect is
 * told which group to join, by the library and by animctl.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/animclient.h"
#include "tests/support/daemon_proc.h"

#define TIMEOUT_MS 10000
#define NOBODY 65534

struct fixture {
	struct daemon_proc d;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	const char *build = getenv("BUILD");
	char cmd[1024];

	assert_non_null(fx);
	assert_int_equal(daemon_proc_init(&fx->d), 0);
	snprintf(cmd, sizeof cmd, "%s/gen/gen_demo %s >/dev/null", build ? build : "build",
		 fx->d.assets);
	assert_int_equal(system(cmd), 0);
	/* A socket every user may reach, so that uid 65534 connects: the
	 * operator setting is then all that stands between it and root's
	 * connections. */
	assert_int_equal(daemon_proc_start(&fx->d, "[socket]\nmode = 0666\n", TIMEOUT_MS), 0);
	assert_int_equal(chmod(fx->d.dir, 0755), 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	assert_int_equal(daemon_proc_stop(&fx->d, SIGTERM, TIMEOUT_MS), 0);
	daemon_proc_cleanup(&fx->d);
	free(fx);
	return 0;
}

static animc_client *connect_as(struct fixture *fx, const char *name)
{
	animc_client *c;

	assert_int_equal(animc_client_new(&c), 0);
	if (name != NULL)
		assert_int_equal(animc_client_set_name(c, name), 0);
	if (animc_client_connect(c, fx->d.socket, TIMEOUT_MS) != 0) {
		const char *msg;

		animc_client_error(c, NULL, &msg);
		fail_msg("connect: %s", msg);
	}
	return c;
}

static uint64_t connection_of(animc_client *c)
{
	animc_hello_info *h;
	uint64_t id;

	assert_int_equal(animc_hello(c, &h), 0);
	id = h->connection;
	animc_free(h);
	return id;
}

static uint64_t play(animc_client *c, const char *asset)
{
	animc_play_opts o = ANIMC_PLAY_OPTS_INIT;
	animc_instance *in;
	uint64_t id;

	o.asset = asset;
	assert_int_equal(animc_play(c, &o, &in), 0);
	id = in->id;
	animc_free(in);
	return id;
}

/* The code of the last failure and whether its message holds `needle`. */
static void expect_refusal(animc_client *c, int rc, animc_error_code want, const char *needle)
{
	const char *name, *msg;

	assert_int_equal(rc, -EREMOTEIO);
	assert_int_equal(animc_client_error(c, &name, &msg), want);
	if (needle != NULL && strstr(msg, needle) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", msg, needle);
}

struct seen {
	int stopped;
	char reason[64], message[256];
	int killed;
	uint64_t killer;
};

static void on_event(animc_client *c, const animc_event *ev, void *user)
{
	struct seen *s = user;

	(void)c;
	if (ev->type == ANIMC_EVENT_INSTANCE_STOPPED) {
		s->stopped++;
		snprintf(s->reason, sizeof s->reason, "%s", ev->reason ? ev->reason : "");
		snprintf(s->message, sizeof s->message, "%s", ev->message ? ev->message : "");
	} else if (ev->type == ANIMC_EVENT_CLIENT_KILLED) {
		s->killed++;
		s->killer = ev->connection;
		snprintf(s->message, sizeof s->message, "%s", ev->message ? ev->message : "");
	}
}

static const animc_client_info *client_in(const animc_client_list *l, uint64_t id)
{
	for (size_t i = 0; i < l->count; i++)
		if (l->clients[i]->connection == id)
			return l->clients[i];
	return NULL;
}

static void test_see_pause_stop_kill(void **state)
{
	struct fixture *fx = *state;
	animc_client *a = connect_as(fx, "walker-test"), *b = connect_as(fx, NULL);
	uint64_t ca = connection_of(a), cb = connection_of(b), id;
	const animc_client_info *ci;
	animc_owned_instance_list *all;
	animc_client_list *l;
	animc_instance *st;
	animc_kill_info *k;
	struct seen seen = { 0 };
	const char *msg;
	int found = 0;

	animc_client_on_event(a, on_event, &seen);
	assert_int_equal(animc_subscribe(a, ANIMC_EVENTS_INSTANCES, NULL), 0);
	id = play(a, "walker.md5anim");

	/* Seen: names (the given one; else the program's), peers, owned. */
	assert_int_equal(animc_clients_list(b, &l), 0);
	ci = client_in(l, ca);
	assert_non_null(ci);
	assert_string_equal(ci->name, "walker-test");
	assert_int_equal(ci->pid, getpid());
	assert_int_equal(ci->uid, getuid());
	assert_int_equal(ci->gid, getgid());
	assert_int_equal(ci->instances, 1);
	assert_false(ci->self);
	assert_true(ci->memory_bytes > 0);
	ci = client_in(l, cb);
	assert_non_null(ci);
	assert_string_equal(ci->name, "test_operators");
	assert_true(ci->self);
	animc_free(l);
	assert_int_equal(animc_instances_list_all(b, &all), 0);
	for (size_t i = 0; i < all->count; i++) {
		if (all->instances[i]->instance->id != id)
			continue;
		found++;
		assert_int_equal(all->instances[i]->connection, ca);
		assert_string_equal(all->instances[i]->client, "walker-test");
		assert_false(all->instances[i]->own);
	}
	assert_int_equal(found, 1);
	animc_free(all);

	/* Steered by another connection: only with "any". */
	expect_refusal(b, animc_stop(b, id, NULL), ANIMC_ERR_NOT_FOUND, "\"any\": true");
	assert_int_equal(animc_pause_any(b, id, &st), 0);
	assert_int_equal(st->state, ANIMC_STATE_PAUSED);
	animc_free(st);
	assert_int_equal(animc_resume_any(b, id, NULL), 0);
	assert_int_equal(animc_stop_any(b, id, &st), 0);
	assert_int_equal(st->state, ANIMC_STATE_STOPPED);
	animc_free(st);
	for (int i = 0; i < 100 && seen.stopped == 0; i++)
		animc_client_wait(a, 50);
	assert_int_equal(seen.stopped, 1);
	assert_string_equal(seen.reason, "operator");
	assert_non_null(strstr(seen.message, "\"test_operators\""));

	/* Killed: what it owned ends, it is told who and why. */
	play(a, "idle.md5anim");
	expect_refusal(b, animc_clients_kill(b, cb, NULL, NULL), ANIMC_ERR_BAD_REQUEST, NULL);
	assert_int_equal(animc_clients_kill(b, ca, "runaway in the test", &k), 0);
	assert_int_equal(k->connection, ca);
	assert_string_equal(k->name, "walker-test");
	assert_int_equal(k->instances, 1);
	animc_free(k);
	assert_int_equal(animc_status(a, NULL), -ECONNRESET);
	animc_client_error(a, NULL, &msg);
	assert_non_null(strstr(msg, "with clients.kill: runaway in the test"));
	animc_client_process(a);
	assert_int_equal(seen.killed, 1);
	assert_int_equal(seen.killer, cb);
	expect_refusal(b, animc_clients_kill(b, ca, NULL, NULL), ANIMC_ERR_NOT_FOUND, NULL);
	assert_true(daemon_proc_log_contains(&fx->d, "\"walker-test\""));
	assert_true(daemon_proc_log_contains(&fx->d, "runaway in the test"));
	animc_client_close(a);

	/* A name is the peer's to choose: bounded, UTF-8, and escaped where
	 * the daemon prints it. */
	assert_int_equal(animc_client_new(&a), 0);
	assert_int_equal(animc_client_set_name(a, "0123456789012345678901234567890123456789"
						"0123456789012345678901234"), -EINVAL);
	assert_int_equal(animc_client_set_name(a, "bad\xff"), -EINVAL);
	assert_int_equal(animc_client_set_name(a, "esc\x1b[2Jname"), 0);
	assert_int_equal(animc_client_connect(a, fx->d.socket, TIMEOUT_MS), 0);
	assert_int_equal(animc_clients_list(b, &l), 0);
	ci = client_in(l, connection_of(a));
	assert_non_null(ci);
	assert_string_equal(ci->name, "esc\x1b[2Jname");
	animc_free(l);
	assert_int_equal(animc_clients_kill(b, connection_of(a), "bye\x1b[2J", NULL), 0);
	assert_true(daemon_proc_log_contains(&fx->d, "esc\\x1b[2Jname"));
	assert_true(daemon_proc_log_contains(&fx->d, "bye\\x1b[2J"));
	assert_false(daemon_proc_log_contains(&fx->d, "\x1b"));
	animc_client_close(a);
	animc_client_close(b);
}

/* What a child at uid 65534 does to root's connection `target` (0: leave
 * it) and its instance `id`: a bit per thing allowed (1 kill, 2 stop, 4
 * pause), 8 when it killed a connection of its own, 64 on a failure of its
 * own (a refusal of the kill without `want` in its message included). */
static int as_nobody(struct fixture *fx, uint64_t target, uint64_t id, const char *want)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		animc_client *n = NULL, *own = NULL;
		const char *msg = "";
		int got = 0, rc;

		if (setgroups(0, NULL) != 0 || setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
		    setresuid(NOBODY, NOBODY, NOBODY) != 0 || animc_client_new(&n) != 0 ||
		    animc_client_new(&own) != 0 ||
		    animc_client_connect(n, fx->d.socket, TIMEOUT_MS) != 0 ||
		    animc_client_connect(own, fx->d.socket, TIMEOUT_MS) != 0)
			_exit(64);
		rc = target != 0 ? animc_clients_kill(n, target, NULL, NULL) : -EREMOTEIO;
		if (rc == 0)
			got |= 1;
		else if (target != 0 &&
			 (animc_client_error(n, NULL, &msg) != ANIMC_ERR_PERMISSION_DENIED ||
			  strstr(msg, want) == NULL))
			_exit(64);
		if (animc_stop_any(n, id, NULL) == 0)
			got |= 2;
		if (animc_pause_any(n, id, NULL) == 0)
			got |= 4;
		if (animc_clients_kill(n, connection_of(own), NULL, NULL) == 0)
			got |= 8;
		_exit(got);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* Rewrite the configuration with `extra` and SIGHUP: control.operators is
 * live. */
static void reconfigure(struct fixture *fx, const char *extra)
{
	FILE *f = fopen(fx->d.config, "w");

	assert_non_null(f);
	fprintf(f, "[assets]\nroot = %s\n\n[socket]\npath = %s\nmode = 0666\n\n%s\n", fx->d.assets,
		fx->d.socket, extra);
	assert_int_equal(fclose(f), 0);
	daemon_proc_drain_notify(&fx->d);
	kill(fx->d.pid, SIGHUP);
	assert_int_equal(daemon_proc_wait_notify(&fx->d, "READY=1", TIMEOUT_MS), 0);
}

static void test_who_may(void **state)
{
	struct fixture *fx = *state;
	animc_client *root = connect_as(fx, "root's");
	uint64_t target = connection_of(root), id = play(root, "walker.md5anim");
	animc_client *b;
	animc_instance_list *l;

	/* privileged (the default): root's connection is root's; uid 65534
	 * acts on its own alone. */
	assert_int_equal(as_nobody(fx, target, id, "(control.operators = privileged)"), 8);
	assert_int_equal(animc_instances_list(root, &l), 0);
	assert_int_equal(l->count, 1);
	assert_int_equal(l->instances[0].state, ANIMC_STATE_PLAYING);
	animc_free(l);

	/* none: nobody, root included. */
	reconfigure(fx, "[control]\noperators = none\n");
	b = connect_as(fx, NULL);
	expect_refusal(b, animc_stop_any(b, id, NULL), ANIMC_ERR_PERMISSION_DENIED,
		       "control.operators = none");
	expect_refusal(b, animc_clients_kill(b, target, NULL, NULL), ANIMC_ERR_PERMISSION_DENIED,
		       "control.operators = none");
	animc_client_close(b);

	/* everyone: uid 65534 stops and pauses root's instance, then kills
	 * root's connection. */
	reconfigure(fx, "[control]\noperators = everyone\n");
	assert_int_equal(as_nobody(fx, target, id, "-"), 1 | 8);
	assert_int_equal(animc_status(root, NULL), -ECONNRESET);
	animc_client_close(root);
	root = connect_as(fx, NULL);
	id = play(root, "walker.md5anim");
	assert_int_equal(as_nobody(fx, 0, id, "-") & (2 | 4), 2);     /* stopped; then gone */
	animc_client_close(root);
	reconfigure(fx, "");
}

/* Without permission to connect, the message names the socket's group
 * and what to do, in the library and in animctl. */
static void test_no_permission(void **state)
{
	struct fixture *fx = *state;
	const char *build = getenv("BUILD");
	char out[2048] = "", ctl[512];
	int fds[2], status;
	struct group *g = getgrgid(getgid());
	pid_t pid;
	ssize_t n;

	assert_non_null(g);
	snprintf(ctl, sizeof ctl, "%s/animctl", build ? build : "build");
	assert_int_equal(chmod(fx->d.socket, 0660), 0);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		animc_client *c;
		const char *msg = "";
		int rc;

		close(fds[0]);
		if (setgroups(0, NULL) != 0 || setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
		    setresuid(NOBODY, NOBODY, NOBODY) != 0 || animc_client_new(&c) != 0)
			_exit(64);
		rc = animc_client_connect(c, fx->d.socket, TIMEOUT_MS);
		animc_client_error(c, NULL, &msg);
		dprintf(fds[1], "%d %s\n", rc, msg);
		dup2(fds[1], STDERR_FILENO);
		execl(ctl, ctl, "--socket", fx->d.socket, "status", (char *)NULL);
		_exit(65);
	}
	close(fds[1]);
	for (size_t used = 0; (n = read(fds[0], out + used, sizeof out - 1 - used)) > 0;)
		used += (size_t)n;
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);      /* animctl: cannot connect */
	assert_int_equal(chmod(fx->d.socket, 0666), 0);
	{
		char want[512];

		snprintf(want, sizeof want, "%d cannot connect to %s: permission denied: the socket "
			 "is group %s's (mode 0660): join that group (sudo usermod -aG %s $USER) and "
			 "log in again\n", -EACCES, fx->d.socket, g->gr_name, g->gr_name);
		if (strncmp(out, want, strlen(want)) != 0)
			fail_msg("library: %s\nwanted: %s", out, want);
		snprintf(want, sizeof want, "animctl status: cannot connect to %s: permission denied: "
			 "the socket is group %s's (mode 0660): join that group", fx->d.socket,
			 g->gr_name);
		if (strstr(out, want) == NULL)
			fail_msg("animctl: %s\nwanted: %s", out, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_see_pause_stop_kill),
		cmocka_unit_test(test_who_may),
		cmocka_unit_test(test_no_permission),
	};

	if (geteuid() != 0) {
		/* uid 65534's refusals need a root test to drop to it. */
		printf("SKIP: test_operators runs as root (it drops to uid %d in children)\n", NOBODY);
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
