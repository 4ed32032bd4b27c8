/*
 * soak_rewriter.c - the asset rewriter process: every 200 ms it saves one
 * asset, alternating a good version (valid, a little different each time)
 * and a broken one, in each of the ways editors save: in place, in place
 * but slowly, temp file and rename, delete and recreate at once, and
 * delete with a pause long enough for the daemon to see the file gone.
 * Every few seconds a subdirectory holding an asset appears or vanishes;
 * as often, a file whose name is not text (not UTF-8, or with a control
 * byte) appears, is renamed to a good name and back, and goes (the daemon
 * must never serve or send such a name); and the folder SOAK_SWAP_DIR is
 * replaced under its name, by a rename over it or by delete and recreate
 * (its new contents must be watched at once).  At the end every asset
 * gets a good version again, the odd names are gone and the swapped
 * folder holds one good asset.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/soak/soak.h"
#include "tests/soak/soak_assets.h"

#define REWRITE_PERIOD_MS 200
#define REWRITE_TOGGLE_MS 5000
#define REWRITE_QUIET_MS 150    /* the daemon's reload.quiet_ms (soak.c sets it) */

static int rewriter_write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Create (or truncate) path and write b, in `pieces` parts with a pause
 * shorter than the quiet period between them. */
static int rewriter_write_file(const char *path, const struct soak_blob *b, int pieces,
			       struct soak_rand *r)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t done = 0;
	int rc = 0;

	if (fd < 0)
		return -errno;
	for (int k = 1; rc == 0 && k <= pieces; k++) {
		size_t upto = k == pieces ? b->len : b->len * (size_t)k / (size_t)pieces;

		rc = rewriter_write_all(fd, b->data + done, upto - done);
		done = upto;
		if (k < pieces)
			soak_clock_sleep_ms(10 + (int)soak_rand_below(r, REWRITE_QUIET_MS / 3));
	}
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

static int rewriter_save(const char *path, const struct soak_blob *b, enum soak_save how,
			 struct soak_rand *r)
{
	char tmp[4200], dir[4096];
	int rc;

	switch (how) {
	case SOAK_SAVE_IN_PLACE:
		return rewriter_write_file(path, b, 1, r);
	case SOAK_SAVE_SLOW:
		return rewriter_write_file(path, b, 2 + (int)soak_rand_below(r, 3), r);
	case SOAK_SAVE_RENAME: {
		const char *base = strrchr(path, '/') + 1;

		/* A hidden name in the same directory, as editors use: the
		 * daemon ignores it until the rename. */
		snprintf(dir, sizeof dir, "%.*s", (int)(base - path), path);
		snprintf(tmp, sizeof tmp, "%s.%s.soak-tmp", dir, base);
		rc = rewriter_write_file(tmp, b, 1, r);
		if (rc == 0 && rename(tmp, path) < 0)
			rc = -errno;
		return rc;
	}
	case SOAK_SAVE_RECREATE:
		if (unlink(path) < 0 && errno != ENOENT)
			return -errno;
		return rewriter_write_file(path, b, 1, r);
	case SOAK_SAVE_REMOVE:
		if (unlink(path) < 0 && errno != ENOENT)
			return -errno;
		soak_clock_sleep_ms(REWRITE_QUIET_MS + 100 + (int)soak_rand_below(r, 150));
		return rewriter_write_file(path, b, 1, r);
	case SOAK_SAVE_COUNT:
		break;
	}
	return -EINVAL;
}

static enum soak_save rewriter_pick_save(struct soak_rand *r)
{
	uint32_t x = soak_rand_below(r, 100);

	return x < 30 ? SOAK_SAVE_IN_PLACE
	       : x < 40 ? SOAK_SAVE_SLOW
	       : x < 70 ? SOAK_SAVE_RENAME
	       : x < 90 ? SOAK_SAVE_RECREATE
			: SOAK_SAVE_REMOVE;
}

/* The subdirectory asset appears (directories and file) or goes (file,
 * then both directories), so the watcher adds and drops watches. */
