#!/bin/sh
# `pip install client/python` into a fresh virtualenv (with the system's
# site-packages, where Debian's python3-msgpack and python3-numpy are),
# offline: the package's own build backend needs nothing downloaded.  The
# installed package, not the tree's, then runs docs/clients.md's example as
# printed against the real daemon, and pip uninstalls it cleanly.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "SKIP: $PY is not installed"; exit 77; }
"$PY" -c 'import msgpack, numpy' 2>/dev/null ||
	{ echo "SKIP: python3-msgpack or python3-numpy is not installed (make deps installs them)"; exit 77; }
"$PY" -c 'import ensurepip, venv' 2>/dev/null ||
	{ echo "SKIP: python3-venv is not installed"; exit 77; }
v=$(cat "$SRC/VERSION")
export PIP_CACHE_DIR="$TMP/pip-cache" PIP_DISABLE_PIP_VERSION_CHECK=1
unset PYTHONPATH

expect_status 0 "$PY" -m venv --system-site-packages "$TMP/venv"
# From a copy: pip must not need to write into the tree (and does not).
cp -r "$SRC/client/python" "$TMP/src"
touch "$TMP/copied"
sleep 1
expect_status 0 "$TMP/venv/bin/pip" install "$TMP/src"
expect_match "Successfully installed animd-$v" "$TMP/out"
cd /
expect_status 0 "$TMP/venv/bin/python" -c 'import animd; print(animd.__file__, animd.__version__)'
expect_match "^$TMP/venv/lib/python3[.0-9]*/site-packages/animd/__init__\\.py $v\$" "$TMP/out"
expect_status 0 "$TMP/venv/bin/pip" show -f animd
expect_match "^Version: $v\$" "$TMP/out"
expect_match "^Requires: msgpack, numpy\$" "$TMP/out"
expect_match "animd/stream\\.py\$" "$TMP/out"
expect_match "animd/draw\\.py\$" "$TMP/out"
# PEP 561: the annotations are for type checkers to use.
expect_match "animd/py\\.typed\$" "$TMP/out"
# The console entry point, beside python3 -m animd.
[ -x "$TMP/venv/bin/animd-py" ] && ok || bad "pip did not install the animd-py command"
[ -z "$(find "$TMP/src" -newer "$TMP/copied" ! -name '*.pyc' ! -type d)" ] && ok ||
	{ bad "pip wrote into the source tree:"; find "$TMP/src" -newer "$TMP/copied"; }

# docs/clients.md's example, as printed, with the installed package.
awk '/^## Python/ { s = 1 } s && /^```python$/ { p = 1; next } p && /^```$/ { exit } p' \
	"$SRC/docs/clients.md" >"$TMP/example.py"
[ "$(wc -l <"$TMP/example.py")" -eq 10 ] && ok || bad "docs/clients.md's example is not ten lines"
mkdir -p "$TMP/run/build" "$TMP/assets"
"$BUILD/gen/gen_demo" "$TMP/assets" >/dev/null || { echo "gen_demo failed"; exit 1; }
if start_daemon "$TMP/log" "$ANIMD" serve --assets "$TMP/assets" --socket "$TMP/run/build/animd.sock"; then
	ok
	cd "$TMP/run"
	expect_status 0 env -u ANIMD_SOCKET "$TMP/venv/bin/python" "$TMP/example.py"
	expect_match "^\\(10, 3, 4\\) \\['origin', 'pelvis', 'spine'\\]\$" "$TMP/out"
	expect_match "^\\{'count': 6, " "$TMP/out"
	expect_status 0 "$TMP/venv/bin/python" -m animd --socket build/animd.sock --json status
	expect_jq '.assets.count == 6' "$TMP/out"
	expect_status 0 "$TMP/venv/bin/animd-py" --socket build/animd.sock list
	expect_match "^walker\\.md5anim +md5anim +1 +ok\$" "$TMP/out"
	cd /
	stop_daemon && ok || bad "animd did not exit cleanly"
else
	bad "animd did not start"; cat "$TMP/log"
fi

expect_status 0 "$TMP/venv/bin/pip" uninstall -y animd
expect_status 1 "$TMP/venv/bin/python" -c 'import animd'
finish
