#!/bin/sh
# `make demo` (what `make run` serves) writes only the demo files that are
# missing: a file someone edited to watch a hot reload survives the next run,
# a deleted one comes back, and nothing else in the folder is touched.
. "$(dirname "$0")/lib.sh"

root=$(cd "$(dirname "$0")/../.." && pwd)
demo=$TMP/demo
rundemo() { make -s --no-print-directory -C "$root" BUILD="$BUILD" DEMO_DIR="$demo" demo; }

expect_status 0 rundemo
for f in walker.md5mesh walker.md5anim idle.md5anim orbit.md5camera crane.x lantern.m2; do
	[ -s "$demo/$f" ] && ok || bad "make demo did not write $f"
done

# An edit, a file of the user's own, and a deleted demo file.
sed 's/^frameRate 24$/frameRate 12/' "$demo/walker.md5anim" >"$TMP/edited" && cp "$TMP/edited" "$demo/walker.md5anim"
grep -q '^frameRate 12$' "$demo/walker.md5anim" && ok || bad "the test's edit did not apply"
echo "mine" >"$demo/notes.txt"
cp "$demo/crane.x" "$TMP/crane.x"
rm "$demo/lantern.m2"

expect_status 0 rundemo
cmp -s "$TMP/edited" "$demo/walker.md5anim" && ok || bad "make demo overwrote the edited walker.md5anim"
[ "$(cat "$demo/notes.txt")" = mine ] && ok || bad "make demo touched a file of the user's"
cmp -s "$TMP/crane.x" "$demo/crane.x" && ok || bad "make demo rewrote crane.x"
[ -s "$demo/lantern.m2" ] && ok || bad "make demo did not bring back the deleted lantern.m2"
# The edited tree still checks (the edit is a valid anim at another rate).
expect_status 0 "$ANIMD" check "$demo"

finish
