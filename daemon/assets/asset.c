#include "daemon/assets/asset.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/assets/asset_internal.h"
#include "daemon/assets/asset_gltf.h"
#include "daemon/assets/asset_m2.h"
#include "daemon/formats/m2/m2.h"
#include "daemon/formats/md5/md5.h"
#include "daemon/formats/x/x.h"
#include "daemon/import/md5_import.h"
#include "daemon/import/x_import.h"

static const char *asset_extension(const char *name)
{
	const char *slash = strrchr(name, '/');
	const char *dot = strrchr(slash ? slash : name, '.');

	return dot ? dot + 1 : "";
}

enum asset_format asset_detect(const char *name, const void *head, size_t len)
{
	const char *ext = asset_extension(name);

	if (strcasecmp(ext, "md5mesh") == 0)
		return ASSET_FORMAT_MD5MESH;
	if (strcasecmp(ext, "md5anim") == 0)
		return ASSET_FORMAT_MD5ANIM;
	if (strcasecmp(ext, "md5camera") == 0)
		return ASSET_FORMAT_MD5CAMERA;
	if (strcasecmp(ext, "x") == 0)
		return ASSET_FORMAT_X;
	if (strcasecmp(ext, "m2") == 0)
		return ASSET_FORMAT_M2;
	if (strcasecmp(ext, "gltf") == 0 || strcasecmp(ext, "glb") == 0)
		return ASSET_FORMAT_GLTF;
	/* An M2's companions are part of their model, never assets (a .skin
	 * starts "SKIN", an .anim with anything at all). */
	if (strcasecmp(ext, "skin") == 0 || strcasecmp(ext, "anim") == 0)
		return ASSET_FORMAT_UNKNOWN;
	/* .x ("xof "), M2 ("MD20") and GLB ("glTF") have magic numbers: files without a
	 * telling extension are recognised by them. */
	if (head != NULL && len >= 4 && memcmp(head, "xof ", 4) == 0)
		return ASSET_FORMAT_X;
	if (head != NULL && len >= 4 && memcmp(head, "MD20", 4) == 0)
		return ASSET_FORMAT_M2;
	if (head != NULL && len >= 4 && memcmp(head, "glTF", 4) == 0)
		return ASSET_FORMAT_GLTF;
	return ASSET_FORMAT_UNKNOWN;
}

const char *asset_format_name(enum asset_format f)
{
	switch (f) {
	case ASSET_FORMAT_MD5MESH:   return "md5mesh";
	case ASSET_FORMAT_MD5ANIM:   return "md5anim";
	case ASSET_FORMAT_MD5CAMERA: return "md5camera";
	case ASSET_FORMAT_X:         return "x";
	case ASSET_FORMAT_M2:        return "m2";
	case ASSET_FORMAT_GLTF:      return "gltf";
	default:                     return "unknown";
	}
}

/* The clip name of a single-clip file: its base name without extension. */
static char *asset_stem(const char *name)
{
	const char *slash = strrchr(name, '/');
	const char *base = slash ? slash + 1 : name;
	const char *dot = strrchr(base, '.');
	size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);

	return strndup(base, n);
}

static struct asset *asset_new(const char *name, enum asset_format f, size_t len)
{
	struct asset *a = calloc(1, sizeof *a);

	if (a == NULL)
		return NULL;
	a->name = strdup(name);
	if (a->name == NULL) {
		free(a);
		return NULL;
	}
	a->refs = 1;
	a->format = f;
	a->file_bytes = len;
	/* Doom 3 is Z-up and right-handed; MD5 files are left as authored. */
	a->version = 10;
	a->up = "z_up";
	a->handedness = "right";
	return a;
}

static int asset_fail_diag(const char *name, const struct diag *d, int rc, char *err,
			   size_t errlen)
{
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: error: out of memory", name);
	else
		diag_format(d, name, err, errlen);
	return rc;
}

