#include "daemon/service/cache/scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/service/cache/asset_path.h"

#define SCAN_DEFAULT_MAX_ENTRIES 1000000u
#define SCAN_DEFAULT_MAX_DEPTH 32u

struct scan_ctx {
	struct scan_result *r;
	size_t file_cap, dir_cap, unservable_cap;
	size_t max_entries;
	unsigned max_depth;
};

struct scan_req {
	uv_work_t work;
	int root_fd;
	const char *root_real;
	char **roots;
	size_t root_count;
	struct scan_limits limits;
	struct scan_result result;
	scan_done_cb cb;
	void *data;
};

bool scan_stat_equal(const struct scan_stat *a, const struct scan_stat *b)
{
	return a->size == b->size && a->mtime_ns == b->mtime_ns && a->ino == b->ino &&
	       a->dev == b->dev;
}

void scan_stat_from(struct scan_stat *out, const struct stat *st)
{
	out->size = (uint64_t)st->st_size;
	out->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	out->ino = (uint64_t)st->st_ino;
	out->dev = (uint64_t)st->st_dev;
}

static int scan_grow(void **arr, size_t *cap, size_t count, size_t elem)
{
	size_t n;
	void *p;

	if (count < *cap)
		return 0;
	n = *cap != 0 ? *cap * 2 : 64;
	p = realloc(*arr, n * elem);
	if (p == NULL)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

static int scan_add_file(struct scan_ctx *ctx, const char *name, const struct stat *st)
{
	struct scan_result *r = ctx->r;
	char *copy;

	if (r->file_count + r->dir_count + r->unservable_count >= ctx->max_entries)
		return -E2BIG;
	if (scan_grow((void **)&r->files, &ctx->file_cap, r->file_count, sizeof *r->files) < 0)
		return -ENOMEM;
	copy = strdup(name);
	if (copy == NULL)
		return -ENOMEM;
	r->files[r->file_count].name = copy;
	scan_stat_from(&r->files[r->file_count].st, st);
	r->file_count++;
	return 0;
}

/* Returns the index of the new directory record or a negative errno. */
static long scan_add_dir(struct scan_ctx *ctx, const char *name)
{
	struct scan_result *r = ctx->r;
	char *copy;

	if (r->file_count + r->dir_count + r->unservable_count >= ctx->max_entries)
		return -E2BIG;
	if (scan_grow((void **)&r->dirs, &ctx->dir_cap, r->dir_count, sizeof *r->dirs) < 0)
		return -ENOMEM;
	copy = strdup(name);
	if (copy == NULL)
		return -ENOMEM;
	r->dirs[r->dir_count].name = copy;
	r->dirs[r->dir_count].status = 0;
	return (long)r->dir_count++;
}

static int scan_add_unservable(struct scan_ctx *ctx, const char *name, const char *why,
			       bool dir)
{
	struct scan_result *r = ctx->r;
	struct scan_unservable *u;

	if (r->file_count + r->dir_count + r->unservable_count >= ctx->max_entries)
		return -E2BIG;
	if (scan_grow((void **)&r->unservable, &ctx->unservable_cap, r->unservable_count,
		      sizeof *r->unservable) < 0)
		return -ENOMEM;
	u = &r->unservable[r->unservable_count];
	u->name = strdup(name);
	if (u->name == NULL)
		return -ENOMEM;
	u->why = why;
	u->dir = dir;
	r->unservable_count++;
	return 0;
}

static void scan_id_of(struct scan_id *out, int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0) {
		out->dev = (uint64_t)st.st_dev;
		out->ino = (uint64_t)st.st_ino;
	}
}

static unsigned scan_depth(const char *name)
{
	unsigned d = name[0] != '\0';

	for (; *name != '\0'; name++)
		d += *name == '/';
	return d;
}

/* Lists the directory open as fd (which it takes over) whose name is rel.
 * Returns 0 when every entry was read, the negative errno that stopped this
 * directory's listing otherwise.  -ENOMEM and -E2BIG also stop the whole
 * walk (ctx->r->status). */
