#!/bin/sh
# One version everywhere: the top-level VERSION file is what animd
# --version, animctl --version, the daemon's hello/status, libanimclient
# (animc_version, and the ANIMC_VERSION_* macros of its header, which
# ANIMC_CHECK_VERSION compares with), the pkg-config file, debian/changelog,
# the manual pages and the Python package say.
. "$(dirname "$0")/lib.sh"

v=$(cat "$SRC/VERSION")
echo "$v" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$' && ok || bad "VERSION is not X.Y.Z: $v"

expect_status 0 "$ANIMD" --version
[ "$(cat "$TMP/out")" = "animd $v" ] && ok || bad "animd --version: $(cat "$TMP/out")"
expect_status 0 "$BUILD/animctl" --version
[ "$(cat "$TMP/out")" = "animctl $v (protocol 1)" ] && ok || bad "animctl --version: $(cat "$TMP/out")"

h=$(sed -n 's/^#define ANIMC_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$SRC/client/animclient.h" |
	paste -sd.)
[ "$h" = "$v" ] && ok || bad "client/animclient.h says $h"
expect_status 0 pkg-config --modversion "$BUILD/animclient.pc"
[ "$(cat "$TMP/out")" = "$v" ] && ok || bad "animclient.pc says $(cat "$TMP/out")"
if [ -f "$SRC/debian/changelog" ]; then
	c=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$SRC/debian/changelog")
	[ "$c" = "$v" ] && ok || bad "debian/changelog's first entry is $c"
fi

# The Python package: its pyproject.toml and animd.__version__.
p=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$SRC/client/python/pyproject.toml")
[ "$p" = "$v" ] && ok || bad "client/python/pyproject.toml says $p"
p=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$SRC/client/python/animd/__init__.py")
[ "$p" = "$v" ] && ok || bad "client/python/animd/__init__.py says $p"

# The shared library itself, through a program linked against it.
cat >"$TMP/v.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "client/animclient.h"
int main(void)
{
	char hdr[32];

	snprintf(hdr, sizeof hdr, "%d.%d.%d", ANIMC_VERSION_MAJOR, ANIMC_VERSION_MINOR,
		 ANIMC_VERSION_PATCH);
	printf("%s %s\n", animc_version(), hdr);
	return strcmp(animc_version(), hdr) != 0;
}
C
if cc -I"$SRC" -o "$TMP/v" "$TMP/v.c" -L"$BUILD" -l:libanimclient.so.1 >"$TMP/cc.log" 2>&1; then
	ok
	expect_status 0 env LD_LIBRARY_PATH="$BUILD" "$TMP/v"
	[ "$(cat "$TMP/out")" = "$v $v" ] && ok || bad "libanimclient.so.1 says $(cat "$TMP/out")"
else
	bad "cannot build against libanimclient.so.1"; cat "$TMP/cc.log"
fi

# ANIMC_CHECK_VERSION(major, minor): true from the header's own version
# down, false above it, usable in #if.
cat >"$TMP/check.c" <<'C'
#include "client/animclient.h"
#if !ANIMC_CHECK_VERSION(ANIMC_VERSION_MAJOR, ANIMC_VERSION_MINOR) || !ANIMC_CHECK_VERSION(1, 0) || \
	!ANIMC_CHECK_VERSION(ANIMC_VERSION_MAJOR - 1, ANIMC_VERSION_MINOR + 9) || \
	(ANIMC_VERSION_MINOR > 0 && !ANIMC_CHECK_VERSION(ANIMC_VERSION_MAJOR, ANIMC_VERSION_MINOR - 1))
#error "ANIMC_CHECK_VERSION is false for a version the header has reached"
#endif
#if ANIMC_CHECK_VERSION(ANIMC_VERSION_MAJOR, ANIMC_VERSION_MINOR + 1) || \
	ANIMC_CHECK_VERSION(ANIMC_VERSION_MAJOR + 1, 0)
#error "ANIMC_CHECK_VERSION is true for a later version"
#endif
int main(void) { return !ANIMC_CHECK_VERSION(1, 1); }
C
if cc -I"$SRC" -o "$TMP/check" "$TMP/check.c" >"$TMP/cc.log" 2>&1; then
	ok
	expect_status 0 "$TMP/check"
else
	bad "ANIMC_CHECK_VERSION:"; cat "$TMP/cc.log"
fi

# The manual pages name the same version in their title lines (link pages,
# a .so line alone, have none).
for page in "$SRC"/man/*.[1-8]; do
	[ -f "$page" ] || continue
	grep -q '^\.so' "$page" && continue
	grep -q "^\.TH .* \"animd $v\" " "$page" && ok || bad "$(basename "$page") does not say animd $v"
done

# What the running daemon tells its clients.
mkdir "$TMP/assets"
if start_daemon "$TMP/log" "$ANIMD" serve --assets "$TMP/assets" --socket "$TMP/s.sock"; then
	ok
	expect_status 0 "$BUILD/animctl" --socket "$TMP/s.sock" --json status
	expect_jq ".server == \"animd $v\"" "$TMP/out"
	expect_match "animd $v starting" "$TMP/log"
	stop_daemon && ok || bad "animd did not exit cleanly"
else
	bad "animd did not start"; cat "$TMP/log"
fi
finish
