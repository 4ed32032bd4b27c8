# Shared helpers for the integration tests (sourced, not run).
# Each test gets a private temporary directory, removed on exit.
set -u
: "${ANIMD:?set ANIMD to the animd binary}"
: "${BUILD:?set BUILD to the build directory}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
checks=0
fails=0

ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "not ok: $*"; }

# expect_status WANT CMD... : run CMD, compare its exit status.
expect_status() {
	want=$1; shift
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok; else
		bad "$* exited $got, expected $want"; sed 's/^/    /' "$TMP/out" "$TMP/err" | head -20
	fi
}

# expect_match REGEX FILE : an extended regex must match a line of FILE.
expect_match() {
	if grep -Eq -- "$1" "$2"; then ok; else bad "no line of $2 matches /$1/"; sed 's/^/    /' "$2" | head -20; fi
}

# expect_jq FILTER FILE : a jq filter must print true.
expect_jq() {
	if [ "$(jq -e "$1" "$2" 2>/dev/null)" = "true" ]; then ok; else
		bad "jq '$1' is not true for $2"; head -c 600 "$2"; echo
	fi
}

finish() {
	echo "$(basename "$0"): $((checks - fails)) passed, $fails failed"
	[ "$fails" -eq 0 ]
}

# The source tree (the tests run from anywhere).
SRC=$(cd "$(dirname "$0")/../.." && pwd)

# wait_serving LOG PID : wait up to 10 s for animd's "serving" line in LOG
# (its first asset scan is over; the socket answers before that).  0 once
# it is there, 1 if PID exited or the line never came.
wait_serving() {
	for _ in $(seq 100); do
		grep -q 'serving ' "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# start_daemon LOG CMD... : run CMD (an animd serve) in the background, its
# stderr into LOG, and wait_serving.  Sets DAEMON_PID; 0 once it serves, 1
# if it exited or never got there.
start_daemon() {
	log=$1; shift
	"$@" 2>"$log" &
	DAEMON_PID=$!
	wait_serving "$log" "$DAEMON_PID"
}

# stop_daemon : SIGTERM the daemon start_daemon started; its exit status.
stop_daemon() {
	kill -TERM "$DAEMON_PID" 2>/dev/null
	wait "$DAEMON_PID"
}
