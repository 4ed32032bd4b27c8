/*
 * gltf_doc.c - the JSON document: read in one pass into tokens, a token
 * per value in document order with its bytes, its parent and the token
 * after its subtree, no allocation per value, and checked against RFC
 * 8259's grammar as it goes: one value at the top and only white space
 * after it, commas between elements and members, a colon after each key,
 * numbers and literals spelled exactly, strings without raw control
 * characters, with valid escapes, in UTF-8.  A document that fails is read
 * again by jansson, whose message and line and column (or offset, in a
 * GLB) the error then gives; jansson is used for nothing else, because it
 * builds a tree with a hash table per object and reads glTF's JSON at 25
 * to 40 MB/s: on a file with a large JSON chunk, more than the whole of
 * assimp's import (bench_gltf prints this reader's rate).
 *
 * Access: members of an object found by scanning its keys (glTF's objects
 * are small), elements of an array through a few cursors, so that reading
 * an array in order costs one step per element; strings unescaped into the
 * arena on demand; numbers read exactly (decimal.h, strtod's value).
 */
#include "daemon/formats/gltf/gltf_internal.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/decimal.h"

/* A value.  A member of an object is two tokens: its key (a string that
 * is `key`), then its value, whose parent is the key. */
struct gltf_doc_token {
	uint32_t start, end;    /* its bytes: a string's inside its quotes, a
				 * container's from its bracket to past the
				 * closing one */
	uint32_t next;          /* the token after its subtree (a key's: after
				 * its value's) */
	uint32_t parent;        /* GV_NONE at the top */
	uint32_t size;          /* an array's elements, an object's members */
	uint8_t kind;           /* enum gv_kind */
	uint8_t escaped;        /* a string with a backslash */
	uint8_t key;            /* a string that is a key */
	uint8_t real;           /* a number with a fraction or an exponent */
};

#define GV_CURSORS 4

struct gv_cursor {
	gv array, at;
	uint32_t index;
};

/* Kept beside the tokens: the array cursors. */
struct gltf_doc_extra {
	struct gv_cursor cursor[GV_CURSORS];
	uint32_t victim;
};

/* Where the extras start after `count` tokens: 16-aligned. */
static size_t extra_offset(uint32_t count)
{
	return ((size_t)count * sizeof(struct gltf_doc_token) + 15) & ~(size_t)15;
}

static struct gltf_doc_extra *doc_extra(const struct gltf_ctx *c)
{
	return (struct gltf_doc_extra *)(void *)((char *)c->p->tok + extra_offset(c->p->count));
}

static const struct gltf_doc_token *tok(const struct gltf_ctx *c, gv v)
{
	return &c->p->tok[v];
}

/* ---- reading the text ------------------------------------------------------ */

static size_t skip_ws(const unsigned char *s, size_t i, size_t len)
{
	while (i < len && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
		i++;
	return i;
}

static bool is_digit(unsigned char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool is_hex(unsigned char ch)
{
	return is_digit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* A string from i (just past its opening quote): the index of its closing
 * quote, or SIZE_MAX with the fault's offset in *bad. */
static size_t scan_string(const unsigned char *s, size_t i, size_t len, uint8_t *escaped,
			  size_t *bad)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;

	for (;;) {
		unsigned char b;
		uint32_t cp;
		size_t k;

		/* Eight bytes at a time up to the first that is a quote, a
		 * backslash, a control character or from 0x80: each test marks
		 * its byte's top bit, and may mark bytes after it, never before. */
		for (; i + 8 <= len; i += 8) {
			uint64_t w, quote, slash, special;

			memcpy(&w, s + i, sizeof w);
			quote = w ^ 0x2222222222222222ull;
			slash = w ^ 0x5c5c5c5c5c5c5c5cull;
			special = (((quote - ones) & ~quote) | ((slash - ones) & ~slash) |
				   ((w - 0x2020202020202020ull) & ~w) | w) & highs;
			if (special != 0) {
				i += (size_t)__builtin_ctzll(special) / 8;
				break;
			}
		}
		if (i >= len) {
			*bad = len;
			return SIZE_MAX;
		}
		b = s[i];
		if (b == '"')
			return i;
		if (b < 0x20) {
			*bad = i;
			return SIZE_MAX;
		}
		if (b == '\\') {
			unsigned char e = i + 1 < len ? s[i + 1] : 0;

			*escaped = 1;
			if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
			    e == 'r' || e == 't') {
				i += 2;
				continue;
			}
			if (e == 'u' && len - i > 5 && is_hex(s[i + 2]) && is_hex(s[i + 3]) &&
			    is_hex(s[i + 4]) && is_hex(s[i + 5])) {
				i += 6;
				continue;
			}
			*bad = i;
			return SIZE_MAX;
		}
		if (b < 0x80) {
			i++;
			continue;
		}
		/* UTF-8 (RFC 3629): no overlong form, no surrogate, to U+10FFFF. */
		if (b >= 0xc2 && b <= 0xdf)
			k = 1, cp = b & 0x1fu;
		else if (b >= 0xe0 && b <= 0xef)
			k = 2, cp = b & 0x0fu;
		else if (b >= 0xf0 && b <= 0xf4)
			k = 3, cp = b & 0x07u;
		else
			k = 0, cp = 0;
		if (k == 0 || len - i <= k) {
			*bad = i;
			return SIZE_MAX;
		}
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80) {
				*bad = i;
				return SIZE_MAX;
			}
			cp = cp << 6 | (s[i + j] & 0x3fu);
		}
		if ((k == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (k == 3 && (cp < 0x10000 || cp > 0x10ffff))) {
			*bad = i;
			return SIZE_MAX;
		}
		i += k + 1;
	}
}

