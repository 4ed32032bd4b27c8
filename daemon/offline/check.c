/*
 * animd check [-v] [--mesh MESH] PATH...
 *
 * Loads every file named, and every asset file under every directory named
 * (recursively, in name order), exactly as the daemon would.  One line per
 * problem; with -v one line per good file too.  Exit 0 only if everything
 * loaded (and, with --mesh, every anim fits the mesh's skeleton).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/assets/asset.h"
#include "daemon/offline/offline.h"

struct check_state {
	int verbose;
	const struct asset *mesh;
	unsigned files;
	unsigned failed;
};

static void check_describe(const struct asset *a, char *buf, size_t size)
{
	if (a->camera != NULL) {
		snprintf(buf, size, "%s, %u frames at %u fps, %u cuts, %.3f s",
			 asset_format_name(a->format), a->camera->frame_count,
			 a->camera->frame_rate, a->camera->cut_count,
			 time_to_seconds(a->camera->duration_ns));
	} else if (a->clip_count > 0 && a->clips[0]->frames != NULL) {
		const struct clip *c = a->clips[0];

		snprintf(buf, size, "%s, %u joints, clip \"%s\" %.3f s, %u frames at %u fps",
			 asset_format_name(a->format), a->skeleton->joint_count, c->name,
			 time_to_seconds(c->duration_ns), c->frame_count, c->frame_rate);
	} else if (a->clip_count > 0) {
		/* Keyed clips (.x): no frame rate to speak of. */
		snprintf(buf, size, "%s, %u joints, %u meshes, %u clip%s (\"%s\" %.3f s)%s%s",
			 asset_format_name(a->format), a->skeleton->joint_count, a->mesh_count,
			 a->clip_count, a->clip_count == 1 ? "" : "s", a->clips[0]->name,
			 time_to_seconds(a->clips[0]->duration_ns), a->note ? "; note: " : "",
			 a->note ? a->note : "");
	} else {
		snprintf(buf, size, "%s, %u joints, %u meshes", asset_format_name(a->format),
			 a->skeleton ? a->skeleton->joint_count : 0, a->mesh_count);
	}
}

static void check_file(struct check_state *st, const char *path)
{
	struct asset *a = NULL;
	char err[512], what[256];

	st->files++;
	if (asset_load_file(path, 0, &a, err, sizeof err) < 0) {
		st->failed++;
		printf("%s\n", err);
		return;
	}
	if (st->mesh != NULL && a->clip_count > 0 && a->skeleton != NULL &&
	    skeleton_check_binding(a->skeleton, st->mesh->skeleton, what, sizeof what) < 0) {
		st->failed++;
		printf("%s: error: does not fit mesh %s: %s\n", path, st->mesh->name, what);
	} else if (st->verbose) {
		check_describe(a, what, sizeof what);
		printf("%s: ok (%s)\n", path, what);
	}
	asset_free(a);
}

static int check_hidden(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

static void check_path(struct check_state *st, const char *path, int top);

static void check_dir(struct check_state *st, const char *path)
{
	struct dirent **list = NULL;
	int n = scandir(path, &list, check_hidden, alphasort);

	if (n < 0) {
		st->failed++;
		printf("%s: error: cannot read directory: %s\n", path, strerror(errno));
		return;
	}
	for (int i = 0; i < n; i++) {
		char *child = NULL;

		if (asprintf(&child, "%s/%s", path, list[i]->d_name) >= 0) {
			check_path(st, child, 0);
			free(child);
		}
		free(list[i]);
	}
	free(list);
}

static void check_path(struct check_state *st, const char *path, int top)
{
	struct stat sb;
	int link;

	if (lstat(path, &sb) < 0 || ((link = S_ISLNK(sb.st_mode)) && stat(path, &sb) < 0)) {
		st->failed++;
		printf("%s: error: %s\n", path, strerror(errno));
		return;
	}
	if (S_ISDIR(sb.st_mode)) {
		/* Inside a tree, symlinked directories are not followed (no loops). */
		if (top || !link)
			check_dir(st, path);
		return;
	}
	if (!top && asset_detect(path, NULL, 0) == ASSET_FORMAT_UNKNOWN)
		return;
	check_file(st, path);
}

static void check_usage(FILE *f)
{
	fprintf(f,
		"usage: animd check [-v] [--mesh MESH.md5mesh] PATH...\n"
		"  Load files, or every asset under directories, as the daemon would.\n"
		"  Prints one line per problem (file:line:col: error: ...), exits 1 if any.\n"
		"  -v, --verbose   also print one line per good file\n"
		"  --mesh FILE     also check that every anim fits this mesh's skeleton\n");
}

int offline_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "mesh", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_state st = { 0 };
	struct asset *mesh = NULL;
	const char *mesh_path = NULL;
	char err[512];
	int c;

	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'v': st.verbose = 1; break;
		case 'm': mesh_path = optarg; break;
		case 'h': check_usage(stdout); return 0;
		default: check_usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		check_usage(stderr);
		return EXIT_USAGE;
	}
	if (mesh_path != NULL) {
		if (asset_load_file(mesh_path, 0, &mesh, err, sizeof err) < 0) {
			printf("%s\n", err);
			return 1;
		}
		if (mesh->format != ASSET_FORMAT_MD5MESH) {
			printf("%s: error: --mesh needs an md5mesh file\n", mesh_path);
			asset_free(mesh);
			return EXIT_USAGE;
		}
		st.mesh = mesh;
	}
	for (int i = optind; i < argc; i++)
		check_path(&st, argv[i], 1);
	if (st.verbose)
		printf("checked %u files: %u ok, %u failed\n", st.files, st.files - st.failed,
		       st.failed);
	asset_free(mesh);
	return st.failed ? 1 : 0;
}