int asset_add_notes(struct asset *a, const char *name, const struct diag_notes *notes)
{
	uint32_t n = notes->count + (notes->dropped > 0);
	char line[DIAG_MSG_MAX + 1200];
	char **grown;

	if (n == 0 || a->note_count >= ASSET_NOTES_MAX)
		return 0;
	if (n > ASSET_NOTES_MAX - a->note_count)
		n = ASSET_NOTES_MAX - a->note_count;
	grown = realloc(a->notes, ((size_t)a->note_count + n + 1) * sizeof *a->notes);
	if (grown == NULL)
		return -ENOMEM;
	a->notes = grown;
	for (uint32_t i = 0; i < n; i++) {
		if (i < notes->count)
			diag_note_format(&notes->note[i], name, line, sizeof line);
		else
			snprintf(line, sizeof line, "%s: note: %" PRIu32 " notes of other kinds left "
				 "out", name, notes->dropped);
		a->notes[a->note_count] = strdup(line);
		if (a->notes[a->note_count] == NULL)
			return -ENOMEM;
		a->note_count++;
	}
	return 0;
}

static int asset_fail(const char *name, int rc, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: error: %s: %s", name, what, strerror(-rc));
	return rc;
}

int asset_companion_stem(const char *name, char *out, size_t size)
{
	return m2_companion_stem(name, out, size);
}

int asset_read_companion_file(void *ctx, const char *name, char **buf, size_t *len, char *err,
			      size_t errlen)
{
	size_t max = ctx != NULL ? *(const size_t *)ctx : 0;
	struct stat st;
	int fd = open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), rc;

	if (fd < 0)
		return errno == ENOENT ? -ENOENT : asset_fail(name, -errno, err, errlen,
							      "cannot open");
	rc = asset_read_fd(fd, name, max, buf, len, &st, err, errlen);
	close(fd);
	return rc;
}

static int asset_load_md5mesh(struct asset *a, const void *buf, size_t len, char *err,
			      size_t errlen)
{
	struct md5_model *m = NULL;
	struct diag d = { 0 };
	int rc = md5_mesh_parse(buf, len, &m, &d);

	if (rc < 0)
		return asset_fail_diag(a->name, &d, rc, err, errlen);
	rc = asset_add_notes(a, a->name, &m->notes);
	if (rc == 0)
		rc = md5_import_skeleton(m, &a->skeleton);
	if (rc == 0 && m->num_meshes > 0) {
		a->meshes = calloc(m->num_meshes, sizeof *a->meshes);
		if (a->meshes == NULL)
			rc = -ENOMEM;
	}
	for (uint32_t i = 0; rc == 0 && i < m->num_meshes; i++) {
		rc = md5_import_mesh(m, i, &a->meshes[i]);
		if (rc == 0)
			a->mesh_count++;
		if (rc == 0)
			rc = md5_import_normal_groups(a->meshes[i], a->skeleton);
	}
	md5_model_free(m);
	return rc < 0 ? asset_fail(a->name, rc, err, errlen, "cannot convert mesh") : 0;
}

static int asset_load_md5anim(struct asset *a, const void *buf, size_t len, char *err,
			      size_t errlen)
{
	struct md5_anim *an = NULL;
	struct diag d = { 0 };
	char *stem;
	int rc = md5_anim_parse(buf, len, &an, &d);

	if (rc < 0)
		return asset_fail_diag(a->name, &d, rc, err, errlen);
	a->animated_components = an->num_components;
	stem = asset_stem(a->name);
	a->clips = calloc(1, sizeof *a->clips);
	if (stem == NULL || a->clips == NULL)
		rc = -ENOMEM;
	if (rc == 0)
		rc = asset_add_notes(a, a->name, &an->notes);
	if (rc == 0)
		rc = md5_import_anim_skeleton(an, &a->skeleton);
	if (rc == 0)
		rc = md5_import_clip(an, stem, &a->clips[0]);
	if (rc == 0)
		a->clip_count = 1;
	free(stem);
	md5_anim_free(an);
	return rc < 0 ? asset_fail(a->name, rc, err, errlen, "cannot convert anim") : 0;
}

