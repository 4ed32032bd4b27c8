/*
 * gltf_doc.c - the JSON document: tokenised by jsmn (libjsmn-dev, strict
 * mode, parent links: a token per value with its bytes, in document
 * order, no allocation per value), then checked against RFC 8259's
 * grammar here, since jsmn does not check everything: the separators
 * between values (a comma between elements and members, a colon after a
 * key), one value at the top and nothing but white space after it,
 * numbers and literals spelled exactly, strings without raw control
 * characters and in UTF-8.  A document that fails is read again by
 * jansson, whose message and line and column (or offset, in a GLB) the
 * error then gives; jansson is used for nothing else, because it builds a
 * tree with a hash table per object and reads glTF's JSON at 25 to 40
 * MB/s, where jsmn tokenises it at about 500 (bench_gltf): on a file with
 * a large JSON chunk, more than the whole of assimp's import.
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

#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include "daemon/formats/decimal.h"

/* The document's tokens, as jsmn made them, and what this file adds. */
struct gltf_doc_token {
	jsmntok_t t;
};

#define GV_CURSORS 4

struct gv_cursor {
	gv array, at;
	uint32_t index;
};

/* Kept in the arena beside the tokens: per token, the one after its
 * subtree; the array cursors. */
struct gltf_doc_extra {
	uint32_t *next;
	uint8_t *escaped;               /* per token: a string with a backslash */
	struct gv_cursor cursor[GV_CURSORS];
	uint32_t victim;
};

/* Where the extras start after `count` tokens: 16-aligned. */
static size_t extra_offset(uint32_t count)
{
	return ((size_t)count * sizeof(jsmntok_t) + 15) & ~(size_t)15;
}

static struct gltf_doc_extra *doc_extra(const struct gltf_ctx *c)
{
	return (struct gltf_doc_extra *)(void *)((char *)c->p->tok + extra_offset(c->p->count));
}

static const jsmntok_t *tok(const struct gltf_ctx *c, gv v)
{
	return &((const jsmntok_t *)(const void *)c->p->tok)[v];
}

/* ---- checking the grammar ------------------------------------------------- */

static bool is_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* Only white space in [a, b), or white space, `sep` and white space. */
static bool separated(const char *s, size_t a, size_t b, char sep)
{
	while (a < b && is_ws(s[a]))
		a++;
	if (sep != 0) {
		if (a >= b || s[a] != sep)
			return false;
		a++;
		while (a < b && is_ws(s[a]))
			a++;
	}
	return a == b;
}

/* A number exactly as JSON spells it. */
static bool json_number(const char *s, size_t n)
{
	size_t i = 0;

	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0') {
		i++;
	} else if (i < n && s[i] >= '1' && s[i] <= '9') {
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	} else {
		return false;
	}
	if (i < n && s[i] == '.') {
		size_t d = ++i;

		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return false;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t d;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		d = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return false;
	}
	return i == n;
}

static bool json_primitive(const char *s, size_t n)
{
	if (n == 4 && (memcmp(s, "true", 4) == 0 || memcmp(s, "null", 4) == 0))
		return true;
	if (n == 5 && memcmp(s, "false", 5) == 0)
		return true;
	return json_number(s, n);
}

/* A string's bytes: no raw control character, UTF-8 (RFC 3629); escapes
 * jsmn checked.  *escaped: whether it has a backslash. */
