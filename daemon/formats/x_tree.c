/*
 * x_tree.c - the .x object tree: its arena, the builder the readers drive,
 * and locating errors in the body.
 *
 * Objects, finished value arrays, child arrays and strings live in an arena
 * freed at once with the tree: a mesh of 100,000 numbers is one block, not
 * 100,000 allocations.  While an object is open its values and children
 * grow in scratch arrays kept per depth, reused by the next object at that
 * depth, and are copied to the arena at its exact size when it closes.
 */
#include "daemon/formats/x_tree.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define X_ARENA_BLOCK (64u * 1024u)

struct x_arena_block {
	struct x_arena_block *next;
	size_t used, size;
	max_align_t data[];
};

static void *x_arena_alloc(struct x_tree *t, size_t n)
{
	struct x_arena_block *b = t->arena;
	size_t need = (n + 15u) & ~(size_t)15u;

	if (need < n)
		return NULL;
	if (b == NULL || b->size - b->used < need) {
		size_t size = need > X_ARENA_BLOCK ? need : X_ARENA_BLOCK;

		b = malloc(sizeof *b + size);
		if (b == NULL)
			return NULL;
		b->size = size;
		b->used = 0;
		/* A block bigger than the standard one goes behind the current
		 * one, so the current block's free space is not wasted. */
		if (t->arena != NULL && size > X_ARENA_BLOCK) {
			b->next = t->arena->next;
			t->arena->next = b;
		} else {
			b->next = t->arena;
			t->arena = b;
		}
	}
	b->used += need;
	return (char *)b->data + b->used - need;
}

