#!/bin/sh
# The log's format on the real daemon: auto writes the journal's "<N>"
# prefixes only when stderr is the journal ($JOURNAL_STREAM naming its
# device and inode, as systemd sets it) and the time and level word
# everywhere else (a file here); --log-format and [log] format choose
# either outright, the flag over the file; a SIGHUP applies a new format.
. "$(dirname "$0")/lib.sh"
mkdir "$TMP/assets"
"$BUILD/gen/gen_demo" "$TMP/assets" >/dev/null || { echo "gen_demo failed"; exit 1; }
ini=$TMP/animd.ini
printf '[assets]\nroot = %s\n[socket]\npath = %s\n' "$TMP/assets" "$TMP/s.sock" >"$ini"
plain='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z info: animd [^ ]+ starting '
journal='^<6>animd [^ ]+ starting '
unset JOURNAL_STREAM

# run_log NAME CMD... : CMD (an animd serve) with stderr into $TMP/NAME,
# until it serves; then stopped.
run_log() {
	name=$1; shift
	if start_daemon "$TMP/$name" "$@"; then
		stop_daemon || bad "$* did not exit cleanly"
	else
		bad "$* did not start"; cat "$TMP/$name"
	fi
}

# journal_run NAME ARGS... : the same with stderr a file that
# $JOURNAL_STREAM names, as under systemd.
journal_run() {
	name=$1; shift
	: >"$TMP/$name"
	JOURNAL_STREAM=$(stat -c '%d:%i' "$TMP/$name") "$ANIMD" serve -c "$ini" "$@" 2>>"$TMP/$name" &
	DAEMON_PID=$!
	if wait_serving "$TMP/$name" "$DAEMON_PID"; then
		stop_daemon || bad "animd $* did not exit cleanly"
	else
		bad "animd $* did not start under the journal"; cat "$TMP/$name"
	fi
}

# auto: a file is not the journal.
run_log auto "$ANIMD" serve -c "$ini"
expect_match "$plain" "$TMP/auto"
grep -q '^<' "$TMP/auto" && bad "auto wrote journal prefixes to a file" || ok
# ... nor is the journal of another descriptor.
run_log other env JOURNAL_STREAM="$(stat -c '%d:%i' "$ini")" "$ANIMD" serve -c "$ini"
expect_match "$plain" "$TMP/other"
# ... but stderr that JOURNAL_STREAM names is.
journal_run journal_auto
expect_match "$journal" "$TMP/journal_auto"
expect_match '^<6>stopped$' "$TMP/journal_auto"
grep -Eq '^[0-9]{4}-' "$TMP/journal_auto" && bad "auto wrote times to the journal" || ok

# Chosen outright, by flag or file; the flag wins.
run_log flag "$ANIMD" serve -c "$ini" --log-format=journal
expect_match "$journal" "$TMP/flag"
journal_run journal_plain --log-format plain
expect_match "$plain" "$TMP/journal_plain"
printf '[log]\nformat = journal\n' >>"$ini"
run_log file "$ANIMD" serve -c "$ini"
expect_match "$journal" "$TMP/file"
run_log both "$ANIMD" serve -c "$ini" --log-format=plain
expect_match "$plain" "$TMP/both"

# A reload applies a new format to the lines after the one that says so.
sed -i 's/^format = journal$/format = plain/' "$ini"
if start_daemon "$TMP/hup" "$ANIMD" serve -c "$ini" --log-level debug; then
	sed -i 's/^format = plain$/format = journal/' "$ini"
	kill -HUP "$DAEMON_PID"
	for _ in $(seq 100); do grep -q 'config: log\.format' "$TMP/hup" && break; sleep 0.1; done
	stop_daemon || bad "animd did not exit cleanly after the reload"
	expect_match "$plain" "$TMP/hup"
	expect_match 'Z info: config: log\.format: plain -> journal$' "$TMP/hup"
	expect_match '^<6>stopped$' "$TMP/hup"
else
	bad "animd did not start with format = plain"; cat "$TMP/hup"
fi

# A bad value stops it, naming the flag or the line.
expect_status 1 "$ANIMD" serve -c "$ini" --log-format=syslog
expect_match '^animd: --log-format must be one of auto, journal, plain, not "syslog"$' "$TMP/err"
sed -i 's/^format = journal$/format = json/' "$ini"
expect_status 1 "$ANIMD" serve -c "$ini"
expect_match "^animd: $ini:[0-9]+: log\\.format must be one of auto, journal, plain, not \"json\"\$" "$TMP/err"
finish
