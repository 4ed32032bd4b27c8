/*
 * memlimit.h - how much memory the daemon may take: the machine's, and the
 * limit of the control group it runs in (systemd's MemoryMax=, a
 * container's memory limit), so that a default derived from memory does
 * not assume a machine the daemon is not allowed to fill.
 *
 * The cgroup is the one /proc/self/cgroup names: with cgroup v2 (the
 * "0::PATH" line) the smallest memory.max of PATH and every ancestor under
 * /sys/fs/cgroup ("max" is none), since any of them caps the daemon; with
 * cgroup v1 the same with the memory controller's memory.limit_in_bytes
 * (its "unlimited" is a huge number, and any limit above physical memory
 * changes nothing).  Files that do not exist or do not parse count as no
 * limit: a default must not stop the daemon from starting.
 *
 * Reads a few small files: call it at start-up or on the thread pool
 * (a SIGHUP's reload), not on the loop.
 */
#ifndef ANIMD_MEMLIMIT_H
#define ANIMD_MEMLIMIT_H

#include <stddef.h>
#include <stdint.h>

struct memlimit {
	uint64_t physical;              /* bytes of RAM; 0 if unknown */
	uint64_t cgroup;                /* the cgroup's limit in bytes; 0: none */
};

/* The daemon's own: sysconf's physical memory, /proc/self/cgroup and
 * /sys/fs/cgroup. */
void memlimit_probe(struct memlimit *out);

/* The same from other places, for tests: proc_cgroup is the text of
 * /proc/self/cgroup (len bytes), cgroup_root the mount point of the cgroup
 * file systems, physical the RAM to report. */
void memlimit_probe_at(const char *proc_cgroup, size_t len, const char *cgroup_root,
		       uint64_t physical, struct memlimit *out);

/* A quarter of the smaller of physical memory and the cgroup's limit (the
 * streams' budget when [streams] max_total_bytes is auto); why gets how it
 * was found, for the log and error messages: "a quarter of 7.75 GiB, the
 * cgroup's memory limit" or "... of physical memory".  Unknown memory
 * gives 1 GiB ("physical memory unknown"). */
uint64_t memlimit_quarter(const struct memlimit *m, char *why, size_t len);

#endif
