#!/bin/sh
# Every function libanimclient exports (the animc_ symbols of the built
# libanimclient.so.1, and every ANIMC_API declaration of client/animclient.h)
# is documented: its prototype appears in the SYNOPSIS of a page in man/
# section 3.  And no page's SYNOPSIS names a function that does not exist.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
so=$BUILD/libanimclient.so.1

if ! command -v nm >/dev/null 2>&1; then
	echo "SKIP: nm (binutils) is not installed"
	exit 77
fi
[ -f "$so" ] || { echo "SKIP: $so not built"; exit 77; }

nm -D --defined-only "$so" | awk '$2 == "T" && $3 ~ /^animc_/ { sub(/@.*/, "", $3); print $3 }' | sort -u >"$TMP/exported"
# ANIMC_API declarations, the name being the word before "(".
tr '\n' ' ' <"$top/client/animclient.h" | grep -o 'ANIMC_API [^;(]*(' |
	sed 's/($//; s/.*[ *]//' | grep '^animc_' | sort -u >"$TMP/declared"
[ -s "$TMP/exported" ] && ok || bad "no animc_ function exported by $so"
cmp -s "$TMP/exported" "$TMP/declared" && ok ||
	{ bad "exported (<) and declared (>) functions differ"; diff "$TMP/exported" "$TMP/declared"; }

# Function names in the SYNOPSIS sections of section-3 pages.
for page in "$top"/man/*.3; do
	awk '/^\.SH / { syn = ($0 ~ /^\.SH "?SYNOPSIS"?$/); next } syn' "$page"
done | grep -o 'animc_[a-z0-9_]*(' | tr -d '(' | sort -u >"$TMP/documented"

sort -u "$TMP/exported" "$TMP/declared" | while read -r fn; do
	grep -qx "$fn" "$TMP/documented" || echo "$fn"
done >"$TMP/missing"
[ -s "$TMP/missing" ] && bad "not in any man/*.3 SYNOPSIS: $(tr '\n' ' ' <"$TMP/missing")" || ok
# Pointers to functions (animc_done_fn, ...) are types, not functions.
grep -v '_fn$' "$TMP/documented" | while read -r fn; do
	grep -qx "$fn" "$TMP/declared" || echo "$fn"
done >"$TMP/stale"
[ -s "$TMP/stale" ] && bad "documented but not declared: $(tr '\n' ' ' <"$TMP/stale")" || ok

# The installed header points at installed documents only: the pages it
# names exist, and no file of the source tree (PROTOCOL.md, README) is named.
grep -n -E '[A-Za-z_]+\.md([^A-Za-z0-9]|$)|README|HACKING' "$top/client/animclient.h" >"$TMP/refs" &&
	bad "client/animclient.h names documents that are not installed: $(cat "$TMP/refs")" || ok
grep -o '[a-z_][a-z_.]*([1-8])' "$top/client/animclient.h" | sort -u | while read -r ref; do
	page=${ref%(*} sec=$(echo "$ref" | tr -dc '1-8')
	[ -f "$top/man/$page.$sec" ] || echo "$ref"
done >"$TMP/dangling"
[ -s "$TMP/dangling" ] && bad "client/animclient.h names missing pages: $(cat "$TMP/dangling")" || ok
finish