static int rewriter_toggle(const char *root, const struct soak_variants *v, struct soak_rand *r)
{
	char path[4096], d1[4096], d2[4096];
	struct stat sb;

	snprintf(path, sizeof path, "%s/%s", root, soak_assets_get(SOAK_ASSET_TOGGLED)->name);
	/* path is ROOT/sub/deep/extra...: d2 is ROOT/sub/deep, d1 ROOT/sub. */
	snprintf(d2, sizeof d2, "%s", path);
	*strrchr(d2, '/') = '\0';
	snprintf(d1, sizeof d1, "%s", d2);
	*strrchr(d1, '/') = '\0';
	if (stat(path, &sb) == 0) {
		if (unlink(path) < 0 || rmdir(d2) < 0 || rmdir(d1) < 0)
			return -errno;
		return 0;
	}
	if ((mkdir(d1, 0755) < 0 && errno != EEXIST) || (mkdir(d2, 0755) < 0 && errno != EEXIST))
		return -errno;
	return rewriter_write_file(path, &v[SOAK_ASSET_TOGGLED].good[0], 1, r);
}

/* The names no daemon may serve (docs: asset names are text), and the good
 * name the first is renamed to and back. */
#define NAMES_NOT_UTF8 "soak-bad\xff\xfe.md5camera"
#define NAMES_CONTROL "soak-ctl\x1b[1m.md5camera"
#define NAMES_GOOD "soak-renamed.md5camera"

static int rewriter_path_rename(const char *root, const char *from, const char *to)
{
	char a[4096], b[4096];

	snprintf(a, sizeof a, "%s/%s", root, from);
	snprintf(b, sizeof b, "%s/%s", root, to);
	return rename(a, b) < 0 ? -errno : 0;
}

static int rewriter_path_unlink(const char *root, const char *name)
{
	char p[4096];

	snprintf(p, sizeof p, "%s/%s", root, name);
	return unlink(p) < 0 && errno != ENOENT ? -errno : 0;
}

/* One step of the odd names' cycle: create both, rename the first to a
 * good name, rename it back, remove both. */
static int rewriter_names(const char *root, const struct soak_variants *v, unsigned step,
			  struct soak_rand *r)
{
	const struct soak_blob *b = &v[SOAK_ASSET_TOGGLED].good[0];
	char p[4096];
	int rc;

	switch (step % 4) {
	case 0:
		snprintf(p, sizeof p, "%s/%s", root, NAMES_NOT_UTF8);
		rc = rewriter_write_file(p, b, 1, r);
		if (rc == 0) {
			snprintf(p, sizeof p, "%s/%s", root, NAMES_CONTROL);
			rc = rewriter_write_file(p, b, 1, r);
		}
		return rc;
	case 1:
		return rewriter_path_rename(root, NAMES_NOT_UTF8, NAMES_GOOD);
	case 2:
		return rewriter_path_rename(root, NAMES_GOOD, NAMES_NOT_UTF8);
	default:
		rc = rewriter_path_unlink(root, NAMES_NOT_UTF8);
		return rc == 0 ? rewriter_path_unlink(root, NAMES_CONTROL) : rc;
	}
}

static int rewriter_rm_tree(const char *dir)
{
	char p[4200];

	snprintf(p, sizeof p, "%s/" SOAK_SWAP_FILE, dir);
	if (unlink(p) < 0 && errno != ENOENT)
		return -errno;
	return rmdir(dir) < 0 && errno != ENOENT ? -errno : 0;
}

/* SOAK_SWAP_DIR replaced under its name: a new folder renamed over it
 * (the old one moved aside first, as a deploy does), or removed and made
 * again (as `git checkout` may), each with a good asset in it. */
int soak_rewriter_swap(const char *root, const struct soak_blob *b, int by_rename,
		       struct soak_rand *r)
{
	char dir[4096], aside[4096], fresh[4096], p[4200];
	int rc;

	snprintf(dir, sizeof dir, "%s/" SOAK_SWAP_DIR, root);
	snprintf(aside, sizeof aside, "%s/" SOAK_SWAP_DIR ".old", root);
	snprintf(fresh, sizeof fresh, "%s/" SOAK_SWAP_DIR ".new", root);
	if (by_rename) {
		if (mkdir(fresh, 0755) < 0 && errno != EEXIST)
			return -errno;
		snprintf(p, sizeof p, "%s/" SOAK_SWAP_FILE, fresh);
		rc = rewriter_write_file(p, b, 1, r);
		if (rc == 0 && rename(dir, aside) < 0 && errno != ENOENT)
			rc = -errno;
		if (rc == 0 && rename(fresh, dir) < 0)
			rc = -errno;
		return rc == 0 ? rewriter_rm_tree(aside) : rc;
	}
	rc = rewriter_rm_tree(dir);
	if (rc == 0 && mkdir(dir, 0755) < 0)
		rc = -errno;
	snprintf(p, sizeof p, "%s/" SOAK_SWAP_FILE, dir);
	return rc == 0 ? rewriter_write_file(p, b, 1, r) : rc;
}

