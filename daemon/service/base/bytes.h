/*
 * bytes.h - sizes for people: "512 bytes", "64 MiB", "1.02 GiB", in log
 * lines and error messages (the configuration writes its own sizes in its
 * own syntax, "64MiB", so that they read back).
 */
#ifndef ANIMD_BYTES_H
#define ANIMD_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* A size big enough for any bytes_format result. */
#define BYTES_FORMAT_MAX 32

/* n in the largest binary unit (KiB, MiB, GiB, TiB) that leaves at least 1:
 * exact multiples without decimals ("1 GiB"), others with three significant
 * digits ("1.02 GiB", "64.5 MiB", "300 KiB"); below 1 KiB "N bytes".  The
 * three digits are rounded down, so that a total shown as over a limit is
 * never shown as equal to it.  Returns buf (always NUL-terminated). */
const char *bytes_format(uint64_t n, char *buf, size_t len);

#endif
