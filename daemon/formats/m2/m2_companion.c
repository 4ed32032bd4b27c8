/*
 * m2_companion.c - the names of a model's companion files (264 and
 * later): NAME00.skin ... for its views, NAMEaaaa-vv.anim for a sequence
 * whose keys are not in the model, all beside the model (NAME is the
 * model's file name without its extension, as WMVx and the wowdev wiki
 * build them).  Pure string work.
 */
#include "daemon/formats/m2/m2.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The length of model without its extension (the last '.' of its last
 * component). */
static size_t m2_stem_len(const char *model)
{
	const char *slash = strrchr(model, '/');
	const char *dot = strrchr(model, '.');

	if (dot == NULL || (slash != NULL && dot < slash))
		return strlen(model);
	return (size_t)(dot - model);
}

int m2_skin_name(const char *model, uint32_t i, char *out, size_t size)
{
	int n = snprintf(out, size, "%.*s%02u.skin", (int)m2_stem_len(model), model, i % 100u);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int m2_anim_name(const char *model, uint32_t id, uint32_t variation, char *out, size_t size)
{
	int n = snprintf(out, size, "%.*s%04u-%02u.anim", (int)m2_stem_len(model), model,
			 id, variation);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static bool m2_digits(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)p[i]))
			return false;
	return true;
}

int m2_companion_stem(const char *name, char *out, size_t size)
{
	size_t len = strlen(name), stem;

	if (len > 7 && strcasecmp(name + len - 5, ".skin") == 0 && m2_digits(name + len - 7, 2))
		stem = len - 7;
	else if (len > 12 && strcasecmp(name + len - 5, ".anim") == 0 &&
		 m2_digits(name + len - 12, 4) && name[len - 8] == '-' &&
		 m2_digits(name + len - 7, 2))
		stem = len - 12;
	else
		return -EINVAL;
	if (stem == 0 || name[stem - 1] == '/')
		return -EINVAL;
	if (stem >= size)
		return -ENAMETOOLONG;
	memcpy(out, name, stem);
	out[stem] = '\0';
	return 0;
}