int soak_rewriter_main(const struct soak_config *cfg, struct soak_stats *st, uint64_t seed,
		       const struct soak_variants *v)
{
	int64_t next_odd = soak_clock_now_ns() + REWRITE_TOGGLE_MS / 2 * 1000000LL;
	unsigned odd_steps = 0;
	int64_t next = soak_clock_now_ns(), next_toggle = next + REWRITE_TOGGLE_MS * 1000000LL;
	unsigned revision = 0;
	struct soak_rand r;
	int good = 1;

	soak_rand_seed(&r, seed);
	while (soak_clock_now_ns() < cfg->deadline_ns) {
		/* The toggled asset is left to rewriter_toggle. */
		unsigned i = soak_rand_below(&r, SOAK_ASSET_TOGGLED);
		enum soak_save how = rewriter_pick_save(&r);
		struct soak_blob b = { 0 };
		const char *what = "good";
		char path[4096];
		int rc;

		snprintf(path, sizeof path, "%s/%s", cfg->assets, soak_assets_get(i)->name);
		rc = good ? soak_assets_good(&r, v, i, ++revision, &b)
			  : soak_assets_broken(&r, v, i, &b, &what);
		if (rc == 0)
			rc = rewriter_save(path, &b, how, &r);
		free(b.data);
		if (rc < 0)
			soak_stats_fail(st, "rewriter: saving %s (%s, %s): %s", path, what,
					soak_stats_save_name(how), strerror(-rc));
		st->saves[how]++;
		if (good)
			st->saves_good++;
		else
			st->saves_broken++;
		good = !good;
		if (soak_clock_now_ns() >= next_toggle) {
			rc = rewriter_toggle(cfg->assets, v, &r);
			if (rc < 0)
				soak_stats_fail(st, "rewriter: toggling the subdirectory: %s",
						strerror(-rc));
			st->dir_toggles++;
			next_toggle += REWRITE_TOGGLE_MS * 1000000LL;
		}
		if (soak_clock_now_ns() >= next_odd) {
			rc = rewriter_names(cfg->assets, v, odd_steps, &r);
			if (rc < 0)
				soak_stats_fail(st, "rewriter: odd names, step %u: %s", odd_steps % 4,
						strerror(-rc));
			rc = soak_rewriter_swap(cfg->assets, &v[SOAK_ASSET_TOGGLED].good[0],
						odd_steps % 2 == 0, &r);
			if (rc < 0)
				soak_stats_fail(st, "rewriter: swapping %s: %s", SOAK_SWAP_DIR,
						strerror(-rc));
			st->odd_names++;
			st->dir_swaps++;
			odd_steps++;
			next_odd += REWRITE_TOGGLE_MS / 2 * 1000000LL;
		}
		next += REWRITE_PERIOD_MS * 1000000LL;
		while (soak_clock_now_ns() < next)
			soak_clock_sleep_ms((int)((next - soak_clock_now_ns()) / 1000000) + 1);
	}
	/* The odd names gone (the good one too). */
	for (unsigned k = odd_steps % 4; k != 0 && k < 4; k++)
		rewriter_names(cfg->assets, v, k, &r);
	/* Leave every asset good, so that the end of the run sees a sane tree. */
	for (unsigned i = 0; i < SOAK_ASSET_TOGGLED; i++) {
		char path[4096];
		struct soak_blob b = { 0 };
		int rc;

		snprintf(path, sizeof path, "%s/%s", cfg->assets, soak_assets_get(i)->name);
		rc = soak_assets_good(NULL, v, i, ++revision, &b);
		if (rc == 0)
			rc = rewriter_save(path, &b, SOAK_SAVE_RENAME, &r);
		free(b.data);
		if (rc < 0)
			soak_stats_fail(st, "rewriter: restoring %s: %s", path, strerror(-rc));
	}
	return st->failures ? 1 : 0;
}
