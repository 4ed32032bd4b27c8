/*
 * soak_proc.h - the daemon measured from outside, through /proc: resident
 * memory (all of it, and without the shared-memory streams, whose pages
 * come and go with the clients' streams) and open descriptors.
 */
#ifndef ANIMD_SOAK_PROC_H
#define ANIMD_SOAK_PROC_H

#include <stdint.h>
#include <sys/types.h>

struct soak_proc_sample {
	int64_t t_ns;
	uint64_t rss_kb;        /* VmRSS */
	uint64_t shmem_kb;      /* RssShmem: the streams' pages */
	int fds;                /* entries of /proc/PID/fd */
	double cpu_s;           /* user + system time so far (/proc/PID/stat) */
	/* From the status reply taken with it (-1 when unknown): what accounts
	 * for descriptors that come and go with the load. */
	int64_t connections, streams, instances;
};

/* 0, or -errno when the process is gone or /proc cannot be read. */
int soak_proc_sample(pid_t pid, struct soak_proc_sample *s);
/* Memory that is the daemon's own: VmRSS minus the streams' shared pages. */
uint64_t soak_proc_private_kb(const struct soak_proc_sample *s);
/* Descriptors not explained by open connections and streams (one each). */
int soak_proc_base_fds(const struct soak_proc_sample *s);

#endif
