#include "tests/support/daemon_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long daemon_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int daemon_proc_init(struct daemon_proc *d)
{
	memset(d, 0, sizeof *d);
	d->pid = -1;
	d->notify_fd = -1;
	snprintf(d->dir, sizeof d->dir, "/tmp/animd-test-XXXXXX");
	if (mkdtemp(d->dir) == NULL)
		return -errno;
	snprintf(d->assets, sizeof d->assets, "%s/assets", d->dir);
	snprintf(d->socket, sizeof d->socket, "%s/animd.sock", d->dir);
	snprintf(d->config, sizeof d->config, "%s/animd.ini", d->dir);
	snprintf(d->log, sizeof d->log, "%s/animd.log", d->dir);
	snprintf(d->notify, sizeof d->notify, "%s/notify.sock", d->dir);
	return mkdir(d->assets, 0755) == 0 ? 0 : -errno;
}

int daemon_proc_write_asset(const struct daemon_proc *d, const char *name, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", d->assets, name);
	for (char *s = strchr(path + strlen(d->assets) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -errno;
}

static int daemon_open_notify(struct daemon_proc *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (d->notify_fd >= 0)
		return 0;
	d->notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (d->notify_fd < 0)
		return -errno;
	if (strlen(d->notify) >= sizeof sa.sun_path)
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, d->notify, strlen(d->notify) + 1);
	unlink(d->notify);
	if (bind(d->notify_fd, (struct sockaddr *)&sa, sizeof sa) < 0)
		return -errno;
	return 0;
}

int daemon_proc_wait_notify(struct daemon_proc *d, const char *prefix, int timeout_ms)
{
	long deadline = daemon_now_ms() + timeout_ms;
	char buf[4096];

	for (;;) {
		struct pollfd pfd = { .fd = d->notify_fd, .events = POLLIN };
		long left = deadline - daemon_now_ms();
		ssize_t n;
		int status;

		if (left <= 0)
			return -ETIMEDOUT;
		if (d->pid > 0 && waitpid(d->pid, &status, WNOHANG) == d->pid) {
			d->pid = -1;
			return -ECHILD;
		}
		if (poll(&pfd, 1, left > 100 ? 100 : (int)left) <= 0)
			continue;
		n = recv(d->notify_fd, buf, sizeof buf - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* A datagram may carry several newline-separated assignments. */
		for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
			if (strncmp(line, "STATUS=", 7) == 0)
				snprintf(d->status, sizeof d->status, "%s", line + 7);
			if (strncmp(line, prefix, strlen(prefix)) == 0)
				return 0;
		}
	}
}

void daemon_proc_drain_notify(struct daemon_proc *d)
{
	char buf[4096];
	ssize_t n;

	while ((n = recv(d->notify_fd, buf, sizeof buf - 1, MSG_DONTWAIT)) > 0) {
		buf[n] = '\0';
		for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
			if (strncmp(line, "STATUS=", 7) == 0)
				snprintf(d->status, sizeof d->status, "%s", line + 7);
	}
}

int daemon_proc_touch_asset(const struct daemon_proc *d, const char *name)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", d->assets, name);
	f = fopen(path, "a");
	if (f == NULL)
		return -errno;
	fputc('\n', f);
	return fclose(f) == 0 ? 0 : -errno;
}

int daemon_proc_spawn(struct daemon_proc *d, const char *extra_ini, const char *activator)
{
	const char *animd = getenv("ANIMD");
	pid_t parent;
	FILE *f;
	int rc;

	if (animd == NULL)
		animd = "build/animd";
	f = fopen(d->config, "w");
	if (f == NULL)
		return -errno;
	fprintf(f, "[assets]\nroot = %s\n\n[socket]\npath = %s\n\n%s\n", d->assets, d->socket,
		extra_ini ? extra_ini : "");
	if (fclose(f) != 0)
		return -errno;
	rc = daemon_open_notify(d);
	if (rc < 0)
		return rc;
	parent = getpid();
	d->pid = fork();
	if (d->pid < 0)
		return -errno;
	if (d->pid == 0) {
		int fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			dup2(fd, STDOUT_FILENO);
		}
		/* A test killed outright must not leave its daemon behind. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		setenv("NOTIFY_SOCKET", d->notify, 1);
		/* The journal's "<N>" prefixes, whatever stderr is: tests that
		 * read the log (the soak's count of errors and warnings) parse
		 * them. */
		if (activator != NULL)
			/* It binds the socket, then execs animd in this process
			 * on the first connection, passing it the socket. */
			execlp(activator, activator, "-l", d->socket, animd, "serve", "-c", d->config,
			       "--log-format=journal", (char *)NULL);
		else
			execl(animd, animd, "serve", "-c", d->config, "--log-format=journal",
			      (char *)NULL);
		_exit(127);
	}
	return 0;
}

int daemon_proc_start_indexed(struct daemon_proc *d, const char *extra_ini, int timeout_ms)
{
	int rc = daemon_proc_spawn(d, extra_ini, NULL);

	return rc < 0 ? rc : daemon_proc_wait_notify(d, "READY=1", timeout_ms);
}

int daemon_proc_start(struct daemon_proc *d, const char *extra_ini, int timeout_ms)
{
	int rc = daemon_proc_start_indexed(d, extra_ini, timeout_ms);

	return rc < 0 ? rc : daemon_proc_wait_notify(d, "STATUS=serving", timeout_ms);
}

int daemon_proc_stop(struct daemon_proc *d, int sig, int timeout_ms)
{
	long deadline = daemon_now_ms() + timeout_ms;
	int status;

	if (d->pid <= 0)
		return -ECHILD;
	kill(d->pid, sig);
	for (;;) {
		pid_t r = waitpid(d->pid, &status, WNOHANG);

		if (r == d->pid)
			break;
		if (daemon_now_ms() >= deadline) {
			kill(d->pid, SIGKILL);
			waitpid(d->pid, &status, 0);
			d->pid = -1;
			return -ETIMEDOUT;
		}
		usleep(5000);
	}
	d->pid = -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static int daemon_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void daemon_proc_cleanup(struct daemon_proc *d)
{
	if (d->pid > 0)
		daemon_proc_stop(d, SIGKILL, 2000);
	if (d->notify_fd >= 0)
		close(d->notify_fd);
	d->notify_fd = -1;
	if (d->dir[0] != '\0' && getenv("ANIMD_KEEP_TEST_DIRS") == NULL)
		nftw(d->dir, daemon_rm, 16, FTW_DEPTH | FTW_PHYS);
}

int daemon_proc_log_contains(const struct daemon_proc *d, const char *needle)
{
	FILE *f = fopen(d->log, "r");
	char line[4096];
	int found = 0;

	if (f == NULL)
		return 0;
	while (!found && fgets(line, sizeof line, f) != NULL)
		found = strstr(line, needle) != NULL;
	fclose(f);
	return found;
}
