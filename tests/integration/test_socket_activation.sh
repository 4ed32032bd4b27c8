#!/bin/sh
# Socket activation as animd.socket does it, through systemd's own
# systemd-socket-activate: animd serves on the socket it is passed, says so
# in its log (naming that socket, not socket.path), never creates or
# removes socket.path, leaves the passed socket in place when it stops, and
# refuses what it cannot serve on (two sockets, a datagram socket).
. "$(dirname "$0")/lib.sh"
SA=$(command -v systemd-socket-activate) ||
	{ echo "SKIP: systemd-socket-activate is not installed"; exit 77; }

mkdir "$TMP/assets"
"$BUILD/gen/gen_demo" "$TMP/assets" >/dev/null || { echo "gen_demo failed"; exit 1; }
act=$TMP/activated.sock
cfg=$TMP/configured.sock

# wait_for_socket PATH : up to 10 s.
wait_for_socket() {
	for _ in $(seq 100); do [ -S "$1" ] && return 0; sleep 0.1; done
	return 1
}

# systemd-socket-activate binds, then execs animd on the first connection:
# its pid becomes animd's.
"$SA" -l "$act" "$ANIMD" serve --assets "$TMP/assets" --socket "$cfg" 2>"$TMP/log" &
pid=$!
wait_for_socket "$act" && ok || bad "systemd-socket-activate did not bind $act"
expect_status 0 "$BUILD/animctl" --socket "$act" --json status
expect_jq ".pid == $pid and (.server | startswith(\"animd \"))" "$TMP/out"
# Started by that first connection, it answers while its first scan of the
# assets still runs: wait for the scan before listing them.
wait_serving "$TMP/log" "$pid" || :
expect_status 0 "$BUILD/animctl" --socket "$act" list
expect_match 'walker\.md5anim' "$TMP/out"
expect_match "listening on $act, the socket systemd passed" "$TMP/log"
# (systemd-socket-activate itself prints the command line; animd's lines
# start with the time and level word, or a priority under the journal.)
grep -Eq "^([0-9]{4}-[0-9T:.-]+Z [a-z]+: |<[0-7]>).*$cfg" "$TMP/log" && bad "animd's log names socket.path" || ok
expect_match '^[0-9]{4}-[0-9T:.-]+Z info: listening on ' "$TMP/log"
[ -e "$cfg" ] && bad "animd created socket.path under activation" || ok
kill -TERM "$pid"
wait "$pid" && ok || { bad "animd did not exit cleanly"; cat "$TMP/log"; }
[ -S "$act" ] && ok || bad "animd removed the socket systemd owns"
rm -f "$act"

# Two sockets: animd serves on one, so it refuses to start, and says why.
"$SA" -l "$act" -l "$TMP/second.sock" "$ANIMD" serve --assets "$TMP/assets" --socket "$cfg" \
	2>"$TMP/log2" &
pid=$!
wait_for_socket "$TMP/second.sock" && ok || bad "systemd-socket-activate did not bind two sockets"
"$BUILD/animctl" --socket "$act" status >/dev/null 2>&1
wait "$pid"
rc=$?
[ "$rc" -ne 0 ] && ok || bad "animd served on two sockets"
expect_match 'systemd passed 2 sockets' "$TMP/log2"
rm -f "$act" "$TMP/second.sock"

# A datagram socket is not one animd can listen on.
"$SA" -d -l "$act" "$ANIMD" serve --assets "$TMP/assets" --socket "$cfg" 2>"$TMP/log3" &
pid=$!
wait_for_socket "$act" && ok || bad "systemd-socket-activate did not bind a datagram socket"
printf x | timeout 5 python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(b"x", sys.argv[1])' "$act" 2>/dev/null
wait "$pid"
rc=$?
[ "$rc" -ne 0 ] && ok || bad "animd served on a datagram socket"
expect_match 'not a listening Unix stream socket' "$TMP/log3"
finish
