/*
 * obj.c - reading the daemon's result maps and packing named arguments:
 * the one place that knows msgpack-c's object layout and return codes.
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <math.h>
#include <string.h>

const msgpack_object *ac_obj_get(const msgpack_object *map, const char *key)
{
	size_t len = strlen(key);

	if (map == NULL || map->type != MSGPACK_OBJECT_MAP)
		return NULL;
	for (uint32_t i = 0; i < map->via.map.size; i++) {
		const msgpack_object_kv *kv = &map->via.map.ptr[i];

		if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == len &&
		    memcmp(kv->key.via.str.ptr, key, len) == 0)
			return kv->val.type == MSGPACK_OBJECT_NIL ? NULL : &kv->val;
	}
	return NULL;
}

bool ac_obj_is_str(const msgpack_object *o, const char *s)
{
	size_t len = strlen(s);

	return o != NULL && o->type == MSGPACK_OBJECT_STR && o->via.str.size == len &&
	       memcmp(o->via.str.ptr, s, len) == 0;
}

void ac_obj_fail(struct ac_parse *p, const char *what)
{
	if (p->err == 0) {
		p->err = -EPROTO;
		p->what = what;
	}
}

const char *ac_obj_str(struct ac_parse *p, const msgpack_object *map, const char *key)
{
	const msgpack_object *o = ac_obj_get(map, key);
	const char *s;

	if (o == NULL)
		return NULL;
	if (o->type != MSGPACK_OBJECT_STR || memchr(o->via.str.ptr, '\0', o->via.str.size)) {
		ac_obj_fail(p, key);
		return NULL;
	}
	s = ac_res_str(p->res, o->via.str.ptr, o->via.str.size);
	if (s == NULL && p->err == 0) {
		p->err = -ENOMEM;
		p->what = key;
	}
	return s;
}

uint64_t ac_obj_u64(struct ac_parse *p, const msgpack_object *map, const char *key, uint64_t def)
{
	const msgpack_object *o = ac_obj_get(map, key);

	if (o == NULL)
		return def;
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
		return o->via.u64;
	ac_obj_fail(p, key);
	return def;
}

int64_t ac_obj_i64(struct ac_parse *p, const msgpack_object *map, const char *key, int64_t def)
{
	const msgpack_object *o = ac_obj_get(map, key);

	if (o == NULL)
		return def;
	if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		return o->via.i64;
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX)
		return (int64_t)o->via.u64;
	ac_obj_fail(p, key);
	return def;
}

/* A number of any msgpack kind as a double; false when o is not one. */
static bool obj_number(const msgpack_object *o, double *out)
{
	switch (o->type) {
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		*out = o->via.f64;
		return true;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		*out = (double)o->via.u64;
		return true;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		*out = (double)o->via.i64;
		return true;
	default:
		return false;
	}
}

double ac_obj_f64(struct ac_parse *p, const msgpack_object *map, const char *key, double def)
{
	const msgpack_object *o = ac_obj_get(map, key);
	double v;

	if (o == NULL)
		return def;
	if (obj_number(o, &v))
		return v;
	ac_obj_fail(p, key);
	return def;
}

int ac_obj_bool(struct ac_parse *p, const msgpack_object *map, const char *key, int def)
{
	const msgpack_object *o = ac_obj_get(map, key);

	if (o == NULL)
		return def;
	if (o->type == MSGPACK_OBJECT_BOOLEAN)
		return o->via.boolean ? 1 : 0;
	ac_obj_fail(p, key);
	return def;
}

const msgpack_object *ac_obj_array(struct ac_parse *p, const msgpack_object *map,
				   const char *key, size_t *n)
{
	const msgpack_object *o = ac_obj_get(map, key);

	*n = 0;
	if (o == NULL)
		return NULL;
	if (o->type != MSGPACK_OBJECT_ARRAY) {
		ac_obj_fail(p, key);
		return NULL;
	}
	*n = o->via.array.size;
	return o;
}

void ac_obj_floats(struct ac_parse *p, const msgpack_object *arr, float *out, size_t n,
		   const char *what)
{
	double v;

	if (arr == NULL)
		return;
	if (arr->type != MSGPACK_OBJECT_ARRAY || arr->via.array.size != n) {
		ac_obj_fail(p, what);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (!obj_number(&arr->via.array.ptr[i], &v)) {
			ac_obj_fail(p, what);
			return;
		}
		out[i] = (float)v;
	}
}

int ac_pack_kv_str(msgpack_packer *pk, const char *key, const char *value)
{
	if (rpc_pack_cstr(pk, key) < 0 || rpc_pack_cstr(pk, value) < 0)
		return -ENOMEM;
	return 0;
}

int ac_pack_kv_u64(msgpack_packer *pk, const char *key, uint64_t value)
{
	if (rpc_pack_cstr(pk, key) < 0 || msgpack_pack_uint64(pk, value) != 0)
		return -ENOMEM;
	return 0;
}

int ac_pack_kv_i64(msgpack_packer *pk, const char *key, int64_t value)
{
	if (rpc_pack_cstr(pk, key) < 0 || msgpack_pack_int64(pk, value) != 0)
		return -ENOMEM;
	return 0;
}

int ac_pack_kv_f64(msgpack_packer *pk, const char *key, double value)
{
	if (!isfinite(value))
		return -EINVAL;
	if (rpc_pack_cstr(pk, key) < 0 || msgpack_pack_double(pk, value) != 0)
		return -ENOMEM;
	return 0;
}

int ac_pack_kv_true(msgpack_packer *pk, const char *key)
{
	if (rpc_pack_cstr(pk, key) < 0 || msgpack_pack_true(pk) != 0)
		return -ENOMEM;
	return 0;
}