/* A number from i: where it ends, or SIZE_MAX (its fault in *bad).
 * *real: it has a fraction or an exponent. */
static size_t scan_number(const unsigned char *s, size_t i, size_t len, uint8_t *real,
			  size_t *bad)
{
	size_t d;

	*real = 0;
	if (s[i] == '-')
		i++;
	if (i < len && s[i] == '0') {
		i++;
	} else if (i < len && s[i] >= '1' && s[i] <= '9') {
		while (i < len && is_digit(s[i]))
			i++;
	} else {
		*bad = i;
		return SIZE_MAX;
	}
	if (i < len && s[i] == '.') {
		*real = 1;
		d = ++i;
		while (i < len && is_digit(s[i]))
			i++;
		if (i == d) {
			*bad = i;
			return SIZE_MAX;
		}
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		*real = 1;
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		d = i;
		while (i < len && is_digit(s[i]))
			i++;
		if (i == d) {
			*bad = i;
			return SIZE_MAX;
		}
	}
	return i;
}

/* A container being read; in an object, the key of the member whose
 * value is read. */
struct open {
	uint32_t tok, key;
};

struct reader {
	const unsigned char *s;
	size_t len;
	struct gltf_doc_token *t;
	uint32_t n, cap;
	struct open *open;
	uint32_t depth, open_cap;
};

/* A new token at byte i (NULL: out of memory). */
static struct gltf_doc_token *new_token(struct reader *r, size_t i, enum gv_kind kind)
{
	struct gltf_doc_token *t;

	if (r->n == r->cap) {
		struct gltf_doc_token *grown;

		if (r->cap > UINT32_MAX / 2 - 1)
			return NULL;
		grown = realloc(r->t, (size_t)r->cap * 2 * sizeof *grown);
		if (grown == NULL)
			return NULL;
		r->t = grown;
		r->cap *= 2;
	}
	t = &r->t[r->n];
	*t = (struct gltf_doc_token){ .start = (uint32_t)i, .kind = (uint8_t)kind };
	t->parent = GV_NONE;
	if (r->depth > 0) {
		struct open *o = &r->open[r->depth - 1];

		t->parent = r->t[o->tok].kind == GV_OBJECT ? o->key : o->tok;
		if (r->t[o->tok].kind == GV_ARRAY)
			r->t[o->tok].size++;
	}
	r->n++;
	return t;
}

/* Token v's subtree is over: the next token follows it (and its key). */
static void finished(struct reader *r, uint32_t v)
{
	r->t[v].next = r->n;
	if (r->depth > 0 && r->t[r->open[r->depth - 1].tok].kind == GV_OBJECT)
		r->t[r->open[r->depth - 1].key].next = r->n;
}

static int push(struct reader *r, uint32_t v)
{
	if (r->depth == r->open_cap) {
		uint32_t cap = r->open_cap ? r->open_cap * 2 : 64;
		struct open *grown = cap > r->open_cap ? realloc(r->open, (size_t)cap * sizeof *grown)
						       : NULL;

		if (grown == NULL)
			return -ENOMEM;
		r->open = grown;
		r->open_cap = cap;
	}
	r->open[r->depth++] = (struct open){ v, GV_NONE };
	return 0;
}

/*
 * The whole text, tokenised and checked: 0 (the tokens in r), -ENOMEM, or
 * -EINVAL with the offset of the first fault in *bad.
 */
