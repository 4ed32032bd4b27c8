/*
 * animd check [-v] [--json] [--mesh MESH] PATH...
 *
 * Loads every file named, and every asset file under every directory named
 * (recursively, in name order), exactly as the daemon would.  One line per
 * problem; with -v one line per good file too, then one per note (what the
 * file holds that animd does not evaluate or the game ignores, and animd
 * only notes, located like an error).  With --json, one JSON object per line for every file (good or
 * not; -v adds nothing), the error located in fields rather than in text,
 * its notes as lines, for editors and CI.  Exit 0 only if everything
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
#include "daemon/offline/json_out.h"
#include "daemon/offline/offline.h"

struct check_state {
	int verbose;
	int json;
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
	} else if (a->clip_count > 0 && clip_is_uniform(a->clips[0])) {
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

/* A line for a terminal: paths and names come from a directory and a file
 * and may hold control bytes (an ESC that a terminal would obey), which go
 * out as \xNN; the rest as it is. */
static void check_print_line(const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('\n');
}

/*
 * Where an error line of the loaders ("PATH:L:C: error: M", "PATH: offset
 * 0xH: error: M" or "PATH: error: M") points, as JSON: {"line", "col",
 * "offset", "message"}, the fields that do not apply null.  A line that does
 * not start with the path is kept whole as the message.
 */
static json_t *check_located(const char *path, const char *line)
{
	size_t plen = strlen(path);
	const char *rest = line, *msg;
	json_t *loc = json_object();
	unsigned long l = 0, c = 0;
	unsigned long long off = 0;
	int used = 0;

	json_object_set_new(loc, "line", json_null());
	json_object_set_new(loc, "col", json_null());
	json_object_set_new(loc, "offset", json_null());
	if (strncmp(line, path, plen) == 0)
		rest = line + plen;
	if (rest != line && sscanf(rest, ":%lu:%lu: error: %n", &l, &c, &used) == 2 && used > 0) {
		json_object_set_new(loc, "line", json_integer((json_int_t)l));
		json_object_set_new(loc, "col", json_integer((json_int_t)c));
		msg = rest + used;
	} else if (rest != line && sscanf(rest, ": offset %llx: error: %n", &off, &used) == 1 &&
		   used > 0) {
		json_object_set_new(loc, "offset", json_integer((json_int_t)off));
		msg = rest + used;
	} else if (rest != line && strncmp(rest, ": error: ", 9) == 0) {
		msg = rest + 9;
	} else {
		msg = line;
	}
	json_object_set_new(loc, "message", json_out_string_or_null(msg));
	return loc;
}

/*
 * One file's verdict.  Text: the error line as the loaders wrote it, or with
 * -v "PATH: ok (summary)".  JSON: {"path", "ok", "format", "summary",
 * "error"} on one line; format is the loaded asset's, else what the name
 * says (null when it says nothing), error null or check_located's object
 * plus "text", the line the text output prints.
 */
static void check_report(const struct check_state *st, const char *path,
			 const struct asset *a, const char *error, const char *summary)
{
	enum asset_format f = a != NULL ? a->format : asset_detect(path, NULL, 0);
	json_t *o, *e;

	if (!st->json) {
		char line[2048];

		if (error != NULL) {
			check_print_line(error);
		} else if (st->verbose) {
			snprintf(line, sizeof line, "%s: ok (%s)", path, summary);
			check_print_line(line);
			for (uint32_t i = 0; a != NULL && i < a->note_count; i++)
				check_print_line(a->notes[i]);
		}
		return;
	}
	o = json_object();
	json_object_set_new(o, "path", json_out_string_or_null(path));
	json_object_set_new(o, "ok", json_boolean(error == NULL));
	json_object_set_new(o, "format", f == ASSET_FORMAT_UNKNOWN
					 ? json_null() : json_string(asset_format_name(f)));
	json_object_set_new(o, "summary", json_out_string_or_null(error == NULL ? summary : NULL));
	{
		json_t *notes = json_array();

		for (uint32_t i = 0; a != NULL && error == NULL && i < a->note_count; i++)
			json_array_append_new(notes, json_out_string_or_null(a->notes[i]));
		json_object_set_new(o, "notes", notes);
	}
	if (error != NULL) {
		e = check_located(path, error);
		json_object_set_new(e, "text", json_out_string_or_null(error));
		json_object_set_new(o, "error", e);
	} else {
		json_object_set_new(o, "error", json_null());
	}
	json_out_print(o, stdout);
}

