/*
 * gltf_internal.h - what the parts of the glTF reader share: the parse's
 * state, JSON pointers that locate an error or a note in the text, typed
 * and located reads of the document (jansson), an arena for the model's
 * arrays.  Internal to daemon/formats/gltf.
 */
#ifndef ANIMD_GLTF_INTERNAL_H
#define ANIMD_GLTF_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/formats/bin_reader.h"
#include "daemon/formats/gltf/gltf.h"

/* A JSON pointer ("/animations/0/samplers/3/input") kept as its segments:
 * a key (key != NULL) or an array index.  Small, passed by value. */
#define GLTF_WHERE_MAX 8

struct gltf_where {
	uint8_t n;
	struct {
		const char *key;
		uint32_t index;
	} seg[GLTF_WHERE_MAX];
};

static inline struct gltf_where gw_key(struct gltf_where w, const char *key)
{
	if (w.n < GLTF_WHERE_MAX) {
		w.seg[w.n].key = key;
		w.seg[w.n].index = 0;
		w.n++;
	}
	return w;
}

static inline struct gltf_where gw_at(struct gltf_where w, uint32_t index)
{
	if (w.n < GLTF_WHERE_MAX) {
		w.seg[w.n].key = NULL;
		w.seg[w.n].index = index;
		w.n++;
	}
	return w;
}

static inline struct gltf_where gw_item(const char *array, uint32_t index)
{
	struct gltf_where w = { 0 };

	return gw_at(gw_key(w, array), index);
}

/* "/a/3/b" into buf; returns buf. */
const char *gltf_where_text(const struct gltf_where *w, char *buf, size_t size);

/* Roles an accessor plays, which say what its data must be (gltf_data.c). */
enum {
	GLTF_ROLE_INPUT = 1u << 0,      /* key times */
	GLTF_ROLE_ROTATION = 1u << 1,   /* rotation keys */
	GLTF_ROLE_OUTPUT = 1u << 2,     /* translation, scale and weight keys */
	GLTF_ROLE_POSITION = 1u << 3,   /* positions and their targets */
	GLTF_ROLE_NORMAL = 1u << 4,     /* normals and their targets */
	GLTF_ROLE_INDICES = 1u << 5,
	GLTF_ROLE_JOINTS = 1u << 6,
	GLTF_ROLE_WEIGHTS = 1u << 7,
	GLTF_ROLE_IBM = 1u << 8,
	GLTF_ROLE_OTHER = 1u << 9,      /* texture coordinates, colours */
	GLTF_ROLE_CUBIC = 1u << 10,     /* keys of a cubic spline: tangent, value,
					   tangent (only values are rotations) */
};

