#!/bin/sh
# animd.ini(5) and conf/animd.ini against the keys the daemon accepts: every
# key of config.c's table (and of `animd serve --print-config`, which prints
# that table) is documented in man/animd.ini.5 under its section and set in
# conf/animd.ini, both with the same default, and neither names a key the
# daemon does not know.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)

# section.key, one a line, sorted.
# config.c: CONFIG_KEY("limits", "max_connections", ...) or CONFIG_KEY_WHY(...),
# possibly over lines.
tr -d '\n\t' <"$top/daemon/service/base/config.c" |
	grep -o 'CONFIG_KEY[A-Z_]*("[a-z_]*", *"[a-z_]*"' |
	sed 's/CONFIG_KEY[A-Z_]*("\([a-z_]*\)", *"\([a-z_]*\)"/\1.\2/' | sort >"$TMP/source"
[ -s "$TMP/source" ] && ok || bad "no CONFIG_KEY found in config.c"

: >"$TMP/empty.ini"
"$ANIMD" serve --print-config -c "$TMP/empty.ini" >"$TMP/print" 2>"$TMP/err" || bad "--print-config failed"
awk '/^\[/ { gsub(/[][]/, ""); s = $0; next }
     /^[a-z_]+ =/ { print s "." $1 }' "$TMP/print" | sort >"$TMP/printed"
cmp -s "$TMP/source" "$TMP/printed" && ok ||
	{ bad "config.c's keys and --print-config's differ"; diff "$TMP/source" "$TMP/printed"; }

# section.key=value from the man page (.SS [section], then .B key = value).
awk '/^\.SS \[[a-z_]+\]$/ { s = $2; gsub(/[][]/, "", s); next }
     /^\.SH / { s = "" }
     s != "" && /^\.B [a-z_]+ =/ { v = $0; sub(/^\.B [a-z_]+ = ?/, "", v); print s "." $2 "=" v }' \
	"$top/man/animd.ini.5" | sort >"$TMP/man"
# ... and from conf/animd.ini.
awk '/^\[[a-z_]+\]$/ { s = $0; gsub(/[][]/, "", s); next }
     /^[a-z_]+ =/ { v = $0; sub(/^[a-z_]+ = ?/, "", v); print s "." $1 "=" v }' \
	"$top/conf/animd.ini" | sort >"$TMP/conf"

while read -r key; do
	grep -q "^$key=" "$TMP/man" && ok || bad "$key is not documented in man/animd.ini.5"
	grep -q "^$key=" "$TMP/conf" && ok || bad "$key is not in conf/animd.ini"
done <"$TMP/source"
for f in man conf; do
	cut -d= -f1 "$TMP/$f" | while read -r key; do
		grep -qx "$key" "$TMP/source" || echo "$key"
	done >"$TMP/extra"
	[ -s "$TMP/extra" ] && bad "$f names keys config.c does not accept: $(cat "$TMP/extra")" || ok
done
cmp -s "$TMP/man" "$TMP/conf" && ok ||
	{ bad "defaults differ between man/animd.ini.5 (<) and conf/animd.ini (>)"; diff "$TMP/man" "$TMP/conf"; }
finish
