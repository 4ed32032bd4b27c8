/*
 * rpc_request.c - from an unpacked message to a request a handler can trust:
 * the envelope [0, msgid, method, params] checked, then each named argument
 * checked by type and range as the handler asks for it.
 *
 * Error messages are written for the person reading a client's log: they
 * name the method, the argument, what was expected and what came, and quote
 * what the client sent in an escaped, bounded form.
 */
#include "proto/rpc.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Bytes of client text quoted in a message before it is cut. */
#define RPC_QUOTE_MAX 64

void rpc_error_init(struct rpc_error *err)
{
	/* Called for every request: clear the fields, not the whole message. */
	err->code = PROTO_ERR_NONE;
	err->fatal = false;
	err->has_msgid = false;
	err->msgid = 0;
	err->message[0] = '\0';
}

void rpc_error_format(struct rpc_error *err, enum proto_error code, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
}

/*
 * Length of the valid UTF-8 sequence at s (n bytes available), or 0 if the
 * bytes there are not one: overlong forms, surrogates and code points above
 * U+10FFFF are refused, as RFC 3629 requires.
 */
static size_t rpc_utf8_seq(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1fu;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0fu;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07u;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Valid UTF-8 with no NUL byte: safe to use as a C string and to echo. */
static bool rpc_text_ok(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		size_t k = u[i] == 0 ? 0 : rpc_utf8_seq(u + i, n - i);

		if (k == 0)
			return false;
		i += k;
	}
	return true;
}

char *rpc_quote(char *out, size_t size, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0, i = 0, lim = len < RPC_QUOTE_MAX ? len : RPC_QUOTE_MAX;
	char piece[8];

	if (size == 0)
		return out;
	/* Each piece is appended whole or not at all, so a cut never splits an
	 * escape or a UTF-8 sequence; 4 bytes stay free for `"...`. */
#define RPC_QUOTE_PUT(str, n)                                   \
	do {                                                    \
		if (o + (n) + 5 > size)                         \
			goto cut;                               \
		memcpy(out + o, (str), (n));                    \
		o += (n);                                       \
	} while (0)
	RPC_QUOTE_PUT("\"", 1);
	while (i < lim) {
		size_t k = rpc_utf8_seq(u + i, len - i);

		if (u[i] == '"' || u[i] == '\\') {
			piece[0] = '\\';
			piece[1] = (char)u[i];
			RPC_QUOTE_PUT(piece, 2);
			k = 1;
		} else if (k == 1 && (u[i] < 0x20 || u[i] == 0x7f)) {
			snprintf(piece, sizeof piece, "\\x%02x", u[i]);
			RPC_QUOTE_PUT(piece, 4);
		} else if (k == 0) {
			snprintf(piece, sizeof piece, "\\x%02x", u[i]);
			RPC_QUOTE_PUT(piece, 4);
			k = 1;
		} else {
			RPC_QUOTE_PUT(s + i, k);
		}
		i += k;
	}
	if (i < len)
		goto cut;
	memcpy(out + o, "\"", 2);
	return out;
cut:
	/* size >= 1 always leaves room for the NUL; the rest as fits. */
	snprintf(out + o, size - o, "\"...");
	return out;
#undef RPC_QUOTE_PUT
}

/* "got ..." for an object of the wrong type. */
static const char *rpc_type_name(const msgpack_object *o)
{
	switch (o->type) {
	case MSGPACK_OBJECT_NIL: return "nil";
	case MSGPACK_OBJECT_BOOLEAN: return "a boolean";
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
	case MSGPACK_OBJECT_NEGATIVE_INTEGER: return "an integer";
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64: return "a float";
	case MSGPACK_OBJECT_STR: return "a string";
	case MSGPACK_OBJECT_BIN: return "binary data";
	case MSGPACK_OBJECT_ARRAY: return "an array";
	case MSGPACK_OBJECT_MAP: return "a map";
	case MSGPACK_OBJECT_EXT: return "an extension object";
	}
	return "an unknown object";
}

static bool rpc_is_str(const msgpack_object *o, const char *s)
{
	size_t n = strlen(s);

	return o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
	       memcmp(o->via.str.ptr, s, n) == 0;
}

