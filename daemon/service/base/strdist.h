/*
 * strdist.h - how far apart two short names are, for the "did you mean"
 * of a mistyped configuration key or section: the optimal string alignment
 * distance (Damerau-Levenshtein where no character is edited twice), the
 * number of insertions, deletions, substitutions and swaps of two adjacent
 * characters that turn one into the other.  Bytes are compared, ASCII
 * letters without case, so "Limits" is 0 from "limits" (a name that
 * differs only in case is still worth suggesting).
 */
#ifndef ANIMD_STRDIST_H
#define ANIMD_STRDIST_H

#include <stddef.h>

/* Longest string measured; a longer one is "far" from everything. */
#define STRDIST_LEN_MAX 64

/* The distance between a and b when it is at most max, else max + 1 (also
 * when either is longer than STRDIST_LEN_MAX).  No allocation. */
size_t strdist(const char *a, const char *b, size_t max);

#endif