static int scan_walk(struct scan_ctx *ctx, int fd, const char *rel)
{
	char child[ASSET_PATH_MAX + 1];
	struct dirent *de;
	DIR *d = fdopendir(fd);
	int rc = 0;

	if (d == NULL) {
		rc = -errno;
		close(fd);
		return rc;
	}
	for (;;) {
		struct stat st;
		unsigned char type;
		const char *why;

		errno = 0;
		de = readdir(d);
		if (de == NULL) {
			rc = errno != 0 ? -errno : 0;
			break;
		}
		if (asset_path_ignored(de->d_name))
			continue;               /* hidden and temporary, "." and ".." too */
		if (asset_path_join(child, sizeof child, rel, de->d_name) < 0)
			continue;               /* a name we could never serve */
		type = de->d_type;
		if (type == DT_UNKNOWN || type == DT_LNK) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;       /* gone meanwhile */
			if (S_ISLNK(st.st_mode)) {
				if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
					continue; /* dangling, or a directory: not followed */
				type = DT_LNK;
			} else {
				type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
			}
		} else if (type == DT_REG) {
			/* Only assets are worth a stat. */
			if (!asset_path_is_asset(child) ||
			    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
		}
		why = asset_path_unservable(de->d_name, strlen(de->d_name));
		if (why != NULL) {
			/* Said only of what would have been served. */
			if (type == DT_DIR ||
			    ((type == DT_REG || type == DT_LNK) && asset_path_is_asset(child)))
				rc = scan_add_unservable(ctx, child, why, type == DT_DIR);
		} else if (type == DT_REG || type == DT_LNK) {
			if (!asset_path_is_asset(child))
				continue;
			rc = scan_add_file(ctx, child, &st);
		} else if (type == DT_DIR) {
			long i = scan_add_dir(ctx, child);
			int sub;

			if (i < 0) {
				rc = (int)i;
			} else if (scan_depth(child) > ctx->max_depth) {
				ctx->r->dirs[i].status = -ELOOP;
			} else {
				sub = openat(dirfd(d), de->d_name,
					     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (sub >= 0)
					scan_id_of(&ctx->r->dirs[i].id, sub);
				sub = sub < 0 ? -errno : scan_walk(ctx, sub, child);
				ctx->r->dirs[i].status = sub;
			}
		}
		if (rc == -ENOMEM || rc == -E2BIG) {
			ctx->r->status = rc;
			break;
		}
		rc = 0;
		if (ctx->r->status < 0)
			break;
	}
	closedir(d);
	return rc;
}

static int scan_cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct scan_file *)a)->name, ((const struct scan_file *)b)->name);
}

static int scan_cmp_dir(const void *a, const void *b)
{
	return strcmp(((const struct scan_dir *)a)->name, ((const struct scan_dir *)b)->name);
}

static int scan_cmp_unservable(const void *a, const void *b)
{
	return strcmp(((const struct scan_unservable *)a)->name,
		      ((const struct scan_unservable *)b)->name);
}

int scan_run(int root_fd, const char *root_real, const char *const *roots, size_t root_count,
	     const struct scan_limits *limits, struct scan_result *out)
{
	struct scan_ctx ctx = { .r = out };
	uint64_t t0 = uv_hrtime();

	memset(out, 0, sizeof *out);
	ctx.max_entries = limits != NULL && limits->max_entries != 0 ? limits->max_entries
								      : SCAN_DEFAULT_MAX_ENTRIES;
	ctx.max_depth = limits != NULL && limits->max_depth != 0 ? limits->max_depth
								  : SCAN_DEFAULT_MAX_DEPTH;
	out->roots = calloc(root_count + 1, sizeof *out->roots);
	out->root_status = calloc(root_count + 1, sizeof *out->root_status);
	out->root_id = calloc(root_count + 1, sizeof *out->root_id);
	if (out->roots == NULL || out->root_status == NULL || out->root_id == NULL) {
		out->status = -ENOMEM;
		return out->status;
	}
	for (size_t i = 0; i < root_count; i++) {
		out->roots[i] = strdup(roots[i]);
		if (out->roots[i] == NULL) {
			out->status = -ENOMEM;
			return out->status;
		}
		out->root_count++;
	}
	for (size_t i = 0; i < root_count && out->status == 0; i++) {
		int fd = asset_path_open(root_fd, root_real, roots[i],
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW);

		if (fd >= 0)
			scan_id_of(&out->root_id[i], fd);
		out->root_status[i] = fd < 0 ? fd : scan_walk(&ctx, fd, roots[i]);
	}
	if (out->files != NULL)
		qsort(out->files, out->file_count, sizeof *out->files, scan_cmp_file);
	if (out->dirs != NULL)
		qsort(out->dirs, out->dir_count, sizeof *out->dirs, scan_cmp_dir);
	if (out->unservable != NULL)
		qsort(out->unservable, out->unservable_count, sizeof *out->unservable,
		      scan_cmp_unservable);
	out->elapsed_ns = uv_hrtime() - t0;
	return out->status;
}

