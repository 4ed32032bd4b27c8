#!/bin/sh
# The bash completions of completion/: sourced in bash, each registers its
# function (complete -p), and a few completions computed through COMP_WORDS
# and COMP_CWORD as bash sets them: commands, options, option values, file
# names for animd check, and asset names for animctl play asked of a real
# daemon.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)

if ! command -v bash >/dev/null 2>&1; then
	echo "SKIP: bash is not installed"
	exit 77
fi

# A daemon on the demo assets, for `animctl play <TAB>`.
mkdir -p "$TMP/assets" "$TMP/files/sub"
"$BUILD/gen/gen_demo" "$TMP/assets" >/dev/null || bad "gen_demo failed"
: >"$TMP/files/walk.md5anim"
: >"$TMP/empty.ini"
# Ready once its first asset scan is over (the "serving" line): the socket
# answers earlier, while the assets still load.
trap 'kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
start_daemon "$TMP/log" "$ANIMD" serve -c "$TMP/empty.ini" --assets "$TMP/assets" \
	--socket "$TMP/s.sock" --log-level info || bad "the daemon did not start: $(cat "$TMP/log")"

# complete_words WORD... : what the completion offers for the command line
# WORD... with the cursor on the last word (empty: a new word), one a line.
cat >"$TMP/run.bash" <<'BASH'
source "$TOP/completion/animctl" || exit 1
source "$TOP/completion/animd" || exit 1
if [ "$1" = "-p" ]; then
	complete -p animctl animd
	exit
fi
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
fn=$(complete -p "$(basename "$1")" | sed 's/.*-F \([^ ]*\) .*/\1/')
"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}" | sort
BASH
complete_words() {
	TOP=$top bash "$TMP/run.bash" "$@" >"$TMP/out" 2>"$TMP/err" || bad "completion of '$*' failed: $(cat "$TMP/err")"
}
# offers WORD FILE : the completion offered WORD.
offers() { grep -qx -- "$1" "$TMP/out" && ok || { bad "'$1' not offered for '$2'"; sed 's/^/    /' "$TMP/out"; }; }
offers_only() { [ "$(cat "$TMP/out")" = "$1" ] && ok || { bad "for '$2' wanted only '$1', got: $(tr '\n' ' ' <"$TMP/out")"; }; }

TOP=$top bash "$TMP/run.bash" -p >"$TMP/out" 2>&1
expect_match '^complete -F _animctl animctl$' "$TMP/out"
expect_match '^complete -F _animd animd$' "$TMP/out"

ctl=$BUILD/animctl
complete_words animctl pl;                    offers_only play "animctl pl"
complete_words animctl ""
for c in status list info reload sample play watch events instances pause resume seek speed stop layer clients; do
	offers "$c" "animctl"
done
complete_words animctl --j;                   offers_only --json "animctl --j"
complete_words animctl play --pi;             offers_only --pingpong "animctl play --pi"
complete_words animctl play x --no;           offers_only --no-input "animctl play x --no"
complete_words animctl play x --sy;           offers_only --sync "animctl play x --sy"
complete_words animctl layer a;              offers_only add "animctl layer a"
complete_words animctl layer add 1 --add;    offers_only --additive "animctl layer add 1 --add"
complete_words animctl watch x --view "";     offers front "animctl watch x --view"
complete_words animctl sample x --space em;   offers_only emitters "animctl sample x --space em"
complete_words animctl sample x --space at;   offers_only attachments "animctl sample x --space at"
complete_words animctl play x --space a;      offers_only attachments "animctl play x --space a"
complete_words animctl sample x --space w;    offers_only weights "animctl sample x --space w"
complete_words animctl sample x --loop p;     offers_only pingpong "animctl sample x --loop p"
complete_words animctl events --events asset.loaded,instance.e
offers_only asset.loaded,instance.ended "animctl events --events asset.loaded,instance.e"
complete_words animctl events --events cl;    offers_only clip.event "animctl events --events cl"
complete_words animctl events x --loop o;     offers_only once "animctl events x --loop o"
complete_words animctl events x --sec;        offers_only --seconds "animctl events x --sec"
complete_words animctl cl;                    offers_only clients "animctl cl"
complete_words animctl clients k;             offers_only kill "animctl clients k"
complete_words animctl clients kill 3 --r;    offers_only --reason "animctl clients kill 3 --r"
complete_words animctl instances --a;         offers_only --all "animctl instances --a"
complete_words animctl stop --a;              offers_only --any "animctl stop --a"
complete_words animctl rel;                   offers_only reload "animctl rel"
complete_words animctl sample walker.md5anim --bl;  offers_only --blend "animctl sample x --bl"
complete_words "$ctl" --socket "$TMP/s.sock" sample --additive idle:0:1 wal
offers walker.md5anim "animctl sample --additive idle:0:1 wal"
# Asset names from the daemon, through the --socket on the line.
complete_words "$ctl" --socket "$TMP/s.sock" play wal
offers walker.md5anim "animctl play wal"
offers walker.md5mesh "animctl play wal"
complete_words "$ctl" --socket "$TMP/s.sock" watch lan
offers_only lantern.m2 "animctl watch lan"
complete_words "$ctl" --socket "$TMP/s.sock" events --speed 2 lan
offers_only lantern.m2 "animctl events --speed 2 lan"
complete_words "$ctl" --socket "$TMP/s.sock" play walker.md5anim --mesh walker.md5m
offers_only walker.md5mesh "animctl play walker.md5anim --mesh walker.md5m"
# No daemon there: nothing, quickly, and no error on the terminal.
complete_words "$ctl" --socket "$TMP/none.sock" play wal
[ -s "$TMP/out" ] && bad "offered names with no daemon" || ok
[ -s "$TMP/err" ] && bad "printed on the terminal: $(cat "$TMP/err")" || ok

complete_words animd ch;                      offers_only check "animd ch"
complete_words animd serve --log-level d;     offers_only debug "animd serve --log-level d"
complete_words animd serve --log-format j;    offers_only journal "animd serve --log-format j"
complete_words animd serve --log-f;           offers_only --log-format "animd serve --log-f"
complete_words animd --pr;                    offers_only --print-config "animd --pr"
complete_words animd sample f --ro;           offers_only --root-motion "animd sample f --ro"
complete_words animd sample f --space at;     offers_only attachments "animd sample f --space at"
complete_words animd sample f --space we;     offers_only weights "animd sample f --space we"
complete_words animd check "$TMP/files/"
offers "$TMP/files/walk.md5anim" "animd check $TMP/files/"
offers "$TMP/files/sub" "animd check $TMP/files/"
complete_words animd inspect "$TMP/files/wa"; offers_only "$TMP/files/walk.md5anim" "animd inspect $TMP/files/wa"
complete_words animd serve --assets "$TMP/files/s"; offers_only "$TMP/files/sub" "animd serve --assets $TMP/files/s"
finish