static int asset_load_md5camera(struct asset *a, const void *buf, size_t len, char *err,
				size_t errlen)
{
	struct md5_camera *c = NULL;
	struct diag d = { 0 };
	int rc = md5_camera_parse(buf, len, &c, &d);

	if (rc < 0)
		return asset_fail_diag(a->name, &d, rc, err, errlen);
	rc = asset_add_notes(a, a->name, &c->notes);
	if (rc == 0)
		rc = md5_import_camera(c, &a->camera);
	md5_camera_free(c);
	return rc < 0 ? asset_fail(a->name, rc, err, errlen, "cannot convert camera") : 0;
}

/* A DirectX .x file: skeleton, meshes and one clip per animation set.
 * D3D is Y-up and left-handed; the file is left as authored. */
static int asset_load_x(struct asset *a, const void *buf, size_t len,
			const struct asset_options *opts, char *err, size_t errlen)
{
	struct x_model m = { 0 };
	struct x_tree t;
	struct diag d = { 0 };
	char *stem = asset_stem(a->name);
	int rc;

	if (stem == NULL)
		return asset_fail(a->name, -ENOMEM, err, errlen, "cannot load");
	rc = x_parse(buf, len, &t, &d);
	if (rc == 0) {
		rc = x_import(&t, opts ? opts->x_ticks_per_second : 0, stem, &m, &d);
		a->version = (int)(t.header.major * 100 + t.header.minor);
		x_tree_free(&t);
	}
	free(stem);
	if (rc < 0)
		return asset_fail_diag(a->name, &d, rc, err, errlen);
	rc = asset_add_notes(a, a->name, &m.notes);
	if (rc < 0) {
		x_model_free(&m);
		return asset_fail(a->name, rc, err, errlen, "cannot load");
	}
	a->up = "y_up";
	a->handedness = "left";
	a->skeleton = m.skeleton;
	a->mesh_count = m.mesh_count;
	a->meshes = m.meshes;
	a->clip_count = m.clip_count;
	a->clips = m.clips;
	a->ticks_per_second = m.ticks_per_second;
	a->ticks_from_file = m.ticks_from_file;
	if (m.unknown_bones > 0 || m.skipped_sets > 0) {
		char note[256];

		if (m.unknown_bones > 0)
			snprintf(note, sizeof note,
				 "%u SkinWeights name bones no frame has (first \"%s\"): their "
				 "vertices stay with the mesh's frame%s", m.unknown_bones,
				 m.first_unknown_bone,
				 m.skipped_sets ? "; compressed animation sets are not supported" : "");
		else
			snprintf(note, sizeof note,
				 "%u compressed animation sets are not supported (left out)",
				 m.skipped_sets);
		a->note = strdup(note);
	}
	return 0;
}

/* Every clip compressed against the metric through the asset's hierarchy
 * (clip_compress: a uniform clip's frames, a keyed clip's key index). */
static int asset_compress_clips(struct asset *a, const struct clip_codec_params *p, char *err,
				size_t errlen)
{
	for (uint32_t i = 0; i < a->clip_count; i++) {
		const struct clip *c = a->clips[i];
		int rc;

		if (a->skeleton == NULL || c->joint_count != a->skeleton->joint_count)
			continue;
		rc = clip_compress(a->clips[i], a->skeleton->parents, p);
		if (rc < 0)
			return asset_fail(a->name, rc, err, errlen, "cannot compress clips");
	}
	return 0;
}

int asset_load_buffer(const char *name, const void *buf, size_t len, struct asset **out,
		      char *err, size_t errlen)
{
	return asset_load_buffer_with(name, buf, len, NULL, out, err, errlen);
}