static bool json_string_bytes(const unsigned char *s, size_t n, uint8_t *escaped)
{
	size_t i = 0;

	*escaped = 0;
	/* Eight bytes at a time while they are plain: no byte below 0x20 or
	 * from 0x80, no backslash. */
	for (; i + 8 <= n; i += 8) {
		uint64_t w, low, high, slash;

		memcpy(&w, s + i, sizeof w);
		low = (w - 0x2020202020202020ull) & ~w;
		slash = w ^ 0x5c5c5c5c5c5c5c5cull;
		slash = (slash - 0x0101010101010101ull) & ~slash;
		high = w | low | slash;
		if (high & 0x8080808080808080ull)
			break;
	}
	for (; i < n;) {
		unsigned char b = s[i];
		uint32_t cp;
		size_t k;

		if (b < 0x80) {
			if (b < 0x20)
				return false;
			*escaped |= b == '\\';
			i++;
			continue;
		}
		if (b >= 0xc2 && b <= 0xdf)
			k = 1, cp = b & 0x1fu;
		else if (b >= 0xe0 && b <= 0xef)
			k = 2, cp = b & 0x0fu;
		else if (b >= 0xf0 && b <= 0xf4)
			k = 3, cp = b & 0x07u;
		else
			return false;
		if (n - i <= k)
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3fu);
		}
		if ((k == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (k == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		i += k + 1;
	}
	return true;
}

/* The text a token takes: a string's quotes included. */
static size_t text_start(const jsmntok_t *t)
{
	return t->type == JSMN_STRING ? (size_t)t->start - 1 : (size_t)t->start;
}

static size_t text_end(const jsmntok_t *t)
{
	return t->type == JSMN_STRING ? (size_t)t->end + 1 : (size_t)t->end;
}

struct frame {
	uint32_t tok;
	size_t last_end;        /* where the last child ended (or just past '[') */
	uint32_t seen;
};

/*
 * Everything jsmn let through checked, and each token's `next` (the token
 * after its subtree) worked out.  0, or the offset of the first fault
 * (+1) in *bad.
 */
static int check_tokens(struct gltf_ctx *c, uint32_t *next, uint8_t *escaped, size_t *bad)
{
	const char *s = c->p->text;
	const jsmntok_t *t = (const jsmntok_t *)(const void *)c->p->tok;
	uint32_t n = c->p->count, depth = 0;
	struct frame *st = malloc(((size_t)n + 1) * sizeof *st);
	size_t len = c->p->text_len;
	int rc = 0;

	if (st == NULL)
		return -ENOMEM;
#define FAIL(at) do { *bad = (at) + 1; rc = -EINVAL; goto out; } while (0)
	if (n == 0)
		FAIL(len);
	if (!separated(s, 0, text_start(&t[0]), 0))
		FAIL(0);
	for (uint32_t i = 0; i < n; i++) {
		struct frame *f;
		bool key;

		/* Close the containers that end before this token. */
		while (depth > 0 && (size_t)t[i].start >= (size_t)t[st[depth - 1].tok].end) {
			f = &st[--depth];
			if (!separated(s, f->last_end, (size_t)t[f->tok].end - 1, 0))
				FAIL(f->last_end);
			next[f->tok] = i;
		}
		if (depth == 0 && i > 0)
			FAIL(text_start(&t[i]));        /* a second value at the top */
		f = depth > 0 ? &st[depth - 1] : NULL;
		key = f != NULL && t[f->tok].type == JSMN_OBJECT;
		if (f != NULL && !separated(s, f->last_end, text_start(&t[i]), f->seen ? ',' : 0))
			FAIL(f->last_end);
		if (key) {
			/* A member: a string key, a colon, its value (the next token). */
			if (t[i].type != JSMN_STRING || t[i].size != 1 || i + 1 >= n ||
			    (uint32_t)t[i + 1].parent != i)
				FAIL(text_start(&t[i]));
			if (!json_string_bytes((const unsigned char *)s + t[i].start,
					       (size_t)(t[i].end - t[i].start), &escaped[i]))
				FAIL((size_t)t[i].start);
			if (!separated(s, text_end(&t[i]), text_start(&t[i + 1]), ':'))
				FAIL(text_end(&t[i]));
			next[i] = i + 1;        /* fixed below, once the value's is known */
			i++;
		}
		switch (t[i].type) {
		case JSMN_PRIMITIVE:
			if (!json_primitive(s + t[i].start, (size_t)(t[i].end - t[i].start)))
				FAIL((size_t)t[i].start);
			next[i] = i + 1;
			break;
		case JSMN_STRING:
			if (!json_string_bytes((const unsigned char *)s + t[i].start,
					       (size_t)(t[i].end - t[i].start), &escaped[i]))
				FAIL((size_t)t[i].start);
			next[i] = i + 1;
			break;
		case JSMN_OBJECT:
		case JSMN_ARRAY:
			if (t[i].end < 0)
				FAIL((size_t)t[i].start);
			st[depth++] = (struct frame){ i, (size_t)t[i].start + 1, 0 };
			break;
		default:
			FAIL((size_t)t[i].start);
		}
		if (f != NULL) {
			f->seen++;
			f->last_end = text_end(&t[i]);
		}
	}
	while (depth > 0) {
		struct frame *f = &st[--depth];

		if (!separated(s, f->last_end, (size_t)t[f->tok].end - 1, 0))
			FAIL(f->last_end);
		next[f->tok] = n;
	}
	if (!separated(s, text_end(&t[0]), len, 0))
		FAIL(text_end(&t[0]));
	/* A key's subtree is its value's. */
	for (uint32_t i = n; i-- > 0;)
		if (t[i].type == JSMN_STRING && t[i].size == 1 && i + 1 < n)
			next[i] = next[i + 1];
#undef FAIL
out:
	free(st);
	return rc;
}

/* A syntax error at byte `at`: jansson's message and place when it agrees
 * the text is not JSON, else this reader's. */
static int syntax_error(struct gltf_ctx *c, size_t at)
{
	json_error_t e;
	json_t *root = json_loadb(c->p->text, c->p->text_len, 0, &e);
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
	size_t cap = p->text_len / 4 + 16, bad = 0;
	jsmntok_t *t = NULL;
	jsmn_parser jp;
	int r;

	if (p->text_len > INT_MAX)
		return syntax_error(c, 0);
	jsmn_init(&jp);
	for (;;) {
		jsmntok_t *grown = realloc(t, cap * sizeof *t);

		if (grown == NULL) {
			free(t);
			return -ENOMEM;
		}
		t = grown;
		r = jsmn_parse(&jp, p->text, p->text_len, t, (unsigned)cap);
		if (r != JSMN_ERROR_NOMEM)
			break;
		if (cap > SIZE_MAX / 4 / sizeof *t) {
			free(t);
			return -ENOMEM;
		}
		cap *= 2;
	}
	if (r < 0) {
		free(t);
		return syntax_error(c, jp.pos);
	}
	p->count = jp.toknext;
	/* Room after the tokens for the per-token `next` and the cursors. */
	{
		size_t bytes = extra_offset(p->count) + sizeof(struct gltf_doc_extra) +
			       ((size_t)p->count + 1) * (sizeof(uint32_t) + 1);
		void *all = realloc(t, bytes);
		struct gltf_doc_extra *x;
		int rc;

		if (all == NULL) {
			free(t);
			return -ENOMEM;
		}
		p->tok = all;
		x = doc_extra(c);
		memset(x, 0, sizeof *x);
		x->next = (uint32_t *)(void *)(x + 1);
		x->escaped = (uint8_t *)(x->next + p->count + 1);
		memset(x->escaped, 0, (size_t)p->count + 1);
		for (int k = 0; k < GV_CURSORS; k++)
			x->cursor[k].array = GV_NONE;
		rc = check_tokens(c, x->next, x->escaped, &bad);
		if (rc == -EINVAL)
			return syntax_error(c, bad - 1);
		return rc;
	}
}

void gltf_doc_free(struct gltf_priv *p)
{
	free(p->tok);
	p->tok = NULL;
}

/* ---- reading ---------------------------------------------------------------- */

enum gv_kind gv_kind_of(const struct gltf_ctx *c, gv v)
{
	const jsmntok_t *t;

	if (v == GV_NONE || v >= c->p->count)
		return GV_ABSENT;
	t = tok(c, v);
	switch (t->type) {
	case JSMN_OBJECT:
		return GV_OBJECT;
	case JSMN_ARRAY:
		return GV_ARRAY;
	case JSMN_STRING:
		return GV_STRING;
	default:
		switch (c->p->text[t->start]) {
		case 't':
			return GV_TRUE;
		case 'f':
			return GV_FALSE;
		case 'n':
			return GV_NULL;
		default:
			return GV_NUMBER;
		}
	}
}

bool gv_is_integer(const struct gltf_ctx *c, gv v)
{
	const jsmntok_t *t;

	if (gv_kind_of(c, v) != GV_NUMBER)
		return false;
	t = tok(c, v);
	for (int i = t->start; i < t->end; i++)
		if (c->p->text[i] == '.' || c->p->text[i] == 'e' || c->p->text[i] == 'E')
			return false;
	return true;
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

	return k == GV_ARRAY || k == GV_OBJECT ? (uint32_t)tok(c, v)->size : 0;
}

gv gv_first_key(const struct gltf_ctx *c, gv o)
{
	return gv_size(c, o) > 0 && gv_kind_of(c, o) == GV_OBJECT ? o + 1 : GV_NONE;
}

gv gv_next_key(const struct gltf_ctx *c, gv key)
{
	const struct gltf_doc_extra *x = doc_extra(c);
	gv parent = (gv)tok(c, key)->parent, n = x->next[key];

	return n < c->p->count && (gv)tok(c, n)->parent == parent ? n : GV_NONE;
}

/* Does key token k spell `key`?  Raw bytes, or unescaped when it has a
 * backslash. */
static bool key_is(struct gltf_ctx *c, const struct gltf_doc_extra *x, gv k, const char *key,
		   size_t len)
{
	const jsmntok_t *t = tok(c, k);
	const char *u;

	if (!x->escaped[k])
		return (size_t)(t->end - t->start) == len && c->p->text[t->start] == key[0] &&
		       memcmp(c->p->text + t->start, key, len) == 0;
	u = gv_string(c, k);
	return u != NULL && strcmp(u, key) == 0;
}

gv gv_get(struct gltf_ctx *c, gv o, const char *key)
{
	const struct gltf_doc_extra *x;
	size_t len = strlen(key);
	gv found = GV_NONE, end;

	if (o == GV_NONE || o >= c->p->count || tok(c, o)->type != JSMN_OBJECT)
		return GV_NONE;
	x = doc_extra(c);
	end = x->next[o];
	/* The last of duplicate keys holds, as jansson would have it.  Keys
	 * follow one another by their subtrees' ends, up to the object's. */
	for (gv k = o + 1; k < end; k = x->next[k])
		if (key_is(c, x, k, key, len))
			found = k + 1;
	return found;
}

gv gv_at(struct gltf_ctx *c, gv a, uint32_t i)
{
	struct gltf_doc_extra *x = doc_extra(c);
	struct gv_cursor *cur = NULL;
	gv at;
	uint32_t k;

	if (gv_kind_of(c, a) != GV_ARRAY || i >= (uint32_t)tok(c, a)->size)
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
		at = x->next[at];
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
	const jsmntok_t *t;
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
	const jsmntok_t *t;

	if (gv_kind_of(c, v) != GV_NUMBER)
		return false;
	t = tok(c, v);
	return decimal_parse(c->p->text + t->start, (size_t)(t->end - t->start), out) == DECIMAL_OK;
}

bool gv_integer(const struct gltf_ctx *c, gv v, int64_t *out)
{
	const jsmntok_t *t;
	const char *s;
	uint64_t acc = 0;
	bool neg;
	int i;

	if (v == GV_NONE || v >= c->p->count || tok(c, v)->type != JSMN_PRIMITIVE)
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
