/*
 * asset_path.h - asset names: validation, classification, resolution.
 *
 * An asset's name is its path relative to the asset root, components
 * separated by '/', e.g. "chars/walk.md5anim".  Names come
 * from the tree walk, from the directory watcher and from clients; the ones
 * from clients are hostile until asset_path_check and asset_path_resolve
 * have said otherwise (SECURITY.md: paths stay inside the asset root,
 * symlinks included).
 *
 * Everything here is pure string work except asset_path_resolve and
 * asset_path_open, which touch the file system (metadata only).
 */
#ifndef ANIMD_ASSET_PATH_H
#define ANIMD_ASSET_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* Longest asset name accepted, in bytes, without the terminating NUL. */
#define ASSET_PATH_MAX 1024

/* Lexical check of a name of len bytes (it need not be NUL-terminated).
 * Returns 0, or with a one-line reason in err:
 *   -EINVAL        empty, an embedded NUL, an empty component ("a//b",
 *                  a trailing '/') or a "." component;
 *   -EACCES        absolute, or a ".." component (it would leave the root);
 *   -ENAMETOOLONG  longer than ASSET_PATH_MAX. */
int asset_path_check(const char *name, size_t len, char *err, size_t errlen);

/*
 * The naming rule (PROTOCOL.md, "asset name"): a name is served only if it
 * is text a client can take as it is - every name goes out as a msgpack
 * str, into JSON and onto terminals.  Returns NULL for a name of len bytes
 * that may be served, or why it may not, for a log line:
 *   "is not valid UTF-8"     overlong forms, surrogates and code points
 *                            past U+10FFFF included (RFC 3629);
 *   "holds a control character"  U+0000..U+001F, U+007F, U+0080..U+009F.
 * A file whose name (relative to the root) is refused is never indexed,
 * loaded, listed or sent; a directory's refusal covers its whole subtree.
 */
const char *asset_path_unservable(const char *name, size_t len);

/* True for a last component that is never an asset whatever its extension:
 * hidden files (".walk.md5anim.swp", ".#walk.md5anim", ".goutputstream-X"),
 * Emacs auto-saves ("#walk.md5anim#") and backups ("walk.md5anim~").  Editors
 * that save through such a temporary name and rename it over the target are
 * seen when the rename lands on the real name. */
bool asset_path_ignored(const char *base);

/* True if name is one the cache manages: its last component is not ignored
 * and asset_detect() recognises its format. */
bool asset_path_is_asset(const char *name);

/* The last component of a name (the name itself if it has no '/'). */
const char *asset_path_base(const char *name);

/* True if name is dir itself or below it.  The root is dir "". */
bool asset_path_within(const char *name, const char *dir);

/* out = dir "/" name, or name alone when dir is "".  0 or -ENAMETOOLONG. */
int asset_path_join(char *out, size_t size, const char *dir, const char *name);

/* The parent directory of name into out ("" for a top-level name).
 * 0, or -ENAMETOOLONG if it does not fit. */
int asset_path_parent(const char *name, char *out, size_t size);

/* For names from requests: check the name (asset_path_check), then resolve
 * root_real "/" name with realpath(3), symlinks included, and refuse a
 * result outside root_real (which must itself be a realpath).  Returns 0
 * with the resolved absolute path in out, or a negative errno with a reason
 * in err: the asset_path_check errors, -EACCES when the path resolves
 * outside the root, -ENOENT (or another realpath error) when it does not
 * exist, -ENAMETOOLONG when out is too small. */
int asset_path_resolve(const char *root_real, const char *name, size_t len, char *out,
		       size_t size, char *err, size_t errlen);

/* Opens a name relative to the asset root so that the file reached is
 * inside the root whatever symlinks lie on the way: openat2(2) with
 * RESOLVE_BENEATH where the kernel has it, and a realpath check otherwise
 * (or when a symlink is absolute but still points inside the root).
 * root_fd is an O_PATH or O_DIRECTORY descriptor of root_real.  flags are
 * open(2) flags; O_CLOEXEC is added.  Returns a descriptor or a negative
 * errno: -EXDEV when the name leads outside the root (kept apart from
 * -EACCES, which is the file system's own refusal).  Blocking: call it off
 * the loop thread. */
int asset_path_open(int root_fd, const char *root_real, const char *name, int flags);

#endif
