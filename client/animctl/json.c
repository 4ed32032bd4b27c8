/* json.c - a small streaming JSON writer for animctl's --json output. */
#include "client/animctl/animctl.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void json_begin(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = false;
	j->after_key = false;
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}

/* Separate this value from the previous one at its level. */
static void json_value(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
}

static void json_open(struct json *j, char c)
{
	json_value(j);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void json_close(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_obj(struct json *j)
{
	json_open(j, '{');
}

void json_obj_end(struct json *j)
{
	json_close(j, '}');
}

void json_arr(struct json *j)
{
	json_open(j, '[');
}

void json_arr_end(struct json *j)
{
	json_close(j, ']');
}

/* Any bytes in, valid JSON out: a byte that is not part of well-formed
 * UTF-8 is read as Latin-1 (as `animd check --json` reads such names), and
 * every control character, C1 and DEL included, is a \u escape, so that
 * the output is safe on a terminal too. */
static void json_quoted(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);

	fputc('"', f);
	for (size_t i = 0; i < n;) {
		uint32_t cp = 0;
		size_t len = escape_utf8(u + i, n - i, &cp);

		if (len == 0) {
			cp = u[i];
			len = 1;
		} else if (cp >= 0x20 && cp != '"' && cp != '\\' && (cp < 0x7f || cp >= 0xa0)) {
			fwrite(u + i, 1, len, f);
			i += len;
			continue;
		}
		i += len;
		switch (cp) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:        /* a control character, or a byte read as Latin-1 */
			fprintf(f, "\\u%04x", (unsigned)cp);
		}
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	json_value(j);
	json_quoted(j->f, key);
	fputc(':', j->f);
	j->after_key = true;
}

void json_str(struct json *j, const char *s)
{
	json_value(j);
	if (s == NULL)
		fputs("null", j->f);
	else
		json_quoted(j->f, s);
}

void json_num(struct json *j, double v)
{
	json_value(j);
	if (isfinite(v))
		fprintf(j->f, "%.15g", v);
	else
		fputs("null", j->f);
}

void json_float(struct json *j, float v)
{
	json_value(j);
	if (isfinite(v))
		fprintf(j->f, "%.9g", (double)v);
	else
		fputs("null", j->f);
}

void json_int(struct json *j, int64_t v)
{
	json_value(j);
	fprintf(j->f, "%" PRId64, v);
}

void json_uint(struct json *j, uint64_t v)
{
	json_value(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_bool(struct json *j, bool v)
{
	json_value(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	json_value(j);
	fputs("null", j->f);
}

void json_floats(struct json *j, const float *v, size_t n)
{
	json_arr(j);
	for (size_t i = 0; i < n; i++)
		json_float(j, v[i]);
	json_arr_end(j);
}

void json_kstr(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_str(j, s);
}

void json_knum(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_num(j, v);
}

void json_kuint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_kint(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_int(j, v);
}

void json_kbool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}
