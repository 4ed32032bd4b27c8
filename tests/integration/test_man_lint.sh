#!/bin/sh
# Every page in man/ renders without a single warning: mandoc -Tlint when
# mandoc is installed, else groff with every warning on (-ww), which prints
# warnings but exits 0, so its output must be empty.  Skipped (77) without
# either.  A link page (one line, ".so man3/animc_play.3", the name of a
# function documented on its group's page) must name a page of man/ that
# is not a link itself, in the directory of its own section.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)

pages="" links=""
for p in "$top"/man/*.[1-8]; do
	[ -f "$p" ] || continue
	if grep -q '^\.so' "$p"; then links="$links $p"; else pages="$pages $p"; fi
done
[ -n "$pages" ] && ok || bad "no pages in man/"
for want in animd.8 animctl.1 animd.ini.5 libanimclient.3; do
	[ -f "$top/man/$want" ] && ok || bad "man/$want is missing"
done
for l in $links; do
	f=$(basename "$l")
	target=$(sed -n 's/^\.so //p' "$l")
	if [ "$(wc -l <"$l")" -ne 1 ] || ! echo "$target" | grep -Eq "^man${f##*.}/[^/]+\.${f##*.}\$"; then
		bad "$f: a link page is one line, .so man${f##*.}/PAGE.${f##*.}: $(head -c 200 "$l")"
	elif [ ! -f "$top/man/${target#*/}" ]; then
		bad "$f: links to $target, which man/ does not have"
	elif grep -q '^\.so' "$top/man/${target#*/}"; then
		bad "$f: links to $target, itself a link"
	else
		ok
	fi
done

if command -v mandoc >/dev/null 2>&1; then
	for p in $pages; do
		mandoc -Tlint -W warning "$p" >"$TMP/lint" 2>&1
		rc=$?
		[ "$rc" -eq 0 ] && [ ! -s "$TMP/lint" ] && ok ||
			{ bad "mandoc -Tlint $(basename "$p") (exit $rc)"; sed 's/^/    /' "$TMP/lint"; }
	done
elif command -v groff >/dev/null 2>&1; then
	for p in $pages; do
		LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$p" >"$TMP/lint" 2>&1
		rc=$?
		[ "$rc" -eq 0 ] && [ ! -s "$TMP/lint" ] && ok ||
			{ bad "groff -man -ww $(basename "$p") (exit $rc)"; sed 's/^/    /' "$TMP/lint"; }
	done
else
	echo "SKIP: neither mandoc nor groff is installed (make deps installs groff-base)"
	exit 77
fi

# Each page's .TH names it as its file does (animd.ini.5: ANIMD.INI 5).
for p in $pages; do
	f=$(basename "$p")
	name=$(echo "${f%.*}" | tr 'a-z' 'A-Z') sec=${f##*.}
	grep -q "^\.TH $name $sec " "$p" && ok || bad "$f: .TH does not say $name $sec"
done
finish
