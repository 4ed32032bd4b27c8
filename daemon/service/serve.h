/* serve.h - `animd serve`: the daemon. */
#ifndef ANIMD_SERVE_H
#define ANIMD_SERVE_H

/* Runs until SIGTERM/SIGINT; returns the process exit status. */
int serve_main(int argc, char **argv);

#endif
