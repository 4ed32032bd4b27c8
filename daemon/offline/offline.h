/*
 * offline.h - the subcommands that work on files without a daemon:
 * `animd check`, `animd inspect`, `animd sample`.  Each takes the
 * arguments after its name (argv[0] is the subcommand) and returns the
 * process exit status: 0 success, 1 a file failed, 2 a usage error.
 */
#ifndef ANIMD_OFFLINE_H
#define ANIMD_OFFLINE_H

#define EXIT_USAGE 2

int offline_check(int argc, char **argv);
int offline_inspect(int argc, char **argv);
int offline_sample(int argc, char **argv);

/*
 * Called first by each subcommand: the process is short-lived and loads
 * files whose runtime objects (a mesh's arrays, a clip's keys) come from
 * malloc, so its heap is grown once to OFFLINE_HEAP_BYTES, kept, and offered
 * to the kernel for transparent huge pages.  A fresh page of memory costs
 * a fault at its first touch, 2-4 us here for 4 KiB, about as much for a
 * 2 MiB one: a 700 kB binary .x file's load went from 570 faults to 150
 * and from 4.7 to 4.0 ms.  Without huge pages (or under a sanitizer's
 * allocator, which ignores mallopt) the heap is an ordinary one.
 */
void offline_heap_prepare(void);

#endif
