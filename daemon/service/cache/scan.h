/*
 * scan.h - the recursive walk of the asset tree, run on the thread pool.
 *
 * A scan lists, below one or more root directories (names relative to the
 * asset root, "" for the root itself), every directory and every file the
 * cache would manage (asset_path_is_asset), with the identity of each file
 * (size, mtime, inode).  The cache compares that to what it has loaded to
 * find additions, changes and removals that the watcher did not report,
 * and learns which directories to watch.
 *
 * What is skipped: hidden and temporary names (asset_path_ignored), files
 * that are not regular, symlinks to directories (never followed: no cycles
 * and no way out of the root), directories deeper than the depth limit.
 * Names the cache must not serve (asset_path_unservable) are listed apart,
 * the directories among them not walked, so that the cache can say why.
 * Symlinks to regular files are listed with their target's identity; the
 * loader later refuses one that leads outside the root.
 *
 * The walk only reads metadata; it never parses.  scan_run blocks and is
 * meant for a worker thread; scan_start runs it through uv_queue_work and
 * hands the result back on the loop thread.
 */
#ifndef ANIMD_SCAN_H
#define ANIMD_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <uv.h>

/* What identifies one version of a file without reading it. */
struct scan_stat {
	uint64_t size;
	int64_t mtime_ns;
	uint64_t ino;
	uint64_t dev;
};

struct scan_file {
	char *name;                     /* relative to the asset root */
	struct scan_stat st;
};

/* Which directory a name led to: a watch of the name is right only while
 * it is on this one (the name may be given to another directory). */
struct scan_id {
	uint64_t dev;
	uint64_t ino;
};

struct scan_dir {
	char *name;                     /* relative to the asset root */
	int status;                     /* 0: listed in full; else the negative
					   errno that stopped it (unknown content) */
	struct scan_id id;              /* zero when it could not be opened */
};

/* A name that is not served (asset_path_unservable): a file that would be
 * an asset, or a directory, whose subtree is then not walked. */
struct scan_unservable {
	char *name;                     /* relative to the asset root, raw bytes */
	const char *why;                /* asset_path_unservable's reason (static) */
	bool dir;
};

struct scan_result {
	/* 0, or negative errno (-ENOMEM, -E2BIG past the entry limit,
	 * -ECANCELED): the listing is incomplete in unknown places, so absence
	 * from it proves nothing. */
	int status;
	size_t root_count;
	char **roots;                   /* as requested */
	int *root_status;               /* per root: 0 read in full; -ENOENT,
					   -ENOTDIR or -ELOOP: not a directory
					   (any more); other: unreadable */
	struct scan_id *root_id;        /* per root read: the directory walked */
	size_t file_count;
	struct scan_file *files;        /* sorted by name */
	size_t dir_count;
	struct scan_dir *dirs;          /* below the roots, sorted by name */
	size_t unservable_count;
	struct scan_unservable *unservable;     /* sorted by name */
	uint64_t elapsed_ns;
};

struct scan_limits {
	size_t max_entries;             /* files + directories + unservable names;
					   0: 1,000,000 */
	unsigned max_depth;             /* directory levels below the asset root; 0: 32 */
};

/* True if a and b describe the same version of a file. */
bool scan_stat_equal(const struct scan_stat *a, const struct scan_stat *b);
void scan_stat_from(struct scan_stat *out, const struct stat *st);

/* Walks the roots (names relative to root_real, each already validated)
 * below the asset root open as root_fd.  Always fills *out (free it with
 * scan_result_fini), even when it returns a negative errno (out->status).
 * Blocking. */
int scan_run(int root_fd, const char *root_real, const char *const *roots, size_t root_count,
	     const struct scan_limits *limits, struct scan_result *out);
void scan_result_fini(struct scan_result *r);

/* Lookups in a result by exact name; NULL if absent. */
const struct scan_file *scan_find_file(const struct scan_result *r, const char *name);
const struct scan_dir *scan_find_dir(const struct scan_result *r, const char *name);
const struct scan_unservable *scan_find_unservable(const struct scan_result *r, const char *name);

struct scan_req;

/* Called on the loop thread when a scan started by scan_start completes or
 * is cancelled (r->status == -ECANCELED).  r is valid during the call
 * only; the request is freed when the callback returns. */
typedef void (*scan_done_cb)(struct scan_req *req, const struct scan_result *r, void *data);

/* Queues a scan on the loop's thread pool.  The roots are copied, root_fd
 * and root_real must stay valid until the callback.  0 or negative errno
 * (then the callback is never called). */
int scan_start(uv_loop_t *loop, int root_fd, const char *root_real, const char *const *roots,
	       size_t root_count, const struct scan_limits *limits, scan_done_cb cb, void *data,
	       struct scan_req **out);

/* Cancels a scan that has not started running: 0 (the callback still
 * comes, with -ECANCELED) or a negative errno (it is running: it will
 * complete normally). */
int scan_cancel(struct scan_req *req);

#endif