static char *x_arena_str(struct x_tree *t, const char *s, size_t len)
{
	char *p = x_arena_alloc(t, len + 1);

	if (p != NULL) {
		if (len > 0)
			memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

void x_tree_free(struct x_tree *t)
{
	struct x_arena_block *b = t->arena;

	while (b != NULL) {
		struct x_arena_block *next = b->next;

		free(b);
		b = next;
	}
	free(t->owned_body);
	memset(t, 0, sizeof *t);
}

int x_tree_error(const struct x_tree *t, struct diag *d, uint32_t pos, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = x_tree_verror(t, d, pos, fmt, ap);
	va_end(ap);
	return rc;
}

int x_tree_verror(const struct x_tree *t, struct diag *d, uint32_t pos, const char *fmt,
		  va_list ap)
{
	char msg[DIAG_MSG_MAX];

	vsnprintf(msg, sizeof msg, fmt, ap);
	if (t->header.encoding == X_TEXT && !t->header.compressed && t->body != NULL) {
		/* Count lines as the lexer does: LF, CRLF and a lone CR each end
		 * one.  The body starts after the 16-byte header, on line 1. */
		uint32_t line = 1, col = 17;
		size_t end = pos < t->body_len ? pos : t->body_len;

		for (size_t i = 0; i < end; i++) {
			char c = t->body[i];

			if (c == '\n' || (c == '\r' && (i + 1 >= t->body_len || t->body[i + 1] != '\n'))) {
				line++;
				col = 1;
			} else if (c != '\r') {
				col++;
			}
		}
		diag_at(d, line, col, "%s", msg);
	} else {
		/* Offsets count from the start of the file, header included; for
		 * a compressed file, of the file as decompressed (whose declared
		 * size includes the header too). */
		diag_at_offset(d, (uint64_t)pos + 16, "%s%s",
			       t->header.compressed ? "in the decompressed data: " : "", msg);
	}
	return -EINVAL;
}

/* ------------------------------------------------------------------- */

/* An object being built, with the scratch arrays of its depth. */
struct x_open {
	struct x_object *obj;
	struct x_value *values;
	uint32_t value_count, value_cap;
	struct x_object **children;
	uint32_t child_count, child_cap;
};

struct x_builder {
	struct x_tree *t;
	struct diag *d;
	uint32_t depth;                 /* objects open */
	struct x_open open[X_MAX_DEPTH];
	struct x_object **roots;
	uint32_t root_count, root_cap;
};

int x_build_begin(struct x_builder **out, struct x_tree *t, struct diag *d)
{
	struct x_builder *b = calloc(1, sizeof *b);

	if (b == NULL)
		return -ENOMEM;
	b->t = t;
	b->d = d;
	*out = b;
	return 0;
}

static void x_build_free(struct x_builder *b)
{
	for (uint32_t i = 0; i < X_MAX_DEPTH; i++) {
		free(b->open[i].values);
		free(b->open[i].children);
	}
	free(b->roots);
	free(b);
}

void x_build_abort(struct x_builder *b)
{
	if (b != NULL)
		x_build_free(b);
}

uint32_t x_build_depth(const struct x_builder *b)
{
	return b->depth;
}

/* Make room for one more element in a growable array of `size`-byte items. */
static int x_grow(void **arr, uint32_t count, uint32_t *cap, size_t size)
{
	uint32_t n;
	void *p;

	if (count < *cap)
		return 0;
	if (*cap >= UINT32_MAX / 2)
		return -ENOMEM;
	n = *cap ? *cap * 2 : 16;
	p = realloc(*arr, (size_t)n * size);
	if (p == NULL)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

/* Append a finished object to the innermost open one, or to the roots. */
static int x_build_attach(struct x_builder *b, struct x_object *obj)
{
	struct x_object ***arr;
	uint32_t *count, *cap;

	if (b->depth == 0) {
		arr = &b->roots;
		count = &b->root_count;
		cap = &b->root_cap;
	} else {
		struct x_open *o = &b->open[b->depth - 1];

		arr = &o->children;
		count = &o->child_count;
		cap = &o->child_cap;
	}
	if (x_grow((void **)arr, *count, cap, sizeof **arr) < 0)
		return -ENOMEM;
	(*arr)[(*count)++] = obj;
	b->t->object_count++;
	return 0;
}

int x_build_open(struct x_builder *b, const char *type, size_t type_len, const char *name,
		 size_t name_len, uint32_t pos)
{
	struct x_object *obj;
	struct x_open *o;

	if (b->depth >= X_MAX_DEPTH)
		return x_tree_error(b->t, b->d, pos, "objects nested deeper than %u levels",
				    X_MAX_DEPTH);
	obj = x_arena_alloc(b->t, sizeof *obj);
	if (obj == NULL)
		return -ENOMEM;
	memset(obj, 0, sizeof *obj);
	obj->type = x_arena_str(b->t, type, type_len);
	obj->name = name_len > 0 ? x_arena_str(b->t, name, name_len) : NULL;
	if (obj->type == NULL || (name_len > 0 && obj->name == NULL))
		return -ENOMEM;
	obj->pos = pos;
	obj->depth = b->depth;
	o = &b->open[b->depth++];
	o->obj = obj;
	o->value_count = 0;
	o->child_count = 0;
	return 0;
}

int x_build_guid(struct x_builder *b, const uint8_t guid[16])
{
	struct x_object *obj;

	if (b->depth == 0)
		return -EINVAL;
	obj = b->open[b->depth - 1].obj;
	obj->has_guid = true;
	memcpy(obj->guid, guid, 16);
	return 0;
}

static struct x_value *x_build_value(struct x_builder *b, uint32_t pos)
{
	struct x_open *o;
	struct x_value *v;

	if (b->depth == 0) {
		x_tree_error(b->t, b->d, pos, "a value outside any object");
		return NULL;
	}
	o = &b->open[b->depth - 1];
	if (x_grow((void **)&o->values, o->value_count, &o->value_cap, sizeof *o->values) < 0)
		return NULL;
	v = &o->values[o->value_count++];
	v->pos = pos;
	b->t->value_count++;
	return v;
}

int x_build_int(struct x_builder *b, int64_t i, uint32_t pos)
{
	struct x_value *v = x_build_value(b, pos);

	if (v == NULL)
		return b->d->set ? -EINVAL : -ENOMEM;
	v->kind = X_VALUE_INT;
	v->v.i = i;
	return 0;
}

int x_build_float(struct x_builder *b, double f, uint32_t pos)
{
	struct x_value *v = x_build_value(b, pos);

	if (v == NULL)
		return b->d->set ? -EINVAL : -ENOMEM;
	v->kind = X_VALUE_FLOAT;
	v->v.f = f;
	return 0;
}

int x_build_string(struct x_builder *b, const char *s, size_t len, uint32_t pos)
{
	struct x_value *v;
	char *copy;

	if (len > UINT32_MAX - 1) {
		return x_tree_error(b->t, b->d, pos, "a string of %zu bytes", len);
	}
	v = x_build_value(b, pos);
	if (v == NULL)
		return b->d->set ? -EINVAL : -ENOMEM;
	copy = x_arena_str(b->t, s, len);
	if (copy == NULL)
		return -ENOMEM;
	v->kind = X_VALUE_STRING;
	v->v.s.ptr = copy;
	v->v.s.len = (uint32_t)len;
	return 0;
}

int x_build_reference(struct x_builder *b, const char *name, size_t name_len,
		      const uint8_t *guid, uint32_t pos)
{
	struct x_object *ref;

	if (b->depth == 0) {
		return x_tree_error(b->t, b->d, pos, "a reference outside any object");
	}
	if (name_len == 0 && guid == NULL) {
		return x_tree_error(b->t, b->d, pos, "a reference names nothing");
	}
	ref = x_arena_alloc(b->t, sizeof *ref);
	if (ref == NULL)
		return -ENOMEM;
	memset(ref, 0, sizeof *ref);
	if (name_len > 0 && (ref->name = x_arena_str(b->t, name, name_len)) == NULL)
		return -ENOMEM;
	if (guid != NULL) {
		ref->has_guid = true;
		memcpy(ref->guid, guid, 16);
	}
	ref->pos = pos;
	ref->depth = b->depth;
	return x_build_attach(b, ref);
}

int x_build_close(struct x_builder *b, uint32_t pos)
{
	struct x_open *o;
	struct x_object *obj;

	if (b->depth == 0) {
		return x_tree_error(b->t, b->d, pos, "'}' closes nothing");
	}
	o = &b->open[b->depth - 1];
	obj = o->obj;
	if (o->value_count > 0) {
		obj->values = x_arena_alloc(b->t, (size_t)o->value_count * sizeof *obj->values);
		if (obj->values == NULL)
			return -ENOMEM;
		memcpy(obj->values, o->values, (size_t)o->value_count * sizeof *obj->values);
		obj->value_count = o->value_count;
	}
	if (o->child_count > 0) {
		obj->children = x_arena_alloc(b->t, (size_t)o->child_count * sizeof *obj->children);
		if (obj->children == NULL)
			return -ENOMEM;
		memcpy(obj->children, o->children, (size_t)o->child_count * sizeof *obj->children);
		obj->child_count = o->child_count;
	}
	b->depth--;
	return x_build_attach(b, obj);
}

int x_build_finish(struct x_builder *b, uint32_t pos)
{
	(void)pos;
	struct x_tree *t = b->t;
	int rc = 0;

	if (b->depth > 0) {
		struct x_object *open = b->open[b->depth - 1].obj;

		/* Point at the object left open: the end of the file says less. */
		x_tree_error(t, b->d, open->pos, "%s%s%s is never closed: the file ends before its '}'",
			     open->type, open->name ? " " : "", open->name ? open->name : "");
		rc = -EINVAL;
	} else if (b->root_count > 0) {
		t->roots = x_arena_alloc(t, (size_t)b->root_count * sizeof *t->roots);
		if (t->roots == NULL) {
			rc = -ENOMEM;
		} else {
			memcpy(t->roots, b->roots, (size_t)b->root_count * sizeof *t->roots);
			t->root_count = b->root_count;
		}
	}
	x_build_free(b);
	return rc;
}