static int read_text(struct reader *r, size_t *bad)
{
	const unsigned char *s = r->s;
	size_t len = r->len, i = 0;
	struct gltf_doc_token *t;

#define FAIL(at) do { *bad = (at); return -EINVAL; } while (0)
#define NEW(kind) do { t = new_token(r, i, (kind)); if (t == NULL) return -ENOMEM; } while (0)
value:
	i = skip_ws(s, i, len);
	if (i >= len)
		FAIL(i);
	switch (s[i]) {
	case '{':
	case '[':
		NEW(s[i] == '{' ? GV_OBJECT : GV_ARRAY);
		if (push(r, r->n - 1) != 0)
			return -ENOMEM;
		i = skip_ws(s, i + 1, len);
		if (i < len && s[i] == (s[r->t[r->n - 1].start] == '{' ? '}' : ']'))
			goto close;
		if (r->t[r->n - 1].kind == GV_OBJECT)
			goto key;
		goto value;
	case '"': {
		uint8_t escaped = 0;
		size_t end = scan_string(s, i + 1, len, &escaped, bad);

		if (end == SIZE_MAX)
			return -EINVAL;
		NEW(GV_STRING);
		t->start = (uint32_t)i + 1;
		t->end = (uint32_t)end;
		t->escaped = escaped;
		i = end + 1;
		break;
	}
	case 't':
	case 'f':
	case 'n': {
		static const char *const word[] = { "true", "false", "null" };
		static const enum gv_kind kind[] = { GV_TRUE, GV_FALSE, GV_NULL };
		int w = s[i] == 't' ? 0 : s[i] == 'f' ? 1 : 2;
		size_t n = strlen(word[w]);

		if (len - i < n || memcmp(s + i, word[w], n) != 0)
			FAIL(i);
		NEW(kind[w]);
		i += n;
		t->end = (uint32_t)i;
		break;
	}
	default: {
		uint8_t real = 0;
		size_t end = scan_number(s, i, len, &real, bad);

		if (end == SIZE_MAX)
			return -EINVAL;
		NEW(GV_NUMBER);
		t->end = (uint32_t)end;
		t->real = real;
		i = end;
		break;
	}
	}
	finished(r, r->n - 1);
after:
	/* A value is over: a comma and the next, the container's end, or the
	 * text's. */
	i = skip_ws(s, i, len);
	if (r->depth == 0) {
		if (i != len)
			FAIL(i);
		return 0;
	}
	if (i < len && s[i] == ',') {
		i = skip_ws(s, i + 1, len);
		if (r->t[r->open[r->depth - 1].tok].kind == GV_OBJECT)
			goto key;
		goto value;
	}
	if (i >= len || s[i] != (r->t[r->open[r->depth - 1].tok].kind == GV_OBJECT ? '}' : ']'))
		FAIL(i);
close:
	{
		uint32_t v = r->open[--r->depth].tok;

		r->t[v].end = (uint32_t)++i;
		finished(r, v);
	}
	goto after;
key:
	/* At i: a member's key, a colon, then its value. */
	{
		struct open *o = &r->open[r->depth - 1];
		uint8_t escaped = 0;
		size_t end;

		if (i >= len || s[i] != '"')
			FAIL(i);
		end = scan_string(s, i + 1, len, &escaped, bad);
		if (end == SIZE_MAX)
			return -EINVAL;
		NEW(GV_STRING);
		o = &r->open[r->depth - 1];
		t->start = (uint32_t)i + 1;
		t->end = (uint32_t)end;
		t->escaped = escaped;
		t->key = 1;
		t->size = 1;
		t->parent = o->tok;
		r->t[o->tok].size++;
		o->key = r->n - 1;
		i = skip_ws(s, end + 1, len);
		if (i >= len || s[i] != ':')
			FAIL(i);
		i++;
		goto value;
	}
#undef NEW
#undef FAIL
}

/* A syntax error at byte `at`: jansson's message and place when it agrees
 * the text is not JSON, else this reader's. */
