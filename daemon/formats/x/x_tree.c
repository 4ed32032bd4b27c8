/*
 * x_tree.c - the .x object tree: its arena, the builder the readers drive,
 * and locating errors in the body.
 *
 * Objects, value arrays, child arrays, strings and a compressed file's
 * inflated body live in an arena freed at once with the tree: a mesh of
 * 100,000 numbers is one block, not 100,000 allocations.  Values are
 * written where they stay: each depth has its own stream of value blocks
 * in the arena, and the one object open at that depth adds its values at
 * the top of that stream, one contiguous run its object takes as it is
 * when it closes (the next object at that depth starts its run after
 * it).  A parent's values and its children's are in different streams,
 * so a parent resuming its values after a child never breaks its run.  A
 * run is copied only when its block fills, to a new block of the stream
 * at least twice the size of the last (so copying stays linear, and the
 * space a stream leaves unused is at most what it holds).  Children are
 * gathered on a stack while their object is open and copied to the arena
 * at their exact size when it closes.
 *
 * Memory kept between loads.  A load of a big file touches tens of
 * megabytes (16 bytes a value).
 * Freed, memory that size goes back to the kernel (glibc maps big blocks
 * and unmaps them on free, and trims the heap), so the next load faults
 * every page in again: thousands of minor faults and milliseconds of
 * system time a load, more than the parsing itself for a compressed file.
 * So each thread keeps the blocks of the trees it freed and its builder's
 * stacks for its next load, up to X_CACHE_MAX and X_STACK_MAX bytes; what
 * is beyond is freed as before.  The price is that memory (at most the
 * caps, per thread that ever parsed a .x) staying allocated while the
 * thread lives; it is freed when the thread exits.
 */
#include "daemon/formats/x/x_tree.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/big_block.h"

#define X_ARENA_BLOCK (64u * 1024u)
/* Blocks this big or bigger are mapped on their own, in huge pages where
 * the kernel offers them (big_block.h): a big file's values and inflated
 * body then cost a fault per 2 MiB instead of one per 4 KiB. */
#define X_MAPPED_MIN (256u * 1024u)
/* Arena bytes a thread keeps for its next tree, and bytes of builder
 * stacks: enough for files of several megabytes, and bounded for each of
 * the daemon's loader threads; a bigger load frees what is beyond the
 * caps as before. */
#define X_CACHE_MAX (16u * 1024u * 1024u)
#define X_STACK_MAX (8u * 1024u * 1024u)
/* The most values a stream's mapped block is made for at once (a
 * mapping of 64 MiB: address space, its pages taken only when
 * touched). */
#define X_RESERVE_MAX ((uint64_t)4 * 1024 * 1024)
/* Values in a stream's first value block. */
#define X_VALUE_BLOCK (64u * 1024u / sizeof(struct x_value))

struct x_arena_block {
	struct x_arena_block *next;
	size_t used, size;
	size_t mapped;          /* bytes of its mapping (big_block_free), or 0: malloc'd */
	max_align_t data[];
};

/* ---- memory kept between loads, per thread ------------------------ */

struct x_cache {
	struct x_arena_block *blocks;   /* free blocks, for the next tree */
	size_t bytes;                   /* their sizes added up */
	struct x_builder *builder;      /* a free builder, its stacks allocated */
};

static _Thread_local struct x_cache *x_cache_tls;
static pthread_key_t x_cache_key;
static pthread_once_t x_cache_once = PTHREAD_ONCE_INIT;
static int x_cache_key_ok;

static void x_builder_destroy(struct x_builder *b);

static void x_block_release(struct x_arena_block *b)
{
	if (b->mapped > 0)
		big_block_free(b, b->mapped);
	else
		free(b);
}

/* At thread exit (pthread_key_create's destructor). */
static void x_cache_destroy(void *p)
{
	struct x_cache *c = p;

	while (c->blocks != NULL) {
		struct x_arena_block *next = c->blocks->next;

		x_block_release(c->blocks);
		c->blocks = next;
	}
	if (c->builder != NULL)
		x_builder_destroy(c->builder);
	free(c);
	x_cache_tls = NULL;
}

static void x_cache_key_init(void)
{
	x_cache_key_ok = pthread_key_create(&x_cache_key, x_cache_destroy) == 0;
}

/* This thread's cache, made on first use; NULL (keep nothing) if it
 * cannot be. */
static struct x_cache *x_cache_get(void)
{
	struct x_cache *c = x_cache_tls;