int asset_load_buffer_with(const char *name, const void *buf, size_t len,
			   const struct asset_options *opts, struct asset **out, char *err,
			   size_t errlen)
{
	enum asset_format f = asset_detect(name, buf, len);
	struct asset *a;
	int rc;

	if (f == ASSET_FORMAT_UNKNOWN) {
		snprintf(err, errlen,
			 "%s: error: unknown format (expected .md5mesh, .md5anim, .md5camera, .x, .m2, "
			 ".gltf or .glb)",
			 name);
		return -EINVAL;
	}
	a = asset_new(name, f, len);
	if (a == NULL)
		return asset_fail(name, -ENOMEM, err, errlen, "cannot load");
	switch (f) {
	case ASSET_FORMAT_MD5MESH:
		rc = asset_load_md5mesh(a, buf, len, err, errlen);
		break;
	case ASSET_FORMAT_MD5ANIM:
		rc = asset_load_md5anim(a, buf, len, err, errlen);
		break;
	case ASSET_FORMAT_X:
		rc = asset_load_x(a, buf, len, opts, err, errlen);
		break;
	case ASSET_FORMAT_M2:
		rc = asset_m2_load(a, buf, len, opts, err, errlen);
		break;
	case ASSET_FORMAT_GLTF:
		rc = asset_gltf_load(a, buf, len, opts, err, errlen);
		break;
	default:
		rc = asset_load_md5camera(a, buf, len, err, errlen);
		break;
	}
	if (rc == 0 && !(opts && opts->raw_clips))
		rc = asset_compress_clips(a, opts ? &opts->codec : NULL, err, errlen);
	if (rc < 0) {
		asset_free(a);
		return rc;
	}
	asset_memory(a, &a->memory);
	*out = a;
	return 0;
}

