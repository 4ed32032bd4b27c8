#!/bin/sh
# Every page in man/ renders without a single warning: mandoc -Tlint when
# mandoc is installed, else groff with every warning on (-ww), which prints
# warnings but exits 0, so its output must be empty.  Skipped (77) without
# either.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)

pages=$(ls "$top"/man/*.[1-8] 2>/dev/null)
[ -n "$pages" ] && ok || bad "no pages in man/"
for want in animd.8 animctl.1 animd.ini.5 libanimclient.3; do
	[ -f "$top/man/$want" ] && ok || bad "man/$want is missing"
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