/* A block of the arena. */
struct gltf_block {
	struct gltf_block *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

/*
 * The document: its JSON text read into tokens (gltf_doc.c: a token
 * per value, in document order, with its bytes and parent), checked
 * strictly against JSON's grammar as it is read.  A value is named by its
 * token's index, GV_NONE for one that is not there.
 */
typedef uint32_t gv;
#define GV_NONE UINT32_MAX

struct gltf_doc_token;

struct gltf_priv {
	const char *text;               /* the JSON (inside the caller's buffer) */
	size_t text_len;
	uint64_t text_base;             /* the JSON's offset in the file (GLB: 20) */
	struct gltf_doc_token *tok;     /* count tokens */
	uint32_t count;
	struct gltf_block *arena;
	uint32_t *roles;                /* per accessor */
	struct gltf_where *where;       /* per accessor: who uses it first */
	float **floats;                 /* per accessor: decoded values (gltf_floats) */
	uint32_t **uints;               /* per accessor: decoded integers (gltf_uints) */
};

struct gltf_ctx {
	struct gltf_model *m;
	struct gltf_priv *p;
	struct diag *d;
};

/* Tokenise and check the text (c->p->text); 0, or -EINVAL with the error
 * located (jansson's message and place for a syntax error), -ENOMEM. */
int gltf_doc_parse(struct gltf_ctx *c);
void gltf_doc_free(struct gltf_priv *p);

/* Reading the document.  v may be GV_NONE (then: absent, not a kind). */
enum gv_kind { GV_ABSENT, GV_OBJECT, GV_ARRAY, GV_STRING, GV_NUMBER, GV_TRUE, GV_FALSE, GV_NULL };
enum gv_kind gv_kind_of(const struct gltf_ctx *c, gv v);
bool gv_is_integer(const struct gltf_ctx *c, gv v);
/* Member `key` of object o, or GV_NONE (o not an object: GV_NONE). */
gv gv_get(struct gltf_ctx *c, gv o, const char *key);
/* Elements of an array (members of an object); element i of an array, or
 * GV_NONE. */
uint32_t gv_size(const struct gltf_ctx *c, gv v);
gv gv_at(struct gltf_ctx *c, gv a, uint32_t i);
/* An object's members: the first key, the next key (GV_NONE at the end);
 * a key's value is the token after it. */
gv gv_first_key(const struct gltf_ctx *c, gv o);
gv gv_next_key(const struct gltf_ctx *c, gv key);
/* A string's text, unescaped, NUL-terminated (the arena; NULL: not a
 * string, or out of memory with c->p noted); a number's value; an
 * integer's (false when it is none or out of int64's range). */
const char *gv_string(struct gltf_ctx *c, gv v);
bool gv_number(const struct gltf_ctx *c, gv v, double *out);
bool gv_integer(const struct gltf_ctx *c, gv v, int64_t *out);
/* Where a value starts in the text. */
size_t gv_pos(const struct gltf_ctx *c, gv v);
/* The value at a pointer, or the deepest part of it there is. */
gv gv_locate(struct gltf_ctx *c, const struct gltf_where *w);

/* Zeroed memory that lives as long as the model; NULL on ENOMEM.  _raw:
 * not zeroed (for what is written whole at once). */
void *gltf_alloc(struct gltf_ctx *c, size_t n, size_t size);
void *gltf_alloc_raw(struct gltf_ctx *c, size_t n, size_t size);

/* Record an error at w: "<pointer>: <message>", located as gltf.h says.
 * Returns -EINVAL. */
int gltf_error(struct gltf_ctx *c, const struct gltf_where *w, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A note at w (fmt, a literal, is its kind: a later one of the kind is
 * only counted, and not located). */
void gltf_note(struct gltf_ctx *c, const struct gltf_where *w, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An error in data at byte `offset` of buffer `buffer` (located as gltf.h
 * says).  Returns -EINVAL. */
int gltf_data_error(struct gltf_ctx *c, uint32_t buffer, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Typed reads of member `key` of object o (w: o's pointer).  Absent and
 * not required: the default (or -1 for an index), 0 returned.  A value of
 * the wrong kind or range: an error at the member. */
int gj_index(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
	     uint32_t limit, const char *what, bool required, int32_t *out);
int gj_uint(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
	    uint64_t min, uint64_t max, bool required, uint64_t def, uint64_t *out);
int gj_bool(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key, bool *out);
int gj_string(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
	      bool required, const char **out);
/* n finite numbers (an array of exactly n): *present 0 when absent. */
int gj_floats(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
	      unsigned n, float *out, bool *present);
/* An array member (GV_NONE when absent and not required) / an object. */
int gj_array(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
	     bool required, gv *out);
int gj_object(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
	      bool required, gv *out);
/* An array of numbers of any length (finite, into the arena). */
int gj_float_list(struct gltf_ctx *c, const struct gltf_where *w, gv o, const char *key,
		  uint32_t *count, const float **out);
/* Element i of the document's top-level array `name` must be an object. */
int gj_item(struct gltf_ctx *c, gv array, const char *name, uint32_t i, gv *out);
/* "an object", "a string", ... for messages. */
const char *gj_kind(const struct gltf_ctx *c, gv v);

/* The parse's parts (gltf.c calls them in this order). */
int gltf_parse_buffers(struct gltf_ctx *c, const unsigned char *bin, size_t bin_len,
		       uint64_t bin_offset, bool has_bin);
int gltf_parse_views(struct gltf_ctx *c);
int gltf_parse_accessors(struct gltf_ctx *c);
int gltf_parse_nodes(struct gltf_ctx *c, uint32_t camera_count);
int gltf_parse_skins(struct gltf_ctx *c);
int gltf_parse_meshes(struct gltf_ctx *c);
int gltf_check_instances(struct gltf_ctx *c);
int gltf_parse_scenes(struct gltf_ctx *c);
int gltf_parse_animations(struct gltf_ctx *c);

/* Mark accessor a as read by animd in `role`, first used at w. */
void gltf_use(struct gltf_ctx *c, uint32_t a, uint32_t role, const struct gltf_where *w);

/* The bytes of element i of accessor a (a->view >= 0). */
const unsigned char *gltf_element(const struct gltf_model *m, const struct gltf_accessor *a,
				  uint32_t i);
/* Where those bytes are, as a buffer and an offset in it (for errors). */
void gltf_element_at(const struct gltf_model *m, const struct gltf_accessor *a, uint32_t i,
		     uint32_t *buffer, uint64_t *offset);
/* Component k of the element at p as a float (normalised as the accessor
 * says) / as an unsigned integer. */
float gltf_component_float(const struct gltf_accessor *a, const unsigned char *p, unsigned k);
uint32_t gltf_component_uint(const struct gltf_accessor *a, const unsigned char *p, unsigned k);

/* Component 0 of an accessor's last element (sparse values included); 0
 * for an empty one. */
float gltf_accessor_last(const struct gltf_model *m, uint32_t accessor);
/* Sparse indices strictly increasing and below count (gltf_finish). */
int gltf_check_sparse(struct gltf_ctx *c, uint32_t accessor);

/* Base64 (RFC 4648, padding optional, no whitespace) into out (at least
 * len / 4 * 3 + 3 bytes); the decoded length, or -1 at a bad character
 * (*bad its position). */
long gltf_base64_decode(const char *s, size_t len, unsigned char *out, size_t *bad);

#endif
