/*
 * rpc_encode.c - packing requests on msgpack-c's packer, for clients.  The
 * helpers write only the envelope; the caller packs the arguments straight
 * after it into the same packer.  (The daemon's side is rpc_out.c.)
 */
#include "proto/rpc.h"

#include <errno.h>
#include <string.h>

/* msgpack-c's pack functions return the write callback's result: 0, or -1
 * when an sbuffer could not grow.  This is the one place that knows it. */
#define RPC_PACK(call)                          \
	do {                                    \
		if ((call) != 0)                \
			return -ENOMEM;         \
	} while (0)

int rpc_pack_str(msgpack_packer *pk, const char *s, size_t len)
{
	/* Short strings (every key, most values) go out as one piece: half
	 * the calls into the packer's write callback. */
	if (len < 32) {
		char tmp[32];

		tmp[0] = (char)(0xa0 | len);
		if (len > 0)
			memcpy(tmp + 1, s, len);
		return pk->callback(pk->data, tmp, len + 1) == 0 ? 0 : -ENOMEM;
	}
	RPC_PACK(msgpack_pack_str(pk, len));
	if (len > 0)
		RPC_PACK(msgpack_pack_str_body(pk, s, len));
	return 0;
}

int rpc_pack_cstr(msgpack_packer *pk, const char *s)
{
	if (s == NULL)
		s = "";
	return rpc_pack_str(pk, s, strlen(s));
}

int rpc_pack_bool(msgpack_packer *pk, bool v)
{
	return (v ? msgpack_pack_true(pk) : msgpack_pack_false(pk)) == 0 ? 0 : -ENOMEM;
}

int rpc_pack_request(msgpack_packer *pk, uint32_t msgid, const char *method, uint32_t nargs)
{
	RPC_PACK(msgpack_pack_array(pk, 4));
	RPC_PACK(msgpack_pack_uint8(pk, RPC_TYPE_REQUEST));
	RPC_PACK(msgpack_pack_uint32(pk, msgid));
	if (rpc_pack_cstr(pk, method) < 0)
		return -ENOMEM;
	if (nargs == 0) {
		RPC_PACK(msgpack_pack_array(pk, 0));
		return 0;
	}
	RPC_PACK(msgpack_pack_array(pk, 1));
	RPC_PACK(msgpack_pack_map(pk, nargs));
	return 0;
}
