/*
 * x_binary.c - the binary .x body ("bin "/"bzip") read into a tree.
 *
 * The body is a stream of little-endian WORD token ids, some followed by
 * data: 1 name (DWORD length, bytes), 2 string (DWORD length, bytes, then a
 * ';' or ',' token), 3 integer (DWORD), 5 GUID (16 bytes), 6 integer list
 * (DWORD count, DWORDs), 7 float list (DWORD count, 4- or 8-byte floats as
 * the header says), 10-20 punctuation, 31 template, 40-52 type keywords.
 *
 * What we accept:
 *   template NAME { ... }           skipped by brace matching, at the top
 *                                   level (as the text reader does)
 *   TYPE [NAME] { [GUID] ... }      a data object (an empty NAME, which
 *                                   D3DX writes, is no name)
 *   { NAME } { GUID } { NAME GUID } a reference, inside an object
 *   integer, integer list, float list, string
 *                                   values of the innermost open object,
 *                                   one per element, in stream order
 *   ',' ';'                         separators, skipped wherever they stand
 *                                   (some writers put them between values)
 * Anything else outside a template (a stray '[', a type keyword, a GUID
 * not right after an object's '{') is an error at its offset.
 *
 * Values keep the file's bits: an integer is the DWORD read as unsigned
 * (an SDWORD -1 is 4294967295; the importer knows the member's type), a
 * float is widened to double exactly, NaN and infinities included (the
 * importer decides what they mean).
 */
#include "daemon/formats/x/x_syntax.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "daemon/formats/bin_reader.h"
#include "daemon/formats/lexer.h"
#include "daemon/formats/x/x.h"

enum {
	XB_NAME = 1,
	XB_STRING = 2,
	XB_INTEGER = 3,
	XB_GUID = 5,
	XB_INT_LIST = 6,
	XB_FLOAT_LIST = 7,
	XB_OBRACE = 10,
	XB_CBRACE = 11,
	XB_COMMA = 19,
	XB_SEMICOLON = 20,
	XB_TEMPLATE = 31,
	XB_KEYWORD_FIRST = 40,
	XB_KEYWORD_LAST = 52,
};

struct xb_token {
	uint32_t id;
	uint32_t pos;           /* of the id, in the body */
	const unsigned char *data;      /* name or string bytes, GUID, list elements */
	uint32_t n;             /* name or string length, list count */
	uint32_t value;         /* an integer token's DWORD */
};

struct xb_reader {
	struct bin_reader br;   /* the body; offsets reported as file offsets */
	struct x_builder *b;
	const unsigned char *p; /* br.data */
	size_t len, off;        /* br.len, and the next token's position */
	uint32_t float_bytes;
};

/* What a token is called in messages. */
static const char *xb_token_name(uint32_t id)
{
	static const char *const punct[] = { "'{'", "'}'", "'('", "')'", "'['", "']'",
					     "'<'", "'>'", "'.'", "','", "';'" };
	static const char *const keyword[] = { "WORD", "DWORD", "FLOAT", "DOUBLE", "CHAR",
					       "UCHAR", "SWORD", "SDWORD", "VOID", "LPSTR",
					       "UNICODE", "CSTRING", "ARRAY" };

	switch (id) {
	case XB_NAME:
		return "a name";
	case XB_STRING:
		return "a string";
	case XB_INTEGER:
		return "an integer";
	case XB_GUID:
		return "a GUID";
	case XB_INT_LIST:
		return "an integer list";
	case XB_FLOAT_LIST:
		return "a float list";
	case XB_TEMPLATE:
		return "the keyword template";
	}
	if (id >= XB_OBRACE && id <= XB_SEMICOLON)
		return punct[id - XB_OBRACE];
	if (id >= XB_KEYWORD_FIRST && id <= XB_KEYWORD_LAST)
		return keyword[id - XB_KEYWORD_FIRST];
	return "an unknown token";
}

/* A name for a message, shown safely (lex_show: the rest as \xNN). */
static const char *xb_show(const struct xb_token *tok, char *buf, size_t size)
{
	return lex_show((const char *)tok->data, tok->n, buf, size);
}