static int syntax_error(struct gltf_ctx *c, size_t at)
{
	json_error_t e;
	json_t *root = json_loadb(c->p->text, c->p->text_len, JSON_DECODE_ANY | JSON_ALLOW_NUL,
				  &e);
	uint32_t line = 1, col = 1;

	if (root != NULL) {
		json_decref(root);
		for (size_t i = 0; i < at && i < c->p->text_len; i++) {
			if (c->p->text[i] == '\n')
				line++, col = 1;
			else
				col++;
		}
		if (c->m->glb)
			diag_at_offset(c->d, c->p->text_base + at, "JSON: not valid here");
		else
			diag_at(c->d, line, col, "JSON: not valid here");
		return -EINVAL;
	}
	if (c->m->glb)
		diag_at_offset(c->d, c->p->text_base + (e.position > 0 ? (uint64_t)e.position - 1 : 0),
			       "JSON: %s", e.text);
	else
		diag_at(c->d, e.line > 0 ? (uint32_t)e.line : 1, e.column > 0 ? (uint32_t)e.column : 1,
			"JSON: %s", e.text);
	return -EINVAL;
}

int gltf_doc_parse(struct gltf_ctx *c)
{
	struct gltf_priv *p = c->p;
	/* Rarely fewer than 4 bytes a token: room for them at once (pages not
	 * written are never touched), twice more when not. */
	struct reader r = { .s = (const unsigned char *)p->text, .len = p->text_len };
	size_t bad = 0;
	int rc;

	if (p->text_len >= UINT32_MAX)
		return syntax_error(c, 0);
	r.cap = (uint32_t)(p->text_len / 4 + 16);
	r.t = malloc((size_t)r.cap * sizeof *r.t);
	if (r.t == NULL)
		return -ENOMEM;
	rc = read_text(&r, &bad);
	free(r.open);
	if (rc != 0) {
		free(r.t);
		return rc == -EINVAL ? syntax_error(c, bad) : rc;
	}
	/* Room after the tokens for the cursors. */
	{
		struct gltf_doc_token *all = realloc(r.t, extra_offset(r.n) +
							  sizeof(struct gltf_doc_extra));
		struct gltf_doc_extra *x;

		if (all == NULL) {
			free(r.t);
			return -ENOMEM;
		}
		p->tok = all;
		p->count = r.n;
		x = doc_extra(c);
		memset(x, 0, sizeof *x);
		for (int k = 0; k < GV_CURSORS; k++)
			x->cursor[k].array = GV_NONE;
	}
	return 0;
}

void gltf_doc_free(struct gltf_priv *p)
{
	free(p->tok);
	p->tok = NULL;
}

/* ---- reading ---------------------------------------------------------------- */

/* The text a token takes: a string's quotes included. */
static size_t text_start(const struct gltf_doc_token *t)
{
	return t->kind == GV_STRING ? (size_t)t->start - 1 : (size_t)t->start;
}

enum gv_kind gv_kind_of(const struct gltf_ctx *c, gv v)
{
	if (v == GV_NONE || v >= c->p->count)
		return GV_ABSENT;
	return (enum gv_kind)tok(c, v)->kind;
}

bool gv_is_integer(const struct gltf_ctx *c, gv v)
{
	return gv_kind_of(c, v) == GV_NUMBER && !tok(c, v)->real;
}

size_t gv_pos(const struct gltf_ctx *c, gv v)
{
	if (v == GV_NONE || v >= c->p->count)
		return 0;
	return text_start(tok(c, v));
}

uint32_t gv_size(const struct gltf_ctx *c, gv v)
{
	enum gv_kind k = gv_kind_of(c, v);

	return k == GV_ARRAY || k == GV_OBJECT ? tok(c, v)->size : 0;
}

gv gv_first_key(const struct gltf_ctx *c, gv o)
{
	return gv_size(c, o) > 0 && gv_kind_of(c, o) == GV_OBJECT ? o + 1 : GV_NONE;
}

gv gv_next_key(const struct gltf_ctx *c, gv key)
{
	gv n = tok(c, key)->next;

	return n < c->p->count && tok(c, n)->parent == tok(c, key)->parent ? n : GV_NONE;
}

/* Does key token k spell `key`?  Raw bytes, or unescaped when it has a
 * backslash. */
static bool key_is(struct gltf_ctx *c, gv k, const char *key, size_t len)
{
	const struct gltf_doc_token *t = tok(c, k);
	const char *u;

	if (!t->escaped)
		return (size_t)(t->end - t->start) == len && c->p->text[t->start] == key[0] &&
		       memcmp(c->p->text + t->start, key, len) == 0;
	u = gv_string(c, k);
	return u != NULL && strcmp(u, key) == 0;
}

gv gv_get(struct gltf_ctx *c, gv o, const char *key)
{
	size_t len = strlen(key);
	gv found = GV_NONE, end;

	if (gv_kind_of(c, o) != GV_OBJECT)
		return GV_NONE;
	end = tok(c, o)->next;
	/* The last of duplicate keys holds, as jansson would have it.  Keys
	 * follow one another by their subtrees' ends, up to the object's. */
	for (gv k = o + 1; k < end; k = tok(c, k)->next)
		if (key_is(c, k, key, len))
			found = k + 1;
	return found;
}

