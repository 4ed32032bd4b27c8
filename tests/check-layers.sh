#!/bin/sh
# Enforce tests/layers over the sources: every project include names a
# file by its path from the repository root (one style), and lands in the
# including file's own folder or one it may include; the "may include"
# relation itself must have no cycle; CONTRIBUTING.md must show
# every folder.  Usage: tests/check-layers.sh [ROOT]   (ROOT defaults to .)
#       tests/check-layers.sh --self-test   (a wrong include must fail)
set -u
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = "--self-test" ]; then
	tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/tests" "$tmp/daemon/anim" "$tmp/daemon/service/base"
	cp "$here/layers" "$tmp/tests/layers"
	for doc in CONTRIBUTING.md; do
		sed -n 's/^\([a-z/]*\) *|.*/\1\//p' "$here/layers" >"$tmp/$doc"
	done
	echo '#include "daemon/service/base/log.h"' >"$tmp/daemon/anim/pose.c"
	: >"$tmp/daemon/service/base/log.h"
	if sh "$0" "$tmp" >"$tmp/out" 2>&1; then
		echo "check-layers: a wrong include (anim -> service/base) was not caught"; exit 1
	fi
	grep -q 'daemon/anim may not include daemon/service/base' "$tmp/out" ||
		{ echo "check-layers: no message naming the wrong include"; cat "$tmp/out"; exit 1; }
	echo "check-layers: self-test ok (a wrong include fails the check)"
	exit 0
fi

root=${1:-.}
cd "$root" || exit 2
find proto daemon client -name '*.[ch]' 2>/dev/null | sort |
	xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' /dev/null |
	awk -v layers=tests/layers '
	function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
	function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
	BEGIN {
		FS = "|"
		while ((getline line < layers) > 0) {
			if (line ~ /^#/ || line !~ /\|/) continue
			split(line, f, "|")
			name = trim(f[1]); known[name] = 1; order[++nf] = name
			deps[name] = trim(f[2])
		}
		FS = ":"
		# Transitive closure of "may include", and no cycle in it.
		for (i = 1; i <= nf; i++) {
			a = order[i]; n = split(deps[a], d, /[ \t]+/)
			for (k = 1; k <= n; k++) if (d[k] != "") {
				if (!(d[k] in known)) { printf "tests/layers: %s names unknown folder %s\n", a, d[k]; bad = 1 }
				reach[a, d[k]] = 1
			}
		}
		for (k = 1; k <= nf; k++) for (i = 1; i <= nf; i++) for (j = 1; j <= nf; j++)
			if (reach[order[i], order[k]] && reach[order[k], order[j]]) reach[order[i], order[j]] = 1
		for (i = 1; i <= nf; i++) if (reach[order[i], order[i]]) {
			printf "tests/layers: %s may include itself through others: a cycle\n", order[i]; bad = 1
		}
	}
	{
		file = $1; lineno = $2; text = $0
		sub(/^[^:]*:[^:]*:/, "", text)
		match(text, /"[^"]*"/); inc = substr(text, RSTART + 1, RLENGTH - 2)
		from = dir(file); to = dir(inc)
		if ((getline junk < inc) < 0) {
			printf "%s:%s: #include \"%s\" is not a path from the repository root\n", file, lineno, inc; bad = 1; next
		}
		close(inc)
		if (!(from in known)) { printf "%s: folder %s is not in tests/layers\n", file, from; bad = 1; next }
		if (to == from || reach[from, to]) next
		printf "%s:%s: includes %s: %s may not include %s (tests/layers)\n", file, lineno, inc, from, to
		bad = 1
	}
	END { exit bad }' || exit 1

for doc in CONTRIBUTING.md; do
	[ -f "$doc" ] || { echo "check-layers: $doc is missing"; exit 1; }
	for folder in $(sed -n 's/^\([a-z/]*\) *|.*/\1/p' tests/layers); do
		grep -q "$folder/" "$doc" || { echo "check-layers: $doc does not show $folder/"; exit 1; }
	done
done
echo "check-layers: $(find proto daemon client -name '*.[ch]' | wc -l) files keep to tests/layers"
