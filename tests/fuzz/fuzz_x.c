/*
 * libFuzzer harness for the .x syntax layer (formats/x.h): whatever the
 * header says (text, binary, compressed either), parse, then check the
 * tree keeps x_tree.h's promises (counts, depths, strings, positions inside
 * the body), locate an error at every object's position, free.  A rejected
 * file must come with a located message.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/x.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t objects, depth_seen;
static uint64_t values;

static void check_object(const struct x_tree *t, const struct x_object *o, uint32_t depth)
{
	struct diag d = { 0 };

	objects++;
	if (o->depth != depth || depth >= X_MAX_DEPTH || o->pos > t->body_len)
		abort();
	if (depth > depth_seen)
		depth_seen = depth;
	if (o->type == NULL) {
		/* A reference: a name or a GUID, nothing inside. */
		if ((o->name == NULL && !o->has_guid) || o->value_count || o->child_count)
			abort();
	} else if (strlen(o->type) == 0) {
		abort();
	}
	for (uint32_t i = 0; i < o->value_count; i++) {
		const struct x_value *v = &o->values[i];

		values++;
		if (v->pos > t->body_len)
			abort();
		if (v->kind == X_VALUE_STRING &&
		    (v->v.s.ptr == NULL || v->v.s.ptr[v->v.s.len] != '\0'))
			abort();
		if (v->kind != X_VALUE_INT && v->kind != X_VALUE_FLOAT && v->kind != X_VALUE_STRING)
			abort();
	}
	for (uint32_t i = 0; i < o->child_count; i++)
		check_object(t, o->children[i], depth + 1);
	/* Locating is what the importer will do with these positions. */
	x_tree_error(t, &d, o->pos, "check");
	if (!d.set)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct x_tree t;
	struct diag d = { 0 };
	int rc = x_parse((const char *)data, size, &t, &d);

	if (rc == 0) {
		objects = 0;
		values = 0;
		depth_seen = 0;
		for (uint32_t i = 0; i < t.root_count; i++)
			check_object(&t, t.roots[i], 0);
		if (objects != t.object_count || values != t.value_count)
			abort();
		x_tree_free(&t);
	} else if (rc != -EINVAL && rc != -ENOMEM) {
		abort();
	} else if (rc == -EINVAL && !d.set) {
		abort();
	} else if (t.roots != NULL || t.owned_body != NULL) {
		abort();
	}
	return 0;
}
