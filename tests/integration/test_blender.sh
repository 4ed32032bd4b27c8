#!/bin/sh
# The Blender add-on (client/blender/animd_link) in Debian's Blender,
# headless, against the real daemon (blender_link.py says what it checks),
# and without what it needs (blender_deps.py).
# Blender is optional for `make deps` (a large package): without it this test
# skips; .ci/run installs it.  BLENDER names another binary.
BLENDER=${BLENDER:-blender}
if ! command -v "$BLENDER" >/dev/null 2>&1; then
	echo "SKIP: $BLENDER is not installed (apt-get install --no-install-recommends blender)"
	exit 77
fi
. "$(dirname "$0")/lib.sh"
dir=$(cd "$(dirname "$0")" && pwd)
# The add-on is installed into a user scripts folder of the test's own, and
# Blender's configuration kept there too, never in $HOME.
mkdir -p "$TMP/scripts" "$TMP/config"
BLENDER_USER_SCRIPTS=$TMP/scripts BLENDER_USER_CONFIG=$TMP/config \
	"$BLENDER" -b --factory-startup --python-exit-code 1 --python "$dir/blender_link.py" \
	>"$TMP/log" 2>&1
rc=$?
grep -E '^(ok|not ok|skip part:|  )' "$TMP/log" || true
if [ "$rc" -ne 0 ]; then
	bad "blender exited $rc"
	grep -v -E '^(ok|not ok|skip part:|  )' "$TMP/log" | tail -40
else
	ok
fi
# What a Blender whose Python lacks msgpack or the package is told.
"$BLENDER" -b --factory-startup --python-exit-code 1 --python "$dir/blender_deps.py" \
	>"$TMP/deps.log" 2>&1
rc=$?
grep -E '^(ok|not ok)' "$TMP/deps.log" || true
if [ "$rc" -ne 0 ]; then bad "blender_deps.py: blender exited $rc"; tail -20 "$TMP/deps.log"; else ok; fi
finish
