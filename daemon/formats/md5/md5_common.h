/*
 * md5_common.h - what the three MD5 parsers share: the lexer setup, the
 * "MD5Version 10 / commandline" header, counts checked against the bytes
 * left, integers with range messages, "( x y z )" vectors, numbered lines
 * and the end of the file.  Internal to formats/; md5.h is the public API.
 *
 * Every function consumes tokens from lx and returns 0, or -EINVAL with the
 * lexer's diag pointing at the offending token (-ENOMEM only where it
 * allocates).
 */
#ifndef ANIMD_MD5_COMMON_H
#define ANIMD_MD5_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/formats/lexer.h"

/* MD5 files use only these punctuation characters; names are quoted. */
#define MD5_PUNCTS "(){}"

/* "MD5Version 10" then "commandline "..."": the copied commandline goes to
 * *commandline, which the caller frees. */
int md5_common_header(struct lexer *lx, char **commandline);

/* An integer in [min, max].  tok, when not NULL, receives the token so the
 * caller can point a later message at it. */
int md5_common_int(struct lexer *lx, const char *what, int64_t min, int64_t max,
		   int64_t *out, struct lex_token *tok);

/* "keyword N" with N in [min, max], and N elements of at least min_bytes
 * bytes each must fit in what is left of the file: the check that keeps a
 * count from driving an allocation the file cannot back. */
int md5_common_count(struct lexer *lx, const char *keyword, uint32_t min,
		     uint32_t max, size_t min_bytes, uint32_t *out);

/* "( v0 ... vn-1 )" of finite floats. */
int md5_common_vec(struct lexer *lx, const char *what, float *v, unsigned n);

/* The number after "vert", "tri", "weight" or "frame": must equal
 * expected, the line's position ("frame 4 is numbered 5"). */
int md5_common_index(struct lexer *lx, const char *what, uint32_t expected);

/* Before line i of a "{ ... }" block that must hold n of them (n is the
 * value of the count keyword): a '}' here means the file has fewer lines
 * than it promised.  Peeks only. */
int md5_common_more(struct lexer *lx, const char *unit, uint32_t i,
		    const char *count, uint32_t n);

/* The '}' after the n lines of a block. */
int md5_common_close(struct lexer *lx, const char *count, uint32_t n);

/* The keyword that starts line i of n in a block without braces
 * ("vert", "tri", "weight", "frame"). */
int md5_common_line(struct lexer *lx, const char *keyword, uint32_t i,
		    const char *count, uint32_t n);

/* A quoted string copied to a new C string in *out (the caller frees). */
int md5_common_name(struct lexer *lx, const char *what, char **out);

/* After the last block: Doom reads no further, nor does animd.  Anything
 * but comments and whitespace there is a note in `notes` (at the first
 * thing that follows; the file's counts say what it holds).  Returns 0. */
int md5_common_end(struct lexer *lx, struct diag_notes *notes);

/* Record an out-of-memory failure at the lexer's position; returns -ENOMEM. */
int md5_common_nomem(struct lexer *lx);

/* Zeroed array of n elements; n == 0 still gets a (one-element) block so
 * that NULL always means out of memory.  Callers bound n first. */
void *md5_common_calloc(size_t n, size_t size);

#endif