/* A rejected companion (an M2's .skin or .anim) fails the check, one
 * line each, located in the companion; a missing one is only the
 * summary's note (the model loads without that part).  The number
 * rejected. */
static unsigned check_companions(struct check_state *st, const struct asset *a)
{
	unsigned bad = 0;

	for (uint32_t i = 0; i < a->companion_count; i++) {
		const struct asset_companion *c = &a->companions[i];

		if (c->status != ASSET_COMPANION_BROKEN)
			continue;
		if (bad++ == 0)
			st->failed++;
		check_report(st, c->name, a, c->error, NULL);
	}
	return bad;
}

static void check_file(struct check_state *st, const char *path)
{
	struct asset *a = NULL;
	char err[512], what[256], line[1024];

	st->files++;
	/* Nothing is kept: the clips stay raw, as compressing them refuses no
	 * file (daemon/assets/asset.h). */
	if (asset_load_file_raw(path, 0, &a, err, sizeof err) < 0) {
		st->failed++;
		check_report(st, path, NULL, err, NULL);
		return;
	}
	if (st->mesh != NULL && a->clip_count > 0 && a->skeleton != NULL &&
	    skeleton_check_binding(a->skeleton, st->mesh->skeleton, what, sizeof what) < 0) {
		st->failed++;
		snprintf(line, sizeof line, "%s: error: does not fit mesh %s: %s", path,
			 st->mesh->name, what);
		check_report(st, path, a, line, NULL);
	} else if (check_companions(st, a) == 0) {
		check_describe(a, what, sizeof what);
		check_report(st, path, a, NULL, what);
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
		char line[1024];

		st->failed++;
		snprintf(line, sizeof line, "%s: error: cannot read directory: %s", path,
			 strerror(errno));
		check_report(st, path, NULL, line, NULL);
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
		char line[1024];

		st->failed++;
		snprintf(line, sizeof line, "%s: error: %s", path, strerror(errno));
		check_report(st, path, NULL, line, NULL);
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
		"usage: animd check [-v] [--json] [--mesh MESH.md5mesh] PATH...\n"
		"  Load files, or every asset under directories, as the daemon would.\n"
		"  Prints one line per problem (file:line:col: error: ...), exits 1 if any.\n"
		"  -v, --verbose   also print one line per good file\n"
		"  --json          one JSON object per line for every file: path, ok, format,\n"
		"                  summary, error {line, col, offset, message, text} or null\n"
		"  --mesh FILE     also check that every anim fits this mesh's skeleton\n");
}

int offline_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'j' },
		{ "mesh", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_state st = { 0 };
	struct asset *mesh = NULL;
	const char *mesh_path = NULL;
	char err[512];
	int c;

	(void)offline_heap_prepare();
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'v': st.verbose = 1; break;
		case 'j': st.json = 1; break;
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
			check_report(&st, mesh_path, NULL, err, NULL);
			return 1;
		}
		if (mesh->format != ASSET_FORMAT_MD5MESH) {
			snprintf(err, sizeof err, "%s: error: --mesh needs an md5mesh file", mesh_path);
			check_report(&st, mesh_path, mesh, err, NULL);
			asset_free(mesh);
			return EXIT_USAGE;
		}
		st.mesh = mesh;
	}
	for (int i = optind; i < argc; i++)
		check_path(&st, argv[i], 1);
	if (st.verbose && !st.json)
		printf("checked %u files: %u ok, %u failed\n", st.files, st.files - st.failed,
		       st.failed);
	asset_free(mesh);
	return st.failed ? 1 : 0;
}
