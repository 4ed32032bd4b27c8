/*
 * offline.h - the subcommands that work on files without a daemon:
 * `animd check`, `animd inspect`, `animd sample`.  Each takes the
 * arguments after its name (argv[0] is the subcommand) and returns the
 * process exit status: 0 success, 1 a file failed, 2 a usage error.
 */
#ifndef ANIMD_OFFLINE_H
#define ANIMD_OFFLINE_H

#include <stdbool.h>

#define EXIT_USAGE 2

int offline_check(int argc, char **argv);
int offline_inspect(int argc, char **argv);
int offline_sample(int argc, char **argv);

/*
 * Called first by each subcommand: the process is short-lived and loads
 * files whose runtime objects (a mesh's arrays, a clip's keys) come from
 * malloc, so its heap is grown once by 32 MiB, kept, and offered to the
 * kernel for transparent huge pages from the first 2 MiB boundary on (the
 * stretch below it is taken once and left untouched, so the loads start
 * on the boundary).  A fresh page of memory costs a fault at its first
 * touch, 2-4 us here for 4 KiB and about 0.2 ms for 2 MiB: a 115 kB binary
 * .x file's fresh load went from 320 faults to 120 and from 1.75 to 1.35
 * ms, a 354 kB md5mesh's from 2.35 to 1.95 ms; the smallest files neither
 * gain nor lose.  Without huge pages (or under a sanitizer's allocator,
 * which ignores mallopt) the heap is an ordinary one.  Whether the heap
 * was grown and advised (nothing depends on it).
 */
bool offline_heap_prepare(void);

#endif
