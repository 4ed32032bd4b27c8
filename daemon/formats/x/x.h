/*
 * x.h - DirectX .x files: the public entry of the syntax layer.
 *
 * x_parse reads a whole file, header included, whatever its encoding: text
 * or binary, plain or MSZIP-compressed ("tzip"/"bzip"), 32- or 64-bit
 * floats, versions 3.2 and 3.3.  It returns the tree of data objects
 * (x_tree.h) or rejects the file with a located error: "file:line:col" for
 * text, "file: offset 0x..." for binary.
 */
#ifndef ANIMD_X_H
#define ANIMD_X_H

#include <stddef.h>

#include "daemon/formats/diag.h"
#include "daemon/formats/x/x_tree.h"

/* The largest file (and decompressed body) accepted: positions are 32-bit. */
#define X_MAX_BYTES (1024u * 1024u * 1024u)

/* 0 with *out filled (free with x_tree_free); -EINVAL with d set; -ENOMEM.
 * On failure *out is left empty.  Names and values live in the tree, but
 * for an uncompressed file out->body points into data: keep data while
 * x_tree_error may be asked to locate something (it needs the text to
 * count lines). */
int x_parse(const char *data, size_t len, struct x_tree *out, struct diag *d);

#endif
