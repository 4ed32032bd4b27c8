#!/bin/sh
# The examples of examples/, as a reader runs them: the C ones built by
# their own Makefile through pkg-config against libanimclient installed
# into a scratch DESTDIR (make install, PREFIX=/usr) with every warning an
# error, the Python ones with client/python on PYTHONPATH (Debian's
# python3, as the package's tests; that part skips without it or its
# msgpack and numpy); all run against a real daemon on the demo assets.
# play_and_read prints five poses in order with the walker's root moving
# forward; sample_pose prints what `animd sample` computes offline, and the
# C and Python versions of each print the same kind of lines.
. "$(dirname "$0")/lib.sh"
for tool in pkg-config cc make; do
	command -v $tool >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
PY=/usr/bin/python3
dest=$TMP/dest

env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$SRC" BUILD="$BUILD" install DESTDIR="$dest" \
	PREFIX=/usr >"$TMP/install.log" 2>&1 || { echo "not ok: make install"; cat "$TMP/install.log"; exit 1; }
cp -R "$SRC/examples/c" "$TMP/c"
rm -f "$TMP/c/play_and_read" "$TMP/c/sample_pose"
expect_status 0 env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS PKG_CONFIG_PATH="$dest/usr/lib/pkgconfig" \
	PKG_CONFIG_SYSROOT_DIR="$dest" make -C "$TMP/c" CFLAGS="-O2 -std=c11 -pedantic -Wall -Wextra -Werror"
for p in play_and_read sample_pose; do
	[ -x "$TMP/c/$p" ] && ok || bad "examples/c/Makefile did not build $p"
done
LD_LIBRARY_PATH=$dest/usr/lib ldd "$TMP/c/sample_pose" >"$TMP/ldd" 2>&1
expect_match "libanimclient\.so\.1 => $dest/usr/lib/libanimclient\.so\.1" "$TMP/ldd"

mkdir "$TMP/assets"
"$BUILD/gen/gen_demo" "$TMP/assets" >/dev/null || { echo "gen_demo failed"; exit 1; }
sock=$TMP/s.sock
trap 'kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
start_daemon "$TMP/log" "$ANIMD" serve --assets "$TMP/assets" --socket "$sock" ||
	{ echo "not ok: the daemon did not start"; cat "$TMP/log"; exit 1; }

# poses WHO FILE : five lines "pose N  t T s  joint 0 at X Y Z", N from 0 to
# 4, the clip time and the root's X (the walker walks along +X) rising.
poses() {
	if [ "$(grep -cE '^pose [0-4]  t [0-9]+\.[0-9]{3} s  joint 0 at -?[0-9]+\.[0-9]{2} -?[0-9]+\.[0-9]{2} -?[0-9]+\.[0-9]{2}$' \
		"$2")" -eq 5 ] && [ "$(wc -l <"$2")" -eq 5 ]; then ok; else
		bad "$1 did not print five poses:"; sed 's/^/    /' "$2"
	fi
	awk '$2 != NR - 1 || (NR > 1 && ($4 < t || $9 < x)) { bad = 1 } { t = $4; x = $9 }
		END { exit bad || $4 <= 0 || $9 <= 0 }' "$2" && ok ||
		{ bad "$1: the poses are not in order, or the walker does not move:"; sed 's/^/    /' "$2"; }
}

expect_status 0 env LD_LIBRARY_PATH="$dest/usr/lib" "$TMP/c/play_and_read" "$sock"
cp "$TMP/out" "$TMP/c_play"
poses "examples/c/play_and_read" "$TMP/c_play"
# $ANIMD_SOCKET when no socket is given.
expect_status 0 env LD_LIBRARY_PATH="$dest/usr/lib" ANIMD_SOCKET="$sock" "$TMP/c/sample_pose"
cp "$TMP/out" "$TMP/c_sample"
# What animd sample computes, printed as the example prints it.
"$ANIMD" sample "$TMP/assets/walker.md5anim" --mesh "$TMP/assets/walker.md5mesh" --time 0.5 \
	--space model --json >"$TMP/sample.json" || bad "animd sample failed"
{
	echo "walker.md5anim at 0.50 s (clip time 0.50 s)"
	jq -r '.joints[] | [.name, .parent, .m[3], .m[7], .m[11]] | @tsv' "$TMP/sample.json" |
		awk -F'\t' '{ printf "%-8s parent %2d  at %7.2f %7.2f %7.2f\n", $1, $2, $3, $4, $5 }'
} >"$TMP/want_sample"
[ "$(wc -l <"$TMP/want_sample")" -gt 5 ] && ok || bad "animd sample --json gave no joints"
cmp -s "$TMP/want_sample" "$TMP/c_sample" && ok ||
	{ bad "examples/c/sample_pose (>) differs from animd sample (<):"; diff "$TMP/want_sample" "$TMP/c_sample"; }
# A daemon that is not there: exit 1 and why.
expect_status 1 env LD_LIBRARY_PATH="$dest/usr/lib" "$TMP/c/play_and_read" "$TMP/nothing.sock"
expect_match "^play_and_read: cannot connect to $TMP/nothing\.sock" "$TMP/err"
expect_status 1 env LD_LIBRARY_PATH="$dest/usr/lib" "$TMP/c/sample_pose" "$TMP/nothing.sock"
expect_match "^sample_pose: cannot connect to $TMP/nothing\.sock" "$TMP/err"

if [ -x "$PY" ] && "$PY" -c 'import msgpack, numpy' 2>/dev/null; then
	expect_status 0 env PYTHONPATH="$SRC/client/python" "$PY" "$SRC/examples/python/play_and_read.py" "$sock"
	cp "$TMP/out" "$TMP/py_play"
	poses "examples/python/play_and_read.py" "$TMP/py_play"
	expect_status 0 env PYTHONPATH="$SRC/client/python" ANIMD_SOCKET="$sock" "$PY" \
		"$SRC/examples/python/sample_pose.py"
	cmp -s "$TMP/want_sample" "$TMP/out" && ok ||
		{ bad "examples/python/sample_pose.py (>) differs from animd sample (<):"; diff "$TMP/want_sample" "$TMP/out"; }
else
	echo "skip part: $PY with msgpack and numpy is not installed: the Python examples not run"
fi

kill -TERM "$DAEMON_PID" && wait "$DAEMON_PID" && ok || bad "animd did not exit cleanly"
finish