/* ---------------------------------------------------------------------
 * The envelope.
 * ------------------------------------------------------------------- */

/* Fill err as a reply to the request (msgid known: not fatal) or to a
 * message that is none (fatal, msgid 0).  Returns -EBADMSG. */
static int rpc_request_fail(struct rpc_error *err, const uint32_t *msgid, enum proto_error code,
			    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int rpc_request_fail(struct rpc_error *err, const uint32_t *msgid, enum proto_error code,
			    const char *fmt, ...)
{
	va_list ap;

	rpc_error_init(err);
	err->code = code;
	if (msgid != NULL) {
		err->has_msgid = true;
		err->msgid = *msgid;
	} else {
		err->fatal = true;
	}
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/*
 * A method name: msgpack str, or bin as older msgpack-RPC implementations
 * write it (Neovim's Python client among them: msgpack 0.5 called both
 * "raw"), under the same rules either way.  Points name and len at it, or
 * returns what it is instead.
 */
static const char *rpc_method_name(const msgpack_object *m, const char **name, size_t *len)
{
	if (m->type == MSGPACK_OBJECT_STR) {
		*name = m->via.str.ptr;
		*len = m->via.str.size;
	} else if (m->type == MSGPACK_OBJECT_BIN) {
		*name = m->via.bin.ptr;
		*len = m->via.bin.size;
	} else {
		return rpc_type_name(m);
	}
	return NULL;
}

/* A client notification [2, method, params]: well-formed, or fatal. */
static int rpc_notification_parse(const msgpack_object_array *a, struct rpc_error *err)
{
	const char *name = NULL, *bad = NULL;
	size_t len = 0;

	if (a->size != 3 || (bad = rpc_method_name(&a->ptr[1], &name, &len)) != NULL ||
	    a->ptr[2].type != MSGPACK_OBJECT_ARRAY)
		return rpc_request_fail(err, NULL, PROTO_ERR_BAD_REQUEST,
					"a notification must be [2, method, params]%s%s",
					bad != NULL ? ", its method is " : "", bad != NULL ? bad : "");
	/* None is defined: a well-formed one is ignored, whatever its name. */
	(void)name;
	(void)len;
	return 1;
}

/* params: [] or [{name: value, ...}] with distinct string names. */
static int rpc_params_parse(const msgpack_object *params, const uint32_t *msgid,
			    struct rpc_request *req, struct rpc_error *err)
{
	const msgpack_object_map *map;

	if (params->type != MSGPACK_OBJECT_ARRAY)
		return rpc_request_fail(err, msgid, PROTO_ERR_BAD_REQUEST,
					"params must be an array, got %s", rpc_type_name(params));
	if (params->via.array.size == 0) {
		req->args = NULL;
		return 0;
	}
	if (params->via.array.size > 1)
		return rpc_request_fail(err, msgid, PROTO_ERR_BAD_REQUEST,
					"params must be [] or [{named arguments}], got %" PRIu32
					" elements", params->via.array.size);
	if (params->via.array.ptr[0].type != MSGPACK_OBJECT_MAP)
		return rpc_request_fail(err, msgid, PROTO_ERR_BAD_REQUEST,
					"params[0] must be a map of named arguments, got %s",
					rpc_type_name(&params->via.array.ptr[0]));
	map = &params->via.array.ptr[0].via.map;
	if (map->size > PROTO_MAX_ARGS)
		return rpc_request_fail(err, msgid, PROTO_ERR_BAD_REQUEST,
					"too many arguments (%" PRIu32 ", at most %d)", map->size,
					PROTO_MAX_ARGS);
	for (uint32_t i = 0; i < map->size; i++) {
		const msgpack_object *k = &map->ptr[i].key;
		char q[96];

		if (k->type != MSGPACK_OBJECT_STR)
			return rpc_request_fail(err, msgid, PROTO_ERR_BAD_REQUEST,
						"argument names must be strings, got %s",
						rpc_type_name(k));
		if (k->via.str.size > PROTO_MAX_NAME_BYTES || !rpc_text_ok(k->via.str.ptr, k->via.str.size))
			return rpc_request_fail(err, msgid, PROTO_ERR_BAD_REQUEST,
						"bad argument name %s",
						rpc_quote(q, sizeof q, k->via.str.ptr, k->via.str.size));
		/* At most 64 keys, so the quadratic check is cheap. */
		for (uint32_t j = 0; j < i; j++) {
			const msgpack_object *o = &map->ptr[j].key;

			if (o->via.str.size == k->via.str.size &&
			    memcmp(o->via.str.ptr, k->via.str.ptr, k->via.str.size) == 0)
				return rpc_request_fail(err, msgid, PROTO_ERR_BAD_REQUEST,
							"argument %s given twice",
							rpc_quote(q, sizeof q, k->via.str.ptr,
								  k->via.str.size));
		}
	}
	req->args = map;
	return 0;
}

int rpc_request_parse(const msgpack_object *obj, struct rpc_request *req, struct rpc_error *err)
{
	const msgpack_object_array *a;
	const msgpack_object *type, *id, *method;
	const char *name = NULL, *bad;
	uint32_t msgid;
	size_t len = 0;
	char q[96];
	int m, rc;

	memset(req, 0, sizeof *req);
	rpc_error_init(err);
	if (obj->type != MSGPACK_OBJECT_ARRAY)
		return rpc_request_fail(err, NULL, PROTO_ERR_BAD_REQUEST,
					"a message must be an array [type, ...], got %s",
					rpc_type_name(obj));
	a = &obj->via.array;
	if (a->size == 0)
		return rpc_request_fail(err, NULL, PROTO_ERR_BAD_REQUEST,
					"a message must be an array [type, ...], got []");
	type = &a->ptr[0];
	if (type->type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    (type->via.u64 != RPC_TYPE_REQUEST && type->via.u64 != RPC_TYPE_NOTIFICATION)) {
		if (type->type == MSGPACK_OBJECT_POSITIVE_INTEGER && type->via.u64 == RPC_TYPE_RESPONSE)
			return rpc_request_fail(err, NULL, PROTO_ERR_BAD_REQUEST,
						"the daemon sends no requests, so it takes no responses");
		return rpc_request_fail(err, NULL, PROTO_ERR_BAD_REQUEST,
					"message type must be 0 (request) or 2 (notification)");
	}
	if (type->via.u64 == RPC_TYPE_NOTIFICATION)
		return rpc_notification_parse(a, err);

	if (a->size < 2 || a->ptr[1].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    a->ptr[1].via.u64 > UINT32_MAX)
		return rpc_request_fail(err, NULL, PROTO_ERR_BAD_REQUEST,
					"a request's msgid must be an unsigned 32-bit integer, got %s",
					a->size < 2 ? "nothing" : rpc_type_name(&a->ptr[1]));
	id = &a->ptr[1];
	msgid = (uint32_t)id->via.u64;
	if (a->size != 4)
		return rpc_request_fail(err, &msgid, PROTO_ERR_BAD_REQUEST,
					"a request must be [0, msgid, method, params], got %" PRIu32
					" elements", a->size);
	method = &a->ptr[2];
	bad = rpc_method_name(method, &name, &len);
	if (bad != NULL)
		return rpc_request_fail(err, &msgid, PROTO_ERR_BAD_REQUEST,
					"method must be a string, got %s", bad);
	rc = rpc_params_parse(&a->ptr[3], &msgid, req, err);
	if (rc < 0)
		return rc;
	m = proto_method_lookup(name, len);
	if (m < 0)
		return rpc_request_fail(err, &msgid, PROTO_ERR_UNKNOWN_METHOD, "unknown method %s",
					rpc_quote(q, sizeof q, name, len));
	req->msgid = msgid;
	req->method = (enum proto_method)m;
	return 0;
}

/* ---------------------------------------------------------------------
 * Named arguments.
 * ------------------------------------------------------------------- */

void rpc_args_init(struct rpc_args *a, const struct rpc_request *req, struct rpc_error *err)
{
	a->map = req->args;
	a->method = req->method;
	a->used = 0;
	a->failed = false;
	a->err = err;
	a->where[0] = '\0';
	rpc_error_init(err);
	err->has_msgid = true;
	err->msgid = req->msgid;
}

/* Record the first argument error: "<method>: <message>". */
static int rpc_args_fail(struct rpc_args *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int rpc_args_fail(struct rpc_args *a, const char *fmt, ...)
{
	const char *method = proto_method_name(a->method);
	struct rpc_error *err = a->err;
	va_list ap;
	int n;

	if (a->failed)
		return -EINVAL;
	a->failed = true;
	err->code = PROTO_ERR_BAD_REQUEST;
	n = snprintf(err->message, sizeof err->message, "%s: %s", method ? method : "?", a->where);
	if (n < 0 || (size_t)n >= sizeof err->message)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(err->message + n, sizeof err->message - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * The value of `key`, marking it used.  1 with *out set; 0 if absent or nil
 * and optional; -EINVAL if absent and required, or after an earlier error.
 * Nil counts as absent so that clients in languages where "no value" is
 * null can pass one.
 */
static int rpc_args_lookup(struct rpc_args *a, const char *key, enum rpc_presence presence,
			   const msgpack_object **out)
{
	const msgpack_object *v = NULL;

	if (a->failed)
		return -EINVAL;
	if (a->map != NULL) {
		for (uint32_t i = 0; i < a->map->size; i++) {
			if (rpc_is_str(&a->map->ptr[i].key, key)) {
				a->used |= UINT64_C(1) << i;    /* i < PROTO_MAX_ARGS = 64 */
				v = &a->map->ptr[i].val;
				break;
			}
		}
	}
	if (v == NULL || v->type == MSGPACK_OBJECT_NIL) {
		if (presence == RPC_REQUIRED)
			return rpc_args_fail(a, "missing required argument \"%s\"", key);
		return 0;
	}
	*out = v;
	return 1;
}

int rpc_args_finish(struct rpc_args *a)
{
	char q[96];

	if (a->failed)
		return -EINVAL;
	if (a->map == NULL)
		return 0;
	for (uint32_t i = 0; i < a->map->size; i++) {
		const msgpack_object *k = &a->map->ptr[i].key;

		if (!(a->used & UINT64_C(1) << i))
			return rpc_args_fail(a, "unknown argument %s",
					     rpc_quote(q, sizeof q, k->via.str.ptr, k->via.str.size));
	}
	return 0;
}

/* Check one string value: the argument `key` itself (index < 0), or its
 * element `index`.  The argument's name is only spelled out for a message. */
static int rpc_args_check_text(struct rpc_args *a, const char *key, int64_t index,
			       const msgpack_object *v, size_t max_len)
{
	char what[96];

	if (v->type == MSGPACK_OBJECT_STR && v->via.str.size <= max_len &&
	    rpc_text_ok(v->via.str.ptr, v->via.str.size))
		return 0;
	if (index < 0)
		snprintf(what, sizeof what, "\"%s\"", key);
	else
		snprintf(what, sizeof what, "\"%s\"[%" PRId64 "]", key, index);
	if (v->type != MSGPACK_OBJECT_STR)
		return rpc_args_fail(a, "%s must be a string, got %s", what, rpc_type_name(v));
	if (v->via.str.size > max_len)
		return rpc_args_fail(a, "%s is too long (%" PRIu32 " bytes, at most %zu)", what,
				     v->via.str.size, max_len);
	return rpc_args_fail(a, "%s must be UTF-8 text without NUL bytes", what);
}

int rpc_args_string(struct rpc_args *a, const char *key, enum rpc_presence presence,
		    size_t max_len, struct rpc_str *out)
{
	const msgpack_object *v;
	int rc = rpc_args_lookup(a, key, presence, &v);

	if (rc <= 0)
		return rc;
	if (rpc_args_check_text(a, key, -1, v, max_len) < 0)
		return -EINVAL;
	out->ptr = v->via.str.ptr;
	out->len = v->via.str.size;
	return 1;
}

int rpc_args_cstring(struct rpc_args *a, const char *key, enum rpc_presence presence,
		     char *buf, size_t size)
{
	struct rpc_str s;
	int rc;

	if (size == 0)
		return rpc_args_fail(a, "\"%s\" has no room (internal error)", key);
	rc = rpc_args_string(a, key, presence, size - 1, &s);
	if (rc <= 0)
		return rc;
	memcpy(buf, s.ptr, s.len);
	buf[s.len] = '\0';
	return 1;
}

/* An integer argument as sign and magnitude, so that each getter can check
 * its own range without overflow.  Same returns as the getters. */
static int rpc_args_integer(struct rpc_args *a, const char *key, enum rpc_presence presence,
			    const char *range, bool *neg, uint64_t *mag, const msgpack_object **vp)
{
	const msgpack_object *v;
	int rc = rpc_args_lookup(a, key, presence, &v);

	if (rc <= 0)
		return rc;
	*vp = v;
	if (v->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		*neg = false;
		*mag = v->via.u64;
	} else if (v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
		*neg = true;
		/* -(i64) without overflow for INT64_MIN */
		*mag = (uint64_t)(-(v->via.i64 + 1)) + 1;
	} else {
		return rpc_args_fail(a, "\"%s\" must be an integer in %s, got %s", key, range,
				     rpc_type_name(v));
	}
	return 1;
}

static int rpc_args_range_fail(struct rpc_args *a, const char *key, const char *range,
			       const msgpack_object *v)
{
	if (v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		return rpc_args_fail(a, "\"%s\" must be an integer in %s, got %" PRId64, key,
				     range, v->via.i64);
	return rpc_args_fail(a, "\"%s\" must be an integer in %s, got %" PRIu64, key, range,
			     v->via.u64);
}

/* A non-negative integer of at most max; `range` spells the bounds for
 * the message. */
static int rpc_args_unsigned(struct rpc_args *a, const char *key, enum rpc_presence presence,
			     const char *range, uint64_t max, uint64_t *out)
{
	const msgpack_object *v = NULL;
	uint64_t mag = 0;
	bool neg = false;
	int rc = rpc_args_integer(a, key, presence, range, &neg, &mag, &v);

	if (rc <= 0)
		return rc;
	if (neg || mag > max)
		return rpc_args_range_fail(a, key, range, v);
	*out = mag;
	return 1;
}

int rpc_args_uint32(struct rpc_args *a, const char *key, enum rpc_presence presence,
		    uint32_t *out)
{
	uint64_t v = 0;
	int rc = rpc_args_unsigned(a, key, presence, "0..4294967295", UINT32_MAX, &v);

	if (rc == 1)
		*out = (uint32_t)v;
	return rc;
}

int rpc_args_uint64(struct rpc_args *a, const char *key, enum rpc_presence presence,
		    uint64_t *out)
{
	return rpc_args_unsigned(a, key, presence, "0..18446744073709551615", UINT64_MAX, out);
}

int rpc_args_int64(struct rpc_args *a, const char *key, enum rpc_presence presence,
		   int64_t *out)
{
	static const char range[] = "-9223372036854775808..9223372036854775807";
	const msgpack_object *v = NULL;
	uint64_t mag = 0;
	bool neg = false;
	int rc = rpc_args_integer(a, key, presence, range, &neg, &mag, &v);

	if (rc <= 0)
		return rc;
	if (neg) {
		*out = v->via.i64;
		return 1;
	}
	if (mag > INT64_MAX)
		return rpc_args_range_fail(a, key, range, v);
	*out = (int64_t)mag;
	return 1;
}

int rpc_args_double(struct rpc_args *a, const char *key, enum rpc_presence presence,
		    double *out)
{
	const msgpack_object *v;
	double d;
	int rc = rpc_args_lookup(a, key, presence, &v);

	if (rc <= 0)
		return rc;
	switch (v->type) {
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		d = (double)v->via.u64;
		break;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		d = (double)v->via.i64;
		break;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		d = v->via.f64;         /* msgpack-c widens float32 into f64 */
		break;
	default:
		return rpc_args_fail(a, "\"%s\" must be a number, got %s", key, rpc_type_name(v));
	}
	/* NaN and infinities would poison every clock and pose they touch. */
	if (!isfinite(d))
		return rpc_args_fail(a, "\"%s\" must be a finite number", key);
	*out = d;
	return 1;
}

int rpc_args_bool(struct rpc_args *a, const char *key, enum rpc_presence presence, bool *out)
{
	const msgpack_object *v;
	int rc = rpc_args_lookup(a, key, presence, &v);

	if (rc <= 0)
		return rc;
	if (v->type != MSGPACK_OBJECT_BOOLEAN)
		return rpc_args_fail(a, "\"%s\" must be true or false, got %s", key,
				     rpc_type_name(v));
	*out = v->via.boolean;
	return 1;
}

/* "one of \"a\", \"b\", \"c\"" into buf, cut to fit. */
static const char *rpc_args_choices(char *buf, size_t size, const char *const *names, size_t count)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < count && o < size; i++) {
		int n = snprintf(buf + o, size - o, "%s\"%s\"", i ? ", " : "", names[i]);

		if (n < 0)
			break;
		o += (size_t)n;
	}
	return buf;
}

/* The index of the string v in names, or -1. */
static int rpc_args_match(const msgpack_object *v, const char *const *names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (rpc_is_str(v, names[i]))
			return (int)i;
	return -1;
}

int rpc_args_enum(struct rpc_args *a, const char *key, enum rpc_presence presence,
		  const char *const *names, size_t count, int *out)
{
	const msgpack_object *v;
	char choices[160], q[96];
	int rc = rpc_args_lookup(a, key, presence, &v), i;

	if (rc <= 0)
		return rc;
	rpc_args_choices(choices, sizeof choices, names, count);
	if (v->type != MSGPACK_OBJECT_STR)
		return rpc_args_fail(a, "\"%s\" must be one of %s, got %s", key, choices,
				     rpc_type_name(v));
	i = rpc_args_match(v, names, count);
	if (i < 0)
		return rpc_args_fail(a, "\"%s\" must be one of %s, got %s", key, choices,
				     rpc_quote(q, sizeof q, v->via.str.ptr, v->via.str.size));
	*out = i;
	return 1;
}

/* The array value of key, its length checked. */
static int rpc_args_array(struct rpc_args *a, const char *key, enum rpc_presence presence,
			  const char *of, size_t max_count, const msgpack_object_array **out)
{
	const msgpack_object *v;
	int rc = rpc_args_lookup(a, key, presence, &v);

	if (rc <= 0)
		return rc;
	if (v->type != MSGPACK_OBJECT_ARRAY)
		return rpc_args_fail(a, "\"%s\" must be an array of %s, got %s", key, of,
				     rpc_type_name(v));
	if (v->via.array.size > max_count)
		return rpc_args_fail(a, "\"%s\" has too many elements (%" PRIu32 ", at most %zu)",
				     key, v->via.array.size, max_count);
	*out = &v->via.array;
	return 1;
}

int rpc_args_strings(struct rpc_args *a, const char *key, enum rpc_presence presence,
		     struct rpc_str *out, size_t max_count, size_t max_len, size_t *count)
{
	const msgpack_object_array *arr;
	int rc = rpc_args_array(a, key, presence, "strings", max_count, &arr);

	if (rc <= 0)
		return rc;
	for (uint32_t i = 0; i < arr->size; i++)
		if (rpc_args_check_text(a, key, i, &arr->ptr[i], max_len) < 0)
			return -EINVAL;
	for (uint32_t i = 0; i < arr->size; i++) {
		out[i].ptr = arr->ptr[i].via.str.ptr;
		out[i].len = arr->ptr[i].via.str.size;
	}
	*count = arr->size;
	return 1;
}

/* Bind sub to the map v, the argument `key` (index < 0) or its element
 * `index`, after checking its keys as rpc_request_parse checks the top
 * level's. */
static int rpc_args_sub(struct rpc_args *a, const char *key, int64_t index,
			const msgpack_object *v, struct rpc_args *sub)
{
	const msgpack_object_map *map;
	char what[80], q[96];
	int n;

	if (index < 0)
		snprintf(what, sizeof what, "\"%s\"", key);
	else
		snprintf(what, sizeof what, "\"%s\"[%" PRId64 "]", key, index);
	if (v->type != MSGPACK_OBJECT_MAP)
		return rpc_args_fail(a, "%s must be a map, got %s", what, rpc_type_name(v));
	map = &v->via.map;
	if (map->size > PROTO_MAX_ARGS)
		return rpc_args_fail(a, "%s has too many keys (%" PRIu32 ", at most %d)", what,
				     map->size, PROTO_MAX_ARGS);
	for (uint32_t i = 0; i < map->size; i++) {
		const msgpack_object *k = &map->ptr[i].key;

		if (k->type != MSGPACK_OBJECT_STR)
			return rpc_args_fail(a, "%s: keys must be strings, got %s", what,
					     rpc_type_name(k));
		if (k->via.str.size > PROTO_MAX_NAME_BYTES || !rpc_text_ok(k->via.str.ptr, k->via.str.size))
			return rpc_args_fail(a, "%s: bad key %s", what,
					     rpc_quote(q, sizeof q, k->via.str.ptr, k->via.str.size));
		for (uint32_t j = 0; j < i; j++) {
			const msgpack_object *o = &map->ptr[j].key;

			if (o->via.str.size == k->via.str.size &&
			    memcmp(o->via.str.ptr, k->via.str.ptr, k->via.str.size) == 0)
				return rpc_args_fail(a, "%s: key %s given twice", what,
						     rpc_quote(q, sizeof q, k->via.str.ptr,
							       k->via.str.size));
		}
	}
	sub->map = map;
	sub->method = a->method;
	sub->used = 0;
	sub->failed = false;
	sub->err = a->err;
	/* The place, unquoted, for the sub's own messages (cut if deep). */
	if (index < 0)
		n = snprintf(sub->where, sizeof sub->where, "%s%s: ", a->where, key);
	else
		n = snprintf(sub->where, sizeof sub->where, "%s%s[%" PRId64 "]: ", a->where, key,
			     index);
	if (n < 0)
		sub->where[0] = '\0';
	return 1;
}

int rpc_args_map(struct rpc_args *a, const char *key, enum rpc_presence presence,
		 struct rpc_args *sub)
{
	const msgpack_object *v;
	int rc = rpc_args_lookup(a, key, presence, &v);

	if (rc <= 0)
		return rc;
	return rpc_args_sub(a, key, -1, v, sub);
}

int rpc_args_maps(struct rpc_args *a, const char *key, enum rpc_presence presence,
		  struct rpc_args *subs, size_t max_count, size_t *count)
{
	const msgpack_object_array *arr;
	int rc = rpc_args_array(a, key, presence, "maps", max_count, &arr);

	if (rc <= 0)
		return rc;
	for (uint32_t i = 0; i < arr->size; i++)
		if (rpc_args_sub(a, key, i, &arr->ptr[i], &subs[i]) < 0)
			return -EINVAL;
	*count = arr->size;
	return 1;
}

int rpc_args_enum_mask(struct rpc_args *a, const char *key, enum rpc_presence presence,
		       const char *const *names, size_t count, uint64_t *out)
{
	const msgpack_object_array *arr;
	char choices[200], q[96];
	uint64_t mask = 0;
	int rc;

	if (count > 64)
		return rpc_args_fail(a, "\"%s\" has too many choices (internal error)", key);
	/* A name may repeat, but more elements than that are no list of names. */
	rc = rpc_args_array(a, key, presence, "names", 4 * count + 4, &arr);
	if (rc <= 0)
		return rc;
	for (uint32_t i = 0; i < arr->size; i++) {
		const msgpack_object *v = &arr->ptr[i];
		int k = v->type == MSGPACK_OBJECT_STR ? rpc_args_match(v, names, count) : -1;

		if (k < 0) {
			rpc_args_choices(choices, sizeof choices, names, count);
			return rpc_args_fail(a, "\"%s\"[%" PRIu32 "] must be one of %s, got %s", key,
					     i, choices,
					     v->type == MSGPACK_OBJECT_STR
						     ? rpc_quote(q, sizeof q, v->via.str.ptr,
								 v->via.str.size)
						     : rpc_type_name(v));
		}
		mask |= UINT64_C(1) << k;
	}
	*out = mask;
	return 1;
}
