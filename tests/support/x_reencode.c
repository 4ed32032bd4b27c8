/* One .x file in every encoding (x_reencode.h). */
#include "tests/support/x_reencode.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/x/x.h"
#include "tests/support/x_bin_writer.h"

const char *const x_encoding_names[XENC_COUNT] = {
	"text", "binary, 32-bit floats", "binary, 64-bit floats", "MSZIP text", "MSZIP binary",
};

/* A run of values of one kind: integers and floats as lists, strings one
 * by one. */
static void write_values(struct xbw *w, const struct x_object *o)
{
	uint32_t i = 0;

	while (i < o->value_count) {
		const struct x_value *v = &o->values[i];
		uint32_t j = i;

		if (v->kind == X_VALUE_STRING) {
			xbw_string(w, v->v.s.ptr, XBW_SEMICOLON);
			i++;
			continue;
		}
		while (j < o->value_count && o->values[j].kind == v->kind)
			j++;
		if (v->kind == X_VALUE_INT) {
			uint32_t *ints = malloc((j - i) * sizeof *ints);

			for (uint32_t k = i; k < j; k++)
				ints[k - i] = (uint32_t)o->values[k].v.i;
			xbw_ints(w, j - i, ints);
			free(ints);
		} else {
			double *fl = malloc((j - i) * sizeof *fl);

			for (uint32_t k = i; k < j; k++)
				fl[k - i] = o->values[k].v.f;
			xbw_floats(w, j - i, fl);
			free(fl);
		}
		i = j;
	}
}

static void write_object(struct xbw *w, const struct x_object *o)
{
	if (o->type == NULL) {
		xbw_ref(w, o->name, o->has_guid ? o->guid : NULL);
		return;
	}
	xbw_open(w, o->type, o->name);
	write_values(w, o);
	for (uint32_t i = 0; i < o->child_count; i++)
		write_object(w, o->children[i]);
	xbw_close(w);
}

static void put_header(unsigned char *dst, const char *format, unsigned float_bits)
{
	memcpy(dst, "xof 0303", 8);
	memcpy(dst + 8, format, 4);
	memcpy(dst + 12, float_bits == 64 ? "0064" : "0032", 4);
}

int x_reencode(const char *text, enum x_encoding_kind e, unsigned char **out, size_t *out_len)
{
	size_t len = strlen(text);
	unsigned char *body = NULL, *packed = NULL;
	size_t body_len, packed_len;
	unsigned bits = e == XENC_BINARY64 ? 64 : 32;
	struct x_tree t = { 0 };
	struct diag d = { 0 };
	struct xbw w;

	if (e == XENC_TEXT || e == XENC_TEXT_MSZIP) {
		if (len < 16)
			return -1;
		body = (unsigned char *)strdup(text + 16);
		body_len = len - 16;
	} else {
		if (x_parse(text, len, &t, &d) < 0)
			return -1;
		xbw_init(&w, bits);
		for (uint32_t i = 0; i < t.root_count; i++)
			write_object(&w, t.roots[i]);
		x_tree_free(&t);
		body = w.buf;
		body_len = w.len;
	}
	if (e == XENC_TEXT_MSZIP || e == XENC_BINARY32_MSZIP) {
		xbw_mszip(body, body_len, 32768, &packed, &packed_len, NULL);
		free(body);
		body = packed;
		body_len = packed_len;
	}
	*out = malloc(body_len + 16);
	if (*out == NULL)
		abort();
	put_header(*out, e == XENC_TEXT ? "txt " : e == XENC_TEXT_MSZIP ? "tzip"
			 : e == XENC_BINARY32_MSZIP ? "bzip" : "bin ", bits);
	memcpy(*out + 16, body, body_len);
	*out_len = body_len + 16;
	free(body);
	return 0;
}
