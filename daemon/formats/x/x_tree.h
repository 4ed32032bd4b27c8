/*
 * x_tree.h - a DirectX .x file as a tree of data objects: the syntax layer,
 * the same whatever the file's encoding (text, binary, MSZIP-compressed
 * either).  What the objects mean (frames, meshes, skin weights, animation
 * sets) is the importer's business; this layer knows only how objects,
 * members and references are written.
 *
 *	Frame Bip01 {                       an object: type, optional name,
 *	  FrameTransformMatrix { 1.0, ... ;; }   optional <GUID>, member values,
 *	  Mesh { 8; 1.0; 2.0; ... }         child objects and references
 *	}                                   in file order
 *	Animation { { Bip01 } ... }         a reference: { name } / { <GUID> }
 *
 * Templates are read past and not kept.
 *
 * Member values keep their kind from the file: in a binary file an integer
 * list never stands for floats nor a float list for integers; in a text file
 * a number without a point or exponent is an integer, and the importer may
 * accept one where a float is due (exporters write "0;" for 0.0).  Every
 * value and object remembers where it was written (`pos`, a byte offset in
 * the body), so the importer can point its own errors at the file:
 * x_tree_error gives "file:line:col" for text and "file: offset 0x..." for
 * binary.
 */
#ifndef ANIMD_X_TREE_H
#define ANIMD_X_TREE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "daemon/formats/diag.h"

/* Nesting deeper than this is refused (real files stay under 20). */
#define X_MAX_DEPTH 128

enum x_value_kind {
	X_VALUE_INT,            /* text integer literal; binary integer or integer list */
	X_VALUE_FLOAT,          /* text number with a point, exponent or NaN spelling; binary float list */
	X_VALUE_STRING,         /* "quoted" (binary: string token) */
};

struct x_value {
	enum x_value_kind kind;
	uint32_t pos;           /* byte offset in the body */
	union {
		int64_t i;
		double f;
		struct {
			/* NUL-terminated, in the tree's arena; its length
			 * (a binary string may hold a NUL) is x_value_strlen's. */
			const char *ptr;
		} s;
	} v;
};

/* 16 bytes: most of a big tree is its values. */
_Static_assert(sizeof(struct x_value) == 16, "struct x_value is 16 bytes");

/* A string value's length in bytes, kept in the 4 bytes before its text. */
static inline uint32_t x_value_strlen(const struct x_value *v)
{
	uint32_t len;

	memcpy(&len, v->v.s.ptr - sizeof len, sizeof len);
	return len;
}

struct x_object {
	const char *type;       /* as written ("Frame"); NULL for a reference */
	const char *name;       /* NULL when unnamed (or a reference by GUID only) */
	bool has_guid;
	uint8_t guid[16];       /* in the text form's reading order (binary
				   files' little-endian fields are swapped) */
	uint32_t pos;           /* where the object (its type word) starts */
	uint32_t depth;         /* 0 for a top-level object */
	struct x_value *values;
	uint32_t value_count;
	struct x_object **children;     /* data objects and references, in order */
	uint32_t child_count;
};

enum x_encoding {
	X_TEXT,
	X_BINARY,
};

/* The 16-byte header: "xof " MMmm fmt  fsiz. */
struct x_header {
	uint32_t major, minor;  /* 3, 2 or 3 */
	enum x_encoding encoding;
	bool compressed;        /* tzip / bzip */
	uint32_t float_bits;    /* 32 or 64 */
};

struct x_arena_block;

struct x_tree {
	struct x_header header;
	struct x_object **roots;
	uint32_t root_count;
	uint32_t object_count;  /* every object and reference, all depths */
	uint64_t value_count;   /* every member value */
	/* The body the positions refer to: the file after its header, once
	 * decompressed; in the tree's arena when it was decompressed by
	 * x_parse, or in owned_body (freed with the tree) for a caller that
	 * hands the tree a body of its own. */
	const char *body;
	size_t body_len;
	char *owned_body;
	struct x_arena_block *arena;
};

