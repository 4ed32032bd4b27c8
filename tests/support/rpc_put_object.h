/*
 * rpc_put_object.h - write any msgpack-c object with the daemon's writer
 * (proto/rpc_out.h), so tests can compare what it writes with what
 * msgpack-c's own packer writes, byte for byte.  Header-only: the fuzz
 * harnesses are built from sources, not from tests/support objects.
 */
#ifndef ANIMD_TEST_RPC_PUT_OBJECT_H
#define ANIMD_TEST_RPC_PUT_OBJECT_H

#include <msgpack.h>

#include "proto/rpc_out.h"

/* The daemon never writes extensions, so the writer has none: their
 * headers are spelled out here as the msgpack spec gives them. */
static inline void rpc_put_ext_for_test(struct rpc_out *o, int8_t type, const char *data,
					uint32_t n)
{
	char h[6];
	size_t hl;

	if (n == 1 || n == 2 || n == 4 || n == 8 || n == 16) {
		h[0] = (char)(n == 1 ? 0xd4 : n == 2 ? 0xd5 : n == 4 ? 0xd6 : n == 8 ? 0xd7 : 0xd8);
		hl = 1;
	} else if (n <= 0xff) {
		h[0] = (char)0xc7;
		h[1] = (char)n;
		hl = 2;
	} else if (n <= 0xffff) {
		h[0] = (char)0xc8;
		rpc_out_be16(h + 1, (uint16_t)n);
		hl = 3;
	} else {
		h[0] = (char)0xc9;
		rpc_out_be32(h + 1, n);
		hl = 5;
	}
	h[hl++] = (char)type;
	rpc_put_raw(o, h, hl);
	rpc_put_raw(o, data, n);
}

static inline void rpc_put_object(struct rpc_out *o, const msgpack_object *obj)
{
	switch (obj->type) {
	case MSGPACK_OBJECT_NIL:
		rpc_put_nil(o);
		break;
	case MSGPACK_OBJECT_BOOLEAN:
		rpc_put_bool(o, obj->via.boolean);
		break;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		rpc_put_uint(o, obj->via.u64);
		break;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		rpc_put_int(o, obj->via.i64);
		break;
	case MSGPACK_OBJECT_FLOAT32:
		rpc_put_float(o, (float)obj->via.f64);
		break;
	case MSGPACK_OBJECT_FLOAT64:
		rpc_put_double(o, obj->via.f64);
		break;
	case MSGPACK_OBJECT_STR:
		rpc_put_str(o, obj->via.str.ptr, obj->via.str.size);
		break;
	case MSGPACK_OBJECT_BIN:
		rpc_put_bin(o, obj->via.bin.ptr, obj->via.bin.size);
		break;
	case MSGPACK_OBJECT_EXT:
		rpc_put_ext_for_test(o, obj->via.ext.type, obj->via.ext.ptr, obj->via.ext.size);
		break;
	case MSGPACK_OBJECT_ARRAY:
		rpc_put_array(o, obj->via.array.size);
		for (uint32_t i = 0; i < obj->via.array.size; i++)
			rpc_put_object(o, &obj->via.array.ptr[i]);
		break;
	case MSGPACK_OBJECT_MAP:
		rpc_put_map(o, obj->via.map.size);
		for (uint32_t i = 0; i < obj->via.map.size; i++) {
			rpc_put_object(o, &obj->via.map.ptr[i].key);
			rpc_put_object(o, &obj->via.map.ptr[i].val);
		}
		break;
	}
}

#endif
