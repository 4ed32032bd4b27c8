#include "daemon/offline/json_out.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

json_t *json_out_number(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *json_out_floats(const float *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a != NULL && i < n; i++)
		json_array_append_new(a, json_out_number(v[i]));
	return a;
}

json_t *json_out_vec3(vec3 v)
{
	float f[3] = { v.x, v.y, v.z };

	return json_out_floats(f, 3);
}

json_t *json_out_quat(quat q)
{
	float f[4] = { q.x, q.y, q.z, q.w };

	return json_out_floats(f, 4);
}

json_t *json_out_mat34(const mat34 *m)
{
	return json_out_floats(&m->m[0][0], 12);
}

/* Names come from files and need not be UTF-8: a string that is not is
 * read as Latin-1, so every byte still shows and the JSON stays valid (the
 * control characters that makes, U+0080..U+009F, are printed as escapes
 * by json_out_print). */
json_t *json_out_string_or_null(const char *s)
{
	json_t *j;
	char *utf8, *o;

	if (s == NULL)
		return json_null();
	j = json_string(s);
	if (j != NULL)
		return j;
	utf8 = malloc(strlen(s) * 2 + 1);
	if (utf8 == NULL)
		return NULL;
	for (o = utf8; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x80) {
			*o++ = (char)c;
		} else {
			*o++ = (char)(0xc0 | (c >> 6));
			*o++ = (char)(0x80 | (c & 0x3f));
		}
	}
	*o = '\0';
	j = json_string(utf8);
	free(utf8);
	return j;
}

/*
 * jansson escapes U+0000..U+001F but writes U+007F and the C1 controls
 * U+0080..U+009F as they are: valid JSON, but a terminal obeys them (U+009B
 * is CSI, and a path or a joint name may hold one).  They can only be
 * inside strings, where "\u009b" is the same character; jansson hands over
 * whole characters, so a C1 pair is never split between two calls.
 */
static int json_out_write(const char *buf, size_t size, void *data)
{
	const unsigned char *u = (const unsigned char *)buf;
	FILE *f = data;
	size_t done = 0;

	for (size_t i = 0; i < size; i++) {
		unsigned cp;

		if (u[i] == 0x7f)
			cp = 0x7f;
		else if (u[i] == 0xc2 && i + 1 < size && u[i + 1] >= 0x80 && u[i + 1] < 0xa0)
			cp = u[i + 1];
		else
			continue;
		fwrite(buf + done, 1, i - done, f);
		fprintf(f, "\\u%04x", cp);
		i += cp == 0x7f ? 0 : 1;
		done = i + 1;
	}
	fwrite(buf + done, 1, size - done, f);
	return ferror(f) ? -1 : 0;
}

int json_out_print(json_t *root, FILE *f)
{
	int rc = 0;

	if (root == NULL)
		return -ENOMEM;
	if (json_dump_callback(root, json_out_write, f, JSON_COMPACT | JSON_REAL_PRECISION(9)) < 0 ||
	    fputc('\n', f) == EOF)
		rc = -EIO;
	json_decref(root);
	return rc;
}
