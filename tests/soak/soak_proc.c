/* soak_proc.c - /proc/PID/status and /proc/PID/fd of the daemon. */
#include "tests/soak/soak_proc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/soak/soak.h"

int soak_proc_sample(pid_t pid, struct soak_proc_sample *s)
{
	char path[64], line[256];
	struct dirent *de;
	FILE *f;
	DIR *d;

	memset(s, 0, sizeof *s);
	s->connections = s->streams = s->instances = -1;
	s->t_ns = soak_clock_now_ns();
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof line, f) != NULL) {
		unsigned long long v;

		if (sscanf(line, "VmRSS: %llu kB", &v) == 1)
			s->rss_kb = v;
		else if (sscanf(line, "RssShmem: %llu kB", &v) == 1)
			s->shmem_kb = v;
	}
	fclose(f);
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f != NULL) {
		unsigned long long ut, st;

		/* Fields 14 and 15, after the command name in parentheses. */
		if (fgets(line, sizeof line, f) != NULL && strrchr(line, ')') != NULL &&
		    sscanf(strrchr(line, ')') + 2,
			   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2)
			s->cpu_s = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
		fclose(f);
	}
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (d == NULL)
		return -errno;
	while ((de = readdir(d)) != NULL)
		s->fds += de->d_name[0] != '.';
	closedir(d);
	return s->rss_kb > 0 ? 0 : -ESRCH;
}

uint64_t soak_proc_private_kb(const struct soak_proc_sample *s)
{
	return s->rss_kb > s->shmem_kb ? s->rss_kb - s->shmem_kb : 0;
}

int soak_proc_base_fds(const struct soak_proc_sample *s)
{
	if (s->connections < 0 || s->streams < 0)
		return s->fds;
	return s->fds - (int)s->connections - (int)s->streams;
}