	if (c != NULL)
		return c;
	if (pthread_once(&x_cache_once, x_cache_key_init) != 0 || !x_cache_key_ok)
		return NULL;
	c = calloc(1, sizeof *c);
	if (c == NULL)
		return NULL;
	if (pthread_setspecific(x_cache_key, c) != 0) {
		free(c);
		return NULL;
	}
	x_cache_tls = c;
	return c;
}

void x_tree_cache_release(void)
{
	struct x_cache *c = x_cache_tls;

	if (c == NULL)
		return;
	pthread_setspecific(x_cache_key, NULL);
	x_cache_destroy(c);
}

/* A block of at least `size` bytes: the smallest kept one that fits, or a
 * new one. */
static struct x_arena_block *x_block_get(size_t size)
{
	struct x_cache *c = x_cache_tls;
	struct x_arena_block *b, **best = NULL;

	if (c != NULL) {
		for (struct x_arena_block **pp = &c->blocks; *pp != NULL; pp = &(*pp)->next)
			if ((*pp)->size >= size && (best == NULL || (*pp)->size < (*best)->size))
				best = pp;
	}
	if (best != NULL) {
		b = *best;
		*best = b->next;
		c->bytes -= b->size;
	} else {
		size_t mapped = 0;

		if (size > SIZE_MAX - sizeof *b)
			return NULL;
		if (sizeof *b + size >= X_MAPPED_MIN)
			b = big_block_alloc(sizeof *b + size, &mapped);
		else
			b = malloc(sizeof *b + size);
		if (b == NULL)
			return NULL;
		/* A mapping's whole length is usable. */
		b->size = mapped > 0 ? mapped - sizeof *b : size;
		b->mapped = mapped;
	}
	b->used = 0;
	b->next = NULL;
	return b;
}

/* Keep a tree's block for the next one, or free it. */
static void x_block_put(struct x_arena_block *b)
{
	struct x_cache *c = x_cache_get();

	if (c != NULL && b->size <= X_CACHE_MAX - c->bytes) {
		b->next = c->blocks;
		c->blocks = b;
		c->bytes += b->size;
	} else {
		x_block_release(b);
	}
}

/* ------------------------------------------------------------------- */

