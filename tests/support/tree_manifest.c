#include "tests/support/tree_manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tree_kind_names[TREE_KIND_COUNT] = {
	[TREE_MD5MESH] = "md5mesh", [TREE_MD5ANIM] = "md5anim", [TREE_M2] = "m2",
	[TREE_X] = "x", [TREE_MD5CAMERA] = "md5camera", [TREE_BROKEN] = "broken",
};

int tree_generate(const char *dir, unsigned assets, unsigned broken, struct tree_manifest *out)
{
	const char *build = getenv("BUILD");
	char cmd[2048], manifest[1024], line[256];
	size_t cap = 0;
	FILE *f;

	memset(out, 0, sizeof *out);
	snprintf(manifest, sizeof manifest, "%s.manifest", dir);
	snprintf(cmd, sizeof cmd, "%s/gen/gen_tree '%s' %u --broken %u --manifest '%s' >/dev/null",
		 build != NULL ? build : "build", dir, assets, broken, manifest);
	if (system(cmd) != 0) {
		fprintf(stderr, "tree_generate: %s failed\n", cmd);
		return -1;
	}
	f = fopen(manifest, "r");
	if (f == NULL) {
		perror(manifest);
		return -1;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		char kind[16], name[64], mesh[64] = "";
		struct tree_asset *a;
		int k;

		if (sscanf(line, "%15s %63s %63s", kind, name, mesh) < 2)
			continue;
		for (k = 0; k < TREE_KIND_COUNT; k++)
			if (strcmp(kind, tree_kind_names[k]) == 0)
				break;
		if (k == TREE_KIND_COUNT)
			continue;
		if (out->count == cap) {
			cap = cap ? cap * 2 : 256;
			out->assets = realloc(out->assets, cap * sizeof *out->assets);
			if (out->assets == NULL)
				abort();
		}
		a = &out->assets[out->count++];
		a->kind = (enum tree_kind)k;
		snprintf(a->name, sizeof a->name, "%s", name);
		snprintf(a->mesh, sizeof a->mesh, "%s", mesh);
		out->by_kind[k]++;
	}
	fclose(f);
	return 0;
}

const struct tree_asset *tree_nth(const struct tree_manifest *m, enum tree_kind kind, size_t i)
{
	for (size_t k = 0; k < m->count; k++)
		if (m->assets[k].kind == kind && i-- == 0)
			return &m->assets[k];
	return NULL;
}

void tree_manifest_free(struct tree_manifest *m)
{
	free(m->assets);
	memset(m, 0, sizeof *m);
}