void scan_result_fini(struct scan_result *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->file_count; i++)
		free(r->files[i].name);
	for (size_t i = 0; i < r->dir_count; i++)
		free(r->dirs[i].name);
	for (size_t i = 0; i < r->unservable_count; i++)
		free(r->unservable[i].name);
	for (size_t i = 0; i < r->root_count; i++)
		free(r->roots[i]);
	free(r->files);
	free(r->dirs);
	free(r->unservable);
	free(r->roots);
	free(r->root_status);
	free(r->root_id);
	memset(r, 0, sizeof *r);
}

const struct scan_file *scan_find_file(const struct scan_result *r, const char *name)
{
	struct scan_file key = { .name = (char *)name };

	if (r->file_count == 0)
		return NULL;
	return bsearch(&key, r->files, r->file_count, sizeof *r->files, scan_cmp_file);
}

const struct scan_dir *scan_find_dir(const struct scan_result *r, const char *name)
{
	struct scan_dir key = { .name = (char *)name };

	if (r->dir_count == 0)
		return NULL;
	return bsearch(&key, r->dirs, r->dir_count, sizeof *r->dirs, scan_cmp_dir);
}

const struct scan_unservable *scan_find_unservable(const struct scan_result *r, const char *name)
{
	struct scan_unservable key = { .name = (char *)name };

	if (r->unservable_count == 0)
		return NULL;
	return bsearch(&key, r->unservable, r->unservable_count, sizeof *r->unservable,
		       scan_cmp_unservable);
}

static void scan_req_free(struct scan_req *req)
{
	for (size_t i = 0; i < req->root_count; i++)
		free(req->roots[i]);
	free(req->roots);
	scan_result_fini(&req->result);
	free(req);
}

static void scan_work(uv_work_t *w)
{
	struct scan_req *req = w->data;

	scan_run(req->root_fd, req->root_real, (const char *const *)req->roots, req->root_count,
		 &req->limits, &req->result);
}

static void scan_after_work(uv_work_t *w, int status)
{
	struct scan_req *req = w->data;

	if (status == UV_ECANCELED) {
		scan_result_fini(&req->result);
		req->result.status = -ECANCELED;
	}
	req->cb(req, &req->result, req->data);
	scan_req_free(req);
}

int scan_start(uv_loop_t *loop, int root_fd, const char *root_real, const char *const *roots,
	       size_t root_count, const struct scan_limits *limits, scan_done_cb cb, void *data,
	       struct scan_req **out)
{
	struct scan_req *req = calloc(1, sizeof *req);
	int rc;

	if (req == NULL)
		return -ENOMEM;
	req->roots = calloc(root_count + 1, sizeof *req->roots);
	if (req->roots == NULL) {
		free(req);
		return -ENOMEM;
	}
	for (; req->root_count < root_count; req->root_count++) {
		req->roots[req->root_count] = strdup(roots[req->root_count]);
		if (req->roots[req->root_count] == NULL) {
			scan_req_free(req);
			return -ENOMEM;
		}
	}
	req->root_fd = root_fd;
	req->root_real = root_real;
	if (limits != NULL)
		req->limits = *limits;
	req->cb = cb;
	req->data = data;
	req->work.data = req;
	rc = uv_queue_work(loop, &req->work, scan_work, scan_after_work);
	if (rc < 0) {
		scan_req_free(req);
		return rc;
	}
	if (out != NULL)
		*out = req;
	return 0;
}

int scan_cancel(struct scan_req *req)
{
	return uv_cancel((uv_req_t *)&req->work);
}
