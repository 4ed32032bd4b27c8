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

#endif