static int xb_error(struct xb_reader *r, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int xb_error(struct xb_reader *r, size_t pos, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = bin_verror(&r->br, pos, fmt, ap);
	va_end(ap);
	return rc;
}

/* The token's fixed-size data must fit in what is left. */
static int xb_need(struct xb_reader *r, const struct xb_token *tok, size_t n, const char *what)
{
	if (bin_fits(&r->br, r->off, n))
		return 0;
	return xb_error(r, tok->pos, "%s is cut short: its %s needs %zu bytes, only %zu left",
			xb_token_name(tok->id), what, n, r->len - r->off);
}

/* A count of `size`-byte items must fit in what is left (checked before
 * the count is used for anything). */
static int xb_count(struct xb_reader *r, const struct xb_token *tok, uint32_t size)
{
	uint32_t n = bin_le32(r->p + r->off);

	if (bin_array_fits(&r->br, r->off + 4, n, size))
		return 0;
	if (size == 1)
		return xb_error(r, r->off, "%s declares %u bytes, but %zu are left",
				xb_token_name(tok->id), n, r->len - r->off - 4);
	return xb_error(r, r->off, "%s declares %u %u-byte elements, but %zu bytes are left",
			xb_token_name(tok->id), n, size, r->len - r->off - 4);
}

/* Read the next token.  1 with *tok filled, 0 at the end of the body, or
 * -EINVAL with the error located. */
static int xb_next(struct xb_reader *r, struct xb_token *tok)
{
	size_t left = r->len - r->off;

	if (left == 0)
		return 0;
	if (left < 2)
		return xb_error(r, r->off, "the body ends 1 byte into a token id");
	memset(tok, 0, sizeof *tok);
	tok->pos = (uint32_t)r->off;
	tok->id = bin_le16(r->p + r->off);
	r->off += 2;
	switch (tok->id) {
	case XB_NAME:
	case XB_STRING:
		if (xb_need(r, tok, 4, "length") < 0 || xb_count(r, tok, 1) < 0)
			return -EINVAL;
		tok->n = bin_le32(r->p + r->off);
		tok->data = r->p + r->off + 4;
		r->off += 4 + (size_t)tok->n;
		if (tok->id == XB_NAME) {
			/* Names become C strings: one with a NUL inside would
			 * read as something else.  Empty ones are for the
			 * caller to judge (D3DX writes them for unnamed
			 * objects). */
			if (memchr(tok->data, '\0', tok->n) != NULL)
				return xb_error(r, tok->pos,
						"a name of %u bytes with a NUL byte in it", tok->n);
			break;
		}
		if (r->len - r->off < 2)
			return xb_error(r, r->off, "a string must end with a ';' or ',' token; "
					"the body ends first");
		if (bin_le16(r->p + r->off) != XB_COMMA && bin_le16(r->p + r->off) != XB_SEMICOLON)
			return xb_error(r, r->off, "a string must end with a ';' or ',' token, "
					"not token %u", bin_le16(r->p + r->off));
		r->off += 2;
		break;
	case XB_INTEGER:
		if (xb_need(r, tok, 4, "value") < 0)
			return -EINVAL;
		tok->value = bin_le32(r->p + r->off);
		r->off += 4;
		break;
	case XB_GUID:
		if (xb_need(r, tok, 16, "value") < 0)
			return -EINVAL;
		tok->data = r->p + r->off;
		r->off += 16;
		break;
	case XB_INT_LIST:
	case XB_FLOAT_LIST: {
		uint32_t size = tok->id == XB_INT_LIST ? 4 : r->float_bytes;

		if (xb_need(r, tok, 4, "count") < 0 || xb_count(r, tok, size) < 0)
			return -EINVAL;
		tok->n = bin_le32(r->p + r->off);
		tok->data = r->p + r->off + 4;
		r->off += 4 + (size_t)tok->n * size;
		break;
	}
	case XB_TEMPLATE:
		break;
	default:
		if ((tok->id >= XB_OBRACE && tok->id <= XB_SEMICOLON) ||
		    (tok->id >= XB_KEYWORD_FIRST && tok->id <= XB_KEYWORD_LAST))
			break;
		return xb_error(r, tok->pos, "unknown token id %u", tok->id);
	}
	return 1;
}

/* `template NAME { ... }`: checked to be well formed token by token, its
 * braces matched, nothing kept. */
static int xb_template(struct xb_reader *r, const struct xb_token *start)
{
	struct xb_token name, tok;
	char shown[80];
	uint32_t depth = 1;
	int rc;

	if (x_build_depth(r->b) > 0)
		return xb_error(r, start->pos, "a template inside an object: templates belong at "
				"the top level");
	rc = xb_next(r, &name);
	if (rc < 0)
		return rc;
	if (rc == 0 || name.id != XB_NAME)
		return xb_error(r, rc == 0 ? start->pos : name.pos,
				"template: expected its name, found %s",
				rc == 0 ? "the end of the file" : xb_token_name(name.id));
	rc = xb_next(r, &tok);
	if (rc < 0)
		return rc;
	if (rc == 0 || tok.id != XB_OBRACE)
		return xb_error(r, rc == 0 ? start->pos : tok.pos,
				"template %s: expected '{', found %s",
				xb_show(&name, shown, sizeof shown),
				rc == 0 ? "the end of the file" : xb_token_name(tok.id));
	while (depth > 0) {
		rc = xb_next(r, &tok);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return xb_error(r, start->pos,
					"template %s is never closed: the file ends before its '}'",
					xb_show(&name, shown, sizeof shown));
		if (tok.id == XB_OBRACE)
			depth++;
		else if (tok.id == XB_CBRACE)
			depth--;
	}
	return 0;
}

/* A GUID as the text form writes it: the file holds the GUID structure
 * (Data1, Data2, Data3 little-endian, then Data4's 8 bytes), the tree the
 * digits in reading order, so the same GUID compares equal whatever the
 * encoding. */
static void xb_guid_canonical(const unsigned char *raw, uint8_t out[16])
{
	static const uint8_t order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };

	for (int i = 0; i < 16; i++)
		out[i] = raw[order[i]];
}