static void *x_arena_alloc(struct x_tree *t, size_t n)
{
	struct x_arena_block *b = t->arena;
	size_t need = (n + 15u) & ~(size_t)15u;

	if (need < n)
		return NULL;
	if (b == NULL || b->size - b->used < need) {
		b = x_block_get(need > X_ARENA_BLOCK ? need : X_ARENA_BLOCK);
		if (b == NULL)
			return NULL;
		/* A block bigger than the standard one goes behind the current
		 * one, so the current block's free space is not wasted; unless
		 * it has more room left than the current one (a mapped block
		 * comes in whole 2 MiB units, already zeroed by the kernel). */
		if (t->arena != NULL && b->size > X_ARENA_BLOCK &&
		    b->size - need <= t->arena->size - t->arena->used) {
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

void *x_tree_alloc(struct x_tree *t, size_t n)
{
	return x_arena_alloc(t, n);
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

		x_block_put(b);
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

/* Where `pos` of the body is: line and column for plain text (counted the
 * way the lexer counts them), else *line 0 and the file offset. */
static void x_tree_locate(const struct x_tree *t, uint32_t pos, uint32_t *line, uint32_t *col,
			  uint64_t *offset)
{
	*line = 0;
	*col = 0;
	/* Offsets count from the start of the file, header included; for a
	 * compressed file, of the file as decompressed (whose declared size
	 * includes the header too). */
	*offset = (uint64_t)pos + 16;
	if (t->header.encoding == X_TEXT && !t->header.compressed && t->body != NULL) {
		/* LF, CRLF and a lone CR each end a line.  The body starts
		 * after the 16-byte header, on line 1. */
		uint32_t l = 1, c = 17;
		size_t end = pos < t->body_len ? pos : t->body_len;

		for (size_t i = 0; i < end; i++) {
			char ch = t->body[i];

			if (ch == '\n' ||
			    (ch == '\r' && (i + 1 >= t->body_len || t->body[i + 1] != '\n'))) {
				l++;
				c = 1;
			} else if (ch != '\r') {
				c++;
			}
		}
		*line = l;
		*col = c;
	}
}

int x_tree_verror(const struct x_tree *t, struct diag *d, uint32_t pos, const char *fmt,
		  va_list ap)
{
	char msg[DIAG_MSG_MAX];
	uint32_t line, col;
	uint64_t offset;

	vsnprintf(msg, sizeof msg, fmt, ap);
	x_tree_locate(t, pos, &line, &col, &offset);
	if (line > 0)
		diag_at(d, line, col, "%s", msg);
	else
		diag_at_offset(d, offset, "%s%s",
			       t->header.compressed ? "in the decompressed data: " : "", msg);
	return -EINVAL;
}

void x_tree_note(const struct x_tree *t, struct diag_notes *n, uint32_t pos, const char *fmt,
		 ...)
{
	static const char prefix[] = "in the decompressed data: ";
	char msg[sizeof prefix + DIAG_MSG_MAX];
	size_t at = 0;
	uint32_t line, col;
	uint64_t offset;
	va_list ap;

	if (n == NULL)
		return;
	x_tree_locate(t, pos, &line, &col, &offset);
	if (line == 0 && t->header.compressed) {
		memcpy(msg, prefix, sizeof prefix - 1);
		at = sizeof prefix - 1;
	}
	va_start(ap, fmt);
	vsnprintf(msg + at, sizeof msg - at, fmt, ap);
	va_end(ap);
	diag_note_put(n, fmt, line, col, offset, msg);
}

/* ------------------------------------------------------------------- */

/* An object being built: its run of values so far, and where its
 * children start on the stack. */
struct x_open {
	struct x_object *obj;
	struct x_value *values;
	uint32_t value_count, child_base;
};

struct x_builder {
	struct x_tree *t;
	struct diag *d;
	uint32_t depth;                 /* objects open */
	struct x_open open[X_MAX_DEPTH];
	/* Each depth's stream of values: the first free slot of its current
	 * block, how many are free, the block's size in values. */
	struct x_stream {
		struct x_value *top;
		uint32_t free, size;
	} streams[X_MAX_DEPTH];
	/* The open objects' children, innermost on top; the children at
	 * depth 0 are the roots. */
	struct x_object **children;
	uint32_t child_count, child_cap;
};

int x_build_begin(struct x_builder **out, struct x_tree *t, struct diag *d)
{
	struct x_cache *c = x_cache_get();
	struct x_builder *b = c != NULL ? c->builder : NULL;

	if (b != NULL)
		c->builder = NULL;
	else if ((b = calloc(1, sizeof *b)) == NULL)
		return -ENOMEM;
	b->t = t;
	b->d = d;
	b->depth = 0;
	memset(b->streams, 0, sizeof b->streams);
	b->child_count = 0;
	*out = b;
	return 0;
}

static void x_builder_destroy(struct x_builder *b)
{
	free(b->children);
	free(b);
}

/* Keep the builder and its stacks (up to X_STACK_MAX) for the thread's
 * next load. */
static void x_build_free(struct x_builder *b)
{
	struct x_cache *c = x_cache_get();

	if (c == NULL || c->builder != NULL) {
		x_builder_destroy(b);
		return;
	}
	if ((size_t)b->child_cap * sizeof *b->children > X_STACK_MAX) {
		free(b->children);
		b->children = NULL;
		b->child_cap = 0;
	}
	b->t = NULL;
	b->d = NULL;
	c->builder = b;
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
	n = *cap ? *cap * 2 : 256;
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
	if (b->child_count >= b->child_cap &&
	    x_grow((void **)&b->children, b->child_count, &b->child_cap, sizeof *b->children) < 0)
		return -ENOMEM;
	b->children[b->child_count++] = obj;
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
	o->values = NULL;
	o->value_count = 0;
	o->child_base = b->child_count;
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

/* Values the body can hold at most, up to X_RESERVE_MAX: a binary value
 * takes at least 4 bytes of it (a list element), a text one 2 (a digit
 * and a separator).  0 without a body (a tree built by hand). */
static uint64_t x_build_bound(const struct x_builder *b)
{
	uint64_t n = b->t->body_len / (b->t->header.encoding == X_BINARY ? 4 : 2);

	return n < X_RESERVE_MAX ? n : X_RESERVE_MAX;
}

/*
 * Room for n more values at the end of the innermost open object's run,
 * the top of its depth's stream; when the stream's block cannot hold them,
 * the run so far moves to a new block (see the top of this file).  NULL
 * on -ENOMEM.
 */
static struct x_value *x_build_reserve(struct x_builder *b, uint32_t n)
{
	struct x_open *o = &b->open[b->depth - 1];
	struct x_stream *st = &b->streams[b->depth - 1];
	uint64_t want = 2 * (uint64_t)st->size;
	struct x_value *blk;

	if (st->top != NULL && st->free >= n)
		return st->top;
	if (n > UINT32_MAX - o->value_count)
		return NULL;
	if (want < 2 * ((uint64_t)o->value_count + n))
		want = 2 * ((uint64_t)o->value_count + n);
	if (want < X_VALUE_BLOCK)
		want = X_VALUE_BLOCK;
	/* A block that big is mapped in whole units: the stream takes all of
	 * it (pages it never touches cost nothing), and as many values as the
	 * whole body can hold, so that its run never moves again (a move
	 * writes every value twice and zeroes a page more). */
	if (want * sizeof *blk + sizeof(struct x_arena_block) >= X_MAPPED_MIN &&
	    want < UINT32_MAX) {
		uint64_t bound = x_build_bound(b);
		uint64_t bytes;

		if (want < bound)
			want = bound;
		bytes = want * sizeof *blk + sizeof(struct x_arena_block);
		bytes = (bytes + BIG_BLOCK_UNIT - 1) & ~(uint64_t)(BIG_BLOCK_UNIT - 1);
		want = (bytes - sizeof(struct x_arena_block)) / sizeof *blk;
	}
	if (want > UINT32_MAX)
		want = (uint64_t)o->value_count + n;
	blk = x_arena_alloc(b->t, (size_t)want * sizeof *blk);
	if (blk == NULL)
		return NULL;
	if (o->value_count > 0)
		memcpy(blk, o->values, (size_t)o->value_count * sizeof *blk);
	o->values = blk;
	st->top = blk + o->value_count;
	st->free = (uint32_t)(want - o->value_count);
	st->size = (uint32_t)want;
	return st->top;
}

/* The k values just written at the reserved room join the run. */
static void x_build_add(struct x_builder *b, uint32_t k)
{
	struct x_open *o = &b->open[b->depth - 1];
	struct x_stream *st = &b->streams[b->depth - 1];

	if (o->value_count == 0)
		o->values = st->top;
	o->value_count += k;
	st->top += k;
	st->free -= k;
	b->t->value_count += k;
}

static struct x_value *x_build_value(struct x_builder *b, uint32_t pos)
{
	struct x_value *v;

	if (b->depth == 0) {
		x_tree_error(b->t, b->d, pos, "a value outside any object");
		return NULL;
	}
	v = x_build_reserve(b, 1);
	if (v == NULL)
		return NULL;
	v->pos = pos;
	x_build_add(b, 1);
	return v;
}

struct x_value *x_build_values(struct x_builder *b, uint32_t n, uint32_t pos)
{
	struct x_value *v;

	if (b->depth == 0) {
		x_tree_error(b->t, b->d, pos, "a value outside any object");
		return NULL;
	}
	v = x_build_reserve(b, n);
	if (v != NULL)
		x_build_add(b, n);
	return v;
}

struct x_value *x_build_room(struct x_builder *b, uint32_t n)
{
	return x_build_reserve(b, n);
}

void x_build_commit(struct x_builder *b, uint32_t k)
{
	if (k > 0)
		x_build_add(b, k);
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
	uint32_t len32;
	char *copy;

	if (len > UINT32_MAX - 1) {
		return x_tree_error(b->t, b->d, pos, "a string of %zu bytes", len);
	}
	v = x_build_value(b, pos);
	if (v == NULL)
		return b->d->set ? -EINVAL : -ENOMEM;
	/* The length, then the text (x_value_strlen). */
	copy = x_arena_alloc(b->t, sizeof len32 + len + 1);
	if (copy == NULL)
		return -ENOMEM;
	len32 = (uint32_t)len;
	memcpy(copy, &len32, sizeof len32);
	if (len > 0)
		memcpy(copy + sizeof len32, s, len);
	copy[sizeof len32 + len] = '\0';
	v->kind = X_VALUE_STRING;
	v->v.s.ptr = copy + sizeof len32;
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
	uint32_t nv, nc;

	if (b->depth == 0) {
		return x_tree_error(b->t, b->d, pos, "'}' closes nothing");
	}
	o = &b->open[b->depth - 1];
	obj = o->obj;
	nv = o->value_count;
	nc = b->child_count - o->child_base;
	if (nv > 0) {
		obj->values = o->values;
		obj->value_count = nv;
	}
	if (nc > 0) {
		obj->children = x_arena_alloc(b->t, (size_t)nc * sizeof *obj->children);
		if (obj->children == NULL)
			return -ENOMEM;
		memcpy(obj->children, b->children + o->child_base,
		       (size_t)nc * sizeof *obj->children);
		obj->child_count = nc;
	}
	b->child_count = o->child_base;
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
	} else if (b->child_count > 0) {
		t->roots = x_arena_alloc(t, (size_t)b->child_count * sizeof *t->roots);
		if (t->roots == NULL) {
			rc = -ENOMEM;
		} else {
			memcpy(t->roots, b->children, (size_t)b->child_count * sizeof *t->roots);
			t->root_count = b->child_count;
		}
	}
	x_build_free(b);
	return rc;
}