/* What a file that is not regular is, for the message that refuses it. */
static const char *asset_file_kind(mode_t mode)
{
	return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
	       : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

int asset_read_fd(int fd, const char *name, size_t max_bytes, char **buf_out, size_t *len_out,
		  struct stat *st, char *err, size_t errlen)
{
	size_t len = 0, cap;
	char *buf;

	memset(st, 0, sizeof *st);
	if (fstat(fd, st) < 0)
		return asset_fail(name, -errno, err, errlen, "cannot stat");
	if (!S_ISREG(st->st_mode)) {
		/* Only regular files: a FIFO would never end, a device might
		 * never end or change as it is read. */
		snprintf(err, errlen, "%s: error: is %s, not a regular file", name,
			 asset_file_kind(st->st_mode));
		return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	}
	if (max_bytes == 0)
		max_bytes = ASSET_DEFAULT_MAX_BYTES;
	if ((uint64_t)st->st_size > max_bytes) {
		snprintf(err, errlen, "%s: error: file is %lld bytes, over the %zu-byte limit",
			 name, (long long)st->st_size, max_bytes);
		return -EFBIG;
	}
	/* One spare byte so a file that grows while we read is noticed. */
	cap = (size_t)st->st_size + 1;
	buf = malloc(cap);
	if (buf == NULL)
		return asset_fail(name, -ENOMEM, err, errlen, "cannot read");
	for (;;) {
		ssize_t n = read(fd, buf + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int rc = asset_fail(name, -errno, err, errlen, "cannot read");

			free(buf);
			return rc;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == cap) {
			snprintf(err, errlen, "%s: error: file grew while being read", name);
			free(buf);
			return -EAGAIN;
		}
	}
	*buf_out = buf;
	*len_out = len;
	return 0;
}

int asset_open_file(const char *path, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer (nor a device
	 * for its carrier); it changes nothing for a regular file. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	return fd < 0 ? asset_fail(path, -errno, err, errlen, "cannot open") : fd;
}

static int asset_load_file_as(const char *path, size_t max_bytes, bool raw_clips,
			      struct asset **out, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	struct stat st;
	int fd = asset_open_file(path, err, errlen);

	if (fd < 0)
		return fd;
	rc = asset_read_fd(fd, path, max_bytes, &buf, &len, &st, err, errlen);
	close(fd);
	if (rc < 0)
		return rc;
	{
		struct asset_options o = { .read_companion = asset_read_companion_file,
					   .companion_ctx = &max_bytes, .raw_clips = raw_clips };

		rc = asset_load_buffer_with(path, buf, len, &o, out, err, errlen);
	}
	free(buf);
	return rc;
}

int asset_load_file(const char *path, size_t max_bytes, struct asset **out, char *err,
		    size_t errlen)
{
	return asset_load_file_as(path, max_bytes, false, out, err, errlen);
}

int asset_load_file_raw(const char *path, size_t max_bytes, struct asset **out, char *err,
			size_t errlen)
{
	return asset_load_file_as(path, max_bytes, true, out, err, errlen);
}

const struct asset *asset_own_mesh(const struct asset *a)
{
	return a->format == ASSET_FORMAT_MD5MESH || a->mesh_count > 0 ? a : NULL;
}

/* "id=N" or "id=N.V": the M2 sequence of animation id N (variation V, or
 * the first of that id). */
static const struct clip *asset_find_sequence(const struct asset *a, const char *name)
{
	unsigned long id, var = 0;
	int any_variation;
	char *end;

	if (a->sequences == NULL || strncmp(name, "id=", 3) != 0 || name[3] < '0' || name[3] > '9')
		return NULL;
	id = strtoul(name + 3, &end, 10);
	any_variation = *end == '\0';
	if (*end == '.') {
		if (end[1] < '0' || end[1] > '9')
			return NULL;
		var = strtoul(end + 1, &end, 10);
	}
	if (*end != '\0')
		return NULL;
	for (uint32_t i = 0; i < a->clip_count; i++)
		if (a->sequences[i].id == id && (any_variation || a->sequences[i].variation == var))
			return a->sequences[i].loaded ? a->clips[i] : NULL;
	return NULL;
}

const struct clip *asset_find_clip(const struct asset *a, const char *name)
{
	/* A glTF animation is also "#N", its index. */
	if (name != NULL && name[0] == '#' && a->format == ASSET_FORMAT_GLTF) {
		char *end;
		unsigned long i;

		if (name[1] < '0' || name[1] > '9')
			return NULL;
		i = strtoul(name + 1, &end, 10);
		return *end == '\0' && i < a->clip_count ? a->clips[i] : NULL;
	}
	/* An M2 sequence is also "#N", as in path#N. */
	if (name != NULL && name[0] == '#' && a->sequences != NULL)
		name++;
	/* An M2 sequence whose keys are in a missing or broken .anim is not
	 * loaded: it is listed, never played. */
	for (uint32_t i = 0; i < a->clip_count; i++)
		if (name == NULL || strcmp(a->clips[i]->name, name) == 0) {
			if (a->sequences == NULL || a->sequences[i].loaded)
				return a->clips[i];
			if (name != NULL)
				return NULL;
		}
	return name != NULL ? asset_find_sequence(a, name) : NULL;
}

const char *asset_clip_unloaded_reason(const struct asset *a, const char *name, char *buf,
				       size_t size)
{
	uint32_t s = UINT32_MAX;

	buf[0] = '\0';
	if (a->sequences == NULL || name == NULL)
		return buf;
	if (name[0] == '#')
		name++;
	for (uint32_t i = 0; i < a->clip_count && s == UINT32_MAX; i++)
		if (strcmp(a->clips[i]->name, name) == 0)
			s = i;
	if (s == UINT32_MAX || a->sequences[s].loaded)
		return buf;
	/* The sequence whose keys it plays has the companion. */
	{
		uint32_t keys = a->sequences[s].alias_of >= 0 ? (uint32_t)a->sequences[s].alias_of : s;

		for (uint32_t i = 0; i < a->companion_count; i++) {
			const struct asset_companion *c = &a->companions[i];

			if (c->kind == ASSET_COMPANION_ANIM && c->index == keys) {
				snprintf(buf, size, " (sequence %u is not loaded: %s %s)", s, c->name,
					 c->status == ASSET_COMPANION_MISSING ? "is missing"
									     : "was rejected");
				return buf;
			}
		}
	}
	snprintf(buf, size, " (sequence %u is not loaded)", s);
	return buf;
}

static size_t asset_str_bytes(const char *s)
{
	return s != NULL ? strlen(s) + 1 : 0;
}

/* The arrays' sizes are those of the loaders: M2's lists of clips,
 * sequences, joints and global sequences have one spare entry; the others
 * hold exactly their count. */
void asset_memory(const struct asset *a, struct asset_memory *out)
{
	int m2 = a->format == ASSET_FORMAT_M2;
	size_t clip_list = (size_t)a->clip_count + (m2 ? 1 : 0);

	memset(out, 0, sizeof *out);
	if (a->skeleton != NULL)
		out->skeleton = skeleton_bytes(a->skeleton);
	if (a->joint_info != NULL)
		out->skeleton += ((uint64_t)a->skeleton->joint_count + 1) * sizeof *a->joint_info;
	for (uint32_t i = 0; i < a->clip_count; i++)
		out->clips += clip_bytes(a->clips[i]);
	if (a->clips != NULL)
		out->clips += clip_list * sizeof *a->clips;
	if (a->sequences != NULL)
		out->clips += clip_list * sizeof *a->sequences;
	if (a->global_ns != NULL)
		out->clips += ((uint64_t)a->global_count + 1) * sizeof *a->global_ns;
	if (a->shared_keys != NULL)
		out->clips += a->shared_keys_bytes;
	for (uint32_t i = 0; i < a->mesh_count; i++)
		out->meshes += mesh_bytes(a->meshes[i]);
	if (a->meshes != NULL)
		out->meshes += (uint64_t)a->mesh_count * sizeof *a->meshes;
	if (a->camera != NULL)
		out->camera = camera_track_bytes(a->camera);
	if (a->emitters != NULL)
		out->emitters = (uint64_t)a->emitter_count * sizeof *a->emitters;
	for (uint32_t i = 0; i < a->emitter_count; i++)
		out->emitters += emitter_bytes(&a->emitters[i]);
	if (a->attachments != NULL)
		out->skeleton += ((uint64_t)a->attachment_count + 1) * sizeof *a->attachments;
	if (a->events != NULL)
		out->skeleton += ((uint64_t)a->event_count + 1) * sizeof *a->events;
	if (a->weights != NULL)
		out->meshes += ((uint64_t)a->weight_count + 1) * sizeof *a->weights;
	if (a->weight_names != NULL)
		out->meshes += ((uint64_t)a->weight_count + 1) * sizeof *a->weight_names;
	for (uint32_t i = 0; a->weight_names != NULL && i < a->weight_count; i++)
		out->meshes += asset_str_bytes(a->weight_names[i]);
	out->other = sizeof *a + asset_str_bytes(a->name) + asset_str_bytes(a->note);
	if (a->notes != NULL)
		out->other += ((uint64_t)a->note_count + 1) * sizeof *a->notes;
	for (uint32_t i = 0; i < a->note_count; i++)
		out->other += asset_str_bytes(a->notes[i]);
	out->other += (uint64_t)a->companion_count * sizeof *a->companions;
	for (uint32_t i = 0; i < a->companion_count; i++)
		out->other += asset_str_bytes(a->companions[i].name) +
			      asset_str_bytes(a->companions[i].error);
	out->total = out->skeleton + out->clips + out->meshes + out->camera + out->emitters +
		     out->other;
}

uint64_t asset_bytes(const struct asset *a)
{
	struct asset_memory m;

	asset_memory(a, &m);
	return m.total;
}

struct asset *asset_ref(struct asset *a)
{
	a->refs++;
	return a;
}

static void asset_destroy(struct asset *a)
{
	for (uint32_t i = 0; i < a->clip_count; i++)
		clip_free(a->clips[i]);
	for (uint32_t i = 0; i < a->mesh_count; i++)
		mesh_free(a->meshes[i]);
	free(a->clips);
	free(a->meshes);
	skeleton_free(a->skeleton);
	camera_track_free(a->camera);
	free(a->sequences);
	free(a->joint_info);
	for (uint32_t i = 0; i < a->emitter_count; i++)
		emitter_fini(&a->emitters[i]);
	free(a->emitters);
	free(a->attachments);
	free(a->events);
	free(a->weights);
	for (uint32_t i = 0; a->weight_names != NULL && i < a->weight_count; i++)
		free(a->weight_names[i]);
	free(a->weight_names);
	free(a->global_ns);
	free(a->shared_keys);
	for (uint32_t i = 0; i < a->note_count; i++)
		free(a->notes[i]);
	free(a->notes);
	for (uint32_t i = 0; i < a->companion_count; i++) {
		free(a->companions[i].name);
		free(a->companions[i].error);
	}
	free(a->companions);
	free(a->name);
	free(a->note);
	free(a);
}

void asset_unref(struct asset *a)
{
	if (a != NULL && --a->refs == 0)
		asset_destroy(a);
}

void asset_free(struct asset *a)
{
	asset_unref(a);
}