/* `TYPE [NAME] { [GUID]`: open a data object; its members and children
 * follow in the main loop. */
static int xb_object(struct xb_reader *r, const struct xb_token *type)
{
	struct xb_token name, tok;
	char shown[80];
	size_t save;
	int rc;

	if (type->n == 0)
		return xb_error(r, type->pos, "an object whose type is an empty name");
	memset(&name, 0, sizeof name);
	rc = xb_next(r, &tok);
	if (rc > 0 && tok.id == XB_NAME) {
		name = tok;     /* empty: unnamed, as the builder takes it */
		rc = xb_next(r, &tok);
	}
	if (rc < 0)
		return rc;
	if (rc == 0)
		return xb_error(r, type->pos, "object %s: the file ends before its '{'",
				xb_show(type, shown, sizeof shown));
	if (tok.id != XB_OBRACE)
		return xb_error(r, tok.pos, "object %s: expected %s'{', found %s",
				xb_show(type, shown, sizeof shown), name.data ? "" : "a name or ",
				xb_token_name(tok.id));
	rc = x_build_open(r->b, (const char *)type->data, type->n, (const char *)name.data, name.n,
			  type->pos);
	if (rc < 0)
		return rc;
	/* A GUID right after the brace is the object's own. */
	save = r->off;
	rc = xb_next(r, &tok);
	if (rc < 0)
		return rc;
	if (rc > 0 && tok.id == XB_GUID) {
		uint8_t g[16];

		xb_guid_canonical(tok.data, g);
		return x_build_guid(r->b, g);
	}
	r->off = save;
	return 0;
}

/* `{ NAME }`, `{ GUID }` or `{ NAME GUID }` inside an object. */
static int xb_reference(struct xb_reader *r, const struct xb_token *open)
{
	struct xb_token name, guid, tok;
	int rc;

	if (x_build_depth(r->b) == 0)
		return xb_error(r, open->pos, "'{' outside any object: a reference { name } "
				"belongs inside one, an object starts with its type");
	memset(&name, 0, sizeof name);
	memset(&guid, 0, sizeof guid);
	rc = xb_next(r, &tok);
	if (rc > 0 && tok.id == XB_NAME) {
		name = tok;
		rc = xb_next(r, &tok);
	}
	if (rc > 0 && tok.id == XB_GUID) {
		guid = tok;
		rc = xb_next(r, &tok);
	}
	if (rc < 0)
		return rc;
	if (rc == 0)
		return xb_error(r, open->pos, "a reference is never closed: the file ends before "
				"its '}'");
	if (tok.id != XB_CBRACE)
		return xb_error(r, tok.pos, "a reference { name <GUID> } holds a name, a GUID or "
				"both, then '}': found %s", xb_token_name(tok.id));
	if (name.n == 0 && guid.data == NULL)
		return xb_error(r, open->pos, "a reference that names nothing: no name "
				"(or an empty one) and no GUID");
	if (guid.data != NULL) {
		uint8_t g[16];

		xb_guid_canonical(guid.data, g);
		return x_build_reference(r->b, (const char *)name.data, name.n, g, open->pos);
	}
	return x_build_reference(r->b, (const char *)name.data, name.n, NULL, open->pos);
}

