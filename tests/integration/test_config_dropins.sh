#!/bin/sh
# The drop-in folder on the real daemon: every *.ini of FILE.d/ read after
# FILE in name order, the start-up line counting them; a drop-in added
# later is applied by SIGHUP; a mistake in one names its file and line,
# with the key it was probably meant to be, and stops a start or is
# refused by a reload, which keeps the running configuration.
. "$(dirname "$0")/lib.sh"
mkdir "$TMP/assets" "$TMP/animd.ini.d"
"$BUILD/gen/gen_demo" "$TMP/assets" >/dev/null || { echo "gen_demo failed"; exit 1; }
ini=$TMP/animd.ini
d=$TMP/animd.ini.d
printf '[assets]\nroot = %s\n[socket]\npath = %s\n[limits]\nmax_connections = 9\n' \
	"$TMP/assets" "$TMP/s.sock" >"$ini"
printf '[limits]\nmax_connections = 20\n' >"$d/20-b.ini"
printf '[limits]\nmax_connections = 10\nmax_streams_per_connection = 3\n' >"$d/10-a.ini"
printf 'not read\n' >"$d/20-b.ini.dpkg-old"

expect_status 0 "$ANIMD" serve -c "$ini" --print-config
expect_match "^max_connections = 20 +; $d/20-b\\.ini:2\$" "$TMP/out"
expect_match "^max_streams_per_connection = 3 +; $d/10-a\\.ini:3\$" "$TMP/out"

# wait_log TEXT : up to 10 s for a fixed string in the daemon's log.
wait_log() {
	for _ in $(seq 100); do grep -qF -- "$1" "$TMP/log" && return 0; sleep 0.1; done
	return 1
}

if start_daemon "$TMP/log" "$ANIMD" serve -c "$ini"; then
	ok
	expect_match "starting \\(pid [0-9]+, config $ini and 2 drop-ins from $d\\)" "$TMP/log"

	# A drop-in added while it runs, applied by SIGHUP.
	printf '[log]\nlevel = debug\n[limits]\nmax_connections = 30\n' >"$d/30-log.ini"
	kill -HUP "$DAEMON_PID"
	wait_log "log.level: info -> debug" && ok || { bad "SIGHUP did not read the new drop-in"; cat "$TMP/log"; }
	expect_match "config: limits\.max_connections: 20 -> 30\$" "$TMP/log"

	# A typo in one: refused, named, the running configuration kept.
	printf '[limits]\nmax_conections = 2\n' >"$d/40-typo.ini"
	kill -HUP "$DAEMON_PID"
	wait_log "$d/40-typo.ini:2: unknown key \"max_conections\" in [limits]: did you mean \"max_connections\"?; keeping the running configuration" &&
		ok || { bad "SIGHUP did not name the drop-in's mistake"; cat "$TMP/log"; }
	stop_daemon && ok || { bad "animd did not exit cleanly"; cat "$TMP/log"; }
else
	bad "animd did not start"; cat "$TMP/log"
fi

# The same mistake at start: animd does not start, and says where.
expect_status 1 "$ANIMD" serve -c "$ini"
expect_match "^animd: $d/40-typo\\.ini:2: unknown key \"max_conections\" in \\[limits\\]: did you mean \"max_connections\"\\?\$" "$TMP/err"
printf '[limits]\npublish_rate_hz = 30\n' >"$d/40-typo.ini"
expect_status 1 "$ANIMD" serve -c "$ini"
expect_match "^animd: $d/40-typo\\.ini:2: \"publish_rate_hz\" is not a key of \\[limits\\]; it is in \\[streams\\]\$" "$TMP/err"
finish