gv gv_at(struct gltf_ctx *c, gv a, uint32_t i)
{
	struct gltf_doc_extra *x = doc_extra(c);
	struct gv_cursor *cur = NULL;
	gv at;
	uint32_t k;

	if (gv_kind_of(c, a) != GV_ARRAY || i >= tok(c, a)->size)
		return GV_NONE;
	for (int n = 0; n < GV_CURSORS && cur == NULL; n++)
		if (x->cursor[n].array == a)
			cur = &x->cursor[n];
	if (cur == NULL) {
		cur = &x->cursor[x->victim++ % GV_CURSORS];
		*cur = (struct gv_cursor){ a, a + 1, 0 };
	}
	if (i < cur->index) {
		cur->at = a + 1;
		cur->index = 0;
	}
	for (at = cur->at, k = cur->index; k < i; k++)
		at = tok(c, at)->next;
	cur->at = at;
	cur->index = i;
	return at;
}

static int hex4(const char *s)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		char ch = s[i];

		v = v * 16 + (ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
			     : ch - 'A' + 10);
	}
	return v;
}

static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

const char *gv_string(struct gltf_ctx *c, gv v)
{
	const struct gltf_doc_token *t;
	const char *s;
	size_t n, o = 0;
	char *out;

	if (gv_kind_of(c, v) != GV_STRING)
		return NULL;
	t = tok(c, v);
	s = c->p->text + t->start;
	n = (size_t)(t->end - t->start);
	/* An escape never makes the text longer; \u0000 is kept as U+FFFD so
	 * that names stay C strings. */
	out = gltf_alloc(c, n + 1, 1);
	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		uint32_t cp;

		if (s[i] != '\\') {
			out[o++] = s[i];
			continue;
		}
		switch (s[++i]) {
		case 'b': out[o++] = '\b'; continue;
		case 'f': out[o++] = '\f'; continue;
		case 'n': out[o++] = '\n'; continue;
		case 'r': out[o++] = '\r'; continue;
		case 't': out[o++] = '\t'; continue;
		case 'u': break;
		default: out[o++] = s[i]; continue;
		}
		cp = (uint32_t)hex4(s + i + 1);
		i += 4;
		if (cp >= 0xd800 && cp <= 0xdbff && i + 6 < n + 1 && s[i + 1] == '\\' &&
		    s[i + 2] == 'u') {
			uint32_t lo = (uint32_t)hex4(s + i + 3);

			if (lo >= 0xdc00 && lo <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				i += 6;
			}
		}
		if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff))
			cp = 0xfffd;
		o += put_utf8(out + o, cp);
	}
	out[o] = '\0';
	return out;
}

bool gv_number(const struct gltf_ctx *c, gv v, double *out)
{
	const struct gltf_doc_token *t;

	if (gv_kind_of(c, v) != GV_NUMBER)
		return false;
	t = tok(c, v);
	return decimal_parse(c->p->text + t->start, (size_t)(t->end - t->start), out) == DECIMAL_OK;
}

bool gv_integer(const struct gltf_ctx *c, gv v, int64_t *out)
{
	const struct gltf_doc_token *t;
	const char *s;
	uint64_t acc = 0;
	bool neg;
	uint32_t i;

	if (v == GV_NONE || v >= c->p->count || tok(c, v)->kind != GV_NUMBER)
		return false;
	t = tok(c, v);
	s = c->p->text;
	neg = s[t->start] == '-';
	/* The grammar was checked: a number's digits, then maybe '.' or 'e'. */
	for (i = t->start + neg; i < t->end; i++) {
		if (s[i] < '0' || s[i] > '9' || acc > (UINT64_MAX - 9) / 10)
			return false;
		acc = acc * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == t->start + neg)
		return false;
	if (acc > (uint64_t)INT64_MAX + neg)
		return false;
	*out = neg ? (int64_t)(0 - acc) : (int64_t)acc;
	return true;
}

gv gv_locate(struct gltf_ctx *c, const struct gltf_where *w)
{
	gv at = 0;

	for (uint8_t k = 0; k < w->n; k++) {
		gv next = w->seg[k].key != NULL ? gv_get(c, at, w->seg[k].key)
						: gv_at(c, at, w->seg[k].index);

		if (next == GV_NONE)
			break;
		at = next;
	}
	return at;
}