static double xb_float(const unsigned char *p, uint32_t bytes)
{
	return bytes == 4 ? bin_lef32(p) : bin_lef64(p);
}

/* Member values: each element of a list is one value of the innermost
 * open object, located at the element. */
static int xb_values(struct xb_reader *r, const struct xb_token *tok)
{
	const unsigned char *e;
	struct x_value *v;
	uint32_t pos;

	if (x_build_depth(r->b) == 0)
		return xb_error(r, tok->pos, "%s outside any object", xb_token_name(tok->id));
	switch (tok->id) {
	case XB_INTEGER:
		return x_build_int(r->b, tok->value, tok->pos);
	case XB_STRING:
		return x_build_string(r->b, (const char *)tok->data, tok->n, tok->pos);
	default:
		break;
	}
	/* A list: its elements filled in at once. */
	if (tok->n == 0)
		return 0;
	v = x_build_values(r->b, tok->n, tok->pos);
	if (v == NULL)
		return -ENOMEM;
	e = tok->data;
	pos = (uint32_t)(e - r->p);
	if (tok->id == XB_INT_LIST) {
		for (uint32_t i = 0; i < tok->n; i++, e += 4, pos += 4) {
			v[i].kind = X_VALUE_INT;
			v[i].pos = pos;
			v[i].v.i = bin_le32(e);
		}
	} else {
		uint32_t size = r->float_bytes;

		for (uint32_t i = 0; i < tok->n; i++, e += size, pos += size) {
			v[i].kind = X_VALUE_FLOAT;
			v[i].pos = pos;
			v[i].v.f = xb_float(e, size);
		}
	}
	return 0;
}

static int xb_body(struct xb_reader *r)
{
	struct xb_token tok;
	int rc;

	while ((rc = xb_next(r, &tok)) > 0) {
		switch (tok.id) {
		case XB_NAME:
			rc = xb_object(r, &tok);
			break;
		case XB_OBRACE:
			rc = xb_reference(r, &tok);
			break;
		case XB_CBRACE:
			rc = x_build_close(r->b, tok.pos);
			break;
		case XB_INTEGER:
		case XB_STRING:
		case XB_INT_LIST:
		case XB_FLOAT_LIST:
			rc = xb_values(r, &tok);
			break;
		case XB_COMMA:
		case XB_SEMICOLON:
			break;
		case XB_TEMPLATE:
			rc = xb_template(r, &tok);
			break;
		case XB_GUID:
			rc = xb_error(r, tok.pos, "a GUID out of place: an object's comes right "
				      "after its '{', a reference's inside { name <GUID> }");
			break;
		default:
			rc = xb_error(r, tok.pos, "unexpected %s outside a template",
				      xb_token_name(tok.id));
			break;
		}
		if (rc < 0)
			return rc;
	}
	return rc;
}

int x_binary_read(struct x_tree *t, struct diag *d)
{
	struct xb_reader r;
	int rc;

	if (t->header.float_bits != 32 && t->header.float_bits != 64) {
		diag_at_offset(d, 12, "float size %u is neither 32 nor 64 bits",
			       t->header.float_bits);
		return -EINVAL;
	}
	if (t->body_len > X_MAX_BYTES) {
		diag_at_offset(d, 0, "a body of %zu bytes: larger than the %u-byte limit",
			       t->body_len, X_MAX_BYTES);
		return -EINVAL;
	}
	memset(&r, 0, sizeof r);
	/* Offsets count from the start of the file, header included; for a
	 * compressed file, of the file as decompressed (whose declared size
	 * includes the header too). */
	bin_init(&r.br, t->body, t->body_len, d);
	r.br.base = X_HEADER_BYTES;
	r.br.prefix = t->header.compressed ? "in the decompressed data: " : "";
	r.p = r.br.data;
	r.len = r.br.len;
	r.float_bytes = t->header.float_bits / 8;
	rc = x_build_begin(&r.b, t, d);
	if (rc < 0)
		return rc;
	rc = xb_body(&r);
	if (rc < 0) {
		x_build_abort(r.b);
		return rc;
	}
	return x_build_finish(r.b, (uint32_t)r.len);
}
