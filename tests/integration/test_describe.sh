#!/bin/sh
# One vocabulary: `animd inspect FILE` (offline) and `animctl info ASSET`
# (the daemon's assets.info) print the same lines for the same demo asset
# wherever both say a thing (format, axes, skeleton, joints and their
# parents, clips and their durations, event moments, global sequences,
# attachment points, events, meshes, cameras, notes): proto/describe.h
# writes them for both.  `animd sample` and `animctl sample` print the same
# header, and so does the Python package (python3 -m animd info / sample)
# when Debian's python3 has msgpack and numpy.
. "$(dirname "$0")/lib.sh"
CTL=$BUILD/animctl

mkdir -p "$TMP/demo"
"$BUILD/gen/gen_demo" "$TMP/demo" >/dev/null || bad "gen_demo failed"
: >"$TMP/empty.ini"
trap 'kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
start_daemon "$TMP/log" "$ANIMD" serve -c "$TMP/empty.ini" --assets "$TMP/demo" \
	--socket "$TMP/s.sock" --log-level info || bad "the daemon did not start: $(cat "$TMP/log")"

# The lines both tools print: a label of the shared ones, a joint, a
# clip's events.  (animd inspect's memory, companions and per-clip bytes,
# animctl info's generation, are each one's own.)
shared() {
	grep -E '^(format|axes|skeleton|clip|global|attachment|event|mesh|camera|note) |^  +[0-9]+  |^ {12}events:' "$1"
}

PY=/usr/bin/python3
py_ok=no
if [ -x "$PY" ] && "$PY" -c 'import msgpack, numpy' 2>/dev/null; then py_ok=yes; fi

for asset in walker.md5anim walker.md5mesh idle.md5anim orbit.md5camera crane.x lantern.m2; do
	# inspect names the file as given: run it where the name is the asset's.
	(cd "$TMP/demo" && "$ANIMD" inspect "$asset") >"$TMP/inspect" 2>&1 || bad "animd inspect $asset failed"
	"$CTL" --socket "$TMP/s.sock" info "$asset" >"$TMP/info" 2>&1 || bad "animctl info $asset failed"
	shared "$TMP/inspect" >"$TMP/inspect.shared"
	shared "$TMP/info" >"$TMP/info.shared"
	[ -s "$TMP/info.shared" ] && ok || bad "animctl info $asset printed none of the shared lines"
	if cmp -s "$TMP/inspect.shared" "$TMP/info.shared"; then ok; else
		bad "animd inspect (<) and animctl info (>) say $asset differently"
		diff "$TMP/inspect.shared" "$TMP/info.shared" | head -20
	fi
	# The asset line names the same asset.
	grep -qx "asset       $asset" "$TMP/inspect" && grep -qx "asset       $asset" "$TMP/info" && ok ||
		bad "both name $asset on their asset line"
	if [ $py_ok = yes ]; then
		ANIMD_SOCKET=$TMP/s.sock PYTHONPATH=$SRC/client/python "$PY" -m animd info "$asset" \
			>"$TMP/py" 2>&1 || bad "python3 -m animd info $asset failed: $(cat "$TMP/py")"
		shared "$TMP/py" >"$TMP/py.shared"
		if cmp -s "$TMP/info.shared" "$TMP/py.shared"; then ok; else
			bad "animctl info (<) and python3 -m animd info (>) say $asset differently"
			diff "$TMP/info.shared" "$TMP/py.shared" | head -20
		fi
	fi
done

# The words themselves, decided once.
(cd "$TMP/demo" && "$ANIMD" inspect walker.md5anim) >"$TMP/inspect"
expect_match '^axes        z up, right-handed$' "$TMP/inspect"
expect_match '^skeleton    10 joints$' "$TMP/inspect"
expect_match '^ +0  "origin" +root$' "$TMP/inspect"
expect_match '^ +3  "head" +parent 2 "spine"$' "$TMP/inspect"
expect_match '^clip        "walker": 1 s, loop, 10 joints, 25 frames at 24 fps, bounds$' "$TMP/inspect"
(cd "$TMP/demo" && "$ANIMD" inspect crane.x) >"$TMP/inspect"
expect_match '^axes        y up, left-handed$' "$TMP/inspect"

# sample: the same header, the same numbers.
for args in "walker.md5anim --time 1.25" "walker.md5anim --time 0.5 --space local" \
	"orbit.md5camera --time 1" "lantern.m2 --clip 2 --time 0.3 --space attachments" \
	"crane.x --time 0.75 --space skin"; do
	# shellcheck disable=SC2086  # the arguments split on purpose
	(cd "$TMP/demo" && "$ANIMD" sample $args) 2>&1 | head -1 >"$TMP/a"
	# shellcheck disable=SC2086
	"$CTL" --socket "$TMP/s.sock" sample $args 2>&1 | head -1 >"$TMP/b"
	if cmp -s "$TMP/a" "$TMP/b"; then ok; else
		bad "animd sample and animctl sample $args begin differently: $(cat "$TMP/a") / $(cat "$TMP/b")"
	fi
	if [ $py_ok = yes ]; then
		# shellcheck disable=SC2086
		ANIMD_SOCKET=$TMP/s.sock PYTHONPATH=$SRC/client/python "$PY" -m animd sample $args 2>&1 |
			head -1 >"$TMP/c"
		cmp -s "$TMP/b" "$TMP/c" && ok ||
			bad "animctl sample and python3 -m animd sample $args begin differently: $(cat "$TMP/b") / $(cat "$TMP/c")"
	fi
done
"$CTL" --socket "$TMP/s.sock" sample walker.md5anim --time 1.25 >"$TMP/b"
expect_match '^asset walker.md5anim, clip "walker", time 1.25 s -> clip time 0.25 s \(cycle 1\), space model$' "$TMP/b"
finish