/* Free everything the tree owns (safe on a zeroed tree). */
void x_tree_free(struct x_tree *t);
/* Free what the calling thread keeps for its next load (see x_tree.c):
 * for a thread done with parsing, and for tests that count a load's
 * memory. */
void x_tree_cache_release(void);

/*
 * Record an error at `pos` in the tree's body: line and column for text
 * (counted the way the lexer counts them), a byte offset for binary (for a
 * compressed file the offset is in the decompressed data, and the message
 * says so).  The first error recorded wins, as with every diag.  Returns
 * -EINVAL, so a reader can `return x_tree_error(...)`.
 */
int x_tree_error(const struct x_tree *t, struct diag *d, uint32_t pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int x_tree_verror(const struct x_tree *t, struct diag *d, uint32_t pos, const char *fmt,
		  va_list ap) __attribute__((format(printf, 4, 0)));
/* A note (diag.h: what loads but is worth a word) at `pos`, located as
 * x_tree_error locates an error; `fmt` (a string literal) names its kind.
 * n may be NULL. */
void x_tree_note(const struct x_tree *t, struct diag_notes *n, uint32_t pos, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));

/* ---------------------------------------------------------------------
 * Building a tree: what the text and binary readers call, in file order.
 * Internal to formats/.  Every call returns 0, -ENOMEM, or -EINVAL with
 * the diag set (nesting too deep, closing with nothing open, ...).
 * ------------------------------------------------------------------- */

struct x_builder;

/* Start building into t (whose header, body and body_len the caller has
 * set); d receives errors.  The builder is freed by x_build_finish or
 * x_build_abort. */
int x_build_begin(struct x_builder **b, struct x_tree *t, struct diag *d);

/* Open a data object inside the innermost open one (or at the top). */
int x_build_open(struct x_builder *b, const char *type, size_t type_len, const char *name,
		 size_t name_len, uint32_t pos);
/* The GUID of the innermost open object. */
int x_build_guid(struct x_builder *b, const uint8_t guid[16]);
/* Member values of the innermost open object (an error at the top level). */
int x_build_int(struct x_builder *b, int64_t v, uint32_t pos);
int x_build_float(struct x_builder *b, double v, uint32_t pos);
int x_build_string(struct x_builder *b, const char *s, size_t len, uint32_t pos);
/* n member values at once (a binary list): room for them on the innermost
 * open object, which the caller fills in, kind and pos included.  NULL
 * with the diag set (at pos) outside any object, or on -ENOMEM (diag not
 * set). */
struct x_value *x_build_values(struct x_builder *b, uint32_t n, uint32_t pos);
/* Room for up to n member values of the innermost open object (which
 * the caller has made sure exists), not yet added: the caller fills in
 * the first k of them, kind and pos included, then adds them with
 * x_build_commit(b, k), before any other builder call.  A reader's way
 * to add values one at a time without a call for each.  Taking room may
 * move the object's values so far (an object's values stay one run), so
 * it is for values about to be added.  NULL on -ENOMEM. */
struct x_value *x_build_room(struct x_builder *b, uint32_t n);
void x_build_commit(struct x_builder *b, uint32_t k);
/* A reference inside the innermost open object: by name (name_len > 0),
 * by GUID (guid != NULL), or both. */
int x_build_reference(struct x_builder *b, const char *name, size_t name_len,
		      const uint8_t *guid, uint32_t pos);
/* Close the innermost open object. */
int x_build_close(struct x_builder *b, uint32_t pos);
/* Depth of open objects (0 at the top level). */
uint32_t x_build_depth(const struct x_builder *b);
/* The end of the body: every object must be closed.  Frees the builder. */
int x_build_finish(struct x_builder *b, uint32_t pos);
/* Give up (after an error): frees the builder; the caller frees the tree. */
void x_build_abort(struct x_builder *b);

/* n bytes (16-byte aligned) in t's arena, freed with the tree; NULL when
 * out of memory.  What the readers put beside the tree (an inflated
 * body). */
void *x_tree_alloc(struct x_tree *t, size_t n);

#endif
